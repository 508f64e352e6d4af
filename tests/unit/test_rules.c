/*
 * Unit tests for checks/mode.c, checks/text.c, the permission rules
 * (checks/rules.c, review.c, perm_*.c) and the flood rules' wording
 * (checks/floodrules.c), driven from strings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/floodrules.h"
#include "checks/mode.h"
#include "checks/rules.h"
#include "checks/text.h"

static unsigned eval(const char *s, unsigned *flags)
{
	struct pw_mode m;

	pw_mode_eval(s, strlen(s), PW_MODE_C, NULL, NULL, &m);
	if (flags)
		*flags = m.flags;
	return m.value;
}

static void mode_values(void **state)
{
	unsigned f;

	(void)state;
	assert_int_equal(eval("0644", &f), 0644);
	assert_true(f & PW_MODE_OCTAL);
	assert_false(f & PW_MODE_WIDTH);
	assert_int_equal(eval("00644", &f), 0644);
	assert_true(f & PW_MODE_WIDTH);
	assert_int_equal(eval("04755", &f), 04755);
	assert_false(f & PW_MODE_WIDTH);
	assert_int_equal(eval("644", &f), 644);
	assert_true(f & PW_MODE_DECIMAL);
	assert_int_equal(eval("0x1a4", &f), 0644);
	assert_true(f & PW_MODE_HEX);
	assert_int_equal(eval("0", &f), 0);
	assert_true(f & PW_MODE_ZERO);
	assert_int_equal(eval("S_IRWXU", NULL), 0700);
	assert_int_equal(eval("S_IRWXG", NULL), 0070);
	assert_int_equal(eval("S_IRWXO", NULL), 0007);
	assert_int_equal(eval("S_IRUGO", NULL), 0444);
	assert_int_equal(eval("S_IWUGO", NULL), 0222);
	assert_int_equal(eval("S_IXUGO", NULL), 0111);
	assert_int_equal(eval("S_IRWXUGO", NULL), 0777);
	assert_int_equal(eval("S_IALLUGO", NULL), 07777);
	assert_int_equal(eval("S_ISUID | S_ISGID | S_ISVTX", NULL), 07000);
	assert_int_equal(eval("S_IRUSR|S_IWUSR|S_IRGRP|S_IROTH", &f), 0644);
	assert_true(f & PW_MODE_SYMBOLIC);
	assert_int_equal(eval("(S_IRUGO | 0200)", NULL), 0644);
	assert_int_equal(eval("(umode_t)0644", &f), 0644);
	assert_false(f & PW_MODE_UNKNOWN);
	assert_int_equal(eval("S_IFREG | 0644", &f), 0100644);
	assert_true(f & PW_MODE_FILETYPE);
	eval("mode & S_IRUGO", &f);
	assert_true(f & PW_MODE_UNKNOWN);
	eval("a || b", &f);
	assert_true(f & PW_MODE_UNKNOWN);
	eval("", &f);
	assert_true(f & PW_MODE_UNKNOWN);
	eval("0648", &f);
	assert_true(f & PW_MODE_UNKNOWN);
}

static void mode_decimal_meant(void **state)
{
	struct pw_mode m;

	(void)state;
	pw_mode_eval("444", 3, PW_MODE_C, NULL, NULL, &m);
	assert_true(m.meant_valid);
	assert_int_equal(m.meant, 0444);
	pw_mode_eval("488", 3, PW_MODE_C, NULL, NULL, &m);
	assert_false(m.meant_valid);
	/* Hex of octal digits only: the octal number was meant. */
	pw_mode_eval("0x00444", 7, PW_MODE_C, NULL, NULL, &m);
	assert_int_equal(m.value, 0x444);
	assert_true(m.meant_valid);
	assert_int_equal(m.meant, 0444);
	pw_mode_eval("0x1a4", 5, PW_MODE_C, NULL, NULL, &m);
	assert_false(m.meant_valid);
	/* 0x4 is 04 either way: nothing else was meant. */
	pw_mode_eval("0x4", 3, PW_MODE_C, NULL, NULL, &m);
	assert_false(m.meant_valid);
	pw_mode_eval("0x444 | 0x2", 11, PW_MODE_C, NULL, NULL, &m);
	assert_false(m.meant_valid);
	pw_mode_eval("0o644", 5, PW_MODE_PYTHON, NULL, NULL, &m);
	assert_int_equal(m.value, 0644);
	assert_true(m.flags & PW_MODE_OCTAL);
	pw_mode_eval("0644", 4, PW_MODE_PYTHON, NULL, NULL, &m);
	assert_true(m.flags & PW_MODE_PY2_OCTAL);
	pw_mode_eval("stat.S_IRUSR | stat.S_IWUSR", 27, PW_MODE_PYTHON, NULL, NULL, &m);
	assert_int_equal(m.value, 0600);
	assert_false(m.flags & PW_MODE_UNKNOWN);
}

/* Modes the program decides: each value, what it depends on, octal. */
static void mode_conditions(void **state)
{
	static const struct {
		const char *expr;
		bool ok, vars;
		int nvals;
		unsigned v0, v1;
		const char *octal, *depends;
	} t[] = {
		{ "S_IRUGO | (is_writable ? S_IWUSR : 0)", true, false, 2, 0444, 0644,
		  "0444 | (is_writable ? 0200 : 0)", "is_writable" },
		{ "(umode_t)(w ? S_IWUSR : 0) | S_IRUSR | S_IRGRP", true, false, 2, 0440, 0640,
		  "(umode_t)(w ? 0200 : 0) | 0440", "w" },
		{ "a > 1 ? S_IRUGO | S_IWUSR : S_IRUGO", true, false, 2, 0444, 0644,
		  "a > 1 ? 0644 : 0444", "a > 1" },
		{ "attr->mode | S_IWUSR", true, true, 1, 0200, 0,
		  "attr->mode | 0200", "attr->mode" },
		{ "f(x, y)[2].m | S_IXUGO", true, true, 1, 0111, 0,
		  "f(x, y)[2].m | 0111", "f(x, y)[2].m" },
		/* Not such expressions: no condition, no variable, or an
		 * operator a mode expression does not use. */
		{ "S_IRUGO | S_IWUSR", false, false, 0, 0, 0, NULL, NULL },
		{ "mode & S_IWUSR", false, false, 0, 0, 0, NULL, NULL },
		{ "(mode & ~S_IWUGO) | S_IWUSR", false, false, 0, 0, 0, NULL, NULL },
		{ "a || S_IWUSR", false, false, 0, 0, 0, NULL, NULL },
		{ "w ? x : y", false, false, 0, 0, 0, NULL, NULL },
		{ "w ? S_IWUSR", false, false, 0, 0, 0, NULL, NULL },
	};
	struct pw_mode_cond c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool ok = pw_mode_eval_cond(t[i].expr, strlen(t[i].expr), NULL, NULL, &c);

		if (ok != t[i].ok)
			fail_msg("%s: %d", t[i].expr, ok);
		if (!ok)
			continue;
		assert_int_equal(c.vars, t[i].vars);
		assert_int_equal(c.nvals, t[i].nvals);
		assert_int_equal(c.vals[0], t[i].v0);
		if (c.nvals > 1)
			assert_int_equal(c.vals[1], t[i].v1);
		assert_string_equal(c.octal, t[i].octal);
		assert_string_equal(c.depends, t[i].depends);
		assert_true(c.flags & PW_MODE_SYMBOLIC);
		pw_mode_cond_release(&c);
	}
}

static void mode_perm_names(void **state)
{
	unsigned v, f;
	bool def;
	char *s;

	(void)state;
	assert_true(pw_mode_perm_decode("PERM_rw_r__r__", 14, &v, &def));
	assert_int_equal(v, 0644);
	assert_true(def);
	assert_true(pw_mode_perm_decode("PERM_r__r__rw_", 14, &v, &def));
	assert_int_equal(v, 0446);
	assert_false(def);
	assert_false(pw_mode_perm_decode("PERM_sr__r__r__", 15, &v, &def));
	assert_int_equal(eval("PERM_rwxr_xr_x", &f), 0755);
	assert_true(f & PW_MODE_PERM);
	eval("PERM_sr__r__r__", &f);
	assert_true(f & PW_MODE_PERM_UNDEF);
	s = pw_mode_spell_perm(0644);
	assert_string_equal(s, "PERM_rw_r__r__");
	g_free(s);
	assert_null(pw_mode_spell_perm(0446));
}

static void mode_render(void **state)
{
	char ls[10];
	char *s;

	(void)state;
	pw_mode_ls(0446, ls);
	assert_string_equal(ls, "r--r--rw-");
	pw_mode_ls(04755, ls);
	assert_string_equal(ls, "rwsr-xr-x");
	pw_mode_ls(04644, ls);
	assert_string_equal(ls, "rwSr--r--");
	pw_mode_ls(02755, ls);
	assert_string_equal(ls, "rwxr-sr-x");
	pw_mode_ls(02644, ls);
	assert_string_equal(ls, "rw-r-Sr--");
	pw_mode_ls(01777, ls);
	assert_string_equal(ls, "rwxrwxrwt");
	pw_mode_ls(01776, ls);
	assert_string_equal(ls, "rwxrwxrwT");
	s = pw_mode_describe(0446);
	assert_string_equal(s, "0446 (r--r--rw-)");
	g_free(s);
	s = pw_mode_describe(04444);
	assert_string_equal(s, "04444 (r-Sr--r--)");
	g_free(s);
	s = pw_mode_spell_symbolic(0644);
	assert_string_equal(s, "S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH");
	g_free(s);
	s = pw_mode_spell_symbolic(0750);
	assert_string_equal(s, "S_IRWXU | S_IRGRP | S_IXGRP");
	g_free(s);
	s = pw_mode_spell_octal(0100644);
	assert_string_equal(s, "S_IFREG | 0644");
	g_free(s);
}

static void sanitizer(void **state)
{
	const char *in = "a = \"0666\"; /* 0777 */ b = '7'; // S_IRUGO\nc = 1;";
	char out[64];

	(void)state;
	pw_text_sanitize_c(in, strlen(in), out, false);
	out[strlen(in)] = '\0';
	assert_null(strstr(out, "0666"));
	assert_null(strstr(out, "0777"));
	assert_null(strstr(out, "S_IRUGO"));
	assert_non_null(strstr(out, "c = 1;"));
	assert_int_equal(strchr(out, '\n') - out, strchr(in, '\n') - in);
	/* A hunk that starts inside a block comment. */
	in = " * chmod(p, 0777)\n */\nint x;";
	pw_text_sanitize_c(in, strlen(in), out, true);
	out[strlen(in)] = '\0';
	assert_null(strstr(out, "0777"));
	assert_non_null(strstr(out, "int x;"));
}

/* Runs the rules on a source string; returns the findings. */
static GPtrArray *check(const char *path, const char *src, enum pw_style style,
			const char *const *disabled, const char *const *enabled)
{
	GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)pw_finding_free);
	struct pw_check_opts o = { style, disabled, enabled, 0 };

	pw_check_source(path, src, strlen(src), &o, out);
	return out;
}

static struct pw_finding *at(GPtrArray *a, guint i)
{
	assert_true(i < a->len);
	return a->pdata[i];
}

static void continuation_line_and_column(void **state)
{
	GPtrArray *a = check("x.c",
		"void f(void)\n{\n\tdebugfs_create_file(\"b\",\n\t\t\t    0666, d, NULL, &fops);\n}\n",
		PW_STYLE_OCTAL, NULL, NULL);

	(void)state;
	assert_int_equal(a->len, 1);
	assert_string_equal(at(a, 0)->rule, "PERM_WORLD_WRITABLE");
	assert_int_equal(at(a, 0)->severity, PW_SEV_ERROR);
	assert_int_equal(at(a, 0)->line, 4);
	assert_int_equal(at(a, 0)->column, 8);
	assert_non_null(strstr(at(a, 0)->message, "0666 (rw-rw-rw-)"));
	g_ptr_array_free(a, TRUE);
}

static void symbolic_fix_and_mask(void **state)
{
	GPtrArray *a = check("x.c",
		"module_param(debug, int, S_IRUGO | S_IWUSR);\n"
		"if (imode & S_IXUGO)\n"
		"\treturn;\n",
		PW_STYLE_OCTAL, NULL, NULL);

	(void)state;
	assert_int_equal(a->len, 1);
	assert_string_equal(at(a, 0)->rule, "PERM_SYMBOLIC");
	assert_int_equal(at(a, 0)->column, 26);
	assert_string_equal(at(a, 0)->fix, "module_param(debug, int, 0644);");
	assert_string_equal(at(a, 0)->replacement, "0644");
	assert_int_equal(at(a, 0)->fix_from, 25);
	assert_int_equal(at(a, 0)->fix_to, 42);
	g_ptr_array_free(a, TRUE);
}

static void one_defect_one_finding(void **state)
{
	const char *const off[] = { "PERM_WORLD_WRITABLE", NULL };
	const char *const off2[] = { "PERM_WORLD_WRITABLE", "PERM_INVERTED", NULL };
	GPtrArray *a = check("x.c",
		"static DEVICE_ATTR(foo, S_IRUGO | S_IWUGO, foo_show, foo_store);\n",
		PW_STYLE_OCTAL, NULL, NULL);

	(void)state;
	assert_int_equal(a->len, 1);
	assert_string_equal(at(a, 0)->rule, "PERM_WORLD_WRITABLE");
	/* The world-writable finding names the octal spelling but carries
	 * no fix: 0666 would still be world-writable. */
	assert_non_null(strstr(at(a, 0)->message, "= 0666"));
	assert_null(at(a, 0)->replacement);
	g_ptr_array_free(a, TRUE);

	/*
	 * Switched off by ID, the next rule reports the same mode: here
	 * VERIFY_OCTAL_PERMISSIONS, then the house style.
	 */
	a = check("x.c",
		  "static DEVICE_ATTR(foo, S_IRUGO | S_IWUGO, foo_show, foo_store);\n",
		  PW_STYLE_OCTAL, off, NULL);
	assert_int_equal(a->len, 1);
	assert_string_equal(at(a, 0)->rule, "PERM_INVERTED");
	assert_null(strstr(at(a, 0)->message, "others can write to"));
	g_ptr_array_free(a, TRUE);
	a = check("x.c",
		  "static DEVICE_ATTR(foo, S_IRUGO | S_IWUGO, foo_show, foo_store);\n",
		  PW_STYLE_OCTAL, off2, NULL);
	/* With no value rule on, the mode is also one no DEVICE_ATTR_
	 * form has (checkpatch.pl's DEVICE_ATTR_PERMS), a finding of its
	 * own. */
	assert_int_equal(a->len, 2);
	assert_string_equal(at(a, 0)->rule, "PERM_SYMBOLIC");
	assert_string_equal(at(a, 1)->rule, "DEVICE_ATTR_FORM");
	assert_non_null(strstr(at(a, 1)->message, "an unusual mode for a sysfs attribute"));
	g_ptr_array_free(a, TRUE);
}

static void styles(void **state)
{
	GPtrArray *a;

	(void)state;
	a = check("x.c", "module_param(d, int, 0644);\n", PW_STYLE_PERM_MACROS, NULL, NULL);
	assert_int_equal(a->len, 1);
	assert_string_equal(at(a, 0)->rule, "PERM_STYLE");
	assert_string_equal(at(a, 0)->replacement, "PERM_rw_r__r__");
	g_ptr_array_free(a, TRUE);

	a = check("x.c", "module_param(d, int, PERM_r__r__rw_);\n", PW_STYLE_PERM_MACROS,
		  NULL, NULL);
	assert_int_equal(a->len, 1);
	assert_string_equal(at(a, 0)->rule, "PERM_MACRO_UNDEFINED");
	g_ptr_array_free(a, TRUE);

	a = check("x.c", "module_param(d, int, S_IRUGO);\n", PW_STYLE_SYMBOLIC, NULL, NULL);
	assert_int_equal(a->len, 0);
	g_ptr_array_free(a, TRUE);

	a = check("x.c", "module_param(d, int, 0444);\n", PW_STYLE_SYMBOLIC, NULL, NULL);
	assert_int_equal(a->len, 1);
	assert_string_equal(at(a, 0)->replacement, "S_IRUSR | S_IRGRP | S_IROTH");
	g_ptr_array_free(a, TRUE);
}

static void false_positives_avoided(void **state)
{
	GPtrArray *a = check("x.c",
		"debugfs_create_file(\"a\", 0, d, NULL, &fops);\n"
		"debugfs_create_u32(\"r2\", 0444, dir, &z_regs[0002]);\n"
		"fd = open(p, O_CREAT | O_WRONLY, 0666);\n"
		"x = \"chmod(p, 0777)\";\n"
		"spi->mode = 3;\n"
		"ops->mkdir(dir, 0777);\n",
		PW_STYLE_OCTAL, NULL, NULL);

	(void)state;
	assert_int_equal(a->len, 0);
	g_ptr_array_free(a, TRUE);
}

static void verify_octal_permissions(void **state)
{
	GPtrArray *a = check("x.c",
		"module_param(a, int, 0464);\n"
		"debugfs_create_u8(\"b\", 0464, d, &b);\n"
		"static struct kobj_attribute c = __ATTR(c, 01444, c_show, NULL);\n",
		PW_STYLE_OCTAL, NULL, NULL);

	(void)state;
	assert_int_equal(a->len, 3);
	assert_string_equal(at(a, 0)->rule, "PERM_INVERTED");
	assert_int_equal(at(a, 0)->severity, PW_SEV_ERROR);
	assert_string_equal(at(a, 1)->rule, "PERM_INVERTED");
	assert_int_equal(at(a, 1)->severity, PW_SEV_WARNING);
	assert_string_equal(at(a, 2)->rule, "PERM_SPECIAL_BITS");
	assert_string_equal(at(a, 2)->replacement, "0444");
	g_ptr_array_free(a, TRUE);
}

static void sysfs_callbacks_and_forms(void **state)
{
	GPtrArray *a = check("x.c",
		"static DEVICE_ATTR(x, 0644, x_show, NULL);\n"
		"static DEVICE_ATTR(y, 0444, y_show, NULL);\n",
		PW_STYLE_OCTAL, NULL, NULL);

	(void)state;
	assert_int_equal(a->len, 2);
	assert_string_equal(at(a, 0)->rule, "SYSFS_MODE_CALLBACKS");
	/* The mode that agrees with the callbacks, never 0644 again. */
	assert_string_equal(at(a, 0)->fix, "static DEVICE_ATTR(x, 0444, x_show, NULL);");
	assert_string_equal(at(a, 1)->rule, "DEVICE_ATTR_FORM");
	assert_string_equal(at(a, 1)->fix, "static DEVICE_ATTR_RO(y);");
	g_ptr_array_free(a, TRUE);
}

static void other_languages(void **state)
{
	GPtrArray *a;

	(void)state;
	a = check("x.sh", "chmod 4755 /usr/bin/x\n# chmod 777 in a comment\ninstall -m 644 a b\n",
		  PW_STYLE_OCTAL, NULL, NULL);
	assert_int_equal(a->len, 1);
	assert_string_equal(at(a, 0)->rule, "PERM_SPECIAL_BITS");
	g_ptr_array_free(a, TRUE);

	a = check("x.py", "import os\nos.chmod(p, 644)\nos.umask(0)\n", PW_STYLE_OCTAL, NULL, NULL);
	assert_int_equal(a->len, 2);
	assert_string_equal(at(a, 0)->rule, "PERM_NOT_OCTAL");
	assert_string_equal(at(a, 0)->replacement, "0o644");
	assert_string_equal(at(a, 1)->rule, "PERM_WORLD_WRITABLE");
	g_ptr_array_free(a, TRUE);

	a = check("Makefile", "install:\n\t$(INSTALL) -m 0666 x $(DESTDIR)/x\n",
		  PW_STYLE_OCTAL, NULL, NULL);
	assert_int_equal(a->len, 1);
	assert_int_equal(at(a, 0)->line, 2);
	g_ptr_array_free(a, TRUE);

	a = check("x.sh", "echo chmod 777 x\nsudo chmod 666 y\n$(Q)chmod a+w z\n",
		  PW_STYLE_OCTAL, NULL, NULL);
	assert_int_equal(a->len, 2);
	assert_int_equal(at(a, 0)->line, 2);
	assert_int_equal(at(a, 0)->column, 12);
	assert_int_equal(at(a, 1)->line, 3);
	g_ptr_array_free(a, TRUE);

	a = check("README", "chmod 777 x\n", PW_STYLE_OCTAL, NULL, NULL);
	assert_int_equal(a->len, 0);
	g_ptr_array_free(a, TRUE);
}

static void patch_only_added_lines(void **state)
{
	const char *diff =
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,4 +1,4 @@\n"
		" module_param(a, int, 0666);\n"
		" debugfs_create_file(\"b\",\n"
		"-\t\t0644, d, NULL, &f);\n"
		"+\t\t0646, d, NULL, &f);\n"
		" int z;\n";
	struct pw_patch *p = pw_diff_parse(diff, strlen(diff));
	GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify)pw_finding_free);
	struct pw_check_opts o = { PW_STYLE_OCTAL, NULL, NULL, 0 };

	(void)state;
	pw_check_patch(p, &o, a);
	assert_int_equal(a->len, 1);
	assert_int_equal(at(a, 0)->line, 3);
	assert_int_equal(at(a, 0)->column, 3);
	assert_int_equal(at(a, 0)->patch_no, 8);
	assert_string_equal(at(a, 0)->file, "x.c");
	assert_non_null(strstr(at(a, 0)->message, "0646 (rw-r--rw-)"));
	g_ptr_array_free(a, TRUE);
	pw_patch_free(p);
}

static void table(void **state)
{
	size_t n, i;
	const struct pw_rule *r = pw_rules(&n);
	enum pw_style s;

	(void)state;
	assert_true(n >= 16);
	for (i = 0; i < n; i++)
		assert_ptr_equal(pw_rule_find(r[i].id), &r[i]);
	assert_null(pw_rule_find("NO_SUCH_RULE"));
	assert_false(pw_rule_find("PERM_UNCOMMON")->default_on);
	assert_true(pw_style_parse("perm-macros", &s));
	assert_int_equal(s, PW_STYLE_PERM_MACROS);
	assert_false(pw_style_parse("hex", &s));
	assert_string_equal(pw_style_str(PW_STYLE_SYMBOLIC), "symbolic");
}

/* Rule switches: defaults, --enable and --disable by ID, any case. */
static void switches(void **state)
{
	const char *const off[] = { "flood", "PERM_SYMBOLIC", NULL };
	const char *const on[] = { "PERM_UNCOMMON", NULL };
	struct pw_check_opts o = { PW_STYLE_OCTAL, off, on, 0 };

	(void)state;
	assert_true(pw_rule_on(NULL, PW_R_FLOOD));
	assert_false(pw_rule_on(NULL, PW_R_PERM_UNCOMMON));
	assert_false(pw_rule_on(&o, PW_R_FLOOD));
	assert_false(pw_rule_on(&o, PW_R_PERM_SYMBOLIC));
	assert_true(pw_rule_on(&o, PW_R_FLOOD_SERIES));
	assert_true(pw_rule_on(&o, PW_R_PERM_UNCOMMON));
	assert_string_equal(pw_rule_at(PW_R_SERIES_OVERSIZED)->id,
			    "SERIES_OVERSIZED");
	assert_ptr_equal(pw_rule_find("resend_identical"),
			 pw_rule_at(PW_R_RESEND_IDENTICAL));
}

/* The flood rules: which rule and severity the facts make, and the words. */
static void flood_wording(void **state)
{
	struct pw_resend_facts rf = { .orig_msgid = "a@example.org",
				      .orig_date = 1767225600,
				      .date = 1767225600 + 3600,
				      .version = 1, .same_subject = true,
				      .same_body = true,
				      .same_recipients = true };
	char *t;

	(void)state;
	/* Most under cover letters: FLOOD_SERIES, info whatever its size
	 * (separate series, each under its cover letter). */
	assert_int_equal(pw_flood_rank(20, 20, 11), PW_FLOOD_RANK_SERIES);
	assert_int_equal(pw_flood_rank(100, 100, 51), PW_FLOOD_RANK_TREEWIDE);
	assert_int_equal(pw_flood_rank(20, 11, 0), PW_FLOOD_RANK_CHAINED);
	assert_int_equal(pw_flood_rank(20, 10, 0), PW_FLOOD_RANK_SEPARATE);
	assert_int_equal(pw_flood_rule(PW_FLOOD_RANK_TREEWIDE), PW_R_FLOOD_SERIES);
	assert_int_equal(pw_flood_rule(PW_FLOOD_RANK_CHAINED), PW_R_FLOOD);
	assert_int_equal(pw_flood_severity(PW_FLOOD_RANK_SERIES), PW_SEV_INFO);
	assert_int_equal(pw_flood_severity(PW_FLOOD_RANK_TREEWIDE), PW_SEV_INFO);
	assert_int_equal(pw_flood_severity(PW_FLOOD_RANK_CHAINED), PW_SEV_WARNING);
	assert_int_equal(pw_flood_severity(PW_FLOOD_RANK_SEPARATE), PW_SEV_ERROR);
	t = pw_flood_message(PW_FLOOD_RANK_SEPARATE, "b@example.org", 7);
	assert_non_null(strstr(t, "from b@example.org, each sent on its own"));
	assert_non_null(strstr(t, "(flood 7)"));
	g_free(t);
	t = pw_flood_message(PW_FLOOD_RANK_SERIES, "b@example.org", 7);
	assert_non_null(strstr(t, "many separate series"));
	g_free(t);

	/* A lone copy an hour later, to the same people: sent twice. */
	assert_int_equal(pw_resend_kind(&rf), PW_RESEND_TWICE);
	assert_int_equal(pw_resend_severity(PW_RESEND_TWICE), PW_SEV_WARNING);
	t = pw_resend_message(PW_RESEND_TWICE, &rf);
	assert_string_equal(t, "sent twice: the same patch as <a@example.org>"
			    " went to the same recipients 60 minutes earlier"
			    " under another Message-ID; say which copy to"
			    " review, so that replies go to one");
	g_free(t);
	/* To others: a cross-post made of separate copies. */
	rf.same_recipients = false;
	assert_int_equal(pw_resend_kind(&rf), PW_RESEND_ELSEWHERE);
	t = pw_resend_message(PW_RESEND_ELSEWHERE, &rf);
	assert_non_null(strstr(t, "to other recipients"));
	assert_non_null(strstr(t, "one message with all of them in To and Cc"));
	g_free(t);
	rf.same_recipients = true;
	/* Marked RESEND: announced, info. */
	rf.resend = true;
	assert_int_equal(pw_resend_kind(&rf), PW_RESEND_MARKED);
	assert_int_equal(pw_resend_severity(PW_RESEND_MARKED), PW_SEV_INFO);
	t = pw_resend_message(PW_RESEND_MARKED, &rf);
	assert_string_equal(t, "resends (marked RESEND) the change of"
			    " <a@example.org> of 2026-01-01, unchanged");
	g_free(t);
	rf.resend = false;
	/* A day later, unchanged, unmarked: info. */
	rf.date = rf.orig_date + PW_FLOOD_TWICE;
	assert_int_equal(pw_resend_kind(&rf), PW_RESEND_UNMARKED);
	assert_int_equal(pw_resend_severity(PW_RESEND_UNMARKED), PW_SEV_INFO);
	/* A changed description, the same version: a v2 not called so. */
	rf.same_body = false;
	assert_int_equal(pw_resend_kind(&rf), PW_RESEND_UNVERSIONED);
	t = pw_resend_message(PW_RESEND_UNVERSIONED, &rf);
	assert_non_null(strstr(t, "changed commit message but the same"
			       " version: a changed patch is a new version"
			       " ([PATCH v2])"));
	g_free(t);
	rf.same_body = true;
	/* Patches of series: only a double send with the same series. */
	rf.total = rf.orig_total = 5;
	rf.date = rf.orig_date + 600;
	assert_int_equal(pw_resend_kind(&rf), PW_RESEND_SERIES_TWICE);
	assert_int_equal(pw_resend_severity(PW_RESEND_SERIES_TWICE), PW_SEV_INFO);
	rf.date = rf.orig_date + PW_FLOOD_SERIES_TWICE;
	assert_int_equal(pw_resend_kind(&rf), PW_RESEND_NONE);
	rf.date = rf.orig_date + 600;
	rf.total = 4;
	assert_int_equal(pw_resend_kind(&rf), PW_RESEND_NONE);
	rf.total = 0;
	assert_int_equal(pw_resend_kind(&rf), PW_RESEND_NONE);

	/* "[PATCH 0014/1285]": oversized, a warning unless threaded. */
	assert_true(pw_oversized(true, 1285));
	assert_false(pw_oversized(true, 99));
	assert_false(pw_oversized(false, 1285));
	assert_int_equal(pw_oversized_severity(false), PW_SEV_WARNING);
	assert_int_equal(pw_oversized_severity(true), PW_SEV_INFO);
	t = pw_oversized_message(14, 1285, false);
	assert_non_null(strstr(t, "counts 1285 patches in this series"
			       " ([PATCH 14/1285])"));
	assert_non_null(strstr(t, "thread it under a cover letter"));
	g_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mode_values),
		cmocka_unit_test(mode_decimal_meant),
		cmocka_unit_test(mode_conditions),
		cmocka_unit_test(mode_perm_names),
		cmocka_unit_test(mode_render),
		cmocka_unit_test(sanitizer),
		cmocka_unit_test(continuation_line_and_column),
		cmocka_unit_test(symbolic_fix_and_mask),
		cmocka_unit_test(one_defect_one_finding),
		cmocka_unit_test(styles),
		cmocka_unit_test(false_positives_avoided),
		cmocka_unit_test(verify_octal_permissions),
		cmocka_unit_test(sysfs_callbacks_and_forms),
		cmocka_unit_test(other_languages),
		cmocka_unit_test(patch_only_added_lines),
		cmocka_unit_test(table),
		cmocka_unit_test(switches),
		cmocka_unit_test(flood_wording),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
