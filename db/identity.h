/*
 * patchwarden: what the store knows of senders' identities
 * (checks/identity.h decides, docs/security.md says why): the
 * addresses and domains seen DKIM-signed (dkim_signer) and how each
 * live message's From was authenticated (message_auth).  Every SQL
 * statement about them.
 */
#ifndef PW_DB_IDENTITY_H
#define PW_DB_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#include "checks/identity.h"
#include "checks/status.h"
#include "db/db.h"

/*
 * Judges stored message message_id, posted From addr (lower-cased),
 * whose DKIM signature of the From domain verified (dkim_pass) or not,
 * at time now: a verified message records its address and domain as
 * signing; a message judged other than PW_AUTH_NONE is recorded so.
 * *auth receives the judgement.  Inside the caller's transaction.
 */
enum pw_status pw_db_identity_note(struct pw_db *db, int64_t message_id,
				   const char *addr, bool dkim_pass,
				   int64_t now, enum pw_auth *auth);

/* Whether addr, or its domain, was seen DKIM-signed: *signs. */
enum pw_status pw_db_identity_signs(struct pw_db *db, const char *addr,
				    bool *signs);

/* How the From of stored message message_id was judged (PW_AUTH_NONE
 * when it was never judged). */
enum pw_status pw_db_identity_of_message(struct pw_db *db, int64_t message_id,
					 enum pw_auth *auth);

/*
 * How the sender of flood flood_id is authenticated: PW_AUTH_DKIM when
 * its members were signed (they group apart, checks/identity.h), else
 * PW_AUTH_LOOKALIKE when its address or domain is known to sign now (a
 * flood of mail in the name of a signing sender, which it did not
 * sign, whether or not that was known when the mail came), else
 * PW_AUTH_NONE.
 */
enum pw_status pw_db_identity_of_flood(struct pw_db *db, int64_t flood_id,
				       enum pw_auth *auth);

/*
 * The replies to authenticated mail (PW_AUTH_DKIM) created at or after
 * since that are pending, being sent or sent: what their own global
 * budget counts (pw_identity_own_budget()).
 */
enum pw_status pw_db_identity_sent_since(struct pw_db *db, int64_t since,
					 int64_t *n);

#endif
