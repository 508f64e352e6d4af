/*
 * patchwarden: a patch's life, decided without the store.  Which
 * earlier series a new one is the next version of (its lineage), what a
 * maintainer's reply says became of a patch, and how a patch's state
 * changes.  db/lineage.c reads the candidates and stores the verdicts;
 * bot/state.c judges who may decide.
 */
#ifndef PW_LINEAGE_H
#define PW_LINEAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What linked a series to the one before it, strongest first.  The
 * store keeps the name (pw_lineage_how_name()).
 */
enum pw_lineage_how {
	PW_LINEAGE_NONE = 0,	/* the first of its lineage */
	PW_LINEAGE_CHANGE_ID,	/* b4's "change-id:" is the same */
	PW_LINEAGE_LINK,	/* a "v1: https://lore.../ID" changelog link */
	PW_LINEAGE_COPY,	/* a lone patch's diff sent again by its
				 * sender (a corrected or renamed copy) */
	PW_LINEAGE_REPLY,	/* sent in reply to the earlier version */
	PW_LINEAGE_SUBJECT,	/* the same subject from the same sender */
};

/* "first", "change-id", "link", "copy", "reply" or "subject". */
const char *pw_lineage_how_name(enum pw_lineage_how how);

/* A series as lineage compares them (strings borrowed). */
struct pw_lineage_series {
	int64_t id;
	const char *name;	/* the subject without markers */
	const char *from_addr;	/* its poster */
	int version;
	int total;		/* its patches announced, 0 for a lone one */
	int64_t date;		/* its first message's */
	const char *change_id;	/* b4's, NULL when none */
	/* Of the new series: the mail read now was DKIM-signed by its
	 * poster (checks/identity.h). */
	bool dkim;
	/* The sender (the poster of a series DKIM-signed mail started)
	 * whose signed series its lineage holds, "" when it holds those
	 * of more than one, NULL when none: it links only to a series of
	 * the same signer, by mail that signer signed. */
	const char *signer;
	/* Of a candidate only: how the new series names it. */
	bool replied;		/* the new one answers a message of it */
	bool linked;		/* a changelog link of the new one names it */
	bool same_diff;		/* it has a patch whose patch-id one of the
				 * new one's has, from the same sender */
	bool same_subject;	/* it has a cover or patch whose subject
				 * key (pw_lineage_subject_keys()) one of
				 * the new one's has, from the same poster
				 * or in-body author */
};

/*
 * Whether a comes before b in one lineage: a lower version, else an
 * earlier date (a copy sent again follows its original), else a lower
 * id.
 */
bool pw_lineage_before(const struct pw_lineage_series *a,
		       const struct pw_lineage_series *b);

/*
 * How series s names candidate c as an earlier version of itself: the
 * strongest evidence, or PW_LINEAGE_NONE when c is no earlier version
 * (not before s, or nothing links them).  A change-id links any two
 * series; a changelog link any series before s; the same diff
 * (same_diff), a reply or the same subject (its name compared without
 * case) only series of the same sender (same_subject says it of the
 * author too), the same diff only lone patches (a patch of a series
 * sent again alone is no new version of the whole series), a reply
 * only a lower version (patches threaded under the first of one
 * posting are no versions of it).  Whatever the evidence, lineages
 * that hold signed series (signer) link only to each other, of one
 * signer, by mail that signer signed (s->dkim): anyone can copy a
 * change-id, cite a link, reuse a subject or write an in-body From:,
 * and the link would supersede the signer's patches; a sender who
 * starts signing starts a lineage of its own.
 */
enum pw_lineage_how pw_lineage_evidence(const struct pw_lineage_series *s,
				       const struct pw_lineage_series *c);

/*
 * How candidate c, stored before s but a later version of it (mail
 * arrives out of order), follows s: by what works both ways (a
 * change-id, the same subject or diff); PW_LINEAGE_NONE when it does
 * not, or when their lineages may not join (as above).
 */
enum pw_lineage_how pw_lineage_follows(const struct pw_lineage_series *s,
				       const struct pw_lineage_series *c);

/*
 * The candidate (of n in cand) that series s follows: the latest one
 * before s linked by the strongest evidence, its index, or -1 (then
 * *how is PW_LINEAGE_NONE), by pw_lineage_evidence().
 */
int pw_lineage_pick(const struct pw_lineage_series *s,
		    const struct pw_lineage_series *cand, size_t n,
		    enum pw_lineage_how *how);

/*
 * The keys a subject is compared by across versions, normalised as
 * flood detection does (markers and version stripped, case folded):
 * without its subsystem prefixes nor parenthesised driver names
 * ("hwmon: (pmbus) Add driver for X" and "hwmon: Add driver for X"
 * share it), and whole without its punctuation ("hwmon: nct6683 Add
 * X" and "hwmon: (nct6683) Add X" share that).  A new NULL-terminated
 * array (g_strfreev) of the distinct keys long enough to tell one
 * series from another (not "fix typo"), maybe empty.
 */
char **pw_lineage_subject_keys(const char *subject);

/*
 * b4's "change-id: ID" line of a cover letter's (or patch's) text (len
 * bytes, the whole message will do: b4 writes it below the "---"),
 * a new string (g_free), or NULL when there is none.
 */
char *pw_lineage_change_id(const char *text, size_t len);

/*
 * The Message-IDs that changelog lines of text link to as earlier
 * versions ("v1: https://lore.kernel.org/r/ID", "Link to v2:
 * https://lore.kernel.org/all/ID/"), without <>, of len bytes: a new
 * NULL-terminated array (g_strfreev), empty when there are none.
 */
char **pw_lineage_links(const char *text, size_t len);

/*
 * What a version did with the findings of the version before it: keys
 * (NULL-terminated, any order, one per finding: "RULE<TAB>FILE") of
 * prev and cur compared as multisets.  fixed: in prev, not in cur;
 * kept: in both; added: in cur, not in prev.
 */
void pw_lineage_compare(char *const *prev, char *const *cur, int *fixed,
			int *kept, int *added);

/*
 * A patch's state.  Ordered: a state only gives way to a stronger one
 * (pw_patch_state_merge()).  The store keeps the name.
 */
enum pw_patch_state {
	PW_STATE_NEW = 0,
	PW_STATE_SUPERSEDED,
	PW_STATE_REJECTED,
	PW_STATE_APPLIED,
};

/* "new", "superseded", "rejected" or "applied". */
const char *pw_patch_state_name(enum pw_patch_state st);
/* The state named name; false when none is. */
bool pw_patch_state_parse(const char *name, enum pw_patch_state *st);

/* The state of a patch in state now that event happens to. */
enum pw_patch_state pw_patch_state_merge(enum pw_patch_state now,
					 enum pw_patch_state event);

/* What a reply says became of the patch it answers. */
enum pw_reply_verdict {
	PW_VERDICT_NONE = 0,
	PW_VERDICT_APPLIED,	/* "Applied.", "Applied to hwmon-next", "Queued" */
	PW_VERDICT_REJECTED,	/* "NAK", "Nacked-by:", "Rejected", "I am
				 * not going to apply this patch" */
	PW_VERDICT_DROPPED,	/* "Dropped", "I have dropped this patch",
				 * "Reverted", "the patch did not apply":
				 * applied no more */
};

/*
 * The verdict of a reply's own text (quoted lines and what follows the
 * signature separator are not read): the first sentence that starts
 * with one of the words above decides ("Good catch. Applied.", not
 * "Applied. I dropped the blank line at the end.").  Who may decide is the caller's
 * business.
 */
enum pw_reply_verdict pw_reply_verdict(const char *text);

#endif
