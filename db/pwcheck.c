/*
 * patchwarden: the pwcheck table, the checks owed to Patchwork (see
 * db/pwcheck.h).
 */
#include <string.h>

#include "db/db-private.h"
#include "db/decision.h"
#include "db/pwcheck.h"

void pw_pwcheck_row_free(struct pw_pwcheck_row *r)
{
	if (!r)
		return;
	g_free(r->instance);
	g_free(r->msgid);
	g_free(r->state);
	g_free(r->check_state);
	g_free(r->description);
	g_free(r->target_url);
	g_free(r->check_url);
	g_free(r->last_error);
	g_free(r);
}

enum pw_status pw_db_pwcheck_add(struct pw_db *db, int64_t message_id,
				 const char *instance, const char *msgid,
				 int64_t now, bool *added)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO pwcheck(message, instance, msgid, state, created_at,"
		"  next_attempt) VALUES (?1, ?2, ?3, 'pending', ?4, ?4)"
		" ON CONFLICT DO NOTHING");

	sqlite3_bind_int64(st, 1, message_id);
	pw_db_bind_text(st, 2, instance);
	pw_db_bind_text(st, 3, msgid);
	sqlite3_bind_int64(st, 4, now);
	return pw_db_write_one(db, st, added);
}

#define ROW_COLUMNS \
	"id, message, instance, msgid, state, unsure, attempts, created_at," \
	" next_attempt, coalesce(last_attempt, 0), coalesce(posted_at, 0)," \
	" check_state, description, target_url, http_status," \
	" coalesce(patch_id, 0), check_url, last_error"

static struct pw_pwcheck_row *read_row(sqlite3_stmt *st)
{
	struct pw_pwcheck_row *r = g_new0(struct pw_pwcheck_row, 1);

	r->id = sqlite3_column_int64(st, 0);
	r->message_id = sqlite3_column_int64(st, 1);
	r->instance = pw_db_col_dup(st, 2);
	r->msgid = pw_db_col_dup(st, 3);
	r->state = pw_db_col_dup(st, 4);
	r->unsure = sqlite3_column_int(st, 5) != 0;
	r->attempts = sqlite3_column_int(st, 6);
	r->created_at = sqlite3_column_int64(st, 7);
	r->next_attempt = sqlite3_column_int64(st, 8);
	r->last_attempt = sqlite3_column_int64(st, 9);
	r->posted_at = sqlite3_column_int64(st, 10);
	r->check_state = pw_db_col_dup(st, 11);
	r->description = pw_db_col_dup(st, 12);
	r->target_url = pw_db_col_dup(st, 13);
	r->http_status = sqlite3_column_int(st, 14);
	r->patch_id = sqlite3_column_int64(st, 15);
	r->check_url = pw_db_col_dup(st, 16);
	r->last_error = pw_db_col_dup(st, 17);
	return r;
}

static void *read_any(sqlite3_stmt *st)
{
	return read_row(st);
}

enum pw_status pw_db_pwcheck_get(struct pw_db *db, int64_t id,
				 struct pw_pwcheck_row **out, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT " ROW_COLUMNS " FROM pwcheck WHERE id = ?1");
	enum pw_status s;
	void *r;

	sqlite3_bind_int64(st, 1, id);
	s = pw_db_read_one(db, st, read_any, &r);
	*out = r;
	*found = r != NULL;
	return s;
}

enum pw_status pw_db_pwcheck_list(struct pw_db *db, const char *state,
				  GPtrArray *out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT " ROW_COLUMNS " FROM pwcheck"
		" WHERE ?1 IS NULL OR state = ?1 ORDER BY id");

	pw_db_bind_text(st, 1, state);
	return pw_db_read_rows(db, st, read_any, out);
}

enum pw_status pw_db_pwcheck_of_message(struct pw_db *db, int64_t message_id,
					const char *state, GPtrArray *out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT " ROW_COLUMNS " FROM pwcheck WHERE message = ?1"
		" AND (?2 IS NULL OR state = ?2) ORDER BY id");

	sqlite3_bind_int64(st, 1, message_id);
	pw_db_bind_text(st, 2, state);
	return pw_db_read_rows(db, st, read_any, out);
}

enum pw_status pw_db_pwcheck_due(struct pw_db *db, int64_t now, bool all,
				 int limit, GArray *ids)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT id FROM pwcheck WHERE state = 'pending'"
		" AND (?2 OR next_attempt <= ?1) ORDER BY next_attempt, id LIMIT ?3");

	return pw_db_read_due(db, st, now, all, limit, ids);
}

enum pw_status pw_db_pwcheck_findings(struct pw_db *db, int64_t message_id,
				      GArray *out, bool *is_patch)
{
	/* The patch's own findings, then the series-level findings of
	 * the other patches of its series. */
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT f.rule, f.severity FROM patch p"
		" JOIN finding f ON f.patch = p.id WHERE p.message = ?1"
		"  AND " PW_FINDING_OPEN("f")
		" UNION ALL"
		" SELECT f.rule, f.severity FROM patch p"
		" JOIN patch o ON o.series = p.series AND o.id != p.id"
		" JOIN finding f ON f.patch = o.id"
		" WHERE p.message = ?1 AND p.series IS NOT NULL"
		"  AND f.rule IN ('FLOOD', 'FLOOD_SERIES', 'SERIES_OVERSIZED')"
		"  AND " PW_FINDING_OPEN("f"));
	sqlite3_stmt *pt = pw_db_stmt(db,
		"SELECT 1 FROM patch WHERE message = ?1");
	enum pw_status s;
	bool row;

	sqlite3_bind_int64(pt, 1, message_id);
	s = pw_db_read(db, pt, is_patch);
	sqlite3_reset(pt);
	if (s || !*is_patch)
		return s;
	sqlite3_bind_int64(st, 1, message_id);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct pw_pwcheck_item it;
		const char *rule = (const char *)sqlite3_column_text(st, 0);

		it.rule = g_intern_string(rule ? rule : "");
		it.severity = (enum pw_severity)sqlite3_column_int(st, 1);
		g_array_append_val(out, it);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_pwcheck_claim(struct pw_db *db, int64_t id, int64_t now,
				   const char *check_state,
				   const char *description,
				   const char *target_url, bool *claimed)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE pwcheck SET state = 'posting', attempts = attempts + 1,"
		" last_attempt = ?2, check_state = ?3, description = ?4,"
		" target_url = ?5 WHERE id = ?1 AND state = 'pending'");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	pw_db_bind_text(st, 3, check_state);
	pw_db_bind_text(st, 4, description);
	pw_db_bind_text(st, 5, target_url);
	return pw_db_write_one(db, st, claimed);
}

enum pw_status pw_db_pwcheck_set_patch(struct pw_db *db, int64_t id,
				       int64_t patch_id)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE pwcheck SET patch_id = ?2 WHERE id = ?1");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, patch_id);
	return pw_db_write(db, st, NULL);
}

enum pw_status pw_db_pwcheck_mark_posted(struct pw_db *db, int64_t id,
					 int64_t now, int status,
					 const char *check_url,
					 const char *note)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE pwcheck SET state = 'posted', posted_at = ?2,"
		" http_status = ?3, check_url = ?4, last_error = ?5, unsure = 0"
		" WHERE id = ?1");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	sqlite3_bind_int(st, 3, status);
	pw_db_bind_text(st, 4, check_url);
	pw_db_bind_text(st, 5, note);
	return pw_db_write(db, st, NULL);
}

enum pw_status pw_db_pwcheck_mark_retry(struct pw_db *db, int64_t id,
					int64_t next, int status,
					const char *error, bool unsure)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE pwcheck SET state = 'pending', next_attempt = ?2,"
		" http_status = ?3, last_error = ?4, unsure = unsure OR ?5"
		" WHERE id = ?1");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, next);
	sqlite3_bind_int(st, 3, status);
	pw_db_bind_text(st, 4, error);
	sqlite3_bind_int(st, 5, unsure);
	return pw_db_write(db, st, NULL);
}

enum pw_status pw_db_pwcheck_requeue(struct pw_db *db, int64_t id, int64_t now,
				     const char *why, bool *requeued)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE pwcheck SET state = 'pending', next_attempt = ?2,"
		" attempts = 0, unsure = 0, last_error = ?3"
		" WHERE id = ?1 AND state = 'posted'");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	pw_db_bind_text(st, 3, why);
	return pw_db_write_one(db, st, requeued);
}

enum pw_status pw_db_pwcheck_mark_failed(struct pw_db *db, int64_t id,
					 int status, const char *error)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE pwcheck SET state = 'failed', http_status = ?2,"
		" last_error = ?3 WHERE id = ?1");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, status);
	pw_db_bind_text(st, 3, error);
	return pw_db_write(db, st, NULL);
}

enum pw_status pw_db_pwcheck_release(struct pw_db *db, int64_t id, int64_t now,
				     const char **why)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE pwcheck SET state = 'pending', next_attempt = ?2,"
		" attempts = 0 WHERE id = ?1 AND state IN ('failed', 'pending')");
	struct pw_pwcheck_row *r = NULL;
	enum pw_status s;
	bool found, released;

	*why = NULL;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	s = pw_db_write_one(db, st, &released);
	if (s || released)
		return s;
	s = pw_db_pwcheck_get(db, id, &r, &found);
	if (!s) {
		*why = !found ? "no such check" :
		       !strcmp(r->state, "posted") ? "posted already" :
		       "being posted by another process";
		s = PW_ERR_INPUT;
	}
	pw_pwcheck_row_free(r);
	return s;
}

enum pw_status pw_db_pwcheck_release_failed(struct pw_db *db, int64_t now,
					    int *n)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE pwcheck SET state = 'pending', next_attempt = ?1,"
		" attempts = 0 WHERE state = 'failed'");

	sqlite3_bind_int64(st, 1, now);
	return pw_db_write(db, st, n);
}

enum pw_status pw_db_pwcheck_recover(struct pw_db *db, int64_t now, int *n)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE pwcheck SET state = 'pending', unsure = 1,"
		" next_attempt = ?1, last_error = 'interrupted while posting:"
		" looked for among the patch''s checks before posting again'"
		" WHERE state = 'posting'");

	sqlite3_bind_int64(st, 1, now);
	return pw_db_write(db, st, n);
}

enum pw_status pw_db_pwcheck_counts(struct pw_db *db,
				    struct pw_pwcheck_counts *c)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT state, count(*) FROM pwcheck GROUP BY state");
	enum pw_status s;
	bool row;

	memset(c, 0, sizeof(*c));
	while (!(s = pw_db_read(db, st, &row)) && row) {
		const char *state = (const char *)sqlite3_column_text(st, 0);
		int64_t k = sqlite3_column_int64(st, 1);

		if (!state)
			continue;
		if (!strcmp(state, "pending"))
			c->pending = k;
		else if (!strcmp(state, "posting"))
			c->posting = k;
		else if (!strcmp(state, "posted"))
			c->posted = k;
		else if (!strcmp(state, "failed"))
			c->failed = k;
	}
	sqlite3_reset(st);
	return s;
}
