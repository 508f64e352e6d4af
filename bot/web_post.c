/*
 * patchwarden: the dashboard's two POSTs (see bot/web_page.h):
 * /api/check runs the rules over a submitted mail, mbox or diff and
 * stores nothing; /api/submit stores it as "ingest" does.  Both read
 * the body through the sources of "check" and "ingest" (bot/source.c),
 * from a private temporary file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bot/check_mail.h"
#include "bot/ingest.h"
#include "bot/log.h"
#include "bot/mail.h"
#include "bot/printer.h"
#include "bot/report.h"
#include "bot/source.h"
#include "bot/web_page.h"
#include "checks/rules.h"

/* Writes body to a new private temporary file: *path (g_free, unlink). */
static bool body_file(const char *body, size_t len, char **path,
		      struct pw_web_answer *a)
{
	GError *e = NULL;
	int fd = g_file_open_tmp("patchwarden-post-XXXXXX", path, &e);
	size_t off = 0;

	if (fd < 0) {
		pw_web_answer_error(a, true, 500, "cannot hold the body: %s",
				    e->message);
		g_error_free(e);
		return false;
	}
	while (off < len) {
		ssize_t n = write(fd, body + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			pw_web_answer_error(a, true, 500, "cannot hold the body: %s",
					    g_strerror(errno));
			close(fd);
			unlink(*path);
			g_free(*path);
			*path = NULL;
			return false;
		}
		off += (size_t)n;
	}
	close(fd);
	return true;
}

/* The findings of one checked diff, as records of the open list of p:
 * those of the findings API, with the mail's Message-ID, sender,
 * subject and date.  Frees patch and findings. */
static void print_checked(struct pw_printer *p, struct pw_patch *patch,
			  GPtrArray *fs, const struct pw_mail *m)
{
	guint i;

	for (i = 0; i < fs->len; i++) {
		const struct pw_finding *f = fs->pdata[i];
		struct pw_query_finding q = {
			.msgid = m ? m->msgid : NULL,
			.from_addr = m ? m->from_addr : NULL,
			.subject = m ? m->subject : NULL,
			.date = m ? m->date : 0,
			.rule = (char *)f->rule, .severity = f->severity,
			.file = f->file, .line = f->line, .column = f->column,
			.message = f->message, .fix = f->fix,
		};

		pw_report_finding(p, &q);
	}
	pw_patch_free(patch);
	g_ptr_array_unref(fs);
}

/*
 * What /api/check keeps of a mail source: the printer, counts, why the
 * first message was refused unread (bot/mail.h), and the thread's CPU
 * at which it stops reading ([web] check_cpu; 0: never).
 */
struct post_check {
	struct pw_printer *p;
	int unreadable, messages;
	char *refused;
	gint64 cpu_end;
	bool over;		/* stopped there */
};

/* Before each message: on while the request has CPU left. */
static bool post_go_on(void *ctx)
{
	struct post_check *pc = ctx;

	if (pc->cpu_end && pw_cpu_usec(true) >= pc->cpu_end)
		pc->over = true;
	else
		pc->messages++;
	return !pc->over;
}

static void post_patch(void *ctx, const struct pw_raw *raw,
		       const struct pw_mail *m, struct pw_patch *patch,
		       GPtrArray *findings)
{
	print_checked(((struct post_check *)ctx)->p, patch, findings, m);
}

static void post_unreadable(void *ctx, const char *where, const char *why,
			    bool ended)
{
	struct post_check *pc = ctx;

	if (ended)
		return;
	pc->unreadable++;
	if (!pc->refused && g_str_has_suffix(why, PW_MAIL_REFUSED))
		pc->refused = g_strdup_printf("message %d: %s", pc->messages,
					      why);
}

void pw_web_check(const struct pw_config *cfg, GHashTable *args,
		  const char *body, size_t len, struct pw_web_answer *a)
{
	const char *list = g_hash_table_lookup(args, "list");
	struct pw_check_opts o;
	struct pw_printer *p;
	struct pw_web_sink sink;
	struct post_check pc = { 0 };
	char *path = NULL, *err = NULL;
	int patches = 0;

	if (!len) {
		pw_web_answer_error(a, true, 400, "the body is empty: post a"
				    " patch, a mail or an mbox");
		return;
	}
	pw_config_check_opts(cfg, list, &o);
	p = pw_web_printer(&sink, PW_FORMAT_JSON, NULL, 0);
	pw_print_begin_map(p);
	pw_print_key(p, "findings");
	pw_print_begin_list(p);
	if (pw_diff_is_bare(body, len)) {
		GPtrArray *fs = g_ptr_array_new_with_free_func(
			(GDestroyNotify)pw_finding_free);

		print_checked(p, pw_check_diff(body, len, &o, fs), fs, NULL);
		patches = 1;
	} else if (body_file(body, len, &path, a)) {
		const struct pw_check_visit v = { &pc, NULL, post_patch,
						  post_unreadable, post_go_on };

		pc.p = p;
		if (cfg->web_check_cpu)
			pc.cpu_end = pw_cpu_usec(true) +
				     (gint64)cfg->web_check_cpu * G_USEC_PER_SEC;
		pw_check_mail(path, &o, &v, &patches, &err);
		g_free(err);
		unlink(path);
		g_free(path);
	} else {
		/* body_file() answered. */
		pw_web_printer_done(&sink, p, NULL);
		return;
	}
	pw_print_end(p);
	pw_print_int_at(p, "patches", patches);
	pw_print_int_at(p, "unreadable", pc.unreadable);
	pw_print_end(p);
	if (pc.over || !patches) {
		/* A body that takes more CPU than a request may is too
		 * large in work (413); one refused unread is
		 * unprocessable (422), and says which and why. */
		pw_web_printer_done(&sink, p, NULL);
		if (pc.over)
			pw_web_answer_error(a, true, 413, "the check took more"
					    " than %d s of CPU ([web] check_cpu):"
					    " stopped before message %d; post"
					    " fewer messages at a time",
					    cfg->web_check_cpu, pc.messages + 1);
		else if (pc.refused)
			pw_web_answer_error(a, true, 422, "%s", pc.refused);
		else
			pw_web_answer_error(a, true, 400, "no patch found in"
					    " the body");
		g_free(pc.refused);
		return;
	}
	g_free(pc.refused);
	a->status = 200;
	a->type = "application/json";
	pw_web_printer_done(&sink, p, a->body);
}

void pw_web_submit(struct pw_db *db, const struct pw_config *cfg,
		   GHashTable *args, const char *body, size_t len,
		   struct pw_web_answer *a)
{
	const char *list = g_hash_table_lookup(args, "list");
	struct pw_ingest_opts o = { .list = list, .quiet = true, .threads = 1,
				     .no_floods = !cfg->flood_detect };
	struct pw_ingest_counts c = { 0 };
	char *path = NULL, *err = NULL;
	enum pw_status st;

	if (!len) {
		pw_web_answer_error(a, true, 400, "the body is empty: post a"
				    " mail or an mbox");
		return;
	}
	if (list && (!*list || strlen(list) > 255 || strpbrk(list, "\r\n\t /"))) {
		pw_web_answer_error(a, true, 400, "list: a list name, without"
				    " white space or '/'");
		return;
	}
	if (!body_file(body, len, &path, a))
		return;
	st = pw_ingest_path(db, cfg, path, &o, &c, &err);
	unlink(path);
	g_free(path);
	if (st) {
		pw_web_answer_error(a, true, st == PW_ERR_TRANSIENT ? 503 : 500,
				    "not stored: %s", err ? err : pw_status_str(st));
		g_free(err);
		return;
	}
	if (!c.messages) {
		pw_web_answer_error(a, true, 400, "no message found in the body");
		return;
	}
	{
		const struct pw_count n[] = {
			{ "messages", c.messages }, { "stored_patches", c.patches },
			{ "already_stored", c.duplicates },
			{ "unreadable", c.errors }, { "findings", c.findings },
		};

		struct pw_web_sink sink;
		struct pw_printer *p = pw_web_printer(&sink, PW_FORMAT_JSON, NULL,
						      PW_PRINTER_COMPACT);
		size_t i;

		pw_print_begin_record(p);
		for (i = 0; i < G_N_ELEMENTS(n); i++)
			pw_print_int_at(p, n[i].name, n[i].value);
		pw_print_end(p);
		a->status = 200;
		a->type = "application/json";
		pw_web_printer_done(&sink, p, a->body);
	}
}
