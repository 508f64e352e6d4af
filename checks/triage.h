/*
 * patchwarden: the triage commands a maintainer or contributor writes in
 * a reply to one of patchwarden's replies, one per line:
 *
 *   patchwarden: wrong [RULE] [REASON...]
 *   patchwarden: ignore RULE [PATH] [REASON...]
 *   patchwarden: recheck [REASON...]
 *   patchwarden: stop [REASON...]
 *
 * A command starts a line (blanks before it allowed; "patchwarden:" in
 * any case); quoted lines ('>') are never read, so that quoting a
 * command does not repeat it.  RULE is a rule ID of checks/rules.def;
 * PATH is the word after RULE when it looks like a path or a glob
 * (it holds '/', '.', '*' or '?'); the words after the arguments are the
 * reason.  Pure: the caller finds the text of the mail.
 */
#ifndef PW_TRIAGE_H
#define PW_TRIAGE_H

#include <stddef.h>
#include <glib.h>

enum pw_triage_verb {
	PW_TRIAGE_WRONG,
	PW_TRIAGE_IGNORE,
	PW_TRIAGE_RECHECK,
	PW_TRIAGE_STOP,
};

/* At most this many commands are read from one mail. */
#define PW_TRIAGE_MAX_COMMANDS 16
/* Longest PATH and reason kept, in bytes; a longer path is refused. */
#define PW_TRIAGE_MAX_PATH 255
#define PW_TRIAGE_MAX_REASON 500

/* One command.  Strings are owned (pw_triage_cmd_free()). */
struct pw_triage_cmd {
	enum pw_triage_verb verb;
	char *rule;		/* NULL when not given */
	char *path;		/* ignore: NULL when not given */
	char *reason;		/* NULL when not given */
	int line;		/* its line in the text, from 1 */
	char *error;		/* a line that cannot be obeyed: why; the
				 * other fields are then unset */
};

void pw_triage_cmd_free(struct pw_triage_cmd *c);

/* "wrong", "ignore", "recheck", "stop". */
const char *pw_triage_verb_name(enum pw_triage_verb v);

/*
 * The commands in text (len bytes, need not end in a NUL), in order,
 * each line that starts "patchwarden:" giving one, those it cannot read
 * with error set.  Returns a new array of struct pw_triage_cmd * that
 * frees them (empty when there is none); at most
 * PW_TRIAGE_MAX_COMMANDS.
 */
GPtrArray *pw_triage_parse(const char *text, size_t len);

/*
 * Whether text (len bytes) may hold a command: a quick look for the
 * word, so that mail without one costs no parse.
 */
gboolean pw_triage_maybe(const char *text, size_t len);

#endif
