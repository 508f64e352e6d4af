/*
 * Unit tests for bot/cli.c's checks of the command line: --threads is
 * 1 to 256 whatever its spelling, inputs are opened (never waited on)
 * before anything is stored, and "-" alone is mail piped in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <glib.h>

#include "bot/cli.h"

static void threads_in_range(void **state)
{
	int n = -1;

	(void)state;
	assert_true(pw_cli_threads("ingest", NULL, &n));
	assert_int_equal(n, 0);		/* not given: one per core */
	assert_true(pw_cli_threads("ingest", "1", &n));
	assert_int_equal(n, 1);
	assert_true(pw_cli_threads("ingest", "256", &n));
	assert_int_equal(n, 256);
}

static void threads_out_of_range(void **state)
{
	const char *bad[] = { "0", "257", "100000", "-1", "", "abc", "4x",
			      "1e3", " 4", "-2147483648", "99999999999999999999" };
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(bad); i++) {
		n = -1;
		assert_false(pw_cli_threads("ingest", bad[i], &n));
		assert_int_equal(n, 0);
	}
}

static void inputs_opened(void **state)
{
	char *dir = g_dir_make_tmp("pw-cli-XXXXXX", NULL);
	char *file = g_build_filename(dir, "m.eml", NULL);
	char *fifo = g_build_filename(dir, "fifo", NULL);
	char *missing = g_build_filename(dir, "missing", NULL);
	char *below = g_build_filename(file, "x", NULL);

	(void)state;
	assert_non_null(dir);
	assert_true(g_file_set_contents(file, "From: a@b\n\nx\n", -1, NULL));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_true(pw_cli_inputs_ok("ingest", (char *[]){ "-", file, dir }, 3));
	/* A named pipe with no writer is not waited on. */
	assert_true(pw_cli_inputs_ok("ingest", (char *[]){ fifo }, 1));
	assert_false(pw_cli_inputs_ok("ingest", (char *[]){ file, missing }, 2));
	assert_false(pw_cli_inputs_ok("ingest", (char *[]){ below }, 1));
	assert_true(pw_cli_inputs_ok("ingest", NULL, 0));
	unlink(fifo);
	unlink(file);
	rmdir(dir);
	g_free(below);
	g_free(missing);
	g_free(fifo);
	g_free(file);
	g_free(dir);
}

/* A row's ID: a decimal number above 0, nothing around it. */
static void row_ids(void **state)
{
	int64_t id = -1;

	(void)state;
	assert_true(pw_cli_parse_id("42", &id));
	assert_int_equal(id, 42);
	assert_true(pw_cli_parse_id("9223372036854775807", &id));
	assert_int_equal(id, G_MAXINT64);
	id = 7;
	assert_false(pw_cli_parse_id("0", &id));
	assert_false(pw_cli_parse_id("-3", &id));
	assert_false(pw_cli_parse_id("", &id));
	assert_false(pw_cli_parse_id("12x", &id));
	assert_false(pw_cli_parse_id("x12", &id));
	assert_int_equal(id, 7);
}

static void inputs_piped(void **state)
{
	(void)state;
	assert_true(pw_cli_inputs_piped((char *[]){ "-" }, 1));
	assert_true(pw_cli_inputs_piped((char *[]){ "-", "-" }, 2));
	assert_false(pw_cli_inputs_piped((char *[]){ "-", "m.eml" }, 2));
	assert_false(pw_cli_inputs_piped((char *[]){ "./-" }, 1));
	assert_false(pw_cli_inputs_piped(NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(threads_in_range),
		cmocka_unit_test(threads_out_of_range),
		cmocka_unit_test(inputs_opened),
		cmocka_unit_test(inputs_piped),
		cmocka_unit_test(row_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
