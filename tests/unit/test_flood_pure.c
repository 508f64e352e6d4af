/*
 * Unit tests for checks/flood.c: the decisions of flood grouping, with
 * no store: keys, a group's state as patches join and groups merge, the
 * choice of the group a patch joins, the rank that only rises and the
 * count within the window that makes a flood.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "checks/flood.h"

static void keys(void **state)
{
	int64_t k = pw_flood_key(PW_FLOOD_K_SUBJECT, "Ann@Example.org", "fix");

	/* The sender's case does not matter; the kind, the sender and the
	 * digest do. */
	assert_true(k == pw_flood_key(PW_FLOOD_K_SUBJECT, "ann@example.org", "fix"));
	assert_true(k != pw_flood_key(PW_FLOOD_K_BODY, "ann@example.org", "fix"));
	assert_true(k != pw_flood_key(PW_FLOOD_K_SUBJECT, "bob@example.org", "fix"));
	assert_true(k != pw_flood_key(PW_FLOOD_K_SUBJECT, "ann@example.org", "Fix"));
	/* The NUL between sender and digest: "ab"+"c" is not "a"+"bc". */
	assert_true(pw_flood_key(0, "ab", "c") != pw_flood_key(0, "a", "bc"));
	/* Keys are stored: their value is fixed (FNV-1a of 01 'a' 00 'b'). */
	assert_true(pw_flood_key(0, "A", "b") == INT64_C(-3818059109991712651));

	/* Weeks: the epoch starts week 0, a second before it week -1. */
	assert_int_equal(pw_flood_bucket(0), 0);
	assert_int_equal(pw_flood_bucket(PW_FLOOD_BUCKET - 1), 0);
	assert_int_equal(pw_flood_bucket(PW_FLOOD_BUCKET), 1);
	assert_int_equal(pw_flood_bucket(-1), -1);
	assert_int_equal(pw_flood_bucket(-PW_FLOOD_BUCKET), -1);
	assert_int_equal(pw_flood_bucket(-PW_FLOOD_BUCKET - 1), -2);
}

static void grow_and_merge(void **state)
{
	struct pw_flood_group a, b;

	pw_flood_group_init(&a, 10, false, 0, 1000);
	assert_int_equal(a.size, 1);
	assert_int_equal(a.rank, -1);
	assert_false(a.detected);
	pw_flood_group_add(&a, true, 5, 1u << PW_FLOOD_K_BODY, 900);
	pw_flood_group_add(&a, false, 3, 1u << PW_FLOOD_K_SHAPE, 2000);
	assert_int_equal(a.size, 3);
	assert_int_equal(a.nthreaded, 1);
	assert_int_equal(a.claimed, 5);
	assert_int_equal(a.shared, (1u << PW_FLOOD_K_BODY) | (1u << PW_FLOOD_K_SHAPE));
	assert_int_equal(a.first, 900);
	assert_int_equal(a.last, 2000);

	/* A group that is no flood joins: counts add, no rewrite. */
	pw_flood_group_init(&b, 20, true, 7, 500);
	b.reported_at = 3000;
	assert_false(pw_flood_group_merge(&a, &b));
	assert_int_equal(a.size, 4);
	assert_int_equal(a.nthreaded, 2);
	assert_int_equal(a.claimed, 7);
	assert_int_equal(a.first, 500);
	assert_int_equal(a.reported_at, 3000);

	/* Two floods: the merged one keeps the higher rank, the earlier
	 * detection and report, and every member is rewritten. */
	a.detected = true;
	a.detected_at = 4000;
	a.rank = PW_FLOOD_RANK_SERIES;
	a.ncovered = 2;
	b.detected = true;
	b.detected_at = 3500;
	b.rank = PW_FLOOD_RANK_CHAINED;
	b.ncovered = 1;
	b.reported_at = 2500;
	assert_true(pw_flood_group_merge(&a, &b));
	assert_int_equal(a.rank, PW_FLOOD_RANK_CHAINED);
	assert_int_equal(a.detected_at, 3500);
	assert_int_equal(a.ncovered, 3);
	assert_int_equal(a.reported_at, 2500);
}

static void choice(void **state)
{
	struct pw_flood_group big = { .id = 5, .size = 9 };
	struct pw_flood_group old = { .id = 2, .size = 3 };
	struct pw_flood_group same = { .id = 7, .size = 9 };
	struct pw_flood_group flood = { .id = 8, .size = 2, .detected = true };
	struct pw_flood_group older = { .id = 6, .size = 1, .detected = true };
	struct pw_flood_found fd = { .n = 0 };

	/* The largest, of two as large the oldest; a flood before any. */
	assert_true(pw_flood_group_better(&big, &old));
	assert_false(pw_flood_group_better(&old, &big));
	assert_true(pw_flood_group_better(&big, &same));
	assert_false(pw_flood_group_better(&same, &big));
	assert_true(pw_flood_group_better(&flood, &big));
	assert_false(pw_flood_group_better(&big, &flood));
	assert_true(pw_flood_group_better(&older, &flood));

	/* A group found by several keys is listed once, with their bits. */
	pw_flood_found_add(&fd, 5, 1u << PW_FLOOD_K_SUBJECT);
	pw_flood_found_add(&fd, 8, 1u << PW_FLOOD_K_SUBJECT);
	pw_flood_found_add(&fd, 5, 1u << PW_FLOOD_K_BODY);
	assert_int_equal(fd.n, 2);
	assert_int_equal(fd.grps[0], 5);
	assert_int_equal(fd.bits[0], (1u << PW_FLOOD_K_SUBJECT) | (1u << PW_FLOOD_K_BODY));
	assert_int_equal(fd.bits[1], 1u << PW_FLOOD_K_SUBJECT);
}

static void promotion_and_rank(void **state)
{
	struct pw_flood_group g;

	pw_flood_group_init(&g, 1, false, 0, 100);
	g.size = 4;
	/* Fewer members than count: no need to count the window. */
	assert_false(pw_flood_group_may_flood(&g, 5));
	assert_true(pw_flood_group_may_flood(&g, 4));
	/* Members outside the window do not count. */
	assert_false(pw_flood_group_promote(&g, 3, 4, 200));
	assert_false(g.detected);
	assert_true(pw_flood_group_promote(&g, 4, 4, 200));
	assert_true(g.detected);
	assert_int_equal(g.detected_at, 200);
	assert_int_equal(g.ncovered, 0);
	/* A flood is not promoted again, nor counted. */
	assert_false(pw_flood_group_may_flood(&g, 4));
	assert_false(pw_flood_group_promote(&g, 9, 4, 300));
	assert_int_equal(g.detected_at, 200);

	/* Its first rank is no rise; separate patches rank SEPARATE. */
	assert_false(pw_flood_group_raise(&g));
	assert_int_equal(g.rank, PW_FLOOD_RANK_SEPARATE);
	/* Covered members would make it FLOOD_SERIES: a rank never falls. */
	g.ncovered = 4;
	assert_false(pw_flood_group_raise(&g));
	assert_int_equal(g.rank, PW_FLOOD_RANK_SEPARATE);
	/* From SERIES, threaded members without cover make it rise. */
	g.rank = PW_FLOOD_RANK_SERIES;
	g.ncovered = 0;
	g.nthreaded = 4;
	assert_true(pw_flood_group_raise(&g));
	assert_int_equal(g.rank, PW_FLOOD_RANK_CHAINED);

	/* A stored rank outside the enum reads as its nearest end. */
	assert_int_equal(pw_flood_rank_clamp(-1), PW_FLOOD_RANK_SERIES);
	assert_int_equal(pw_flood_rank_clamp(2), PW_FLOOD_RANK_CHAINED);
	assert_int_equal(pw_flood_rank_clamp(99), PW_FLOOD_RANK_SEPARATE);
}

static void area_is(const char *diff, const char *want)
{
	char *a = pw_flood_area(diff);

	assert_string_equal(a, want);
	g_free(a);
}

/*
 * Burst or campaign (checks/floodrules.h): the owner's three real cases
 * by their figures, and the subsystem a diff reaches.
 */
static void pace(void **state)
{
	/* linux-watchdog, 30-31 December 2022: 4 then 17 patches, at most
	 * 13 within six hours (seconds after the first). */
	static const int64_t jaillet[] = {
		0, 218, 529, 1025, 55480, 55669, 56255, 56386, 65097, 66052,
		66435, 66885, 67308, 71607, 72122, 73118, 73507, 78467, 78615,
		78769, 80975,
	};
	int64_t minutes[32];
	char *a;
	int i;

	assert_false(pw_flood_burst(jaillet, 21, 6 * 3600, 20));
	assert_true(pw_flood_burst(jaillet, 21, 6 * 3600, 13));
	assert_false(pw_flood_burst(jaillet, 21, 6 * 3600, 14));
	assert_true(pw_flood_burst(jaillet, 21, 2 * 86400, 20));
	assert_true(pw_flood_burst(jaillet, 21, 0, 21));
	assert_false(pw_flood_burst(jaillet, 21, 0, 22));
	/* 32 patches between 15:30 and 15:34. */
	for (i = 0; i < 32; i++)
		minutes[i] = i * 240 / 31;
	assert_true(pw_flood_burst(minutes, 32, 6 * 3600, 20));

	assert_int_equal(pw_flood_pace(19, 20, true, 9, 3), PW_FLOOD_PACE_NONE);
	assert_int_equal(pw_flood_pace(21, 20, false, 1, 3), PW_FLOOD_PACE_CAMPAIGN);
	assert_int_equal(pw_flood_pace(21, 20, true, 1, 3), PW_FLOOD_PACE_BURST);
	/* The 2016 shape: dozens of lists in days, whatever its rate. */
	assert_int_equal(pw_flood_pace(21, 20, false, 3, 3), PW_FLOOD_PACE_BURST);
	assert_int_equal(pw_flood_pace(21, 20, false, 30, 0), PW_FLOOD_PACE_CAMPAIGN);

	area_is("diff --git a/drivers/watchdog/lpc18xx_wdt.c"
		" b/drivers/watchdog/lpc18xx_wdt.c\n+++ b/x\n", "drivers/watchdog");
	/* Headers and documentation give way to the code they go with; an
	 * added line "++ b/x" is no header in a git diff. */
	area_is("diff --git a/include/linux/a.h b/include/linux/a.h\n"
		"+++ b/fs/x.c\n"
		"diff --git a/sound/soc/codecs/b.c b/sound/soc/codecs/b.c\n",
		"sound/soc");
	area_is("--- a/Makefile\n+++ b/Makefile\n@@ -1 +1 @@\n", "Makefile");
	area_is("--- a/fs/x.c\n+++ /dev/null\n", "");
	area_is(NULL, "");
	a = pw_flood_campaign_pace(21, 0, 80975);
	assert_string_equal(a, "21 patches over 22 hours");
	g_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys),
		cmocka_unit_test(grow_and_merge),
		cmocka_unit_test(choice),
		cmocka_unit_test(promotion_and_rank),
		cmocka_unit_test(pace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
