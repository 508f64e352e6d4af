/*
 * patchwarden: permission mode values.  Evaluates the expressions that
 * programs write for a mode (octal, decimal and hex literals, the S_I*
 * names, Ingo Molnar's PERM_ names, and "|" of them) into a number, and
 * renders a number the way ls -l shows it.  Pure functions, no state.
 */
#ifndef PW_MODE_H
#define PW_MODE_H

#include <stdbool.h>
#include <stddef.h>

/* How a mode expression is written (several may be set). */
enum pw_mode_flags {
	PW_MODE_OCTAL = 1 << 0,		/* an octal literal: 0644 (C), 0o644 (Python) */
	PW_MODE_WIDTH = 1 << 1,		/* an octal literal of unusual width: 00644, 07 */
	PW_MODE_DECIMAL = 1 << 2,	/* a non-zero decimal literal: 644 */
	PW_MODE_HEX = 1 << 3,		/* a hex literal: 0x1a4 */
	PW_MODE_SYMBOLIC = 1 << 4,	/* S_I* permission names */
	PW_MODE_FILETYPE = 1 << 5,	/* S_IF* file type names */
	PW_MODE_PERM = 1 << 6,		/* PERM_ names */
	PW_MODE_PERM_UNDEF = 1 << 7,	/* a PERM_ name outside the defined set */
	PW_MODE_UNKNOWN = 1 << 8,	/* something that cannot be evaluated */
	PW_MODE_ZERO = 1 << 9,		/* the literal 0 */
	PW_MODE_PY2_OCTAL = 1 << 10,	/* Python 2 octal 0644 (a syntax error in 3) */
	PW_MODE_MACRO = 1 << 11,	/* a name resolved through the lookup callback */
};

enum pw_mode_lang {
	PW_MODE_C = 0,
	PW_MODE_PYTHON,
};

/* The value of a mode expression and how it was written. */
struct pw_mode {
	unsigned value;		/* the bits that could be evaluated */
	unsigned flags;		/* enum pw_mode_flags */
	int nterms;		/* literals and names in the expression */
	bool single;		/* the expression is one literal or name */
	unsigned meant;		/* a lone decimal (644) or hex (0x444) literal of
				 * digits 0-7 only: the octal value of its digits */
	bool meant_valid;
	const char *undef;	/* the first undefined PERM_ name (points into
				 * the evaluated text), or NULL */
	size_t undef_len;
};

/*
 * Resolves a name the evaluator does not know (a local #define); returns
 * true and sets *value when it can.
 */
typedef bool (*pw_mode_lookup_fn)(void *ud, const char *name, size_t len,
				  unsigned *value);

/*
 * Evaluates the expression in s[0..len).  Comments must already be
 * blanked.  Returns true when the whole expression was understood
 * (PW_MODE_UNKNOWN not set); *out is filled either way.  lookup may be
 * NULL.
 */
bool pw_mode_eval(const char *s, size_t len, enum pw_mode_lang lang,
		  pw_mode_lookup_fn lookup, void *ud, struct pw_mode *out);

/* The value of an S_I* name (S_IRUGO, S_IFREG, ...); false if unknown. */
bool pw_mode_name_value(const char *name, size_t len, unsigned *value);

/* True when name is one of the S_I* permission names (not S_IF*). */
bool pw_mode_is_perm_name(const char *name, size_t len);

/*
 * Decodes a PERM_ name (PERM_rw_r__r__).  Returns true and sets *value
 * when the name has the nine-character rwx shape; *defined says whether
 * it is one of the names the proposal defines.
 */
bool pw_mode_perm_decode(const char *name, size_t len, unsigned *value,
			 bool *defined);

/*
 * Writes the nine ls -l characters of mode (rw-r--r--, with s, S, t, T
 * for the special bits) and a NUL into buf, which must hold 10 bytes.
 */
void pw_mode_ls(unsigned mode, char buf[10]);

/* "0644 (rw-r--r--)" for the permission bits of mode; newly allocated. */
char *pw_mode_describe(unsigned mode);

/*
 * The spellings of a permission value, newly allocated: octal ("0644";
 * type bits, if any, as S_IF names: "S_IFREG | 0644"), POSIX names
 * ("S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH"), and the defined PERM_ name
 * (NULL when the proposal defines none for this value).
 */
char *pw_mode_spell_octal(unsigned mode);
char *pw_mode_spell_symbolic(unsigned mode);
char *pw_mode_spell_perm(unsigned mode);

/*
 * A mode expression whose value the program decides: a "?:" inside a
 * "|" chain ("S_IRUGO | (w ? S_IWUSR : 0)"), a ternary of modes, or
 * a variable among the operands ("attr->mode | S_IWUSR").
 */
struct pw_mode_cond {
	unsigned vals[8];	/* the values it can take, ascending; with a
				 * variable, the bits it adds to it */
	int nvals;
	bool vars;		/* an operand is a variable */
	unsigned flags;		/* enum pw_mode_flags of its literals and names */
	char *octal;		/* the expression with each run of literals
				 * and names written in octal */
	char *depends;		/* the conditions and variables, ", "-joined */
};

/*
 * Reads s[0..len) (comments blanked) as such an expression.  Returns
 * true and fills *out (release it with pw_mode_cond_release()) when
 * the whole text is one, with a condition or a variable and at least
 * one literal or name; false otherwise (*out then holds nothing).
 * Operands other than literals, names, casts, brackets and plain
 * variables (a->b.c[i], f(x)) make it false: "&", "~", "+" are not
 * mode expressions.  lookup may be NULL.
 */
bool pw_mode_eval_cond(const char *s, size_t len, pw_mode_lookup_fn lookup,
		       void *ud, struct pw_mode_cond *out);
/* Frees what *c holds. */
void pw_mode_cond_release(struct pw_mode_cond *c);

#endif
