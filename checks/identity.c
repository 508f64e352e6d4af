/*
 * patchwarden: a sender's identity (see checks/identity.h).
 */
#include <string.h>
#include <glib.h>

#include "checks/identity.h"

enum pw_auth pw_identity_judge(bool dkim_pass, bool addr_signs,
			       bool domain_signs)
{
	if (dkim_pass)
		return PW_AUTH_DKIM;
	/* A signature that fails is no better than none: lists that
	 * rewrite mail break signatures, and so does a forger. */
	if (addr_signs || domain_signs)
		return PW_AUTH_LOOKALIKE;
	return PW_AUTH_NONE;
}

char *pw_identity_flood_sender(const char *addr, enum pw_auth a)
{
	/* A space cannot appear in a bare address: no address is this
	 * name.  Unauthenticated mail keeps the address itself, so that
	 * the keys of every store written before stay as they were. */
	if (a == PW_AUTH_DKIM)
		return g_strconcat(addr ? addr : "", " dkim", NULL);
	return g_strdup(addr ? addr : "");
}

const char *pw_identity_hold(enum pw_auth a)
{
	if (a == PW_AUTH_LOOKALIKE)
		return "unauthenticated: its From claims a sender whose mail is"
		       " DKIM-signed, and it carries no valid signature of"
		       " that sender: answered to nobody";
	return NULL;
}

size_t pw_identity_cc_arbitrary(enum pw_auth a)
{
	switch (a) {
	case PW_AUTH_DKIM:
		return PW_IDENTITY_CC_SIGNED;
	case PW_AUTH_LOOKALIKE:
		return 0;
	case PW_AUTH_NONE:
	default:
		return PW_IDENTITY_CC_UNSIGNED;
	}
}

bool pw_identity_own_budget(enum pw_auth a)
{
	return a == PW_AUTH_DKIM;
}

bool pw_identity_author_ok(enum pw_auth poster_auth, const char *poster,
			   const char *author, bool author_signs)
{
	if (!author_signs)
		return true;
	return poster_auth == PW_AUTH_DKIM && *pw_identity_domain(author) &&
	       !g_ascii_strcasecmp(pw_identity_domain(poster),
				   pw_identity_domain(author));
}

const char *pw_identity_domain(const char *addr)
{
	const char *at = addr ? strrchr(addr, '@') : NULL;

	return at ? at + 1 : "";
}
