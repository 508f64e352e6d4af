/*
 * patchwarden: the SQLite store.  All SQL lives in db/, behind functions
 * named for what they do, through prepared statements only.
 *
 * One writer (the bot), any number of readers (queries, dashboard), WAL
 * mode.  The schema is versioned with PRAGMA user_version and migrated
 * forward on open.
 *
 * A store is two SQLite files: PATH holds the facts (messages, patches,
 * series, findings, floods, outbox) and PATH-raw the raw bytes of every
 * message, append only.  Apart, the raw bytes never push the facts'
 * indexes out of the page cache, and each file's WAL is checkpointed on
 * its own.  A transaction writes the raw bytes first and commits them
 * first: a stored message always has its bytes; a crash between the two
 * commits can leave raw rows that no message names, nothing worse.
 */
#ifndef PW_DB_H
#define PW_DB_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "checks/status.h"
#include "checks/message.h"
#include "checks/patch.h"

/*
 * An open store: a handle whose inside only db/ sees (db/db-private.h).
 * Every operation on it is a function below or in a sibling header.
 */
struct pw_db;

/*
 * Removes raw bytes no message refers to and says how many rows went:
 * a writer that stopped between the raw store's commit and the main
 * one's (bytes are committed first) leaves its batch's bytes behind.
 * They are always the newest raw rows, and are removed under the main
 * database's write lock, which a writer holds from before it writes raw
 * rows until its messages are committed, so no writer's batch in flight
 * is touched.  Nothing is done when another writer holds that lock (no
 * waiting), or when none of the newest 10,000 messages has raw bytes
 * (a long run of messages from git archives: too far to look cheaply).
 * Read-write stores only.
 */
enum pw_status pw_db_raw_orphans_remove(struct pw_db *db, int *removed);

/*
 * Moves WAL checkpoints of a read-write database off the committing
 * thread, onto a thread of its own with its own connection, for the
 * length of a bulk load.  Commits stay as durable as before; the WAL
 * is still bounded (a commit waits for the checkpoint when it has
 * grown well past the usual size).  Stopped by pw_db_close() or
 * pw_db_checkpoint_stop().  Does nothing when it cannot start.
 */
void pw_db_checkpoint_start(struct pw_db *db);
void pw_db_checkpoint_stop(struct pw_db *db);

/*
 * Opens (creating when needed, unless readonly) the database at path and
 * migrates it to the current schema.  On failure returns an error and a
 * new message in *err, naming the file.  Read-write connections keep
 * the -wal and -shm files when they close, so that a reader who cannot
 * write the folder can read.  Read-only, it migrates nothing and
 * refuses another schema version (PW_ERR_DB); waits as for a lock for
 * a store being created, then says so (PW_ERR_TRANSIENT, as when busy);
 * and says why this user cannot read (PW_ERR_IO), such as the WAL
 * files missing in a folder the user cannot write.
 */
enum pw_status pw_db_open(const char *path, bool readonly, struct pw_db **out,
			  char **err);
/* Closes db; NULL is a no-op. */
void pw_db_close(struct pw_db *db);

/* The path db was opened with (owned by db): ":memory:" or "" for none. */
const char *pw_db_path(const struct pw_db *db);

/* Whether a transaction of pw_db_begin() is open on db. */
bool pw_db_in_transaction(const struct pw_db *db);

/* The last error, for messages.  Never NULL. */
const char *pw_db_errmsg(const struct pw_db *db);

/* The schema version this program writes. */
int pw_db_schema_version(void);

/*
 * Transactions nest: only the outermost begin/commit reach SQLite, and
 * every write transaction is BEGIN IMMEDIATE.  A rollback inside rolls
 * back nothing yet but marks the whole: its commits then fail and the
 * outermost one rolls everything back.
 */
enum pw_status pw_db_begin(struct pw_db *db);
enum pw_status pw_db_commit(struct pw_db *db);
void pw_db_rollback(struct pw_db *db);

/* ---- messages ---- */

/*
 * Where a stored message was read from: not facts of the message, but
 * of how it came.  Borrowed from the caller.
 */
struct pw_msg_origin {
	const void *raw;		/* raw bytes, or NULL when git_blob is set */
	size_t raw_len;
	const char *git_blob;		/* blob id in a public-inbox archive */
	const char *source;		/* where it was read from */
	bool backfill;			/* read while backfilling: never replied to */
};

/*
 * Stores message m, read as from says, unless its Message-ID is already
 * there; in both cases records that it was seen on list (NULL for
 * none).  Both are borrowed.  *id receives the message's row id and
 * *is_new whether it was inserted now.
 */
enum pw_status pw_db_message_add(struct pw_db *db, const struct pw_mail *m,
				 const struct pw_msg_origin *from,
				 const char *list, int64_t *id, bool *is_new);

/* What pw_db_message_head() reads of a stored message; owned strings. */
struct pw_msg_head {
	int64_t id, date;
	char *kind, *from_addr, *subject, *in_reply_to, *refs;
};

/*
 * Reads the head of the message with msgid into h (released with
 * pw_msg_head_release() when *found) and says in *found whether there is
 * one.  Every read below returns PW_OK when it could read, found or not,
 * and an error (which fails the transaction it is in) when it could not.
 */
enum pw_status pw_db_message_head(struct pw_db *db, const char *msgid,
				  struct pw_msg_head *h, bool *found);
void pw_msg_head_release(struct pw_msg_head *h);

/* Finds a message by Message-ID: *found, and its row id in *id (or NULL). */
enum pw_status pw_db_message_find(struct pw_db *db, const char *msgid,
				  int64_t *id, bool *found);

/*
 * Returns the raw bytes of a stored message (new GBytes), or NULL when
 * it has none here (kept in an archive) or they could not be read; a
 * read that failed also fails the transaction it is in.
 */
GBytes *pw_db_message_raw(struct pw_db *db, int64_t id);

/* ---- patches and findings ---- */

/* Records that message id carries a patch (or pull request). */
enum pw_status pw_db_patch_add(struct pw_db *db, int64_t message_id,
			       int number, const char *pull_url,
			       int64_t *patch_id);

/* Replaces the findings of a patch with the given ones (struct pw_finding *). */
enum pw_status pw_db_findings_set(struct pw_db *db, int64_t patch_id,
				  GPtrArray *findings);

/* Adds the findings of a patch that has none yet (a new patch). */
enum pw_status pw_db_findings_add(struct pw_db *db, int64_t patch_id,
				  GPtrArray *findings);

/* A stored patch to re-check. */
struct pw_db_patch_ref {
	int64_t patch_id;
	int64_t message_id;
};

/*
 * The patches (not pull requests) of messages dated at or after since,
 * oldest first: *out receives a new GArray of struct pw_db_patch_ref,
 * also on an error (then with what was read).
 */
enum pw_status pw_db_patch_list(struct pw_db *db, int64_t since,
				GArray **out);

/* The first list a message was seen on: *name is a new string, or NULL
 * when it was seen on none. */
enum pw_status pw_db_message_list(struct pw_db *db, int64_t message_id,
				  char **name);

/* ---- a patch's life (db/lineage.c; the rest in db/lineage.h) ---- */

/* The series that series_id's lineage holds before it, newest first (ids into *out, a GArray of int64_t); none when it is the first. */
enum pw_status pw_db_lineage_earlier(struct pw_db *db, int64_t series_id, GArray *out);

/* ---- errors and cursors ---- */

enum pw_status pw_db_ingest_error_add(struct pw_db *db, const char *source,
				      const char *location, const char *msgid,
				      const char *error, const void *raw,
				      size_t raw_len);

/* A source's cursor (last commit, last UID, mbox offset): *value is a new
 * string (g_free), or NULL when it is unset. */
enum pw_status pw_db_cursor_get(struct pw_db *db, const char *source,
				char **value);
enum pw_status pw_db_cursor_set(struct pw_db *db, const char *source,
				const char *value);

/* ---- counts ---- */

struct pw_db_stats {
	int64_t messages, patches, covers, comments, pulls, others;
	int64_t series, lists, findings, errors;
};

/* Counts what is stored. */
enum pw_status pw_db_stats(struct pw_db *db, struct pw_db_stats *out);

/* ---- looking after a store (db/care.c) ---- */

/*
 * Counts into *n the raw rows that no message names, or with remove
 * deletes them and counts what went.  All of them, wherever they are
 * (pw_db_raw_orphans_remove() looks at the newest only): a writer
 * interrupted between the two commits leaves its batch's bytes, which
 * later batches then follow.  Removing holds the main store's write
 * lock (waiting for it as for any lock), so no batch in flight is
 * touched; counting on a read-only store reads both, the raw store
 * first, and sees a writer's batch between its two commits for that
 * moment only.  Not inside a transaction.  The raw bytes are not read:
 * only the message table and the raw rows in the gaps between raw ids.
 */
enum pw_status pw_db_raw_orphans(struct pw_db *db, bool remove, int64_t *n);

/*
 * Runs SQLite's integrity_check on the store and its raw store and
 * appends one new string "FILE: problem" (g_free) to problems for each
 * problem found, including a file too damaged to be checked.  Returns
 * an error only when it could not check (busy, cannot open).
 */
enum pw_status pw_db_integrity_check(struct pw_db *db, GPtrArray *problems);
/*
 * The same for the files at path and path + "-raw" (when it exists)
 * when pw_db_open() refused them, through read-only connections of its
 * own: a file that is not a database or is too damaged to open is a
 * problem found.  Nothing is appended for a file that checks clean or
 * cannot be checked (busy, unreadable).
 */
void pw_db_integrity_check_path(const char *path, GPtrArray *problems);

/* The bytes a store's two files hold (their pages). */
struct pw_db_sizes {
	int64_t store, raw;
};

/*
 * VACUUMs both files of a read-write store and empties their WALs into
 * them; before and after receive their sizes.  SQLite's locks keep it
 * from running beside a writer (it waits as for any lock, then fails
 * with PW_ERR_TRANSIENT).
 */
enum pw_status pw_db_vacuum(struct pw_db *db, struct pw_db_sizes *before,
			    struct pw_db_sizes *after);

/* What a backup copied. */
struct pw_db_backup_info {
	int64_t messages;	/* messages in the copy */
	int64_t bytes, raw_bytes;	/* sizes of its two files */
	int64_t raw_dropped;	/* raw rows of no message in the copy, left out */
};

/*
 * Copies the store at path (not opened through struct pw_db: any
 * schema version, read-only) into the new files to and its raw
 * companion (to + "-raw"), with SQLite's online backup API: each file
 * in one read transaction, the main store first, so that the copy is
 * consistent while other processes write.  Raw rows no message of the
 * copy names are left out.  Refuses (PW_ERR_USAGE) when to or its raw
 * companion exists; removes what it made when it fails.  On failure
 * returns an error and a new message in *err.
 */
enum pw_status pw_db_backup(const char *path, const char *to,
			    struct pw_db_backup_info *info, char **err);

#endif
