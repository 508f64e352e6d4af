/*
 * patchwarden: triage commands in mail (see checks/triage.h).
 */
#include <string.h>

#include "checks/rules.h"
#include "checks/triage.h"

#define PREFIX "patchwarden:"

static const char *const verbs[] = {
	[PW_TRIAGE_WRONG] = "wrong",
	[PW_TRIAGE_IGNORE] = "ignore",
	[PW_TRIAGE_RECHECK] = "recheck",
	[PW_TRIAGE_STOP] = "stop",
};

const char *pw_triage_verb_name(enum pw_triage_verb v)
{
	return (size_t)v < G_N_ELEMENTS(verbs) ? verbs[v] : "?";
}

void pw_triage_cmd_free(struct pw_triage_cmd *c)
{
	if (!c)
		return;
	g_free(c->rule);
	g_free(c->path);
	g_free(c->reason);
	g_free(c->error);
	g_free(c);
}

gboolean pw_triage_maybe(const char *text, size_t len)
{
	size_t n = strlen(PREFIX), i;

	for (i = 0; i + n <= len; i++)
		if ((text[i] == 'p' || text[i] == 'P') &&
		    !g_ascii_strncasecmp(text + i, PREFIX, n))
			return TRUE;
	return FALSE;
}

/* Whether a word reads as a path or a glob rather than a reason's first. */
static bool pathlike(const char *w)
{
	return strpbrk(w, "/.*?") != NULL;
}

/*
 * The reason: the words from index i on, joined by one blank and cut
 * to PW_TRIAGE_MAX_REASON bytes at a character's start; NULL when none.
 */
static char *reason_of(char **w, size_t i)
{
	char *r, *end;

	if (!w[i])
		return NULL;
	r = g_strjoinv(" ", w + i);
	if (strlen(r) > PW_TRIAGE_MAX_REASON) {
		end = g_utf8_find_prev_char(r, r + PW_TRIAGE_MAX_REASON + 1);
		*(end ? end : r + PW_TRIAGE_MAX_REASON) = '\0';
	}
	return r;
}

/* The words of s (NUL-terminated, valid UTF-8): split on blanks. */
static char **words(const char *s)
{
	char **parts = g_strsplit_set(s, " \t", -1);
	GPtrArray *v = g_ptr_array_new();
	size_t i;

	for (i = 0; parts[i]; i++)
		if (*parts[i])
			g_ptr_array_add(v, g_strdup(parts[i]));
	g_strfreev(parts);
	g_ptr_array_add(v, NULL);
	return (char **)g_ptr_array_free(v, FALSE);
}

/* Reads the command after "patchwarden:" on line s into c. */
static void command(const char *s, struct pw_triage_cmd *c)
{
	char **w = words(s);
	size_t i, v = G_N_ELEMENTS(verbs), at = 1;
	char *up = NULL;

	for (i = 0; w[0] && i < G_N_ELEMENTS(verbs); i++)
		if (!g_ascii_strcasecmp(w[0], verbs[i]))
			v = i;
	if (v == G_N_ELEMENTS(verbs)) {
		c->error = w[0] ? g_strdup_printf("no such command '%.40s':"
			" wrong, ignore, recheck or stop", w[0]) :
			g_strdup("no command after 'patchwarden:'");
		goto out;
	}
	c->verb = (enum pw_triage_verb)v;
	/* Rule IDs are upper case; a hand-typed one may not be. */
	up = w[1] ? g_ascii_strup(w[1], -1) : NULL;
	if (c->verb == PW_TRIAGE_WRONG && up && pw_rule_find(up)) {
		c->rule = g_strdup(up);
		at = 2;
	} else if (c->verb == PW_TRIAGE_IGNORE) {
		if (!up || !pw_rule_find(up)) {
			c->error = w[1] ? g_strdup_printf("ignore: no rule '%.40s'",
							  w[1]) :
				g_strdup("ignore: which rule?");
			goto out;
		}
		c->rule = g_strdup(up);
		at = 2;
		if (w[2] && pathlike(w[2])) {
			if (strlen(w[2]) > PW_TRIAGE_MAX_PATH) {
				c->error = g_strdup("ignore: the path is too long");
				g_clear_pointer(&c->rule, g_free);
				goto out;
			}
			/* "a/" and "b/" are a diff's prefixes: a path
			 * copied from a diff header loses them. */
			c->path = g_strdup(w[2] + ((w[2][0] == 'a' ||
				w[2][0] == 'b') && w[2][1] == '/' ? 2 : 0));
			at = 3;
		}
	}
	c->reason = reason_of(w, at);
out:
	g_free(up);
	g_strfreev(w);
}

GPtrArray *pw_triage_parse(const char *text, size_t len)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_triage_cmd_free);
	size_t pos = 0, n = strlen(PREFIX);
	int line = 0;

	while (pos < len && out->len < PW_TRIAGE_MAX_COMMANDS) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos, b = 0;
		struct pw_triage_cmd *c;
		char *body;

		pos += l + (nl ? 1 : 0);
		line++;
		while (b < l && (s[b] == ' ' || s[b] == '\t'))
			b++;
		if (l - b < n || g_ascii_strncasecmp(s + b, PREFIX, n))
			continue;
		c = g_new0(struct pw_triage_cmd, 1);
		c->line = line;
		body = g_utf8_make_valid(s + b + n, (gssize)(l - b - n));
		g_strdelimit(body, "\r\f\v", ' ');
		command(body, c);
		g_free(body);
		g_ptr_array_add(out, c);
	}
	return out;
}
