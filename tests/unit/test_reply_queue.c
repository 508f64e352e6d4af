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
	assert_non_null(strstr(text, "drivers/foo/foo.c, line 11"));
	assert_non_null(strstr(text,
		"> +\tdebugfs_create_file(\"one\", 0666, d, NULL, &one_fops);"));
	assert_non_null(strstr(text,
		"> +\tdebugfs_create_file(\"two\", 0646, d, NULL, &two_fops);"));
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
	assert_non_null(strstr(text, "drivers/foo/foo.c, line 11"));
	assert_non_null(strstr(text, "drivers/foo/foo.c, line 12"));
	assert_null(strstr(text, "> +\tdebugfs"));
	assert_non_null(strstr(text, "found 2 things"));
	g_free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stored_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_findings, setup, teardown),
	};

	pw_mail_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
