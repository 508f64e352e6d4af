/*
 * patchwarden: the attention queue (see db/attention.h).
 */
#include "checks/rules.h"
#include "db/attention.h"
#include "db/decision.h"
#include "db/db-private.h"

static void attention_free(gpointer p)
{
	struct pw_attention_patch *a = p;

	g_free(a->list);
	g_free(a->msgid);
	g_free(a->subject);
	g_free(a->from_name);
	g_free(a->from_addr);
	g_free(a);
}

/* A row of the attention queue's statement. */
static gpointer attention_row(sqlite3_stmt *st)
{
	struct pw_attention_patch *p = g_new0(struct pw_attention_patch, 1);

	p->list = pw_db_col_dup(st, 0);
	p->patch_id = sqlite3_column_int64(st, 1);
	p->message_id = sqlite3_column_int64(st, 2);
	p->msgid = pw_db_col_dup(st, 3);
	p->subject = pw_db_col_dup(st, 4);
	p->from_name = pw_db_col_dup(st, 5);
	p->from_addr = pw_db_col_dup(st, 6);
	p->date = sqlite3_column_int64(st, 7);
	p->errors = sqlite3_column_int(st, 8);
	p->warnings = sqlite3_column_int(st, 9);
	p->list_total = sqlite3_column_int64(st, 10);
	return p;
}

enum pw_status pw_db_attention_patches(struct pw_db *db,
				       enum pw_severity min, int per_list,
				       GPtrArray **out)
{
	/*
	 * From the findings (far fewer than messages, and no index on
	 * severity would pay for itself), grouped per list and patch; the
	 * window functions keep each list's newest and count them all.
	 */
	sqlite3_stmt *st = pw_db_stmt(db,
		"WITH q AS (SELECT coalesce(l.name, '') AS lname, p.id AS pid,"
		"  m.id AS mid, m.msgid AS msgid, m.subject AS subject,"
		"  m.from_name AS from_name, m.from_addr AS from_addr,"
		"  coalesce(m.date, 0) AS d,"
		"  sum(f.severity >= 2) AS errs, sum(f.severity = 1) AS warns"
		" FROM finding f JOIN patch p ON p.id = f.patch"
		" JOIN message m ON m.id = p.message"
		" LEFT JOIN message_list ml ON ml.message = m.id"
		" LEFT JOIN list l ON l.id = ml.list"
		" WHERE f.severity >= ?1 AND f.rule NOT IN (?3, ?4, ?5, ?6)"
		" AND m.automated IS NULL"
		/* Not yet triaged: a finding a maintainer marked wrong or
		 * ignored needs no one's attention. */
		" AND " PW_FINDING_OPEN("f")
		" AND NOT EXISTS (SELECT 1 FROM flood_member fm"
		"  JOIN flood_group g ON g.id = fm.grp"
		"  WHERE fm.message = m.id AND g.detected_at IS NOT NULL)"
		" GROUP BY lname, p.id)"
		" SELECT lname, pid, mid, msgid, subject, from_name, from_addr, d,"
		"  errs, warns, n FROM (SELECT q.*, row_number() OVER"
		"  (PARTITION BY lname ORDER BY d DESC, mid DESC) AS rn,"
		"  count(*) OVER (PARTITION BY lname) AS n FROM q)"
		" WHERE rn <= ?2 ORDER BY lname, d DESC, mid DESC");
	sqlite3_bind_int(st, 1, (int)min);
	sqlite3_bind_int(st, 2, per_list);
	pw_db_bind_text(st, 3, pw_rule_at(PW_R_FLOOD)->id);
	pw_db_bind_text(st, 4, pw_rule_at(PW_R_FLOOD_SERIES)->id);
	pw_db_bind_text(st, 5, pw_rule_at(PW_R_RESEND_IDENTICAL)->id);
	pw_db_bind_text(st, 6, pw_rule_at(PW_R_SERIES_OVERSIZED)->id);
	return pw_db_rows(db, st, attention_row, attention_free, out);
}
