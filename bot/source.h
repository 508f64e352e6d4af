/*
 * patchwarden: sources of raw messages handed to the program by hand:
 * mbox files (mboxo and mboxrd), single messages, Maildirs, directories
 * of any of these, stdin.
 *
 * A source yields raw message bytes one at a time; it never parses MIME.
 * Memory stays bounded by the largest message, whatever the file size.
 */
#ifndef PW_SOURCE_H
#define PW_SOURCE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "checks/status.h"

enum pw_source_kind {
	PW_SOURCE_MBOX,
	PW_SOURCE_MESSAGE,	/* one RFC 5322 message, no "From " line */
	PW_SOURCE_MAILDIR,	/* cur/ and new/, one message a file */
	PW_SOURCE_DIR,		/* any other directory: each entry read as
				 * its own kind (message, mbox, Maildir) */
	PW_SOURCE_STDIN,	/* an MTA's message, or an mbox piped in */
	PW_SOURCE_ARCHIVE,	/* made by pw_source_new(): an archive, a mailbox */
};

struct pw_raw {
	char *data;		/* owned by the source until the next call */
	size_t len;
	int index;		/* 1-based message number within the source */
	int64_t offset;		/* byte offset in the file, -1 if none */
	char *where;		/* "FILE: message N (offset K)": owned by the source */
	bool truncated;		/* cut at the size cap */
	bool cut_short;		/* the last message of an mbox that ends
				 * without a newline: the file may be cut off */

	/*
	 * Set only by sources made with pw_source_new() (archives and
	 * mailboxes); borrowed from the source until the next call.
	 */
	const char *git_blob;	/* the bytes stay in a git archive: this blob, */
	const char *archive;	/* of this repository (the message's source) */
	bool removed;		/* the archive removed this message: it is
				 * marked removed, not stored */
	const char *cursor_key;	/* the source's position once this message */
	const char *cursor;	/* is stored, committed with it (or NULL) */
	const char *ack;	/* handed to the source's ack once committed */
};

struct pw_source;

/* Upper bound on one message; larger ones are reported and skipped. */
#define PW_MAX_MESSAGE (64u << 20)

/*
 * Opens path ("-" for stdin) and detects its kind from its contents.
 * On failure returns an error status and a new message in *err.
 */
enum pw_status pw_source_open(const char *path, struct pw_source **out,
			      char **err);

enum pw_source_flags {
	/*
	 * Standard input is one message, as an MTA pipes it: its From_
	 * line is the envelope, and From_ lines in its body (which MTAs
	 * need not escape: a pasted "git format-patch" header) do not
	 * split it.  What "run -" uses.
	 */
	PW_SOURCE_STDIN_ONE = 1 << 0,
};

/* pw_source_open() with flags (enum pw_source_flags). */
enum pw_status pw_source_open_flags(const char *path, unsigned flags,
				    struct pw_source **out, char **err);
/* The kind detected when s was opened. */
enum pw_source_kind pw_source_kind(const struct pw_source *s);
/* The path s was opened with ("-" for stdin); borrowed from s. */
const char *pw_source_path(const struct pw_source *s);

/*
 * Reads the next message into *raw.  Returns PW_OK with a message,
 * PW_ERR_INPUT when a message was unreadable (raw->where and *err say
 * which and why; call again for the next one), PW_ERR_IO on a read error
 * and, at the end, PW_OK with raw->data == NULL.
 */
enum pw_status pw_source_next(struct pw_source *s, struct pw_raw *raw,
			      char **err);
/*
 * A source of raw messages made by its own code: a public-inbox archive,
 * an IMAP mailbox, a subscribed Maildir.  next fills raw as
 * pw_source_next() says; ack (may be NULL) is told, from the thread
 * that stores, each raw->ack once its message is committed, possibly
 * while next runs on another thread; free releases ctx.
 */
struct pw_source_ops {
	enum pw_status (*next)(void *ctx, struct pw_raw *raw, char **err);
	void (*ack)(void *ctx, const char *ack);
	void (*free)(void *ctx);
	/* May be NULL: the messages known to come, counted from the
	 * first (read or not), for progress lines; called from the thread
	 * that stores while next runs on another. */
	int64_t (*expected)(void *ctx);
};

/* A source named name (what errors and stored messages say it is). */
struct pw_source *pw_source_new(const char *name,
				const struct pw_source_ops *ops, void *ctx);

/*
 * The messages s knows it brings in all, counted from its first (read
 * or not): a public-inbox archive's commits listed so far; -1 when it
 * cannot tell (files, IMAP, Maildir).  Safe while another thread reads.
 */
int64_t pw_source_expected(struct pw_source *s);

/* Tells s that the message whose raw->ack was ack is committed. */
void pw_source_ack(struct pw_source *s, const char *ack);

/*
 * Appends to out (of strings g_free frees) the paths of the regular
 * files in dir, and of its folders too when dirs is set, by name: no
 * dot-files, links not followed.  False when dir cannot be read.
 */
bool pw_source_list_dir(const char *dir, bool dirs, GPtrArray *out);

/* Closes s and releases it; pw_source_free(NULL) does nothing. */
void pw_source_free(struct pw_source *s);

#endif
