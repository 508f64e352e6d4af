/*
 * patchwarden: the reply queue (see bot/reply_queue.h).
 *
 * Composing reads stored rows only: the quoted lines were stored with
 * the findings when the patch was checked, so that a reply to a patch
 * of n findings costs O(n), never a parse of the message per finding.
 */
#include <string.h>
#include <time.h>

#include "bot/reply_queue.h"
#include "bot/log.h"

/* The bot as its replies present it, from [smtp] from and [reply]. */
static void self_init(struct pw_reply_self *me, const struct pw_config *cfg,
		      const char *msgid)
{
	memset(me, 0, sizeof(*me));
	/* [smtp] from was read and checked with the configuration. */
	me->addr = cfg->from_addr;
	me->name = cfg->reply_from_name ? cfg->reply_from_name :
		*cfg->from_name ? cfg->from_name : "patchwarden";
	me->reply_to = cfg->reply_to;
	me->dashboard_url = cfg->dashboard_url;
	me->msgid = msgid;
	me->date = (int64_t)time(NULL);
}

/*
 * The posting address of a list, to name in a reply (new string, or
 * NULL when none is known): the [list NAME] address of the first of
 * names that sets one, else the recipient of the mail (To or Cc) that
 * matches list_id, as "linux-hwmon@vger.kernel.org" matches the List-Id
 * "linux-hwmon.vger.kernel.org".  A List-Id is no address: it is never
 * written as one.
 */
static char *list_address(const struct pw_config *cfg, char **names,
			  const char *list_id, char **recipients)
{
	size_t i;

	for (i = 0; names && names[i]; i++) {
		const struct pw_list_conf *l = pw_config_list(cfg, names[i]);

		if (l->address && pw_reply_addr_ok(l->address))
			return g_strdup(l->address);
	}
	if (list_id) {
		const struct pw_list_conf *l = pw_config_list(cfg, list_id);

		if (l->address && pw_reply_addr_ok(l->address))
			return g_strdup(l->address);
	}
	for (i = 0; list_id && recipients && recipients[i]; i++) {
		const char *at = strchr(recipients[i], '@');
		size_t local = at ? (size_t)(at - recipients[i]) : 0;

		if (local && strlen(list_id) == strlen(recipients[i]) &&
		    !g_ascii_strncasecmp(list_id, recipients[i], local) &&
		    list_id[local] == '.' &&
		    !g_ascii_strcasecmp(list_id + local + 1, at + 1) &&
		    pw_reply_addr_ok(recipients[i]))
			return g_ascii_strdown(recipients[i], -1);
	}
	return NULL;
}

void pw_reply_patch_facts_release(struct pw_reply_patch_facts *pf)
{
	pw_outbox_msg_free(pf->m);
	if (pf->shown)
		g_ptr_array_free(pf->shown, TRUE);
	if (pf->all)
		g_ptr_array_unref(pf->all);
	memset(pf, 0, sizeof(*pf));
}

enum pw_status pw_reply_queue_read(struct pw_db *db, int64_t message_id,
				   enum pw_severity min,
				   struct pw_reply_patch_facts *pf, bool *found)
{
	enum pw_status st;
	guint i;

	memset(pf, 0, sizeof(*pf));
	st = pw_db_outbox_message(db, message_id, &pf->m, found);
	if (st || !*found)
		return st;
	pf->shown = g_ptr_array_new();
	if (pf->m->mail->kind != PW_MAIL_PATCH)
		return PW_OK;
	st = pw_db_outbox_findings(db, message_id, &pf->all);
	if (st)
		return st;
	for (i = 0; i < pf->all->len; i++) {
		struct pw_finding *f = g_ptr_array_index(pf->all, i);

		/* Info findings never reach a reply, whatever min says:
		 * they are for the dashboard and queries. */
		if (f->severity >= min && f->severity > PW_SEV_INFO)
			g_ptr_array_add(pf->shown, f);
	}
	return PW_OK;
}

/* Stores a composed reply; hold is the suppression reason or NULL. */
static enum pw_status store(struct pw_db *db, const char *kind,
			    const char *key, int64_t message_id,
			    const char *mail_from, const struct pw_reply *r,
			    const char *in_reply_to, const char *hold)
{
	struct pw_outbox_new n = { 0 };
	char *rcpts = g_strjoinv("\n", r->rcpt);
	gsize len;
	enum pw_status st;
	bool added;

	n.kind = kind;
	n.answers = key;
	n.message_id = message_id;
	n.state = hold ? "suppressed" : "pending";
	n.reason = hold;
	n.msgid = r->msgid;
	n.in_reply_to = in_reply_to;
	n.mail_from = mail_from;
	n.rcpt_to = r->to;
	n.recipients = rcpts;
	n.subject = r->subject;
	n.raw = g_bytes_get_data(r->wire, &len);
	n.raw_len = len;
	n.now = (int64_t)time(NULL);
	/* One statement: atomic on its own, or part of the caller's batch. */
	st = pw_db_outbox_add(db, &n, NULL, &added);
	if (st)
		pw_error("cannot store the reply to %s: %s", key, pw_db_errmsg(db));
	else if (added && hold)
		pw_debug("reply to %s held back: %s", key, hold);
	g_free(rcpts);
	return st;
}

enum pw_status pw_reply_queue_patch(struct pw_db *db,
				    const struct pw_config *cfg,
				    const struct pw_outbox_msg *m,
				    const char *kind, const char *key,
				    const char *const *cc,
				    const struct pw_reply_item *items, size_t n,
				    const char *hold)
{
	const struct pw_mail *mail = m->mail;
	struct pw_reply_self me;
	struct pw_reply *r = NULL;
	char *msgid = pw_reply_msgid(kind, mail->msgid, cfg->from_addr);
	char *err = NULL;
	char *list_addr = list_address(cfg, m->lists, mail->list_id,
				       mail->recipients);
	enum pw_status st;

	self_init(&me, cfg, msgid);
	st = pw_reply_patch(&me, mail, cc, list_addr, items, n, &r, &err);
	if (st) {
		/* Nothing to store: the message cannot be answered. */
		pw_warn("message %s: cannot compose a reply: %s", mail->msgid, err);
		st = PW_OK;
		goto out;
	}
	st = store(db, kind, key, m->id, me.addr, r,
		   mail->msgid_derived ? NULL : mail->msgid, hold);
out:
	pw_reply_free(r);
	g_free(err);
	g_free(msgid);
	g_free(list_addr);
	return st;
}

enum pw_status pw_reply_queue_flood(struct pw_db *db,
				    const struct pw_config *cfg,
				    const struct pw_flood_info *f,
				    const char *key, const char *hold)
{
	struct pw_reply_self me;
	struct pw_reply *r = NULL;
	char *msgid = pw_reply_msgid("flood", f->key, cfg->from_addr);
	char *err = NULL;
	/* A flood's record keeps no recipients: only a configured
	 * address is named. */
	char *list_addr = list_address(cfg, f->lists, NULL, NULL);
	enum pw_status st;

	self_init(&me, cfg, msgid);
	st = pw_reply_flood(&me, f, list_addr, &r, &err);
	if (st) {
		pw_warn("flood %s: cannot compose the summary: %s", f->key, err);
		st = PW_OK;
		goto out;
	}
	st = store(db, "flood", key, 0, me.addr, r,
		   pw_reply_msgid_ok(f->first_msgid) ? f->first_msgid : NULL, hold);
out:
	pw_reply_free(r);
	g_free(err);
	g_free(msgid);
	g_free(list_addr);
	return st;
}
