/*
 * patchwarden: the reply etiquette, whether a reply may go now.  A pure
 * function of facts that the caller read from the store before asking
 * (bot/reply_policy.c), the settings and the time, passed in: no store,
 * no clock, so that every hold reason and its precedence can be tested
 * on its own (tests/unit/test_etiquette.c).
 *
 * Never answered: mail read while backfilling, mail older than [reply]
 * max_age (or of unknown Date), mail a machine sent, the bot's own
 * mail, mail of a poster who opted out, mail of an automated sender.
 * Held: mail whose lists' mail modes give it no recipient, and replies
 * beyond the per-recipient and global hourly limits.  The reasons are
 * what the outbox stores and shows: their wording is kept.
 */
#ifndef PW_ETIQUETTE_H
#define PW_ETIQUETTE_H

#include <stdbool.h>
#include <stdint.h>

#include "checks/identity.h"

/* The hourly limits count the replies created at or after now minus
 * this many seconds. */
#define PW_ETIQUETTE_WINDOW 3600

/* The reason a reply is held when its recipient said "stop" (followed
 * by the decision's id). */
#define PW_HOLD_OPTED_OUT "author opted out"

/* What the reply answers: the checks and their order differ a little. */
enum pw_etiquette_kind {
	/* A stored patch.  In this order: the caller's hold, backfill,
	 * age, automated mail, own mail, a look-alike sender, the poster
	 * opted out, automated sender, the mail modes, no usable address,
	 * the hourly limits of the To (per recipient, then global). */
	PW_ETIQUETTE_PATCH,
	/* The one summary of a flood: no usable address, age (of its
	 * newest patch), own mail, a look-alike sender, automated sender,
	 * the sender opted out,
	 * the mail modes, the global hourly limit (the summary is the one
	 * reply its sender gets: no per-recipient limit). */
	PW_ETIQUETTE_FLOOD,
	/* A reply held as undecided, released when its flood window has
	 * closed: as a patch, except that only lists with mail off hold it
	 * (its recipients were worked out when it was composed), the
	 * per-recipient limit counts the poster's replies and the address
	 * is not judged again. */
	PW_ETIQUETTE_RELEASE,
};

/* The settings the etiquette reads ([reply], [smtp] from). */
struct pw_etiquette_rules {
	const char *bot_addr;		/* [smtp] from: mail from it is the bot's */
	int max_age;			/* [reply] max_age, seconds; <= 0: off */
	int per_recipient_per_hour;	/* < 0: no limit */
	int global_per_hour;		/* < 0: no limit */
	/* [reply] automated_senders (checks/message.h), NULL-terminated,
	 * or NULL. */
	const char *const *automated_senders;
};

/*
 * What the caller knows of the answered mail, read before asking.
 * Strings are borrowed; a field a kind does not use is left zero.
 */
struct pw_etiquette_facts {
	enum pw_etiquette_kind kind;
	/* PATCH: why the caller holds the reply whatever the etiquette
	 * says ("part of a flood"), or NULL.  It comes first. */
	const char *held;
	bool backfill;		/* read while backfilling an archive */
	/* The mail's Date (FLOOD: its newest patch's), seconds since the
	 * epoch; 0 when unknown, unreadable or before 1990. */
	int64_t date;
	/* Why a machine sent it, judged when it was read and cleaned for
	 * a header (bot/reply.h pw_reply_clean(), 80 characters), or NULL. */
	const char *automated;
	/* Who posted it (its From header): the reply goes to them. */
	const char *poster;
	/* How that From was authenticated (FLOOD: the flood's sender):
	 * a look-alike is answered to nobody, and the global limit of a
	 * reply to authenticated mail counts only such replies (all_sent
	 * below, which the caller reads accordingly:
	 * pw_identity_own_budget()). */
	enum pw_auth auth;
	bool poster_ok;		/* poster is a usable address */
	/* Its Message-ID is that of one of the bot's replies. */
	bool own_msgid;
	/* The "stop" decision by which poster opted out on a list of the
	 * mail (FLOOD: of its first member), 0: none. */
	int64_t poster_stop;
	/* PATCH: the author an in-body From: names when someone else
	 * posted it, or NULL; whether that address is usable; the "stop"
	 * decision by which the author opted out (0: none); the replies to
	 * the author in the window. */
	const char *author;
	bool author_ok;
	int64_t author_stop;
	int64_t author_sent;
	/* Why the lists' mail modes ([list NAME] mail) give the reply no
	 * recipient ("mail off for list X", no maintainer known), or NULL.
	 * RELEASE: only that every list is off. */
	const char *mail_off;
	/* PATCH: the first maintainer the reply goes To when the lists send
	 * it to the maintainers, or NULL (it goes to the poster). */
	const char *maintainer;
	/* The replies in the window to pw_etiquette_to(), and to anyone
	 * (to authenticated mail, for a reply to authenticated mail). */
	int64_t to_sent;
	int64_t all_sent;
};

/* What the etiquette says. */
enum pw_etiquette_act {
	PW_ETIQUETTE_SEND,		/* the reply may go */
	PW_ETIQUETTE_HOLD,		/* stored as suppressed, with the reason */
	PW_ETIQUETTE_NO_ADDRESS,	/* no usable address: no reply at all */
};

struct pw_etiquette_verdict {
	enum pw_etiquette_act act;
	char *reason;		/* HOLD: why (owned), else NULL */
	bool copy_author;	/* pw_etiquette_copy_author() */
};

/*
 * The address whose replies the per-recipient limit counts for f (the
 * caller reads to_sent for it): the maintainer the reply goes To, else
 * the poster.  Borrowed from f.
 */
const char *pw_etiquette_to(const struct pw_etiquette_facts *f);

/*
 * Whether the author of a PATCH posted by someone else may be copied
 * on the reply: not when the author's per-recipient or the global
 * hourly limit is reached (the author in Cc counts against the author's
 * own limit), nor when the author opted out; yes when the reply is
 * held anyway (released by hand, it copies the author) and for other
 * kinds.  It reads no field that depends on the recipients (mail_off,
 * maintainer, to_sent), so that the caller may ask it first to work the
 * recipients out.
 */
bool pw_etiquette_copy_author(const struct pw_etiquette_facts *f,
			      const struct pw_etiquette_rules *r, int64_t now);

/*
 * Judges the reply f describes at time now (seconds since the epoch)
 * under r into *v, in the order enum pw_etiquette_kind says.  Release
 * *v with pw_etiquette_verdict_release().
 */
void pw_etiquette_judge(const struct pw_etiquette_facts *f,
			const struct pw_etiquette_rules *r, int64_t now,
			struct pw_etiquette_verdict *v);

/*
 * Whether a copy (Cc) of a reply may go to an address to which sent
 * replies went in the window: every recipient counts against the
 * per-recipient limit, not only the one the reply goes To.  A copy
 * past it is left out; the reply still goes to the others.
 */
bool pw_etiquette_cc_ok(const struct pw_etiquette_rules *r, int64_t sent);

/* Frees v's reason and empties it. */
void pw_etiquette_verdict_release(struct pw_etiquette_verdict *v);

#endif
