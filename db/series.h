/*
 * patchwarden: grouping patches into series, the way Patchwork does:
 * references first, then the same sender, version and total within a
 * window; a new series when the patch's number is already taken.
 * Out-of-order arrival works because every member registers the
 * Message-IDs it references.
 */
#ifndef PW_SERIES_H
#define PW_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "db/db.h"

/* Patches further apart than this never join by markers alone. */
#define PW_SERIES_WINDOW (12 * 3600)

struct pw_series_in {
	const char *msgid;
	const char *in_reply_to;
	const char *const *references;	/* oldest first, NULL-terminated */
	const char *from_addr;
	const char *subject_clean;
	int64_t date;
	int version;
	int number;		/* 0 for a cover */
	int total;		/* 0 when there is no counter */
	bool cover;
};

/*
 * Puts a stored cover letter or patch (message row message_id; for a
 * patch, its patch row patch_id) into a series, creating one when
 * needed.  *series_id receives it.
 */
enum pw_status pw_db_series_assign(struct pw_db *db, int64_t message_id,
				   int64_t patch_id,
				   const struct pw_series_in *in,
				   int64_t *series_id);

#endif
