/*
 * patchwarden: what the permission scanners share (internal to checks/).
 * The scanners (perm_c.c, perm_sh.c, perm_py.c, perm_git.c) find mode
 * arguments and hand each one to pw_perm_judge(), which applies the
 * rules of checks/rules.def and reports at most one finding per mode.
 */
#ifndef PW_PERM_H
#define PW_PERM_H

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>

#include "checks/rules.h"
#include "checks/mode.h"
#include "checks/text.h"

/* One file (or hunk) being scanned. */
struct pw_scan {
	enum pw_style style;
	bool on[PW_R_COUNT];
	const char *path;
	struct pw_text *t;
	const char *san;	/* the sanitized text, same offsets as t->buf */
	GPtrArray *out;
	/* Brackets of san, built by the first pw_perm_split_args() on it:
	 * the offset of every opening bracket, ascending, and of the
	 * bracket that closes it (SIZE_MAX when none does). */
	size_t *opens, *closes;
	size_t nopens;
	bool brackets_built;
	/* The cap on findings (checks/review.c): at most cap of them in
	 * out (0: no cap) and the number dropped; once out has been cut
	 * down to the cap, the last one kept, so that a finding placed
	 * after it is dropped as it is made. */
	size_t cap, dropped;
	const struct pw_finding *last_kept;
	/* The parameters of the #define whose logical line starts at
	 * macro_at (perm_judge.c), kept for the next mode in that line. */
	bool macro_known;
	size_t macro_at;
	char **macro_params;
	/* How often each identifier of san is a whole macro or call
	 * argument (", name," or ", name)"), built by the first
	 * DEVICE_ATTR_FORM question on the text (perm_judge.c): a
	 * callback given to several attributes cannot be renamed to
	 * fit each. */
	GHashTable *arg_uses;
};

/* Where a mode is used; decides severities and which rules apply. */
enum pw_ctx_kind {
	PW_CTX_SYSFS,		/* sysfs attribute macros: VERIFY_OCTAL_PERMISSIONS */
	PW_CTX_SYSFS_RT,	/* sysfs at run time: __BIN_ATTR, sysfs_chmod_file */
	PW_CTX_MODPARAM,	/* module_param*: VERIFY_OCTAL_PERMISSIONS */
	PW_CTX_DEBUGFS,
	PW_CTX_PROCFS,
	PW_CTX_MEMBER,		/* .mode = / ->mode = */
	PW_CTX_CREATE,		/* open, mkdir, ...: the umask still applies */
	PW_CTX_CHMOD,		/* chmod, install -m, mkdir -m: the exact mode */
	PW_CTX_UMASK,
	PW_CTX_VALUE,		/* a standalone mode expression: style only */
};

struct pw_span {
	size_t s, e;		/* [s, e) in the text */
};

/* One mode found by a scanner. */
struct pw_occ {
	enum pw_ctx_kind kind;
	enum pw_mode_lang lang;
	bool c;			/* C source: house style rules apply */
	bool relative;		/* a symbolic chmod: value holds the bits added */
	struct pw_span mode;
	bool callbacks;		/* name, show and store are known */
	struct pw_span name, show, store;
	struct pw_span call;	/* the whole macro call, for form fixes */
	int form;		/* 1 DEVICE_ATTR(), 2 __ATTR(), 0 none */
	bool runtime_modes;	/* the text changes attribute modes at run
				 * time (sysfs_chmod_file, is_visible) */
	/* The mode is an expression the program decides ("S_IRUGO |
	 * (w ? S_IWUSR : 0)"): judged for the house style only, as a
	 * whole.  NULL otherwise. */
	const struct pw_mode_cond *cond;
};

/* Applies the rules to one mode and appends at most one finding. */
void pw_perm_judge(struct pw_scan *sc, const struct pw_occ *oc,
		   const struct pw_mode *m);

/*
 * Appends a finding at offset off of the text (line and column from
 * there) with rule r's table severity unless sev >= 0.  Takes ownership
 * of message.  Returns the finding, or NULL when the cap dropped it.
 */
struct pw_finding *pw_perm_emit(struct pw_scan *sc, int r, int sev, size_t off,
				char *message);

/*
 * The scanners: each reads sc->san (the sanitized sc->t) and calls
 * pw_perm_judge() for every mode it finds.  C: perm_c.c.
 */
void pw_perm_scan_c(struct pw_scan *sc);
/* EXEC_SOURCE_FILE: the git mode lines of one file (perm_git.c). */
void pw_perm_git(struct pw_scan *sc, const struct pw_file *f);

/*
 * Splits the argument list whose "(" is at sc->san[lp] into at most max
 * spans (white space trimmed).  Returns the number of arguments, or -1
 * when the list does not close within 16 KiB or holds a ';' of its own;
 * *rp is set to the ")".  Brackets of any kind nest alike.  The first
 * call on a text matches all its brackets once, so that each call costs
 * its own arguments, not the text after it.
 */
int pw_perm_split_args(struct pw_scan *sc, size_t lp, struct pw_span *args,
		       int max, size_t *rp);
/*
 * Hands f, placed (its patch_no, line and column set), to sc->out under
 * sc->cap; every finding goes through here.  Returns f, or NULL when f
 * lies beyond the cap: then it is freed and only counted in
 * sc->dropped.  out never holds more than twice the cap.
 */
struct pw_finding *pw_perm_keep(struct pw_scan *sc, struct pw_finding *f);
/* Sorts sc->out and keeps its first sc->cap findings, counting the rest. */
void pw_perm_cut(struct pw_scan *sc);

/*
 * The parameters of the function-like #define whose logical line (lines
 * continued with backslashes) starts at offset b of the sanitized text
 * s, as a new NULL-terminated vector (g_strfreev), or NULL when that
 * line is no such #define, or its parameter list does not close on its
 * first physical line (as the kernel writes them).  When name is not NULL it is set to the
 * macro's name, and when body is not NULL to the offset just after
 * the parameter list.  perm_macro.c.
 */
char **pw_perm_macro_at(const char *s, size_t len, size_t b,
			struct pw_span *name, size_t *body);

/* Frees what pw_perm_split_args() and the judge kept for the current
 * text. */
void pw_perm_scan_reset(struct pw_scan *sc);
/* Shell scripts and Makefiles, the same commands in both (perm_sh.c). */
void pw_perm_scan_sh(struct pw_scan *sc);
/* Python (perm_py.c). */
void pw_perm_scan_py(struct pw_scan *sc);

#endif
