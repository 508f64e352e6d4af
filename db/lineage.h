/*
 * patchwarden: a patch's life.  The versions of one series are linked
 * into a lineage (table lineage: checks/lineage.h decides which series
 * a new one follows); a patch is new, superseded (a later version of
 * its lineage arrived), applied (a maintainer said so by mail, or its
 * patch-id is on the maintainer's tree) or rejected (table
 * patch_state).  Only new patches are in the attention queue.
 */
#ifndef PW_DB_LINEAGE_H
#define PW_DB_LINEAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "db/db.h"

#endif
