/*
 * patchwarden: who gets a reply and when (see bot/reply_policy.h).
 */
#include <string.h>
#include <time.h>

#include "bot/reply_policy.h"
#include "bot/log.h"
#include "bot/patchwork.h"
#include "bot/reply_queue.h"
#include "checks/etiquette.h"
#include "db/decision.h"
#include "db/identity.h"
#include "db/outbox.h"
#include "db/voice.h"

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
	/* No one reads a no-reply address: no reply goes there. */
	f->poster_ok = pw_reply_addr_reachable(f->poster);
	st = pw_db_identity_of_message(db, m->id, &f->auth);
	/* Only the bot's replies carry such Message-IDs (bot/reply.h). */
	if (!st && g_str_has_prefix(mail->msgid, "patchwarden."))
		st = pw_db_outbox_is_own(db, mail->msgid, &f->own_msgid);
	if (!st)
		st = pw_db_decision_stopped(db, m->id, f->poster, &f->poster_stop);
	if (!st && kind == PW_ETIQUETTE_PATCH && mail->sender_addr &&
	    mail->from_addr) {
		f->author = mail->from_addr;
		f->author_ok = pw_reply_addr_reachable(f->author);
		st = pw_db_decision_stopped(db, m->id, f->author, &f->author_stop);
		if (!st && f->author_ok)
			st = sent(db, cfg->per_recipient_per_hour, f->author, now,
				  &f->author_sent);
	}
	if (!st)
		st = global_sent(db, cfg, f->auth, now, &f->all_sent);
	return st;
}

/* The policy's clock: now, or the Date of the mail answered when a
 * list's history is replayed (preview). */
static int64_t clock_of(const struct pw_config *cfg, int64_t date)
{
	if (cfg->reply_replay && date > 0)
		return date;
	return (int64_t)time(NULL);
}

/*
 * The findings a reply lists, each with the message it was found on
 * and its key as it is recognised again (db/voice.h).  The findings
 * are borrowed from the facts read (struct pw_reply_patch_facts).
 */
struct said {
	GArray *items;		/* struct pw_reply_item */
	GArray *msgs;		/* int64_t, the message of each item */
	GPtrArray *authors;	/* author_key() of each item, owned */
	GArray *facts;		/* struct pw_reply_patch_facts, owned */
};

static void said_init(struct said *w)
{
	w->items = g_array_new(FALSE, TRUE, sizeof(struct pw_reply_item));
	w->msgs = g_array_new(FALSE, FALSE, sizeof(int64_t));
	w->authors = g_ptr_array_new_with_free_func(g_free);
	w->facts = g_array_new(FALSE, TRUE, sizeof(struct pw_reply_patch_facts));
}

static void said_release(struct said *w)
{
	guint i;

	for (i = 0; i < w->facts->len; i++)
		pw_reply_patch_facts_release(&g_array_index(w->facts,
					struct pw_reply_patch_facts, i));
	g_array_unref(w->facts);
	g_array_unref(w->items);
	g_array_unref(w->msgs);
	g_ptr_array_unref(w->authors);
}

/* The key of item i of w. */
static void key_of(const struct said *w, guint i, struct pw_voice_key *k)
{
	pw_voice_key_of(g_array_index(w->items, struct pw_reply_item, i).f,
		    w->authors->pdata[i], k);
}

/* "RULE\tFILE\tADDED" of k: what tells one finding from another on
 * another version (a new string). */
static char *key_text(const struct pw_voice_key *k)
{
	return g_strdup_printf("%s\t%s\t%s", k->rule, k->file, k->added);
}

/*
 * The author under which the findings of pf (message pf->m) are told
 * (*out, a new string): its poster, lower case, named as its identity
 * names it (pw_identity_flood_sender()), so that what was told to mail
 * merely claiming an address never counts as told to that address's
 * signed mail.  Unauthenticated mail keeps the bare address, the key
 * of every row stored before.
 */
static enum pw_status author_key(struct pw_db *db,
				 const struct pw_reply_patch_facts *pf,
				 char **out)
{
	char *addr = g_ascii_strdown(pw_mail_poster_addr(pf->m->mail), -1);
	enum pw_auth auth = PW_AUTH_NONE;
	enum pw_status st;

	st = pw_db_identity_of_message(db, pf->m->id, &auth);
	*out = pw_identity_flood_sender(addr, st ? PW_AUTH_NONE : auth);
	g_free(addr);
	return st;
}

/*
 * Adds the findings shown in pf (message pf->m) to w, each labelled
 * with its patch's subject when label; with fresh, only those no reply
 * reported to the same author before.  Every one shown, new or not,
 * goes into seen (key_text(), when not NULL).
 */
static enum pw_status said_add(struct pw_db *db, struct said *w,
			       const struct pw_reply_patch_facts *pf,
			       bool label, bool fresh, GHashTable *seen_keys)
{
	char *author = NULL;
	enum pw_status st;
	guint i;

	st = author_key(db, pf, &author);
	for (i = 0; !st && i < pf->shown->len; i++) {
		struct pw_reply_item it = { g_ptr_array_index(pf->shown, i),
					    label ? pf->m->mail->subject : NULL };
		struct pw_voice_key k;
		bool seen = false;

		g_array_append_val(w->items, it);
		g_array_append_val(w->msgs, pf->m->id);
		g_ptr_array_add(w->authors, g_strdup(author));
		key_of(w, w->items->len - 1, &k);
		if (seen_keys)
			g_hash_table_add(seen_keys, key_text(&k));
		if (fresh)
			st = pw_db_voice_reported(db, &k, &seen);
		if (seen) {
			g_array_set_size(w->items, w->items->len - 1);
			g_array_set_size(w->msgs, w->msgs->len - 1);
			g_ptr_array_set_size(w->authors, w->authors->len - 1);
		}
	}
	g_free(author);
	return st;
}

/* Adds the key_text() of every finding shown in pf to keys. */
static void keys_add(const struct pw_reply_patch_facts *pf, GHashTable *keys)
{
	char *author = g_ascii_strdown(pw_mail_poster_addr(pf->m->mail), -1);
	guint i;

	for (i = 0; i < pf->shown->len; i++) {
		struct pw_voice_key k;

		pw_voice_key_of(g_ptr_array_index(pf->shown, i), author, &k);
		g_hash_table_add(keys, key_text(&k));
	}
	g_free(author);
}

/* Records what reply row id reported (nothing when none was stored). */
static enum pw_status said_record(struct pw_db *db, const struct said *w,
				  int64_t id)
{
	enum pw_status st = PW_OK;
	guint i;

	for (i = 0; id && !st && i < w->items->len; i++) {
		struct pw_voice_key k;

		key_of(w, i, &k);
		st = pw_db_voice_record(db, id, g_array_index(w->msgs, int64_t, i),
					&k);
	}
	return st;
}

/*
 * Decides about the reply of the given kind to m, listing what w says,
 * under key, and queues it, recording what it reports.  held, when not
 * NULL, suppresses it whatever the etiquette says.  files_of: the
 * message whose touched files name maintainers (0: m's own); fixed:
 * the sentence on what this version fixed, or NULL.
 */
static enum pw_status answer(struct pw_db *db, const struct pw_config *cfg,
			     const struct pw_outbox_msg *m, const char *kind,
			     const char *key, const struct said *w,
			     const char *held, int64_t files_of,
			     const char *fixed, int64_t now)
{
	struct pw_etiquette_verdict v = { 0 };
	struct pw_etiquette_facts f;
	struct pw_etiquette_rules r;
	struct pw_reply_rcpt rc = { 0 };
	char *automated = NULL;
	enum pw_status st;
	int64_t id = 0;

	rules_of(cfg, &r);
	st = gather(db, cfg, m, PW_ETIQUETTE_PATCH, now, &f, &automated);
	if (st)
		goto out;
	f.held = held;
	st = pw_reply_queue_recipients(db, cfg, m, files_of,
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
		st = pw_reply_queue_patch(db, cfg, m, kind, key, &rc,
					  (const struct pw_reply_item *)(void *)w->items->data,
					  w->items->len, fixed, v.reason, now, &id);
	if (!st)
		st = said_record(db, w, id);
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
	struct said w;
	char *key = NULL;
	enum pw_status st;
	bool found, answered;

	said_init(&w);
	st = pw_reply_queue_read(db, message_id, cfg->reply_min_severity, &pf,
				 &found);
	g_array_append_val(w.facts, pf);
	if (!st && !found) {
		pw_warn("no message %" G_GINT64_FORMAT " to answer", message_id);
		st = PW_ERR_INPUT;
	}
	if (st || pf.shown->len == 0)
		goto out;
	key = g_strdup_printf("msg:%s", pf.m->mail->msgid);
	st = pw_db_outbox_answered(db, key, &answered);
	if (!st && !answered)
		st = said_add(db, &w, &pf, false, false, NULL);
	if (st || answered)
		goto out;
	st = answer(db, cfg, pf.m, "patch", key, &w, forced_hold, 0, NULL,
		    clock_of(cfg, pf.m->mail->date));
out:
	if (st && st != PW_ERR_INPUT)
		pw_error("queueing the reply to message %" G_GINT64_FORMAT ": %s",
			 message_id, pw_db_errmsg(db));
	said_release(&w);
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
	int64_t now = clock_of(cfg, f->last_seen);
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
	/* No one reads a no-reply address: no summary goes there. */
	ef.poster_ok = pw_reply_addr_reachable(f->sender_addr);
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

/* Whether the patch pf is one of a FLOOD (it has the finding): the
 * flood's summary answers it.  A list that switches FLOOD off has
 * none. */
static bool in_flood(const struct pw_reply_patch_facts *pf)
{
	guint i;

	for (i = 0; pf->all && i < pf->all->len; i++)
		if (!strcmp(((struct pw_finding *)pf->all->pdata[i])->rule,
			    pw_rule_at(PW_R_FLOOD)->id))
			return true;
	return false;
}

/*
 * The sentence on what series_id (of version version, whose findings
 * shown are now_keys, key_text()) fixed of what replies reported on the
 * newest earlier version of its lineage that was told anything: into
 * *out (new), NULL when no earlier version was told anything.
 */
static enum pw_status fixed_of(struct pw_db *db, int64_t series_id,
			       int version, GHashTable *now_keys, char **out)
{
	GArray *earlier = g_array_new(FALSE, FALSE, sizeof(int64_t));
	GPtrArray *told = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *rules = g_ptr_array_new();
	struct pw_voice_series es = { 0 };
	enum pw_status st;
	guint i, k, fixed = 0;
	GString *names;

	*out = NULL;
	st = pw_db_lineage_earlier(db, series_id, earlier);
	for (i = 0; !st && i < earlier->len && !told->len; i++) {
		st = pw_db_voice_series_reported(db, g_array_index(earlier,
								   int64_t, i),
						 told);
		if (!st && told->len)
			st = pw_db_voice_series(db, g_array_index(earlier,
								  int64_t, i),
						&es);
	}
	if (st || !told->len)
		goto out;
	for (i = 0; i + 2 < told->len; i += 3) {
		struct pw_voice_key k3 = { NULL, told->pdata[i],
					   told->pdata[i + 1],
					   told->pdata[i + 2] };
		char *t = key_text(&k3);
		bool seen = false;

		if (!g_hash_table_contains(now_keys, t)) {
			fixed++;
			for (k = 0; k < rules->len; k++)
				seen |= !strcmp(rules->pdata[k], told->pdata[i]);
			if (!seen)
				g_ptr_array_add(rules, told->pdata[i]);
		}
		g_free(t);
	}
	names = g_string_new(NULL);
	for (k = 0; k < rules->len && k < 3; k++)
		g_string_append_printf(names, "%s%s", k ? ", " : "",
				       (const char *)rules->pdata[k]);
	if (rules->len > 3)
		g_string_append(names, ", ...");
	if (fixed)
		*out = g_strdup_printf("Thanks for v%d: it fixes %u of the %u"
				       " findings reported on v%d (%s); only what"
				       " is new in it follows.", version, fixed,
				       told->len / 3, es.version, names->str);
	else
		*out = g_strdup_printf("v%d still has the %u findings reported on"
				       " v%d; they are not repeated here, only"
				       " what is new in it follows.", version,
				       told->len / 3, es.version);
	g_string_free(names, TRUE);
out:
	g_array_unref(earlier);
	g_ptr_array_unref(told);
	g_ptr_array_unref(rules);
	return st;
}

/*
 * One voice per series version: answers series_id (0: the lone patch
 * message_id) with one reply threaded to its cover letter, or to its
 * first patch when it has none, listing the findings of its patches
 * that no reply reported to their author before.  A patch of a FLOOD
 * and an identical copy of a patch already answered add nothing.  When
 * the series was answered already (message_id came after the reply,
 * its wait over), message_id is answered alone, for what is new in it.
 */
static enum pw_status answer_series(struct pw_db *db,
				    const struct pw_config *cfg,
				    int64_t series_id, int64_t message_id,
				    int64_t now)
{
	GArray *members = g_array_new(FALSE, FALSE, sizeof(int64_t));
	GHashTable *now_keys = g_hash_table_new_full(g_str_hash, g_str_equal,
						     g_free, NULL);
	struct pw_voice_series ss = { 0 };
	struct pw_outbox_msg *target = NULL;
	const char *kind = "patch";
	char *key = NULL, *fixed = NULL;
	enum pw_status st = PW_OK;
	int64_t target_id = message_id;
	bool found, answered = false, label;
	struct said w;
	guint i;

	said_init(&w);
	if (series_id)
		st = pw_db_voice_series(db, series_id, &ss);
	if (!st && series_id)
		st = pw_db_voice_members(db, series_id, members);
	if (st)
		goto out;
	if (members->len > 1 || (ss.cover && members->len)) {
		target_id = ss.cover ? ss.cover : ss.first;
		kind = "series";
	} else {
		g_array_set_size(members, 0);
		g_array_append_val(members, message_id);
	}
	st = pw_db_outbox_message(db, target_id, &target, &found);
	if (st || !found)
		goto out;
	key = g_strdup_printf("%s:%s", !strcmp(kind, "series") ? "series" :
			      "msg", target->mail->msgid);
	st = pw_db_outbox_answered(db, key, &answered);
	if (!st && answered && !strcmp(kind, "series")) {
		/* A late patch of a series answered already. */
		g_array_set_size(members, 0);
		g_array_append_val(members, message_id);
		pw_outbox_msg_free(target);
		target = NULL;
		kind = "patch";
		target_id = message_id;
		st = pw_db_outbox_message(db, target_id, &target, &found);
		if (st || !found)
			goto out;
		g_free(key);
		key = g_strdup_printf("msg:%s", target->mail->msgid);
		st = pw_db_outbox_answered(db, key, &answered);
	}
	if (st || answered)
		goto out;
	label = !strcmp(kind, "series");
	for (i = 0; !st && i < members->len; i++) {
		int64_t msg = g_array_index(members, int64_t, i);
		struct pw_reply_patch_facts pf;
		bool skip = false;

		st = pw_db_voice_copy_answered(db, msg, &skip);
		if (!st)
			st = pw_reply_queue_read(db, msg, cfg->reply_min_severity,
						 &pf, &found);
		else
			memset(&pf, 0, sizeof(pf));
		g_array_append_val(w.facts, pf);
		/* An identical copy of a patch answered adds nothing, but
		 * what it still carries is not fixed. */
		if (!st && found && skip)
			keys_add(&pf, now_keys);
		else if (!st && found && !in_flood(&pf))
			st = said_add(db, &w, &pf, label, true, now_keys);
	}
	if (st || !w.items->len)
		goto out;
	if (series_id)
		st = fixed_of(db, series_id, ss.version, now_keys, &fixed);
	if (st)
		goto out;
	st = answer(db, cfg, target, kind, key, &w, NULL,
		    label && ss.first ? ss.first : 0, fixed, now);
out:
	if (st)
		pw_error("queueing the reply to series %" G_GINT64_FORMAT
			 " (message %" G_GINT64_FORMAT "): %s", series_id,
			 message_id, pw_db_errmsg(db));
	said_release(&w);
	pw_outbox_msg_free(target);
	g_array_unref(members);
	g_hash_table_destroy(now_keys);
	g_free(key);
	g_free(fixed);
	return st;
}

/*
 * The reply to a patch of series_id (0: none): now when the series is
 * whole (every patch its counters announce is stored) or was answered
 * already, else it waits for the rest, PW_REPLY_SERIES_WAIT at most
 * (pw_reply_policy_release_waiting()).
 */
static enum pw_status reply_voice(struct pw_db *db, const struct pw_config *cfg,
				  int64_t message_id, int64_t series_id,
				  int64_t date, int64_t now)
{
	/* The wait runs from the patch's Date: the patches of a series
	 * are dated together, and mail read long after it was sent (an
	 * archive, a queue that was down) has nothing more to wait for. */
	int64_t since = date > 0 && date < now ? date : now;
	struct pw_voice_series ss = { 0 };
	enum pw_status st;
	int answered;

	/* Replayed (preview), time passes with the mail: a series whose
	 * wait ran out before this patch's Date is answered first.  Live,
	 * the end of the source read and the service do it, so that a
	 * series read in one go is answered in one go. */
	st = cfg->reply_replay ?
		pw_reply_policy_release_waiting(db, cfg, now, &answered) : PW_OK;
	if (!st && series_id)
		st = pw_db_voice_series(db, series_id, &ss);
	if (st)
		return st;
	if (series_id && ss.total > 1 && ss.have < ss.total) {
		bool done = false;
		char *key = NULL;
		struct pw_outbox_msg *t = NULL;
		bool found;

		/* Answered already (its wait ran out): the late patch is
		 * answered alone. */
		st = pw_db_outbox_message(db, ss.cover ? ss.cover : ss.first, &t,
					  &found);
		if (!st && found) {
			key = g_strdup_printf("series:%s", t->mail->msgid);
			st = pw_db_outbox_answered(db, key, &done);
		}
		pw_outbox_msg_free(t);
		g_free(key);
		if (st)
			return st;
		if (!done)
			return pw_db_voice_wait(db, series_id, since);
	}
	st = answer_series(db, cfg, series_id, message_id, now);
	if (!st && series_id)
		st = pw_db_voice_unwait(db, series_id);
	return st;
}

enum pw_status pw_reply_policy_release_waiting(struct pw_db *db,
					       const struct pw_config *cfg,
					       int64_t now, int *answered)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	enum pw_status st;
	guint i;

	*answered = 0;
	st = pw_db_voice_waiting(db, now - PW_REPLY_SERIES_WAIT, ids);
	for (i = 0; !st && i < ids->len; i++) {
		int64_t series_id = g_array_index(ids, int64_t, i);
		struct pw_voice_series ss;

		st = pw_db_voice_series(db, series_id, &ss);
		if (!st && ss.first)
			st = answer_series(db, cfg, series_id, ss.first, now);
		if (!st)
			st = pw_db_voice_unwait(db, series_id);
		*answered += !st && ss.first;
	}
	g_array_unref(ids);
	return st;
}

/*
 * A patch of a flood gets no reply of its own (held, with the reason,
 * so that it stays visible); the flood gets one summary, queued by the
 * patch that made it one, and the checks Patchwork has of its members
 * are posted again: they now fail for the flood.
 */
static enum pw_status reply_flood(struct pw_db *db, const struct pw_config *cfg,
				  int64_t flood_id, int64_t message_id,
				  int64_t series_id, int64_t date, int64_t now)
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
		return cfg->reply_per_patch ?
			pw_reply_policy_answer(db, cfg, message_id) :
			reply_voice(db, cfg, message_id, series_id, date, now);
	s = pw_db_flood_mark_reported(db, flood_id, &already);
	if (s)
		return s;
	if (!already) {
		s = pw_db_flood_info(db, flood_id, &info);
		if (s)
			return s;
		s = pw_db_flood_members(db, flood_id, &members);
		if (!s) {
			const int64_t *ids = (const int64_t *)(void *)members->data;
			char *repost = g_strdup_printf("posted again: flood %"
						       G_GINT64_FORMAT " of %s"
						       " found after it was posted",
						       flood_id, info.sender_addr);
			int n = 0;

			s = pw_reply_policy_answer_flood(db, cfg, &info, ids,
							 members->len);
			if (!s)
				s = pw_patchwork_requeue_messages(db, cfg, ids,
								  members->len,
								  repost, &n);
			g_free(repost);
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
					 int64_t flood_id, bool flood_rule_on,
					 int64_t series_id)
{
	int64_t now = clock_of(cfg, m->date);
	enum pw_status st;
	int released, folded;

	/* Replayed (preview), the undecided replies whose flood window
	 * closed before this patch's Date are decided first, as the
	 * service would have. */
	if (cfg->reply_replay) {
		st = pw_reply_policy_release_undecided(db, cfg, now, &released,
							&folded);
		if (st)
			return st;
	}
	/* Mail a machine sent is never answered nor held for a flood it
	 * takes no part in (the answer stores why). */
	if (m->automated)
		return pw_reply_policy_answer(db, cfg, message_id);
	/* A list that switches FLOOD off answers its patches as if no
	 * flood were ever found. */
	if (flood_rule_on && flood_id)
		return reply_flood(db, cfg, flood_id, message_id, series_id,
				   m->date, now);
	if (flood_rule_on && m->tags.total >= cfg->flood_count &&
	    !m->in_reply_to && !(m->references && m->references[0]))
		return pw_reply_policy_hold(db, cfg, message_id, PW_HOLD_UNDECIDED);
	if (cfg->reply_per_patch)
		return pw_reply_policy_answer(db, cfg, message_id);
	return reply_voice(db, cfg, message_id, series_id, m->date, now);
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
