/*
 * patchwarden: what a list's weekly digest reports, and the digests
 * sent (the digest table, every SQL statement about them).
 *
 * A period of a list is (since, until]: the mail the bot read then
 * (message.received_at), backfill apart (an archive read at
 * subscription is history, not news).  A digest is stored once per list
 * and period end, in the same transaction as its outbox row, so that a
 * crash neither loses it nor sends it twice.
 */
#ifndef PW_DB_DIGEST_H
#define PW_DB_DIGEST_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "checks/status.h"
#include "db/db.h"

/* The last digest of a list.  Strings owned. */
struct pw_digest_last {
	int64_t until;		/* end of the period it covered */
	/* The last one mailed (what the next is threaded under): its
	 * Message-ID (without <>) and its References, oldest first,
	 * space-separated; NULL when none was mailed yet. */
	char *msgid;
	char *refs;
};

void pw_digest_last_release(struct pw_digest_last *l);

/* Reads the last digest of list into *out; *found false when none. */
enum pw_status pw_db_digest_last(struct pw_db *db, const char *list,
				 struct pw_digest_last *out, bool *found);

/* One row of a count: a name (a rule, an address) and how many. */
struct pw_digest_count {
	char *name;		/* owned */
	char *label;		/* owned: a severity, a display name; or NULL */
	int64_t n;
	int64_t m;		/* a second count (patches with findings) */
};

/* One flood of the period. */
struct pw_digest_flood {
	int64_t id;
	char *sender;		/* owned, lower-cased */
	char *subject;		/* owned, as stored (from mail: clean it) */
	char *first_msgid;	/* owned: its first member's, or NULL */
	int size;
	int64_t detected_at;	/* a campaign: when it became one */
	int64_t first, last;	/* Date of its earliest and latest patch */
};

/* What a digest of one list and period reports.  Owns everything. */
struct pw_digest_facts {
	int64_t patches;		/* patches read (people's and machines') */
	int64_t patches_found;		/* of them, with a finding */
	int64_t by_severity[3];		/* findings per enum pw_severity */
	GPtrArray *rules;		/* struct pw_digest_count *: rule,
					 * severity label, findings, patches;
					 * most first */
	GPtrArray *floods;		/* struct pw_digest_flood * */
	GPtrArray *campaigns;		/* struct pw_digest_flood *: the
					 * campaigns (FLOOD_CAMPAIGN) going on
					 * in the period */
	GPtrArray *senders;		/* struct pw_digest_count *: address,
					 * name, patches, with findings; the
					 * top ones, machines apart */
	int64_t automated;		/* messages machines sent */
	int64_t replies;		/* replies queued to its mail */
	int64_t held;			/* of them, held (suppressed) */
};

void pw_digest_facts_release(struct pw_digest_facts *f);

/*
 * Reads what happened on list in (since, until] into *f: at most
 * max_rules rules and max_senders senders.
 */
enum pw_status pw_db_digest_facts(struct pw_db *db, const char *list,
				  int64_t since, int64_t until,
				  int max_rules, int max_senders,
				  struct pw_digest_facts *f);

/*
 * The lists the store knows (that mail was filed under), sorted:
 * *out is a new NULL-terminated array (g_strfreev).
 */
enum pw_status pw_db_digest_lists(struct pw_db *db, char ***out);

/*
 * Records the digest of list for (since, until]: mailed as msgid
 * (without <>, with refs, its References) in outbox row outbox, or,
 * with msgid NULL, a period with nothing to report.  *added is false
 * when that list and period end were recorded before.  Run it in the
 * transaction that stores the outbox row.
 */
enum pw_status pw_db_digest_add(struct pw_db *db, const char *list,
				int64_t since, int64_t until,
				const char *msgid, const char *refs,
				int64_t outbox, int64_t now, bool *added);

#endif
