/*
 * patchwarden: what needs a maintainer's attention, for the top of the
 * dashboard's overview: the patches whose own text has warnings or
 * errors, per list, newest first.  One function holds the whole
 * selection, so that what "triaged" means (a decision recorded about a
 * patch) is one more condition in one place.
 */
#ifndef PW_DB_ATTENTION_H
#define PW_DB_ATTENTION_H

#include <stdint.h>
#include <glib.h>

#include "checks/patch.h"
#include "db/db.h"
#include "db/query.h"

/*
 * The queue as the rows make it, kept in the table attention (list,
 * patch, date, errs, warns) by triggers (db/schema.c, user_version 20)
 * so that the overview reads a row per patch in the queue, not every
 * finding: per list a patch's message is on (-1: none), its open
 * findings at warning and above, flood detection's own left out, of
 * patches a person sent that are in no detected flood.  WHERE narrows
 * it to some patches (p.id ...).  The rule names are checks/rules.c's
 * PW_R_FLOOD, PW_R_FLOOD_SERIES, PW_R_RESEND_IDENTICAL and
 * PW_R_SERIES_OVERSIZED (tests/unit/test_attention.c holds them equal).
 */
#define PW_ATTENTION_FLOOD_RULES \
	"'FLOOD', 'FLOOD_SERIES', 'RESEND_IDENTICAL', 'SERIES_OVERSIZED'"
/* Finding F (its id, severity and rule as SQL) of message m counts. */
#define PW_ATTENTION_COUNTS(id, sev, rule) \
	"(" sev " >= 1 AND " rule " NOT IN (" PW_ATTENTION_FLOOD_RULES ")" \
	" AND m.automated IS NULL" \
	" AND NOT EXISTS (SELECT 1 FROM finding_decision fd" \
	"  WHERE fd.finding = " id ")" \
	" AND NOT EXISTS (SELECT 1 FROM flood_member fm" \
	"  JOIN flood_group g ON g.id = fm.grp" \
	"  WHERE fm.message = m.id AND g.detected_at IS NOT NULL))"
/* Patch p (its id as SQL) is live: not superseded, applied nor rejected
 * (patch_state, db/lineage.h), which keeps a patch out of the table. */
#define PW_ATTENTION_LIVE(p) \
	"NOT EXISTS (SELECT 1 FROM patch_state WHERE patch = " p ")"
#define PW_ATTENTION_RECOUNT(where) \
	"SELECT coalesce(ml.list, -1), p.id, coalesce(m.date, 0)," \
	" sum(f.severity >= 2), sum(f.severity = 1)" \
	" FROM patch p JOIN message m ON m.id = p.message" \
	" JOIN finding f ON f.patch = p.id" \
	" LEFT JOIN message_list ml ON ml.message = m.id" \
	" WHERE " where " AND " \
	PW_ATTENTION_COUNTS("f.id", "f.severity", "f.rule") \
	" GROUP BY 1, 2"

/* One patch of the queue.  Owns its strings. */
struct pw_attention_patch {
	char *list;			/* "" for mail seen on no list */
	int64_t patch_id, message_id;
	char *msgid, *subject, *from_name, *from_addr;
	int64_t date;			/* 0 when unknown */
	int errors, warnings;		/* its findings at each severity */
	int64_t list_total;		/* patches of its list in the queue */
};

/*
 * The patches not yet triaged that have findings at min severity or
 * above (warning or error: info findings are never in the queue), at
 * most per_list of each list (its newest; a patch seen on two
 * lists is in both), into *out: a new GPtrArray of struct
 * pw_attention_patch that frees them, by list name, then newest first.
 * Left out: mail a machine sent (message.automated: a stable tree's
 * backport is reviewed where it was first posted), members of a flood
 * (the flood is one item of its own), and the findings flood detection
 * makes (about a patch's company, not its text).  A finding is
 * triaged once a decision covers it (finding_decision).
 */
enum pw_status pw_db_attention_patches(struct pw_db *db,
				       enum pw_severity min, int per_list,
				       GPtrArray **out);

/* One patch of the worklist (pw_db_attention_list()).  Owns its strings. */
struct pw_attention_item {
	int64_t patch_id;
	char *msgid, *subject, *from_name, *from_addr;
	int64_t date;			/* 0 when unknown */
	int64_t series_id;		/* 0: in no series */
	int version;			/* its series' version, 0: none */
	int versions;			/* versions of its lineage, 0: unknown */
	int errors, warnings;		/* its findings at each severity */
	char **rules;			/* the rules of those findings, sorted */
};

/*
 * The whole queue as one worklist, for the dashboard's /attention,
 * /api/attention and "query attention": each patch once (whatever the
 * lists it was seen on), the patches with errors first, then those
 * with warnings, newest first within each.  f narrows it: list (seen
 * on it), rule (an open finding of it), min_severity (error: only
 * patches with errors), since (dated at or after), then limit (0: all)
 * and offset.  *total receives the patches under the filters before
 * limit and offset; *out a new GPtrArray of struct pw_attention_item
 * that frees them.
 */
enum pw_status pw_db_attention_list(struct pw_db *db,
				    const struct pw_query_filter *f,
				    int64_t *total, GPtrArray **out);

#endif
