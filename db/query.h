/*
 * patchwarden: the maintainers' queries over the stored history
 * (patchwarden query findings|series; floods are in db/flood.h).  Every
 * filter is a bound parameter of one prepared statement.
 */
#ifndef PW_DB_QUERY_H
#define PW_DB_QUERY_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "checks/patch.h"
#include "db/db.h"

/* What to select.  Strings are borrowed; NULL means any. */
struct pw_query_filter {
	const char *rule;		/* findings: this rule ID only */
	enum pw_severity min_severity;	/* findings: at least this severe */
	int64_t since;			/* messages (series: last patch) dated at
					 * or after this Unix time */
	const char *from;		/* sender address, compared ignoring case */
	const char *list;		/* seen on the list of this name */
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

/*
 * The findings that match f, oldest message first: *out receives a new
 * GPtrArray of struct pw_query_finding that frees its elements
 * (g_ptr_array_unref).
 */
enum pw_status pw_db_query_findings(struct pw_db *db,
				    const struct pw_query_filter *f,
				    GPtrArray **out);

/*
 * The series that match f (rule and min_severity are ignored), oldest
 * first: *out receives a new GPtrArray of struct pw_query_series that
 * frees its elements (g_ptr_array_unref).
 */
enum pw_status pw_db_query_series(struct pw_db *db,
				  const struct pw_query_filter *f,
				  GPtrArray **out);

#endif
