/*
 * patchwarden: configuration, from one GLib key file (INI style).
 *
 *   [core]   db = PATH, mirrors = DIR (public-inbox mirrors, default
 *            PATH-mirrors), fetch_timeout (seconds a fetch may receive
 *            nothing), max_findings (stored per patch, 0: no cap),
 *            message_cpu (seconds of CPU one message may take to read),
 *            credentials = FILE (the secrets, see below), dkim_keys =
 *            FILE (DKIM keys read from a file instead of DNS: tests and
 *            closed networks), dkim = required|optional (whether mail
 *            commands need a DKIM signature of their From domain)
 *   [smtp]   url, from, user, password, starttls (required|try|no),
 *            helo, timeout (seconds), cainfo
 *   [reply]  dry_run_mbox, from_name, reply_to, min_severity,
 *            per_recipient_per_hour, global_per_hour, max_age (days),
 *            dashboard_url (deprecated: the old name of [web] url),
 *            automated_senders (;-separated addresses or *-patterns,
 *            added to checks/message.c's pw_mail_automated_senders)
 *   [flood]  count, window (seconds), burst (seconds), lists, detect
 *            (bool, default true)
 *   [web]    listen (HOST:PORT), token (a secret), max_body (KiB),
 *            url (the dashboard's public address, which replies link to),
 *            check_cpu (seconds of CPU for one POST /api/check),
 *            client_connections, client_posts (a minute), timeout
 *            (seconds): the bounds on one client
 *   [list NAME]  style (octal|symbolic|perm-macros), disable (;-list of
 *            rule IDs), enable, address (the list's posting address),
 *            recipient (;-list of the bot's addresses the MTA pipe
 *            receives this list's mail at),
 *            mail (off|maintainers|author|author+cc: who gets a reply;
 *            off unless set), maintainer (;-list of the list's
 *            maintainers' addresses), maintainers (a kernel MAINTAINERS
 *            file, relative to the configuration's folder),
 *            cc_maintainers (bool: Cc the MAINTAINERS M: and R: of the
 *            touched files), digest (bool: the weekly digest to the
 *            maintainers), cc_list and cc_all (bool, deprecated: the
 *            old spelling of mail = author+cc)
 *   [list *]  the same keys, for every list without a [list NAME]
 *            section and for mail on no list (no List-Id, no --list);
 *            a [list NAME] section inherits nothing from it.  Without
 *            either, a list's mail is off.
 *   [imap]   user, password, starttls (required|try|no), cainfo,
 *            timeout (seconds): for every IMAP subscription
 *   [imap NAME]  the same keys for the subscription called NAME; each
 *            key set here replaces the one of [imap]
 *   [patchwork NAME]  url (the instance), project (its link name),
 *            token (a secret), lists (;-list of our lists it serves,
 *            default all), context (default patchwarden), min_severity
 *            (default [reply] min_severity), max_attempts, timeout:
 *            where checks are reported (bot/patchwork.c)
 *
 * Any other section or key is refused, named with its file and line, as
 * is a value that does not parse.
 *
 * A file that holds a secret (a password, the [web] token, or an SMTP
 * URL with user information) is refused unless it belongs to the user
 * running the program and neither group nor others can read it.  The
 * secrets may live instead in the file [core] credentials names (relative
 * to the main file's folder): a key file of [smtp] password, [imap] and
 * [imap NAME] password, [web] token and [patchwork NAME] token only, always held to that rule;
 * the main file may then be readable by others (an MTA's pipe runs as
 * its own user).
 */
#ifndef PW_CONFIG_H
#define PW_CONFIG_H

#include <stdbool.h>
#include <glib.h>

#include "checks/status.h"
#include "checks/patch.h"
#include "checks/rules.h"

/*
 * Who gets a reply to mail of a list ([list NAME] mail).  The finding is
 * stored and shown whatever the mode; a reply the mode keeps from
 * anyone is stored as suppressed, with the reason.
 */
enum pw_mail_mode {
	PW_MAIL_OFF,		/* no one: the default */
	PW_MAIL_MAINTAINERS,	/* the list's maintainers only */
	PW_MAIL_AUTHOR,		/* the author only */
	PW_MAIL_AUTHOR_CC,	/* the author, Cc the list and the original
				 * Cc's (cc_list, cc_all) */
};

/* Reads "off", "maintainers", "author" or "author+cc"; false otherwise. */
bool pw_mail_mode_parse(const char *s, enum pw_mail_mode *out);
/* The name of a mode, as the configuration spells it (static). */
const char *pw_mail_mode_str(enum pw_mail_mode m);

struct pw_maintainers;

struct pw_list_conf {
	char *name;
	enum pw_style style;
	char **disabled;	/* NULL-terminated rule IDs */
	char **enabled;
	char *address;		/* posting address, or NULL */
	char **recipients;	/* [list] recipient: the bot's addresses the
				 * MTA delivers this list's mail to, lower
				 * case, NULL-terminated */
	enum pw_mail_mode mail;
	/* What mail = author+cc copies: the list's address (cc_list) and
	 * every recipient of the original (cc_all); both with author+cc,
	 * or as the deprecated keys set them. */
	bool cc_list;
	bool cc_all;
	char **maintainer_addrs;	/* [list] maintainer: lower-cased
					 * addresses, NULL-terminated */
	char *maintainers_file;	/* [list] maintainers, as an absolute
				 * path, or NULL */
	/* That file as read when the configuration was loaded (NULL without
	 * one, or when it could not be read: a problem then). */
	struct pw_maintainers *maintainers;
	bool cc_maintainers;	/* Cc the M: and R: of the touched files */
	bool digest;		/* a weekly digest to maintainer_addrs */
	/* [list] tree: the maintainer's git tree (a URL, or an absolute
	 * path) and its branch, whose commits mark patches applied; NULL
	 * without one. */
	char *tree;
	char *tree_branch;
};

/* How to log in to the IMAP server of a subscription. */
struct pw_imap_conf {
	char *name;		/* the subscription's name, "" for [imap] */
	char *user;		/* NULL: the URL's user, if any */
	char *password;		/* NULL: the URL's password, if any */
	char *starttls;		/* "required", "try" or "no" (imap:// only) */
	char *cainfo;		/* a CA file, NULL: the system's */
	int timeout;		/* seconds: connecting, and a stalled server */
};

/* A Patchwork instance that checks are reported to. */
struct pw_patchwork_conf {
	char *name;		/* the NAME of [patchwork NAME] */
	char *url;		/* the instance, without a trailing '/' */
	char *project;		/* the project's link name */
	char *token;		/* the API token (a secret) */
	char **lists;		/* NULL-terminated; empty: every list */
	char *context;		/* ^[-a-zA-Z0-9_]+$ */
	enum pw_severity min_severity;
	int max_attempts;	/* lookups and transient failures, then failed */
	int timeout;		/* seconds a request may take */
};

struct pw_config {
	char *path;		/* the file read, NULL for the defaults */
	char *credentials;	/* [core] credentials as read, or NULL */
	char *db_path;
	char *mirrors;		/* folder of the public-inbox mirrors */
	int fetch_timeout;	/* seconds */
	int max_findings;	/* stored per patch; 0: no cap */
	/* Seconds of CPU reading and checking one message may take in
	 * ingest (0: no limit); past it the message is refused. */
	int message_cpu;
	/* [core] dkim_keys: DKIM keys read from this file (opendkim's
	 * DKIM_QUERY_FILE: "selector._domainkey.domain TXT-record" lines)
	 * instead of DNS; NULL: DNS. */
	char *dkim_keys;
	/* [core] dkim = optional: mail commands without a DKIM signature
	 * are obeyed (a closed network); required (the default) refuses
	 * them. */
	bool dkim_optional;

	char *smtp_url;		/* NULL: replies go to the dry-run mbox */
	char *smtp_from;
	/* [smtp] from read by GMime: the name ("" when none) and the
	 * lower-cased address (patchwarden@localhost when unset). */
	char *from_name, *from_addr;
	char *smtp_user;
	char *smtp_password;
	char *smtp_starttls;	/* "required", "try" or "no" */
	char *smtp_helo;
	char *smtp_cainfo;
	int smtp_timeout;

	char *dry_run_mbox;	/* default: outbox.mbox beside the database */
	char *reply_from_name;
	char *reply_to;
	enum pw_severity reply_min_severity;
	int per_recipient_per_hour;
	int global_per_hour;
	int reply_max_age;	/* seconds; mail dated earlier is never answered */
	char **automated_senders;
	/* Not read from the file: set by "preview".  reply_replay: the
	 * policy's clock is the Date of the mail it answers (a list's
	 * history replayed as if arriving now); reply_per_patch: every
	 * patch answered on its own, as before one voice per series. */
	bool reply_replay;
	bool reply_per_patch;

	int flood_count;	/* patches that make a flood */
	int flood_window;	/* seconds */
	int flood_burst;	/* seconds: count within it floods, else a
				 * campaign (0: every count in the window) */
	int flood_lists;	/* subsystems that flood at any pace (0: off) */
	bool flood_detect;	/* false: no flood is looked for */

	/* [web]: the dashboard (bot/web.c). */
	char *web_listen;	/* NULL: 127.0.0.1:8080 */
	char *web_token;	/* NULL: none; needed off loopback and to submit */
	int web_max_body;	/* bytes a POST may carry */
	/* /healthz: seconds without a successful poll after which a
	 * subscription is stale; 0: three of its intervals, at least 600. */
	int web_stale_after;
	/* Seconds of CPU one POST /api/check may take (0: no limit). */
	int web_check_cpu;
	/* Connections one client address may hold (0: no limit). */
	int web_client_connections;
	/* POSTs one client address may make a minute (0: no limit). */
	int web_client_posts;
	int web_timeout;	/* seconds a connection may stay silent */
	char *dashboard_url;	/* [web] url (or the deprecated [reply]
				 * dashboard_url): replies link to it; NULL */

	/* Notes on a file that works but should change ("FILE:LINE: ..."
	 * strings, owned), such as a deprecated key; config check shows
	 * them, they stop nothing. */
	GList *notes;

	GPtrArray *lists;	/* struct pw_list_conf * */
	struct pw_list_conf defaults;	/* for lists not configured */

	GPtrArray *imap;	/* struct pw_imap_conf *: [imap], then each
				 * [imap NAME]; NULL without a file */

	GPtrArray *patchwork;	/* struct pw_patchwork_conf *: each
				 * [patchwork NAME]; never NULL */
};

/*
 * Loads path (NULL: the defaults only).  db_override, when not NULL,
 * replaces [core] db.  Returns PW_ERR_USAGE with a message in *err
 * (the caller frees it) for a file with any problem pw_config_check()
 * finds: the first, "FILE:LINE: ...", and how many more.
 */
enum pw_status pw_config_load(const char *path, const char *db_override,
			      struct pw_config **out, char **err);

/*
 * Reads path as pw_config_load() does, but goes on past each problem
 * and appends every one to problems (an array of char *, "FILE:LINE:
 * message", or "FILE: message" where no line can be named; the array
 * owns them and must free its elements with g_free).  Returns PW_OK and
 * the settings in *out (the caller frees them; a setting at fault keeps
 * its default), PW_ERR_IO when path cannot be read, PW_ERR_INPUT when it
 * is not a key file (then *out is NULL).
 */
enum pw_status pw_config_check(const char *path, const char *db_override,
			       struct pw_config **out, GPtrArray *problems);
void pw_config_free(struct pw_config *c);

/* The settings for a list (name may be NULL): never NULL. */
const struct pw_list_conf *pw_config_list(const struct pw_config *c,
					  const char *name);

/* Whether addr is one of list l's [list] maintainer addresses. */
bool pw_config_list_maintainer(const struct pw_list_conf *l, const char *addr);

/*
 * The list whose [list NAME] recipient names addr (an envelope
 * recipient, any case), or NULL (borrowed from c).
 */
const char *pw_config_list_of_recipient(const struct pw_config *c,
					const char *addr);

/*
 * The IMAP settings of the subscription called sub_name (may be NULL):
 * its [imap NAME] group over [imap], else [imap]; the defaults when c
 * is NULL or read no file.  Never NULL; borrowed from c.
 */
const struct pw_imap_conf *pw_config_imap(const struct pw_config *c,
					  const char *sub_name);

/*
 * The [patchwork NAME] section called name, or NULL; borrowed from c.
 */
const struct pw_patchwork_conf *pw_config_patchwork(const struct pw_config *c,
						    const char *name);

/*
 * Whether instance p reports on mail of the list called list (NULL:
 * none known): p names no lists, or names it (ignoring case).
 */
bool pw_config_patchwork_serves(const struct pw_patchwork_conf *p,
				const char *list);

/* Fills the rule options for mail of the list called list (NULL: none):
 * its house style and rules, and c's [core] max_findings. */
void pw_config_check_opts(const struct pw_config *c, const char *list,
			  struct pw_check_opts *o);

#endif
