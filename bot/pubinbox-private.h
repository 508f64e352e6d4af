/*
 * patchwarden: the inside of the public-inbox source, for its reader
 * (bot/pubinbox.c), fetcher (bot/pubinbox_fetch.c) and writer
 * (bot/pubinbox_write.c) only: the libgit2 helpers they share
 * (bot/pubinbox_git.c), an epoch of a subscription, and what the reader
 * asks the fetcher.
 */
#ifndef PW_PUBINBOX_PRIVATE_H
#define PW_PUBINBOX_PRIVATE_H

#include <signal.h>
#include <stdbool.h>
#include <git2.h>
#include <glib.h>

#include "bot/pubinbox.h"
#include "bot/source.h"

#define MANIFEST_MAX (16u << 20)	/* bytes of manifest.js.gz, unpacked */
#define PROBE_TIMEOUT 30		/* seconds for a manifest or a probe */
#define PROBE_EPOCHS 8			/* new epochs a poll looks for, without
					 * a manifest (one a year on lore) */

/* One epoch of a subscription's archive (or its one repository). */
struct pw_pubinbox_epoch {
	int n;			/* epoch number, -1: a single repository */
	char *local;		/* the repository read: the mirror, or in place */
	char *remote;		/* URL fetched into local, or NULL */
	char *key;		/* its cursor's name */
	char *last;		/* last commit read (hex), or NULL */
	bool fetch;		/* to be fetched on this poll */
	char *fp;		/* its fingerprint in the manifest, or NULL */
};

/* Sets libgit2 up once for the process. */
void pw_pubinbox_git_once(void);

/*
 * The size of blob oid of repo, read from the object's header: a blob
 * over PW_MAX_MESSAGE is never inflated (one of 1.2 GiB took 1.25 GB).
 * PW_OK with *size, or PW_ERR_INPUT and *err (new) naming the blob: one
 * that cannot be read, or is larger than a message may be.
 */
enum pw_status pw_pubinbox_blob_fits(git_repository *repo, const git_oid *oid,
				     size_t *size, char **err);

/* libgit2's last error as text (borrowed; never NULL). */
const char *pw_pubinbox_git_msg(void);

/* Whether path is a folder. */
bool pw_pubinbox_is_dir(const char *path);

/* A bare repository: HEAD and objects/ in it. */
bool pw_pubinbox_is_bare_repo(const char *path);

/* Orders ints for g_array_sort(). */
gint pw_pubinbox_cmp_int(gconstpointer a, gconstpointer b);

/* The epoch numbers of the folder dir/git (N.git entries), ascending:
 * a new GArray of int (g_array_unref). */
GArray *pw_pubinbox_local_epochs(const char *dir);

/*
 * The epochs named by the manifest.js.gz of the inbox at URL base (a
 * new GArray of int), or NULL when there is none or it cannot be read;
 * fps receives each epoch's fingerprint by number.
 */
GArray *pw_pubinbox_manifest_epochs(const char *base, GHashTable *fps,
				    const volatile sig_atomic_t *stop,
				    char **err);

/* Whether the repository at url answers; *err when it cannot be asked. */
bool pw_pubinbox_repo_exists(const char *url,
			     const volatile sig_atomic_t *stop, char **err);

/*
 * Takes the lock of one poll of the archive mirrored at mirror (name
 * says whose, for the message): a descriptor, or -1 with *err.
 */
int pw_pubinbox_lock_take(const char *mirror, const char *name, char **err);

/*
 * Fetches epoch e into its mirror, in a child process killed after
 * timeout seconds of stall or on stop, unless the manifest says it has
 * not changed since its last fetch; repacks a mirror of many packs.
 */
enum pw_status pw_pubinbox_fetch_if_changed(struct pw_db *db,
					    const struct pw_pubinbox_epoch *e,
					    int timeout,
					    const volatile sig_atomic_t *stop,
					    char **err);

#endif
