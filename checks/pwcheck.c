/*
 * patchwarden: the state, description and link of a Patchwork check
 * (see checks/pwcheck.h).  Pure.
 */
#include <string.h>
#include <glib.h>

#include "checks/pwcheck.h"

const char *pw_pwcheck_state_str(enum pw_pwcheck_state s)
{
	switch (s) {
	case PW_PWCHECK_FAIL:
		return "fail";
	case PW_PWCHECK_WARNING:
		return "warning";
	case PW_PWCHECK_SUCCESS:
		break;
	}
	return "success";
}

bool pw_pwcheck_series_rule(const char *rule)
{
	return rule && (!strcmp(rule, "FLOOD") || !strcmp(rule, "FLOOD_SERIES") ||
			!strcmp(rule, "SERIES_OVERSIZED"));
}

enum pw_pwcheck_state pw_pwcheck_state(const struct pw_pwcheck_item *items,
				       size_t n, enum pw_severity min)
{
	enum pw_pwcheck_state s = PW_PWCHECK_SUCCESS;
	size_t i;

	for (i = 0; i < n; i++) {
		if (items[i].severity < min)
			continue;
		if (items[i].severity == PW_SEV_ERROR)
			return PW_PWCHECK_FAIL;
		if (items[i].severity == PW_SEV_WARNING)
			s = PW_PWCHECK_WARNING;
	}
	return s;
}

/* One rule's count. */
struct tally {
	const char *rule;
	enum pw_severity severity;
	size_t count;
};

static gint tally_cmp(gconstpointer a, gconstpointer b)
{
	const struct tally *x = a, *y = b;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->rule, y->rule);
}

/*
 * What stands for the k rules that do not fit after the first shown
 * ones: ", and K more rules", or, when none is shown, a count of all.
 */
static char *more(size_t shown, size_t k, size_t total)
{
	if (!shown)
		return g_strdup_printf("%zu findings of %zu rules", total, k);
	return g_strdup_printf(", and %zu more rule%s", k, k == 1 ? "" : "s");
}

char *pw_pwcheck_description(const struct pw_pwcheck_item *items, size_t n,
			     enum pw_severity min, size_t max)
{
	GArray *t = g_array_new(FALSE, TRUE, sizeof(struct tally));
	GString *out = g_string_new(NULL);
	size_t i, j, total = 0;

	for (i = 0; i < n; i++) {
		struct tally *hit = NULL;

		if (items[i].severity < min || !items[i].rule)
			continue;
		for (j = 0; j < t->len && !hit; j++)
			if (!strcmp(g_array_index(t, struct tally, j).rule,
				    items[i].rule))
				hit = &g_array_index(t, struct tally, j);
		if (!hit) {
			struct tally nt = { items[i].rule, items[i].severity, 0 };

			g_array_append_val(t, nt);
			hit = &g_array_index(t, struct tally, t->len - 1);
		}
		/* A series' finding is one fact about the series, however
		 * many of its patches carry it. */
		if (!pw_pwcheck_series_rule(items[i].rule) || !hit->count) {
			hit->count++;
			total++;
		}
		if (items[i].severity > hit->severity)
			hit->severity = items[i].severity;
	}
	if (!t->len) {
		g_string_printf(out, "no findings at or above %s",
				pw_severity_str(min));
		goto out;
	}
	g_array_sort(t, tally_cmp);
	for (i = 0; i < t->len; i++) {
		const struct tally *x = &g_array_index(t, struct tally, i);
		char *part = g_strdup_printf("%s%zu %s", i ? ", " : "", x->count,
					     x->rule);
		char *rest = i + 1 < t->len ? more(i + 1, t->len - i - 1, total) :
			     g_strdup("");
		bool fits = out->len + strlen(part) + strlen(rest) <= max;

		g_free(rest);
		if (fits) {
			g_string_append(out, part);
			g_free(part);
			continue;
		}
		g_free(part);
		/* What precedes fitted with this count after it. */
		rest = more(i, t->len - i, total);
		g_string_append(out, rest);
		g_free(rest);
		break;
	}
out:
	g_array_free(t, TRUE);
	if (out->len > max)
		g_string_truncate(out, max);
	return g_string_free(out, FALSE);
}

bool pw_pwcheck_context_ok(const char *s)
{
	size_t i;

	if (!s || !*s || strlen(s) > PW_PWCHECK_CONTEXT_MAX)
		return false;
	for (i = 0; s[i]; i++)
		if (!g_ascii_isalnum(s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

char *pw_pwcheck_target_url(const char *base, const char *msgid, size_t max)
{
	char *b, *id, *url;
	size_t n;

	if (!base || !*base || !msgid || !*msgid)
		return NULL;
	b = g_strdup(base);
	n = strlen(b);
	while (n && b[n - 1] == '/')
		b[--n] = '\0';
	id = g_uri_escape_string(msgid, NULL, FALSE);
	url = g_strdup_printf("%s/message/%s", b, id);
	g_free(id);
	g_free(b);
	if (strlen(url) > max) {
		g_free(url);
		return NULL;
	}
	return url;
}
