/*
 * patchwarden config check [--config FILE]
 *
 * Prints the settings in effect, as key = value lines under their
 * sections (secrets shown as "(set)", never themselves), then every
 * note (a deprecated key, which still works) and every problem of the
 * file as "FILE:LINE: message".  Exit status: 0 no
 * problem, 1 problems, 2 a usage error or a FILE that cannot be read.
 */
#include <stdio.h>
#include <string.h>

#include "bot/cli.h"
#include "bot/cmd.h"

static void str(const char *key, const char *v)
{
	printf("%s = %s\n", key, v ? v : "(not set)");
}

static void secret(const char *key, const char *v)
{
	printf("%s = %s\n", key, v ? "(set)" : "(not set)");
}

static void num(const char *key, int v)
{
	printf("%s = %d\n", key, v);
}

static void flag(const char *key, bool v)
{
	printf("%s = %s\n", key, v ? "true" : "false");
}

static void strv(const char *key, char **v)
{
	char *s = v ? g_strjoinv("; ", v) : g_strdup("");

	printf("%s = %s\n", key, s);
	g_free(s);
}

/* The SMTP URL without its password, as the service logs it. */
static void url(const char *key, const char *v)
{
	GUri *u = v ? g_uri_parse(v, G_URI_FLAGS_HAS_PASSWORD, NULL) : NULL;
	char *s;

	if (!v) {
		printf("%s = (not set: replies go to the dry-run mbox)\n", key);
		return;
	}
	if (!u) {
		printf("%s = (set, but not a URL)\n", key);
		return;
	}
	s = g_uri_to_string_partial(u, G_URI_HIDE_PASSWORD);
	printf("%s = %s\n", key, s);
	g_free(s);
	g_uri_unref(u);
}

static void imap(const struct pw_imap_conf *m)
{
	if (*m->name)
		printf("\n[imap %s]\n", m->name);
	else
		printf("\n[imap]\n");
	str("user", m->user);
	secret("password", m->password);
	str("starttls", m->starttls);
	str("cainfo", m->cainfo);
	num("timeout", m->timeout);
}

static void list(const struct pw_list_conf *l)
{
	if (*l->name)
		printf("\n[list %s]\n", l->name);
	else
		printf("\n[list *]\n# every other list, and mail on no list\n");
	str("style", pw_style_str(l->style));
	strv("disable", l->disabled);
	strv("enable", l->enabled);
	str("address", l->address);
	str("mail", pw_mail_mode_str(l->mail));
	if (l->mail == PW_MAIL_AUTHOR_CC && !(l->cc_list && l->cc_all)) {
		/* Only the deprecated keys say this. */
		flag("cc_list", l->cc_list);
		flag("cc_all", l->cc_all);
	}
	strv("maintainer", l->maintainer_addrs);
	str("maintainers", l->maintainers_file);
	flag("cc_maintainers", l->cc_maintainers);
	flag("digest", l->digest);
	if (l->tree) {
		char *t = g_strconcat(l->tree, ", ", l->tree_branch, NULL);

		str("tree", t);
		g_free(t);
	}
}

static void patchwork(const struct pw_patchwork_conf *w)
{
	printf("\n[patchwork %s]\n", w->name);
	str("url", w->url);
	str("project", w->project);
	secret("token", w->token);
	strv("lists", w->lists);
	str("context", w->context);
	str("min_severity", pw_severity_str(w->min_severity));
	num("max_attempts", w->max_attempts);
	num("timeout", w->timeout);
}

static void print(const struct pw_config *c)
{
	guint i;

	printf("# settings in effect: %s\n", c->path ? c->path :
	       "the built-in defaults, no file");
	printf("[core]\n");
	str("db", c->db_path);
	str("mirrors", c->mirrors);
	num("fetch_timeout", c->fetch_timeout);
	num("max_findings", c->max_findings);
	str("credentials", c->credentials);
	str("dkim_keys", c->dkim_keys);
	str("dkim", c->dkim_optional ? "optional" : "required");

	printf("\n[smtp]\n");
	url("url", c->smtp_url);
	str("from", c->smtp_from ? c->smtp_from : c->from_addr);
	str("user", c->smtp_user);
	secret("password", c->smtp_password);
	str("starttls", c->smtp_starttls);
	str("helo", c->smtp_helo);
	num("timeout", c->smtp_timeout);
	str("cainfo", c->smtp_cainfo);

	printf("\n[reply]\n");
	str("dry_run_mbox", c->dry_run_mbox);
	str("from_name", c->reply_from_name);
	str("reply_to", c->reply_to);
	str("min_severity", pw_severity_str(c->reply_min_severity));
	num("per_recipient_per_hour", c->per_recipient_per_hour);
	num("global_per_hour", c->global_per_hour);
	num("max_age", c->reply_max_age / 86400);
	strv("automated_senders", c->automated_senders);

	printf("\n[flood]\n");
	flag("detect", c->flood_detect);
	num("count", c->flood_count);
	num("window", c->flood_window);

	for (i = 0; c->imap && i < c->imap->len; i++)
		imap(c->imap->pdata[i]);
	if (!c->imap)
		imap(pw_config_imap(c, NULL));

	printf("\n[web]\n");
	str("listen", c->web_listen ? c->web_listen :
	    "(not set: the service serves no dashboard; serve listens on 127.0.0.1:8080)");
	secret("token", c->web_token);
	num("max_body", c->web_max_body / 1024);
	str("url", c->dashboard_url);
	if (c->web_stale_after)
		num("stale_after", c->web_stale_after);
	else
		str("stale_after", "(0: three of each subscription's intervals,"
		    " at least 600 s)");

	for (i = 0; i < c->lists->len; i++)
		list(c->lists->pdata[i]);
	for (i = 0; i < c->patchwork->len; i++)
		patchwork(c->patchwork->pdata[i]);
	list(&c->defaults);
}

int pw_cmd_config(int argc, char **argv)
{
	char *config = NULL;
	GOptionEntry entries[] = {
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GPtrArray *problems = g_ptr_array_new_with_free_func(g_free);
	struct pw_config *cfg = NULL;
	enum pw_status st;
	int rc = 2;
	guint i;

	if (!pw_cli_parse("config", "check", entries, &argc, &argv))
		goto out;
	if (argc != 2 || strcmp(argv[1], "check")) {
		fprintf(stderr, "usage: patchwarden config check [--config FILE]\n");
		goto out;
	}
	st = pw_config_check(config, NULL, &cfg, problems);
	if (st == PW_ERR_IO) {
		for (i = 0; i < problems->len; i++)
			fprintf(stderr, "patchwarden config: %s\n",
				(const char *)problems->pdata[i]);
		goto out;
	}
	if (cfg) {
		GList *l;

		print(cfg);
		if (problems->len || cfg->notes)
			printf("\n");
		/* Notes (a deprecated key) stop nothing: exit status 0. */
		for (l = cfg->notes; l; l = l->next)
			printf("%s\n", (const char *)l->data);
	}
	for (i = 0; i < problems->len; i++)
		printf("%s\n", (const char *)problems->pdata[i]);
	rc = problems->len ? 1 : 0;
out:
	pw_config_free(cfg);
	g_ptr_array_free(problems, TRUE);
	g_free(config);
	return rc;
}
