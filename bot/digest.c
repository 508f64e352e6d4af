/*
 * patchwarden: the weekly digest of a list (see bot/digest.h).
 */
#include <string.h>
#include <time.h>

#include "bot/digest.h"
#include "bot/log.h"
#include "bot/reply.h"
#include "bot/reply_queue.h"
#include "checks/floodrules.h"
#include "db/decision.h"
#include "db/outbox.h"

#define MAX_RULES 10		/* rules listed, the most severe first */
#define MAX_SENDERS 5		/* top senders listed */
#define MAX_FLOODS 10		/* floods listed, then counted */
#define MAX_DECISIONS 20	/* decisions listed, then counted */

static const char *plural(int64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* A dashboard address: base (trailing slashes dropped), then kind and
 * the escaped name ("/list/NAME"); NULL without a dashboard. */
static char *dash_link(const char *base, const char *kind, const char *name)
{
	char *b, *esc, *url;
	size_t n;

	if (!base || !*base)
		return NULL;
	b = pw_reply_clean(base, 300);
	n = strlen(b);
	while (n && b[n - 1] == '/')
		b[--n] = '\0';
	if (!name) {
		g_free(b);
		return NULL;
	}
	esc = g_uri_escape_string(name,
				  G_URI_RESERVED_CHARS_ALLOWED_IN_PATH_ELEMENT,
				  FALSE);
	url = g_strdup_printf("%s/%s/%s", b, kind, esc);
	g_free(esc);
	g_free(b);
	return url;
}

bool pw_digest_worth(const struct pw_digest_facts *f,
		     const char *const *decisions)
{
	return f->patches > 0 || (f->floods && f->floods->len > 0) ||
	       (decisions && decisions[0]);
}

static void findings_line(GString *b, const struct pw_digest_facts *f)
{
	static const enum pw_severity order[] = {
		PW_SEV_ERROR, PW_SEV_WARNING, PW_SEV_INFO,
	};
	static const char *const names[][2] = {
		[PW_SEV_INFO] = { "info", "info" },
		[PW_SEV_WARNING] = { "warning", "warnings" },
		[PW_SEV_ERROR] = { "error", "errors" },
	};
	int64_t total = 0;
	size_t i;
	bool first = true;

	for (i = 0; i < G_N_ELEMENTS(order); i++)
		total += f->by_severity[order[i]];
	if (!total) {
		g_string_append(b, "Findings: none.\n");
		return;
	}
	g_string_append(b, "Findings: ");
	for (i = 0; i < G_N_ELEMENTS(order); i++) {
		int64_t n = f->by_severity[order[i]];

		if (!n)
			continue;
		g_string_append_printf(b, "%s%" G_GINT64_FORMAT " %s",
				       first ? "" : ", ", n,
				       names[order[i]][n != 1]);
		first = false;
	}
	g_string_append(b, ".\n");
}

/* The period (since, until] in words: "the week" when it is one, else
 * its length in days, or hours under a day (new string). */
static char *period(int64_t since, int64_t until)
{
	int64_t d = until > since ? until - since : 0;
	int64_t days = (d + 43200) / 86400, hours = (d + 1800) / 3600;

	if (d == PW_DIGEST_PERIOD)
		return g_strdup("the week");
	if (days > 1)
		return g_strdup_printf("the %" G_GINT64_FORMAT " days", days);
	if (d >= 86400 - 1800)
		return g_strdup("the day");
	if (hours > 1)
		return g_strdup_printf("the %" G_GINT64_FORMAT " hours", hours);
	return g_strdup("the hour");
}

/*
 * The floods or campaigns v (struct pw_digest_flood), MAX_FLOODS of
 * them and a count of the rest: when, size or pace, sender, subject and
 * a link to the first patch.
 */
static void groups(GString *b, const struct pw_digest_in *d, const GPtrArray *v,
		   bool campaign)
{
	char *url;
	guint i;

	for (i = 0; i < v->len && i < MAX_FLOODS; i++) {
		const struct pw_digest_flood *fl = v->pdata[i];
		char *who = pw_reply_clean(fl->sender, 80);
		char *subj = pw_reply_clean(fl->subject, 60);
		char *when = pw_reply_time(fl->detected_at);
		char *size = campaign ?
			pw_flood_campaign_pace(fl->size, fl->first, fl->last) :
			g_strdup_printf("%d patches", fl->size);

		g_string_append_printf(b, "  %.10s: %s from %s\n"
				       "    \"%s\"\n", when, size, who, subj);
		url = fl->first_msgid && pw_reply_msgid_ok(fl->first_msgid) ?
			dash_link(d->dashboard_url, "message", fl->first_msgid) :
			NULL;
		if (url)
			g_string_append_printf(b, "    %s\n", url);
		g_free(url);
		g_free(size);
		g_free(who);
		g_free(subj);
		g_free(when);
	}
	if (v->len > MAX_FLOODS)
		g_string_append_printf(b, "  ... and %u more\n",
				       v->len - MAX_FLOODS);
}

char *pw_digest_text(const struct pw_digest_in *d, char **subject)
{
	const struct pw_digest_facts *f = d->facts;
	GString *b = g_string_new(NULL);
	char *list = pw_reply_clean(d->list, 100);
	char *from = pw_reply_time(d->since), *to = pw_reply_time(d->until);
	char *date, *span;
	char *url;
	int64_t total = f->by_severity[PW_SEV_INFO] +
		f->by_severity[PW_SEV_WARNING] + f->by_severity[PW_SEV_ERROR];
	guint i;

	date = g_strndup(to, 10);
	span = period(d->since, d->until);
	*subject = g_strdup_printf("[patchwarden] %s digest, %s to %s:"
				   " %" G_GINT64_FORMAT " %s, %" G_GINT64_FORMAT
				   " %s", list, span, date, f->patches,
				   plural(f->patches, "patch", "patches"), total,
				   plural(total, "finding", "findings"));
	g_string_append(b, "Hello,\n\n");
	g_string_append_printf(b, "This is the %sdigest of patchwarden, a "
			       "review bot, for\n%s: the mail it read in %s,"
			       " from\n%s to %s.\n\n",
			       d->until - d->since == PW_DIGEST_PERIOD ?
			       "weekly " : "", list, span, from, to);

	g_string_append_printf(b, "Patches: %" G_GINT64_FORMAT ", %"
			       G_GINT64_FORMAT " with findings.\n",
			       f->patches, f->patches_found);
	findings_line(b, f);
	if (f->rules->len) {
		g_string_append(b, "\nBy rule, the most severe first:\n");
		for (i = 0; i < f->rules->len; i++) {
			const struct pw_digest_count *c = f->rules->pdata[i];
			int sev = c->label ? (int)g_ascii_strtoll(c->label, NULL, 10) : 0;
			char *rule = pw_reply_clean(c->name, 40);

			g_string_append_printf(b, "  %s (%s): %" G_GINT64_FORMAT
					       " in %" G_GINT64_FORMAT " %s\n",
					       rule, pw_severity_str(sev), c->n,
					       c->m, plural(c->m, "patch", "patches"));
			g_free(rule);
		}
	}

	if (f->floods->len)
		g_string_append_printf(b, "\nFloods (many near-identical patches"
				       " from one sender): %u\n", f->floods->len);
	groups(b, d, f->floods, false);
	if (f->campaigns && f->campaigns->len)
		g_string_append_printf(b, "\nCampaigns (near-identical patches"
				       " sent one by one, no flood): %u\n",
				       f->campaigns->len);
	if (f->campaigns)
		groups(b, d, f->campaigns, true);

	if (f->senders->len) {
		g_string_append(b, "\nTop senders of patches");
		if (f->automated)
			g_string_append_printf(b, " (people; %" G_GINT64_FORMAT
					       " %s from machines left out)",
					       f->automated,
					       plural(f->automated, "message",
						      "messages"));
		g_string_append(b, ":\n");
		for (i = 0; i < f->senders->len; i++) {
			const struct pw_digest_count *c = f->senders->pdata[i];
			char *name = pw_reply_clean(c->label, 40);
			char *addr = pw_reply_clean(c->name, 80);

			g_string_append_printf(b, "  %s%s%s%s: %" G_GINT64_FORMAT
					       " %s, %" G_GINT64_FORMAT
					       " with findings\n", name,
					       *name ? " <" : "", addr,
					       *name ? ">" : "", c->n,
					       plural(c->n, "patch", "patches"), c->m);
			g_free(name);
			g_free(addr);
		}
	} else if (f->automated) {
		g_string_append_printf(b, "\nMessages from machines: %"
				       G_GINT64_FORMAT " (never answered).\n",
				       f->automated);
	}

	if (f->replies)
		g_string_append_printf(b, "\nReplies to its mail: %" G_GINT64_FORMAT
				       ", %" G_GINT64_FORMAT " of them held, not"
				       " mailed\n(\"patchwarden outbox list\" says"
				       " why).\n", f->replies, f->held);

	if (d->decisions && d->decisions[0]) {
		g_string_append(b, "\nDecisions taken:\n");
		for (i = 0; d->decisions[i] && i < MAX_DECISIONS; i++) {
			char *line = pw_reply_clean(d->decisions[i], 200);

			g_string_append_printf(b, "  %s\n", line);
			g_free(line);
		}
		if (d->decisions[i])
			g_string_append_printf(b, "  ... and %u more\n",
					       g_strv_length((char **)d->decisions) -
					       MAX_DECISIONS);
	}

	url = dash_link(d->dashboard_url, "list", d->list);
	if (url)
		g_string_append_printf(b, "\nEvery patch and finding of the list"
				       " is on the dashboard:\n%s\n", url);
	g_free(url);

	g_string_append_printf(b, "\n-- \nThis digest of patchwarden %s comes"
			       " once a week to the maintainers of\n%s,"
			       " as its configuration says ([list]\nmaintainer"
			       " and digest). A week with no patch sends"
			       " none.\n", PW_VERSION, list);
	g_free(list);
	g_free(from);
	g_free(to);
	g_free(date);
	g_free(span);
	return g_string_free(b, FALSE);
}

/*
 * The triage decisions taken on list in (since, until] and still live,
 * one line each ("2026-12-01 a@b.org: ignore RULE for PATH"), oldest
 * first, appended to lines.
 */
static enum pw_status digest_decisions(struct pw_db *db, const char *list,
				       int64_t since, int64_t until,
				       GPtrArray *lines)
{
	GPtrArray *v = NULL;
	enum pw_status st = pw_db_decision_list(db, list, false, &v);

	for (guint i = v && !st ? v->len : 0; i-- > 0;) {
		const struct pw_decision *d = v->pdata[i];
		GDateTime *t;
		char *day, *what, *line;

		if (d->at <= since || d->at > until)
			continue;
		t = g_date_time_new_from_unix_utc(d->at);
		day = g_date_time_format(t, "%Y-%m-%d");
		g_date_time_unref(t);
		switch (d->kind) {
		case PW_DECISION_WRONG:
			what = g_strdup_printf("%s of <%s> marked wrong",
					       d->rule ? d->rule : "every finding",
					       d->msgid ? d->msgid : "?");
			break;
		case PW_DECISION_IGNORE:
			what = g_strdup_printf("%s ignored for %s", d->rule,
					       d->path ? d->path : "the whole list");
			break;
		case PW_DECISION_RECHECK:
			what = g_strdup_printf("<%s> rechecked",
					       d->msgid ? d->msgid : "?");
			break;
		case PW_DECISION_STOP:
		default:
			what = g_strdup_printf("%s asked for no more replies",
					       d->addr ? d->addr : "?");
			break;
		}
		line = g_strdup_printf("%s %s: %s", day, d->by, what);
		/* Addresses and Message-IDs came in mail: no control
		 * character reaches the digest's text. */
		g_ptr_array_add(lines, pw_reply_clean(line, 200));
		g_free(line);
		g_free(what);
		g_free(day);
	}
	if (v)
		g_ptr_array_unref(v);
	return st;
}

/* The hourly limits, as replies have them: why the digest to addr waits
 * (new string), or NULL. */
static enum pw_status limited(struct pw_db *db, const struct pw_config *cfg,
			      const char *addr, int64_t now, char **why)
{
	int64_t n;
	enum pw_status st;

	*why = NULL;
	st = pw_db_outbox_count_since(db, addr, now - 3600, &n);
	if (st)
		return st;
	if (cfg->per_recipient_per_hour >= 0 && n >= cfg->per_recipient_per_hour) {
		*why = g_strdup_printf("rate limit: %" G_GINT64_FORMAT " mails to %s"
				       " in the last hour (per_recipient_per_hour"
				       " = %d)", n, addr, cfg->per_recipient_per_hour);
		return PW_OK;
	}
	st = pw_db_outbox_count_since(db, NULL, now - 3600, &n);
	if (!st && cfg->global_per_hour >= 0 && n >= cfg->global_per_hour)
		*why = g_strdup_printf("rate limit: %" G_GINT64_FORMAT " mails in"
				       " the last hour (global_per_hour = %d)",
				       n, cfg->global_per_hour);
	return st;
}

/* Stores the composed digest r of list and its period, in one go. */
static enum pw_status store(struct pw_db *db, const char *list, int64_t since,
			    int64_t until, int64_t now, const struct pw_reply *r,
			    const char *mail_from, const char *in_reply_to,
			    const char *refs, const char *hold)
{
	char *answers = g_strdup_printf("digest:%s:%" G_GINT64_FORMAT, list, until);
	enum pw_status st;
	int64_t id = 0;
	bool added;

	st = pw_reply_queue_store(db, "digest", answers, 0, mail_from, r,
				  in_reply_to, hold, now, &id, &added);
	if (!st)
		st = pw_db_digest_add(db, list, since, until, r->msgid, refs,
				      added ? id : 0, now, &added);
	g_free(answers);
	return st;
}

/* One list's digest for (since, o->now], composed and stored (or
 * written out), inside the caller's transaction. */
static enum pw_status one(struct pw_db *db, const struct pw_config *cfg,
			  const struct pw_list_conf *l, const char *list,
			  int64_t since, const struct pw_digest_last *last,
			  const struct pw_digest_opts *o,
			  struct pw_digest_stats *stats)
{
	struct pw_digest_facts f;
	struct pw_digest_in in = { 0 };
	struct pw_reply_self me = { 0 };
	struct pw_reply *r = NULL;
	GPtrArray *decisions = g_ptr_array_new_with_free_func(g_free);
	char *body = NULL, *subject = NULL, *msgid = NULL, *key = NULL;
	char *refs = NULL, *hold = NULL, *err = NULL, **old = NULL;
	GPtrArray *chain = g_ptr_array_new();
	enum pw_status st;
	bool added;
	guint i;

	st = pw_db_digest_facts(db, list, since, o->now, MAX_RULES, MAX_SENDERS,
				&f);
	if (!st)
		st = digest_decisions(db, list, since, o->now, decisions);
	if (st)
		goto out;
	g_ptr_array_add(decisions, NULL);
	if (!pw_digest_worth(&f, (const char *const *)decisions->pdata)) {
		if (o->dry_run)
			fprintf(o->dry_run, "%s: no patch and no flood since"
				" the last digest: none to send\n", list);
		else
			st = pw_db_digest_add(db, list, since, o->now, NULL, NULL,
					      0, o->now, &added);
		stats->empty++;
		goto out;
	}
	in.list = list;
	in.since = since;
	in.until = o->now;
	in.facts = &f;
	in.decisions = (const char *const *)decisions->pdata;
	in.dashboard_url = cfg->dashboard_url;
	body = pw_digest_text(&in, &subject);

	/* Threaded under the list's last digest, after its References
	 * (the newest 20: the composer keeps no more). */
	old = last->refs ? g_strsplit(last->refs, " ", -1) : g_new0(char *, 1);
	for (i = 0; old[i]; i++)
		if (*old[i])
			g_ptr_array_add(chain, old[i]);
	if (last->msgid)
		g_ptr_array_add(chain, last->msgid);
	if (chain->len > 20)
		g_ptr_array_remove_range(chain, 0, chain->len - 20);
	g_ptr_array_add(chain, NULL);
	if (chain->len > 1)
		refs = g_strjoinv(" ", (char **)chain->pdata);

	key = g_strdup_printf("%s:%" G_GINT64_FORMAT, list, o->now);
	msgid = pw_reply_msgid("digest", key, cfg->from_addr);
	me.addr = cfg->from_addr;
	me.name = cfg->reply_from_name ? cfg->reply_from_name :
		*cfg->from_name ? cfg->from_name : "patchwarden";
	me.reply_to = cfg->reply_to;
	me.msgid = msgid;
	me.date = o->now;
	st = pw_reply_message(&me, (const char *const *)l->maintainer_addrs,
			      subject, last->msgid,
			      (const char *const *)(void *)chain->pdata, body,
			      &r, &err);
	if (st) {
		pw_warn("%s: cannot compose its digest: %s", list, err);
		st = PW_OK;
		goto out;
	}
	if (o->dry_run) {
		gsize len;
		const char *wire = g_bytes_get_data(r->wire, &len);

		fwrite(wire, 1, len, o->dry_run);
		fputs("\n", o->dry_run);
		goto out;
	}
	st = limited(db, cfg, r->to, o->now, &hold);
	if (!st)
		st = store(db, list, since, o->now, o->now, r, me.addr,
			   last->msgid, refs, hold);
	if (!st) {
		stats->queued++;
		stats->held += hold != NULL;
	}
out:
	pw_digest_facts_release(&f);
	pw_reply_free(r);
	g_ptr_array_free(decisions, TRUE);
	g_ptr_array_free(chain, TRUE);
	g_strfreev(old);
	g_free(body);
	g_free(subject);
	g_free(msgid);
	g_free(key);
	g_free(refs);
	g_free(hold);
	g_free(err);
	return st;
}

/* The lists o asks for: o->list, or every list (configured, or stored
 * and taking [list *]) whose settings say digest = true. */
static enum pw_status lists_of(struct pw_db *db, const struct pw_config *cfg,
			       const struct pw_digest_opts *o, GPtrArray *out)
{
	char **stored = NULL;
	enum pw_status st;
	guint i;

	if (o->list) {
		g_ptr_array_add(out, g_strdup(o->list));
		return PW_OK;
	}
	for (i = 0; i < cfg->lists->len; i++) {
		const struct pw_list_conf *l = cfg->lists->pdata[i];

		if (l->digest && l->maintainer_addrs[0])
			g_ptr_array_add(out, g_strdup(l->name));
	}
	if (!cfg->defaults.digest || !cfg->defaults.maintainer_addrs[0])
		return PW_OK;
	st = pw_db_digest_lists(db, &stored);
	for (i = 0; !st && stored[i]; i++)
		if (pw_config_list(cfg, stored[i]) == &cfg->defaults)
			g_ptr_array_add(out, g_strdup(stored[i]));
	g_strfreev(stored);
	return st;
}

enum pw_status pw_digest_queue(struct pw_db *db, const struct pw_config *cfg,
			       const struct pw_digest_opts *o,
			       struct pw_digest_stats *stats, char **err)
{
	GPtrArray *lists = g_ptr_array_new_with_free_func(g_free);
	enum pw_status st;
	guint i;

	memset(stats, 0, sizeof(*stats));
	*err = NULL;
	if (o->list && !pw_config_list(cfg, o->list)->maintainer_addrs[0]) {
		*err = g_strdup_printf("list %s has no maintainer to send a digest"
				       " to ([list %s] maintainer = ADDR)",
				       o->list, o->list);
		st = PW_ERR_USAGE;
		goto out;
	}
	st = lists_of(db, cfg, o, lists);
	for (i = 0; !st && i < lists->len; i++) {
		const char *list = lists->pdata[i];
		struct pw_digest_last last;
		int64_t since;
		bool found;

		/* The service asks every round: a read, no lock, until
		 * one is due. */
		if (o->due_only) {
			st = pw_db_digest_last(db, list, &last, &found);
			since = last.until;
			pw_digest_last_release(&last);
			if (st || (found && o->now - since < PW_DIGEST_PERIOD))
				continue;
		}
		st = pw_db_begin(db);
		if (st)
			break;
		st = pw_db_digest_last(db, list, &last, &found);
		since = o->since ? o->since : found ? last.until :
			o->now - PW_DIGEST_PERIOD;
		if (!st && since < o->now &&
		    (!o->due_only || !found || o->now - last.until >= PW_DIGEST_PERIOD))
			st = one(db, cfg, pw_config_list(cfg, list), list, since,
				 &last, o, stats);
		pw_digest_last_release(&last);
		if (st)
			pw_db_rollback(db);
		else
			st = pw_db_commit(db);
	}
	if (st && st != PW_ERR_USAGE && !*err)
		*err = g_strdup_printf("digest: %s", pw_db_errmsg(db));
out:
	g_ptr_array_free(lists, TRUE);
	return st;
}

void pw_digest_service(struct pw_db *db, const struct pw_config *cfg,
		       int64_t now)
{
	struct pw_digest_opts o = { .now = now, .due_only = true };
	struct pw_digest_stats st;
	char *err = NULL;

	if (pw_digest_queue(db, cfg, &o, &st, &err))
		pw_error("%s", err ? err : "digest: failed");
	else if (st.queued || st.empty)
		pw_info("digest: %d queued (%d held by the hourly limits), %d"
			" lists with nothing new", st.queued, st.held, st.empty);
	g_free(err);
}
