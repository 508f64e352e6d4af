/*
 * patchwarden: an IMAP mailbox as a source, through libcurl (c-apis.md
 * section 3.6).  One easy handle per mailbox, so that one logged-in
 * connection, the mailbox selected once, serves the whole poll:
 *
 *   STATUS "MAILBOX" (UIDVALIDITY UIDNEXT MESSAGES)   on the server's URL
 *   UID SEARCH UID a:b      windows of the UIDs above the cursor
 *   UID FETCH n BODY[]      one message a call (libcurl's ";UID=n")
 *
 * Fetching sets \Seen: libcurl hands a custom BODY.PEEK[]'s bytes to no
 * callback (pitfall 2).  The search and fetch URLs carry ";UIDVALIDITY=",
 * so that libcurl refuses a mailbox whose UIDVALIDITY changed under the
 * poll (CURLE_REMOTE_FILE_NOT_FOUND, as for a UID expunged meanwhile);
 * STATUS then says which of the two happened.  A connection the server
 * drops (Dovecot does when the UIDVALIDITY changes) is opened again, a
 * few times a poll.
 *
 * Every byte the server sends is hostile: buffers are capped, numbers
 * read strictly, and UIDs outside the window asked for are dropped.
 * The password goes to libcurl and nowhere else: no log line, no error
 * and no source name holds it, and the protocol trace is read only for
 * the server's answers, never for what was sent.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "bot/curl.h"
#include "bot/imap.h"
#include "bot/log.h"

/*
 * UIDs searched at a time.  libcurl keeps a server line whole only up
 * to half its buffer (longer ones it cuts to 40 bytes, silently: with
 * the default 16 KiB buffer a search of 25,000 UIDs found 7,352), so a
 * window's "* SEARCH" line, at most 11 bytes a UID, must stay under
 * CURL_BUFFER / 2; SMALL_WINDOW under half the default buffer.
 */
#define WINDOW 10000u
#define SMALL_WINDOW 500u
#define CURL_BUFFER (256L * 1024)
#define STATUS_CAP (64u * 1024)
#define SEARCH_CAP (1024u * 1024)
/* UIDVALIDITY changes, and connections the server closed, that one
 * poll gets over before it gives up. */
#define MAX_RESTARTS 3
#define MAX_RECONNECTS 3

struct imap {
	CURL *c;
	const volatile sig_atomic_t *stop;
	char *name;		/* sub->url without a password */
	char *server;		/* "imap://host:port/": for STATUS */
	char *mailbox_url;	/* server and the mailbox, %-encoded */
	char *mailbox;		/* its name, as the server knows it */
	char *status_cmd;
	char *user, *password, *options;
	long usessl;
	char *cainfo;
	long timeout;
	char *cursor_key;	/* "sub:ID:imap" */

	uint32_t validity;	/* UIDVALIDITY of the mailbox being read */
	uint32_t top;		/* the last UID to search: UIDNEXT - 1 */
	bool open_ended;	/* no UIDNEXT: search up to '*' */
	uint32_t searched;	/* every UID up to this one is searched */
	uint32_t window;	/* UIDs a search asks for */
	GArray *uids;		/* uint32_t: found, not yet fetched */
	guint pos;
	int restarts;
	int reconnects;
	int index;
	bool done;

	GString *buf;		/* what the command in progress brought */
	size_t cap;		/* and the most it may bring */
	bool too_big;
	char *where;
	char cursor[24];
	char answer[200];	/* the server's last tagged answer, cleaned */
	char errbuf[CURL_ERROR_SIZE];
};

/* ---- parsing what the server says ---- */

/* Reads the decimal number of n bytes at p: 1 to 10 digits, at most
 * UINT32_MAX. */
static bool number(const char *p, size_t n, uint32_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 10)
		return false;
	for (i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

bool pw_imap_cursor_parse(const char *s, uint32_t *validity, uint32_t *uid)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	uint32_t v, u;

	if (!colon || !number(s, (size_t)(colon - s), &v) || v == 0 ||
	    !number(colon + 1, strlen(colon + 1), &u))
		return false;
	*validity = v;
	*uid = u;
	return true;
}

/* Calls fn on each line of the len bytes at buf, without its CR LF;
 * stops when fn returns false. */
static void each_line(const char *buf, size_t len,
		      bool (*fn)(const char *line, size_t n, void *data),
		      void *data)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t n = (size_t)(e - p);

		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (!fn(p, n, data))
			return;
		p = nl ? nl + 1 : end;
	}
}

/* True when the line of n bytes starts with the untagged answer word
 * ("* WORD" followed by a space or the end). */
static bool untagged(const char *line, size_t n, const char *word)
{
	size_t w = strlen(word);

	return n >= w + 2 && line[0] == '*' && line[1] == ' ' &&
	       !g_ascii_strncasecmp(line + 2, word, w) &&
	       (n == w + 2 || line[w + 2] == ' ');
}

/* Whether the bytes from k to end are the word w, in any case. */
static bool key(const char *k, const char *end, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(end - k) == n && !g_ascii_strncasecmp(k, w, n);
}

struct status_parse {
	struct pw_imap_status *st;
	bool found;
};

static bool status_line(const char *line, size_t n, void *data)
{
	struct status_parse *sp = data;
	const char *p, *end = line + n, *open = NULL;
	uint32_t *field;
	uint32_t v;

	if (!untagged(line, n, "STATUS"))
		return true;
	/* The mailbox name comes first and may hold '(': the attributes
	 * are in the last parenthesis. */
	for (p = line; p < end; p++)
		if (*p == '(')
			open = p;
	if (!open)
		return true;
	sp->found = true;
	p = open + 1;
	while (p < end && *p != ')') {
		const char *k = p, *num;

		while (p < end && g_ascii_isalpha(*p))
			p++;
		if (p == k || p >= end || *p != ' ')
			break;
		field = key(k, p, "UIDVALIDITY") ? &sp->st->validity :
			key(k, p, "UIDNEXT") ? &sp->st->uidnext :
			key(k, p, "MESSAGES") ? &sp->st->messages : NULL;
		num = ++p;
		while (p < end && g_ascii_isdigit(*p))
			p++;
		if (field && number(num, (size_t)(p - num), &v))
			*field = v;
		while (p < end && *p == ' ')
			p++;
	}
	return false;
}

bool pw_imap_status_parse(const char *buf, size_t len,
			  struct pw_imap_status *st)
{
	struct status_parse sp = { st, false };

	memset(st, 0, sizeof(*st));
	each_line(buf, len, status_line, &sp);
	return sp.found;
}

struct search_parse {
	uint32_t lo, hi;
	GArray *uids;
};

static bool search_line(const char *line, size_t n, void *data)
{
	struct search_parse *sp = data;
	const char *p = line + 8, *end = line + n;
	uint32_t v;

	if (!untagged(line, n, "SEARCH"))
		return true;
	while (p < end) {
		const char *t;

		while (p < end && *p == ' ')
			p++;
		/* "(MODSEQ n)" (RFC 7162) ends the numbers. */
		if (p < end && *p == '(')
			break;
		t = p;
		while (p < end && *p != ' ')
			p++;
		if (number(t, (size_t)(p - t), &v) && v >= sp->lo &&
		    v <= sp->hi)
			g_array_append_val(sp->uids, v);
	}
	return true;
}

static int uid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void pw_imap_search_parse(const char *buf, size_t len, uint32_t lo,
			  uint32_t hi, GArray *uids)
{
	struct search_parse sp = { lo, hi, uids };
	guint i, j;

	each_line(buf, len, search_line, &sp);
	g_array_sort(uids, uid_cmp);
	for (i = j = 0; i < uids->len; i++)
		if (j == 0 || g_array_index(uids, uint32_t, i) !=
			      g_array_index(uids, uint32_t, j - 1))
			g_array_index(uids, uint32_t, j++) =
				g_array_index(uids, uint32_t, i);
	g_array_set_size(uids, j);
}

/* ---- libcurl ---- */

/* Copies at most size - 1 bytes of n at p into out, control bytes and
 * line ends made spaces: server text fit for one log line. */
static void clean(char *out, size_t size, const char *p, size_t n)
{
	size_t i;

	while (n > 0 && strchr("\r\n ", p[n - 1]))
		n--;
	if (n > size - 1)
		n = size - 1;
	for (i = 0; i < n; i++)
		out[i] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ?
			 ' ' : p[i];
	out[n] = '\0';
}

static bool stopped(const struct imap *m)
{
	return m->stop && *m->stop;
}

static size_t write_cb(char *p, size_t size, size_t nmemb, void *userp)
{
	struct imap *m = userp;
	size_t n = size * nmemb;

	if (n > m->cap - m->buf->len) {
		m->too_big = true;
		return 0;
	}
	g_string_append_len(m->buf, p, n);
	return n;
}

/* Ends a transfer early when told to stop, or when the server announces
 * a message over the cap (libcurl learns its size from the literal). */
static int progress_cb(void *userp, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	struct imap *m = userp;

	if (stopped(m))
		return 1;
	if (dltotal > 0 && (uint64_t)dltotal > m->cap) {
		m->too_big = true;
		return 1;
	}
	return 0;
}

/* Keeps the server's last tagged refusal ("NO [NONEXISTENT] ...", the
 * tag dropped), for errors; the OK to the LOGOUT libcurl sends when it
 * drops a connection does not replace it.  What was sent is not looked
 * at: it holds the login. */
static int debug_cb(CURL *c, curl_infotype type, char *data, size_t size,
		    void *userp)
{
	struct imap *m = userp;
	const char *sp, *word;
	size_t n;

	if (type != CURLINFO_HEADER_IN || size == 0 || data[0] == '*' ||
	    data[0] == '+' || !(sp = memchr(data, ' ', size)))
		return 0;
	word = sp + 1;
	n = size - (size_t)(word - data);
	if (n >= 3 && (!g_ascii_strncasecmp(word, "NO ", 3) ||
		       !g_ascii_strncasecmp(word, "BAD", 3)))
		clean(m->answer, sizeof(m->answer), word, n);
	return 0;
}

/* A new handle, so that no connection left in an unknown state (a
 * transfer cut short, a timeout) is used again. */
static bool handle_new(struct imap *m)
{
	if (m->c)
		curl_easy_cleanup(m->c);
	m->c = curl_easy_init();
	if (m->c && curl_easy_setopt(m->c, CURLOPT_BUFFERSIZE, CURL_BUFFER) !=
		    CURLE_OK)
		m->window = SMALL_WINDOW;
	return m->c != NULL;
}

/*
 * Runs one command: custom (NULL for a fetch) on url, what it brings
 * into m->buf, at most cap bytes.  After a failure the connection is
 * dropped, except when the server answered well but had no such
 * mailbox state or UID (CURLE_REMOTE_FILE_NOT_FOUND).
 */
static CURLcode perform(struct imap *m, const char *url, const char *custom,
			size_t cap)
{
	CURLcode rc;

	g_string_truncate(m->buf, 0);
	m->cap = cap;
	m->too_big = false;
	m->answer[0] = '\0';
	m->errbuf[0] = '\0';
	if (!m->c && !handle_new(m))
		return CURLE_OUT_OF_MEMORY;
	curl_easy_setopt(m->c, CURLOPT_URL, url);
	curl_easy_setopt(m->c, CURLOPT_PROTOCOLS_STR, "imap,imaps");
	curl_easy_setopt(m->c, CURLOPT_CUSTOMREQUEST, custom);
	curl_easy_setopt(m->c, CURLOPT_USERNAME, m->user);
	curl_easy_setopt(m->c, CURLOPT_PASSWORD, m->password ? m->password : "");
	curl_easy_setopt(m->c, CURLOPT_LOGIN_OPTIONS, m->options);
	curl_easy_setopt(m->c, CURLOPT_USE_SSL, m->usessl);
	if (m->cainfo)
		curl_easy_setopt(m->c, CURLOPT_CAINFO, m->cainfo);
	curl_easy_setopt(m->c, CURLOPT_CONNECTTIMEOUT, m->timeout);
	curl_easy_setopt(m->c, CURLOPT_SERVER_RESPONSE_TIMEOUT, m->timeout);
	curl_easy_setopt(m->c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(m->c, CURLOPT_LOW_SPEED_TIME, m->timeout);
	curl_easy_setopt(m->c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(m->c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(m->c, CURLOPT_ERRORBUFFER, m->errbuf);
	curl_easy_setopt(m->c, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(m->c, CURLOPT_WRITEDATA, m);
	curl_easy_setopt(m->c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(m->c, CURLOPT_XFERINFOFUNCTION, progress_cb);
	curl_easy_setopt(m->c, CURLOPT_XFERINFODATA, m);
	curl_easy_setopt(m->c, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(m->c, CURLOPT_DEBUGFUNCTION, debug_cb);
	curl_easy_setopt(m->c, CURLOPT_DEBUGDATA, m);
	rc = curl_easy_perform(m->c);
	if (rc != CURLE_OK && rc != CURLE_REMOTE_FILE_NOT_FOUND)
		handle_new(m);
	return rc;
}

/* libcurl's words for a failure, or the server's when it gave some. */
static const char *why(const struct imap *m, CURLcode rc)
{
	if (m->answer[0] &&
	    (rc == CURLE_LOGIN_DENIED || rc == CURLE_QUOTE_ERROR))
		return m->answer;
	return m->errbuf[0] ? m->errbuf : curl_easy_strerror(rc);
}

/*
 * Translates a failed command; *err names the mailbox, never the
 * password.  A mailbox the server does not have (a NO to STATUS) is
 * PW_ERR_IO: delivery may create it yet.
 */
static enum pw_status failure(struct imap *m, CURLcode rc, const char *what,
			      char **err)
{
	char text[CURL_ERROR_SIZE + sizeof(m->answer)];

	clean(text, sizeof(text), why(m, rc), strlen(why(m, rc)));
	pw_debug("imap %s: %s: curl %d: %s", m->name, what, (int)rc, text);
	if (rc == CURLE_LOGIN_DENIED) {
		*err = g_strdup_printf("%s: the server refuses the login of "
				       "user '%s': %s", m->name, m->user, text);
		return PW_ERR_USAGE;
	}
	*err = g_strdup_printf("%s: %s: %s", m->name, what, text);
	return pw_curl_config_error(rc) ? PW_ERR_USAGE : PW_ERR_IO;
}

/* Asks for the mailbox's UIDVALIDITY and UIDNEXT.  PW_OK with *st
 * zeroed when told to stop. */
static enum pw_status status(struct imap *m, struct pw_imap_status *st,
			     char **err)
{
	CURLcode rc = perform(m, m->server, m->status_cmd, STATUS_CAP);

	memset(st, 0, sizeof(*st));
	if (rc != CURLE_OK && stopped(m))
		return PW_OK;
	if (rc != CURLE_OK)
		return failure(m, rc, "STATUS", err);
	if (!pw_imap_status_parse(m->buf->str, m->buf->len, st) ||
	    st->validity == 0) {
		*err = g_strdup_printf("%s: the server's answer to STATUS gives "
				       "no UIDVALIDITY", m->name);
		return PW_ERR_IO;
	}
	pw_debug("imap %s: UIDVALIDITY %" PRIu32 ", UIDNEXT %" PRIu32
		 ", MESSAGES %" PRIu32, m->name, st->validity, st->uidnext,
		 st->messages);
	return PW_OK;
}

/* Starts reading the mailbox after UID from, under UIDVALIDITY st. */
static void start(struct imap *m, const struct pw_imap_status *st,
		  uint32_t from)
{
	m->validity = st->validity;
	m->open_ended = st->uidnext == 0;
	m->top = st->uidnext ? st->uidnext - 1 : UINT32_MAX;
	m->searched = from;
	g_array_set_size(m->uids, 0);
	m->pos = 0;
}

/*
 * The mailbox refused a UIDVALIDITY or a UID: asks STATUS whether the
 * UIDVALIDITY changed, and if so reads the mailbox again from the start
 * (*changed).  PW_OK with m->done when told to stop.
 */
static enum pw_status recheck(struct imap *m, bool *changed, char **err)
{
	struct pw_imap_status st;
	enum pw_status s = status(m, &st, err);

	*changed = false;
	if (s)
		return s;
	if (stopped(m)) {
		m->done = true;
		return PW_OK;
	}
	if (st.validity == m->validity)
		return PW_OK;
	if (++m->restarts > MAX_RESTARTS) {
		*err = g_strdup_printf("%s: the mailbox's UIDVALIDITY changed %d "
				       "times during one poll", m->name,
				       m->restarts);
		return PW_ERR_IO;
	}
	pw_info("%s: UIDVALIDITY changed from %" PRIu32 " to %" PRIu32
		": reading the mailbox again", m->name, m->validity,
		st.validity);
	start(m, &st, 0);
	*changed = true;
	return PW_OK;
}

/* A connection the server closed under a command. */
static bool dropped(CURLcode rc)
{
	return rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
	       rc == CURLE_GOT_NOTHING || rc == CURLE_PARTIAL_FILE;
}

/* Searches windows of UIDs until one holds a message or all are
 * searched (then m->done). */
static enum pw_status more(struct imap *m, char **err)
{
	while (!m->done && m->pos >= m->uids->len) {
		char cmd[64], *url;
		uint32_t lo, hi;
		enum pw_status s;
		CURLcode rc;
		bool changed;

		g_array_set_size(m->uids, 0);
		m->pos = 0;
		if (m->searched >= m->top || stopped(m)) {
			m->done = true;
			break;
		}
		lo = m->searched + 1;
		if (m->open_ended) {
			hi = UINT32_MAX;
			snprintf(cmd, sizeof(cmd),
				 "UID SEARCH UID %" PRIu32 ":*", lo);
		} else {
			hi = m->top - lo < m->window ? m->top :
				lo + m->window - 1;
			snprintf(cmd, sizeof(cmd),
				 "UID SEARCH UID %" PRIu32 ":%" PRIu32, lo, hi);
		}
		url = g_strdup_printf("%s;UIDVALIDITY=%" PRIu32, m->mailbox_url,
				      m->validity);
		rc = perform(m, url, cmd, SEARCH_CAP);
		g_free(url);
		if (rc == CURLE_OK) {
			pw_imap_search_parse(m->buf->str, m->buf->len, lo, hi,
					     m->uids);
			m->searched = hi;
			continue;
		}
		if (stopped(m)) {
			m->done = true;
			break;
		}
		if (dropped(rc) && m->reconnects < MAX_RECONNECTS) {
			/* As in imap_next(): ask again on a new connection. */
			m->reconnects++;
			s = recheck(m, &changed, err);
			if (s)
				return s;
			continue;
		}
		if (rc != CURLE_REMOTE_FILE_NOT_FOUND)
			return failure(m, rc, "UID SEARCH", err);
		s = recheck(m, &changed, err);
		if (s)
			return s;
		if (!changed && !m->done) {
			*err = g_strdup_printf("%s: the server would not select "
					       "mailbox '%s'", m->name, m->mailbox);
			return PW_ERR_IO;
		}
	}
	return PW_OK;
}

static void mark(struct imap *m, struct pw_raw *raw, uint32_t uid)
{
	g_free(m->where);
	m->where = g_strdup_printf("%s: UID %" PRIu32, m->name, uid);
	snprintf(m->cursor, sizeof(m->cursor), "%" PRIu32 ":%" PRIu32,
		 m->validity, uid);
	raw->index = ++m->index;
	raw->where = m->where;
	raw->cursor_key = m->cursor_key;
	raw->cursor = m->cursor;
}

static enum pw_status imap_next(void *ctx, struct pw_raw *raw, char **err)
{
	struct imap *m = ctx;

	for (;;) {
		enum pw_status s;
		uint32_t uid;
		char *url;
		CURLcode rc;
		bool changed;

		if (stopped(m))
			m->done = true;
		s = more(m, err);
		if (s || m->done)
			return s;
		uid = g_array_index(m->uids, uint32_t, m->pos++);
		url = g_strdup_printf("%s;UIDVALIDITY=%" PRIu32 "/;UID=%" PRIu32,
				      m->mailbox_url, m->validity, uid);
		rc = perform(m, url, NULL, PW_MAX_MESSAGE);
		g_free(url);
		if (rc == CURLE_OK) {
			mark(m, raw, uid);
			raw->data = m->buf->str;
			raw->len = m->buf->len;
			return PW_OK;
		}
		if (stopped(m)) {
			m->done = true;
			return PW_OK;
		}
		if (m->too_big) {
			mark(m, raw, uid);
			*err = g_strdup_printf("%s: message larger than %u MiB, "
					       "skipped", m->where,
					       PW_MAX_MESSAGE >> 20);
			return PW_ERR_INPUT;
		}
		if (rc == CURLE_WEIRD_SERVER_REPLY) {
			/* An answer libcurl cannot read (BODY[] as NIL or a
			 * quoted string) would come again on every poll: the
			 * message is recorded as unreadable and passed. */
			char text[CURL_ERROR_SIZE];

			mark(m, raw, uid);
			clean(text, sizeof(text), why(m, rc),
			      strlen(why(m, rc)));
			*err = g_strdup_printf("%s: the server's answer to UID "
					       "FETCH cannot be read: %s",
					       m->where, text);
			return PW_ERR_INPUT;
		}
		if (dropped(rc) && m->reconnects < MAX_RECONNECTS) {
			/* The server may have closed the connection because
			 * the UIDVALIDITY changed (Dovecot does), or for
			 * reasons of its own: ask again on a new one. */
			m->reconnects++;
			pw_debug("imap %s: UID %" PRIu32 ": curl %d: connecting "
				 "again", m->name, uid, (int)rc);
			s = recheck(m, &changed, err);
			if (s)
				return s;
			if (!changed)
				m->pos--;
			continue;
		}
		if (rc != CURLE_REMOTE_FILE_NOT_FOUND)
			return failure(m, rc, "UID FETCH", err);
		/* Expunged since the search, or a new UIDVALIDITY. */
		s = recheck(m, &changed, err);
		if (s)
			return s;
		if (!changed)
			pw_debug("imap %s: UID %" PRIu32 " is gone", m->name,
				 uid);
	}
}

static void imap_free(void *ctx)
{
	struct imap *m = ctx;

	if (!m)
		return;
	if (m->c)
		curl_easy_cleanup(m->c);
	if (m->password)
		memset(m->password, 0, strlen(m->password));
	g_free(m->password);
	g_free(m->name);
	g_free(m->server);
	g_free(m->mailbox_url);
	g_free(m->mailbox);
	g_free(m->status_cmd);
	g_free(m->user);
	g_free(m->options);
	g_free(m->cainfo);
	g_free(m->cursor_key);
	if (m->uids)
		g_array_free(m->uids, TRUE);
	if (m->buf)
		g_string_free(m->buf, TRUE);
	g_free(m->where);
	g_free(m);
}

static const struct pw_source_ops imap_ops = {
	.next = imap_next,
	.ack = NULL,
	.free = imap_free,
};

/* A URL part as a new string (g_free), or NULL when the URL has none. */
static char *part(CURLU *u, CURLUPart what, unsigned flags)
{
	char *v = NULL, *out = NULL;

	if (curl_url_get(u, what, &v, flags) == CURLUE_OK && v && *v)
		out = g_strdup(v);
	curl_free(v);
	return out;
}

/* The URL without user information, for STATUS, or as a name shown
 * (keep_user: the user stays, the password and options go). */
static char *url_without(CURLU *u, bool keep_user, const char *path)
{
	CURLU *v = curl_url_dup(u);
	char *s = NULL, *out = NULL;

	if (v &&
	    (keep_user ||
	     curl_url_set(v, CURLUPART_USER, NULL, 0) == CURLUE_OK) &&
	    curl_url_set(v, CURLUPART_PASSWORD, NULL, 0) == CURLUE_OK &&
	    curl_url_set(v, CURLUPART_OPTIONS, NULL, 0) == CURLUE_OK &&
	    (!path || curl_url_set(v, CURLUPART_PATH, path, 0) == CURLUE_OK) &&
	    curl_url_get(v, CURLUPART_URL, &s, 0) == CURLUE_OK)
		out = g_strdup(s);
	curl_free(s);
	curl_url_cleanup(v);
	return out;
}

/* Reads sub->url into m: the server, the mailbox, the login the URL
 * carries.  PW_ERR_USAGE for a URL that is not one mailbox's. */
static enum pw_status read_url(struct imap *m, const char *sub_name,
			       const char *url, char **err)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *path = NULL, *query = NULL,
	     *frag = NULL, *enc = NULL, *user = NULL;
	enum pw_status s = PW_ERR_USAGE;
	GString *cmd;
	size_t i, n;

	/* An '@' that libcurl does not read as the end of the user
	 * information (a password with an unescaped '/', '?' or '#' ends
	 * the host early) would show the password as path or fragment. */
	const char *auth = strstr(url, "://");
	bool userinfo = auth && strchr(auth + 3, '@');

	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    !(scheme = part(u, CURLUPART_SCHEME, 0)) ||
	    !(host = part(u, CURLUPART_HOST, 0)) ||
	    (userinfo && !(user = part(u, CURLUPART_USER, 0)))) {
		/* Not shown: it might hold a password. */
		*err = g_strdup_printf("subscription %s: its URL cannot be read "
				       "as imap://HOST[:PORT]/MAILBOX", sub_name);
		goto out;
	}
	m->name = url_without(u, true, NULL);
	if (!m->name || (strcmp(scheme, "imap") && strcmp(scheme, "imaps"))) {
		*err = g_strdup_printf("subscription %s: not an imap:// or "
				       "imaps:// URL", sub_name);
		goto out;
	}
	path = part(u, CURLUPART_PATH, 0);
	query = part(u, CURLUPART_QUERY, 0);
	frag = part(u, CURLUPART_FRAGMENT, 0);
	if ((path && strchr(path, ';')) || query || frag) {
		*err = g_strdup_printf("%s: the URL names more than a mailbox "
				       "(';', '?' or '#'): name the mailbox "
				       "alone", m->name);
		goto out;
	}
	g_free(path);
	path = part(u, CURLUPART_PATH, CURLU_URLDECODE);
	/* "/Lists/linux-mips/" is the mailbox "Lists/linux-mips";
	 * no mailbox is INBOX. */
	n = path ? strlen(path) : 0;
	while (n > 0 && path[n - 1] == '/')
		n--;
	for (i = 0; i < n && path[i] == '/'; i++)
		;
	m->mailbox = n > i ? g_strndup(path + i, n - i) : g_strdup("INBOX");
	for (i = 0; m->mailbox[i]; i++)
		if ((unsigned char)m->mailbox[i] < 0x20 ||
		    (unsigned char)m->mailbox[i] > 0x7e) {
			*err = g_strdup_printf("%s: the mailbox name must be "
					       "printable ASCII (modified UTF-7 "
					       "for others, as the server lists "
					       "it)", m->name);
			goto out;
		}
	m->server = url_without(u, false, "/");
	enc = curl_easy_escape(NULL, m->mailbox, 0);
	if (!m->server || !enc) {
		*err = g_strdup_printf("%s: out of memory", m->name);
		s = PW_ERR_NOMEM;
		goto out;
	}
	m->mailbox_url = g_strconcat(m->server, enc, NULL);
	/* The mailbox as an IMAP quoted string. */
	cmd = g_string_new("STATUS \"");
	for (i = 0; m->mailbox[i]; i++) {
		if (m->mailbox[i] == '"' || m->mailbox[i] == '\\')
			g_string_append_c(cmd, '\\');
		g_string_append_c(cmd, m->mailbox[i]);
	}
	g_string_append(cmd, "\" (UIDVALIDITY UIDNEXT MESSAGES)");
	m->status_cmd = g_string_free(cmd, FALSE);
	m->user = part(u, CURLUPART_USER, CURLU_URLDECODE);
	m->password = part(u, CURLUPART_PASSWORD, CURLU_URLDECODE);
	m->options = part(u, CURLUPART_OPTIONS, CURLU_URLDECODE);
	s = PW_OK;
out:
	curl_free(enc);
	g_free(scheme);
	g_free(host);
	g_free(user);
	g_free(path);
	g_free(query);
	g_free(frag);
	curl_url_cleanup(u);
	return s;
}

enum pw_status pw_imap_open(const struct pw_subscription *sub,
			    const struct pw_config *cfg, struct pw_db *db,
			    const volatile sig_atomic_t *stop,
			    struct pw_source **out, char **err)
{
	const struct pw_imap_conf *conf = pw_config_imap(cfg, sub->name);
	struct imap *m = g_new0(struct imap, 1);
	struct pw_imap_status st;
	uint32_t cv = 0, cu = 0, from = 0;
	char *cursor = NULL;
	enum pw_status s;

	*out = NULL;
	*err = NULL;
	pw_curl_init();
	m->stop = stop;
	m->window = WINDOW;
	m->uids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	m->buf = g_string_sized_new(64 * 1024);
	s = read_url(m, sub->name, sub->url, err);
	if (s)
		goto fail;
	/* The URL's login comes first; the configuration fills the rest. */
	if (!m->user)
		m->user = g_strdup(conf->user);
	if (!m->password)
		m->password = g_strdup(conf->password);
	if (!m->user) {
		*err = g_strdup_printf("%s: no user to log in as: set [imap] "
				       "user, or [imap %s] user", m->name,
				       sub->name);
		s = PW_ERR_USAGE;
		goto fail;
	}
	m->usessl = !strcmp(conf->starttls, "no") ? (long)CURLUSESSL_NONE :
		    !strcmp(conf->starttls, "try") ? (long)CURLUSESSL_TRY :
		    (long)CURLUSESSL_ALL;
	m->cainfo = g_strdup(conf->cainfo);
	m->timeout = conf->timeout > 0 ? conf->timeout : 60;
	m->cursor_key = g_strdup_printf("sub:%" PRId64 ":imap", sub->id);

	s = pw_db_cursor_get(db, m->cursor_key, &cursor);
	if (s) {
		*err = g_strdup_printf("%s: cannot read the cursor %s",
				       m->name, m->cursor_key);
		goto fail;
	}
	if (cursor && !pw_imap_cursor_parse(cursor, &cv, &cu))
		pw_warn("%s: the cursor %s is not UIDVALIDITY:UID: reading "
			"the mailbox from the start", m->name, m->cursor_key);
	s = status(m, &st, err);
	if (s)
		goto fail;
	if (stopped(m)) {
		m->done = true;
	} else {
		if (cv && cv == st.validity)
			from = cu;
		else if (cv)
			pw_info("%s: UIDVALIDITY changed from %" PRIu32 " to %"
				PRIu32 ": reading the mailbox again", m->name,
				cv, st.validity);
		start(m, &st, from);
	}
	g_free(cursor);
	*out = pw_source_new(m->name, &imap_ops, m);
	return PW_OK;
fail:
	g_free(cursor);
	imap_free(m);
	return s;
}
