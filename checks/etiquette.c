/*
 * patchwarden: the reply etiquette (see checks/etiquette.h).
 */
#include <glib.h>

#include "checks/etiquette.h"
#include "checks/message.h"

/*
 * Why mail dated date is too old to answer at now under max_age, or
 * NULL (new string).  A Date that could not be judged (0: none,
 * unreadable or before 1990) may be that old: not answered either.
 */
static char *too_old(const struct pw_etiquette_rules *r, int64_t date,
		     int64_t now)
{
	if (r->max_age <= 0)
		return NULL;
	if (date <= 0)
		return g_strdup("its Date is unknown or impossible: taken as "
				"too old to answer");
	if (date < now - r->max_age)
		return g_strdup_printf("older than %d days: too late to answer",
				       r->max_age / 86400);
	return NULL;
}

/*
 * Why the hourly limits hold back a reply to addr, to which sent
 * replies went in the window (all_sent to anyone), or NULL (new
 * string).  per_recipient: whether that limit applies.
 */
static char *limited(const struct pw_etiquette_rules *r, const char *addr,
		     int64_t sent, int64_t all_sent, bool per_recipient,
		     enum pw_auth auth)
{
	if (per_recipient && r->per_recipient_per_hour >= 0 &&
	    sent >= r->per_recipient_per_hour)
		return g_strdup_printf("rate limit: %" G_GINT64_FORMAT
				       " replies to %s in the last hour"
				       " (per_recipient_per_hour = %d)",
				       sent, addr, r->per_recipient_per_hour);
	if (r->global_per_hour >= 0 && all_sent >= r->global_per_hour)
		return g_strdup_printf("rate limit: %" G_GINT64_FORMAT
				       " replies%s in the last hour"
				       " (global_per_hour = %d)", all_sent,
				       pw_identity_own_budget(auth) ?
				       " to DKIM-signed mail" : "",
				       r->global_per_hour);
	return NULL;
}

static char *stopped(int64_t decision)
{
	return g_strdup_printf(PW_HOLD_OPTED_OUT " (decision %" G_GINT64_FORMAT
			       ")", decision);
}

static bool automated_sender(const struct pw_etiquette_rules *r,
			     const char *addr)
{
	return pw_mail_sender_automated(addr, r->automated_senders);
}

/*
 * Why f may not be answered at all, whatever its recipients (new
 * string), or NULL.
 *
 * The machine and loop checks read the mail's From header (the poster,
 * who gets the reply), not an in-body From: (the author, a line in the
 * body that anyone may write): the bot's own mail is what the bot sent,
 * whatever author its text names, and a patch a machine posted for a
 * person still reaches no person.  automated says why a machine sent
 * it, judged from its header block and sender when it was read; the
 * senders are also judged as configured now, so that a row stored
 * before the sender was known to be a machine is held all the same.
 */
static char *never(const struct pw_etiquette_facts *f,
		   const struct pw_etiquette_rules *r, int64_t now)
{
	bool own;
	char *why;

	if (f->held)
		return g_strdup(f->held);
	if (f->backfill)
		return g_strdup("read while backfilling an archive");
	if ((why = too_old(r, f->date, now)))
		return why;
	if (f->automated)
		return g_strdup_printf("automated mail (%s)", f->automated);
	own = f->own_msgid ||
	      (f->poster && r->bot_addr &&
	       !g_ascii_strcasecmp(f->poster, r->bot_addr));
	if (own)
		return g_strdup("the bot's own mail");
	if (pw_identity_hold(f->auth))
		return g_strdup(pw_identity_hold(f->auth));
	/* A flood's summary has always judged the sender's kind before its
	 * "stop"; a patch the other way round.  Both orders are kept: the
	 * reason stored differs only for a machine that said "stop". */
	if (f->kind == PW_ETIQUETTE_FLOOD && automated_sender(r, f->poster))
		return g_strdup_printf("automated sender %s", f->poster);
	if (f->poster_stop)
		return stopped(f->poster_stop);
	if (automated_sender(r, f->poster))
		return g_strdup_printf("automated sender %s", f->poster);
	return NULL;
}

const char *pw_etiquette_to(const struct pw_etiquette_facts *f)
{
	if (f->kind != PW_ETIQUETTE_RELEASE && f->maintainer)
		return f->maintainer;
	return f->poster;
}

bool pw_etiquette_copy_author(const struct pw_etiquette_facts *f,
			      const struct pw_etiquette_rules *r, int64_t now)
{
	char *why;
	bool copy = true;

	if (f->kind != PW_ETIQUETTE_PATCH || !f->author)
		return true;
	why = never(f, r, now);
	if (why)
		goto out;
	if (f->author_ok)
		why = limited(r, f->author, f->author_sent, f->all_sent, true,
			      f->auth);
	copy = !why && !f->author_stop;
out:
	g_free(why);
	return copy;
}

void pw_etiquette_judge(const struct pw_etiquette_facts *f,
			const struct pw_etiquette_rules *r, int64_t now,
			struct pw_etiquette_verdict *v)
{
	v->act = PW_ETIQUETTE_SEND;
	v->reason = NULL;
	v->copy_author = pw_etiquette_copy_author(f, r, now);
	if (f->kind == PW_ETIQUETTE_FLOOD && !f->poster_ok) {
		v->act = PW_ETIQUETTE_NO_ADDRESS;
		return;
	}
	v->reason = never(f, r, now);
	if (!v->reason && f->mail_off)
		v->reason = g_strdup(f->mail_off);
	if (!v->reason && f->kind == PW_ETIQUETTE_PATCH && !f->maintainer &&
	    !f->poster_ok) {
		v->act = PW_ETIQUETTE_NO_ADDRESS;
		return;
	}
	if (!v->reason)
		v->reason = limited(r, pw_etiquette_to(f), f->to_sent,
				    f->all_sent, f->kind != PW_ETIQUETTE_FLOOD,
				    f->auth);
	if (v->reason)
		v->act = PW_ETIQUETTE_HOLD;
}

bool pw_etiquette_cc_ok(const struct pw_etiquette_rules *r, int64_t sent)
{
	return r->per_recipient_per_hour < 0 || sent < r->per_recipient_per_hour;
}

void pw_etiquette_verdict_release(struct pw_etiquette_verdict *v)
{
	g_free(v->reason);
	v->reason = NULL;
	v->act = PW_ETIQUETTE_SEND;
}
