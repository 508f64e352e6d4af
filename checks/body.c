/*
 * patchwarden: what a message body says (see checks/body.h).
 *
 * From whom the rules come:
 *  - the diff: inline in text/plain, or in patch attachments (bot/mail.c
 *    tells them apart, as patchwork's find_patch_content() does); the
 *    extent of a diff follows git apply: file headers, then hunks whose
 *    line counts say where they end, read with checks/diff.c's
 *    primitives, so a signature or a list footer after the last hunk is
 *    never part of the diff;
 *  - the commit message: the text before the first patch separator
 *    (git mailinfo's patchbreak(): "---", "diff -", "Index: ");
 *  - both from format=flowed text unwrapped first, as git mailinfo
 *    unwraps every line of it;
 *  - the pull request URL: patchwork's parse_pull_request().
 */
#include <string.h>

#include "checks/body.h"
#include "checks/patch.h"

/* ------------------------------------------------------------------ */
/* Strings */

static bool starts_ci(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !g_ascii_strncasecmp(s, prefix, n);
}

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* Length of the line at s (without its newline) within the n bytes left. */
static size_t line_len(const char *s, size_t n)
{
	const char *nl = memchr(s, '\n', n);

	return nl ? (size_t)(nl - s) : n;
}

/* Offset of the line after the one at pos. */
static size_t next_line(const char *t, size_t n, size_t pos)
{
	const char *nl = memchr(t + pos, '\n', n - pos);

	return nl ? (size_t)(nl - t) + 1 : n;
}

/* ------------------------------------------------------------------ */
/* The diff extent: git apply's rules, on checks/diff.c's primitives */

#define NONE ((size_t)-1)

/*
 * Hunks from pos.  Returns the end of the last one, or NONE when pos
 * does not start a hunk.  *cut is set when a hunk ends before its
 * header's line counts do.
 */
static size_t hunks(const char *t, size_t n, size_t pos, bool *cut)
{
	struct pw_hunk_head h;
	size_t count = 0;
	long old, new;
	bool in_old, in_new;

	while (pos < n) {
		size_t l = line_len(t + pos, n - pos);

		if (!pw_diff_hunk_head(t + pos, l, &h))
			break;
		old = h.old.count;
		new = h.new.count;
		pos = next_line(t, n, pos);
		while ((old > 0 || new > 0) && pos < n) {
			l = line_len(t + pos, n - pos);
			if (!pw_diff_hunk_line(t + pos, l, h.parents, &in_old,
					       &in_new))
				break;
			old -= in_old;
			new -= in_new;
			pos = next_line(t, n, pos);
		}
		count++;
		while (pos < n && t[pos] == '\\')
			pos = next_line(t, n, pos);
		/* This hunk, not an earlier file's, decides. */
		if (old > 0 || new > 0) {
			*cut = true;
			break;
		}
	}
	return count ? pos : NONE;
}

/* A "GIT binary patch" section: up to two literal/delta blocks. */
static size_t binary(const char *t, size_t n, size_t pos)
{
	int k;

	pos = next_line(t, n, pos);
	for (k = 0; k < 2 && pos < n; k++) {
		size_t l = line_len(t + pos, n - pos);

		if (!starts(t + pos, l, "literal ") && !starts(t + pos, l, "delta "))
			break;
		pos = next_line(t, n, pos);
		while (pos < n && t[pos] != '\n')
			pos = next_line(t, n, pos);
		if (pos < n)
			pos = next_line(t, n, pos);
	}
	return pos;
}

/* "--- " then "+++ " at pos: returns the position after them, or NONE. */
static size_t old_new(const char *t, size_t n, size_t pos)
{
	size_t q = next_line(t, n, pos);

	if (!pw_diff_is_old_new(t + pos, line_len(t + pos, n - pos), t + q,
				t + n))
		return NONE;
	return next_line(t, n, q);
}

/* One file's section of a diff at pos: its end, or NONE. */
static size_t file_section(const char *t, size_t n, size_t pos, bool *cut)
{
	size_t l = line_len(t + pos, n - pos), q, r;
	int ext = 0, k;

	if (starts(t + pos, l, "diff --git ") || starts(t + pos, l, "diff --cc ") ||
	    starts(t + pos, l, "diff --combined ")) {
		pos = next_line(t, n, pos);
		while (pos < n && pw_diff_is_git_header(t + pos,
						      line_len(t + pos, n - pos))) {
			ext++;
			pos = next_line(t, n, pos);
		}
		l = pos < n ? line_len(t + pos, n - pos) : 0;
		if (starts(t + pos, l, "GIT binary patch"))
			return binary(t, n, pos);
		if (starts(t + pos, l, "Binary files "))
			return next_line(t, n, pos);
		/* Hunks right after the header lines, without ---/+++
		 * (hand-made, but patchwork accepts them). */
		if (ext && starts(t + pos, l, "@@ "))
			return hunks(t, n, pos, cut);
		q = pos < n ? old_new(t, n, pos) : NONE;
		if (q != NONE) {
			r = hunks(t, n, q, cut);
			return r != NONE ? r : ext ? q : NONE;
		}
		return ext ? pos : NONE;
	}
	if (starts(t + pos, l, "diff ")) {
		pos = next_line(t, n, pos);
		if (pos >= n)
			return NONE;
		l = line_len(t + pos, n - pos);
		if (starts(t + pos, l, "Binary files "))
			return next_line(t, n, pos);
		q = old_new(t, n, pos);
		return q == NONE ? NONE : hunks(t, n, q, cut);
	}
	if (starts(t + pos, l, "Index: ")) {
		/* CVS and svn: "====", "RCS file:", "retrieving ...", "diff ..." */
		pos = next_line(t, n, pos);
		for (k = 0; k < 8 && pos < n; k++) {
			q = old_new(t, n, pos);
			if (q != NONE)
				return hunks(t, n, q, cut);
			pos = next_line(t, n, pos);
		}
		return NONE;
	}
	q = old_new(t, n, pos);
	return q == NONE ? NONE : hunks(t, n, q, cut);
}

/* A line that may start a diff, a cheap test before file_section(). */
static bool diff_start(const char *l, size_t n)
{
	return starts(l, n, "diff ") || starts(l, n, "Index: ") ||
	       starts(l, n, "--- ");
}

bool pw_body_find_diff(const char *t, size_t n, size_t *start, size_t *end,
		       bool *cut)
{
	size_t pos = 0, q, e;

	for (pos = 0; pos < n; pos = next_line(t, n, pos)) {
		if (!diff_start(t + pos, line_len(t + pos, n - pos)))
			continue;
		q = file_section(t, n, pos, cut);
		if (q == NONE)
			continue;
		*start = pos;
		e = q;
		while (e < n) {
			size_t l = line_len(t + e, n - e);

			/* Lines that diff -r prints between files. */
			if (starts(t + e, l, "Only in ")) {
				e = next_line(t, n, e);
				continue;
			}
			q = diff_start(t + e, l) ? file_section(t, n, e, cut)
						 : NONE;
			if (q == NONE)
				break;
			e = q;
		}
		*end = e;
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* The commit message */

bool pw_body_patchbreak(const char *l, size_t n)
{
	size_t i;

	if (starts(l, n, "diff -") || starts(l, n, "Index: "))
		return true;
	if (!starts(l, n, "---"))
		return false;
	if (n > 4 && l[3] == ' ' && !g_ascii_isspace(l[4]))
		return true;
	for (i = 3; i < n; i++)
		if (!g_ascii_isspace(l[i]))
			return false;
	return true;
}

/*
 * Appends n bytes of format=flowed text to out, unwrapped as git
 * mailinfo does it (handle_filter_flowed()), so that the commit message
 * is the one git am would record: space-stuffing removed, lines ending
 * in a space joined with the next, "-- " kept as is.
 */
static void unflow(GString *out, const char *t, size_t n, bool delsp)
{
	size_t pos, l;
	GString *prev = g_string_new(NULL);

	for (pos = 0; pos < n; pos = next_line(t, n, pos)) {
		const char *p = t + pos;

		l = line_len(p, n - pos);
		if (l == 3 && !memcmp(p, "-- ", 3)) {
			if (prev->len) {
				g_string_append_len(out, prev->str, (gssize)prev->len);
				g_string_append_c(out, '\n');
				g_string_truncate(prev, 0);
			}
			g_string_append(out, "-- \n");
			continue;
		}
		if (l && p[0] == ' ') {
			p++;
			l--;
		}
		if (l && p[l - 1] == ' ') {
			g_string_append_len(prev, p, (gssize)(l - (delsp ? 1 : 0)));
			continue;
		}
		g_string_append_len(out, prev->str, (gssize)prev->len);
		g_string_append_len(out, p, (gssize)l);
		g_string_append_c(out, '\n');
		g_string_truncate(prev, 0);
	}
	if (prev->len) {
		g_string_append_len(out, prev->str, (gssize)prev->len);
		g_string_append_c(out, '\n');
	}
	g_string_free(prev, TRUE);
}

char *pw_body_trim(const char *s, size_t len)
{
	size_t a = 0, b = len, p;

	for (p = 0; p < len; p++) {
		if (s[p] == '\n')
			a = p + 1;
		else if (!g_ascii_isspace(s[p]))
			break;
	}
	while (b > a && g_ascii_isspace(s[b - 1]))
		b--;
	if (b == a)
		return g_strdup("");
	return g_strdup_printf("%.*s\n", (int)(b - a), s + a);
}

/* ------------------------------------------------------------------ */
/* Pull requests: patchwork's parse_pull_request(), by hand. */

static bool word_char(unsigned char c)
{
	return g_ascii_isalnum(c) || c == '_' || c >= 0x80;
}

static bool url_char(unsigned char c)
{
	return word_char(c) || c == '/' || c == '.' || c == '@' || c == ':' ||
	       c == '~' || c == '-';
}

static bool branch_char(unsigned char c)
{
	return word_char(c) || c == '/' || c == '.' || c == '-';
}

/* Finds a line that starts with (case-insensitive) needle, from pos. */
static size_t find_line_ci(const char *t, size_t n, size_t pos,
			   const char *needle)
{
	for (; pos < n; pos = next_line(t, n, pos))
		if (starts_ci(t + pos, line_len(t + pos, n - pos), needle))
			return pos;
	return NONE;
}

char *pw_body_find_pull(const char *t, size_t n)
{
	size_t pos, p, u, e, b, be;
	GString *r;

	pos = find_line_ci(t, n, 0, "The following changes since commit");
	if (pos == NONE)
		return NULL;
	for (;;) {
		pos = find_line_ci(t, n, pos,
				   "are available in the git repository at:");
		if (pos == NONE)
			return NULL;
		p = pos + strlen("are available in the git repository at:");
		pos = next_line(t, n, pos);
		while (p < n && t[p] != '\n' && g_ascii_isspace(t[p]))
			p++;
		if (p < n && t[p] != '\n')
			continue;
		/* the URL, after any white space and blank lines */
		while (p < n && g_ascii_isspace(t[p]))
			p++;
		u = p;
		while (p < n && (word_char((unsigned char)t[p]) || t[p] == '+' ||
				 t[p] == '-'))
			p++;
		if (p == u)
			continue;
		if (starts(t + p, n - p, "://"))
			p += 3;
		else if (p < n && t[p] == '@')
			p++;
		else
			continue;
		while (p < n && url_char((unsigned char)t[p]))
			p++;
		e = p;
		break;
	}
	r = g_string_new_len(t + u, (gssize)(e - u));
	/* the branch or tag: on the same line, or alone on a later line */
	for (b = e; b < n && (t[b] == ' ' || t[b] == '\t' || t[b] == '\\'); b++)
		;
	if (b < n && t[b] != '\n') {
		for (be = b; be < n && branch_char((unsigned char)t[be]); be++)
			;
	} else {
		size_t z;

		while (b < n && (g_ascii_isspace(t[b]) || t[b] == '\\'))
			b++;
		for (be = b; be < n && branch_char((unsigned char)t[be]); be++)
			;
		/* A word followed by more text is prose, not a branch. */
		for (z = be; z < n && t[z] != '\n' && g_ascii_isspace(t[z]); z++)
			;
		if (z < n && t[z] != '\n')
			be = b;
	}
	if (be > b) {
		g_string_append_c(r, ' ');
		g_string_append_len(r, t + b, (gssize)(be - b));
	}
	return g_string_free(r, FALSE);
}

/* ------------------------------------------------------------------ */
/* A body, part by part */

void pw_body_init(struct pw_body *b)
{
	memset(b, 0, sizeof(*b));
	b->msg = g_string_new(NULL);
	b->diff = g_string_new(NULL);
}

void pw_body_release(struct pw_body *b)
{
	if (b->msg)
		g_string_free(b->msg, TRUE);
	if (b->diff)
		g_string_free(b->diff, TRUE);
	if (b->rest)
		g_string_free(b->rest, TRUE);
	g_free(b->pull_url);
	memset(b, 0, sizeof(*b));
}

/* Appends [start, end) of t to the diff. */
static void append_diff(struct pw_body *b, const char *t, size_t start,
			size_t end)
{
	g_string_append_len(b->diff, t + start, (gssize)(end - start));
	if (b->diff->len && b->diff->str[b->diff->len - 1] != '\n')
		g_string_append_c(b->diff, '\n');
}

/*
 * Notes a diff of t (n bytes) that ends at de with a hunk cut short:
 * what follows it in t, from the line it stops at (what the mail client
 * or a relay did to it is there), to show the patch as sent and to
 * name the cause; none when t ends there.  Only the first diff's is
 * kept, as only it is read.
 */
static void note_cut(struct pw_body *b, const char *t, size_t n, size_t de,
		     bool cut)
{
	if (!cut || b->cut)
		return;
	b->cut = true;
	if (de >= n)
		return;
	b->rest = g_string_new_len(t + de, (gssize)(n - de));
	if (b->rest->str[b->rest->len - 1] != '\n')
		g_string_append_c(b->rest, '\n');
}

bool pw_body_add_text(struct pw_body *b, const char *t, size_t n,
		      enum pw_body_flow flow)
{
	size_t ds = n, de = n, pos, l;
	bool found, cut = false;

	if (b->diff->len)
		return false;
	/*
	 * git mailinfo unwraps format=flowed text line by line before it
	 * tells the commit message from the patch (handle_filter_flowed()),
	 * so a patch a mail client sent flowed, space-stuffed and
	 * soft-wrapped, is whole again for git am: the diff is read from
	 * the unwrapped text too, or an intact patch would look cut.
	 */
	if (flow != PW_BODY_FIXED) {
		GString *u = g_string_sized_new(n);

		unflow(u, t, n, flow == PW_BODY_FLOWED_DELSP);
		cut = pw_body_add_text(b, u->str, u->len, PW_BODY_FIXED);
		g_string_free(u, TRUE);
		/* Whole as sent, cut once unwrapped: the unwrapping (a line
		 * ending in a space, as an empty context line does, joins
		 * the next) damaged it, for git am as here. */
		if (cut) {
			bool raw_cut = false;

			b->unflowed = pw_body_find_diff(t, n, &ds, &de, &raw_cut) &&
				      !raw_cut;
		}
		return cut;
	}
	found = pw_body_find_diff(t, n, &ds, &de, &cut);
	if (!b->separated) {
		if (!b->pull_url)
			b->pull_url = pw_body_find_pull(t, n);
		for (pos = 0; pos < ds; pos = next_line(t, n, pos)) {
			l = line_len(t + pos, n - pos);
			if (pw_body_patchbreak(t + pos, l)) {
				b->separated = true;
				break;
			}
		}
		if (b->msg->len && pos > 0)
			g_string_append_c(b->msg, '\n');
		g_string_append_len(b->msg, t, (gssize)pos);
	}
	if (found) {
		b->separated = true;
		note_cut(b, t, n, de, cut);
		append_diff(b, t, ds, de);
	}
	return cut;
}

bool pw_body_add_patch(struct pw_body *b, const char *t, size_t n)
{
	size_t ds, de;
	bool cut = false;

	if (!pw_body_find_diff(t, n, &ds, &de, &cut))
		return false;
	b->separated = true;
	note_cut(b, t, n, de, cut);
	append_diff(b, t, ds, de);
	return true;
}

void pw_body_finish(struct pw_body *b, struct pw_mail *m)
{
	m->commit_msg = pw_body_trim(b->msg->str, b->msg->len);
	if (b->diff->len) {
		m->diff = g_string_free(b->diff, FALSE);
		b->diff = NULL;
		m->diff_cut = b->cut;
		if (b->rest) {
			m->diff_rest = g_string_free(b->rest, FALSE);
			b->rest = NULL;
		}
		m->diff_unflowed = b->unflowed;
	}
	m->pull_url = b->pull_url;
	b->pull_url = NULL;
	pw_body_release(b);
}
