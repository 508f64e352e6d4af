/*
 * patchwarden: FLOOD, FLOOD_SERIES, FLOOD_CAMPAIGN, RESEND_IDENTICAL and
 * SERIES_OVERSIZED (see checks/floodrules.h).  The reference is the
 * 2016 "[PATCH NNNN/1285]" episode (DESIGN.md): a flood is told once,
 * to its sender, with what to do instead.  A series under one cover
 * letter is one posting whatever its size (the store counts a flood in
 * postings, db/FLOODS.md); separate series of near-identical patches,
 * each under its cover letter, are noted, not blamed.
 */
#include <string.h>
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

/*
 * The owner's calls on real archives (db/FLOODS.md): 21 separate
 * "Use devm_clk_get_enabled() helper" patches to linux-watchdog over two
 * days, reviewed and merged one by one, are no flood; 32 unthreaded
 * "Make use of the helper function dev_err_probe()" patches in four
 * minutes are one, and so are the 2016 patches sent to dozens of lists
 * in days.  Rate and reach tell them apart, not the shape.
 */
enum pw_flood_pace pw_flood_pace(int in_window, int count, bool burst,
				 int reach, int lists)
{
	if (in_window < count)
		return PW_FLOOD_PACE_NONE;
	if (burst || (lists > 0 && reach >= lists))
		return PW_FLOOD_PACE_BURST;
	return PW_FLOOD_PACE_CAMPAIGN;
}

bool pw_flood_burst(const int64_t *dates, size_t n, int64_t span, int count)
{
	size_t i, c = count > 1 ? (size_t)count : 1;

	if (n < c)
		return false;
	if (span <= 0)
		return true;
	for (i = 0; i + c <= n; i++)
		if (dates[i + c - 1] - dates[i] <= span)
			return true;
	return false;
}

/* The path a "diff --git a/X b/Y" or "+++ b/X" line names: a new string,
 * NULL when it names none. */
static char *path_of(const char *line, size_t len)
{
	const char *p, *e = line + len;

	if (len > 13 && !strncmp(line, "diff --git a/", 13)) {
		p = line + 13;
		e = g_strstr_len(p, e - p, " b/");
		return e && e > p ? g_strndup(p, (size_t)(e - p)) : NULL;
	}
	if (len > 4 && !strncmp(line, "+++ ", 4)) {
		p = line + 4;
		if (e - p >= 9 && !strncmp(p, "/dev/null", 9))
			return NULL;
		if (e - p > 2 && !strncmp(p, "b/", 2))
			p += 2;
		return p < e ? g_strndup(p, strcspn(p, "\t\r\n")) : NULL;
	}
	return NULL;
}

/* The subsystem of one path: its first two folders (see the header). */
static char *area_of(const char *path)
{
	const char *a = strchr(path, '/'), *b = a ? strchr(a + 1, '/') : NULL;

	if (b)
		return g_strndup(path, (size_t)(b - path));
	return a ? g_strndup(path, (size_t)(a - path)) : g_strdup(path);
}

char *pw_flood_area(const char *diff)
{
	char *first = NULL, *pick = NULL, *area;
	const char *l = diff, *nl;
	bool git = diff && strstr(diff, "diff --git a/");

	while (l && *l && !pick) {
		size_t len;
		char *p;

		nl = strchr(l, '\n');
		len = nl ? (size_t)(nl - l) : strlen(l);
		/* A git diff names its files on its "diff --git" lines; an
		 * added line "++ x" must not pass for a header then. */
		p = git && l[0] == '+' ? NULL : path_of(l, len);
		if (p && !first)
			first = g_strdup(p);
		if (p && !g_str_has_prefix(p, "include/") &&
		    !g_str_has_prefix(p, "Documentation/"))
			pick = p;
		else
			g_free(p);
		l = nl ? nl + 1 : NULL;
	}
	area = pick ? area_of(pick) : first ? area_of(first) : g_strdup("");
	g_free(pick);
	g_free(first);
	return area;
}

char *pw_flood_campaign_message(const char *sender, int64_t id)
{
	return g_strdup_printf(
		"one of near-identical patches from %s sent one by one to one"
		" subsystem, slower than a flood (campaign %" G_GINT64_FORMAT
		"): noted, no fault", sender, id);
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

char *pw_flood_campaign_pace(int size, int64_t first, int64_t last)
{
	char *span = after(last - first);
	char *text = g_strdup_printf("%d patch%s over %s", size,
				     size == 1 ? "" : "es", span);

	g_free(span);
	return text;
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
