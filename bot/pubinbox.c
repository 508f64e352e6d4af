/*
 * patchwarden: public-inbox archives as a source (see bot/pubinbox.h).
 *
 * Opening a subscription finds its epochs, fetches those of a mirror
 * that can have changed (the newest one mirrored and any new ones; each
 * fetch runs in a child process that is killed on a stall or a stop,
 * since libgit2 has no network timeout) and reads the cursors.  The
 * source then walks each epoch's new commits, oldest first, and yields
 * each added message with its blob id, each removed one as a removal,
 * and the commit as the epoch's cursor.  The fetching is in
 * bot/pubinbox_fetch.c, the writing of an archive in bot/pubinbox_write.c,
 * the libgit2 helpers all three use in bot/pubinbox_git.c.
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

static bool is_url(const char *s)
{
	return strstr(s, "://") != NULL;	/* pw_subscription_kind() said which */
}

/* ---- the epochs of a subscription ---- */

static void epoch_free(struct pw_pubinbox_epoch *e)
{
	g_free(e->local);
	g_free(e->remote);
	g_free(e->key);
	g_free(e->last);
	g_free(e->fp);
	g_free(e);
}

static struct pw_pubinbox_epoch *epoch_new(int64_t sub, int n, const char *local,
			       const char *remote)
{
	struct pw_pubinbox_epoch *e = g_new0(struct pw_pubinbox_epoch, 1);

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

	if (!pw_pubinbox_is_dir(path)) {
		*err = g_strdup_printf("%s: no such folder", path);
		return false;
	}
	if (pw_pubinbox_is_bare_repo(path)) {
		g_ptr_array_add(out, epoch_new(sub->id, -1, path, NULL));
		return true;
	}
	ns = pw_pubinbox_local_epochs(path);
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
	GArray *have = pw_pubinbox_local_epochs(mirror), *ns;
	char *e = NULL, *single;
	int newest_have = -1, next;
	guint i;

	if (have->len)
		newest_have = g_array_index(have, int, have->len - 1);
	ns = g_str_has_prefix(base, "http") ? pw_pubinbox_manifest_epochs(base, fps, stop, &e) :
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
			bool yes = pw_pubinbox_repo_exists(u, stop, &e);

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
		struct pw_pubinbox_epoch *ep = epoch_new(sub->id, n, local, remote);

		ep->fetch = n >= newest_have || !pw_pubinbox_is_bare_repo(local);
		g_ptr_array_add(out, ep);
		g_free(rel);
		g_free(local);
		g_free(remote);
	}
	if (!out->len) {
		/* A v1 inbox, or one epoch, at the URL itself. */
		char *u = g_strndup(base, strlen(base) - 1);

		if (!pw_pubinbox_repo_exists(u, stop, &e)) {
			*err = e ? e : g_strdup_printf("%s: no public-inbox archive"
						       " there (no manifest.js.gz,"
						       " no git/0.git, no repository)",
						       sub->url);
			g_free(u);
			goto fail;
		}
		single = g_build_filename(mirror, "repo.git", NULL);
		struct pw_pubinbox_epoch *ep = epoch_new(sub->id, -1, single, u);

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
		struct pw_pubinbox_epoch *ep = out->pdata[i];

		if (ep->n >= 0)
			ep->fp = g_strdup(g_hash_table_lookup(fps, GINT_TO_POINTER(ep->n + 1)));
	}
	g_hash_table_destroy(fps);
	return ok;
}

/* ---- walking the epochs ---- */

struct item {
	git_oid blob;
	bool removed;
};

struct walker {
	char *name;		/* the subscription, for messages */
	GPtrArray *epochs;	/* struct pw_pubinbox_epoch *, ascending */
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
	int lock;		/* pw_pubinbox_lock_take()'s, held while the source lives */
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
	struct pw_pubinbox_epoch *e = w->epochs->pdata[w->cur];
	git_oid tip, last, base;
	git_commit *c;

	if (git_repository_open_ext(&w->repo, e->local,
				    GIT_REPOSITORY_OPEN_NO_SEARCH |
				    GIT_REPOSITORY_OPEN_BARE, NULL)) {
		*err = g_strdup_printf("%s: %s", e->local, pw_pubinbox_git_msg());
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
		*err = g_strdup_printf("%s: %s", e->local, pw_pubinbox_git_msg());
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
	struct pw_pubinbox_epoch *e = w->epochs->pdata[w->cur];
	enum pw_status s = walk_setup(w, err);
	git_oid oid;
	int rc = GIT_ITEROVER;

	w->opened = true;
	while (!s && w->walk && !(rc = git_revwalk_next(&oid, w->walk)))
		g_array_append_val(w->oids, oid);
	if (!s && w->walk && rc != GIT_ITEROVER) {
		*err = g_strdup_printf("%s: %s", e->local, pw_pubinbox_git_msg());
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
	struct pw_pubinbox_epoch *e = w->epochs->pdata[w->cur];

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
	struct pw_pubinbox_epoch *e = w->epochs->pdata[w->cur];
	git_repository *repo = objrepo(w);
	git_commit *c = NULL, *parent = NULL;
	git_tree *t = NULL, *pt = NULL;
	git_diff *diff = NULL;
	const git_tree_entry *te;
	enum pw_status s = PW_OK;
	size_t i;

	if (!repo) {
		*err = g_strdup_printf("%s: %s", e->local, pw_pubinbox_git_msg());
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
	*err = g_strdup_printf("%s: commit %s: %s", e->local, w->commit, pw_pubinbox_git_msg());
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
		struct pw_pubinbox_epoch *e;
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
		/* Its size first: a blob too large is never inflated. */
		s = pw_pubinbox_blob_fits(objrepo(w), &it->blob, &len, err);
		if (s)
			return s;
		if (len == 0) {		/* purged: nothing left to read */
			w->index--;
			continue;
		}
		if (git_blob_lookup(&w->blob, objrepo(w), &it->blob)) {
			*err = g_strdup_printf("blob %s: %s", w->blob_hex, pw_pubinbox_git_msg());
			return PW_ERR_INPUT;
		}
		len = (size_t)git_blob_rawsize(w->blob);
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
	pw_pubinbox_git_once();
	g_free(dir);
	lock = pw_pubinbox_lock_take(mirror, sub->name, err);
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
		struct pw_pubinbox_epoch *e = epochs->pdata[i];

		if (e->fetch && (s = pw_pubinbox_fetch_if_changed(db, e, fetch_timeout, stop, err)))
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
	char *why = NULL;
	size_t size;
	git_oid oid;

	pw_pubinbox_git_once();
	if (git_oid_fromstr(&oid, blob)) {
		*err = g_strdup_printf("%s: not a blob id", blob);
		return NULL;
	}
	if (git_repository_open_ext(&repo, repo_path, GIT_REPOSITORY_OPEN_NO_SEARCH |
				    GIT_REPOSITORY_OPEN_BARE, NULL)) {
		*err = g_strdup_printf("%s: blob %s: %s", repo_path, blob, pw_pubinbox_git_msg());
	} else if (pw_pubinbox_blob_fits(repo, &oid, &size, &why)) {
		*err = g_strdup_printf("%s: %s", repo_path, why);
		g_free(why);
	} else if (git_blob_lookup(&b, repo, &oid))
		*err = g_strdup_printf("%s: blob %s: %s", repo_path, blob, pw_pubinbox_git_msg());
	else
		bytes = g_bytes_new(git_blob_rawcontent(b), (gsize)git_blob_rawsize(b));
	git_blob_free(b);
	git_repository_free(repo);
	return bytes;
}
