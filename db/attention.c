/*
 * patchwarden: the attention queue (see db/attention.h).
 */
#include "db/attention.h"
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
	 * From the queue the triggers keep (db/attention.h): each list's
	 * count, then its newest along attention_newest, a few rows each,
	 * whatever the store's size.
	 */
	sqlite3_stmt *st = pw_db_stmt(db,
		"WITH n AS (SELECT list, count(*) AS n FROM attention"
		"  WHERE errs > 0 OR (?1 < 2 AND warns > 0) GROUP BY list)"
		" SELECT coalesce(l.name, ''), p.id, m.id, m.msgid, m.subject,"
		"  m.from_name, m.from_addr, a.date, a.errs, a.warns, n.n"
		" FROM n JOIN attention a ON a.list = n.list"
		"  AND a.patch IN (SELECT patch FROM attention"
		"  WHERE list = n.list AND (errs > 0 OR (?1 < 2 AND warns > 0))"
		"  ORDER BY date DESC, patch DESC LIMIT ?2)"
		" JOIN patch p ON p.id = a.patch JOIN message m ON m.id = p.message"
		" LEFT JOIN list l ON l.id = n.list"
		" ORDER BY 1, a.date DESC, m.id DESC");

	sqlite3_bind_int(st, 1, (int)MAX(min, PW_SEV_WARNING));
	sqlite3_bind_int(st, 2, per_list);
	return pw_db_rows(db, st, attention_row, attention_free, out);
}
