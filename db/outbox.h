/*
 * patchwarden: the outbox, every reply the bot writes, stored before any
 * attempt to send it, and every SQL statement about replies.
 *
 * A row moves pending -> sending -> sent, or back to pending (with a
 * later next_attempt) after a transient failure, or to failed after a
 * permanent one.  Replies the policy holds back are stored as suppressed
 * with the reason.  "answers" names what a reply answers ("msg:<id>",
 * "flood:<key>") and is unique, so nothing is ever answered twice.
 */
#ifndef PW_DB_OUTBOX_H
#define PW_DB_OUTBOX_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "checks/message.h"
#include "db/db.h"

/* One outbox row.  Every string is owned by the row. */
struct pw_outbox_row {
	int64_t id;
	char *kind;		/* "patch", "series" or "flood" */
	char *answers;		/* unique key of what it answers */
	int64_t message_id;	/* the message answered, 0 when none */
	char *state;		/* pending, sending, sent, failed, suppressed */
	char *reason;		/* why suppressed, or NULL */
	char *msgid;		/* the reply's Message-ID, without <> */
	char *in_reply_to;	/* without <>, or NULL */
	char *mail_from;	/* envelope sender */
	char *rcpt_to;		/* the main recipient (To) */
	char *recipients;	/* envelope recipients, newline-separated */
	char *subject;		/* the reply's subject (UTF-8) */
	GBytes *raw;		/* the message in CRLF wire form, or NULL
				 * when it was not asked for */
	int64_t created_at, next_attempt, last_attempt, sent_at;
	int attempts;
	char *last_error;	/* or NULL */
	int smtp_code;		/* the last SMTP reply code, 0 when none */
	char *transport;	/* "smtp" or "mbox" once sent, else NULL */
};

/* Frees a row; NULL is a no-op. */
void pw_outbox_row_free(struct pw_outbox_row *r);

/* What a new row holds.  Strings are borrowed from the caller. */
struct pw_outbox_new {
	const char *kind;
	const char *answers;
	int64_t message_id;	/* 0 when none */
	const char *state;	/* "pending" or "suppressed" */
	const char *reason;	/* for suppressed */
	const char *msgid;
	const char *in_reply_to;
	const char *mail_from;
	const char *rcpt_to;
	const char *recipients;
	const char *subject;
	const void *raw;
	size_t raw_len;
	int64_t now;
};

/*
 * Stores a new reply unless one that answers the same thing (or has the
 * same Message-ID) is already there.  *added tells which; *id, when not
 * NULL, receives the new row's id (0 when not added).
 */
enum pw_status pw_db_outbox_add(struct pw_db *db, const struct pw_outbox_new *n,
				int64_t *id, bool *added);

/*
 * The reads below tell "not found" (PW_OK, *found false) from a database
 * error (its status): a caller inside a transaction fails it on the
 * latter rather than taking it for an answer.
 */

/* *found: whether a reply (in any state) answering key is stored. */
enum pw_status pw_db_outbox_answered(struct pw_db *db, const char *key,
				     bool *found);

/* *found: whether msgid is the Message-ID of one of the bot's replies. */
enum pw_status pw_db_outbox_is_own(struct pw_db *db, const char *msgid,
				   bool *found);

/*
 * Counts into *n the replies created at or after since that are on
 * their way or gone (pending, sending, sent), to rcpt, or to anyone when
 * rcpt is NULL.
 */
enum pw_status pw_db_outbox_count_since(struct pw_db *db, const char *rcpt,
					int64_t since, int64_t *n);

/*
 * Reads one row, with its raw bytes when with_raw.  *out is new
 * (pw_outbox_row_free()), NULL when there is no such row (*found false).
 */
enum pw_status pw_db_outbox_get(struct pw_db *db, int64_t id, bool with_raw,
				struct pw_outbox_row **out, bool *found);

/*
 * Appends every row (without raw bytes) in id order to out, a GPtrArray
 * whose free function should be pw_outbox_row_free; only rows in state
 * when it is not NULL.
 */
enum pw_status pw_db_outbox_list(struct pw_db *db, const char *state,
				 GPtrArray *out);

/*
 * Appends to ids (a GArray of int64_t) up to limit pending rows whose
 * next attempt is at or before now (every pending row when all), oldest
 * first.
 */
enum pw_status pw_db_outbox_due(struct pw_db *db, int64_t now, bool all,
				int limit, GArray *ids);

/*
 * Claims a pending row for one SMTP transaction: it becomes "sending",
 * its attempts grow by one and last_attempt is now.  Called outside a
 * transaction (as the send loop does), it is committed at once, so that
 * the attempt survives a crash.  *claimed is false when the row was
 * not pending any more.
 */
enum pw_status pw_db_outbox_claim(struct pw_db *db, int64_t id, int64_t now,
				  bool *claimed);

/*
 * The writes below are single statements: outside a transaction each
 * commits on its own; inside the caller's they join it.
 */

/* Records a delivered row: state sent, sent_at now, through transport. */
enum pw_status pw_db_outbox_mark_sent(struct pw_db *db, int64_t id,
				      int64_t now, const char *transport,
				      int code, const char *note);

/*
 * Puts a claimed row back to pending without counting the attempt (the
 * configuration failed, not the reply), next tried at next, with the
 * error.
 */
enum pw_status pw_db_outbox_unclaim(struct pw_db *db, int64_t id,
				    int64_t next, int code, const char *error);

/* Puts a row back to pending, next tried at next, with the error. */
enum pw_status pw_db_outbox_mark_retry(struct pw_db *db, int64_t id,
				       int64_t next, int code,
				       const char *error);

/* Records a permanent failure: state failed, never retried. */
enum pw_status pw_db_outbox_mark_failed(struct pw_db *db, int64_t id, int code,
					const char *error);

/*
 * Makes a failed, suppressed or pending row pending and due at now (the
 * "outbox retry" command).  Returns PW_ERR_INPUT, with the reason in
 * *why (static text), for a row that is absent, sent or being sent.
 */
enum pw_status pw_db_outbox_release(struct pw_db *db, int64_t id, int64_t now,
				    const char **why);

/*
 * Puts rows left in "sending" by a process that died back to pending,
 * due at now, noting the interruption.  *n receives how many.  The
 * caller must be the only sender (bot/reply_send.c holds a lock).
 */
enum pw_status pw_db_outbox_recover(struct pw_db *db, int64_t now, int *n);

/*
 * Suppresses the pending reply that answers message_id, if any, with
 * reason (a flood summary replaces it).  *n receives how many rows
 * changed.
 */
enum pw_status pw_db_outbox_supersede(struct pw_db *db, int64_t message_id,
				      const char *reason, int *n);

/*
 * Whether a maintainer's decision taken since row id was composed (at
 * or after its created_at) covers a finding of the message it answers:
 * then the stored text may name findings no longer replied about.
 */
enum pw_status pw_db_outbox_decided_since(struct pw_db *db, int64_t id,
					  bool *decided);

/*
 * Replaces the text of row id, claimed for sending (state sending),
 * with a reply composed again: its wire bytes, To, envelope recipients
 * (newline-separated) and subject; created_at becomes now.
 */
enum pw_status pw_db_outbox_rewrite(struct pw_db *db, int64_t id,
				    const void *raw, size_t raw_len,
				    const char *rcpt_to, const char *recipients,
				    const char *subject, int64_t now);

/* Suppresses row id, claimed for sending, with reason: it is not sent. */
enum pw_status pw_db_outbox_drop(struct pw_db *db, int64_t id,
				 const char *reason);

/* A held reply: its row and the message it answers. */
struct pw_outbox_held {
	int64_t id;
	int64_t message;
};

/*
 * The suppressed replies held for reason (compared whole) that were
 * stored before before, oldest first: *out receives a new GArray of
 * struct pw_outbox_held.
 */
enum pw_status pw_db_outbox_held(struct pw_db *db, const char *reason,
				 int64_t before, GArray **out);

/* Sets the reason a suppressed reply is held back. */
enum pw_status pw_db_outbox_set_reason(struct pw_db *db, int64_t id,
				       const char *reason);

/* ---- what a reply answers ---- */

/*
 * A stored message as a reply needs it: its header fields as a message
 * model (what the composer takes), and what only the store knows.
 */
struct pw_outbox_msg {
	int64_t id;
	struct pw_mail *mail;	/* the header fields of the message row
				 * and its sender (sender_* NULL when the
				 * author posted it); date 0 when unknown;
				 * commit_msg, diff and pull_url are NULL */
	char **lists;		/* names of the lists it was seen on, sorted */
	bool backfill;		/* read while backfilling an archive */
};

void pw_outbox_msg_free(struct pw_outbox_msg *m);

/*
 * Reads message id.  *out is new (pw_outbox_msg_free()), NULL when there
 * is no such message (*found false).
 */
enum pw_status pw_db_outbox_message(struct pw_db *db, int64_t id,
				    struct pw_outbox_msg **out, bool *found);

/*
 * Reads the stored findings of the patch carried by message id, in
 * stored order, into *out: a new GPtrArray of struct pw_finding * that
 * frees them itself (g_ptr_array_unref).  rule points at an interned
 * string; added_line is the line stored with the finding (finding_line).
 * Findings stored before the schema kept it (user_version 7) have none:
 * their replies give file and line without quoting it, until "db
 * recheck" stores it.  Findings a maintainer's decision covers
 * (db/decision.h) are left out: they are not replied about.
 */
enum pw_status pw_db_outbox_findings(struct pw_db *db, int64_t message_id,
				     GPtrArray **out);

#endif
