/*
 * patchwarden query [--db PATH] [--config FILE] floods [--since WHEN]
 *                   [--message MSGID] [--format text|json]
 * patchwarden query ... findings [--rule ID] [--severity LEVEL]
 *                   [--since WHEN] [--from ADDR] [--list NAME] [--format ...]
 * patchwarden query ... series [--since WHEN] [--from ADDR] [--list NAME]
 *                   [--format ...]
 *
 * Reads the stored history without changing it.  floods lists the floods
 * whose latest patch is dated since WHEN, or the one flood that message
 * MSGID belongs to; findings the findings of patches dated since WHEN;
 * series the series active since WHEN.  Text is one line per row for
 * people; json is one array of objects for programs.  Exit status: 0
 * (whatever was found), 2 usage or database error.
 */
#include <stdio.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "bot/cli.h"
#include "bot/json.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "db/flood.h"
#include "db/query.h"

/* ---- floods ---- */

/* The names of the enum pw_flood_shared bits, lowest first. */
static const char *const shared_names[] = {
	"subject", "body", "shape", "patch_id",
};

static void flood_json(JsonBuilder *b, const struct pw_flood_info *f)
{
	char **l;
	size_t i;

	json_builder_begin_object(b);
	pw_json_int(b, "id", f->id);
	pw_json_str(b, "rule", f->rule);
	pw_json_str(b, "severity", pw_severity_str(f->severity));
	pw_json_str(b, "sender", f->sender_addr);
	pw_json_str(b, "sender_name", f->sender_name);
	pw_json_str(b, "subject", f->subject);
	pw_json_int(b, "size", f->size);
	pw_json_int(b, "claimed_total", f->claimed_total);
	pw_json_time(b, "first_seen", f->first_seen);
	pw_json_time(b, "last_seen", f->last_seen);
	pw_json_time(b, "detected_at", f->detected_at);
	json_builder_set_member_name(b, "lists");
	json_builder_begin_array(b);
	for (l = f->lists; l && *l; l++)
		json_builder_add_string_value(b, *l);
	json_builder_end_array(b);
	pw_json_int(b, "recipients", f->recipients);
	pw_json_bool(b, "threaded", f->threaded);
	pw_json_int(b, "threaded_patches", f->nthreaded);
	json_builder_set_member_name(b, "shared");
	json_builder_begin_array(b);
	for (i = 0; i < G_N_ELEMENTS(shared_names); i++)
		if (f->shared & (1u << i))
			json_builder_add_string_value(b, shared_names[i]);
	json_builder_end_array(b);
	json_builder_set_member_name(b, "fingerprints");
	json_builder_begin_object(b);
	pw_json_str(b, "subject", *f->subject_fp ? f->subject_fp : NULL);
	pw_json_str(b, "body", *f->body_fp ? f->body_fp : NULL);
	pw_json_str(b, "shape", *f->shape_fp ? f->shape_fp : NULL);
	json_builder_end_object(b);
	pw_json_str(b, "first_message", f->first_msgid);
	pw_json_str(b, "key", f->key);
	pw_json_bool(b, "reported", f->reported_at != 0);
	json_builder_end_object(b);
}

static void flood_text(const struct pw_flood_info *f)
{
	char *first = pw_iso_time(f->first_seen), *last = pw_iso_time(f->last_seen);
	char *lists = g_strjoinv(",", f->lists);
	char claims[32] = "";

	if (f->claimed_total)
		snprintf(claims, sizeof(claims), " (claims %d)", f->claimed_total);
	printf("%" G_GINT64_FORMAT " %s %s %s size=%d%s first=%s last=%s"
	       " lists=%s recipients=%d %s \"%s\"\n",
	       f->id, f->rule, pw_severity_str(f->severity), f->sender_addr,
	       f->size, claims, first, last, *lists ? lists : "-",
	       f->recipients, f->threaded ? "threaded" : "unthreaded",
	       f->subject);
	g_free(first);
	g_free(last);
	g_free(lists);
}

static int floods(struct pw_db *db, int64_t since, const char *msgid, bool json)
{
	GArray *ids;
	JsonBuilder *b;
	int rc = 0;
	guint i;

	/* One read transaction: a read that fails fails the query. */
	if (pw_db_begin(db)) {
		pw_error("%s", pw_db_errmsg(db));
		return 2;
	}
	b = json ? json_builder_new() : NULL;
	if (msgid) {
		/* The flood one message belongs to, if any. */
		int64_t mid, fid;
		bool found;

		ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
		if (*msgid == '<' && msgid[1] && msgid[strlen(msgid) - 1] == '>') {
			char *bare = g_strndup(msgid + 1, strlen(msgid) - 2);

			found = pw_db_message_find(db, bare, &mid);
			g_free(bare);
		} else {
			found = pw_db_message_find(db, msgid, &mid);
		}
		if (!found && db->failed) {
			pw_error("%s", pw_db_errmsg(db));
			rc = 2;
		} else if (!found) {
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

	if (b)
		json_builder_begin_array(b);
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
		if (b)
			flood_json(b, &f);
		else
			flood_text(&f);
		pw_db_flood_info_release(&f);
	}
	if (pw_db_commit(db) && !rc) {
		pw_error("%s", pw_db_errmsg(db));
		rc = 2;
	}
	if (b) {
		json_builder_end_array(b);
		if (!rc)
			pw_json_print(b, stdout);
		g_object_unref(b);
	}
	g_array_unref(ids);
	return rc;
}

/* ---- findings ---- */

static int findings(struct pw_db *db, const struct pw_query_filter *flt,
		    bool json)
{
	GPtrArray *a;
	JsonBuilder *b;
	guint i;

	if (pw_db_query_findings(db, flt, &a)) {
		pw_error("%s", pw_db_errmsg(db));
		return 2;
	}
	b = json ? json_builder_new() : NULL;
	if (b)
		json_builder_begin_array(b);
	for (i = 0; i < a->len; i++) {
		const struct pw_query_finding *q = a->pdata[i];

		if (!b) {
			char *where = !q->file ? g_strdup("(patch)") : q->line ?
				g_strdup_printf("%s:%d", q->file, q->line) :
				g_strdup(q->file);

			printf("%s %s <%s> %s: %s\n", q->rule,
			       pw_severity_str(q->severity), q->msgid, where,
			       q->message);
			g_free(where);
			continue;
		}
		json_builder_begin_object(b);
		pw_json_int(b, "id", q->id);
		pw_json_str(b, "rule", q->rule);
		pw_json_str(b, "severity", pw_severity_str(q->severity));
		pw_json_str(b, "msgid", q->msgid);
		pw_json_str(b, "from", q->from_addr);
		pw_json_str(b, "subject", q->subject);
		pw_json_time(b, "date", q->date);
		pw_json_str(b, "file", q->file);
		pw_json_int(b, "line", q->line);
		pw_json_int(b, "column", q->column);
		pw_json_str(b, "message", q->message);
		pw_json_str(b, "fix", q->fix);
		json_builder_end_object(b);
	}
	if (b) {
		json_builder_end_array(b);
		pw_json_print(b, stdout);
		g_object_unref(b);
	}
	g_ptr_array_unref(a);
	return 0;
}

/* ---- series ---- */

static int series(struct pw_db *db, const struct pw_query_filter *flt,
		  bool json)
{
	GPtrArray *a;
	JsonBuilder *b;
	guint i;

	if (pw_db_query_series(db, flt, &a)) {
		pw_error("%s", pw_db_errmsg(db));
		return 2;
	}
	b = json ? json_builder_new() : NULL;
	if (b)
		json_builder_begin_array(b);
	for (i = 0; i < a->len; i++) {
		const struct pw_query_series *q = a->pdata[i];
		char *first = pw_iso_time(q->first_date);

		if (!b) {
			printf("%" G_GINT64_FORMAT " v%d %d/%d%s %s %s findings=%d%s \"%s\"\n",
			       q->id, q->version, q->patches, q->total,
			       q->has_cover ? " cover" : "", q->from_addr, first,
			       q->findings, q->flood_id ? " flood" : "", q->name);
			g_free(first);
			continue;
		}
		g_free(first);
		json_builder_begin_object(b);
		pw_json_int(b, "id", q->id);
		pw_json_str(b, "name", q->name);
		pw_json_str(b, "sender", q->from_addr);
		pw_json_int(b, "version", q->version);
		pw_json_int(b, "total", q->total);
		pw_json_int(b, "patches", q->patches);
		pw_json_bool(b, "cover", q->has_cover);
		pw_json_time(b, "first_seen", q->first_date);
		pw_json_time(b, "last_seen", q->last_date);
		pw_json_int(b, "findings", q->findings);
		json_builder_set_member_name(b, "flood");
		if (q->flood_id)
			json_builder_add_int_value(b, q->flood_id);
		else
			json_builder_add_null_value(b);
		json_builder_end_object(b);
	}
	if (b) {
		json_builder_end_array(b);
		pw_json_print(b, stdout);
		g_object_unref(b);
	}
	g_ptr_array_unref(a);
	return 0;
}

static const char usage_text[] =
	"usage: patchwarden query [--db PATH] [--config FILE] floods [--since WHEN] [--message MSGID]\n"
	"                                                     [--format text|json]\n"
	"       patchwarden query ... findings [--rule ID] [--severity LEVEL] [--since WHEN]\n"
	"                                      [--from ADDR] [--list NAME] [--format text|json]\n"
	"       patchwarden query ... series [--since WHEN] [--from ADDR] [--list NAME] [--format text|json]\n";

int pw_cmd_query(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *format = NULL, *since = NULL;
	char *rule = NULL, *severity = NULL, *from = NULL, *list = NULL;
	char *message = NULL;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default) or json", "FORMAT" },
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
	bool json = false;
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
	if (format && strcmp(format, "text") && !(json = !strcmp(format, "json"))) {
		fprintf(stderr, "patchwarden query: --format is text or json\n");
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
		rc = floods(db, t, message, json);
	else if (!strcmp(what, "findings"))
		rc = findings(db, &flt, json);
	else
		rc = series(db, &flt, json);
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
