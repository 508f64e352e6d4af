/*
 * patchwarden: the maintainers' decisions on the dashboard: the
 * decisions on a patch's page with a form for each finding (mark it
 * wrong, ignore its rule for its file), /decisions and /api/decisions,
 * and POST /api/triage, which takes a decision (bot/triage.h) with the
 * [web] token, in the Authorization header or in the form's "token".
 */
#ifndef PW_WEB_TRIAGE_H
#define PW_WEB_TRIAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>

#include "bot/config.h"
#include "bot/web_page.h"
#include "db/db.h"
#include "db/query.h"

/*
 * Answers GET /decisions and /api/decisions (?list=NAME) into a and
 * returns true; false, touching nothing, for any other path.
 */
bool pw_web_triage_get(struct pw_db *db, const char *path, GHashTable *args,
		       struct pw_web_answer *a);

/*
 * Appends to o, for the page of message m, its findings with what
 * decisions say of each ("marked wrong by X on DATE", "ignored ...")
 * and the forms that take new ones.
 */
void pw_web_triage_section(struct pw_db *db, const struct pw_query_message *m,
			   GString *o);

/*
 * The "token" field of a form body (len bytes,
 * application/x-www-form-urlencoded): a new string, or NULL.
 */
char *pw_web_triage_token(const char *body, size_t len);

/*
 * POST /api/triage, the token checked already: takes the decision the
 * form body (len bytes) describes through db (read-write, the caller
 * holding it alone): action = wrong (finding = ID, or msgid and rule),
 * ignore (rule, path, list), recheck (msgid), stop (addr, list) or
 * undo (decision); by (who decides) and reason.  Answers an HTML page
 * when the form names the page to go back to (back), JSON otherwise.
 */
void pw_web_triage_post(struct pw_db *db, const struct pw_config *cfg,
			const char *body, size_t len, struct pw_web_answer *a);

#endif
