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
extern const struct cli_verb cmd_check;
extern const struct cli_verb cmd_completion;
extern const struct cli_verb cmd_ratchet;
extern const struct cli_verb cmd_baseline;
extern const struct cli_verb cmd_list;
extern const struct cli_verb cmd_ab;
extern const struct cli_verb cmd_export;
extern const struct cli_verb cmd_report;
extern const struct cli_verb cmd_minheap;
extern const struct cli_verb cmd_sweep;

struct store;
/*
 * Shared by ab and report: compares builds BASE and FIX (by name; NULL: the session's first
 * and second) of a stored session, prints the table on stdout and writes the Markdown, JSON
 * and HTML files named (NULL: not written); with step_summary, appends the Markdown to
 * $GITHUB_STEP_SUMMARY when set. `across` is an enum compare_mode (compare.h): how the census
 * is judged. Returns 0 no regression, 1 FIX worse or results differ, 2 could not judge or an
 * output failed.
 */
int ab_report_session(const char *cmd, struct store *st, int64_t session, const char *base_name,
                      const char *fix_name, int across, const char *md_path, const char *json_path,
                      const char *html_path, int step_summary);
/*
 * --across and --no-across, shared by ab and report: sets *mode (an enum compare_mode) and
 * returns 1 when `opt` is one of them, 0 when it is not; -1 with the message printed when
 * both are given.
 */
int ab_parse_across(const char *cmd, const char *opt, int *mode);
extern const struct cli_verb cmd_doctor;
extern const struct cli_verb cmd_manifest;
extern const struct cli_verb cmd_push;
extern const struct cli_verb cmd_pull;
extern const struct cli_verb cmd_history;
extern const struct cli_verb cmd_bisect;
/*
 * REV as a full commit hash of the repository in `repo` (git rev-parse --verify REV^{commit}),
 * for bisect and for a bisect the queue takes. 0 with out set, -1 when REV names no commit
 * there (or git cannot tell).
 */
int bisect_commit_hash(const char *repo, const char *rev, struct sbuf *out);
extern const struct cli_verb cmd_explain;
extern const struct cli_verb cmd_version;
extern const struct cli_verb cmd_queue;
extern const struct cli_verb cmd_worker;
/* The fleet's database for queue and worker: --fleet, else $GCR_FLEET_URL; NULL after
 * printing why when neither is set. */
const char *queue_fleet_url(const char *cmd, const char *opt);

/* What history and report --history select: NULL since, size or db is any or the default. */
struct history_query {
	const char *collector, *probe, *metric, *since, *size, *db;
	const char *git; /* --git DIR: the repository whose history orders the commits */
};
/*
 * A metric's history: the store's points, the same in commit order (borrowed), and the
 * store's name for itself (a URL without its password). Commit order is the git history of
 * `git` when one was read (NULL otherwise): `in_git` of the n points have a commit in it and
 * come first, in its order; the rest follow in the order their commit was first measured.
 */
struct store_history_point;
struct history_series {
	char *probe; /* the probe's name, --probe's number resolved */
	char *where;
	struct store_history_point *points;
	const struct store_history_point **order;
	size_t n;
	char *git;
	size_t in_git;
};
/* Takes --collector, --probe, --metric, --since, --size, --git and --db: 1 when opt was one. */
int history_parse_opt(const char *opt, const char *val, struct history_query *q);
/*
 * Checks q and loads its series from the store: EXIT_OK, or EXIT_UNJUDGED with the message
 * printed (a missing or unknown argument, a store error, or no point at all).
 */
int history_load(const char *cmd, const struct history_query *q, struct history_series *out);
void history_release(struct history_series *s);

#endif /* CMDS_H */
