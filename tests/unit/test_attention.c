/*
 * Unit tests for db/attention.h: the rule names its triggers and its
 * recount leave out, written in SQL, are flood detection's rules of
 * checks/rules.def, each once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/rules.h"
#include "db/attention.h"

static void flood_rules(void **state)
{
	static const int rules[] = {
		PW_R_FLOOD, PW_R_FLOOD_SERIES, PW_R_RESEND_IDENTICAL,
		PW_R_SERIES_OVERSIZED,
	};
	const char *sql = PW_ATTENTION_FLOOD_RULES;
	size_t i, quotes = 0;

	(void)state;
	for (i = 0; sql[i]; i++)
		quotes += sql[i] == '\'';
	/* Four names, quoted, and no other. */
	assert_int_equal(quotes, 2 * G_N_ELEMENTS(rules));
	for (i = 0; i < G_N_ELEMENTS(rules); i++) {
		char *quoted = g_strdup_printf("'%s'", pw_rule_at(rules[i])->id);

		assert_non_null(strstr(sql, quoted));
		g_free(quoted);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flood_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
