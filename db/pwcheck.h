/*
 * patchwarden: the checks owed to Patchwork instances ([patchwork NAME]),
 * one row per (patch message, instance), and every SQL statement about
 * them.
 *
 * A row is stored pending in the transaction that stores its patch and
 * findings, so that a crash between storing and posting loses nothing.
 * It moves pending -> posting (claimed, committed before any request)
 * -> posted, or back to pending with a later next_attempt (Patchwork
 * does not have the patch yet, or did not answer), or to failed (a
 * refusal, or too many attempts).  A row a dead process left in
 * posting is made pending again and marked unsure: before posting it,
 * the poster looks for the check among the patch's checks, so that a
 * check is never posted twice.
 */
#ifndef PW_DB_PWCHECK_H
#define PW_DB_PWCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "checks/pwcheck.h"
#include "db/db.h"

/* One row.  Every string is owned by the row. */
struct pw_pwcheck_row {
	int64_t id;
	int64_t message_id;	/* the patch's message (our row id) */
	char *instance;		/* the NAME of [patchwork NAME] */
	char *msgid;		/* the patch's Message-ID, without <> */
	char *state;		/* pending, posting, posted, failed */
	bool unsure;		/* a post may have happened unrecorded */
	int attempts;
	int64_t created_at, next_attempt, last_attempt, posted_at;
	char *check_state;	/* success, warning, fail: as last claimed */
	char *description;	/* NULL before the first claim */
	char *target_url;	/* NULL: none */
	int http_status;	/* Patchwork's last answer, 0: none */
	int64_t patch_id;	/* Patchwork's id of the patch, 0: unknown */
	char *check_url;	/* the posted check's API address, or NULL */
	char *last_error;	/* why it waits or failed, or NULL */
};

/* Frees a row; NULL is a no-op. */
void pw_pwcheck_row_free(struct pw_pwcheck_row *r);

/*
 * Stores a pending check of message message_id (whose Message-ID is
 * msgid) for instance, due at now, unless there is one already.
 * *added tells which.  Joins the caller's transaction.
 */
enum pw_status pw_db_pwcheck_add(struct pw_db *db, int64_t message_id,
				 const char *instance, const char *msgid,
				 int64_t now, bool *added);

/*
 * Reads row id into *out (new, pw_pwcheck_row_free()); *found false
 * and *out NULL when there is none.
 */
enum pw_status pw_db_pwcheck_get(struct pw_db *db, int64_t id,
				 struct pw_pwcheck_row **out, bool *found);

/*
 * Appends every row (only those in state when it is not NULL) in id
 * order to out, whose free function should be pw_pwcheck_row_free.
 */
enum pw_status pw_db_pwcheck_list(struct pw_db *db, const char *state,
				  GPtrArray *out);

/* pw_db_pwcheck_list() for the rows of message message_id only. */
enum pw_status pw_db_pwcheck_of_message(struct pw_db *db, int64_t message_id,
					const char *state, GPtrArray *out);

/*
 * Appends to ids (a GArray of int64_t) up to limit (<= 0: no limit)
 * pending rows due at or before now (every pending row when all),
 * those due first first.
 */
enum pw_status pw_db_pwcheck_due(struct pw_db *db, int64_t now, bool all,
				 int limit, GArray *ids);

/*
 * Appends to out (a GArray of struct pw_pwcheck_item) the findings a
 * check of message message_id counts: those of its patch, and the
 * series-level ones (pw_pwcheck_series_rule()) of every patch of its
 * series; only open findings (PW_FINDING_OPEN: none a maintainer
 * marked wrong or ignored).  The rule strings are interned (g_intern_string).  *is_patch
 * is false when the message carries no patch.
 */
enum pw_status pw_db_pwcheck_findings(struct pw_db *db, int64_t message_id,
				      GArray *out, bool *is_patch);

/*
 * Claims a pending row for one attempt, with the check it will post:
 * state posting, attempts + 1, last_attempt now.  Outside a
 * transaction it commits at once, so that the claim survives a crash.
 * *claimed is false when the row was not pending any more.
 */
enum pw_status pw_db_pwcheck_claim(struct pw_db *db, int64_t id, int64_t now,
				   const char *check_state,
				   const char *description,
				   const char *target_url, bool *claimed);

/* Records Patchwork's id of the row's patch. */
enum pw_status pw_db_pwcheck_set_patch(struct pw_db *db, int64_t id,
				       int64_t patch_id);

/*
 * Records a posted check: state posted, posted_at now, Patchwork's
 * status and the check's address (may be NULL), note (may be NULL) as
 * last_error's place: what happened on the way.
 */
enum pw_status pw_db_pwcheck_mark_posted(struct pw_db *db, int64_t id,
					 int64_t now, int status,
					 const char *check_url,
					 const char *note);

/*
 * Back to pending, next tried at next, with the status and why; unsure
 * when the attempt may have posted (the POST got no answer, or a 5xx):
 * the next attempt looks for the check before posting.  An unsure row
 * stays unsure until it is recorded posted.
 */
enum pw_status pw_db_pwcheck_mark_retry(struct pw_db *db, int64_t id,
					int64_t next, int status,
					const char *error, bool unsure);

/*
 * Makes a posted row pending again, due at now, attempts counted
 * afresh, why as last_error: the check it posted no longer says what
 * the patch's findings say (a maintainer's decision changed them).
 * The address of the check posted before is kept: the poster tells
 * it from a newer one.  *requeued is false when the row was not posted.
 */
enum pw_status pw_db_pwcheck_requeue(struct pw_db *db, int64_t id, int64_t now,
				     const char *why, bool *requeued);

/* Records a permanent failure with Patchwork's status and answer. */
enum pw_status pw_db_pwcheck_mark_failed(struct pw_db *db, int64_t id,
					 int status, const char *error);

/*
 * Makes a failed or pending row pending, due at now, its attempts
 * counted afresh ("patchwork retry").  PW_ERR_INPUT with the reason in
 * *why (static text) for a row that is absent, posted or being posted.
 */
enum pw_status pw_db_pwcheck_release(struct pw_db *db, int64_t id, int64_t now,
				     const char **why);

/* The same for every failed row; *n receives how many. */
enum pw_status pw_db_pwcheck_release_failed(struct pw_db *db, int64_t now,
					    int *n);

/*
 * Makes rows left in posting by a dead process pending, due at now and
 * unsure.  The caller must be the only poster (bot/patchwork.c holds
 * a lock).  *n receives how many.
 */
enum pw_status pw_db_pwcheck_recover(struct pw_db *db, int64_t now, int *n);

/* How many rows are in each state. */
struct pw_pwcheck_counts {
	int64_t pending, posting, posted, failed;
};

/* Counts the rows by state into *c (zeroed first). */
enum pw_status pw_db_pwcheck_counts(struct pw_db *db,
				    struct pw_pwcheck_counts *c);

#endif
