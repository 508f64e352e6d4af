/*
 * patchwarden: FLOOD, FLOOD_SERIES, RESEND_IDENTICAL and
 * SERIES_OVERSIZED (see checks/floodrules.h).  The reference is the
 * 2016 "[PATCH NNNN/1285]" episode (DESIGN.md): a flood is told once,
 * to its sender, with what to do instead; a tree-wide series sent
 * properly is noted, not blamed.
 */
#include <glib.h>

#include "checks/floodrules.h"
#include "checks/rules.h"

enum pw_flood_rank pw_flood_rank(int size, int nthreaded, int ncovered)
{
	if (ncovered * 2 > size)
		return size >= PW_FLOOD_TREEWIDE ? PW_FLOOD_RANK_TREEWIDE :
		       PW_FLOOD_RANK_SERIES;
	return nthreaded * 2 > size ? PW_FLOOD_RANK_CHAINED :
	       PW_FLOOD_RANK_SEPARATE;
}

int pw_flood_rule(enum pw_flood_rank rank)
{
	return rank <= PW_FLOOD_RANK_TREEWIDE ? PW_R_FLOOD_SERIES : PW_R_FLOOD;
}

enum pw_severity pw_flood_severity(enum pw_flood_rank rank)
{
	switch (rank) {
	case PW_FLOOD_RANK_SERIES:
		return PW_SEV_INFO;
	case PW_FLOOD_RANK_TREEWIDE:
	case PW_FLOOD_RANK_CHAINED:
		return PW_SEV_WARNING;
	case PW_FLOOD_RANK_SEPARATE:
		break;
	}
	return PW_SEV_ERROR;
}

char *pw_flood_message(enum pw_flood_rank rank, const char *sender,
		       int64_t id)
{
	switch (rank) {
	case PW_FLOOD_RANK_SERIES:
		return g_strdup_printf(
			"part of a large series of near-identical patches from %s,"
			" threaded under a cover letter (flood %" G_GINT64_FORMAT ")",
			sender, id);
	case PW_FLOOD_RANK_TREEWIDE:
		return g_strdup_printf(
			"part of a tree-wide series of near-identical patches from"
			" %s under one cover letter (flood %" G_GINT64_FORMAT "):"
			" one series per subsystem reaches the right maintainers"
			" with less noise", sender, id);
	case PW_FLOOD_RANK_CHAINED:
		return g_strdup_printf(
			"part of a flood of near-identical patches from %s, chained"
			" without a cover letter (flood %" G_GINT64_FORMAT "): send"
			" one series per subsystem under a cover letter", sender, id);
	case PW_FLOOD_RANK_SEPARATE:
		break;
	}
	return g_strdup_printf(
		"part of a flood of near-identical patches from %s, each sent"
		" on its own without a cover letter or threading (flood %"
		G_GINT64_FORMAT "): agree on the approach first, then send"
		" one series per subsystem under a cover letter", sender, id);
}

enum pw_severity pw_resend_severity(const struct pw_resend_facts *f)
{
	return !f->resend && f->total <= 1 &&
	       f->date - f->orig_date < PW_FLOOD_CROSSPOST ?
	       PW_SEV_WARNING : PW_SEV_INFO;
}

/* A Date as YYYY-MM-DD, UTC: a new string. */
static char *day_of(int64_t t)
{
	GDateTime *dt = g_date_time_new_from_unix_utc(t);
	char *s = dt ? g_date_time_format(dt, "%Y-%m-%d") : g_strdup("?");

	if (dt)
		g_date_time_unref(dt);
	return s;
}

char *pw_resend_message(const struct pw_resend_facts *f)
{
	char *when = day_of(f->orig_date), *text;

	if (pw_resend_severity(f) == PW_SEV_WARNING)
		text = g_strdup_printf(
			"the same change (patch-id) as <%s> of %s, sent again"
			" under another Message-ID: one message with every list"
			" in Cc reaches them all as one", f->orig_msgid, when);
	else
		text = g_strdup_printf(
			"%s the same change (patch-id) as <%s> of %s",
			f->resend ? "resends" : "repeats", f->orig_msgid, when);
	g_free(when);
	return text;
}

bool pw_oversized(bool has_counter, int total)
{
	return has_counter && total >= PW_FLOOD_OVERSIZED;
}

enum pw_severity pw_oversized_severity(bool threaded)
{
	return threaded ? PW_SEV_INFO : PW_SEV_WARNING;
}

char *pw_oversized_message(int number, int total, bool threaded)
{
	return g_strdup_printf(
		"the subject announces a series of %d patches ([PATCH %d/%d]):"
		" a series that large is hard to review and reaches people who"
		" need only a few of its patches; split it per subsystem%s",
		total, number, total,
		threaded ? "" : " and thread it under a cover letter");
}
