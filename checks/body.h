/*
 * patchwarden: what a message body says, read from its decoded text
 * parts: the commit message (the text before git mailinfo's patch
 * separator), the diff (its extent as git apply bounds it) and a pull
 * request (patchwork's parse_pull_request()).  bot/mail.c walks the MIME
 * structure with GMime and hands each text part here, in order; nothing
 * here sees a GMime object.  Pure: no I/O.
 */
#ifndef PW_BODY_H
#define PW_BODY_H

#include <stddef.h>
#include <stdbool.h>
#include <glib.h>

#include "checks/message.h"

/* The body read so far, from its parts in MIME order. */
struct pw_body {
	GString *msg;		/* the commit message so far */
	GString *diff;		/* the diff text so far */
	char *pull_url;		/* "URL branch" of the first pull request */
	bool separated;		/* a patch separator was seen: msg is whole */
	bool cut;		/* a hunk of the diff ends early */
	GString *rest;		/* when cut: its part's text after it,
				 * from the line the diff stops at */
	bool unflowed;		/* then: whole before format=flowed unwrapping */
};

/* How an inline part's lines are wrapped (RFC 3676). */
enum pw_body_flow {
	PW_BODY_FIXED,		/* as sent */
	PW_BODY_FLOWED,		/* format=flowed */
	PW_BODY_FLOWED_DELSP,	/* format=flowed; delsp=yes */
};

/* Starts an empty body in *b (usually on the stack). */
void pw_body_init(struct pw_body *b);
/* Releases what b holds; a released body may be released again. */
void pw_body_release(struct pw_body *b);

/*
 * Reads an inline text part: t holds n bytes of UTF-8 with LF line
 * ends, need not be NUL-terminated, and stays the caller's.  Until a
 * patch separator, its text goes to the commit message (unwrapped as
 * git mailinfo unwraps format=flowed text) and a pull request is looked
 * for; its first diff goes to the diff.  A part after the diff is not
 * read.  Returns true when a hunk of it ends before its header's line
 * counts say, which the caller may note as damage.
 */
bool pw_body_add_text(struct pw_body *b, const char *t, size_t n,
		      enum pw_body_flow flow);

/*
 * Reads a patch attachment (text/x-patch, *.diff ...): appends its diff.
 * Returns false when it holds none.
 */
bool pw_body_add_patch(struct pw_body *b, const char *t, size_t n);

/*
 * Hands what b read over to m: m->commit_msg (leading blank lines and
 * trailing white space trimmed, "" or text ending in one newline),
 * m->diff (NULL when there is none), m->diff_cut, m->diff_rest,
 * m->diff_unflowed and m->pull_url; m must not hold them yet.  b is
 * released.
 */
void pw_body_finish(struct pw_body *b, struct pw_mail *m);

/*
 * Finds the first diff in t (n bytes): [*start, *end) covers its
 * consecutive file sections, each read as git apply reads it (file
 * headers, then hunks whose line counts say where they end), so that a
 * signature or a list footer after the last hunk is not part of it.
 * Returns false when t holds no diff.  *cut is set (never cleared) when
 * a hunk ends before its header's counts do.
 */
bool pw_body_find_diff(const char *t, size_t n, size_t *start, size_t *end,
		       bool *cut);

/*
 * git mailinfo's patchbreak(): whether line l (n bytes, without its
 * newline) ends the commit message ("---", "diff -", "Index: ").
 */
bool pw_body_patchbreak(const char *l, size_t n);

/*
 * patchwork's parse_pull_request(): the "URL branch" (or "URL") that
 * follows "The following changes since commit" and "are available in
 * the git repository at:" in t, as a new string (g_free), or NULL.
 */
char *pw_body_find_pull(const char *t, size_t n);

/*
 * The len bytes at s without their leading blank lines and trailing
 * white space: "" or the text and one newline (a commit message as it
 * is stored).  g_free.
 */
char *pw_body_trim(const char *s, size_t len);

#endif
