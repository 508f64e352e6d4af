/*
 * patchwarden: the service ("patchwarden run" without sources).  One
 * process polls each subscription on its interval, decides the replies
 * held while a flood was undecided once its window closes, and sends
 * the replies that are due, and, when [web] listen is set, serves the
 * dashboard (bot/web.h), until SIGTERM or SIGINT (finish the message at
 * hand, commit, exit 0).  SIGHUP reloads the configuration.  One log
 * line per event on stderr.
 */
#ifndef PW_SERVICE_H
#define PW_SERVICE_H

/*
 * Runs the service on the configuration file config (NULL: defaults)
 * and the store db_path (NULL: [core] db).  Returns the exit status: 0
 * after a stop, 75 (EX_TEMPFAIL) when the configuration or the store
 * cannot be opened at start.
 */
int pw_service_run(const char *config, const char *db_path);

#endif
