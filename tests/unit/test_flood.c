/*
 * Unit tests for db/flood.c's key filter: once a bulk load's filter
 * (one per connection here) has seen a few hundred patches it answers
 * most key lookups from memory, and must
 * still find every key the table holds: keys another connection filed,
 * its own keys in a week it read before, weeks it dropped, and none of
 * a transaction rolled back.  And mail a machine sent (pw_mail.automated)
 * is never counted against a person.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "db/db.h"
#include "db/flood.h"
#include "db/identity.h"

#define WEEK PW_FLOOD_BUCKET
#define BASE ((int64_t)1700000000 / WEEK * WEEK)	/* the start of a week */

/* burst 0: every count in the window floods, as before campaigns. */
static struct pw_flood_params params = { 2, 3 * 24 * 3600, NULL, 0, 0 };
static int serial;
/* What the next patches filed carry: why a machine sent them (NULL: a
 * person did), and their patch-id (NULL: each its own). */
static const char *automated;
static const char *patch_id;
/* With judge, each patch filed is judged as ingest judges live mail
 * (db/identity.h), its DKIM signature verified when dkim_pass. */
static bool judge, dkim_pass;

/* Each connection's bulk-load filter, owned by the test as ingest owns
 * its own. */
static struct pw_db *filter_db[2];
static struct pw_flood_filter *filters[2];

static struct pw_flood_filter *filter_of(struct pw_db *db)
{
	return filter_db[0] == db ? filters[0] : filters[1];
}

/*
 * Stores a patch of author (posted by sender when not NULL, as a patch
 * with an in-body From: is) dated date whose subject, body and shape
 * digests are subject, body and shape (each unique when NULL) and files
 * it; returns the flood it joined, 0 for none.  With rollback, the
 * whole is rolled back instead of committed.
 */
static int64_t file_as(struct pw_db *db, const char *author,
		       const char *sender, int64_t date, const char *subject,
		       const char *body, const char *shape, bool rollback)
{
	struct pw_fingerprint fp;
	struct pw_mail m;
	struct pw_msg_origin from = { .raw = "x", .raw_len = 1 };
	struct pw_flood_obs o;
	char msgid[64];
	int64_t id, patch, flood = 0;
	bool is_new;

	memset(&fp, 0, sizeof(fp));
	serial++;
	snprintf(fp.subject_nosys, sizeof(fp.subject_nosys), "%s%d",
		 subject ? subject : "subject-", subject ? 0 : serial);
	snprintf(fp.body, sizeof(fp.body), "%s%d", body ? body : "body-",
		 body ? 0 : serial);
	snprintf(fp.shape, sizeof(fp.shape), "%s%d", shape ? shape : "shape-",
		 shape ? 0 : serial);
	if (patch_id)
		snprintf(fp.patch_id, sizeof(fp.patch_id), "%s", patch_id);
	else
		snprintf(fp.patch_id, sizeof(fp.patch_id), "pid-%d", serial);
	snprintf(msgid, sizeof(msgid), "m%d@example.org", serial);
	memset(&m, 0, sizeof(m));
	m.msgid = msgid;
	m.kind = PW_MAIL_PATCH;
	m.from_addr = (char *)author;
	m.sender_addr = (char *)sender;
	m.subject = m.subject_clean = (char *)"a patch";
	m.date = date;
	m.automated = (char *)automated;
	memset(&o, 0, sizeof(o));
	o.mail = &m;
	o.fp = &fp;
	assert_int_equal(pw_db_begin(db), PW_OK);
	assert_int_equal(pw_db_message_add(db, &m, &from, NULL, &id, &is_new),
			 PW_OK);
	assert_true(is_new);
	if (judge)
		assert_int_equal(pw_db_identity_note(db, id, pw_mail_poster_addr(&m),
						     dkim_pass, date, &m.auth),
				 PW_OK);
	assert_int_equal(pw_db_patch_add(db, id, 0, NULL, &patch), PW_OK);
	o.message_id = id;
	o.patch_id = patch;
	assert_int_equal(pw_db_flood_observe(db, filter_of(db), &o, &params,
					     &flood), PW_OK);
	if (rollback) {
		pw_db_rollback(db);
		return flood;
	}
	assert_int_equal(pw_db_commit(db), PW_OK);
	return flood;
}

/* A patch of a@example.org, posted by its author: as file_as(). */
static int64_t file(struct pw_db *db, int64_t date, const char *subject,
		    const char *body, const char *shape, bool rollback)
{
	return file_as(db, "a@example.org", NULL, date, subject, body, shape,
		       rollback);
}

/* Files enough unrelated patches, in week 0, for the filter to start. */
static void warm(struct pw_db *db)
{
	int i;

	for (i = 0; i < 300; i++)
		assert_int_equal(file(db, BASE + 3600 + i, NULL, NULL, NULL,
				      false), 0);
}

/* Each test's store: a new directory, the database open through two
 * connections. */
struct store {
	char *dir, *path;
	struct pw_db *a, *b;
};

static int setup(void **state)
{
	struct store *st = g_new0(struct store, 1);
	char *err = NULL;

	st->dir = g_dir_make_tmp("pw-flood-db.XXXXXX", NULL);
	if (!st->dir)
		return -1;
	st->path = g_build_filename(st->dir, "pw.db", NULL);
	if (pw_db_open(st->path, false, &st->a, &err) ||
	    pw_db_open(st->path, false, &st->b, &err)) {
		fprintf(stderr, "%s\n", err ? err : "cannot open the store");
		g_free(err);
		return -1;
	}
	filter_db[0] = st->a;
	filter_db[1] = st->b;
	filters[0] = pw_db_flood_filter_new();
	filters[1] = pw_db_flood_filter_new();
	*state = st;
	return 0;
}

static int teardown(void **state)
{
	struct store *st = *state;
	char *cmd = g_strdup_printf("rm -rf '%s'", st->dir);
	int rc;

	params.window = 3 * 24 * 3600;	/* long_window changes it */
	automated = patch_id = NULL;	/* automated_mail sets them */
	judge = dkim_pass = false;	/* by_identity sets them */
	pw_db_flood_filter_free(filters[0]);
	pw_db_flood_filter_free(filters[1]);
	filters[0] = filters[1] = NULL;
	pw_db_close(st->a);
	pw_db_close(st->b);
	rc = system(cmd);
	g_free(cmd);
	g_free(st->path);
	g_free(st->dir);
	g_free(st);
	return rc;
}

/* A key another connection filed in a week this one has read. */
static void other_writer(void **state)
{
	struct store *st = *state;
	struct pw_db *a = st->a, *b = st->b;

	warm(a);
	assert_int_equal(file(b, BASE + 7200, "shared", NULL, NULL, false), 0);
	assert_int_not_equal(file(a, BASE + 7300, "shared", NULL, NULL, false), 0);
	/* And the other way round, body and shape keys too. */
	assert_int_equal(file(a, BASE + 8000, NULL, "b-shared", NULL, false), 0);
	assert_int_not_equal(file(b, BASE + 8100, NULL, "b-shared", NULL, false), 0);
	assert_int_equal(file(b, BASE + 9000, NULL, NULL, "s-shared", false), 0);
	assert_int_not_equal(file(a, BASE + 9100, NULL, NULL, "s-shared", false), 0);
	/* The filter starts again after enough patches of this one. */
	warm(a);
	assert_int_equal(file(b, BASE + 9500, "again", NULL, NULL, false), 0);
	warm(a);
	assert_int_not_equal(file(a, BASE + 9600, "again", NULL, NULL, false), 0);
}

/* Keys of this connection, in a week read before and in new weeks. */
static void own_keys(void **state)
{
	struct pw_db *a = ((struct store *)*state)->a;
	char subject[32];
	int w;

	warm(a);
	assert_int_equal(file(a, BASE + 7200, "own", NULL, NULL, false), 0);
	assert_int_not_equal(file(a, BASE + 7300, "own", NULL, NULL, false), 0);
	/* One patch in each of 40 later weeks, more than the filter keeps,
	 * then a second patch in each: every week is read again. */
	for (w = 1; w <= 40; w++) {
		snprintf(subject, sizeof(subject), "week-%d", w);
		assert_int_equal(file(a, BASE + w * WEEK + 3 * 24 * 3600,
				      subject, NULL, NULL, false), 0);
	}
	for (w = 1; w <= 40; w++) {
		snprintf(subject, sizeof(subject), "week-%d", w);
		assert_int_not_equal(file(a, BASE + w * WEEK + 3 * 24 * 3600 + 60,
					  subject, NULL, NULL, false), 0);
	}
	/* Across the edge of a week: the lookup spans both. */
	assert_int_equal(file(a, BASE + 50 * WEEK - 60, "edge", NULL, NULL,
			      false), 0);
	assert_int_not_equal(file(a, BASE + 50 * WEEK + 60, "edge", NULL, NULL,
				  false), 0);
}

/* A window of many weeks (looked up without the filter): keys far back
 * are found. */
static void long_window(void **state)
{
	struct pw_db *a = ((struct store *)*state)->a;
	int w;

	params.window = 200 * 24 * 3600;
	warm(a);
	assert_int_equal(file(a, BASE + 7200, "far", NULL, NULL, false), 0);
	for (w = 1; w <= 25; w++)
		assert_int_equal(file(a, BASE + w * WEEK, NULL, NULL, NULL,
				      false), 0);
	assert_int_not_equal(file(a, BASE + 26 * WEEK, "far", NULL, NULL,
				  false), 0);
}

/* A key of a rolled-back transaction is not there to be found. */
static void rolled_back(void **state)
{
	struct pw_db *a = ((struct store *)*state)->a;

	warm(a);
	assert_int_equal(file(a, BASE + 7200, "gone", NULL, NULL, true), 0);
	assert_int_equal(file(a, BASE + 7300, "gone", NULL, NULL, false), 0);
	assert_int_not_equal(file(a, BASE + 7400, "gone", NULL, NULL, false), 0);
}

/*
 * A flood is many patches from one sender: a maintainer posting the
 * patches of several authors (in-body From:) floods; one author whose
 * patches several people post does not.
 */
static void by_sender(void **state)
{
	struct pw_db *a = ((struct store *)*state)->a;
	struct pw_flood_info info;
	int64_t flood;

	warm(a);
	assert_int_equal(file_as(a, "x@example.com", "max@example.org",
				 BASE + 7200, "posted", NULL, NULL, false), 0);
	flood = file_as(a, "y@example.com", "max@example.org", BASE + 7300,
			"posted", NULL, NULL, false);
	assert_int_not_equal(flood, 0);
	assert_int_equal(pw_db_flood_info(a, flood, &info), PW_OK);
	assert_string_equal(info.sender_addr, "max@example.org");
	pw_db_flood_info_release(&info);
	assert_int_equal(file_as(a, "z@example.com", "p@example.org",
				 BASE + 8000, "one-author", NULL, NULL, false), 0);
	assert_int_equal(file_as(a, "z@example.com", "q@example.org",
				 BASE + 8100, "one-author", NULL, NULL, false), 0);
}

/* The findings of rule stored in the store at path. */
static int findings(const char *path, const char *rule)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int n = -1;

	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT count(*) FROM finding"
					    " WHERE rule = ?1", -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, rule, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

/*
 * Mail a machine sent (stable's "FAILED: patch ... failed to apply"
 * notices, one per tree; AUTOSEL posts of one commit) is stored but
 * never counted against a person: no member of a flood, no copy and no
 * original of a resend, whoever its in-body From: names.
 */
static void automated_mail(void **state)
{
	struct store *st = *state;
	int i;

	automated = "automated sender stable@vger.kernel.org";
	patch_id = "pid-same";
	for (i = 0; i < 4; i++)
		assert_int_equal(file(st->a, BASE + 600 * i, "failed", "body",
				      NULL, false), 0);
	assert_int_equal(findings(st->path, "RESEND_IDENTICAL"), 0);
	assert_int_equal(findings(st->path, "FLOOD"), 0);
	/* A person's patch of the same change is no copy of the notices,
	 * nor the second patch of a flood. */
	automated = NULL;
	assert_int_equal(file(st->a, BASE + 3000, "failed", "body", NULL,
			      false), 0);
	assert_int_equal(findings(st->path, "RESEND_IDENTICAL"), 0);
	/* The same person again: now a copy, and (count 2) a flood. */
	assert_int_not_equal(file(st->a, BASE + 3600, "failed", "body", NULL,
				  false), 0);
	assert_int_equal(findings(st->path, "RESEND_IDENTICAL"), 1);
	assert_int_equal(findings(st->path, "FLOOD"), 2);
}

/*
 * Three near-identical patches twelve hours apart, in no subsystem
 * (no diff): a campaign, which the reply stage's lookups do not take
 * for a flood; three more within minutes make it one, of six.
 */
static void campaign_then_burst(void **state)
{
	struct store *st = *state;
	struct pw_db *db = st->a;
	struct pw_flood_params slow = { 3, 3 * 24 * 3600, NULL, 6 * 3600, 3 };
	struct pw_flood_params saved = params;
	struct pw_flood_campaign *c;
	GPtrArray *v;
	int64_t flood = 0;
	int i, rule;

	params = slow;
	for (i = 0; i < 3; i++)
		assert_int_equal(file(db, BASE + i * 12 * 3600, "same", NULL, NULL,
				      false), 0);
	assert_int_equal(pw_db_flood_campaigns(db, 0, 0, &v), PW_OK);
	assert_int_equal(v->len, 1);
	c = v->pdata[0];
	assert_int_equal(c->size, 3);
	assert_int_equal(c->last - c->first, 24 * 3600);
	assert_string_equal(c->sender, "a@example.org");
	assert_int_equal(g_strv_length(c->members), 3);
	/* Not a flood to the reply stage. */
	assert_int_equal(pw_db_flood_kind(db, c->id, NULL, NULL, NULL),
			 PW_ERR_INPUT);
	g_ptr_array_unref(v);
	assert_int_equal(findings(st->path, "FLOOD_CAMPAIGN"), 3);
	assert_int_equal(findings(st->path, "FLOOD"), 0);
	for (i = 0; i < 3; i++)
		flood = file(db, BASE + 2 * 86400 + i * 60, "same", NULL, NULL,
			     false);
	assert_true(flood > 0);
	assert_int_equal(pw_db_flood_kind(db, flood, &rule, NULL, NULL), PW_OK);
	assert_int_equal(rule, PW_R_FLOOD);
	assert_int_equal(pw_db_flood_campaigns(db, 0, 0, &v), PW_OK);
	assert_int_equal(v->len, 0);
	g_ptr_array_unref(v);
	/* Every member carries the flood's finding, and only it. */
	assert_int_equal(findings(st->path, "FLOOD_CAMPAIGN"), 0);
	assert_int_equal(findings(st->path, "FLOOD"), 6);
	params = saved;
}

/*
 * A sender is an address and how it was authenticated: mail claiming
 * an address seen DKIM-signed, without the signature, is no copy of
 * that address's signed patches and no member of their floods, and its
 * own flood is marked unauthenticated; the signed mail floods on its
 * own.
 */
static void by_identity(void **state)
{
	struct store *st = *state;
	struct pw_flood_info info;
	int64_t forged, real;

	judge = true;
	patch_id = "pid-same";
	dkim_pass = true;
	assert_int_equal(file(st->a, BASE + 600, "framed", "body", NULL, false), 0);
	dkim_pass = false;
	assert_int_equal(file(st->a, BASE + 1200, "framed", "body", NULL, false), 0);
	assert_int_equal(findings(st->path, "RESEND_IDENTICAL"), 0);
	forged = file(st->a, BASE + 1800, "framed", "body", NULL, false);
	assert_int_not_equal(forged, 0);
	assert_int_equal(pw_db_flood_info(st->a, forged, &info), PW_OK);
	assert_int_equal(info.size, 2);
	assert_true(info.unauthenticated);
	assert_string_equal(info.sender_addr, "a@example.org");
	pw_db_flood_info_release(&info);
	dkim_pass = true;
	real = file(st->a, BASE + 2400, "framed", "body", NULL, false);
	assert_int_not_equal(real, 0);
	assert_int_not_equal(real, forged);
	assert_int_equal(pw_db_flood_info(st->a, real, &info), PW_OK);
	assert_int_equal(info.size, 2);
	assert_false(info.unauthenticated);
	pw_db_flood_info_release(&info);
	/* One copy each: the signed one of the signed, the forged one of
	 * the forged. */
	assert_int_equal(findings(st->path, "RESEND_IDENTICAL"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(other_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(own_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(rolled_back, setup, teardown),
		cmocka_unit_test_setup_teardown(long_window, setup, teardown),
		cmocka_unit_test_setup_teardown(by_sender, setup, teardown),
		cmocka_unit_test_setup_teardown(automated_mail, setup, teardown),
		cmocka_unit_test_setup_teardown(campaign_then_burst, setup, teardown),
		cmocka_unit_test_setup_teardown(by_identity, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
