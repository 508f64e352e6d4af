/*
 * patchwarden: what the users of libcurl share (see bot/curl.h).
 */
#include <glib.h>

#include "bot/curl.h"

void pw_curl_init(void)
{
	static gsize once;

	if (g_once_init_enter(&once)) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		g_once_init_leave(&once, 1);
	}
}

bool pw_curl_config_error(CURLcode rc)
{
	switch (rc) {
	case CURLE_LOGIN_DENIED:
	case CURLE_AUTH_ERROR:
	case CURLE_USE_SSL_FAILED:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_NOT_BUILT_IN:
	case CURLE_REMOTE_ACCESS_DENIED:
		return true;
	default:
		return false;
	}
}
