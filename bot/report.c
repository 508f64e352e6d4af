/*
 * patchwarden: the maintainers' reports (see bot/report.h).
 */
#include <stdio.h>
#include <string.h>

#include "bot/cli.h"
#include "bot/ingest.h"
#include "bot/report.h"
#include "checks/rules.h"
#include "db/attention.h"
#include "db/flood.h"
#include "db/outbox.h"

static const char *const kind_names[] = {
	[PW_REPORT_SERIES] = "series",
	[PW_REPORT_PATCHES] = "patches",
	[PW_REPORT_FINDINGS] = "findings",
	[PW_REPORT_FLOODS] = "floods",
	[PW_REPORT_SENDERS] = "senders",
	[PW_REPORT_STATS] = "stats",
	[PW_REPORT_ERRORS] = "errors",
	[PW_REPORT_ATTENTION] = "attention",
};

/* The filters each kind takes, space-separated. */
static const char *const kind_keys[] = {
	[PW_REPORT_SERIES] = "list from since until version has-findings rule"
		" state series order limit offset",
	[PW_REPORT_PATCHES] = "list from since until version has-findings rule"
		" series order limit offset",
	[PW_REPORT_FINDINGS] = "list from since until rule severity path series"
		" order limit offset",
	[PW_REPORT_FLOODS] = "list from since until message order limit offset",
	[PW_REPORT_SENDERS] = "list from since until has-findings rule"
		" severity limit offset",
	[PW_REPORT_STATS] = "list from since until severity per order limit"
		" offset",
	[PW_REPORT_ERRORS] = "list since until order limit offset",
	[PW_REPORT_ATTENTION] = "list rule severity since age limit offset",
};

/* Most rows to skip: a page number past this is a mistake. */
#define MAX_OFFSET 10000000

struct pw_report *pw_report_new(const char *kind, int64_t limit,
				int64_t max_limit, bool newest_first,
				char **err)
{
	struct pw_report *r;
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(kind_names); i++)
		if (kind && !strcmp(kind, kind_names[i]))
			break;
	if (i == G_N_ELEMENTS(kind_names)) {
		*err = g_strdup("not a report: series, patches, findings,"
				" floods, senders, stats, errors or attention");
		return NULL;
	}
	r = g_new0(struct pw_report, 1);
	r->kind = i;
	/* Info findings are neither shown nor counted unless asked. */
	if (r->kind != PW_REPORT_FLOODS && r->kind != PW_REPORT_ERRORS)
		r->f.min_severity = PW_REPORT_MIN_SEVERITY;
	r->f.limit = limit;
	r->f.newest_first = newest_first;
	r->max_limit = max_limit;
	r->strings = g_ptr_array_new_with_free_func(g_free);
	return r;
}

void pw_report_free(struct pw_report *r)
{
	if (!r)
		return;
	g_ptr_array_unref(r->strings);
	g_free(r);
}

bool pw_report_takes(const struct pw_report *r, const char *key)
{
	const char *k = kind_keys[r->kind];
	size_t n = strlen(key);

	while ((k = strstr(k, key))) {
		if ((k == kind_keys[r->kind] || k[-1] == ' ') &&
		    (k[n] == ' ' || !k[n]))
			return true;
		k += n;
	}
	return false;
}

static const char *keep(struct pw_report *r, const char *s)
{
	char *c = g_strdup(s);

	g_ptr_array_add(r->strings, c);
	return c;
}

/* A whole decimal number in [lo, hi]. */
static bool number(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	gint64 v;

	if (!*s || !g_ascii_isdigit(*s))
		return false;
	v = g_ascii_strtoll(s, &end, 10);
	if (*end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* Every rule ID, comma-separated (new string). */
static char *rule_ids(void)
{
	GString *g = g_string_new(NULL);
	const struct pw_rule *t;
	size_t n, i;

	t = pw_rules(&n);
	for (i = 0; i < n; i++)
		g_string_append_printf(g, "%s%s", i ? ", " : "", t[i].id);
	return g_string_free(g, FALSE);
}

static bool set_list(struct pw_report *r, struct pw_db *db, const char *v,
		     char **err)
{
	char **names = NULL, *known;
	bool found;

	if (pw_db_query_lists(db, &names)) {
		*err = g_strdup_printf("list: cannot read the lists: %s",
				       pw_db_errmsg(db));
		return false;
	}
	found = g_strv_contains((const char *const *)names, v);
	if (!found) {
		char *shown = g_utf8_make_valid(v, -1);

		known = g_strjoinv(", ", names);
		*err = g_strdup_printf("list: '%s' is not a list of this store;"
				       " its lists: %s", shown,
				       *known ? known : "(none)");
		g_free(known);
		g_free(shown);
	}
	g_strfreev(names);
	if (found)
		r->f.list = keep(r, v);
	return found;
}

bool pw_report_set(struct pw_report *r, struct pw_db *db, const char *key,
		   const char *value, char **err)
{
	struct pw_query_filter *f = &r->f;
	const char *v = value ? value : "";
	int64_t n;
	gint64 t;

	*err = NULL;
	if (!pw_report_takes(r, key)) {
		char *shown = g_utf8_make_valid(key, -1);

		*err = g_strdup_printf("%s: not a filter of %s; it takes: %s",
				       shown, kind_names[r->kind],
				       kind_keys[r->kind]);
		g_free(shown);
		return false;
	}
	if (strlen(v) > 1000) {
		*err = g_strdup_printf("%s: too long", key);
		return false;
	}
	if (!strcmp(key, "list"))
		return set_list(r, db, v, err);
	if (!strcmp(key, "from")) {
		if (!*v) {
			*err = g_strdup("from: an address is needed");
			return false;
		}
		f->from = keep(r, v);
	} else if (!strcmp(key, "age")) {
		/* How old the newest patch shown may be: "since" as an age. */
		size_t len = strlen(v);

		if (!len || (v[len - 1] != 'd' && v[len - 1] != 'h') ||
		    !pw_cli_parse_time(v, &t)) {
			*err = g_strdup("age: Nd or Nh (days or hours)");
			return false;
		}
		f->since = t;
	} else if (!strcmp(key, "since") || !strcmp(key, "until")) {
		if (!pw_cli_parse_time(v, &t)) {
			char *shown = g_utf8_make_valid(v, -1);

			*err = g_strdup_printf("%s: '%s' is not a date (YYYY-MM-DD,"
					       " YYYY-MM-DDTHH:MM:SS[Z], @unix,"
					       " Nd or Nh ago)", key, shown);
			g_free(shown);
			return false;
		}
		if (!strcmp(key, "since"))
			f->since = t;
		else
			f->until = t;
	} else if (!strcmp(key, "rule")) {
		char *up = g_ascii_strup(v, -1);
		const struct pw_rule *rule = pw_rule_find(up);

		g_free(up);
		if (!rule) {
			char *ids = rule_ids(), *shown = g_utf8_make_valid(v, -1);

			*err = g_strdup_printf("rule: '%s' is not a rule; the"
					       " rules: %s", shown, ids);
			g_free(ids);
			g_free(shown);
			return false;
		}
		f->rule = rule->id;
		if (!r->severity_given)
			f->min_severity = PW_SEV_INFO;
	} else if (!strcmp(key, "severity")) {
		if (!pw_severity_parse(v, &f->min_severity)) {
			*err = g_strdup("severity: info, warning or error");
			return false;
		}
		r->severity_given = true;
	} else if (!strcmp(key, "path")) {
		if (!*v) {
			*err = g_strdup("path: a file name or glob is needed");
			return false;
		}
		f->path = keep(r, v);
	} else if (!strcmp(key, "version")) {
		if (!number(v, 1, 1000, &n)) {
			*err = g_strdup("version: a number from 1 to 1000");
			return false;
		}
		f->version = (int)n;
	} else if (!strcmp(key, "has-findings")) {
		if (!strcmp(v, "yes"))
			f->has_findings = 1;
		else if (!strcmp(v, "no") && r->kind != PW_REPORT_SENDERS)
			f->has_findings = -1;
		else {
			*err = g_strdup(r->kind == PW_REPORT_SENDERS ?
					"has-findings: yes" :
					"has-findings: yes or no");
			return false;
		}
	} else if (!strcmp(key, "state")) {
		if (!strcmp(v, "complete"))
			f->state = PW_SERIES_COMPLETE;
		else if (!strcmp(v, "incomplete"))
			f->state = PW_SERIES_INCOMPLETE;
		else if (!strcmp(v, "flood"))
			f->state = PW_SERIES_FLOOD;
		else {
			*err = g_strdup("state: complete, incomplete or flood");
			return false;
		}
	} else if (!strcmp(key, "series")) {
		if (!number(v, 1, G_MAXINT64, &n)) {
			*err = g_strdup("series: a series id (a number)");
			return false;
		}
		f->series_id = n;
	} else if (!strcmp(key, "per")) {
		if (strcmp(v, "day") && strcmp(v, "week")) {
			*err = g_strdup("per: day or week");
			return false;
		}
		f->by_week = !strcmp(v, "week");
	} else if (!strcmp(key, "order")) {
		if (strcmp(v, "newest") && strcmp(v, "oldest")) {
			*err = g_strdup("order: newest or oldest");
			return false;
		}
		f->newest_first = !strcmp(v, "newest");
	} else if (!strcmp(key, "limit")) {
		int64_t hi = r->max_limit ? r->max_limit : G_MAXINT32;

		if (!number(v, r->max_limit ? 1 : 0, hi, &n)) {
			*err = g_strdup_printf("limit: a number from %d to %" G_GINT64_FORMAT
					       "%s", r->max_limit ? 1 : 0, (gint64)hi,
					       r->max_limit ? "" : " (0: every row)");
			return false;
		}
		f->limit = n;
	} else if (!strcmp(key, "offset")) {
		if (!number(v, 0, MAX_OFFSET, &n)) {
			*err = g_strdup_printf("offset: a number from 0 to %d",
					       MAX_OFFSET);
			return false;
		}
		f->offset = n;
	} else if (!strcmp(key, "message")) {
		r->message = (char *)keep(r, v);
	}
	return true;
}

/* ---- printing each kind's rows ---- */

/* The names of the enum pw_flood_shared bits, lowest first. */
static const char *const shared_names[] = {
	"subject", "body", "shape", "patch_id",
};

static void flood_print(struct pw_printer *p, const struct pw_flood_info *f)
{
	size_t i;

	pw_print_begin_record(p);
	pw_print_int_at(p, "id", f->id);
	pw_print_str_at(p, "rule", f->rule);
	pw_print_str_at(p, "severity", pw_severity_str(f->severity));
	pw_print_str_at(p, "sender", f->sender_addr);
	pw_print_bool_at(p, "unauthenticated", f->unauthenticated);
	pw_print_str_at(p, "sender_name", f->sender_name);
	pw_print_str_at(p, "subject", f->subject);
	pw_print_int_at(p, "size", f->size);
	pw_print_int_at(p, "claimed_total", f->claimed_total);
	pw_print_time_at(p, "first_seen", f->first_seen);
	pw_print_time_at(p, "last_seen", f->last_seen);
	pw_print_time_at(p, "detected_at", f->detected_at);
	pw_print_strv_at(p, "lists", f->lists);
	pw_print_int_at(p, "recipients", f->recipients);
	pw_print_bool_at(p, "threaded", f->threaded);
	pw_print_int_at(p, "threaded_patches", f->nthreaded);
	pw_print_key(p, "shared");
	pw_print_begin_list(p);
	for (i = 0; i < G_N_ELEMENTS(shared_names); i++)
		if (f->shared & (1u << i))
			pw_print_string(p, shared_names[i]);
	pw_print_end(p);
	pw_print_key(p, "fingerprints");
	pw_print_begin_map(p);
	pw_print_str_at(p, "subject", *f->subject_fp ? f->subject_fp : NULL);
	pw_print_str_at(p, "body", *f->body_fp ? f->body_fp : NULL);
	pw_print_str_at(p, "shape", *f->shape_fp ? f->shape_fp : NULL);
	pw_print_end(p);
	pw_print_str_at(p, "first_message", f->first_msgid);
	pw_print_str_at(p, "key", f->key);
	pw_print_bool_at(p, "reported", f->reported_at != 0);
	pw_print_end(p);
}

void pw_report_finding(struct pw_printer *p, const struct pw_query_finding *q)
{
	pw_print_begin_record(p);
	pw_print_int_at(p, "id", q->id);
	pw_print_str_at(p, "rule", q->rule);
	pw_print_str_at(p, "severity", pw_severity_str(q->severity));
	pw_print_str_at(p, "msgid", q->msgid);
	pw_print_str_at(p, "from", q->from_addr);
	pw_print_str_at(p, "subject", q->subject);
	pw_print_date_at(p, "date", q->date);
	pw_print_str_at(p, "file", q->file);
	pw_print_int_at(p, "line", q->line);
	pw_print_int_at(p, "column", q->column);
	pw_print_str_at(p, "message", q->message);
	pw_print_str_at(p, "fix", q->fix);
	pw_print_end(p);
}

/* An id that may be none: null in JSON, nothing in text. */
static void id_at(struct pw_printer *p, const char *key, int64_t id)
{
	pw_print_key(p, key);
	if (id)
		pw_print_int(p, id);
	else
		pw_print_null(p);
}

static void series_print(struct pw_printer *p, const struct pw_query_series *q)
{
	pw_print_begin_record(p);
	pw_print_int_at(p, "id", q->id);
	pw_print_str_at(p, "name", q->name);
	pw_print_str_at(p, "sender", q->from_addr);
	pw_print_int_at(p, "version", q->version);
	pw_print_int_at(p, "total", q->total);
	pw_print_int_at(p, "patches", q->patches);
	pw_print_bool_at(p, "cover", q->has_cover);
	pw_print_date_at(p, "first_seen", q->first_date);
	pw_print_date_at(p, "last_seen", q->last_date);
	pw_print_int_at(p, "findings", q->findings);
	id_at(p, "flood", q->flood_id);
	pw_print_end(p);
}

static void patch_print(struct pw_printer *p, const struct pw_query_patch *q)
{
	pw_print_begin_record(p);
	pw_print_int_at(p, "id", q->id);
	pw_print_str_at(p, "msgid", q->msgid);
	pw_print_str_at(p, "from", q->from_addr);
	pw_print_str_at(p, "from_name", q->from_name);
	pw_print_str_at(p, "subject", q->subject);
	pw_print_date_at(p, "date", q->date);
	id_at(p, "series", q->series_id);
	pw_print_int_at(p, "number", q->number);
	pw_print_int_at(p, "total", q->total);
	pw_print_int_at(p, "version", q->version);
	pw_print_int_at(p, "findings", q->findings);
	id_at(p, "flood", q->flood_id);
	pw_print_end(p);
}

static void sender_print(struct pw_printer *p, const struct pw_query_sender *q)
{
	pw_print_begin_record(p);
	pw_print_str_at(p, "sender", q->addr);
	pw_print_str_at(p, "name", q->name);
	pw_print_int_at(p, "patches", q->patches);
	pw_print_int_at(p, "flagged_patches", q->flagged);
	pw_print_int_at(p, "findings", q->findings);
	pw_print_int_at(p, "floods", q->floods);
	pw_print_date_at(p, "first_seen", q->first_date);
	pw_print_date_at(p, "last_seen", q->last_date);
	pw_print_end(p);
}

static void stat_print(struct pw_printer *p, const struct pw_query_stat *q)
{
	pw_print_begin_record(p);
	pw_print_str_at(p, "period", q->period);
	pw_print_str_at(p, "list", q->list);
	pw_print_int_at(p, "messages", q->messages);
	pw_print_int_at(p, "patches", q->patches);
	pw_print_int_at(p, "pulls", q->pulls);
	pw_print_int_at(p, "findings", q->findings);
	pw_print_strv_at(p, "rules", q->rules);
	pw_print_end(p);
}

static void error_print(struct pw_printer *p, const struct pw_query_error *q)
{
	pw_print_begin_record(p);
	pw_print_int_at(p, "id", q->id);
	pw_print_time_at(p, "at", q->at);
	pw_print_str_at(p, "subscription", q->subscription);
	pw_print_str_at(p, "source", q->source);
	pw_print_str_at(p, "location", q->location);
	pw_print_str_at(p, "msgid", q->msgid);
	pw_print_str_at(p, "error", q->error);
	pw_print_int_at(p, "kept", q->kept);
	pw_print_end(p);
}

/* Prints one row of a kind read as a GPtrArray. */
static void row_print(struct pw_printer *p, enum pw_report_kind kind,
		      gconstpointer row)
{
	switch (kind) {
	case PW_REPORT_SERIES:
		series_print(p, row);
		break;
	case PW_REPORT_PATCHES:
		patch_print(p, row);
		break;
	case PW_REPORT_FINDINGS:
		pw_report_finding(p, row);
		break;
	case PW_REPORT_SENDERS:
		sender_print(p, row);
		break;
	case PW_REPORT_STATS:
		stat_print(p, row);
		break;
	case PW_REPORT_ERRORS:
		error_print(p, row);
		break;
	case PW_REPORT_FLOODS:
	case PW_REPORT_ATTENTION:
		break;
	}
}

/* One patch of the worklist. */
static void attention_item_print(struct pw_printer *p,
				 const struct pw_attention_item *q)
{
	pw_print_begin_record(p);
	pw_print_int_at(p, "patch", q->patch_id);
	pw_print_str_at(p, "msgid", q->msgid);
	pw_print_str_at(p, "subject", q->subject);
	pw_print_str_at(p, "from", q->from_addr);
	pw_print_str_at(p, "from_name", q->from_name);
	pw_print_date_at(p, "date", q->date);
	id_at(p, "series", q->series_id);
	id_at(p, "version", q->version);
	id_at(p, "versions", q->versions);
	pw_print_str_at(p, "severity", q->errors ? "error" : "warning");
	pw_print_strv_at(p, "rules", q->rules);
	pw_print_key(p, "counts");
	pw_print_begin_map(p);
	pw_print_int_at(p, "errors", q->errors);
	pw_print_int_at(p, "warnings", q->warnings);
	pw_print_end(p);
	pw_print_end(p);
}

/*
 * The worklist as {total, offset, items}: text, CSV and HTML show the
 * items (records), JSON the whole.
 */
static enum pw_status attention_print(struct pw_db *db,
				      const struct pw_report *r,
				      struct pw_printer *p, bool *more)
{
	GPtrArray *a = NULL;
	int64_t total = 0;
	enum pw_status s;
	guint i;

	s = pw_db_attention_list(db, &r->f, &total, &a);
	if (s)
		return s;
	pw_print_begin_map(p);
	pw_print_int_at(p, "total", total);
	pw_print_int_at(p, "offset", r->f.offset);
	pw_print_key(p, "items");
	pw_print_begin_list(p);
	for (i = 0; i < a->len; i++)
		attention_item_print(p, a->pdata[i]);
	pw_print_end(p);
	pw_print_end(p);
	*more = r->f.offset + (int64_t)a->len < total;
	g_ptr_array_unref(a);
	return PW_OK;
}

enum pw_status pw_report_attention_total(struct pw_db *db,
					 const struct pw_report *r,
					 int64_t *total)
{
	struct pw_query_filter f = r->f;
	GPtrArray *a = NULL;
	enum pw_status s;

	f.limit = 1;
	f.offset = 0;
	s = pw_db_attention_list(db, &f, total, &a);
	if (a)
		g_ptr_array_unref(a);
	return s;
}

/* The row id of the message msgid ("<...>" or bare) in *id, 0 for none. */
static enum pw_status message_find(struct pw_db *db, const char *msgid,
				   int64_t *id)
{
	size_t len = strlen(msgid);
	char *bare = len > 2 && *msgid == '<' && msgid[len - 1] == '>' ?
		g_strndup(msgid + 1, len - 2) : g_strdup(msgid);
	enum pw_status s;
	bool found;

	s = pw_db_message_find(db, bare, id, &found);
	if (!found)
		*id = 0;
	g_free(bare);
	return s;
}

/* The floods of r into *ids (new). */
static enum pw_status flood_ids(struct pw_db *db, const struct pw_report *r,
				const struct pw_query_filter *f, GArray **ids,
				char **err)
{
	int64_t mid, fid;
	enum pw_status s;
	bool found = false;

	if (!r->message)
		return pw_db_query_floods(db, f, ids);
	*ids = NULL;
	s = message_find(db, r->message, &mid);
	if (s)
		return s;
	if (!mid) {
		/* Not "in no flood": the store does not know it. */
		char *shown = g_utf8_make_valid(r->message, -1);

		*err = g_strdup_printf("no stored message has the Message-ID %s",
				       shown);
		g_free(shown);
		return PW_ERR_INPUT;
	}
	s = pw_db_flood_of_message(db, mid, &found, &fid);
	if (s)
		return s;
	*ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	if (found)
		g_array_append_val(*ids, fid);
	return PW_OK;
}

/* The floods: each read whole, in one read transaction. */
static enum pw_status floods_print(struct pw_db *db, const struct pw_report *r,
				   const struct pw_query_filter *f,
				   struct pw_printer *p, bool *more,
				   char **err)
{
	GArray *ids = NULL;
	enum pw_status s;
	guint i, shown = 0;
	bool begun = false;	/* the list is opened at the first flood */

	s = pw_db_begin(db);
	if (s)
		return s;
	s = flood_ids(db, r, f, &ids, err);
	if (s)
		goto out;
	for (i = 0; i < ids->len; i++) {
		struct pw_flood_info info;

		if (r->f.limit && shown == r->f.limit) {
			*more = true;
			break;
		}
		s = pw_db_flood_info(db, g_array_index(ids, int64_t, i), &info);
		if (s == PW_ERR_INPUT) {	/* merged meanwhile */
			s = PW_OK;
			continue;
		}
		if (s)
			goto out;
		if (!begun) {
			pw_print_begin_list(p);
			begun = true;
		}
		flood_print(p, &info);
		pw_db_flood_info_release(&info);
		shown++;
	}
out:
	/* A read that fails before the first flood prints nothing; one
	 * that fails midway closes what it opened. */
	if (!begun && !s)
		pw_print_begin_list(p);
	if (begun || !s)
		pw_print_end(p);
	if (ids)
		g_array_unref(ids);
	if (s) {
		pw_db_rollback(db);
		return s;
	}
	return pw_db_commit(db);
}

/* The rows of a report printed as the store hands them over. */
struct row_sink {
	struct pw_printer *p;
	enum pw_report_kind kind;
	int64_t limit;			/* rows to print; 0: all */
	int64_t printed;
	bool begun;			/* the list is opened at the first row */
	bool more;			/* a row past the page was read */
};

static bool row_each(gconstpointer row, void *data)
{
	struct row_sink *k = data;

	if (k->limit && k->printed == k->limit) {
		k->more = true;
		return false;
	}
	if (!k->begun) {
		pw_print_begin_list(k->p);
		k->begun = true;
	}
	row_print(k->p, k->kind, row);
	k->printed++;
	return true;
}

/* Whether r shows a series' lineage (its versions), not series. */
static bool lineage(const struct pw_report *r)
{
	return r->kind == PW_REPORT_SERIES && r->f.series_id;
}

enum pw_status pw_report_print(struct pw_db *db, const struct pw_report *r,
			       struct pw_printer *p, bool *more, char **err)
{
	struct pw_query_filter f = r->f;
	struct row_sink sink = { .p = p, .kind = r->kind, .limit = r->f.limit };
	enum pw_status s;
	bool dummy = false;
	GPtrArray *a;
	guint i, n;

	*err = NULL;
	if (!more)
		more = &dummy;
	*more = false;
	/* One row past the page says whether there is more. */
	if (f.limit)
		f.limit++;
	if (r->kind == PW_REPORT_FLOODS)
		return floods_print(db, r, &f, p, more, err);
	if (r->kind == PW_REPORT_ATTENTION)
		return attention_print(db, r, p, more);
	/* A series' lineage: its versions (bot/report_lineage.c). */
	if (lineage(r))
		return pw_report_lineage(db, f.series_id, f.min_severity, p);
	/* Rows straight from the store to the printer: memory stays flat
	 * however many rows a query reads (stats rows are few and are
	 * completed after their read). */
	if (r->kind != PW_REPORT_STATS) {
		f.each = row_each;
		f.each_data = &sink;
	}
	switch (r->kind) {
	case PW_REPORT_SERIES:
		s = pw_db_query_series(db, &f, &a);
		break;
	case PW_REPORT_PATCHES:
		s = pw_db_query_patches(db, &f, &a);
		break;
	case PW_REPORT_FINDINGS:
		s = pw_db_query_findings(db, &f, &a);
		break;
	case PW_REPORT_SENDERS:
		s = pw_db_query_senders(db, &f, &a);
		break;
	case PW_REPORT_ERRORS:
		s = pw_db_query_errors(db, &f, &a);
		break;
	default:
		s = pw_db_query_stats(db, &f, &a);
		break;
	}
	if (f.each) {
		/* A read that fails before its first row prints nothing; one
		 * that fails midway closes what it opened. */
		if (!sink.begun && !s)
			pw_print_begin_list(p);
		if (sink.begun || !s)
			pw_print_end(p);
		if (s)
			return s;
		g_ptr_array_unref(a);
		*more = sink.more;
		return PW_OK;
	}
	if (s)
		return s;
	n = a->len;
	if (r->f.limit && n > r->f.limit) {
		n = (guint)r->f.limit;
		*more = true;
	}
	pw_print_begin_list(p);
	for (i = 0; i < n; i++)
		row_print(p, r->kind, a->pdata[i]);
	pw_print_end(p);
	g_ptr_array_unref(a);
	return PW_OK;
}

void pw_report_message(struct pw_printer *p, const struct pw_query_message *m,
		       const char *commit_msg, const char *diff)
{
	guint i;

	pw_print_begin_record(p);
	pw_print_int_at(p, "id", m->id);
	pw_print_str_at(p, "msgid", m->msgid);
	pw_print_str_at(p, "kind", m->kind);
	pw_print_str_at(p, "from", m->from_addr);
	pw_print_str_at(p, "from_name", m->from_name);
	pw_print_str_at(p, "sender", m->sender_addr);
	pw_print_str_at(p, "sender_name", m->sender_name);
	pw_print_str_at(p, "subject", m->subject);
	pw_print_date_at(p, "date", m->date);
	pw_print_str_at(p, "in_reply_to", m->in_reply_to);
	pw_print_strv_at(p, "lists", m->lists);
	pw_print_int_at(p, "version", m->version);
	pw_print_int_at(p, "number", m->number);
	pw_print_int_at(p, "total", m->total);
	id_at(p, "patch", m->patch_id);
	id_at(p, "series", m->series_id);
	id_at(p, "flood", m->flood_id);
	pw_print_str_at(p, "commit_message", commit_msg);
	pw_print_str_at(p, "diff", diff);
	pw_print_key(p, "findings");
	pw_print_begin_list(p);
	for (i = 0; i < m->findings->len; i++)
		pw_report_finding(p, m->findings->pdata[i]);
	pw_print_end(p);
	pw_print_key(p, "replies");
	pw_print_begin_list(p);
	for (i = 0; i < m->replies->len; i++) {
		const struct pw_query_reply *q = m->replies->pdata[i];

		pw_print_begin_map(p);
		pw_print_int_at(p, "id", q->id);
		pw_print_str_at(p, "kind", q->kind);
		pw_print_str_at(p, "state", q->state);
		pw_print_str_at(p, "reason", q->reason);
		pw_print_str_at(p, "to", q->rcpt_to);
		pw_print_str_at(p, "subject", q->subject);
		pw_print_time_at(p, "created", q->created_at);
		if (q->sent_at)
			pw_print_time_at(p, "sent", q->sent_at);
		else
			pw_print_str_at(p, "sent", NULL);
		pw_print_str_at(p, "last_error", q->last_error);
		pw_print_end(p);
	}
	pw_print_end(p);
	pw_print_end(p);
}

void pw_report_outbox_row(struct pw_printer *p, const struct pw_outbox_row *r)
{
	char **rcpt = g_strsplit(r->recipients, "\n", -1);
	size_t i, n;

	/* The stored list is one address a line: no empty members. */
	for (i = n = 0; rcpt[i]; i++) {
		if (*rcpt[i])
			rcpt[n++] = rcpt[i];
		else
			g_free(rcpt[i]);
	}
	rcpt[n] = NULL;
	pw_print_begin_record(p);
	pw_print_int_at(p, "id", r->id);
	pw_print_str_at(p, "kind", r->kind);
	pw_print_str_at(p, "state", r->state);
	pw_print_str_at(p, "reason", r->reason);
	pw_print_str_at(p, "to", r->rcpt_to);
	pw_print_strv_at(p, "recipients", rcpt);
	pw_print_str_at(p, "from", r->mail_from);
	pw_print_str_at(p, "message_id", r->msgid);
	pw_print_str_at(p, "in_reply_to", r->in_reply_to);
	pw_print_str_at(p, "answers", r->answers);
	pw_print_str_at(p, "subject", r->subject);
	pw_print_int_at(p, "attempts", r->attempts);
	pw_print_str_at(p, "last_error", r->last_error);
	pw_print_int_at(p, "smtp_code", r->smtp_code);
	pw_print_int_at(p, "created_at", r->created_at);
	pw_print_int_at(p, "next_attempt", r->next_attempt);
	pw_print_int_at(p, "last_attempt", r->last_attempt);
	pw_print_int_at(p, "sent_at", r->sent_at);
	pw_print_str_at(p, "transport", r->transport);
	if (r->raw) {
		char *text = g_strndup(g_bytes_get_data(r->raw, NULL),
				       g_bytes_get_size(r->raw));

		pw_print_str_at(p, "raw", text);
		g_free(text);
	}
	pw_print_end(p);
	g_strfreev(rcpt);
}

/* ---- what a run stored ---- */

void pw_report_finding_counts(const struct pw_finding_counts *fc,
			      struct pw_count n[5])
{
	n[0] = (struct pw_count){ "findings", fc->findings };
	n[1] = (struct pw_count){ "findings_error", fc->severity[PW_SEV_ERROR] };
	n[2] = (struct pw_count){ "findings_warning", fc->severity[PW_SEV_WARNING] };
	n[3] = (struct pw_count){ "findings_info", fc->severity[PW_SEV_INFO] };
	n[4] = (struct pw_count){ "findings_flood", fc->flood };
}

void pw_report_stored(FILE *out, const char *name,
		      const struct pw_ingest_counts *c,
		      const struct pw_finding_counts *fc, bool removed,
		      const char *error, bool json)
{
	struct pw_count n[16];
	struct pw_printer *p;
	size_t k = 0, i;

	n[k++] = (struct pw_count){ "messages", c->messages };
	n[k++] = (struct pw_count){ "patches", c->patches };
	n[k++] = (struct pw_count){ "covers", c->covers };
	n[k++] = (struct pw_count){ "comments", c->comments };
	n[k++] = (struct pw_count){ "pulls", c->pulls };
	n[k++] = (struct pw_count){ "others", c->others };
	n[k++] = (struct pw_count){ "duplicates", c->duplicates };
	if (removed)
		n[k++] = (struct pw_count){ "removed", c->removed };
	n[k++] = (struct pw_count){ "errors", c->errors };
	pw_report_finding_counts(fc, n + k);
	k += 5;
	if (!json) {
		if (name)
			fprintf(out, "%s: ", name);
		fflush(out);
		pw_print_counts(n, k, false, out);
		if (error)
			fprintf(out, "%s: failed: %s\n", name ? name : "", error);
		fflush(out);
		return;
	}
	p = pw_printer_new(PW_FORMAT_JSON, out, NULL, PW_PRINTER_COMPACT);
	pw_print_begin_map(p);
	if (name)
		pw_print_str_at(p, "name", name);
	for (i = 0; i < k; i++)
		pw_print_int_at(p, n[i].name, n[i].value);
	if (name)
		pw_print_str_at(p, "error", error);
	pw_print_end(p);
	pw_printer_free(p);
}

/* ---- layouts ---- */

static const char *const text_layouts[] = {
	[PW_REPORT_SERIES] =
		"%(id) v%(version) %(patches)/%(total)%(if:cover) cover%(end)"
		" %(sender) %(first_seen) findings=%(findings)%(if:flood) flood%(end)"
		" \"%(name)\"\n",
	[PW_REPORT_PATCHES] =
		"%(id) %(date) <%(msgid)> %(from) findings=%(findings)"
		"%(if:flood) flood%(end) \"%(subject)\"\n",
	[PW_REPORT_FINDINGS] =
		"%(rule) %(severity) <%(msgid)> "
		"%(if:file)%(file)%(if:line):%(line)%(end)%(else)(patch)%(end)"
		": %(message)\n",
	[PW_REPORT_FLOODS] =
		"%(id) %(rule) %(severity) %(sender)"
		"%(if:unauthenticated) (unauthenticated)%(end) size=%(size)"
		"%(if:claimed_total) (claims %(claimed_total))%(end)"
		" first=%(first_seen) last=%(last_seen)"
		" lists=%(if:lists)%(lists)%(else)-%(end) recipients=%(recipients)"
		" %(if:threaded)threaded%(else)unthreaded%(end) \"%(subject)\"\n",
	[PW_REPORT_SENDERS] =
		"%(sender) patches=%(patches) flagged=%(flagged_patches)"
		" findings=%(findings) floods=%(floods) last=%(last_seen)\n",
	[PW_REPORT_STATS] =
		"%(period) %(if:list)%(list)%(else)-%(end) messages=%(messages)"
		" patches=%(patches)%(if:pulls) pulls=%(pulls)%(end)"
		" findings=%(findings)%(if:rules) %(rules)%(end)\n",
	[PW_REPORT_ERRORS] =
		"%(at) %(location)%(if:msgid) <%(msgid)>%(end): %(error)\n"
		"  from %(source)%(if:kept) (%(kept) bytes kept)%(end)\n",
	[PW_REPORT_ATTENTION] =
		"%(patch) %(severity:-7) %(date) <%(msgid)> %(from)"
		"%(if:version) v%(version)%(if:versions) of %(versions)%(end)%(end)"
		" errors=%(counts.errors) warnings=%(counts.warnings) %(rules)"
		" \"%(subject)\"\n",
};

const char *pw_report_layout(enum pw_report_kind kind)
{
	return text_layouts[kind];
}

static const char *const html_rows[] = {
	[PW_REPORT_SERIES] =
		"<tr><td><a href=\"/series/%(id)\">%(name)</a></td>"
		"<td>v%(version)</td><td class=\"n\">%(patches)%(if:total)"
		" of %(total)%(end)</td>"
		"<td><a href=\"/senders?from=%(sender:url)\">%(sender)</a></td>"
		"<td>%(last_seen)</td>"
		"<td class=\"n%(if:findings) bad%(end)\">%(findings)</td>"
		"<td>%(if:flood)<a href=\"/floods#f%(flood)\">flood</a>%(end)</td></tr>\n",
	[PW_REPORT_PATCHES] =
		"<tr><td><a href=\"/message/%(msgid:url)\">%(subject)</a></td>"
		"<td>%(from)</td><td>%(date)</td>"
		"<td class=\"n%(if:findings) bad%(end)\">%(findings)</td>"
		"<td>%(if:series)<a href=\"/series/%(series)\">series</a>%(end)</td></tr>\n",
	[PW_REPORT_FINDINGS] =
		"<tr class=\"sev-%(severity)\"><td>%(rule)</td><td>%(severity)</td>"
		"<td><a href=\"/message/%(msgid:url)\">%(subject)</a></td>"
		"<td><code>%(file)%(if:line):%(line)%(end)</code>%(if:file)%(if:line)%(else) (whole file)%(end)%(end)</td>"
		"<td>%(message)</td></tr>\n",
	[PW_REPORT_FLOODS] =
		"<tr id=\"f%(id)\"><td>%(id)</td><td>%(rule)</td>"
		"<td><a href=\"/senders?from=%(sender:url)\">%(sender)</a>"
		"%(if:unauthenticated) (unauthenticated)%(end)</td>"
		"<td class=\"n\">%(size)%(if:claimed_total) of %(claimed_total)%(end)</td>"
		"<td>%(first_seen)</td><td>%(last_seen)</td>"
		"<td>%(each:lists)<a href=\"/list/%(.:url)\">%(.)</a> %(end)</td>"
		"<td class=\"n\">%(recipients)</td><td>%(subject)</td>"
		"<td>%(if:reported)reported%(else)-%(end)</td></tr>\n",
	[PW_REPORT_SENDERS] =
		"<tr><td><a href=\"/patches?from=%(sender:url)\">%(sender)</a></td>"
		"<td>%(name)</td><td class=\"n\">%(patches)</td>"
		"<td class=\"n\">%(flagged_patches)</td>"
		"<td class=\"n\">%(findings)</td>"
		"<td class=\"n\">%(if:floods)<a href=\"/floods?from=%(sender:url)\">%(floods)</a>%(else)0%(end)</td>"
		"<td>%(last_seen)</td></tr>\n",
	[PW_REPORT_STATS] =
		"<tr><td>%(period)</td><td>%(list)</td><td class=\"n\">%(messages)</td>"
		"<td class=\"n\">%(patches)</td><td class=\"n\">%(pulls)</td>"
		"<td class=\"n\">%(findings)</td><td>%(rules)</td></tr>\n",
	[PW_REPORT_ERRORS] =
		"<tr><td>%(at)</td><td>%(subscription)</td><td><code>%(source)</code></td>"
		"<td><code>%(location)</code></td><td>%(if:msgid)<code>%(msgid)</code>%(end)</td>"
		"<td>%(error)</td><td class=\"n\">%(kept)</td></tr>\n",
	[PW_REPORT_ATTENTION] =
		"<tr class=\"sev-%(severity)\" data-patch=\"%(patch)\">"
		"<td>%(severity)</td><td>%(date)</td>"
		"<td><a href=\"/message/%(msgid:url)\">%(subject)</a></td>"
		"<td><a href=\"/senders?from=%(from:url)\">%(from)</a></td>"
		"<td>%(if:series)<a href=\"/series/%(series)\">v%(version)</a>"
		"%(if:versions) of %(versions)%(end)%(end)</td>"
		"<td>%(each:rules)<a href=\"/findings?rule=%(.:url)\">%(.)</a> %(end)</td>"
		"<td class=\"n\">%(counts.errors)</td>"
		"<td class=\"n\">%(counts.warnings)</td></tr>\n",
};

static const char *const html_heads[] = {
	[PW_REPORT_SERIES] = "<tr><th>series</th><th>version</th><th>patches</th>"
		"<th>sender</th><th>last seen</th><th>findings</th><th></th></tr>\n",
	[PW_REPORT_PATCHES] = "<tr><th>subject</th><th>from</th><th>date</th>"
		"<th>findings</th><th></th></tr>\n",
	[PW_REPORT_FINDINGS] = "<tr><th>rule</th><th>severity</th><th>patch</th>"
		"<th>where</th><th>finding</th></tr>\n",
	[PW_REPORT_FLOODS] = "<tr><th>id</th><th>rule</th><th>sender</th>"
		"<th>size</th><th>first</th><th>last</th><th>lists</th>"
		"<th>recipients</th><th>subject</th><th>report</th></tr>\n",
	[PW_REPORT_SENDERS] = "<tr><th>sender</th><th>name</th>"
		"<th>patches sent</th><th>patches with findings</th>"
		"<th>findings</th><th>floods</th><th>last seen</th></tr>\n",
	[PW_REPORT_STATS] = "<tr><th>period</th><th>list</th><th>messages</th>"
		"<th>patches</th><th>pull requests</th><th>findings</th><th>by rule</th></tr>\n",
	[PW_REPORT_ERRORS] = "<tr><th>when</th><th>subscription</th><th>source</th>"
		"<th>where</th><th>Message-ID</th><th>why</th><th>bytes kept</th></tr>\n",
	[PW_REPORT_ATTENTION] = "<tr><th>severity</th><th>date</th>"
		"<th>patch</th><th>from</th><th>version</th><th>rules</th>"
		"<th>errors</th><th>warnings</th></tr>\n",
};

const char *pw_report_html_row(enum pw_report_kind kind)
{
	return html_rows[kind];
}

const char *pw_report_html_head(enum pw_report_kind kind)
{
	return html_heads[kind];
}

const char *pw_report_layout_of(const struct pw_report *r)
{
	return lineage(r) ? pw_report_lineage_layout(PW_LINEAGE_TEXT) :
	       text_layouts[r->kind];
}

const char *pw_report_html_row_of(const struct pw_report *r)
{
	return lineage(r) ? pw_report_lineage_layout(PW_LINEAGE_HTML_ROW) :
	       html_rows[r->kind];
}

const char *pw_report_html_head_of(const struct pw_report *r)
{
	return lineage(r) ? pw_report_lineage_layout(PW_LINEAGE_HTML_HEAD) :
	       html_heads[r->kind];
}
