/*
 * patchwarden: composing replies with GMime.  A reply answers one patch
 * (or a whole series) with its findings, or a whole flood with one
 * summary.  The composer takes plain data and returns the message in
 * wire form (CRLF); it never decides who gets mail (bot/outbox.c does).
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

#include "checks/status.h"
#include "checks/patch.h"

/* Who writes, to whom, and what the reply answers.  All borrowed. */
struct pw_reply_head {
	const char *from_name;		/* the bot's display name, or NULL */
	const char *from_addr;		/* the bot's address */
	const char *reply_to;		/* an address list (configuration), or NULL */
	const char *to_name;		/* the author's name as read from mail */
	const char *to_addr;		/* the author's address */
	const char *const *cc;		/* addresses, NULL-terminated, or NULL */
	const char *parent_msgid;	/* the answered Message-ID (no <>), or
					 * NULL when it cannot be threaded */
	const char *const *parent_refs;	/* its References, oldest first, or NULL */
	const char *parent_subject;	/* its decoded subject */
	const char *msgid;		/* the reply's own, pw_reply_msgid() */
	int64_t date;			/* Unix time of the Date header */
	const char *list;		/* the list it came through, or NULL */
	const char *dashboard_url;	/* or NULL */
};

/* One finding to report, with the added line it is about. */
struct pw_reply_item {
	const struct pw_finding *f;
	const char *added_line;		/* the line's text without '+', or NULL */
	const char *patch;		/* the patch's subject when a reply covers
					 * several patches (a series), else NULL */
};

/* The facts of a flood that its one summary reply reports.  Borrowed. */
struct pw_flood_facts {
	const char *key;		/* stable identity of the flood: the summary's
					 * Message-ID and "answered once" key */
	const char *sender_name;
	const char *sender_addr;
	int size;			/* patches seen */
	int announced;			/* N of "[PATCH n/N]", 0 when none */
	const char *subject;		/* a representative subject */
	const char *const *lists;	/* lists it reached, NULL-terminated */
	int recipients;			/* distinct people it reached */
	int64_t first_seen, last_seen;	/* Unix times */
	bool threaded;			/* sent as one thread */
	const char *answer_msgid;	/* the message the summary answers (the
					 * first patch seen), or NULL */
	const char *const *answer_refs;	/* its References, or NULL */
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
 * Composes the reply to one patch (or a series: items then carry their
 * patch's subject) listing the n findings of items; at most max_listed
 * are written out, the rest are counted.  Returns PW_ERR_INPUT with a
 * new reason in *err when the head cannot make a valid message (an
 * unusable address).  *out is new: pw_reply_free().
 */
enum pw_status pw_reply_patch(const struct pw_reply_head *h,
			      const struct pw_reply_item *items, size_t n,
			      size_t max_listed, struct pw_reply **out,
			      char **err);

/*
 * Composes the one summary reply to a flood, addressed as h says (h's
 * parent fields name the message answered).  Same results as above.
 */
enum pw_status pw_reply_flood(const struct pw_reply_head *h,
			      const struct pw_flood_facts *f,
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

/*
 * Returns s as valid UTF-8 on one line: control characters become
 * spaces, white space runs fold to one space, the ends are trimmed, and
 * the text is cut to at most max characters (ending in "...").  s may be
 * NULL (gives "").  g_free.
 */
char *pw_reply_clean(const char *s, size_t max);

/* True when addr is a plain addr-spec safe for a header and SMTP. */
bool pw_reply_addr_ok(const char *addr);

/* True when id (without <>) is safe inside <> in a header. */
bool pw_reply_msgid_ok(const char *id);

/*
 * Writes mode (0..07777) the way "ls -l" shows a regular file
 * ("-rw-r--r--", "-rwsr-xr-x") into out.
 */
void pw_reply_mode_lsl(unsigned mode, char out[11]);

#endif
