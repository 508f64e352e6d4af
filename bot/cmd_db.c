/*
 * patchwarden db [--db PATH] [--config FILE] stats [--format text|json]
 * patchwarden db [--db PATH] [--config FILE] recheck [--since WHEN]
 *                [--format text|json]
 *
 * stats prints the stored counts as one key=value line (or one JSON
 * object); recheck re-runs the current rules over stored patches, so
 * improved rules reach old history, and prints its counts the same way.
 */
#include <stdio.h>
#include <string.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/ingest.h"
#include "bot/log.h"
#include "bot/printer.h"

static void stats_print(const struct pw_db_stats *st, bool json)
{
	const struct pw_count n[] = {
		{ "messages", st->messages }, { "patches", st->patches },
		{ "series", st->series }, { "covers", st->covers },
		{ "comments", st->comments }, { "pulls", st->pulls },
		{ "lists", st->lists }, { "findings", st->findings },
		{ "errors", st->errors },
	};

	pw_print_counts(n, G_N_ELEMENTS(n), json, stdout);
}

static int stats(struct pw_db *db, bool json)
{
	struct pw_db_stats st;

	if (pw_db_stats(db, &st)) {
		pw_error("%s", pw_db_errmsg(db));
		return 2;
	}
	stats_print(&st, json);
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
	gint64 t = 0;
	bool json = false;
	int rc = 2;

	if (!pw_cli_parse("db", "stats|recheck", entries, &argc, &argv))
		goto out;
	if (argc != 2 || (strcmp(argv[1], "stats") && strcmp(argv[1], "recheck"))) {
		fprintf(stderr, "usage: patchwarden db [--db PATH] stats|recheck [--since WHEN]\n");
		goto out;
	}
	if (format && strcmp(format, "text") && !(json = !strcmp(format, "json"))) {
		fprintf(stderr, "patchwarden db: --format is text or json\n");
		goto out;
	}
	if (since && !pw_cli_parse_time(since, &t)) {
		fprintf(stderr, "patchwarden db: --since '%s': not a date (YYYY-MM-DD, @unix, Nd, Nh)\n", since);
		goto out;
	}
	if (!pw_cli_open(config, db_path, !strcmp(argv[1], "stats"), &cfg, &db))
		goto out;
	if (!strcmp(argv[1], "stats")) {
		rc = stats(db, json);
	} else {
		gint64 checked, findings;
		char *err = NULL;

		if (pw_ingest_recheck(db, cfg, t, &checked, &findings, &err)) {
			pw_error("recheck: %s", err);
			g_free(err);
			rc = 2;
		} else {
			const struct pw_count n[] = {
				{ "rechecked", checked }, { "findings", findings },
			};

			pw_print_counts(n, G_N_ELEMENTS(n), json, stdout);
			rc = 0;
		}
	}
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(format);
	g_free(since);
	return rc;
}
