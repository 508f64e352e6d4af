/*
 * patchwarden: public-inbox archives as a source (see bot/pubinbox.h).
 *
 * Opening a subscription finds its epochs, fetches those of a mirror
 * that can have changed (the newest one mirrored and any new ones; each
 * fetch runs in a child process that is killed on a stall or a stop,
 * since libgit2 has no network timeout) and reads the cursors.  The
 * source then walks each epoch's new commits, oldest first, and yields
 * each added message with its blob id, each removed one as a removal,
 * and the commit as the epoch's cursor.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>
#include <git2.h>
#include <json-glib/json-glib.h>

#include "bot/curl.h"
#include "bot/log.h"
#include "bot/mail.h"
#include "bot/pubinbox.h"

#define MANIFEST_MAX (16u << 20)	/* bytes of manifest.js.gz, unpacked */
#define PROBE_TIMEOUT 30		/* seconds for a manifest or a probe */
#define PROBE_EPOCHS 8			/* new epochs a poll looks for, without
					 * a manifest (one a year on lore) */

/* ---- libgit2 ---- */

static void git_once(void)
{
	static gsize done;

	if (!g_once_init_enter(&done))
		return;
	git_libgit2_init();
	/*
	 * Pack windows count in the resident size as they are read: keep
	 * them small, so that walking a large archive stays in a few tens
	 * of MiB (the defaults map up to 8 GiB).  No object cache: every
	 * commit, tree and blob is read once.
	 */
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, (size_t)(256u << 10));
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, (size_t)(2u << 20));
	git_libgit2_opts(GIT_OPT_ENABLE_CACHING, 0);
	/* Objects are verified once, when a fetch indexes them. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	g_once_init_leave(&done, 1);
}

/* libgit2's last error as text. */
static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

static bool is_url(const char *s)
{
	return strstr(s, "://") != NULL;	/* pw_subscription_kind() said which */
}

static bool is_dir(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

/* A bare repository: HEAD and objects/ in it. */
static bool is_bare_repo(const char *path)
{
	char *head = g_build_filename(path, "HEAD", NULL);
	char *obj = g_build_filename(path, "objects", NULL);
	bool yes = g_file_test(head, G_FILE_TEST_IS_REGULAR) && is_dir(obj);

	g_free(head);
	g_free(obj);
	return yes;
}

static gint cmp_int(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The epoch numbers of the folder dir/git (N.git entries), ascending. */
static GArray *local_epochs(const char *dir)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(int));
	char *git = g_build_filename(dir, "git", NULL);
	GDir *d = g_dir_open(git, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		char *end;
		long n;

		if (!g_ascii_isdigit(name[0]))
			continue;
		n = strtol(name, &end, 10);
		if (strcmp(end, ".git") || n < 0 || n > 100000)
			continue;
		g_array_append_val(a, (int){ (int)n });
	}
	if (d)
		g_dir_close(d);
	g_free(git);
	g_array_sort(a, cmp_int);
	return a;
}

bool pw_pubinbox_is_inbox(const char *path)
{
	GArray *e;
	bool yes;

	if (is_bare_repo(path))
		return true;
	e = local_epochs(path);
	yes = e->len > 0;
	g_array_free(e, TRUE);
	return yes;
}

/* ---- finding a remote inbox's epochs ---- */

struct buf {
	GByteArray *b;
	size_t max;
};

static size_t buf_write(char *p, size_t size, size_t n, void *data)
{
	struct buf *b = data;

	if (b->b->len + size * n > b->max)
		return 0;	/* too large: the transfer fails */
	g_byte_array_append(b->b, (const guint8 *)p, (guint)(size * n));
	return size * n;
}

static int http_progress(void *data, curl_off_t dltotal, curl_off_t dlnow,
			 curl_off_t ultotal, curl_off_t ulnow)
{
	const volatile sig_atomic_t *stop = data;

	return stop && *stop;	/* non-zero aborts the transfer */
}

/*
 * GETs url (at most max bytes) into *out: true with the body on a 200
 * (of Content-Type type, unless NULL), false otherwise, *code holding
 * the HTTP status (0: no answer).  stop, when set, aborts it.
 */
static bool http_get(const char *url, size_t max, const char *type,
		     const volatile sig_atomic_t *stop, GBytes **out,
		     long *code, char **err)
{
	struct buf b = { g_byte_array_new(), max };
	const char *ct = NULL;
	char ebuf[CURL_ERROR_SIZE] = "";
	CURL *c;
	CURLcode rc;

	*out = NULL;
	*code = 0;
	pw_curl_init();
	c = curl_easy_init();
	if (!c) {
		*err = g_strdup("cannot start libcurl");
		g_byte_array_unref(b.b);
		return false;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, buf_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)PROBE_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "patchwarden/" PW_VERSION);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, http_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)stop);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, code);
	curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
	if (rc == CURLE_OK && *code == 200 && type &&
	    (!ct || g_ascii_strncasecmp(ct, type, strlen(type))))
		*code = 415;	/* answered, but not with that */
	curl_easy_cleanup(c);
	if (rc != CURLE_OK) {
		*err = g_strdup_printf("%s: %s", url, ebuf[0] ? ebuf :
				       curl_easy_strerror(rc));
		g_byte_array_unref(b.b);
		return false;
	}
	if (*code != 200) {
		g_byte_array_unref(b.b);
		return false;
	}
	*out = g_byte_array_free_to_bytes(b.b);
	return true;
}

/* Gunzips data (at most MANIFEST_MAX bytes out), NULL when it cannot. */
static GBytes *gunzip(GBytes *data)
{
	GConverter *z = G_CONVERTER(g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP));
	GInputStream *mem = g_memory_input_stream_new_from_bytes(data);
	GInputStream *in = g_converter_input_stream_new(mem, z);
	GByteArray *out = g_byte_array_new();
	guint8 chunk[16384];
	gssize n;

	while ((n = g_input_stream_read(in, chunk, sizeof(chunk), NULL, NULL)) > 0) {
		if (out->len + (size_t)n > MANIFEST_MAX) {
			n = -1;
			break;
		}
		g_byte_array_append(out, chunk, (guint)n);
	}
	g_object_unref(in);
	g_object_unref(mem);
	g_object_unref(z);
	if (n < 0) {
		g_byte_array_unref(out);
		return NULL;
	}
	return g_byte_array_free_to_bytes(out);
}

/*
 * The epochs named by a manifest.js.gz (keys ".../git/N.git"), or NULL
 * when there is none or it cannot be read; fps receives each epoch's
 * fingerprint (a hash of its refs) by number.
 */
static GArray *manifest_epochs(const char *base, GHashTable *fps,
			       const volatile sig_atomic_t *stop, char **err)
{
	GUri *u = g_uri_parse(base, G_URI_FLAGS_NONE, NULL);
	/* Keys are paths on the server: this inbox's are PATH/git/N.git
	 * (a manifest may cover other inboxes too). */
	char *prefix = g_strconcat(u ? g_uri_get_path(u) : "/", "git/", NULL);
	char *url = g_strconcat(base, "manifest.js.gz", NULL);
	GBytes *gz = NULL, *js = NULL;
	JsonParser *jp = NULL;
	JsonNode *root;
	GArray *a = NULL;
	long code;
	char *e = NULL;

	if (!http_get(url, MANIFEST_MAX, NULL, stop, &gz, &code, &e)) {
		if (e) {	/* no answer at all: the inbox is unreachable */
			*err = e;
		}
		goto out;
	}
	js = gunzip(gz);
	if (!js)
		goto out;
	jp = json_parser_new();
	if (!json_parser_load_from_data(jp, g_bytes_get_data(js, NULL),
					(gssize)g_bytes_get_size(js), NULL))
		goto out;
	root = json_parser_get_root(jp);
	if (!root || !JSON_NODE_HOLDS_OBJECT(root))
		goto out;
	a = g_array_new(FALSE, FALSE, sizeof(int));
	{
		GList *keys = json_object_get_members(json_node_get_object(root)), *l;

		for (l = keys; l; l = l->next) {
			const char *k = l->data, *g;
			char *end;
			long n;

			if (!g_str_has_prefix(k, prefix))
				continue;
			g = k + strlen(prefix);
			if (!g_ascii_isdigit(*g))
				continue;
			n = strtol(g, &end, 10);
			JsonNode *v;
			const char *fp;

			if (strcmp(end, ".git") || n < 0 || n > 100000)
				continue;
			g_array_append_val(a, (int){ (int)n });
			v = json_object_get_member(json_node_get_object(root), k);
			if (v && JSON_NODE_HOLDS_OBJECT(v) &&
			    json_object_has_member(json_node_get_object(v), "fingerprint") &&
			    (fp = json_object_get_string_member_with_default(
				    json_node_get_object(v), "fingerprint", NULL)) &&
			    strlen(fp) < 128)
				g_hash_table_insert(fps, GINT_TO_POINTER((int)n + 1),
						    g_strdup(fp));
		}
		g_list_free(keys);
	}
	g_array_sort(a, cmp_int);
out:
	if (jp)
		g_object_unref(jp);
	if (js)
		g_bytes_unref(js);
	if (gz)
		g_bytes_unref(gz);
	if (u)
		g_uri_unref(u);
	g_free(prefix);
	g_free(url);
	return a;
}

/*
 * Whether the repository at url answers: smart HTTP's ref listing (a
 * page that is not one is no repository), the folder for file://.
 * *err is set when the server could not be asked at all.
 */
static bool repo_exists(const char *url, const volatile sig_atomic_t *stop,
			char **err)
{
	GBytes *b = NULL;
	char *probe;
	long code;
	bool yes;

	if (g_str_has_prefix(url, "file://"))
		return is_bare_repo(url + 7);
	probe = g_strconcat(url, "/info/refs?service=git-upload-pack", NULL);
	yes = http_get(probe, 1u << 20,
		       "application/x-git-upload-pack-advertisement", stop, &b,
		       &code, err);
	if (b)
		g_bytes_unref(b);
	g_free(probe);
	return yes;
}

/* ---- the epochs of a subscription ---- */

struct epoch {
	int n;			/* epoch number, -1: a single repository */
	char *local;		/* the repository read: the mirror, or in place */
	char *remote;		/* URL fetched into local, or NULL */
	char *key;		/* its cursor's name */
	char *last;		/* last commit read (hex), or NULL */
	bool fetch;		/* to be fetched on this poll */
	char *fp;		/* its fingerprint in the manifest, or NULL */
};

static void epoch_free(struct epoch *e)
{
	g_free(e->local);
	g_free(e->remote);
	g_free(e->key);
	g_free(e->last);
	g_free(e->fp);
	g_free(e);
}

static struct epoch *epoch_new(int64_t sub, int n, const char *local,
			       const char *remote)
{
	struct epoch *e = g_new0(struct epoch, 1);

	e->n = n;
	e->local = g_canonicalize_filename(local, NULL);
	e->remote = g_strdup(remote);
	e->key = n < 0 ? g_strdup_printf("sub:%" G_GINT64_FORMAT ":repo", sub) :
		 g_strdup_printf("sub:%" G_GINT64_FORMAT ":git/%d", sub, n);
	return e;
}

/* The epochs of an inbox read in place at path. */
static bool epochs_local(const struct pw_subscription *sub, const char *path,
			 GPtrArray *out, char **err)
{
	GArray *ns;
	guint i;

	if (!is_dir(path)) {
		*err = g_strdup_printf("%s: no such folder", path);
		return false;
	}
	if (is_bare_repo(path)) {
		g_ptr_array_add(out, epoch_new(sub->id, -1, path, NULL));
		return true;
	}
	ns = local_epochs(path);
	for (i = 0; i < ns->len; i++) {
		int n = g_array_index(ns, int, i);
		char *rel = g_strdup_printf("git/%d.git", n);
		char *p = g_build_filename(path, rel, NULL);

		g_ptr_array_add(out, epoch_new(sub->id, n, p, NULL));
		g_free(p);
		g_free(rel);
	}
	g_array_free(ns, TRUE);
	if (!out->len) {
		*err = g_strdup_printf("%s: not a public-inbox archive (no git/N.git"
				       " epochs, not a bare git repository)", path);
		return false;
	}
	return true;
}

/*
 * The epochs of an inbox named by URL, mirrored under mirror: the
 * manifest's, else those mirrored already and the ones a probe finds
 * after them.  Marks for fetching the newest mirrored and every epoch
 * not mirrored yet.  fps receives the manifest's fingerprints.
 */
static bool epochs_list(const struct pw_subscription *sub, const char *mirror,
			GHashTable *fps, const volatile sig_atomic_t *stop,
			GPtrArray *out, char **err)
{
	char *base = g_str_has_suffix(sub->url, "/") ? g_strdup(sub->url) :
		     g_strconcat(sub->url, "/", NULL);
	GArray *have = local_epochs(mirror), *ns;
	char *e = NULL, *single;
	int newest_have = -1, next;
	guint i;

	if (have->len)
		newest_have = g_array_index(have, int, have->len - 1);
	ns = g_str_has_prefix(base, "http") ? manifest_epochs(base, fps, stop, &e) :
	     NULL;
	if (e) {
		*err = e;
		goto fail;
	}
	if (ns && !ns->len)	/* a manifest without epochs: probe them */
		g_clear_pointer(&ns, g_array_unref);
	if (!ns) {
		/* No manifest: what we have, then probe beyond it. */
		ns = g_array_new(FALSE, FALSE, sizeof(int));
		g_array_append_vals(ns, have->data, have->len);
		for (next = newest_have + 1; next <= newest_have + PROBE_EPOCHS &&
		     !(stop && *stop); next++) {
			char *u = g_strdup_printf("%sgit/%d.git", base, next);
			bool yes = repo_exists(u, stop, &e);

			g_free(u);
			if (e) {
				*err = e;
				goto fail;
			}
			if (!yes)
				break;
			g_array_append_val(ns, next);
		}
	}
	for (i = 0; i < ns->len; i++) {
		int n = g_array_index(ns, int, i);
		char *rel = g_strdup_printf("git/%d.git", n);
		char *local = g_build_filename(mirror, rel, NULL);
		char *remote = g_strconcat(base, rel, NULL);
		struct epoch *ep = epoch_new(sub->id, n, local, remote);

		ep->fetch = n >= newest_have || !is_bare_repo(local);
		g_ptr_array_add(out, ep);
		g_free(rel);
		g_free(local);
		g_free(remote);
	}
	if (!out->len) {
		/* A v1 inbox, or one epoch, at the URL itself. */
		char *u = g_strndup(base, strlen(base) - 1);

		if (!repo_exists(u, stop, &e)) {
			*err = e ? e : g_strdup_printf("%s: no public-inbox archive"
						       " there (no manifest.js.gz,"
						       " no git/0.git, no repository)",
						       sub->url);
			g_free(u);
			goto fail;
		}
		single = g_build_filename(mirror, "repo.git", NULL);
		struct epoch *ep = epoch_new(sub->id, -1, single, u);

		ep->fetch = true;
		g_ptr_array_add(out, ep);
		g_free(single);
		g_free(u);
	}
	g_array_free(ns, TRUE);
	g_array_free(have, TRUE);
	g_free(base);
	return true;
fail:
	if (ns)
		g_array_free(ns, TRUE);
	g_array_free(have, TRUE);
	g_free(base);
	return false;
}

/* epochs_list(), each epoch with its fingerprint in the manifest. */
static bool epochs_remote(const struct pw_subscription *sub, const char *mirror,
			  const volatile sig_atomic_t *stop, GPtrArray *out,
			  char **err)
{
	GHashTable *fps = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	bool ok = epochs_list(sub, mirror, fps, stop, out, err);
	guint i;

	for (i = 0; ok && i < out->len; i++) {
		struct epoch *ep = out->pdata[i];

		if (ep->n >= 0)
			ep->fp = g_strdup(g_hash_table_lookup(fps, GINT_TO_POINTER(ep->n + 1)));
	}
	g_hash_table_destroy(fps);
	return ok;
}

/* ---- fetching, in a child process ---- */

struct fetch_pipe {
	int fd;
	size_t last;	/* bytes received at the last report */
};

static int fetch_progress(const git_indexer_progress *st, void *data)
{
	struct fetch_pipe *fp = data;

	/* A report per 64 KiB received tells the parent data flows. */
	if (st->received_bytes - fp->last >= (64u << 10) ||
	    st->received_objects == st->total_objects) {
		fp->last = st->received_bytes;
		if (write(fp->fd, ".", 1) != 1)
			return -1;	/* the parent is gone */
	}
	return 0;
}

/* In the child: makes or opens the mirror at local, fetches remote. */
static int fetch_here(const char *local, const char *remote, int fd)
{
	git_repository *repo = NULL;
	git_remote *r = NULL;
	git_fetch_options fo;
	struct fetch_pipe fp = { fd, 0 };
	int rc;

	if (is_bare_repo(local))
		rc = git_repository_open_ext(&repo, local,
					     GIT_REPOSITORY_OPEN_NO_SEARCH |
					     GIT_REPOSITORY_OPEN_BARE, NULL);
	else if (g_mkdir_with_parents(local, 0755))
		rc = -1;
	else
		rc = git_repository_init(&repo, local, 1);
	if (rc)
		goto out;
	if (git_remote_lookup(&r, repo, "origin")) {
		rc = git_remote_create_with_fetchspec(&r, repo, "origin", remote,
						      "+refs/*:refs/*");
		if (rc)
			goto out;
	} else if (strcmp(git_remote_url(r), remote)) {
		git_remote_free(r);
		r = NULL;
		if ((rc = git_remote_set_url(repo, "origin", remote)) ||
		    (rc = git_remote_lookup(&r, repo, "origin")))
			goto out;
	}
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.prune = GIT_FETCH_PRUNE;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.callbacks.transfer_progress = fetch_progress;
	fo.callbacks.payload = &fp;
	rc = git_remote_fetch(r, NULL, &fo, "patchwarden: fetch");
out:
	if (rc) {
		const char *m = rc == -1 && !git_error_last() ?
				g_strerror(errno) : git_msg();

		if (write(fd, "E", 1) == 1 && write(fd, m, strlen(m)) < 0)
			rc = -1;
	}
	git_remote_free(r);
	git_repository_free(repo);
	return rc ? 1 : 0;
}

/*
 * Fetches e->remote into e->local in a child process, killed when it
 * receives nothing for timeout seconds or *stop is set.
 */
static enum pw_status fetch(const struct epoch *e, int timeout,
			    const volatile sig_atomic_t *stop, char **err)
{
	GString *msg = g_string_new(NULL);
	int64_t deadline, t0 = g_get_monotonic_time();
	struct rusage ru;
	bool failed_msg = false, killed = false;
	int pfd[2], status = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC)) {
		*err = g_strdup_printf("%s: pipe: %s", e->remote, g_strerror(errno));
		g_string_free(msg, TRUE);
		return PW_ERR_IO;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		*err = g_strdup_printf("%s: fork: %s", e->remote, g_strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		g_string_free(msg, TRUE);
		return PW_ERR_IO;
	}
	if (pid == 0) {
		close(pfd[0]);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		_exit(fetch_here(e->local, e->remote, pfd[1]));
	}
	close(pfd[1]);
	deadline = g_get_monotonic_time() + (int64_t)timeout * G_USEC_PER_SEC;
	for (;;) {
		struct pollfd p = { pfd[0], POLLIN, 0 };
		char b[512];
		ssize_t n;

		if (stop && *stop) {
			killed = true;
			g_string_assign(msg, "stopped");
			break;
		}
		if (g_get_monotonic_time() > deadline) {
			killed = true;
			g_string_printf(msg, "nothing received for %d s", timeout);
			break;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		n = read(pfd[0], b, sizeof(b));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		deadline = g_get_monotonic_time() + (int64_t)timeout * G_USEC_PER_SEC;
		for (ssize_t i = 0; i < n; i++) {
			if (!failed_msg && b[i] == 'E')
				failed_msg = true;
			else if (failed_msg && msg->len < 1024)
				g_string_append_c(msg, g_ascii_isprint(b[i]) ? b[i] : '?');
		}
	}
	close(pfd[0]);
	if (killed)
		kill(pid, SIGKILL);
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	if (!killed && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		pw_debug("%s: fetched in %.2f s (CPU %ld.%02ld s, peak RSS %ld KiB)",
			 e->remote, (double)(g_get_monotonic_time() - t0) / 1e6,
			 (long)ru.ru_utime.tv_sec + (long)ru.ru_stime.tv_sec,
			 (long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 10000 % 100,
			 ru.ru_maxrss);
		g_string_free(msg, TRUE);
		return PW_OK;
	}
	*err = g_strdup_printf("%s: fetch failed: %s", e->remote,
			       msg->len ? msg->str : "the fetch process died");
	g_string_free(msg, TRUE);
	return PW_ERR_IO;
}

/*
 * One poll of a subscription's archive at a time, whoever runs it (the
 * service, "poll"): a lock on MIRROR.lock, beside its mirror, held from
 * the fetch to the end of the walk.  A descriptor, or -1 with *err.
 */
static int lock_take(const char *mirror, const char *name, char **err)
{
	char *path = g_strconcat(mirror, ".lock", NULL);
	char *dir = g_path_get_dirname(path);
	int fd = -1;

	if (g_mkdir_with_parents(dir, 0755) ||
	    (fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
		*err = g_strdup_printf("%s: %s", path, g_strerror(errno));
	else if (flock(fd, LOCK_EX | LOCK_NB)) {
		*err = g_strdup_printf("%s: %s", name, errno == EWOULDBLOCK ?
				       "being polled by another patchwarden now" :
				       g_strerror(errno));
		close(fd);
		fd = -1;
	}
	g_free(dir);
	g_free(path);
	return fd;
}

/* Removes the files *.lock under dir, to depth levels of folders. */
static void unlock_dir(const char *dir, int depth)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;

	while (d && (n = g_dir_read_name(d))) {
		char *p = g_build_filename(dir, n, NULL);

		if (g_str_has_suffix(n, ".lock") && !is_dir(p)) {
			if (!unlink(p))
				pw_warn("%s: removed, left by a fetch that was"
					" stopped", p);
		} else if (depth > 0 && is_dir(p)) {
			unlock_dir(p, depth - 1);
		}
		g_free(p);
	}
	if (d)
		g_dir_close(d);
}

/*
 * The lock files a fetch killed half-way can leave in a mirror (refs,
 * packed-refs, FETCH_HEAD, config), which would fail every fetch after
 * it.  Only under lock_take()'s lock: nothing else writes there.
 */
static void unlock_stale(const char *repo)
{
	char *refs = g_build_filename(repo, "refs", NULL);

	unlock_dir(repo, 0);
	unlock_dir(refs, 8);
	g_free(refs);
}

/* ---- walking the epochs ---- */

struct item {
	git_oid blob;
	bool removed;
};

struct walker {
	char *name;		/* the subscription, for messages */
	GPtrArray *epochs;	/* struct epoch *, ascending */
	guint cur;		/* the epoch being walked */
	bool opened;		/* the epoch w->cur is open */
	GArray *oids;		/* its new commits, oldest first (git_oid) */
	guint next_oid;
	git_repository *repo;	/* the epoch, for its walk */
	git_revwalk *walk;
	/*
	 * The epoch again, for reading commits, trees and blobs: reopened
	 * every OBJREPO_READS objects, which drops libgit2's delta base
	 * cache (up to 16 MiB a pack, not configurable) so that memory
	 * stays flat over a large archive.
	 */
	git_repository *objrepo;
	int objreads;
	GArray *items;		/* what the commit being read adds, removes */
	guint next_item;
	char commit[GIT_OID_HEXSZ + 1];
	char blob_hex[GIT_OID_HEXSZ + 1];
	git_blob *blob;		/* the bytes handed out last */
	char *where;
	int index;
	const volatile sig_atomic_t *stop;
	int lock;		/* lock_take()'s, held while the source lives */
	gint listed;		/* commits listed so far, every epoch (atomic) */
};

static void walker_close_epoch(struct walker *w)
{
	git_revwalk_free(w->walk);
	w->walk = NULL;
	git_repository_free(w->repo);
	w->repo = NULL;
	git_repository_free(w->objrepo);
	w->objrepo = NULL;
	g_array_set_size(w->items, 0);
	w->next_item = 0;
	g_array_set_size(w->oids, 0);
	w->next_oid = 0;
	w->opened = false;
}

static void walker_free(void *data)
{
	struct walker *w = data;

	git_blob_free(w->blob);
	walker_close_epoch(w);
	g_array_free(w->items, TRUE);
	g_array_free(w->oids, TRUE);
	g_ptr_array_free(w->epochs, TRUE);
	g_free(w->where);
	g_free(w->name);
	close(w->lock);
	g_free(w);
}

/* The tip of an epoch: its master branch, else HEAD, else main. */
static bool tip_of(git_repository *repo, git_oid *tip)
{
	static const char *const refs[] = { "refs/heads/master", "HEAD",
					    "refs/heads/main" };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(refs); i++)
		if (!git_reference_name_to_id(tip, repo, refs[i]))
			return true;
	return false;
}

/*
 * Sets w->walk up to walk epoch w->cur from its cursor to its tip;
 * leaves it NULL when there is nothing new; an error in *err.
 */
static enum pw_status walk_setup(struct walker *w, char **err)
{
	struct epoch *e = w->epochs->pdata[w->cur];
	git_oid tip, last, base;
	git_commit *c;

	if (git_repository_open_ext(&w->repo, e->local,
				    GIT_REPOSITORY_OPEN_NO_SEARCH |
				    GIT_REPOSITORY_OPEN_BARE, NULL)) {
		*err = g_strdup_printf("%s: %s", e->local, git_msg());
		return PW_ERR_IO;
	}
	if (!tip_of(w->repo, &tip))
		return PW_OK;	/* an empty repository: nothing yet */
	if (e->last && git_oid_fromstr(&last, e->last))
		g_clear_pointer(&e->last, g_free);
	if (e->last && git_oid_equal(&tip, &last))
		return PW_OK;
	if (git_revwalk_new(&w->walk, w->repo) ||
	    git_revwalk_sorting(w->walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) ||
	    git_revwalk_push(w->walk, &tip)) {
		*err = g_strdup_printf("%s: %s", e->local, git_msg());
		return PW_ERR_IO;
	}
	if (!e->last)
		return PW_OK;
	if (git_commit_lookup(&c, w->repo, &last)) {
		pw_warn("%s: %s: the last commit read, %s, is gone (history"
			" rewritten?): reading the epoch again", w->name,
			e->local, e->last);
		return PW_OK;
	}
	git_commit_free(c);
	if (git_graph_descendant_of(w->repo, &tip, &last) == 1) {
		git_revwalk_hide(w->walk, &last);
	} else if (!git_merge_base(&base, w->repo, &tip, &last)) {
		pw_warn("%s: %s: history rewritten after %s: reading on from"
			" where it parted", w->name, e->local, e->last);
		git_revwalk_hide(w->walk, &base);
	} else {
		pw_warn("%s: %s: history rewritten: reading the epoch again",
			w->name, e->local);
	}
	return PW_OK;
}

/*
 * Opens epoch w->cur: lists its new commits, oldest first, in w->oids.
 * The walk and its repository go at once: sorting the walk read every
 * commit, and what libgit2 cached of them would stay for the epoch.
 */
static enum pw_status walker_open_epoch(struct walker *w, char **err)
{
	struct epoch *e = w->epochs->pdata[w->cur];
	enum pw_status s = walk_setup(w, err);
	git_oid oid;
	int rc = GIT_ITEROVER;

	w->opened = true;
	while (!s && w->walk && !(rc = git_revwalk_next(&oid, w->walk)))
		g_array_append_val(w->oids, oid);
	if (!s && w->walk && rc != GIT_ITEROVER) {
		*err = g_strdup_printf("%s: %s", e->local, git_msg());
		s = PW_ERR_IO;
	}
	g_atomic_int_add(&w->listed, (gint)w->oids->len);
	git_revwalk_free(w->walk);
	w->walk = NULL;
	git_repository_free(w->repo);
	w->repo = NULL;
	return s;
}

#define OBJREPO_READS 1000

/* The repository to read the epoch's objects through. */
static git_repository *objrepo(struct walker *w)
{
	struct epoch *e = w->epochs->pdata[w->cur];

	if (w->objrepo && ++w->objreads < OBJREPO_READS)
		return w->objrepo;
	git_repository_free(w->objrepo);
	w->objrepo = NULL;
	w->objreads = 0;
	if (git_repository_open_ext(&w->objrepo, e->local,
				    GIT_REPOSITORY_OPEN_NO_SEARCH |
				    GIT_REPOSITORY_OPEN_BARE, NULL))
		return NULL;
	return w->objrepo;
}

/* Collects what commit oid adds and removes into w->items. */
static enum pw_status walker_read_commit(struct walker *w, const git_oid *oid,
					 char **err)
{
	struct epoch *e = w->epochs->pdata[w->cur];
	git_repository *repo = objrepo(w);
	git_commit *c = NULL, *parent = NULL;
	git_tree *t = NULL, *pt = NULL;
	git_diff *diff = NULL;
	const git_tree_entry *te;
	enum pw_status s = PW_OK;
	size_t i;

	if (!repo) {
		*err = g_strdup_printf("%s: %s", e->local, git_msg());
		return PW_ERR_IO;
	}
	g_array_set_size(w->items, 0);
	w->next_item = 0;
	git_oid_tostr(w->commit, sizeof(w->commit), oid);
	if (git_commit_lookup(&c, repo, oid) || git_commit_tree(&t, c))
		goto fail;
	/* v2: one blob, "m" added or "d" removed. */
	if ((te = git_tree_entry_byname(t, "m")) || (te = git_tree_entry_byname(t, "d"))) {
		struct item it = { .removed = !strcmp(git_tree_entry_name(te), "d") };

		if (git_tree_entry_type(te) == GIT_OBJECT_BLOB) {
			git_oid_cpy(&it.blob, git_tree_entry_id(te));
			g_array_append_val(w->items, it);
		}
		goto out;
	}
	/* v1: the files the commit adds or removes, against its parent. */
	if (git_commit_parentcount(c) > 0 &&
	    (git_commit_parent(&parent, c, 0) || git_commit_tree(&pt, parent)))
		goto fail;
	if (git_diff_tree_to_tree(&diff, repo, pt, t, NULL))
		goto fail;
	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct item it = { .removed = d->status == GIT_DELTA_DELETED };

		if (it.removed)
			git_oid_cpy(&it.blob, &d->old_file.id);
		else if (d->status == GIT_DELTA_ADDED || d->status == GIT_DELTA_MODIFIED)
			git_oid_cpy(&it.blob, &d->new_file.id);
		else
			continue;
		g_array_append_val(w->items, it);
	}
	goto out;
fail:
	*err = g_strdup_printf("%s: commit %s: %s", e->local, w->commit, git_msg());
	s = PW_ERR_IO;
out:
	git_diff_free(diff);
	git_tree_free(pt);
	git_tree_free(t);
	git_commit_free(parent);
	git_commit_free(c);
	return s;
}

static enum pw_status walker_next(void *data, struct pw_raw *raw, char **err)
{
	struct walker *w = data;
	enum pw_status s;

	git_blob_free(w->blob);
	w->blob = NULL;
	for (;;) {
		struct epoch *e;
		const struct item *it;
		size_t len;

		if (w->stop && *w->stop)
			return PW_OK;
		if (w->cur >= w->epochs->len)
			return PW_OK;
		e = w->epochs->pdata[w->cur];
		if (!w->opened) {
			s = walker_open_epoch(w, err);
			if (s)
				return s;
		}
		if (w->next_item >= w->items->len) {
			if (w->next_oid >= w->oids->len) {
				walker_close_epoch(w);
				w->cur++;
				continue;
			}
			s = walker_read_commit(w, &g_array_index(w->oids, git_oid,
							       w->next_oid++), err);
			if (s)
				return s;
			continue;
		}
		it = &g_array_index(w->items, struct item, w->next_item++);
		git_oid_tostr(w->blob_hex, sizeof(w->blob_hex), &it->blob);
		g_free(w->where);
		w->where = g_strdup_printf("%s: %s commit %s", w->name,
					   e->n < 0 ? "repository" : strrchr(e->local, '/') + 1,
					   w->commit);
		raw->index = ++w->index;
		raw->where = w->where;
		raw->git_blob = w->blob_hex;
		raw->archive = e->local;
		raw->removed = it->removed;
		raw->cursor_key = e->key;
		/* The epoch's cursor moves with the commit's last item. */
		raw->cursor = w->next_item == w->items->len ? w->commit : NULL;
		if (git_blob_lookup(&w->blob, objrepo(w), &it->blob)) {
			*err = g_strdup_printf("blob %s: %s", w->blob_hex, git_msg());
			return PW_ERR_INPUT;
		}
		len = (size_t)git_blob_rawsize(w->blob);
		if (len == 0) {		/* purged: nothing left to read */
			git_blob_free(w->blob);
			w->blob = NULL;
			w->index--;
			continue;
		}
		if (len > PW_MAX_MESSAGE) {
			*err = g_strdup_printf("message of %zu bytes, over the limit"
					       " of %u", len, PW_MAX_MESSAGE);
			return PW_ERR_INPUT;
		}
		raw->data = (char *)git_blob_rawcontent(w->blob);
		raw->len = len;
		return PW_OK;
	}
}

/* Progress lines: the commits listed so far (each brings a message). */
static int64_t walker_expected(void *ctx)
{
	return g_atomic_int_get(&((struct walker *)ctx)->listed);
}

static const struct pw_source_ops walker_ops = {
	.next = walker_next,
	.ack = NULL,
	.free = walker_free,
	.expected = walker_expected,
};

#define PACKS_MAX 16	/* packs a mirror may gather before a repack */

static int count_packs(const char *repo)
{
	char *dir = g_build_filename(repo, "objects", "pack", NULL);
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;
	int packs = 0;

	while (d && (n = g_dir_read_name(d)))
		packs += g_str_has_suffix(n, ".pack");
	if (d)
		g_dir_close(d);
	g_free(dir);
	return packs;
}

/*
 * Each fetch that brings something leaves a pack of its own; reading a
 * mirror of hundreds of them would slow every poll.  Past PACKS_MAX,
 * "git repack --geometric=2" merges the small ones (the large ones
 * stay as they are, so it costs little), when git is installed; stop
 * kills it (a repack killed half-way leaves the old packs).  Under
 * lock_take()'s lock.
 */
static void repack(const char *repo, const volatile sig_atomic_t *stop)
{
	char *argv[] = { "git", "-C", (char *)repo, "repack", "-d", "-q",
			 "--geometric=2", NULL };
	GError *e = NULL;
	GPid pid;
	int status = 0, packs = count_packs(repo);

	if (packs <= PACKS_MAX)
		return;
	if (!g_spawn_async(NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
			   G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
			   G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid, &e)) {
		pw_debug("%s: %d packs, and no git to repack them: %s", repo,
			 packs, e->message);
		g_error_free(e);
		return;
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (stop && *stop) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		g_usleep(50 * 1000);
	}
	pw_debug("%s: %d packs repacked into %d", repo, packs, count_packs(repo));
	g_spawn_close_pid(pid);
}

/*
 * Fetches epoch e unless the manifest's fingerprint of it is the one
 * its mirror was fetched at (kept as the cursor "KEY:fingerprint"), so
 * that a poll that finds nothing new costs the manifest alone.
 */
static enum pw_status fetch_if_changed(struct pw_db *db, const struct epoch *e,
				       int timeout, const volatile sig_atomic_t *stop,
				       char **err)
{
	char *key = g_strconcat(e->key, ":fingerprint", NULL), *had = NULL;
	enum pw_status s = PW_OK;

	if (e->fp && (s = pw_db_cursor_get(db, key, &had))) {
		*err = g_strdup(pw_db_errmsg(db));
		goto out;
	}
	if (e->fp && had && !strcmp(had, e->fp) && is_bare_repo(e->local)) {
		pw_debug("%s: unchanged since its last fetch", e->remote);
		goto out;
	}
	unlock_stale(e->local);
	s = fetch(e, timeout, stop, err);
	if (!s)
		repack(e->local, stop);
	if (!s && e->fp && (s = pw_db_cursor_set(db, key, e->fp)))
		*err = g_strdup(pw_db_errmsg(db));
out:
	g_free(had);
	g_free(key);
	return s;
}

enum pw_status pw_pubinbox_open(const struct pw_subscription *sub,
				const char *mirrors, int fetch_timeout,
				struct pw_db *db,
				const volatile sig_atomic_t *stop,
				struct pw_source **out, char **err)
{
	GPtrArray *epochs = g_ptr_array_new_with_free_func((GDestroyNotify)epoch_free);
	/* NAME.ID: a subscription removed and added again under its name
	 * gets a mirror of its own. */
	char *dir = g_strdup_printf("%s.%" G_GINT64_FORMAT, sub->name, sub->id);
	char *mirror = g_build_filename(mirrors, dir, NULL);
	struct walker *w;
	enum pw_status s = PW_OK;
	int lock;
	guint i;

	*out = NULL;
	*err = NULL;
	git_once();
	g_free(dir);
	lock = lock_take(mirror, sub->name, err);
	if (lock < 0) {
		g_free(mirror);
		g_ptr_array_free(epochs, TRUE);
		return PW_ERR_IO;
	}
	if (is_url(sub->url)) {
		if (!epochs_remote(sub, mirror, stop, epochs, err)) {
			s = PW_ERR_IO;
			goto fail;
		}
	} else if (!epochs_local(sub, sub->url, epochs, err)) {
		s = PW_ERR_INPUT;
		goto fail;
	}
	for (i = 0; i < epochs->len; i++) {
		struct epoch *e = epochs->pdata[i];

		if (e->fetch && (s = fetch_if_changed(db, e, fetch_timeout, stop, err)))
			goto fail;
		if ((s = pw_db_cursor_get(db, e->key, &e->last))) {
			*err = g_strdup(pw_db_errmsg(db));
			goto fail;
		}
	}
	w = g_new0(struct walker, 1);
	w->name = g_strdup(sub->name);
	w->epochs = epochs;
	w->items = g_array_new(FALSE, FALSE, sizeof(struct item));
	w->oids = g_array_new(FALSE, FALSE, sizeof(git_oid));
	w->stop = stop;
	w->lock = lock;
	*out = pw_source_new(sub->url, &walker_ops, w);
	g_free(mirror);
	return PW_OK;
fail:
	close(lock);
	g_free(mirror);
	g_ptr_array_free(epochs, TRUE);
	return s;
}

enum pw_status pw_pubinbox_message(struct pw_db *db, int64_t id, GBytes **raw)
{
	char *repo = NULL, *blob = NULL, *err = NULL;
	enum pw_status s;

	*raw = pw_db_message_raw(db, id);
	if (*raw)
		return PW_OK;
	s = pw_db_message_archive(db, id, &repo, &blob);
	if (!s && blob && !(*raw = pw_pubinbox_blob(repo, blob, &err)))
		pw_warn("message %" G_GINT64_FORMAT ": %s", id, err);
	g_free(err);
	g_free(repo);
	g_free(blob);
	return s;
}

GBytes *pw_pubinbox_blob(const char *repo_path, const char *blob, char **err)
{
	git_repository *repo = NULL;
	git_blob *b = NULL;
	GBytes *bytes = NULL;
	git_oid oid;

	git_once();
	if (git_oid_fromstr(&oid, blob)) {
		*err = g_strdup_printf("%s: not a blob id", blob);
		return NULL;
	}
	if (git_repository_open_ext(&repo, repo_path, GIT_REPOSITORY_OPEN_NO_SEARCH |
				    GIT_REPOSITORY_OPEN_BARE, NULL) ||
	    git_blob_lookup(&b, repo, &oid))
		*err = g_strdup_printf("%s: blob %s: %s", repo_path, blob, git_msg());
	else
		bytes = g_bytes_new(git_blob_rawcontent(b), (gsize)git_blob_rawsize(b));
	git_blob_free(b);
	git_repository_free(repo);
	return bytes;
}

/* ---- making an inbox ---- */

/* Adds one message to repo as public-inbox's importer does. */
static bool add_message(git_repository *repo, const struct pw_raw *raw,
			git_oid *head, bool first, const git_signature *committer)
{
	struct pw_mail *m = NULL;
	git_signature *author = NULL;
	git_treebuilder *tb = NULL;
	git_tree *tree = NULL;
	git_commit *parent = NULL;
	git_oid blob, tree_id;
	char *perr = NULL;
	const char *name, *addr;
	bool ok = false;

	/* Unreadable mail is archived too, under a made-up author. */
	if (pw_mail_parse(raw->data, raw->len, &m, &perr))
		pw_warn("%s: %s", raw->where ? raw->where : "message", perr);
	addr = m && m->from_addr && *m->from_addr ? m->from_addr :
	       "unknown@localhost";
	name = m && m->from_name && *m->from_name ? m->from_name : addr;
	if (git_signature_new(&author, name, addr,
			      m && m->date ? m->date : (git_time_t)time(NULL), 0) ||
	    git_blob_create_from_buffer(&blob, repo, raw->data, raw->len) ||
	    git_treebuilder_new(&tb, repo, NULL) ||
	    git_treebuilder_insert(NULL, tb, "m", &blob, GIT_FILEMODE_BLOB) ||
	    git_treebuilder_write(&tree_id, tb) ||
	    git_tree_lookup(&tree, repo, &tree_id) ||
	    (!first && git_commit_lookup(&parent, repo, head)))
		goto out;
	ok = !git_commit_create(head, repo, "refs/heads/master", author, committer,
				NULL, m && m->subject && *m->subject ? m->subject :
				"(no subject)",
				tree, first ? 0 : 1,
				(const git_commit **)&parent);
out:
	g_free(perr);
	git_commit_free(parent);
	git_tree_free(tree);
	git_treebuilder_free(tb);
	git_signature_free(author);
	pw_mail_free(m);
	return ok;
}

enum pw_status pw_pubinbox_append(const char *dir, const char *path, int *n,
				  char **err)
{
	GArray *have = local_epochs(dir);
	char *epoch;
	git_repository *repo = NULL;
	git_signature *committer = NULL;
	struct pw_source *src = NULL;
	enum pw_status s;
	git_oid head;
	bool first;
	int rc;

	*n = 0;
	*err = NULL;
	git_once();
	pw_mail_init();
	/* The newest epoch, or git/0.git in a new inbox. */
	epoch = g_strdup_printf("%s/git/%d.git", dir, have->len ?
				g_array_index(have, int, have->len - 1) : 0);
	g_array_free(have, TRUE);
	s = pw_source_open(path, &src, err);
	if (s)
		goto out;
	if (is_bare_repo(epoch))
		rc = git_repository_open_bare(&repo, epoch);
	else
		rc = g_mkdir_with_parents(epoch, 0755) ||
		     git_repository_init(&repo, epoch, 1) ||
		     git_repository_set_head(repo, "refs/heads/master");
	if (rc || git_signature_now(&committer, "patchwarden", "patchwarden@localhost")) {
		*err = g_strdup_printf("%s: %s", epoch, git_msg());
		s = PW_ERR_IO;
		goto out;
	}
	first = git_reference_name_to_id(&head, repo, "refs/heads/master") != 0;
	for (;;) {
		struct pw_raw raw;
		char *e = NULL;

		s = pw_source_next(src, &raw, &e);
		if (s == PW_ERR_INPUT) {
			pw_warn("%s", e);
			g_free(e);
			continue;
		}
		if (s) {
			*err = e;
			goto out;
		}
		if (!raw.data)
			break;
		if (!add_message(repo, &raw, &head, first, committer)) {
			*err = g_strdup_printf("%s: %s", epoch, git_msg());
			s = PW_ERR_IO;
			goto out;
		}
		(*n)++;
		first = false;
	}
out:
	pw_source_free(src);
	git_signature_free(committer);
	git_repository_free(repo);
	g_free(epoch);
	return s;
}
