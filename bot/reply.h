/*
 * patchwarden: composing replies with GMime.  A reply answers one patch
 * (or a whole series) with its findings, or a whole flood with one
 * summary.  The composer takes plain data and returns the message in
 * wire form (CRLF); it never decides who gets mail (bot/reply_policy.c
 * does).
 *
 * Every byte that comes from mail and reaches a header is cleaned
 * (control characters become spaces, runs of white space fold, the text
 * is cut to a sane length and made valid UTF-8) or, for addresses and
 * Message-IDs, checked and refused.
 */
#ifndef PW_REPLY_H
#define PW_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "checks/message.h"
#include "checks/status.h"
#include "checks/patch.h"
#include "db/flood.h"

/* The bot, as one reply presents it.  All borrowed. */
struct pw_reply_self {
	const char *name;		/* the bot's display name, or NULL */
	const char *addr;		/* the bot's address */
	const char *reply_to;		/* an address list (configuration), or NULL */
	const char *dashboard_url;	/* [web] url, the dashboard's public
					 * address, or NULL */
	const char *msgid;		/* the reply's own, pw_reply_msgid() */
	int64_t date;			/* Unix time of the Date header */
	/* Where the reply goes when not to the author ([list] mail =
	 * maintainers): addresses, NULL-terminated, the first To and the
	 * others Cc; the body then speaks to them of the author, who gets
	 * no copy.  NULL or empty: to the author. */
	const char *const *maintainers;
	/* One sentence on what this version fixed of what an earlier one
	 * was told (a later version of a series), said after the
	 * introduction, or NULL. */
	const char *fixed;
};

/* One finding to report; it quotes f->added_line when there is one. */
struct pw_reply_item {
	const struct pw_finding *f;
	const char *patch;		/* the patch's subject when a reply covers
					 * several patches (a series), else NULL */
};

/* A composed reply.  Owns everything. */
struct pw_reply {
	char *msgid;		/* without <> */
	char *subject;		/* as set, UTF-8, single line */
	char *to;		/* the main recipient's address */
	char **rcpt;		/* envelope recipients (To, then Cc), NULL-terminated */
	GBytes *wire;		/* the whole message, CRLF line ends */
};

void pw_reply_free(struct pw_reply *r);

/*
 * Composes the reply to parent, a patch (or the cover letter or first
 * patch of a series: items then carry their patch's subject), as read
 * from the store: to its sender (or to me->maintainers), threaded under it unless its
 * Message-ID was derived, with a copy to each address of cc
 * (NULL-terminated, or NULL), naming list_addr (or NULL: none known)
 * as the posting address of the list it came through.
 *
 * The n findings of items are grouped by rule, one item per rule with
 * its places listed and its first finding quoted, explained and fixed,
 * most severe rules first; info findings are left out whatever the
 * caller passes.  The body stays under 50 lines whatever the patch:
 * rules beyond that are listed in brief, then only counted, and the
 * dashboard page of the patch (me->dashboard_url/message/MSGID) lists
 * them all.  Returns PW_ERR_INPUT with a new reason in *err when no
 * valid message can be made (an unusable address, or no finding above
 * info).  *out is new: pw_reply_free().
 */
enum pw_status pw_reply_patch(const struct pw_reply_self *me,
			      const struct pw_mail *parent,
			      const char *const *cc, const char *list_addr,
			      const struct pw_reply_item *items, size_t n,
			      struct pw_reply **out, char **err);

/*
 * Composes the one summary reply to flood f, as recorded: to its
 * sender (or to me->maintainers, then with no cc), threaded under its first member, naming list_addr (or NULL)
 * as above.  Same results as above.
 */
enum pw_status pw_reply_flood(const struct pw_reply_self *me,
			      const struct pw_flood_info *f,
			      const char *list_addr,
			      struct pw_reply **out, char **err);

/*
 * Composes a message of the bot's own that answers no mail (a list's
 * digest): body (UTF-8 text, wrapped by the caller) under subject (as
 * is, cleaned to one line), to to[0] with a copy to each other address
 * of to (NULL-terminated), threaded under in_reply_to (without <>, or
 * NULL) with refs (oldest first, NULL-terminated, or NULL) before it.
 * Same results as pw_reply_patch().
 */
enum pw_status pw_reply_message(const struct pw_reply_self *me,
				const char *const *to, const char *subject,
				const char *in_reply_to,
				const char *const *refs, const char *body,
				struct pw_reply **out, char **err);

/*
 * Returns the deterministic Message-ID (without <>) of the reply of the
 * given kind ("patch", "series", "flood") to key (the answered
 * Message-ID or the flood key), in the domain of from_addr.  The same
 * inputs always give the same ID, so every attempt to send a reply, and
 * a reply composed again after a crash, carries one ID.  g_free.
 */
char *pw_reply_msgid(const char *kind, const char *key, const char *from_addr);

/* The "Re:" subject answering subject (may be NULL); g_free. */
char *pw_reply_subject(const char *subject);

/* Time t as replies and digests give it, "2016-08-04 10:00 UTC" (new
 * string); "an unknown time" when it cannot be shown. */
char *pw_reply_time(int64_t t);

/*
 * Returns s as valid UTF-8 on one line: control characters become
 * spaces, bidirectional controls (U+202E...) are dropped, white space
 * runs fold to one space, the ends are trimmed, and
 * the text is cut to at most max characters (ending in "...").  s may be
 * NULL (gives "").  g_free.
 */
char *pw_reply_clean(const char *s, size_t max);

/* True when addr is a plain addr-spec safe for a header and SMTP. */
bool pw_reply_addr_ok(const char *addr);

/*
 * True when addr says no one reads it (noreply, no-reply, no_reply,
 * do-not-reply, donotreply, dont-reply, ..., in its local part or its
 * domain, as users.noreply.github.com): it never gets a copy of a
 * reply.
 */
bool pw_reply_addr_noreply(const char *addr);

/* True when a reply may go to addr: pw_reply_addr_ok(), and someone
 * reads it (not pw_reply_addr_noreply()). */
bool pw_reply_addr_reachable(const char *addr);

/* True when id (without <>) is safe inside <> in a header. */
bool pw_reply_msgid_ok(const char *id);

#endif
