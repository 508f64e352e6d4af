/*
 * patchwarden: the maintainers' queries (see db/query.h).
 *
 * A query is a constant SELECT, then one constant fragment per filter
 * given, joined by AND, then a constant ORDER BY and LIMIT ? OFFSET ?.
 * No text of a value ever enters the SQL: each fragment's "?" is bound.
 */
#include <string.h>

#include "checks/rules.h"
#include "db/db-private.h"
#include "db/flood.h"
#include "db/query.h"
#include "db/totals.h"

/* One bound value of a query being put together. */
struct bind {
	const char *text;		/* or NULL for an integer */
	int64_t num;
};

/* A query being put together from constant fragments. */
struct qb {
	GString *sql;
	GArray *binds;			/* struct bind, in "?" order */
	bool where;
	const struct pw_query_filter *stream;	/* rows to f->each, or NULL */
};

static void qb_init(struct qb *q, const char *select)
{
	q->sql = g_string_new(select);
	q->binds = g_array_new(FALSE, FALSE, sizeof(struct bind));
	q->where = false;
	q->stream = NULL;
}

static void qb_release(struct qb *q)
{
	g_string_free(q->sql, TRUE);
	g_array_unref(q->binds);
}

static void bind_text(struct qb *q, const char *s)
{
	struct bind b = { .text = s };

	g_array_append_val(q->binds, b);
}

static void bind_num(struct qb *q, int64_t n)
{
	struct bind b = { .num = n };

	g_array_append_val(q->binds, b);
}

/* Adds condition frag (constant text) to the WHERE clause. */
static void cond(struct qb *q, const char *frag)
{
	g_string_append(q->sql, q->where ? " AND " : " WHERE ");
	g_string_append(q->sql, frag);
	q->where = true;
}

/* frag with one "?" for s, when s is given. */
static void cond_text(struct qb *q, const char *frag, const char *s)
{
	if (!s)
		return;
	cond(q, frag);
	bind_text(q, s);
}

/* frag with one "?" for n, when set. */
static void cond_num(struct qb *q, const char *frag, int64_t n, bool set)
{
	if (!set)
		return;
	cond(q, frag);
	bind_num(q, n);
}

/* The date range of f over the date column fragments given. */
static void cond_dates(struct qb *q, const struct pw_query_filter *f,
		       const char *since_frag, const char *until_frag)
{
	cond_num(q, since_frag, f->since, f->since != 0);
	cond_num(q, until_frag, f->until, f->until != 0);
}

/* The order (constant text) and f's paging. */
static void qb_end(struct qb *q, const char *order,
		   const struct pw_query_filter *f)
{
	g_string_append(q->sql, order);
	g_string_append(q->sql, " LIMIT ? OFFSET ?");
	bind_num(q, f->limit > 0 ? f->limit : -1);
	bind_num(q, f->offset > 0 ? f->offset : 0);
}

/*
 * Prepares q on db: *st is new (sqlite3_finalize), or NULL with the
 * error kept for pw_db_errmsg().
 */
static enum pw_status qb_prepare(struct pw_db *db, struct qb *q,
				 sqlite3_stmt **st)
{
	guint i;
	int rc;

	rc = sqlite3_prepare_v2(db->h, q->sql->str, (int)q->sql->len, st, NULL);
	if (rc != SQLITE_OK) {
		enum pw_status s = pw_db_status(db, rc);

		*st = NULL;
		return s ? s : PW_ERR_DB;
	}
	for (i = 0; i < q->binds->len; i++) {
		const struct bind *b = &g_array_index(q->binds, struct bind, i);

		if (b->text)
			sqlite3_bind_text(*st, (int)i + 1, b->text, -1, SQLITE_STATIC);
		else
			sqlite3_bind_int64(*st, (int)i + 1, b->num);
	}
	return PW_OK;
}

typedef gpointer (*row_fn)(sqlite3_stmt *st);

/*
 * Runs q in a read transaction of its own (or the caller's), each row
 * made into an element by fn, into *out (a new array freeing elements
 * with free_fn), or, when q->stream is set, handed to its each() and
 * freed.  q is released.
 */
static enum pw_status run(struct pw_db *db, struct qb *q, row_fn fn,
			  GDestroyNotify free_fn, GPtrArray **out)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(free_fn);
	sqlite3_stmt *st = NULL;
	enum pw_status s;
	int rc;

	*out = NULL;
	s = pw_db_begin(db);
	if (s)
		goto fail;
	s = qb_prepare(db, q, &st);
	if (s) {
		pw_db_rollback(db);
		goto fail;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		gpointer row = fn(st);
		bool go_on;

		if (!q->stream) {
			g_ptr_array_add(a, row);
			continue;
		}
		go_on = q->stream->each(row, q->stream->each_data);
		free_fn(row);
		if (!go_on) {
			rc = SQLITE_DONE;
			break;
		}
	}
	if (rc != SQLITE_DONE) {
		s = pw_db_status(db, rc);
		if (!s)
			s = PW_ERR_DB;
		sqlite3_finalize(st);
		pw_db_rollback(db);
		goto fail;
	}
	sqlite3_finalize(st);
	s = pw_db_commit(db);
	if (s)
		goto fail;
	qb_release(q);
	*out = a;
	return PW_OK;
fail:
	qb_release(q);
	g_ptr_array_unref(a);
	return s;
}

/* A row of integers: each column of it, in an array. */
static gpointer ints_row(sqlite3_stmt *st)
{
	int n = sqlite3_column_count(st), i;
	int64_t *v = g_new(int64_t, n);

	for (i = 0; i < n; i++)
		v[i] = sqlite3_column_int64(st, i);
	return v;
}

/* ---- shared fragments ---- */

/* Patches m written by, or posted by, an address (both indexed). */
#define FROM_PATCH "((m.kind = 'patch' AND m.from_addr = lower(?)) OR m.id IN" \
	" (SELECT message FROM message_sender WHERE addr = lower(?)))"
/* Any message m likewise (stats). */
#define FROM_MESSAGE "(m.from_addr = lower(?) OR m.id IN" \
	" (SELECT message FROM message_sender WHERE addr = lower(?)))"
/* Messages m seen on a list: asked of each message as the date order
 * reaches it, which stops at a page; "m.id IN (the list's messages)"
 * would gather and sort every message of a large list first. */
#define ON_LIST "EXISTS (SELECT 1 FROM message_list ml" \
	" JOIN list l ON l.id = ml.list WHERE ml.message = m.id AND l.name = ?)"

static void cond_from(struct qb *q, const char *frag, const char *from)
{
	if (!from)
		return;
	cond(q, frag);
	bind_text(q, from);
	bind_text(q, from);
}

/* ---- findings ---- */

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

static gpointer finding_row(sqlite3_stmt *st)
{
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
	return q;
}

enum pw_status pw_db_query_findings(struct pw_db *db,
				    const struct pw_query_filter *f,
				    GPtrArray **out)
{
	struct qb q;

	qb_init(&q, "SELECT f.id, f.patch, m.id, m.msgid, m.from_addr,"
		" m.subject, m.date, f.rule, f.severity, f.file, f.line, f.col,"
		" f.message, f.fix FROM finding f JOIN patch p ON p.id = f.patch"
		" JOIN message m ON m.id = p.message");
	cond_text(&q, "f.rule = ?", f->rule);
	cond_num(&q, "f.severity >= ?", f->min_severity, f->min_severity > 0);
	cond_dates(&q, f, "m.date >= ?", "m.date < ?");
	cond_from(&q, FROM_PATCH, f->from);
	cond_text(&q, ON_LIST, f->list);
	cond_text(&q, "f.file GLOB ?", f->path);
	cond_num(&q, "p.series = ?", f->series_id, f->series_id != 0);
	cond_num(&q, "p.message = ?", f->message_id, f->message_id != 0);
	qb_end(&q, f->newest_first ? " ORDER BY m.date DESC, m.id DESC, f.id" :
	       " ORDER BY m.date, m.id, f.id", f);
	q.stream = f->each ? f : NULL;
	return run(db, &q, finding_row, finding_free, out);
}

/* ---- series ---- */

static void series_free(gpointer p)
{
	struct pw_query_series *q = p;

	g_free(q->name);
	g_free(q->from_addr);
	g_free(q);
}

static gpointer series_row(sqlite3_stmt *st)
{
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
	return q;
}

#define SERIES_PATCHES "(SELECT count(*) FROM patch p WHERE p.series = s.id)"
#define SERIES_FLOOD "(SELECT min(g.id) FROM patch p" \
	" JOIN flood_member fm ON fm.message = p.message" \
	" JOIN flood_group g ON g.id = fm.grp" \
	" WHERE p.series = s.id AND g.detected_at IS NOT NULL)"
/*
 * A patch's findings, always through an index that starts with the
 * patch: (patch, severity) to count those at a severity, (patch, rule)
 * to look for one or for a rule. serve's readers keep the statistics
 * of the store as it was when they opened it (SQLite reads sqlite_stat1
 * with the schema, and a reader cannot renew them), and those of a
 * small store (a few findings, all of one patch) make a scan of every
 * finding look cheaper than the index, for each patch: the senders of
 * 6,000 patches then took 9 s, not 0.15 s, until the server restarted.
 */
#define FI_SEVERITY "finding fi INDEXED BY finding_patch_severity"
#define FI_RULE "finding fi INDEXED BY finding_patch_rule"
#define OF_PATCH_AT "FROM " FI_SEVERITY \
	" WHERE fi.patch = p.id AND fi.severity >= ?"
#define OF_PATCH "FROM " FI_RULE " WHERE fi.patch = p.id"
#define PATCH_FINDING "EXISTS (SELECT 1 " OF_PATCH
#define OF_SERIES_AT "FROM patch p JOIN " FI_SEVERITY " ON fi.patch = p.id" \
	" WHERE p.series = s.id AND fi.severity >= ?"
#define SERIES_FINDING "EXISTS (SELECT 1 FROM patch p" \
	" JOIN " FI_RULE " ON fi.patch = p.id WHERE p.series = s.id"

enum pw_status pw_db_query_series(struct pw_db *db,
				  const struct pw_query_filter *f,
				  GPtrArray **out)
{
	struct qb q;

	qb_init(&q, "SELECT s.id, s.name, s.from_addr, s.version, s.total,"
		" s.cover IS NOT NULL, s.first_date, s.last_date, "
		SERIES_PATCHES ","
		" (SELECT count(*) " OF_SERIES_AT "),"
		" coalesce(" SERIES_FLOOD ", 0) FROM series s");
	bind_num(&q, f->min_severity);
	cond_num(&q, "s.id = ?", f->series_only, f->series_only != 0);
	cond_text(&q, "s.from_addr = lower(?)", f->from);
	cond_dates(&q, f, "s.last_date >= ?", "s.first_date < ?");
	cond_num(&q, "s.version = ?", f->version, f->version != 0);
	cond_text(&q, "EXISTS (SELECT 1 FROM patch p"
		  " JOIN message_list ml ON ml.message = p.message"
		  " JOIN list l ON l.id = ml.list"
		  " WHERE p.series = s.id AND l.name = ?)", f->list);
	if (f->has_findings > 0)
		cond(&q, SERIES_FINDING ")");
	else if (f->has_findings < 0)
		cond(&q, "NOT " SERIES_FINDING ")");
	cond_text(&q, SERIES_FINDING " AND fi.rule = ?)", f->rule);
	if (f->state == PW_SERIES_COMPLETE)
		cond(&q, "s.total > 0 AND " SERIES_PATCHES " >= s.total");
	else if (f->state == PW_SERIES_INCOMPLETE)
		cond(&q, "s.total > 0 AND " SERIES_PATCHES " < s.total");
	else if (f->state == PW_SERIES_FLOOD)
		cond(&q, SERIES_FLOOD " IS NOT NULL");
	qb_end(&q, f->newest_first ? " ORDER BY s.last_date DESC, s.id DESC" :
	       " ORDER BY s.first_date, s.id", f);
	q.stream = f->each ? f : NULL;
	return run(db, &q, series_row, series_free, out);
}

/* ---- patches ---- */

static void patch_free(gpointer p)
{
	struct pw_query_patch *q = p;

	g_free(q->msgid);
	g_free(q->from_name);
	g_free(q->from_addr);
	g_free(q->subject);
	g_free(q);
}

static gpointer patch_row(sqlite3_stmt *st)
{
	struct pw_query_patch *q = g_new0(struct pw_query_patch, 1);

	q->id = sqlite3_column_int64(st, 0);
	q->message_id = sqlite3_column_int64(st, 1);
	q->msgid = pw_db_col_dup(st, 2);
	q->from_name = pw_db_col_dup(st, 3);
	q->from_addr = pw_db_col_dup(st, 4);
	q->subject = pw_db_col_dup(st, 5);
	q->date = sqlite3_column_int64(st, 6);
	q->series_id = sqlite3_column_int64(st, 7);
	q->number = sqlite3_column_int(st, 8);
	q->total = sqlite3_column_int(st, 9);
	q->version = sqlite3_column_int(st, 10);
	q->findings = sqlite3_column_int(st, 11);
	q->flood_id = sqlite3_column_int64(st, 12);
	return q;
}

enum pw_status pw_db_query_patches(struct pw_db *db,
				   const struct pw_query_filter *f,
				   GPtrArray **out)
{
	struct qb q;

	qb_init(&q, "SELECT p.id, m.id, m.msgid, m.from_name, m.from_addr,"
		" m.subject, m.date, coalesce(p.series, 0), p.number, m.total,"
		" m.version,"
		" (SELECT count(*) " OF_PATCH_AT "),"
		" coalesce((SELECT g.id FROM flood_member fm"
		"  JOIN flood_group g ON g.id = fm.grp"
		"  WHERE fm.message = m.id AND g.detected_at IS NOT NULL), 0)"
		" FROM patch p JOIN message m ON m.id = p.message");
	bind_num(&q, f->min_severity);
	/* A pull request is not a patch: stats count it as a pull. */
	cond(&q, "m.kind = 'patch'");
	cond_num(&q, "p.series = ?", f->series_id, f->series_id != 0);
	cond_dates(&q, f, "m.date >= ?", "m.date < ?");
	cond_from(&q, FROM_PATCH, f->from);
	cond_text(&q, ON_LIST, f->list);
	cond_num(&q, "m.version = ?", f->version, f->version != 0);
	if (f->has_findings > 0)
		cond(&q, PATCH_FINDING ")");
	else if (f->has_findings < 0)
		cond(&q, "NOT " PATCH_FINDING ")");
	cond_text(&q, PATCH_FINDING " AND fi.rule = ?)", f->rule);
	if (f->series_id)
		qb_end(&q, " ORDER BY p.number, m.date, m.id", f);
	else
		qb_end(&q, f->newest_first ? " ORDER BY m.date DESC, m.id DESC" :
		       " ORDER BY m.date, m.id", f);
	q.stream = f->each ? f : NULL;
	return run(db, &q, patch_row, patch_free, out);
}

/* ---- senders ---- */

static void sender_free(gpointer p)
{
	struct pw_query_sender *q = p;

	g_free(q->addr);
	g_free(q->name);
	g_free(q);
}

static gpointer sender_row(sqlite3_stmt *st)
{
	struct pw_query_sender *q = g_new0(struct pw_query_sender, 1);

	q->addr = pw_db_col_dup(st, 0);
	q->name = pw_db_col_dup(st, 1);
	q->patches = sqlite3_column_int64(st, 2);
	q->findings = sqlite3_column_int64(st, 3);
	q->floods = sqlite3_column_int64(st, 4);
	q->first_date = sqlite3_column_int64(st, 5);
	q->last_date = sqlite3_column_int64(st, 6);
	q->flagged = sqlite3_column_int64(st, 7);
	return q;
}

/* The conditions of f on a sender's message m besides its poster. */
static void sender_conds(struct qb *q, const struct pw_query_filter *f)
{
	if (f->automated > 0)
		g_string_append(q->sql, " AND m.automated IS NOT NULL");
	else if (f->automated < 0)
		g_string_append(q->sql, " AND m.automated IS NULL");
	if (f->list) {
		g_string_append(q->sql, " AND " ON_LIST);
		bind_text(q, f->list);
	}
}

/*
 * The first (agg "min", order "") or last (agg "max", order " DESC")
 * date of the patches of the page's sender (page.who) under f: kept
 * by the triggers, or, where a change made them stale, as the rows
 * give it: from the indexes of an in-body author's messages
 * and of the patches and pull requests by From address and date, or,
 * when the sender has patches whose message is of another kind
 * (page.other; no index holds them), from every patch.
 */
static void sender_date(struct qb *q, const struct pw_query_filter *f,
			const char *agg, const char *order)
{
	static const char *const kinds[] = { "patch", "pull" };
	size_t i;

	/* Kept (total_sender_date), unless a change marked them stale. */
	g_string_append_printf(q->sql, ", coalesce((SELECT CASE WHEN"
			       " max(d.stale) = 0 THEN coalesce(%s(d.%s), 0) END"
			       " FROM total_sender_date d WHERE d.who = page.who",
			       agg, *order ? "last" : "first");
	if (f->list) {
		g_string_append(q->sql, " AND d.list = (SELECT id FROM list"
				" WHERE name = ?)");
		bind_text(q, f->list);
	} else {
		g_string_append(q->sql, " AND d.list = 0");
	}
	if (f->automated)
		g_string_append_printf(q->sql, " AND d.automated = %d",
				       f->automated > 0);
	g_string_append_printf(q->sql, "), coalesce(CASE WHEN page.other > 0"
			       " THEN (SELECT %s(m.date) FROM patch p"
			       " JOIN message m ON m.id = p.message"
			       " LEFT JOIN message_sender ms ON ms.message = m.id"
			       " WHERE coalesce(ms.addr, m.from_addr) = page.who",
			       agg);
	sender_conds(q, f);
	g_string_append_printf(q->sql, ") ELSE (SELECT %s(d) FROM"
			       " (SELECT (SELECT %s(m.date) FROM message_sender ms"
			       " JOIN message m ON m.id = ms.message"
			       " JOIN patch p ON p.message = m.id"
			       " WHERE ms.addr = page.who", agg, agg);
	sender_conds(q, f);
	g_string_append(q->sql, ") AS d");
	/* The From's own mail, newest or oldest first along the index of
	 * its kind (message_patch_from, message_pull_from). */
	for (i = 0; i < G_N_ELEMENTS(kinds); i++) {
		g_string_append_printf(q->sql, " UNION ALL SELECT (SELECT m.date"
				       " FROM message m WHERE m.kind = '%s'"
				       " AND m.from_addr = page.who"
				       " AND m.date IS NOT NULL"
				       " AND EXISTS (SELECT 1 FROM patch"
				       " WHERE message = m.id)"
				       " AND NOT EXISTS (SELECT 1 FROM message_sender"
				       " WHERE message = m.id)", kinds[i]);
		sender_conds(q, f);
		g_string_append_printf(q->sql, " ORDER BY m.date%s LIMIT 1)",
				       order);
	}
	g_string_append(q->sql, ")) END, 0))");
}

/*
 * The senders of f from the totals per sender (db/totals.c): a row
 * per sender, list, name and severity, never a message, then the
 * floods and dates of the page's senders alone.
 */
static enum pw_status senders_totals(struct pw_db *db,
				     const struct pw_query_filter *f,
				     GPtrArray **out)
{
	struct qb q;

	qb_init(&q, "WITH page AS (SELECT t.who AS who,"
		" max(CASE WHEN t.patches > 0 THEN t.name END) AS name,"
		" sum(t.patches) AS patches,"
		" sum(CASE WHEN t.sev >= ? THEN t.findings ELSE 0 END) AS findings,"
		" sum(CASE WHEN t.sev >= ? THEN t.patches ELSE 0 END) AS flagged,"
		" sum(t.other) AS other FROM total_sender t");
	bind_num(&q, f->min_severity);
	bind_num(&q, f->min_severity);
	if (f->list)
		cond_text(&q, "t.list = (SELECT id FROM list WHERE name = ?)",
			  f->list);
	else
		cond(&q, "t.list = 0");
	if (f->automated > 0)
		cond(&q, "t.automated = 1");
	else if (f->automated < 0)
		cond(&q, "t.automated = 0");
	cond_text(&q, "t.who = lower(?)", f->from);
	g_string_append(q.sql, " GROUP BY t.who HAVING sum(t.patches) > 0");
	qb_end(&q, " ORDER BY 3 DESC, 4 DESC, who", f);
	g_string_append(q.sql, ") SELECT page.who, page.name, page.patches,"
			" page.findings, (SELECT count(*) FROM flood_group g"
			" WHERE g.sender = page.who AND g.detected_at IS NOT NULL)");
	sender_date(&q, f, "min", "");
	sender_date(&q, f, "max", " DESC");
	g_string_append(q.sql, ", page.flagged FROM page"
			" ORDER BY 3 DESC, 4 DESC, page.who");
	q.stream = f->each ? f : NULL;
	return run(db, &q, sender_row, sender_free, out);
}

enum pw_status pw_db_query_senders(struct pw_db *db,
				   const struct pw_query_filter *f,
				   GPtrArray **out)
{
	struct qb q;

	/* Without dates, a findings or a rule filter, the totals answer
	 * (the same numbers: tests/integration/totals.sh compares them);
	 * a date range is counted from the rows of its messages (the
	 * totals are not kept by day), as are the findings filters. */
	if (!f->since && !f->until && f->has_findings <= 0 && !f->rule)
		return senders_totals(db, f, out);
	/* Who posted: the mail's From (message_sender when an in-body
	 * From names another author), as floods are counted. */
	qb_init(&q, "SELECT coalesce(ms.addr, m.from_addr) AS who,"
		" max(coalesce(ms.name, m.from_name)), count(*),"
		" sum((SELECT count(*) " OF_PATCH_AT ")),"
		" (SELECT count(*) FROM flood_group g"
		"  WHERE g.sender = coalesce(ms.addr, m.from_addr)"
		"  AND g.detected_at IS NOT NULL),"
		" coalesce(min(m.date), 0), coalesce(max(m.date), 0),"
		" sum(EXISTS (SELECT 1 " OF_PATCH_AT "))"
		" FROM patch p JOIN message m ON m.id = p.message"
		" LEFT JOIN message_sender ms ON ms.message = m.id");
	bind_num(&q, f->min_severity);
	bind_num(&q, f->min_severity);
	if (f->automated > 0)
		cond(&q, "m.automated IS NOT NULL");
	else if (f->automated < 0)
		cond(&q, "m.automated IS NULL");
	cond_dates(&q, f, "m.date >= ?", "m.date < ?");
	cond_text(&q, ON_LIST, f->list);
	cond_text(&q, "coalesce(ms.addr, m.from_addr) = lower(?)", f->from);
	if (f->has_findings > 0)
		cond(&q, "EXISTS (SELECT 1 " OF_PATCH ")");
	cond_text(&q, PATCH_FINDING " AND fi.rule = ?)", f->rule);
	g_string_append(q.sql, " GROUP BY who");
	qb_end(&q, " ORDER BY 3 DESC, 4 DESC, who", f);
	q.stream = f->each ? f : NULL;
	return run(db, &q, sender_row, sender_free, out);
}

/* ---- ingest errors ---- */

static void error_free(gpointer p)
{
	struct pw_query_error *q = p;

	g_free(q->source);
	g_free(q->location);
	g_free(q->msgid);
	g_free(q->error);
	g_free(q->subscription);
	g_free(q);
}

static gpointer error_row(sqlite3_stmt *st)
{
	struct pw_query_error *q = g_new0(struct pw_query_error, 1);

	q->id = sqlite3_column_int64(st, 0);
	q->source = pw_db_col_dup(st, 1);
	q->location = pw_db_col_dup(st, 2);
	q->msgid = pw_db_col_dup(st, 3);
	q->error = pw_db_col_dup(st, 4);
	q->at = sqlite3_column_int64(st, 5);
	q->kept = sqlite3_column_int64(st, 6);
	q->subscription = pw_db_col_dup(st, 7);
	if (q->msgid && !*q->msgid)
		g_clear_pointer(&q->msgid, g_free);
	return q;
}

enum pw_status pw_db_query_errors(struct pw_db *db,
				  const struct pw_query_filter *f,
				  GPtrArray **out)
{
	struct qb q;

	/* A subscription's source is its URL (bot/subscription.c reads it
	 * under that name): the errors it met carry it. */
	qb_init(&q, "SELECT e.id, e.source, e.location, e.msgid, e.error, e.at,"
		" coalesce(length(e.raw), 0),"
		" (SELECT min(s.name) FROM subscription s WHERE s.url = e.source)"
		" FROM ingest_error e");
	cond_dates(&q, f, "e.at >= ?", "e.at < ?");
	cond_text(&q, "EXISTS (SELECT 1 FROM subscription s"
		  " WHERE s.url = e.source AND s.list = ?)", f->list);
	qb_end(&q, f->newest_first ? " ORDER BY e.at DESC, e.id DESC" :
	       " ORDER BY e.at, e.id", f);
	q.stream = f->each ? f : NULL;
	return run(db, &q, error_row, error_free, out);
}

/* ---- stats ---- */

static void stat_free(gpointer p)
{
	struct pw_query_stat *q = p;

	g_free(q->period);
	g_free(q->list);
	g_strfreev(q->rules);
	g_free(q);
}

static gpointer stat_row(sqlite3_stmt *st)
{
	struct pw_query_stat *q = g_new0(struct pw_query_stat, 1);

	q->period = pw_db_col_dup(st, 0);
	q->list = pw_db_col_dup(st, 1);
	q->messages = sqlite3_column_int64(st, 2);
	q->patches = sqlite3_column_int64(st, 3);
	q->findings = sqlite3_column_int64(st, 4);
	q->pulls = sqlite3_column_int64(st, 5);
	return q;
}

/* A (period, list, rule, count) row of the findings by rule. */
struct rule_count {
	char *key;			/* period "\n" list */
	char *rule;
	int64_t n;
};

static void rule_count_free(gpointer p)
{
	struct rule_count *r = p;

	g_free(r->key);
	g_free(r->rule);
	g_free(r);
}

static gpointer rule_count_row(sqlite3_stmt *st)
{
	struct rule_count *r = g_new0(struct rule_count, 1);

	r->key = g_strdup_printf("%s\n%s", sqlite3_column_text(st, 0),
				 sqlite3_column_text(st, 1));
	r->rule = pw_db_col_dup(st, 2);
	r->n = sqlite3_column_int64(st, 3);
	return r;
}

/*
 * Whether the stats of f have a row for the messages of unknown date
 * (period "unknown", last): when no date limits them.
 */
static bool stats_unknown(const struct pw_query_filter *f)
{
	return !f->since && !f->until;
}

/* The filters of stats, the same for both of its reads; unknown: the
 * messages of unknown date too. */
static void stat_conds(struct qb *q, const struct pw_query_filter *f,
		       bool unknown)
{
	if (!unknown)
		cond(q, "m.date IS NOT NULL");
	cond_dates(q, f, "m.date >= ?", "m.date < ?");
	if (!f->all_lists)
		cond_text(q, "l.name = ?", f->list);
	cond_from(q, FROM_MESSAGE, f->from);
}

#define STAT_PERIOD "CASE WHEN m.date IS NULL THEN 'unknown'" \
	" ELSE strftime(?, m.date, 'unixepoch') END AS period,"
#define STAT_BY_LIST " coalesce(l.name, '') AS lname"
#define STAT_ALL " '' AS lname"
#define STAT_LISTS " LEFT JOIN message_list ml ON ml.message = m.id" \
	" LEFT JOIN list l ON l.id = ml.list"
/* The findings column is the sum of the rules' counts, added after. */
#define STAT_COUNTS ", count(*), sum(m.kind = 'patch'), 0, sum(m.kind = 'pull')"
/* From the messages of the date range (CROSS JOIN keeps that order:
 * scanning every finding would read the whole history). */
#define STAT_RULES ", fi.rule, count(*) FROM message m" \
	" CROSS JOIN patch p ON p.message = m.id" \
	" CROSS JOIN finding fi ON fi.patch = p.id"
/* The newest or oldest first; the unknown last. */
#define STAT_ORDER(dir) " ORDER BY period = 'unknown', period " dir ", lname"

/*
 * Whether the totals per list and day (db/totals.c) answer the stats
 * of f: whole days, no sender (the totals are not kept by sender).
 * Otherwise the rows are counted.
 */
static bool stats_totals(const struct pw_query_filter *f)
{
	return !f->from && f->since % 86400 == 0 && f->until % 86400 == 0;
}

/* The filters of stats over the totals (t, and l for a list);
 * unknown: day -1 too, the messages of unknown date. */
static void total_conds(struct qb *q, const struct pw_query_filter *f,
			bool unknown)
{
	cond(q, unknown ? "t.day >= -1" : "t.day >= 0");
	cond_num(q, "t.day >= ?", f->since / 86400, f->since != 0);
	cond_num(q, "t.day < ?", f->until / 86400, f->until != 0);
	if (f->all_lists) {
		cond(q, "t.list = 0");
	} else {
		/* Each list, and -1: the messages on none (list ''). */
		cond(q, "t.list <> 0");
		cond_text(q, "l.name = ?", f->list);
	}
}

#define TOTAL_PERIOD "CASE WHEN t.day < 0 THEN 'unknown'" \
	" ELSE strftime(?, t.day * 86400, 'unixepoch') END AS period,"
#define TOTAL_LIST " LEFT JOIN list l ON l.id = t.list"
#define TOTAL_BY_LIST " coalesce(l.name, '') AS lname"

/* The two reads of stats_of(), from the totals. */
static void stats_totals_rows(struct qb *q, const struct pw_query_filter *f,
			      const char *fmt)
{
	if (f->all_lists)
		qb_init(q, "SELECT " TOTAL_PERIOD STAT_ALL ", sum(t.n),"
			" sum(CASE WHEN t.kind = 'patch' THEN t.n ELSE 0 END), 0,"
			" sum(CASE WHEN t.kind = 'pull' THEN t.n ELSE 0 END)"
			" FROM total_message t");
	else
		qb_init(q, "SELECT " TOTAL_PERIOD TOTAL_BY_LIST ", sum(t.n),"
			" sum(CASE WHEN t.kind = 'patch' THEN t.n ELSE 0 END), 0,"
			" sum(CASE WHEN t.kind = 'pull' THEN t.n ELSE 0 END)"
			" FROM total_message t" TOTAL_LIST);
	bind_text(q, fmt);
	total_conds(q, f, stats_unknown(f));
	g_string_append(q->sql, " GROUP BY period, lname HAVING sum(t.n) > 0");
}

static void stats_totals_rules(struct qb *q, const struct pw_query_filter *f,
			       const char *fmt)
{
	if (f->all_lists)
		qb_init(q, "SELECT " TOTAL_PERIOD STAT_ALL ", t.rule, sum(t.n)"
			" FROM total_finding t");
	else
		qb_init(q, "SELECT " TOTAL_PERIOD TOTAL_BY_LIST ", t.rule,"
			" sum(t.n) FROM total_finding t" TOTAL_LIST);
	bind_text(q, fmt);
	total_conds(q, f, stats_unknown(f));
	cond_num(q, "t.severity >= ?", f->min_severity, f->min_severity > 0);
	g_string_append(q->sql, " GROUP BY period, lname, t.rule"
			" HAVING sum(t.n) > 0");
}

/* The stats of f, in the caller's transaction. */
static enum pw_status stats_of(struct pw_db *db, const struct pw_query_filter *f,
			       GPtrArray **out)
{
	const char *fmt = f->by_week ? "%Y-W%W" : "%Y-%m-%d";
	struct pw_query_filter all = *f;
	GPtrArray *rules = NULL;
	GHashTable *by_key;
	enum pw_status s;
	struct qb q;
	guint i;

	*out = NULL;
	/* Every list together counts a message once. */
	if (stats_totals(f)) {
		stats_totals_rows(&q, f, fmt);
	} else {
		if (f->all_lists)
			qb_init(&q, "SELECT " STAT_PERIOD STAT_ALL STAT_COUNTS
				" FROM message m");
		else
			qb_init(&q, "SELECT " STAT_PERIOD STAT_BY_LIST STAT_COUNTS
				" FROM message m" STAT_LISTS);
		bind_text(&q, fmt);
		stat_conds(&q, f, stats_unknown(f));
		g_string_append(q.sql, " GROUP BY period, lname");
	}
	qb_end(&q, f->newest_first ? STAT_ORDER("DESC") : STAT_ORDER("ASC"), f);
	s = run(db, &q, stat_row, stat_free, out);
	if (s)
		goto out;
	/* The findings by rule, of the same messages. */
	all.limit = all.offset = 0;
	if (stats_totals(f)) {
		stats_totals_rules(&q, &all, fmt);
		qb_end(&q, " ORDER BY 4 DESC, t.rule", &all);
	} else {
		if (f->all_lists)
			qb_init(&q, "SELECT " STAT_PERIOD STAT_ALL STAT_RULES);
		else
			qb_init(&q, "SELECT " STAT_PERIOD STAT_BY_LIST STAT_RULES
				STAT_LISTS);
		bind_text(&q, fmt);
		stat_conds(&q, &all, stats_unknown(&all));
		cond_num(&q, "fi.severity >= ?", f->min_severity,
			 f->min_severity > 0);
		g_string_append(q.sql, " GROUP BY period, lname, fi.rule");
		qb_end(&q, " ORDER BY 4 DESC, fi.rule", &all);
	}
	s = run(db, &q, rule_count_row, rule_count_free, &rules);
	if (s)
		goto out;
	by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (i = 0; i < (*out)->len; i++) {
		struct pw_query_stat *st = (*out)->pdata[i];
		char *key = g_strdup_printf("%s\n%s", st->period, st->list);
		GPtrArray *v = g_ptr_array_new();

		/* The row first, then its rules. */
		g_ptr_array_add(v, st);
		g_hash_table_insert(by_key, key, v);
	}
	for (i = 0; i < rules->len; i++) {
		struct rule_count *r = rules->pdata[i];
		GPtrArray *v = g_hash_table_lookup(by_key, r->key);

		if (v) {
			struct pw_query_stat *st = v->pdata[0];

			st->findings += r->n;
			g_ptr_array_add(v, g_strdup_printf("%s=%" G_GINT64_FORMAT,
							   r->rule, (gint64)r->n));
		}
	}
	for (i = 0; i < (*out)->len; i++) {
		struct pw_query_stat *st = (*out)->pdata[i];
		char *key = g_strdup_printf("%s\n%s", st->period, st->list);
		GPtrArray *v = g_hash_table_lookup(by_key, key);

		g_ptr_array_remove_index(v, 0);
		g_ptr_array_add(v, NULL);
		st->rules = (char **)g_ptr_array_free(v, FALSE);
		g_hash_table_remove(by_key, key);
		g_free(key);
	}
	g_hash_table_destroy(by_key);
	g_ptr_array_unref(rules);
out:
	if (s && *out) {
		g_ptr_array_unref(*out);
		*out = NULL;
	}
	return s;
}

#define STAT_PERIOD_KEY "SELECT DISTINCT (m.date / 86400 + ?) / ? AS pk" \
	" FROM message m"

/*
 * The start of the oldest period a page of the newest stats shows:
 * the (offset + limit)th newest period that has mail under f's
 * filters; 0 when there are not that many (the page reaches back to
 * the first message).  Periods start at midnight UTC; weeks (strftime's
 * %W) on Monday, day 4 of the Unix epoch.
 */
static enum pw_status stats_since(struct pw_db *db,
				  const struct pw_query_filter *f,
				  int64_t *since)
{
	struct pw_query_filter c = *f;
	int64_t add = f->by_week ? 3 : 0, div = f->by_week ? 7 : 1;
	GPtrArray *rows;
	enum pw_status s;
	struct qb q;

	c.since = 0;
	c.limit = 1;
	c.offset = f->offset + f->limit - 1;
	if (stats_totals(f)) {
		if (f->all_lists)
			qb_init(&q, "SELECT DISTINCT (t.day + ?) / ? AS pk"
				" FROM total_message t");
		else
			qb_init(&q, "SELECT DISTINCT (t.day + ?) / ? AS pk"
				" FROM total_message t" TOTAL_LIST);
		bind_num(&q, add);
		bind_num(&q, div);
		total_conds(&q, &c, false);
		cond(&q, "t.n > 0");
	} else {
		if (f->list && !f->all_lists)
			qb_init(&q, STAT_PERIOD_KEY STAT_LISTS);
		else
			qb_init(&q, STAT_PERIOD_KEY);
		bind_num(&q, add);
		bind_num(&q, div);
		stat_conds(&q, &c, false);
	}
	qb_end(&q, " ORDER BY pk DESC", &c);
	s = run(db, &q, ints_row, g_free, &rows);
	if (s)
		return s;
	*since = rows->len ?
		(*(int64_t *)rows->pdata[0] * div - add) * 86400 : 0;
	g_ptr_array_unref(rows);
	return PW_OK;
}

/*
 * Stats are grouped from every message in the range: a page of the
 * newest periods without a since is read from the periods it shows
 * (found from the index of dates first), so that a page of a large
 * store reads those days, not the whole history.
 */
enum pw_status pw_db_query_stats(struct pw_db *db,
				 const struct pw_query_filter *f,
				 GPtrArray **out)
{
	struct pw_query_filter w = *f;
	enum pw_status s;

	*out = NULL;
	s = pw_db_begin(db);
	if (s)
		return s;
	if (f->limit && !f->since && f->newest_first)
		s = stats_since(db, f, &w.since);
	if (!s)
		s = stats_of(db, &w, out);
	if (s) {
		pw_db_rollback(db);
		return s;
	}
	return pw_db_commit(db);
}

/* ---- floods ---- */



/* The first (and second) integer of each row of q into *out. */
static enum pw_status run_ids(struct pw_db *db, struct qb *q, bool pairs,
			      GArray **out)
{
	GPtrArray *rows;
	enum pw_status s = run(db, q, ints_row, g_free, &rows);
	guint i;

	*out = NULL;
	if (s)
		return s;
	*out = g_array_new(FALSE, FALSE, sizeof(int64_t));
	for (i = 0; i < rows->len; i++)
		g_array_append_vals(*out, rows->pdata[i], pairs ? 2 : 1);
	g_ptr_array_unref(rows);
	return PW_OK;
}

enum pw_status pw_db_query_floods(struct pw_db *db,
				  const struct pw_query_filter *f,
				  GArray **out)
{
	struct qb q;

	qb_init(&q, "SELECT g.id FROM flood_group g");
	cond(&q, "g.detected_at IS NOT NULL");
	cond_dates(&q, f, "g.last_seen >= ?", "g.last_seen < ?");
	cond_text(&q, "g.sender = lower(?)", f->from);
	cond_text(&q, "EXISTS (SELECT 1 FROM flood_member fm"
		  " JOIN message_list ml ON ml.message = fm.message"
		  " JOIN list l ON l.id = ml.list"
		  " WHERE fm.grp = g.id AND l.name = ?)", f->list);
	qb_end(&q, f->newest_first ? " ORDER BY g.last_seen DESC, g.id DESC" :
	       " ORDER BY g.first_seen, g.id", f);
	return run_ids(db, &q, false, out);
}

enum pw_status pw_db_query_flood_weeks(struct pw_db *db, int weeks,
				       GArray **out)
{
	struct pw_query_filter f = { .limit = weeks };
	enum pw_status s;
	struct qb q;
	guint i, n;

	qb_init(&q, "SELECT (g.first_seen / 604800) * 604800 AS wk, count(*)"
		" FROM flood_group g");
	cond(&q, "g.detected_at IS NOT NULL");
	g_string_append(q.sql, " GROUP BY wk");
	qb_end(&q, " ORDER BY wk DESC", &f);
	s = run_ids(db, &q, true, out);
	if (s)
		return s;
	/* Newest were taken; oldest first for the chart. */
	n = (*out)->len / 2;
	for (i = 0; i < n / 2; i++) {
		int64_t *a = &g_array_index(*out, int64_t, 2 * i);
		int64_t *b = &g_array_index(*out, int64_t, 2 * (n - 1 - i));
		int64_t t0 = a[0], t1 = a[1];

		a[0] = b[0];
		a[1] = b[1];
		b[0] = t0;
		b[1] = t1;
	}
	return PW_OK;
}

/* ---- one message ---- */

static void reply_free(gpointer p)
{
	struct pw_query_reply *r = p;

	g_free(r->kind);
	g_free(r->state);
	g_free(r->reason);
	g_free(r->rcpt_to);
	g_free(r->subject);
	g_free(r->last_error);
	g_free(r);
}

static gpointer reply_row(sqlite3_stmt *st)
{
	struct pw_query_reply *r = g_new0(struct pw_query_reply, 1);

	r->id = sqlite3_column_int64(st, 0);
	r->kind = pw_db_col_dup(st, 1);
	r->state = pw_db_col_dup(st, 2);
	r->reason = pw_db_col_dup(st, 3);
	r->rcpt_to = pw_db_col_dup(st, 4);
	r->subject = pw_db_col_dup(st, 5);
	r->last_error = pw_db_col_dup(st, 6);
	r->created_at = sqlite3_column_int64(st, 7);
	r->sent_at = sqlite3_column_int64(st, 8);
	return r;
}

static void name_free(gpointer p)
{
	g_free(p);
}

static gpointer name_row(sqlite3_stmt *st)
{
	return pw_db_col_dup(st, 0);
}

/* The names of rows of q as a NULL-terminated vector in *out. */
static enum pw_status run_names(struct pw_db *db, struct qb *q, char ***out)
{
	GPtrArray *a;
	enum pw_status s = run(db, q, name_row, name_free, &a);

	*out = NULL;
	if (s)
		return s;
	g_ptr_array_set_free_func(a, NULL);
	g_ptr_array_add(a, NULL);
	*out = (char **)g_ptr_array_free(a, FALSE);
	return PW_OK;
}

void pw_query_message_free(struct pw_query_message *m)
{
	if (!m)
		return;
	g_free(m->msgid);
	g_free(m->kind);
	g_free(m->from_name);
	g_free(m->from_addr);
	g_free(m->sender_name);
	g_free(m->sender_addr);
	g_free(m->subject);
	g_free(m->in_reply_to);
	g_strfreev(m->lists);
	if (m->findings)
		g_ptr_array_unref(m->findings);
	if (m->replies)
		g_ptr_array_unref(m->replies);
	g_free(m);
}

enum pw_status pw_db_query_message(struct pw_db *db, const char *msgid,
				   struct pw_query_message **out, bool *found)
{
	struct pw_query_filter f = { 0 };
	struct pw_query_message *m = NULL;
	struct qb q;
	sqlite3_stmt *st;
	enum pw_status s;
	bool in_flood = false;
	bool row;

	*out = NULL;
	*found = false;
	s = pw_db_begin(db);
	if (s)
		return s;
	st = pw_db_stmt(db,
		"SELECT m.id, m.msgid, m.kind, m.from_name, m.from_addr, ms.name,"
		" ms.addr, m.subject, m.in_reply_to, coalesce(m.date, 0),"
		" m.version, m.number, m.total, coalesce(p.id, 0),"
		" coalesce(p.series, 0)"
		" FROM message m LEFT JOIN message_sender ms ON ms.message = m.id"
		" LEFT JOIN patch p ON p.message = m.id WHERE m.msgid = ?1");
	pw_db_bind_text(st, 1, msgid);
	s = pw_db_read(db, st, &row);
	if (s || !row) {
		sqlite3_reset(st);
		goto out;
	}
	m = g_new0(struct pw_query_message, 1);
	m->id = sqlite3_column_int64(st, 0);
	m->msgid = pw_db_col_dup(st, 1);
	m->kind = pw_db_col_dup(st, 2);
	m->from_name = pw_db_col_dup(st, 3);
	m->from_addr = pw_db_col_dup(st, 4);
	m->sender_name = pw_db_col_dup(st, 5);
	m->sender_addr = pw_db_col_dup(st, 6);
	m->subject = pw_db_col_dup(st, 7);
	m->in_reply_to = pw_db_col_dup(st, 8);
	m->date = sqlite3_column_int64(st, 9);
	m->version = sqlite3_column_int(st, 10);
	m->number = sqlite3_column_int(st, 11);
	m->total = sqlite3_column_int(st, 12);
	m->patch_id = sqlite3_column_int64(st, 13);
	m->series_id = sqlite3_column_int64(st, 14);
	sqlite3_reset(st);

	qb_init(&q, "SELECT l.name FROM message_list ml"
		" JOIN list l ON l.id = ml.list");
	cond_num(&q, "ml.message = ?", m->id, true);
	g_string_append(q.sql, " ORDER BY l.name");
	s = run_names(db, &q, &m->lists);
	if (s)
		goto out;
	s = pw_db_flood_of_message(db, m->id, &in_flood, &m->flood_id);
	if (s)
		goto out;
	if (!in_flood)
		m->flood_id = 0;
	f.message_id = m->id;
	if (m->patch_id)
		s = pw_db_query_findings(db, &f, &m->findings);
	else
		m->findings = g_ptr_array_new();
	if (s)
		goto out;
	qb_init(&q, "SELECT id, kind, state, reason, rcpt_to, subject,"
		" last_error, created_at, coalesce(sent_at, 0) FROM outbox");
	cond_num(&q, "message = ?", m->id, true);
	g_string_append(q.sql, " ORDER BY id");
	s = run(db, &q, reply_row, reply_free, &m->replies);
out:
	if (s) {
		pw_query_message_free(m);
		pw_db_rollback(db);
		return s;
	}
	s = pw_db_commit(db);
	if (s) {
		pw_query_message_free(m);
		return s;
	}
	*found = m != NULL;
	*out = m;
	return PW_OK;
}

enum pw_status pw_db_query_lists(struct pw_db *db, char ***names)
{
	struct qb q;

	qb_init(&q, "SELECT name FROM list ORDER BY name");
	return run_names(db, &q, names);
}

/* ---- counts of findings ---- */

/*
 * Reads the (severity, by flood detection, count) rows of the findings
 * selected by from (constant text after "FROM ") into *c.
 */
static enum pw_status finding_counts(struct pw_db *db, const char *from,
				     struct pw_finding_counts *c)
{
	static const int flood_rules[] = {
		PW_R_FLOOD, PW_R_FLOOD_SERIES, PW_R_FLOOD_CAMPAIGN,
		PW_R_RESEND_IDENTICAL, PW_R_SERIES_OVERSIZED,
	};
	GPtrArray *rows;
	enum pw_status s;
	struct qb q;
	size_t i;

	memset(c, 0, sizeof(*c));
	qb_init(&q, "SELECT f.severity, f.rule IN (?, ?, ?, ?, ?), count(*) FROM ");
	for (i = 0; i < G_N_ELEMENTS(flood_rules); i++)
		bind_text(&q, pw_rule_at(flood_rules[i])->id);
	g_string_append(q.sql, from);
	g_string_append(q.sql, " GROUP BY 1, 2");
	s = run(db, &q, ints_row, g_free, &rows);
	if (s)
		return s;
	for (i = 0; i < rows->len; i++) {
		const int64_t *r = rows->pdata[i];

		c->findings += r[2];
		if (r[0] >= PW_SEV_INFO && r[0] <= PW_SEV_ERROR)
			c->severity[r[0]] += r[2];
		if (r[1])
			c->flood += r[2];
	}
	g_ptr_array_unref(rows);
	return PW_OK;
}

/* From the totals per list and day (db/totals.c): a few thousand rows
 * however many findings the store holds. */
enum pw_status pw_db_finding_counts(struct pw_db *db,
				    struct pw_finding_counts *c)
{
	const char *flood[] = {
		pw_rule_at(PW_R_FLOOD)->id, pw_rule_at(PW_R_FLOOD_SERIES)->id,
		pw_rule_at(PW_R_FLOOD_CAMPAIGN)->id,
		pw_rule_at(PW_R_RESEND_IDENTICAL)->id,
		pw_rule_at(PW_R_SERIES_OVERSIZED)->id,
	};

	return pw_db_totals_finding_counts(db, flood, G_N_ELEMENTS(flood), c);
}

enum pw_status pw_db_finding_tally_start(struct pw_db *db)
{
	enum pw_status s;

	/*
	 * A TEMP trigger fires for this connection's writes alone: another
	 * process storing meanwhile is not counted.  The ids are read back
	 * at the end, so that a finding counts at the severity it has then.
	 */
	s = pw_db_exec(db, "CREATE TEMP TABLE IF NOT EXISTS finding_tally"
		       " (id INTEGER PRIMARY KEY)");
	if (!s)
		s = pw_db_exec(db, "CREATE TEMP TRIGGER IF NOT EXISTS"
			       " finding_tally_add AFTER INSERT ON main.finding"
			       " BEGIN INSERT OR IGNORE INTO finding_tally(id)"
			       " VALUES (new.id); END");
	if (!s)
		s = pw_db_exec(db, "DELETE FROM temp.finding_tally");
	return s;
}

enum pw_status pw_db_finding_tally(struct pw_db *db,
				   struct pw_finding_counts *c)
{
	return finding_counts(db, "temp.finding_tally t"
			      " JOIN main.finding f ON f.id = t.id", c);
}

enum pw_status pw_db_query_generation(struct pw_db *db,
				      int64_t gen[PW_QUERY_GENERATION])
{
	GPtrArray *rows;
	enum pw_status s;
	struct qb q;

	qb_init(&q, "SELECT coalesce((SELECT max(id) FROM message), 0),"
		" coalesce((SELECT max(id) FROM finding), 0),"
		" coalesce((SELECT max(id) FROM outbox), 0),"
		" (SELECT count(*) FROM outbox WHERE state = 'pending'),"
		" coalesce((SELECT max(id) FROM ingest_error), 0),"
		" coalesce((SELECT max(last_poll) FROM subscription), 0),"
		/* Decisions are never deleted: taking or undoing one adds. */
		" (SELECT count(*) + count(undone_at) FROM decision)");
	s = run(db, &q, ints_row, g_free, &rows);
	if (s)
		return s;
	memcpy(gen, rows->pdata[0], PW_QUERY_GENERATION * sizeof(int64_t));
	g_ptr_array_unref(rows);
	return PW_OK;
}

void pw_db_query_reader_setup(struct pw_db *db)
{
	pw_db_exec(db, "PRAGMA mmap_size = 4294967296");
	pw_db_exec(db, "PRAGMA cache_size = -32768");
}

void pw_db_query_interrupt(struct pw_db *db)
{
	sqlite3_interrupt(db->h);
}
