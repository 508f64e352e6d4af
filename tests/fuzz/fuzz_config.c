/*
 * Fuzz harness for the configuration reader (bot/config.c): the input is
 * the text of a configuration file, written to a file of mode 0600 and
 * read by pw_config_check() and pw_config_load().  The promises: the two
 * agree (a file loads exactly when no problem is found); every problem
 * names the file, and a line of it that exists; a file that loads holds
 * settings the rest of the program may rely on (STARTTLS policies of
 * the three words, timeouts and counts in their ranges, a usable sender
 * address, the paths set).
 *
 * Built and run by "make fuzz" (libFuzzer) and replayed standalone by
 * tests/integration/fuzz_replay.sh; see tests/fuzz/README.md.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/config.h"
#include "bot/reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool starttls_ok(const char *s)
{
	return s && (!strcmp(s, "required") || !strcmp(s, "try") ||
		     !strcmp(s, "no"));
}

/* "PATH: ..." or "PATH:LINE: ..." with LINE from 1 to lines, or the
 * same of the credentials file cred (no bound on its lines). */
static bool problem_ok(const char *p, const char *path, size_t lines,
		       const char *cred)
{
	size_t n = strlen(path);
	char *end;
	long line;

	if (cred && g_str_has_prefix(p, cred) && p[strlen(cred)] == ':') {
		n = strlen(cred);
		lines = (size_t)-1;
	} else if (strncmp(p, path, n) || p[n] != ':') {
		return false;
	}
	if (p[n + 1] == ' ')
		return true;
	line = strtol(p + n + 1, &end, 10);
	return end != p + n + 1 && *end == ':' && end[1] == ' ' &&
	       line >= 1 && (size_t)line <= lines;
}

/* What a configuration read promises; clean: no problem was found. */
static void check_config(const struct pw_config *c, bool clean)
{
	guint i;

	if (!c->db_path || !c->mirrors || !c->dry_run_mbox || !c->from_addr ||
	    !c->from_name || !c->automated_senders || !c->lists)
		__builtin_trap();
	if (!pw_reply_addr_ok(c->from_addr) || !starttls_ok(c->smtp_starttls))
		__builtin_trap();
	if (c->fetch_timeout < 1 || c->smtp_timeout < 0 || c->max_findings < 0 ||
	    c->flood_count < 2 || c->flood_window < 0 ||
	    c->per_recipient_per_hour < 0 || c->global_per_hour < 0 ||
	    c->reply_max_age < 0 ||
	    c->web_max_body < 1024 || c->web_max_body > 1024 * 1024 * 1024)
		__builtin_trap();
	/* What holds between settings, or of a secret, only without a
	 * problem: a setting at fault keeps its default, not these. */
	if (clean && c->smtp_url && !c->smtp_from)
		__builtin_trap();
	if (clean && c->web_token && strlen(c->web_token) < 16)
		__builtin_trap();
	if (!c->imap || !c->imap->len)
		__builtin_trap();
	for (i = 0; i < c->imap->len; i++) {
		const struct pw_imap_conf *m = c->imap->pdata[i];

		if (!m->name || (i == 0) != !*m->name ||
		    !starttls_ok(m->starttls) || m->timeout < 1 ||
		    m->timeout > 3600 ||
		    strcmp(pw_config_imap(c, m->name)->name, m->name))
			__builtin_trap();
	}
	for (i = 0; i < c->lists->len; i++) {
		const struct pw_list_conf *l = c->lists->pdata[i];

		if (!l->name || !l->disabled || !l->enabled)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *path;
	GPtrArray *problems;
	struct pw_config *c = NULL, *c2 = NULL;
	enum pw_status st, st2;
	char *err = NULL;
	size_t lines = 1, i;
	int fd;

	if (!path) {
		char *dir = g_dir_make_tmp("pw-fuzz-config-XXXXXX", NULL);

		if (!dir)
			abort();
		path = g_build_filename(dir, "pw.conf", NULL);
		g_free(dir);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';

	problems = g_ptr_array_new_with_free_func(g_free);
	st = pw_config_check(path, NULL, &c, problems);
	if (st != PW_OK && st != PW_ERR_INPUT)
		__builtin_trap();	/* the file is there and small */
	if ((st == PW_OK) != (c != NULL) || (st && !problems->len))
		__builtin_trap();
	for (i = 0; i < problems->len; i++)
		if (!problem_ok(problems->pdata[i], path, lines,
				c ? c->credentials : NULL))
			__builtin_trap();
	if (c)
		check_config(c, !problems->len);

	/* pw_config_load() refuses exactly what has a problem, with the
	 * first one. */
	st2 = pw_config_load(path, NULL, &c2, &err);
	if (problems->len) {
		if (st2 != PW_ERR_USAGE || c2 || !err ||
		    !g_str_has_prefix(err, problems->pdata[0]))
			__builtin_trap();
	} else if (st2 != PW_OK || !c2 || err ||
		   strcmp(c2->db_path, c->db_path)) {
		__builtin_trap();
	}
	pw_config_free(c2);
	pw_config_free(c);
	g_free(err);
	g_ptr_array_free(problems, TRUE);
	return 0;
}
