/*
 * patchwarden: what every subcommand that reads the store shares:
 * --config and --db handling, and opening both with clear messages.
 */
#ifndef PW_CLI_H
#define PW_CLI_H

#include <stdbool.h>

#include "bot/config.h"
#include "bot/printer.h"
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

/*
 * The ID argument of a command that names a stored row (outbox retry,
 * patchwork retry): a decimal number above 0.  False when s is not.
 */
bool pw_cli_parse_id(const char *s, int64_t *id);

/*
 * A "list" of stored rows: s is what reading rows (owned by the caller)
 * from db came to.  Prints each row with print in format fmt (layout
 * for text) on stdout and returns 0, or says the store's error and
 * returns EX_TEMPFAIL.
 */
int pw_cli_print_rows(struct pw_db *db, enum pw_status s, GPtrArray *rows,
		      enum pw_format fmt, const char *layout,
		      void (*print)(struct pw_printer *p, const void *row));

/*
 * The end of a run over stored rows (outbox send, patchwork post):
 * prints its counts as one line on stdout and, when it stopped with s,
 * "WHAT: why" (err, freed here, or s's name) as an error.  Returns
 * whether it stopped.
 */
bool pw_cli_run_stopped(const char *what, const struct pw_count *n,
			size_t len, enum pw_status s, char *err);

#endif
