/*
 * patchwarden: the subcommands.  Each takes the arguments after its own
 * name (argv[0] is the subcommand) and returns the process exit status,
 * the one table of README.md ("Exit status"), tested row by row in
 * tests/integration/exit.sh:
 *
 *   0   done (findings are the product, not a failure, except for
 *       check); from a pipe, also a message stored as an ingest error
 *   1   check: findings at or above --fail-on; ingest, run, poll: some
 *       files, messages or sources could not be read or stored
 *   2   usage: a bad command, option or value, an input that is
 *       missing or cannot be read
 *   75  EX_TEMPFAIL: patchwarden's own temporary failure (the
 *       configuration cannot be read or is refused, the store cannot be
 *       opened, is busy, read-only or full): an MTA delivers again
 */
#ifndef PW_CMD_H
#define PW_CMD_H

int pw_cmd_check(int argc, char **argv);
int pw_cmd_parse(int argc, char **argv);
int pw_cmd_ingest(int argc, char **argv);
int pw_cmd_db(int argc, char **argv);
int pw_cmd_query(int argc, char **argv);
int pw_cmd_outbox(int argc, char **argv);
int pw_cmd_run(int argc, char **argv);
int pw_cmd_subscribe(int argc, char **argv);
int pw_cmd_poll(int argc, char **argv);
int pw_cmd_archive(int argc, char **argv);
int pw_cmd_serve(int argc, char **argv);
int pw_cmd_config(int argc, char **argv);
int pw_cmd_patchwork(int argc, char **argv);
int pw_cmd_triage(int argc, char **argv);
int pw_cmd_digest(int argc, char **argv);
int pw_cmd_preview(int argc, char **argv);

#endif
