/*
 * Unit tests for checks/identity.c: how a message's sender is judged
 * from its DKIM result and what the store saw signed before, the name
 * its floods group under, and what each kind of sender may draw.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "checks/flood.h"
#include "checks/identity.h"

static void judge(void **state)
{
	/* A valid signature authenticates, whatever came before. */
	assert_int_equal(pw_identity_judge(true, false, false), PW_AUTH_DKIM);
	assert_int_equal(pw_identity_judge(true, true, true), PW_AUTH_DKIM);
	/* Unsigned, from an address or domain never seen signed: as
	 * every sender was before. */
	assert_int_equal(pw_identity_judge(false, false, false), PW_AUTH_NONE);
	/* Unsigned (or failing), in the name of one that signs. */
	assert_int_equal(pw_identity_judge(false, true, false), PW_AUTH_LOOKALIKE);
	assert_int_equal(pw_identity_judge(false, false, true), PW_AUTH_LOOKALIKE);
	/* Stored values: never renumbered. */
	assert_int_equal(PW_AUTH_NONE, 0);
	assert_int_equal(PW_AUTH_DKIM, 1);
	assert_int_equal(PW_AUTH_LOOKALIKE, 2);
}

static void flood_sender(void **state)
{
	char *none = pw_identity_flood_sender("dev@kernel.example", PW_AUTH_NONE);
	char *fake = pw_identity_flood_sender("dev@kernel.example", PW_AUTH_LOOKALIKE);
	char *dkim = pw_identity_flood_sender("dev@kernel.example", PW_AUTH_DKIM);

	/* Unauthenticated mail keeps its address: stored keys still match. */
	assert_string_equal(none, "dev@kernel.example");
	assert_string_equal(fake, none);
	/* Signed mail groups apart: no key of the one is a key of the other. */
	assert_string_not_equal(dkim, none);
	/* A bare address has no space: no address is that name. */
	assert_non_null(strchr(dkim, ' '));
	assert_true(pw_flood_key(0, dkim, "fix") != pw_flood_key(0, none, "fix"));
	assert_true(pw_flood_key(3, dkim, "id") != pw_flood_key(3, fake, "id"));
	g_free(none);
	g_free(fake);
	g_free(dkim);
	none = pw_identity_flood_sender(NULL, PW_AUTH_NONE);
	assert_string_equal(none, "");
	g_free(none);
}

static void consequences(void **state)
{
	assert_null(pw_identity_hold(PW_AUTH_NONE));
	assert_null(pw_identity_hold(PW_AUTH_DKIM));
	assert_non_null(pw_identity_hold(PW_AUTH_LOOKALIKE));
	assert_int_equal(pw_identity_cc_arbitrary(PW_AUTH_LOOKALIKE), 0);
	assert_int_equal(pw_identity_cc_arbitrary(PW_AUTH_NONE),
			 PW_IDENTITY_CC_UNSIGNED);
	assert_int_equal(pw_identity_cc_arbitrary(PW_AUTH_DKIM),
			 PW_IDENTITY_CC_SIGNED);
	assert_true(PW_IDENTITY_CC_UNSIGNED <= PW_IDENTITY_CC_SIGNED);
	assert_true(pw_identity_own_budget(PW_AUTH_DKIM));
	assert_false(pw_identity_own_budget(PW_AUTH_NONE));
	assert_false(pw_identity_own_budget(PW_AUTH_LOOKALIKE));
}

static void author(void **state)
{
	/* An author who never signed: copied, as before. */
	assert_true(pw_identity_author_ok(PW_AUTH_NONE, "m@evil.example",
					  "dev@kernel.example", false));
	/* One who signs: not on an unsigned poster's word, nor on a
	 * signature of another domain. */
	assert_false(pw_identity_author_ok(PW_AUTH_NONE, "m@evil.example",
					   "dev@kernel.example", true));
	assert_false(pw_identity_author_ok(PW_AUTH_DKIM, "m@evil.example",
					   "dev@kernel.example", true));
	/* A colleague of the same signing domain posted it. */
	assert_true(pw_identity_author_ok(PW_AUTH_DKIM, "ops@Kernel.example",
					  "dev@kernel.example", true));
	assert_false(pw_identity_author_ok(PW_AUTH_LOOKALIKE, "ops@kernel.example",
					   "dev@kernel.example", true));
}

static void domain(void **state)
{
	assert_string_equal(pw_identity_domain("dev@kernel.example"), "kernel.example");
	assert_string_equal(pw_identity_domain("a@b@c.example"), "c.example");
	assert_string_equal(pw_identity_domain("nobody"), "");
	assert_string_equal(pw_identity_domain(NULL), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(judge),
		cmocka_unit_test(flood_sender),
		cmocka_unit_test(consequences),
		cmocka_unit_test(author),
		cmocka_unit_test(domain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
