/*
 * Unit tests for checks/lineage.c: which earlier series a new one
 * follows, the clues read from mail (b4's change-id, changelog links,
 * subject keys), a patch's state as events come, and what a reply's text
 * decides; no store.  The replies' wording is the linux-hwmon
 * maintainer's (tests/corpus/README.md, lineage).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "checks/lineage.h"

#define ANN "ann@example.org"
#define BOB "bob@example.org"

static struct pw_lineage_series series(int64_t id, const char *name,
				       const char *from, int version,
				       int64_t date)
{
	struct pw_lineage_series s = { .id = id, .name = name,
				       .from_addr = from, .version = version,
				       .date = date };

	return s;
}

static void order(void **state)
{
	struct pw_lineage_series v1 = series(1, "x", ANN, 1, 100);
	struct pw_lineage_series v2 = series(2, "x", ANN, 2, 50);
	struct pw_lineage_series copy = series(3, "x", ANN, 1, 200);
	struct pw_lineage_series same = series(4, "x", ANN, 1, 200);

	/* The version first: a v2 dated before its v1 still follows it. */
	assert_true(pw_lineage_before(&v1, &v2));
	assert_false(pw_lineage_before(&v2, &v1));
	/* The same version sent again follows its original. */
	assert_true(pw_lineage_before(&v1, &copy));
	assert_true(pw_lineage_before(&copy, &same));
	assert_false(pw_lineage_before(&same, &copy));
}

/* A lineage that signed mail started joins only its signer's signed mail. */
static void signed_lineage(void **state)
{
	struct pw_lineage_series v1 = series(1, "hwmon: add x", ANN, 1, 100);
	struct pw_lineage_series v2 = series(2, "hwmon: add x", BOB, 2, 200);

	v1.change_id = v2.change_id = "20240101-x-0123abcd";
	v1.same_subject = v1.linked = true;
	/* Neither signed: any evidence, as before. */
	assert_int_equal(pw_lineage_evidence(&v2, &v1), PW_LINEAGE_CHANGE_ID);
	/* Ann's v1 signed: Bob's unsigned v2, nor his signed one. */
	v1.signer = ANN;
	assert_int_equal(pw_lineage_evidence(&v2, &v1), PW_LINEAGE_NONE);
	v2.dkim = true;
	v2.signer = BOB;
	assert_int_equal(pw_lineage_evidence(&v2, &v1), PW_LINEAGE_NONE);
	/* Ann's own, unsigned: no; signed: yes. */
	v2.from_addr = ANN;
	v2.signer = ANN;
	v2.dkim = false;
	assert_int_equal(pw_lineage_evidence(&v2, &v1), PW_LINEAGE_NONE);
	v2.dkim = true;
	assert_int_equal(pw_lineage_evidence(&v2, &v1), PW_LINEAGE_CHANGE_ID);
	/* A lineage of two signers takes no one's. */
	v1.signer = "";
	assert_int_equal(pw_lineage_evidence(&v2, &v1), PW_LINEAGE_NONE);
	/* Ann's signed v1 adopts no lineage of Bob's unsigned v2 stored
	 * first (its later versions would supersede hers)... */
	v1 = series(1, "hwmon: add x", ANN, 1, 100);
	v2 = series(2, "hwmon: add x", BOB, 2, 50);
	v1.change_id = v2.change_id = "20240101-x-0123abcd";
	v1.dkim = true;
	v1.signer = ANN;
	assert_int_equal(pw_lineage_follows(&v1, &v2), PW_LINEAGE_NONE);
	/* ...but her own signed v2, yes. */
	v2.from_addr = ANN;
	v2.signer = ANN;
	assert_int_equal(pw_lineage_follows(&v1, &v2), PW_LINEAGE_CHANGE_ID);
}

static void pick(void **state)
{
	struct pw_lineage_series s = series(10, "hwmon: add x", ANN, 3, 1000);
	struct pw_lineage_series c[5];
	enum pw_lineage_how how;

	c[0] = series(1, "hwmon: add x", ANN, 1, 100);
	c[1] = series(2, "HWMON: Add X", ANN, 2, 200);
	c[2] = series(3, "hwmon: add x", BOB, 2, 300);	/* another sender */
	c[3] = series(4, "hwmon: add x", ANN, 4, 900);	/* a later version */
	c[4] = series(5, "other", ANN, 1, 50);
	/* The newest earlier version of the same sender and subject. */
	assert_int_equal(pw_lineage_pick(&s, c, 5, &how), 1);
	assert_int_equal(how, PW_LINEAGE_SUBJECT);
	assert_string_equal(pw_lineage_how_name(how), "subject");
	/* A reply to another sender's series is no evidence; a reply to
	 * one's own is, and outranks the subject. */
	c[2].replied = true;
	c[4].replied = true;
	assert_int_equal(pw_lineage_pick(&s, c, 5, &how), 4);
	assert_int_equal(how, PW_LINEAGE_REPLY);
	/* Threaded under a patch of the same version: one posting. */
	c[4].version = 3;
	assert_int_equal(pw_lineage_pick(&s, c, 5, &how), 1);
	assert_int_equal(how, PW_LINEAGE_SUBJECT);
	c[4].version = 1;
	/* A changelog link, whoever sent the version it names. */
	c[2].linked = true;
	assert_int_equal(pw_lineage_pick(&s, c, 5, &how), 2);
	assert_int_equal(how, PW_LINEAGE_LINK);
	/* b4's change-id outranks them all. */
	s.change_id = "20240101-x-0123";
	c[0].change_id = "20240101-x-0123";
	assert_int_equal(pw_lineage_pick(&s, c, 5, &how), 0);
	assert_int_equal(how, PW_LINEAGE_CHANGE_ID);
	/* Nothing later than s, nothing of its own id: the first. */
	assert_int_equal(pw_lineage_pick(&s, &c[3], 1, &how), -1);
	assert_int_equal(how, PW_LINEAGE_NONE);
	assert_string_equal(pw_lineage_how_name(how), "first");
	c[0].id = 10;
	assert_int_equal(pw_lineage_pick(&s, c, 1, &how), -1);
}

static void copies(void **state)
{
	struct pw_lineage_series s = series(10, "renamed", ANN, 1, 1000);
	struct pw_lineage_series c = series(1, "original", ANN, 1, 100);
	enum pw_lineage_how how;

	/* The same diff under a new subject: a copy that corrects it. */
	c.same_diff = true;
	assert_int_equal(pw_lineage_pick(&s, &c, 1, &how), 0);
	assert_int_equal(how, PW_LINEAGE_COPY);
	/* Not of a series: one patch of it sent alone is no new version
	 * of the whole. */
	c.total = 5;
	assert_int_equal(pw_lineage_pick(&s, &c, 1, &how), -1);
	c.total = 0;
	c.from_addr = BOB;
	assert_int_equal(pw_lineage_pick(&s, &c, 1, &how), -1);
	/* A patch's subject key shared with another series of its sender. */
	c.from_addr = ANN;
	c.same_diff = false;
	c.same_subject = true;
	assert_int_equal(pw_lineage_pick(&s, &c, 1, &how), 0);
	assert_int_equal(how, PW_LINEAGE_SUBJECT);
}

static void out_of_order(void **state)
{
	struct pw_lineage_series v1 = series(1, "x", ANN, 1, 100);
	struct pw_lineage_series v2 = series(2, "hwmon: x", ANN, 2, 200);

	/* v1 arrives after v2: v2 follows it by what works both ways. */
	assert_int_equal(pw_lineage_follows(&v1, &v2), PW_LINEAGE_NONE);
	v2.same_subject = true;
	assert_int_equal(pw_lineage_follows(&v1, &v2), PW_LINEAGE_SUBJECT);
	/* v1 does not follow v2. */
	assert_int_equal(pw_lineage_evidence(&v1, &v2), PW_LINEAGE_NONE);
	/* A reply is one way only: v1 answering v2 says nothing. */
	v2.same_subject = false;
	v2.replied = true;
	assert_int_equal(pw_lineage_follows(&v1, &v2), PW_LINEAGE_NONE);
	v1.change_id = v2.change_id = "20240101-x-1";
	assert_int_equal(pw_lineage_follows(&v1, &v2), PW_LINEAGE_CHANGE_ID);
}

/* Whether a and b (keys) share one. */
static bool share(char **a, char **b)
{
	size_t i, j;

	for (i = 0; a[i]; i++)
		for (j = 0; b[j]; j++)
			if (!strcmp(a[i], b[j]))
				return true;
	return false;
}

static void subject_keys(void **state)
{
	static const char *const subjects[] = {
		"[PATCH] hwmon: (pmbus) Add driver for STMicroelectronics"
		" PM6764 Voltage Regulator",
		"[PATCH v4] hwmon: Add driver for STMicroelectronics PM6764"
		" Voltage Regulator",
		"[PATCH v2 3/5] hwmon: it87: expose additional temperature limits",
		"[PATCH] hwmon: it87: expose additional temperature limits",
		/* A corrected resend that named its driver as the list does. */
		"[PATCH] hwmon: nct6683 Add support for ASRock Z890 Pro-A",
		"[PATCH] hwmon: (nct6683) Add support for ASRock Z890 Pro-A",
		"[PATCH] hwmon: (pmbus) fix typo",
	};
	char **k[G_N_ELEMENTS(subjects)];
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(subjects); i++)
		k[i] = pw_lineage_subject_keys(subjects[i]);
	assert_true(share(k[0], k[1]));
	assert_true(share(k[2], k[3]));
	assert_true(share(k[4], k[5]));
	assert_false(share(k[0], k[2]));
	assert_false(share(k[4], k[0]));
	assert_string_equal(k[5][1], "hwmon nct6683 add support for asrock z890 pro-a");
	/* Too short to tell one series from another. */
	assert_null(k[6][0]);
	for (i = 0; i < G_N_ELEMENTS(subjects); i++)
		g_strfreev(k[i]);
}

static void change_id(void **state)
{
	const char *cover = "Subject: [PATCH v3 0/2] x\n\nText.\n\n---\n"
			    "base-commit: 0123456789abcdef\n"
			    "change-id: 20240522-tmp421-fix-4f2a1b\n\n"
			    "Best regards,\n";
	char *id = pw_lineage_change_id(cover, strlen(cover));

	assert_string_equal(id, "20240522-tmp421-fix-4f2a1b");
	g_free(id);
	/* Only the start of a line; one token. */
	assert_null(pw_lineage_change_id("the change-id: x\n", 17));
	assert_null(pw_lineage_change_id("change-id: two words\n", 21));
	/* len bytes only. */
	assert_null(pw_lineage_change_id(cover, 40));
}

static void links(void **state)
{
	const char *text =
		"Changes in v3:\n"
		"- Link to v2: https://lore.kernel.org/r/20240101-a-v2-1-ab@x.org\n"
		"v1: https://lore.kernel.org/linux-hwmon/20231201.1234-1-cd%40y.org/\n"
		"Link: https://lore.kernel.org/all/bug-report@z.org/\n"
		"> v0: https://lore.kernel.org/r/quoted@q.org\n"
		"V2 https://patch.msgid.link/ef@w.org\n";
	char **ids = pw_lineage_links(text, strlen(text));

	assert_int_equal(g_strv_length(ids), 3);
	assert_string_equal(ids[0], "20240101-a-v2-1-ab@x.org");
	assert_string_equal(ids[1], "20231201.1234-1-cd@y.org");
	assert_string_equal(ids[2], "ef@w.org");
	g_strfreev(ids);
	ids = pw_lineage_links("no links\n", 9);
	assert_int_equal(g_strv_length(ids), 0);
	g_strfreev(ids);
}

static void states(void **state)
{
	enum pw_patch_state st;

	/* A state gives way to a stronger one only. */
	assert_int_equal(pw_patch_state_merge(PW_STATE_NEW, PW_STATE_SUPERSEDED),
			 PW_STATE_SUPERSEDED);
	assert_int_equal(pw_patch_state_merge(PW_STATE_SUPERSEDED, PW_STATE_APPLIED),
			 PW_STATE_APPLIED);
	assert_int_equal(pw_patch_state_merge(PW_STATE_APPLIED, PW_STATE_SUPERSEDED),
			 PW_STATE_APPLIED);
	assert_int_equal(pw_patch_state_merge(PW_STATE_REJECTED, PW_STATE_APPLIED),
			 PW_STATE_APPLIED);
	assert_true(pw_patch_state_parse("superseded", &st));
	assert_int_equal(st, PW_STATE_SUPERSEDED);
	assert_string_equal(pw_patch_state_name(st), "superseded");
	assert_false(pw_patch_state_parse("merged", &st));
}

static void verdicts(void **state)
{
	static const struct {
		const char *text;
		enum pw_reply_verdict v;
	} cases[] = {
		{ "Applied.\n\nThanks,\nGuenter\n", PW_VERDICT_APPLIED },
		{ "> +\treturn 0;\n\nApplied to hwmon-next.\n", PW_VERDICT_APPLIED },
		{ "Series applied to hwmon-next.\n", PW_VERDICT_APPLIED },
		{ "Good catch. Applied.\n", PW_VERDICT_APPLIED },
		{ "Applied, again after the fixup.\n", PW_VERDICT_APPLIED },
		{ "Thanks, queued for 6.10.\n", PW_VERDICT_APPLIED },
		{ "Applied. I dropped the empty line at the end.\n", PW_VERDICT_APPLIED },
		{ "NACK\n\nThis belongs in userspace.\n", PW_VERDICT_REJECTED },
		{ "I don't see what this has to do with hardware monitoring.\n"
		  "I am not going to apply this patch.\n", PW_VERDICT_REJECTED },
		/* Changes asked for: no decision yet. */
		{ "I am not going to accept this patch as-is.\n", PW_VERDICT_NONE },
		{ "In summary - NACK.\n", PW_VERDICT_NONE },
		{ "Nacked-by: A Maintainer <m@x.org>\n", PW_VERDICT_REJECTED },
		{ "I have dropped this patch from the tree.\n", PW_VERDICT_DROPPED },
		{ "This patch will have to be applied through the x86 tree.\n",
		  PW_VERDICT_NONE },
		{ "Not applied: it does not build.\n", PW_VERDICT_DROPPED },
		{ "Applied.\n", PW_VERDICT_APPLIED },
		{ "Actually, no, the patch did not apply.\n", PW_VERDICT_DROPPED },
		{ "This doesn't apply to hwmon-next.\n", PW_VERDICT_DROPPED },
		/* Only at a sentence's head: a review remark decides nothing. */
		{ "The same concern doesn't apply to foo().\n", PW_VERDICT_NONE },
		{ "Well, that does not apply here.\n", PW_VERDICT_NONE },
		{ "It applied cleanly to my tree.\n", PW_VERDICT_NONE },
		{ "> Applied.\nWhy was this\napplied, by the way?\n", PW_VERDICT_NONE },
		{ "Looks good.\n-- \nApplied Research Inc.\n", PW_VERDICT_NONE },
		{ "", PW_VERDICT_NONE },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		if (pw_reply_verdict(cases[i].text) != cases[i].v)
			fail_msg("case %zu: \"%s\": %d, not %d", i, cases[i].text,
				 pw_reply_verdict(cases[i].text), cases[i].v);
	}
	assert_int_equal(pw_reply_verdict(NULL), PW_VERDICT_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(order),
		cmocka_unit_test(pick),
		cmocka_unit_test(signed_lineage),
		cmocka_unit_test(copies),
		cmocka_unit_test(out_of_order),
		cmocka_unit_test(subject_keys),
		cmocka_unit_test(change_id),
		cmocka_unit_test(links),
		cmocka_unit_test(states),
		cmocka_unit_test(verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
