/*
 * patchwarden: who gets a reply and when (see bot/reply_policy.h).
 */
#include <string.h>
#include <time.h>

#include "bot/reply_policy.h"
#include "bot/log.h"
#include "bot/reply_queue.h"
#include "db/decision.h"
#include "db/outbox.h"

/*
 * Why mail dated date is too old to answer under [reply] max_age, or
 * NULL (new string).  A Date that could not be judged (0: none,
 * unreadable or before 1990) may be that old: not answered either.
 */
static char *too_old(const struct pw_config *cfg, int64_t date)
{
	if (cfg->reply_max_age <= 0)
		return NULL;
	if (date <= 0)
		return g_strdup("its Date is unknown or impossible: taken as "
				"too old to answer");
	if (date < g_get_real_time() / G_USEC_PER_SEC - cfg->reply_max_age)
		return g_strdup_printf("older than %d days: too late to answer",
				       cfg->reply_max_age / 86400);
	return NULL;
}

/* Whether addr is a machine's: the built-in senders and [reply]
 * automated_senders (checks/message.h). */
static bool is_automated(const struct pw_config *cfg, const char *addr)
{
	return pw_mail_sender_automated(addr,
		(const char *const *)cfg->automated_senders);
}

/*
 * Sets *why (new string) to the reason the hourly limits hold back a
 * reply to addr, or NULL when it may go.  per_recipient: whether that
 * limit applies.
 */
static enum pw_status rate_limited(struct pw_db *db, const struct pw_config *cfg,
				   const char *addr, bool per_recipient,
				   char **why)
{
	int64_t since = (int64_t)time(NULL) - 3600, n;
	enum pw_status st;

	*why = NULL;
	if (per_recipient && cfg->per_recipient_per_hour >= 0) {
		st = pw_db_outbox_count_since(db, addr, since, &n);
		if (st)
			return st;
		if (n >= cfg->per_recipient_per_hour) {
			*why = g_strdup_printf("rate limit: %" G_GINT64_FORMAT
					       " replies to %s in the last hour"
					       " (per_recipient_per_hour = %d)",
					       n, addr, cfg->per_recipient_per_hour);
			return PW_OK;
		}
	}
	if (cfg->global_per_hour >= 0) {
		st = pw_db_outbox_count_since(db, NULL, since, &n);
		if (st)
			return st;
		if (n >= cfg->global_per_hour)
			*why = g_strdup_printf("rate limit: %" G_GINT64_FORMAT
					       " replies in the last hour"
					       " (global_per_hour = %d)",
					       n, cfg->global_per_hour);
	}
	return PW_OK;
}

/* The reason a reply is held when its recipient said "stop". */
#define PW_HOLD_OPTED_OUT "author opted out"

/* Why replies to addr about message message_id are held: the address
 * opted out on a list of the message ("patchwarden: stop",
 * db/decision.h).  *why: a new string, or NULL. */
static enum pw_status opted_out(struct pw_db *db, int64_t message_id,
				const char *addr, char **why)
{
	enum pw_status st;
	int64_t id;

	*why = NULL;
	st = pw_db_decision_stopped(db, message_id, addr, &id);
	if (!st && id)
		*why = g_strdup_printf(PW_HOLD_OPTED_OUT " (decision %"
				       G_GINT64_FORMAT ")", id);
	return st;
}

/* Sets *why (new string) to the reason m may not be answered at all,
 * or NULL. */
static enum pw_status never_answer(struct pw_db *db, const struct pw_config *cfg,
				   const struct pw_outbox_msg *m, char **why)
{
	const struct pw_mail *mail = m->mail;
	const char *poster = pw_mail_poster_addr(mail);
	enum pw_status st;
	bool own = false;

	*why = NULL;
	if (m->backfill) {
		*why = g_strdup("read while backfilling an archive");
		return PW_OK;
	}
	if ((*why = too_old(cfg, mail->date)))
		return PW_OK;
	/*
	 * The machine and loop checks read the mail's From header (the
	 * sender, who posted it and gets the reply), not an in-body From:
	 * (the author, a line in the body that anyone may write): the
	 * bot's own mail is what the bot sent, whatever author its text
	 * names, and a patch a machine posted for a person still reaches
	 * no person.  m->automated says why a machine sent it, judged from
	 * its header block and sender when it was read (bot/mail.c,
	 * bot/ingest.c) and kept in the store.
	 */
	if (mail->automated) {
		char *v = pw_reply_clean(mail->automated, 80);

		*why = g_strdup_printf("automated mail (%s)", v);
		g_free(v);
		return PW_OK;
	}
	if (!g_ascii_strcasecmp(poster, cfg->from_addr)) {
		own = true;
	} else if (g_str_has_prefix(mail->msgid, "patchwarden.")) {
		st = pw_db_outbox_is_own(db, mail->msgid, &own);
		if (st)
			return st;
	}
	if (!own) {
		st = opted_out(db, m->id, poster, why);
		if (st || *why)
			return st;
	}
	if (own)
		*why = g_strdup("the bot's own mail");
	/* The senders as configured now: a row stored before the sender
	 * was known to be a machine (or by a version that did not say) is
	 * held all the same. */
	else if (is_automated(cfg, poster))
		*why = g_strdup_printf("automated sender %s", poster);
	return PW_OK;
}

/*
 * The mail mode check ([list NAME] mail): why no one may get the reply
 * to mail of the lists names (new string: "mail off for list X", or
 * that no maintainer is known), or NULL.  rc: the recipients worked out
 * for it, or NULL (only the modes are read).
 */
static char *mail_mode_hold(const struct pw_config *cfg, char **names,
			    const struct pw_reply_rcpt *rc)
{
	if (rc)
		return g_strdup(rc->none);
	return pw_reply_queue_mail_off(cfg, names);
}

/*
 * Decides about the reply of the given kind to m, listing items, under
 * key, and queues it.  forced_hold, when not NULL, suppresses it
 * whatever the policy says.
 */
static enum pw_status answer(struct pw_db *db, const struct pw_config *cfg,
			     const struct pw_outbox_msg *m, const char *kind,
			     const char *key, const struct pw_reply_item *items,
			     size_t n, const char *forced_hold)
{
	struct pw_reply_rcpt rc = { 0 };
	char *hold = NULL, *author_held = NULL;
	enum pw_status st = PW_OK;

	if (forced_hold)
		hold = g_strdup(forced_hold);
	if (!hold)
		st = never_answer(db, cfg, m, &hold);
	if (st)
		goto out;
	/* The author in Cc counts against the author's own limit. */
	if (!hold && m->mail->sender_addr &&
	    pw_reply_addr_ok(m->mail->from_addr))
		st = rate_limited(db, cfg, m->mail->from_addr, true, &author_held);
	/* An author who opted out is not copied either. */
	if (!st && !hold && !author_held && m->mail->sender_addr)
		st = opted_out(db, m->id, m->mail->from_addr, &author_held);
	if (!st)
		st = pw_reply_queue_recipients(db, cfg, m, !author_held, &rc);
	if (st)
		goto out;
	if (!hold)
		hold = mail_mode_hold(cfg, m->lists, &rc);
	if (!hold && !rc.maintainers[0] &&
	    !pw_reply_addr_ok(pw_mail_poster_addr(m->mail))) {
		pw_warn("message %s: no usable address to reply to", m->mail->msgid);
		goto out;
	}
	/* Counted for the person the reply goes To. */
	if (!hold)
		st = rate_limited(db, cfg, rc.maintainers[0] ? rc.maintainers[0] :
				  pw_mail_poster_addr(m->mail), true, &hold);
	if (st)
		goto out;
	st = pw_reply_queue_patch(db, cfg, m, kind, key, &rc, items, n, hold);
out:
	pw_reply_rcpt_release(&rc);
	g_free(hold);
	g_free(author_held);
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
	struct pw_reply_rcpt rc = { 0 };
	char *hold = NULL;
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
	if (!pw_reply_addr_ok(f->sender_addr)) {
		pw_warn("flood %s: no usable address to reply to", f->key);
		goto out;
	}
	/* Judged by its newest patch, as each patch is by its own Date. */
	if ((hold = too_old(cfg, f->last_seen)))
		;
	else if (!g_ascii_strcasecmp(f->sender_addr, cfg->from_addr))
		hold = g_strdup("the bot's own mail");
	else if (is_automated(cfg, f->sender_addr))
		hold = g_strdup_printf("automated sender %s", f->sender_addr);
	else if (n)	/* a sender who opted out on the flood's list */
		st = opted_out(db, members[0], f->sender_addr, &hold);
	if (st)
		goto out;
	pw_reply_queue_flood_recipients(cfg, f, &rc);
	if (!hold)
		hold = mail_mode_hold(cfg, f->lists, &rc);
	if (!hold)
		st = rate_limited(db, cfg, rc.maintainers[0] ? rc.maintainers[0] :
				  f->sender_addr, false, &hold);
	if (!st)
		st = pw_reply_queue_flood(db, cfg, f, &rc, key, hold);
	pw_reply_rcpt_release(&rc);
out:
	g_free(key);
	g_free(why);
	g_free(hold);
	return st;
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
	why = g_strdup_printf("part of flood %" G_GINT64_FORMAT
			      ": answered once, for the whole flood", flood_id);
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
	struct pw_outbox_msg *m = NULL;
	enum pw_status st;
	int64_t flood_id = 0;
	char *why = NULL;
	const char *no;
	bool found;

	st = pw_db_flood_of_message(db, h->message, &found, &flood_id);
	if (st)
		return st;
	if (found) {
		why = g_strdup_printf("part of flood %" G_GINT64_FORMAT
				      ": answered once, for the whole flood",
				      flood_id);
		st = pw_db_outbox_set_reason(db, h->id, why);
		(*folded)++;
		goto out;
	}
	st = pw_db_outbox_message(db, h->message, &m, &found);
	if (st || !found)
		goto out;
	st = never_answer(db, cfg, m, &why);
	if (!st && !why)
		why = mail_mode_hold(cfg, m->lists, NULL);
	if (!st && !why)
		st = rate_limited(db, cfg, pw_mail_poster_addr(m->mail), true, &why);
	if (st)
		goto out;
	if (why) {
		st = pw_db_outbox_set_reason(db, h->id, why);
		goto out;
	}
	st = pw_db_outbox_release(db, h->id, now, &no);
	if (st == PW_ERR_INPUT)	/* sent or being sent: nothing to do */
		st = PW_OK;
	else if (!st)
		(*released)++;
out:
	pw_outbox_msg_free(m);
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
