/*
 * patchwarden: what one voice per series version keeps (the policy is
 * bot/reply_policy.c): the findings each reply reported, so that none
 * is mailed twice to one author whatever version or copy carries it
 * again; the series whose reply waits until the series is whole; and
 * the reads that tell a series whole and an identical copy answered.
 *
 * A reported finding counts while its reply is on its way or gone
 * (pending, sending, sent): a held reply reported nothing yet.
 */
#ifndef PW_DB_VOICE_H
#define PW_DB_VOICE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "checks/patch.h"
#include "db/db.h"

/* A finding as it is recognised on another version: all borrowed. */
struct pw_voice_key {
	const char *author;	/* the patch's poster, lower case, as
				 * pw_identity_flood_sender() names it for
				 * how its mail was authenticated: the bare
				 * address unless signed */
	const char *rule;
	const char *file;	/* "" when none */
	const char *added;	/* the added line, or the message when the
				 * finding quotes no line */
};

/*
 * The key of finding f of author's patch (author may be NULL where the
 * caller matches on the rest), borrowed from both: the one way a
 * finding is recognised again, when it is recorded and when a reply is
 * composed or composed again.
 */
void pw_voice_key_of(const struct pw_finding *f, const char *author,
		     struct pw_voice_key *k);

/*
 * A series as far as it arrived: the total its counters announce (0 or
 * 1: a lone patch), the patches stored, its cover letter's message (0:
 * none) and the message of its first patch (lowest number, then first
 * stored; 0: none).
 */
struct pw_voice_series {
	int version;		/* the version its subjects carry, 1: none */
	int total;
	int have;
	int64_t cover;
	int64_t first;
};

enum pw_status pw_db_voice_series(struct pw_db *db, int64_t series_id,
				  struct pw_voice_series *out);

/* Appends the messages of the patches of series_id, in patch order, to
 * ids (a GArray of int64_t). */
enum pw_status pw_db_voice_members(struct pw_db *db, int64_t series_id,
				   GArray *ids);

/* Records that the reply to series_id waits since now (kept when it
 * waits already). */
enum pw_status pw_db_voice_wait(struct pw_db *db, int64_t series_id,
				int64_t now);

/* Ends the wait of series_id, if any. */
enum pw_status pw_db_voice_unwait(struct pw_db *db, int64_t series_id);

/* Appends to ids (int64_t) the series waiting since before before,
 * longest waiting first. */
enum pw_status pw_db_voice_waiting(struct pw_db *db, int64_t before,
				   GArray *ids);

/* *found: whether a reply on its way or gone reported k. */
enum pw_status pw_db_voice_reported(struct pw_db *db,
				    const struct pw_voice_key *k, bool *found);

/* Records that outbox row outbox reported k, found on message. */
enum pw_status pw_db_voice_record(struct pw_db *db, int64_t outbox,
				  int64_t message, const struct pw_voice_key *k);

/*
 * *found: whether another patch with the patch-id of message's (an
 * identical copy, of any date) was reported on by a reply on its way
 * or gone.
 */
enum pw_status pw_db_voice_copy_answered(struct pw_db *db, int64_t message,
					 bool *found);

/*
 * Appends to out (a GPtrArray of new strings, three per finding: rule,
 * file, added) the findings that replies on their way or gone reported
 * on the patches of series_id.
 */
enum pw_status pw_db_voice_series_reported(struct pw_db *db, int64_t series_id,
					   GPtrArray *out);

/*
 * *found: whether outbox row outbox reported k found on message; *any
 * (when not NULL): whether it recorded anything at all (a row stored
 * before one voice per series version recorded nothing).
 */
enum pw_status pw_db_voice_row_told(struct pw_db *db, int64_t outbox,
				    int64_t message,
				    const struct pw_voice_key *k, bool *found,
				    bool *any);

/*
 * The history "preview" replays: appends to ids (int64_t) the stored
 * messages dated from since to until (inclusive), of list (NULL: any),
 * in Date order (then as stored).  *newest receives the Date of the
 * newest message of that list (0: none), whatever since and until.
 */
enum pw_status pw_db_voice_history(struct pw_db *db, int64_t since,
				   int64_t until, const char *list,
				   GArray *ids, int64_t *newest);

#endif
