/*
 * patchwarden: what an operator's monitor reads (see db/ops.h).
 */
#include <string.h>

#include "db/db-private.h"
#include "db/ops.h"

static void count_free(gpointer p)
{
	struct pw_db_ops_count *c = p;

	g_free(c->a);
	g_free(c->b);
	g_free(c);
}

static void polls_free(gpointer p)
{
	struct pw_db_ops_polls *c = p;

	g_free(c->name);
	g_free(c);
}

/*
 * Appends to out a row of st per result row: the label columns (one
 * or two) first, the count last.  False when the read failed (the
 * transaction says why).
 */
static bool counts(struct pw_db *db, sqlite3_stmt *st, int labels,
		   GPtrArray *out)
{
	bool row;

	while (!pw_db_read(db, st, &row) && row) {
		struct pw_db_ops_count *c = g_new0(struct pw_db_ops_count, 1);

		c->a = g_strdup((const char *)sqlite3_column_text(st, 0));
		if (labels > 1)
			c->b = g_strdup((const char *)sqlite3_column_text(st, 1));
		c->n = sqlite3_column_int64(st, labels);
		g_ptr_array_add(out, c);
	}
	sqlite3_reset(st);
	return !db->failed;
}

/*
 * The Patchwork check queue by instance and state.  The table comes
 * with the Patchwork checks' migration (db/pwcheck.c); a store without
 * it has no queue, and nothing is counted.
 */
static bool pwcheck_states(struct pw_db *db, GPtrArray *out)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT 1 FROM sqlite_schema"
				      " WHERE type = 'table' AND name = 'pwcheck'");
	bool has = pw_db_row(db, st);

	sqlite3_reset(st);
	if (!has)
		return !db->failed;
	return counts(db, pw_db_stmt(db, "SELECT instance, state, count(*)"
				     " FROM pwcheck GROUP BY 1, 2 ORDER BY 1, 2"),
		      2, out);
}

static bool polls(struct pw_db *db, GPtrArray *out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT s.name, s.paused, coalesce(p.polls, 0),"
		" coalesce(p.failures, 0), coalesce(p.seconds, 0),"
		" coalesce(p.last_seconds, 0), coalesce(s.last_ok, 0), s.failures"
		" FROM subscription s LEFT JOIN poll_stat p ON p.subscription = s.id"
		" ORDER BY s.name");
	bool row;

	while (!pw_db_read(db, st, &row) && row) {
		struct pw_db_ops_polls *p = g_new0(struct pw_db_ops_polls, 1);

		p->name = pw_db_col_dup(st, 0);
		p->paused = sqlite3_column_int(st, 1);
		p->polls = sqlite3_column_int64(st, 2);
		p->failures = sqlite3_column_int64(st, 3);
		p->seconds = sqlite3_column_double(st, 4);
		p->last_seconds = sqlite3_column_double(st, 5);
		p->last_ok = sqlite3_column_int64(st, 6);
		p->failures_in_a_row = sqlite3_column_int(st, 7);
		g_ptr_array_add(out, p);
	}
	sqlite3_reset(st);
	return !db->failed;
}

enum pw_status pw_db_ops_metrics(struct pw_db *db, struct pw_db_ops_metrics *m)
{
	enum pw_status s;
	bool ok;

	m->messages = g_ptr_array_new_with_free_func(count_free);
	m->stored = g_ptr_array_new_with_free_func(count_free);
	m->findings = g_ptr_array_new_with_free_func(count_free);
	m->outbox = g_ptr_array_new_with_free_func(count_free);
	m->pwcheck = g_ptr_array_new_with_free_func(count_free);
	m->polls = g_ptr_array_new_with_free_func(polls_free);
	m->unreadable = g_ptr_array_new_with_free_func(count_free);
	m->attention = g_ptr_array_new_with_free_func(count_free);
	s = pw_db_begin(db);
	if (s)
		return s;
	/* From the totals per list and day (db/totals.c): a scrape reads
	 * a few thousand rows however large the store.  A message on
	 * several lists counts under each. */
	ok = counts(db, pw_db_stmt(db,
		"SELECT l.name, t.kind, sum(t.n) FROM total_message t"
		" JOIN list l ON l.id = t.list GROUP BY 1, 2 ORDER BY 1, 2"),
		2, m->messages) &&
	     counts(db, pw_db_stmt(db,
		"SELECT kind, sum(n) FROM total_message WHERE list = 0"
		" GROUP BY 1 ORDER BY 1"), 1, m->stored) &&
	     counts(db, pw_db_stmt(db,
		"SELECT rule, severity, sum(n) FROM total_finding WHERE list = 0"
		" GROUP BY 1, 2 HAVING sum(n) > 0 ORDER BY 1, 2"), 2, m->findings) &&
	     counts(db, pw_db_stmt(db,
		"SELECT state, count(*) FROM outbox GROUP BY 1 ORDER BY 1"),
		1, m->outbox) &&
	     pwcheck_states(db, m->pwcheck) &&
	     polls(db, m->polls) &&
	     counts(db, pw_db_stmt(db,
		"SELECT coalesce((SELECT name FROM subscription s"
		"  WHERE s.url = e.source), ''), count(*) FROM ingest_error e"
		" GROUP BY 1 ORDER BY 1"), 1, m->unreadable) &&
	     counts(db, pw_db_stmt(db,
		"SELECT coalesce(l.name, ''), count(*) FROM attention a"
		" LEFT JOIN list l ON l.id = a.list"
		" WHERE a.errs > 0 OR a.warns > 0 GROUP BY 1 ORDER BY 1"),
		1, m->attention);
	if (!ok) {
		pw_db_rollback(db);
		return PW_ERR_DB;
	}
	return pw_db_commit(db);
}

void pw_db_ops_metrics_release(struct pw_db_ops_metrics *m)
{
	if (m->messages)
		g_ptr_array_unref(m->messages);
	if (m->stored)
		g_ptr_array_unref(m->stored);
	if (m->findings)
		g_ptr_array_unref(m->findings);
	if (m->outbox)
		g_ptr_array_unref(m->outbox);
	if (m->pwcheck)
		g_ptr_array_unref(m->pwcheck);
	if (m->polls)
		g_ptr_array_unref(m->polls);
	if (m->unreadable)
		g_ptr_array_unref(m->unreadable);
	if (m->attention)
		g_ptr_array_unref(m->attention);
	memset(m, 0, sizeof(*m));
}

enum pw_status pw_db_ops_poll_count(struct pw_db *db, int64_t id, bool failed,
				    double seconds)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO poll_stat(subscription, polls, failures, seconds,"
		" last_seconds) VALUES (?1, 1, ?2, ?3, ?3)"
		" ON CONFLICT(subscription) DO UPDATE SET polls = polls + 1,"
		" failures = failures + ?2, seconds = seconds + ?3,"
		" last_seconds = ?3");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, failed);
	sqlite3_bind_double(st, 3, seconds);
	return pw_db_done(db, st);
}
