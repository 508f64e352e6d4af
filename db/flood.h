/*
 * patchwarden: floods of near-identical patches (DESIGN.md, "Floods").
 *
 * Every stored patch is observed once, as it is stored: it joins the
 * group of earlier patches of the same sender in the window that share
 * its subject, body or change shape, or its exact patch identity.  A
 * group that crosses the threshold becomes a flood, and every member,
 * earlier ones included, is attached to it.
 */
#ifndef PW_DB_FLOOD_H
#define PW_DB_FLOOD_H

#include <stdbool.h>
#include <stdint.h>

#include "checks/fingerprint.h"
#include "checks/flood.h"
#include "checks/floodrules.h"
#include "checks/message.h"
#include "checks/patch.h"
#include "checks/rules.h"
#include "db/db.h"

struct pw_flood_params {
	int count;		/* patches that make a flood, at least 2 */
	int window;		/* seconds */
	/* The rule switches of the list the patch is filed under, or
	 * NULL for the defaults: a flood rule switched off there stores
	 * no finding (detection still files the patch). */
	const struct pw_check_opts *rules;
	/* Seconds within which count postings are a burst, a flood; a
	 * group slower than that is a campaign (FLOOD_CAMPAIGN).  0: no
	 * campaign, every group of count postings in the window floods. */
	int burst;
	/* Subsystems (pw_flood_area(), flood_area) within the window that make a
	 * flood at any pace; 0: reach is not counted. */
	int lists;
};

/*
 * An in-memory filter over the flood keys of the store, for a bulk load
 * (see db/FLOODS.md): the caller creates one for the load, passes it to
 * every pw_db_flood_observe() of that load on one connection, and frees
 * it.  pw_db_flood_filter_free(NULL) is a no-op.
 */
struct pw_flood_filter;
struct pw_flood_filter *pw_db_flood_filter_new(void);
void pw_db_flood_filter_free(struct pw_flood_filter *f);

/*
 * One stored patch as the flood detector files it: the message as it
 * was parsed, what storing it made (its rows) and its fingerprints.
 * Everything is borrowed.
 */
struct pw_flood_obs {
	const struct pw_mail *mail;
	int64_t message_id;
	int64_t patch_id;
	int64_t series_id;
	const struct pw_fingerprint *fp;
};

/*
 * Files a newly stored patch, inside the caller's transaction, once:
 * filing the same message again fails (its membership is a primary
 * key) rather than counting it twice.  filter is the load's filter, or
 * NULL (one mail: no filter).  *flood_id receives the flood it belongs
 * to now, or 0.  A database error fails the caller's transaction.
 */
enum pw_status pw_db_flood_observe(struct pw_db *db,
				   struct pw_flood_filter *filter,
				   const struct pw_flood_obs *o,
				   const struct pw_flood_params *p,
				   int64_t *flood_id);

/*
 * The rules' IDs, severities and wording are in checks/floodrules.h and
 * checks/rules.def; db/FLOODS.md says how they are found.
 */

/* Which fingerprints joined the members of a group (pw_flood_info.shared). */
enum pw_flood_shared {
	PW_FLOOD_SHARED_SUBJECT = 1 << 0,	/* subject without subsystem */
	PW_FLOOD_SHARED_BODY = 1 << 1,
	PW_FLOOD_SHARED_SHAPE = 1 << 2,
	PW_FLOOD_SHARED_PATCH_ID = 1 << 3,
};

/*
 * The recorded facts of one flood.  Filled by pw_db_flood_info(), which
 * allocates every pointer; release them with pw_db_flood_info_release().
 */
struct pw_flood_info {
	int64_t id;
	const char *rule;		/* "FLOOD" or "FLOOD_SERIES" (static) */
	enum pw_severity severity;
	char *key;			/* Message-ID of the member that started the
					 * group: a stable identity for the flood */
	char *sender_addr;		/* lower-cased address */
	/* Its members claim the From of a sender whose mail is DKIM-signed
	 * and carry no such signature (db/identity.h): a flood in that
	 * sender's name, not of theirs, answered to nobody. */
	bool unauthenticated;
	char *sender_name;		/* as the first member gave it, "" if none */
	char *subject;			/* the shared subject, without [PATCH ...] tags
					 * (and without subsystem prefixes when the
					 * members share the subject only without them) */
	int size;			/* patches so far, each counted once */
	int claimed_total;		/* largest N of "[PATCH n/N]" seen, 0 if none */
	int64_t first_seen, last_seen;	/* Date of the earliest and latest member */
	int64_t detected_at;		/* Date of the patch that made it a flood */
	int64_t reported_at;		/* when the report was queued; 0 if not yet */
	char **lists;			/* lists reached, sorted, NULL-terminated */
	int recipients;			/* distinct To/Cc addresses of the members */
	bool threaded;			/* most members sit in threads under a cover
					 * letter (FLOOD_SERIES) */
	int nthreaded;			/* members with In-Reply-To or References */
	unsigned shared;		/* enum pw_flood_shared bits */
	char *subject_fp, *body_fp, *shape_fp;	/* shared digests, "" if not shared */
	int64_t first_message;		/* message row id of the earliest member */
	char *first_msgid;		/* its Message-ID */
	char **first_refs;		/* its References (oldest first), NULL-terminated */
};

/* Releases what info holds (not info itself); NULL is a no-op. */
void pw_db_flood_info_release(struct pw_flood_info *info);

/*
 * Whether stored message message_id is a patch attached to a flood:
 * *found says whether it is, and *flood_id (which may be NULL) receives
 * the flood then.  A patch belongs to a flood from the moment its group
 * crosses the threshold, earlier members included.  Returns a database
 * error, or PW_OK (found or not).
 */
enum pw_status pw_db_flood_of_message(struct pw_db *db, int64_t message_id,
				      bool *found, int64_t *flood_id);

/*
 * Fills *out with the facts of flood flood_id; the caller releases it
 * with pw_db_flood_info_release().  Returns PW_ERR_INPUT when there is
 * no such flood (never was, or it was merged into another one; ask
 * pw_db_flood_of_message() again), a database error otherwise.
 */
enum pw_status pw_db_flood_info(struct pw_db *db, int64_t flood_id,
				struct pw_flood_info *out);

/*
 * The rule (PW_R_FLOOD or PW_R_FLOOD_SERIES, enum pw_rule_index) and
 * severity of flood flood_id and whether its report was queued, in one
 * indexed lookup, where pw_db_flood_info() reads every member.  Any
 * output may be NULL.  Returns PW_ERR_INPUT when there is no such
 * flood, a database error otherwise.
 */
enum pw_status pw_db_flood_kind(struct pw_db *db, int64_t flood_id, int *rule,
				enum pw_severity *severity, bool *reported);

/*
 * Marks flood flood_id as reported (its one summary reply is queued).
 * *already (may be NULL) receives whether it was marked before, in which
 * case nothing changes: call it in the transaction that queues the
 * report, and queue only when *already is false.  Returns PW_ERR_INPUT
 * when there is no such flood.
 */
enum pw_status pw_db_flood_mark_reported(struct pw_db *db, int64_t flood_id,
					 bool *already);

/*
 * The message row ids of every member of flood flood_id, oldest Date
 * first, into *out: a new GArray of int64_t (g_array_unref), empty when
 * there is no such flood.  What the reply stage passes to
 * pw_reply_policy_answer_flood().  On a database error *out is NULL.
 */
enum pw_status pw_db_flood_members(struct pw_db *db, int64_t flood_id,
				   GArray **out);

/*
 * One campaign: near-identical patches of one sender sent one by one,
 * slower than a burst, to fewer than [flood] lists subsystems
 * (FLOOD_CAMPAIGN, info).  Never mailed, no Patchwork check: listed on
 * the dashboard and in the digest.  Strings are the array's.
 */
struct pw_flood_campaign {
	int64_t id;		/* the group's id (campaign N in its findings) */
	char *sender;		/* lower-cased address */
	char *subject;		/* its earliest member's, without [PATCH] tags */
	int size;		/* patches */
	int64_t first, last;	/* Date of the earliest and latest */
	char **members;		/* the members' Message-IDs, oldest first */
};

/*
 * The campaigns whose latest patch is dated at or after since, newest
 * first, at most limit (0: all), into *out: a new GPtrArray of struct
 * pw_flood_campaign, freed with g_ptr_array_unref().  Their pace is
 * size patches over last - first.  On a database error *out is NULL.
 */
enum pw_status pw_db_flood_campaigns(struct pw_db *db, int64_t since,
				     int limit, GPtrArray **out);

#endif
