/*
 * patchwarden: messages, patches and findings in the store: storing and
 * reading them, the ingest errors and cursors, and the store's counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/db-private.h"

/* ---- messages ---- */

void pw_db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

char *pw_db_col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? g_strdup((const char *)t) : NULL;
}

enum pw_status pw_db_one_int64(struct pw_db *db, sqlite3_stmt *st,
			       int64_t *out)
{
	enum pw_status s;
	bool row;

	*out = 0;
	s = pw_db_read(db, st, &row);
	if (!s && row)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return s;
}

static void *col0_dup(sqlite3_stmt *st)
{
	return pw_db_col_dup(st, 0);
}

enum pw_status pw_db_one_text(struct pw_db *db, sqlite3_stmt *st, char **out)
{
	void *p;
	enum pw_status s = pw_db_read_one(db, st, col0_dup, &p);

	*out = p;
	return s;
}

/* A list's row id, created when new; remembered, since every message
 * of an ingest names the same few lists. */
static enum pw_status list_id(struct pw_db *db, const char *name, int64_t *id)
{
	sqlite3_stmt *st;
	gint64 *known = g_hash_table_lookup(db->lists, name);
	int rc;

	if (known) {
		*id = *known;
		return PW_OK;
	}
	st = pw_db_stmt(db, "SELECT id FROM list WHERE name = ?1");
	pw_db_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	} else {
		sqlite3_reset(st);
		st = pw_db_stmt(db, "INSERT INTO list(name) VALUES (?1)");
		pw_db_bind_text(st, 1, name);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return pw_db_status(db, rc);
		*id = sqlite3_last_insert_rowid(db->h);
	}
	g_hash_table_insert(db->lists, g_strdup(name), g_memdup2(id, sizeof(*id)));
	return PW_OK;
}

enum pw_status pw_db_message_find(struct pw_db *db, const char *msgid,
				  int64_t *id, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT id FROM message WHERE msgid = ?1");
	enum pw_status s;

	pw_db_bind_text(st, 1, msgid);
	s = pw_db_read(db, st, found);
	if (*found && id)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return s;
}

static char *join(const char *const *v, const char *sep)
{
	return v && *v ? g_strjoinv(sep, (char **)v) : NULL;
}

enum pw_status pw_db_message_add(struct pw_db *db, const struct pw_mail *m,
				 const struct pw_msg_origin *from,
				 const char *list, int64_t *id, bool *is_new)
{
	const struct pw_subject_tags *t = &m->tags;
	sqlite3_stmt *st;
	char *refs = NULL, *rcpts = NULL;
	enum pw_status s;
	int64_t lid = 0, raw_id = 0;
	bool found;
	int rc;

	*is_new = false;
	s = pw_db_message_find(db, m->msgid, id, &found);
	if (s)
		return s;
	if (found)
		goto seen;

	if (from->raw && !from->git_blob) {
		s = pw_db_raw_put(db, from->raw, from->raw_len, &raw_id);
		if (s)
			return s;
	}
	refs = join((const char *const *)m->references, " ");
	rcpts = join((const char *const *)m->recipients, "\n");
	st = pw_db_stmt(db,
		"INSERT INTO message(msgid, msgid_derived, kind, from_name,"
		" from_addr, subject, subject_clean, date, in_reply_to, refs,"
		" list_id, auto_submitted, recipients, nrecipients, version,"
		" number, total, has_counter, rfc, prefixes, git_blob,"
		" source, received_at, backfill, raw_id, automated)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
		" ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25,"
		" ?26)");
	pw_db_bind_text(st, 1, m->msgid);
	sqlite3_bind_int(st, 2, m->msgid_derived);
	pw_db_bind_text(st, 3, pw_mail_kind_str(m->kind));
	pw_db_bind_text(st, 4, m->from_name ? m->from_name : "");
	pw_db_bind_text(st, 5, m->from_addr ? m->from_addr : "");
	pw_db_bind_text(st, 6, m->subject ? m->subject : "");
	pw_db_bind_text(st, 7, m->subject_clean ? m->subject_clean : "");
	/* 0 is an unknown Date (checks/message.h): NULL in the store. */
	if (m->date)
		sqlite3_bind_int64(st, 8, m->date);
	else
		sqlite3_bind_null(st, 8);
	pw_db_bind_text(st, 9, m->in_reply_to);
	pw_db_bind_text(st, 10, refs);
	pw_db_bind_text(st, 11, m->list_id);
	pw_db_bind_text(st, 12, m->auto_submitted);
	pw_db_bind_text(st, 13, rcpts);
	sqlite3_bind_int(st, 14, m->nrecipients);
	sqlite3_bind_int(st, 15, t->version);
	sqlite3_bind_int(st, 16, t->number);
	sqlite3_bind_int(st, 17, t->total);
	sqlite3_bind_int(st, 18, t->has_counter);
	sqlite3_bind_int(st, 19, t->rfc);
	pw_db_bind_text(st, 20, t->prefixes ? t->prefixes : "");
	pw_db_bind_text(st, 21, from->git_blob);
	pw_db_bind_text(st, 22, from->source);
	sqlite3_bind_int64(st, 23, (int64_t)time(NULL));
	sqlite3_bind_int(st, 24, from->backfill);
	if (raw_id)
		sqlite3_bind_int64(st, 25, raw_id);
	else
		sqlite3_bind_null(st, 25);
	pw_db_bind_text(st, 26, m->automated);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		s = pw_db_status(db, rc);
		goto out;
	}
	*id = sqlite3_last_insert_rowid(db->h);
	*is_new = true;
	if (m->sender_addr) {
		st = pw_db_stmt(db, "INSERT INTO message_sender(message, name, addr)"
				" VALUES (?1, ?2, ?3)");
		sqlite3_bind_int64(st, 1, *id);
		pw_db_bind_text(st, 2, m->sender_name ? m->sender_name : "");
		pw_db_bind_text(st, 3, m->sender_addr);
		s = pw_db_done(db, st);
		if (s)
			goto out;
	}
seen:
	s = PW_OK;
	if (list && *list) {
		s = list_id(db, list, &lid);
		if (s)
			goto out;
		st = pw_db_stmt(db, "INSERT OR IGNORE INTO message_list(message, list)"
				" VALUES (?1, ?2)");
		sqlite3_bind_int64(st, 1, *id);
		sqlite3_bind_int64(st, 2, lid);
		s = pw_db_done(db, st);
	}
out:
	g_free(refs);
	g_free(rcpts);
	return s;
}

GBytes *pw_db_message_raw(struct pw_db *db, int64_t id)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT raw_id, raw FROM message"
				      " WHERE id = ?1");
	int64_t raw_id = 0;
	GBytes *b = NULL;

	bool found;

	sqlite3_bind_int64(st, 1, id);
	if (!pw_db_read(db, st, &found) && found) {
		raw_id = sqlite3_column_int64(st, 0);
		/* Stored before the raw store: the bytes are in the row. */
		if (!raw_id && sqlite3_column_type(st, 1) != SQLITE_NULL)
			b = g_bytes_new(sqlite3_column_blob(st, 1),
					(gsize)sqlite3_column_bytes(st, 1));
	}
	sqlite3_reset(st);
	return raw_id ? pw_db_raw_get(db, raw_id) : b;
}

enum pw_status pw_db_message_head(struct pw_db *db, const char *msgid,
				  struct pw_msg_head *h, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT id, kind, from_addr, subject, in_reply_to, refs, date"
		" FROM message WHERE msgid = ?1");
	enum pw_status s;

	memset(h, 0, sizeof(*h));
	pw_db_bind_text(st, 1, msgid);
	s = pw_db_read(db, st, found);
	if (*found) {
		h->id = sqlite3_column_int64(st, 0);
		h->kind = g_strdup((const char *)sqlite3_column_text(st, 1));
		h->from_addr = g_strdup((const char *)sqlite3_column_text(st, 2));
		h->subject = g_strdup((const char *)sqlite3_column_text(st, 3));
		h->in_reply_to = g_strdup((const char *)sqlite3_column_text(st, 4));
		h->refs = g_strdup((const char *)sqlite3_column_text(st, 5));
		h->date = sqlite3_column_int64(st, 6);
	}
	sqlite3_reset(st);
	return s;
}

void pw_msg_head_release(struct pw_msg_head *h)
{
	g_free(h->kind);
	g_free(h->from_addr);
	g_free(h->subject);
	g_free(h->in_reply_to);
	g_free(h->refs);
}

/* ---- patches and findings ---- */

enum pw_status pw_db_patch_add(struct pw_db *db, int64_t message_id,
			       int number, const char *pull_url,
			       int64_t *patch_id)
{
	/* Plain statements: RETURNING and upserts cost a temporary table
	 * per row, and this runs for every patch ingested. */
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT OR IGNORE INTO patch(message, number, pull_url)"
		" VALUES (?1, ?2, ?3)");
	enum pw_status s;
	int rc;

	sqlite3_bind_int64(st, 1, message_id);
	sqlite3_bind_int(st, 2, number);
	pw_db_bind_text(st, 3, pull_url);
	s = pw_db_done(db, st);
	if (s)
		return s;
	if (sqlite3_changes(db->h) > 0) {
		*patch_id = sqlite3_last_insert_rowid(db->h);
		return PW_OK;
	}
	/* The message is a patch already: keep it, with the new number. */
	st = pw_db_stmt(db, "UPDATE patch SET number = ?2 WHERE message = ?1");
	sqlite3_bind_int64(st, 1, message_id);
	sqlite3_bind_int(st, 2, number);
	s = pw_db_done(db, st);
	if (s)
		return s;
	st = pw_db_stmt(db, "SELECT id FROM patch WHERE message = ?1");
	sqlite3_bind_int64(st, 1, message_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*patch_id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? PW_OK : pw_db_status(db, rc);
}

enum pw_status pw_db_findings_set(struct pw_db *db, int64_t patch_id,
				  GPtrArray *findings)
{
	sqlite3_stmt *st;
	enum pw_status s;

	st = pw_db_stmt(db, "DELETE FROM finding WHERE patch = ?1");
	sqlite3_bind_int64(st, 1, patch_id);
	s = pw_db_done(db, st);
	return s ? s : pw_db_findings_add(db, patch_id, findings);
}

enum pw_status pw_db_findings_add(struct pw_db *db, int64_t patch_id,
				  GPtrArray *findings)
{
	sqlite3_stmt *st;
	enum pw_status s = PW_OK;
	guint i;

	for (i = 0; !s && findings && i < findings->len; i++) {
		const struct pw_finding *f = findings->pdata[i];

		st = pw_db_stmt(db, "INSERT INTO finding(patch, rule, severity,"
				" file, line, col, message, fix)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
		sqlite3_bind_int64(st, 1, patch_id);
		pw_db_bind_text(st, 2, f->rule);
		sqlite3_bind_int(st, 3, f->severity);
		pw_db_bind_text(st, 4, f->file);
		sqlite3_bind_int(st, 5, f->line);
		sqlite3_bind_int(st, 6, f->column);
		pw_db_bind_text(st, 7, f->message ? f->message : "");
		pw_db_bind_text(st, 8, f->fix);
		s = pw_db_done(db, st);
		if (s || !f->added_line)
			continue;
		/* The line it quotes; deleting the finding deletes it. */
		st = pw_db_stmt(db, "INSERT OR REPLACE INTO finding_line(finding, text)"
				" VALUES (last_insert_rowid(), ?1)");
		pw_db_bind_text(st, 1, f->added_line);
		s = pw_db_done(db, st);
	}
	if (!s) {
		st = pw_db_stmt(db, "UPDATE patch SET checked_at = ?2 WHERE id = ?1");
		sqlite3_bind_int64(st, 1, patch_id);
		sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
		s = pw_db_done(db, st);
	}
	return s;
}

enum pw_status pw_db_patch_list(struct pw_db *db, int64_t since,
				GArray **out)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(struct pw_db_patch_ref));
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT patch.id, message.id FROM patch JOIN message"
		" ON message.id = patch.message"
		/* An unknown Date (NULL) counts as 0: in when since is. */
		" WHERE (message.date >= ?1 OR (message.date IS NULL AND ?1 <= 0))"
		" AND patch.pull_url IS NULL"
		" ORDER BY message.date, message.id");
	enum pw_status s;
	bool row;

	*out = a;
	sqlite3_bind_int64(st, 1, since);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct pw_db_patch_ref r;

		r.patch_id = sqlite3_column_int64(st, 0);
		r.message_id = sqlite3_column_int64(st, 1);
		g_array_append_val(a, r);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_message_list(struct pw_db *db, int64_t message_id,
				  char **name)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT list.name FROM message_list JOIN list ON list.id = message_list.list"
		" WHERE message_list.message = ?1 ORDER BY list.id LIMIT 1");

	sqlite3_bind_int64(st, 1, message_id);
	return pw_db_one_text(db, st, name);
}

/* ---- errors and cursors ---- */

enum pw_status pw_db_ingest_error_add(struct pw_db *db, const char *source,
				      const char *location, const char *msgid,
				      const char *error, const void *raw,
				      size_t raw_len)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO ingest_error(source, location, msgid, error, raw, at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)");

	pw_db_bind_text(st, 1, source ? source : "");
	pw_db_bind_text(st, 2, location ? location : "");
	pw_db_bind_text(st, 3, msgid);
	pw_db_bind_text(st, 4, error ? error : "");
	/* Keep at most 1 MiB of a broken message: enough to debug it. */
	if (raw)
		sqlite3_bind_blob64(st, 5, raw, raw_len > (1u << 20) ?
				    (1u << 20) : raw_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 5);
	sqlite3_bind_int64(st, 6, (int64_t)time(NULL));
	return pw_db_done(db, st);
}

enum pw_status pw_db_cursor_get(struct pw_db *db, const char *source,
				char **value)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT value FROM cursor WHERE source = ?1");

	pw_db_bind_text(st, 1, source);
	return pw_db_one_text(db, st, value);
}

enum pw_status pw_db_cursor_set(struct pw_db *db, const char *source,
				const char *value)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO cursor(source, value, updated_at) VALUES (?1, ?2, ?3)"
		" ON CONFLICT(source) DO UPDATE SET value = excluded.value,"
		" updated_at = excluded.updated_at");

	pw_db_bind_text(st, 1, source);
	pw_db_bind_text(st, 2, value);
	sqlite3_bind_int64(st, 3, (int64_t)time(NULL));
	return pw_db_done(db, st);
}

/* ---- counts ---- */

/* The one number st reads into *n; an error fails the transaction. */
static void count(struct pw_db *db, sqlite3_stmt *st, int64_t *n)
{
	if (pw_db_row(db, st))
		*n = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
}

enum pw_status pw_db_stats(struct pw_db *db, struct pw_db_stats *o)
{
	sqlite3_stmt *st;
	enum pw_status s;

	memset(o, 0, sizeof(*o));
	s = pw_db_begin(db);
	if (s)
		return s;
	/* From the totals per list and day (db/totals.c), not every row. */
	st = pw_db_stmt(db, "SELECT kind, sum(n) FROM total_message"
			" WHERE list = 0 GROUP BY kind");
	while (pw_db_row(db, st)) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		int64_t n = sqlite3_column_int64(st, 1);

		o->messages += n;
		if (!strcmp(k, "patch"))
			o->patches = n;
		else if (!strcmp(k, "cover"))
			o->covers = n;
		else if (!strcmp(k, "comment"))
			o->comments = n;
		else if (!strcmp(k, "pull"))
			o->pulls = n;
		else
			o->others = n;
	}
	sqlite3_reset(st);
	count(db, pw_db_stmt(db, "SELECT count(*) FROM series"), &o->series);
	count(db, pw_db_stmt(db, "SELECT count(*) FROM list"), &o->lists);
	count(db, pw_db_stmt(db, "SELECT coalesce(sum(n), 0) FROM total_finding"
			     " WHERE list = 0"), &o->findings);
	count(db, pw_db_stmt(db, "SELECT count(*) FROM ingest_error"), &o->errors);
	/* A read that failed failed the transaction: the commit says so. */
	return pw_db_commit(db);
}
