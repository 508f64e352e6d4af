/*
 * patchwarden triage [--db PATH] [--config FILE] ACTION ARGS [options]
 *
 *   wrong FINDING_ID|MESSAGE-ID [--rule R]   the finding (or the
 *                  message's findings, of rule R) are wrong
 *   ignore RULE [--path GLOB] [--list NAME]  the rule is off there
 *   recheck MESSAGE-ID                       check the message again
 *   stop ADDR [--list NAME]                  no more replies to ADDR
 *   undo DECISION_ID                         take a decision back
 *
 * Every action takes --by ADDR (who decides; default: the login name)
 * and --reason TEXT.  A decision is honoured by every later check and
 * reply (db/decision.h); "query decisions" lists them.  Exit status: 0
 * done, 2 usage or a decision that names nothing stored, 75 the store
 * cannot be opened or written.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "bot/cli.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/triage.h"

static const char usage_text[] =
	"usage: patchwarden triage [--db PATH] [--config FILE] ACTION ARGS [--by ADDR] [--reason TEXT]\n"
	"  wrong FINDING_ID|MESSAGE-ID [--rule R]\n"
	"  ignore RULE [--path GLOB] [--list NAME]\n"
	"  recheck MESSAGE-ID\n"
	"  stop ADDR [--list NAME]\n"
	"  undo DECISION_ID\n";

/* Whether s is a whole number from 1 up: *n receives it. */
static bool number(const char *s, int64_t *n)
{
	guint64 v;

	if (!s || !*s || !g_ascii_isdigit(*s) ||
	    !g_ascii_string_to_unsigned(s, 10, 1, G_MAXINT64, &v, NULL))
		return false;
	*n = (int64_t)v;
	return true;
}

/* Undoes decision argument id. */
static int undo(struct pw_db *db, const struct pw_config *cfg,
		const char *arg, const char *by)
{
	struct pw_decision *d = NULL;
	enum pw_status s;
	int64_t id;
	bool found;

	if (!number(arg, &id)) {
		fprintf(stderr, "patchwarden triage: undo: '%s' is not a"
			" decision id\n", arg);
		return 2;
	}
	s = pw_triage_undo(db, cfg, id, by, &found);
	if (!s && found)
		s = pw_db_decision_get(db, id, &d);
	if (s) {
		pw_error("%s", pw_db_errmsg(db));
		return EX_TEMPFAIL;
	}
	if (!found) {
		fprintf(stderr, "patchwarden triage: no live decision %s\n", arg);
		return 2;
	}
	printf("decision %" G_GINT64_FORMAT " undone: %s %s\n", (gint64)id,
	       pw_decision_kind_name(d->kind), d->msgid ? d->msgid :
	       d->rule ? d->rule : d->addr ? d->addr : "");
	pw_decision_free(d);
	return 0;
}

int pw_cmd_triage(int argc, char **argv)
{
	char *db_path = NULL, *config = NULL, *rule = NULL, *by = NULL;
	char *reason = NULL, *path = NULL, *list = NULL, *err = NULL;
	GOptionEntry entries[] = {
		{ "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "database file", "PATH" },
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "configuration file", "FILE" },
		{ "by", 0, 0, G_OPTION_ARG_STRING, &by, "who decides (an address; default: the login name)", "ADDR" },
		{ "reason", 0, 0, G_OPTION_ARG_STRING, &reason, "why, kept with the decision", "TEXT" },
		{ "rule", 0, 0, G_OPTION_ARG_STRING, &rule, "wrong: only the findings of this rule", "R" },
		{ "path", 0, 0, G_OPTION_ARG_STRING, &path, "ignore: only in files matching this glob", "GLOB" },
		{ "list", 0, 0, G_OPTION_ARG_STRING, &list, "ignore, stop: only on this list", "NAME" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	struct pw_decision d;
	struct pw_config *cfg = NULL;
	struct pw_db *db = NULL;
	enum pw_status s;
	int64_t id, covered, finding;
	bool named = false;
	int rc = 2;

	memset(&d, 0, sizeof(d));
	if (!pw_cli_parse("triage", "ACTION ARGS", entries, &argc, &argv))
		goto out;
	if (argc != 3) {
		fputs(usage_text, stderr);
		goto out;
	}
	if (!pw_decision_kind_parse(argv[1], &d.kind) &&
	    strcmp(argv[1], "undo")) {
		fprintf(stderr, "patchwarden triage: '%s' is not an action\n%s",
			argv[1], usage_text);
		goto out;
	}
	if ((rule && strcmp(argv[1], "wrong")) ||
	    (path && strcmp(argv[1], "ignore")) ||
	    (list && strcmp(argv[1], "ignore") && strcmp(argv[1], "stop"))) {
		fprintf(stderr, "patchwarden triage: %s takes no --%s\n", argv[1],
			rule && strcmp(argv[1], "wrong") ? "rule" :
			path && strcmp(argv[1], "ignore") ? "path" : "list");
		goto out;
	}
	if (!by)
		by = g_strdup(g_get_user_name());
	if (!pw_cli_open(config, db_path, false, &cfg, &db)) {
		rc = EX_TEMPFAIL;
		goto out;
	}
	if (!strcmp(argv[1], "undo")) {
		rc = undo(db, cfg, argv[2], by);
		goto out;
	}
	d.by = by;
	d.via = (char *)"cli";
	d.reason = reason;
	d.list = list;
	d.path = path;
	switch (d.kind) {
	case PW_DECISION_WRONG:
		if (number(argv[2], &finding)) {
			if (rule) {
				fprintf(stderr, "patchwarden triage: wrong: a"
					" finding takes no --rule\n");
				goto out;
			}
			s = pw_triage_name_finding(db, finding, &d, &err);
			if (s) {
				fprintf(stderr, "patchwarden triage: %s\n", err);
				rc = s == PW_ERR_INPUT ? 2 : EX_TEMPFAIL;
				goto out;
			}
			named = true;
		} else {
			d.msgid = argv[2];
			d.rule = rule;
		}
		break;
	case PW_DECISION_IGNORE:
		d.rule = argv[2];
		break;
	case PW_DECISION_RECHECK:
		d.msgid = argv[2];
		break;
	case PW_DECISION_STOP:
		d.addr = argv[2];
		break;
	}
	s = pw_triage_take(db, cfg, &d, &id, &covered, &err);
	if (s) {
		fprintf(stderr, "patchwarden triage: %s\n", err);
		rc = s == PW_ERR_INPUT ? 2 : EX_TEMPFAIL;
		goto out;
	}
	printf("decision %" G_GINT64_FORMAT ": %s, covering %" G_GINT64_FORMAT
	       " stored finding%s\n", (gint64)id, argv[1], (gint64)covered,
	       covered == 1 ? "" : "s");
	rc = 0;
out:
	if (named) {
		g_free(d.msgid);
		g_free(d.rule);
		g_free(d.file);
	}
	pw_db_close(db);
	pw_config_free(cfg);
	g_free(db_path);
	g_free(config);
	g_free(rule);
	g_free(by);
	g_free(reason);
	g_free(path);
	g_free(list);
	g_free(err);
	return rc;
}
