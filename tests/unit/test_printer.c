/*
 * Unit tests for bot/printer.c's HTML rows (the dashboard's tables and
 * feeds): every value escaped, invalid UTF-8 never hiding a '<' from
 * the page UTF-8, URLs percent-encoded, Unix times shown as ISO 8601; and
 * that text output keeps values byte for byte, as before.  And JSON: each
 * record written as it ends, the whole laid out as json-glib lays out
 * the same tree built at once.
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
#include <json-glib/json-glib.h>

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

/* The same nested value, printed by the printer with flags, and built
 * whole with JsonBuilder as json-glib would lay it out. */
static void nested_print(struct pw_printer *p)
{
	pw_print_begin_map(p);
	pw_print_int_at(p, "version", 1);
	pw_print_key(p, "empty");
	pw_print_begin_map(p);
	pw_print_end(p);
	pw_print_key(p, "none");
	pw_print_begin_list(p);
	pw_print_end(p);
	pw_print_key(p, "rows");
	pw_print_begin_list(p);
	pw_print_begin_record(p);
	pw_print_str_at(p, "k\"ey", "line\nbreak");
	pw_print_strv_at(p, "lists", (char *[]){ "a", "b", NULL });
	pw_print_key(p, "fp");
	pw_print_begin_map(p);
	pw_print_str_at(p, "subject", NULL);
	pw_print_end(p);
	pw_print_end(p);
	pw_print_begin_list(p);
	pw_print_begin_record(p);
	pw_print_bool_at(p, "deep", true);
	pw_print_end(p);
	pw_print_int(p, -7);
	pw_print_end(p);
	pw_print_end(p);
	pw_print_str_at(p, "bad", "a\xff");
	pw_print_end(p);
}

static char *nested_reference(bool pretty)
{
	JsonBuilder *b = json_builder_new();
	JsonGenerator *g = json_generator_new();
	JsonNode *root;
	char *s, *line;

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "version");
	json_builder_add_int_value(b, 1);
	json_builder_set_member_name(b, "empty");
	json_builder_begin_object(b);
	json_builder_end_object(b);
	json_builder_set_member_name(b, "none");
	json_builder_begin_array(b);
	json_builder_end_array(b);
	json_builder_set_member_name(b, "rows");
	json_builder_begin_array(b);
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "k\"ey");
	json_builder_add_string_value(b, "line\nbreak");
	json_builder_set_member_name(b, "lists");
	json_builder_begin_array(b);
	json_builder_add_string_value(b, "a");
	json_builder_add_string_value(b, "b");
	json_builder_end_array(b);
	json_builder_set_member_name(b, "fp");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "subject");
	json_builder_add_null_value(b);
	json_builder_end_object(b);
	json_builder_end_object(b);
	json_builder_begin_array(b);
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "deep");
	json_builder_add_boolean_value(b, TRUE);
	json_builder_end_object(b);
	json_builder_add_int_value(b, -7);
	json_builder_end_array(b);
	json_builder_end_array(b);
	json_builder_set_member_name(b, "bad");
	json_builder_add_string_value(b, "a\xef\xbf\xbd");
	json_builder_end_object(b);
	root = json_builder_get_root(b);
	json_generator_set_pretty(g, pretty);
	json_generator_set_root(g, root);
	s = json_generator_to_data(g, NULL);
	line = g_strconcat(s, "\n", NULL);
	g_free(s);
	json_node_unref(root);
	g_object_unref(g);
	g_object_unref(b);
	return line;
}

static char *nested_printed(unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct pw_printer *p = pw_printer_new(PW_FORMAT_JSON, out, NULL, flags);

	nested_print(p);
	pw_printer_free(p);
	fclose(out);
	return buf;
}

static void json_laid_out_as_json_glib(void **state)
{
	char *want = nested_reference(true), *got = nested_printed(0);

	assert_string_equal(got, want);
	g_free(want);
	free(got);
	want = nested_reference(false);
	got = nested_printed(PW_PRINTER_COMPACT);
	assert_string_equal(got, want);
	g_free(want);
	free(got);
}

/* A record is on its way out as it ends, before the list and the map
 * around it close: a long report holds one row in memory. */
static void json_record_written_as_it_ends(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct pw_printer *p = pw_printer_new(PW_FORMAT_JSON, out, NULL, 0);

	pw_print_begin_map(p);
	pw_print_key(p, "findings");
	pw_print_begin_list(p);
	pw_print_begin_record(p);
	pw_print_str_at(p, "rule", "PERM_WORLD_WRITABLE");
	fflush(out);
	assert_null(strstr(buf, "PERM_WORLD_WRITABLE"));
	pw_print_end(p);
	fflush(out);
	assert_non_null(strstr(buf, "\"rule\" : \"PERM_WORLD_WRITABLE\""));
	pw_print_begin_record(p);
	pw_print_str_at(p, "rule", "SECOND");
	pw_print_end(p);
	fflush(out);
	assert_non_null(strstr(buf, "SECOND"));
	pw_print_end(p);
	pw_print_end(p);
	pw_printer_free(p);
	fclose(out);
	assert_non_null(strstr(buf, "}\n  ]\n}\n"));
	free(buf);
}

/* The streamed list of "parse": each element at the left margin. */
static void json_stream_flag_layout(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct pw_printer *p = pw_printer_new(PW_FORMAT_JSON, out, NULL,
					      PW_PRINTER_STREAM);

	pw_print_begin_list(p);
	pw_print_begin_record(p);
	pw_print_int_at(p, "a", 1);
	pw_print_end(p);
	pw_print_begin_record(p);
	pw_print_int_at(p, "a", 2);
	pw_print_end(p);
	pw_print_end(p);
	pw_printer_free(p);
	fclose(out);
	assert_string_equal(buf, "[\n{\n  \"a\" : 1\n},\n{\n  \"a\" : 2\n}\n]\n");
	free(buf);
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
		cmocka_unit_test(json_laid_out_as_json_glib),
		cmocka_unit_test(json_record_written_as_it_ends),
		cmocka_unit_test(json_stream_flag_layout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
