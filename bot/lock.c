/*
 * patchwarden: the service's lock on its store (see bot/lock.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "bot/lock.h"

#define BACKOFF_BASE 60		/* seconds before the first retry */
#define BACKOFF_MAX (6 * 3600)

/*
 * Who holds the lock, from what it wrote in the file: "pid N since
 * DATE", or a plain "another process" when it has not written yet (it
 * writes just after it locks) or wrote something else.
 */
static char *holder(int fd)
{
	char buf[256], *who = NULL, *since = NULL, **lines, **l;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	gint64 pid;

	if (n <= 0)
		return g_strdup("another process");
	buf[n] = '\0';
	lines = g_strsplit(buf, "\n", -1);
	for (l = lines; *l; l++) {
		if (g_str_has_prefix(*l, "pid ") && !who &&
		    g_ascii_string_to_signed(*l + 4, 10, 1, G_MAXINT32, &pid, NULL))
			who = g_strdup_printf("process %" G_GINT64_FORMAT, pid);
		else if (g_str_has_prefix(*l, "since ") && !since &&
			 g_utf8_validate(*l + 6, -1, NULL) && strlen(*l + 6) < 64)
			since = g_strdup(*l + 6);
	}
	g_strfreev(lines);
	if (!who)
		who = g_strdup("another process");
	if (since) {
		char *s = g_strdup_printf("%s (since %s)", who, since);

		g_free(who);
		who = s;
	}
	g_free(since);
	return who;
}

/*
 * The file beside the store that its lock of suffix is taken on, named
 * from the store's real path: a store reached through a symbolic link,
 * or by another spelling of its path, is locked in the one place.  A
 * store not yet made is named from its folder's real path.  A new
 * string.
 */
static char *lock_path(const char *db_path, const char *suffix)
{
	char *real = realpath(db_path, NULL), *path;

	if (!real) {
		char *dir = g_path_get_dirname(db_path);
		char *base = g_path_get_basename(db_path);
		char *rdir = realpath(dir, NULL);

		real = rdir ? g_build_filename(rdir, base, NULL) :
		       g_strdup(db_path);
		free(rdir);
		g_free(dir);
		g_free(base);
		path = g_strdup_printf("%s.%s", real, suffix);
		g_free(real);
		return path;
	}
	path = g_strdup_printf("%s.%s", real, suffix);
	free(real);
	return path;
}

enum pw_status pw_lock_take(const char *db_path, int *fd, char **err)
{
	char *path = lock_path(db_path, "lock"), *text = NULL;
	GDateTime *now = NULL;
	char *date = NULL;
	enum pw_status s = PW_OK;
	size_t len;

	*err = NULL;
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (*fd < 0) {
		*err = g_strdup_printf("%s: cannot open the service's lock: %s",
				       path, g_strerror(errno));
		s = PW_ERR_IO;
		goto out;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		if (e == EWOULDBLOCK) {
			char *who = holder(*fd);

			*err = g_strdup_printf("the store %s is in use by another"
					       " service, %s: stop it first (its"
					       " lock: %s)", db_path, who, path);
			g_free(who);
			s = PW_ERR_TRANSIENT;
		} else {
			*err = g_strdup_printf("%s: cannot lock: %s", path,
					       g_strerror(e));
			s = PW_ERR_IO;
		}
		close(*fd);
		*fd = -1;
		goto out;
	}
	/* Locked: what a refused one reads.  A failure to write only
	 * costs the refused one the name; the lock holds all the same. */
	now = g_date_time_new_now_utc();
	date = g_date_time_format(now, "%Y-%m-%d %H:%M:%S UTC");
	text = g_strdup_printf("pid %d\nsince %s\n", (int)getpid(), date);
	len = strlen(text);
	if (ftruncate(*fd, 0) == 0 && pwrite(*fd, text, len, 0) == (ssize_t)len)
		fdatasync(*fd);
out:
	if (now)
		g_date_time_unref(now);
	g_free(date);
	g_free(text);
	g_free(path);
	return s;
}

void pw_lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

enum pw_status pw_lock_beside(const char *db_path, const char *suffix,
			      const char *busy, int *fd, char **err)
{
	char *path;

	*fd = -1;
	if (!*db_path || !strcmp(db_path, ":memory:"))
		return PW_OK;
	path = lock_path(db_path, suffix);
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (*fd < 0) {
		*err = g_strdup_printf("%s: %s", path, g_strerror(errno));
		g_free(path);
		return PW_ERR_IO;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		*err = g_strdup_printf("%s: another process is %s", path, busy);
		close(*fd);
		*fd = -1;
		g_free(path);
		return PW_ERR_TRANSIENT;
	}
	g_free(path);
	return PW_OK;
}

int64_t pw_lock_backoff(int attempts)
{
	int64_t d = BACKOFF_BASE;

	while (--attempts > 0 && d < BACKOFF_MAX)
		d *= 2;
	return d < BACKOFF_MAX ? d : BACKOFF_MAX;
}
