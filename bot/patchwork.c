/*
 * patchwarden: posting checks to Patchwork (see bot/patchwork.h).
 *
 * Exactly once.  A row is claimed (state posting, committed) before any
 * request, and Patchwork's answer is committed right after it.  A crash
 * between the two leaves the row in posting; the next poster, holding
 * the lock that proves no live poster owns it, makes it pending and
 * unsure.  An unsure row is not posted blindly: the poster first reads
 * the patch's checks of our context and, when one says what the row
 * would post, records it as posted.  Patchwork's checks are never
 * edited and cannot be deleted through the API, so what is there stays
 * there; a check found proves the post went through, none found that
 * it did not (Patchwork commits a check before it answers).
 *
 * Patchwork's answers: 201 posted; an empty lookup (the patch has not
 * reached Patchwork yet: its mail may come later) is retried with
 * backoff up to max_attempts, then failed with the reason; any other
 * 4xx (a bad token, no permission, a refused field) fails at once with
 * Patchwork's answer; 5xx and connection errors are retried.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "bot/curl.h"
#include "bot/lock.h"
#include "bot/log.h"
#include "bot/patchwork.h"
#include "checks/pwcheck.h"
#include "db/pwcheck.h"

#define MAX_BODY (4u << 20)	/* bytes of an answer kept */
#define MAX_ERROR 300		/* bytes of an answer quoted in last_error */
#define BATCH 100

static int64_t now(void)
{
	return (int64_t)time(NULL);
}

enum pw_status pw_patchwork_enqueue(struct pw_db *db,
				    const struct pw_config *cfg,
				    int64_t message_id, const struct pw_mail *m,
				    const char *list)
{
	int64_t t = now();
	enum pw_status s = PW_OK;
	guint i;

	if (!cfg->patchwork || !cfg->patchwork->len || m->kind != PW_MAIL_PATCH ||
	    m->automated || m->msgid_derived || !m->msgid)
		return PW_OK;
	for (i = 0; !s && i < cfg->patchwork->len; i++) {
		const struct pw_patchwork_conf *w = cfg->patchwork->pdata[i];
		bool added;

		if (pw_config_patchwork_serves(w, list))
			s = pw_db_pwcheck_add(db, message_id, w->name, m->msgid,
					      t, &added);
	}
	return s;
}

/* ---- HTTP ---- */

struct answer {
	long status;		/* 0: no answer */
	GString *body;
	bool cut;		/* longer than MAX_BODY */
};

static size_t on_body(char *p, size_t size, size_t n, void *data)
{
	struct answer *a = data;
	size_t len = size * n;

	if (a->body->len + len > MAX_BODY) {
		a->cut = true;
		return 0;
	}
	g_string_append_len(a->body, p, (gssize)len);
	return len;
}

/*
 * One request to instance w: method GET, or POST with the JSON body
 * json.  PW_OK with a->status set when Patchwork answered (whatever it
 * said); PW_ERR_TRANSIENT with *err (new) when it could not be reached
 * or its answer was cut off.
 */
static enum pw_status request(CURL *c, const struct pw_patchwork_conf *w,
			      const char *url, const char *json,
			      struct answer *a, char **err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *h = NULL;
	char *auth = g_strdup_printf("Authorization: Token %s", w->token);
	enum pw_status s = PW_OK;
	CURLcode rc;

	a->status = 0;
	a->cut = false;
	g_string_truncate(a->body, 0);
	curl_easy_reset(c);
	h = curl_slist_append(h, auth);
	h = curl_slist_append(h, "Accept: application/json");
	if (json) {
		h = curl_slist_append(h, "Content-Type: application/json");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
		/* A POST is not idempotent: never on a kept-alive connection
		 * the server may have closed meanwhile, which curl would
		 * retry on a new one without telling. */
		curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)MIN(w->timeout, 30));
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)w->timeout);
	/* A redirect would turn the POST into a GET: none is followed. */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "patchwarden/" PW_VERSION);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK || a->cut) {
		*err = a->cut ?
			g_strdup_printf("%s: an answer over %u bytes", w->url,
					MAX_BODY) :
			g_strdup_printf("%s: %s", w->url,
					*errbuf ? errbuf : curl_easy_strerror(rc));
		s = PW_ERR_TRANSIENT;
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a->status);
	}
	memset(auth, 0, strlen(auth));
	g_free(auth);
	curl_slist_free_all(h);
	return s;
}

/* The JSON of an answer, or NULL when it is not JSON.  Unref. */
static JsonNode *answer_json(const struct answer *a)
{
	JsonParser *p = json_parser_new();
	JsonNode *root = NULL;

	if (json_parser_load_from_data(p, a->body->str, (gssize)a->body->len,
				       NULL) && json_parser_get_root(p))
		root = json_node_copy(json_parser_get_root(p));
	g_object_unref(p);
	return root;
}

/*
 * What Patchwork said, for a person: "HTTP 403: You do not have
 * permission...", its "detail" when it gave one, else the answer's
 * first bytes, control characters made blanks.  New string.
 */
static char *answer_text(const struct answer *a)
{
	JsonNode *root = answer_json(a);
	char *text = NULL, *out;
	size_t i;

	if (root && JSON_NODE_HOLDS_OBJECT(root) &&
	    json_object_has_member(json_node_get_object(root), "detail"))
		text = g_strdup(json_object_get_string_member_with_default(
			json_node_get_object(root), "detail", ""));
	else
		text = g_strndup(a->body->str, MIN(a->body->len, MAX_ERROR));
	if (root)
		json_node_unref(root);
	if (!g_utf8_validate(text, -1, NULL)) {
		char *v = g_utf8_make_valid(text, -1);

		g_free(text);
		text = v;
	}
	for (i = 0; text[i]; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			text[i] = ' ';
	if (strlen(text) > MAX_ERROR) {
		i = MAX_ERROR;
		while (i > 0 && ((unsigned char)text[i] & 0xc0) == 0x80)
			i--;
		text[i] = '\0';
	}
	out = g_strdup_printf("HTTP %ld: %s", a->status, g_strstrip(text));
	g_free(text);
	return out;
}

/* ---- one check ---- */

/* The instance w's API address of path (which starts with '/'). */
static char *api(const struct pw_patchwork_conf *w, const char *path)
{
	return g_strdup_printf("%s/api%s", w->url, path);
}

/*
 * Looks the patch up by Message-ID in w's project.  PW_OK with *id 0
 * when Patchwork has no such patch; the answer in a when it refused.
 */
static enum pw_status lookup(CURL *c, const struct pw_patchwork_conf *w,
			     const char *msgid, struct answer *a, int64_t *id,
			     char **err)
{
	char *m = g_uri_escape_string(msgid, NULL, FALSE);
	char *p = g_uri_escape_string(w->project, NULL, FALSE);
	char *path = g_strdup_printf("/patches/?msgid=%s&project=%s", m, p);
	char *url = api(w, path);
	enum pw_status s = request(c, w, url, NULL, a, err);
	JsonNode *root = NULL;

	*id = 0;
	if (s || a->status != 200)
		goto out;
	root = answer_json(a);
	if (!root || !JSON_NODE_HOLDS_ARRAY(root)) {
		*err = g_strdup_printf("%s: the lookup's answer is not a JSON list",
				       url);
		s = PW_ERR_TRANSIENT;
		goto out;
	}
	if (json_array_get_length(json_node_get_array(root))) {
		JsonObject *o = json_array_get_object_element(
			json_node_get_array(root), 0);

		*id = o ? json_object_get_int_member_with_default(o, "id", 0) : 0;
		if (*id <= 0) {
			*err = g_strdup_printf("%s: a patch without an id", url);
			s = PW_ERR_TRANSIENT;
		}
	}
out:
	if (root)
		json_node_unref(root);
	g_free(url);
	g_free(path);
	g_free(p);
	g_free(m);
	return s;
}

/* Whether two optional strings are equal ("" as NULL). */
static bool same(const char *x, const char *y)
{
	return !g_strcmp0(x && *x ? x : NULL, y && *y ? y : NULL);
}

/*
 * Patchwork's id of the check at address url (".../checks/ID/"), 0
 * when there is none.
 */
static int64_t check_id(const char *url)
{
	const char *p;
	gint64 v = 0;
	char *end;

	if (!url)
		return 0;
	p = g_strrstr(url, "/checks/");
	if (!p)
		return 0;
	v = g_ascii_strtoll(p + 8, &end, 10);
	return end != p + 8 && (*end == '/' || !*end) && v > 0 ? v : 0;
}

/*
 * Whether patch patch_id has a check of our context saying what r
 * would post, newer than the check r posted before (when it was
 * re-queued): the check an interrupted poster may have posted.
 * Patchwork numbers checks in the order it stores them.  Its address
 * goes to *url (new).
 */
static enum pw_status find_posted(CURL *c, const struct pw_patchwork_conf *w,
				  const struct pw_pwcheck_row *r,
				  int64_t patch_id, struct answer *a,
				  char **url, char **err)
{
	char *path = g_strdup_printf("/patches/%" G_GINT64_FORMAT
				     "/checks/?context=%s&per_page=250",
				     patch_id, w->context);
	char *u = api(w, path);
	enum pw_status s = request(c, w, u, NULL, a, err);
	JsonNode *root = NULL;
	int64_t before = check_id(r->check_url);
	guint i, n;

	*url = NULL;
	if (s || a->status != 200)
		goto out;
	root = answer_json(a);
	if (!root || !JSON_NODE_HOLDS_ARRAY(root)) {
		*err = g_strdup_printf("%s: not a JSON list", u);
		s = PW_ERR_TRANSIENT;
		goto out;
	}
	n = json_array_get_length(json_node_get_array(root));
	for (i = 0; i < n && !*url; i++) {
		JsonObject *o = json_array_get_object_element(
			json_node_get_array(root), i);

		if (o && json_object_get_int_member_with_default(o, "id", 0) > before &&
		    same(json_object_get_string_member_with_default(o, "context", NULL), w->context) &&
		    same(json_object_get_string_member_with_default(o, "state", NULL), r->check_state) &&
		    same(json_object_get_string_member_with_default(o, "description", NULL), r->description) &&
		    same(json_object_get_string_member_with_default(o, "target_url", NULL), r->target_url))
			*url = g_strdup(json_object_get_string_member_with_default(
				o, "url", ""));
	}
out:
	if (root)
		json_node_unref(root);
	g_free(u);
	g_free(path);
	return s;
}

/* The JSON body of the check r holds. */
static char *check_json(const struct pw_patchwork_conf *w,
			const struct pw_pwcheck_row *r)
{
	JsonBuilder *b = json_builder_new();
	JsonGenerator *g = json_generator_new();
	JsonNode *root;
	char *out;

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "state");
	json_builder_add_string_value(b, r->check_state);
	json_builder_set_member_name(b, "context");
	json_builder_add_string_value(b, w->context);
	json_builder_set_member_name(b, "description");
	json_builder_add_string_value(b, r->description);
	if (r->target_url) {
		json_builder_set_member_name(b, "target_url");
		json_builder_add_string_value(b, r->target_url);
	}
	json_builder_end_object(b);
	root = json_builder_get_root(b);
	json_generator_set_root(g, root);
	out = json_generator_to_data(g, NULL);
	json_node_unref(root);
	g_object_unref(g);
	g_object_unref(b);
	return out;
}

/* What one row came to. */
enum outcome { POSTED, DEFERRED, FAILED, SKIPPED };

/*
 * The check row owes now, computed from the store for instance w:
 * its state (static), description and target_url (new).  *is_patch is
 * false when the row's message carries no patch.
 */
static enum pw_status owed(struct pw_db *db, const struct pw_config *cfg,
			   const struct pw_patchwork_conf *w,
			   const struct pw_pwcheck_row *row,
			   const char **state, char **desc, char **url,
			   bool *is_patch)
{
	GArray *items = g_array_new(FALSE, FALSE, sizeof(struct pw_pwcheck_item));
	const struct pw_pwcheck_item *v;
	enum pw_status s;

	*state = NULL;
	*desc = *url = NULL;
	s = pw_db_pwcheck_findings(db, row->message_id, items, is_patch);
	if (!s && *is_patch) {
		v = (const struct pw_pwcheck_item *)items->data;
		*state = pw_pwcheck_state_str(pw_pwcheck_state(v, items->len,
							       w->min_severity));
		*desc = pw_pwcheck_description(v, items->len, w->min_severity,
					       PW_PWCHECK_DESCRIPTION_MAX);
		*url = pw_pwcheck_target_url(cfg->dashboard_url, row->msgid,
					     PW_PWCHECK_URL_MAX);
	}
	g_array_free(items, TRUE);
	return s;
}

/*
 * Computes the check row id owes from the store and claims the row
 * with it.  *r receives the claimed row (NULL when it was not claimed:
 * another process took it, or it failed here for good).
 */
static enum pw_status claim(struct pw_db *db, const struct pw_config *cfg,
			    int64_t id, struct pw_pwcheck_row **r,
			    const struct pw_patchwork_conf **wp, bool *gone)
{
	struct pw_pwcheck_row *row = NULL;
	const struct pw_patchwork_conf *w;
	const char *cs = NULL;
	char *desc = NULL, *url = NULL;
	bool found, is_patch, claimed = false;
	enum pw_status s;

	*r = NULL;
	*gone = false;
	s = pw_db_pwcheck_get(db, id, &row, &found);
	if (s || !found || strcmp(row->state, "pending"))
		goto out;
	w = pw_config_patchwork(cfg, row->instance);
	if (!w) {
		s = pw_db_pwcheck_mark_failed(db, id, 0, "no [patchwork NAME]"
					      " of that name in the configuration");
		*gone = true;
		goto out;
	}
	s = owed(db, cfg, w, row, &cs, &desc, &url, &is_patch);
	if (s)
		goto out;
	if (!is_patch) {
		s = pw_db_pwcheck_mark_failed(db, id, 0, "the message carries no"
					      " patch");
		*gone = true;
		goto out;
	}
	/* An unsure row posts what it claimed before, so that the check
	 * the dead poster may have posted is recognised. */
	if (row->unsure && row->description && row->check_state) {
		g_free(desc);
		g_free(url);
		desc = g_strdup(row->description);
		url = g_strdup(row->target_url);
		s = pw_db_pwcheck_claim(db, id, now(), row->check_state, desc,
					url, &claimed);
	} else {
		s = pw_db_pwcheck_claim(db, id, now(), cs, desc, url, &claimed);
	}
	if (s || !claimed)
		goto out;
	pw_pwcheck_row_free(row);
	row = NULL;
	s = pw_db_pwcheck_get(db, id, &row, &found);
	if (!s && found) {
		*r = row;
		*wp = w;
		row = NULL;
	}
out:
	pw_pwcheck_row_free(row);
	g_free(desc);
	g_free(url);
	return s;
}

/*
 * Puts r back for later, unsure when the attempt may have posted, or
 * fails it once out of attempts.
 */
static enum pw_status later(struct pw_db *db, const struct pw_patchwork_conf *w,
			    const struct pw_pwcheck_row *r, int status,
			    const char *why, bool unsure, enum outcome *o)
{
	char *msg;
	enum pw_status s;

	if (r->attempts < w->max_attempts) {
		*o = DEFERRED;
		return pw_db_pwcheck_mark_retry(db, r->id, now() + pw_lock_backoff(r->attempts),
						status, why, unsure);
	}
	msg = g_strdup_printf("%s (gave up after %d attempts)", why, r->attempts);
	s = pw_db_pwcheck_mark_failed(db, r->id, status, msg);
	g_free(msg);
	*o = FAILED;
	return s;
}

/* Posts the claimed row r to w; records what happened in the store. */
static enum pw_status post_one(struct pw_db *db, CURL *c,
			       const struct pw_patchwork_conf *w,
			       const struct pw_pwcheck_row *r, enum outcome *o)
{
	struct answer a = { 0, g_string_new(NULL), false };
	char *err = NULL, *why = NULL, *url = NULL, *path, *json = NULL;
	const char *note = NULL;
	int64_t patch_id = r->patch_id;
	JsonNode *root = NULL;
	enum pw_status s;

	if (!patch_id) {
		if (lookup(c, w, r->msgid, &a, &patch_id, &err)) {
			s = later(db, w, r, (int)a.status, err, false, o);
			goto out;
		}
		if (a.status >= 500 || a.status < 200 || a.status == 429) {
			why = answer_text(&a);
			s = later(db, w, r, (int)a.status, why, false, o);
			goto out;
		}
		if (a.status != 200) {
			why = answer_text(&a);
			s = pw_db_pwcheck_mark_failed(db, r->id, (int)a.status, why);
			*o = FAILED;
			goto out;
		}
		if (!patch_id) {
			why = g_strdup_printf("Patchwork has no patch <%s> in project"
					      " %s yet", r->msgid, w->project);
			s = later(db, w, r, (int)a.status, why, false, o);
			goto out;
		}
		s = pw_db_pwcheck_set_patch(db, r->id, patch_id);
		if (s)
			goto out;
	}
	if (r->unsure) {
		if (find_posted(c, w, r, patch_id, &a, &url, &err)) {
			s = later(db, w, r, (int)a.status, err, false, o);
			goto out;
		}
		if (a.status != 200) {
			why = answer_text(&a);
			if (a.status >= 500 || a.status == 429)
				s = later(db, w, r, (int)a.status, why, false, o);
			else {
				s = pw_db_pwcheck_mark_failed(db, r->id,
							      (int)a.status, why);
				*o = FAILED;
			}
			goto out;
		}
		if (url) {
			s = pw_db_pwcheck_mark_posted(db, r->id, now(), 201, url,
						      "found posted: the poster"
						      " was interrupted before it"
						      " recorded the answer");
			*o = POSTED;
			goto out;
		}
		note = "posted after an interrupted attempt that had not posted";
	}
	path = g_strdup_printf("/patches/%" G_GINT64_FORMAT "/checks/", patch_id);
	url = api(w, path);
	g_free(path);
	json = check_json(w, r);
	/* No answer, or a 5xx (a proxy's timeout, a server that failed
	 * after it stored the check): the check may be there.  Unsure,
	 * the next attempt looks before it posts. */
	if (request(c, w, url, json, &a, &err)) {
		s = later(db, w, r, 0, err, true, o);
		goto out;
	}
	g_clear_pointer(&url, g_free);
	if (a.status == 201) {
		root = answer_json(&a);
		if (root && JSON_NODE_HOLDS_OBJECT(root))
			url = g_strdup(json_object_get_string_member_with_default(
				json_node_get_object(root), "url", NULL));
		s = pw_db_pwcheck_mark_posted(db, r->id, now(), 201, url, note);
		*o = POSTED;
	} else if (a.status >= 500 || a.status < 200 || a.status == 429) {
		why = answer_text(&a);
		s = later(db, w, r, (int)a.status, why, a.status >= 500, o);
	} else {
		why = answer_text(&a);
		s = pw_db_pwcheck_mark_failed(db, r->id, (int)a.status, why);
		*o = FAILED;
	}
out:
	if (*o == FAILED || *o == DEFERRED)
		pw_debug("patchwork %s: check %" G_GINT64_FORMAT " <%s>: %s",
			 w->name, r->id, r->msgid, why ? why : err ? err : "");
	if (root)
		json_node_unref(root);
	g_string_free(a.body, TRUE);
	g_free(err);
	g_free(why);
	g_free(url);
	g_free(json);
	return s;
}

/* ---- after a decision ---- */

/*
 * Makes the posted row r pending again, with why, when the check it
 * owes now says something else than the one it posted.
 */
static enum pw_status requeue_if_changed(struct pw_db *db,
					 const struct pw_config *cfg,
					 const struct pw_pwcheck_row *r,
					 const char *why, bool *requeued)
{
	const struct pw_patchwork_conf *w = pw_config_patchwork(cfg, r->instance);
	const char *state;
	char *desc = NULL, *url = NULL;
	enum pw_status s;
	bool is_patch;

	*requeued = false;
	if (!w)
		return PW_OK;
	s = owed(db, cfg, w, r, &state, &desc, &url, &is_patch);
	/* Patchwork shows the newest check of a context: only a check
	 * that would say something else is posted again. */
	if (!s && is_patch && (!same(state, r->check_state) ||
			       !same(desc, r->description) ||
			       !same(url, r->target_url)))
		s = pw_db_pwcheck_requeue(db, r->id, now(), why, requeued);
	g_free(desc);
	g_free(url);
	return s;
}

enum pw_status pw_patchwork_requeue_changed(struct pw_db *db,
					    const struct pw_config *cfg,
					    const char *why, int *n)
{
	GPtrArray *rows;
	enum pw_status s;
	guint i;

	*n = 0;
	if (!cfg->patchwork || !cfg->patchwork->len)
		return PW_OK;
	rows = g_ptr_array_new_with_free_func((GDestroyNotify)pw_pwcheck_row_free);
	s = pw_db_pwcheck_list(db, "posted", rows);
	for (i = 0; !s && i < rows->len; i++) {
		bool requeued = false;

		s = requeue_if_changed(db, cfg, rows->pdata[i], why, &requeued);
		*n += requeued;
	}
	g_ptr_array_unref(rows);
	return s;
}

enum pw_status pw_patchwork_requeue_messages(struct pw_db *db,
					     const struct pw_config *cfg,
					     const int64_t *messages, size_t n,
					     const char *why, int *requeued)
{
	GPtrArray *rows;
	enum pw_status s = PW_OK;
	size_t i;
	guint k;

	*requeued = 0;
	if (!cfg->patchwork || !cfg->patchwork->len)
		return PW_OK;
	rows = g_ptr_array_new_with_free_func((GDestroyNotify)pw_pwcheck_row_free);
	for (i = 0; !s && i < n; i++)
		s = pw_db_pwcheck_of_message(db, messages[i], "posted", rows);
	for (k = 0; !s && k < rows->len; k++) {
		bool done = false;

		s = requeue_if_changed(db, cfg, rows->pdata[k], why, &done);
		*requeued += done;
	}
	g_ptr_array_unref(rows);
	return s;
}

/* Re-queues posted row id when its check is stale already. */
static enum pw_status recheck_posted(struct pw_db *db,
				     const struct pw_config *cfg, int64_t id)
{
	struct pw_pwcheck_row *r = NULL;
	enum pw_status s;
	bool found, requeued;

	s = pw_db_pwcheck_get(db, id, &r, &found);
	if (!s && found && !strcmp(r->state, "posted"))
		s = requeue_if_changed(db, cfg, r, "posted again: the findings"
				       " counted changed while it was posted",
				       &requeued);
	pw_pwcheck_row_free(r);
	return s;
}

/* ---- the loop ---- */

/*
 * The poster's lock, a file beside the database, held until *fd is
 * closed or the process dies: whoever holds it knows that rows in
 * posting are orphans.
 */
static enum pw_status lock_poster(struct pw_db *db, int *fd, char **err)
{
	return pw_lock_beside(pw_db_path(db), "patchwork-lock", "posting checks", fd, err);
}

enum pw_status pw_patchwork_post_due(struct pw_db *db,
				     const struct pw_config *cfg,
				     const struct pw_patchwork_opts *o,
				     struct pw_patchwork_stats *st, char **err)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	CURL *c = NULL;
	enum pw_status s;
	int lock = -1;
	guint i;

	memset(st, 0, sizeof(*st));
	*err = NULL;
	s = lock_poster(db, &lock, err);
	if (s)
		goto out;
	s = pw_db_pwcheck_recover(db, now(), &st->recovered);
	if (!s)
		s = pw_db_pwcheck_due(db, now(), o->all,
				      o->limit > 0 ? o->limit : BATCH, ids);
	if (s)
		goto db_failed;
	if (!ids->len)
		goto out;
	pw_curl_init();
	c = curl_easy_init();
	if (!c) {
		*err = g_strdup("libcurl: no handle");
		s = PW_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < ids->len && !(o->stop && *o->stop); i++) {
		const struct pw_patchwork_conf *w = NULL;
		struct pw_pwcheck_row *r = NULL;
		enum outcome oc = SKIPPED;
		bool gone;

		s = claim(db, cfg, g_array_index(ids, int64_t, i), &r, &w, &gone);
		if (!s && gone)
			st->failed++;
		if (!s && r) {
			st->attempted++;
			s = post_one(db, c, w, r, &oc);
		}
		/* A decision taken while the check was on its way (or an
		 * unsure check that posted what it claimed before) may have
		 * left Patchwork with an old verdict: queued again. */
		if (!s && oc == POSTED)
			s = recheck_posted(db, cfg, r->id);
		pw_pwcheck_row_free(r);
		if (s)
			goto db_failed;
		st->posted += oc == POSTED;
		st->deferred += oc == DEFERRED;
		st->failed += oc == FAILED;
	}
	goto out;
db_failed:
	*err = g_strdup(pw_db_errmsg(db));
out:
	if (c)
		curl_easy_cleanup(c);
	if (lock >= 0)
		close(lock);
	g_array_free(ids, TRUE);
	return s;
}

void pw_patchwork_service_round(struct pw_db *db, const struct pw_config *cfg,
				const volatile sig_atomic_t *stop)
{
	struct pw_patchwork_opts o = { .stop = stop };
	struct pw_patchwork_stats st;
	char *err = NULL;

	if (!cfg->patchwork || !cfg->patchwork->len)
		return;
	if (pw_patchwork_post_due(db, cfg, &o, &st, &err)) {
		pw_warn("patchwork: %s; the checks wait for the next round",
			err ? err : "posting failed");
		g_free(err);
		return;
	}
	if (st.attempted || st.recovered)
		pw_info("patchwork: posted=%d deferred=%d failed=%d recovered=%d",
			st.posted, st.deferred, st.failed, st.recovered);
}
