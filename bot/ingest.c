/*
 * patchwarden: the ingest pipeline (see bot/ingest.h).
 *
 * One reader thread splits the source into raw messages, parser threads
 * turn them into mail, patch model and findings (GMime objects never
 * cross threads), and the calling thread stores the results in source
 * order, a batch per transaction.  The bytes in flight are capped, so
 * memory stays bounded whatever the size of the source.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bot/ingest.h"
#include "bot/dkim.h"
#include "bot/patchwork.h"
#include "bot/printer.h"
#include "bot/log.h"
#include "bot/mail.h"
#include "bot/mailcmd.h"
#include "bot/pubinbox.h"
#include "bot/reply_policy.h"
#include "bot/source.h"
#include "bot/state.h"
#include "checks/rules.h"
#include "db/flood.h"
#include "db/identity.h"
#include "db/series.h"
#include "db/subscription.h"

#define BATCH 4000			/* messages per transaction: fewer commits
				 * write each hot index page fewer times */
#define INFLIGHT_BYTES (4u << 20)	/* raw bytes between reader and writer */

struct job {
	char *data;
	size_t len;
	char *where;
	struct pw_mail *mail;
	GPtrArray *findings;
	struct pw_fingerprint fp;
	int64_t fp_usec;	/* CPU the fingerprints took, with progress lines */
	char *error;
	/* From a source of pw_source_new() (struct pw_raw says what): */
	char *git_blob, *archive, *cursor_key, *cursor, *ack;
	bool removed;
	bool dkim_pass;		/* a DKIM signature of its From domain verified */
};

static void job_free(struct job *j)
{
	if (!j)
		return;
	g_free(j->data);
	g_free(j->where);
	pw_mail_free(j->mail);
	if (j->findings)
		g_ptr_array_free(j->findings, TRUE);
	g_free(j->error);
	g_free(j->git_blob);
	g_free(j->archive);
	g_free(j->cursor_key);
	g_free(j->cursor);
	g_free(j->ack);
	g_free(j);
}

/*
 * The list a message is filed under: the one given, else its List-Id
 * where the source is one the operator chose for a list (not a pipe
 * anyone can mail).
 */
static const char *list_of(const struct pw_ingest_opts *o, const struct pw_mail *m)
{
	if (o->list && *o->list)
		return o->list;
	if (o->no_list_id)
		return NULL;
	return m && m->list_id && *m->list_id ? m->list_id : NULL;
}

/*
 * Adds [reply] automated_senders to what the parser judged from the
 * header block alone (checks/message.h, pw_mail_automated()): before
 * the message is stored, so that flood detection and replies, which
 * come after, read one m->automated.
 */
static void mark_automated(struct pw_mail *m, const struct pw_config *cfg)
{
	struct pw_mail_origin origin = { .sender = pw_mail_poster_addr(m) };

	if (!m->automated && cfg->automated_senders)
		m->automated = pw_mail_automated(&origin,
			(const char *const *)cfg->automated_senders);
}

/*
 * Whether the message of j has taken more than [core] message_cpu since
 * the thread's CPU read began; it is then refused, with its reason, and
 * the work after this stage is not done.
 */
static bool over_cpu(struct job *j, const struct pw_config *cfg,
		     int64_t began)
{
	if (!cfg->message_cpu ||
	    pw_cpu_usec(true) - began < (int64_t)cfg->message_cpu * 1000000)
		return false;
	g_free(j->error);
	j->error = g_strdup_printf("took more than %d s of CPU to read"
				   " ([core] message_cpu): refused",
				   cfg->message_cpu);
	pw_mail_free(j->mail);
	j->mail = NULL;
	return true;
}

/*
 * Parses and checks one message; thread-safe, no database.  Live mail
 * (o->reply) that carries a DKIM signature is verified here, where the
 * work is spread over the parser threads: the store judges its sender
 * from the result (db/identity.h).  Mail read while backfilling is
 * never answered and is not verified: a key looked up in DNS for every
 * message of an archive would make a backfill take days.
 */
static void process(struct job *j, const struct pw_config *cfg,
		    const struct pw_ingest_opts *o)
{
	struct pw_check_opts co;
	struct pw_patch *p;
	int64_t began = pw_cpu_usec(true);

	if (j->error)
		return;
	if (pw_mail_parse_flags(j->data, j->len, PW_MAIL_REPLY_HEADERS_ONLY,
				&j->mail, &j->error) ||
	    over_cpu(j, cfg, began))
		return;
	mark_automated(j->mail, cfg);
	if (j->removed)		/* only its Message-ID is needed */
		return;
	j->dkim_pass = o->reply &&
		pw_dkim_verify(j->data, j->len,
			       pw_identity_domain(pw_mail_poster_addr(j->mail)),
			       NULL, cfg->dkim_keys, NULL) == PW_DKIM_PASS;
	if (j->mail->kind != PW_MAIL_PATCH || !j->mail->diff)
		return;
	pw_config_check_opts(cfg, list_of(o, j->mail), &co);
	j->findings = g_ptr_array_new_with_free_func((GDestroyNotify)pw_finding_free);
	p = pw_mail_diff(j->mail);
	pw_check_patch(p, &co, j->findings);
	if (over_cpu(j, cfg, began)) {
		g_ptr_array_free(j->findings, TRUE);
		j->findings = NULL;
		pw_patch_free(p);
		return;
	}
	/* The quoted lines travel with the findings: a reply reads them
	 * from the store, never from the patch again. */
	pw_patch_quote_findings(p, j->findings);
	if (!o->no_floods) {
		int64_t t0 = o->progress > 0 ? pw_cpu_usec(true) : 0;

		pw_fingerprint_compute(j->mail->subject, j->mail->commit_msg, p,
				       j->mail->diff, p->len, &j->fp);
		if (o->progress > 0)
			j->fp_usec = pw_cpu_usec(true) - t0;
	} else {
		/* The patch-id alone: a maintainer's tree is matched by it. */
		pw_flood_patch_id(j->mail->diff, p->len, j->fp.patch_id);
	}
	pw_patch_free(p);
}

/*
 * Files a new patch with the flood detector, through the load's filter
 * ff (or NULL); co are the rule switches of the patch's list.
 */
static enum pw_status observe(struct pw_db *db, const struct pw_config *cfg,
			      struct pw_flood_filter *ff,
			      const struct pw_check_opts *co,
			      const struct job *j, int64_t message_id,
			      int64_t patch_id, int64_t series_id,
			      int64_t *flood_id)
{
	struct pw_flood_params fp = { cfg->flood_count, cfg->flood_window, co,
				      cfg->flood_burst, cfg->flood_lists };
	struct pw_flood_obs ob = { .mail = j->mail, .message_id = message_id,
				   .patch_id = patch_id, .series_id = series_id,
				   .fp = &j->fp };

	return pw_db_flood_observe(db, ff, &ob, &fp, flood_id);
}

/*
 * Naked cover letters (b4's rule): a thread root that is neither a patch
 * nor a reply, answered by a patch of its own sender, is the cover
 * letter of that patch's series.  Stored first, the root is "other"
 * until the patch comes (naked_cover); stored after the patch, it is
 * made one at once (late_naked_cover).  "patchwarden parse" applies the
 * rule to a root and the message after it.
 */
static enum pw_status naked_cover(struct pw_db *db, const struct pw_mail *m,
				  int64_t series_id, struct pw_ingest_counts *c)
{
	const char *parent = m->in_reply_to;
	struct pw_msg_head h;
	struct pw_mail root;
	char *refs[2] = { NULL, NULL }, *clean;
	enum pw_status s = PW_OK;
	bool set = false, found;

	if (!parent && m->references)
		parent = m->references[0];
	if (!parent)
		return PW_OK;
	s = pw_db_message_head(db, parent, &h, &found);
	if (s || !found)
		return s;
	/* Most parents are covers or patches: no more to read then. */
	if (g_strcmp0(h.kind, "other")) {
		pw_msg_head_release(&h);
		return PW_OK;
	}
	memset(&root, 0, sizeof(root));
	root.msgid = (char *)parent;
	root.kind = PW_MAIL_OTHER;
	root.from_addr = h.from_addr ? h.from_addr : (char *)"";
	root.in_reply_to = h.in_reply_to && *h.in_reply_to ? h.in_reply_to : NULL;
	/* The stored References, whole: the rule asks only whether any. */
	refs[0] = h.refs && *h.refs ? h.refs : NULL;
	root.references = refs;
	clean = pw_subject_parse(h.subject ? h.subject : "", &root.tags);
	if (pw_mail_is_naked_cover(&root, m))
		s = pw_db_series_naked_cover(db, series_id, h.id, clean, h.date,
					     &set);
	/* Counted as a cover if this run counted it as other. */
	if (set && c->first_id && h.id >= c->first_id && c->others > 0) {
		c->others--;
		c->covers++;
	}
	g_free(clean);
	pw_subject_tags_release(&root.tags);
	pw_msg_head_release(&h);
	return s;
}

/* A root stored after a patch of its sender that answers it. */
static enum pw_status late_naked_cover(struct pw_db *db,
				       const struct pw_mail *m, int64_t id,
				       bool *made)
{
	enum pw_status s;
	int64_t series_id;

	*made = false;
	if (!pw_mail_is_bare_root(m))
		return PW_OK;
	s = pw_db_series_answering(db, m->msgid, pw_mail_poster_addr(m),
				   &series_id);
	if (s || !series_id)
		return s;
	return pw_db_series_naked_cover(db, series_id, id, m->subject_clean,
					m->date, made);
}

/*
 * Counts stored message j (row id) by its kind and stores what its kind
 * owes: a patch row and its findings (*patch_id), a pull request's
 * row; a reply is read for a maintainer's decision (bot/state.h).
 * *more says whether it goes on to series and lineage (patches and
 * cover letters).
 */
static enum pw_status classify(struct pw_db *db, const struct pw_config *cfg,
			       const struct pw_ingest_opts *o,
			       const struct job *j, int64_t id,
			       int64_t *patch_id, struct pw_ingest_counts *c,
			       bool *more)
{
	const struct pw_mail *m = j->mail;
	enum pw_status s;
	bool made;

	*more = false;
	switch (m->kind) {
	case PW_MAIL_PATCH:
		c->patches++;
		s = pw_db_patch_add(db, id, m->tags.number, NULL, patch_id);
		if (!s)
			s = pw_db_findings_add(db, *patch_id, j->findings);
		c->findings += j->findings ? j->findings->len : 0;
		*more = !s;
		return s;
	case PW_MAIL_COVER:
		c->covers++;
		*more = true;
		return PW_OK;
	case PW_MAIL_COMMENT:
		c->comments++;
		return pw_state_reply(db, cfg, m, id, j->data, j->len,
				      list_of(o, m), &made);
	case PW_MAIL_PULL:
		c->pulls++;
		return pw_db_patch_add(db, id, 0, m->pull_url, patch_id);
	case PW_MAIL_OTHER:
		s = late_naked_cover(db, m, id, &made);
		if (made)
			c->covers++;
		else
			c->others++;
		return s;
	}
	return PW_OK;
}

/*
 * Files stored patch or cover letter j (row id; patch_id for a patch)
 * under its series (*series_id), a naked cover letter with it, and the
 * series into its lineage.
 */
static enum pw_status file_series(struct pw_db *db, const struct job *j,
				  int64_t id, int64_t patch_id,
				  struct pw_ingest_counts *c, int64_t *series_id)
{
	const struct pw_mail *m = j->mail;
	enum pw_status s;

	s = pw_db_series_assign(db, id, patch_id, m, series_id);
	if (!s && m->kind == PW_MAIL_PATCH)
		s = naked_cover(db, m, *series_id, c);
	if (!s)
		s = pw_state_lineage(db, m, j->data, j->len, *series_id,
				     patch_id, j->fp.patch_id);
	return s;
}

/*
 * Stores one processed message inside the caller's transaction; ff is
 * the load's flood filter, or NULL.  Its stages: what the parse said
 * (an error, a removal), decisions by mail (a command to the bot), the
 * message itself, its kind, series and lineage, flood detection, and
 * the reply and Patchwork checks it is owed.
 */
static enum pw_status store(struct pw_db *db, const struct pw_config *cfg,
			    struct pw_flood_filter *ff, struct job *j,
			    const char *source, const struct pw_ingest_opts *o,
			    struct pw_ingest_counts *c)
{
	const struct pw_mail *m = j->mail;
	struct pw_check_opts co;
	struct pw_msg_origin from = { .raw = j->data, .raw_len = j->len,
				      .git_blob = j->git_blob,
				      .source = j->archive ? j->archive : source,
				      .backfill = !o->reply };
	int64_t id, patch_id = 0, series_id, flood_id = 0;
	enum pw_status s;
	bool is_new, command, more;

	c->t.fingerprint_usec += j->fp_usec;
	if (j->error && j->removed) {
		/* A removal that cannot be read removes nothing. */
		if (!o->quiet)
			pw_warn("%s: a removal that cannot be read: %s",
				j->where, j->error);
		return PW_OK;
	}
	if (j->error) {
		if (!o->quiet)
			pw_error("%s: %s", j->where, j->error);
		c->errors++;
		return pw_db_ingest_error_add(db, source, j->where, NULL, j->error,
					      j->data, j->len);
	}
	if (j->removed) {
		bool found;

		s = pw_db_message_removed(db, m->msgid, from.source, &found);
		if (!s && found)
			c->removed++;
		return s;
	}
	/* A maintainer's command in reply to the bot (bot/mailcmd.h) is
	 * obeyed or refused there, and never stored nor checked. */
	s = pw_mailcmd_handle(db, cfg, m, j->data, j->len, &command);
	if (s || command)
		return s;
	s = pw_db_message_add(db, m, &from, list_of(o, m), &id, &is_new);
	if (s)
		return s;
	c->messages++;
	if (!is_new) {
		c->duplicates++;
		return PW_OK;
	}
	if (!c->first_id)
		c->first_id = id;
	/* Who sent it, before anything it may cause: floods, replies. */
	if (o->reply) {
		s = pw_db_identity_note(db, id, pw_mail_poster_addr(m),
					j->dkim_pass, (int64_t)time(NULL),
					&j->mail->auth);
		if (s)
			return s;
	}
	s = classify(db, cfg, o, j, id, &patch_id, c, &more);
	if (s || !more)
		return s;
	s = file_series(db, j, id, patch_id, c, &series_id);
	if (s || m->kind != PW_MAIL_PATCH)
		return s;
	pw_config_check_opts(cfg, list_of(o, m), &co);
	if (!o->no_floods) {
		int64_t t0 = o->progress > 0 ? pw_cpu_usec(true) : 0;

		s = observe(db, cfg, ff, &co, j, id, patch_id, series_id,
			    &flood_id);
		if (o->progress > 0)
			c->t.flood_usec += pw_cpu_usec(true) - t0;
	}
	if (s || !o->reply)
		return s;
	/* In the same transaction: a stored patch always has its reply
	 * decision and the checks it owes Patchwork stored with it,
	 * whatever happens next. */
	s = pw_patchwork_enqueue(db, cfg, id, m, list_of(o, m));
	if (s)
		return s;
	return pw_reply_policy_new_patch(db, cfg, id, m, flood_id,
					 pw_rule_on(&co, PW_R_FLOOD), series_id);
}

/*
 * Puts the counts of stored things back to *was: a batch that is rolled
 * back stored nothing, and the summary says what the store holds.  The
 * progress mark follows, so that the next line counts from there.
 */
static void counts_undo(struct pw_ingest_counts *c,
			const struct pw_ingest_counts *was)
{
	struct pw_ingest_timing t = c->t;

	*c = *was;
	c->t = t;
	if (c->t.mark_messages > c->messages + c->errors)
		c->t.mark_messages = c->messages + c->errors;
}

/* ---- progress ---- */

/* Where the next progress line counts from: now. */
static void progress_mark(struct pw_ingest_counts *c, int64_t now,
			  int64_t cpu, int64_t writer)
{
	c->t.mark_messages = c->messages + c->errors;
	c->t.mark_usec = now;
	c->t.mark_cpu_usec = cpu;
	c->t.mark_writer_usec = writer;
	c->t.mark_idle_usec = c->t.idle_usec;
	c->t.mark_fingerprint_usec = c->t.fingerprint_usec;
	c->t.mark_flood_usec = c->t.flood_usec;
}

/*
 * Every o->progress messages, one line on stderr for the interval just
 * ended: how many, how long, the rate, the CPU it took, the part of that
 * CPU spent storing (the writer, which calls this, is serial; the rest
 * is reading and parsing in parallel), how long the writer waited for
 * parsed messages (near 0: storing is what limits the rate) and the CPU
 * flood detection took (fingerprints, measured on the parser threads,
 * and filing each patch, in the writer).  A bulk import shows it is
 * moving; benchmarks read the rate as it goes.
 */
static void progress(const struct pw_ingest_opts *o, struct pw_ingest_counts *c,
		     struct pw_source *src, bool last)
{
	int64_t done = c->messages + c->errors, n = done - c->t.mark_messages;
	int64_t now, cpu, writer, expected = src ? pw_source_expected(src) : -1;
	GString *line;
	double secs;

	if (o->progress <= 0 || n <= 0 || (!last && n < o->progress))
		return;
	now = g_get_monotonic_time();
	cpu = pw_cpu_usec(false);
	writer = pw_cpu_usec(true);
	secs = (double)(now - c->t.mark_usec) / 1e6;
	line = g_string_new(o->progress_name);
	g_string_append_printf(line, "progress: messages=%" G_GINT64_FORMAT
		" total=%" G_GINT64_FORMAT " seconds=%.3f cpu=%.3f writer=%.3f"
		" idle=%.3f fingerprints=%.3f floods=%.3f rate=%.0f",
		n, done, secs, (double)(cpu - c->t.mark_cpu_usec) / 1e6,
		(double)(writer - c->t.mark_writer_usec) / 1e6,
		(double)(c->t.idle_usec - c->t.mark_idle_usec) / 1e6,
		(double)(c->t.fingerprint_usec - c->t.mark_fingerprint_usec) / 1e6,
		(double)(c->t.flood_usec - c->t.mark_flood_usec) / 1e6,
		secs > 0 ? (double)n / secs : 0.0);
	if (expected >= 0) {
		/* The source says how many it brings: how far it is, and
		 * the time left at its rate so far (removals are read too). */
		int64_t read = done + c->removed - c->t.source_done;
		int64_t left = MAX(expected - read, 0);
		double took = (double)(now - c->t.source_usec) / 1e6;

		g_string_append_printf(line, " read=%" G_GINT64_FORMAT " expected=%"
				       G_GINT64_FORMAT, read, MAX(expected, read));
		if (read > 0 && took > 0)
			g_string_append_printf(line, " eta=%.0f",
					       (double)left * took / (double)read);
		else
			g_string_append(line, " eta=?");
	}
	if (o->progress_log)
		pw_info("%s", line->str);
	else
		fprintf(stderr, "%s\n", line->str);
	g_string_free(line, TRUE);
	progress_mark(c, now, cpu, writer);
}

/* ---- the threaded pipeline ---- */

/*
 * Messages travel in chunks, so that threads hand over work a few
 * hundred times a second rather than once per message.
 */
#define CHUNK_MESSAGES 64
#define PARSER_NICE 5
#define CHUNK_BYTES (1u << 20)

struct chunk {
	int64_t seq;		/* -1: end of input */
	GPtrArray *jobs;	/* struct job * */
	size_t bytes;
};

static void chunk_free(struct chunk *k)
{
	if (k->jobs)
		g_ptr_array_free(k->jobs, TRUE);
	g_free(k);
}

struct pipe {
	struct pw_source *src;
	const struct pw_config *cfg;
	const struct pw_ingest_opts *o;
	GAsyncQueue *work, *done;
	GAsyncQueue *trash;	/* stored chunks, freed by the reader */
	GMutex lock;
	GCond cond;
	size_t inflight;
	bool stop;
	int nworkers;
	char *read_error;	/* a read error that ended the source */
	bool complete;		/* the source was read to its end */
};

/* Waits until n more bytes fit in the budget; false once told to stop. */
static bool budget_take(struct pipe *p, size_t n)
{
	bool go;

	g_mutex_lock(&p->lock);
	while (!p->stop && p->inflight > 0 && p->inflight + n > INFLIGHT_BYTES)
		g_cond_wait(&p->cond, &p->lock);
	p->inflight += n;
	go = !p->stop;
	g_mutex_unlock(&p->lock);
	return go;
}

static void budget_give(struct pipe *p, size_t n)
{
	g_mutex_lock(&p->lock);
	p->inflight -= n;
	g_cond_broadcast(&p->cond);
	g_mutex_unlock(&p->lock);
}

static struct chunk *chunk_new(int64_t seq)
{
	struct chunk *k = g_new0(struct chunk, 1);

	k->seq = seq;
	k->jobs = g_ptr_array_new_with_free_func((GDestroyNotify)job_free);
	return k;
}

/*
 * Frees the chunks the writer has stored.  Freeing a chunk is most of a
 * millisecond of free() calls; the writer is the one serial stage, the
 * reader mostly waits.
 */
static void drain(struct pipe *p)
{
	struct chunk *k;

	while ((k = g_async_queue_try_pop(p->trash)))
		chunk_free(k);
}

static gpointer reader(gpointer data)
{
	struct pipe *p = data;
	struct chunk *k;
	int64_t seq = 0;
	bool go = true;
	int i;

	k = chunk_new(seq++);
	while (go && !(p->o->stop && *p->o->stop)) {
		struct pw_raw raw;
		struct job *j;
		char *err = NULL;
		enum pw_status s;

		memset(&raw, 0, sizeof(raw));
		s = pw_source_next(p->src, &raw, &err);
		if (s == PW_OK && !raw.data) {
			/* The end, unless a stop made the source end early. */
			p->complete = !(p->o->stop && *p->o->stop);
			break;
		}
		if (s != PW_OK && s != PW_ERR_INPUT) {
			p->read_error = err ? err : g_strdup(pw_status_str(s));
			break;
		}
		j = g_new0(struct job, 1);
		j->where = g_strdup(raw.where ? raw.where : pw_source_path(p->src));
		if (raw.cut_short && !p->o->quiet)
			pw_warn("%s: the mbox ends inside this message without a "
				"newline: the file may be cut short", j->where);
		if (raw.data) {
			j->data = g_memdup2(raw.data, raw.len);
			j->len = raw.len;
		}
		j->error = err;
		j->git_blob = g_strdup(raw.git_blob);
		j->archive = g_strdup(raw.archive);
		j->cursor_key = g_strdup(raw.cursor_key);
		j->cursor = g_strdup(raw.cursor);
		j->ack = g_strdup(raw.ack);
		j->removed = raw.removed;
		g_ptr_array_add(k->jobs, j);
		k->bytes += j->len;
		if (k->jobs->len >= CHUNK_MESSAGES || k->bytes >= CHUNK_BYTES) {
			go = budget_take(p, k->bytes);
			g_async_queue_push(p->work, k);
			k = chunk_new(seq++);
			drain(p);
		}
	}
	if (k->jobs->len) {
		budget_take(p, k->bytes);
		g_async_queue_push(p->work, k);
	} else {
		chunk_free(k);
	}
	for (i = 0; i < p->nworkers; i++) {
		struct chunk *end = g_new0(struct chunk, 1);

		end->seq = -1;
		g_async_queue_push(p->work, end);
	}
	return NULL;
}

static gpointer worker(gpointer data)
{
	struct pipe *p = data;

	/*
	 * The writer is the one serial stage: parsers yield to it, so that
	 * it never falls behind, the budget never stops them and no core
	 * sits idle.  Raising one's own nice value needs no privilege.
	 */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), PARSER_NICE))
		pw_debug("cannot lower the parser threads' priority: %s",
			 g_strerror(errno));
	for (;;) {
		struct chunk *k = g_async_queue_pop(p->work);
		bool end = k->seq < 0;	/* k belongs to the writer once pushed */
		guint i;

		for (i = 0; !end && i < k->jobs->len; i++)
			process(k->jobs->pdata[i], p->cfg, p->o);
		g_async_queue_push(p->done, k);
		if (end)
			return NULL;
	}
}

static int ncores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

/*
 * What a batch owes its source: the cursors to write before it commits
 * (key -> value, the last one of each key) and the acks to hand over
 * once it has.
 */
struct owed {
	GHashTable *cursors;
	GPtrArray *acks;
};

static void owed_note(struct owed *w, struct job *j)
{
	if (j->cursor_key && j->cursor) {
		g_hash_table_replace(w->cursors, j->cursor_key, j->cursor);
		j->cursor_key = j->cursor = NULL;
	}
	if (j->ack) {
		g_ptr_array_add(w->acks, j->ack);
		j->ack = NULL;
	}
}

static enum pw_status owed_write(struct pw_db *db, struct owed *w)
{
	GHashTableIter it;
	gpointer k, v;
	enum pw_status s = PW_OK;

	g_hash_table_iter_init(&it, w->cursors);
	while (!s && g_hash_table_iter_next(&it, &k, &v))
		s = pw_db_cursor_set(db, k, v);
	return s;
}

/* After the commit (committed) or the rollback of a batch. */
static void owed_settle(struct owed *w, struct pw_source *src, bool committed)
{
	guint i;

	for (i = 0; committed && i < w->acks->len; i++)
		pw_source_ack(src, w->acks->pdata[i]);
	g_ptr_array_set_size(w->acks, 0);
	g_hash_table_remove_all(w->cursors);
}

/* New messages counted in c since was. */
static int64_t added(const struct pw_ingest_counts *c, const struct pw_ingest_counts *was)
{
	return c->patches + c->covers + c->comments + c->pulls + c->others -
	       (was->patches + was->covers + was->comments + was->pulls + was->others);
}

/*
 * Commits a batch with what it owes its source, and, for a
 * subscription, the count of new messages it brought (committed with
 * them, so that a crash loses neither).
 */
static enum pw_status batch_commit(struct pw_db *db, struct owed *w,
				   struct pw_source *src,
				   const struct pw_ingest_opts *o,
				   const struct pw_ingest_counts *c,
				   const struct pw_ingest_counts *was)
{
	enum pw_status s = owed_write(db, w);

	if (!s && o->subscription && added(c, was))
		s = pw_db_subscription_brought(db, o->subscription, added(c, was));
	if (!s)
		s = pw_db_commit(db);
	if (!s)
		owed_settle(w, src, true);
	return s;
}

enum pw_status pw_ingest_path(struct pw_db *db, const struct pw_config *cfg,
			      const char *path, const struct pw_ingest_opts *o,
			      struct pw_ingest_counts *c, char **err)
{
	struct pw_source *src;
	enum pw_status s;

	*err = NULL;
	s = pw_source_open_flags(path, o->stdin_one ? PW_SOURCE_STDIN_ONE : 0,
				 &src, err);
	if (s)
		return s;
	return pw_ingest_source(db, cfg, src, path, o, c, err);
}

/* Answers the series whose wait ran out (bot/reply_policy.h), in a
 * transaction of its own; *err says why when the store failed. */
static enum pw_status settle_waiting(struct pw_db *db,
				     const struct pw_config *cfg, char **err)
{
	enum pw_status s;
	int n = 0;

	s = pw_db_begin(db);
	if (!s)
		s = pw_reply_policy_release_waiting(db, cfg, (int64_t)time(NULL),
						    &n);
	if (!s)
		s = pw_db_commit(db);
	if (s) {
		pw_db_rollback(db);
		*err = g_strdup(pw_db_errmsg(db));
	}
	return s;
}

enum pw_status pw_ingest_source(struct pw_db *db, const struct pw_config *cfg,
				struct pw_source *src, const char *path,
				const struct pw_ingest_opts *o,
				struct pw_ingest_counts *c, char **err)
{
	struct pw_flood_filter *ff;
	struct pipe p;
	GThread *rt, **wt;
	GHashTable *pending;
	enum pw_status s = PW_OK;
	int64_t next = 0, in_batch = 0;
	struct pw_ingest_counts batch_start = *c;
	struct owed owed;
	int ended = 0, i;

	*err = NULL;
	pw_mail_init();
	memset(&p, 0, sizeof(p));
	p.src = src;
	c->t.source_done = c->messages + c->errors + c->removed;
	c->t.source_usec = g_get_monotonic_time();
	if (!c->t.mark_usec)
		progress_mark(c, c->t.source_usec, pw_cpu_usec(false), pw_cpu_usec(true));
	owed.cursors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	owed.acks = g_ptr_array_new_with_free_func(g_free);
	p.cfg = cfg;
	p.o = o;
	p.nworkers = o->threads > 0 ? o->threads : ncores();
	p.work = g_async_queue_new();
	p.done = g_async_queue_new();
	p.trash = g_async_queue_new();
	g_mutex_init(&p.lock);
	g_cond_init(&p.cond);
	pending = g_hash_table_new(g_int64_hash, g_int64_equal);
	/* The flood filter is this load's (db/FLOODS.md). */
	ff = o->no_floods ? NULL : pw_db_flood_filter_new();

	/* Checkpoints run beside the writer, not inside its commits. */
	pw_db_checkpoint_start(db);
	rt = g_thread_new("pw-reader", reader, &p);
	wt = g_new0(GThread *, p.nworkers);
	for (i = 0; i < p.nworkers; i++)
		wt[i] = g_thread_new("pw-parser", worker, &p);

	while (ended < p.nworkers) {
		int64_t t0 = g_get_monotonic_time();
		struct chunk *k = g_async_queue_pop(p.done);

		c->t.idle_usec += g_get_monotonic_time() - t0;

		if (k->seq < 0) {
			ended++;
			chunk_free(k);
			continue;
		}
		g_hash_table_insert(pending, &k->seq, k);
		while ((k = g_hash_table_lookup(pending, &next))) {
			guint n;

			g_hash_table_remove(pending, &next);
			next++;
			for (n = 0; !s && n < k->jobs->len; n++) {
				if (in_batch == 0) {
					s = pw_db_begin(db);
					batch_start = *c;
				}
				if (!s)
					s = store(db, cfg, ff, k->jobs->pdata[n], path,
						  o, c);
				if (!s)
					owed_note(&owed, k->jobs->pdata[n]);
				if (!s)
					progress(o, c, p.src, false);
				if (!s && ++in_batch >= BATCH) {
					s = batch_commit(db, &owed, p.src, o, c,
							 &batch_start);
					in_batch = 0;
				}
			}
			budget_give(&p, k->bytes);
			g_async_queue_push(p.trash, k);
			if (s && !p.stop) {
				/* The database failed: stop reading; what is
				 * committed stays. */
				g_mutex_lock(&p.lock);
				p.stop = true;
				g_cond_broadcast(&p.cond);
				g_mutex_unlock(&p.lock);
			}
		}
	}
	/*
	 * A subscription's first poll that read its source to the end:
	 * backfill is over, in the transaction of its last messages, so
	 * that a crash cannot keep their cursor and lose this.
	 */
	if (!s && o->subscription && o->ends_backfill && p.complete &&
	    !p.read_error) {
		if (in_batch == 0) {
			s = pw_db_begin(db);
			batch_start = *c;
		}
		if (!s)
			s = pw_db_subscription_backfilled(db, o->subscription);
		in_batch++;
	}
	if (!s && in_batch > 0)
		s = batch_commit(db, &owed, p.src, o, c, &batch_start);
	if (s) {
		/* Nothing of the batch is stored (a commit that fails
		 * has rolled back already). */
		pw_db_rollback(db);
		owed_settle(&owed, p.src, false);
		counts_undo(c, &batch_start);
	}
	g_hash_table_destroy(owed.cursors);
	g_ptr_array_free(owed.acks, TRUE);
	g_thread_join(rt);
	drain(&p);
	for (i = 0; i < p.nworkers; i++)
		g_thread_join(wt[i]);
	g_free(wt);
	g_hash_table_destroy(pending);
	pw_db_flood_filter_free(ff);
	g_async_queue_unref(p.work);
	g_async_queue_unref(p.done);
	g_async_queue_unref(p.trash);
	g_mutex_clear(&p.lock);
	g_cond_clear(&p.cond);
	if (s) {
		*err = g_strdup_printf("%s: %s", path, pw_db_errmsg(db));
		/* The store failed (a full disk is PW_ERR_IO from the raw
		 * store): the next inputs would fail alike, so the caller
		 * stops, as for any database failure. */
		if (s != PW_ERR_TRANSIENT)
			s = PW_ERR_DB;
	} else if (p.read_error) {
		*err = p.read_error;
		p.read_error = NULL;
		s = PW_ERR_IO;
	}
	g_free(p.read_error);
	/* The series whose wait for their missing patches ran out while
	 * this source was read are answered once it is read whole, so
	 * that mail read long after it was sent is answered a series at a
	 * time (preview decides them on its own clock). */
	if (!s && o->reply && !cfg->reply_replay)
		s = settle_waiting(db, cfg, err);
	pw_db_checkpoint_stop(db);
	/* A subscription's poll ends with its line: how far it got. */
	if (o->progress_name)
		progress(o, c, p.src, true);
	pw_source_free(p.src);
	return s;
}

bool pw_ingest_paths(struct pw_db *db, const struct pw_config *cfg,
		     char **paths, int n, const struct pw_ingest_opts *o,
		     struct pw_ingest_counts *counts)
{
	int i;

	progress_mark(counts, g_get_monotonic_time(), pw_cpu_usec(false),
		      pw_cpu_usec(true));
	for (i = 0; i < n; i++) {
		char *err = NULL;
		enum pw_status s = pw_ingest_path(db, cfg, paths[i], o, counts, &err);

		if (!s)
			continue;
		pw_error("%s", err ? err : pw_status_str(s));
		g_free(err);
		counts->errors++;
		counts->sources_failed++;
		if (s == PW_ERR_DB || s == PW_ERR_TRANSIENT) {
			progress(o, counts, NULL, true);
			return false;
		}
	}
	progress(o, counts, NULL, true);
	return true;
}

enum pw_status pw_ingest_recheck(struct pw_db *db, const struct pw_config *cfg,
				 int64_t since, int64_t *checked,
				 int64_t *findings, char **err)
{
	GArray *refs;
	enum pw_status s = PW_OK;
	guint i;

	*checked = *findings = 0;
	*err = NULL;
	pw_mail_init();
	s = pw_db_patch_list(db, since, &refs);
	for (i = 0; !s && i < refs->len; i++) {
		const struct pw_db_patch_ref *r =
			&g_array_index(refs, struct pw_db_patch_ref, i);
		struct pw_ingest_opts o = { .no_floods = true };	/* rules only */
		struct job j;
		GBytes *raw;
		char *list;

		if (i % BATCH == 0 && (s = pw_db_begin(db)))
			break;
		if ((s = pw_pubinbox_message(db, r->message_id, &raw)))
			break;
		if (!raw)
			goto next;
		memset(&j, 0, sizeof(j));
		j.data = (char *)g_bytes_get_data(raw, &j.len);
		s = pw_db_message_list(db, r->message_id, &list);
		if (s) {
			g_bytes_unref(raw);
			break;
		}
		o.list = list;
		process(&j, cfg, &o);
		if (j.error)
			pw_warn("message %" G_GINT64_FORMAT ": %s", r->message_id, j.error);
		else if (j.findings) {
			s = pw_db_findings_set(db, r->patch_id, j.findings);
			*findings += j.findings->len;
			(*checked)++;
		}
		g_free(list);
		j.data = NULL;
		pw_mail_free(j.mail);
		if (j.findings)
			g_ptr_array_free(j.findings, TRUE);
		g_free(j.error);
		g_bytes_unref(raw);
next:
		if (!s && (i % BATCH == BATCH - 1 || i + 1 == refs->len))
			s = pw_db_commit(db);
	}
	if (s) {
		pw_db_rollback(db);
		*err = g_strdup(pw_db_errmsg(db));
	}
	g_array_free(refs, TRUE);
	return s;
}
