/*
 * patchwarden: the dashboard's answers for an operator's monitors.
 *
 * GET /healthz says whether the service is doing its job: the store
 * answers a read, and no subscription is stale (pw_subscription_state(),
 * the state every view shows: no successful poll within [web]
 * stale_after seconds, 0: three of its intervals, at least 600).  200
 * when both hold, 503 when either does not, so that "curl -fsS
 * URL/healthz" exits 0 or 22; the body says why, each subscription's
 * state (a failing one too) and its reason, as text or, with
 * ?format=json or "Accept: application/json", as JSON.
 *
 * GET /metrics answers the Prometheus text exposition format, version
 * 0.0.4: the messages stored, the findings by rule and severity, each
 * subscription's polls (how many, failed, seconds) and unreadable
 * messages, the outbox and the Patchwork check queue by state and
 * their depths, the overview's queue by list, and the server's own
 * request latencies by endpoint, kept in memory (they start again with
 * the server).  Neither answer is cached: each reads the store as it
 * is; when /metrics cannot, it says so (patchwarden_store_readable 0)
 * and gives the store's last answers again.
 */
#ifndef PW_WEB_OPS_H
#define PW_WEB_OPS_H

#include <stdbool.h>
#include <glib.h>

#include "bot/config.h"
#include "bot/web_page.h"
#include "db/db.h"

/* The request latencies a server keeps, safe from several threads. */
struct pw_web_ops;

/* New, empty latencies (pw_web_ops_free()). */
struct pw_web_ops *pw_web_ops_new(void);

/* Frees o; NULL: no-op. */
void pw_web_ops_free(struct pw_web_ops *o);

/* Whether path (without the query) is one pw_web_ops_get() answers. */
bool pw_web_ops_path(const char *path);

/*
 * Answers GET path (/healthz or /metrics) into a from db (read-only)
 * under cfg; args are the query parameters and accept the request's
 * Accept header (NULL: none), all borrowed.
 */
void pw_web_ops_get(struct pw_web_ops *o, struct pw_db *db,
		    const struct pw_config *cfg, const char *path,
		    GHashTable *args, const char *accept,
		    struct pw_web_answer *a);

/*
 * Counts a request for path that took seconds to answer, under its
 * endpoint: the page or API it reached, with message IDs, series and
 * list names folded ("/message/MSGID"), anything else "other", so that
 * no request adds a new series of numbers.
 */
void pw_web_ops_observe(struct pw_web_ops *o, const char *path, double seconds);

#endif
