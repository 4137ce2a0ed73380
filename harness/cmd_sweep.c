/*
 * gcratchet sweep — every probe on every build at heap sizes that are multiples of the probe's
 * reference minimum heap (docs/sweeps.md). The minimum heaps come from the store's minheap
 * answers or from minheap's search; the measuring is one session whose arms are (build,
 * factor) pairs, each probe of an arm at its own limit (session_arm.probe_knobs), so rounds
 * interleave across builds and factors as measure's do, and report, export and ab read it
 * like any session. The heap of every arm and probe goes to the store's sweep_cells.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "escape.h"
#include "heapsearch.h"
#include "measuring.h"
#include "progress.h"
#include "report_sweep.h"
#include "session.h"
#include "session_opts.h"
#include "store.h"
#include "sweep.h"

#define SWEEP_DEFAULT_FACTORS "1.25,1.5,2,3,4,6"

struct sweep_opts {
	double factors[SWEEP_FACTORS_MAX];
	size_t nfactors;
	const char *reference; /* a build name, or NULL: the smallest minimum */
	int limit_only;        /* 1: GCR_HEAP_MAX_MB only, the initial budget left to the build */
	unsigned repeats;
};

/* What sweep takes: its own options and session options (its runs and builds). */
struct sweep_args {
	struct sweep_opts sweep;
	struct session_opts run;
};

/*
 * What the run is counting, for the exit status; and the sweep's cells, stored with its first
 * run. A session is a sweep to every reader by its cells, so they go in as soon as the session
 * has a run to explain, not at its end: a sweep killed mid-way is still one (report draws its
 * curves, not an A/B of its first two arms).
 */
struct sweep_progress {
	int exhausted, failed;
	struct store *st;
	const struct store_sweep_cell *cells;
	size_t ncells;
	int64_t stored_for; /* the session the cells are stored for; 0 before */
	char *store_error;  /* the first failure to store them (owned), or NULL */
};

/* Stores the cells for session `id` once; -1 with e when the store refused them. */
static int sweep_store_cells(struct sweep_progress *ctx, int64_t id, struct err *e)
{
	if (ctx->stored_for == id)
		return 0;
	if (store_sweep_insert(ctx->st, id, ctx->cells, ctx->ncells, e) != 0)
		return -1;
	ctx->stored_for = id;
	return 0;
}

static void sweep_progress_line(void *vctx, const struct session_progress *p)
{
	struct sweep_progress *ctx = vctx;
	const struct run_record *r = p->run;
	const double *wall = r->metrics ? metric_set_get(r->metrics, "time.wall_ns") : NULL;
	const double *ir = r->metrics ? metric_set_get(r->metrics, "valgrind.ir") : NULL;
	char counter[48], where[32], figures[96] = "", *safe;
	struct err e;

	if (!ctx->store_error && sweep_store_cells(ctx, r->session_id, &e) != 0)
		ctx->store_error = xstrdup(e.msg);
	progress_counter(p, counter, sizeof counter);
	progress_where(p, where, sizeof where);
	if (r->status == RUN_STATUS_HEAP_EXHAUSTED)
		ctx->exhausted++;
	else if (r->status != RUN_STATUS_OK && r->status != RUN_STATUS_INTERRUPTED)
		ctx->failed++;
	if (r->status == RUN_STATUS_OK && ir)
		snprintf(figures, sizeof figures, "Ir %.0f", *ir);
	else if (r->status == RUN_STATUS_OK && wall)
		snprintf(figures, sizeof figures, "%8.3f s", *wall / 1e9);
	else if (r->status != RUN_STATUS_HEAP_EXHAUSTED)
		snprintf(figures, sizeof figures, "%s", r->detail ? r->detail : "");
	/* The detail may quote the probe's stderr: made safe for the terminal. */
	safe = escape_text(figures);
	printf("%s %-11s %-24s %-20s %-14s %s\n", counter, where, cli_safe(r->probe),
	       cli_safe(p->arm->label), run_status_label(r->status), safe);
	free(safe);
}

/* The newest answer the store has for this host, build, probe and size; 0 when none. */
static uint64_t sweep_stored_min(const struct store_minheap *m, size_t n, int64_t host_id,
                                 int64_t build_id, const char *probe, const char *size)
{
	uint64_t found = 0;

	/* Oldest first: the last match is the newest. */
	for (size_t i = 0; i < n; i++)
		if (m[i].host_id == host_id && m[i].build_id == build_id &&
		    strcmp(m[i].probe, probe) == 0 && strcmp(m[i].size, size) == 0 &&
		    strcmp(m[i].outcome, "found") == 0 && m[i].min_heap_mb > 0)
			found = (uint64_t)m[i].min_heap_mb;
	return found;
}

/*
 * Fills min_mb[probe][build] for the builds the reference needs (all of them, or the one
 * named): from the store when it has an answer, else by minheap's search. 0 stays where a
 * search found none.
 */
static int sweep_minimums(const char *cmd, struct session_setup *s, const struct sweep_opts *so,
                          const char *command, long ref, uint64_t *min_mb)
{
	struct store_minheap *stored = NULL;
	struct session_prober *prober = NULL;
	struct err e;
	int64_t host_id, *build_ids = xcalloc(s->narms, sizeof *build_ids);
	size_t nstored = 0, np = s->plan.probes.n;
	int rc = -1, searched = 0;

	if (session_store_host_builds(s->st, s->arms, s->narms, &host_id, build_ids, &e) != 0 ||
	    store_minheap_list(s->st, &stored, &nstored, &e) != 0)
		goto fail;
	for (size_t p = 0; p < np; p++) {
		for (size_t b = 0; b < s->narms; b++) {
			const char *probe = s->plan.probes.items[p];
			uint64_t *m = &min_mb[p * s->narms + b];

			if (ref >= 0 && (long)b != ref)
				continue;
			*m = sweep_stored_min(stored, nstored, host_id, build_ids[b], probe,
			                      s->plan.size);
			if (*m) {
				printf("minimum heap of %s on %s: %" PRIu64 " MiB (stored)\n",
				       cli_safe(probe), cli_safe(s->arms[b].label), *m);
				continue;
			}
			if (!prober && session_prober_open(&s->plan, &prober, &e) != 0)
				goto fail;
			if (!searched++)
				heapsearch_header();
			if (heapsearch_find(s, prober, b, probe, so->repeats, command, m, &e) != 0)
				goto fail;
		}
	}
	fflush(stdout);
	rc = 0;
	goto out;
fail:
	cli_error(cmd, "%s", e.msg);
out:
	session_prober_close(prober);
	store_minheaps_release(stored, nstored);
	free(build_ids);
	return rc;
}

/*
 * The arms (build-major, factor-minor) and their per-probe knobs: GCR_HEAP_MAX_MB, and
 * GCR_HEAP_MB the same unless --limit-only. Fills the cells to store, arm by arm.
 */
static void sweep_arms(const struct session_setup *s, const struct sweep_opts *so,
                       const uint64_t *ref_mb, char *const *ref_build, struct session_arm *arms,
                       char **labels, struct strlist *pk, struct store_sweep_cell *cells)
{
	size_t np = s->plan.probes.n, a = 0;

	for (size_t b = 0; b < s->narms; b++)
		for (size_t f = 0; f < so->nfactors; f++, a++) {
			labels[a] = xasprintf("%s x%g", s->arms[b].label, so->factors[f]);
			arms[a] = s->arms[b];
			arms[a].label = labels[a];
			arms[a].probe_knobs = &pk[a * np];
			for (size_t p = 0; p < np; p++) {
				uint64_t mb = sweep_heap_mb(so->factors[f], ref_mb[p]);
				char *k = xasprintf("GCR_HEAP_MAX_MB=%" PRIu64, mb);
				struct store_sweep_cell *c = &cells[a * np + p];

				strlist_push(&pk[a * np + p], k);
				free(k);
				if (!so->limit_only) {
					k = xasprintf("GCR_HEAP_MB=%" PRIu64, mb);
					strlist_push(&pk[a * np + p], k);
					free(k);
				}
				c->arm = (int)a;
				c->probe = s->plan.probes.items[p];
				c->factor = so->factors[f];
				c->heap_mb = (int64_t)mb;
				c->reference_build = ref_build[p];
				c->reference_mb = (int64_t)ref_mb[p];
			}
		}
}

/* The sweep's table, read back from the store as report renders it. */
static int sweep_print(const char *cmd, struct store *st, int64_t session)
{
	struct report_sweep r;
	struct err e;
	char *md;

	if (report_sweep_load(st, session, &r, &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	md = report_sweep_md(&r);
	fputs(md, stdout);
	free(md);
	report_sweep_release(&r);
	return 0;
}

static int sweep_run(const char *cmd, const struct session_opts *o, const struct sweep_opts *so,
                     const char *command)
{
	struct session_setup s;
	struct session_outcome outcome;
	struct sweep_progress prog;
	struct measuring_lines lines = {NULL, sweep_progress_line, &prog};
	struct session_arm *arms = NULL;
	struct store_sweep_cell *cells = NULL;
	struct strlist *pk = NULL;
	uint64_t *min_mb = NULL, *ref_mb = NULL;
	char **labels = NULL, **ref_build = NULL;
	size_t np = 0, narms = 0;
	long ref = -1;
	struct err e;
	int rc = EXIT_UNJUDGED;

	memset(&prog, 0, sizeof prog);
	session_setup_init(&s);
	if (session_setup_begin(cmd, o, command, &s) != 0)
		goto out;
	np = s.plan.probes.n;
	for (size_t b = 0; so->reference && b < s.narms; b++)
		if (strcmp(s.arms[b].label, so->reference) == 0)
			ref = (long)b;
	if (so->reference && ref < 0) {
		rc = cli_error(cmd, "--reference %s is not one of the builds swept", so->reference);
		goto out;
	}
	printf("gcratchet sweep: %zu build%s x %zu factor%s x %zu probe%s, size %s, %d round%s "
	       "+ %d warm-up, seed %llu; reference: %s\n",
	       s.narms, s.narms == 1 ? "" : "s", so->nfactors, so->nfactors == 1 ? "" : "s", np,
	       np == 1 ? "" : "s", s.plan.size, s.plan.rounds, s.plan.rounds == 1 ? "" : "s",
	       s.plan.warmup, (unsigned long long)s.plan.seed,
	       so->reference ? cli_safe(so->reference) : "the smallest minimum heap of the builds");
	fflush(stdout);

	min_mb = xcalloc(np * s.narms, sizeof *min_mb);
	if (sweep_minimums(cmd, &s, so, command, ref, min_mb) != 0)
		goto out;
	ref_mb = xcalloc(np, sizeof *ref_mb);
	ref_build = xcalloc(np, sizeof *ref_build);
	for (size_t p = 0; p < np; p++) {
		for (size_t b = 0; b < s.narms; b++) {
			uint64_t m = min_mb[p * s.narms + b];
			if (m && (!ref_mb[p] || m < ref_mb[p])) {
				ref_mb[p] = m;
				ref_build[p] = s.labels[b];
			}
		}
		if (!ref_mb[p]) {
			rc = cli_error(cmd,
			               "no minimum heap for %s on %s: the search found none (see "
			               "its row above), so it has no heap sizes to run at",
			               s.plan.probes.items[p],
			               ref >= 0 ? s.labels[ref] : "any build swept");
			goto out;
		}
		printf("reference minimum of %s: %" PRIu64 " MiB (%s)\n",
		       cli_safe(s.plan.probes.items[p]), ref_mb[p], cli_safe(ref_build[p]));
	}

	narms = s.narms * so->nfactors;
	arms = xcalloc(narms, sizeof *arms);
	labels = xcalloc(narms, sizeof *labels);
	pk = xcalloc(narms * np, sizeof *pk);
	cells = xcalloc(narms * np, sizeof *cells);
	sweep_arms(&s, so, ref_mb, ref_build, arms, labels, pk, cells);
	/* The setup keeps its own arms (one per build) for its tear-down; the session runs ours. */
	s.plan.arms = arms;
	s.plan.narms = narms;
	prog.st = s.st;
	prog.cells = cells;
	prog.ncells = narms * np;
	fflush(stdout);
	if (measuring_run(cmd, &s, &lines, &outcome) != 0) {
		/* The heaps of the runs that were stored still explain them. */
		if (outcome.session_id && !prog.store_error)
			sweep_store_cells(&prog, outcome.session_id, &e);
		goto out;
	}
	/* A session that stored no run (interrupted at once) gets its cells here. */
	if (prog.store_error || sweep_store_cells(&prog, outcome.session_id, &e) != 0) {
		rc = cli_error(cmd, "%s", prog.store_error ? prog.store_error : e.msg);
		goto out;
	}
	printf("session %lld: %d run%s, %d out of heap, %d failed%s; stored in %s\n\n",
	       (long long)outcome.session_id, outcome.runs, outcome.runs == 1 ? "" : "s",
	       prog.exhausted, prog.failed,
	       outcome.interrupted ? ", INTERRUPTED (finished runs are kept)" : "",
	       cli_safe(store_where(s.st)));
	if (sweep_print(cmd, s.st, outcome.session_id) != 0)
		goto out;
	printf("\ncurves: gcratchet report --session %lld --html FILE\n",
	       (long long)outcome.session_id);
	rc = prog.failed || outcome.interrupted ? EXIT_UNJUDGED : EXIT_OK;
out:
	for (size_t i = 0; pk && i < narms * np; i++)
		strlist_release(&pk[i]);
	for (size_t i = 0; labels && i < narms; i++)
		free(labels[i]);
	free(prog.store_error);
	free(pk);
	free(labels);
	free(cells);
	free(arms);
	free(ref_build);
	free(ref_mb);
	free(min_mb);
	session_setup_end(&s);
	return rc;
}

static int sweep_main(int argc, char **argv)
{
	const char *cmd = cmd_sweep.name;
	struct sweep_args args;
	struct session_opts *o = &args.run;
	struct err e;
	char *command = NULL;
	int rc = EXIT_UNJUDGED, r;

	memset(&args, 0, sizeof args);
	args.sweep.repeats = HEAPSEARCH_REPEATS;
	session_opts_init(o, SESSION_VERB_SWEEP);
	if (sweep_parse_factors("--factors", SWEEP_DEFAULT_FACTORS, args.sweep.factors,
	                        &args.sweep.nfactors, &e) != 0)
		goto out;
	r = cli_parse(&cmd_sweep, argc, argv, &args, NULL);
	if (r != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	/* The sweep owns the heap: a knob of its own would make its sizes a lie. */
	for (size_t i = 0; i < o->knobs.n; i++)
		if (strncmp(o->knobs.items[i], "GCR_HEAP_MAX_MB=", 16) == 0 ||
		    strncmp(o->knobs.items[i], "GCR_HEAP_MB=", 12) == 0) {
			rc = cli_error(cmd, "--knob %s: the sweep sets the heap size itself",
			               o->knobs.items[i]);
			goto out;
		}
	/*
	 * The timed meters by default: with valgrind a sweep of three collectors at ci takes ten
	 * minutes and more on a shared 2-core host, almost all of it in the Ir runs. Ir curves are
	 * one --meters away.
	 */
	if (!o->meters)
		o->meters = xstrdup("rusage,census,perf");
	command = cli_command_line(argc, argv);
	rc = sweep_run(cmd, o, &args.sweep, command);
out:
	free(command);
	session_opts_release(o);
	return rc;
}

static int sweep_factors_row(void *field, const struct cli_option *row, const char *val,
                             struct err *e)
{
	struct sweep_opts *so = field;

	return sweep_parse_factors(row->name, val, so->factors, &so->nfactors, e);
}

#define SA(field) offsetof(struct sweep_args, field)
static const struct cli_option sweep_options[] = {
    {"--factors", "LIST", CLI_CALL, SA(sweep), .call = sweep_factors_row,
     .help = "heap sizes as multiples of the reference minimum: decimals from 1 to 1000 "
             "(default " SWEEP_DEFAULT_FACTORS ")"},
    {"--reference", "NAME", CLI_STRING, SA(sweep.reference),
     .help = "the build whose minimum heap is the reference (default: the smallest minimum)"},
    {"--limit-only", NULL, CLI_FLAG, SA(sweep.limit_only),
     .help = "set GCR_HEAP_MAX_MB only, leaving the initial heap to the build"},
    {"--repeats", "N", CLI_CALL, SA(sweep.repeats), .call = heapsearch_repeats_row,
     .help = "runs at the answer of a minimum-heap search (default 3)"},
    {.name = "session options",
     .kind = CLI_INCLUDE,
     .off = SA(run),
     .rows = session_options,
     .group = SESSION_OPT_RUN | SESSION_OPT_BUILDS | SESSION_OPT_HERMETIC | SESSION_OPT_QUIET |
              SESSION_OPT_KNOB},
    {0},
};
#undef SA

const struct cli_verb cmd_sweep = {
    .name = "sweep",
    .summary = "measure every probe at multiples of its minimum heap",
    .description =
        "Measures every probe on every build at heap sizes that are multiples of the probe's\n"
        "reference minimum heap: the smallest minimum among the builds swept (or --reference\n"
        "NAME's), taken from the store's minheap answers for the same build, probe, size and\n"
        "host, or searched as gcratchet minheap does (--repeats runs at the answer, default 3).\n"
        "At factor F a probe runs with GCR_HEAP_MAX_MB = ceil(F x reference) and, unless\n"
        "--limit-only, GCR_HEAP_MB the same (a fixed-size heap), so every build runs at the\n"
        "same absolute sizes. --factors (default 1.25,1.5,2,3,4,6) are decimals from 1 to 1000.\n"
        "One session whose arms are (build, factor) pairs, rounds interleaved as measure does\n"
        "(default 1 round, no warm-up); a run out of heap is stored as heap_exhausted, a\n"
        "missing point. Meters: rusage, census and perf unless --meters says (add valgrind for\n"
        "the Ir curves: one more run per point, most of a sweep's time). Prints the sweep's\n"
        "table; gcratchet report --session N renders the time-space curves and the lower-bound\n"
        "overhead (docs/sweeps.md).\n"
        "--cpu, --no-aslr, --pass-env, --env-offset, --lock-timeout and the --idle options are\n"
        "measure's: how the runs are made.\n",
    .exit_status = "0 every run completed or ran out of heap; 2 a run failed otherwise, a probe "
                   "has no reference minimum, or the sweep could not run or was interrupted.",
    .options = sweep_options,
    .run = sweep_main,
};
