/*
 * patchwarden query [--db PATH] [--config FILE] floods [--since WHEN]
 *                   [--message MSGID] [--format text|json|csv]
 * patchwarden query ... findings [--rule ID] [--severity LEVEL]
 *                   [--since WHEN] [--from ADDR] [--list NAME] [--format ...]
 * patchwarden query ... series [--since WHEN] [--from ADDR] [--list NAME]
 *                   [--format ...]
 *
 * Reads the stored history without changing it.  floods lists the floods
 * whose latest patch is dated since WHEN, or the one flood that message
 * MSGID belongs to; findings the findings of patches dated since WHEN;
 * series the series active since WHEN.  Text is one line per row for
 * people; json is one array of objects for programs; csv is a header
 * line and one line per row (RFC 4180) for spreadsheets.  Exit status: 0
 * (whatever was found), 2 usage or database error.
 */
#include <stdio.h>
#include <string.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/printer.h"
#include "db/flood.h"
#include "db/query.h"

/* ---- floods ---- */

/* The names of the enum pw_flood_shared bits, lowest first. */
static const char *const shared_names[] = {
	"subject", "body", "shape", "patch_id",
};

static const char flood_layout[] =
	"%(id) %(rule) %(severity) %(sender) size=%(size)"
	"%(if:claimed_total) (claims %(claimed_total))%(end)"
	" first=%(first_seen) last=%(last_seen)"
	" lists=%(if:lists)%(lists)%(else)-%(end) recipients=%(recipients)"
	" %(if:threaded)threaded%(else)unthreaded%(end) \"%(subject)\"\n";

static void flood_print(struct pw_printer *p, const struct pw_flood_info *f)
{
	size_t i;

	pw_print_begin_record(p);
	pw_print_int_at(p, "id", f->id);
	pw_print_str_at(p, "rule", f->rule);
	pw_print_str_at(p, "severity", pw_severity_str(f->severity));
	pw_print_str_at(p, "sender", f->sender_addr);
	pw_print_str_at(p, "sender_name", f->sender_name);
	pw_print_str_at(p, "subject", f->subject);
	pw_print_int_at(p, "size", f->size);
	pw_print_int_at(p, "claimed_total", f->claimed_total);
	pw_print_time_at(p, "first_seen", f->first_seen);
	pw_print_time_at(p, "last_seen", f->last_seen);
	pw_print_time_at(p, "detected_at", f->detected_at);
	pw_print_strv_at(p, "lists", f->lists);
	pw_print_int_at(p, "recipients", f->recipients);
	pw_print_bool_at(p, "threaded", f->threaded);
	pw_print_int_at(p, "threaded_patches", f->nthreaded);
	pw_print_key(p, "shared");
	pw_print_begin_list(p);
	for (i = 0; i < G_N_ELEMENTS(shared_names); i++)
		if (f->shared & (1u << i))
			pw_print_string(p, shared_names[i]);
	pw_print_end(p);
	pw_print_key(p, "fingerprints");
	pw_print_begin_map(p);
	pw_print_str_at(p, "subject", *f->subject_fp ? f->subject_fp : NULL);
	pw_print_str_at(p, "body", *f->body_fp ? f->body_fp : NULL);
	pw_print_str_at(p, "shape", *f->shape_fp ? f->shape_fp : NULL);
	pw_print_end(p);
	pw_print_str_at(p, "first_message", f->first_msgid);
	pw_print_str_at(p, "key", f->key);
	pw_print_bool_at(p, "reported", f->reported_at != 0);
	pw_print_end(p);
}

/* The row id of the message msgid ("<...>" or bare) in *id, 0 for none. */
static enum pw_status message_find(struct pw_db *db, const char *msgid,
				   int64_t *id)
{
	size_t len = strlen(msgid);
	char *bare = len > 2 && *msgid == '<' && msgid[len - 1] == '>' ?
		g_strndup(msgid + 1, len - 2) : g_strdup(msgid);
	enum pw_status s;
	bool found;

	s = pw_db_message_find(db, bare, id, &found);
	if (!found)
		*id = 0;
	g_free(bare);
	return s;
}

static int floods(struct pw_db *db, int64_t since, const char *msgid,
		  enum pw_format fmt)
{
	struct pw_printer *p;
	GArray *ids;
	int rc = 0;
	guint i;

	/* One read transaction: a read that fails fails the query. */
	if (pw_db_begin(db)) {
		pw_error("%s", pw_db_errmsg(db));
		return 2;
	}
	p = pw_printer_new(fmt, stdout, flood_layout, 0);
	if (msgid) {
		/* The flood one message belongs to, if any. */
		int64_t mid, fid;
		bool found = false;

		ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
		if (message_find(db, msgid, &mid)) {
			pw_error("%s", pw_db_errmsg(db));
			rc = 2;
		} else if (!mid) {
			/* Not "in no flood": the store does not know it. */
			char *shown = g_utf8_make_valid(msgid, -1);

			pw_error("no stored message has the Message-ID %s", shown);
			g_free(shown);
			rc = 2;
		} else if (pw_db_flood_of_message(db, mid, &found, &fid)) {
			pw_error("%s", pw_db_errmsg(db));
			rc = 2;
		} else if (found) {
			g_array_append_val(ids, fid);
		}
	} else if (pw_db_flood_list(db, since, &ids)) {
		pw_error("%s", pw_db_errmsg(db));
		rc = 2;
		ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	}

	pw_print_begin_list(p);
	for (i = 0; i < ids->len; i++) {
		struct pw_flood_info f;
		enum pw_status s;

		s = pw_db_flood_info(db, g_array_index(ids, int64_t, i), &f);

		if (s == PW_ERR_INPUT)
			continue;
		if (s) {
			pw_error("%s", pw_db_errmsg(db));
			rc = 2;
			break;
		}
		flood_print(p, &f);
		pw_db_flood_info_release(&f);
	}
	if (pw_db_commit(db) && !rc) {
		pw_error("%s", pw_db_errmsg(db));
		rc = 2;
	}
	if (!rc)
		pw_print_end(p);
	pw_printer_free(p);
	g_array_unref(ids);
	return rc;
}

/* ---- findings ---- */

static const char finding_layout[] =
	"%(rule) %(severity) <%(msgid)> "
	"%(if:file)%(file)%(if:line):%(line)%(end)%(else)(patch)%(end)"
	": %(message)\n";

static int findings(struct pw_db *db, const struct pw_query_filter *flt,
		    enum pw_format fmt)
{
	struct pw_printer *p;
	GPtrArray *a;
	guint i;

	if (pw_db_query_findings(db, flt, &a)) {
		pw_error("%s", pw_db_errmsg(db));
		return 2;
	}
	p = pw_printer_new(fmt, stdout, finding_layout, 0);
	pw_print_begin_list(p);
	for (i = 0; i < a->len; i++) {
		const struct pw_query_finding *q = a->pdata[i];

		pw_print_begin_record(p);
		pw_print_int_at(p, "id", q->id);
		pw_print_str_at(p, "rule", q->rule);
		pw_print_str_at(p, "severity", pw_severity_str(q->severity));
		pw_print_str_at(p, "msgid", q->msgid);
		pw_print_str_at(p, "from", q->from_addr);
		pw_print_str_at(p, "subject", q->subject);
		pw_print_time_at(p, "date", q->date);
		pw_print_str_at(p, "file", q->file);
		pw_print_int_at(p, "line", q->line);
		pw_print_int_at(p, "column", q->column);
		pw_print_str_at(p, "message", q->message);
		pw_print_str_at(p, "fix", q->fix);
		pw_print_end(p);
	}
	pw_print_end(p);
	pw_printer_free(p);
	g_ptr_array_unref(a);
	return 0;
}

/* ---- series ---- */

static const char series_layout[] =
	"%(id) v%(version) %(patches)/%(total)%(if:cover) cover%(end)"
	" %(sender) %(first_seen) findings=%(findings)%(if:flood) flood%(end)"
	" \"%(name)\"\n";

static int series(struct pw_db *db, const struct pw_query_filter *flt,
		  enum pw_format fmt)
{
	struct pw_printer *p;
	GPtrArray *a;
	guint i;

	if (pw_db_query_series(db, flt, &a)) {
		pw_error("%s", pw_db_errmsg(db));
		return 2;
	}
	p = pw_printer_new(fmt, stdout, series_layout, 0);
	pw_print_begin_list(p);
	for (i = 0; i < a->len; i++) {
		const struct pw_query_series *q = a->pdata[i];

		pw_print_begin_record(p);
		pw_print_int_at(p, "id", q->id);
		pw_print_str_at(p, "name", q->name);
		pw_print_str_at(p, "sender", q->from_addr);
		pw_print_int_at(p, "version", q->version);
		pw_print_int_at(p, "total", q->total);
		pw_print_int_at(p, "patches", q->patches);
		pw_print_bool_at(p, "cover", q->has_cover);
		pw_print_time_at(p, "first_seen", q->first_date);
		pw_print_time_at(p, "last_seen", q->last_date);
		pw_print_int_at(p, "findings", q->findings);
		pw_print_key(p, "flood");
		if (q->flood_id)
			pw_print_int(p, q->flood_id);
		else
			pw_print_null(p);
		pw_print_end(p);
	}
	pw_print_end(p);
	pw_printer_free(p);
	g_ptr_array_unref(a);
	return 0;
}

static const char usage_text[] =
	"usage: patchwarden query [--db PATH] [--config FILE] floods [--since WHEN] [--message MSGID]\n"
	"                                                     [--format text|json|csv]\n"
	"       patchwarden query ... findings [--rule ID] [--severity LEVEL] [--since WHEN]\n"
	"                                      [--from ADDR] [--list NAME] [--format text|json|csv]\n"
	"       patchwarden query ... series [--since WHEN] [--from ADDR] [--list NAME] [--format text|json|csv]\n";

int pw_cmd_query(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *format = NULL, *since = NULL;
	char *rule = NULL, *severity = NULL, *from = NULL, *list = NULL;
	char *message = NULL;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default), json or csv", "FORMAT" },
		{ "since", 0, 0, G_OPTION_ARG_STRING, &since, "only what is dated since (YYYY-MM-DD, @unix, 7d, 12h)", "WHEN" },
		{ "rule", 0, 0, G_OPTION_ARG_STRING, &rule, "findings: only this rule ID", "ID" },
		{ "severity", 0, 0, G_OPTION_ARG_STRING, &severity, "findings: at least this severe (info, warning, error)", "LEVEL" },
		{ "from", 0, 0, G_OPTION_ARG_STRING, &from, "findings, series: only from this sender address", "ADDR" },
		{ "list", 0, 0, G_OPTION_ARG_STRING, &list, "findings, series: only seen on this list", "NAME" },
		{ "message", 0, 0, G_OPTION_ARG_STRING, &message, "floods: the flood this Message-ID belongs to", "MSGID" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_query_filter flt;
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	const char *what;
	gint64 t = 0;
	enum pw_format fmt;
	int rc = 2;

	memset(&flt, 0, sizeof(flt));
	if (!pw_cli_parse("query", "floods|findings|series", entries, &argc, &argv))
		goto out;
	what = argc == 2 ? argv[1] : "";
	if (strcmp(what, "floods") && strcmp(what, "findings") && strcmp(what, "series")) {
		fputs(usage_text, stderr);
		goto out;
	}
	if ((rule || severity) && strcmp(what, "findings")) {
		fprintf(stderr, "patchwarden query: --rule and --severity apply to findings only\n");
		goto out;
	}
	if (message && strcmp(what, "floods")) {
		fprintf(stderr, "patchwarden query: --message applies to floods only\n");
		goto out;
	}
	if ((from || list) && !strcmp(what, "floods")) {
		fprintf(stderr, "patchwarden query: --from and --list apply to findings and series\n");
		goto out;
	}
	if (!pw_format_parse(format, true, &fmt)) {
		fprintf(stderr, "patchwarden query: --format is text, json or csv\n");
		goto out;
	}
	if (since && !pw_cli_parse_time(since, &t)) {
		fprintf(stderr, "patchwarden query: --since '%s': not a date (YYYY-MM-DD, @unix, Nd, Nh)\n", since);
		goto out;
	}
	if (severity && !pw_severity_parse(severity, &flt.min_severity)) {
		fprintf(stderr, "patchwarden query: --severity is info, warning or error\n");
		goto out;
	}
	flt.rule = rule;
	flt.since = t;
	flt.from = from;
	flt.list = list;
	if (!pw_cli_open(config, db_path, true, &cfg, &db))
		goto out;
	if (!strcmp(what, "floods"))
		rc = floods(db, t, message, fmt);
	else if (!strcmp(what, "findings"))
		rc = findings(db, &flt, fmt);
	else
		rc = series(db, &flt, fmt);
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(format);
	g_free(since);
	g_free(rule);
	g_free(severity);
	g_free(from);
	g_free(list);
	g_free(message);
	return rc;
}
