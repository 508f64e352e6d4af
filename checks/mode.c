/*
 * patchwarden: evaluating and rendering permission modes.
 *
 * The names and values follow include/uapi/linux/stat.h and
 * include/linux/stat.h (the kernel's composites S_IRWXUGO, S_IALLUGO,
 * S_IRUGO, S_IWUGO, S_IXUGO), plus the BSD aliases S_IREAD, S_IWRITE and
 * S_IEXEC.  The PERM_ names are those of Ingo Molnar's 2016 proposal
 * (https://lwn.net/Articles/696231/), which was never merged.
 */
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "checks/mode.h"

struct name {
	const char *name;
	unsigned value;
	bool perm;		/* a permission name, not a file type */
};

static const struct name names[] = {
	{ "S_IRWXU", 0700, true }, { "S_IRUSR", 0400, true },
	{ "S_IWUSR", 0200, true }, { "S_IXUSR", 0100, true },
	{ "S_IRWXG", 0070, true }, { "S_IRGRP", 0040, true },
	{ "S_IWGRP", 0020, true }, { "S_IXGRP", 0010, true },
	{ "S_IRWXO", 0007, true }, { "S_IROTH", 0004, true },
	{ "S_IWOTH", 0002, true }, { "S_IXOTH", 0001, true },
	{ "S_ISUID", 04000, true }, { "S_ISGID", 02000, true },
	{ "S_ISVTX", 01000, true },
	{ "S_IRWXUGO", 0777, true }, { "S_IALLUGO", 07777, true },
	{ "S_IRUGO", 0444, true }, { "S_IWUGO", 0222, true },
	{ "S_IXUGO", 0111, true },
	{ "S_IREAD", 0400, true }, { "S_IWRITE", 0200, true },
	{ "S_IEXEC", 0100, true },
	{ "S_IFMT", 0170000, false }, { "S_IFSOCK", 0140000, false },
	{ "S_IFLNK", 0120000, false }, { "S_IFREG", 0100000, false },
	{ "S_IFBLK", 0060000, false }, { "S_IFDIR", 0040000, false },
	{ "S_IFCHR", 0020000, false }, { "S_IFIFO", 0010000, false },
};

/* The PERM_ names the proposal defines. */
static const unsigned perm_defined[] = {
	0400, 0440, 0444, 0600, 0640, 0644, 0664, 0666, 0200, 0220, 0222,
	0500, 0550, 0555, 0700, 0750, 0755, 0775, 0777, 0300, 0330, 0333,
};

static const struct name *find_name(const char *s, size_t len)
{
	size_t i;

	if (len < 6 || s[0] != 'S' || s[1] != '_' || s[2] != 'I')
		return NULL;
	for (i = 0; i < G_N_ELEMENTS(names); i++)
		if (strlen(names[i].name) == len && !memcmp(names[i].name, s, len))
			return &names[i];
	return NULL;
}

bool pw_mode_name_value(const char *name, size_t len, unsigned *value)
{
	const struct name *n = find_name(name, len);

	if (!n)
		return false;
	*value = n->value;
	return true;
}

bool pw_mode_is_perm_name(const char *name, size_t len)
{
	const struct name *n = find_name(name, len);

	return n && n->perm;
}

static bool perm_is_defined(unsigned v)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(perm_defined); i++)
		if (perm_defined[i] == v)
			return true;
	return false;
}

bool pw_mode_perm_decode(const char *name, size_t len, unsigned *value,
			 bool *defined)
{
	static const char rwx[3] = { 'r', 'w', 'x' };
	unsigned v = 0;
	size_t i;

	if (len != 14 || memcmp(name, "PERM_", 5))
		return false;
	for (i = 0; i < 9; i++) {
		char c = name[5 + i];

		v <<= 1;
		if (c == rwx[i % 3])
			v |= 1;
		else if (c != '_')
			return false;
	}
	*value = v;
	*defined = perm_is_defined(v);
	return true;
}

static bool is_ident(char c)
{
	return g_ascii_isalnum(c) || c == '_';
}

static bool is_cast(const char *s, size_t len)
{
	static const char *const casts[] = {
		"umode_t", "mode_t", "int", "unsigned", "u16", "__u16", "u32",
		"__u32", "uint", "long",
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(casts); i++)
		if (strlen(casts[i]) == len && !memcmp(casts[i], s, len))
			return true;
	return false;
}

/* Reads one number token t[0..n) into *m. */
static void number(const char *t, size_t n, enum pw_mode_lang lang,
		   struct pw_mode *m)
{
	unsigned long v = 0;
	size_t i, digits;

	if (lang == PW_MODE_C)
		while (n > 1 && (t[n - 1] == 'u' || t[n - 1] == 'U' ||
				 t[n - 1] == 'l' || t[n - 1] == 'L'))
			n--;
	if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		for (i = 2; i < n; i++) {
			if (!g_ascii_isxdigit(t[i]) || v > 0xffffff) {
				m->flags |= PW_MODE_UNKNOWN;
				return;
			}
			v = v * 16 + (unsigned long)g_ascii_xdigit_value(t[i]);
		}
		m->value |= (unsigned)v;
		m->flags |= v ? PW_MODE_HEX : PW_MODE_ZERO;
		/* 0x00444: hex digits that are all octal digits were
		 * surely meant as that octal number. */
		m->meant = 0;
		m->meant_valid = n - 2 <= 6;
		for (i = 2; i < n && m->meant_valid; i++) {
			if (t[i] < '0' || t[i] > '7')
				m->meant_valid = false;
			else
				m->meant = m->meant * 8 + (unsigned)(t[i] - '0');
		}
		if (m->meant > 07777 || m->meant == (unsigned)v)
			m->meant_valid = false;
		return;
	}
	if (lang == PW_MODE_PYTHON && n > 2 && t[0] == '0' &&
	    (t[1] == 'o' || t[1] == 'O')) {
		for (i = 2; i < n; i++) {
			if (t[i] < '0' || t[i] > '7' || v > 0xffffff) {
				m->flags |= PW_MODE_UNKNOWN;
				return;
			}
			v = v * 8 + (unsigned long)(t[i] - '0');
		}
		m->value |= (unsigned)v;
		m->flags |= v ? PW_MODE_OCTAL : PW_MODE_ZERO;
		return;
	}
	for (i = 0; i < n; i++)
		if (!g_ascii_isdigit(t[i])) {
			m->flags |= PW_MODE_UNKNOWN;
			return;
		}
	if (t[0] == '0' && n > 1) {
		for (i = 1; i < n; i++) {
			if (t[i] > '7' || v > 0xffffff) {
				m->flags |= PW_MODE_UNKNOWN;
				return;
			}
			v = v * 8 + (unsigned long)(t[i] - '0');
		}
		m->value |= (unsigned)v;
		if (!v) {
			m->flags |= PW_MODE_ZERO;
			return;
		}
		if (lang == PW_MODE_PYTHON) {
			m->flags |= PW_MODE_PY2_OCTAL;
			return;
		}
		m->flags |= PW_MODE_OCTAL;
		digits = n - 1;
		if (digits != 3 && !(digits == 4 && t[1] != '0'))
			m->flags |= PW_MODE_WIDTH;
		return;
	}
	for (i = 0; i < n; i++) {
		if (v > 0xffffff) {
			m->flags |= PW_MODE_UNKNOWN;
			return;
		}
		v = v * 10 + (unsigned long)(t[i] - '0');
	}
	m->value |= (unsigned)v;
	if (!v) {
		m->flags |= PW_MODE_ZERO;
		return;
	}
	m->flags |= PW_MODE_DECIMAL;
	m->meant_valid = n <= 4;
	m->meant = 0;
	for (i = 0; i < n; i++) {
		if (t[i] > '7')
			m->meant_valid = false;
		else
			m->meant = m->meant * 8 + (unsigned)(t[i] - '0');
	}
}

bool pw_mode_eval(const char *s, size_t len, enum pw_mode_lang lang,
		  pw_mode_lookup_fn lookup, void *ud, struct pw_mode *out)
{
	struct pw_mode m;
	size_t i = 0;

	memset(&m, 0, sizeof(m));
	while (i < len) {
		char c = s[i];

		if (g_ascii_isspace(c) || c == '\\') {
			i++;
		} else if (c == '|') {
			if (i + 1 < len && s[i + 1] == '|')
				m.flags |= PW_MODE_UNKNOWN;
			i++;
		} else if (c == ')') {
			i++;
		} else if (c == '(') {
			/* A cast such as (umode_t) is skipped. */
			size_t j = i + 1, k;

			while (j < len && g_ascii_isspace(s[j]))
				j++;
			k = j;
			while (k < len && is_ident(s[k]))
				k++;
			if (k > j && is_cast(s + j, k - j)) {
				while (k < len && g_ascii_isspace(s[k]))
					k++;
				if (k < len && s[k] == ')') {
					i = k + 1;
					continue;
				}
			}
			i++;
		} else if (g_ascii_isdigit(c)) {
			size_t j = i;

			while (j < len && is_ident(s[j]))
				j++;
			number(s + i, j - i, lang, &m);
			m.nterms++;
			i = j;
		} else if (is_ident(c)) {
			size_t j = i;
			const struct name *n;
			unsigned v;
			bool defined;

			while (j < len && is_ident(s[j]))
				j++;
			if (lang == PW_MODE_PYTHON && j - i == 4 &&
			    !memcmp(s + i, "stat", 4) && j < len && s[j] == '.') {
				i = j + 1;
				continue;
			}
			m.nterms++;
			if ((n = find_name(s + i, j - i)) != NULL) {
				m.value |= n->value;
				m.flags |= n->perm ? PW_MODE_SYMBOLIC : PW_MODE_FILETYPE;
			} else if (pw_mode_perm_decode(s + i, j - i, &v, &defined)) {
				m.value |= v;
				m.flags |= PW_MODE_PERM;
				if (!defined && !m.undef) {
					m.flags |= PW_MODE_PERM_UNDEF;
					m.undef = s + i;
					m.undef_len = j - i;
				}
			} else if (j - i > 5 && !memcmp(s + i, "PERM_", 5)) {
				m.flags |= PW_MODE_PERM | PW_MODE_PERM_UNDEF | PW_MODE_UNKNOWN;
				if (!m.undef) {
					m.undef = s + i;
					m.undef_len = j - i;
				}
			} else if (lookup && lookup(ud, s + i, j - i, &v)) {
				m.value |= v;
				m.flags |= PW_MODE_MACRO;
			} else {
				m.flags |= PW_MODE_UNKNOWN;
			}
			i = j;
		} else {
			m.flags |= PW_MODE_UNKNOWN;
			i++;
		}
	}
	if (!m.nterms)
		m.flags |= PW_MODE_UNKNOWN;
	m.single = m.nterms == 1;
	if (!m.single)
		m.meant_valid = false;
	*out = m;
	return !(m.flags & PW_MODE_UNKNOWN);
}

void pw_mode_ls(unsigned mode, char buf[10])
{
	static const char rwx[] = "rwxrwxrwx";
	int i;

	for (i = 0; i < 9; i++)
		buf[i] = (mode & (0400u >> i)) ? rwx[i] : '-';
	if (mode & 04000)
		buf[2] = (mode & 0100) ? 's' : 'S';
	if (mode & 02000)
		buf[5] = (mode & 0010) ? 's' : 'S';
	if (mode & 01000)
		buf[8] = (mode & 0001) ? 't' : 'T';
	buf[9] = '\0';
}

char *pw_mode_describe(unsigned mode)
{
	char ls[10];

	pw_mode_ls(mode, ls);
	if (mode & 07000)
		return g_strdup_printf("%05o (%s)", mode & 07777, ls);
	return g_strdup_printf("%04o (%s)", mode & 07777, ls);
}

static const char *type_name(unsigned mode)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(names); i++)
		if (!names[i].perm && names[i].value == (mode & 0170000) &&
		    strcmp(names[i].name, "S_IFMT"))
			return names[i].name;
	return NULL;
}

char *pw_mode_spell_octal(unsigned mode)
{
	const char *t = (mode & 0170000) ? type_name(mode) : NULL;
	const char *fmt = (mode & 07000) ? "%05o" : "%04o";
	char *num = g_strdup_printf(fmt, mode & 07777);
	char *r;

	if (!t)
		return num;
	r = g_strdup_printf("%s | %s", t, num);
	g_free(num);
	return r;
}

char *pw_mode_spell_symbolic(unsigned mode)
{
	static const char *const bits[] = {
		"S_IRUSR", "S_IWUSR", "S_IXUSR", "S_IRGRP", "S_IWGRP", "S_IXGRP",
		"S_IROTH", "S_IWOTH", "S_IXOTH",
	};
	static const char *const all[] = { "S_IRWXU", "S_IRWXG", "S_IRWXO" };
	GString *o = g_string_new(NULL);
	const char *t = (mode & 0170000) ? type_name(mode) : NULL;
	int cls, b;

	if (t)
		g_string_append(o, t);
	if (mode & 04000)
		g_string_append_printf(o, "%sS_ISUID", o->len ? " | " : "");
	if (mode & 02000)
		g_string_append_printf(o, "%sS_ISGID", o->len ? " | " : "");
	if (mode & 01000)
		g_string_append_printf(o, "%sS_ISVTX", o->len ? " | " : "");
	for (cls = 0; cls < 3; cls++) {
		unsigned shift = (unsigned)(6 - 3 * cls);

		if (((mode >> shift) & 7) == 7) {
			g_string_append_printf(o, "%s%s", o->len ? " | " : "", all[cls]);
			continue;
		}
		for (b = 0; b < 3; b++)
			if (mode & (0400u >> (3 * cls + b)))
				g_string_append_printf(o, "%s%s", o->len ? " | " : "",
						       bits[3 * cls + b]);
	}
	if (!o->len)
		g_string_append(o, "0");
	return g_string_free(o, FALSE);
}

char *pw_mode_spell_perm(unsigned mode)
{
	char ls[10];
	int i;

	if ((mode & ~0777u) || !perm_is_defined(mode))
		return NULL;
	pw_mode_ls(mode, ls);
	for (i = 0; i < 9; i++)
		if (ls[i] == '-')
			ls[i] = '_';
	return g_strdup_printf("PERM_%s", ls);
}

/* ---- expressions the program decides: "?:" and variables ---- */

#define COND_MAX_VALS 8
#define COND_MAX_DEPTH 8

struct cond_ctx {
	const char *s;
	pw_mode_lookup_fn lookup;
	void *ud;
	bool vars, conds;
	unsigned flags;
	int nterms;
	GString *depends;
};

struct vset {
	unsigned v[COND_MAX_VALS];
	int n;
};

static void vset_add(struct vset *o, unsigned v, bool *ok)
{
	int i;

	for (i = 0; i < o->n; i++)
		if (o->v[i] == v)
			return;
	if (o->n >= COND_MAX_VALS) {
		*ok = false;
		return;
	}
	o->v[o->n++] = v;
}

static void trim_span(const char *s, size_t *a, size_t *b)
{
	while (*a < *b && (g_ascii_isspace(s[*a]) || s[*a] == '\\'))
		(*a)++;
	while (*b > *a && (g_ascii_isspace(s[*b - 1]) || s[*b - 1] == '\\'))
		(*b)--;
}

/* The text of s[a..b) with white space runs as one space. */
static void append_squeezed(GString *o, const char *s, size_t a, size_t b)
{
	bool sp = false;

	for (; a < b; a++) {
		if (g_ascii_isspace(s[a]) || s[a] == '\\') {
			sp = true;
			continue;
		}
		if (sp && o->len && o->str[o->len - 1] != '(' && s[a] != ')')
			g_string_append_c(o, ' ');
		sp = false;
		g_string_append_c(o, s[a]);
	}
}

/* The bracket matching the one at a, within [a, b), or b. */
static size_t match(const char *s, size_t a, size_t b)
{
	int depth = 0;
	size_t i;

	for (i = a; i < b; i++) {
		if (s[i] == '(' || s[i] == '[')
			depth++;
		else if ((s[i] == ')' || s[i] == ']') && --depth == 0)
			return i;
	}
	return b;
}

/* A depth-0 byte c in [a, b) (for ':', the one matching the first '?'
 * nesting aside), or b. */
static size_t find0(const char *s, size_t a, size_t b, char c)
{
	int depth = 0, q = 0;
	size_t i;

	for (i = a; i < b; i++) {
		char x = s[i];

		if (x == '(' || x == '[')
			depth++;
		else if (x == ')' || x == ']')
			depth--;
		else if (depth == 0 && c == ':' && x == '?')
			q++;
		else if (depth == 0 && x == c && (c != ':' || q-- == 0))
			return i;
	}
	return b;
}

static bool cond_expr(struct cond_ctx *c, size_t a, size_t b, int depth,
		      struct vset *out, GString *oct);

/* A variable: a name with ->, ., [..] and (..) after it. */
static bool variable(const char *s, size_t a, size_t b)
{
	size_t i = a;

	if (i >= b || !(g_ascii_isalpha(s[i]) || s[i] == '_'))
		return false;
	while (i < b) {
		if (is_ident(s[i])) {
			i++;
		} else if (s[i] == '.' ) {
			i++;
		} else if (s[i] == '-' && i + 1 < b && s[i + 1] == '>') {
			i += 2;
		} else if (s[i] == '(' || s[i] == '[') {
			size_t m = match(s, i, b);

			if (m >= b)
				return false;
			i = m + 1;
		} else if (g_ascii_isspace(s[i])) {
			i++;
		} else {
			return false;
		}
	}
	return true;
}

/* One operand of a "|" chain. */
static bool cond_operand(struct cond_ctx *c, size_t a, size_t b, int depth,
			 struct vset *out, GString *oct, bool *known,
			 unsigned *kv)
{
	const char *s = c->s;
	struct pw_mode m;

	trim_span(s, &a, &b);
	if (a >= b)
		return false;
	*known = false;
	if (s[a] == '(') {
		size_t m1 = match(s, a, b), j, k;

		if (m1 + 1 < b) {
			/* A cast before the operand: (umode_t)(...). */
			for (j = a + 1; j < m1 && g_ascii_isspace(s[j]); j++)
				;
			for (k = j; k < m1 && is_ident(s[k]); k++)
				;
			if (k == j || !is_cast(s + j, k - j))
				return false;
			append_squeezed(oct, s, a, m1 + 1);
			return cond_operand(c, m1 + 1, b, depth, out, oct, known, kv);
		}
		if (m1 != b - 1)
			return false;
		g_string_append_c(oct, '(');
		if (!cond_expr(c, a + 1, b - 1, depth + 1, out, oct))
			return false;
		g_string_append_c(oct, ')');
		return true;
	}
	if (pw_mode_eval(s + a, b - a, PW_MODE_C, c->lookup, c->ud, &m) && m.single) {
		c->flags |= m.flags;
		c->nterms++;
		*known = true;
		*kv = m.value;
		out->v[0] = m.value;
		out->n = 1;
		return true;
	}
	if (!variable(s, a, b))
		return false;
	c->vars = true;
	if (c->depends->len)
		g_string_append(c->depends, ", ");
	append_squeezed(c->depends, s, a, b);
	append_squeezed(oct, s, a, b);
	out->v[0] = 0;
	out->n = 1;
	return true;
}

static void append_octal(GString *oct, unsigned v)
{
	char *t;

	if (!v) {
		g_string_append_c(oct, '0');
		return;
	}
	t = pw_mode_spell_octal(v);
	g_string_append(oct, t);
	g_free(t);
}

/* A "|" chain; its literals and names are written as one octal, where
 * the first of them stands. */
static bool cond_chain(struct cond_ctx *c, size_t a, size_t b, int depth,
		       struct vset *out, GString *oct)
{
	const char *s = c->s;
	struct vset acc = { { 0 }, 1 };
	GString *before = g_string_new(NULL), *after = g_string_new(NULL);
	unsigned known_bits = 0;
	bool any_known = false, ok = true;
	size_t i, start = a;
	int d = 0;

	for (i = a; ok && i <= b; i++) {
		struct vset one, next;
		bool known;
		unsigned kv = 0;
		int x, y;

		if (i < b) {
			if (s[i] == '(' || s[i] == '[')
				d++;
			else if (s[i] == ')' || s[i] == ']')
				d--;
			if (d || s[i] != '|')
				continue;
			if ((i + 1 < b && (s[i + 1] == '|' || s[i + 1] == '=')) ||
			    (i > a && s[i - 1] == '|')) {
				ok = false;
				break;
			}
		}
		{
			GString *part = g_string_new(NULL);
			GString *to;

			one.n = 0;
			ok = cond_operand(c, start, i, depth, &one, part, &known, &kv);
			if (ok && known) {
				known_bits |= kv;
				any_known = true;
			} else if (ok) {
				to = any_known ? after : before;
				if (to->len)
					g_string_append(to, " | ");
				g_string_append_len(to, part->str, (gssize)part->len);
			}
			g_string_free(part, TRUE);
		}
		if (!ok)
			break;
		next.n = 0;
		for (x = 0; x < acc.n && ok; x++)
			for (y = 0; y < one.n && ok; y++)
				vset_add(&next, acc.v[x] | one.v[y], &ok);
		acc = next;
		start = i + 1;
	}
	if (ok) {
		g_string_append_len(oct, before->str, (gssize)before->len);
		if (any_known) {
			if (before->len)
				g_string_append(oct, " | ");
			append_octal(oct, known_bits);
			if (after->len)
				g_string_append(oct, " | ");
		}
		g_string_append_len(oct, after->str, (gssize)after->len);
		*out = acc;
	}
	g_string_free(before, TRUE);
	g_string_free(after, TRUE);
	return ok;
}

/* A ternary, or a "|" chain. */
static bool cond_expr(struct cond_ctx *c, size_t a, size_t b, int depth,
		      struct vset *out, GString *oct)
{
	const char *s = c->s;
	size_t q, col, ca = a, cb;
	struct vset x, y;
	bool ok = true;
	int i;

	if (depth > COND_MAX_DEPTH)
		return false;
	trim_span(s, &a, &b);
	q = find0(s, a, b, '?');
	if (q >= b)
		return cond_chain(c, a, b, depth, out, oct);
	col = find0(s, q + 1, b, ':');
	if (col >= b)
		return false;
	cb = q;
	trim_span(s, &ca, &cb);
	if (ca >= cb)
		return false;
	c->conds = true;
	if (c->depends->len)
		g_string_append(c->depends, ", ");
	append_squeezed(c->depends, s, ca, cb);
	append_squeezed(oct, s, ca, cb);
	g_string_append(oct, " ? ");
	if (!cond_expr(c, q + 1, col, depth + 1, &x, oct))
		return false;
	g_string_append(oct, " : ");
	if (!cond_expr(c, col + 1, b, depth + 1, &y, oct))
		return false;
	*out = x;
	for (i = 0; i < y.n && ok; i++)
		vset_add(out, y.v[i], &ok);
	return ok;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

bool pw_mode_eval_cond(const char *s, size_t len, pw_mode_lookup_fn lookup,
		       void *ud, struct pw_mode_cond *out)
{
	struct cond_ctx c;
	struct vset v;
	GString *oct = g_string_new(NULL);
	int i;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.lookup = lookup;
	c.ud = ud;
	c.depends = g_string_new(NULL);
	if (!cond_expr(&c, 0, len, 0, &v, oct) || !(c.vars || c.conds) ||
	    !c.nterms) {
		g_string_free(oct, TRUE);
		g_string_free(c.depends, TRUE);
		return false;
	}
	for (i = 0; i < v.n; i++)
		out->vals[i] = v.v[i];
	out->nvals = v.n;
	qsort(out->vals, (size_t)out->nvals, sizeof(out->vals[0]), cmp_uint);
	out->vars = c.vars;
	out->flags = c.flags;
	out->octal = g_string_free(oct, FALSE);
	out->depends = g_string_free(c.depends, FALSE);
	return true;
}

void pw_mode_cond_release(struct pw_mode_cond *c)
{
	g_free(c->octal);
	g_free(c->depends);
	c->octal = c->depends = NULL;
}
