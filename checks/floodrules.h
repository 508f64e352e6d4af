/*
 * patchwarden: the flood rules FLOOD, FLOOD_SERIES, RESEND_IDENTICAL and
 * SERIES_OVERSIZED (checks/RULES.md): their thresholds, severities and
 * wording.  db/flood.c finds floods, resends and oversized series in the
 * store (db/FLOODS.md) and passes the facts here; the decision of which
 * rule and severity those facts make, and the text of the finding, are
 * made here, without the store.
 */
#ifndef PW_FLOODRULES_H
#define PW_FLOODRULES_H

#include <stdbool.h>
#include <stdint.h>

#include "checks/patch.h"

/* A counter announcing at least this many patches makes SERIES_OVERSIZED. */
#define PW_FLOOD_OVERSIZED 100
/* An unmarked identical copy within this many seconds is a cross-post. */
#define PW_FLOOD_CROSSPOST (24 * 3600)
/* A FLOOD_SERIES of at least this many patches is a warning, not info. */
#define PW_FLOOD_TREEWIDE 100

/*
 * A flood's kind, which only ever rises as it grows.  The store keeps
 * it as a number: never renumber.
 */
enum pw_flood_rank {
	/* FLOOD_SERIES: most patches threaded under a cover letter */
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

/* A patch with the same patch-id as an earlier one of its sender. */
struct pw_resend_facts {
	const char *orig_msgid;		/* the earlier message's Message-ID */
	int64_t orig_date;		/* its Date */
	int64_t date;			/* the copy's Date */
	bool resend;			/* the copy is marked RESEND */
	int total;			/* the copy's "n/N" counter N, 0 if none */
};

/*
 * RESEND_IDENTICAL: a warning for a lone patch sent again within
 * PW_FLOOD_CROSSPOST seconds without RESEND (a cross-post made of
 * separate messages, or a double send), info otherwise.  The message
 * is a new string (g_free).
 */
enum pw_severity pw_resend_severity(const struct pw_resend_facts *f);
char *pw_resend_message(const struct pw_resend_facts *f);

/*
 * SERIES_OVERSIZED: whether a "[PATCH number/total]" counter announces
 * a series that large, and the severity and message (a new string) for
 * the first patch of it observed, threaded or not.
 */
bool pw_oversized(bool has_counter, int total);
enum pw_severity pw_oversized_severity(bool threaded);
char *pw_oversized_message(int number, int total, bool threaded);

#endif
