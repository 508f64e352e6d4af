/*
 * patchwarden: the subscriptions' table and JSON (see bot/web_chart.h):
 * what an operator looks at to know whether the lists are being read.
 */
#include <string.h>
#include <json-glib/json-glib.h>

#include "bot/printer.h"
#include "bot/subscription.h"
#include "bot/web_chart.h"
#include "bot/web_html.h"
#include "db/subscription.h"

/* A time as JSON: ISO 8601, or null for never. */
static void json_time(JsonBuilder *b, const char *key, int64_t t)
{
	json_builder_set_member_name(b, key);
	if (t) {
		char *s = pw_iso_time(t);

		json_builder_add_string_value(b, s);
		g_free(s);
	} else {
		json_builder_add_null_value(b);
	}
}

static void json_str(JsonBuilder *b, const char *key, const char *s)
{
	json_builder_set_member_name(b, key);
	if (s)
		json_builder_add_string_value(b, s);
	else
		json_builder_add_null_value(b);
}

static void json_int(JsonBuilder *b, const char *key, int64_t n)
{
	json_builder_set_member_name(b, key);
	json_builder_add_int_value(b, n);
}

/* How its last poll ended: "ok", "failed", or NULL before any. */
static const char *last_result(const struct pw_subscription *u)
{
	if (!u->last_poll)
		return NULL;
	return u->failures ? "failed" : "ok";
}

/*
 * The state of u at now, its reason (a new string), and the earliest
 * time a page showing it goes out of date in *until (a minute at most:
 * the reasons count minutes).
 */
static const char *state_of(const struct pw_subscription *u, int stale_after,
			    int64_t now, char **why, int64_t *until)
{
	int64_t at;
	const char *state = pw_subscription_state(u, stale_after, now, why, &at);

	if (!*until || *until > now + 60)
		*until = now + 60;
	if (at && at < *until)
		*until = at;
	return state;
}

void pw_web_subscriptions_json(GString *o, GPtrArray *subs, int stale_after,
			       int64_t now, int64_t *until)
{
	JsonBuilder *b = json_builder_new();
	JsonGenerator *g = json_generator_new();
	JsonNode *root;
	char *text;
	guint i;

	json_builder_begin_array(b);
	for (i = 0; i < subs->len; i++) {
		const struct pw_subscription *u = subs->pdata[i];
		char *why;
		const char *state = state_of(u, stale_after, now, &why, until);

		json_builder_begin_object(b);
		json_str(b, "name", u->name);
		json_str(b, "kind", u->kind);
		json_str(b, "url", u->url);
		json_str(b, "list", u->list);
		json_str(b, "state", state);
		json_str(b, "reason", why);
		json_int(b, "stale_after", pw_subscription_stale_after(u, stale_after));
		json_int(b, "interval", u->interval);
		json_time(b, "last_poll", u->last_poll);
		json_str(b, "last_result", last_result(u));
		json_str(b, "last_error", u->last_error);
		json_time(b, "last_ok", u->last_ok);
		json_int(b, "failures", u->failures);
		json_time(b, "next_poll", u->paused ? 0 : u->next_poll);
		json_builder_set_member_name(b, "backfilled");
		json_builder_add_boolean_value(b, u->backfilled);
		json_int(b, "messages", u->messages);
		json_int(b, "unreadable", u->unreadable);
		json_builder_end_object(b);
		g_free(why);
	}
	json_builder_end_array(b);
	root = json_builder_get_root(b);
	json_generator_set_root(g, root);
	json_generator_set_pretty(g, TRUE);
	text = json_generator_to_data(g, NULL);
	g_string_append(o, text);
	g_string_append_c(o, '\n');
	g_free(text);
	json_node_unref(root);
	g_object_unref(g);
	g_object_unref(b);
}

/*
 * A time, or never.  Absolute: a page is kept and given again while
 * the store is unchanged, so "3 min ago" would grow untrue.
 */
static void when(GString *o, int64_t t, const char *never)
{
	char *s;

	if (!t) {
		g_string_append(o, never);
		return;
	}
	s = pw_iso_time(t);
	g_string_append(o, s);
	g_free(s);
}

void pw_web_subscriptions_html(GString *o, GPtrArray *subs, int stale_after,
			       int64_t now, int64_t *until)
{
	guint i;

	if (!subs->len) {
		g_string_append(o, "<p>No subscription: this store is filled by"
				" <code>patchwarden ingest</code> or"
				" <code>subscribe add</code> has not been run.</p>\n");
		return;
	}
	g_string_append(o, "<p class=\"hint\">Unreadable: messages of the"
			" subscription that could not be read or stored; the"
			" polls went on past them (<a href=\"/errors\">errors</a>"
			" says where and why). <a href=\"/api/subscriptions\">JSON</a></p>\n"
			"<table><tr><th>name</th><th>kind</th><th>source</th>"
			"<th>list</th><th>state</th><th>last poll</th>"
			"<th>result</th><th>last success</th><th>next poll</th>"
			"<th>messages</th><th>unreadable</th></tr>\n");
	for (i = 0; i < subs->len; i++) {
		const struct pw_subscription *u = subs->pdata[i];
		char *why;
		const char *state = state_of(u, stale_after, now, &why, until);
		bool bad = !strcmp(state, "failing") || !strcmp(state, "stale");

		g_string_append_printf(o, "<tr id=\"sub-%" G_GINT64_FORMAT "\"><td>",
				       (gint64)u->id);
		pw_web_esc(o, u->name);
		g_string_append(o, "</td><td>");
		pw_web_esc(o, u->kind);
		g_string_append(o, "</td><td><code>");
		pw_web_esc(o, u->url);
		g_string_append(o, "</code></td><td>");
		if (u->list) {
			g_string_append(o, "<a href=\"/list/");
			pw_web_esc_url(o, u->list);
			g_string_append(o, "\">");
			pw_web_esc(o, u->list);
			g_string_append(o, "</a>");
		}
		g_string_append_printf(o, "</td><td class=\"state-%s%s\"><b>%s</b>:"
				       " <span class=\"why\">", state,
				       bad ? " bad" : "", state);
		pw_web_esc(o, why);
		g_string_append(o, "</span></td><td>");
		g_free(why);
		when(o, u->last_poll, "never");
		g_string_append(o, "</td><td>");
		if (!u->last_poll)
			g_string_append(o, "-");
		else if (!u->failures)
			g_string_append(o, "ok");
		else {
			g_string_append_printf(o, "<span class=\"bad\">failed"
					       " (%d in a row)</span>: ", u->failures);
			pw_web_esc(o, u->last_error);
		}
		g_string_append(o, "</td><td>");
		when(o, u->last_ok, "never");
		g_string_append(o, "</td><td>");
		if (u->paused)
			g_string_append(o, "paused");
		else if (u->next_poll && u->next_poll < now - 60) {
			g_string_append(o, "<span class=\"bad\">overdue since ");
			when(o, u->next_poll, "now");
			g_string_append(o, "</span>");
		} else
			when(o, u->next_poll, "now");
		g_string_append_printf(o, "</td><td class=\"n\">%" G_GINT64_FORMAT
				       "</td><td class=\"n%s\">", (gint64)u->messages,
				       u->unreadable ? " bad" : "");
		if (u->unreadable) {
			g_string_append(o, "<a href=\"/errors");
			if (u->list) {
				g_string_append(o, "?list=");
				pw_web_esc_url(o, u->list);
			}
			g_string_append_printf(o, "\">%" G_GINT64_FORMAT "</a>",
					       (gint64)u->unreadable);
		} else {
			g_string_append(o, "0");
		}
		g_string_append(o, "</td></tr>\n");
	}
	g_string_append(o, "</table>\n");
}
