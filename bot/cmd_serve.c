/*
 * patchwarden serve [--db PATH] [--config FILE] [--listen HOST:PORT]
 *                   [--threads N]
 *
 * Serves the dashboard of the store (bot/web.h) until SIGINT or
 * SIGTERM.  It opens the store read-only; only POST /api/submit, with
 * the token, writes.  Exit status: 0 after a signal, 2 when the
 * configuration, the store or the address is refused.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/web.h"

int pw_cmd_serve(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *listen = NULL, *where = NULL;
	char *err = NULL;
	int threads = 0;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "listen", 0, 0, G_OPTION_ARG_STRING, &listen, "address to answer on (default [web] listen, else 127.0.0.1:8080)", "HOST:PORT" },
		{ "threads", 0, 0, G_OPTION_ARG_INT, &threads, "server threads and store connections (default 4)", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	struct pw_web *w = NULL;
	sigset_t set;
	int sig, rc = 2;

	if (!pw_cli_parse("serve", "", entries, &argc, &argv))
		goto out;
	if (argc != 1 || threads < 0 || threads > 64) {
		fprintf(stderr, "usage: patchwarden serve [--db PATH] [--config FILE]"
			" [--listen HOST:PORT] [--threads 1..64]\n");
		goto out;
	}
	pw_log_set_timestamps(true);
	/* The store must be there and current: opened once to say so. */
	if (!pw_cli_open(config, db_path, true, &cfg, &db)) {
		rc = EX_TEMPFAIL;
		goto out;
	}
	pw_db_close(db);
	db = NULL;
	/* The server's threads inherit this mask: signals come here. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pw_web_start(cfg->db_path, cfg, listen, (unsigned)threads, &w,
			 &where, &err)) {
		pw_error("serve: %s", err);
		goto out;
	}
	fprintf(stderr, "patchwarden serve: %s on %s\n", cfg->db_path, where);
	fflush(stderr);
	sigwait(&set, &sig);
	pw_web_stop(w);
	rc = 0;
out:
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(listen);
	g_free(where);
	g_free(err);
	return rc;
}
