/*
 * patchwarden outbox [--config FILE] [--db PATH] list [--state S] [--format json]
 * patchwarden outbox [--config FILE] [--db PATH] show ID [--format json]
 * patchwarden outbox [--config FILE] [--db PATH] send [--all] [--limit N]
 * patchwarden outbox [--config FILE] [--db PATH] retry ID
 *
 * list and show read the stored replies; send sends what is due now (the
 * daemon calls the same code on its own schedule) and prints one
 * key=value line; retry makes a failed or suppressed reply pending and
 * due now.  Exit status: 0 fine, 1 some reply deferred or failed, 2 usage,
 * configuration or database error.
 */
#include <stdio.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/json.h"
#include "bot/log.h"
#include "bot/reply_send.h"
#include "db/outbox.h"

static void json_row(JsonBuilder *b, const struct pw_outbox_row *r)
{
	char **rcpt = g_strsplit(r->recipients, "\n", -1);
	size_t i, n;

	/* The stored list is one address a line: no empty members. */
	for (i = n = 0; rcpt[i]; i++) {
		if (*rcpt[i])
			rcpt[n++] = rcpt[i];
		else
			g_free(rcpt[i]);
	}
	rcpt[n] = NULL;
	json_builder_begin_object(b);
	pw_json_int(b, "id", r->id);
	pw_json_str(b, "kind", r->kind);
	pw_json_str(b, "state", r->state);
	pw_json_str(b, "reason", r->reason);
	pw_json_str(b, "to", r->rcpt_to);
	pw_json_strv(b, "recipients", rcpt);
	pw_json_str(b, "from", r->mail_from);
	pw_json_str(b, "message_id", r->msgid);
	pw_json_str(b, "in_reply_to", r->in_reply_to);
	pw_json_str(b, "answers", r->answers);
	pw_json_str(b, "subject", r->subject);
	pw_json_int(b, "attempts", r->attempts);
	pw_json_str(b, "last_error", r->last_error);
	pw_json_int(b, "smtp_code", r->smtp_code);
	pw_json_int(b, "created_at", r->created_at);
	pw_json_int(b, "next_attempt", r->next_attempt);
	pw_json_int(b, "last_attempt", r->last_attempt);
	pw_json_int(b, "sent_at", r->sent_at);
	pw_json_str(b, "transport", r->transport);
	if (r->raw) {
		char *text = g_strndup(g_bytes_get_data(r->raw, NULL),
				       g_bytes_get_size(r->raw));

		pw_json_str(b, "raw", text);
		g_free(text);
	}
	json_builder_end_object(b);
	g_strfreev(rcpt);
}

static int list(struct pw_db *db, const char *state, bool json)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_outbox_row_free);
	guint i;
	int rc = 2;

	if (pw_db_outbox_list(db, state, rows)) {
		pw_error("%s", pw_db_errmsg(db));
		goto out;
	}
	if (json) {
		JsonBuilder *b = json_builder_new();

		json_builder_begin_array(b);
		for (i = 0; i < rows->len; i++)
			json_row(b, g_ptr_array_index(rows, i));
		json_builder_end_array(b);
		pw_json_print(b, stdout);
		g_object_unref(b);
	} else {
		for (i = 0; i < rows->len; i++) {
			const struct pw_outbox_row *r = g_ptr_array_index(rows, i);
			const char *note = r->reason ? r->reason : r->last_error;

			printf("%" G_GINT64_FORMAT "\t%s\t%d\t%s\t%s%s%s\n", r->id,
			       r->state, r->attempts, r->rcpt_to, r->subject,
			       note ? "\t" : "", note ? note : "");
		}
	}
	rc = 0;
out:
	g_ptr_array_unref(rows);
	return rc;
}

static bool parse_id(const char *s, int64_t *id)
{
	char *end;
	gint64 v = g_ascii_strtoll(s, &end, 10);

	if (end == s || *end || v <= 0)
		return false;
	*id = v;
	return true;
}

static int show(struct pw_db *db, int64_t id, bool json)
{
	struct pw_outbox_row *r = NULL;
	bool found;
	enum pw_status s = pw_db_outbox_get(db, id, true, &r, &found);
	gsize len, i;
	const char *p;

	if (!s && !found) {
		fprintf(stderr, "patchwarden outbox: no reply %" G_GINT64_FORMAT "\n", id);
		return 2;
	}
	if (s) {
		pw_error("%s", pw_db_errmsg(db));
		return 2;
	}
	if (json) {
		JsonBuilder *b = json_builder_new();

		json_row(b, r);
		pw_json_print(b, stdout);
		g_object_unref(b);
		pw_outbox_row_free(r);
		return 0;
	}
	printf("id: %" G_GINT64_FORMAT "\nkind: %s\nanswers: %s\nstate: %s\n",
	       r->id, r->kind, r->answers, r->state);
	if (r->reason)
		printf("reason: %s\n", r->reason);
	printf("attempts: %d\n", r->attempts);
	if (r->last_error)
		printf("last error: %s (SMTP %d)\n", r->last_error, r->smtp_code);
	if (r->transport)
		printf("sent through: %s\n", r->transport);
	printf("\n");
	/* The stored message, with CRLF shown as plain line ends. */
	p = g_bytes_get_data(r->raw, &len);
	for (i = 0; i < len; i++)
		if (!(p[i] == '\r' && i + 1 < len && p[i + 1] == '\n'))
			putchar(p[i]);
	pw_outbox_row_free(r);
	return 0;
}

static int send(struct pw_db *db, const struct pw_config *cfg, bool all,
		int limit)
{
	struct pw_reply_send_opts o = { .limit = limit, .all = all };
	struct pw_reply_send_stats st;
	char *err = NULL;
	enum pw_status s = pw_reply_send_due(db, cfg, &o, &st, &err);

	printf("attempted=%d sent=%d deferred=%d failed=%d recovered=%d\n",
	       st.attempted, st.sent, st.deferred, st.failed, st.recovered);
	if (s) {
		pw_error("outbox send: %s", err ? err : pw_status_str(s));
		g_free(err);
		return s == PW_ERR_TRANSIENT ? 1 : 2;
	}
	return st.deferred || st.failed ? 1 : 0;
}

static int retry(struct pw_db *db, int64_t id)
{
	const char *why = NULL;
	enum pw_status s = pw_db_outbox_release(db, id,
						g_get_real_time() / G_USEC_PER_SEC,
						&why);

	if (s == PW_ERR_INPUT) {
		fprintf(stderr, "patchwarden outbox: reply %" G_GINT64_FORMAT
			": %s\n", id, why ? why : "cannot be retried");
		return 2;
	}
	if (s) {
		pw_error("%s", pw_db_errmsg(db));
		return 2;
	}
	printf("reply %" G_GINT64_FORMAT " is pending, due now\n", id);
	return 0;
}

int pw_cmd_outbox(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *format = NULL, *state = NULL;
	gboolean all = FALSE;
	int limit = 0;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "list, show: text (default) or json", "FORMAT" },
		{ "state", 0, 0, G_OPTION_ARG_STRING, &state, "list: only replies in this state", "STATE" },
		{ "all", 0, 0, G_OPTION_ARG_NONE, &all, "send: every pending reply, due or not", NULL },
		{ "limit", 0, 0, G_OPTION_ARG_INT, &limit, "send: at most N replies (default 100)", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	static const char usage[] =
		"usage: patchwarden outbox [--config FILE] [--db PATH] "
		"list [--state S] [--format json] | show ID | send [--all] "
		"[--limit N] | retry ID\n";
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	const char *cmd;
	bool json = false, readonly;
	int64_t id = 0;
	int rc = 2;

	if (!pw_cli_parse("outbox", "list|show ID|send|retry ID", entries,
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
		if (argc != 3 || !parse_id(argv[2], &id)) {
			fputs(usage, stderr);
			goto out;
		}
	} else {
		fputs(usage, stderr);
		goto out;
	}
	if (format && strcmp(format, "text") && !(json = !strcmp(format, "json"))) {
		fprintf(stderr, "patchwarden outbox: --format is text or json\n");
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
	if (!pw_cli_open(config, db_path, readonly, &cfg, &db))
		goto out;
	if (!strcmp(cmd, "list"))
		rc = list(db, state, json);
	else if (!strcmp(cmd, "show"))
		rc = show(db, id, json);
	else if (!strcmp(cmd, "send"))
		rc = send(db, cfg, all, limit);
	else
		rc = retry(db, id);
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(format);
	g_free(state);
	return rc;
}
