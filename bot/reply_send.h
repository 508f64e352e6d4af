/*
 * patchwarden: sending replies.  The loop that sends what the outbox
 * holds, by SMTP or, in dry-run mode (no [smtp] url), by appending to
 * an mbox file.  Who gets a reply is decided before (bot/reply_policy.h)
 * and the reply is composed and stored then (bot/reply_queue.h): this
 * loop only moves stored bytes.
 */
#ifndef PW_REPLY_SEND_H
#define PW_REPLY_SEND_H

#include <signal.h>
#include <stdbool.h>

#include "bot/config.h"
#include "db/db.h"

struct pw_reply_send_opts {
	int limit;		/* replies per batch, 0: 100 */
	bool all;		/* ignore next attempt times (send every pending) */
	/* When set (by a signal), no further reply is begun: the one being
	 * sent is finished, the rest wait in the outbox. */
	const volatile sig_atomic_t *stop;
};

struct pw_reply_send_stats {
	int recovered;		/* rows found interrupted and sent again */
	int attempted;
	int sent;
	int deferred;		/* transient failure: retried later */
	int failed;		/* permanent failure */
	/* Dry run: 1 when the mbox was opened (the replies counted as
	 * sent are in it), -1 when it could not be, 0 when nothing was
	 * due or the replies go out by SMTP. */
	int mbox;
};

/*
 * Sends the pending replies that are due, at most one batch, over one
 * SMTP connection (or to the dry-run mbox), updating each row as it
 * goes.  Must be called outside any transaction; only one process sends
 * at a time (an advisory lock beside the database; PW_ERR_TRANSIENT when
 * another holds it).  Returns PW_ERR_USAGE, with a new message in *err,
 * when the SMTP configuration is unusable (the replies stay pending).
 */
enum pw_status pw_reply_send_due(struct pw_db *db, const struct pw_config *cfg,
				 const struct pw_reply_send_opts *o,
				 struct pw_reply_send_stats *st, char **err);

/*
 * The summary of a send, for people: "sent=N deferred=N failed=N", and
 * in a dry run where the replies went: "(dry run: written to FILE)"
 * only when FILE was written, else that it could not be, or where
 * replies will go.  g_free.
 */
char *pw_reply_send_summary(const struct pw_config *cfg,
			    const struct pw_reply_send_stats *st);

#endif
