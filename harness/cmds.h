/*
 * cmds.h — the subcommands. Each takes its own argv (argv[0] is the subcommand name) and
 * returns the process exit status: 0 ok, 1 regression found, 2 could not run or judge.
 */
#ifndef CMDS_H
#define CMDS_H

int cmd_measure(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

#endif /* CMDS_H */
