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

#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/mail.h"
#include "bot/printer.h"
#include "bot/source.h"

/* A parsed message waiting to learn whether it is a naked cover. */
struct held {
	struct pw_mail *m;
	char *where;
	int index;
	long long offset;
};

/* The text view: mail-header-like lines, then the commit message and
 * the diff whole; a blank line between messages. */
static const char text_layout[] =
	"=== %(where)\n"
	"Message-ID: %(msgid)"
	"%(if:msgid_derived) (derived: no Message-ID header)%(end)\n"
	"Author: %(from_name) <%(from_addr)>\n"
	"%(if:sender_addr)Sender: %(sender_name) <%(sender_addr)>\n%(end)"
	"Date: %(date_utc) (%(date))\n"
	"Subject: %(subject)\n"
	"Subject-Clean: %(subject_clean)\n"
	"Markers: version=%(version) number=%(number) total=%(total)"
	" counter=%(if:has_counter)yes%(else)no%(end)"
	" rfc=%(if:rfc)yes%(else)no%(end)"
	" resend=%(if:resend)yes%(else)no%(end)"
	" reply=%(if:is_reply)yes%(else)no%(end)"
	" patch=%(if:patch_tag)yes%(else)no%(end) prefixes=%(prefixes)\n"
	"Kind: %(kind)\n"
	"%(if:in_reply_to)In-Reply-To: %(in_reply_to)\n%(end)"
	"%(each:references)References: %(.)\n%(end)"
	"%(if:list_id)List-Id: %(list_id)\n%(end)"
	"%(if:auto_submitted)Auto-Submitted: %(auto_submitted)\n%(end)"
	"%(if:automated)Automated: %(automated)\n%(end)"
	"Recipients: %(nrecipients)\n"
	"%(if:pull_url)Pull-URL: %(pull_url)\n%(end)"
	"%(each:warnings)Warning: %(.)\n%(end)"
	"Commit-Message:\n%(commit_msg:block)"
	"%(if:diff)Diff:\n%(diff:block)%(end)";

static void emit(struct pw_printer *p, struct held *h)
{
	const struct pw_mail *m = h->m;
	char *date;

	if (!m)
		return;
	date = m->date ? pw_iso_time(m->date) : g_strdup("");
	pw_print_begin_record(p);
	pw_print_str_at(p, "where", h->where);
	pw_print_int_at(p, "index", h->index);
	pw_print_int_at(p, "offset", h->offset);
	pw_print_str_at(p, "msgid", m->msgid);
	pw_print_bool_at(p, "msgid_derived", m->msgid_derived);
	pw_print_str_at(p, "from_name", m->from_name);
	pw_print_str_at(p, "from_addr", m->from_addr);
	pw_print_str_at(p, "sender_name", m->sender_name);
	pw_print_str_at(p, "sender_addr", m->sender_addr);
	pw_print_int_at(p, "date", m->date);
	pw_print_str_at(p, "date_utc", date);
	pw_print_str_at(p, "subject", m->subject);
	pw_print_str_at(p, "subject_clean", m->subject_clean);
	pw_print_int_at(p, "version", m->tags.version);
	pw_print_int_at(p, "number", m->tags.number);
	pw_print_int_at(p, "total", m->tags.total);
	pw_print_bool_at(p, "has_counter", m->tags.has_counter);
	pw_print_bool_at(p, "rfc", m->tags.rfc);
	pw_print_bool_at(p, "resend", m->tags.resend);
	pw_print_bool_at(p, "is_reply", m->tags.is_reply);
	pw_print_bool_at(p, "patch_tag", m->tags.patch_tag);
	pw_print_str_at(p, "prefixes", m->tags.prefixes);
	pw_print_str_at(p, "kind", pw_mail_kind_str(m->kind));
	pw_print_str_at(p, "in_reply_to", m->in_reply_to);
	pw_print_strv_at(p, "references", m->references);
	pw_print_str_at(p, "list_id", m->list_id);
	pw_print_str_at(p, "auto_submitted", m->auto_submitted);
	pw_print_str_at(p, "automated", m->automated);
	pw_print_strv_at(p, "recipients", m->recipients);
	pw_print_int_at(p, "nrecipients", m->nrecipients);
	pw_print_str_at(p, "pull_url", m->pull_url);
	pw_print_str_at(p, "commit_msg", m->commit_msg);
	pw_print_str_at(p, "diff", m->diff);
	pw_print_strv_at(p, "warnings", m->warnings);
	pw_print_end(p);
	g_free(date);
	pw_mail_free(h->m);
	h->m = NULL;
	g_free(h->where);
	h->where = NULL;
}

/* Parses every message of one file; returns the exit status so far. */
static int parse_file(struct pw_printer *p, const char *path)
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
		emit(p, &held);
		/* A thread root that is neither patch nor reply may be a
		 * cover letter: hold it until the next message says. */
		if (m->kind == PW_MAIL_OTHER)
			held = cur;
		else
			emit(p, &cur);
	}
	emit(p, &held);
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
	struct pw_printer *p = NULL;
	enum pw_format fmt;
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
	if (!pw_format_parse(format, false, &fmt)) {
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
	pw_mail_init();
	/* JSON streamed: one message's object at a time, never the whole. */
	p = pw_printer_new(fmt, stdout, text_layout, PW_PRINTER_STREAM);
	pw_printer_set_separator(p, "\n");
	pw_print_begin_list(p);
	for (i = 1; i < argc; i++) {
		r = parse_file(p, argv[i]);
		if (r > rc)
			rc = r;
	}
	pw_print_end(p);
	if (fflush(stdout) != 0) {
		pw_error("writing the output: %s", g_strerror(errno));
		rc = 2;
	}
out:
	pw_printer_free(p);
	g_free(format);
	g_option_context_free(ctx);
	return rc;
}
