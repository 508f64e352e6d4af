/*
 * patchwarden: maintainers' decisions (see db/decision.h).
 */
#include <string.h>
#include <time.h>

#include "db/db-private.h"
#include "db/decision.h"

static const char *const kind_names[] = {
	[PW_DECISION_WRONG] = "wrong",
	[PW_DECISION_IGNORE] = "ignore",
	[PW_DECISION_RECHECK] = "recheck",
	[PW_DECISION_STOP] = "stop",
};

const char *pw_decision_kind_name(enum pw_decision_kind k)
{
	return (size_t)k < G_N_ELEMENTS(kind_names) ? kind_names[k] : "?";
}

bool pw_decision_kind_parse(const char *s, enum pw_decision_kind *k)
{
	size_t i;

	for (i = 0; s && i < G_N_ELEMENTS(kind_names); i++)
		if (!strcmp(s, kind_names[i])) {
			*k = (enum pw_decision_kind)i;
			return true;
		}
	return false;
}

void pw_decision_free(struct pw_decision *d)
{
	if (!d)
		return;
	g_free(d->msgid);
	g_free(d->rule);
	g_free(d->file);
	g_free(d->path);
	g_free(d->list);
	g_free(d->addr);
	g_free(d->by);
	g_free(d->via);
	g_free(d->via_msgid);
	g_free(d->reason);
	g_free(d->undone_by);
	g_free(d);
}

void pw_decided_finding_free(struct pw_decided_finding *f)
{
	if (!f)
		return;
	g_free(f->by);
	g_free(f->reason);
	g_free(f);
}

void pw_finding_ref_release(struct pw_finding_ref *r)
{
	g_free(r->msgid);
	g_free(r->rule);
	g_free(r->file);
	memset(r, 0, sizeof(*r));
}

/* Marks the stored findings live decision id covers; counts them. */
static enum pw_status cover(struct pw_db *db, int64_t id, int64_t *n)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT OR IGNORE INTO finding_decision (finding, decision)"
		" SELECT f.id, d.id FROM decision d, finding f"
		" JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message"
		" WHERE d.id = ?1 AND d.undone_at IS NULL"
		" AND (d.kind = 'ignore' OR m.msgid = d.msgid)"
		" AND f.rule = coalesce(d.rule, f.rule)"
		" AND " PW_DECISION_COVERS("f", "m"));
	enum pw_status s;

	sqlite3_bind_int64(st, 1, id);
	s = pw_db_done(db, st);
	if (!s && n)
		*n = sqlite3_changes(db->h);
	return s;
}

enum pw_status pw_db_decision_add(struct pw_db *db,
				  const struct pw_decision *d, int64_t *id,
				  int64_t *covered)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO decision (kind, msgid, finding, rule, file, line,"
		" path, list, addr, by_addr, at, via, via_msgid, reason)"
		" VALUES (?1, ?2, nullif(?3, 0), ?4, ?5, ?6, ?7, ?8, lower(?9), ?10, ?11,"
		" ?12, ?13, ?14)");
	enum pw_status s;

	if (covered)
		*covered = 0;
	pw_db_bind_text(st, 1, pw_decision_kind_name(d->kind));
	pw_db_bind_text(st, 2, d->msgid);
	sqlite3_bind_int64(st, 3, d->finding);
	pw_db_bind_text(st, 4, d->rule);
	pw_db_bind_text(st, 5, d->file);
	sqlite3_bind_int(st, 6, d->line);
	pw_db_bind_text(st, 7, d->path);
	pw_db_bind_text(st, 8, d->list);
	pw_db_bind_text(st, 9, d->addr);
	pw_db_bind_text(st, 10, d->by ? d->by : "");
	sqlite3_bind_int64(st, 11, d->at ? d->at : (int64_t)time(NULL));
	pw_db_bind_text(st, 12, d->via ? d->via : "cli");
	pw_db_bind_text(st, 13, d->via_msgid);
	pw_db_bind_text(st, 14, d->reason);
	s = pw_db_done(db, st);
	if (s)
		return s;
	*id = sqlite3_last_insert_rowid(db->h);
	if (d->kind == PW_DECISION_WRONG || d->kind == PW_DECISION_IGNORE)
		s = cover(db, *id, covered);
	return s;
}

enum pw_status pw_db_decision_undo(struct pw_db *db, int64_t id,
				   const char *by, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE decision SET undone_at = ?2, undone_by = ?3"
		" WHERE id = ?1 AND undone_at IS NULL");
	enum pw_status s;

	*found = false;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
	pw_db_bind_text(st, 3, by ? by : "");
	s = pw_db_done(db, st);
	if (s || sqlite3_changes(db->h) == 0)
		return s;
	*found = true;
	st = pw_db_stmt(db, "DELETE FROM finding_decision WHERE decision = ?1");
	sqlite3_bind_int64(st, 1, id);
	return pw_db_done(db, st);
}

#define DECISION_COLUMNS \
	"d.id, d.kind, d.msgid, coalesce(d.finding, 0), d.rule, d.file," \
	" d.line, d.path, d.list, d.addr, d.by_addr, d.at, d.via," \
	" d.via_msgid, d.reason, coalesce(d.undone_at, 0), d.undone_by," \
	" (SELECT count(*) FROM finding_decision fd WHERE fd.decision = d.id)"

static struct pw_decision *decision_row(sqlite3_stmt *st)
{
	struct pw_decision *d = g_new0(struct pw_decision, 1);
	const unsigned char *kind = sqlite3_column_text(st, 1);

	d->id = sqlite3_column_int64(st, 0);
	if (!pw_decision_kind_parse((const char *)kind, &d->kind))
		d->kind = PW_DECISION_WRONG;	/* the CHECK allows no other */
	d->msgid = pw_db_col_dup(st, 2);
	d->finding = sqlite3_column_int64(st, 3);
	d->rule = pw_db_col_dup(st, 4);
	d->file = pw_db_col_dup(st, 5);
	d->line = sqlite3_column_int(st, 6);
	d->path = pw_db_col_dup(st, 7);
	d->list = pw_db_col_dup(st, 8);
	d->addr = pw_db_col_dup(st, 9);
	d->by = pw_db_col_dup(st, 10);
	d->at = sqlite3_column_int64(st, 11);
	d->via = pw_db_col_dup(st, 12);
	d->via_msgid = pw_db_col_dup(st, 13);
	d->reason = pw_db_col_dup(st, 14);
	d->undone_at = sqlite3_column_int64(st, 15);
	d->undone_by = pw_db_col_dup(st, 16);
	d->covers = sqlite3_column_int64(st, 17);
	return d;
}

enum pw_status pw_db_decision_list(struct pw_db *db, const char *list,
				   bool all, GPtrArray **out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT " DECISION_COLUMNS " FROM decision d"
		" WHERE (?2 OR d.undone_at IS NULL)"
		" AND (?1 IS NULL OR d.list = ?1"
		/* A decision for every list is about each; one about a
		 * message, about the lists the message was seen on. */
		"  OR (d.list IS NULL AND (d.msgid IS NULL"
		"  OR EXISTS (SELECT 1 FROM message m"
		"   JOIN message_list ml ON ml.message = m.id"
		"   JOIN list l ON l.id = ml.list"
		"   WHERE m.msgid = d.msgid AND l.name = ?1))))"
		" ORDER BY d.id DESC");
	GPtrArray *v = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_decision_free);
	enum pw_status s;
	bool row;

	pw_db_bind_text(st, 1, list);
	sqlite3_bind_int(st, 2, all);
	while (!(s = pw_db_read(db, st, &row)) && row)
		g_ptr_array_add(v, decision_row(st));
	sqlite3_reset(st);
	*out = v;
	return s;
}

enum pw_status pw_db_decision_get(struct pw_db *db, int64_t id,
				  struct pw_decision **out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT " DECISION_COLUMNS " FROM decision d WHERE d.id = ?1");
	enum pw_status s;
	bool row;

	*out = NULL;
	sqlite3_bind_int64(st, 1, id);
	s = pw_db_read(db, st, &row);
	if (!s && row)
		*out = decision_row(st);
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_decision_findings(struct pw_db *db, int64_t message_id,
				       GPtrArray **out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT fd.finding, d.id, d.kind, d.by_addr, d.at, d.reason"
		" FROM patch p JOIN finding f ON f.patch = p.id"
		" JOIN finding_decision fd ON fd.finding = f.id"
		" JOIN decision d ON d.id = fd.decision"
		" WHERE p.message = ?1 ORDER BY fd.finding, d.id");
	GPtrArray *v = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_decided_finding_free);
	enum pw_status s;
	int64_t last = 0;
	bool row;

	sqlite3_bind_int64(st, 1, message_id);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct pw_decided_finding *f;
		enum pw_decision_kind k;

		if (sqlite3_column_int64(st, 0) == last)
			continue;	/* the oldest decision names it */
		f = g_new0(struct pw_decided_finding, 1);
		f->finding = last = sqlite3_column_int64(st, 0);
		f->decision = sqlite3_column_int64(st, 1);
		f->kind = pw_decision_kind_parse(
			(const char *)sqlite3_column_text(st, 2), &k) ? k :
			PW_DECISION_WRONG;
		f->by = pw_db_col_dup(st, 3);
		f->at = sqlite3_column_int64(st, 4);
		f->reason = pw_db_col_dup(st, 5);
		g_ptr_array_add(v, f);
	}
	sqlite3_reset(st);
	*out = v;
	return s;
}

enum pw_status pw_db_decision_finding(struct pw_db *db, int64_t id,
				      struct pw_finding_ref *r, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT m.id, m.msgid, f.rule, f.file, f.line FROM finding f"
		" JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message"
		" WHERE f.id = ?1");
	enum pw_status s;

	memset(r, 0, sizeof(*r));
	sqlite3_bind_int64(st, 1, id);
	s = pw_db_read(db, st, found);
	if (!s && *found) {
		r->message = sqlite3_column_int64(st, 0);
		r->msgid = pw_db_col_dup(st, 1);
		r->rule = pw_db_col_dup(st, 2);
		r->file = pw_db_col_dup(st, 3);
		r->line = sqlite3_column_int(st, 4);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_decision_stopped(struct pw_db *db, int64_t message_id,
				      const char *addr, int64_t *id)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT d.id FROM decision d WHERE d.kind = 'stop'"
		" AND d.undone_at IS NULL AND d.addr = lower(?2)"
		" AND (d.list IS NULL OR EXISTS (SELECT 1 FROM message_list ml"
		"  JOIN list l ON l.id = ml.list"
		"  WHERE ml.message = ?1 AND l.name = d.list))"
		" ORDER BY d.id LIMIT 1");

	sqlite3_bind_int64(st, 1, message_id);
	pw_db_bind_text(st, 2, addr ? addr : "");
	return pw_db_one_int64(db, st, id);
}

enum pw_status pw_db_decision_reply_of(struct pw_db *db, const char *msgid,
				       int64_t *message, char **kind)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT coalesce(message, 0), kind FROM outbox WHERE msgid = ?1");
	enum pw_status s;
	bool row;

	*message = 0;
	if (kind)
		*kind = NULL;
	pw_db_bind_text(st, 1, msgid);
	s = pw_db_read(db, st, &row);
	if (!s && row) {
		*message = sqlite3_column_int64(st, 0);
		if (kind)
			*kind = pw_db_col_dup(st, 1);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_decision_from_mail(struct pw_db *db, const char *msgid,
					bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT 1 FROM decision WHERE via_msgid = ?1");
	enum pw_status s;

	pw_db_bind_text(st, 1, msgid);
	s = pw_db_read(db, st, found);
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_decision_counts(struct pw_db *db, int64_t *wrong,
				     int64_t *ignored)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT count(DISTINCT fd.finding) FILTER (WHERE d.kind = 'wrong'),"
		" count(DISTINCT fd.finding) FILTER (WHERE d.kind = 'ignore')"
		" FROM finding_decision fd JOIN decision d ON d.id = fd.decision");
	enum pw_status s;
	bool row;

	*wrong = *ignored = 0;
	s = pw_db_read(db, st, &row);
	if (!s && row) {
		*wrong = sqlite3_column_int64(st, 0);
		*ignored = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_decision_patch_of(struct pw_db *db, int64_t message_id,
				       int64_t *patch_id)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT id FROM patch WHERE message = ?1 AND pull_url IS NULL");

	sqlite3_bind_int64(st, 1, message_id);
	return pw_db_one_int64(db, st, patch_id);
}

enum pw_status pw_db_decision_series_messages(struct pw_db *db,
					      int64_t message_id, GArray *ids)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT p2.message FROM series s JOIN patch p2 ON p2.series = s.id"
		" WHERE s.id = coalesce((SELECT series FROM patch WHERE message = ?1),"
		"  (SELECT id FROM series WHERE cover = ?1))"
		" ORDER BY p2.number, p2.id");
	enum pw_status s;
	guint was = ids->len;
	bool row;

	sqlite3_bind_int64(st, 1, message_id);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		int64_t id = sqlite3_column_int64(st, 0);

		g_array_append_val(ids, id);
	}
	sqlite3_reset(st);
	if (!s && ids->len == was)
		g_array_append_val(ids, message_id);
	return s;
}

enum pw_status pw_db_decision_msgid(struct pw_db *db, int64_t id,
				    char **msgid)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT msgid FROM message WHERE id = ?1");

	sqlite3_bind_int64(st, 1, id);
	return pw_db_one_text(db, st, msgid);
}

enum pw_status pw_db_decision_moot_replies(struct pw_db *db, int min_severity,
					   GArray *ids)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT DISTINCT o.message FROM outbox o"
		" WHERE o.state = 'pending' AND o.kind = 'patch'"
		" AND o.message IS NOT NULL"
		" AND NOT EXISTS (SELECT 1 FROM patch p"
		"  JOIN finding f ON f.patch = p.id"
		"  WHERE p.message = o.message AND f.severity >= ?1"
		"  AND " PW_FINDING_OPEN("f") ")");
	enum pw_status s;
	bool row;

	sqlite3_bind_int(st, 1, min_severity);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		int64_t id = sqlite3_column_int64(st, 0);

		g_array_append_val(ids, id);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_decision_command_seen(struct pw_db *db, const char *msgid)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT OR IGNORE INTO mail_command (msgid, at) VALUES (?1, ?2)");

	pw_db_bind_text(st, 1, msgid ? msgid : "");
	sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
	return pw_db_done(db, st);
}

enum pw_status pw_db_decision_command_known(struct pw_db *db,
					    const char *msgid, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT 1 FROM mail_command WHERE msgid = ?1");
	enum pw_status s;

	pw_db_bind_text(st, 1, msgid ? msgid : "");
	s = pw_db_read(db, st, found);
	sqlite3_reset(st);
	return s;
}
