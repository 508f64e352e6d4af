/*
 * patchwarden: in-body header fields and the scissors line
 * (checks/inbody.h), read by the rules git-mailinfo(1) documents, so
 * that the author, subject and commit message of a forwarded patch are
 * the ones `git am --scissors` would commit.
 */
#include <string.h>

#include <glib.h>

#include "checks/inbody.h"

enum field { F_FROM, F_SUBJECT, F_DATE, F_NONE };

static const char *const names[] = { "From", "Subject", "Date" };

static bool is_blank_line(const char *l, size_t n)
{
	return n == 0 || (n == 1 && l[0] == '\r');
}

static bool starts(const char *l, size_t n, const char *p)
{
	size_t k = strlen(p);

	return n >= k && !memcmp(l, p, k);
}

/*
 * Whether the line is one of the in-body fields not yet seen: its name
 * in any case, then a colon.  *value receives where the value starts.
 */
static enum field field_of(const char *l, size_t n, char *const *seen,
			   size_t *value)
{
	size_t k, i;
	int f;

	for (f = 0; f < F_NONE; f++) {
		k = strlen(names[f]);
		if (seen[f] || n <= k || g_ascii_strncasecmp(l, names[f], k) ||
		    l[k] != ':')
			continue;
		for (i = k + 1; i < n && g_ascii_isspace(l[i]); i++)
			;
		*value = i;
		return (enum field)f;
	}
	return F_NONE;
}

/*
 * ">From <40 hex digits> Mon Sep 17 00:00:00 2001": the first line of
 * a format-patch file pasted into a body, escaped; git skips it there.
 */
static bool escaped_format_patch_line(const char *l, size_t n)
{
	static const char date[] = " Mon Sep 17 00:00:00 2001";
	size_t i;

	if (n != 6 + 40 + sizeof(date) - 1 || !starts(l, n, ">From "))
		return false;
	for (i = 6; i < 46; i++)
		if (!g_ascii_isxdigit(l[i]))
			return false;
	return !memcmp(l + 46, date, sizeof(date) - 1);
}

/* Whether the line holds ">8", "8<", ">%" or "%<": most do not. */
static bool has_mark(const char *line, size_t len)
{
	const char *p = line, *end = line + len;

	while ((p = memchr(p, '>', (size_t)(end - p))) != NULL) {
		if (p + 1 < end && (p[1] == '8' || p[1] == '%'))
			return true;
		p++;
	}
	for (p = line; (p = memchr(p, '<', (size_t)(end - p))) != NULL; p++)
		if (p > line && (p[-1] == '8' || p[-1] == '%'))
			return true;
	return false;
}

bool pw_inbody_is_scissors(const char *line, size_t len)
{
	size_t i, first = len, last = 0, visible;
	size_t perforation = 0, gap = 0, marks = 0;
	bool in_perforation = false;

	if (!has_mark(line, len))
		return false;
	for (i = 0; i < len; i++) {
		char c = line[i];

		if (g_ascii_isspace(c)) {
			if (in_perforation) {
				perforation++;
				gap++;
			}
			continue;
		}
		if (first == len)
			first = i;
		last = i;
		if (c == '-') {
			in_perforation = true;
			perforation++;
		} else if (i + 1 < len &&
			   ((c == '>' && (line[i + 1] == '8' || line[i + 1] == '%')) ||
			    ((c == '8' || c == '%') && line[i + 1] == '<'))) {
			/* A mark counts two bytes; like git, the line's
			 * visible width ends at a mark's first byte. */
			in_perforation = true;
			perforation += 2;
			marks += 2;
			i++;
		} else {
			in_perforation = false;
		}
	}
	visible = first == len ? 0 : last - first + 1;
	return marks && visible >= 8 && visible < perforation * 3 &&
	       gap * 2 < perforation;
}

static void forget(struct pw_inbody *ib)
{
	g_clear_pointer(&ib->from, g_free);
	g_clear_pointer(&ib->subject, g_free);
	g_clear_pointer(&ib->date, g_free);
}

void pw_inbody_read(const char *text, size_t len, struct pw_inbody *out)
{
	char **slot[F_NONE];
	enum field open = F_NONE;	/* the field whose value may go on */
	GString *value = g_string_new(NULL);
	bool head = true;		/* reading the top of the body */
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	slot[F_FROM] = &out->from;
	slot[F_SUBJECT] = &out->subject;
	slot[F_DATE] = &out->date;
	while (pos < len) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		size_t next = nl ? pos + n + 1 : len, at;
		enum field f;

		if (head && open != F_NONE && n > 0 &&
		    (l[0] == ' ' || l[0] == '\t')) {
			/* A folded value goes on, its newline dropped. */
			g_string_append_len(value, l, (gssize)n);
			pos = out->start = next;
			continue;
		}
		if (open != F_NONE) {
			*slot[open] = g_strdup(g_strstrip(value->str));
			open = F_NONE;
			if (head && is_blank_line(l, n)) {
				/* A blank line ends the in-body fields. */
				head = false;
				pos = out->start = next;
				continue;
			}
		}
		if (head) {
			if (is_blank_line(l, n) ||
			    escaped_format_patch_line(l, n)) {
				pos = out->start = next;
				continue;
			}
			if (starts(l, n, "[PATCH]") && n > 7 &&
			    g_ascii_isspace(l[7])) {
				g_free(out->subject);
				out->subject = g_strndup(l, n);
				pos = out->start = next;
				continue;
			}
			f = field_of(l, n, (char *const[F_NONE]){
					     out->from, out->subject, out->date },
				     &at);
			if (f != F_NONE) {
				open = f;
				g_string_assign(value, "");
				g_string_append_len(value, l + at,
						    (gssize)(n - at));
				pos = out->start = next;
				continue;
			}
			head = false;
		}
		if (pw_inbody_is_scissors(l, n)) {
			/* Everything above is discussion: start again. */
			forget(out);
			out->scissors = true;
			head = true;
			pos = out->start = next;
			continue;
		}
		pos = next;
	}
	if (open != F_NONE)
		*slot[open] = g_strdup(g_strstrip(value->str));
	g_string_free(value, TRUE);
}

void pw_inbody_release(struct pw_inbody *ib)
{
	if (ib)
		forget(ib);
}
