/*
 * patchwarden: triage by mail.  A reply to one of patchwarden's replies
 * (its In-Reply-To or References name a Message-ID of the outbox) whose
 * text holds "patchwarden:" command lines (checks/triage.h) is a
 * command mail: obeyed when its sender may give the command, refused
 * and logged otherwise, and never stored, checked as a patch nor
 * answered.
 *
 * Who may: wrong, ignore and recheck, an address a list of the answered
 * patch names in [list NAME] maintainer, or, with [list NAME]
 * maintainers = FILE, an M: maintainer of the MAINTAINERS entry
 * covering a patched file (of every patched file PATH matches, for
 * "ignore RULE PATH"; a list-wide ignore needs a maintainer address);
 * stop, the patch author's own address only.  A command mail that
 * carries a DKIM-Signature must carry one that verifies for its From
 * domain, else all its commands are refused.
 */
#ifndef PW_MAILCMD_H
#define PW_MAILCMD_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/config.h"
#include "checks/message.h"
#include "db/db.h"

/*
 * Handles m (parsed from raw, len bytes) when it is a command mail:
 * *handled true then (also when its commands are refused, or were
 * obeyed before: the same Message-ID is obeyed once), and the caller
 * stores nothing of it.  Runs inside the caller's transaction; returns
 * a database error for the caller to roll it back.  Costs nothing more
 * than a look at m's references for other mail.
 */
enum pw_status pw_mailcmd_handle(struct pw_db *db, const struct pw_config *cfg,
				 const struct pw_mail *m, const char *raw,
				 size_t len, bool *handled);

/*
 * The files stored message message_id patches, read from its raw bytes,
 * into *files: a new NULL-terminated vector (g_strfreev), empty for
 * none; whose MAINTAINERS entries say who may decide about it.
 */
enum pw_status pw_mailcmd_patched_files(struct pw_db *db, int64_t message_id,
					char ***files);

#endif
