/*
 * patchwarden: finding modes in shell scripts and Makefiles: "chmod
 * MODE", "install -m MODE" and "mkdir -m MODE" (also spelled $(INSTALL),
 * $(INSTALL_DATA), $(CHMOD), $(MKDIR_P) and the like, with -mMODE,
 * --mode=MODE and option clusters such as -Dm755 or -pm 0755).
 *
 * These set the exact mode (no umask), so PERM_WORLD_WRITABLE and the
 * setuid/setgid part of PERM_SPECIAL_BITS apply.  Numeric modes are
 * octal for these tools whatever their width, so PERM_NOT_OCTAL and the
 * house style never apply here.  Symbolic modes (o+w, u+s, a=rwx) are
 * judged by the bits they add.
 */
#include <string.h>

#include "checks/perm.h"

enum tool { T_NONE, T_CHMOD, T_INSTALL, T_MKDIR };

static bool sep(char c)
{
	return c == ';' || c == '|' || c == '&' || c == '(' || c == ')' ||
	       c == '`' || c == '\n';
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static enum tool tool_of(const char *w, size_t n)
{
	const char *slash;
	char name[32];

	/* Makefile recipe prefixes and $(Q)-style quieting glued on. */
	for (;;) {
		if (n && (*w == '@' || *w == '+' ||
			  (*w == '-' && !(n > 1 && g_ascii_isalpha(w[1]))))) {
			w++, n--;
			continue;
		}
		if (n > 3 && w[0] == '$' && (w[1] == '(' || w[1] == '{')) {
			const char *close = memchr(w, w[1] == '(' ? ')' : '}', n);

			if (close && (size_t)(close - w) + 1 < n) {
				n -= (size_t)(close - w) + 1;
				w = close + 1;
				continue;
			}
		}
		break;
	}
	if (n >= 3 && (w[0] == '$') && (w[1] == '(' || w[1] == '{')) {
		size_t k = 2;

		while (k < n && w[k] != ')' && w[k] != '}')
			k++;
		if (k >= n || k - 2 >= sizeof(name))
			return T_NONE;
		memcpy(name, w + 2, k - 2);
		name[k - 2] = '\0';
		if (k + 1 < n)
			return T_NONE;
		if (g_str_has_prefix(name, "INSTALL"))
			return T_INSTALL;
		if (!strcmp(name, "CHMOD"))
			return T_CHMOD;
		if (g_str_has_prefix(name, "MKDIR"))
			return T_MKDIR;
		return T_NONE;
	}
	slash = memrchr(w, '/', n);
	if (slash) {
		n -= (size_t)(slash + 1 - w);
		w = slash + 1;
	}
	if (n == 5 && !memcmp(w, "chmod", 5))
		return T_CHMOD;
	if (n == 7 && !memcmp(w, "install", 7))
		return T_INSTALL;
	if (n == 5 && !memcmp(w, "mkdir", 5))
		return T_MKDIR;
	return T_NONE;
}

/* Words after which the next word is still in command position. */
static bool prefix_word(const char *w, size_t n)
{
	static const char *const prefixes[] = {
		"sudo", "env", "exec", "command", "nice", "nohup", "time",
		"xargs", "fakeroot", "then", "else", "do", "!",
	};
	size_t i;

	if (n >= 2 && w[0] == '$' && (w[1] == '(' || w[1] == '{'))
		return true;	/* $(Q), ${SUDO} */
	if (n && (w[0] == '@' || w[0] == '-') && n == 1)
		return true;
	for (i = 0; i < n && w[i] != '/'; i++)
		if (w[i] == '=')
			return true;	/* VAR=value */
	for (i = 0; i < G_N_ELEMENTS(prefixes); i++)
		if (strlen(prefixes[i]) == n && !memcmp(prefixes[i], w, n))
			return true;
	if (n && w[n - 1] == ':')
		return true;	/* a Makefile rule "install:" before a recipe */
	return false;
}

/* Parses a chmod-style mode; false when it is not a literal mode. */
static bool shell_mode(const char *w, size_t n, struct pw_mode *m, bool *relative)
{
	size_t i;
	unsigned v = 0;

	memset(m, 0, sizeof(*m));
	*relative = false;
	if (!n)
		return false;
	for (i = 0; i < n && w[i] >= '0' && w[i] <= '7'; i++)
		v = v * 8 + (unsigned)(w[i] - '0');
	if (i == n) {
		if (n > 6)
			return false;
		m->value = v;
		m->flags = v ? PW_MODE_OCTAL : PW_MODE_ZERO;
		m->nterms = 1;
		m->single = true;
		return true;
	}
	*relative = true;
	i = 0;
	while (i < n) {
		unsigned who = 0;
		bool any_who = false;

		for (; i < n && strchr("ugoa", w[i]); i++) {
			any_who = true;
			who |= w[i] == 'u' ? 1 : w[i] == 'g' ? 2 : w[i] == 'o' ? 4 : 7;
		}
		if (i >= n || !strchr("+-=", w[i]))
			return false;
		while (i < n && strchr("+-=", w[i])) {
			bool grant = w[i] != '-';

			i++;
			for (; i < n && strchr("rwxXst", w[i]); i++) {
				unsigned b = 0;

				if (!grant)
					continue;
				switch (w[i]) {
				case 'r': b = (who & 1 ? 0400 : 0) | (who & 2 ? 040 : 0) | (who & 4 ? 04 : 0); break;
				case 'w': b = (who & 1 ? 0200 : 0) | (who & 2 ? 020 : 0) | (who & 4 ? 02 : 0); break;
				case 'x': case 'X':
					b = (who & 1 ? 0100 : 0) | (who & 2 ? 010 : 0) | (who & 4 ? 01 : 0); break;
				case 's':
					b = (!any_who || (who & 1) ? 04000 : 0) |
					    (!any_who || (who & 2) ? 02000 : 0);
					break;
				case 't': b = 01000; break;
				}
				v |= b;
			}
		}
		if (i < n && w[i] == ',')
			i++;
		else if (i < n)
			return false;
	}
	m->value = v;
	m->nterms = 1;
	m->single = true;
	return true;
}

static void judge_word(struct pw_scan *sc, size_t s, size_t e)
{
	const char *w = sc->san + s;
	struct pw_mode m;
	struct pw_occ oc;
	bool rel;

	if (e > s + 1 && (w[0] == '"' || w[0] == '\'') && sc->san[e - 1] == w[0]) {
		s++;
		e--;
		w++;
	}
	if (!shell_mode(w, e - s, &m, &rel) || !m.value)
		return;
	memset(&oc, 0, sizeof(oc));
	oc.kind = PW_CTX_CHMOD;
	oc.relative = rel;
	oc.mode.s = s;
	oc.mode.e = e;
	pw_perm_judge(sc, &oc, &m);
}

void pw_perm_scan_sh(struct pw_scan *sc)
{
	const char *s = sc->san;
	size_t len = sc->t->len, i = 0;
	enum tool tool = T_NONE;
	bool want_mode = false, chmod_done = false, cmd_pos = true;

	while (i < len) {
		size_t b, e;

		if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\n') {
			i += 2;
			continue;
		}
		if (sep(s[i])) {
			tool = T_NONE;
			want_mode = false;
			cmd_pos = true;
			i++;
			continue;
		}
		if (blank(s[i])) {
			i++;
			continue;
		}
		b = i;
		while (i < len && !blank(s[i]) && !sep(s[i]) &&
		       !(s[i] == '\\' && i + 1 < len && s[i + 1] == '\n')) {
			/* $(VAR) and ${VAR} belong to the word. */
			if (s[i] == '$' && i + 1 < len && (s[i + 1] == '(' || s[i + 1] == '{')) {
				char close = s[i + 1] == '(' ? ')' : '}';
				int depth = 0;

				for (; i < len && s[i] != '\n'; i++) {
					if (s[i] == '(' || s[i] == '{')
						depth++;
					else if ((s[i] == ')' || s[i] == '}') && --depth == 0 &&
						 s[i] == close) {
						i++;
						break;
					}
				}
				continue;
			}
			i++;
		}
		e = i;
		if (tool == T_NONE) {
			enum tool t = cmd_pos ? tool_of(s + b, e - b) : T_NONE;

			if (t != T_NONE) {
				tool = t;
				chmod_done = false;
				want_mode = false;
			} else if (cmd_pos) {
				/* A tool may follow sudo, env, VAR=value or $(Q). */
				cmd_pos = prefix_word(s + b, e - b);
			}
			continue;
		}
		if (want_mode) {
			judge_word(sc, b, e);
			want_mode = false;
			continue;
		}
		if (tool == T_CHMOD) {
			if (chmod_done)
				continue;
			if (s[b] == '-' && !(e - b > 1 && strchr("rwxXst", s[b + 1])))
				continue;
			judge_word(sc, b, e);
			chmod_done = true;
			continue;
		}
		/* install and mkdir: -m MODE, -mMODE, --mode=MODE, -Dm755. */
		if (e - b > 7 && !memcmp(s + b, "--mode=", 7)) {
			judge_word(sc, b + 7, e);
		} else if (s[b] == '-' && e - b > 1 && s[b + 1] != '-') {
			const char *m = memchr(s + b + 1, 'm', e - b - 1);

			if (m) {
				size_t at = (size_t)(m - s) + 1;

				if (at < e)
					judge_word(sc, at, e);
				else
					want_mode = true;
			}
		}
	}
}
