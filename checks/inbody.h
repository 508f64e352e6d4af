/*
 * patchwarden: what the top of a message body says about the patch, as
 * git mailinfo reads it: in-body "From:", "Subject:" and "Date:" lines
 * (a maintainer posting someone else's patch puts its author there), a
 * "[PATCH] ..." first line standing for the subject, and the scissors
 * line ("-- >8 --") above which everything is discussion.  Pure.
 */
#ifndef PW_INBODY_H
#define PW_INBODY_H

#include <stddef.h>
#include <stdbool.h>

/* The in-body fields found; each value unfolded, NULL when absent. */
struct pw_inbody {
	char *from;		/* as written: "Name <addr>", maybe encoded */
	char *subject;		/* as written, "[PATCH] ..." included */
	char *date;
	size_t start;		/* offset of the commit message proper */
	bool scissors;		/* a scissors line was honoured */
};

/*
 * Reads the top of text (the body before the diff, len bytes, LF line
 * ends) as git mailinfo does with --scissors: blank lines are skipped;
 * then "From:", "Subject:" and "Date:" lines (each once, names in any
 * case, values folded over lines that start with white space) or a
 * first line "[PATCH] ..." are taken, up to the first blank line or
 * other line; a scissors line anywhere before the diff drops what is
 * above it and starts the reading again below it.  Fills *out (values
 * newly allocated); release with pw_inbody_release().
 */
void pw_inbody_read(const char *text, size_t len, struct pw_inbody *out);
void pw_inbody_release(struct pw_inbody *ib);

/*
 * Whether the line (len bytes, no newline) is a scissors line: a mark
 * of at least 8 visible bytes made of dashes and at least one ">8",
 * "8<", ">%" or "%<", which may carry words ("cut here") as long as the
 * perforation takes more than a third of the line and white space less
 * than half of the perforation (git-mailinfo(1), --scissors).
 */
bool pw_inbody_is_scissors(const char *line, size_t len);

#endif
