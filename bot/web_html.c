/*
 * patchwarden: the dashboard's answers, printers into memory and HTML
 * escaping (see bot/web_html.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bot/web_html.h"
#include "checks/text.h"

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
		a->type = "text/plain; charset=utf-8";
		g_string_append_printf(a->body, "%u: %s\n", status, u);
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
