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
 *
 * The only code that reads hunk headers and hunk lines: the diff extent
 * of a mail body (checks/body.c) and git's patch-id scan (checks/fingerprint.c)
 * read them through the primitives exported here (checks/patch.h).
 */
#include <string.h>

#include "checks/patch.h"

/* ---- the primitives: hunk headers and lines, file header lines ---- */

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* Digits at p as a number saturating at G_MAXINT; *any: there were some. */
static const char *number(const char *p, const char *end, int *v, bool *any)
{
	gint64 n = 0;

	*any = false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (n <= G_MAXINT)
			n = n * 10 + (*p - '0');
		*any = true;
	}
	*v = n > G_MAXINT ? G_MAXINT : (int)n;
	return p;
}

const char *pw_diff_hunk_range(const char *p, const char *end,
			       struct pw_hunk_range *r)
{
	memset(r, 0, sizeof(*r));
	p = number(p, end, &r->start, &r->has_start);
	r->count = 1;
	if (p < end && *p == ',') {
		r->has_comma = true;
		p = number(p + 1, end, &r->count, &r->has_count);
	}
	return p;
}

bool pw_diff_hunk_head(const char *line, size_t len, struct pw_hunk_head *h)
{
	const char *p = line, *end = line + len;
	struct pw_hunk_range other;
	int at = 0, i;

	memset(h, 0, sizeof(*h));
	while (p < end && *p == '@')
		p++, at++;
	if (at < 2 || at > 9 || p >= end || *p != ' ')
		return false;
	h->parents = at - 1;
	for (i = 0; i <= h->parents; i++) {
		struct pw_hunk_range *r = i == h->parents ? &h->new :
					  i == 0 ? &h->old : &other;
		const char *blank = p;

		while (p < end && *p == ' ')
			p++;
		if (p - blank != 1)
			h->loose = true;
		if (p >= end || *p != (i == h->parents ? '+' : '-'))
			return false;
		p = pw_diff_hunk_range(p + 1, end, r);
		if (!r->has_start || (r->has_comma && !r->has_count))
			return false;
	}
	h->len = (size_t)(p - line);
	h->closed = starts(p, (size_t)(end - p), " @@");
	return true;
}

bool pw_diff_hunk_line(const char *l, size_t n, int parents, bool *in_old,
		       bool *in_new)
{
	int i;

	*in_old = *in_new = true;
	if (n == 0)		/* an empty context line, trailing space lost */
		return true;
	if (l[0] == '\\') {
		*in_old = *in_new = false;
		return true;
	}
	if (parents == 1) {
		if (l[0] == '-')
			*in_new = false;
		else if (l[0] == '+')
			*in_old = false;
		else if (l[0] != ' ')
			return false;
		return true;
	}
	if (n < (size_t)parents)
		return false;
	for (i = 0; i < parents; i++) {
		if (l[i] == '-')
			*in_new = false;
		else if (l[i] != '+' && l[i] != ' ')
			return false;
	}
	*in_old = l[0] != '+';
	return true;
}

bool pw_diff_is_git_header(const char *l, size_t n)
{
	static const char *const h[] = {
		"old mode ", "new mode ", "deleted file mode ",
		"new file mode ", "copy from ", "copy to ", "rename from ",
		"rename to ", "rename old ", "rename new ",
		"similarity index ", "dissimilarity index ", "index ",
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(h); i++)
		if (starts(l, n, h[i]))
			return true;
	return false;
}

bool pw_diff_is_old_new(const char *s, size_t n, const char *next,
			const char *end)
{
	return starts(s, n, "--- ") && next < end &&
	       starts(next, (size_t)(end - next), "+++ ");
}

/* ---- the parser ---- */

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
	const char *hunk_head;	/* the open hunk's "@@ ... @@", in p->text */
	size_t hunk_head_len;
	const struct pw_diff_context *ctx;	/* the mail around it, or NULL */
	bool split_reported;	/* the open hunk's split line is reported */
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

/* "the hunk header \"@@ -a,b +c,d @@\" announces ..., the hunk has ..." */
static void counts(GString *o, const struct parser *ps, const struct pw_hunk *h)
{
	int old_left = ps->old_left, new_left = ps->new_left;
	int old_has = h->old_count - old_left, new_has = h->new_count - new_left;

	g_string_append_printf(o, "the hunk header \"%.*s\" announces ",
			       (int)ps->hunk_head_len, ps->hunk_head);
	if (old_left > 0 && new_left > 0)
		g_string_append_printf(o, "%d old and %d new lines", h->old_count,
				       h->new_count);
	else if (new_left > 0)
		g_string_append_printf(o, "%d new line%s", h->new_count,
				       h->new_count == 1 ? "" : "s");
	else
		g_string_append_printf(o, "%d old line%s", h->old_count,
				       h->old_count == 1 ? "" : "s");
	if (!h->n)
		return;
	if (old_left > 0 && new_left > 0)
		g_string_append_printf(o, ", the hunk has %d and %d", old_has, new_has);
	else
		g_string_append_printf(o, ", the hunk has %d", new_left > 0 ? new_has : old_has);
}

/* Up to 40 bytes of a line, quoted, control bytes as '?'. */
static void quote_line(GString *o, const char *l, size_t n)
{
	size_t i, m = n > 40 ? 40 : n;

	while (m > 0 && m < n && ((unsigned char)l[m] & 0xc0) == 0x80)
		m--;	/* not inside a UTF-8 sequence */
	g_string_append_c(o, '"');
	for (i = 0; i < m; i++)
		g_string_append_c(o, (unsigned char)l[i] < 0x20 && l[i] != '\t' ? '?' : l[i]);
	g_string_append(o, m < n ? "...\"" : "\"");
}

/* RFC 5321's most octets in a line, without its CRLF. */
#define SMTP_LINE_MAX 998
/* What to do about a line split at SMTP_LINE_MAX, wherever it is told. */
#define SPLIT_ADVICE "send such a patch quoted-printable" \
	" (git send-email --transfer-encoding=quoted-printable)"

/* Whether the n bytes at l start with white space holding a U+00A0. */
static bool nbsp_indent(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (l[i] == ' ' || l[i] == '\t')
			i++;
		else if (i + 1 < n && (unsigned char)l[i] == 0xc2 &&
			 (unsigned char)l[i + 1] == 0xa0)
			return true;
		else
			break;
	}
	return false;
}

/*
 * What the bytes show did to a hunk that stops short at line l (n
 * bytes; NULL: the end of the diff, where the mail's context, if any,
 * has the line): the words naming it, or NULL when they show nothing
 * and the message keeps to the likely causes.
 */
static const char *damage(const struct parser *ps, const struct pw_hunk *h,
			  const char *l, size_t n)
{
	const struct pw_diff_context *ctx = ps->ctx;
	size_t i;

	for (i = h->first; i < ps->lines->len; i++)
		if (g_array_index(ps->lines, struct pw_dline, i).len + 1 == SMTP_LINE_MAX)
			return ": a line of the hunk is 998 bytes long, the most SMTP allows in one line, "
			       "and the rest of it came as a line of its own: a longer line was split in transit; "
			       SPLIT_ADVICE;
	if (ctx && ctx->unflowed)
		return ": the mail is format=flowed, and unwrapping it, as git am does, joined a line "
		       "of the patch that ends in a space (an empty context line) to the next; "
		       "send the patch with git send-email, not format=flowed";
	if (!l && ctx) {
		/* One empty context line short is the usual trimmed
		 * end of a mail, which the message names already. */
		if (!ctx->stop && !(ps->old_left == 1 && ps->new_left == 1))
			return ": the mail ends there, so the patch was cut short";
		if (!ctx->stop)
			return NULL;
		l = ctx->stop;
		n = strlen(l);
	}
	if (l && nbsp_indent(l, n))
		return ": that line is indented with U+00A0 no-break spaces, not spaces, as a mail client "
		       "writing HTML changes them, and git reads no such line as context; "
		       "send the patch as plain text (git send-email)";
	return NULL;
}

/*
 * Ends the hunk in progress, reporting lines its header promised: what
 * the header announces, what the hunk holds, and where it stops (the
 * line l of n bytes that does not fit, or the end of the diff when l is
 * NULL), in the words a sender can act on.  A hunk git apply reads to
 * its counts never gets here.
 */
static void close_hunk(struct parser *ps, const char *l, size_t n)
{
	const struct pw_hunk *h;
	const char *why;
	GString *o;

	if (ps->st != ST_HUNK)
		return;
	ps->st = ST_NONE;
	if ((ps->old_left <= 0 && ps->new_left <= 0) || ps->split_reported)
		return;
	h = &g_array_index(ps->hunks, struct pw_hunk, ps->hunks->len - 1);
	o = g_string_new(NULL);
	counts(o, ps, h);
	why = damage(ps, h, l, n);
	if (why && !l) {
		g_string_append(o, h->n ? ", then the diff stops" : ", but no hunk line follows it");
		if (ps->ctx && ps->ctx->stop) {
			g_string_append(o, " at ");
			quote_line(o, ps->ctx->stop, strlen(ps->ctx->stop));
		}
		g_string_append(o, why);
	} else if (why) {
		g_string_append(o, ", then comes ");
		quote_line(o, l, n);
		g_string_append(o, why);
	} else if (!l) {
		/* The end of the diff: of the mail, or of what git apply
		 * reads as the diff (body.c), at a line that is no diff line. */
		if (!h->n)
			g_string_append(o, ", but no hunk line follows it");
		else
			g_string_append(o, ", then the diff stops");
		if (h->n && ps->old_left == 1 && ps->new_left == 1)
			g_string_append(o, ": a mail client probably dropped an empty last context line, or the patch was cut or edited by hand");
		else
			g_string_append(o, ": a mail client probably wrapped a long line or changed its spaces, or the patch was cut or edited by hand");
	} else if (n == 0 || (n == 1 && l[0] == '\r')) {
		g_string_append(o, ", then comes an empty line, which git reads as context, and the header has no room for it: the patch was edited by hand or cut");
	} else {
		bool in_old, in_new;

		g_string_append(o, ", then comes ");
		quote_line(o, l, n);
		if (starts(l, n, "@@ "))
			g_string_append(o, ", the next hunk: the header's counts are wrong (the hunk was edited by hand)");
		else if (starts(l, n, "diff ") || starts(l, n, "--- ") || starts(l, n, "Index: "))
			g_string_append(o, ", the next file: the header's counts are wrong (the hunk was edited by hand)");
		else if ((n == 3 && !memcmp(l, "-- ", 3)) ||
			 (n == 2 && !memcmp(l, "--", 2)))
			g_string_append(o, ", a mail signature separator, where the hunk still needs lines: the patch was cut or edited by hand");
		else if (pw_diff_hunk_line(l, n, 1, &in_old, &in_new))
			g_string_append_printf(o, ", %s line the header has no room for: the header's counts are wrong (the hunk was edited by hand)",
					       in_new ? "a context" : "a removed");
		else
			g_string_append(o, ", neither context nor a change (it starts with none of ' ', '+', '-'): a mail client probably wrapped a long line or changed its spaces, or the patch was edited by hand");
	}
	g_string_append(o, "; git am will refuse the patch");
	problem(ps, ps->hunk_patch_no, "%s", o->str);
	g_string_free(o, TRUE);
}

static void close_file(struct parser *ps, int patch_no)
{
	close_hunk(ps, NULL, 0);
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

/* Largest line number or count the parser takes from a hunk header. */
#define MAX_HUNK_NUMBER 100000000

/* "@@ -a,b +c,d @@ ...", exactly so: one parent, one space before each
 * range, and " @@" after them. */
static bool hunk_header(struct parser *ps, const char *s, size_t len, int patch_no)
{
	struct pw_hunk_head hh;
	struct pw_hunk h;

	if (!pw_diff_hunk_head(s, len, &hh) || hh.parents != 1 || hh.loose ||
	    !hh.closed || hh.old.start > MAX_HUNK_NUMBER ||
	    hh.old.count > MAX_HUNK_NUMBER || hh.new.start > MAX_HUNK_NUMBER ||
	    hh.new.count > MAX_HUNK_NUMBER)
		return false;
	memset(&h, 0, sizeof(h));
	h.old_start = hh.old.start;
	h.old_count = hh.old.count;
	h.new_start = hh.new.start;
	h.new_count = hh.new.count;
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
	ps->hunk_head = s;
	ps->hunk_head_len = hh.len + 3;	/* the ranges and " @@" */
	ps->split_reported = false;
	ps->st = ST_HUNK;
	if (!h.old_count && !h.new_count)
		ps->st = ST_NONE;
	return true;
}

/*
 * A line of exactly SMTP's 998 bytes, then a context line: a relay split
 * a longer line and started its rest with a space (Postfix does), which
 * git reads as context.  The counts may still fit, one line early, and
 * git apply then finds no such context; reported once per hunk.
 */
static void split_line(struct parser *ps, const struct pw_hunk *h, int patch_no)
{
	const struct pw_dline *prev, *cur;
	GString *o;

	if (ps->split_reported || ps->lines->len < h->first + 2)
		return;
	cur = &g_array_index(ps->lines, struct pw_dline, ps->lines->len - 1);
	prev = cur - 1;
	if (cur->kind != ' ' || prev->len + 1 != SMTP_LINE_MAX)
		return;
	ps->split_reported = true;
	o = g_string_new(NULL);
	g_string_append_printf(o, "in the hunk \"%.*s\", a line is 998 bytes long, the most SMTP allows "
			       "in one line, and the next starts with a space, as a relay starts the rest "
			       "of a line it splits: a longer line was split in transit, so git apply "
			       "will not find the hunk's context; " SPLIT_ADVICE,
			       (int)ps->hunk_head_len, ps->hunk_head);
	problem(ps, patch_no - 1, "%s", o->str);
	g_string_free(o, TRUE);
}

/* Adds one hunk line; false when it does not fit the hunk's counts. */
static bool hunk_line(struct parser *ps, const char *s, size_t len, int patch_no)
{
	struct pw_dline d;
	struct pw_hunk *h;
	bool in_old, in_new;

	if (!pw_diff_hunk_line(s, len, 1, &in_old, &in_new))
		return false;
	if (!in_old && !in_new) {	/* "\ No newline at end of file" */
		if (ps->lines->len)
			g_array_index(ps->lines, struct pw_dline,
				      ps->lines->len - 1).no_newline = true;
		return true;
	}
	if ((in_old && ps->old_left <= 0) || (in_new && ps->new_left <= 0))
		return false;
	memset(&d, 0, sizeof(d));
	d.kind = in_old ? (in_new ? ' ' : '-') : '+';
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
	if (in_old)
		d.old_no = ps->old_no++, ps->old_left--;
	if (in_new)
		d.new_no = ps->new_no++, ps->new_left--;
	g_array_append_val(ps->lines, d);
	h = &g_array_index(ps->hunks, struct pw_hunk, ps->hunks->len - 1);
	h->n++;
	split_line(ps, h, patch_no);
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
	return pw_diff_parse_ctx(text, len, NULL);
}

struct pw_patch *pw_diff_parse_ctx(const char *text, size_t len,
				   const struct pw_diff_context *ctx)
{
	struct parser ps;
	struct pw_patch *p = g_new0(struct pw_patch, 1);
	const char *s, *end;
	int patch_no = 0;

	memset(&ps, 0, sizeof(ps));
	ps.ctx = ctx;
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
			close_hunk(&ps, s, l);
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
		} else if (pw_diff_is_old_new(s, l, next, end)) {
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

bool pw_diff_is_bare(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == '\n' || s[i] == '\r'))
		i++;
	s += i;
	len -= i;
	return (len >= 5 && !memcmp(s, "diff ", 5)) ||
	       (len >= 4 && !memcmp(s, "--- ", 4)) ||
	       (len >= 7 && !memcmp(s, "Index: ", 7));
}
