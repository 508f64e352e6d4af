/*
 * patchwarden: the service (see bot/service.h).
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "bot/cli.h"
#include "bot/digest.h"
#include "bot/lock.h"
#include "bot/log.h"
#include "bot/reply_policy.h"
#include "bot/patchwork.h"
#include "bot/reply_send.h"
#include "bot/service.h"
#include "bot/signals.h"
#include "bot/subscription.h"
#include "bot/tree.h"
#include "bot/web.h"
#include "db/query.h"

#define MAX_SLEEP 30	/* seconds: replies to retry come due meanwhile */
#define PROGRESS_EVERY 10000	/* messages between a first poll's log lines */

struct service {
	const char *config_path, *db_override;
	struct pw_config *cfg;
	struct pw_db *db;
	struct pw_web *web;	/* the dashboard, when [web] listen is set */
	uint64_t watchdog_usec;	/* systemd's WatchdogSec, 0: none */
	int64_t pinged;		/* monotonic time of the last WATCHDOG=1 */
};

/*
 * systemd (Type=notify) learns of the service's state through
 * sd_notify(3): READY=1 once the store is open and the first round is
 * due, RELOADING=1 and READY=1 around a SIGHUP, STOPPING=1 on the way
 * out, and a STATUS= line that "systemctl status" shows.  Outside
 * systemd (no $NOTIFY_SOCKET) each call does nothing.
 *
 * With WatchdogSec= set, WATCHDOG=1 goes out from the main loop at half
 * that interval.  The loop also waits out each poll, and a subscription's
 * first poll of a large archive takes as long as its fetch and its
 * backfill: the unit shipped in deploy/ sets no WatchdogSec for that
 * reason, and one who sets it gives it room for the longest poll.
 */
static void alive(struct service *sv)
{
	int64_t now = g_get_monotonic_time();

	if (!sv->watchdog_usec || now - sv->pinged < (int64_t)sv->watchdog_usec / 2)
		return;
	sd_notify(0, "WATCHDOG=1");
	sv->pinged = now;
}

/* Serves the dashboard when [web] listen asks for it; a failure to
 * (a port taken) is logged, the rest of the service goes on. */
static void web_start(struct service *sv)
{
	char *where = NULL, *err = NULL;

	if (!sv->cfg->web_listen)
		return;
	if (pw_web_start(sv->cfg->db_path, sv->cfg, NULL, 0, &sv->web, &where,
			 &err)) {
		pw_error("dashboard: %s; the service goes on without it", err);
		g_free(err);
		return;
	}
	pw_info("dashboard: serving %s", where);
	g_free(where);
}

static void web_stop(struct service *sv)
{
	pw_web_stop(sv->web);
	sv->web = NULL;
}

/* url as it may be logged: without its password (NULL for NULL). */
static char *shown_url(const char *url)
{
	GUri *u = url ? g_uri_parse(url, G_URI_FLAGS_HAS_PASSWORD, NULL) : NULL;
	char *s;

	if (!u)
		return url ? g_strdup("(an SMTP URL that does not parse)") : NULL;
	s = g_uri_to_string_partial(u, G_URI_HIDE_PASSWORD);
	g_uri_unref(u);
	return s;
}

/* Reloads the configuration; the old one stays when the new one fails. */
static void reload(struct service *sv)
{
	struct pw_config *c = NULL;
	char *err = NULL;

	sd_notify(0, "RELOADING=1");
	if (pw_config_load(sv->config_path, sv->db_override, &c, &err)) {
		pw_error("reload: %s; the configuration in use stays", err);
		g_free(err);
		sd_notify(0, "READY=1");
		return;
	}
	if (strcmp(c->db_path, sv->cfg->db_path))
		pw_warn("reload: [core] db changed to %s: that takes a restart;"
			" the store stays %s", c->db_path, sv->cfg->db_path);
	g_free(c->db_path);
	c->db_path = g_strdup(sv->cfg->db_path);
	/* The dashboard borrows the configuration: it restarts with the
	 * new one ([web] may have changed too). */
	web_stop(sv);
	pw_config_free(sv->cfg);
	sv->cfg = c;
	web_start(sv);
	pw_info("reload: configuration %s read again", sv->config_path ?
		sv->config_path : "(defaults)");
	sd_notify(0, "READY=1");
}

/* Polls every subscription that is due; false when the store failed.
 * *next receives when the next one is due (0: none). */
static bool poll_due(struct service *sv, int64_t *next)
{
	GPtrArray *subs;
	bool ok = true, polled = false;
	guint i;

	*next = 0;
	if (pw_db_subscription_list(sv->db, &subs)) {
		pw_error("subscriptions: %s", pw_db_errmsg(sv->db));
		g_ptr_array_free(subs, TRUE);
		return false;
	}
	for (i = 0; i < subs->len && !pw_stop_requested; i++) {
		struct pw_subscription *s = subs->pdata[i];
		struct pw_ingest_counts c = { 0 };
		struct pw_finding_counts fc = { 0 };
		int64_t now = (int64_t)time(NULL);
		char *err = NULL;
		enum pw_status st;

		struct pw_subscription cur;
		bool found;

		if (s->paused)
			continue;
		if (s->next_poll > now) {
			if (!*next || s->next_poll < *next)
				*next = s->next_poll;
			continue;
		}
		/* As it is now: paused or removed while another was polled,
		 * it is left alone. */
		if (pw_db_subscription_get_id(sv->db, s->id, &cur, &found)) {
			pw_error("subscriptions: %s", pw_db_errmsg(sv->db));
			ok = false;
			break;
		}
		if (!found || cur.paused) {
			pw_subscription_release(&cur);
			continue;
		}
		alive(sv);
		sd_notifyf(0, "STATUS=polling %s", s->name);
		/* The findings the poll stores, counted as poll counts them
		 * (the patch checks' and flood detection's). */
		if (pw_db_finding_tally_start(sv->db)) {
			pw_error("subscriptions: %s", pw_db_errmsg(sv->db));
			pw_subscription_release(&cur);
			ok = false;
			break;
		}
		/* A first poll (a whole archive's backfill) can take long:
		 * the log shows how far it is. */
		st = pw_subscription_poll_progress(sv->db, sv->cfg, &cur,
						   &pw_stop_requested,
						   cur.backfilled ? 0 : PROGRESS_EVERY,
						   true, &c, &err);
		pw_subscription_release(&cur);
		if (st != PW_ERR_DB && st != PW_ERR_TRANSIENT &&
		    pw_db_finding_tally(sv->db, &fc)) {
			g_free(err);
			err = g_strdup(pw_db_errmsg(sv->db));
			st = PW_ERR_DB;
		}
		if (st == PW_ERR_DB || st == PW_ERR_TRANSIENT) {
			pw_error("%s: the store failed: %s", s->name, err);
			g_free(err);
			ok = false;
			break;
		}
		if (!st && s->failures) {
			/* One line when a failing subscription polls again,
			 * to close what its failures opened. */
			char *span = pw_subscription_span(now - (s->last_ok ?
						s->last_ok : s->created_at));

			pw_info("%s: recovered after %d failed poll%s (%s without"
				" a successful poll); messages=%" G_GINT64_FORMAT,
				s->name, s->failures, s->failures == 1 ? "" : "s",
				span, c.messages);
			g_free(span);
		}
		if (st) {
			pw_warn("%s: poll failed (%d in a row; retried in %" G_GINT64_FORMAT
				" s): %s", s->name, s->failures + 1,
				pw_subscription_backoff(s, s->failures + 1), err);
		} else if (c.messages || c.errors || c.removed) {
			pw_info("%s: messages=%" G_GINT64_FORMAT " new=%" G_GINT64_FORMAT
				" patches=%" G_GINT64_FORMAT " findings=%" G_GINT64_FORMAT
				" findings_error=%" G_GINT64_FORMAT
				" findings_warning=%" G_GINT64_FORMAT
				" findings_info=%" G_GINT64_FORMAT
				" findings_flood=%" G_GINT64_FORMAT
				" removed=%" G_GINT64_FORMAT " errors=%" G_GINT64_FORMAT "%s",
				s->name, c.messages, c.messages - c.duplicates,
				c.patches, fc.findings, fc.severity[PW_SEV_ERROR],
				fc.severity[PW_SEV_WARNING], fc.severity[PW_SEV_INFO],
				fc.flood, c.removed, c.errors,
				s->backfilled ? "" : " (backfill: never answered)");
		} else {
			pw_debug("%s: nothing new", s->name);
		}
		g_free(err);
		/* The poll stored when it is due again (its interval, or
		 * its backoff): the next round reads that, a second on. */
		*next = *next ? MIN(*next, now + 1) : now + 1;
		polled = true;
	}
	g_ptr_array_free(subs, TRUE);
	/* The maintainers' trees after the mail, which they mark applied. */
	if (ok && polled && !pw_stop_requested)
		pw_tree_poll_all(sv->db, sv->cfg, &pw_stop_requested, NULL, false);
	return ok;
}

/* Decides undecided replies whose window closed, sends what is due. */
static bool replies(struct service *sv)
{
	struct pw_reply_send_opts so = { .stop = &pw_stop_requested };
	struct pw_reply_send_stats ost = { 0 };
	int released = 0, folded = 0, waited = 0;
	enum pw_status st;
	char *err = NULL;

	st = pw_db_begin(sv->db);
	if (!st)
		st = pw_reply_policy_release_undecided(sv->db, sv->cfg,
						       (int64_t)time(NULL),
						       &released, &folded);
	if (!st)
		st = pw_reply_policy_release_waiting(sv->db, sv->cfg,
						     (int64_t)time(NULL), &waited);
	if (!st)
		st = pw_db_commit(sv->db);
	if (st) {
		pw_db_rollback(sv->db);
		pw_error("outbox: %s", pw_db_errmsg(sv->db));
		return false;
	}
	if (released || folded)
		pw_info("outbox: flood window closed: %d held replies released,"
			" %d answered by their flood's summary", released, folded);
	if (waited)
		pw_info("outbox: %d series answered without their missing"
			" patches", waited);
	pw_digest_service(sv->db, sv->cfg, (int64_t)time(NULL));
	if (pw_reply_send_due(sv->db, sv->cfg, &so, &ost, &err)) {
		pw_warn("outbox: %s; the replies wait for the next send",
			err ? err : "sending failed");
		g_free(err);
	}
	if (ost.sent || ost.deferred || ost.failed) {
		char *summary = pw_reply_send_summary(sv->cfg, &ost);

		pw_info("outbox: %s", summary);
		g_free(summary);
	}
	pw_patchwork_service_round(sv->db, sv->cfg, &pw_stop_requested);
	return true;
}

/* Sleeps until when (Unix time), a signal, or MAX_SLEEP seconds. */
static void nap(struct service *sv, int64_t when)
{
	int64_t now = (int64_t)time(NULL);
	int64_t end = g_get_monotonic_time() +
		      (when > now ? MIN(when - now, MAX_SLEEP) : 1) * G_USEC_PER_SEC;

	while (!pw_stop_requested && !pw_reload_requested &&
	       g_get_monotonic_time() < end) {
		alive(sv);
		g_usleep(100 * 1000);
	}
}

int pw_service_run(const char *config, const char *db_path)
{
	struct service sv = { config, db_path, NULL, NULL, NULL, 0, 0 };
	GPtrArray *subs = NULL;
	unsigned nsubs = 0;
	int rc = 0, lock = -1;
	char *err = NULL;

	pw_signals_install();
	pw_log_set_timestamps(true);
	if (!pw_cli_open(config, db_path, false, &sv.cfg, &sv.db)) {
		rc = EX_TEMPFAIL;
		goto out;
	}
	/* One service per store: a second one would poll the same
	 * subscriptions and fail the first one's polls. */
	if (pw_lock_take(sv.cfg->db_path, &lock, &err)) {
		pw_error("service: %s", err);
		g_free(err);
		rc = EX_TEMPFAIL;
		goto out;
	}
	if (!pw_db_subscription_list(sv.db, &subs)) {
		char *smtp = shown_url(sv.cfg->smtp_url);

		pw_info("service: started (pid %d): store %s, %u subscriptions,"
			" replies %s%s; stop with SIGTERM or Ctrl-C, reload the"
			" configuration with SIGHUP", (int)getpid(),
			sv.cfg->db_path, subs->len, smtp ? "sent through " :
			"written to ", smtp ? smtp : sv.cfg->dry_run_mbox);
		g_free(smtp);
	}
	if (subs)
		nsubs = subs->len;
	if (subs && !subs->len)
		pw_warn("service: no subscriptions yet: 'patchwarden subscribe"
			" add NAME URL' (it is read at its next round)");
	if (subs)
		g_ptr_array_free(subs, TRUE);
	web_start(&sv);
	/* The store is open and the first round is due now: ready. */
	if (sd_watchdog_enabled(0, &sv.watchdog_usec) <= 0)
		sv.watchdog_usec = 0;
	sd_notifyf(0, "READY=1\nSTATUS=%u subscriptions, store %s", nsubs,
		   sv.cfg->db_path);
	while (!pw_stop_requested) {
		int64_t next = 0;

		alive(&sv);
		if (pw_reload_requested) {
			pw_reload_requested = 0;
			reload(&sv);
		}
		if (!poll_due(&sv, &next) || (!pw_stop_requested && !replies(&sv))) {
			/* The store failed (busy, full): try again shortly. */
			next = (int64_t)time(NULL) + 5;
		}
		if (!pw_stop_requested) {
			sd_notify(0, "STATUS=waiting for the next poll");
			nap(&sv, next);
		}
	}
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
	web_stop(&sv);
	pw_info("service: stopped; what was read is stored");
out:
	pw_db_close(sv.db);
	pw_lock_release(lock);
	pw_config_free(sv.cfg);
	return rc;
}
