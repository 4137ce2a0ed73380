/*
 * cmds.h — the verbs: each file harness/cmd_NAME.c declares one, cmd_NAME (cli.h's struct
 * cli_verb), whose run takes its own argv (argv[0] is the verb's name) and returns the process
 * exit status: 0 ok, 1 regression found, 2 could not run or judge.
 *
 * Nothing else is declared here: what two verbs share is a core function or a cli-layer
 * module (measuring.c, verdict.c, heapsearch.c, ab_report.c, history.c, ...), so no verb
 * calls another (scripts/layers.sh holds this file to it).
 */
#ifndef CMDS_H
#define CMDS_H

struct cli_verb;

extern const struct cli_verb cmd_measure;
extern const struct cli_verb cmd_ratchet;
extern const struct cli_verb cmd_check;
extern const struct cli_verb cmd_baseline;
extern const struct cli_verb cmd_list;
extern const struct cli_verb cmd_ab;
extern const struct cli_verb cmd_compare;
extern const struct cli_verb cmd_export;
extern const struct cli_verb cmd_report;
extern const struct cli_verb cmd_doctor;
extern const struct cli_verb cmd_manifest;
extern const struct cli_verb cmd_minheap;
extern const struct cli_verb cmd_sweep;
extern const struct cli_verb cmd_push;
extern const struct cli_verb cmd_pull;
extern const struct cli_verb cmd_queue;
extern const struct cli_verb cmd_worker;
extern const struct cli_verb cmd_history;
extern const struct cli_verb cmd_bisect;
extern const struct cli_verb cmd_explain;
extern const struct cli_verb cmd_completion;
extern const struct cli_verb cmd_version;

#endif /* CMDS_H */
