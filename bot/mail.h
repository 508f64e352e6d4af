/*
 * patchwarden: one mail message, parsed with GMime into plain data.
 *
 * The message model itself (struct pw_mail) is pure and lives in
 * checks/message.h; this header fills it from raw bytes with GMime, and
 * GMime objects never leave bot/mail.c.
 */
#ifndef PW_MAIL_H
#define PW_MAIL_H

#include <stddef.h>
#include <stdbool.h>
#include <glib.h>

#include "checks/status.h"
#include "checks/message.h"

/*
 * Parses one raw RFC 5322 message (a leading mbox "From " line is
 * tolerated).  raw need not be NUL-terminated and may hold any bytes.
 * On success *out is a new pw_mail to free with pw_mail_free().  On a
 * message that cannot be read at all, returns PW_ERR_INPUT and, when
 * err is not NULL, a newly allocated reason in *err.
 */
enum pw_status pw_mail_parse(const char *raw, size_t len,
			     struct pw_mail **out, char **err);

/*
 * How every reason ends that pw_mail_parse() gives for a message it
 * refuses unread: a MIME structure deeper, or with more parts or header
 * fields, than it reads (hostile, never real mail).
 */
#define PW_MAIL_REFUSED ": refused unread"

/* Calls g_mime_init() once; safe to call from several places. */
void pw_mail_init(void);

enum pw_mail_parse_flags {
	/* A reply (Re:) is a comment whatever its body holds: read only
	 * its header block, leaving commit_msg empty and diff NULL.  What
	 * ingest uses; more than half of list traffic is replies. */
	PW_MAIL_REPLY_HEADERS_ONLY = 1 << 0,
};

/* pw_mail_parse() with flags (enum pw_mail_parse_flags). */
enum pw_status pw_mail_parse_flags(const char *raw, size_t len, unsigned flags,
				   struct pw_mail **out, char **err);

#endif
