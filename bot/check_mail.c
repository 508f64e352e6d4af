/*
 * patchwarden: the rules run over every patch of a mail source (see
 * bot/check_mail.h).
 */
#include <string.h>

#include "bot/check_mail.h"

enum pw_status pw_check_mail(const char *path, const struct pw_check_opts *o,
			     const struct pw_check_visit *v, int *patches,
			     char **err)
{
	struct pw_source *src = NULL;
	enum pw_status st;

	*patches = 0;
	pw_mail_init();
	st = pw_source_open(path, &src, err);
	if (st != PW_OK)
		return st;
	for (;;) {
		struct pw_raw raw = { 0 };
		struct pw_mail *m = NULL;
		char *why = NULL;

		if (v->go_on && !v->go_on(v->ctx))
			break;
		st = pw_source_next(src, &raw, &why);
		if (st == PW_ERR_INPUT) {
			v->unreadable(v->ctx, raw.where,
				      why ? why : "unreadable message", false);
			g_free(why);
			continue;
		}
		if (st != PW_OK) {
			v->unreadable(v->ctx, NULL, why ? why : pw_status_str(st),
				      true);
			g_free(why);
			break;
		}
		if (!raw.data)
			break;
		if (pw_mail_parse(raw.data, raw.len, &m, &why) != PW_OK) {
			v->unreadable(v->ctx, raw.where,
				      why ? why : "unreadable message", false);
			g_free(why);
			continue;
		}
		if (v->message)
			v->message(v->ctx, &raw);
		if (m->diff) {
			GPtrArray *fs = g_ptr_array_new_with_free_func(
				(GDestroyNotify)pw_finding_free);
			struct pw_patch *patch = pw_mail_diff(m);

			pw_check_patch(patch, o, fs);

			v->patch(v->ctx, &raw, m, patch, fs);
			(*patches)++;
		}
		pw_mail_free(m);
	}
	pw_source_free(src);
	return PW_OK;
}
