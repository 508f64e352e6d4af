/*
 * patchwarden: the totals per list and day, and per sender (see
 * db/totals.h), and the attention queue's (db/attention.h).
 */
#include <string.h>

#include "checks/patch.h"
#include "db/attention.h"
#include "db/db-private.h"
#include "db/totals.h"

#define RECOUNT_MESSAGES PW_TOTALS_RECOUNT_MESSAGES
#define RECOUNT_FINDINGS PW_TOTALS_RECOUNT_FINDINGS
#define KEPT_MESSAGES \
	"SELECT list, day, kind, n FROM total_message WHERE n <> 0"
#define KEPT_FINDINGS \
	"SELECT list, day, rule, severity, n FROM total_finding WHERE n <> 0"
#define RECOUNT_SENDERS PW_TOTALS_RECOUNT_SENDERS
#define KEPT_SENDERS \
	"SELECT list, who, automated, name, sev, patches, findings, other" \
	" FROM total_sender WHERE patches <> 0 OR findings <> 0 OR other <> 0"
#define RECOUNT_SENDER_DATES PW_TOTALS_RECOUNT_SENDER_DATES
/* A stale row differs from the recount: "db check" makes it fresh. */
#define KEPT_SENDER_DATES \
	"SELECT list, who, automated, first, last, stale FROM total_sender_date"
#define RECOUNT_ATTENTION PW_ATTENTION_RECOUNT(PW_ATTENTION_LIVE("p.id"))
#define KEPT_ATTENTION \
	"SELECT list, patch, date, errs, warns FROM attention"
/* How many of KEPT differ from RECOUNT, both ways (a compound SELECT
 * groups from the left: the recount is one). */
#define DIFFER(kept, recount) \
	"SELECT (SELECT count(*) FROM (" kept " EXCEPT SELECT * FROM (" \
	recount "))) + (SELECT count(*) FROM (" recount " EXCEPT " kept "))"

/* The one number st reads into *n; false when the read failed. */
static bool number(struct pw_db *db, sqlite3_stmt *st, int64_t *n)
{
	bool row;
	enum pw_status s = pw_db_read(db, st, &row);

	*n = !s && row ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	return !s;
}

/* What the triggers keep, each beside its recount from the rows. */
static const struct {
	const char *table, *differ, *recount;
} kept[] = {
	{ "total_message", DIFFER(KEPT_MESSAGES, RECOUNT_MESSAGES),
	  RECOUNT_MESSAGES },
	{ "total_finding", DIFFER(KEPT_FINDINGS, RECOUNT_FINDINGS),
	  RECOUNT_FINDINGS },
	{ "total_sender", DIFFER(KEPT_SENDERS, RECOUNT_SENDERS),
	  RECOUNT_SENDERS },
	{ "total_sender_date", DIFFER(KEPT_SENDER_DATES, RECOUNT_SENDER_DATES),
	  RECOUNT_SENDER_DATES },
	{ "attention", DIFFER(KEPT_ATTENTION, RECOUNT_ATTENTION),
	  RECOUNT_ATTENTION },
};

enum pw_status pw_db_totals_check(struct pw_db *db, bool repair,
				  int64_t *wrong)
{
	enum pw_status s;
	size_t i;

	*wrong = 0;
	s = pw_db_begin(db);
	if (s)
		return s;
	for (i = 0; i < G_N_ELEMENTS(kept); i++) {
		int64_t n;

		if (!number(db, pw_db_stmt(db, kept[i].differ), &n)) {
			pw_db_rollback(db);
			return PW_ERR_DB;
		}
		*wrong += n;
	}
	for (i = 0; *wrong && repair && i < G_N_ELEMENTS(kept); i++) {
		char *sql = g_strdup_printf("DELETE FROM %s", kept[i].table);

		/* Not a cached statement: made once, for a repair. */
		s = pw_db_exec(db, sql);
		g_free(sql);
		if (!s) {
			sql = g_strdup_printf("INSERT INTO %s %s", kept[i].table,
					      kept[i].recount);
			s = pw_db_exec(db, sql);
			g_free(sql);
		}
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
