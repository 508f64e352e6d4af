/*
 * patchwarden parse: shows what ingest reads from each message, and
 * stores nothing.  The debugging view, and what the tests compare with
 * git mailinfo.
 *
 * Exit status: 0 when every message was parsed, 1 when some could not
 * be, 2 on a usage error or a file that could not be read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "bot/cmd.h"
#include "bot/json.h"
#include "bot/log.h"
#include "bot/mail.h"
#include "bot/source.h"

struct out {
	bool json;
	int count;		/* messages written */
};

/* A parsed message waiting to learn whether it is a naked cover. */
struct held {
	struct pw_mail *m;
	char *where;
	int index;
	long long offset;
};

static void emit_json(struct out *o, const struct held *h)
{
	const struct pw_mail *m = h->m;
	JsonBuilder *b = json_builder_new();
	char *s, *date = m->date ? pw_iso_time(m->date) : g_strdup("");

	json_builder_begin_object(b);
	pw_json_str(b, "where", h->where);
	pw_json_int(b, "index", h->index);
	pw_json_int(b, "offset", h->offset);
	pw_json_str(b, "msgid", m->msgid);
	pw_json_bool(b, "msgid_derived", m->msgid_derived);
	pw_json_str(b, "from_name", m->from_name);
	pw_json_str(b, "from_addr", m->from_addr);
	pw_json_int(b, "date", m->date);
	pw_json_str(b, "date_utc", date);
	pw_json_str(b, "subject", m->subject);
	pw_json_str(b, "subject_clean", m->subject_clean);
	pw_json_int(b, "version", m->tags.version);
	pw_json_int(b, "number", m->tags.number);
	pw_json_int(b, "total", m->tags.total);
	pw_json_bool(b, "has_counter", m->tags.has_counter);
	pw_json_bool(b, "rfc", m->tags.rfc);
	pw_json_bool(b, "resend", m->tags.resend);
	pw_json_bool(b, "is_reply", m->tags.is_reply);
	pw_json_bool(b, "patch_tag", m->tags.patch_tag);
	pw_json_str(b, "prefixes", m->tags.prefixes);
	pw_json_str(b, "kind", pw_mail_kind_str(m->kind));
	pw_json_str(b, "in_reply_to", m->in_reply_to);
	pw_json_strv(b, "references", m->references);
	pw_json_str(b, "list_id", m->list_id);
	pw_json_str(b, "auto_submitted", m->auto_submitted);
	pw_json_strv(b, "recipients", m->recipients);
	pw_json_int(b, "nrecipients", m->nrecipients);
	pw_json_str(b, "pull_url", m->pull_url);
	pw_json_str(b, "commit_msg", m->commit_msg);
	pw_json_str(b, "diff", m->diff);
	pw_json_strv(b, "warnings", m->warnings);
	json_builder_end_object(b);

	s = pw_json_text(b);
	fputs(o->count ? ",\n" : "", stdout);
	fputs(s, stdout);
	g_free(s);
	g_free(date);
	g_object_unref(b);
}

static void block(const char *name, const char *text)
{
	printf("%s:\n", name);
	if (text && *text) {
		fputs(text, stdout);
		if (text[strlen(text) - 1] != '\n')
			putchar('\n');
	}
}

static void emit_text(struct out *o, const struct held *h)
{
	const struct pw_mail *m = h->m;
	char *date = m->date ? pw_iso_time(m->date) : g_strdup("");
	char **p;

	printf("%s=== %s\n", o->count ? "\n" : "", h->where);
	printf("Message-ID: %s%s\n", m->msgid,
	       m->msgid_derived ? " (derived: no Message-ID header)" : "");
	printf("Author: %s <%s>\n", m->from_name, m->from_addr);
	printf("Date: %s (%lld)\n", date, (long long)m->date);
	printf("Subject: %s\n", m->subject);
	printf("Subject-Clean: %s\n", m->subject_clean);
	printf("Markers: version=%d number=%d total=%d counter=%s rfc=%s resend=%s reply=%s patch=%s prefixes=%s\n",
	       m->tags.version, m->tags.number, m->tags.total,
	       m->tags.has_counter ? "yes" : "no", m->tags.rfc ? "yes" : "no",
	       m->tags.resend ? "yes" : "no", m->tags.is_reply ? "yes" : "no",
	       m->tags.patch_tag ? "yes" : "no", m->tags.prefixes);
	printf("Kind: %s\n", pw_mail_kind_str(m->kind));
	if (m->in_reply_to)
		printf("In-Reply-To: %s\n", m->in_reply_to);
	for (p = m->references; p && *p; p++)
		printf("References: %s\n", *p);
	if (m->list_id)
		printf("List-Id: %s\n", m->list_id);
	if (m->auto_submitted)
		printf("Auto-Submitted: %s\n", m->auto_submitted);
	printf("Recipients: %d\n", m->nrecipients);
	if (m->pull_url)
		printf("Pull-URL: %s\n", m->pull_url);
	for (p = m->warnings; p && *p; p++)
		printf("Warning: %s\n", *p);
	block("Commit-Message", m->commit_msg);
	if (m->diff)
		block("Diff", m->diff);
	g_free(date);
}

static void emit(struct out *o, struct held *h)
{
	if (!h->m)
		return;
	if (o->json)
		emit_json(o, h);
	else
		emit_text(o, h);
	o->count++;
	pw_mail_free(h->m);
	h->m = NULL;
	g_free(h->where);
	h->where = NULL;
}

/* Parses every message of one file; returns the exit status so far. */
static int parse_file(struct out *o, const char *path)
{
	struct pw_source *src = NULL;
	struct held held = { 0 }, cur;
	struct pw_raw raw;
	enum pw_status st;
	char *err = NULL;
	int rc = 0;

	st = pw_source_open(path, &src, &err);
	if (st != PW_OK) {
		pw_error("%s", err ? err : path);
		rc = 2;
		goto out;
	}
	for (;;) {
		struct pw_mail *m = NULL;

		g_free(err);
		err = NULL;
		st = pw_source_next(src, &raw, &err);
		if (st == PW_ERR_INPUT) {
			pw_error("%s", err ? err : raw.where);
			rc = 1;
			continue;
		}
		if (st != PW_OK) {
			pw_error("%s", err ? err : path);
			rc = 2;
			break;
		}
		if (!raw.data)
			break;
		st = pw_mail_parse(raw.data, raw.len, &m, &err);
		if (st != PW_OK) {
			pw_error("%s: %s", raw.where, err ? err : pw_status_str(st));
			rc = rc ? rc : 1;
			continue;
		}
		cur.m = m;
		cur.where = g_utf8_make_valid(raw.where, -1);
		cur.index = raw.index;
		cur.offset = raw.offset;
		if (held.m && pw_mail_is_naked_cover(held.m, m))
			held.m->kind = PW_MAIL_COVER;
		emit(o, &held);
		/* A thread root that is neither patch nor reply may be a
		 * cover letter: hold it until the next message says. */
		if (m->kind == PW_MAIL_OTHER)
			held = cur;
		else
			emit(o, &cur);
	}
	emit(o, &held);
out:
	g_free(err);
	pw_source_free(src);
	return rc;
}

int pw_cmd_parse(int argc, char **argv)
{
	char *format = NULL;
	GOptionEntry entries[] = {
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &format,
		  "output format: text (default) or json", "FORMAT" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx;
	GError *gerr = NULL;
	struct out o = { 0 };
	int rc = 0, r, i;

	ctx = g_option_context_new("FILE... - show what is read from each message");
	g_option_context_set_summary(ctx,
		"Prints, for every message in the files (mbox, Maildir, single\n"
		"message, or - for stdin), what ingest extracts; stores nothing.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &gerr)) {
		fprintf(stderr, "patchwarden parse: %s\n", gerr->message);
		g_error_free(gerr);
		rc = 2;
		goto out;
	}
	if (format && strcmp(format, "text") && strcmp(format, "json")) {
		fprintf(stderr, "patchwarden parse: unknown format '%s' (text or json)\n",
			format);
		rc = 2;
		goto out;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: patchwarden parse [--format text|json] FILE...\n");
		rc = 2;
		goto out;
	}
	o.json = format && !strcmp(format, "json");
	pw_mail_init();
	if (o.json)
		fputs("[\n", stdout);
	for (i = 1; i < argc; i++) {
		r = parse_file(&o, argv[i]);
		if (r > rc)
			rc = r;
	}
	if (o.json)
		fputs(o.count ? "\n]\n" : "]\n", stdout);
	if (fflush(stdout) != 0) {
		pw_error("writing the output: %s", g_strerror(errno));
		rc = 2;
	}
out:
	g_free(format);
	g_option_context_free(ctx);
	return rc;
}
