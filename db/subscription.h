/*
 * patchwarden: subscriptions, the lists the service polls (public-inbox
 * archives, IMAP mailboxes, Maildirs), and what their polls did.
 */
#ifndef PW_DB_SUBSCRIPTION_H
#define PW_DB_SUBSCRIPTION_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "db/db.h"

struct pw_subscription {
	int64_t id;
	char *name;		/* the operator's name for it, unique */
	char *url;		/* URL or absolute path */
	char *kind;		/* "public-inbox", "imap", "maildir" */
	char *list;		/* list its messages are filed under, or NULL */
	int64_t interval;	/* seconds between polls */
	bool paused;
	bool backfilled;	/* a first poll completed: later mail is answered */
	int64_t created_at;
	int64_t last_poll;	/* when the last poll ended, 0: never */
	int64_t last_ok;	/* when a poll last succeeded, 0: never */
	int64_t next_poll;	/* when the service polls it next */
	int failures;		/* polls failed in a row */
	char *last_error;	/* the last failure's text, NULL once one succeeds */
	int64_t messages;	/* new messages it brought, in all */
	/* Its messages that could not be read or stored (a blob missing
	 * from an archive, mail that is not mail), kept as ingest errors:
	 * "query errors" lists them.  Read only. */
	int64_t unreadable;
};

/* Releases the strings of s (not s itself). */
void pw_subscription_release(struct pw_subscription *s);
/* Frees s and its strings; for GPtrArray free functions. */
void pw_subscription_free(struct pw_subscription *s);

/*
 * Adds a subscription from s's name, url, kind, list and interval; *id
 * receives its row id.  PW_ERR_INPUT (with nothing written) when the
 * name is taken.
 */
enum pw_status pw_db_subscription_add(struct pw_db *db,
				      const struct pw_subscription *s,
				      int64_t *id);

/* Reads the subscription called name into *out (released by the caller
 * when *found). */
enum pw_status pw_db_subscription_get(struct pw_db *db, const char *name,
				      struct pw_subscription *out, bool *found);

/* The same by row id: the subscription as it is now, if still there. */
enum pw_status pw_db_subscription_get_id(struct pw_db *db, int64_t id,
					 struct pw_subscription *out, bool *found);

/* Every subscription, by name: *out receives a new GPtrArray of struct
 * pw_subscription * that frees them. */
enum pw_status pw_db_subscription_list(struct pw_db *db, GPtrArray **out);

/*
 * Removes the subscription called name and its cursors (*found says
 * whether there was one).  The messages it brought stay.
 */
enum pw_status pw_db_subscription_remove(struct pw_db *db, const char *name,
					 bool *found);

/* Pauses or resumes the subscription called name. */
enum pw_status pw_db_subscription_pause(struct pw_db *db, const char *name,
					bool paused, bool *found);

/* Marks the first poll of subscription id complete: from now on its new
 * messages are answered.  Inside the transaction of that poll's last
 * messages. */
enum pw_status pw_db_subscription_backfilled(struct pw_db *db, int64_t id);

/*
 * Records the end of a poll of subscription id at time now: error is
 * NULL when it succeeded (failures back to 0), else the reason (one
 * more failure); next_poll when the next one is due.
 */
enum pw_status pw_db_subscription_polled(struct pw_db *db, int64_t id,
					 int64_t now, const char *error,
					 int64_t next_poll);

/* Counts n more new messages brought by subscription id (in the
 * transaction that stores them). */
enum pw_status pw_db_subscription_brought(struct pw_db *db, int64_t id,
					  int64_t n);

/*
 * Marks the stored message with msgid as removed from its archive
 * (source says which), keeping it; *found says whether it is stored.
 */
enum pw_status pw_db_message_removed(struct pw_db *db, const char *msgid,
				     const char *source, bool *found);

/*
 * Where the raw bytes of message id are kept when not in the store: the
 * archive repository (*source, a new string) and the blob id (*blob);
 * both NULL when the store holds them or there is no such message.
 */
enum pw_status pw_db_message_archive(struct pw_db *db, int64_t id,
				     char **source, char **blob);

#endif
