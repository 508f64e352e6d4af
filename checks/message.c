/*
 * patchwarden: the message model's own operations (checks/message.h):
 * its kind, its place in a thread, the naked-cover rule and the UTF-8
 * helpers every reader of mail text uses.
 */
#include <string.h>

#include "checks/message.h"
#include "checks/patch.h"


const char *pw_mail_kind_str(enum pw_mail_kind k)
{
	switch (k) {
	case PW_MAIL_PATCH: return "patch";
	case PW_MAIL_COVER: return "cover";
	case PW_MAIL_COMMENT: return "comment";
	case PW_MAIL_PULL: return "pull";
	case PW_MAIL_OTHER: return "other";
	}
	return "other";
}

/* Whether text holds a quoted line (one starting with ">"). */
static bool has_quote(const char *text)
{
	const char *p = text;

	while (p && *p) {
		if (*p == '>')
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/* Whether the subject's text starts with the word PATCH ("PATCH:
 * hwmon: ...", "PATCH hwmon: ..."), a marker without brackets. */
static bool patch_word(const char *subject)
{
	const char *t;

	if (!subject)
		return false;
	t = pw_subject_skip(subject, NULL, NULL, NULL);
	return !g_ascii_strncasecmp(t, "PATCH", 5) && !g_ascii_isalnum(t[5]);
}

bool pw_mail_is_discussion(const struct pw_mail *m)
{
	if (!m->diff || m->tags.patch_tag || m->tags.rfc || m->tags.has_counter ||
	    patch_word(m->subject))
		return false;
	return m->diff_cut || has_quote(m->commit_msg);
}

enum pw_mail_kind pw_mail_classify(const struct pw_mail *m)
{
	if (m->tags.is_reply)
		return PW_MAIL_COMMENT;
	if (m->pull_url)
		return PW_MAIL_PULL;
	if (m->tags.has_counter && m->tags.number == 0)
		return PW_MAIL_COVER;
	if (m->diff && !pw_mail_is_discussion(m))
		return PW_MAIL_PATCH;
	if (pw_mail_is_threaded(m))
		return PW_MAIL_COMMENT;
	return PW_MAIL_OTHER;
}

bool pw_mail_is_threaded(const struct pw_mail *m)
{
	return m->in_reply_to || (m->references && m->references[0]);
}

const char *const pw_mail_automated_senders[] = {
	"mailer-daemon@*", "postmaster@*", "noreply@*", "no-reply@*",
	"donotreply@*", "do-not-reply@*", "*-bounces@*", "*-bounce@*",
	"*-owner@*", "*-request@*", "bugzilla-daemon@*",
	"lkp@intel.com",			/* kernel test robot */
	"syzbot@*", "syzbot+*",
	"patchwork@*",				/* Patchwork instances */
	"*-bot@kernel.org", "*-bot+*@kernel.org",	/* patchwork-bot+*,
					 * pr-tracker-bot, sashiko-bot */
	"bot@kernelci.org",
	NULL,
};

static bool match_any(const char *const *pats, const char *low)
{
	size_t i;
	bool hit = false;

	for (i = 0; pats && pats[i] && !hit; i++) {
		char *p = g_ascii_strdown(pats[i], -1);

		hit = *g_strstrip(p) && g_pattern_match_simple(p, low);
		g_free(p);
	}
	return hit;
}

bool pw_mail_sender_automated(const char *addr, const char *const *extra)
{
	char *low;
	bool hit;

	if (!addr || !*addr)
		return false;
	low = g_ascii_strdown(addr, -1);
	hit = match_any(pw_mail_automated_senders, low) || match_any(extra, low);
	g_free(low);
	return hit;
}

/* The value v without parameters or comments, trimmed, at most 64
 * bytes of it (a reason is short): a new string. */
static char *token(const char *v)
{
	size_t n = strcspn(v, ";(");
	char *t = g_strstrip(g_strndup(v, n < 64 ? n : 64));

	/* Cut inside a UTF-8 sequence: keep the valid part. */
	if (!g_utf8_validate(t, -1, NULL)) {
		const char *end;

		g_utf8_validate(t, -1, &end);
		t[end - t] = '\0';
	}
	return t;
}

/* Whether subject starts with prefix, case aside, after white space. */
static bool starts(const char *subject, const char *prefix)
{
	while (*subject == ' ' || *subject == '\t')
		subject++;
	return !g_ascii_strncasecmp(subject, prefix, strlen(prefix));
}

/*
 * The stable team's notices, by their subjects (the first words after
 * white space; a reply to one, "Re: ...", is a person's):
 * "[PATCH AUTOSEL 6.1 12/30] ...", "FAILED: patch "..." failed to apply
 * to 6.1-stable tree", "Patch "..." has been added to the 6.1-stable
 * tree", and the maintainers' trees' scripts alike: "patch "..." added
 * to staging-next" (greg's char-misc, staging, usb and tty trees).
 * NULL when subject is none of them.
 */
static const char *stable_notice(const char *subject)
{
	if (!subject)
		return NULL;
	if (starts(subject, "[PATCH AUTOSEL"))
		return "stable AUTOSEL notice";
	if (starts(subject, "FAILED: patch \"") &&
	    strstr(subject, "\" failed to apply to"))
		return "stable FAILED notice";
	if (starts(subject, "Patch \"") &&
	    strstr(subject, "\" has been added to the ") &&
	    strstr(subject, "tree"))
		return "stable tree notice";
	if (starts(subject, "patch \"") && strstr(subject, "\" added to "))
		return "tree notice (patch added)";
	return NULL;
}

/*
 * Who posts the stable trees' review and backport series: with another
 * author's commit under a stable tree's tag, a posting of theirs is the
 * stable scripts' (the older ones wrote no X-stable).  A person's own
 * backport to a stable tree, sent from their own address, is theirs.
 */
static const char *const stable_posters[] = {
	"gregkh@linuxfoundation.org", "sashal@kernel.org", NULL,
};

char *pw_mail_automated(const struct pw_mail_origin *o,
			const char *const *extra)
{
	const char *notice = stable_notice(o->subject);
	char *t, *why = NULL;

	if (o->auto_submitted) {
		t = token(o->auto_submitted);
		if (*t && g_ascii_strcasecmp(t, "no"))
			why = g_strdup_printf("Auto-Submitted: %s", t);
		g_free(t);
		if (why)
			return why;
	}
	if (notice)
		return g_strdup(notice);
	if (o->stable) {
		t = token(o->stable);
		why = g_strdup_printf("X-stable: %s", *t ? t : "(empty)");
		g_free(t);
		return why;
	}
	if (!o->is_reply && o->other_author && o->sender &&
	    match_any(stable_posters, o->sender) &&
	    pw_subject_stable_tags(o->prefixes))
		return g_strdup("stable review posting of another author's commit");
	if (o->patchwork_hint) {
		t = token(o->patchwork_hint);
		if (!g_ascii_strcasecmp(t, "ignore"))
			why = g_strdup("X-Patchwork-Hint: ignore");
		g_free(t);
		if (why)
			return why;
	}
	if (o->precedence) {
		t = g_ascii_strdown(o->precedence, -1);
		g_strstrip(t);
		if (!strcmp(t, "junk") ||
		    (!o->list_headers && (!strcmp(t, "bulk") || !strcmp(t, "list"))))
			why = g_strdup_printf("Precedence: %s", t);
		g_free(t);
		if (why)
			return why;
	}
	if (pw_mail_sender_automated(o->sender, extra))
		return g_strdup_printf("automated sender %s", o->sender);
	return NULL;
}

char *pw_mail_derive_msgid(const char *raw, size_t len)
{
	char *hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256,
						(const guchar *)raw, len);
	char *id = g_strdup_printf("%s@patchwarden.invalid", hex);

	g_free(hex);
	return id;
}

bool pw_mail_is_bare_root(const struct pw_mail *m)
{
	return m && m->kind == PW_MAIL_OTHER && !m->tags.is_reply &&
	       !pw_mail_is_threaded(m) && m->from_addr && *m->from_addr;
}

bool pw_mail_is_naked_cover(const struct pw_mail *root,
			    const struct pw_mail *patch)
{
	const char *parent;

	if (!pw_mail_is_bare_root(root) || !patch ||
	    patch->kind != PW_MAIL_PATCH ||
	    strcmp(pw_mail_poster_addr(root), pw_mail_poster_addr(patch)))
		return false;
	parent = patch->in_reply_to;
	if (!parent && patch->references && patch->references[0])
		parent = patch->references[0];
	return parent && !strcmp(parent, root->msgid);
}

void pw_mail_free(struct pw_mail *m)
{
	if (!m)
		return;
	g_free(m->msgid);
	g_free(m->from_name);
	g_free(m->from_addr);
	g_free(m->sender_name);
	g_free(m->sender_addr);
	g_free(m->subject);
	g_free(m->subject_clean);
	g_free(m->in_reply_to);
	g_strfreev(m->references);
	g_free(m->list_id);
	g_free(m->auto_submitted);
	g_free(m->automated);
	g_strfreev(m->recipients);
	pw_subject_tags_release(&m->tags);
	g_free(m->commit_msg);
	g_free(m->diff);
	g_free(m->diff_rest);
	g_free(m->pull_url);
	g_strfreev(m->warnings);
	g_free(m);
}

const char *pw_mail_poster_name(const struct pw_mail *m)
{
	return m->sender_addr ? m->sender_name : m->from_name;
}

const char *pw_mail_poster_addr(const struct pw_mail *m)
{
	return m->sender_addr ? m->sender_addr : m->from_addr;
}

struct pw_patch *pw_mail_diff(const struct pw_mail *m)
{
	/* The line the diff stops at: the first of what follows it. */
	const char *r = m->diff_rest;
	char *stop = r ? g_strndup(r, MIN(strcspn(r, "\n"),
					  (size_t)PW_DIFF_STOP_MAX)) : NULL;
	struct pw_diff_context ctx = { stop, m->diff_unflowed };
	struct pw_patch *p;

	p = pw_diff_parse_ctx(m->diff, strlen(m->diff), m->diff_cut ? &ctx : NULL);
	g_free(stop);
	return p;
}
