/*
 * patchwarden: the send loop (see bot/reply_send.h).
 *
 * Exactly once, as far as SMTP allows.  SMTP cannot be both at-most-once
 * and at-least-once: between the server's "250" after DATA and our
 * commit of that fact there is always a moment in which a crash leaves
 * us unsure.  patchwarden chooses at-least-once, deduplicated by
 * Message-ID:
 *
 *   1. A reply is composed once and stored (state pending) with its wire
 *      bytes and a Message-ID derived from what it answers; every attempt
 *      sends those same bytes.
 *   2. Before each SMTP transaction the row is claimed: state sending,
 *      attempts + 1, committed.
 *   3. Right after the server's answer the outcome is committed on its
 *      own: sent, pending again with a later next_attempt (4xx, network),
 *      or failed (5xx).
 *   4. A row still in "sending" when a sender starts belongs to a process
 *      that died in step 2-3 (an advisory lock guarantees no live sender
 *      holds it).  Its fate is unknown: if the process died before the
 *      server's 250, the server dropped the message (an MTA does not
 *      deliver a transaction whose client vanished before the end of
 *      DATA was acknowledged), so sending again is what keeps it from
 *      being lost.  It is therefore sent again, with the same
 *      Message-ID.  Only a crash in the microseconds between the 250
 *      and the commit can make a second copy, and that copy carries the
 *      same Message-ID, which lists and archives (Mailman, public-inbox)
 *      and MUAs collapse.
 *
 * The dry-run mbox follows the same steps; its window is between the
 * write and the commit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "bot/reply_send.h"
#include "bot/lock.h"
#include "bot/log.h"
#include "bot/reply_queue.h"
#include "bot/smtp.h"
#include "db/outbox.h"

#define MAX_ATTEMPTS 12		/* transient failures before giving up */
#define BACKOFF_BASE 60		/* seconds before the first retry */

static int64_t now(void)
{
	return (int64_t)time(NULL);
}

/*
 * Takes the sender's lock, a file beside the database, held until the
 * process exits or *fd is closed.  The kernel releases it when the
 * process dies, so whoever holds it knows that rows in "sending" are
 * orphans.
 */
static enum pw_status lock_sender(struct pw_db *db, int *fd, char **err)
{
	return pw_lock_beside(pw_db_path(db), "outbox-lock", "sending the outbox", fd, err);
}

/* Appends one reply to the mbox (mboxrd: ">From " lines get one more '>'). */
static enum pw_status mbox_append(FILE *fp, const struct pw_outbox_row *r)
{
	gsize len;
	const char *p = g_bytes_get_data(r->raw, &len), *end = p + len;
	GDateTime *d = g_date_time_new_now_utc();
	char *stamp = g_date_time_format(d, "%a %b %_d %H:%M:%S %Y");
	bool ok;

	fprintf(fp, "From %s %s\n", r->mail_from, stamp);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t k = 0;

		while (k < n && p[k] == '>')
			k++;
		if (n - k >= 5 && !memcmp(p + k, "From ", 5))
			fputc('>', fp);
		if (n && p[n - 1] == '\r')
			n--;
		fwrite(p, 1, n, fp);
		fputc('\n', fp);
		p = nl ? nl + 1 : end;
	}
	fputc('\n', fp);
	ok = fflush(fp) == 0 && fsync(fileno(fp)) == 0;
	g_free(stamp);
	g_date_time_unref(d);
	return ok ? PW_OK : PW_ERR_IO;
}

/* Sends one claimed row; records the outcome. */
static enum pw_status send_one(struct pw_db *db, const struct pw_config *cfg,
			       struct pw_smtp *smtp, FILE *mbox, int64_t id,
			       struct pw_reply_send_stats *st, char **err)
{
	struct pw_outbox_row *r = NULL;
	struct pw_smtp_result res;
	enum pw_status s, outcome;
	char **rcpt = NULL;
	bool claimed, found, dropped = false;

	s = pw_db_outbox_claim(db, id, now(), &claimed);
	if (s || !claimed)
		return s;
	st->attempted++;
	/* Claimed a moment ago by this, the only sender: the row is there. */
	s = pw_db_outbox_get(db, id, true, &r, &found);
	if (s || !found)
		return s ? s : PW_ERR_DB;
	/* Whatever held it or since when, a reply says nothing about a
	 * finding the maintainers have decided on: this is the one place
	 * every reply passes before it goes. */
	s = pw_reply_queue_refresh(db, cfg, r, &dropped);
	if (!s && dropped) {
		s = pw_db_outbox_drop(db, id, "every finding it is about was"
				      " marked wrong or ignored");
		pw_info("reply %" G_GINT64_FORMAT " not sent: every finding it"
			" is about was marked wrong or ignored", id);
		pw_outbox_row_free(r);
		return s;
	}
	if (!s) {
		pw_outbox_row_free(r);
		r = NULL;
		s = pw_db_outbox_get(db, id, true, &r, &found);
		if (!s && !found)
			s = PW_ERR_DB;
	}
	if (s) {
		pw_outbox_row_free(r);
		return s;
	}
	if (mbox) {
		outcome = mbox_append(mbox, r);
		memset(&res, 0, sizeof(res));
		if (outcome)
			snprintf(res.error, sizeof(res.error), "%s: %s",
				 "cannot write the dry-run mbox", g_strerror(errno));
	} else {
		rcpt = g_strsplit(r->recipients, "\n", -1);
		outcome = pw_smtp_send(smtp, r->mail_from, (const char *const *)rcpt,
				       g_bytes_get_data(r->raw, NULL),
				       g_bytes_get_size(r->raw), &res);
	}
	switch (outcome) {
	case PW_OK:
		s = pw_db_outbox_mark_sent(db, id, now(), mbox ? "mbox" : "smtp",
					   res.code, res.error[0] ? res.error : NULL);
		st->sent++;
		if (mbox)
			pw_info("reply %" G_GINT64_FORMAT " to %s written to the"
				" dry-run mbox", id, r->rcpt_to);
		else
			pw_info("reply %" G_GINT64_FORMAT " sent to %s", id,
				r->rcpt_to);
		break;
	case PW_ERR_PERMANENT:
		s = pw_db_outbox_mark_failed(db, id, res.code, res.error);
		st->failed++;
		pw_warn("reply %" G_GINT64_FORMAT " to %s refused for good: %s",
			id, r->rcpt_to, res.error);
		break;
	case PW_ERR_USAGE:
		/* Nothing can go out until the configuration is fixed; the
		 * reply is not to blame, so the attempt is given back. */
		s = pw_db_outbox_unclaim(db, id, now() + BACKOFF_BASE,
					 res.code, res.error);
		st->deferred++;
		*err = g_strdup_printf("SMTP configuration: %s", res.error);
		if (!s)
			s = PW_ERR_USAGE;
		break;
	default:
		if (r->attempts >= MAX_ATTEMPTS) {
			char *e = g_strdup_printf("gave up after %d attempts: %s",
						  r->attempts, res.error);

			s = pw_db_outbox_mark_failed(db, id, res.code, e);
			st->failed++;
			pw_warn("reply %" G_GINT64_FORMAT ": %s", id, e);
			g_free(e);
		} else {
			s = pw_db_outbox_mark_retry(db, id,
						    now() + pw_lock_backoff(r->attempts),
						    res.code, res.error);
			st->deferred++;
			pw_info("reply %" G_GINT64_FORMAT " to %s deferred: %s",
				id, r->rcpt_to, res.error);
		}
		/* A dead mbox disk or server fails the rest of the batch too. */
		if (mbox && !s) {
			*err = g_strdup(res.error);
			s = PW_ERR_IO;
		}
		break;
	}
	g_strfreev(rcpt);
	pw_outbox_row_free(r);
	return s;
}

enum pw_status pw_reply_send_due(struct pw_db *db, const struct pw_config *cfg,
				 const struct pw_reply_send_opts *o,
				 struct pw_reply_send_stats *st, char **err)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	struct pw_smtp *smtp = NULL;
	FILE *mbox = NULL;
	enum pw_status s;
	int lock = -1, recovered = 0;
	guint i;

	memset(st, 0, sizeof(*st));
	if (pw_db_in_transaction(db)) {
		*err = g_strdup("pw_reply_send_due called inside a transaction");
		s = PW_ERR_USAGE;
		goto out;
	}
	s = lock_sender(db, &lock, err);
	if (s)
		goto out;
	s = pw_db_outbox_recover(db, now(), &recovered);
	if (s)
		goto db_err;
	st->recovered = recovered;
	if (recovered)
		pw_warn("%d replies were interrupted during a send; sending "
			"them again with the same Message-ID", recovered);
	s = pw_db_outbox_due(db, now(), o && o->all,
			     o && o->limit > 0 ? o->limit : 100, ids);
	if (s)
		goto db_err;
	if (ids->len == 0)
		goto out;
	if (!cfg->smtp_url) {
		mbox = fopen(cfg->dry_run_mbox, "a");
		st->mbox = mbox ? 1 : -1;
		if (!mbox) {
			*err = g_strdup_printf("%s: %s", cfg->dry_run_mbox,
					       g_strerror(errno));
			s = PW_ERR_IO;
			goto out;
		}
	} else {
		struct pw_smtp_opts so = {
			.url = cfg->smtp_url,
			.user = cfg->smtp_user,
			.password = cfg->smtp_password,
			.starttls = cfg->smtp_starttls,
			.helo = cfg->smtp_helo,
			.cainfo = cfg->smtp_cainfo,
			.timeout = cfg->smtp_timeout,
		};

		smtp = pw_smtp_new(&so);
		if (!smtp) {
			*err = g_strdup("cannot start libcurl");
			s = PW_ERR_TRANSIENT;
			goto out;
		}
	}
	for (i = 0; i < ids->len && !(o->stop && *o->stop); i++) {
		s = send_one(db, cfg, smtp, mbox, g_array_index(ids, int64_t, i), st, err);
		/* An i/o error of the mbox comes with its message; one of
		 * the store (a full disk) without. */
		if (s == PW_ERR_USAGE || (s == PW_ERR_IO && *err))
			goto out;
		if (s)
			goto db_err;
	}
	goto out;
db_err:
	if (!*err)
		*err = g_strdup(pw_db_errmsg(db));
	/* The store failed, whatever failed in it: the caller stops and
	 * tells it as a store failure (75), as ingest does. */
	if (s == PW_ERR_IO)
		s = PW_ERR_DB;
out:
	if (mbox)
		fclose(mbox);
	pw_smtp_free(smtp);
	if (lock >= 0)
		close(lock);
	g_array_unref(ids);
	return s;
}

char *pw_reply_send_summary(const struct pw_config *cfg,
			    const struct pw_reply_send_stats *st)
{
	GString *s = g_string_new(NULL);

	g_string_append_printf(s, "sent=%d deferred=%d failed=%d", st->sent,
			       st->deferred, st->failed);
	if (cfg->smtp_url)
		;
	else if (st->mbox > 0)
		g_string_append_printf(s, " (dry run: written to %s)",
				       cfg->dry_run_mbox);
	else if (st->mbox < 0)
		g_string_append_printf(s, " (dry run: %s cannot be written)",
				       cfg->dry_run_mbox);
	else
		g_string_append_printf(s, " (dry run: replies go to %s)",
				       cfg->dry_run_mbox);
	return g_string_free(s, FALSE);
}
