/*
 * Unit tests for checks/etiquette.c: whether a reply may go, from facts
 * and settings alone, with no store and no clock (now is passed in).
 * Every hold reason with its exact wording (the outbox stores it and
 * the integration tests compare it), their precedence, the hourly
 * limits at their boundary, [reply] max_age, the author in Cc, and the
 * differences between a patch, a flood's summary and a released reply.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "checks/etiquette.h"

#define NOW INT64_C(1800000000)
#define DAY 86400

static const char *const extra_senders[] = { "ci@example.org", NULL };

static struct pw_etiquette_rules rules(void)
{
	struct pw_etiquette_rules r = {
		.bot_addr = "bot@example.org",
		.max_age = 30 * DAY,
		.per_recipient_per_hour = 3,
		.global_per_hour = 10,
		.automated_senders = extra_senders,
	};

	return r;
}

/* A patch from a person, dated an hour ago, nothing against it. */
static struct pw_etiquette_facts patch(void)
{
	struct pw_etiquette_facts f = {
		.kind = PW_ETIQUETTE_PATCH,
		.date = NOW - 3600,
		.poster = "ann@example.com",
		.poster_ok = true,
	};

	return f;
}

/* The reason judged (a copy, g_free), or NULL when the reply may go;
 * fails on a reply with no address. */
static char *why(const struct pw_etiquette_facts *f,
		 const struct pw_etiquette_rules *r)
{
	struct pw_etiquette_verdict v;
	char *s;

	pw_etiquette_judge(f, r, NOW, &v);
	assert_int_not_equal(v.act, PW_ETIQUETTE_NO_ADDRESS);
	assert_int_equal(v.act == PW_ETIQUETTE_HOLD, v.reason != NULL);
	s = g_strdup(v.reason);
	pw_etiquette_verdict_release(&v);
	assert_null(v.reason);
	return s;
}

static void expect(const struct pw_etiquette_facts *f,
		   const struct pw_etiquette_rules *r, const char *reason)
{
	char *s = why(f, r);

	if (reason)
		assert_string_equal(s, reason);
	else
		assert_null(s);
	g_free(s);
}

static enum pw_etiquette_act act_of(const struct pw_etiquette_facts *f,
				    const struct pw_etiquette_rules *r)
{
	struct pw_etiquette_verdict v;
	enum pw_etiquette_act a;

	pw_etiquette_judge(f, r, NOW, &v);
	a = v.act;
	if (a != PW_ETIQUETTE_HOLD)
		assert_null(v.reason);
	pw_etiquette_verdict_release(&v);
	return a;
}

static void sends(void **state)
{
	struct pw_etiquette_rules r = rules();
	struct pw_etiquette_facts f = patch();

	expect(&f, &r, NULL);
	f.kind = PW_ETIQUETTE_FLOOD;
	expect(&f, &r, NULL);
	f.kind = PW_ETIQUETTE_RELEASE;
	expect(&f, &r, NULL);
}

/* Each reason alone, in its words. */
static void each_reason(void **state)
{
	struct pw_etiquette_rules r = rules();
	struct pw_etiquette_facts f;

	f = patch();
	f.held = "part of flood 7: answered once, for the whole flood";
	expect(&f, &r, "part of flood 7: answered once, for the whole flood");
	f = patch();
	f.backfill = true;
	expect(&f, &r, "read while backfilling an archive");
	f = patch();
	f.date = NOW - 31 * DAY;
	expect(&f, &r, "older than 30 days: too late to answer");
	f = patch();
	f.automated = "Auto-Submitted: auto-generated";
	expect(&f, &r, "automated mail (Auto-Submitted: auto-generated)");
	f = patch();
	f.poster = "Bot@Example.ORG";	/* the bot's address, any case */
	expect(&f, &r, "the bot's own mail");
	f = patch();
	f.own_msgid = true;		/* one of its replies, by Message-ID */
	expect(&f, &r, "the bot's own mail");
	f = patch();
	f.poster_stop = 42;
	expect(&f, &r, "author opted out (decision 42)");
	f = patch();
	f.poster = "lkp@intel.com";	/* built in */
	expect(&f, &r, "automated sender lkp@intel.com");
	f = patch();
	f.poster = "CI@example.org";	/* [reply] automated_senders */
	expect(&f, &r, "automated sender CI@example.org");
	f = patch();
	f.mail_off = "mail off for list linux-hwmon";
	expect(&f, &r, "mail off for list linux-hwmon");
	f = patch();
	f.to_sent = 3;
	expect(&f, &r, "rate limit: 3 replies to ann@example.com in the last"
	       " hour (per_recipient_per_hour = 3)");
	f = patch();
	f.all_sent = 10;
	expect(&f, &r, "rate limit: 10 replies in the last hour"
	       " (global_per_hour = 10)");
}

/*
 * Everything at once gives the first reason; taking the reasons away
 * one by one, in order, gives each next one.
 */
static void precedence(void **state)
{
	struct pw_etiquette_rules r = rules();
	struct pw_etiquette_facts f = patch();

	f.held = "held back";
	f.backfill = true;
	f.date = 0;
	f.automated = "X-Patchwork-Hint: ignore";
	f.own_msgid = true;
	f.poster = "noreply@example.com";
	f.poster_stop = 5;
	f.mail_off = "mail = maintainers, but no maintainer is known for it";
	f.poster_ok = false;
	f.to_sent = 9;
	f.all_sent = 99;

	expect(&f, &r, "held back");
	f.held = NULL;
	expect(&f, &r, "read while backfilling an archive");
	f.backfill = false;
	expect(&f, &r, "its Date is unknown or impossible: taken as too old"
	       " to answer");
	f.date = NOW;
	expect(&f, &r, "automated mail (X-Patchwork-Hint: ignore)");
	f.automated = NULL;
	expect(&f, &r, "the bot's own mail");
	f.own_msgid = false;
	/* A patch: the poster's "stop" before the sender's kind. */
	expect(&f, &r, "author opted out (decision 5)");
	f.poster_stop = 0;
	expect(&f, &r, "automated sender noreply@example.com");
	f.poster = "ann@example.com";
	expect(&f, &r, "mail = maintainers, but no maintainer is known for it");
	f.mail_off = NULL;
	/* No address: no reply at all, before the limits are asked. */
	assert_int_equal(act_of(&f, &r), PW_ETIQUETTE_NO_ADDRESS);
	f.poster_ok = true;
	expect(&f, &r, "rate limit: 9 replies to ann@example.com in the last"
	       " hour (per_recipient_per_hour = 3)");
	f.to_sent = 0;
	expect(&f, &r, "rate limit: 99 replies in the last hour"
	       " (global_per_hour = 10)");
	f.all_sent = 0;
	expect(&f, &r, NULL);
}

/* A limit of n allows n replies in the window: the next is held. */
static void limits_at_the_boundary(void **state)
{
	struct pw_etiquette_rules r = rules();
	struct pw_etiquette_facts f = patch();

	f.to_sent = 2;
	expect(&f, &r, NULL);
	f.to_sent = 3;
	expect(&f, &r, "rate limit: 3 replies to ann@example.com in the last"
	       " hour (per_recipient_per_hour = 3)");
	f.to_sent = 0;
	f.all_sent = 9;
	expect(&f, &r, NULL);
	f.all_sent = 10;
	expect(&f, &r, "rate limit: 10 replies in the last hour"
	       " (global_per_hour = 10)");

	/* 0 allows none; a negative limit is no limit. */
	f.all_sent = 0;
	r.per_recipient_per_hour = 0;
	expect(&f, &r, "rate limit: 0 replies to ann@example.com in the last"
	       " hour (per_recipient_per_hour = 0)");
	r.per_recipient_per_hour = -1;
	r.global_per_hour = -1;
	f.to_sent = 1000;
	f.all_sent = 1000;
	expect(&f, &r, NULL);
}

/* [reply] max_age: mail exactly that old is answered, older not; 0 is
 * off, and then an unknown Date is no reason either. */
static void max_age(void **state)
{
	struct pw_etiquette_rules r = rules();
	struct pw_etiquette_facts f = patch();

	f.date = NOW - 30 * DAY;
	expect(&f, &r, NULL);
	f.date = NOW - 30 * DAY - 1;
	expect(&f, &r, "older than 30 days: too late to answer");
	f.date = 0;
	expect(&f, &r, "its Date is unknown or impossible: taken as too old"
	       " to answer");
	f.date = -5;
	expect(&f, &r, "its Date is unknown or impossible: taken as too old"
	       " to answer");
	/* The days are whole days of max_age. */
	r.max_age = 3 * DAY + 7;
	f.date = NOW - 4 * DAY;
	expect(&f, &r, "older than 3 days: too late to answer");

	r.max_age = 0;
	f.date = 0;
	expect(&f, &r, NULL);
	f.date = NOW - 3650 * DAY;
	expect(&f, &r, NULL);
	r.max_age = -1;
	expect(&f, &r, NULL);
}

static bool copies(const struct pw_etiquette_facts *f,
		   const struct pw_etiquette_rules *r)
{
	struct pw_etiquette_verdict v;
	bool c = pw_etiquette_copy_author(f, r, NOW);

	/* The verdict says the same as the question asked first. */
	pw_etiquette_judge(f, r, NOW, &v);
	assert_int_equal(v.copy_author, c);
	pw_etiquette_verdict_release(&v);
	return c;
}

/*
 * The author an in-body From: names, when someone else posted the
 * patch, is copied unless the author's own limit or the global one is
 * reached or the author opted out; a reply held anyway copies the
 * author (released by hand, it goes as composed).
 */
static void author_in_cc(void **state)
{
	struct pw_etiquette_rules r = rules();
	struct pw_etiquette_facts f = patch();

	f.poster = "carrier@example.com";
	f.author = "ann@example.com";
	f.author_ok = true;
	assert_true(copies(&f, &r));
	expect(&f, &r, NULL);

	f.author_sent = 2;
	assert_true(copies(&f, &r));
	f.author_sent = 3;
	assert_false(copies(&f, &r));
	/* The author's limit is no reason to hold the reply to the poster. */
	expect(&f, &r, NULL);
	f.author_sent = 0;

	f.all_sent = 10;
	assert_false(copies(&f, &r));
	f.all_sent = 0;

	f.author_stop = 8;
	assert_false(copies(&f, &r));
	expect(&f, &r, NULL);

	/* An unusable address is not counted, but its "stop" still holds. */
	f.author_ok = false;
	f.author_sent = 50;
	assert_false(copies(&f, &r));
	f.author_stop = 0;
	assert_true(copies(&f, &r));

	/* Held anyway: copied whatever the limits. */
	f.author_ok = true;
	f.author_stop = 8;
	f.held = "held back";
	assert_true(copies(&f, &r));
	f.held = NULL;
	f.backfill = true;
	assert_true(copies(&f, &r));
	f.backfill = false;
	assert_false(copies(&f, &r));

	/* The recipients' facts do not enter into it. */
	f.author_stop = 0;
	f.author_sent = 0;
	f.mail_off = "mail off for list x";
	f.to_sent = 100;
	assert_true(copies(&f, &r));

	/* No other author, or not a patch: nothing to decide. */
	f = patch();
	f.author_sent = 100;
	f.author_stop = 1;
	assert_true(copies(&f, &r));
	f.author = "ann@example.com";
	f.kind = PW_ETIQUETTE_FLOOD;
	assert_true(copies(&f, &r));
	f.kind = PW_ETIQUETTE_RELEASE;
	assert_true(copies(&f, &r));
	f.kind = PW_ETIQUETTE_PATCH;
	assert_false(copies(&f, &r));
}

/*
 * The lists' mail modes: off, or maintainers with none known, holds
 * with the reason given; to the maintainers, the To counted is the
 * first maintainer, and the poster's address no longer matters.
 */
static void mail_modes(void **state)
{
	struct pw_etiquette_rules r = rules();
	struct pw_etiquette_facts f = patch();

	f.mail_off = "mail off for mail on no list (a list's mail is off until"
		     " [list NAME] mail is set)";
	expect(&f, &r, "mail off for mail on no list (a list's mail is off"
	       " until [list NAME] mail is set)");
	f.mail_off = "mail off for lists a, b";
	expect(&f, &r, "mail off for lists a, b");
	/* Held: an unusable address is then no matter (the queue says). */
	f.poster_ok = false;
	assert_int_equal(act_of(&f, &r), PW_ETIQUETTE_HOLD);
	f.mail_off = NULL;
	assert_int_equal(act_of(&f, &r), PW_ETIQUETTE_NO_ADDRESS);

	f.maintainer = "maint@example.net";
	assert_string_equal(pw_etiquette_to(&f), "maint@example.net");
	expect(&f, &r, NULL);
	f.to_sent = 3;
	expect(&f, &r, "rate limit: 3 replies to maint@example.net in the last"
	       " hour (per_recipient_per_hour = 3)");

	f.maintainer = NULL;
	assert_string_equal(pw_etiquette_to(&f), "ann@example.com");
}

/*
 * A flood's summary: no usable sender means no reply before anything
 * else; the sender's kind before its "stop"; the global limit only.
 */
static void flood(void **state)
{
	struct pw_etiquette_rules r = rules();
	struct pw_etiquette_facts f = {
		.kind = PW_ETIQUETTE_FLOOD,
		.date = NOW - 40 * DAY,
		.poster = "syzbot@example.com",
		.poster_ok = false,
		.poster_stop = 3,
		.maintainer = "maint@example.net",
	};

	assert_int_equal(act_of(&f, &r), PW_ETIQUETTE_NO_ADDRESS);
	f.poster_ok = true;
	expect(&f, &r, "older than 30 days: too late to answer");
	f.date = NOW;
	expect(&f, &r, "automated sender syzbot@example.com");
	f.poster = "ann@example.com";
	expect(&f, &r, "author opted out (decision 3)");
	f.poster_stop = 0;
	f.poster = "BOT@example.org";
	expect(&f, &r, "the bot's own mail");
	f.poster = "ann@example.com";
	/* The summary is the one reply its sender gets. */
	f.to_sent = 1000;
	expect(&f, &r, NULL);
	f.all_sent = 10;
	expect(&f, &r, "rate limit: 10 replies in the last hour"
	       " (global_per_hour = 10)");
	f.all_sent = 0;
	f.mail_off = "mail off for list linux-leds";
	expect(&f, &r, "mail off for list linux-leds");
}

/*
 * A reply released when its flood window closed: judged again as a
 * patch, but its address is not (it was composed), and the limit
 * counts the poster's replies whatever maintainer it goes to.
 */
static void release(void **state)
{
	struct pw_etiquette_rules r = rules();
	struct pw_etiquette_facts f = patch();

	f.kind = PW_ETIQUETTE_RELEASE;
	f.poster_ok = false;
	f.maintainer = "maint@example.net";
	assert_string_equal(pw_etiquette_to(&f), "ann@example.com");
	expect(&f, &r, NULL);
	f.to_sent = 3;
	expect(&f, &r, "rate limit: 3 replies to ann@example.com in the last"
	       " hour (per_recipient_per_hour = 3)");
	f.poster_stop = 4;
	f.poster = "noreply@example.com";
	/* As a patch: the "stop" before the sender's kind. */
	expect(&f, &r, "author opted out (decision 4)");
	f.automated = "Precedence: bulk";
	expect(&f, &r, "automated mail (Precedence: bulk)");
	f.mail_off = "mail off for list linux-iio";
	f.automated = NULL;
	f.poster_stop = 0;
	expect(&f, &r, "automated sender noreply@example.com");
	f.poster = "ann@example.com";
	expect(&f, &r, "mail off for list linux-iio");
}

/*
 * A look-alike (checks/identity.h) is answered to nobody, a patch or a
 * flood's summary alike; the hold comes after the machine and loop
 * checks, before the sender's "stop"; a reply to signed mail says its
 * global limit is that of replies to signed mail.
 */
static void identity(void **state)
{
	struct pw_etiquette_rules r = rules();
	struct pw_etiquette_facts f = patch();
	const char *hold = pw_identity_hold(PW_AUTH_LOOKALIKE);

	assert_non_null(hold);
	f.auth = PW_AUTH_LOOKALIKE;
	expect(&f, &r, hold);
	f.poster_stop = 2;
	expect(&f, &r, hold);
	f.own_msgid = true;
	expect(&f, &r, "the bot's own mail");
	f = patch();
	f.auth = PW_AUTH_LOOKALIKE;
	f.kind = PW_ETIQUETTE_FLOOD;
	expect(&f, &r, hold);
	f = patch();
	f.auth = PW_AUTH_DKIM;
	expect(&f, &r, NULL);
	f.all_sent = 10;
	expect(&f, &r, "rate limit: 10 replies to DKIM-signed mail in the last"
	       " hour (global_per_hour = 10)");
	f.auth = PW_AUTH_NONE;
	expect(&f, &r, "rate limit: 10 replies in the last hour"
	       " (global_per_hour = 10)");
}

/* A copy counts against its recipient's limit, at the boundary. */
static void cc_limit(void **state)
{
	struct pw_etiquette_rules r = rules();

	assert_true(pw_etiquette_cc_ok(&r, 0));
	assert_true(pw_etiquette_cc_ok(&r, 2));
	assert_false(pw_etiquette_cc_ok(&r, 3));
	r.per_recipient_per_hour = -1;
	assert_true(pw_etiquette_cc_ok(&r, 1000));
	r.per_recipient_per_hour = 0;
	assert_false(pw_etiquette_cc_ok(&r, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sends),
		cmocka_unit_test(each_reason),
		cmocka_unit_test(precedence),
		cmocka_unit_test(limits_at_the_boundary),
		cmocka_unit_test(max_age),
		cmocka_unit_test(author_in_cc),
		cmocka_unit_test(mail_modes),
		cmocka_unit_test(flood),
		cmocka_unit_test(release),
		cmocka_unit_test(identity),
		cmocka_unit_test(cc_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
