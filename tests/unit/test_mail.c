/*
 * Unit tests for bot/mail.c: pw_mail_parse() on small messages built
 * here, GMime's part of the work (headers, MIME, charsets) and what the
 * pure readers make of it together (tests/unit/test_subject.c,
 * test_body.c and test_message.c test those alone).
 *
 * The last test parses every message of an mbox through bot/source.c
 * and bot/mail.c and prints the rate (messages per second) as a TAP
 * comment: PW_BENCH_MBOX names the mbox (the lore linux-mips sample, for
 * instance), else 2,000 generated patch mails are used.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bot/mail.h"
#include "bot/source.h"

static struct pw_mail *parse_ok(const char *raw)
{
	struct pw_mail *m = NULL;
	char *err = NULL;

	assert_int_equal(pw_mail_parse(raw, strlen(raw), &m, &err), PW_OK);
	assert_null(err);
	assert_non_null(m);
	return m;
}

static void headers(void **state)
{
	struct pw_mail *m = parse_ok(
		"From: =?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <JM@Example.ORG>\n"
		"To: a@x.org, \"B, Bee\" <B@x.org>\n"
		"Cc: a@x.org, c@x.org\n"
		"Subject: [PATCH v2 1/2] foo:\n  fix =?iso-8859-1?q?caf=E9?=\n"
		"Date: Tue, 02 Jan 2024 09:11:12 +0000\n"
		"Message-ID: <  id-1@example.org >\n"
		"In-Reply-To: <cover@example.org> (message from X)\n"
		"References: <root@example.org>\n <cover@example.org>\n"
		"List-Id: Some list <list.example.org>\n"
		"Auto-Submitted: auto-generated\n"
		"\n"
		"Body.\n");

	(void)state;
	assert_string_equal(m->msgid, "id-1@example.org");
	assert_false(m->msgid_derived);
	assert_string_equal(m->from_name, "Jürgen Müller");
	assert_string_equal(m->from_addr, "jm@example.org");
	assert_string_equal(m->subject, "[PATCH v2 1/2] foo: fix café");
	assert_string_equal(m->subject_clean, "foo: fix café");
	assert_int_equal(m->date, 1704186672);
	assert_string_equal(m->in_reply_to, "cover@example.org");
	assert_string_equal(m->references[0], "root@example.org");
	assert_string_equal(m->references[1], "cover@example.org");
	assert_null(m->references[2]);
	assert_string_equal(m->list_id, "list.example.org");
	assert_string_equal(m->auto_submitted, "auto-generated");
	assert_int_equal(m->nrecipients, 3);
	assert_string_equal(m->recipients[0], "a@x.org");
	assert_string_equal(m->recipients[1], "b@x.org");
	assert_string_equal(m->recipients[2], "c@x.org");
	assert_int_equal(m->tags.version, 2);
	assert_int_equal(m->kind, PW_MAIL_COMMENT);	/* no diff, in a thread */
	pw_mail_free(m);
}

static void inline_patch(void **state)
{
	struct pw_mail *m = parse_ok(
		"From: A <a@b.org>\nSubject: [PATCH] x: y\nMessage-ID: <p@b>\n\n"
		"Commit message.\n\nSigned-off-by: A <a@b.org>\n---\n"
		" f | 2 +-\n\n"
		"diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n"
		"@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
		"-- \n2.39.5\n\n"
		"_______________________________________________\n"
		"Some-list mailing list\n");

	(void)state;
	assert_int_equal(m->kind, PW_MAIL_PATCH);
	assert_string_equal(m->commit_msg,
			    "Commit message.\n\nSigned-off-by: A <a@b.org>\n");
	assert_string_equal(m->diff,
			    "diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n"
			    "@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
	assert_null(m->pull_url);
	pw_mail_free(m);
}

static void reply_with_diff_is_comment(void **state)
{
	struct pw_mail *m = parse_ok(
		"From: A <a@b.org>\nSubject: Re: [PATCH] x\nMessage-ID: <r@b>\n"
		"In-Reply-To: <p@b>\n\n> quoted\n\nTry this:\n\n"
		"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n");

	(void)state;
	assert_int_equal(m->kind, PW_MAIL_COMMENT);
	assert_non_null(m->diff);
	pw_mail_free(m);
}

static void cover_and_other(void **state)
{
	struct pw_mail *c = parse_ok(
		"From: A <a@b.org>\nSubject: [PATCH 0/2] series\nMessage-ID: <c@b>\n\n"
		"Cover text.\n\nA (2):\n  x\n  y\n\n 2 files changed\n");
	struct pw_mail *p = parse_ok(
		"From: A <a@b.org>\nSubject: [PATCH] x\nMessage-ID: <p1@b>\n"
		"In-Reply-To: <o@b>\n\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n");
	struct pw_mail *o = parse_ok(
		"From: A <A@b.org>\nSubject: a thing\nMessage-ID: <o@b>\n\nHello.\n");

	(void)state;
	assert_int_equal(c->kind, PW_MAIL_COVER);
	assert_int_equal(c->tags.total, 2);
	assert_int_equal(o->kind, PW_MAIL_OTHER);
	assert_int_equal(p->kind, PW_MAIL_PATCH);
	assert_true(pw_mail_is_naked_cover(o, p));
	assert_false(pw_mail_is_naked_cover(c, p));
	assert_false(pw_mail_is_naked_cover(o, c));
	pw_mail_free(c);
	pw_mail_free(p);
	pw_mail_free(o);
}

static void pull_request(void **state)
{
	struct pw_mail *m = parse_ok(
		"From: A <a@b.org>\nSubject: [GIT PULL] fixes\nMessage-ID: <g@b>\n\n"
		"Hi,\n\nThe following changes since commit 1234:\n\n  v1 (2020)\n\n"
		"are available in the Git repository at:\n\n"
		"  git://git.example.org/repo.git tags/fixes-1\n\n"
		"for you to fetch changes up to 5678:\n");

	(void)state;
	assert_int_equal(m->kind, PW_MAIL_PULL);
	assert_string_equal(m->pull_url, "git://git.example.org/repo.git tags/fixes-1");
	assert_null(m->diff);
	pw_mail_free(m);
}

static void charsets_and_encodings(void **state)
{
	/* base64 latin-1 attachment-less body, CRLF, declared charset */
	struct pw_mail *m = parse_ok(
		"From: A <a@b.org>\r\nSubject: x\r\nMessage-ID: <cs@b>\r\n"
		"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=iso-8859-1\r\n"
		"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
		"caf=E9 =80\r\n");
	/* undeclared, not UTF-8: windows-1252 guessed */
	struct pw_mail *g = parse_ok(
		"From: A <a@b.org>\nSubject: x\nMessage-ID: <cs2@b>\n\n"
		"price \x80 5\n");

	(void)state;
	assert_string_equal(m->commit_msg, "café €\n");
	assert_string_equal(g->commit_msg, "price € 5\n");
	pw_mail_free(m);
	pw_mail_free(g);
}

static void derived_msgid(void **state)
{
	const char *raw = "From: A <a@b.org>\nSubject: x\n\nbody\n";
	struct pw_mail *a = parse_ok(raw), *b = parse_ok(raw);

	(void)state;
	assert_true(a->msgid_derived);
	assert_string_equal(a->msgid, b->msgid);
	assert_string_equal(a->msgid + strlen(a->msgid) - strlen("@patchwarden.invalid"),
			    "@patchwarden.invalid");
	assert_int_equal(strlen(a->msgid), 64 + strlen("@patchwarden.invalid"));
	pw_mail_free(a);
	pw_mail_free(b);
}

/* The header block as GMime's parser cuts it. */
static void header_block(void **state)
{
	struct pw_mail *m = parse_ok(
		"From someone Mon Jan  1 00:00:00 2024\r\n"
		"From: A <a@x.org>\r\n"
		"Subject : [PATCH] first\r\n"
		"not a field, dropped\r\n"
		" with its continuation <lost@x.org>\r\n"
		"Cc: b@x.org\r\n"
		"Cc: c@x.org,\r\n"
		"\td@x.org\r\n"
		"To: undisclosed-recipients:;\r\n"
		"Message-ID: <first@x>\r\n"
		"Message-ID: <second@x>\r\n"
		"Subject: [PATCH] last\r\n"
		"Content-Type: text/plain;\r\n"
		" charset=iso-8859-1\r\n"
		"Content-Transfer-Encoding: quoted-printable\r\n"
		"\r\n"
		"caf=E9\r\n"
		"---\r\n"
		"diff --git a/f b/f\r\n"
		"--- a/f\r\n"
		"+++ b/f\r\n"
		"@@ -1 +1 @@\r\n"
		"-a\r\n"
		"+b\r\n");

	(void)state;
	assert_string_equal(m->from_addr, "a@x.org");
	assert_string_equal(m->msgid, "first@x");		/* first wins */
	assert_string_equal(m->subject, "[PATCH] last");	/* as GMime keeps it */
	assert_int_equal(m->nrecipients, 3);
	assert_string_equal(m->recipients[0], "b@x.org");
	assert_string_equal(m->recipients[1], "c@x.org");
	assert_string_equal(m->recipients[2], "d@x.org");
	assert_string_equal(m->commit_msg, "café\n");	/* charset and QP */
	assert_non_null(m->diff);
	assert_int_equal(m->kind, PW_MAIL_PATCH);
	pw_mail_free(m);

	/* No empty line: the block runs to the end; no body, no diff. */
	m = parse_ok("From: A <a@x.org>\nSubject: [PATCH] only headers\n");
	assert_string_equal(m->subject, "[PATCH] only headers");
	assert_null(m->diff);
	pw_mail_free(m);
}

/* A short hunk in one file does not cut the next file's hunks. */
static void short_hunk_then_file(void **state)
{
	struct pw_mail *m = parse_ok(
		"From: a <a@b>\nSubject: [PATCH] two files\nMessage-ID: <cut@x>\n\n"
		"msg\n---\n"
		"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,3 +1,3 @@\n x\n-y\n+z\n"
		"diff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-p\n+q\n"
		"@@ -10 +10 @@\n-r\n+s\n");

	(void)state;
	assert_non_null(m->diff);
	assert_non_null(strstr(m->diff, "@@ -10 +10 @@\n-r\n+s\n"));
	pw_mail_free(m);
}

/*
 * A Date more than a day after the message is read is unknown, with a
 * warning, as one before 1990 is (a message dated 2085 topped the
 * dashboard's "Latest series"); one a few hours ahead is a time zone.
 */
static void future_date(void **state)
{
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	GDateTime *soon = g_date_time_new_from_unix_utc(now + 6 * 3600);
	char *d = g_date_time_format(soon, "%a, %d %b %Y %H:%M:%S +0000");
	char *raw = g_strdup_printf("From: a <a@b>\nSubject: x\nDate: %s\n\nx\n", d);
	struct pw_mail *m = parse_ok(
		"From: a <a@b>\nSubject: [PATCH] x\nMessage-ID: <f@x>\n"
		"Date: Sun, 01 Apr 2085 10:00:00 +0000\n\nx\n");
	bool said = false;
	size_t i;

	(void)state;
	assert_int_equal(m->date, 0);
	for (i = 0; m->warnings && m->warnings[i]; i++)
		said = said || strstr(m->warnings[i], "future");
	assert_true(said);
	pw_mail_free(m);
	m = parse_ok(raw);
	assert_int_equal(m->date, now + 6 * 3600);
	assert_null(m->warnings[0]);
	pw_mail_free(m);
	g_free(raw);
	g_free(d);
	g_date_time_unref(soon);
}

/*
 * m->automated from the header block, as real list mail carries it: a
 * stable AUTOSEL mail through vger, the same sender's own patch, the
 * kernel test robot, and Precedence only when no list carried it.
 */
static void automated(void **state)
{
	static const char *const vger =
		"Precedence: bulk\nX-Mailing-List: linux-hwmon@vger.kernel.org\n"
		"List-Id: <linux-hwmon.vger.kernel.org>\n";
	char *raw = g_strdup_printf(
		"From: Sasha Levin <sashal@kernel.org>\n"
		"Subject: [PATCH AUTOSEL 4.4 10/10] hwmon: (pmbus/core) Treat\n"
		" parameters as paged\n"
		"X-Patchwork-Hint: Ignore\nX-stable: review\n%s\n"
		"Body.\n", vger);
	struct pw_mail *m = parse_ok(raw);

	(void)state;
	assert_string_equal(m->automated, "stable AUTOSEL notice");
	pw_mail_free(m);
	g_free(raw);
	raw = g_strdup_printf("From: Sasha Levin <sashal@kernel.org>\n"
			      "Subject: [PATCH] hwmon: fix\n%s\nBody.\n", vger);
	m = parse_ok(raw);
	assert_null(m->automated);
	pw_mail_free(m);
	g_free(raw);
	raw = g_strdup_printf("From: Greg KH <gregkh@linuxfoundation.org>\n"
			      "Subject: [PATCH 6.6 144/341] hwmon: (pc87360) x\n"
			      "X-stable: review\nX-Patchwork-Hint: ignore\n%s\n"
			      "Body.\n", vger);
	m = parse_ok(raw);
	assert_string_equal(m->automated, "X-stable: review");
	pw_mail_free(m);
	g_free(raw);
	raw = g_strdup_printf("From: kernel test robot <lkp@intel.com>\n"
			      "Subject: [hwmon:hwmon-next 2/11] x.c: error\n%s\n"
			      "Body.\n", vger);
	m = parse_ok(raw);
	assert_string_equal(m->automated, "automated sender lkp@intel.com");
	pw_mail_free(m);
	g_free(raw);
	m = parse_ok("From: a <a@b>\nSubject: x\nPrecedence: junk\n"
		     "List-Id: <l.x>\n\nx\n");
	assert_string_equal(m->automated, "Precedence: junk");
	pw_mail_free(m);
	m = parse_ok("From: a <a@b>\nSubject: x\nPrecedence: bulk\n\nx\n");
	assert_string_equal(m->automated, "Precedence: bulk");
	pw_mail_free(m);
}

static void bad_input(void **state)
{
	struct pw_mail *m = NULL;
	char *err = NULL;
	static const char nul[] = "From: A <a@b>\nSubject: a\0b\nMessage-ID: <n@b>\n\nx\0y\n";

	(void)state;
	assert_int_equal(pw_mail_parse("", 0, &m, &err), PW_ERR_INPUT);
	assert_null(m);
	assert_non_null(err);
	g_free(err);
	err = NULL;
	assert_int_equal(pw_mail_parse("no headers at all", 17, &m, &err), PW_ERR_INPUT);
	assert_non_null(err);
	g_free(err);
	err = NULL;
	assert_int_equal(pw_mail_parse(nul, sizeof(nul) - 1, &m, &err), PW_OK);
	assert_true(g_utf8_validate(m->commit_msg, -1, NULL));
	assert_string_equal(m->commit_msg, "xy\n");
	pw_mail_free(m);
	pw_mail_free(NULL);
}

static void bench(void **state)
{
	const char *path = getenv("PW_BENCH_MBOX");
	struct pw_source *src = NULL;
	struct pw_raw raw;
	gint64 t0, t1;
	int n = 0, bad = 0;
	char *err = NULL;

	char *tmp = NULL;
	int want = -1, i;

	(void)state;
	if (!path || !*path) {
		GString *g = g_string_new(NULL);
		int fd = g_file_open_tmp("pw-bench-XXXXXX.mbox", &tmp, NULL);

		assert_true(fd >= 0);
		close(fd);
		for (i = 0; i < 2000; i++)
			g_string_append_printf(g,
				"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
				"From: Dev %d <dev%d@example.org>\n"
				"Subject: [PATCH v2 %d/2000] drivers: use octal 0444\n"
				"Message-ID: <bench-%d@example.org>\n"
				"Date: Mon, 1 Jan 2024 10:00:00 +0000\n\n"
				"Replace S_IRUGO with 0444.\n\n"
				"Signed-off-by: Dev <dev@example.org>\n---\n"
				"diff --git a/d%d.c b/d%d.c\n--- a/d%d.c\n+++ b/d%d.c\n"
				"@@ -1,3 +1,3 @@\n a\n-module_param(x, int, S_IRUGO);\n"
				"+module_param(x, int, 0444);\n b\n-- \n2.39.5\n\n",
				i, i, i + 1, i, i, i, i, i);
		assert_true(g_file_set_contents(tmp, g->str, (gssize)g->len, NULL));
		g_string_free(g, TRUE);
		path = tmp;
		want = 2000;
	}
	assert_int_equal(pw_source_open(path, &src, &err), PW_OK);
	t0 = g_get_monotonic_time();
	for (;;) {
		struct pw_mail *m = NULL;
		enum pw_status st = pw_source_next(src, &raw, &err);

		g_free(err);
		err = NULL;
		if (st != PW_OK || !raw.data)
			break;
		if (pw_mail_parse(raw.data, raw.len, &m, &err) == PW_OK) {
			n++;
			if (want > 0)
				assert_int_equal(m->kind, PW_MAIL_PATCH);
		}
		else
			bad++;
		g_free(err);
		err = NULL;
		pw_mail_free(m);
	}
	t1 = g_get_monotonic_time();
	pw_source_free(src);
	print_message("# %d messages (%d unreadable) in %.3f s: %.0f messages/s\n",
		      n, bad, (double)(t1 - t0) / 1e6,
		      n / ((double)(t1 - t0 + 1) / 1e6));
	if (tmp) {
		unlink(tmp);
		g_free(tmp);
	}
	assert_true(n > 0);
	if (want > 0)
		assert_int_equal(n, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(headers),
		cmocka_unit_test(header_block),
		cmocka_unit_test(short_hunk_then_file),
		cmocka_unit_test(inline_patch),
		cmocka_unit_test(reply_with_diff_is_comment),
		cmocka_unit_test(cover_and_other),
		cmocka_unit_test(pull_request),
		cmocka_unit_test(charsets_and_encodings),
		cmocka_unit_test(derived_msgid),
		cmocka_unit_test(future_date),
		cmocka_unit_test(automated),
		cmocka_unit_test(bad_input),
		cmocka_unit_test(bench),
	};

	pw_mail_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
