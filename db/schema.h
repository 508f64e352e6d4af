/*
 * patchwarden: the ordered migrations of the schema (db/schema.c).
 * Each module that owns tables defines its migration text beside its
 * code and declares it here.
 */
#ifndef PW_SCHEMA_H
#define PW_SCHEMA_H

#include <stddef.h>

/* The migrations, oldest first; *n receives how many. */
const char *const *pw_db_migrations(size_t *n);

/* The outbox of replies (db/outbox.c). */
extern const char pw_db_migration_outbox[];

/* Flood groups, members and fingerprint keys (db/flood.c). */
extern const char pw_db_migration_flood[];

/* Raw message bytes in a table of their own (db/db.c). */
extern const char pw_db_migration_raw[];

#endif
