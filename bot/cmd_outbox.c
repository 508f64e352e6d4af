/*
 * patchwarden outbox [--config FILE] [--db PATH] list [--state S]
 *                    [--format text|json|csv]
 * patchwarden outbox [--config FILE] [--db PATH] show ID [--format text|json]
 * patchwarden outbox [--config FILE] [--db PATH] send [--all] [--limit N]
 * patchwarden outbox [--config FILE] [--db PATH] retry ID [--now]
 *
 * list and show read the stored replies; send sends what is due now (the
 * daemon calls the same code on its own schedule) and prints one
 * key=value line; retry reschedules a failed or suppressed reply:
 * pending and due now, for the next send (by "outbox send" or the
 * service), or, with --now, sends it at once.  Exit status (README.md,
 * "Exit status"): 0 fine; 1 some reply deferred or failed, or another
 * process is sending the outbox; 2 usage, no such reply, one that cannot
 * be retried, or sending stopped by a refused login, certificate or
 * sender; 75 (EX_TEMPFAIL) the configuration could not be read or was
 * refused, or the store could not be opened or failed.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/printer.h"
#include "bot/report.h"
#include "bot/reply_send.h"
#include "db/outbox.h"

/* One line of "list": tab-separated, the note last when there is one. */
static const char list_layout[] =
	"%(id)\t%(state)\t%(attempts)\t%(to)\t%(subject)"
	"%(if:reason)\t%(reason)%(else)%(if:last_error)\t%(last_error)%(end)%(end)"
	"\n";

/* "show": the facts, then the stored message with CRLF as plain ends. */
static const char show_layout[] =
	"id: %(id)\nkind: %(kind)\nanswers: %(answers)\nstate: %(state)\n"
	"%(if:reason)reason: %(reason)\n%(end)"
	"attempts: %(attempts)\n"
	"%(if:last_error)last error: %(last_error) (SMTP %(smtp_code))\n%(end)"
	"%(if:transport)sent through: %(transport)\n%(end)"
	"\n%(raw:lf)";

static void print_row(struct pw_printer *p, const void *row)
{
	pw_report_outbox_row(p, row);
}

static int list(struct pw_db *db, const char *state, enum pw_format fmt)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_outbox_row_free);
	int rc = pw_cli_print_rows(db, pw_db_outbox_list(db, state, rows),
				   rows, fmt, list_layout, print_row);

	g_ptr_array_unref(rows);
	return rc;
}

static int show(struct pw_db *db, int64_t id, enum pw_format fmt)
{
	struct pw_outbox_row *r = NULL;
	bool found;
	enum pw_status s = pw_db_outbox_get(db, id, true, &r, &found);
	struct pw_printer *p;

	if (!s && !found) {
		fprintf(stderr, "patchwarden outbox: no reply %" G_GINT64_FORMAT "\n", id);
		return 2;
	}
	if (s) {
		pw_error("%s", pw_db_errmsg(db));
		return EX_TEMPFAIL;
	}
	p = pw_printer_new(fmt, stdout, show_layout, 0);
	pw_report_outbox_row(p, r);
	pw_printer_free(p);
	pw_outbox_row_free(r);
	return 0;
}

/*
 * The exit status of a send that stopped: 1 when another process is
 * sending (or the server asked to come back later), 75 when the store
 * failed, 2 when the configuration or the server refused us (a login,
 * a certificate, the sender), which needs the administrator.
 */
static int send_status(enum pw_status s)
{
	return s == PW_ERR_TRANSIENT ? 1 : s == PW_ERR_DB ? EX_TEMPFAIL : 2;
}

static int send(struct pw_db *db, const struct pw_config *cfg, bool all,
		int limit)
{
	struct pw_reply_send_opts o = { .limit = limit, .all = all };
	struct pw_reply_send_stats st;
	char *err = NULL;
	enum pw_status s = pw_reply_send_due(db, cfg, &o, &st, &err);
	const struct pw_count n[] = {
		{ "attempted", st.attempted }, { "sent", st.sent },
		{ "deferred", st.deferred }, { "failed", st.failed },
		{ "recovered", st.recovered },
	};

	if (pw_cli_run_stopped("outbox send", n, G_N_ELEMENTS(n), s, err))
		return send_status(s);
	return st.deferred || st.failed ? 1 : 0;
}

/*
 * Sends reply id, released due before every other (retry --now): the
 * batch is that one reply.  Says what became of it.
 */
static int send_one(struct pw_db *db, const struct pw_config *cfg, int64_t id)
{
	struct pw_reply_send_opts o = { .limit = 1 };
	struct pw_reply_send_stats st;
	struct pw_outbox_row *r = NULL;
	char *err = NULL;
	enum pw_status s = pw_reply_send_due(db, cfg, &o, &st, &err);
	bool found;
	int rc;

	if (s) {
		pw_error("outbox retry: reply %" G_GINT64_FORMAT " not sent: %s;"
			 " it is pending, due now", id,
			 err ? err : pw_status_str(s));
		g_free(err);
		return send_status(s);
	}
	if (pw_db_outbox_get(db, id, false, &r, &found) || !found) {
		pw_error("%s", pw_db_errmsg(db));
		pw_outbox_row_free(r);
		return EX_TEMPFAIL;
	}
	if (!strcmp(r->state, "sent")) {
		printf("reply %" G_GINT64_FORMAT " sent", id);
		if (r->transport && !strcmp(r->transport, "mbox"))
			printf(" (dry run: written to %s)", cfg->dry_run_mbox);
		putchar('\n');
		rc = 0;
	} else {
		printf("reply %" G_GINT64_FORMAT " not sent: %s; it is %s\n", id,
		       r->last_error ? r->last_error : "not attempted",
		       !strcmp(r->state, "pending") ?
		       "pending, to be retried later" : r->state);
		rc = 1;
	}
	pw_outbox_row_free(r);
	return rc;
}

static int retry(struct pw_db *db, const struct pw_config *cfg, int64_t id,
		 bool now)
{
	const char *why = NULL;
	/* Due at once, or, to be sent now, due before every other. */
	enum pw_status s = pw_db_outbox_release(db, id,
						now ? 0 : g_get_real_time() / G_USEC_PER_SEC,
						&why);

	if (s == PW_ERR_INPUT) {
		fprintf(stderr, "patchwarden outbox: reply %" G_GINT64_FORMAT
			": %s\n", id, why ? why : "cannot be retried");
		return 2;
	}
	if (s) {
		pw_error("%s", pw_db_errmsg(db));
		return EX_TEMPFAIL;
	}
	if (now)
		return send_one(db, cfg, id);
	printf("reply %" G_GINT64_FORMAT " rescheduled: pending, due now;"
	       " the next 'outbox send' (or the service) sends it\n", id);
	return 0;
}

int pw_cmd_outbox(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *format = NULL, *state = NULL;
	gboolean all = FALSE, now = FALSE;
	int limit = 0;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "list, show: text (default) or json; list: csv", "FORMAT" },
		{ "state", 0, 0, G_OPTION_ARG_STRING, &state, "list: only replies in this state", "STATE" },
		{ "all", 0, 0, G_OPTION_ARG_NONE, &all, "send: every pending reply, due or not", NULL },
		{ "limit", 0, 0, G_OPTION_ARG_INT, &limit, "send: at most N replies (default 100)", "N" },
		{ "now", 0, 0, G_OPTION_ARG_NONE, &now, "retry: send it now, not at the next send", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	static const char usage[] =
		"usage: patchwarden outbox [--config FILE] [--db PATH] "
		"list [--state S] [--format json|csv] | show ID | send [--all] "
		"[--limit N] | retry ID [--now]\n";
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	const char *cmd;
	enum pw_format fmt;
	bool readonly;
	int64_t id = 0;
	int rc = 2;

	if (!pw_cli_parse("outbox", "list|show ID|send|retry ID [--now]", entries,
			  &argc, &argv))
		goto out;
	if (argc < 2) {
		fputs(usage, stderr);
		goto out;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "list") || !strcmp(cmd, "send")) {
		if (argc != 2) {
			fputs(usage, stderr);
			goto out;
		}
	} else if (!strcmp(cmd, "show") || !strcmp(cmd, "retry")) {
		if (argc != 3 || !pw_cli_parse_id(argv[2], &id)) {
			fputs(usage, stderr);
			goto out;
		}
	} else {
		fputs(usage, stderr);
		goto out;
	}
	if (now && strcmp(cmd, "retry")) {
		fprintf(stderr, "patchwarden outbox: --now is for retry\n");
		goto out;
	}
	if (!pw_format_parse(format, !strcmp(cmd, "list"), &fmt)) {
		fprintf(stderr, "patchwarden outbox: --format is %s\n",
			strcmp(cmd, "list") ? "text or json" : "text, json or csv");
		goto out;
	}
	if (state && strcmp(state, "pending") && strcmp(state, "sending") &&
	    strcmp(state, "sent") && strcmp(state, "failed") &&
	    strcmp(state, "suppressed")) {
		fprintf(stderr, "patchwarden outbox: --state is pending, sending, "
			"sent, failed or suppressed\n");
		goto out;
	}
	readonly = !strcmp(cmd, "list") || !strcmp(cmd, "show");
	if (!pw_cli_open(config, db_path, readonly, &cfg, &db)) {
		rc = EX_TEMPFAIL;
		goto out;
	}
	if (!strcmp(cmd, "list"))
		rc = list(db, state, fmt);
	else if (!strcmp(cmd, "show"))
		rc = show(db, id, fmt);
	else if (!strcmp(cmd, "send"))
		rc = send(db, cfg, all, limit);
	else
		rc = retry(db, cfg, id, now);
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(format);
	g_free(state);
	return rc;
}
