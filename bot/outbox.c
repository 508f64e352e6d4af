/*
 * patchwarden: the reply policy and the send loop.
 *
 * Exactly once, as far as SMTP allows.  SMTP cannot be both at-most-once
 * and at-least-once: between the server's "250" after DATA and our
 * commit of that fact there is always a moment in which a crash leaves
 * us unsure.  patchwarden chooses at-least-once, deduplicated by
 * Message-ID:
 *
 *   1. A reply is composed once and stored (state pending) with its wire
 *      bytes and a Message-ID derived from what it answers; every attempt
 *      sends those same bytes.
 *   2. Before each SMTP transaction the row is claimed: state sending,
 *      attempts + 1, committed.
 *   3. Right after the server's answer the outcome is committed on its
 *      own: sent, pending again with a later next_attempt (4xx, network),
 *      or failed (5xx).
 *   4. A row still in "sending" when a sender starts belongs to a process
 *      that died in step 2-3 (an advisory lock guarantees no live sender
 *      holds it).  Its fate is unknown: if the process died before the
 *      server's 250, the server dropped the message (an MTA does not
 *      deliver a transaction whose client vanished before the end of
 *      DATA was acknowledged), so sending again is what keeps it from
 *      being lost.  It is therefore sent again, with the same
 *      Message-ID.  Only a crash in the microseconds between the 250
 *      and the commit can make a second copy, and that copy carries the
 *      same Message-ID, which lists and archives (Mailman, public-inbox)
 *      and MUAs collapse.
 *
 * The dry-run mbox follows the same steps; its window is between the
 * write and the commit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "bot/outbox.h"
#include "bot/log.h"
#include "bot/smtp.h"
#include "checks/patch.h"
#include "db/outbox.h"

#define MAX_LISTED 20		/* findings written out in one reply */
#define MAX_CC 20		/* Cc addresses copied from the original */
#define MAX_ATTEMPTS 12		/* transient failures before giving up */
#define BACKOFF_BASE 60		/* seconds before the first retry */
#define BACKOFF_MAX (6 * 3600)

/* Senders that are machines, on top of [reply] automated_senders. */
static const char *const automated[] = {
	"mailer-daemon@*", "postmaster@*", "noreply@*", "no-reply@*",
	"donotreply@*", "do-not-reply@*", "*-bounces@*", "*-bounce@*",
	"*-owner@*", "*-request@*", "lkp@intel.com", "syzbot@*",
	"syzbot+*", "patchwork@*", NULL,
};

static int64_t now(void)
{
	return (int64_t)time(NULL);
}

/* The bot's name and address from [smtp] from ("Name <addr>" or addr). */
struct sender {
	char *name;
	char *addr;
};

static void sender_init(struct sender *s, const struct pw_config *cfg)
{
	/* [smtp] from was read and checked with the configuration. */
	s->addr = g_strdup(cfg->from_addr);
	s->name = g_strdup(cfg->reply_from_name ? cfg->reply_from_name :
			   *cfg->from_name ? cfg->from_name : "patchwarden");
}

static void sender_release(struct sender *s)
{
	g_free(s->name);
	g_free(s->addr);
}

static bool is_automated(const struct pw_config *cfg, const char *addr)
{
	char *low = g_ascii_strdown(addr, -1);
	bool hit = false;
	size_t i;

	for (i = 0; automated[i] && !hit; i++)
		hit = g_pattern_match_simple(automated[i], low);
	for (i = 0; cfg->automated_senders && cfg->automated_senders[i] && !hit; i++) {
		char *pat = g_ascii_strdown(cfg->automated_senders[i], -1);

		hit = g_pattern_match_simple(g_strstrip(pat), low);
		g_free(pat);
	}
	g_free(low);
	return hit;
}

/* True when an Auto-Submitted value means a machine sent the message
 * (RFC 3834: anything but "no", parameters aside). */
static bool auto_submitted(const char *v)
{
	char *tok;
	bool no;

	if (!v)
		return false;
	tok = g_strstrip(g_strndup(v, strcspn(v, ";(")));
	no = !*tok || !g_ascii_strcasecmp(tok, "no");
	g_free(tok);
	return !no;
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
	int64_t since = now() - 3600, n;
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

/* Sets *why (new string) to the reason m may not be answered at all,
 * or NULL. */
static enum pw_status never_answer(struct pw_db *db, const struct pw_config *cfg,
				   const struct sender *me,
				   const struct pw_outbox_msg *m, char **why)
{
	const struct pw_mail *mail = m->mail;
	enum pw_status st;
	bool own = false;

	*why = NULL;
	if (m->backfill) {
		*why = g_strdup("read while backfilling an archive");
		return PW_OK;
	}
	if (cfg->reply_max_age > 0 && mail->date > 0 &&
	    mail->date < g_get_real_time() / G_USEC_PER_SEC - cfg->reply_max_age) {
		*why = g_strdup_printf("older than %d days: too late to answer",
				       cfg->reply_max_age / 86400);
		return PW_OK;
	}
	if (auto_submitted(mail->auto_submitted)) {
		char *v = pw_reply_clean(mail->auto_submitted, 60);

		*why = g_strdup_printf("automated mail (Auto-Submitted: %s)", v);
		g_free(v);
		return PW_OK;
	}
	if (!g_ascii_strcasecmp(mail->from_addr, me->addr)) {
		own = true;
	} else if (g_str_has_prefix(mail->msgid, "patchwarden.")) {
		st = pw_db_outbox_is_own(db, mail->msgid, &own);
		if (st)
			return st;
	}
	if (own)
		*why = g_strdup("the bot's own mail");
	else if (is_automated(cfg, mail->from_addr))
		*why = g_strdup_printf("automated sender %s", mail->from_addr);
	return PW_OK;
}

/* Adds addr to v unless it is there already, the author's or the bot's. */
static void add_cc(GPtrArray *v, const char *addr, const char *author,
		   const char *bot)
{
	guint i;

	if (!addr || !pw_reply_addr_ok(addr) || !g_ascii_strcasecmp(addr, author) ||
	    !g_ascii_strcasecmp(addr, bot) || v->len >= MAX_CC)
		return;
	for (i = 0; i < v->len; i++)
		if (!g_ascii_strcasecmp(g_ptr_array_index(v, i), addr))
			return;
	g_ptr_array_add(v, g_ascii_strdown(addr, -1));
}

/* The Cc of a reply, from the settings of every list m was seen on. */
static char **cc_for(const struct pw_config *cfg, const struct pw_outbox_msg *m,
		     const struct sender *me)
{
	GPtrArray *v = g_ptr_array_new();
	size_t i, j, nl = g_strv_length(m->lists);

	for (i = 0; i < (nl ? nl : 1); i++) {
		const struct pw_list_conf *l = pw_config_list(cfg,
							      nl ? m->lists[i] : NULL);

		if (l->cc_list)
			add_cc(v, l->address, m->mail->from_addr, me->addr);
		if (l->cc_all)
			for (j = 0; m->mail->recipients[j]; j++)
				add_cc(v, m->mail->recipients[j], m->mail->from_addr,
				       me->addr);
	}
	g_ptr_array_add(v, NULL);
	return (char **)g_ptr_array_free(v, FALSE);
}

/* Stores a composed reply; hold is the suppression reason or NULL. */
static enum pw_status store(struct pw_db *db, const char *kind,
			    const char *key, int64_t message_id,
			    const struct sender *me, const struct pw_reply *r,
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
	n.mail_from = me->addr;
	n.rcpt_to = r->to;
	n.recipients = rcpts;
	n.subject = r->subject;
	n.raw = g_bytes_get_data(r->wire, &len);
	n.raw_len = len;
	n.now = now();
	/* One statement: atomic on its own, or part of the caller's batch. */
	st = pw_db_outbox_add(db, &n, NULL, &added);
	if (st)
		pw_error("cannot store the reply to %s: %s", key, pw_db_errmsg(db));
	else if (added && hold)
		pw_debug("reply to %s held back: %s", key, hold);
	g_free(rcpts);
	return st;
}

/* One patch message with its findings at or above [reply] min_severity,
 * each with the added line it quotes, as stored. */
struct patch_items {
	struct pw_outbox_msg *m;
	GPtrArray *all;		/* every stored finding (owns them) */
	GPtrArray *shown;	/* those worth a reply (borrowed) */
};

static void patch_items_release(struct patch_items *pi)
{
	pw_outbox_msg_free(pi->m);
	if (pi->shown)
		g_ptr_array_free(pi->shown, TRUE);
	if (pi->all)
		g_ptr_array_unref(pi->all);
	memset(pi, 0, sizeof(*pi));
}

static enum pw_status collect(struct pw_db *db, const struct pw_config *cfg,
			      int64_t message_id, struct patch_items *pi)
{
	enum pw_status st;
	bool found;
	guint i;

	memset(pi, 0, sizeof(*pi));
	st = pw_db_outbox_message(db, message_id, &pi->m, &found);
	if (!st && !found)
		st = PW_ERR_INPUT;
	if (st)
		return st;
	pi->shown = g_ptr_array_new();
	if (pi->m->mail->kind != PW_MAIL_PATCH)
		return PW_OK;
	st = pw_db_outbox_findings(db, message_id, &pi->all);
	if (st)
		return st;
	for (i = 0; i < pi->all->len; i++) {
		struct pw_finding *f = g_ptr_array_index(pi->all, i);

		if (f->severity >= cfg->reply_min_severity)
			g_ptr_array_add(pi->shown, f);
	}
	return PW_OK;
}

/*
 * Decides about, composes and stores the reply of the given kind to m,
 * listing items, under key.  forced_hold, when not NULL, suppresses it
 * whatever the policy says.
 */
static enum pw_status answer(struct pw_db *db, const struct pw_config *cfg,
			     const struct sender *me, const struct pw_outbox_msg *m,
			     const char *kind, const char *key,
			     const struct pw_reply_item *items, size_t n,
			     const char *forced_hold)
{
	struct pw_reply_self self = { 0 };
	struct pw_reply *r = NULL;
	char **cc = NULL;
	char *hold = NULL, *err = NULL, *msgid = NULL;
	enum pw_status st = PW_OK;

	if (forced_hold)
		hold = g_strdup(forced_hold);
	if (!hold)
		st = never_answer(db, cfg, me, m, &hold);
	if (st)
		goto out;
	if (!hold && !pw_reply_addr_ok(m->mail->from_addr)) {
		pw_warn("message %s: no usable address to reply to", m->mail->msgid);
		goto out;
	}
	if (!hold)
		st = rate_limited(db, cfg, m->mail->from_addr, true, &hold);
	if (st)
		goto out;

	cc = cc_for(cfg, m, me);
	msgid = pw_reply_msgid(kind, m->mail->msgid, me->addr);
	self.name = me->name;
	self.addr = me->addr;
	self.reply_to = cfg->reply_to;
	self.dashboard_url = cfg->dashboard_url;
	self.msgid = msgid;
	self.date = now();
	st = pw_reply_patch(&self, m->mail, (const char *const *)cc,
			    m->lists[0] ? m->lists[0] : m->mail->list_id,
			    items, n, MAX_LISTED, &r, &err);
	if (st) {
		/* Nothing to store: the message cannot be answered. */
		pw_warn("message %s: cannot compose a reply: %s", m->mail->msgid, err);
		st = PW_OK;
		goto out;
	}
	st = store(db, kind, key, m->id, me, r,
		   m->mail->msgid_derived ? NULL : m->mail->msgid, hold);
out:
	pw_reply_free(r);
	g_strfreev(cc);
	g_free(hold);
	g_free(err);
	g_free(msgid);
	return st;
}

static enum pw_status queue(struct pw_db *db, const struct pw_config *cfg,
			    int64_t message_id, const char *forced_hold)
{
	struct patch_items pi;
	struct pw_reply_item *items = NULL;
	struct sender me;
	char *key = NULL;
	enum pw_status st;
	bool answered;
	guint i;

	sender_init(&me, cfg);
	st = collect(db, cfg, message_id, &pi);
	if (st || pi.shown->len == 0)
		goto out;
	key = g_strdup_printf("msg:%s", pi.m->mail->msgid);
	st = pw_db_outbox_answered(db, key, &answered);
	if (st || answered)
		goto out;
	items = g_new0(struct pw_reply_item, pi.shown->len);
	for (i = 0; i < pi.shown->len; i++)
		items[i].f = g_ptr_array_index(pi.shown, i);
	st = answer(db, cfg, &me, pi.m, "patch", key, items, pi.shown->len,
		    forced_hold);
out:
	if (st && st != PW_ERR_INPUT)
		pw_error("queueing the reply to message %" G_GINT64_FORMAT ": %s",
			 message_id, pw_db_errmsg(db));
	g_free(items);
	patch_items_release(&pi);
	sender_release(&me);
	g_free(key);
	return st;
}

enum pw_status pw_outbox_queue_series(struct pw_db *db,
				      const struct pw_config *cfg,
				      int64_t series_id)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	GArray *items = g_array_new(FALSE, TRUE, sizeof(struct pw_reply_item));
	struct patch_items *pis = NULL;
	struct pw_outbox_msg *target = NULL;
	struct sender me;
	char *key = NULL;
	enum pw_status st;
	int64_t cover;
	int total, changed;
	bool found, answered;
	guint i, k;

	sender_init(&me, cfg);
	st = pw_db_outbox_series(db, series_id, &cover, &total, ids, &found);
	if (!st && !found)
		st = PW_ERR_INPUT;
	if (st || ids->len == 0)
		goto out;
	pis = g_new0(struct patch_items, ids->len);
	for (i = 0; i < ids->len && !st; i++)
		st = collect(db, cfg, g_array_index(ids, int64_t, i), &pis[i]);
	if (st)
		goto out;
	for (i = 0; i < ids->len; i++)
		for (k = 0; k < pis[i].shown->len; k++) {
			struct pw_reply_item it = {
				g_ptr_array_index(pis[i].shown, k),
				pis[i].m->mail->subject,
			};

			g_array_append_val(items, it);
		}
	if (items->len == 0)
		goto out;
	/* The series is answered at its cover letter, else its first patch. */
	st = pw_db_outbox_message(db, cover ? cover : g_array_index(ids, int64_t, 0),
				  &target, &found);
	if (!st && !found)
		st = PW_ERR_DB;
	if (st)
		goto out;
	key = g_strdup_printf("series:%s", target->mail->msgid);
	st = pw_db_outbox_answered(db, key, &answered);
	if (st || answered)
		goto out;
	for (i = 0; i < ids->len && !st; i++)
		st = pw_db_outbox_supersede(db, g_array_index(ids, int64_t, i),
					    "superseded by the reply to its series",
					    &changed);
	if (!st)
		st = answer(db, cfg, &me, target, "series", key,
			    (const struct pw_reply_item *)(void *)items->data,
			    items->len, NULL);
out:
	if (st && st != PW_ERR_INPUT)
		pw_error("queueing the reply to series %" G_GINT64_FORMAT ": %s",
			 series_id, pw_db_errmsg(db));
	for (i = 0; pis && i < ids->len; i++)
		patch_items_release(&pis[i]);
	g_free(pis);
	g_array_unref(items);
	g_array_unref(ids);
	pw_outbox_msg_free(target);
	sender_release(&me);
	g_free(key);
	return st;
}

enum pw_status pw_outbox_queue_message(struct pw_db *db,
				       const struct pw_config *cfg,
				       int64_t message_id)
{
	return queue(db, cfg, message_id, NULL);
}

enum pw_status pw_outbox_hold_message(struct pw_db *db,
				      const struct pw_config *cfg,
				      int64_t message_id, const char *reason)
{
	return queue(db, cfg, message_id, reason ? reason : "held back");
}

enum pw_status pw_outbox_queue_flood(struct pw_db *db,
				     const struct pw_config *cfg,
				     const struct pw_flood_info *f,
				     const int64_t *members, size_t n)
{
	struct pw_reply_self self = { 0 };
	struct pw_reply *r = NULL;
	struct sender me;
	char *key = g_strdup_printf("flood:%s", f->key);
	char *hold = NULL, *err = NULL, *msgid = NULL, *why;
	enum pw_status st = PW_OK;
	bool answered = false;
	size_t i;
	int changed;

	sender_init(&me, cfg);
	why = g_strdup_printf("superseded by the summary of flood %s", f->key);
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
	if (!g_ascii_strcasecmp(f->sender_addr, me.addr))
		hold = g_strdup("the bot's own mail");
	else if (is_automated(cfg, f->sender_addr))
		hold = g_strdup_printf("automated sender %s", f->sender_addr);
	else
		st = rate_limited(db, cfg, f->sender_addr, false, &hold);
	if (st)
		goto out;

	msgid = pw_reply_msgid("flood", f->key, me.addr);
	self.name = me.name;
	self.addr = me.addr;
	self.reply_to = cfg->reply_to;
	self.dashboard_url = cfg->dashboard_url;
	self.msgid = msgid;
	self.date = now();
	st = pw_reply_flood(&self, f, &r, &err);
	if (st) {
		pw_warn("flood %s: cannot compose the summary: %s", f->key, err);
		st = PW_OK;
		goto out;
	}
	st = store(db, "flood", key, 0, &me, r,
		   pw_reply_msgid_ok(f->first_msgid) ? f->first_msgid : NULL,
		   hold);
out:
	pw_reply_free(r);
	sender_release(&me);
	g_free(key);
	g_free(why);
	g_free(hold);
	g_free(err);
	g_free(msgid);
	return st;
}

/* ---- sending ---- */

static int64_t backoff(int attempts)
{
	int64_t d = BACKOFF_BASE;

	while (--attempts > 0 && d < BACKOFF_MAX)
		d *= 2;
	return d < BACKOFF_MAX ? d : BACKOFF_MAX;
}

/*
 * Takes the sender's lock, a file beside the database, held until the
 * process exits or *fd is closed.  The kernel releases it when the
 * process dies, so whoever holds it knows that rows in "sending" are
 * orphans.
 */
static enum pw_status lock_sender(struct pw_db *db, int *fd, char **err)
{
	char *path;

	*fd = -1;
	if (!db->path || !*db->path || !strcmp(db->path, ":memory:"))
		return PW_OK;
	path = g_strdup_printf("%s.outbox-lock", db->path);
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (*fd < 0) {
		*err = g_strdup_printf("%s: %s", path, g_strerror(errno));
		g_free(path);
		return PW_ERR_IO;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		*err = g_strdup_printf("%s: another process is sending the outbox",
				       path);
		close(*fd);
		*fd = -1;
		g_free(path);
		return PW_ERR_TRANSIENT;
	}
	g_free(path);
	return PW_OK;
}

/* Appends one reply to the mbox (mboxrd: ">From " lines get one more '>'). */
static enum pw_status mbox_append(FILE *fp, const struct pw_outbox_row *r)
{
	gsize len;
	const char *p = g_bytes_get_data(r->raw, &len), *end = p + len;
	GDateTime *d = g_date_time_new_now_utc();
	char *stamp = g_date_time_format(d, "%a %b %_d %H:%M:%S %Y");
	bool ok;

	fprintf(fp, "From %s %s\n", r->mail_from, stamp);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t k = 0;

		while (k < n && p[k] == '>')
			k++;
		if (n - k >= 5 && !memcmp(p + k, "From ", 5))
			fputc('>', fp);
		if (n && p[n - 1] == '\r')
			n--;
		fwrite(p, 1, n, fp);
		fputc('\n', fp);
		p = nl ? nl + 1 : end;
	}
	fputc('\n', fp);
	ok = fflush(fp) == 0 && fsync(fileno(fp)) == 0;
	g_free(stamp);
	g_date_time_unref(d);
	return ok ? PW_OK : PW_ERR_IO;
}

/* Sends one claimed row; records the outcome. */
static enum pw_status send_one(struct pw_db *db, struct pw_smtp *smtp, FILE *mbox,
			       int64_t id, struct pw_outbox_stats *st,
			       char **err)
{
	struct pw_outbox_row *r = NULL;
	struct pw_smtp_result res;
	enum pw_status s, outcome;
	char **rcpt = NULL;
	bool claimed, found;

	s = pw_db_outbox_claim(db, id, now(), &claimed);
	if (s || !claimed)
		return s;
	st->attempted++;
	/* Claimed a moment ago by this, the only sender: the row is there. */
	s = pw_db_outbox_get(db, id, true, &r, &found);
	if (s || !found)
		return s ? s : PW_ERR_DB;
	if (mbox) {
		outcome = mbox_append(mbox, r);
		memset(&res, 0, sizeof(res));
		if (outcome)
			snprintf(res.error, sizeof(res.error), "%s: %s",
				 "cannot write the dry-run mbox", g_strerror(errno));
	} else {
		rcpt = g_strsplit(r->recipients, "\n", -1);
		outcome = pw_smtp_send(smtp, r->mail_from, (const char *const *)rcpt,
				       g_bytes_get_data(r->raw, NULL),
				       g_bytes_get_size(r->raw), &res);
	}
	switch (outcome) {
	case PW_OK:
		s = pw_db_outbox_mark_sent(db, id, now(), mbox ? "mbox" : "smtp",
					   res.code, res.error[0] ? res.error : NULL);
		st->sent++;
		pw_info("reply %" G_GINT64_FORMAT " sent to %s", id, r->rcpt_to);
		break;
	case PW_ERR_PERMANENT:
		s = pw_db_outbox_mark_failed(db, id, res.code, res.error);
		st->failed++;
		pw_warn("reply %" G_GINT64_FORMAT " to %s refused for good: %s",
			id, r->rcpt_to, res.error);
		break;
	case PW_ERR_USAGE:
		/* Nothing can go out until the configuration is fixed; the
		 * reply is not to blame, so the attempt is given back. */
		s = pw_db_outbox_unclaim(db, id, now() + BACKOFF_BASE,
					 res.code, res.error);
		st->deferred++;
		*err = g_strdup_printf("SMTP configuration: %s", res.error);
		if (!s)
			s = PW_ERR_USAGE;
		break;
	default:
		if (r->attempts >= MAX_ATTEMPTS) {
			char *e = g_strdup_printf("gave up after %d attempts: %s",
						  r->attempts, res.error);

			s = pw_db_outbox_mark_failed(db, id, res.code, e);
			st->failed++;
			pw_warn("reply %" G_GINT64_FORMAT ": %s", id, e);
			g_free(e);
		} else {
			s = pw_db_outbox_mark_retry(db, id,
						    now() + backoff(r->attempts),
						    res.code, res.error);
			st->deferred++;
			pw_info("reply %" G_GINT64_FORMAT " to %s deferred: %s",
				id, r->rcpt_to, res.error);
		}
		/* A dead mbox disk or server fails the rest of the batch too. */
		if (mbox && !s) {
			*err = g_strdup(res.error);
			s = PW_ERR_IO;
		}
		break;
	}
	g_strfreev(rcpt);
	pw_outbox_row_free(r);
	return s;
}

enum pw_status pw_outbox_send_due(struct pw_db *db, const struct pw_config *cfg,
				  const struct pw_outbox_send_opts *o,
				  struct pw_outbox_stats *st, char **err)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	struct pw_smtp *smtp = NULL;
	FILE *mbox = NULL;
	enum pw_status s;
	int lock = -1, recovered = 0;
	guint i;

	memset(st, 0, sizeof(*st));
	if (db->depth) {
		*err = g_strdup("pw_outbox_send_due called inside a transaction");
		s = PW_ERR_USAGE;
		goto out;
	}
	s = lock_sender(db, &lock, err);
	if (s)
		goto out;
	s = pw_db_outbox_recover(db, now(), &recovered);
	if (s)
		goto db_err;
	st->recovered = recovered;
	if (recovered)
		pw_warn("%d replies were interrupted during a send; sending "
			"them again with the same Message-ID", recovered);
	s = pw_db_outbox_due(db, now(), o && o->all,
			     o && o->limit > 0 ? o->limit : 100, ids);
	if (s)
		goto db_err;
	if (ids->len == 0)
		goto out;
	if (!cfg->smtp_url) {
		mbox = fopen(cfg->dry_run_mbox, "a");
		if (!mbox) {
			*err = g_strdup_printf("%s: %s", cfg->dry_run_mbox,
					       g_strerror(errno));
			s = PW_ERR_IO;
			goto out;
		}
	} else {
		struct pw_smtp_opts so = {
			.url = cfg->smtp_url,
			.user = cfg->smtp_user,
			.password = cfg->smtp_password,
			.starttls = cfg->smtp_starttls,
			.helo = cfg->smtp_helo,
			.cainfo = cfg->smtp_cainfo,
			.timeout = cfg->smtp_timeout,
		};

		smtp = pw_smtp_new(&so);
		if (!smtp) {
			*err = g_strdup("cannot start libcurl");
			s = PW_ERR_TRANSIENT;
			goto out;
		}
	}
	for (i = 0; i < ids->len; i++) {
		s = send_one(db, smtp, mbox, g_array_index(ids, int64_t, i), st, err);
		if (s == PW_ERR_USAGE || s == PW_ERR_IO)
			goto out;
		if (s)
			goto db_err;
	}
	goto out;
db_err:
	if (!*err)
		*err = g_strdup(pw_db_errmsg(db));
out:
	if (mbox)
		fclose(mbox);
	pw_smtp_free(smtp);
	if (lock >= 0)
		close(lock);
	g_array_unref(ids);
	return s;
}
