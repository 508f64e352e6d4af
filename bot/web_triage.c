/*
 * patchwarden: the maintainers' decisions on the dashboard (see
 * bot/web_triage.h).  Everything that came from mail or a form is
 * escaped for where it goes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/log.h"
#include "bot/printer.h"
#include "bot/triage.h"
#include "bot/web_html.h"
#include "bot/web_triage.h"
#include "db/decision.h"

/* Longest by and reason a form may give, in bytes. */
#define MAX_BY 200
#define MAX_REASON 500



/* "YYYY-MM-DD" of Unix time t: a new string. */
static char *day(int64_t t)
{
	char *iso = pw_iso_time(t);

	if (strlen(iso) > 10)
		iso[10] = '\0';
	return iso;
}

static void page_begin(GString *o, const char *title)
{
	pw_web_page_begin(o, title);
}

/* The fields every triage form carries: who, why, the token. */
static void form_tail(GString *o, const char *back, const char *button)
{
	g_string_append(o, "<input type=\"hidden\" name=\"back\" value=\"");
	pw_web_esc(o, back);
	g_string_append_printf(o, "\"><label>your address <input name=\"by\""
			       " type=\"email\" required maxlength=\"%d\"></label>"
			       "<label>why <input name=\"reason\" maxlength=\"%d\">"
			       "</label><label>token <input name=\"token\""
			       " type=\"password\" required></label>"
			       "<button>", MAX_BY, MAX_REASON);
	pw_web_esc(o, button);
	g_string_append(o, "</button></form>");
}

/*
 * The log's line for a decision taken (covered: the findings it
 * covers) or undone (covered -1) on the dashboard, as mail commands
 * have theirs (bot/mailcmd.c): what was decided, by whom.
 */
static void log_decision(int64_t id, const char *what, const char *by,
			 int64_t covered)
{
	char *w = g_strescape(what, NULL), *b = g_strescape(by, NULL);

	if (covered < 0)
		pw_info("web: decision %" G_GINT64_FORMAT " %s by %s",
			(gint64)id, w, b);
	else
		pw_info("web: decision %" G_GINT64_FORMAT " (%s by %s), covering %"
			G_GINT64_FORMAT " findings", (gint64)id, w, b,
			(gint64)covered);
	g_free(w);
	g_free(b);
}

/* A hidden field name = value. */
static void hidden(GString *o, const char *name, const char *value)
{
	g_string_append_printf(o, "<input type=\"hidden\" name=\"%s\" value=\"",
			       name);
	pw_web_esc(o, value);
	g_string_append(o, "\">");
}

static const char decision_row[] =
	"<tr id=\"d%(id)\"><td>%(id)</td><td>%(kind)</td><td>%(scope)</td>"
	"<td>%(by)</td><td>%(at)</td><td>%(via)%(if:via_msgid) &lt;%(via_msgid)&gt;%(end)</td>"
	"<td>%(reason)</td><td>%(covers)</td>"
	"<td>%(if:undone_at)undone by %(undone_by) %(undone_at)%(else)"
	"<form method=\"post\" action=\"/api/triage\">"
	"<input type=\"hidden\" name=\"action\" value=\"undo\">"
	"<input type=\"hidden\" name=\"decision\" value=\"%(id)\">"
	"<input type=\"hidden\" name=\"back\" value=\"/decisions\">"
	"<label>your address <input name=\"by\" type=\"email\" required></label>"
	"<label>token <input name=\"token\" type=\"password\" required></label>"
	"<button>undo</button></form>%(end)</td></tr>\n";

bool pw_web_triage_get(struct pw_db *db, const char *path, GHashTable *args,
		       struct pw_web_answer *a)
{
	const char *list = g_hash_table_lookup(args, "list");
	bool api = !strcmp(path, "/api/decisions");
	struct pw_web_sink s;
	struct pw_printer *p;
	enum pw_status st;
	int64_t wrong = 0, ignored = 0;

	if (!api && strcmp(path, "/decisions"))
		return false;
	if (list && !*list)
		list = NULL;
	if (api) {
		p = pw_web_printer(&s, PW_FORMAT_JSON, NULL, 0);
		st = pw_triage_print_list(db, list, p);
		pw_web_printer_done(&s, p, a->body);
		a->status = 200;
		a->type = "application/json";
	} else {
		a->status = 200;
		a->type = "text/html; charset=utf-8";
		page_begin(a->body, "Decisions");
		st = pw_db_decision_counts(db, &wrong, &ignored);
		g_string_append_printf(a->body, "<p>%" G_GINT64_FORMAT " findings"
				       " marked wrong, %" G_GINT64_FORMAT " ignored;"
				       " <a href=\"/api/decisions\">JSON</a></p>\n"
				       "<table><tr><th>id</th><th>kind</th>"
				       "<th>about</th><th>by</th><th>at</th>"
				       "<th>how</th><th>why</th><th>findings</th>"
				       "<th></th></tr>\n", (gint64)wrong,
				       (gint64)ignored);
		p = pw_web_printer(&s, PW_FORMAT_HTML, decision_row, 0);
		if (!st)
			st = pw_triage_print_list(db, list, p);
		pw_web_printer_done(&s, p, a->body);
		g_string_append(a->body, "</table>\n");
		pw_web_page_end(a->body);
	}
	if (st) {
		g_string_truncate(a->body, 0);
		pw_web_answer_error(a, api, 503, "the store cannot be read: %s",
		     pw_db_errmsg(db));
	}
	return true;
}

/* What the decision that covers a finding says of it, on the page. */
static void decided_state(GString *o, const struct pw_decided_finding *d)
{
	char *when = day(d->at);

	g_string_append(o, d->kind == PW_DECISION_WRONG ? "marked wrong by " :
			"ignored by ");
	pw_web_esc(o, d->by);
	g_string_append_printf(o, " on %s (<a href=\"/decisions#d%" G_GINT64_FORMAT
			       "\">decision %" G_GINT64_FORMAT "</a>)", when,
			       (gint64)d->decision, (gint64)d->decision);
	if (d->reason) {
		g_string_append(o, ": ");
		pw_web_esc(o, d->reason);
	}
	g_free(when);
}

void pw_web_triage_section(struct pw_db *db, const struct pw_query_message *m,
			   GString *o)
{
	GPtrArray *decided = NULL;
	GHashTable *by_finding;
	char *back, *e;
	guint i;

	if (!m->patch_id || !m->findings->len ||
	    pw_db_decision_findings(db, m->id, &decided)) {
		if (decided)
			g_ptr_array_unref(decided);
		return;
	}
	by_finding = g_hash_table_new(g_int64_hash, g_int64_equal);
	for (i = 0; i < decided->len; i++) {
		struct pw_decided_finding *d = decided->pdata[i];

		g_hash_table_insert(by_finding, &d->finding, d);
	}
	e = g_uri_escape_string(m->msgid, NULL, FALSE);
	back = g_strdup_printf("/message/%s", e);
	g_free(e);
	g_string_append(o, "<h2>Findings and decisions</h2>\n<table class=\"triage\">"
			"<tr><th>finding</th><th>rule</th><th>where</th>"
			"<th>state</th><th>decide</th></tr>\n");
	for (i = 0; i < m->findings->len; i++) {
		const struct pw_query_finding *f = m->findings->pdata[i];
		const struct pw_decided_finding *d =
			g_hash_table_lookup(by_finding, &f->id);
		char id[24];

		g_snprintf(id, sizeof(id), "%" G_GINT64_FORMAT, (gint64)f->id);
		g_string_append_printf(o, "<tr id=\"finding-%s\"><td>%s</td><td>",
				       id, id);
		pw_web_esc(o, f->rule);
		g_string_append(o, "</td><td>");
		if (f->file) {
			pw_web_esc(o, f->file);
			g_string_append_printf(o, ":%d", f->line);
		}
		g_string_append(o, "</td><td>");
		if (d)
			decided_state(o, d);
		else
			g_string_append(o, "open");
		g_string_append(o, "</td><td>");
		if (d) {
			char did[24];

			g_snprintf(did, sizeof(did), "%" G_GINT64_FORMAT,
				   (gint64)d->decision);
			g_string_append(o, "<form method=\"post\" action=\"/api/triage\">");
			hidden(o, "action", "undo");
			hidden(o, "decision", did);
			form_tail(o, back, "undo");
		} else {
			g_string_append(o, "<form method=\"post\" action=\"/api/triage\">");
			hidden(o, "action", "wrong");
			hidden(o, "finding", id);
			form_tail(o, back, "mark wrong");
			if (f->file) {
				g_string_append(o, "<form method=\"post\""
						" action=\"/api/triage\">");
				hidden(o, "action", "ignore");
				hidden(o, "rule", f->rule);
				hidden(o, "path", f->file);
				if (m->lists && m->lists[0])
					hidden(o, "list", m->lists[0]);
				form_tail(o, back, "ignore this rule for this file");
			}
		}
		g_string_append(o, "</td></tr>\n");
	}
	g_string_append(o, "</table>\n");
	g_hash_table_destroy(by_finding);
	g_ptr_array_unref(decided);
	g_free(back);
}

/* The fields of a form body: a new table, or NULL when it cannot be read. */
static GHashTable *form_fields(const char *body, size_t len)
{
	if (!body || !len || !g_utf8_validate(body, (gssize)len, NULL))
		return NULL;
	return g_uri_parse_params(body, (gssize)len, "&", G_URI_PARAMS_WWW_FORM,
				  NULL);
}

char *pw_web_triage_token(const char *body, size_t len)
{
	GHashTable *t = form_fields(body, len);
	char *v = t ? g_strdup(g_hash_table_lookup(t, "token")) : NULL;

	if (t)
		g_hash_table_unref(t);
	return v;
}

/* A field, NULL when absent or empty. */
static const char *field(GHashTable *t, const char *name)
{
	const char *v = g_hash_table_lookup(t, name);

	return v && *v ? v : NULL;
}

/* Whether s is a whole number from 1 up: *n receives it. */
static bool number(const char *s, int64_t *n)
{
	guint64 v;

	if (!s || !g_ascii_isdigit(*s) ||
	    !g_ascii_string_to_unsigned(s, 10, 1, G_MAXINT64, &v, NULL))
		return false;
	*n = (int64_t)v;
	return true;
}

/*
 * Whether back is a path of this dashboard: one leading '/', no "//"
 * (a host to a browser), no '\\' (a '/' to some), no control byte
 * (CR or LF would split a header) and so no scheme either.
 */
static bool local_path(const char *back)
{
	const char *p;

	if (back[0] != '/' || strstr(back, "//") || strchr(back, '\\'))
		return false;
	for (p = back; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* The answer to a decision taken (id) or undone. */
static void done(struct pw_web_answer *a, const char *back, const char *what,
		 int64_t id, int64_t covered)
{
	struct pw_web_sink s;
	struct pw_printer *p;

	a->status = 200;
	if (!back) {
		a->type = "application/json";
		p = pw_web_printer(&s, PW_FORMAT_JSON, NULL, PW_PRINTER_COMPACT);
		pw_print_begin_map(p);
		pw_print_int_at(p, "decision", id);
		pw_print_str_at(p, "done", what);
		pw_print_int_at(p, "covers", covered);
		pw_print_end(p);
		pw_web_printer_done(&s, p, a->body);
		return;
	}
	a->type = "text/html; charset=utf-8";
	page_begin(a->body, "Decision taken");
	g_string_append_printf(a->body, "<p>Decision %" G_GINT64_FORMAT ": ",
			       (gint64)id);
	pw_web_esc(a->body, what);
	g_string_append_printf(a->body, ", covering %" G_GINT64_FORMAT
			       " stored findings.</p><p><a href=\"", (gint64)covered);
	pw_web_esc(a->body, back);
	g_string_append(a->body, "\">back</a> &middot; <a href=\"/decisions\">"
			"every decision</a></p></main></body></html>\n");
}

void pw_web_triage_post(struct pw_db *db, const struct pw_config *cfg,
			const char *body, size_t len, struct pw_web_answer *a)
{
	GHashTable *t = form_fields(body, len);
	struct pw_decision d, *was = NULL;
	const char *action, *back, *by;
	char *err = NULL, *scope = NULL;
	enum pw_status s;
	int64_t id = 0, covered = 0, n;
	bool named = false, found;

	memset(&d, 0, sizeof(d));
	if (!t) {
		pw_web_answer_error(a, true, 400, "the body is not a form"
		     " (application/x-www-form-urlencoded, UTF-8)");
		return;
	}
	action = field(t, "action");
	back = field(t, "back");
	by = field(t, "by");
	/* Only a page of this dashboard is linked back to; any other
	 * back gets the list of decisions. */
	if (back && !local_path(back))
		back = "/decisions";
	if (!by || strlen(by) > MAX_BY ||
	    (field(t, "reason") && strlen(field(t, "reason")) > MAX_REASON)) {
		pw_web_answer_error(a, !back, 400, "by (who decides, %d bytes at"
		     " most) is needed; reason has %d bytes at most",
		     MAX_BY, MAX_REASON);
		goto out;
	}
	if (!g_strcmp0(action, "undo")) {
		if (!number(field(t, "decision"), &id)) {
			pw_web_answer_error(a, !back, 400, "undo: which decision?");
			goto out;
		}
		s = pw_triage_undo(db, cfg, id, by, &found);
		if (!s && found)
			s = pw_db_decision_get(db, id, &was);
		if (s) {
			pw_web_answer_error(a, !back, 503, "%s", pw_db_errmsg(db));
			goto out;
		}
		if (!found || !was) {
			pw_web_answer_error(a, !back, 404, "no live decision %s",
			     field(t, "decision"));
			goto out;
		}
		scope = pw_triage_scope(was);
		err = g_strdup_printf("undone: %s %s",
				      pw_decision_kind_name(was->kind), scope);
		log_decision(id, err, by, -1);
		done(a, back, err, id, 0);
		goto out;
	}
	if (!pw_decision_kind_parse(action, &d.kind)) {
		pw_web_answer_error(a, !back, 400, "action: wrong, ignore, recheck,"
		     " stop or undo");
		goto out;
	}
	d.by = (char *)by;
	d.via = (char *)"web";
	d.reason = (char *)field(t, "reason");
	d.list = (char *)field(t, "list");
	if (d.kind == PW_DECISION_WRONG && number(field(t, "finding"), &n)) {
		s = pw_triage_name_finding(db, n, &d, &err);
		if (s) {
			pw_web_answer_error(a, !back, s == PW_ERR_INPUT ? 404 : 503,
			     "%s", err);
			goto out;
		}
		named = true;
	} else {
		d.msgid = (char *)field(t, "msgid");
		d.rule = (char *)field(t, "rule");
	}
	d.path = d.kind == PW_DECISION_IGNORE ? (char *)field(t, "path") : NULL;
	d.addr = d.kind == PW_DECISION_STOP ? (char *)field(t, "addr") : NULL;
	s = pw_triage_take(db, cfg, &d, &id, &covered, &err);
	if (s) {
		pw_web_answer_error(a, !back, s == PW_ERR_INPUT ? 400 : 503, "%s",
		     err);
		goto out;
	}
	scope = pw_triage_scope(&d);
	g_free(err);
	err = g_strdup_printf("%s %s", pw_decision_kind_name(d.kind), scope);
	log_decision(id, err, by, covered);
	done(a, back, err, id, covered);
out:
	if (named) {
		g_free(d.msgid);
		g_free(d.rule);
		g_free(d.file);
	}
	pw_decision_free(was);
	g_free(scope);
	g_free(err);
	g_hash_table_unref(t);
}
