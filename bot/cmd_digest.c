/*
 * patchwarden digest [--config FILE] [--db PATH] [--list NAME]
 *                    [--since WHEN] [--dry-run]
 *
 * Composes the digest of each list whose settings say digest = true
 * (or of --list NAME, which needs maintainer addresses only), for the
 * time since its last digest (or a week, or --since), stores it in the
 * outbox and sends what is due, as the service does once a week (see
 * bot/digest.h).  --dry-run writes each digest to stdout and stores and
 * sends nothing.  Exit status: 0 done (a week with nothing new sends
 * nothing: not a failure); 2 usage (a bad option, a list without
 * maintainers); 75 the configuration or the store.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/digest.h"
#include "bot/log.h"
#include "bot/reply_send.h"

int pw_cmd_digest(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *list = NULL, *since = NULL;
	gboolean dry_run = FALSE;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file (default: [core] db, else patchwarden.db)", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "list", 'l', 0, G_OPTION_ARG_STRING, &list, "only this list (it needs [list NAME] maintainer)", "NAME" },
		{ "since", 0, 0, G_OPTION_ARG_STRING, &since, "the period's start (YYYY-MM-DD, @unix, 7d, 12h; default: the last digest's end, else a week ago)", "WHEN" },
		{ "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run, "write the digests to stdout; store and send nothing", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_digest_opts o = { 0 };
	struct pw_digest_stats st = { 0 };
	struct pw_reply_send_opts so = { 0 };
	struct pw_reply_send_stats ost = { 0 };
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	enum pw_status s;
	char *err = NULL, *summary;
	gint64 t = 0;
	int rc = 2;

	if (!pw_cli_parse("digest", "", entries, &argc, &argv))
		goto out;
	if (argc > 1) {
		fprintf(stderr, "patchwarden digest: no arguments, only options"
			" (--list NAME, --since WHEN, --dry-run)\n");
		goto out;
	}
	if (since && !pw_cli_parse_time(since, &t)) {
		fprintf(stderr, "patchwarden digest: --since %s: not YYYY-MM-DD,"
			" YYYY-MM-DDTHH:MM:SS, @unix, Nd or Nh\n", since);
		goto out;
	}
	if (!pw_cli_open(config, db_path, dry_run, &cfg, &db)) {
		rc = EX_TEMPFAIL;
		goto out;
	}
	o.list = list;
	o.since = t;
	o.now = (int64_t)time(NULL);
	o.dry_run = dry_run ? stdout : NULL;
	s = pw_digest_queue(db, cfg, &o, &st, &err);
	if (s) {
		fprintf(stderr, "patchwarden digest: %s\n", err ? err : pw_status_str(s));
		rc = s == PW_ERR_USAGE ? 2 : EX_TEMPFAIL;
		goto out;
	}
	rc = 0;
	if (dry_run)
		goto out;
	printf("digests: queued=%d held=%d nothing-new=%d\n", st.queued,
	       st.held, st.empty);
	if (pw_reply_send_due(db, cfg, &so, &ost, &err)) {
		pw_warn("outbox: %s; the digests wait for the next send",
			err ? err : "sending failed");
		g_clear_pointer(&err, g_free);
	}
	summary = pw_reply_send_summary(cfg, &ost);
	printf("outbox: %s\n", summary);
	g_free(summary);
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(err);
	g_free(db_path);
	g_free(config);
	g_free(list);
	g_free(since);
	return rc;
}
