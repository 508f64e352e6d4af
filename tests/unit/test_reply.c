/*
 * Unit tests for bot/reply.c: composing replies, the cleaning of what
 * comes from mail, deterministic Message-IDs, and the ls -l spelling.
 * The wire form is parsed back with GMime to check what a reader sees.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <gmime/gmime.h>

#include "bot/reply.h"
#include "bot/mail.h"
#include "checks/rules.h"

static void test_clean(void **state)
{
	char *s = pw_reply_clean("fix\r\nBcc: victim@example.org\t\x01 x", 100);

	assert_string_equal(s, "fix Bcc: victim@example.org x");
	g_free(s);
	s = pw_reply_clean("\xff\xfe bad \xe2\x80\xa8 utf8", 100);
	assert_true(g_utf8_validate(s, -1, NULL));
	assert_null(strchr(s, '\n'));
	g_free(s);
	s = pw_reply_clean("abcdefghij", 8);
	assert_string_equal(s, "abcde...");
	g_free(s);
	s = pw_reply_clean(NULL, 8);
	assert_string_equal(s, "");
	g_free(s);
}

static void test_subject(void **state)
{
	GString *long_subj = g_string_new("[PATCH 0001/1285] ");
	char *s;
	int i;

	s = pw_reply_subject("[PATCH] foo: bar");
	assert_string_equal(s, "Re: [PATCH] foo: bar");
	g_free(s);
	s = pw_reply_subject("RE: [PATCH] foo");
	assert_string_equal(s, "Re: [PATCH] foo");
	g_free(s);
	/* Every marker gives way to one "Re:": Outlook's localised reply
	 * (a real linux-usb mail), counts, forwards. */
	for (i = 0; i < 2; i++) {
		s = pw_reply_subject(i ? "AW\xef\xbc\x9a Re[2]: WG: [PATCH] foo" :
				     "\xe7\xad\x94\xe5\xa4\x8d: [PATCH] foo");
		assert_string_equal(s, "Re: [PATCH] foo");
		g_free(s);
	}
	s = pw_reply_subject("\r\n");
	assert_string_equal(s, "Re: your patch");
	g_free(s);
	for (i = 0; i < 300; i++)
		g_string_append(long_subj, "caf\xc3\xa9 ");
	s = pw_reply_subject(long_subj->str);
	assert_true(g_utf8_strlen(s, -1) <= 254);
	assert_true(g_str_has_suffix(s, "..."));
	g_free(s);
	g_string_free(long_subj, TRUE);
}

static void test_msgid(void **state)
{
	char *a = pw_reply_msgid("patch", "orig@example.org", "bot@lists.example.org");
	char *b = pw_reply_msgid("patch", "orig@example.org", "bot@lists.example.org");
	char *c = pw_reply_msgid("patch", "other@example.org", "bot@lists.example.org");
	char *d = pw_reply_msgid("flood", "orig@example.org", "bot@lists.example.org");
	char *e = pw_reply_msgid("patch", "x", "bad domain@a b");

	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	assert_string_not_equal(a, d);
	assert_true(g_str_has_suffix(a, "@lists.example.org"));
	assert_true(g_str_has_prefix(a, "patchwarden.patch."));
	assert_true(pw_reply_msgid_ok(a));
	assert_true(g_str_has_suffix(e, "@patchwarden.invalid"));
	g_free(a);
	g_free(b);
	g_free(c);
	g_free(d);
	g_free(e);
}

static void test_addr_ok(void **state)
{
	assert_true(pw_reply_addr_ok("a.b+c@example.org"));
	assert_false(pw_reply_addr_ok("a\r\nb@example.org"));
	assert_false(pw_reply_addr_ok("a b@example.org"));
	assert_false(pw_reply_addr_ok("<a@example.org>"));
	assert_false(pw_reply_addr_ok("a@b@c"));
	assert_false(pw_reply_addr_ok("nobody"));
	assert_false(pw_reply_addr_ok(NULL));
	assert_true(pw_reply_msgid_ok("20160802.1@example.org"));
	assert_false(pw_reply_msgid_ok("a>\r\nBcc: x@y"));
	assert_false(pw_reply_msgid_ok(""));
}

/* No one reads these: they never get a copy (bot/reply_queue.c). */
static void test_addr_noreply(void **state)
{
	assert_true(pw_reply_addr_noreply("noreply@github.com"));
	assert_true(pw_reply_addr_noreply("No-Reply@example.org"));
	assert_true(pw_reply_addr_noreply("do-not-reply@ci.example.org"));
	assert_true(pw_reply_addr_noreply("donotreply@example.org"));
	assert_true(pw_reply_addr_noreply("dont_reply@example.org"));
	/* GitHub's: the domain says it. */
	assert_true(pw_reply_addr_noreply("1234+user@users.noreply.github.com"));
	assert_true(pw_reply_addr_noreply("bot.no.reply@example.org"));
	assert_false(pw_reply_addr_noreply("reply@example.org"));
	assert_false(pw_reply_addr_noreply("nora.eply@example.org"));
	assert_false(pw_reply_addr_noreply("linux-hwmon@vger.kernel.org"));
	assert_false(pw_reply_addr_noreply("nobody"));
	assert_false(pw_reply_addr_noreply(NULL));
}

static char *flatten(const char *text);

/* flatten(), the result freed at the next call. */
static char *flatten_text(const char *text)
{
	static char *last;

	g_free(last);
	last = flatten(text);
	return last;
}

/* Parses the wire form back; checks it is CRLF and returns the message. */
static GMimeMessage *parse(GBytes *wire)
{
	gsize len;
	const char *p = g_bytes_get_data(wire, &len);
	GMimeStream *s = g_mime_stream_mem_new_with_buffer(p, len);
	GMimeParser *ps = g_mime_parser_new_with_stream(s);
	GMimeMessage *m = g_mime_parser_construct_message(ps, NULL);
	gsize i;

	for (i = 0; i < len; i++)
		if (p[i] == '\n')
			assert_true(i > 0 && p[i - 1] == '\r');
	g_object_unref(ps);
	g_object_unref(s);
	assert_non_null(m);
	return m;
}

static char *body_text(GMimeMessage *m)
{
	GMimeObject *b = g_mime_message_get_body(m);

	assert_true(GMIME_IS_TEXT_PART(b));
	return g_mime_text_part_get_text(GMIME_TEXT_PART(b));
}

static void test_compose_patch(void **state)
{
	struct pw_finding f = {
		.rule = "PERM_WORLD_WRITABLE", .severity = PW_SEV_ERROR,
		.file = "drivers/foo/bar.c", .line = 123,
		.message = "0666 (rw-rw-rw-): others can write",
		.fix = "\tdebugfs_create_file(\"x\", 0644, dir, NULL, &fops);",
		.added_line = "\tdebugfs_create_file(\"x\", 0666, dir, NULL, &fops);",
	};
	struct pw_reply_item it = { &f, NULL };
	char *refs[] = { "cover@example.org", "bad id\r\nX: y", NULL };
	const char *cc[] = { "list@vger.example.org", "author@example.org", NULL };
	struct pw_mail parent = {
		.msgid = "patch1@example.org",
		.from_name = "J\xc3\xbcrgen\r\nBcc: evil@example.org",
		.from_addr = "author@example.org", .references = refs,
		.subject = "[PATCH 1/2] foo: fix\r\nBcc: evil@example.org",
	};
	struct pw_reply_self me = {
		.name = "patchwarden", .addr = "bot@example.org",
		.reply_to = "maintainers@example.org",
		.dashboard_url = "https://pw.example.org/",
		.msgid = "patchwarden.patch.abc@example.org", .date = 1470124800,
	};
	struct pw_reply *r = NULL;
	char *err = NULL, *text;
	GMimeMessage *m;
	const char *v;

	assert_int_equal(pw_reply_patch(&me, &parent, cc, "linux-foo@vger.example.org",
					&it, 1, &r, &err), PW_OK);
	m = parse(r->wire);
	assert_string_equal(g_mime_message_get_subject(m),
			    "Re: [PATCH 1/2] foo: fix Bcc: evil@example.org");
	assert_null(g_mime_object_get_header(GMIME_OBJECT(m), "Bcc"));
	v = g_mime_object_get_header(GMIME_OBJECT(m), "In-Reply-To");
	assert_string_equal(v, "<patch1@example.org>");
	v = g_mime_object_get_header(GMIME_OBJECT(m), "References");
	assert_non_null(strstr(v, "<cover@example.org>"));
	assert_non_null(strstr(v, "<patch1@example.org>"));
	assert_null(strstr(v, "bad id"));
	assert_string_equal(g_mime_message_get_message_id(m), me.msgid);
	assert_string_equal(g_mime_object_get_header(GMIME_OBJECT(m), "Auto-Submitted"),
			    "auto-generated");
	/* Patchwork files no comment for it: the verdict is a check. */
	assert_string_equal(g_mime_object_get_header(GMIME_OBJECT(m), "X-Patchwork-Hint"),
			    "ignore");
	assert_non_null(g_mime_object_get_header(GMIME_OBJECT(m), "Reply-To"));
	assert_string_equal(r->rcpt[0], "author@example.org");
	assert_string_equal(r->rcpt[1], "list@vger.example.org");
	assert_null(r->rcpt[2]);
	text = body_text(m);
	assert_non_null(strstr(text, "Hello J\xc3\xbcrgen Bcc: evil@example.org,"));
	assert_non_null(strstr(text, "drivers/foo/bar.c:123"));
	assert_non_null(strstr(text, "> +\tdebugfs_create_file(\"x\", 0666"));
	assert_non_null(strstr(text, "0666 (rw-rw-rw-): others can write"));
	assert_null(strstr(text, "=3D"));
	assert_non_null(strstr(text, "0644, dir"));
	assert_non_null(strstr(text, "patchwarden check"));
	assert_non_null(strstr(text, "https://pw.example.org/message/patch1@example.org"));
	assert_null(strstr(text, "https://pw.example.org//"));
	g_free(text);
	g_object_unref(m);
	pw_reply_free(r);
}

/*
 * [list] mail = maintainers: To the first maintainer, Cc the others and
 * cc, the author neither; the body names the author, thanks no one, and
 * says who got it.
 */
static void test_compose_maintainers(void **state)
{
	struct pw_finding f = {
		.rule = "PERM_WORLD_WRITABLE", .severity = PW_SEV_ERROR,
		.file = "drivers/hwmon/lm75.c", .line = 12,
		.message = "0666 (rw-rw-rw-): others can write",
	};
	struct pw_reply_item it = { &f, NULL };
	const char *maint[] = { "boss@example.org", "second@example.org", NULL };
	const char *cc[] = { "rev@example.org", NULL };
	struct pw_mail parent = {
		.msgid = "lm75@example.org", .from_name = "Ann Author",
		.from_addr = "ann@example.com", .subject = "[PATCH] hwmon: lm75",
	};
	struct pw_reply_self me = {
		.addr = "bot@example.org", .msgid = "patchwarden.patch.m@example.org",
		.date = 1470124800, .maintainers = maint,
	};
	struct pw_reply *r = NULL;
	char *err = NULL, *text, *flat, **parts;
	GMimeMessage *m;

	assert_int_equal(pw_reply_patch(&me, &parent, cc, NULL, &it, 1, &r, &err),
			 PW_OK);
	assert_string_equal(r->to, "boss@example.org");
	assert_string_equal(r->rcpt[0], "boss@example.org");
	assert_string_equal(r->rcpt[1], "second@example.org");
	assert_string_equal(r->rcpt[2], "rev@example.org");
	assert_null(r->rcpt[3]);
	m = parse(r->wire);
	text = body_text(m);
	parts = g_strsplit_set(text, "\r\n ", -1);
	flat = g_strjoinv(" ", parts);
	g_strfreev(parts);
	/* The words alone, one space apart. */
	while ((parts = g_strsplit(flat, "  ", -1)) && parts[1]) {
		g_free(flat);
		flat = g_strjoinv(" ", parts);
		g_strfreev(parts);
	}
	g_strfreev(parts);
	assert_true(g_str_has_prefix(text, "Hello,"));
	assert_non_null(strstr(flat, "read the patch from Ann Author <ann@example.com>"));
	assert_null(strstr(text, "your patch"));
	assert_null(strstr(text, "Thanks for"));
	assert_non_null(strstr(flat, "maintainers only: the author was not mailed"));
	assert_string_equal(g_mime_object_get_header(GMIME_OBJECT(m), "In-Reply-To"),
			    "<lm75@example.org>");
	g_free(flat);
	g_free(text);
	g_object_unref(m);
	pw_reply_free(r);
}

/* A message that answers no mail (a digest): its own subject, To and
 * Cc, threaded under the message it names. */
static void test_compose_message(void **state)
{
	const char *to[] = { "boss@example.org", "second@example.org", NULL };
	const char *refs[] = { "d1@example.org", NULL };
	struct pw_reply_self me = {
		.addr = "bot@example.org", .msgid = "patchwarden.digest.2@example.org",
		.date = 1470124800,
	};
	struct pw_reply *r = NULL;
	char *err = NULL;
	GMimeMessage *m;

	assert_int_equal(pw_reply_message(&me, to, "[patchwarden] digest\r\nBcc: x@y",
					  "d2@example.org", refs, "Hello,\n", &r, &err),
			 PW_OK);
	m = parse(r->wire);
	assert_string_equal(g_mime_message_get_subject(m),
			    "[patchwarden] digest Bcc: x@y");
	assert_null(g_mime_object_get_header(GMIME_OBJECT(m), "Bcc"));
	assert_string_equal(g_mime_object_get_header(GMIME_OBJECT(m), "In-Reply-To"),
			    "<d2@example.org>");
	assert_string_equal(g_mime_object_get_header(GMIME_OBJECT(m), "References"),
			    "<d1@example.org> <d2@example.org>");
	assert_string_equal(r->rcpt[0], "boss@example.org");
	assert_string_equal(r->rcpt[1], "second@example.org");
	g_object_unref(m);
	pw_reply_free(r);
	/* No one to send it to: refused. */
	assert_int_equal(pw_reply_message(&me, NULL, "s", NULL, NULL, "b", &r, &err),
			 PW_ERR_INPUT);
	g_free(err);
}

static void test_compose_refuses(void **state)
{
	struct pw_finding f = { .rule = "R", .severity = PW_SEV_WARNING,
				.file = "a", .message = "m" };
	struct pw_reply_item it = { &f, NULL };
	struct pw_mail parent = {
		.msgid = "p@example.org", .from_name = "",
		.from_addr = "a\r\nb@example.org", .subject = "x",
	};
	struct pw_reply_self me = { .addr = "bot@example.org", .msgid = "id@example.org" };
	struct pw_reply *r = NULL;
	char *err = NULL;

	assert_int_equal(pw_reply_patch(&me, &parent, NULL, NULL, &it, 1, &r, &err),
			 PW_ERR_INPUT);
	assert_null(r);
	assert_non_null(err);
	g_free(err);
}

/* The lines of a text. */
static size_t nlines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* How often needle occurs in hay. */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* Composes the reply listing items; returns its body text (g_free). */
static char *compose(const struct pw_reply_self *me, const char *list_addr,
		     const struct pw_reply_item *it, size_t n)
{
	struct pw_mail parent = {
		.msgid = "p@example.org", .from_name = "Ann",
		.from_addr = "ann@example.org", .subject = "[PATCH] hwmon: x",
	};
	struct pw_reply *r = NULL;
	char *err = NULL, *text;
	GMimeMessage *m;

	assert_int_equal(pw_reply_patch(me, &parent, NULL, list_addr, it, n,
					&r, &err), PW_OK);
	m = parse(r->wire);
	text = body_text(m);
	g_object_unref(m);
	pw_reply_free(r);
	return text;
}

static const struct pw_reply_self plain_me = {
	.addr = "bot@example.org", .msgid = "id@example.org", .date = 1470124800,
};

/*
 * 1000 findings of one rule: one item, its count stated, its places
 * listed once and cut short, one fix; the reply stays short.
 */
static void test_compose_many(void **state)
{
	struct pw_finding f = { .rule = "PERM_SYMBOLIC", .severity = PW_SEV_WARNING,
				.file = "a.c", .line = 1, .message = "use octal",
				.added_line = "\tmodule_param(x, int, S_IRUGO);",
				.fix = "\tmodule_param(x, int, 0444);" };
	struct pw_reply_item *it = g_new0(struct pw_reply_item, 1000);
	/* A derived Message-ID: the reply cannot be threaded under it. */
	struct pw_mail parent = {
		.msgid = "derived.1234@patchwarden.invalid", .msgid_derived = true,
		.from_name = "", .from_addr = "a@example.org", .subject = "x",
	};
	struct pw_reply *r = NULL;
	char *err = NULL, *text;
	GMimeMessage *m;
	int i;

	for (i = 0; i < 1000; i++)
		it[i].f = &f;
	assert_int_equal(pw_reply_patch(&plain_me, &parent, NULL, NULL, it, 1000,
					&r, &err), PW_OK);
	m = parse(r->wire);
	text = body_text(m);
	assert_non_null(strstr(text, "PERM_SYMBOLIC (warning), 1000 lines: a.c:1, 1"));
	assert_non_null(strstr(flatten_text(text), "found 1000 things worth a second look"));
	assert_int_equal(count(text, "PERM_SYMBOLIC"), 1);
	assert_int_equal(count(text, "> +"), 1);
	assert_int_equal(count(text, "module_param(x, int, 0444)"), 1);
	assert_non_null(strstr(text, "The other 999 lines take the same"));
	assert_non_null(strstr(text, " more"));
	assert_true(nlines(text) < 60);
	assert_null(g_mime_object_get_header(GMIME_OBJECT(m), "In-Reply-To"));
	g_free(text);
	g_object_unref(m);
	pw_reply_free(r);
	g_free(it);
}

/*
 * 300 findings over every rule of the table, in many files, with
 * messages and quoted lines at their longest: one item per rule at
 * most, counts stated, under 60 lines, the most severe rules first, and
 * whatever is not listed counted.
 */
static void test_compose_bounded(void **state)
{
	size_t nrules, i, k, listed = 0;
	const struct pw_rule *rules = pw_rules(&nrules);
	struct pw_finding *f = g_new0(struct pw_finding, 300);
	struct pw_reply_item *it = g_new0(struct pw_reply_item, 300);
	GString *msg = g_string_new(NULL), *line = g_string_new("\t");
	char *text, *head;
	struct pw_reply_self me = plain_me;
	GString *url = g_string_new("https://dashboard.example.org/");
	size_t warned = 0, kinds = 0;
	int min_listed = PW_SEV_ERROR, max_left = PW_SEV_INFO;

	for (i = 0; i < 60; i++)
		g_string_append(msg, "long words ");
	for (i = 0; i < 300; i++)
		g_string_append_c(line, 'x');
	for (i = 0; i < 25; i++)
		g_string_append(url, "deep/path/");
	for (i = 0; i < 300; i++) {
		const struct pw_rule *r = &rules[i % nrules];

		f[i].rule = r->id;
		f[i].severity = r->severity;
		f[i].file = g_strdup_printf("drivers/hwmon/some/deep/path/file%zu.c", i);
		f[i].line = (int)(1000 + i);
		f[i].message = msg->str;
		f[i].added_line = line->str;
		f[i].fix = line->str;
		it[i].f = &f[i];
		if (r->severity > PW_SEV_INFO)
			warned++;
	}
	for (k = 0; k < nrules; k++)
		kinds += rules[k].severity > PW_SEV_INFO;
	text = compose(&plain_me, NULL, it, 300);
	if (g_getenv("PW_SHOW"))
		fputs(text, stderr);
	assert_true(nlines(text) < 60);
	head = g_strdup_printf("found %zu things of %zu kinds", warned, kinds);
	assert_non_null(strstr(flatten_text(text), head));
	for (k = 0; k < nrules; k++) {
		char *tag = g_strdup_printf(" %s (", rules[k].id);
		size_t c = count(text, tag);

		assert_true(c <= 1);
		if (rules[k].severity == PW_SEV_INFO)
			assert_int_equal(c, 0);
		listed += c;
		if (c && (int)rules[k].severity < min_listed)
			min_listed = (int)rules[k].severity;
		if (!c && rules[k].severity > PW_SEV_INFO &&
		    (int)rules[k].severity > max_left)
			max_left = (int)rules[k].severity;
		g_free(tag);
	}
	assert_true(listed >= 3);
	/* Nothing left out is more severe than anything listed. */
	assert_true(min_listed >= max_left);
	if (listed < kinds)
		assert_non_null(strstr(flatten_text(text), "other kinds, not listed"));
	g_free(head);
	g_free(text);
	/* A long dashboard address and a list address take room too. */
	me.dashboard_url = url->str;
	text = compose(&me, "linux-hwmon@vger.kernel.org", it, 300);
	assert_true(nlines(text) < 60);
	assert_non_null(strstr(text, "/message/p@example.org"));
	g_free(text);
	g_string_free(url, TRUE);
	for (i = 0; i < 300; i++)
		g_free(f[i].file);
	g_free(f);
	g_free(it);
	g_string_free(msg, TRUE);
	g_string_free(line, TRUE);
}

/* Info findings never reach a reply; a reply of info only is none. */
static void test_compose_no_info(void **state)
{
	struct pw_finding f[] = {
		{ .rule = "PERM_UNCOMMON", .severity = PW_SEV_INFO, .file = "a.c",
		  .line = 3, .message = "an uncommon mode" },
		{ .rule = "PERM_SYMBOLIC", .severity = PW_SEV_WARNING, .file = "a.c",
		  .line = 4, .message = "use octal" },
		{ .rule = "FINDINGS_CAPPED", .severity = PW_SEV_INFO,
		  .message = "more findings than the cap" },
	};
	struct pw_reply_item it[] = { { &f[0], NULL }, { &f[1], NULL }, { &f[2], NULL } };
	struct pw_mail parent = {
		.msgid = "p@example.org", .from_name = "", .from_addr = "a@example.org",
		.subject = "x",
	};
	struct pw_reply *r = NULL;
	char *err = NULL, *text = compose(&plain_me, NULL, it, 3);

	assert_null(strstr(text, "PERM_UNCOMMON"));
	assert_null(strstr(text, "FINDINGS_CAPPED"));
	assert_null(strstr(text, "uncommon"));
	assert_non_null(strstr(text, "one thing worth a second look"));
	g_free(text);
	assert_int_equal(pw_reply_patch(&plain_me, &parent, NULL, NULL, &it[2], 1,
					&r, &err), PW_ERR_INPUT);
	assert_null(r);
	g_free(err);
}

/* The intro names what was checked for the findings the reply has. */
static void test_compose_intro(void **state)
{
	struct pw_finding bad = {
		.rule = "PATCH_MALFORMED", .severity = PW_SEV_WARNING, .file = "a.c",
		.message = "hunk at line 5 ends early: 1 old and 1 new lines missing",
	};
	struct pw_finding resend = {
		.rule = "RESEND_IDENTICAL", .severity = PW_SEV_WARNING,
		.message = "the same change as an earlier patch",
	};
	struct pw_finding sym = {
		.rule = "PERM_SYMBOLIC", .severity = PW_SEV_WARNING, .file = "a.c",
		.line = 9, .message = "use octal",
	};
	struct pw_reply_item a[] = { { &bad, NULL } }, b[] = { { &resend, NULL } };
	struct pw_reply_item c[] = { { &sym, NULL }, { &bad, NULL } };
	char *text = compose(&plain_me, NULL, a, 1), *flat = flatten_text(text);

	assert_null(strstr(flat, "permission"));
	assert_non_null(strstr(flat, "in the form of its diff:"));
	/* A message is shown whole, on lines of its own. */
	assert_non_null(strstr(flat, "hunk at line 5 ends early: 1 old and 1 new lines missing"));
	g_free(text);
	text = compose(&plain_me, NULL, b, 1);
	flat = flatten_text(text);
	assert_null(strstr(flat, "permission"));
	assert_non_null(strstr(flat, "in how it was sent:"));
	g_free(text);
	text = compose(&plain_me, NULL, c, 2);
	flat = flatten_text(text);
	assert_non_null(strstr(flat, "in its permission modes and the form of its diff:"));
	g_free(text);
}

/*
 * The footer names the list's posting address when one is known, and
 * never a List-Id; a person can be reached through it or Reply-To.
 */
static void test_compose_footer(void **state)
{
	struct pw_finding f = { .rule = "PERM_SYMBOLIC", .severity = PW_SEV_WARNING,
				.file = "a.c", .line = 1, .message = "use octal" };
	struct pw_reply_item it = { &f, NULL };
	struct pw_reply_self me = plain_me;
	char *text = compose(&plain_me, "linux-hwmon@vger.kernel.org", &it, 1);
	char *flat = flatten_text(text), *foot = strstr(flat, "-- ");

	assert_non_null(foot);
	assert_non_null(strstr(foot, "please say so on linux-hwmon@vger.kernel.org."));
	assert_non_null(strstr(foot, "automated reply"));
	assert_null(strstr(flat, "linux-hwmon.vger.kernel.org"));
	g_free(text);
	text = compose(&plain_me, NULL, &it, 1);
	flat = flatten_text(text);
	assert_null(strstr(flat, "@vger"));
	assert_non_null(strstr(flat, "please say so on the list."));
	assert_null(strstr(flat, "dashboard"));
	g_free(text);
	me.reply_to = "maintainers@example.org";
	text = compose(&me, "linux-hwmon@vger.kernel.org", &it, 1);
	assert_non_null(strstr(flatten_text(text), "reply to this mail: replies reach "
				"the people who run it"));
	g_free(text);
}

/*
 * To the maintainers, the footer says what they can do (the triage
 * commands by mail, the dashboard's forms when there is one), not what
 * an author would; and "The other N lines" stands apart from the fix.
 */
static void test_compose_maintainers_footer(void **state)
{
	struct pw_finding f[3] = {
		{ .rule = "PERM_SYMBOLIC", .severity = PW_SEV_WARNING,
		  .file = "a.c", .line = 1, .message = "use octal",
		  .added_line = "\tmodule_param(x, int, S_IRUGO);",
		  .fix = "\tmodule_param(x, int, 0444);" },
		{ .rule = "PERM_SYMBOLIC", .severity = PW_SEV_WARNING,
		  .file = "a.c", .line = 2, .message = "use octal" },
		{ .rule = "PERM_SYMBOLIC", .severity = PW_SEV_WARNING,
		  .file = "a.c", .line = 3, .message = "use octal" },
	};
	struct pw_reply_item it[3] = { { &f[0], NULL }, { &f[1], NULL },
				       { &f[2], NULL } };
	const char *maint[] = { "boss@example.org", NULL };
	struct pw_reply_self me = plain_me;
	char *text, *flat, *foot;

	me.maintainers = maint;
	text = compose(&me, "linux-hwmon@vger.kernel.org", it, 3);
	flat = flatten_text(text);
	foot = strstr(flat, "-- ");
	assert_non_null(foot);
	assert_null(strstr(flat, "say so on"));
	assert_null(strstr(flat, "Check a patch before sending"));
	assert_non_null(strstr(foot, "the author was not mailed"));
	assert_non_null(strstr(foot, "answer this mail with a line \"patchwarden: wrong\""));
	assert_non_null(strstr(foot, "\"patchwarden: ignore RULE PATH\""));
	assert_null(strstr(flat, "dashboard"));
	assert_non_null(strstr(text, "+\tmodule_param(x, int, 0444);\r\n\r\nThe other 2 lines"));
	g_free(text);

	me.dashboard_url = "https://pw.example.org/";
	text = compose(&me, NULL, it, 3);
	foot = strstr(flatten_text(text), "-- ");
	assert_non_null(foot);
	assert_non_null(strstr(foot, "mark each finding with its form on the "
				"dashboard: https://pw.example.org/message/p@example.org"));
	g_free(text);

	/* To the author: unchanged. */
	me.maintainers = NULL;
	text = compose(&me, NULL, it, 3);
	flat = flatten_text(text);
	assert_non_null(strstr(flat, "please say so on the list."));
	assert_null(strstr(flat, "patchwarden: wrong"));
	assert_non_null(strstr(flat, "Every finding, line by line, is on the dashboard"));
	g_free(text);
}

/* A series: places are named by their patch's number. */
static void test_compose_series(void **state)
{
	struct pw_finding f1 = { .rule = "PERM_SYMBOLIC", .severity = PW_SEV_WARNING,
				 .file = "a.c", .line = 1, .message = "use octal" };
	struct pw_finding f2 = { .rule = "PERM_SYMBOLIC", .severity = PW_SEV_WARNING,
				 .file = "a.c", .line = 7, .message = "use octal" };
	struct pw_reply_item it[] = {
		{ &f1, "[PATCH v2 1/3] hwmon: one" }, { &f2, "[PATCH v2 3/3] hwmon: three" },
	};
	char *text = compose(&plain_me, NULL, it, 2);

	assert_non_null(strstr(flatten_text(text), "2 lines: patch 1/3: a.c:1; patch 3/3: a.c:7"));
	assert_non_null(strstr(text, "your series"));
	g_free(text);
}

/* What a later version fixed: one sentence after the introduction. */
static void test_compose_fixed(void **state)
{
	struct pw_finding f = { .rule = "PERM_SYMBOLIC", .severity = PW_SEV_WARNING,
				.file = "a.c", .line = 1, .message = "use octal" };
	struct pw_reply_item it = { &f, "[PATCH v4 3/5] hwmon: three" };
	struct pw_reply_self me = plain_me;
	char *text;

	me.fixed = "Thanks for v4: it fixes 1 of the 9 findings reported on v3"
		" (PERM_SYMBOLIC); only what is new in it follows.";
	text = compose(&me, NULL, &it, 1);
	assert_non_null(strstr(flatten_text(text), "Thanks for v4: it fixes 1 of"
			       " the 9 findings reported on v3 (PERM_SYMBOLIC)"));
	assert_true(strstr(text, "second look") < strstr(text, "Thanks for v4"));
	assert_true(strstr(text, "Thanks for v4") < strstr(text, "PERM_SYMBOLIC (warning)"));
	g_free(text);
	text = compose(&plain_me, NULL, &it, 1);
	assert_null(strstr(text, "Thanks for v4"));
	g_free(text);
}

/* Places: files named once, a finding of the whole patch names none. */
static void test_compose_places(void **state)
{
	struct pw_finding f[] = {
		{ .rule = "PATCH_MALFORMED", .severity = PW_SEV_WARNING, .file = "a.c",
		  .line = 1, .message = "m" },
		{ .rule = "PATCH_MALFORMED", .severity = PW_SEV_WARNING, .message = "m" },
		{ .rule = "PATCH_MALFORMED", .severity = PW_SEV_WARNING, .file = "a.c",
		  .line = 2, .message = "m" },
		{ .rule = "PATCH_MALFORMED", .severity = PW_SEV_WARNING, .file = "b.c",
		  .message = "m" },
	};
	struct pw_reply_item it[] = { { &f[0], NULL }, { &f[1], NULL },
				      { &f[2], NULL }, { &f[3], NULL } };
	char *text = compose(&plain_me, NULL, it, 4);

	assert_non_null(strstr(flatten_text(text),
			       "PATCH_MALFORMED (warning), 4 findings: a.c:1, 2; b.c "));
	g_free(text);
}

/* The text on one line: CRLF and LF become single spaces. */
static char *flatten(const char *text)
{
	char **lines = g_strsplit(text, "\n", -1);
	char *flat;
	size_t i;

	for (i = 0; lines[i]; i++)
		g_strchomp(lines[i]);
	flat = g_strjoinv(" ", lines);
	g_strfreev(lines);
	return flat;
}

/* The Subject header lines of a wire message, as written. */
static char *raw_subject(const char *p, size_t len)
{
	GString *out = g_string_new(NULL);
	const char *at = g_strstr_len(p, (gssize)len, "\r\nSubject: ");
	const char *end;

	assert_non_null(at);
	at += 2;
	do {
		end = g_strstr_len(at, (gssize)(p + len - at), "\r\n");
		assert_non_null(end);
		g_string_append_len(out, at, end - at + 2);
		at = end + 2;
	} while (*at == ' ' || *at == '\t');
	return g_string_free(out, FALSE);
}

/* An unstructured header value (folded, CRLF) decoded word by word. */
static char *words_decoded(const char *value)
{
	char *unfolded = g_mime_utils_header_unfold(value);
	char **tok = g_strsplit_set(g_strstrip(unfolded), " \t", -1);
	GString *out = g_string_new(NULL);
	bool prev_word = false;
	int i;

	for (i = 0; tok[i]; i++) {
		bool word = g_str_has_prefix(tok[i], "=?") &&
			    g_str_has_suffix(tok[i], "?=");

		if (!*tok[i])
			continue;
		if (out->len && !(word && prev_word))
			g_string_append_c(out, ' ');
		if (word) {
			char *d = g_mime_utils_header_decode_text(NULL, tok[i]);

			assert_true(g_utf8_validate(d, -1, NULL));
			g_string_append(out, d);
			g_free(d);
		} else {
			g_string_append(out, tok[i]);
		}
		prev_word = word;
	}
	g_strfreev(tok);
	g_free(unfolded);
	return g_string_free(out, FALSE);
}

/*
 * A reply to an overlong subject (10,000 characters; encoded words of
 * multibyte UTF-8): cut on a character, "..." after it, each encoded
 * word whole UTF-8 on its own, and the header encoded and folded by
 * GMime exactly as it writes that subject itself.
 */
static void check_long_subject(const char *subject)
{
	struct pw_finding f = {
		.rule = "PERM_WORLD_WRITABLE", .severity = PW_SEV_ERROR,
		.file = "a.c", .line = 1, .message = "0666",
		.added_line = "\tchmod(\"f\", 0666);",
	};
	struct pw_reply_item it = { &f, NULL };
	struct pw_mail parent = {
		.msgid = "long@example.org", .from_name = "A",
		.from_addr = "a@example.org", .subject = (char *)subject,
	};
	struct pw_reply_self me = {
		.addr = "bot@example.org", .msgid = "patchwarden.patch.l@example.org",
		.date = 1470124800,
	};
	struct pw_reply *r = NULL;
	GMimeMessage *m, *ref;
	GMimeFormatOptions *fo;
	char *err = NULL, *got, *want, *ref_text, *w, *cut;
	const char *wire;
	gsize len;

	assert_int_equal(pw_reply_patch(&me, &parent, NULL, NULL, &it, 1,
					&r, &err), PW_OK);
	m = parse(r->wire);
	wire = g_bytes_get_data(r->wire, &len);
	want = raw_subject(wire, len);
	/* Read as RFC 2047 says, each encoded word on its own (GMime's
	 * reader joins adjacent words' base64 and stops at the padding of
	 * the first), each of them whole characters. */
	got = words_decoded(want + strlen("Subject: "));
	assert_true(g_utf8_validate(got, -1, NULL));
	assert_null(strstr(got, "\xef\xbf\xbd"));
	assert_true(g_utf8_strlen(got, -1) <= 254);
	assert_true(g_str_has_prefix(got, "Re: "));
	assert_true(g_str_has_suffix(got, "..."));
	cut = g_strndup(got + 4, strlen(got) - 7);
	assert_true(g_str_has_prefix(subject, cut));
	assert_string_equal(got, r->subject);
	ref = g_mime_message_new(TRUE);
	g_mime_message_set_subject(ref, got, "utf-8");
	fo = g_mime_format_options_clone(NULL);
	g_mime_format_options_set_newline_format(fo, GMIME_NEWLINE_FORMAT_DOS);
	ref_text = g_mime_object_to_string(GMIME_OBJECT(ref), fo);
	g_free(got);
	w = g_strconcat("\r\n", ref_text, NULL);
	got = raw_subject(w, strlen(w));
	g_free(w);
	assert_string_equal(want, got);
	g_free(ref_text);
	g_mime_format_options_free(fo);
	g_object_unref(ref);
	g_free(got);
	g_free(want);
	g_free(cut);
	g_object_unref(m);
	pw_reply_free(r);
}

static void test_long_subject(void **state)
{
	GString *plain = g_string_new("[PATCH] ");
	GString *enc = g_string_new("[PATCH] ");
	char *raw, *decoded;
	int i;

	for (i = 0; i < 10000; i++)
		g_string_append_c(plain, 'x');
	check_long_subject(plain->str);
	g_string_truncate(plain, 8);
	for (i = 0; i < 2000; i++)
		g_string_append(plain, "ab ");
	check_long_subject(plain->str);
	/* As mail carries it: encoded words of UTF-8, decoded by GMime. */
	for (i = 0; i < 700; i++)
		g_string_append(enc, "\xc3\xa9\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x94\x92");
	raw = g_mime_utils_header_encode_text(NULL, enc->str, "utf-8");
	decoded = words_decoded(raw);
	assert_string_equal(decoded, enc->str);
	check_long_subject(decoded);
	g_free(decoded);
	g_free(raw);
	g_string_free(enc, TRUE);
	g_string_free(plain, TRUE);
}

static void test_compose_flood(void **state)
{
	char *lists[] = { "linux-kernel", "linux-media", NULL };
	struct pw_flood_info f = {
		.key = "flood-1", .sender_name = "Baole Ni", .sender_addr = "baolex.ni@intel.com",
		.size = 1285, .claimed_total = 1285,
		.subject = "[PATCH 0001/1285] Replace numeric parameter like 0444 with macro",
		.lists = lists, .recipients = 312, .first_seen = 1470117600,
		.last_seen = 1470129120, .threaded = false,
		.first_msgid = "first@intel.com",
	};
	struct pw_reply_self me = {
		.addr = "bot@example.org", .msgid = "patchwarden.flood.x@example.org",
		.date = 1470129200,
	};
	struct pw_reply *r = NULL;
	char *err = NULL, *text, *flat;
	GMimeMessage *m;

	assert_int_equal(pw_reply_flood(&me, &f, NULL, &r, &err), PW_OK);
	m = parse(r->wire);
	text = body_text(m);
	flat = flatten(text);
	assert_non_null(strstr(flat, "1285 patches in 3 hours"));
	assert_non_null(strstr(flat, "2 lists (linux-kernel, linux-media)"));
	assert_non_null(strstr(flat, "312 people"));
	assert_non_null(strstr(flat, "separate threads"));
	/* It names nothing it did not check, and says a bot wrote it. */
	assert_null(strstr(flat, "file permission modes"));
	assert_non_null(strstr(flat, "automated reply"));
	assert_non_null(strstr(flat, "answers a flood with one summary"));
	assert_string_equal(g_mime_object_get_header(GMIME_OBJECT(m), "In-Reply-To"),
			    "<first@intel.com>");
	g_free(flat);
	g_free(text);
	g_object_unref(m);
	pw_reply_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compose_maintainers),
		cmocka_unit_test(test_compose_maintainers_footer),
		cmocka_unit_test(test_compose_message),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_subject),
		cmocka_unit_test(test_long_subject),
		cmocka_unit_test(test_msgid),
		cmocka_unit_test(test_addr_ok),
		cmocka_unit_test(test_addr_noreply),
		cmocka_unit_test(test_compose_fixed),
		cmocka_unit_test(test_compose_patch),
		cmocka_unit_test(test_compose_refuses),
		cmocka_unit_test(test_compose_many),
		cmocka_unit_test(test_compose_bounded),
		cmocka_unit_test(test_compose_no_info),
		cmocka_unit_test(test_compose_intro),
		cmocka_unit_test(test_compose_footer),
		cmocka_unit_test(test_compose_series),
		cmocka_unit_test(test_compose_places),
		cmocka_unit_test(test_compose_flood),
	};

	pw_mail_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
