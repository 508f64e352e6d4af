/*
 * patchwarden: the dashboard's pages, API answers and feeds (see
 * bot/web_page.h).  Tables are the reports of bot/report.c through the
 * one printer: HTML rows (each value escaped by the printer), JSON or
 * CSV; what is not a table (the diff with its findings, the charts) is
 * escaped here, through pw_web_esc().
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/mail.h"
#include "bot/pubinbox.h"
#include "bot/printer.h"
#include "bot/report.h"
#include "bot/subscription.h"
#include "bot/web_chart.h"
#include "bot/web_diff.h"
#include "bot/web_page.h"
#include "bot/web_triage.h"
#include "checks/rules.h"
#include "db/attention.h"
#include "db/chart.h"
#include "db/flood.h"
#include "db/outbox.h"
#include "db/query.h"

/* Rows a page shows unless asked, and the most it shows. */
#define PAGE_ROWS 50
#define PAGE_MAX 500
/* Patches of a series whose diffs its page shows; the rest are listed. */
#define SERIES_DIFFS 25

/* ---- escaping and the frame ---- */

static void page_begin(struct pw_web_answer *a, const char *title)
{
	a->status = 200;
	a->type = "text/html; charset=utf-8";
	pw_web_page_begin(a->body, title);
}

static void page_end(struct pw_web_answer *a)
{
	pw_web_page_end(a->body);
}


/* The store failed: 503 when busy (try again), else 500. */
static void store_error(struct pw_web_answer *a, bool api, struct pw_db *db,
			enum pw_status s)
{
	pw_web_answer_error(a, api, s == PW_ERR_TRANSIENT ? 503 : 500,
			    "the store could not be read: %s", pw_db_errmsg(db));
}

/* Query parameters that are not filters. */
static bool not_filter(const char *key, bool api)
{
	return api && !strcmp(key, "format");
}

/*
 * A report of kind from args (empty values are absent, as a form sends
 * them).  NULL after answering a 400 with the reason.
 */
static struct pw_report *report_from(struct pw_db *db, const char *kind,
				     GHashTable *args, bool api,
				     struct pw_web_answer *a)
{
	struct pw_report *r;
	GHashTableIter it;
	gpointer k, v;
	char *err = NULL;

	r = pw_report_new(kind, PAGE_ROWS, PAGE_MAX, true, &err);
	if (!r) {
		pw_web_answer_error(a, api, 404, "%s", err);
		g_free(err);
		return NULL;
	}
	g_hash_table_iter_init(&it, args);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		if (not_filter(k, api) || !v || !*(const char *)v)
			continue;
		if (!strcmp(k, "message") || !pw_report_set(r, db, k, v, &err)) {
			pw_web_answer_error(a, api, 400, "%s", err ? err :
					    "message: not a filter here");
			g_free(err);
			pw_report_free(r);
			return NULL;
		}
	}
	return r;
}

/* The report's table into o (HTML); false after answering an error. */
static bool report_table(struct pw_db *db, const struct pw_report *r,
			 GString *o, bool *more, struct pw_web_answer *a)
{
	struct pw_printer *p;
	struct pw_web_sink s;
	enum pw_status st;
	GString *rows = g_string_new(NULL);
	char *err = NULL;

	p = pw_web_printer(&s, PW_FORMAT_HTML, pw_report_html_row_of(r), 0);
	st = pw_report_print(db, r, p, more, &err);
	pw_web_printer_done(&s, p, rows);
	if (st) {
		if (err)
			pw_web_answer_error(a, false, 400, "%s", err);
		else
			store_error(a, false, db, st);
		g_free(err);
		g_string_free(rows, TRUE);
		return false;
	}
	if (!rows->len) {
		g_string_append(o, "<p>Nothing found.</p>\n");
	} else {
		g_string_append(o, "<table>\n");
		g_string_append(o, pw_report_html_head_of(r));
		g_string_append_len(o, rows->str, (gssize)rows->len);
		g_string_append(o, "</table>\n");
	}
	g_string_free(rows, TRUE);
	return true;
}

/* The keys a report page's form offers, in order. */
static const char *const form_keys[] = {
	"list", "from", "since", "until", "rule", "severity", "path", "version",
	"has-findings", "state", "series", "per", "order", "limit", "age",
};

/* A link to path with args, offset replaced by offset. */
static void page_link(GString *o, const char *path, GHashTable *args,
		      int64_t offset, const char *text)
{
	GList *keys = g_list_sort(g_hash_table_get_keys(args),
				  (GCompareFunc)strcmp), *l;
	bool first = true;

	g_string_append(o, "<a href=\"");
	pw_web_esc(o, path);
	for (l = keys; l; l = l->next) {
		const char *v = g_hash_table_lookup(args, l->data);

		if (!strcmp(l->data, "offset") || !v || !*v)
			continue;
		g_string_append(o, first ? "?" : "&amp;");
		first = false;
		pw_web_esc_url(o, l->data);
		g_string_append_c(o, '=');
		pw_web_esc_url(o, v);
	}
	g_string_append_printf(o, "%soffset=%" G_GINT64_FORMAT "\">%s</a> ",
			       first ? "?" : "&amp;", (gint64)offset, text);
	g_list_free(keys);
}

/*
 * The senders page's second table: who sent mail a machine sent
 * (message.automated), under the page's filters.  False after
 * answering an error.
 */
static bool senders_automated(struct pw_db *db, GHashTable *args, GString *o,
			      struct pw_web_answer *a)
{
	struct pw_report *r = report_from(db, "senders", args, false, a);
	bool more = false, ok;

	if (!r)
		return false;
	r->f.automated = 1;
	g_string_append(o, "<h2 id=\"automated\">Automated mail</h2>\n"
			"<p class=\"hint\">Patches a machine sent: bots, the"
			" stable trees' review and backport postings (which"
			" carry another author's commit), mail marked"
			" Auto-Submitted. Not counted above.</p>\n");
	ok = report_table(db, r, o, &more, a);
	pw_report_free(r);
	return ok;
}

/*
 * The worklist's size under its filters, above its table (/attention);
 * false after answering an error.
 */
static bool attention_total(struct pw_db *db, const struct pw_report *r,
			    GString *o, struct pw_web_answer *a)
{
	enum pw_status st;
	int64_t total = 0;

	if ((st = pw_report_attention_total(db, r, &total))) {
		store_error(a, false, db, st);
		return false;
	}
	g_string_append_printf(o, "<p class=\"hint\"><span class=\"total\">%"
			       G_GINT64_FORMAT "</span> patch%s with warnings or"
			       " errors not yet triaged, errors first, newest"
			       " first; superseded, applied and rejected"
			       " patches are left out.</p>\n", (gint64)total,
			       total == 1 ? "" : "es");
	return true;
}

/* /series, /patches, /findings, /floods, /senders, /stats, /errors,
 * /attention. */
static void report_page(struct pw_db *db, const char *kind, GHashTable *args,
			struct pw_web_answer *a)
{
	struct pw_report *r = report_from(db, kind, args, false, a);
	GString *o = a->body;
	char *path;
	bool more = false;
	size_t i;

	if (!r)
		return;
	page_begin(a, kind);
	/* A form of the filters the report takes: usable without JavaScript. */
	g_string_append_printf(o, "<form method=\"get\" action=\"/%s\">", kind);
	for (i = 0; i < G_N_ELEMENTS(form_keys); i++) {
		const char *v;

		if (!pw_report_takes(r, form_keys[i]))
			continue;
		v = g_hash_table_lookup(args, form_keys[i]);
		g_string_append_printf(o, "<label>%s <input name=\"%s\"%s value=\"",
				       form_keys[i], form_keys[i],
				       strcmp(form_keys[i], "severity") ? "" :
				       " placeholder=\"warning\"");
		pw_web_esc(o, v);
		g_string_append(o, "\"></label>");
	}
	g_string_append_printf(o, "<button>filter</button> <a href=\"/api/%s\">"
			       "JSON</a></form>\n", kind);
	/* Info findings are hidden unless asked: said, with the way to them. */
	if (pw_report_takes(r, "severity") && r->f.min_severity > PW_SEV_INFO) {
		GHashTable *with = g_hash_table_new(g_str_hash, g_str_equal);
		GHashTableIter it;
		gpointer k, v;

		g_hash_table_iter_init(&it, args);
		while (g_hash_table_iter_next(&it, &k, &v))
			g_hash_table_insert(with, k, v);
		g_hash_table_insert(with, "severity", "info");
		g_string_append_printf(o, "<p class=\"hint\">Shown and counted:"
				       " findings at %s and above. ",
				       pw_severity_str(r->f.min_severity));
		path = g_strdup_printf("/%s", kind);
		page_link(o, path, with, 0, "show every finding");
		g_free(path);
		g_string_append(o, "</p>\n");
		g_hash_table_destroy(with);
	}
	if (!strcmp(kind, "senders")) {
		/* People apart from machines: a stable tree's scripts post
		 * other authors' commits, a bot its reports. */
		r->f.automated = -1;
		g_string_append(o, "<p class=\"hint\">Patches sent by people."
				" A patch with findings has at least one shown here;"
				" the findings are those shown. Mail a machine sent"
				" (bots, the stable trees' scripts) is counted apart,"
				" <a href=\"#automated\">below</a>.</p>\n");
	}
	if (r->kind == PW_REPORT_ATTENTION && !attention_total(db, r, o, a))
		goto out;
	if (!report_table(db, r, o, &more, a))
		goto out;
	if (!strcmp(kind, "senders") && !senders_automated(db, args, o, a))
		goto out;
	path = g_strdup_printf("/%s", kind);
	if (r->f.offset > 0)
		page_link(o, path, args, MAX(0, r->f.offset - r->f.limit),
			  "&larr; newer");
	if (more)
		page_link(o, path, args, r->f.offset + r->f.limit, "older &rarr;");
	g_free(path);
	page_end(a);
out:
	pw_report_free(r);
}

/* /api/KIND: the report as JSON (or CSV with format=csv). */
static void api_report(struct pw_db *db, const char *kind, GHashTable *args,
		       struct pw_web_answer *a)
{
	const char *format = g_hash_table_lookup(args, "format");
	struct pw_report *r;
	struct pw_printer *p;
	enum pw_format fmt;
	struct pw_web_sink s;
	enum pw_status st;
	char *err = NULL;
	bool more = false;

	if (format && *format && (!pw_format_parse(format, true, &fmt) ||
				  fmt == PW_FORMAT_TEXT)) {
		pw_web_answer_error(a, true, 400, "format: json or csv");
		return;
	}
	if (!format || !*format)
		fmt = PW_FORMAT_JSON;
	r = report_from(db, kind, args, true, a);
	if (!r)
		return;
	p = pw_web_printer(&s, fmt, NULL, 0);
	st = pw_report_print(db, r, p, &more, &err);
	pw_web_printer_done(&s, p, st ? NULL : a->body);
	if (st) {
		if (err)
			pw_web_answer_error(a, true, 400, "%s", err);
		else
			store_error(a, true, db, st);
	} else {
		a->status = 200;
		a->type = fmt == PW_FORMAT_CSV ? "text/csv; charset=utf-8" :
			"application/json";
	}
	g_free(err);
	pw_report_free(r);
}

/* ---- findings not shown ---- */

/*
 * The severity= of a page that lists findings (PW_REPORT_MIN_SEVERITY
 * when absent) into *min; false after answering a 400.
 */
static bool page_severity(GHashTable *args, enum pw_severity *min,
			  struct pw_web_answer *a)
{
	const char *v = args ? g_hash_table_lookup(args, "severity") : NULL;

	*min = PW_REPORT_MIN_SEVERITY;
	if (!v || !*v)
		return true;
	if (!pw_severity_parse(v, min)) {
		pw_web_answer_error(a, false, 400, "severity: info, warning or error");
		return false;
	}
	return true;
}

/*
 * The findings of all at least min severe (a new array borrowing its
 * elements); *hidden receives the number of the others.
 */
static GPtrArray *shown_findings(GPtrArray *all, enum pw_severity min,
				 int64_t *hidden)
{
	GPtrArray *v = g_ptr_array_new();
	guint i;

	for (i = 0; i < all->len; i++) {
		const struct pw_query_finding *f = all->pdata[i];

		if (f->severity >= min)
			g_ptr_array_add(v, all->pdata[i]);
		else
			(*hidden)++;
	}
	return v;
}

/* Says that hidden findings below the severity shown are not shown,
 * with a link to path (a page's own) showing every one. */
static void hidden_note(GString *o, int64_t hidden, enum pw_severity min,
			const char *path)
{
	if (!hidden)
		return;
	g_string_append_printf(o, "<p class=\"hint\">%" G_GINT64_FORMAT
			       " finding%s below %s not shown: <a href=\"",
			       (gint64)hidden, hidden == 1 ? "" : "s",
			       pw_severity_str(min));
	pw_web_esc(o, path);
	g_string_append(o, "?severity=info\">show every finding</a>.</p>\n");
}

/* ---- one message, one series ---- */

static const char message_head[] =
	"<table class=\"counts\">"
	"<tr><th>from</th><td>%(from_name) &lt;<a href=\"/patches?from=%(from:url)\">%(from)</a>&gt;</td></tr>"
	"%(if:sender)<tr><th>posted by</th><td>%(sender_name) &lt;%(sender)&gt;</td></tr>%(end)"
	"<tr><th>date</th><td>%(date)</td></tr>"
	"<tr><th>Message-ID</th><td><code>%(msgid)</code></td></tr>"
	"<tr><th>lists</th><td>%(each:lists)<a href=\"/list/%(.:url)\">%(.)</a> %(end)</td></tr>"
	"%(if:series)<tr><th>series</th><td><a href=\"/series/%(series)\">series %(series)</a>"
	"%(if:total) (patch %(number) of %(total))%(end), v%(version)</td></tr>%(end)"
	"%(if:flood)<tr><th>flood</th><td><a href=\"/floods#f%(flood)\">flood %(flood)</a></td></tr>%(end)"
	"</table>\n";

static void message_page(struct pw_db *db, const char *msgid,
			 GHashTable *args, struct pw_web_answer *a, bool api)
{
	struct pw_query_message *m = NULL;
	enum pw_severity min = PW_SEV_INFO;
	GPtrArray *shown;
	struct pw_printer *p;
	struct pw_web_sink s;
	enum pw_status st;
	int64_t hidden = 0;
	char *path, *esc_msgid;
	bool found;
	guint i;

	/* The API's record is whole: every finding, with its severity. */
	if (!api && !page_severity(args, &min, a))
		return;
	st = pw_db_query_message(db, msgid, &m, &found);
	if (st) {
		store_error(a, api, db, st);
		return;
	}
	if (!found) {
		pw_web_answer_error(a, api, 404, "no stored message has this"
				    " Message-ID");
		return;
	}
	if (api) {
		GBytes *raw = NULL;
		struct pw_mail *mail = NULL;
		char *diff = NULL;

		/* The commit message and the diff as sent (a damaged
		 * one whole), read from its bytes as the page reads them. */
		pw_pubinbox_message(db, m->id, &raw);
		if (raw) {
			gsize n;
			const char *b = g_bytes_get_data(raw, &n);

			if (pw_mail_parse(b, n, &mail, NULL) == PW_OK && mail->diff)
				diff = g_strconcat(mail->diff, mail->diff_rest ?
						   mail->diff_rest : "", NULL);
			g_bytes_unref(raw);
		}
		p = pw_web_printer(&s, PW_FORMAT_JSON, NULL, 0);
		pw_report_message(p, m, mail ? mail->commit_msg : NULL, diff);
		g_free(diff);
		pw_mail_free(mail);
		pw_web_printer_done(&s, p, a->body);
		a->status = 200;
		a->type = "application/json";
		pw_query_message_free(m);
		return;
	}
	page_begin(a, m->subject);
	p = pw_web_printer(&s, PW_FORMAT_HTML, message_head, 0);
	pw_report_message(p, m, NULL, NULL);
	pw_web_printer_done(&s, p, a->body);
	if (m->replies->len) {
		g_string_append(a->body, "<h2>Replies</h2><table><tr><th>id</th>"
				"<th>state</th><th>why</th><th>to</th><th>created</th>"
				"<th>sent</th></tr>\n");
		for (i = 0; i < m->replies->len; i++) {
			const struct pw_query_reply *q = m->replies->pdata[i];
			char *c = pw_iso_time(q->created_at);
			char *t = q->sent_at ? pw_iso_time(q->sent_at) : g_strdup("");

			g_string_append_printf(a->body, "<tr><td>%" G_GINT64_FORMAT
					       "</td><td>", (gint64)q->id);
			pw_web_esc(a->body, q->state);
			g_string_append(a->body, "</td><td>");
			pw_web_esc(a->body, q->reason ? q->reason : q->last_error);
			g_string_append(a->body, "</td><td>");
			pw_web_esc(a->body, q->rcpt_to);
			g_string_append_printf(a->body, "</td><td>%s</td><td>%s</td></tr>\n",
					       c, t);
			g_free(c);
			g_free(t);
		}
		g_string_append(a->body, "</table>\n");
	}
	pw_web_triage_section(db, m, a->body);
	g_string_append_printf(a->body, "<h2>Patch</h2>\n");
	shown = shown_findings(m->findings, min, &hidden);
	esc_msgid = g_uri_escape_string(msgid, NULL, FALSE);
	path = g_strdup_printf("/message/%s", esc_msgid);
	g_free(esc_msgid);
	hidden_note(a->body, hidden, min, path);
	pw_web_message_body(db, m->id, shown, a->body);
	page_end(a);
	g_free(path);
	g_ptr_array_unref(shown);
	pw_query_message_free(m);
}

static void series_page(struct pw_db *db, const char *id_text,
			GHashTable *args, struct pw_web_answer *a)
{
	struct pw_query_filter f = { 0 };
	GPtrArray *series = NULL, *patches = NULL;
	struct pw_query_series *se;
	enum pw_severity min;
	enum pw_status st;
	int64_t hidden = 0;
	char *end;
	guint i;

	if (!page_severity(args, &min, a))
		return;
	/* The counts shown are of the findings shown. */
	f.min_severity = min;
	f.series_only = g_ascii_strtoll(id_text, &end, 10);
	if (!g_ascii_isdigit(*id_text) || *end || f.series_only <= 0) {
		pw_web_answer_error(a, false, 404, "no such series");
		return;
	}
	st = pw_db_query_series(db, &f, &series);
	if (!st && series->len) {
		f.series_id = f.series_only;
		f.series_only = 0;
		st = pw_db_query_patches(db, &f, &patches);
	}
	if (st) {
		store_error(a, false, db, st);
		goto out;
	}
	if (!series->len) {
		pw_web_answer_error(a, false, 404, "no such series");
		goto out;
	}
	se = series->pdata[0];
	page_begin(a, se->name);
	/* A series whose subject announced no count has no total. */
	if (se->total)
		g_string_append_printf(a->body, "<p>v%d, %d of %d patches%s, from ",
				       se->version, se->patches, se->total,
				       se->has_cover ? ", with a cover letter" : "");
	else
		g_string_append_printf(a->body, "<p>v%d, %d patch%s (no count"
				       " announced)%s, from ", se->version,
				       se->patches, se->patches == 1 ? "" : "es",
				       se->has_cover ? ", with a cover letter" : "");
	pw_web_esc(a->body, se->from_addr);
	g_string_append_printf(a->body, "; %d finding%s at %s and above%s.</p>\n",
			       se->findings, se->findings == 1 ? "" : "s",
			       pw_severity_str(min),
			       se->flood_id ? "; part of a <a href=\"/floods\">flood</a>" : "");
	/* Its versions, what each fixed (bot/report_lineage.c). */
	{
		struct pw_report *lr = pw_report_new("series", 0, 0, false, NULL);
		bool more;

		lr->f.series_id = se->id;
		lr->f.min_severity = min;
		g_string_append(a->body, "<h2>Versions</h2>\n");
		if (!report_table(db, lr, a->body, &more, a)) {
			pw_report_free(lr);
			goto out;
		}
		pw_report_free(lr);
	}
	/* The findings of every patch of it, to say how many are not shown. */
	{
		struct pw_query_filter all = { .series_id = se->id };
		GPtrArray *fs = NULL, *shown;
		char *path;

		st = pw_db_query_findings(db, &all, &fs);
		if (st) {
			store_error(a, false, db, st);
			goto out;
		}
		shown = shown_findings(fs, min, &hidden);
		path = g_strdup_printf("/series/%" G_GINT64_FORMAT, (gint64)se->id);
		hidden_note(a->body, hidden, min, path);
		g_free(path);
		g_ptr_array_unref(shown);
		g_ptr_array_unref(fs);
		hidden = 0;
	}
	g_string_append(a->body, "<ol>\n");
	for (i = 0; i < patches->len; i++) {
		const struct pw_query_patch *q = patches->pdata[i];

		g_string_append(a->body, "<li><a href=\"");
		if (i < SERIES_DIFFS)
			g_string_append_printf(a->body, "#p%" G_GINT64_FORMAT,
					       (gint64)q->id);
		else {
			g_string_append(a->body, "/message/");
			pw_web_esc_url(a->body, q->msgid);
		}
		g_string_append(a->body, "\">");
		pw_web_esc(a->body, q->subject);
		g_string_append_printf(a->body, "</a> (%d findings)</li>\n",
				       q->findings);
	}
	g_string_append(a->body, "</ol>\n");
	for (i = 0; i < patches->len && i < SERIES_DIFFS; i++) {
		const struct pw_query_patch *q = patches->pdata[i];
		struct pw_query_filter ff = { .message_id = q->message_id };
		GPtrArray *fs = NULL, *shown;

		g_string_append_printf(a->body, "<h2 id=\"p%" G_GINT64_FORMAT
				       "\"><a href=\"/message/", (gint64)q->id);
		pw_web_esc_url(a->body, q->msgid);
		g_string_append(a->body, "\">");
		pw_web_esc(a->body, q->subject);
		g_string_append(a->body, "</a></h2>\n");
		st = pw_db_query_findings(db, &ff, &fs);
		if (st) {
			store_error(a, false, db, st);
			goto out;
		}
		shown = shown_findings(fs, min, &hidden);
		pw_web_message_body(db, q->message_id, shown, a->body);
		g_ptr_array_unref(shown);
		g_ptr_array_unref(fs);
	}
	page_end(a);
out:
	if (series)
		g_ptr_array_unref(series);
	if (patches)
		g_ptr_array_unref(patches);
}

/* ---- overview ---- */

/* Patches of each list the attention queue shows. */
#define QUEUE_PER_LIST 10
/* A flood is in progress while its latest patch is this recent. */
#define FLOOD_RECENT "7d"

/* The patches with warnings or errors, per list, newest first. */
static void attention_patches(GString *o, GPtrArray *queue)
{
	const char *list = NULL;
	guint i;

	for (i = 0; i < queue->len; i++) {
		const struct pw_attention_patch *p = queue->pdata[i];
		char *t;

		if (!list || strcmp(list, p->list)) {
			if (list)
				g_string_append(o, "</table>\n");
			list = p->list;
			g_string_append(o, "<h3>");
			if (*p->list) {
				g_string_append(o, "<a href=\"/list/");
				pw_web_esc_url(o, p->list);
				g_string_append(o, "\">");
				pw_web_esc(o, p->list);
				g_string_append(o, "</a>");
			} else {
				g_string_append(o, "(on no list)");
			}
			g_string_append_printf(o, ": <span class=\"queue-count\">%"
					       G_GINT64_FORMAT "</span> patch%s with"
					       " warnings or errors", (gint64)p->list_total,
					       p->list_total == 1 ? "" : "es");
			if (p->list_total > QUEUE_PER_LIST)
				g_string_append_printf(o, ", the newest %d shown",
						       QUEUE_PER_LIST);
			g_string_append(o, "</h3>\n<table class=\"queue\"><tr><th>date</th>"
					"<th>patch</th><th>from</th><th>errors</th>"
					"<th>warnings</th></tr>\n");
		}
		t = p->date ? pw_iso_time(p->date) : g_strdup("unknown");
		g_string_append_printf(o, "<tr class=\"sev-%s\"><td>%s</td>"
				       "<td><a href=\"/message/",
				       p->errors ? "error" : "warning", t);
		pw_web_esc_url(o, p->msgid);
		g_string_append(o, "\">");
		pw_web_esc(o, p->subject);
		g_string_append(o, "</a></td><td>");
		pw_web_esc(o, *p->from_name ? p->from_name : p->from_addr);
		g_string_append_printf(o, "</td><td class=\"n\">%d</td>"
				       "<td class=\"n\">%d</td></tr>\n",
				       p->errors, p->warnings);
		g_free(t);
	}
	if (list)
		g_string_append(o, "</table>\n");
}

/* Campaigns shown on the overview, newest first. */
#define CAMPAIGNS_SHOWN 20

/*
 * Campaigns (FLOOD_CAMPAIGN, db/FLOODS.md): near-identical patches sent
 * one by one at a reviewable pace, no flood.  Nothing to do about them:
 * a row each, after what needs attention, with its pace and members.
 */
static bool campaigns(struct pw_db *db, GString *o, struct pw_web_answer *a)
{
	GPtrArray *v = NULL;
	enum pw_status st;
	guint i;
	int k;

	if ((st = pw_db_flood_campaigns(db, 0, CAMPAIGNS_SHOWN, &v))) {
		store_error(a, false, db, st);
		return false;
	}
	if (v->len)
		g_string_append(o, "<section class=\"campaigns\"><h2>Campaigns</h2>\n"
				"<p class=\"hint\">Near-identical patches of one"
				" sender sent one by one, slower than a flood, to"
				" one subsystem (FLOOD_CAMPAIGN, info): noted, never"
				" answered.</p>\n<table class=\"campaigns\"><tr>"
				"<th>id</th><th>last</th><th>sender</th><th>subject</th>"
				"<th>pace</th><th>members</th></tr>\n");
	for (i = 0; i < v->len; i++) {
		const struct pw_flood_campaign *c = v->pdata[i];
		char *t = pw_iso_time(c->last);
		char *pace = pw_flood_campaign_pace(c->size, c->first, c->last);

		g_string_append_printf(o, "<tr id=\"c%" G_GINT64_FORMAT "\">"
				       "<td class=\"n\">%" G_GINT64_FORMAT "</td>"
				       "<td>%s</td><td>", (gint64)c->id,
				       (gint64)c->id, t);
		pw_web_esc(o, c->sender);
		g_string_append(o, "</td><td>");
		pw_web_esc(o, c->subject);
		g_string_append_printf(o, "</td><td>%s</td><td>", pace);
		for (k = 0; c->members[k]; k++) {
			g_string_append_printf(o, "%s<a href=\"/message/",
					       k ? " " : "");
			pw_web_esc_url(o, c->members[k]);
			g_string_append_printf(o, "\">%d</a>", k + 1);
		}
		g_string_append(o, "</td></tr>\n");
		g_free(pace);
		g_free(t);
	}
	if (v->len)
		g_string_append(o, "</table></section>\n");
	g_ptr_array_unref(v);
	return true;
}

/* Patches of the worklist (/attention) the overview shows. */
#define WORKLIST_HEAD 10

/*
 * The head of the worklist, errors first (the rows of /attention), and
 * a link to the whole; false after answering an error.
 */
static bool worklist_head(struct pw_db *db, GString *o,
			  struct pw_web_answer *a)
{
	struct pw_report *r = pw_report_new("attention", WORKLIST_HEAD,
					    WORKLIST_HEAD, true, NULL);
	enum pw_status st;
	int64_t total = 0;
	bool more = false, ok = false;

	if ((st = pw_report_attention_total(db, r, &total))) {
		store_error(a, false, db, st);
		goto out;
	}
	ok = true;
	if (!total)
		goto out;
	g_string_append_printf(o, "<h3 class=\"worklist\">Worklist: errors first,"
			       " then warnings, newest first (<a href=\"/attention\">"
			       "all %" G_GINT64_FORMAT "</a>)</h3>\n", (gint64)total);
	ok = report_table(db, r, o, &more, a);
out:
	pw_report_free(r);
	return ok;
}

/*
 * What needs attention, at the top of the overview: untriaged patches
 * with warnings or errors, floods in progress, subscriptions failing.
 */
static bool attention(struct pw_db *db, const struct pw_config *cfg,
		      GPtrArray *subs, GString *o, struct pw_web_answer *a)
{
	struct pw_report *floods = pw_report_new("floods", 20, 20, true, NULL);
	GPtrArray *queue = NULL;
	GArray *recent = NULL;
	enum pw_status st;
	char *err = NULL;
	guint i, failing = 0;
	bool more, ok = false;
	int64_t now = (int64_t)time(NULL), until;

	if (!pw_report_set(floods, db, "since", FLOOD_RECENT, &err)) {
		pw_web_answer_error(a, false, 500, "%s", err);
		goto out;
	}
	if ((st = pw_db_attention_patches(db, PW_REPORT_MIN_SEVERITY,
					  QUEUE_PER_LIST, &queue)) ||
	    (st = pw_db_query_floods(db, &floods->f, &recent))) {
		store_error(a, false, db, st);
		goto out;
	}
	g_string_append(o, "<section class=\"attention\"><h2>Needs attention</h2>\n");
	for (i = 0; i < subs->len; i++) {
		const struct pw_subscription *u = subs->pdata[i];
		char *why;
		const char *state = pw_subscription_state(u, cfg->web_stale_after,
							  now, &why, &until);
		bool bad = !strcmp(state, "failing") || !strcmp(state, "stale");

		/* The page shows states: made again when one changes. */
		if (!a->expires || a->expires > now + 60)
			a->expires = now + 60;
		if (until && until < a->expires)
			a->expires = until;
		if (!bad && !u->unreadable) {
			g_free(why);
			continue;
		}
		if (!failing++)
			g_string_append(o, "<h3>Subscriptions stale, failing or with"
					" unreadable messages</h3><ul class=\"failing\">\n");
		g_string_append(o, "<li><a href=\"/subscriptions#sub-");
		g_string_append_printf(o, "%" G_GINT64_FORMAT "\">", (gint64)u->id);
		pw_web_esc(o, u->name);
		g_string_append(o, "</a>: ");
		if (bad) {
			g_string_append_printf(o, "<b class=\"bad\">%s</b>: ", state);
			pw_web_esc(o, why);
			if (u->unreadable)
				g_string_append(o, "; ");
		}
		g_free(why);
		if (u->unreadable)
			g_string_append_printf(o, "<a href=\"/errors\">%" G_GINT64_FORMAT
					       " unreadable message%s</a>",
					       (gint64)u->unreadable,
					       u->unreadable == 1 ? "" : "s");
		g_string_append(o, "</li>\n");
	}
	if (failing)
		g_string_append(o, "</ul>\n");
	if (recent->len) {
		g_string_append_printf(o, "<h3>Floods in progress</h3>\n<p class=\"hint\">"
				       "Floods whose latest patch came in the last %s:"
				       " their patches are not listed one by one"
				       " below.</p>\n", FLOOD_RECENT);
		if (!report_table(db, floods, o, &more, a))
			goto out;
	}
	if (!worklist_head(db, o, a))
		goto out;
	attention_patches(o, queue);
	if (!failing && !recent->len && !queue->len)
		g_string_append(o, "<p class=\"nothing\">Nothing needs attention:"
				" no patch with warnings or errors, no flood in"
				" progress, no subscription stale or failing.</p>\n");
	g_string_append(o, "</section>\n");
	ok = true;
out:
	g_free(err);
	pw_report_free(floods);
	if (queue)
		g_ptr_array_unref(queue);
	if (recent)
		g_array_unref(recent);
	return ok;
}

/*
 * The charts: findings and floods over the store's sane dates (db/chart.h),
 * per day, week or month, on one time axis.
 */
static bool charts(struct pw_db *db, GString *o, struct pw_web_answer *a)
{
	struct pw_chart_range range;
	struct pw_web_chart c = { 0 };
	GPtrArray *findings = NULL, *floods = NULL;
	enum pw_status st;
	char *from, *to;

	st = pw_db_chart_range(db, (int64_t)(g_get_real_time() / G_USEC_PER_SEC),
			       &range);
	if (st) {
		store_error(a, false, db, st);
		return false;
	}
	if (!range.last) {
		g_string_append(o, "<p>No dated message to chart.</p>\n");
		return true;
	}
	c.step = pw_web_chart_step_for(range.first, range.last);
	c.start = pw_chart_step_start(c.step, range.first);
	c.end = pw_chart_step_next(c.step, range.last);
	if ((st = pw_db_chart_findings(db, c.step, c.start, c.end,
				       PW_REPORT_MIN_SEVERITY, &findings)) ||
	    (st = pw_db_chart_floods(db, c.step, c.start, c.end, &floods))) {
		store_error(a, false, db, st);
		if (findings)
			g_ptr_array_unref(findings);
		return false;
	}
	from = pw_iso_time(c.start);
	to = pw_iso_time(range.last);
	from[10] = to[10] = '\0';
	g_string_append_printf(o, "<h2>Findings (%s and above)</h2>\n<p class=\"hint\">"
			       "From %s to %s, the dates of the mail",
			       pw_severity_str(PW_REPORT_MIN_SEVERITY), from, to);
	if (range.outside)
		g_string_append_printf(o, "; %" G_GINT64_FORMAT " message%s dated"
				       " before 1990 or in the future %s not"
				       " charted", (gint64)range.outside,
				       range.outside == 1 ? "" : "s",
				       range.outside == 1 ? "is" : "are");
	g_string_append(o, ".</p>\n");
	c.label = "findings";
	c.points = findings;
	c.by_rule = true;
	pw_web_chart_svg(o, &c);
	g_string_append(o, "<h2>Floods</h2>\n");
	c.label = "floods";
	c.points = floods;
	c.by_rule = false;
	pw_web_chart_svg(o, &c);
	g_free(from);
	g_free(to);
	g_ptr_array_unref(findings);
	g_ptr_array_unref(floods);
	return true;
}

/* ": N ok, N stale, ..." of subs, the states in a fixed order. */
static void states_count(GString *o, const struct pw_config *cfg,
			 GPtrArray *subs)
{
	static const char *const order[] = {
		"ok", "new", "failing", "stale", "paused",
	};
	int64_t now = (int64_t)time(NULL);
	guint n[G_N_ELEMENTS(order)] = { 0 }, i, k;
	const char *sep = ": ";

	for (i = 0; i < subs->len; i++) {
		const char *st = pw_subscription_state(subs->pdata[i],
						       cfg->web_stale_after,
						       now, NULL, NULL);

		for (k = 0; k < G_N_ELEMENTS(order); k++)
			n[k] += !strcmp(st, order[k]);
	}
	for (k = 0; k < G_N_ELEMENTS(order); k++) {
		if (!n[k])
			continue;
		g_string_append_printf(o, "%s%u %s", sep, n[k], order[k]);
		sep = ", ";
	}
}

static void overview(struct pw_db *db, const struct pw_config *cfg,
		     GHashTable *args, struct pw_web_answer *a)
{
	struct pw_finding_counts fc;
	GPtrArray *subs = NULL;
	struct pw_db_stats c;
	int64_t shown = 0;
	int sev;
	struct pw_report *r = NULL;
	char **lists = NULL, **l;
	enum pw_status st;
	bool more;

	if (g_hash_table_size(args)) {
		pw_web_answer_error(a, false, 400, "the overview takes no parameters");
		return;
	}
	if ((st = pw_db_stats(db, &c)) ||
	    (st = pw_db_finding_counts(db, &fc)) ||
	    (st = pw_db_subscription_list(db, &subs)) ||
	    (st = pw_db_query_lists(db, &lists))) {
		store_error(a, false, db, st);
		goto out;
	}
	for (sev = PW_REPORT_MIN_SEVERITY; sev <= PW_SEV_ERROR; sev++)
		shown += fc.severity[sev];
	page_begin(a, "Overview");
	if (!attention(db, cfg, subs, a->body, a) || !campaigns(db, a->body, a))
		goto out;
	g_string_append_printf(a->body, "<h2>The store</h2><table class=\"counts\"><tr><th>messages</th>"
			       "<th>patches</th><th>pull requests</th><th>series</th>"
			       "<th><a href=\"/findings\">findings</a></th>"
			       "<th>lists</th><th>unreadable</th></tr><tr>"
			       "<td class=\"n\">%" G_GINT64_FORMAT "</td>"
			       "<td class=\"n\">%" G_GINT64_FORMAT "</td>"
			       "<td class=\"n\">%" G_GINT64_FORMAT "</td>"
			       "<td class=\"n\">%" G_GINT64_FORMAT "</td>"
			       "<td class=\"n\">%" G_GINT64_FORMAT "</td>"
			       "<td class=\"n\">%" G_GINT64_FORMAT "</td>"
			       "<td class=\"n%s\">%s%" G_GINT64_FORMAT "%s</td></tr></table>\n",
			       (gint64)c.messages, (gint64)c.patches,
			       (gint64)c.pulls, (gint64)c.series, (gint64)shown,
			       (gint64)c.lists, c.errors ? " bad" : "",
			       c.errors ? "<a href=\"/errors\">" : "",
			       (gint64)c.errors, c.errors ? "</a>" : "");
	g_string_append_printf(a->body, "<p class=\"hint\">Findings: %" G_GINT64_FORMAT
			       " at %s and above (%" G_GINT64_FORMAT " error, %"
			       G_GINT64_FORMAT " warning) are counted and charted;"
			       " %" G_GINT64_FORMAT " info findings are not"
			       " (<a href=\"/findings?severity=info\">every finding</a>)."
			       " Unreadable: messages that could not be read or"
			       " stored (<a href=\"/errors\">errors</a>)."
			       " %u subscription%s", (gint64)shown,
			       pw_severity_str(PW_REPORT_MIN_SEVERITY),
			       (gint64)fc.severity[PW_SEV_ERROR],
			       (gint64)fc.severity[PW_SEV_WARNING],
			       (gint64)fc.severity[PW_SEV_INFO],
			       subs->len, subs->len == 1 ? "" : "s");
	states_count(a->body, cfg, subs);
	g_string_append(a->body, " (<a href=\"/subscriptions\">their state</a>).</p>\n");
	if (!charts(db, a->body, a))
		goto out;
	g_string_append(a->body, "<h2>Lists</h2><p>");
	for (l = lists; *l; l++) {
		g_string_append(a->body, "<a href=\"/list/");
		pw_web_esc_url(a->body, *l);
		g_string_append(a->body, "\">");
		pw_web_esc(a->body, *l);
		g_string_append(a->body, "</a> ");
	}
	g_string_append(a->body, "</p><h2>Latest series</h2>\n");
	r = pw_report_new("series", 10, 10, true, NULL);
	if (!report_table(db, r, a->body, &more, a))
		goto out;
	page_end(a);
out:
	pw_report_free(r);
	if (subs)
		g_ptr_array_unref(subs);
	g_strfreev(lists);
}

/* /list/NAME: the list's days, series, findings and floods. */
static void list_page(struct pw_db *db, const char *name, GHashTable *args,
		      struct pw_web_answer *a)
{
	static const struct {
		const char *kind, *title;
		int rows;
	} parts[] = {
		{ "stats", "Days", 14 }, { "series", "Latest series", 20 },
		{ "findings", "Latest findings", 20 }, { "floods", "Floods", 10 },
	};
	char *err = NULL;
	size_t i;
	bool more;

	if (g_hash_table_size(args)) {
		pw_web_answer_error(a, false, 400, "a list's page takes no parameters");
		return;
	}
	for (i = 0; i < G_N_ELEMENTS(parts); i++) {
		struct pw_report *r = pw_report_new(parts[i].kind, parts[i].rows,
						    parts[i].rows, true, &err);

		if (!pw_report_set(r, db, "list", name, &err)) {
			/* Unknown list: nothing to show. */
			pw_web_answer_error(a, false, 404, "%s", err);
			g_free(err);
			pw_report_free(r);
			return;
		}
		if (i == 0) {
			page_begin(a, name);
			g_string_append(a->body, "<p><a href=\"/list/");
			pw_web_esc_url(a->body, name);
			g_string_append(a->body, "/atom\">Atom feed of its findings</a></p>\n");
		}
		g_string_append_printf(a->body, "<h2>%s</h2>\n", parts[i].title);
		if (!report_table(db, r, a->body, &more, a)) {
			pw_report_free(r);
			return;
		}
		if (more) {
			g_string_append_printf(a->body, "<p><a href=\"/%s?list=",
					       parts[i].kind);
			pw_web_esc_url(a->body, name);
			g_string_append(a->body, "\">more</a></p>\n");
		}
		pw_report_free(r);
	}
	page_end(a);
}

static const char atom_entry[] =
	"<entry><id>urn:patchwarden:finding:%(id)</id>"
	"<title>%(rule): %(subject)</title><updated>%(date)</updated>"
	"<link href=\"/message/%(msgid:url)\"/>"
	"<author><name>%(from)</name></author>"
	"<content type=\"text\">%(severity) %(if:file)%(file)%(if:line):%(line)%(else) (whole file)%(end)%(else)(patch)%(end):"
	" %(message)</content></entry>\n";

/* /list/NAME/atom: the list's newest findings. */
static void list_feed(struct pw_db *db, const char *name,
		      struct pw_web_answer *a)
{
	struct pw_report *r = pw_report_new("findings", 50, 50, true, NULL);
	struct pw_query_filter f;
	GPtrArray *newest = NULL;
	struct pw_printer *p;
	struct pw_web_sink s;
	enum pw_status st;
	char *err = NULL, *updated;

	if (!pw_report_set(r, db, "list", name, &err)) {
		pw_web_answer_error(a, false, 404, "%s", err);
		g_free(err);
		pw_report_free(r);
		return;
	}
	f = r->f;
	f.limit = 1;
	st = pw_db_query_findings(db, &f, &newest);
	if (st) {
		store_error(a, false, db, st);
		pw_report_free(r);
		return;
	}
	updated = pw_iso_time(newest->len ?
		((struct pw_query_finding *)newest->pdata[0])->date : 0);
	g_string_append(a->body, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
			"<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>patchwarden: ");
	pw_web_esc(a->body, name);
	g_string_append(a->body, "</title><id>urn:patchwarden:list:");
	pw_web_esc(a->body, name);
	g_string_append_printf(a->body, "</id><updated>%s</updated>"
			       "<link rel=\"self\" href=\"/list/", updated);
	pw_web_esc_url(a->body, name);
	g_string_append(a->body, "/atom\"/>\n");
	p = pw_web_printer(&s, PW_FORMAT_HTML, atom_entry, 0);
	st = pw_report_print(db, r, p, NULL, &err);
	pw_web_printer_done(&s, p, st ? NULL : a->body);
	if (st) {
		store_error(a, false, db, st);
	} else {
		/* Atom wants a date: an entry whose mail had none takes
		 * the feed's. */
		char *known = g_strdup_printf("<updated>%s</updated>", updated);

		g_string_replace(a->body, "<updated>unknown</updated>", known, 0);
		g_free(known);
		g_string_append(a->body, "</feed>\n");
		a->status = 200;
		a->type = "application/atom+xml";
	}
	g_free(err);
	g_free(updated);
	g_ptr_array_unref(newest);
	pw_report_free(r);
}

static const char outbox_row[] =
	"<tr><td>%(id)</td><td>%(kind)</td><td>%(state)</td>"
	"<td>%(reason)%(if:last_error) %(last_error)%(end)</td><td>%(to)</td>"
	"<td>%(subject)</td><td><code>%(answers)</code></td>"
	"<td>%(created_at:time)</td><td>%(if:sent_at)%(sent_at:time)%(end)</td></tr>\n";

static const char *const outbox_states[] = {
	"pending", "sending", "sent", "failed", "suppressed",
};

/* /outbox: what was sent, held back and why, newest first. */
static void outbox_page(struct pw_db *db, GHashTable *args,
			struct pw_web_answer *a)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_outbox_row_free);
	const char *state = NULL, *off = NULL;
	GHashTableIter it;
	gpointer k, v;
	struct pw_printer *p;
	struct pw_web_sink s;
	enum pw_status st;
	int64_t offset = 0;
	guint i, shown = 0;
	size_t j;

	g_hash_table_iter_init(&it, args);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		if (!v || !*(char *)v)
			continue;
		if (!strcmp(k, "state"))
			state = v;
		else if (!strcmp(k, "offset"))
			off = v;
		else {
			pw_web_answer_error(a, false, 400, "%s: not a filter of the"
					    " outbox; it takes: state offset",
					    (char *)k);
			goto out;
		}
	}
	if (state) {
		for (j = 0; j < G_N_ELEMENTS(outbox_states); j++)
			if (!strcmp(state, outbox_states[j]))
				break;
		if (j == G_N_ELEMENTS(outbox_states)) {
			pw_web_answer_error(a, false, 400, "state: pending, sending,"
					    " sent, failed or suppressed");
			goto out;
		}
	}
	if (off) {
		char *end;

		offset = g_ascii_strtoll(off, &end, 10);
		if (!g_ascii_isdigit(*off) || *end || offset > 10000000) {
			pw_web_answer_error(a, false, 400, "offset: a number from 0"
					    " to 10000000");
			goto out;
		}
	}
	st = pw_db_outbox_list(db, state, rows);
	if (st) {
		store_error(a, false, db, st);
		goto out;
	}
	page_begin(a, "Outbox");
	g_string_append(a->body, "<form method=\"get\" action=\"/outbox\"><label>state"
			" <input name=\"state\" value=\"");
	pw_web_esc(a->body, state);
	g_string_append(a->body, "\"></label><button>filter</button></form>\n"
			"<table><tr><th>id</th><th>kind</th><th>state</th><th>why</th>"
			"<th>to</th><th>subject</th><th>answers</th><th>created</th>"
			"<th>sent</th></tr>\n");
	p = pw_web_printer(&s, PW_FORMAT_HTML, outbox_row, 0);
	pw_print_begin_list(p);
	for (i = rows->len; i > 0 && shown < (guint)offset + PAGE_ROWS; i--, shown++)
		if (shown >= offset)
			pw_report_outbox_row(p, rows->pdata[i - 1]);
	pw_print_end(p);
	pw_web_printer_done(&s, p, a->body);
	g_string_append(a->body, "</table>\n");
	if (offset + PAGE_ROWS < rows->len) {
		g_string_append(a->body, "<p>");
		page_link(a->body, "/outbox", args, offset + PAGE_ROWS, "older &rarr;");
		g_string_append(a->body, "</p>\n");
	}
	page_end(a);
out:
	g_ptr_array_unref(rows);
}

/* /subscriptions (HTML) and /api/subscriptions (JSON). */
static void subscriptions(struct pw_db *db, const struct pw_config *cfg,
			  GHashTable *args, bool api, struct pw_web_answer *a)
{
	GPtrArray *subs = NULL;
	enum pw_status st;

	if (g_hash_table_size(args)) {
		pw_web_answer_error(a, api, 400, "subscriptions take no parameters");
		return;
	}
	st = pw_db_subscription_list(db, &subs);
	if (st) {
		store_error(a, api, db, st);
		return;
	}
	if (api) {
		pw_web_subscriptions_json(a->body, subs, cfg->web_stale_after,
					  (int64_t)time(NULL), &a->expires);
		a->status = 200;
		a->type = "application/json";
	} else {
		page_begin(a, "Subscriptions");
		pw_web_subscriptions_html(a->body, subs, cfg->web_stale_after,
					  (int64_t)time(NULL), &a->expires);
		page_end(a);
	}
	g_ptr_array_unref(subs);
}

/* ---- routing ---- */

static bool is_report(const char *name)
{
	return !strcmp(name, "series") || !strcmp(name, "patches") ||
	       !strcmp(name, "findings") || !strcmp(name, "floods") ||
	       !strcmp(name, "senders") || !strcmp(name, "stats") ||
	       !strcmp(name, "errors") || !strcmp(name, "attention");
}

void pw_web_get(struct pw_db *db, const struct pw_config *cfg,
		const char *path, GHashTable *args, struct pw_web_answer *a)
{
	const char *rest;

	if (!strcmp(path, "/")) {
		overview(db, cfg, args, a);
	} else if (pw_web_triage_get(db, path, args, a)) {
		/* /decisions, /api/decisions: bot/web_triage.c */
	} else if (!strcmp(path, "/subscriptions")) {
		subscriptions(db, cfg, args, false, a);
	} else if (g_str_has_prefix(path, "/api/")) {
		rest = path + 5;
		if (is_report(rest))
			api_report(db, rest, args, a);
		else if (!strcmp(rest, "subscriptions"))
			subscriptions(db, cfg, args, true, a);
		else if (g_str_has_prefix(rest, "message/") && rest[8])
			message_page(db, rest + 8, args, a, true);
		else
			pw_web_answer_error(a, true, 404, "no such API; there are"
					    " /api/series, patches, findings, floods,"
					    " senders, stats, errors, attention, subscriptions and"
					    " message/MSGID");
	} else if (is_report(path + 1)) {
		report_page(db, path + 1, args, a);
	} else if (g_str_has_prefix(path, "/series/")) {
		series_page(db, path + 8, args, a);
	} else if (g_str_has_prefix(path, "/message/") && path[9]) {
		message_page(db, path + 9, args, a, false);
	} else if (!strcmp(path, "/outbox")) {
		outbox_page(db, args, a);
	} else if (g_str_has_prefix(path, "/list/") && path[6]) {
		char *name = g_strdup(path + 6);
		size_t n = strlen(name);

		if (n > 5 && !strcmp(name + n - 5, "/atom")) {
			name[n - 5] = '\0';
			list_feed(db, name, a);
		} else {
			list_page(db, name, args, a);
		}
		g_free(name);
	} else {
		pw_web_answer_error(a, false, 404, "no such page");
	}
}
