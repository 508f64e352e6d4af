/*
 * patchwarden: the raw store (PATH-raw), which keeps every message's
 * bytes apart from the main store: its path, opening it, its orphaned
 * rows, and putting and getting bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db-private.h"

/* ---- the raw store ---- */

char *pw_db_raw_path_of(const char *path)
{
	if (!path || !*path || !strcmp(path, ":memory:"))
		return g_strdup(":memory:");
	return g_strconcat(path, "-raw", NULL);
}

/* Keeps the raw store's last error as the message of db. */
static void raw_err(struct pw_db *db)
{
	g_free(db->err);
	db->err = g_strdup_printf("%s: %s", db->raw_path, sqlite3_errmsg(db->raw));
}

int pw_db_raw_exec(struct pw_db *db, const char *sql)
{
	int rc = sqlite3_exec(db->raw, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		raw_err(db);
	return rc;
}

/*
 * Keeps a WAL database's -wal and -shm files when the last connection
 * closes (emptied, not deleted), on every read-write connection.  A
 * reader that cannot write the folder can read a WAL database only
 * while they exist, since it cannot create them (SQLite's wal.html,
 * "Read-Only Databases"); the WAL is truncated to nothing at that
 * close, and to PW_DB_WAL_KEEP after the checkpoints that empty it.
 */

void pw_db_keep_wal(sqlite3 *h)
{
	int on = 1;

	sqlite3_file_control(h, "main", SQLITE_FCNTL_PERSIST_WAL, &on);
}

/*
 * Says why a read-only connection h to path could not read, into a new
 * string: the SQLite message, and for a WAL database whose -wal and
 * -shm files are missing in a folder this user cannot write, that.
 */
char *pw_db_ro_reason(sqlite3 *h, const char *path)
{
	int rc = sqlite3_extended_errcode(h);
	char *dir, *shm, *msg;
	bool missing;

	shm = g_strconcat(path, "-shm", NULL);
	missing = !g_file_test(shm, G_FILE_TEST_EXISTS) &&
		g_file_test(path, G_FILE_TEST_EXISTS);
	g_free(shm);
	if (!missing || (rc != SQLITE_READONLY_DIRECTORY &&
			 rc != SQLITE_READONLY_CANTINIT &&
			 (rc & 0xff) != SQLITE_CANTOPEN))
		return g_strdup_printf("%s: %s", path, sqlite3_errmsg(h));
	dir = g_path_get_dirname(path);
	msg = g_strdup_printf("%s: cannot be read by this user: it is a WAL"
		" database whose %s-wal and %s-shm files are missing, and this"
		" user cannot create them in %s (%s); they are kept once the"
		" store has been opened read-write by this version of"
		" patchwarden (the service, or \"patchwarden db check\" run by"
		" the store's owner)", path, path, path, dir,
		sqlite3_errmsg(h));
	g_free(dir);
	return msg;
}

/*
 * Opens the raw store.  Read-write: created when missing, with large
 * pages (rows are whole messages) and a small cache (nothing is read
 * back while storing).  Read-only: false when there is none.
 */
bool pw_db_raw_open(struct pw_db *db)
{
	int flags = db->readonly ? SQLITE_OPEN_READONLY :
		SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	if (db->raw)
		return true;
	if (!db->raw_path)
		db->raw_path = pw_db_raw_path_of(db->path);
	if (sqlite3_open_v2(db->raw_path, &db->raw, flags, NULL) != SQLITE_OK) {
		g_free(db->err);
		db->err = g_strdup_printf("%s: %s", db->raw_path,
					  db->raw ? sqlite3_errmsg(db->raw) :
					  "cannot open");
		sqlite3_close(db->raw);
		db->raw = NULL;
		return false;
	}
	sqlite3_extended_result_codes(db->raw, 1);
	sqlite3_busy_timeout(db->raw, PW_DB_BUSY_MS);
	if (db->readonly) {
		/* Read now, so that a store this user cannot read says why
		 * here rather than as a failed read later. */
		if (pw_db_raw_exec(db, "PRAGMA query_only=ON") ||
		    pw_db_raw_exec(db, "SELECT 1 FROM raw LIMIT 1")) {
			g_free(db->err);
			db->err = pw_db_ro_reason(db->raw, db->raw_path);
			sqlite3_close(db->raw);
			db->raw = NULL;
			return false;
		}
		return true;
	}
	pw_db_keep_wal(db->raw);
	if (pw_db_raw_exec(db, "PRAGMA page_size=65536") ||
	    pw_db_raw_exec(db, "PRAGMA cache_size=-1024") ||
	    pw_db_raw_exec(db, "PRAGMA journal_mode=WAL") ||
	    pw_db_raw_exec(db, "PRAGMA journal_size_limit=" PW_DB_WAL_KEEP) ||
	    pw_db_raw_exec(db, "PRAGMA synchronous=NORMAL") ||
	    pw_db_raw_exec(db, "CREATE TABLE IF NOT EXISTS raw ("
		     "  id INTEGER PRIMARY KEY,"
		     "  raw BLOB NOT NULL"
		     ")")) {
		sqlite3_close(db->raw);
		db->raw = NULL;
		return false;
	}
	return true;
}

enum pw_status pw_db_raw_orphans_remove(struct pw_db *db, int *removed)
{
	sqlite3_stmt *st;
	int64_t last = 0;
	enum pw_status s;
	int rc;

	*removed = 0;
	if (db->readonly || !db->raw || db->depth)
		return PW_OK;
	/* Tidying is no reason to wait: a store busy with a writer is
	 * tidied by a later open. */
	sqlite3_busy_timeout(db->h, 0);
	s = pw_db_exec(db, "BEGIN IMMEDIATE");
	sqlite3_busy_timeout(db->h, PW_DB_BUSY_MS);
	if (s)
		return s;
	/* Raw ids grow with message ids: the newest message that has
	 * raw bytes holds the largest id in use.  Looked for among the
	 * newest 10,000 messages only (those from git archives have no
	 * raw bytes); none there, nothing is removed. */
	st = pw_db_stmt(db, "SELECT raw_id FROM (SELECT raw_id FROM message"
			" ORDER BY id DESC LIMIT 10000) WHERE raw_id IS NOT NULL"
			" LIMIT 1");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		last = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE) {
		/* No raw bytes in use among them: when they are all the
		 * messages there are, none is in use at all. */
		st = pw_db_stmt(db, "SELECT count(*) < 10000 FROM (SELECT 1"
				" FROM message LIMIT 10000)");
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && !sqlite3_column_int(st, 0))
			rc = SQLITE_DONE;	/* too many to tell: leave it */
		sqlite3_reset(st);
	}
	if (rc != SQLITE_ROW) {
		s = rc == SQLITE_DONE ? PW_OK : pw_db_status(db, rc);
		pw_db_rollback_quietly(db->h);
		return s;
	}
	if (sqlite3_prepare_v2(db->raw, "DELETE FROM raw WHERE id > ?1", -1,
			       &st, NULL) != SQLITE_OK) {
		raw_err(db);
		pw_db_rollback_quietly(db->h);
		return PW_ERR_DB;
	}
	sqlite3_bind_int64(st, 1, last);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		raw_err(db);
		s = PW_ERR_DB;
	} else {
		*removed = sqlite3_changes(db->raw);
	}
	pw_db_rollback_quietly(db->h);	/* nothing was written here */
	return s;
}

void pw_db_raw_close(struct pw_db *db)
{
	sqlite3_finalize(db->raw_put);
	sqlite3_finalize(db->raw_get);
	db->raw_put = db->raw_get = NULL;
	if (db->raw)
		sqlite3_close(db->raw);
	db->raw = NULL;
}

/* Stores bytes in the raw store, inside the raw transaction if any. */
enum pw_status pw_db_raw_put(struct pw_db *db, const void *data, size_t len,
			     int64_t *id)
{
	int rc;

	if (!db->raw && !pw_db_raw_open(db))
		return PW_ERR_DB;
	if (db->depth > 0 && !db->raw_txn) {
		if (pw_db_raw_exec(db, "BEGIN IMMEDIATE"))
			return PW_ERR_DB;
		db->raw_txn = true;
	}
	if (!db->raw_put &&
	    sqlite3_prepare_v2(db->raw, "INSERT INTO raw(raw) VALUES (?1)", -1,
			       &db->raw_put, NULL) != SQLITE_OK)
		return PW_ERR_DB;
	sqlite3_bind_blob64(db->raw_put, 1, data, len, SQLITE_STATIC);
	rc = sqlite3_step(db->raw_put);
	sqlite3_reset(db->raw_put);
	sqlite3_clear_bindings(db->raw_put);
	if (rc != SQLITE_DONE) {
		raw_err(db);
		return pw_db_status_of(rc);
	}
	*id = sqlite3_last_insert_rowid(db->raw);
	return PW_OK;
}

/* The bytes of raw row id, or NULL (an error fails the transaction). */
GBytes *pw_db_raw_get(struct pw_db *db, int64_t id)
{
	GBytes *b = NULL;
	int rc;

	if (!db->raw && !pw_db_raw_open(db)) {
		pw_db_read_failed(db, PW_ERR_DB);
		return NULL;
	}
	if (!db->raw_get &&
	    sqlite3_prepare_v2(db->raw, "SELECT raw FROM raw WHERE id = ?1", -1,
			       &db->raw_get, NULL) != SQLITE_OK) {
		raw_err(db);
		pw_db_read_failed(db, PW_ERR_DB);
		return NULL;
	}
	sqlite3_bind_int64(db->raw_get, 1, id);
	rc = sqlite3_step(db->raw_get);
	if (rc == SQLITE_ROW) {
		b = g_bytes_new(sqlite3_column_blob(db->raw_get, 0),
				(gsize)sqlite3_column_bytes(db->raw_get, 0));
	} else if (rc != SQLITE_DONE) {
		raw_err(db);
		pw_db_read_failed(db, PW_ERR_DB);
	}
	sqlite3_reset(db->raw_get);
	return b;
}
