/*
 * patchwarden: the patch model's lifecycle and the small helpers every
 * layer shares (paths, severities, findings).
 */
#include <string.h>
#include <strings.h>

#include "checks/patch.h"

void pw_patch_free(struct pw_patch *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nfiles; i++) {
		g_free(p->files[i].old_path);
		g_free(p->files[i].new_path);
		g_free(p->files[i].lines);
		g_free(p->files[i].hunks);
	}
	g_free(p->files);
	for (i = 0; i < p->nproblems; i++)
		g_free(p->problems[i].message);
	g_free(p->problems);
	g_free(p->added);
	g_free(p->text);
	g_free(p);
}

/* Indexes the added lines of p by patch_no. */
static void index_added(struct pw_patch *p)
{
	size_t i, k, n = 1;

	for (i = 0; i < p->nfiles; i++)
		for (k = 0; k < p->files[i].nlines; k++)
			if (p->files[i].lines[k].patch_no >= (int)n)
				n = (size_t)p->files[i].lines[k].patch_no + 1;
	p->added = g_new0(const struct pw_dline *, n);
	p->nadded = n;
	for (i = 0; i < p->nfiles; i++)
		for (k = 0; k < p->files[i].nlines; k++) {
			const struct pw_dline *d = &p->files[i].lines[k];

			if (d->kind == '+' && d->patch_no > 0)
				p->added[d->patch_no] = d;
		}
}

const struct pw_dline *pw_patch_added_line(struct pw_patch *p, int patch_no)
{
	if (!p->added)
		index_added(p);
	if (patch_no <= 0 || (size_t)patch_no >= p->nadded)
		return NULL;
	return p->added[patch_no];
}

void pw_patch_quote_findings(struct pw_patch *p, GPtrArray *findings)
{
	guint i;

	for (i = 0; findings && i < findings->len; i++) {
		struct pw_finding *f = g_ptr_array_index(findings, i);
		const struct pw_dline *d;

		if (f->line <= 0 || f->added_line)
			continue;
		d = pw_patch_added_line(p, f->patch_no);
		if (d && d->new_no == f->line)
			f->added_line = g_strndup(d->text, d->len);
	}
}

const char *pw_file_path(const struct pw_file *f)
{
	if (f->new_path)
		return f->new_path;
	if (f->old_path)
		return f->old_path;
	return "(unknown)";
}

const char *pw_severity_str(enum pw_severity s)
{
	switch (s) {
	case PW_SEV_INFO: return "info";
	case PW_SEV_WARNING: return "warning";
	case PW_SEV_ERROR: return "error";
	}
	return "unknown";
}

bool pw_severity_parse(const char *s, enum pw_severity *out)
{
	if (!s)
		return false;
	if (!g_ascii_strcasecmp(s, "info")) {
		*out = PW_SEV_INFO;
		return true;
	}
	if (!g_ascii_strcasecmp(s, "warning") || !g_ascii_strcasecmp(s, "warn")) {
		*out = PW_SEV_WARNING;
		return true;
	}
	if (!g_ascii_strcasecmp(s, "error")) {
		*out = PW_SEV_ERROR;
		return true;
	}
	return false;
}

struct pw_finding *pw_finding_new(const char *rule, enum pw_severity sev,
				  const char *file, int line, int column,
				  const char *message)
{
	struct pw_finding *f = g_new0(struct pw_finding, 1);

	f->rule = rule;
	f->severity = sev;
	f->file = g_strdup(file ? file : "");
	f->line = line;
	f->column = column;
	f->message = g_strdup(message ? message : "");
	return f;
}

void pw_finding_free(struct pw_finding *f)
{
	if (!f)
		return;
	g_free(f->file);
	g_free(f->message);
	g_free(f->fix);
	g_free(f->replacement);
	g_free(f->added_line);
	g_free(f);
}
