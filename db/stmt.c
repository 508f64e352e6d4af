/*
 * patchwarden: the statement helpers of db/ (see db/db-private.h): the
 * translation of SQLite's result codes, the statement cache, and
 * stepping reads and writes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "db/db-private.h"

void pw_db_set_err(struct pw_db *db, const char *what)
{
	g_free(db->err);
	db->err = g_strdup_printf("%s: %s", what, sqlite3_errmsg(db->h));
}

enum pw_status pw_db_status_of(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return PW_OK;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return PW_ERR_TRANSIENT;
	case SQLITE_NOMEM:
		return PW_ERR_NOMEM;
	case SQLITE_FULL:
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
	case SQLITE_READONLY:
		return PW_ERR_IO;
	default:
		return PW_ERR_DB;
	}
}

enum pw_status pw_db_status(struct pw_db *db, int rc)
{
	enum pw_status s = pw_db_status_of(rc);

	if (s == PW_ERR_TRANSIENT)
		pw_db_set_err(db, "database busy");
	else if (s != PW_OK && s != PW_ERR_NOMEM)
		pw_db_set_err(db, "sqlite");
	return s;
}

const char *pw_db_errmsg(const struct pw_db *db)
{
	return db && db->err ? db->err : "no error";
}

/*
 * Ends the transaction of h, if one is still open, without touching the
 * error kept for pw_db_errmsg(): a rollback follows a failure, whose
 * message is the one to tell, and SQLite may have rolled back already.
 */
void pw_db_rollback_quietly(sqlite3 *h)
{
	if (h && !sqlite3_get_autocommit(h))
		sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
}

enum pw_status pw_db_exec(struct pw_db *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		g_free(db->err);
		db->err = g_strdup(msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return (rc & 0xff) == SQLITE_BUSY ? PW_ERR_TRANSIENT : PW_ERR_DB;
	}
	return PW_OK;
}

sqlite3_stmt *pw_db_stmt(struct pw_db *db, const char *sql)
{
	sqlite3_stmt *st = g_hash_table_lookup(db->stmts, sql);

	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return st;
	}
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &st, NULL) != SQLITE_OK) {
		/* A statement of ours that does not prepare is a bug. */
		fprintf(stderr, "patchwarden: bad SQL (%s): %s\n",
			sqlite3_errmsg(db->h), sql);
		abort();
	}
	g_hash_table_insert(db->stmts, (gpointer)sql, st);
	return st;
}

enum pw_status pw_db_done(struct pw_db *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	enum pw_status s = rc == SQLITE_DONE || rc == SQLITE_ROW ?
		PW_OK : pw_db_status(db, rc);

	sqlite3_reset(st);
	return s;
}

/* A read that failed fails the transaction it is in. */
enum pw_status pw_db_read_failed(struct pw_db *db, enum pw_status s)
{
	if (db->depth > 0)
		db->failed = true;
	return s;
}

enum pw_status pw_db_read(struct pw_db *db, sqlite3_stmt *st, bool *row)
{
	int rc = sqlite3_step(st);

	*row = rc == SQLITE_ROW;
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return PW_OK;
	return pw_db_read_failed(db, pw_db_status(db, rc));
}

bool pw_db_row(struct pw_db *db, sqlite3_stmt *st)
{
	bool row;

	return !pw_db_read(db, st, &row) && row;
}

enum pw_status pw_db_write(struct pw_db *db, sqlite3_stmt *st, int *changes)
{
	enum pw_status s = pw_db_done(db, st);

	if (changes)
		*changes = s ? 0 : sqlite3_changes(db->h);
	return s;
}

enum pw_status pw_db_write_one(struct pw_db *db, sqlite3_stmt *st,
			       bool *changed)
{
	int n = 0;
	enum pw_status s = pw_db_write(db, st, &n);

	*changed = n > 0;
	return s;
}

enum pw_status pw_db_read_ids(struct pw_db *db, sqlite3_stmt *st, GArray *ids)
{
	enum pw_status s;
	bool row;

	while (!(s = pw_db_read(db, st, &row)) && row) {
		int64_t id = sqlite3_column_int64(st, 0);

		g_array_append_val(ids, id);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_read_due(struct pw_db *db, sqlite3_stmt *st, int64_t now,
			      bool all, int limit, GArray *ids)
{
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int(st, 2, all);
	sqlite3_bind_int(st, 3, limit > 0 ? limit : -1);
	return pw_db_read_ids(db, st, ids);
}

enum pw_status pw_db_read_rows(struct pw_db *db, sqlite3_stmt *st,
			       void *(*read)(sqlite3_stmt *st), GPtrArray *out)
{
	enum pw_status s;
	bool row;

	while (!(s = pw_db_read(db, st, &row)) && row)
		g_ptr_array_add(out, read(st));
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_read_one(struct pw_db *db, sqlite3_stmt *st,
			      void *(*read)(sqlite3_stmt *st), void **out)
{
	enum pw_status s;
	bool row;

	*out = NULL;
	s = pw_db_read(db, st, &row);
	if (!s && row)
		*out = read(st);
	sqlite3_reset(st);
	return s;
}
