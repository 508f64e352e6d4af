/*
 * patchwarden: subscriptions (see db/subscription.h).
 */
#include <string.h>
#include <time.h>

#include "db/db-private.h"
#include "db/subscription.h"

void pw_subscription_release(struct pw_subscription *s)
{
	if (!s)
		return;
	g_free(s->name);
	g_free(s->url);
	g_free(s->kind);
	g_free(s->list);
	g_free(s->last_error);
	memset(s, 0, sizeof(*s));
}

void pw_subscription_free(struct pw_subscription *s)
{
	pw_subscription_release(s);
	g_free(s);
}

#define SUB_COLUMNS \
	"id, name, url, kind, list, interval, paused, backfilled," \
	" created_at, last_poll, last_ok, next_poll, failures, last_error," \
	" messages, (SELECT count(*) FROM ingest_error e" \
	"  WHERE e.source = subscription.url)"

static void sub_read(sqlite3_stmt *st, struct pw_subscription *s)
{
	s->id = sqlite3_column_int64(st, 0);
	s->name = pw_db_col_dup(st, 1);
	s->url = pw_db_col_dup(st, 2);
	s->kind = pw_db_col_dup(st, 3);
	s->list = pw_db_col_dup(st, 4);
	s->interval = sqlite3_column_int64(st, 5);
	s->paused = sqlite3_column_int(st, 6);
	s->backfilled = sqlite3_column_int(st, 7);
	s->created_at = sqlite3_column_int64(st, 8);
	s->last_poll = sqlite3_column_int64(st, 9);
	s->last_ok = sqlite3_column_int64(st, 10);
	s->next_poll = sqlite3_column_int64(st, 11);
	s->failures = sqlite3_column_int(st, 12);
	s->last_error = pw_db_col_dup(st, 13);
	s->messages = sqlite3_column_int64(st, 14);
	s->unreadable = sqlite3_column_int64(st, 15);
}

enum pw_status pw_db_subscription_add(struct pw_db *db,
				      const struct pw_subscription *s,
				      int64_t *id)
{
	sqlite3_stmt *st;
	enum pw_status r;
	bool found;

	st = pw_db_stmt(db, "SELECT 1 FROM subscription WHERE name = ?1");
	pw_db_bind_text(st, 1, s->name);
	r = pw_db_read(db, st, &found);
	sqlite3_reset(st);
	if (r)
		return r;
	if (found)
		return PW_ERR_INPUT;
	st = pw_db_stmt(db,
		"INSERT INTO subscription(name, url, kind, list, interval,"
		" created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
	pw_db_bind_text(st, 1, s->name);
	pw_db_bind_text(st, 2, s->url);
	pw_db_bind_text(st, 3, s->kind);
	pw_db_bind_text(st, 4, s->list);
	sqlite3_bind_int64(st, 5, s->interval);
	sqlite3_bind_int64(st, 6, (int64_t)time(NULL));
	r = pw_db_done(db, st);
	if (!r && id)
		*id = sqlite3_last_insert_rowid(db->h);
	return r;
}

/* Reads the row st (bound) selects into *out when *found. */
static enum pw_status sub_get(struct pw_db *db, sqlite3_stmt *st,
			      struct pw_subscription *out, bool *found)
{
	enum pw_status r = pw_db_read(db, st, found);
	if (*found)
		sub_read(st, out);
	sqlite3_reset(st);
	return r;
}

enum pw_status pw_db_subscription_get(struct pw_db *db, const char *name,
				      struct pw_subscription *out, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT " SUB_COLUMNS
				      " FROM subscription WHERE name = ?1");

	memset(out, 0, sizeof(*out));
	pw_db_bind_text(st, 1, name);
	return sub_get(db, st, out, found);
}

enum pw_status pw_db_subscription_get_id(struct pw_db *db, int64_t id,
					 struct pw_subscription *out, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT " SUB_COLUMNS
				      " FROM subscription WHERE id = ?1");

	memset(out, 0, sizeof(*out));
	sqlite3_bind_int64(st, 1, id);
	return sub_get(db, st, out, found);
}

enum pw_status pw_db_subscription_list(struct pw_db *db, GPtrArray **out)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT " SUB_COLUMNS
				      " FROM subscription ORDER BY name");
	enum pw_status r;
	bool row;

	*out = g_ptr_array_new_with_free_func((GDestroyNotify)pw_subscription_free);
	while (!(r = pw_db_read(db, st, &row)) && row) {
		struct pw_subscription *s = g_new0(struct pw_subscription, 1);

		sub_read(st, s);
		g_ptr_array_add(*out, s);
	}
	sqlite3_reset(st);
	return r;
}

enum pw_status pw_db_subscription_remove(struct pw_db *db, const char *name,
					 bool *found)
{
	struct pw_subscription s;
	sqlite3_stmt *st;
	enum pw_status r;
	char *prefix;

	r = pw_db_subscription_get(db, name, &s, found);
	if (r || !*found)
		return r;
	/* Its cursors: "sub:ID:" and anything after it. */
	prefix = g_strdup_printf("sub:%" G_GINT64_FORMAT ":", s.id);
	st = pw_db_stmt(db, "DELETE FROM cursor WHERE substr(source, 1,"
			" length(?1)) = ?1");
	pw_db_bind_text(st, 1, prefix);
	r = pw_db_done(db, st);
	g_free(prefix);
	if (!r) {
		st = pw_db_stmt(db, "DELETE FROM subscription WHERE id = ?1");
		sqlite3_bind_int64(st, 1, s.id);
		r = pw_db_done(db, st);
	}
	pw_subscription_release(&s);
	return r;
}

enum pw_status pw_db_subscription_pause(struct pw_db *db, const char *name,
					bool paused, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db, "UPDATE subscription SET paused = ?2,"
				      " next_poll = 0 WHERE name = ?1");
	enum pw_status r;

	pw_db_bind_text(st, 1, name);
	sqlite3_bind_int(st, 2, paused);
	r = pw_db_done(db, st);
	*found = !r && sqlite3_changes(db->h) > 0;
	return r;
}

enum pw_status pw_db_subscription_backfilled(struct pw_db *db, int64_t id)
{
	sqlite3_stmt *st = pw_db_stmt(db, "UPDATE subscription SET"
				      " backfilled = 1 WHERE id = ?1");

	sqlite3_bind_int64(st, 1, id);
	return pw_db_done(db, st);
}

enum pw_status pw_db_subscription_polled(struct pw_db *db, int64_t id,
					 int64_t now, const char *error,
					 int64_t next_poll)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE subscription SET last_poll = ?2,"
		" last_ok = CASE WHEN ?3 IS NULL THEN ?2 ELSE last_ok END,"
		" failures = CASE WHEN ?3 IS NULL THEN 0 ELSE failures + 1 END,"
		" last_error = ?3, next_poll = ?4 WHERE id = ?1");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	pw_db_bind_text(st, 3, error);
	sqlite3_bind_int64(st, 4, next_poll);
	return pw_db_done(db, st);
}

enum pw_status pw_db_subscription_brought(struct pw_db *db, int64_t id,
					  int64_t n)
{
	sqlite3_stmt *st = pw_db_stmt(db, "UPDATE subscription SET"
				      " messages = messages + ?2 WHERE id = ?1");

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, n);
	return pw_db_done(db, st);
}

enum pw_status pw_db_message_removed(struct pw_db *db, const char *msgid,
				     const char *source, bool *found)
{
	sqlite3_stmt *st;
	enum pw_status r;
	int64_t id;

	r = pw_db_message_find(db, msgid, &id, found);
	if (r || !*found)
		return r;
	st = pw_db_stmt(db, "INSERT INTO message_removed(message, at, source)"
			" VALUES (?1, ?2, ?3) ON CONFLICT(message) DO NOTHING");
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
	pw_db_bind_text(st, 3, source);
	return pw_db_done(db, st);
}

enum pw_status pw_db_message_archive(struct pw_db *db, int64_t id,
				     char **source, char **blob)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT source, git_blob FROM message"
				      " WHERE id = ?1 AND git_blob IS NOT NULL");
	enum pw_status r;
	bool found;

	*source = *blob = NULL;
	sqlite3_bind_int64(st, 1, id);
	r = pw_db_read(db, st, &found);
	if (found) {
		*source = pw_db_col_dup(st, 0);
		*blob = pw_db_col_dup(st, 1);
	}
	sqlite3_reset(st);
	return r;
}
