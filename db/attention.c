/*
 * patchwarden: the attention queue (see db/attention.h).
 */
#include "db/attention.h"
#include "db/db-private.h"

#include <stdlib.h>
#include <string.h>

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

static void item_free(gpointer p)
{
	struct pw_attention_item *a = p;

	g_free(a->msgid);
	g_free(a->subject);
	g_free(a->from_name);
	g_free(a->from_addr);
	g_strfreev(a->rules);
	g_free(a);
}

static int rule_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A row of the worklist's statement. */
static gpointer item_row(sqlite3_stmt *st)
{
	struct pw_attention_item *p = g_new0(struct pw_attention_item, 1);
	const char *rules = (const char *)sqlite3_column_text(st, 11);

	p->patch_id = sqlite3_column_int64(st, 0);
	p->msgid = pw_db_col_dup(st, 1);
	p->subject = pw_db_col_dup(st, 2);
	p->from_name = pw_db_col_dup(st, 3);
	p->from_addr = pw_db_col_dup(st, 4);
	p->date = sqlite3_column_int64(st, 5);
	p->series_id = sqlite3_column_int64(st, 6);
	p->version = sqlite3_column_int(st, 7);
	p->versions = sqlite3_column_int(st, 8);
	p->errors = sqlite3_column_int(st, 9);
	p->warnings = sqlite3_column_int(st, 10);
	/* group_concat() keeps no order: sorted here, so that every front
	 * end names a patch's rules alike. */
	p->rules = rules && *rules ? g_strsplit(rules, ",", -1) :
		g_new0(char *, 1);
	qsort(p->rules, g_strv_length(p->rules), sizeof(char *), rule_cmp);
	return p;
}

/*
 * The worklist's patches under the filters (?1 list name or NULL, ?2
 * least severity, ?3 since, ?4 rule or NULL): a row per patch, its
 * lists' rows of the queue being alike but for the list.
 */
#define ATTENTION_SELECTED \
	"WITH q AS (SELECT a.patch, max(a.date) AS date, max(a.errs) AS errs," \
	"  max(a.warns) AS warns FROM attention a" \
	"  WHERE (?1 IS NULL OR a.list = (SELECT id FROM list WHERE name = ?1))" \
	"  AND (a.errs > 0 OR ?2 < 2) AND a.date >= ?3" \
	"  AND (?4 IS NULL OR EXISTS (SELECT 1 FROM finding f" \
	"   JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message" \
	"   WHERE f.patch = a.patch AND f.rule = ?4 AND " \
	PW_ATTENTION_COUNTS("f.id", "f.severity", "f.rule") "))" \
	"  GROUP BY a.patch)"

enum pw_status pw_db_attention_list(struct pw_db *db,
				    const struct pw_query_filter *f,
				    int64_t *total, GPtrArray **out)
{
	sqlite3_stmt *count = pw_db_stmt(db, ATTENTION_SELECTED
		" SELECT count(*) FROM q");
	sqlite3_stmt *st = pw_db_stmt(db, ATTENTION_SELECTED
		" SELECT q.patch, m.msgid, m.subject, m.from_name, m.from_addr,"
		"  q.date, p.series, s.version,"
		"  (SELECT count(*) FROM lineage v WHERE v.root ="
		"   (SELECT root FROM lineage WHERE series = p.series)),"
		"  q.errs, q.warns,"
		"  (SELECT group_concat(DISTINCT f.rule) FROM finding f"
		"   WHERE f.patch = q.patch AND "
		PW_ATTENTION_COUNTS("f.id", "f.severity", "f.rule") ")"
		" FROM q JOIN patch p ON p.id = q.patch"
		" JOIN message m ON m.id = p.message"
		" LEFT JOIN series s ON s.id = p.series"
		" ORDER BY q.errs > 0 DESC, q.date DESC, q.patch DESC"
		" LIMIT ?5 OFFSET ?6");
	sqlite3_stmt *both[] = { count, st };
	enum pw_status s;
	bool row = false;
	size_t i;

	*out = NULL;
	*total = 0;
	for (i = 0; i < G_N_ELEMENTS(both); i++) {
		if (f->list)
			sqlite3_bind_text(both[i], 1, f->list, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(both[i], 2,
				 (int)MAX(f->min_severity, PW_SEV_WARNING));
		sqlite3_bind_int64(both[i], 3, f->since);
		if (f->rule)
			sqlite3_bind_text(both[i], 4, f->rule, -1, SQLITE_TRANSIENT);
	}
	sqlite3_bind_int64(st, 5, f->limit ? f->limit : -1);
	sqlite3_bind_int64(st, 6, f->offset);
	/* The count and the page from one snapshot of the store. */
	s = pw_db_begin(db);
	if (s)
		goto out;
	s = pw_db_read(db, count, &row);
	if (!s && row)
		*total = sqlite3_column_int64(count, 0);
	if (!s)
		s = pw_db_rows(db, st, item_row, item_free, out);
	if (s)
		pw_db_rollback(db);
	else
		s = pw_db_commit(db);
out:
	sqlite3_reset(count);
	sqlite3_reset(st);
	return s;
}
