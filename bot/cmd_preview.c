/*
 * patchwarden preview [--config FILE] [--db PATH] [--list NAME]
 *                     [--since WHEN] [--until WHEN] [--per-patch]
 *                     [--full] [--show N] [--threads N] [SOURCE...]
 *
 * What the bot would have mailed: a list's recent history replayed
 * through today's rules and reply policy, as if it were arriving now
 * with its real gaps, and the replies it would have queued counted (how
 * many, to whom, how long) and, on request, shown in full.  A
 * maintainer runs it before setting [list NAME] mail.
 *
 * The history is the store's (--db, read only) or the SOURCEs' (mbox,
 * Maildir, .eml, read into a temporary store first); the messages
 * dated in the window are stored again, in Date order, in another
 * temporary store with replies on, the policy's clock the Date of each
 * message (cfg->reply_replay).  Nothing is written to the user's store
 * and nothing is sent: both temporary stores are removed at the end.
 * --per-patch answers every patch on its own, as patchwarden did
 * before one voice per series version, to compare.  Exit status: 0
 * done; 2 usage, or a SOURCE that cannot be read; 75 the configuration
 * could not be read, or a store could not be opened or failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/ingest.h"
#include "bot/log.h"
#include "bot/pubinbox.h"
#include "bot/reply.h"
#include "bot/reply_policy.h"
#include "bot/source.h"
#include "db/outbox.h"
#include "db/voice.h"

/* The history to replay: stored messages of another store, in order. */
struct history {
	struct pw_db *from;
	GArray *ids;		/* int64_t */
	guint next;
	GBytes *cur;		/* the bytes handed out last */
	char *where;
};

static enum pw_status history_next(void *ctx, struct pw_raw *raw, char **err)
{
	struct history *h = ctx;
	enum pw_status s;
	gsize len;

	g_clear_pointer(&h->cur, g_bytes_unref);
	while (h->next < h->ids->len) {
		int64_t id = g_array_index(h->ids, int64_t, h->next++);

		g_free(h->where);
		h->where = g_strdup_printf("preview: message %u", h->next);
		raw->index = (int)h->next;
		raw->offset = -1;
		raw->where = h->where;
		s = pw_pubinbox_message(h->from, id, &h->cur);
		if (s) {
			*err = g_strdup(pw_db_errmsg(h->from));
			return PW_ERR_IO;
		}
		if (!h->cur)	/* its bytes are gone: said in the log */
			continue;
		raw->data = (char *)g_bytes_get_data(h->cur, &len);
		raw->len = len;
		return PW_OK;
	}
	return PW_OK;
}

static void history_free(void *ctx)
{
	struct history *h = ctx;

	if (h->cur)
		g_bytes_unref(h->cur);
	g_free(h->where);
	g_free(h);
}

static int64_t history_expected(void *ctx)
{
	return (int64_t)((struct history *)ctx)->ids->len;
}

static const struct pw_source_ops history_ops = {
	.next = history_next,
	.free = history_free,
	.expected = history_expected,
};

/*
 * A time of --since or --until: "Nd" or "Nh" counts back from newest
 * (the newest message of the history: an archive's may be long ago),
 * anything else is what pw_cli_parse_time() reads.  False when s is
 * neither.
 */
static bool window_time(const char *s, int64_t newest, int64_t *out)
{
	char *end = NULL;
	gint64 n, t;

	errno = 0;
	n = g_ascii_strtoll(s, &end, 10);
	if (!errno && end != s && n >= 0 && n < 100000 &&
	    (!strcmp(end, "d") || !strcmp(end, "h"))) {
		*out = newest - n * (*end == 'd' ? 86400 : 3600);
		return true;
	}
	if (!pw_cli_parse_time(s, &t))
		return false;
	*out = t;
	return true;
}

/* A temporary folder's files, then the folder. */
static void remove_dir(const char *dir)
{
	GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
	guint i;

	if (pw_source_list_dir(dir, false, files))
		for (i = 0; i < files->len; i++)
			unlink(files->pdata[i]);
	g_ptr_array_unref(files);
	rmdir(dir);
}

/* The body of a stored reply in wire form: its lines after the
 * headers, CRLF made LF (a new string). */
static char *body_of(GBytes *raw, size_t *lines)
{
	gsize len;
	const char *p = raw ? g_bytes_get_data(raw, &len) : NULL;
	const char *body = p ? g_strstr_len(p, (gssize)len, "\r\n\r\n") : NULL;
	GString *s = g_string_new(NULL);
	const char *q;

	*lines = 0;
	if (!body)
		return g_string_free(s, FALSE);
	for (q = body + 4; q < p + len; q++) {
		if (*q == '\r')
			continue;
		g_string_append_c(s, *q);
		*lines += *q == '\n';
	}
	return g_string_free(s, FALSE);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* One would-be reply as the summary lists it. */
struct would {
	struct pw_outbox_row *row;	/* with its raw bytes */
	size_t lines;
	char *body;
};

/*
 * Prints what the replay store db holds: the replies that would go,
 * to whom and how long, the held ones by reason, and in full those
 * asked for (full: all; show: that one, counted from 1).
 */
static int report(struct pw_db *db, const char *what, bool full, int show)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_outbox_row_free);
	GArray *wl = g_array_new(FALSE, TRUE, sizeof(struct would));
	GHashTable *who = g_hash_table_new_full(g_str_hash, g_str_equal,
						g_free, NULL);
	GHashTable *held = g_hash_table_new_full(g_str_hash, g_str_equal,
						 g_free, NULL);
	size_t *sizes = NULL, copies = 0;
	GHashTableIter it;
	gpointer k, v;
	int rc = 0;
	guint i;

	if (pw_db_outbox_list(db, NULL, rows)) {
		pw_error("%s", pw_db_errmsg(db));
		rc = EX_TEMPFAIL;
		goto out;
	}
	for (i = 0; i < rows->len; i++) {
		const struct pw_outbox_row *r = rows->pdata[i];
		struct would w = { 0 };
		bool found;
		char **rc_list;
		size_t j;

		if (!strcmp(r->state, "suppressed")) {
			const char *why = r->reason ? r->reason : "held";
			gpointer n = g_hash_table_lookup(held, why);

			g_hash_table_replace(held, g_strdup(why),
					     GINT_TO_POINTER(GPOINTER_TO_INT(n) + 1));
			continue;
		}
		if (pw_db_outbox_get(db, r->id, true, &w.row, &found) || !found) {
			pw_error("%s", pw_db_errmsg(db));
			rc = EX_TEMPFAIL;
			goto out;
		}
		w.body = body_of(w.row->raw, &w.lines);
		rc_list = g_strsplit(r->recipients ? r->recipients : "", "\n", -1);
		for (j = 0; rc_list[j]; j++) {
			gpointer n;

			if (!*rc_list[j])
				continue;
			n = g_hash_table_lookup(who, rc_list[j]);
			g_hash_table_replace(who, g_strdup(rc_list[j]),
					     GINT_TO_POINTER(GPOINTER_TO_INT(n) + 1));
			copies++;
		}
		g_strfreev(rc_list);
		g_array_append_val(wl, w);
	}
	printf("%s\n", what);
	if (wl->len) {
		sizes = g_new(size_t, wl->len);
		for (i = 0; i < wl->len; i++)
			sizes[i] = g_array_index(wl, struct would, i).lines;
		qsort(sizes, wl->len, sizeof(*sizes), cmp_size);
		printf("would mail: %u replies, %zu copies to %u addresses;"
		       " body lines: median %zu, longest %zu\n", wl->len, copies,
		       g_hash_table_size(who), sizes[wl->len / 2],
		       sizes[wl->len - 1]);
	} else {
		printf("would mail: no reply\n");
	}
	g_hash_table_iter_init(&it, held);
	while (g_hash_table_iter_next(&it, &k, &v))
		printf("held: %d: %s\n", GPOINTER_TO_INT(v), (const char *)k);
	g_hash_table_iter_init(&it, who);
	while (g_hash_table_iter_next(&it, &k, &v))
		printf("to: %s: %d\n", (const char *)k, GPOINTER_TO_INT(v));
	for (i = 0; i < wl->len; i++) {
		const struct would *w = &g_array_index(wl, struct would, i);
		char *when = pw_reply_time(w->row->created_at);
		char *rcpt = g_strdup(w->row->recipients ? w->row->recipients : "");

		g_strdelimit(rcpt, "\n", ' ');
		printf("%u\t%s\t%zu lines\t%s\t%s\n", i + 1, when, w->lines, rcpt,
		       w->row->subject ? w->row->subject : "");
		if (full || show == (int)i + 1)
			printf("\n%s\n", w->body);
		g_free(when);
		g_free(rcpt);
	}
	if (show > (int)wl->len) {
		pw_error("preview: no reply %d: %u would be mailed", show, wl->len);
		rc = 2;
	}
out:
	for (i = 0; i < wl->len; i++) {
		struct would *w = &g_array_index(wl, struct would, i);

		pw_outbox_row_free(w->row);
		g_free(w->body);
	}
	g_array_unref(wl);
	g_ptr_array_unref(rows);
	g_hash_table_destroy(who);
	g_hash_table_destroy(held);
	g_free(sizes);
	return rc;
}

/* The series still waiting and the undecided replies, decided as the
 * service would once their time has passed (at now). */
static enum pw_status settle(struct pw_db *db, const struct pw_config *cfg,
			     int64_t now)
{
	enum pw_status s;
	int released, folded, answered;

	s = pw_db_begin(db);
	if (!s)
		s = pw_reply_policy_release_undecided(db, cfg, now, &released,
						      &folded);
	if (!s)
		s = pw_reply_policy_release_waiting(db, cfg, now, &answered);
	if (!s)
		s = pw_db_commit(db);
	if (s)
		pw_db_rollback(db);
	return s;
}

int pw_cmd_preview(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *list = NULL, *since_s = NULL,
	     *until_s = NULL, *threads = NULL;
	gboolean per_patch = FALSE, full = FALSE;
	int show = 0;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "the store whose history to replay, read only (default: [core] db); not with SOURCE", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file: the rules and reply policy to replay under", "FILE" },
		{ "list", 'l', 0, G_OPTION_ARG_STRING, &list, "only this list's mail (a SOURCE's mail is filed under it)", "NAME" },
		{ "since", 0, 0, G_OPTION_ARG_STRING, &since_s, "from this time: Nd, Nh (back from the newest message), a date (default: 30d)", "WHEN" },
		{ "until", 0, 0, G_OPTION_ARG_STRING, &until_s, "to this time (default: the newest message)", "WHEN" },
		{ "per-patch", 0, 0, G_OPTION_ARG_NONE, &per_patch, "answer each patch on its own, as before one voice per series version", NULL },
		{ "full", 0, 0, G_OPTION_ARG_NONE, &full, "print every reply in full", NULL },
		{ "show", 0, 0, G_OPTION_ARG_INT, &show, "print reply N of the list in full", "N" },
		{ "threads", 0, 0, G_OPTION_ARG_STRING, &threads, "parser threads, 1 to 256 (default: one per core)", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_ingest_counts counts = { 0 };
	struct pw_ingest_opts o = { 0 };
	struct pw_config *cfg = NULL;
	struct pw_db *stage = NULL, *replay = NULL;
	struct pw_source *src;
	struct history *h;
	GArray *ids = NULL;
	char *tmp = NULL, *path = NULL, *err = NULL, *what = NULL;
	char *since_txt = NULL, *until_txt = NULL;
	int64_t newest = 0, since, until;
	int rc = 2;

	if (!pw_cli_parse("preview", "[SOURCE...]", entries, &argc, &argv))
		goto out;
	if (show < 0) {
		fprintf(stderr, "patchwarden preview: --show takes a reply's number, from 1\n");
		goto out;
	}
	if (argc > 1 && db_path) {
		fprintf(stderr, "patchwarden preview: --db or SOURCE, not both\n");
		goto out;
	}
	if (!pw_cli_threads("preview", threads, &o.threads))
		goto out;
	if (argc > 1 && !pw_cli_inputs_ok("preview", argv + 1, argc - 1))
		goto out;
	rc = EX_TEMPFAIL;
	if (pw_config_load(config, db_path, &cfg, &err)) {
		pw_error("%s", err);
		goto out;
	}
	tmp = g_dir_make_tmp("patchwarden-preview-XXXXXX", NULL);
	if (!tmp) {
		pw_error("preview: no temporary folder: %s", g_strerror(errno));
		goto out;
	}
	o.list = list;
	o.quiet = true;
	o.no_floods = !cfg->flood_detect;
	if (argc > 1) {
		path = g_build_filename(tmp, "history.db", NULL);
		if (pw_db_open(path, false, &stage, &err)) {
			pw_error("%s", err);
			goto out;
		}
		if (!pw_ingest_paths(stage, cfg, argv + 1, argc - 1, &o, &counts))
			goto out;
		g_free(path);
		path = NULL;
	} else if (pw_db_open(cfg->db_path, true, &stage, &err)) {
		pw_error("%s", err);
		goto out;
	}
	/* The window, counted back from the newest message of the list. */
	ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	if (pw_db_voice_history(stage, 0, -1, list, ids, &newest)) {
		pw_error("%s", pw_db_errmsg(stage));
		goto out;
	}
	g_array_set_size(ids, 0);
	rc = 2;
	if (!window_time(since_s ? since_s : "30d", newest, &since) ||
	    !(until_s ? window_time(until_s, newest, &until) : (until = newest, true))) {
		fprintf(stderr, "patchwarden preview: --since and --until take Nd,"
			" Nh, YYYY-MM-DD, YYYY-MM-DDTHH:MM:SSZ or @UNIX\n");
		goto out;
	}
	rc = EX_TEMPFAIL;
	if (pw_db_voice_history(stage, since, until, list, ids, &newest)) {
		pw_error("%s", pw_db_errmsg(stage));
		goto out;
	}
	path = g_build_filename(tmp, "replay.db", NULL);
	if (pw_db_open(path, false, &replay, &err)) {
		pw_error("%s", err);
		goto out;
	}
	cfg->reply_replay = true;
	cfg->reply_per_patch = per_patch;
	h = g_new0(struct history, 1);
	h->from = stage;
	h->ids = ids;
	src = pw_source_new("preview", &history_ops, h);
	memset(&counts, 0, sizeof(counts));
	o.reply = true;
	if (pw_ingest_source(replay, cfg, src, "preview", &o, &counts, &err)) {
		pw_error("preview: %s", err ? err : "the replay failed");
		goto out;
	}
	/* Past the window, as the service would decide them later. */
	if (settle(replay, cfg, until + MAX(cfg->flood_window,
					   PW_REPLY_SERIES_WAIT) + 1)) {
		pw_error("%s", pw_db_errmsg(replay));
		goto out;
	}
	since_txt = pw_reply_time(since);
	until_txt = pw_reply_time(until);
	what = g_strdup_printf("preview%s%s: %s to %s: %u messages, %" G_GINT64_FORMAT
			       " patches replayed under today's rules and reply"
			       " policy (%s)", list ? " of " : "", list ? list : "",
			       since_txt, until_txt, ids->len, counts.patches,
			       per_patch ? "each patch answered on its own" :
			       "one voice per series version");
	rc = report(replay, what, full, show);
out:
	pw_db_close(replay);
	pw_db_close(stage);
	if (tmp)
		remove_dir(tmp);
	if (ids)
		g_array_unref(ids);
	pw_config_free(cfg);
	g_free(tmp);
	g_free(path);
	g_free(err);
	g_free(what);
	g_free(since_txt);
	g_free(until_txt);
	g_free(db_path);
	g_free(config);
	g_free(list);
	g_free(since_s);
	g_free(until_s);
	g_free(threads);
	return rc;
}
