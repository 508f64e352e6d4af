/*
 * Unit tests for db/db.c transactions: nesting, and a rollback inside
 * one that fails the whole; reads that tell "not found" from a store
 * they could not read; and db/care.c: raw rows no message names, found
 * wherever they are and removed, a backup that leaves them out, and
 * the integrity check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "db/db-private.h"
#include "db/series.h"
#include "store_fixture.h"

static int count_lists(struct pw_db *db)
{
	sqlite3_stmt *st;
	int n = -1;

	assert_int_equal(sqlite3_prepare_v2(db->h, "SELECT count(*) FROM list",
					    -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void nested(void **state)
{
	struct pw_db *db = NULL;
	char *err = NULL;

	(void)state;
	assert_int_equal(pw_db_open(":memory:", false, &db, &err), PW_OK);

	/* Nested commits: only the outermost one writes. */
	assert_int_equal(pw_db_begin(db), PW_OK);
	assert_int_equal(pw_db_exec(db, "INSERT INTO list(name) VALUES ('a')"), PW_OK);
	assert_int_equal(pw_db_begin(db), PW_OK);
	assert_int_equal(pw_db_exec(db, "INSERT INTO list(name) VALUES ('b')"), PW_OK);
	assert_int_equal(pw_db_commit(db), PW_OK);
	assert_int_equal(pw_db_commit(db), PW_OK);
	assert_int_equal(count_lists(db), 2);

	/* A rollback inside: the outer commit refuses and undoes it all. */
	assert_int_equal(pw_db_begin(db), PW_OK);
	assert_int_equal(pw_db_exec(db, "INSERT INTO list(name) VALUES ('c')"), PW_OK);
	assert_int_equal(pw_db_begin(db), PW_OK);
	assert_int_equal(pw_db_exec(db, "INSERT INTO list(name) VALUES ('d')"), PW_OK);
	pw_db_rollback(db);
	assert_int_equal(db->depth, 1);
	assert_int_not_equal(pw_db_commit(db), PW_OK);
	assert_int_equal(db->depth, 0);
	assert_int_equal(count_lists(db), 2);

	/* And the next transaction starts clean. */
	assert_int_equal(pw_db_begin(db), PW_OK);
	assert_int_equal(pw_db_exec(db, "INSERT INTO list(name) VALUES ('e')"), PW_OK);
	assert_int_equal(pw_db_commit(db), PW_OK);
	assert_int_equal(count_lists(db), 3);
	pw_db_close(db);
}

/* Every read of db/db.c and db/series.c that can find nothing. */
static void reads(struct pw_db *db, enum pw_status want, bool found_a)
{
	struct pw_msg_head h;
	struct pw_db_stats st;
	char *name = NULL;
	int64_t id = 0;
	bool found = !found_a;

	assert_int_equal(pw_db_message_find(db, "a@example.org", &id, &found), want);
	assert_int_equal(found, found_a);
	assert_int_equal(pw_db_message_head(db, "a@example.org", &h, &found), want);
	assert_int_equal(found, found_a);
	if (found)
		pw_msg_head_release(&h);
	assert_int_equal(pw_db_message_find(db, "b@example.org", &id, &found), want);
	assert_false(found);
	assert_int_equal(pw_db_series_answering(db, "a@example.org",
						"a@example.org", &id), want);
	assert_int_equal(id, 0);
	assert_int_equal(pw_db_message_list(db, 1, &name), want);
	assert_int_equal(name != NULL, found_a);
	g_free(name);
	assert_int_equal(pw_db_cursor_get(db, "mbox", &name), want);
	assert_null(name);
	/* A count that could not be read fails its transaction. */
	assert_int_equal(pw_db_stats(db, &st) != PW_OK, want != PW_OK);
}

/* A progress handler that stops every statement: SQLite refuses reads. */
static int refuse(void *unused)
{
	(void)unused;
	return 1;
}

static void read_errors(void **state)
{
	struct pw_mail m = {
		.msgid = "a@example.org", .kind = PW_MAIL_PATCH,
		.from_name = "", .from_addr = "", .subject = "", .subject_clean = "",
	};
	struct pw_msg_origin from = { .raw = "x", .raw_len = 1 };
	struct pw_db *db = NULL;
	char *err = NULL;
	int64_t id;
	bool is_new, found;

	(void)state;
	assert_int_equal(pw_db_open(":memory:", false, &db, &err), PW_OK);
	assert_int_equal(pw_db_begin(db), PW_OK);
	assert_int_equal(pw_db_message_add(db, &m, &from, "list", &id, &is_new),
			 PW_OK);
	assert_int_equal(pw_db_commit(db), PW_OK);
	/* Found and not found are both reads that went well. */
	reads(db, PW_OK, true);

	/* SQLite stops every statement: every read is an error now, never
	 * "there is none". */
	sqlite3_progress_handler(db->h, 1, refuse, NULL);
	reads(db, PW_ERR_DB, false);
	assert_non_null(strstr(pw_db_errmsg(db), "interrupted"));

	/* A read that failed inside a transaction fails the transaction. */
	sqlite3_progress_handler(db->h, 0, NULL, NULL);
	assert_int_equal(pw_db_begin(db), PW_OK);
	sqlite3_progress_handler(db->h, 1, refuse, NULL);
	assert_int_equal(pw_db_message_find(db, "a@example.org", &id, &found),
			 PW_ERR_DB);
	sqlite3_progress_handler(db->h, 0, NULL, NULL);
	assert_int_equal(pw_db_exec(db, "INSERT INTO list(name) VALUES ('z')"), PW_OK);
	assert_int_equal(pw_db_commit(db), PW_ERR_DB);
	assert_int_equal(count_lists(db), 1);

	/* Let go: the same reads find again. */
	reads(db, PW_OK, true);
	pw_db_close(db);
}

/* Stores message msgid with raw bytes, in a transaction of its own. */
static void add(struct pw_db *db, const char *msgid)
{
	struct pw_mail m = {
		.msgid = (char *)msgid, .kind = PW_MAIL_OTHER,
		.from_name = "", .from_addr = "", .subject = "", .subject_clean = "",
	};
	struct pw_msg_origin from = { .raw = msgid, .raw_len = strlen(msgid) };
	int64_t id;
	bool is_new;

	assert_int_equal(pw_db_begin(db), PW_OK);
	assert_int_equal(pw_db_message_add(db, &m, &from, NULL, &id, &is_new),
			 PW_OK);
	assert_int_equal(pw_db_commit(db), PW_OK);
}

static int64_t raw_rows(struct pw_db *db)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	assert_int_equal(sqlite3_prepare_v2(db->raw, "SELECT count(*) FROM raw",
					    -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int fx_setup(void **state)
{
	*state = fx_open("pw-db-XXXXXX");
	return 0;
}

static void orphans(void **state)
{
	struct fx *f = *state;
	struct pw_db *ro = NULL;
	struct pw_db_backup_info b;
	GPtrArray *problems = g_ptr_array_new_with_free_func(g_free);
	char *err = NULL, *copy = g_build_filename(f->dir, "copy.db", NULL);
	int64_t n = -1;
	int removed = -1;

	add(f->db, "a@example.org");
	assert_int_equal(pw_db_raw_orphans(f->db, false, &n), PW_OK);
	assert_int_equal(n, 0);
	/* Bytes a stopped writer left (raw ids 2 and 3), then a message
	 * stored after them (4) and bytes whose message is gone (5, 6). */
	assert_int_equal(sqlite3_exec(f->db->raw, "INSERT INTO raw(raw)"
				      " VALUES (x'41'), (x'42')", NULL, NULL,
				      NULL), SQLITE_OK);
	add(f->db, "b@example.org");
	add(f->db, "c@example.org");
	add(f->db, "d@example.org");
	assert_int_equal(pw_db_exec(f->db, "DELETE FROM message WHERE msgid"
				    " IN ('c@example.org', 'd@example.org')"),
			 PW_OK);
	assert_int_equal(raw_rows(f->db), 6);
	/* The quick look of every writer's open sees the newest only. */
	assert_int_equal(pw_db_raw_orphans_remove(f->db, &removed), PW_OK);
	assert_int_equal(removed, 2);
	assert_int_equal(pw_db_raw_orphans(f->db, false, &n), PW_OK);
	assert_int_equal(n, 2);

	/* A reader counts them too; only a writer removes them. */
	assert_int_equal(pw_db_open(pw_db_path(f->db), true, &ro, &err), PW_OK);
	assert_int_equal(pw_db_raw_orphans(ro, false, &n), PW_OK);
	assert_int_equal(n, 2);
	assert_int_equal(pw_db_raw_orphans(ro, true, &n), PW_ERR_USAGE);
	assert_int_equal(pw_db_integrity_check(ro, problems), PW_OK);
	assert_int_equal(problems->len, 0);
	pw_db_close(ro);

	/* A backup leaves them out of the copy. */
	assert_int_equal(pw_db_backup(pw_db_path(f->db), copy, &b, &err), PW_OK);
	assert_int_equal(b.messages, 2);
	assert_int_equal(b.raw_dropped, 2);
	assert_int_equal(pw_db_backup(pw_db_path(f->db), copy, &b, &err),
			 PW_ERR_USAGE);
	assert_non_null(strstr(err, "exists"));
	g_free(err);
	err = NULL;
	assert_int_equal(pw_db_open(copy, false, &ro, &err), PW_OK);
	assert_int_equal(raw_rows(ro), 2);
	assert_int_equal(pw_db_raw_orphans(ro, false, &n), PW_OK);
	assert_int_equal(n, 0);
	pw_db_close(ro);

	/* Removed, and the messages keep their bytes. */
	assert_int_equal(pw_db_raw_orphans(f->db, true, &n), PW_OK);
	assert_int_equal(n, 2);
	assert_int_equal(raw_rows(f->db), 2);
	assert_int_equal(pw_db_raw_orphans(f->db, false, &n), PW_OK);
	assert_int_equal(n, 0);
	assert_int_equal(pw_db_integrity_check(f->db, problems), PW_OK);
	assert_int_equal(problems->len, 0);
	g_ptr_array_free(problems, TRUE);
	g_free(copy);
}

/* A reader of a store that has no schema yet waits, then says so. */
static void not_yet(void **state)
{
	struct fx *f = *state;
	struct pw_db *ro = NULL;
	char *err = NULL, *path = g_build_filename(f->dir, "empty.db", NULL);
	gint64 t0;

	assert_true(g_file_set_contents(path, "", 0, NULL));
	t0 = g_get_monotonic_time();
	assert_int_equal(pw_db_open(path, true, &ro, &err), PW_ERR_TRANSIENT);
	assert_true(g_get_monotonic_time() - t0 >= PW_DB_BUSY_MS * 1000 / 2);
	assert_non_null(strstr(err, "another process is creating it"));
	assert_null(strstr(err, "schema version"));
	assert_null(ro);
	g_free(err);
	g_free(path);
}

/*
 * A store that cannot grow (here SQLite's page limit; a full disk
 * alike) is an i/o failure, as the raw store and "db check" told it:
 * not a refusal of the input (PW_ERR_DB), which "db" exits 2 for.
 */
static void full_store(void **state)
{
	struct pw_mail m = {
		.kind = PW_MAIL_PATCH, .from_name = "", .from_addr = "",
		.subject = "", .subject_clean = "",
	};
	struct pw_msg_origin from = { .raw = "x", .raw_len = 1 };
	struct pw_db *db = NULL;
	char *err = NULL, *big = g_strnfill(64 << 10, 'x');
	enum pw_status s = PW_OK;
	int64_t id;
	bool is_new;
	int i;

	(void)state;
	assert_int_equal(pw_db_open(":memory:", false, &db, &err), PW_OK);
	assert_int_equal(pw_db_exec(db, "PRAGMA max_page_count = 200"), PW_OK);
	m.subject = m.subject_clean = big;
	for (i = 0; i < 100 && !s; i++) {
		char *msgid = g_strdup_printf("%d@example.org", i);

		m.msgid = msgid;
		s = pw_db_begin(db);
		if (!s)
			s = pw_db_message_add(db, &m, &from, "list", &id, &is_new);
		if (!s)
			s = pw_db_commit(db);
		else
			pw_db_rollback(db);
		g_free(msgid);
	}
	assert_int_equal(s, PW_ERR_IO);
	assert_non_null(strstr(pw_db_errmsg(db), "full"));
	assert_int_equal(pw_db_status_of(SQLITE_FULL), PW_ERR_IO);
	assert_int_equal(pw_db_status_of(SQLITE_IOERR_WRITE), PW_ERR_IO);
	assert_int_equal(pw_db_status_of(SQLITE_BUSY_SNAPSHOT), PW_ERR_TRANSIENT);
	assert_int_equal(pw_db_status_of(SQLITE_CONSTRAINT), PW_ERR_DB);
	pw_db_close(db);
	g_free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nested),
		cmocka_unit_test(read_errors),
		cmocka_unit_test(full_store),
		cmocka_unit_test_setup_teardown(orphans, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(not_yet, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
