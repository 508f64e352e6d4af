/*
 * patchwarden: reporting checks to Patchwork ([patchwork NAME] in the
 * configuration) through its REST API: one check per patch and
 * instance, found by Message-ID (GET /api/patches/?msgid=&project=),
 * posted to /api/patches/ID/checks/ with the instance's token.
 *
 * The check owed is stored with the patch (pw_patchwork_enqueue(), in
 * the transaction that stores the findings, db/pwcheck.h); the poster
 * (pw_patchwork_post_due()) claims a row, computes the check from the
 * store (checks/pwcheck.h), posts it and records Patchwork's answer.
 */
#ifndef PW_PATCHWORK_H
#define PW_PATCHWORK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "bot/config.h"
#include "checks/message.h"
#include "db/db.h"

/*
 * Stores a pending check of the patch message message_id (mail m, read
 * on list, which may be NULL) for each [patchwork NAME] that serves
 * list.  Nothing for mail that is not a patch, that a machine sent
 * (m->automated) or whose Message-ID was made up (Patchwork cannot
 * find it).  Joins the caller's transaction.
 */
enum pw_status pw_patchwork_enqueue(struct pw_db *db,
				    const struct pw_config *cfg,
				    int64_t message_id, const struct pw_mail *m,
				    const char *list);

struct pw_patchwork_opts {
	int limit;		/* checks per batch, 0: 100 */
	bool all;		/* every pending check, due or not */
	/* When set (by a signal), no further check is begun. */
	const volatile sig_atomic_t *stop;
};

struct pw_patchwork_stats {
	int recovered;		/* found interrupted by a dead poster */
	int attempted;
	int posted;
	int deferred;		/* retried later: not in Patchwork yet, or
				 * Patchwork did not answer */
	int failed;		/* refused, or out of attempts */
};

/*
 * Posts the pending checks that are due (one batch), updating each row
 * as it goes.  Must be called outside any transaction; one poster at a
 * time (an advisory lock beside the database: PW_ERR_TRANSIENT, with a
 * message in *err, when another holds it).  Rows a dead poster left
 * claimed are recovered first: their checks are looked for among the
 * patch's checks before they are posted again.  Returns PW_ERR_DB when
 * the store fails (*err says why; g_free).
 */
enum pw_status pw_patchwork_post_due(struct pw_db *db,
				     const struct pw_config *cfg,
				     const struct pw_patchwork_opts *o,
				     struct pw_patchwork_stats *st, char **err);

/*
 * Makes pending again every posted check whose patch's open findings
 * now say something else (a maintainer's decision marked findings
 * wrong or ignored, undid that, or rechecked the patch), with why
 * (borrowed) as the reason; the poster posts the new check under the
 * same context, which Patchwork shows in place of the old one.  A
 * check that would say the same is left alone.  Inside the caller's
 * transaction when there is one.  *n receives how many.
 */
enum pw_status pw_patchwork_requeue_changed(struct pw_db *db,
					    const struct pw_config *cfg,
					    const char *why, int *n);

/*
 * The same for the posted checks of the n messages only: those of a
 * flood found after some of them were posted (their checks now fail
 * for the flood), with why as the reason.  *requeued receives how many.
 */
enum pw_status pw_patchwork_requeue_messages(struct pw_db *db,
					     const struct pw_config *cfg,
					     const int64_t *messages, size_t n,
					     const char *why, int *requeued);

/*
 * The service's round: posts what is due when any instance is
 * configured, and logs what happened.  Never fails the round.
 */
void pw_patchwork_service_round(struct pw_db *db, const struct pw_config *cfg,
				const volatile sig_atomic_t *stop);

#endif
