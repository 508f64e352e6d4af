/*
 * patchwarden: EXEC_SOURCE_FILE, the git mode lines.
 *
 * Reference: checkpatch.pl's EXECUTE_PERMISSIONS, which fires when a
 * "new file mode" or "new mode" line has an execute bit, unless the path
 * contains scripts/ or ends in .py, .pl, .awk or .sh.  patchwarden also
 * exempts the other script suffixes and, for new files, any file whose
 * first line is "#!": that is a script, whatever its name.
 */
#include <string.h>

#include "checks/perm.h"

static bool script(const struct pw_file *f, const char *path)
{
	static const char *const ext[] = { ".py", ".pl", ".awk", ".sh", ".bash",
					   ".rb", ".tcl", ".ksh", ".zsh" };
	size_t i, n = strlen(path);

	if (strstr(path, "scripts/"))
		return true;
	for (i = 0; i < G_N_ELEMENTS(ext); i++) {
		size_t m = strlen(ext[i]);

		if (n >= m && !strcmp(path + n - m, ext[i]))
			return true;
	}
	for (i = 0; i < f->nlines; i++)
		if (f->lines[i].new_no == 1 && f->lines[i].kind != '-')
			return f->lines[i].len >= 2 && !memcmp(f->lines[i].text, "#!", 2);
	return false;
}

void pw_perm_git(struct pw_scan *sc, const struct pw_file *f)
{
	const struct pw_rule *r = pw_rule_at(PW_R_EXEC_SOURCE_FILE);
	struct pw_finding *fd;
	char *d;

	if (!f->mode_patch_no || !f->new_path || (f->new_mode & 0170000) != 0100000 ||
	    !(f->new_mode & 0111) || script(f, f->new_path))
		return;
	if ((f->flags & PW_FILE_MODE_CHANGE) && (f->old_mode & 0111) == (f->new_mode & 0111))
		return;
	d = pw_mode_describe(f->new_mode);
	fd = pw_finding_new(r->id, r->severity, f->new_path, 0, 0, NULL);
	g_free(fd->message);
	fd->message = g_strdup_printf("%s mode %06o = %s makes a source file executable; "
				      "source files are 0644 (rw-r--r--)",
				      (f->flags & PW_FILE_NEW) ? "new file" : "new",
				      f->new_mode, d);
	fd->patch_no = f->mode_patch_no;
	pw_perm_keep(sc, fd);
	g_free(d);
}
