/*
 * patchwarden: the maintainers' queries over the stored history
 * (patchwarden query, and the dashboard of patchwarden serve, which
 * answers from the same functions).  Every filter value is a bound
 * parameter; each filter given adds one constant fragment to the WHERE
 * clause, so that SQLite plans with the constraints that apply and uses
 * their indexes (migration 11), instead of "?1 IS NULL OR ..." terms no
 * index can serve.
 */
#ifndef PW_DB_QUERY_H
#define PW_DB_QUERY_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "checks/patch.h"
#include "db/db.h"

/* Series states (pw_query_filter.state). */
enum pw_series_state {
	PW_SERIES_ANY = 0,
	PW_SERIES_COMPLETE,	/* every announced patch arrived */
	PW_SERIES_INCOMPLETE,	/* some announced patch is missing */
	PW_SERIES_FLOOD,	/* its patches belong to a flood */
};

/*
 * What to select.  Strings are borrowed; NULL, 0 or false mean "any".
 * Each query reads the fields that make sense for it and ignores the
 * others (bot/report.c refuses a filter a query does not take).
 */
struct pw_query_filter {
	const char *rule;		/* this rule ID (as stored: upper case) */
	enum pw_severity min_severity;	/* findings, stats: at least this
					 * severe; series, patches, senders:
					 * the findings counted */
	int64_t since;			/* dated at or after this Unix time */
	int64_t until;			/* dated before this Unix time, 0: any */
	const char *from;		/* author or sender address (any case) */
	const char *list;		/* seen on the list of this name */
	const char *path;		/* findings: file matching this glob */
	int version;			/* series, patches: this version only */
	int has_findings;		/* 1: with findings, -1: without */
	enum pw_series_state state;	/* series */
	int64_t series_id;		/* patches, findings: of this series */
	int64_t message_id;		/* findings: of this message's patch */
	int64_t series_only;		/* series: this one series */
	bool newest_first;		/* else oldest first */
	bool by_week;			/* stats: per week, else per day */
	bool all_lists;			/* stats: every list together (list "") */
	int automated;			/* senders: 1: only mail a machine sent
					 * (message.automated), -1: only a
					 * person's, 0: both */
	int64_t limit;			/* rows at most; 0: no limit */
	int64_t offset;			/* rows skipped first */
	/*
	 * Findings, series, patches, senders: when set, each row is
	 * handed to each(row, each_data) as it is read and freed after,
	 * and *out comes back empty, so that memory stays flat whatever
	 * the number of rows.  each returns false to stop the read.
	 */
	bool (*each)(gconstpointer row, void *each_data);
	void *each_data;
};

/* One stored finding with the patch message it is about.  Owns its strings. */
struct pw_query_finding {
	int64_t id, patch_id, message_id;
	char *msgid, *from_addr, *subject;
	int64_t date;
	char *rule;
	enum pw_severity severity;
	char *file;			/* NULL for a patch-level finding */
	int line, column;
	char *message;
	char *fix;			/* NULL when there is none */
};

/* One stored series with its counts.  Owns its strings. */
struct pw_query_series {
	int64_t id;
	char *name, *from_addr;
	int version, total;		/* total: N of "[PATCH n/N]", 0 if none */
	bool has_cover;
	int64_t first_date, last_date;
	int patches, findings;
	int64_t flood_id;		/* the flood its patches belong to, or 0 */
};

/* One stored patch.  Owns its strings. */
struct pw_query_patch {
	int64_t id, message_id;
	char *msgid, *from_name, *from_addr, *subject;
	int64_t date;			/* 0 when unknown */
	int64_t series_id;		/* 0 when none */
	int number, total, version;
	int findings;
	int64_t flood_id;		/* 0 when in none */
};

/*
 * One sender: who posted patches (the mail's From), with counts: the
 * patches, those of them with findings at the filter's min_severity or
 * above (flagged), and those findings.
 */
struct pw_query_sender {
	char *addr, *name;
	int64_t patches, findings, floods;
	int64_t flagged;
	int64_t first_date, last_date;
};

/* One period of one list (stats).  Owns its strings. */
struct pw_query_stat {
	char *period;			/* "2024-01-31" or "2024-W05", or
					 * "unknown": the messages of unknown
					 * date, last, when no date limits */
	char *list;			/* "" for mail seen on no list */
	int64_t messages, patches, findings;
	int64_t pulls;			/* pull requests: not patches */
	char **rules;			/* "RULE=N", most first, NULL-terminated */
};

/*
 * One message that could not be read or stored (an ingest error): a
 * blob missing from an archive, bytes that are not mail, a message over
 * a limit.  Owns its strings.
 */
struct pw_query_error {
	int64_t id;
	char *source;			/* the file, folder or archive read */
	char *location;			/* where in it: message N and offset,
					 * an archive's commit, a file */
	char *msgid;			/* its Message-ID when known, else NULL */
	char *error;			/* why it could not be read */
	int64_t at;			/* when, Unix time */
	int64_t kept;			/* bytes of it kept in the store */
	char *subscription;		/* the subscription whose source it is */
};

/* A stored message with what the store knows of it.  Owns everything. */
struct pw_query_message {
	int64_t id;
	char *msgid, *kind, *from_name, *from_addr;
	char *sender_name, *sender_addr;	/* NULL when the author posted it */
	char *subject, *in_reply_to;
	int64_t date;
	char **lists;			/* NULL-terminated, sorted */
	int version, number, total;
	int64_t patch_id, series_id, flood_id;	/* 0 when none */
	GPtrArray *findings;		/* struct pw_query_finding */
	GPtrArray *replies;		/* struct pw_query_reply */
};

/* One reply the bot stored about a message. */
struct pw_query_reply {
	int64_t id;
	char *kind, *state, *reason, *rcpt_to, *subject, *last_error;
	int64_t created_at, sent_at;
};

/*
 * Each read below fills *out with a new GPtrArray of its row struct
 * that frees its elements (g_ptr_array_unref), of at most f->limit rows
 * after skipping f->offset, in date order (f->newest_first).  A read
 * that fails returns its error and sets *out to NULL.
 */
enum pw_status pw_db_query_findings(struct pw_db *db,
				    const struct pw_query_filter *f,
				    GPtrArray **out);
enum pw_status pw_db_query_series(struct pw_db *db,
				  const struct pw_query_filter *f,
				  GPtrArray **out);
/* With f->series_id set: the series' patches in number order. */
enum pw_status pw_db_query_patches(struct pw_db *db,
				   const struct pw_query_filter *f,
				   GPtrArray **out);
/* Senders, most patches first. */
enum pw_status pw_db_query_senders(struct pw_db *db,
				   const struct pw_query_filter *f,
				   GPtrArray **out);
/*
 * The ingest errors, by when they happened (f: list, the list of the
 * subscription whose source it is; since, until; order and paging).
 */
enum pw_status pw_db_query_errors(struct pw_db *db,
				  const struct pw_query_filter *f,
				  GPtrArray **out);
/* Per list and day (or week), newest first unless oldest asked. */
enum pw_status pw_db_query_stats(struct pw_db *db,
				 const struct pw_query_filter *f,
				 GPtrArray **out);

/*
 * The ids of the floods that match f (list, from, since, until, limit,
 * offset, order; since and until compare the latest member's Date), into
 * *out: a new GArray of int64_t.  Read each with pw_db_flood_info().
 */
enum pw_status pw_db_query_floods(struct pw_db *db,
				  const struct pw_query_filter *f,
				  GArray **out);

/*
 * Floods per week of their first patch, oldest first: *out receives a
 * new GArray of int64_t pairs (week start as Unix time, floods), at most
 * the latest `weeks` weeks that have any.
 */
enum pw_status pw_db_query_flood_weeks(struct pw_db *db, int weeks,
				       GArray **out);

/*
 * The message with Message-ID msgid (without <>): *out is new
 * (pw_query_message_free()), NULL with *found false when there is none.
 */
enum pw_status pw_db_query_message(struct pw_db *db, const char *msgid,
				   struct pw_query_message **out, bool *found);
void pw_query_message_free(struct pw_query_message *m);

/* Findings counted by severity and by who made them. */
struct pw_finding_counts {
	int64_t findings;		/* in all */
	int64_t severity[PW_SEV_ERROR + 1];	/* by enum pw_severity */
	/* Of them, made by flood detection (FLOOD, FLOOD_SERIES,
	 * RESEND_IDENTICAL, SERIES_OVERSIZED: db/FLOODS.md), about a
	 * patch's company; the rest the patch checks made of its text. */
	int64_t flood;
};

/* Every finding in the store, into *c. */
enum pw_status pw_db_finding_counts(struct pw_db *db,
				    struct pw_finding_counts *c);

/*
 * Starts counting the findings this connection stores from now on (the
 * patch checks' and flood detection's, whatever patch they are about;
 * a transaction rolled back takes its findings out again), forgetting
 * those counted before.  pw_db_finding_tally() reads them, as they are
 * when read (a flood that grew raises its findings' severity).
 */
enum pw_status pw_db_finding_tally_start(struct pw_db *db);
enum pw_status pw_db_finding_tally(struct pw_db *db,
				   struct pw_finding_counts *c);

/*
 * What the store holds now, in a few indexed reads: the newest message,
 * finding, reply and ingest error ids, the replies pending, the last
 * poll and the maintainers' decisions taken and undone.  Two reads that give the same values saw the same messages,
 * findings, outbox, errors and subscriptions, so that an answer
 * computed at one may be given again at the other.
 */
#define PW_QUERY_GENERATION 7
enum pw_status pw_db_query_generation(struct pw_db *db,
				      int64_t gen[PW_QUERY_GENERATION]);

/*
 * Readies a read-only connection for serving many reads: the database
 * is mapped into memory (the readers share the kernel's page cache
 * instead of each copying pages into its own) and its page cache made
 * larger.  Not fatal when refused.
 */
void pw_db_query_reader_setup(struct pw_db *db);

/*
 * Makes the reads running on db, from any thread, stop soon with an
 * error (a server stopping does not wait for a long one to end).
 */
void pw_db_query_interrupt(struct pw_db *db);

/* The names of every list, sorted: a new NULL-terminated vector. */
enum pw_status pw_db_query_lists(struct pw_db *db, char ***names);

#endif
