/*
 * patchwarden: looking after a store (db/db.h): SQLite's integrity
 * check on both files, the raw rows no message names, online backups
 * with SQLite's backup API, and VACUUM.
 */
#include <stdio.h>
#include <string.h>

#include "db/db-private.h"

/* Keeps h's error, naming path, as db's message; returns the status. */
static enum pw_status fail(struct pw_db *db, sqlite3 *h, const char *path,
			   int rc)
{
	g_free(db->err);
	db->err = g_strdup_printf("%s: %s", path, sqlite3_errmsg(h));
	return pw_db_status_of(rc);
}

/*
 * Counts, or with remove deletes, the rows of raw store r that no
 * message of main store h names, inside transactions the caller holds.
 * Raw ids grow as messages are stored, and every message's bytes have
 * one row: the rows no message names are those in the gaps between the
 * raw ids in use (sorted), before the first and after the last.  Only
 * the gaps are looked up, by id, so the raw bytes themselves are never
 * read.  On an error, *errh says which connection failed.
 */
static int walk(sqlite3 *h, sqlite3 *r, bool remove, int64_t *n,
		sqlite3 **errh)
{
	static const char *const sql[2][2] = {
		{ "SELECT count(*) FROM raw WHERE id > ?1 AND id < ?2",
		  "SELECT count(*) FROM raw WHERE id > ?1" },
		{ "DELETE FROM raw WHERE id > ?1 AND id < ?2",
		  "DELETE FROM raw WHERE id > ?1" },
	};
	sqlite3_stmt *ids = NULL, *gap = NULL, *tail = NULL;
	int64_t prev = 0;
	int rc;

	*n = 0;
	*errh = h;
	rc = sqlite3_prepare_v2(h, "SELECT raw_id FROM message WHERE raw_id"
				" IS NOT NULL ORDER BY raw_id", -1, &ids, NULL);
	if (rc != SQLITE_OK)
		goto out;
	*errh = r;
	if ((rc = sqlite3_prepare_v2(r, sql[remove][0], -1, &gap, NULL)) ||
	    (rc = sqlite3_prepare_v2(r, sql[remove][1], -1, &tail, NULL)))
		goto out;
	for (;;) {
		sqlite3_stmt *st;
		int64_t id = 0;
		bool last;

		*errh = h;
		rc = sqlite3_step(ids);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			goto out;
		last = rc == SQLITE_DONE;
		if (!last) {
			id = sqlite3_column_int64(ids, 0);
			if (id <= prev + 1) {
				prev = id > prev ? id : prev;
				continue;
			}
		}
		st = last ? tail : gap;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, prev);
		if (!last)
			sqlite3_bind_int64(st, 2, id);
		*errh = r;
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			*n += sqlite3_column_int64(st, 0);
		else if (rc == SQLITE_DONE && remove)
			*n += sqlite3_changes64(r);
		else
			goto out;
		if (last)
			break;
		prev = id;
	}
	rc = SQLITE_OK;
out:
	sqlite3_finalize(ids);
	sqlite3_finalize(gap);
	sqlite3_finalize(tail);
	return rc;
}

enum pw_status pw_db_raw_orphans(struct pw_db *db, bool remove, int64_t *n)
{
	sqlite3 *errh = db->h;
	enum pw_status s;
	int rc;

	*n = 0;
	if (db->depth || (remove && db->readonly)) {
		g_free(db->err);
		db->err = g_strdup_printf("%s: orphaned raw rows: %s",
					  pw_db_path(db), db->depth ?
					  "inside a transaction" :
					  "the store is open read-only");
		return PW_ERR_USAGE;
	}
	if (!db->raw) {
		char *rp = pw_db_raw_path_of(db->path);
		bool none = db->readonly && !g_file_test(rp, G_FILE_TEST_EXISTS);

		g_free(rp);
		if (none)
			return PW_OK;	/* no raw store: no raw rows */
		if (!pw_db_raw_open(db))
			return PW_ERR_IO;
	}
	if (remove) {
		/*
		 * Under the main store's write lock, which a writer takes
		 * before it stores raw bytes and keeps until its messages
		 * are committed: no batch in flight is taken for orphans.
		 */
		s = pw_db_exec(db, "BEGIN IMMEDIATE");
		if (s)
			return s;
		rc = sqlite3_exec(db->raw, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		errh = db->raw;
		if (rc == SQLITE_OK)
			rc = walk(db->h, db->raw, true, n, &errh);
		if (rc == SQLITE_OK) {
			errh = db->raw;
			rc = sqlite3_exec(db->raw, "COMMIT", NULL, NULL, NULL);
		}
	} else {
		/*
		 * The raw store's snapshot first: the bytes of every
		 * message committed by the main store's (later) snapshot
		 * are in it.  Only a writer between its two commits can
		 * show rows for a moment.
		 */
		rc = sqlite3_exec(db->raw, "BEGIN; SELECT count(*) FROM"
				  " sqlite_schema", NULL, NULL, NULL);
		errh = db->raw;
		if (rc == SQLITE_OK) {
			errh = db->h;
			rc = sqlite3_exec(db->h, "BEGIN", NULL, NULL, NULL);
		}
		if (rc == SQLITE_OK)
			rc = walk(db->h, db->raw, false, n, &errh);
	}
	s = rc == SQLITE_OK ? PW_OK :
		fail(db, errh, errh == db->raw ? db->raw_path : db->path, rc);
	if (!sqlite3_get_autocommit(db->raw))
		sqlite3_exec(db->raw, "ROLLBACK", NULL, NULL, NULL);
	if (!sqlite3_get_autocommit(db->h))
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	if (s)
		*n = 0;
	return s;
}

/* Appends "path: problem" for each problem integrity_check finds in h. */
static int integrity(sqlite3 *h, const char *path, GPtrArray *problems)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, NULL);

	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		char **lines, **l;

		rc = SQLITE_OK;
		if (!t || !strcmp(t, "ok"))
			continue;
		/* One problem a line, each named by its file. */
		lines = g_strsplit(t, "\n", -1);
		for (l = lines; *l; l++)
			if (**l && !g_str_has_prefix(*l, "*** in database"))
				g_ptr_array_add(problems, g_strdup_printf(
					"%s: %s", path, *l));
		g_strfreev(lines);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return SQLITE_OK;
	/* A file too damaged to check is a problem found, not a failure. */
	if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB) {
		g_ptr_array_add(problems, g_strdup_printf("%s: %s", path,
							  sqlite3_errmsg(h)));
		return SQLITE_OK;
	}
	return rc;
}

enum pw_status pw_db_integrity_check(struct pw_db *db, GPtrArray *problems)
{
	int rc;

	rc = integrity(db->h, db->path, problems);
	if (rc != SQLITE_OK)
		return fail(db, db->h, db->path, rc);
	if (!db->raw) {
		char *rp = pw_db_raw_path_of(db->path);
		bool none = !g_file_test(rp, G_FILE_TEST_EXISTS);

		g_free(rp);
		if (none && db->readonly)
			return PW_OK;
		if (!pw_db_raw_open(db))
			return PW_ERR_IO;
	}
	rc = integrity(db->raw, db->raw_path, problems);
	return rc == SQLITE_OK ? PW_OK : fail(db, db->raw, db->raw_path, rc);
}

/* A connection of its own to the file at path (flags as for
 * sqlite3_open_v2), with extended result codes and the store's busy
 * timeout.  *h is to be closed whatever the result. */
static int open_own(const char *path, int flags, sqlite3 **h)
{
	int rc = sqlite3_open_v2(path, h, flags, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_extended_result_codes(*h, 1);
		sqlite3_busy_timeout(*h, PW_DB_BUSY_MS);
	}
	return rc;
}

/* The integrity check of the file at path through a read-only
 * connection of its own; nothing when it cannot be opened. */
static void integrity_of(const char *path, GPtrArray *problems)
{
	sqlite3 *h = NULL;

	if (open_own(path, SQLITE_OPEN_READONLY, &h) == SQLITE_OK)
		integrity(h, path, problems);
	sqlite3_close(h);
}

void pw_db_integrity_check_path(const char *path, GPtrArray *problems)
{
	char *rp = pw_db_raw_path_of(path);

	integrity_of(path, problems);
	if (g_file_test(rp, G_FILE_TEST_IS_REGULAR))
		integrity_of(rp, problems);
	g_free(rp);
}

/* The bytes the database of h holds (its pages), or -1. */
static int64_t db_bytes(sqlite3 *h)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	if (sqlite3_prepare_v2(h, "SELECT page_count * page_size FROM"
			       " pragma_page_count(), pragma_page_size()",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

enum pw_status pw_db_vacuum(struct pw_db *db, struct pw_db_sizes *before,
			    struct pw_db_sizes *after)
{
	sqlite3 *h[2];
	const char *path[2];
	int i, rc;

	memset(before, 0, sizeof(*before));
	memset(after, 0, sizeof(*after));
	if (db->readonly || db->depth) {
		g_free(db->err);
		db->err = g_strdup_printf("%s: VACUUM needs the store open"
					  " read-write, outside a transaction",
					  pw_db_path(db));
		return PW_ERR_USAGE;
	}
	if (!pw_db_raw_open(db))
		return PW_ERR_IO;
	h[0] = db->h;
	h[1] = db->raw;
	path[0] = db->path;
	path[1] = db->raw_path;
	before->store = db_bytes(h[0]);
	before->raw = db_bytes(h[1]);
	for (i = 0; i < 2; i++) {
		rc = sqlite3_exec(h[i], "VACUUM", NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			return fail(db, h[i], path[i], rc);
		/* The new pages are in the WAL: into the file with them, and
		 * the WAL emptied.  A reader that stays longer than the busy
		 * timeout leaves that to a later checkpoint: not a failure. */
		rc = sqlite3_wal_checkpoint_v2(h[i], NULL,
					       SQLITE_CHECKPOINT_TRUNCATE,
					       NULL, NULL);
		if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY)
			return fail(db, h[i], path[i], rc);
	}
	after->store = db_bytes(h[0]);
	after->raw = db_bytes(h[1]);
	return PW_OK;
}

/* ---- backup ---- */

/* Removes a file made by a backup that failed, with its journals. */
static void unlink_db(const char *path)
{
	static const char *const ext[] = { "", "-journal", "-wal", "-shm" };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(ext); i++) {
		char *p = g_strconcat(path, ext[i], NULL);

		remove(p);
		g_free(p);
	}
}

/*
 * Copies the database at from into a new file to with the backup API,
 * in one step: one read transaction of the source, so that the copy is
 * one committed state of it, whatever other processes write meanwhile
 * (in WAL mode they go on writing).  *out receives the open copy; *made
 * becomes true once the file to is created.  The file is created here,
 * empty and readable by its owner alone, before SQLite opens it: it
 * holds every message, and SQLite gives its journal, -wal and -shm
 * files the mode of the database file.  The caller has made sure it
 * does not exist.
 */
static enum pw_status copy(struct pw_db *db, const char *from, const char *to,
			   sqlite3 **out, bool *made)
{
	sqlite3 *src = NULL, *dst = NULL;
	sqlite3_backup *b;
	gint64 until = g_get_monotonic_time() + (gint64)PW_DB_BUSY_MS * 1000;
	enum pw_status s = PW_OK;
	GError *e = NULL;
	int rc;

	*out = NULL;
	rc = open_own(from, SQLITE_OPEN_READONLY, &src);
	if (rc != SQLITE_OK) {
		s = fail(db, src, from, rc);
		goto out;
	}
	/* A read first, so that a store this user cannot read says why. */
	rc = sqlite3_exec(src, "SELECT count(*) FROM sqlite_schema", NULL,
			  NULL, NULL);
	if (rc != SQLITE_OK) {
		g_free(db->err);
		db->err = pw_db_ro_reason(src, from);
		s = (rc & 0xff) == SQLITE_BUSY ? PW_ERR_TRANSIENT : PW_ERR_IO;
		goto out;
	}
	/* Made empty and 0600 first: SQLite gives its -wal and -shm the
	 * mode of the file, and the copy holds every message. */
	if (!g_file_set_contents_full(to, "", 0, G_FILE_SET_CONTENTS_NONE,
				      0600, &e)) {
		g_free(db->err);
		db->err = g_strdup(e->message);
		g_error_free(e);
		s = PW_ERR_IO;
		goto out;
	}
	*made = true;
	rc = open_own(to, SQLITE_OPEN_READWRITE, &dst);
	if (rc != SQLITE_OK) {
		s = fail(db, dst, to, rc);
		goto out;
	}
	b = sqlite3_backup_init(dst, "main", src, "main");
	if (!b) {
		s = fail(db, dst, to, sqlite3_errcode(dst));
		goto out;
	}
	/* Busy only while another process recovers the WAL: brief. */
	while ((rc = sqlite3_backup_step(b, -1)) == SQLITE_OK ||
	       ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) &&
		g_get_monotonic_time() < until))
		g_usleep(20 * 1000);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		s = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED ?
			fail(db, src, from, rc) : fail(db, dst, to, rc);
		goto out;
	}
	*out = dst;
	dst = NULL;
out:
	sqlite3_close(src);
	sqlite3_close(dst);
	return s;
}

enum pw_status pw_db_backup(const char *path, const char *to,
			    struct pw_db_backup_info *info, char **err)
{
	struct pw_db tmp = { 0 };	/* carries the messages of fail() */
	char *raw_from = pw_db_raw_path_of(path), *raw_to = pw_db_raw_path_of(to);
	sqlite3 *h = NULL, *r = NULL, *errh;
	enum pw_status s = PW_OK;
	bool made = false, made_raw = false;
	int rc;

	memset(info, 0, sizeof(*info));
	*err = NULL;
	if (!strcmp(path, ":memory:") || !strcmp(to, ":memory:") || !*to) {
		*err = g_strdup("a backup copies a store file into a new file");
		s = PW_ERR_USAGE;
		goto out;
	}
	if (g_file_test(to, G_FILE_TEST_EXISTS) ||
	    g_file_test(raw_to, G_FILE_TEST_EXISTS)) {
		*err = g_strdup_printf("%s exists: a backup goes to a new file",
				       g_file_test(to, G_FILE_TEST_EXISTS) ?
				       to : raw_to);
		s = PW_ERR_USAGE;
		goto out;
	}
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
		*err = g_strdup_printf("%s: no such store", path);
		s = PW_ERR_IO;
		goto out;
	}
	/*
	 * The main store first, then the raw one: bytes are committed
	 * before their messages, so the later copy of the raw store has
	 * the bytes of every message in the earlier copy of the main one.
	 */
	s = copy(&tmp, path, to, &h, &made);
	if (!s && g_file_test(raw_from, G_FILE_TEST_IS_REGULAR))
		s = copy(&tmp, raw_from, raw_to, &r, &made_raw);
	if (s)
		goto out;
	if (r) {
		/* Bytes of messages committed after the main store's copy,
		 * or left by an interrupted writer: not in the copy. */
		rc = sqlite3_exec(r, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		errh = r;
		if (rc == SQLITE_OK)
			rc = walk(h, r, true, &info->raw_dropped, &errh);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(r, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			s = fail(&tmp, errh, errh == r ? raw_to : to, rc);
			goto out;
		}
		info->raw_bytes = db_bytes(r);
	}
	info->bytes = db_bytes(h);
	{
		sqlite3_stmt *st;

		rc = sqlite3_prepare_v2(h, "SELECT count(*) FROM message", -1,
					&st, NULL);
		if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			info->messages = sqlite3_column_int64(st, 0);
			rc = SQLITE_OK;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_OK)
			s = fail(&tmp, h, to, rc);
	}
out:
	if (h && sqlite3_close(h) != SQLITE_OK && !s)
		s = fail(&tmp, h, to, sqlite3_errcode(h));
	if (r && sqlite3_close(r) != SQLITE_OK && !s)
		s = fail(&tmp, r, raw_to, sqlite3_errcode(r));
	if (s && !*err)
		*err = g_strdup(tmp.err ? tmp.err : pw_status_str(s));
	if (s && made)
		unlink_db(to);
	if (s && made_raw)
		unlink_db(raw_to);
	g_free(tmp.err);
	g_free(raw_from);
	g_free(raw_to);
	return s;
}
