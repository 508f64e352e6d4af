/*
 * patchwarden: SMTP through libcurl.  The one place CURLcode is seen and
 * translated (c-apis.md section 3.2): 4xx answers and network trouble are
 * transient, 5xx answers about the message are permanent, and a refused
 * login, an untrusted certificate or a refused sender (5xx to MAIL FROM)
 * is a configuration error that no retry of this one message would fix.
 *
 * The data handed to libcurl is CRLF text; libcurl dot-stuffs it, so
 * nothing here stuffs again, and CURLOPT_CRLF stays off (it would turn
 * CRLF into CR CR LF).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <curl/curl.h>
#include <glib.h>

#include "bot/curl.h"
#include "bot/smtp.h"
#include "bot/log.h"

struct pw_smtp {
	CURL *c;
	char *url;
	char *shown;		/* url without user information, for logs */
	struct pw_smtp_opts o;
	char errbuf[CURL_ERROR_SIZE];
};

/* The upload in progress. */
struct upload {
	const char *data;
	size_t len, pos;
};

/* What the server answered to each RCPT TO, gathered from the protocol
 * trace, since with ALLLOWFAILS a refused Cc does not fail the send. */
struct rcpt_trace {
	char *current;		/* the address of the RCPT awaiting its answer */
	GString *refused;	/* "addr: 550 text; " for each refusal */
	int accepted;
	bool mail_pending;	/* MAIL FROM sent, its answer not yet read */
	char *mail_refused;	/* a 5xx answer to MAIL FROM, as the server said it */
	GString *reply;		/* the answer being read, its lines joined */
	char *last;		/* the server's last whole answer */
};

static size_t read_cb(char *buf, size_t size, size_t nmemb, void *userp)
{
	struct upload *u = userp;
	size_t n = u->len - u->pos;

	if (n > size * nmemb)
		n = size * nmemb;
	memcpy(buf, u->data + u->pos, n);
	u->pos += n;
	return n;
}

/* Copies one protocol line without its line end and control bytes. */
static char *line_dup(const char *p, size_t n)
{
	char *s;
	size_t i;

	while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	if (n > 200)
		n = 200;
	s = g_strndup(p, n);
	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = ' ';
	return s;
}

static int debug_cb(CURL *c, curl_infotype type, char *data, size_t size,
		    void *userp)
{
	struct rcpt_trace *t = userp;
	char *line;

	/* Every answer, for the error of a failed transaction: libcurl
	 * reports a refusal after DATA only as a "weird server reply". */
	if (type == CURLINFO_HEADER_IN && size >= 4 && g_ascii_isdigit(data[0])) {
		/* "554-first" "554 last": "554 first last". */
		line = line_dup(data, size);
		if (t->reply->len >= 400) {
			/* Enough to say why; a server may send lines
			 * without end. */
		} else if (t->reply->len) {
			g_string_append_c(t->reply, ' ');
			g_string_append(t->reply, strlen(line) > 4 ? line + 4 : "");
		} else {
			if (line[3])
				line[3] = ' ';
			g_string_append(t->reply, line);
		}
		g_free(line);
		if (data[3] != '-') {
			g_free(t->last);
			t->last = g_strndup(t->reply->str, 400);
			g_string_truncate(t->reply, 0);
		}
	}
	if (type == CURLINFO_HEADER_OUT && size > 10 &&
	    !g_ascii_strncasecmp(data, "MAIL FROM:", 10)) {
		t->mail_pending = true;
	} else if (type == CURLINFO_HEADER_IN && t->mail_pending && size >= 4 &&
		   g_ascii_isdigit(data[0]) && data[3] != '-') {
		t->mail_pending = false;
		if (data[0] == '5') {
			g_free(t->mail_refused);
			t->mail_refused = line_dup(data, size);
		}
	} else if (type == CURLINFO_HEADER_OUT && size > 8 &&
	    !g_ascii_strncasecmp(data, "RCPT TO:", 8)) {
		g_free(t->current);
		t->current = line_dup(data + 8, size - 8);
	} else if (type == CURLINFO_HEADER_IN && t->current && size >= 4 &&
		   g_ascii_isdigit(data[0]) && data[3] != '-') {
		/* The final line of the answer to the pending RCPT. */
		if (data[0] == '2') {
			t->accepted++;
		} else {
			line = line_dup(data, size);
			g_string_append_printf(t->refused, "%s%s refused: %s",
					       t->refused->len ? "; " : "",
					       t->current, line);
			g_free(line);
		}
		g_free(t->current);
		t->current = NULL;
	}
	return 0;
}

/* True when s is a plausible host name for EHLO (it goes into the URL). */
static bool helo_ok(const char *s)
{
	size_t i;

	if (!s || !*s || strlen(s) > 253)
		return false;
	for (i = 0; s[i]; i++)
		if (!g_ascii_isalnum(s[i]) && s[i] != '.' && s[i] != '-')
			return false;
	return true;
}

/*
 * The URL as logs may show it: "smtp://user:secret@host" names a
 * password, so the user information is dropped (libcurl's URL parser
 * cuts it); a URL it cannot parse is not shown at all.
 */
static char *shown_url(const char *url)
{
	CURLU *u = curl_url();
	char *out = NULL, *user = NULL, *res;
	const char *auth = strstr(url, "://");
	bool userinfo = auth && strchr(auth + 3, '@');

	/* An '@' that curl does not read as the end of user information
	 * (a password with an unescaped '#', '/' or '?' ends the host
	 * early) would show the password as host, path or fragment. */
	if (u && curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
	    (!userinfo || curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK) &&
	    curl_url_set(u, CURLUPART_USER, NULL, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_PASSWORD, NULL, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_OPTIONS, NULL, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_QUERY, NULL, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_URL, &out, 0) == CURLUE_OK) {
		res = g_strdup(out);
		curl_free(out);
	} else {
		res = g_strdup("(the configured [smtp] url)");
	}
	curl_free(user);
	curl_url_cleanup(u);
	return res;
}

struct pw_smtp *pw_smtp_new(const struct pw_smtp_opts *o)
{
	struct pw_smtp *s;
	const char *scheme_end;

	pw_curl_init();
	s = g_new0(struct pw_smtp, 1);
	s->c = curl_easy_init();
	if (!s->c) {
		g_free(s);
		return NULL;
	}
	s->o = *o;
	/* The URL's path is the EHLO name; add the configured one when the
	 * URL has no path of its own. */
	scheme_end = strstr(o->url, "://");
	if (o->helo && helo_ok(o->helo) && scheme_end &&
	    !strchr(scheme_end + 3, '/'))
		s->url = g_strdup_printf("%s/%s", o->url, o->helo);
	else
		s->url = g_strdup(o->url);
	s->shown = shown_url(s->url);
	return s;
}

void pw_smtp_free(struct pw_smtp *s)
{
	if (!s)
		return;
	curl_easy_cleanup(s->c);
	g_free(s->url);
	g_free(s->shown);
	g_free(s);
}

static bool config_error(CURLcode rc, long code)
{
	if (pw_curl_config_error(rc))
		return true;
	/* Authentication required, too weak, or refused. */
	return code == 530 || code == 534 || code == 535 || code == 538;
}

enum pw_status pw_smtp_send(struct pw_smtp *s, const char *from,
			    const char *const *rcpt, const void *data,
			    size_t len, struct pw_smtp_result *res)
{
	struct upload up = { data, len, 0 };
	struct rcpt_trace trace = { .refused = g_string_new(NULL),
				    .reply = g_string_new(NULL) };
	struct curl_slist *list = NULL;
	char *mail_from = g_strdup_printf("<%s>", from);
	enum pw_status st;
	long code = 0, usessl = CURLUSESSL_ALL;
	long connect_timeout;
	CURLcode rc;
	size_t i;

	memset(res, 0, sizeof(*res));
	if (!s->c && !(s->c = curl_easy_init())) {
		snprintf(res->error, sizeof(res->error), "cannot start libcurl");
		st = PW_ERR_TRANSIENT;
		goto out;
	}
	for (i = 0; rcpt && rcpt[i]; i++) {
		char *r = g_strdup_printf("<%s>", rcpt[i]);

		list = curl_slist_append(list, r);
		g_free(r);
	}
	if (s->o.starttls && !strcmp(s->o.starttls, "try"))
		usessl = CURLUSESSL_TRY;
	else if (s->o.starttls && !strcmp(s->o.starttls, "no"))
		usessl = CURLUSESSL_NONE;
	connect_timeout = s->o.timeout > 0 && s->o.timeout < 30 ?
		s->o.timeout : 30;

	curl_easy_setopt(s->c, CURLOPT_URL, s->url);
	curl_easy_setopt(s->c, CURLOPT_MAIL_FROM, mail_from);
	curl_easy_setopt(s->c, CURLOPT_MAIL_RCPT, list);
	curl_easy_setopt(s->c, CURLOPT_MAIL_RCPT_ALLLOWFAILS, 1L);
	curl_easy_setopt(s->c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(s->c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(s->c, CURLOPT_READDATA, &up);
	curl_easy_setopt(s->c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(s->c, CURLOPT_USE_SSL, usessl);
	if (s->o.user) {
		curl_easy_setopt(s->c, CURLOPT_USERNAME, s->o.user);
		curl_easy_setopt(s->c, CURLOPT_PASSWORD,
				 s->o.password ? s->o.password : "");
	}
	if (s->o.cainfo)
		curl_easy_setopt(s->c, CURLOPT_CAINFO, s->o.cainfo);
	curl_easy_setopt(s->c, CURLOPT_CONNECTTIMEOUT, connect_timeout);
	curl_easy_setopt(s->c, CURLOPT_TIMEOUT,
			 (long)(s->o.timeout > 0 ? s->o.timeout : 60));
	curl_easy_setopt(s->c, CURLOPT_SERVER_RESPONSE_TIMEOUT,
			 (long)(s->o.timeout > 0 ? s->o.timeout : 60));
	curl_easy_setopt(s->c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->c, CURLOPT_ERRORBUFFER, s->errbuf);
	curl_easy_setopt(s->c, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(s->c, CURLOPT_DEBUGFUNCTION, debug_cb);
	curl_easy_setopt(s->c, CURLOPT_DEBUGDATA, &trace);
	s->errbuf[0] = '\0';

	rc = curl_easy_perform(s->c);
	curl_easy_getinfo(s->c, CURLINFO_RESPONSE_CODE, &code);
	res->code = (int)code;

	if (rc == CURLE_OK) {
		st = PW_OK;
		if (trace.refused->len)
			snprintf(res->error, sizeof(res->error),
				 "delivered to %d recipient(s); %s",
				 trace.accepted, trace.refused->str);
		goto out;
	}
	if (code >= 400 && trace.last && (trace.accepted || !trace.refused->len))
		/* The server's own words, as it said them. */
		snprintf(res->error, sizeof(res->error), "the server answered:"
			 " %s%s%s", trace.last, trace.refused->len ? "; " : "",
			 trace.refused->str);
	else
		snprintf(res->error, sizeof(res->error), "%s%s%s",
			 s->errbuf[0] ? s->errbuf : curl_easy_strerror(rc),
			 trace.refused->len ? "; " : "", trace.refused->str);
	/* A sender the server refuses is refused for every reply alike,
	 * except for 552, a message too large for its SIZE. */
	if (trace.mail_refused && strncmp(trace.mail_refused, "552", 3)) {
		snprintf(res->error, sizeof(res->error),
			 "the server refuses the sender <%s>: %s", from,
			 trace.mail_refused);
		st = PW_ERR_USAGE;
	} else if (config_error(rc, code))
		st = PW_ERR_USAGE;
	else if (code >= 400 && code < 500)
		st = PW_ERR_TRANSIENT;
	else if (code >= 500 && code < 600)
		st = PW_ERR_PERMANENT;
	else
		/* Network trouble, timeouts, and anything unforeseen: keeping
		 * the reply and trying later is the safe side. */
		st = PW_ERR_TRANSIENT;
	pw_debug("smtp %s: curl %d, reply %ld: %s", s->shown, (int)rc, code,
		 res->error);
	/* A failed transaction may leave the connection in any state. */
	if (st != PW_OK) {
		curl_easy_cleanup(s->c);
		s->c = curl_easy_init();
	}
out:
	/* The handle keeps pointers to these; clear them before freeing. */
	if (s->c) {
		curl_easy_setopt(s->c, CURLOPT_MAIL_RCPT, NULL);
		curl_easy_setopt(s->c, CURLOPT_DEBUGDATA, NULL);
		curl_easy_setopt(s->c, CURLOPT_VERBOSE, 0L);
	}
	curl_slist_free_all(list);
	g_free(mail_from);
	g_free(trace.current);
	g_free(trace.mail_refused);
	g_free(trace.last);
	g_string_free(trace.reply, TRUE);
	g_string_free(trace.refused, TRUE);
	return st;
}
