/*
 * Unit tests for db/db.c transactions: nesting, and a rollback inside
 * one that fails the whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "db/db-private.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
