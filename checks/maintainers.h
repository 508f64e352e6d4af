/*
 * patchwarden: a kernel MAINTAINERS file, read as scripts/get_maintainer.pl
 * reads it, to name who maintains a file.
 *
 * An entry is a title line followed by "X:\tvalue" lines.  A path is
 * covered by an entry when one of its F: patterns matches it and none of
 * its X: patterns does, or when one of its N: regular expressions
 * matches it.  Patterns follow get_maintainer.pl: '*' and '?' are
 * wildcards; a pattern ending in '/' (or naming a folder: no wildcard,
 * and the path goes on below it) covers everything below; any other
 * pattern matches a path at the same depth only.  Catch-all entries
 * (whose F: patterns are only "*" and "*\/", "THE REST") cover every
 * path but their M: people are left out of pw_maintainers_addresses(),
 * as get_maintainer.pl leaves out the chief penguin.  K: (content
 * keywords) is not read: it needs the patch's text, not its paths;
 * nor is a devicetree binding's own "maintainers:" list, which
 * get_maintainer.pl reads from the file in the tree.  On 400 files of
 * Linux 6.1, the addresses named are get_maintainer.pl's (--nogit
 * --no-l --nokeywords --nomailmap) for every file but such bindings.
 *
 * Pure: the caller reads the file.
 */
#ifndef PW_MAINTAINERS_H
#define PW_MAINTAINERS_H

#include <stdbool.h>
#include <stddef.h>

struct pw_maintainers;

/* One entry.  Addresses are lower-cased bare addresses ("a@b.org"). */
struct pw_maint_entry {
	char *title;		/* "HWMON SUBSYSTEM" */
	char **maintainers;	/* M: addresses, NULL-terminated */
	char **reviewers;	/* R: addresses */
	char **lists;		/* L: addresses */
	bool catch_all;		/* THE REST */
};

/*
 * Parses the text of a MAINTAINERS file (len bytes, need not end in a
 * NUL).  Lines it cannot read are skipped; an N: regular expression that
 * does not compile is skipped.  Never NULL; free with pw_maintainers_free().
 */
struct pw_maintainers *pw_maintainers_parse(const char *text, size_t len);
void pw_maintainers_free(struct pw_maintainers *m);

/* How many entries were read. */
size_t pw_maintainers_count(const struct pw_maintainers *m);

/*
 * The entries covering path ("drivers/hwmon/lm75.c", no leading "a/"),
 * most specific first (deepest matching pattern), each once.  Returns a
 * NULL-terminated array the caller frees with g_free(); the entries are
 * borrowed from m.
 */
const struct pw_maint_entry **pw_maintainers_for_path(
	const struct pw_maintainers *m, const char *path);

/*
 * Whether addr (any case; "Name <a@b>" or a bare address) is an M:
 * maintainer of an entry covering path, catch-all entries excepted.
 */
bool pw_maintainers_is_maintainer(const struct pw_maintainers *m,
				  const char *path, const char *addr);

/*
 * The M: and R: addresses of the entries covering any of the n paths,
 * catch-all entries' M: excepted, each once, in order of first
 * appearance.  A NULL-terminated array the caller frees with g_strfreev().
 */
char **pw_maintainers_addresses(const struct pw_maintainers *m,
				const char *const *paths, size_t n);

#endif
