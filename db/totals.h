/*
 * patchwarden: the totals per list and day (tables total_message and
 * total_finding, kept by triggers: db/schema.c), read by the overview
 * and the stats instead of every row, and checked against the rows.
 */
#ifndef PW_DB_TOTALS_H
#define PW_DB_TOTALS_H

#include <stdbool.h>
#include <stdint.h>

#include "db/db.h"
#include "db/query.h"

/*
 * Compares the totals with a recount from the rows: *wrong receives
 * how many totals differ (0: all right).  With repair, wrong totals
 * are made again from the rows, in one transaction.
 */
enum pw_status pw_db_totals_check(struct pw_db *db, bool repair,
				  int64_t *wrong);

/*
 * The findings in the store by severity, and flood detection's (the
 * rule IDs of flood_rules, n of them), from the totals, into *c.
 */
enum pw_status pw_db_totals_finding_counts(struct pw_db *db,
					   const char *const *flood_rules,
					   int n, struct pw_finding_counts *c);

#endif
