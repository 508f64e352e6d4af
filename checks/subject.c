/*
 * patchwarden: the bracketed markers of a subject, as Patchwork reads
 * them (clean_subject(), parse_series_marker()), and the subject with
 * them stripped, as git mailinfo's cleanup_subject() strips it.  The one
 * list of reply and forward markers lives here (pw_subject_marker()),
 * with the one walk over what leads a subject (pw_subject_skip()) that
 * the flood fingerprint builds on too.  Pure.
 */
#include <string.h>

#include "checks/message.h"

/* Whether the len bytes at s start with prefix, ignoring ASCII case. */
static bool starts_ci(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !g_ascii_strncasecmp(s, prefix, n);
}


static bool all_digits(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 9)
		return false;
	for (i = 0; i < n; i++)
		if (!g_ascii_isdigit(s[i]))
			return false;
	return true;
}

static int to_int(const char *s, size_t n)
{
	int v = 0;
	size_t i;

	for (i = 0; i < n && i < 9; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* "N/M": sets the counter. */
static bool counter_token(const char *s, size_t n, struct pw_subject_tags *t)
{
	const char *slash = memchr(s, '/', n);

	if (!slash || !all_digits(s, (size_t)(slash - s)) ||
	    !all_digits(slash + 1, n - (size_t)(slash - s) - 1))
		return false;
	t->number = to_int(s, (size_t)(slash - s));
	t->total = to_int(slash + 1, n - (size_t)(slash - s) - 1);
	t->has_counter = true;
	return true;
}

/* "vN"/"VN": sets the version. */
static bool version_token(const char *s, size_t n, struct pw_subject_tags *t)
{
	if (n < 2 || (s[0] != 'v' && s[0] != 'V') || !all_digits(s + 1, n - 1))
		return false;
	t->version = to_int(s + 1, n - 1);
	return true;
}

/*
 * One word of a bracket group.  Besides the plain forms (PATCH, RFC,
 * v3, 2/7) it reads the glued ones patchwork accepts: PATCHv2, PATCH1/8,
 * v2PATCH1/4.
 */
static void tag_token(const char *s, size_t n, struct pw_subject_tags *t,
		      GString *prefixes)
{
	const char *p = s;
	size_t m = n, i;

	if (counter_token(p, m, t) || version_token(p, m, t))
		return;
	/* a leading vN glued to PATCH */
	if (m > 1 && (p[0] == 'v' || p[0] == 'V') && g_ascii_isdigit(p[1])) {
		for (i = 1; i < m && g_ascii_isdigit(p[i]); i++)
			;
		if (starts_ci(p + i, m - i, "PATCH")) {
			version_token(p, i, t);
			p += i;
			m -= i;
		}
	}
	if (starts_ci(p, m, "PATCH")) {
		t->patch_tag = true;
		p += 5;
		m -= 5;
		if (m == 0 || counter_token(p, m, t) || version_token(p, m, t))
			return;
		if (m > 0 && g_ascii_isdigit(p[0]) && all_digits(p, m))
			return;
		p = s;
		m = n;
	}
	if (m == 3 && !g_ascii_strncasecmp(p, "RFC", 3))
		t->rfc = true;
	if (m == 6 && !g_ascii_strncasecmp(p, "RESEND", 6))
		t->resend = true;
	if (prefixes->len)
		g_string_append_c(prefixes, ',');
	g_string_append_len(prefixes, p, (gssize)m);
}

/* The words of one bracket group, split on commas and white space. */
static void tag_group(const char *s, size_t n, struct pw_subject_tags *t,
		      GString *prefixes)
{
	const char *words[64];
	size_t lens[64], nw = 0, i = 0, j;

	while (i < n && nw < 64) {
		while (i < n && (s[i] == ',' || g_ascii_isspace(s[i])))
			i++;
		if (i >= n)
			break;
		j = i;
		while (j < n && s[j] != ',' && !g_ascii_isspace(s[j]))
			j++;
		words[nw] = s + i;
		lens[nw++] = j - i;
		i = j;
	}
	for (i = 0; i < nw; i++) {
		/* Mercurial's "1 of 3" */
		if (i + 2 < nw && all_digits(words[i], lens[i]) &&
		    lens[i + 1] == 2 && !g_ascii_strncasecmp(words[i + 1], "of", 2) &&
		    all_digits(words[i + 2], lens[i + 2])) {
			t->number = to_int(words[i], lens[i]);
			t->total = to_int(words[i + 2], lens[i + 2]);
			t->has_counter = true;
			i += 2;
			continue;
		}
		tag_token(words[i], lens[i], t, prefixes);
	}
}

/*
 * The reply and forward markers, as mailers write them in each language
 * (Outlook, Thunderbird, Apple Mail, Gmail, Foxmail): "答复: [PATCH]" is
 * Outlook's "Re: [PATCH]" in Chinese.  Any case; the non-ASCII ones are
 * compared case-folded.  lead: a word so short or so common in a
 * subject's text ("VS", "PD", "TR", "Res") that it counts only before
 * the first bracket group, never after "[PATCH]", where it may be the
 * name of a subsystem.
 */
static const struct marker {
	const char *w;
	bool reply, lead;
} markers[] = {
	/* replies */
	{ "re", true, false }, { "aw", true, false }, { "sv", true, false },
	{ "antw", true, false }, { "vs", true, true }, { "odp", true, true },
	{ "res", true, true }, { "ynt", true, true }, { "atb", true, true },
	{ "odg", true, true }, { "v\xc3\xa1", true, true },	/* Vá */
	{ "\xce\x91\xce\xa0", true, true },			/* ΑΠ */
	{ "\xce\xa3\xcf\x87\xce\xb5\xcf\x84", true, true },	/* Σχετ */
	{ "\xd0\x9e\xd1\x82\xd0\xb2", true, true },		/* Отв */
	{ "\xd7\xaa\xd7\xa9\xd7\x95\xd7\x91\xd7\x94", true, true }, /* תשובה */
	{ "\xd8\xb1\xd8\xaf", true, true },			/* رد */
	{ "\xe7\xad\x94\xe5\xa4\x8d", true, true },		/* 答复 */
	{ "\xe5\x9b\x9e\xe5\xa4\x8d", true, true },		/* 回复 */
	{ "\xe5\x9b\x9e\xe8\xa6\x86", true, true },		/* 回覆 */
	/* forwards */
	{ "fwd", false, false }, { "fw", false, false }, { "wg", false, true },
	{ "tr", false, true }, { "rv", false, true }, { "vb", false, true },
	{ "doorst", false, true }, { "pd", false, true }, { "enc", false, true },
	{ "vl", false, true },
	{ "\xce\xa0\xcf\x81\xce\xb8", false, true },		/* Πρθ */
	{ "\xd0\x9f\xd0\xb5\xd1\x80\xd0\xb5\xd1\x81\xd0\xbb", false, true }, /* Пересл */
	{ "\xe8\xbd\xac\xe5\x8f\x91", false, true },		/* 转发 */
	{ "\xe8\xbd\x89\xe5\xaf\x84", false, true },		/* 轉寄 */
	{ "\xe8\xbd\x89\xe7\x99\xbc", false, true },		/* 轉發 */
};

/*
 * The length of marker word w at s, 0 when s does not start with it:
 * ASCII compared ignoring case, other letters case-folded.
 */
static size_t word_at(const char *s, const char *w)
{
	size_t n = strlen(w), i;
	glong chars;
	const char *end;
	char *a, *b;
	bool same;

	for (i = 0; i < n && !((unsigned char)w[i] & 0x80); i++)
		;
	if (i == n)
		return !g_ascii_strncasecmp(s, w, n) ? n : 0;
	/* As many characters of s as w has, if they are valid UTF-8. */
	chars = g_utf8_strlen(w, -1);
	for (end = s; chars > 0 && *end; chars--) {
		gunichar c = g_utf8_get_char_validated(end, -1);

		if (c == (gunichar)-1 || c == (gunichar)-2)
			return 0;
		end = g_utf8_next_char(end);
	}
	if (chars > 0)
		return 0;
	a = g_utf8_casefold(s, end - s);
	b = g_utf8_casefold(w, -1);
	same = !strcmp(a, b);
	g_free(a);
	g_free(b);
	return same ? (size_t)(end - s) : 0;
}

/*
 * After the word: a count ("Re[2]:", "Re^2:", "Re(2):", as some mailers
 * number replies), then ':' or the full-width '：' of CJK mailers.
 * The length up to and with the colon, 0 when none follows.
 */
static size_t colon_at(const char *s)
{
	size_t i = 0;
	char close = 0;

	if (s[0] == '[')
		close = ']';
	else if (s[0] == '(')
		close = ')';
	if (close || s[0] == '^') {
		for (i = 1; g_ascii_isdigit(s[i]); i++)
			;
		if (i == 1)
			return 0;
		if (close && s[i++] != close)
			return 0;
	}
	if (s[i] == ':')
		return i + 1;
	if (!strncmp(s + i, "\xef\xbc\x9a", 3))	/* U+FF1A */
		return i + 3;
	return 0;
}

/* pw_subject_marker(), but for lead markers only when first is set. */
static size_t marker_at(const char *s, bool *reply, bool first)
{
	size_t i, n, c;

	for (i = 0; i < G_N_ELEMENTS(markers); i++) {
		if (markers[i].lead && !first)
			continue;
		n = word_at(s, markers[i].w);
		if (!n || !(c = colon_at(s + n)))
			continue;
		if (markers[i].reply)
			*reply = true;
		return n + c;
	}
	return 0;
}

size_t pw_subject_marker(const char *s, bool *reply)
{
	return marker_at(s, reply, true);
}

/*
 * p past white space, Unicode's too: a no-break space before "[PATCH]"
 * (Outlook writes one) still leaves the marker leading, as Patchwork's
 * Python reads it.  p is UTF-8 (subjects are folded to it); a byte that
 * starts no valid character ends the space.
 */
static const char *skip_space(const char *p)
{
	for (;;) {
		gunichar c;

		if (g_ascii_isspace(*p)) {
			p++;
			continue;
		}
		if (!((unsigned char)*p & 0x80))
			return p;
		c = g_utf8_get_char_validated(p, -1);
		if (c == (gunichar)-1 || c == (gunichar)-2 || !g_unichar_isspace(c))
			return p;
		p = g_utf8_next_char(p);
	}
}

const char *pw_subject_skip(const char *subject, bool *reply,
			    void (*group)(const char *s, size_t n, void *data),
			    void *data)
{
	const char *p = subject, *close;
	bool any_reply = false, first = true;
	size_t n;

	for (;;) {
		p = skip_space(p);
		n = marker_at(p, &any_reply, first);
		if (n) {
			/* A list tag may come first: "[list] Re: ...". */
			p += n;
			continue;
		}
		if (*p != '[')
			break;
		close = strchr(p, ']');
		if (!close)
			break;
		if (group)
			group(p + 1, (size_t)(close - p - 1), data);
		p = close + 1;
		first = false;
	}
	if (reply && any_reply)
		*reply = true;
	return p;
}

/*
 * git mailinfo's cleanup_subject() followed by cleanup_space().  This is
 * git's own rule, not a reading of markers: it strips "re:" (and no other
 * reply marker), colons, blanks and bracket groups wherever they lead,
 * so that subject_clean is the subject git am records.
 */
static char *mailinfo_subject(const char *subject)
{
	const char *p = subject, *close;
	size_t n = strlen(subject);

	/* git erases each of these at the front of the subject; stepping
	 * past them instead keeps a subject of 64 KiB of ":" linear. */
	while (n > 0) {
		if (n > 3 && (p[0] == 'r' || p[0] == 'R') &&
		    (p[1] == 'e' || p[1] == 'E') && p[2] == ':') {
			p += 3;
			n -= 3;
		} else if (*p == ' ' || *p == '\t' || *p == ':') {
			p++;
			n--;
		} else if (*p == '[' && (close = memchr(p, ']', n))) {
			n -= (size_t)(close + 1 - p);
			p = close + 1;
		} else {
			break;
		}
	}
	return pw_utf8_fold(p);
}

/* What pw_subject_parse() gathers from the bracket groups. */
struct tag_state {
	struct pw_subject_tags *tags;
	GString *prefixes;
};

static void on_group(const char *s, size_t n, void *data)
{
	struct tag_state *ts = data;

	tag_group(s, n, ts->tags, ts->prefixes);
}

char *pw_subject_parse(const char *subject, struct pw_subject_tags *tags)
{
	struct tag_state ts = { tags, g_string_new(NULL) };
	const char *v;

	memset(tags, 0, sizeof(*tags));
	tags->version = 1;
	pw_subject_skip(subject ? subject : "", &tags->is_reply, on_group, &ts);
	/* "(v2)" anywhere in the subject, when no vN marker was given. */
	if (tags->version == 1 && subject) {
		const char *e = NULL;

		for (v = strchr(subject, '('); v; v = strchr(v + 1, '(')) {
			/* Every '(' before the ')' found last closes there
			 * too: each byte is searched once. */
			if (!e || e < v)
				e = strchr(v, ')');
			if (!e)
				break;
			if (version_token(v + 1, (size_t)(e - v - 1), tags))
				break;
		}
	}
	if (tags->version < 1)
		tags->version = 1;
	tags->prefixes = g_string_free(ts.prefixes, FALSE);
	return mailinfo_subject(subject ? subject : "");
}

void pw_subject_tags_release(struct pw_subject_tags *tags)
{
	g_free(tags->prefixes);
	tags->prefixes = NULL;
}

bool pw_subject_stable_tags(const char *prefixes)
{
	char **tags = g_strsplit(prefixes ? prefixes : "", ",", -1);
	bool stable = false;
	char **t;

	for (t = tags; !stable && *t; t++) {
		const char *p = g_strstrip(*t);
		int dots = 0;

		if (!g_ascii_strcasecmp(p, "autosel") ||
		    !g_ascii_strcasecmp(p, "stable")) {
			stable = true;
			break;
		}
		/* "5.4", "4.19.y", "6.1-stable": a tree's version, each dot
		 * between digits. */
		if (!g_ascii_isdigit(*p))
			continue;
		while (g_ascii_isdigit(*p) ||
		       (*p == '.' && g_ascii_isdigit(p[1]) && ++dots))
			p++;
		if (p[0] == '.' && p[1] == 'y')
			p += 2;
		stable = dots >= 1 && (!*p || !g_ascii_strcasecmp(p, "-stable"));
	}
	g_strfreev(tags);
	return stable;
}
