/*
 * A store in a private temporary folder for the unit tests that need one
 * (cmocka setup and teardown), with the default configuration beside it.
 * Header only: each test binary is one file.
 */
#ifndef PW_TEST_STORE_FIXTURE_H
#define PW_TEST_STORE_FIXTURE_H

#include <glib.h>
#include <glib/gstdio.h>

#include "bot/config.h"
#include "db/db.h"

struct fx {
	char *dir;
	struct pw_db *db;		/* dir/t.db */
	struct pw_config *cfg;		/* defaults, the store at dir/t.db */
};

/* Opens a new store in a folder named after tmpl ("pw-x-XXXXXX"). */
static inline struct fx *fx_open(const char *tmpl)
{
	struct fx *f = g_new0(struct fx, 1);
	char *path, *err = NULL;

	f->dir = g_dir_make_tmp(tmpl, NULL);
	assert_non_null(f->dir);
	path = g_build_filename(f->dir, "t.db", NULL);
	assert_int_equal(pw_config_load(NULL, path, &f->cfg, &err), PW_OK);
	assert_int_equal(pw_db_open(path, false, &f->db, &err), PW_OK);
	g_free(path);
	return f;
}

/* Closes the store and removes its folder with everything in it. */
static inline int fx_teardown(void **state)
{
	struct fx *f = *state;
	GDir *d;
	const char *name;

	pw_db_close(f->db);
	pw_config_free(f->cfg);
	d = g_dir_open(f->dir, 0, NULL);
	while (d && (name = g_dir_read_name(d)) != NULL) {
		char *p = g_build_filename(f->dir, name, NULL);

		g_unlink(p);
		g_free(p);
	}
	if (d)
		g_dir_close(d);
	g_rmdir(f->dir);
	g_free(f->dir);
	g_free(f);
	return 0;
}

#endif
