/*
 * Unit tests for the bounds of checks/ on hostile input: the cap on
 * findings per patch (pw_check_opts.max_findings, FINDINGS_CAPPED in
 * checks/review.c) and the work of the one lookup that walks back over
 * lines, pw_text_logical_start() (checks/text.c), counted rather than
 * timed.  tests/bench/hostile.sh times the rest at N and 4N.  And the
 * limits of the MIME structure bot/mail.c gives GMime (depth, parts,
 * header fields), each at its edge and one past it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bot/mail.h"
#include "checks/rules.h"
#include "checks/text.h"

/* A patch adding n lines to x.c, each a world-writable module_param:
 * one finding per line, on patch lines 5 to n + 4.  With short set, the
 * hunk promises one line more than it has (PATCH_MALFORMED at line 4). */
static char *many(int n, bool short_hunk)
{
	GString *s = g_string_new(NULL);
	int i;

	g_string_append_printf(s, "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n"
			       "@@ -0,0 +1,%d @@\n", n + (short_hunk ? 1 : 0));
	for (i = 0; i < n; i++)
		g_string_append_printf(s, "+module_param(p%d, int, 0666);\n", i);
	return g_string_free(s, FALSE);
}

static GPtrArray *run(const char *diff, const struct pw_check_opts *o)
{
	struct pw_patch *p = pw_diff_parse(diff, strlen(diff));
	GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify)pw_finding_free);

	pw_check_patch(p, o, a);
	pw_patch_free(p);
	return a;
}

static const struct pw_finding *at(const GPtrArray *a, guint i)
{
	assert_true(i < a->len);
	return a->pdata[i];
}

static void same(const struct pw_finding *x, const struct pw_finding *y)
{
	assert_string_equal(x->rule, y->rule);
	assert_int_equal(x->patch_no, y->patch_no);
	assert_int_equal(x->line, y->line);
	assert_int_equal(x->column, y->column);
	assert_string_equal(x->message, y->message);
	assert_string_equal(x->file, y->file);
	if (x->fix || y->fix)
		assert_string_equal(x->fix, y->fix);
}

/* 2,500 findings under a cap of 1,000: the first 1,000 of the uncapped
 * run, fixes and all, then one summary that counts the other 1,500. */
static void capped_with_summary(void **state)
{
	char *diff = many(2500, false);
	struct pw_check_opts all = { PW_STYLE_OCTAL, NULL, NULL, 0 };
	struct pw_check_opts cap = { PW_STYLE_OCTAL, NULL, NULL, 1000 };
	GPtrArray *a = run(diff, &all), *b = run(diff, &cap);
	const struct pw_finding *s;
	guint i;

	(void)state;
	assert_int_equal(a->len, 2500);
	assert_int_equal(b->len, 1001);
	for (i = 0; i < 1000; i++)
		same(at(a, i), at(b, i));
	assert_int_equal(at(b, 999)->patch_no, 1004);
	s = at(b, 1000);
	assert_string_equal(s->rule, "FINDINGS_CAPPED");
	assert_int_equal(s->severity, PW_SEV_INFO);
	assert_string_equal(s->message, "1500 more findings not shown");
	assert_string_equal(s->file, "(diff)");
	assert_int_equal(s->line, 0);
	assert_null(s->fix);
	g_ptr_array_free(a, TRUE);
	g_ptr_array_free(b, TRUE);
	g_free(diff);
}

/* At the cap nothing is dropped and no summary is added; one over, one
 * finding is counted, in the singular. */
static void cap_boundary(void **state)
{
	char *at_cap = many(5, false), *over = many(6, false);
	struct pw_check_opts o = { PW_STYLE_OCTAL, NULL, NULL, 5 };
	GPtrArray *a = run(at_cap, &o), *b = run(over, &o);

	(void)state;
	assert_int_equal(a->len, 5);
	assert_string_equal(at(a, 4)->rule, "PERM_WORLD_WRITABLE");
	assert_int_equal(b->len, 6);
	assert_string_equal(at(b, 5)->rule, "FINDINGS_CAPPED");
	assert_string_equal(at(b, 5)->message, "1 more finding not shown");
	g_ptr_array_free(a, TRUE);
	g_ptr_array_free(b, TRUE);
	g_free(at_cap);
	g_free(over);
}

/* No options: the default cap, PW_MAX_FINDINGS. */
static void default_cap(void **state)
{
	char *diff = many(PW_MAX_FINDINGS + 7, false);
	GPtrArray *a = run(diff, NULL);

	(void)state;
	assert_int_equal(a->len, PW_MAX_FINDINGS + 1);
	assert_string_equal(at(a, PW_MAX_FINDINGS)->message, "7 more findings not shown");
	g_ptr_array_free(a, TRUE);
	g_free(diff);
}

/* Switched off, the summary goes but the cap stays. */
static void summary_switched_off(void **state)
{
	static const char *const off[] = { "findings_capped", NULL };
	char *diff = many(30, false);
	struct pw_check_opts o = { PW_STYLE_OCTAL, off, NULL, 10 };
	GPtrArray *a = run(diff, &o);

	(void)state;
	assert_int_equal(a->len, 10);
	assert_string_equal(at(a, 9)->rule, "PERM_WORLD_WRITABLE");
	g_ptr_array_free(a, TRUE);
	g_free(diff);
}

/*
 * The findings kept are the first in patch order, not the first made:
 * the damaged hunk's PATCH_MALFORMED (patch line 4) is found after the
 * modes below it, and still kept before them.
 */
static void first_in_patch_order(void **state)
{
	char *diff = many(40, true);
	struct pw_check_opts o = { PW_STYLE_OCTAL, NULL, NULL, 2 };
	GPtrArray *a = run(diff, &o);

	(void)state;
	assert_int_equal(a->len, 3);
	assert_string_equal(at(a, 0)->rule, "PATCH_MALFORMED");
	assert_int_equal(at(a, 0)->patch_no, 4);
	assert_string_equal(at(a, 1)->rule, "PERM_WORLD_WRITABLE");
	assert_int_equal(at(a, 1)->patch_no, 5);
	assert_string_equal(at(a, 2)->message, "39 more findings not shown");
	g_ptr_array_free(a, TRUE);
	g_free(diff);
}

/* A whole source file is capped as a patch is; the summary names it. */
static void source_capped(void **state)
{
	GString *src = g_string_new(NULL);
	GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify)pw_finding_free);
	struct pw_check_opts o = { PW_STYLE_OCTAL, NULL, NULL, 3 };
	int i;

	(void)state;
	for (i = 0; i < 50; i++)
		g_string_append_printf(src, "module_param(p%d, int, 0666);\n", i);
	pw_check_source("drivers/x.c", src->str, src->len, &o, a);
	assert_int_equal(a->len, 4);
	assert_int_equal(at(a, 2)->line, 3);
	assert_string_equal(at(a, 3)->file, "drivers/x.c");
	assert_string_equal(at(a, 3)->message, "47 more findings not shown");
	g_ptr_array_free(a, TRUE);
	g_string_free(src, TRUE);
}

/* Which line each line's logical line starts on, in a small text. */
static void logical_starts(void **state)
{
	const char *src = "int a; \\\n"	/* 0: continued */
			  "b;\n"		/* 9 */
			  "#define X(n) \\ \t\n"	/* 12: continued, blanks after */
			  "\tf(n); \\\n"	/* 29: continued */
			  "\tg(n)\n"		/* 38 */
			  "h\\x\n";		/* 44: a backslash mid-line */
	struct pw_text t;

	(void)state;
	pw_text_init_source(&t, src, strlen(src));
	assert_int_equal(pw_text_logical_start(&t, 0), 0);
	assert_int_equal(pw_text_logical_start(&t, 10), 0);
	assert_int_equal(pw_text_logical_start(&t, 12), 12);
	assert_int_equal(pw_text_logical_start(&t, 31), 12);
	assert_int_equal(pw_text_logical_start(&t, 40), 12);
	assert_int_equal(pw_text_logical_start(&t, 45), 44);
	/* Out of order too: the answer does not depend on the last one. */
	assert_int_equal(pw_text_logical_start(&t, 3), 0);
	assert_int_equal(pw_text_logical_start(&t, 38), 12);
	pw_text_release(&t);
}

/* The work of asking for every line of a macro of n continued lines. */
static size_t macro_work(int n)
{
	GString *s = g_string_new("#define M(x) \\\n");
	struct pw_text t;
	size_t i, work;
	int k;

	for (k = 0; k < n; k++)
		g_string_append_printf(s, "DEVICE_ATTR(a%05d, 0644, a%05d_show, a%05d_store); \\\n",
				       k, k, k);
	g_string_append(s, "int end;\n");
	pw_text_init_source(&t, s->str, s->len);
	for (i = 0; i < s->len; i += 7)
		assert_int_equal(pw_text_logical_start(&t, i), 0);
	work = t.work;
	pw_text_release(&t);
	g_string_free(s, TRUE);
	return work;
}

/*
 * Each line is stepped over once in all, however long the logical line:
 * a few steps per line (one per question, one or two per new line), and
 * four times the lines, four times the work.  A walk back to the
 * #define for every question, as before, made it sixteen times.
 */
static void logical_start_linear(void **state)
{
	size_t w1 = macro_work(1000), w4 = macro_work(4000);

	(void)state;
	assert_true(w1 > 1000);
	assert_true(w1 < 1000 * 16);
	assert_true(w4 < 5 * w1);
}


/* ---- the MIME structure given to GMime (bot/mail.c) ---- */

static const char head[] = "From: A <a@example.org>\nSubject: [PATCH] x\n"
			   "Message-ID: <x@example.org>\nMIME-Version: 1.0\n";
static const char diff[] = "Content-Type: text/plain\n\nx\n---\n"
			   "diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n"
			   "@@ -1 +1 @@\n-a\n+b\n";

/* Parses s (freed); the reason it was refused (g_free), or NULL when
 * read, with *has_diff whether its patch was found. */
static char *parse_refused(GString *s, bool *has_diff)
{
	struct pw_mail *m = NULL;
	char *err = NULL;
	enum pw_status st = pw_mail_parse(s->str, s->len, &m, &err);

	*has_diff = m && m->diff;
	if (st == PW_OK)
		assert_null(err);
	else
		assert_non_null(err);
	pw_mail_free(m);
	g_string_free(s, TRUE);
	return err;
}

/* n multiparts nested, the patch in the innermost. */
static GString *nested(int n)
{
	GString *s = g_string_new(head);
	int i;

	for (i = 0; i < n; i++)
		g_string_append_printf(s, "Content-Type: multipart/mixed;"
				       " boundary=\"b%d\"\n\n--b%d\n", i, i);
	g_string_append(s, diff);
	for (i = n - 1; i >= 0; i--)
		g_string_append_printf(s, "--b%d--\n", i);
	return s;
}

/* at is read, its patch found; past is refused for why. */
static void edge(GString *at, GString *past, const char *why)
{
	bool has_diff;
	char *got;

	assert_null(parse_refused(at, &has_diff));
	assert_true(has_diff);
	got = parse_refused(past, &has_diff);
	assert_string_equal(got, why);
	g_free(got);
}

static void too_deep(GString *s)
{
	bool has_diff;
	char *why = parse_refused(s, &has_diff);

	assert_string_equal(why, "MIME parts nested deeper than 32: refused unread");
	g_free(why);
}

static void mime_depth_edge(void **state)
{
	(void)state;
	edge(nested(32), nested(33),
	     "MIME parts nested deeper than 32: refused unread");
}

/* Embedded messages nest as multiparts do; an encoded one is an
 * attachment, not read, and does not. */
static void mime_depth_messages(void **state)
{
	GString *s = g_string_new(head);
	bool has_diff;
	int i;

	(void)state;
	for (i = 0; i < 40; i++)
		g_string_append(s, "Content-Type: message/rfc822\n\n");
	too_deep(s);
	s = g_string_new(head);
	g_string_append(s, "Content-Type: multipart/mixed; boundary=\"o\"\n\n--o\n");
	for (i = 0; i < 40; i++)
		g_string_append(s, "Content-Type: message/rfc822\n"
			        "Content-Transfer-Encoding: base64\n\nQUJD\n--o\n");
	g_string_append(s, diff);
	g_string_append(s, "--o--\n");
	assert_null(parse_refused(s, &has_diff));
	assert_true(has_diff);
}

/* In a digest a part whose Content-Type cannot be read is a message, as
 * GMime's parser takes it (not application/octet-stream, as
 * g_mime_content_type_parse() alone answers): 40 digests so nested are
 * 80 levels deep. */
static void mime_depth_digest(void **state)
{
	GString *s = g_string_new(head);
	int i;

	(void)state;
	for (i = 0; i < 40; i++)
		g_string_append_printf(s, "Content-Type: multipart/digest;"
				       " boundary=\"d%d\"\n\n--d%d\n"
				       "Content-Type: ///\n\n", i, i);
	g_string_append(s, "From: b@example.org\n\nhi\n");
	too_deep(s);
}

/* Siblings are not depth: 300 multiparts side by side, some closed
 * only by their parent's boundary, and a digest of 300 messages. */
static void mime_siblings_not_deep(void **state)
{
	GString *s = g_string_new(head);
	bool has_diff;
	int i;

	(void)state;
	g_string_append(s, "Content-Type: multipart/mixed; boundary=\"o\"\n\n");
	for (i = 0; i < 300; i++) {
		g_string_append_printf(s, "--o\nContent-Type: multipart/alternative;"
				       " boundary=\"a%d\"\n\n--a%d\n"
				       "Content-Type: text/html\n\nx\n", i, i);
		if (i % 2)
			g_string_append_printf(s, "--a%d--\n", i);
	}
	g_string_append_printf(s, "--o\n%s--o--\n", diff);
	assert_null(parse_refused(s, &has_diff));
	assert_true(has_diff);
	s = g_string_new(head);
	g_string_append(s, "Content-Type: multipart/digest; boundary=\"d\"\n\n");
	for (i = 0; i < 300; i++)
		g_string_append_printf(s, "--d\n\nFrom: b@example.org\nSubject: %d\n\nhi\n", i);
	g_string_append(s, "--d--\n");
	assert_null(parse_refused(s, &has_diff));
}

/* One multipart of n parts, the patch first: n + 1 parts in all. */
static GString *parts(int n)
{
	GString *s = g_string_new(head);
	int i;

	g_string_append_printf(s, "Content-Type: multipart/mixed; boundary=\"p\"\n\n--p\n%s", diff);
	for (i = 1; i < n; i++)
		g_string_append(s, "--p\nContent-Type: text/html\n\nx\n");
	g_string_append(s, "--p--\n");
	return s;
}

static void mime_parts_edge(void **state)
{
	(void)state;
	edge(parts(4999), parts(5000), "more MIME parts than 5000: refused unread");
}

/* n header fields in all: the head's 4, n - 6 X- fields, the top's
 * Content-Type and the part's. */
static GString *fields(int n)
{
	GString *s = g_string_new(head);
	int i;

	for (i = 0; i < n - 6; i++)
		g_string_append(s, "X-A: b\n");
	g_string_append_printf(s, "Content-Type: multipart/mixed; boundary=\"p\"\n\n--p\n%s--p--\n", diff);
	return s;
}

static void header_fields_edge(void **state)
{
	(void)state;
	edge(fields(10000), fields(10001),
	     "more header fields than 10000: refused unread");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capped_with_summary),
		cmocka_unit_test(cap_boundary),
		cmocka_unit_test(default_cap),
		cmocka_unit_test(summary_switched_off),
		cmocka_unit_test(first_in_patch_order),
		cmocka_unit_test(source_capped),
		cmocka_unit_test(logical_starts),
		cmocka_unit_test(logical_start_linear),
		cmocka_unit_test(mime_depth_edge),
		cmocka_unit_test(mime_depth_messages),
		cmocka_unit_test(mime_depth_digest),
		cmocka_unit_test(mime_siblings_not_deep),
		cmocka_unit_test(mime_parts_edge),
		cmocka_unit_test(header_fields_edge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
