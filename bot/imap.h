/*
 * patchwarden: an IMAP mailbox as a source, through libcurl.  A list
 * delivered to an account: every message of the mailbox once, in UID
 * order.  The cursor is the mailbox's UIDVALIDITY and the last UID
 * stored ("sub:ID:imap" = "UIDVALIDITY:UID"); a changed UIDVALIDITY
 * reads the mailbox again from the start (Message-IDs deduplicate).
 */
#ifndef PW_IMAP_H
#define PW_IMAP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "bot/config.h"
#include "bot/source.h"
#include "db/db.h"
#include "db/subscription.h"

/*
 * Logs in to the mailbox of sub->url (imap://host[:port]/MAILBOX or
 * imaps://...), with the credentials and TLS settings of cfg for sub,
 * and opens a source over its messages after the stored cursor (read
 * from db, on the calling thread).  A login refused, a server that
 * cannot be reached or a mailbox that is not there is an error here
 * (PW_ERR_IO, or PW_ERR_USAGE for what the configuration must fix),
 * with *err saying which; stop, when set, ends the reading early (set
 * during the login, it leaves the source empty).  Messages over
 * PW_MAX_MESSAGE come as PW_ERR_INPUT, with their cursor.
 */
enum pw_status pw_imap_open(const struct pw_subscription *sub,
			    const struct pw_config *cfg, struct pw_db *db,
			    const volatile sig_atomic_t *stop,
			    struct pw_source **out, char **err);

/*
 * The parsers of what the server answers, for the tests.  Every byte
 * they read is the server's, so none trusts it.
 */

/* Reads a cursor "UIDVALIDITY:UID" (decimal, UIDVALIDITY not 0); false,
 * with *validity and *uid untouched, when s is not one. */
bool pw_imap_cursor_parse(const char *s, uint32_t *validity, uint32_t *uid);

struct pw_imap_status {
	uint32_t validity;	/* UIDVALIDITY, 0: not given */
	uint32_t uidnext;	/* UIDNEXT, 0: not given */
	uint32_t messages;	/* MESSAGES */
};

/* Reads the first untagged "* STATUS" answer of the len bytes at buf
 * into *st; false when there is none. */
bool pw_imap_status_parse(const char *buf, size_t len,
			  struct pw_imap_status *st);

/*
 * Appends to uids (a GArray of uint32_t) the UIDs of the untagged
 * "* SEARCH" answers of the len bytes at buf that lie in lo..hi, and
 * sorts uids, each UID once.
 */
void pw_imap_search_parse(const char *buf, size_t len, uint32_t lo,
			  uint32_t hi, GArray *uids);

#endif
