/*
 * patchwarden: the inside of the store, for the sources of db/ only.  The handle's
 * fields and the statement helpers speak SQLite; everything outside db/
 * sees struct pw_db as an opaque handle and calls the named operations
 * of db/db.h and its siblings.
 */
#ifndef PW_DB_PRIVATE_H
#define PW_DB_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>
#include <glib.h>

#include "db/db.h"

struct pw_db {
	sqlite3 *h;
	char *path;
	bool readonly;
	int depth;		/* nesting of pw_db_begin() */
	uint64_t txn;		/* outermost transactions begun */
	bool failed;		/* an inner part rolled back */
	GHashTable *stmts;	/* SQL text pointer -> sqlite3_stmt* */
	GHashTable *lists;	/* list name -> row id (gint64 *), emptied on rollback */
	char *err;		/* last error message, owned */
	struct pw_db_ckpt *ckpt;	/* background checkpointer, or NULL */
	/* The raw store (PATH-raw): opened with a read-write store, on
	 * first use for a read-only one; NULL when there is none. */
	sqlite3 *raw;
	char *raw_path;
	bool raw_txn;		/* a raw transaction is open */
	sqlite3_stmt *raw_put, *raw_get;
	struct pw_db_ckpt *raw_ckpt;
};

/*
 * Returns the cached prepared statement for sql, reset and with its
 * bindings cleared.  sql must be a string literal (the cache is keyed by
 * its address).  Never NULL: a statement that does not prepare aborts,
 * since that is a programming error.
 */
sqlite3_stmt *pw_db_stmt(struct pw_db *db, const char *sql);

/*
 * Steps a read and tells its end from its failure: PW_OK with *row
 * saying whether it gave a row, or the error.  An error inside a
 * transaction fails the transaction (its outermost commit rolls back
 * and says PW_ERR_DB), so that a result built on a read that did not
 * happen is never committed; the message is kept for pw_db_errmsg().
 */
enum pw_status pw_db_read(struct pw_db *db, sqlite3_stmt *st, bool *row);

/*
 * pw_db_read() for loops that look at the error afterwards (through
 * the failed transaction): true when it gave a row, false at its end or
 * on an error.
 */
bool pw_db_row(struct pw_db *db, sqlite3_stmt *st);

/*
 * Reads every row of st (from pw_db_stmt(), bound) in a read
 * transaction of its own (or the caller's), each made into an element
 * by fn, into *out: a new array whose elements free_fn frees (NULL on
 * failure).  st is reset.
 */
enum pw_status pw_db_rows(struct pw_db *db, sqlite3_stmt *st,
			  gpointer (*fn)(sqlite3_stmt *st),
			  GDestroyNotify free_fn, GPtrArray **out);

/* Steps a statement that returns no rows; translates the result code. */
enum pw_status pw_db_done(struct pw_db *db, sqlite3_stmt *st);

/*
 * Runs one write statement (pw_db_done()); *changes (may be NULL) gets
 * the number of rows it changed.  Outside a transaction the statement
 * commits on its own (one statement is atomic); inside the caller's,
 * it is part of it, and a failure is left for the caller to roll back.
 */
enum pw_status pw_db_write(struct pw_db *db, sqlite3_stmt *st, int *changes);

/*
 * pw_db_write() for a statement that changes one row or none (a claim,
 * a conditional update): *changed says whether it changed any.
 */
enum pw_status pw_db_write_one(struct pw_db *db, sqlite3_stmt *st,
			       bool *changed);

/*
 * Reads the bound statement st to its end, appending its first column
 * (an id) to ids (a GArray of int64_t); resets st.
 */
enum pw_status pw_db_read_ids(struct pw_db *db, sqlite3_stmt *st, GArray *ids);

/*
 * The due rows of a queue (the outbox, pwcheck): st selects the ids of
 * pending rows with ?1 the time now, ?2 whether every pending row is
 * due, ?3 the limit (-1: none); binds them and reads the ids.
 */
enum pw_status pw_db_read_due(struct pw_db *db, sqlite3_stmt *st, int64_t now,
			      bool all, int limit, GArray *ids);

/*
 * Reads the first row of the bound statement st: *out is read(st) (a
 * new row), or NULL when there is none; resets st.
 */
enum pw_status pw_db_read_one(struct pw_db *db, sqlite3_stmt *st,
			      void *(*read)(sqlite3_stmt *st), void **out);

/*
 * Reads the bound statement st to its end, appending read(st) (a new
 * row) for each row to out; resets st.
 */
enum pw_status pw_db_read_rows(struct pw_db *db, sqlite3_stmt *st,
			       void *(*read)(sqlite3_stmt *st), GPtrArray *out);

/* Binds s as text (kept by the caller until the step), or NULL. */
void pw_db_bind_text(sqlite3_stmt *st, int i, const char *s);

/* Column i as a new string (g_free), or NULL for SQL NULL. */
char *pw_db_col_dup(sqlite3_stmt *st, int i);

/*
 * Reads the first row of a bound statement and resets it: its column 0
 * as an integer into *out (0 when there is no row), or as a new string
 * (g_free; NULL when there is no row or the value is NULL).  Returns
 * what pw_db_read() does.
 */
enum pw_status pw_db_one_int64(struct pw_db *db, sqlite3_stmt *st,
			       int64_t *out);
enum pw_status pw_db_one_text(struct pw_db *db, sqlite3_stmt *st, char **out);

/* Runs SQL without parameters (pragmas, DDL). */
enum pw_status pw_db_exec(struct pw_db *db, const char *sql);

/* Keeps "what: SQLite's last message on db's store" as db's message. */
void pw_db_set_err(struct pw_db *db, const char *what);

/*
 * The one translation of a SQLite result code (primary or extended) for
 * every connection of db/: a lock (BUSY, LOCKED) is transient; a file
 * that cannot be written, read or opened (FULL, IOERR, CANTOPEN,
 * READONLY) is PW_ERR_IO, since a full disk is neither bad input nor a
 * damaged store and is told as "try again" (75) where a damaged store
 * is told as one; any other refusal is PW_ERR_DB.
 */
enum pw_status pw_db_status_of(int rc);

/* pw_db_status_of(), keeping db's error message for pw_db_errmsg(). */
enum pw_status pw_db_status(struct pw_db *db, int rc);

/* How long a connection waits for a lock, in milliseconds. */
#define PW_DB_BUSY_MS 10000

/* The raw store's path for the store at path: a new string. */
char *pw_db_raw_path_of(const char *path);

/*
 * Opens db's raw store (db->raw) unless it is open: false, with the
 * reason in db->err, when it cannot (read-only: when there is none).
 */
bool pw_db_raw_open(struct pw_db *db);

/* Makes read-write connection h keep its WAL files at close (db.c). */
void pw_db_keep_wal(sqlite3 *h);

/* The size a kept WAL is truncated to after a checkpoint (bytes). */
#define PW_DB_WAL_KEEP "67108864"

/*
 * Ends the transaction of h, if one is still open, keeping the error
 * message of the failure it follows.
 */
void pw_db_rollback_quietly(sqlite3 *h);

/* A read that failed fails the transaction it is in: returns s. */
enum pw_status pw_db_read_failed(struct pw_db *db, enum pw_status s);

/* Runs sql on the raw store; keeps its error as db's message. */
int pw_db_raw_exec(struct pw_db *db, const char *sql);

/* Closes the raw store of db, if open. */
void pw_db_raw_close(struct pw_db *db);

/*
 * Stores len bytes in the raw store, inside the raw transaction if any:
 * *id receives the new row's id.
 */
enum pw_status pw_db_raw_put(struct pw_db *db, const void *data, size_t len,
			     int64_t *id);

/* The bytes of raw row id (g_bytes_unref), or NULL when there is none
 * or on an error (which fails the transaction). */
GBytes *pw_db_raw_get(struct pw_db *db, int64_t id);

/*
 * Why a read-only connection h to path could not read: a new string
 * naming path, which explains a WAL database's missing -wal and -shm
 * files that this user cannot create.
 */
char *pw_db_ro_reason(sqlite3 *h, const char *path);

#endif
