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
#include "checks/rules.h"
#include "checks/text.h"

#define MAX_SUBJECT 250		/* characters kept of a subject */
#define MAX_NAME 64		/* characters kept of a display name */
#define MAX_QUOTE 200		/* characters quoted of a source line */
#define MAX_REFS 20		/* References kept before the parent's ID */
#define WIDTH 72		/* body text is wrapped here */
#define MAX_MESSAGE 1000	/* characters kept of a finding's message */
#define MAX_LINES 50		/* body lines of a reply to a patch, at most */

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
	const char *list_addr;		/* the list's posting address, or NULL */
	bool maintainers;		/* to the maintainers, about the author */
	bool own_subject;		/* parent_subject is the subject, as is */
};

/*
 * Addresses the reply of h to me->maintainers when it names any: To the
 * first, Cc the others then cc, into *all (new, NULL-terminated).
 */
static void to_maintainers(struct head *h, const char *const *cc,
			   char ***all)
{
	const char *const *mt = h->me->maintainers;
	GPtrArray *v;
	size_t i;

	*all = NULL;
	if (!mt || !mt[0])
		return;
	v = g_ptr_array_new();
	for (i = 1; mt[i]; i++)
		g_ptr_array_add(v, g_strdup(mt[i]));
	for (i = 0; cc && cc[i]; i++)
		g_ptr_array_add(v, g_strdup(cc[i]));
	g_ptr_array_add(v, NULL);
	*all = (char **)g_ptr_array_free(v, FALSE);
	h->to_name = NULL;
	h->to_addr = mt[0];
	h->cc = (const char *const *)*all;
	h->maintainers = true;
}

/* "Name <addr>" of the author, for the maintainers (new string). */
static char *author_of(const char *name, const char *addr)
{
	char *n = pw_reply_clean(name, MAX_NAME);
	char *a = pw_reply_addr_ok(addr) ? g_ascii_strdown(addr, -1) :
		g_strdup("an unknown address");
	char *s = *n ? g_strdup_printf("%s <%s>", n, a) : g_strdup(a);

	g_free(n);
	g_free(a);
	return s;
}

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

		/* A bidirectional control is dropped: it would reorder what
		 * follows it (checks/text.h). */
		if (pw_utf8_bidi_control(c))
			continue;
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

bool pw_reply_addr_noreply(const char *addr)
{
	static const char *const words[] = { "noreply", "donotreply",
					     "dontreply" };
	char local[256];
	size_t i, n = 0;

	if (!addr || !strchr(addr, '@'))
		return false;
	/* Separators folded away: no-reply, no_reply, no.reply alike; the
	 * domain counts too (users.noreply.github.com). */
	for (i = 0; addr[i] && n + 1 < sizeof(local); i++)
		if (g_ascii_isalnum(addr[i]))
			local[n++] = g_ascii_tolower(addr[i]);
	local[n] = '\0';
	for (i = 0; i < G_N_ELEMENTS(words); i++)
		if (strstr(local, words[i]))
			return true;
	return false;
}

bool pw_reply_addr_reachable(const char *addr)
{
	return pw_reply_addr_ok(addr) && !pw_reply_addr_noreply(addr);
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
	const char *t = clean;
	bool reply = false;
	size_t n;
	char *s;

	/* Every reply or forward marker, in any language ("答复:", "AW:"),
	 * gives way to the one "Re:": never "Re: 答复: ...". */
	while ((n = pw_subject_marker(t, &reply)))
		for (t += n; *t == ' ' || *t == '\t'; t++)
			;
	if (!*t)
		s = g_strdup("Re: your patch");
	else
		s = g_strdup_printf("Re: %s", t);
	g_free(clean);
	return s;
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

/*
 * The findings of one rule in a reply: one item, its places listed,
 * its first finding quoted and explained.
 */
struct group {
	const char *rule;
	enum pw_severity sev;
	GPtrArray *items;	/* const struct pw_reply_item *, borrowed */
	bool all_lines;		/* every finding names a line */
};

static void group_free(gpointer p)
{
	struct group *g = p;

	g_ptr_array_free(g->items, TRUE);
	g_free(g);
}

/* More severe first; among equals, the rule met first in the patch
 * (the sort is stable). */
static gint group_cmp(gconstpointer a, gconstpointer b)
{
	const struct group *x = *(const struct group *const *)a;
	const struct group *y = *(const struct group *const *)b;

	return (int)y->sev - (int)x->sev;
}

/*
 * Groups the n items by rule, leaving out info findings: a reply
 * carries what is worth an author's time, and info findings are for
 * the dashboard and queries ([reply] min_severity cannot bring them
 * in).  Sets *shown to the number of findings grouped.
 */
static GPtrArray *group_items(const struct pw_reply_item *items, size_t n,
			      size_t *shown)
{
	GPtrArray *groups = g_ptr_array_new_with_free_func(group_free);
	GHashTable *by_rule = g_hash_table_new(g_str_hash, g_str_equal);
	size_t i;

	*shown = 0;
	for (i = 0; i < n; i++) {
		const struct pw_finding *f = items[i].f;
		const char *rule = f->rule ? f->rule : "";
		struct group *g;

		if (f->severity <= PW_SEV_INFO)
			continue;
		g = g_hash_table_lookup(by_rule, rule);
		if (!g) {
			g = g_new0(struct group, 1);
			g->rule = rule;
			g->items = g_ptr_array_new();
			g->all_lines = true;
			g_hash_table_insert(by_rule, (gpointer)rule, g);
			g_ptr_array_add(groups, g);
		}
		if (f->severity > g->sev)
			g->sev = f->severity;
		g->all_lines &= f->line > 0;
		g_ptr_array_add(g->items, (gpointer)&items[i]);
		(*shown)++;
	}
	g_hash_table_destroy(by_rule);
	g_ptr_array_sort(groups, group_cmp);
	return groups;
}

/* What a rule looks at, as the intro names it ("found ... in its
 * permission modes"). */
static const char *topic_of(const char *rule)
{
	static const struct {
		const char *prefix, *topic;
	} topics[] = {
		{ "PERM_", "its permission modes" },
		{ "SYSFS_MODE_CALLBACKS", "its permission modes" },
		{ "DEVICE_ATTR_FORM", "its device attribute declarations" },
		{ "EXEC_SOURCE_FILE", "its file modes" },
		{ "PATCH_MALFORMED", "the form of its diff" },
		{ "RESEND_IDENTICAL", "how it was sent" },
		{ "FLOOD", "how it was sent" },
		{ "SERIES_OVERSIZED", "how it was sent" },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(topics); i++)
		if (g_str_has_prefix(rule, topics[i].prefix))
			return topics[i].topic;
	return "its added lines";
}

/* "a, b and c": the topics of the groups, each once. */
static char *topics_of(const GPtrArray *groups)
{
	GPtrArray *t = g_ptr_array_new();
	GString *s = g_string_new(NULL);
	guint i, k;

	for (i = 0; i < groups->len; i++) {
		const char *topic = topic_of(((struct group *)groups->pdata[i])->rule);
		bool seen = false;

		for (k = 0; k < t->len; k++)
			seen |= t->pdata[k] == topic;
		if (!seen)
			g_ptr_array_add(t, (gpointer)topic);
	}
	for (i = 0; i < t->len; i++)
		g_string_append_printf(s, "%s%s", i == 0 ? "" :
				       i + 1 == t->len ? " and " : ", ",
				       (const char *)t->pdata[i]);
	g_ptr_array_free(t, TRUE);
	return g_string_free(s, FALSE);
}

/* "3/5" from a series patch's subject ("[PATCH v3 3/5] ..."), else its
 * subject cut short and quoted. */
static char *patch_label(const char *subject)
{
	const char *end = subject && subject[0] == '[' ? strchr(subject, ']') : NULL;
	const char *p;
	char *clean, *s;

	for (p = end ? end - 1 : NULL; p && p > subject && g_ascii_isdigit(*p); p--)
		;
	if (p && p < end - 1 && *p == '/') {
		const char *q = p;

		while (q > subject && g_ascii_isdigit(q[-1]))
			q--;
		if (q < p)
			return g_strdup_printf("patch %.*s", (int)(end - q), q);
	}
	clean = pw_reply_clean(subject, 40);
	s = g_strdup_printf("\"%s\"", clean);
	g_free(clean);
	return s;
}

/*
 * Where a group's findings are, as the kernel lists write places
 * ("drivers/hwmon/it87.c:1261, 1263, 1265"), files and patches named
 * once each, up to about max characters, then how many more.
 */
static char *places(const struct group *g, size_t max)
{
	GString *s = g_string_new(NULL);
	const char *last_file = NULL, *last_patch = NULL;
	guint i;

	for (i = 0; i < g->items->len; i++) {
		const struct pw_reply_item *it = g->items->pdata[i];
		const struct pw_finding *f = it->f;
		bool new_patch, new_file;
		GString *piece;

		/* A finding about the patch as a whole names no place. */
		if (!(f->file && *f->file) && f->line <= 0)
			continue;
		new_patch = it->patch && (!last_patch ||
					       strcmp(last_patch, it->patch));
		new_file = new_patch || !last_file ||
			strcmp(last_file, f->file ? f->file : "");
		piece = g_string_new(NULL);

		if (new_patch) {
			char *label = patch_label(it->patch);

			g_string_append_printf(piece, "%s%s: ", s->len ? "; " : "",
					       label);
			g_free(label);
		} else if (new_file && s->len) {
			g_string_append(piece, "; ");
		} else if (s->len) {
			g_string_append(piece, ", ");
		}
		if (new_file && f->file && *f->file) {
			char *file = pw_reply_clean(f->file, 120);

			g_string_append(piece, file);
			if (f->line > 0)
				g_string_append_c(piece, ':');
			g_free(file);
		}
		if (f->line > 0)
			g_string_append_printf(piece, "%d", f->line);
		if (s->len && s->len + piece->len > max) {
			g_string_free(piece, TRUE);
			g_string_append_printf(s, " and %u more", g->items->len - i);
			break;
		}
		g_string_append(s, piece->str);
		g_string_free(piece, TRUE);
		last_patch = it->patch;
		last_file = f->file ? f->file : "";
	}
	/* A patch label with no place after it ("patch 2/3: "). */
	while (s->len && (s->str[s->len - 1] == ' ' || s->str[s->len - 1] == ':' ||
			  s->str[s->len - 1] == ';' || s->str[s->len - 1] == ','))
		g_string_truncate(s, s->len - 1);
	return g_string_free(s, FALSE);
}

/* "1. PERM_SYMBOLIC (warning), 18 lines: PLACES"; no 0: the only rule,
 * not numbered. */
static char *group_head(const struct group *g, size_t no, size_t max_places)
{
	char *where = places(g, max_places);
	char *num = no ? g_strdup_printf("%zu. ", no) : g_strdup("");
	size_t n = g->items->len;
	char *head;

	if (n == 1)
		head = g_strdup_printf("%s%s (%s)%s%s", num, g->rule,
				       pw_severity_str(g->sev), *where ? ": " : "",
				       where);
	else
		head = g_strdup_printf("%s%s (%s), %zu %s%s%s", num, g->rule,
				       pw_severity_str(g->sev), n,
				       g->all_lines ? "lines" : "findings",
				       *where ? ": " : "", where);
	g_free(where);
	g_free(num);
	return head;
}

/* One rule in full: its places, its first finding quoted, explained,
 * and fixed.  no 0: the reply's only rule, neither numbered nor
 * indented. */
static void append_group(GString *b, size_t no, const struct group *g)
{
	const struct pw_reply_item *first = g->items->pdata[0];
	const struct pw_finding *f = first->f;
	const char *in = no ? "   " : "";
	char *head = group_head(g, no, 200);
	char *msg = pw_reply_clean(f->message, MAX_MESSAGE);
	char *line = f->added_line ? clean_code(f->added_line, MAX_QUOTE) : NULL;
	char *fix = f->fix ? clean_code(f->fix, MAX_QUOTE) : NULL;
	size_t n = g->items->len;

	wrap2(b, "", in, head);
	g_string_append_c(b, '\n');
	if (line) {
		/* With several places, say which one is quoted. */
		if (n > 1 && f->file && *f->file && f->line > 0) {
			char *file = pw_reply_clean(f->file, 120);

			g_string_append_printf(b, "%s%s:%d:\n", in, file, f->line);
			g_free(file);
		}
		g_string_append_printf(b, "%s> +%s\n\n", in, line);
	}
	wrap(b, in, msg);
	if (fix && *fix) {
		g_string_append_printf(b, "\n%sSuggested:\n%s+%s\n", in, in, fix);
		if (n > 1)
			g_string_append_c(b, '\n');
		if (n == 2)
			g_string_append_printf(b, "%sThe other %s takes the same "
					       "kind of fix.\n", in,
					       g->all_lines ? "line" : "place");
		else if (n > 2)
			g_string_append_printf(b, "%sThe other %zu %s take the same "
					       "kind of fix.\n", in, n - 1,
					       g->all_lines ? "lines" : "places");
	}
	g_string_append_c(b, '\n');
	g_free(head);
	g_free(msg);
	g_free(line);
	g_free(fix);
}

/* One rule in brief, when the reply has no room for it in full. */
static void append_group_short(GString *b, size_t no, const struct group *g)
{
	const struct pw_rule *r = pw_rule_find(g->rule);
	char *head = group_head(g, no, 60);

	wrap2(b, "", "   ", head);
	/* What the rule is about, from the rule table, since its
	 * message is not shown. */
	if (r)
		wrapf(b, "   ", "What it flags: %s.", r->summary);
	g_free(head);
}

static size_t count_lines(const GString *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->len; i++)
		n += s->str[i] == '\n';
	return n;
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

/* The dashboard page of message msgid, or NULL without a dashboard. */
static char *page_url(const struct pw_reply_self *me, const char *msgid)
{
	char *base, *id, *url;
	size_t n;

	if (!me->dashboard_url || !*me->dashboard_url)
		return NULL;
	base = pw_reply_clean(me->dashboard_url, 300);
	n = strlen(base);
	while (n && base[n - 1] == '/')
		base[--n] = '\0';
	if (!msgid || !pw_reply_msgid_ok(msgid)) {
		url = g_strdup_printf("%s/", base);
		g_free(base);
		return url;
	}
	id = g_uri_escape_string(msgid,
				 G_URI_RESERVED_CHARS_ALLOWED_IN_PATH_ELEMENT,
				 FALSE);
	url = g_strdup_printf("%s/message/%s", base, id);
	g_free(id);
	g_free(base);
	return url;
}

/*
 * The signature: that a bot wrote this, how to reach a person, and how
 * to run the check.  Short: it ends every reply.  To the maintainers it
 * says what they can do about it (the triage commands by mail, the
 * dashboard's forms), not what an author would.
 */
static void append_footer(GString *b, const struct head *h, bool flood)
{
	char *addr = h->list_addr && pw_reply_addr_ok(h->list_addr) ?
		g_ascii_strdown(h->list_addr, -1) : NULL;

	g_string_append(b, "-- \n");
	wrapf(b, "", "This is an automated reply from patchwarden %s, a review "
	      "bot%s%s. It answers %s, and never answers automated mail.",
	      PW_VERSION, addr ? " for " : "", addr ? addr : "",
	      flood ? "a flood with one summary" :
	      "each version of a series once, with what is new in it");
	if (h->maintainers) {
		char *url = page_url(h->me, flood ? NULL : h->parent_msgid);

		wrap(b, "", "This copy went to the list's maintainers only: "
		     "the author was not mailed.");
		if (!flood)
			wrap(b, "", "If a finding is wrong, answer this mail with "
			     "a line \"patchwarden: wrong\" (every finding) or "
			     "\"patchwarden: wrong RULE REASON\"; "
			     "\"patchwarden: ignore RULE PATH\" stops a rule for "
			     "files, \"patchwarden: recheck\" runs the rules "
			     "again.");
		if (url)
			wrapf(b, "", "%s on the dashboard: %s", flood ?
			      "The patches and their findings are" :
			      "Or mark each finding with its form", url);
		if (h->me->reply_to)
			wrap(b, "", "Anything else: reply to this mail; replies "
			     "reach the people who run it.");
		g_free(url);
		g_free(addr);
		return;
	}
	if (h->me->reply_to)
		wrap(b, "", "If it got something wrong, reply to this mail: "
		     "replies reach the people who run it.");
	else if (addr)
		wrapf(b, "", "If it got something wrong, please say so on %s.",
		      addr);
	else
		wrap(b, "", "If it got something wrong, please say so on the list.");
	wrap(b, "", "Check a patch before sending: patchwarden check "
	     "0001-your-change.patch");
	g_free(addr);
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

	subject = h->own_subject ? pw_reply_clean(h->parent_subject, 200) :
		pw_reply_subject(h->parent_subject);
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
	/* Patchwork files a reply to a patch as a comment on it unless
	 * told not to: the bot's verdict reaches Patchwork as a check. */
	g_mime_object_set_header(GMIME_OBJECT(m), "X-Patchwork-Hint",
				 "ignore", NULL);

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
			      const char *const *cc, const char *list_addr,
			      const struct pw_reply_item *items, size_t n,
			      struct pw_reply **out, char **err)
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
		.list_addr = list_addr,
	};
	const struct head *h = &head;
	GString *b = g_string_new(NULL), *tail = g_string_new(NULL);
	GString *part = g_string_new(NULL);
	char *subj = pw_reply_clean(h->parent_subject, MAX_SUBJECT);
	char *topics = NULL, *url = NULL, *whose = NULL, **all_cc = NULL;
	GPtrArray *groups;
	size_t i, shown, used = 0, budget, left = 0, left_groups = 0;
	enum pw_status st = PW_ERR_INPUT;
	bool series = false, brief = false;

	*out = NULL;
	for (i = 0; i < n && !series; i++)
		series = items[i].patch != NULL;
	groups = group_items(items, n, &shown);
	if (!groups->len) {
		*err = g_strdup("no finding worth a reply");
		goto out;
	}
	topics = topics_of(groups);
	to_maintainers(&head, cc, &all_cc);
	if (head.maintainers) {
		char *who = author_of(pw_mail_poster_name(parent),
				      pw_mail_poster_addr(parent));

		whose = g_strdup_printf("the %s from %s", series ? "series" :
					"patch", who);
		g_free(who);
	} else {
		whose = g_strdup_printf("your %s", series ? "series" : "patch");
	}
	append_greeting(b, h->to_name);
	if (shown == 1)
		wrapf(b, "", "patchwarden, a review bot, read %s \"%s\" and "
		      "found one thing worth a second look in %s:",
		      whose, subj, topics);
	else if (groups->len == 1)
		wrapf(b, "", "patchwarden, a review bot, read %s \"%s\" and "
		      "found %zu things worth a second look in %s, all of one "
		      "kind:", whose, subj, shown, topics);
	else
		wrapf(b, "", "patchwarden, a review bot, read %s \"%s\" and "
		      "found %zu things of %u kinds worth a second look in %s:",
		      whose, subj, shown, groups->len, topics);
	g_string_append_c(b, '\n');
	if (me->fixed && *me->fixed) {
		wrap(b, "", me->fixed);
		g_string_append_c(b, '\n');
	}

	url = page_url(me, parent->msgid_derived ? NULL : parent->msgid);
	/* The maintainers' footer links the page, with its forms. */
	if (url && !head.maintainers) {
		wrapf(tail, "", "Every finding, line by line, is on the "
		      "dashboard: %s", url);
		g_string_append_c(tail, '\n');
	}
	if (!head.maintainers)
		g_string_append(tail, series ? "Thanks for your series.\n\n" :
				"Thanks for your patch.\n\n");
	append_footer(tail, h, false);

	/*
	 * Each rule in full while there is room, then in brief, then only
	 * counted: whatever the patch, the reply stays short (MAX_LINES),
	 * and the rules come most severe first.
	 */
	used = count_lines(b) + count_lines(tail) + 4;
	budget = used < MAX_LINES ? MAX_LINES - used : 0;
	used = 0;
	for (i = 0; i < groups->len; i++) {
		const struct group *g = groups->pdata[i];

		g_string_truncate(part, 0);
		if (!brief) {
			/* Room kept for the next two rules in brief: a long
			 * rule in full does not crowd out the others. */
			size_t keep = MIN(groups->len - i - 1, 2) * 4;

			append_group(part, groups->len > 1 ? i + 1 : 0, g);
			if (used + count_lines(part) + keep > budget) {
				brief = true;
				g_string_truncate(part, 0);
			}
		}
		if (brief)
			append_group_short(part, groups->len > 1 ? i + 1 : 0, g);
		if (used + count_lines(part) > budget)
			break;
		g_string_append(b, part->str);
		used += count_lines(part);
	}
	if (brief)
		g_string_append_c(b, '\n');
	for (; i < groups->len; i++) {
		left += ((struct group *)groups->pdata[i])->items->len;
		left_groups++;
	}
	if (left)
		wrapf(b, "", "... and %zu more of %zu other kind%s, not listed "
		      "here.", left, left_groups, left_groups == 1 ? "" : "s");
	/* Without a dashboard, say where the rest is explained. */
	if ((left || brief) && !url)
		wrap(b, "", "\"patchwarden check\" on your patch shows every "
		     "finding in full.");
	if (left || (brief && !url))
		g_string_append_c(b, '\n');
	g_string_append(b, tail->str);
	st = build(h, b->str, out, err);
out:
	g_ptr_array_free(groups, TRUE);
	g_string_free(b, TRUE);
	g_string_free(tail, TRUE);
	g_string_free(part, TRUE);
	g_free(subj);
	g_free(topics);
	g_free(url);
	g_free(whose);
	g_strfreev(all_cc);
	return st;
}

enum pw_status pw_reply_message(const struct pw_reply_self *me,
				const char *const *to, const char *subject,
				const char *in_reply_to,
				const char *const *refs, const char *body,
				struct pw_reply **out, char **err)
{
	struct head head = {
		.me = me,
		.to_addr = to && to[0] ? to[0] : NULL,
		.cc = to && to[0] ? to + 1 : NULL,
		.parent_msgid = in_reply_to,
		.parent_refs = refs,
		.parent_subject = subject,
		.own_subject = true,
	};

	*out = NULL;
	return build(&head, body, out, err);
}

char *pw_reply_time(int64_t t)
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
			      const char *list_addr,
			      struct pw_reply **out, char **err)
{
	struct head head = {
		.me = me,
		.to_name = f->sender_name,
		.to_addr = f->sender_addr,
		.parent_msgid = f->first_msgid,
		.parent_refs = (const char *const *)f->first_refs,
		.parent_subject = f->subject,
		.list_addr = list_addr,
	};
	const struct head *h = &head;
	GString *b = g_string_new(NULL), *lists = g_string_new(NULL);
	char *subj = pw_reply_clean(f->subject, MAX_SUBJECT);
	char *first = pw_reply_time(f->first_seen);
	char *last = pw_reply_time(f->last_seen);
	char *span = format_span(f->last_seen - f->first_seen);
	char *who, **all_cc = NULL;
	size_t nlists = 0, i;
	enum pw_status st;

	for (i = 0; f->lists && f->lists[i]; i++) {
		char *l = pw_reply_clean(f->lists[i], 100);

		g_string_append_printf(lists, "%s%s", nlists ? ", " : "", l);
		nlists++;
		g_free(l);
	}
	to_maintainers(&head, NULL, &all_cc);
	who = head.maintainers ? author_of(f->sender_name, f->sender_addr) :
		g_strdup("you");
	append_greeting(b, h->to_name);
	wrapf(b, "", "patchwarden, a review bot, noticed that %s sent %d "
	      "patches in %s "
	      "(from %s to %s), all titled like this one:", who, f->size, span,
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
	g_free(who);
	g_strfreev(all_cc);
	return st;
}
