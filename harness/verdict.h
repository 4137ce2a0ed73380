/*
 * verdict.h — check's judgement of a stored session, rendered: what check does once its
 * options are parsed, and what ratchet does after it measured. Its options are rows (cli.h)
 * that both verbs take: check every one, ratchet those of group VERDICT_OPT_JUDGE.
 *
 * This is the cli layer: verdict_session prints the verdict on stdout and its errors on
 * stderr, and returns the exit status; the judgement itself is check.c's, on judge.c's inputs.
 */
#ifndef VERDICT_H
#define VERDICT_H

#include <stdint.h>

#include "cli.h"

/*
 * What a ratchet measures of a shared_ci baseline (a profile that gates time: as many runs as
 * its time cells were pinned from), and the most timed runs of a probe it measures where a
 * distribution cell is near its edge (ratchet --max-runs): baseline pin and validate state
 * what a file can see at these.
 */
#define VERDICT_RATCHET_ROUNDS_SHARED_CI 3
#define VERDICT_RATCHET_MAX_RUNS         15

/* The timed rounds a ratchet measures against a baseline of `profile`. */
int verdict_ratchet_rounds(const char *profile);

/* What check judges and how it prints it: check's options, for ratchet too. All borrowed. */
struct verdict_opts {
	const char *profile;   /* required */
	const char *collector; /* NULL: CLI_DEFAULT_COLLECTOR */
	const char *db, *baseline, *build, *base;
	const char *format; /* NULL: table */
	int64_t session;    /* 0: the newest session of the baseline's collector and size */
	int strict, all;
	/* --md-full: the Markdown (--format md, --md, the step summary) holds every row */
	int md_full;
	/* --md FILE, --html FILE: the Markdown and the check page written there too (NULL: not);
	 * --samples-href HREF: the session's own page, linked from the check page. */
	const char *md, *html, *samples_href;
	/* --json FILE: check's JSON (format json) written there too; "-": stdout, which then
	 * holds it alone (what format says goes to stderr). NULL: not written. */
	const char *json;
	/* --junit FILE: the JUnit XML (format junit) written there too; NULL: not. */
	const char *junit;
	/* --sensitivity PCT: the change every gated cell should see (0: CHECK_INSENSITIVE_PCT) */
	double sensitivity_pct;
	/* Not an option: ratchet's --max-runs, what its distribution cells are stated at */
	int runs_budget;
};

/* The rows' groups: JUDGE what a ratchet also takes, STORED what picks a stored session and
 * formats it. */
enum { VERDICT_OPT_JUDGE = 1u << 0, VERDICT_OPT_STORED = 1u << 1 };
extern const struct cli_option verdict_options[];

/* Judges the session o names against its baseline and prints the verdict; check's status. */
int verdict_session(const char *cmd, const struct verdict_opts *o);

#endif /* VERDICT_H */
