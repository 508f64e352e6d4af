/*
 * patchwarden: the maintainers' reports, one definition for both of
 * their front ends: "patchwarden query KIND" takes the filters as
 * options, the dashboard's /api/KIND and pages as query parameters, by
 * the same names (list, from, since, until, rule, ...), validated here
 * once; and each kind's rows go through the one printer (text, JSON,
 * CSV, or HTML rows for the dashboard) from here.
 */
#ifndef PW_REPORT_H
#define PW_REPORT_H

#include <stdbool.h>

#include "bot/printer.h"
#include "db/db.h"
#include "db/query.h"

enum pw_report_kind {
	PW_REPORT_SERIES,
	PW_REPORT_PATCHES,
	PW_REPORT_FINDINGS,
	PW_REPORT_FLOODS,
	PW_REPORT_SENDERS,
	PW_REPORT_STATS,
	PW_REPORT_ERRORS,	/* messages that could not be read or stored */
	PW_REPORT_ATTENTION,	/* the worklist: db/attention.h */
};

/*
 * The least severe findings shown unless asked otherwise (severity=info,
 * --severity info, shows every finding): info findings, most of them
 * flood detection's notes on large series and resends, are hidden by
 * default from the findings and stats reports, the overview, and the
 * findings listed on a message's and a series' pages.  A rule asked for
 * by name (rule=, --rule) is shown at every severity unless severity is
 * given too: who names RESEND_IDENTICAL wants its notes.
 */
#define PW_REPORT_MIN_SEVERITY PW_SEV_WARNING

/* One report asked for: its kind and its filters (owned copies). */
struct pw_report {
	enum pw_report_kind kind;
	struct pw_query_filter f;
	char *message;			/* floods: the flood of this Message-ID */
	int64_t max_limit;		/* largest limit accepted, 0: none */
	GPtrArray *strings;		/* what f's strings point into */
	bool severity_given;		/* severity was among the filters */
};

/*
 * A new report of the kind named (series, patches, findings, floods,
 * senders, stats, errors, attention) with the defaults of a front end:
 * rows per page (limit, 0: all), the largest limit a caller may ask,
 * and the order.
 * NULL with a reason in *err (new) for an unknown kind.
 */
struct pw_report *pw_report_new(const char *kind, int64_t limit,
				int64_t max_limit, bool newest_first,
				char **err);
void pw_report_free(struct pw_report *r);

/*
 * Sets the filter key (list, from, since, until, rule, severity, path,
 * version, has-findings, state, series, per, order, limit, offset,
 * message, age: since as an age, "30d") to value, checked against what the kind takes and what the
 * store holds (a list must be known to it, hence db).  False with a
 * short reason in *err (new) that names what is valid.
 */
bool pw_report_set(struct pw_report *r, struct pw_db *db, const char *key,
		   const char *value, char **err);

/*
 * Prints the versions of series_id's lineage (db/lineage.h), oldest
 * first, to p as one list of records: each version's series, what
 * linked it, its patches' states, its findings at min and above and
 * how many of the previous version's it fixed, kept or added (series
 * with the filter series = ID).
 */
enum pw_status pw_report_lineage(struct pw_db *db, int64_t series_id,
				 enum pw_severity min, struct pw_printer *p);

/* The layouts of a lineage's rows (bot/report_lineage.c). */
enum pw_report_lineage_part {
	PW_LINEAGE_TEXT, PW_LINEAGE_HTML_ROW, PW_LINEAGE_HTML_HEAD,
};
const char *pw_report_lineage_layout(enum pw_report_lineage_part part);

/*
 * The text layout, HTML row and HTML table head of r's rows: its
 * kind's (pw_report_layout(), pw_report_html_row(),
 * pw_report_html_head()), or a lineage's (series with series = ID).
 */
const char *pw_report_layout_of(const struct pw_report *r);
const char *pw_report_html_row_of(const struct pw_report *r);
const char *pw_report_html_head_of(const struct pw_report *r);

/* Whether the kind takes the filter key. */
bool pw_report_takes(const struct pw_report *r, const char *key);

/*
 * Reads the report's rows from db and prints them to p as one list of
 * records.  *more (may be NULL) says whether rows lie beyond the page.
 * Returns the store's error (pw_db_errmsg()), or PW_ERR_INPUT with a
 * reason in *err for a Message-ID the store does not know.
 */
enum pw_status pw_report_print(struct pw_db *db, const struct pw_report *r,
			       struct pw_printer *p, bool *more, char **err);

/*
 * The number of patches of the worklist under r's filters (attention),
 * whatever its limit and offset, into *total.
 */
enum pw_status pw_report_attention_total(struct pw_db *db,
					 const struct pw_report *r,
					 int64_t *total);

struct pw_outbox_row;

/*
 * Prints one stored reply as a record ("outbox list" and "show", the
 * dashboard's outbox), its raw message too when r holds it.  Times are
 * Unix times.
 */
void pw_report_outbox_row(struct pw_printer *p, const struct pw_outbox_row *r);

struct pw_ingest_counts;

/*
 * Prints what one ingest, run or poll stored: c, then the findings it
 * stored (fc: the patch checks' and flood detection's), as one line
 * "[NAME: ]messages=N ... errors=N findings=N findings_error=N
 * findings_warning=N findings_info=N findings_flood=N" or, with json,
 * one object.  name (a subscription), the "removed" count (polls) and
 * error (a poll that failed: a second line in text) appear when given.
 */
void pw_report_stored(FILE *out, const char *name,
		      const struct pw_ingest_counts *c,
		      const struct pw_finding_counts *fc, bool removed,
		      const char *error, bool json);

/* The findings_* keys of fc into n[0..4] (for pw_print_counts). */
void pw_report_finding_counts(const struct pw_finding_counts *fc,
			      struct pw_count n[5]);

/* The text layout of the kind's rows (PW_FORMAT_TEXT). */
const char *pw_report_layout(enum pw_report_kind kind);
/* The HTML table row of the kind's records, and its header row. */
const char *pw_report_html_row(enum pw_report_kind kind);
const char *pw_report_html_head(enum pw_report_kind kind);

/* Prints one finding as a record (the message page and /api/check). */
void pw_report_finding(struct pw_printer *p, const struct pw_query_finding *q);

/*
 * Prints stored message m, its findings, flood and replies, and, when
 * mail is not NULL, what was read from its raw bytes (commit message,
 * diff), as one record.
 */
void pw_report_message(struct pw_printer *p, const struct pw_query_message *m,
		       const char *commit_msg, const char *diff);

#endif
