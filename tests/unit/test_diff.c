/*
 * Unit tests for checks/diff.c: the unified-diff parser and the hunk
 * header primitives the other diff readers use.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/patch.h"

static struct pw_patch *parse(const char *s)
{
	return pw_diff_parse(s, strlen(s));
}

static void git_two_files(void **state)
{
	struct pw_patch *p = parse(
		"From: someone\n\nSubject text\n---\n"
		" a.c | 2 +-\n\n"
		"diff --git a/a.c b/a.c\n"
		"index 111..222 100644\n"
		"--- a/a.c\n"
		"+++ b/a.c\n"
		"@@ -10,3 +10,4 @@ int f(void)\n"
		" one\n"
		"-two\n"
		"+TWO\n"
		"+three\n"
		" four\n"
		"diff --git a/dir/b.h b/dir/b.h\n"
		"--- a/dir/b.h\n"
		"+++ b/dir/b.h\n"
		"@@ -1 +1 @@\n"
		"-x\n"
		"+y\n"
		"-- \n2.39.5\n");

	(void)state;
	assert_int_equal(p->nfiles, 2);
	assert_int_equal(p->nproblems, 0);
	assert_string_equal(p->files[0].new_path, "a.c");
	assert_string_equal(p->files[1].old_path, "dir/b.h");
	assert_int_equal(p->files[0].nhunks, 1);
	assert_int_equal(p->files[0].nlines, 5);
	assert_int_equal(p->files[0].lines[2].kind, '+');
	assert_int_equal(p->files[0].lines[2].new_no, 11);
	assert_int_equal(p->files[0].lines[3].new_no, 12);
	assert_int_equal(p->files[0].lines[1].old_no, 11);
	assert_int_equal(p->files[0].lines[4].new_no, 13);
	assert_int_equal(p->files[0].lines[2].patch_no, 14);
	assert_int_equal(p->files[0].lines[2].len, 3);
	assert_memory_equal(p->files[0].lines[2].text, "TWO", 3);
	assert_int_equal(p->files[0].hunks[0].new_start, 10);
	assert_int_equal(p->files[0].hunks[0].new_count, 4);
	assert_int_equal(p->files[1].hunks[0].old_count, 1);
	assert_int_equal(p->files[1].lines[1].new_no, 1);
	pw_patch_free(p);
}

static void git_headers(void **state)
{
	struct pw_patch *p = parse(
		"diff --git a/new.c b/new.c\n"
		"new file mode 100755\n"
		"index 0000000..1111111\n"
		"--- /dev/null\n"
		"+++ b/new.c\n"
		"@@ -0,0 +1,2 @@\n"
		"+int a;\n"
		"+int b;\n"
		"\\ No newline at end of file\n"
		"diff --git a/m.c b/m.c\n"
		"old mode 100644\n"
		"new mode 100755\n"
		"diff --git a/old.c b/renamed.c\n"
		"similarity index 97%\n"
		"rename from old.c\n"
		"rename to renamed.c\n"
		"diff --git a/img.png b/img.png\n"
		"index 1..2 100644\n"
		"GIT binary patch\n"
		"literal 5\n"
		"McmZ?wbhEUT\n"
		"\n"
		"literal 0\n"
		"HcmV?d00001\n"
		"\n"
		"diff --git a/gone.c b/gone.c\n"
		"deleted file mode 100644\n"
		"--- a/gone.c\n"
		"+++ /dev/null\n"
		"@@ -1 +0,0 @@\n"
		"-int gone;\n");
	const struct pw_file *f;

	(void)state;
	assert_int_equal(p->nfiles, 5);
	f = &p->files[0];
	assert_true(f->flags & PW_FILE_NEW);
	assert_int_equal(f->new_mode, 0100755);
	assert_int_equal(f->mode_patch_no, 2);
	assert_null(f->old_path);
	assert_true(f->lines[1].no_newline);
	f = &p->files[1];
	assert_true(f->flags & PW_FILE_MODE_CHANGE);
	assert_int_equal(f->old_mode, 0100644);
	assert_int_equal(f->new_mode, 0100755);
	assert_int_equal(f->nhunks, 0);
	f = &p->files[2];
	assert_true(f->flags & PW_FILE_RENAMED);
	assert_int_equal(f->similarity, 97);
	assert_string_equal(f->old_path, "old.c");
	assert_string_equal(f->new_path, "renamed.c");
	f = &p->files[3];
	assert_true(f->flags & PW_FILE_BINARY);
	f = &p->files[4];
	assert_true(f->flags & PW_FILE_DELETED);
	assert_null(f->new_path);
	assert_string_equal(pw_file_path(f), "gone.c");
	assert_int_equal(p->nproblems, 0);
	pw_patch_free(p);
}

static void plain_and_index(void **state)
{
	struct pw_patch *p = parse(
		"diff -u a/x.c b/x.c\n"
		"--- a/x.c\t2024-01-01 00:00:00.000000000 +0000\n"
		"+++ b/x.c\t2024-01-02 00:00:00.000000000 +0000\n"
		"@@ -1,2 +1,2 @@\n"
		"-a\n"
		"+b\n"
		" c\n"
		"Index: tip/include/linux/stat.h\n"
		"===================================================================\n"
		"--- tip.orig/include/linux/stat.h\n"
		"+++ tip/include/linux/stat.h\n"
		"@@ -6,2 +6,3 @@\n"
		" #include <asm/stat.h>\n"
		"+#define PERM_r________\t0400\n"
		" #include <uapi/linux/stat.h>\n");

	(void)state;
	assert_int_equal(p->nfiles, 2);
	assert_string_equal(p->files[0].new_path, "x.c");
	assert_string_equal(p->files[1].new_path, "include/linux/stat.h");
	assert_int_equal(p->files[1].lines[1].new_no, 7);
	assert_int_equal(p->nproblems, 0);
	pw_patch_free(p);
}

static void quoted_names(void **state)
{
	struct pw_patch *p = parse(
		"diff --git \"a/sp ace\\t.c\" \"b/sp ace\\t.c\"\n"
		"--- \"a/sp ace\\t.c\"\n"
		"+++ \"b/sp ace\\t.c\"\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n");

	(void)state;
	assert_int_equal(p->nfiles, 1);
	assert_string_equal(p->files[0].new_path, "sp ace\t.c");
	pw_patch_free(p);
}

static void malformed(void **state)
{
	struct pw_patch *p = parse(
		"diff --git a/a.c b/a.c\n"
		"--- a/a.c\n"
		"+++ b/a.c\n"
		"@@ -1,5 +1,5 @@\n"
		" x\n"
		"+y\n"
		"garbage in the middle\n"
		"@@ -zz @@\n"
		"@@ -1 +1 @@\n"
		"+lonely\n");

	(void)state;
	assert_int_equal(p->nfiles, 1);
	assert_true(p->nproblems >= 2);
	assert_int_equal(p->problems[0].patch_no, 4);
	assert_non_null(strstr(p->problems[0].message,
			       "\"@@ -1,5 +1,5 @@\" announces 5 old and 5 new lines, the hunk has 1 and 2, "
			       "then comes \"garbage in the middle\", neither context nor a change"));
	pw_patch_free(p);

	p = parse("@@ -1 +1 @@\n+orphan\n");
	assert_int_equal(p->nfiles, 0);
	assert_int_equal(p->nproblems, 1);
	pw_patch_free(p);

	p = pw_diff_parse("", 0);
	assert_int_equal(p->nfiles, 0);
	pw_patch_free(p);

	p = pw_diff_parse("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1", 41);
	assert_int_equal(p->nfiles, 1);
	assert_int_equal(p->files[0].nhunks, 0);
	assert_int_equal(p->nproblems, 1);
	pw_patch_free(p);
}

/* Why a hunk stops short, in the words of the problem (PATCH_MALFORMED). */
static void short_hunk_reasons(void **state)
{
	static const struct {
		const char *diff, *says;
	} t[] = {
		/* The hunk header wrapped by a mail client. */
		{ "@@ -681,7 +681,7 @@ static int setup_attrs(struct\n"
		  "acpi_power_meter_resource *resource)\n",
		  "\"@@ -681,7 +681,7 @@\" announces 7 old and 7 new lines, then comes "
		  "\"acpi_power_meter_resource *resource)\", neither context nor a change "
		  "(it starts with none of ' ', '+', '-'): a mail client probably wrapped a long line" },
		/* The same where the diff ends (a mail's diff, as git apply
		 * bounds it, stops before such a line). */
		{ "@@ -681,7 +681,7 @@ static int setup_attrs(struct\n",
		  "\"@@ -681,7 +681,7 @@\" announces 7 old and 7 new lines, but no hunk line "
		  "follows it: a mail client probably wrapped a long line" },
		/* A new file one line short, then the signature. */
		{ "@@ -0,0 +1,3 @@\n+a\n+b\n-- \n2.22.0\n",
		  "announces 3 new lines, the hunk has 2, then comes \"-- \", a mail "
		  "signature separator, where the hunk still needs lines" },
		/* The same with the separator's space lost. */
		{ "@@ -0,0 +1,3 @@\n+a\n+b\n--\n2.22.0\n",
		  "then comes \"--\", a mail signature separator" },
		/* An empty line where a new file has no old line for it. */
		{ "@@ -0,0 +1,3 @@\n+a\n+b\n\n",
		  "the hunk has 2, then comes an empty line, which git reads as context, "
		  "and the header has no room for it" },
		/* The last context line missing at the end. */
		{ "@@ -1,3 +1,3 @@\n-a\n+b\n c\n",
		  "the hunk has 2 and 2, then the diff stops: a mail client probably "
		  "dropped an empty last context line" },
		/* Counts too high: the next hunk comes first. */
		{ "@@ -1,4 +1,4 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\n",
		  "then comes \"@@ -9 +9 @@\", the next hunk: the header's counts are wrong" },
		/* A removed line beyond the header's old count. */
		{ "@@ -1 +1,2 @@\n-a\n+b\n-c\n",
		  "announces 2 new lines, the hunk has 1, then comes \"-c\", a removed line "
		  "the header has no room for" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *d = g_strconcat("diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n",
				      t[i].diff, NULL);
		struct pw_patch *p = parse(d);

		assert_int_equal(p->nproblems, 1);
		if (!strstr(p->problems[0].message, t[i].says))
			fail_msg("case %zu: %s", i, p->problems[0].message);
		assert_non_null(strstr(p->problems[0].message,
				       "; git am will refuse the patch"));
		assert_int_equal(p->problems[0].patch_no, 4);
		pw_patch_free(p);
		g_free(d);
	}
}

/*
 * The cause the bytes show, named instead of a guess: a line split at
 * SMTP's 998 bytes (a relay puts the rest on a line of its own, which
 * Postfix starts with a space: a context line to git), a line indented
 * with U+00A0 no-break spaces, format=flowed unwrapping, the mail
 * ending (the mail's facts come from checks/body.c as a context).
 */
static void short_hunk_causes(void **state)
{
	static const char head[] = "diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n";
	struct pw_diff_context nbsp = { "\xc2\xa0\xc2\xa0return 0;", false };
	struct pw_diff_context flowed = { "@@ -9 +9 @@", true };
	struct pw_diff_context ended = { NULL, false };
	GString *d = g_string_new(head);
	struct pw_patch *p;

	(void)state;
	/* The counts fit, one line early: git apply finds no context. */
	g_string_append(d, "@@ -1,3 +1,3 @@\n a\n+");
	while (d->len - strlen(head) - strlen("@@ -1,3 +1,3 @@\n a\n") < 998)
		g_string_append_c(d, 'x');
	g_string_append(d, "\n yz\n-b\n c\n");
	p = pw_diff_parse(d->str, d->len);
	assert_int_equal(p->nproblems, 1);
	assert_non_null(strstr(p->problems[0].message,
			       "a line is 998 bytes long, the most SMTP allows in one line, and the "
			       "next starts with a space"));
	assert_int_equal(p->problems[0].patch_no, 6);	/* the 998 bytes */
	pw_patch_free(p);
	/* Counts that break on the rest: the cause still named. */
	g_string_truncate(d, d->len - strlen(" yz\n-b\n c\n"));
	g_string_append(d, "yz\n-b\n c\n");
	p = pw_diff_parse(d->str, d->len);
	assert_int_equal(p->nproblems, 1);
	assert_non_null(strstr(p->problems[0].message,
			       "then comes \"yz\": a line of the hunk is 998 bytes long"));
	assert_null(strstr(p->problems[0].message, "by hand"));
	pw_patch_free(p);

	g_string_assign(d, head);
	g_string_append(d, "@@ -1,3 +1,4 @@\n+a\n");
	p = pw_diff_parse_ctx(d->str, d->len, &nbsp);
	assert_non_null(strstr(p->problems[0].message,
			       "then the diff stops at \"\xc2\xa0\xc2\xa0return 0;\": that line is "
			       "indented with U+00A0 no-break spaces"));
	pw_patch_free(p);
	p = pw_diff_parse_ctx(d->str, d->len, &flowed);
	assert_non_null(strstr(p->problems[0].message, ": the mail is format=flowed, and unwrapping it"));
	pw_patch_free(p);
	p = pw_diff_parse_ctx(d->str, d->len, &ended);
	assert_non_null(strstr(p->problems[0].message, "then the diff stops: the mail ends there, so the patch was cut short"));
	pw_patch_free(p);
	/* Without the mail, the likely causes, as before. */
	p = pw_diff_parse(d->str, d->len);
	assert_non_null(strstr(p->problems[0].message, "a mail client probably wrapped a long line"));
	pw_patch_free(p);
	g_string_free(d, TRUE);
}

static void blank_context_and_crlf(void **state)
{
	struct pw_patch *p = parse(
		"diff --git a/a.c b/a.c\r\n"
		"--- a/a.c\r\n"
		"+++ b/a.c\r\n"
		"@@ -1,3 +1,3 @@\r\n"
		" a\r\n"
		"\n"
		"-b\r\n"
		"+c\r\n");

	(void)state;
	assert_int_equal(p->nproblems, 0);
	assert_int_equal(p->files[0].nlines, 4);
	assert_int_equal(p->files[0].lines[1].kind, ' ');
	assert_int_equal(p->files[0].lines[3].len, 1);
	assert_int_equal(p->files[0].lines[3].new_no, 3);
	pw_patch_free(p);
}

static void long_line_capped(void **state)
{
	GString *s = g_string_new("diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -0,0 +1 @@\n+");
	struct pw_patch *p;
	size_t i;

	(void)state;
	for (i = 0; i < PW_DIFF_MAX_LINE + 10; i++)
		g_string_append_c(s, 'x');
	g_string_append_c(s, '\n');
	p = pw_diff_parse(s->str, s->len);
	assert_int_equal(p->files[0].lines[0].len, PW_DIFF_MAX_LINE);
	assert_int_equal(p->nproblems, 1);
	pw_patch_free(p);
	g_string_free(s, TRUE);
}

static void files_capped(void **state)
{
	GString *s = g_string_new(NULL);
	struct pw_patch *p;
	int i;

	(void)state;
	for (i = 0; i < PW_DIFF_MAX_FILES + 5; i++)
		g_string_append_printf(s, "diff --git a/f%d b/f%d\n--- a/f%d\n+++ b/f%d\n"
				       "@@ -1 +1 @@\n-a\n+b\n", i, i, i, i);
	p = pw_diff_parse(s->str, s->len);
	assert_int_equal(p->nfiles, PW_DIFF_MAX_FILES);
	assert_int_equal(p->nproblems, 1);
	assert_non_null(strstr(p->problems[0].message, "files"));
	pw_patch_free(p);
	g_string_free(s, TRUE);
}

/* The hunk header primitives: what each reader gets to judge by. */
static void hunk_headers(void **state)
{
	static const struct {
		const char *line;
		bool ok;
		int parents, old_start, old_count, new_start, new_count;
		bool loose, closed;
	} c[] = {
		{ "@@ -10,3 +10,4 @@ int f(void)", true, 1, 10, 3, 10, 4, false, true },
		{ "@@ -1 +1 @@", true, 1, 1, 1, 1, 1, false, true },
		{ "@@ -0,0 +1,2 @@", true, 1, 0, 0, 1, 2, false, true },
		{ "@@ -1 +1", true, 1, 1, 1, 1, 1, false, false },
		{ "@@  -1,2  +3,4 @@", true, 1, 1, 2, 3, 4, true, true },
		{ "@@@ -1,2 -3,4 +5,6 @@@", true, 2, 1, 2, 5, 6, false, true },
		{ "@@ -99999999999,1 +1 @@", true, 1, G_MAXINT, 1, 1, 1, false, true },
		{ "@@ -,3 +1 @@", false, 0, 0, 0, 0, 0, false, false },
		{ "@@ -1, +1 @@", false, 0, 0, 0, 0, 0, false, false },
		{ "@@ +1 -1 @@", false, 0, 0, 0, 0, 0, false, false },
		{ "@ -1 +1 @", false, 0, 0, 0, 0, 0, false, false },
		{ "@@-1 +1 @@", false, 0, 0, 0, 0, 0, false, false },
	};
	struct pw_hunk_head h;
	struct pw_hunk_range r;
	const char *s = "-,3 +x", *e;
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(c); i++) {
		bool ok = pw_diff_hunk_head(c[i].line, strlen(c[i].line), &h);

		assert_int_equal(ok, c[i].ok);
		if (!ok)
			continue;
		assert_int_equal(h.parents, c[i].parents);
		assert_int_equal(h.old.start, c[i].old_start);
		assert_int_equal(h.old.count, c[i].old_count);
		assert_int_equal(h.new.start, c[i].new_start);
		assert_int_equal(h.new.count, c[i].new_count);
		assert_int_equal(h.loose, c[i].loose);
		assert_int_equal(h.closed, c[i].closed);
	}
	/* A range without its start, as git patch-id takes it. */
	e = pw_diff_hunk_range(s + 1, s + strlen(s), &r);
	assert_false(r.has_start);
	assert_true(r.has_comma && r.has_count);
	assert_int_equal(r.count, 3);
	assert_string_equal(e, " +x");
	e = pw_diff_hunk_range(s + 5, s + strlen(s), &r);
	assert_false(r.has_start || r.has_comma);
	assert_int_equal(r.count, 1);
}

/* The parser takes only exact headers; the extent takes more. */
static void strict_hunk_headers(void **state)
{
	struct pw_patch *p = parse("--- a/f\n+++ b/f\n@@ -1 +1\n-x\n+y\n");
	const char *s;
	bool in_old, in_new;

	(void)state;
	assert_int_equal(p->nfiles, 0);	/* a plain diff without hunks */
	assert_int_equal(p->nproblems, 1);
	assert_non_null(strstr(p->problems[0].message, "unreadable hunk header"));
	pw_patch_free(p);
	p = parse("--- a/f\n+++ b/f\n@@ -1,100000001 +1 @@\n-x\n+y\n");
	assert_int_equal(p->nproblems, 1);
	pw_patch_free(p);

	assert_true(pw_diff_hunk_line("", 0, 1, &in_old, &in_new));
	assert_true(in_old && in_new);
	assert_true(pw_diff_hunk_line("\\ No newline", 12, 1, &in_old, &in_new));
	assert_false(in_old || in_new);
	assert_true(pw_diff_hunk_line("+-x", 3, 2, &in_old, &in_new));
	assert_true(!in_old && !in_new);
	assert_true(pw_diff_hunk_line(" +x", 3, 2, &in_old, &in_new));
	assert_true(in_old && in_new);
	assert_false(pw_diff_hunk_line("x", 1, 1, &in_old, &in_new));
	assert_true(pw_diff_is_git_header("similarity index 90%", 20));
	assert_false(pw_diff_is_git_header("indexed", 7));
	s = "--- a/f\n+++ b/f\n";
	assert_true(pw_diff_is_old_new(s, 7, s + 8, s + strlen(s)));
	assert_false(pw_diff_is_old_new(s, 7, s + 8, s + 8));
	assert_false(pw_diff_is_old_new(s + 8, 7, s + 16, s + strlen(s)));
}

static void helpers(void **state)
{
	enum pw_severity s;
	struct pw_finding *f = pw_finding_new("X", PW_SEV_ERROR, "a.c", 3, 4, "msg");

	(void)state;
	assert_string_equal(pw_severity_str(PW_SEV_WARNING), "warning");
	assert_true(pw_severity_parse("ERROR", &s));
	assert_int_equal(s, PW_SEV_ERROR);
	assert_false(pw_severity_parse("loud", &s));
	assert_string_equal(f->file, "a.c");
	assert_null(f->fix);
	pw_finding_free(f);
	pw_finding_free(NULL);
	pw_patch_free(NULL);
}

/*
 * What "check" and /api/check both take for a bare diff: the two used
 * to tell "\ndiff --git" (a blank line first, as an editor or a paste
 * leaves it) and "Index:" without its space apart.
 */
static void bare_diff(void **state)
{
	static const char *const yes[] = {
		"diff --git a/a b/a\n", "--- a/a\n+++ b/a\n", "Index: a.c\n",
		"\ndiff --git a/a b/a\n", "\r\n\n--- a/a\n", "diff ",
	};
	static const char *const no[] = {
		"", "\n\n", "From: a@b\n\ndiff --git a/a b/a\n", "Index:a.c\n",
		" diff --git a/a b/a\n", "---a\n", "diff", "Subject: x\n",
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(yes); i++)
		assert_true(pw_diff_is_bare(yes[i], strlen(yes[i])));
	for (i = 0; i < G_N_ELEMENTS(no); i++)
		assert_false(pw_diff_is_bare(no[i], strlen(no[i])));
	/* Only len bytes are read: a prefix of a diff header is not one. */
	assert_false(pw_diff_is_bare("diff --git", 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(git_two_files),
		cmocka_unit_test(git_headers),
		cmocka_unit_test(plain_and_index),
		cmocka_unit_test(quoted_names),
		cmocka_unit_test(malformed),
		cmocka_unit_test(short_hunk_reasons),
		cmocka_unit_test(blank_context_and_crlf),
		cmocka_unit_test(long_line_capped),
		cmocka_unit_test(files_capped),
		cmocka_unit_test(hunk_headers),
		cmocka_unit_test(strict_hunk_headers),
		cmocka_unit_test(helpers),
		cmocka_unit_test(bare_diff),
		cmocka_unit_test(short_hunk_causes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
