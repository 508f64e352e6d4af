/*
 * Unit tests for bot/source.c: mbox framing (mboxo and mboxrd), single
 * messages, Maildirs, the size cap, and lines longer than the read
 * window; input that never ends (a device, a pipe) stopped at the cap.
 * Inputs are written to a private temporary directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "bot/source.h"

static char *dir;

static char *write_file(const char *name, const char *data, size_t len)
{
	char *path = g_build_filename(dir, name, NULL);
	char *parent = g_path_get_dirname(path);

	g_mkdir_with_parents(parent, 0700);
	g_free(parent);
	assert_true(g_file_set_contents(path, data, (gssize)len, NULL));
	return path;
}

/* Reads every message of path into a new array of strings. */
static GPtrArray *read_all(const char *path, enum pw_source_kind *kind,
			   int *errors)
{
	struct pw_source *s = NULL;
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	struct pw_raw raw;
	char *err = NULL;
	enum pw_status st;

	*errors = 0;
	assert_int_equal(pw_source_open(path, &s, &err), PW_OK);
	*kind = pw_source_kind(s);
	for (;;) {
		st = pw_source_next(s, &raw, &err);
		g_free(err);
		err = NULL;
		if (st == PW_ERR_INPUT) {
			(*errors)++;
			continue;
		}
		assert_int_equal(st, PW_OK);
		if (!raw.data)
			break;
		assert_int_equal(raw.index, (int)out->len + *errors + 1);
		assert_non_null(raw.where);
		g_ptr_array_add(out, g_strndup(raw.data, raw.len));
	}
	pw_source_free(s);
	return out;
}

static void mbox_framing(void **state)
{
	static const char mbox[] =
		"\n"
		"From a@b Mon Jan  1 00:00:00 2024\n"
		"Subject: one\n\nbody 1\n>From escaped\n>>From twice\nFrom  not after a blank line\n"
		"\n"
		"From a@b Mon Jan  1 00:00:01 2024\n"
		"Subject: two\n\nbody 2\n\nFrom me, greetings\n"
		"\n"
		"From a@b Mon Jan  1 00:00:02 2024\r\n"
		"Subject: three\r\n\r\nbody 3\r\n";
	char *path = write_file("a.mbox", mbox, sizeof(mbox) - 1);
	enum pw_source_kind kind;
	int errors;
	GPtrArray *m = read_all(path, &kind, &errors);

	(void)state;
	assert_int_equal(kind, PW_SOURCE_MBOX);
	assert_int_equal(errors, 0);
	assert_int_equal(m->len, 3);
	assert_string_equal(g_ptr_array_index(m, 0),
			    "Subject: one\n\nbody 1\nFrom escaped\n>From twice\n"
			    "From  not after a blank line\n");
	assert_string_equal(g_ptr_array_index(m, 1),
			    "Subject: two\n\nbody 2\n\nFrom me, greetings\n");
	assert_string_equal(g_ptr_array_index(m, 2),
			    "Subject: three\r\n\r\nbody 3\r\n");
	g_ptr_array_free(m, TRUE);
	g_free(path);
}

static void offsets(void **state)
{
	static const char mbox[] =
		"From a Mon Jan  1 00:00:00 2024\nS: 1\n\nx\n\n"
		"From a Mon Jan  1 00:00:00 2024\nS: 2\n\ny\n";
	char *path = write_file("off.mbox", mbox, sizeof(mbox) - 1);
	struct pw_source *s = NULL;
	struct pw_raw raw;
	char *err = NULL;

	(void)state;
	assert_int_equal(pw_source_open(path, &s, &err), PW_OK);
	assert_int_equal(pw_source_next(s, &raw, &err), PW_OK);
	assert_int_equal(raw.offset, 0);
	assert_int_equal(pw_source_next(s, &raw, &err), PW_OK);
	assert_int_equal(raw.offset, strstr(mbox, "\n\nFrom") - mbox + 2);
	assert_non_null(strstr(raw.where, "message 2 (offset 41)"));
	assert_int_equal(pw_source_next(s, &raw, &err), PW_OK);
	assert_null(raw.data);
	/* the end is sticky */
	assert_int_equal(pw_source_next(s, &raw, &err), PW_OK);
	assert_null(raw.data);
	pw_source_free(s);
	g_free(path);
}

static void single_message(void **state)
{
	/* no From_ line: one message, "From " in the body is not a separator */
	static const char eml[] = "Subject: x\n\nhello\n\nFrom me, greetings\n";
	char *path = write_file("one.eml", eml, sizeof(eml) - 1);
	enum pw_source_kind kind;
	int errors;
	GPtrArray *m = read_all(path, &kind, &errors);

	(void)state;
	assert_int_equal(kind, PW_SOURCE_MESSAGE);
	assert_int_equal(m->len, 1);
	assert_string_equal(g_ptr_array_index(m, 0), eml);
	g_ptr_array_free(m, TRUE);
	g_free(path);
}

static void empty_file(void **state)
{
	char *path = write_file("empty", "", 0);
	enum pw_source_kind kind;
	int errors;
	GPtrArray *m = read_all(path, &kind, &errors);

	(void)state;
	assert_int_equal(m->len, 0);
	assert_int_equal(errors, 0);
	g_ptr_array_free(m, TRUE);
	g_free(path);
}

static void maildir(void **state)
{
	char *md = g_build_filename(dir, "md", NULL);
	char *a = write_file("md/cur/2.x:2,S", "Subject: b\n\nb\n", 14);
	char *b = write_file("md/new/1.x", "Subject: a\n\na\n", 14);
	char *c = write_file("md/cur/.hidden", "junk", 4);
	char *tmp = g_build_filename(dir, "md", "tmp", NULL);
	enum pw_source_kind kind;
	int errors;
	GPtrArray *m;

	(void)state;
	g_mkdir_with_parents(tmp, 0700);
	m = read_all(md, &kind, &errors);
	assert_int_equal(kind, PW_SOURCE_MAILDIR);
	assert_int_equal(m->len, 2);
	/* sorted by path: cur/ before new/ */
	assert_string_equal(g_ptr_array_index(m, 0), "Subject: b\n\nb\n");
	assert_string_equal(g_ptr_array_index(m, 1), "Subject: a\n\na\n");
	g_ptr_array_free(m, TRUE);
	g_free(md);
	g_free(a);
	g_free(b);
	g_free(c);
	g_free(tmp);
}

/* git mailsplit skips leading white space, lines of spaces included. */
static void leading_white_space(void **state)
{
	static const char mbox[] =
		" \n\t\n\r\n"
		"From a@b Mon Jan  1 00:00:00 2024\n"
		"Subject: one\n\nbody 1\n";
	char *path = write_file("ws.mbox", mbox, sizeof(mbox) - 1);
	enum pw_source_kind kind;
	int errors;
	GPtrArray *m = read_all(path, &kind, &errors);

	(void)state;
	assert_int_equal(kind, PW_SOURCE_MBOX);
	assert_int_equal(errors, 0);
	assert_int_equal(m->len, 1);
	assert_string_equal(g_ptr_array_index(m, 0), "Subject: one\n\nbody 1\n");
	g_ptr_array_free(m, TRUE);
	g_free(path);
}

/*
 * A separator right after the previous message's last line splits, as
 * in git mailsplit, when it carries a time and a year; "From" lines
 * without them never do, blank line or not.
 */
static void separator_without_blank(void **state)
{
	static const char mbox[] =
		"From a@b Mon Jan  1 00:00:00 2024\n"
		"Subject: one\n\nbody 1\n"
		"From a@b Mon Jan  1 00:00:01 2024\n"
		"Subject: two\n\nbody 2\n\n"
		"From me, at 10:30 we met\n"
		"From a@b Mon Jan  1 00:00:01 +0000 2024\n"
		"\nFrom 12:30 1985\n";
	char *path = write_file("nb.mbox", mbox, sizeof(mbox) - 1);
	enum pw_source_kind kind;
	int errors;
	GPtrArray *m = read_all(path, &kind, &errors);

	(void)state;
	assert_int_equal(errors, 0);
	assert_int_equal(m->len, 2);
	assert_string_equal(g_ptr_array_index(m, 0), "Subject: one\n\nbody 1\n");
	assert_string_equal(g_ptr_array_index(m, 1),
			    "Subject: two\n\nbody 2\n\nFrom me, at 10:30 we met\n"
			    "From a@b Mon Jan  1 00:00:01 +0000 2024\n"
			    "\nFrom 12:30 1985\n");
	g_ptr_array_free(m, TRUE);
	g_free(path);
}

/* A plain directory: every entry read as its own kind, in name order. */
static void mixed_directory(void **state)
{
	char *top = g_build_filename(dir, "mix", NULL);
	char *a = write_file("mix/a.mbox",
			     "From x Mon Jan  1 00:00:00 2024\nSubject: a1\n\n1\n\n"
			     "From x Mon Jan  1 00:00:00 2024\nSubject: a2\n\n2\n", 95);
	char *b = write_file("mix/b.eml", "Subject: b\n\nb\n", 14);
	char *c = write_file("mix/c/new/1", "Subject: c\n\nc\n", 14);
	char *d = write_file("mix/d/e.eml", "Subject: e\n\ne\n", 14);
	enum pw_source_kind kind;
	int errors;
	GPtrArray *m;

	(void)state;
	m = read_all(top, &kind, &errors);
	assert_int_equal(kind, PW_SOURCE_DIR);
	assert_int_equal(errors, 0);
	assert_int_equal(m->len, 5);
	assert_string_equal(g_ptr_array_index(m, 0), "Subject: a1\n\n1\n");
	assert_string_equal(g_ptr_array_index(m, 1), "Subject: a2\n\n2\n");
	assert_string_equal(g_ptr_array_index(m, 2), "Subject: b\n\nb\n");
	assert_string_equal(g_ptr_array_index(m, 3), "Subject: c\n\nc\n");
	assert_string_equal(g_ptr_array_index(m, 4), "Subject: e\n\ne\n");
	g_ptr_array_free(m, TRUE);
	g_free(top);
	g_free(a);
	g_free(b);
	g_free(c);
	g_free(d);
}

/*
 * Content-Length (mboxcl2): a From_ line inside a body of the given
 * length is text; when the length is wrong, the body ends at that line,
 * as without a length.
 */
static void content_length_framing(void **state)
{
	static const char good[] =
		"From a@b Mon Jan  1 00:00:00 2024\n"
		"Subject: one\n"
		"Content-Length: 60\n"
		"\n"
		"Body one.\n"
		"From x@y Mon Jan  1 00:00:00 2024\n"
		"still body one.\n"
		"\n"
		"From a@b Mon Jan  1 00:00:01 2024\n"
		"Subject: two\n"
		"\n"
		"body 2\n"
		"";
	static const char bad[] =
		"From a@b Mon Jan  1 00:00:00 2024\n"
		"Subject: one\n"
		"Content-Length: 67\n"
		"\n"
		"Body one.\n"
		"From x@y Mon Jan  1 00:00:00 2024\n"
		"still body one.\n"
		"\n"
		"From a@b Mon Jan  1 00:00:01 2024\n"
		"Subject: two\n"
		"\n"
		"body 2\n"
		"";
	char *path = write_file("cl.mbox", good, sizeof(good) - 1);
	char *path2 = write_file("cl-bad.mbox", bad, sizeof(bad) - 1);
	enum pw_source_kind kind;
	int errors;
	GPtrArray *m = read_all(path, &kind, &errors);

	(void)state;
	assert_int_equal(errors, 0);
	assert_int_equal(m->len, 2);
	assert_non_null(strstr(g_ptr_array_index(m, 0), "still body one."));
	assert_string_equal(g_ptr_array_index(m, 1), "Subject: two\n\nbody 2\n");
	g_ptr_array_free(m, TRUE);
	m = read_all(path2, &kind, &errors);
	assert_int_equal(errors, 0);
	assert_int_equal(m->len, 3);
	assert_null(strstr(g_ptr_array_index(m, 0), "still body one."));
	assert_string_equal(g_ptr_array_index(m, 1), "still body one.\n");
	assert_string_equal(g_ptr_array_index(m, 2), "Subject: two\n\nbody 2\n");
	g_ptr_array_free(m, TRUE);
	g_free(path);
	g_free(path2);
}

static void not_found(void **state)
{
	struct pw_source *s = (struct pw_source *)1;
	char *err = NULL;
	char *nodir = g_build_filename(dir, "plain-dir", NULL);

	(void)state;
	assert_int_equal(pw_source_open("/nonexistent/x.mbox", &s, &err), PW_ERR_IO);
	assert_null(s);
	assert_non_null(strstr(err, "/nonexistent/x.mbox"));
	g_free(err);
	err = NULL;
	/* A plain directory is a folder of messages and mboxes: empty here. */
	g_mkdir_with_parents(nodir, 0700);
	assert_int_equal(pw_source_open(nodir, &s, &err), PW_OK);
	assert_int_equal(pw_source_kind(s), PW_SOURCE_DIR);
	{
		struct pw_raw raw;

		memset(&raw, 0, sizeof(raw));
		assert_int_equal(pw_source_next(s, &raw, &err), PW_OK);
		assert_null(raw.data);
	}
	pw_source_free(s);
	g_free(nodir);
}

static void long_lines_and_cap(void **state)
{
	/* a 300 KiB line (longer than the read window), then a message over
	 * the cap, then a normal one: the big one is reported and skipped */
	size_t big = PW_MAX_MESSAGE + 1000, longl = 300 << 10, n;
	GString *g = g_string_sized_new(big + longl + 1000);
	enum pw_source_kind kind;
	int errors;
	GPtrArray *m;
	char *path;

	(void)state;
	g_string_append(g, "From x Mon Jan  1 00:00:00 2024\nSubject: long\n\n");
	for (n = 0; n < longl; n++)
		g_string_append_c(g, 'a');
	g_string_append(g, "\nFrom  inside a long message stays\n\n");
	g_string_append(g, "From x Mon Jan  1 00:00:00 2024\nSubject: big\n\n");
	while (g->len < big + longl)
		g_string_append(g, "0123456789012345678901234567890123456789012345678901234567890123\n");
	g_string_append(g, "\nFrom x Mon Jan  1 00:00:00 2024\nSubject: after\n\nok\n");
	path = write_file("big.mbox", g->str, g->len);
	m = read_all(path, &kind, &errors);
	assert_int_equal(errors, 1);
	assert_int_equal(m->len, 2);
	assert_int_equal(strlen(g_ptr_array_index(m, 0)),
			 strlen("Subject: long\n\n") + longl +
			 strlen("\nFrom  inside a long message stays\n"));
	assert_string_equal(g_ptr_array_index(m, 1), "Subject: after\n\nok\n");
	g_ptr_array_free(m, TRUE);
	g_string_free(g, TRUE);
	unlink(path);
	g_free(path);
}

/* The error of the one message of endless input: why, once, not where. */
static void assert_stopped(struct pw_source *s, const char *where)
{
	struct pw_raw raw;
	char *err = NULL;

	assert_int_equal(pw_source_next(s, &raw, &err), PW_ERR_INPUT);
	assert_true(raw.truncated);
	assert_null(raw.data);
	assert_string_equal(raw.where, where);
	assert_string_equal(err, "message larger than 64 MiB: the rest of"
			    " the input is not read");
	g_free(err);
	err = NULL;
	assert_int_equal(pw_source_next(s, &raw, &err), PW_OK);
	assert_null(raw.data);
	assert_null(err);
}

static void endless_device(void **state)
{
	struct pw_source *s = NULL;
	char *err = NULL;

	(void)state;
	assert_int_equal(pw_source_open("/dev/zero", &s, &err), PW_OK);
	assert_stopped(s, "/dev/zero: message 1");
	pw_source_free(s);
}

/* Writes an mbox's From_ line and then zeros into fd until it closes. */
static gpointer endless_writer(gpointer data)
{
	int fd = GPOINTER_TO_INT(data);
	static const char head[] = "From x Mon Jan  1 00:00:00 2024\n"
				   "Subject: endless\n\n";
	char zeros[65536] = { 0 };

	if (write(fd, head, sizeof(head) - 1) > 0)
		while (write(fd, zeros, sizeof(zeros)) > 0)
			;
	close(fd);
	return NULL;
}

static void endless_pipe_mbox(void **state)
{
	struct pw_source *s = NULL;
	char *err = NULL;
	int fds[2], saved = dup(STDIN_FILENO);
	GThread *t;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(fds), 0);
	t = g_thread_new("writer", endless_writer, GINT_TO_POINTER(fds[1]));
	assert_int_equal(dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
	close(fds[0]);
	assert_int_equal(pw_source_open("-", &s, &err), PW_OK);
	assert_int_equal(pw_source_kind(s), PW_SOURCE_STDIN);
	assert_stopped(s, "-: message 1 (offset 0)");
	pw_source_free(s);
	/* The reader is gone: the writer's next write fails. */
	dup2(saved, STDIN_FILENO);
	close(saved);
	g_thread_join(t);
}

/* A Content-Length that holds does not lift the cap. */
static void content_length_capped(void **state)
{
	size_t big = PW_MAX_MESSAGE + 1000;
	GString *g = g_string_sized_new(big + 1000);
	enum pw_source_kind kind;
	int errors;
	GPtrArray *m;
	char *path;

	(void)state;
	g_string_append_printf(g, "From x Mon Jan  1 00:00:00 2024\n"
			       "Content-Length: %zu\n\n", big);
	g_string_set_size(g, g->len + big);
	memset(g->str + g->len - big, 'a', big);
	g_string_append(g, "\nFrom x Mon Jan  1 00:00:00 2024\nSubject: after\n\nok\n");
	path = write_file("cl-big.mbox", g->str, g->len);
	m = read_all(path, &kind, &errors);
	assert_int_equal(errors, 1);
	assert_int_equal(m->len, 1);
	assert_string_equal(g_ptr_array_index(m, 0), "Subject: after\n\nok\n");
	g_ptr_array_free(m, TRUE);
	g_string_free(g, TRUE);
	unlink(path);
	g_free(path);
}

static int setup(void **state)
{
	(void)state;
	dir = g_dir_make_tmp("pw-source-XXXXXX", NULL);
	return dir ? 0 : -1;
}

static void rm_rf(const char *path)
{
	GDir *d = g_dir_open(path, 0, NULL);
	const char *name;

	if (d) {
		while ((name = g_dir_read_name(d)) != NULL) {
			char *p = g_build_filename(path, name, NULL);

			rm_rf(p);
			g_free(p);
		}
		g_dir_close(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	g_free(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mbox_framing),
		cmocka_unit_test(offsets),
		cmocka_unit_test(single_message),
		cmocka_unit_test(empty_file),
		cmocka_unit_test(maildir),
		cmocka_unit_test(leading_white_space),
		cmocka_unit_test(separator_without_blank),
		cmocka_unit_test(mixed_directory),
		cmocka_unit_test(content_length_framing),
		cmocka_unit_test(not_found),
		cmocka_unit_test(long_lines_and_cap),
		cmocka_unit_test(endless_device),
		cmocka_unit_test(endless_pipe_mbox),
		cmocka_unit_test(content_length_capped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
