/*
 * patchwarden: per-patch fingerprints for spotting floods of
 * near-identical patches (DESIGN.md, "Floods of near-identical patches").
 *
 * Every function here is pure: it reads strings and returns digests or
 * new strings, with no I/O, no logging and no GMime.  Each one is linear
 * in its input (the token diff of one changed line is capped), because it
 * runs on every ingested message.
 *
 * Digests are lower-case hexadecimal SHA-1 strings (40 characters and a
 * NUL).  An input that carries nothing to compare (an empty subject, a
 * commit message made only of trailers, a diff with no hunks) gives the
 * empty string rather than the digest of nothing, so that unrelated empty
 * inputs never match one another.
 */
#ifndef PW_FINGERPRINT_H
#define PW_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>

/* Size of one hexadecimal SHA-1 digest with its NUL. */
#define PW_FP_HEX 41

struct pw_fingerprint {
	char subject[PW_FP_HEX];	/* pw_flood_subject_normalise() */
	char subject_nosys[PW_FP_HEX];	/* ... without subsystem prefixes */
	char body[PW_FP_HEX];		/* pw_flood_body_normalise() */
	char shape[PW_FP_HEX];		/* of pw_flood_shape_edits()' set */
	char patch_id[PW_FP_HEX];	/* git patch-id --stable */
	int nedits;			/* distinct edits in the shape */
};

struct pw_patch;

/*
 * Fills *out with every fingerprint of one patch.  subject is the decoded
 * Subject, commit_msg the text before the diff, diff the diff text of
 * diff_len bytes (it need not be NUL-terminated and may hold any bytes),
 * patch what pw_diff_parse() made of it, or NULL to have it parsed here.
 * Any of subject, commit_msg and diff may be NULL, which counts as
 * empty.  subject, subject_nosys and body are the SHA-1 of the
 * normalised strings below; shape is the SHA-1 of the distinct shape
 * edits' 64-bit digests in ascending order (8 little-endian bytes each),
 * nedits their number.  The caller owns every argument; nothing is kept.
 */
void pw_fingerprint_compute(const char *subject, const char *commit_msg,
			    const struct pw_patch *patch, const char *diff,
			    size_t diff_len, struct pw_fingerprint *out);

/*
 * Returns the subject with everything that differs between copies of one
 * flood removed: what pw_subject_skip() skips (reply and forward markers
 * such as "Re:", "Aw:" or "Fwd:", bracketed groups such as
 * "[PATCH v2 0014/1285]" or "[net-next]"), "Resend:", a bare "PATCH n/N"
 * counter, and trailing "(v2)" or "(resend)" notes; case is folded
 * (Unicode case folding when the text is valid UTF-8, ASCII otherwise)
 * and runs of white space become one space.  Newly allocated (g_free); "" when nothing
 * is left.  subject may be NULL.
 */
char *pw_flood_subject_normalise(const char *subject);

/*
 * Returns a normalised subject (the output of pw_flood_subject_normalise)
 * without its leading subsystem prefixes, the "word:" or "word/word:"
 * groups such as "media: foo: " or "drm/i915: ", so that
 * "media: foo: replace numeric parameter" and "replace numeric parameter"
 * compare equal.  When only prefixes would be left, the input is returned
 * unchanged.  Newly allocated (g_free).
 */
char *pw_flood_subject_strip_subsystem(const char *normalised);

/*
 * Returns the commit message body with what differs between copies
 * removed: leading in-body "From:", "Date:" and "Subject:" lines, trailer
 * lines (Signed-off-by, Cc, Link, Fixes and every "Something-by:"),
 * everything from a "---" line or the start of a diff on, and white space
 * folded to single spaces.  Newly allocated (g_free); "" when nothing is
 * left.  commit_msg may be NULL.
 */
char *pw_flood_body_normalise(const char *commit_msg);

/*
 * Returns the change shape of a diff: the sorted, distinct edits it
 * makes, each written "REMOVED -> ADDED" with the changed C-like tokens
 * separated by single spaces (for example "0444 -> S_IRUGO" or
 * "0644 -> S_IRUGO | S_IWUSR").  Within each hunk (the hunks of each
 * file as pw_diff_parse() reads them), runs of removed lines are paired
 * with the added lines that follow them (line by line when the counts
 * match, as one joined statement otherwise), their tokens are diffed,
 * and only the tokens that changed are kept; file names, line numbers
 * and the unchanged identifiers around the edit are dropped.  Pure
 * additions and removals are edits with an empty side, the other side
 * their lines without the white space around each, parted by one space
 * ("-> return -EINVAL;").  A side longer than 512 bytes (a whole new
 * function or file) is written as "{N tokens HASH}" or "{N bytes HASH}"
 * with a 64-bit digest of its tokens or text.  Returns a newly
 * allocated NULL-terminated vector (g_strfreev), empty when the diff
 * changes nothing but white space.  *count, when not NULL, receives the
 * number of edits.
 */
char **pw_flood_shape_edits(const char *diff, size_t len, int *count);

/*
 * Computes the same value as "git patch-id --stable" (git 2.39) for the
 * first patch in diff, which may be a bare diff, a whole message or a
 * format-patch file: each file's diff lines, white space removed, index
 * lines, hunk headers and "\ No newline" markers skipped, are hashed with
 * SHA-1 (a binary file by the blob names of its index line), and the
 * per-file digests are added together as 160-bit numbers (byte 0 lowest,
 * carry upwards), so that file order does not matter.  Like git, it
 * follows the hunk line counts: a diff whose counts were damaged in the
 * mail gets the id git gives it.  Writes the hexadecimal id to out and
 * returns true; returns false and writes "" when diff holds no patch.
 */
bool pw_flood_patch_id(const char *diff, size_t len, char out[PW_FP_HEX]);

#endif
