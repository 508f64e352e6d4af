/*
 * patchwarden: the weekly digest of a list, to its maintainers ([list
 * NAME] maintainer, digest = true): the patches read in the week, the
 * findings by severity and rule, the floods, the top senders (people;
 * machines' mail only counted), the replies held, the triage decisions
 * taken, with links to the dashboard ([web] url) when it has one.
 *
 * A digest is a real mail through the outbox (stored before any attempt
 * to send it, never sent twice, under the hourly limits), threaded per
 * list: each one answers the list's previous digest.  A week in which
 * the list carried no patch and no flood sends nothing: the period is
 * recorded as covered, so the next digest starts where it ended and no
 * maintainer gets a weekly "nothing new".
 */
#ifndef PW_DIGEST_H
#define PW_DIGEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bot/config.h"
#include "db/digest.h"

#define PW_DIGEST_PERIOD (7 * 86400)	/* seconds between two digests */

/* What one digest says, for pw_digest_text().  All borrowed. */
struct pw_digest_in {
	const char *list;
	int64_t since, until;
	const struct pw_digest_facts *facts;
	const char *const *decisions;	/* one line each, NULL-terminated,
					 * or NULL */
	const char *dashboard_url;	/* [web] url, or NULL */
};

/*
 * The body of the digest of d (UTF-8, lines wrapped at 72), and its
 * subject in *subject.  Pure: both new strings (g_free).
 */
char *pw_digest_text(const struct pw_digest_in *d, char **subject);

/* Whether facts hold anything worth a digest: a patch or a flood. */
bool pw_digest_worth(const struct pw_digest_facts *f,
		     const char *const *decisions);

struct pw_digest_opts {
	const char *list;	/* that list only (it needs maintainer
				 * addresses, not digest = true); NULL:
				 * every list with digest = true */
	int64_t since;		/* the period's start; 0: where the last
				 * digest ended, else a week before now */
	int64_t now;		/* the period's end */
	bool due_only;		/* only lists whose last digest ended a
				 * week ago or more (the service) */
	FILE *dry_run;		/* not NULL: write each digest there, store
				 * and send nothing */
};

struct pw_digest_stats {
	int queued;		/* digests stored in the outbox */
	int held;		/* of them, held by the hourly limits */
	int empty;		/* periods with nothing to say */
};

/*
 * Composes the digests o asks for and stores each, with its outbox
 * row, in one transaction (or writes them to o->dry_run).  Sending is
 * the outbox's (pw_reply_send_due()).  PW_ERR_USAGE, with a message in
 * *err, for an o->list without maintainer addresses; a database error
 * otherwise.
 */
enum pw_status pw_digest_queue(struct pw_db *db, const struct pw_config *cfg,
			       const struct pw_digest_opts *o,
			       struct pw_digest_stats *st, char **err);

/*
 * The service's weekly round: queues the digest of every list with
 * digest = true whose last one ended a week ago or more (or that has
 * none yet), and logs what it did; a failure is logged, and tried
 * again next round.  Call it outside any transaction.
 */
void pw_digest_service(struct pw_db *db, const struct pw_config *cfg,
		       int64_t now);

#endif
