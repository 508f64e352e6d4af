/*
 * patchwarden: senders' identities in the store (see db/identity.h).
 */
#include <string.h>

#include "db/db-private.h"
#include "db/identity.h"

/* Records who (an address, or "@" and a domain) as seen signed at now. */
static enum pw_status signer_add(struct pw_db *db, const char *who, int64_t now)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"INSERT INTO dkim_signer(who, first_seen, last_seen)"
		" VALUES (?1, ?2, ?2) ON CONFLICT(who) DO UPDATE SET"
		" last_seen = max(last_seen, excluded.last_seen),"
		" messages = messages + 1");

	pw_db_bind_text(st, 1, who);
	sqlite3_bind_int64(st, 2, now);
	return pw_db_done(db, st);
}

/* Whether addr (*addr_signs) and its domain (*domain_signs) signed before. */
static enum pw_status signers(struct pw_db *db, const char *addr,
			      bool *addr_signs, bool *domain_signs)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT coalesce(max(who = ?1), 0), coalesce(max(who = ?2), 0)"
		" FROM dkim_signer WHERE who IN (?1, ?2)");
	char *dom = g_strconcat("@", pw_identity_domain(addr), NULL);
	enum pw_status s;
	bool row;

	*addr_signs = *domain_signs = false;
	pw_db_bind_text(st, 1, addr);
	pw_db_bind_text(st, 2, dom);
	s = pw_db_read(db, st, &row);
	if (!s && row) {
		*addr_signs = sqlite3_column_int(st, 0) != 0;
		/* "@" alone is no domain: an address without one. */
		*domain_signs = dom[1] && sqlite3_column_int(st, 1) != 0;
	}
	sqlite3_reset(st);
	g_free(dom);
	return s;
}

enum pw_status pw_db_identity_signs(struct pw_db *db, const char *addr,
				    bool *signs)
{
	bool a, d;
	enum pw_status s = signers(db, addr ? addr : "", &a, &d);

	*signs = !s && (a || d);
	return s;
}

enum pw_status pw_db_identity_note(struct pw_db *db, int64_t message_id,
				   const char *addr, bool dkim_pass,
				   int64_t now, enum pw_auth *auth)
{
	sqlite3_stmt *st;
	enum pw_status s = PW_OK;
	bool a = false, d = false;
	char *dom = NULL;

	*auth = PW_AUTH_NONE;
	if (!addr || !*addr)
		return PW_OK;
	if (!dkim_pass)
		s = signers(db, addr, &a, &d);
	if (s)
		return s;
	*auth = pw_identity_judge(dkim_pass, a, d);
	if (dkim_pass) {
		s = signer_add(db, addr, now);
		if (!s && *pw_identity_domain(addr)) {
			dom = g_strconcat("@", pw_identity_domain(addr), NULL);
			s = signer_add(db, dom, now);
			g_free(dom);
		}
	}
	if (s || *auth == PW_AUTH_NONE)
		return s;
	st = pw_db_stmt(db, "INSERT OR REPLACE INTO message_auth(message, auth)"
			" VALUES (?1, ?2)");
	sqlite3_bind_int64(st, 1, message_id);
	sqlite3_bind_int(st, 2, (int)*auth);
	return pw_db_done(db, st);
}

enum pw_status pw_db_identity_of_message(struct pw_db *db, int64_t message_id,
					 enum pw_auth *auth)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT auth FROM message_auth WHERE message = ?1");
	int64_t v = 0;
	enum pw_status s;

	sqlite3_bind_int64(st, 1, message_id);
	s = pw_db_one_int64(db, st, &v);
	*auth = (enum pw_auth)v;
	return s;
}

enum pw_status pw_db_identity_of_flood(struct pw_db *db, int64_t flood_id,
				       enum pw_auth *auth)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT g.sender, coalesce(a.auth, 0) FROM flood_group g"
		" LEFT JOIN message_auth a ON a.message = g.founder"
		" WHERE g.id = ?1");
	enum pw_status s;
	char *sender = NULL;
	bool row, signs = false;
	int founder = 0;

	*auth = PW_AUTH_NONE;
	sqlite3_bind_int64(st, 1, flood_id);
	s = pw_db_read(db, st, &row);
	if (!s && row) {
		sender = pw_db_col_dup(st, 0);
		founder = sqlite3_column_int(st, 1);
	}
	sqlite3_reset(st);
	if (s || !row)
		goto out;
	/* Its members group by their founder's kind of sender. */
	if (founder == PW_AUTH_DKIM) {
		*auth = PW_AUTH_DKIM;
		goto out;
	}
	s = pw_db_identity_signs(db, sender, &signs);
	if (!s && signs)
		*auth = PW_AUTH_LOOKALIKE;
out:
	g_free(sender);
	return s;
}

enum pw_status pw_db_identity_sent_since(struct pw_db *db, int64_t since,
					 int64_t *n)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT count(*) FROM outbox o"
		" JOIN message_auth a ON a.message = o.message AND a.auth = ?2"
		" WHERE o.created_at >= ?1"
		" AND o.state IN ('pending','sending','sent')");

	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_int(st, 2, PW_AUTH_DKIM);
	return pw_db_one_int64(db, st, n);
}
