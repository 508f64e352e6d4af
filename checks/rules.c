/*
 * patchwarden: the rule table (checks/rules.def) and what the scanners
 * call back into: rule lookups, switches and pw_perm_emit().  The
 * runner that calls the scanners is checks/review.c; nothing here calls
 * a scanner.
 */
#include <string.h>

#include "checks/perm.h"

static const struct pw_rule rules[] = {
#define RULE(id, sev, on, summary) { #id, sev, on, summary },
#include "checks/rules.def"
#undef RULE
};

const struct pw_rule *pw_rules(size_t *n)
{
	*n = G_N_ELEMENTS(rules);
	return rules;
}

const struct pw_rule *pw_rule_find(const char *id)
{
	size_t i;

	if (!id)
		return NULL;
	for (i = 0; i < G_N_ELEMENTS(rules); i++)
		if (!g_ascii_strcasecmp(rules[i].id, id))
			return &rules[i];
	return NULL;
}

const struct pw_rule *pw_rule_at(int r)
{
	return &rules[r];
}

const char *pw_style_str(enum pw_style s)
{
	switch (s) {
	case PW_STYLE_OCTAL: return "octal";
	case PW_STYLE_SYMBOLIC: return "symbolic";
	case PW_STYLE_PERM_MACROS: return "perm-macros";
	}
	return "octal";
}

bool pw_style_parse(const char *s, enum pw_style *out)
{
	if (!s)
		return false;
	if (!strcmp(s, "octal"))
		*out = PW_STYLE_OCTAL;
	else if (!strcmp(s, "symbolic"))
		*out = PW_STYLE_SYMBOLIC;
	else if (!strcmp(s, "perm-macros") || !strcmp(s, "perm_macros"))
		*out = PW_STYLE_PERM_MACROS;
	else
		return false;
	return true;
}

static bool listed(const char *const *list, const char *id)
{
	if (!list)
		return false;
	for (; *list; list++)
		if (!g_ascii_strcasecmp(*list, id))
			return true;
	return false;
}

bool pw_rule_on(const struct pw_check_opts *o, int r)
{
	bool on = rules[r].default_on;

	if (o && listed(o->enabled, rules[r].id))
		on = true;
	if (o && listed(o->disabled, rules[r].id))
		on = false;
	return on;
}

static gint by_place(gconstpointer a, gconstpointer b)
{
	const struct pw_finding *x = *(const struct pw_finding *const *)a;
	const struct pw_finding *y = *(const struct pw_finding *const *)b;

	if (x->patch_no != y->patch_no)
		return x->patch_no < y->patch_no ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (x->column > y->column) - (x->column < y->column);
}

/*
 * Sorts out and keeps its first sc->cap findings, counting and freeing
 * the others.  The sort is stable and out holds what the last cut kept
 * (sorted, made first) before what was made since, so ties keep the
 * order they were made in: what is kept is what one sort of every
 * finding, cut once, would keep.
 */
void pw_perm_cut(struct pw_scan *sc)
{
	GPtrArray *out = sc->out;
	guint i;

	g_ptr_array_sort(out, by_place);
	if (!sc->cap || out->len <= sc->cap)
		return;
	for (i = (guint)sc->cap; i < out->len; i++)
		pw_finding_free(out->pdata[i]);
	sc->dropped += out->len - sc->cap;
	g_ptr_array_set_size(out, (guint)sc->cap);
	sc->last_kept = out->pdata[sc->cap - 1];
}

struct pw_finding *pw_perm_keep(struct pw_scan *sc, struct pw_finding *f)
{
	/* The cut comes before f is added, never after: the caller
	 * goes on to build the fix of the f returned. */
	if (sc->cap && sc->out->len + 1 >= 2 * sc->cap)
		pw_perm_cut(sc);
	/* Once out is full, a finding placed after the last one kept
	 * (ties too: it was made later) is dropped before its fix is
	 * built; the others wait for the next cut. */
	if (sc->last_kept && by_place(&f, &sc->last_kept) >= 0) {
		pw_finding_free(f);
		sc->dropped++;
		return NULL;
	}
	g_ptr_array_add(sc->out, f);
	return f;
}

struct pw_finding *pw_perm_emit(struct pw_scan *sc, int r, int sev, size_t off,
				char *message)
{
	struct pw_finding *f;
	struct pw_loc loc;

	pw_text_locate(sc->t, off, &loc);
	f = pw_finding_new(rules[r].id, sev >= 0 ? (enum pw_severity)sev :
			   rules[r].severity, sc->path, loc.new_no,
			   (int)(off - loc.start) + 1, NULL);
	g_free(f->message);
	f->message = message;
	f->patch_no = loc.patch_no;
	return pw_perm_keep(sc, f);
}
