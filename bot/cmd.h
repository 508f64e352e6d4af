/*
 * patchwarden: the subcommands.  Each takes the arguments after its own
 * name (argv[0] is the subcommand) and returns the process exit status:
 * 0 clean, 1 findings or partial failure, 2 usage or input error.
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

#endif
