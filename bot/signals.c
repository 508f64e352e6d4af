/*
 * patchwarden: stopping cleanly (see bot/signals.h).
 */
#include <string.h>

#include "bot/signals.h"

volatile sig_atomic_t pw_stop_requested;
volatile sig_atomic_t pw_reload_requested;

static void on_stop(int sig)
{
	(void)sig;
	pw_stop_requested = 1;
}

static void on_hup(int sig)
{
	(void)sig;
	pw_reload_requested = 1;
}

void pw_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	/* A dashboard client or SMTP server that goes away is an error
	 * return, not a death. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}
