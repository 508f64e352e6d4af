/*
 * patchwarden: composing replies with GMime (c-apis.md sections 1.5-1.7).
 *
 * The reply is built as a GMime message and written out with CRLF line
 * ends (SMTP wants them; libcurl dot-stuffs only after CRLF), with a
 * UTF-8 quoted-printable text part built by hand so that GMime does not
 * pick iso-8859-1 for a body with one "u umlaut".  Threading follows RFC
 * 5322 section 3.6.4: References is the parent's References followed by
 * the parent's Message-ID.
 */
#include <string.h>
#include <gmime/gmime.h>

#include "bot/reply.h"
#include "bot/mail.h"
#include "bot/log.h"

#define MAX_SUBJECT 250		/* characters kept of a subject */
#define MAX_NAME 64		/* characters kept of a display name */
#define MAX_QUOTE 200		/* characters quoted of a source line */
#define MAX_REFS 20		/* References kept before the parent's ID */
#define WIDTH 72		/* body text is wrapped here */

void pw_reply_free(struct pw_reply *r)
{
	if (!r)
		return;
	g_free(r->msgid);
	g_free(r->subject);
	g_free(r->to);
	g_strfreev(r->rcpt);
	if (r->wire)
		g_bytes_unref(r->wire);
	g_free(r);
}

/* Who writes, to whom, and what the reply answers.  All borrowed. */
struct head {
	const struct pw_reply_self *me;
	const char *to_name;		/* the author's name as read from mail */
	const char *to_addr;		/* the author's address */
	const char *const *cc;		/* addresses, NULL-terminated, or NULL */
	const char *parent_msgid;	/* the answered Message-ID (no <>), or
					 * NULL when it cannot be threaded */
	const char *const *parent_refs;	/* its References, oldest first, or NULL */
	const char *parent_subject;	/* its decoded subject */
	const char *list;		/* the list it came through, or NULL */
};

/* ---- cleaning what comes from mail ---- */

char *pw_reply_clean(const char *s, size_t max)
{
	GString *out = g_string_new(NULL);
	char *valid = g_utf8_make_valid(s ? s : "", -1);
	const char *p;
	size_t nchars = 0;
	bool space = false, cut = false;

	for (p = valid; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		/* Line and paragraph separators count as control here. */
		if (g_unichar_iscntrl(c) || g_unichar_isspace(c) ||
		    c == 0x2028 || c == 0x2029 || c == 0xfeff) {
			space = out->len > 0;
			continue;
		}
		if (nchars + (space ? 1 : 0) + 1 > max) {
			cut = true;
			break;
		}
		if (space) {
			g_string_append_c(out, ' ');
			nchars++;
			space = false;
		}
		g_string_append_unichar(out, c);
		nchars++;
	}
	if (cut) {
		/* Drop characters until "..." fits in max. */
		while (nchars + 3 > max && out->len > 0) {
			const char *prev = g_utf8_find_prev_char(out->str,
							out->str + out->len);

			g_string_truncate(out, prev ? (gsize)(prev - out->str) : 0);
			nchars--;
		}
		g_string_append(out, "...");
	}
	g_free(valid);
	return g_string_free(out, FALSE);
}

/* Like pw_reply_clean for a source line: tabs stay, nothing folds. */
static char *clean_code(const char *s, size_t max)
{
	GString *out = g_string_new(NULL);
	char *valid = g_utf8_make_valid(s ? s : "", -1);
	const char *p;
	size_t nchars = 0;

	for (p = valid; *p && nchars < max; p = g_utf8_next_char(p), nchars++) {
		gunichar c = g_utf8_get_char(p);

		if (c == '\t')
			g_string_append_c(out, '\t');
		else if (g_unichar_iscntrl(c) || c == 0x2028 || c == 0x2029)
			g_string_append_c(out, ' ');
		else
			g_string_append_unichar(out, c);
	}
	if (*p)
		g_string_append(out, " ...");
	while (out->len && (out->str[out->len - 1] == ' ' ||
			    out->str[out->len - 1] == '\t'))
		g_string_truncate(out, out->len - 1);
	g_free(valid);
	return g_string_free(out, FALSE);
}

bool pw_reply_addr_ok(const char *addr)
{
	const char *at;
	size_t i, len;

	if (!addr)
		return false;
	len = strlen(addr);
	at = strchr(addr, '@');
	if (len < 3 || len > 254 || !at || at == addr || !at[1] ||
	    strchr(at + 1, '@'))
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)addr[i];

		if (c <= 0x20 || c >= 0x7f || strchr("<>()[]\\,;:\"", c))
			return false;
	}
	return true;
}

bool pw_reply_msgid_ok(const char *id)
{
	size_t i, len;

	if (!id)
		return false;
	len = strlen(id);
	if (len == 0 || len > 250)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)id[i];

		if (c <= 0x20 || c >= 0x7f || strchr("<>()\\\",;", c))
			return false;
	}
	return true;
}

/* The domain of an address if it is a plain host name, else NULL. */
static const char *domain_of(const char *addr)
{
	const char *d = addr ? strrchr(addr, '@') : NULL;
	size_t i;

	if (!d || !d[1])
		return NULL;
	for (i = 1; d[i]; i++)
		if (!g_ascii_isalnum(d[i]) && d[i] != '.' && d[i] != '-')
			return NULL;
	return d + 1;
}

char *pw_reply_msgid(const char *kind, const char *key, const char *from_addr)
{
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	const char *domain = domain_of(from_addr);
	char *id;

	g_checksum_update(sum, (const guchar *)kind, (gssize)strlen(kind));
	g_checksum_update(sum, (const guchar *)"", 1);
	g_checksum_update(sum, (const guchar *)key, (gssize)strlen(key));
	id = g_strdup_printf("patchwarden.%s.%.32s@%s", kind,
			     g_checksum_get_string(sum),
			     domain ? domain : "patchwarden.invalid");
	g_checksum_free(sum);
	return id;
}

char *pw_reply_subject(const char *subject)
{
	char *clean = pw_reply_clean(subject, MAX_SUBJECT);
	char *s;

	if (!*clean)
		s = g_strdup("Re: your patch");
	else if (!g_ascii_strncasecmp(clean, "re:", 3))
		s = g_strdup_printf("Re:%s", clean + 3);
	else
		s = g_strdup_printf("Re: %s", clean);
	g_free(clean);
	return s;
}

void pw_reply_mode_lsl(unsigned mode, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";
	int i;

	out[0] = '-';
	for (i = 0; i < 9; i++)
		out[i + 1] = mode & (0400u >> i) ? rwx[i] : '-';
	if (mode & 04000)
		out[3] = mode & 0100 ? 's' : 'S';
	if (mode & 02000)
		out[6] = mode & 0010 ? 's' : 'S';
	if (mode & 01000)
		out[9] = mode & 0001 ? 't' : 'T';
	out[10] = '\0';
}

/* ---- the body ---- */

/* Appends text wrapped at WIDTH, the first line starting with first and
 * the others with indent. */
static void wrap2(GString *b, const char *first, const char *indent,
		  const char *text)
{
	char **words = g_strsplit(text, " ", -1);
	size_t col = 0, i, ilen = strlen(indent);
	bool started = false;

	for (i = 0; words[i]; i++) {
		size_t w = g_utf8_strlen(words[i], -1);

		if (!*words[i])
			continue;
		if (!started) {
			g_string_append(b, first);
			col = strlen(first);
			started = true;
		} else if (col + 1 + w > WIDTH) {
			g_string_append_c(b, '\n');
			g_string_append(b, indent);
			col = ilen;
		} else {
			g_string_append_c(b, ' ');
			col++;
		}
		g_string_append(b, words[i]);
		col += w;
	}
	if (started)
		g_string_append_c(b, '\n');
	g_strfreev(words);
}

static void wrap(GString *b, const char *indent, const char *text)
{
	wrap2(b, indent, indent, text);
}

static void wrapf(GString *b, const char *indent, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

static void wrapf(GString *b, const char *indent, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	wrap(b, indent, s);
	g_free(s);
}

static void append_item(GString *b, size_t no, const struct pw_reply_item *it)
{
	const struct pw_finding *f = it->f;
	char *file = pw_reply_clean(f->file && *f->file ? f->file : "(patch)", 200);
	char *msg = pw_reply_clean(f->message, 600);
	char *line = f->added_line ? clean_code(f->added_line, MAX_QUOTE) : NULL;
	char *fix = f->fix ? clean_code(f->fix, MAX_QUOTE) : NULL;

	if (f->line > 0)
		g_string_append_printf(b, "%zu. %s, line %d (%s, %s)\n", no, file,
				       f->line, pw_severity_str(f->severity),
				       f->rule);
	else
		g_string_append_printf(b, "%zu. %s (%s, %s)\n", no, file,
				       pw_severity_str(f->severity), f->rule);
	if (line)
		g_string_append_printf(b, "\n   > +%s\n\n", line);
	wrap(b, "   ", msg);
	if (fix && *fix)
		g_string_append_printf(b, "   A fix:\n\n   > +%s\n", fix);
	g_string_append_c(b, '\n');
	g_free(file);
	g_free(msg);
	g_free(line);
	g_free(fix);
}

static void append_greeting(GString *b, const char *name)
{
	char *n = pw_reply_clean(name, MAX_NAME);

	if (*n)
		g_string_append_printf(b, "Hello %s,\n\n", n);
	else
		g_string_append(b, "Hello,\n\n");
	g_free(n);
}

static void append_footer(GString *b, const struct head *h,
			  bool flood)
{
	char *list = h->list ? pw_reply_clean(h->list, 100) : NULL;

	g_string_append(b, "-- \n");
	wrapf(b, "", "patchwarden %s is a review bot: it reads the patches sent "
	      "to %s, checks the file permission modes their added lines "
	      "set, and replies at most once to a patch or a flood. It never "
	      "answers automated mail.", PW_VERSION,
	      list && *list ? list : "this list");
	g_string_append(b, "\n");
	if (flood)
		wrap(b, "", "To check your patches the same way before sending:");
	else
		wrap(b, "", "To run the same check on your patch before sending:");
	g_string_append(b, "\n    patchwarden check 0001-your-change.patch\n\n");
	if (h->me->reply_to)
		wrap(b, "", "If this report is wrong, please reply to this "
		     "message (replies reach the people who run the bot) and "
		     "say what patchwarden got wrong.");
	else
		wrapf(b, "", "If this report is wrong, please say so on %s, "
		      "so that the maintainers can correct the bot.",
		      list && *list ? list : "the list");
	if (h->me->dashboard_url) {
		char *url = pw_reply_clean(h->me->dashboard_url, 300);

		wrapf(b, "", "Every finding, and what the maintainers decided, is "
		      "on the dashboard: %s", url);
		g_free(url);
	}
	g_free(list);
}

/* ---- the message ---- */

static void add_mailbox(InternetAddressList *l, const char *name,
			const char *addr)
{
	char *n = pw_reply_clean(name, MAX_NAME);
	InternetAddress *a = internet_address_mailbox_new(*n ? n : NULL, addr);

	internet_address_list_add(l, a);
	g_object_unref(a);
	g_free(n);
}

/* Builds "<a> <b> ... <parent>" from the parent's references. */
static char *references(const struct head *h)
{
	GString *s = g_string_new(NULL);
	size_t n = 0, i;

	while (h->parent_refs && h->parent_refs[n])
		n++;
	for (i = n > MAX_REFS ? n - MAX_REFS : 0; i < n; i++) {
		if (!pw_reply_msgid_ok(h->parent_refs[i]) ||
		    !strcmp(h->parent_refs[i], h->parent_msgid))
			continue;
		g_string_append_printf(s, "<%s> ", h->parent_refs[i]);
	}
	g_string_append_printf(s, "<%s>", h->parent_msgid);
	return g_string_free(s, FALSE);
}

/*
 * Checks the wire form: every header line is a "Name: value" line or a
 * folded continuation, none longer than RFC 5322's 998, and every line
 * ends in CRLF with no bare CR or LF anywhere.
 */
static bool wire_ok(const char *p, size_t len)
{
	size_t i = 0, start;
	bool in_headers = true;

	while (i < len) {
		start = i;
		while (i < len && p[i] != '\r' && p[i] != '\n')
			i++;
		if (i + 1 >= len || p[i] != '\r' || p[i + 1] != '\n')
			return i >= len && !in_headers;
		if (i - start > 998)
			return false;
		if (in_headers) {
			if (i == start) {
				in_headers = false;
			} else if (p[start] != ' ' && p[start] != '\t') {
				const char *colon = memchr(p + start, ':', i - start);
				const char *q;

				if (!colon || colon == p + start)
					return false;
				for (q = p + start; q < colon; q++)
					if (*q <= 0x20 || *q >= 0x7f)
						return false;
			}
		}
		i += 2;
	}
	return !in_headers;
}

static enum pw_status build(const struct head *h, const char *body,
			    struct pw_reply **out, char **err)
{
	GMimeMessage *m = NULL;
	GMimePart *part = NULL;
	GMimeStream *mem = NULL, *out_stream = NULL;
	GMimeDataWrapper *dw = NULL;
	GMimeFormatOptions *fo = NULL;
	GDateTime *date = NULL;
	GByteArray *wire;
	GPtrArray *rcpt = NULL;
	struct pw_reply *r = NULL;
	enum pw_status st = PW_ERR_INPUT;
	char *subject = NULL, *refs = NULL;
	size_t i;

	*out = NULL;
	if (!pw_reply_addr_ok(h->me->addr)) {
		*err = g_strdup_printf("unusable sender address '%s'",
				       h->me->addr ? h->me->addr : "");
		goto out;
	}
	if (!pw_reply_addr_ok(h->to_addr)) {
		*err = g_strdup("unusable recipient address");
		goto out;
	}
	if (!pw_reply_msgid_ok(h->me->msgid)) {
		*err = g_strdup("unusable Message-ID for the reply");
		goto out;
	}
	pw_mail_init();

	m = g_mime_message_new(TRUE);
	add_mailbox(g_mime_message_get_from(m), h->me->name ? h->me->name :
		    "patchwarden", h->me->addr);
	if (h->me->reply_to) {
		InternetAddressList *l = internet_address_list_parse(NULL,
								      h->me->reply_to);
		int k, n = l ? internet_address_list_length(l) : 0;

		for (k = 0; k < n; k++) {
			InternetAddress *a = internet_address_list_get_address(l, k);

			if (INTERNET_ADDRESS_IS_MAILBOX(a) && pw_reply_addr_ok(
				    internet_address_mailbox_get_addr(
					    INTERNET_ADDRESS_MAILBOX(a))))
				add_mailbox(g_mime_message_get_reply_to(m),
					    internet_address_get_name(a),
					    internet_address_mailbox_get_addr(
						    INTERNET_ADDRESS_MAILBOX(a)));
		}
		if (l)
			g_object_unref(l);
	}
	rcpt = g_ptr_array_new_with_free_func(g_free);
	add_mailbox(g_mime_message_get_addresses(m, GMIME_ADDRESS_TYPE_TO),
		    h->to_name, h->to_addr);
	g_ptr_array_add(rcpt, g_ascii_strdown(h->to_addr, -1));
	for (i = 0; h->cc && h->cc[i]; i++) {
		char *low;
		guint k;
		bool dup = false;

		if (!pw_reply_addr_ok(h->cc[i]))
			continue;
		low = g_ascii_strdown(h->cc[i], -1);
		for (k = 0; k < rcpt->len; k++)
			dup |= !strcmp(g_ptr_array_index(rcpt, k), low);
		if (dup || !g_ascii_strcasecmp(low, h->me->addr)) {
			g_free(low);
			continue;
		}
		add_mailbox(g_mime_message_get_addresses(m, GMIME_ADDRESS_TYPE_CC),
			    NULL, h->cc[i]);
		g_ptr_array_add(rcpt, low);
	}
	g_ptr_array_add(rcpt, NULL);

	subject = pw_reply_subject(h->parent_subject);
	g_mime_message_set_subject(m, subject, "utf-8");
	date = g_date_time_new_from_unix_utc(h->me->date);
	g_mime_message_set_date(m, date);
	g_mime_message_set_message_id(m, h->me->msgid);
	if (h->parent_msgid && pw_reply_msgid_ok(h->parent_msgid)) {
		char *irt = g_strdup_printf("<%s>", h->parent_msgid);

		g_mime_object_set_header(GMIME_OBJECT(m), "In-Reply-To", irt, NULL);
		g_free(irt);
		refs = references(h);
		g_mime_object_set_header(GMIME_OBJECT(m), "References", refs, NULL);
	}
	g_mime_object_set_header(GMIME_OBJECT(m), "Auto-Submitted",
				 "auto-generated", NULL);
	g_mime_object_set_header(GMIME_OBJECT(m), "X-Mailer",
				 "patchwarden " PW_VERSION, NULL);

	part = g_mime_part_new_with_type("text", "plain");
	mem = g_mime_stream_mem_new_with_buffer(body, strlen(body));
	dw = g_mime_data_wrapper_new_with_stream(mem, GMIME_CONTENT_ENCODING_DEFAULT);
	g_mime_part_set_content(part, dw);
	g_mime_object_set_content_type_parameter(GMIME_OBJECT(part), "charset",
						 "utf-8");
	/* Plain 8-bit text: lines are short, and quoted code must read in
	 * list archives exactly as written, without =3D and soft breaks. */
	g_mime_part_set_content_encoding(part, g_str_is_ascii(body) ?
					 GMIME_CONTENT_ENCODING_7BIT :
					 GMIME_CONTENT_ENCODING_8BIT);
	g_mime_message_set_mime_part(m, GMIME_OBJECT(part));

	fo = g_mime_format_options_clone(NULL);
	g_mime_format_options_set_newline_format(fo, GMIME_NEWLINE_FORMAT_DOS);
	out_stream = g_mime_stream_mem_new();
	if (g_mime_object_write_to_stream(GMIME_OBJECT(m), fo, out_stream) < 0) {
		*err = g_strdup("cannot write the reply out");
		st = PW_ERR_IO;
		goto out;
	}
	wire = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(out_stream));
	if (!wire_ok((const char *)wire->data, wire->len)) {
		*err = g_strdup("the composed reply is not a valid message");
		goto out;
	}
	r = g_new0(struct pw_reply, 1);
	r->msgid = g_strdup(h->me->msgid);
	r->subject = subject;
	subject = NULL;
	r->to = g_ascii_strdown(h->to_addr, -1);
	r->rcpt = (char **)g_ptr_array_free(rcpt, FALSE);
	rcpt = NULL;
	r->wire = g_bytes_new(wire->data, wire->len);
	*out = r;
	st = PW_OK;
out:
	if (rcpt)
		g_ptr_array_free(rcpt, TRUE);
	if (out_stream)
		g_object_unref(out_stream);
	if (fo)
		g_mime_format_options_free(fo);
	if (dw)
		g_object_unref(dw);
	if (mem)
		g_object_unref(mem);
	if (part)
		g_object_unref(part);
	if (date)
		g_date_time_unref(date);
	if (m)
		g_object_unref(m);
	g_free(subject);
	g_free(refs);
	return st;
}

enum pw_status pw_reply_patch(const struct pw_reply_self *me,
			      const struct pw_mail *parent,
			      const char *const *cc, const char *list,
			      const struct pw_reply_item *items, size_t n,
			      size_t max_listed, struct pw_reply **out,
			      char **err)
{
	struct head head = {
		.me = me,
		/* To whoever posted it (bot/reply_policy.c copies an
		 * in-body author then). */
		.to_name = pw_mail_poster_name(parent),
		.to_addr = pw_mail_poster_addr(parent),
		.cc = cc,
		.parent_msgid = parent->msgid_derived ? NULL : parent->msgid,
		.parent_refs = (const char *const *)parent->references,
		.parent_subject = parent->subject,
		.list = list,
	};
	const struct head *h = &head;
	GString *b = g_string_new(NULL);
	char *subj = pw_reply_clean(h->parent_subject, MAX_SUBJECT);
	const char *last_patch = NULL;
	size_t i, shown;
	enum pw_status st;
	bool series = false;

	for (i = 0; i < n && !series; i++)
		series = items[i].patch != NULL;
	append_greeting(b, h->to_name);
	if (n == 1)
		wrapf(b, "", "patchwarden checked the file permission modes set "
		      "by your %s \"%s\" and found one thing worth a second "
		      "look:", series ? "series" : "patch", subj);
	else
		wrapf(b, "", "patchwarden checked the file permission modes set "
		      "by your %s \"%s\" and found %zu things worth a second "
		      "look:", series ? "series" : "patch", subj, n);
	g_string_append_c(b, '\n');
	shown = n < max_listed ? n : max_listed;
	for (i = 0; i < shown; i++) {
		if (items[i].patch && (!last_patch ||
				       strcmp(last_patch, items[i].patch))) {
			char *p = pw_reply_clean(items[i].patch, MAX_SUBJECT);

			wrapf(b, "", "In \"%s\":", p);
			g_string_append_c(b, '\n');
			g_free(p);
			last_patch = items[i].patch;
		}
		append_item(b, i + 1, &items[i]);
	}
	if (shown < n) {
		wrapf(b, "", "... and %zu more like these. To see them all, run "
		      "the check below on your patch.", n - shown);
		g_string_append_c(b, '\n');
	}
	g_string_append(b, "Thanks for your patch.\n\n");
	append_footer(b, h, false);
	st = build(h, b->str, out, err);
	g_string_free(b, TRUE);
	g_free(subj);
	return st;
}

static char *format_time(int64_t t)
{
	GDateTime *d = g_date_time_new_from_unix_utc(t);
	char *s = d ? g_date_time_format(d, "%Y-%m-%d %H:%M UTC") :
		g_strdup("an unknown time");

	if (d)
		g_date_time_unref(d);
	return s;
}

static char *format_span(int64_t secs)
{
	if (secs < 120)
		return g_strdup_printf("%d seconds", (int)(secs < 0 ? 0 : secs));
	if (secs < 2 * 3600)
		return g_strdup_printf("%d minutes", (int)(secs / 60));
	if (secs < 2 * 86400)
		return g_strdup_printf("%d hours", (int)(secs / 3600));
	return g_strdup_printf("%d days", (int)(secs / 86400));
}

enum pw_status pw_reply_flood(const struct pw_reply_self *me,
			      const struct pw_flood_info *f,
			      struct pw_reply **out, char **err)
{
	struct head head = {
		.me = me,
		.to_name = f->sender_name,
		.to_addr = f->sender_addr,
		.parent_msgid = f->first_msgid,
		.parent_refs = (const char *const *)f->first_refs,
		.parent_subject = f->subject,
		.list = f->lists && f->lists[0] ? f->lists[0] : NULL,
	};
	const struct head *h = &head;
	GString *b = g_string_new(NULL), *lists = g_string_new(NULL);
	char *subj = pw_reply_clean(f->subject, MAX_SUBJECT);
	char *first = format_time(f->first_seen), *last = format_time(f->last_seen);
	char *span = format_span(f->last_seen - f->first_seen);
	size_t nlists = 0, i;
	enum pw_status st;

	for (i = 0; f->lists && f->lists[i]; i++) {
		char *l = pw_reply_clean(f->lists[i], 100);

		g_string_append_printf(lists, "%s%s", nlists ? ", " : "", l);
		nlists++;
		g_free(l);
	}
	append_greeting(b, f->sender_name);
	wrapf(b, "", "patchwarden, a bot that reviews the file permission "
	      "modes in patches, noticed that you sent %d patches in %s "
	      "(from %s to %s), all titled like this one:", f->size, span,
	      first, last);
	g_string_append_printf(b, "\n    %s\n\n", subj);
	if (f->claimed_total > f->size)
		wrapf(b, "", "Their numbering announces %d patches in all.",
		      f->claimed_total);
	wrapf(b, "", "They were %s and reached %zu list%s (%s) and %d "
	      "people.", f->threaded ? "sent as one thread" :
	      "sent as separate threads, with no cover letter,",
	      nlists, nlists == 1 ? "" : "s",
	      nlists ? lists->str : "none known", f->recipients);
	g_string_append_c(b, '\n');
	wrap(b, "", "A change this wide is much easier to review, and to agree "
	     "on, when it is:");
	g_string_append_c(b, '\n');
	wrap2(b, "  - ", "    ", "discussed first: ask the maintainers whether they "
	     "want it at all before converting every file (the kernel, for "
	     "one, has preferred plain octal modes such as 0444 since 2016);");
	wrap2(b, "  - ", "    ", "split into one series per subsystem, each with a "
	     "cover letter explaining the change (git format-patch "
	     "--cover-letter --thread), sent to that subsystem's maintainers "
	     "and list only;");
	wrap2(b, "  - ", "    ", "checked before sending, so that each series arrives "
	     "clean.");
	g_string_append_c(b, '\n');
	wrap(b, "", "patchwarden will not reply to each of these patches. Their "
	     "findings are stored, and the maintainers can look them up.");
	g_string_append_c(b, '\n');
	append_footer(b, h, true);
	st = build(h, b->str, out, err);
	g_string_free(b, TRUE);
	g_string_free(lists, TRUE);
	g_free(subj);
	g_free(first);
	g_free(last);
	g_free(span);
	return st;
}
