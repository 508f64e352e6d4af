/*
 * patchwarden: a patch's life at ingest (checks/lineage.h decides,
 * db/lineage.h stores): the lineage stage of a stored patch or cover
 * letter, and the decision a maintainer's reply on the list makes
 * ("Applied", "Queued", "NAK", "Dropped").
 *
 * Who decides by reply is who may decide by mail (bot/mailcmd.h): an
 * address [list NAME] maintainer names for a list the patch or the
 * reply was on, or, with [list NAME] maintainers = FILE, an M:
 * maintainer of every file the patch touches.  Anyone else's reply is
 * a comment like any other.
 */
#ifndef PW_STATE_H
#define PW_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/config.h"
#include "checks/message.h"
#include "db/db.h"

/*
 * Links the series (series_id) of stored patch or cover letter m (raw,
 * len bytes: b4's change-id and changelog links are read there) into
 * its lineage, and records patch_id's patch-id pid (40 hexadecimal
 * digits; "" or NULL: none; patch_id 0 for a cover letter).  Inside the
 * caller's transaction.
 */
enum pw_status pw_state_lineage(struct pw_db *db, const struct pw_mail *m,
				const char *raw, size_t len,
				int64_t series_id, int64_t patch_id,
				const char *pid);

/*
 * Takes stored reply m (message_id, raw, len bytes, seen on list or
 * NULL) as a maintainer's decision about the patches it answers (the
 * patch or cover letter it replies to, else the nearest up its
 * References) when
 * its sender may decide and its text says one (pw_reply_verdict()):
 * applied, rejected, or applied no more.  *decided says whether it did
 * anything.  Costs a look at the raw bytes for most replies.
 */
enum pw_status pw_state_reply(struct pw_db *db, const struct pw_config *cfg,
			      const struct pw_mail *m, int64_t message_id,
			      const char *raw, size_t len, const char *list,
			      bool *decided);

#endif
