/*
 * patchwarden: a list's weekly digest, read from the store, and the
 * digests sent (see db/digest.h).
 */
#include <string.h>

#include "db/db-private.h"
#include "db/decision.h"
#include "db/digest.h"

/* The messages of a list read in the period, backfill apart: the
 * common part of every count below (?1 list, ?2 since, ?3 until). */
#define PERIOD \
	" FROM message m" \
	" JOIN message_list ml ON ml.message = m.id" \
	" JOIN list l ON l.id = ml.list AND l.name = ?1" \
	" WHERE m.received_at > ?2 AND m.received_at <= ?3 AND m.backfill = 0"

void pw_digest_last_release(struct pw_digest_last *l)
{
	g_free(l->msgid);
	g_free(l->refs);
	memset(l, 0, sizeof(*l));
}

enum pw_status pw_db_digest_last(struct pw_db *db, const char *list,
				 struct pw_digest_last *out, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT until FROM digest WHERE list = ?1"
		" ORDER BY until DESC LIMIT 1");
	enum pw_status s;
	bool row;

	memset(out, 0, sizeof(*out));
	pw_db_bind_text(st, 1, list);
	s = pw_db_read(db, st, found);
	if (*found)
		out->until = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (s || !*found)
		return s;
	/* The parent of the next digest is the last one that went or is
	 * going out: a held (or failed) digest was never read, and a
	 * reader's thread must not hang under it. */
	st = pw_db_stmt(db, "SELECT d.msgid, d.refs FROM digest d"
			" JOIN outbox o ON o.id = d.outbox"
			" WHERE d.list = ?1 AND d.msgid IS NOT NULL"
			" AND o.state IN ('pending', 'sending', 'sent')"
			" ORDER BY d.until DESC LIMIT 1");
	pw_db_bind_text(st, 1, list);
	s = pw_db_read(db, st, &row);
	if (row) {
		out->msgid = pw_db_col_dup(st, 0);
		out->refs = pw_db_col_dup(st, 1);
	}
	sqlite3_reset(st);
	return s;
}

static void count_free(gpointer p)
{
	struct pw_digest_count *c = p;

	g_free(c->name);
	g_free(c->label);
	g_free(c);
}

static void flood_free(gpointer p)
{
	struct pw_digest_flood *f = p;

	g_free(f->sender);
	g_free(f->subject);
	g_free(f->first_msgid);
	g_free(f);
}

void pw_digest_facts_release(struct pw_digest_facts *f)
{
	if (f->rules)
		g_ptr_array_free(f->rules, TRUE);
	if (f->floods)
		g_ptr_array_free(f->floods, TRUE);
	if (f->campaigns)
		g_ptr_array_free(f->campaigns, TRUE);
	if (f->senders)
		g_ptr_array_free(f->senders, TRUE);
	memset(f, 0, sizeof(*f));
}

static void bind_period(sqlite3_stmt *st, const char *list, int64_t since,
			int64_t until)
{
	pw_db_bind_text(st, 1, list);
	sqlite3_bind_int64(st, 2, since);
	sqlite3_bind_int64(st, 3, until);
}

/* Reads rows of (name, label, n, m) into v. */
static enum pw_status counts(struct pw_db *db, sqlite3_stmt *st, GPtrArray *v)
{
	enum pw_status s;
	bool row;

	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct pw_digest_count *c = g_new0(struct pw_digest_count, 1);

		c->name = pw_db_col_dup(st, 0);
		c->label = pw_db_col_dup(st, 1);
		c->n = sqlite3_column_int64(st, 2);
		c->m = sqlite3_column_int64(st, 3);
		g_ptr_array_add(v, c);
	}
	sqlite3_reset(st);
	return s;
}

static enum pw_status totals(struct pw_db *db, const char *list, int64_t since,
			     int64_t until, struct pw_digest_facts *f)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT count(*), count(*) FILTER (WHERE EXISTS (SELECT 1"
		"  FROM patch p JOIN finding fi ON fi.patch = p.id"
		"  WHERE p.message = m.id AND " PW_FINDING_OPEN("fi") "))"
		PERIOD " AND m.kind = 'patch'");
	enum pw_status s;
	bool row;

	bind_period(st, list, since, until);
	s = pw_db_read(db, st, &row);
	if (row) {
		f->patches = sqlite3_column_int64(st, 0);
		f->patches_found = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (s)
		return s;
	st = pw_db_stmt(db, "SELECT count(*)" PERIOD " AND m.automated IS NOT NULL");
	bind_period(st, list, since, until);
	s = pw_db_read(db, st, &row);
	if (row)
		f->automated = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (s)
		return s;
	st = pw_db_stmt(db, "SELECT fi.severity, count(*) FROM finding fi"
			" JOIN patch p ON p.id = fi.patch"
			" JOIN message m ON m.id = p.message"
			" JOIN message_list ml ON ml.message = m.id"
			" JOIN list l ON l.id = ml.list AND l.name = ?1"
			" WHERE m.received_at > ?2 AND m.received_at <= ?3"
			" AND m.backfill = 0 AND " PW_FINDING_OPEN("fi")
			" GROUP BY fi.severity");
	bind_period(st, list, since, until);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		int sev = sqlite3_column_int(st, 0);

		if (sev >= 0 && sev < (int)G_N_ELEMENTS(f->by_severity))
			f->by_severity[sev] = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (s)
		return s;
	st = pw_db_stmt(db, "SELECT count(*), count(*) FILTER (WHERE"
			" o.state = 'suppressed') FROM outbox o"
			" JOIN message m ON m.id = o.message"
			" JOIN message_list ml ON ml.message = m.id"
			" JOIN list l ON l.id = ml.list AND l.name = ?1"
			" WHERE m.received_at > ?2 AND m.received_at <= ?3"
			" AND m.backfill = 0");
	bind_period(st, list, since, until);
	s = pw_db_read(db, st, &row);
	if (row) {
		f->replies = sqlite3_column_int64(st, 0);
		f->held = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	return s;
}

/* The group g has a member on list ?1. */
#define IN_LIST \
	" AND EXISTS (SELECT 1 FROM flood_member f" \
	"  JOIN message_list ml ON ml.message = f.message" \
	"  JOIN list l ON l.id = ml.list AND l.name = ?1" \
	"  WHERE f.grp = g.id)"

/*
 * The floods detected in the period, or with campaign the campaigns
 * going on in it (begun by its end, a patch after its start), that
 * reached list, into v.
 */
static enum pw_status floods(struct pw_db *db, const char *list, int64_t since,
			     int64_t until, bool campaign, GPtrArray *v)
{
	sqlite3_stmt *st = campaign ? pw_db_stmt(db,
		"SELECT g.id, g.sender, fm.subject_clean, fm.msgid, g.size,"
		" c.campaign_at, g.first_seen, g.last_seen"
		" FROM flood_campaign c JOIN flood_group g ON g.id = c.grp"
		" LEFT JOIN message fm ON fm.id = g.founder"
		" WHERE c.campaign_at <= ?3 AND g.last_seen > ?2"
		" AND g.detected_at IS NULL" IN_LIST
		" ORDER BY c.campaign_at, g.id") : pw_db_stmt(db,
		"SELECT g.id, g.sender, g.subject, fm.msgid, g.size, g.detected_at,"
		" g.first_seen, g.last_seen"
		" FROM flood_group g LEFT JOIN message fm ON fm.id = g.founder"
		" WHERE g.detected_at > ?2 AND g.detected_at <= ?3" IN_LIST
		" ORDER BY g.detected_at, g.id");
	enum pw_status s;
	bool row;

	bind_period(st, list, since, until);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct pw_digest_flood *f = g_new0(struct pw_digest_flood, 1);

		f->id = sqlite3_column_int64(st, 0);
		f->sender = pw_db_col_dup(st, 1);
		f->subject = pw_db_col_dup(st, 2);
		f->first_msgid = pw_db_col_dup(st, 3);
		f->size = sqlite3_column_int(st, 4);
		f->detected_at = sqlite3_column_int64(st, 5);
		f->first = sqlite3_column_int64(st, 6);
		f->last = sqlite3_column_int64(st, 7);
		g_ptr_array_add(v, f);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_digest_facts(struct pw_db *db, const char *list,
				  int64_t since, int64_t until,
				  int max_rules, int max_senders,
				  struct pw_digest_facts *f)
{
	sqlite3_stmt *st;
	enum pw_status s;

	memset(f, 0, sizeof(*f));
	f->rules = g_ptr_array_new_with_free_func(count_free);
	f->floods = g_ptr_array_new_with_free_func(flood_free);
	f->campaigns = g_ptr_array_new_with_free_func(flood_free);
	f->senders = g_ptr_array_new_with_free_func(count_free);
	s = totals(db, list, since, until, f);
	if (s)
		return s;
	st = pw_db_stmt(db, "SELECT fi.rule, max(fi.severity), count(*),"
			" count(DISTINCT fi.patch) FROM finding fi"
			" JOIN patch p ON p.id = fi.patch"
			" JOIN message m ON m.id = p.message"
			" JOIN message_list ml ON ml.message = m.id"
			" JOIN list l ON l.id = ml.list AND l.name = ?1"
			" WHERE m.received_at > ?2 AND m.received_at <= ?3"
			" AND m.backfill = 0 AND " PW_FINDING_OPEN("fi")
			" GROUP BY fi.rule"
			" ORDER BY max(fi.severity) DESC, count(*) DESC, fi.rule"
			" LIMIT ?4");
	bind_period(st, list, since, until);
	sqlite3_bind_int(st, 4, max_rules);
	s = counts(db, st, f->rules);
	if (s)
		return s;
	s = floods(db, list, since, until, false, f->floods);
	if (!s)
		s = floods(db, list, since, until, true, f->campaigns);
	if (s)
		return s;
	/* People, not machines: a bot's hundred notices is no top sender. */
	st = pw_db_stmt(db, "SELECT m.from_addr, max(m.from_name), count(*),"
			" count(*) FILTER (WHERE EXISTS (SELECT 1 FROM patch p"
			"  JOIN finding fi ON fi.patch = p.id WHERE p.message = m.id"
			"  AND " PW_FINDING_OPEN("fi") "))"
			PERIOD " AND m.kind = 'patch' AND m.automated IS NULL"
			" AND m.from_addr <> '' GROUP BY m.from_addr"
			" ORDER BY count(*) DESC, m.from_addr LIMIT ?4");
	bind_period(st, list, since, until);
	sqlite3_bind_int(st, 4, max_senders);
	return counts(db, st, f->senders);
}

enum pw_status pw_db_digest_lists(struct pw_db *db, char ***out)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT name FROM list ORDER BY name");
	GPtrArray *v = g_ptr_array_new_with_free_func(g_free);
	enum pw_status s;
	bool row;

	*out = NULL;
	while (!(s = pw_db_read(db, st, &row)) && row)
		g_ptr_array_add(v, pw_db_col_dup(st, 0));
	sqlite3_reset(st);
	if (s) {
		g_ptr_array_free(v, TRUE);
		return s;
	}
	g_ptr_array_add(v, NULL);
	*out = (char **)g_ptr_array_free(v, FALSE);
	return PW_OK;
}

enum pw_status pw_db_digest_add(struct pw_db *db, const char *list,
				int64_t since, int64_t until,
				const char *msgid, const char *refs,
				int64_t outbox, int64_t now, bool *added)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO digest (list, since, until, msgid, refs, outbox,"
		" created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
		" ON CONFLICT (list, until) DO NOTHING");
	enum pw_status s;

	bind_period(st, list, since, until);
	pw_db_bind_text(st, 4, msgid);
	pw_db_bind_text(st, 5, refs);
	if (outbox)
		sqlite3_bind_int64(st, 6, outbox);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_int64(st, 7, now);
	s = pw_db_done(db, st);
	*added = !s && sqlite3_changes(sqlite3_db_handle(st)) > 0;
	return s;
}
