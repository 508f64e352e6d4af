/*
 * Unit tests for checks/text.c's text of senders made safe to show (the
 * XML escape that the dashboard's pages and Atom feeds print through,
 * the bidirectional controls a subject line of ours drops) and the DKIM
 * canonical body length that an l= is held to.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/text.h"

static void xml_escape(void **state)
{
	static const struct {
		const char *in;
		gssize len;
		const char *out;
	} cases[] = {
		{ "plain", -1, "plain" },
		{ "<a href='x'>&\"", -1, "&lt;a href=&apos;x&apos;&gt;&amp;&quot;" },
		/* C0 controls XML 1.0 cannot hold, even as &#x1;. */
		{ "a\x01" "b\x0b" "c\x1f" "d", -1, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd" "d" },
		/* Tab, newline and carriage return it can. */
		{ "a\tb\nc\rd", -1, "a\tb\nc\rd" },
		/* U+FFFE and U+FFFF are no characters of XML either. */
		{ "x\xef\xbf\xbe" "y\xef\xbf\xbf", -1, "x\xef\xbf\xbd" "y\xef\xbf\xbd" },
		/* Bad UTF-8 first made valid: no '<' stepped over. */
		{ "\xc3<b>", -1, "\xef\xbf\xbd&lt;b&gt;" },
		/* A NUL inside the length is dropped, not the end. */
		{ "a\0<b", 4, "a&lt;b" },
		{ "", -1, "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = pw_utf8_xml_escape(cases[i].in, cases[i].len);

		assert_string_equal(e, cases[i].out);
		g_free(e);
	}
}

static void bidi_controls(void **state)
{
	static const gunichar yes[] = {
		0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d,
		0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
	};
	static const gunichar no[] = {
		'a', 0x05d0 /* Hebrew alef: right to left, but a letter */,
		0x200d /* zero-width joiner */, 0x2029, 0x2065, 0x206a,
		0x2029, 0x202f,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(pw_utf8_bidi_control(yes[i]));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(pw_utf8_bidi_control(no[i]));
}

#define LEN(s) s, sizeof(s) - 1

static void dkim_body_len(void **state)
{
	static const struct {
		const char *body;
		size_t n;
		size_t simple, relaxed;
	} cases[] = {
		/* RFC 6376 3.4.5: " C\r\nD E\r\n" relaxed, the body
		 * without its two empty lines simple. */
		{ LEN(" C \r\nD \t E\r\n\r\n\r\n"), 12, 9 },
		/* An empty body: one CRLF simple, nothing relaxed. */
		{ LEN(""), 2, 0 },
		{ LEN("\r\n\r\n"), 2, 0 },
		/* A last line without its CRLF gets one. */
		{ LEN("abc"), 5, 5 },
		/* Blanks alone: a line simple, empty relaxed. */
		{ LEN("x\r\n \t \r\n"), 8, 3 },
		/* A NUL byte and a bare CR are text of their line. */
		{ LEN("a\0b\rc\r\n"), 7, 7 },
		/* An appended command line counts, whatever l= says. */
		{ LEN("Thanks.\r\npatchwarden: wrong\r\n"), 29, 29 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(pw_text_dkim_body_len(cases[i].body, cases[i].n,
						       false), cases[i].simple);
		assert_int_equal(pw_text_dkim_body_len(cases[i].body, cases[i].n,
						       true), cases[i].relaxed);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(xml_escape),
		cmocka_unit_test(bidi_controls),
		cmocka_unit_test(dkim_body_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
