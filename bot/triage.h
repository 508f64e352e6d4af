/*
 * patchwarden: taking a maintainer's decision (db/decision.h), the same
 * way from the command line (bot/cmd_triage.c), the dashboard
 * (bot/web_triage.c) and mail (bot/mailcmd.c), and showing decisions.
 */
#ifndef PW_TRIAGE_BOT_H
#define PW_TRIAGE_BOT_H

#include <stdint.h>

#include "bot/config.h"
#include "bot/printer.h"
#include "db/db.h"
#include "db/decision.h"

/*
 * Takes decision d (borrowed) in one transaction of its own, or of the
 * caller's: checks that it names what is stored (a wrong decision or a
 * recheck a stored patch, an ignore decision a rule, a stop an
 * address), stores it, marks the findings it covers and, for a recheck,
 * runs the rules over its message again.  *id receives the decision's
 * id, *covered (may be NULL) the findings it covers now.  PW_ERR_INPUT
 * with a new message in *err for a decision that names nothing; a
 * database error (with *err) otherwise.
 */
enum pw_status pw_triage_take(struct pw_db *db, const struct pw_config *cfg,
			      const struct pw_decision *d, int64_t *id,
			      int64_t *covered, char **err);

/*
 * Undoes live decision id in a transaction of its own, by whom by;
 * re-queues the Patchwork checks it changed.  *found is false when no
 * live decision has that id.  PW_ERR_DB on a database error
 * (pw_db_errmsg()).
 */
enum pw_status pw_triage_undo(struct pw_db *db, const struct pw_config *cfg,
			      int64_t id, const char *by, bool *found);

/*
 * Fills d's msgid, rule, file, line and finding (new strings, the
 * caller's to free) from stored finding id, for a wrong decision
 * about that finding alone.  PW_ERR_INPUT with *err when there is none.
 */
enum pw_status pw_triage_name_finding(struct pw_db *db, int64_t id,
				      struct pw_decision *d, char **err);

/* The text layout of a decision record (pw_triage_print()). */
extern const char pw_triage_layout[];

/* Prints d as one record: id, kind, what it is about, who, when, how. */
void pw_triage_print(struct pw_printer *p, const struct pw_decision *d);

/*
 * Prints the decisions about list (NULL: all), undone ones too, newest
 * first, as a list of records.  A database error is returned after the
 * list is closed.
 */
enum pw_status pw_triage_print_list(struct pw_db *db, const char *list,
				    struct pw_printer *p);

/*
 * What d is about, for people: "PERM_STYLE in drivers/hwmon/ on
 * linux-hwmon", "the findings of <msgid>", "replies to a@b on
 * linux-hwmon".  A new string.
 */
char *pw_triage_scope(const struct pw_decision *d);

#endif
