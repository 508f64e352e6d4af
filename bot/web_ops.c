/*
 * patchwarden: /healthz and /metrics (see bot/web_ops.h).
 */
#include <string.h>
#include <time.h>

#include <json-glib/json-glib.h>

#include "bot/subscription.h"
#include "bot/web_ops.h"
#include "checks/patch.h"
#include "db/ops.h"
#include "db/subscription.h"

/* The upper bounds of the latency histogram's buckets, in seconds (the
 * last, +Inf, is implied): a page from the cache takes a millisecond,
 * one made on a large store seconds. */
static const double bounds[] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};
#define NBOUNDS (sizeof(bounds) / sizeof(bounds[0]))

/* One endpoint's latencies: counts per bucket (not cumulative). */
struct hist {
	guint64 bucket[NBOUNDS + 1];
	guint64 count;
	double sum;
};

struct pw_web_ops {
	GMutex lock;
	GHashTable *hists;	/* endpoint (static) -> struct hist * */
	/* What the store last answered for /metrics, and when: given
	 * again while it cannot be read, so that a series (a last
	 * success's time) does not vanish from under an alert. */
	GString *last_store;
	int64_t last_store_at;
};

struct pw_web_ops *pw_web_ops_new(void)
{
	struct pw_web_ops *o = g_new0(struct pw_web_ops, 1);

	g_mutex_init(&o->lock);
	o->hists = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	o->last_store = g_string_new(NULL);
	return o;
}

void pw_web_ops_free(struct pw_web_ops *o)
{
	if (!o)
		return;
	g_hash_table_destroy(o->hists);
	g_string_free(o->last_store, TRUE);
	g_mutex_clear(&o->lock);
	g_free(o);
}

bool pw_web_ops_path(const char *path)
{
	return !strcmp(path, "/healthz") || !strcmp(path, "/metrics");
}

/* The paths counted as they are; the rest are folded or "other". */
static const char *const endpoints[] = {
	"/", "/series", "/patches", "/findings", "/floods", "/senders",
	"/stats", "/errors", "/outbox", "/subscriptions", "/healthz",
	"/metrics", "/api/series", "/api/patches", "/api/findings",
	"/api/floods", "/api/senders", "/api/stats", "/api/errors",
	"/api/subscriptions", "/api/check", "/api/submit",
};

/* The endpoint path belongs to: a static string. */
static const char *endpoint(const char *path)
{
	size_t i, n;

	for (i = 0; i < G_N_ELEMENTS(endpoints); i++)
		if (!strcmp(path, endpoints[i]))
			return endpoints[i];
	if (g_str_has_prefix(path, "/series/"))
		return "/series/ID";
	if (g_str_has_prefix(path, "/message/"))
		return "/message/MSGID";
	if (g_str_has_prefix(path, "/api/message/"))
		return "/api/message/MSGID";
	if (g_str_has_prefix(path, "/list/")) {
		n = strlen(path);
		return n > 11 && !strcmp(path + n - 5, "/atom") ?
		       "/list/NAME/atom" : "/list/NAME";
	}
	return "other";
}

void pw_web_ops_observe(struct pw_web_ops *o, const char *path, double seconds)
{
	const char *e = endpoint(path);
	struct hist *h;
	size_t i;

	for (i = 0; i < NBOUNDS && seconds > bounds[i]; i++)
		;
	g_mutex_lock(&o->lock);
	h = g_hash_table_lookup(o->hists, e);
	if (!h) {
		h = g_new0(struct hist, 1);
		g_hash_table_insert(o->hists, (gpointer)e, h);
	}
	h->bucket[i]++;
	h->count++;
	h->sum += seconds;
	g_mutex_unlock(&o->lock);
}

/* ---- /healthz ---- */

/* A UTC date for people, new. */
static char *date_of(int64_t t)
{
	GDateTime *d = g_date_time_new_from_unix_utc(t);
	char *s = d ? g_date_time_format(d, "%Y-%m-%d %H:%M:%S UTC") :
		  g_strdup("?");

	if (d)
		g_date_time_unref(d);
	return s;
}

static void health_json(JsonBuilder *b, const struct pw_config *cfg,
			const struct pw_subscription *s, int64_t now)
{
	int64_t since = s->last_ok ? s->last_ok : s->created_at;
	char *why;
	const char *state = pw_subscription_state(s, cfg->web_stale_after, now,
						  &why, NULL);

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "name");
	json_builder_add_string_value(b, s->name);
	json_builder_set_member_name(b, "state");
	json_builder_add_string_value(b, state);
	json_builder_set_member_name(b, "reason");
	json_builder_add_string_value(b, why);
	g_free(why);
	json_builder_set_member_name(b, "last_ok");
	if (s->last_ok)
		json_builder_add_int_value(b, s->last_ok);
	else
		json_builder_add_null_value(b);
	json_builder_set_member_name(b, "age");
	json_builder_add_int_value(b, now - since);
	json_builder_set_member_name(b, "stale_after");
	json_builder_add_int_value(b, pw_subscription_stale_after(s, cfg->web_stale_after));
	json_builder_set_member_name(b, "failures");
	json_builder_add_int_value(b, s->failures);
	json_builder_set_member_name(b, "last_error");
	if (s->last_error) {
		char *u = g_utf8_make_valid(s->last_error, -1);

		json_builder_add_string_value(b, u);
		g_free(u);
	} else {
		json_builder_add_null_value(b);
	}
	json_builder_end_object(b);
}

static void health_text(GString *o, const struct pw_config *cfg,
			const struct pw_subscription *s, int64_t now)
{
	char *when = s->last_ok ? date_of(s->last_ok) : NULL;
	char *name = g_utf8_make_valid(s->name, -1);
	const char *state = pw_subscription_state(s, cfg->web_stale_after, now,
						  NULL, NULL);
	char *shown = !strcmp(state, "stale") || !strcmp(state, "failing") ?
		      g_ascii_strup(state, -1) : g_strdup(state);

	g_string_append_printf(o, "subscription %s: %s, ", name, shown);
	g_free(shown);
	if (when)
		g_string_append_printf(o, "last successful poll %s, %" G_GINT64_FORMAT
				       " s ago", when, (gint64)(now - s->last_ok));
	else
		g_string_append_printf(o, "no successful poll yet, subscribed %"
				       G_GINT64_FORMAT " s ago",
				       (gint64)(now - s->created_at));
	g_string_append_printf(o, " (stale after %" G_GINT64_FORMAT " s)",
			       (gint64)pw_subscription_stale_after(s, cfg->web_stale_after));
	if (s->failures) {
		char *e = g_utf8_make_valid(s->last_error ? s->last_error : "", -1);

		g_strdelimit(e, "\r\n", ' ');
		g_string_append_printf(o, "; %d failed in a row, the last: %s",
				       s->failures, e);
		g_free(e);
	}
	g_string_append_c(o, '\n');
	g_free(when);
	g_free(name);
}

static bool wants_json(GHashTable *args, const char *accept)
{
	const char *f = g_hash_table_lookup(args, "format");

	if (f)
		return !strcmp(f, "json");
	return accept && strstr(accept, "application/json");
}

static void healthz(struct pw_db *db, const struct pw_config *cfg,
		    GHashTable *args, const char *accept,
		    struct pw_web_answer *a)
{
	bool json = wants_json(args, accept), healthy;
	int64_t now = (int64_t)time(NULL);
	GPtrArray *subs = NULL;
	const char *store_err = NULL;
	guint i, nstale = 0, nfailing = 0;

	/* The read: a cheap one, and the one the rest needs. */
	if (pw_db_subscription_list(db, &subs))
		store_err = pw_db_errmsg(db);
	for (i = 0; !store_err && i < subs->len; i++) {
		const char *state = pw_subscription_state(subs->pdata[i],
							  cfg->web_stale_after,
							  now, NULL, NULL);

		nstale += !strcmp(state, "stale");
		nfailing += !strcmp(state, "failing");
	}
	healthy = !store_err && !nstale;
	a->status = healthy ? 200 : 503;
	if (json) {
		JsonBuilder *b = json_builder_new();
		JsonGenerator *g = json_generator_new();
		JsonNode *root;
		char *text;

		json_builder_begin_object(b);
		json_builder_set_member_name(b, "status");
		json_builder_add_string_value(b, healthy ? "ok" : "unhealthy");
		json_builder_set_member_name(b, "store");
		json_builder_add_string_value(b, store_err ? "unreadable" : "readable");
		if (store_err) {
			char *u = g_utf8_make_valid(store_err, -1);

			json_builder_set_member_name(b, "error");
			json_builder_add_string_value(b, u);
			g_free(u);
		}
		json_builder_set_member_name(b, "now");
		json_builder_add_int_value(b, now);
		json_builder_set_member_name(b, "subscriptions");
		json_builder_begin_array(b);
		for (i = 0; !store_err && i < subs->len; i++)
			health_json(b, cfg, subs->pdata[i], now);
		json_builder_end_array(b);
		json_builder_end_object(b);
		root = json_builder_get_root(b);
		json_generator_set_root(g, root);
		text = json_generator_to_data(g, NULL);
		g_string_append(a->body, text);
		g_string_append_c(a->body, '\n');
		g_free(text);
		json_node_unref(root);
		g_object_unref(g);
		g_object_unref(b);
		a->type = "application/json";
	} else {
		a->type = "text/plain; charset=utf-8";
		if (store_err) {
			char *u = g_utf8_make_valid(store_err, -1);

			g_string_append_printf(a->body, "unhealthy: the store"
					       " cannot be read: %s\n", u);
			g_free(u);
		} else if (nstale) {
			g_string_append_printf(a->body, "unhealthy: %u of %u"
					       " subscriptions stale\n", nstale,
					       subs->len);
		} else {
			g_string_append_printf(a->body, "ok: the store is"
					       " readable; subscriptions: %u, none"
					       " stale", subs->len);
			if (nfailing)
				g_string_append_printf(a->body, ", %u failing"
						       " (retried; stale once"
						       " they fail for long)",
						       nfailing);
			g_string_append_c(a->body, '\n');
		}
		for (i = 0; !store_err && i < subs->len; i++)
			health_text(a->body, cfg, subs->pdata[i], now);
	}
	if (subs)
		g_ptr_array_free(subs, TRUE);
}

/* ---- /metrics ---- */

/*
 * A label value as the exposition format writes it: UTF-8, with
 * backslash, double quote and line feed escaped.
 */
static void label_value(GString *o, const char *v)
{
	char *u = g_utf8_make_valid(v ? v : "", -1);
	const char *p;

	for (p = u; *p; p++) {
		if (*p == '\\')
			g_string_append(o, "\\\\");
		else if (*p == '"')
			g_string_append(o, "\\\"");
		else if (*p == '\n')
			g_string_append(o, "\\n");
		else
			g_string_append_c(o, *p);
	}
	g_free(u);
}

/* The HELP and TYPE lines of a metric (help holds no \ nor line feed). */
static void family(GString *o, const char *name, const char *type,
		   const char *help)
{
	g_string_append_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help,
			       name, type);
}

/* One sample: name{k1="v1",k2="v2"} value, with one or two labels. */
static void sample(GString *o, const char *name, const char *k1,
		   const char *v1, const char *k2, const char *v2,
		   const char *value)
{
	g_string_append(o, name);
	if (k1) {
		g_string_append_printf(o, "{%s=\"", k1);
		label_value(o, v1);
		g_string_append_c(o, '"');
		if (k2) {
			g_string_append_printf(o, ",%s=\"", k2);
			label_value(o, v2);
			g_string_append_c(o, '"');
		}
		g_string_append_c(o, '}');
	}
	g_string_append_printf(o, " %s\n", value);
}

static void sample_int(GString *o, const char *name, const char *k1,
		       const char *v1, const char *k2, const char *v2,
		       int64_t n)
{
	char buf[32];

	g_snprintf(buf, sizeof(buf), "%" G_GINT64_FORMAT, (gint64)n);
	sample(o, name, k1, v1, k2, v2, buf);
}

static void sample_double(GString *o, const char *name, const char *k1,
			  const char *v1, double x)
{
	char buf[G_ASCII_DTOSTR_BUF_SIZE];

	sample(o, name, k1, v1, NULL, NULL,
	       g_ascii_formatd(buf, sizeof(buf), "%.9g", x));
}

/* Counts of two labels, as one gauge family. */
static void counts2(GString *o, const char *name, const char *help,
		    const char *k1, const char *k2, GPtrArray *rows)
{
	guint i;

	family(o, name, "gauge", help);
	for (i = 0; i < rows->len; i++) {
		struct pw_db_ops_count *c = rows->pdata[i];

		sample_int(o, name, k1, c->a, k2, c->b, c->n);
	}
}

static void polls(GString *o, GPtrArray *rows)
{
	static const struct {
		const char *name, *type, *help;
	} fams[] = {
		{ "patchwarden_polls_total", "counter",
		  "Polls of the subscription, failed or not." },
		{ "patchwarden_poll_failures_total", "counter",
		  "Polls of the subscription that failed." },
		{ "patchwarden_poll_duration_seconds", "summary",
		  "Seconds the subscription's polls took (sum and count)." },
		{ "patchwarden_poll_last_duration_seconds", "gauge",
		  "Seconds the subscription's last poll took." },
		{ "patchwarden_poll_last_success_timestamp_seconds", "gauge",
		  "When the subscription last polled successfully (Unix time, 0: never)." },
		{ "patchwarden_poll_failures_in_a_row", "gauge",
		  "Polls of the subscription failed since its last success." },
		{ "patchwarden_subscription_paused", "gauge",
		  "1 when the subscription is paused." },
	};
	guint f, i;

	for (f = 0; f < G_N_ELEMENTS(fams); f++) {
		family(o, fams[f].name, fams[f].type, fams[f].help);
		for (i = 0; i < rows->len; i++) {
			struct pw_db_ops_polls *p = rows->pdata[i];
			char *sum, *count;

			switch (f) {
			case 0:
				sample_int(o, fams[f].name, "subscription",
					   p->name, NULL, NULL, p->polls);
				break;
			case 1:
				sample_int(o, fams[f].name, "subscription",
					   p->name, NULL, NULL, p->failures);
				break;
			case 2:
				sum = g_strconcat(fams[f].name, "_sum", NULL);
				count = g_strconcat(fams[f].name, "_count", NULL);
				sample_double(o, sum, "subscription", p->name,
					      p->seconds);
				sample_int(o, count, "subscription", p->name,
					   NULL, NULL, p->polls);
				g_free(sum);
				g_free(count);
				break;
			case 3:
				sample_double(o, fams[f].name, "subscription",
					      p->name, p->last_seconds);
				break;
			case 4:
				sample_int(o, fams[f].name, "subscription",
					   p->name, NULL, NULL, p->last_ok);
				break;
			case 5:
				sample_int(o, fams[f].name, "subscription",
					   p->name, NULL, NULL,
					   p->failures_in_a_row);
				break;
			default:
				sample_int(o, fams[f].name, "subscription",
					   p->name, NULL, NULL, p->paused);
				break;
			}
		}
	}
}

/* The request latencies, by endpoint in name order. */
static void latencies(struct pw_web_ops *ops, GString *o)
{
	static const char name[] = "patchwarden_http_request_duration_seconds";
	GList *keys, *l;

	family(o, name, "histogram", "Seconds the server took to answer a"
	       " request, by endpoint (since it started).");
	g_mutex_lock(&ops->lock);
	keys = g_list_sort(g_hash_table_get_keys(ops->hists),
			   (GCompareFunc)strcmp);
	for (l = keys; l; l = l->next) {
		const struct hist *h = g_hash_table_lookup(ops->hists, l->data);
		char le[G_ASCII_DTOSTR_BUF_SIZE];
		guint64 cum = 0;
		size_t i;

		for (i = 0; i <= NBOUNDS; i++) {
			cum += h->bucket[i];
			if (i < NBOUNDS)
				g_ascii_formatd(le, sizeof(le), "%g", bounds[i]);
			else
				g_strlcpy(le, "+Inf", sizeof(le));
			sample_int(o, "patchwarden_http_request_duration_seconds_bucket",
				   "endpoint", l->data, "le", le, (int64_t)cum);
		}
		sample_double(o, "patchwarden_http_request_duration_seconds_sum",
			      "endpoint", l->data, h->sum);
		sample_int(o, "patchwarden_http_request_duration_seconds_count",
			   "endpoint", l->data, NULL, NULL, (int64_t)h->count);
	}
	g_mutex_unlock(&ops->lock);
	g_list_free(keys);
}

/* One gauge family of one label from counts. */
static void counts1(GString *o, const char *name, const char *help,
		    const char *k, GPtrArray *rows)
{
	guint i;

	family(o, name, "gauge", help);
	for (i = 0; i < rows->len; i++) {
		struct pw_db_ops_count *c = rows->pdata[i];

		sample_int(o, name, k, c->a, NULL, NULL, c->n);
	}
}

/*
 * A queue's depth from counts by state (and instance, labels 2): the
 * rows in states (NULL-terminated), by instance or in all.
 */
static void depth(GString *o, const char *name, const char *help,
		  GPtrArray *rows, int labels, const char *const *states)
{
	GHashTable *by = g_hash_table_new(g_str_hash, g_str_equal);
	GList *keys, *l;
	int64_t all = 0;
	guint i;

	family(o, name, "gauge", help);
	for (i = 0; i < rows->len; i++) {
		struct pw_db_ops_count *c = rows->pdata[i];
		const char *state = labels > 1 ? c->b : c->a;
		const char *const *st;

		for (st = states; *st && strcmp(*st, state); st++)
			;
		if (!*st)
			continue;
		all += c->n;
		if (labels > 1)
			g_hash_table_insert(by, c->a, GINT_TO_POINTER(
				GPOINTER_TO_INT(g_hash_table_lookup(by, c->a)) +
				(int)c->n));
	}
	if (labels > 1) {
		keys = g_list_sort(g_hash_table_get_keys(by), (GCompareFunc)strcmp);
		for (l = keys; l; l = l->next)
			sample_int(o, name, "instance", l->data, NULL, NULL,
				   GPOINTER_TO_INT(g_hash_table_lookup(by, l->data)));
		g_list_free(keys);
	} else {
		sample_int(o, name, NULL, NULL, NULL, NULL, all);
	}
	g_hash_table_destroy(by);
}

/* The families read from the store, into o. */
static void store_families(GString *o, const struct pw_db_ops_metrics *m)
{
	static const char *const outbox_queue[] = { "pending", "sending", NULL };
	static const char *const pw_queue[] = { "pending", "posting", NULL };
	guint i;

	counts2(o, "patchwarden_messages", "Messages stored, by list"
		" and kind; a message on several lists counts under"
		" each.", "list", "kind", m->messages);
	counts1(o, "patchwarden_messages_stored", "Messages stored, by kind,"
		" each once whatever its lists.", "kind", m->stored);
	family(o, "patchwarden_findings", "gauge",
	       "Findings stored, by rule and severity.");
	for (i = 0; i < m->findings->len; i++) {
		struct pw_db_ops_count *c = m->findings->pdata[i];
		gint64 sev = 0;

		g_ascii_string_to_signed(c->b, 10, 0, 2, &sev, NULL);
		sample_int(o, "patchwarden_findings", "rule", c->a,
			   "severity", pw_severity_str((enum pw_severity)sev),
			   c->n);
	}
	counts1(o, "patchwarden_outbox_replies", "Replies in the outbox, by"
		" state.", "state", m->outbox);
	depth(o, "patchwarden_outbox_queue", "Replies waiting to be sent"
	      " (pending or sending).", m->outbox, 1, outbox_queue);
	counts2(o, "patchwarden_patchwork_checks", "Patchwork checks"
		" queued, by instance and state.", "instance", "state",
		m->pwcheck);
	depth(o, "patchwarden_patchwork_queue", "Patchwork checks waiting"
	      " to be posted (pending or posting), by instance.", m->pwcheck,
	      2, pw_queue);
	counts1(o, "patchwarden_unreadable_messages", "Messages that could"
		" not be read or stored, by subscription (\"\": mail read"
		" otherwise).", "subscription", m->unreadable);
	counts1(o, "patchwarden_attention_patches", "Patches in the"
		" overview's queue (findings at warning and above, not"
		" triaged), by list.", "list", m->attention);
	polls(o, m->polls);
}

static void metrics(struct pw_web_ops *ops, struct pw_db *db,
		    struct pw_web_answer *a)
{
	struct pw_db_ops_metrics m = { 0 };
	GString *o = a->body;
	bool readable = !pw_db_ops_metrics(db, &m);
	GString *fams = g_string_new(NULL);
	int64_t at;

	if (readable)
		store_families(fams, &m);
	pw_db_ops_metrics_release(&m);
	g_mutex_lock(&ops->lock);
	if (readable) {
		g_string_assign(ops->last_store, fams->str);
		ops->last_store_at = (int64_t)time(NULL);
	} else {
		g_string_assign(fams, ops->last_store->str);
	}
	at = ops->last_store_at;
	g_mutex_unlock(&ops->lock);
	a->status = 200;
	/* The version of the format the text follows. */
	a->type = "text/plain; version=0.0.4; charset=utf-8";
	family(o, "patchwarden_store_readable", "gauge",
	       "1 when the store answered the reads below, 0 when it did not"
	       " (they are then its last answers).");
	sample_int(o, "patchwarden_store_readable", NULL, NULL, NULL, NULL,
		   readable);
	family(o, "patchwarden_store_read_timestamp_seconds", "gauge",
	       "When the store last answered /metrics (Unix time, 0: never).");
	sample_int(o, "patchwarden_store_read_timestamp_seconds", NULL, NULL,
		   NULL, NULL, at);
	g_string_append(o, fams->str);
	g_string_free(fams, TRUE);
	latencies(ops, o);
}

void pw_web_ops_get(struct pw_web_ops *o, struct pw_db *db,
		    const struct pw_config *cfg, const char *path,
		    GHashTable *args, const char *accept,
		    struct pw_web_answer *a)
{
	if (!strcmp(path, "/healthz"))
		healthz(db, cfg, args, accept, a);
	else
		metrics(o, db, a);
}
