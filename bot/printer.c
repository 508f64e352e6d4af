/*
 * patchwarden: the printer (see bot/printer.h).  JSON goes through
 * json-glib's builder and generator; text and CSV collect the fields of
 * the open record and write it when it ends.  Every format writes each
 * record as it ends: a command printing many rows holds one at a time.
 */
#include <string.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "bot/printer.h"
#include "checks/text.h"

enum frame_kind { FR_MAP, FR_LIST, FR_RECORD };

enum vtype { V_NULL, V_STRING, V_INT, V_BOOL, V_LIST };

/* One field of the open record (text, CSV). */
struct field {
	char *key;		/* "map.key" inside a map of the record */
	enum vtype type;
	char *text;		/* the scalar as text; NULL for a list */
	GPtrArray *items;	/* a list's elements as text */
	bool set;		/* what %(if:key) asks */
};

struct frame {
	enum frame_kind kind;
	bool record;		/* text, CSV: this frame opened the record */
	bool skip;		/* text, CSV: inside the record, not collected */
	char *prefix;		/* text, CSV: key prefix of a map in the record */
	struct field *list;	/* text, CSV: the list field this list fills */
	/* JSON */
	bool stream;		/* the outermost list, streamed */
	bool direct;		/* written as it goes, outside any record */
	bool root;		/* the record the builder was made for */
	unsigned level;		/* nesting depth, for the indentation */
	unsigned items;		/* values written into it so far */
};

struct pw_printer {
	enum pw_format format;
	FILE *out;
	unsigned flags;
	char *layout;
	char *sep;
	GArray *stack;		/* struct frame, innermost last */
	char *key;		/* text, CSV: the key of the next value */
	/* JSON */
	JsonBuilder *b;		/* the record being built, or NULL */
	JsonGenerator *gen;
	/* text, CSV */
	GPtrArray *fields;	/* the open record's, or NULL */
	GHashTable *index;	/* its fields by key (the first of a key) */
	unsigned records;	/* records written */
	GPtrArray *columns;	/* CSV: column names, from the first record */
};

bool pw_format_parse(const char *s, bool csv, enum pw_format *out)
{
	if (!s || !strcmp(s, "text"))
		*out = PW_FORMAT_TEXT;
	else if (!strcmp(s, "json"))
		*out = PW_FORMAT_JSON;
	else if (csv && !strcmp(s, "csv"))
		*out = PW_FORMAT_CSV;
	else
		return false;
	return true;
}

static void field_free(gpointer data)
{
	struct field *f = data;

	g_free(f->key);
	g_free(f->text);
	if (f->items)
		g_ptr_array_unref(f->items);
	g_free(f);
}

struct pw_printer *pw_printer_new(enum pw_format f, FILE *out,
				  const char *layout, unsigned flags)
{
	struct pw_printer *p = g_new0(struct pw_printer, 1);

	p->format = f;
	p->out = out;
	p->flags = flags;
	p->layout = g_strdup(layout);
	p->stack = g_array_new(FALSE, TRUE, sizeof(struct frame));
	if (f == PW_FORMAT_JSON)
		p->gen = json_generator_new();
	return p;
}

void pw_printer_set_separator(struct pw_printer *p, const char *sep)
{
	g_free(p->sep);
	p->sep = g_strdup(sep);
}

static struct frame *top(struct pw_printer *p)
{
	return p->stack->len ?
		&g_array_index(p->stack, struct frame, p->stack->len - 1) : NULL;
}

static void frame_pop(struct pw_printer *p, struct frame *out)
{
	*out = *top(p);
	g_array_set_size(p->stack, p->stack->len - 1);
}

void pw_printer_free(struct pw_printer *p)
{
	guint i;

	if (!p)
		return;
	for (i = 0; i < p->stack->len; i++)
		g_free(g_array_index(p->stack, struct frame, i).prefix);
	g_array_unref(p->stack);
	if (p->b)
		g_object_unref(p->b);
	if (p->gen)
		g_object_unref(p->gen);
	if (p->index)
		g_hash_table_destroy(p->index);
	if (p->fields)
		g_ptr_array_unref(p->fields);
	if (p->columns)
		g_ptr_array_unref(p->columns);
	g_free(p->key);
	g_free(p->layout);
	g_free(p->sep);
	g_free(p);
}

/* ---- JSON ----
 *
 * Containers outside a record are written as they open and close, their
 * brackets, commas and keys by the printer, in json-glib's own layout;
 * a record, and everything inside it, is built as one JsonNode, written
 * by JsonGenerator when the record ends, and freed.  Memory then holds
 * one row, however many rows a command prints.
 */

/* Writes n spaces of indentation. */
static void json_indent(struct pw_printer *p, unsigned n)
{
	while (n--)
		fputc(' ', p->out);
}

static bool json_pretty(const struct pw_printer *p)
{
	return !(p->flags & PW_PRINTER_COMPACT);
}

/*
 * Writes node as the generator lays it out, at nesting level: the
 * generator starts at the left margin, so each of its lines after the
 * first is moved right by the level's indentation (its line breaks are
 * all between tokens: a string's own are escaped).
 */
static void json_write_node(struct pw_printer *p, JsonNode *node,
			    unsigned level)
{
	char *s, *line, *nl;

	json_generator_set_pretty(p->gen, json_pretty(p));
	json_generator_set_root(p->gen, node);
	s = json_generator_to_data(p->gen, NULL);
	for (line = s; level && (nl = strchr(line, '\n')); line = nl + 1) {
		fwrite(line, 1, (size_t)(nl - line) + 1, p->out);
		json_indent(p, 2 * level);
	}
	fputs(line, p->out);
	g_free(s);
	json_generator_set_root(p->gen, NULL);
}

/*
 * Before a value outside any record: the comma, line break and
 * indentation that separate it from the one before, and its key inside
 * a map.  Returns the value's nesting level.
 */
static unsigned json_item(struct pw_printer *p)
{
	struct frame *f = top(p);
	unsigned level;

	if (!f)
		return 0;
	if (f->stream) {
		fputs(f->items++ ? ",\n" : "", p->out);
		return 0;
	}
	level = f->level + 1;
	if (f->items++)
		fputc(',', p->out);
	if (json_pretty(p)) {
		fputc('\n', p->out);
		json_indent(p, 2 * level);
	}
	if (f->kind != FR_LIST) {
		JsonNode *k = json_node_init_string(json_node_alloc(),
						    p->key ? p->key : "");

		json_write_node(p, k, 0);
		json_node_unref(k);
		fputs(json_pretty(p) ? " : " : ":", p->out);
	}
	g_free(p->key);
	p->key = NULL;
	return level;
}

/* After a whole value at the top: its line ends. */
static void json_done(struct pw_printer *p)
{
	if (!p->stack->len)
		fputc('\n', p->out);
}

/* Before a value inside a record: the builder it goes into, keyed. */
static JsonBuilder *json_value(struct pw_printer *p)
{
	if (p->key) {
		json_builder_set_member_name(p->b, p->key);
		g_free(p->key);
		p->key = NULL;
	}
	return p->b;
}

/* A scalar: into the record being built, or written where it stands. */
static void json_scalar(struct pw_printer *p, JsonNode *node)
{
	unsigned level;

	if (p->b) {
		json_builder_add_value(json_value(p), node);
		return;
	}
	level = json_item(p);
	json_write_node(p, node, level);
	json_node_unref(node);
	json_done(p);
}

static void json_begin(struct pw_printer *p, enum frame_kind kind)
{
	struct frame f = { .kind = kind };

	if (p->b) {
		if (kind == FR_LIST)
			json_builder_begin_array(json_value(p));
		else
			json_builder_begin_object(json_value(p));
	} else if (kind == FR_RECORD) {
		f.level = json_item(p);
		f.root = true;
		p->b = json_builder_new();
		json_builder_begin_object(p->b);
	} else if (kind == FR_LIST && !p->stack->len &&
		   (p->flags & PW_PRINTER_STREAM)) {
		f.stream = true;
		fputs("[\n", p->out);
	} else {
		f.level = json_item(p);
		f.direct = true;
		fputc(kind == FR_LIST ? '[' : '{', p->out);
	}
	g_array_append_val(p->stack, f);
}

static void json_end(struct pw_printer *p)
{
	struct frame f;

	frame_pop(p, &f);
	if (f.stream) {
		fputs(f.items ? "\n]\n" : "]\n", p->out);
		return;
	}
	if (f.direct) {
		/* json-glib's layout: "[]" and "{  }" when empty. */
		if (f.items && json_pretty(p)) {
			fputc('\n', p->out);
			json_indent(p, 2 * f.level);
		} else if (f.kind != FR_LIST && json_pretty(p)) {
			json_indent(p, 2 * f.level);
		}
		fputc(f.kind == FR_LIST ? ']' : '}', p->out);
		json_done(p);
		return;
	}
	if (f.kind == FR_LIST)
		json_builder_end_array(p->b);
	else
		json_builder_end_object(p->b);
	if (f.root) {
		JsonNode *root = json_builder_get_root(p->b);

		json_write_node(p, root, f.level);
		json_node_unref(root);
		g_object_unref(p->b);
		p->b = NULL;
		json_done(p);
	}
}

/* ---- text and CSV: collecting a record ---- */

static struct field *field_find(struct pw_printer *p, const char *key)
{
	return p->index ? g_hash_table_lookup(p->index, key) : NULL;
}

/* The field the next value makes in the record, or NULL. */
static struct field *field_add(struct pw_printer *p, enum vtype type)
{
	struct frame *fr = top(p);
	struct field *f;

	if (!p->fields || !fr || fr->skip || fr->list)
		return NULL;
	f = g_new0(struct field, 1);
	f->key = g_strconcat(fr->prefix ? fr->prefix : "",
			     p->key ? p->key : "", NULL);
	f->type = type;
	g_ptr_array_add(p->fields, f);
	if (!g_hash_table_contains(p->index, f->key))
		g_hash_table_insert(p->index, f->key, f);
	return f;
}

/* Takes a scalar of the record: text (owned) and whether it is set. */
static void collect(struct pw_printer *p, enum vtype type, char *text,
		    bool set)
{
	struct frame *fr = top(p);
	struct field *f;

	if (fr && fr->list && !fr->skip && p->fields) {
		g_ptr_array_add(fr->list->items, text);
		text = NULL;
	} else if ((f = field_add(p, type))) {
		f->text = text;
		f->set = set;
		text = NULL;
	}
	g_free(text);
	g_free(p->key);
	p->key = NULL;
}

static void collect_begin(struct pw_printer *p, enum frame_kind kind)
{
	struct frame *parent = top(p);
	struct frame f = { .kind = kind };

	if (kind == FR_RECORD && !p->fields) {
		p->fields = g_ptr_array_new_with_free_func(field_free);
		p->index = g_hash_table_new(g_str_hash, g_str_equal);
		f.record = true;
	} else if (p->fields) {
		f.skip = !parent || parent->skip || parent->list;
		if (!f.skip && kind == FR_LIST) {
			f.list = field_add(p, V_LIST);
			f.list->items = g_ptr_array_new_with_free_func(g_free);
		} else if (!f.skip) {
			f.prefix = g_strconcat(parent->prefix ? parent->prefix : "",
					       p->key ? p->key : "", ".", NULL);
		}
	}
	g_free(p->key);
	p->key = NULL;
	g_array_append_val(p->stack, f);
}

/* ---- text: layouts ---- */

static char *field_text(const struct field *f)
{
	if (!f)
		return g_strdup("");
	if (f->type == V_LIST) {
		GString *s = g_string_new(NULL);
		guint i;

		for (i = 0; i < f->items->len; i++)
			g_string_append_printf(s, "%s%s", i ? "," : "",
					       (const char *)f->items->pdata[i]);
		return g_string_free(s, FALSE);
	}
	return g_strdup(f->text ? f->text : "");
}

static bool field_set(const struct field *f)
{
	if (!f)
		return false;
	return f->type == V_LIST ? f->items->len > 0 : f->set;
}

/* Appends v to out as the modifier mod says (NULL: as it is). */
static void append_mod(GString *out, const char *v, const char *mod)
{
	size_t len = strlen(v), i;

	if (!mod) {
		g_string_append(out, v);
	} else if (!strcmp(mod, "upper")) {
		for (i = 0; i < len; i++)
			g_string_append_c(out, g_ascii_toupper(v[i]));
	} else if (!strcmp(mod, "lf")) {
		for (i = 0; i < len; i++)
			if (!(v[i] == '\r' && v[i + 1] == '\n'))
				g_string_append_c(out, v[i]);
	} else if (!strcmp(mod, "block")) {
		g_string_append(out, v);
		if (len && v[len - 1] != '\n')
			g_string_append_c(out, '\n');
	} else if (!strcmp(mod, "time")) {
		char *t = pw_iso_time(g_ascii_strtoll(v, NULL, 10));

		g_string_append(out, t);
		g_free(t);
	} else if (!strcmp(mod, "url")) {
		char *e = g_uri_escape_string(v, NULL, FALSE);

		g_string_append(out, e);
		g_free(e);
	} else if (mod[0] == '-' && g_ascii_isdigit(mod[1])) {
		guint64 width = g_ascii_strtoull(mod + 1, NULL, 10);

		g_string_append(out, v);
		for (i = len; i < width; i++)
			g_string_append_c(out, ' ');
	} else {
		g_string_append(out, v);
	}
}

/* Whether s starts the directive %(name). */
static bool at(const char *s, const char *name)
{
	size_t n = strlen(name);

	return s[0] == '%' && s[1] == '(' && !strncmp(s + 2, name, n) &&
	       s[2 + n] == ')';
}

/*
 * Renders layout s into out (when emit) up to its end or to the
 * %(else) or %(end) that closes the part it is in, and returns where it
 * stopped.  elem is the element %(each) is at, or NULL.
 */
static const char *render(struct pw_printer *p, const char *s, GString *out,
			  bool emit, const char *elem)
{
	while (*s) {
		const char *close = s[0] == '%' && s[1] == '(' ?
			strchr(s + 2, ')') : NULL;
		char *name, *mod;

		if (s[0] == '%' && s[1] == '%') {
			if (emit)
				g_string_append_c(out, '%');
			s += 2;
			continue;
		}
		if (!close) {
			if (emit)
				g_string_append_c(out, *s);
			s++;
			continue;
		}
		if (at(s, "else") || at(s, "end"))
			return s;
		name = g_strndup(s + 2, (gsize)(close - s - 2));
		s = close + 1;
		if (g_str_has_prefix(name, "if:")) {
			bool cond = field_set(field_find(p, name + 3));

			s = render(p, s, out, emit && cond, elem);
			if (at(s, "else"))
				s = render(p, s + 7, out, emit && !cond, elem);
			if (at(s, "end"))
				s += 6;
		} else if (g_str_has_prefix(name, "each:")) {
			struct field *f = field_find(p, name + 5);
			const char *body = s;
			guint i;

			if (!emit || !f || f->type != V_LIST || !f->items->len)
				s = render(p, body, out, false, NULL);
			for (i = 0; emit && f && f->type == V_LIST &&
			     i < f->items->len; i++)
				s = render(p, body, out, true, f->items->pdata[i]);
			if (at(s, "else"))
				s = render(p, s + 7, out, false, NULL);
			if (at(s, "end"))
				s += 6;
		} else if (emit) {
			char *v;

			mod = strchr(name, ':');
			if (mod)
				*mod++ = '\0';
			v = !strcmp(name, ".") ? g_strdup(elem ? elem : "") :
				field_text(field_find(p, name));
			if (p->format == PW_FORMAT_HTML) {
				GString *raw = g_string_new(NULL);
				char *e;

				append_mod(raw, v, mod);
				/* Valid UTF-8 first (the escaper steps by
				 * characters, and a bad lead byte would step
				 * over a '<'), and no character XML cannot
				 * hold: the Atom feeds print through here. */
				e = pw_utf8_xml_escape(raw->str, (gssize)raw->len);
				g_string_append(out, e);
				g_free(e);
				g_string_free(raw, TRUE);
			} else {
				append_mod(out, v, mod);
			}
			g_free(v);
		}
		g_free(name);
	}
	return s;
}

static void text_record(struct pw_printer *p, GString *out)
{
	guint i;

	if (p->layout) {
		render(p, p->layout, out, true, NULL);
		return;
	}
	for (i = 0; i < p->fields->len; i++) {
		const struct field *f = p->fields->pdata[i];
		char *v = field_text(f);

		g_string_append_printf(out, "%s%s=%s", i ? " " : "", f->key, v);
		g_free(v);
	}
	g_string_append_c(out, '\n');
}

/* ---- CSV (RFC 4180) ---- */

static void csv_cell(GString *out, const char *v)
{
	if (!strpbrk(v, ",\"\r\n")) {
		g_string_append(out, v);
		return;
	}
	g_string_append_c(out, '"');
	for (; *v; v++) {
		if (*v == '"')
			g_string_append_c(out, '"');
		g_string_append_c(out, *v);
	}
	g_string_append_c(out, '"');
}

static void csv_record(struct pw_printer *p, GString *out)
{
	guint i;

	if (!p->columns) {
		/* The header: the first record's keys. */
		p->columns = g_ptr_array_new_with_free_func(g_free);
		for (i = 0; i < p->fields->len; i++) {
			const struct field *f = p->fields->pdata[i];

			g_ptr_array_add(p->columns, g_strdup(f->key));
			if (i)
				g_string_append_c(out, ',');
			csv_cell(out, f->key);
		}
		g_string_append(out, "\r\n");
	}
	for (i = 0; i < p->columns->len; i++) {
		char *v = field_text(field_find(p, p->columns->pdata[i]));

		if (i)
			g_string_append_c(out, ',');
		csv_cell(out, v);
		g_free(v);
	}
	g_string_append(out, "\r\n");
}

static void collect_end(struct pw_printer *p)
{
	struct frame f;
	GString *out;

	frame_pop(p, &f);
	g_free(f.prefix);
	if (!f.record)
		return;
	out = g_string_new(NULL);
	if (p->records++ && p->sep)
		g_string_append(out, p->sep);
	if (p->format == PW_FORMAT_CSV)
		csv_record(p, out);
	else
		text_record(p, out);
	fwrite(out->str, 1, out->len, p->out);
	g_string_free(out, TRUE);
	g_hash_table_destroy(p->index);
	p->index = NULL;
	g_ptr_array_unref(p->fields);
	p->fields = NULL;
}

/* ---- the structure ---- */

void pw_print_begin_map(struct pw_printer *p)
{
	if (p->format == PW_FORMAT_JSON)
		json_begin(p, FR_MAP);
	else
		collect_begin(p, FR_MAP);
}

void pw_print_begin_list(struct pw_printer *p)
{
	if (p->format == PW_FORMAT_JSON)
		json_begin(p, FR_LIST);
	else
		collect_begin(p, FR_LIST);
}

void pw_print_begin_record(struct pw_printer *p)
{
	if (p->format == PW_FORMAT_JSON)
		json_begin(p, FR_RECORD);
	else
		collect_begin(p, FR_RECORD);
}

void pw_print_end(struct pw_printer *p)
{
	if (!p->stack->len)
		return;
	if (p->format == PW_FORMAT_JSON)
		json_end(p);
	else
		collect_end(p);
}

void pw_print_key(struct pw_printer *p, const char *name)
{
	g_free(p->key);
	p->key = g_strdup(name);
}

void pw_print_string(struct pw_printer *p, const char *s)
{
	if (p->format != PW_FORMAT_JSON) {
		collect(p, s ? V_STRING : V_NULL, g_strdup(s ? s : ""), s != NULL);
		return;
	}
	if (!s) {
		json_scalar(p, json_node_init_null(json_node_alloc()));
	} else if (g_utf8_validate(s, -1, NULL)) {
		json_scalar(p, json_node_init_string(json_node_alloc(), s));
	} else {
		/* Paths and lines come from mail: JSON is UTF-8 only. */
		char *u = g_utf8_make_valid(s, -1);

		json_scalar(p, json_node_init_string(json_node_alloc(), u));
		g_free(u);
	}
}

void pw_print_int(struct pw_printer *p, int64_t v)
{
	if (p->format != PW_FORMAT_JSON) {
		collect(p, V_INT, g_strdup_printf("%" G_GINT64_FORMAT, (gint64)v),
			v != 0);
		return;
	}
	json_scalar(p, json_node_init_int(json_node_alloc(), v));
}

void pw_print_bool(struct pw_printer *p, bool v)
{
	if (p->format != PW_FORMAT_JSON) {
		collect(p, V_BOOL, g_strdup(v ? "true" : "false"), v);
		return;
	}
	json_scalar(p, json_node_init_boolean(json_node_alloc(), v));
}

void pw_print_null(struct pw_printer *p)
{
	if (p->format != PW_FORMAT_JSON) {
		collect(p, V_NULL, g_strdup(""), false);
		return;
	}
	json_scalar(p, json_node_init_null(json_node_alloc()));
}

void pw_print_str_at(struct pw_printer *p, const char *key, const char *s)
{
	pw_print_key(p, key);
	pw_print_string(p, s);
}

void pw_print_int_at(struct pw_printer *p, const char *key, int64_t v)
{
	pw_print_key(p, key);
	pw_print_int(p, v);
}

void pw_print_bool_at(struct pw_printer *p, const char *key, bool v)
{
	pw_print_key(p, key);
	pw_print_bool(p, v);
}

void pw_print_time_at(struct pw_printer *p, const char *key, int64_t t)
{
	char *s = pw_iso_time(t);

	pw_print_str_at(p, key, s);
	g_free(s);
}

void pw_print_strv_at(struct pw_printer *p, const char *key,
		      char *const *v)
{
	pw_print_key(p, key);
	pw_print_begin_list(p);
	for (; v && *v; v++)
		pw_print_string(p, *v);
	pw_print_end(p);
}

void pw_print_date_at(struct pw_printer *p, const char *key, int64_t t)
{
	if (t) {
		pw_print_time_at(p, key, t);
		return;
	}
	pw_print_key(p, key);
	if (p->format == PW_FORMAT_JSON)
		pw_print_null(p);
	else
		pw_print_string(p, "unknown");
}

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

void pw_print_counts(const struct pw_count *c, size_t n, bool json, FILE *out)
{
	struct pw_printer *p = pw_printer_new(json ? PW_FORMAT_JSON :
					      PW_FORMAT_TEXT, out, NULL,
					      PW_PRINTER_COMPACT);
	size_t i;

	pw_print_begin_record(p);
	for (i = 0; i < n; i++)
		pw_print_int_at(p, c[i].name, c[i].value);
	pw_print_end(p);
	pw_printer_free(p);
}
