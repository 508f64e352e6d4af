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

/*
 * Puts stored message m (row message_id), a cover letter or a patch
 * (then patch_id is its patch row), into a series, creating one when
 * needed: by its references, else by its sender and subject markers.
 * m is borrowed.  *series_id receives the series.
 */
enum pw_status pw_db_series_assign(struct pw_db *db, int64_t message_id,
				   int64_t patch_id, const struct pw_mail *m,
				   int64_t *series_id);

/*
 * Makes stored message cover the cover letter of series_id, named name
 * and dated date, unless the series has one: a naked cover letter (a
 * thread root without "0/N" that a patch of its sender answers), found
 * after both were stored.  *set says whether it was made one.
 */
enum pw_status pw_db_series_naked_cover(struct pw_db *db, int64_t series_id,
					int64_t cover, const char *name,
					int64_t date, bool *set);

/*
 * The series, without a cover, of a stored patch from from_addr that
 * answers the message root_msgid (its In-Reply-To, else its first
 * reference): *series_id, 0 when there is none.  An error when it could
 * not be read (the transaction then fails).
 */
enum pw_status pw_db_series_answering(struct pw_db *db,
				      const char *root_msgid,
				      const char *from_addr,
				      int64_t *series_id);

#endif
