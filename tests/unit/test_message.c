/*
 * Unit tests for checks/message.c: the kind of a message from what it
 * holds, its place in a thread, the derived Message-ID, the naked
 * cover rule, discussion with a diff in it and why a machine sent a
 * message, on messages built here without parsing any mail.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/message.h"

/* A message with the given subject, diff, pull URL and parent. */
static struct pw_mail *mail(const char *subject, const char *diff,
			    const char *pull_url, const char *parent)
{
	struct pw_mail *m = g_new0(struct pw_mail, 1);

	m->msgid = g_strdup("m@x");
	m->from_addr = g_strdup("a@x");
	m->subject = g_strdup(subject);
	m->subject_clean = pw_subject_parse(subject, &m->tags);
	m->diff = g_strdup(diff);
	m->pull_url = g_strdup(pull_url);
	m->in_reply_to = g_strdup(parent);
	m->references = g_new0(char *, 1);
	m->kind = pw_mail_classify(m);
	return m;
}

static void kinds(void **state)
{
	static const struct {
		const char *subject, *diff, *pull, *parent;
		enum pw_mail_kind kind;
	} c[] = {
		{ "[PATCH] x", "--- a\n", NULL, NULL, PW_MAIL_PATCH },
		{ "[PATCH 2/3] x", "--- a\n", NULL, "c@x", PW_MAIL_PATCH },
		{ "Re: [PATCH] x", "--- a\n", NULL, "p@x", PW_MAIL_COMMENT },
		{ "Aw: [PATCH] x", NULL, NULL, NULL, PW_MAIL_COMMENT },
		{ "Fwd: [PATCH] x", "--- a\n", NULL, NULL, PW_MAIL_PATCH },
		{ "[GIT PULL] x", "--- a\n", "git://h/r main", NULL, PW_MAIL_PULL },
		{ "[PATCH 0/3] x", "--- a\n", NULL, NULL, PW_MAIL_COVER },
		{ "[PATCH 0 of 3] x", NULL, NULL, NULL, PW_MAIL_COVER },
		{ "[PATCH] x", NULL, NULL, NULL, PW_MAIL_OTHER },
		{ "a question", NULL, NULL, "p@x", PW_MAIL_COMMENT },
		{ "a question", NULL, NULL, NULL, PW_MAIL_OTHER },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(c); i++) {
		struct pw_mail *m = mail(c[i].subject, c[i].diff, c[i].pull,
					 c[i].parent);

		if (m->kind != c[i].kind)
			print_message("# \"%s\": %s\n", c[i].subject,
				      pw_mail_kind_str(m->kind));
		assert_int_equal(m->kind, c[i].kind);
		pw_mail_free(m);
	}
}

/*
 * A diff in mail without a patch marker is discussion when it is not a
 * whole patch or follows quoted text; with a marker, or whole after the
 * author's own words (git format-patch -k), it is a patch.  The real
 * cases: "(bug report) HWMON & Thermal interactions" and "Consultation
 * on extending hwmon channel attributes number to 64" on linux-hwmon,
 * each a pasted diff whose hunks end early.
 */
static void discussion(void **state)
{
	static const struct {
		const char *subject, *msg, *parent;
		bool cut;
		enum pw_mail_kind kind;
	} c[] = {
		{ "(bug report) HWMON & Thermal interactions", "Hi,\n", NULL,
		  true, PW_MAIL_OTHER },
		{ "Consultation on extending hwmon channel attributes", "Hi\n",
		  "p@x", true, PW_MAIL_COMMENT },
		{ "hwmon: (foo) fix bar", "> you wrote\nlike this?\n", NULL,
		  false, PW_MAIL_OTHER },
		/* git format-patch -k, send-email --subject-prefix="" */
		{ "hwmon: (foo) fix bar", "Fix bar.\n\nSigned-off-by: A <a@x>\n",
		  NULL, false, PW_MAIL_PATCH },
		{ "hwmon: (foo) fix bar", "Fix bar.\n", "c@x", false,
		  PW_MAIL_PATCH },
		/* a marker: what the author says it is */
		{ "[PATCH] hwmon: (foo) fix bar", "> quoted\n", NULL, true,
		  PW_MAIL_PATCH },
		{ "[RFC] hwmon: (foo) fix bar", "q\n", NULL, true, PW_MAIL_PATCH },
		{ "[foo 2/3] bar", "q\n", NULL, true, PW_MAIL_PATCH },
		/* a real one: a patch sent in answer to a review it quotes */
		{ "PATCH: HWMON: (nct6775) Correct number of inputs",
		  "> As for the patch itself\n", "r@x", false, PW_MAIL_PATCH },
		{ "\xc2\xa0[PATCH] hwmon: add driver", "x\n", NULL, true,
		  PW_MAIL_PATCH },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(c); i++) {
		struct pw_mail *m = mail(c[i].subject, "--- a\n", NULL,
					 c[i].parent);

		m->commit_msg = g_strdup(c[i].msg);
		m->diff_cut = c[i].cut;
		m->kind = pw_mail_classify(m);
		if (m->kind != c[i].kind)
			print_message("# %zu \"%s\": %s\n", i, c[i].subject,
				      pw_mail_kind_str(m->kind));
		assert_int_equal(m->kind, c[i].kind);
		assert_int_equal(pw_mail_is_discussion(m),
				 c[i].kind != PW_MAIL_PATCH);
		pw_mail_free(m);
	}
}

/* pw_mail_automated() on o, compared with want (NULL: a person). */
static void judged(const struct pw_mail_origin *o, const char *const *extra,
		   const char *want)
{
	char *why = pw_mail_automated(o, extra);

	if (want) {
		assert_non_null(why);
		assert_string_equal(why, want);
	} else {
		if (why)
			print_message("# \"%s\": %s\n", o->subject, why);
		assert_null(why);
	}
	g_free(why);
}

/*
 * Why a machine sent a message, from the header facts of real list
 * mail (linux-hwmon, linux-iio): every vger message carries
 * "Precedence: bulk" and List-Id, the stable team's bots mark theirs
 * with X-Patchwork-Hint and X-stable and send from people's addresses.
 */
static void automated(void **state)
{
	static const char *const extra[] = { " *@bots.example.org ", NULL };
	struct pw_mail_origin o = { 0 };

	(void)state;
	/* A person's patch through vger: Precedence: bulk is the list's. */
	o.sender = "linux@roeck-us.net";
	o.subject = "[PATCH] hwmon: (foo) fix bar";
	o.precedence = "bulk";
	o.list_headers = true;
	judged(&o, NULL, NULL);
	/* ... and Precedence on mail no list carried is the sender's. */
	o.list_headers = false;
	judged(&o, NULL, "Precedence: bulk");
	o.precedence = "List";
	judged(&o, NULL, "Precedence: list");
	o.list_headers = true;
	o.precedence = "junk";
	judged(&o, NULL, "Precedence: junk");
	o.precedence = "bulk";

	/* AUTOSEL, FAILED and added-to notices: by subject and headers,
	 * from addresses that post real patches too. */
	o.sender = "sashal@kernel.org";
	o.subject = "[PATCH AUTOSEL 6.1 12/30] hwmon: (foo) fix bar";
	o.patchwork_hint = "Ignore";
	o.stable = "review";
	judged(&o, NULL, "stable AUTOSEL notice");
	o.subject = "FAILED: Patch \"hwmon: (max16065) Use READ/WRITE_ONCE\" "
		    "failed to apply to 6.1-stable tree";
	judged(&o, NULL, "stable FAILED notice");
	o.patchwork_hint = NULL;
	o.stable = NULL;
	judged(&o, NULL, "stable FAILED notice");
	o.subject = "Patch \"hwmon: fix\" has been added to the 6.6-stable tree";
	judged(&o, NULL, "stable tree notice");
	o.sender = "gregkh@linuxfoundation.org";
	o.subject = "patch \"MAINTAINERS: Consolidate Analog Devices IIO "
		    "entries and remove\" added to staging-next";
	judged(&o, NULL, "tree notice (patch added)");
	o.subject = "Re: patch \"iio: fix\" added to staging-next";
	judged(&o, NULL, NULL);
	/* A stable review patch without X-stable (before 2023): another
	 * author's commit under a stable tree's tag, posted by the stable
	 * maintainers.  A person's own backport, or a reply, is a
	 * person's. */
	o.subject = "[PATCH 4.9 45/62] hwmon: (coretemp) Check for null";
	o.prefixes = "4.9";
	o.other_author = true;
	judged(&o, NULL, "stable review posting of another author's commit");
	o.prefixes = "net,5.10.y";
	judged(&o, NULL, "stable review posting of another author's commit");
	o.prefixes = "v2";
	judged(&o, NULL, NULL);
	o.prefixes = "4.9";
	o.is_reply = true;
	judged(&o, NULL, NULL);
	o.is_reply = false;
	o.other_author = false;
	judged(&o, NULL, NULL);
	o.other_author = true;
	o.sender = "backporter@example.com";
	judged(&o, NULL, NULL);
	o.sender = "gregkh@linuxfoundation.org";
	o.other_author = false;
	o.prefixes = NULL;
	o.subject = "[PATCH 6.6 144/341] hwmon: (pc87360) Bounds check";
	o.stable = "review";
	o.patchwork_hint = "ignore";
	judged(&o, NULL, "X-stable: review");
	o.stable = NULL;
	judged(&o, NULL, "X-Patchwork-Hint: ignore");
	/* Another hint is a maintainer's, not a machine's. */
	o.patchwork_hint = "state: accepted";
	judged(&o, NULL, NULL);
	o.patchwork_hint = NULL;
	/* The same people's own patches and replies are theirs. */
	o.subject = "[PATCH] stable: fix the thing";
	judged(&o, NULL, NULL);
	o.sender = "sashal@kernel.org";
	o.subject = "Re: [PATCH AUTOSEL 4.14 19/60] iio:core: Fix bug";
	judged(&o, NULL, NULL);

	/* Auto-Submitted first, "no" being a person's. */
	o.auto_submitted = "auto-replied; owner-email=\"x@y\"";
	judged(&o, NULL, "Auto-Submitted: auto-replied");
	o.auto_submitted = " No ";
	judged(&o, NULL, NULL);
	o.auto_submitted = NULL;

	/* Senders: the built-in list, then the configured one. */
	o.subject = "[hwmon:hwmon-next 2/11] drivers/hwmon/x.c: error";
	o.sender = "LKP@intel.com";
	judged(&o, NULL, "automated sender LKP@intel.com");
	o.sender = "patchwork-bot+netdevbpf@kernel.org";
	judged(&o, NULL, "automated sender patchwork-bot+netdevbpf@kernel.org");
	o.sender = "sashiko-bot@kernel.org";
	judged(&o, NULL, "automated sender sashiko-bot@kernel.org");
	o.sender = "syzbot+1234abcd@syzkaller.appspotmail.com";
	judged(&o, NULL, "automated sender syzbot+1234abcd@syzkaller.appspotmail.com");
	o.sender = "ci@bots.example.org";
	judged(&o, NULL, NULL);
	judged(&o, extra, "automated sender ci@bots.example.org");
	assert_true(pw_mail_sender_automated("CI@Bots.Example.org", extra));
	assert_false(pw_mail_sender_automated("", extra));
	assert_false(pw_mail_sender_automated("robot@kernel.org.example", NULL));
}

static void threaded(void **state)
{
	struct pw_mail *m = mail("x", NULL, NULL, NULL);

	(void)state;
	assert_false(pw_mail_is_threaded(m));
	g_strfreev(m->references);
	m->references = g_strsplit("root@x", " ", -1);
	assert_true(pw_mail_is_threaded(m));
	assert_int_equal(pw_mail_classify(m), PW_MAIL_COMMENT);
	g_strfreev(m->references);
	m->references = NULL;
	assert_false(pw_mail_is_threaded(m));
	m->in_reply_to = g_strdup("p@x");
	assert_true(pw_mail_is_threaded(m));
	pw_mail_free(m);
}

static void derived_msgid(void **state)
{
	char *a = pw_mail_derive_msgid("abc", 3);
	char *b = pw_mail_derive_msgid("abc", 3);
	char *c = pw_mail_derive_msgid("abd", 3);

	(void)state;
	/* SHA-256 of "abc". */
	assert_string_equal(a, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9c"
			       "b410ff61f20015ad@patchwarden.invalid");
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	g_free(a);
	g_free(b);
	g_free(c);
}

/* b4's rule, on a root and the patches that may answer it. */
static void naked_cover(void **state)
{
	struct pw_mail *root = mail("an approach", NULL, NULL, NULL);
	struct pw_mail *patch = mail("[PATCH] x", "--- a\n", NULL, "m@x");
	struct pw_mail *other = mail("[PATCH] x", "--- a\n", NULL, "m@x");

	(void)state;
	g_free(root->msgid);
	root->msgid = g_strdup("m@x");
	assert_true(pw_mail_is_bare_root(root));
	assert_true(pw_mail_is_naked_cover(root, patch));
	g_free(other->from_addr);
	other->from_addr = g_strdup("b@x");
	assert_false(pw_mail_is_naked_cover(root, other));	/* another sender */
	assert_false(pw_mail_is_naked_cover(patch, patch));	/* not a root */
	assert_false(pw_mail_is_bare_root(patch));
	assert_false(pw_mail_is_bare_root(NULL));
	pw_mail_free(root);
	pw_mail_free(patch);
	pw_mail_free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kinds),
		cmocka_unit_test(discussion),
		cmocka_unit_test(automated),
		cmocka_unit_test(threaded),
		cmocka_unit_test(derived_msgid),
		cmocka_unit_test(naked_cover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
