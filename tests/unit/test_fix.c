/*
 * Unit tests for checks/fix.c: the corrected copy "check --fix" writes,
 * from text and findings alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/fix.h"
#include "checks/patch.h"

/* A finding that rewrites bytes [from, to) of line no with rep. */
static void add(GPtrArray *fs, bool diff, int no, size_t from, size_t to,
		const char *rep)
{
	struct pw_finding *f = pw_finding_new("PERM_SYMBOLIC", PW_SEV_WARNING,
					      "a.c", diff ? 7 : no, 1, "m");

	f->patch_no = diff ? no : 0;
	f->fix_from = from;
	f->fix_to = to;
	f->replacement = g_strdup(rep);
	g_ptr_array_add(fs, f);
}

static char *apply(const char *text, bool diff, GPtrArray *fs)
{
	GString *out = g_string_new("kept:");

	pw_fix_apply(text, strlen(text), diff, fs, out);
	return g_string_free(out, FALSE);
}

static GPtrArray *findings(void)
{
	return g_ptr_array_new_with_free_func((GDestroyNotify)pw_finding_free);
}

static void source_file(void **state)
{
	GPtrArray *fs = findings();
	char *s;

	/* Two fixes of one line, given left to right, applied right to
	 * left so that the first's offsets still hold. */
	add(fs, false, 2, 5, 12, "0644");
	add(fs, false, 2, 14, 21, "0444");
	/* A finding without a fix, and one of no line, change nothing. */
	g_ptr_array_add(fs, pw_finding_new("X", PW_SEV_INFO, "a.c", 1, 0, "m"));
	add(fs, false, 0, 0, 1, "nothing");
	s = apply("one\nmode S_IRUGO, S_IRUSR;\nthree", false, fs);
	assert_string_equal(s, "kept:one\nmode 0644, 0444;\nthree");
	g_free(s);
	g_ptr_array_unref(fs);
}

static void diff_lines(void **state)
{
	GPtrArray *fs = findings();
	char *s;

	/* A diff line's span is past its '+'; its CRLF end is kept. */
	add(fs, true, 2, 0, 1, "B");
	s = apply("@@ -1 +1 @@\n+a b\r\n", true, fs);
	assert_string_equal(s, "kept:@@ -1 +1 @@\n+B b\r\n");
	g_free(s);
	g_ptr_array_unref(fs);
}

static void overlap_and_bounds(void **state)
{
	GPtrArray *fs = findings();
	char *s;

	/* The right one is applied; the overlapping left one skipped; one
	 * past the line's end is skipped too. */
	add(fs, false, 1, 2, 6, "X");
	add(fs, false, 1, 4, 8, "Y");
	add(fs, false, 1, 5, 99, "Z");
	s = apply("abcdefghij", false, fs);
	assert_string_equal(s, "kept:abcdYij");
	g_free(s);
	g_ptr_array_unref(fs);

	/* A fix that holds another (the whole DEVICE_ATTR() call beside
	 * its mode's spelling) takes its place, whatever their order. */
	fs = findings();
	add(fs, false, 1, 4, 6, "V");
	add(fs, false, 1, 2, 9, "W");
	add(fs, false, 1, 0, 1, "A");
	s = apply("abcdefghij", false, fs);
	assert_string_equal(s, "kept:AbWj");
	g_free(s);
	g_ptr_array_unref(fs);

	/* No findings: the text as it is, a NUL byte included. */
	fs = findings();
	{
		GString *out = g_string_new(NULL);

		pw_fix_apply("a\0b\n", 4, true, fs, out);
		assert_int_equal(out->len, 4);
		assert_memory_equal(out->str, "a\0b\n", 4);
		g_string_free(out, TRUE);
	}
	g_ptr_array_unref(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(source_file),
		cmocka_unit_test(diff_lines),
		cmocka_unit_test(overlap_and_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
