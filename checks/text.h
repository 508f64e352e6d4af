/*
 * patchwarden: the text the scanners read.  A text is either a whole
 * source file (every line counts as added) or one hunk of a patch with
 * its context and added lines joined in new-file order, so that a C
 * statement, a shell command or a Python call that spans several lines
 * reads as one.  Offsets map back to the new-file line, the line in the
 * diff and whether that line is added.
 */
#ifndef PW_TEXT_H
#define PW_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>

#include "checks/patch.h"

struct pw_tline {
	size_t off;		/* where the line starts in the joined text */
	size_t len;
	int new_no;
	int patch_no;
	bool added;
};

struct pw_text {
	const char *buf;	/* the text, newline separated */
	size_t len;
	char *owned;		/* buf, when it was joined here */
	struct pw_tline *lines;	/* NULL for a whole source file */
	size_t nlines;
	size_t *starts;		/* a source file's line starts, built by */
	size_t nstarts;		/* the first pw_text_locate() */
	/* pw_text_logical_start()'s last answer: the index + 1 of the line
	 * asked about (0: none yet) and that of its logical line's first. */
	size_t memo_line, memo_first;
	size_t work;		/* lines and bytes pw_text_logical_start()
				 * stepped over: the tests prove it linear */
};

/* Where an offset lies. */
struct pw_loc {
	size_t start;		/* offset of the line's first byte */
	size_t len;		/* length of the line, without the newline */
	int new_no;		/* line in the new file */
	int patch_no;		/* line in the diff, 0 for a source file */
	bool added;
	size_t idx;		/* index of the line in the text */
};

/*
 * A whole source file; buf is borrowed and must outlive the text.
 * Release with pw_text_release() (it holds the line index).
 */
void pw_text_init_source(struct pw_text *t, const char *buf, size_t len);

/*
 * The context and added lines of one hunk, joined.  Returns false (and
 * leaves t empty) when the hunk adds nothing, since then no rule can
 * report anything.  Release with pw_text_release().
 */
bool pw_text_init_hunk(struct pw_text *t, const struct pw_file *f,
		       const struct pw_hunk *h);
/* Frees what either kind of text holds. */
void pw_text_release(struct pw_text *t);

/* Fills *loc for the line that holds off (0 <= off <= len). */
void pw_text_locate(struct pw_text *t, size_t off, struct pw_loc *loc);

/*
 * The offset where the logical line holding off starts: the start of
 * off's own line, or of the first of the lines before it that each end
 * in a backslash (blanks may follow it), as the C preprocessor joins
 * them.  It remembers its last answer, so that asking in increasing
 * order of off steps over each line once in all, however long the
 * logical lines are.
 */
size_t pw_text_logical_start(struct pw_text *t, size_t off);

/* True when some line between offsets from and to (inclusive) is added. */
bool pw_text_added(struct pw_text *t, size_t from, size_t to);

/*
 * Sanitizers: copy in[0..len) to out (the same length), blanking
 * comments with spaces and string contents with 'X' while keeping every
 * newline, so offsets and line numbers still match.  maybe_in_comment
 * says the text may start inside a C block comment (a hunk); the C
 * sanitizer then looks for a "*" "/" before any opening to decide.
 */
void pw_text_sanitize_c(const char *in, size_t len, char *out,
			bool maybe_in_comment);
void pw_text_sanitize_py(const char *in, size_t len, char *out);
void pw_text_sanitize_sh(const char *in, size_t len, char *out);

/*
 * A valid UTF-8 copy of len bytes of s (len -1: up to its NUL), NUL
 * bytes dropped and invalid sequences replaced.  g_free.
 */
char *pw_utf8_dup(const char *s, gssize len);
/* pw_utf8_dup(s, -1) with white space runs folded into one space and
 * the ends trimmed.  g_free. */
char *pw_utf8_fold(const char *s);

/*
 * Whether c is a bidirectional formatting character (Unicode UAX #9:
 * the marks LRM, RLM and ALM, the embeddings and overrides U+202A to
 * U+202E, the isolates U+2066 to U+2069).  Text a sender wrote that
 * holds one can show in another order than it reads (U+202E turns
 * "[PATCH] gpj.exe" around): a header or a subject line of ours drops
 * them.
 */
bool pw_utf8_bidi_control(gunichar c);

/*
 * s (len bytes, -1: up to its NUL) escaped for XML 1.0 and HTML text
 * and attribute values: valid UTF-8 (as pw_utf8_dup()), each character
 * XML 1.0 cannot hold, even as a reference (the C0 controls but tab,
 * newline and carriage return; U+FFFE, U+FFFF), replaced by U+FFFD, and
 * & < > ' " escaped.  A subject decoded from "=?utf-8?q?=01?=" would
 * otherwise make a whole feed unreadable.  g_free.
 */
char *pw_utf8_xml_escape(const char *s, gssize len);

/*
 * The length of a message body b (n bytes, CRLF line ends, as it went
 * over SMTP) under DKIM's simple or relaxed body canonicalization (RFC
 * 6376 3.4.3, 3.4.4): what a signature's l= must reach for it to sign
 * the whole body.  libopendkim's own count stops at l=, so it cannot
 * tell whether l= left text out (bot/dkim.c).
 */
size_t pw_text_dkim_body_len(const char *b, size_t n, bool relaxed);

#endif
