/*
 * Unit tests for checks/maintainers.c: entries read as get_maintainer.pl
 * reads them (F:, X:, N:, the preamble skipped), matched at its depths,
 * and the catch-all entry's maintainer left out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "checks/maintainers.h"

/* Shaped as the kernel's MAINTAINERS: a preamble whose example lines are
 * indented, entries separated by blank lines, THE REST last. */
static const char text[] =
	"List of maintainers\n"
	"===================\n"
	"\n"
	"\tM: *Mail* patches to: FullName <address@domain>\n"
	"\n"
	"Maintainers List\n"
	"----------------\n"
	"\n"
	"HARDWARE MONITORING\n"
	"M:\tGuenter Roeck <Linux@Roeck-US.net>\n"
	"L:\tlinux-hwmon@vger.kernel.org\n"
	"S:\tMaintained\n"
	"F:\tDocumentation/hwmon/\n"
	"F:\tdrivers/hwmon/\n"
	"F:\tinclude/linux/hwmon*.h\n"
	"X:\tdrivers/hwmon/vendor_only.c\n"
	"\n"
	"LM75 HARDWARE MONITOR DRIVER\n"
	"M:\tJean Delvare <jdelvare@suse.com>\n"
	"R:\tA Reviewer <reviewer@example.org>\n"
	"L:\tlinux-hwmon@vger.kernel.org (moderated for non-subscribers)\n"
	"F:\tdrivers/hwmon/lm75.c\n"
	"\n"
	"WATCHDOG DEVICE DRIVERS\n"
	"M:\tWim Van Sebroeck <wim@linux-watchdog.org>\n"
	"F:\tdrivers/watchdog\n"
	"N:\t[_-]wdt\n"
	"\n"
	"THE REST\n"
	"M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
	"L:\tlinux-kernel@vger.kernel.org\n"
	"F:\t*\n"
	"F:\t*/\n";

static struct pw_maintainers *load(void)
{
	return pw_maintainers_parse(text, strlen(text));
}

/* The titles of the entries covering path, most specific first. */
static char *titles(const struct pw_maintainers *m, const char *path)
{
	const struct pw_maint_entry **hits = pw_maintainers_for_path(m, path);
	GString *s = g_string_new(NULL);

	for (size_t i = 0; hits[i]; i++)
		g_string_append_printf(s, "%s%s", i ? "|" : "", hits[i]->title);
	g_free(hits);
	return g_string_free(s, FALSE);
}

static void test_entries(void **state)
{
	struct pw_maintainers *m = load();
	const struct pw_maint_entry **hits;

	(void)state;
	assert_int_equal(pw_maintainers_count(m), 4);
	hits = pw_maintainers_for_path(m, "drivers/hwmon/lm75.c");
	assert_non_null(hits[0]);
	assert_string_equal(hits[0]->title, "LM75 HARDWARE MONITOR DRIVER");
	assert_string_equal(hits[0]->maintainers[0], "jdelvare@suse.com");
	assert_null(hits[0]->maintainers[1]);
	assert_string_equal(hits[0]->reviewers[0], "reviewer@example.org");
	assert_string_equal(hits[0]->lists[0], "linux-hwmon@vger.kernel.org");
	assert_false(hits[0]->catch_all);
	assert_string_equal(hits[1]->maintainers[0], "linux@roeck-us.net");
	assert_true(hits[2]->catch_all);
	assert_null(hits[3]);
	g_free(hits);
	pw_maintainers_free(m);
}

static void test_patterns(void **state)
{
	struct pw_maintainers *m = load();
	static const struct { const char *path, *want; } cases[] = {
		/* A folder pattern covers every depth below it. */
		{ "drivers/hwmon/pmbus/lm25066.c", "HARDWARE MONITORING|THE REST" },
		{ "Documentation/hwmon/lm75.rst", "HARDWARE MONITORING|THE REST" },
		/* A wildcard in a file pattern stays at its depth. */
		{ "include/linux/hwmon-sysfs.h", "HARDWARE MONITORING|THE REST" },
		{ "include/linux/hwmon/x.h", "THE REST" },
		/* X: takes a file out of an entry. */
		{ "drivers/hwmon/vendor_only.c", "THE REST" },
		/* A folder named without its '/' covers what is below. */
		{ "drivers/watchdog/softdog.c", "WATCHDOG DEVICE DRIVERS|THE REST" },
		/* N: matches anywhere in the path. */
		{ "drivers/mfd/foo_wdt.c", "WATCHDOG DEVICE DRIVERS|THE REST" },
		/* Not a prefix of the folder's name. */
		{ "drivers/hwmonx/a.c", "THE REST" },
		{ "Makefile", "THE REST" },
	};

	(void)state;
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *got = titles(m, cases[i].path);

		if (strcmp(got, cases[i].want) != 0)
			fail_msg("%s: got %s, want %s", cases[i].path, got,
				 cases[i].want);
		g_free(got);
	}
	pw_maintainers_free(m);
}

static void test_is_maintainer(void **state)
{
	struct pw_maintainers *m = load();

	(void)state;
	assert_true(pw_maintainers_is_maintainer(m, "drivers/hwmon/lm75.c",
		"Jean Delvare <JDelvare@suse.com>"));
	assert_true(pw_maintainers_is_maintainer(m, "drivers/hwmon/lm75.c",
		"linux@roeck-us.net"));
	/* A reviewer is not a maintainer; nor is anyone for another file. */
	assert_false(pw_maintainers_is_maintainer(m, "drivers/hwmon/lm75.c",
		"reviewer@example.org"));
	assert_false(pw_maintainers_is_maintainer(m, "drivers/hwmon/it87.c",
		"jdelvare@suse.com"));
	/* THE REST's maintainer maintains nothing in particular. */
	assert_false(pw_maintainers_is_maintainer(m, "Makefile",
		"torvalds@linux-foundation.org"));
	assert_false(pw_maintainers_is_maintainer(m, "drivers/hwmon/lm75.c",
		"no address here"));
	pw_maintainers_free(m);
}

static void test_addresses(void **state)
{
	struct pw_maintainers *m = load();
	const char *paths[] = { "drivers/hwmon/lm75.c", "drivers/hwmon/it87.c",
				"Makefile" };
	char **got = pw_maintainers_addresses(m, paths, G_N_ELEMENTS(paths));
	char *joined = g_strjoinv(",", got);

	(void)state;
	assert_string_equal(joined, "jdelvare@suse.com,reviewer@example.org,"
			    "linux@roeck-us.net");
	g_free(joined);
	g_strfreev(got);
	pw_maintainers_free(m);
}

static void test_odd_text(void **state)
{
	/* No final newline, a bad N: regex, an entry with no title. */
	static const char odd[] = "F:\tlib/\nM:\tX <x@y>\nN:\t(unclosed\n"
				  "\nTWO\nM:\tno-at-sign\nF:\tfs/";
	struct pw_maintainers *m = pw_maintainers_parse(odd, sizeof(odd) - 1);
	const struct pw_maint_entry **hits;

	(void)state;
	assert_int_equal(pw_maintainers_count(m), 2);
	hits = pw_maintainers_for_path(m, "fs/a.c");
	assert_non_null(hits[0]);
	assert_string_equal(hits[0]->title, "TWO");
	assert_null(hits[0]->maintainers[0]);
	g_free(hits);
	assert_true(pw_maintainers_is_maintainer(m, "lib/x.c", "x@y"));
	pw_maintainers_free(m);
	m = pw_maintainers_parse("", 0);
	assert_int_equal(pw_maintainers_count(m), 0);
	pw_maintainers_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_is_maintainer),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_odd_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
