/*
 * patchwarden: opening the store, migrations, transactions and
 * background checkpoints.  The statement helpers and the translation of
 * SQLite's codes are in db/stmt.c, the raw store in db/raw.c, messages,
 * patches and findings in db/message.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/db-private.h"
#include "db/schema.h"

/* A reader waits for a store being created as long as for a lock. */
#define BUSY_MS PW_DB_BUSY_MS

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
		if (pw_db_raw_exec(db, "COMMIT")) {
			pw_db_rollback_quietly(db->raw);
			pw_db_rollback_quietly(db->h);
			g_hash_table_remove_all(db->lists);
			return PW_ERR_DB;
		}
	}
	s = pw_db_exec(db, "COMMIT");
	if (s) {
		pw_db_rollback_quietly(db->h);
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
		pw_db_rollback_quietly(db->raw);
	}
	pw_db_rollback_quietly(db->h);
	/* Lists created in the transaction are gone again. */
	g_hash_table_remove_all(db->lists);
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
		pw_db_set_err(db, "cannot read the schema version");
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
		    (s = pw_db_exec(db, "PRAGMA journal_size_limit="
				    PW_DB_WAL_KEEP)) ||
		    (s = pw_db_exec(db, "PRAGMA synchronous=NORMAL")) ||
		    /* A write whose triggers write more than once keeps a
		     * statement journal: in memory, not a temporary file
		     * made and removed for every finding stored (12 s of
		     * system time for 10,000 messages, not 0.3 s). */
		    (s = pw_db_exec(db, "PRAGMA temp_store=MEMORY")) ||
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
	pw_db_raw_close(db);
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

/* Every row of a read statement, in one transaction (the reads of the
 * attention queue and the charts). */
enum pw_status pw_db_rows(struct pw_db *db, sqlite3_stmt *st,
			  gpointer (*fn)(sqlite3_stmt *st),
			  GDestroyNotify free_fn, GPtrArray **out)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(free_fn);
	enum pw_status s;

	*out = NULL;
	s = pw_db_begin(db);
	if (s)
		goto fail;
	while (pw_db_row(db, st))
		g_ptr_array_add(a, fn(st));
	sqlite3_reset(st);
	/* A read that failed fails the transaction: the commit says so. */
	s = pw_db_commit(db);
	if (s)
		goto fail;
	*out = a;
	return PW_OK;
fail:
	sqlite3_reset(st);
	g_ptr_array_unref(a);
	return s;
}
