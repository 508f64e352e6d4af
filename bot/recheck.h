/*
 * patchwarden: the rules run again over one stored patch, for a
 * maintainer's recheck (bot/triage.h).  "db recheck" runs them over
 * many through bot/ingest.h.
 */
#ifndef PW_RECHECK_H
#define PW_RECHECK_H

#include <stdint.h>

#include "bot/config.h"
#include "db/db.h"

/*
 * Runs the current rules, under the settings of the message's list,
 * over stored patch patch_id (carried by message message_id), inside
 * the caller's transaction, and replaces its findings (the decisions
 * cover the new ones as they are stored: db/decision.h).  *findings
 * receives how many it has now.  A message whose bytes are gone, or
 * that no longer reads as a patch, keeps its findings (a warning says
 * why).  Returns a database error, or PW_OK.
 */
enum pw_status pw_recheck_patch(struct pw_db *db, const struct pw_config *cfg,
				int64_t patch_id, int64_t message_id,
				int64_t *findings);

#endif
