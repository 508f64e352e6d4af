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

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>

#include "bot/config.h"
#include "bot/web_page.h"
#include "checks/status.h"

struct pw_web;

/*
 * One request, apart from HTTP: what the server hands pw_web_answer()
 * once libmicrohttpd has read it, and what the fuzz harness makes
 * without a socket.  Everything is borrowed.
 */
struct pw_web_request {
	const char *method;		/* "GET", "HEAD", "POST", ... */
	const char *path;		/* unescaped, without the query */
	GHashTable *args;		/* from pw_web_args_new() */
	const char *authorization;	/* the header's value, or NULL */
	const char *accept;		/* the Accept header's, or NULL */
	const char *body;		/* a POST's, len bytes */
	size_t len;
	bool too_big;			/* the body was over [web] max_body */
};

/* A new, empty table of query parameters (g_hash_table_destroy()). */
GHashTable *pw_web_args_new(void);

/*
 * Adds parameter name = value (value may be NULL: a name without "=")
 * to args, both copied.  A name given twice is not kept but marks the
 * table (the empty name), and such a request is refused.
 */
void pw_web_args_add(GHashTable *args, const char *name, const char *value);

/*
 * Answers r into a (whose body is empty when called): checks the token,
 * routes it, and reads or writes the store.  Safe from several threads.
 */
void pw_web_answer(struct pw_web *w, const struct pw_web_request *r,
		   struct pw_web_answer *a);

/*
 * A server that does not listen, for pw_web_answer() alone: the store
 * at db_path under cfg (borrowed), read by threads connections (0: 4),
 * each request treated as if it came over loopback.  PW_OK and *out,
 * or an error and a reason in *err (new).  pw_web_stop() frees it.
 */
enum pw_status pw_web_open(const char *db_path, const struct pw_config *cfg,
			   unsigned threads, struct pw_web **out, char **err);

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
