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
 * The first and last dates of each sender's patches as the rows make
 * them: (list, who, automated, first, last, stale 0), one row per list
 * as above, poster and person or machine as PW_TOTALS_RECOUNT_SENDERS.
 */
#define PW_TOTALS_SENDER_DATES(l, join, where) \
	"SELECT " l " AS list, coalesce(ms.addr, m.from_addr) AS who," \
	" m.automated IS NOT NULL AS automated, m.date AS date" \
	" FROM patch p JOIN message m ON m.id = p.message" \
	" LEFT JOIN message_sender ms ON ms.message = m.id" join where
#define PW_TOTALS_RECOUNT_SENDER_DATES \
	"SELECT list, who, automated, min(date), max(date), 0 FROM (" \
	PW_TOTALS_SENDER_DATES("0", "", "") " UNION ALL " \
	PW_TOTALS_SENDER_DATES("ml.list", PW_TOTALS_SENDER_ON_LIST, "") \
	" UNION ALL " PW_TOTALS_SENDER_DATES("-1", "", \
					     PW_TOTALS_SENDER_NO_LIST) \
	") GROUP BY 1, 2, 3"

/*
 * The totals per sender as the rows make them: (list, who, automated,
 * name, sev, patches, findings, other), one row per list as above (0,
 * each list, -1), poster (message_sender's address and name when an
 * in-body From names another author, else the mail's From), person or
 * machine (message.automated set: 1) and sev, the most severe finding
 * of a patch (-1: none).  patches counts the patches whose most severe
 * finding is sev, findings the findings of severity sev, other the
 * patches whose message is of neither kind 'patch' nor 'pull' (their
 * dates are not in the indexes the senders' dates are read from).
 */
#define PW_TOTALS_SENDER_COLS \
	" coalesce(ms.addr, m.from_addr) AS who," \
	" m.automated IS NOT NULL AS automated," \
	" coalesce(ms.name, m.from_name) AS name,"
#define PW_TOTALS_SENDER_PATCHES(l, join, where) \
	"SELECT " l " AS list," PW_TOTALS_SENDER_COLS \
	" coalesce((SELECT max(severity) FROM finding WHERE patch = p.id), -1)" \
	" AS sev, 1 AS np, 0 AS nf, m.kind NOT IN ('patch', 'pull') AS no" \
	" FROM patch p" \
	" JOIN message m ON m.id = p.message" \
	" LEFT JOIN message_sender ms ON ms.message = m.id" join where
#define PW_TOTALS_SENDER_FINDINGS(l, join, where) \
	"SELECT " l "," PW_TOTALS_SENDER_COLS " f.severity, 0, 1, 0" \
	" FROM finding f JOIN patch p ON p.id = f.patch" \
	" JOIN message m ON m.id = p.message" \
	" LEFT JOIN message_sender ms ON ms.message = m.id" join where
#define PW_TOTALS_SENDER_NO_LIST \
	" WHERE NOT EXISTS (SELECT 1 FROM message_list WHERE message = m.id)"
#define PW_TOTALS_SENDER_ON_LIST " JOIN message_list ml ON ml.message = m.id"
#define PW_TOTALS_RECOUNT_SENDERS \
	"SELECT list, who, automated, name, sev, sum(np), sum(nf), sum(no)" \
	" FROM (" PW_TOTALS_SENDER_PATCHES("0", "", "") " UNION ALL " \
	PW_TOTALS_SENDER_PATCHES("ml.list", PW_TOTALS_SENDER_ON_LIST, "") \
	" UNION ALL " PW_TOTALS_SENDER_PATCHES("-1", "", \
					       PW_TOTALS_SENDER_NO_LIST) \
	" UNION ALL " PW_TOTALS_SENDER_FINDINGS("0", "", "") " UNION ALL " \
	PW_TOTALS_SENDER_FINDINGS("ml.list", PW_TOTALS_SENDER_ON_LIST, "") \
	" UNION ALL " PW_TOTALS_SENDER_FINDINGS("-1", "", \
						PW_TOTALS_SENDER_NO_LIST) \
	") GROUP BY 1, 2, 3, 4, 5"

/*
 * Compares the totals with a recount from the rows: *wrong receives
 * how many totals differ (0: all right).  With repair, wrong totals
 * are made again from the rows, in one transaction.
 */
enum pw_status pw_db_totals_check(struct pw_db *db, bool repair,
				  int64_t *wrong);

/*
 * The findings in the store by severity, and flood detection's (the
 * rule IDs of flood_rules, n of them, five at most), from the totals, into *c.
 */
enum pw_status pw_db_totals_finding_counts(struct pw_db *db,
					   const char *const *flood_rules,
					   int n, struct pw_finding_counts *c);

#endif
