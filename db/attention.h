/*
 * patchwarden: what needs a maintainer's attention, for the top of the
 * dashboard's overview: the patches whose own text has warnings or
 * errors, per list, newest first.  One function holds the whole
 * selection, so that what "triaged" means (a decision recorded about a
 * patch) is one more condition in one place.
 */
#ifndef PW_DB_ATTENTION_H
#define PW_DB_ATTENTION_H

#include <stdint.h>
#include <glib.h>

#include "checks/patch.h"
#include "db/db.h"

/* One patch of the queue.  Owns its strings. */
struct pw_attention_patch {
	char *list;			/* "" for mail seen on no list */
	int64_t patch_id, message_id;
	char *msgid, *subject, *from_name, *from_addr;
	int64_t date;			/* 0 when unknown */
	int errors, warnings;		/* its findings at each severity */
	int64_t list_total;		/* patches of its list in the queue */
};

/*
 * The patches not yet triaged that have findings at min severity or
 * above, at most per_list of each list (its newest; a patch seen on two
 * lists is in both), into *out: a new GPtrArray of struct
 * pw_attention_patch that frees them, by list name, then newest first.
 * Left out: mail a machine sent (message.automated: a stable tree's
 * backport is reviewed where it was first posted), members of a flood
 * (the flood is one item of its own), and the findings flood detection
 * makes (about a patch's company, not its text).  Every patch is
 * untriaged until decisions about patches are stored.
 */
enum pw_status pw_db_attention_patches(struct pw_db *db,
				       enum pw_severity min, int per_list,
				       GPtrArray **out);

#endif
