/*
 * patchwarden: polling subscriptions.  A poll reads what a subscribed
 * source gained since its cursors (a public-inbox archive, an IMAP
 * mailbox, a Maildir) through the ingest pipeline, and records how it
 * went.  The first poll that completes is backfill: what it stores is
 * never answered; later ones are taken as just arrived.
 */
#ifndef PW_SUBSCRIPTION_H
#define PW_SUBSCRIPTION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "bot/config.h"
#include "bot/ingest.h"
#include "db/query.h"
#include "db/subscription.h"

/*
 * What subscribing to url means: "public-inbox", "imap" or "maildir",
 * or NULL with *err saying why none.  A path is made absolute in
 * *resolved (a new string; the URL itself otherwise).
 */
const char *pw_subscription_kind(const char *url, char **resolved, char **err);

/* Whether name can name a subscription (a folder of its mirror). */
bool pw_subscription_name_ok(const char *name);

/*
 * Parses a duration: "90" or "90s", "5m", "2h", "1d"; false unless it
 * is 1 second to 30 days.
 */
bool pw_duration_parse(const char *s, int64_t *seconds);

/*
 * Polls sub once: stores what its source gained, adding to *counts,
 * and records the poll (its error, the next time it is due, with
 * backoff after failures) in the store.  stop ends it early, what was
 * read being committed.  Returns PW_OK when the poll succeeded;
 * otherwise the error, with *err saying why (the store stays usable
 * unless it is PW_ERR_DB or PW_ERR_TRANSIENT).
 */
enum pw_status pw_subscription_poll(struct pw_db *db,
				    const struct pw_config *cfg,
				    const struct pw_subscription *sub,
				    const volatile sig_atomic_t *stop,
				    struct pw_ingest_counts *counts, char **err);

/*
 * pw_subscription_poll() with progress lines, "NAME: progress: ..."
 * (ingest's, with how far the source is and the time left when it
 * tells how many messages it brings), every `every` messages and at
 * the end: on stderr, or with log in the log (pw_info()).
 */
enum pw_status pw_subscription_poll_progress(struct pw_db *db,
					     const struct pw_config *cfg,
					     const struct pw_subscription *sub,
					     const volatile sig_atomic_t *stop,
					     int64_t every, bool log,
					     struct pw_ingest_counts *counts,
					     char **err);

/*
 * Prints what a poll of s added (c), the findings it stored (fc), and
 * its error when it failed, as one line "NAME: messages=N ..." or one
 * JSON object (pw_report_stored()).
 */
void pw_poll_print(const struct pw_subscription *s,
		   const struct pw_ingest_counts *c,
		   const struct pw_finding_counts *fc, const char *error,
		   bool json);

/*
 * Seconds without a successful poll after which sub is stale:
 * stale_after ([web] stale_after) when above 0, else three of its
 * intervals and at least ten minutes.
 */
int64_t pw_subscription_stale_after(const struct pw_subscription *sub,
				    int stale_after);

/*
 * The state of sub at now, the one every view shows ("subscribe list",
 * the dashboard, /api/subscriptions, /healthz): "paused"; "stale", no
 * successful poll (or, before one, no poll) for longer than
 * pw_subscription_stale_after(), whether or not polls failed: nothing
 * is reading the list; "failing", its last poll failed; "new", before
 * its first poll; else "ok".  An ok subscription may have met messages
 * it could not read (sub->unreadable): its polls went on past them.
 * With reason, *reason is set to a sentence for people saying why (a
 * new string).  With until, *until is set to when the state changes
 * if no poll comes first (0: it does not).
 */
const char *pw_subscription_state(const struct pw_subscription *sub,
				  int stale_after, int64_t now, char **reason,
				  int64_t *until);

/* A span of seconds for people: "45 s", "12 min", "3 h", "2 days". */
char *pw_subscription_span(int64_t seconds);

/* When a poll that failed failures times in a row is retried: seconds. */
int64_t pw_subscription_backoff(const struct pw_subscription *sub, int failures);

#endif
