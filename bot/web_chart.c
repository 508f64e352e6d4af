/*
 * patchwarden: the dashboard's charts as inline SVG (see
 * bot/web_chart.h).
 */
#include <string.h>

#include "bot/web_chart.h"
#include "bot/web_html.h"
#include "checks/rules.h"

#define W 760			/* the image */
#define H 210
#define LEFT 52			/* room for the scale */
#define RIGHT 12
#define TOP 16
#define BOTTOM 34		/* room for the time axis */
#define PLOT_W (W - LEFT - RIGHT)
#define PLOT_H (H - TOP - BOTTOM)

static const char *const palette[] = {
	"#c0392b", "#e67e22", "#f1c40f", "#27ae60", "#16a085", "#2980b9",
	"#8e44ad", "#7f8c8d", "#d35400", "#2c3e50", "#e84393", "#00b894",
	"#6c5ce7", "#fdcb6e", "#636e72", "#b33939",
};

static const char *rule_color(const char *rule)
{
	const struct pw_rule *t;
	size_t n, i;

	if (!rule)
		return "#c0392b";
	t = pw_rules(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(t[i].id, rule))
			return palette[i % G_N_ELEMENTS(palette)];
	return "#999";
}

enum pw_chart_step pw_web_chart_step_for(int64_t first, int64_t last)
{
	int64_t days = (last - first) / 86400;

	if (days <= 92)
		return PW_CHART_DAY;
	if (days <= 2 * 366)
		return PW_CHART_WEEK;
	return PW_CHART_MONTH;
}

static const char *step_name(enum pw_chart_step s)
{
	return s == PW_CHART_DAY ? "day" : s == PW_CHART_WEEK ? "week" : "month";
}

/* "2024-03-05" (day, week) or "2024-03" (month) of t, UTC: new string. */
static char *period_of(enum pw_chart_step s, int64_t t)
{
	GDateTime *d = g_date_time_new_from_unix_utc(t);
	char *r;

	if (!d)
		return g_strdup("?");
	r = g_date_time_format(d, s == PW_CHART_MONTH ? "%Y-%m" : "%Y-%m-%d");
	g_date_time_unref(d);
	return r;
}

static double x_of(const struct pw_web_chart *c, int64_t t)
{
	double span = (double)MAX(c->end - c->start, 1);

	return LEFT + (double)(t - c->start) * PLOT_W / span;
}

/*
 * A round step for a scale up to max: 1, 2 or 5 times a power of ten,
 * so that the scale has at most five steps.
 */
static int64_t nice_step(int64_t max)
{
	int64_t p = 1;

	for (;;) {
		if (max <= 5 * p)
			return p;
		if (max <= 10 * p)
			return 2 * p;
		if (max <= 25 * p)
			return 5 * p;
		p *= 10;
	}
}

/* The dated ticks of the time axis: years, months or weeks. */
static void time_axis(GString *o, const struct pw_web_chart *c)
{
	int64_t days = (c->end - c->start) / 86400, t;
	enum pw_chart_step tick;
	int every = 1, i = 0;

	if (days > 3 * 366) {
		tick = PW_CHART_MONTH;
		every = 12;		/* years: January only */
	} else if (days > 92) {
		tick = PW_CHART_MONTH;
		every = days > 366 ? 3 : 1;
	} else {
		tick = PW_CHART_WEEK;
		every = days > 35 ? 2 : 1;
	}
	g_string_append_printf(o, "<g class=\"x-axis\"><line x1=\"%d\" y1=\"%d\""
			       " x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>",
			       LEFT, TOP + PLOT_H, LEFT + PLOT_W, TOP + PLOT_H);
	t = pw_chart_step_start(tick, c->start);
	if (t < c->start)
		t = pw_chart_step_next(tick, t);
	for (; t < c->end; t = pw_chart_step_next(tick, t)) {
		GDateTime *d = g_date_time_new_from_unix_utc(t);
		int month;
		bool show;

		if (!d)
			break;
		month = g_date_time_get_month(d);
		if (tick == PW_CHART_WEEK)
			show = i++ % every == 0;
		else if (every == 12)
			show = month == 1;
		else
			show = (month - 1) % every == 0;
		if (show) {
			char *label = g_date_time_format(d, every == 12 ? "%Y" :
							 tick == PW_CHART_MONTH ?
							 "%Y-%m" : "%m-%d");
			double x = x_of(c, t);

			g_string_append_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\""
					       " y2=\"%d\" stroke=\"#444\"/>"
					       "<text class=\"tick\" x=\"%.1f\" y=\"%d\""
					       " font-size=\"10\" text-anchor=\"middle\">%s</text>",
					       x, TOP + PLOT_H, x, TOP + PLOT_H + 4,
					       x, TOP + PLOT_H + 15, label);
			g_free(label);
		}
		g_date_time_unref(d);
	}
	g_string_append(o, "</g>");
}

/* The scale of counts, 0 to top in steps of step, with grid lines. */
static void count_axis(GString *o, int64_t top, int64_t step)
{
	int64_t v;

	g_string_append_printf(o, "<g class=\"y-axis\"><line x1=\"%d\" y1=\"%d\""
			       " x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>",
			       LEFT, TOP, LEFT, TOP + PLOT_H);
	for (v = 0; v <= top; v += step) {
		double y = TOP + PLOT_H - (double)v * PLOT_H / (double)top;

		g_string_append_printf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\""
				       " y2=\"%.1f\" stroke=\"#ddd\"/>"
				       "<text class=\"tick\" x=\"%d\" y=\"%.1f\""
				       " font-size=\"10\" text-anchor=\"end\">%"
				       G_GINT64_FORMAT "</text>",
				       LEFT, y, LEFT + PLOT_W, y, LEFT - 4, y + 3,
				       (gint64)v);
	}
	g_string_append(o, "</g>");
}

void pw_web_chart_svg(GString *o, const struct pw_web_chart *c)
{
	GHashTable *totals = g_hash_table_new_full(g_int64_hash, g_int64_equal,
						   g_free, g_free);
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	GHashTable *stacked = g_hash_table_new_full(g_int64_hash, g_int64_equal,
						    g_free, g_free);
	int64_t max = 0, top, step, sum = 0;
	guint i;

	for (i = 0; i < c->points->len; i++) {
		const struct pw_chart_point *p = c->points->pdata[i];
		int64_t *tot = g_hash_table_lookup(totals, &p->t);

		if (!tot) {
			int64_t *k = g_new(int64_t, 1);

			*k = p->t;
			tot = g_new0(int64_t, 1);
			g_hash_table_insert(totals, k, tot);
		}
		*tot += p->n;
		sum += p->n;
		max = MAX(max, *tot);
	}
	step = nice_step(MAX(max, 1));
	top = ((MAX(max, 1) + step - 1) / step) * step;
	g_string_append_printf(o, "<svg class=\"chart\" role=\"img\" aria-label=\"%s"
			       " per %s\" data-total=\"%" G_GINT64_FORMAT "\""
			       " width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
			       " xmlns=\"http://www.w3.org/2000/svg\">"
			       "<text x=\"%d\" y=\"10\" font-size=\"11\">%s per %s"
			       "</text>",
			       c->label, step_name(c->step), (gint64)sum, W, H, W, H,
			       LEFT, c->label, step_name(c->step));
	count_axis(o, top, step);
	for (i = 0; i < c->points->len; i++) {
		const struct pw_chart_point *p = c->points->pdata[i];
		int64_t *below = g_hash_table_lookup(stacked, &p->t);
		double x0, x1, h, y;
		char *period;

		if (p->t < c->start || p->t >= c->end || p->n <= 0)
			continue;
		if (!below) {
			int64_t *k = g_new(int64_t, 1);

			*k = p->t;
			below = g_new0(int64_t, 1);
			g_hash_table_insert(stacked, k, below);
		}
		x0 = x_of(c, p->t);
		x1 = x_of(c, MIN(pw_chart_step_next(c->step, p->t), c->end));
		h = (double)p->n * PLOT_H / (double)top;
		y = TOP + PLOT_H - (double)(*below + p->n) * PLOT_H / (double)top;
		*below += p->n;
		period = period_of(c->step, p->t);
		g_string_append_printf(o, "<rect class=\"bar\" data-n=\"%" G_GINT64_FORMAT
				       "\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\""
				       " height=\"%.2f\" fill=\"%s\"><title>%s: %"
				       G_GINT64_FORMAT " %s", (gint64)p->n, x0, y,
				       MAX(x1 - x0 - 0.5, 1.0), MAX(h, 0.5),
				       c->by_rule ? rule_color(p->key) : "#c0392b",
				       period, (gint64)p->n, c->label);
		if (p->key) {
			g_string_append(o, " (");
			pw_web_esc(o, p->key);
			g_string_append_c(o, ')');
			g_hash_table_add(seen, p->key);
		}
		g_string_append(o, "</title></rect>");
		g_free(period);
	}
	if (!sum)
		g_string_append_printf(o, "<text x=\"%d\" y=\"%d\" font-size=\"12\""
				       " text-anchor=\"middle\" fill=\"#555\">none"
				       " in this period</text>",
				       LEFT + PLOT_W / 2, TOP + PLOT_H / 2);
	time_axis(o, c);
	g_string_append(o, "</svg>\n");
	if (c->by_rule && g_hash_table_size(seen)) {
		const struct pw_rule *t;
		size_t n, k;

		g_string_append(o, "<p class=\"legend\">");
		t = pw_rules(&n);
		for (k = 0; k < n; k++)
			if (g_hash_table_contains(seen, t[k].id))
				g_string_append_printf(o, "<span style=\"background:%s\">"
						       "</span>%s", rule_color(t[k].id),
						       t[k].id);
		g_string_append(o, "</p>\n");
	}
	g_hash_table_destroy(seen);
	g_hash_table_destroy(stacked);
	g_hash_table_destroy(totals);
}
