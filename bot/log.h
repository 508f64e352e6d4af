/*
 * patchwarden: messages for people, on stderr.  One line each, prefixed
 * with "patchwarden: ", and the level when it is not plain information.
 */
#ifndef PW_LOG_H
#define PW_LOG_H

/* The version is the Makefile's VERSION (-DPW_VERSION); a build
 * outside the Makefile says so. */
#ifndef PW_VERSION
#define PW_VERSION "unknown"
#endif

#include <stdbool.h>
#include <stdint.h>

enum pw_log_level { PW_LOG_DEBUG, PW_LOG_INFO, PW_LOG_WARN, PW_LOG_ERROR };

/* Messages below this level are dropped (default PW_LOG_INFO). */
void pw_log_set_level(enum pw_log_level l);
/*
 * With on, each line starts with its time, ISO 8601 in UTC with
 * milliseconds ("2026-01-31T09:15:02.123Z "), unless stderr is the
 * journal's, which stamps its entries: for a service's log.
 */
void pw_log_set_timestamps(bool on);
void pw_log(enum pw_log_level l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * CPU time used so far, in microseconds: by the calling thread (thread)
 * or by the whole process; 0 when the clock cannot be read.  For the
 * progress lines and the CPU budgets of a message or a request.
 */
int64_t pw_cpu_usec(bool thread);

#define pw_debug(...) pw_log(PW_LOG_DEBUG, __VA_ARGS__)
#define pw_info(...) pw_log(PW_LOG_INFO, __VA_ARGS__)
#define pw_warn(...) pw_log(PW_LOG_WARN, __VA_ARGS__)
#define pw_error(...) pw_log(PW_LOG_ERROR, __VA_ARGS__)

#endif
