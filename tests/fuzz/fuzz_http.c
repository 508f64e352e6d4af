/*
 * Fuzz harness for the dashboard's requests (bot/web.c, bot/web_page.c,
 * bot/web_post.c): what our code does with a request once
 * libmicrohttpd has read it, driven through pw_web_answer() without a
 * socket, against a small store made once (LLVMFuzzerInitialize()) so
 * that the SQL and the HTML see the fuzzed parameters.
 *
 * An input is a request much as it goes over the wire:
 *
 *     METHOD TARGET            (TARGET: PATH or PATH?QUERY)
 *     Name: value              (headers; Authorization is the one read)
 *                              (an empty line)
 *     BODY                     (the rest)
 *
 * PATH is unescaped and QUERY split into parameters as libmicrohttpd
 * does ("+" and %XX).  The server's token is "fuzz-token-0123456789",
 * its [web] max_body 64 KiB; a POST to /api/submit with the token
 * stores its body, so the store grows as the fuzzer finds mail.
 *
 * Promises checked: every answer has a status the dashboard gives and a
 * content type; a store read never fails (500) on any parameter; an
 * answer is valid UTF-8; a JSON answer parses; an HTML answer carries no
 * script, whatever the request or the stored mail held.
 *
 * Built and run by "make fuzz" (libFuzzer) and replayed standalone by
 * tests/integration/fuzz_replay.sh; see tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "bot/config.h"
#include "bot/log.h"
#include "bot/web.h"
#include "bot/web_page.h"
#include "db/db.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TOKEN "fuzz-token-0123456789"

/* The store and the server every input goes to. */
static struct {
	char *dir;
	struct pw_config *cfg;
	struct pw_web *w;
} fx;

/* The mail the store starts with: a patch with a finding, a reply to
 * it, and a series of two with a cover letter, on list "linux-fuzz". */
static const char store_mail[] =
	"From fuzz Mon Sep 17 00:00:00 2001\n"
	"From: Ann Author <ann@example.org>\n"
	"To: linux-fuzz@vger.example.org\n"
	"Subject: [PATCH] misc: foo: add a <b>sysfs</b> attribute\n"
	"Date: Mon, 02 Nov 2026 10:00:00 +0000\n"
	"Message-Id: <p1@example.org>\n"
	"\n"
	"Adds the attribute & its store.\n"
	"\n"
	"Signed-off-by: Ann Author <ann@example.org>\n"
	"---\n"
	"diff --git a/drivers/misc/foo.c b/drivers/misc/foo.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/drivers/misc/foo.c\n"
	"+++ b/drivers/misc/foo.c\n"
	"@@ -9,3 +9,4 @@\n"
	" {\n"
	" \treturn 0;\n"
	" }\n"
	"+static DEVICE_ATTR(foo, 0666, foo_show, foo_store);\n"
	"\n"
	"From fuzz Mon Sep 17 00:00:00 2001\n"
	"From: Rob Reviewer <rob@example.org>\n"
	"To: linux-fuzz@vger.example.org\n"
	"Subject: Re: [PATCH] misc: foo: add a <b>sysfs</b> attribute\n"
	"Date: Mon, 02 Nov 2026 11:00:00 +0000\n"
	"Message-Id: <r1@example.org>\n"
	"In-Reply-To: <p1@example.org>\n"
	"References: <p1@example.org>\n"
	"\n"
	"<script>alert(1)</script> 0666 is world-writable.\n"
	"\n"
	"From fuzz Mon Sep 17 00:00:00 2001\n"
	"From: Cy Contributor <cy@example.org>\n"
	"To: linux-fuzz@vger.example.org\n"
	"Subject: [PATCH v2 0/2] bar: modes\n"
	"Date: Tue, 03 Nov 2026 09:00:00 +0000\n"
	"Message-Id: <c0@example.org>\n"
	"\n"
	"Two modes.\n"
	"\n"
	"From fuzz Mon Sep 17 00:00:00 2001\n"
	"From: Cy Contributor <cy@example.org>\n"
	"To: linux-fuzz@vger.example.org\n"
	"Subject: [PATCH v2 1/2] bar: chmod the script\n"
	"Date: Tue, 03 Nov 2026 09:00:01 +0000\n"
	"Message-Id: <c1@example.org>\n"
	"In-Reply-To: <c0@example.org>\n"
	"\n"
	"Signed-off-by: Cy Contributor <cy@example.org>\n"
	"---\n"
	"diff --git a/scripts/bar.sh b/scripts/bar.sh\n"
	"index 1111111..2222222 100644\n"
	"--- a/scripts/bar.sh\n"
	"+++ b/scripts/bar.sh\n"
	"@@ -1,2 +1,3 @@\n"
	" #!/bin/sh\n"
	" set -e\n"
	"+chmod 777 /tmp/bar\n"
	"\n"
	"From fuzz Mon Sep 17 00:00:00 2001\n"
	"From: Cy Contributor <cy@example.org>\n"
	"To: linux-fuzz@vger.example.org\n"
	"Subject: [PATCH v2 2/2] bar: new mode\n"
	"Date: Tue, 03 Nov 2026 09:00:02 +0000\n"
	"Message-Id: <c2@example.org>\n"
	"In-Reply-To: <c0@example.org>\n"
	"\n"
	"Signed-off-by: Cy Contributor <cy@example.org>\n"
	"---\n"
	"diff --git a/bar/mode b/bar/mode\n"
	"old mode 100644\n"
	"new mode 100755\n";

/* One request, split as the header comment says (all owned). */
struct fuzz_req {
	char *method, *path, *authorization;
	GHashTable *args;
	const char *body;
	size_t len;
};

/* The next line of [*p, end) (without its "\n" or "\r\n"); NULL at end. */
static char *next_line(const char **p, const char *end)
{
	const char *s = *p, *nl;
	size_t n;

	if (s >= end)
		return NULL;
	nl = memchr(s, '\n', (size_t)(end - s));
	n = nl ? (size_t)(nl - s) : (size_t)(end - s);
	*p = nl ? nl + 1 : end;
	if (n && s[n - 1] == '\r')
		n--;
	return g_strndup(s, n);	/* cut at a NUL, as no header holds one */
}

/* s with "+" as a space and %XX decoded, as libmicrohttpd gives a
 * query parameter; an escape it cannot decode is kept as it is. */
static char *unescape(const char *s, bool plus)
{
	char *t = g_strdup(s), *u;

	if (plus)
		g_strdelimit(t, "+", ' ');
	u = g_uri_unescape_string(t, NULL);
	if (!u)
		return t;
	g_free(t);
	return u;
}

static void split_query(GHashTable *args, const char *query)
{
	char **pairs = g_strsplit(query, "&", -1), **p;

	for (p = pairs; *p; p++) {
		char *eq = strchr(*p, '='), *name, *value = NULL;

		if (!**p)
			continue;
		if (eq)
			*eq = '\0';
		name = unescape(*p, true);
		if (eq)
			value = unescape(eq + 1, true);
		pw_web_args_add(args, name, value);
		g_free(name);
		g_free(value);
	}
	g_strfreev(pairs);
}

static bool split(const uint8_t *data, size_t size, struct fuzz_req *r)
{
	const char *p = (const char *)data, *end = p + size;
	char *line = next_line(&p, end), *sp, *q;

	if (!line)
		return false;
	sp = strchr(line, ' ');
	if (!sp) {
		g_free(line);
		return false;
	}
	*sp = '\0';
	r->method = g_strdup(line);
	q = strchr(sp + 1, '?');
	if (q)
		*q = '\0';
	r->path = unescape(sp + 1, false);
	r->args = pw_web_args_new();
	if (q)
		split_query(r->args, q + 1);
	g_free(line);
	while ((line = next_line(&p, end)) && *line) {
		if (!g_ascii_strncasecmp(line, "Authorization:", 14)) {
			g_free(r->authorization);
			r->authorization = g_strdup(g_strchug(line + 14));
		}
		g_free(line);
	}
	g_free(line);
	r->body = p;
	r->len = (size_t)(end - p);
	return true;
}

static void release(struct fuzz_req *r)
{
	g_free(r->method);
	g_free(r->path);
	g_free(r->authorization);
	if (r->args)
		g_hash_table_destroy(r->args);
}

/* Traps unless a keeps the promises of the header comment. */
static void check_answer(const struct pw_web_answer *a)
{
	static const unsigned statuses[] = { 200, 400, 401, 403, 404, 405, 413 };
	bool known = false;
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(statuses); i++)
		known |= a->status == statuses[i];
	if (!known || !a->type)
		__builtin_trap();
	if (!g_utf8_validate(a->body->str, (gssize)a->body->len, NULL))
		__builtin_trap();
	if (g_str_has_prefix(a->type, "application/json")) {
		JsonParser *jp = json_parser_new();

		if (!json_parser_load_from_data(jp, a->body->str,
						(gssize)a->body->len, NULL))
			__builtin_trap();
		g_object_unref(jp);
	}
	if (g_str_has_prefix(a->type, "text/html")) {
		char *low = g_ascii_strdown(a->body->str, (gssize)a->body->len);

		if (strstr(low, "<script"))
			__builtin_trap();
		g_free(low);
	}
}

/* Answers one request of size bytes and checks the answer. */
static void one(const uint8_t *data, size_t size)
{
	struct fuzz_req r = { 0 };
	struct pw_web_answer a = { .body = g_string_new(NULL) };

	if (split(data, size, &r)) {
		struct pw_web_request req = {
			.method = r.method,
			.path = r.path,
			.args = r.args,
			.authorization = r.authorization,
			.body = r.body,
			.len = r.len,
			.too_big = r.len > (size_t)fx.cfg->web_max_body,
		};

		pw_web_answer(fx.w, &req, &a);
		check_answer(&a);
	}
	release(&r);
	g_string_free(a.body, TRUE);
}

/* Stops the server and removes the store, its companions and the
 * configuration. */
static void teardown(void)
{
	GDir *d;
	const char *n;

	pw_web_stop(fx.w);
	pw_config_free(fx.cfg);
	if (!fx.dir)
		return;
	d = g_dir_open(fx.dir, 0, NULL);
	while (d && (n = g_dir_read_name(d))) {
		char *f = g_build_filename(fx.dir, n, NULL);

		g_unlink(f);
		g_free(f);
	}
	if (d)
		g_dir_close(d);
	g_rmdir(fx.dir);
	g_free(fx.dir);
}

/* The store and the server, made once; exits on failure. */
static void setup(void)
{
	static const char conf[] =
		"[web]\ntoken = " TOKEN "\nmax_body = 64\n"
		"[list linux-fuzz]\naddress = linux-fuzz@vger.example.org\n";
	static const char submit[] =
		"POST /api/submit?list=linux-fuzz\n"
		"Authorization: Bearer " TOKEN "\n\n";
	struct pw_db *db = NULL;
	GString *first;
	char *path, *db_path, *err = NULL;

	if (fx.w)
		return;
	pw_log_set_level(PW_LOG_ERROR);
	fx.dir = g_dir_make_tmp("pw-fuzz-http-XXXXXX", NULL);
	if (!fx.dir)
		abort();
	atexit(teardown);
	path = g_build_filename(fx.dir, "pw.conf", NULL);
	db_path = g_build_filename(fx.dir, "pw.db", NULL);
	if (!g_file_set_contents(path, conf, -1, NULL) || g_chmod(path, 0600) ||
	    pw_config_load(path, db_path, &fx.cfg, &err) ||
	    pw_db_open(db_path, false, &db, &err))
		goto fail;
	pw_db_close(db);
	if (pw_web_open(db_path, fx.cfg, 2, &fx.w, &err))
		goto fail;
	first = g_string_new(submit);
	g_string_append(first, store_mail);
	one((const uint8_t *)first->str, first->len);
	g_string_free(first, TRUE);
	g_free(path);
	g_free(db_path);
	return;
fail:
	fprintf(stderr, "fuzz_http: cannot make the store: %s\n",
		err ? err : "no reason");
	exit(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setup();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();	/* the standalone replay calls no initializer */
	one(data, size);
	return 0;
}
