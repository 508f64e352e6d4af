/*
 * patchwarden: finding modes in C.  Feeds pw_perm_judge() with every
 * mode argument of the kernel's permission-taking macros and functions
 * (checkpatch.pl's table, plus what it misses: debugfs _unsafe/ulong/str
 * variants, __ATTR_RO_MODE, __BIN_ATTR, sysfs_chmod_file, proc_mkdir_mode,
 * core_param), POSIX calls (open, openat, creat, mkdir, mkdirat, mknod,
 * mkfifo, chmod, fchmod, fchmodat, umask), ".mode =" initialisers and
 * assignments, and standalone S_I* expressions (for the house style).
 *
 * Speed: one pass over the sanitized text looks at identifiers only; a
 * per-first-character index rejects almost all of them with one load,
 * and arguments are split only after a known name followed by "(".
 * Nothing here uses a regular expression.
 */
#include <stdint.h>
#include <string.h>

#include "checks/perm.h"

enum { F_PREFIX = 1, F_FORM_DEV = 2, F_FORM_ATTR = 4 };

struct centry {
	const char *name;
	unsigned char flags;
	unsigned char pos;	/* 1-based mode argument */
	unsigned char kind;	/* enum pw_ctx_kind */
	unsigned char show;	/* 1-based show argument, 0 if none */
	unsigned char store;
	unsigned char attr_name;	/* 1-based name argument, 0 if none */
};

#define SYSFS(n, pos) { n, 0, pos, PW_CTX_SYSFS, 0, 0, 0 }
#define SYSFS_CB(n, pos, fl) { n, fl, pos, PW_CTX_SYSFS, pos + 1, pos + 2, pos - 1 }

static const struct centry table[] = {
	{ "module_param", 0, 3, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_unsafe", 0, 3, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_named", 0, 4, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_named_unsafe", 0, 4, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_array", 0, 4, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_string", 0, 4, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_cb", 0, 4, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_cb_unsafe", 0, 4, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_hw", 0, 4, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_array_named", 0, 5, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_hw_named", 0, 5, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_hw_array", 0, 5, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "module_param_call", 0, 5, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "core_param", 0, 4, PW_CTX_MODPARAM, 0, 0, 0 },
	{ "debugfs_create_", F_PREFIX, 2, PW_CTX_DEBUGFS, 0, 0, 0 },
	{ "proc_create", F_PREFIX, 2, PW_CTX_PROCFS, 0, 0, 0 },
	{ "proc_mkdir_mode", 0, 2, PW_CTX_PROCFS, 0, 0, 0 },
	{ "proc_mkdir_data", 0, 2, PW_CTX_PROCFS, 0, 0, 0 },
	SYSFS_CB("DEVICE_ATTR", 2, F_FORM_DEV),
	SYSFS_CB("DEVICE_ATTR_PREALLOC", 2, 0),
	SYSFS_CB("DEVICE_ATTR_IGNORE_LOCKDEP", 2, 0),
	SYSFS("DEVICE_INT_ATTR", 2),
	SYSFS("DEVICE_ULONG_ATTR", 2),
	SYSFS("DEVICE_BOOL_ATTR", 2),
	SYSFS("DEVICE_STRING_ATTR_RO", 2),
	SYSFS_CB("CLASS_ATTR", 2, 0),
	SYSFS("CLASS_ATTR_STRING", 2),
	SYSFS_CB("__ATTR", 2, F_FORM_ATTR),
	SYSFS_CB("__ATTR_PREALLOC", 2, 0),
	SYSFS_CB("__ATTR_IGNORE_LOCKDEP", 2, 0),
	SYSFS("__ATTR_RO_MODE", 2),
	SYSFS("__ATTR_RW_MODE", 2),
	{ "__BIN_ATTR", 0, 2, PW_CTX_SYSFS_RT, 0, 0, 0 },
	{ "BIN_ATTR", 0, 2, PW_CTX_SYSFS_RT, 0, 0, 0 },
	{ "sysfs_chmod_file", 0, 3, PW_CTX_SYSFS_RT, 0, 0, 0 },
	SYSFS_CB("SENSOR_ATTR", 2, 0),
	SYSFS_CB("SENSOR_DEVICE_ATTR", 2, 0),
	SYSFS_CB("SENSOR_ATTR_2", 2, 0),
	SYSFS_CB("SENSOR_DEVICE_ATTR_2", 2, 0),
	SYSFS_CB("SENSOR_TEMPLATE", 3, 0),
	SYSFS_CB("SENSOR_TEMPLATE_2", 3, 0),
	SYSFS_CB("SENSOR_DEVICE_TEMPLATE", 2, 0),
	SYSFS_CB("SENSOR_DEVICE_TEMPLATE_2", 2, 0),
	SYSFS_CB("IIO_ATTR", 2, 0),
	SYSFS_CB("IIO_DEVICE_ATTR", 2, 0),
	SYSFS_CB("IIO_DEVICE_ATTR_NAMED", 3, 0),
	/*
	 * Only IIO_DEV_ATTR_SAMP_FREQ(_mode, _show, _store) of the
	 * kernel's IIO_DEV_ATTR_* macros takes a mode first: the others
	 * take a show callback (_SAMP_FREQ_AVAIL, _INT_TIME_AVAIL,
	 * _TEMP_RAW), and drivers define their own whose first argument
	 * is a channel or an index.  So no name pattern, unlike
	 * checkpatch.pl's IIO_DEV_ATTR_[A-Z_]+.
	 */
	{ "IIO_DEV_ATTR_SAMP_FREQ", 0, 1, PW_CTX_SYSFS, 2, 3, 0 },
	{ "open", 0, 3, PW_CTX_CREATE, 0, 0, 0 },
	{ "open64", 0, 3, PW_CTX_CREATE, 0, 0, 0 },
	{ "openat", 0, 4, PW_CTX_CREATE, 0, 0, 0 },
	{ "openat64", 0, 4, PW_CTX_CREATE, 0, 0, 0 },
	{ "creat", 0, 2, PW_CTX_CREATE, 0, 0, 0 },
	{ "creat64", 0, 2, PW_CTX_CREATE, 0, 0, 0 },
	{ "mkdir", 0, 2, PW_CTX_CREATE, 0, 0, 0 },
	{ "mkdirat", 0, 3, PW_CTX_CREATE, 0, 0, 0 },
	{ "mknod", 0, 2, PW_CTX_CREATE, 0, 0, 0 },
	{ "mknodat", 0, 3, PW_CTX_CREATE, 0, 0, 0 },
	{ "mkfifo", 0, 2, PW_CTX_CREATE, 0, 0, 0 },
	{ "mkfifoat", 0, 3, PW_CTX_CREATE, 0, 0, 0 },
	{ "shm_open", 0, 3, PW_CTX_CREATE, 0, 0, 0 },
	{ "filp_open", 0, 3, PW_CTX_CREATE, 0, 0, 0 },
	{ "chmod", 0, 2, PW_CTX_CHMOD, 0, 0, 0 },
	{ "lchmod", 0, 2, PW_CTX_CHMOD, 0, 0, 0 },
	{ "fchmod", 0, 2, PW_CTX_CHMOD, 0, 0, 0 },
	{ "fchmodat", 0, 3, PW_CTX_CHMOD, 0, 0, 0 },
	{ "umask", 0, 1, PW_CTX_UMASK, 0, 0, 0 },
};

/* debugfs_create_* functions that take no mode. */
static const char *const debugfs_nomode[] = {
	"debugfs_create_dir", "debugfs_create_symlink",
	"debugfs_create_automount", "debugfs_create_devm_seqfile",
};

#define MAX_ARGS 16
#define MAX_CALL 16384	/* bytes an argument list may span */

struct cscan {
	struct pw_scan *sc;
	const char *s;		/* sanitized text */
	size_t len;
	unsigned char first[256];	/* table index + 1 of the first entry
					 * starting with that character */
	unsigned char next[G_N_ELEMENTS(table)];	/* the next one, + 1 */
	unsigned char namelen[G_N_ELEMENTS(table)];
	unsigned char cls[256];	/* 1 identifier byte, 2 digit, 0 other */
	size_t consumed;	/* mode spans up to here were judged */
	GHashTable *defines;	/* local #define NAME value, built lazily */
	bool defines_built;
	int runtime_modes;	/* -1 not yet known, else 0 or 1 */
	/* The function-like macros the text defines (struct ldef by
	 * name), and the first characters of their names. */
	GHashTable *ldefs;
	bool lfirst[256];
};

/*
 * A function-like macro the text defines: which of its parameters
 * reach a mode argument of a call in its body, worked out when a call
 * of it is first met.
 */
struct ldef {
	char **params;
	size_t body_s, body_e;	/* the body, to the end of its logical line */
	int state;		/* 0 not yet known, 1 being worked out, 2 known */
	unsigned mask;		/* bit i: parameter i is a mode argument */
	unsigned char kind;	/* enum pw_ctx_kind of the first such use */
};

static void ldef_free(gpointer p)
{
	struct ldef *d = p;

	g_strfreev(d->params);
	g_free(d);
}

/* Does the text change attribute modes at run time? */
static bool runtime_modes(struct cscan *cs)
{
	static const char *const hints[] = {
		"sysfs_chmod_file", "is_visible", "attr.mode", "attr->mode",
	};
	size_t i;

	if (cs->runtime_modes < 0) {
		cs->runtime_modes = 0;
		for (i = 0; i < G_N_ELEMENTS(hints); i++)
			if (memmem(cs->s, cs->len, hints[i], strlen(hints[i])))
				cs->runtime_modes = 1;
	}
	return cs->runtime_modes;
}

static inline bool idch(unsigned char c)
{
	return (unsigned)((c | 32) - 'a') < 26 || (unsigned)(c - '0') < 10 ||
	       c == '_';
}

static bool sp(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

static size_t skip_sp(const struct cscan *cs, size_t i)
{
	while (i < cs->len && sp((unsigned char)cs->s[i]))
		i++;
	return i;
}

/* The index of the last non-space byte before i, or (size_t)-1. */
static size_t prev_nonsp(const struct cscan *cs, size_t i)
{
	while (i > 0 && sp((unsigned char)cs->s[i - 1]))
		i--;
	return i ? i - 1 : (size_t)-1;
}

static void trim(const struct cscan *cs, struct pw_span *a)
{
	while (a->s < a->e && sp((unsigned char)cs->s[a->s]))
		a->s++;
	while (a->e > a->s && sp((unsigned char)cs->s[a->e - 1]))
		a->e--;
}

static bool opener(char c)
{
	return c == '(' || c == '[' || c == '{';
}

/* Matches every bracket of sc->san, one pass with a stack. */
static void build_brackets(struct pw_scan *sc)
{
	const char *s = sc->san;
	size_t len = sc->t->len, i, n = 0, depth = 0, *stack;

	for (i = 0; i < len; i++)
		n += opener(s[i]);
	sc->opens = g_new(size_t, n ? n : 1);
	sc->closes = g_new(size_t, n ? n : 1);
	stack = g_new(size_t, n ? n : 1);	/* indexes into opens */
	n = 0;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (opener(c)) {
			sc->opens[n] = i;
			sc->closes[n] = SIZE_MAX;
			stack[depth++] = n++;
		} else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
			sc->closes[stack[--depth]] = i;
		}
	}
	g_free(stack);
	sc->nopens = n;
	sc->brackets_built = true;
}

/* The bracket closing the opening one at offset at, or SIZE_MAX. */
static size_t close_of(const struct pw_scan *sc, size_t at)
{
	size_t lo = 0, hi = sc->nopens;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sc->opens[mid] < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sc->nopens && sc->opens[lo] == at ? sc->closes[lo] : SIZE_MAX;
}

void pw_perm_scan_reset(struct pw_scan *sc)
{
	g_free(sc->opens);
	g_free(sc->closes);
	sc->opens = sc->closes = NULL;
	sc->nopens = 0;
	sc->brackets_built = false;
	g_strfreev(sc->macro_params);
	sc->macro_params = NULL;
	sc->macro_known = false;
	if (sc->arg_uses)
		g_hash_table_destroy(sc->arg_uses);
	sc->arg_uses = NULL;
}

int pw_perm_split_args(struct pw_scan *sc, size_t lp, struct pw_span *args,
		       int max, size_t *rp)
{
	const char *s = sc->san;
	size_t i, close, start = lp + 1;
	int n = 0;

	if (!sc->brackets_built)
		build_brackets(sc);
	close = close_of(sc, lp);
	if (close == SIZE_MAX || close - lp >= MAX_CALL)
		return -1;
	/* The list's own bytes; a nested bracket is stepped over whole. */
	for (i = lp + 1; i < close; i++) {
		char c = s[i];

		if (opener(c)) {
			i = close_of(sc, i);	/* closes before close */
		} else if (c == ',') {
			if (n < max) {
				args[n].s = start;
				args[n].e = i;
			}
			n++;
			start = i + 1;
		} else if (c == ';') {
			return -1;
		}
	}
	if (n < max) {
		args[n].s = start;
		args[n].e = close;
	}
	n++;
	*rp = close;
	if (n > max)
		n = max;
	for (i = 0; i < (size_t)n; i++) {
		while (args[i].s < args[i].e && sp((unsigned char)s[args[i].s]))
			args[i].s++;
		while (args[i].e > args[i].s && sp((unsigned char)s[args[i].e - 1]))
			args[i].e--;
	}
	if (n == 1 && args[0].s == args[0].e)
		n = 0;
	return n;
}

/* The end of the logical line holding offset i: its first '\n' not
 * continued by a backslash (which the sanitized text blanks, so the
 * text itself is read), or the end of the text. */
static size_t logical_end(const struct cscan *cs, size_t i)
{
	const char *raw = cs->sc->t->buf;

	for (; i < cs->len; i++) {
		size_t k = i;

		if (raw[i] != '\n')
			continue;
		if (k > 0 && raw[k - 1] == '\r')
			k--;
		if (k == 0 || raw[k - 1] != '\\')
			return i;
	}
	return cs->len;
}

/* Finds every function-like #define of the text, once. */
static void build_ldefs(struct cscan *cs)
{
	size_t i = 0;

	if (!memmem(cs->s, cs->len, "define", 6))
		return;
	while (i < cs->len) {
		const char *h = memchr(cs->s + i, '#', cs->len - i);
		struct pw_span nm;
		size_t body;
		char **params, *key;
		struct ldef *d;

		if (!h)
			break;
		i = (size_t)(h - cs->s) + 1;
		params = pw_perm_macro_at(cs->s, cs->len, (size_t)(h - cs->s), &nm, &body);
		if (!params) {
			/* A directive starts a line: none starts later on
			 * this one, so its other '#'s are not read again
			 * (a line of "#define a(#define a(..." stays linear). */
			const char *nl = memchr(h, '\n', cs->len - (size_t)(h - cs->s));

			i = nl ? (size_t)(nl - cs->s) + 1 : cs->len;
			continue;
		}
		if (!cs->ldefs)
			cs->ldefs = g_hash_table_new_full(g_str_hash, g_str_equal,
							  g_free, ldef_free);
		d = g_new0(struct ldef, 1);
		d->params = params;
		d->body_s = body;
		d->body_e = logical_end(cs, body);
		i = d->body_e;
		key = g_strndup(cs->s + nm.s, nm.e - nm.s);
		/* A macro defined twice (#ifdef branches): the first
		 * definition speaks for it. */
		if (g_hash_table_contains(cs->ldefs, key)) {
			g_free(key);
			ldef_free(d);
			continue;
		}
		g_hash_table_insert(cs->ldefs, key, d);
		cs->lfirst[(unsigned char)cs->s[nm.s]] = true;
	}
}

static void build_defines(struct cscan *cs)
{
	size_t i = 0;

	cs->defines_built = true;
	cs->defines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	while (i < cs->len) {
		const char *h = memchr(cs->s + i, '#', cs->len - i);
		size_t j, ns, ne, eol;
		struct pw_mode m;

		if (!h)
			break;
		j = skip_sp(cs, (size_t)(h - cs->s) + 1);
		i = (size_t)(h - cs->s) + 1;
		if (j + 7 > cs->len || memcmp(cs->s + j, "define", 6) ||
		    !sp((unsigned char)cs->s[j + 6]))
			continue;
		ns = skip_sp(cs, j + 6);
		ne = ns;
		while (ne < cs->len && idch((unsigned char)cs->s[ne]))
			ne++;
		if (ne == ns || (ne < cs->len && cs->s[ne] == '('))
			continue;
		eol = ne;
		while (eol < cs->len && cs->s[eol] != '\n')
			eol++;
		if (pw_mode_eval(cs->s + ne, eol - ne, PW_MODE_C, NULL, NULL, &m) &&
		    (m.flags & (PW_MODE_OCTAL | PW_MODE_SYMBOLIC | PW_MODE_PERM)))
			g_hash_table_insert(cs->defines,
					    g_strndup(cs->s + ns, ne - ns),
					    GUINT_TO_POINTER(m.value + 1));
		i = eol;
	}
}

static bool lookup_define(void *ud, const char *name, size_t len, unsigned *value)
{
	struct cscan *cs = ud;
	char key[128];
	gpointer v;

	if (len >= sizeof(key))
		return false;
	if (!cs->defines_built)
		build_defines(cs);
	memcpy(key, name, len);
	key[len] = '\0';
	v = g_hash_table_lookup(cs->defines, key);
	if (!v)
		return false;
	*value = GPOINTER_TO_UINT(v) - 1;
	return true;
}

static bool worth_judging(const struct pw_mode *m)
{
	if ((m->flags & PW_MODE_UNKNOWN) &&
	    !(m->flags & (PW_MODE_SYMBOLIC | PW_MODE_PERM | PW_MODE_PERM_UNDEF)))
		return false;
	return m->nterms > 0;
}

static void judge_span(struct cscan *cs, struct pw_occ *oc)
{
	struct pw_mode m;
	struct pw_mode_cond cond;
	bool has_cond = false;

	if (oc->mode.e <= oc->mode.s)
		return;
	pw_mode_eval(cs->s + oc->mode.s, oc->mode.e - oc->mode.s, PW_MODE_C,
		     lookup_define, cs, &m);
	if (oc->mode.e > cs->consumed)
		cs->consumed = oc->mode.e;
	if (!worth_judging(&m))
		return;
	if (oc->kind == PW_CTX_MEMBER &&
	    (!(m.flags & (PW_MODE_OCTAL | PW_MODE_SYMBOLIC | PW_MODE_PERM)) ||
	     (m.flags & PW_MODE_DECIMAL)))
		return;
	/* "w ? S_IRUGO | S_IWUSR : S_IRUGO" as a mode argument: the
	 * values it takes, not "cannot be evaluated". */
	if (!oc->cond && (m.flags & PW_MODE_UNKNOWN) &&
	    (m.flags & (PW_MODE_SYMBOLIC | PW_MODE_PERM)) &&
	    pw_mode_eval_cond(cs->s + oc->mode.s, oc->mode.e - oc->mode.s,
			      lookup_define, cs, &cond)) {
		oc->cond = &cond;
		has_cond = true;
	}
	pw_perm_judge(cs->sc, oc, &m);
	if (has_cond) {
		oc->cond = NULL;
		pw_mode_cond_release(&cond);
	}
}

static void call(struct cscan *cs, const struct centry *ce, size_t p, size_t q)
{
	struct pw_span args[MAX_ARGS];
	struct pw_occ oc;
	size_t lp = skip_sp(cs, q), rp = 0, pv;
	int n;

	if (lp >= cs->len || cs->s[lp] != '(')
		return;
	pv = prev_nonsp(cs, p);
	if (pv != (size_t)-1 && (cs->s[pv] == '.' ||
	    (cs->s[pv] == '>' && pv > 0 && cs->s[pv - 1] == '-')))
		return;
	n = pw_perm_split_args(cs->sc, lp, args, MAX_ARGS, &rp);
	if (n < ce->pos)
		return;
	memset(&oc, 0, sizeof(oc));
	oc.kind = (enum pw_ctx_kind)ce->kind;
	oc.lang = PW_MODE_C;
	oc.c = true;
	oc.mode = args[ce->pos - 1];
	oc.call.s = p;
	oc.call.e = rp + 1;
	if (ce->show && n >= ce->store && ce->store <= MAX_ARGS) {
		oc.callbacks = true;
		oc.name = ce->attr_name ? args[ce->attr_name - 1] : oc.mode;
		oc.show = args[ce->show - 1];
		oc.store = args[ce->store - 1];
		oc.runtime_modes = runtime_modes(cs);
		if ((ce->flags & F_FORM_DEV) && n == 4)
			oc.form = 1;
		if ((ce->flags & F_FORM_ATTR) && n == 4)
			oc.form = 2;
	}
	judge_span(cs, &oc);
}

/* ".mode = ..." or "->mode = ..." (also i_mode). */
static void member(struct cscan *cs, size_t p, size_t q)
{
	size_t pv = prev_nonsp(cs, p), eq = skip_sp(cs, q), i, limit;
	struct pw_occ oc;
	int depth = 0;

	if (pv == (size_t)-1 || eq >= cs->len || cs->s[eq] != '=' ||
	    (eq + 1 < cs->len && cs->s[eq + 1] == '='))
		return;
	if (cs->s[pv] != '.' && !(cs->s[pv] == '>' && pv > 0 && cs->s[pv - 1] == '-'))
		return;
	memset(&oc, 0, sizeof(oc));
	oc.kind = PW_CTX_MEMBER;
	oc.lang = PW_MODE_C;
	oc.c = true;
	oc.mode.s = eq + 1;
	limit = eq + 4096 < cs->len ? eq + 4096 : cs->len;
	for (i = eq + 1; i < limit; i++) {
		char c = cs->s[i];

		if (c == '(')
			depth++;
		else if (c == ')' && --depth < 0)
			break;
		else if (depth == 0 && (c == ',' || c == ';' || c == '}'))
			break;
	}
	if (i >= limit)
		return;
	oc.mode.e = i;
	trim(cs, &oc.mode);
	judge_span(cs, &oc);
}

static bool term_at(const struct cscan *cs, size_t a, size_t b)
{
	unsigned v;
	bool def;

	if (b <= a)
		return false;
	if (cs->s[a] >= '0' && cs->s[a] <= '9')
		return true;
	return pw_mode_name_value(cs->s + a, b - a, &v) ||
	       pw_mode_perm_decode(cs->s + a, b - a, &v, &def);
}

static bool keyword_before(const struct cscan *cs, size_t at, const char *kw)
{
	size_t n = strlen(kw), e = at + 1, b = e;

	while (b > 0 && idch((unsigned char)cs->s[b - 1]))
		b--;
	return e - b == n && !memcmp(cs->s + b, kw, n);
}

/* The identifier ending at at (inclusive) is a #define's name. */
static bool define_name_before(const struct cscan *cs, size_t at)
{
	size_t b = at + 1, k;

	while (b > 0 && idch((unsigned char)cs->s[b - 1]))
		b--;
	if (b == at + 1)
		return false;
	k = prev_nonsp(cs, b);
	if (k == (size_t)-1 || !keyword_before(cs, k, "define"))
		return false;
	k = prev_nonsp(cs, k - 5);
	return k != (size_t)-1 && cs->s[k] == '#';
}

/* Bytes a mode expression with conditions may span around its name. */
#define COND_REACH 512
#define NONE ((size_t)-1)

/* The end of the bracket group opening at i (exclusive), within hi. */
static size_t group_end(const struct cscan *cs, size_t i, size_t hi)
{
	int depth = 0;

	for (; i < hi; i++) {
		char c = cs->s[i];

		if (c == '(' || c == '[')
			depth++;
		else if ((c == ')' || c == ']') && --depth == 0)
			return i + 1;
		else if (c == ';' || c == '{' || c == '}')
			return NONE;
	}
	return NONE;
}

/* The start of the bracket group closing at e - 1, within lo. */
static size_t group_start(const struct cscan *cs, size_t e, size_t lo)
{
	int depth = 0;
	size_t i = e;

	while (i > lo) {
		char c = cs->s[--i];

		if (c == ')' || c == ']')
			depth++;
		else if ((c == '(' || c == '[') && --depth == 0)
			return i;
		else if (c == ';' || c == '{' || c == '}')
			return NONE;
	}
	return NONE;
}

/*
 * The operand of a "|" chain ending at e (white space before e
 * allowed): a name, a literal, a variable (a->b.c[i], f(x)), a bracket
 * group, a cast before a group.  Returns its start, or NONE.
 */
static size_t operand_left(const struct cscan *cs, size_t e, size_t lo)
{
	size_t i = e, j;

	for (;;) {
		while (i > lo && sp((unsigned char)cs->s[i - 1]))
			i--;
		if (i <= lo)
			return NONE;
		if (cs->s[i - 1] == ')' || cs->s[i - 1] == ']') {
			if ((i = group_start(cs, i, lo)) == NONE)
				return NONE;
		} else if (idch((unsigned char)cs->s[i - 1])) {
			if (keyword_before(cs, i - 1, "return"))
				return NONE;
			while (i > lo && idch((unsigned char)cs->s[i - 1]))
				i--;
		} else {
			return NONE;
		}
		/* What may stand before: a member access, a function's
		 * name, a cast. */
		j = i;
		while (j > lo && sp((unsigned char)cs->s[j - 1]))
			j--;
		if (j > lo && cs->s[j - 1] == '.') {
			i = j - 1;
			continue;
		}
		if (j > lo + 1 && cs->s[j - 1] == '>' && cs->s[j - 2] == '-') {
			i = j - 2;
			continue;
		}
		if (cs->s[i] == '(' && j > lo &&
		    (cs->s[j - 1] == ')' ||
		     (idch((unsigned char)cs->s[j - 1]) && !keyword_before(cs, j - 1, "return")))) {
			i = j;
			continue;
		}
		return i;
	}
}

/* The end of the operand starting at s (after white space), or NONE. */
static size_t operand_right(const struct cscan *cs, size_t s, size_t hi)
{
	size_t i = skip_sp(cs, s), j;

	if (i >= hi)
		return NONE;
	for (;;) {
		if (cs->s[i] == '(' || cs->s[i] == '[') {
			if ((i = group_end(cs, i, hi)) == NONE)
				return NONE;
		} else if (idch((unsigned char)cs->s[i])) {
			while (i < hi && idch((unsigned char)cs->s[i]))
				i++;
		} else {
			return NONE;
		}
		j = skip_sp(cs, i);
		if (j < hi && (cs->s[j] == '(' || cs->s[j] == '[' || cs->s[j] == '.')) {
			i = cs->s[j] == '.' ? skip_sp(cs, j + 1) : j;
			continue;
		}
		if (j + 1 < hi && cs->s[j] == '-' && cs->s[j + 1] == '>') {
			i = skip_sp(cs, j + 2);
			continue;
		}
		return i;
	}
}

/* A single '|' (not "||" nor "|=") at i. */
static bool bar_at(const struct cscan *cs, size_t i)
{
	return cs->s[i] == '|' && (i == 0 || cs->s[i - 1] != '|') &&
	       (i + 1 >= cs->len || (cs->s[i + 1] != '|' && cs->s[i + 1] != '='));
}

/* Grows [*s, *e) over the "|" chain it is an operand of; the number of
 * operands. */
static int bar_chain(const struct cscan *cs, size_t *s, size_t *e, size_t lo,
		     size_t hi)
{
	int n = 1;
	size_t k, t;

	for (;;) {
		k = prev_nonsp(cs, *s);
		if (k == NONE || k < lo || !bar_at(cs, k) ||
		    (t = operand_left(cs, k, lo)) == NONE)
			break;
		*s = t;
		n++;
	}
	for (;;) {
		k = skip_sp(cs, *e);
		if (k >= hi || !bar_at(cs, k) ||
		    (t = operand_right(cs, k + 1, hi)) == NONE)
			break;
		*e = t;
		n++;
	}
	return n;
}

/* The '(' enclosing offset at, within lo, or NONE. */
static size_t enclosing_open(const struct cscan *cs, size_t at, size_t lo)
{
	int depth = 0;
	size_t i = at;

	while (i > lo) {
		char c = cs->s[--i];

		if (c == ')' || c == ']')
			depth++;
		else if (c == '(' && depth-- == 0)
			return i;
		else if (c == '[')
			depth--;
		else if (c == ';' || c == '{' || c == '}')
			return NONE;
	}
	return NONE;
}

/* The context of a standalone mode expression: what stands before s
 * and after e. */
static bool value_context(const struct cscan *cs, size_t s, size_t e)
{
	size_t k = prev_nonsp(cs, s), nx = e;

	if (k == NONE)
		return false;
	switch (cs->s[k]) {
	case '(': case ',': case '?': case ':': case '{':
		break;
	case '=':
		if (k > 0 && strchr("=!<>&^|", cs->s[k - 1]))
			return false;
		break;
	default:
		if (!keyword_before(cs, k, "return") && !define_name_before(cs, k))
			return false;
	}
	while (nx < cs->len && (cs->s[nx] == ' ' || cs->s[nx] == '\t'))
		nx++;
	return nx >= cs->len || strchr("),;:}\n", cs->s[nx]);
}

/*
 * An S_I* name in a mode expression the program decides: "S_IRUGO |
 * (w ? S_IWUSR : 0)" or "attr->mode | S_IWUSR".  Judges the whole
 * expression once and returns true; false when the name is in no such
 * expression (a plain chain, a ternary of whole modes), for value().
 */
static bool cond_value(struct cscan *cs, size_t p, size_t q)
{
	size_t lo = p > COND_REACH ? p - COND_REACH : 0;
	size_t hi = q + COND_REACH < cs->len ? q + COND_REACH : cs->len;
	size_t s = p, e = q, k, gs, ge;
	struct pw_mode_cond cond;
	struct pw_occ oc;
	struct pw_mode m;
	int level, n;

	n = bar_chain(cs, &s, &e, lo, hi);
	/* A ternary branch inside a group that is itself an operand of a
	 * "|" chain: the branch is bits added, the chain is the mode. */
	for (level = 0; level < 4; level++) {
		k = prev_nonsp(cs, s);
		if (k == NONE || k < lo || (cs->s[k] != '?' && cs->s[k] != ':'))
			break;
		gs = enclosing_open(cs, k, lo);
		if (gs == NONE || (ge = group_end(cs, gs, hi)) == NONE || ge < e)
			break;
		k = prev_nonsp(cs, gs);
		if (k != NONE && k >= lo && cs->s[k] == ')') {
			size_t cast = group_start(cs, k + 1, lo);

			if (cast != NONE && operand_right(cs, cast, hi) == ge)
				gs = cast;
		}
		if (bar_chain(cs, &gs, &ge, lo, hi) < 2)
			break;
		s = gs;
		e = ge;
		n = 2;
	}
	if (n < 2 || !value_context(cs, s, e))
		return false;
	if (!pw_mode_eval_cond(cs->s + s, e - s, lookup_define, cs, &cond))
		return false;
	memset(&oc, 0, sizeof(oc));
	oc.kind = PW_CTX_VALUE;
	oc.lang = PW_MODE_C;
	oc.c = true;
	oc.mode.s = s;
	oc.mode.e = e;
	oc.cond = &cond;
	pw_mode_eval(cs->s + s, e - s, PW_MODE_C, lookup_define, cs, &m);
	if (e > cs->consumed)
		cs->consumed = e;
	pw_perm_judge(cs->sc, &oc, &m);
	pw_mode_cond_release(&cond);
	return true;
}

/* A standalone S_I* expression, judged for the house style only. */
static void value(struct cscan *cs, size_t p, size_t q)
{
	size_t s = p, e = q, j, k, t;
	struct pw_occ oc;
	bool adds = false;
	int guard;

	if (cond_value(cs, p, q))
		return;
	for (guard = 0; guard < 64; guard++) {
		j = s;
		while (j > 0 && sp((unsigned char)cs->s[j - 1]))
			j--;
		if (j == 0)
			break;
		if (cs->s[j - 1] == '(') {
			s = j - 1;
			continue;
		}
		if (cs->s[j - 1] == '|' && !(j >= 2 && cs->s[j - 2] == '|')) {
			k = j - 1;
			while (k > 0 && sp((unsigned char)cs->s[k - 1]))
				k--;
			t = k;
			while (t > 0 && idch((unsigned char)cs->s[t - 1]))
				t--;
			if (term_at(cs, t, k)) {
				s = t;
				continue;
			}
		}
		break;
	}
	for (guard = 0; guard < 64; guard++) {
		j = skip_sp(cs, e);
		if (j >= cs->len)
			break;
		if (cs->s[j] == ')') {
			e = j + 1;
			continue;
		}
		if (cs->s[j] == '|' && j + 1 < cs->len && cs->s[j + 1] != '|' &&
		    cs->s[j + 1] != '=') {
			k = skip_sp(cs, j + 1);
			if (k < cs->len && cs->s[k] == '(') {
				e = k + 1;
				continue;
			}
			t = k;
			while (t < cs->len && idch((unsigned char)cs->s[t]))
				t++;
			if (term_at(cs, k, t)) {
				e = t;
				continue;
			}
		}
		break;
	}
	/* Drop parentheses that belong to the surroundings. */
	for (guard = 0; guard < 64; guard++) {
		int depth = 0, low = 0;
		size_t i;

		for (i = s; i < e; i++) {
			if (cs->s[i] == '(')
				depth++;
			else if (cs->s[i] == ')' && --depth < low)
				low = depth;
		}
		if (depth > low) {
			if (cs->s[s] != '(')
				return;
			s = skip_sp(cs, s + 1);
		} else if (low < 0) {
			while (e > s && sp((unsigned char)cs->s[e - 1]))
				e--;
			if (cs->s[e - 1] != ')')
				return;
			e--;
			while (e > s && sp((unsigned char)cs->s[e - 1]))
				e--;
		} else {
			break;
		}
	}
	cs->consumed = e;
	k = prev_nonsp(cs, s);
	if (k == (size_t)-1)
		return;
	switch (cs->s[k]) {
	case '(': case ',': case '?': case ':': case '{':
		break;
	case '|':
		/* Bits set on another mode: attr->mode | S_IWUSR. */
		if (k > 0 && cs->s[k - 1] == '|')
			return;
		adds = true;
		break;
	case '=':
		if (k > 0 && strchr("=!<>&^", cs->s[k - 1]))
			return;
		/* "mode |= S_IWUSR" adds bits: it is no mode of its own. */
		adds = k > 0 && cs->s[k - 1] == '|';
		break;
	default:
		if (!keyword_before(cs, k, "return") && !define_name_before(cs, k))
			return;
	}
	j = s;
	{
		size_t nx = e;

		while (nx < cs->len && (cs->s[nx] == ' ' || cs->s[nx] == '\t'))
			nx++;
		if (nx < cs->len && !strchr("),;:}\n", cs->s[nx]) &&
		    !(cs->s[nx] == '|' && nx + 1 < cs->len && cs->s[nx + 1] != '|'))
			return;
	}
	memset(&oc, 0, sizeof(oc));
	oc.kind = PW_CTX_VALUE;
	oc.lang = PW_MODE_C;
	oc.c = true;
	oc.relative = adds;
	oc.mode.s = j;
	oc.mode.e = e;
	judge_span(cs, &oc);
}

static const struct centry *lookup_call(const struct cscan *cs, const char *id,
					size_t n)
{
	unsigned i;

	for (i = cs->first[(unsigned char)id[0]]; i; i = cs->next[i - 1]) {
		const struct centry *ce = &table[i - 1];
		size_t l = cs->namelen[i - 1];

		if (ce->flags & F_PREFIX) {
			size_t k;

			if (n < l || memcmp(id, ce->name, l))
				continue;
			if (id[0] != 'd')
				return ce;
			for (k = 0; k < G_N_ELEMENTS(debugfs_nomode); k++)
				if (strlen(debugfs_nomode[k]) == n &&
				    !memcmp(debugfs_nomode[k], id, n))
					return NULL;
			return ce;
		}
		if (l == n && !memcmp(id, ce->name, n))
			return ce;
	}
	return NULL;
}

static struct ldef *lookup_ldef(const struct cscan *cs, const char *id, size_t n)
{
	char key[128];

	if (!cs->ldefs || !cs->lfirst[(unsigned char)id[0]] || n >= sizeof(key))
		return NULL;
	memcpy(key, id, n);
	key[n] = '\0';
	return g_hash_table_lookup(cs->ldefs, key);
}

/* The index of the parameter that argument a is, whole (brackets
 * around it allowed), or -1. */
static int param_index(const struct cscan *cs, char *const *params,
		       struct pw_span a)
{
	int i;

	while (a.e - a.s >= 2 && cs->s[a.s] == '(' && cs->s[a.e - 1] == ')') {
		a.s++;
		a.e--;
		trim(cs, &a);
	}
	for (i = 0; params[i]; i++)
		if (strlen(params[i]) == a.e - a.s &&
		    !memcmp(params[i], cs->s + a.s, a.e - a.s))
			return i;
	return -1;
}

/*
 * Which parameters of d reach a mode argument in its body: passed
 * whole as the mode of a permission-taking call, or of another macro
 * the text defines that does so.  A parameter only part of a mode
 * expression ("_m | S_IWUSR") is no mode of its own.
 */
static unsigned ldef_mask(struct cscan *cs, struct ldef *d, int depth)
{
	struct pw_span args[MAX_ARGS];
	size_t p, q, rp;
	int n, j, k;

	if (d->state == 2 || d->state == 1 || depth > 8)
		return d->state == 2 ? d->mask : 0;
	d->state = 1;
	for (p = d->body_s; p < d->body_e; p = q) {
		const struct centry *ce = NULL;
		struct ldef *sub;
		unsigned m;
		size_t lp;

		if (!cs->cls[(unsigned char)cs->s[p]]) {
			q = p + 1;
			continue;
		}
		for (q = p + 1; q < cs->len && cs->cls[(unsigned char)cs->s[q]]; q++)
			;
		if (cs->cls[(unsigned char)cs->s[p]] == 2)
			continue;
		lp = skip_sp(cs, q);
		if (lp >= d->body_e || cs->s[lp] != '(')
			continue;
		sub = lookup_ldef(cs, cs->s + p, q - p);
		if (sub == d)
			continue;
		if (!sub && !(cs->first[(unsigned char)cs->s[p]] &&
			      (ce = lookup_call(cs, cs->s + p, q - p))))
			continue;
		n = pw_perm_split_args(cs->sc, lp, args, MAX_ARGS, &rp);
		if (n <= 0)
			continue;
		m = sub ? ldef_mask(cs, sub, depth + 1) : 1u << (ce->pos - 1);
		for (j = 0; j < n; j++) {
			if (!(m & (1u << j)) || (k = param_index(cs, d->params, args[j])) < 0 ||
			    k >= MAX_ARGS)
				continue;
			if (!d->mask)
				d->kind = sub ? sub->kind : ce->kind;
			d->mask |= 1u << k;
		}
	}
	d->state = 2;
	return d->mask;
}

/*
 * A call of a macro the text defines.  Its definition, not its name,
 * says which arguments are modes: IIO_DEV_ATTR_PHASE_CONFIG(_idx)
 * defined as IIO_DEVICE_ATTR(..##_idx, 0644, ...) takes an index, and
 * the 0644 of its body is judged where it is written.  When the name
 * is also in the table and the definition agrees with it, the table's
 * entry (with its callbacks) judges the call.
 */
static void local_call(struct cscan *cs, struct ldef *d, const struct centry *ce,
		       size_t p, size_t q)
{
	struct pw_span args[MAX_ARGS];
	struct pw_occ oc;
	size_t lp = skip_sp(cs, q), rp = 0;
	unsigned mask;
	int n, j;

	if (lp >= cs->len || cs->s[lp] != '(' || define_name_before(cs, q - 1))
		return;
	mask = ldef_mask(cs, d, 0);
	if (!mask)
		return;
	if (ce && mask == 1u << (ce->pos - 1)) {
		call(cs, ce, p, q);
		return;
	}
	n = pw_perm_split_args(cs->sc, lp, args, MAX_ARGS, &rp);
	for (j = 0; j < n; j++) {
		if (!(mask & (1u << j)))
			continue;
		memset(&oc, 0, sizeof(oc));
		oc.kind = (enum pw_ctx_kind)d->kind;
		oc.lang = PW_MODE_C;
		oc.c = true;
		oc.mode = args[j];
		oc.call.s = p;
		oc.call.e = rp + 1;
		judge_span(cs, &oc);
	}
}

void pw_perm_scan_c(struct pw_scan *sc)
{
	struct cscan cs;
	size_t i, p, q;

	memset(&cs, 0, sizeof(cs));
	cs.sc = sc;
	cs.s = sc->san;
	cs.len = sc->t->len;
	cs.runtime_modes = -1;
	/* Chain the table's entries by first character. */
	for (i = G_N_ELEMENTS(table); i-- > 0;) {
		unsigned char c0 = (unsigned char)table[i].name[0];

		cs.next[i] = cs.first[c0];
		cs.first[c0] = (unsigned char)(i + 1);
		cs.namelen[i] = (unsigned char)strlen(table[i].name);
	}

	for (i = 0; i < 256; i++)
		cs.cls[i] = idch((unsigned char)i) ? ((i >= '0' && i <= '9') ? 2 : 1) : 0;
	build_ldefs(&cs);

	p = 0;
	while (p < cs.len) {
		unsigned char c = (unsigned char)cs.s[p];
		const struct centry *ce;
		struct ldef *ld;

		if (!cs.cls[c]) {
			p++;
			continue;
		}
		q = p + 1;
		while (q < cs.len && cs.cls[(unsigned char)cs.s[q]])
			q++;
		if (cs.cls[c] == 2) {
			p = q;
			continue;
		}
		if (q - p == 4 && !memcmp(cs.s + p, "mode", 4))
			member(&cs, p, q);
		else if (q - p == 6 && !memcmp(cs.s + p, "i_mode", 6))
			member(&cs, p, q);
		else if (cs.ldefs && (ld = lookup_ldef(&cs, cs.s + p, q - p)))
			local_call(&cs, ld,
				   cs.first[c] ? lookup_call(&cs, cs.s + p, q - p) : NULL,
				   p, q);
		else if (cs.first[c] && (ce = lookup_call(&cs, cs.s + p, q - p)))
			call(&cs, ce, p, q);
		else if (p >= cs.consumed && ((c == 'S' && q - p >= 6 && cs.s[p + 1] == '_' &&
			  cs.s[p + 2] == 'I' && pw_mode_is_perm_name(cs.s + p, q - p)) ||
			 (c == 'P' && q - p == 14 && !memcmp(cs.s + p, "PERM_", 5))))
			value(&cs, p, q);
		p = q;
	}
	if (cs.defines)
		g_hash_table_destroy(cs.defines);
	if (cs.ldefs)
		g_hash_table_destroy(cs.ldefs);
}
