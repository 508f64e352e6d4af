/*
 * Unit tests for checks/body.c: the diff extent of a text part (git
 * apply's rules), git mailinfo's patch separator, format=flowed
 * unwrapping, patchwork's pull request reading, and a body read part
 * by part, all from strings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/body.h"

/* The diff pw_body_find_diff() finds in t, or NULL; *cut as it says. */
static char *extent(const char *t, bool *cut)
{
	size_t start = 0, end = 0;
	bool c = false;

	if (!pw_body_find_diff(t, strlen(t), &start, &end, &c))
		return NULL;
	if (cut)
		*cut = c;
	return g_strndup(t + start, end - start);
}

static void diff_extent(void **state)
{
	static const struct { const char *text, *diff; bool cut; } c[] = {
		/* a footer after the last hunk is not part of it */
		{ "msg\n---\n f | 1 +\n\ndiff --git a/f b/f\nindex 1..2 100644\n"
		  "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n-- \n2.39\n",
		  "diff --git a/f b/f\nindex 1..2 100644\n"
		  "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", false },
		/* "--- " inside a hunk is a removed line */
		{ "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n--- x\n-y\n+z\nthanks\n",
		  "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n--- x\n-y\n+z\n", false },
		/* a hunk shorter than its header: cut there */
		{ "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\nsig\n",
		  "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n", true },
		/* a combined diff counts one column per parent */
		{ "diff --cc f\nindex 1,2..3\n--- a/f\n+++ b/f\n"
		  "@@@ -1,1 -1,1 +1,2 @@@\n- a\n -b\n++c\n++d\nend\n",
		  "diff --cc f\nindex 1,2..3\n--- a/f\n+++ b/f\n"
		  "@@@ -1,1 -1,1 +1,2 @@@\n- a\n -b\n++c\n++d\n", false },
		/* a git binary patch, then a text file */
		{ "diff --git a/b b/b\nnew file mode 100644\nindex 0..1\n"
		  "GIT binary patch\nliteral 3\nKcmZ\n\nliteral 0\nH\n\n"
		  "diff --git a/t b/t\n--- a/t\n+++ b/t\n@@ -1 +1 @@\n-x\n+y\nbye\n",
		  "diff --git a/b b/b\nnew file mode 100644\nindex 0..1\n"
		  "GIT binary patch\nliteral 3\nKcmZ\n\nliteral 0\nH\n\n"
		  "diff --git a/t b/t\n--- a/t\n+++ b/t\n@@ -1 +1 @@\n-x\n+y\n", false },
		/* a mode change alone */
		{ "diff --git a/s b/s\nold mode 100644\nnew mode 100755\nok\n",
		  "diff --git a/s b/s\nold mode 100644\nnew mode 100755\n", false },
		/* diff -r with "Only in" between files */
		{ "diff -ru a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n"
		  "Only in b: g\ndiff -ru a/h b/h\n--- a/h\n+++ b/h\n@@ -1 +0,0 @@\n-z\n",
		  "diff -ru a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n"
		  "Only in b: g\ndiff -ru a/h b/h\n--- a/h\n+++ b/h\n@@ -1 +0,0 @@\n-z\n", false },
		/* CVS */
		{ "Index: f.c\n=====\nRCS file: /cvs/f.c,v\n--- f.c\n+++ f.c\n"
		  "@@ -1 +1 @@\n-x\n+y\n",
		  "Index: f.c\n=====\nRCS file: /cvs/f.c,v\n--- f.c\n+++ f.c\n"
		  "@@ -1 +1 @@\n-x\n+y\n", false },
		/* prose that only looks like a start */
		{ "--- a list\n+++ of things\nno hunk\n", NULL, false },
		{ "diff between the two versions is small\n", NULL, false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(c); i++) {
		bool cut = false;
		char *d = extent(c[i].text, &cut);

		if (!c[i].diff) {
			assert_null(d);
			continue;
		}
		assert_non_null(d);
		assert_string_equal(d, c[i].diff);
		assert_int_equal(cut, c[i].cut);
		g_free(d);
	}
}

static void patchbreak(void **state)
{
	static const struct { const char *l; bool brk; } c[] = {
		{ "---", true }, { "---  ", true }, { "--- a/f", true },
		{ "diff --git a/f b/f", true }, { "diff -u x y", true },
		{ "Index: f.c", true }, { "----", false }, { "---  x", false },
		{ "-- ", false }, { "diff", false }, { "Index:f", false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(c); i++)
		assert_int_equal(pw_body_patchbreak(c[i].l, strlen(c[i].l)),
				 c[i].brk);
}

static void pull(void **state)
{
	static const struct { const char *t, *url; } c[] = {
		{ "The following changes since commit 1234:\n\n  v1\n\n"
		  "are available in the Git repository at:\n\n"
		  "  git://git.example.org/repo.git tags/fixes-1\n\nfor you\n",
		  "git://git.example.org/repo.git tags/fixes-1" },
		/* the branch alone on the next line */
		{ "The following changes since commit 1234:\n"
		  "are available in the git repository at:\n"
		  "  https://h.org/r.git\n  for-linus\n",
		  "https://h.org/r.git for-linus" },
		/* a word followed by more text is prose, not a branch */
		{ "The following changes since commit 1234:\n"
		  "are available in the git repository at:\n"
		  "  ssh://git@h.org/r\n\nplease pull\n",
		  "ssh://git@h.org/r" },
		{ "are available in the git repository at:\n  git://h/r x\n", NULL },
		{ "no pull request here\n", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(c); i++) {
		char *u = pw_body_find_pull(c[i].t, strlen(c[i].t));

		if (c[i].url)
			assert_string_equal(u, c[i].url);
		else
			assert_null(u);
		g_free(u);
	}
}

/* Parts in order: the commit message, a flowed part, the diff. */
static void parts(void **state)
{
	static const char flowed[] = "A long line \nwrapped here.\n \n-- \nsig\n";
	static const char text[] = "\n\nCommit message.\n---\n f | 1 +\n"
		"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nfooter";
	static const char after[] = "--- a/g\n+++ b/g\n@@ -1 +1 @@\n-c\n+d\n";
	struct pw_mail m;
	struct pw_body b;

	(void)state;
	memset(&m, 0, sizeof(m));
	pw_body_init(&b);
	assert_false(pw_body_add_text(&b, flowed, strlen(flowed), PW_BODY_FLOWED));
	assert_false(b.separated);
	assert_false(pw_body_add_text(&b, text, strlen(text), PW_BODY_FIXED));
	assert_true(b.separated);
	/* After the diff, inline text is not read; an attachment is. */
	assert_false(pw_body_add_text(&b, after, strlen(after), PW_BODY_FIXED));
	assert_true(pw_body_add_patch(&b, after, strlen(after)));
	assert_false(pw_body_add_patch(&b, "no diff\n", 8));
	pw_body_finish(&b, &m);
	assert_string_equal(m.commit_msg,
			    "A long line wrapped here.\n\n-- \nsig\n\n\n\n"
			    "Commit message.\n");
	assert_string_equal(m.diff, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
			    "--- a/g\n+++ b/g\n@@ -1 +1 @@\n-c\n+d\n");
	assert_null(m.pull_url);
	pw_body_release(&b);	/* again: nothing left to release */
	g_free(m.commit_msg);
	g_free(m.diff);

	/* Nothing read: an empty commit message and no diff. */
	memset(&m, 0, sizeof(m));
	pw_body_init(&b);
	pw_body_finish(&b, &m);
	assert_string_equal(m.commit_msg, "");
	assert_null(m.diff);
	g_free(m.commit_msg);
}

/* delsp=yes drops the space that marks a flowed line. */
static void flowed_delsp(void **state)
{
	static const char t[] = "glued wo \nrd\n";
	struct pw_mail m;
	struct pw_body b;

	(void)state;
	memset(&m, 0, sizeof(m));
	pw_body_init(&b);
	pw_body_add_text(&b, t, strlen(t), PW_BODY_FLOWED_DELSP);
	pw_body_finish(&b, &m);
	assert_string_equal(m.commit_msg, "glued word\n");
	g_free(m.commit_msg);
}

/* A cut hunk: the rest of its part is kept, to show the patch whole;
 * a whole diff keeps none (what follows it is a signature). */
static void cut_rest(void **state)
{
	static const char cut[] = "Fix.\n---\n--- a/f\n+++ b/f\n"
		"@@ -1,3 +1,3 @@\n a\n-b\n+c\nwrapped tail\n d\n-- \nsig";
	static const char whole[] = "Fix.\n---\n--- a/f\n+++ b/f\n"
		"@@ -1 +1 @@\n-b\n+c\n-- \nsig\n";
	struct pw_mail m;
	struct pw_body b;

	(void)state;
	memset(&m, 0, sizeof(m));
	pw_body_init(&b);
	assert_true(pw_body_add_text(&b, cut, strlen(cut), PW_BODY_FIXED));
	pw_body_finish(&b, &m);
	assert_true(m.diff_cut);
	assert_string_equal(m.diff, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n");
	/* From the line git stops at to the part's end, a newline added. */
	assert_string_equal(m.diff_rest, "wrapped tail\n d\n-- \nsig\n");
	g_free(m.commit_msg);
	g_free(m.diff);
	g_free(m.diff_rest);

	memset(&m, 0, sizeof(m));
	pw_body_init(&b);
	assert_false(pw_body_add_text(&b, whole, strlen(whole), PW_BODY_FIXED));
	pw_body_finish(&b, &m);
	assert_false(m.diff_cut);
	assert_null(m.diff_rest);
	g_free(m.commit_msg);
	g_free(m.diff);
	g_free(m.diff_rest);
}

/*
 * A diff cut short keeps the line it stops at (what a mail client did
 * to the patch shows there) and whether format=flowed unwrapping, not
 * the mail as sent, cut it; the extent itself is git apply's, as ever.
 */
static void cut_stop(void **state)
{
	/* Indentation as no-break spaces (a real linux-leds mail). */
	static const char nbsp[] = "x\n---\n--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n"
		"+a\n\xc2\xa0" "b\n\xc2\xa0" "c\n";
	/* A trailing space on an added line: flowed joins it to the next. */
	static const char flowed[] = "x\n---\n--- a/f\n+++ b/f\n@@ -1,1 +1,3 @@\n"
		"+a \n+b\n c\n-- \n2.31\n";
	static const char ended[] = "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n";
	struct pw_mail m;
	struct pw_body b;

	(void)state;
	memset(&m, 0, sizeof(m));
	pw_body_init(&b);
	assert_true(pw_body_add_text(&b, nbsp, strlen(nbsp), PW_BODY_FIXED));
	pw_body_finish(&b, &m);
	assert_string_equal(m.diff, "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n+a\n");
	assert_true(m.diff_cut);
	assert_string_equal(m.diff_rest, "\xc2\xa0" "b\n\xc2\xa0" "c\n");
	assert_false(m.diff_unflowed);
	g_free(m.commit_msg);
	g_free(m.diff);
	g_free(m.diff_rest);

	memset(&m, 0, sizeof(m));
	pw_body_init(&b);
	assert_true(pw_body_add_text(&b, flowed, strlen(flowed), PW_BODY_FLOWED));
	pw_body_finish(&b, &m);
	assert_true(m.diff_cut);
	assert_true(m.diff_unflowed);
	g_free(m.commit_msg);
	g_free(m.diff);
	g_free(m.diff_rest);

	memset(&m, 0, sizeof(m));
	pw_body_init(&b);
	assert_true(pw_body_add_patch(&b, ended, strlen(ended)));
	pw_body_finish(&b, &m);
	assert_true(m.diff_cut);
	assert_null(m.diff_rest);
	g_free(m.commit_msg);
	g_free(m.diff);
	g_free(m.diff_rest);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(diff_extent),
		cmocka_unit_test(cut_rest),
		cmocka_unit_test(patchbreak),
		cmocka_unit_test(pull),
		cmocka_unit_test(parts),
		cmocka_unit_test(flowed_delsp),
		cmocka_unit_test(cut_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
