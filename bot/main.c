/*
 * patchwarden: the command table.  One binary, git-style subcommands.
 */
#include <stdio.h>
#include <string.h>

#include "bot/cmd.h"
#include "bot/mail.h"
#include "bot/log.h"


struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "check", pw_cmd_check, "check patches, mails or source files before sending" },
	{ "parse", pw_cmd_parse, "show what is read from each message, store nothing" },
	{ "ingest", pw_cmd_ingest, "store messages from mbox, Maildir, .eml or stdin" },
	{ "db", pw_cmd_db, "the store: stats, check, recheck, backup, vacuum" },
	{ "query", pw_cmd_query, "query the stored history" },
	{ "outbox", pw_cmd_outbox, "list, show, send and retry replies" },
	{ "patchwork", pw_cmd_patchwork, "list, post and retry the checks reported to Patchwork" },
	{ "run", pw_cmd_run, "the bot's main job: the service, or ingest, check, reply" },
	{ "subscribe", pw_cmd_subscribe, "add, list, pause, resume, remove subscribed lists" },
	{ "poll", pw_cmd_poll, "poll the subscriptions once" },
	{ "archive", pw_cmd_archive, "append mail to a public-inbox archive (made if missing)" },
	{ "serve", pw_cmd_serve, "the dashboard and its JSON API over HTTP" },
	{ "triage", pw_cmd_triage, "maintainers' decisions: a finding wrong, a rule off, recheck, stop, undo" },
	{ "config", pw_cmd_config, "check the configuration: the settings in effect and every problem" },
	{ "digest", pw_cmd_digest, "the weekly digest of a list to its maintainers" },
	{ "preview", pw_cmd_preview, "replay a list's history: what the bot would have mailed" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: patchwarden [-v] <command> [options] [args]\n\n"
		"  -v, --verbose  also log what happens in detail (SMTP answers, ...)\n\n"
		"commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].fn)
			fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n'patchwarden help <command>' (or 'patchwarden <command> --help')"
		" for a command's options;\n'patchwarden --version' for the version.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	while (argc > 1 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--verbose"))) {
		pw_log_set_level(PW_LOG_DEBUG);
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	/* "help CMD" is "CMD --help": GOption prints the options. */
	if (!strcmp(argv[1], "help") && argc > 2) {
		char *args[] = { argv[2], "--help", NULL };

		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (commands[i].fn && !strcmp(argv[2], commands[i].name))
				return commands[i].fn(2, args);
		fprintf(stderr, "patchwarden: '%s' is not a command\n", argv[2]);
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("patchwarden %s\n", PW_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].fn && !strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "patchwarden: '%s' is not a command\n", argv[1]);
	usage(stderr);
	return 2;
}
