/*
 * patchwarden: floods of near-identical patches (see db/flood.h; how
 * they are found is in db/FLOODS.md).  The rules FLOOD, FLOOD_SERIES,
 * RESEND_IDENTICAL and SERIES_OVERSIZED are in checks/rules.def and
 * checks/RULES.md: here are the SQL and the grouping, and the facts
 * passed to checks/floodrules.c, which decides severities and words
 * the findings.
 *
 * Every observed patch becomes a member of one group.  Its fingerprints
 * (subject without subsystem prefixes, commit message body, change
 * shape, patch-id) become keys: a 64-bit hash of (fingerprint kind,
 * sender, digest) with the patch's Date, in one index.  A new patch looks
 * each of its keys up in that index within the window around its Date,
 * joins the groups it finds (merging them when there are several), and
 * the group becomes a flood when at least count of its members lie
 * within the window of the new patch.  Each lookup is one descent of a
 * B-tree, so the cost per patch does not grow with the history; only
 * the rare events (a group becoming a flood, two floods merging, a
 * flood's finding growing more severe) touch every member, once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/db-private.h"
#include "db/flood.h"
#include "db/identity.h"

struct mem {
	int64_t message, patch;
	bool threaded;
};

/* Whether flood rule r (enum pw_rule_index) stores findings under p. */
static bool rule_on(const struct pw_flood_params *p, int r)
{
	return pw_rule_on(p ? p->rules : NULL, r);
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

/*
 * A flood's rank (enum pw_flood_rank, checks/floodrules.h) only ever
 * rises, so its members' findings are rewritten at most three times
 * (pw_flood_group_raise()).
 */
static int rule_of(int rank)
{
	return pw_flood_rule(pw_flood_rank_clamp(rank));
}

static const char *rule_id(int rank)
{
	return pw_rule_at(rule_of(rank))->id;
}

static enum pw_severity severity_of(int rank)
{
	return pw_flood_severity(pw_flood_rank_clamp(rank));
}

static char *flood_text(int rank, const char *sender, int64_t id)
{
	return pw_flood_message(pw_flood_rank_clamp(rank), sender, id);
}

static enum pw_status add_finding(struct pw_db *db, int64_t patch,
				  const char *rule, enum pw_severity sev,
				  const char *message)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO finding(patch, rule, severity, file, line, col,"
		" message, fix) VALUES (?1, ?2, ?3, NULL, 0, 0, ?4, NULL)");

	sqlite3_bind_int64(st, 1, patch);
	pw_db_bind_text(st, 2, rule);
	sqlite3_bind_int(st, 3, sev);
	pw_db_bind_text(st, 4, message);
	return pw_db_done(db, st);
}

static enum pw_status has_finding(struct pw_db *db, int64_t patch,
				  const char *rule, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT 1 FROM finding WHERE patch = ?1 AND rule = ?2");
	enum pw_status s;

	sqlite3_bind_int64(st, 1, patch);
	pw_db_bind_text(st, 2, rule);
	s = pw_db_read(db, st, found);
	sqlite3_reset(st);
	return s;
}

/* ---- groups ---- */

/* Reads group id into *g; *found says whether there is one. */
static enum pw_status grp_load(struct pw_db *db, int64_t id, struct pw_flood_group *g,
			       bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT founder, size, nthreaded, ncovered, claimed_total, shared,"
		" first_seen, last_seen, detected_at, rank, reported_at,"
		" (subject_fp IS NOT NULL) | (body_fp IS NOT NULL) << 1"
		"  | (shape_fp IS NOT NULL) << 2, coalesce(c.campaign_at, 0)"
		" FROM flood_group g LEFT JOIN flood_campaign c ON c.grp = g.id"
		" WHERE g.id = ?1");
	enum pw_status s;

	memset(g, 0, sizeof(*g));
	sqlite3_bind_int64(st, 1, id);
	s = pw_db_read(db, st, found);
	if (*found) {
		g->id = id;
		g->founder = sqlite3_column_int64(st, 0);
		g->size = sqlite3_column_int(st, 1);
		g->nthreaded = sqlite3_column_int(st, 2);
		g->ncovered = sqlite3_column_int(st, 3);
		g->claimed = sqlite3_column_int(st, 4);
		g->shared = (unsigned)sqlite3_column_int(st, 5);
		g->first = sqlite3_column_int64(st, 6);
		g->last = sqlite3_column_int64(st, 7);
		g->detected = sqlite3_column_type(st, 8) != SQLITE_NULL;
		g->detected_at = sqlite3_column_int64(st, 8);
		g->rank = sqlite3_column_int(st, 9);
		g->reported_at = sqlite3_column_int64(st, 10);
		g->fps = (unsigned)sqlite3_column_int(st, 11);
		g->campaign_at = sqlite3_column_int64(st, 12);
	}
	sqlite3_reset(st);
	return s;
}

static enum pw_status grp_save(struct pw_db *db, const struct pw_flood_group *g)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE flood_group SET size = ?2, nthreaded = ?3, ncovered = ?4,"
		" claimed_total = ?5, shared = ?6, first_seen = ?7, last_seen = ?8,"
		" detected_at = ?9, rank = ?10, reported_at = ?11 WHERE id = ?1");
	enum pw_status s;

	sqlite3_bind_int64(st, 1, g->id);
	sqlite3_bind_int(st, 2, g->size);
	sqlite3_bind_int(st, 3, g->nthreaded);
	sqlite3_bind_int(st, 4, g->ncovered);
	sqlite3_bind_int(st, 5, g->claimed);
	sqlite3_bind_int(st, 6, (int)g->shared);
	sqlite3_bind_int64(st, 7, g->first);
	sqlite3_bind_int64(st, 8, g->last);
	if (g->detected)
		sqlite3_bind_int64(st, 9, g->detected_at);
	else
		sqlite3_bind_null(st, 9);
	sqlite3_bind_int(st, 10, g->rank);
	if (g->reported_at)
		sqlite3_bind_int64(st, 11, g->reported_at);
	else
		sqlite3_bind_null(st, 11);
	s = pw_db_done(db, st);
	if (s || (!g->campaign_at && !g->detected))
		return s;
	/* A campaign, or a flood that may have been one. */
	st = g->campaign_at ?
		pw_db_stmt(db, "INSERT OR REPLACE INTO flood_campaign(grp,"
			   " campaign_at) VALUES (?1, ?2)") :
		pw_db_stmt(db, "DELETE FROM flood_campaign WHERE grp = ?1");
	sqlite3_bind_int64(st, 1, g->id);
	if (g->campaign_at)
		sqlite3_bind_int64(st, 2, g->campaign_at);
	return pw_db_done(db, st);
}

/*
 * The members of group id, oldest first, into *out: a new GArray of
 * struct mem, or NULL on an error.
 */
static enum pw_status grp_members(struct pw_db *db, int64_t id, GArray **out)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(struct mem));
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT message, patch, threaded FROM flood_member"
		" WHERE grp = ?1 ORDER BY date, message");
	enum pw_status s;
	bool row;

	sqlite3_bind_int64(st, 1, id);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct mem m;

		m.message = sqlite3_column_int64(st, 0);
		m.patch = sqlite3_column_int64(st, 1);
		m.threaded = sqlite3_column_int(st, 2);
		g_array_append_val(a, m);
	}
	sqlite3_reset(st);
	if (s) {
		g_array_unref(a);
		a = NULL;
	}
	*out = a;
	return s;
}

/*
 * Whether a threaded member sits under a cover letter: its series has
 * one, or the root of its thread is not a patch (a cover letter not
 * stored yet counts as one; a chain of patches replying to patch 1 does
 * not).
 */
static enum pw_status covered(struct pw_db *db, int64_t message, bool *out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT m.in_reply_to, m.refs, s.cover IS NOT NULL"
		" FROM message m JOIN patch p ON p.message = m.id"
		" LEFT JOIN series s ON s.id = p.series WHERE m.id = ?1");
	char *root = NULL;
	bool cover = false, root_patch = false, row;
	enum pw_status s;

	*out = false;
	sqlite3_bind_int64(st, 1, message);
	s = pw_db_read(db, st, &row);
	if (row) {
		const char *irt = (const char *)sqlite3_column_text(st, 0);
		const char *refs = (const char *)sqlite3_column_text(st, 1);

		cover = sqlite3_column_int(st, 2);
		if (refs && *refs)
			root = g_strndup(refs, strcspn(refs, " "));
		else if (irt && *irt)
			root = g_strdup(irt);
	}
	sqlite3_reset(st);
	if (s || cover || !root) {
		g_free(root);
		*out = cover;
		return s;
	}
	st = pw_db_stmt(db, "SELECT kind = 'patch' FROM message WHERE msgid = ?1");
	pw_db_bind_text(st, 1, root);
	s = pw_db_read(db, st, &row);
	if (row)
		root_patch = sqlite3_column_int(st, 0);
	sqlite3_reset(st);
	g_free(root);
	*out = !root_patch;
	return s;
}

/*
 * Gives every attached member of group gid the finding of rank: the
 * flood findings they carry are rewritten, and members without one (the
 * rule of their earlier rank was switched off) get one.  Nothing changes
 * when the rule of rank is switched off under p.
 */
static enum pw_status rewrite(struct pw_db *db, int64_t gid, int rank,
			      const char *sender, const struct pw_flood_params *p)
{
	sqlite3_stmt *st;
	char *text;
	enum pw_status s;

	if (!rule_on(p, rule_of(rank)))
		return PW_OK;
	text = flood_text(rank, sender, gid);
	st = pw_db_stmt(db,
		"UPDATE finding SET rule = ?2, severity = ?3, message = ?4"
		" WHERE rule IN ('FLOOD', 'FLOOD_SERIES', 'FLOOD_CAMPAIGN') AND patch IN"
		" (SELECT patch FROM flood_member WHERE grp = ?1)");
	sqlite3_bind_int64(st, 1, gid);
	pw_db_bind_text(st, 2, rule_id(rank));
	sqlite3_bind_int(st, 3, severity_of(rank));
	pw_db_bind_text(st, 4, text);
	s = pw_db_done(db, st);
	if (s)
		goto out;
	st = pw_db_stmt(db,
		"INSERT INTO finding(patch, rule, severity, file, line, col,"
		" message, fix) SELECT fm.patch, ?2, ?3, NULL, 0, 0, ?4, NULL"
		" FROM flood_member fm WHERE fm.grp = ?1 AND fm.covered IS NOT NULL"
		" AND NOT EXISTS (SELECT 1 FROM finding f WHERE f.patch = fm.patch"
		"  AND f.rule IN ('FLOOD', 'FLOOD_SERIES', 'FLOOD_CAMPAIGN'))"
		" ORDER BY fm.date, fm.message");
	sqlite3_bind_int64(st, 1, gid);
	pw_db_bind_text(st, 2, rule_id(rank));
	sqlite3_bind_int(st, 3, severity_of(rank));
	pw_db_bind_text(st, 4, text);
	s = pw_db_done(db, st);
out:
	g_free(text);
	return s;
}

/*
 * Attaches n members that have no flood finding yet to flood g: counts
 * which sit under a cover letter, raises the flood's rank (rewriting the
 * findings already written) and gives each of them the finding, unless
 * its rule is switched off under p.
 */
static enum pw_status attach(struct pw_db *db, struct pw_flood_group *g,
			     const struct mem *m, size_t n, const char *sender,
			     const struct pw_flood_params *p)
{
	sqlite3_stmt *st;
	enum pw_status s = PW_OK;
	char *text = NULL;
	bool rose;
	size_t i;
	int r;

	for (i = 0; !s && i < n; i++) {
		bool c = false;

		if (m[i].threaded && (s = covered(db, m[i].message, &c)))
			break;
		st = pw_db_stmt(db, "UPDATE flood_member SET covered = ?2"
				" WHERE message = ?1");
		sqlite3_bind_int64(st, 1, m[i].message);
		sqlite3_bind_int(st, 2, c);
		s = pw_db_done(db, st);
		g->ncovered += c;
	}
	if (s)
		return s;
	rose = pw_flood_group_raise(g);
	r = g->rank;
	/* A rise gives every attached member, these included, the finding. */
	if (rose)
		return rewrite(db, g->id, r, sender, p);
	if (!rule_on(p, rule_of(r)))
		return PW_OK;
	text = flood_text(r, sender, g->id);
	for (i = 0; !s && i < n; i++) {
		/* A campaign become a flood: its FLOOD_CAMPAIGN becomes the
		 * flood's finding, so that a member carries one. */
		st = pw_db_stmt(db, "UPDATE finding SET rule = ?2, severity = ?3,"
				" message = ?4 WHERE patch = ?1 AND rule = ?5");
		sqlite3_bind_int64(st, 1, m[i].patch);
		pw_db_bind_text(st, 2, rule_id(r));
		sqlite3_bind_int(st, 3, severity_of(r));
		pw_db_bind_text(st, 4, text);
		pw_db_bind_text(st, 5, pw_rule_at(PW_R_FLOOD_CAMPAIGN)->id);
		s = pw_db_done(db, st);
		if (!s && sqlite3_changes(db->h) == 0)
			s = add_finding(db, m[i].patch, rule_id(r), severity_of(r),
					text);
	}
	g_free(text);
	return s;
}

/*
 * Gives the members of campaign g FLOOD_CAMPAIGN: every member without
 * one when all is set (it has just become one, or merged), else patch
 * alone.  Unless the rule is switched off under p.
 */
static enum pw_status campaign(struct pw_db *db, const struct pw_flood_group *g,
			       int64_t patch, bool all, const char *sender,
			       const struct pw_flood_params *p)
{
	const char *rule = pw_rule_at(PW_R_FLOOD_CAMPAIGN)->id;
	sqlite3_stmt *st;
	enum pw_status s;
	char *text;

	if (!rule_on(p, PW_R_FLOOD_CAMPAIGN))
		return PW_OK;
	text = pw_flood_campaign_message(sender, g->id);
	if (!all) {
		s = add_finding(db, patch, rule, PW_SEV_INFO, text);
		goto out;
	}
	st = pw_db_stmt(db,
		"INSERT INTO finding(patch, rule, severity, file, line, col,"
		" message, fix) SELECT fm.patch, ?2, ?3, NULL, 0, 0, ?4, NULL"
		" FROM flood_member fm WHERE fm.grp = ?1"
		" AND NOT EXISTS (SELECT 1 FROM finding f WHERE f.patch = fm.patch"
		"  AND f.rule = ?2)"
		" ORDER BY fm.date, fm.message");
	sqlite3_bind_int64(st, 1, g->id);
	pw_db_bind_text(st, 2, rule);
	sqlite3_bind_int(st, 3, PW_SEV_INFO);
	pw_db_bind_text(st, 4, text);
	s = pw_db_done(db, st);
out:
	g_free(text);
	return s;
}

/*
 * Moves the members of group b into group a (a is the flood when either
 * is one) and deletes b.  *rewrite_all is set when both were floods, so
 * that the caller gives every member the merged flood's finding.
 */
static enum pw_status merge(struct pw_db *db, struct pw_flood_group *a, int64_t bid,
			    const char *sender, const struct pw_flood_params *p,
			    bool *rewrite_all)
{
	sqlite3_stmt *st;
	enum pw_status s;
	GArray *fresh = NULL;
	struct pw_flood_group b;
	bool found;

	s = grp_load(db, bid, &b, &found);
	if (s || !found)
		return s;
	if (a->detected && !b.detected && (s = grp_members(db, bid, &fresh)))
		return s;
	st = pw_db_stmt(db, "UPDATE flood_member SET grp = ?1 WHERE grp = ?2");
	sqlite3_bind_int64(st, 1, a->id);
	sqlite3_bind_int64(st, 2, bid);
	s = pw_db_done(db, st);
	if (s)
		goto out;
	if (pw_flood_group_merge(a, &b))
		*rewrite_all = true;
	st = pw_db_stmt(db, "DELETE FROM flood_group WHERE id = ?1");
	sqlite3_bind_int64(st, 1, bid);
	s = pw_db_done(db, st);
	if (!s && b.campaign_at) {
		st = pw_db_stmt(db, "DELETE FROM flood_campaign WHERE grp = ?1");
		sqlite3_bind_int64(st, 1, bid);
		s = pw_db_done(db, st);
	}
	if (!s && fresh)
		s = attach(db, a, &g_array_index(fresh, struct mem, 0), fresh->len,
			   sender, p);
out:
	if (fresh)
		g_array_unref(fresh);
	return s;
}

/* ---- lookups ---- */

/*
 * Most keys a new patch looks up belong to no earlier patch, and each
 * such lookup costs SQLite a B-tree descent for every week it spans.
 * Once a bulk load's filter (the caller's, one connection's) has seen
 * FILTER_AFTER patches (a bulk load, not one mail handed over by an
 * MTA), it keeps the set of keys filed in
 * each week it looks into, up to FILTER_WEEKS weeks, and asks SQLite
 * only about keys in that set.  The set may hold keys the table does
 * not (rows of a transaction rolled back since): SQLite then finds
 * nothing, as it would have without the filter.  It never lacks a key
 * the table holds: a week is read whole before it answers for it, this
 * connection's own inserts are added as they are made, and everything
 * is forgotten when another connection has committed (PRAGMA
 * data_version); the count of patches then starts again, so that a
 * store another process writes to all the time is not read week by
 * week for every patch.  A lookup whose span (twice the window) falls
 * in more than FILTER_SPAN weeks goes without it: it would evict weeks
 * at every lookup.
 */
#define FILTER_AFTER 256
#define FILTER_WEEKS 16
#define FILTER_SPAN 4

struct week {
	int64_t bucket;
	uint64_t *slot;		/* open addressing; 0 marks a free slot */
	size_t mask, n;		/* slots - 1; keys held */
	bool zero;		/* holds key 0, which no slot can */
	uint64_t used;		/* clock of its last lookup */
};

struct pw_flood_filter {
	unsigned observed;	/* patches filed through this filter */
	int64_t data_version;
	uint64_t txn;		/* the transaction it was read in */
	uint64_t clock;
	int nweeks;
	struct week weeks[FILTER_WEEKS];
};

static size_t slot_of(uint64_t key, size_t mask)
{
	key ^= key >> 31;
	key *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(key >> 32) & mask;
}

static void week_insert(struct week *w, uint64_t key)
{
	size_t i;

	for (i = slot_of(key, w->mask); w->slot[i]; i = (i + 1) & w->mask)
		if (w->slot[i] == key)
			return;
	w->slot[i] = key;
	w->n++;
}

static void week_add(struct week *w, uint64_t key)
{
	if (key == 0) {
		w->zero = true;
		return;
	}
	if ((w->n + 1) * 2 > w->mask + 1) {
		uint64_t *old = w->slot;
		size_t i, size = w->mask + 1;

		w->mask = size * 2 - 1;
		w->slot = g_new0(uint64_t, size * 2);
		w->n = 0;
		for (i = 0; i < size; i++)
			if (old[i])
				week_insert(w, old[i]);
		g_free(old);
	}
	week_insert(w, key);
}

static bool week_has(const struct week *w, uint64_t key)
{
	size_t i;

	if (key == 0)
		return w->zero;
	for (i = slot_of(key, w->mask); w->slot[i]; i = (i + 1) & w->mask)
		if (w->slot[i] == key)
			return true;
	return false;
}

static void week_clear(struct week *w)
{
	g_free(w->slot);
	memset(w, 0, sizeof(*w));
}

struct pw_flood_filter *pw_db_flood_filter_new(void)
{
	return g_new0(struct pw_flood_filter, 1);
}

void pw_db_flood_filter_free(struct pw_flood_filter *f)
{
	int i;

	if (!f)
		return;
	for (i = 0; i < f->nweeks; i++)
		week_clear(&f->weeks[i]);
	g_free(f);
}

/*
 * Counts a patch filed, and forgets every week when another connection
 * has committed since the last patch.  Called once per observed patch,
 * inside its transaction: no other connection commits during one, so
 * data_version is read once per transaction.  f may be NULL (no filter).
 */
static enum pw_status filter_start(struct pw_db *db, struct pw_flood_filter *f)
{
	sqlite3_stmt *st;
	enum pw_status s;
	int64_t v = -1;
	bool row;
	int i;

	if (!f || ++f->observed < FILTER_AFTER ||
	    (f->observed > FILTER_AFTER && f->txn == db->txn))
		return PW_OK;
	f->txn = db->txn;
	st = pw_db_stmt(db, "PRAGMA data_version");
	s = pw_db_read(db, st, &row);
	if (row)
		v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (s || f->observed == FILTER_AFTER || v != f->data_version || v < 0) {
		for (i = 0; i < f->nweeks; i++)
			week_clear(&f->weeks[i]);
		f->nweeks = 0;
		/* Starting (again, should the count wrap): from this
		 * version on.  Otherwise count again from none. */
		if (f->observed == FILTER_AFTER && !s)
			f->data_version = v;
		else
			f->observed = 0;
	}
	return s;
}

/* The set of week bucket into *out, read when needed. */
static enum pw_status filter_week(struct pw_db *db, struct pw_flood_filter *f,
				  int64_t bucket, struct week **out)
{
	struct week *w = NULL;
	sqlite3_stmt *st;
	enum pw_status s;
	bool row;
	int i;

	*out = NULL;
	for (i = 0; i < f->nweeks; i++)
		if (f->weeks[i].bucket == bucket) {
			w = &f->weeks[i];
			w->used = ++f->clock;
			*out = w;
			return PW_OK;
		}
	if (f->nweeks < FILTER_WEEKS) {
		w = &f->weeks[f->nweeks++];
		memset(w, 0, sizeof(*w));
	} else {
		w = &f->weeks[0];
		for (i = 1; i < f->nweeks; i++)
			if (f->weeks[i].used < w->used)
				w = &f->weeks[i];
		week_clear(w);
	}
	w->bucket = bucket;
	w->used = ++f->clock;
	w->mask = 1023;
	w->slot = g_new0(uint64_t, w->mask + 1);
	st = pw_db_stmt(db, "SELECT key FROM flood_key WHERE bucket = ?1");
	sqlite3_bind_int64(st, 1, bucket);
	while (!(s = pw_db_read(db, st, &row)) && row)
		week_add(w, (uint64_t)sqlite3_column_int64(st, 0));
	sqlite3_reset(st);
	if (!s) {
		*out = w;
		return PW_OK;
	}
	/* A failed read fails the transaction; forget the partial set. */
	week_clear(w);
	*w = f->weeks[--f->nweeks];
	return s;
}

/* Whether flood_key may hold key in week bucket, into *may. */
static enum pw_status filter_may_have(struct pw_db *db,
				      struct pw_flood_filter *f, int64_t bucket,
				      int64_t key, bool *may)
{
	struct week *w;
	enum pw_status s;

	*may = true;
	if (!f || f->observed < FILTER_AFTER)
		return PW_OK;
	s = filter_week(db, f, bucket, &w);
	if (!s)
		*may = week_has(w, (uint64_t)key);
	return s;
}

/* Notes key, just filed in week bucket; f may be NULL. */
static void filter_note(struct pw_flood_filter *f, int64_t bucket, int64_t key)
{
	int i;

	for (i = 0; f && i < f->nweeks; i++)
		if (f->weeks[i].bucket == bucket) {
			week_add(&f->weeks[i], (uint64_t)key);
			return;
		}
}

/*
 * The group of the latest patch with key (of kind k) dated within
 * [lo, hi], and that patch's date; *found says whether there is one.
 */
static enum pw_status find_key(struct pw_db *db, struct pw_flood_filter *f,
			       int k, int64_t key, int64_t lo, int64_t hi,
			       bool *found, int64_t *grp, int64_t *date)
{
	sqlite3_stmt *st;
	enum pw_status s = PW_OK;
	int64_t b;
	bool wide, may;

	*found = false;
	if (k == PW_FLOOD_K_PATCH_ID) {
		st = pw_db_stmt(db,
			"SELECT m.grp, k.date FROM flood_patch_id k"
			" JOIN flood_member m ON m.message = k.message"
			" WHERE k.key = ?1 AND k.date BETWEEN ?2 AND ?3"
			" ORDER BY k.date DESC LIMIT 1");
		sqlite3_bind_int64(st, 1, key);
		sqlite3_bind_int64(st, 2, lo);
		sqlite3_bind_int64(st, 3, hi);
		s = pw_db_read(db, st, found);
		if (*found) {
			*grp = sqlite3_column_int64(st, 0);
			*date = sqlite3_column_int64(st, 1);
		}
		sqlite3_reset(st);
		return s;
	}
	/* The newest week first: the first match is the latest. */
	wide = pw_flood_bucket(hi) - pw_flood_bucket(lo) + 1 > FILTER_SPAN;
	for (b = pw_flood_bucket(hi); !s && !*found && b >= pw_flood_bucket(lo); b--) {
		if (!wide && ((s = filter_may_have(db, f, b, key, &may)) || !may))
			continue;
		st = pw_db_stmt(db,
			"SELECT m.grp, k.date FROM flood_key k"
			" JOIN flood_member m ON m.message = k.message"
			" WHERE k.bucket = ?1 AND k.key = ?2 AND k.date BETWEEN ?3 AND ?4"
			" ORDER BY k.date DESC LIMIT 1");
		sqlite3_bind_int64(st, 1, b);
		sqlite3_bind_int64(st, 2, key);
		sqlite3_bind_int64(st, 3, lo);
		sqlite3_bind_int64(st, 4, hi);
		s = pw_db_read(db, st, found);
		if (*found) {
			*grp = sqlite3_column_int64(st, 0);
			*date = sqlite3_column_int64(st, 1);
		}
		sqlite3_reset(st);
	}
	return s;
}

/*
 * The postings of group gid dated within [lo, hi] into *n, counting up
 * to cap.  A posting is a message sent on its own, or a thread: the
 * members of one series count once when it is threaded (under a cover
 * letter, or chained to its first patch, which counts with it), and
 * so do the versions of a series (series of one name), so that a
 * 68-patch series under its cover letter, or its v2, is one posting and
 * no flood.  Unthreaded patches that the store grouped as one series by
 * their counters ("[PATCH 14/1285]") count one by one.
 */
#define POSTING \
	"CASE WHEN s.id IS NOT NULL AND (fm.threaded OR EXISTS (" \
	"  SELECT 1 FROM patch p2 JOIN flood_member f2" \
	"  ON f2.message = p2.message WHERE p2.series = s.id" \
	"  AND f2.threaded)) THEN 's' || lower(s.name)" \
	" ELSE 'm' || fm.message END" \
	" FROM flood_member fm JOIN patch p ON p.id = fm.patch" \
	" LEFT JOIN series s ON s.id = p.series" \
	" WHERE fm.grp = ?1 AND fm.date BETWEEN ?2 AND ?3"

/* The one count st (of group ?1 in [?2, ?3], its other parameters
 * bound) reads, into *n. */
static enum pw_status count_in(struct pw_db *db, sqlite3_stmt *st, int64_t gid,
			       int64_t lo, int64_t hi, int *n)
{
	enum pw_status s;
	bool row;

	*n = 0;
	sqlite3_bind_int64(st, 1, gid);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	s = pw_db_read(db, st, &row);
	if (row)
		*n = sqlite3_column_int(st, 0);
	sqlite3_reset(st);
	return s;
}

static enum pw_status count_window(struct pw_db *db, int64_t gid, int64_t lo,
				   int64_t hi, int cap, int *n)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT count(*) FROM (SELECT DISTINCT " POSTING " LIMIT ?4)");

	sqlite3_bind_int(st, 4, cap);
	return count_in(db, st, gid, lo, hi, n);
}

/*
 * Whether count postings of group gid (counted as count_window() counts
 * them, each at its earliest Date) fall within span seconds of one
 * another around date, into *burst: a flood, not a campaign.
 */
static enum pw_status in_burst(struct pw_db *db, int64_t gid, int64_t date,
			       int64_t span, int count, bool *burst)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT min(fm.date), " POSTING " GROUP BY 2 ORDER BY 1");
	GArray *dates = g_array_new(FALSE, FALSE, sizeof(int64_t));
	enum pw_status s;
	bool row;

	sqlite3_bind_int64(st, 1, gid);
	sqlite3_bind_int64(st, 2, date - span);
	sqlite3_bind_int64(st, 3, date + span);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		int64_t d = sqlite3_column_int64(st, 0);

		g_array_append_val(dates, d);
	}
	sqlite3_reset(st);
	*burst = !s && pw_flood_burst((const int64_t *)(void *)dates->data,
				      dates->len, span, count);
	g_array_unref(dates);
	return s;
}

/* The subsystems (flood_area) the members of group gid in [lo, hi] reach. */
static enum pw_status reach(struct pw_db *db, int64_t gid, int64_t lo,
			    int64_t hi, int *n)
{
	return count_in(db, pw_db_stmt(db,
		"SELECT count(DISTINCT a.area) FROM flood_member fm"
		" JOIN flood_area a ON a.message = fm.message"
		" WHERE fm.grp = ?1 AND fm.date BETWEEN ?2 AND ?3"),
		gid, lo, hi, n);
}

/*
 * The pace of group g, with n postings within [lo, hi] around the
 * new patch's date (checks/floodrules.h): a burst floods, a campaign
 * is noted.  Without [flood] burst every count in the window floods.
 */
static enum pw_status pace_of(struct pw_db *db, const struct pw_flood_group *g,
			      int n, int64_t date, int64_t lo, int64_t hi,
			      const struct pw_flood_params *p,
			      enum pw_flood_pace *pace)
{
	enum pw_status s = PW_OK;
	bool burst = p->burst <= 0;
	int r = 0;

	*pace = pw_flood_pace(n, p->count, true, 0, 0);
	if (*pace == PW_FLOOD_PACE_NONE || burst)
		return PW_OK;
	s = in_burst(db, g->id, date, p->burst, p->count, &burst);
	if (!s && !burst && p->lists > 0)
		s = reach(db, g->id, lo, hi, &r);
	if (!s)
		*pace = pw_flood_pace(n, p->count, burst, r, p->lists);
	return s;
}

/* ---- RESEND_IDENTICAL ---- */

struct msg_facts {
	char *msgid;
	int64_t date;
	int version, total;
	bool resend;		/* "RESEND" among the subject's tags */
	char *tags;		/* the other tags, folded and sorted */
	char *recipients;	/* To and Cc, folded and sorted */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The words of s split at sep, folded, without empty ones and without
 * drop (may be NULL), sorted and joined with a comma: a new string.
 * *had says whether drop was among them (had may be NULL).
 */
static char *fold_set(const char *s, const char *sep, const char *drop,
		      bool *had)
{
	char *low = g_ascii_strdown(s, -1);
	char **v = g_strsplit(low, sep, -1), *out;
	size_t i, n;

	for (i = n = 0; v[i]; i++) {
		g_strstrip(v[i]);
		if (drop && !strcmp(v[i], drop) && had)
			*had = true;
		if (!*v[i] || (drop && !strcmp(v[i], drop)))
			g_free(v[i]);
		else
			v[n++] = v[i];
	}
	v[n] = NULL;
	qsort(v, n, sizeof(*v), cmp_str);
	out = g_strjoinv(",", v);
	g_strfreev(v);
	g_free(low);
	return out;
}

/* Reads message id's facts into *f; *found says whether it exists. */
static enum pw_status msg_facts(struct pw_db *db, int64_t id,
				struct msg_facts *f, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT msgid, date, version, prefixes, total,"
		" coalesce(recipients, '') FROM message WHERE id = ?1");
	enum pw_status s;

	memset(f, 0, sizeof(*f));
	sqlite3_bind_int64(st, 1, id);
	s = pw_db_read(db, st, found);
	if (*found) {
		f->msgid = g_strdup(col_text(st, 0));
		f->date = sqlite3_column_int64(st, 1);
		f->version = sqlite3_column_int(st, 2);
		f->total = sqlite3_column_int(st, 4);
		/* RFC stays among the tags: an RFC made a patch is no resend. */
		f->tags = fold_set(col_text(st, 3), ",", "resend", &f->resend);
		f->recipients = fold_set(col_text(st, 5), "\n", NULL, NULL);
	}
	sqlite3_reset(st);
	return s;
}

static void msg_facts_release(struct msg_facts *f)
{
	g_free(f->msgid);
	g_free(f->tags);
	g_free(f->recipients);
}

/*
 * Whether stored message other (dated date) was filed under key, a
 * subject or body key of the patch being observed: one lookup of the
 * primary key.
 */
static enum pw_status has_key(struct pw_db *db, int64_t key, int64_t other,
			      int64_t date, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT 1 FROM flood_key WHERE bucket = ?1 AND key = ?2"
		" AND date = ?3 AND message = ?4");
	enum pw_status s;

	sqlite3_bind_int64(st, 1, pw_flood_bucket(date));
	sqlite3_bind_int64(st, 2, key);
	sqlite3_bind_int64(st, 3, date);
	sqlite3_bind_int64(st, 4, other);
	s = pw_db_read(db, st, found);
	sqlite3_reset(st);
	return s;
}

/*
 * The subject and body keys of the patch being observed (0: it has
 * none, and that side counts as matching), to tell whether a copy
 * changed its description.
 */
struct desc_keys {
	int64_t subject, body;
};

/*
 * Gives patch copy_patch (message copy) RESEND_IDENTICAL against the
 * earlier message orig, unless it has one, or the two differ in version
 * (an unchanged patch in a rerolled series) or in their other subject
 * tags (the same fix sent for each stable branch, "[PATCH 4.19 ...]" and
 * "[PATCH 5.1 ...]"; an RFC made a patch).  The observed patch is one of
 * the two, and dk holds its keys: the other one is looked up under them.
 * Which kind of copy it is, its severity and text are
 * checks/floodrules.c's, which files none for most patches of series.
 */
static enum pw_status resend_finding(struct pw_db *db, int64_t copy_patch,
				     int64_t copy, int64_t orig,
				     int64_t observed, const struct desc_keys *dk)
{
	const char *rule = pw_rule_at(PW_R_RESEND_IDENTICAL)->id;
	struct pw_resend_facts rf;
	struct msg_facts c, o;
	enum pw_resend_kind kind;
	enum pw_status s;
	bool fc, fo = false, has = false, same;
	int64_t other, other_date;
	char *text;

	memset(&o, 0, sizeof(o));
	s = msg_facts(db, copy, &c, &fc);
	if (!s && fc)
		s = msg_facts(db, orig, &o, &fo);
	if (s || !fc || !fo || c.version != o.version || strcmp(c.tags, o.tags))
		goto out;
	memset(&rf, 0, sizeof(rf));
	rf.orig_msgid = o.msgid;
	rf.orig_date = o.date;
	rf.date = c.date;
	rf.resend = c.resend;
	rf.total = c.total;
	rf.orig_total = o.total;
	rf.version = c.version;
	rf.same_recipients = !strcmp(c.recipients, o.recipients);
	other = observed == copy ? orig : copy;
	other_date = observed == copy ? o.date : c.date;
	rf.same_subject = rf.same_body = true;
	if (dk->subject &&
	    (s = has_key(db, dk->subject, other, other_date, &rf.same_subject)))
		goto out;
	if (dk->body && (s = has_key(db, dk->body, other, other_date, &same)))
		goto out;
	if (dk->body)
		rf.same_body = same;
	kind = pw_resend_kind(&rf);
	if (kind == PW_RESEND_NONE)
		goto out;
	s = has_finding(db, copy_patch, rule, &has);
	if (s || has)
		goto out;
	text = pw_resend_message(kind, &rf);
	s = add_finding(db, copy_patch, rule, pw_resend_severity(kind), text);
	g_free(text);
out:
	msg_facts_release(&c);
	msg_facts_release(&o);
	return s;
}

/*
 * Looks the patch-id key up over the whole history: the new patch is a
 * copy when an earlier one exists, and stored copies dated after it
 * (arrived out of order) become copies of it.  *any says whether any
 * other patch has the key.  RESEND_IDENTICAL switched off under p files
 * no finding.
 */
static enum pw_status resend(struct pw_db *db, const struct pw_flood_obs *o,
			     const struct pw_flood_params *p, int64_t key,
			     const struct desc_keys *dk, bool *any)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT message, date FROM flood_patch_id WHERE key = ?1"
		" ORDER BY date, message LIMIT 1");
	int64_t first = 0, first_date = 0, orig;
	enum pw_status s;
	GArray *later;
	bool row;
	guint i;

	sqlite3_bind_int64(st, 1, key);
	s = pw_db_read(db, st, any);
	if (*any) {
		first = sqlite3_column_int64(st, 0);
		first_date = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (s || !*any || !rule_on(p, PW_R_RESEND_IDENTICAL))
		return s;
	if (first_date < o->mail->date ||
	    (first_date == o->mail->date && first < o->message_id)) {
		s = resend_finding(db, o->patch_id, o->message_id, first,
				   o->message_id, dk);
		orig = first;
	} else {
		orig = o->message_id;
	}
	if (s)
		return s;
	later = g_array_new(FALSE, FALSE, sizeof(struct mem));
	st = pw_db_stmt(db,
		"SELECT k.message, m.patch FROM flood_patch_id k"
		" JOIN flood_member m ON m.message = k.message"
		" WHERE k.key = ?1 AND (k.date > ?2 OR (k.date = ?2 AND k.message > ?3))");
	sqlite3_bind_int64(st, 1, key);
	sqlite3_bind_int64(st, 2, o->mail->date);
	sqlite3_bind_int64(st, 3, o->message_id);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct mem m = { sqlite3_column_int64(st, 0),
				 sqlite3_column_int64(st, 1), false };

		g_array_append_val(later, m);
	}
	sqlite3_reset(st);
	/* Compared with the new patch only when it is their original. */
	for (i = 0; !s && i < later->len; i++) {
		const struct mem *m = &g_array_index(later, struct mem, i);

		if (orig == o->message_id)
			s = resend_finding(db, m->patch, m->message, orig,
					   o->message_id, dk);
	}
	g_array_unref(later);
	return s;
}

/* ---- SERIES_OVERSIZED ---- */

static enum pw_status oversized(struct pw_db *db, const struct pw_flood_obs *o,
				const struct pw_flood_params *p)
{
	const struct pw_subject_tags *t = &o->mail->tags;
	bool threaded = pw_mail_is_threaded(o->mail);
	sqlite3_stmt *st;
	enum pw_status s;
	char *text;

	/* Stable review and AUTOSEL series are as large as the stable
	 * process makes them: no one to tell to split them. */
	if (!pw_oversized(t->has_counter, t->total) || o->series_id <= 0 ||
	    !rule_on(p, PW_R_SERIES_OVERSIZED) ||
	    pw_subject_stable_tags(t->prefixes))
		return PW_OK;
	st = pw_db_stmt(db, "INSERT OR IGNORE INTO flood_oversized(series, message)"
			" VALUES (?1, ?2)");
	sqlite3_bind_int64(st, 1, o->series_id);
	sqlite3_bind_int64(st, 2, o->message_id);
	s = pw_db_done(db, st);
	if (s || sqlite3_changes(db->h) == 0)
		return s;
	text = pw_oversized_message(t->number, t->total, threaded);
	s = add_finding(db, o->patch_id, pw_rule_at(PW_R_SERIES_OVERSIZED)->id,
			pw_oversized_severity(threaded), text);
	g_free(text);
	return s;
}

/* ---- observing a patch ---- */

/* Records the facts fixed when group g becomes a flood at patch o. */
static enum pw_status set_subject(struct pw_db *db, const struct pw_flood_group *g,
				  const struct pw_flood_obs *o)
{
	const struct pw_mail *m = o->mail;
	sqlite3_stmt *st;
	char *subject;
	enum pw_status s;

	/* The subject without markers, as stored; as sent when that is
	 * empty. */
	subject = g_strdup(m->subject_clean && *m->subject_clean ?
			   m->subject_clean : m->subject ? m->subject : "");
	if (g->shared & PW_FLOOD_SHARED_SUBJECT) {
		char *t = pw_flood_subject_strip_subsystem(subject);

		g_free(subject);
		subject = t;
	}
	st = pw_db_stmt(db, "UPDATE flood_group SET subject = ?2 WHERE id = ?1");
	sqlite3_bind_int64(st, 1, g->id);
	pw_db_bind_text(st, 2, subject);
	s = pw_db_done(db, st);
	g_free(subject);
	return s;
}

/* Stores the digests a flood's members share, as they become known. */
static enum pw_status set_digests(struct pw_db *db, struct pw_flood_group *g,
				  unsigned matched, const struct pw_fingerprint *fp)
{
	sqlite3_stmt *st;
	unsigned want = matched & 7 & ~g->fps;

	if (!want)
		return PW_OK;
	st = pw_db_stmt(db, "UPDATE flood_group SET"
			" subject_fp = coalesce(subject_fp, ?2),"
			" body_fp = coalesce(body_fp, ?3),"
			" shape_fp = coalesce(shape_fp, ?4) WHERE id = ?1");
	sqlite3_bind_int64(st, 1, g->id);
	pw_db_bind_text(st, 2, want & PW_FLOOD_SHARED_SUBJECT ? fp->subject_nosys : NULL);
	pw_db_bind_text(st, 3, want & PW_FLOOD_SHARED_BODY ? fp->body : NULL);
	pw_db_bind_text(st, 4, want & PW_FLOOD_SHARED_SHAPE ? fp->shape : NULL);
	g->fps |= want;
	return pw_db_done(db, st);
}

/*
 * Loads the group to file a patch in, among the groups fd found: a flood
 * (the oldest), else the largest.  Groups that are gone get id 0.  *b
 * receives its index, or -1 when none is left; *matched receives the
 * fingerprints the patch shares with the groups left.
 */
static enum pw_status choose(struct pw_db *db, struct pw_flood_found *fd,
			     struct pw_flood_group *best, unsigned *matched,
			     int *b_out)
{
	struct pw_flood_group cand;
	enum pw_status s;
	int b = -1, i;
	bool found;

	*matched = 0;
	*b_out = -1;
	memset(best, 0, sizeof(*best));
	for (i = 0; i < fd->n; i++) {
		s = grp_load(db, fd->grps[i], &cand, &found);
		if (s)
			return s;
		if (!found) {
			fd->grps[i] = 0;
			continue;
		}
		*matched |= fd->bits[i];
		if (b < 0 || pw_flood_group_better(&cand, best)) {
			*best = cand;
			b = i;
		}
	}
	*b_out = b;
	return PW_OK;
}

/* Starts a new group of one, patch o, posted by sender. */
static enum pw_status grp_create(struct pw_db *db, const struct pw_flood_obs *o,
				 const char *sender, struct pw_flood_group *g)
{
	const struct pw_mail *m = o->mail;
	sqlite3_stmt *st;
	enum pw_status s;

	pw_flood_group_init(g, o->message_id, pw_mail_is_threaded(m),
			    m->tags.has_counter ? m->tags.total : 0, m->date);
	st = pw_db_stmt(db, "INSERT INTO flood_group(sender, founder, size,"
			" nthreaded, claimed_total, first_seen, last_seen)"
			" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)");
	pw_db_bind_text(st, 1, sender);
	sqlite3_bind_int64(st, 2, g->founder);
	sqlite3_bind_int(st, 3, g->size);
	sqlite3_bind_int(st, 4, g->nthreaded);
	sqlite3_bind_int(st, 5, g->claimed);
	sqlite3_bind_int64(st, 6, m->date);
	s = pw_db_done(db, st);
	g->id = sqlite3_last_insert_rowid(db->h);
	return s;
}

static enum pw_status group(struct pw_db *db, struct pw_flood_filter *f,
			    const struct pw_flood_obs *o,
			    const struct pw_flood_params *p, int64_t *flood_id)
{
	const struct pw_fingerprint *fp = o->fp;
	const char *digest[PW_FLOOD_NKEYS] = { fp->subject_nosys, fp->body, fp->shape,
				      fp->patch_id };
	int64_t keys[PW_FLOOD_NKEYS], lo, hi, gid, date;
	struct pw_flood_found fd = { .n = 0 };
	unsigned matched = 0;
	bool have[PW_FLOOD_NKEYS], any_copy = true, rewrite_all = false, fresh, found;
	/* A flood is many patches from whoever posted them. */
	const char *sender = pw_mail_poster_addr(o->mail);
	const struct pw_subject_tags *t = &o->mail->tags;
	int64_t odate = o->mail->date;
	bool threaded = pw_mail_is_threaded(o->mail);
	int64_t window = p->window > 0 ? p->window : 0;
	sqlite3_stmt *st;
	enum pw_status s = PW_OK;
	struct desc_keys dk;
	struct pw_flood_group g;
	enum pw_flood_pace pace = PW_FLOOD_PACE_NONE;
	bool was_campaign;
	char *area;
	int k, i, b, nkeys = 0, n;

	/* Mail signed by its sender and mail only claiming that sender
	 * never share a key (checks/identity.h): a forger cannot make the
	 * real sender's patches members of a flood, copies or originals. */
	char *who = pw_identity_flood_sender(sender, o->mail->auth);

	for (k = 0; k < PW_FLOOD_NKEYS; k++) {
		have[k] = digest[k][0] != '\0';
		if (have[k]) {
			keys[k] = pw_flood_key(k, who, digest[k]);
			nkeys++;
		}
	}
	g_free(who);
	if (nkeys == 0)
		return PW_OK;
	s = filter_start(db, f);
	dk.subject = have[PW_FLOOD_K_SUBJECT] ? keys[PW_FLOOD_K_SUBJECT] : 0;
	dk.body = have[PW_FLOOD_K_BODY] ? keys[PW_FLOOD_K_BODY] : 0;
	if (!s && have[PW_FLOOD_K_PATCH_ID])
		s = resend(db, o, p, keys[PW_FLOOD_K_PATCH_ID], &dk, &any_copy);
	if (s)
		return s;
	lo = o->mail->date - window;
	hi = o->mail->date + window;
	for (k = 0; k < PW_FLOOD_NKEYS; k++) {
		if (!have[k] || (k == PW_FLOOD_K_PATCH_ID && !any_copy))
			continue;
		s = find_key(db, f, k, keys[k], lo, hi, &found, &gid, &date);
		if (s)
			return s;
		if (!found)
			continue;
		pw_flood_found_add(&fd, gid, 1u << k);
		/* Arrived out of order: the earlier side may be another group. */
		if (date <= o->mail->date)
			continue;
		s = find_key(db, f, k, keys[k], lo, o->mail->date, &found, &gid, &date);
		if (s)
			return s;
		if (found)
			pw_flood_found_add(&fd, gid, 1u << k);
	}

	s = choose(db, &fd, &g, &matched, &b);
	if (s)
		return s;
	fresh = b < 0;
	if (fresh) {
		s = grp_create(db, o, sender, &g);
		if (s)
			return s;
	}
	for (i = 0; !fresh && !s && i < fd.n; i++)
		if (i != b && fd.grps[i])
			s = merge(db, &g, fd.grps[i], sender, p, &rewrite_all);
	if (s)
		return s;

	st = pw_db_stmt(db, "INSERT INTO flood_member(message, patch, grp, date,"
			" threaded) VALUES (?1, ?2, ?3, ?4, ?5)");
	sqlite3_bind_int64(st, 1, o->message_id);
	sqlite3_bind_int64(st, 2, o->patch_id);
	sqlite3_bind_int64(st, 3, g.id);
	sqlite3_bind_int64(st, 4, odate);
	sqlite3_bind_int(st, 5, threaded);
	s = pw_db_done(db, st);
	area = pw_flood_area(o->mail->diff);
	if (!s && *area) {
		st = pw_db_stmt(db, "INSERT OR REPLACE INTO flood_area(message, area)"
				" VALUES (?1, ?2)");
		sqlite3_bind_int64(st, 1, o->message_id);
		pw_db_bind_text(st, 2, area);
		s = pw_db_done(db, st);
	}
	g_free(area);
	for (k = 0; k < PW_FLOOD_K_PATCH_ID; k++)
		if (have[k])
			filter_note(f, pw_flood_bucket(o->mail->date), keys[k]);
	if (!s && have[PW_FLOOD_K_SUBJECT] && have[PW_FLOOD_K_BODY] && have[PW_FLOOD_K_SHAPE]) {
		/* The usual case, in one statement. */
		int64_t bk = pw_flood_bucket(odate);

		st = pw_db_stmt(db, "INSERT OR IGNORE INTO flood_key(key, date,"
				" message, bucket) VALUES (?1, ?4, ?5, ?6),"
				" (?2, ?4, ?5, ?6), (?3, ?4, ?5, ?6)");
		sqlite3_bind_int64(st, 1, keys[PW_FLOOD_K_SUBJECT]);
		sqlite3_bind_int64(st, 2, keys[PW_FLOOD_K_BODY]);
		sqlite3_bind_int64(st, 3, keys[PW_FLOOD_K_SHAPE]);
		sqlite3_bind_int64(st, 4, odate);
		sqlite3_bind_int64(st, 5, o->message_id);
		sqlite3_bind_int64(st, 6, bk);
		s = pw_db_done(db, st);
		have[PW_FLOOD_K_SUBJECT] = have[PW_FLOOD_K_BODY] = have[PW_FLOOD_K_SHAPE] = false;
	}
	for (k = 0; !s && k < PW_FLOOD_NKEYS; k++) {
		if (!have[k])
			continue;
		if (k == PW_FLOOD_K_PATCH_ID) {
			st = pw_db_stmt(db, "INSERT OR IGNORE INTO flood_patch_id(key,"
					" date, message) VALUES (?1, ?2, ?3)");
		} else {
			st = pw_db_stmt(db, "INSERT OR IGNORE INTO flood_key(key, date,"
					" message, bucket) VALUES (?1, ?2, ?3, ?4)");
			sqlite3_bind_int64(st, 4, pw_flood_bucket(odate));
		}
		sqlite3_bind_int64(st, 1, keys[k]);
		sqlite3_bind_int64(st, 2, odate);
		sqlite3_bind_int64(st, 3, o->message_id);
		s = pw_db_done(db, st);
	}
	if (s)
		return s;
	if (!fresh)
		pw_flood_group_add(&g, threaded, t->has_counter ? t->total : 0,
				   matched, odate);

	if (rewrite_all) {
		g.rank = MAX(g.rank, (int)pw_flood_rank(g.size, g.nthreaded,
							  g.ncovered));
		s = rewrite(db, g.id, g.rank, sender, p);
	}
	n = 0;
	if (!s && pw_flood_group_may_flood(&g, p->count))
		s = count_window(db, g.id, lo, hi, p->count, &n);
	if (!s && !g.detected)
		s = pace_of(db, &g, n, odate, lo, hi, p, &pace);
	was_campaign = g.campaign_at != 0;
	if (!s && g.detected) {
		struct mem m = { o->message_id, o->patch_id, threaded };

		s = attach(db, &g, &m, 1, sender, p);
	} else if (!s && pace != PW_FLOOD_PACE_BURST &&
		   (pace == PW_FLOOD_PACE_CAMPAIGN || was_campaign)) {
		/* Slower than a burst: noted, no flood (checks/floodrules.h). */
		if (!was_campaign)
			g.campaign_at = odate;
		s = campaign(db, &g, o->patch_id, !was_campaign || fd.n > 1,
			     sender, p);
	} else if (!s && pace == PW_FLOOD_PACE_BURST &&
		   pw_flood_group_promote(&g, n, p->count, odate)) {
		GArray *all = NULL;

		/* A campaign that bursts is a flood from now on. */
		g.campaign_at = 0;
		s = set_subject(db, &g, o);
		if (!s)
			s = grp_members(db, g.id, &all);
		if (!s)
			s = attach(db, &g, &g_array_index(all, struct mem, 0),
				   all->len, sender, p);
		if (all)
			g_array_unref(all);
	}
	if (!s && g.detected)
		s = set_digests(db, &g, matched, fp);
	/* A new group of one is stored as inserted, unless it floods. */
	if (!s && (!fresh || g.detected))
		s = grp_save(db, &g);
	if (!s && g.detected)
		*flood_id = g.id;
	return s;
}

enum pw_status pw_db_flood_observe(struct pw_db *db,
				   struct pw_flood_filter *filter,
				   const struct pw_flood_obs *o,
				   const struct pw_flood_params *p,
				   int64_t *flood_id)
{
	enum pw_status s;

	*flood_id = 0;
	s = pw_db_begin(db);
	if (s)
		return s;
	/* Mail a machine sent is stored, never counted against a person:
	 * it is no member of a group, no copy, no original. */
	if (!o->mail->automated)
		s = oversized(db, o, p);
	if (!s && !o->mail->automated && o->fp && o->mail->from_addr &&
	    *o->mail->from_addr && o->patch_id > 0)
		s = group(db, filter, o, p, flood_id);
	if (s) {
		pw_db_rollback(db);
		return s;
	}
	return pw_db_commit(db);
}

/* ---- what the reply stage and the queries read ---- */

enum pw_status pw_db_flood_of_message(struct pw_db *db, int64_t message_id,
				      bool *found, int64_t *flood_id)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT g.id FROM flood_member m JOIN flood_group g ON g.id = m.grp"
		" WHERE m.message = ?1 AND g.detected_at IS NOT NULL");
	enum pw_status s;

	sqlite3_bind_int64(st, 1, message_id);
	s = pw_db_read(db, st, found);
	if (*found && flood_id)
		*flood_id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return s;
}

void pw_db_flood_info_release(struct pw_flood_info *f)
{
	if (!f)
		return;
	g_free(f->key);
	g_free(f->sender_addr);
	g_free(f->sender_name);
	g_free(f->subject);
	g_strfreev(f->lists);
	g_free(f->subject_fp);
	g_free(f->body_fp);
	g_free(f->shape_fp);
	g_free(f->first_msgid);
	g_strfreev(f->first_refs);
	memset(f, 0, sizeof(*f));
}

static char **split_refs(const char *refs)
{
	char **v = g_strsplit(refs ? refs : "", " ", -1);
	size_t i, j;

	for (i = j = 0; v[i]; i++) {
		if (*v[i])
			v[j++] = v[i];
		else
			g_free(v[i]);
	}
	v[j] = NULL;
	return v;
}

enum pw_status pw_db_flood_info(struct pw_db *db, int64_t flood_id,
				struct pw_flood_info *f)
{
	sqlite3_stmt *st;
	GPtrArray *lists;
	GHashTable *seen;
	enum pw_status s;
	bool row;
	int rc, rank;

	memset(f, 0, sizeof(*f));
	s = pw_db_begin(db);
	if (s)
		return s;
	st = pw_db_stmt(db,
		"SELECT g.sender, coalesce(m.msgid, ''),"
		" coalesce(ms.name, m.from_name, ''),"
		" coalesce(g.subject, ''), g.size, g.claimed_total, g.first_seen,"
		" g.last_seen, g.detected_at, coalesce(g.reported_at, 0), g.rank,"
		" g.nthreaded, g.shared, coalesce(g.subject_fp, ''),"
		" coalesce(g.body_fp, ''), coalesce(g.shape_fp, '')"
		" FROM flood_group g LEFT JOIN message m ON m.id = g.founder"
		/* The group is the sender's: greet the sender by name. */
		" LEFT JOIN message_sender ms ON ms.message = g.founder"
		" WHERE g.id = ?1 AND g.detected_at IS NOT NULL");
	sqlite3_bind_int64(st, 1, flood_id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		s = rc == SQLITE_DONE ? PW_ERR_INPUT : pw_db_status(db, rc);
		sqlite3_reset(st);
		goto out;
	}
	f->id = flood_id;
	f->sender_addr = g_strdup(col_text(st, 0));
	f->key = g_strdup(col_text(st, 1));
	f->sender_name = g_strdup(col_text(st, 2));
	f->subject = g_strdup(col_text(st, 3));
	f->size = sqlite3_column_int(st, 4);
	f->claimed_total = sqlite3_column_int(st, 5);
	f->first_seen = sqlite3_column_int64(st, 6);
	f->last_seen = sqlite3_column_int64(st, 7);
	f->detected_at = sqlite3_column_int64(st, 8);
	f->reported_at = sqlite3_column_int64(st, 9);
	rank = sqlite3_column_int(st, 10);
	f->nthreaded = sqlite3_column_int(st, 11);
	f->shared = (unsigned)sqlite3_column_int(st, 12);
	f->subject_fp = g_strdup(col_text(st, 13));
	f->body_fp = g_strdup(col_text(st, 14));
	f->shape_fp = g_strdup(col_text(st, 15));
	f->rule = rule_id(rank);
	f->severity = severity_of(rank);
	f->threaded = rank >= 0 && rank <= 1;
	sqlite3_reset(st);

	st = pw_db_stmt(db,
		"SELECT fm.message, m.msgid, m.refs FROM flood_member fm"
		" JOIN message m ON m.id = fm.message WHERE fm.grp = ?1"
		" ORDER BY fm.date, fm.message LIMIT 1");
	sqlite3_bind_int64(st, 1, flood_id);
	s = pw_db_read(db, st, &row);
	if (row) {
		f->first_message = sqlite3_column_int64(st, 0);
		f->first_msgid = g_strdup(col_text(st, 1));
		f->first_refs = split_refs((const char *)sqlite3_column_text(st, 2));
	} else {
		f->first_msgid = g_strdup("");
		f->first_refs = split_refs(NULL);
	}
	sqlite3_reset(st);
	if (s)
		goto out;

	lists = g_ptr_array_new();
	st = pw_db_stmt(db,
		"SELECT DISTINCT l.name FROM flood_member fm"
		" JOIN message_list ml ON ml.message = fm.message"
		" JOIN list l ON l.id = ml.list WHERE fm.grp = ?1 ORDER BY l.name");
	sqlite3_bind_int64(st, 1, flood_id);
	while (!(s = pw_db_read(db, st, &row)) && row)
		g_ptr_array_add(lists, g_strdup(col_text(st, 0)));
	sqlite3_reset(st);
	g_ptr_array_add(lists, NULL);
	f->lists = (char **)g_ptr_array_free(lists, FALSE);
	if (s)
		goto out;

	seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	st = pw_db_stmt(db,
		"SELECT m.recipients FROM flood_member fm"
		" JOIN message m ON m.id = fm.message"
		" WHERE fm.grp = ?1 AND m.recipients IS NOT NULL");
	sqlite3_bind_int64(st, 1, flood_id);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		char **v = g_strsplit(col_text(st, 0), "\n", -1);
		char **a;

		for (a = v; *a; a++)
			if (**a)
				g_hash_table_add(seen, g_ascii_strdown(*a, -1));
		g_strfreev(v);
	}
	sqlite3_reset(st);
	f->recipients = (int)g_hash_table_size(seen);
	g_hash_table_destroy(seen);
	if (!s) {
		enum pw_auth auth;

		s = pw_db_identity_of_flood(db, flood_id, &auth);
		f->unauthenticated = auth == PW_AUTH_LOOKALIKE;
	}
out:
	if (s) {
		/* A read: ending it must not fail a caller's writes. */
		pw_db_commit(db);
		pw_db_flood_info_release(f);
		return s;
	}
	s = pw_db_commit(db);	/* fails when a read above failed */
	if (s)
		pw_db_flood_info_release(f);
	return s;
}

enum pw_status pw_db_flood_kind(struct pw_db *db, int64_t flood_id, int *rule,
				enum pw_severity *severity, bool *reported)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT rank, reported_at IS NOT NULL FROM flood_group"
		" WHERE id = ?1 AND detected_at IS NOT NULL");
	enum pw_status s;
	bool found;

	sqlite3_bind_int64(st, 1, flood_id);
	s = pw_db_read(db, st, &found);
	if (found) {
		int rank = sqlite3_column_int(st, 0);

		if (rule)
			*rule = rule_of(rank);
		if (severity)
			*severity = severity_of(rank);
		if (reported)
			*reported = sqlite3_column_int(st, 1);
	}
	sqlite3_reset(st);
	return s ? s : found ? PW_OK : PW_ERR_INPUT;
}

enum pw_status pw_db_flood_mark_reported(struct pw_db *db, int64_t flood_id,
					 bool *already)
{
	sqlite3_stmt *st;
	enum pw_status s;
	bool exists;

	if (already)
		*already = false;
	st = pw_db_stmt(db, "SELECT reported_at IS NOT NULL FROM flood_group"
			" WHERE id = ?1 AND detected_at IS NOT NULL");
	sqlite3_bind_int64(st, 1, flood_id);
	s = pw_db_read(db, st, &exists);
	if (exists && already)
		*already = sqlite3_column_int(st, 0);
	sqlite3_reset(st);
	if (s)
		return s;
	if (!exists)
		return PW_ERR_INPUT;
	st = pw_db_stmt(db, "UPDATE flood_group SET reported_at = ?2"
			" WHERE id = ?1 AND reported_at IS NULL");
	sqlite3_bind_int64(st, 1, flood_id);
	sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
	s = pw_db_done(db, st);
	return s;
}

/* The ids of the first column of st, stepped to its end, into *out. */
static enum pw_status ids(struct pw_db *db, sqlite3_stmt *st, GArray **out)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(int64_t));
	enum pw_status s;
	bool row;

	while (!(s = pw_db_read(db, st, &row)) && row) {
		int64_t id = sqlite3_column_int64(st, 0);

		g_array_append_val(a, id);
	}
	sqlite3_reset(st);
	if (s) {
		g_array_unref(a);
		a = NULL;
	}
	*out = a;
	return s;
}

enum pw_status pw_db_flood_members(struct pw_db *db, int64_t flood_id,
				   GArray **out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT fm.message FROM flood_member fm"
		" JOIN flood_group g ON g.id = fm.grp"
		" WHERE fm.grp = ?1 AND g.detected_at IS NOT NULL"
		" ORDER BY fm.date, fm.message");

	sqlite3_bind_int64(st, 1, flood_id);
	return ids(db, st, out);
}

static void campaign_free(gpointer p)
{
	struct pw_flood_campaign *c = p;

	g_free(c->sender);
	g_free(c->subject);
	g_strfreev(c->members);
	g_free(c);
}

enum pw_status pw_db_flood_campaigns(struct pw_db *db, int64_t since,
				     int limit, GPtrArray **out)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(campaign_free);
	sqlite3_stmt *st;
	enum pw_status s;
	bool row;
	guint i;

	*out = NULL;
	s = pw_db_begin(db);
	if (s)
		goto out;
	st = pw_db_stmt(db,
		"SELECT g.id, g.sender, coalesce(m.subject_clean, ''), g.size,"
		" g.first_seen, g.last_seen FROM flood_campaign c"
		" JOIN flood_group g ON g.id = c.grp"
		" LEFT JOIN message m ON m.id = g.founder"
		" WHERE g.detected_at IS NULL"
		" AND g.last_seen >= ?1 ORDER BY g.last_seen DESC, g.id DESC"
		" LIMIT ?2");
	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : -1);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		struct pw_flood_campaign *c = g_new0(struct pw_flood_campaign, 1);

		c->id = sqlite3_column_int64(st, 0);
		c->sender = g_strdup(col_text(st, 1));
		c->subject = g_strdup(col_text(st, 2));
		c->size = sqlite3_column_int(st, 3);
		c->first = sqlite3_column_int64(st, 4);
		c->last = sqlite3_column_int64(st, 5);
		g_ptr_array_add(a, c);
	}
	sqlite3_reset(st);
	for (i = 0; !s && i < a->len; i++) {
		struct pw_flood_campaign *c = a->pdata[i];
		GPtrArray *ms = g_ptr_array_new();

		st = pw_db_stmt(db,
			"SELECT m.msgid FROM flood_member fm"
			" JOIN message m ON m.id = fm.message WHERE fm.grp = ?1"
			" ORDER BY fm.date, fm.message");
		sqlite3_bind_int64(st, 1, c->id);
		while (!(s = pw_db_read(db, st, &row)) && row)
			g_ptr_array_add(ms, g_strdup(col_text(st, 0)));
		sqlite3_reset(st);
		g_ptr_array_add(ms, NULL);
		c->members = (char **)g_ptr_array_free(ms, FALSE);
	}
	if (s)
		/* A read: ending it must not fail a caller's writes. */
		pw_db_commit(db);
	else
		s = pw_db_commit(db);
out:
	if (s)
		g_ptr_array_unref(a);
	else
		*out = a;
	return s;
}
