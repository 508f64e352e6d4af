/*
 * patchwarden: the message model's own operations (checks/message.h):
 * its kind, its place in a thread, the naked-cover rule and the UTF-8
 * helpers every reader of mail text uses.
 */
#include <string.h>

#include "checks/message.h"


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

enum pw_mail_kind pw_mail_classify(const struct pw_mail *m)
{
	if (m->tags.is_reply)
		return PW_MAIL_COMMENT;
	if (m->pull_url)
		return PW_MAIL_PULL;
	if (m->tags.has_counter && m->tags.number == 0)
		return PW_MAIL_COVER;
	if (m->diff)
		return PW_MAIL_PATCH;
	if (pw_mail_is_threaded(m))
		return PW_MAIL_COMMENT;
	return PW_MAIL_OTHER;
}

bool pw_mail_is_threaded(const struct pw_mail *m)
{
	return m->in_reply_to || (m->references && m->references[0]);
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
