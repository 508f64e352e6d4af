/*
 * patchwarden: who gets a reply and when (see bot/reply_policy.h).
 */
#include <string.h>
#include <time.h>

#include "bot/reply_policy.h"
#include "bot/log.h"
#include "bot/reply_queue.h"
#include "checks/etiquette.h"
#include "db/decision.h"
#include "db/identity.h"
#include "db/outbox.h"

/* The etiquette's settings, as configured. */
static void rules_of(const struct pw_config *cfg, struct pw_etiquette_rules *r)
{
	r->bot_addr = cfg->from_addr;
	r->max_age = cfg->reply_max_age;
	r->per_recipient_per_hour = cfg->per_recipient_per_hour;
	r->global_per_hour = cfg->global_per_hour;
	r->automated_senders = (const char *const *)cfg->automated_senders;
}

/*
 * Counts into *n the replies in the etiquette's window before now to
 * addr (NULL: to anyone), when the limit that reads it is on (limit >=
 * 0); else leaves *n 0.
 */
static enum pw_status sent(struct pw_db *db, int limit, const char *addr,
			   int64_t now, int64_t *n)
{
	*n = 0;
	if (limit < 0)
		return PW_OK;
	return pw_db_outbox_count_since(db, addr, now - PW_ETIQUETTE_WINDOW, n);
}

/*
 * Counts into *n the replies in the window before now that the global
 * limit of a reply to mail judged auth counts: to authenticated mail
 * only, for authenticated mail (its own budget), else every reply.
 */
static enum pw_status global_sent(struct pw_db *db, const struct pw_config *cfg,
				  enum pw_auth auth, int64_t now, int64_t *n)
{
	*n = 0;
	if (cfg->global_per_hour >= 0 && pw_identity_own_budget(auth))
		return pw_db_identity_sent_since(db, now - PW_ETIQUETTE_WINDOW, n);
	return sent(db, cfg->global_per_hour, NULL, now, n);
}

/*
 * Leaves out of v (the NULL-terminated copies of a reply to mail seen
 * on lists, from index from on) every address to which the replies in
 * the window reached the per-recipient limit: a Cc is mail to that
 * recipient too.  A list's posting address is no person's inbox: the
 * copies to it are the list's own choice ([list] mail = author+cc).
 */
static enum pw_status drop_limited(struct pw_db *db, const struct pw_config *cfg,
				   const struct pw_etiquette_rules *r,
				   char **lists, char **v, size_t from,
				   int64_t now)
{
	enum pw_status st = PW_OK;
	size_t i, j;

	if (!v || r->per_recipient_per_hour < 0)
		return PW_OK;
	for (i = 0; i < from; i++)
		if (!v[i])
			return PW_OK;
	for (i = j = from; v[i]; i++) {
		int64_t n = 0;

		if (!st && !pw_reply_queue_is_list(cfg, lists, v[i]))
			st = sent(db, cfg->per_recipient_per_hour, v[i], now, &n);
		if (!st && !pw_etiquette_cc_ok(r, n)) {
			g_free(v[i]);
			continue;
		}
		v[j++] = v[i];
	}
	v[j] = NULL;
	return st;
}

/*
 * Reads the facts of the reply of kind to m that do not depend on its
 * recipients into *f (strings borrowed from m, except *automated: new,
 * or NULL, which f->automated points at).  Every read is a plain
 * SELECT: reading them all, also those an earlier hold makes moot,
 * changes nothing.
 */
static enum pw_status gather(struct pw_db *db, const struct pw_config *cfg,
			     const struct pw_outbox_msg *m,
			     enum pw_etiquette_kind kind, int64_t now,
			     struct pw_etiquette_facts *f, char **automated)
{
	const struct pw_mail *mail = m->mail;
	enum pw_status st = PW_OK;

	memset(f, 0, sizeof(*f));
	*automated = NULL;
	f->kind = kind;
	f->backfill = m->backfill;
	f->date = mail->date;
	if (mail->automated)
		f->automated = *automated = pw_reply_clean(mail->automated, 80);
	f->poster = pw_mail_poster_addr(mail);
	f->poster_ok = pw_reply_addr_ok(f->poster);
	st = pw_db_identity_of_message(db, m->id, &f->auth);
	/* Only the bot's replies carry such Message-IDs (bot/reply.h). */
	if (!st && g_str_has_prefix(mail->msgid, "patchwarden."))
		st = pw_db_outbox_is_own(db, mail->msgid, &f->own_msgid);
	if (!st)
		st = pw_db_decision_stopped(db, m->id, f->poster, &f->poster_stop);
	if (!st && kind == PW_ETIQUETTE_PATCH && mail->sender_addr &&
	    mail->from_addr) {
		f->author = mail->from_addr;
		f->author_ok = pw_reply_addr_ok(f->author);
		st = pw_db_decision_stopped(db, m->id, f->author, &f->author_stop);
		if (!st && f->author_ok)
			st = sent(db, cfg->per_recipient_per_hour, f->author, now,
				  &f->author_sent);
	}
	if (!st)
		st = global_sent(db, cfg, f->auth, now, &f->all_sent);
	return st;
}


/*
 * Decides about the reply of the given kind to m, listing items, under
 * key, and queues it.  held, when not NULL, suppresses it whatever the
 * etiquette says.
 */
static enum pw_status answer(struct pw_db *db, const struct pw_config *cfg,
			     const struct pw_outbox_msg *m, const char *kind,
			     const char *key, const struct pw_reply_item *items,
			     size_t n, const char *held)
{
	int64_t now = (int64_t)time(NULL);
	struct pw_etiquette_verdict v = { 0 };
	struct pw_etiquette_facts f;
	struct pw_etiquette_rules r;
	struct pw_reply_rcpt rc = { 0 };
	char *automated = NULL;
	enum pw_status st;

	rules_of(cfg, &r);
	st = gather(db, cfg, m, PW_ETIQUETTE_PATCH, now, &f, &automated);
	if (st)
		goto out;
	f.held = held;
	st = pw_reply_queue_recipients(db, cfg, m,
				       pw_etiquette_copy_author(&f, &r, now), &rc);
	if (st)
		goto out;
	/* Every copy counts against its recipient's limit: one left out
	 * leaves the reply to the others. */
	st = drop_limited(db, cfg, &r, m->lists, rc.cc, 0, now);
	if (!st)
		st = drop_limited(db, cfg, &r, m->lists, rc.maintainers, 1, now);
	if (st)
		goto out;
	f.mail_off = rc.none;
	f.maintainer = rc.maintainers[0];
	if (pw_etiquette_to(&f))
		st = sent(db, cfg->per_recipient_per_hour, pw_etiquette_to(&f),
			  now, &f.to_sent);
	if (st)
		goto out;
	pw_etiquette_judge(&f, &r, now, &v);
	if (v.act == PW_ETIQUETTE_NO_ADDRESS)
		pw_warn("message %s: no usable address to reply to", m->mail->msgid);
	else
		st = pw_reply_queue_patch(db, cfg, m, kind, key, &rc, items, n,
					  v.reason);
out:
	pw_etiquette_verdict_release(&v);
	pw_reply_rcpt_release(&rc);
	g_free(automated);
	return st;
}

static enum pw_status answer_patch(struct pw_db *db, const struct pw_config *cfg,
				   int64_t message_id, const char *forced_hold)
{
	struct pw_reply_patch_facts pf;
	struct pw_reply_item *items = NULL;
	char *key = NULL;
	enum pw_status st;
	bool found, answered;
	guint i;

	st = pw_reply_queue_read(db, message_id, cfg->reply_min_severity, &pf,
				 &found);
	if (!st && !found) {
		pw_warn("no message %" G_GINT64_FORMAT " to answer", message_id);
		st = PW_ERR_INPUT;
	}
	if (st || pf.shown->len == 0)
		goto out;
	key = g_strdup_printf("msg:%s", pf.m->mail->msgid);
	st = pw_db_outbox_answered(db, key, &answered);
	if (st || answered)
		goto out;
	items = g_new0(struct pw_reply_item, pf.shown->len);
	for (i = 0; i < pf.shown->len; i++)
		items[i].f = g_ptr_array_index(pf.shown, i);
	st = answer(db, cfg, pf.m, "patch", key, items, pf.shown->len,
		    forced_hold);
out:
	if (st && st != PW_ERR_INPUT)
		pw_error("queueing the reply to message %" G_GINT64_FORMAT ": %s",
			 message_id, pw_db_errmsg(db));
	g_free(items);
	pw_reply_patch_facts_release(&pf);
	g_free(key);
	return st;
}

enum pw_status pw_reply_policy_answer(struct pw_db *db,
				      const struct pw_config *cfg,
				      int64_t message_id)
{
	return answer_patch(db, cfg, message_id, NULL);
}

enum pw_status pw_reply_policy_hold(struct pw_db *db,
				    const struct pw_config *cfg,
				    int64_t message_id, const char *reason)
{
	return answer_patch(db, cfg, message_id, reason ? reason : "held back");
}

enum pw_status pw_reply_policy_answer_flood(struct pw_db *db,
					    const struct pw_config *cfg,
					    const struct pw_flood_info *f,
					    const int64_t *members, size_t n)
{
	char *key = g_strdup_printf("flood:%s", f->key);
	char *why = g_strdup_printf("superseded by the summary of flood %s", f->key);
	int64_t now = (int64_t)time(NULL);
	struct pw_etiquette_verdict v = { 0 };
	struct pw_etiquette_facts ef = { .kind = PW_ETIQUETTE_FLOOD };
	struct pw_etiquette_rules r;
	struct pw_reply_rcpt rc = { 0 };
	enum pw_status st = PW_OK;
	bool answered = false;
	size_t i;
	int changed;

	for (i = 0; i < n && !st; i++)
		st = pw_db_outbox_supersede(db, members[i], why, &changed);
	if (!st)
		st = pw_db_outbox_answered(db, key, &answered);
	if (st || answered)
		goto out;
	rules_of(cfg, &r);
	/* Judged by its newest patch, as each patch is by its own Date. */
	ef.date = f->last_seen;
	ef.poster = f->sender_addr;
	ef.poster_ok = pw_reply_addr_ok(f->sender_addr);
	/* A flood in the name of a sender who signs, unsigned, is no
	 * flood of theirs: its summary is answered to nobody. */
	st = pw_db_identity_of_flood(db, f->id, &ef.auth);
	if (!st && n)	/* a sender who opted out on the flood's list */
		st = pw_db_decision_stopped(db, members[0], f->sender_addr,
					    &ef.poster_stop);
	if (!st)
		st = global_sent(db, cfg, ef.auth, now, &ef.all_sent);
	if (st)
		goto out;
	pw_reply_queue_flood_recipients(cfg, f, &rc);
	ef.mail_off = rc.none;
	pw_etiquette_judge(&ef, &r, now, &v);
	if (v.act == PW_ETIQUETTE_NO_ADDRESS)
		pw_warn("flood %s: no usable address to reply to", f->key);
	else
		st = pw_reply_queue_flood(db, cfg, f, &rc, key, v.reason);
out:
	pw_etiquette_verdict_release(&v);
	pw_reply_rcpt_release(&rc);
	g_free(key);
	g_free(why);
	return st;
}

/* Why a patch of flood flood_id gets no reply of its own (new string). */
static char *flood_member(int64_t flood_id)
{
	return g_strdup_printf("part of flood %" G_GINT64_FORMAT
			       ": answered once, for the whole flood", flood_id);
}

/*
 * A patch of a flood gets no reply of its own (held, with the reason,
 * so that it stays visible); the flood gets one summary, queued by the
 * patch that made it one.
 */
static enum pw_status reply_flood(struct pw_db *db, const struct pw_config *cfg,
				  int64_t flood_id, int64_t message_id)
{
	struct pw_flood_info info;
	GArray *members;
	enum pw_status s;
	bool already;
	char *why;
	int rule;

	s = pw_db_flood_kind(db, flood_id, &rule, NULL, NULL);
	if (s)
		return s == PW_ERR_INPUT ? PW_ERR_DB : s;
	if (rule != PW_R_FLOOD)
		/* A large series sent properly, threaded under a cover
		 * letter: its finding is stored, its patches are answered
		 * as any other patch is. */
		return pw_reply_policy_answer(db, cfg, message_id);
	s = pw_db_flood_mark_reported(db, flood_id, &already);
	if (s)
		return s;
	if (!already) {
		s = pw_db_flood_info(db, flood_id, &info);
		if (s)
			return s;
		s = pw_db_flood_members(db, flood_id, &members);
		if (!s) {
			s = pw_reply_policy_answer_flood(db, cfg, &info,
							 (const int64_t *)(void *)members->data,
							 members->len);
			g_array_unref(members);
		}
		pw_db_flood_info_release(&info);
		if (s)
			return s;
	}
	why = flood_member(flood_id);
	s = pw_reply_policy_hold(db, cfg, message_id, why);
	g_free(why);
	return s;
}

enum pw_status pw_reply_policy_new_patch(struct pw_db *db,
					 const struct pw_config *cfg,
					 int64_t message_id,
					 const struct pw_mail *m,
					 int64_t flood_id, bool flood_rule_on)
{
	/* A list that switches FLOOD off answers its patches one by one;
	 * mail a machine sent is never answered nor held for a flood it
	 * takes no part in (the answer stores why). */
	if (!flood_rule_on || m->automated)
		return pw_reply_policy_answer(db, cfg, message_id);
	if (flood_id)
		return reply_flood(db, cfg, flood_id, message_id);
	if (m->tags.total >= cfg->flood_count && !m->in_reply_to &&
	    !(m->references && m->references[0]))
		return pw_reply_policy_hold(db, cfg, message_id, PW_HOLD_UNDECIDED);
	return pw_reply_policy_answer(db, cfg, message_id);
}

/* One undecided reply whose window has closed. */
static enum pw_status decide(struct pw_db *db, const struct pw_config *cfg,
			     const struct pw_outbox_held *h, int64_t now,
			     int *released, int *folded)
{
	struct pw_etiquette_verdict v = { 0 };
	struct pw_etiquette_facts f;
	struct pw_etiquette_rules r;
	struct pw_outbox_msg *m = NULL;
	char *automated = NULL, *off = NULL, *why = NULL;
	enum pw_status st;
	int64_t flood_id = 0;
	const char *no;
	bool found;

	st = pw_db_flood_of_message(db, h->message, &found, &flood_id);
	if (st)
		return st;
	if (found) {
		why = flood_member(flood_id);
		st = pw_db_outbox_set_reason(db, h->id, why);
		(*folded)++;
		goto out;
	}
	st = pw_db_outbox_message(db, h->message, &m, &found);
	if (st || !found)
		goto out;
	rules_of(cfg, &r);
	st = gather(db, cfg, m, PW_ETIQUETTE_RELEASE, now, &f, &automated);
	if (!st)
		st = sent(db, cfg->per_recipient_per_hour, f.poster, now,
			  &f.to_sent);
	if (st)
		goto out;
	/* Its recipients were worked out when it was composed: only a
	 * list whose mail is off now holds it. */
	f.mail_off = off = pw_reply_queue_mail_off(cfg, m->lists);
	pw_etiquette_judge(&f, &r, now, &v);
	if (v.reason) {
		st = pw_db_outbox_set_reason(db, h->id, v.reason);
		goto out;
	}
	st = pw_db_outbox_release(db, h->id, now, &no);
	if (st == PW_ERR_INPUT)	/* sent or being sent: nothing to do */
		st = PW_OK;
	else if (!st)
		(*released)++;
out:
	pw_etiquette_verdict_release(&v);
	pw_outbox_msg_free(m);
	g_free(automated);
	g_free(off);
	g_free(why);
	return st;
}

enum pw_status pw_reply_policy_release_undecided(struct pw_db *db,
						 const struct pw_config *cfg,
						 int64_t now, int *released,
						 int *folded)
{
	GArray *held;
	enum pw_status st;
	guint i;

	*released = *folded = 0;
	st = pw_db_outbox_held(db, PW_HOLD_UNDECIDED, now - cfg->flood_window,
			       &held);
	for (i = 0; !st && i < held->len; i++)
		st = decide(db, cfg, &g_array_index(held, struct pw_outbox_held, i),
			    now, released, folded);
	g_array_unref(held);
	return st;
}
