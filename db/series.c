/*
 * patchwarden: series grouping (see db/series.h).
 */
#include <string.h>

#include "db/db-private.h"
#include "db/series.h"

/*
 * The reads below put the series they find in *id, 0 for none, and
 * return an error when they could not read.
 */
static enum pw_status series_by_ref(struct pw_db *db, const char *msgid,
				    int64_t *id)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT series FROM series_ref WHERE msgid = ?1");

	pw_db_bind_text(st, 1, msgid);
	return pw_db_one_int64(db, st, id);
}

/* Own Message-ID first, then the nearest reference outwards. */
static enum pw_status find_by_references(struct pw_db *db,
					 const struct pw_mail *m,
					 int64_t *id)
{
	enum pw_status s;
	size_t n = 0;

	s = series_by_ref(db, m->msgid, id);
	if (s || *id)
		return s;
	if (m->in_reply_to) {
		s = series_by_ref(db, m->in_reply_to, id);
		if (s || *id)
			return s;
	}
	while (m->references && m->references[n])
		n++;
	while (n-- > 0) {
		s = series_by_ref(db, m->references[n], id);
		if (s || *id)
			return s;
	}
	return PW_OK;
}

/* The newest series of the same sender, version and total in the window. */
static enum pw_status find_by_markers(struct pw_db *db,
				      const struct pw_mail *m,
				      int64_t *id)
{
	sqlite3_stmt *st;
	enum pw_status s;
	bool found;

	*id = 0;
	/* A series is its poster's (the sender of a forwarded patch). */
	if (m->tags.total <= 0 || !*pw_mail_poster_addr(m))
		return PW_OK;
	/* Signed mail numbers itself into series signed mail started,
	 * other mail into the others (same_sender()). */
	st = pw_db_stmt(db,
		"SELECT id FROM series WHERE from_addr = ?1 AND version = ?2"
		" AND total = ?3 AND first_date BETWEEN ?4 AND ?5"
		" AND EXISTS (SELECT 1 FROM series_signed ss"
		"  WHERE ss.series = series.id) = ?6"
		" ORDER BY first_date DESC, id DESC LIMIT 1");
	pw_db_bind_text(st, 1, pw_mail_poster_addr(m));
	sqlite3_bind_int(st, 2, m->tags.version);
	sqlite3_bind_int(st, 3, m->tags.total);
	sqlite3_bind_int64(st, 4, m->date - PW_SERIES_WINDOW);
	sqlite3_bind_int64(st, 5, m->date + PW_SERIES_WINDOW);
	sqlite3_bind_int(st, 6, m->auth == PW_AUTH_DKIM);
	s = pw_db_read(db, st, &found);
	if (found)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return s;
}

/*
 * Whether the series can take this message (same total, slot free):
 * 0 in *id when it cannot.
 */
static enum pw_status fits(struct pw_db *db, const struct pw_mail *m,
			   int64_t *id)
{
	bool cover = m->kind == PW_MAIL_COVER;
	sqlite3_stmt *st;
	enum pw_status s;
	bool found, ok = false;

	if (!*id)
		return PW_OK;
	st = pw_db_stmt(db, "SELECT total, cover IS NOT NULL FROM series WHERE id = ?1");
	sqlite3_bind_int64(st, 1, *id);
	s = pw_db_read(db, st, &found);
	if (found) {
		int total = sqlite3_column_int(st, 0);
		bool has_cover = sqlite3_column_int(st, 1);

		ok = total == m->tags.total && !(cover && has_cover);
	}
	sqlite3_reset(st);
	if (!s && ok && !cover) {
		st = pw_db_stmt(db, "SELECT 1 FROM patch WHERE series = ?1"
				" AND number = ?2");
		sqlite3_bind_int64(st, 1, *id);
		sqlite3_bind_int(st, 2, m->tags.number > 0 ? m->tags.number : 1);
		s = pw_db_read(db, st, &found);
		ok = !found;
		sqlite3_reset(st);
	}
	if (s || !ok)
		*id = 0;
	return s;
}

static enum pw_status add_ref(struct pw_db *db, const char *msgid, int64_t series)
{
	sqlite3_stmt *st;

	if (!msgid || !*msgid)
		return PW_OK;
	st = pw_db_stmt(db, "INSERT OR IGNORE INTO series_ref(msgid, series)"
			" VALUES (?1, ?2)");
	pw_db_bind_text(st, 1, msgid);
	sqlite3_bind_int64(st, 2, series);
	return pw_db_done(db, st);
}

static enum pw_status register_refs(struct pw_db *db, const struct pw_mail *m,
				    int64_t series)
{
	enum pw_status s = add_ref(db, m->msgid, series);
	size_t i;

	if (!s)
		s = add_ref(db, m->in_reply_to, series);
	for (i = 0; !s && m->references && m->references[i]; i++)
		s = add_ref(db, m->references[i], series);
	return s;
}

/*
 * Whether series *id was sent as m claims to be (0 in *id when not): a
 * message DKIM-signed by its sender joins only a series that signed
 * mail of that same address started (series_signed, series.from_addr),
 * and any other only one that unsigned mail started
 * (checks/identity.h), so that mail merely claiming an address, or
 * signed by another domain, threaded under its cover or numbered into
 * its series, is never part of that address's series.  Unsigned
 * threads join as they always did, whoever started them.
 */
static enum pw_status same_sender(struct pw_db *db, const struct pw_mail *m,
				  int64_t *id)
{
	bool is_signed = m->auth == PW_AUTH_DKIM;
	sqlite3_stmt *st;
	enum pw_status s;
	bool found;

	if (!*id)
		return PW_OK;
	st = pw_db_stmt(db, "SELECT EXISTS (SELECT 1 FROM series_signed"
			"  WHERE series = ?1) = ?2"
			" AND (NOT ?2 OR from_addr = ?3)"
			" FROM series WHERE id = ?1");
	sqlite3_bind_int64(st, 1, *id);
	sqlite3_bind_int(st, 2, is_signed);
	pw_db_bind_text(st, 3, pw_mail_poster_addr(m));
	s = pw_db_read(db, st, &found);
	if (!s && !(found && sqlite3_column_int(st, 0)))
		*id = 0;
	sqlite3_reset(st);
	return s;
}

enum pw_status pw_db_series_assign(struct pw_db *db, int64_t message_id,
				   int64_t patch_id,
				   const struct pw_mail *m,
				   int64_t *series_id)
{
	const char *name = m->subject_clean ? m->subject_clean : "";
	int number = m->tags.number > 0 ? m->tags.number : 1;
	bool cover = m->kind == PW_MAIL_COVER;
	sqlite3_stmt *st;
	enum pw_status s;
	int64_t id;
	int rc;

	s = find_by_references(db, m, &id);
	if (!s)
		s = fits(db, m, &id);
	if (!s)
		s = same_sender(db, m, &id);
	if (!s && !id) {
		/* Its query asks what same_sender() does: one sender,
		 * signed or not as the series' first mail was. */
		s = find_by_markers(db, m, &id);
		if (!s)
			s = fits(db, m, &id);
	}
	if (s)
		return s;
	if (!id) {
		st = pw_db_stmt(db, "INSERT INTO series(name, from_addr, version,"
				" total, first_date, last_date)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?5)");
		pw_db_bind_text(st, 1, name);
		pw_db_bind_text(st, 2, pw_mail_poster_addr(m));
		sqlite3_bind_int(st, 3, m->tags.version);
		sqlite3_bind_int(st, 4, m->tags.total);
		sqlite3_bind_int64(st, 5, m->date);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return pw_db_status(db, rc);
		id = sqlite3_last_insert_rowid(db->h);
		if (m->auth == PW_AUTH_DKIM) {
			st = pw_db_stmt(db, "INSERT INTO series_signed(series)"
					" VALUES (?1)");
			sqlite3_bind_int64(st, 1, id);
			s = pw_db_done(db, st);
			if (s)
				return s;
		}
	}
	if (cover) {
		st = pw_db_stmt(db, "UPDATE series SET cover = ?2, name = ?3,"
				" first_date = min(first_date, ?4),"
				" last_date = max(last_date, ?4) WHERE id = ?1");
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, message_id);
		pw_db_bind_text(st, 3, name);
		sqlite3_bind_int64(st, 4, m->date);
	} else {
		/* Without a cover, the name is the first patch's subject. */
		st = pw_db_stmt(db, "UPDATE series SET"
				" name = CASE WHEN cover IS NULL AND ?3 <= coalesce("
				"  (SELECT min(number) FROM patch WHERE series = ?1), 1 << 30)"
				"  THEN ?4 ELSE name END,"
				" first_date = min(first_date, ?5),"
				" last_date = max(last_date, ?5) WHERE id = ?1");
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 3, number);
		pw_db_bind_text(st, 4, name);
		sqlite3_bind_int64(st, 5, m->date);
	}
	s = pw_db_done(db, st);
	if (s)
		return s;
	if (!cover && patch_id) {
		st = pw_db_stmt(db, "UPDATE patch SET series = ?2, number = ?3"
				" WHERE id = ?1");
		sqlite3_bind_int64(st, 1, patch_id);
		sqlite3_bind_int64(st, 2, id);
		sqlite3_bind_int(st, 3, number);
		s = pw_db_done(db, st);
		if (s)
			return s;
	}
	*series_id = id;
	return register_refs(db, m, id);
}

enum pw_status pw_db_series_naked_cover(struct pw_db *db, int64_t series_id,
					int64_t cover, const char *name,
					int64_t date, bool *set)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"UPDATE series SET cover = ?2, name = ?3,"
		" first_date = min(first_date, ?4) WHERE id = ?1 AND cover IS NULL");
	enum pw_status s;

	*set = false;
	sqlite3_bind_int64(st, 1, series_id);
	sqlite3_bind_int64(st, 2, cover);
	pw_db_bind_text(st, 3, name ? name : "");
	sqlite3_bind_int64(st, 4, date);
	s = pw_db_done(db, st);
	if (s || sqlite3_changes(db->h) == 0)
		return s;
	*set = true;
	st = pw_db_stmt(db, "UPDATE message SET kind = 'cover' WHERE id = ?1");
	sqlite3_bind_int64(st, 1, cover);
	return pw_db_done(db, st);
}

enum pw_status pw_db_series_answering(struct pw_db *db,
				      const char *root_msgid,
				      const char *from_addr, int64_t *series_id)
{
	/* The series the root's Message-ID is registered for, then one of
	 * its patches whose parent is the root. */
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT s.id FROM series_ref r JOIN series s ON s.id = r.series"
		" WHERE r.msgid = ?1 AND s.cover IS NULL AND EXISTS ("
		"  SELECT 1 FROM patch p JOIN message m ON m.id = p.message"
		"  LEFT JOIN message_sender ms ON ms.message = m.id"
		"  WHERE p.series = s.id AND coalesce(ms.addr, m.from_addr) = ?2"
		"   AND coalesce(nullif(m.in_reply_to, ''),"
		"    substr(m.refs, 1, instr(m.refs || ' ', ' ') - 1)) = ?1)");
	enum pw_status s;
	bool found;

	*series_id = 0;
	pw_db_bind_text(st, 1, root_msgid);
	pw_db_bind_text(st, 2, from_addr);
	s = pw_db_read(db, st, &found);
	if (found)
		*series_id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return s;
}
