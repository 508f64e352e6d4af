/*
 * patchwarden: the unified-diff parser.
 *
 * Reads git diffs (extended headers: modes, renames, copies, binary
 * markers), plain "diff -u" output and CVS/SVN "Index:" diffs, as they
 * appear in mail bodies: text before, between and after the files is
 * skipped.  Modelled on git's apply.c: a hunk is read by its line
 * counts, so "--- " inside a hunk is a removed line and not a header.
 * Nothing here fails on bad input; every damaged part becomes a problem
 * and parsing resumes at the next line that looks like a header.
 */
#include <string.h>

#include "checks/patch.h"

enum state {
	ST_NONE,	/* between files, or in a file after its last hunk */
	ST_HEADER,	/* in a git extended header, before the first hunk */
	ST_HUNK,	/* inside a hunk, counting lines */
	ST_BINARY,	/* skipping "GIT binary patch" data */
};

struct parser {
	struct pw_patch *p;
	GArray *files;		/* struct pw_file */
	GArray *problems;	/* struct pw_diff_problem */
	GArray *lines;		/* struct pw_dline of the open file */
	GArray *hunks;		/* struct pw_hunk of the open file */
	bool open;		/* a file is being filled */
	bool git;		/* the open file came from "diff --git" */
	bool cut_reported;	/* a long line was already reported */
	bool files_capped;
	struct pw_file cur;
	enum state st;
	int old_left, new_left;	/* lines still expected in the hunk */
	int old_no, new_no;
	int hunk_patch_no;
};

static void problem(struct parser *ps, int patch_no, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

static void problem(struct parser *ps, int patch_no, const char *fmt, ...)
{
	struct pw_diff_problem pr;
	va_list ap;

	va_start(ap, fmt);
	pr.patch_no = patch_no;
	pr.message = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_array_append_val(ps->problems, pr);
}

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* Ends the hunk in progress, reporting lines its header promised. */
static void close_hunk(struct parser *ps, int patch_no)
{
	if (ps->st != ST_HUNK)
		return;
	(void)patch_no;
	if (ps->old_left > 0 || ps->new_left > 0)
		problem(ps, ps->hunk_patch_no,
			"hunk at line %d ends early: %d old and %d new lines missing",
			ps->hunk_patch_no, ps->old_left, ps->new_left);
	ps->st = ST_NONE;
}

static void close_file(struct parser *ps, int patch_no)
{
	close_hunk(ps, patch_no);
	if (!ps->open)
		return;
	ps->cur.nlines = ps->lines->len;
	ps->cur.lines = (struct pw_dline *)g_array_free(ps->lines, FALSE);
	ps->cur.nhunks = ps->hunks->len;
	ps->cur.hunks = (struct pw_hunk *)g_array_free(ps->hunks, FALSE);
	ps->lines = NULL;
	ps->hunks = NULL;
	if (!ps->git && !ps->cur.nhunks) {
		/* A "diff ..." line of prose, not followed by a diff. */
		g_free(ps->cur.old_path);
		g_free(ps->cur.new_path);
		g_free(ps->cur.lines);
		g_free(ps->cur.hunks);
	} else if (ps->files->len < PW_DIFF_MAX_FILES) {
		g_array_append_val(ps->files, ps->cur);
	} else {
		if (!ps->files_capped)
			problem(ps, patch_no, "more than %d files: the rest is ignored",
				PW_DIFF_MAX_FILES);
		ps->files_capped = true;
		g_free(ps->cur.old_path);
		g_free(ps->cur.new_path);
		g_free(ps->cur.lines);
		g_free(ps->cur.hunks);
	}
	memset(&ps->cur, 0, sizeof(ps->cur));
	ps->open = false;
	ps->st = ST_NONE;
}

static void open_file(struct parser *ps, int patch_no, bool git)
{
	close_file(ps, patch_no);
	memset(&ps->cur, 0, sizeof(ps->cur));
	ps->cur.similarity = -1;
	ps->cur.patch_no = patch_no;
	ps->lines = g_array_new(FALSE, TRUE, sizeof(struct pw_dline));
	ps->hunks = g_array_new(FALSE, TRUE, sizeof(struct pw_hunk));
	ps->open = true;
	ps->git = git;
	ps->st = git ? ST_HEADER : ST_NONE;
}

/*
 * Reads a C-quoted path ("a/x\tb") as git writes names with special
 * characters.  Returns the unquoted name and sets *rest past the quote,
 * or NULL if the quoting is broken.
 */
static char *unquote(const char *s, const char *end, const char **rest)
{
	GString *o = g_string_new(NULL);
	const char *q = s + 1;

	while (q < end && *q != '"') {
		if (*q == '\\' && q + 1 < end) {
			q++;
			switch (*q) {
			case 'n': g_string_append_c(o, '\n'); q++; break;
			case 't': g_string_append_c(o, '\t'); q++; break;
			case '"': case '\\': g_string_append_c(o, *q); q++; break;
			default:
				if (*q >= '0' && *q <= '3' && q + 2 < end &&
				    q[1] >= '0' && q[1] <= '7' && q[2] >= '0' && q[2] <= '7') {
					g_string_append_c(o, (char)(((q[0] - '0') << 6) |
						((q[1] - '0') << 3) | (q[2] - '0')));
					q += 3;
				} else {
					g_string_append_c(o, *q);
					q++;
				}
			}
		} else {
			g_string_append_c(o, *q++);
		}
	}
	if (q >= end) {
		g_string_free(o, TRUE);
		return NULL;
	}
	*rest = q + 1;
	return g_string_free(o, FALSE);
}

/* Drops git's "a/" or "b/" (or, for plain diffs, the first directory). */
static char *strip_prefix(char *name, bool git)
{
	char *slash;
	char *out;

	if (!name)
		return NULL;
	if (!strcmp(name, "/dev/null")) {
		g_free(name);
		return NULL;
	}
	slash = strchr(name, '/');
	if (!slash || slash == name || (git && slash - name != 1))
		return name;
	out = g_strdup(slash + 1);
	g_free(name);
	return out;
}

/* The path of a "--- "/"+++ " line, without timestamp. */
static char *header_path(const char *s, size_t len)
{
	const char *end = s + len;
	const char *rest;
	const char *t;

	if (len && *s == '"')
		return unquote(s, end, &rest);
	t = memchr(s, '\t', len);
	if (t)
		end = t;
	while (end > s && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	return g_strndup(s, (gsize)(end - s));
}

/* Splits "a/X b/Y" of a "diff --git" line. */
static void git_names(struct parser *ps, const char *s, size_t len)
{
	const char *end = s + len;
	const char *rest = NULL;
	char *a = NULL, *b = NULL;
	const char *mid;

	while (end > s && end[-1] == '\r')
		end--;
	len = (size_t)(end - s);
	if (len && *s == '"') {
		a = unquote(s, end, &rest);
		if (a && rest < end && *rest == ' ') {
			rest++;
			if (rest < end && *rest == '"')
				b = unquote(rest, end, &rest);
			else
				b = g_strndup(rest, (gsize)(end - rest));
		}
	} else {
		/* Prefer the split where both names agree, as git does. */
		const char *best = NULL;
		const char *q = s;

		while ((mid = g_strstr_len(q, end - q, " b/")) != NULL) {
			size_t la = (size_t)(mid - s), lb = (size_t)(end - mid - 1);

			if (!best)
				best = mid;
			if (la == lb && la > 2 && !memcmp(s + 2, mid + 3, la - 2)) {
				best = mid;
				break;
			}
			q = mid + 1;
		}
		if (!best)
			best = memchr(s, ' ', len);
		if (best) {
			a = g_strndup(s, (gsize)(best - s));
			b = g_strndup(best + 1, (gsize)(end - best - 1));
		}
	}
	if (!a || !b) {
		problem(ps, ps->cur.patch_no, "unreadable file names in diff --git line");
		g_free(a);
		g_free(b);
		return;
	}
	ps->cur.old_path = strip_prefix(a, true);
	ps->cur.new_path = strip_prefix(b, true);
}

static bool parse_uint(const char **q, const char *end, int *out)
{
	long v = 0;
	const char *s = *q;

	if (s >= end || *s < '0' || *s > '9')
		return false;
	while (s < end && *s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		if (v > 100000000)
			return false;
		s++;
	}
	*q = s;
	*out = (int)v;
	return true;
}

static bool parse_mode(const char *s, size_t len, unsigned *out)
{
	unsigned v = 0;
	size_t i = 0;

	while (i < len && s[i] >= '0' && s[i] <= '7' && i < 8)
		v = v * 8 + (unsigned)(s[i++] - '0');
	if (!i)
		return false;
	*out = v;
	return true;
}

/* "@@ -a,b +c,d @@ ..." */
static bool hunk_header(struct parser *ps, const char *s, size_t len, int patch_no)
{
	const char *q = s + 3, *end = s + len;
	struct pw_hunk h;

	memset(&h, 0, sizeof(h));
	h.old_count = h.new_count = 1;
	if (q >= end || *q++ != '-' || !parse_uint(&q, end, &h.old_start))
		return false;
	if (q < end && *q == ',') {
		q++;
		if (!parse_uint(&q, end, &h.old_count))
			return false;
	}
	if (q + 1 >= end || *q++ != ' ' || *q++ != '+' ||
	    !parse_uint(&q, end, &h.new_start))
		return false;
	if (q < end && *q == ',') {
		q++;
		if (!parse_uint(&q, end, &h.new_count))
			return false;
	}
	if (q + 2 >= end || memcmp(q, " @@", 3))
		return false;
	if (ps->hunks->len >= PW_DIFF_MAX_HUNKS) {
		problem(ps, patch_no, "more than %d hunks in one file: hunk ignored",
			PW_DIFF_MAX_HUNKS);
		return true;
	}
	h.first = ps->lines->len;
	h.patch_no = patch_no;
	g_array_append_val(ps->hunks, h);
	ps->old_left = h.old_count;
	ps->new_left = h.new_count;
	ps->old_no = h.old_start;
	ps->new_no = h.new_start;
	ps->hunk_patch_no = patch_no;
	ps->st = ST_HUNK;
	if (!h.old_count && !h.new_count)
		ps->st = ST_NONE;
	return true;
}

/* Adds one hunk line; false when it does not fit the hunk's counts. */
static bool hunk_line(struct parser *ps, const char *s, size_t len, int patch_no)
{
	struct pw_dline d;
	struct pw_hunk *h;
	char kind = len ? s[0] : ' ';

	if (kind == '\\') {
		if (ps->lines->len)
			g_array_index(ps->lines, struct pw_dline,
				      ps->lines->len - 1).no_newline = true;
		return true;
	}
	if (kind != ' ' && kind != '-' && kind != '+')
		return false;
	if ((kind != '+' && ps->old_left <= 0) || (kind != '-' && ps->new_left <= 0))
		return false;
	memset(&d, 0, sizeof(d));
	d.kind = kind;
	d.patch_no = patch_no;
	d.text = len ? s + 1 : s;
	d.len = len ? len - 1 : 0;
	if (d.len && d.text[d.len - 1] == '\r')
		d.len--;
	if (d.len > PW_DIFF_MAX_LINE) {
		if (!ps->cut_reported)
			problem(ps, patch_no, "line longer than %d bytes: checked only in part",
				PW_DIFF_MAX_LINE);
		ps->cut_reported = true;
		d.len = PW_DIFF_MAX_LINE;
	}
	if (kind != '+')
		d.old_no = ps->old_no++, ps->old_left--;
	if (kind != '-')
		d.new_no = ps->new_no++, ps->new_left--;
	g_array_append_val(ps->lines, d);
	h = &g_array_index(ps->hunks, struct pw_hunk, ps->hunks->len - 1);
	h->n++;
	if (ps->old_left <= 0 && ps->new_left <= 0)
		ps->st = ST_NONE;
	return true;
}

/* Extended git header lines; false if the line is not one of them. */
static bool git_header_line(struct parser *ps, const char *s, size_t len, int patch_no)
{
	const char *end = s + len;
	struct pw_file *f = &ps->cur;

	while (end > s && end[-1] == '\r')
		end--;
	len = (size_t)(end - s);
	if (starts(s, len, "old mode ")) {
		parse_mode(s + 9, len - 9, &f->old_mode);
		f->flags |= PW_FILE_MODE_CHANGE;
	} else if (starts(s, len, "new mode ")) {
		parse_mode(s + 9, len - 9, &f->new_mode);
		f->flags |= PW_FILE_MODE_CHANGE;
		f->mode_patch_no = patch_no;
	} else if (starts(s, len, "new file mode ")) {
		parse_mode(s + 14, len - 14, &f->new_mode);
		f->flags |= PW_FILE_NEW;
		f->mode_patch_no = patch_no;
	} else if (starts(s, len, "deleted file mode ")) {
		parse_mode(s + 18, len - 18, &f->old_mode);
		f->flags |= PW_FILE_DELETED;
	} else if (starts(s, len, "similarity index ") ||
		   starts(s, len, "dissimilarity index ")) {
		const char *q = memchr(s, 'x', len) + 2;
		int v;

		if (q < end && parse_uint(&q, end, &v) && v <= 100)
			f->similarity = v;
	} else if (starts(s, len, "rename from ") || starts(s, len, "copy from ")) {
		size_t n = s[0] == 'r' ? 12 : 10;

		g_free(f->old_path);
		f->old_path = header_path(s + n, len - n);
		f->flags |= s[0] == 'r' ? PW_FILE_RENAMED : PW_FILE_COPIED;
	} else if (starts(s, len, "rename to ") || starts(s, len, "copy to ")) {
		size_t n = s[0] == 'r' ? 10 : 8;

		g_free(f->new_path);
		f->new_path = header_path(s + n, len - n);
		f->flags |= s[0] == 'r' ? PW_FILE_RENAMED : PW_FILE_COPIED;
	} else if (starts(s, len, "index ")) {
		/* Blob ids: nothing the rules need. */
	} else if (starts(s, len, "Binary files ")) {
		f->flags |= PW_FILE_BINARY;
	} else if (starts(s, len, "GIT binary patch")) {
		f->flags |= PW_FILE_BINARY;
		ps->st = ST_BINARY;
	} else {
		return false;
	}
	return true;
}

/*
 * Sets the paths of the open file from "--- "/"+++ " lines (the first
 * at patch line patch_no).  A name whose quotes do not close is a
 * problem, not a missing file: the names from "diff --git" stay.
 */
static void set_paths(struct parser *ps, int patch_no, const char *a,
		      size_t alen, const char *b, size_t blen)
{
	char *rawa = header_path(a, alen), *rawb = header_path(b, blen);
	char *oldp, *newp;

	if ((!rawa && alen && *a == '"') || (!rawb && blen && *b == '"')) {
		problem(ps, patch_no, "unreadable quoted file name");
		g_free(rawa);
		g_free(rawb);
		return;
	}
	oldp = strip_prefix(rawa, ps->git);
	newp = strip_prefix(rawb, ps->git);
	if (ps->git && (ps->cur.flags & (PW_FILE_RENAMED | PW_FILE_COPIED))) {
		g_free(oldp);
		g_free(newp);
		return;
	}
	g_free(ps->cur.old_path);
	g_free(ps->cur.new_path);
	ps->cur.old_path = oldp;
	ps->cur.new_path = newp;
	if (!oldp && newp)
		ps->cur.flags |= PW_FILE_NEW;
	if (oldp && !newp)
		ps->cur.flags |= PW_FILE_DELETED;
}

struct pw_patch *pw_diff_parse(const char *text, size_t len)
{
	struct parser ps;
	struct pw_patch *p = g_new0(struct pw_patch, 1);
	const char *s, *end;
	int patch_no = 0;

	memset(&ps, 0, sizeof(ps));
	p->text = g_malloc(len + 1);
	if (len)
		memcpy(p->text, text, len);
	p->text[len] = '\0';
	p->len = len;
	ps.p = p;
	ps.files = g_array_new(FALSE, TRUE, sizeof(struct pw_file));
	ps.problems = g_array_new(FALSE, TRUE, sizeof(struct pw_diff_problem));

	s = p->text;
	end = p->text + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		size_t l = (size_t)(e - s);
		const char *next = nl ? nl + 1 : end;

		patch_no++;
		if (ps.st == ST_HUNK) {
			if (hunk_line(&ps, s, l, patch_no))
				goto next;
			close_hunk(&ps, patch_no);
		} else if (ps.open && l && s[0] == '\\' && ps.lines->len) {
			/* "\ No newline" right after the hunk's last line. */
			hunk_line(&ps, s, l, patch_no);
			goto next;
		}
		if (ps.st == ST_BINARY) {
			if (!starts(s, l, "diff --git "))
				goto next;
			ps.st = ST_NONE;
		}
		if (starts(s, l, "diff --git ")) {
			open_file(&ps, patch_no, true);
			git_names(&ps, s + 11, l - 11);
		} else if (starts(s, l, "@@ -")) {
			if (!ps.open) {
				problem(&ps, patch_no, "hunk without a file header: skipped");
			} else if (!hunk_header(&ps, s, l, patch_no)) {
				problem(&ps, patch_no, "unreadable hunk header: hunk skipped");
				ps.st = ST_NONE;
			}
		} else if (starts(s, l, "--- ") && next < end &&
			   starts(next, (size_t)(end - next), "+++ ")) {
			const char *nl2 = memchr(next, '\n', (size_t)(end - next));
			const char *e2 = nl2 ? nl2 : end;

			if (!(ps.open && ps.git && ps.st == ST_HEADER) &&
			    !(ps.open && !ps.git && !ps.hunks->len))
				open_file(&ps, patch_no, false);
			else if (!ps.git && !ps.cur.patch_no)
				ps.cur.patch_no = patch_no;
			set_paths(&ps, patch_no, s + 4, l - 4, next + 4,
				  (size_t)(e2 - next - 4));
			ps.st = ST_NONE;
			patch_no++;
			next = nl2 ? nl2 + 1 : end;
		} else if (ps.open && ps.git && ps.st == ST_HEADER &&
			   git_header_line(&ps, s, l, patch_no)) {
			/* Recorded in the open file. */
		} else if (starts(s, l, "diff ") || starts(s, l, "Index: ")) {
			/* A plain diff's command line: the names follow in ---/+++. */
			open_file(&ps, patch_no, false);
			if (s[0] == 'I')
				ps.cur.new_path = header_path(s + 7, l - 7);
		}
next:
		s = next;
	}
	close_file(&ps, patch_no);
	p->nfiles = ps.files->len;
	p->files = (struct pw_file *)g_array_free(ps.files, FALSE);
	p->nproblems = ps.problems->len;
	p->problems = (struct pw_diff_problem *)g_array_free(ps.problems, FALSE);
	return p;
}
