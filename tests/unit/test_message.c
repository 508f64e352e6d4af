/*
 * Unit tests for checks/message.c: the kind of a message from what it
 * holds, its place in a thread, the derived Message-ID and the naked
 * cover rule, on messages built here without parsing any mail.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checks/message.h"

/* A message with the given subject, diff, pull URL and parent. */
static struct pw_mail *mail(const char *subject, const char *diff,
			    const char *pull_url, const char *parent)
{
	struct pw_mail *m = g_new0(struct pw_mail, 1);

	m->msgid = g_strdup("m@x");
	m->from_addr = g_strdup("a@x");
	m->subject = g_strdup(subject);
	m->subject_clean = pw_subject_parse(subject, &m->tags);
	m->diff = g_strdup(diff);
	m->pull_url = g_strdup(pull_url);
	m->in_reply_to = g_strdup(parent);
	m->references = g_new0(char *, 1);
	m->kind = pw_mail_classify(m);
	return m;
}

static void kinds(void **state)
{
	static const struct {
		const char *subject, *diff, *pull, *parent;
		enum pw_mail_kind kind;
	} c[] = {
		{ "[PATCH] x", "--- a\n", NULL, NULL, PW_MAIL_PATCH },
		{ "[PATCH 2/3] x", "--- a\n", NULL, "c@x", PW_MAIL_PATCH },
		{ "Re: [PATCH] x", "--- a\n", NULL, "p@x", PW_MAIL_COMMENT },
		{ "Aw: [PATCH] x", NULL, NULL, NULL, PW_MAIL_COMMENT },
		{ "Fwd: [PATCH] x", "--- a\n", NULL, NULL, PW_MAIL_PATCH },
		{ "[GIT PULL] x", "--- a\n", "git://h/r main", NULL, PW_MAIL_PULL },
		{ "[PATCH 0/3] x", "--- a\n", NULL, NULL, PW_MAIL_COVER },
		{ "[PATCH 0 of 3] x", NULL, NULL, NULL, PW_MAIL_COVER },
		{ "[PATCH] x", NULL, NULL, NULL, PW_MAIL_OTHER },
		{ "a question", NULL, NULL, "p@x", PW_MAIL_COMMENT },
		{ "a question", NULL, NULL, NULL, PW_MAIL_OTHER },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(c); i++) {
		struct pw_mail *m = mail(c[i].subject, c[i].diff, c[i].pull,
					 c[i].parent);

		if (m->kind != c[i].kind)
			print_message("# \"%s\": %s\n", c[i].subject,
				      pw_mail_kind_str(m->kind));
		assert_int_equal(m->kind, c[i].kind);
		pw_mail_free(m);
	}
}

static void threaded(void **state)
{
	struct pw_mail *m = mail("x", NULL, NULL, NULL);

	(void)state;
	assert_false(pw_mail_is_threaded(m));
	g_strfreev(m->references);
	m->references = g_strsplit("root@x", " ", -1);
	assert_true(pw_mail_is_threaded(m));
	assert_int_equal(pw_mail_classify(m), PW_MAIL_COMMENT);
	g_strfreev(m->references);
	m->references = NULL;
	assert_false(pw_mail_is_threaded(m));
	m->in_reply_to = g_strdup("p@x");
	assert_true(pw_mail_is_threaded(m));
	pw_mail_free(m);
}

static void derived_msgid(void **state)
{
	char *a = pw_mail_derive_msgid("abc", 3);
	char *b = pw_mail_derive_msgid("abc", 3);
	char *c = pw_mail_derive_msgid("abd", 3);

	(void)state;
	/* SHA-256 of "abc". */
	assert_string_equal(a, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9c"
			       "b410ff61f20015ad@patchwarden.invalid");
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	g_free(a);
	g_free(b);
	g_free(c);
}

/* b4's rule, on a root and the patches that may answer it. */
static void naked_cover(void **state)
{
	struct pw_mail *root = mail("an approach", NULL, NULL, NULL);
	struct pw_mail *patch = mail("[PATCH] x", "--- a\n", NULL, "m@x");
	struct pw_mail *other = mail("[PATCH] x", "--- a\n", NULL, "m@x");

	(void)state;
	g_free(root->msgid);
	root->msgid = g_strdup("m@x");
	assert_true(pw_mail_is_bare_root(root));
	assert_true(pw_mail_is_naked_cover(root, patch));
	g_free(other->from_addr);
	other->from_addr = g_strdup("b@x");
	assert_false(pw_mail_is_naked_cover(root, other));	/* another sender */
	assert_false(pw_mail_is_naked_cover(patch, patch));	/* not a root */
	assert_false(pw_mail_is_bare_root(patch));
	assert_false(pw_mail_is_bare_root(NULL));
	pw_mail_free(root);
	pw_mail_free(patch);
	pw_mail_free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kinds),
		cmocka_unit_test(threaded),
		cmocka_unit_test(derived_msgid),
		cmocka_unit_test(naked_cover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
