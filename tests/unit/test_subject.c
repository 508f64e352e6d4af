/*
 * Unit tests for checks/subject.c: subject markers (patchwork's
 * SubjectTest forms), the stripped subject (git mailinfo's
 * cleanup_subject), and the one list of reply and forward markers that
 * the flood fingerprint reads too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/fingerprint.h"
#include "checks/message.h"

struct subj_case {
	const char *subject;
	const char *clean;
	int version, number, total;
	bool counter, rfc, reply, patch;
	const char *prefixes;
};

static const struct subj_case subj_cases[] = {
	{ "[PATCH] foo: fix bar", "foo: fix bar", 1, 0, 0, false, false, false, true, "" },
	{ "[PATCH v3 2/7] mm: x", "mm: x", 3, 2, 7, true, false, false, true, "" },
	{ "[RFC PATCH net-next 0/3] net: y", "net: y", 1, 0, 3, true, true, false, true, "RFC,net-next" },
	{ "[PATCH 3/2] extra", "extra", 1, 3, 2, true, false, false, true, "" },
	{ "[PATCH net-next v3 0/4] igb: z (v3)", "igb: z (v3)", 3, 0, 4, true, false, false, true, "net-next" },
	{ "[PATCH] foo (v2)", "foo (v2)", 2, 0, 0, false, false, false, true, "" },
	{ "[PATCH 1 of 3] hg style", "hg style", 1, 1, 3, true, false, false, true, "" },
	{ "[PATCH 0 of 2] hg cover", "hg cover", 1, 0, 2, true, false, false, true, "" },
	{ "[net,v2,1/2] tcp: q", "tcp: q", 2, 1, 2, true, false, false, false, "net" },
	{ "[PATCH] [RFC] [1/2] meep", "meep", 1, 1, 2, true, true, false, true, "RFC" },
	{ "[PATCH RFC 1/2] meep", "meep", 1, 1, 2, true, true, false, true, "RFC" },
	{ "[PATCH1/8] glued", "glued", 1, 1, 8, true, false, false, true, "" },
	{ "[v2PATCH1/4] glued", "glued", 2, 1, 4, true, false, false, true, "" },
	{ "[PATCHv4 1/2] glued version", "glued version", 4, 1, 2, true, false, false, true, "" },
	{ "[PATCH V6 05/10] upper V", "upper V", 6, 5, 10, true, false, false, true, "" },
	{ "[PATCH v10] ten", "ten", 10, 0, 0, false, false, false, true, "" },
	{ "[PATCH] rewrite [a-z] regexes", "rewrite [a-z] regexes", 1, 0, 0, false, false, false, true, "" },
	{ "Re: [PATCH 1/2] foo", "foo", 1, 1, 2, true, false, true, true, "" },
	{ "RE: [PATCH] foo", "foo", 1, 0, 0, false, false, true, true, "" },
	{ "re: foo", "foo", 1, 0, 0, false, false, true, false, "" },
	{ "Aw: [PATCH] foo", "Aw: [PATCH] foo", 1, 0, 0, false, false, true, true, "" },
	{ "Re: Re: [PATCH v2] x", "x", 2, 0, 0, false, false, true, true, "" },
	{ "[notmuch] [PATCH 1/2] Close file", "Close file", 1, 1, 2, true, false, false, true, "notmuch" },
	{ "[RFC][PATCH 00/10] cifs: cache", "cifs: cache", 1, 0, 10, true, true, false, true, "RFC" },
	{ "[Patch 2/2]: powerpc", "powerpc", 1, 2, 2, true, false, false, true, "" },
	{ "[PATCH RESEND v2 4/5] r", "r", 2, 4, 5, true, false, false, true, "RESEND" },
	{ "[PATCH -next] bpf: a", "bpf: a", 1, 0, 0, false, false, false, true, "-next" },
	{ "  [PATCH]   folded \t  spaces  ", "folded spaces", 1, 0, 0, false, false, false, true, "" },
	{ "plain subject", "plain subject", 1, 0, 0, false, false, false, false, "" },
	{ "", "", 1, 0, 0, false, false, false, false, "" },
	{ "[unclosed bracket", "[unclosed bracket", 1, 0, 0, false, false, false, false, "" },
};

static void subjects(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(subj_cases) / sizeof(subj_cases[0]); i++) {
		const struct subj_case *c = &subj_cases[i];
		struct pw_subject_tags t;
		char *clean = pw_subject_parse(c->subject, &t);

		if (strcmp(clean, c->clean) || t.version != c->version ||
		    t.number != c->number || t.total != c->total ||
		    strcmp(t.prefixes, c->prefixes))
			print_message("# subject \"%s\": got \"%s\" v%d %d/%d [%s]\n",
				      c->subject, clean, t.version, t.number,
				      t.total, t.prefixes);
		assert_string_equal(clean, c->clean);
		assert_int_equal(t.version, c->version);
		assert_int_equal(t.number, c->number);
		assert_int_equal(t.total, c->total);
		assert_int_equal(t.has_counter, c->counter);
		assert_int_equal(t.rfc, c->rfc);
		assert_int_equal(t.is_reply, c->reply);
		assert_int_equal(t.patch_tag, c->patch);
		assert_string_equal(t.prefixes, c->prefixes);
		g_free(clean);
		pw_subject_tags_release(&t);
	}
}

static void markers(void **state)
{
	static const struct { const char *s; size_t n; bool reply; } c[] = {
		{ "Re: x", 3, true }, { "RE: x", 3, true }, { "aw: x", 3, true },
		{ "Sv: x", 3, true }, { "Antw: x", 5, true },
		{ "Fwd: x", 4, false }, { "FW: x", 3, false },
		{ "Rex: x", 0, false }, { "Re : x", 0, false }, { "re", 0, false },
		{ "Resend: x", 0, false }, { "", 0, false },
		/* Outlook, Foxmail and others, localised (a real linux-usb
		 * "答复: [PATCH v2] usb: gadget: uvc: ...") */
		{ "\xe7\xad\x94\xe5\xa4\x8d: x", 7, true },		/* 答复: */
		{ "\xe5\x9b\x9e\xe5\xa4\x8d\xef\xbc\x9ax", 9, true },	/* 回复： */
		{ "\xe5\x9b\x9e\xe8\xa6\x86: x", 7, true },		/* 回覆: */
		{ "VS: x", 3, true }, { "Odp: x", 4, true }, { "RES: x", 4, true },
		{ "Ynt: x", 4, true }, { "Atb: x", 4, true }, { "Odg: x", 4, true },
		{ "V\xc3\xa1: x", 4, true }, { "V\xc3\x81: x", 4, true },	/* Vá: VÁ: */
		{ "\xce\x91\xce\xa0: x", 5, true },			/* ΑΠ: */
		{ "\xce\xa3\xcf\x87\xce\xb5\xcf\x84: x", 9, true },	/* Σχετ: */
		{ "\xd0\x9e\xd1\x82\xd0\xb2: x", 7, true },		/* Отв: */
		{ "\xd0\x9e\xd0\xa2\xd0\x92: x", 7, true },		/* ОТВ: */
		{ "\xd7\xaa\xd7\xa9\xd7\x95\xd7\x91\xd7\x94: x", 11, true }, /* תשובה: */
		{ "\xd8\xb1\xd8\xaf: x", 5, true },			/* رد: */
		{ "Re[2]: x", 6, true }, { "Re^2: x", 5, true }, { "Re(3): x", 6, true },
		{ "AW\xef\xbc\x9a x", 5, true }, { "Re[]: x", 0, false },
		{ "Re[2: x", 0, false }, { "Re^: x", 0, false },
		{ "WG: x", 3, false }, { "TR: x", 3, false }, { "RV: x", 3, false },
		{ "VB: x", 3, false }, { "Doorst: x", 7, false }, { "PD: x", 3, false },
		{ "Enc: x", 4, false }, { "Fw: x", 3, false },
		{ "\xe8\xbd\xac\xe5\x8f\x91: x", 7, false },		/* 转发: */
		{ "\xe8\xbd\x89\xe5\xaf\x84: x", 7, false },		/* 轉寄: */
		{ "\xe7\xad\x94: x", 0, false }, { "\xe7\xad: x", 0, false },
		{ "Vsx: x", 0, false }, { "Antwort: x", 0, false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(c); i++) {
		bool reply = false;

		assert_int_equal(pw_subject_marker(c[i].s, &reply), c[i].n);
		assert_int_equal(reply, c[i].reply);
	}
}

static void on_group(const char *s, size_t n, void *data)
{
	GString *groups = data;

	g_string_append_c(groups, '|');
	g_string_append_len(groups, s, (gssize)n);
}

static void leading(void **state)
{
	GString *groups = g_string_new(NULL);
	bool reply = false;
	const char *rest;

	(void)state;
	rest = pw_subject_skip(" [list] Re: [PATCH 1/2]\t[net] Fwd: foo [bar]",
			       &reply, on_group, groups);
	assert_string_equal(rest, "foo [bar]");
	assert_true(reply);
	assert_string_equal(groups->str, "|list|PATCH 1/2|net");

	reply = false;
	g_string_truncate(groups, 0);
	rest = pw_subject_skip("Fwd: [unclosed", &reply, on_group, groups);
	assert_string_equal(rest, "[unclosed");
	assert_false(reply);
	assert_string_equal(groups->str, "");
	assert_string_equal(pw_subject_skip("plain", NULL, NULL, NULL), "plain");
	/* A no-break space before the marker (Outlook; a real linux-hwmon
	 * patch, " [PATCH] hwmon: add driver for ARCTIC Fan Controller")
	 * is space; a byte that starts no character is text. */
	g_string_truncate(groups, 0);
	rest = pw_subject_skip("\xc2\xa0[PATCH] hwmon: add driver", NULL,
			       on_group, groups);
	assert_string_equal(rest, "hwmon: add driver");
	assert_string_equal(groups->str, "|PATCH");
	assert_string_equal(pw_subject_skip("\xc2[PATCH] x", NULL, NULL, NULL),
			    "\xc2[PATCH] x");
	/* A localised reply leads; a short localised word after the
	 * [PATCH] group is the subject's text (a subsystem "res:"). */
	reply = false;
	rest = pw_subject_skip("\xe7\xad\x94\xe5\xa4\x8d: [PATCH v2] usb: x", &reply,
			       NULL, NULL);
	assert_string_equal(rest, "usb: x");
	assert_true(reply);
	reply = false;
	rest = pw_subject_skip("[PATCH] res: fix a leak", &reply, NULL, NULL);
	assert_string_equal(rest, "res: fix a leak");
	assert_false(reply);
	reply = false;
	rest = pw_subject_skip("[PATCH] Re: fix a leak", &reply, NULL, NULL);
	assert_true(reply);
	g_string_free(groups, TRUE);
}

/*
 * Every marker that the subject parser reads as a reply or forward, the
 * flood fingerprint strips too, and both stop at the same text; the
 * flood's own additions ("Resend:", a bare PATCH counter) come on top.
 */
static void flood_reads_the_same_markers(void **state)
{
	static const char *const lead[] = {
		"Re:", "RE:", "Aw:", "AW:", "Sv:", "Antw:", "Fwd:", "Fw:",
		"[list] Re:", "Re: Re:", "Resend:", "PATCH 3/7:",
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(lead); i++) {
		char *subject = g_strdup_printf("%s [PATCH v2 3/7] Foo: Bar", lead[i]);
		char *norm = pw_flood_subject_normalise(subject);

		assert_string_equal(norm, "foo: bar");
		g_free(norm);
		g_free(subject);
	}
}

static void stable_tags(void **state)
{
	(void)state;
	/* Stable review and AUTOSEL series are the stable process's. */
	assert_true(pw_subject_stable_tags("5.4"));
	assert_true(pw_subject_stable_tags("AUTOSEL,5.6"));
	assert_true(pw_subject_stable_tags("4.19.y"));
	assert_true(pw_subject_stable_tags("net,6.1-stable"));
	assert_false(pw_subject_stable_tags(""));
	assert_false(pw_subject_stable_tags("net-next,RFC"));
	assert_false(pw_subject_stable_tags("linux dev-5.15"));
	assert_false(pw_subject_stable_tags("v2"));
	assert_false(pw_subject_stable_tags("2"));
	assert_false(pw_subject_stable_tags("5."));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(subjects),
		cmocka_unit_test(markers),
		cmocka_unit_test(leading),
		cmocka_unit_test(flood_reads_the_same_markers),
		cmocka_unit_test(stable_tags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
