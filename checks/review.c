/*
 * patchwarden: the runner.  Runs the scanners (perm_c.c, perm_sh.c,
 * perm_py.c, perm_git.c) over a patch or a whole source file, picking
 * the scanner for each file by its name (C, shell, Makefile, Python)
 * or, for a new file or a whole source file, by its "#!" line.  The
 * scanners call back into checks/rules.c, never into this file.
 */
#include <string.h>

#include "checks/perm.h"

static void scan_init(struct pw_scan *sc, const struct pw_check_opts *o,
		      GPtrArray *out)
{
	int i;

	memset(sc, 0, sizeof(*sc));
	sc->style = o ? o->style : PW_STYLE_OCTAL;
	for (i = 0; i < PW_R_COUNT; i++)
		sc->on[i] = pw_rule_on(o, i);
	sc->out = out;
	if (!o)
		sc->cap = PW_MAX_FINDINGS;
	else if (o->max_findings > 0)
		sc->cap = (size_t)o->max_findings;
}

enum lang { L_NONE, L_C, L_SH, L_MAKE, L_PY };

static bool ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static enum lang lang_of(const char *path, const char *first, size_t flen)
{
	const char *base = strrchr(path, '/');
	static const char *const c_ext[] = { ".c", ".h", ".cc", ".cpp", ".cxx",
					     ".hh", ".hpp", ".hxx" };
	static const char *const sh_ext[] = { ".sh", ".bash", ".ksh", ".zsh" };
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < G_N_ELEMENTS(c_ext); i++)
		if (ends(base, c_ext[i]))
			return L_C;
	if (ends(base, ".py"))
		return L_PY;
	for (i = 0; i < G_N_ELEMENTS(sh_ext); i++)
		if (ends(base, sh_ext[i]))
			return L_SH;
	if (!strcmp(base, "Makefile") || !strcmp(base, "makefile") ||
	    !strcmp(base, "GNUmakefile") || !strcmp(base, "Kbuild") ||
	    g_str_has_prefix(base, "Makefile.") || ends(base, ".mk") ||
	    ends(base, ".mak"))
		return L_MAKE;
	if (first && flen > 2 && first[0] == '#' && first[1] == '!') {
		char *line = g_strndup(first, flen < 128 ? flen : 128);
		enum lang l = L_NONE;

		if (strstr(line, "python"))
			l = L_PY;
		else if (strstr(line, "sh"))
			l = L_SH;
		g_free(line);
		return l;
	}
	return L_NONE;
}

/* Scans one text (a hunk or a whole file) in the given language. */
static void scan_text(struct pw_scan *sc, struct pw_text *t, enum lang l,
		      bool hunk)
{
	char *san = g_malloc(t->len + 1);

	san[t->len] = '\0';
	sc->t = t;
	sc->san = san;
	switch (l) {
	case L_C:
		pw_text_sanitize_c(t->buf, t->len, san, hunk);
		pw_perm_scan_c(sc);
		break;
	case L_PY:
		pw_text_sanitize_py(t->buf, t->len, san);
		pw_perm_scan_py(sc);
		break;
	case L_SH:
	case L_MAKE:
		pw_text_sanitize_sh(t->buf, t->len, san);
		pw_perm_scan_sh(sc);
		break;
	case L_NONE:
		break;
	}
	pw_perm_scan_reset(sc);
	g_free(san);
	sc->t = NULL;
	sc->san = NULL;
}

/* Moves the findings of sc, sorted and cut to the cap, to the caller's
 * array to, then the FINDINGS_CAPPED finding when some were dropped. */
static void move_sorted(struct pw_scan *sc, const char *file, GPtrArray *to)
{
	GPtrArray *from = sc->out;
	guint i;

	pw_perm_cut(sc);
	for (i = 0; i < from->len; i++)
		g_ptr_array_add(to, from->pdata[i]);
	g_ptr_array_set_size(from, 0);
	if (sc->dropped && sc->on[PW_R_FINDINGS_CAPPED]) {
		const struct pw_rule *r = pw_rule_at(PW_R_FINDINGS_CAPPED);
		char *m = g_strdup_printf("%zu more finding%s not shown", sc->dropped,
					  sc->dropped == 1 ? "" : "s");

		g_ptr_array_add(to, pw_finding_new(r->id, r->severity, file, 0, 0, m));
		g_free(m);
	}
}

/* The first line of a new file, for its "#!" line. */
static const struct pw_dline *first_added(const struct pw_file *f)
{
	size_t i;

	for (i = 0; i < f->nlines; i++)
		if (f->lines[i].kind == '+' && f->lines[i].new_no == 1)
			return &f->lines[i];
	return NULL;
}

void pw_check_patch(const struct pw_patch *p, const struct pw_check_opts *o,
		    GPtrArray *out)
{
	struct pw_scan sc;
	GPtrArray *tmp = g_ptr_array_new();
	size_t i, j;

	scan_init(&sc, o, tmp);
	for (i = 0; i < p->nfiles; i++) {
		const struct pw_file *f = &p->files[i];
		const struct pw_dline *d = first_added(f);
		enum lang l;

		sc.path = pw_file_path(f);
		if (sc.on[PW_R_EXEC_SOURCE_FILE])
			pw_perm_git(&sc, f);
		if ((f->flags & (PW_FILE_BINARY | PW_FILE_DELETED)) || !f->new_path)
			continue;
		l = lang_of(f->new_path, d ? d->text : NULL, d ? d->len : 0);
		if (l == L_NONE)
			continue;
		for (j = 0; j < f->nhunks; j++) {
			struct pw_text t;

			if (!pw_text_init_hunk(&t, f, &f->hunks[j]))
				continue;
			scan_text(&sc, &t, l, true);
			pw_text_release(&t);
		}
	}
	if (sc.on[PW_R_PATCH_MALFORMED]) {
		for (i = 0; i < p->nproblems; i++) {
			const char *path = "(diff)";
			struct pw_finding *fd;
			size_t lo = 0, hi = p->nfiles;

			/* The last file starting at or before the problem
			 * (files are in diff order). */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (p->files[mid].patch_no <= p->problems[i].patch_no)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo > 0)
				path = pw_file_path(&p->files[lo - 1]);
			fd = pw_finding_new(pw_rule_at(PW_R_PATCH_MALFORMED)->id,
					    pw_rule_at(PW_R_PATCH_MALFORMED)->severity,
					    path, 0, 0, p->problems[i].message);
			fd->patch_no = p->problems[i].patch_no;
			pw_perm_keep(&sc, fd);
		}
	}
	move_sorted(&sc, "(diff)", out);
	g_ptr_array_free(tmp, TRUE);
}

struct pw_patch *pw_check_diff(const char *diff, size_t len,
			       const struct pw_check_opts *o, GPtrArray *out)
{
	struct pw_patch *p = pw_diff_parse(diff, len);

	pw_check_patch(p, o, out);
	return p;
}

void pw_check_source(const char *path, const char *text, size_t len,
		     const struct pw_check_opts *o, GPtrArray *out)
{
	struct pw_scan sc;
	struct pw_text t;
	GPtrArray *tmp = g_ptr_array_new();
	const char *nl = memchr(text, '\n', len);
	enum lang l = lang_of(path, text, nl ? (size_t)(nl - text) : len);

	scan_init(&sc, o, tmp);
	sc.path = path;
	if (l != L_NONE) {
		pw_text_init_source(&t, text, len);
		scan_text(&sc, &t, l, false);
		pw_text_release(&t);
	}
	move_sorted(&sc, path, out);
	g_ptr_array_free(tmp, TRUE);
}
