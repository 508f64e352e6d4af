/*
 * Fuzz harness for pw_mail_parse() (bot/mail.c, GMime) and
 * pw_subject_parse().  Everything handed out must be valid UTF-8, and a
 * rejected mail must come with the reason.
 *
 * Built and run by "make fuzz" (libFuzzer) and replayed standalone by
 * tests/integration/fuzz_replay.sh; see tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>

#include "bot/mail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pw_mail *m = NULL;
	struct pw_subject_tags tags;
	char *err = NULL, *subj, *clean;

	pw_mail_init();
	if (pw_mail_parse((const char *)data, size, &m, &err) == PW_OK) {
		/* Everything handed out must be valid UTF-8. */
		if (!g_utf8_validate(m->subject, -1, NULL) ||
		    !g_utf8_validate(m->from_name, -1, NULL) ||
		    !g_utf8_validate(m->commit_msg, -1, NULL) ||
		    (m->diff && !g_utf8_validate(m->diff, -1, NULL)))
			__builtin_trap();
		pw_mail_free(m);
	} else if (!err) {
		__builtin_trap();	/* a rejection always says why */
	}
	g_free(err);

	/* The subject parser on the raw bytes, made valid first. */
	subj = g_utf8_make_valid((const char *)data, (gssize)(size < 4096 ? size : 4096));
	clean = pw_subject_parse(subj, &tags);
	if (tags.version < 1 || tags.number < 0 || tags.total < 0)
		__builtin_trap();
	g_free(clean);
	pw_subject_tags_release(&tags);
	g_free(subj);
	return 0;
}
