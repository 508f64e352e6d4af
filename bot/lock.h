/*
 * patchwarden: the service's lock on its store.  Two services polling
 * one store would both fetch, both store and both fail each other's
 * polls; the second one is refused at start instead, told which
 * process holds the store and since when.
 *
 * The lock is the file "PATH.lock" beside the store PATH, PATH being
 * the store's real path (realpath(3): a store reached through a
 * symbolic link is locked where it is, once), held with
 * flock(2) for as long as the service runs, holding its PID and the
 * time it took the lock.  The kernel releases a flock when its holder
 * dies, however it dies (kill -9 too): a lock file left behind by a
 * dead process blocks nobody, and is never removed (removing it would
 * let a third process lock a new file while a second holds the old).
 */
#ifndef PW_LOCK_H
#define PW_LOCK_H

#include "checks/status.h"

/*
 * Takes the lock of the store at db_path and writes this process's PID
 * and the time into it.  PW_OK and *fd (the open lock file, to give to
 * pw_lock_release()); PW_ERR_TRANSIENT when another process holds it,
 * PW_ERR_IO when the lock file cannot be opened, both with a sentence
 * in *err (new) naming the holder (its PID and since when) or the
 * reason.
 */
enum pw_status pw_lock_take(const char *db_path, int *fd, char **err);

/*
 * A plain lock beside the store at db_path, "PATH.SUFFIX" (its real
 * path, as above), for one
 * process at a time doing one job (sending the outbox, posting checks):
 * whoever holds it knows that rows another process left in flight are
 * orphans.  PW_OK and *fd (-1 for a store with no file: "" or
 * ":memory:"); PW_ERR_TRANSIENT when another process holds it, *err
 * (new) then "PATH.SUFFIX: another process is BUSY"; PW_ERR_IO when it
 * cannot be opened.  Release with pw_lock_release().
 */
enum pw_status pw_lock_beside(const char *db_path, const char *suffix,
			      const char *busy, int *fd, char **err);

/*
 * How long a job done under pw_lock_beside() (a reply to send, a check
 * to post) waits before its next attempt after attempts transient
 * failures: a minute, doubled each time, six hours at most.
 */
int64_t pw_lock_backoff(int attempts);

/* Releases a lock pw_lock_take() took (closes fd); -1: no-op. */
void pw_lock_release(int fd);

#endif
