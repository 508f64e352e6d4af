/*
 * patchwarden: a message's body on the dashboard (see bot/web_diff.h):
 * its commit message, and its diff with each finding under the line it
 * is about.  Everything from mail is escaped through pw_web_esc().
 */
#include <string.h>

#include "bot/mail.h"
#include "bot/pubinbox.h"
#include "bot/web_diff.h"
#include "checks/patch.h"
#include "checks/rules.h"

/* "path\nline" of a finding or an added line. */
static char *place(const char *file, int line)
{
	return g_strdup_printf("%s\n%d", file ? file : "", line);
}

/*
 * Finding f as a note; where, when not NULL, says where it is for a
 * note that stands under no line of its own ("whole file").
 */
static void note(GString *o, const struct pw_query_finding *f,
		 const char *where)
{
	g_string_append_printf(o, "<span class=\"note sev-%s\"><b>",
			       pw_severity_str(f->severity));
	pw_web_esc(o, f->rule);
	g_string_append(o, "</b> ");
	if (where) {
		g_string_append(o, "<span class=\"where\">");
		pw_web_esc(o, where);
		g_string_append(o, ":</span> ");
	}
	pw_web_esc(o, f->message);
	if (f->fix) {
		g_string_append(o, " &mdash; fix: <code>");
		pw_web_esc(o, f->fix);
		g_string_append(o, "</code>");
	}
	g_string_append(o, "</span>\n");
}

/* Appends the lines of text (escaped, marked by kind) from line *no
 * on, with the findings by_line holds under theirs. */
static void diff_lines(GString *o, const char *text, int *no,
		       GHashTable *by_line, const char *kind)
{
	const char *s = text;
	guint k;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = g_strndup(s, len);
		GPtrArray *marks;
		const char *cls = kind;

		++*no;
		marks = g_hash_table_lookup(by_line, GINT_TO_POINTER(*no));
		if (kind)
			;
		else if (*line == '+' && strncmp(line, "+++ ", 4))
			cls = "add";
		else if (*line == '-' && strncmp(line, "--- ", 4))
			cls = "del";
		else if (!strncmp(line, "@@", 2))
			cls = "hunk";
		else
			cls = "ctx";
		g_string_append_printf(o, "<span class=\"%s%s\" id=\"L%d\">", cls,
				       marks ? " mark" : "", *no);
		pw_web_esc(o, line);
		g_string_append(o, "</span>");
		for (k = 0; marks && k < marks->len; k++) {
			char *at = strcmp(cls, "hunk") ? NULL :
				   g_strdup_printf("hunk header at line %d", *no);

			note(o, marks->pdata[k], at);
			g_free(at);
		}
		g_free(line);
		s += len;
		if (*s == '\n')
			s++;
	}
}

/*
 * The diff, each line escaped and marked by kind, each finding shown
 * under the added line it is about, a damaged hunk's under its header;
 * findings about no line first.  rest, when a hunk was cut, is what
 * the mail has after where git stops: shown after it, its first line
 * marked.
 */
static void diff_html(GString *o, const char *diff, const char *rest,
		      GPtrArray *findings)
{
	struct pw_patch *p = pw_diff_parse(diff, strlen(diff));
	GHashTable *by_place = g_hash_table_new_full(g_str_hash, g_str_equal,
						     g_free, NULL);
	GHashTable *by_line = g_hash_table_new_full(g_direct_hash,
						    g_direct_equal, NULL,
						    (GDestroyNotify)g_ptr_array_unref);
	GPtrArray *unplaced = g_ptr_array_new();
	size_t i, j;
	guint k;
	int no = 0;

	for (k = 0; k < findings->len; k++) {
		const struct pw_query_finding *f = findings->pdata[k];

		if (f->file && f->line > 0)
			g_hash_table_insert(by_place, place(f->file, f->line),
					    GUINT_TO_POINTER(1));
	}
	/* Each added line that a finding names, by its line in the diff. */
	for (i = 0; i < p->nfiles; i++) {
		const struct pw_file *fl = &p->files[i];
		const char *path = pw_file_path(fl);

		for (j = 0; j < fl->nlines; j++) {
			const struct pw_dline *d = &fl->lines[j];
			char *key;

			if (d->kind != '+')
				continue;
			key = place(path, d->new_no);
			if (g_hash_table_contains(by_place, key)) {
				GPtrArray *v = g_ptr_array_new();

				for (k = 0; k < findings->len; k++) {
					const struct pw_query_finding *f =
						findings->pdata[k];

					if (f->file && !strcmp(f->file, path) &&
					    f->line == d->new_no)
						g_ptr_array_add(v, (gpointer)f);
				}
				g_hash_table_replace(by_line,
						     GINT_TO_POINTER(d->patch_no), v);
				g_hash_table_remove(by_place, key);
			}
			g_free(key);
		}
	}
	for (k = 0; k < findings->len; k++) {
		const struct pw_query_finding *f = findings->pdata[k];
		char *key = place(f->file, f->line);
		int at = 0;

		/* A damaged hunk: under the header git stopped at. */
		for (j = 0; !f->line && j < p->nproblems; j++)
			if (!strcmp(f->rule, pw_rule_at(PW_R_PATCH_MALFORMED)->id) &&
			    !g_strcmp0(f->message, p->problems[j].message))
				at = p->problems[j].patch_no;
		if (at > 0) {
			GPtrArray *v = g_hash_table_lookup(by_line,
							   GINT_TO_POINTER(at));

			if (!v) {
				v = g_ptr_array_new();
				g_hash_table_insert(by_line, GINT_TO_POINTER(at), v);
			}
			g_ptr_array_add(v, (gpointer)f);
		} else if (!f->file || f->line <= 0 ||
			   g_hash_table_contains(by_place, key)) {
			g_ptr_array_add(unplaced, (gpointer)f);
		}
		g_free(key);
	}
	for (k = 0; k < unplaced->len; k++) {
		const struct pw_query_finding *f = unplaced->pdata[k];
		char *at = !f->file || !strcmp(f->file, "(diff)") ? NULL :
			   f->line > 0 ? g_strdup_printf("%s:%d", f->file, f->line) :
			   g_strdup_printf("%s, whole file", f->file);

		note(o, f, at);
		g_free(at);
	}
	g_string_append(o, "<pre class=\"diff\">");
	diff_lines(o, diff, &no, by_line, NULL);
	if (rest && *rest) {
		g_string_append_printf(o, "<span class=\"note sev-warning stop\""
				       " id=\"stop\">git stops reading the patch"
				       " here, at line %d: the lines below are in"
				       " the mail but not in what it applies</span>",
				       no + 1);
		diff_lines(o, rest, &no, by_line, "rest");
	}
	g_string_append(o, "</pre>\n");
	g_ptr_array_unref(unplaced);
	g_hash_table_destroy(by_line);
	g_hash_table_destroy(by_place);
	pw_patch_free(p);
}

void pw_web_message_body(struct pw_db *db, int64_t id, GPtrArray *findings,
			 GString *o)
{
	GBytes *raw = NULL;
	struct pw_mail *m = NULL;
	gsize n;
	const char *b;

	/* From the store, or from the archive that keeps the message. */
	pw_pubinbox_message(db, id, &raw);
	if (!raw) {
		g_string_append(o, "<p>The raw message is not in this store.</p>\n");
		return;
	}
	b = g_bytes_get_data(raw, &n);
	if (pw_mail_parse(b, n, &m, NULL) == PW_OK) {
		if (m->commit_msg && *m->commit_msg) {
			g_string_append(o, "<pre class=\"msg\">");
			pw_web_esc(o, m->commit_msg);
			g_string_append(o, "</pre>\n");
		}
		if (m->diff)
			diff_html(o, m->diff, m->diff_rest, findings);
	} else {
		g_string_append(o, "<p>The raw message cannot be read.</p>\n");
	}
	pw_mail_free(m);
	g_bytes_unref(raw);
}
