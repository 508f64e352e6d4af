/*
 * patchwarden: the dashboard's HTTP server (see bot/web.h).  The one
 * file that speaks libmicrohttpd: it reads requests, checks the token,
 * takes a store connection from the pool and hands the work to
 * bot/web_page.c and bot/web_post.c, which answer in plain data.
 */
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "bot/log.h"
#include "bot/web.h"
#include "bot/web_triage.h"
#include "bot/web_ops.h"
#include "bot/web_page.h"
#include "db/db.h"
#include "db/query.h"

/* The answers kept, at most: past either, all are dropped. */
#define CACHE_ENTRIES 2048
#define CACHE_BYTES (64u << 20)
/*
 * Bodies being read at once, at most, in [web] max_body: every POST
 * holds its announced length (a chunked one max_body) until it is
 * answered, and one that does not fit is answered 503 before its body
 * is read, so that many large POSTs never hold more memory than this.
 */
#define BODIES_AT_ONCE 8
#define CLIENTS_KEPT 4096	/* client addresses counted, at most */

struct pw_web {
	struct MHD_Daemon *d;
	const struct pw_config *cfg;
	char *db_path;
	GAsyncQueue *pool;		/* struct pw_db *, read-only */
	unsigned npool;
	GPtrArray *dbs;			/* every one of the pool's */
	gint stopped;			/* pw_web_stop() has returned from MHD */
	bool token_always;		/* not on loopback: every request */
	guint8 token_sum[32];		/* SHA-256 of [web] token */
	bool has_token;
	GMutex write_lock;		/* the one read-write connection */
	struct pw_db *writer;		/* opened by the first submission */
	struct sockaddr_storage addr;
	/* GET answers by URL, each with the store's generation it was
	 * computed at (pw_db_query_generation()): given again while the
	 * store is unchanged and the answer has not expired (a page
	 * showing a state that time alone changes).  Under cache_lock. */
	GMutex cache_lock;
	GHashTable *cache;		/* char * -> struct cached * */
	size_t cache_bytes;
	GCond cache_made;		/* an answer was made (or given up) */
	uint64_t cache_serial;
	/* Newer answers for kept ones the store has moved past, made one
	 * at a time on a thread and a connection of their own. */
	GThreadPool *refresher;
	struct pw_db *refresh_db;
	struct pw_web_ops *ops;		/* request latencies (bot/web_ops.c) */
	/* The bounds on clients, under client_lock: the bytes of bodies
	 * being read, and each client address's POSTs this minute. */
	GMutex client_lock;
	size_t inflight;
	GHashTable *clients;		/* char *address -> struct client * */
};

/* The POSTs of one client address in the minute that began at since. */
struct client {
	gint64 since;			/* monotonic seconds */
	int posts;
};

/*
 * One kept answer, or the place of the first one being made: requests
 * for the same URL wait for the one making it instead of making it
 * again.  Once the store has moved past a kept answer, the answer is
 * still given while a newer one is made in the background, so that a
 * page that takes seconds to make on a large store being written does
 * not hold a request, nor the server's threads, for that long: every
 * answer is whole and consistent, and at most one making old.
 */
struct cached {
	int64_t gen[PW_QUERY_GENERATION];
	uint64_t serial;		/* tells this entry from a later one */
	bool ready;			/* holds an answer */
	bool refreshing;		/* a newer one is being made */
	int64_t expires;		/* the answer's (struct pw_web_answer) */
	unsigned status;
	const char *type;
	GString *body;
};

/* A newer answer to make for a kept one. */
struct refresh {
	struct pw_web *w;
	char *key, *url;
	GHashTable *args;
	uint64_t serial;		/* of the entry it is for */
};

static void refresh_free(gpointer p)
{
	struct refresh *r = p;

	g_free(r->key);
	g_free(r->url);
	g_hash_table_unref(r->args);
	g_free(r);
}

static void cached_free(gpointer p)
{
	struct cached *c = p;

	if (c->body)
		g_string_free(c->body, TRUE);
	g_free(c);
}

static gboolean cached_ready(gpointer key, gpointer value, gpointer data)
{
	return ((struct cached *)value)->ready;
}

/* One request being read. */
struct req {
	GByteArray *body;
	bool too_big;		/* larger than [web] max_body: refused */
	size_t held;		/* bytes of the bodies' bound it holds */
};

/* ---- the token ---- */

static void token_digest(const char *s, size_t len, guint8 out[32])
{
	GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
	gsize n = 32;

	g_checksum_update(c, (const guchar *)s, (gssize)len);
	g_checksum_get_digest(c, out, &n);
	g_checksum_free(c);
}

/*
 * Whether the request carries the token.  The digests of both are
 * compared, every byte, so that neither the length nor the first
 * difference shows in the time taken.
 */
static bool token_ok(struct pw_web *w, const char *h)
{
	guint8 sum[32];
	unsigned diff = 0;
	size_t i;

	if (!w->has_token || !h || g_ascii_strncasecmp(h, "Bearer ", 7))
		return false;
	token_digest(h + 7, strlen(h + 7), sum);
	for (i = 0; i < sizeof(sum); i++)
		diff |= sum[i] ^ w->token_sum[i];
	return diff == 0;
}

/* ---- answering ---- */

static enum MHD_Result send_answer(struct MHD_Connection *c,
				   struct pw_web_answer *a)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		a->body->len, a->body->str, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;

	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a->type);
	/* Nothing of the page may run or load from elsewhere, whatever
	 * slipped through: no script at all, styles inline. */
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'none'; style-src 'unsafe-inline';"
				" img-src 'self' data:; form-action 'self';"
				" frame-ancestors 'none'");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (a->status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"patchwarden\"");
	if (a->status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD, POST");
	if (a->status == MHD_HTTP_TOO_MANY_REQUESTS ||
	    a->status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "60");
	ok = MHD_queue_response(c, a->status, r);
	MHD_destroy_response(r);
	return ok;
}

GHashTable *pw_web_args_new(void)
{
	return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

void pw_web_args_add(GHashTable *args, const char *name, const char *value)
{
	if (g_hash_table_contains(args, name))
		g_hash_table_insert(args, g_strdup(""), NULL);	/* marks it */
	else
		g_hash_table_insert(args, g_strdup(name), g_strdup(value));
}

/* Collects the query parameters (see pw_web_args_add()). */
static enum MHD_Result arg(void *cls, enum MHD_ValueKind kind,
			   const char *key, const char *value)
{
	pw_web_args_add(cls, key, value);
	return MHD_YES;
}

/* The read-write connection for submissions, opened once. */
static struct pw_db *writer(struct pw_web *w, struct pw_web_answer *a)
{
	char *err = NULL;

	if (w->writer)
		return w->writer;
	if (pw_db_open(w->db_path, false, &w->writer, &err)) {
		pw_web_answer_error(a, true, 503, "the store cannot be written:"
				    " %s", err);
		pw_error("serve: %s", err);
		g_free(err);
		w->writer = NULL;
	}
	return w->writer;
}

/*
 * The cache key of a GET: its path, then each argument in name order,
 * name and value each preceded by its length, so that no two requests
 * share a key.
 */
static char *cache_key(const char *url, GHashTable *args)
{
	GList *keys = g_list_sort(g_hash_table_get_keys(args),
				  (GCompareFunc)strcmp), *l;
	GString *k = g_string_new(url);

	for (l = keys; l; l = l->next) {
		const char *v = g_hash_table_lookup(args, l->data);

		v = v ? v : "";
		g_string_append_printf(k, " %zu:%s %zu:%s", strlen(l->data),
				       (const char *)l->data, strlen(v), v);
	}
	g_list_free(keys);
	return g_string_free(k, FALSE);
}

/* Keeps answer a in entry c (under cache_lock), at generation gen. */
static void cache_keep(struct pw_web *w, struct cached *c,
		       const int64_t gen[PW_QUERY_GENERATION],
		       const struct pw_web_answer *a)
{
	if (c->body) {
		w->cache_bytes -= MIN(w->cache_bytes, c->body->len);
		g_string_free(c->body, TRUE);
	}
	memcpy(c->gen, gen, sizeof(c->gen));
	c->status = a->status;
	c->type = a->type;
	c->expires = a->expires;
	c->body = g_string_new_len(a->body->str, (gssize)a->body->len);
	c->ready = true;
	w->cache_bytes += c->body->len;
}

/* The background maker of newer answers (the refresher's one thread). */
static void refresh(gpointer data, gpointer unused)
{
	struct refresh *r = data;
	struct pw_web *w = r->w;
	struct pw_web_answer a = { .body = g_string_new(NULL) };
	int64_t gen[PW_QUERY_GENERATION];
	struct cached *c;
	bool made;

	made = !pw_db_query_generation(w->refresh_db, gen);
	if (made)
		pw_web_get(w->refresh_db, w->cfg, r->url, r->args, &a);
	g_mutex_lock(&w->cache_lock);
	c = g_hash_table_lookup(w->cache, r->key);
	if (c && c->serial == r->serial) {
		c->refreshing = false;
		if (made && a.status == MHD_HTTP_OK)
			cache_keep(w, c, gen, &a);
	}
	g_mutex_unlock(&w->cache_lock);
	g_string_free(a.body, TRUE);
	refresh_free(r);
}

/* A copy of the query arguments, for the refresher. */
static GHashTable *args_copy(GHashTable *args)
{
	GHashTable *c = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					      g_free);
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, args);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_hash_table_insert(c, g_strdup(k), g_strdup(v));
	return c;
}

/*
 * Answers a GET from what is kept (see struct cached), or makes the
 * first answer for its URL (and keeps it when it is a 200).
 */
static void get_cached(struct pw_web *w, struct pw_db *db, const char *url,
		       GHashTable *args, struct pw_web_answer *a)
{
	int64_t gen[PW_QUERY_GENERATION];
	struct cached *c;
	uint64_t serial;
	char *key;

	if (pw_db_query_generation(db, gen)) {
		pw_web_get(db, w->cfg, url, args, a);
		return;
	}
	key = cache_key(url, args);
	g_mutex_lock(&w->cache_lock);
	for (;;) {
		c = g_hash_table_lookup(w->cache, key);
		if (c && c->ready) {
			if ((memcmp(c->gen, gen, sizeof(gen)) ||
			     (c->expires && time(NULL) >= c->expires)) &&
			    !c->refreshing) {
				struct refresh *r = g_new0(struct refresh, 1);

				r->w = w;
				r->key = g_strdup(key);
				r->url = g_strdup(url);
				r->args = args_copy(args);
				r->serial = c->serial;
				c->refreshing = true;
				g_thread_pool_push(w->refresher, r, NULL);
			}
			a->status = c->status;
			a->type = c->type;
			g_string_append_len(a->body, c->body->str,
					    (gssize)c->body->len);
			g_mutex_unlock(&w->cache_lock);
			g_free(key);
			return;
		}
		if (!c)
			break;
		g_cond_wait(&w->cache_made, &w->cache_lock);
	}
	c = g_new0(struct cached, 1);
	memcpy(c->gen, gen, sizeof(gen));
	c->serial = serial = ++w->cache_serial;
	g_hash_table_replace(w->cache, g_strdup(key), c);
	g_mutex_unlock(&w->cache_lock);

	pw_web_get(db, w->cfg, url, args, a);

	g_mutex_lock(&w->cache_lock);
	c = g_hash_table_lookup(w->cache, key);
	if (c && c->serial == serial) {
		if (a->status != MHD_HTTP_OK) {
			g_hash_table_remove(w->cache, key);
		} else {
			if (g_hash_table_size(w->cache) > CACHE_ENTRIES ||
			    w->cache_bytes + a->body->len > CACHE_BYTES) {
				/* Full: forget what was made (places
				 * being made stay, their makers hold them). */
				g_hash_table_foreach_remove(w->cache, cached_ready,
							    NULL);
				w->cache_bytes = 0;
			}
			cache_keep(w, c, gen, a);
		}
	}
	g_cond_broadcast(&w->cache_made);
	g_mutex_unlock(&w->cache_lock);
	g_free(key);
}

static void too_big(struct pw_web *w, struct pw_web_answer *a)
{
	pw_web_answer_error(a, true, MHD_HTTP_CONTENT_TOO_LARGE,
			    "the body is larger than %d KiB",
			    w->cfg->web_max_body / 1024);
}

/*
 * POST /api/triage (bot/web_triage.h): a maintainer's decision, with the
 * token in the Authorization header or, from a page's form, in its
 * "token" field.
 */
static void triage_post(struct pw_web *w, const struct pw_web_request *r,
			struct pw_web_answer *a)
{
	char *t = r->too_big ? NULL : pw_web_triage_token(r->body, r->len);
	char *bearer = t ? g_strconcat("Bearer ", t, NULL) : NULL;

	if (!w->has_token)
		pw_web_answer_error(a, true, MHD_HTTP_FORBIDDEN, "triage needs"
				    " [web] token in the configuration");
	else if (r->too_big)
		too_big(w, a);
	else if (!token_ok(w, r->authorization) && !token_ok(w, bearer))
		pw_web_answer_error(a, true, MHD_HTTP_UNAUTHORIZED, "a token is"
				    " needed: Authorization: Bearer TOKEN, or the"
				    " form's token");
	else {
		g_mutex_lock(&w->write_lock);
		if (writer(w, a))
			pw_web_triage_post(w->writer, w->cfg, r->body, r->len, a);
		g_mutex_unlock(&w->write_lock);
	}
	g_free(t);
	g_free(bearer);
}

void pw_web_answer(struct pw_web *w, const struct pw_web_request *r,
		   struct pw_web_answer *a)
{
	const char *url = r->path, *method = r->method;
	GHashTable *args = r->args;
	bool api = g_str_has_prefix(url, "/api/");
	bool post = !strcmp(method, MHD_HTTP_METHOD_POST);
	bool submit = !strcmp(url, "/api/submit");

	if ((w->token_always || submit) && !token_ok(w, r->authorization)) {
		if (submit && !w->has_token)
			pw_web_answer_error(a, true, MHD_HTTP_FORBIDDEN,
					    "submission needs [web] token in"
					    " the configuration");
		else
			pw_web_answer_error(a, api, MHD_HTTP_UNAUTHORIZED,
					    "a token is needed:"
					    " Authorization: Bearer TOKEN");
	} else if (g_hash_table_contains(args, "")) {
		pw_web_answer_error(a, api, MHD_HTTP_BAD_REQUEST,
				    "a parameter is given twice or has no name");
	} else if (post && !strcmp(url, "/api/triage")) {
		triage_post(w, r, a);
	} else if (post) {
		if (strcmp(url, "/api/check") && !submit)
			pw_web_answer_error(a, api, MHD_HTTP_NOT_FOUND, "POST goes"
					    " to /api/check or /api/submit");
		else if (r->too_big)
			too_big(w, a);
		else if (!submit)
			pw_web_check(w->cfg, args, r->body, r->len, a);
		else {
			g_mutex_lock(&w->write_lock);
			if (writer(w, a))
				pw_web_submit(w->writer, w->cfg, args, r->body,
					      r->len, a);
			g_mutex_unlock(&w->write_lock);
		}
	} else if (strcmp(method, MHD_HTTP_METHOD_GET) &&
		   strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		pw_web_answer_error(a, api, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "GET, HEAD or POST");
	} else if (!g_utf8_validate(url, -1, NULL) || strstr(url, "/../") ||
		   g_str_has_suffix(url, "/..")) {
		pw_web_answer_error(a, api, MHD_HTTP_BAD_REQUEST, "not a path");
	} else {
		struct pw_db *db = g_async_queue_pop(w->pool);

		/* A monitor's answers read the store as it is: never kept. */
		if (pw_web_ops_path(url))
			pw_web_ops_get(w->ops, db, w->cfg, url, args, r->accept, a);
		else
			get_cached(w, db, url, args, a);
		g_async_queue_push(w->pool, db);
	}
}

/* Answers the request of c, whose body q holds. */
static enum MHD_Result answer(struct pw_web *w, struct MHD_Connection *c,
			      const char *url, const char *method,
			      struct req *q)
{
	struct pw_web_answer a = { .body = g_string_new(NULL) };
	struct pw_web_request r = {
		.method = method,
		.path = url,
		.args = pw_web_args_new(),
		.authorization = MHD_lookup_connection_value(
			c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
		.accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_ACCEPT),
		.body = (const char *)q->body->data,
		.len = q->body->len,
		.too_big = q->too_big,
	};
	enum MHD_Result ok;
	gint64 began = g_get_monotonic_time();

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, arg, r.args);
	pw_web_answer(w, &r, &a);
	pw_web_ops_observe(w->ops, url,
			   (double)(g_get_monotonic_time() - began) / 1e6);
	ok = send_answer(c, &a);
	g_hash_table_destroy(r.args);
	g_string_free(a.body, TRUE);
	return ok;
}

/*
 * Whether the request announces a body larger than [web] max_body
 * (Content-Length); one sent in chunks is measured as it comes.
 */
static bool announced_too_big(struct pw_web *w, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	guint64 n;

	return h &&
	       g_ascii_string_to_unsigned(h, 10, 0, G_MAXUINT64, &n, NULL) &&
	       n > (guint64)w->cfg->web_max_body;
}

/* The numeric address of c's client into buf; false when unknown. */
static bool client_address(struct MHD_Connection *c, char *buf, size_t n)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	if (!sa)
		return false;
	if (sa->sa_family == AF_INET6) {
		/* One IPv6 client holds a /64 at least: counted as one. */
		struct sockaddr_in6 net;

		memcpy(&net, sa, sizeof(net));
		if (!IN6_IS_ADDR_V4MAPPED(&net.sin6_addr))
			memset(net.sin6_addr.s6_addr + 8, 0, 8);
		return !getnameinfo((const struct sockaddr *)&net, sizeof(net),
				    buf, (socklen_t)n, NULL, 0, NI_NUMERICHOST);
	}
	return !getnameinfo(sa, sizeof(struct sockaddr_in), buf, (socklen_t)n,
			    NULL, 0, NI_NUMERICHOST);
}

static gboolean client_old(gpointer key, gpointer value, gpointer now)
{
	return ((struct client *)value)->since + 60 <= *(gint64 *)now;
}

/*
 * Counts a POST of c's client; false when it is past [web] client_posts
 * this minute, or when CLIENTS_KEPT other clients are counted this
 * minute and it is not one of them.  The table forgets clients a minute
 * after their first POST.
 */
static bool client_may_post(struct pw_web *w, struct MHD_Connection *c)
{
	gint64 now = g_get_monotonic_time() / G_USEC_PER_SEC;
	char addr[NI_MAXHOST];
	struct client *k;
	bool ok;

	if (!w->cfg->web_client_posts || !client_address(c, addr, sizeof(addr)))
		return true;
	g_mutex_lock(&w->client_lock);
	k = g_hash_table_lookup(w->clients, addr);
	if (k && k->since + 60 <= now) {
		k->since = now;
		k->posts = 0;
	}
	if (!k && g_hash_table_size(w->clients) >= CLIENTS_KEPT)
		g_hash_table_foreach_remove(w->clients, client_old, &now);
	/* Full of clients counted within the minute: a new one is refused
	 * until room is made, rather than every count forgotten, which
	 * would let whoever holds many addresses reset everyone's. */
	if (!k && g_hash_table_size(w->clients) >= CLIENTS_KEPT) {
		g_mutex_unlock(&w->client_lock);
		return false;
	}
	if (!k) {
		k = g_new0(struct client, 1);
		k->since = now;
		g_hash_table_insert(w->clients, g_strdup(addr), k);
	}
	ok = k->posts < w->cfg->web_client_posts;
	if (ok)
		k->posts++;
	g_mutex_unlock(&w->client_lock);
	return ok;
}

/*
 * Takes room for q's body, n bytes, in the bound of bodies read at once;
 * false when it does not fit.
 */
static bool body_hold(struct pw_web *w, struct req *q, size_t n)
{
	size_t cap = (size_t)w->cfg->web_max_body * BODIES_AT_ONCE;
	bool ok;

	g_mutex_lock(&w->client_lock);
	ok = w->inflight + n <= cap;
	if (ok) {
		w->inflight += n;
		q->held = n;
	}
	g_mutex_unlock(&w->client_lock);
	return ok;
}

static void body_release(struct pw_web *w, struct req *q)
{
	g_mutex_lock(&w->client_lock);
	w->inflight -= MIN(w->inflight, q->held);
	q->held = 0;
	g_mutex_unlock(&w->client_lock);
}

/* Answers c now with status and message, before any body is read. */
static enum MHD_Result refuse_now(struct MHD_Connection *c, const char *url,
				  unsigned status, const char *msg)
{
	struct pw_web_answer a = { .body = g_string_new(NULL) };
	enum MHD_Result ok;

	pw_web_answer_error(&a, g_str_has_prefix(url, "/api/"), status, "%s",
			    msg);
	ok = send_answer(c, &a);
	g_string_free(a.body, TRUE);
	return ok;
}

/*
 * A POST's headers, before its body is read: refused now, unanswered
 * until its body has come (MHD_YES), or answered (too big).  Whatever is
 * refused here costs no memory for its body: MHD reads none of it and
 * closes the connection after the answer.
 */
static enum MHD_Result on_post_headers(struct pw_web *w,
				       struct MHD_Connection *c,
				       const char *url, const char *method,
				       struct req *q)
{
	const char *auth = MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	const char *h = MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	bool authorized = token_ok(w, auth);
	guint64 n = (guint64)w->cfg->web_max_body;

	/* Where the header must carry the token, nothing else is read
	 * without it (the same answer pw_web_answer() gives). */
	if (!authorized && (w->token_always || !strcmp(url, "/api/submit")))
		return answer(w, c, url, method, q);
	if (announced_too_big(w, c)) {
		q->too_big = true;
		return answer(w, c, url, method, q);
	}
	/* Maintainers with the token are not counted. */
	if (!authorized && !client_may_post(w, c))
		return refuse_now(c, url, MHD_HTTP_TOO_MANY_REQUESTS,
				  "too many POSTs from this address: at most"
				  " [web] client_posts a minute");
	if (h)
		g_ascii_string_to_unsigned(h, 10, 0, n, &n, NULL);
	if (!body_hold(w, q, (size_t)n))
		return refuse_now(c, url, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "too many bodies are being read: try again"
				  " later");
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *data,
				  size_t *size, void **con_cls)
{
	struct pw_web *w = cls;
	struct req *q = *con_cls;

	if (!q) {
		/* The headers: the body, if any, comes in the next calls. */
		q = g_new0(struct req, 1);
		q->body = g_byte_array_new();
		*con_cls = q;
		if (!strcmp(method, MHD_HTTP_METHOD_POST))
			return on_post_headers(w, c, url, method, q);
		return MHD_YES;
	}
	if (*size && strcmp(method, MHD_HTTP_METHOD_POST)) {
		/* Only a POST's body is read: any other is dropped as it
		 * comes, so that it holds no memory. */
		*size = 0;
		return MHD_YES;
	}
	if (*size) {
		if (q->body->len + *size > (size_t)w->cfg->web_max_body) {
			/* Past the limit in chunks, or past the length
			 * it announced: no more is read and the
			 * connection is closed, unanswered, as
			 * libmicrohttpd takes no answer while a body is
			 * being read. */
			q->too_big = true;
			return MHD_NO;
		}
		g_byte_array_append(q->body, (const guint8 *)data, (guint)*size);
		*size = 0;
		return MHD_YES;
	}
	return answer(w, c, url, method, q);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode toe)
{
	struct req *q = *con_cls;

	if (!q)
		return;
	body_release(cls, q);
	g_byte_array_unref(q->body);
	g_free(q);
	*con_cls = NULL;
}

/* ---- starting and stopping ---- */

static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)ss;

		return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
	}
	return false;
}

/* Reads "HOST:PORT" or "[V6]:PORT" into w->addr. */
static bool parse_listen(struct pw_web *w, const char *listen, char **err)
{
	const char *colon = strrchr(listen, ':');
	struct addrinfo hints = { 0 }, *res = NULL;
	char *host;
	int rc;

	if (!colon || colon == listen || !colon[1]) {
		*err = g_strdup_printf("listen '%s': HOST:PORT, as 127.0.0.1:8080",
				       listen);
		return false;
	}
	host = g_strndup(listen, (gsize)(colon - listen));
	if (*host == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	g_free(host);
	if (rc || !res) {
		*err = g_strdup_printf("listen '%s': %s", listen,
				       rc ? gai_strerror(rc) : "no address");
		return false;
	}
	memcpy(&w->addr, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return true;
}

/*
 * While the server stops: interrupts the store's reads again and again,
 * so that no request keeps it waiting (an interrupted read answers 500;
 * the client is going away with the server anyway).
 */
static gpointer interrupter(gpointer data)
{
	struct pw_web *w = data;
	guint i;

	while (!g_atomic_int_get(&w->stopped)) {
		for (i = 0; i < w->dbs->len; i++)
			pw_db_query_interrupt(w->dbs->pdata[i]);
		g_usleep(20000);
	}
	return NULL;
}

void pw_web_stop(struct pw_web *w)
{
	struct pw_db *db;

	if (!w)
		return;
	if (w->d) {
		GThread *t = g_thread_new("pw-web-stop", interrupter, w);

		MHD_stop_daemon(w->d);
		/* Newer answers not begun are dropped; one being made is
		 * interrupted like the requests. */
		if (w->refresher)
			g_thread_pool_free(w->refresher, TRUE, TRUE);
		w->refresher = NULL;
		g_atomic_int_set(&w->stopped, 1);
		g_thread_join(t);
	}
	if (w->refresher)
		g_thread_pool_free(w->refresher, TRUE, TRUE);
	pw_db_close(w->refresh_db);
	if (w->dbs)
		g_ptr_array_unref(w->dbs);
	while (w->pool && (db = g_async_queue_try_pop(w->pool)))
		pw_db_close(db);
	if (w->pool)
		g_async_queue_unref(w->pool);
	pw_db_close(w->writer);
	g_mutex_clear(&w->write_lock);
	if (w->cache)
		g_hash_table_destroy(w->cache);
	g_mutex_clear(&w->cache_lock);
	g_cond_clear(&w->cache_made);
	if (w->clients)
		g_hash_table_destroy(w->clients);
	g_mutex_clear(&w->client_lock);
	pw_web_ops_free(w->ops);
	g_free(w->db_path);
	g_free(w);
}

/* The store connections and the cache of w, for threads requests. */
static bool setup(struct pw_web *w, const char *db_path, unsigned threads,
		  char **err)
{
	unsigned i;

	w->npool = threads ? threads : 4;
	w->pool = g_async_queue_new();
	w->dbs = g_ptr_array_new();
	for (i = 0; i < w->npool; i++) {
		struct pw_db *db = NULL;

		if (pw_db_open(db_path, true, &db, err))
			return false;
		pw_db_query_reader_setup(db);
		g_ptr_array_add(w->dbs, db);
		g_async_queue_push(w->pool, db);
	}
	if (pw_db_open(db_path, true, &w->refresh_db, err))
		return false;
	pw_db_query_reader_setup(w->refresh_db);
	g_ptr_array_add(w->dbs, w->refresh_db);
	w->refresher = g_thread_pool_new_full(refresh, NULL, refresh_free, 1,
					      TRUE, NULL);
	return true;
}

/* A server not yet set up, for the store at db_path under cfg. */
static struct pw_web *web_new(const char *db_path, const struct pw_config *cfg)
{
	struct pw_web *w = g_new0(struct pw_web, 1);

	g_mutex_init(&w->write_lock);
	g_mutex_init(&w->cache_lock);
	g_cond_init(&w->cache_made);
	g_mutex_init(&w->client_lock);
	w->clients = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					   g_free);
	w->cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 cached_free);
	w->cfg = cfg;
	w->ops = pw_web_ops_new();
	w->db_path = g_strdup(db_path);
	w->has_token = cfg->web_token != NULL;
	if (w->has_token)
		token_digest(cfg->web_token, strlen(cfg->web_token),
			     w->token_sum);
	return w;
}

enum pw_status pw_web_open(const char *db_path, const struct pw_config *cfg,
			   unsigned threads, struct pw_web **out, char **err)
{
	struct pw_web *w = web_new(db_path, cfg);

	*out = NULL;
	*err = NULL;
	if (!setup(w, db_path, threads, err)) {
		pw_web_stop(w);
		return PW_ERR_USAGE;
	}
	*out = w;
	return PW_OK;
}

enum pw_status pw_web_start(const char *db_path, const struct pw_config *cfg,
			    const char *listen, unsigned threads,
			    struct pw_web **out, char **where, char **err)
{
	struct pw_web *w = web_new(db_path, cfg);
	const union MHD_DaemonInfo *info;
	unsigned flags;
	char host[NI_MAXHOST];

	*out = NULL;
	*where = NULL;
	*err = NULL;
	if (!listen)
		listen = cfg->web_listen ? cfg->web_listen : "127.0.0.1:8080";
	if (!parse_listen(w, listen, err))
		goto fail;
	w->token_always = !is_loopback(&w->addr);
	if (w->token_always && !w->has_token) {
		*err = g_strdup_printf("listen '%s' is not loopback: set [web]"
				       " token in the configuration", listen);
		goto fail;
	}
	if (!setup(w, db_path, threads, err))
		goto fail;
	flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	if (w->addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* As many server threads as connections: a request never waits
	 * for a connection while another thread is idle. */
	w->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, w,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&w->addr,
				MHD_OPTION_THREAD_POOL_SIZE, w->npool,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)512,
				/* One client holds at most this many of
				 * them; the rest of its are refused. */
				MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				(unsigned)cfg->web_client_connections,
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned)cfg->web_timeout,
				/* A connection's own buffer (the request
				 * line and headers must fit): MHD's
				 * default, said here, so that 512
				 * connections hold 16 MiB at most. */
				MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				(size_t)(32u << 10),
				MHD_OPTION_NOTIFY_COMPLETED, on_done, w,
				MHD_OPTION_END);
	if (!w->d) {
		*err = g_strdup_printf("listen '%s': cannot listen there (in"
				       " use, or not an address of this"
				       " machine)", listen);
		goto fail;
	}
	info = MHD_get_daemon_info(w->d, MHD_DAEMON_INFO_BIND_PORT);
	if (getnameinfo((struct sockaddr *)&w->addr, sizeof(w->addr), host,
			sizeof(host), NULL, 0, NI_NUMERICHOST))
		g_strlcpy(host, "?", sizeof(host));
	*where = g_strdup_printf(w->addr.ss_family == AF_INET6 ?
				 "http://[%s]:%u/" : "http://%s:%u/", host,
				 info ? (unsigned)info->port : 0);
	*out = w;
	return PW_OK;
fail:
	pw_web_stop(w);
	return PW_ERR_USAGE;
}
