/*
 * patchwarden: a maintainer's git tree ([list NAME] tree = URL or PATH,
 * BRANCH), read with libgit2: a stored patch whose "git patch-id
 * --stable" is that of a commit on the branch is applied.  Polled where
 * subscriptions are (poll, run); the last commit read is the cursor
 * "tree:LIST", so that each poll reads only the commits new since.
 */
#ifndef PW_TREE_H
#define PW_TREE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "bot/config.h"
#include "db/db.h"

/* What one poll of a tree did. */
struct pw_tree_counts {
	int commits;	/* commits read */
	int applied;	/* patches it marked applied */
};

/*
 * Reads the commits of list l's tree new since its cursor (fetching a
 * URL into [core] mirrors first, as a subscription's archive), marks
 * the patches of list l they carry applied, and moves the cursor, in one
 * transaction.  A first poll reads back to the oldest patch stored for
 * the list, and at most PW_TREE_FIRST_COMMITS commits.  On failure
 * returns an error and a new message in *err.
 */
enum pw_status pw_tree_poll(struct pw_db *db, const struct pw_config *cfg,
			    const struct pw_list_conf *l,
			    const volatile sig_atomic_t *stop,
			    struct pw_tree_counts *c, char **err);

/* The most commits a first poll of a tree reads. */
#define PW_TREE_FIRST_COMMITS 50000

/*
 * Polls the tree of every configured list that has one, printing a line
 * per tree on out ("tree LIST: commits=N applied=N", a JSON object with
 * json), or logging one for a tree that had new commits when out is
 * NULL; errors are logged.  Returns false when one failed.
 */
bool pw_tree_poll_all(struct pw_db *db, const struct pw_config *cfg,
		      const volatile sig_atomic_t *stop, FILE *out, bool json);

/* Whether a configured list has a tree. */
bool pw_tree_any(const struct pw_config *cfg);

#endif
