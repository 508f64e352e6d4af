/*
 * patchwarden: the ordered migrations of the schema (db/schema.c), every
 * table's definition in one place.  schema.c depends on no other file,
 * so that db.c, which applies the migrations, and the modules that use
 * the tables never depend on each other in a circle.
 */
#ifndef PW_SCHEMA_H
#define PW_SCHEMA_H

#include <stddef.h>

/* The migrations, oldest first; *n receives how many. */
const char *const *pw_db_migrations(size_t *n);

#endif
