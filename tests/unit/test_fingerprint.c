/*
 * Unit tests for checks/fingerprint.c: subject, body and change-shape
 * fingerprints and git patch-id --stable.
 *
 * Standalone, the built-in cases run (patch ids were produced with
 * git 2.39 "git patch-id --stable").  With PATCHID_DIR set, only the
 * directory comparison runs: for every N.patch beside an N.id (the first
 * line git printed, empty when git printed nothing) it compares
 * pw_flood_patch_id() with git; tests/integration/patchid.sh prepares
 * such directories from the corpus.
 *
 * With FLOOD_DIR set, only the generated-flood check runs: the directory
 * holds index.tsv (N, kind, Message-ID, the Message-ID a resend repeats
 * or "-") and N.subject, N.msg, N.diff for every patch message that
 * tests/gen_flood.py wrote; tests/integration/gen_flood.sh prepares it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "checks/fingerprint.h"

/* Two files, each editing a permission; counts are right. */
static const char diff_two[] =
	"diff --git a/drivers/media/foo.c b/drivers/media/foo.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/drivers/media/foo.c\n"
	"+++ b/drivers/media/foo.c\n"
	"@@ -10,6 +10,6 @@ static int debug;\n"
	" \n"
	" static int foo_level;\n"
	"-module_param(foo_level, int, 0444);\n"
	"+module_param(foo_level, int, S_IRUGO);\n"
	" MODULE_PARM_DESC(foo_level, \"level\");\n"
	" \n"
	" static int bar;\n"
	"diff --git a/drivers/media/bar.c b/drivers/media/bar.c\n"
	"index 3333333..4444444 100644\n"
	"--- a/drivers/media/bar.c\n"
	"+++ b/drivers/media/bar.c\n"
	"@@ -1,3 +1,3 @@\n"
	" #include <linux/module.h>\n"
	"-module_param(bar,   bool, 0200);\n"
	"+module_param(bar, bool, S_IWUSR);\n"
	" \\\n";

/* The same two files in the other order. */
static const char diff_swapped[] =
	"diff --git a/drivers/media/bar.c b/drivers/media/bar.c\n"
	"index 3333333..4444444 100644\n"
	"--- a/drivers/media/bar.c\n"
	"+++ b/drivers/media/bar.c\n"
	"@@ -1,3 +1,3 @@\n"
	" #include <linux/module.h>\n"
	"-module_param(bar,   bool, 0200);\n"
	"+module_param(bar, bool, S_IWUSR);\n"
	" \\\n"
	"diff --git a/drivers/media/foo.c b/drivers/media/foo.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/drivers/media/foo.c\n"
	"+++ b/drivers/media/foo.c\n"
	"@@ -10,6 +10,6 @@ static int debug;\n"
	" \n"
	" static int foo_level;\n"
	"-module_param(foo_level, int, 0444);\n"
	"+module_param(foo_level, int, S_IRUGO);\n"
	" MODULE_PARM_DESC(foo_level, \"level\");\n"
	" \n"
	" static int bar;\n";

/* A wrong hunk count: git then hashes on into the next file unsplit. */
static const char diff_badcount[] =
	"diff --git a/drivers/media/foo.c b/drivers/media/foo.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/drivers/media/foo.c\n"
	"+++ b/drivers/media/foo.c\n"
	"@@ -10,7 +10,7 @@ static int debug;\n"
	" \n"
	" static int foo_level;\n"
	"-module_param(foo_level, int, 0444);\n"
	"+module_param(foo_level, int, S_IRUGO);\n"
	" MODULE_PARM_DESC(foo_level, \"level\");\n"
	" \n"
	" static int bar;\n"
	"diff --git a/drivers/media/bar.c b/drivers/media/bar.c\n"
	"index 3333333..4444444 100644\n"
	"--- a/drivers/media/bar.c\n"
	"+++ b/drivers/media/bar.c\n"
	"@@ -1,3 +1,3 @@\n"
	" #include <linux/module.h>\n"
	"-module_param(bar,   bool, 0200);\n"
	"+module_param(bar, bool, S_IWUSR);\n"
	" \\\n";

static const char diff_newfile[] =
	"diff --git a/x.c b/x.c\n"
	"new file mode 100644\n"
	"index 0000000..e69de29\n"
	"--- /dev/null\n"
	"+++ b/x.c\n"
	"@@ -0,0 +1,2 @@\n"
	"+int a;\n"
	"+int b;\n"
	"\\ No newline at end of file\n";

static const char diff_mode[] =
	"diff --git a/run.sh b/run.sh\n"
	"old mode 100644\n"
	"new mode 100755\n";

/* Binary files are hashed by the blob names of their index line. */
static const char diff_binary[] =
	"diff --git a/pixel.bmp b/pixel.bmp\n"
	"new file mode 100644\n"
	"index 0000000000000000000000000000000000000000..e2b6e8fa0e8d4a1ee4c1"
	"b1d2c6b86e0d0b8b3d3c\n"
	"GIT binary patch\n"
	"literal 12\n"
	"TcmZ?bbhEHb6krfw00000\n"
	"\n"
	"literal 0\n"
	"HcmV?d00001\n"
	"\n"
	"diff --git a/quit.sh b/quit.sh\n"
	"index 1111111..2222222 100755\n"
	"--- a/quit.sh\n"
	"+++ b/quit.sh\n"
	"@@ -1 +1 @@\n"
	"-exit 1\n"
	"+exit 0\n";

/*
 * Hunk headers git patch-id reads by its own rule: a range without a
 * start ("-,2"), a new range without digits (git then counts on past
 * the hunk), a count far too large.  The ids are git 2.39's.
 */
static const char diff_oddheads[] =
	"diff --git a/a.c b/a.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/a.c\n"
	"+++ b/a.c\n"
	"@@ -,2 +1,2 @@\n"
	" x\n"
	"-y\n"
	"+z\n"
	"diff --git a/b.c b/b.c\n"
	"index 3333333..4444444 100644\n"
	"--- a/b.c\n"
	"+++ b/b.c\n"
	"@@ -1,2 +\n"
	" p\n"
	"-q\n"
	"+r\n"
	"diff --git a/c.c b/c.c\n"
	"index 5555555..6666666 100644\n"
	"--- a/c.c\n"
	"+++ b/c.c\n"
	"@@ -3 +3 @@\n"
	"-s\n"
	"+t\n";

static const char diff_bigcount[] =
	"diff --git a/a.c b/a.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/a.c\n"
	"+++ b/a.c\n"
	"@@ -1,99999999999 +1,2 @@\n"
	" x\n"
	"-y\n"
	"+z\n"
	"diff --git a/c.c b/c.c\n"
	"--- a/c.c\n"
	"+++ b/c.c\n"
	"@@ -3 +3 @@\n"
	"-s\n"
	"+t\n";

#define ID_TWO "fa87abfe6fc21479fdeaefce6a9698a40a3f7f7b"

static void test_patchid_known(void **state)
{
	char id[PW_FP_HEX];

	(void)state;
	assert_true(pw_flood_patch_id(diff_two, strlen(diff_two), id));
	assert_string_equal(id, ID_TWO);
	assert_true(pw_flood_patch_id(diff_swapped, strlen(diff_swapped), id));
	assert_string_equal(id, ID_TWO);
	assert_true(pw_flood_patch_id(diff_badcount, strlen(diff_badcount),
				      id));
	assert_string_equal(id, "ca81b368b0859e4cba90c28d4e46671c0f6df4d9");
	assert_true(pw_flood_patch_id(diff_newfile, strlen(diff_newfile), id));
	assert_string_equal(id, "b99fe553459e859e819234d581d15ce0ac0cc98a");
	assert_true(pw_flood_patch_id(diff_mode, strlen(diff_mode), id));
	assert_string_equal(id, "0801bff7999b122f0df44a0663a00deef879a340");
	assert_true(pw_flood_patch_id(diff_binary, strlen(diff_binary), id));
	assert_string_equal(id, "abfcf355bdae44cd422ec729097c37cebbf43de1");
	assert_true(pw_flood_patch_id(diff_oddheads, strlen(diff_oddheads), id));
	assert_string_equal(id, "4e2b721785f7673f2a6e81c300c2dff53b1a0ad0");
	assert_true(pw_flood_patch_id(diff_bigcount, strlen(diff_bigcount), id));
	assert_string_equal(id, "5de7549222c05698d08273e3a1fdfb95fcc25155");
}

static void test_patchid_mail_and_crlf(void **state)
{
	char id[PW_FP_HEX];
	GString *s = g_string_new("Subject: x\n\nSome message\n"
				  "Signed-off-by: A <a@b>\n---\n"
				  " drivers/media/foo.c | 2 +-\n\n");
	const char *p;

	(void)state;
	g_string_append(s, diff_two);
	g_string_append(s, "-- \n2.1.4\n\n");
	assert_true(pw_flood_patch_id(s->str, s->len, id));
	assert_string_equal(id, ID_TWO);

	g_string_truncate(s, 0);
	for (p = diff_two; *p; p++) {
		if (*p == '\n')
			g_string_append_c(s, '\r');
		g_string_append_c(s, *p);
	}
	assert_true(pw_flood_patch_id(s->str, s->len, id));
	assert_string_equal(id, ID_TWO);

	/* Not NUL-terminated: only len bytes count. */
	g_string_assign(s, diff_two);
	g_string_append(s, "garbage that must not be read");
	assert_true(pw_flood_patch_id(s->str, strlen(diff_two), id));
	assert_string_equal(id, ID_TWO);
	g_string_free(s, TRUE);
}

static void test_patchid_none(void **state)
{
	char id[PW_FP_HEX] = "x";

	(void)state;
	assert_false(pw_flood_patch_id("", 0, id));
	assert_string_equal(id, "");
	assert_false(pw_flood_patch_id(NULL, 0, id));
	assert_false(pw_flood_patch_id("hello\nworld\n", 12, id));
	assert_string_equal(id, "");
}

static void expect_subject(const char *in, const char *want)
{
	char *got = pw_flood_subject_normalise(in);

	assert_string_equal(got, want);
	g_free(got);
}

static void test_subject(void **state)
{
	(void)state;
	expect_subject("[PATCH 0014/1285] Replace numeric parameter like "
		       "0444 with macro",
		       "replace numeric parameter like 0444 with macro");
	expect_subject("Re: [PATCH 1285/1285]   Replace numeric\tparameter "
		       "like 0444 with macro ",
		       "replace numeric parameter like 0444 with macro");
	expect_subject("RE: Fwd: [RFC] [PATCH v3 net-next 2/7] net: Fix (v3)",
		       "net: fix");
	expect_subject("PATCH 3/5: Fix the thing", "fix the thing");
	expect_subject("[PATCH] patches: add a test", "patches: add a test");
	expect_subject("Fix (the) thing (resend)", "fix (the) thing");
	expect_subject("   ", "");
	expect_subject(NULL, "");
	expect_subject("[PATCH] Ünïcode Fix", "ünïcode fix");
}

static void expect_nosys(const char *in, const char *want)
{
	char *n = pw_flood_subject_normalise(in);
	char *got = pw_flood_subject_strip_subsystem(n);

	assert_string_equal(got, want);
	g_free(got);
	g_free(n);
}

static void test_subject_subsystem(void **state)
{
	(void)state;
	expect_nosys("[PATCH] media: foo: Replace numeric parameter like "
		     "0444 with macro",
		     "replace numeric parameter like 0444 with macro");
	expect_nosys("[PATCH 0014/1285] Replace numeric parameter like 0444 "
		     "with macro",
		     "replace numeric parameter like 0444 with macro");
	expect_nosys("drm/i915/gt: x86/mm: fix", "fix");
	expect_nosys("note: ", "note:");
	expect_nosys("fix 0444: typo", "fix 0444: typo");
}

static void test_body(void **state)
{
	char *a, *b, *c;

	(void)state;
	a = pw_flood_body_normalise(
		"From: Baole Ni <baolex.ni@intel.com>\n\n"
		"I find that the developers often just specified the numeric "
		"value\nwhen calling a macro.\n\n"
		"Signed-off-by: Chuansheng Liu <chuansheng.liu@intel.com>\n"
		"Signed-off-by: Baole Ni <baolex.ni@intel.com>\n"
		"---\n drivers/foo.c | 2 +-\n");
	assert_string_equal(a, "I find that the developers often just "
			    "specified the numeric value when calling a "
			    "macro.");
	b = pw_flood_body_normalise(
		"I find that  the developers often just specified the numeric "
		"value when\n calling a macro.\n"
		"Reviewed-by: X <x@y>\nCc: stable@vger.kernel.org\n"
		"Link: https://lore.kernel.org/r/1\n"
		"Fixes: 123456789abc (\"foo\")\n");
	assert_string_equal(a, b);
	c = pw_flood_body_normalise("Signed-off-by: A <a@b>\n\nCc: x\n");
	assert_string_equal(c, "");
	g_free(a);
	g_free(b);
	g_free(c);
	a = pw_flood_body_normalise(NULL);
	assert_string_equal(a, "");
	g_free(a);
	a = pw_flood_body_normalise("Note: keep this line.\n");
	assert_string_equal(a, "Note: keep this line.");
	g_free(a);
}

static const char flood_a[] =
	"diff --git a/drivers/scsi/fnic/fnic_main.c "
	"b/drivers/scsi/fnic/fnic_main.c\n"
	"index 58ce902..e1efe1e 100644\n"
	"--- a/drivers/scsi/fnic/fnic_main.c\n"
	"+++ b/drivers/scsi/fnic/fnic_main.c\n"
	"@@ -55,7 +55,7 @@ unsigned int fnic_log_level;\n"
	" module_param(fnic_log_level, int, S_IRUGO|S_IWUSR);\n"
	" \n"
	" unsigned int fnic_trace_max_pages = 64;\n"
	"-module_param(fnic_trace_max_pages, uint, 0444);\n"
	"+module_param(fnic_trace_max_pages, uint, S_IRUGO);\n"
	" MODULE_PARM_DESC(fnic_trace_max_pages, \"Total allocated\");\n"
	" \n"
	" static unsigned int fnic_fc_trace_max_pages = 64;\n"
	"@@ -120,3 +120,3 @@\n"
	" x\n"
	"-module_param(dbg, bool, 0200);\n"
	"+module_param(dbg, bool, S_IWUSR);\n"
	" y\n";

static const char flood_b[] =
	"diff --git a/sound/pci/hda/hda_intel.c b/sound/pci/hda/hda_intel.c\n"
	"index aaaaaaa..bbbbbbb 100644\n"
	"--- a/sound/pci/hda/hda_intel.c\n"
	"+++ b/sound/pci/hda/hda_intel.c\n"
	"@@ -140,4 +140,4 @@ static int enable_msi = -1;\n"
	" static char *model[SNDRV_CARDS];\n"
	"-module_param_array(model, charp, NULL, 0444);\n"
	"-module_param(power_save_controller, bool, 0200);\n"
	"+module_param_array(model, charp, NULL, S_IRUGO);\n"
	"+module_param(power_save_controller, bool, S_IWUSR);\n"
	" MODULE_PARM_DESC(model, \"Use the given board model.\");\n";

static const char other_c[] =
	"diff --git a/sound/pci/hda/hda_intel.c b/sound/pci/hda/hda_intel.c\n"
	"--- a/sound/pci/hda/hda_intel.c\n"
	"+++ b/sound/pci/hda/hda_intel.c\n"
	"@@ -140,3 +140,3 @@ static int enable_msi = -1;\n"
	" static char *model[SNDRV_CARDS];\n"
	"-\t\t/* fall through */\n"
	"+\t\tfallthrough;\n"
	" MODULE_PARM_DESC(model, \"Use the given board model.\");\n";

/* The file header the shape needs before a hunk. */
#define HDR "--- a/x.c\n+++ b/x.c\n"

static void expect_edits(const char *diff, const char *const *want)
{
	int n = -1, i;
	char **got = pw_flood_shape_edits(diff, strlen(diff), &n);

	for (i = 0; want[i]; i++) {
		assert_non_null(got[i]);
		assert_string_equal(got[i], want[i]);
	}
	assert_null(got[i]);
	assert_int_equal(n, i);
	g_strfreev(got);
}

static void test_shape_edits(void **state)
{
	static const char *const flood[] = {
		"0200 -> S_IWUSR", "0444 -> S_IRUGO", NULL,
	};
	static const char *const attr[] = {
		"0644 -> S_IRUGO | S_IWUSR", NULL,
	};
	static const char *const two[] = {
		"0200 -> S_IWUSR", "0444 -> S_IRUGO", NULL,
	};
	static const char *const none[] = { NULL };
	static const char *const perm[] = { "0644 -> 0444", NULL };
	static const char *const fall[] = {
		"/ * fall through * / -> fallthrough ;", NULL,
	};
	static const char *const add[] = { "-> int a; int b;", NULL };

	(void)state;
	expect_edits(flood_a, flood);
	expect_edits(flood_b, flood);
	expect_edits(other_c, fall);
	expect_edits("--- a/x.c\n+++ b/x.c\n@@ -5 +5 @@\n"
		     "-static DEVICE_ATTR(cmd, 0644, show_cmd, store_cmd);\n"
		     "+static DEVICE_ATTR(cmd, S_IRUGO | S_IWUSR, show_cmd,"
		     " store_cmd);\n", attr);
	/* Two edits on one line, identifiers between them dropped. */
	expect_edits(HDR "@@ -1 +1 @@\n"
		     "-\tfoo(0444, some_object, 0200);\n"
		     "+\tfoo(S_IRUGO, some_object, S_IWUSR);\n", two);
	/* An empty context line (its space lost in the mail) is context. */
	expect_edits(HDR "@@ -1,3 +1,3 @@\n a\n\n-x = 0644;\n+x = 0444;\n", perm);
	/* White space only: no edit. */
	expect_edits(HDR "@@ -1 +1 @@\n-\tint  a;\n+int a;\n", none);
	expect_edits(diff_newfile, add);
	expect_edits("", none);
}

/*
 * A line longer than the parser keeps for the rules is read whole, and
 * a line with a NUL byte up to it, in the edit list and the digest
 * alike.
 */
static void test_shape_line_ends(void **state)
{
	GString *d = g_string_new(HDR "@@ -1 +1 @@\n-x = ");
	struct pw_fingerprint fp;
	char **e;
	int n = -1, i;

	(void)state;
	for (i = 0; i < 70000; i++)
		g_string_append_c(d, 'A');
	g_string_append(d, " + 1;\n+x = ");
	for (i = 0; i < 70000; i++)
		g_string_append_c(d, 'A');
	g_string_append(d, " + 2;\n");
	e = pw_flood_shape_edits(d->str, d->len, &n);
	assert_int_equal(n, 1);
	assert_string_equal(e[0], "1 -> 2");
	g_strfreev(e);

	g_string_assign(d, HDR "@@ -1,3 +1,5 @@\n ctx\n+foo");
	g_string_append_len(d, "\0bar\n ctx\n+foo\0baz\n ctx\n", 24);
	e = pw_flood_shape_edits(d->str, d->len, &n);
	pw_fingerprint_compute("s", "b", NULL, d->str, d->len, &fp);
	assert_int_equal(n, 1);
	assert_string_equal(e[0], "-> foo");
	assert_int_equal(fp.nedits, n);
	g_strfreev(e);
	g_string_free(d, TRUE);
}

/* A long added block is one short edit, equal for equal code indented
 * otherwise. */
static void test_shape_long(void **state)
{
	GString *a = g_string_new(HDR "@@ -1,0 +1,40 @@\n");
	GString *b = g_string_new(HDR "@@ -100,0 +100,40 @@ other\n");
	char **ea, **eb;
	int i, n = 0;

	(void)state;
	for (i = 0; i < 40; i++) {
		g_string_append_printf(a, "+\tvalue_%d = compute(%d);\n", i, i);
		g_string_append_printf(b, "+\t\t  value_%d = compute(%d); \n",
				       i, i);
	}
	ea = pw_flood_shape_edits(a->str, a->len, &n);
	eb = pw_flood_shape_edits(b->str, b->len, NULL);
	assert_int_equal(n, 1);
	/* 40 x "value_N = compute(N);", 21 bytes for N < 10, 23 after,
	 * and 39 spaces between them */
	assert_true(g_str_has_prefix(ea[0], "-> {939 bytes "));
	assert_true(strlen(ea[0]) < 64);
	assert_string_equal(ea[0], eb[0]);
	g_strfreev(eb);
	g_string_append(b, "+\textra();\n");
	g_string_overwrite(b, strlen(HDR), "@@ -100,0 +100,41 @@");
	eb = pw_flood_shape_edits(b->str, b->len, NULL);
	assert_string_not_equal(ea[0], eb[0]);
	g_strfreev(ea);
	g_strfreev(eb);
	g_string_free(a, TRUE);
	g_string_free(b, TRUE);
}

static void test_fingerprint_flood(void **state)
{
	static const char msg[] =
		"I find that the developers often just specified the numeric "
		"value\nwhen calling a macro which is defined with a parameter "
		"for access permission.\n\n"
		"Signed-off-by: Chuansheng Liu <chuansheng.liu@intel.com>\n"
		"Signed-off-by: Baole Ni <baolex.ni@intel.com>\n";
	struct pw_fingerprint a, b, c, d;

	(void)state;
	pw_fingerprint_compute("[PATCH 0014/1285] Replace numeric parameter "
			       "like 0444 with macro", msg, NULL, flood_a,
			       strlen(flood_a), &a);
	pw_fingerprint_compute("[PATCH 0957/1285] Replace numeric parameter "
			       "like 0444 with macro", msg, NULL, flood_b,
			       strlen(flood_b), &b);
	assert_int_equal(strlen(a.subject), 40);
	assert_string_equal(a.subject, b.subject);
	assert_string_equal(a.subject_nosys, b.subject_nosys);
	assert_string_equal(a.body, b.body);
	assert_string_equal(a.shape, b.shape);
	assert_int_equal(a.nedits, 2);
	assert_int_equal(strlen(a.patch_id), 40);
	assert_string_not_equal(a.patch_id, b.patch_id);

	/* A subsystem prefix changes the subject, not subject_nosys. */
	pw_fingerprint_compute("[PATCH] media: foo: Replace numeric parameter "
			       "like 0444 with macro", "Something else.",
			       NULL, other_c, strlen(other_c), &c);
	assert_string_not_equal(c.subject, a.subject);
	assert_string_equal(c.subject_nosys, a.subject_nosys);
	assert_string_not_equal(c.body, a.body);
	assert_string_not_equal(c.shape, a.shape);
	assert_int_equal(c.nedits, 1);

	/* Empty inputs never match: no digest at all. */
	pw_fingerprint_compute(NULL, "Signed-off-by: x\n", NULL, NULL, 0, &d);
	assert_string_equal(d.subject, "");
	assert_string_equal(d.subject_nosys, "");
	assert_string_equal(d.body, "");
	assert_string_equal(d.shape, "");
	assert_string_equal(d.patch_id, "");
	assert_int_equal(d.nedits, 0);
}

/* The shape is a set: order and repeats of edits do not change it. */
static void test_fingerprint_shape_set(void **state)
{
	static const char ab[] =
		HDR "@@ -1 +1 @@\n-x = 0444;\n+x = S_IRUGO;\n"
		"@@ -9 +9 @@\n-y = 0200;\n+y = S_IWUSR;\n";
	static const char ba[] =
		HDR "@@ -3 +3 @@\n-q = 0200;\n+q = S_IWUSR;\n"
		"@@ -7 +7 @@\n-r = 0444;\n+r = S_IRUGO;\n"
		"@@ -12 +12 @@\n-s = 0444;\n+s = S_IRUGO;\n";
	static const char ac[] =
		HDR "@@ -1 +1 @@\n-x = 0444;\n+x = S_IRUGO;\n"
		"@@ -9 +9 @@\n-y = 0200;\n+y = S_IWUGO;\n";
	struct pw_fingerprint x, y, z;

	(void)state;
	pw_fingerprint_compute("a", "b", NULL, ab, strlen(ab), &x);
	pw_fingerprint_compute("a", "b", NULL, ba, strlen(ba), &y);
	pw_fingerprint_compute("a", "b", NULL, ac, strlen(ac), &z);
	assert_int_equal(strlen(x.shape), 40);
	assert_string_equal(x.shape, y.shape);
	assert_int_equal(x.nedits, 2);
	assert_int_equal(y.nedits, 2);
	assert_string_not_equal(x.shape, z.shape);
	assert_int_equal(z.nedits, 2);
}

/* Every N.patch in PATCHID_DIR against the id git printed in N.id. */
static void test_patchid_dir(void **state)
{
	const char *dir = getenv("PATCHID_DIR");
	GDir *d;
	const char *name;
	int compared = 0, agree = 0;

	(void)state;
	assert_non_null(dir);
	d = g_dir_open(dir, 0, NULL);
	assert_non_null(d);
	while ((name = g_dir_read_name(d))) {
		char *base, *ppath, *ipath, *patch = NULL, *idtxt = NULL;
		gsize plen = 0;
		char want[PW_FP_HEX] = "", got[PW_FP_HEX];

		if (!g_str_has_suffix(name, ".patch"))
			continue;
		base = g_strndup(name, strlen(name) - 6);
		ppath = g_strdup_printf("%s/%s", dir, name);
		ipath = g_strdup_printf("%s/%s.id", dir, base);
		if (g_file_get_contents(ppath, &patch, &plen, NULL) &&
		    g_file_get_contents(ipath, &idtxt, NULL, NULL)) {
			if (strlen(idtxt) >= 40)
				g_strlcpy(want, idtxt, PW_FP_HEX);
			pw_flood_patch_id(patch, plen, got);
			compared++;
			if (strcmp(got, want) == 0)
				agree++;
			else
				printf("# mismatch %s: got '%s' want '%s'\n",
				       base, got, want);
		}
		g_free(patch);
		g_free(idtxt);
		g_free(ipath);
		g_free(ppath);
		g_free(base);
	}
	g_dir_close(d);
	printf("# patchid: compared=%d agree=%d\n", compared, agree);
	assert_true(compared > 0);
	assert_int_equal(agree, compared);
}

static char *read_part(const char *dir, const char *n, const char *ext,
		       gsize *len)
{
	char *path = g_strdup_printf("%s/%s.%s", dir, n, ext), *text = NULL;

	if (!g_file_get_contents(path, &text, len, NULL))
		text = g_strdup("");
	g_free(path);
	return text;
}

static bool allowed_flood_edit(const char *e)
{
	return strcmp(e, "0444 -> S_IRUGO") == 0 ||
	       strcmp(e, "0644 -> S_IRUGO | S_IWUSR") == 0 ||
	       strcmp(e, "0200 -> S_IWUSR") == 0 ||
	       strcmp(e, "0600 -> S_IRUSR | S_IWUSR") == 0;
}

/*
 * The generated flood: every flood patch shares the subject and body
 * fingerprints, its shape is made only of octal -> S_I* edits and is
 * shared with other flood patches, no normal patch has a flood subject,
 * body or shape, and a resend has its original's patch id.
 */
static void test_flood_dir(void **state)
{
	const char *dir = getenv("FLOOD_DIR");
	char *index, *ipath, **rows, **r;
	GHashTable *flood_shapes = g_hash_table_new_full(g_str_hash,
							 g_str_equal, g_free,
							 NULL);
	GHashTable *ids = g_hash_table_new_full(g_str_hash, g_str_equal,
						g_free, g_free);
	GPtrArray *normal = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *resends = g_ptr_array_new_with_free_func(g_free);
	char subj[PW_FP_HEX] = "", body[PW_FP_HEX] = "";
	int nflood = 0, nnormal = 0, bad_subject = 0, bad_body = 0;
	int bad_edit = 0, lonely = 0, clash = 0, bad_resend = 0, bad_count = 0;
	guint i;

	(void)state;
	assert_non_null(dir);
	ipath = g_strdup_printf("%s/index.tsv", dir);
	assert_true(g_file_get_contents(ipath, &index, NULL, NULL));
	rows = g_strsplit(index, "\n", -1);
	for (r = rows; *r; r++) {
		char **f = g_strsplit(*r, "\t", 4);
		char *subject, *msg, *diff;
		gsize dlen = 0;
		struct pw_fingerprint fp;

		if (g_strv_length(f) < 4) {
			g_strfreev(f);
			continue;
		}
		subject = read_part(dir, f[0], "subject", NULL);
		msg = read_part(dir, f[0], "msg", NULL);
		diff = read_part(dir, f[0], "diff", &dlen);
		pw_fingerprint_compute(subject, msg, NULL, diff, dlen, &fp);
		g_hash_table_insert(ids, g_strdup(f[2]),
				    g_strdup(fp.patch_id));
		{
			/* The digest set counts what the string set holds. */
			int ns = -1;
			char **all = pw_flood_shape_edits(diff, dlen, &ns);

			bad_count += ns != fp.nedits || (ns > 0) != !!fp.shape[0];
			g_strfreev(all);
		}
		if (strcmp(f[1], "flood") == 0) {
			char **edits = pw_flood_shape_edits(diff, dlen, NULL);
			char **e;
			gpointer n;

			nflood++;
			if (!subj[0])
				g_strlcpy(subj, fp.subject, sizeof(subj));
			if (!body[0])
				g_strlcpy(body, fp.body, sizeof(body));
			bad_subject += strcmp(subj, fp.subject) != 0 ||
				       !fp.subject[0];
			bad_body += strcmp(body, fp.body) != 0 || !fp.body[0];
			for (e = edits; *e; e++)
				bad_edit += !allowed_flood_edit(*e);
			bad_edit += edits[0] == NULL;
			n = g_hash_table_lookup(flood_shapes, fp.shape);
			g_hash_table_insert(flood_shapes, g_strdup(fp.shape),
					    GINT_TO_POINTER(GPOINTER_TO_INT(n) +
							    1));
			g_strfreev(edits);
		} else {
			nnormal++;
			g_ptr_array_add(normal, g_strdup_printf(
				"%s %s %s %s", fp.subject, fp.body, fp.shape,
				f[2]));
			if (strcmp(f[3], "-") != 0)
				g_ptr_array_add(resends, g_strdup_printf(
					"%s %s", f[2], f[3]));
		}
		g_free(subject);
		g_free(msg);
		g_free(diff);
		g_strfreev(f);
	}
	for (i = 0; i < normal->len; i++) {
		char **f = g_strsplit(g_ptr_array_index(normal, i), " ", 4);

		if (strcmp(f[0], subj) == 0 || strcmp(f[1], body) == 0 ||
		    g_hash_table_contains(flood_shapes, f[2])) {
			clash++;
			printf("# normal patch %s looks like the flood\n",
			       f[3]);
		}
		g_strfreev(f);
	}
	for (i = 0; i < resends->len; i++) {
		char **f = g_strsplit(g_ptr_array_index(resends, i), " ", 2);
		const char *a = g_hash_table_lookup(ids, f[0]);
		const char *b = g_hash_table_lookup(ids, f[1]);

		bad_resend += !a || !b || !a[0] || strcmp(a, b) != 0;
		g_strfreev(f);
	}
	{
		GHashTableIter it;
		gpointer k, v;

		g_hash_table_iter_init(&it, flood_shapes);
		while (g_hash_table_iter_next(&it, &k, &v))
			lonely += GPOINTER_TO_INT(v) < 2;
	}
	printf("# flood: %d flood patches, %u distinct shapes (%d seen once), "
	       "%d normal patches, %u resends\n", nflood,
	       g_hash_table_size(flood_shapes), lonely, nnormal, resends->len);
	assert_true(nflood >= 100);
	assert_true(nnormal >= 20);
	assert_true(resends->len > 0);
	assert_int_equal(bad_subject, 0);
	assert_int_equal(bad_body, 0);
	assert_int_equal(bad_edit, 0);
	assert_int_equal(clash, 0);
	assert_int_equal(bad_resend, 0);
	assert_int_equal(bad_count, 0);
	/* Few combinations of edits exist, so most shapes repeat. */
	assert_true(g_hash_table_size(flood_shapes) <= 40);
	assert_true(lonely * 20 <= nflood);

	g_ptr_array_free(normal, TRUE);
	g_ptr_array_free(resends, TRUE);
	g_hash_table_destroy(ids);
	g_hash_table_destroy(flood_shapes);
	g_strfreev(rows);
	g_free(index);
	g_free(ipath);
}

int main(void)
{
	const struct CMUnitTest builtin[] = {
		cmocka_unit_test(test_patchid_known),
		cmocka_unit_test(test_patchid_mail_and_crlf),
		cmocka_unit_test(test_patchid_none),
		cmocka_unit_test(test_subject),
		cmocka_unit_test(test_subject_subsystem),
		cmocka_unit_test(test_body),
		cmocka_unit_test(test_shape_edits),
		cmocka_unit_test(test_shape_long),
		cmocka_unit_test(test_shape_line_ends),
		cmocka_unit_test(test_fingerprint_flood),
		cmocka_unit_test(test_fingerprint_shape_set),
	};
	const struct CMUnitTest dir[] = {
		cmocka_unit_test(test_patchid_dir),
	};
	const struct CMUnitTest flood[] = {
		cmocka_unit_test(test_flood_dir),
	};

	if (getenv("FLOOD_DIR"))
		return cmocka_run_group_tests_name("flood_generated", flood,
						   NULL, NULL);
	if (getenv("PATCHID_DIR"))
		return cmocka_run_group_tests_name("flood_patchid_dir", dir,
						   NULL, NULL);
	return cmocka_run_group_tests_name("flood", builtin, NULL, NULL);
}
