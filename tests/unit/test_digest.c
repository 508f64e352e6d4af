/*
 * Unit tests for bot/digest.c: the text of a list's weekly digest, from
 * facts given by hand, and when a week is worth one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "bot/digest.h"

static struct pw_digest_count *count(const char *name, const char *label,
				     int64_t n, int64_t m)
{
	struct pw_digest_count *c = g_new0(struct pw_digest_count, 1);

	c->name = g_strdup(name);
	c->label = g_strdup(label);
	c->n = n;
	c->m = m;
	return c;
}

/* Empty facts, as pw_db_digest_facts() starts them. */
static void facts_init(struct pw_digest_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->rules = g_ptr_array_new();
	f->floods = g_ptr_array_new();
	f->campaigns = g_ptr_array_new();
	f->senders = g_ptr_array_new();
}

static void facts_free(struct pw_digest_facts *f)
{
	guint i;

	for (i = 0; i < f->rules->len; i++) {
		struct pw_digest_count *c = f->rules->pdata[i];

		g_free(c->name);
		g_free(c->label);
		g_free(c);
	}
	for (i = 0; i < f->senders->len; i++) {
		struct pw_digest_count *c = f->senders->pdata[i];

		g_free(c->name);
		g_free(c->label);
		g_free(c);
	}
	for (i = 0; i < f->floods->len + f->campaigns->len; i++) {
		struct pw_digest_flood *fl = i < f->floods->len ?
			f->floods->pdata[i] :
			f->campaigns->pdata[i - f->floods->len];

		g_free(fl->sender);
		g_free(fl->subject);
		g_free(fl->first_msgid);
		g_free(fl);
	}
	g_ptr_array_free(f->rules, TRUE);
	g_ptr_array_free(f->floods, TRUE);
	g_ptr_array_free(f->campaigns, TRUE);
	g_ptr_array_free(f->senders, TRUE);
}

static void test_text(void **state)
{
	struct pw_digest_facts f;
	struct pw_digest_flood *fl = g_new0(struct pw_digest_flood, 1);
	struct pw_digest_flood *cp = g_new0(struct pw_digest_flood, 1);
	const char *decisions[] = { "2026-12-01 boss@example.org: PERM_SYMBOLIC"
				    " ignored for drivers/hwmon/", NULL };
	struct pw_digest_in in = {
		.list = "linux-hwmon.vger.kernel.org",
		.since = 1764288000,	/* 2025-11-28 00:00 UTC */
		.until = 1764892800,	/* 2025-12-05 00:00 UTC */
		.facts = &f, .decisions = decisions,
		.dashboard_url = "https://pw.example.org/",
	};
	char *text, *subject, **lines;
	size_t i;

	facts_init(&f);
	f.patches = 12;
	f.patches_found = 3;
	f.by_severity[PW_SEV_ERROR] = 1;
	f.by_severity[PW_SEV_WARNING] = 20;
	f.automated = 4;
	f.replies = 3;
	f.held = 1;
	g_ptr_array_add(f.rules, count("PERM_WORLD_WRITABLE", "2", 1, 1));
	g_ptr_array_add(f.rules, count("PERM_SYMBOLIC", "1", 20, 2));
	g_ptr_array_add(f.senders, count("ann@example.com", "Ann\r\nBcc: x", 5, 2));
	fl->sender = g_strdup("flood@example.com");
	fl->subject = g_strdup("[PATCH 0001/1285] Replace numeric parameter like"
			       " 0444 with macro");
	fl->first_msgid = g_strdup("f1@example.com");
	fl->size = 120;
	fl->detected_at = 1764547200;	/* 2025-12-01 */
	g_ptr_array_add(f.floods, fl);
	/* A campaign: listed with its pace, apart from the floods. */
	cp->sender = g_strdup("christophe.jaillet@wanadoo.fr");
	cp->subject = g_strdup("watchdog: apple: Use devm_clk_get_enabled() helper");
	cp->first_msgid = g_strdup("c1@example.com");
	cp->size = 21;
	cp->detected_at = 1764547200;
	cp->first = 1764460800;		/* 2025-11-30 00:00 */
	cp->last = cp->first + 31 * 3600;
	g_ptr_array_add(f.campaigns, cp);

	text = pw_digest_text(&in, &subject);
	assert_string_equal(subject, "[patchwarden] linux-hwmon.vger.kernel.org"
			    " digest, the week to 2025-12-05: 12 patches, 21"
			    " findings");
	assert_non_null(strstr(text, "2025-11-28 00:00 UTC to 2025-12-05 00:00 UTC"));
	assert_non_null(strstr(text, "Patches: 12, 3 with findings."));
	assert_non_null(strstr(text, "Findings: 1 error, 20 warnings."));
	/* Rules in the order given (the store sorts them), severity named. */
	assert_true(strstr(text, "PERM_WORLD_WRITABLE (error): 1 in 1 patch") <
		    strstr(text, "PERM_SYMBOLIC (warning): 20 in 2 patches"));
	assert_non_null(strstr(text, "120 patches from flood@example.com"));
	assert_non_null(strstr(text, "Campaigns (near-identical patches sent one"));
	assert_true(strstr(text, "Floods (") < strstr(text, "Campaigns ("));
	assert_non_null(strstr(text, "21 patches over 31 hours from"
			       " christophe.jaillet@wanadoo.fr"));
	assert_non_null(strstr(text, "https://pw.example.org/message/c1@example.com"));
	assert_non_null(strstr(text, "https://pw.example.org/message/f1@example.com"));
	assert_non_null(strstr(text, "4 messages from machines left out"));
	/* A name from mail is cleaned onto one line. */
	assert_non_null(strstr(text, "Ann Bcc: x <ann@example.com>: 5 patches,"
			       " 2 with findings"));
	assert_non_null(strstr(text, "Replies to its mail: 3, 1 of them held"));
	assert_non_null(strstr(text, "PERM_SYMBOLIC ignored for drivers/hwmon/"));
	assert_non_null(strstr(text, "https://pw.example.org/list/"
			       "linux-hwmon.vger.kernel.org"));
	lines = g_strsplit(text, "\n", -1);
	for (i = 0; lines[i]; i++)
		if (g_utf8_strlen(lines[i], -1) > 78)
			fail_msg("too long: %s", lines[i]);
	g_strfreev(lines);
	g_free(text);
	g_free(subject);

	/* Without a dashboard, no link; without decisions, no section. */
	in.dashboard_url = NULL;
	in.decisions = NULL;
	text = pw_digest_text(&in, &subject);
	assert_null(strstr(text, "http"));
	assert_null(strstr(text, "Decisions"));
	assert_non_null(strstr(text, "weekly digest"));
	g_free(text);
	g_free(subject);

	/* Another period (--since, a late digest) is named as it is. */
	in.since = in.until - 30 * 86400;
	text = pw_digest_text(&in, &subject);
	assert_non_null(strstr(subject, "digest, the 30 days to 2025-12-05:"));
	assert_non_null(strstr(text, "the mail it read in the 30 days, from\n"
			       "2025-11-05 00:00 UTC to 2025-12-05 00:00 UTC."));
	assert_null(strstr(text, "weekly"));
	g_free(text);
	g_free(subject);
	in.since = in.until - 5 * 3600;
	text = pw_digest_text(&in, &subject);
	assert_non_null(strstr(subject, "digest, the 5 hours to 2025-12-05:"));
	g_free(text);
	g_free(subject);
	facts_free(&f);
}

/* A week with no patch, no flood and no decision is worth no digest. */
static void test_worth(void **state)
{
	struct pw_digest_facts f;
	const char *none[] = { NULL };
	const char *one[] = { "a decision", NULL };

	facts_init(&f);
	f.automated = 40;	/* machines' mail alone is no news */
	assert_false(pw_digest_worth(&f, none));
	assert_true(pw_digest_worth(&f, one));
	f.patches = 1;
	assert_true(pw_digest_worth(&f, NULL));
	facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_worth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
