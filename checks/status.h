/*
 * patchwarden: the one status type every layer returns.
 *
 * Permanent input errors are never retried; transient ones (network,
 * lock, timeout) are.  Foreign codes (errno, GError, libgit2, CURLcode,
 * SQLite) are translated to these at the one file that wraps the library.
 */
#ifndef PW_STATUS_H
#define PW_STATUS_H

enum pw_status {
	PW_OK = 0,
	PW_ERR_INPUT,		/* bad input: permanent, report and go on */
	PW_ERR_USAGE,		/* bad command line or configuration */
	PW_ERR_IO,		/* a file could not be read or written */
	PW_ERR_DB,		/* the database refused: permanent */
	PW_ERR_TRANSIENT,	/* network, lock, timeout: retry later */
	PW_ERR_PERMANENT,	/* a peer refused for good (SMTP 5xx) */
	PW_ERR_NOMEM,
};

/* A short English name for the status, for logs.  Never NULL. */
const char *pw_status_str(enum pw_status st);

#endif
