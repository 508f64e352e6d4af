/*
 * Fuzz harness for pw_mail_parse() and pw_subject_parse().
 *
 * libFuzzer (clang):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE -I. \
 *     $(pkg-config --cflags gmime-3.0) tests/fuzz/fuzz_mail.c bot/mail.c \
 *     checks/status.c -o build/fuzz_mail $(pkg-config --libs gmime-3.0)
 *   build/fuzz_mail -max_len=65536 CORPUS_DIR $SHARED/corpus/patchwork/fuzz
 *
 * Standalone (any compiler): built with -DPW_FUZZ_STANDALONE, it runs
 * each file named on the command line through the same entry point, so
 * crash reproducers can be replayed under valgrind or in the test suite.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

#ifdef PW_FUZZ_STANDALONE
int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		gchar *buf = NULL;
		gsize len = 0;

		if (!g_file_get_contents(argv[i], &buf, &len, NULL)) {
			fprintf(stderr, "fuzz_mail: cannot read %s\n", argv[i]);
			return 2;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
		g_free(buf);
	}
	printf("fuzz_mail: %d inputs ran\n", argc - 1);
	return 0;
}
#endif
