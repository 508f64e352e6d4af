/*
 * patchwarden: finding modes in Python: os.chmod, os.lchmod, os.fchmod,
 * os.open, os.mkdir, os.makedirs, os.mknod, os.mkfifo, os.umask (by
 * position or as mode=), and the pathlib methods .chmod(), .mkdir(mode=)
 * and .touch(mode=).
 *
 * Python 3 writes octal as 0o644; 0644 is a syntax error there (it was
 * Python 2 octal) and 644 is decimal, so both are PERM_NOT_OCTAL.  The
 * C house style does not apply to Python.
 */
#include <string.h>

#include "checks/perm.h"

struct pyfn {
	const char *name;
	signed char os_pos;	/* position as os.name(), 0 if not an os call */
	signed char method_pos;	/* position as a method, 0: keyword only,
				 * -1: not a method */
	unsigned char kind;
};

static const struct pyfn fns[] = {
	{ "chmod", 2, 1, PW_CTX_CHMOD },
	{ "lchmod", 2, 1, PW_CTX_CHMOD },
	{ "fchmod", 2, -1, PW_CTX_CHMOD },
	{ "open", 3, -1, PW_CTX_CREATE },
	{ "mkdir", 2, 1, PW_CTX_CREATE },
	{ "makedirs", 2, -1, PW_CTX_CREATE },
	{ "mknod", 2, -1, PW_CTX_CREATE },
	{ "mkfifo", 2, -1, PW_CTX_CREATE },
	{ "touch", 0, 1, PW_CTX_CREATE },
	{ "umask", 1, -1, PW_CTX_UMASK },
};

#define MAX_ARGS 12

static bool idch(char c)
{
	return g_ascii_isalnum(c) || c == '_';
}

void pw_perm_scan_py(struct pw_scan *sc)
{
	const char *s = sc->san;
	size_t len = sc->t->len, p = 0;

	while (p < len) {
		size_t q, lp, rp = 0, k;
		const struct pyfn *fn = NULL;
		struct pw_span args[MAX_ARGS];
		struct pw_occ oc;
		struct pw_mode m;
		bool os_call, method;
		int n, pos, i;

		if (!idch(s[p])) {
			p++;
			continue;
		}
		q = p;
		while (q < len && idch(s[q]))
			q++;
		if (g_ascii_isdigit(s[p]) || (p > 0 && idch(s[p - 1]))) {
			p = q;
			continue;
		}
		for (k = 0; k < G_N_ELEMENTS(fns); k++)
			if (strlen(fns[k].name) == q - p && !memcmp(fns[k].name, s + p, q - p))
				fn = &fns[k];
		lp = q;
		while (lp < len && (s[lp] == ' ' || s[lp] == '\t'))
			lp++;
		if (!fn || lp >= len || s[lp] != '(') {
			p = q;
			continue;
		}
		os_call = (p >= 3 && !memcmp(s + p - 3, "os.", 3) &&
			   (p == 3 || !idch(s[p - 4]))) ||
			  (p >= 6 && !memcmp(s + p - 6, "posix.", 6));
		method = !os_call && p > 0 && s[p - 1] == '.';
		pos = os_call ? fn->os_pos : method ? fn->method_pos : 0;
		if (!os_call && !method && fn->os_pos > 0 && strcmp(fn->name, "open"))
			pos = fn->os_pos;	/* from os import chmod */
		if (pos < 0 || (!os_call && !method && !strcmp(fn->name, "open"))) {
			p = q;
			continue;
		}
		n = pw_perm_split_args(sc, lp, args, MAX_ARGS, &rp);
		p = q;
		if (n <= 0)
			continue;
		memset(&oc, 0, sizeof(oc));
		oc.kind = (enum pw_ctx_kind)fn->kind;
		oc.lang = PW_MODE_PYTHON;
		for (i = 0; i < n; i++) {
			const char *a = s + args[i].s;
			size_t al = args[i].e - args[i].s, j = 4;

			if (al > 5 && !memcmp(a, "mode", 4)) {
				while (j < al && (a[j] == ' ' || a[j] == '\t'))
					j++;
				if (j < al && a[j] == '=' && (j + 1 >= al || a[j + 1] != '=')) {
					oc.mode.s = args[i].s + j + 1;
					oc.mode.e = args[i].e;
					break;
				}
			}
		}
		if (i == n) {
			if (pos <= 0 || n < pos || memchr(s + args[pos - 1].s, '=',
							  args[pos - 1].e - args[pos - 1].s))
				continue;
			oc.mode = args[pos - 1];
		}
		while (oc.mode.s < oc.mode.e && g_ascii_isspace(s[oc.mode.s]))
			oc.mode.s++;
		if (oc.mode.e <= oc.mode.s)
			continue;
		pw_mode_eval(s + oc.mode.s, oc.mode.e - oc.mode.s, PW_MODE_PYTHON,
			     NULL, NULL, &m);
		if (m.flags & PW_MODE_UNKNOWN)
			continue;
		pw_perm_judge(sc, &oc, &m);
	}
}
