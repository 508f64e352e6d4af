/*
 * patchwarden: the text of "check --fix", with its findings' fixes
 * applied (see checks/fix.h).
 */
#include <string.h>

#include "checks/fix.h"
#include "checks/patch.h"

static gint by_fix_desc(gconstpointer a, gconstpointer b)
{
	const struct pw_finding *x = *(const struct pw_finding *const *)a;
	const struct pw_finding *y = *(const struct pw_finding *const *)b;

	return (y->fix_from > x->fix_from) - (y->fix_from < x->fix_from);
}

/* Whether kept fix k lies within [from, to) (offsets past skip). */
static bool held(const struct pw_finding *k, size_t from, size_t to, size_t skip)
{
	return k->fix_from + skip >= from && k->fix_to + skip <= to;
}

void pw_fix_apply(const char *s, size_t len, bool diff,
		  const GPtrArray *findings, GString *out)
{
	GHashTable *by_line = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						    (GDestroyNotify)g_ptr_array_unref);
	size_t pos = 0;
	int no = 0;
	guint j;

	for (j = 0; j < findings->len; j++) {
		struct pw_finding *f = findings->pdata[j];
		int key = diff ? f->patch_no : f->line;
		GPtrArray *a;

		if (!f->replacement || key <= 0)
			continue;
		a = g_hash_table_lookup(by_line, GINT_TO_POINTER(key));
		if (!a) {
			a = g_ptr_array_new();
			g_hash_table_insert(by_line, GINT_TO_POINTER(key), a);
		}
		g_ptr_array_add(a, f);
	}
	while (pos < len) {
		const char *nl = memchr(s + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - s) + 1 : len;
		GPtrArray *a;

		no++;
		a = g_hash_table_lookup(by_line, GINT_TO_POINTER(no));
		if (!a) {
			g_string_append_len(out, s + pos, (gssize)(end - pos));
		} else {
			size_t skip = diff ? 1 : 0;	/* the '+' of a diff line */
			size_t body = end - pos - (nl ? 1 : 0);
			GString *line;
			GPtrArray *keep = g_ptr_array_new();
			size_t limit;

			if (body && s[pos + body - 1] == '\r')
				body--;
			line = g_string_new_len(s + pos, (gssize)body);
			limit = body;
			g_ptr_array_sort(a, by_fix_desc);
			/*
			 * From the right: a fix that overlaps those kept is
			 * skipped, unless it holds them all (DEVICE_ATTR_RO(x)
			 * for the whole call, beside the octal spelling of its
			 * mode): then it mends what they mend and takes their
			 * place.
			 */
			for (j = 0; j < a->len; j++) {
				struct pw_finding *f = a->pdata[j];
				size_t from = f->fix_from + skip, to = f->fix_to + skip;
				guint n = keep->len;

				if (to > body || from > to)
					continue;
				/* Only a fix that overlaps those kept may take their
				 * place: one that ends where a kept insertion sits
				 * leaves it be. */
				while (to > limit && n > 0 &&
				       held(keep->pdata[n - 1], from, to, skip))
					n--;
				if (to > limit && (n == keep->len ||
						   (n > 0 && ((struct pw_finding *)keep->pdata[n - 1])->fix_from + skip < to)))
					continue;
				g_ptr_array_set_size(keep, n);
				g_ptr_array_add(keep, f);
				limit = from;
			}
			for (j = 0; j < keep->len; j++) {
				struct pw_finding *f = keep->pdata[j];
				size_t from = f->fix_from + skip, to = f->fix_to + skip;

				g_string_erase(line, (gssize)from, (gssize)(to - from));
				g_string_insert(line, (gssize)from, f->replacement);
			}
			g_ptr_array_free(keep, TRUE);
			g_string_append_len(out, line->str, (gssize)line->len);
			g_string_append_len(out, s + pos + body,
					    (gssize)(end - pos - body));
			g_string_free(line, TRUE);
		}
		pos = end;
	}
	g_hash_table_destroy(by_line);
}
