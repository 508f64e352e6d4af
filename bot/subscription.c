/*
 * patchwarden: polling subscriptions (see bot/subscription.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bot/imap.h"
#include "bot/log.h"
#include "bot/pubinbox.h"
#include "bot/subscription.h"
#include "db/ops.h"

bool pw_subscription_name_ok(const char *name)
{
	const char *p;

	if (!name || !g_ascii_isalnum(name[0]) || strlen(name) > 64)
		return false;
	for (p = name; *p; p++)
		if (!g_ascii_isalnum(*p) && *p != '-' && *p != '_' && *p != '.')
			return false;
	return true;
}

static bool is_maildir(const char *path)
{
	static const char *const sub[] = { "cur", "new", "tmp" };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(sub); i++) {
		char *d = g_build_filename(path, sub[i], NULL);
		bool yes = g_file_test(d, G_FILE_TEST_IS_DIR);

		g_free(d);
		if (!yes)
			return false;
	}
	return true;
}

/* Whether url carries a password ("imaps://user:secret@host/..."). */
static bool has_password(const char *url)
{
	GUri *u = g_uri_parse(url, G_URI_FLAGS_HAS_PASSWORD, NULL);
	bool yes = u && g_uri_get_password(u);

	if (u)
		g_uri_unref(u);
	return yes;
}

const char *pw_subscription_kind(const char *url, char **resolved, char **err)
{
	*resolved = NULL;
	/* The URL is stored, listed and logged: no secret in it. */
	if (strstr(url, "://") && has_password(url)) {
		*err = g_strdup("a URL with a password: give the user alone in the"
				" URL and the password in the configuration"
				" ([imap NAME] password, chmod 600)");
		return NULL;
	}
	if (g_str_has_prefix(url, "imap://") || g_str_has_prefix(url, "imaps://")) {
		*resolved = g_strdup(url);
		return "imap";
	}
	if (g_str_has_prefix(url, "http://") || g_str_has_prefix(url, "https://") ||
	    g_str_has_prefix(url, "file://")) {
		*resolved = g_strdup(url);
		return "public-inbox";
	}
	if (strstr(url, "://")) {
		*err = g_strdup_printf("%s: not a URL patchwarden reads (http, https,"
				       " file for public-inbox; imap, imaps)", url);
		return NULL;
	}
	*resolved = g_canonicalize_filename(url, NULL);
	if (is_maildir(*resolved))
		return "maildir";
	if (pw_pubinbox_is_inbox(*resolved))
		return "public-inbox";
	*err = g_strdup_printf("%s: %s", url, g_file_test(*resolved, G_FILE_TEST_EXISTS) ?
			       "neither a public-inbox archive (git/N.git, or a"
			       " bare repository) nor a Maildir (cur, new, tmp)" :
			       "no such file or folder");
	g_clear_pointer(resolved, g_free);
	return NULL;
}

bool pw_duration_parse(const char *s, int64_t *seconds)
{
	char *end;
	gint64 n;

	if (!s || !g_ascii_isdigit(*s))
		return false;
	n = g_ascii_strtoll(s, &end, 10);
	if (n <= 0 || n > 30 * 86400)
		return false;
	if (!*end || !strcmp(end, "s"))
		;
	else if (!strcmp(end, "m"))
		n *= 60;
	else if (!strcmp(end, "h"))
		n *= 3600;
	else if (!strcmp(end, "d"))
		n *= 86400;
	else
		return false;
	if (n > 30 * 86400)
		return false;
	*seconds = n;
	return true;
}

int64_t pw_subscription_stale_after(const struct pw_subscription *sub,
				    int stale_after)
{
	if (stale_after > 0)
		return stale_after;
	return MAX(3 * sub->interval, 600);
}

char *pw_subscription_span(int64_t s)
{
	if (s < 0)
		s = 0;
	if (s < 120)
		return g_strdup_printf("%" G_GINT64_FORMAT " s", (gint64)s);
	if (s < 2 * 3600)
		return g_strdup_printf("%" G_GINT64_FORMAT " min", (gint64)(s / 60));
	if (s < 2 * 86400)
		return g_strdup_printf("%" G_GINT64_FORMAT " h", (gint64)(s / 3600));
	return g_strdup_printf("%" G_GINT64_FORMAT " days", (gint64)(s / 86400));
}

/* "its last N polls failed: ERROR" (an error on one line). */
static void failed(GString *o, const struct pw_subscription *sub)
{
	char *e = g_strdup(sub->last_error ? sub->last_error : "");

	g_strdelimit(e, "\r\n", ' ');
	if (sub->failures == 1)
		g_string_append(o, "its last poll failed");
	else
		g_string_append_printf(o, "its last %d polls failed", sub->failures);
	if (*e)
		g_string_append_printf(o, ": %s", e);
	g_free(e);
}

const char *pw_subscription_state(const struct pw_subscription *sub,
				  int stale_after, int64_t now, char **reason,
				  int64_t *until)
{
	int64_t limit = pw_subscription_stale_after(sub, stale_after);
	int64_t since = sub->last_ok ? sub->last_ok :
			sub->created_at ? sub->created_at : now;
	int64_t at = 0;
	const char *state;
	GString *o = reason ? g_string_new(NULL) : NULL;
	char *age = pw_subscription_span(now - since), *lim = NULL;

	if (sub->paused) {
		state = "paused";
		if (o)
			g_string_append(o, "paused: not polled until resumed");
	} else if (now - since > limit) {
		state = "stale";
		if (o) {
			lim = pw_subscription_span(limit);
			g_string_append_printf(o, sub->last_ok ? "no successful poll"
					       " for %s (stale after %s)" :
					       "no successful poll since it was"
					       " subscribed %s ago (stale after %s)",
					       age, lim);
			if (sub->failures) {
				g_string_append(o, "; ");
				failed(o, sub);
			} else if (sub->next_poll && sub->next_poll < now - 60) {
				char *late = pw_subscription_span(now - sub->next_poll);

				g_string_append_printf(o, "; its next poll was due"
						       " %s ago: is the service"
						       " running?", late);
				g_free(late);
			}
		}
	} else {
		at = since + limit + 1;
		if (sub->failures) {
			state = "failing";
			if (o)
				failed(o, sub);
		} else if (!sub->last_poll) {
			state = "new";
			if (o)
				g_string_append(o, "not polled yet");
		} else {
			state = "ok";
			if (o)
				g_string_append_printf(o, "last successful poll"
						       " %s ago", age);
		}
	}
	if (reason)
		*reason = g_string_free(o, FALSE);
	if (until)
		*until = at;
	g_free(age);
	g_free(lim);
	return state;
}

int64_t pw_subscription_backoff(const struct pw_subscription *sub, int failures)
{
	int64_t d = 30;
	int i;

	/* 30 s, 1, 2, 4 ... minutes up to an hour; never sooner than the
	 * interval. */
	for (i = 1; i < failures && d < 3600; i++)
		d *= 2;
	if (d > 3600)
		d = 3600;
	return d > sub->interval ? d : sub->interval;
}

/* ---- a subscribed Maildir ---- */

/*
 * The messages of new/ (and of cur/ until the first poll completes), by
 * name; each moves from new/ to cur/ once it is committed, so that a
 * message is read again after a crash until it is stored, and then no
 * more.
 */
struct maildir {
	char *name;		/* the subscription */
	GPtrArray *files;	/* paths, new/ ones last */
	guint first_new;	/* files[first_new..] are new/'s */
	guint next;
	char *data;
	char *where;
	int index;
	const volatile sig_atomic_t *stop;
};

static void maildir_free(void *p)
{
	struct maildir *m = p;

	g_ptr_array_free(m->files, TRUE);
	g_free(m->data);
	g_free(m->where);
	g_free(m->name);
	g_free(m);
}

static enum pw_status maildir_next(void *p, struct pw_raw *raw, char **err)
{
	struct maildir *m = p;
	GError *e = NULL;
	const char *path;
	gsize len;

	g_clear_pointer(&m->data, g_free);
	for (;;) {
		struct stat sb;

		if ((m->stop && *m->stop) || m->next >= m->files->len)
			return PW_OK;
		path = m->files->pdata[m->next++];
		g_free(m->where);
		m->where = g_strdup_printf("%s: %s", m->name, path);
		raw->index = ++m->index;
		raw->where = m->where;
		if (m->next > m->first_new)	/* from new/ */
			raw->ack = path;
		if (stat(path, &sb)) {
			if (errno == ENOENT) {	/* taken by another reader */
				m->index--;
				continue;
			}
			*err = g_strdup(g_strerror(errno));
			return PW_ERR_INPUT;
		}
		if (sb.st_size > (off_t)PW_MAX_MESSAGE) {
			*err = g_strdup_printf("message of %jd bytes, over the limit"
					       " of %u", (intmax_t)sb.st_size,
					       PW_MAX_MESSAGE);
			return PW_ERR_INPUT;
		}
		if (!g_file_get_contents(path, &m->data, &len, &e)) {
			*err = g_strdup(e->message);
			g_error_free(e);
			return PW_ERR_INPUT;
		}
		raw->data = m->data;
		raw->len = len;
		return PW_OK;
	}
}

/* A message of new/ is committed: into cur/, seen by patchwarden. */
static void maildir_ack(void *p, const char *path)
{
	char *base = g_path_get_basename(path);
	char *dir = g_path_get_dirname(path);
	char *top = g_path_get_dirname(dir);
	char *to;

	to = g_strdup_printf("%s/cur/%s%s", top, base, strstr(base, ":2,") ? "" : ":2,");
	if (rename(path, to) && errno != ENOENT)
		pw_warn("%s: cannot move it to cur/: %s", path, g_strerror(errno));
	g_free(to);
	g_free(top);
	g_free(dir);
	g_free(base);
}

static const struct pw_source_ops maildir_ops = {
	.next = maildir_next,
	.ack = maildir_ack,
	.free = maildir_free,
};

static struct pw_source *maildir_open(const struct pw_subscription *sub,
				      const volatile sig_atomic_t *stop,
				      char **err)
{
	struct maildir *m;
	char *dir;
	bool ok;

	/* Gone, or not mounted: a failure, never an empty first poll
	 * (which would make its mail, once back, answered as new). */
	if (!is_maildir(sub->url)) {
		*err = g_strdup_printf("%s: not a Maildir now (cur, new and tmp"
				       " are not all there)", sub->url);
		return NULL;
	}
	m = g_new0(struct maildir, 1);
	m->name = g_strdup(sub->name);
	m->files = g_ptr_array_new_with_free_func(g_free);
	m->stop = stop;
	/* cur/ too until the first poll completes: its mail is backfill. */
	dir = g_build_filename(sub->url, "cur", NULL);
	ok = sub->backfilled || pw_source_list_dir(dir, false, m->files);
	g_free(dir);
	m->first_new = m->files->len;
	dir = g_build_filename(sub->url, "new", NULL);
	ok = ok && pw_source_list_dir(dir, false, m->files);
	if (!ok) {
		*err = g_strdup_printf("%s: cannot read it: %s", sub->url,
				       g_strerror(errno));
		g_free(dir);
		maildir_free(m);
		return NULL;
	}
	g_free(dir);
	return pw_source_new(sub->url, &maildir_ops, m);
}

/* ---- a poll ---- */

enum pw_status pw_subscription_poll(struct pw_db *db,
				    const struct pw_config *cfg,
				    const struct pw_subscription *sub,
				    const volatile sig_atomic_t *stop,
				    struct pw_ingest_counts *counts, char **err)
{
	return pw_subscription_poll_progress(db, cfg, sub, stop, 0, false,
					     counts, err);
}

enum pw_status pw_subscription_poll_progress(struct pw_db *db,
					     const struct pw_config *cfg,
					     const struct pw_subscription *sub,
					     const volatile sig_atomic_t *stop,
					     int64_t every, bool log,
					     struct pw_ingest_counts *counts,
					     char **err)
{
	struct pw_ingest_opts o = { .no_floods = !cfg->flood_detect };
	char *prefix = every > 0 ? g_strdup_printf("%s: ", sub->name) : NULL;
	struct pw_source *src = NULL;
	enum pw_status s, rs;
	int64_t now, next, began = g_get_monotonic_time();
	bool stopped;

	*err = NULL;
	if (!strcmp(sub->kind, "public-inbox"))
		s = pw_pubinbox_open(sub, cfg->mirrors, cfg->fetch_timeout, db,
				     stop, &src, err);
	else if (!strcmp(sub->kind, "imap"))
		s = pw_imap_open(sub, cfg, db, stop, &src, err);
	else if (!strcmp(sub->kind, "maildir"))
		s = (src = maildir_open(sub, stop, err)) ? PW_OK : PW_ERR_IO;
	else {
		*err = g_strdup_printf("unknown kind of subscription '%s'", sub->kind);
		s = PW_ERR_INPUT;
	}
	if (!s) {
		o.list = sub->list;
		o.reply = sub->backfilled;
		o.stop = stop;
		o.subscription = sub->id;
		o.ends_backfill = !sub->backfilled;
		o.progress = every;
		o.progress_name = prefix;
		o.progress_log = log;
		s = pw_ingest_source(db, cfg, src, sub->url, &o, counts, err);
	}
	g_free(prefix);
	stopped = stop && *stop;
	if (s == PW_ERR_DB || s == PW_ERR_TRANSIENT)
		return s;	/* the store failed: nothing more to record */
	if (s && stopped) {
		/* Cut short by a stop (a fetch killed): no failure of the
		 * source's; what was read is committed. */
		g_clear_pointer(err, g_free);
		s = PW_OK;
	}
	now = (int64_t)time(NULL);
	if (s)
		next = now + pw_subscription_backoff(sub, sub->failures + 1);
	else
		next = stopped ? now : now + sub->interval;
	rs = pw_db_begin(db);
	if (!rs)
		rs = pw_db_subscription_polled(db, sub->id, now, s ? *err : NULL,
					       next);
	if (!rs)
		rs = pw_db_ops_poll_count(db, sub->id, s != PW_OK,
					  (double)(g_get_monotonic_time() - began) / 1e6);
	if (!rs)
		rs = pw_db_commit(db);
	if (rs) {
		pw_db_rollback(db);
		g_free(*err);
		*err = g_strdup(pw_db_errmsg(db));
		return rs;
	}
	return s;
}
