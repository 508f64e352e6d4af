/*
 * Unit tests for db/db.c transactions: nesting, and a rollback inside
 * one that fails the whole; and reads that tell "not found" from a
 * store they could not read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "db/db-private.h"
#include "db/series.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nested),
		cmocka_unit_test(read_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
