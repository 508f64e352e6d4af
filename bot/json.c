/*
 * patchwarden: shared JSON output (see bot/json.h).
 */
#include "bot/json.h"

char *pw_iso_time(int64_t t)
{
	GDateTime *dt = g_date_time_new_from_unix_utc(t);
	char *s;

	if (!dt)
		return g_strdup("");
	s = g_date_time_format(dt, "%Y-%m-%dT%H:%M:%SZ");
	g_date_time_unref(dt);
	return s ? s : g_strdup("");
}

void pw_json_str(JsonBuilder *b, const char *name, const char *v)
{
	json_builder_set_member_name(b, name);
	if (!v) {
		json_builder_add_null_value(b);
	} else if (g_utf8_validate(v, -1, NULL)) {
		json_builder_add_string_value(b, v);
	} else {
		/* Paths and lines come from mail: JSON is UTF-8 only. */
		char *u = g_utf8_make_valid(v, -1);

		json_builder_add_string_value(b, u);
		g_free(u);
	}
}

void pw_json_int(JsonBuilder *b, const char *name, int64_t v)
{
	json_builder_set_member_name(b, name);
	json_builder_add_int_value(b, v);
}

void pw_json_bool(JsonBuilder *b, const char *name, bool v)
{
	json_builder_set_member_name(b, name);
	json_builder_add_boolean_value(b, v);
}

void pw_json_strv(JsonBuilder *b, const char *name, char *const *v)
{
	json_builder_set_member_name(b, name);
	json_builder_begin_array(b);
	for (; v && *v; v++)
		json_builder_add_string_value(b, *v);
	json_builder_end_array(b);
}

void pw_json_time(JsonBuilder *b, const char *name, int64_t t)
{
	char *s = pw_iso_time(t);

	pw_json_str(b, name, s);
	g_free(s);
}

char *pw_json_text(JsonBuilder *b)
{
	JsonGenerator *g = json_generator_new();
	JsonNode *root = json_builder_get_root(b);
	char *s;

	json_generator_set_pretty(g, TRUE);
	json_generator_set_root(g, root);
	s = json_generator_to_data(g, NULL);
	json_node_unref(root);
	g_object_unref(g);
	return s;
}

void pw_json_print(JsonBuilder *b, FILE *out)
{
	char *s = pw_json_text(b);

	fprintf(out, "%s\n", s);
	g_free(s);
}

void pw_print_counts(const struct pw_count *c, size_t n, bool json, FILE *out)
{
	size_t i;

	if (json) {
		JsonBuilder *b = json_builder_new();
		JsonGenerator *g = json_generator_new();
		JsonNode *root;
		char *text;

		json_builder_begin_object(b);
		for (i = 0; i < n; i++)
			pw_json_int(b, c[i].name, c[i].value);
		json_builder_end_object(b);
		root = json_builder_get_root(b);
		json_generator_set_root(g, root);
		text = json_generator_to_data(g, NULL);
		fprintf(out, "%s\n", text);
		g_free(text);
		json_node_unref(root);
		g_object_unref(g);
		g_object_unref(b);
		return;
	}
	for (i = 0; i < n; i++)
		fprintf(out, "%s%s=%" G_GINT64_FORMAT, i ? " " : "", c[i].name,
			(gint64)c[i].value);
	fputc('\n', out);
}
