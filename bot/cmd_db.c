/*
 * patchwarden db [--db PATH] [--config FILE] stats [--format text|json]
 * patchwarden db [--db PATH] [--config FILE] recheck [--since WHEN]
 *                [--format text|json]
 * patchwarden db [--db PATH] [--config FILE] check
 * patchwarden db [--db PATH] [--config FILE] backup FILE
 * patchwarden db [--db PATH] [--config FILE] vacuum
 *
 * stats prints the stored counts as one key=value line (or one JSON
 * object): every finding in the store at each severity and those flood
 * detection made, the messages kept as ingest errors, and the raw rows
 * no message names; recheck re-runs the
 * current rules over stored patches, so improved rules reach old
 * history, and prints its counts the same way.  check runs SQLite's
 * integrity check on both files of the store and removes the raw rows
 * no message names (exit 1 when it found anything); backup copies both
 * files with SQLite's online backup API while the service runs; vacuum
 * rebuilds both files and prints their sizes before and after.
 *
 * Exit status: 0 done; 1 check found problems, a file of the store not
 * a database or too damaged to open among them; 2 usage, or a damaged
 * store that stats or recheck cannot read; 75 the store or the
 * configuration cannot be read, there is no store at the path (nothing
 * is created), the store is busy or full.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/ingest.h"
#include "bot/log.h"
#include "bot/printer.h"
#include "bot/report.h"
#include "db/totals.h"

static const char usage[] =
	"usage: patchwarden db [--db PATH] [--config FILE] COMMAND\n"
	"  stats [--format text|json]    the stored counts\n"
	"  recheck [--since WHEN]        re-run the rules over stored patches\n"
	"  check                         integrity check; remove orphaned raw rows\n"
	"  backup FILE                   online copy into FILE and FILE-raw\n"
	"  vacuum                        rebuild both files, print their sizes\n";

/*
 * The exit status of a store that failed: 75 when it may work later
 * (busy, cannot be opened or written, full), 2 when it refused (a
 * damaged store, told as the store's error).
 */
static int failed(enum pw_status s)
{
	return s == PW_ERR_TRANSIENT || s == PW_ERR_IO || s == PW_ERR_NOMEM ?
		EX_TEMPFAIL : 2;
}

/*
 * Every finding in the store (fc: the patch checks', and flood
 * detection's on series, resends and floods, whenever they were made),
 * at each severity; errors are the messages kept as ingest errors.
 */
static void stats_print(const struct pw_db_stats *st,
			const struct pw_finding_counts *fc, int64_t orphans,
			bool json)
{
	struct pw_count n[] = {
		{ "messages", st->messages }, { "patches", st->patches },
		{ "series", st->series }, { "covers", st->covers },
		{ "comments", st->comments }, { "pulls", st->pulls },
		{ "lists", st->lists }, { NULL, 0 }, { NULL, 0 }, { NULL, 0 },
		{ NULL, 0 }, { NULL, 0 },
		{ "errors", st->errors }, { "raw_orphans", orphans },
	};

	pw_report_finding_counts(fc, n + 7);
	pw_print_counts(n, G_N_ELEMENTS(n), json, stdout);
}

static int stats(struct pw_db *db, bool json)
{
	struct pw_finding_counts fc;
	struct pw_db_stats st;
	int64_t orphans = 0;

	enum pw_status s;

	if ((s = pw_db_stats(db, &st)) ||
	    (s = pw_db_finding_counts(db, &fc)) ||
	    (s = pw_db_raw_orphans(db, false, &orphans))) {
		pw_error("%s", pw_db_errmsg(db));
		return failed(s);
	}
	stats_print(&st, &fc, orphans, json);
	if (st.errors)
		pw_warn("%" G_GINT64_FORMAT " messages could not be read or"
			" stored: \"patchwarden query errors\" lists them",
			(gint64)st.errors);
	if (orphans)
		pw_warn("%s-raw: %" G_GINT64_FORMAT " raw rows that no message"
			" names (left by an interrupted writer): \"patchwarden"
			" db check\" removes them", pw_db_path(db), orphans);
	return 0;
}

/* Prints the problems integrity checks found in the store at path. */
static void problems_print(const char *path, GPtrArray *problems)
{
	guint i;

	for (i = 0; i < problems->len; i++)
		printf("%s\n", (const char *)problems->pdata[i]);
	printf("%s: integrity check: %u problems; orphaned raw rows not"
	       " looked for\n", path, problems->len);
}

/*
 * A store that the open refused: its files checked as they are, since
 * a file that is not a database or is too damaged to open is a problem
 * found (1), not a store that may open later (75, with the open's
 * error, when they check clean).
 */
static int check_unopened(const char *path, enum pw_status s, const char *err)
{
	GPtrArray *problems = g_ptr_array_new_with_free_func(g_free);
	int rc = EX_TEMPFAIL;

	if (s == PW_ERR_DB)
		pw_db_integrity_check_path(path, problems);
	if (problems->len) {
		problems_print(path, problems);
		rc = 1;
	} else {
		pw_error("%s", err);
	}
	g_ptr_array_free(problems, TRUE);
	return rc;
}

/*
 * Integrity first: raw rows are removed only from a store whose both
 * files check clean, since rows that a damaged message table no longer
 * names are not orphans.
 */
static int check(struct pw_db *db)
{
	GPtrArray *problems = g_ptr_array_new_with_free_func(g_free);
	int64_t orphans = 0, wrong = 0;
	int rc = EX_TEMPFAIL;

	if (pw_db_integrity_check(db, problems)) {
		pw_error("integrity check: %s", pw_db_errmsg(db));
		goto out;
	}
	if (problems->len) {
		problems_print(pw_db_path(db), problems);
		rc = 1;
		goto out;
	}
	printf("%s: integrity check: ok (both files)\n", pw_db_path(db));
	if (pw_db_raw_orphans(db, true, &orphans)) {
		pw_error("orphaned raw rows: %s", pw_db_errmsg(db));
		goto out;
	}
	if (orphans)
		printf("%s-raw: removed %" G_GINT64_FORMAT " raw rows that no"
		       " message names\n", pw_db_path(db), orphans);
	else
		printf("%s-raw: no orphaned raw rows\n", pw_db_path(db));
	/* What the store keeps for the dashboard (totals per list and
	 * day and per sender, the senders' dates, the attention queue),
	 * against the rows they count. */
	if (pw_db_totals_check(db, true, &wrong)) {
		pw_error("totals: %s", pw_db_errmsg(db));
		goto out;
	}
	if (wrong)
		printf("%s: %" G_GINT64_FORMAT " kept totals differed"
		       " from the rows: made again from them\n", pw_db_path(db),
		       wrong);
	else
		printf("%s: kept totals: as the rows count them\n",
		       pw_db_path(db));
	rc = orphans || wrong ? 1 : 0;
out:
	g_ptr_array_free(problems, TRUE);
	return rc;
}

static int backup(const char *path, const char *to, bool json)
{
	struct pw_db_backup_info b;
	char *err = NULL;
	enum pw_status s = pw_db_backup(path, to, &b, &err);

	if (s) {
		pw_error("backup: %s", err);
		g_free(err);
		return s == PW_ERR_USAGE ? 2 : EX_TEMPFAIL;
	} else {
		const struct pw_count n[] = {
			{ "messages", b.messages }, { "bytes", b.bytes },
			{ "raw_bytes", b.raw_bytes },
			{ "raw_left_out", b.raw_dropped },
		};

		pw_print_counts(n, G_N_ELEMENTS(n), json, stdout);
	}
	return 0;
}

static int vacuum(struct pw_db *db, bool json)
{
	struct pw_db_sizes a, b;

	if (pw_db_vacuum(db, &a, &b)) {
		pw_error("vacuum: %s", pw_db_errmsg(db));
		return EX_TEMPFAIL;
	} else {
		const struct pw_count n[] = {
			{ "bytes_before", a.store }, { "bytes_after", b.store },
			{ "raw_bytes_before", a.raw }, { "raw_bytes_after", b.raw },
		};

		pw_print_counts(n, G_N_ELEMENTS(n), json, stdout);
	}
	return 0;
}

static int recheck(struct pw_db *db, const struct pw_config *cfg, gint64 t,
		   bool json)
{
	gint64 checked, findings;
	char *err = NULL;
	enum pw_status s = pw_ingest_recheck(db, cfg, t, &checked, &findings,
					     &err);

	if (s) {
		pw_error("recheck: %s", err);
		g_free(err);
		return failed(s);
	} else {
		const struct pw_count n[] = {
			{ "rechecked", checked }, { "findings", findings },
		};

		pw_print_counts(n, G_N_ELEMENTS(n), json, stdout);
	}
	return 0;
}

int pw_cmd_db(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *format = NULL, *since = NULL;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default) or json", "FORMAT" },
		{ "since", 0, 0, G_OPTION_ARG_STRING, &since, "recheck: only patches dated since (YYYY-MM-DD, @unix, 7d)", "WHEN" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	enum pw_status s;
	const char *cmd;
	char *err = NULL;
	gint64 t = 0;
	bool json = false, readonly;
	int rc = 2, want;

	if (!pw_cli_parse("db", "stats|recheck|check|backup FILE|vacuum",
			  entries, &argc, &argv))
		goto out;
	cmd = argc >= 2 ? argv[1] : "";
	want = !strcmp(cmd, "backup") ? 3 : 2;
	if (argc != want || (strcmp(cmd, "stats") && strcmp(cmd, "recheck") &&
			     strcmp(cmd, "check") && strcmp(cmd, "backup") &&
			     strcmp(cmd, "vacuum"))) {
		fputs(usage, stderr);
		goto out;
	}
	if (format && strcmp(format, "text") && !(json = !strcmp(format, "json"))) {
		fprintf(stderr, "patchwarden db: --format is text or json\n");
		goto out;
	}
	if (since && strcmp(cmd, "recheck")) {
		fprintf(stderr, "patchwarden db: --since is for recheck\n");
		goto out;
	}
	if (since && !pw_cli_parse_time(since, &t)) {
		fprintf(stderr, "patchwarden db: --since '%s': not a date (YYYY-MM-DD, @unix, Nd, Nh)\n", since);
		goto out;
	}
	rc = EX_TEMPFAIL;
	if (pw_config_load(config, db_path, &cfg, &err)) {
		pw_error("%s", err);
		goto out;
	}
	/*
	 * Each command looks after a store that exists: a mistyped path
	 * is said, not made into a new empty store (a read-write open
	 * creates one) that checks clean.  backup says the same.  Any
	 * other reason the path cannot be looked at is the open's to tell.
	 */
	if (strcmp(cmd, "backup") && strcmp(cfg->db_path, ":memory:") &&
	    g_access(cfg->db_path, F_OK) && errno == ENOENT) {
		pw_error("%s: no such store", cfg->db_path);
		goto out;
	}
	if (!strcmp(cmd, "backup")) {
		/* Not opened here: a backup reads any schema version. */
		rc = backup(cfg->db_path, argv[2], json);
		goto out;
	}
	/*
	 * Opened without pw_cli_open(): check counts the orphaned raw
	 * rows that a read-write open would remove quietly.
	 */
	readonly = !strcmp(cmd, "stats");
	if ((s = pw_db_open(cfg->db_path, readonly, &db, &err))) {
		if (!strcmp(cmd, "check"))
			rc = check_unopened(cfg->db_path, s, err);
		else
			pw_error("%s", err);
		goto out;
	}
	if (!strcmp(cmd, "stats"))
		rc = stats(db, json);
	else if (!strcmp(cmd, "check"))
		rc = check(db);
	else if (!strcmp(cmd, "vacuum"))
		rc = vacuum(db, json);
	else
		rc = recheck(db, cfg, t, json);
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(err);
	g_free(db_path);
	g_free(config);
	g_free(format);
	g_free(since);
	return rc;
}
