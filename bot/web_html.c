/*
 * patchwarden: the dashboard's answers, printers into memory and HTML
 * escaping (see bot/web_html.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bot/web_html.h"
#include "checks/text.h"

/*
 * The dashboard's one style sheet.  Readable from 400 px wide up: the
 * navigation wraps; long words (Message-IDs, paths, URLs) break rather
 * than widen a page; below 700 px a table's rows fold into blocks whose
 * cells wrap; a diff scrolls inside its own box.
 */
static const char style[] =
	"body{font:15px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}"
	"header{background:#243447;color:#fff;padding:.5em 1em;display:flex;"
	"flex-wrap:wrap;gap:.2em 1em;align-items:baseline}"
	"header a{color:#fff;text-decoration:none}"
	"header b{margin-right:1em}"
	".skip{position:absolute;left:-10000px}"
	".skip:focus{left:.5em;top:.5em;background:#fff;color:#000;padding:.2em .5em;z-index:1}"
	"main{padding:1em;max-width:1200px;box-sizing:border-box}"
	"h1,h2,h3,p,li,td,th,code{overflow-wrap:anywhere}"
	"table{border-collapse:collapse;margin:.5em 0 1em;max-width:100%}"
	"td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}"
	"th{background:#eee}td.n{text-align:right}td.bad{color:#a00;font-weight:bold}"
	"tr.sev-error td:first-child{border-left:4px solid #c00}"
	"tr.sev-warning td:first-child{border-left:4px solid #e90}"
	"tr.sev-info td:first-child{border-left:4px solid #39c}"
	"form{margin:.5em 0}form label{margin-right:.8em;white-space:nowrap}"
	"input{width:9em;max-width:100%}"
	"pre{background:#fff;border:1px solid #ddd;padding:.5em;overflow-x:auto;"
	"max-width:100%;box-sizing:border-box}"
	"pre.diff span{display:block;white-space:pre}"
	".add{background:#e6ffe6}.del{background:#ffe6e6}.hunk{color:#06c}"
	".rest{color:#777;background:#f3f3f3}"
	".mark{outline:2px solid #c00}"
	".note{display:block;font-family:system-ui,sans-serif;white-space:normal!important;"
	"background:#fff3cd;border-left:4px solid #e90;padding:.2em .5em;margin:.1em 0 .4em}"
	".note.sev-error{background:#fde2e2;border-color:#c00}"
	".legend span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em}"
	".counts td{min-width:5em}"
	".hint{color:#555;font-size:90%}"
	".bad{color:#a00;font-weight:bold}"
	"svg.chart{background:#fff;border:1px solid #ddd;max-width:100%;height:auto}"
	".attention h3{margin:.8em 0 .2em}"
	"@media (max-width:700px){main{padding:.5em}"
	"table,tbody,thead{display:block}"
	"tr{display:flex;flex-wrap:wrap;border-bottom:2px solid #ccc;padding:.2em 0}"
	"td,th{display:block;border:0;padding:.1em .4em}"
	".counts td{min-width:0}form label{white-space:normal}}";

void pw_web_page_begin(GString *o, const char *title)
{
	g_string_append(o, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
			"<meta charset=\"utf-8\"><meta name=\"viewport\""
			" content=\"width=device-width\"><title>");
	pw_web_esc(o, title);
	g_string_append_printf(o, " - patchwarden</title><style>%s</style>"
			       "</head><body><a class=\"skip\" href=\"#main\">skip"
			       " to the content</a><header><b>patchwarden</b>"
			       "<a href=\"/\">overview</a><a href=\"/series\">series</a>"
			       "<a href=\"/patches\">patches</a>"
			       "<a href=\"/findings\">findings</a>"
			       "<a href=\"/floods\">floods</a>"
			       "<a href=\"/senders\">senders</a>"
			       "<a href=\"/stats\">stats</a>"
			       "<a href=\"/outbox\">outbox</a>"
			       "<a href=\"/decisions\">decisions</a>"
			       "<a href=\"/subscriptions\">subscriptions</a>"
			       "<a href=\"/errors\">errors</a></header>"
			       "<main id=\"main\"><h1>", style);
	pw_web_esc(o, title);
	g_string_append(o, "</h1>\n");
}

void pw_web_page_end(GString *o)
{
	g_string_append(o, "</main></body></html>\n");
}

void pw_web_answer_error(struct pw_web_answer *a, bool api, unsigned status,
			 const char *fmt, ...)
{
	va_list ap;
	char *msg, *u;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	u = g_utf8_make_valid(msg, -1);
	g_string_truncate(a->body, 0);
	a->status = status;
	if (api) {
		struct pw_web_sink s;
		struct pw_printer *p = pw_web_printer(&s, PW_FORMAT_JSON, NULL,
						      PW_PRINTER_COMPACT);

		a->type = "application/json";
		pw_print_begin_map(p);
		pw_print_int_at(p, "status", status);
		pw_print_str_at(p, "error", u);
		pw_print_end(p);
		pw_web_printer_done(&s, p, a->body);
	} else {
		char *title = g_strdup_printf("%u %s", status,
					      status == 404 ? "Not found" :
					      status == 400 ? "Bad request" :
					      status == 401 ? "Unauthorized" :
					      status == 403 ? "Forbidden" :
					      status == 405 ? "Method not allowed" :
					      status == 413 ? "Too large" :
					      status >= 500 ? "Server error" : "Error");

		a->type = "text/html; charset=utf-8";
		pw_web_page_begin(a->body, title);
		g_string_append_printf(a->body, "<p class=\"error\">%u: ", status);
		pw_web_esc(a->body, u);
		g_string_append(a->body, "</p>\n<p><a href=\"/\">The overview</a></p>\n");
		pw_web_page_end(a->body);
		g_free(title);
	}
	g_free(u);
	g_free(msg);
}

struct pw_printer *pw_web_printer(struct pw_web_sink *s, enum pw_format fmt,
				  const char *layout, unsigned flags)
{
	s->buf = NULL;
	s->len = 0;
	s->f = open_memstream(&s->buf, &s->len);
	return pw_printer_new(fmt, s->f, layout, flags);
}

void pw_web_printer_done(struct pw_web_sink *s, struct pw_printer *p,
			 GString *o)
{
	pw_printer_free(p);
	fclose(s->f);
	if (o)
		g_string_append_len(o, s->buf, (gssize)s->len);
	free(s->buf);
}

void pw_web_esc(GString *o, const char *s)
{
	char *e;

	if (!s)
		return;
	e = pw_utf8_xml_escape(s, -1);
	g_string_append(o, e);
	g_free(e);
}

void pw_web_esc_url(GString *o, const char *s)
{
	char *u = g_uri_escape_string(s, NULL, FALSE);

	pw_web_esc(o, u);
	g_free(u);
}
