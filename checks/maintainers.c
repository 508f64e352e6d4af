/*
 * patchwarden: a kernel MAINTAINERS file (see checks/maintainers.h).
 * The matching follows scripts/get_maintainer.pl's file_match_pattern()
 * and its pattern depth, so that patchwarden names the people
 * get_maintainer.pl names for a file, without a kernel tree beside it.
 */
#include <string.h>

#include <glib.h>

#include "checks/maintainers.h"

struct entry {
	struct pw_maint_entry pub;
	GPtrArray *files;	/* F: patterns, char * */
	GPtrArray *excludes;	/* X: patterns */
	GPtrArray *regexes;	/* N: GRegex * */
};

struct pw_maintainers {
	GPtrArray *entries;	/* struct entry * */
};

static void entry_free(gpointer p)
{
	struct entry *e = p;

	g_free(e->pub.title);
	g_strfreev(e->pub.maintainers);
	g_strfreev(e->pub.reviewers);
	g_strfreev(e->pub.lists);
	g_ptr_array_unref(e->files);
	g_ptr_array_unref(e->excludes);
	g_ptr_array_unref(e->regexes);
	g_free(e);
}

/*
 * The bare address of "Name <a@b>", "a@b (moderated)" or "a@b",
 * lower-cased; NULL when there is no '@'.
 */
static char *bare_address(const char *value)
{
	const char *lt = strchr(value, '<');
	const char *start, *end;

	if (lt) {
		start = lt + 1;
		end = strchr(start, '>');
		if (!end)
			end = start + strlen(start);
	} else {
		start = value;
		while (*start == ' ' || *start == '\t')
			start++;
		end = start;
		while (*end && *end != ' ' && *end != '\t')
			end++;
	}
	if (!memchr(start, '@', (size_t)(end - start)))
		return NULL;
	char *raw = g_strndup(start, (size_t)(end - start));
	char *addr = g_ascii_strdown(g_strstrip(raw), -1);

	g_free(raw);
	return addr;
}

static void push_address(GPtrArray *to, const char *value)
{
	char *a = bare_address(value);

	if (a)
		g_ptr_array_add(to, a);
}

static char **take_strv(GPtrArray *a)
{
	g_ptr_array_add(a, NULL);
	return (char **)g_ptr_array_free(a, FALSE);
}

/* A catch-all pattern: "*" or "*\/" (THE REST). */
static bool catch_all_pattern(const char *p)
{
	return strcmp(p, "*") == 0 || strcmp(p, "*/") == 0;
}

/* The builder of one entry while its lines are read. */
struct building {
	char *title;
	GPtrArray *m, *r, *l;
	struct entry *e;
};

static void building_start(struct building *b, const char *title)
{
	b->title = g_strdup(title ? title : "");
	b->m = g_ptr_array_new();
	b->r = g_ptr_array_new();
	b->l = g_ptr_array_new();
	b->e = g_new0(struct entry, 1);
	b->e->files = g_ptr_array_new_with_free_func(g_free);
	b->e->excludes = g_ptr_array_new_with_free_func(g_free);
	b->e->regexes = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_regex_unref);
}

static void building_end(struct building *b, GPtrArray *entries)
{
	struct entry *e = b->e;
	bool all;

	if (!e)
		return;
	all = e->files->len > 0 && e->regexes->len == 0;
	for (guint i = 0; i < e->files->len; i++)
		if (!catch_all_pattern(e->files->pdata[i]))
			all = false;
	e->pub.title = b->title;
	e->pub.maintainers = take_strv(b->m);
	e->pub.reviewers = take_strv(b->r);
	e->pub.lists = take_strv(b->l);
	e->pub.catch_all = all;
	g_ptr_array_add(entries, e);
	memset(b, 0, sizeof(*b));
}

struct pw_maintainers *pw_maintainers_parse(const char *text, size_t len)
{
	struct pw_maintainers *m = g_new0(struct pw_maintainers, 1);
	struct building b = { 0 };
	char *title = NULL;
	const char *p = text, *end = text + len;

	m->entries = g_ptr_array_new_with_free_func(entry_free);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		char *line = g_strndup(p, (size_t)(eol - p));

		p = nl ? nl + 1 : end;
		g_strchomp(line);
		/* get_maintainer.pl: ^([A-Z]):\s*(.*) is a typed line; any
		 * other line ends the entry being read. */
		if (g_ascii_isupper(line[0]) && line[1] == ':') {
			const char *v = line + 2;

			while (*v == ' ' || *v == '\t')
				v++;
			if (!b.e)
				building_start(&b, title);
			switch (line[0]) {
			case 'M':
				push_address(b.m, v);
				break;
			case 'R':
				push_address(b.r, v);
				break;
			case 'L':
				push_address(b.l, v);
				break;
			case 'F':
				if (*v)
					g_ptr_array_add(b.e->files, g_strdup(v));
				break;
			case 'X':
				if (*v)
					g_ptr_array_add(b.e->excludes, g_strdup(v));
				break;
			case 'N': {
				GRegex *re = *v ? g_regex_new(v, G_REGEX_EXTENDED,
							      0, NULL) : NULL;

				if (re)
					g_ptr_array_add(b.e->regexes, re);
				break;
			}
			default:
				break;
			}
		} else {
			if (b.e)
				building_end(&b, m->entries);
			if (line[0]) {
				g_free(title);
				title = g_strdup(line);
			}
		}
		g_free(line);
	}
	if (b.e)
		building_end(&b, m->entries);
	g_free(title);
	return m;
}

void pw_maintainers_free(struct pw_maintainers *m)
{
	if (!m)
		return;
	g_ptr_array_unref(m->entries);
	g_free(m);
}

size_t pw_maintainers_count(const struct pw_maintainers *m)
{
	return m->entries->len;
}

/*
 * Whether pattern p matches a prefix of s, '*' standing for any run of
 * characters ('/' included) and '?' for one: get_maintainer.pl turns a
 * pattern into the regular expression ^p with '*' as .* and '?' as '.'.
 */
static bool glob_prefix(const char *p, const char *s)
{
	for (; *p; p++, s++) {
		if (*p == '*') {
			for (const char *t = s;; t++) {
				if (glob_prefix(p + 1, t))
					return true;
				if (!*t)
					return false;
			}
		}
		if (!*s || (*p != '?' && *p != *s))
			return false;
	}
	return true;
}

static int count_slashes(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

/*
 * Whether pattern matches path (get_maintainer.pl's file_match_pattern):
 * a pattern ending in '/' covers everything below; any other matches at
 * its own depth only.  get_maintainer.pl also reads a pattern that names
 * a folder of the tree as ending in '/': without the tree, a pattern
 * with no wildcard that path continues below counts as one.
 */
static bool pattern_matches(const char *pattern, const char *path)
{
	size_t n = strlen(pattern);

	if (n && pattern[n - 1] == '/')
		return glob_prefix(pattern, path);
	if (!strpbrk(pattern, "*?") && strncmp(path, pattern, n) == 0 &&
	    path[n] == '/')
		return true;
	return glob_prefix(pattern, path) &&
	       count_slashes(path) == count_slashes(pattern);
}

/* get_maintainer.pl's depth of a pattern: its slashes, one more for a
 * file, -1 for one that starts with a wildcard. */
static int pattern_depth(const char *pattern)
{
	size_t n = strlen(pattern);

	if (pattern[0] == '*')
		return -1;
	return count_slashes(pattern) + (n && pattern[n - 1] != '/');
}

/* The depth at which e covers path, or INT_MIN when it does not. */
static int entry_depth(const struct entry *e, const char *path)
{
	int best = G_MININT;

	for (guint i = 0; i < e->excludes->len; i++)
		if (pattern_matches(e->excludes->pdata[i], path))
			return G_MININT;
	for (guint i = 0; i < e->files->len; i++) {
		const char *f = e->files->pdata[i];

		if (pattern_matches(f, path) && pattern_depth(f) > best)
			best = pattern_depth(f);
	}
	for (guint i = 0; i < e->regexes->len; i++)
		if (g_regex_match(e->regexes->pdata[i], path, 0, NULL)) {
			/* get_maintainer.pl counts an N: match at the
			 * file's own depth. */
			int d = count_slashes(path) + 1;

			if (d > best)
				best = d;
		}
	return best;
}

struct ranked {
	const struct pw_maint_entry *e;
	int depth;
	guint order;
};

static gint ranked_cmp(gconstpointer a, gconstpointer b)
{
	const struct ranked *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

const struct pw_maint_entry **pw_maintainers_for_path(
	const struct pw_maintainers *m, const char *path)
{
	GArray *hits = g_array_new(FALSE, FALSE, sizeof(struct ranked));
	const struct pw_maint_entry **out;

	for (guint i = 0; i < m->entries->len; i++) {
		const struct entry *e = m->entries->pdata[i];
		int d = entry_depth(e, path);

		if (d != G_MININT) {
			struct ranked r = { &e->pub, d, i };

			g_array_append_val(hits, r);
		}
	}
	g_array_sort(hits, ranked_cmp);
	out = g_new0(const struct pw_maint_entry *, hits->len + 1);
	for (guint i = 0; i < hits->len; i++)
		out[i] = g_array_index(hits, struct ranked, i).e;
	g_array_free(hits, TRUE);
	return out;
}

bool pw_maintainers_is_maintainer(const struct pw_maintainers *m,
				  const char *path, const char *addr)
{
	char *want = bare_address(addr);
	const struct pw_maint_entry **hits;
	bool found = false;

	if (!want)
		return false;
	hits = pw_maintainers_for_path(m, path);
	for (size_t i = 0; hits[i] && !found; i++) {
		if (hits[i]->catch_all)
			continue;
		for (char **a = hits[i]->maintainers; *a && !found; a++)
			found = strcmp(*a, want) == 0;
	}
	g_free(hits);
	g_free(want);
	return found;
}

static void add_unique(GPtrArray *out, GHashTable *seen, const char *a)
{
	if (g_hash_table_contains(seen, a))
		return;
	g_hash_table_add(seen, (gpointer)a);
	g_ptr_array_add(out, g_strdup(a));
}

char **pw_maintainers_addresses(const struct pw_maintainers *m,
				const char *const *paths, size_t n)
{
	GPtrArray *out = g_ptr_array_new();
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);

	for (size_t i = 0; i < n; i++) {
		const struct pw_maint_entry **hits =
			pw_maintainers_for_path(m, paths[i]);

		for (size_t j = 0; hits[j]; j++) {
			if (!hits[j]->catch_all)
				for (char **a = hits[j]->maintainers; *a; a++)
					add_unique(out, seen, *a);
			for (char **a = hits[j]->reviewers; *a; a++)
				add_unique(out, seen, *a);
		}
		g_free(hits);
	}
	g_hash_table_unref(seen);
	return take_strv(out);
}
