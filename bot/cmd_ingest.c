/*
 * patchwarden ingest [--db PATH] [--config FILE] [--list NAME] [--reply]
 *                    [--format text|json] [--progress N] SOURCE...
 *
 * Stores every message of each source (mbox, Maildir, .eml, "-" for
 * stdin), checks its patch, and prints one summary line.  Exit status:
 * 0 everything stored, 1 some messages could not be, 2 usage errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/ingest.h"
#include "bot/log.h"

int pw_cmd_ingest(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *list = NULL, *format = NULL;
	gboolean reply = FALSE, quiet = FALSE;
	int threads = 0, every = 0;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file (default: [core] db, else patchwarden.db)", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "list", 'l', 0, G_OPTION_ARG_STRING, &list, "file every message under this list (default: its List-Id)", "NAME" },
		{ "reply", 0, 0, G_OPTION_ARG_NONE, &reply, "treat the messages as just arrived: queue replies", NULL },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "summary as text (default) or json", "FORMAT" },
		{ "threads", 0, 0, G_OPTION_ARG_INT, &threads, "parser threads (default: one per core)", "N" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no line per unreadable message", NULL },
		{ "progress", 0, 0, G_OPTION_ARG_INT, &every, "a progress line on stderr every N messages", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_ingest_counts counts = { 0 };
	struct pw_ingest_opts o = { 0 };
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	bool json = false;
	int rc = 2;

	if (!pw_cli_parse("ingest", "SOURCE...", entries, &argc, &argv))
		goto out;
	if (argc < 2) {
		fprintf(stderr, "patchwarden ingest: name at least one SOURCE (mbox, Maildir, .eml, or - for stdin)\n");
		goto out;
	}
	if (format && strcmp(format, "text") && !(json = !strcmp(format, "json"))) {
		fprintf(stderr, "patchwarden ingest: --format is text or json\n");
		goto out;
	}
	if (every < 0) {
		fprintf(stderr, "patchwarden ingest: --progress takes a number of messages\n");
		goto out;
	}
	if (!pw_cli_open(config, db_path, false, &cfg, &db))
		goto out;
	o.list = list;
	o.reply = reply;
	o.threads = threads;
	o.quiet = quiet;
	o.progress = every;
	if (getenv("PW_FLOOD_DISABLE")) {
		/* For timing ingest with and without it (tests/bench/flood.sh). */
		o.no_floods = true;
		pw_warn("flood detection is off: PW_FLOOD_DISABLE is set");
	}
	rc = 0;
	pw_ingest_paths(db, cfg, argv + 1, argc - 1, &o, &counts);
	pw_ingest_counts_print(&counts, json);
	if (counts.errors)
		rc = 1;
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(list);
	g_free(format);
	return rc;
}
