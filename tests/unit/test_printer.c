/*
 * Unit tests for bot/printer.c's HTML rows (the dashboard's tables and
 * feeds): every value escaped, invalid UTF-8 never hiding a '<' from
 * the page UTF-8, URLs percent-encoded, Unix times shown as ISO 8601; and
 * that text output keeps values byte for byte, as before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "bot/printer.h"

/* One record of (key, value) pairs through layout in format f. */
static char *render(enum pw_format f, const char *layout, const char *key,
		    const char *value)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct pw_printer *p = pw_printer_new(f, out, layout, 0);

	pw_print_begin_list(p);
	pw_print_begin_record(p);
	pw_print_str_at(p, key, value);
	pw_print_int_at(p, "when", 1470096193);
	pw_print_strv_at(p, "lists", (char *[]){ "a<b", "c&d", NULL });
	pw_print_end(p);
	pw_print_end(p);
	pw_printer_free(p);
	fclose(out);
	return buf;
}

static void html_escapes_values(void **state)
{
	char *s = render(PW_FORMAT_HTML, "<td>%(subject)</td>", "subject",
			 "<script>x('1')</script> \"onmouseover=y &");

	assert_string_equal(s, "<td>&lt;script&gt;x(&apos;1&apos;)&lt;/script&gt;"
			    " &quot;onmouseover=y &amp;</td>");
	free(s);
}

static void html_escapes_list_elements(void **state)
{
	char *s = render(PW_FORMAT_HTML, "%(each:lists)[%(.)]%(end)", "x", "");

	assert_string_equal(s, "[a&lt;b][c&amp;d]");
	free(s);
}

static void html_invalid_utf8_made_valid(void **state)
{
	/* A three-byte lead byte before "<s": the page stays UTF-8 (the
	 * bad byte replaced) and the tag escaped. */
	char *s = render(PW_FORMAT_HTML, "%(subject)", "subject",
			 "a\xe2<script>");

	assert_true(g_utf8_validate(s, -1, NULL));
	assert_null(strchr(s, '<'));
	assert_non_null(strstr(s, "&lt;script&gt;"));
	free(s);
}

static void html_url_then_escaped(void **state)
{
	char *s = render(PW_FORMAT_HTML, "<a href=\"/m/%(id:url)\">", "id",
			 "a/&x=1?\"@b");

	assert_string_equal(s, "<a href=\"/m/a%2F%26x%3D1%3F%22%40b\">");
	free(s);
}

static void time_modifier(void **state)
{
	char *s = render(PW_FORMAT_TEXT, "%(when:time)", "x", "");

	assert_string_equal(s, "2016-08-02T00:03:13Z");
	free(s);
}

static void text_keeps_bytes(void **state)
{
	char *s = render(PW_FORMAT_TEXT, "%(subject)", "subject", "<b>&\xff");

	assert_string_equal(s, "<b>&\xff");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(html_escapes_values),
		cmocka_unit_test(html_escapes_list_elements),
		cmocka_unit_test(html_invalid_utf8_made_valid),
		cmocka_unit_test(html_url_then_escaped),
		cmocka_unit_test(time_modifier),
		cmocka_unit_test(text_keeps_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
