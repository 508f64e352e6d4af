/*
 * patchwarden: what every page and answer of the dashboard is made
 * of: the answer, its error form, a printer into memory, and HTML
 * escaping.  It calls nothing else of the dashboard, so that every
 * file of it may call here (tests/integration/fence.sh refuses a
 * circle).
 */
#ifndef PW_WEB_HTML_H
#define PW_WEB_HTML_H

#include <stdbool.h>
#include <stdio.h>
#include <glib.h>

#include "bot/printer.h"

/*
 * One answer: its HTTP status, content type (static) and body, and
 * when it goes out of date though the store has not changed (Unix
 * time; 0: only with the store), as a subscription's state does.
 */
struct pw_web_answer {
	unsigned status;
	const char *type;
	GString *body;
	int64_t expires;
};

/* A printer writing into memory, for an answer's body. */
struct pw_web_sink {
	FILE *f;
	char *buf;
	size_t len;
};

/* A new printer (pw_printer_new()'s arguments) writing into s. */
struct pw_printer *pw_web_printer(struct pw_web_sink *s, enum pw_format fmt,
				  const char *layout, unsigned flags);
/* Frees p and appends what it wrote to o (nothing when o is NULL). */
void pw_web_printer_done(struct pw_web_sink *s, struct pw_printer *p,
			 GString *o);

/*
 * Sets a to status with a short reason: JSON for an API path, else an
 * HTML page titled with the status and the reason (the dashboard's
 * frame, pw_web_page_begin()).
 */
void pw_web_answer_error(struct pw_web_answer *a, bool api, unsigned status,
			 const char *fmt, ...) G_GNUC_PRINTF(4, 5);

/*
 * Appends the start of a dashboard page titled title to o: its head
 * (one style sheet, readable from 400 px wide up: the navigation
 * wraps, a table's rows fold into blocks on a narrow screen, long
 * words break), a link to skip to the content, the navigation, and
 * <main> with the title as its heading.  pw_web_page_end() closes it.
 */
void pw_web_page_begin(GString *o, const char *title);
void pw_web_page_end(GString *o);

/* Appends s, from mail or the store, escaped for HTML text or an
 * attribute value (made valid UTF-8 first). */
void pw_web_esc(GString *o, const char *s);
/* Appends s escaped for a URL's path or query, then for HTML. */
void pw_web_esc_url(GString *o, const char *s);

#endif
