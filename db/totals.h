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
 * The totals as the rows make them: (list, day, kind, n) and (list,
 * day, rule, severity, n), list 0 every list together, -1 no list.
 * What their migration fills them with and "db check" compares.
 */
#define PW_TOTALS_RECOUNT_MESSAGES \
	"SELECT 0, coalesce(date / 86400, -1), kind, count(*) FROM message" \
	" GROUP BY 2, 3 UNION ALL SELECT ml.list, coalesce(m.date / 86400, -1)," \
	" m.kind, count(*) FROM message_list ml JOIN message m" \
	" ON m.id = ml.message GROUP BY 1, 2, 3 UNION ALL SELECT -1," \
	" coalesce(date / 86400, -1), kind, count(*) FROM message m" \
	" WHERE NOT EXISTS (SELECT 1 FROM message_list WHERE message = m.id)" \
	" GROUP BY 2, 3"
#define PW_TOTALS_RECOUNT_FINDINGS \
	"SELECT 0, coalesce(m.date / 86400, -1), f.rule, f.severity, count(*)" \
	" FROM finding f JOIN patch p ON p.id = f.patch JOIN message m" \
	" ON m.id = p.message GROUP BY 2, 3, 4 UNION ALL SELECT ml.list," \
	" coalesce(m.date / 86400, -1), f.rule, f.severity, count(*)" \
	" FROM finding f JOIN patch p ON p.id = f.patch JOIN message m" \
	" ON m.id = p.message JOIN message_list ml ON ml.message = m.id" \
	" GROUP BY 1, 2, 3, 4 UNION ALL SELECT -1, coalesce(m.date / 86400, -1)," \
	" f.rule, f.severity, count(*) FROM finding f JOIN patch p" \
	" ON p.id = f.patch JOIN message m ON m.id = p.message" \
	" WHERE NOT EXISTS (SELECT 1 FROM message_list WHERE message = m.id)" \
	" GROUP BY 2, 3, 4"

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
