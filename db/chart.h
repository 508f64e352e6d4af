/*
 * patchwarden: the numbers behind the dashboard's charts, per day, week
 * or month of a real time axis, over the dates a store can be trusted
 * with.  A message's Date is what its sender's clock said: stores made
 * before dates outside 1990..now were kept as unknown hold such dates
 * (1970, 2085), and one of them would stretch an axis over decades of
 * nothing.  The axis is therefore bounded by sane dates and says how
 * many messages lie outside it.
 */
#ifndef PW_DB_CHART_H
#define PW_DB_CHART_H

#include <stdint.h>
#include <glib.h>

#include "checks/patch.h"
#include "db/db.h"

/* The earliest date taken as real: 1990-01-01, as ingest takes it. */
#define PW_CHART_EPOCH 631152000

/* The length of a chart's bars: what each one counts. */
enum pw_chart_step {
	PW_CHART_DAY,
	PW_CHART_WEEK,		/* Monday to Sunday, UTC */
	PW_CHART_MONTH,
};

/* The span of a store's sane dates. */
struct pw_chart_range {
	int64_t first, last;	/* oldest and newest sane date; 0 when none */
	int64_t outside;	/* messages dated before 1990 or after now + 1 day */
};

/* Reads the span of the messages dated from 1990 to now + 1 day into *r. */
enum pw_status pw_db_chart_range(struct pw_db *db, int64_t now,
				 struct pw_chart_range *r);

/* One bar of a chart (or one part of a stacked bar). */
struct pw_chart_point {
	int64_t t;		/* start of its day, week or month, Unix time */
	char *key;		/* the rule it counts, or NULL */
	int64_t n;
};

/*
 * Findings at min severity or above of the patches dated in [since,
 * until), per step and rule: *out is a new GPtrArray of struct
 * pw_chart_point that frees them, by time.  since and until are whole
 * days (a step's start): the totals per list and day answer.
 */
enum pw_status pw_db_chart_findings(struct pw_db *db, enum pw_chart_step step,
				    int64_t since, int64_t until,
				    enum pw_severity min, GPtrArray **out);

/* Floods by the step their first patch came in, likewise (key NULL). */
enum pw_status pw_db_chart_floods(struct pw_db *db, enum pw_chart_step step,
				  int64_t since, int64_t until,
				  GPtrArray **out);

/* The start of the step holding t (UTC), and the start of the next one. */
int64_t pw_chart_step_start(enum pw_chart_step step, int64_t t);
int64_t pw_chart_step_next(enum pw_chart_step step, int64_t t);

#endif
