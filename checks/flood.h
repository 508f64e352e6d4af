/*
 * patchwarden: the decisions of flood grouping (db/FLOODS.md), without
 * the store: the key a fingerprint is filed under, a group's state and
 * how a patch, a merge and a rise of rank change it, which of the groups
 * a patch's keys found it joins, and when a group becomes a flood.
 * db/flood.c reads and writes the rows and asks these; which rule,
 * severity and words a flood makes are checks/floodrules.c's.
 */
#ifndef PW_FLOOD_H
#define PW_FLOOD_H

#include <stdbool.h>
#include <stdint.h>

#include "checks/floodrules.h"

/* Subject, body and shape keys are filed by week (seconds). */
#define PW_FLOOD_BUCKET (7 * 24 * 3600)

/* The fingerprints a patch is looked up by, in the order they are. */
enum pw_flood_key_kind {
	PW_FLOOD_K_SUBJECT, PW_FLOOD_K_BODY, PW_FLOOD_K_SHAPE,
	PW_FLOOD_K_PATCH_ID, PW_FLOOD_NKEYS
};

/*
 * The key a fingerprint is filed under: FNV-1a, 64 bits, over (kind,
 * lower-cased sender, NUL, digest), so that one sender's patches meet
 * and another's with the same text do not.  Stored: never change it.
 */
int64_t pw_flood_key(int kind, const char *sender, const char *digest);

/*
 * One group of near-identical patches, as flood_group keeps it.  rank
 * is an enum pw_flood_rank once the group is a flood, -1 before.
 */
struct pw_flood_group {
	int64_t id;
	int64_t founder;
	int size, nthreaded, ncovered, claimed;
	unsigned shared;	/* fingerprints its members share (bits) */
	unsigned fps;		/* which of subject_fp, body_fp, shape_fp are set */
	int64_t first, last;
	int64_t detected_at;	/* 0: not a flood */
	bool detected;
	int rank;
	int64_t reported_at;	/* 0: not reported */
	/* Date of the patch that made it a campaign (enum pw_flood_pace):
	 * 0 when it is none, or became a flood since. */
	int64_t campaign_at;
};

/*
 * A new group of one: the patch message founder, threaded or not,
 * announcing claimed patches (0: no counter), dated date.  Its id is
 * the store's to give.
 */
void pw_flood_group_init(struct pw_flood_group *g, int64_t founder,
			 bool threaded, int claimed, int64_t date);

/*
 * A patch joins g: threaded or not, announcing claimed patches (0: no
 * counter), sharing the fingerprints matched (bits) with it, dated date.
 */
void pw_flood_group_add(struct pw_flood_group *g, bool threaded, int claimed,
			unsigned matched, int64_t date);

/*
 * Group b's members join a (a is the flood when either is one).
 * Returns true when both were floods: every member then gets the
 * merged flood's finding.
 */
bool pw_flood_group_merge(struct pw_flood_group *a,
			  const struct pw_flood_group *b);

/*
 * The rank a flood reaches with ncovered of its members under a cover
 * letter: a flood's rank only ever rises.  Sets g->rank; returns true
 * when it rose from a rank it had (the findings already written are
 * then rewritten), false for a first rank or none.
 */
bool pw_flood_group_raise(struct pw_flood_group *g);

/* The rank a stored number stands for, a number outside the enum
 * (none: -1) read as its nearest end. */
enum pw_flood_rank pw_flood_rank_clamp(int rank);

/*
 * Whether cand is a better group to file a patch in than best: a flood
 * before a group that is not, the oldest of two floods, else the
 * largest group and of two as large the oldest.
 */
bool pw_flood_group_better(const struct pw_flood_group *cand,
			   const struct pw_flood_group *best);

/* The groups a patch's keys found, each with the keys that found it. */
struct pw_flood_found {
	int64_t grps[2 * PW_FLOOD_NKEYS];
	unsigned bits[2 * PW_FLOOD_NKEYS];
	int n;
};

/* Notes that key bit found group grp (once per group, bits joined). */
void pw_flood_found_add(struct pw_flood_found *f, int64_t grp, unsigned bit);

/*
 * Whether g must count its members within the window to know whether
 * it floods: it is none yet and has at least count members.
 */
bool pw_flood_group_may_flood(const struct pw_flood_group *g, int count);

/*
 * Makes g a flood, detected at date, when n postings of it (a series
 * counts once) lie within the window and n reaches count; returns
 * whether it did.
 */
bool pw_flood_group_promote(struct pw_flood_group *g, int n, int count,
			    int64_t date);

/* The week (of PW_FLOOD_BUCKET seconds) a Date is filed under. */
int64_t pw_flood_bucket(int64_t date);

#endif
