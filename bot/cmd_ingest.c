/*
 * patchwarden ingest [--db PATH] [--config FILE] [--list NAME] [--reply]
 *                    [--format text|json] [--threads N] [--progress N]
 *                    [--no-flood-detection] SOURCE...
 *
 * Stores every message of each source (mbox, Maildir, .eml, "-" for
 * stdin), checks its patch, and prints one summary line: what it
 * stored, and the findings it stored (by the patch checks and flood
 * detection) at each severity.  Exit status
 * (README.md, "Exit status"): 0 every message stored, findings or not;
 * 1 some messages of the files could not be read or stored (each is
 * named on stderr); 0 as well when the messages that could not be read
 * came through a pipe ("-"): each is stored as an ingest error, and an
 * MTA piping the mail must never bounce it; 2 usage, or an input that
 * is missing or cannot be read; 75 (EX_TEMPFAIL) the configuration
 * could not be read, or the store could not be opened or failed (busy,
 * read-only, full): nothing wrong with the mail, try again.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/ingest.h"
#include "bot/log.h"
#include "bot/report.h"

int pw_cmd_ingest(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *list = NULL, *format = NULL,
	     *threads = NULL;
	gboolean reply = FALSE, quiet = FALSE, no_floods = FALSE;
	int every = 0;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file (default: [core] db, else patchwarden.db)", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "list", 'l', 0, G_OPTION_ARG_STRING, &list, "file every message under this list (default: its List-Id)", "NAME" },
		{ "reply", 0, 0, G_OPTION_ARG_NONE, &reply, "treat the messages as just arrived: queue replies", NULL },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "summary as text (default) or json", "FORMAT" },
		{ "threads", 0, 0, G_OPTION_ARG_STRING, &threads, "parser threads, 1 to 256 (default: one per core)", "N" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no line per unreadable message", NULL },
		{ "progress", 0, 0, G_OPTION_ARG_INT, &every, "a progress line on stderr every N messages", "N" },
		{ "no-flood-detection", 0, 0, G_OPTION_ARG_NONE, &no_floods, "no fingerprints, no flood detection (to time ingest without it)", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_ingest_counts counts = { 0 };
	struct pw_finding_counts fc = { 0 };
	struct pw_ingest_opts o = { 0 };
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	bool json = false, stored;
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
	if (!pw_cli_threads("ingest", threads, &o.threads))
		goto out;
	/* What is not there is said before anything is stored. */
	if (!pw_cli_inputs_ok("ingest", argv + 1, argc - 1))
		goto out;
	if (!pw_cli_open(config, db_path, false, &cfg, &db)) {
		/* Not the input's fault: the same command works later. */
		rc = EX_TEMPFAIL;
		goto out;
	}
	o.list = list;
	o.reply = reply;
	o.quiet = quiet;
	o.progress = every;
	/* For timing ingest with and without it (tests/bench/flood.sh). */
	o.no_floods = no_floods || !cfg->flood_detect;
	/* The findings it stores, the patch checks' and flood detection's. */
	if (pw_db_finding_tally_start(db)) {
		pw_error("%s", pw_db_errmsg(db));
		rc = EX_TEMPFAIL;
		goto out;
	}
	stored = pw_ingest_paths(db, cfg, argv + 1, argc - 1, &o, &counts);
	if (stored && pw_db_finding_tally(db, &fc)) {
		pw_error("%s", pw_db_errmsg(db));
		stored = false;
	}
	pw_report_stored(stdout, NULL, &counts, &fc, false, NULL, json);
	rc = 0;
	/*
	 * A message that cannot be read is stored as an ingest error with
	 * its bytes.  From files it is the exit status too, for the one who
	 * typed the command; from a pipe it is not, since an MTA would
	 * bounce the mail to the list's sender.
	 */
	if (counts.errors && !pw_cli_inputs_piped(argv + 1, argc - 1))
		rc = 1;
	/* Stdin that cannot be read, or breaks off, is the delivery
	 * failing: nothing of it was stored, so it is to come again. */
	if (counts.sources_failed && pw_cli_inputs_piped(argv + 1, argc - 1))
		rc = EX_TEMPFAIL;
	/* The store failed, not the mail: it is to be delivered again. */
	if (!stored)
		rc = EX_TEMPFAIL;
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(list);
	g_free(format);
	g_free(threads);
	return rc;
}
