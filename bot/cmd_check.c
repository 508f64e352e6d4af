/*
 * patchwarden check: the contributor's side of the bot.  Reads patch
 * files, mails and mboxes (every patch in them) or, with --file, whole
 * source files, runs the rules of checks/ on them and prints the
 * findings as text (checkpatch.pl --terse compatible), JSON or SARIF
 * 2.1.0.  --fix writes a corrected copy of its one input: the patch,
 * the source file, or the mail or mbox whole with each diff corrected.
 *
 * Exit status: 0 clean, 1 findings at or above --fail-on (default
 * warning), 2 usage or input error.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "bot/check_mail.h"
#include "bot/cmd.h"
#include "bot/log.h"
#include "bot/mail.h"
#include "bot/printer.h"
#include "bot/sarif.h"
#include "bot/source.h"
#include "checks/fix.h"
#include "checks/patch.h"
#include "checks/rules.h"

#define CHECK_MAX_INPUT (64u << 20)

enum format { F_TEXT, F_JSON, F_SARIF };

/* One checked unit: a patch (from a file or a mail) or a source file. */
struct unit {
	char *input;		/* where it came from, for people */
	char *subject;		/* the mail's subject, or NULL */
	char *msgid;
	bool source;		/* a whole source file (--file) */
	char *path;		/* --file: the file's name */
	struct pw_patch *patch;	/* a patch, or NULL */
	char *text;		/* --file: the file's bytes */
	size_t len;
	GPtrArray *findings;
	bool in_mail;		/* the patch is the diff of a mail */
	int64_t msg_start;	/* where that mail starts in its input, -1 */
	gssize at;		/* --fix: where that diff lies in the input's
				 * bytes, -1 when not there verbatim */
};

struct run {
	enum format format;
	struct pw_check_opts opts;
	bool whole_files;
	bool fix;
	const char *fix_output;
	enum pw_severity fail_on;
	GPtrArray *units;
	bool input_error;
	/* --fix of mail: the input's bytes, written back with each
	 * message's diff corrected in place, and where every message of
	 * it starts (patch or not), in order. */
	char *mail_bytes;
	size_t mail_len;
	GArray *starts;		/* int64_t */
};

static void unit_free(gpointer p)
{
	struct unit *u = p;

	g_free(u->input);
	g_free(u->subject);
	g_free(u->msgid);
	g_free(u->path);
	pw_patch_free(u->patch);
	g_free(u->text);
	g_ptr_array_free(u->findings, TRUE);
	g_free(u);
}

static struct unit *unit_new(struct run *r, const char *input)
{
	struct unit *u = g_new0(struct unit, 1);

	u->input = g_strdup(input);
	u->findings = g_ptr_array_new_with_free_func((GDestroyNotify)pw_finding_free);
	g_ptr_array_add(r->units, u);
	return u;
}

static bool read_all(const char *path, char **out, size_t *len)
{
	GError *err = NULL;
	gsize n = 0;

	if (!strcmp(path, "-")) {
		GString *s = g_string_new(NULL);
		char buf[65536];
		size_t k;

		while ((k = fread(buf, 1, sizeof(buf), stdin)) > 0) {
			g_string_append_len(s, buf, (gssize)k);
			if (s->len > CHECK_MAX_INPUT) {
				fprintf(stderr, "patchwarden: check: standard input is larger than %u MiB\n",
					CHECK_MAX_INPUT >> 20);
				g_string_free(s, TRUE);
				return false;
			}
		}
		if (ferror(stdin)) {
			fprintf(stderr, "patchwarden: check: cannot read standard input: %s\n",
				g_strerror(errno));
			g_string_free(s, TRUE);
			return false;
		}
		*len = s->len;
		*out = g_string_free(s, FALSE);
		return true;
	}
	if (!g_file_get_contents(path, out, &n, &err)) {
		fprintf(stderr, "patchwarden: check: %s\n", err->message);
		g_error_free(err);
		return false;
	}
	if (n > CHECK_MAX_INPUT) {
		fprintf(stderr, "patchwarden: check: %s is larger than %u MiB\n", path,
			CHECK_MAX_INPUT >> 20);
		g_free(*out);
		return false;
	}
	*len = n;
	return true;
}

/* A checked patch as a unit of r: patch and findings are handed over. */
static struct unit *patch_unit(struct run *r, const char *input,
			       struct pw_patch *patch, GPtrArray *findings,
			       const struct pw_mail *m)
{
	struct unit *u = unit_new(r, input);

	u->patch = patch;
	g_ptr_array_extend_and_steal(u->findings, findings);
	u->at = -1;
	u->msg_start = -1;
	if (m) {
		u->subject = g_strdup(m->subject);
		u->msgid = g_strdup(m->msgid);
		u->in_mail = true;
	}
	return u;
}

static struct unit *check_patch_text(struct run *r, const char *input,
				     const char *diff, size_t len)
{
	GPtrArray *fs = g_ptr_array_new_with_free_func(
		(GDestroyNotify)pw_finding_free);

	return patch_unit(r, input, pw_check_diff(diff, len, &r->opts, fs), fs,
			  NULL);
}

/* The run and the name of the input its mails come from. */
struct mails {
	struct run *r;
	const char *shown;
};

static void mail_started(void *ctx, const struct pw_raw *raw)
{
	struct mails *ms = ctx;

	if (ms->r->starts)
		g_array_append_val(ms->r->starts, raw->offset);
}

static void mail_patch(void *ctx, const struct pw_raw *raw,
		       const struct pw_mail *m, struct pw_patch *patch,
		       GPtrArray *findings)
{
	struct mails *ms = ctx;
	char *where = g_strdup_printf("%s: message %d", ms->shown, raw->index);

	patch_unit(ms->r, where, patch, findings, m)->msg_start = raw->offset;
	g_free(where);
}

static void mail_unreadable(void *ctx, const char *where, const char *why,
			    bool ended)
{
	struct mails *ms = ctx;

	fprintf(stderr, "patchwarden: check: %s: %s\n",
		where ? where : ms->shown, why);
	ms->r->input_error = true;
}

/* Every message of a mail file, mbox or Maildir. */
static void check_mails(struct run *r, const char *path, const char *shown)
{
	struct mails ms = { r, shown };
	const struct pw_check_visit v = { &ms, mail_started, mail_patch,
					  mail_unreadable, NULL };
	char *err = NULL;
	int patches = 0;
	enum pw_status st = pw_check_mail(path, &r->opts, &v, &patches, &err);

	if (st != PW_OK) {
		fprintf(stderr, "patchwarden: check: %s: %s\n", shown,
			err ? err : pw_status_str(st));
		g_free(err);
		r->input_error = true;
		return;
	}
	if (!patches)
		fprintf(stderr, "patchwarden: check: %s: no patch found\n", shown);
}

static void check_input(struct run *r, const char *path)
{
	const char *shown = strcmp(path, "-") ? path : "<stdin>";
	char *data = NULL;
	size_t len = 0;

	if (!strcmp(path, "-") || r->whole_files) {
		if (!read_all(path, &data, &len)) {
			r->input_error = true;
			return;
		}
	} else {
		/* Peek: a bare diff is read whole, anything else is mail. */
		FILE *fp = fopen(path, "rb");
		char head[512];
		size_t n;

		if (!fp) {
			fprintf(stderr, "patchwarden: check: cannot open %s: %s\n", path,
				g_strerror(errno));
			r->input_error = true;
			return;
		}
		n = fread(head, 1, sizeof(head), fp);
		fclose(fp);
		if (!pw_diff_is_bare(head, n)) {
			if (r->fix && !read_all(path, &r->mail_bytes, &r->mail_len)) {
				r->input_error = true;
				return;
			}
			if (r->fix)
				r->starts = g_array_new(FALSE, FALSE, sizeof(int64_t));
			check_mails(r, path, shown);
			return;
		}
		if (!read_all(path, &data, &len)) {
			r->input_error = true;
			return;
		}
	}
	if (r->whole_files) {
		struct unit *u = unit_new(r, shown);

		u->source = true;
		u->path = g_strdup(shown);
		u->text = data;
		u->len = len;
		pw_check_source(u->path, data, len, &r->opts, u->findings);
		return;
	}
	if (pw_diff_is_bare(data, len)) {
		check_patch_text(r, shown, data, len);
	} else {
		/* Mail on standard input: hand it to the source reader. */
		char *tmp = NULL;
		GError *err = NULL;
		int fd = g_file_open_tmp("patchwarden-check-XXXXXX", &tmp, &err);

		if (fd < 0) {
			fprintf(stderr, "patchwarden: check: %s\n", err->message);
			g_error_free(err);
			r->input_error = true;
		} else {
			close(fd);
			if (r->fix)
				r->starts = g_array_new(FALSE, FALSE, sizeof(int64_t));
			if (g_file_set_contents(tmp, data, (gssize)len, &err)) {
				check_mails(r, tmp, shown);
				if (r->fix) {
					r->mail_bytes = data;
					r->mail_len = len;
					data = NULL;
				}
			} else {
				fprintf(stderr, "patchwarden: check: %s\n", err->message);
				g_error_free(err);
				r->input_error = true;
			}
			g_unlink(tmp);
			g_free(tmp);
		}
	}
	g_free(data);
}

/* Text is checkpatch.pl --terse's layout. */
static const char finding_layout[] =
	"%(file):%(line): %(severity:upper):%(rule): %(message)\n";

static void print_findings(struct run *r, enum pw_format fmt, FILE *out)
{
	struct pw_printer *p = pw_printer_new(fmt, out, finding_layout, 0);
	int count[3] = { 0, 0, 0 };
	guint i, j;

	pw_print_begin_map(p);
	pw_print_int_at(p, "version", 1);
	pw_print_str_at(p, "style", pw_style_str(r->opts.style));
	pw_print_key(p, "findings");
	pw_print_begin_list(p);
	for (i = 0; i < r->units->len; i++) {
		struct unit *u = r->units->pdata[i];

		for (j = 0; j < u->findings->len; j++) {
			struct pw_finding *f = u->findings->pdata[j];

			count[f->severity]++;
			pw_print_begin_record(p);
			pw_print_str_at(p, "file", f->file);
			pw_print_int_at(p, "line", f->line);
			pw_print_int_at(p, "column", f->column);
			pw_print_str_at(p, "severity", pw_severity_str(f->severity));
			pw_print_str_at(p, "rule", f->rule);
			pw_print_str_at(p, "message", f->message);
			pw_print_str_at(p, "fix", f->fix);
			pw_print_str_at(p, "input", u->input);
			if (f->patch_no)
				pw_print_int_at(p, "patch_line", f->patch_no);
			if (u->subject)
				pw_print_str_at(p, "subject", u->subject);
			if (u->msgid)
				pw_print_str_at(p, "message_id", u->msgid);
			pw_print_end(p);
		}
	}
	pw_print_end(p);
	pw_print_key(p, "summary");
	pw_print_begin_map(p);
	pw_print_int_at(p, "inputs", r->units->len);
	pw_print_int_at(p, "error", count[PW_SEV_ERROR]);
	pw_print_int_at(p, "warning", count[PW_SEV_WARNING]);
	pw_print_int_at(p, "info", count[PW_SEV_INFO]);
	pw_print_end(p);
	pw_print_end(p);
	pw_printer_free(p);
}

/* SARIF 2.1.0, every unit's findings in order. */
static void print_sarif(struct run *r, FILE *out)
{
	GPtrArray *lists = g_ptr_array_new();
	guint i;

	for (i = 0; i < r->units->len; i++)
		g_ptr_array_add(lists, ((struct unit *)r->units->pdata[i])->findings);
	pw_sarif_print(out, lists);
	g_ptr_array_free(lists, TRUE);
}

/* Writes the unit's text with the fixes of its findings applied. */
static void write_fixed(const struct unit *u, FILE *out)
{
	GString *g = g_string_new(NULL);

	if (u->patch)
		pw_fix_apply(u->patch->text, u->patch->len, true, u->findings, g);
	else
		pw_fix_apply(u->text, u->len, false, u->findings, g);
	fwrite(g->str, 1, g->len, out);
	g_string_free(g, TRUE);
}

/* Where the message after the one starting at start begins, or len
 * (starts ascend: the messages are read in file order). */
static size_t message_end(const struct run *r, int64_t start)
{
	guint lo = 0, hi = r->starts->len;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (g_array_index(r->starts, int64_t, mid) > start)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < r->starts->len ?
		(size_t)g_array_index(r->starts, int64_t, lo) : r->mail_len;
}

/*
 * --fix of mail: the input as it came, with each message's diff
 * replaced by its corrected copy.  A diff is looked for by its bytes
 * within its own message; one that is not there verbatim (a body in
 * base64 or quoted-printable, in another charset, with CRLF line ends,
 * or in attachments) is left as it is, and said so when it had fixes.
 */
static void write_fixed_mail(struct run *r, FILE *out)
{
	size_t pos = 0;
	guint i, j;

	for (i = 0; i < r->units->len; i++) {
		struct unit *u = r->units->pdata[i];
		size_t from, end;
		const char *hit = NULL;

		if (!u->in_mail || !u->patch || u->patch->len == 0)
			continue;
		from = u->msg_start > 0 ? (size_t)u->msg_start : 0;
		end = u->msg_start >= 0 ? message_end(r, u->msg_start) : r->mail_len;
		if (from < pos)
			from = pos;
		if (from < end && end <= r->mail_len)
			hit = memmem(r->mail_bytes + from, end - from,
				     u->patch->text, u->patch->len);
		if (hit) {
			u->at = hit - r->mail_bytes;
			pos = (size_t)u->at + u->patch->len;
			continue;
		}
		for (j = 0; j < u->findings->len; j++)
			if (((struct pw_finding *)u->findings->pdata[j])->replacement)
				break;
		if (j < u->findings->len)
			fprintf(stderr, "patchwarden: check: %s: the diff is not in"
				" the mail as sent (base64, quoted-printable, another"
				" charset, CRLF line ends or attachments): written"
				" unchanged\n", u->input);
	}
	pos = 0;
	for (i = 0; i < r->units->len; i++) {
		struct unit *u = r->units->pdata[i];

		if (u->at < 0)
			continue;
		fwrite(r->mail_bytes + pos, 1, (size_t)u->at - pos, out);
		write_fixed(u, out);
		pos = (size_t)u->at + u->patch->len;
	}
	fwrite(r->mail_bytes + pos, 1, r->mail_len - pos, out);
}

/*
 * Writes the corrected copy to path.  A regular file (the input itself,
 * maybe) is replaced in one step, keeping its permissions, and through a
 * symbolic link the file it names is replaced; anything else (a pipe,
 * /dev/stdout) is written into as it is.
 */
static bool write_whole(const char *path, const char *buf, size_t len,
			GError **err)
{
	char *real = realpath(path, NULL);
	const char *target = real ? real : path;
	struct stat st;
	bool ok, exists = stat(target, &st) == 0;

	if (exists && !S_ISREG(st.st_mode)) {
		FILE *fp = fopen(target, "wb");

		ok = fp && fwrite(buf, 1, len, fp) == len;
		if (fp && fclose(fp))
			ok = false;
		if (!ok)
			g_set_error_literal(err, G_FILE_ERROR,
					    g_file_error_from_errno(errno),
					    g_strerror(errno));
		free(real);
		return ok;
	}
	ok = g_file_set_contents_full(target, buf, (gssize)len,
				      G_FILE_SET_CONTENTS_CONSISTENT,
				      exists ? (int)(st.st_mode & 07777) : 0666, err);
	if (ok && exists && chmod(target, st.st_mode & 07777)) {
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "cannot keep the permissions: %s", g_strerror(errno));
		ok = false;
	}
	free(real);
	return ok;
}

/* Text: aligned columns, one rule a line. */
static const char rule_layout[] =
	"%(id:-22) %(severity:-8) %(if:default_on)on  %(else)off %(end)"
	" %(summary)\n";

static void list_rules(enum format fmt)
{
	struct pw_printer *p = pw_printer_new(fmt == F_TEXT ? PW_FORMAT_TEXT :
					      PW_FORMAT_JSON, stdout,
					      rule_layout, 0);
	const struct pw_rule *rules;
	size_t n, i;

	rules = pw_rules(&n);
	pw_print_begin_list(p);
	for (i = 0; i < n; i++) {
		pw_print_begin_record(p);
		pw_print_str_at(p, "id", rules[i].id);
		pw_print_str_at(p, "severity", pw_severity_str(rules[i].severity));
		pw_print_bool_at(p, "default_on", rules[i].default_on);
		pw_print_str_at(p, "summary", rules[i].summary);
		pw_print_end(p);
	}
	pw_print_end(p);
	pw_printer_free(p);
}

/* Splits "A,B" arguments (repeatable options) into a NULL-ended list. */
static bool rule_list(char **in, GPtrArray *out, const char *opt)
{
	char **p;

	for (p = in; p && *p; p++) {
		char **parts = g_strsplit(*p, ",", -1);
		char **q;

		for (q = parts; *q; q++) {
			char *id = g_strstrip(*q);

			if (!*id)
				continue;
			if (!pw_rule_find(id)) {
				fprintf(stderr, "patchwarden: check: %s: no rule '%s' (see --list-rules)\n",
					opt, id);
				g_strfreev(parts);
				return false;
			}
			g_ptr_array_add(out, g_strdup(id));
		}
		g_strfreev(parts);
	}
	g_ptr_array_add(out, NULL);
	return true;
}

int pw_cmd_check(int argc, char **argv)
{
	gchar *format = NULL, *style = NULL, *fail_on = NULL, *fix_output = NULL;
	gchar **disable = NULL, **enable = NULL, **files = NULL;
	gboolean list = FALSE, whole = FALSE, fix = FALSE;
	gint max_findings = PW_MAX_FINDINGS;
	GOptionEntry entries[] = {
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format,
		  "output format: text (default; checkpatch --terse style), json or sarif", "FMT" },
		{ "style", 0, 0, G_OPTION_ARG_STRING, &style,
		  "house style for modes: octal (default), symbolic or perm-macros", "STYLE" },
		{ "disable", 0, 0, G_OPTION_ARG_STRING_ARRAY, &disable,
		  "switch rules off (repeatable, comma-separated)", "ID[,ID]" },
		{ "enable", 0, 0, G_OPTION_ARG_STRING_ARRAY, &enable,
		  "switch on rules that are off by default", "ID[,ID]" },
		{ "list-rules", 0, 0, G_OPTION_ARG_NONE, &list, "list the rules and exit", NULL },
		{ "fail-on", 0, 0, G_OPTION_ARG_STRING, &fail_on,
		  "exit 1 for findings at or above: info, warning (default) or error", "LEVEL" },
		{ "file", 'f', 0, G_OPTION_ARG_NONE, &whole,
		  "check whole source files, as checkpatch.pl -f does", NULL },
		{ "fix", 0, 0, G_OPTION_ARG_NONE, &fix,
		  "write a corrected copy of the input (patch, mail, mbox or file); findings then go to stderr", NULL },
		{ "max-findings", 0, 0, G_OPTION_ARG_INT, &max_findings,
		  "findings kept per patch, the rest counted in one FINDINGS_CAPPED finding (default 1000, 0: no cap)", "N" },
		{ "fix-output", 0, 0, G_OPTION_ARG_FILENAME, &fix_output,
		  "write the corrected copy to FILE instead of stdout", "FILE" },
		{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx;
	GError *err = NULL;
	GPtrArray *dis = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *ena = g_ptr_array_new_with_free_func(g_free);
	struct run r;
	FILE *out = stdout, *fixout = NULL;
	int rc = 2;
	guint i, j;

	memset(&r, 0, sizeof(r));
	r.fail_on = PW_SEV_WARNING;
	ctx = g_option_context_new("FILE...|-");
	g_option_context_set_summary(ctx,
		"Checks patch files, mails, mboxes or (with --file) source files for\n"
		"permission-mode problems.  Exit status: 0 clean, 1 findings at or\n"
		"above --fail-on, 2 usage or input error.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "patchwarden: check: %s\n", err->message);
		g_error_free(err);
		goto out;
	}
	if (!format || !strcmp(format, "text"))
		r.format = F_TEXT;
	else if (!strcmp(format, "json"))
		r.format = F_JSON;
	else if (!strcmp(format, "sarif"))
		r.format = F_SARIF;
	else {
		fprintf(stderr, "patchwarden: check: --format must be text, json or sarif\n");
		goto out;
	}
	if (list) {
		list_rules(r.format);
		rc = 0;
		goto out;
	}
	if (style && !pw_style_parse(style, &r.opts.style)) {
		fprintf(stderr, "patchwarden: check: --style must be octal, symbolic or perm-macros\n");
		goto out;
	}
	if (fail_on && !pw_severity_parse(fail_on, &r.fail_on)) {
		fprintf(stderr, "patchwarden: check: --fail-on must be info, warning or error\n");
		goto out;
	}
	if (!rule_list(disable, dis, "--disable") || !rule_list(enable, ena, "--enable"))
		goto out;
	r.opts.disabled = (const char *const *)dis->pdata;
	r.opts.enabled = (const char *const *)ena->pdata;
	if (max_findings < 0) {
		fprintf(stderr, "patchwarden: check: --max-findings must be 0 (no cap) or more\n");
		goto out;
	}
	r.opts.max_findings = max_findings;
	if (!files || !files[0]) {
		fprintf(stderr, "patchwarden: check: name the files to check, or - for standard input\n%s",
			"usage: patchwarden check [options] FILE...|-\n");
		goto out;
	}
	r.whole_files = whole;
	r.fix = fix || fix_output;
	r.fix_output = fix_output;
	if (r.fix && files[1]) {
		fprintf(stderr, "patchwarden: check: --fix writes the corrected copy of"
			" one input: name one file (or -)\n");
		goto out;
	}
	if (r.fix && strcmp(files[0], "-") && g_file_test(files[0], G_FILE_TEST_IS_DIR)) {
		fprintf(stderr, "patchwarden: check: --fix writes the corrected copy of"
			" a file, not of a Maildir\n");
		goto out;
	}
	r.units = g_ptr_array_new_with_free_func(unit_free);
	for (i = 0; files[i]; i++)
		check_input(&r, files[i]);

	if (r.fix && r.input_error && !r.mail_bytes) {
		/* Nothing whole to correct: writing would truncate. */
		fprintf(stderr, "patchwarden: check: the input could not be read"
			" whole: no corrected copy written\n");
		out = stderr;
	} else if (r.fix) {
		char *buf = NULL;
		size_t len = 0;
		GError *gerr = NULL;

		out = stderr;
		/* --fix-output replaces the file in one step (it may be the
		 * input itself): the copy is made in memory first. */
		fixout = fix_output ? open_memstream(&buf, &len) : stdout;
		if (!fixout) {
			fprintf(stderr, "patchwarden: check: %s\n", g_strerror(errno));
			goto out;
		}
		if (r.mail_bytes)
			write_fixed_mail(&r, fixout);
		else
			for (i = 0; i < r.units->len; i++)
				write_fixed(r.units->pdata[i], fixout);
		if (fix_output) {
			bool ok = fclose(fixout) == 0 &&
				  write_whole(fix_output, buf, len, &gerr);

			free(buf);
			if (!ok) {
				fprintf(stderr, "patchwarden: check: cannot write %s: %s\n",
					fix_output, gerr ? gerr->message : g_strerror(errno));
				g_clear_error(&gerr);
				goto out;
			}
		} else if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "patchwarden: check: cannot write the corrected"
				" copy: %s\n", g_strerror(errno));
			goto out;
		}
	}
	switch (r.format) {
	case F_TEXT: print_findings(&r, PW_FORMAT_TEXT, out); break;
	case F_JSON: print_findings(&r, PW_FORMAT_JSON, out); break;
	case F_SARIF: print_sarif(&r, out); break;
	}
	fflush(out);
	rc = 0;
	for (i = 0; i < r.units->len; i++) {
		struct unit *u = r.units->pdata[i];

		for (j = 0; j < u->findings->len; j++)
			if (((struct pw_finding *)u->findings->pdata[j])->severity >= r.fail_on)
				rc = 1;
	}
	if (r.input_error)
		rc = 2;
out:
	if (r.units)
		g_ptr_array_free(r.units, TRUE);
	g_free(r.mail_bytes);
	if (r.starts)
		g_array_free(r.starts, TRUE);
	g_ptr_array_free(dis, TRUE);
	g_ptr_array_free(ena, TRUE);
	g_option_context_free(ctx);
	g_free(format);
	g_free(style);
	g_free(fail_on);
	g_free(fix_output);
	g_strfreev(disable);
	g_strfreev(enable);
	g_strfreev(files);
	return rc;
}
