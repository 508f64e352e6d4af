/*
 * Unit tests for db/lineage.c on a real SQLite file, mail ingested for
 * real: the versions of a patch linked into one lineage whatever order
 * they arrive in, pw_db_lineage_earlier() (newest first), the states
 * their patches get, a state set and taken back, and the versions as
 * "query series --series" reads them.
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
#include "db/lineage.h"
#include "db/query.h"
#include "tests/unit/store_fixture.h"

static int setup(void **state)
{
	*state = fx_open("pw-lineage-XXXXXX");
	return 0;
}

/*
 * One version of a lone patch: version v (1: no "vN"), Message-ID
 * <vN@example.org>, dated day d of June 2024; with bad, a line the
 * checks warn about (a world-writable file mode).
 */
static char *version_mail(int v, int d, bool bad)
{
	char tag[16] = "";

	if (v > 1)
		g_snprintf(tag, sizeof(tag), " v%d", v);
	return g_strdup_printf(
		"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		"From: Ann Example <ann@example.org>\n"
		"To: linux-foo@example.org\n"
		"Subject: [PATCH%s] foo: add debugfs knobs for the widget\n"
		"Date: Mon, %d Jun 2024 10:00:00 +0000\n"
		"Message-ID: <v%d@example.org>\n"
		"\n"
		"Knobs.\n"
		"\n"
		"Signed-off-by: Ann Example <ann@example.org>\n"
		"---\n"
		"diff --git a/drivers/foo/foo.c b/drivers/foo/foo.c\n"
		"--- a/drivers/foo/foo.c\n"
		"+++ b/drivers/foo/foo.c\n"
		"@@ -10,2 +10,3 @@ static int foo_init(void)\n"
		" {\n"
		"+\tdebugfs_create_file(\"one\", %s, d, NULL, &one_fops);\n"
		" \treturn 0;\n"
		"\n", tag, d, v, bad ? "0666" : "0644");
}

static void ingest(struct fx *f, const char *text)
{
	struct pw_ingest_opts o = { .list = "linux-foo", .quiet = true, .threads = 1 };
	struct pw_ingest_counts c = { 0 };
	char *path = g_build_filename(f->dir, "in.mbox", NULL);
	char *err = NULL;

	assert_true(g_file_set_contents(path, text, -1, NULL));
	assert_int_equal(pw_ingest_path(f->db, f->cfg, path, &o, &c, &err), PW_OK);
	assert_int_equal(c.patches, 1);
	g_free(path);
}

/* The series and patch of message <vN@example.org>; false when none. */
static bool find(struct fx *f, int v, int64_t *series, int64_t *patch)
{
	GPtrArray *rows = NULL;
	char *msgid = g_strdup_printf("v%d@example.org", v);
	struct pw_query_filter q = { 0 };
	guint i;

	*series = *patch = 0;
	assert_int_equal(pw_db_query_patches(f->db, &q, &rows), PW_OK);
	for (i = 0; i < rows->len; i++) {
		const struct pw_query_patch *p = rows->pdata[i];

		if (!strcmp(p->msgid, msgid)) {
			*series = p->series_id;
			*patch = p->id;
		}
	}
	g_ptr_array_unref(rows);
	g_free(msgid);
	return *series > 0;
}

static void ids_of(struct fx *f, int v, int64_t *series, int64_t *patch)
{
	assert_true(find(f, v, series, patch));
}

static enum pw_patch_state state_of(struct fx *f, int v)
{
	enum pw_patch_state st;
	int64_t series, patch;

	ids_of(f, v, &series, &patch);
	assert_int_equal(pw_db_patch_state(f->db, patch, &st, NULL, NULL, NULL),
			 PW_OK);
	return st;
}

/* The series of version v's lineage before it, newest first, as ids of vN. */
static char *earlier(struct fx *f, int v)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(int64_t));
	GString *s = g_string_new(NULL);
	int64_t series, patch, sj, pj;
	guint i;
	int j;

	ids_of(f, v, &series, &patch);
	assert_int_equal(pw_db_lineage_earlier(f->db, series, out), PW_OK);
	for (i = 0; i < out->len; i++)
		for (j = 1; find(f, j, &sj, &pj); j++)
			if (sj == g_array_index(out, int64_t, i))
				g_string_append_printf(s, "%sv%d", s->len ? " " : "", j);
	g_array_unref(out);
	return g_string_free(s, FALSE);
}

static void versions_in_order(void **state)
{
	struct fx *f = *state;
	char *m, *e;
	int v;

	/* v1 and v2 warn; v3 fixes it. */
	for (v = 1; v <= 3; v++) {
		m = version_mail(v, v, v < 3);
		ingest(f, m);
		g_free(m);
	}
	e = earlier(f, 1);
	assert_string_equal(e, "");
	g_free(e);
	e = earlier(f, 3);
	assert_string_equal(e, "v2 v1");
	g_free(e);
	assert_int_equal(state_of(f, 1), PW_STATE_SUPERSEDED);
	assert_int_equal(state_of(f, 2), PW_STATE_SUPERSEDED);
	assert_int_equal(state_of(f, 3), PW_STATE_NEW);
}

static void out_of_order(void **state)
{
	struct fx *f = *state;
	char *m;
	char *e;

	/* v2 stored before the v1 it follows: v1 is superseded all the same. */
	m = version_mail(2, 2, true);
	ingest(f, m);
	g_free(m);
	m = version_mail(1, 1, true);
	ingest(f, m);
	g_free(m);
	assert_int_equal(state_of(f, 1), PW_STATE_SUPERSEDED);
	assert_int_equal(state_of(f, 2), PW_STATE_NEW);
	e = earlier(f, 2);
	assert_string_equal(e, "v1");
	g_free(e);
}

static void states(void **state)
{
	struct fx *f = *state;
	struct pw_state_cause why = { .by_commit = "0123456789abcdef" };
	GPtrArray *vs = NULL;
	const struct pw_lineage_version *v;
	int64_t series, patch;
	bool changed;
	char *m;
	int i;

	for (i = 1; i <= 2; i++) {
		m = version_mail(i, i, i == 1);
		ingest(f, m);
		g_free(m);
	}
	ids_of(f, 2, &series, &patch);
	/* Applied outranks new; superseded gives way to applied. */
	assert_int_equal(pw_db_patch_state_set(f->db, patch, PW_STATE_APPLIED,
					       &why, &changed), PW_OK);
	assert_true(changed);
	assert_int_equal(pw_db_patch_state_set(f->db, patch, PW_STATE_REJECTED,
					       &why, &changed), PW_OK);
	assert_false(changed);
	assert_int_equal(state_of(f, 2), PW_STATE_APPLIED);
	/* Dropped: new again, the newest of its lineage. */
	assert_int_equal(pw_db_patch_state_reopen(f->db, patch, &changed), PW_OK);
	assert_true(changed);
	assert_int_equal(state_of(f, 2), PW_STATE_NEW);
	/* The v1 reopened is superseded again: a later version is stored. */
	ids_of(f, 1, &series, &patch);
	assert_int_equal(pw_db_patch_state_set(f->db, patch, PW_STATE_APPLIED,
					       &why, &changed), PW_OK);
	assert_int_equal(pw_db_patch_state_reopen(f->db, patch, &changed), PW_OK);
	assert_int_equal(state_of(f, 1), PW_STATE_SUPERSEDED);
	/* The versions: v2 fixed v1's warning. */
	assert_int_equal(pw_db_lineage_versions(f->db, series, PW_SEV_WARNING,
						&vs), PW_OK);
	assert_int_equal(vs->len, 2);
	v = vs->pdata[0];
	assert_int_equal(v->version, 1);
	assert_string_equal(v->how, "first");
	assert_int_equal(v->states[PW_STATE_SUPERSEDED], 1);
	assert_int_equal(v->added, v->findings);
	assert_true(v->findings > 0);
	v = vs->pdata[1];
	assert_int_equal(v->version, 2);
	assert_string_equal(v->how, "subject");
	assert_int_equal(v->supersedes, series);
	assert_int_equal(v->findings, 0);
	assert_int_equal(v->fixed, ((struct pw_lineage_version *)vs->pdata[0])->findings);
	g_ptr_array_unref(vs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(versions_in_order, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(out_of_order, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(states, setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
