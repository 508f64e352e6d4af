/*
 * patchwarden: a stored message's body as the dashboard shows it, for
 * the message and series pages (bot/web_page.c).
 */
#ifndef PW_WEB_DIFF_H
#define PW_WEB_DIFF_H

#include <stdint.h>
#include <glib.h>

#include "bot/web_html.h"
#include "db/query.h"

/*
 * Appends to o the commit message and the diff of message id, read
 * from its bytes (the store's, or its archive's): each line escaped
 * and marked by kind; each of findings (struct pw_query_finding *,
 * borrowed) under the added line it is about, a damaged hunk's under
 * its header, the others first; a damaged diff whole, the line git
 * stops reading at marked.  A message whose bytes are gone or cannot
 * be read is said so.
 */
void pw_web_message_body(struct pw_db *db, int64_t id, GPtrArray *findings,
			 GString *o);

#endif
