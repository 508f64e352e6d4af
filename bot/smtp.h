/*
 * patchwarden: sending mail through libcurl's SMTP client.  This is the
 * only file that speaks SMTP; CURLcode never leaves it.
 */
#ifndef PW_SMTP_H
#define PW_SMTP_H

#include <stddef.h>

#include "checks/status.h"

/* How to reach the server.  Strings are borrowed for the session's life. */
struct pw_smtp_opts {
	const char *url;	/* smtp://host[:port][/helo] or smtps://... */
	const char *user;	/* NULL: no AUTH */
	const char *password;
	const char *starttls;	/* "required", "try" or "no" (smtp:// only) */
	const char *helo;	/* EHLO name, NULL: the URL's path or curl's */
	const char *cainfo;	/* CA bundle file, NULL: the system's */
	int timeout;		/* whole transfer, seconds (connect: at most 30) */
};

/* The outcome of one SMTP transaction. */
struct pw_smtp_result {
	int code;		/* last SMTP reply code, 0 when none */
	char error[512];	/* why it failed, or which recipients refused */
};

struct pw_smtp;

/*
 * Prepares a session (no connection is made yet).  The connection is
 * opened on the first send and kept for the next ones.  Returns NULL only
 * when libcurl cannot be initialised.  Free with pw_smtp_free().
 */
struct pw_smtp *pw_smtp_new(const struct pw_smtp_opts *o);
void pw_smtp_free(struct pw_smtp *s);

/*
 * Sends one message: data (len bytes, CRLF line ends, not dot-stuffed)
 * from the envelope sender from to the NULL-terminated recipients.
 * Returns PW_OK when the server accepted it for at least one recipient
 * (refusals of other recipients are then described in res->error);
 * PW_ERR_TRANSIENT for network trouble and 4xx answers (try again later);
 * PW_ERR_PERMANENT for a 5xx answer about this message (never retry);
 * PW_ERR_USAGE when the configuration is wrong (login refused, TLS not
 * offered, certificate not trusted, sender refused): no message can go
 * out, so the caller should keep it and stop the batch.
 */
enum pw_status pw_smtp_send(struct pw_smtp *s, const char *from,
			    const char *const *rcpt, const void *data,
			    size_t len, struct pw_smtp_result *res);

#endif
