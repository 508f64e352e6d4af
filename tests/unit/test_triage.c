/*
 * Unit tests for checks/triage.c: the "patchwarden:" command lines of a
 * reply to the bot, as maintainers and authors write them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/triage.h"

static GPtrArray *parse(const char *s)
{
	return pw_triage_parse(s, strlen(s));
}

static const struct pw_triage_cmd *cmd(GPtrArray *v, guint i)
{
	assert_true(i < v->len);
	return v->pdata[i];
}

static void test_each_verb(void **state)
{
	GPtrArray *v = parse("Thanks.\n"
			     "patchwarden: wrong\n"
			     "patchwarden: ignore PERM_SYMBOLIC drivers/hwmon/*.c octal is not the rule here\n"
			     "patchwarden: recheck\n"
			     "patchwarden: stop\n");

	(void)state;
	assert_int_equal(v->len, 4);
	assert_int_equal(cmd(v, 0)->verb, PW_TRIAGE_WRONG);
	assert_null(cmd(v, 0)->rule);
	assert_null(cmd(v, 0)->reason);
	assert_int_equal(cmd(v, 0)->line, 2);
	assert_int_equal(cmd(v, 1)->verb, PW_TRIAGE_IGNORE);
	assert_string_equal(cmd(v, 1)->rule, "PERM_SYMBOLIC");
	assert_string_equal(cmd(v, 1)->path, "drivers/hwmon/*.c");
	assert_string_equal(cmd(v, 1)->reason, "octal is not the rule here");
	assert_int_equal(cmd(v, 2)->verb, PW_TRIAGE_RECHECK);
	assert_int_equal(cmd(v, 3)->verb, PW_TRIAGE_STOP);
	assert_null(cmd(v, 3)->error);
	g_ptr_array_unref(v);
}

/* Quoted lines are what the bot or someone else said: never obeyed. */
static void test_quoted_lines_ignored(void **state)
{
	GPtrArray *v = parse("> patchwarden: stop\n"
			     ">> patchwarden: wrong\n"
			     " > patchwarden: recheck\n"
			     "As said: patchwarden: wrong\n"
			     "\n");

	(void)state;
	assert_int_equal(v->len, 0);
	g_ptr_array_unref(v);
}

/* Blanks before, any case, CRLF line ends, a rule in lower case. */
static void test_forms(void **state)
{
	GPtrArray *v = parse("  PatchWarden:   Wrong perm_symbolic the mode is right\r\n"
			     "\tpatchwarden: IGNORE perm_style b/drivers/hwmon/lm75.c\r\n"
			     "patchwarden: wrong because I said so\r\n");

	(void)state;
	assert_int_equal(v->len, 3);
	assert_int_equal(cmd(v, 0)->verb, PW_TRIAGE_WRONG);
	assert_string_equal(cmd(v, 0)->rule, "PERM_SYMBOLIC");
	assert_string_equal(cmd(v, 0)->reason, "the mode is right");
	assert_string_equal(cmd(v, 1)->rule, "PERM_STYLE");
	/* The diff's "b/" is not part of the path. */
	assert_string_equal(cmd(v, 1)->path, "drivers/hwmon/lm75.c");
	assert_null(cmd(v, 1)->reason);
	/* A word that is no rule starts the reason, as written. */
	assert_null(cmd(v, 2)->rule);
	assert_string_equal(cmd(v, 2)->reason, "because I said so");
	g_ptr_array_unref(v);
}

/* An ignore without a path; a word that is no path is the reason. */
static void test_ignore_scope(void **state)
{
	GPtrArray *v = parse("patchwarden: ignore PERM_SYMBOLIC\n"
			     "patchwarden: ignore PERM_SYMBOLIC we write S_IRUGO\n");

	(void)state;
	assert_int_equal(v->len, 2);
	assert_null(cmd(v, 0)->path);
	assert_null(cmd(v, 1)->path);
	assert_string_equal(cmd(v, 1)->reason, "we write S_IRUGO");
	g_ptr_array_unref(v);
}

static void test_errors(void **state)
{
	char longpath[400];
	char *line;
	GPtrArray *v;

	(void)state;
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	longpath[10] = '/';
	line = g_strdup_printf("patchwarden: please\n"
			       "patchwarden:\n"
			       "patchwarden: ignore\n"
			       "patchwarden: ignore NO_SUCH_RULE\n"
			       "patchwarden: ignore PERM_STYLE %s\n", longpath);
	v = parse(line);
	assert_int_equal(v->len, 5);
	assert_non_null(cmd(v, 0)->error);
	assert_non_null(strstr(cmd(v, 0)->error, "please"));
	assert_non_null(cmd(v, 1)->error);
	assert_non_null(cmd(v, 2)->error);
	assert_non_null(strstr(cmd(v, 3)->error, "NO_SUCH_RULE"));
	assert_non_null(cmd(v, 4)->error);
	assert_null(cmd(v, 4)->rule);
	g_ptr_array_unref(v);
	g_free(line);
}

/* Hostile input: no NUL at the end, invalid UTF-8, too many commands,
 * a reason too long. */
static void test_bounds(void **state)
{
	GString *g = g_string_new(NULL);
	GPtrArray *v;
	int i;

	(void)state;
	for (i = 0; i < 40; i++)
		g_string_append(g, "patchwarden: recheck\n");
	v = pw_triage_parse(g->str, g->len);
	assert_int_equal(v->len, PW_TRIAGE_MAX_COMMANDS);
	g_ptr_array_unref(v);

	g_string_assign(g, "patchwarden: wrong \xff\xfe ");
	for (i = 0; i < 300; i++)
		g_string_append(g, "word ");
	v = pw_triage_parse(g->str, g->len - 1);	/* no final byte */
	assert_int_equal(v->len, 1);
	assert_true(g_utf8_validate(cmd(v, 0)->reason, -1, NULL));
	assert_true(strlen(cmd(v, 0)->reason) <= PW_TRIAGE_MAX_REASON);
	g_ptr_array_unref(v);

	v = pw_triage_parse("patchwarden: stop", 11);	/* cut short */
	assert_int_equal(v->len, 0);
	g_ptr_array_unref(v);
	g_string_free(g, TRUE);
}

static void test_maybe(void **state)
{
	(void)state;
	assert_true(pw_triage_maybe("x\nPATCHWARDEN: stop", 18));
	assert_false(pw_triage_maybe("patchwarden stop", 16));
	assert_false(pw_triage_maybe("patchwarden:", 11));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_verb),
		cmocka_unit_test(test_quoted_lines_ignored),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_ignore_scope),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_maybe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
