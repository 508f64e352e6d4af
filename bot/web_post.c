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
#include <unistd.h>

#include "bot/ingest.h"
#include "bot/mail.h"
#include "bot/printer.h"
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

/* A bare diff, not a mail: what "check" takes as a patch file. */
static bool bare_diff(const char *s, size_t len)
{
	return (len > 5 && !strncmp(s, "diff ", 5)) ||
	       (len > 4 && !strncmp(s, "--- ", 4)) ||
	       (len > 6 && !strncmp(s, "Index:", 6));
}

/* The findings of one diff, as records of the open list of p. */
static void check_diff(struct pw_printer *p, const struct pw_check_opts *o,
		       const char *diff, size_t len, const struct pw_mail *m)
{
	GPtrArray *fs = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_finding_free);
	struct pw_patch *patch = pw_diff_parse(diff, len);
	guint i;

	pw_check_patch(patch, o, fs);
	for (i = 0; i < fs->len; i++) {
		const struct pw_finding *f = fs->pdata[i];

		pw_print_begin_record(p);
		pw_print_str_at(p, "msgid", m ? m->msgid : NULL);
		pw_print_str_at(p, "subject", m ? m->subject : NULL);
		pw_print_str_at(p, "rule", f->rule);
		pw_print_str_at(p, "severity", pw_severity_str(f->severity));
		pw_print_str_at(p, "file", f->file);
		pw_print_int_at(p, "line", f->line);
		pw_print_int_at(p, "column", f->column);
		pw_print_str_at(p, "message", f->message);
		pw_print_str_at(p, "fix", f->fix);
		pw_print_end(p);
	}
	pw_patch_free(patch);
	g_ptr_array_unref(fs);
}

/* Appends what the printer wrote to a->body as a JSON 200. */
static void answer_json(struct pw_web_answer *a, char *buf, size_t len)
{
	a->status = 200;
	a->type = "application/json";
	g_string_append_len(a->body, buf, (gssize)len);
	free(buf);
}

void pw_web_check(const struct pw_config *cfg, GHashTable *args,
		  const char *body, size_t len, struct pw_web_answer *a)
{
	const char *list = g_hash_table_lookup(args, "list");
	struct pw_source *src = NULL;
	struct pw_check_opts o;
	struct pw_printer *p;
	char *path = NULL, *err = NULL, *buf = NULL;
	size_t blen = 0;
	int patches = 0, unreadable = 0;
	FILE *out;

	if (!len) {
		pw_web_answer_error(a, true, 400, "the body is empty: post a"
				    " patch, a mail or an mbox");
		return;
	}
	pw_config_check_opts(pw_config_list(cfg, list), &o);
	out = open_memstream(&buf, &blen);
	p = pw_printer_new(PW_FORMAT_JSON, out, NULL, 0);
	pw_print_begin_map(p);
	pw_print_key(p, "findings");
	pw_print_begin_list(p);
	if (bare_diff(body, len)) {
		check_diff(p, &o, body, len, NULL);
		patches = 1;
	} else if (body_file(body, len, &path, a)) {
		pw_mail_init();
		if (pw_source_open(path, &src, &err) == PW_OK) {
			for (;;) {
				struct pw_raw raw = { 0 };
				struct pw_mail *m = NULL;
				enum pw_status st = pw_source_next(src, &raw, &err);

				g_free(err);
				err = NULL;
				if (st == PW_ERR_INPUT) {
					unreadable++;
					continue;
				}
				if (st || !raw.data)
					break;
				if (pw_mail_parse(raw.data, raw.len, &m, NULL)) {
					unreadable++;
					continue;
				}
				if (m->diff) {
					check_diff(p, &o, m->diff, strlen(m->diff), m);
					patches++;
				}
				pw_mail_free(m);
			}
		}
		g_free(err);
		pw_source_free(src);
		unlink(path);
		g_free(path);
	} else {
		/* body_file() answered. */
		pw_printer_free(p);
		fclose(out);
		free(buf);
		return;
	}
	pw_print_end(p);
	pw_print_int_at(p, "patches", patches);
	pw_print_int_at(p, "unreadable", unreadable);
	pw_print_end(p);
	pw_printer_free(p);
	fclose(out);
	if (!patches) {
		free(buf);
		pw_web_answer_error(a, true, 400, "no patch found in the body");
		return;
	}
	answer_json(a, buf, blen);
}

void pw_web_submit(struct pw_db *db, const struct pw_config *cfg,
		   GHashTable *args, const char *body, size_t len,
		   struct pw_web_answer *a)
{
	const char *list = g_hash_table_lookup(args, "list");
	struct pw_ingest_opts o = { .list = list, .quiet = true, .threads = 1 };
	struct pw_ingest_counts c = { 0 };
	char *path = NULL, *err = NULL, *buf = NULL;
	size_t blen = 0;
	enum pw_status st;
	FILE *out;

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

		out = open_memstream(&buf, &blen);
		pw_print_counts(n, G_N_ELEMENTS(n), true, out);
		fclose(out);
	}
	answer_json(a, buf, blen);
}
