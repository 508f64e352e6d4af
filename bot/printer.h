/*
 * patchwarden: one printer for every command's results, after notmuch's
 * sprinter.  A command describes its result once, as maps, lists,
 * records and scalars; the printer renders that as text for people,
 * JSON for programs (json-glib), or CSV for spreadsheets.
 *
 * A record is a map that is one row of a result (a finding, a series, a
 * reply).  Text renders each record as it ends, through the layout the
 * command gives (below), or as "key=value key=value" without one; CSV
 * renders each record as one line, its columns named by the first
 * record's keys.  Both skip whatever lies outside a record.  JSON
 * renders everything, a record being a plain object.  Every format
 * writes a record when it ends and then forgets it, JSON included (its
 * brackets outside records are written as they open and close): memory
 * holds one row, however many a command prints.
 *
 * Text layouts are templates over the record's keys, in the manner of
 * git for-each-ref --format:
 *
 *   %(key)          the value: a string as it is, a number in decimal,
 *                   true/false, nothing for null, a list joined by ","
 *   %(key:upper)    in upper case
 *   %(key:lf)       with CRLF line ends shown as LF
 *   %(key:block)    followed by a newline unless empty or ending in one
 *   %(key:-N)       left-aligned in N columns (printf's %-Ns)
 *   %(key:url)      percent-encoded for a URL's path or query
 *   %(key:time)     a Unix time as pw_iso_time() writes it
 *   %(if:key)A%(else)B%(end)
 *                   A when the value is there (a string that is not
 *                   null, a number not 0, true, a list not empty), else B
 *   %(each:key)A%(end)
 *                   A once for each element of a list, %(.) being it
 *   %%              a percent sign
 *
 * A key inside a map inside the record is named "map.key".  Strings go
 * out byte for byte in text and CSV; JSON replaces invalid UTF-8.
 */
#ifndef PW_PRINTER_H
#define PW_PRINTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum pw_format {
	PW_FORMAT_TEXT,
	PW_FORMAT_JSON,
	PW_FORMAT_CSV,
	/* Text through the layout, each value HTML-escaped (the dashboard);
	 * never offered by pw_format_parse(). */
	PW_FORMAT_HTML,
};

/* How a printer of JSON lays its output out. */
enum pw_printer_flags {
	/* One line instead of indented (counts). */
	PW_PRINTER_COMPACT = 1 << 0,
	/* The outermost list's elements are written as each ends, each
	 * at the left margin and indented on its own, instead of the whole
	 * at the end (long streams: "parse"). */
	PW_PRINTER_STREAM = 1 << 1,
};

struct pw_printer;

/*
 * Parses a --format value: "text", "json", or, when csv is allowed,
 * "csv".  NULL is text.  False for anything else.
 */
bool pw_format_parse(const char *s, bool csv, enum pw_format *out);

/*
 * A printer writing to out in format f.  layout is the text template of
 * a record (copied), or NULL for key=value lines; flags are enum
 * pw_printer_flags.  Freed with pw_printer_free().
 */
struct pw_printer *pw_printer_new(enum pw_format f, FILE *out,
				  const char *layout, unsigned flags);

/* Text written between two records (copied); none by default. */
void pw_printer_set_separator(struct pw_printer *p, const char *sep);

/*
 * Frees p; NULL is a no-op.  A record still open is dropped unprinted;
 * the records before it are out already (a command that fails halfway
 * says so on stderr and by its exit status).
 */
void pw_printer_free(struct pw_printer *p);

/* Opens a map, a list or a record (a map that is one row); closes the
 * innermost one.  A record is written when it closes. */
void pw_print_begin_map(struct pw_printer *p);
void pw_print_begin_list(struct pw_printer *p);
void pw_print_begin_record(struct pw_printer *p);
void pw_print_end(struct pw_printer *p);

/* Names the next value inside a map or record (name is copied). */
void pw_print_key(struct pw_printer *p, const char *name);

/* Values.  A NULL string is null. */
void pw_print_string(struct pw_printer *p, const char *s);
void pw_print_int(struct pw_printer *p, int64_t v);
void pw_print_bool(struct pw_printer *p, bool v);
void pw_print_null(struct pw_printer *p);

/* pw_print_key() and a value, the usual pair. */
void pw_print_str_at(struct pw_printer *p, const char *key, const char *s);
void pw_print_int_at(struct pw_printer *p, const char *key, int64_t v);
void pw_print_bool_at(struct pw_printer *p, const char *key, bool v);
/* pw_iso_time() of t. */
void pw_print_time_at(struct pw_printer *p, const char *key, int64_t t);
/*
 * A message's date, which may be unknown (0: its Date: was missing or
 * unreadable): pw_print_time_at(), or for 0 null in JSON and
 * "unknown" in text, CSV and HTML.
 */
void pw_print_date_at(struct pw_printer *p, const char *key, int64_t t);
/* A NULL-terminated vector as a list of strings; NULL is the empty list. */
void pw_print_strv_at(struct pw_printer *p, const char *key,
		      char *const *v);

/* "2016-08-02T00:03:14Z" (UTC); "" when t cannot be shown.  g_free. */
char *pw_iso_time(int64_t t);

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
