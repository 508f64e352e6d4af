/*
 * patchwarden: fetching a public-inbox archive's epochs into their
 * mirrors (see bot/pubinbox.h): the remote epochs a manifest.js.gz or a
 * probe names, each fetch in a child process that is killed on a stall
 * or a stop (libgit2 has no network timeout), the lock of a poll, and
 * the repack of a mirror of many packs.
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
#include "bot/pubinbox-private.h"

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
GArray *pw_pubinbox_manifest_epochs(const char *base, GHashTable *fps,
				    const volatile sig_atomic_t *stop,
				    char **err)
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
	g_array_sort(a, pw_pubinbox_cmp_int);
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
bool pw_pubinbox_repo_exists(const char *url,
			     const volatile sig_atomic_t *stop, char **err)
{
	GBytes *b = NULL;
	char *probe;
	long code;
	bool yes;

	if (g_str_has_prefix(url, "file://"))
		return pw_pubinbox_is_bare_repo(url + 7);
	probe = g_strconcat(url, "/info/refs?service=git-upload-pack", NULL);
	yes = http_get(probe, 1u << 20,
		       "application/x-git-upload-pack-advertisement", stop, &b,
		       &code, err);
	if (b)
		g_bytes_unref(b);
	g_free(probe);
	return yes;
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

	if (pw_pubinbox_is_bare_repo(local))
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
				g_strerror(errno) : pw_pubinbox_git_msg();

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
static enum pw_status fetch(const struct pw_pubinbox_epoch *e, int timeout,
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
int pw_pubinbox_lock_take(const char *mirror, const char *name, char **err)
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

		if (g_str_has_suffix(n, ".lock") && !pw_pubinbox_is_dir(p)) {
			if (!unlink(p))
				pw_warn("%s: removed, left by a fetch that was"
					" stopped", p);
		} else if (depth > 0 && pw_pubinbox_is_dir(p)) {
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
 * it.  Only under pw_pubinbox_lock_take()'s lock: nothing else writes there.
 */
static void unlock_stale(const char *repo)
{
	char *refs = g_build_filename(repo, "refs", NULL);

	unlock_dir(repo, 0);
	unlock_dir(refs, 8);
	g_free(refs);
}

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
 * pw_pubinbox_lock_take()'s lock.
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
enum pw_status pw_pubinbox_fetch_if_changed(struct pw_db *db,
					    const struct pw_pubinbox_epoch *e,
					    int timeout,
					    const volatile sig_atomic_t *stop,
					    char **err)
{
	char *key = g_strconcat(e->key, ":fingerprint", NULL), *had = NULL;
	enum pw_status s = PW_OK;

	if (e->fp && (s = pw_db_cursor_get(db, key, &had))) {
		*err = g_strdup(pw_db_errmsg(db));
		goto out;
	}
	if (e->fp && had && !strcmp(had, e->fp) && pw_pubinbox_is_bare_repo(e->local)) {
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
