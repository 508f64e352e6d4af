/*
 * Fuzz harness for the rule runner (checks/rules.h): any bytes are
 * parsed as a diff, then pw_check_patch() runs every rule of the table,
 * the ones off by default too, once under each house style.
 *
 * Under a cap of N findings (none, 1, 2: one per style) at most N + 1
 * come back.  Each finding must name a rule of the table at no more than
 * its highest severity, carry a message, and, when it has a fix, a byte
 * span that is not reversed.  Reading every string of every finding lets ASan see one
 * that was freed or never ended.
 *
 * Built and run by "make fuzz" (libFuzzer) and replayed standalone by
 * tests/integration/fuzz_replay.sh; see tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <glib.h>

#include "checks/patch.h"
#include "checks/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Every rule ID, NULL-terminated: the "enabled" list that switches on
 * the rules that are off by default.  Made once and kept for the life
 * of the process, as libFuzzer calls the harness millions of times.
 */
static const char *const *all_rules(void)
{
	static const char **ids;
	const struct pw_rule *r;
	size_t i, n;

	if (ids)
		return ids;
	r = pw_rules(&n);
	ids = g_new0(const char *, n + 1);
	for (i = 0; i < n; i++)
		ids[i] = r[i].id;
	return ids;
}

static unsigned walk(const GPtrArray *found)
{
	unsigned sum = 0;
	guint i;

	for (i = 0; i < found->len; i++) {
		const struct pw_finding *f = g_ptr_array_index(found, i);
		const struct pw_rule *r = f->rule ? pw_rule_find(f->rule) : NULL;

		if (!r || f->severity > r->severity || !f->message)
			__builtin_trap();
		if (f->fix && f->fix_from > f->fix_to)
			__builtin_trap();
		sum += (unsigned)strlen(f->message);
		if (f->file)
			sum += (unsigned)strlen(f->file);
		if (f->fix)
			sum += (unsigned)strlen(f->fix);
		if (f->replacement)
			sum += (unsigned)strlen(f->replacement);
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum pw_style styles[] = {
		PW_STYLE_OCTAL, PW_STYLE_SYMBOLIC, PW_STYLE_PERM_MACROS,
	};
	struct pw_patch *p = pw_diff_parse((const char *)data, size);
	volatile unsigned sum = 0;
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(styles); i++) {
		/* No cap, then caps of 1 and 2: the cut runs on every input. */
		struct pw_check_opts o = { styles[i], NULL, all_rules(), (int)i };
		GPtrArray *found = g_ptr_array_new_with_free_func(
			(GDestroyNotify)pw_finding_free);

		pw_check_patch(p, &o, found);
		/* A cap keeps that many findings and one that counts the rest. */
		if (o.max_findings > 0 && found->len > (guint)o.max_findings + 1)
			__builtin_trap();
		sum += walk(found);
		g_ptr_array_free(found, TRUE);
	}
	(void)sum;
	pw_patch_free(p);
	return 0;
}
