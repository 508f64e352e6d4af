/*
 * patchwarden run [--config FILE] [--db PATH]
 *
 * The service (bot/service.h): polls the subscriptions, sends replies,
 * until SIGTERM or SIGINT.
 *
 * patchwarden run [--config FILE] [--db PATH] [--list NAME]
 *                 [--recipient ADDR] [--threads N]
 *                 [--no-flood-detection] SOURCE...
 *
 * The bot's main job on what it is handed: every message of the sources
 * (mbox, Maildir, .eml, or "-", one message from an MTA pipe) is taken
 * as just arrived: stored, checked, filed into its series and flood, and
 * answered under the reply policy (mail from "-" is filed under --list,
 * else the list whose [list NAME] recipient is --recipient or
 * $ORIGINAL_RECIPIENT, else none: never under its own List-Id); then every reply that is due is sent
 * (to the dry-run mbox while no SMTP server is configured).  --threads
 * sets the parser threads as for ingest: the messages are still stored,
 * filed and answered one by one in source order, so that the threads
 * change the time it takes, never what is stored or who is answered.  Exit status
 * (README.md, "Exit status"): 0 every message stored, findings or not,
 * and from "-" also when the message could not be read (too large,
 * not mail, over a limit): it is stored as an ingest error with its
 * bytes, and an MTA must never bounce list mail to its sender; 1 some
 * messages of the files could not be read (each stored as an ingest
 * error); 2 usage, or a file that is missing or cannot be read; 75
 * (EX_TEMPFAIL) the configuration could not be read or was refused, the
 * store could not be opened or failed (busy, read-only, disk full), or
 * stdin broke off: none of it is the mail's fault, so an MTA keeps the
 * mail and delivers it again.  Replies that could not be sent stay
 * queued and are reported, not failed.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/ingest.h"
#include "bot/log.h"
#include "bot/report.h"
#include "bot/reply_send.h"
#include "bot/service.h"

/*
 * Ingests each of paths[0..n-1] as pw_ingest_paths() does, and returns
 * the exit status that the reading and storing make: 1 when a file or
 * folder, or one of its messages, could not be read; EX_TEMPFAIL when
 * the store failed (then it stops) or stdin could not be read.  A
 * message from stdin that could not be read is stored as an ingest
 * error, which is all the MTA needs: it counts, but not in the status.
 */
static int ingest(struct pw_db *db, const struct pw_config *cfg,
		  char **paths, int n, const struct pw_ingest_opts *o,
		  const char *recipient, struct pw_ingest_counts *c)
{
	int i, rc = 0;

	for (i = 0; i < n; i++) {
		bool piped = !strcmp(paths[i], "-");
		int64_t errors = c->errors;
		char *err = NULL;
		struct pw_ingest_opts po = *o;
		enum pw_status s;

		/* Anyone can mail the bot's address: the list of piped mail
		 * is the operator's, by the address the MTA delivered it
		 * to, never the List-Id its sender wrote. */
		if (piped) {
			po.no_list_id = true;
			if (!po.list)
				po.list = pw_config_list_of_recipient(cfg, recipient);
		}
		s = pw_ingest_path(db, cfg, paths[i], &po, c, &err);

		if (!s) {
			if (c->errors > errors && !piped && !rc)
				rc = 1;
			continue;
		}
		pw_error("%s", err ? err : pw_status_str(s));
		g_free(err);
		c->errors++;
		if (s == PW_ERR_DB || s == PW_ERR_TRANSIENT)
			return EX_TEMPFAIL;
		/* Stdin that breaks off is the delivery failing. */
		if (piped)
			rc = EX_TEMPFAIL;
		else if (!rc)
			rc = 1;
	}
	return rc;
}

int pw_cmd_run(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *list = NULL, *threads = NULL,
	     *recipient = NULL;
	gboolean no_floods = FALSE;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file (default: [core] db, else patchwarden.db)", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "list", 'l', 0, G_OPTION_ARG_STRING, &list, "file every message under this list (default: its List-Id; from -, see --recipient)", "NAME" },
		{ "recipient", 'r', 0, G_OPTION_ARG_STRING, &recipient, "with -: the address the MTA delivered the mail to, filed under the list whose [list NAME] recipient it is (default: $ORIGINAL_RECIPIENT)", "ADDR" },
		{ "threads", 0, 0, G_OPTION_ARG_STRING, &threads, "with SOURCEs: parser threads, 1 to 256 (default: one per core)", "N" },
		{ "no-flood-detection", 0, 0, G_OPTION_ARG_NONE, &no_floods, "with SOURCEs: no fingerprints, no flood detection", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_ingest_counts counts = { 0 };
	struct pw_finding_counts fc = { 0 };
	struct pw_ingest_opts o = { 0 };
	struct pw_reply_send_opts so = { 0 };
	struct pw_reply_send_stats ost = { 0 };
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	char *err = NULL, *summary;
	int rc = 2;

	if (!pw_cli_parse("run", "[SOURCE...]", entries, &argc, &argv))
		goto out;
	if (argc < 2) {
		if (list || recipient) {
			fprintf(stderr, "patchwarden run: --%s is for SOURCEs; a"
				" subscription has its own list (subscribe add"
				" --list)\n", list ? "list" : "recipient");
			goto out;
		}
		if (no_floods || threads) {
			fprintf(stderr, "patchwarden run: --%s is for SOURCEs\n",
				threads ? "threads" : "no-flood-detection");
			goto out;
		}
		rc = pw_service_run(config, db_path);
		goto out;
	}
	if (!pw_cli_threads("run", threads, &o.threads))
		goto out;
	/* A file named that is not there is the caller's mistake, said
	 * before anything is stored. */
	if (!pw_cli_inputs_ok("run", argv + 1, argc - 1))
		goto out;
	if (!pw_cli_open(config, db_path, false, &cfg, &db)) {
		/*
		 * Neither a configuration that cannot be read (or is
		 * refused) nor a store that cannot be opened is the mail's
		 * fault: an MTA that bounced it would answer the list's
		 * sender for the bot's administrator.
		 */
		rc = EX_TEMPFAIL;
		goto out;
	}
	o.list = list;
	o.reply = true;
	o.stdin_one = true;	/* an MTA pipes one message per run */
	o.quiet = false;
	o.no_floods = no_floods || !cfg->flood_detect;
	if (pw_db_finding_tally_start(db)) {
		pw_error("%s", pw_db_errmsg(db));
		rc = EX_TEMPFAIL;
		goto out;
	}
	/* Postfix's local(8) sets ORIGINAL_RECIPIENT for a command it
	 * runs; its pipe(8) and Exim pass the address as an argument. */
	rc = ingest(db, cfg, argv + 1, argc - 1, &o,
		    recipient ? recipient : g_getenv("ORIGINAL_RECIPIENT"),
		    &counts);
	if (rc != EX_TEMPFAIL && pw_db_finding_tally(db, &fc)) {
		pw_error("%s", pw_db_errmsg(db));
		rc = EX_TEMPFAIL;
	}
	pw_report_stored(stdout, NULL, &counts, &fc, false, NULL, false);
	/*
	 * Replies that cannot go now wait in the outbox for the next send:
	 * they do not make the delivery fail, which an MTA piping the mail
	 * here would bounce.
	 */
	if (pw_reply_send_due(db, cfg, &so, &ost, &err)) {
		pw_warn("outbox: %s; the replies wait for the next send",
			err ? err : "sending failed");
		g_clear_pointer(&err, g_free);
	}
	summary = pw_reply_send_summary(cfg, &ost);
	printf("replies: %s\n", summary);
	g_free(summary);
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(list);
	g_free(recipient);
	g_free(threads);
	return rc;
}
