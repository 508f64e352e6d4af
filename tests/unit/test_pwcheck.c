/*
 * Unit tests for checks/pwcheck.c: the state, description and link of a
 * check reported to Patchwork.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "checks/pwcheck.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void states(void **state)
{
	const struct pw_pwcheck_item w[] = {
		{ "DEVICE_ATTR_FORM", PW_SEV_INFO },
		{ "PERM_SYMBOLIC", PW_SEV_WARNING },
	};
	const struct pw_pwcheck_item e[] = {
		{ "PERM_SYMBOLIC", PW_SEV_WARNING },
		{ "PERM_WORLD_WRITABLE", PW_SEV_ERROR },
	};

	(void)state;
	assert_int_equal(pw_pwcheck_state(NULL, 0, PW_SEV_INFO), PW_PWCHECK_SUCCESS);
	assert_int_equal(pw_pwcheck_state(w, 1, PW_SEV_INFO), PW_PWCHECK_SUCCESS);
	assert_int_equal(pw_pwcheck_state(w, N(w), PW_SEV_INFO), PW_PWCHECK_WARNING);
	assert_int_equal(pw_pwcheck_state(w, N(w), PW_SEV_ERROR), PW_PWCHECK_SUCCESS);
	assert_int_equal(pw_pwcheck_state(e, N(e), PW_SEV_WARNING), PW_PWCHECK_FAIL);
	assert_string_equal(pw_pwcheck_state_str(PW_PWCHECK_FAIL), "fail");
	assert_string_equal(pw_pwcheck_state_str(PW_PWCHECK_WARNING), "warning");
	assert_string_equal(pw_pwcheck_state_str(PW_PWCHECK_SUCCESS), "success");
}

static void descriptions(void **state)
{
	const struct pw_pwcheck_item it[] = {
		{ "DEVICE_ATTR_FORM", PW_SEV_WARNING },
		{ "PERM_WORLD_WRITABLE", PW_SEV_ERROR },
		{ "PERM_WORLD_WRITABLE", PW_SEV_ERROR },
		{ "PERM_UNCOMMON", PW_SEV_INFO },
		/* A series' finding, carried by three of its patches: one. */
		{ "SERIES_OVERSIZED", PW_SEV_WARNING },
		{ "SERIES_OVERSIZED", PW_SEV_WARNING },
		{ "SERIES_OVERSIZED", PW_SEV_WARNING },
		{ "DEVICE_ATTR_FORM", PW_SEV_WARNING },
	};
	char *d;

	(void)state;
	d = pw_pwcheck_description(it, N(it), PW_SEV_WARNING, 255);
	assert_string_equal(d, "2 PERM_WORLD_WRITABLE, 2 DEVICE_ATTR_FORM,"
			    " 1 SERIES_OVERSIZED");
	g_free(d);
	d = pw_pwcheck_description(it, N(it), PW_SEV_INFO, 255);
	assert_string_equal(d, "2 PERM_WORLD_WRITABLE, 2 DEVICE_ATTR_FORM,"
			    " 1 SERIES_OVERSIZED, 1 PERM_UNCOMMON");
	g_free(d);
	d = pw_pwcheck_description(it, 4, PW_SEV_ERROR, 255);
	assert_string_equal(d, "2 PERM_WORLD_WRITABLE");
	g_free(d);
	d = pw_pwcheck_description(NULL, 0, PW_SEV_WARNING, 255);
	assert_string_equal(d, "no findings at or above warning");
	g_free(d);
	assert_true(pw_pwcheck_series_rule("FLOOD"));
	assert_true(pw_pwcheck_series_rule("FLOOD_SERIES"));
	assert_true(pw_pwcheck_series_rule("SERIES_OVERSIZED"));
	assert_false(pw_pwcheck_series_rule("RESEND_IDENTICAL"));
}

/* More rules than fit: the first ones, then the rest counted, within max. */
static void capped(void **state)
{
	struct pw_pwcheck_item it[40];
	char names[40][32];
	size_t i, max;
	char *d;

	(void)state;
	for (i = 0; i < N(it); i++) {
		g_snprintf(names[i], sizeof(names[i]), "RULE_NUMBER_%02zu_OF_MANY", i);
		it[i].rule = names[i];
		it[i].severity = PW_SEV_WARNING;
	}
	d = pw_pwcheck_description(it, N(it), PW_SEV_WARNING, 255);
	assert_true(strlen(d) <= 255);
	assert_true(g_str_has_prefix(d, "1 RULE_NUMBER_00_OF_MANY, 1 RULE_NUMBER_01"));
	assert_non_null(strstr(d, ", and "));
	assert_true(g_str_has_suffix(d, " more rules"));
	/* The rules shown and the count cover all 40. */
	{
		size_t shown = 0;
		const char *p = d;
		unsigned more = 0;

		while ((p = strstr(p, "RULE_NUMBER_"))) {
			shown++;
			p++;
		}
		assert_int_equal(sscanf(strstr(d, ", and ") + 6, "%u", &more), 1);
		assert_int_equal(shown + more, 40);
	}
	g_free(d);
	/* Every cap from 40 up stays within it, whole rules only. */
	for (max = 40; max <= 300; max++) {
		d = pw_pwcheck_description(it, N(it), PW_SEV_WARNING, max);
		assert_true(strlen(d) <= max);
		assert_true(g_str_has_suffix(d, "OF_MANY") ||
			    g_str_has_suffix(d, " more rules") ||
			    g_str_has_suffix(d, " more rule") ||
			    g_str_has_suffix(d, " rules"));
		g_free(d);
	}
	/* One rule that does not fit alone: counted. */
	d = pw_pwcheck_description(it, N(it), PW_SEV_WARNING, 40);
	assert_string_equal(d, "40 findings of 40 rules");
	g_free(d);
}

static void contexts(void **state)
{
	char *longest = g_strnfill(255, 'a'), *over = g_strnfill(256, 'a');

	(void)state;
	assert_true(pw_pwcheck_context_ok("patchwarden"));
	assert_true(pw_pwcheck_context_ok("pw-check_2"));
	assert_true(pw_pwcheck_context_ok(longest));
	assert_false(pw_pwcheck_context_ok(over));
	assert_false(pw_pwcheck_context_ok(""));
	assert_false(pw_pwcheck_context_ok("not a slug"));
	assert_false(pw_pwcheck_context_ok("dots.are.not"));
	assert_false(pw_pwcheck_context_ok(NULL));
	g_free(longest);
	g_free(over);
}

static void target_urls(void **state)
{
	char *u, *id;

	(void)state;
	u = pw_pwcheck_target_url("https://d.example.org/pw/", "a/b@c", 200);
	assert_string_equal(u, "https://d.example.org/pw/message/a%2Fb%40c");
	g_free(u);
	assert_null(pw_pwcheck_target_url(NULL, "a@b", 200));
	assert_null(pw_pwcheck_target_url("", "a@b", 200));
	/* Over 200 characters: none rather than one Patchwork refuses. */
	id = g_strnfill(190, 'x');
	assert_null(pw_pwcheck_target_url("https://d.example.org", id, 200));
	g_free(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(states),
		cmocka_unit_test(descriptions),
		cmocka_unit_test(capped),
		cmocka_unit_test(contexts),
		cmocka_unit_test(target_urls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
