/*
 * patchwarden: what the users of libcurl share (SMTP replies, IMAP
 * subscriptions, public-inbox manifests and probes).
 */
#ifndef PW_CURL_H
#define PW_CURL_H

#include <stdbool.h>
#include <curl/curl.h>

/* curl_global_init(), once for the process, whichever thread asks. */
void pw_curl_init(void);

/*
 * Whether a transfer's failure is one only a change of the
 * configuration can cure: a refused login, an untrusted certificate,
 * TLS that cannot be had, a URL libcurl cannot use.
 */
bool pw_curl_config_error(CURLcode rc);

#endif
