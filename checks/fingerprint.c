/*
 * patchwarden: per-patch flood fingerprints (see checks/fingerprint.h).
 *
 * Reference for the patch identity: git's builtin/patch-id.c as of git
 * 2.39 (get_one_patchid, flush_one_hunk, scan_hunk_header, remove_space),
 * reproduced line by line so that the value equals what
 * "git patch-id --stable" prints for the same text.
 *
 * Everything here scans its input once.  The only super-linear step, the
 * token LCS of one changed statement, is capped (LCS_CELLS) and falls back
 * to a single edit when the cap is exceeded.
 */
#include <string.h>
#include <glib.h>
#include <nettle/sha1.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* Line ends found with SSE2 (every x86-64 has it); white space stripped
 * with SSSE3 where the CPU has it. */
#define STRIP_WIDE 1
#endif

#include "checks/fingerprint.h"
#include "checks/message.h"
#include "checks/patch.h"

#define SHA1_LEN 20
/* Largest token-LCS table for one changed statement. */
#define LCS_CELLS 4096
/* Longest edit side kept as text; longer ones become a digest. */
#define LONG_SIDE 512

/* ---- small helpers ------------------------------------------------------- */

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

static bool starts_ci(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && g_ascii_strncasecmp(s, prefix, n) == 0;
}

static bool blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       c == '\v' || c == '\f';
}

static void hex_of(const char *s, size_t len, char out[PW_FP_HEX])
{
	static const char hx[] = "0123456789abcdef";
	struct sha1_ctx ctx;
	uint8_t d[SHA1_DIGEST_SIZE];
	int i;

	out[0] = '\0';
	if (len == 0)
		return;
	sha1_init(&ctx);
	sha1_update(&ctx, len, (const uint8_t *)s);
	sha1_digest(&ctx, sizeof(d), d);
	for (i = 0; i < SHA1_DIGEST_SIZE; i++) {
		out[2 * i] = hx[d[i] >> 4];
		out[2 * i + 1] = hx[d[i] & 15];
	}
	out[2 * SHA1_DIGEST_SIZE] = '\0';
}

/*
 * One line of a buffer: [line, line + len) is the text up to the first
 * NUL or newline; *next is where the following line starts.  full is the
 * length with the newline, as git's strbuf_getwholeline sees it (git then
 * reads the line as a C string, so a NUL ends it).  nul says whether the
 * buffer has a NUL at all: most have none, and then no line is searched
 * for one.
 */
static size_t next_line(const char *p, const char *end, const char **next,
			bool nul)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *lend = nl ? nl + 1 : end;
	const char *z = nul ? memchr(p, '\0', (size_t)(lend - p)) : NULL;

	*next = lend;
	return (size_t)((z ? z : lend) - p);
}

/*
 * Where the line at p ends: after its newline, or end.  Inline and
 * sixteen bytes at a time: diff lines are short, and a call to memchr()
 * per line costs more than the search.
 */
static inline const char *line_end(const char *p, const char *end)
{
	const char *nl;

#ifdef STRIP_WIDE
	const __m128i lf = _mm_set1_epi8('\n');

	for (; end - p >= 16; p += 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)(const void *)p), lf));

		if (m)
			return p + __builtin_ctz(m) + 1;
	}
#endif
	nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl + 1 : end;
}

/* ---- git patch-id --stable ----------------------------------------------- */

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* git's get_oid_hex() == 0: forty hex digits start at p. */
static bool is_oid_hex(const char *p, size_t len)
{
	size_t i;

	if (len < 40)
		return false;
	for (i = 0; i < 40; i++)
		if (hexval((unsigned char)p[i]) < 0)
			return false;
	return true;
}

/*
 * git's scan_hunk_header(): line starts with "@@ -".  As git does, it
 * sets *before even when it then gives up, leaving *after untouched,
 * and it takes "-,3" (no start) for a range: the ranges are read with
 * checks/diff.c's reader and judged here by git's rule.
 */
static void scan_hunk_header(const char *line, size_t len, int *before,
			     int *after)
{
	const char *end = line + len, *q;
	struct pw_hunk_range r;

	q = pw_diff_hunk_range(line + 4, end, &r);
	*before = r.has_comma ? r.count : 1;
	if (!(r.has_comma ? r.has_count : r.has_start) || q + 1 >= end ||
	    q[0] != ' ' || q[1] != '+')
		return;
	pw_diff_hunk_range(q + 2, end, &r);
	*after = r.has_comma ? r.count : 1;
}

/*
 * SHA-1 input gathered in a buffer, so that the hash sees a few large
 * updates rather than one per word.  Nettle's SHA-1 uses the CPU's SHA
 * instructions where there are some: patch ids hash every diff byte.
 */
#define HBUF 8192
struct hbuf {
	struct sha1_ctx ctx;
	size_t n;
	uint8_t b[HBUF + 16];	/* HBUF bytes, room for a 16-byte store past */
};

static void hbuf_flush(struct hbuf *h)
{
	if (h->n)
		sha1_update(&h->ctx, h->n, h->b);
	h->n = 0;
}

static void hbuf_add(struct hbuf *h, const char *s, size_t n)
{
	hbuf_flush(h);
	sha1_update(&h->ctx, n, (const uint8_t *)s);
}

/* git's flush_one_hunk(): result += SHA-1(ctx), byte 0 lowest. */
static void flush_one(unsigned char result[SHA1_LEN], struct hbuf *h)
{
	uint8_t hash[SHA1_LEN];
	unsigned carry = 0;
	int i;

	hbuf_flush(h);
	sha1_digest(&h->ctx, SHA1_LEN, hash);	/* and starts over */
	for (i = 0; i < SHA1_LEN; i++) {
		carry += result[i] + hash[i];
		result[i] = (unsigned char)carry;
		carry >>= 8;
	}
}

/* White space as git's sane ctype defines it (no \v, no \f), as a table. */
static const uint8_t git_space[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1,
};

/*
 * Copies [in, in + n) to out without white space, returns the bytes
 * written: one byte at a time, without a branch to mispredict.
 */
static size_t strip_bytes(uint8_t *out, const char *in, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];

		out[o] = c;
		o += 1 - git_space[c];
	}
	return o;
}

#ifdef STRIP_WIDE

/* For each byte mask of white space, the positions of the other bytes
 * (0x80, which selects a zero, after them). */
static uint8_t strip_shuffle[256][8];
static bool strip_wide_ok;

static gpointer strip_init(gpointer unused)
{
	int m, b, k;

	for (m = 0; m < 256; m++) {
		for (b = 0, k = 0; b < 8; b++)
			if (!(m >> b & 1))
				strip_shuffle[m][k++] = (uint8_t)b;
		while (k < 8)
			strip_shuffle[m][k++] = 0x80;
	}
	__builtin_cpu_init();
	strip_wide_ok = __builtin_cpu_supports("ssse3") &&
			__builtin_cpu_supports("popcnt");
	return unused;
}

/*
 * strip_bytes() sixteen bytes at a time, on CPUs with SSSE3: each half
 * of a block is packed by one byte shuffle chosen by its white-space
 * mask.  Reads whole blocks, avail bytes being readable at in: when a
 * block reaches past n, the bytes past n count as white space.  *done
 * receives the bytes of [in, in + n) taken (all but a tail too close to
 * avail); out must have room for them and 16 bytes more.
 */
__attribute__((target("ssse3,popcnt")))
static size_t strip_wide(uint8_t *out, const char *in, size_t n,
			 size_t avail, size_t *done)
{
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
	const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
	const __m128i high = _mm_set_epi64x(0x0808080808080808ll, 0);
	size_t i, o = 0;

	for (i = 0; i < n && i + 16 <= avail; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
		__m128i ws = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab)),
			_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
		unsigned m = (unsigned)_mm_movemask_epi8(ws);
		int64_t lo, hi;
		__m128i packed;

		if (n - i < 16)
			m |= 0xffffu << (n - i) & 0xffff;

		memcpy(&lo, strip_shuffle[m & 0xff], 8);
		memcpy(&hi, strip_shuffle[m >> 8], 8);
		/* The high half's positions count from byte 8. */
		packed = _mm_shuffle_epi8(v, _mm_add_epi8(_mm_set_epi64x(hi, lo), high));
		_mm_storel_epi64((__m128i *)(void *)(out + o), packed);
		o += 8 - (size_t)__builtin_popcount(m & 0xff);
		_mm_storel_epi64((__m128i *)(void *)(out + o),
				 _mm_srli_si128(packed, 8));
		o += 8 - (size_t)__builtin_popcount(m >> 8);
	}
	*done = MIN(i, n);
	return o;
}
#endif

/*
 * Hashes line without white space (git's remove_space); returns bytes.
 * avail bytes from line on are readable (len of them are the line).
 */
static size_t hash_nospace(struct hbuf *h, const char *line, size_t len,
			   size_t avail)
{
	size_t i = 0, total = 0;
#ifdef STRIP_WIDE
	static GOnce once = G_ONCE_INIT;

	g_once(&once, strip_init, NULL);
#endif
	while (i < len) {
		/* Each byte read adds at most one: room bytes cannot overflow. */
		size_t stop = MIN(len, i + (HBUF - h->n)), n = h->n;

#ifdef STRIP_WIDE
		if (strip_wide_ok) {
			size_t done;

			h->n += strip_wide(h->b + h->n, line + i, stop - i,
					   avail - i, &done);
			i += done;
		}
#endif
		h->n += strip_bytes(h->b + h->n, line + i, stop - i);
		i = stop;
		total += h->n - n;
		if (h->n == HBUF)
			hbuf_flush(h);
	}
	return total;
}

/* Finds s2 in [s, s + len) like strstr(); NULL when absent. */
static const char *find(const char *s, size_t len, const char *s2)
{
	size_t n = strlen(s2), i;

	for (i = 0; i + n <= len; i++)
		if (memcmp(s + i, s2, n) == 0)
			return s + i;
	return NULL;
}

/*
 * The blob names of an "index PRE..POST MODE" line, cut as git cuts them
 * (at the first "..", then at the next space or before the line's last
 * byte) and limited to 40 characters.
 */
static void index_oids(const char *line, size_t len, char pre[41],
		       char post[41])
{
	const char *p = line + 6, *o1, *o2;
	size_t n;

	o1 = find(line, len, "..");
	if (!o1)
		return;
	o2 = find(o1, len - (size_t)(o1 - line), " ");
	if (!o2)
		o2 = line + len - 1;
	n = o1 > p ? (size_t)(o1 - p) : 0;
	n = MIN(n, 40);
	memcpy(pre, p, n);
	pre[n] = '\0';
	n = o2 > o1 + 2 ? (size_t)(o2 - o1 - 2) : 0;
	n = MIN(n, 40);
	memcpy(post, o1 + 2, n);
	post[n] = '\0';
}

/*
 * git's get_one_patchid() in --stable mode, reading from *cur and
 * leaving *cur after the last line it consumed.  Returns patchlen.
 */
static size_t one_patch_id(const char **cur, const char *end, bool nul,
			   unsigned char result[SHA1_LEN], struct hbuf *h)
{
	size_t patchlen = 0;
	int before = -1, after = -1;
	bool binary = false;
	char pre[41] = "", post[41] = "";

	memset(result, 0, SHA1_LEN);
	h->n = 0;
	sha1_init(&h->ctx);
	while (*cur < end) {
		const char *line = *cur, *p = line;
		size_t len, plen;

		if (patchlen && !nul && !binary && before != -1 &&
		    (before || after)) {
			/* Inside a hunk: its lines as the loop below would
			 * read them, hashed as one block (the newlines are
			 * white space, removed like the rest). */
			while (*cur < end && before != -1 && (before || after) &&
			       (**cur == '+' || **cur == '-' || **cur == ' ')) {
				before -= **cur != '+';
				after -= **cur != '-';
				*cur = line_end(*cur, end);
			}
			if (*cur > line) {
				patchlen += hash_nospace(h, line,
							 (size_t)(*cur - line),
							 (size_t)(end - line));
				continue;
			}
		}
		len = next_line(line, end, cur, nul);
		if (starts(line, len, "commit "))
			p = line + 7;
		else if (starts(line, len, "From "))
			p = line + 5;
		else if (starts(line, len, "\\ ") && len > 12)
			continue;
		plen = len - (size_t)(p - line);
		if (is_oid_hex(p, plen))
			break;
		if (!patchlen && !starts(line, len, "diff "))
			continue;
		if (before == -1) {
			if (starts(line, len, "GIT binary patch") ||
			    starts(line, len, "Binary files")) {
				/* git hashes the index line's blob names. */
				binary = true;
				before = 0;
				hbuf_add(h, pre, strlen(pre));
				hbuf_add(h, post, strlen(post));
				flush_one(result, h);
				continue;
			} else if (starts(line, len, "index ")) {
				index_oids(line, len, pre, post);
				continue;
			} else if (starts(line, len, "--- ")) {
				before = after = 1;
			} else if (len == 0 || !g_ascii_isalpha(line[0])) {
				break;
			}
		}
		if (binary) {
			/* The next file's "diff " line is not hashed either. */
			if (starts(line, len, "diff ")) {
				binary = false;
				before = -1;
			}
			continue;
		}
		if (before == 0 && after == 0) {
			if (starts(line, len, "@@ -")) {
				scan_hunk_header(line, len, &before, &after);
				continue;
			}
			if (!starts(line, len, "diff "))
				break;
			flush_one(result, h);
			before = after = -1;
		}
		if (len > 0 && (line[0] == '-' || line[0] == ' '))
			before--;
		if (len > 0 && (line[0] == '+' || line[0] == ' '))
			after--;
		patchlen += hash_nospace(h, line, len, (size_t)(end - line));
	}
	flush_one(result, h);
	return patchlen;
}

/* pw_flood_patch_id(), nul saying whether diff holds a NUL byte. */
static bool patch_id(const char *diff, size_t len, bool nul,
		     char out[PW_FP_HEX])
{
	const char *cur = diff, *end = diff ? diff + len : NULL;
	unsigned char result[SHA1_LEN];
	struct hbuf hb, *h = &hb;	/* 8 KiB: on the stack, not the heap */
	bool found = false;
	int i;

	out[0] = '\0';
	if (!diff || len == 0)
		return false;
	/* git prints one id per patch that hashed something; keep the first. */
	while (cur < end) {
		if (one_patch_id(&cur, end, nul, result, h) > 0) {
			found = true;
			break;
		}
	}
	if (!found)
		return false;
	for (i = 0; i < SHA1_LEN; i++) {
		static const char hx[] = "0123456789abcdef";

		out[2 * i] = hx[result[i] >> 4];
		out[2 * i + 1] = hx[result[i] & 15];
	}
	out[2 * SHA1_LEN] = '\0';
	return true;
}

bool pw_flood_patch_id(const char *diff, size_t len, char out[PW_FP_HEX])
{
	return patch_id(diff, len, diff && memchr(diff, '\0', len), out);
}

/* ---- subjects ------------------------------------------------------------ */

/* Skips "PATCH", "vN", "n/N", "n of N" words and a ':' after them. */
static const char *skip_bare_patch(const char *s)
{
	const char *p = s;

	if (g_ascii_strncasecmp(p, "patch", 5) || g_ascii_isalnum(p[5]))
		return s;
	p += 5;
	for (;;) {
		const char *w = p, *q;

		while (*w == ' ' || *w == '\t')
			w++;
		q = w;
		if ((*q == 'v' || *q == 'V') && g_ascii_isdigit(q[1])) {
			q++;
			while (g_ascii_isdigit(*q))
				q++;
		} else if (g_ascii_isdigit(*q)) {
			while (g_ascii_isdigit(*q))
				q++;
			if (*q == '/' && g_ascii_isdigit(q[1])) {
				q++;
				while (g_ascii_isdigit(*q))
					q++;
			} else if (!strncmp(q, " of ", 4) &&
				   g_ascii_isdigit(q[4])) {
				q += 4;
				while (g_ascii_isdigit(*q))
					q++;
			} else {
				return s;
			}
		} else {
			break;
		}
		if (*q && *q != ' ' && *q != '\t' && *q != ':')
			return s;
		p = q;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == ':')
		p++;
	return p;
}

/* True when the parenthesised note (without parentheses) is a marker. */
static bool marker_note(const char *s, size_t len)
{
	size_t i;

	if (len >= 2 && s[0] == 'v') {
		for (i = 1; i < len; i++)
			if (!g_ascii_isdigit(s[i]))
				return false;
		return true;
	}
	return (len == 6 && memcmp(s, "resend", 6) == 0) ||
	       (len == 6 && memcmp(s, "repost", 6) == 0) ||
	       (len == 3 && memcmp(s, "rfc", 3) == 0);
}

char *pw_flood_subject_normalise(const char *subject)
{
	const char *s = subject ? subject : "";
	GString *out;
	bool space = false;
	size_t i;

	/* The markers every reader skips, then what a flood's copies add:
	 * "Resend:" and a bare "PATCH n/N" counter. */
	for (;;) {
		const char *t;

		s = pw_subject_skip(s, NULL, NULL, NULL);
		/* No strlen() here: a subject of 64 KiB of "Resend:" or
		 * "PATCH 1 1 1 ..." would be measured once per word. */
		if (!g_ascii_strncasecmp(s, "resend:", 7)) {
			s += strlen("resend:");
			continue;
		}
		t = skip_bare_patch(s);
		if (t == s)
			break;
		s = t;
	}

	out = g_string_sized_new(strlen(s));
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (blank(c)) {
			space = out->len > 0;
			continue;
		}
		if (space)
			g_string_append_c(out, ' ');
		space = false;
		g_string_append_c(out, (char)g_ascii_tolower((char)c));
	}

	/* Trailing "(v2)", "(resend)", "(RFC)" notes. */
	while (out->len > 0 && out->str[out->len - 1] == ')') {
		/* From the end: each note searched for is cut off. */
		char *open = memrchr(out->str, '(', out->len);
		size_t start;

		if (!open)
			break;
		start = (size_t)(open - out->str);
		if (!marker_note(open + 1, out->len - start - 2))
			break;
		g_string_truncate(out, start);
		while (out->len > 0 && out->str[out->len - 1] == ' ')
			g_string_truncate(out, out->len - 1);
	}

	/* Fold the case of non-ASCII letters too when the text is UTF-8. */
	for (i = 0; i < out->len; i++) {
		if ((unsigned char)out->str[i] >= 0x80) {
			if (g_utf8_validate(out->str, (gssize)out->len, NULL)) {
				char *f = g_utf8_casefold(out->str,
							  (gssize)out->len);

				g_string_free(out, TRUE);
				return f;
			}
			break;
		}
	}
	return g_string_free(out, FALSE);
}

static bool prefix_char(unsigned char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '-' || c == '.' ||
	       c == '/' || c == '+' || c == ',' || c == '#' || c >= 0x80;
}

char *pw_flood_subject_strip_subsystem(const char *normalised)
{
	const char *s = normalised ? normalised : "", *rest = s;

	for (;;) {
		const char *p = rest;

		while (prefix_char((unsigned char)*p))
			p++;
		if (p == rest || *p != ':' || (p[1] != ' ' && p[1] != '\0'))
			break;
		p++;
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		rest = p;
	}
	return g_strdup(rest);
}

/* ---- commit message body ------------------------------------------------- */

/* True for "Key: value" lines that are trailers. */
static bool trailer_line(const char *s, size_t len)
{
	static const char *const keys[] = {
		"cc", "link", "fixes", "closes", "bug", "buglink",
		"change-id", "message-id", "patchwork-id", "stable-dep-of",
		"upstream-status", "cc-stable", "x-patchwork-id",
	};
	size_t k = 0, i;

	if (len == 0 || !g_ascii_isalpha(s[0]))
		return false;
	while (k < len && (g_ascii_isalnum(s[k]) || s[k] == '-'))
		k++;
	if (k >= len || s[k] != ':')
		return false;
	if (k > 3 && g_ascii_strncasecmp(s + k - 3, "-by", 3) == 0)
		return true;
	for (i = 0; i < G_N_ELEMENTS(keys); i++)
		if (strlen(keys[i]) == k &&
		    g_ascii_strncasecmp(s, keys[i], k) == 0)
			return true;
	return false;
}

char *pw_flood_body_normalise(const char *commit_msg)
{
	const char *p = commit_msg ? commit_msg : "";
	const char *end = p + strlen(p);
	/* Never longer than the input: each byte is kept, or a run of
	 * white space becomes one space. */
	char *out = g_malloc((size_t)(end - p) + 1), *w = out;
	bool at_start = true;

	while (p < end) {
		const char *line = p, *next;
		size_t len = next_line(p, end, &next, false), t = len, i;

		p = next;
		while (t > 0 && blank((unsigned char)line[t - 1]))
			t--;
		if ((t == 3 && memcmp(line, "---", 3) == 0) ||
		    starts(line, len, "diff --git ") ||
		    starts(line, len, "Index: "))
			break;
		if (at_start && (t == 0 || starts_ci(line, len, "from:") ||
				 starts_ci(line, len, "date:") ||
				 starts_ci(line, len, "subject:")))
			continue;
		at_start = false;
		if (trailer_line(line, t))
			continue;
		/* Copy the words of the line, one space after each. */
		for (i = 0; i < t; i++) {
			unsigned char c = (unsigned char)line[i];

			if (!blank(c))
				*w++ = (char)c;
			else if (w > out && w[-1] != ' ')
				*w++ = ' ';
		}
		if (w > out && w[-1] != ' ')
			*w++ = ' ';
	}
	while (w > out && w[-1] == ' ')
		w--;
	*w = '\0';
	return out;
}

/* ---- change shape -------------------------------------------------------- */

struct tok {
	const char *s;
	size_t len;
	guint64 head;		/* its first eight bytes, zeros after a shorter one */
};

/* Byte classes for tokenize(): C identifier characters, white space. */
enum { C_IDENT = 1, C_DIGIT = 2, C_BLANK = 4 };
static guint8 byte_class[256];

static gpointer byte_class_init(gpointer unused)
{
	int c;

	for (c = 0; c < 256; c++)
		byte_class[c] = (guint8)((g_ascii_isalnum(c) || c == '_' || c >= 0x80 ?
					  C_IDENT : 0) |
					 (g_ascii_isdigit(c) ? C_DIGIT : 0) |
					 (blank((unsigned char)c) ? C_BLANK : 0));
	return NULL;
}

/* Appends the C-like tokens of one line to toks. */
static void tokenize(const char *s, size_t len, GArray *toks)
{
	size_t i = 0, n = toks->len;
	struct tok *t;

	/* A line has at most len tokens: room for all, trimmed after. */
	g_array_set_size(toks, n + len);
	t = &g_array_index(toks, struct tok, 0);
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		guint8 k = byte_class[c];
		size_t j = i + 1;

		if (k & C_BLANK) {
			i++;
			continue;
		}
		if (k & C_DIGIT) {
			/* A number, with its dots: 1.5, 0.9.2 */
			while (j < len && ((byte_class[(unsigned char)s[j]] & C_IDENT) ||
					   s[j] == '.'))
				j++;
		} else if (k & C_IDENT) {
			while (j < len && (byte_class[(unsigned char)s[j]] & C_IDENT))
				j++;
		} else if (c == '"' || c == '\'') {
			while (j < len && s[j] != (char)c) {
				if (s[j] == '\\' && j + 1 < len)
					j++;
				j++;
			}
			if (j < len)
				j++;
		}
		t[n].s = s + i;
		t[n].len = j - i;
		t[n].head = 0;
		memcpy(&t[n].head, s + i, MIN(j - i, 8));
		n++;
		i = j;
	}
	g_array_set_size(toks, n);
}

/* Most tokens are eight bytes or fewer: equal when their heads are. */
static inline bool tok_eq(const struct tok *a, const struct tok *b)
{
	return a->head == b->head && a->len == b->len &&
	       (a->len <= 8 || memcmp(a->s + 8, b->s + 8, a->len - 8) == 0);
}

/*
 * A 64-bit digest of n bytes, eight at a time (little-endian words, so
 * that every machine computes the same value).
 */
static guint64 digest64(const char *s, size_t n)
{
	const guint64 k = G_GUINT64_CONSTANT(0xff51afd7ed558ccd);
	guint64 h = G_GUINT64_CONSTANT(0x9e3779b97f4a7c15) ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ GUINT64_FROM_LE(w)) * k;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ GUINT64_FROM_LE(w)) * k;
	h ^= h >> 29;
	return h;
}

/*
 * Appends one side of an edit: its tokens separated by spaces, or, when
 * that text is longer than LONG_SIDE bytes (a new function, a whole new
 * file), a 64-bit digest of it, so that edit strings stay short.
 */
static void add_side(GString *e, const struct tok *t, size_t n)
{
	size_t i, start = e->len, len = 0;
	char *w;
	guint64 h;

	for (i = 0; i < n; i++)
		len += 1 + t[i].len;
	g_string_set_size(e, start + len);
	for (i = 0, w = e->str + start; i < n; i++) {
		*w++ = ' ';
		memcpy(w, t[i].s, t[i].len);
		w += t[i].len;
	}
	if (len <= LONG_SIDE)
		return;
	h = digest64(e->str + start, e->len - start);
	g_string_truncate(e, start);
	g_string_append_printf(e, " {%zu tokens %016" G_GINT64_MODIFIER "x}",
			       n, h);
}

/*
 * What one shape computation reuses from edit to edit.  The edits are
 * collected either as strings (set, for pw_flood_shape_edits) or as
 * 64-bit digests (digests, for the fingerprint, which needs only to
 * tell sets of edits apart and runs on every patch).
 */
struct shape {
	GHashTable *set;	/* distinct edits, owned strings, or NULL */
	GArray *digests;	/* guint64 per edit, repeats included */
	GString *e;		/* the edit being written */
	/* One block: a run of removed lines and the run of added lines
	 * after it, each consecutive in its file's lines. */
	const struct pw_dline *rm, *ad;
	size_t nrm, nad;
	const char *end;	/* of the patch text */
	bool nul;		/* it holds a NUL byte */
	GArray *ta, *tb;	/* their tokens */
};

/*
 * The text of line d as the shape reads it: whole (the parser cuts
 * lines at PW_DIFF_MAX_LINE for the rules) and up to a NUL byte, if any
 * (an edit is a string).
 */
static size_t line_len_slow(const struct shape *sh, const struct pw_dline *d)
{
	size_t n = d->len;
	const char *z;

	if (n == PW_DIFF_MAX_LINE) {
		z = memchr(d->text + n, '\n', (size_t)(sh->end - (d->text + n)));
		n = (size_t)((z ? z : sh->end) - d->text);
		if (n > d->len && d->text[n - 1] == '\r')
			n--;
	}
	if (sh->nul && (z = memchr(d->text, '\0', n)))
		n = (size_t)(z - d->text);
	return n;
}

static inline size_t line_len(const struct shape *sh, const struct pw_dline *d)
{
	return d->len < PW_DIFF_MAX_LINE && !sh->nul ? d->len :
		line_len_slow(sh, d);
}

/* Files the edit e[0, n), NUL-terminated, with the others. */
static void shape_add(struct shape *sh, const char *e, size_t n)
{
	guint64 d;

	if (!sh->set) {
		d = digest64(e, n);
		g_array_append_val(sh->digests, d);
	} else if (!g_hash_table_contains(sh->set, e)) {
		g_hash_table_add(sh->set, g_strndup(e, n));
	}
}

static void add_edit(struct shape *sh, const struct tok *a, size_t na,
		     const struct tok *b, size_t nb)
{
	GString *e = sh->e;

	g_string_truncate(e, 0);
	add_side(e, a, na);
	g_string_append(e, " ->");
	add_side(e, b, nb);
	/* Drop the leading space: "0444 -> S_IRUGO", "-> int a ;". */
	shape_add(sh, e->str + 1, e->len - 1);
}

/* Adds the edits that turn token sequence a into b. */
static void diff_tokens(struct shape *sh, const struct tok *a, size_t na,
			const struct tok *b, size_t nb)
{
	size_t pre = 0, suf = 0, i, j, w;
	guint16 L[LCS_CELLS];	/* 8 KiB: on the stack, not the heap */

	while (pre < na && pre < nb && tok_eq(&a[pre], &b[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre &&
	       tok_eq(&a[na - 1 - suf], &b[nb - 1 - suf]))
		suf++;
	a += pre;
	b += pre;
	na -= pre + suf;
	nb -= pre + suf;
	if (na == 0 && nb == 0)
		return;
	if (na == 0 || nb == 0 || (na + 1) * (nb + 1) > LCS_CELLS) {
		add_edit(sh, a, na, b, nb);
		return;
	}

	/* L[i][j]: LCS length of a[i..] and b[j..], 0 past either end; the
	 * cell to the right is carried in a register, not read back. */
	w = nb + 1;
	memset(L + na * w, 0, w * sizeof(*L));
	for (i = na; i-- > 0;) {
		guint16 *row = L + i * w, *below = row + w, right = 0;

		row[nb] = 0;
		for (j = nb; j-- > 0;) {
			right = tok_eq(&a[i], &b[j]) ? (guint16)(below[j + 1] + 1) :
							MAX(below[j], right);
			row[j] = right;
		}
	}

	/* Walk the table; each run between matches is one edit. */
	i = j = 0;
	while (i < na || j < nb) {
		size_t i0 = i, j0 = j;

		while ((i < na || j < nb) &&
		       !(i < na && j < nb && tok_eq(&a[i], &b[j]) &&
			 L[i * w + j] == L[(i + 1) * w + j + 1] + 1)) {
			if (j < nb && (i == na ||
				       L[i * w + j + 1] >= L[(i + 1) * w + j]))
				j++;
			else
				i++;
		}
		if (i > i0 || j > j0)
			add_edit(sh, a + i0, i - i0, b + j0, j - j0);
		if (i < na && j < nb) {
			i++;
			j++;
		}
	}
}

/*
 * Lines only added (or only removed): nothing to diff them against, so
 * the edit is their text, each line without the white space around it
 * (its indentation depends on where it went) and the lines parted by
 * one space, or a digest of that when longer than LONG_SIDE.  Most
 * changed lines are of this kind (new code), so their bytes are only
 * copied, never looked at one by one.
 */
static void one_sided(struct shape *sh, const struct pw_dline *lines,
		      size_t n, bool removed)
{
	GString *e = sh->e;
	size_t i, len = 0;
	char *w;

	for (i = 0; i < n; i++)
		len += line_len(sh, &lines[i]) + 1;
	/* " ->", the lines, "{N bytes HASH}" or " ->" after them. */
	g_string_set_size(e, len + 64);
	w = e->str + 3;
	for (i = 0; i < n; i++) {
		const char *a = lines[i].text, *z = a + line_len(sh, &lines[i]);

		while (a < z && blank((unsigned char)*a))
			a++;
		while (z > a && blank((unsigned char)z[-1]))
			z--;
		if (a == z)
			continue;
		if (w > e->str + 3)
			*w++ = ' ';
		memcpy(w, a, (size_t)(z - a));
		w += z - a;
	}
	len = (size_t)(w - (e->str + 3));
	if (len == 0)
		return;
	if (len > LONG_SIDE)
		len = (size_t)g_snprintf(e->str + 3, 64, "{%zu bytes %016"
					 G_GINT64_MODIFIER "x}", len,
					 digest64(e->str + 3, len));
	/* "-> int a;", "old_call(x); ->", NUL-terminated for shape_add() */
	if (removed) {
		memcpy(e->str + 3 + len, " ->", 4);
		shape_add(sh, e->str + 3, len + 3);
	} else {
		memcpy(e->str, "-> ", 3);
		e->str[3 + len] = '\0';
		shape_add(sh, e->str, len + 3);
	}
}

/* One run of removed lines and the added lines that follow them. */
static void shape_block(struct shape *sh)
{
	const struct pw_dline *rm = sh->rm, *ad = sh->ad;
	size_t i, nrm = sh->nrm, nad = sh->nad;
	GArray *ta = sh->ta, *tb = sh->tb;

	if (nrm == 0 && nad == 0)
		return;
	sh->nrm = sh->nad = 0;
	if (nrm == 0 || nad == 0) {
		one_sided(sh, nrm ? rm : ad, nrm ? nrm : nad, nrm != 0);
		return;
	}
	g_array_set_size(ta, 0);
	g_array_set_size(tb, 0);
	if (nrm == nad) {
		for (i = 0; i < nrm; i++) {
			g_array_set_size(ta, 0);
			g_array_set_size(tb, 0);
			tokenize(rm[i].text, line_len(sh, &rm[i]), ta);
			tokenize(ad[i].text, line_len(sh, &ad[i]), tb);
			diff_tokens(sh, (struct tok *)(void *)ta->data,
				    ta->len, (struct tok *)(void *)tb->data,
				    tb->len);
		}
	} else {
		for (i = 0; i < nrm; i++)
			tokenize(rm[i].text, line_len(sh, &rm[i]), ta);
		for (i = 0; i < nad; i++)
			tokenize(ad[i].text, line_len(sh, &ad[i]), tb);
		diff_tokens(sh, (struct tok *)(void *)ta->data, ta->len,
			    (struct tok *)(void *)tb->data, tb->len);
	}
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Walks the hunks of patch p, filing every edit with sh. */
static void shape_walk(struct shape *sh, const struct pw_patch *p)
{
	static GOnce once = G_ONCE_INIT;
	size_t i, k, l;

	g_once(&once, byte_class_init, NULL);
	sh->e = g_string_sized_new(256);
	/* Room reserved, so that their data is never NULL: an empty
	 * line's tokens are still a (zero-length) array to compare. */
	sh->ta = g_array_sized_new(FALSE, FALSE, sizeof(struct tok), 64);
	sh->tb = g_array_sized_new(FALSE, FALSE, sizeof(struct tok), 64);
	sh->end = p ? p->text + p->len : NULL;
	for (i = 0; p && i < p->nfiles; i++) {
		const struct pw_file *f = &p->files[i];

		for (k = 0; k < f->nhunks; k++) {
			const struct pw_hunk *h = &f->hunks[k];

			for (l = h->first; l < h->first + h->n; l++) {
				const struct pw_dline *d = &f->lines[l];

				if (d->kind == ' ') {
					if (sh->nrm || sh->nad)
						shape_block(sh);
				} else if (d->kind == '-') {
					if (sh->nad)
						shape_block(sh);
					if (!sh->nrm++)
						sh->rm = d;
				} else if (!sh->nad++) {
					sh->ad = d;
				}
			}
			shape_block(sh);
		}
	}
	g_string_free(sh->e, TRUE);
	g_array_free(sh->ta, TRUE);
	g_array_free(sh->tb, TRUE);
}

char **pw_flood_shape_edits(const char *diff, size_t len, int *count)
{
	struct shape sh = {
		.set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
		.nul = diff && memchr(diff, '\0', len),
	};
	struct pw_patch *p = pw_diff_parse(diff ? diff : "", diff ? len : 0);
	GPtrArray *v;
	GHashTableIter it;
	gpointer key;

	shape_walk(&sh, p);
	pw_patch_free(p);
	v = g_ptr_array_sized_new(g_hash_table_size(sh.set) + 1);
	g_hash_table_iter_init(&it, sh.set);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		g_ptr_array_add(v, key);
		g_hash_table_iter_steal(&it);
	}
	g_ptr_array_sort(v, cmp_str);
	if (count)
		*count = (int)v->len;
	g_ptr_array_add(v, NULL);
	g_hash_table_destroy(sh.set);
	return (char **)g_ptr_array_free(v, FALSE);
}

static gint cmp_u64(gconstpointer a, gconstpointer b)
{
	guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The shape fingerprint: the SHA-1 of the distinct edits' 64-bit
 * digests, sorted, as little-endian bytes; "" when there is no edit.
 * *count receives the number of distinct edits.
 */
static void shape_digest(const struct pw_patch *p, bool nul,
			 char out[PW_FP_HEX], int *count)
{
	struct shape sh = {
		.digests = g_array_new(FALSE, FALSE, sizeof(guint64)),
		.nul = nul,
	};
	guint64 *d;
	guint i, n = 0;

	shape_walk(&sh, p);
	g_array_sort(sh.digests, cmp_u64);
	d = (guint64 *)(void *)sh.digests->data;
	for (i = 0; i < sh.digests->len; i++)
		if (n == 0 || d[i] != d[n - 1])
			d[n++] = d[i];
	for (i = 0; i < n; i++)
		d[i] = GUINT64_TO_LE(d[i]);
	hex_of((const char *)d, n * sizeof(*d), out);
	*count = (int)n;
	g_array_free(sh.digests, TRUE);
}

/* ---- everything at once -------------------------------------------------- */

void pw_fingerprint_compute(const char *subject, const char *commit_msg,
			    const struct pw_patch *patch, const char *diff,
			    size_t diff_len, struct pw_fingerprint *out)
{
	char *subj = pw_flood_subject_normalise(subject);
	char *nosys = pw_flood_subject_strip_subsystem(subj);
	char *body = pw_flood_body_normalise(commit_msg);
	struct pw_patch *own = NULL;
	/* The patch holds the diff's bytes: one search for a NUL serves both. */
	bool nul = diff && memchr(diff, '\0', diff_len);

	hex_of(subj, strlen(subj), out->subject);
	hex_of(nosys, strlen(nosys), out->subject_nosys);
	hex_of(body, strlen(body), out->body);
	if (!patch)
		patch = own = pw_diff_parse(diff ? diff : "", diff ? diff_len : 0);
	shape_digest(patch, nul, out->shape, &out->nedits);
	pw_patch_free(own);
	patch_id(diff, diff ? diff_len : 0, nul, out->patch_id);

	g_free(body);
	g_free(nosys);
	g_free(subj);
}
