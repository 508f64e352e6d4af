/*
 * patchwarden: writing a public-inbox archive (see bot/pubinbox.h):
 * what "archive" makes, one commit a message, as public-inbox does.
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
	GArray *have = pw_pubinbox_local_epochs(dir);
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
	pw_pubinbox_git_once();
	pw_mail_init();
	/* The newest epoch, or git/0.git in a new inbox. */
	epoch = g_strdup_printf("%s/git/%d.git", dir, have->len ?
				g_array_index(have, int, have->len - 1) : 0);
	g_array_free(have, TRUE);
	s = pw_source_open(path, &src, err);
	if (s)
		goto out;
	if (pw_pubinbox_is_bare_repo(epoch))
		rc = git_repository_open_bare(&repo, epoch);
	else
		rc = g_mkdir_with_parents(epoch, 0755) ||
		     git_repository_init(&repo, epoch, 1) ||
		     git_repository_set_head(repo, "refs/heads/master");
	if (rc || git_signature_now(&committer, "patchwarden", "patchwarden@localhost")) {
		*err = g_strdup_printf("%s: %s", epoch, pw_pubinbox_git_msg());
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
			*err = g_strdup_printf("%s: %s", epoch, pw_pubinbox_git_msg());
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
