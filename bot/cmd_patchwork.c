/*
 * patchwarden patchwork [--config FILE] [--db PATH] list [--state S]
 *                       [--format text|json|csv] [--json]
 * patchwarden patchwork [--config FILE] [--db PATH] post [--all] [--limit N]
 * patchwarden patchwork [--config FILE] [--db PATH] retry ID|--all-failed
 *
 * The checks owed to Patchwork instances ([patchwork NAME]): list shows
 * them with Patchwork's answers; post posts what is due now (the service
 * does the same as it goes) and prints one key=value line; retry makes
 * a failed check (or every one) pending and due now, its attempts
 * counted afresh.  Exit status as "outbox send": 0 fine; 1 some check
 * deferred or failed, or another process is posting; 2 usage, no such
 * check or one that cannot be retried; 75 (EX_TEMPFAIL) the
 * configuration could not be read, or the store could not be opened or
 * failed.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/patchwork.h"
#include "bot/printer.h"
#include "db/pwcheck.h"

/* One line of "list": tab-separated, Patchwork's answer or the error last. */
static const char list_layout[] =
	"%(id)\t%(instance)\t%(state)\t%(attempts)\t<%(message_id)>"
	"\t%(if:check_state)%(check_state)%(else)-%(end)"
	"\t%(if:description)%(description)%(else)-%(end)"
	"%(if:last_error)\t%(last_error)%(else)%(if:check_url)\t%(check_url)%(end)%(end)"
	"\n";

static void print_row(struct pw_printer *p, const void *row)
{
	const struct pw_pwcheck_row *r = row;

	pw_print_begin_record(p);
	pw_print_int_at(p, "id", r->id);
	pw_print_str_at(p, "instance", r->instance);
	pw_print_str_at(p, "state", r->state);
	pw_print_int_at(p, "attempts", r->attempts);
	pw_print_str_at(p, "message_id", r->msgid);
	pw_print_str_at(p, "check_state", r->check_state);
	pw_print_str_at(p, "description", r->description);
	pw_print_str_at(p, "target_url", r->target_url);
	pw_print_int_at(p, "http_status", r->http_status);
	pw_print_int_at(p, "patch_id", r->patch_id);
	pw_print_str_at(p, "check_url", r->check_url);
	pw_print_str_at(p, "last_error", r->last_error);
	pw_print_bool_at(p, "unsure", r->unsure);
	pw_print_int_at(p, "created_at", r->created_at);
	pw_print_int_at(p, "next_attempt", r->next_attempt);
	pw_print_int_at(p, "last_attempt", r->last_attempt);
	pw_print_int_at(p, "posted_at", r->posted_at);
	pw_print_end(p);
}

static int list(struct pw_db *db, const char *state, enum pw_format fmt)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_pwcheck_row_free);
	int rc = pw_cli_print_rows(db, pw_db_pwcheck_list(db, state, rows),
				   rows, fmt, list_layout, print_row);

	g_ptr_array_unref(rows);
	return rc;
}

static int post(struct pw_db *db, const struct pw_config *cfg, bool all,
		int limit)
{
	struct pw_patchwork_opts o = { .limit = limit, .all = all };
	struct pw_patchwork_stats st;
	char *err = NULL;
	enum pw_status s = pw_patchwork_post_due(db, cfg, &o, &st, &err);
	const struct pw_count n[] = {
		{ "attempted", st.attempted }, { "posted", st.posted },
		{ "deferred", st.deferred }, { "failed", st.failed },
		{ "recovered", st.recovered },
	};

	if (pw_cli_run_stopped("patchwork post", n, G_N_ELEMENTS(n), s, err))
		return s == PW_ERR_TRANSIENT ? 1 : EX_TEMPFAIL;
	if (!cfg->patchwork->len)
		pw_warn("patchwork post: no [patchwork NAME] in the configuration");
	return st.deferred || st.failed ? 1 : 0;
}

static int retry(struct pw_db *db, int64_t id, bool all_failed)
{
	int64_t t = (int64_t)time(NULL);
	const char *why = NULL;
	enum pw_status s;
	int n = 0;

	if (all_failed) {
		s = pw_db_pwcheck_release_failed(db, t, &n);
		if (s) {
			pw_error("%s", pw_db_errmsg(db));
			return EX_TEMPFAIL;
		}
		printf("%d failed checks rescheduled: pending, due now\n", n);
		return 0;
	}
	s = pw_db_pwcheck_release(db, id, t, &why);
	if (s == PW_ERR_INPUT) {
		fprintf(stderr, "patchwarden patchwork: check %" G_GINT64_FORMAT
			": %s\n", id, why ? why : "cannot be retried");
		return 2;
	}
	if (s) {
		pw_error("%s", pw_db_errmsg(db));
		return EX_TEMPFAIL;
	}
	printf("check %" G_GINT64_FORMAT " rescheduled: pending, due now;"
	       " the next 'patchwork post' (or the service) posts it\n", id);
	return 0;
}

int pw_cmd_patchwork(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *format = NULL, *state = NULL;
	gboolean all = FALSE, all_failed = FALSE, json = FALSE;
	int limit = 0;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "list: text (default), json or csv", "FORMAT" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json, "list: --format json", NULL },
		{ "state", 0, 0, G_OPTION_ARG_STRING, &state, "list: only checks in this state", "STATE" },
		{ "all", 0, 0, G_OPTION_ARG_NONE, &all, "post: every pending check, due or not", NULL },
		{ "limit", 0, 0, G_OPTION_ARG_INT, &limit, "post: at most N checks (default 100)", "N" },
		{ "all-failed", 0, 0, G_OPTION_ARG_NONE, &all_failed, "retry: every failed check", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	static const char usage[] =
		"usage: patchwarden patchwork [--config FILE] [--db PATH] "
		"list [--state S] [--format json|csv] [--json] | post [--all] "
		"[--limit N] | retry ID|--all-failed\n";
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	const char *cmd;
	enum pw_format fmt;
	int64_t id = 0;
	int rc = 2;

	if (!pw_cli_parse("patchwork", "list|post|retry ID|--all-failed",
			  entries, &argc, &argv))
		goto out;
	if (argc < 2) {
		fputs(usage, stderr);
		goto out;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "list") || !strcmp(cmd, "post")) {
		if (argc != 2 || all_failed) {
			fputs(usage, stderr);
			goto out;
		}
	} else if (!strcmp(cmd, "retry")) {
		if (all_failed ? argc != 2 : argc != 3 || !pw_cli_parse_id(argv[2], &id)) {
			fputs(usage, stderr);
			goto out;
		}
	} else {
		fputs(usage, stderr);
		goto out;
	}
	if (json && format && strcmp(format, "json")) {
		fprintf(stderr, "patchwarden patchwork: --json and --format %s\n",
			format);
		goto out;
	}
	if (!pw_format_parse(json ? "json" : format, true, &fmt)) {
		fprintf(stderr, "patchwarden patchwork: --format is text, json or csv\n");
		goto out;
	}
	if (state && strcmp(state, "pending") && strcmp(state, "posting") &&
	    strcmp(state, "posted") && strcmp(state, "failed")) {
		fprintf(stderr, "patchwarden patchwork: --state is pending, posting,"
			" posted or failed\n");
		goto out;
	}
	if (!pw_cli_open(config, db_path, !strcmp(cmd, "list"), &cfg, &db)) {
		rc = EX_TEMPFAIL;
		goto out;
	}
	if (!strcmp(cmd, "list"))
		rc = list(db, state, fmt);
	else if (!strcmp(cmd, "post"))
		rc = post(db, cfg, all, limit);
	else
		rc = retry(db, id, all_failed);
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(format);
	g_free(state);
	return rc;
}
