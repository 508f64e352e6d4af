/*
 * Unit tests for subscriptions: the store's rows (db/subscription.c) on
 * a real SQLite file, and what bot/subscription.c decides without a
 * source (names, durations, kinds, backoff).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bot/subscription.h"
#include "db/subscription.h"
#include "tests/unit/store_fixture.h"

static int setup(void **state)
{
	*state = fx_open("pw-sub-XXXXXX");
	return 0;
}

static int teardown(void **state)
{
	return fx_teardown(state);
}

static int64_t add(struct fx *f, const char *name, const char *url)
{
	struct pw_subscription s = { .name = (char *)name, .url = (char *)url,
				     .kind = "public-inbox", .interval = 60 };
	int64_t id = 0;

	assert_int_equal(pw_db_subscription_add(f->db, &s, &id), PW_OK);
	assert_true(id > 0);
	return id;
}

static void test_rows(void **state)
{
	struct fx *f = *state;
	struct pw_subscription s = { .name = "hwmon", .url = "https://x/",
				     .kind = "public-inbox", .interval = 60 };
	struct pw_subscription got;
	GPtrArray *all;
	int64_t id = add(f, "hwmon", "https://lore.example.org/linux-hwmon/");
	char *v = NULL;
	bool found;

	add(f, "alpha", "/srv/alpha");
	/* A name is taken once. */
	assert_int_equal(pw_db_subscription_add(f->db, &s, NULL), PW_ERR_INPUT);

	assert_int_equal(pw_db_subscription_list(f->db, &all), PW_OK);
	assert_int_equal(all->len, 2);
	assert_string_equal(((struct pw_subscription *)all->pdata[0])->name, "alpha");
	g_ptr_array_free(all, TRUE);

	assert_int_equal(pw_db_subscription_get(f->db, "hwmon", &got, &found), PW_OK);
	assert_true(found);
	assert_int_equal(got.id, id);
	assert_false(got.backfilled);
	assert_false(got.paused);
	assert_int_equal(got.failures, 0);
	assert_null(got.last_error);
	pw_subscription_release(&got);

	/* Two failures, then a success: the count and error go. */
	assert_int_equal(pw_db_subscription_polled(f->db, id, 100, "refused", 130),
			 PW_OK);
	assert_int_equal(pw_db_subscription_polled(f->db, id, 200, "refused", 260),
			 PW_OK);
	assert_int_equal(pw_db_subscription_get(f->db, "hwmon", &got, &found), PW_OK);
	assert_int_equal(got.failures, 2);
	assert_string_equal(got.last_error, "refused");
	assert_int_equal(got.last_ok, 0);
	assert_int_equal(got.next_poll, 260);
	pw_subscription_release(&got);
	assert_int_equal(pw_db_subscription_brought(f->db, id, 3), PW_OK);
	assert_int_equal(pw_db_subscription_brought(f->db, id, 4), PW_OK);
	assert_int_equal(pw_db_subscription_polled(f->db, id, 300, NULL, 360), PW_OK);
	assert_int_equal(pw_db_subscription_backfilled(f->db, id), PW_OK);
	assert_int_equal(pw_db_subscription_get(f->db, "hwmon", &got, &found), PW_OK);
	assert_int_equal(got.failures, 0);
	assert_null(got.last_error);
	assert_int_equal(got.last_ok, 300);
	assert_int_equal(got.messages, 7);
	assert_true(got.backfilled);
	pw_subscription_release(&got);

	/* Pause and resume; an unknown name is not found. */
	assert_int_equal(pw_db_subscription_pause(f->db, "hwmon", true, &found), PW_OK);
	assert_true(found);
	assert_int_equal(pw_db_subscription_get(f->db, "hwmon", &got, &found), PW_OK);
	assert_true(got.paused);
	pw_subscription_release(&got);
	assert_int_equal(pw_db_subscription_pause(f->db, "nope", false, &found), PW_OK);
	assert_false(found);

	/* Removal takes its cursors, not another's. */
	assert_int_equal(pw_db_cursor_set(f->db, "sub:1:git/0", "abc"), PW_OK);
	assert_int_equal(pw_db_cursor_set(f->db, "sub:10:git/0", "def"), PW_OK);
	assert_int_equal(pw_db_subscription_remove(f->db, "hwmon", &found), PW_OK);
	assert_true(found);
	assert_int_equal(pw_db_cursor_get(f->db, "sub:1:git/0", &v), PW_OK);
	assert_null(v);
	assert_int_equal(pw_db_cursor_get(f->db, "sub:10:git/0", &v), PW_OK);
	assert_string_equal(v, "def");
	g_free(v);
	assert_int_equal(pw_db_subscription_remove(f->db, "hwmon", &found), PW_OK);
	assert_false(found);
}

static void test_names_and_durations(void **state)
{
	int64_t s = 0;

	(void)state;
	assert_true(pw_subscription_name_ok("linux-hwmon"));
	assert_true(pw_subscription_name_ok("lkml.2024_a"));
	assert_false(pw_subscription_name_ok(""));
	assert_false(pw_subscription_name_ok(".hidden"));
	assert_false(pw_subscription_name_ok("a/b"));
	assert_false(pw_subscription_name_ok("../x"));
	assert_false(pw_subscription_name_ok("a b"));

	assert_true(pw_duration_parse("90", &s));
	assert_int_equal(s, 90);
	assert_true(pw_duration_parse("30s", &s));
	assert_int_equal(s, 30);
	assert_true(pw_duration_parse("5m", &s));
	assert_int_equal(s, 300);
	assert_true(pw_duration_parse("2h", &s));
	assert_int_equal(s, 7200);
	assert_true(pw_duration_parse("1d", &s));
	assert_int_equal(s, 86400);
	assert_false(pw_duration_parse("0", &s));
	assert_false(pw_duration_parse("-5", &s));
	assert_false(pw_duration_parse("5x", &s));
	assert_false(pw_duration_parse("31d", &s));
	assert_false(pw_duration_parse("m", &s));
	assert_false(pw_duration_parse(NULL, &s));
}

static void test_kinds(void **state)
{
	char *r = NULL, *err = NULL;
	char *dir = g_dir_make_tmp("pw-kind-XXXXXX", NULL);
	char *md = g_build_filename(dir, "md", NULL);
	char *sub;

	(void)state;
	assert_string_equal(pw_subscription_kind("imaps://h/INBOX", &r, &err), "imap");
	g_free(r);
	assert_string_equal(pw_subscription_kind("https://lore.kernel.org/x/", &r, &err),
			    "public-inbox");
	g_free(r);
	assert_null(pw_subscription_kind("ftp://h/x", &r, &err));
	assert_non_null(strstr(err, "not a URL"));
	g_clear_pointer(&err, g_free);
	assert_null(pw_subscription_kind(dir, &r, &err));	/* empty folder */
	assert_non_null(strstr(err, "neither"));
	g_clear_pointer(&err, g_free);
	sub = g_build_filename(md, "cur", NULL);
	g_mkdir_with_parents(sub, 0755);
	g_free(sub);
	sub = g_build_filename(md, "new", NULL);
	g_mkdir_with_parents(sub, 0755);
	g_free(sub);
	sub = g_build_filename(md, "tmp", NULL);
	g_mkdir_with_parents(sub, 0755);
	g_free(sub);
	assert_string_equal(pw_subscription_kind(md, &r, &err), "maildir");
	assert_string_equal(r, md);	/* absolute already */
	g_free(r);
	g_rmdir(md);
	g_free(md);
	g_rmdir(dir);
	g_free(dir);
}

static void test_backoff(void **state)
{
	struct pw_subscription s = { .interval = 5 };

	(void)state;
	/* 30 s, doubling, up to an hour... */
	assert_int_equal(pw_subscription_backoff(&s, 1), 30);
	assert_int_equal(pw_subscription_backoff(&s, 2), 60);
	assert_int_equal(pw_subscription_backoff(&s, 4), 240);
	assert_int_equal(pw_subscription_backoff(&s, 8), 3600);
	assert_int_equal(pw_subscription_backoff(&s, 500), 3600);
	/* ... never sooner than the interval. */
	s.interval = 300;
	assert_int_equal(pw_subscription_backoff(&s, 1), 300);
	assert_int_equal(pw_subscription_backoff(&s, 5), 480);
	s.interval = 86400;
	assert_int_equal(pw_subscription_backoff(&s, 9), 86400);
}

/* One state for every view, with its reason and when it changes. */
static void test_state(void **state)
{
	struct pw_subscription s = { .name = "hwmon", .interval = 300,
				     .created_at = 1000 };
	int64_t until;
	char *why;

	(void)state;
	/* Before its first poll: new, until 900 s (three intervals) pass. */
	assert_string_equal(pw_subscription_state(&s, 0, 1100, &why, &until), "new");
	assert_string_equal(why, "not polled yet");
	assert_int_equal(until, 1000 + 900 + 1);
	g_free(why);
	assert_string_equal(pw_subscription_state(&s, 0, 1900, NULL, NULL), "new");
	assert_string_equal(pw_subscription_state(&s, 0, 1901, &why, &until), "stale");
	assert_string_equal(why, "no successful poll since it was subscribed"
			    " 15 min ago (stale after 15 min)");
	assert_int_equal(until, 0);
	g_free(why);
	/* Polled well; then no service: stale, the next poll overdue. */
	s.last_poll = s.last_ok = 5000;
	s.next_poll = 5300;
	assert_string_equal(pw_subscription_state(&s, 0, 5100, &why, NULL), "ok");
	assert_string_equal(why, "last successful poll 100 s ago");
	g_free(why);
	assert_string_equal(pw_subscription_state(&s, 0, 5000 + 7200, &why, NULL),
			    "stale");
	assert_string_equal(why, "no successful poll for 2 h (stale after 15 min);"
			    " its next poll was due 115 min ago: is the service"
			    " running?");
	g_free(why);
	/* [web] stale_after rules when set. */
	assert_string_equal(pw_subscription_state(&s, 10000, 5000 + 7200, NULL,
						  NULL), "ok");
	assert_int_equal(pw_subscription_stale_after(&s, 10000), 10000);
	assert_int_equal(pw_subscription_stale_after(&s, 0), 900);
	/* Failing: its last poll failed, not yet for long. */
	s.failures = 2;
	s.last_error = (char *)"open: No such\nfile";
	assert_string_equal(pw_subscription_state(&s, 0, 5400, &why, NULL), "failing");
	assert_string_equal(why, "its last 2 polls failed: open: No such file");
	g_free(why);
	/* Failing for long: stale, with the failure. */
	assert_string_equal(pw_subscription_state(&s, 0, 9000, &why, NULL), "stale");
	assert_string_equal(why, "no successful poll for 66 min (stale after 15 min);"
			    " its last 2 polls failed: open: No such file");
	g_free(why);
	/* Paused outranks all. */
	s.paused = true;
	assert_string_equal(pw_subscription_state(&s, 0, 99999, &why, &until), "paused");
	assert_int_equal(until, 0);
	g_free(why);
	/* Spans for people. */
	why = pw_subscription_span(3 * 86400 + 5);
	assert_string_equal(why, "3 days");
	g_free(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rows, setup, teardown),
		cmocka_unit_test(test_names_and_durations),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
