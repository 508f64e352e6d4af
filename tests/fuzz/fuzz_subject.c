/*
 * Fuzz harness for pw_subject_parse() (checks/message.h, defined in
 * checks/subject.c): the bracketed markers of a subject line.
 *
 * bot/ hands the parser a decoded subject, so the bytes are made valid
 * UTF-8 first, as GMime's decoding would leave them.  The tags must be
 * in range (version at least 1, number and total not negative), the
 * prefixes allocated, and the stripped subject valid UTF-8 again, since
 * it is stored and printed as JSON.  A NULL subject is an empty one.
 *
 * Built and run by "make fuzz" (libFuzzer) and replayed standalone by
 * tests/integration/fuzz_replay.sh; see tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "checks/message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(const char *subject)
{
	struct pw_subject_tags tags;
	char *clean = pw_subject_parse(subject, &tags);

	if (!clean || !g_utf8_validate(clean, -1, NULL))
		__builtin_trap();
	if (tags.version < 1 || tags.number < 0 || tags.total < 0)
		__builtin_trap();
	if (!tags.prefixes || !g_utf8_validate(tags.prefixes, -1, NULL))
		__builtin_trap();
	pw_subject_tags_release(&tags);
	if (tags.prefixes)
		__builtin_trap();
	g_free(clean);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *subject = g_utf8_make_valid((const char *)data, (gssize)size);

	parse(subject);
	if (size == 0)
		parse(NULL);
	g_free(subject);
	return 0;
}
