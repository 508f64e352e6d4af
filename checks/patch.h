/*
 * patchwarden: the patch model and the findings the rules produce.
 *
 * A patch is parsed once from diff text (pw_diff_parse) into files,
 * hunks and lines; the rules read that model and append findings.
 * Everything here is pure: no I/O, no logging, no GMime.
 */
#ifndef PW_PATCH_H
#define PW_PATCH_H

#include <stddef.h>
#include <stdbool.h>
#include <glib.h>

#include "checks/status.h"

/* One line of a hunk.  text points into pw_patch.text (not NUL-ended). */
struct pw_dline {
	char kind;		/* '+' added, '-' removed, ' ' context */
	bool no_newline;	/* followed by "\ No newline at end of file" */
	int old_no;		/* line in the old file, 0 for added lines */
	int new_no;		/* line in the new file, 0 for removed lines */
	int patch_no;		/* 1-based line number within the diff text */
	const char *text;	/* without the leading kind character */
	size_t len;		/* without the newline */
};

struct pw_hunk {
	int old_start, old_count, new_start, new_count;
	size_t first;		/* index of the hunk's first line in file->lines */
	size_t n;		/* number of lines */
	int patch_no;		/* line number of the @@ header in the diff text */
};

enum pw_file_flags {
	PW_FILE_NEW = 1 << 0,
	PW_FILE_DELETED = 1 << 1,
	PW_FILE_RENAMED = 1 << 2,
	PW_FILE_COPIED = 1 << 3,
	PW_FILE_BINARY = 1 << 4,
	PW_FILE_MODE_CHANGE = 1 << 5,
};

struct pw_file {
	char *old_path;		/* without "a/"; NULL for /dev/null */
	char *new_path;		/* without "b/"; NULL for /dev/null */
	unsigned old_mode;	/* git mode (0100644), 0 when not given */
	unsigned new_mode;
	unsigned flags;		/* enum pw_file_flags */
	int similarity;		/* rename/copy similarity index, -1 unknown */
	int patch_no;		/* line of the file's first header line */
	int mode_patch_no;	/* line of "new mode"/"new file mode", 0 if none */
	struct pw_dline *lines;
	size_t nlines;
	struct pw_hunk *hunks;
	size_t nhunks;
};

/* A problem found while parsing (malformed hunk, truncated diff). */
struct pw_diff_problem {
	int patch_no;
	char *message;
};

struct pw_patch {
	char *text;		/* owned copy of the diff text */
	size_t len;
	struct pw_file *files;
	size_t nfiles;
	struct pw_diff_problem *problems;
	size_t nproblems;
	/* The added lines by their line in the diff text (patch_no), NULL
	 * elsewhere: built by the first pw_patch_added_line() call. */
	const struct pw_dline **added;
	size_t nadded;
};

/*
 * Parses unified diff text: git, plain "diff -u" and CVS "Index:" diffs.
 * Copies the text; the caller keeps its buffer.  Never fails on bad
 * input: malformed parts are recorded in problems and skipped.  Returns
 * a new patch the caller frees with pw_patch_free().
 */
struct pw_patch *pw_diff_parse(const char *text, size_t len);

/* The most of the line after a mail's diff that is kept to explain it. */
#define PW_DIFF_STOP_MAX 80

/*
 * What the mail around a diff shows about where its last hunk stops
 * short, so that PATCH_MALFORMED names the cause the bytes show (a
 * line indented with U+00A0 no-break spaces, format=flowed unwrapping,
 * the mail ending) rather than a guess.  checks/body.c finds it
 * (struct pw_mail's diff_rest and diff_unflowed).
 */
struct pw_diff_context {
	const char *stop;	/* the line the diff stops at, NULL when the
				 * text ends there */
	bool unflowed;		/* whole as sent, cut by format=flowed
				 * unwrapping */
};

/* pw_diff_parse() of a mail's diff, ctx (NULL: none) explaining its end. */
struct pw_patch *pw_diff_parse_ctx(const char *text, size_t len,
				   const struct pw_diff_context *ctx);

/*
 * Whether s is a bare diff rather than a mail: after any blank lines it
 * starts with "diff ", "--- " or "Index: ", as "patch" and "git apply"
 * take a patch file.  "check" and the dashboard's /api/check both ask
 * this, so that the same input is read the same way by both.
 */
bool pw_diff_is_bare(const char *s, size_t len);

/*
 * One range of a hunk header, "START[,COUNT]", as written after its sign.
 * Numbers saturate at G_MAXINT.
 */
struct pw_hunk_range {
	int start;		/* 0 when there are no digits */
	int count;		/* 1 without a comma; 0 for a comma without digits */
	bool has_start;		/* START has digits */
	bool has_comma;
	bool has_count;		/* digits follow the comma */
};

/*
 * Reads a range at p (just after its '-' or '+'), never past end.
 * Returns where the range ends: after COUNT's digits when there is a
 * comma, else after START's.  Reads anything; the caller decides what
 * a valid range is (git patch-id, for one, accepts "-,3").
 */
const char *pw_diff_hunk_range(const char *p, const char *end,
			       struct pw_hunk_range *r);

/*
 * A hunk header: "@@ -a,b +c,d @@", or for a combined diff (diff --cc)
 * one more "@" and one more old range per parent, "@@@ -a,b -c,d +e,f @@@".
 */
struct pw_hunk_head {
	int parents;			/* 1; more for a combined diff */
	struct pw_hunk_range old;	/* the first parent's range */
	struct pw_hunk_range new;
	size_t len;			/* bytes up to the end of the new range */
	bool loose;			/* not exactly one space before a range */
	bool closed;			/* " @@" follows the new range */
};

/*
 * Reads the hunk header at line (len bytes, without its newline) into
 * *h.  Returns false when it is not one: 2 to 9 "@" and a space, then
 * the ranges, each with a START and, after a comma, a COUNT.  Runs of
 * spaces (or none) between the ranges are accepted and marked loose;
 * what follows the new range is not read beyond *closed.  The diff
 * parser asks for more (one parent, not loose, closed); the diff extent
 * of a mail body takes what git apply would count lines by.
 */
bool pw_diff_hunk_head(const char *line, size_t len, struct pw_hunk_head *h);

/*
 * Whether line l (n bytes, without its newline) belongs to a hunk with
 * the given parents, and which sides it counts on: *in_old and *in_new.
 * An empty line is a context line whose space was lost; "\ No newline"
 * belongs but counts on neither side.
 */
bool pw_diff_hunk_line(const char *l, size_t n, int parents, bool *in_old,
		       bool *in_new);

/*
 * Whether line l (n bytes) is a git extended header line, one of those
 * between "diff --git" and the hunks: modes, renames, copies,
 * (dis)similarity and index.
 */
bool pw_diff_is_git_header(const char *l, size_t n);

/*
 * Whether the line at s (n bytes, without its newline) and the line at
 * next (the text running to end) are the "--- " and "+++ " lines that
 * name a file's old and new paths.
 */
bool pw_diff_is_old_new(const char *s, size_t n, const char *next,
			const char *end);

/* Caps on untrusted diff text; what lies beyond them is a problem. */
#define PW_DIFF_MAX_FILES 10000
#define PW_DIFF_MAX_HUNKS 100000	/* per file */
#define PW_DIFF_MAX_LINE 65536		/* longer lines are cut for the rules */

void pw_patch_free(struct pw_patch *p);

/*
 * The added line at line patch_no of the diff text, or NULL when that
 * line is not an added line.  The first call indexes the whole patch in
 * one pass (p keeps the index until pw_patch_free), so that each lookup
 * after it takes constant time.
 */
const struct pw_dline *pw_patch_added_line(struct pw_patch *p, int patch_no);

/* The path a finding is reported against: new_path, else old_path. */
const char *pw_file_path(const struct pw_file *f);

enum pw_severity {
	PW_SEV_INFO = 0,
	PW_SEV_WARNING = 1,
	PW_SEV_ERROR = 2,
};

/* "info", "warning", "error". */
const char *pw_severity_str(enum pw_severity s);
/* Parses the above (case-insensitive); returns false if unknown. */
bool pw_severity_parse(const char *s, enum pw_severity *out);

/*
 * One finding.  rule points at the static rule ID string; the strings
 * are owned by the finding.
 */
struct pw_finding {
	const char *rule;	/* stable upper-case ID, e.g. "PERM_WORLD_WRITABLE" */
	enum pw_severity severity;
	char *file;		/* path in the new tree */
	int line;		/* line in the new file, 0 for file-level findings */
	int column;		/* 1-based byte column, 0 when not meaningful */
	int patch_no;		/* line within the diff text, 0 if none */
	char *message;		/* one line, plain English */
	char *fix;		/* the corrected source line, or NULL */
	/*
	 * When fix is set: the byte span [fix_from, fix_to) of the original
	 * source line that the fix rewrites, and the text that replaces it
	 * (owned), so that several fixes on one line can be combined.
	 */
	size_t fix_from, fix_to;
	char *replacement;
	char *added_line;	/* the added line it is about, without the '+',
				 * or NULL: set by pw_patch_quote_findings() */
};

void pw_finding_free(struct pw_finding *f);

/*
 * Gives each finding of findings (struct pw_finding *) that is about an
 * added line of p a copy of that line's text (added_line), so that the
 * text can be stored and quoted without the patch.  Linear in the patch
 * and the findings.
 */
void pw_patch_quote_findings(struct pw_patch *p, GPtrArray *findings);

/*
 * Returns a new finding with copies of file and message and no fix; the
 * caller owns it and frees it with pw_finding_free().
 */
struct pw_finding *pw_finding_new(const char *rule, enum pw_severity sev,
				  const char *file, int line, int column,
				  const char *message);

#endif
