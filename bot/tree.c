/*
 * patchwarden: a maintainer's git tree marks patches applied (see
 * bot/tree.h).  Each commit's diff against its parent is written as a
 * patch and given checks/fingerprint.c's patch-id, the value the store
 * keeps for each patch: the same text gives the same id, whichever side
 * it came from.
 */
#include <stdio.h>
#include <string.h>

#include <git2.h>

#include "bot/log.h"
#include "bot/pubinbox-private.h"
#include "bot/printer.h"
#include "bot/tree.h"
#include "checks/fingerprint.h"
#include "db/lineage.h"

/* How far before the oldest stored patch a first poll reads. */
#define SLACK (90 * 86400)

/* The local repository of l's tree: a path, or a URL's mirror (new). */
static char *local_of(const struct pw_config *cfg, const struct pw_list_conf *l)
{
	char *name, *path;

	if (!strstr(l->tree, "://"))
		return g_strdup(l->tree);
	name = g_strconcat("tree-", l->name, ".git", NULL);
	g_strdelimit(name, "/", '_');
	path = g_build_filename(cfg->mirrors, name, NULL);
	g_free(name);
	return path;
}

/* Fetches a URL tree into its mirror; a path is read where it is. */
static enum pw_status fetch(struct pw_db *db, const struct pw_config *cfg,
			    const struct pw_list_conf *l, const char *local,
			    const char *key, const volatile sig_atomic_t *stop,
			    char **err)
{
	struct pw_pubinbox_epoch e = { .n = -1, .local = (char *)local,
				       .remote = l->tree, .key = (char *)key };

	if (!strstr(l->tree, "://"))
		return PW_OK;
	return pw_pubinbox_fetch_if_changed(db, &e, cfg->fetch_timeout, stop,
					    err);
}

/* The patch-id of commit c against its one parent into hex; false when none. */
static bool commit_pid(git_repository *repo, git_commit *c,
		       char hex[PW_FP_HEX])
{
	git_commit *parent = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	git_buf buf = { 0 };
	bool ok = false;

	hex[0] = '\0';
	/* A merge carries no patch of its own; a root commit none sent. */
	if (git_commit_parentcount(c) != 1 ||
	    git_commit_parent(&parent, c, 0) ||
	    git_commit_tree(&a, parent) || git_commit_tree(&b, c) ||
	    git_diff_tree_to_tree(&diff, repo, a, b, NULL) ||
	    git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH))
		goto out;
	ok = buf.size && pw_flood_patch_id(buf.ptr, buf.size, hex);
out:
	git_buf_dispose(&buf);
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	return ok;
}

/* The tip of branch in repo into *tip; false with *err when there is none. */
static bool tip_of(git_repository *repo, const char *branch, git_oid *tip,
		   char **err)
{
	char *ref = g_strconcat("refs/heads/", branch, NULL);
	bool ok = !git_reference_name_to_id(tip, repo, ref) ||
		  !git_reference_name_to_id(tip, repo, branch);

	if (!ok)
		*err = g_strdup_printf("no branch %s: %s", branch,
				       pw_pubinbox_git_msg());
	g_free(ref);
	return ok;
}

/*
 * Reads the commits of repo from tip back to the cursor last (hex, or
 * NULL: back to since, at most PW_TREE_FIRST_COMMITS), marking the
 * patches of list they carry applied.
 */
static enum pw_status walk(struct pw_db *db, git_repository *repo,
			   const git_oid *tip, const char *last, int64_t since,
			   const char *list, const volatile sig_atomic_t *stop,
			   struct pw_tree_counts *c, char **err)
{
	git_revwalk *w = NULL;
	git_oid oid, hide;
	enum pw_status s = PW_OK;

	if (git_revwalk_new(&w, repo) || git_revwalk_push(w, tip)) {
		*err = g_strdup(pw_pubinbox_git_msg());
		s = PW_ERR_IO;
		goto out;
	}
	git_revwalk_sorting(w, GIT_SORT_TIME);
	/* A cursor that is no commit id, or that the branch no longer
	 * holds (rewritten), hides nothing: the walk is then bounded as a
	 * first one is. */
	if (last && (git_oid_fromstr(&hide, last) ||
		     git_revwalk_hide(w, &hide)))
		last = NULL;
	while (!s && !(stop && *stop) && !git_revwalk_next(&oid, w)) {
		char hex[PW_FP_HEX], id[GIT_OID_HEXSZ + 1];
		git_commit *commit;
		int n = 0;

		if (git_commit_lookup(&commit, repo, &oid))
			continue;
		if (!last && (c->commits >= PW_TREE_FIRST_COMMITS ||
			      (int64_t)git_commit_time(commit) < since)) {
			git_commit_free(commit);
			break;
		}
		c->commits++;
		if (commit_pid(repo, commit, hex)) {
			git_oid_tostr(id, sizeof(id), &oid);
			s = pw_db_patch_applied_pid(db, hex, list, id, &n);
			c->applied += n;
		}
		git_commit_free(commit);
	}
out:
	git_revwalk_free(w);
	return s;
}

enum pw_status pw_tree_poll(struct pw_db *db, const struct pw_config *cfg,
			    const struct pw_list_conf *l,
			    const volatile sig_atomic_t *stop,
			    struct pw_tree_counts *c, char **err)
{
	char *key = g_strconcat("tree:", l->name, NULL), *local = NULL;
	char *last = NULL, tip_hex[GIT_OID_HEXSZ + 1];
	git_repository *repo = NULL;
	enum pw_status s;
	int64_t oldest = 0;
	git_oid tip;

	memset(c, 0, sizeof(*c));
	pw_pubinbox_git_once();
	local = local_of(cfg, l);
	s = fetch(db, cfg, l, local, key, stop, err);
	if (s)
		goto out;
	if (git_repository_open_ext(&repo, local,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		*err = g_strdup_printf("%s: %s", local, pw_pubinbox_git_msg());
		s = PW_ERR_IO;
		goto out;
	}
	if (!tip_of(repo, l->tree_branch, &tip, err)) {
		s = PW_ERR_INPUT;
		goto out;
	}
	git_oid_tostr(tip_hex, sizeof(tip_hex), &tip);
	if ((s = pw_db_begin(db)))
		goto db_error;
	s = pw_db_cursor_get(db, key, &last);
	/* Read always: a cursor the walk cannot use bounds it by this. */
	if (!s)
		s = pw_db_lineage_oldest(db, l->name, &oldest);
	if (!s && (!last || strcmp(last, tip_hex)))
		s = walk(db, repo, &tip, last, oldest - SLACK, l->name, stop,
			 c, err);
	/* Stopped halfway, the cursor stays: the next poll reads again. */
	if (!s && !(stop && *stop))
		s = pw_db_cursor_set(db, key, tip_hex);
	if (s) {
		pw_db_rollback(db);
		if (*err)
			goto out;
		goto db_error;
	}
	s = pw_db_commit(db);
	if (!s)
		goto out;
db_error:
	*err = g_strdup(pw_db_errmsg(db));
out:
	git_repository_free(repo);
	g_free(last);
	g_free(local);
	g_free(key);
	return s;
}

bool pw_tree_any(const struct pw_config *cfg)
{
	guint i;

	for (i = 0; cfg->lists && i < cfg->lists->len; i++)
		if (((const struct pw_list_conf *)cfg->lists->pdata[i])->tree)
			return true;
	return false;
}

bool pw_tree_poll_all(struct pw_db *db, const struct pw_config *cfg,
		      const volatile sig_atomic_t *stop, FILE *out, bool json)
{
	bool ok = true;
	guint i;

	for (i = 0; cfg->lists && i < cfg->lists->len && !(stop && *stop); i++) {
		const struct pw_list_conf *l = cfg->lists->pdata[i];
		struct pw_tree_counts c;
		char *err = NULL;

		if (!l->tree)
			continue;
		if (pw_tree_poll(db, cfg, l, stop, &c, &err)) {
			pw_error("tree %s: %s", l->name, err ? err : "failed");
			ok = false;
		} else if (!out) {
			if (c.commits)
				pw_info("tree %s: commits=%d applied=%d", l->name,
					c.commits, c.applied);
		} else if (json) {
			struct pw_printer *p = pw_printer_new(PW_FORMAT_JSON, out,
							      NULL, PW_PRINTER_COMPACT);

			pw_print_begin_record(p);
			pw_print_str_at(p, "tree", l->name);
			pw_print_int_at(p, "commits", c.commits);
			pw_print_int_at(p, "applied", c.applied);
			pw_print_end(p);
			pw_printer_free(p);
		} else {
			fprintf(out, "tree %s: commits=%d applied=%d\n", l->name,
				c.commits, c.applied);
		}
		g_free(err);
	}
	return ok;
}
