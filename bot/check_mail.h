/*
 * patchwarden: the rules run over every patch of a mail file, mbox or
 * Maildir, for "check" (bot/cmd_check.c) and the dashboard's
 * /api/check (bot/web_post.c): one loop, so that both read the same
 * input alike and tell only what they do with each patch apart.
 */
#ifndef PW_CHECK_MAIL_H
#define PW_CHECK_MAIL_H

#include <stdbool.h>
#include <glib.h>

#include "bot/mail.h"
#include "bot/source.h"
#include "checks/rules.h"

/* What the caller does with what the loop finds; ctx is passed back. */
struct pw_check_visit {
	void *ctx;
	/*
	 * Every message read whole, patch or not, in file order (may be
	 * NULL).  raw is borrowed for the call.
	 */
	void (*message)(void *ctx, const struct pw_raw *raw);
	/*
	 * A message with a diff, checked: raw and m are borrowed for the
	 * call; patch (pw_patch_free) and findings (g_ptr_array_unref, each
	 * freed with it) are handed over.
	 */
	void (*patch)(void *ctx, const struct pw_raw *raw,
		      const struct pw_mail *m, struct pw_patch *patch,
		      GPtrArray *findings);
	/*
	 * A message that could not be read (ended false: the loop goes
	 * on), or a source that broke off (ended true: the loop stops).
	 * where names the message, or is NULL for the source itself; why
	 * is never NULL.  Both are borrowed for the call.
	 */
	void (*unreadable)(void *ctx, const char *where, const char *why,
			   bool ended);
	/*
	 * Asked before each message is read (may be NULL): false stops
	 * the loop there, as the end of the source would.
	 */
	bool (*go_on)(void *ctx);
};

/*
 * Reads every message of the mail file, mbox or Maildir at path and runs
 * the rules of o on the diff of each, telling v.  Returns PW_OK once
 * the source was opened (its read errors go to v), with the number of
 * patches checked in *patches; or the status of a source that cannot be
 * opened, with a new message in *err (g_free).
 */
enum pw_status pw_check_mail(const char *path, const struct pw_check_opts *o,
			     const struct pw_check_visit *v, int *patches,
			     char **err);

#endif
