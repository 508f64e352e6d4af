/*
 * patchwarden: reading the configuration key file (see bot/config.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmime/gmime.h>

#include "bot/config.h"
#include "bot/mail.h"
#include "bot/reply.h"

static char *get_str(GKeyFile *kf, const char *group, const char *key,
		     const char *def)
{
	char *v = g_key_file_get_string(kf, group, key, NULL);

	if (v) {
		g_strstrip(v);
		if (*v)
			return v;
		g_free(v);
	}
	return g_strdup(def);
}

static bool get_int(GKeyFile *kf, const char *group, const char *key,
		    int def, int *out, char **err)
{
	GError *e = NULL;
	int v;

	if (!g_key_file_has_key(kf, group, key, NULL)) {
		*out = def;
		return true;
	}
	v = g_key_file_get_integer(kf, group, key, &e);
	if (e || v < 0) {
		*err = g_strdup_printf("[%s] %s: not a whole number >= 0", group, key);
		g_clear_error(&e);
		return false;
	}
	*out = v;
	return true;
}

static bool get_bool(GKeyFile *kf, const char *group, const char *key, bool def)
{
	GError *e = NULL;
	bool v;

	if (!g_key_file_has_key(kf, group, key, NULL))
		return def;
	v = g_key_file_get_boolean(kf, group, key, &e);
	if (e) {
		g_clear_error(&e);
		return def;
	}
	return v;
}

/* A ;- or ,-separated list, white space stripped, empties dropped. */
static char **get_list(GKeyFile *kf, const char *group, const char *key)
{
	char *v = g_key_file_get_string(kf, group, key, NULL);
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

static void list_release(struct pw_list_conf *l)
{
	g_free(l->name);
	g_strfreev(l->disabled);
	g_strfreev(l->enabled);
	g_free(l->address);
}

static void list_free(gpointer p)
{
	list_release(p);
	g_free(p);
}

static bool read_list(GKeyFile *kf, const char *group, const char *name,
		      struct pw_list_conf *l, char **err)
{
	char *style = get_str(kf, group, "style", "octal");
	size_t i;
	bool ok = true;

	l->name = g_strdup(name);
	if (!pw_style_parse(style, &l->style)) {
		*err = g_strdup_printf("[%s] style: '%s' is not octal, symbolic "
				       "or perm-macros", group, style);
		ok = false;
	}
	g_free(style);
	l->disabled = get_list(kf, group, "disable");
	l->enabled = get_list(kf, group, "enable");
	for (i = 0; ok && l->disabled[i]; i++)
		if (!pw_rule_find(l->disabled[i])) {
			*err = g_strdup_printf("[%s] disable: no rule '%s'",
					       group, l->disabled[i]);
			ok = false;
		}
	for (i = 0; ok && l->enabled[i]; i++)
		if (!pw_rule_find(l->enabled[i])) {
			*err = g_strdup_printf("[%s] enable: no rule '%s'",
					       group, l->enabled[i]);
			ok = false;
		}
	l->address = get_str(kf, group, "address", NULL);
	l->cc_list = get_bool(kf, group, "cc_list", false);
	l->cc_all = get_bool(kf, group, "cc_all", false);
	return ok;
}

/* Reads a whole configuration file and the status of that same file. */
static bool read_file(const char *path, char **text, size_t *len,
		      struct stat *sb, char **err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	GString *g;
	char buf[8192];
	ssize_t n;

	if (fd < 0 || fstat(fd, sb) < 0) {
		*err = g_strdup_printf("%s: %s", path, g_strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (!S_ISREG(sb->st_mode) || sb->st_size > (1 << 20)) {
		*err = g_strdup_printf("%s: not a regular file under 1 MiB", path);
		close(fd);
		return false;
	}
	g = g_string_new(NULL);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		g_string_append_len(g, buf, n);
	close(fd);
	if (n < 0) {
		*err = g_strdup_printf("%s: %s", path, g_strerror(errno));
		g_string_free(g, TRUE);
		return false;
	}
	*len = g->len;
	*text = g_string_free(g, FALSE);
	return true;
}

/*
 * [imap] and [imap NAME]: how to log in to a subscription's IMAP server.
 * The first entry of c->imap is [imap]; each [imap NAME] starts as a
 * copy of it and replaces the keys it sets.
 */
static bool is_imap_group(const char *g)
{
	return !strcmp(g, "imap") || !strncmp(g, "imap ", 5);
}

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
static void imap_key(GKeyFile *kf, const char *group, const char *key,
		     char **field)
{
	char *v = get_str(kf, group, key, NULL);

	if (!v)
		return;
	if (*field && !strcmp(key, "password"))
		memset(*field, 0, strlen(*field));
	g_free(*field);
	*field = v;
}

static bool imap_group(GKeyFile *kf, const char *group,
		       const struct pw_imap_conf *base,
		       struct pw_imap_conf *m, char **err)
{
	if (base) {
		m->user = g_strdup(base->user);
		m->password = g_strdup(base->password);
		m->starttls = g_strdup(base->starttls);
		m->cainfo = g_strdup(base->cainfo);
		m->timeout = base->timeout;
	}
	imap_key(kf, group, "user", &m->user);
	imap_key(kf, group, "password", &m->password);
	imap_key(kf, group, "starttls", &m->starttls);
	imap_key(kf, group, "cainfo", &m->cainfo);
	if (strcmp(m->starttls, "required") && strcmp(m->starttls, "try") &&
	    strcmp(m->starttls, "no")) {
		*err = g_strdup_printf("[%s] starttls: '%s' is not required, "
				       "try or no", group, m->starttls);
		return false;
	}
	if (!get_int(kf, group, "timeout", m->timeout, &m->timeout, err))
		return false;
	if (m->timeout < 1 || m->timeout > 3600) {
		*err = g_strdup_printf("[%s] timeout: seconds, 1 to 3600", group);
		return false;
	}
	return true;
}

/* Whether [imap] or an [imap NAME] sets a password. */
static bool imap_has_secret(GKeyFile *kf)
{
	char **groups = g_key_file_get_groups(kf, NULL);
	bool secret = false;
	size_t i;

	for (i = 0; !secret && groups[i]; i++)
		secret = is_imap_group(groups[i]) &&
			 g_key_file_has_key(kf, groups[i], "password", NULL);
	g_strfreev(groups);
	return secret;
}

static bool read_imap(GKeyFile *kf, struct pw_config *c, char **err)
{
	struct pw_imap_conf *d = g_new0(struct pw_imap_conf, 1);
	char **groups = g_key_file_get_groups(kf, NULL);
	bool ok;
	size_t i;

	c->imap = g_ptr_array_new_with_free_func(imap_conf_free);
	g_ptr_array_add(c->imap, d);
	d->name = g_strdup("");
	d->starttls = g_strdup("required");
	d->timeout = 60;
	ok = imap_group(kf, "imap", NULL, d, err);
	for (i = 0; ok && groups[i]; i++) {
		struct pw_imap_conf *m;

		if (strncmp(groups[i], "imap ", 5))
			continue;
		m = g_new0(struct pw_imap_conf, 1);
		g_ptr_array_add(c->imap, m);
		m->name = g_strstrip(g_strdup(groups[i] + 5));
		ok = imap_group(kf, groups[i], d, m, err);
	}
	g_strfreev(groups);
	return ok;
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

/* A password ([smtp], [imap], [imap NAME]), or a URL with user
 * information ("smtp://user:pw@host"). */
static bool has_secret(GKeyFile *kf)
{
	char *url;
	bool secret;

	if (g_key_file_has_key(kf, "smtp", "password", NULL) ||
	    g_key_file_has_key(kf, "web", "token", NULL))
		return true;
	if (imap_has_secret(kf))
		return true;
	url = g_key_file_get_string(kf, "smtp", "url", NULL);
	secret = url && strchr(url, '@');
	g_free(url);
	return secret;
}

/* [web]: the dashboard's address, token and body limit. */
static bool read_web(GKeyFile *kf, struct pw_config *c, char **err)
{
	int kib;

	c->web_listen = get_str(kf, "web", "listen", NULL);
	c->web_token = get_str(kf, "web", "token", NULL);
	if (c->web_token && strlen(c->web_token) < 16) {
		*err = g_strdup("[web] token: at least 16 characters");
		return false;
	}
	if (!get_int(kf, "web", "max_body", 10240, &kib, err))
		return false;
	if (kib < 1 || kib > 1024 * 1024) {
		*err = g_strdup("[web] max_body: KiB, 1 to 1048576");
		return false;
	}
	c->web_max_body = kib * 1024;
	return true;
}

static void set_defaults(struct pw_config *c, const char *db)
{
	c->web_max_body = 10240 * 1024;
	c->db_path = g_strdup(db ? db : "patchwarden.db");
	c->smtp_starttls = g_strdup("required");
	c->smtp_timeout = 60;
	c->fetch_timeout = 120;
	c->reply_min_severity = PW_SEV_WARNING;
	c->per_recipient_per_hour = 5;
	c->global_per_hour = 200;
	c->reply_max_age = 7 * 86400;
	c->flood_count = 20;
	c->flood_window = 3 * 24 * 3600;
	c->lists = g_ptr_array_new_with_free_func(list_free);
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

enum pw_status pw_config_load(const char *path, const char *db_override,
			      struct pw_config **out, char **err)
{
	struct pw_config *c = g_new0(struct pw_config, 1);
	GKeyFile *kf = NULL;
	GError *e = NULL;
	char **groups = NULL, *sev = NULL, *text = NULL;
	struct stat sb;
	size_t len = 0;
	size_t i;

	*out = NULL;
	*err = NULL;
	set_defaults(c, db_override);
	c->defaults.name = g_strdup("");
	c->defaults.disabled = g_new0(char *, 1);
	c->defaults.enabled = g_new0(char *, 1);
	if (!path) {
		read_from(c, "patchwarden@localhost");
		default_mbox(c);
		*out = c;
		return PW_OK;
	}
	c->path = g_strdup(path);
	/* Read the file through one descriptor, so that the mode checked
	 * is the mode of the bytes read. */
	if (!read_file(path, &text, &len, &sb, err))
		goto fail;
	kf = g_key_file_new();
	if (!g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &e)) {
		*err = g_strdup_printf("%s: %s", path, e->message);
		g_error_free(e);
		goto fail;
	}
	if (has_secret(kf) && ((sb.st_mode & 077) || sb.st_uid != geteuid())) {
		*err = g_strdup_printf("%s: holds a secret but %s (mode %04o); "
				       "chmod 600 it and own it", path,
				       (sb.st_mode & 077) ? "group or others can read it" :
				       "belongs to another user",
				       (unsigned)(sb.st_mode & 07777));
		goto fail;
	}
	if (!db_override) {
		g_free(c->db_path);
		c->db_path = get_str(kf, "core", "db", "patchwarden.db");
	}
	c->mirrors = get_str(kf, "core", "mirrors", NULL);
	if (!get_int(kf, "core", "fetch_timeout", 120, &c->fetch_timeout, err))
		goto fail;
	if (c->fetch_timeout < 1) {
		*err = g_strdup_printf("%s: [core] fetch_timeout is seconds, at"
				       " least 1", path);
		goto fail;
	}
	c->smtp_url = get_str(kf, "smtp", "url", NULL);
	c->smtp_from = get_str(kf, "smtp", "from", NULL);
	c->smtp_user = get_str(kf, "smtp", "user", NULL);
	c->smtp_password = get_str(kf, "smtp", "password", NULL);
	g_free(c->smtp_starttls);
	c->smtp_starttls = get_str(kf, "smtp", "starttls", "required");
	if (strcmp(c->smtp_starttls, "required") && strcmp(c->smtp_starttls, "try") &&
	    strcmp(c->smtp_starttls, "no")) {
		*err = g_strdup_printf("%s: [smtp] starttls: '%s' is not required, "
				       "try or no", path, c->smtp_starttls);
		goto fail;
	}
	c->smtp_helo = get_str(kf, "smtp", "helo", NULL);
	c->smtp_cainfo = get_str(kf, "smtp", "cainfo", NULL);
	if (!get_int(kf, "smtp", "timeout", 60, &c->smtp_timeout, err))
		goto fail;

	c->dry_run_mbox = get_str(kf, "reply", "dry_run_mbox", NULL);
	c->reply_from_name = get_str(kf, "reply", "from_name", NULL);
	c->reply_to = get_str(kf, "reply", "reply_to", NULL);
	c->dashboard_url = get_str(kf, "reply", "dashboard_url", NULL);
	sev = get_str(kf, "reply", "min_severity", "warning");
	if (!pw_severity_parse(sev, &c->reply_min_severity)) {
		*err = g_strdup_printf("%s: [reply] min_severity: '%s' is not "
				       "info, warning or error", path, sev);
		goto fail;
	}
	if (!get_int(kf, "reply", "per_recipient_per_hour", 5,
		     &c->per_recipient_per_hour, err) ||
	    !get_int(kf, "reply", "global_per_hour", 200, &c->global_per_hour, err) ||
	    !get_int(kf, "reply", "max_age", 7, &c->reply_max_age, err) ||
	    !get_int(kf, "flood", "count", 20, &c->flood_count, err) ||
	    !get_int(kf, "flood", "window", 3 * 24 * 3600, &c->flood_window, err))
		goto fail;
	if (c->reply_max_age < 0 || c->reply_max_age > 36500) {
		*err = g_strdup_printf("%s: [reply] max_age is days, 0 to 36500", path);
		goto fail;
	}
	c->reply_max_age *= 86400;
	if (c->smtp_url && !c->smtp_from) {
		*err = g_strdup_printf("%s: [smtp] url is set but [smtp] from is "
				       "not: replies need a real sender address", path);
		goto fail;
	}
	if (!read_from(c, c->smtp_from ? c->smtp_from : "patchwarden@localhost")) {
		*err = g_strdup_printf("%s: [smtp] from = %s: not one mail address"
				       " (\"Name <addr>\" or addr)", path,
				       c->smtp_from);
		goto fail;
	}
	if (c->flood_count < 2) {
		*err = g_strdup_printf("%s: [flood] count must be at least 2", path);
		goto fail;
	}
	c->automated_senders = get_list(kf, "reply", "automated_senders");
	if (!read_imap(kf, c, err))
		goto fail;
	if (!read_web(kf, c, err))
		goto fail;

	groups = g_key_file_get_groups(kf, NULL);
	for (i = 0; groups[i]; i++) {
		struct pw_list_conf *l;

		if (strncmp(groups[i], "list ", 5))
			continue;
		l = g_new0(struct pw_list_conf, 1);
		g_ptr_array_add(c->lists, l);
		if (!read_list(kf, groups[i], g_strstrip(groups[i] + 5), l, err))
			goto fail;
	}
	default_mbox(c);
	g_strfreev(groups);
	g_free(sev);
	g_free(text);
	g_key_file_free(kf);
	*out = c;
	return PW_OK;
fail:
	if (*err && !g_str_has_prefix(*err, path)) {
		char *m = g_strdup_printf("%s: %s", path, *err);

		g_free(*err);
		*err = m;
	}
	g_strfreev(groups);
	g_free(sev);
	g_free(text);
	if (kf)
		g_key_file_free(kf);
	pw_config_free(c);
	return PW_ERR_USAGE;
}

void pw_config_free(struct pw_config *c)
{
	if (!c)
		return;
	g_free(c->path);
	g_free(c->db_path);
	g_free(c->mirrors);
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
	g_strfreev(c->automated_senders);
	g_free(c->web_listen);
	if (c->web_token)
		memset(c->web_token, 0, strlen(c->web_token));
	g_free(c->web_token);
	if (c->lists)
		g_ptr_array_free(c->lists, TRUE);
	if (c->imap)
		g_ptr_array_free(c->imap, TRUE);
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

void pw_config_check_opts(const struct pw_list_conf *l, struct pw_check_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->style = l->style;
	o->disabled = (const char *const *)l->disabled;
	o->enabled = (const char *const *)l->enabled;
}
