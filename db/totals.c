/*
 * patchwarden: the totals per list and day (see db/totals.h).
 */
#include <string.h>

#include "checks/patch.h"
#include "db/db-private.h"
#include "db/totals.h"

#define RECOUNT_MESSAGES PW_TOTALS_RECOUNT_MESSAGES
#define RECOUNT_FINDINGS PW_TOTALS_RECOUNT_FINDINGS
#define KEPT_MESSAGES \
	"SELECT list, day, kind, n FROM total_message WHERE n <> 0"
#define KEPT_FINDINGS \
	"SELECT list, day, rule, severity, n FROM total_finding WHERE n <> 0"

/* The one number st reads into *n; false when the read failed. */
static bool number(struct pw_db *db, sqlite3_stmt *st, int64_t *n)
{
	bool row;
	enum pw_status s = pw_db_read(db, st, &row);

	*n = !s && row ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	return !s;
}

enum pw_status pw_db_totals_check(struct pw_db *db, bool repair,
				  int64_t *wrong)
{
	enum pw_status s;
	int64_t m = 0, f = 0;

	*wrong = 0;
	s = pw_db_begin(db);
	if (s)
		return s;
	/* Both ways: a total the rows do not make, a count it lacks (a
	 * compound SELECT groups from the left: the recount is one). */
	if (!number(db, pw_db_stmt(db, "SELECT (SELECT count(*) FROM ("
				   KEPT_MESSAGES " EXCEPT SELECT * FROM ("
				   RECOUNT_MESSAGES ")))"
				   " + (SELECT count(*) FROM (" RECOUNT_MESSAGES
				   " EXCEPT " KEPT_MESSAGES "))"), &m) ||
	    !number(db, pw_db_stmt(db, "SELECT (SELECT count(*) FROM ("
				   KEPT_FINDINGS " EXCEPT SELECT * FROM ("
				   RECOUNT_FINDINGS ")))"
				   " + (SELECT count(*) FROM (" RECOUNT_FINDINGS
				   " EXCEPT " KEPT_FINDINGS "))"), &f)) {
		pw_db_rollback(db);
		return PW_ERR_DB;
	}
	*wrong = m + f;
	if (*wrong && repair) {
		s = pw_db_done(db, pw_db_stmt(db, "DELETE FROM total_message"));
		if (!s)
			s = pw_db_done(db, pw_db_stmt(db, "DELETE FROM total_finding"));
		if (!s)
			s = pw_db_done(db, pw_db_stmt(db, "INSERT INTO total_message"
						      " " RECOUNT_MESSAGES));
		if (!s)
			s = pw_db_done(db, pw_db_stmt(db, "INSERT INTO total_finding"
						      " " RECOUNT_FINDINGS));
		if (s) {
			pw_db_rollback(db);
			return s;
		}
	}
	return pw_db_commit(db);
}

enum pw_status pw_db_totals_finding_counts(struct pw_db *db,
					   const char *const *flood_rules,
					   int n, struct pw_finding_counts *c)
{
	sqlite3_stmt *st = pw_db_stmt(db, "SELECT severity, rule IN (?1, ?2, ?3,"
				      " ?4), sum(n) FROM total_finding"
				      " WHERE list = 0 GROUP BY 1, 2");
	enum pw_status s;
	bool row;
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < n && i < 4; i++)
		sqlite3_bind_text(st, i + 1, flood_rules[i], -1, SQLITE_STATIC);
	while (!(s = pw_db_read(db, st, &row)) && row) {
		int sev = sqlite3_column_int(st, 0);
		int64_t k = sqlite3_column_int64(st, 2);

		c->findings += k;
		if (sev >= PW_SEV_INFO && sev <= PW_SEV_ERROR)
			c->severity[sev] += k;
		if (sqlite3_column_int(st, 1))
			c->flood += k;
	}
	sqlite3_reset(st);
	return s;
}
