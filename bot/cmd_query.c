/*
 * patchwarden query [--db PATH] [--config FILE] KIND [FILTERS]
 *                   [--format text|json|csv] [--limit N] [--offset N]
 * patchwarden query ... message MSGID [--format text|json]
 *
 * Reads the stored history without changing it.  KIND is decisions (the
 * maintainers' decisions, bot/triage.h: --list only), series,
 * patches, findings, floods, senders, stats or errors (the messages that
 * could not be read or stored, with where and why); the filters (bot/report.h)
 * are the query parameters of the dashboard's /api/KIND under the same
 * names.  Text is one line per row for people; json is one array of
 * objects for programs; csv is a header line and one line per row (RFC
 * 4180) for spreadsheets.  At most --limit rows (1000 by default, 0 for
 * all) are printed, oldest first unless --order newest; a note on
 * stderr says when there are more.  message shows one stored message,
 * what was read from it, its findings, flood and replies.  Exit status:
 * 0 (whatever was found), 2 usage or database error.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/mail.h"
#include "bot/pubinbox.h"
#include "bot/printer.h"
#include "bot/report.h"
#include "bot/triage.h"

#define DEFAULT_LIMIT 1000

static const char usage_text[] =
	"usage: patchwarden query [--db PATH] [--config FILE] KIND [filters] [--format text|json|csv]\n"
	"  KIND: series, patches, findings, floods, senders, stats, errors, attention,\n"
	"        decisions;\n"
	"        or message MSGID\n"
	"  filters: --list NAME --from ADDR --since WHEN --until WHEN --rule ID\n"
	"           --severity LEVEL --path GLOB --version N --has-findings yes|no\n"
	"           --state complete|incomplete|flood --series ID --per day|week\n"
	"           --message MSGID (floods) --order newest|oldest --limit N --offset N\n";

/* The message subcommand: one stored message in full. */
static int message(struct pw_db *db, const char *msgid, enum pw_format fmt)
{
	struct pw_query_message *m = NULL;
	struct pw_mail *mail = NULL;
	struct pw_printer *p;
	size_t len = strlen(msgid);
	char *bare = len > 2 && *msgid == '<' && msgid[len - 1] == '>' ?
		g_strndup(msgid + 1, len - 2) : g_strdup(msgid);
	GBytes *raw = NULL;
	char *diff = NULL;
	bool found;
	int rc = 2;

	if (pw_db_query_message(db, bare, &m, &found)) {
		pw_error("%s", pw_db_errmsg(db));
		goto out;
	}
	if (!found) {
		char *shown = g_utf8_make_valid(msgid, -1);

		pw_error("no stored message has the Message-ID %s", shown);
		g_free(shown);
		goto out;
	}
	if (pw_pubinbox_message(db, m->id, &raw)) {
		pw_error("%s", pw_db_errmsg(db));
		goto out;
	}
	if (raw) {
		gsize n;
		const char *b = g_bytes_get_data(raw, &n);

		pw_mail_parse(b, n, &mail, NULL);
	}
	p = pw_printer_new(fmt, stdout,
			   "%(kind) <%(msgid)> %(from) %(date)\n"
			   "subject: %(subject)\n"
			   "lists: %(lists)%(if:series)\nseries: %(series)%(end)"
			   "%(if:flood)\nflood: %(flood)%(end)\n"
			   "%(if:commit_message)\n%(commit_message:block)%(end)"
			   "%(if:diff)\n%(diff:block)%(end)", 0);
	/* A damaged diff whole, as the mail has it. */
	if (mail && mail->diff)
		diff = g_strconcat(mail->diff, mail->diff_rest ?
				   mail->diff_rest : "", NULL);
	pw_report_message(p, m, mail ? mail->commit_msg : NULL, diff);
	pw_printer_free(p);
	if (fmt == PW_FORMAT_TEXT) {
		/* Findings and replies, one line each, after the message. */
		struct pw_printer *fp = pw_printer_new(fmt, stdout,
			pw_report_layout(PW_REPORT_FINDINGS), 0);
		guint i;

		pw_print_begin_list(fp);
		for (i = 0; i < m->findings->len; i++)
			pw_report_finding(fp, m->findings->pdata[i]);
		pw_print_end(fp);
		pw_printer_free(fp);
		for (i = 0; i < m->replies->len; i++) {
			const struct pw_query_reply *q = m->replies->pdata[i];

			printf("reply %" G_GINT64_FORMAT " %s %s%s%s\n",
			       (gint64)q->id, q->kind, q->state,
			       q->reason ? ": " : "", q->reason ? q->reason : "");
		}
	}
	rc = 0;
out:
	g_free(diff);
	pw_mail_free(mail);
	if (raw)
		g_bytes_unref(raw);
	pw_query_message_free(m);
	g_free(bare);
	return rc;
}

/* The filter options, in the order they are checked. */
static const char *const filter_keys[] = {
	"list", "from", "since", "until", "rule", "severity", "path",
	"version", "has-findings", "state", "series", "per", "message",
	"order", "limit", "offset",
};

/*
 * The decisions subcommand: the maintainers' decisions (bot/triage.h),
 * about one list with --list (vals[0]), the only filter it takes.
 */
static int decisions(const char *config, const char *db_path,
		     const char *format, char **vals)
{
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	struct pw_printer *p;
	enum pw_format fmt;
	size_t i;
	int rc = 2;

	for (i = 1; i < G_N_ELEMENTS(filter_keys); i++)
		if (vals[i]) {
			fprintf(stderr, "patchwarden query: --%s does not apply"
				" to decisions\n", filter_keys[i]);
			return 2;
		}
	if (!pw_format_parse(format, true, &fmt)) {
		fprintf(stderr, "patchwarden query: --format is text, json or csv\n");
		return 2;
	}
	if (!pw_cli_open(config, db_path, true, &cfg, &db))
		return EX_TEMPFAIL;
	p = pw_printer_new(fmt, stdout, pw_triage_layout, 0);
	if (pw_triage_print_list(db, vals[0], p))
		pw_error("%s", pw_db_errmsg(db));
	else
		rc = 0;
	pw_printer_free(p);
	pw_db_close(db);
	pw_config_free(cfg);
	return rc;
}

int pw_cmd_query(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *format = NULL;
	char *vals[G_N_ELEMENTS(filter_keys)] = { NULL };
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default), json or csv", "FORMAT" },
		{ "list", 0, 0, G_OPTION_ARG_STRING, &vals[0], "only what was seen on this list", "NAME" },
		{ "from", 0, 0, G_OPTION_ARG_STRING, &vals[1], "only from this author or sender address", "ADDR" },
		{ "since", 0, 0, G_OPTION_ARG_STRING, &vals[2], "only what is dated since (YYYY-MM-DD, @unix, 7d, 12h)", "WHEN" },
		{ "until", 0, 0, G_OPTION_ARG_STRING, &vals[3], "only what is dated before", "WHEN" },
		{ "rule", 0, 0, G_OPTION_ARG_STRING, &vals[4], "only this rule ID (any case)", "ID" },
		{ "severity", 0, 0, G_OPTION_ARG_STRING, &vals[5], "findings, stats, senders, attention: the least severe shown: error, warning (default) or info (every finding)", "LEVEL" },
		{ "path", 0, 0, G_OPTION_ARG_STRING, &vals[6], "findings: in files matching this glob", "GLOB" },
		{ "version", 0, 0, G_OPTION_ARG_STRING, &vals[7], "series, patches: only this version", "N" },
		{ "has-findings", 0, 0, G_OPTION_ARG_STRING, &vals[8], "series, patches, senders: with findings (yes) or without (no)", "yes|no" },
		{ "state", 0, 0, G_OPTION_ARG_STRING, &vals[9], "series: complete, incomplete or flood", "STATE" },
		{ "series", 0, 0, G_OPTION_ARG_STRING, &vals[10], "patches, findings: of this series", "ID" },
		{ "per", 0, 0, G_OPTION_ARG_STRING, &vals[11], "stats: per day (default) or week", "day|week" },
		{ "message", 0, 0, G_OPTION_ARG_STRING, &vals[12], "floods: the flood this Message-ID belongs to", "MSGID" },
		{ "order", 0, 0, G_OPTION_ARG_STRING, &vals[13], "oldest first (default) or newest", "newest|oldest" },
		{ "limit", 0, 0, G_OPTION_ARG_STRING, &vals[14], "at most N rows (default 1000, 0: all)", "N" },
		{ "offset", 0, 0, G_OPTION_ARG_STRING, &vals[15], "skip the first N rows", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_report *r = NULL;
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	struct pw_printer *p;
	enum pw_format fmt;
	char *err = NULL;
	bool more = false;
	size_t i;
	int rc = 2;

	if (!pw_cli_parse("query", "KIND", entries, &argc, &argv))
		goto out;
	if (argc == 3 && !strcmp(argv[1], "message")) {
		for (i = 0; i < G_N_ELEMENTS(vals); i++)
			if (vals[i]) {
				fprintf(stderr, "patchwarden query: message takes"
					" no --%s\n", filter_keys[i]);
				goto out;
			}
		if (!pw_format_parse(format, false, &fmt)) {
			fprintf(stderr, "patchwarden query: message: --format is"
				" text or json\n");
			goto out;
		}
		if (!pw_cli_open(config, db_path, true, &cfg, &db)) {
			rc = EX_TEMPFAIL;
			goto out;
		}
		rc = message(db, argv[2], fmt);
		goto out;
	}
	if (argc == 2 && !strcmp(argv[1], "decisions")) {
		rc = decisions(config, db_path, format, vals);
		goto out;
	}
	if (argc != 2) {
		fputs(usage_text, stderr);
		goto out;
	}
	r = pw_report_new(argv[1], DEFAULT_LIMIT, 0, false, &err);
	if (!r) {
		fprintf(stderr, "patchwarden query: '%s': %s\n%s", argv[1], err,
			usage_text);
		goto out;
	}
	if (!pw_format_parse(format, true, &fmt)) {
		fprintf(stderr, "patchwarden query: --format is text, json or csv\n");
		goto out;
	}
	/* What the kind does not take is refused before the store opens. */
	for (i = 0; i < G_N_ELEMENTS(vals); i++)
		if (vals[i] && !pw_report_takes(r, filter_keys[i])) {
			fprintf(stderr, "patchwarden query: --%s does not apply"
				" to %s\n", filter_keys[i], argv[1]);
			goto out;
		}
	if (!pw_cli_open(config, db_path, true, &cfg, &db)) {
		rc = EX_TEMPFAIL;	/* not the question's fault */
		goto out;
	}
	for (i = 0; i < G_N_ELEMENTS(vals); i++)
		if (vals[i] && !pw_report_set(r, db, filter_keys[i], vals[i], &err)) {
			fprintf(stderr, "patchwarden query: --%s\n", err);
			goto out;
		}
	p = pw_printer_new(fmt, stdout, pw_report_layout_of(r), 0);
	if (pw_report_print(db, r, p, &more, &err)) {
		pw_error("%s", err ? err : pw_db_errmsg(db));
		pw_printer_free(p);
		goto out;
	}
	pw_printer_free(p);
	if (more)
		fprintf(stderr, "patchwarden query: more than %" G_GINT64_FORMAT
			" rows; --offset %" G_GINT64_FORMAT " shows the next\n",
			(gint64)r->f.limit, (gint64)(r->f.offset + r->f.limit));
	rc = 0;
out:
	pw_report_free(r);
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(format);
	g_free(err);
	for (i = 0; i < G_N_ELEMENTS(vals); i++)
		g_free(vals[i]);
	return rc;
}
