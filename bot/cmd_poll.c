/*
 * patchwarden poll [--db PATH] [--config FILE] [--format text|json]
 *                  [--progress N] [NAME...]
 *
 * One pass over the subscriptions (every one not paused, or those
 * named), then exit: each source's new mail is stored, checked, filed
 * into series and floods, and, after a subscription's first poll,
 * answered under the reply policy (the replies wait in the outbox for
 * "outbox send" or the service).  Prints one line per source with what
 * it added and the findings it stored.  Exit status (README.md, "Exit
 * status"): 0 every source polled and every message stored, findings or
 * not; 1 some failed (each says why, and "subscribe list" keeps it), or
 * some messages could not be read or stored (kept as ingest errors:
 * "query errors"); 2 usage, or a name that is no subscription; 75
 * (EX_TEMPFAIL) the configuration could not be read or was refused, or
 * the store could not be opened or failed.  SIGTERM or SIGINT stops it cleanly: what was read is kept.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/printer.h"
#include "bot/report.h"
#include "bot/signals.h"
#include "bot/subscription.h"
#include "bot/tree.h"

/*
 * Keeps in subs those to poll: the ones named (false unless every name
 * is there), or, with none named, every one not paused.
 */
static bool choose(GPtrArray *subs, char **names, int n)
{
	bool ok = true;
	guint i;
	int k;

	for (k = 0; k < n; k++) {
		for (i = 0; i < subs->len; i++)
			if (!strcmp(((struct pw_subscription *)subs->pdata[i])->name,
				    names[k]))
				break;
		if (i == subs->len) {
			fprintf(stderr, "patchwarden poll: no subscription '%s'"
				" ('subscribe list')\n", names[k]);
			ok = false;
		}
	}
	for (i = subs->len; i-- > 0;) {
		struct pw_subscription *s = subs->pdata[i];
		bool keep = n == 0 && !s->paused;

		for (k = 0; k < n; k++)
			keep |= !strcmp(s->name, names[k]);
		if (!keep)
			g_ptr_array_remove_index(subs, i);
	}
	return ok;
}

void pw_poll_print(const struct pw_subscription *s,
		   const struct pw_ingest_counts *c,
		   const struct pw_finding_counts *fc, const char *error,
		   bool json)
{
	pw_report_stored(stdout, s->name, c, fc, true, error, json);
}

int pw_cmd_poll(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *format = NULL;
	gint every = 0;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default) or json", "FORMAT" },
		{ "progress", 0, 0, G_OPTION_ARG_INT, &every, "a progress line on stderr every N messages", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	GPtrArray *subs = NULL;
	enum pw_format f;
	guint i;
	int rc = 2;

	if (!pw_cli_parse("poll", "[NAME...]", entries, &argc, &argv))
		goto out;
	if (!pw_format_parse(format, false, &f)) {
		fprintf(stderr, "patchwarden poll: --format is text or json\n");
		goto out;
	}
	if (every < 0) {
		fprintf(stderr, "patchwarden poll: --progress takes a number of"
			" messages\n");
		goto out;
	}
	if (!pw_cli_open(config, db_path, false, &cfg, &db)) {
		rc = EX_TEMPFAIL;
		goto out;
	}
	if (pw_db_subscription_list(db, &subs)) {
		pw_error("%s", pw_db_errmsg(db));
		rc = EX_TEMPFAIL;
		goto out;
	}
	if (!choose(subs, argv + 1, argc - 1))
		goto out;
	if (!subs->len && !(argc <= 1 && pw_tree_any(cfg))) {
		fprintf(stderr, "patchwarden poll: nothing to poll: no"
			" subscriptions, or all paused\n");
		rc = 0;
		goto out;
	}
	pw_signals_install();
	rc = 0;
	for (i = 0; i < subs->len && !pw_stop_requested; i++) {
		struct pw_subscription *s = subs->pdata[i];
		struct pw_ingest_counts c = { 0 };
		struct pw_finding_counts fc = { 0 };
		char *err = NULL;
		enum pw_status st;

		struct pw_subscription cur;
		bool found;

		/* As it is now: removed meanwhile (by another command), it
		 * is left alone. */
		if (pw_db_subscription_get_id(db, s->id, &cur, &found)) {
			pw_error("%s", pw_db_errmsg(db));
			rc = EX_TEMPFAIL;
			break;
		}
		if (!found) {
			pw_subscription_release(&cur);
			continue;
		}
		/* The findings this poll stores, whoever makes them: the
		 * patch checks on its new patches, flood detection on them
		 * and on the earlier patches of a flood they grow. */
		if (pw_db_finding_tally_start(db)) {
			pw_error("%s", pw_db_errmsg(db));
			pw_subscription_release(&cur);
			rc = EX_TEMPFAIL;
			break;
		}
		st = pw_subscription_poll_progress(db, cfg, &cur, &pw_stop_requested,
						   every, false, &c, &err);
		if (st != PW_ERR_DB && st != PW_ERR_TRANSIENT &&
		    pw_db_finding_tally(db, &fc)) {
			pw_error("%s", pw_db_errmsg(db));
			st = PW_ERR_DB;
		}
		pw_poll_print(&cur, &c, &fc,
			      st ? (err ? err : pw_status_str(st)) : NULL,
			      f == PW_FORMAT_JSON);
		/* Messages it could not read are stored as ingest errors
		 * and passed over, as ingest does with a file's: the poll
		 * went on, but it did not store everything ("query errors"
		 * lists them). */
		if (c.errors && !st) {
			fprintf(stderr, "patchwarden poll: %s: %" G_GINT64_FORMAT
				" messages could not be read or stored; 'patchwarden"
				" query errors' lists them\n", cur.name,
				(gint64)c.errors);
			rc = rc ? rc : 1;
		}
		pw_subscription_release(&cur);
		g_free(err);
		if (st == PW_ERR_DB || st == PW_ERR_TRANSIENT) {
			rc = EX_TEMPFAIL;
			break;
		}
		if (st)
			rc = 1;
	}
	/* The maintainers' trees after the mail, which they mark applied. */
	if (rc != EX_TEMPFAIL && argc <= 1 && !pw_stop_requested &&
	    !pw_tree_poll_all(db, cfg, &pw_stop_requested, stdout,
			      f == PW_FORMAT_JSON))
		rc = rc ? rc : 1;
	if (pw_stop_requested)
		fprintf(stderr, "patchwarden poll: stopped; what was read is stored\n");
out:
	if (subs)
		g_ptr_array_free(subs, TRUE);
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(format);
	return rc;
}
