/*
 * patchwarden: the ingest pipeline.  Raw messages from a source are
 * parsed and checked on worker threads and stored, in source order, by
 * the calling thread in batched transactions.
 */
#ifndef PW_INGEST_H
#define PW_INGEST_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "bot/config.h"
#include "db/db.h"

struct pw_ingest_opts {
	const char *list;	/* list name for every message, or NULL: List-Id */
	/* The List-Id is the sender's word, not the operator's (mail an
	 * MTA pipes in): without list, the message is on no list. */
	bool no_list_id;
	bool reply;		/* treat as just arrived: queue replies */
	int threads;		/* parser threads, 0: one per core */
	bool quiet;		/* no per-message error lines */
	bool no_floods;		/* benchmarks: no fingerprints, no flood detection */
	int64_t progress;	/* a progress line every this many messages, 0: none */
	/* The progress lines' prefix ("NAME: "), or NULL; with
	 * progress_log they go to the log (pw_info) instead of stderr. */
	const char *progress_name;
	bool progress_log;
	bool stdin_one;		/* "-" is one message from an MTA, not an mbox */
	/* Set (by a signal handler) to stop reading: what was read is
	 * stored and committed, the rest is left for the next time. */
	const volatile sig_atomic_t *stop;
	/* The subscription (row id) the source is, or 0: the new messages
	 * it brought are counted with each batch. */
	int64_t subscription;
	/* With subscription: this poll ends its backfill when it reads the
	 * source to the end (marked with the last messages). */
	bool ends_backfill;
};

/* Timing for the progress lines (pw_ingest_opts.progress). */
struct pw_ingest_timing {
	int64_t idle_usec;	/* the storing thread waiting for parsed mail */
	/* CPU spent on flood detection: fingerprints (parser threads) and
	 * filing patches with the detector (the storing thread). */
	int64_t fingerprint_usec, flood_usec;
	/* Where the last progress line left off. */
	int64_t mark_messages;
	int64_t mark_usec;	/* monotonic clock */
	int64_t mark_cpu_usec;	/* CPU of the whole process, every thread */
	int64_t mark_writer_usec;	/* CPU of the thread storing messages */
	int64_t mark_idle_usec;
	int64_t mark_fingerprint_usec, mark_flood_usec;
	/* Where the source being read began: messages done then, and the
	 * monotonic clock, for its estimated time left. */
	int64_t source_done, source_usec;
};

struct pw_ingest_counts {
	int64_t messages;	/* read and understood (new or already stored) */
	int64_t patches, covers, comments, pulls, others;	/* newly stored */
	int64_t duplicates;	/* already stored (seen again, maybe on another list) */
	int64_t errors;		/* could not be read or stored */
	int64_t sources_failed;	/* of those, whole sources that could not be
				 * opened or read (nothing of them stored) */
	int64_t removed;	/* marked removed by their archive */
	int64_t findings;	/* findings stored for the new patches */
	int64_t first_id;	/* the first message stored new, 0 before */
	struct pw_ingest_timing t;
};

/*
 * Ingests every message of the source at path ("-" for stdin) into db,
 * adding to *counts.  Bad messages are reported on stderr, recorded in
 * ingest_error and skipped.  Returns PW_OK unless the source could not be
 * opened or the database failed; *err then holds a new message.
 */
enum pw_status pw_ingest_path(struct pw_db *db, const struct pw_config *cfg,
			      const char *path, const struct pw_ingest_opts *o,
			      struct pw_ingest_counts *counts, char **err);

struct pw_source;

/*
 * pw_ingest_path() on a source already open (taken over and freed),
 * named name in messages and the store.  A source of pw_source_new()
 * gets its messages' cursors committed with them and its acks once
 * they are committed.
 */
enum pw_status pw_ingest_source(struct pw_db *db, const struct pw_config *cfg,
				struct pw_source *src, const char *name,
				const struct pw_ingest_opts *o,
				struct pw_ingest_counts *counts, char **err);

/*
 * pw_ingest_path() over each of paths[0..n-1], reporting each source that
 * fails on stderr and counting it in counts->errors.  Stops at a
 * database error and returns false then; true otherwise.
 */
bool pw_ingest_paths(struct pw_db *db, const struct pw_config *cfg,
		     char **paths, int n, const struct pw_ingest_opts *o,
		     struct pw_ingest_counts *counts);


/*
 * Re-runs the current rules over the stored patches dated at or after
 * since (0: all), replacing their findings.  *checked and *findings
 * receive the numbers.
 */
enum pw_status pw_ingest_recheck(struct pw_db *db, const struct pw_config *cfg,
				 int64_t since, int64_t *checked,
				 int64_t *findings, char **err);

#endif
