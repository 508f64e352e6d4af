/*
 * patchwarden: what every subcommand that reads the store shares:
 * --config and --db handling, and opening both with clear messages.
 */
#ifndef PW_CLI_H
#define PW_CLI_H

#include <stdbool.h>

#include "bot/config.h"
#include "db/db.h"

/*
 * Loads the configuration (config may be NULL) and opens the database
 * (db_path overrides [core] db).  Prints the reason on stderr and returns
 * false on failure; on success the caller frees both.  *cfg is NULL
 * after a failure when the configuration was at fault, set (and to be
 * freed) when the database was.
 */
bool pw_cli_open(const char *config, const char *db_path, bool readonly,
		 struct pw_config **cfg, struct pw_db **db);

/*
 * Parses options with GOptionContext; on a usage error prints it with
 * the command's name and returns false.
 */
bool pw_cli_parse(const char *cmd, const char *args, GOptionEntry *entries,
		  int *argc, char ***argv);

/* --threads takes 1 to this many parser threads. */
#define PW_CLI_THREADS_MAX 256

/*
 * Reads the --threads value given to cmd (a string option: NULL when it
 * was not given): *threads receives 0 (one per core) for NULL, else the
 * number, 1 to PW_CLI_THREADS_MAX.  Anything else is reported on stderr
 * and false returned: a usage error, exit status 2.
 */
bool pw_cli_threads(const char *cmd, const char *given, int *threads);

/*
 * Checks, before anything is stored, that every path of paths[0..n-1]
 * other than "-" (stdin) exists and can be opened for reading.  Each
 * one that cannot is reported on stderr with the reason, and false
 * returned: a usage error, exit status 2.
 */
bool pw_cli_inputs_ok(const char *cmd, char **paths, int n);

/* True when every path of paths[0..n-1] is "-": mail piped in. */
bool pw_cli_inputs_piped(char **paths, int n);

/* Parses "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS[Z]", "@unix" or "Nd"/"Nh"
 * (that long ago) into Unix time.  Returns false if it is none of those. */
bool pw_cli_parse_time(const char *s, gint64 *out);

#endif
