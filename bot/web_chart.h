/*
 * patchwarden: the dashboard's charts, drawn on the server as inline
 * SVG (no script, nothing loaded from elsewhere: the dashboard works
 * offline), and the subscriptions' table and JSON.  bot/web_page.c
 * reads the store and frames the pages; nothing here calls back.
 */
#ifndef PW_WEB_CHART_H
#define PW_WEB_CHART_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "db/chart.h"

/* One chart: bars on a time axis, stacked by key. */
struct pw_web_chart {
	const char *label;		/* what a bar counts: "findings" */
	int64_t start, end;		/* the axis: [start, end), Unix time */
	enum pw_chart_step step;	/* what one bar spans */
	GPtrArray *points;		/* struct pw_chart_point, borrowed */
	bool by_rule;			/* keys are rule IDs: coloured, with
					 * a legend */
};

/*
 * Appends chart c to o as an SVG image: bars placed by their time on
 * the axis (a day, week or month without any is a gap), an axis of
 * time below with dated ticks, a scale of counts on the left, and a
 * title per bar with its period and count.  Every bar is a <rect
 * class="bar"> carrying data-n (its count), for tests that compare a
 * chart with the numbers behind it.
 */
void pw_web_chart_svg(GString *o, const struct pw_web_chart *c);

/* The step that draws [first, last] in a readable number of bars. */
enum pw_chart_step pw_web_chart_step_for(int64_t first, int64_t last);

/*
 * The subscriptions subs (struct pw_subscription *) for
 * /subscriptions, appended to o: an HTML table of each one's state,
 * last poll (when, and how it ended), last success, next poll,
 * messages brought and unreadable messages (linked to /errors); or,
 * for /api/subscriptions, the same as a JSON array (json-glib).  The
 * state and its reason are pw_subscription_state()'s at now under
 * [web] stale_after; *until is lowered (from 0: set) to when what was
 * written goes out of date.
 */
void pw_web_subscriptions_html(GString *o, GPtrArray *subs, int stale_after,
			       int64_t now, int64_t *until);
void pw_web_subscriptions_json(GString *o, GPtrArray *subs, int stale_after,
			       int64_t now, int64_t *until);

#endif
