/*
 * patchwarden: the rule table (checks/rules.c) and the entry points
 * that run it (checks/review.c).
 *
 * Rules read a parsed patch (or a whole source file) and append
 * findings; a finding is not an error, so rules return void.  The
 * flood rules (FLOOD, FLOOD_SERIES, FLOOD_CAMPAIGN, RESEND_IDENTICAL,
 * SERIES_OVERSIZED) are in the same table; db/flood.c finds them and checks/floodrules.h
 * words them.
 */
#ifndef PW_RULES_H
#define PW_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>

#include "checks/patch.h"

/* A list's house style for permission modes. */
enum pw_style {
	PW_STYLE_OCTAL = 0,	/* the kernel's rule since 2016: S_I* flagged */
	PW_STYLE_SYMBOLIC,	/* POSIX names preferred */
	PW_STYLE_PERM_MACROS,	/* Ingo Molnar's PERM_rw_r__r__ names */
};

/* "octal", "symbolic", "perm-macros"; parse returns false if unknown. */
const char *pw_style_str(enum pw_style s);
bool pw_style_parse(const char *s, enum pw_style *out);

struct pw_rule {
	const char *id;		/* stable, upper-case, never renamed */
	enum pw_severity severity;
	bool default_on;	/* info-level rules may be off by default */
	const char *summary;
};

/* Every rule's index in the table: PW_R_PERM_INVERTED, ... */
enum pw_rule_index {
#define RULE(id, sev, on, summary) PW_R_##id,
#include "checks/rules.def"
#undef RULE
	PW_R_COUNT
};

/* The whole table, in checks/rules.def order. */
const struct pw_rule *pw_rules(size_t *n);
/* NULL when no rule has that ID. */
const struct pw_rule *pw_rule_find(const char *id);
/* The table entry for an index (enum pw_rule_index), never NULL. */
const struct pw_rule *pw_rule_at(int r);

/* Findings kept per patch when no options are given (o == NULL). */
#define PW_MAX_FINDINGS 1000

struct pw_check_opts {
	enum pw_style style;
	const char *const *disabled;	/* NULL-terminated rule IDs, or NULL */
	const char *const *enabled;	/* rules switched on that are off by
					 * default, NULL-terminated, or NULL */
	/*
	 * Findings kept per patch (per file for pw_check_source()): the
	 * first ones in patch order.  The rest are only counted, in one
	 * FINDINGS_CAPPED finding after them, so that a hostile patch costs
	 * bounded memory and store.  0 (or less) keeps every finding; the
	 * callers' default is PW_MAX_FINDINGS ("check --max-findings",
	 * "[core] max_findings").
	 */
	int max_findings;
};

/*
 * Whether rule r (enum pw_rule_index) is on under o: its default,
 * unless o enables or disables it by ID.  o may be NULL (defaults).
 */
bool pw_rule_on(const struct pw_check_opts *o, int r);

/*
 * Runs every enabled rule on the added lines of p and appends new
 * struct pw_finding pointers to out (the caller's GPtrArray, whose free
 * function should be pw_finding_free).  Findings come in patch order,
 * at most o->max_findings of them (PW_MAX_FINDINGS when o is NULL), then
 * the FINDINGS_CAPPED finding that counts the others, if any.  Work and
 * memory grow linearly with the patch.
 */
void pw_check_patch(const struct pw_patch *p, const struct pw_check_opts *o,
		    GPtrArray *out);

/*
 * Parses diff text (len bytes) and runs the rules on it, appending the
 * findings to out as pw_check_patch() does.  Returns the parsed patch,
 * which the caller frees with pw_patch_free(); the findings point into
 * nothing of it.
 */
struct pw_patch *pw_check_diff(const char *diff, size_t len,
			       const struct pw_check_opts *o, GPtrArray *out);

/*
 * Runs the rules on a whole source file, as if every line were added
 * (checkpatch.pl -f).  path decides the language (C, shell, Makefile,
 * Python).  The cap on findings applies to the file as to a patch.
 */
void pw_check_source(const char *path, const char *text, size_t len,
		     const struct pw_check_opts *o, GPtrArray *out);

#endif
