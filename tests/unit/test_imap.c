/*
 * Unit tests for bot/imap.c's readers of what an IMAP server answers
 * (cursors, STATUS, SEARCH, each fed hostile input) and for the [imap]
 * and [imap NAME] groups of bot/config.c.  The source itself talks to a
 * real server: tests/integration/ runs it against Dovecot.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "bot/config.h"
#include "bot/imap.h"

static void cursors(void **state)
{
	uint32_t v = 9, u = 9;

	assert_true(pw_imap_cursor_parse("1796272842:4", &v, &u));
	assert_int_equal(v, 1796272842u);
	assert_int_equal(u, 4);
	assert_true(pw_imap_cursor_parse("4294967295:0", &v, &u));
	assert_int_equal(v, 4294967295u);
	assert_int_equal(u, 0);

	v = u = 9;
	assert_false(pw_imap_cursor_parse(NULL, &v, &u));
	assert_false(pw_imap_cursor_parse("", &v, &u));
	assert_false(pw_imap_cursor_parse("12", &v, &u));
	assert_false(pw_imap_cursor_parse("0:5", &v, &u));	/* nz-number */
	assert_false(pw_imap_cursor_parse("4294967296:1", &v, &u));
	assert_false(pw_imap_cursor_parse("1:4294967296", &v, &u));
	assert_false(pw_imap_cursor_parse("1:", &v, &u));
	assert_false(pw_imap_cursor_parse(":1", &v, &u));
	assert_false(pw_imap_cursor_parse("1:2:3", &v, &u));
	assert_false(pw_imap_cursor_parse("-1:2", &v, &u));
	assert_false(pw_imap_cursor_parse(" 1:2", &v, &u));
	assert_false(pw_imap_cursor_parse("1:2 ", &v, &u));
	assert_false(pw_imap_cursor_parse("99999999999999999999:1", &v, &u));
	assert_int_equal(v, 9);
	assert_int_equal(u, 9);
}

static void status_answers(void **state)
{
	struct pw_imap_status st;
	const char *ok = "* STATUS INBOX (MESSAGES 2 UIDNEXT 3 UIDVALIDITY "
			 "1796272842)\r\n";
	const char *quoted = "* OK noise\r\n* status \"a (b) c\" (uidvalidity 7 "
			     "UIDNEXT 10 messages 0)\r\n";
	const char *odd = "* STATUS INBOX (UIDVALIDITY 4294967296 UIDNEXT x "
			  "MESSAGES 5 UNSEEN 3\r\n";
	const char *none = "* STATUSX INBOX (UIDVALIDITY 5)\r\n* 3 EXISTS\r\n";

	assert_true(pw_imap_status_parse(ok, strlen(ok), &st));
	assert_int_equal(st.validity, 1796272842u);
	assert_int_equal(st.uidnext, 3);
	assert_int_equal(st.messages, 2);

	/* The attributes are in the last parenthesis, in any case. */
	assert_true(pw_imap_status_parse(quoted, strlen(quoted), &st));
	assert_int_equal(st.validity, 7);
	assert_int_equal(st.uidnext, 10);
	assert_int_equal(st.messages, 0);

	/* Numbers out of range or not numbers are not taken; a missing
	 * ')' ends nothing badly. */
	assert_true(pw_imap_status_parse(odd, strlen(odd), &st));
	assert_int_equal(st.validity, 0);
	assert_int_equal(st.uidnext, 0);
	assert_int_equal(st.messages, 5);

	assert_false(pw_imap_status_parse(none, strlen(none), &st));
	assert_false(pw_imap_status_parse("", 0, &st));
	/* Bytes after len are not read. */
	assert_false(pw_imap_status_parse(ok, 3, &st));
}

static GArray *search(const char *text, uint32_t lo, uint32_t hi)
{
	GArray *uids = g_array_new(FALSE, FALSE, sizeof(uint32_t));

	pw_imap_search_parse(text, strlen(text), lo, hi, uids);
	return uids;
}

static void search_answers(void **state)
{
	GArray *u;

	u = search("* SEARCH 2 3 4\r\n", 1, 100);
	assert_int_equal(u->len, 3);
	assert_int_equal(g_array_index(u, uint32_t, 0), 2);
	assert_int_equal(g_array_index(u, uint32_t, 2), 4);
	g_array_free(u, TRUE);

	/* A range ending in '*' answers the highest UID even below the
	 * range (c-apis.md 3.6 pitfall 3): the window filters it. */
	u = search("* SEARCH 4\r\n", 50, 4294967295u);
	assert_int_equal(u->len, 0);
	g_array_free(u, TRUE);

	/* Unordered, repeated, zero-padded, junk, out of range, MODSEQ,
	 * several lines: sorted, each once. */
	u = search("* SEARCH 9 3 junk 3 0003 -1 0 4294967296 12345678901 7\r\n"
		   "* search 5 (MODSEQ 8)\r\n* SEARCHES 6\r\n* SEARCH\r\n"
		   "A3 OK SEARCH 4\r\n", 1, 8);
	assert_int_equal(u->len, 3);
	assert_int_equal(g_array_index(u, uint32_t, 0), 3);
	assert_int_equal(g_array_index(u, uint32_t, 1), 5);
	assert_int_equal(g_array_index(u, uint32_t, 2), 7);
	g_array_free(u, TRUE);

	u = search("", 1, 10);
	assert_int_equal(u->len, 0);
	g_array_free(u, TRUE);
}

/* Writes a configuration file of mode 0600 and loads it. */
static enum pw_status load(const char *text, struct pw_config **c, char **err)
{
	char path[] = "/tmp/pw-test-imap-XXXXXX";
	int fd = mkstemp(path);
	enum pw_status s;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	s = pw_config_load(path, ":memory:", c, err);
	unlink(path);
	return s;
}

static void config_groups(void **state)
{
	struct pw_config *c = NULL;
	const struct pw_imap_conf *m;
	char *err = NULL;

	/* Without a file: the defaults. */
	m = pw_config_imap(NULL, "x");
	assert_null(m->user);
	assert_string_equal(m->starttls, "required");
	assert_int_equal(m->timeout, 60);

	assert_int_equal(load("[imap]\nuser = bot\npassword = s3cret\n"
			      "starttls = no\ntimeout = 5\n"
			      "[imap mips]\npassword = other\ncainfo = /ca.pem\n"
			      "[list mips]\nstyle = octal\n", &c, &err), PW_OK);
	m = pw_config_imap(c, "hwmon");
	assert_string_equal(m->user, "bot");
	assert_string_equal(m->password, "s3cret");
	assert_string_equal(m->starttls, "no");
	assert_null(m->cainfo);
	assert_int_equal(m->timeout, 5);
	m = pw_config_imap(c, NULL);
	assert_string_equal(m->password, "s3cret");
	/* [imap mips] replaces what it sets and keeps the rest. */
	m = pw_config_imap(c, "mips");
	assert_string_equal(m->name, "mips");
	assert_string_equal(m->user, "bot");
	assert_string_equal(m->password, "other");
	assert_string_equal(m->starttls, "no");
	assert_string_equal(m->cainfo, "/ca.pem");
	assert_int_equal(m->timeout, 5);
	/* The [list NAME] loop reads lists only. */
	assert_int_equal(c->lists->len, 1);
	pw_config_free(c);

	assert_int_equal(load("[imap x]\nstarttls = maybe\n", &c, &err),
			 PW_ERR_USAGE);
	assert_non_null(strstr(err, "[imap x] starttls"));
	g_free(err);
	err = NULL;
	assert_int_equal(load("[imap]\ntimeout = 0\n", &c, &err), PW_ERR_USAGE);
	g_free(err);
	err = NULL;
}

/* A password in [imap NAME] makes a secrets file, refused when others
 * can read it. */
static void config_secret(void **state)
{
	char path[] = "/tmp/pw-test-imap-XXXXXX";
	const char *text = "[imap mips]\npassword = s3cret\n";
	struct pw_config *c = NULL;
	char *err = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(pw_config_load(path, ":memory:", &c, &err),
			 PW_ERR_USAGE);
	assert_non_null(strstr(err, "holds a secret"));
	assert_null(strstr(err, "s3cret"));
	g_free(err);
	err = NULL;
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(pw_config_load(path, ":memory:", &c, &err), PW_OK);
	pw_config_free(c);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cursors),
		cmocka_unit_test(status_answers),
		cmocka_unit_test(search_answers),
		cmocka_unit_test(config_groups),
		cmocka_unit_test(config_secret),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
