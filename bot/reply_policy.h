/*
 * patchwarden: who gets a reply and when.  The etiquette
 * (checks/etiquette.h) decides on facts this file reads from the store
 * first; bot/reply_queue.h composes and stores what it allows, and
 * bot/reply_send.h sends it.
 *
 * Never answer mail read while backfilling, automated mail (a machine
 * sent it: struct pw_mail's automated, set when it was read), the bot's
 * own mail, or the same message or flood twice; hold replies beyond the
 * per-recipient and global hourly limits.  Held replies are still
 * composed and stored, as suppressed with the reason, so that queries
 * show them and "outbox retry" can release one.  A patch of a flood
 * gets no reply of its own: the flood gets one summary.
 *
 * Every function here may run inside the caller's transaction, and
 * returns a database error for the caller to roll it back.
 */
#ifndef PW_REPLY_POLICY_H
#define PW_REPLY_POLICY_H

#include <stdint.h>

#include "bot/config.h"
#include "checks/message.h"
#include "db/db.h"
#include "db/flood.h"

/*
 * How long, in seconds, the reply to a series waits for the rest of
 * its patches: then it answers what arrived, and a later patch is
 * answered alone for what is new in it.
 */
#define PW_REPLY_SERIES_WAIT 3600

/*
 * Decides about the reply to a patch just stored (message row
 * message_id of series series_id, 0: none, parsed as m) that was not
 * read while backfilling: for a member of flood flood_id (0: none), the
 * flood's one summary and a held reply (and the checks Patchwork has of
 * its members posted again); for an unthreaded patch of a series
 * announced as large, a held reply until it is clear whether it is a
 * flood; when the list switches FLOOD off (flood_rule_on false), as if
 * there were no flood.  Else one voice per series version: one reply
 * to the whole series once every patch it announces is stored (or
 * PW_REPLY_SERIES_WAIT after its first patch came), threaded to its
 * cover letter (or first patch), listing only findings no reply
 * reported to their author before (on an earlier version, or an
 * identical copy); nothing when none is left.  With [reply] per patch
 * (cfg->reply_per_patch, preview's comparison) each patch is answered
 * on its own, pw_reply_policy_answer().  Call it after the patch's
 * findings, series and flood membership are stored (ingest --reply,
 * the daemon).
 */
enum pw_status pw_reply_policy_new_patch(struct pw_db *db,
					 const struct pw_config *cfg,
					 int64_t message_id,
					 const struct pw_mail *m,
					 int64_t flood_id, bool flood_rule_on,
					 int64_t series_id);

/*
 * Answers the series whose reply has waited PW_REPLY_SERIES_WAIT or
 * longer at time now for patches that did not come (counted in
 * *answered).  The service calls it as it goes; a patch that arrives
 * calls it too.
 */
enum pw_status pw_reply_policy_release_waiting(struct pw_db *db,
					       const struct pw_config *cfg,
					       int64_t now, int *answered);

/* Why the reply to an unthreaded patch of a series announced as large
 * is held (pw_reply_policy_new_patch()). */
#define PW_HOLD_UNDECIDED "an unthreaded patch of a series announced as " \
	"large: held until it is clear whether it is a flood"

/*
 * Decides the replies held as undecided (PW_HOLD_UNDECIDED) for longer
 * than the flood window ([flood] window) at time now: a patch that
 * joined a flood stays held, its reason now the flood (the flood's
 * summary answers it; counted in *folded); any other is released to be
 * sent, unless the policy holds it for another reason now (counted in
 * *released when released).  The service calls it as it goes.
 */
enum pw_status pw_reply_policy_release_undecided(struct pw_db *db,
						 const struct pw_config *cfg,
						 int64_t now, int *released,
						 int *folded);

/*
 * Decides about, and queues, the reply to stored message message_id:
 * nothing when it is not a patch or has no finding at or above [reply]
 * min_severity, or when it was answered before; a pending reply when
 * the policy allows; a suppressed one with the reason otherwise.
 * PW_ERR_INPUT when there is no such message.
 */
enum pw_status pw_reply_policy_answer(struct pw_db *db,
				      const struct pw_config *cfg,
				      int64_t message_id);

/*
 * Like pw_reply_policy_answer, but stores the reply as suppressed with
 * reason (for instance "part of a flood") whatever the policy says, so
 * that it stays visible.
 */
enum pw_status pw_reply_policy_hold(struct pw_db *db,
				    const struct pw_config *cfg,
				    int64_t message_id, const char *reason);

/*
 * Queues the one summary reply to flood f (once per f->key) under the
 * same policy, and suppresses the pending replies of its members
 * (members: n message row ids) that it replaces.  The per-recipient
 * limit does not apply to the summary: it is the one reply that sender
 * should get.
 */
enum pw_status pw_reply_policy_answer_flood(struct pw_db *db,
					    const struct pw_config *cfg,
					    const struct pw_flood_info *f,
					    const int64_t *members, size_t n);

#endif
