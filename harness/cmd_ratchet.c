/*
 * gcratchet ratchet — the main job in one process: measure exactly what a committed baseline
 * needs (its meters, size and probes, the rounds its profile prescribes), search the minimum
 * heaps it gates, and check the session against it. Exit status as check's.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "buildinfo.h"
#include "cli.h"
#include "check.h"
#include "cmds.h"
#include "heapsearch.h"
#include "measuring.h"
#include "dist.h"
#include "judge.h"
#include "metrics.h"
#include "quiet.h"
#include "session_opts.h"
#include "verdict.h"

/*
 * Rounds per profile: shared_ci judges no time (the medians of 3 runs of counts); pinned_host
 * gates time, judged from as many runs as it is pinned from (SESSION_VERB_PIN_TIME).
 */
#define RATCHET_WARMUP 1

/*
 * Valgrind runs added to a probe whose first valgrind run is past its baseline's allowance:
 * check then judges the median of three, which one rare run cannot move, and a change of the
 * code, which shows in every run, still moves (docs/meters.md, "One run past its allowance").
 */
#define RATCHET_CONFIRM_RUNS 2

/*
 * The most timed runs of a probe a ratchet measures when its evidence needs more (--max-runs):
 * a distribution cell near its edge, or one that cannot yet see --sensitivity's change.
 */
#define RATCHET_MAX_RUNS_CAP 1000

static int ratchet_gates_minheap(const struct baseline *b)
{
	for (size_t i = 0; i < b->ncells; i++)
		if (strcmp(b->cells[i].metric, "minheap.min_heap_mib") == 0)
			return 1;
	return 0;
}

/* The probes of the baseline's cells of one metric ("" any): a --probes list, newly allocated. */
static char *ratchet_probes(const struct baseline *b, const char *metric)
{
	struct strlist probes = {0};
	char *list;

	for (size_t i = 0; i < b->ncells; i++)
		if ((!*metric || strcmp(b->cells[i].metric, metric) == 0) &&
		    !strlist_contains(&probes, b->cells[i].probe))
			strlist_push(&probes, b->cells[i].probe);
	list = strlist_join(&probes, ",");
	strlist_release(&probes);
	return list;
}

/*
 * What ratchet takes: check's options that judge (verdict.h), how the runs are made (session
 * options of group SESSION_OPT_HOW, in run: measure's defaults, as a ratchet measures), and
 * its own.
 */
struct ratchet_opts {
	struct verdict_opts check;
	struct session_opts run;
	const char *build_dir; /* --build DIR */
	int rounds;            /* --rounds; 0: the profile's */
	int max_runs;          /* --max-runs */
};

/*
 * The session options that measure what b needs (on top of how the runs are made, as given),
 * of the build given as --collector or --build; a refusal is printed (-1).
 */
static int ratchet_opts(const char *cmd, const struct baseline *b, const char *collector,
                        const char *build_dir, const char *db, int rounds, struct session_opts *o)
{
	struct err e;
	int rc = -1;

	if (session_opts_set_size(o, b->size, &e) != 0) {
		cli_error(cmd, "the baseline's size: %s", e.msg);
		goto out;
	}
	if (build_dir)
		strlist_push(&o->build_dirs, build_dir);
	else
		strlist_push(&o->collectors, collector);
	o->db = db ? xstrdup(db) : NULL;
	free(o->meters);
	o->meters = strlist_join(&b->meters, ",");
	o->probes = ratchet_probes(b, "");
	o->rounds = rounds ? rounds : verdict_ratchet_rounds(b->profile);
	o->warmup = RATCHET_WARMUP;
	rc = 0;
out:
	return rc;
}

struct ratchet_confirm {
	const char *cmd;
	const struct baseline *b;
	int strict;
	double sensitivity_pct; /* --sensitivity, or 0 */
	int max_runs;           /* --max-runs */
	struct strlist said;    /* "probe metric" of the cells already named short of runs */
};

/*
 * The session's runs so far, judged as check will judge them (with the sensitivity and the
 * run budget ratchet gives check): -1 when they cannot be loaded now, and then nothing is
 * asked for; check says why at the end. in and res are the caller's to release.
 */
static int ratchet_judge_now(const struct ratchet_confirm *rc, struct store *st, int64_t session,
                             struct judge_inputs *in, struct check_result *res)
{
	struct check_input ci;
	struct err e;

	/* ratchet measures one build: the session's only arm. */
	if (judge_open(st, session, in, &e) != 0 || in->nbuilds != 1 ||
	    judge_load_arm(st, in, &in->builds[0], NULL, &e) != 0)
		return -1;
	judge_check_input(in, rc->b, rc->strict, &ci);
	ci.sensitivity_pct = rc->sensitivity_pct;
	ci.runs_budget = rc->max_runs;
	check_judge(&ci, res);
	return 0;
}

/*
 * session.h's confirmation: judges the session's runs so far as check will, and marks each
 * probe with a judged valgrind figure past its allowance, saying so. A session that cannot be
 * judged now marks nothing: check says why at the end.
 */
static void ratchet_confirm(void *ctx, struct store *st, int64_t session,
                            const struct strlist *probes, unsigned char *again)
{
	const struct ratchet_confirm *rc = ctx;
	struct judge_inputs in = {0};
	struct check_result res = {0};

	if (ratchet_judge_now(rc, st, session, &in, &res) != 0)
		goto out;
	for (size_t i = 0; i < res.nrows; i++) {
		const struct check_row *r = &res.rows[i];
		if (r->kind != CHECK_ROW_CELL || r->state != CHECK_JUDGED ||
		    metrics_run_kind(r->metric) != RUN_KIND_VALGRIND ||
		    (r->j.verdict != BASELINE_REGRESSED && r->j.verdict != BASELINE_IMPROVED))
			continue;
		for (size_t k = 0; k < probes->n; k++)
			if (strcmp(probes->items[k], r->probe) == 0)
				again[k] = 1;
		printf("%s: %s %s %.0f is %+.2f%% from the baseline's %.0f (allowed %.2f%%) "
		       "over %d run%s: measuring it %d more times, to judge the median of %d\n",
		       rc->cmd, r->probe, r->metric, r->current, r->j.delta_pct, r->base,
		       r->band_pct, r->n, r->n == 1 ? "" : "s", RATCHET_CONFIRM_RUNS,
		       r->n + RATCHET_CONFIRM_RUNS);
	}
	fflush(stdout);
out:
	check_result_release(&res);
	judge_release(&in);
}

/*
 * How many runs one distribution cell wants (0: no more than it has), and why, when it is near
 * its edge (its shift is beyond its band but not yet beyond chance: the runs at which such a
 * shift would be seen) or cannot see --sensitivity's change at its runs. At most max_runs; a
 * cell that needs more than that says so in *short (the runs it would take, 0: past
 * CHECK_RUNS_CAP).
 */
static int ratchet_cell_wants(const struct ratchet_confirm *rc, const struct check_row *r,
                              const char **why, int *short_of, int *would_take)
{
	double move = check_row_bad_shift(rc->b, r);
	int want = 0;

	*short_of = 0;
	if (r->j.verdict == BASELINE_OK && move > r->j.allowance) {
		size_t m = check_row_runs_to_see(rc->b, r, move, (size_t)rc->max_runs);
		/* What a shift that large needs, and two runs more at least: the shift seen in
		 * few runs is as likely an overestimate as not. */
		want = m ? (int)m : rc->max_runs;
		if (want < r->n + 2)
			want = r->n + 2 < rc->max_runs ? r->n + 2 : rc->max_runs;
		*why = "past its band, not yet beyond chance";
	}
	if (rc->sensitivity_pct > 0 && !(r->mde_pct <= rc->sensitivity_pct) &&
	    r->j.allowance < rc->sensitivity_pct * fabs(r->base) / 100.0) {
		int need = r->need_runs;
		if (need == 0 || need > rc->max_runs) {
			*short_of = 1;
			*would_take = need;
			need = rc->max_runs;
		}
		if (need > want) {
			want = need;
			*why = "to see --sensitivity's change";
		}
	}
	return want > r->n ? want : 0;
}

/*
 * session.h's call for more timed runs: judges the runs so far as check will (with the
 * sensitivity asked for) and asks for the runs each probe's distribution cells want
 * (ratchet_cell_wants), saying which and why, and naming the cells --max-runs leaves short.
 */
static void ratchet_more(void *ctx, struct store *st, int64_t session, const struct strlist *probes,
                         int *more)
{
	struct ratchet_confirm *rc = ctx;
	struct judge_inputs in = {0};
	struct check_result res = {0};

	if (ratchet_judge_now(rc, st, session, &in, &res) != 0)
		goto out;
	for (size_t i = 0; i < res.nrows; i++) {
		const struct check_row *r = &res.rows[i];
		const char *why = NULL;
		char said[512];
		int short_of, would, want;
		if (r->kind != CHECK_ROW_CELL || r->state != CHECK_JUDGED ||
		    r->cls != BASELINE_CLASS_DIST || r->j.verdict == BASELINE_INFO)
			continue;
		want = ratchet_cell_wants(rc, r, &why, &short_of, &would);
		snprintf(said, sizeof said, "%s %s", r->probe, r->metric);
		if (short_of && rc->sensitivity_pct > 0 && !strlist_contains(&rc->said, said)) {
			strlist_push(&rc->said, said);
			char pct[16];
			metrics_format_pct(rc->sensitivity_pct, pct, sizeof pct);
			if (would)
				printf(
				    "%s: %s %s cannot see %s%% within --max-runs %d: it would take "
				    "%d runs\n",
				    rc->cmd, r->probe, r->metric, pct, rc->max_runs, would);
			else
				printf("%s: %s %s cannot see %s%% within %d runs\n", rc->cmd,
				       r->probe, r->metric, pct, CHECK_RUNS_CAP);
		}
		if (!want)
			continue;
		for (size_t k = 0; k < probes->n; k++) {
			if (strcmp(probes->items[k], r->probe) != 0 || more[k] >= want - r->n)
				continue;
			if (more[k] == 0)
				printf("%s: %s %s %+.2f%% over %d run%s, %s: measuring the probe "
				       "%d more time%s\n",
				       rc->cmd, r->probe, r->metric, r->j.delta_pct, r->n,
				       r->n == 1 ? "" : "s", why, want - r->n,
				       want - r->n == 1 ? "" : "s");
			more[k] = want - r->n;
		}
	}
	fflush(stdout);
out:
	check_result_release(&res);
	judge_release(&in);
}

/* The minimum-heap search the baseline's min-heap cells are judged on, for this build. */
static int ratchet_minheap(const char *cmd, const struct baseline *b, const char *collector,
                           const char *build_dir, const char *db, const char *command)
{
	struct session_opts o;
	struct err e;
	int rc = EXIT_UNJUDGED;

	session_opts_init(&o, SESSION_VERB_MINHEAP);
	if (session_opts_set_size(&o, b->size, &e) != 0) {
		rc = cli_error(cmd, "the baseline's size: %s", e.msg);
		goto out;
	}
	if (build_dir)
		strlist_push(&o.build_dirs, build_dir);
	else
		strlist_push(&o.collectors, collector);
	o.db = db ? xstrdup(db) : NULL;
	o.probes = ratchet_probes(b, "minheap.min_heap_mib");
	free(o.meters);
	o.meters = xstrdup("rusage,census");
	rc = heapsearch_session(cmd, &o, command, NULL, HEAPSEARCH_REPEATS, MEASURING_VIEW_QUIET);
out:
	session_opts_release(&o);
	return rc;
}

/*
 * The collector judged (--build DIR: the one its manifest names; newly allocated, set as
 * c->collector too), the baseline's path (newly allocated) and the baseline, loaded as check
 * loads it. -1 after printing why, with the pin command that would make a missing one.
 */
static int ratchet_baseline(const char *cmd, struct verdict_opts *c, const char *build_dir,
                            char **collector, char **path, struct baseline *b)
{
	struct buildinfo bi;
	struct err e;

	if (build_dir) {
		if (buildinfo_load(build_dir, &bi, &e) != 0) {
			cli_error(cmd, "--build %s: %s", build_dir, e.msg);
			return -1;
		}
		*collector = xstrdup(bi.collector);
		buildinfo_release(&bi);
	} else {
		*collector = xstrdup(c->collector ? c->collector : CLI_DEFAULT_COLLECTOR);
	}
	c->collector = *collector;
	*path = c->baseline ? xstrdup(c->baseline) : cli_baseline_find(c->profile, *collector);
	if (judge_baseline_load(*path, c->profile, b, &e) == 0)
		return 0;
	/* The pin command that measures the same build: a folder by --build. */
	if (!c->baseline && e.code == ERR_NOT_FOUND) {
		char *looked = cli_baseline_looked();
		cli_error(cmd,
		          "%s\n  %s\n  pin one with: gcratchet baseline pin --profile %s %s %s",
		          e.msg, looked, c->profile, build_dir ? "--build" : "--collector",
		          build_dir ? build_dir : *collector);
		free(looked);
	} else {
		cli_error(cmd, "%s", e.msg);
	}
	return -1;
}

static int ratchet_main(int argc, char **argv)
{
	const char *cmd = cmd_ratchet.name;
	struct ratchet_opts ro = {0};
	struct verdict_opts *c = &ro.check;
	struct session_opts *o = &ro.run;
	const char *build_dir;
	struct baseline b = {0};
	struct ratchet_confirm confirm = {0};
	struct err e;
	char *path = NULL, *command = NULL, *collector = NULL;
	int64_t session = 0;
	int rc = EXIT_UNJUDGED, measured, r, lock_fd = -1, json_stdout = -1;

	c->profile = "shared_ci";
	ro.max_runs = VERDICT_RATCHET_MAX_RUNS;
	session_opts_init(o, SESSION_VERB_MEASURE);
	r = cli_parse(&cmd_ratchet, argc, argv, &ro, NULL);
	if (r != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	build_dir = ro.build_dir;
	if (cli_check_profile(cmd, c->profile) != 0)
		goto out;
	if (build_dir && c->collector) {
		rc = cli_error(cmd, "--collector and --build name the build twice: give one");
		goto out;
	}
	if (ratchet_baseline(cmd, c, build_dir, &collector, &path, &b) != 0)
		goto out;
	if (ratchet_opts(cmd, &b, collector, build_dir, c->db, ro.rounds, o) != 0)
		goto out;
	/* --sensitivity, else what the profile asks every gated cell to see. */
	if (c->sensitivity_pct <= 0)
		c->sensitivity_pct = b.sensitivity_pct;
	confirm =
	    (struct ratchet_confirm){cmd, &b, c->strict, c->sensitivity_pct, ro.max_runs, {0}};
	o->confirm = ratchet_confirm;
	o->confirm_ctx = &confirm;
	o->more_timed = ratchet_more;
	o->more_ctx = &confirm;
	o->valgrind_confirm = RATCHET_CONFIRM_RUNS;
	command = cli_command_line(argc, argv);
	/*
	 * One bench lock around the measure and the minimum-heap search: let go in between, and
	 * another session could run between the two halves of what this check judges. Each
	 * half's own quiet_lock nests inside this one.
	 */
	if (quiet_lock(o->lock_timeout_s, cli_waiting, (void *)cmd, &lock_fd, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	/* --json -: what is measured is told on stderr; check's JSON alone goes to stdout. */
	json_stdout = cli_json_stdout_begin(c->json);
	measured = measuring_session(cmd, o, command, MEASURING_VIEW_QUIET, &session);
	if (session == 0) {
		rc = measured;
		goto out;
	}
	/* Interrupted after the session's last run: judged as it is, no search begun. */
	if (measured == EXIT_OK && ratchet_gates_minheap(&b) && measuring_stop_asked())
		cli_error(cmd, "interrupted: the minimum-heap search is not run, and its cells "
		               "cannot be judged");
	else if (measured == EXIT_OK && ratchet_gates_minheap(&b))
		measured = ratchet_minheap(cmd, &b, collector, build_dir, c->db, command);
	printf("\n");
	fflush(stdout);
	cli_json_stdout_end(json_stdout);
	json_stdout = -1;
	/* The session just measured, never an older one: what this build did is what is judged. */
	c->session = session;
	c->runs_budget = ro.max_runs;
	rc = verdict_session(cmd, c);
	/* A failed run the check could still pass on (a probe it pins nothing of) fails it. */
	if (rc == EXIT_OK && measured != EXIT_OK)
		rc = measured;
out:
	cli_json_stdout_end(json_stdout);
	quiet_unlock(lock_fd);
	free(command);
	strlist_release(&confirm.said);
	session_opts_release(o);
	baseline_release(&b);
	free(path);
	free(collector);
	return rc;
}

/* --max-runs, in its own words. */
static int ratchet_max_runs_row(void *field, const struct cli_option *row, const char *val,
                                struct err *e)
{
	uint64_t n;

	if (parse_u64(val, &n) != 0 || n < 1 || n > RATCHET_MAX_RUNS_CAP)
		return err_setc(e, ERR_INVALID,
		                "%s must be a number of runs from 1 to %d, got \"%s\"", row->name,
		                RATCHET_MAX_RUNS_CAP, val);
	*(int *)field = (int)n;
	return 0;
}

#define RO(field) offsetof(struct ratchet_opts, field)
static const struct cli_option ratchet_options[] = {
    /* check's --profile, which a ratchet defaults */
    {"--profile", "shared_ci|pinned_host", CLI_STRING, RO(check.profile),
     .help = "the baseline profile (default shared_ci)"},
    /* check's --collector, which here also names the build measured (the queue reads it) */
    {"--collector", "NAME", CLI_STRING, RO(check.collector), .flags = CLI_BUILDS,
     .help = "the shipped collector measured and judged (default " CLI_DEFAULT_COLLECTOR ")"},
    {.name = "check's options",
     .kind = CLI_INCLUDE,
     .off = RO(check),
     .rows = verdict_options,
     .group = VERDICT_OPT_JUDGE},
    {"--build", "DIR", CLI_STRING, RO(build_dir), .flags = CLI_BUILDS,
     .help = "a build folder, measured and judged against the baseline of the collector its "
             "manifest names (instead of --collector)"},
    /* measure's row and bounds; 0 stays "the profile's rounds" */
    {"--rounds", "N", CLI_INT, RO(rounds), 1, SESSION_OPTS_ROUNDS_MAX, "",
     .help = "measured rounds (default: 3 for shared_ci, 11 for pinned_host)"},
    {"--max-runs", "N", CLI_CALL, RO(max_runs), .call = ratchet_max_runs_row,
     .help = "the most timed runs of a probe whose distribution cell needs more (default 15)"},
    {.name = "how the runs are made",
     .kind = CLI_INCLUDE,
     .off = RO(run),
     .rows = session_options,
     .group = SESSION_OPT_HOW},
    {0},
};
#undef RO

const struct cli_verb cmd_ratchet = {
    .name = "ratchet",
    .summary = "measure what the baseline needs and check it, in one process",
    .description =
        "The main job in one command: measures exactly what the committed baseline\n"
        "baselines/<profile>/<collector>.json needs (its meters, size and probes; 3 rounds and a\n"
        "warm-up for shared_ci, 11 for pinned_host, or --rounds), searches the minimum heaps it\n"
        "gates (baseline pin --minheap), and checks that session against it. Default profile\n"
        "shared_ci, default collector " CLI_DEFAULT_COLLECTOR
        "; --build DIR is judged against the baseline of the\n"
        "collector its manifest names. Only the runs that failed, went inert or warned are\n"
        "printed (on a terminal, one line shows the run in progress), then check's verdict: the\n"
        "cells that are not ok, where a regressed Ir cell's instructions moved against the pin,\n"
        "one line per probe, the verdict line (--all: every cell); --md and --html write check's\n"
        "Markdown (the pull-request comment; --md-full: every row) and page, --junit its JUnit\n"
        "XML, --json its JSON (format gcratchet-check; - for stdout, the rest then on stderr): "
        "one\n"
        "judgement, every report. A cell judged by its distribution (a figure that varies from\n"
        "run to run) whose shift is past its band but not yet beyond chance gets more runs of its "
        "probe,\n"
        "up to --max-runs N (default 15); --sensitivity PCT asks for the runs each such cell "
        "needs\n"
        "to see a change of PCT percent, within --max-runs, and names the cells it cannot reach\n"
        "and the runs they would take. --jobs, --timeout, --seed, --cpu, --no-aslr, "
        "--lock-timeout\n"
        "and the --idle options are measure's: how the runs are made, not what is measured.\n",
    .exit_status = "as check's: 0 ok; 1 a regression; 2 could not judge (a failed run, a missing "
                   "or bad baseline, bad arguments).",
    .options = ratchet_options,
    .run = ratchet_main,
};
