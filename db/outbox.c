/*
 * patchwarden: the outbox table and every statement about replies.
 *
 * The table keeps the composed reply in wire form (CRLF), so that every
 * attempt sends the very same bytes, with the same Message-ID, whatever
 * happened in between.
 */
#include <string.h>

#include "db/db-private.h"
#include "db/decision.h"
#include "db/outbox.h"

static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

void pw_outbox_row_free(struct pw_outbox_row *r)
{
	if (!r)
		return;
	g_free(r->kind);
	g_free(r->answers);
	g_free(r->state);
	g_free(r->reason);
	g_free(r->msgid);
	g_free(r->in_reply_to);
	g_free(r->mail_from);
	g_free(r->rcpt_to);
	g_free(r->recipients);
	g_free(r->subject);
	if (r->raw)
		g_bytes_unref(r->raw);
	g_free(r->last_error);
	g_free(r->transport);
	g_free(r);
}

enum pw_status pw_db_outbox_add(struct pw_db *db, const struct pw_outbox_new *n,
				int64_t *id, bool *added)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO outbox(kind, answers, message, state, reason, msgid,"
		"  in_reply_to, mail_from, rcpt_to, recipients, subject, raw,"
		"  created_at, next_attempt)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13)"
		" ON CONFLICT DO NOTHING");
	int rc;

	*added = false;
	if (id)
		*id = 0;
	sqlite3_bind_text(st, 1, n->kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, n->answers, -1, SQLITE_TRANSIENT);
	if (n->message_id > 0)
		sqlite3_bind_int64(st, 3, n->message_id);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_text(st, 4, n->state, -1, SQLITE_TRANSIENT);
	bind_opt(st, 5, n->reason);
	sqlite3_bind_text(st, 6, n->msgid, -1, SQLITE_TRANSIENT);
	bind_opt(st, 7, n->in_reply_to);
	sqlite3_bind_text(st, 8, n->mail_from, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, n->rcpt_to, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 10, n->recipients, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 11, n->subject, -1, SQLITE_TRANSIENT);
	sqlite3_bind_blob64(st, 12, n->raw, n->raw_len, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 13, n->now);
	/* No RETURNING: it costs a temporary table per reply queued. */
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return pw_db_status(db, rc);
	if (sqlite3_changes(db->h) > 0) {
		*added = true;
		if (id)
			*id = sqlite3_last_insert_rowid(db->h);
	}
	return PW_OK;
}

/* Whether the one-parameter query st, bound, finds a row. */
static enum pw_status exists(struct pw_db *db, sqlite3_stmt *st, bool *found)
{
	int rc = sqlite3_step(st);

	*found = rc == SQLITE_ROW;
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? PW_OK : pw_db_status(db, rc);
}

enum pw_status pw_db_outbox_answered(struct pw_db *db, const char *key,
				     bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT 1 FROM outbox WHERE answers = ?1");

	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	return exists(db, st, found);
}

enum pw_status pw_db_outbox_is_own(struct pw_db *db, const char *msgid,
				   bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT 1 FROM outbox WHERE msgid = ?1");

	sqlite3_bind_text(st, 1, msgid, -1, SQLITE_TRANSIENT);
	return exists(db, st, found);
}

enum pw_status pw_db_outbox_count_since(struct pw_db *db, const char *rcpt,
					int64_t since, int64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	if (rcpt) {
		/* To or Cc: recipients holds them a line each. */
		st = pw_db_stmt(db, "SELECT count(*) FROM outbox"
			" WHERE created_at >= ?2"
			" AND state IN ('pending','sending','sent')"
			" AND (rcpt_to = ?1 OR instr(char(10) || recipients"
			" || char(10), char(10) || ?1 || char(10)) > 0)");
		sqlite3_bind_text(st, 1, rcpt, -1, SQLITE_TRANSIENT);
	} else {
		st = pw_db_stmt(db, "SELECT count(*) FROM outbox"
			" WHERE created_at >= ?2"
			" AND state IN ('pending','sending','sent')");
	}
	sqlite3_bind_int64(st, 2, since);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? PW_OK : pw_db_status(db, rc);
}

#define ROW_COLUMNS \
	"id, kind, answers, coalesce(message, 0), state, reason, msgid," \
	" in_reply_to, mail_from, rcpt_to, recipients, subject, created_at," \
	" next_attempt, coalesce(last_attempt, 0), coalesce(sent_at, 0)," \
	" attempts, last_error, smtp_code, transport"

static struct pw_outbox_row *read_row(sqlite3_stmt *st)
{
	struct pw_outbox_row *r = g_new0(struct pw_outbox_row, 1);

	r->id = sqlite3_column_int64(st, 0);
	r->kind = pw_db_col_dup(st, 1);
	r->answers = pw_db_col_dup(st, 2);
	r->message_id = sqlite3_column_int64(st, 3);
	r->state = pw_db_col_dup(st, 4);
	r->reason = pw_db_col_dup(st, 5);
	r->msgid = pw_db_col_dup(st, 6);
	r->in_reply_to = pw_db_col_dup(st, 7);
	r->mail_from = pw_db_col_dup(st, 8);
	r->rcpt_to = pw_db_col_dup(st, 9);
	r->recipients = pw_db_col_dup(st, 10);
	r->subject = pw_db_col_dup(st, 11);
	r->created_at = sqlite3_column_int64(st, 12);
	r->next_attempt = sqlite3_column_int64(st, 13);
	r->last_attempt = sqlite3_column_int64(st, 14);
	r->sent_at = sqlite3_column_int64(st, 15);
	r->attempts = sqlite3_column_int(st, 16);
	r->last_error = pw_db_col_dup(st, 17);
	r->smtp_code = sqlite3_column_int(st, 18);
	r->transport = pw_db_col_dup(st, 19);
	return r;
}

static void *read_any(sqlite3_stmt *st)
{
	return read_row(st);
}

enum pw_status pw_db_outbox_get(struct pw_db *db, int64_t id, bool with_raw,
				struct pw_outbox_row **out, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT " ROW_COLUMNS ", raw FROM outbox WHERE id = ?1");
	enum pw_status s = PW_OK;
	int rc;

	*out = NULL;
	*found = false;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = read_row(st);
		*found = true;
		if (with_raw)
			(*out)->raw = g_bytes_new(sqlite3_column_blob(st, 20),
						  (gsize)sqlite3_column_bytes(st, 20));
	} else if (rc != SQLITE_DONE) {
		s = pw_db_status(db, rc);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_outbox_list(struct pw_db *db, const char *state,
				 GPtrArray *out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT " ROW_COLUMNS " FROM outbox"
		" WHERE ?1 IS NULL OR state = ?1 ORDER BY id");

	bind_opt(st, 1, state);
	return pw_db_read_rows(db, st, read_any, out);
}

enum pw_status pw_db_outbox_due(struct pw_db *db, int64_t now, bool all,
				int limit, GArray *ids)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT id FROM outbox WHERE state = 'pending'"
		" AND (?2 OR next_attempt <= ?1) ORDER BY next_attempt, id LIMIT ?3");

	return pw_db_read_due(db, st, now, all, limit, ids);
}

enum pw_status pw_db_outbox_claim(struct pw_db *db, int64_t id, int64_t now,
				  bool *claimed)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE outbox SET state = 'sending', attempts = attempts + 1,"
		" last_attempt = ?2 WHERE id = ?1 AND state = 'pending'");
	enum pw_status s;
	int n = 0;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	s = pw_db_write(db, st, &n);
	*claimed = !s && n == 1;
	return s;
}

enum pw_status pw_db_outbox_mark_sent(struct pw_db *db, int64_t id,
				      int64_t now, const char *transport,
				      int code, const char *note)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE outbox SET state = 'sent', sent_at = ?2, transport = ?3,"
		" smtp_code = ?4, last_error = ?5 WHERE id = ?1");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	sqlite3_bind_text(st, 3, transport, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, code);
	bind_opt(st, 5, note);
	return pw_db_write(db, st, NULL);
}

/* Back to pending, the attempt counted or (claimed rows only) not. */
static enum pw_status to_pending(struct pw_db *db, int64_t id, int64_t next,
				 int code, const char *error, bool counted)
{
	sqlite3_stmt *st = counted ? pw_db_stmt(db,
		"UPDATE outbox SET state = 'pending', next_attempt = ?2,"
		" smtp_code = ?3, last_error = ?4 WHERE id = ?1") :
		pw_db_stmt(db,
		"UPDATE outbox SET state = 'pending', attempts = max(attempts - 1, 0),"
		" next_attempt = ?2, smtp_code = ?3, last_error = ?4"
		" WHERE id = ?1 AND state = 'sending'");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, next);
	sqlite3_bind_int(st, 3, code);
	bind_opt(st, 4, error);
	return pw_db_write(db, st, NULL);
}

enum pw_status pw_db_outbox_mark_retry(struct pw_db *db, int64_t id,
				       int64_t next, int code,
				       const char *error)
{
	return to_pending(db, id, next, code, error, true);
}

enum pw_status pw_db_outbox_unclaim(struct pw_db *db, int64_t id,
				    int64_t next, int code, const char *error)
{
	return to_pending(db, id, next, code, error, false);
}

enum pw_status pw_db_outbox_mark_failed(struct pw_db *db, int64_t id, int code,
					const char *error)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE outbox SET state = 'failed', smtp_code = ?2,"
		" last_error = ?3 WHERE id = ?1");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, code);
	bind_opt(st, 3, error);
	return pw_db_write(db, st, NULL);
}

enum pw_status pw_db_outbox_release(struct pw_db *db, int64_t id, int64_t now,
				    const char **why)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE outbox SET state = 'pending', next_attempt = ?2"
		" WHERE id = ?1 AND state IN ('pending','failed','suppressed')");
	struct pw_outbox_row *r = NULL;
	enum pw_status s;
	int n = 0;
	bool found;

	*why = NULL;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	s = pw_db_write(db, st, &n);
	if (s || n == 1)
		return s;
	s = pw_db_outbox_get(db, id, false, &r, &found);
	if (!s && !found)
		*why = "no such reply";
	else if (!s && !strcmp(r->state, "sent"))
		*why = "already sent";
	else if (!s)
		*why = "being sent right now";
	pw_outbox_row_free(r);
	return s ? s : PW_ERR_INPUT;
}

enum pw_status pw_db_outbox_recover(struct pw_db *db, int64_t now, int *n)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE outbox SET state = 'pending', next_attempt = ?1,"
		" last_error = 'interrupted during a send; sent again with the"
		" same Message-ID' WHERE state = 'sending'");

	sqlite3_bind_int64(st, 1, now);
	return pw_db_write(db, st, n);
}

enum pw_status pw_db_outbox_held(struct pw_db *db, const char *reason,
				 int64_t before, GArray **out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT id, message FROM outbox WHERE state = 'suppressed'"
		" AND reason = ?1 AND created_at < ?2 AND message IS NOT NULL"
		" ORDER BY id");
	enum pw_status s;
	bool row;

	*out = g_array_new(FALSE, FALSE, sizeof(struct pw_outbox_held));
	pw_db_bind_text(st, 1, reason);
	sqlite3_bind_int64(st, 2, before);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct pw_outbox_held h = { sqlite3_column_int64(st, 0),
					    sqlite3_column_int64(st, 1) };

		g_array_append_val(*out, h);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_outbox_set_reason(struct pw_db *db, int64_t id,
				       const char *reason)
{
	sqlite3_stmt *st = pw_db_stmt(db, "UPDATE outbox SET reason = ?2"
				      " WHERE id = ?1 AND state = 'suppressed'");

	sqlite3_bind_int64(st, 1, id);
	pw_db_bind_text(st, 2, reason);
	return pw_db_done(db, st);
}

enum pw_status pw_db_outbox_supersede(struct pw_db *db, int64_t message_id,
				      const char *reason, int *n)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE outbox SET state = 'suppressed', reason = ?2"
		" WHERE message = ?1 AND state = 'pending'");

	sqlite3_bind_int64(st, 1, message_id);
	sqlite3_bind_text(st, 2, reason, -1, SQLITE_TRANSIENT);
	return pw_db_write(db, st, n);
}

enum pw_status pw_db_outbox_decided_since(struct pw_db *db, int64_t id,
					  bool *decided)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT EXISTS (SELECT 1 FROM outbox o"
		" JOIN patch p ON p.message = o.message"
		" JOIN finding f ON f.patch = p.id"
		" JOIN finding_decision fd ON fd.finding = f.id"
		" JOIN decision d ON d.id = fd.decision"
		" WHERE o.id = ?1 AND d.at >= o.created_at)");
	enum pw_status s;
	int64_t n;

	sqlite3_bind_int64(st, 1, id);
	s = pw_db_one_int64(db, st, &n);
	*decided = n != 0;
	return s;
}

enum pw_status pw_db_outbox_rewrite(struct pw_db *db, int64_t id,
				    const void *raw, size_t raw_len,
				    const char *rcpt_to, const char *recipients,
				    const char *subject, int64_t now)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE outbox SET raw = ?2, rcpt_to = ?3, recipients = ?4,"
		" subject = ?5, created_at = ?6"
		" WHERE id = ?1 AND state = 'sending'");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_blob64(st, 2, raw, raw_len, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, rcpt_to, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, recipients, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, subject, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, now);
	return pw_db_write(db, st, NULL);
}

enum pw_status pw_db_outbox_drop(struct pw_db *db, int64_t id,
				 const char *reason)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE outbox SET state = 'suppressed', reason = ?2"
		" WHERE id = ?1 AND state = 'sending'");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, reason, -1, SQLITE_TRANSIENT);
	return pw_db_write(db, st, NULL);
}

/* ---- what a reply answers ---- */

void pw_outbox_msg_free(struct pw_outbox_msg *m)
{
	if (!m)
		return;
	pw_mail_free(m->mail);
	g_strfreev(m->lists);
	g_free(m);
}

/* Splits a stored list on any of seps, dropping empty items. */
static char **split(const unsigned char *text, const char *seps)
{
	GPtrArray *v = g_ptr_array_new();
	char **parts;
	size_t i;

	if (text) {
		parts = g_strsplit_set((const char *)text, seps, -1);
		for (i = 0; parts[i]; i++) {
			if (*parts[i])
				g_ptr_array_add(v, parts[i]);
			else
				g_free(parts[i]);
		}
		g_free(parts);
	}
	g_ptr_array_add(v, NULL);
	return (char **)g_ptr_array_free(v, FALSE);
}

/* The kind stored as text (pw_mail_kind_str), PW_MAIL_OTHER if unknown. */
static enum pw_mail_kind kind_of(const unsigned char *text)
{
	static const enum pw_mail_kind kinds[] = {
		PW_MAIL_PATCH, PW_MAIL_COVER, PW_MAIL_COMMENT, PW_MAIL_PULL,
	};
	size_t i;

	for (i = 0; text && i < G_N_ELEMENTS(kinds); i++)
		if (!strcmp((const char *)text, pw_mail_kind_str(kinds[i])))
			return kinds[i];
	return PW_MAIL_OTHER;
}

/* A text column as a new string, "" when NULL. */
static char *col_str(sqlite3_stmt *st, int i)
{
	char *s = pw_db_col_dup(st, i);

	return s ? s : g_strdup("");
}

/* The header fields of the message row st stands on. */
static struct pw_mail *read_mail(sqlite3_stmt *st)
{
	struct pw_mail *m = g_new0(struct pw_mail, 1);

	m->msgid = col_str(st, 0);
	m->msgid_derived = sqlite3_column_int(st, 1) != 0;
	m->kind = kind_of(sqlite3_column_text(st, 2));
	m->from_name = col_str(st, 3);
	m->from_addr = col_str(st, 4);
	m->subject = col_str(st, 5);
	m->subject_clean = col_str(st, 6);
	m->date = sqlite3_column_int64(st, 7);
	m->in_reply_to = pw_db_col_dup(st, 8);
	m->references = split(sqlite3_column_text(st, 9), " \t\r\n");
	m->list_id = pw_db_col_dup(st, 10);
	m->auto_submitted = pw_db_col_dup(st, 11);
	m->recipients = split(sqlite3_column_text(st, 12), "\r\n");
	m->nrecipients = sqlite3_column_int(st, 13);
	m->tags.version = sqlite3_column_int(st, 14);
	m->tags.number = sqlite3_column_int(st, 15);
	m->tags.total = sqlite3_column_int(st, 16);
	m->tags.has_counter = sqlite3_column_int(st, 17) != 0;
	m->tags.rfc = sqlite3_column_int(st, 18) != 0;
	m->tags.prefixes = col_str(st, 19);
	return m;
}

enum pw_status pw_db_outbox_message(struct pw_db *db, int64_t id,
				    struct pw_outbox_msg **out, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT msgid, msgid_derived, kind, from_name, from_addr, subject,"
		" subject_clean, date, in_reply_to, refs, list_id, auto_submitted,"
		" recipients, nrecipients, version, number, total, has_counter, rfc,"
		" prefixes, backfill, s.name, s.addr, automated FROM message"
		" LEFT JOIN message_sender s ON s.message = message.id"
		" WHERE message.id = ?1");
	struct pw_outbox_msg *m;
	GPtrArray *lists;
	int rc;

	*out = NULL;
	*found = false;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? PW_OK : pw_db_status(db, rc);
	}
	m = g_new0(struct pw_outbox_msg, 1);
	m->id = id;
	m->mail = read_mail(st);
	m->backfill = sqlite3_column_int(st, 20) != 0;
	/* NULL (no row) when the author posted it: the sender is the author. */
	m->mail->sender_name = pw_db_col_dup(st, 21);
	m->mail->sender_addr = pw_db_col_dup(st, 22);
	m->mail->automated = pw_db_col_dup(st, 23);
	sqlite3_reset(st);

	st = pw_db_stmt(db, "SELECT l.name FROM message_list ml"
		" JOIN list l ON l.id = ml.list WHERE ml.message = ?1 ORDER BY l.name");
	sqlite3_bind_int64(st, 1, id);
	lists = g_ptr_array_new();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		g_ptr_array_add(lists, pw_db_col_dup(st, 0));
	sqlite3_reset(st);
	g_ptr_array_add(lists, NULL);
	m->lists = (char **)g_ptr_array_free(lists, FALSE);
	if (rc != SQLITE_DONE) {
		pw_outbox_msg_free(m);
		return pw_db_status(db, rc);
	}
	*out = m;
	*found = true;
	return PW_OK;
}

enum pw_status pw_db_outbox_findings(struct pw_db *db, int64_t message_id,
				     GPtrArray **out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT f.rule, f.severity, f.file, f.line, f.col, f.message, f.fix,"
		" l.text FROM finding f JOIN patch p ON p.id = f.patch"
		" LEFT JOIN finding_line l ON l.finding = f.id"
		/* A finding a maintainer marked wrong or ignored is not
		 * replied about (db/decision.h). */
		" WHERE p.message = ?1 AND " PW_FINDING_OPEN("f")
		" ORDER BY f.id");
	GPtrArray *v = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_finding_free);
	int rc;

	sqlite3_bind_int64(st, 1, message_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct pw_finding *f = g_new0(struct pw_finding, 1);
		const unsigned char *rule = sqlite3_column_text(st, 0);

		f->rule = g_intern_string(rule ? (const char *)rule : "");
		f->severity = (enum pw_severity)sqlite3_column_int(st, 1);
		f->file = pw_db_col_dup(st, 2);
		f->line = sqlite3_column_int(st, 3);
		f->column = sqlite3_column_int(st, 4);
		f->message = pw_db_col_dup(st, 5);
		f->fix = pw_db_col_dup(st, 6);
		f->added_line = pw_db_col_dup(st, 7);
		g_ptr_array_add(v, f);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		g_ptr_array_unref(v);
		*out = NULL;
		return pw_db_status(db, rc);
	}
	*out = v;
	return PW_OK;
}
