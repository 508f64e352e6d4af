/*
 * patchwarden: the corrected copy that "check --fix" writes: a text
 * with the fixes its findings carry applied.  Pure: bytes in, bytes out.
 */
#ifndef PW_FIX_H
#define PW_FIX_H

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>

/*
 * Appends to out the len bytes of text with the fixes of findings
 * (struct pw_finding *, borrowed) applied.  Each fix names a line, by
 * its number in the diff (patch_no) when diff is true and in the file
 * (line) otherwise, and a byte span of it past the '+' of a diff line;
 * the fixes of one line are applied right to left and one overlapping
 * a fix already applied is skipped.  Line ends (LF, CRLF, none at the
 * end) are kept as they are.  findings is left as it is.
 */
void pw_fix_apply(const char *text, size_t len, bool diff,
		  const GPtrArray *findings, GString *out);

#endif
