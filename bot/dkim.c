/*
 * patchwarden: DKIM verification through libopendkim (see bot/dkim.h).
 */
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>
#include <glib.h>
#include <opendkim/dkim.h>
#include <libpsl.h>

#include "bot/dkim.h"
#include "checks/text.h"

/*
 * The public-suffix list, read once per process: live mail is verified
 * in ingest's parser threads, a message at a time, and the list is some
 * 10,000 rules to parse.  libpsl only reads a loaded context, so the
 * threads share it; it lives as long as the process.
 */
static const psl_ctx_t *suffixes(void)
{
	static gsize once;
	static psl_ctx_t *psl;

	if (g_once_init_enter(&once)) {
		psl = psl_latest(NULL);
		g_once_init_leave(&once, 1);
	}
	return psl;
}

/*
 * Whether signing domain d is aligned with from (RFC 7489 3.1.1,
 * relaxed): d is from or a parent of it, and no shorter than from's
 * organisational domain, the label under its public suffix as the
 * public-suffix list (libpsl) draws it.  "net" or "co.uk" sign for no
 * one.  The list is the system's (Debian's publicsuffix), else the one
 * libpsl was built with; without either nothing is aligned.
 */
static bool aligned(const psl_ctx_t *psl, const char *d, const char *from)
{
	size_t ld = strlen(d), lf = strlen(from), lo;
	const char *org;
	char *lower;

	if (!psl || !ld || ld > lf)
		return false;
	if (ld < lf && (from[lf - ld - 1] != '.' ||
			g_ascii_strcasecmp(from + lf - ld, d)))
		return false;
	if (ld == lf && g_ascii_strcasecmp(from, d))
		return false;
	/* libpsl reads lower case only. */
	lower = g_ascii_strdown(from, -1);
	org = psl_registrable_domain(psl, lower);
	/* NULL: from is itself a public suffix. */
	lo = org ? strlen(org) : lf + 1;
	g_free(lower);
	return ld >= lo;
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

/*
 * Why signature sig, which verifies, does not do for domain (a static
 * string), or NULL when it does.
 */
static const char *shortfall(DKIM *dk, DKIM_SIGINFO *sig, const psl_ctx_t *psl,
			     const char *domain, const char *const *must_sign,
			     const GString *w, size_t body)
{
	const char *d = (const char *)dkim_sig_getdomain(sig);
	ssize_t msglen = 0, canonlen = 0, signlen = -1;
	dkim_canon_t hc = DKIM_CANON_SIMPLE, bc = DKIM_CANON_SIMPLE;
	size_t i;

	if (!psl)
		return "verifies, but no public-suffix list (libpsl) can say"
		       " whether d= is the From domain's";
	if (!d || !domain || !aligned(psl, d, domain))
		return "verifies, but not for the From domain (d= is not it,"
		       " nor its parent under its public suffix)";
	if (!dkim_sig_hdrsigned(sig, (u_char *)"from"))
		return "does not sign the From header";
	for (i = 0; must_sign && must_sign[i]; i++)
		if (!dkim_sig_hdrsigned(sig, (u_char *)must_sign[i]))
			return "does not sign every header a command needs"
			       " (h=: From, Subject, Date, Message-ID,"
			       " In-Reply-To, References)";
	/* A signature of part of the body (l=) lets anyone append text, a
	 * command line among it, below the signed part: l= is compared
	 * with the whole body's canonical length, counted here. */
	if (dkim_sig_getcanonlen(dk, sig, &msglen, &canonlen, &signlen) !=
	    DKIM_STAT_OK ||
	    dkim_sig_getcanons(sig, &hc, &bc) != DKIM_STAT_OK)
		return "its body length cannot be read";
	if (signlen >= 0 &&
	    (size_t)signlen < pw_text_dkim_body_len(w->str + body, w->len - body,
						    bc == DKIM_CANON_RELAXED))
		return "signs only part of the body (l=)";
	return NULL;
}

/*
 * Whether the header block of raw (len bytes) has a DKIM-Signature
 * field (its name, then blanks, then the colon): most mail has none,
 * and is judged without starting libopendkim.
 */
static bool signed_mail(const char *raw, size_t len)
{
	static const char name[] = "dkim-signature";
	size_t i = 0, n = sizeof(name) - 1;

	while (i < len) {
		const char *nl = memchr(raw + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - raw) : len;

		if (end == i || (end == i + 1 && raw[i] == '\r'))
			return false;	/* the blank line: the body */
		if (end - i > n && !g_ascii_strncasecmp(raw + i, name, n)) {
			size_t k = i + n;

			while (k < end && (raw[k] == ' ' || raw[k] == '\t'))
				k++;
			if (k < end && raw[k] == ':')
				return true;
		}
		i = end + 1;
	}
	return false;
}

enum pw_dkim_result pw_dkim_verify(const char *raw, size_t len,
				   const char *domain,
				   const char *const *must_sign,
				   const char *keys_file, char **why)
{
	enum pw_dkim_result r = PW_DKIM_FAIL;
	DKIM_LIB *lib = NULL;
	DKIM_SIGINFO **sigs = NULL;
	const psl_ctx_t *psl = suffixes();
	DKIM *dk = NULL;
	DKIM_STAT st;
	GString *w = NULL, *seen = g_string_new(NULL);
	size_t body;
	int nsigs = 0, i;

	if (why)
		*why = NULL;
	if (!signed_mail(raw, len)) {
		r = PW_DKIM_NONE;
		goto out;
	}
	lib = dkim_init(NULL, NULL);
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
		const char *no = NULL;

		if (DKIM_SIG_CHECK(sigs[i])) {
			no = shortfall(dk, sigs[i], psl, domain, must_sign, w,
				       body);
			if (!no) {
				r = PW_DKIM_PASS;
				goto out;
			}
		} else {
			no = dkim_sig_geterrorstr(dkim_sig_geterror(sigs[i]));
		}
		g_string_append_printf(seen, "%sd=%s: %s", seen->len ? "; " : "",
			d ? d : "?", no ? no : "does not verify");
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
