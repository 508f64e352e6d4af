/*
 * patchwarden: what a check reported to Patchwork says about a patch
 * (bot/patchwork.c posts it), computed from its findings.  Pure.
 *
 * Patchwork's rules (v3.1.3, docs/api/schemas/latest/patchwork.yaml,
 * patchwork/models.py Check): a context matches ^[-a-zA-Z0-9_]+$ in at
 * most 255 characters, a target_url has at most 200, the state is one
 * of pending, success, warning, fail.  The description is shown in one
 * line of Patchwork's list of checks: it counts the findings by rule.
 */
#ifndef PW_CHECKS_PWCHECK_H
#define PW_CHECKS_PWCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "checks/patch.h"

#define PW_PWCHECK_CONTEXT_MAX 255
#define PW_PWCHECK_DESCRIPTION_MAX 255
#define PW_PWCHECK_URL_MAX 200

/* One finding as a check counts it. */
struct pw_pwcheck_item {
	const char *rule;	/* the rule ID, borrowed */
	enum pw_severity severity;
};

enum pw_pwcheck_state {
	PW_PWCHECK_SUCCESS,
	PW_PWCHECK_WARNING,
	PW_PWCHECK_FAIL,
};

/* "success", "warning" or "fail": Patchwork's names. */
const char *pw_pwcheck_state_str(enum pw_pwcheck_state s);

/*
 * Whether rule is about a whole series or a flood (FLOOD, FLOOD_SERIES,
 * SERIES_OVERSIZED) rather than about one patch's text: such a finding
 * goes on the check of every patch of the series, counted once.
 */
bool pw_pwcheck_series_rule(const char *rule);

/*
 * The state of a check on the n findings of items, counting those at
 * or above min: fail with an error among them, else warning with a
 * warning, else success.
 */
enum pw_pwcheck_state pw_pwcheck_state(const struct pw_pwcheck_item *items,
				       size_t n, enum pw_severity min);

/*
 * The description of that check: the findings at or above min counted
 * by rule, most severe rules first, then the most frequent, then by
 * name ("2 PERM_OCTAL_WORLD_WRITABLE, 1 DEVICE_ATTR_FORM"), or "no
 * findings at or above SEVERITY".  At most max bytes (max at least 40):
 * rules that do not fit are counted at the end ("and 3 more rules").
 * A new string (g_free).
 */
char *pw_pwcheck_description(const struct pw_pwcheck_item *items, size_t n,
			     enum pw_severity min, size_t max);

/* Whether s is a context Patchwork accepts: ^[-a-zA-Z0-9_]+$, <= 255. */
bool pw_pwcheck_context_ok(const char *s);

/*
 * The dashboard page of the message msgid (without <>) under base (the
 * [web] url): BASE/message/ESCAPED-MSGID, or NULL when base is NULL or
 * empty or the address would be longer than max.  A new string.
 */
char *pw_pwcheck_target_url(const char *base, const char *msgid, size_t max);

#endif
