/*
 * patchwarden: the dashboard's HTTP server (libmicrohttpd), a module
 * that "serve" runs on its own and that the service can run beside
 * its other work.  It reads the store through read-only connections,
 * one per server thread, taken from a pool for each request; only
 * POST /api/submit writes, through one read-write connection held
 * under a lock.
 *
 * Listening anywhere but on loopback needs [web] token, which every
 * request must then carry ("Authorization: Bearer TOKEN", compared in
 * constant time); /api/submit always needs it.
 */
#ifndef PW_WEB_H
#define PW_WEB_H

#include "bot/config.h"
#include "checks/status.h"

struct pw_web;

/*
 * Starts serving the store at db_path on listen ("HOST:PORT", "[V6]:PORT";
 * NULL: [web] listen, else 127.0.0.1:8080) with cfg (borrowed: it must
 * outlive the server) and threads server threads (0: 4).  On success
 * *out is the running server and *where (new) the URL it answers on;
 * on failure an error and a reason in *err (new).
 */
enum pw_status pw_web_start(const char *db_path, const struct pw_config *cfg,
			    const char *listen, unsigned threads,
			    struct pw_web **out, char **where, char **err);

/* Stops the server, waits for its requests to end, frees it; NULL: no-op. */
void pw_web_stop(struct pw_web *w);

#endif
