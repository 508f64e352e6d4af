/*
 * patchwarden archive DIR SOURCE...
 *
 * Appends every message of the sources (mbox, Maildir, single message,
 * - for stdin) to the public-inbox v2 archive DIR, making it when it is
 * missing, as public-inbox's own importer writes one: what "make run"
 * subscribes to, and a way to feed a subscribed archive by hand.
 * Exit status: 0 done; 2 usage, a SOURCE that is missing or cannot be
 * read (said before anything is appended), or the archive could not be
 * written.
 */
#include <stdio.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/pubinbox.h"

int pw_cmd_archive(int argc, char **argv)
{
	GOptionEntry entries[] = {
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	int i, n, total = 0, rc = 0;

	if (!pw_cli_parse("archive", "DIR SOURCE...", entries, &argc, &argv))
		return 2;
	if (argc < 3) {
		fprintf(stderr, "patchwarden archive: give the archive's DIR and at"
			" least one SOURCE\n");
		return 2;
	}
	if (!pw_cli_inputs_ok("archive", argv + 2, argc - 2))
		return 2;
	for (i = 2; i < argc; i++) {
		char *err = NULL;

		if (pw_pubinbox_append(argv[1], argv[i], &n, &err)) {
			pw_error("%s", err);
			g_free(err);
			rc = 2;
		}
		total += n;
	}
	printf("archived %d messages in %s\n", total, argv[1]);
	return rc;
}
