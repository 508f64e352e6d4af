/*
 * patchwarden: the numbers behind the dashboard's charts (see
 * db/chart.h).
 */
#include "db/chart.h"
#include "db/db-private.h"

/* The start of a row's step, as SQL over date column D (constant text). */
#define DAY_OF(d) "((" d ") / 86400) * 86400"
/* Weeks start on Monday: 1970-01-05 is 4 days after the epoch. */
#define WEEK_OF(d) "((" d " - 345600) / 604800) * 604800 + 345600"
#define MONTH_OF(d) "CAST(strftime('%s', " d ", 'unixepoch', 'start of month')" \
	" AS INTEGER)"

/* From the totals per list and day (db/totals.h), not the findings:
 * the range [?1, ?2) starts and ends on whole days (a step's start, UTC),
 * so its messages are those of the days in it. */
#define FINDINGS(step) "SELECT " step " AS t, rule, sum(n)" \
	" FROM total_finding WHERE list = 0" \
	" AND day >= ?1 / 86400 AND day < ?2 / 86400 AND severity >= ?3" \
	" GROUP BY t, rule HAVING sum(n) > 0 ORDER BY t, 3 DESC, rule"
#define FLOODS(step) "SELECT " step " AS t, NULL, count(*)" \
	" FROM flood_group g WHERE g.detected_at IS NOT NULL" \
	" AND g.first_seen >= ?1 AND g.first_seen < ?2 GROUP BY t ORDER BY t"

/* By enum pw_chart_step: each a literal, as pw_db_stmt() keeps them. */
static const char *const findings_sql[] = {
	FINDINGS(DAY_OF("day * 86400")), FINDINGS(WEEK_OF("day * 86400")),
	FINDINGS(MONTH_OF("day * 86400")),
};
static const char *const floods_sql[] = {
	FLOODS(DAY_OF("g.first_seen")), FLOODS(WEEK_OF("g.first_seen")),
	FLOODS(MONTH_OF("g.first_seen")),
};

int64_t pw_chart_step_start(enum pw_chart_step step, int64_t t)
{
	GDateTime *d, *m;
	int64_t r;

	switch (step) {
	case PW_CHART_DAY:
		return t - ((t % 86400) + 86400) % 86400;
	case PW_CHART_WEEK:
		return t - (((t - 345600) % 604800) + 604800) % 604800;
	default:
		d = g_date_time_new_from_unix_utc(t);
		if (!d)
			return t;
		m = g_date_time_new_utc(g_date_time_get_year(d),
					g_date_time_get_month(d), 1, 0, 0, 0);
		r = g_date_time_to_unix(m);
		g_date_time_unref(m);
		g_date_time_unref(d);
		return r;
	}
}

int64_t pw_chart_step_next(enum pw_chart_step step, int64_t t)
{
	GDateTime *d, *n;
	int64_t r;

	switch (step) {
	case PW_CHART_DAY:
		return pw_chart_step_start(step, t) + 86400;
	case PW_CHART_WEEK:
		return pw_chart_step_start(step, t) + 604800;
	default:
		d = g_date_time_new_from_unix_utc(pw_chart_step_start(step, t));
		if (!d)
			return t + 31 * 86400;
		n = g_date_time_add_months(d, 1);
		r = g_date_time_to_unix(n);
		g_date_time_unref(n);
		g_date_time_unref(d);
		return r;
	}
}

/* The one integer of a one-row read of st (0 for none), reset after. */
static enum pw_status one_int(struct pw_db *db, sqlite3_stmt *st, int64_t *v)
{
	enum pw_status s;
	bool row;

	s = pw_db_read(db, st, &row);
	*v = !s && row ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_chart_range(struct pw_db *db, int64_t now,
				 struct pw_chart_range *r)
{
	/* Each an indexed lookup (message_date_kind): no count of every
	 * message, however large the store. */
	static const char *const sql[] = {
		"SELECT date FROM message WHERE date >= ?1 AND date < ?2"
		" ORDER BY date LIMIT 1",
		"SELECT date FROM message WHERE date >= ?1 AND date < ?2"
		" ORDER BY date DESC LIMIT 1",
		"SELECT count(*) FROM message WHERE date < ?1",
		"SELECT count(*) FROM message WHERE date >= ?2",
	};
	int64_t v[G_N_ELEMENTS(sql)];
	enum pw_status s;
	size_t i;

	s = pw_db_begin(db);
	for (i = 0; !s && i < G_N_ELEMENTS(sql); i++) {
		sqlite3_stmt *st = pw_db_stmt(db, sql[i]);

		if (i < 3)
			sqlite3_bind_int64(st, 1, PW_CHART_EPOCH);
		if (i != 2)
			sqlite3_bind_int64(st, 2, now + 86400);
		s = one_int(db, st, &v[i]);
	}
	if (s) {
		pw_db_rollback(db);
		return s;
	}
	s = pw_db_commit(db);
	if (s)
		return s;
	r->first = v[0];
	r->last = v[1];
	r->outside = v[2] + v[3];
	return PW_OK;
}

static void point_free(gpointer p)
{
	struct pw_chart_point *c = p;

	g_free(c->key);
	g_free(c);
}

/* A row (t, key, n) of a chart's statement. */
static gpointer point_row(sqlite3_stmt *st)
{
	struct pw_chart_point *c = g_new0(struct pw_chart_point, 1);

	c->t = sqlite3_column_int64(st, 0);
	c->key = pw_db_col_dup(st, 1);
	c->n = sqlite3_column_int64(st, 2);
	return c;
}

/* The rows (t, key, n) of sql over [since, until) (and min, when >= 0). */
static enum pw_status points(struct pw_db *db, const char *sql, int64_t since,
			     int64_t until, int min, GPtrArray **out)
{
	sqlite3_stmt *st = pw_db_stmt(db, sql);

	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_int64(st, 2, until);
	if (min >= 0)
		sqlite3_bind_int(st, 3, min);
	return pw_db_rows(db, st, point_row, point_free, out);
}

enum pw_status pw_db_chart_findings(struct pw_db *db, enum pw_chart_step step,
				    int64_t since, int64_t until,
				    enum pw_severity min, GPtrArray **out)
{
	return points(db, findings_sql[step], since, until, (int)min, out);
}

enum pw_status pw_db_chart_floods(struct pw_db *db, enum pw_chart_step step,
				  int64_t since, int64_t until,
				  GPtrArray **out)
{
	return points(db, floods_sql[step], since, until, -1, out);
}
