/*
 * patchwarden: FLOOD, FLOOD_SERIES, RESEND_IDENTICAL and
 * SERIES_OVERSIZED (see checks/floodrules.h).  The reference is the
 * 2016 "[PATCH NNNN/1285]" episode (DESIGN.md): a flood is told once,
 * to its sender, with what to do instead.  A series under one cover
 * letter is one posting whatever its size (the store counts a flood in
 * postings, db/FLOODS.md); separate series of near-identical patches,
 * each under its cover letter, are noted, not blamed.
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
	case PW_FLOOD_RANK_TREEWIDE:
		/* Separate series, each under a cover letter: how a tree-wide
		 * change is best sent, worth knowing, no fault. */
		return PW_SEV_INFO;
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
	case PW_FLOOD_RANK_TREEWIDE:
		return g_strdup_printf(
			"part of near-identical patches from %s sent as many"
			" separate series, each under its own cover letter (flood %"
			G_GINT64_FORMAT ")", sender, id);
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

enum pw_resend_kind pw_resend_kind(const struct pw_resend_facts *f)
{
	bool unchanged = f->same_subject && f->same_body;
	bool soon = f->date - f->orig_date < PW_FLOOD_TWICE;

	if (f->resend)
		return PW_RESEND_MARKED;
	if (f->total > 1 || f->orig_total > 1)
		return f->total == f->orig_total && unchanged &&
		       f->date - f->orig_date < PW_FLOOD_SERIES_TWICE ?
		       PW_RESEND_SERIES_TWICE : PW_RESEND_NONE;
	if (!unchanged)
		return PW_RESEND_UNVERSIONED;
	if (!soon)
		return PW_RESEND_UNMARKED;
	return f->same_recipients ? PW_RESEND_TWICE : PW_RESEND_ELSEWHERE;
}

enum pw_severity pw_resend_severity(enum pw_resend_kind k)
{
	return k == PW_RESEND_TWICE || k == PW_RESEND_ELSEWHERE ?
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

/* How long after the original a copy came, in words: a new string. */
static char *after(int64_t secs)
{
	if (secs < 120)
		return g_strdup_printf("%" G_GINT64_FORMAT " seconds",
				       secs > 0 ? secs : 0);
	if (secs < 2 * 3600)
		return g_strdup_printf("%" G_GINT64_FORMAT " minutes",
				       secs > 0 ? secs / 60 : 0);
	if (secs < 2 * 24 * 3600)
		return g_strdup_printf("%" G_GINT64_FORMAT " hours", secs / 3600);
	return g_strdup_printf("%" G_GINT64_FORMAT " days", secs / 86400);
}

char *pw_resend_message(enum pw_resend_kind k, const struct pw_resend_facts *f)
{
	char *when = day_of(f->orig_date), *gap = after(f->date - f->orig_date);
	const char *what = !f->same_subject && !f->same_body ?
			   "subject and commit message" :
			   !f->same_subject ? "subject" : "commit message";
	char *text = NULL;

	switch (k) {
	case PW_RESEND_MARKED:
		text = g_strdup_printf(
			"resends (marked RESEND) the change of <%s> of %s%s",
			f->orig_msgid, when, f->same_subject && f->same_body ?
			", unchanged" : ", with a changed description");
		break;
	case PW_RESEND_TWICE:
		text = g_strdup_printf(
			"sent twice: the same patch as <%s> went to the same"
			" recipients %s earlier under another Message-ID; say"
			" which copy to review, so that replies go to one",
			f->orig_msgid, gap);
		break;
	case PW_RESEND_ELSEWHERE:
		text = g_strdup_printf(
			"the same patch as <%s> of %s, sent again %s later to"
			" other recipients under another Message-ID: one message"
			" with all of them in To and Cc reaches them as one"
			" thread",
			f->orig_msgid, when, gap);
		break;
	case PW_RESEND_SERIES_TWICE:
		text = g_strdup_printf(
			"sent twice with its series: the same patch as <%s>"
			" went out %s earlier under another Message-ID",
			f->orig_msgid, gap);
		break;
	case PW_RESEND_UNMARKED:
		text = g_strdup_printf(
			"the same patch as <%s> of %s, sent again unchanged"
			" without RESEND in the subject: [PATCH RESEND] tells"
			" reviewers nothing changed", f->orig_msgid, when);
		break;
	case PW_RESEND_UNVERSIONED:
		text = g_strdup_printf(
			"the same diff as <%s> of %s under a changed %s but the"
			" same version: a changed patch is a new version ([PATCH"
			" v%d]), with what changed below the \"---\"",
			f->orig_msgid, when, what,
			(f->version > 0 ? f->version : 1) + 1);
		break;
	case PW_RESEND_NONE:
		text = g_strdup("");
		break;
	}
	g_free(when);
	g_free(gap);
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
		"the subject counts %d patches in this series ([PATCH %d/%d]):"
		" a series that large is hard to review and reaches people who"
		" need only a few of its patches; split it per subsystem%s",
		total, number, total,
		threaded ? "" : " and thread it under a cover letter");
}
