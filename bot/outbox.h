/*
 * patchwarden: who gets a reply and when (the policy), and the loop that
 * sends what the outbox holds, by SMTP or, in dry-run mode (no [smtp]
 * url), by appending to an mbox file.
 *
 * Policy: never answer mail read while backfilling, automated mail
 * (Auto-Submitted other than "no", known automated senders), the bot's
 * own mail, or the same message or flood twice; hold replies beyond the
 * per-recipient and global hourly limits.  Held replies are still
 * composed and stored, as suppressed with the reason, so that queries
 * show them and "outbox retry" can release one.
 */
#ifndef PW_OUTBOX_H
#define PW_OUTBOX_H

#include <stdbool.h>
#include <stdint.h>

#include "bot/config.h"
#include "bot/reply.h"
#include "db/db.h"
#include "db/flood.h"

/*
 * Decides about, composes and stores the reply to stored message
 * message_id: nothing when it is not a patch or has no finding at or
 * above [reply] min_severity, or when it was answered before; a pending
 * reply when the policy allows; a suppressed one with the reason
 * otherwise.  Call it after the message's findings are stored, for every
 * newly stored message that was not read while backfilling (ingest
 * --reply, the daemon); it may run inside the caller's transaction.
 */
enum pw_status pw_outbox_queue_message(struct pw_db *db,
				       const struct pw_config *cfg,
				       int64_t message_id);

/*
 * Like pw_outbox_queue_message, but stores the reply as suppressed with
 * reason (for instance "part of a flood") whatever the policy says, so
 * that it stays visible.
 */
enum pw_status pw_outbox_hold_message(struct pw_db *db,
				      const struct pw_config *cfg,
				      int64_t message_id, const char *reason);

/*
 * Stores one reply to a whole series (series row series_id, read from
 * the series and patch tables): answered at its cover letter, or else at
 * its first patch, listing the findings of every patch under that
 * patch's subject, once per series, under the same policy.  Pending
 * per-patch replies of its patches are suppressed in its favour.  Call
 * it, instead of pw_outbox_queue_message for each patch, once the series
 * is complete (or its window has passed), when a list prefers one reply
 * per series.  Nothing is stored when no patch has a finding worth one.
 */
enum pw_status pw_outbox_queue_series(struct pw_db *db,
				      const struct pw_config *cfg,
				      int64_t series_id);

/*
 * Stores the one summary reply to a flood (once per f->key) under the
 * same policy, and suppresses the pending replies of its members
 * (members: n message row ids) that it replaces.  The per-recipient
 * limit does not apply to the summary: it is the one reply that sender
 * should get.  May run inside the caller's transaction.
 */
enum pw_status pw_outbox_queue_flood(struct pw_db *db,
				     const struct pw_config *cfg,
				     const struct pw_flood_info *f,
				     const int64_t *members, size_t n);

struct pw_outbox_send_opts {
	int limit;		/* replies per batch, 0: 100 */
	bool all;		/* ignore next attempt times (send every pending) */
};

struct pw_outbox_stats {
	int recovered;		/* rows found interrupted and sent again */
	int attempted;
	int sent;
	int deferred;		/* transient failure: retried later */
	int failed;		/* permanent failure */
};

/*
 * Sends the pending replies that are due, at most one batch, over one
 * SMTP connection (or to the dry-run mbox), updating each row as it
 * goes.  Must be called outside any transaction; only one process sends
 * at a time (an advisory lock beside the database; PW_ERR_TRANSIENT when
 * another holds it).  Returns PW_ERR_USAGE, with a new message in *err,
 * when the SMTP configuration is unusable (the replies stay pending).
 */
enum pw_status pw_outbox_send_due(struct pw_db *db, const struct pw_config *cfg,
				  const struct pw_outbox_send_opts *o,
				  struct pw_outbox_stats *st, char **err);

#endif
