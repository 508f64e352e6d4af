/*
 * Unit tests for checks/patch.c: the index of added lines by their line
 * in the diff text, and the findings given the text of their line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/patch.h"

static const char diff[] =
	"diff --git a/a.c b/a.c\n"		/* 1 */
	"--- a/a.c\n"				/* 2 */
	"+++ b/a.c\n"				/* 3 */
	"@@ -1,2 +1,3 @@\n"			/* 4 */
	" int x;\n"				/* 5 */
	"-int y;\n"				/* 6 */
	"+int y = 1;\n"				/* 7 */
	"+int z;\r\n"				/* 8 */
	"diff --git a/b.sh b/b.sh\n"		/* 9 */
	"--- a/b.sh\n"				/* 10 */
	"+++ b/b.sh\n"				/* 11 */
	"@@ -5,0 +6,1 @@\n"			/* 12 */
	"+chmod 0666 f\n";			/* 13 */

static void test_added_line(void **state)
{
	struct pw_patch *p = pw_diff_parse(diff, strlen(diff));
	const struct pw_dline *d;
	int i;

	d = pw_patch_added_line(p, 7);
	assert_non_null(d);
	assert_int_equal(d->new_no, 2);
	assert_int_equal((int)d->len, 10);
	assert_memory_equal(d->text, "int y = 1;", 10);
	d = pw_patch_added_line(p, 8);
	assert_int_equal((int)d->len, 6);
	d = pw_patch_added_line(p, 13);
	assert_non_null(d);
	assert_int_equal(d->new_no, 6);
	assert_memory_equal(d->text, "chmod 0666 f", 12);
	/* Context, removed and header lines, and lines past the end. */
	for (i = -1; i <= 20; i++)
		if (i != 7 && i != 8 && i != 13)
			assert_null(pw_patch_added_line(p, i));
	pw_patch_free(p);
}

static void test_quote_findings(void **state)
{
	struct pw_patch *p = pw_diff_parse(diff, strlen(diff));
	GPtrArray *v = g_ptr_array_new_with_free_func((GDestroyNotify)pw_finding_free);
	struct pw_finding *on = pw_finding_new("R", PW_SEV_ERROR, "b.sh", 6, 7, "m");
	struct pw_finding *ctx = pw_finding_new("R", PW_SEV_ERROR, "a.c", 1, 1, "m");
	struct pw_finding *file = pw_finding_new("R", PW_SEV_ERROR, "a.c", 0, 0, "m");

	on->patch_no = 13;
	ctx->patch_no = 5;	/* a context line: nothing to quote */
	file->patch_no = 1;
	g_ptr_array_add(v, on);
	g_ptr_array_add(v, ctx);
	g_ptr_array_add(v, file);
	pw_patch_quote_findings(p, v);
	assert_string_equal(on->added_line, "chmod 0666 f");
	assert_null(ctx->added_line);
	assert_null(file->added_line);
	g_ptr_array_unref(v);
	pw_patch_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_added_line),
		cmocka_unit_test(test_quote_findings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
