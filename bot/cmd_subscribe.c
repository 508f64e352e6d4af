/*
 * patchwarden subscribe [--db PATH] [--config FILE] add NAME URL|PATH
 *                       [--list LIST-ID] [--interval DURATION]
 * patchwarden subscribe list [--format text|json|csv]
 * patchwarden subscribe remove|pause|resume NAME
 *
 * The lists the service polls: public-inbox archives by URL
 * (https://lore.kernel.org/LIST/) or path, IMAP mailboxes
 * (imaps://host/MAILBOX), Maildirs.  A new subscription's existing mail
 * is backfill on its first poll: stored and checked, never answered.
 * Exit status (README.md, "Exit status"): 0 done; 2 usage, a name that
 * exists already or is no subscription, a URL or path that is no
 * source; 75 (EX_TEMPFAIL) the configuration could not be read or was
 * refused, or the store could not be opened or failed.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/printer.h"
#include "bot/subscription.h"

#define DEFAULT_INTERVAL 300	/* seconds */

/* A time, or null for never (0). */
static void time_at(struct pw_printer *p, const char *key, int64_t t)
{
	if (t)
		pw_print_time_at(p, key, t);
	else
		pw_print_str_at(p, key, NULL);
}

static void sub_print(struct pw_printer *p, const struct pw_subscription *s,
		      int stale_after, int64_t now)
{
	char iv[32], *why;
	const char *state = pw_subscription_state(s, stale_after, now, &why, NULL);

	g_snprintf(iv, sizeof(iv), "%" G_GINT64_FORMAT "s", s->interval);
	pw_print_begin_record(p);
	pw_print_str_at(p, "name", s->name);
	pw_print_str_at(p, "kind", s->kind);
	pw_print_str_at(p, "url", s->url);
	pw_print_str_at(p, "list", s->list);
	pw_print_str_at(p, "state", state);
	pw_print_str_at(p, "reason", why);
	pw_print_int_at(p, "interval", s->interval);
	pw_print_str_at(p, "every", iv);
	pw_print_bool_at(p, "paused", s->paused);
	pw_print_bool_at(p, "backfilled", s->backfilled);
	pw_print_int_at(p, "messages", s->messages);
	pw_print_int_at(p, "unreadable", s->unreadable);
	time_at(p, "last_poll", s->last_poll);
	time_at(p, "last_ok", s->last_ok);
	time_at(p, "next_poll", s->next_poll);
	pw_print_int_at(p, "failures", s->failures);
	pw_print_str_at(p, "last_error", s->last_error);
	pw_print_end(p);
	g_free(why);
}

static int list(struct pw_db *db, const struct pw_config *cfg, enum pw_format f)
{
	int64_t now = (int64_t)time(NULL);
	struct pw_printer *p;
	GPtrArray *subs;
	guint i;

	if (pw_db_subscription_list(db, &subs)) {
		pw_error("%s", pw_db_errmsg(db));
		g_ptr_array_free(subs, TRUE);
		return EX_TEMPFAIL;
	}
	p = pw_printer_new(f, stdout,
			   "%(name:-16) %(kind:-12) %(state:-8) every %(every:-7)"
			   " %(messages) messages%(if:unreadable), %(unreadable)"
			   " unreadable ('query errors')%(end), last poll %(if:last_poll)"
			   "%(last_poll)%(else)never%(end)\n"
			   "  %(url)%(if:list) (list %(list))%(end)\n"
			   "  %(state): %(reason)\n", 0);
	pw_print_begin_list(p);
	for (i = 0; i < subs->len; i++)
		sub_print(p, subs->pdata[i], cfg->web_stale_after, now);
	pw_print_end(p);
	pw_printer_free(p);
	if (!subs->len && f == PW_FORMAT_TEXT)
		fprintf(stderr, "no subscriptions: 'patchwarden subscribe add NAME URL'\n");
	g_ptr_array_free(subs, TRUE);
	return 0;
}

static int add(struct pw_db *db, const struct pw_config *cfg, char **args,
	       int n, const char *list_id, const char *interval)
{
	struct pw_subscription s = { 0 };
	char *resolved = NULL, *err = NULL;
	const char *kind;
	enum pw_status st;
	int rc = 2;

	if (n != 2) {
		fprintf(stderr, "patchwarden subscribe add: give NAME and URL|PATH\n");
		return 2;
	}
	if (!pw_subscription_name_ok(args[0])) {
		fprintf(stderr, "patchwarden subscribe add: '%s': a name is letters,"
			" digits, '.', '-', '_' (64 at most), beginning with a"
			" letter or digit\n", args[0]);
		return 2;
	}
	s.interval = DEFAULT_INTERVAL;
	if (interval && !pw_duration_parse(interval, &s.interval)) {
		fprintf(stderr, "patchwarden subscribe add: --interval '%s': give"
			" seconds, or N followed by s, m, h or d (1s to 30d)\n",
			interval);
		return 2;
	}
	kind = pw_subscription_kind(args[1], &resolved, &err);
	if (!kind) {
		fprintf(stderr, "patchwarden subscribe add: %s\n", err);
		g_free(err);
		return 2;
	}
	s.name = args[0];
	s.url = resolved;
	s.kind = (char *)kind;
	s.list = (char *)list_id;
	st = pw_db_begin(db);
	if (!st)
		st = pw_db_subscription_add(db, &s, NULL);
	if (!st)
		st = pw_db_commit(db);
	if (st == PW_ERR_INPUT) {
		pw_db_rollback(db);
		fprintf(stderr, "patchwarden subscribe add: '%s' exists already"
			" ('subscribe list')\n", s.name);
	} else if (st) {
		pw_db_rollback(db);
		pw_error("%s", pw_db_errmsg(db));
		rc = EX_TEMPFAIL;
	} else {
		printf("subscribed %s: %s %s, polled every %" G_GINT64_FORMAT
		       "s; its first poll is backfill (stored, never answered)\n",
		       s.name, kind, resolved, s.interval);
		/* A new list's mail is off until its section says who gets
		 * it ([list NAME] mail): say so now, not at the first reply. */
		if (!list_id)
			printf("replies to its mail: as its List-Id's [list NAME]"
			       " mail says; off without one\n");
		else if (pw_config_list(cfg, list_id)->mail == PW_MAIL_OFF)
			printf("replies to its mail: off until [list %s] mail is"
			       " set (patchwarden.conf(5))\n", list_id);
		rc = 0;
	}
	g_free(resolved);
	return rc;
}

/* remove, pause, resume */
static int change(struct pw_db *db, const char *what, char **args, int n)
{
	enum pw_status st;
	bool found = false;

	if (n != 1) {
		fprintf(stderr, "patchwarden subscribe %s: give one NAME\n", what);
		return 2;
	}
	st = pw_db_begin(db);
	if (!st && !strcmp(what, "remove"))
		st = pw_db_subscription_remove(db, args[0], &found);
	else if (!st)
		st = pw_db_subscription_pause(db, args[0], !strcmp(what, "pause"),
					      &found);
	if (!st)
		st = pw_db_commit(db);
	if (st) {
		pw_db_rollback(db);
		pw_error("%s", pw_db_errmsg(db));
		return EX_TEMPFAIL;
	}
	if (!found) {
		fprintf(stderr, "patchwarden subscribe %s: no subscription '%s'\n",
			what, args[0]);
		return 2;
	}
	if (!strcmp(what, "remove"))
		printf("removed %s; the messages it brought stay stored\n", args[0]);
	else
		printf("%s %s\n", !strcmp(what, "pause") ? "paused" : "resumed", args[0]);
	return 0;
}

int pw_cmd_subscribe(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *format = NULL, *list_id = NULL,
	     *interval = NULL;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "list", 'l', 0, G_OPTION_ARG_STRING, &list_id, "add: file its messages under this list (default: their List-Id)", "LIST-ID" },
		{ "interval", 'i', 0, G_OPTION_ARG_STRING, &interval, "add: poll every DURATION (90, 30s, 5m, 2h, 1d; default 5m)", "DURATION" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "list: text (default), json or csv", "FORMAT" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	static const char *const verbs[] = { "add", "list", "remove", "pause",
					     "resume" };
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	enum pw_format f;
	const char *verb;
	size_t i;
	int rc = 2;

	if (!pw_cli_parse("subscribe", "add NAME URL|PATH | list | remove NAME |"
			  " pause NAME | resume NAME", entries, &argc, &argv))
		goto out;
	verb = argc > 1 ? argv[1] : "list";
	for (i = 0; i < G_N_ELEMENTS(verbs); i++)
		if (!strcmp(verb, verbs[i]))
			break;
	if (i == G_N_ELEMENTS(verbs)) {
		fprintf(stderr, "patchwarden subscribe: '%s' is not add, list,"
			" remove, pause or resume\n", verb);
		goto out;
	}
	if (!pw_format_parse(format, true, &f)) {
		fprintf(stderr, "patchwarden subscribe: --format is text, json or csv\n");
		goto out;
	}
	if ((list_id || interval) && strcmp(verb, "add")) {
		fprintf(stderr, "patchwarden subscribe: --list and --interval are"
			" for add\n");
		goto out;
	}
	if (!pw_cli_open(config, db_path, false, &cfg, &db)) {
		rc = EX_TEMPFAIL;
		goto out;
	}
	if (!strcmp(verb, "list"))
		rc = list(db, cfg, f);
	else if (!strcmp(verb, "add"))
		rc = add(db, cfg, argv + 2, argc - 2, list_id, interval);
	else
		rc = change(db, verb, argv + 2, argc - 2);
out:
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(format);
	g_free(list_id);
	g_free(interval);
	return rc;
}
