/*
 * Unit tests for db/outbox.c on a real SQLite file: the outbox state
 * machine (claim, recover, release), the stored message read back as a
 * message model, and reads that tell "not found" from a database error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <glib/gstdio.h>

#include "db/db-private.h"
#include "db/outbox.h"
#include "db/series.h"
#include "tests/unit/store_fixture.h"

static int setup(void **state)
{
	struct fx *f = fx_open("pw-dboutbox-XXXXXX");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	return fx_teardown(state);
}

/* Stores one reply answering key; returns its row id. */
static int64_t add_reply(struct fx *f, const char *key, const char *msgid)
{
	struct pw_outbox_new n = {
		.kind = "patch", .answers = key, .state = "pending",
		.msgid = msgid, .mail_from = "bot@example.org",
		.rcpt_to = "ann@example.com", .recipients = "ann@example.com",
		.subject = "Re: x", .raw = "Subject: Re: x\r\n\r\nbody\r\n",
		.raw_len = 24, .now = 50,
	};
	int64_t id;
	bool added;

	assert_int_equal(pw_db_outbox_add(f->db, &n, &id, &added), PW_OK);
	assert_true(added);
	return id;
}

static void test_state_machine(void **state)
{
	struct fx *f = *state;
	int64_t id = add_reply(f, "msg:s@x", "reply-s@example.org");
	struct pw_outbox_row *r = NULL;
	const char *why = NULL;
	bool claimed, found;
	int n;

	assert_int_equal(pw_db_outbox_claim(f->db, id, 100, &claimed), PW_OK);
	assert_true(claimed);
	assert_int_equal(pw_db_outbox_claim(f->db, id, 100, &claimed), PW_OK);
	assert_false(claimed);
	assert_int_equal(pw_db_outbox_release(f->db, id, 100, &why), PW_ERR_INPUT);
	assert_string_equal(why, "being sent right now");
	assert_int_equal(pw_db_outbox_recover(f->db, 200, &n), PW_OK);
	assert_int_equal(n, 1);
	assert_int_equal(pw_db_outbox_get(f->db, id, true, &r, &found), PW_OK);
	assert_true(found);
	assert_string_equal(r->state, "pending");
	assert_int_equal(r->attempts, 1);
	assert_non_null(strstr(r->last_error, "same Message-ID"));
	assert_non_null(r->raw);
	assert_int_equal(g_bytes_get_size(r->raw), 24);
	pw_outbox_row_free(r);
	assert_int_equal(pw_db_outbox_mark_sent(f->db, id, 300, "smtp", 250, NULL), PW_OK);
	assert_int_equal(pw_db_outbox_release(f->db, id, 300, &why), PW_ERR_INPUT);
	assert_string_equal(why, "already sent");
	assert_int_equal(pw_db_outbox_release(f->db, 99, 300, &why), PW_ERR_INPUT);
	assert_string_equal(why, "no such reply");
}

static void test_message_as_mail(void **state)
{
	struct fx *f = *state;
	char *refs[] = { "cover@x", "p1@x", NULL };
	char *rcpts[] = { "list@vger.example.org", "other@example.com", NULL };
	struct pw_mail r = {
		.msgid = "p2@x", .kind = PW_MAIL_PATCH, .from_name = "Ann Author",
		.from_addr = "ann@example.com", .subject = "[PATCH 2/3] foo: two",
		.subject_clean = "foo: two", .date = 1470124800,
		.in_reply_to = "cover@x", .references = refs,
		.list_id = "linux-foo.vger.example.org", .auto_submitted = "no",
		.recipients = rcpts, .nrecipients = 2,
		.tags = { .version = 2, .number = 2, .total = 3,
			  .has_counter = true, .prefixes = "net-next" },
	};
	struct pw_msg_origin from = { .raw = "x", .raw_len = 1, .backfill = false };
	struct pw_outbox_msg *m = NULL;
	int64_t id;
	bool is_new, found;

	assert_int_equal(pw_db_message_add(f->db, &r, &from, "linux-foo", &id,
					   &is_new), PW_OK);
	assert_int_equal(pw_db_outbox_message(f->db, id, &m, &found), PW_OK);
	assert_true(found);
	assert_int_equal(m->id, id);
	assert_false(m->backfill);
	assert_string_equal(m->lists[0], "linux-foo");
	assert_null(m->lists[1]);
	assert_string_equal(m->mail->msgid, "p2@x");
	assert_false(m->mail->msgid_derived);
	assert_int_equal(m->mail->kind, PW_MAIL_PATCH);
	assert_string_equal(m->mail->from_name, "Ann Author");
	assert_string_equal(m->mail->from_addr, "ann@example.com");
	assert_string_equal(m->mail->subject, "[PATCH 2/3] foo: two");
	assert_string_equal(m->mail->subject_clean, "foo: two");
	assert_int_equal(m->mail->date, 1470124800);
	assert_string_equal(m->mail->in_reply_to, "cover@x");
	assert_string_equal(m->mail->references[0], "cover@x");
	assert_string_equal(m->mail->references[1], "p1@x");
	assert_null(m->mail->references[2]);
	assert_string_equal(m->mail->list_id, "linux-foo.vger.example.org");
	assert_string_equal(m->mail->auto_submitted, "no");
	assert_string_equal(m->mail->recipients[1], "other@example.com");
	assert_int_equal(m->mail->nrecipients, 2);
	assert_int_equal(m->mail->tags.version, 2);
	assert_int_equal(m->mail->tags.number, 2);
	assert_int_equal(m->mail->tags.total, 3);
	assert_true(m->mail->tags.has_counter);
	assert_string_equal(m->mail->tags.prefixes, "net-next");
	assert_null(m->mail->diff);
	/* The author posted it: no sender stored. */
	assert_null(m->mail->sender_name);
	assert_null(m->mail->sender_addr);
	pw_outbox_msg_free(m);
}

/*
 * A patch posted by someone other than its author: both people are
 * stored and read back (the author as from_*, the sender beside it),
 * and an unknown Date (0) is stored as NULL and read back as 0.
 */
static void test_sender_and_unknown_date(void **state)
{
	struct fx *f = *state;
	struct pw_mail r = {
		.msgid = "fwd@x", .kind = PW_MAIL_PATCH, .from_name = "Ann Author",
		.from_addr = "ann@example.com", .sender_name = "Max Maintainer",
		.sender_addr = "max@example.org", .subject = "[PATCH] foo",
		.subject_clean = "foo", .date = 0,
		.tags = { .version = 1, .prefixes = "" },
	};
	struct pw_msg_origin from = { .raw = "x", .raw_len = 1 };
	struct pw_outbox_msg *m = NULL;
	sqlite3_stmt *st;
	int64_t id;
	bool is_new, found;

	assert_int_equal(pw_db_message_add(f->db, &r, &from, NULL, &id,
					   &is_new), PW_OK);
	assert_true(is_new);
	assert_int_equal(pw_db_outbox_message(f->db, id, &m, &found), PW_OK);
	assert_true(found);
	assert_string_equal(m->mail->from_name, "Ann Author");
	assert_string_equal(m->mail->from_addr, "ann@example.com");
	assert_string_equal(m->mail->sender_name, "Max Maintainer");
	assert_string_equal(m->mail->sender_addr, "max@example.org");
	assert_int_equal(m->mail->date, 0);
	pw_outbox_msg_free(m);
	st = pw_db_stmt(f->db, "SELECT date IS NULL FROM message WHERE id = ?1");
	sqlite3_bind_int64(st, 1, id);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	sqlite3_reset(st);
}

static int interrupt(void *unused)
{
	return 1;
}

static void test_not_found_or_error(void **state)
{
	struct fx *f = *state;
	struct pw_outbox_row *row = NULL;
	struct pw_outbox_msg *m = NULL;
	int64_t n;
	bool found = true;

	add_reply(f, "msg:a@x", "reply-a@example.org");
	/* Absent: no error, and said so. */
	assert_int_equal(pw_db_outbox_answered(f->db, "msg:b@x", &found), PW_OK);
	assert_false(found);
	assert_int_equal(pw_db_outbox_answered(f->db, "msg:a@x", &found), PW_OK);
	assert_true(found);
	assert_int_equal(pw_db_outbox_is_own(f->db, "nobody@x", &found), PW_OK);
	assert_false(found);
	assert_int_equal(pw_db_outbox_get(f->db, 42, false, &row, &found), PW_OK);
	assert_false(found);
	assert_null(row);
	assert_int_equal(pw_db_outbox_message(f->db, 42, &m, &found), PW_OK);
	assert_false(found);
	assert_null(m);
	assert_int_equal(pw_db_outbox_count_since(f->db, "ann@example.com", 0, &n), PW_OK);
	assert_int_equal(n, 1);

	/* Every statement now fails as it runs (prepared ones stay cached):
	 * an error, never "not found". */
	sqlite3_progress_handler(f->db->h, 1, interrupt, NULL);
	assert_int_not_equal(pw_db_outbox_answered(f->db, "msg:b@x", &found), PW_OK);
	assert_int_not_equal(pw_db_outbox_is_own(f->db, "nobody@x", &found), PW_OK);
	assert_int_not_equal(pw_db_outbox_get(f->db, 42, false, &row, &found), PW_OK);
	assert_int_not_equal(pw_db_outbox_message(f->db, 42, &m, &found), PW_OK);
	assert_int_not_equal(pw_db_outbox_count_since(f->db, "ann@example.com", 0, &n),
			     PW_OK);
	sqlite3_progress_handler(f->db->h, 0, NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_state_machine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_as_mail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sender_and_unknown_date, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_found_or_error, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
