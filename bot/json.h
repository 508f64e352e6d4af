/*
 * patchwarden: the JSON output every subcommand shares (json-glib):
 * members added by name, and a finished builder printed pretty.
 */
#ifndef PW_JSON_H
#define PW_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <json-glib/json-glib.h>

/* "2016-08-02T00:03:14Z" (UTC); "" when t cannot be shown.  g_free. */
char *pw_iso_time(int64_t t);

/* Members of the object being built; a NULL string becomes null,
 * invalid UTF-8 gets U+FFFD for its bad bytes. */
void pw_json_str(JsonBuilder *b, const char *name, const char *v);
void pw_json_int(JsonBuilder *b, const char *name, int64_t v);
void pw_json_bool(JsonBuilder *b, const char *name, bool v);
/* A NULL-terminated vector as an array; NULL is the empty array. */
void pw_json_strv(JsonBuilder *b, const char *name, char *const *v);
/* pw_iso_time() of t. */
void pw_json_time(JsonBuilder *b, const char *name, int64_t t);

/* The finished value of b, pretty (g_free). */
char *pw_json_text(JsonBuilder *b);
/* pw_json_text() and a newline on out. */
void pw_json_print(JsonBuilder *b, FILE *out);

/* A count and its name, for pw_print_counts(). */
struct pw_count {
	const char *name;
	int64_t value;
};

/*
 * One summary line on out: "name=N name=N ..." for people and scripts,
 * or, with json, the same as one JSON object on one line.
 */
void pw_print_counts(const struct pw_count *c, size_t n, bool json, FILE *out);

#endif
