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
#include "bot/mail.h"
#include "bot/pubinbox.h"
#include "checks/maintainers.h"
#include "db/identity.h"
#include "db/voice.h"

#define MAX_CC 20		/* Cc addresses a reply carries, at most */

/* The bot as its replies present it, from [smtp] from and [reply]. */
static void self_init(struct pw_reply_self *me, const struct pw_config *cfg,
		      const char *msgid, int64_t now)
{
	memset(me, 0, sizeof(*me));
	/* [smtp] from was read and checked with the configuration. */
	me->addr = cfg->from_addr;
	me->name = cfg->reply_from_name ? cfg->reply_from_name :
		*cfg->from_name ? cfg->from_name : "patchwarden";
	me->reply_to = cfg->reply_to;
	me->dashboard_url = cfg->dashboard_url;
	me->msgid = msgid;
	me->date = now;
}

/* Whether addr is the posting address a List-Id names, as
 * "linux-hwmon@vger.kernel.org" is that of "linux-hwmon.vger.kernel.org". */
static bool is_list_id_addr(const char *list_id, const char *addr)
{
	const char *at = strchr(addr, '@');
	size_t local = at ? (size_t)(at - addr) : 0;

	return local && strlen(list_id) == strlen(addr) &&
	       !g_ascii_strncasecmp(list_id, addr, local) &&
	       list_id[local] == '.' &&
	       !g_ascii_strcasecmp(list_id + local + 1, at + 1);
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
	for (i = 0; list_id && recipients && recipients[i]; i++)
		if (is_list_id_addr(list_id, recipients[i]) &&
		    pw_reply_addr_ok(recipients[i]))
			return g_ascii_strdown(recipients[i], -1);
	return NULL;
}

/* ---- who gets a reply ---- */

void pw_reply_rcpt_release(struct pw_reply_rcpt *rc)
{
	g_strfreev(rc->maintainers);
	g_strfreev(rc->cc);
	g_free(rc->none);
	memset(rc, 0, sizeof(*rc));
}

/* Adds addr to v (lower-cased) unless it is there already, is skip or
 * the bot's, or v is full. */
static void add_addr(GPtrArray *v, const char *addr, const char *skip,
		     const char *bot, guint max)
{
	guint i;

	/* No one reads a no-reply address: it gets no copy. */
	if (!addr || !pw_reply_addr_reachable(addr) ||
	    (skip && !g_ascii_strcasecmp(addr, skip)) ||
	    !g_ascii_strcasecmp(addr, bot) || v->len >= max)
		return;
	for (i = 0; i < v->len; i++)
		if (!g_ascii_strcasecmp(g_ptr_array_index(v, i), addr))
			return;
	g_ptr_array_add(v, g_ascii_strdown(addr, -1));
}

static char **strv_of(GPtrArray *v)
{
	g_ptr_array_add(v, NULL);
	return (char **)g_ptr_array_free(v, FALSE);
}

/* The lists of names to look up: names, or the defaults' (NULL) when
 * the mail was seen on none. */
static size_t nlists(char **names)
{
	size_t n = names ? g_strv_length(names) : 0;

	return n ? n : 1;
}

static const struct pw_list_conf *list_at(const struct pw_config *cfg,
					  char **names, size_t i)
{
	return pw_config_list(cfg, names && names[0] ? names[i] : NULL);
}

/* Whether addr is the posting address of a list whose mail is off:
 * such a list gets no copy, whatever another list's policy copies. */
static bool list_mail_off(const struct pw_config *cfg, const char *addr)
{
	guint i;

	for (i = 0; cfg->lists && i < cfg->lists->len; i++) {
		const struct pw_list_conf *l = g_ptr_array_index(cfg->lists, i);

		if (l->mail == PW_MAIL_OFF && l->address &&
		    !g_ascii_strcasecmp(l->address, addr))
			return true;
	}
	return false;
}

/*
 * Whether the configuration vouches for addr, a recipient of mail seen
 * on the lists names: a list's posting address ([list] address, or
 * the address of one of names as a List-Id) or a maintainer of one of
 * names ([list] maintainer).  Any other recipient is whoever the
 * patch's sender chose to write in its To or Cc.
 */
static bool vouched(const struct pw_config *cfg, char **names, const char *addr)
{
	size_t i;

	if (pw_reply_queue_is_list(cfg, names, addr))
		return true;
	for (i = 0; names && names[i]; i++) {
		if (pw_config_list_maintainer(pw_config_list(cfg, names[i]),
					      addr))
			return true;
	}
	return false;
}

bool pw_reply_queue_is_list(const struct pw_config *cfg, char **names,
			    const char *addr)
{
	size_t i;

	for (i = 0; cfg->lists && i < cfg->lists->len; i++) {
		const struct pw_list_conf *l = g_ptr_array_index(cfg->lists, i);

		if (l->address && !g_ascii_strcasecmp(l->address, addr))
			return true;
	}
	for (i = 0; names && names[i]; i++)
		if (is_list_id_addr(names[i], addr))
			return true;
	return false;
}

char *pw_reply_queue_mail_off(const struct pw_config *cfg, char **names)
{
	GString *s;
	size_t i, n = nlists(names);

	for (i = 0; i < n; i++)
		if (list_at(cfg, names, i)->mail != PW_MAIL_OFF)
			return NULL;
	if (!names || !names[0])
		return g_strdup("mail off for mail on no list (a list's mail"
				" is off until [list NAME] mail is set)");
	s = g_string_new(n == 1 ? "mail off for list " : "mail off for lists ");
	for (i = 0; i < n; i++) {
		char *name = pw_reply_clean(names[i], 100);

		g_string_append_printf(s, "%s%s", i ? ", " : "", name);
		g_free(name);
	}
	return g_string_free(s, FALSE);
}

/*
 * The files a stored patch touches (its old and new paths, each once),
 * from its raw bytes, which the store or the archive keeps: only the
 * MAINTAINERS lookups need them.  NULL-terminated; an empty array when
 * the bytes cannot be read (said in the log).
 */
static char **touched_files(struct pw_db *db, int64_t message_id)
{
	GPtrArray *v = g_ptr_array_new();
	struct pw_mail *mail = NULL;
	struct pw_patch *p = NULL;
	GBytes *raw = NULL;
	char *err = NULL;
	const char *data;
	gsize len;
	size_t i;

	if (pw_pubinbox_message(db, message_id, &raw) || !raw) {
		pw_warn("message %" G_GINT64_FORMAT ": its bytes cannot be read:"
			" no MAINTAINERS lookup for it", message_id);
		goto out;
	}
	data = g_bytes_get_data(raw, &len);
	if (pw_mail_parse(data, len, &mail, &err) || !mail->diff) {
		pw_warn("message %" G_GINT64_FORMAT ": no diff to read the touched"
			" files from%s%s", message_id, err ? ": " : "",
			err ? err : "");
		goto out;
	}
	p = pw_diff_parse(mail->diff, strlen(mail->diff));
	for (i = 0; i < p->nfiles; i++) {
		const char *paths[2] = { p->files[i].old_path, p->files[i].new_path };
		size_t k, j;

		for (k = 0; k < 2; k++) {
			bool seen = !paths[k];

			for (j = 0; !seen && j < v->len; j++)
				seen = !strcmp(v->pdata[j], paths[k]);
			if (!seen)
				g_ptr_array_add(v, g_strdup(paths[k]));
		}
	}
out:
	pw_patch_free(p);
	pw_mail_free(mail);
	if (raw)
		g_bytes_unref(raw);
	g_free(err);
	return strv_of(v);
}

/* Adds the M: addresses (with_reviewers: and the R:) of the entries of
 * m covering files to v, the catch-all entries' M: left out. */
static void add_maintainers(GPtrArray *v, const struct pw_maintainers *m,
			    char **files, bool with_reviewers, const char *skip,
			    const char *bot, guint max)
{
	size_t i, k;

	if (with_reviewers) {
		char **a = pw_maintainers_addresses(m, (const char *const *)files,
						    g_strv_length(files));

		for (i = 0; a[i]; i++)
			add_addr(v, a[i], skip, bot, max);
		g_strfreev(a);
		return;
	}
	for (i = 0; files[i]; i++) {
		const struct pw_maint_entry **e = pw_maintainers_for_path(m, files[i]);

		for (k = 0; e[k]; k++) {
			size_t j;

			if (e[k]->catch_all)
				continue;
			for (j = 0; e[k]->maintainers && e[k]->maintainers[j]; j++)
				add_addr(v, e[k]->maintainers[j], skip, bot, max);
		}
		g_free(e);
	}
}

/*
 * What the lists names ask for a reply to poster (and the original's
 * recipients, the author in-body when cc_author is set, and the files,
 * each may be NULL), as pw_reply_queue_recipients() says.  files is
 * read (by *files_of) only when a list needs it.
 */
static enum pw_status recipients(struct pw_db *db, const struct pw_config *cfg,
				 char **names, const char *poster,
				 const char *author, char **orig,
				 size_t arbitrary, int64_t message_id,
				 struct pw_reply_rcpt *rc)
{
	GPtrArray *mt = g_ptr_array_new(), *cc = g_ptr_array_new();
	const char *bot = cfg->from_addr;
	char **files = NULL;
	bool to_author = false, any = false;
	size_t i, j, n = nlists(names), chosen = 0;

	memset(rc, 0, sizeof(*rc));
	rc->none = pw_reply_queue_mail_off(cfg, names);
	for (i = 0; i < n; i++) {
		const struct pw_list_conf *l = list_at(cfg, names, i);

		if (l->mail == PW_MAIL_OFF)
			continue;
		any = true;
		if (l->maintainers && message_id && !files &&
		    (l->mail == PW_MAIL_MAINTAINERS || l->cc_maintainers))
			files = touched_files(db, message_id);
		switch (l->mail) {
		case PW_MAIL_MAINTAINERS:
			for (j = 0; l->maintainer_addrs[j]; j++)
				add_addr(mt, l->maintainer_addrs[j], NULL, bot, MAX_CC);
			if (l->maintainers && files)
				add_maintainers(mt, l->maintainers, files, false,
						NULL, bot, MAX_CC);
			break;
		case PW_MAIL_AUTHOR_CC:
			if (l->cc_list)
				add_addr(cc, l->address, poster, bot, MAX_CC);
			for (j = 0; l->cc_all && orig && orig[j]; j++) {
				guint had = cc->len;

				if (list_mail_off(cfg, orig[j]))
					continue;
				/* A patch's Cc is its sender's choice: at
				 * most arbitrary of those no list vouches
				 * for (docs/security.md). */
				if (vouched(cfg, names, orig[j]))
					add_addr(cc, orig[j], poster, bot, MAX_CC);
				else if (chosen < arbitrary) {
					add_addr(cc, orig[j], poster, bot, MAX_CC);
					chosen += cc->len > had;
				}
			}
			/* fall through */
		case PW_MAIL_AUTHOR:
			to_author = true;
			break;
		case PW_MAIL_OFF:
			break;
		}
		if (l->cc_maintainers && l->maintainers && files)
			add_maintainers(cc, l->maintainers, files, true, poster,
					bot, MAX_CC);
	}
	if (to_author) {
		/* The author first, then the maintainers the other lists
		 * want told, then the rest. */
		GPtrArray *v = g_ptr_array_new();

		if (author)
			add_addr(v, author, poster, bot, MAX_CC);
		for (i = 0; i < mt->len; i++)
			add_addr(v, mt->pdata[i], poster, bot, MAX_CC);
		for (i = 0; i < cc->len; i++)
			add_addr(v, cc->pdata[i], poster, bot, MAX_CC);
		g_ptr_array_set_free_func(cc, g_free);
		g_ptr_array_free(cc, TRUE);
		cc = v;
		g_ptr_array_set_free_func(mt, g_free);
		g_ptr_array_set_size(mt, 0);
	} else if (any && !mt->len) {
		rc->none = g_strdup("mail = maintainers, but no maintainer is"
				    " known for it");
	} else if (mt->len) {
		/* To the maintainers only: the Cc's are theirs. */
		GPtrArray *v = g_ptr_array_new();

		for (i = 0; i < cc->len; i++)
			add_addr(v, cc->pdata[i], mt->pdata[0], bot, MAX_CC);
		g_ptr_array_set_free_func(cc, g_free);
		g_ptr_array_free(cc, TRUE);
		cc = v;
	}
	if (rc->none) {
		/* Released by hand, it goes to the author, as a reply did
		 * before lists chose. */
		g_ptr_array_set_free_func(mt, g_free);
		g_ptr_array_set_size(mt, 0);
		g_ptr_array_set_free_func(cc, g_free);
		g_ptr_array_set_size(cc, 0);
		if (author)
			add_addr(cc, author, poster, bot, MAX_CC);
	}
	g_ptr_array_set_free_func(mt, NULL);
	g_ptr_array_set_free_func(cc, NULL);
	rc->maintainers = strv_of(mt);
	rc->cc = strv_of(cc);
	g_strfreev(files);
	return PW_OK;
}

enum pw_status pw_reply_queue_recipients(struct pw_db *db,
					 const struct pw_config *cfg,
					 const struct pw_outbox_msg *m,
					 int64_t files_of, bool cc_author,
					 struct pw_reply_rcpt *rc)
{
	const struct pw_mail *mail = m->mail;
	const char *author = NULL;
	enum pw_auth auth;
	enum pw_status st;

	/* An in-body From: is a line anyone can write: the per-recipient
	 * limit (cc_author) is what bounds the mail it draws. */
	if (cc_author && mail->sender_addr &&
	    !pw_mail_sender_automated(mail->from_addr,
				      (const char *const *)cfg->automated_senders))
		author = mail->from_addr;
	st = pw_db_identity_of_message(db, m->id, &auth);
	if (!st && author) {
		bool signs;

		/* Nor does it make anyone an author whose mail is signed. */
		st = pw_db_identity_signs(db, author, &signs);
		if (!st && !pw_identity_author_ok(auth, pw_mail_poster_addr(mail),
						  author, signs))
			author = NULL;
	}
	if (st) {
		memset(rc, 0, sizeof(*rc));
		return st;
	}
	return recipients(db, cfg, m->lists, pw_mail_poster_addr(mail), author,
			  mail->recipients, pw_identity_cc_arbitrary(auth),
			  files_of ? files_of : m->id, rc);
}

void pw_reply_queue_flood_recipients(const struct pw_config *cfg,
				     const struct pw_flood_info *f,
				     struct pw_reply_rcpt *rc)
{
	recipients(NULL, cfg, f->lists, f->sender_addr, NULL, NULL, 0, 0, rc);
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

enum pw_status pw_reply_queue_store(struct pw_db *db, const char *kind,
				    const char *key, int64_t message_id,
				    const char *mail_from,
				    const struct pw_reply *r,
				    const char *in_reply_to, const char *hold,
				    int64_t now, int64_t *id, bool *added)
{
	struct pw_outbox_new n = { 0 };
	char *rcpts = g_strjoinv("\n", r->rcpt);
	gsize len;
	enum pw_status st;

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
	n.now = now;
	/* One statement: atomic on its own, or part of the caller's batch. */
	st = pw_db_outbox_add(db, &n, id, added);
	if (st)
		pw_error("cannot store the %s %s: %s", kind, key,
			 pw_db_errmsg(db));
	else if (*added && hold)
		pw_debug("%s %s held back: %s", kind, key, hold);
	g_free(rcpts);
	return st;
}

/* Stores a composed reply; hold is the suppression reason or NULL. */
static enum pw_status store(struct pw_db *db, const char *kind,
			    const char *key, int64_t message_id,
			    const char *mail_from, const struct pw_reply *r,
			    const char *in_reply_to, const char *hold,
			    int64_t now, int64_t *id)
{
	bool added;

	return pw_reply_queue_store(db, kind, key, message_id, mail_from, r,
				    in_reply_to, hold, now, id, &added);
}

/*
 * Composes the reply of kind to m listing items, to rc (NULL: the
 * author alone): *r (the caller frees it), or NULL, reported, when m
 * cannot be answered.
 */
static void compose_patch(const struct pw_config *cfg,
			  const struct pw_outbox_msg *m, const char *kind,
			  const struct pw_reply_rcpt *rc,
			  const struct pw_reply_item *items, size_t n,
			  const char *fixed, int64_t now, struct pw_reply **r)
{
	const struct pw_mail *mail = m->mail;
	struct pw_reply_self me;
	char *msgid = pw_reply_msgid(kind, mail->msgid, cfg->from_addr);
	char *err = NULL;
	char *list_addr = list_address(cfg, m->lists, mail->list_id,
				       mail->recipients);

	*r = NULL;
	self_init(&me, cfg, msgid, now);
	if (rc)
		me.maintainers = (const char *const *)rc->maintainers;
	me.fixed = fixed;
	if (pw_reply_patch(&me, mail, rc ? (const char *const *)rc->cc : NULL,
			   list_addr, items, n, r, &err))
		pw_warn("message %s: cannot compose a reply: %s", mail->msgid, err);
	g_free(err);
	g_free(msgid);
	g_free(list_addr);
}

enum pw_status pw_reply_queue_patch(struct pw_db *db,
				    const struct pw_config *cfg,
				    const struct pw_outbox_msg *m,
				    const char *kind, const char *key,
				    const struct pw_reply_rcpt *rc,
				    const struct pw_reply_item *items, size_t n,
				    const char *fixed, const char *hold,
				    int64_t now, int64_t *id)
{
	struct pw_reply *r = NULL;
	enum pw_status st;

	*id = 0;
	compose_patch(cfg, m, kind, rc, items, n, fixed, now, &r);
	/* Nothing to store when the message cannot be answered. */
	if (!r)
		return PW_OK;
	st = store(db, kind, key, m->id, cfg->from_addr, r,
		   m->mail->msgid_derived ? NULL : m->mail->msgid, hold, now, id);
	pw_reply_free(r);
	return st;
}

enum pw_status pw_reply_queue_refresh(struct pw_db *db,
				      const struct pw_config *cfg,
				      const struct pw_outbox_row *row,
				      bool *dropped)
{
	struct pw_reply_patch_facts pf;
	struct pw_reply_item *items = NULL;
	struct pw_reply_rcpt rc = { 0 };
	struct pw_reply *r = NULL;
	const struct pw_mail *mail;
	char **was = NULL, *rcpts = NULL;
	enum pw_status st;
	bool decided = false, found = false, cc_author = false;
	const void *raw;
	gsize len;
	guint i, n = 0;

	*dropped = false;
	memset(&pf, 0, sizeof(pf));
	if (strcmp(row->kind, "patch") || !row->message_id)
		return PW_OK;
	st = pw_db_outbox_decided_since(db, row->id, &decided);
	if (st || !decided)
		return st;
	st = pw_reply_queue_read(db, row->message_id, cfg->reply_min_severity,
				 &pf, &found);
	if (st || !found)
		goto out;
	if (!pf.shown->len) {
		*dropped = true;
		goto out;
	}
	mail = pf.m->mail;
	/* The in-body author was copied when the reply was composed: so
	 * is the reply composed again. */
	was = g_strsplit(row->recipients ? row->recipients : "", "\n", -1);
	for (i = 0; mail->sender_addr && *mail->from_addr && was[i]; i++)
		cc_author |= !g_ascii_strcasecmp(was[i], mail->from_addr);
	st = pw_reply_queue_recipients(db, cfg, pf.m, 0, cc_author, &rc);
	if (st)
		goto out;
	items = g_new0(struct pw_reply_item, pf.shown->len);
	for (i = 0; !st && i < pf.shown->len; i++) {
		const struct pw_finding *f = g_ptr_array_index(pf.shown, i);
		struct pw_voice_key k;
		bool told = true, any = false;

		pw_voice_key_of(f, NULL, &k);
		/* Only what it reported when composed: a finding reported
		 * before, on another version, is not mailed again. */
		st = pw_db_voice_row_told(db, row->id, row->message_id, &k,
					  &told, &any);
		if (!st && (told || !any))
			items[n++].f = f;
	}
	if (st)
		goto out;
	if (!n) {
		*dropped = true;
		goto out;
	}
	compose_patch(cfg, pf.m, row->kind, &rc, items, n, NULL,
		      (int64_t)time(NULL), &r);
	if (!r)
		goto out;
	rcpts = g_strjoinv("\n", r->rcpt);
	raw = g_bytes_get_data(r->wire, &len);
	st = pw_db_outbox_rewrite(db, row->id, raw, len, r->to, rcpts,
				  r->subject, (int64_t)time(NULL));
out:
	pw_reply_free(r);
	pw_reply_rcpt_release(&rc);
	pw_reply_patch_facts_release(&pf);
	g_strfreev(was);
	g_free(items);
	g_free(rcpts);
	return st;
}

enum pw_status pw_reply_queue_flood(struct pw_db *db,
				    const struct pw_config *cfg,
				    const struct pw_flood_info *f,
				    const struct pw_reply_rcpt *rc,
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

	self_init(&me, cfg, msgid, (int64_t)time(NULL));
	if (rc)
		me.maintainers = (const char *const *)rc->maintainers;
	st = pw_reply_flood(&me, f, list_addr, &r, &err);
	if (st) {
		pw_warn("flood %s: cannot compose the summary: %s", f->key, err);
		st = PW_OK;
		goto out;
	}
	st = store(db, "flood", key, 0, me.addr, r,
		   pw_reply_msgid_ok(f->first_msgid) ? f->first_msgid : NULL, hold,
		   (int64_t)time(NULL), NULL);
out:
	pw_reply_free(r);
	g_free(err);
	g_free(msgid);
	g_free(list_addr);
	return st;
}
