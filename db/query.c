/*
 * patchwarden: the maintainers' queries (see db/query.h).
 */
#include <string.h>

#include "db/db-private.h"
#include "db/query.h"

/*
 * Ends a read: the statement's last step code rc says whether it went
 * well.  On success *out takes a, else a is released.
 */
static enum pw_status finish(struct pw_db *db, sqlite3_stmt *st, int rc,
			     GPtrArray *a, GPtrArray **out)
{
	enum pw_status s;

	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		s = pw_db_status(db, rc);
		pw_db_rollback(db);	/* fails a transaction around it */
	} else {
		s = pw_db_commit(db);
	}
	if (s) {
		g_ptr_array_unref(a);
		return s;
	}
	*out = a;
	return PW_OK;
}

static void finding_free(gpointer p)
{
	struct pw_query_finding *q = p;

	g_free(q->msgid);
	g_free(q->from_addr);
	g_free(q->subject);
	g_free(q->rule);
	g_free(q->file);
	g_free(q->message);
	g_free(q->fix);
	g_free(q);
}

enum pw_status pw_db_query_findings(struct pw_db *db,
				    const struct pw_query_filter *f,
				    GPtrArray **out)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(finding_free);
	enum pw_status s;
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	s = pw_db_begin(db);
	if (s)
		goto fail;
	st = pw_db_stmt(db,
		"SELECT f.id, f.patch, m.id, m.msgid, m.from_addr, m.subject,"
		" m.date, f.rule, f.severity, f.file, f.line, f.col, f.message, f.fix"
		" FROM finding f JOIN patch p ON p.id = f.patch"
		" JOIN message m ON m.id = p.message"
		" WHERE (?1 IS NULL OR f.rule = ?1) AND f.severity >= ?2"
		/* An unknown Date (NULL) counts as 0: in when since is. */
		" AND (m.date >= ?3 OR (m.date IS NULL AND ?3 <= 0))"
		" AND (?4 IS NULL OR m.from_addr = lower(?4))"
		" AND (?5 IS NULL OR EXISTS (SELECT 1 FROM message_list ml"
		"  JOIN list l ON l.id = ml.list"
		"  WHERE ml.message = m.id AND l.name = ?5))"
		" ORDER BY m.date, m.id, f.id");
	pw_db_bind_text(st, 1, f->rule);
	sqlite3_bind_int(st, 2, f->min_severity);
	sqlite3_bind_int64(st, 3, f->since);
	pw_db_bind_text(st, 4, f->from);
	pw_db_bind_text(st, 5, f->list);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct pw_query_finding *q = g_new0(struct pw_query_finding, 1);

		q->id = sqlite3_column_int64(st, 0);
		q->patch_id = sqlite3_column_int64(st, 1);
		q->message_id = sqlite3_column_int64(st, 2);
		q->msgid = pw_db_col_dup(st, 3);
		q->from_addr = pw_db_col_dup(st, 4);
		q->subject = pw_db_col_dup(st, 5);
		q->date = sqlite3_column_int64(st, 6);
		q->rule = pw_db_col_dup(st, 7);
		q->severity = sqlite3_column_int(st, 8);
		q->file = pw_db_col_dup(st, 9);
		q->line = sqlite3_column_int(st, 10);
		q->column = sqlite3_column_int(st, 11);
		q->message = pw_db_col_dup(st, 12);
		q->fix = pw_db_col_dup(st, 13);
		g_ptr_array_add(a, q);
	}
	return finish(db, st, rc, a, out);
fail:
	g_ptr_array_unref(a);
	return s;
}

static void series_free(gpointer p)
{
	struct pw_query_series *q = p;

	g_free(q->name);
	g_free(q->from_addr);
	g_free(q);
}

enum pw_status pw_db_query_series(struct pw_db *db,
				  const struct pw_query_filter *f,
				  GPtrArray **out)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(series_free);
	enum pw_status s;
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	s = pw_db_begin(db);
	if (s)
		goto fail;
	st = pw_db_stmt(db,
		"SELECT s.id, s.name, s.from_addr, s.version, s.total,"
		" s.cover IS NOT NULL, s.first_date, s.last_date,"
		" (SELECT count(*) FROM patch p WHERE p.series = s.id),"
		" (SELECT count(*) FROM patch p JOIN finding fi ON fi.patch = p.id"
		"  WHERE p.series = s.id),"
		" coalesce((SELECT min(g.id) FROM patch p"
		"  JOIN flood_member fm ON fm.message = p.message"
		"  JOIN flood_group g ON g.id = fm.grp"
		"  WHERE p.series = s.id AND g.detected_at IS NOT NULL), 0)"
		" FROM series s"
		" WHERE s.last_date >= ?1 AND (?2 IS NULL OR s.from_addr = lower(?2))"
		" AND (?3 IS NULL OR EXISTS (SELECT 1 FROM patch p"
		"  JOIN message_list ml ON ml.message = p.message"
		"  JOIN list l ON l.id = ml.list"
		"  WHERE p.series = s.id AND l.name = ?3))"
		" ORDER BY s.first_date, s.id");
	sqlite3_bind_int64(st, 1, f->since);
	pw_db_bind_text(st, 2, f->from);
	pw_db_bind_text(st, 3, f->list);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct pw_query_series *q = g_new0(struct pw_query_series, 1);

		q->id = sqlite3_column_int64(st, 0);
		q->name = pw_db_col_dup(st, 1);
		q->from_addr = pw_db_col_dup(st, 2);
		q->version = sqlite3_column_int(st, 3);
		q->total = sqlite3_column_int(st, 4);
		q->has_cover = sqlite3_column_int(st, 5);
		q->first_date = sqlite3_column_int64(st, 6);
		q->last_date = sqlite3_column_int64(st, 7);
		q->patches = sqlite3_column_int(st, 8);
		q->findings = sqlite3_column_int(st, 9);
		q->flood_id = sqlite3_column_int64(st, 10);
		g_ptr_array_add(a, q);
	}
	return finish(db, st, rc, a, out);
fail:
	g_ptr_array_unref(a);
	return s;
}
