/*
 * patchwarden: taking and showing decisions (see bot/triage.h).
 */
#include <string.h>

#include "bot/patchwork.h"
#include "bot/recheck.h"
#include "bot/triage.h"
#include "db/outbox.h"
#include "checks/rules.h"

/* A Message-ID as given: "<id>" or "id"; a new string without <>. */
static char *bare_msgid(const char *s)
{
	size_t n = strlen(s);

	if (n > 2 && s[0] == '<' && s[n - 1] == '>')
		return g_strndup(s + 1, n - 2);
	return g_strdup(s);
}

/* What d needs to name, checked against the store. */
static enum pw_status check(struct pw_db *db, const struct pw_decision *d,
			    int64_t *message_id, int64_t *patch_id, char **err)
{
	enum pw_status s;
	bool found;
	char *id;

	*message_id = *patch_id = 0;
	switch (d->kind) {
	case PW_DECISION_IGNORE:
		if (!d->rule || !pw_rule_find(d->rule)) {
			*err = g_strdup_printf("ignore: no rule '%s'",
					       d->rule ? d->rule : "");
			return PW_ERR_INPUT;
		}
		return PW_OK;
	case PW_DECISION_STOP:
		if (!d->addr || !strchr(d->addr, '@') ||
		    strpbrk(d->addr, " \t\r\n<>")) {
			*err = g_strdup("stop: not one mail address");
			return PW_ERR_INPUT;
		}
		return PW_OK;
	case PW_DECISION_WRONG:
	case PW_DECISION_RECHECK:
		break;
	}
	if (d->rule && !pw_rule_find(d->rule)) {
		*err = g_strdup_printf("no rule '%s'", d->rule);
		return PW_ERR_INPUT;
	}
	if (!d->msgid) {
		*err = g_strdup("which message?");
		return PW_ERR_INPUT;
	}
	id = bare_msgid(d->msgid);
	s = pw_db_message_find(db, id, message_id, &found);
	g_free(id);
	if (!s && found)
		s = pw_db_decision_patch_of(db, *message_id, patch_id);
	if (s)
		return s;
	if (!found || !*patch_id) {
		char *shown = g_utf8_make_valid(d->msgid, -1);

		*err = g_strdup_printf(found ? "<%s> carries no patch" :
				       "no stored message has the Message-ID <%s>",
				       shown);
		g_free(shown);
		return PW_ERR_INPUT;
	}
	return PW_OK;
}

/*
 * Suppresses the pending replies that decision id left with nothing to
 * say: a finding marked wrong or ignored is not replied about, also
 * when the reply was written before.
 */
static enum pw_status moot(struct pw_db *db, const struct pw_config *cfg,
			   int64_t id)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	enum pw_status s;
	char *why = g_strdup_printf("every finding it is about was marked wrong"
				    " or ignored (decision %" G_GINT64_FORMAT ")",
				    (gint64)id);
	int changed;
	guint i;

	s = pw_db_decision_moot_replies(db, (int)cfg->reply_min_severity, ids);
	for (i = 0; !s && i < ids->len; i++)
		s = pw_db_outbox_supersede(db, g_array_index(ids, int64_t, i),
					   why, &changed);
	g_array_unref(ids);
	g_free(why);
	return s;
}

/*
 * Re-queues the Patchwork checks decision id (undone when undone)
 * changed.
 */
static enum pw_status repost(struct pw_db *db, const struct pw_config *cfg,
			     int64_t id, bool undone)
{
	char *why = g_strdup_printf("posted again: decision %" G_GINT64_FORMAT
				    "%s changed the findings counted",
				    (gint64)id, undone ? ", undone," : "");
	enum pw_status s;
	int n;

	s = pw_patchwork_requeue_changed(db, cfg, why, &n);
	g_free(why);
	return s;
}

enum pw_status pw_triage_take(struct pw_db *db, const struct pw_config *cfg,
			      const struct pw_decision *d, int64_t *id,
			      int64_t *covered, char **err)
{
	struct pw_decision stored = *d;
	int64_t message_id, patch_id, n = 0;
	enum pw_status s;

	*err = NULL;
	*id = 0;
	if (covered)
		*covered = 0;
	/* Checked before the transaction: a decision that names nothing
	 * must not fail the caller's (ingest's batch, for mail). */
	s = check(db, d, &message_id, &patch_id, err);
	if (!s)
		s = pw_db_begin(db);
	if (s) {
		if (!*err)
			*err = g_strdup(pw_db_errmsg(db));
		return s;
	}
	stored.msgid = d->msgid ? bare_msgid(d->msgid) : NULL;
	s = pw_db_decision_add(db, &stored, id, covered);
	g_free(stored.msgid);
	if (!s && d->kind == PW_DECISION_RECHECK)
		s = pw_recheck_patch(db, cfg, patch_id, message_id, &n);
	if (!s && d->kind != PW_DECISION_STOP)
		s = moot(db, cfg, *id);
	if (!s && d->kind != PW_DECISION_STOP)
		s = repost(db, cfg, *id, false);
	if (!s)
		s = pw_db_commit(db);
	if (s) {
		pw_db_rollback(db);
		if (!*err)
			*err = g_strdup(pw_db_errmsg(db));
	}
	return s;
}

enum pw_status pw_triage_undo(struct pw_db *db, const struct pw_config *cfg,
			      int64_t id, const char *by, bool *found)
{
	enum pw_status s = pw_db_begin(db);

	*found = false;
	if (!s)
		s = pw_db_decision_undo(db, id, by, found);
	if (!s && *found)
		s = repost(db, cfg, id, true);
	if (!s)
		s = pw_db_commit(db);
	if (s)
		pw_db_rollback(db);
	return s;
}

enum pw_status pw_triage_name_finding(struct pw_db *db, int64_t id,
				      struct pw_decision *d, char **err)
{
	struct pw_finding_ref r;
	enum pw_status s;
	bool found;

	*err = NULL;
	s = pw_db_decision_finding(db, id, &r, &found);
	if (s) {
		*err = g_strdup(pw_db_errmsg(db));
		return s;
	}
	if (!found) {
		*err = g_strdup_printf("no finding %" G_GINT64_FORMAT, (gint64)id);
		return PW_ERR_INPUT;
	}
	d->finding = id;
	d->msgid = r.msgid;
	d->rule = r.rule;
	d->file = r.file;
	d->line = r.line;
	r.msgid = r.rule = r.file = NULL;
	pw_finding_ref_release(&r);
	return PW_OK;
}

const char pw_triage_layout[] =
	"%(id) %(kind) %(scope) by %(by) %(at) via %(via)"
	"%(if:via_msgid) <%(via_msgid)>%(end)"
	"%(if:undone_at) undone by %(undone_by) %(undone_at)%(end)"
	" covers=%(covers)%(if:reason): %(reason)%(end)\n";

char *pw_triage_scope(const struct pw_decision *d)
{
	GString *g = g_string_new(NULL);

	switch (d->kind) {
	case PW_DECISION_WRONG:
		if (d->rule)
			g_string_append_printf(g, "%s ", d->rule);
		g_string_append(g, d->rule ? "findings" : "the findings");
		if (d->file)
			g_string_append_printf(g, " at %s:%d", d->file, d->line);
		g_string_append_printf(g, " of <%s>", d->msgid ? d->msgid : "");
		break;
	case PW_DECISION_IGNORE:
		g_string_append_printf(g, "%s in %s on %s", d->rule ? d->rule : "",
				       d->path ? d->path : "every file",
				       d->list ? d->list : "every list");
		break;
	case PW_DECISION_RECHECK:
		g_string_append_printf(g, "<%s>", d->msgid ? d->msgid : "");
		break;
	case PW_DECISION_STOP:
		g_string_append_printf(g, "replies to %s on %s",
				       d->addr ? d->addr : "",
				       d->list ? d->list : "every list");
		break;
	}
	return g_string_free(g, FALSE);
}

void pw_triage_print(struct pw_printer *p, const struct pw_decision *d)
{
	char *scope = pw_triage_scope(d);

	pw_print_begin_record(p);
	pw_print_int_at(p, "id", d->id);
	pw_print_str_at(p, "kind", pw_decision_kind_name(d->kind));
	pw_print_str_at(p, "scope", scope);
	pw_print_str_at(p, "msgid", d->msgid);
	if (d->finding)
		pw_print_int_at(p, "finding", d->finding);
	else {
		pw_print_key(p, "finding");
		pw_print_null(p);
	}
	pw_print_str_at(p, "rule", d->rule);
	pw_print_str_at(p, "file", d->file);
	pw_print_int_at(p, "line", d->line);
	pw_print_str_at(p, "path", d->path);
	pw_print_str_at(p, "list", d->list);
	pw_print_str_at(p, "addr", d->addr);
	pw_print_str_at(p, "by", d->by);
	pw_print_time_at(p, "at", d->at);
	pw_print_str_at(p, "via", d->via);
	pw_print_str_at(p, "via_msgid", d->via_msgid);
	pw_print_str_at(p, "reason", d->reason);
	if (d->undone_at)
		pw_print_time_at(p, "undone_at", d->undone_at);
	else {
		pw_print_key(p, "undone_at");
		pw_print_null(p);
	}
	pw_print_str_at(p, "undone_by", d->undone_by);
	pw_print_int_at(p, "covers", d->covers);
	pw_print_end(p);
	g_free(scope);
}

enum pw_status pw_triage_print_list(struct pw_db *db, const char *list,
				    struct pw_printer *p)
{
	GPtrArray *v;
	enum pw_status s = pw_db_decision_list(db, list, true, &v);
	guint i;

	pw_print_begin_list(p);
	for (i = 0; i < v->len; i++)
		pw_triage_print(p, v->pdata[i]);
	pw_print_end(p);
	g_ptr_array_unref(v);
	return s;
}
