/*
 * patchwarden: DKIM verification through libopendkim (see bot/dkim.h).
 */
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>
#include <glib.h>
#include <opendkim/dkim.h>

#include "bot/dkim.h"

/* Whether signing domain d covers from (the same domain, or a parent). */
static bool aligned(const char *d, const char *from)
{
	size_t ld = strlen(d), lf = strlen(from);

	if (!g_ascii_strcasecmp(d, from))
		return true;
	return lf > ld + 1 && from[lf - ld - 1] == '.' &&
	       !g_ascii_strcasecmp(from + lf - ld, d);
}

/*
 * The message as it went over SMTP: every line ended by CRLF (a stored
 * message may have LF alone), without an mbox "From " line.
 */
static GString *wire_form(const char *raw, size_t len)
{
	GString *g = g_string_sized_new(len + len / 32 + 2);
	size_t i = 0;

	if (len >= 5 && !memcmp(raw, "From ", 5)) {
		const char *nl = memchr(raw, '\n', len);

		i = nl ? (size_t)(nl - raw) + 1 : len;
	}
	for (; i < len; i++) {
		if (raw[i] == '\n' && (i == 0 || raw[i - 1] != '\r'))
			g_string_append_c(g, '\r');
		g_string_append_c(g, raw[i]);
	}
	return g;
}

/*
 * Hands the header fields of the wire form w to the verifier, each
 * with its continuation lines and without its last CRLF, and returns
 * where the body starts (after the blank line).
 */
static size_t feed_headers(DKIM *dk, const GString *w, DKIM_STAT *st)
{
	const char *s = w->str;
	size_t pos = 0, start = 0, len = w->len;
	bool in_field = false;

	*st = DKIM_STAT_OK;
	while (pos < len) {
		const char *nl = g_strstr_len(s + pos, (gssize)(len - pos), "\r\n");
		size_t end = nl ? (size_t)(nl - s) : len;

		if (end == pos || (s[pos] != ' ' && s[pos] != '\t')) {
			if (in_field && *st == DKIM_STAT_OK)
				*st = dkim_header(dk, (u_char *)s + start,
						  pos - 2 - start);
			in_field = false;
			if (end == pos)		/* the blank line */
				return nl ? end + 2 : len;
			start = pos;
			in_field = true;
		}
		pos = nl ? end + 2 : len;
	}
	if (in_field && *st == DKIM_STAT_OK)
		*st = dkim_header(dk, (u_char *)s + start, len - start);
	return len;
}

enum pw_dkim_result pw_dkim_verify(const char *raw, size_t len,
				   const char *domain, const char *keys_file,
				   char **why)
{
	enum pw_dkim_result r = PW_DKIM_FAIL;
	DKIM_LIB *lib = dkim_init(NULL, NULL);
	DKIM_SIGINFO **sigs = NULL;
	DKIM *dk = NULL;
	DKIM_STAT st;
	GString *w = NULL, *seen = g_string_new(NULL);
	size_t body;
	int nsigs = 0, i;

	if (why)
		*why = NULL;
	if (!lib) {
		g_string_append(seen, "libopendkim could not start");
		goto out;
	}
	{
		/* Strict header checks: a message with two From headers (the
		 * first one unsigned, the one DKIM signs below it) fails. */
		unsigned int flags = 0;

		if (dkim_options(lib, DKIM_OP_GETOPT, DKIM_OPTS_FLAGS, &flags,
				 sizeof(flags)) == DKIM_STAT_OK) {
			flags |= DKIM_LIBFLAGS_STRICTHDRS;
			(void)dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_FLAGS,
					   &flags, sizeof(flags));
		}
	}
	if (keys_file) {
		dkim_query_t q = DKIM_QUERY_FILE;

		if (dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_QUERYMETHOD, &q,
				 sizeof(q)) != DKIM_STAT_OK ||
		    dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_QUERYINFO,
				 (void *)keys_file, strlen(keys_file)) !=
		    DKIM_STAT_OK) {
			g_string_append(seen, "cannot read keys from a file");
			goto out;
		}
	}
	dk = dkim_verify(lib, (const u_char *)"patchwarden", NULL, &st);
	if (!dk) {
		g_string_append_printf(seen, "%s", dkim_getresultstr(st));
		goto out;
	}
	w = wire_form(raw, len);
	body = feed_headers(dk, w, &st);
	if (st == DKIM_STAT_OK)
		st = dkim_eoh(dk);
	if (st == DKIM_STAT_NOSIG) {
		r = PW_DKIM_NONE;
		goto out;
	}
	if (st == DKIM_STAT_OK && body < w->len)
		st = dkim_body(dk, (u_char *)w->str + body, w->len - body);
	/* The result of the one signature it settles on says little when
	 * there are several: each is judged below. */
	if (st == DKIM_STAT_OK || st == DKIM_STAT_BADSIG ||
	    st == DKIM_STAT_NOKEY || st == DKIM_STAT_CANTVRFY ||
	    st == DKIM_STAT_KEYFAIL || st == DKIM_STAT_REVOKED ||
	    st == DKIM_STAT_SYNTAX)
		(void)dkim_eom(dk, NULL);
	if (dkim_getsiglist(dk, &sigs, &nsigs) != DKIM_STAT_OK)
		nsigs = 0;
	for (i = 0; i < nsigs; i++) {
		const char *d = (const char *)dkim_sig_getdomain(sigs[i]);

		ssize_t msglen = 0, canonlen = 0, signlen = -1;
		bool whole;

		/* A signature of part of the body (l=) lets anyone append
		 * text, a command line among it, below the signed part. */
		whole = dkim_sig_getcanonlen(dk, sigs[i], &msglen, &canonlen,
					     &signlen) != DKIM_STAT_OK ||
			signlen < 0 || signlen >= canonlen;
		if (d && DKIM_SIG_CHECK(sigs[i]) && domain && aligned(d, domain) &&
		    dkim_sig_hdrsigned(sigs[i], (u_char *)"from") && whole) {
			r = PW_DKIM_PASS;
			goto out;
		}
		g_string_append_printf(seen, "%sd=%s: %s", seen->len ? "; " : "",
			d ? d : "?", DKIM_SIG_CHECK(sigs[i]) ?
			!whole ? "signs only part of the body (l=)" :
			!dkim_sig_hdrsigned(sigs[i], (u_char *)"from") ?
			"does not sign the From header" :
			"verifies, but not for the From domain" :
			dkim_sig_geterrorstr(dkim_sig_geterror(sigs[i])) ?
			dkim_sig_geterrorstr(dkim_sig_geterror(sigs[i])) :
			"does not verify");
	}
	if (!nsigs)
		g_string_append_printf(seen, "%s", dkim_getresultstr(st));
out:
	if (why && r == PW_DKIM_FAIL)
		*why = g_strdup(seen->len ? seen->str : "no signature verifies");
	g_string_free(seen, TRUE);
	if (w)
		g_string_free(w, TRUE);
	if (dk)
		dkim_free(dk);
	if (lib)
		dkim_close(lib);
	return r;
}
