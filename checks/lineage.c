/*
 * patchwarden: a patch's life, decided without the store (see
 * checks/lineage.h).
 */
#include <string.h>

#include <glib.h>

#include "checks/fingerprint.h"
#include "checks/lineage.h"

const char *pw_lineage_how_name(enum pw_lineage_how how)
{
	switch (how) {
	case PW_LINEAGE_CHANGE_ID:
		return "change-id";
	case PW_LINEAGE_LINK:
		return "link";
	case PW_LINEAGE_COPY:
		return "copy";
	case PW_LINEAGE_REPLY:
		return "reply";
	case PW_LINEAGE_SUBJECT:
		return "subject";
	case PW_LINEAGE_NONE:
		break;
	}
	return "first";
}

bool pw_lineage_before(const struct pw_lineage_series *a,
		       const struct pw_lineage_series *b)
{
	if (a->version != b->version)
		return a->version < b->version;
	if (a->date != b->date)
		return a->date < b->date;
	return a->id < b->id;
}

/* Whether a and b are the same text but for case (NULL is no text). */
static bool same_text(const char *a, const char *b)
{
	return a && b && *a && !g_ascii_strcasecmp(a, b);
}

/*
 * Whether the lineages of s and c may become one: a lineage that signed
 * mail started takes only its signer's signed mail (checks/identity.h),
 * and a signed one takes no lineage of others either, whose later
 * versions would supersede the signer's.
 */
static bool may_join(const struct pw_lineage_series *s,
		     const struct pw_lineage_series *c)
{
	if (!c->signer && !s->signer)
		return true;
	return s->dkim && same_text(s->signer, c->signer) &&
	       same_text(s->from_addr, c->signer);
}

enum pw_lineage_how pw_lineage_evidence(const struct pw_lineage_series *s,
				       const struct pw_lineage_series *c)
{
	bool same_sender = same_text(s->from_addr, c->from_addr);

	/* Only an earlier version: a later one follows s, not the other
	 * way round (it is linked when it arrives). */
	if (c->id == s->id || !pw_lineage_before(c, s) || !may_join(s, c))
		return PW_LINEAGE_NONE;
	if (same_text(s->change_id, c->change_id))
		return PW_LINEAGE_CHANGE_ID;
	if (c->linked)
		return PW_LINEAGE_LINK;
	if (c->same_diff && same_sender && s->total <= 1 && c->total <= 1)
		return PW_LINEAGE_COPY;
	/* A patch threaded under another of its posting is no new version. */
	if (c->replied && same_sender && c->version < s->version)
		return PW_LINEAGE_REPLY;
	if (c->same_subject || (same_sender && same_text(s->name, c->name)))
		return PW_LINEAGE_SUBJECT;
	return PW_LINEAGE_NONE;
}

enum pw_lineage_how pw_lineage_follows(const struct pw_lineage_series *s,
				       const struct pw_lineage_series *c)
{
	struct pw_lineage_series later = *c, earlier = *s;

	if (!may_join(s, c))
		return PW_LINEAGE_NONE;
	/* s's clues named c; which of them hold the other way round;
	 * may_join() was asked of s and c as they are. */
	later.signer = NULL;
	earlier.signer = NULL;
	later.replied = later.linked = false;
	later.same_subject = later.same_diff = false;
	earlier.replied = earlier.linked = false;
	earlier.same_subject = c->same_subject;
	earlier.same_diff = c->same_diff;
	return pw_lineage_evidence(&later, &earlier);
}

int pw_lineage_pick(const struct pw_lineage_series *s,
		    const struct pw_lineage_series *cand, size_t n,
		    enum pw_lineage_how *how)
{
	int best = -1;
	size_t i;

	*how = PW_LINEAGE_NONE;
	for (i = 0; i < n; i++) {
		const struct pw_lineage_series *c = &cand[i];
		enum pw_lineage_how h = pw_lineage_evidence(s, c);

		if (h == PW_LINEAGE_NONE)
			continue;
		if (best < 0 || h < *how ||
		    (h == *how && pw_lineage_before(&cand[best], c))) {
			best = (int)i;
			*how = h;
		}
	}
	return best;
}

/* Shorter keys say too little ("fix typo", "update documentation");
 * a whole subject keeps its prefixes, which say little more. */
#define KEY_MIN 20
#define WHOLE_KEY_MIN 30

/* norm without ( ) : / , and with one space between its words. */
static char *flat(const char *norm)
{
	GString *o = g_string_new(NULL);
	const char *p;

	for (p = norm; *p; p++) {
		char c = strchr("():/,", *p) ? ' ' : *p;

		if (c == ' ' && (!o->len || o->str[o->len - 1] == ' '))
			continue;
		g_string_append_c(o, c);
	}
	if (o->len && o->str[o->len - 1] == ' ')
		g_string_truncate(o, o->len - 1);
	return g_string_free(o, FALSE);
}

char **pw_lineage_subject_keys(const char *subject)
{
	char *norm = pw_flood_subject_normalise(subject), *key, *p, *whole;
	GPtrArray *out = g_ptr_array_new();

	key = pw_flood_subject_strip_subsystem(norm);
	/* "(pmbus) add driver", "(asus-ec-sensors) add", "hwmon (x):". */
	for (p = key; *p == '(' && strchr(p, ')');) {
		p = strchr(p, ')') + 1;
		while (*p == ' ' || *p == ':')
			p++;
	}
	if (strlen(p) >= KEY_MIN)
		g_ptr_array_add(out, g_strdup(p));
	whole = flat(norm);
	if (strlen(whole) >= WHOLE_KEY_MIN &&
	    (!out->len || strcmp(whole, out->pdata[0])))
		g_ptr_array_add(out, whole);
	else
		g_free(whole);
	g_free(key);
	g_free(norm);
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

/* The lines of len bytes of text: a new array (g_strfreev). */
static char **lines_of(const char *text, size_t len)
{
	char *t = g_strndup(text ? text : "", text ? len : 0);
	char **lines = g_strsplit(t, "\n", -1);

	g_free(t);
	return lines;
}

char *pw_lineage_change_id(const char *text, size_t len)
{
	char **lines = lines_of(text, len), *id = NULL;
	size_t i;

	for (i = 0; lines[i] && !id; i++) {
		const char *l = lines[i];

		if (g_ascii_strncasecmp(l, "change-id:", 10))
			continue;
		id = g_strstrip(g_strdup(l + 10));
		/* One token, as b4 writes it: "20240101-topic-0123abcd". */
		if (!*id || strpbrk(id, " \t")) {
			g_free(id);
			id = NULL;
		}
	}
	g_strfreev(lines);
	return id;
}

/* Whether line names a version ("v1", "V2") before position end. */
static bool names_version(const char *line, const char *end)
{
	const char *p;

	for (p = line; p + 1 < end; p++)
		if ((*p == 'v' || *p == 'V') && g_ascii_isdigit(p[1]) &&
		    (p == line || !g_ascii_isalnum(p[-1])))
			return true;
	return false;
}

/* Where the Message-ID of a link to an archive of mail starts, or NULL. */
static const char *archive_msgid(const char *url)
{
	static const char *const hosts[] = {
		"https://lore.kernel.org/", "http://lore.kernel.org/",
		"https://lkml.kernel.org/", "https://patch.msgid.link/",
	};
	const char *p = NULL, *slash;
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(hosts) && !p; i++)
		if (g_str_has_prefix(url, hosts[i]))
			p = url + strlen(hosts[i]);
	if (!p)
		return NULL;
	/* lore.kernel.org/LIST/ID, /all/ID, /r/ID; patch.msgid.link/ID. */
	slash = strchr(p, '/');
	if (slash && !memchr(p, '@', (size_t)(slash - p)))
		p = slash + 1;
	return strchr(p, '@') || strstr(p, "%40") ? p : NULL;
}

/* The Message-ID at p, up to the end of the link: a new string or NULL. */
static char *msgid_at(const char *p)
{
	size_t n = strcspn(p, " \t/>)]");
	char *raw = g_strndup(p, n), *id;

	id = g_uri_unescape_string(raw, NULL);
	g_free(raw);
	if (id && (!*id || !strchr(id, '@'))) {
		g_free(id);
		id = NULL;
	}
	return id;
}

char **pw_lineage_links(const char *text, size_t len)
{
	char **lines = lines_of(text, len);
	GPtrArray *out = g_ptr_array_new();
	size_t i;

	for (i = 0; lines[i]; i++) {
		const char *url = strstr(lines[i], "http");
		const char *at;
		char *id;

		if (!url || lines[i][0] == '>' || !names_version(lines[i], url))
			continue;
		at = archive_msgid(url);
		if (at && (id = msgid_at(at)))
			g_ptr_array_add(out, id);
	}
	g_strfreev(lines);
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sorted copy of the NULL-terminated keys (strings borrowed). */
static GPtrArray *sorted(char *const *keys)
{
	GPtrArray *a = g_ptr_array_new();
	size_t i;

	for (i = 0; keys && keys[i]; i++)
		g_ptr_array_add(a, keys[i]);
	g_ptr_array_sort(a, cmp_str);
	return a;
}

void pw_lineage_compare(char *const *prev, char *const *cur, int *fixed,
			int *kept, int *added)
{
	GPtrArray *a = sorted(prev), *b = sorted(cur);
	guint i = 0, j = 0;

	*fixed = *kept = *added = 0;
	while (i < a->len || j < b->len) {
		int c = i >= a->len ? 1 : j >= b->len ? -1 :
			strcmp(a->pdata[i], b->pdata[j]);

		if (c < 0) {
			(*fixed)++;
			i++;
		} else if (c > 0) {
			(*added)++;
			j++;
		} else {
			(*kept)++;
			i++;
			j++;
		}
	}
	g_ptr_array_unref(a);
	g_ptr_array_unref(b);
}

static const char *const state_names[] = {
	[PW_STATE_NEW] = "new",
	[PW_STATE_SUPERSEDED] = "superseded",
	[PW_STATE_REJECTED] = "rejected",
	[PW_STATE_APPLIED] = "applied",
};

const char *pw_patch_state_name(enum pw_patch_state st)
{
	return (size_t)st < G_N_ELEMENTS(state_names) ? state_names[st] : "new";
}

bool pw_patch_state_parse(const char *name, enum pw_patch_state *st)
{
	size_t i;

	for (i = 0; name && i < G_N_ELEMENTS(state_names); i++)
		if (!strcmp(name, state_names[i])) {
			*st = (enum pw_patch_state)i;
			return true;
		}
	return false;
}

enum pw_patch_state pw_patch_state_merge(enum pw_patch_state now,
					 enum pw_patch_state event)
{
	return event > now ? event : now;
}

/* Words that may come before the one that decides ("Series applied",
 * "Thanks, applied", "I have dropped this patch"). */
static bool filler(const char *w)
{
	static const char *const words[] = {
		"series", "patch", "patches", "both", "all", "thanks", "thank",
		"you", "and", "now", "i", "i've", "have", "also", "whole",
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(words); i++)
		if (!strcmp(w, words[i]))
			return true;
	return false;
}

/* The verdict of one sentence (lower-cased). */
static enum pw_reply_verdict sentence_verdict(const char *s)
{
	static const struct {
		const char *word;
		enum pw_reply_verdict v;
	} words[] = {
		{ "applied", PW_VERDICT_APPLIED },
		{ "queued", PW_VERDICT_APPLIED },
		{ "nak", PW_VERDICT_REJECTED },
		{ "nack", PW_VERDICT_REJECTED },
		{ "nacked-by", PW_VERDICT_REJECTED },
		{ "rejected", PW_VERDICT_REJECTED },
		{ "dropped", PW_VERDICT_DROPPED },
		{ "reverted", PW_VERDICT_DROPPED },
	};
	enum pw_reply_verdict v = PW_VERDICT_NONE;
	const char *p = s;
	/* Words that lead only to "does not apply" ("Actually, no, the
	 * patch did not apply"): "It applied cleanly" is no verdict. */
	static const char *const lead[] = {
		"actually", "no", "the", "this", "it", "does", "did",
	};
	bool neg = false, led = false;
	char w[16];

	/* "I am not going to apply this patch": the maintainer's no. */
	if (strstr(s, "not going to apply"))
		return PW_VERDICT_REJECTED;
	for (;;) {
		size_t n = 0, i;

		while (*p && !g_ascii_isalnum(*p))
			p++;
		while (*p && (g_ascii_isalnum(*p) || *p == '-' || *p == '\'')) {
			if (n + 1 < sizeof(w))
				w[n++] = *p;
			p++;
		}
		w[n] = '\0';
		if (!n)
			return v;
		/* "Not applied", "the patch did not apply", "this
		 * doesn't apply to hwmon-next": applied no more.  Only
		 * at the head of the sentence, as every verdict: "the
		 * same concern doesn't apply to foo()" decides nothing. */
		if (!strcmp(w, "not") || !strcmp(w, "doesn't") ||
		    !strcmp(w, "didn't") || !strcmp(w, "don't")) {
			neg = true;
			continue;
		}
		if (!strcmp(w, "apply") || !strcmp(w, "applied")) {
			if (neg)
				return PW_VERDICT_DROPPED;
			if (!strcmp(w, "apply"))
				return v;
		}
		for (i = 0; !neg && !led && i < G_N_ELEMENTS(words); i++)
			if (!strcmp(w, words[i].word))
				return words[i].v;
		for (i = 0; i < G_N_ELEMENTS(lead) && strcmp(w, lead[i]); i++)
			;
		if (i < G_N_ELEMENTS(lead))
			led = true;
		else if (!filler(w))
			return v;
	}
}

/* Whether line holds only white space. */
static bool blank(const char *line)
{
	while (g_ascii_isspace(*line))
		line++;
	return !*line;
}

/* The verdict of the first sentence of text (lower-cased, changed) that has one. */
static enum pw_reply_verdict first_verdict(char *text)
{
	enum pw_reply_verdict v = PW_VERDICT_NONE;
	char *p, *end;
	char c;

	for (p = text; *p && v == PW_VERDICT_NONE; p = c ? end + 1 : end) {
		end = p + strcspn(p, ".!?;");
		c = *end;
		*end = '\0';
		v = sentence_verdict(p);
	}
	return v;
}

enum pw_reply_verdict pw_reply_verdict(const char *text)
{
	char **lines = lines_of(text, text ? strlen(text) : 0);
	GString *para = g_string_new(NULL);
	enum pw_reply_verdict v;
	char *low;
	size_t i;

	for (i = 0; lines[i]; i++) {
		const char *l = lines[i];

		if (!strcmp(l, "-- ") || !strcmp(l, "--"))
			break;
		if (l[0] == '>')
			continue;
		g_string_append_c(para, ' ');
		g_string_append(para, l);
		/* A blank line ends a sentence as a full stop does. */
		if (blank(l))
			g_string_append_c(para, '.');
	}
	low = g_ascii_strdown(para->str, -1);
	v = first_verdict(low);
	g_free(low);
	g_string_free(para, TRUE);
	g_strfreev(lines);
	return v;
}
