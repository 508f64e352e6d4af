/*
 * patchwarden: stopping cleanly.  SIGTERM and SIGINT set a flag that
 * polls and the ingest pipeline watch: what was read is committed, the
 * rest is left for the next time.  SIGHUP sets another (the service
 * reloads its configuration).
 */
#ifndef PW_SIGNALS_H
#define PW_SIGNALS_H

#include <signal.h>

extern volatile sig_atomic_t pw_stop_requested;	/* SIGTERM, SIGINT */
extern volatile sig_atomic_t pw_reload_requested;	/* SIGHUP */

/* Installs the handlers (without SA_RESTART: a sleep ends at once). */
void pw_signals_install(void);

#endif
