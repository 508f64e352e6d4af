/*
 * Unit tests for the dashboard's charts: the steps of a time axis
 * (db/chart.c: days from midnight UTC, weeks from Monday, calendar
 * months) and the SVG of bot/web_chart.c: bars placed by their time
 * (a period without any is a gap), a round scale, an empty chart said
 * to be empty, and a rule ID escaped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "bot/web_chart.h"
#include "db/chart.h"

/* 2024-02-29T13:14:15Z, a Thursday of a leap year. */
#define LEAP_DAY 1709212455

static void steps(void **state)
{
	(void)state;
	assert_int_equal(pw_chart_step_start(PW_CHART_DAY, LEAP_DAY), 1709164800);
	assert_int_equal(pw_chart_step_next(PW_CHART_DAY, LEAP_DAY), 1709251200);
	/* Monday 2024-02-26. */
	assert_int_equal(pw_chart_step_start(PW_CHART_WEEK, LEAP_DAY), 1708905600);
	assert_int_equal(pw_chart_step_next(PW_CHART_WEEK, LEAP_DAY), 1709510400);
	/* 2024-02-01 and 2024-03-01: a month of 29 days. */
	assert_int_equal(pw_chart_step_start(PW_CHART_MONTH, LEAP_DAY), 1706745600);
	assert_int_equal(pw_chart_step_next(PW_CHART_MONTH, LEAP_DAY), 1709251200);
	/* A step's start is its own start. */
	assert_int_equal(pw_chart_step_start(PW_CHART_WEEK, 1708905600), 1708905600);
	/* Spans: days up to three months, weeks up to two years. */
	assert_int_equal(pw_web_chart_step_for(0, 60 * 86400), PW_CHART_DAY);
	assert_int_equal(pw_web_chart_step_for(0, 400 * 86400), PW_CHART_WEEK);
	assert_int_equal(pw_web_chart_step_for(0, 3000 * 86400), PW_CHART_MONTH);
}

static struct pw_chart_point *point(int64_t t, const char *key, int64_t n)
{
	struct pw_chart_point *p = g_new0(struct pw_chart_point, 1);

	p->t = t;
	p->key = g_strdup(key);
	p->n = n;
	return p;
}

static void point_free(gpointer p)
{
	g_free(((struct pw_chart_point *)p)->key);
	g_free(p);
}

/* The x of the bars of svg, in order. */
static GArray *bar_xs(const char *svg)
{
	GArray *xs = g_array_new(FALSE, FALSE, sizeof(double));
	const char *s = svg;

	while ((s = strstr(s, "<rect class=\"bar\""))) {
		double x = g_ascii_strtod(strstr(s, " x=\"") + 4, NULL);

		g_array_append_val(xs, x);
		s++;
	}
	return xs;
}

static void bars_by_time(void **state)
{
	int64_t day0 = 1704067200;	/* 2024-01-01, a Monday */
	GPtrArray *pts = g_ptr_array_new_with_free_func(point_free);
	struct pw_web_chart c = {
		.label = "findings", .start = day0, .end = day0 + 30 * 86400,
		.step = PW_CHART_DAY, .points = pts, .by_rule = true,
	};
	GString *o = g_string_new(NULL);
	GArray *xs;
	double d1, d2;

	(void)state;
	/* Days 0, 1 and 21: the third bar stands twenty days on. */
	g_ptr_array_add(pts, point(day0, "PERM_SYMBOLIC", 3));
	g_ptr_array_add(pts, point(day0 + 86400, "PERM_SYMBOLIC", 7));
	g_ptr_array_add(pts, point(day0 + 21 * 86400, "<b>", 1));
	pw_web_chart_svg(o, &c);
	xs = bar_xs(o->str);
	assert_int_equal(xs->len, 3);
	d1 = g_array_index(xs, double, 1) - g_array_index(xs, double, 0);
	d2 = g_array_index(xs, double, 2) - g_array_index(xs, double, 1);
	assert_true(d1 > 0);
	assert_true(d2 > 19.9 * d1 && d2 < 20.1 * d1);
	/* The scale: 7 at most, in steps of 2 up to 8. */
	assert_non_null(strstr(o->str, "text-anchor=\"end\">8</text>"));
	assert_non_null(strstr(o->str, "text-anchor=\"end\">2</text>"));
	assert_null(strstr(o->str, "text-anchor=\"end\">10</text>"));
	/* The total, each bar's count and period, and a dated axis. */
	assert_non_null(strstr(o->str, "data-total=\"11\""));
	assert_non_null(strstr(o->str, "<title>2024-01-02: 7 findings (PERM_SYMBOLIC)</title>"));
	assert_non_null(strstr(o->str, "<g class=\"x-axis\">"));
	assert_non_null(strstr(o->str, ">01-08</text>"));
	/* A key is text. */
	assert_null(strstr(o->str, "<b>"));
	assert_non_null(strstr(o->str, "(&lt;b&gt;)"));
	assert_null(strstr(o->str, "none in this period"));
	g_array_free(xs, TRUE);
	g_string_free(o, TRUE);
	g_ptr_array_unref(pts);
}

static void outside_and_empty(void **state)
{
	GPtrArray *pts = g_ptr_array_new_with_free_func(point_free);
	struct pw_web_chart c = {
		.label = "floods", .start = 1704067200,
		.end = 1704067200 + 7 * 86400, .step = PW_CHART_DAY,
		.points = pts,
	};
	GString *o = g_string_new(NULL);

	(void)state;
	pw_web_chart_svg(o, &c);
	assert_non_null(strstr(o->str, "none in this period"));
	assert_null(strstr(o->str, "class=\"bar\""));
	/* A point off the axis (a date from a wrong clock) draws no bar
	 * and leaves the axis where it is. */
	g_ptr_array_add(pts, point(3644000000, NULL, 5));
	g_string_truncate(o, 0);
	pw_web_chart_svg(o, &c);
	assert_null(strstr(o->str, "class=\"bar\""));
	assert_null(strstr(o->str, "2085"));
	g_string_free(o, TRUE);
	g_ptr_array_unref(pts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(steps),
		cmocka_unit_test(bars_by_time),
		cmocka_unit_test(outside_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
