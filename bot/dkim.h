/*
 * patchwarden: DKIM verification (RFC 6376) of a raw message, through
 * libopendkim, the one file that speaks to it.
 */
#ifndef PW_DKIM_H
#define PW_DKIM_H

#include <stddef.h>

enum pw_dkim_result {
	PW_DKIM_NONE,	/* the message carries no DKIM-Signature */
	PW_DKIM_PASS,	/* a signature aligned with the domain verifies */
	PW_DKIM_FAIL,	/* it carries signatures, and none of them does */
};

/*
 * Verifies the DKIM signatures of the raw message raw (len bytes; a
 * leading mbox "From " line is skipped; LF or CRLF line ends) for
 * domain, the domain of its From address: PW_DKIM_PASS when one
 * signature verifies whose d= is domain or a parent of it no shorter
 * than its organisational domain (the public-suffix list: "net" signs
 * for no one), that signs the From header and each header named in
 * must_sign (lower case, NULL-terminated; may be NULL), and whose l=,
 * if any, covers the whole canonical body.
 * Keys come from DNS, or, when keys_file is not NULL, from that file
 * (libopendkim's DKIM_QUERY_FILE: one "SELECTOR._domainkey.DOMAIN
 * RECORD" line each), for tests and closed networks.  *why (may be
 * NULL) receives a new string saying what failed, for PW_DKIM_FAIL.
 */
enum pw_dkim_result pw_dkim_verify(const char *raw, size_t len,
				   const char *domain,
				   const char *const *must_sign,
				   const char *keys_file, char **why);

#endif
