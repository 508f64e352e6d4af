/*
 * patchwarden: what an operator's monitor reads from the store (the
 * dashboard's /healthz and /metrics, bot/web_ops.c): counts by label,
 * and each subscription's polls, kept by every poll.
 */
#ifndef PW_DB_OPS_H
#define PW_DB_OPS_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "db/db.h"

/* One count under up to two label values (NULL when the metric has
 * fewer labels). */
struct pw_db_ops_count {
	char *a, *b;
	int64_t n;
};

/* The polls of one subscription, since its polls were first counted. */
struct pw_db_ops_polls {
	char *name;
	bool paused;
	int64_t polls, failures;	/* failures among polls */
	double seconds;			/* every poll's, added */
	double last_seconds;		/* the last poll's */
	int64_t last_ok;		/* Unix time, 0: never */
	int failures_in_a_row;
};

/* What /metrics shows of the store, read in one transaction. */
struct pw_db_ops_metrics {
	GPtrArray *messages;	/* pw_db_ops_count: list, kind */
	GPtrArray *stored;	/* pw_db_ops_count: kind (every message once) */
	GPtrArray *findings;	/* pw_db_ops_count: rule, severity (0..2) */
	GPtrArray *outbox;	/* pw_db_ops_count: state */
	GPtrArray *pwcheck;	/* pw_db_ops_count: instance, state */
	GPtrArray *polls;	/* pw_db_ops_polls, by name */
	GPtrArray *unreadable;	/* pw_db_ops_count: subscription ("" for
				 * mail read otherwise), its ingest errors */
	GPtrArray *attention;	/* pw_db_ops_count: list ("" for none), its
				 * patches in the attention queue (warning
				 * and above, db/attention.h) */
};

/*
 * Reads m (its arrays new, freed by pw_db_ops_metrics_release()) from
 * db in one read transaction.  The Patchwork check queue (table
 * pwcheck) is counted when the store has it, else m->pwcheck is empty.
 */
enum pw_status pw_db_ops_metrics(struct pw_db *db, struct pw_db_ops_metrics *m);

/* Frees the arrays of m (m itself is the caller's). */
void pw_db_ops_metrics_release(struct pw_db_ops_metrics *m);

/*
 * Counts one poll of subscription id that took seconds, failed or
 * not, in the transaction that records its end
 * (pw_db_subscription_polled()).
 */
enum pw_status pw_db_ops_poll_count(struct pw_db *db, int64_t id, bool failed,
				    double seconds);

#endif
