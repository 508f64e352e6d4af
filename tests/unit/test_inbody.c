/*
 * Unit tests for checks/inbody.c: in-body From/Subject/Date, the
 * "[PATCH]" first line and the scissors line, by git-mailinfo(1)'s
 * rules.  The scissors lines are those git 2.39's mailinfo --scissors
 * does and does not cut at.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "checks/inbody.h"

static const char *rest(const char *text, const struct pw_inbody *ib)
{
	return text + ib->start;
}

static void forwarded_patch(void **state)
{
	static const char t[] =
		"\n"
		"From: Original Author <orig@example.org>\n"
		"Subject: [PATCH] foo: make it\n"
		" work\n"
		"date: Tue, 2 Jan 2024 10:00:00 +0100\n"
		"\n"
		"The commit message.\n";
	struct pw_inbody ib;

	(void)state;
	pw_inbody_read(t, strlen(t), &ib);
	assert_string_equal(ib.from, "Original Author <orig@example.org>");
	assert_string_equal(ib.subject, "[PATCH] foo: make it work");
	assert_string_equal(ib.date, "Tue, 2 Jan 2024 10:00:00 +0100");
	assert_false(ib.scissors);
	assert_string_equal(rest(t, &ib), "The commit message.\n");
	pw_inbody_release(&ib);
}

static void no_fields(void **state)
{
	static const char t[] = "Just a message.\nFrom: not a field here\n";
	struct pw_inbody ib;

	(void)state;
	pw_inbody_read(t, strlen(t), &ib);
	assert_null(ib.from);
	assert_null(ib.subject);
	assert_null(ib.date);
	assert_int_equal(ib.start, 0);
	pw_inbody_release(&ib);
}

/* A field line followed at once by text: the text is the message. */
static void field_then_text(void **state)
{
	static const char t[] = "From: A <a@example.org>\nText at once.\n";
	struct pw_inbody ib;

	(void)state;
	pw_inbody_read(t, strlen(t), &ib);
	assert_string_equal(ib.from, "A <a@example.org>");
	assert_string_equal(rest(t, &ib), "Text at once.\n");
	pw_inbody_release(&ib);
}

static void patch_first_line(void **state)
{
	static const char t[] = "[PATCH] net: fix it\n\nBecause.\n";
	struct pw_inbody ib;

	(void)state;
	pw_inbody_read(t, strlen(t), &ib);
	assert_string_equal(ib.subject, "[PATCH] net: fix it");
	assert_string_equal(rest(t, &ib), "Because.\n");
	pw_inbody_release(&ib);
}

static void scissors(void **state)
{
	static const char t[] =
		"From: Not Him <no@example.org>\n"
		"\n"
		"Thanks for the report; does this help?\n"
		"\n"
		"-- >8 --\n"
		"Subject: [PATCH] x: the real subject\n"
		"\n"
		"The real message.\n";
	struct pw_inbody ib;

	(void)state;
	pw_inbody_read(t, strlen(t), &ib);
	assert_true(ib.scissors);
	assert_null(ib.from);
	assert_string_equal(ib.subject, "[PATCH] x: the real subject");
	assert_string_equal(rest(t, &ib), "The real message.\n");
	pw_inbody_release(&ib);
}

static void scissors_lines(void **state)
{
	static const char *const yes[] = {
		"-- >8 --", "------------------ 8< ------------------",
		"-- >8 -- cut here -- >8 --", "  --- %< ---", "---->8---- cut",
		"- - - - >8 - - - -", "--------->8",
	};
	static const char *const no[] = {
		"--", "-- >8", "---", ">8", "-->8--",
		"a long line of words with >8 in it --", "",
		"-------------------- 8 --------------------",
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(yes); i++)
		if (!pw_inbody_is_scissors(yes[i], strlen(yes[i])))
			fail_msg("not read as scissors: \"%s\"", yes[i]);
	for (i = 0; i < G_N_ELEMENTS(no); i++)
		if (pw_inbody_is_scissors(no[i], strlen(no[i])))
			fail_msg("read as scissors: \"%s\"", no[i]);
}

/* Each field is taken once; a second From: is message text. */
static void once_each(void **state)
{
	static const char t[] =
		"From: First <f@example.org>\nFrom: Second <s@example.org>\n\nx\n";
	struct pw_inbody ib;

	(void)state;
	pw_inbody_read(t, strlen(t), &ib);
	assert_string_equal(ib.from, "First <f@example.org>");
	assert_string_equal(rest(t, &ib), "From: Second <s@example.org>\n\nx\n");
	pw_inbody_release(&ib);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(forwarded_patch),
		cmocka_unit_test(no_fields),
		cmocka_unit_test(field_then_text),
		cmocka_unit_test(patch_first_line),
		cmocka_unit_test(scissors),
		cmocka_unit_test(scissors_lines),
		cmocka_unit_test(once_each),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
