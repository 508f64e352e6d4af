/*
 * patchwarden: raw messages from mbox files, single messages, Maildirs,
 * directories of them, and stdin.
 *
 * Files are read through a fixed 64 KiB window, so memory stays bounded
 * by the largest message whatever the file size; a message beyond
 * PW_MAX_MESSAGE is skipped and reported.  In a regular file the next
 * message is looked for after it; a pipe or a device (standard input,
 * /dev/zero) may never end, so reading stops there.  The error of a
 * message says why only: raw->where says which.  The kind of a file is told
 * from its first line that is not white space: "From " makes it an
 * mbox.  mbox framing follows git mailsplit and mboxrd: the first
 * "From " line, and then every one that git's is_from_line() takes for
 * a separator (a time and a year), start a message, and one ">" is
 * removed from lines matching "^>+From " (mboxo escaping is undone the
 * same way, as its only escape is ">From ").  Beyond git, a header's
 * Content-Length is honoured where it holds (mboxcl2 leaves From_ lines
 * in bodies unescaped).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/source.h"

#define WINDOW (64u << 10)

struct pw_source {
	char *path;
	enum pw_source_kind kind;
	int fd;
	bool framed;		/* mbox framing applies */
	bool eof;		/* nothing left to read from fd */
	bool seekable;		/* fd can be read again from an offset */
	bool done;		/* the last message was returned */

	/* the read window: buf[head, tail) is unread data */
	char *buf;
	size_t head, tail;
	int64_t pos;		/* file offset of buf[head] */
	bool at_bol;		/* buf[head] begins a line */

	bool have_sep;		/* a From_ line was read for the next message */
	int64_t sep_off;

	GString *msg;		/* the current message */
	char *where;
	int index;

	/* Maildir, and a plain directory: its entries, read in name order */
	GPtrArray *files;
	guint next_file;
	struct pw_source *child;	/* the entry being read (a directory) */
	int depth;			/* directories above this one */

	/* A source of pw_source_new(): its code and state. */
	const struct pw_source_ops *ops;
	void *ctx;
};

enum pw_source_kind pw_source_kind(const struct pw_source *s)
{
	return s->kind;
}

const char *pw_source_path(const struct pw_source *s)
{
	return s->path;
}

/* Reads more bytes into the window; false at end of file or on error. */
static bool fill(struct pw_source *s, enum pw_status *st, char **err)
{
	ssize_t n;

	if (s->eof)
		return false;
	if (s->head > 0) {
		memmove(s->buf, s->buf + s->head, s->tail - s->head);
		s->tail -= s->head;
		s->head = 0;
	}
	if (s->tail == WINDOW)
		return false;
	do
		n = read(s->fd, s->buf + s->tail, WINDOW - s->tail);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		*st = PW_ERR_IO;
		if (err)
			*err = g_strdup_printf("%s: read error: %s", s->path,
					       g_strerror(errno));
		s->eof = true;
		return false;
	}
	if (n == 0) {
		s->eof = true;
		return false;
	}
	s->tail += (size_t)n;
	return true;
}

/*
 * Returns the next segment: up to and including a newline, or as much
 * of a long line as the window holds.  *bol says whether it starts a
 * line.  A segment that starts a line holds the whole line or a full
 * window of it, which is enough to recognise "From " and blank lines.
 */
static bool segment(struct pw_source *s, const char **p, size_t *len,
		    bool *bol, enum pw_status *st, char **err)
{
	const char *nl;

	for (;;) {
		nl = memchr(s->buf + s->head, '\n', s->tail - s->head);
		if (nl || (s->head == 0 && s->tail == WINDOW))
			break;
		if (!fill(s, st, err))
			break;
	}
	if (s->tail == s->head)
		return false;
	*p = s->buf + s->head;
	*len = nl ? (size_t)(nl - *p) + 1 : s->tail - s->head;
	*bol = s->at_bol;
	s->at_bol = nl != NULL;
	s->head += *len;
	s->pos += (int64_t)*len;
	return true;
}

static bool is_from_line(const char *p, size_t len)
{
	return len >= 5 && !memcmp(p, "From ", 5);
}

/*
 * Whether a "From " line is an mbox separator, as git mailsplit's
 * is_from_line() decides: at least 20 bytes, and around its last colon
 * the digits of a time ("h:mm:ss" or "hh:mm") followed by a year after
 * 1990.  "From me, hello" in a body never splits a message, and a real
 * separator splits it even when no blank line comes before it.
 */
static bool is_separator(const char *p, size_t len)
{
	const char *colon, *start = p + 5;
	long year;

	if (len < 20 || !is_from_line(p, len))
		return false;
	for (colon = p + len - 2; colon >= start && *colon != ':'; colon--)
		;
	if (colon < start || colon - p < 4 || colon + 3 > p + len)
		return false;
	if (!g_ascii_isdigit(colon[-4]) || !g_ascii_isdigit(colon[-2]) ||
	    !g_ascii_isdigit(colon[-1]) || !g_ascii_isdigit(colon[1]) ||
	    !g_ascii_isdigit(colon[2]))
		return false;
	year = 0;
	for (p = colon + 3; p < start + len - 5 && (*p == ' ' || *p == '\t');
	     p++)
		;
	while (p < start + len - 5 && g_ascii_isdigit(*p) && year < 100000)
		year = year * 10 + (*p++ - '0');
	return year > 90;
}

/* Whether a line holds nothing but white space (and its newline). */
static bool is_space_only(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!g_ascii_isspace(p[i]))
			return false;
	return true;
}

/* Whether a line is an mboxrd-escaped "From " line (">From ", ">>From "). */
/* An empty line: "\n" or "\r\n". */
static bool is_empty_line(const char *p, size_t len)
{
	return (len == 1 && p[0] == '\n') ||
	       (len == 2 && p[0] == '\r' && p[1] == '\n');
}

/*
 * The value of a "Content-Length:" header line (any case), or -1 when
 * the line is another or the value is not a number.
 */
static int64_t content_length(const char *p, size_t len)
{
	static const char name[] = "content-length:";
	size_t i = sizeof(name) - 1;
	int64_t v = 0;
	bool digits = false;

	if (len < i || g_ascii_strncasecmp(p, name, i))
		return -1;
	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	while (i < len && g_ascii_isdigit(p[i]) && v < ((int64_t)1 << 40)) {
		v = v * 10 + (p[i++] - '0');
		digits = true;
	}
	while (i < len && g_ascii_isspace(p[i]))
		i++;
	return digits && i == len ? v : -1;
}

/* Reads fd again from file offset off; false when it cannot. */
static bool rewind_to(struct pw_source *s, int64_t off)
{
	if (!s->seekable || lseek(s->fd, (off_t)off, SEEK_SET) != (off_t)off)
		return false;
	s->head = s->tail = 0;
	s->eof = false;
	s->pos = off;
	s->at_bol = true;
	return true;
}

static bool is_escaped_from(const char *p, size_t len)
{
	size_t i = 0;

	while (i < len && p[i] == '>')
		i++;
	return i > 0 && is_from_line(p + i, len - i);
}

static void set_where(struct pw_source *s, int64_t off)
{
	g_free(s->where);
	if (s->kind == PW_SOURCE_MAILDIR)
		s->where = g_strdup_printf("%s: message %d (%s)", s->path,
					   s->index, (const char *)
					   g_ptr_array_index(s->files,
							     s->next_file - 1));
	else if (off >= 0)
		s->where = g_strdup_printf("%s: message %d (offset %lld)",
					   s->path, s->index, (long long)off);
	else
		s->where = g_strdup_printf("%s: message %d", s->path,
					   s->index);
}

static int cmp_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool pw_source_list_dir(const char *dir, bool dirs, GPtrArray *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	guint from = out->len;

	if (!d)
		return false;
	while ((de = readdir(d)) != NULL) {
		char *f;
		struct stat sb;

		if (de->d_name[0] == '.')
			continue;
		f = g_build_filename(dir, de->d_name, NULL);
		if (lstat(f, &sb) == 0 &&
		    (S_ISREG(sb.st_mode) || (dirs && S_ISDIR(sb.st_mode))))
			g_ptr_array_add(out, f);
		else
			g_free(f);
	}
	closedir(d);
	/* Sorted, after what out held. */
	if (out->len > from)
		qsort(out->pdata + from, out->len - from, sizeof(gpointer),
		      (int (*)(const void *, const void *))cmp_names);
	return true;
}

/*
 * A Maildir (cur/ and new/: each file one message), or else a plain
 * directory (git format-patch -o, a saved folder, a mix of messages,
 * mboxes and Maildirs) whose entries are read one by one, each as the
 * kind its contents say.
 */
static enum pw_status open_maildir(struct pw_source *s, char **err)
{
	char *cur = g_build_filename(s->path, "cur", NULL);
	char *new = g_build_filename(s->path, "new", NULL);
	bool ok;

	s->files = g_ptr_array_new_with_free_func(g_free);
	if (g_file_test(cur, G_FILE_TEST_IS_DIR) ||
	    g_file_test(new, G_FILE_TEST_IS_DIR)) {
		ok = pw_source_list_dir(cur, false, s->files);
		ok = pw_source_list_dir(new, false, s->files) || ok;
		s->kind = PW_SOURCE_MAILDIR;
	} else {
		ok = pw_source_list_dir(s->path, true, s->files);
		s->kind = PW_SOURCE_DIR;
	}
	g_free(cur);
	g_free(new);
	if (!ok) {
		if (err)
			*err = g_strdup_printf("%s: cannot read the directory: %s",
					       s->path, g_strerror(errno));
		return PW_ERR_IO;
	}
	return PW_OK;
}

/* Directories below the one named are followed this deep. */
#define MAX_DIR_DEPTH 8

static enum pw_status source_open(const char *path, int depth,
				  unsigned flags, struct pw_source **out,
				  char **err)
{
	struct pw_source *s;
	enum pw_status st = PW_OK;
	struct stat sb;
	const char *p;
	size_t len;
	bool bol;

	*out = NULL;
	s = g_new0(struct pw_source, 1);
	s->path = g_strdup(path);
	s->depth = depth;
	s->fd = -1;
	s->at_bol = true;
	s->msg = g_string_sized_new(WINDOW);
	if (!strcmp(path, "-")) {
		s->fd = STDIN_FILENO;
		s->kind = PW_SOURCE_STDIN;
	} else {
		if (stat(path, &sb) < 0) {
			if (err)
				*err = g_strdup_printf("%s: %s", path,
						       g_strerror(errno));
			st = PW_ERR_IO;
			goto out;
		}
		if (S_ISDIR(sb.st_mode)) {
			st = open_maildir(s, err);
			goto out;
		}
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			if (err)
				*err = g_strdup_printf("%s: %s", path,
						       g_strerror(errno));
			st = PW_ERR_IO;
			goto out;
		}
		s->kind = PW_SOURCE_MESSAGE;
		s->seekable = S_ISREG(sb.st_mode);
	}
	s->buf = g_malloc(WINDOW);
	/* Skip leading lines of white space, as git mailsplit does, then
	 * look at the first line. */
	for (;;) {
		int64_t at = s->pos;

		if (!segment(s, &p, &len, &bol, &st, err))
			break;
		if (bol && s->at_bol && is_space_only(p, len))
			continue;
		if (bol && is_from_line(p, len)) {
			/* Standard input is framed like a file (an mbox
			 * piped in is split like any mbox), unless it is an
			 * MTA's one message (PW_SOURCE_STDIN_ONE). */
			s->framed = s->kind != PW_SOURCE_STDIN ||
				    !(flags & PW_SOURCE_STDIN_ONE);
			s->have_sep = true;
			s->sep_off = at;
			if (s->kind == PW_SOURCE_MESSAGE)
				s->kind = PW_SOURCE_MBOX;
			/* Skip the rest of an overlong From_ line. */
			while (!s->at_bol && segment(s, &p, &len, &bol, &st,
						     err))
				;
		} else {
			/* Unread it: it is the first line of the message. */
			s->head -= len;
			s->pos = at;
			s->at_bol = bol;
		}
		break;
	}
out:
	if (st != PW_OK) {
		pw_source_free(s);
		s = NULL;
	}
	*out = s;
	return st;
}

enum pw_status pw_source_open(const char *path, struct pw_source **out,
			      char **err)
{
	return source_open(path, 0, 0, out, err);
}

enum pw_status pw_source_open_flags(const char *path, unsigned flags,
				    struct pw_source **out, char **err)
{
	return source_open(path, 0, flags, out, err);
}

/*
 * The next message of a plain directory: from the entry being read, or
 * from the next entry that holds one.  An entry that cannot be opened
 * (unreadable, a directory too deep) is reported like an unreadable
 * message, and the next call goes on with the entry after it.
 */
static enum pw_status next_dir(struct pw_source *s, struct pw_raw *raw,
			       char **err)
{
	enum pw_status st;
	const char *file;

	for (;;) {
		if (s->child) {
			st = pw_source_next(s->child, raw, err);
			if (st != PW_OK || raw->data) {
				raw->index = ++s->index;
				return st == PW_ERR_IO ? PW_ERR_INPUT : st;
			}
			pw_source_free(s->child);
			s->child = NULL;
		}
		if (s->next_file >= s->files->len)
			return PW_OK;
		file = g_ptr_array_index(s->files, s->next_file);
		s->next_file++;
		if (s->depth >= MAX_DIR_DEPTH &&
		    g_file_test(file, G_FILE_TEST_IS_DIR)) {
			g_free(s->where);
			s->where = g_strdup(file);
			raw->where = s->where;
			raw->index = ++s->index;
			if (err)
				*err = g_strdup_printf("directory nested more than %d deep, skipped",
						       MAX_DIR_DEPTH);
			return PW_ERR_INPUT;
		}
		st = source_open(file, s->depth + 1, 0, &s->child, err);
		if (st != PW_OK) {
			g_free(s->where);
			s->where = g_strdup(file);
			raw->where = s->where;
			raw->index = ++s->index;
			/* Opening names the file; here where does. */
			if (err && *err && g_str_has_prefix(*err, file) &&
			    g_str_has_prefix(*err + strlen(file), ": "))
				memmove(*err, *err + strlen(file) + 2,
					strlen(*err + strlen(file) + 2) + 1);
			return PW_ERR_INPUT;
		}
	}
}

static enum pw_status next_maildir(struct pw_source *s, struct pw_raw *raw,
				   char **err)
{
	enum pw_status st = PW_OK;
	const char *file;
	struct stat sb;
	ssize_t n;
	int fd = -1;

	if (s->next_file >= s->files->len)
		goto out;
	file = g_ptr_array_index(s->files, s->next_file);
	s->next_file++;
	s->index++;
	set_where(s, -1);
	raw->index = s->index;
	raw->where = s->where;
	g_string_truncate(s->msg, 0);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		if (err)
			*err = g_strdup(g_strerror(errno));
		st = PW_ERR_INPUT;
		goto out;
	}
	if ((uint64_t)sb.st_size > PW_MAX_MESSAGE) {
		raw->truncated = true;
		if (err)
			*err = g_strdup_printf("message larger than %u MiB, skipped",
					       PW_MAX_MESSAGE >> 20);
		st = PW_ERR_INPUT;
		goto out;
	}
	g_string_set_size(s->msg, (gsize)sb.st_size);
	g_string_truncate(s->msg, 0);
	for (;;) {
		char chunk[WINDOW];

		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (s->msg->len + (size_t)n > PW_MAX_MESSAGE) {
			raw->truncated = true;
			break;
		}
		g_string_append_len(s->msg, chunk, n);
	}
	if (n < 0 || raw->truncated) {
		if (err)
			*err = n < 0 ? g_strdup_printf("read error: %s",
						       g_strerror(errno))
				     : g_strdup_printf("message larger than %u MiB, skipped",
						       PW_MAX_MESSAGE >> 20);
		st = PW_ERR_INPUT;
		goto out;
	}
	raw->data = s->msg->str;
	raw->len = s->msg->len;
out:
	if (fd >= 0)
		close(fd);
	return st;
}

struct pw_source *pw_source_new(const char *name,
				const struct pw_source_ops *ops, void *ctx)
{
	struct pw_source *s = g_new0(struct pw_source, 1);

	s->path = g_strdup(name);
	s->kind = PW_SOURCE_ARCHIVE;
	s->fd = -1;
	s->ops = ops;
	s->ctx = ctx;
	return s;
}

int64_t pw_source_expected(struct pw_source *s)
{
	return s->ops && s->ops->expected ? s->ops->expected(s->ctx) : -1;
}

void pw_source_ack(struct pw_source *s, const char *ack)
{
	if (s->ops && s->ops->ack && ack)
		s->ops->ack(s->ctx, ack);
}

enum pw_status pw_source_next(struct pw_source *s, struct pw_raw *raw,
			      char **err)
{
	enum pw_status st = PW_OK;
	bool bol, big = false;
	size_t skipped = 0;		/* bytes past the size cap */
	const char *p;
	size_t len;
	int64_t start;
	/*
	 * Content-Length, where a header gives one (mboxcl, mboxcl2): the
	 * body is that many bytes, and From_ lines inside it do not split
	 * the message, when the length holds: the body then ends at the end
	 * of the file, or at a separator (after at most one empty line).
	 * When it does not, the message ends at the first From_ line inside
	 * it, as if there were no length (the file is read again from
	 * there, so only for regular files).
	 */
	struct {
		bool head;		/* in the header block */
		int64_t value;		/* the header's length, -1: none */
		int64_t body;		/* body bytes left, -1: not counting */
		int after;		/* 1: just after the body, 2: after an
					 * empty line that followed it */
		int64_t inner;		/* file offset of the first From_ line
					 * inside the body, -1: none */
		size_t inner_msg;	/* its offset in the message */
	} cl = { true, -1, -1, 0, -1, 0 };

	memset(raw, 0, sizeof(*raw));
	raw->offset = -1;
	if (s->ops)
		return s->ops->next(s->ctx, raw, err);
	if (s->kind == PW_SOURCE_MAILDIR)
		return next_maildir(s, raw, err);
	if (s->kind == PW_SOURCE_DIR)
		return next_dir(s, raw, err);
	if (s->done)
		goto out;
	if (!s->have_sep && s->framed && s->eof && s->head == s->tail)
		goto out;
	if (!s->framed && s->index > 0)
		goto out;

	start = s->have_sep ? s->sep_off : s->pos;
	s->have_sep = false;
	s->index++;
	set_where(s, s->framed ? start : -1);
	raw->index = s->index;
	raw->offset = start;
	raw->where = s->where;
	g_string_truncate(s->msg, 0);

	while (segment(s, &p, &len, &bol, &st, err)) {
		if (cl.body > 0) {
			/* Inside a body whose length the header gave: a
			 * From_ line here is text, if the length holds. */
			if (bol && cl.inner < 0 && is_separator(p, len)) {
				cl.inner = s->pos - (int64_t)len;
				cl.inner_msg = s->msg->len;
			}
			cl.body -= (int64_t)len;
			cl.after = cl.body == 0;
			if (cl.body < 0 && cl.inner >= 0)
				goto wrong_length;
			if (bol && p[0] == '>' && is_escaped_from(p, len)) {
				p++;
				len--;
			}
			if (s->msg->len + len > PW_MAX_MESSAGE)
				big = true;
			if (!big)
				g_string_append_len(s->msg, p, len);
			continue;
		}
		if (cl.after && bol && !is_separator(p, len)) {
			if (cl.after == 1 && is_empty_line(p, len)) {
				cl.after = 2;
				g_string_append_len(s->msg, p, len);
				continue;
			}
			if (cl.inner >= 0)
				goto wrong_length;
			cl.after = 0;
		}
		if (s->framed && bol && is_separator(p, len)) {
			s->have_sep = true;
			s->sep_off = s->pos - (int64_t)len;
			while (!s->at_bol && segment(s, &p, &len, &bol, &st,
						     err))
				;
			break;
		}
		if (cl.head && bol) {
			if (is_empty_line(p, len)) {
				cl.head = false;
				if (cl.value >= 0 && s->framed && s->seekable &&
				    !big) {
					cl.body = cl.value;
					cl.after = cl.value == 0;
				}
			} else if (content_length(p, len) >= 0) {
				cl.value = content_length(p, len);
			}
		}
		if (s->framed && bol && p[0] == '>' && is_escaped_from(p, len)) {
			p++;
			len--;
		}
		if (big || s->msg->len + len > PW_MAX_MESSAGE) {
			big = true;
			skipped += len;
			/*
			 * An mbox is read on to its next message: to the
			 * end in a regular file, which is sure to end; for
			 * at most PW_MAX_MESSAGE more bytes in a pipe,
			 * where the next message may never come (/dev/zero).
			 * Input that is one message has nothing after it.
			 */
			if (!s->framed ||
			    (!s->seekable && skipped > PW_MAX_MESSAGE)) {
				s->done = true;
				break;
			}
			continue;
		}
		g_string_append_len(s->msg, p, len);
	}
	if (st == PW_OK && cl.body > 0 && cl.inner >= 0) {
		/* The file ends before the length the header gave. */
wrong_length:
		/* The length was wrong: the message ends at the first
		 * From_ line inside it, as without a length. */
		if (rewind_to(s, cl.inner)) {
			g_string_truncate(s->msg, cl.inner_msg);
			s->have_sep = true;
			s->sep_off = cl.inner;
			while (segment(s, &p, &len, &bol, &st, err) &&
			       !s->at_bol)
				;
		}
	}
	if (st != PW_OK)
		goto out;
	if (!s->have_sep || s->done) {
		s->done = true;
		s->have_sep = false;
	}
	/* The blank line before the next From_ line belongs to the mbox. */
	if (s->framed && s->have_sep) {
		if (s->msg->len >= 2 && !memcmp(s->msg->str + s->msg->len - 2,
						"\n\n", 2))
			g_string_truncate(s->msg, s->msg->len - 1);
		else if (s->msg->len >= 3 &&
			 !memcmp(s->msg->str + s->msg->len - 3, "\n\r\n", 3))
			g_string_truncate(s->msg, s->msg->len - 2);
	}
	if (big) {
		raw->truncated = true;
		if (err && s->done && !s->seekable)
			*err = g_strdup_printf("message larger than %u MiB:"
					       " the rest of the input is not"
					       " read", PW_MAX_MESSAGE >> 20);
		else if (err)
			*err = g_strdup_printf("message larger than %u MiB, skipped",
					       PW_MAX_MESSAGE >> 20);
		st = PW_ERR_INPUT;
		goto out;
	}
	if (s->msg->len == 0 && !s->framed) {
		/* An empty file holds no message at all. */
		goto out;
	}
	raw->data = s->msg->str;
	raw->len = s->msg->len;
	raw->cut_short = s->framed && s->done && s->msg->len > 0 &&
		s->msg->str[s->msg->len - 1] != '\n';
out:
	return st;
}

void pw_source_free(struct pw_source *s)
{
	if (!s)
		return;
	if (s->ops && s->ops->free)
		s->ops->free(s->ctx);
	if (s->fd >= 0 && s->fd != STDIN_FILENO)
		close(s->fd);
	if (s->files)
		g_ptr_array_free(s->files, TRUE);
	pw_source_free(s->child);
	if (s->msg)
		g_string_free(s->msg, TRUE);
	g_free(s->buf);
	g_free(s->where);
	g_free(s->path);
	g_free(s);
}
