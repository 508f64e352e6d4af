/*
 * patchwarden run [--config FILE] [--db PATH]
 *
 * The service (bot/service.h): polls the subscriptions, sends replies,
 * until SIGTERM or SIGINT.
 *
 * patchwarden run [--config FILE] [--db PATH] [--list NAME] SOURCE...
 *
 * The bot's main job on what it is handed: every message of the sources
 * (mbox, Maildir, .eml, or "-", one message from an MTA pipe) is taken
 * as just arrived: stored, checked, filed into its series and flood, and
 * answered under the reply policy; then every reply that is due is sent
 * (to the dry-run mbox while no SMTP server is configured).  Exit status:
 * 0 every message stored, 1 some could not be read (each is recorded as
 * an ingest error with its bytes), 75 (EX_TEMPFAIL) the configuration
 * could not be read or was refused, or the store could not be opened or
 * failed (busy, disk full): none of it is the mail's fault, so an MTA
 * keeps the mail and tries again; 2 usage;
 * replies that could not be sent stay queued and are reported, not
 * failed.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/ingest.h"
#include "bot/log.h"
#include "bot/reply_send.h"
#include "bot/service.h"

int pw_cmd_run(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *list = NULL;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file (default: [core] db, else patchwarden.db)", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "list", 'l', 0, G_OPTION_ARG_STRING, &list, "file every message under this list (default: its List-Id)", "NAME" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_ingest_counts counts = { 0 };
	struct pw_ingest_opts o = { 0 };
	struct pw_reply_send_opts so = { 0 };
	struct pw_reply_send_stats ost = { 0 };
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	char *err = NULL, *summary;
	bool stored;
	int rc = 2;

	if (!pw_cli_parse("run", "[SOURCE...]", entries, &argc, &argv))
		goto out;
	if (argc < 2) {
		if (list) {
			fprintf(stderr, "patchwarden run: --list is for SOURCEs; a"
				" subscription has its own (subscribe add --list)\n");
			goto out;
		}
		rc = pw_service_run(config, db_path);
		goto out;
	}
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
	rc = 0;
	stored = pw_ingest_paths(db, cfg, argv + 1, argc - 1, &o, &counts);
	pw_ingest_counts_print(&counts, false);
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
	if (counts.errors)
		rc = 1;
	/* The store failed, not the mail: it is to be delivered again. */
	if (!stored)
		rc = EX_TEMPFAIL;
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(list);
	return rc;
}
