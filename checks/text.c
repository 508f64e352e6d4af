/*
 * patchwarden: joined texts, line lookup and sanitizing.
 *
 * Sanitizing follows checkpatch.pl's sanitise_line(): comments and the
 * contents of strings and character constants can never trigger a rule.
 */
#include <string.h>
#include <glib.h>

#include "checks/text.h"

void pw_text_init_source(struct pw_text *t, const char *buf, size_t len)
{
	memset(t, 0, sizeof(*t));
	t->buf = buf;
	t->len = len;
}

bool pw_text_init_hunk(struct pw_text *t, const struct pw_file *f,
		       const struct pw_hunk *h)
{
	GString *s;
	size_t i, n = 0;
	bool added = false;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < h->n; i++) {
		const struct pw_dline *d = &f->lines[h->first + i];

		if (d->kind == '+')
			added = true;
		if (d->kind != '-')
			n++;
	}
	if (!added)
		return false;
	s = g_string_sized_new(256);
	t->lines = g_new(struct pw_tline, n);
	for (i = 0; i < h->n; i++) {
		const struct pw_dline *d = &f->lines[h->first + i];
		struct pw_tline *l;

		if (d->kind == '-')
			continue;
		l = &t->lines[t->nlines++];
		l->off = s->len;
		l->len = d->len;
		l->new_no = d->new_no;
		l->patch_no = d->patch_no;
		l->added = d->kind == '+';
		g_string_append_len(s, d->text, (gssize)d->len);
		g_string_append_c(s, '\n');
	}
	t->len = s->len;
	t->owned = g_string_free(s, FALSE);
	t->buf = t->owned;
	return true;
}

void pw_text_release(struct pw_text *t)
{
	g_free(t->owned);
	g_free(t->lines);
	g_free(t->starts);
	memset(t, 0, sizeof(*t));
}

/* Where every line of a source file starts, so that lookups need not
 * scan from the top (rules look up offsets in any order). */
static void build_starts(struct pw_text *t)
{
	const char *p, *end = t->buf + t->len, *nl;
	size_t n = 1;

	for (p = t->buf; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1)
		n++;
	t->starts = g_new(size_t, n);
	t->nstarts = 0;
	t->starts[t->nstarts++] = 0;
	for (p = t->buf; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1)
		t->starts[t->nstarts++] = (size_t)(nl + 1 - t->buf);
}

void pw_text_locate(struct pw_text *t, size_t off, struct pw_loc *loc)
{
	if (t->lines) {
		size_t lo = 0, hi = t->nlines;

		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;

			if (t->lines[mid].off <= off)
				lo = mid;
			else
				hi = mid;
		}
		loc->idx = lo;
		loc->start = t->lines[lo].off;
		loc->len = t->lines[lo].len;
		loc->new_no = t->lines[lo].new_no;
		loc->patch_no = t->lines[lo].patch_no;
		loc->added = t->lines[lo].added;
		return;
	}
	if (!t->starts)
		build_starts(t);
	{
		/* The last line starting at or before off. */
		size_t lo = 0, hi = t->nstarts;

		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (t->starts[mid] <= off)
				lo = mid;
			else
				hi = mid;
		}
		loc->idx = lo;
		loc->start = t->starts[lo];
		loc->len = (lo + 1 < t->nstarts ? t->starts[lo + 1] - 1 : t->len) -
			   loc->start;
	}
	loc->new_no = (int)loc->idx + 1;
	loc->patch_no = 0;
	loc->added = true;
}

/* Where line i of t starts and how long it is, without its newline. */
static size_t line_at(const struct pw_text *t, size_t i, size_t *len)
{
	if (t->lines) {
		*len = t->lines[i].len;
		return t->lines[i].off;
	}
	*len = (i + 1 < t->nstarts ? t->starts[i + 1] - 1 : t->len) - t->starts[i];
	return t->starts[i];
}

/* Whether line i of t ends in a backslash, blanks after it allowed. */
static bool continued(struct pw_text *t, size_t i)
{
	size_t len, start = line_at(t, i, &len), e = start + len;

	while (e > start && (t->buf[e - 1] == ' ' || t->buf[e - 1] == '\t' ||
			     t->buf[e - 1] == '\r')) {
		e--;
		t->work++;
	}
	return e > start && t->buf[e - 1] == '\\';
}

size_t pw_text_logical_start(struct pw_text *t, size_t off)
{
	struct pw_loc loc;
	size_t i, len;

	pw_text_locate(t, off, &loc);
	/* Step back over continued lines, down to the line asked about
	 * last time at most: its answer is this one's too. */
	for (i = loc.idx; i > 0; i--) {
		t->work++;
		if (t->memo_line == i + 1) {
			i = t->memo_first;
			break;
		}
		if (!continued(t, i - 1))
			break;
	}
	t->memo_line = loc.idx + 1;
	t->memo_first = i;
	return line_at(t, i, &len);
}

bool pw_text_added(struct pw_text *t, size_t from, size_t to)
{
	struct pw_loc a, b;
	size_t i;

	if (!t->lines)
		return true;
	pw_text_locate(t, from, &a);
	pw_text_locate(t, to, &b);
	for (i = a.idx; i <= b.idx; i++)
		if (t->lines[i].added)
			return true;
	return false;
}

enum cstate { C_CODE, C_LINE, C_BLOCK, C_STR, C_CHR };

/* Decides whether a hunk starts inside a block comment. */
static bool starts_in_comment(const char *in, size_t len)
{
	const char *close = memmem(in, len, "*/", 2);
	const char *open;

	if (!close)
		return false;
	open = memmem(in, (size_t)(close - in), "/*", 2);
	return open == NULL;
}

/* Bytes that can change the C sanitizer's state, or need rewriting. */
static const unsigned char c_special[256] = {
	['/'] = 1, ['"'] = 1, ['\''] = 1, ['\\'] = 1, ['\n'] = 1, ['\r'] = 1,
};

void pw_text_sanitize_c(const char *in, size_t len, char *out,
			bool maybe_in_comment)
{
	enum cstate st = C_CODE;
	size_t i = 0;

	if (maybe_in_comment && starts_in_comment(in, len))
		st = C_BLOCK;
	while (i < len) {
		char c;

		if (st == C_CODE) {
			/* Copy the plain run up to the next special byte at once. */
			size_t j = i;

			while (j < len && !c_special[(unsigned char)in[j]])
				j++;
			memcpy(out + i, in + i, j - i);
			i = j;
			if (i >= len)
				break;
		} else if (st == C_BLOCK) {
			const char *star = memchr(in + i, '*', len - i);
			size_t j = star ? (size_t)(star - in) : len;
			size_t k;

			/* Blank up to the star, keeping newlines. */
			for (k = i; k < j; k++)
				out[k] = in[k] == '\n' ? '\n' : ' ';
			i = j;
			if (i >= len)
				break;
		} else if (st == C_LINE) {
			const char *nl = memchr(in + i, '\n', len - i);
			size_t j = nl ? (size_t)(nl - in) : len;

			memset(out + i, ' ', j - i);
			i = j;
			if (i >= len)
				break;
		}
		c = in[i];
		if (c == '\n') {
			out[i++] = '\n';
			if (st == C_LINE || st == C_STR || st == C_CHR)
				st = C_CODE;	/* unterminated: recover */
			continue;
		}
		switch (st) {
		case C_CODE:
			if (c == '/' && i + 1 < len && in[i + 1] == '/') {
				st = C_LINE;
				out[i++] = ' ';
				out[i++] = ' ';
				continue;
			}
			if (c == '/' && i + 1 < len && in[i + 1] == '*') {
				st = C_BLOCK;
				out[i++] = ' ';
				out[i++] = ' ';
				continue;
			}
			if (c == '\\' && i + 1 < len && (in[i + 1] == '\n' ||
			    (in[i + 1] == '\r' && i + 2 < len && in[i + 2] == '\n'))) {
				out[i++] = ' ';
				continue;
			}
			if (c == '"')
				st = C_STR;
			else if (c == '\'')
				st = C_CHR;
			out[i++] = c == '\r' ? ' ' : c;
			continue;
		case C_LINE:
			out[i++] = ' ';
			continue;
		case C_BLOCK:
			if (c == '*' && i + 1 < len && in[i + 1] == '/') {
				st = C_CODE;
				out[i++] = ' ';
				out[i++] = ' ';
				continue;
			}
			out[i++] = ' ';
			continue;
		case C_STR:
		case C_CHR:
			if (c == '\\' && i + 1 < len && in[i + 1] != '\n') {
				out[i++] = 'X';
				out[i++] = 'X';
				continue;
			}
			if ((st == C_STR && c == '"') || (st == C_CHR && c == '\'')) {
				st = C_CODE;
				out[i++] = c;
				continue;
			}
			out[i++] = 'X';
			continue;
		}
	}
}

void pw_text_sanitize_py(const char *in, size_t len, char *out)
{
	size_t i = 0;

	while (i < len) {
		char c = in[i];

		if (c == '#') {
			while (i < len && in[i] != '\n')
				out[i++] = ' ';
			continue;
		}
		if (c == '"' || c == '\'') {
			bool triple = i + 2 < len && in[i + 1] == c && in[i + 2] == c;
			size_t q = triple ? 3 : 1, k;

			for (k = 0; k < q; k++)
				out[i + k] = c;
			i += q;
			while (i < len) {
				if (in[i] == '\\' && i + 1 < len) {
					out[i] = 'X';
					out[i + 1] = in[i + 1] == '\n' ? '\n' : 'X';
					i += 2;
					continue;
				}
				if (!triple && in[i] == '\n')
					break;
				if (in[i] == c && (!triple || (i + 2 < len &&
				    in[i + 1] == c && in[i + 2] == c))) {
					for (k = 0; k < q; k++)
						out[i + k] = c;
					i += q;
					break;
				}
				out[i] = in[i] == '\n' ? '\n' : 'X';
				i++;
			}
			continue;
		}
		out[i++] = c == '\r' ? ' ' : c;
	}
}

void pw_text_sanitize_sh(const char *in, size_t len, char *out)
{
	size_t i = 0;
	char prev = '\n';

	while (i < len) {
		char c = in[i];

		if (c == '#' && (prev == '\n' || prev == ' ' || prev == '\t' ||
				 prev == ';')) {
			while (i < len && in[i] != '\n')
				out[i++] = ' ';
			prev = ' ';
			continue;
		}
		out[i++] = c == '\r' ? ' ' : c;
		prev = c;
	}
}

/* A valid UTF-8 copy of len bytes of s, NUL bytes dropped. */
char *pw_utf8_dup(const char *s, gssize len)
{
	const char *end;
	char *r, *w;
	const char *p;

	if (!s)
		return g_strdup("");
	if (len < 0)
		len = (gssize)strlen(s);
	if (g_utf8_validate(s, len, &end) && !memchr(s, '\0', (size_t)len))
		return g_strndup(s, (gsize)len);
	r = g_malloc((gsize)len + 1);
	for (p = s, w = r; p < s + len; p++)
		if (*p)
			*w++ = *p;
	*w = '\0';
	if (!g_utf8_validate(r, w - r, NULL)) {
		char *v = g_utf8_make_valid(r, w - r);

		g_free(r);
		r = v;
	}
	return r;
}

/* A valid UTF-8 copy of s with white space runs folded into one space. */
char *pw_utf8_fold(const char *s)
{
	char *r = pw_utf8_dup(s, -1), *w = r;
	const char *p;
	bool space = true;

	for (p = r; *p; p++) {
		if (g_ascii_isspace(*p)) {
			if (!space)
				*w++ = ' ';
			space = true;
		} else {
			*w++ = *p;
			space = false;
		}
	}
	if (w > r && w[-1] == ' ')
		w--;
	*w = '\0';
	return r;
}

bool pw_utf8_bidi_control(gunichar c)
{
	return c == 0x061c || c == 0x200e || c == 0x200f ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

char *pw_utf8_xml_escape(const char *s, gssize len)
{
	char *u = pw_utf8_dup(s, len), *e;
	GString *ok = NULL;
	const char *p;

	for (p = u; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);
		bool bad = (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
			   c == 0xfffe || c == 0xffff;

		if (bad && !ok)
			ok = g_string_new_len(u, p - u);
		if (ok) {
			if (bad)
				g_string_append_unichar(ok, 0xfffd);
			else
				g_string_append_unichar(ok, c);
		}
	}
	e = g_markup_escape_text(ok ? ok->str : u, -1);
	if (ok)
		g_string_free(ok, TRUE);
	g_free(u);
	return e;
}

size_t pw_text_dkim_body_len(const char *b, size_t n, bool relaxed)
{
	size_t i = 0, total = 0, kept = 0;	/* kept: up to the last
						 * non-empty line */

	while (i < n) {
		/* memmem, not a string search: a NUL byte is body too. */
		const char *nl = memmem(b + i, n - i, "\r\n", 2);
		size_t end = nl ? (size_t)(nl - b) : n, line = 0, k;
		bool wsp = false;

		if (relaxed) {
			/* Runs of blanks count as one space, none at the end. */
			for (k = i; k < end; k++) {
				if (b[k] == ' ' || b[k] == '\t') {
					wsp = true;
					continue;
				}
				line += (wsp ? 1 : 0) + 1;
				wsp = false;
			}
		} else {
			line = end - i;
		}
		total += line + 2;
		if (line)
			kept = total;
		i = nl ? end + 2 : n;
	}
	/* Empty lines at the end do not count; an empty body is one CRLF
	 * in simple, nothing in relaxed. */
	if (!kept && !relaxed)
		return 2;
	return kept;
}
