/*
 * patchwarden: one stored patch checked again (see bot/recheck.h).  The
 * steps are those of the ingest pipeline's parser threads
 * (bot/ingest.c, process()), its rules part: parsed as ingest parses,
 * checked under the list's settings, the added lines quoted with the
 * findings.
 */
#include <string.h>

#include "bot/log.h"
#include "bot/mail.h"
#include "bot/pubinbox.h"
#include "bot/recheck.h"
#include "checks/rules.h"

enum pw_status pw_recheck_patch(struct pw_db *db, const struct pw_config *cfg,
				int64_t patch_id, int64_t message_id,
				int64_t *findings)
{
	struct pw_check_opts co;
	struct pw_mail *m = NULL;
	struct pw_patch *p;
	GPtrArray *fs;
	GBytes *raw = NULL;
	char *list = NULL, *err = NULL;
	enum pw_status s;
	gsize n;
	const char *b;

	*findings = 0;
	pw_mail_init();
	s = pw_pubinbox_message(db, message_id, &raw);
	if (s || !raw)
		goto out;
	s = pw_db_message_list(db, message_id, &list);
	if (s)
		goto out;
	b = g_bytes_get_data(raw, &n);
	if (pw_mail_parse_flags(b, n, PW_MAIL_REPLY_HEADERS_ONLY, &m, &err)) {
		pw_warn("message %" G_GINT64_FORMAT ": %s", message_id, err);
		goto out;
	}
	if (m->kind != PW_MAIL_PATCH || !m->diff) {
		pw_warn("message %" G_GINT64_FORMAT ": no longer read as a patch;"
			" its findings are kept", message_id);
		goto out;
	}
	/* The list it was filed under: its List-Id was trusted, or not,
	 * when it came (bot/ingest.c). */
	pw_config_check_opts(cfg, list, &co);
	fs = g_ptr_array_new_with_free_func((GDestroyNotify)pw_finding_free);
	p = pw_mail_diff(m);
	pw_check_patch(p, &co, fs);
	pw_patch_quote_findings(p, fs);
	pw_patch_free(p);
	s = pw_db_findings_set(db, patch_id, fs);
	*findings = fs->len;
	g_ptr_array_free(fs, TRUE);
out:
	pw_mail_free(m);
	g_free(list);
	g_free(err);
	if (raw)
		g_bytes_unref(raw);
	return s;
}
