/*
 * patchwarden: log lines on stderr, one per event.  Under systemd, whose
 * journal reads stderr (JOURNAL_STREAM names that stream), each line
 * carries its syslog priority as "<N>", which journald turns into the
 * entry's level.  Elsewhere, a service's lines start with their time
 * (pw_log_set_timestamps()).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "bot/log.h"

static enum pw_log_level min_level = PW_LOG_INFO;
static bool stamped;

void pw_log_set_level(enum pw_log_level l)
{
	min_level = l;
}

void pw_log_set_timestamps(bool on)
{
	stamped = on;
}

/* Whether stderr is the journal's stream ("DEVICE:INODE" matches);
 * asked once, whichever thread logs first. */
static bool to_journal(void)
{
	static gsize once;
	static bool yes;

	if (g_once_init_enter(&once)) {
		const char *v = getenv("JOURNAL_STREAM");
		unsigned long long dev, ino;
		struct stat sb;

		yes = v && sscanf(v, "%llu:%llu", &dev, &ino) == 2 &&
		      !fstat(STDERR_FILENO, &sb) &&
		      (unsigned long long)sb.st_dev == dev &&
		      (unsigned long long)sb.st_ino == ino;
		g_once_init_leave(&once, 1);
	}
	return yes;
}

void pw_log(enum pw_log_level l, const char *fmt, ...)
{
	static const char *const names[] = { "debug: ", "", "warning: ", "error: " };
	static const char *const prio[] = { "<7>", "<6>", "<4>", "<3>" };
	va_list ap;
	bool journal;

	if (l < min_level)
		return;
	journal = to_journal();
	/* The journal stamps its entries; a file or a terminal does not. */
	if (stamped && !journal) {
		GDateTime *now = g_date_time_new_now_utc();
		char *t = g_date_time_format(now, "%Y-%m-%dT%H:%M:%S.%fZ");

		/* Milliseconds: %f gives microseconds. */
		if (t && strlen(t) == 27)
			memmove(t + 23, t + 26, 2);
		fprintf(stderr, "%s ", t ? t : "");
		g_free(t);
		g_date_time_unref(now);
	}
	fprintf(stderr, "%spatchwarden: %s", journal ? prio[l] : "", names[l]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int64_t pw_cpu_usec(bool thread)
{
	struct timespec ts;

	if (clock_gettime(thread ? CLOCK_THREAD_CPUTIME_ID :
			  CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
