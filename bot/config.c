/*
 * patchwarden: reading the configuration key file (see bot/config.h).
 *
 * GLib's GKeyFile parses the file; it names no line, so every problem is
 * placed by line_of(), a scan of the text for the group header or key
 * that GKeyFile reported, following GKeyFile's own reading of a line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmime/gmime.h>

#include "bot/config.h"
#include "bot/mail.h"
#include "checks/pwcheck.h"
#include "checks/maintainers.h"
#include "bot/reply.h"

/* The sections and keys a configuration may hold. */
static const char *const core_keys[] = {
	"db", "mirrors", "fetch_timeout", "max_findings", "credentials",
	"dkim_keys", "dkim", "message_cpu", NULL,
};
static const char *const smtp_keys[] = {
	"url", "from", "user", "password", "starttls", "helo", "timeout",
	"cainfo", NULL,
};
static const char *const reply_keys[] = {
	"dry_run_mbox", "from_name", "reply_to", "min_severity",
	"per_recipient_per_hour", "global_per_hour", "max_age",
	"dashboard_url", "automated_senders", NULL,
};
static const char *const flood_keys[] = { "count", "window", "burst", "lists",
					  "detect", NULL };
static const char *const imap_keys[] = {
	"user", "password", "starttls", "cainfo", "timeout", NULL,
};
static const char *const web_keys[] = {
	"listen", "token", "max_body", "url", "stale_after", "check_cpu",
	"client_connections", "client_posts", "timeout", NULL,
};
static const char *const patchwork_keys[] = {
	"url", "project", "token", "lists", "context", "min_severity",
	"max_attempts", "timeout", NULL,
};
static const char *const list_keys[] = {
	"style", "disable", "enable", "address", "mail", "maintainer",
	"maintainers", "cc_maintainers", "digest", "cc_list", "cc_all",
	"recipient", "tree", NULL,
};

static const struct section {
	const char *name;	/* a trailing blank: a NAME follows */
	const char *const *keys;
	const char *secret;	/* the key a credentials file may set */
} sections[] = {
	{ "core", core_keys, NULL },
	{ "smtp", smtp_keys, "password" },
	{ "reply", reply_keys, NULL },
	{ "flood", flood_keys, NULL },
	{ "imap", imap_keys, "password" },
	{ "imap ", imap_keys, "password" },
	{ "web", web_keys, "token" },
	{ "list ", list_keys, NULL },
	{ "patchwork ", patchwork_keys, "token" },
};

#define CRED_KEYS "[smtp] password, [imap] password, [web] token and" \
	" [patchwork NAME] token"

static bool blank(const char *s)
{
	while (g_ascii_isspace(*s))
		s++;
	return !*s;
}

/* The section of group; "imap NAME", "list NAME" and "patchwork NAME"
 * need a NAME. */
static const struct section *section_find(const char *group)
{
	size_t i, n;

	for (i = 0; i < G_N_ELEMENTS(sections); i++) {
		n = strlen(sections[i].name);
		if (sections[i].name[n - 1] != ' ' ?
		    !strcmp(group, sections[i].name) :
		    !strncmp(group, sections[i].name, n) && !blank(group + n))
			return &sections[i];
	}
	return NULL;
}

static bool key_known(const struct section *sec, const char *key)
{
	size_t i;

	for (i = 0; sec->keys[i]; i++)
		if (!strcmp(sec->keys[i], key))
			return true;
	return false;
}

/* One key file read: its name as given, its bytes, their owner and mode. */
struct src {
	const char *path;
	char *text;
	size_t len;
	struct stat sb;
	GKeyFile *kf;
};

struct problem {
	const char *path;	/* borrowed from a struct src */
	int line;		/* 0: none to name */
	char *msg;
};

/*
 * Reading one configuration: the main file, whose key file also receives
 * the secrets of the credentials file once that file is accepted, and the
 * problems found so far.
 */
struct loader {
	struct src main;
	struct src cred;	/* cred.kf NULL: no credentials merged */
	GPtrArray *problems;	/* struct problem * */
};

/*
 * The line of [group] (key NULL: its first header) or of key in group
 * (the last one: GKeyFile merges a group given twice and keeps the last
 * value of a key), read as GKeyFile reads a line: leading blanks skipped;
 * empty and '#' lines comments; "[NAME]" a header, the name running to
 * the last ']'; otherwise the key is what precedes '=', less trailing
 * blanks.  0 when it is not there.
 */
static int line_of(const struct src *s, const char *group, const char *key)
{
	const char *p = s->text, *end = s->text + s->len;
	size_t glen = strlen(group), klen = key ? strlen(key) : 0;
	bool in = false;
	int n = 0, found = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *r, *eq;

		n++;
		while (p < e && g_ascii_isspace(*p))
			p++;
		if (p < e && *p == '[') {
			for (r = e; r > p + 1 && r[-1] != ']'; r--)
				;
			in = r > p + 1 && (size_t)(r - 1 - (p + 1)) == glen &&
			     !memcmp(p + 1, group, glen);
			if (in && !key)
				return n;
		} else if (in && key && p < e && *p != '#' &&
			   (eq = memchr(p, '=', (size_t)(e - p)))) {
			while (eq > p && g_ascii_isspace(eq[-1]))
				eq--;
			if ((size_t)(eq - p) == klen && !memcmp(p, key, klen))
				found = n;
		}
		p = nl ? nl + 1 : end;
	}
	return found;
}

/*
 * The first line GKeyFile refuses for its shape: one that is neither a
 * comment, a header nor holds '=', or a key before any header.  It
 * places GKeyFile's parse errors, which name no line.  0: none.
 */
static int bad_line(const struct src *s)
{
	const char *p = s->text, *end = s->text + s->len;
	bool group = false;
	int n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		const char *t = e;

		n++;
		while (p < e && g_ascii_isspace(*p))
			p++;
		while (t > p && g_ascii_isspace(t[-1]))
			t--;
		if (p < e && *p == '[' && t[-1] != ']')
			return n;
		if (p < e && *p == '[')
			group = true;
		else if (p < e && *p != '#' &&
			 (!group || !memchr(p, '=', (size_t)(e - p))))
			return n;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static void G_GNUC_PRINTF(5, 0)
vproblem_at(struct loader *ld, const struct src *s, const char *group,
	    const char *key, const char *fmt, va_list ap)
{
	struct problem *p = g_new0(struct problem, 1);

	p->path = s->path;
	p->line = group ? line_of(s, group, key) : 0;
	p->msg = g_strdup_vprintf(fmt, ap);
	g_ptr_array_add(ld->problems, p);
}

/* A problem of key in group (key NULL: of the group) in the file s. */
static void G_GNUC_PRINTF(5, 6)
problem_at(struct loader *ld, const struct src *s, const char *group,
	   const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vproblem_at(ld, s, group, key, fmt, ap);
	va_end(ap);
}

/* A problem of a setting, placed in the file its value came from. */
static void G_GNUC_PRINTF(4, 5)
problem(struct loader *ld, const char *group, const char *key,
	const char *fmt, ...)
{
	const struct src *s = &ld->main;
	va_list ap;

	if (ld->cred.kf && key && g_key_file_has_key(ld->cred.kf, group, key, NULL))
		s = &ld->cred;
	va_start(ap, fmt);
	vproblem_at(ld, s, group, key, fmt, ap);
	va_end(ap);
}

static void problem_free(gpointer p)
{
	struct problem *pr = p;

	g_free(pr->msg);
	g_free(pr);
}

/* Problems of the main file (first names it) first, each file's in the
 * order of its lines. */
static gint problem_cmp(gconstpointer a, gconstpointer b, gpointer first)
{
	const struct problem *x = *(const struct problem *const *)a;
	const struct problem *y = *(const struct problem *const *)b;

	if ((x->path == first) != (y->path == first))
		return x->path == first ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static char *get_str(struct loader *ld, const char *group, const char *key,
		     const char *def)
{
	GError *e = NULL;
	char *v = g_key_file_get_string(ld->main.kf, group, key, &e);

	if (e) {
		/* GLib's message quotes the value, which may be a secret. */
		if (!g_error_matches(e, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND) &&
		    !g_error_matches(e, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND))
			problem(ld, group, key, "[%s] %s: not text (a bad \\ escape,"
				" or not UTF-8)", group, key);
		g_error_free(e);
	}
	if (v) {
		g_strstrip(v);
		if (*v)
			return v;
		g_free(v);
	}
	return g_strdup(def);
}

/* A whole number from min to max (unit: what it counts, or NULL). */
static void get_int(struct loader *ld, const char *group, const char *key,
		    int def, int min, int max, const char *unit, int *out)
{
	GError *e = NULL;
	char *raw, *range;
	int v;

	*out = def;
	if (!g_key_file_has_key(ld->main.kf, group, key, NULL))
		return;
	v = g_key_file_get_integer(ld->main.kf, group, key, &e);
	if (!e && v >= min && v <= max) {
		*out = v;
		return;
	}
	g_clear_error(&e);
	raw = g_key_file_get_value(ld->main.kf, group, key, NULL);
	range = max == INT_MAX ? g_strdup_printf("%d or more", min) :
		g_strdup_printf("%d to %d", min, max);
	problem(ld, group, key, "[%s] %s = %s: %s is %s, %s", group, key,
		raw ? raw : "", key, unit ? unit : "a whole number", range);
	g_free(range);
	g_free(raw);
}

static bool get_bool(struct loader *ld, const char *group, const char *key,
		     bool def)
{
	GError *e = NULL;
	char *raw;
	bool v;

	if (!g_key_file_has_key(ld->main.kf, group, key, NULL))
		return def;
	v = g_key_file_get_boolean(ld->main.kf, group, key, &e);
	if (!e)
		return v;
	g_error_free(e);
	raw = g_key_file_get_value(ld->main.kf, group, key, NULL);
	problem(ld, group, key, "[%s] %s = %s: not true or false", group, key,
		raw ? raw : "");
	g_free(raw);
	return def;
}

/* A ;- or ,-separated list, white space stripped, empties dropped. */
static char **get_list(struct loader *ld, const char *group, const char *key)
{
	char *v = get_str(ld, group, key, NULL);
	GPtrArray *out = g_ptr_array_new();
	char **parts;
	size_t i;

	if (v) {
		g_strdelimit(v, ",", ';');
		parts = g_strsplit(v, ";", -1);
		for (i = 0; parts[i]; i++) {
			g_strstrip(parts[i]);
			if (*parts[i])
				g_ptr_array_add(out, g_strdup(parts[i]));
		}
		g_strfreev(parts);
		g_free(v);
	}
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

/* A STARTTLS policy: required, try or no; *field keeps def otherwise. */
static void get_starttls(struct loader *ld, const char *group, char **field,
			 const char *def)
{
	char *v = get_str(ld, group, "starttls", NULL);

	if (!v)
		return;
	if (strcmp(v, "required") && strcmp(v, "try") && strcmp(v, "no")) {
		problem(ld, group, "starttls", "[%s] starttls = %s: not required,"
			" try or no", group, v);
		g_free(v);
		v = g_strdup(def);
	}
	g_free(*field);
	*field = v;
}

static void list_release(struct pw_list_conf *l)
{
	g_free(l->name);
	g_strfreev(l->disabled);
	g_strfreev(l->enabled);
	g_free(l->address);
	g_strfreev(l->maintainer_addrs);
	g_strfreev(l->recipients);
	g_free(l->maintainers_file);
	pw_maintainers_free(l->maintainers);
	g_free(l->tree);
	g_free(l->tree_branch);
}

static const char *const mail_modes[] = {
	[PW_MAIL_OFF] = "off",
	[PW_MAIL_MAINTAINERS] = "maintainers",
	[PW_MAIL_AUTHOR] = "author",
	[PW_MAIL_AUTHOR_CC] = "author+cc",
};

bool pw_mail_mode_parse(const char *s, enum pw_mail_mode *out)
{
	size_t i;

	for (i = 0; s && i < G_N_ELEMENTS(mail_modes); i++)
		if (!g_ascii_strcasecmp(s, mail_modes[i])) {
			*out = (enum pw_mail_mode)i;
			return true;
		}
	return false;
}

const char *pw_mail_mode_str(enum pw_mail_mode m)
{
	return (size_t)m < G_N_ELEMENTS(mail_modes) ? mail_modes[m] : "off";
}

/*
 * [list NAME] mail, and the keys it replaced: cc_list and cc_all, set
 * without mail, still work (either makes the list author+cc, copying
 * what they say) with a note; set beside mail, they are a problem.
 */
static void read_mail(struct loader *ld, struct pw_config *c,
		      const char *group, struct pw_list_conf *l)
{
	char *mode = get_str(ld, group, "mail", NULL);
	bool old_list = g_key_file_has_key(ld->main.kf, group, "cc_list", NULL);
	bool old_all = g_key_file_has_key(ld->main.kf, group, "cc_all", NULL);

	l->cc_list = get_bool(ld, group, "cc_list", false);
	l->cc_all = get_bool(ld, group, "cc_all", false);
	if (mode && !pw_mail_mode_parse(mode, &l->mail))
		problem(ld, group, "mail", "[%s] mail = %s: not off, maintainers,"
			" author or author+cc", group, mode);
	if (mode && (old_list || old_all)) {
		problem(ld, group, old_list ? "cc_list" : "cc_all", "[%s] %s is"
			" the old spelling of mail = author+cc, and mail is set:"
			" remove it", group, old_list ? "cc_list" : "cc_all");
	} else if (old_list || old_all) {
		c->notes = g_list_append(c->notes, g_strdup_printf(
			"%s:%d: [%s] %s is deprecated: write mail = author+cc"
			" (which copies the list and every recipient)",
			ld->main.path, line_of(&ld->main, group, old_list ?
					       "cc_list" : "cc_all"),
			group, old_list ? "cc_list" : "cc_all"));
		if (l->cc_list || l->cc_all)
			l->mail = PW_MAIL_AUTHOR_CC;
	}
	if (mode && l->mail == PW_MAIL_AUTHOR_CC)
		l->cc_list = l->cc_all = true;
	else if (mode)
		l->cc_list = l->cc_all = false;
	g_free(mode);
}

/* [core] dkim: required (the default) or optional. */
static void read_dkim(struct loader *ld, struct pw_config *c)
{
	char *v = get_str(ld, "core", "dkim", "required");

	if (!strcmp(v, "optional"))
		c->dkim_optional = true;
	else if (strcmp(v, "required"))
		problem(ld, "core", "dkim", "[core] dkim = %s: not required or"
			" optional", v);
	g_free(v);
}

/*
 * A file named by key: a relative name is taken from the main file's
 * folder, as [core] credentials is.  NULL when unset.
 */
static char *get_path(struct loader *ld, const char *group, const char *key)
{
	char *v = get_str(ld, group, key, NULL), *dir, *abs;

	if (!v || g_path_is_absolute(v) || !ld->main.path)
		return v;
	dir = g_path_get_dirname(ld->main.path);
	abs = g_build_filename(dir, v, NULL);
	g_free(dir);
	g_free(v);
	return abs;
}

/* Key of group: a ;-list of bare addresses, lower-cased (new vector). */
static char **get_addrs(struct loader *ld, const char *group, const char *key)
{
	char **v = get_list(ld, group, key);
	size_t i, k = 0;

	for (i = 0; v[i]; i++) {
		char *a = v[i];

		if (!pw_reply_addr_ok(a)) {
			problem(ld, group, key, "[%s] %s: '%s' is not a bare"
				" mail address (a@b.org)", group, key, a);
			g_free(a);
			continue;
		}
		v[k++] = g_ascii_strdown(a, -1);
		g_free(a);
	}
	v[k] = NULL;
	return v;
}

/*
 * [list NAME] maintainer, maintainers, cc_maintainers and digest: who
 * maintains the list, and what they get.
 */
static void read_maintainers(struct loader *ld, const char *group,
			     struct pw_list_conf *l)
{
	l->maintainer_addrs = get_addrs(ld, group, "maintainer");
	l->maintainers_file = get_path(ld, group, "maintainers");
	if (l->maintainers_file) {
		/* Read once, here: every reply and digest asks it. */
		GError *e = NULL;
		char *text = NULL;
		gsize len = 0;

		if (!g_file_get_contents(l->maintainers_file, &text, &len, &e)) {
			problem(ld, group, "maintainers", "[%s] maintainers = %s:"
				" %s", group, l->maintainers_file, e->message);
			g_error_free(e);
		} else if (!(l->maintainers = pw_maintainers_parse(text, len)) ||
			   !pw_maintainers_count(l->maintainers)) {
			problem(ld, group, "maintainers", "[%s] maintainers = %s:"
				" no MAINTAINERS entry in it", group,
				l->maintainers_file);
		}
		g_free(text);
	}
	l->cc_maintainers = get_bool(ld, group, "cc_maintainers", false);
	if (l->cc_maintainers && !l->maintainers_file)
		problem(ld, group, "cc_maintainers", "[%s] cc_maintainers = true"
			" needs maintainers = FILE, the MAINTAINERS file that"
			" names them", group);
	if (l->mail == PW_MAIL_MAINTAINERS && !l->maintainer_addrs[0] &&
	    !l->maintainers_file)
		problem(ld, group, "mail", "[%s] mail = maintainers, but neither"
			" maintainer = ADDR nor maintainers = FILE names one",
			group);
	l->digest = get_bool(ld, group, "digest", false);
	if (l->digest && !l->maintainer_addrs[0])
		problem(ld, group, "digest", "[%s] digest = true, but no"
			" maintainer = ADDR to send it to", group);
}

/*
 * [list NAME] tree = URL or PATH, BRANCH: the maintainer's git tree
 * whose commits mark patches applied (bot/tree.c).  A relative path is
 * taken from the main file's folder; the branch defaults to master.
 */
static void read_tree(struct loader *ld, const char *group,
		      struct pw_list_conf *l)
{
	char *v = get_str(ld, group, "tree", NULL), *comma, *dir;
	GUri *uri;

	if (!v)
		return;
	comma = strrchr(v, ',');
	if (comma) {
		*comma = '\0';
		l->tree_branch = g_strstrip(g_strdup(comma + 1));
		g_strstrip(v);
	}
	if (!l->tree_branch || !*l->tree_branch) {
		g_free(l->tree_branch);
		l->tree_branch = g_strdup("master");
	}
	if (!*v) {
		problem(ld, group, "tree", "[%s] tree: no URL or path before"
			" the branch", group);
		g_free(v);
		return;
	}
	/* URLs are shown and logged: a password belongs nowhere in one. */
	if (strstr(v, "://") && (uri = g_uri_parse(v, G_URI_FLAGS_HAS_PASSWORD,
						   NULL))) {
		bool secret = g_uri_get_password(uri) != NULL;

		g_uri_unref(uri);
		if (secret) {
			problem(ld, group, "tree", "[%s] tree: a URL with a"
				" password", group);
			g_free(v);
			return;
		}
	}
	if (!strstr(v, "://") && !g_path_is_absolute(v) && ld->main.path) {
		dir = g_path_get_dirname(ld->main.path);
		l->tree = g_build_filename(dir, v, NULL);
		g_free(dir);
		g_free(v);
	} else {
		l->tree = v;
	}
}

static void list_free(gpointer p)
{
	list_release(p);
	g_free(p);
}

static void patchwork_free(gpointer p)
{
	struct pw_patchwork_conf *w = p;

	g_free(w->name);
	g_free(w->url);
	g_free(w->project);
	if (w->token)
		memset(w->token, 0, strlen(w->token));
	g_free(w->token);
	g_strfreev(w->lists);
	g_free(w->context);
	g_free(w);
}

static void read_list(struct loader *ld, struct pw_config *c,
		      const char *group, const char *name,
		      struct pw_list_conf *l)
{
	char *style = get_str(ld, group, "style", "octal");
	size_t i;

	l->name = g_strdup(name);
	if (!pw_style_parse(style, &l->style))
		problem(ld, group, "style", "[%s] style = %s: not octal, symbolic"
			" or perm-macros", group, style);
	g_free(style);
	l->disabled = get_list(ld, group, "disable");
	l->enabled = get_list(ld, group, "enable");
	for (i = 0; l->disabled[i]; i++)
		if (!pw_rule_find(l->disabled[i]))
			problem(ld, group, "disable", "[%s] disable: no rule '%s'",
				group, l->disabled[i]);
	for (i = 0; l->enabled[i]; i++)
		if (!pw_rule_find(l->enabled[i]))
			problem(ld, group, "enable", "[%s] enable: no rule '%s'",
				group, l->enabled[i]);
	l->address = get_str(ld, group, "address", NULL);
	/* The addresses the MTA delivers this list's mail to: mail piped
	 * in for one of them is filed under this list (bot/cmd_run.c). */
	l->recipients = get_addrs(ld, group, "recipient");
	if (l->recipients[0] && !*l->name)
		problem(ld, group, "recipient", "[%s] recipient: mail for"
			" it would be filed under no list; name a list,"
			" [list NAME] recipient", group);
	read_mail(ld, c, group, l);
	read_maintainers(ld, group, l);
	read_tree(ld, group, l);
}

/*
 * Reads a whole key file and the status of that same file, through one
 * descriptor, so that the owner and mode checked are those of the bytes
 * read.  On failure, *err says why (without the file's name).
 */
static bool read_file(struct src *s, char **err)
{
	int fd = open(s->path, O_RDONLY | O_CLOEXEC);
	GString *g;
	char buf[8192];
	ssize_t n;

	if (fd < 0 || fstat(fd, &s->sb) < 0) {
		*err = g_strdup(g_strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (!S_ISREG(s->sb.st_mode) || s->sb.st_size > (1 << 20)) {
		*err = g_strdup("not a regular file under 1 MiB");
		close(fd);
		return false;
	}
	g = g_string_new(NULL);
	while ((n = read(fd, buf, sizeof(buf))) > 0 && g->len <= (1 << 20))
		g_string_append_len(g, buf, n);
	close(fd);
	if (n < 0 || g->len > (1 << 20)) {
		*err = g_strdup(n < 0 ? g_strerror(errno) :
				"not a regular file under 1 MiB");
		g_string_free(g, TRUE);
		return false;
	}
	s->len = g->len;
	s->text = g_string_free(g, FALSE);
	return true;
}

/* Parses s->text into s->kf; a problem of s and false when it is not a
 * key file. */
static bool parse(struct loader *ld, struct src *s)
{
	struct problem *p;
	GError *e = NULL;

	s->kf = g_key_file_new();
	if (g_key_file_load_from_data(s->kf, s->text, s->len, G_KEY_FILE_NONE, &e))
		return true;
	/* GKeyFile's own message quotes the line, which may hold a
	 * secret: it is never shown. */
	p = g_new0(struct problem, 1);
	p->path = s->path;
	p->line = bad_line(s);
	if (e->domain == G_KEY_FILE_ERROR &&
	    e->code == G_KEY_FILE_ERROR_UNKNOWN_ENCODING)
		p->msg = g_strdup("not a key file: an encoding other than UTF-8");
	else if (p->line)
		p->msg = g_strdup("not a key file: neither \"key = value\", a"
				  " whole [section] header nor a # comment");
	else
		p->msg = g_strdup("not a key file: a section name or key that"
				  " GKeyFile refuses");
	g_ptr_array_add(ld->problems, p);
	g_error_free(e);
	g_key_file_free(s->kf);
	s->kf = NULL;
	return false;
}

/* Every section and key of s is one patchwarden reads; a credentials
 * file holds only the secret keys. */
static void check_keys(struct loader *ld, const struct src *s, bool cred)
{
	char **groups = g_key_file_get_groups(s->kf, NULL);
	size_t i, j;

	for (i = 0; groups[i]; i++) {
		const struct section *sec = section_find(groups[i]);
		char **keys;

		if (!sec) {
			problem_at(ld, s, groups[i], NULL, "unknown section [%s]",
				   groups[i]);
			continue;
		}
		if (cred && !sec->secret) {
			problem_at(ld, s, groups[i], NULL, "[%s] in a credentials"
				   " file, which holds only " CRED_KEYS, groups[i]);
			continue;
		}
		keys = g_key_file_get_keys(s->kf, groups[i], NULL, NULL);
		for (j = 0; keys && keys[j]; j++) {
			if (!key_known(sec, keys[j]))
				problem_at(ld, s, groups[i], keys[j], "unknown key"
					   " \"%s\" in [%s]", keys[j], groups[i]);
			else if (cred && strcmp(keys[j], sec->secret))
				problem_at(ld, s, groups[i], keys[j], "\"%s\" in [%s]"
					   " of a credentials file, which holds only "
					   CRED_KEYS, keys[j], groups[i]);
		}
		g_strfreev(keys);
	}
	g_strfreev(groups);
}

/*
 * The first secret the main file holds (a password, the [web] token, or
 * an SMTP URL with user information, "smtp://user:pw@host"), as its
 * group and key; false when it holds none.
 */
static bool first_secret(GKeyFile *kf, char **group, const char **key)
{
	char **groups = g_key_file_get_groups(kf, NULL);
	char *url;
	bool found = false;
	size_t i;

	for (i = 0; !found && groups[i]; i++) {
		const struct section *sec = section_find(groups[i]);

		if (sec && sec->secret &&
		    g_key_file_has_key(kf, groups[i], sec->secret, NULL)) {
			*group = g_strdup(groups[i]);
			*key = sec->secret;
			found = true;
		}
	}
	g_strfreev(groups);
	if (found)
		return true;
	url = g_key_file_get_string(kf, "smtp", "url", NULL);
	found = url && strchr(url, '@');
	g_free(url);
	if (found) {
		*group = g_strdup("smtp");
		*key = "url";
	}
	return found;
}

/* Why a file of secrets is refused (NULL: it is not): a mode that lets
 * group or others read it, or an owner other than the user running. */
static char *secrets_refused(const struct stat *sb)
{
	if (sb->st_mode & 077)
		return g_strdup_printf("group or others can read it (mode %04o)",
				       (unsigned)(sb->st_mode & 07777));
	if (sb->st_uid != geteuid())
		return g_strdup_printf("it belongs to uid %u, not to uid %u that"
				       " runs patchwarden", (unsigned)sb->st_uid,
				       (unsigned)geteuid());
	return NULL;
}

/* A secret in the main file needs the main file owner-only. */
static void check_main_secrets(struct loader *ld)
{
	char *group = NULL, *why;
	const char *key = NULL;

	if (!first_secret(ld->main.kf, &group, &key))
		return;
	why = secrets_refused(&ld->main.sb);
	if (why)
		problem_at(ld, &ld->main, group, key, "holds a secret ([%s] %s)"
			   " but %s: chmod 600 it and own it, or move the"
			   " secret to the file of [core] credentials", group,
			   key, why);
	g_free(why);
	g_free(group);
}

/*
 * [core] credentials: read it, refuse it unless its owner alone can
 * read it, check its keys, and merge its secrets into the main key file.
 * A relative name is taken from the main file's folder.
 */
static void read_credentials(struct loader *ld, struct pw_config *c)
{
	char *dir, *err = NULL, *why = NULL, **groups;
	size_t i, n = ld->problems->len;

	c->credentials = get_str(ld, "core", "credentials", NULL);
	if (!c->credentials)
		return;
	if (!g_path_is_absolute(c->credentials)) {
		char *abs;

		dir = g_path_get_dirname(ld->main.path);
		abs = g_build_filename(dir, c->credentials, NULL);
		g_free(dir);
		g_free(c->credentials);
		c->credentials = abs;
	}
	ld->cred.path = c->credentials;
	if (!read_file(&ld->cred, &err)) {
		problem(ld, "core", "credentials", "[core] credentials = %s: %s",
			c->credentials, err);
		g_free(err);
		return;
	}
	if ((why = secrets_refused(&ld->cred.sb))) {
		problem(ld, "core", "credentials", "[core] credentials = %s:"
			" refused: %s; it must belong to the user running"
			" patchwarden, mode 600", c->credentials, why);
		g_free(why);
		return;
	}
	if (!parse(ld, &ld->cred))
		return;
	check_keys(ld, &ld->cred, true);
	groups = g_key_file_get_groups(ld->cred.kf, NULL);
	for (i = 0; groups[i]; i++) {
		const struct section *sec = section_find(groups[i]);

		if (!sec || !sec->secret ||
		    !g_key_file_has_key(ld->cred.kf, groups[i], sec->secret, NULL))
			continue;
		if (g_key_file_has_key(ld->main.kf, groups[i], sec->secret, NULL))
			problem_at(ld, &ld->cred, groups[i], sec->secret,
				   "[%s] %s is set here and in %s: keep it in"
				   " one file", groups[i], sec->secret, ld->main.path);
	}
	if (ld->problems->len == n) {
		for (i = 0; groups[i]; i++) {
			const struct section *sec = section_find(groups[i]);
			char *v = g_key_file_get_value(ld->cred.kf, groups[i],
						       sec->secret, NULL);

			if (v)
				g_key_file_set_value(ld->main.kf, groups[i],
						     sec->secret, v);
			g_free(v);
		}
	} else {
		/* Refused: nothing of it is read, nor placed in it. */
		g_key_file_free(ld->cred.kf);
		ld->cred.kf = NULL;
	}
	g_strfreev(groups);
}

/*
 * [imap] and [imap NAME]: how to log in to a subscription's IMAP server.
 * The first entry of c->imap is [imap]; each [imap NAME] starts as a
 * copy of it and replaces the keys it sets.
 */
static void imap_conf_free(gpointer p)
{
	struct pw_imap_conf *m = p;

	g_free(m->name);
	g_free(m->user);
	if (m->password)
		memset(m->password, 0, strlen(m->password));
	g_free(m->password);
	g_free(m->starttls);
	g_free(m->cainfo);
	g_free(m);
}

/* Replaces *field with the group's key when the group sets it. */
static void imap_key(struct loader *ld, const char *group, const char *key,
		     char **field)
{
	char *v = get_str(ld, group, key, NULL);

	if (!v)
		return;
	if (*field && !strcmp(key, "password"))
		memset(*field, 0, strlen(*field));
	g_free(*field);
	*field = v;
}

static void imap_group(struct loader *ld, const char *group,
		       const struct pw_imap_conf *base, struct pw_imap_conf *m)
{
	if (base) {
		m->user = g_strdup(base->user);
		m->password = g_strdup(base->password);
		m->starttls = g_strdup(base->starttls);
		m->cainfo = g_strdup(base->cainfo);
		m->timeout = base->timeout;
	}
	imap_key(ld, group, "user", &m->user);
	imap_key(ld, group, "password", &m->password);
	get_starttls(ld, group, &m->starttls, base ? base->starttls : "required");
	imap_key(ld, group, "cainfo", &m->cainfo);
	get_int(ld, group, "timeout", m->timeout, 1, 3600, "seconds", &m->timeout);
}

static void read_imap(struct loader *ld, struct pw_config *c)
{
	struct pw_imap_conf *d = g_new0(struct pw_imap_conf, 1);
	char **groups = g_key_file_get_groups(ld->main.kf, NULL);
	size_t i;

	c->imap = g_ptr_array_new_with_free_func(imap_conf_free);
	g_ptr_array_add(c->imap, d);
	d->name = g_strdup("");
	d->starttls = g_strdup("required");
	d->timeout = 60;
	imap_group(ld, "imap", NULL, d);
	for (i = 0; groups[i]; i++) {
		struct pw_imap_conf *m;

		if (strncmp(groups[i], "imap ", 5) || !section_find(groups[i]))
			continue;
		m = g_new0(struct pw_imap_conf, 1);
		g_ptr_array_add(c->imap, m);
		m->name = g_strstrip(g_strdup(groups[i] + 5));
		imap_group(ld, groups[i], d, m);
	}
	g_strfreev(groups);
}

const struct pw_imap_conf *pw_config_imap(const struct pw_config *c,
					  const char *sub_name)
{
	static const struct pw_imap_conf builtin = {
		.name = "", .starttls = "required", .timeout = 60,
	};
	guint i;

	if (!c || !c->imap || !c->imap->len)
		return &builtin;
	for (i = 1; sub_name && i < c->imap->len; i++) {
		const struct pw_imap_conf *m = c->imap->pdata[i];

		if (!strcmp(m->name, sub_name))
			return m;
	}
	return c->imap->pdata[0];
}

/*
 * [web] url, the dashboard's public address, which replies link to.
 * [reply] dashboard_url, its old name, still sets it, noted as
 * deprecated; both at once is a problem.
 */
static void read_web_url(struct loader *ld, struct pw_config *c)
{
	char *old = get_str(ld, "reply", "dashboard_url", NULL);
	char *url = get_str(ld, "web", "url", NULL);
	const char *group = "web", *key = "url";
	char *scheme;

	if (old && url) {
		problem(ld, "reply", "dashboard_url", "[reply] dashboard_url is the"
			" old name of [web] url, which is set too: remove it");
	} else if (old) {
		c->notes = g_list_append(c->notes, g_strdup_printf(
			"%s:%d: [reply] dashboard_url is deprecated: write it as"
			" [web] url", ld->main.path,
			line_of(&ld->main, "reply", "dashboard_url")));
		url = old;
		old = NULL;
		group = "reply";
		key = "dashboard_url";
	}
	scheme = url ? g_uri_parse_scheme(url) : NULL;
	if (url && (!scheme || (g_ascii_strcasecmp(scheme, "http") &&
				g_ascii_strcasecmp(scheme, "https"))))
		problem(ld, group, key, "[%s] %s = %s: not an http:// or https://"
			" URL", group, key, url);
	c->dashboard_url = url;
	g_free(old);
	g_free(scheme);
}

/* [web]: the dashboard's address, token and body limit. */
static void read_web(struct loader *ld, struct pw_config *c)
{
	int kib;

	c->web_listen = get_str(ld, "web", "listen", NULL);
	c->web_token = get_str(ld, "web", "token", NULL);
	if (c->web_token && strlen(c->web_token) < 16)
		problem(ld, "web", "token", "[web] token: at least 16 characters");
	get_int(ld, "web", "max_body", 10240, 1, 1024 * 1024, "KiB", &kib);
	c->web_max_body = kib * 1024;
	get_int(ld, "web", "stale_after", 0, 0, INT_MAX, "seconds",
		&c->web_stale_after);
	get_int(ld, "web", "check_cpu", 10, 0, 3600, "seconds",
		&c->web_check_cpu);
	get_int(ld, "web", "client_connections", 32, 0, 4096, NULL,
		&c->web_client_connections);
	get_int(ld, "web", "client_posts", 60, 0, 1000000, "POSTs a minute",
		&c->web_client_posts);
	get_int(ld, "web", "timeout", 30, 1, 3600, "seconds", &c->web_timeout);
	read_web_url(ld, c);
}

static void set_defaults(struct pw_config *c, const char *db)
{
	c->web_max_body = 10240 * 1024;
	c->web_check_cpu = 10;
	c->web_client_connections = 32;
	c->web_client_posts = 60;
	c->web_timeout = 30;
	c->message_cpu = 30;
	c->db_path = g_strdup(db ? db : "patchwarden.db");
	c->smtp_starttls = g_strdup("required");
	c->smtp_timeout = 60;
	c->fetch_timeout = 120;
	c->max_findings = 1000;
	c->reply_min_severity = PW_SEV_WARNING;
	c->per_recipient_per_hour = 5;
	c->global_per_hour = 200;
	c->reply_max_age = 7 * 86400;
	c->flood_count = 20;
	c->flood_window = 3 * 24 * 3600;
	c->flood_burst = 6 * 3600;
	c->flood_lists = 3;
	c->flood_detect = true;
	c->lists = g_ptr_array_new_with_free_func(list_free);
	c->patchwork = g_ptr_array_new_with_free_func(patchwork_free);
	c->defaults.name = g_strdup("");
	c->defaults.disabled = g_new0(char *, 1);
	c->defaults.enabled = g_new0(char *, 1);
	c->defaults.maintainer_addrs = g_new0(char *, 1);
}

/* The dry-run mbox defaults to outbox.mbox beside the database. */
static void default_mbox(struct pw_config *c)
{
	char *dir;

	/* Archive mirrors beside the store: PATH-mirrors. */
	if (!c->mirrors)
		c->mirrors = g_strconcat(c->db_path, "-mirrors", NULL);
	if (c->dry_run_mbox)
		return;
	dir = g_path_get_dirname(c->db_path);
	c->dry_run_mbox = g_build_filename(dir, "outbox.mbox", NULL);
	g_free(dir);
}

/* Reads "Name <addr>" or "addr" with GMime into from_name, from_addr. */
static bool read_from(struct pw_config *c, const char *from)
{
	InternetAddressList *l;
	InternetAddress *ia;
	const char *addr, *name;
	bool ok = false;

	pw_mail_init();
	l = internet_address_list_parse(NULL, from);
	if (l && internet_address_list_length(l) == 1 &&
	    INTERNET_ADDRESS_IS_MAILBOX(ia = internet_address_list_get_address(l, 0))) {
		addr = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia));
		name = internet_address_get_name(ia);
		if (addr && pw_reply_addr_ok(addr)) {
			g_free(c->from_addr);
			g_free(c->from_name);
			c->from_addr = g_ascii_strdown(addr, -1);
			c->from_name = g_strdup(name ? name : "");
			ok = true;
		}
	}
	if (l)
		g_object_unref(l);
	return ok;
}

/* [core], [smtp], [reply] and [flood]. */
static void read_main(struct loader *ld, struct pw_config *c, bool db_override)
{
	char *sev;

	if (!db_override) {
		g_free(c->db_path);
		c->db_path = get_str(ld, "core", "db", "patchwarden.db");
	}
	c->mirrors = get_str(ld, "core", "mirrors", NULL);
	get_int(ld, "core", "fetch_timeout", 120, 1, INT_MAX, "seconds",
		&c->fetch_timeout);
	get_int(ld, "core", "max_findings", 1000, 0, INT_MAX, NULL,
		&c->max_findings);
	get_int(ld, "core", "message_cpu", 30, 0, 3600, "seconds",
		&c->message_cpu);
	c->dkim_keys = get_path(ld, "core", "dkim_keys");
	read_dkim(ld, c);

	c->smtp_url = get_str(ld, "smtp", "url", NULL);
	c->smtp_from = get_str(ld, "smtp", "from", NULL);
	c->smtp_user = get_str(ld, "smtp", "user", NULL);
	c->smtp_password = get_str(ld, "smtp", "password", NULL);
	get_starttls(ld, "smtp", &c->smtp_starttls, "required");
	c->smtp_helo = get_str(ld, "smtp", "helo", NULL);
	c->smtp_cainfo = get_str(ld, "smtp", "cainfo", NULL);
	get_int(ld, "smtp", "timeout", 60, 0, INT_MAX, "seconds", &c->smtp_timeout);
	if (c->smtp_url && !c->smtp_from)
		problem(ld, "smtp", "url", "[smtp] url is set but [smtp] from is"
			" not: replies need a real sender address");
	if (c->smtp_from && !read_from(c, c->smtp_from))
		problem(ld, "smtp", "from", "[smtp] from = %s: not one mail address"
			" (\"Name <addr>\" or addr)", c->smtp_from);

	c->dry_run_mbox = get_str(ld, "reply", "dry_run_mbox", NULL);
	c->reply_from_name = get_str(ld, "reply", "from_name", NULL);
	c->reply_to = get_str(ld, "reply", "reply_to", NULL);
	sev = get_str(ld, "reply", "min_severity", "warning");
	if (!pw_severity_parse(sev, &c->reply_min_severity))
		problem(ld, "reply", "min_severity", "[reply] min_severity = %s:"
			" not info, warning or error", sev);
	g_free(sev);
	get_int(ld, "reply", "per_recipient_per_hour", 5, 0, INT_MAX, NULL,
		&c->per_recipient_per_hour);
	get_int(ld, "reply", "global_per_hour", 200, 0, INT_MAX, NULL,
		&c->global_per_hour);
	get_int(ld, "reply", "max_age", 7, 0, 36500, "days", &c->reply_max_age);
	/* 36500 days do not fit an int of seconds: past 68 years, the
	 * largest does as well. */
	c->reply_max_age = c->reply_max_age > INT_MAX / 86400 ? INT_MAX :
			   c->reply_max_age * 86400;
	c->automated_senders = get_list(ld, "reply", "automated_senders");

	get_int(ld, "flood", "count", 20, 2, INT_MAX, "a number of patches",
		&c->flood_count);
	get_int(ld, "flood", "window", 3 * 24 * 3600, 0, INT_MAX, "seconds",
		&c->flood_window);
	get_int(ld, "flood", "burst", 6 * 3600, 0, INT_MAX, "seconds",
		&c->flood_burst);
	get_int(ld, "flood", "lists", 3, 0, INT_MAX, "a number of subsystems",
		&c->flood_lists);
	c->flood_detect = get_bool(ld, "flood", "detect", true);
}

/* One [patchwork NAME]: every key checked, named with its line. */
static void read_patchwork_group(struct loader *ld, struct pw_config *c,
				 const char *group, struct pw_patchwork_conf *w)
{
	char *sev, *scheme;
	size_t n;

	w->url = get_str(ld, group, "url", NULL);
	scheme = w->url ? g_uri_parse_scheme(w->url) : NULL;
	if (!w->url)
		problem(ld, group, NULL, "[%s] has no url (the Patchwork"
			" instance, e.g. https://patchwork.kernel.org)", group);
	else if (!scheme || (g_ascii_strcasecmp(scheme, "http") &&
			     g_ascii_strcasecmp(scheme, "https")) ||
		 strpbrk(w->url, "?# \t"))
		problem(ld, group, "url", "[%s] url = %s: not an http:// or"
			" https:// URL without query", group, w->url);
	g_free(scheme);
	for (n = w->url ? strlen(w->url) : 0; n && w->url[n - 1] == '/'; n--)
		w->url[n - 1] = '\0';
	w->project = get_str(ld, group, "project", NULL);
	if (!w->project)
		problem(ld, group, NULL, "[%s] has no project (the project's"
			" link name in Patchwork)", group);
	else if (!pw_pwcheck_context_ok(w->project))
		problem(ld, group, "project", "[%s] project = %s: not a link name"
			" (letters, digits, - and _)", group, w->project);
	w->token = get_str(ld, group, "token", NULL);
	if (!w->token)
		problem(ld, group, NULL, "[%s] has no token: put [%s] token in"
			" the file of [core] credentials", group, group);
	else if (strspn(w->token, "0123456789abcdefABCDEF") != strlen(w->token))
		problem(ld, group, "token", "[%s] token: not a Patchwork API token"
			" (hexadecimal digits)", group);
	w->lists = get_list(ld, group, "lists");
	w->context = get_str(ld, group, "context", "patchwarden");
	if (!pw_pwcheck_context_ok(w->context))
		problem(ld, group, "context", "[%s] context = %s: not letters,"
			" digits, - and _ (at most %d)", group, w->context,
			PW_PWCHECK_CONTEXT_MAX);
	sev = get_str(ld, group, "min_severity", NULL);
	w->min_severity = c->reply_min_severity;
	if (sev && !pw_severity_parse(sev, &w->min_severity))
		problem(ld, group, "min_severity", "[%s] min_severity = %s: not"
			" info, warning or error", group, sev);
	g_free(sev);
	get_int(ld, group, "max_attempts", 10, 1, 1000, NULL, &w->max_attempts);
	get_int(ld, group, "timeout", 30, 1, 3600, "seconds", &w->timeout);
}

/* Every [patchwork NAME]. */
static void read_patchwork(struct loader *ld, struct pw_config *c)
{
	char **groups = g_key_file_get_groups(ld->main.kf, NULL);
	size_t i;

	for (i = 0; groups[i]; i++) {
		struct pw_patchwork_conf *w;

		if (strncmp(groups[i], "patchwork ", 10) ||
		    !section_find(groups[i]))
			continue;
		w = g_new0(struct pw_patchwork_conf, 1);
		w->name = g_strstrip(g_strdup(groups[i] + 10));
		g_ptr_array_add(c->patchwork, w);
		read_patchwork_group(ld, c, groups[i], w);
	}
	g_strfreev(groups);
}

const struct pw_patchwork_conf *pw_config_patchwork(const struct pw_config *c,
						    const char *name)
{
	guint i;

	for (i = 0; name && c->patchwork && i < c->patchwork->len; i++) {
		const struct pw_patchwork_conf *w = c->patchwork->pdata[i];

		if (!strcmp(w->name, name))
			return w;
	}
	return NULL;
}

bool pw_config_patchwork_serves(const struct pw_patchwork_conf *p,
				const char *list)
{
	size_t i;

	if (!p->lists || !p->lists[0])
		return true;
	for (i = 0; list && p->lists[i]; i++)
		if (!g_ascii_strcasecmp(p->lists[i], list))
			return true;
	return false;
}

static void read_lists(struct loader *ld, struct pw_config *c)
{
	char **groups = g_key_file_get_groups(ld->main.kf, NULL);
	size_t i, k;

	for (i = 0; groups[i]; i++) {
		struct pw_list_conf *l;

		if (strncmp(groups[i], "list ", 5) || !section_find(groups[i]))
			continue;
		/* [list *]: the settings of every list without a section of
		 * its own, and of mail on no list. */
		if (!strcmp(g_strstrip(groups[i] + 5), "*")) {
			list_release(&c->defaults);
			read_list(ld, c, groups[i], "", &c->defaults);
			continue;
		}
		l = g_new0(struct pw_list_conf, 1);
		g_ptr_array_add(c->lists, l);
		read_list(ld, c, groups[i], groups[i] + 5, l);
		/* One address, one list: the mail the MTA delivers to it
		 * is filed under the list, which must not be a guess. */
		for (k = 0; l->recipients[k]; k++) {
			const char *other = pw_config_list_of_recipient(c,
							l->recipients[k]);

			if (other && other != l->name)
				problem(ld, groups[i], "recipient", "[%s]"
					" recipient: %s is [list %s]'s"
					" already", groups[i], l->recipients[k],
					other);
		}
	}
	g_strfreev(groups);
}

static void src_release(struct src *s)
{
	if (s->text)
		memset(s->text, 0, s->len);	/* it may hold secrets */
	g_free(s->text);
	if (s->kf)
		g_key_file_free(s->kf);
}

enum pw_status pw_config_check(const char *path, const char *db_override,
			       struct pw_config **out, GPtrArray *problems)
{
	struct loader ld = { .main = { .path = path } };
	struct pw_config *c = g_new0(struct pw_config, 1);
	enum pw_status st = PW_OK;
	char *err = NULL;
	guint i;

	*out = NULL;
	ld.problems = g_ptr_array_new_with_free_func(problem_free);
	set_defaults(c, db_override);
	read_from(c, "patchwarden@localhost");
	if (!path)
		goto done;
	c->path = g_strdup(path);
	ld.main.path = c->path;
	if (!read_file(&ld.main, &err)) {
		problem_at(&ld, &ld.main, NULL, NULL, "%s", err);
		g_free(err);
		st = PW_ERR_IO;
		goto done;
	}
	if (!parse(&ld, &ld.main)) {
		st = PW_ERR_INPUT;
		goto done;
	}
	check_keys(&ld, &ld.main, false);
	check_main_secrets(&ld);
	read_credentials(&ld, c);
	read_main(&ld, c, db_override != NULL);
	read_imap(&ld, c);
	read_web(&ld, c);
	read_lists(&ld, c);
	read_patchwork(&ld, c);
done:
	g_ptr_array_sort_with_data(ld.problems, problem_cmp, (gpointer)ld.main.path);
	for (i = 0; i < ld.problems->len; i++) {
		const struct problem *p = ld.problems->pdata[i];

		g_ptr_array_add(problems, p->line ?
				g_strdup_printf("%s:%d: %s", p->path, p->line, p->msg) :
				g_strdup_printf("%s: %s", p->path, p->msg));
	}
	g_ptr_array_free(ld.problems, TRUE);
	src_release(&ld.main);
	src_release(&ld.cred);
	if (st) {
		pw_config_free(c);
		return st;
	}
	default_mbox(c);
	*out = c;
	return PW_OK;
}

enum pw_status pw_config_load(const char *path, const char *db_override,
			      struct pw_config **out, char **err)
{
	GPtrArray *problems = g_ptr_array_new_with_free_func(g_free);
	struct pw_config *c = NULL;

	*out = NULL;
	*err = NULL;
	pw_config_check(path, db_override, &c, problems);
	if (problems->len == 1)
		*err = g_strdup(problems->pdata[0]);
	else if (problems->len > 1)
		*err = g_strdup_printf("%s (and %u more problem%s: patchwarden"
				       " config check --config %s)",
				       (const char *)problems->pdata[0],
				       problems->len - 1,
				       problems->len == 2 ? "" : "s", path);
	g_ptr_array_free(problems, TRUE);
	if (*err) {
		pw_config_free(c);
		return PW_ERR_USAGE;
	}
	*out = c;
	return PW_OK;
}

void pw_config_free(struct pw_config *c)
{
	if (!c)
		return;
	g_free(c->path);
	g_free(c->credentials);
	g_free(c->db_path);
	g_free(c->mirrors);
	g_free(c->dkim_keys);
	g_free(c->smtp_url);
	g_free(c->smtp_from);
	g_free(c->from_name);
	g_free(c->from_addr);
	g_free(c->smtp_user);
	if (c->smtp_password)
		memset(c->smtp_password, 0, strlen(c->smtp_password));
	g_free(c->smtp_password);
	g_free(c->smtp_starttls);
	g_free(c->smtp_helo);
	g_free(c->smtp_cainfo);
	g_free(c->dry_run_mbox);
	g_free(c->reply_from_name);
	g_free(c->reply_to);
	g_free(c->dashboard_url);
	g_list_free_full(c->notes, g_free);
	g_strfreev(c->automated_senders);
	g_free(c->web_listen);
	if (c->web_token)
		memset(c->web_token, 0, strlen(c->web_token));
	g_free(c->web_token);
	if (c->lists)
		g_ptr_array_free(c->lists, TRUE);
	if (c->imap)
		g_ptr_array_free(c->imap, TRUE);
	if (c->patchwork)
		g_ptr_array_free(c->patchwork, TRUE);
	list_release(&c->defaults);
	g_free(c);
}

const struct pw_list_conf *pw_config_list(const struct pw_config *c,
					  const char *name)
{
	guint i;

	for (i = 0; name && c->lists && i < c->lists->len; i++) {
		const struct pw_list_conf *l = c->lists->pdata[i];

		if (!g_ascii_strcasecmp(l->name, name))
			return l;
	}
	return &c->defaults;
}

const char *pw_config_list_of_recipient(const struct pw_config *c,
					const char *addr)
{
	guint i;
	size_t j;

	for (i = 0; addr && c->lists && i < c->lists->len; i++) {
		const struct pw_list_conf *l = c->lists->pdata[i];

		for (j = 0; l->recipients && l->recipients[j]; j++)
			if (!g_ascii_strcasecmp(l->recipients[j], addr))
				return l->name;
	}
	return NULL;
}

void pw_config_check_opts(const struct pw_config *c, const char *list,
			  struct pw_check_opts *o)
{
	const struct pw_list_conf *l = pw_config_list(c, list);

	memset(o, 0, sizeof(*o));
	o->max_findings = c->max_findings;
	o->style = l->style;
	o->disabled = (const char *const *)l->disabled;
	o->enabled = (const char *const *)l->enabled;
}

bool pw_config_list_maintainer(const struct pw_list_conf *l, const char *addr)
{
	size_t i;

	for (i = 0; addr && l->maintainer_addrs && l->maintainer_addrs[i]; i++)
		if (!g_ascii_strcasecmp(l->maintainer_addrs[i], addr))
			return true;
	return false;
}
