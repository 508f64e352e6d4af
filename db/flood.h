/*
 * patchwarden: floods of near-identical patches (DESIGN.md, "Floods").
 *
 * Every stored patch is observed once, as it is stored: it joins the
 * group of earlier patches of the same sender in the window that share
 * its subject, body or change shape, or its exact patch identity.  A
 * group that crosses the threshold becomes a flood, and every member,
 * earlier ones included, is attached to it.
 */
#ifndef PW_DB_FLOOD_H
#define PW_DB_FLOOD_H

#include <stdbool.h>
#include <stdint.h>

#include "checks/flood.h"
#include "db/db.h"

struct pw_flood_params {
	int count;		/* patches that make a flood */
	int window;		/* seconds */
};

/* One patch as the flood detector sees it; strings are borrowed. */
struct pw_flood_obs {
	int64_t message_id;
	int64_t patch_id;
	int64_t series_id;
	const char *msgid;
	const char *from_addr;
	const char *subject;		/* as sent, decoded */
	int64_t date;
	int number, total;		/* the [PATCH n/N] counter, 0 if none */
	bool has_counter;
	bool threaded;			/* has In-Reply-To or References */
	const struct pw_fingerprint *fp;
};

/*
 * Files a newly stored patch, inside the caller's transaction.
 * *flood_id receives the flood it belongs to now, or 0.
 */
enum pw_status pw_db_flood_observe(struct pw_db *db,
				   const struct pw_flood_obs *o,
				   const struct pw_flood_params *p,
				   int64_t *flood_id);

#endif
