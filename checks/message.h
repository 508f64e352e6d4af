/*
 * patchwarden: the message model.  One parsed mail message as plain
 * data: bot/mail.c fills it from GMime, and the store, series grouping,
 * flood detection and replies take it as it is.  Pure: no I/O, no GMime.
 */
#ifndef PW_MESSAGE_H
#define PW_MESSAGE_H

#include <stddef.h>
#include <stdbool.h>
#include <glib.h>

#include "checks/identity.h"
#include "checks/text.h"

struct pw_patch;

enum pw_mail_kind {
	PW_MAIL_PATCH,		/* carries a diff (and is not a reply) */
	PW_MAIL_COVER,		/* [PATCH 0/N], or a naked cover heading a series */
	PW_MAIL_COMMENT,	/* a reply (Re:), or mail without a patch in a thread */
	PW_MAIL_PULL,		/* a git pull request (pull_url set) */
	PW_MAIL_OTHER,		/* neither patch nor reply */
};

/* "patch", "cover", "comment", "pull", "other". */
const char *pw_mail_kind_str(enum pw_mail_kind k);

/* The bracketed markers of a subject, as Patchwork reads them. */
struct pw_subject_tags {
	int version;		/* 1 when not given */
	int number;		/* 0 when not given (also for a cover: 0) */
	int total;		/* 0 when not given */
	bool has_counter;	/* an n/N or "n of N" was present */
	bool rfc;
	bool resend;
	bool is_reply;		/* Re:/RE:/Aw: at the start */
	bool patch_tag;		/* the word PATCH appeared in a marker */
	char *prefixes;		/* other bracket words, comma-separated
				 * ("net-next,RFC"), "" when none; owned */
};

struct pw_mail {
	char *msgid;		/* without <>; derived from a hash of the
				 * content when the header is missing */
	bool msgid_derived;
	char *from_name;	/* the author, decoded UTF-8, "" when absent:
				 * an in-body From: when there is one, else
				 * the From header */
	char *from_addr;	/* the author's lower-cased address, "" when absent */
	char *sender_name;	/* the From header when an in-body From:
				 * names someone else, else NULL */
	char *sender_addr;	/* likewise, lower-cased, else NULL */
	char *subject;		/* decoded UTF-8, white space folded */
	char *subject_clean;	/* markers stripped as git mailinfo strips them */
	gint64 date;		/* Unix time; 0 when unknown: no Date, or
				 * one unreadable, before 1990 or more than
				 * a day after the message was read (stored
				 * as NULL; replies take it as too old) */
	char *in_reply_to;	/* first id, without <>; NULL when absent */
	char **references;	/* NULL-terminated, oldest first, without <> */
	char *list_id;		/* List-Id contents without <>, NULL when absent */
	char *auto_submitted;	/* the header value, NULL when absent */
	char *automated;	/* why a machine sent it ("Precedence: bulk",
				 * "automated sender stable@vger.kernel.org"),
				 * NULL when a person did: never answered,
				 * never counted against a person; owned */
	/* How its From was authenticated (checks/identity.h): judged and
	 * stored by ingest for live mail, PW_AUTH_NONE until then. */
	enum pw_auth auth;
	char **recipients;	/* NULL-terminated lower-cased To and Cc addresses */
	int nrecipients;
	struct pw_subject_tags tags;
	enum pw_mail_kind kind;
	char *commit_msg;	/* text before the diff (and before "---"), UTF-8 */
	char *diff;		/* the diff text, NULL when none */
	bool diff_cut;		/* a hunk of it ends before its header's
				 * line counts say: not a whole patch */
	char *diff_rest;	/* when diff_cut: the text of the diff's
				 * part after where git stops reading it,
				 * as sent (the rest of the patch, to show
				 * it whole), else NULL */
	bool diff_unflowed;	/* when diff_cut: read from format=flowed
				 * text, and whole as sent, before the
				 * unwrapping git am does too */
	char *pull_url;		/* "URL branch" of a pull request, NULL when none */
	char **warnings;	/* NULL-terminated notes on tolerated damage */
};

/*
 * m's diff parsed (pw_diff_parse_ctx()) with what the mail shows about
 * where it stops short, so that PATCH_MALFORMED names the cause.  m->diff
 * must not be NULL.  The caller frees the patch (pw_patch_free()).
 */
struct pw_patch *pw_mail_diff(const struct pw_mail *m);

/* Releases m and everything it holds; pw_mail_free(NULL) does nothing. */
void pw_mail_free(struct pw_mail *m);

/*
 * Parses the markers of a decoded subject into *tags and returns the
 * subject with them stripped (newly allocated).  tags->prefixes is
 * allocated; release it with pw_subject_tags_release().
 */
char *pw_subject_parse(const char *subject, struct pw_subject_tags *tags);
/* Releases what tags holds (not tags itself, which is usually embedded). */
void pw_subject_tags_release(struct pw_subject_tags *tags);

/*
 * Whether a subject's bracket tags (pw_subject_tags.prefixes: "AUTOSEL,5.6",
 * "5.4", "4.19.y", "6.1-stable") name a stable tree or the stable AUTOSEL
 * process: the stable maintainers' review and backport postings.
 */
bool pw_subject_stable_tags(const char *prefixes);

/*
 * The reply and forward markers, the one list of them (checks/subject.c):
 * the length of the marker at s, 0 when there is none.  Replies "Re:",
 * "Aw:", "Sv:", "Antw:", "VS:", "Odp:", "Res:", "答复:", "回复:", "Отв:"
 * and the other languages' forms; forwards "Fwd:", "Fw:", "WG:", "TR:",
 * "RV:", "转发:", ...; any case; a count ("Re[2]:", "Re^2:") and the
 * full-width colon "：" too.  *reply is set (never cleared) when it is
 * a reply marker.
 */
size_t pw_subject_marker(const char *s, bool *reply);

/*
 * What leads a subject before its text, skipped: white space, reply
 * and forward markers (pw_subject_marker(); its short localised words,
 * "VS:", "PD:", "Res:", only before the first group) and bracket groups
 * ("[PATCH v2 1/3]", "[net-next]"), in any order and number, as
 * Patchwork skips them.  Returns where the text starts (a pointer into
 * subject).  *reply (reply may be NULL) is set when a reply marker was
 * among them; group, when not NULL, is called with each bracket group's
 * contents (without the brackets) and data.
 */
const char *pw_subject_skip(const char *subject, bool *reply,
			    void (*group)(const char *s, size_t n, void *data),
			    void *data);

/*
 * The kind of m from what it holds, in this order: a reply (Re:) is a
 * comment whatever its body holds; then a pull request; "[PATCH 0/N]" a
 * cover; a diff a patch, unless it is a discussion (below); other mail
 * in a thread a comment, the rest other.  Reads tags, pull_url, diff,
 * diff_cut, commit_msg, in_reply_to and references; sets nothing.
 *
 * A discussion is mail with no patch marker in its subject (no PATCH,
 * RFC or n/N in a bracket group, no leading word PATCH, as in "PATCH:
 * hwmon: ...") whose diff is not a whole patch (a hunk
 * ends early: pasted into a mail client) or follows quoted text (a line
 * starting with ">"): a bug report or a question with a diff in it,
 * where Patchwork would file a patch.  It is not checked as a patch and
 * gets no reply.  A patch sent without a marker (git format-patch -k,
 * git send-email --subject-prefix="") carries a whole diff after its
 * own words and stays a patch, as git am takes it.
 */
enum pw_mail_kind pw_mail_classify(const struct pw_mail *m);

/* Whether the diff m carries is filed as discussion, not as a patch
 * (see pw_mail_classify()). */
bool pw_mail_is_discussion(const struct pw_mail *m);

/*
 * What the header block says about who sent a message: bot/mail.c reads
 * it, pw_mail_automated() judges it.  Each string is borrowed and NULL
 * when the field is absent.
 */
struct pw_mail_origin {
	const char *sender;		/* the From header's address */
	const char *subject;		/* decoded */
	const char *auto_submitted;	/* Auto-Submitted */
	const char *precedence;		/* Precedence (the first) */
	const char *patchwork_hint;	/* X-Patchwork-Hint */
	const char *stable;		/* X-stable, the stable team's bots' */
	bool list_headers;		/* List-Id, X-Mailing-List, List-Post,
					 * List-Unsubscribe or Mailing-List */
	const char *prefixes;		/* the subject's other bracket words
					 * (struct pw_subject_tags), or NULL */
	bool is_reply;			/* the subject is a reply's */
	bool other_author;		/* an in-body From: names another
					 * author than the poster */
};

/*
 * The senders that are machines whatever they send, as *-patterns
 * (g_pattern_match_simple(), on the lower-cased address), NULL-ended:
 * bounces, robots (kernel test robot, syzbot, kernel.org's *-bot
 * addresses: patchwork-bot+*, pr-tracker-bot, sashiko-bot).  [reply]
 * automated_senders adds to it.  deploy/patchwarden.conf.5 lists it.
 */
extern const char *const pw_mail_automated_senders[];

/*
 * Whether addr matches pw_mail_automated_senders or one of extra
 * (NULL-ended, may be NULL; patterns with white space around them are
 * taken without it), case aside.
 */
bool pw_mail_sender_automated(const char *addr, const char *const *extra);

/*
 * Why a machine sent the message o describes, as a short reason (new
 * string, g_free), or NULL when a person did.  In this order:
 * Auto-Submitted other than "no" ("Auto-Submitted: auto-replied"); the
 * stable team's notices by their subject, not a reply ("stable AUTOSEL
 * notice", "stable FAILED notice", "stable tree notice"): their senders
 * also post patches of their own; X-stable ("X-stable: review");
 * X-Patchwork-Hint: ignore; Precedence: junk, or bulk or list on mail
 * that no list carried (every list adds "Precedence: bulk" to what it
 * distributes, so on list mail it says nothing of the sender); a sender
 * that pw_mail_sender_automated() names with extra ("automated sender
 * lkp@intel.com").  X-Auto-Response-Suppress is not read: Exchange adds
 * it to every message some companies' people send.
 */
char *pw_mail_automated(const struct pw_mail_origin *o,
			const char *const *extra);

/* Whether m sits in a thread: it has an In-Reply-To or References. */
bool pw_mail_is_threaded(const struct pw_mail *m);

/*
 * Who posted m, the mail's From header: the sender when an in-body
 * From: names another author, else the author.  Replies go to them, and
 * a flood is many patches from one of them.  Borrowed from m.
 */
const char *pw_mail_poster_name(const struct pw_mail *m);
const char *pw_mail_poster_addr(const struct pw_mail *m);

/*
 * The Message-ID given to a message without one: the SHA-256 of its
 * len raw bytes "@patchwarden.invalid", so that the same bytes always
 * get the same id.  g_free.
 */
char *pw_mail_derive_msgid(const char *raw, size_t len);

/*
 * Whether m may be a naked cover letter: a thread root (no In-Reply-To,
 * no References) that is neither a patch nor a reply, with a sender.
 */
bool pw_mail_is_bare_root(const struct pw_mail *m);

/*
 * b4's rule for a cover letter without "[PATCH 0/N]": whether root, a
 * thread root that is neither patch nor reply (kind PW_MAIL_OTHER), is
 * the cover of patch, a patch from the same address that replies
 * directly to it.  Series grouping promotes such a root to a cover; a
 * patch sent in reply to someone else's report leaves the report alone.
 */
bool pw_mail_is_naked_cover(const struct pw_mail *root,
			    const struct pw_mail *patch);


#endif
