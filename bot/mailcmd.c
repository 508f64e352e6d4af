/*
 * patchwarden: triage by mail (see bot/mailcmd.h).
 */
#include <string.h>

#include "bot/dkim.h"
#include "bot/log.h"
#include "bot/mail.h"
#include "bot/mailcmd.h"
#include "bot/pubinbox.h"
#include "bot/reply.h"
#include "bot/triage.h"
#include "checks/maintainers.h"
#include "checks/triage.h"
#include "db/decision.h"
#include "db/outbox.h"

/* The prefix of every Message-ID the bot gives its replies (bot/reply.c). */
#define OWN_PREFIX "patchwarden."

/*
 * The reply of the bot m answers: its In-Reply-To, else the newest of
 * its References that is one.  *message: the message that reply
 * answers (0: none), *kind its kind (new string).
 */
static enum pw_status answered(struct pw_db *db, const struct pw_mail *m,
			       int64_t *message, char **kind)
{
	enum pw_status s = PW_OK;
	size_t n = m->references ? g_strv_length(m->references) : 0;

	*message = 0;
	*kind = NULL;
	if (m->in_reply_to && g_str_has_prefix(m->in_reply_to, OWN_PREFIX))
		s = pw_db_decision_reply_of(db, m->in_reply_to, message, kind);
	while (!s && !*message && n-- > 0)
		if (g_str_has_prefix(m->references[n], OWN_PREFIX))
			s = pw_db_decision_reply_of(db, m->references[n], message,
						    kind);
	return s;
}

/* Whether m names one of the bot's Message-IDs at all: no query. */
static bool names_own(const struct pw_mail *m)
{
	size_t i;

	if (m->in_reply_to && g_str_has_prefix(m->in_reply_to, OWN_PREFIX))
		return true;
	for (i = 0; m->references && m->references[i]; i++)
		if (g_str_has_prefix(m->references[i], OWN_PREFIX))
			return true;
	return false;
}

/* The files message id patches (new NULL-terminated vector). */
static enum pw_status patched_files(struct pw_db *db, int64_t id, char ***out)
{
	GPtrArray *v = g_ptr_array_new();
	struct pw_mail *m = NULL;
	GBytes *raw = NULL;
	enum pw_status s;
	size_t i;

	s = pw_pubinbox_message(db, id, &raw);
	if (!s && raw) {
		gsize n;
		const char *b = g_bytes_get_data(raw, &n);

		if (!pw_mail_parse(b, n, &m, NULL) && m->diff) {
			struct pw_patch *p = pw_diff_parse(m->diff, strlen(m->diff));

			for (i = 0; i < p->nfiles; i++) {
				const char *f = p->files[i].new_path ?
					p->files[i].new_path : p->files[i].old_path;

				if (f)
					g_ptr_array_add(v, g_strdup(f));
			}
			pw_patch_free(p);
		}
	}
	pw_mail_free(m);
	if (raw)
		g_bytes_unref(raw);
	g_ptr_array_add(v, NULL);
	*out = (char **)g_ptr_array_free(v, FALSE);
	return s;
}

/* Everything a command mail's commands are judged by. */
struct ctx {
	struct pw_db *db;
	const struct pw_config *cfg;
	const char *poster;		/* the command mail's From address */
	const char *msgid;		/* the command mail's Message-ID */
	struct pw_outbox_msg *target;	/* the message the reply answered */
	GArray *messages;		/* it, or its series' patches */
	char **files;			/* the files they patch */
	/* Per list the patch was on (the target's lists, in order): whether
	 * poster is its [list] maintainer, and its MAINTAINERS file as the
	 * configuration read it (borrowed, NULL without one).  Each list
	 * is judged alone: a maintainer of one list decides for it, not for
	 * another list the patch was also sent to. */
	size_t nlists;
	bool *list_maintainer;
	const struct pw_maintainers **maint;
};

/* Whether c->poster maintains path by list li's MAINTAINERS file. */
static bool maintains(const struct ctx *c, size_t li, const char *path)
{
	return c->maint[li] &&
	       pw_maintainers_is_maintainer(c->maint[li], path, c->poster);
}

/*
 * Whether path (an ignore's glob, NULL: every file) stays under a
 * folder c->poster maintains by list li's MAINTAINERS file: its part
 * before the first wildcard, cut at the last '/', must be one.  A bare
 * star, a star and ".c", or "drivers/" and a star reach files of other
 * maintainers: list-wide.
 */
static bool maintained_dir(const struct ctx *c, size_t li, const char *path)
{
	size_t lit = path ? strcspn(path, "*?[") : 0;
	char *dir;
	bool yes;

	while (lit > 0 && path[lit - 1] != '/' && path[lit] != '\0')
		lit--;
	if (!lit)
		return false;
	dir = g_strndup(path, lit);
	yes = maintains(c, li, dir);
	g_free(dir);
	return yes;
}

/*
 * Why c->poster may not give cmd (not stop) for list li, or NULL when
 * it may (a static string).
 */
static const char *refusal_on(const struct ctx *c, size_t li,
			      const struct pw_triage_cmd *cmd)
{
	size_t i, matched = 0;

	if (c->list_maintainer[li])
		return NULL;
	if (!c->maint[li])
		return "not a maintainer of the list ([list NAME] maintainer)";
	if (cmd->verb == PW_TRIAGE_IGNORE && !maintained_dir(c, li, cmd->path))
		return "a list-wide ignore is taken from a [list NAME] maintainer"
		       " address only (a MAINTAINERS maintainer names a path"
		       " under a folder of theirs)";
	for (i = 0; c->files && c->files[i]; i++) {
		if (cmd->path && !g_pattern_match_simple(cmd->path, c->files[i]))
			continue;
		matched++;
		if (!maintains(c, li, c->files[i]))
			return cmd->path ? "not a maintainer of every patched file"
			       " the path covers (MAINTAINERS)" :
			       "not a maintainer of every patched file"
			       " (MAINTAINERS)";
	}
	if (!matched && cmd->path && maintains(c, li, cmd->path))
		return NULL;
	return matched ? NULL : "not a maintainer of the patched files"
	       " (MAINTAINERS)";
}

/*
 * Why c->poster may not give cmd at all, or NULL when it may for one of
 * the patch's lists at least (a static string): stop from the author
 * only; the others from a maintainer of a list the patch was on.
 */
static const char *refusal(const struct ctx *c, const struct pw_triage_cmd *cmd)
{
	const char *no = "not a maintainer of the list ([list NAME] maintainer)";
	size_t li;

	if (cmd->verb == PW_TRIAGE_STOP)
		return g_ascii_strcasecmp(c->poster, c->target->mail->from_addr) ?
			"stop is taken from the patch author's own address only" :
			NULL;
	for (li = 0; li < c->nlists; li++) {
		const char *why = refusal_on(c, li, cmd);

		if (!why)
			return NULL;
		if (!li)
			no = why;
	}
	return no;
}

/* Takes one decision for cmd; logs what it did. */
static enum pw_status take(const struct ctx *c, const struct pw_triage_cmd *cmd,
			   struct pw_decision *d)
{
	enum pw_status s;
	int64_t id, covered;
	char *err = NULL, *what;

	d->by = (char *)c->poster;
	d->via = (char *)"mail";
	d->via_msgid = (char *)c->msgid;
	d->reason = cmd->reason;
	s = pw_triage_take(c->db, c->cfg, d, &id, &covered, &err);
	what = pw_reply_clean(c->msgid, 120);
	if (s == PW_ERR_INPUT)
		pw_warn("mail command <%s> line %d: %s", what, cmd->line, err);
	else if (!s)
		pw_info("mail command <%s> line %d: decision %" G_GINT64_FORMAT
			" (%s by %s), covering %" G_GINT64_FORMAT " findings",
			what, cmd->line, (gint64)id, pw_decision_kind_name(d->kind),
			c->poster, (gint64)covered);
	g_free(what);
	g_free(err);
	return s == PW_ERR_INPUT ? PW_OK : s;
}

/* Obeys cmd, which c->poster may give. */
static enum pw_status obey(const struct ctx *c, const struct pw_triage_cmd *cmd)
{
	char **lists = c->target->mail && c->target->lists ? c->target->lists : NULL;
	size_t nl = lists ? g_strv_length(lists) : 0, i;
	enum pw_status s = PW_OK;
	struct pw_decision d;

	memset(&d, 0, sizeof(d));
	switch (cmd->verb) {
	case PW_TRIAGE_WRONG:
	case PW_TRIAGE_RECHECK:
		d.kind = cmd->verb == PW_TRIAGE_WRONG ? PW_DECISION_WRONG :
			PW_DECISION_RECHECK;
		d.rule = cmd->rule;
		for (i = 0; !s && i < c->messages->len; i++) {
			int64_t patch;

			d.msgid = NULL;
			s = pw_db_decision_patch_of(c->db,
				g_array_index(c->messages, int64_t, i), &patch);
			if (!s && patch)
				s = pw_db_decision_msgid(c->db,
					g_array_index(c->messages, int64_t, i),
					&d.msgid);
			if (!s && d.msgid)
				s = take(c, cmd, &d);
			g_free(d.msgid);
		}
		return s;
	case PW_TRIAGE_IGNORE:
	case PW_TRIAGE_STOP:
		d.kind = cmd->verb == PW_TRIAGE_IGNORE ? PW_DECISION_IGNORE :
			PW_DECISION_STOP;
		d.rule = cmd->rule;
		d.path = cmd->path;
		d.addr = cmd->verb == PW_TRIAGE_STOP ? (char *)c->poster : NULL;
		/* One for each list the patch was on whose maintainer
		 * the poster is (stop: every list): the list's decision. */
		for (i = 0; !s && i < (nl ? nl : 1); i++) {
			if (cmd->verb == PW_TRIAGE_IGNORE &&
			    (i >= c->nlists || refusal_on(c, i, cmd)))
				continue;
			d.list = nl ? lists[i] : NULL;
			s = take(c, cmd, &d);
		}
		return s;
	}
	return PW_OK;
}

/*
 * The headers a command mail's signature must sign (h=): who sent it,
 * what it says it is, and, so that it can neither be sent again under
 * another Message-ID nor moved onto another patch, its own Message-ID
 * and the reply it answers.  A header missing from the mail is signed
 * missing when h= names it (RFC 6376 5.4).
 */
static const char *const must_sign[] = {
	"from", "subject", "date", "message-id", "in-reply-to", "references",
	NULL,
};

/* Judges and obeys the commands cmds of the command mail m. */
static enum pw_status run(struct pw_db *db, const struct pw_config *cfg,
			  const struct pw_mail *m, const char *raw, size_t len,
			  int64_t message, const char *kind, GPtrArray *cmds)
{
	struct ctx c = { .db = db, .cfg = cfg, .poster = pw_mail_poster_addr(m),
			 .msgid = m->msgid };
	const char *at = strrchr(c.poster, '@');
	char *why = NULL, *shown = pw_reply_clean(m->msgid, 120);
	enum pw_status s;
	bool found;
	size_t i, j;

	c.messages = g_array_new(FALSE, FALSE, sizeof(int64_t));
	/* A From header is a line anyone can write: a command is obeyed
	 * only from mail its From domain signed, unless the operator says
	 * the network is closed ([core] dkim = optional). */
	switch (pw_dkim_verify(raw, len, at ? at + 1 : "", must_sign,
			       cfg->dkim_keys, &why)) {
	case PW_DKIM_PASS:
		/* Its signature makes it replayable as it is: the signed
		 * Message-ID is obeyed once, whatever it decided, and
		 * whatever was undone since. */
		s = pw_db_decision_command_seen(db, m->msgid);
		if (s)
			goto out;
		break;
	case PW_DKIM_NONE:
		if (cfg->dkim_optional)
			break;
		pw_warn("mail command <%s> from %s refused: it carries no DKIM"
			" signature of its From domain ([core] dkim = required)",
			shown, c.poster);
		s = PW_OK;
		goto out;
	case PW_DKIM_FAIL:
	default: {
		char *w = pw_reply_clean(why, 300);

		pw_warn("mail command <%s> from %s refused: its DKIM signature"
			" does not verify for its From domain: %s", shown,
			c.poster, w);
		g_free(w);
		s = PW_OK;
		goto out;
	}
	}
	s = pw_db_outbox_message(db, message, &c.target, &found);
	if (s || !found)
		goto out;
	if (!g_strcmp0(kind, "series"))
		s = pw_db_decision_series_messages(db, message, c.messages);
	else
		g_array_append_val(c.messages, message);
	for (i = 0; !s && i < c.messages->len; i++) {
		char **f;
		GPtrArray *all;

		s = patched_files(db, g_array_index(c.messages, int64_t, i), &f);
		all = g_ptr_array_new();
		for (j = 0; c.files && c.files[j]; j++)
			g_ptr_array_add(all, c.files[j]);
		for (j = 0; f[j]; j++)
			g_ptr_array_add(all, f[j]);
		g_ptr_array_add(all, NULL);
		g_free(c.files);
		g_free(f);
		c.files = (char **)g_ptr_array_free(all, FALSE);
	}
	if (s)
		goto out;
	c.nlists = c.target->lists ? g_strv_length(c.target->lists) : 0;
	c.list_maintainer = g_new0(bool, c.nlists + 1);
	c.maint = g_new0(const struct pw_maintainers *, c.nlists + 1);
	for (i = 0; i < c.nlists; i++) {
		const struct pw_list_conf *l = pw_config_list(cfg,
							      c.target->lists[i]);

		c.list_maintainer[i] = pw_config_list_maintainer(l, c.poster);
		c.maint[i] = l->maintainers;
	}
	for (i = 0; !s && i < cmds->len; i++) {
		const struct pw_triage_cmd *cmd = cmds->pdata[i];
		const char *no;

		if (cmd->error) {
			char *e = pw_reply_clean(cmd->error, 120);

			pw_warn("mail command <%s> line %d: %s", shown, cmd->line, e);
			g_free(e);
			continue;
		}
		if ((no = refusal(&c, cmd))) {
			pw_warn("mail command <%s> line %d (%s) from %s refused: %s",
				shown, cmd->line, pw_triage_verb_name(cmd->verb),
				c.poster, no);
			continue;
		}
		s = obey(&c, cmd);
	}
out:
	g_free(why);
	g_free(shown);
	g_strfreev(c.files);
	g_array_unref(c.messages);
	g_free(c.list_maintainer);
	g_free(c.maint);
	pw_outbox_msg_free(c.target);
	return s;
}

enum pw_status pw_mailcmd_handle(struct pw_db *db, const struct pw_config *cfg,
				 const struct pw_mail *m, const char *raw,
				 size_t len, bool *handled)
{
	struct pw_mail *full = NULL;
	GPtrArray *cmds = NULL;
	enum pw_status s;
	int64_t message;
	char *kind = NULL;
	bool done;

	*handled = false;
	if (!names_own(m) || !raw || !pw_triage_maybe(raw, len))
		return PW_OK;
	s = answered(db, m, &message, &kind);
	if (s || !message)
		goto out;
	/* The header block was enough for ingest; the commands are in the
	 * text. */
	if (pw_mail_parse(raw, len, &full, NULL) || !full->commit_msg)
		goto out;
	cmds = pw_triage_parse(full->commit_msg, strlen(full->commit_msg));
	if (!cmds->len)
		goto out;
	*handled = true;
	s = pw_db_decision_from_mail(db, m->msgid, &done);
	if (!s && !done)
		s = pw_db_decision_command_known(db, m->msgid, &done);
	if (!s && done) {
		char *shown = pw_reply_clean(m->msgid, 120);

		pw_warn("mail command <%s> seen before: a command mail is"
			" obeyed once", shown);
		g_free(shown);
	}
	if (!s && !done)
		s = run(db, cfg, full, raw, len, message, kind, cmds);
out:
	if (cmds)
		g_ptr_array_unref(cmds);
	pw_mail_free(full);
	g_free(kind);
	return s;
}

enum pw_status pw_mailcmd_patched_files(struct pw_db *db, int64_t message_id,
					char ***files)
{
	return patched_files(db, message_id, files);
}
