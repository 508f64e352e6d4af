/*
 * patchwarden: a patch's life at ingest (see bot/state.h).
 */
#include <string.h>

#include "bot/dkim.h"
#include "bot/log.h"
#include "bot/mail.h"
#include "bot/mailcmd.h"
#include "bot/state.h"
#include "checks/identity.h"
#include "checks/lineage.h"
#include "checks/maintainers.h"
#include "db/identity.h"
#include "db/lineage.h"

enum pw_status pw_state_lineage(struct pw_db *db, const struct pw_mail *m,
				const char *raw, size_t len,
				int64_t series_id, int64_t patch_id,
				const char *pid)
{
	/* A lone patch posted for its author (in-body From) is found by
	 * the author's earlier subjects too; a series carrying another's
	 * patch is not that other's work. */
	bool lone = m->kind == PW_MAIL_PATCH && m->tags.total <= 1;
	struct pw_lineage_clues k = { .sender = pw_mail_poster_addr(m),
				      .dkim = m->auth == PW_AUTH_DKIM,
				      .in_reply_to = m->in_reply_to,
				      .references = m->references };
	char *change_id = NULL, **links = NULL;
	enum pw_status s = PW_OK;
	bool signs = false;

	/* A machine's backport (a stable AUTOSEL) is no version of the
	 * work it copies; mail in the name of a sender who signs, without
	 * the signature, is no version of theirs (checks/identity.h):
	 * linked, it would supersede their patch and take it out of the
	 * queue. */
	if (m->automated || m->auth == PW_AUTH_LOOKALIKE)
		return PW_OK;
	/* Nor does an in-body From: (a line anyone writes) make the mail a
	 * version of an author who signs, unless signed for that author's
	 * domain (checks/identity.h), as a reply copies no such author. */
	if (lone && m->sender_addr && m->from_addr) {
		s = pw_db_identity_signs(db, m->from_addr, &signs);
		if (s)
			return s;
		if (!signs || pw_identity_author_ok(m->auth, k.sender,
						    m->from_addr, signs))
			k.author = m->from_addr;
	}
	/* Most mail has neither: a look before the lines are split. */
	if (g_strstr_len(raw, (gssize)len, "change-id:"))
		k.change_id = change_id = pw_lineage_change_id(raw, len);
	if (g_strstr_len(raw, (gssize)len, "lore.kernel.org/") ||
	    g_strstr_len(raw, (gssize)len, "patch.msgid.link/"))
		k.links = links = pw_lineage_links(raw, len);
	k.subject_keys = pw_lineage_subject_keys(m->subject);
	k.pid = patch_id ? pid : NULL;
	if (patch_id && pid && *pid)
		s = pw_db_patch_pid_add(db, patch_id, pid);
	if (!s && series_id)
		s = pw_db_lineage_link(db, series_id, &k);
	g_strfreev(k.subject_keys);
	g_free(change_id);
	g_strfreev(links);
	return s;
}

/* Whether raw (len bytes) has a word a verdict needs (checks/lineage.h), in any case. */
static bool mentions(const char *raw, size_t len)
{
	static const char *const words[] = {
		"appl", "queued", "nak", "nack", "rejected", "dropped",
		"reverted",
	};
	char *low = g_ascii_strdown(raw, (gssize)len);
	bool any = false;
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(words) && !any; i++)
		any = strstr(low, words[i]) != NULL;
	g_free(low);
	return any;
}

/* Whether poster maintains list name by its address or for every file. */
static bool maintains(const struct pw_config *cfg, const char *name,
		      const char *poster, char *const *files)
{
	const struct pw_list_conf *l = pw_config_list(cfg, name);
	size_t i;

	if (pw_config_list_maintainer(l, poster))
		return true;
	if (!l->maintainers || !files || !files[0])
		return false;
	for (i = 0; files[i]; i++)
		if (!pw_maintainers_is_maintainer(l->maintainers, files[i],
						  poster))
			return false;
	return true;
}

/*
 * Whether poster may decide about the patch of stored message
 * message_id: for the list the reply was on, or the patch's.
 */
static enum pw_status may_decide(struct pw_db *db, const struct pw_config *cfg,
				 int64_t message_id, const char *poster,
				 const char *list, bool *may)
{
	char *patch_list = NULL, **files = NULL;
	enum pw_status s;

	*may = false;
	s = pw_db_message_list(db, message_id, &patch_list);
	if (s)
		return s;
	s = pw_mailcmd_patched_files(db, message_id, &files);
	if (!s)
		*may = (list && maintains(cfg, list, poster, files)) ||
		       (patch_list && maintains(cfg, patch_list, poster, files));
	g_strfreev(files);
	g_free(patch_list);
	return s;
}

/* Makes verdict v of reply message_id the state of patch_id. */
static enum pw_status decide(struct pw_db *db, int64_t patch_id,
			     enum pw_reply_verdict v, int64_t message_id,
			     int64_t date, bool *changed)
{
	struct pw_state_cause why = { .by_message = message_id, .at = date };

	if (v == PW_VERDICT_DROPPED)
		return pw_db_patch_state_reopen(db, patch_id, changed);
	return pw_db_patch_state_set(db, patch_id,
				     v == PW_VERDICT_APPLIED ? PW_STATE_APPLIED :
				     PW_STATE_REJECTED, &why, changed);
}

/*
 * Whether a verdict m (raw, len bytes) that was not judged at ingest
 * may be its poster's word: *ok unless the poster's address or domain
 * signs and its DKIM signature does not verify.  Mail read while
 * backfilling is not judged (bot/ingest.c); its few verdicts that
 * found a patch are verified here, which keeps a backfill fast.  Live
 * mail judged PW_AUTH_NONE is from a sender who does not sign: nothing
 * is verified.
 */
static enum pw_status vouched(struct pw_db *db, const struct pw_config *cfg,
			      const struct pw_mail *m, const char *raw,
			      size_t len, bool *ok)
{
	const char *poster = pw_mail_poster_addr(m);
	bool signs;
	enum pw_status s = pw_db_identity_signs(db, poster, &signs);

	*ok = !s && (!signs ||
		     pw_dkim_verify(raw, len, pw_identity_domain(poster), NULL,
				    cfg->dkim_keys, NULL) == PW_DKIM_PASS);
	if (!s && !*ok)
		pw_debug("<%s>: a verdict in the name of %s, who signs, without"
			 " a valid signature: not a decision", m->msgid, poster);
	return s;
}

enum pw_status pw_state_reply(struct pw_db *db, const struct pw_config *cfg,
			      const struct pw_mail *m, int64_t message_id,
			      const char *raw, size_t len, const char *list,
			      bool *decided)
{
	GArray *targets = NULL;
	struct pw_mail *full = NULL;
	const char *poster = pw_mail_poster_addr(m);
	enum pw_reply_verdict v;
	enum pw_status s = PW_OK;
	guint i, n;

	*decided = false;
	if (!m->in_reply_to || !*poster || m->automated || !mentions(raw, len))
		return PW_OK;
	/* "Applied" in the name of a maintainer whose mail is signed,
	 * without the signature, is not the maintainer's word
	 * (checks/identity.h): it would take a patch out of the queue. */
	if (m->auth == PW_AUTH_LOOKALIKE) {
		pw_debug("<%s>: unsigned mail in the name of %s, who signs:"
			 " not a decision", m->msgid, poster);
		return PW_OK;
	}
	targets = g_array_new(FALSE, FALSE, sizeof(struct pw_db_patch_ref));
	s = pw_db_lineage_replied(db, m->in_reply_to, targets);
	/* Else the nearest patch up the thread: "Actually, no, the patch
	 * did not apply" answers the maintainer's own "Applied". */
	for (n = m->references ? g_strv_length(m->references) : 0;
	     !s && !targets->len && n > 0; n--)
		s = pw_db_lineage_replied(db, m->references[n - 1], targets);
	if (s || !targets->len)
		goto out;
	/* Ingest reads a reply's header only: its text is read here. */
	if (pw_mail_parse(raw, len, &full, NULL))
		goto out;
	v = pw_reply_verdict(full->commit_msg);
	if (v != PW_VERDICT_NONE && m->auth == PW_AUTH_NONE) {
		bool ok;

		s = vouched(db, cfg, m, raw, len, &ok);
		if (s || !ok)
			goto out;
	}
	for (i = 0; v != PW_VERDICT_NONE && !s && i < targets->len; i++) {
		const struct pw_db_patch_ref *t =
			&g_array_index(targets, struct pw_db_patch_ref, i);
		bool may, changed = false;

		s = may_decide(db, cfg, t->message_id, poster, list, &may);
		if (!s && !may) {
			pw_debug("<%s>: %s is no maintainer of <%s>'s list or"
				 " files: not a decision", m->msgid, poster,
				 m->in_reply_to);
			continue;
		}
		if (!s)
			s = decide(db, t->patch_id, v, message_id, m->date,
				   &changed);
		*decided |= changed;
	}
out:
	pw_mail_free(full);
	if (targets)
		g_array_unref(targets);
	return s;
}
