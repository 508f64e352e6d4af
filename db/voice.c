/*
 * patchwarden: what one voice per series version keeps (see
 * db/voice.h).
 */
#include <string.h>

#include "db/db-private.h"
#include "db/voice.h"

/* The states of a reply that has said what it says. */
#define LIVE "o.state IN ('pending','sending','sent')"

enum pw_status pw_db_voice_series(struct pw_db *db, int64_t series_id,
				  struct pw_voice_series *out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT s.total, coalesce(s.cover, 0), s.version,"
		" (SELECT count(*) FROM patch p WHERE p.series = s.id),"
		" coalesce((SELECT p.message FROM patch p WHERE p.series = s.id"
		"  ORDER BY p.number, p.id LIMIT 1), 0)"
		" FROM series s WHERE s.id = ?1");
	enum pw_status s;
	bool row;

	memset(out, 0, sizeof(*out));
	sqlite3_bind_int64(st, 1, series_id);
	s = pw_db_read(db, st, &row);
	if (!s && row) {
		out->total = sqlite3_column_int(st, 0);
		out->cover = sqlite3_column_int64(st, 1);
		out->version = sqlite3_column_int(st, 2);
		out->have = sqlite3_column_int(st, 3);
		out->first = sqlite3_column_int64(st, 4);
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_voice_members(struct pw_db *db, int64_t series_id,
				   GArray *ids)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT message FROM patch WHERE series = ?1"
		" ORDER BY number, id");

	sqlite3_bind_int64(st, 1, series_id);
	return pw_db_read_ids(db, st, ids);
}

enum pw_status pw_db_voice_wait(struct pw_db *db, int64_t series_id,
				int64_t now)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT OR IGNORE INTO reply_wait (series, since) VALUES (?1, ?2)");

	sqlite3_bind_int64(st, 1, series_id);
	sqlite3_bind_int64(st, 2, now);
	return pw_db_write(db, st, NULL);
}

enum pw_status pw_db_voice_unwait(struct pw_db *db, int64_t series_id)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"DELETE FROM reply_wait WHERE series = ?1");

	sqlite3_bind_int64(st, 1, series_id);
	return pw_db_write(db, st, NULL);
}

enum pw_status pw_db_voice_waiting(struct pw_db *db, int64_t before,
				   GArray *ids)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT series FROM reply_wait WHERE since < ?1"
		" ORDER BY since, series");

	sqlite3_bind_int64(st, 1, before);
	return pw_db_read_ids(db, st, ids);
}

enum pw_status pw_db_voice_reported(struct pw_db *db,
				    const struct pw_voice_key *k, bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT 1 FROM reply_item r JOIN outbox o ON o.id = r.outbox"
		" WHERE r.author = ?1 AND r.rule = ?2 AND r.file = ?3"
		" AND r.added = ?4 AND " LIVE " LIMIT 1");
	enum pw_status s;

	pw_db_bind_text(st, 1, k->author);
	pw_db_bind_text(st, 2, k->rule);
	pw_db_bind_text(st, 3, k->file ? k->file : "");
	pw_db_bind_text(st, 4, k->added ? k->added : "");
	s = pw_db_read(db, st, found);
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_voice_record(struct pw_db *db, int64_t outbox,
				  int64_t message, const struct pw_voice_key *k)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO reply_item (outbox, message, author, rule, file,"
		" added) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");

	sqlite3_bind_int64(st, 1, outbox);
	sqlite3_bind_int64(st, 2, message);
	pw_db_bind_text(st, 3, k->author);
	pw_db_bind_text(st, 4, k->rule);
	pw_db_bind_text(st, 5, k->file ? k->file : "");
	pw_db_bind_text(st, 6, k->added ? k->added : "");
	return pw_db_write(db, st, NULL);
}

enum pw_status pw_db_voice_row_told(struct pw_db *db, int64_t outbox,
				    int64_t message,
				    const struct pw_voice_key *k, bool *found,
				    bool *any)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT EXISTS (SELECT 1 FROM reply_item WHERE outbox = ?1"
		"  AND message = ?2 AND rule = ?3 AND file = ?4 AND added = ?5),"
		" EXISTS (SELECT 1 FROM reply_item WHERE outbox = ?1)");
	enum pw_status s;
	bool row;

	*found = false;
	sqlite3_bind_int64(st, 1, outbox);
	sqlite3_bind_int64(st, 2, message);
	pw_db_bind_text(st, 3, k->rule);
	pw_db_bind_text(st, 4, k->file ? k->file : "");
	pw_db_bind_text(st, 5, k->added ? k->added : "");
	s = pw_db_read(db, st, &row);
	if (!s && row) {
		*found = sqlite3_column_int(st, 0) != 0;
		if (any)
			*any = sqlite3_column_int(st, 1) != 0;
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_voice_copy_answered(struct pw_db *db, int64_t message,
					 bool *found)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT 1 FROM flood_patch_id a"
		" JOIN flood_patch_id b ON b.key = a.key AND b.message <> a.message"
		" JOIN reply_item r ON r.message = b.message"
		" JOIN outbox o ON o.id = r.outbox"
		" WHERE a.message = ?1 AND " LIVE " LIMIT 1");
	enum pw_status s;

	sqlite3_bind_int64(st, 1, message);
	s = pw_db_read(db, st, found);
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_voice_series_reported(struct pw_db *db, int64_t series_id,
					   GPtrArray *out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT DISTINCT r.rule, r.file, r.added FROM reply_item r"
		" JOIN patch p ON p.message = r.message"
		" JOIN outbox o ON o.id = r.outbox"
		" WHERE p.series = ?1 AND " LIVE " ORDER BY 1, 2, 3");
	enum pw_status s;
	bool row;

	sqlite3_bind_int64(st, 1, series_id);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		g_ptr_array_add(out, pw_db_col_dup(st, 0));
		g_ptr_array_add(out, pw_db_col_dup(st, 1));
		g_ptr_array_add(out, pw_db_col_dup(st, 2));
	}
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_voice_history(struct pw_db *db, int64_t since,
				   int64_t until, const char *list,
				   GArray *ids, int64_t *newest)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT max(m.date) FROM message m WHERE ?1 IS NULL OR EXISTS"
		" (SELECT 1 FROM message_list ml JOIN list l ON l.id = ml.list"
		"  WHERE ml.message = m.id AND l.name = ?1)");
	enum pw_status s;

	pw_db_bind_text(st, 1, list);
	s = pw_db_one_int64(db, st, newest);
	if (s)
		return s;
	st = pw_db_stmt(db,
		"SELECT m.id FROM message m WHERE m.date BETWEEN ?1 AND ?2"
		" AND (?3 IS NULL OR EXISTS"
		" (SELECT 1 FROM message_list ml JOIN list l ON l.id = ml.list"
		"  WHERE ml.message = m.id AND l.name = ?3))"
		" ORDER BY m.date, m.id");
	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_int64(st, 2, until);
	pw_db_bind_text(st, 3, list);
	return pw_db_read_ids(db, st, ids);
}

void pw_voice_key_of(const struct pw_finding *f, const char *author,
		     struct pw_voice_key *k)
{
	k->author = author;
	k->rule = f->rule ? f->rule : "";
	k->file = f->file ? f->file : "";
	/* A finding that quotes no line is told apart by what it says. */
	k->added = f->added_line ? f->added_line :
		f->message ? f->message : "";
}
