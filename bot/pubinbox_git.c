/*
 * patchwarden: the libgit2 helpers that reading, fetching and writing a
 * public-inbox archive share (see bot/pubinbox-private.h), and telling
 * an archive's folder.
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

/* ---- libgit2 ---- */

void pw_pubinbox_git_once(void)
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

enum pw_status pw_pubinbox_blob_fits(git_repository *repo, const git_oid *oid,
				     size_t *size, char **err)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_odb *odb = NULL;
	git_object_t type;
	size_t n = 0;
	enum pw_status s = PW_OK;

	*size = 0;
	git_oid_tostr(hex, sizeof(hex), oid);
	if (!repo || git_repository_odb(&odb, repo) ||
	    git_odb_read_header(&n, &type, odb, oid)) {
		*err = g_strdup_printf("blob %s: %s", hex, pw_pubinbox_git_msg());
		s = PW_ERR_INPUT;
	} else if (n > PW_MAX_MESSAGE) {
		*err = g_strdup_printf("blob %s: a message of %zu bytes, over"
				       " the limit of %u: not read", hex, n,
				       PW_MAX_MESSAGE);
		s = PW_ERR_INPUT;
	}
	*size = n;
	git_odb_free(odb);
	return s;
}

/* libgit2's last error as text. */
const char *pw_pubinbox_git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

bool pw_pubinbox_is_dir(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

/* A bare repository: HEAD and objects/ in it. */
bool pw_pubinbox_is_bare_repo(const char *path)
{
	char *head = g_build_filename(path, "HEAD", NULL);
	char *obj = g_build_filename(path, "objects", NULL);
	bool yes = g_file_test(head, G_FILE_TEST_IS_REGULAR) && pw_pubinbox_is_dir(obj);

	g_free(head);
	g_free(obj);
	return yes;
}

gint pw_pubinbox_cmp_int(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The epoch numbers of the folder dir/git (N.git entries), ascending. */
GArray *pw_pubinbox_local_epochs(const char *dir)
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
	g_array_sort(a, pw_pubinbox_cmp_int);
	return a;
}

bool pw_pubinbox_is_inbox(const char *path)
{
	GArray *e;
	bool yes;

	if (pw_pubinbox_is_bare_repo(path))
		return true;
	e = pw_pubinbox_local_epochs(path);
	yes = e->len > 0;
	g_array_free(e, TRUE);
	return yes;
}
