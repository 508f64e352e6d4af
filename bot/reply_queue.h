/*
 * patchwarden: the reply queue.  Composes a reply that the policy
 * (bot/reply_policy.h) has decided on, from stored facts only (the
 * message row, the findings with the lines they quote, the flood
 * record), and stores it in the outbox before any attempt to send it:
 * pending, or suppressed with the reason the policy gave, so that
 * queries show it and "outbox retry" can release it.
 */
#ifndef PW_REPLY_QUEUE_H
#define PW_REPLY_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "bot/config.h"
#include "bot/reply.h"
#include "db/flood.h"
#include "db/outbox.h"

/* A stored patch message and its findings worth a reply. */
struct pw_reply_patch_facts {
	struct pw_outbox_msg *m;
	GPtrArray *all;		/* every stored finding (owns them) */
	GPtrArray *shown;	/* those at or above the severity asked
				 * (borrowed from all); empty when m is not
				 * a patch */
};

/*
 * Reads message message_id and, when it is a patch, its stored findings
 * at or above min (each with the line it quotes) into *pf.  *found is
 * false, and *pf empty, when there is no such message.  Release *pf
 * with pw_reply_patch_facts_release() whatever the result.
 */
enum pw_status pw_reply_queue_read(struct pw_db *db, int64_t message_id,
				   enum pw_severity min,
				   struct pw_reply_patch_facts *pf, bool *found);

void pw_reply_patch_facts_release(struct pw_reply_patch_facts *pf);

/*
 * Who gets a reply, as the mail modes ([list NAME] mail) of the lists
 * the answered mail was seen on say: what each list asks, together.  A
 * list that is off asks nothing; maintainers, its maintainer addresses
 * and the MAINTAINERS M: of the touched files (maintainers = FILE);
 * author, the author; author+cc, the author and the Cc's of cc_list and
 * cc_all.  cc_maintainers adds the M: and R: of the touched files to
 * the Cc of any list that is not off.  When one list asks for the
 * author, the maintainers others ask for are copied.  Mail on no list
 * takes the defaults: off.
 */
struct pw_reply_rcpt {
	/* NULL-terminated, owned.  maintainers: the To (first) and Cc of a
	 * reply to the maintainers only, empty when it goes to the author;
	 * cc: the other copies. */
	char **maintainers;
	char **cc;
	/* Why no one gets it (new string), or NULL: every list is off
	 * ("mail off for list X"), or no maintainer is known for it.  The
	 * recipients are then those of a reply to the author, which is
	 * who gets it if "outbox retry" releases it. */
	char *none;
};

void pw_reply_rcpt_release(struct pw_reply_rcpt *rc);

/*
 * Fills *rc for the reply to m; the files it touches are those of the
 * patch of message files_of (0: m's own; a series reply threaded to
 * its cover letter names its first patch).  cc_author: whether the author, when
 * someone else posted the patch (the reply then goes To that sender),
 * may be copied (the per-recipient limit allows it).  May read the
 * stored message again for the files it touches (only where a list
 * names a MAINTAINERS file and asks for it).  Release *rc whatever the
 * result.
 */
enum pw_status pw_reply_queue_recipients(struct pw_db *db,
					 const struct pw_config *cfg,
					 const struct pw_outbox_msg *m,
					 int64_t files_of, bool cc_author,
					 struct pw_reply_rcpt *rc);

/*
 * Whether addr is a list's posting address: the address of a [list]
 * section, or that of one of names (the lists a mail was seen on) as a
 * List-Id ("linux-hwmon@vger.kernel.org" of
 * "linux-hwmon.vger.kernel.org").
 */
bool pw_reply_queue_is_list(const struct pw_config *cfg, char **names,
			    const char *addr);

/* The same for the summary of flood f: no Cc's of the original, no
 * touched files. */
void pw_reply_queue_flood_recipients(const struct pw_config *cfg,
				     const struct pw_flood_info *f,
				     struct pw_reply_rcpt *rc);

/*
 * Why mail of the lists names (NULL-terminated; NULL or empty: mail on
 * no list) gets no reply because every one of them has mail off (a new
 * string: "mail off for list X"), or NULL when one of them mails.
 */
char *pw_reply_queue_mail_off(const struct pw_config *cfg, char **names);

/*
 * Stores the composed r (kind, answering key, about message_id or 0)
 * in the outbox at now: pending, or suppressed with the reason hold
 * when hold is not NULL.  *id (when not NULL) receives its row id,
 * *added whether it is new (a reply already stored under key is left
 * as it is).  One statement: it may run inside the caller's
 * transaction.  A failure is logged.
 */
enum pw_status pw_reply_queue_store(struct pw_db *db, const char *kind,
				    const char *key, int64_t message_id,
				    const char *mail_from,
				    const struct pw_reply *r,
				    const char *in_reply_to, const char *hold,
				    int64_t now, int64_t *id, bool *added);

/*
 * Composes the reply of kind ("patch" or "series") to m listing the n
 * findings of items, to the recipients rc names (NULL: the author
 * alone), saying fixed (or NULL: pw_reply_self), and stores it under
 * key (what it answers, unique): pending, or suppressed with the reason
 * hold when hold is not NULL, created (and dated) now.  *id receives the new row's id, 0 when
 * none was stored: a reply that cannot be composed (an unusable
 * address) is reported and not stored, and that is no error; nor is one
 * answering key already.  May run inside the caller's transaction.
 */
enum pw_status pw_reply_queue_patch(struct pw_db *db,
				    const struct pw_config *cfg,
				    const struct pw_outbox_msg *m,
				    const char *kind, const char *key,
				    const struct pw_reply_rcpt *rc,
				    const struct pw_reply_item *items, size_t n,
				    const char *fixed, const char *hold,
				    int64_t now, int64_t *id);

/*
 * Brings row (a stored reply claimed for sending) up to date with the
 * maintainers' decisions taken since it was composed: a patch reply
 * whose findings were marked wrong or ignored meanwhile is composed
 * again, from the findings still open that it reported (none reported
 * before to the same author comes back), with the same Message-ID, and
 * its row rewritten; *dropped is set when none is left, and then the
 * caller sends nothing.  Other rows, and rows no decision touched, are
 * left as they are.
 */
enum pw_status pw_reply_queue_refresh(struct pw_db *db,
				      const struct pw_config *cfg,
				      const struct pw_outbox_row *row,
				      bool *dropped);

/*
 * Composes the one summary reply to flood f and stores it under key, as
 * above (rc: pw_reply_queue_flood_recipients(), or NULL).
 */
enum pw_status pw_reply_queue_flood(struct pw_db *db,
				    const struct pw_config *cfg,
				    const struct pw_flood_info *f,
				    const struct pw_reply_rcpt *rc,
				    const char *key, const char *hold);

#endif
