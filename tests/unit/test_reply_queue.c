/*
 * Unit tests for bot/reply_queue.c on a real SQLite file: a reply is
 * composed from stored facts only.  A patch ingested for real stores
 * the line each finding quotes, so its reply quotes it even when the
 * raw message is gone; a finding stored before that (no line text) is
 * listed without a quote.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <glib/gstdio.h>

#include "bot/config.h"
#include "bot/ingest.h"
#include "bot/mail.h"
#include "bot/reply_policy.h"
#include "bot/reply_queue.h"
#include "bot/reply_send.h"
#include "db/db-private.h"
#include "db/outbox.h"
#include "tests/unit/store_fixture.h"

static int setup(void **state)
{
	struct fx *f = fx_open("pw-queue-XXXXXX");

	/* The mail below is dated 2016: answered whatever its age. */
	f->cfg->reply_max_age = 0;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	return fx_teardown(state);
}

static const char patch_mail[] =
	"From ann@example.com Thu Aug  4 10:00:00 2016\n"
	"From: Ann Author <ann@example.com>\n"
	"To: linux-foo@vger.example.org\n"
	"Subject: [PATCH] foo: two knobs\n"
	"Date: Thu, 4 Aug 2016 10:00:00 +0000\n"
	"Message-ID: <knobs@example.com>\n"
	"\n"
	"Two knobs.\n"
	"\n"
	"Signed-off-by: Ann Author <ann@example.com>\n"
	"---\n"
	"diff --git a/drivers/foo/foo.c b/drivers/foo/foo.c\n"
	"--- a/drivers/foo/foo.c\n"
	"+++ b/drivers/foo/foo.c\n"
	"@@ -10,2 +10,4 @@ static int foo_init(void)\n"
	" {\n"
	"+\tdebugfs_create_file(\"one\", 0666, d, NULL, &one_fops);\n"
	"+\tdebugfs_create_file(\"two\", 0646, d, NULL, &two_fops);\n"
	" \treturn 0;\n"
	"\n";

/* Ingests patch_mail as archive mail (no reply); returns its row id. */
static int64_t ingest(struct fx *f)
{
	struct pw_ingest_opts o = { .list = "linux-foo", .quiet = true, .threads = 1 };
	struct pw_ingest_counts c = { 0 };
	char *path = g_build_filename(f->dir, "in.mbox", NULL);
	char *err = NULL;
	int64_t id = 0;
	bool found = false;

	assert_true(g_file_set_contents(path, patch_mail, -1, NULL));
	assert_int_equal(pw_ingest_path(f->db, f->cfg, path, &o, &c, &err), PW_OK);
	assert_int_equal(c.patches, 1);
	assert_int_equal(c.findings, 2);
	assert_int_equal(pw_db_message_find(f->db, "knobs@example.com", &id,
					    &found), PW_OK);
	assert_true(found);
	g_free(path);
	return id;
}

/* The body of the one reply stored, CRLF made LF. */
static char *reply_text(struct fx *f)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_outbox_row_free);
	struct pw_outbox_row *r = NULL;
	GString *s = g_string_new(NULL);
	const char *p;
	gsize len, i;
	bool found;

	assert_int_equal(pw_db_outbox_list(f->db, NULL, rows), PW_OK);
	assert_int_equal(rows->len, 1);
	assert_int_equal(pw_db_outbox_get(f->db,
		((struct pw_outbox_row *)g_ptr_array_index(rows, 0))->id, true,
		&r, &found), PW_OK);
	assert_true(found);
	p = g_bytes_get_data(r->raw, &len);
	for (i = 0; i < len; i++)
		if (p[i] != '\r')
			g_string_append_c(s, p[i]);
	pw_outbox_row_free(r);
	g_ptr_array_unref(rows);
	return g_string_free(s, FALSE);
}

static void exec(struct fx *f, const char *sql)
{
	assert_int_equal(sqlite3_exec(f->db->h, sql, NULL, NULL, NULL), SQLITE_OK);
}

/* The one number a query returns. */
static int count_rows(struct fx *f, const char *sql)
{
	sqlite3_stmt *st;
	int n;

	assert_int_equal(sqlite3_prepare_v2(f->db->h, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void test_stored_lines(void **state)
{
	struct fx *f = *state;
	int64_t id = ingest(f);
	struct pw_reply_patch_facts pf;
	const struct pw_finding *fd;
	GBytes *raw;
	char *text;
	bool found;

	/* The findings carry the lines they are about. */
	assert_int_equal(pw_reply_queue_read(f->db, id, PW_SEV_INFO, &pf, &found),
			 PW_OK);
	assert_true(found);
	assert_int_equal(pf.shown->len, 2);
	fd = g_ptr_array_index(pf.shown, 0);
	assert_int_equal(fd->line, 11);
	assert_string_equal(fd->added_line,
			    "\tdebugfs_create_file(\"one\", 0666, d, NULL, &one_fops);");
	fd = g_ptr_array_index(pf.shown, 1);
	assert_int_equal(fd->line, 12);
	assert_string_equal(fd->added_line,
			    "\tdebugfs_create_file(\"two\", 0646, d, NULL, &two_fops);");
	pw_reply_patch_facts_release(&pf);

	/* The raw message gone (as for mail kept only in an archive), and
	 * the message answered as if it had just arrived: the reply still
	 * quotes each line. */
	exec(f, "UPDATE message SET raw_id = NULL, raw = NULL, backfill = 0");
	raw = pw_db_message_raw(f->db, id);
	assert_null(raw);
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	text = reply_text(f);
	/* One rule: one item, both places, the first line quoted. */
	assert_non_null(strstr(text, "drivers/foo/foo.c:11, 12"));
	assert_non_null(strstr(text,
		"> +\tdebugfs_create_file(\"one\", 0666, d, NULL, &one_fops);"));
	g_free(text);
}

static void test_old_findings(void **state)
{
	struct fx *f = *state;
	int64_t id = ingest(f);
	char *text;

	/* Stored before the schema kept the lines: listed, not quoted. */
	exec(f, "DELETE FROM finding_line");
	exec(f, "UPDATE message SET backfill = 0");
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	text = reply_text(f);
	assert_non_null(strstr(text, "drivers/foo/foo.c:11, 12"));
	assert_null(strstr(text, "> +\tdebugfs"));
	assert_non_null(strstr(text, "found 2 things"));
	g_free(text);
}

/*
 * Info findings never reach a reply, even when [reply] min_severity is
 * info; a patch with only info findings gets none.
 */
static void test_info_never(void **state)
{
	struct fx *f = *state;
	int64_t id = ingest(f);
	struct pw_reply_patch_facts pf;
	bool found;
	char *text;

	exec(f, "INSERT INTO finding (patch, rule, severity, file, line, message)"
	     " SELECT patch, 'PERM_UNCOMMON', 0, file, 13, 'an uncommon mode'"
	     " FROM finding LIMIT 1");
	f->cfg->reply_min_severity = PW_SEV_INFO;
	assert_int_equal(pw_reply_queue_read(f->db, id, PW_SEV_INFO, &pf, &found),
			 PW_OK);
	assert_true(found);
	assert_int_equal(pf.all->len, 3);
	assert_int_equal(pf.shown->len, 2);
	pw_reply_patch_facts_release(&pf);
	exec(f, "UPDATE message SET backfill = 0");
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	text = reply_text(f);
	assert_null(strstr(text, "PERM_UNCOMMON"));
	assert_null(strstr(text, "uncommon"));
	g_free(text);
	exec(f, "DELETE FROM outbox");
	exec(f, "UPDATE finding SET severity = 0");
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM outbox"), 0);
}

/*
 * The footer names the list's posting address: [list NAME] address
 * when set, else the recipient that matches the List-Id, never the
 * List-Id itself; nothing when neither is known.
 */
static void test_list_address(void **state)
{
	struct fx *f = *state;
	int64_t id = ingest(f);
	char *text, *foot;

	exec(f, "UPDATE message SET backfill = 0,"
	     " list_id = 'linux-foo.vger.example.org'");
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	text = reply_text(f);
	foot = strstr(text, "\n-- \n");
	assert_non_null(foot);
	assert_non_null(strstr(foot, "linux-foo@vger.example.org"));
	assert_null(strstr(text, "linux-foo.vger.example.org"));
	g_free(text);

	/* No recipient matches the List-Id: no address is named. */
	exec(f, "DELETE FROM outbox");
	exec(f, "UPDATE message SET list_id = 'other.example.org'");
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	text = reply_text(f);
	assert_null(strstr(text, "@vger.example.org"));
	assert_null(strstr(text, "other.example.org"));
	assert_non_null(strstr(text, "say so on the list."));
	g_free(text);
}

/* Marks the finding on line of the stored patch wrong, decided now. */
static void mark_wrong(struct fx *f, int line)
{
	char *sql = g_strdup_printf(
		"INSERT INTO decision (kind, msgid, finding, by_addr, at, via)"
		" SELECT 'wrong', 'knobs@example.com', id, 'boss@example.org',"
		" CAST(strftime('%%s', 'now') AS INTEGER), 'cli'"
		" FROM finding WHERE line = %d;"
		"INSERT INTO finding_decision (finding, decision)"
		" SELECT f.id, d.id FROM finding f, decision d"
		" WHERE f.line = %d AND d.finding = f.id", line, line);

	exec(f, sql);
	g_free(sql);
}

/* Sends the outbox to the dry-run mbox; returns what it holds. */
static char *send_all(struct fx *f)
{
	struct pw_reply_send_opts o = { .all = true };
	struct pw_reply_send_stats st;
	char *err = NULL, *text = NULL;

	if (pw_reply_send_due(f->db, f->cfg, &o, &st, &err))
		fail_msg("send: %s", err);
	if (!g_file_get_contents(f->cfg->dry_run_mbox, &text, NULL, NULL))
		text = g_strdup("");
	return text;
}

/*
 * A reply composed before a maintainer marked some of its findings
 * wrong goes without them; one with none left is not sent at all, held
 * replies released later too.
 */
static void test_decided_after(void **state)
{
	struct fx *f = *state;
	int64_t id = ingest(f);
	char *text;

	g_free(f->cfg->dry_run_mbox);
	f->cfg->dry_run_mbox = g_build_filename(f->dir, "out.mbox", NULL);
	f->cfg->defaults.mail = PW_MAIL_AUTHOR;
	exec(f, "UPDATE message SET backfill = 0");
	assert_int_equal(pw_reply_policy_answer(f->db, f->cfg, id), PW_OK);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM outbox"
				    " WHERE state = 'pending'"), 1);
	text = reply_text(f);
	assert_non_null(strstr(text, "0666"));
	g_free(text);
	mark_wrong(f, 11);
	text = send_all(f);
	assert_non_null(strstr(text, "0646"));
	assert_null(strstr(text, "0666"));
	assert_non_null(strstr(text, "Message-Id: <patchwarden.patch."));
	g_free(text);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM outbox"
				    " WHERE state = 'sent'"), 1);

	/* Held, then every finding decided, then released: not sent. */
	exec(f, "DELETE FROM outbox; DELETE FROM finding_decision;"
	     " DELETE FROM decision");
	g_unlink(f->cfg->dry_run_mbox);
	assert_int_equal(pw_reply_policy_hold(f->db, f->cfg, id, "held back"),
			 PW_OK);
	mark_wrong(f, 11);
	mark_wrong(f, 12);
	exec(f, "UPDATE outbox SET state = 'pending', next_attempt = 0");
	text = send_all(f);
	assert_string_equal(text, "");
	g_free(text);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM outbox"
				    " WHERE state = 'suppressed' AND reason LIKE"
				    " 'every finding it is about was marked wrong%'"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stored_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_findings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_info_never, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decided_after, setup, teardown),
	};

	pw_mail_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
