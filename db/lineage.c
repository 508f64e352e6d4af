/*
 * patchwarden: a patch's life (see db/lineage.h): the versions of a
 * series linked into lineages, and what became of each patch.
 */
#include <string.h>
#include <time.h>

#include "db/attention.h"
#include "db/db-private.h"
#include "db/lineage.h"

/*
 * The order of the versions of one lineage: by version, then by the
 * date and id of the series (a copy sent again is later than its
 * original).  A and B are aliases of lineage joined to series.
 */
#define EARLIER(a, b) \
	"(" a ".version < " b ".version OR (" a ".version = " b ".version" \
	" AND (" a ".first_date < " b ".first_date OR (" a ".first_date = " \
	b ".first_date AND " a ".id < " b ".id))))"

enum pw_status pw_db_lineage_earlier(struct pw_db *db, int64_t series_id,
				     GArray *out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT e.id FROM lineage l JOIN series s ON s.id = l.series"
		" JOIN lineage le ON le.root = l.root AND le.series <> l.series"
		" JOIN series e ON e.id = le.series"
		" WHERE l.series = ?1 AND " EARLIER("e", "s")
		" ORDER BY e.version DESC, e.first_date DESC, e.id DESC");

	sqlite3_bind_int64(st, 1, series_id);
	return pw_db_read_ids(db, st, out);
}

/* The candidates a new series is compared with, and the strings they hold. */
struct cands {
	GArray *rows;		/* struct pw_lineage_series */
	GPtrArray *strings;	/* what the rows point to */
};

/*
 * The signer of series id's lineage (struct pw_lineage_series) into
 * *out: a string kept in c, or NULL.
 */
static enum pw_status signer_of(struct pw_db *db, struct cands *c, int64_t id,
				const char **out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT count(DISTINCT lower(x.from_addr)), min(lower(x.from_addr))"
		" FROM series x JOIN series_signed ss ON ss.series = x.id"
		" WHERE x.id = ?1 OR x.id IN (SELECT o.series FROM lineage l"
		"  JOIN lineage o ON o.root = l.root WHERE l.series = ?1)");
	enum pw_status s;
	char *str = NULL;
	bool row;

	*out = NULL;
	sqlite3_bind_int64(st, 1, id);
	s = pw_db_read(db, st, &row);
	if (!s && row && sqlite3_column_int(st, 0) > 0)
		str = sqlite3_column_int(st, 0) > 1 ? g_strdup("") :
		      pw_db_col_dup(st, 1);
	sqlite3_reset(st);
	if (str)
		g_ptr_array_add(c->strings, str);
	*out = str;
	return s;
}

/* Reads series id into *out (strings kept in c); *found says whether it is stored. */
static enum pw_status load(struct pw_db *db, struct cands *c, int64_t id,
			   struct pw_lineage_series *out, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT s.name, s.from_addr, s.version, s.first_date, l.change_id,"
		" s.total"
		" FROM series s LEFT JOIN lineage l ON l.series = s.id"
		" WHERE s.id = ?1");
	enum pw_status s;
	char *str;

	memset(out, 0, sizeof(*out));
	sqlite3_bind_int64(st, 1, id);
	s = pw_db_read(db, st, found);
	if (*found) {
		out->id = id;
		g_ptr_array_add(c->strings, (str = pw_db_col_dup(st, 0)));
		out->name = str;
		g_ptr_array_add(c->strings, (str = pw_db_col_dup(st, 1)));
		out->from_addr = str;
		out->version = sqlite3_column_int(st, 2);
		out->date = sqlite3_column_int64(st, 3);
		g_ptr_array_add(c->strings, (str = pw_db_col_dup(st, 4)));
		out->change_id = str;
		out->total = sqlite3_column_int(st, 5);
	}
	sqlite3_reset(st);
	if (!s && *found)
		s = signer_of(db, c, id, &out->signer);
	return s;
}

/* How a candidate was found. */
enum found_by {
	BY_STORE = 0, BY_REPLY = 1, BY_LINK = 2, BY_SUBJECT = 4, BY_DIFF = 8,
};

/* Adds series id to the candidates, or what it was found by to its row. */
static enum pw_status add(struct pw_db *db, struct cands *c, int64_t id,
			  unsigned by)
{
	struct pw_lineage_series row;
	enum pw_status s;
	bool found;
	guint i;

	for (i = 0; i < c->rows->len; i++) {
		struct pw_lineage_series *r =
			&g_array_index(c->rows, struct pw_lineage_series, i);

		if (r->id == id) {
			r->replied |= !!(by & BY_REPLY);
			r->linked |= !!(by & BY_LINK);
			r->same_subject |= !!(by & BY_SUBJECT);
			r->same_diff |= !!(by & BY_DIFF);
			return PW_OK;
		}
	}
	s = load(db, c, id, &row, &found);
	if (s || !found)
		return s;
	row.replied = by & BY_REPLY;
	row.linked = by & BY_LINK;
	row.same_subject = by & BY_SUBJECT;
	row.same_diff = by & BY_DIFF;
	g_array_append_val(c->rows, row);
	return PW_OK;
}

/* Adds the series of each id of st's rows (column 0). */
static enum pw_status add_rows(struct pw_db *db, struct cands *c,
			       sqlite3_stmt *st, unsigned by)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	enum pw_status s = pw_db_read_ids(db, st, ids);
	guint i;

	for (i = 0; !s && i < ids->len; i++)
		s = add(db, c, g_array_index(ids, int64_t, i), by);
	g_array_unref(ids);
	return s;
}

/* The series message msgid is a patch or the cover letter of. */
#define SERIES_OF_MSGID \
	"SELECT p.series FROM message m JOIN patch p ON p.message = m.id" \
	" WHERE m.msgid = ?1 AND p.series IS NOT NULL" \
	" UNION SELECT s.id FROM message m JOIN series s ON s.cover = m.id" \
	" WHERE m.msgid = ?1"

/* Adds the series msgid belongs to (none: nothing). */
static enum pw_status add_msgid(struct pw_db *db, struct cands *c,
				const char *msgid, unsigned by)
{
	sqlite3_stmt *st = pw_db_stmt(db, SERIES_OF_MSGID);

	pw_db_bind_text(st, 1, msgid);
	return add_rows(db, c, st, by);
}

/* Reads the candidates of series s the clues and the store name. */
static enum pw_status gather(struct pw_db *db, const struct pw_lineage_series *s,
			     const struct pw_lineage_clues *k, struct cands *c)
{
	enum pw_status st = PW_OK;
	sqlite3_stmt *q;
	size_t i;

	if (s->change_id) {
		q = pw_db_stmt(db, "SELECT series FROM lineage"
			       " WHERE change_id = ?1 AND series <> ?2");
		pw_db_bind_text(q, 1, s->change_id);
		sqlite3_bind_int64(q, 2, s->id);
		st = add_rows(db, c, q, BY_STORE);
	}
	if (!st && k->in_reply_to)
		st = add_msgid(db, c, k->in_reply_to, BY_REPLY);
	for (i = 0; !st && k->references && k->references[i]; i++)
		st = add_msgid(db, c, k->references[i], BY_REPLY);
	for (i = 0; !st && k->links && k->links[i]; i++)
		st = add_msgid(db, c, k->links[i], BY_LINK);
	if (!st && s->name && *s->name) {
		q = pw_db_stmt(db, "SELECT id FROM series"
			       " WHERE from_addr = ?1 AND name = ?2 AND id <> ?3");
		pw_db_bind_text(q, 1, s->from_addr);
		pw_db_bind_text(q, 2, s->name);
		sqlite3_bind_int64(q, 3, s->id);
		st = add_rows(db, c, q, BY_STORE);
	}
	for (i = 0; !st && k->subject_keys && i < 2 * g_strv_length(k->subject_keys); i++) {
		const char *who = i % 2 ? k->author : k->sender;

		if (!who || (i % 2 && k->sender && !strcmp(who, k->sender)))
			continue;
		q = pw_db_stmt(db, "SELECT series FROM lineage_key"
			       " WHERE sender = ?1 AND key = ?2 AND series <> ?3");
		pw_db_bind_text(q, 1, who);
		pw_db_bind_text(q, 2, k->subject_keys[i / 2]);
		sqlite3_bind_int64(q, 3, s->id);
		st = add_rows(db, c, q, BY_SUBJECT);
	}
	if (!st && k->pid && *k->pid && k->sender) {
		q = pw_db_stmt(db, "SELECT p.series FROM patch_pid k"
			       " JOIN patch p ON p.id = k.patch"
			       " JOIN series s ON s.id = p.series"
			       " WHERE k.pid = ?1 AND s.from_addr = ?2"
			       " AND s.id <> ?3");
		pw_db_bind_text(q, 1, k->pid);
		pw_db_bind_text(q, 2, k->sender);
		sqlite3_bind_int64(q, 3, s->id);
		st = add_rows(db, c, q, BY_DIFF);
	}
	return st;
}

/* Files the subject keys of a message of series_id under its poster and
 * author (bot/state.c names no author the mail may not speak for). */
static enum pw_status add_key(struct pw_db *db, int64_t series_id,
			      const struct pw_lineage_clues *k)
{
	enum pw_status s = PW_OK;
	sqlite3_stmt *st;
	guint i;

	for (i = 0; !s && k->subject_keys && i < 2 * g_strv_length(k->subject_keys); i++) {
		const char *who = i % 2 ? k->author : k->sender;

		if (!who || !*who)
			continue;
		st = pw_db_stmt(db, "INSERT OR IGNORE INTO lineage_key(sender,"
				" key, series) VALUES (?1, ?2, ?3)");
		pw_db_bind_text(st, 1, who);
		pw_db_bind_text(st, 2, k->subject_keys[i / 2]);
		sqlite3_bind_int64(st, 3, series_id);
		s = pw_db_done(db, st);
	}
	return s;
}

/* The root of series id's lineage, which gets a row (the first) when it has none. */
static enum pw_status root_of(struct pw_db *db, int64_t id, int64_t *root)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO lineage(series, root, how) VALUES (?1, ?1, 'first')"
		" ON CONFLICT (series) DO NOTHING");
	enum pw_status s;

	sqlite3_bind_int64(st, 1, id);
	s = pw_db_done(db, st);
	if (s)
		return s;
	st = pw_db_stmt(db, "SELECT root FROM lineage WHERE series = ?1");
	sqlite3_bind_int64(st, 1, id);
	return pw_db_one_int64(db, st, root);
}

/*
 * Supersedes the patches of every version of lineage root but its
 * newest (the order of EARLIER), by the newest.
 */
static enum pw_status settle(struct pw_db *db, int64_t root)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"WITH newest AS (SELECT s.id FROM lineage l"
		"  JOIN series s ON s.id = l.series WHERE l.root = ?1"
		"  ORDER BY s.version DESC, s.first_date DESC, s.id DESC LIMIT 1)"
		" INSERT OR IGNORE INTO patch_state(patch, state, by_series, at)"
		" SELECT p.id, 'superseded', (SELECT id FROM newest), ?2"
		" FROM lineage l JOIN patch p ON p.series = l.series"
		" WHERE l.root = ?1 AND l.series <> (SELECT id FROM newest)");

	sqlite3_bind_int64(st, 1, root);
	sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
	return pw_db_done(db, st);
}

/* Makes the versions of lineage from versions of lineage to. */
static enum pw_status merge(struct pw_db *db, int64_t from, int64_t to)
{
	sqlite3_stmt *st;

	if (from == to)
		return PW_OK;
	st = pw_db_stmt(db, "UPDATE lineage SET root = ?2 WHERE root = ?1");
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	return pw_db_done(db, st);
}

/*
 * Writes series_id's row: in lineage root, after series from (0: the
 * first), linked by how.
 */
static enum pw_status put(struct pw_db *db, int64_t series_id, int64_t root,
			  int64_t from, enum pw_lineage_how how,
			  const char *change_id)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO lineage(series, root, supersedes, how, change_id)"
		" VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (series) DO UPDATE SET"
		" root = excluded.root, supersedes = excluded.supersedes,"
		" how = excluded.how,"
		" change_id = coalesce(excluded.change_id, change_id)");

	sqlite3_bind_int64(st, 1, series_id);
	sqlite3_bind_int64(st, 2, root);
	if (from)
		sqlite3_bind_int64(st, 3, from);
	pw_db_bind_text(st, 4, pw_lineage_how_name(how));
	pw_db_bind_text(st, 5, change_id);
	return pw_db_done(db, st);
}

/*
 * Each message of a series is looked at: a later one may carry the
 * clue (a cover letter's change-id, patch 3's subject).  A series that
 * was the first of its lineage follows the version found; the lineage
 * of every earlier version named joins its own, and so does that of a
 * later version stored before it (mail out of order).
 */
enum pw_status pw_db_lineage_link(struct pw_db *db, int64_t series_id,
				  const struct pw_lineage_clues *clues)
{
	struct cands c = { g_array_new(FALSE, FALSE, sizeof(struct pw_lineage_series)),
			   g_ptr_array_new_with_free_func(g_free) };
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT root, how FROM lineage WHERE series = ?1");
	struct pw_lineage_series me;
	enum pw_lineage_how how;
	enum pw_status s;
	int64_t root = series_id, from = 0, theirs = 0;
	bool found, had = false, first = true;
	guint i;
	int pick;

	sqlite3_bind_int64(st, 1, series_id);
	s = pw_db_read(db, st, &had);
	if (had) {
		root = sqlite3_column_int64(st, 0);
		first = !strcmp((const char *)sqlite3_column_text(st, 1), "first");
	}
	sqlite3_reset(st);
	if (!s)
		s = add_key(db, series_id, clues);
	if (!s)
		s = load(db, &c, series_id, &me, &found);
	if (s || !found)
		goto out;
	if (clues->change_id)
		me.change_id = clues->change_id;
	me.dkim = clues->dkim;
	s = gather(db, &me, clues, &c);
	if (s)
		goto out;
	pick = pw_lineage_pick(&me, (struct pw_lineage_series *)c.rows->data,
			       c.rows->len, &how);
	if (pick >= 0) {
		from = g_array_index(c.rows, struct pw_lineage_series, pick).id;
		s = root_of(db, from, &theirs);
	}
	if (s)
		goto out;
	if (!had || (first && from)) {
		int64_t was = root;

		root = from ? theirs : series_id;
		s = put(db, series_id, root, from, how, clues->change_id);
		/* Versions linked to this one while it was first follow it. */
		if (!s && had)
			s = merge(db, was, root);
	} else {
		if (clues->change_id) {
			st = pw_db_stmt(db, "UPDATE lineage SET change_id ="
					" coalesce(change_id, ?2) WHERE series = ?1");
			sqlite3_bind_int64(st, 1, series_id);
			pw_db_bind_text(st, 2, clues->change_id);
			s = pw_db_done(db, st);
		}
	}
	/* Every earlier version named joins: a v3 that gathers patches
	 * first sent apart, or that another sender's v2 came between. */
	for (i = 0; !s && i < c.rows->len; i++) {
		const struct pw_lineage_series *r =
			&g_array_index(c.rows, struct pw_lineage_series, i);

		enum pw_lineage_how later = pw_lineage_follows(&me, r);

		if (later == PW_LINEAGE_NONE &&
		    pw_lineage_evidence(&me, r) == PW_LINEAGE_NONE)
			continue;
		s = root_of(db, r->id, &theirs);
		if (!s)
			s = merge(db, theirs, root);
		/* A later version stored first follows this one now. */
		if (!s && later != PW_LINEAGE_NONE) {
			st = pw_db_stmt(db, "UPDATE lineage SET supersedes = ?2,"
					" how = ?3 WHERE series = ?1 AND how = 'first'");
			sqlite3_bind_int64(st, 1, r->id);
			sqlite3_bind_int64(st, 2, series_id);
			pw_db_bind_text(st, 3, pw_lineage_how_name(later));
			s = pw_db_done(db, st);
		}
	}
	if (!s)
		s = settle(db, root);
out:
	g_array_unref(c.rows);
	g_ptr_array_unref(c.strings);
	return s;
}

enum pw_status pw_db_patch_pid_add(struct pw_db *db, int64_t patch_id,
				   const char *pid)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT OR IGNORE INTO patch_pid(pid, patch) VALUES (?1, ?2)");

	pw_db_bind_text(st, 1, pid);
	sqlite3_bind_int64(st, 2, patch_id);
	return pw_db_done(db, st);
}

enum pw_status pw_db_patch_state(struct pw_db *db, int64_t patch_id,
				 enum pw_patch_state *st, int64_t *by_series,
				 int64_t *by_message, char **by_commit)
{
	sqlite3_stmt *q = pw_db_stmt(db,
		"SELECT state, coalesce(by_series, 0), coalesce(by_message, 0),"
		" by_commit FROM patch_state WHERE patch = ?1");
	enum pw_status s;
	bool found;

	*st = PW_STATE_NEW;
	if (by_series)
		*by_series = 0;
	if (by_message)
		*by_message = 0;
	if (by_commit)
		*by_commit = NULL;
	sqlite3_bind_int64(q, 1, patch_id);
	s = pw_db_read(db, q, &found);
	if (found) {
		pw_patch_state_parse((const char *)sqlite3_column_text(q, 0), st);
		if (by_series)
			*by_series = sqlite3_column_int64(q, 1);
		if (by_message)
			*by_message = sqlite3_column_int64(q, 2);
		if (by_commit)
			*by_commit = pw_db_col_dup(q, 3);
	}
	sqlite3_reset(q);
	return s;
}

enum pw_status pw_db_patch_state_set(struct pw_db *db, int64_t patch_id,
				     enum pw_patch_state st,
				     const struct pw_state_cause *why,
				     bool *changed)
{
	enum pw_patch_state now;
	enum pw_status s;
	sqlite3_stmt *q;

	*changed = false;
	s = pw_db_patch_state(db, patch_id, &now, NULL, NULL, NULL);
	if (s || pw_patch_state_merge(now, st) == now)
		return s;
	/* An update keeps the patch out of the queue; an insert takes it out. */
	q = pw_db_stmt(db,
		"INSERT INTO patch_state(patch, state, by_series, by_message,"
		" by_commit, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
		" ON CONFLICT (patch) DO UPDATE SET state = excluded.state,"
		" by_series = excluded.by_series, by_message = excluded.by_message,"
		" by_commit = excluded.by_commit, at = excluded.at");
	sqlite3_bind_int64(q, 1, patch_id);
	pw_db_bind_text(q, 2, pw_patch_state_name(st));
	if (why->by_series)
		sqlite3_bind_int64(q, 3, why->by_series);
	if (why->by_message)
		sqlite3_bind_int64(q, 4, why->by_message);
	pw_db_bind_text(q, 5, why->by_commit);
	sqlite3_bind_int64(q, 6, why->at ? why->at : (int64_t)time(NULL));
	s = pw_db_done(db, q);
	*changed = !s;
	return s;
}

enum pw_status pw_db_patch_state_reopen(struct pw_db *db, int64_t patch_id,
					bool *changed)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"DELETE FROM patch_state WHERE patch = ?1"
		" AND state IN ('applied', 'rejected')");
	enum pw_status s;
	int n = 0;
	int64_t root = 0;

	*changed = false;
	sqlite3_bind_int64(st, 1, patch_id);
	s = pw_db_write(db, st, &n);
	if (s || !n)
		return s;
	*changed = true;
	st = pw_db_stmt(db, "SELECT l.root FROM patch p JOIN lineage l"
			" ON l.series = p.series WHERE p.id = ?1");
	sqlite3_bind_int64(st, 1, patch_id);
	s = pw_db_one_int64(db, st, &root);
	if (!s && root)
		s = settle(db, root);
	return s;
}

enum pw_status pw_db_lineage_replied(struct pw_db *db, const char *msgid,
				     GArray *out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT p.id, p.message FROM message m"
		" JOIN patch p ON p.message = m.id"
		" WHERE m.msgid = ?1 AND m.kind = 'patch'"
		" UNION SELECT p.id, p.message FROM message m"
		" JOIN series s ON s.cover = m.id"
		" JOIN patch p ON p.series = s.id WHERE m.msgid = ?1");
	enum pw_status s;
	bool row;

	pw_db_bind_text(st, 1, msgid);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct pw_db_patch_ref r = { sqlite3_column_int64(st, 0),
					     sqlite3_column_int64(st, 1) };

		g_array_append_val(out, r);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_patch_applied_pid(struct pw_db *db, const char *pid,
				       const char *list, const char *commit,
				       int *n)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	struct pw_state_cause why = { .by_commit = commit };
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT k.patch FROM patch_pid k JOIN patch p ON p.id = k.patch"
		" WHERE k.pid = ?1 AND (?2 IS NULL OR EXISTS (SELECT 1"
		"  FROM message_list ml JOIN list l ON l.id = ml.list"
		"  WHERE ml.message = p.message AND l.name = ?2))");
	enum pw_status s;
	guint i;

	*n = 0;
	pw_db_bind_text(st, 1, pid);
	pw_db_bind_text(st, 2, list);
	s = pw_db_read_ids(db, st, ids);
	for (i = 0; !s && i < ids->len; i++) {
		bool changed;

		s = pw_db_patch_state_set(db, g_array_index(ids, int64_t, i),
					  PW_STATE_APPLIED, &why, &changed);
		*n += changed;
	}
	g_array_unref(ids);
	return s;
}

enum pw_status pw_db_lineage_oldest(struct pw_db *db, const char *list,
				    int64_t *date)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT coalesce(min(m.date), 0) FROM patch p"
		" JOIN message m ON m.id = p.message"
		" JOIN message_list ml ON ml.message = m.id"
		" JOIN list l ON l.id = ml.list WHERE l.name = ?1");

	pw_db_bind_text(st, 1, list);
	return pw_db_one_int64(db, st, date);
}

void pw_lineage_version_free(struct pw_lineage_version *v)
{
	if (!v)
		return;
	g_free(v->name);
	g_free(v->from_addr);
	g_free(v->how);
	g_free(v);
}

/* The findings of series id at min and above as "RULE<TAB>FILE" keys. */
static enum pw_status finding_keys(struct pw_db *db, int64_t id,
				   enum pw_severity min, char ***out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT f.rule || char(9) || coalesce(f.file, '')"
		" FROM patch p JOIN finding f ON f.patch = p.id"
		" WHERE p.series = ?1 AND f.severity >= ?2"
		" AND f.rule NOT IN (" PW_ATTENTION_FLOOD_RULES ")");
	GPtrArray *keys = g_ptr_array_new();
	enum pw_status s;
	bool row;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, (int)min);
	while (!(s = pw_db_read(db, st, &row)) && row)
		g_ptr_array_add(keys, pw_db_col_dup(st, 0));
	sqlite3_reset(st);
	g_ptr_array_add(keys, NULL);
	*out = (char **)g_ptr_array_free(keys, FALSE);
	return s;
}

/* The states of series v->series_id's patches into v. */
static enum pw_status version_states(struct pw_db *db,
				     struct pw_lineage_version *v)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT coalesce(ps.state, 'new'), count(*) FROM patch p"
		" LEFT JOIN patch_state ps ON ps.patch = p.id"
		" WHERE p.series = ?1 GROUP BY 1");
	enum pw_status s;
	bool row;

	sqlite3_bind_int64(st, 1, v->series_id);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		enum pw_patch_state ps;
		int n = sqlite3_column_int(st, 1);

		if (pw_patch_state_parse((const char *)sqlite3_column_text(st, 0),
					 &ps))
			v->states[ps] = n;
		v->patches += n;
	}
	sqlite3_reset(st);
	return s;
}

static gpointer version_row(sqlite3_stmt *st)
{
	struct pw_lineage_version *v = g_new0(struct pw_lineage_version, 1);

	v->series_id = sqlite3_column_int64(st, 0);
	v->version = sqlite3_column_int(st, 1);
	v->name = pw_db_col_dup(st, 2);
	v->from_addr = pw_db_col_dup(st, 3);
	v->date = sqlite3_column_int64(st, 4);
	v->how = pw_db_col_dup(st, 5);
	v->supersedes = sqlite3_column_int64(st, 6);
	return v;
}

enum pw_status pw_db_lineage_versions(struct pw_db *db, int64_t series_id,
				      enum pw_severity min, GPtrArray **out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT s.id, s.version, s.name, s.from_addr, s.first_date,"
		" coalesce(l.how, 'first'), coalesce(l.supersedes, 0)"
		" FROM series s LEFT JOIN lineage l ON l.series = s.id"
		" WHERE s.id = ?1 OR l.root = (SELECT root FROM lineage"
		"  WHERE series = ?1)"
		" ORDER BY s.version, s.first_date, s.id");
	char **prev = NULL, **cur = NULL;
	enum pw_status s;
	guint i;

	*out = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_lineage_version_free);
	sqlite3_bind_int64(st, 1, series_id);
	s = pw_db_read_rows(db, st, version_row, *out);
	for (i = 0; !s && i < (*out)->len; i++) {
		struct pw_lineage_version *v = (*out)->pdata[i];

		s = version_states(db, v);
		if (!s)
			s = finding_keys(db, v->series_id, min, &cur);
		if (s)
			break;
		v->findings = (int)g_strv_length(cur);
		pw_lineage_compare(prev, cur, &v->fixed, &v->kept, &v->added);
		g_strfreev(prev);
		prev = cur;
		cur = NULL;
	}
	g_strfreev(prev);
	g_strfreev(cur);
	return s;
}
