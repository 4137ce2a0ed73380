/*
 * cmds.h — the verbs: each file harness/cmd_NAME.c declares one, cmd_NAME (cli.h's struct
 * cli_verb), whose run takes its own argv (argv[0] is the verb's name) and returns the process
 * exit status: 0 ok, 1 regression found, 2 could not run or judge.
 */
#ifndef CMDS_H
#define CMDS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct cli_verb;

extern const struct cli_verb cmd_measure;
struct session_opts;
/*
 * How measure_session shows the runs: each on a line of its own (measure, pin), or only the
 * runs that failed, went inert or warned, plus one line that overwrites itself on a terminal
 * (ratchet, whose verdict must fit on a screen).
 */
enum measure_view { MEASURE_VIEW_RUNS, MEASURE_VIEW_QUIET };
/*
 * What measure does once its options are parsed, for baseline pin, update and ratchet too:
 * sets up the session o describes, runs it showing its runs as `view` says, and prints its
 * outcome. `command` is the command line recorded with the session. *session_id (when not
 * NULL) is the stored session, 0 when none was opened. Returns measure's exit status.
 */
int measure_session(const char *cmd, const struct session_opts *o, const char *command,
                    enum measure_view view, int64_t *session_id);
extern const struct cli_verb cmd_check;
extern const struct cli_verb cmd_completion;
extern const struct cli_verb cmd_ratchet;
/* What check judges and how it prints it: check's options, for ratchet too. All borrowed. */
/*
 * What a ratchet measures of a shared_ci baseline (pinned_host: as many runs as its time cells
 * were pinned from), and the most timed runs of a probe it measures where a distribution cell
 * is near its edge (ratchet --max-runs): baseline pin and validate state what a file can see
 * at these.
 */
#define RATCHET_ROUNDS_SHARED_CI 3
#define RATCHET_MAX_RUNS         15

struct check_opts {
	const char *profile;   /* required */
	const char *collector; /* NULL: CLI_DEFAULT_COLLECTOR */
	const char *db, *baseline, *build, *base;
	const char *format; /* NULL: table */
	int64_t session;    /* 0: the newest session of the baseline's collector and size */
	int strict, all;
	/* --md FILE, --html FILE: the Markdown and the check page written there too (NULL: not);
	 * --samples-href HREF: the session's own page, linked from the check page. */
	const char *md, *html, *samples_href;
	/* --sensitivity PCT: the change every gated cell should see (0: CHECK_INSENSITIVE_PCT) */
	double sensitivity_pct;
	/* Not an option: ratchet's --max-runs, what its distribution cells are stated at */
	int runs_budget;
};
/* check's options as rows (cli.h), for ratchet too: JUDGE what a ratchet also takes, STORED
 * what picks a stored session and formats it. */
enum { CHECK_OPT_JUDGE = 1u << 0, CHECK_OPT_STORED = 1u << 1 };
struct cli_option;
extern const struct cli_option check_options[];
/* Judges the session o names against its baseline and prints the verdict; check's status. */
int check_session(const char *cmd, const struct check_opts *o);
extern const struct cli_verb cmd_baseline;
extern const struct cli_verb cmd_list;
extern const struct cli_verb cmd_ab;
extern const struct cli_verb cmd_export;
extern const struct cli_verb cmd_report;
extern const struct cli_verb cmd_minheap;
extern const struct cli_verb cmd_sweep;

struct session_setup;
struct session_prober;
/*
 * minheap's search for sweep: searches the minimum heap of arm `arm` of s for `probe`, prints
 * its row of minheap's table (minheap_find_header prints the header) and stores the answer.
 * 0 with *min_mb (0 when the search found none: the row says why), -1 with e when the
 * harness failed or was interrupted.
 */
int minheap_find(struct session_setup *s, struct session_prober *prober, size_t arm,
                 const char *probe, unsigned repeats, const char *command, uint64_t *min_mb,
                 struct err *e);
void minheap_find_header(void);
/*
 * What minheap does once its options are parsed, for ratchet too: searches the minimum heap
 * of every probe of every build o names, prints the table (view MEASURE_VIEW_QUIET: only the
 * rows that found none), stores the answers and writes out_path (NULL: none). minheap's status.
 */
#define MINHEAP_REPEATS 3u /* runs at each answer, by default */
int minheap_session(const char *cmd, const struct session_opts *o, const char *command,
                    const char *out_path, unsigned repeats, enum measure_view view);

extern const struct cli_verb cmd_doctor;
extern const struct cli_verb cmd_manifest;
extern const struct cli_verb cmd_push;
extern const struct cli_verb cmd_pull;
extern const struct cli_verb cmd_history;
extern const struct cli_verb cmd_bisect;
extern const struct cli_verb cmd_explain;
extern const struct cli_verb cmd_version;
extern const struct cli_verb cmd_queue;
extern const struct cli_verb cmd_worker;

#endif /* CMDS_H */
