/*
 * patchwarden: reading a function-like #define, for the C scanner
 * (perm_c.c: which arguments of a macro the text defines are modes)
 * and the judge (perm_judge.c: whether a name inside a macro body is
 * one of its parameters).  A file of its own, so that neither of those
 * two calls the other back.
 */
#include <string.h>

#include "checks/perm.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

char **pw_perm_macro_at(const char *s, size_t len, size_t b,
			struct pw_span *name, size_t *body)
{
	size_t e, ns;
	char *list, **v;
	int i;

	while (b < len && blank(s[b]))
		b++;
	if (b >= len || s[b] != '#')
		return NULL;
	for (b++; b < len && blank(s[b]); b++)
		;
	if (len - b < 7 || memcmp(s + b, "define", 6) || !blank(s[b + 6]))
		return NULL;
	for (b += 6; b < len && blank(s[b]); b++)
		;
	ns = b;
	while (b < len && (g_ascii_isalnum(s[b]) || s[b] == '_'))
		b++;
	if (b >= len || b == ns || s[b] != '(')
		return NULL;
	if (name) {
		name->s = ns;
		name->e = b;
	}
	for (e = ++b; e < len && s[e] != ')' && s[e] != '\n'; e++)
		;
	if (e >= len || s[e] != ')')
		return NULL;
	if (body)
		*body = e + 1;
	list = g_strndup(s + b, e - b);
	v = g_strsplit(list, ",", -1);
	for (i = 0; v[i]; i++)
		g_strstrip(v[i]);
	g_free(list);
	return v;
}
