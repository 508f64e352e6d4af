/*
 * patchwarden: what the dashboard answers, apart from HTTP (bot/web.c
 * speaks HTTP through libmicrohttpd and calls these).  Pages are HTML
 * rendered on the server, readable without JavaScript; /api/ answers
 * are JSON (or CSV) from the same reports as "patchwarden query"; each
 * list has an Atom feed of its findings.  Everything that came from
 * mail is escaped for where it goes.
 */
#ifndef PW_WEB_PAGE_H
#define PW_WEB_PAGE_H

#include <glib.h>

#include "bot/config.h"
#include "bot/printer.h"
#include "bot/web_html.h"
#include "db/db.h"

/*
 * Answers GET path (unescaped, without the query) with args (the query
 * parameters, name -> value, both borrowed) from db under cfg into a,
 * whose body is empty when called.
 */
void pw_web_get(struct pw_db *db, const struct pw_config *cfg,
		const char *path, GHashTable *args, struct pw_web_answer *a);

/*
 * POST /api/check: reads body (len bytes: one mail, an mbox or a bare
 * diff) and answers its findings as JSON, storing nothing.  The rules
 * are those of the list named by args' "list", if any, under cfg.
 */
void pw_web_check(const struct pw_config *cfg, GHashTable *args,
		  const char *body, size_t len, struct pw_web_answer *a);

/*
 * POST /api/submit: stores body as "ingest" does, under the list
 * named by args' "list", through db (read-write, the caller holding it
 * alone), and answers the counts as JSON.
 */
void pw_web_submit(struct pw_db *db, const struct pw_config *cfg,
		   GHashTable *args, const char *body, size_t len,
		   struct pw_web_answer *a);

#endif
