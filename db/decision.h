/*
 * patchwarden: maintainers' decisions and contributors' opt-outs, and
 * every SQL statement about them.
 *
 * A decision says that a finding is wrong (the findings of one message,
 * maybe of one rule, file and line), that a rule is off for a path glob
 * and/or a list (ignore), that a message was to be checked again
 * (recheck, a record of who asked), or that an address wants no more
 * replies on a list (stop).  Each records who decided (an address),
 * when, how (cli, web or mail, with the Message-ID of the command mail)
 * and why when given.  Undoing one keeps its row, marked undone.
 *
 * The findings a live wrong or ignore decision covers are listed in
 * finding_decision: filled when the decision is taken, and by a trigger
 * as findings are stored later (new patches, rechecks), emptied when it
 * is undone.  A finding with such a row is decided: kept and shown, but
 * not open (not replied about, not counted as open).
 */
#ifndef PW_DB_DECISION_H
#define PW_DB_DECISION_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "checks/status.h"
#include "db/db.h"

/*
 * Whether live decision d (a row of decision) covers finding F of the
 * patch of message M (M.id, M.msgid): the SQL condition shared by the
 * trigger of db/schema.c and pw_db_decision_add(), so that a decision
 * covers the same findings whenever they were stored.  A wrong
 * decision names the message, and a rule, file and line when given; an
 * ignore decision names the rule, a glob the file must match (GLOB:
 * '*' crosses '/') and a list the message was seen on, when given.
 */
#define PW_DECISION_COVERS(F, M) \
	"((d.kind = 'wrong' AND d.msgid = " M ".msgid" \
	"  AND (d.rule IS NULL OR d.rule = " F ".rule)" \
	"  AND (d.file IS NULL OR d.file = " F ".file)" \
	"  AND (d.line = 0 OR d.line = " F ".line))" \
	" OR (d.kind = 'ignore' AND d.rule = " F ".rule" \
	"  AND (d.path IS NULL OR " F ".file GLOB d.path)" \
	"  AND (d.list IS NULL OR EXISTS (SELECT 1 FROM message_list dml" \
	"   JOIN list dl ON dl.id = dml.list" \
	"   WHERE dml.message = " M ".id AND dl.name = d.list))))"

/*
 * The SQL condition that finding F is open: no live decision covers
 * it.  For queries of db/ that count or list open findings.
 */
#define PW_FINDING_OPEN(F) \
	"NOT EXISTS (SELECT 1 FROM finding_decision fdo WHERE fdo.finding = " \
	F ".id)"

enum pw_decision_kind {
	PW_DECISION_WRONG,
	PW_DECISION_IGNORE,
	PW_DECISION_RECHECK,
	PW_DECISION_STOP,
};

/* "wrong", "ignore", "recheck", "stop". */
const char *pw_decision_kind_name(enum pw_decision_kind k);
/* The kind named s: false when none is. */
bool pw_decision_kind_parse(const char *s, enum pw_decision_kind *k);

/*
 * One decision.  Strings are owned by the struct when it comes from a
 * read (pw_decision_free()), borrowed when handed to
 * pw_db_decision_add().  NULL: not given (any).
 */
struct pw_decision {
	int64_t id;
	enum pw_decision_kind kind;
	char *msgid;		/* wrong, recheck: the patch's Message-ID */
	int64_t finding;	/* wrong: the finding named by its id, or 0 */
	char *rule;		/* wrong (NULL: every rule), ignore */
	char *file;		/* wrong: the finding's file */
	int line;		/* wrong: the finding's line, 0: any */
	char *path;		/* ignore: a glob of files, NULL: every file */
	char *list;		/* ignore, stop: a list, NULL: every list */
	char *addr;		/* stop: the address that opted out */
	char *by;		/* who decided (an address) */
	int64_t at;		/* when (Unix time) */
	char *via;		/* "cli", "web" or "mail" */
	char *via_msgid;	/* mail: the command mail's Message-ID */
	char *reason;		/* or NULL */
	int64_t undone_at;	/* 0: live */
	char *undone_by;
	int64_t covers;		/* reads: findings it covers now */
};

void pw_decision_free(struct pw_decision *d);

/*
 * Stores decision d (its id, at when 0, undone fields and covers are
 * ignored) and marks the stored findings it covers.  *id receives the
 * new row's id, *covered (may be NULL) how many findings it covers.
 */
enum pw_status pw_db_decision_add(struct pw_db *db,
				  const struct pw_decision *d, int64_t *id,
				  int64_t *covered);

/*
 * Undoes decision id (by: who): its findings are open again unless
 * another decision covers them.  *found false when there is no such
 * decision or it was undone already (nothing is changed then).
 */
enum pw_status pw_db_decision_undo(struct pw_db *db, int64_t id,
				   const char *by, bool *found);

/*
 * The decisions, newest first: those about list (NULL: all; a decision
 * for every list is about each, one about a message about the lists it
 * was seen on), undone ones too with all.  *out is a
 * new array of struct pw_decision * that frees them.
 */
enum pw_status pw_db_decision_list(struct pw_db *db, const char *list,
				   bool all, GPtrArray **out);

/* Decision id into *out (new), or *out NULL when there is none. */
enum pw_status pw_db_decision_get(struct pw_db *db, int64_t id,
				  struct pw_decision **out);

/* A finding a decision covers, for the patch page. */
struct pw_decided_finding {
	int64_t finding;
	int64_t decision;
	enum pw_decision_kind kind;
	char *by;
	int64_t at;
	char *reason;
};

void pw_decided_finding_free(struct pw_decided_finding *f);

/*
 * The decided findings of the patch of message message_id, with the
 * decision that covers each (the oldest when several do): *out is a new
 * array of struct pw_decided_finding * that frees them.
 */
enum pw_status pw_db_decision_findings(struct pw_db *db, int64_t message_id,
				       GPtrArray **out);

/* What a stored finding is about, to name it in a wrong decision. */
struct pw_finding_ref {
	int64_t message;	/* the message row */
	char *msgid, *rule, *file;
	int line;
};

void pw_finding_ref_release(struct pw_finding_ref *r);

/*
 * Reads finding id into *r (released with pw_finding_ref_release()
 * when *found).
 */
enum pw_status pw_db_decision_finding(struct pw_db *db, int64_t id,
				      struct pw_finding_ref *r, bool *found);

/*
 * Whether addr asked for no more replies (a live stop decision) on a
 * list message message_id was seen on, or on every list: *id receives
 * the decision's id, 0 when none.
 */
enum pw_status pw_db_decision_stopped(struct pw_db *db, int64_t message_id,
				      const char *addr, int64_t *id);

/*
 * The reply of the bot whose Message-ID is msgid: *message receives the
 * message it answers (0 when msgid is none of the bot's replies, or
 * the message is gone) and *kind (may be NULL) a new string, the
 * reply's kind ("patch", "series", "flood").
 */
enum pw_status pw_db_decision_reply_of(struct pw_db *db, const char *msgid,
				       int64_t *message, char **kind);

/* *found: whether decisions were taken from the mail with msgid. */
enum pw_status pw_db_decision_from_mail(struct pw_db *db, const char *msgid,
					bool *found);

/*
 * Records msgid as the Message-ID of a signed command mail that was
 * judged: it is not judged again (pw_db_decision_command_known()).
 */
enum pw_status pw_db_decision_command_seen(struct pw_db *db, const char *msgid);
/* *found: whether pw_db_decision_command_seen() recorded msgid. */
enum pw_status pw_db_decision_command_known(struct pw_db *db,
					    const char *msgid, bool *found);

/*
 * The patch (not pull request) carried by message message_id: *patch_id
 * receives its row, 0 when the message carries none.
 */
enum pw_status pw_db_decision_patch_of(struct pw_db *db, int64_t message_id,
				       int64_t *patch_id);

/*
 * The messages of the patches of the series message message_id is a
 * patch or the cover letter of, appended to ids (int64_t); message_id
 * alone when it belongs to no series.
 */
enum pw_status pw_db_decision_series_messages(struct pw_db *db,
					      int64_t message_id, GArray *ids);

/* The Message-ID of message row id: a new string, or NULL when none. */
enum pw_status pw_db_decision_msgid(struct pw_db *db, int64_t id,
				    char **msgid);

/*
 * The messages whose replies are pending (not sent yet) although none
 * of their findings at or above min_severity is open any more: the
 * decisions took away all they were about.  Appended to ids (int64_t).
 */
enum pw_status pw_db_decision_moot_replies(struct pw_db *db, int min_severity,
					   GArray *ids);

/* Live decisions: how many findings are marked wrong and ignored. */
enum pw_status pw_db_decision_counts(struct pw_db *db, int64_t *wrong,
				     int64_t *ignored);

#endif
