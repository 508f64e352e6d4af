/*
 * Unit tests for db/outbox.c on a real SQLite file: reads that tell
 * "not found" from a database error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <glib/gstdio.h>

#include "db/outbox.h"
#include "db/series.h"

struct fx {
	char *dir;
	struct pw_db *db;
};

static int setup(void **state)
{
	struct fx *f = g_new0(struct fx, 1);
	char *path, *err = NULL;

	f->dir = g_dir_make_tmp("pw-dboutbox-XXXXXX", NULL);
	path = g_build_filename(f->dir, "t.db", NULL);
	assert_int_equal(pw_db_open(path, false, &f->db, &err), PW_OK);
	g_free(path);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	static const char *const files[] = { "t.db", "t.db-wal", "t.db-shm",
					     "t.db-raw", "t.db-raw-wal", "t.db-raw-shm",
					     NULL };
	struct fx *f = *state;
	size_t i;

	pw_db_close(f->db);
	for (i = 0; files[i]; i++) {
		char *p = g_build_filename(f->dir, files[i], NULL);

		g_unlink(p);
		g_free(p);
	}
	g_rmdir(f->dir);
	g_free(f->dir);
	g_free(f);
	return 0;
}

/* Stores one reply answering key; returns its row id. */
static int64_t add_reply(struct fx *f, const char *key, const char *msgid)
{
	struct pw_outbox_new n = {
		.kind = "patch", .answers = key, .state = "pending",
		.msgid = msgid, .mail_from = "bot@example.org",
		.rcpt_to = "ann@example.com", .recipients = "ann@example.com",
		.subject = "Re: x", .raw = "Subject: Re: x\r\n\r\nbody\r\n",
		.raw_len = 24, .now = 50,
	};
	int64_t id;
	bool added;

	assert_int_equal(pw_db_outbox_add(f->db, &n, &id, &added), PW_OK);
	assert_true(added);
	return id;
}

static int interrupt(void *unused)
{
	return 1;
}

static void test_not_found_or_error(void **state)
{
	struct fx *f = *state;
	struct pw_outbox_row *row = NULL;
	struct pw_outbox_msg *m = NULL;
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	int64_t cover, n;
	int total;
	bool found = true;

	add_reply(f, "msg:a@x", "reply-a@example.org");
	/* Absent: no error, and said so. */
	assert_int_equal(pw_db_outbox_answered(f->db, "msg:b@x", &found), PW_OK);
	assert_false(found);
	assert_int_equal(pw_db_outbox_answered(f->db, "msg:a@x", &found), PW_OK);
	assert_true(found);
	assert_int_equal(pw_db_outbox_is_own(f->db, "nobody@x", &found), PW_OK);
	assert_false(found);
	assert_int_equal(pw_db_outbox_get(f->db, 42, false, &row, &found), PW_OK);
	assert_false(found);
	assert_null(row);
	assert_int_equal(pw_db_outbox_message(f->db, 42, &m, &found), PW_OK);
	assert_false(found);
	assert_null(m);
	assert_int_equal(pw_db_outbox_series(f->db, 42, &cover, &total, ids, &found),
			 PW_OK);
	assert_false(found);
	assert_int_equal(pw_db_outbox_count_since(f->db, "ann@example.com", 0, &n), PW_OK);
	assert_int_equal(n, 1);

	/* Every statement now fails as it runs (prepared ones stay cached):
	 * an error, never "not found". */
	sqlite3_progress_handler(f->db->h, 1, interrupt, NULL);
	assert_int_not_equal(pw_db_outbox_answered(f->db, "msg:b@x", &found), PW_OK);
	assert_int_not_equal(pw_db_outbox_is_own(f->db, "nobody@x", &found), PW_OK);
	assert_int_not_equal(pw_db_outbox_get(f->db, 42, false, &row, &found), PW_OK);
	assert_int_not_equal(pw_db_outbox_message(f->db, 42, &m, &found), PW_OK);
	assert_int_not_equal(pw_db_outbox_series(f->db, 42, &cover, &total, ids, &found),
			     PW_OK);
	assert_int_not_equal(pw_db_outbox_count_since(f->db, "ann@example.com", 0, &n),
			     PW_OK);
	sqlite3_progress_handler(f->db->h, 0, NULL, NULL);
	g_array_unref(ids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_found_or_error, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
