/*
 * patchwarden: who sent a message, as far as the mail shows it.  A
 * sender is an address and how it was authenticated: a From header is
 * a line anyone can write, and on a public list anyone can post with
 * anyone's From.  A valid DKIM signature of the From domain (bot/dkim.h)
 * authenticates the address; once an address or its domain has been
 * seen signed, mail claiming it without such a signature is a
 * look-alike, and none of what it does may land on the real sender:
 * it cannot join the sender's floods, count against them, silence
 * their findings, or draw a mail to them.  Senders who never sign keep
 * the behaviour every sender had before (docs/security.md).
 *
 * Pure decisions over facts the caller read (db/identity.h stores
 * them); tested in tests/unit/test_identity.c.
 */
#ifndef PW_IDENTITY_H
#define PW_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>

/* How the From of a message was authenticated.  Stored: never renumber. */
enum pw_auth {
	/* No valid DKIM signature of its From domain, from an address
	 * and domain never seen signed: taken as its From says, as all
	 * mail was before. */
	PW_AUTH_NONE = 0,
	/* A valid DKIM signature of its From domain (or a parent). */
	PW_AUTH_DKIM = 1,
	/* No such signature, from an address or domain seen signed
	 * before: it is not that sender. */
	PW_AUTH_LOOKALIKE = 2,
};

/*
 * Judges a message: dkim_pass, whether a DKIM signature aligned with
 * its From verified; addr_signs and domain_signs, whether its From
 * address, or that address's domain, was seen so signed before.
 */
enum pw_auth pw_identity_judge(bool dkim_pass, bool addr_signs,
			       bool domain_signs);

/*
 * The sender under which a message's floods, resends and copies are
 * grouped (checks/flood.h pw_flood_key()): its From address for mail
 * that is not authenticated, signed or not, and a name of its own for
 * authenticated mail, so that unauthenticated mail claiming an address
 * never groups with that address's signed mail, whichever came first.
 * A new string.
 */
char *pw_identity_flood_sender(const char *addr, enum pw_auth a);

/*
 * Why a reply about mail judged a is held whatever else is said (a
 * static string), or NULL: a look-alike is answered to nobody.
 */
const char *pw_identity_hold(enum pw_auth a);

/*
 * How many Cc addresses that neither the lists a patch went to nor
 * their configuration vouch for (the patch's own To and Cc) a reply to
 * mail judged a may copy: whoever writes a patch's Cc chooses them.
 */
size_t pw_identity_cc_arbitrary(enum pw_auth a);

/* At most this many arbitrary Cc's for authenticated mail, and for the
 * rest (pw_identity_cc_arbitrary()). */
#define PW_IDENTITY_CC_SIGNED 12
#define PW_IDENTITY_CC_UNSIGNED 4

/*
 * Whether the global hourly budget of a reply to mail judged a counts
 * only the replies to authenticated mail (true) or every reply: mail
 * anyone can send in any name cannot spend the budget that replies to
 * authenticated senders have.
 */
bool pw_identity_own_budget(enum pw_auth a);

/*
 * Whether a reply may copy author, whom a patch's in-body From: names
 * as its author, when someone else (poster, judged poster_auth) posted
 * it: an in-body From: is a line anyone writes, so an author whose
 * address or domain signs its mail (author_signs) is copied only when
 * the signature that authenticated the poster is of the author's
 * domain too.
 */
bool pw_identity_author_ok(enum pw_auth poster_auth, const char *poster,
			   const char *author, bool author_signs);

/* The domain of addr (after its last '@'), or "" (borrowed). */
const char *pw_identity_domain(const char *addr);

#endif
