/*
 * Unit tests for bot/reply_policy.c on a real SQLite file: what is
 * answered, what is held back and why, the flood summary that replaces
 * per-patch replies and is stored once, and the one reply to a series.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <glib/gstdio.h>

#include "bot/config.h"
#include "bot/mail.h"
#include "bot/reply_policy.h"
#include "db/identity.h"
#include "db/outbox.h"
#include "db/series.h"
#include "tests/unit/store_fixture.h"

static int setup(void **state)
{
	struct fx *f = fx_open("pw-outbox-XXXXXX");

	/* The tests below answer the author, as [list *] mail = author
	 * says: a list's mail is off until configured. */
	f->cfg->defaults.mail = PW_MAIL_AUTHOR;
	*state = f;
	return 0;
}

/* Replaces f's configuration with text (the store stays f's). */
static void use_config(struct fx *f, const char *text)
{
	char *path = g_build_filename(f->dir, "t.conf", NULL);
	char *db = g_build_filename(f->dir, "t.db", NULL);
	char *err = NULL;

	assert_true(g_file_set_contents(path, text, -1, NULL));
	pw_config_free(f->cfg);
	f->cfg = NULL;
	assert_int_equal(pw_config_load(path, db, &f->cfg, &err), PW_OK);
	f->cfg->reply_max_age = 0;
	g_free(path);
	g_free(db);
}

static int teardown(void **state)
{
	return fx_teardown(state);
}

/*
 * Stores a patch message m (msgid, people and date set by the caller)
 * with one error finding; returns its id.
 */
static int64_t store_patch(struct fx *f, struct pw_mail *m, bool backfill)
{
	struct pw_msg_origin from = { .raw = "x", .raw_len = 1,
				      .backfill = backfill };
	struct pw_finding *fd = g_new0(struct pw_finding, 1);
	GPtrArray *v = g_ptr_array_new();
	int64_t id, patch;
	bool is_new;

	m->kind = PW_MAIL_PATCH;
	m->subject = (char *)"[PATCH] foo: add a knob";
	m->subject_clean = (char *)"foo: add a knob";
	m->tags.version = 1;
	assert_int_equal(pw_db_message_add(f->db, m, &from, "linux-foo", &id,
					   &is_new), PW_OK);
	assert_true(is_new);
	assert_int_equal(pw_db_patch_add(f->db, id, 0, NULL, &patch), PW_OK);
	fd->rule = "PERM_WORLD_WRITABLE";
	fd->severity = PW_SEV_ERROR;
	fd->file = g_strdup("a.c");
	fd->line = 3;
	fd->message = g_strdup("0666 (rw-rw-rw-): others can write");
	g_ptr_array_add(v, fd);
	assert_int_equal(pw_db_findings_set(f->db, patch, v), PW_OK);
	g_free(fd->file);
	g_free(fd->message);
	g_free(fd);
	g_ptr_array_free(v, TRUE);
	return id;
}

/* Stores a patch message from addr, posted now, with one error finding,
 * automated (why a machine sent it) as the parser and ingest set it;
 * returns its id. */
static int64_t add_patch(struct fx *f, const char *msgid, const char *addr,
			 const char *automated, bool backfill)
{
	struct pw_mail m = { 0 };

	m.msgid = (char *)msgid;
	m.from_name = (char *)"Some One";
	m.from_addr = (char *)addr;
	m.date = (gint64)time(NULL);	/* 0 would be an unknown Date */
	m.automated = (char *)automated;
	return store_patch(f, &m, backfill);
}

/* The reason of the reply to answers, or "none". */
static char *reason_of(struct fx *f, const char *answers)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_outbox_row_free);
	char *why = NULL;
	guint i;

	assert_int_equal(pw_db_outbox_list(f->db, NULL, rows), PW_OK);
	for (i = 0; i < rows->len; i++) {
		struct pw_outbox_row *r = g_ptr_array_index(rows, i);

		if (!strcmp(r->answers, answers))
			why = g_strdup(r->reason ? r->reason : "");
	}
	g_ptr_array_unref(rows);
	return why ? why : g_strdup("none");
}

/* "STATE|TO|RECIPIENTS (space-separated)" of the reply to answers. */
static char *mode_row(struct fx *f, const char *answers)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_outbox_row_free);
	char *out = NULL;
	guint i;

	assert_int_equal(pw_db_outbox_list(f->db, NULL, rows), PW_OK);
	for (i = 0; i < rows->len; i++) {
		struct pw_outbox_row *r = g_ptr_array_index(rows, i);

		if (!strcmp(r->answers, answers)) {
			char *rc = g_strdup(r->recipients);

			g_strdelimit(rc, "\n", ' ');
			out = g_strdup_printf("%s|%s|%s", r->state, r->rcpt_to, rc);
			g_free(rc);
		}
	}
	g_ptr_array_unref(rows);
	return out ? out : g_strdup("none");
}

static char *state_of(struct fx *f, const char *answers)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_outbox_row_free);
	char *st = NULL;
	guint i;

	assert_int_equal(pw_db_outbox_list(f->db, NULL, rows), PW_OK);
	for (i = 0; i < rows->len; i++) {
		struct pw_outbox_row *r = g_ptr_array_index(rows, i);

		if (!strcmp(r->answers, answers))
			st = g_strdup(r->state);
	}
	g_ptr_array_unref(rows);
	return st ? st : g_strdup("none");
}

static void test_policy(void **state)
{
	struct fx *f = *state;
	int64_t a = add_patch(f, "a@x", "ann@example.com", NULL, false);
	int64_t b = add_patch(f, "b@x", "bob@example.com",
			      "Auto-Submitted: auto-replied", false);
	int64_t c = add_patch(f, "c@x", "cat@example.com", NULL, true);
	int64_t d = add_patch(f, "d@x", "noreply@example.com",
			      "automated sender noreply@example.com", false);
	/* A stable bot's notice, from an address that also sends patches
	 * of its own: the store keeps why, and the reply reads it. */
	int64_t e = add_patch(f, "e@x", "sashal@kernel.org",
			      "X-Patchwork-Hint: ignore", false);
	/* A robot's row stored before the store said why (automated
	 * NULL): the senders known now hold it all the same. */
	int64_t g = add_patch(f, "g@x", "lkp@intel.com", NULL, false);
	int64_t n;
	char *s;

	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, a), PW_OK);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, a), PW_OK);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, b), PW_OK);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, c), PW_OK);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, d), PW_OK);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, e), PW_OK);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, g), PW_OK);
	s = reason_of(f, "msg:g@x");
	assert_string_equal(s, "automated sender lkp@intel.com");
	g_free(s);
	s = reason_of(f, "msg:e@x");
	assert_string_equal(s, "automated mail (X-Patchwork-Hint: ignore)");
	g_free(s);
	s = reason_of(f, "msg:b@x");
	assert_string_equal(s, "automated mail (Auto-Submitted: auto-replied)");
	g_free(s);
	s = state_of(f, "msg:a@x");
	assert_string_equal(s, "pending");
	g_free(s);
	s = state_of(f, "msg:b@x");
	assert_string_equal(s, "suppressed");
	g_free(s);
	s = state_of(f, "msg:c@x");
	assert_string_equal(s, "suppressed");
	g_free(s);
	s = state_of(f, "msg:d@x");
	assert_string_equal(s, "suppressed");
	g_free(s);
	assert_int_equal(pw_db_outbox_count_since(f->db, NULL, 0, &n), PW_OK);
	assert_int_equal(n, 1);
}

static void test_flood(void **state)
{
	struct fx *f = *state;
	int64_t m[3];
	char *lists[] = { "linux-foo", NULL };
	int64_t now = (int64_t)time(NULL);
	struct pw_flood_info facts = {
		.key = "burst-7", .sender_name = "Baole", .sender_addr = "baole@example.com",
		.size = 3, .claimed_total = 1285, .subject = "[PATCH 0001/1285] Replace 0444",
		.lists = lists, .recipients = 40, .first_seen = now - 3000,
		.last_seen = now, .first_msgid = "f1@x",
	};
	struct pw_flood_info old = facts;
	int64_t n;
	char *s;
	int i;

	m[0] = add_patch(f, "f1@x", "baole@example.com", NULL, false);
	m[1] = add_patch(f, "f2@x", "baole@example.com", NULL, false);
	m[2] = add_patch(f, "f3@x", "baole@example.com", NULL, false);
	for (i = 0; i < 2; i++)
		assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, m[i]), PW_OK);
	assert_int_equal(pw_reply_policy_hold(f->db, f->cfg, m[2],
						"part of flood burst-7"), PW_OK);
	assert_int_equal(pw_reply_policy_answer_flood(f->db, f->cfg, &facts, m, 3), PW_OK);
	assert_int_equal(pw_reply_policy_answer_flood(f->db, f->cfg, &facts, m, 3), PW_OK);
	s = state_of(f, "msg:f1@x");
	assert_string_equal(s, "suppressed");
	g_free(s);
	s = state_of(f, "msg:f3@x");
	assert_string_equal(s, "suppressed");
	g_free(s);
	s = state_of(f, "flood:burst-7");
	assert_string_equal(s, "pending");
	g_free(s);
	/* One summary only, and it is the only reply on its way. */
	assert_int_equal(pw_db_outbox_count_since(f->db, "baole@example.com", 0, &n),
			 PW_OK);
	assert_int_equal(n, 1);
	/* A flood whose newest patch is older than max_age (or undated)
	 * is summed up as suppressed, like each of its patches would be. */
	old.key = "burst-old";
	old.first_seen = 1000;
	old.last_seen = 4000;
	assert_int_equal(pw_reply_policy_answer_flood(f->db, f->cfg, &old, NULL, 0),
			 PW_OK);
	s = state_of(f, "flood:burst-old");
	assert_string_equal(s, "suppressed");
	g_free(s);
}

/*
 * Replies held while a flood was undecided: untouched within the flood
 * window, released once it has closed, unless the policy now holds
 * them for another reason (which becomes their reason).
 */
static void test_undecided(void **state)
{
	struct fx *f = *state;
	int64_t a = add_patch(f, "u1@x", "una@example.com", NULL, false);
	int64_t b = add_patch(f, "u2@x", "bot@example.com",
			      "Auto-Submitted: auto-generated", false);
	int64_t now = (int64_t)time(NULL);
	int released, folded;
	GPtrArray *rows;
	char *s;
	guint i;

	assert_int_equal(pw_reply_policy_hold(f->db, f->cfg, a, PW_HOLD_UNDECIDED), PW_OK);
	assert_int_equal(pw_reply_policy_hold(f->db, f->cfg, b, PW_HOLD_UNDECIDED), PW_OK);
	assert_int_equal(pw_reply_policy_release_undecided(f->db, f->cfg, now + 10,
							    &released, &folded), PW_OK);
	assert_int_equal(released + folded, 0);
	s = state_of(f, "msg:u1@x");
	assert_string_equal(s, "suppressed");
	g_free(s);

	assert_int_equal(pw_reply_policy_release_undecided(f->db, f->cfg,
							    now + f->cfg->flood_window + 5,
							    &released, &folded), PW_OK);
	assert_int_equal(released, 1);
	assert_int_equal(folded, 0);
	s = state_of(f, "msg:u1@x");
	assert_string_equal(s, "pending");
	g_free(s);
	rows = g_ptr_array_new_with_free_func((GDestroyNotify)pw_outbox_row_free);
	assert_int_equal(pw_db_outbox_list(f->db, "suppressed", rows), PW_OK);
	assert_int_equal(rows->len, 1);
	for (i = 0; i < rows->len; i++) {
		struct pw_outbox_row *r = rows->pdata[i];

		assert_string_equal(r->answers, "msg:u2@x");
		assert_non_null(strstr(r->reason, "automated"));
	}
	g_ptr_array_unref(rows);
	/* Decided once: nothing more the next time. */
	assert_int_equal(pw_reply_policy_release_undecided(f->db, f->cfg,
							    now + f->cfg->flood_window + 9,
							    &released, &folded), PW_OK);
	assert_int_equal(released + folded, 0);
}

/* Stores a message of kind with the given number in series *series
 * (0: a new one); returns its message id. */
/* The one outbox row answering answers; NULL when there is none. */
static struct pw_outbox_row *row_of(struct fx *f, const char *answers)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_outbox_row_free);
	struct pw_outbox_row *r = NULL;
	guint i;

	assert_int_equal(pw_db_outbox_list(f->db, NULL, rows), PW_OK);
	for (i = 0; i < rows->len && !r; i++)
		if (!strcmp(((struct pw_outbox_row *)rows->pdata[i])->answers,
			    answers))
			r = g_ptr_array_steal_index(rows, i);
	g_ptr_array_unref(rows);
	return r;
}

/* Stores m as a new patch, lets the policy answer it, and returns the
 * outbox row that answers it (pw_outbox_row_free). */
static struct pw_outbox_row *answered(struct fx *f, struct pw_mail *m)
{
	char *key = g_strdup_printf("msg:%s", m->msgid);
	struct pw_outbox_row *r;

	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg,
						store_patch(f, m, false)), PW_OK);
	r = row_of(f, key);
	assert_non_null(r);
	g_free(key);
	return r;
}

/*
 * A maintainer posts another author's patch (an in-body From:): the
 * reply goes To the maintainer, with the author in Cc; the hourly limit
 * counts the maintainer.  The bot's own mail is told by the From header.
 */
static void test_sender(void **state)
{
	struct fx *f = *state;
	struct pw_mail m = { 0 };
	struct pw_outbox_row *r;

	m.msgid = (char *)"fwd@x";
	m.from_name = (char *)"Ann Author";
	m.from_addr = (char *)"ann@example.com";
	m.sender_name = (char *)"Max Maintainer";
	m.sender_addr = (char *)"max@example.org";
	m.date = (gint64)time(NULL);
	r = answered(f, &m);
	assert_string_equal(r->state, "pending");
	assert_string_equal(r->rcpt_to, "max@example.org");
	assert_string_equal(r->recipients, "max@example.org\nann@example.com");
	pw_outbox_row_free(r);

	/* The limit is reached for the maintainer, not for the author. */
	f->cfg->per_recipient_per_hour = 1;
	m.msgid = (char *)"fwd2@x";
	r = answered(f, &m);
	assert_string_equal(r->state, "suppressed");
	assert_non_null(strstr(r->reason, "max@example.org"));
	pw_outbox_row_free(r);

	/* A patch whose in-body From: names the bot, posted by a person,
	 * is answered; one the bot posted is not. */
	f->cfg->per_recipient_per_hour = -1;
	m.msgid = (char *)"fwd3@x";
	m.from_addr = f->cfg->from_addr;
	m.sender_addr = (char *)"sam@example.org";
	r = answered(f, &m);
	assert_string_equal(r->state, "pending");
	assert_string_equal(r->recipients, "sam@example.org");
	pw_outbox_row_free(r);
	m.msgid = (char *)"fwd4@x";
	m.from_addr = (char *)"ann@example.com";
	m.sender_addr = f->cfg->from_addr;
	r = answered(f, &m);
	assert_string_equal(r->state, "suppressed");
	assert_string_equal(r->reason, "the bot's own mail");
	pw_outbox_row_free(r);
}

/* A Date not known (0) under an age limit: held back, saying why. */
static void test_unknown_date(void **state)
{
	struct fx *f = *state;
	struct pw_mail m = { 0 };
	struct pw_outbox_row *r;

	m.msgid = (char *)"nodate@x";
	m.from_name = (char *)"Ann Author";
	m.from_addr = (char *)"ann@example.com";
	r = answered(f, &m);
	assert_string_equal(r->state, "suppressed");
	assert_string_equal(r->reason, "its Date is unknown or impossible: "
			    "taken as too old to answer");
	pw_outbox_row_free(r);

	/* Without an age limit there is nothing to judge. */
	f->cfg->reply_max_age = 0;
	m.msgid = (char *)"nodate2@x";
	r = answered(f, &m);
	assert_string_equal(r->state, "pending");
	pw_outbox_row_free(r);
}

/* A patch of linux-foo with recipients, from ann, posted now. */
static int64_t add_cc_patch(struct fx *f, const char *msgid)
{
	char *rcpt[] = { (char *)"linux-foo@vger.example.org",
			 (char *)"rev@example.org", NULL };
	struct pw_mail m = { 0 };

	m.msgid = (char *)msgid;
	m.from_name = (char *)"Ann";
	m.from_addr = (char *)"ann@example.com";
	m.date = (gint64)time(NULL);
	m.recipients = rcpt;
	m.nrecipients = 2;
	return store_patch(f, &m, false);
}

/*
 * [list NAME] mail: off (the default) stores the reply suppressed with
 * the reason; maintainers sends it to them only; author to the author
 * only; author+cc copies the list and the original's recipients.
 */
static void test_mail_modes(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *conf, *want;
	} cases[] = {
		{ "", "suppressed|ann@example.com|ann@example.com" },
		{ "[list linux-foo]\nstyle = octal\n",
		  "suppressed|ann@example.com|ann@example.com" },
		{ "[list linux-foo]\nmail = off\n[list *]\nmail = author\n",
		  "suppressed|ann@example.com|ann@example.com" },
		{ "[list linux-foo]\nmail = maintainers\n"
		  "maintainer = Boss@Example.org; second@example.org\n",
		  "pending|boss@example.org|boss@example.org second@example.org" },
		{ "[list linux-foo]\nmail = author\n",
		  "pending|ann@example.com|ann@example.com" },
		{ "[list linux-foo]\nmail = author+cc\n"
		  "address = linux-foo@vger.example.org\n",
		  "pending|ann@example.com|ann@example.com"
		  " linux-foo@vger.example.org rev@example.org" },
		/* The old keys still work: cc_list alone copies the list. */
		{ "[list linux-foo]\ncc_list = true\n"
		  "address = linux-foo@vger.example.org\n",
		  "pending|ann@example.com|ann@example.com"
		  " linux-foo@vger.example.org" },
		/* Mail on another list only: [list *] is not linux-foo's. */
		{ "[list *]\nmail = author\n",
		  "pending|ann@example.com|ann@example.com" },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *id = g_strdup_printf("mode%zu@x", i);
		char *key = g_strdup_printf("msg:%s", id);
		char *row;
		int64_t m;

		use_config(f, cases[i].conf);
		m = add_cc_patch(f, id);
		assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, m), PW_OK);
		row = mode_row(f, key);
		assert_string_equal(row, cases[i].want);
		g_free(row);
		g_free(id);
		g_free(key);
	}
	/* Why: the list named. */
	{
		char *why = reason_of(f, "msg:mode1@x");

		assert_string_equal(why, "mail off for list linux-foo");
		g_free(why);
	}
}

/* Stores a patch from addr, as add_patch(), judged as ingest judges
 * live mail (db/identity.h): its DKIM signature verified or not. */
static int64_t add_judged(struct fx *f, const char *msgid, const char *addr,
			  bool dkim_pass)
{
	int64_t id = add_patch(f, msgid, addr, NULL, false);
	enum pw_auth auth;

	assert_int_equal(pw_db_identity_note(f->db, id, addr, dkim_pass,
					     (int64_t)time(NULL), &auth), PW_OK);
	return id;
}

/*
 * Identity before consequence, budgets per cause: a look-alike of a
 * signing sender is answered to nobody; replies to unsigned mail spend
 * the global budget, and a signed patch still has its own; a copy goes
 * to an address only below its hourly limit.
 */
static void test_identity(void **state)
{
	struct fx *f = *state;
	int64_t id;
	char *s;
	int i;

	use_config(f, "[reply]\nglobal_per_hour = 2\nper_recipient_per_hour = 1\n"
		   "[list *]\nmail = author\n");
	id = add_judged(f, "real@x", "dev@kernel.example", true);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	/* Dev's address, and another of Dev's domain, unsigned. */
	id = add_judged(f, "fake@x", "dev@kernel.example", false);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	id = add_judged(f, "fake2@x", "ops@kernel.example", false);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	s = reason_of(f, "msg:fake@x");
	assert_string_equal(s, pw_identity_hold(PW_AUTH_LOOKALIKE));
	g_free(s);
	s = reason_of(f, "msg:fake2@x");
	assert_string_equal(s, pw_identity_hold(PW_AUTH_LOOKALIKE));
	g_free(s);
	/* Unsigned senders who never signed: their limit counts every
	 * reply (Dev's one, then u0's). */
	for (i = 0; i < 3; i++) {
		char *msgid = g_strdup_printf("u%d@x", i);
		char *addr = g_strdup_printf("u%d@elsewhere.example", i);

		id = add_judged(f, msgid, addr, false);
		assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
		g_free(msgid);
		g_free(addr);
	}
	s = state_of(f, "msg:u0@x");
	assert_string_equal(s, "pending");
	g_free(s);
	s = reason_of(f, "msg:u2@x");
	assert_string_equal(s, "rate limit: 2 replies in the last hour"
			    " (global_per_hour = 2)");
	g_free(s);
	/* A signed sender: one reply to signed mail so far, of 2. */
	id = add_judged(f, "real2@x", "dev2@kernel.example", true);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	s = state_of(f, "msg:real2@x");
	assert_string_equal(s, "pending");
	g_free(s);
	id = add_judged(f, "real3@x", "dev3@kernel.example", true);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	s = reason_of(f, "msg:real3@x");
	assert_string_equal(s, "rate limit: 2 replies to DKIM-signed mail in"
			    " the last hour (global_per_hour = 2)");
	g_free(s);

	/* Copies: rev@example.org once, then past its limit of 1. */
	use_config(f, "[reply]\nper_recipient_per_hour = 1\n"
		   "[list linux-foo]\nmail = author+cc\n"
		   "address = linux-foo@vger.example.org\n");
	for (i = 0; i < 2; i++) {
		char *msgid = g_strdup_printf("cc%d@x", i);

		id = add_cc_patch(f, msgid);
		assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
		g_free(msgid);
	}
	s = mode_row(f, "msg:cc0@x");
	assert_string_equal(s, "pending|ann@example.com|ann@example.com"
			    " linux-foo@vger.example.org rev@example.org");
	g_free(s);
	s = mode_row(f, "msg:cc1@x");
	/* ann's own limit holds the second; its copies are still decided:
	 * the list kept, rev left out. */
	assert_string_equal(s, "suppressed|ann@example.com|ann@example.com"
			    " linux-foo@vger.example.org");
	g_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_policy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mail_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undecided, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sender, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_date, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity, setup, teardown),
	};

	pw_mail_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
