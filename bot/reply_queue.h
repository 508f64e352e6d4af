/*
 * patchwarden: the reply queue.  Composes a reply that the policy
 * (bot/reply_policy.h) has decided on, from stored facts only (the
 * message row, the findings with the lines they quote, the flood
 * record), and stores it in the outbox before any attempt to send it:
 * pending, or suppressed with the reason the policy gave, so that
 * queries show it and "outbox retry" can release it.
 */
#ifndef PW_REPLY_QUEUE_H
#define PW_REPLY_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "bot/config.h"
#include "bot/reply.h"
#include "db/flood.h"
#include "db/outbox.h"

/* A stored patch message and its findings worth a reply. */
struct pw_reply_patch_facts {
	struct pw_outbox_msg *m;
	GPtrArray *all;		/* every stored finding (owns them) */
	GPtrArray *shown;	/* those at or above the severity asked
				 * (borrowed from all); empty when m is not
				 * a patch */
};

/*
 * Reads message message_id and, when it is a patch, its stored findings
 * at or above min (each with the line it quotes) into *pf.  *found is
 * false, and *pf empty, when there is no such message.  Release *pf
 * with pw_reply_patch_facts_release() whatever the result.
 */
enum pw_status pw_reply_queue_read(struct pw_db *db, int64_t message_id,
				   enum pw_severity min,
				   struct pw_reply_patch_facts *pf, bool *found);

void pw_reply_patch_facts_release(struct pw_reply_patch_facts *pf);

/*
 * Composes the reply of kind ("patch" or "series") to m listing the n
 * findings of items, with a copy to each address of cc (NULL-terminated,
 * or NULL), and stores it under key (what it answers, unique): pending,
 * or suppressed with the reason hold when hold is not NULL.  A reply
 * that cannot be composed (an unusable address) is reported and not
 * stored; that is no error.  May run inside the caller's transaction.
 */
enum pw_status pw_reply_queue_patch(struct pw_db *db,
				    const struct pw_config *cfg,
				    const struct pw_outbox_msg *m,
				    const char *kind, const char *key,
				    const char *const *cc,
				    const struct pw_reply_item *items, size_t n,
				    const char *hold);

/*
 * Composes the one summary reply to flood f and stores it under key, as
 * above.
 */
enum pw_status pw_reply_queue_flood(struct pw_db *db,
				    const struct pw_config *cfg,
				    const struct pw_flood_info *f,
				    const char *key, const char *hold);

#endif
