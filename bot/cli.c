#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "bot/cli.h"
#include "bot/log.h"

bool pw_cli_open(const char *config, const char *db_path, bool readonly,
		 struct pw_config **cfg, struct pw_db **db)
{
	char *err = NULL;
	enum pw_status s;

	*db = NULL;
	if (pw_config_load(config, db_path, cfg, &err)) {
		pw_error("%s", err);
		g_free(err);
		return false;
	}
	s = pw_db_open((*cfg)->db_path, readonly, db, &err);
	if (s == PW_ERR_TRANSIENT) {
		/* SQLite waited its busy timeout for the write lock. */
		pw_error("%s (another process is writing to the store; try"
			 " again later)", err);
		g_free(err);
		return false;
	}
	if (s) {
		pw_error("%s", err);
		g_free(err);
		return false;
	}
	if (!readonly) {
		int n = 0;

		/* Not fatal: the bytes only take room, and a busy store
		 * is tidied by the next writer. */
		if (pw_db_raw_orphans_remove(*db, &n))
			pw_debug("%s", pw_db_errmsg(*db));
		else if (n)
			pw_warn("%s-raw: removed the bytes of %d messages that"
				" an interrupted writer stored without their rows",
				pw_db_path(*db), n);
	}
	return true;
}

bool pw_cli_parse(const char *cmd, const char *args, GOptionEntry *entries,
		  int *argc, char ***argv)
{
	GOptionContext *ctx = g_option_context_new(args);
	GError *e = NULL;
	char *prog = g_strdup_printf("patchwarden %s", cmd);
	bool ok;

	g_set_prgname(prog);
	g_option_context_add_main_entries(ctx, entries, NULL);
	ok = g_option_context_parse(ctx, argc, argv, &e);
	if (!ok) {
		fprintf(stderr, "patchwarden %s: %s\n", cmd, e->message);
		g_error_free(e);
	}
	g_option_context_free(ctx);
	g_free(prog);
	return ok;
}

bool pw_cli_threads(const char *cmd, const char *given, int *threads)
{
	gint64 n;

	*threads = 0;
	if (!given)
		return true;
	if (!g_ascii_string_to_signed(given, 10, 1, PW_CLI_THREADS_MAX, &n,
				      NULL)) {
		fprintf(stderr, "patchwarden %s: --threads is 1 to %d, not '%s'\n",
			cmd, PW_CLI_THREADS_MAX, given);
		return false;
	}
	*threads = (int)n;
	return true;
}

bool pw_cli_inputs_ok(const char *cmd, char **paths, int n)
{
	bool ok = true;
	int i, fd;

	for (i = 0; i < n; i++) {
		if (!strcmp(paths[i], "-"))
			continue;
		/* Opened, not only looked at, so that what cannot be read
		 * is told now; O_NONBLOCK: a named pipe has no writer yet. */
		fd = open(paths[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "patchwarden %s: %s: %s\n", cmd, paths[i],
				g_strerror(errno));
			ok = false;
			continue;
		}
		close(fd);
	}
	return ok;
}

bool pw_cli_inputs_piped(char **paths, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(paths[i], "-"))
			return false;
	return n > 0;
}

bool pw_cli_parse_time(const char *s, gint64 *out)
{
	GDateTime *dt;
	char *end, *iso;
	size_t len;
	gint64 n;

	if (!s || !*s)
		return false;
	if (*s == '@') {
		n = g_ascii_strtoll(s + 1, &end, 10);
		if (end == s + 1 || *end)
			return false;
		*out = n;
		return true;
	}
	n = g_ascii_strtoll(s, &end, 10);
	if (end != s && (!strcmp(end, "d") || !strcmp(end, "h")) && n >= 0) {
		*out = g_get_real_time() / G_USEC_PER_SEC -
			n * (*end == 'd' ? 86400 : 3600);
		return true;
	}
	len = strlen(s);
	if (len < 10)
		return false;
	if (len == 10)
		iso = g_strdup_printf("%sT00:00:00Z", s);
	else if (len <= 19 || !strpbrk(s + 19, "Z+-"))
		iso = g_strdup_printf("%sZ", s);	/* no zone: UTC */
	else
		iso = g_strdup(s);
	dt = g_date_time_new_from_iso8601(iso, NULL);
	g_free(iso);
	if (!dt)
		return false;
	*out = g_date_time_to_unix(dt);
	g_date_time_unref(dt);
	return true;
}

bool pw_cli_parse_id(const char *s, int64_t *id)
{
	char *end;
	gint64 v = g_ascii_strtoll(s, &end, 10);

	if (end == s || *end || v <= 0)
		return false;
	*id = v;
	return true;
}

int pw_cli_print_rows(struct pw_db *db, enum pw_status s, GPtrArray *rows,
		      enum pw_format fmt, const char *layout,
		      void (*print)(struct pw_printer *p, const void *row))
{
	struct pw_printer *p;
	guint i;

	if (s) {
		pw_error("%s", pw_db_errmsg(db));
		return EX_TEMPFAIL;
	}
	p = pw_printer_new(fmt, stdout, layout, 0);
	pw_print_begin_list(p);
	for (i = 0; i < rows->len; i++)
		print(p, g_ptr_array_index(rows, i));
	pw_print_end(p);
	pw_printer_free(p);
	return 0;
}

bool pw_cli_run_stopped(const char *what, const struct pw_count *n,
			size_t len, enum pw_status s, char *err)
{
	pw_print_counts(n, len, false, stdout);
	if (s)
		pw_error("%s: %s", what, err ? err : pw_status_str(s));
	g_free(err);
	return s != PW_OK;
}
