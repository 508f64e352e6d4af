/*
 * patchwarden: the flood rules FLOOD, FLOOD_SERIES, FLOOD_CAMPAIGN,
 * RESEND_IDENTICAL and SERIES_OVERSIZED (checks/RULES.md): their thresholds, severities and
 * wording.  db/flood.c finds floods, resends and oversized series in the
 * store (db/FLOODS.md) and passes the facts here; the decision of which
 * rule and severity those facts make, and the text of the finding, are
 * made here, without the store.
 */
#ifndef PW_FLOODRULES_H
#define PW_FLOODRULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checks/patch.h"

/* A counter announcing at least this many patches makes SERIES_OVERSIZED. */
#define PW_FLOOD_OVERSIZED 100
/* An unmarked identical copy within this many seconds is a cross-post. */
#define PW_FLOOD_CROSSPOST (24 * 3600)
/* A FLOOD_SERIES of at least this many patches ranks as tree-wide
 * (info all the same: its postings are series under cover letters). */
#define PW_FLOOD_TREEWIDE 100

/*
 * A flood's kind, which only ever rises as it grows.  The store keeps
 * it as a number: never renumber.
 */
enum pw_flood_rank {
	/* FLOOD_SERIES: most patches threaded under cover letters, in
	 * many separate series (one series is no flood, db/FLOODS.md) */
	PW_FLOOD_RANK_SERIES = 0,
	/* the same, with PW_FLOOD_TREEWIDE patches or more */
	PW_FLOOD_RANK_TREEWIDE = 1,
	/* FLOOD: threaded, but chained without a cover letter */
	PW_FLOOD_RANK_CHAINED = 2,
	/* FLOOD: most patches sent as separate messages */
	PW_FLOOD_RANK_SEPARATE = 3,
};

/*
 * The rank that a flood of size patches makes, of which nthreaded have
 * In-Reply-To or References and ncovered sit under a cover letter.
 */
enum pw_flood_rank pw_flood_rank(int size, int nthreaded, int ncovered);

/* The rule of a rank: PW_R_FLOOD_SERIES or PW_R_FLOOD (enum pw_rule_index). */
int pw_flood_rule(enum pw_flood_rank rank);
enum pw_severity pw_flood_severity(enum pw_flood_rank rank);

/*
 * The message of the finding every member of flood flood_id carries;
 * sender is its address.  Returns a new string (g_free).
 */
char *pw_flood_message(enum pw_flood_rank rank, const char *sender,
		       int64_t flood_id);

/*
 * What a group of near-identical postings is by its pace and reach
 * (db/FLOODS.md, "Burst or campaign"): fewer than count postings in the
 * window is nothing; count or more is a flood (a burst) when count of
 * them fall within burst seconds or they reach lists subsystems, and a
 * campaign otherwise: the same change sent one by one at a pace a
 * subsystem reviews, noted (FLOOD_CAMPAIGN), never blamed.
 */
enum pw_flood_pace {
	PW_FLOOD_PACE_NONE,
	PW_FLOOD_PACE_CAMPAIGN,
	PW_FLOOD_PACE_BURST,
};

/*
 * The pace of a group with in_window postings in the window, burst
 * saying whether count of them fall within [flood] burst, reaching
 * reach subsystems.  lists is [flood] lists: 0 counts no reach.
 */
enum pw_flood_pace pw_flood_pace(int in_window, int count, bool burst,
				 int reach, int lists);

/*
 * Whether count of the n dates (sorted, ascending) fall within span
 * seconds of one another.  span 0 or less: whether there are count.
 */
bool pw_flood_burst(const int64_t *dates, size_t n, int64_t span, int count);

/*
 * The subsystem a patch reaches, for [flood] lists: the first two
 * folders of the first file its diff (the text) changes outside
 * include/ and Documentation/, "drivers/watchdog", "sound/soc", "fs/ext4"
 * (one folder, or the file, for a shallower path); the first file's
 * when every file is under those two.  A new string (g_free), "" when
 * the diff names no file.
 */
char *pw_flood_area(const char *diff);

/* FLOOD_CAMPAIGN's message for the members of campaign (group) id of
 * sender: a new string (g_free). */
char *pw_flood_campaign_message(const char *sender, int64_t id);

/* A campaign's pace in words, "21 patches over 31 hours": a new string. */
char *pw_flood_campaign_pace(int size, int64_t first, int64_t last);

/* A lone patch posted again unchanged within this many seconds (without
 * RESEND) was sent twice; later, it was sent again without saying so. */
#define PW_FLOOD_TWICE PW_FLOOD_CROSSPOST
/*
 * A patch of a series posted again unchanged with the same series
 * within this many seconds was sent twice (send-email run again, to
 * more recipients); later, the series was reworked or reposted, and its
 * unchanged patches say nothing of that.
 */
#define PW_FLOOD_SERIES_TWICE (2 * 3600)

/*
 * A patch with the same patch-id as an earlier one of its sender, of
 * the same version and the same other subject tags (RFC included).
 */
struct pw_resend_facts {
	const char *orig_msgid;		/* the earlier message's Message-ID */
	int64_t orig_date;		/* its Date */
	int64_t date;			/* the copy's Date */
	bool resend;			/* the copy is marked RESEND */
	int total;			/* the copy's "n/N" counter N, 0 if none */
	int orig_total;			/* the earlier one's */
	int version;			/* the version both carry, 1 if none */
	bool same_subject;		/* the subjects match, tags aside */
	bool same_body;			/* the commit messages match, trailers aside */
	bool same_recipients;		/* To and Cc name the same addresses */
};

/* What a copy is, for RESEND_IDENTICAL; NONE files no finding. */
enum pw_resend_kind {
	PW_RESEND_NONE,
	/* marked RESEND: announced */
	PW_RESEND_MARKED,
	/* a lone patch sent again, unchanged, to the same recipients,
	 * within PW_FLOOD_TWICE */
	PW_RESEND_TWICE,
	/* the same, to other recipients: a cross-post of separate copies */
	PW_RESEND_ELSEWHERE,
	/* a patch of a series sent again, unchanged, with its series */
	PW_RESEND_SERIES_TWICE,
	/* a lone patch sent again unchanged later, without RESEND */
	PW_RESEND_UNMARKED,
	/* a lone patch's diff under a changed subject or commit message,
	 * without a new version */
	PW_RESEND_UNVERSIONED,
};

/*
 * The kind of copy f describes.  A patch of a series (a counter above
 * 1 on either side) counts only when marked RESEND or sent again with
 * the same series within PW_FLOOD_SERIES_TWICE, unchanged: an unchanged
 * patch in a reworked or reposted series is how series evolve.
 */
enum pw_resend_kind pw_resend_kind(const struct pw_resend_facts *f);

/*
 * RESEND_IDENTICAL's severity and message (a new string, g_free) for a
 * copy of kind k (not PW_RESEND_NONE): a warning for a lone patch sent
 * twice without saying so (TWICE, ELSEWHERE), info otherwise.
 */
enum pw_severity pw_resend_severity(enum pw_resend_kind k);
char *pw_resend_message(enum pw_resend_kind k, const struct pw_resend_facts *f);

/*
 * SERIES_OVERSIZED: whether a "[PATCH number/total]" counter announces
 * a series that large, and the severity and message (a new string) for
 * the first patch of it observed, threaded or not.  A stable review or
 * AUTOSEL series (pw_subject_stable_tags()) is not counted by the caller.
 */
bool pw_oversized(bool has_counter, int total);
enum pw_severity pw_oversized_severity(bool threaded);
char *pw_oversized_message(int number, int total, bool threaded);

#endif
