/*
 * patchwarden: opening the store, migrations, transactions, the
 * statement cache, and the message, patch and finding statements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/db-private.h"
#include "db/schema.h"

/* A reader waits for a store being created as long as for a lock. */
#define BUSY_MS PW_DB_BUSY_MS

static void set_err(struct pw_db *db, const char *what)
{
	g_free(db->err);
	db->err = g_strdup_printf("%s: %s", what, sqlite3_errmsg(db->h));
}

enum pw_status pw_db_status(struct pw_db *db, int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return PW_OK;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		set_err(db, "database busy");
		return PW_ERR_TRANSIENT;
	case SQLITE_NOMEM:
		return PW_ERR_NOMEM;
	default:
		set_err(db, "sqlite");
		return PW_ERR_DB;
	}
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
static void rollback_quietly(sqlite3 *h)
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
static enum pw_status read_failed(struct pw_db *db, enum pw_status s)
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
	return read_failed(db, pw_db_status(db, rc));
}

bool pw_db_row(struct pw_db *db, sqlite3_stmt *st)
{
	bool row;

	return !pw_db_read(db, st, &row) && row;
}

static int raw_exec(struct pw_db *db, const char *sql);

enum pw_status pw_db_begin(struct pw_db *db)
{
	enum pw_status s;

	if (db->depth++ > 0)
		return PW_OK;
	db->failed = false;
	db->txn++;
	s = pw_db_exec(db, db->readonly ? "BEGIN" : "BEGIN IMMEDIATE");
	if (s)
		db->depth = 0;
	return s;
}

enum pw_status pw_db_commit(struct pw_db *db)
{
	enum pw_status s;

	if (db->depth == 0)
		return PW_OK;
	if (--db->depth > 0)
		return db->failed ? PW_ERR_DB : PW_OK;
	if (db->failed) {
		/* A part rolled back: so does the whole. */
		db->depth = 1;
		pw_db_rollback(db);
		return PW_ERR_DB;
	}
	/* The bytes first: a committed message always has them. */
	if (db->raw_txn) {
		db->raw_txn = false;
		if (raw_exec(db, "COMMIT")) {
			rollback_quietly(db->raw);
			rollback_quietly(db->h);
			g_hash_table_remove_all(db->lists);
			return PW_ERR_DB;
		}
	}
	s = pw_db_exec(db, "COMMIT");
	if (s) {
		rollback_quietly(db->h);
		g_hash_table_remove_all(db->lists);
	}
	return s;
}

void pw_db_rollback(struct pw_db *db)
{
	if (db->depth == 0)
		return;
	if (db->depth > 1) {
		/* An inner part failed: the outermost commit refuses. */
		db->depth--;
		db->failed = true;
		return;
	}
	db->depth = 0;
	db->failed = false;
	if (db->raw_txn) {
		db->raw_txn = false;
		rollback_quietly(db->raw);
	}
	rollback_quietly(db->h);
	/* Lists created in the transaction are gone again. */
	g_hash_table_remove_all(db->lists);
}

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

static int raw_exec(struct pw_db *db, const char *sql)
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
 * close, and to WAL_KEEP after the checkpoints that empty it.
 */
#define WAL_KEEP "67108864"

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
	sqlite3_busy_timeout(db->raw, BUSY_MS);
	if (db->readonly) {
		/* Read now, so that a store this user cannot read says why
		 * here rather than as a failed read later. */
		if (raw_exec(db, "PRAGMA query_only=ON") ||
		    raw_exec(db, "SELECT 1 FROM raw LIMIT 1")) {
			g_free(db->err);
			db->err = pw_db_ro_reason(db->raw, db->raw_path);
			sqlite3_close(db->raw);
			db->raw = NULL;
			return false;
		}
		return true;
	}
	pw_db_keep_wal(db->raw);
	if (raw_exec(db, "PRAGMA page_size=65536") ||
	    raw_exec(db, "PRAGMA cache_size=-1024") ||
	    raw_exec(db, "PRAGMA journal_mode=WAL") ||
	    raw_exec(db, "PRAGMA journal_size_limit=" WAL_KEEP) ||
	    raw_exec(db, "PRAGMA synchronous=NORMAL") ||
	    raw_exec(db, "CREATE TABLE IF NOT EXISTS raw ("
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
	sqlite3_busy_timeout(db->h, BUSY_MS);
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
		rollback_quietly(db->h);
		return s;
	}
	if (sqlite3_prepare_v2(db->raw, "DELETE FROM raw WHERE id > ?1", -1,
			       &st, NULL) != SQLITE_OK) {
		raw_err(db);
		rollback_quietly(db->h);
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
	rollback_quietly(db->h);	/* nothing was written here */
	return s;
}

static void raw_close(struct pw_db *db)
{
	sqlite3_finalize(db->raw_put);
	sqlite3_finalize(db->raw_get);
	db->raw_put = db->raw_get = NULL;
	if (db->raw)
		sqlite3_close(db->raw);
	db->raw = NULL;
}

/* Stores bytes in the raw store, inside the raw transaction if any. */
static enum pw_status raw_put(struct pw_db *db, const void *data, size_t len,
			      int64_t *id)
{
	int rc;

	if (!db->raw && !pw_db_raw_open(db))
		return PW_ERR_DB;
	if (db->depth > 0 && !db->raw_txn) {
		if (raw_exec(db, "BEGIN IMMEDIATE"))
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
		return rc == SQLITE_FULL || (rc & 0xff) == SQLITE_IOERR ?
			PW_ERR_IO : PW_ERR_DB;
	}
	*id = sqlite3_last_insert_rowid(db->raw);
	return PW_OK;
}

/* The bytes of raw row id, or NULL (an error fails the transaction). */
static GBytes *raw_get(struct pw_db *db, int64_t id)
{
	GBytes *b = NULL;
	int rc;

	if (!db->raw && !pw_db_raw_open(db)) {
		read_failed(db, PW_ERR_DB);
		return NULL;
	}
	if (!db->raw_get &&
	    sqlite3_prepare_v2(db->raw, "SELECT raw FROM raw WHERE id = ?1", -1,
			       &db->raw_get, NULL) != SQLITE_OK) {
		raw_err(db);
		read_failed(db, PW_ERR_DB);
		return NULL;
	}
	sqlite3_bind_int64(db->raw_get, 1, id);
	rc = sqlite3_step(db->raw_get);
	if (rc == SQLITE_ROW) {
		b = g_bytes_new(sqlite3_column_blob(db->raw_get, 0),
				(gsize)sqlite3_column_bytes(db->raw_get, 0));
	} else if (rc != SQLITE_DONE) {
		raw_err(db);
		read_failed(db, PW_ERR_DB);
	}
	sqlite3_reset(db->raw_get);
	return b;
}

int pw_db_schema_version(void)
{
	size_t n;

	pw_db_migrations(&n);
	return (int)n;
}

/* The schema version of db, or -1 when it cannot be read (*rc says why). */
static int read_version(struct pw_db *db, int *rc)
{
	sqlite3_stmt *st;
	int v = -1;

	*rc = sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL);
	if (*rc != SQLITE_OK)
		return -1;
	*rc = sqlite3_step(st);
	if (*rc == SQLITE_ROW) {
		v = sqlite3_column_int(st, 0);
		*rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return v;
}

static int user_version(struct pw_db *db)
{
	int rc;

	return read_version(db, &rc);
}

/*
 * Checks that a store opened read-only has this program's schema,
 * keeping the reason in db->err (naming the file) when it has not.  A
 * store with version 0 has no schema yet: another process is creating
 * it (the creator's migrations commit at once) or it was left empty.
 * The reader waits for it as for a busy store.
 */
static enum pw_status check_version(struct pw_db *db)
{
	gint64 until = g_get_monotonic_time() + (gint64)BUSY_MS * 1000;
	int rc, v;

	g_free(db->err);
	db->err = NULL;
	pw_db_exec(db, "PRAGMA query_only=ON");
	while ((v = read_version(db, &rc)) == 0 &&
	       g_get_monotonic_time() < until)
		g_usleep(50 * 1000);
	if (v < 0) {
		db->err = pw_db_ro_reason(db->h, db->path);
		return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED ?
			PW_ERR_TRANSIENT : PW_ERR_IO;
	}
	if (v == 0) {
		db->err = g_strdup_printf("%s: no store yet: another process is"
			" creating it, or it was left empty (a read-write command"
			" such as \"patchwarden ingest\" creates it)", db->path);
		return PW_ERR_TRANSIENT;
	}
	if (v < pw_db_schema_version()) {
		db->err = g_strdup_printf("%s: schema version %d, this program"
			" reads %d (open it once read-write to migrate)",
			db->path, v, pw_db_schema_version());
		return PW_ERR_DB;
	}
	if (v > pw_db_schema_version()) {
		db->err = g_strdup_printf("%s: schema version %d, newer than"
			" this program's %d", db->path, v, pw_db_schema_version());
		return PW_ERR_DB;
	}
	return PW_OK;
}

static enum pw_status migrate(struct pw_db *db)
{
	size_t n, v;
	const char *const *m = pw_db_migrations(&n);
	enum pw_status s;
	int cur;

	s = pw_db_begin(db);
	if (s)
		return s;
	cur = user_version(db);
	if (cur < 0) {
		set_err(db, "cannot read the schema version");
		s = PW_ERR_DB;
		goto out;
	}
	if ((size_t)cur > n) {
		g_free(db->err);
		db->err = g_strdup_printf("the database has schema version %d, "
					  "newer than this program's %zu", cur, n);
		s = PW_ERR_DB;
		goto out;
	}
	for (v = (size_t)cur; v < n; v++) {
		char pragma[64];

		s = pw_db_exec(db, m[v]);
		if (s)
			goto out;
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version=%zu", v + 1);
		s = pw_db_exec(db, pragma);
		if (s)
			goto out;
	}
	return pw_db_commit(db);
out:
	pw_db_rollback(db);
	return s;
}

static void finalize_stmt(gpointer p)
{
	sqlite3_finalize(p);
}

/*
 * Statement journals (a copy of each page a statement changes inside a
 * larger transaction, kept until the statement ends) stay in memory
 * instead of spilling to temporary files past 64 KiB: on disk they were
 * about half of a bulk load's writes.  Each lives for one statement of
 * a few rows.  Sorts and temporary tables still spill to disk.  Set
 * once, before SQLite starts (it refuses afterwards, which is harmless).
 */
static gpointer sqlite_setup(gpointer unused)
{
	sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, -1);
	return unused;
}

enum pw_status pw_db_open(const char *path, bool readonly, struct pw_db **out,
			  char **err)
{
	static GOnce once = G_ONCE_INIT;
	struct pw_db *db = g_new0(struct pw_db, 1);
	int flags = readonly ? SQLITE_OPEN_READONLY :
		SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	enum pw_status s = PW_ERR_DB;
	int rc;

	g_once(&once, sqlite_setup, NULL);
	*out = NULL;
	db->path = g_strdup(path);
	db->readonly = readonly;
	db->stmts = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
					  finalize_stmt);
	db->lists = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	rc = sqlite3_open_v2(path, &db->h, flags, NULL);
	if (rc != SQLITE_OK) {
		if (err)
			*err = g_strdup_printf("%s: %s", path,
					       db->h ? sqlite3_errmsg(db->h) :
					       sqlite3_errstr(rc));
		s = PW_ERR_IO;
		goto fail;
	}
	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_timeout(db->h, BUSY_MS);
	if (!readonly) {
		pw_db_keep_wal(db->h);
		/* Only takes effect on a new file. */
		if ((s = pw_db_exec(db, "PRAGMA page_size=16384")) ||
		    /* 16 MiB: the indexes that bulk inserts hit at random
		     * (message ids, series refs, flood keys) stay cached
		     * for longer as the database grows. */
		    (s = pw_db_exec(db, "PRAGMA cache_size=-16384")) ||
		    (s = pw_db_exec(db, "PRAGMA journal_mode=WAL")) ||
		    (s = pw_db_exec(db, "PRAGMA journal_size_limit=" WAL_KEEP)) ||
		    (s = pw_db_exec(db, "PRAGMA synchronous=NORMAL")) ||
		    (s = pw_db_exec(db, "PRAGMA foreign_keys=ON")))
			goto fail_msg;
		/* The raw store before the schema: a reader that finds a
		 * new store's schema finds its raw store made too. */
		if (!pw_db_raw_open(db)) {
			s = PW_ERR_DB;
			goto fail_msg;
		}
		if ((s = migrate(db)))
			goto fail_msg;
	} else {
		s = check_version(db);
		if (s) {
			if (err)
				*err = g_strdup(pw_db_errmsg(db));
			goto fail;
		}
	}
	*out = db;
	return PW_OK;
fail_msg:
	if (err)
		*err = g_strdup_printf("%s: %s", path, pw_db_errmsg(db));
fail:
	pw_db_close(db);
	return s;
}

/* ---- background checkpoints ---- */

/* A checkpoint once the WAL holds about 16 MiB, whatever the page size. */
#define CKPT_BYTES (16 << 20)
#define CKPT_WAIT 4		/* past this many times that, a commit waits */

struct pw_db_ckpt {
	GThread *thread;
	sqlite3 *h;		/* the checkpointer's own connection */
	sqlite3 *writer;	/* the connection whose commits ask for one */
	int pages, wait_pages;	/* thresholds, in pages of that database */
	GMutex lock;
	GCond cond;
	uint64_t asked, done;	/* checkpoint requests and completions */
	bool stop;
};

static gpointer ckpt_main(gpointer data)
{
	struct pw_db_ckpt *c = data;

	g_mutex_lock(&c->lock);
	for (;;) {
		uint64_t asked;

		while (!c->stop && c->done == c->asked)
			g_cond_wait(&c->cond, &c->lock);
		if (c->stop)
			break;
		asked = c->asked;
		g_mutex_unlock(&c->lock);
		sqlite3_wal_checkpoint_v2(c->h, NULL, SQLITE_CHECKPOINT_PASSIVE,
					  NULL, NULL);
		g_mutex_lock(&c->lock);
		c->done = asked;
		g_cond_broadcast(&c->cond);
	}
	g_mutex_unlock(&c->lock);
	return NULL;
}

/* Runs after each commit, in the committing thread. */
static int ckpt_hook(void *data, sqlite3 *h, const char *name, int pages)
{
	struct pw_db_ckpt *c = data;
	uint64_t want;

	if (pages < c->pages)
		return SQLITE_OK;
	g_mutex_lock(&c->lock);
	want = ++c->asked;
	g_cond_broadcast(&c->cond);
	/* A checkpoint that started after this commit backfills the
	 * whole WAL, so the next transaction starts it over. */
	while (pages >= c->wait_pages && !c->stop && c->done < want)
		g_cond_wait(&c->cond, &c->lock);
	g_mutex_unlock(&c->lock);
	return SQLITE_OK;
}

static int page_size(sqlite3 *h)
{
	sqlite3_stmt *st;
	int n = 4096;

	if (sqlite3_prepare_v2(h, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return n > 0 ? n : 4096;
}

static struct pw_db_ckpt *ckpt_new(sqlite3 *writer, const char *path,
				   const char *name)
{
	struct pw_db_ckpt *c = g_new0(struct pw_db_ckpt, 1);

	if (sqlite3_open_v2(path, &c->h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		sqlite3_close(c->h);
		g_free(c);
		return NULL;
	}
	sqlite3_busy_timeout(c->h, BUSY_MS);
	pw_db_keep_wal(c->h);
	/* Read the header once, so that the connection knows the WAL. */
	sqlite3_exec(c->h, "PRAGMA schema_version", NULL, NULL, NULL);
	c->writer = writer;
	c->pages = CKPT_BYTES / page_size(writer);
	c->wait_pages = CKPT_WAIT * c->pages;
	g_mutex_init(&c->lock);
	g_cond_init(&c->cond);
	c->thread = g_thread_new(name, ckpt_main, c);
	sqlite3_wal_hook(writer, ckpt_hook, c);
	return c;
}

static void ckpt_free(struct pw_db_ckpt *c)
{
	if (!c)
		return;
	/* Back to sqlite's own checkpoints (this replaces the hook). */
	sqlite3_wal_autocheckpoint(c->writer, c->pages);
	g_mutex_lock(&c->lock);
	c->stop = true;
	g_cond_broadcast(&c->cond);
	g_mutex_unlock(&c->lock);
	g_thread_join(c->thread);
	sqlite3_close(c->h);
	g_mutex_clear(&c->lock);
	g_cond_clear(&c->cond);
	g_free(c);
}

void pw_db_checkpoint_start(struct pw_db *db)
{
	if (!db || db->readonly || db->ckpt)
		return;
	if (!strcmp(db->path, ":memory:"))
		return;
	db->ckpt = ckpt_new(db->h, db->path, "pw-checkpoint");
	if (db->raw)
		db->raw_ckpt = ckpt_new(db->raw, db->raw_path, "pw-checkpt-raw");
}

void pw_db_checkpoint_stop(struct pw_db *db)
{
	if (!db)
		return;
	ckpt_free(db->ckpt);
	ckpt_free(db->raw_ckpt);
	db->ckpt = db->raw_ckpt = NULL;
}

void pw_db_close(struct pw_db *db)
{
	if (!db)
		return;
	pw_db_checkpoint_stop(db);
	if (db->depth) {
		db->depth = 1;
		pw_db_rollback(db);
	}
	g_hash_table_destroy(db->stmts);
	g_hash_table_destroy(db->lists);
	raw_close(db);
	g_free(db->raw_path);
	if (db->h) {
		if (!db->readonly)
			sqlite3_exec(db->h, "PRAGMA optimize", NULL, NULL, NULL);
		sqlite3_close(db->h);
	}
	g_free(db->path);
	g_free(db->err);
	g_free(db);
}

const char *pw_db_path(const struct pw_db *db)
{
	return db->path ? db->path : "";
}

bool pw_db_in_transaction(const struct pw_db *db)
{
	return db->depth > 0;
}

/* ---- messages ---- */

void pw_db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

char *pw_db_col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? g_strdup((const char *)t) : NULL;
}

/* A list's row id, created when new; remembered, since every message
 * of an ingest names the same few lists. */
static enum pw_status list_id(struct pw_db *db, const char *name, int64_t *id)
{
	sqlite3_stmt *st;
	gint64 *known = g_hash_table_lookup(db->lists, name);
	int rc;

	if (known) {
		*id = *known;
		return PW_OK;
	}
	st = pw_db_stmt(db, "SELECT id FROM list WHERE name = ?1");
	pw_db_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	} else {
		sqlite3_reset(st);
		st = pw_db_stmt(db, "INSERT INTO list(name) VALUES (?1)");
		pw_db_bind_text(st, 1, name);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return pw_db_status(db, rc);
		*id = sqlite3_last_insert_rowid(db->h);
	}
	g_hash_table_insert(db->lists, g_strdup(name), g_memdup2(id, sizeof(*id)));
	return PW_OK;
}

enum pw_status pw_db_message_find(struct pw_db *db, const char *msgid,
				  int64_t *id, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT id FROM message WHERE msgid = ?1");
	enum pw_status s;

	pw_db_bind_text(st, 1, msgid);
	s = pw_db_read(db, st, found);
	if (*found && id)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return s;
}

static char *join(const char *const *v, const char *sep)
{
	return v && *v ? g_strjoinv(sep, (char **)v) : NULL;
}

enum pw_status pw_db_message_add(struct pw_db *db, const struct pw_mail *m,
				 const struct pw_msg_origin *from,
				 const char *list, int64_t *id, bool *is_new)
{
	const struct pw_subject_tags *t = &m->tags;
	sqlite3_stmt *st;
	char *refs = NULL, *rcpts = NULL;
	enum pw_status s;
	int64_t lid = 0, raw_id = 0;
	bool found;
	int rc;

	*is_new = false;
	s = pw_db_message_find(db, m->msgid, id, &found);
	if (s)
		return s;
	if (found)
		goto seen;

	if (from->raw && !from->git_blob) {
		s = raw_put(db, from->raw, from->raw_len, &raw_id);
		if (s)
			return s;
	}
	refs = join((const char *const *)m->references, " ");
	rcpts = join((const char *const *)m->recipients, "\n");
	st = pw_db_stmt(db,
		"INSERT INTO message(msgid, msgid_derived, kind, from_name,"
		" from_addr, subject, subject_clean, date, in_reply_to, refs,"
		" list_id, auto_submitted, recipients, nrecipients, version,"
		" number, total, has_counter, rfc, prefixes, git_blob,"
		" source, received_at, backfill, raw_id, automated)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
		" ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25,"
		" ?26)");
	pw_db_bind_text(st, 1, m->msgid);
	sqlite3_bind_int(st, 2, m->msgid_derived);
	pw_db_bind_text(st, 3, pw_mail_kind_str(m->kind));
	pw_db_bind_text(st, 4, m->from_name ? m->from_name : "");
	pw_db_bind_text(st, 5, m->from_addr ? m->from_addr : "");
	pw_db_bind_text(st, 6, m->subject ? m->subject : "");
	pw_db_bind_text(st, 7, m->subject_clean ? m->subject_clean : "");
	/* 0 is an unknown Date (checks/message.h): NULL in the store. */
	if (m->date)
		sqlite3_bind_int64(st, 8, m->date);
	else
		sqlite3_bind_null(st, 8);
	pw_db_bind_text(st, 9, m->in_reply_to);
	pw_db_bind_text(st, 10, refs);
	pw_db_bind_text(st, 11, m->list_id);
	pw_db_bind_text(st, 12, m->auto_submitted);
	pw_db_bind_text(st, 13, rcpts);
	sqlite3_bind_int(st, 14, m->nrecipients);
	sqlite3_bind_int(st, 15, t->version);
	sqlite3_bind_int(st, 16, t->number);
	sqlite3_bind_int(st, 17, t->total);
	sqlite3_bind_int(st, 18, t->has_counter);
	sqlite3_bind_int(st, 19, t->rfc);
	pw_db_bind_text(st, 20, t->prefixes ? t->prefixes : "");
	pw_db_bind_text(st, 21, from->git_blob);
	pw_db_bind_text(st, 22, from->source);
	sqlite3_bind_int64(st, 23, (int64_t)time(NULL));
	sqlite3_bind_int(st, 24, from->backfill);
	if (raw_id)
		sqlite3_bind_int64(st, 25, raw_id);
	else
		sqlite3_bind_null(st, 25);
	pw_db_bind_text(st, 26, m->automated);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		s = pw_db_status(db, rc);
		goto out;
	}
	*id = sqlite3_last_insert_rowid(db->h);
	*is_new = true;
	if (m->sender_addr) {
		st = pw_db_stmt(db, "INSERT INTO message_sender(message, name, addr)"
				" VALUES (?1, ?2, ?3)");
		sqlite3_bind_int64(st, 1, *id);
		pw_db_bind_text(st, 2, m->sender_name ? m->sender_name : "");
		pw_db_bind_text(st, 3, m->sender_addr);
		s = pw_db_done(db, st);
		if (s)
			goto out;
	}
seen:
	s = PW_OK;
	if (list && *list) {
		s = list_id(db, list, &lid);
		if (s)
			goto out;
		st = pw_db_stmt(db, "INSERT OR IGNORE INTO message_list(message, list)"
				" VALUES (?1, ?2)");
		sqlite3_bind_int64(st, 1, *id);
		sqlite3_bind_int64(st, 2, lid);
		s = pw_db_done(db, st);
	}
out:
	g_free(refs);
	g_free(rcpts);
	return s;
}

GBytes *pw_db_message_raw(struct pw_db *db, int64_t id)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT raw_id, raw FROM message"
				      " WHERE id = ?1");
	int64_t raw_id = 0;
	GBytes *b = NULL;

	bool found;

	sqlite3_bind_int64(st, 1, id);
	if (!pw_db_read(db, st, &found) && found) {
		raw_id = sqlite3_column_int64(st, 0);
		/* Stored before the raw store: the bytes are in the row. */
		if (!raw_id && sqlite3_column_type(st, 1) != SQLITE_NULL)
			b = g_bytes_new(sqlite3_column_blob(st, 1),
					(gsize)sqlite3_column_bytes(st, 1));
	}
	sqlite3_reset(st);
	return raw_id ? raw_get(db, raw_id) : b;
}

enum pw_status pw_db_message_head(struct pw_db *db, const char *msgid,
				  struct pw_msg_head *h, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT id, kind, from_addr, subject, in_reply_to, refs, date"
		" FROM message WHERE msgid = ?1");
	enum pw_status s;

	memset(h, 0, sizeof(*h));
	pw_db_bind_text(st, 1, msgid);
	s = pw_db_read(db, st, found);
	if (*found) {
		h->id = sqlite3_column_int64(st, 0);
		h->kind = g_strdup((const char *)sqlite3_column_text(st, 1));
		h->from_addr = g_strdup((const char *)sqlite3_column_text(st, 2));
		h->subject = g_strdup((const char *)sqlite3_column_text(st, 3));
		h->in_reply_to = g_strdup((const char *)sqlite3_column_text(st, 4));
		h->refs = g_strdup((const char *)sqlite3_column_text(st, 5));
		h->date = sqlite3_column_int64(st, 6);
	}
	sqlite3_reset(st);
	return s;
}

void pw_msg_head_release(struct pw_msg_head *h)
{
	g_free(h->kind);
	g_free(h->from_addr);
	g_free(h->subject);
	g_free(h->in_reply_to);
	g_free(h->refs);
}

/* ---- patches and findings ---- */

enum pw_status pw_db_patch_add(struct pw_db *db, int64_t message_id,
			       int number, const char *pull_url,
			       int64_t *patch_id)
{
	/* Plain statements: RETURNING and upserts cost a temporary table
	 * per row, and this runs for every patch ingested. */
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT OR IGNORE INTO patch(message, number, pull_url)"
		" VALUES (?1, ?2, ?3)");
	enum pw_status s;
	int rc;

	sqlite3_bind_int64(st, 1, message_id);
	sqlite3_bind_int(st, 2, number);
	pw_db_bind_text(st, 3, pull_url);
	s = pw_db_done(db, st);
	if (s)
		return s;
	if (sqlite3_changes(db->h) > 0) {
		*patch_id = sqlite3_last_insert_rowid(db->h);
		return PW_OK;
	}
	/* The message is a patch already: keep it, with the new number. */
	st = pw_db_stmt(db, "UPDATE patch SET number = ?2 WHERE message = ?1");
	sqlite3_bind_int64(st, 1, message_id);
	sqlite3_bind_int(st, 2, number);
	s = pw_db_done(db, st);
	if (s)
		return s;
	st = pw_db_stmt(db, "SELECT id FROM patch WHERE message = ?1");
	sqlite3_bind_int64(st, 1, message_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*patch_id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? PW_OK : pw_db_status(db, rc);
}

enum pw_status pw_db_findings_set(struct pw_db *db, int64_t patch_id,
				  GPtrArray *findings)
{
	sqlite3_stmt *st;
	enum pw_status s;

	st = pw_db_stmt(db, "DELETE FROM finding WHERE patch = ?1");
	sqlite3_bind_int64(st, 1, patch_id);
	s = pw_db_done(db, st);
	return s ? s : pw_db_findings_add(db, patch_id, findings);
}

enum pw_status pw_db_findings_add(struct pw_db *db, int64_t patch_id,
				  GPtrArray *findings)
{
	sqlite3_stmt *st;
	enum pw_status s = PW_OK;
	guint i;

	for (i = 0; !s && findings && i < findings->len; i++) {
		const struct pw_finding *f = findings->pdata[i];

		st = pw_db_stmt(db, "INSERT INTO finding(patch, rule, severity,"
				" file, line, col, message, fix)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
		sqlite3_bind_int64(st, 1, patch_id);
		pw_db_bind_text(st, 2, f->rule);
		sqlite3_bind_int(st, 3, f->severity);
		pw_db_bind_text(st, 4, f->file);
		sqlite3_bind_int(st, 5, f->line);
		sqlite3_bind_int(st, 6, f->column);
		pw_db_bind_text(st, 7, f->message ? f->message : "");
		pw_db_bind_text(st, 8, f->fix);
		s = pw_db_done(db, st);
		if (s || !f->added_line)
			continue;
		/* The line it quotes; deleting the finding deletes it. */
		st = pw_db_stmt(db, "INSERT OR REPLACE INTO finding_line(finding, text)"
				" VALUES (last_insert_rowid(), ?1)");
		pw_db_bind_text(st, 1, f->added_line);
		s = pw_db_done(db, st);
	}
	if (!s) {
		st = pw_db_stmt(db, "UPDATE patch SET checked_at = ?2 WHERE id = ?1");
		sqlite3_bind_int64(st, 1, patch_id);
		sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
		s = pw_db_done(db, st);
	}
	return s;
}

enum pw_status pw_db_patch_list(struct pw_db *db, int64_t since,
				GArray **out)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(struct pw_db_patch_ref));
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT patch.id, message.id FROM patch JOIN message"
		" ON message.id = patch.message"
		/* An unknown Date (NULL) counts as 0: in when since is. */
		" WHERE (message.date >= ?1 OR (message.date IS NULL AND ?1 <= 0))"
		" AND patch.pull_url IS NULL"
		" ORDER BY message.date, message.id");
	enum pw_status s;
	bool row;

	*out = a;
	sqlite3_bind_int64(st, 1, since);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct pw_db_patch_ref r;

		r.patch_id = sqlite3_column_int64(st, 0);
		r.message_id = sqlite3_column_int64(st, 1);
		g_array_append_val(a, r);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_message_list(struct pw_db *db, int64_t message_id,
				  char **name)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT list.name FROM message_list JOIN list ON list.id = message_list.list"
		" WHERE message_list.message = ?1 ORDER BY list.id LIMIT 1");
	enum pw_status s;
	bool found;

	*name = NULL;
	sqlite3_bind_int64(st, 1, message_id);
	s = pw_db_read(db, st, &found);
	if (found)
		*name = pw_db_col_dup(st, 0);
	sqlite3_reset(st);
	return s;
}

/* ---- errors and cursors ---- */

enum pw_status pw_db_ingest_error_add(struct pw_db *db, const char *source,
				      const char *location, const char *msgid,
				      const char *error, const void *raw,
				      size_t raw_len)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO ingest_error(source, location, msgid, error, raw, at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)");

	pw_db_bind_text(st, 1, source ? source : "");
	pw_db_bind_text(st, 2, location ? location : "");
	pw_db_bind_text(st, 3, msgid);
	pw_db_bind_text(st, 4, error ? error : "");
	/* Keep at most 1 MiB of a broken message: enough to debug it. */
	if (raw)
		sqlite3_bind_blob64(st, 5, raw, raw_len > (1u << 20) ?
				    (1u << 20) : raw_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 5);
	sqlite3_bind_int64(st, 6, (int64_t)time(NULL));
	return pw_db_done(db, st);
}

enum pw_status pw_db_cursor_get(struct pw_db *db, const char *source,
				char **value)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT value FROM cursor WHERE source = ?1");
	enum pw_status s;
	bool found;

	*value = NULL;
	pw_db_bind_text(st, 1, source);
	s = pw_db_read(db, st, &found);
	if (found)
		*value = pw_db_col_dup(st, 0);
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_cursor_set(struct pw_db *db, const char *source,
				const char *value)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO cursor(source, value, updated_at) VALUES (?1, ?2, ?3)"
		" ON CONFLICT(source) DO UPDATE SET value = excluded.value,"
		" updated_at = excluded.updated_at");

	pw_db_bind_text(st, 1, source);
	pw_db_bind_text(st, 2, value);
	sqlite3_bind_int64(st, 3, (int64_t)time(NULL));
	return pw_db_done(db, st);
}

/* ---- counts ---- */

/* The one number st reads into *n; an error fails the transaction. */
static void count(struct pw_db *db, sqlite3_stmt *st, int64_t *n)
{
	if (pw_db_row(db, st))
		*n = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
}

enum pw_status pw_db_stats(struct pw_db *db, struct pw_db_stats *o)
{
	sqlite3_stmt *st;
	enum pw_status s;

	memset(o, 0, sizeof(*o));
	s = pw_db_begin(db);
	if (s)
		return s;
	/* From the totals per list and day (db/totals.c), not every row. */
	st = pw_db_stmt(db, "SELECT kind, sum(n) FROM total_message"
			" WHERE list = 0 GROUP BY kind");
	while (pw_db_row(db, st)) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		int64_t n = sqlite3_column_int64(st, 1);

		o->messages += n;
		if (!strcmp(k, "patch"))
			o->patches = n;
		else if (!strcmp(k, "cover"))
			o->covers = n;
		else if (!strcmp(k, "comment"))
			o->comments = n;
		else if (!strcmp(k, "pull"))
			o->pulls = n;
		else
			o->others = n;
	}
	sqlite3_reset(st);
	count(db, pw_db_stmt(db, "SELECT count(*) FROM series"), &o->series);
	count(db, pw_db_stmt(db, "SELECT count(*) FROM list"), &o->lists);
	count(db, pw_db_stmt(db, "SELECT coalesce(sum(n), 0) FROM total_finding"
			     " WHERE list = 0"), &o->findings);
	count(db, pw_db_stmt(db, "SELECT count(*) FROM ingest_error"), &o->errors);
	/* A read that failed failed the transaction: the commit says so. */
	return pw_db_commit(db);
}
