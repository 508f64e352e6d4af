/*
 * patchwarden: one mail message, parsed with GMime into plain data.
 *
 * The only file that parses incoming mail with GMime.  Everything is
 * copied out of the GMime objects into a struct pw_mail and the objects
 * are released before pw_mail_parse() returns.  What needs no GMime is
 * in checks/: the subject markers (checks/subject.c), what the body's
 * text says (checks/body.c: commit message, diff extent, pull request)
 * and the kind of the message (checks/message.c).
 *
 * What is read here:
 *  - the header block: cut into fields as GMime's parser cuts it, each
 *    value decoded by GMime (see "The header block" below);
 *  - the MIME structure: the text/plain parts, and the diff of
 *    text/x-patch, text/x-diff and *.patch / *.diff attachments
 *    (patchwork's find_patch_content()), each decoded to UTF-8 and
 *    handed to checks/body.c in order.
 */
#include <stdarg.h>
#include <string.h>

#include <gmime/gmime.h>

#include "bot/mail.h"
#include "checks/body.h"
#include "checks/inbody.h"

#define MAX_DEPTH 32		/* MIME nesting followed */
#define MAX_PARTS 1000		/* leaf parts looked at */
/*
 * What GMime is given at most; a message past either is refused before
 * GMime reads it (see "The MIME structure, measured first" below).
 */
#define MAX_MIME_PARTS 5000	/* header blocks of parts, every kind */
#define MAX_FIELDS 10000	/* header fields, every block of a message */
#define MAX_RECIPIENTS 2000
#define MAX_REFERENCES 1000
#define MAX_FIELD (64 << 10)	/* bytes of one header field's value kept */

void pw_mail_init(void)
{
	static gsize once;

	if (g_once_init_enter(&once)) {
		g_mime_init();
		g_once_init_leave(&once, 1);
	}
}

/* ------------------------------------------------------------------ */
/* MIME parts */

struct walk {
	struct pw_body body;	/* what the text parts say */
	int leaves;
	GPtrArray *warnings;
};

static void warn(struct walk *w, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static void warn(struct walk *w, const char *fmt, ...)
{
	va_list ap;
	guint i;
	char *s, *raw;

	va_start(ap, fmt);
	raw = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	/* charset and file names come from the mail: keep them valid UTF-8 */
	s = pw_utf8_dup(raw, -1);
	g_free(raw);
	for (i = 0; i < w->warnings->len; i++)
		if (!strcmp(g_ptr_array_index(w->warnings, i), s)) {
			g_free(s);
			return;
		}
	if (w->warnings->len < 32)
		g_ptr_array_add(w->warnings, s);
	else
		g_free(s);
}

static bool is_utf8_name(const char *cs)
{
	return !g_ascii_strcasecmp(cs, "utf-8") ||
	       !g_ascii_strcasecmp(cs, "utf8") ||
	       !g_ascii_strcasecmp(cs, "us-ascii") ||
	       !g_ascii_strcasecmp(cs, "ascii");
}

/*
 * The decoded text of a leaf part in UTF-8 with LF line ends: the
 * transfer encoding undone, then the declared charset, then UTF-8,
 * windows-1252, latin-1 (patchwork's order).  Returns a new string.
 */
static char *part_text(GMimePart *part, size_t *len, struct walk *w)
{
	GMimeDataWrapper *dw = g_mime_part_get_content(part);
	const char *cs;
	GByteArray *ba;
	GMimeStream *mem;
	char *out = NULL, *r, *p, *q, *end;
	gsize written = 0;
	bool valid = false;

	*len = 0;
	if (!dw)
		return g_strdup("");
	ba = g_byte_array_new();
	mem = g_mime_stream_mem_new_with_byte_array(ba);
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
	g_mime_data_wrapper_write_to_stream(dw, mem);
	g_object_unref(mem);

	if (ba->len == 0) {
		/* Nothing to convert (and no buffer: g_convert wants one). */
		g_byte_array_free(ba, TRUE);
		return g_strdup("");
	}
	/* CRLF to LF, in place */
	end = (char *)ba->data + ba->len;
	for (p = q = (char *)ba->data; p < end; p++) {
		if (*p == '\r' && p + 1 < end && p[1] == '\n')
			continue;
		*q++ = *p;
	}
	g_byte_array_set_size(ba, (guint)(q - (char *)ba->data));

	cs = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part),
						      "charset");
	if (cs && !is_utf8_name(cs)) {
		const char *name = g_mime_charset_iconv_name(cs);

		if (!g_ascii_strcasecmp(name, "iso-8859-1"))
			name = "WINDOWS-1252";
		out = g_convert((const char *)ba->data, ba->len, "UTF-8", name,
				NULL, &written, NULL);
		if (!out && !g_ascii_strcasecmp(name, "WINDOWS-1252"))
			out = g_convert((const char *)ba->data, ba->len, "UTF-8",
					"ISO-8859-1", NULL, &written, NULL);
		if (!out)
			warn(w, "charset \"%s\" unknown or wrong; guessed", cs);
	}
	if (!out && g_utf8_validate((const char *)ba->data, ba->len, NULL)) {
		g_byte_array_append(ba, (const guint8 *)"", 1);
		written = ba->len - 1;
		out = (char *)g_byte_array_free(ba, FALSE);
		ba = NULL;
		valid = true;
	}
	if (!out)
		out = g_convert((const char *)ba->data, ba->len, "UTF-8",
				"WINDOWS-1252", NULL, &written, NULL);
	if (!out)
		out = g_convert((const char *)ba->data, ba->len, "UTF-8",
				"ISO-8859-1", NULL, &written, NULL);
	if (ba)
		g_byte_array_free(ba, TRUE);
	if (!out)
		return g_strdup("");
	if (memchr(out, '\0', written) ||
	    (!valid && !g_utf8_validate(out, (gssize)written, NULL))) {
		r = pw_utf8_dup(out, (gssize)written);
		g_free(out);
		out = r;
		written = strlen(out);
	}
	*len = written;
	return out;
}

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !g_ascii_strcasecmp(s + a - b, suffix);
}

static void walk_part(struct walk *w, GMimeObject *obj, int depth);

static void leaf(struct walk *w, GMimePart *part)
{
	GMimeContentType *ct = g_mime_object_get_content_type(GMIME_OBJECT(part));
	const char *type = ct ? g_mime_content_type_get_media_type(ct) : "text";
	const char *sub = ct ? g_mime_content_type_get_media_subtype(ct) : "plain";
	const char *fname = g_mime_part_get_filename(part);
	bool patch_att, plain;
	size_t n;
	char *t;

	if (!type)
		type = "text";
	if (!sub)
		sub = "plain";
	patch_att = (!g_ascii_strcasecmp(type, "text") &&
		     (!g_ascii_strcasecmp(sub, "x-patch") ||
		      !g_ascii_strcasecmp(sub, "x-diff"))) ||
		    (fname && (ends_with_ci(fname, ".patch") ||
			       ends_with_ci(fname, ".diff")));
	plain = !g_ascii_strcasecmp(type, "text") &&
		!g_ascii_strcasecmp(sub, "plain");
	if (!patch_att && !plain)
		return;
	if (++w->leaves > MAX_PARTS) {
		warn(w, "more than %d parts; the rest ignored", MAX_PARTS);
		return;
	}
	t = part_text(part, &n, w);
	if (patch_att) {
		if (!pw_body_add_patch(&w->body, t, n) && fname)
			warn(w, "attachment %s holds no diff", fname);
	} else {
		const char *fmt = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part), "format");
		const char *delsp = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part), "delsp");
		enum pw_body_flow flow = PW_BODY_FIXED;

		if (fmt && !g_ascii_strcasecmp(fmt, "flowed"))
			flow = delsp && !g_ascii_strcasecmp(delsp, "yes") ?
			       PW_BODY_FLOWED_DELSP : PW_BODY_FLOWED;
		if (pw_body_add_text(&w->body, t, n, flow))
			warn(w, "a hunk is shorter than its header says");
	}
	g_free(t);
}

static void walk_part(struct walk *w, GMimeObject *obj, int depth)
{
	int i, n;

	if (!obj)
		return;
	if (depth > MAX_DEPTH) {
		warn(w, "MIME parts nested deeper than %d levels ignored",
		     MAX_DEPTH);
		return;
	}
	if (GMIME_IS_MULTIPART_ENCRYPTED(obj))
		return;
	if (GMIME_IS_MULTIPART_SIGNED(obj)) {
		/* The signature is not text to read. */
		walk_part(w, g_mime_multipart_get_part(GMIME_MULTIPART(obj),
						       GMIME_MULTIPART_SIGNED_CONTENT),
			  depth + 1);
		return;
	}
	if (GMIME_IS_MULTIPART(obj)) {
		n = g_mime_multipart_get_count(GMIME_MULTIPART(obj));
		for (i = 0; i < n; i++)
			walk_part(w, g_mime_multipart_get_part(GMIME_MULTIPART(obj), i),
				  depth + 1);
		return;
	}
	if (GMIME_IS_MESSAGE_PART(obj)) {
		GMimeMessage *inner =
			g_mime_message_part_get_message(GMIME_MESSAGE_PART(obj));

		if (inner)
			walk_part(w, g_mime_message_get_mime_part(inner),
				  depth + 1);
		return;
	}
	if (GMIME_IS_PART(obj))
		leaf(w, GMIME_PART(obj));
}

/* ------------------------------------------------------------------ */
/* Headers */

static void add_address(GPtrArray *out, GHashTable *seen, InternetAddress *ia,
			int depth)
{
	if (out->len >= MAX_RECIPIENTS || depth > 4)
		return;
	if (INTERNET_ADDRESS_IS_GROUP(ia)) {
		InternetAddressList *l =
			internet_address_group_get_members(INTERNET_ADDRESS_GROUP(ia));
		int i, n = l ? internet_address_list_length(l) : 0;

		for (i = 0; i < n; i++)
			add_address(out, seen, internet_address_list_get_address(l, i),
				    depth + 1);
	} else if (INTERNET_ADDRESS_IS_MAILBOX(ia)) {
		const char *a = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia));
		char *lc, *q;

		if (!a || !*a)
			return;
		lc = pw_utf8_dup(a, -1);
		for (q = lc; *q; q++)
			*q = g_ascii_tolower(*q);
		if (g_hash_table_contains(seen, lc)) {
			g_free(lc);
			return;
		}
		g_ptr_array_add(out, lc);	/* seen borrows it from out */
		g_hash_table_add(seen, lc);
	}
}

static void add_list(GPtrArray *out, GHashTable *seen, InternetAddressList *l)
{
	int i, n = l ? internet_address_list_length(l) : 0;

	for (i = 0; i < n; i++)
		add_address(out, seen, internet_address_list_get_address(l, i), 0);
}

static void add_refs(GPtrArray *out, const char *raw)
{
	GMimeReferences *r = g_mime_references_parse(NULL, raw);
	int i, n;

	if (!r)
		return;
	n = g_mime_references_length(r);
	for (i = 0; i < n && out->len < MAX_REFERENCES; i++)
		g_ptr_array_add(out, pw_utf8_dup(g_mime_references_get_message_id(r, i), -1));
	g_mime_references_free(r);
}

static void first_mailbox(InternetAddressList *l, struct pw_mail *m, int depth)
{
	int i, n = l ? internet_address_list_length(l) : 0;

	for (i = 0; i < n && !m->from_addr && depth < 4; i++) {
		InternetAddress *ia = internet_address_list_get_address(l, i);

		if (INTERNET_ADDRESS_IS_GROUP(ia)) {
			first_mailbox(internet_address_group_get_members(INTERNET_ADDRESS_GROUP(ia)),
				      m, depth + 1);
		} else if (INTERNET_ADDRESS_IS_MAILBOX(ia)) {
			const char *name = internet_address_get_name(ia);
			const char *addr =
				internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia));
			char *c = pw_utf8_dup(addr ? addr : "", -1);

			m->from_name = pw_utf8_fold(name ? name : "");
			m->from_addr = g_ascii_strdown(c, -1);
			g_free(c);
		}
	}
}

static char *strip_angles(const char *v)
{
	char *s = pw_utf8_fold(v), *r;
	const char *lt = strchr(s, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (lt && gt) {
		r = g_strndup(lt + 1, (gsize)(gt - lt - 1));
		g_free(s);
		return r;
	}
	return s;
}

static char **strv_from(GPtrArray *a)
{
	g_ptr_array_add(a, NULL);
	return (char **)g_ptr_array_free(a, FALSE);
}

/* ------------------------------------------------------------------ */
/* The header block */

/*
 * The header block is cut into fields here; every value is decoded by
 * GMime (encoded words, charsets, addresses, dates, Message-IDs,
 * references), and GMime's parser reads the MIME structure from the
 * Content-* fields and the body.  Building a whole GMimeMessage instead
 * made GMime objects of every field and was most of the cost of
 * ingesting a reply.
 *
 * The block is cut as GMime 3.2's parser cuts it: it ends at the first
 * empty line (or the end of the message); a line that is not a field is
 * dropped with its continuation lines; before the first field only mbox
 * "From " lines may stand, anything else means this is not a message.
 * Values keep their folding, without CRs.  Repeated fields: the first
 * Message-ID, In-Reply-To, List-Id, Auto-Submitted, Precedence,
 * X-Patchwork-Hint and X-stable count, the last Subject and Date (as
 * GMime's message object keeps them), every From, To, Cc and
 * References.  Of the other list fields (F_LIST) only their presence
 * counts.
 */
enum field {
	F_MESSAGE_ID, F_FROM, F_SUBJECT, F_DATE, F_IN_REPLY_TO, F_REFERENCES,
	F_LIST_ID, F_AUTO_SUBMITTED, F_TO, F_CC, F_PRECEDENCE,
	F_PATCHWORK_HINT, F_STABLE, F_LIST, F_MIME, F_OTHER,
};

struct headers {
	GPtrArray *v[F_MIME];	/* raw values of each field, in order */
	GString *mime;		/* Content-* and MIME-Version fields, as sent */
	size_t body;		/* offset of the content in the message */
	size_t nfields;
	size_t nmime;		/* of them, Content-* and MIME-Version */
	bool cut;		/* a value was longer than MAX_FIELD */
	bool too_many;		/* more than MAX_FIELDS fields: not read on */
};

static enum field field_of(const char *name, size_t n)
{
	static const struct { const char *s; size_t n; enum field f; } known[] = {
#define H(x, f) { x, sizeof(x) - 1, f }
		H("Message-ID", F_MESSAGE_ID), H("From", F_FROM),
		H("Subject", F_SUBJECT), H("Date", F_DATE),
		H("In-Reply-To", F_IN_REPLY_TO), H("References", F_REFERENCES),
		H("List-Id", F_LIST_ID), H("Auto-Submitted", F_AUTO_SUBMITTED),
		H("To", F_TO), H("Cc", F_CC), H("MIME-Version", F_MIME),
		H("Precedence", F_PRECEDENCE),
		H("X-Patchwork-Hint", F_PATCHWORK_HINT), H("X-stable", F_STABLE),
		H("X-Mailing-List", F_LIST), H("List-Post", F_LIST),
		H("List-Unsubscribe", F_LIST), H("Mailing-List", F_LIST),
#undef H
	};
	size_t i;

	if (n > 8 && !g_ascii_strncasecmp(name, "Content-", 8))
		return F_MIME;
	for (i = 0; i < G_N_ELEMENTS(known); i++)
		if (known[i].n == n && !g_ascii_strncasecmp(name, known[i].s, n))
			return known[i].f;
	return F_OTHER;
}

/*
 * GMime's test for a field name: no control character, and blanks only
 * between the name and its colon.  Returns the name's length without
 * those blanks (0: not a field); *colon is where the value starts.
 */
static size_t field_name(const char *p, const char *nl, const char **colon)
{
	const char *c, *name_end = NULL;

	for (c = p; c < nl && *c != ':'; c++) {
		unsigned char u = (unsigned char)*c;

		if (u == ' ' || u == '\t') {
			if (!name_end)
				name_end = c;
		} else if (name_end || u < ' ' || u == 127) {
			return 0;
		}
	}
	if (c == nl || c == p)
		return 0;
	*colon = c;
	return (size_t)((name_end ? name_end : c) - p);
}

/* Appends [p, e) without its line end. */
static void append_line(GString *v, const char *p, const char *e)
{
	while (e > p && (e[-1] == '\n' || e[-1] == '\r'))
		e--;
	g_string_append_len(v, p, (gssize)(e - p));
}

static void headers_init(struct headers *h)
{
	int f;

	memset(h, 0, sizeof(*h));
	for (f = 0; f < F_MIME; f++)
		h->v[f] = g_ptr_array_new_with_free_func(g_free);
	h->mime = g_string_new(NULL);
}

static void headers_release(struct headers *h)
{
	int f;

	for (f = 0; f < F_MIME; f++)
		if (h->v[f])
			g_ptr_array_free(h->v[f], TRUE);
	if (h->mime)
		g_string_free(h->mime, TRUE);
}

/*
 * Cuts raw into fields; false when it does not start with a header
 * block.  As in GMime's parser, a line that is not a field is dropped
 * with its continuation lines (before the first field only mbox From
 * lines are), and only an empty line ends the block.
 */
static bool scan_headers(const char *raw, size_t len, struct headers *h)
{
	const char *p = raw, *end = raw + len;
	GString *cur = NULL;		/* the value being continued */
	enum field last = F_OTHER;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl + 1 : end, *colon = NULL;
		size_t n;

		if (*p == '\n' || (*p == '\r' && (p + 1 == end || p[1] == '\n'))) {
			p = e;		/* the empty line ends the block */
			break;
		}
		if ((*p == ' ' || *p == '\t') && h->nfields) {
			if (cur && cur->len < MAX_FIELD) {
				g_string_append_c(cur, '\n');
				append_line(cur, p, e);
				if (cur->len > MAX_FIELD) {
					g_string_truncate(cur, MAX_FIELD);
					h->cut = true;
				}
			} else if (cur) {
				h->cut = true;
			} else if (last == F_MIME) {
				g_string_append_len(h->mime, p, (gssize)(e - p));
			}
			p = e;
			continue;
		}
		if (cur) {
			g_ptr_array_add(h->v[last], g_string_free(cur, FALSE));
			cur = NULL;
		}
		n = field_name(p, nl ? nl : end, &colon);
		if (n == 0) {
			if (!h->nfields && ((size_t)(end - p) < 5 ||
					    memcmp(p, "From ", 5)))
				break;	/* not a message */
			last = F_OTHER;	/* dropped, with what continues it */
			p = e;
			continue;
		}
		if (++h->nfields > MAX_FIELDS) {
			h->too_many = true;
			break;
		}
		last = field_of(p, n);
		if (last == F_MIME) {
			h->nmime++;
			g_string_append_len(h->mime, p, (gssize)(e - p));
			if (!nl)
				g_string_append_c(h->mime, '\n');
		} else if (last != F_OTHER) {
			cur = g_string_new(NULL);
			append_line(cur, colon + 1, e);
		}
		if (cur && cur->len > MAX_FIELD) {
			/* Nothing honest is this long; the subject and
			 * reference scans need not be ready for it. */
			g_string_truncate(cur, MAX_FIELD);
			h->cut = true;
		}
		p = e;
	}
	if (cur)
		g_ptr_array_add(h->v[last], g_string_free(cur, FALSE));
	h->body = (size_t)(p - raw);
	return h->nfields > 0;
}

/* The value of the first (or last) field f, or NULL. */
static const char *first_of(const struct headers *h, enum field f)
{
	return h->v[f]->len ? h->v[f]->pdata[0] : NULL;
}

static const char *last_of(const struct headers *h, enum field f)
{
	return h->v[f]->len ? h->v[f]->pdata[h->v[f]->len - 1] : NULL;
}

/* What GMime's g_mime_header_get_value() gives: unfolded, decoded. */
/*
 * GMime 3.2 decodes a run of base64 encoded words in one charset as one
 * stream, and a word that ends in "=" padding ends that stream: every
 * later word of the run is dropped ("=?UTF-8?B?w7w=?= =?UTF-8?B?w7w=?="
 * reads as one "ü").  Long non-ASCII subjects are written so by many
 * mailers.  Before decoding, such a run is rewritten as one word holding
 * the bytes of all of them, which is what RFC 2047 says the run means
 * (the white space between encoded words is not text).  Returns s itself
 * when there is nothing to rewrite, else a new string.
 */
/*
 * Appends to out the text of s from copied to run_start, then the run
 * of words up to run_end as one word of charset cs holding bytes;
 * returns where the copy of s goes on.
 */
static int put_run(GString *out, const char *s, int copied, int run_start,
		   int run_end, const char *cs, const GByteArray *bytes)
{
	char *e = g_base64_encode(bytes->data, bytes->len);

	g_string_append_len(out, s + copied, run_start - copied);
	g_string_append_printf(out, "=?%s?B?%s?=", cs, e);
	g_free(e);
	return run_end;
}

/*
 * The charset of an encoded word as GMime reads it: its RFC 2231
 * language ("*de") dropped, the name made canonical ("utf8" is
 * "UTF-8"), so that words GMime decodes as one run are joined as one.
 * Takes cs; returns a new string.
 */
static char *canon_charset(char *cs)
{
	char *star = strchr(cs, '*'), *r;

	if (star)
		*star = '\0';
	r = g_strdup(g_mime_charset_canon_name(cs));
	g_free(cs);
	return r;
}

static char *join_b_words(char *s)
{
	static GRegex *word;
	static gsize once;
	GMatchInfo *mi = NULL;
	GString *out = NULL;
	GByteArray *bytes = NULL;
	char *run_cs = NULL;
	int copied = 0, run_end = -1, run_start = -1, words = 0;

	/* Raw: a header's bytes need not be UTF-8, and PCRE in UTF-8
	 * mode reads past the end of an invalid sequence. */
	if (g_once_init_enter(&once)) {
		word = g_regex_new("=\\?([^?\\s]+)\\?[bB]\\?([A-Za-z0-9+/]*=*)\\?=",
				   G_REGEX_RAW, 0, NULL);
		g_once_init_leave(&once, 1);
	}
	if (!strstr(s, "?=") || !g_regex_match(word, s, 0, &mi))
		goto out;
	out = g_string_new(NULL);
	bytes = g_byte_array_new();
	for (; g_match_info_matches(mi); g_match_info_next(mi, NULL)) {
		int from, to, i;
		char *cs = canon_charset(g_match_info_fetch(mi, 1));
		char *b64 = g_match_info_fetch(mi, 2);
		guchar *raw;
		gsize n;
		bool joins;

		g_match_info_fetch_pos(mi, 0, &from, &to);
		joins = run_cs && !g_ascii_strcasecmp(cs, run_cs);
		for (i = run_end; joins && i < from; i++)
			if (!g_ascii_isspace(s[i]))
				joins = false;
		if (!joins) {
			if (run_cs) {
				copied = put_run(out, s, copied, run_start,
						 run_end, run_cs, bytes);
				g_free(run_cs);
			}
			run_cs = cs;
			cs = NULL;
			run_start = from;
			g_byte_array_set_size(bytes, 0);
		} else {
			words++;
		}
		raw = g_base64_decode(b64, &n);
		g_byte_array_append(bytes, raw, (guint)n);
		g_free(raw);
		run_end = to;
		g_free(cs);
		g_free(b64);
	}
	if (run_cs)
		copied = put_run(out, s, copied, run_start, run_end, run_cs,
				 bytes);
	g_string_append(out, s + copied);
out:
	if (mi)
		g_match_info_free(mi);
	if (bytes)
		g_byte_array_free(bytes, TRUE);
	g_free(run_cs);
	if (!out)
		return s;
	if (!words) {
		g_string_free(out, TRUE);
		return s;
	}
	g_free(s);
	return g_string_free(out, FALSE);
}

/*
 * Warns, once per charset, about the encoded words of s whose charset
 * iconv does not know: GMime then guesses (as patchwork does), and the
 * text may be wrong.
 */
static void warn_charsets(struct walk *w, const char *s)
{
	static GRegex *word;
	static gsize once;
	GMatchInfo *mi = NULL;
	GHashTable *seen = NULL;

	if (g_once_init_enter(&once)) {
		word = g_regex_new("=\\?([^?*\\s]+)[^?\\s]*\\?[bBqQ]\\?[^?\\s]*\\?=",
				   G_REGEX_RAW, 0, NULL);
		g_once_init_leave(&once, 1);
	}
	if (!w || !strstr(s, "=?") || !g_regex_match(word, s, 0, &mi))
		goto out;
	seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (; g_match_info_matches(mi); g_match_info_next(mi, NULL)) {
		char *cs = g_match_info_fetch(mi, 1);
		const char *name = g_mime_charset_iconv_name(cs);
		GIConv cd;

		if (!g_hash_table_contains(seen, cs)) {
			cd = name ? g_iconv_open("UTF-8", name) : (GIConv)-1;
			if (cd == (GIConv)-1) {
				char *shown = pw_utf8_dup(cs, -1);

				warn(w, "charset \"%s\" of an encoded header word unknown; guessed",
				     shown);
				g_free(shown);
			} else {
				g_iconv_close(cd);
			}
			g_hash_table_add(seen, cs);
			cs = NULL;
		}
		g_free(cs);
	}
out:
	if (seen)
		g_hash_table_destroy(seen);
	if (mi)
		g_match_info_free(mi);
}

/* A header value unfolded and decoded (RFC 2047) into UTF-8; g_free. */
static char *decoded_warn(const char *raw, struct walk *w)
{
	char *u = join_b_words(g_mime_utils_header_unfold(raw));
	char *d;

	warn_charsets(w, u);
	d = g_mime_utils_header_decode_text(NULL, u);
	g_free(u);
	return d;
}

static char *decoded(const char *raw)
{
	return decoded_warn(raw, NULL);
}

/* Every value of f parsed as one address list (NULL when none). */
static InternetAddressList *addresses(const struct headers *h, enum field f)
{
	InternetAddressList *all = NULL;
	guint i;

	for (i = 0; i < h->v[f]->len; i++) {
		char *v = join_b_words(g_strdup(h->v[f]->pdata[i]));
		InternetAddressList *l = internet_address_list_parse(NULL, v);

		g_free(v);
		if (!l)
			continue;
		if (!all) {
			all = l;
			continue;
		}
		internet_address_list_append(all, l);
		g_object_unref(l);
	}
	return all;
}

static void read_headers(const struct headers *h, struct pw_mail *m,
			 GPtrArray *recips, GPtrArray *refs, struct walk *w)
{
	const gint64 first_date = 631152000;	/* 1990-01-01T00:00:00Z */
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	InternetAddressList *l;
	GDateTime *dt;
	const char *v;
	char *d;
	guint i;
	int f;

	/* First wins for identities, as Patchwork and git read them. */
	for (i = 0; !m->msgid && i < h->v[F_MESSAGE_ID]->len; i++) {
		char *id = g_mime_utils_decode_message_id(h->v[F_MESSAGE_ID]->pdata[i]);

		if (id && *id)
			m->msgid = pw_utf8_fold(id);
		g_free(id);
	}
	for (i = 0; !m->in_reply_to && i < h->v[F_IN_REPLY_TO]->len; i++) {
		GPtrArray *one = g_ptr_array_new_with_free_func(g_free);

		add_refs(one, h->v[F_IN_REPLY_TO]->pdata[i]);
		if (one->len)
			m->in_reply_to = g_strdup(g_ptr_array_index(one, 0));
		g_ptr_array_free(one, TRUE);
	}
	for (i = 0; i < h->v[F_REFERENCES]->len; i++)
		add_refs(refs, h->v[F_REFERENCES]->pdata[i]);
	if ((v = first_of(h, F_LIST_ID))) {
		d = decoded(v);
		m->list_id = strip_angles(d);
		g_free(d);
	}
	if ((v = first_of(h, F_AUTO_SUBMITTED))) {
		d = decoded(v);
		m->auto_submitted = pw_utf8_fold(d);
		g_free(d);
	}

	/* GMime's message object keeps the last Subject and Date. */
	d = (v = last_of(h, F_SUBJECT)) ? decoded_warn(v, w) : NULL;
	m->subject = pw_utf8_fold(d ? d : "");
	g_free(d);
	/* A Date that cannot be read, one before 1990 (no patch mail is
	 * that old; git mailsplit's "From " line check wants a later year
	 * too) or one more than a day after the time it is read (a clock
	 * set wrong, or a typo: it would top every list sorted by date) is
	 * unknown: 0 (checks/message.h).  A day: time zones and clocks a
	 * little fast are not mistakes. */
	dt = NULL;
	m->date = 0;
	if ((v = last_of(h, F_DATE))) {
		char *u = g_mime_utils_header_unfold(v);
		gint64 t, last_date = g_get_real_time() / G_USEC_PER_SEC + 86400;

		dt = g_mime_utils_header_decode_date(u);
		g_free(u);
		t = dt ? g_date_time_to_unix(dt) : 0;
		if (dt && t >= first_date && t <= last_date)
			m->date = t;
		else if (dt && t > last_date)
			warn(w, "Date: more than a day in the future, taken as unknown");
		else
			warn(w, "Date: unreadable or impossible, taken as unknown");
	}
	if (dt)
		g_date_time_unref(dt);

	if ((v = first_of(h, F_FROM)))
		warn_charsets(w, v);
	l = addresses(h, F_FROM);
	first_mailbox(l, m, 0);
	if (l)
		g_object_unref(l);
	if (!m->from_addr) {
		d = (v = first_of(h, F_FROM)) ? decoded_warn(v, w) : NULL;
		m->from_name = pw_utf8_fold(d ? d : "");
		m->from_addr = g_strdup("");
		if (v)
			warn(w, "From: header has no usable address");
		g_free(d);
	}

	for (f = F_TO; f <= F_CC; f++) {
		l = addresses(h, (enum field)f);
		if (l) {
			add_list(recips, seen, l);
			g_object_unref(l);
		}
	}
	g_hash_table_destroy(seen);
}

/* The first value of field f, decoded and folded (new string), or NULL. */
static char *first_decoded(const struct headers *h, enum field f)
{
	const char *v = first_of(h, f);
	char *d, *r;

	if (!v)
		return NULL;
	d = decoded(v);
	r = pw_utf8_fold(d ? d : "");
	g_free(d);
	return r;
}

/*
 * m->automated from the header block: why a machine sent the message
 * by its own fields, its subject and the built-in automated senders
 * (pw_mail_automated()); ingest adds [reply] automated_senders.  The
 * sender is the From header's, who posted it (an in-body From: is a
 * line of the body).
 */
static void read_origin(const struct headers *h, struct pw_mail *m)
{
	struct pw_mail_origin o = { 0 };
	char *prec = first_decoded(h, F_PRECEDENCE);
	char *hint = first_decoded(h, F_PATCHWORK_HINT);
	char *stable = first_decoded(h, F_STABLE);

	o.sender = pw_mail_poster_addr(m);
	o.subject = m->subject;
	o.auto_submitted = m->auto_submitted;
	o.precedence = prec;
	o.patchwork_hint = hint;
	o.stable = stable;
	o.list_headers = h->v[F_LIST_ID]->len || h->v[F_LIST]->len;
	o.prefixes = m->tags.prefixes;
	o.is_reply = m->tags.is_reply;
	o.other_author = m->sender_addr != NULL;
	m->automated = pw_mail_automated(&o, NULL);
	g_free(prec);
	g_free(hint);
	g_free(stable);
}

/* ------------------------------------------------------------------ */
/* The MIME structure, measured first */

/*
 * GMime's parser compares every line that starts with "--" with each
 * boundary of the multiparts it is inside, and makes an object of every
 * part and header field before anything can look at them: 2,000 nested
 * multiparts followed by lines of "--" took 25 s of CPU for 10 MiB, a
 * million empty parts 15 s and 1.9 GB.  So the structure is measured
 * first, in one pass that reads lines as GMime 3.2's parser does
 * (gmime-parser.c: header blocks end at an empty line or a boundary; a
 * boundary line is matched innermost first, its closing form first;
 * message/rfc822, rfc2822, global and news parts, unless encoded, hold
 * a message; a part without Content-Type in a multipart/digest is one),
 * and a message nested deeper than MAX_DEPTH, with more than
 * MAX_MIME_PARTS parts or more than MAX_FIELDS header fields is refused
 * before GMime reads it.  This pass costs at most MAX_DEPTH + 1
 * comparisons a line; real mail is never near these limits, and what
 * passes is parsed by GMime exactly as before.
 */
struct frame {
	const char *b;		/* a multipart's boundary, without "--"; */
	size_t blen;		/* NULL: an embedded message */
	bool digest;		/* a multipart/digest */
};

struct measure {
	struct frame f[MAX_DEPTH + 1];
	int depth;		/* frames in f */
	int parts;
	size_t fields;
	GPtrArray *boundaries;	/* owns the boundaries of f */
};

/*
 * The frame whose boundary line [p, e) is, innermost first: its index,
 * with *closing set when it is the closing one; -1 when it is none.  A
 * boundary line is "--", the boundary, "--" when it closes, then blanks
 * and the end of line only: its length without those tells first.
 */
static int boundary_of(const struct measure *ms, const char *p, const char *e,
		       bool *closing)
{
	size_t n;
	int i;

	if (e - p < 2 || p[0] != '-' || p[1] != '-')
		return -1;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
			 e[-1] == '\n'))
		e--;
	n = (size_t)(e - p);
	for (i = ms->depth - 1; i >= 0; i--) {
		const struct frame *f = &ms->f[i];

		if (!f->b || (n != f->blen + 2 && n != f->blen + 4) ||
		    memcmp(p + 2, f->b, f->blen))
			continue;
		if (n == f->blen + 2 || !memcmp(p + 2 + f->blen, "--", 2)) {
			*closing = n == f->blen + 4;
			return i;
		}
	}
	return -1;
}

/* A line's end: after its newline, or the end. */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

static bool is_rfc822(const char *sub)
{
	return !g_ascii_strcasecmp(sub, "rfc822") ||
	       !g_ascii_strcasecmp(sub, "rfc2822") ||
	       !g_ascii_strcasecmp(sub, "global") ||
	       !g_ascii_strcasecmp(sub, "news");
}

/* GMime's word that a Content-Type could not be read (*user_data). */
static void ct_unreadable(gint64 offset, GMimeParserWarning code,
			  const gchar *item, gpointer user_data)
{
	if (code == GMIME_WARN_INVALID_CONTENT_TYPE)
		*(bool *)user_data = true;
}

/*
 * The Content-Type value v as GMime's parser takes it (a new object), or
 * NULL when it cannot be read: the parser then takes the part for one
 * without it, where g_mime_content_type_parse() alone would answer
 * application/octet-stream.
 */
static GMimeContentType *content_type(const char *v)
{
	GMimeParserOptions *o = g_mime_parser_options_new();
	GMimeContentType *t;
	bool bad = false;

	g_mime_parser_options_set_warning_callback(o, ct_unreadable, &bad);
	t = g_mime_content_type_parse(o, v);
	g_mime_parser_options_free(o);
	if (bad && t) {
		g_object_unref(t);
		t = NULL;
	}
	return t;
}

/* Why a message is refused: "<what> than <limit>: refused unread". */
static char *refuse(const char *what, int limit)
{
	return g_strdup_printf("%s than %d" PW_MAIL_REFUSED, what, limit);
}

/*
 * Reads one header block at *pp (of a part, or of an embedded message)
 * and opens the frame its Content-Type makes; *pp then points at its
 * content.  Returns why the message is refused, or NULL; *content is
 * false when the block opens an embedded message, whose own header
 * block comes next.
 */
static char *measure_block(struct measure *ms, const char **pp,
			   const char *end, bool *content)
{
	const char *p = *pp, *e, *colon;
	GString *ct = NULL, *cte = NULL, *cur = NULL;
	GMimeContentType *type = NULL;
	const char *media = "text", *sub = "plain", *b;
	bool closing, in_digest;
	char *why = NULL;

	*content = true;
	if (++ms->parts > MAX_MIME_PARTS)
		return refuse("more MIME parts", MAX_MIME_PARTS);
	for (; p < end; p = e) {
		size_t n;

		e = line_end(p, end);
		if (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')) {
			p = e;
			break;
		}
		if (boundary_of(ms, p, e, &closing) >= 0)
			break;	/* a part without content: GMime's too */
		if (*p == ' ' || *p == '\t') {
			if (cur && cur->len < MAX_FIELD)
				g_string_append_len(cur, p, (gssize)(e - p));
			continue;
		}
		if (++ms->fields > MAX_FIELDS) {
			why = refuse("more header fields", MAX_FIELDS);
			goto out;
		}
		cur = NULL;
		n = field_name(p, e, &colon);
		if (n == 12 && !g_ascii_strncasecmp(p, "Content-Type", 12)) {
			/* The last one counts, as in GMime. */
			if (ct)
				g_string_free(ct, TRUE);
			cur = ct = g_string_new_len(colon + 1, (gssize)(e - colon - 1));
		} else if (n == 25 && !cte &&
			   !g_ascii_strncasecmp(p, "Content-Transfer-Encoding", 25)) {
			cur = cte = g_string_new_len(colon + 1, (gssize)(e - colon - 1));
		}
	}
	*pp = p;
	in_digest = ms->depth > 0 && ms->f[ms->depth - 1].digest;
	if (ct && (type = content_type(ct->str))) {
		media = g_mime_content_type_get_media_type(type);
		sub = g_mime_content_type_get_media_subtype(type);
	}
	if (!type || !media || !sub) {
		media = in_digest ? "message" : "text";
		sub = in_digest ? "rfc822" : "plain";
	}
	if (!g_ascii_strcasecmp(media, "multipart")) {
		b = type ? g_mime_content_type_get_parameter(type, "boundary") : NULL;
		if (!b)
			goto out;	/* its content is all prologue */
		if (ms->depth >= MAX_DEPTH) {
			why = refuse("MIME parts nested deeper", MAX_DEPTH);
			goto out;
		}
		g_ptr_array_add(ms->boundaries, g_strdup(b));
		ms->f[ms->depth].b = g_ptr_array_index(ms->boundaries,
						       ms->boundaries->len - 1);
		ms->f[ms->depth].blen = strlen(b);
		ms->f[ms->depth].digest = !g_ascii_strcasecmp(sub, "digest");
		ms->depth++;
	} else if (!g_ascii_strcasecmp(media, "message") && is_rfc822(sub)) {
		if (cte) {
			switch (g_mime_content_encoding_from_string(
					g_strstrip(cte->str))) {
			case GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE:
			case GMIME_CONTENT_ENCODING_UUENCODE:
			case GMIME_CONTENT_ENCODING_BASE64:
				goto out;	/* read as an attachment */
			default:
				break;
			}
		}
		if (ms->depth >= MAX_DEPTH) {
			why = refuse("MIME parts nested deeper", MAX_DEPTH);
			goto out;
		}
		ms->f[ms->depth].b = NULL;
		ms->f[ms->depth].blen = 0;
		ms->f[ms->depth].digest = false;
		ms->depth++;
		*content = false;
	}
out:
	if (type)
		g_object_unref(type);
	if (ct)
		g_string_free(ct, TRUE);
	if (cte)
		g_string_free(cte, TRUE);
	return why;
}

/*
 * Why the MIME structure of the part in buf (its header block first) is
 * refused, as a new string, or NULL when GMime may read it.
 */
static char *mime_refused(const char *buf, size_t len, size_t top_fields)
{
	struct measure ms = { .fields = top_fields };
	const char *p = buf, *end = buf + len, *e;
	bool headers = true, content, closing;
	char *why = NULL;
	int k;

	ms.boundaries = g_ptr_array_new_with_free_func(g_free);
	while (p < end && !why) {
		if (headers) {
			why = measure_block(&ms, &p, end, &content);
			headers = !content;
			continue;
		}
		/* Content: only a line that starts with "--" can end it,
		 * and with no multipart around none can. */
		if (!ms.depth)
			break;
		if (end - p < 2 || p[0] != '-' || p[1] != '-') {
			p = memmem(p, (size_t)(end - p), "\n--", 3);
			if (!p)
				break;
			p++;
		}
		e = line_end(p, end);
		k = boundary_of(&ms, p, e, &closing);
		if (k >= 0) {
			/* The frames inside k end with it; a closing
			 * boundary ends k too, and what follows is the
			 * content of the one around it. */
			ms.depth = closing ? k : k + 1;
			headers = !closing;
		}
		p = e;
	}
	g_ptr_array_free(ms.boundaries, TRUE);
	return why;
}

/*
 * The MIME structure: GMime's parser on the Content-* fields and the
 * content.  The bytes are copied once, into a buffer GMime reads in
 * place.
 */
static GMimeObject *mime_part(const char *raw, size_t len,
			      const struct headers *h, GByteArray **keep,
			      char **refused)
{
	GByteArray *ba = g_byte_array_sized_new((guint)(h->mime->len + 1 +
							len - h->body));
	GMimeStream *mem;
	GMimeParser *parser;
	GMimeObject *obj;

	g_byte_array_append(ba, (const guint8 *)h->mime->str, h->mime->len);
	g_byte_array_append(ba, (const guint8 *)"\n", 1);
	g_byte_array_append(ba, (const guint8 *)raw + h->body,
			    (guint)(len - h->body));
	*keep = ba;
	/* The Content-* fields are counted again there. */
	*refused = mime_refused((const char *)ba->data, ba->len,
				h->nfields - h->nmime);
	if (*refused)
		return NULL;
	mem = g_mime_stream_mem_new_with_byte_array(ba);
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
	parser = g_mime_parser_new_with_stream(mem);
	obj = g_mime_parser_construct_part(parser, NULL);
	g_object_unref(parser);
	g_object_unref(mem);
	return obj;
}

/*
 * What the top of the body says, as git am --scissors reads it: the
 * discussion above a scissors line is dropped; an in-body From: names
 * the author (the From header then stays as the sender); an in-body
 * Subject: or "[PATCH]" first line gives the commit subject
 * (subject_clean; the markers of the mail's own Subject still place it
 * in its series); an in-body Date: is read past (m->date stays the
 * posting date, which the reply policy and flood windows go by).
 */
static void apply_inbody(struct pw_mail *m, struct walk *w)
{
	struct pw_inbody ib;
	struct pw_mail who = { 0 };
	char *d;

	pw_inbody_read(m->commit_msg, strlen(m->commit_msg), &ib);
	/* Capped as header fields are. */
	if (ib.from && strlen(ib.from) > MAX_FIELD)
		ib.from[MAX_FIELD] = '\0';
	if (ib.subject && strlen(ib.subject) > MAX_FIELD)
		ib.subject[MAX_FIELD] = '\0';
	if (ib.from) {
		InternetAddressList *l;

		/* Parsed as written: GMime decodes the display name
		 * itself, so an encoded name cannot supply an address. */
		d = join_b_words(g_mime_utils_header_unfold(ib.from));
		l = internet_address_list_parse(NULL, d);
		first_mailbox(l, &who, 0);
		if (l)
			g_object_unref(l);
		g_free(d);
		if (who.from_addr && *who.from_addr && *m->from_addr) {
			if (strcmp(who.from_addr, m->from_addr) ||
			    strcmp(who.from_name, m->from_name)) {
				m->sender_name = m->from_name;
				m->sender_addr = m->from_addr;
			} else {
				g_free(m->from_name);
				g_free(m->from_addr);
			}
			m->from_name = who.from_name;
			m->from_addr = who.from_addr;
		} else {
			warn(w, *m->from_addr ?
			     "in-body From: has no usable address" :
			     "in-body From: not taken: the From header has no usable address");
			g_free(who.from_name);
			g_free(who.from_addr);
		}
	}
	if (ib.subject) {
		struct pw_subject_tags tags;
		char *s;

		d = decoded_warn(ib.subject, w);
		s = pw_utf8_fold(d ? d : "");
		g_free(m->subject_clean);
		m->subject_clean = pw_subject_parse(s, &tags);
		pw_subject_tags_release(&tags);
		g_free(s);
		g_free(d);
	}
	if (ib.start > 0) {
		char *rest = pw_body_trim(m->commit_msg + ib.start,
					  strlen(m->commit_msg + ib.start));

		g_free(m->commit_msg);
		m->commit_msg = rest;
	}
	pw_inbody_release(&ib);
}

enum pw_status pw_mail_parse(const char *raw, size_t len,
			     struct pw_mail **out, char **err)
{
	return pw_mail_parse_flags(raw, len, 0, out, err);
}

enum pw_status pw_mail_parse_flags(const char *raw, size_t len, unsigned flags,
				   struct pw_mail **out, char **err)
{
	enum pw_status st = PW_OK;
	GPtrArray *recips = NULL, *refs = NULL;
	struct pw_mail *m = NULL;
	struct walk w = { 0 };
	struct headers h;
	GMimeObject *top = NULL;
	GByteArray *ba = NULL;

	*out = NULL;
	pw_mail_init();
	headers_init(&h);
	if (!raw || len == 0) {
		if (err)
			*err = g_strdup("empty message");
		st = PW_ERR_INPUT;
		goto out;
	}
	if (!scan_headers(raw, len, &h)) {
		if (err)
			*err = g_strdup("not a mail message (no header fields)");
		st = PW_ERR_INPUT;
		goto out;
	}
	if (h.too_many) {
		if (err)
			*err = refuse("more header fields", MAX_FIELDS);
		st = PW_ERR_INPUT;
		goto out;
	}

	m = g_new0(struct pw_mail, 1);
	recips = g_ptr_array_new_with_free_func(g_free);
	refs = g_ptr_array_new_with_free_func(g_free);
	pw_body_init(&w.body);
	w.warnings = g_ptr_array_new_with_free_func(g_free);

	read_headers(&h, m, recips, refs, &w);
	if (h.cut)
		warn(&w, "a header field longer than %d KiB was cut there",
		     MAX_FIELD >> 10);
	if (!m->msgid) {
		m->msgid = pw_mail_derive_msgid(raw, len);
		m->msgid_derived = true;
	}
	m->nrecipients = (int)recips->len;
	m->recipients = strv_from(recips);
	recips = NULL;
	m->references = strv_from(refs);
	refs = NULL;

	m->subject_clean = pw_subject_parse(m->subject, &m->tags);

	/* A reply is a comment whatever its body holds. */
	if (!((flags & PW_MAIL_REPLY_HEADERS_ONLY) && m->tags.is_reply)) {
		char *refused = NULL;

		top = mime_part(raw, len, &h, &ba, &refused);
		if (refused) {
			if (err)
				*err = refused;
			else
				g_free(refused);
			st = PW_ERR_INPUT;
			goto out;
		}
		if (top)
			walk_part(&w, top, 0);
		else
			warn(&w, "no MIME structure could be read from the content");
	}
	pw_body_finish(&w.body, m);
	if (m->commit_msg && *m->commit_msg)
		apply_inbody(m, &w);
	read_origin(&h, m);
	m->warnings = strv_from(w.warnings);
	w.warnings = NULL;
	m->kind = pw_mail_classify(m);
	*out = m;
	m = NULL;
out:
	pw_body_release(&w.body);
	if (w.warnings)
		g_ptr_array_free(w.warnings, TRUE);
	if (recips)
		g_ptr_array_free(recips, TRUE);
	if (refs)
		g_ptr_array_free(refs, TRUE);
	pw_mail_free(m);
	if (top)
		g_object_unref(top);
	if (ba)
		g_byte_array_free(ba, TRUE);
	headers_release(&h);
	return st;
}
