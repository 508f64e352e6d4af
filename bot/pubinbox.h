/*
 * patchwarden: public-inbox archives (the format of lore.kernel.org) as
 * a source, through libgit2.
 *
 * A v2 inbox is a folder of epochs, git/0.git, git/1.git, ..., each a
 * git repository in which every commit adds one raw message (the blob
 * "m") or removes one ("d"); a v1 inbox is one repository whose
 * commits add or remove a file named by its Message-ID's hash.  An
 * inbox named by URL (https://lore.kernel.org/LIST/, file://...) is
 * mirrored, bare, under the mirrors folder and fetched on each poll;
 * an inbox named by path is read where it is.  Epochs are found from
 * the inbox's manifest.js.gz or by probing git/N.git, also on later
 * polls.  The cursor of each epoch ("sub:ID:git/N" = last commit read)
 * is committed with the messages it covers; the store keeps each
 * message as the archive's blob id, not a copy of its bytes.
 */
#ifndef PW_PUBINBOX_H
#define PW_PUBINBOX_H

#include <signal.h>

#include "bot/source.h"
#include "db/db.h"
#include "db/subscription.h"

/*
 * Brings the mirror of sub's inbox up to date (when it is named by
 * URL; mirrors is the folder holding every mirror) and opens a source
 * over the messages its epochs gained since the cursors stored in db
 * (read here, on the calling thread).  fetch_timeout is how many
 * seconds a fetch may go without receiving anything.  stop, when set,
 * ends a fetch or the reading early.  Errors (unreachable, not an
 * inbox, a corrupt repository) are PW_ERR_IO or PW_ERR_INPUT with
 * *err saying which.
 */
enum pw_status pw_pubinbox_open(const struct pw_subscription *sub,
				const char *mirrors, int fetch_timeout,
				struct pw_db *db,
				const volatile sig_atomic_t *stop,
				struct pw_source **out, char **err);

/*
 * Whether path names a public-inbox archive (a v2 inbox folder, or a
 * bare repository: v1 or one epoch).
 */
bool pw_pubinbox_is_inbox(const char *path);

/*
 * The bytes of blob (hex) in the repository at repo: a new GBytes, or
 * NULL with *err saying why.
 */
GBytes *pw_pubinbox_blob(const char *repo, const char *blob, char **err);

/*
 * The raw bytes of stored message id (a new GBytes in *raw): from the
 * store, or, for a message kept as a blob, from its archive; *raw NULL
 * when there are none (or the archive cannot give them: a warning says
 * why).  Returns a database error, or PW_OK.
 */
enum pw_status pw_pubinbox_message(struct pw_db *db, int64_t id, GBytes **raw);

/*
 * Appends every message of the source at path (mbox, Maildir, message)
 * to the v2 inbox at dir, as public-inbox writes them (one commit per
 * message on the newest epoch's master, the blob "m" holding it, the
 * author and date of its From and Date, its Subject the commit
 * message), making git/0.git when there is no epoch yet.  What "make
 * run" subscribes to, and what "patchwarden archive" does.  *n
 * receives how many messages it added.
 */
enum pw_status pw_pubinbox_append(const char *dir, const char *path,
				  int *n, char **err);

#endif
