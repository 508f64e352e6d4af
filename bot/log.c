#include <stdarg.h>
#include <stdio.h>

#include "bot/log.h"

static enum pw_log_level min_level = PW_LOG_INFO;

void pw_log_set_level(enum pw_log_level l)
{
	min_level = l;
}

void pw_log(enum pw_log_level l, const char *fmt, ...)
{
	static const char *const names[] = { "debug: ", "", "warning: ", "error: " };
	va_list ap;

	if (l < min_level)
		return;
	fprintf(stderr, "patchwarden: %s", names[l]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
