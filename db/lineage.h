/*
 * patchwarden: a patch's life.  The versions of one series are linked
 * into a lineage (table lineage: checks/lineage.h decides which series
 * a new one follows); a patch is new, superseded (a later version of
 * its lineage arrived), applied (a maintainer said so by mail, or its
 * patch-id is on the maintainer's tree) or rejected (table
 * patch_state).  Only new patches are in the attention queue.
 */
#ifndef PW_DB_LINEAGE_H
#define PW_DB_LINEAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "checks/lineage.h"
#include "db/db.h"

/* What a stored series or cover letter says of its earlier versions. */
struct pw_lineage_clues {
	const char *sender;		/* its poster */
	const char *author;		/* a lone patch's in-body From, or NULL
					 * (bot/state.c: one it may name) */
	bool dkim;			/* the mail was DKIM-signed by its poster */
	char **subject_keys;		/* pw_lineage_subject_keys(), or NULL */
	const char *pid;		/* a patch's patch-id, or NULL */
	const char *change_id;		/* b4's, NULL when none */
	const char *in_reply_to;	/* NULL when none */
	char **references;		/* NULL-terminated, or NULL */
	char **links;			/* changelog links' Message-IDs, or NULL */
};

/*
 * Links series_id into its lineage by what clues (borrowed) say and
 * what is stored (checks/lineage.h decides): once, when the series is
 * first seen, or again while it is the first of its lineage (a later
 * message of it, a cover letter, may carry the clue).  Then every
 * patch of an earlier version of the lineage is superseded by its
 * newest series (a patch with a state keeps it).  Inside the caller's
 * transaction.
 */
enum pw_status pw_db_lineage_link(struct pw_db *db, int64_t series_id,
				  const struct pw_lineage_clues *clues);

/* Records patch_id's "git patch-id --stable" (40 hexadecimal digits). */
enum pw_status pw_db_patch_pid_add(struct pw_db *db, int64_t patch_id,
				   const char *pid);

/* Who or what gave a patch its state. */
struct pw_state_cause {
	int64_t by_series;	/* superseded: the newer version, or 0 */
	int64_t by_message;	/* a maintainer's reply, or 0 */
	const char *by_commit;	/* applied: the tree's commit, or NULL */
	int64_t at;		/* when; 0: now */
};

/*
 * Gives patch_id state st (applied or rejected) unless it has a
 * stronger one (pw_patch_state_merge()); *changed says whether it did.
 */
enum pw_status pw_db_patch_state_set(struct pw_db *db, int64_t patch_id,
				     enum pw_patch_state st,
				     const struct pw_state_cause *why,
				     bool *changed);

/*
 * Takes back patch_id's state applied or rejected (a maintainer
 * dropped it): it is new again, or superseded when a later version of
 * its lineage is stored.  *changed says whether it had one.
 */
enum pw_status pw_db_patch_state_reopen(struct pw_db *db, int64_t patch_id,
					bool *changed);

/* A patch's state: *st, and what gave it (*why's strings are new). */
enum pw_status pw_db_patch_state(struct pw_db *db, int64_t patch_id,
				 enum pw_patch_state *st, int64_t *by_series,
				 int64_t *by_message, char **by_commit);

/*
 * The patches a reply to msgid speaks of (into out, a GArray of struct
 * pw_db_patch_ref): the patch msgid is, or every patch of the series
 * whose cover letter it is; none for other mail.
 */
enum pw_status pw_db_lineage_replied(struct pw_db *db, const char *msgid,
				     GArray *out);

/*
 * Marks applied by commit (its hexadecimal id) every patch not applied
 * whose patch-id is pid, of the patches seen on list (any list when
 * NULL); *n counts them.
 */
enum pw_status pw_db_patch_applied_pid(struct pw_db *db, const char *pid,
				       const char *list, const char *commit,
				       int *n);

/* One version of a lineage, as "query series --series ID" shows it. */
struct pw_lineage_version {
	int64_t series_id;
	int version;
	char *name, *from_addr;
	int64_t date;			/* its first message's */
	char *how;			/* what linked it (checks/lineage.h) */
	int64_t supersedes;		/* the version it follows, 0: none */
	int patches;			/* its patches stored */
	int states[PW_STATE_APPLIED + 1];	/* its patches in each state */
	int findings;			/* at the severity asked and above */
	/* Against the version before it (all added for the first). */
	int fixed, kept, added;
};

void pw_lineage_version_free(struct pw_lineage_version *v);

/*
 * The versions of series_id's lineage, oldest first, into *out: a new
 * GPtrArray of struct pw_lineage_version that frees them; the series
 * alone when it has no lineage; empty when there is no such series.
 * Findings at min and above count, flood detection's left out.
 */
enum pw_status pw_db_lineage_versions(struct pw_db *db, int64_t series_id,
				      enum pw_severity min, GPtrArray **out);

/*
 * The oldest date of a stored patch seen on list (0 when none): how far
 * back a maintainer's tree is worth reading.
 */
enum pw_status pw_db_lineage_oldest(struct pw_db *db, const char *list,
				    int64_t *date);

#endif
