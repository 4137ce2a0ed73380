/* gcratchet measure — run probes against collector builds and store every sample. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "meter_perf.h"
#include "cmds.h"
#include "escape.h"
#include "progress.h"
#include "session.h"
#include "session_opts.h"
#include "store.h"

/* Lines of a failed run's stderr shown under it (run_stderr_lines). */
#define MEASURE_STDERR_LINES 12

static int measure_inert;

/*
 * Test hook: GCR_TEST_BALLAST_MB=N makes the harness hold N MiB of touched memory for the
 * whole session, so tests can prove a probe's peak RSS does not include the harness's.
 */
static void *measure_ballast(void)
{
	const char *env = getenv("GCR_TEST_BALLAST_MB");
	uint64_t mb;
	void *p;

	if (!env || parse_u64(env, &mb) != 0 || mb == 0)
		return NULL;
	p = xmalloc((size_t)mb << 20);
	memset(p, 0x5a, (size_t)mb << 20);
	return p;
}

/* The load is recorded before and after; a session the host got busier during says so. */
static void measure_load_warning(const char *cmd, struct store *st, int64_t session)
{
	struct store_session si;
	struct err e;

	if (store_session_get(st, session, &si, &e) != 0)
		return;
	if (si.load_before >= 0 && si.load_after > si.load_before + 0.5)
		fprintf(
		    stderr,
		    "gcratchet %s: warning: the load rose from %.2f to %.2f during the session; "
		    "time figures may be noisy\n",
		    cmd, si.load_before, si.load_after);
	store_session_release(&si);
}

/*
 * How the runs of a session are shown: on stdout, the runs (each, or in the quiet view only
 * those in trouble) as the record of what was measured; on stderr, where the session is and
 * the time left (progress.h), redrawn on a terminal and a few plain lines elsewhere.
 */
struct measure_show {
	enum measure_view view;
	struct progress *estimate;
	struct progress_display display;
	int stdout_tty; /* stdout is a terminal too: the status line is erased before a run's */
};

static void measure_progress(void *ctx, const struct session_progress *p)
{
	struct measure_show *show = ctx;
	const struct run_record *r = p->run;
	const double *wall = r->metrics ? metric_set_get(r->metrics, "time.wall_ns") : NULL;
	const double *rss = r->metrics ? metric_set_get(r->metrics, "rss.peak_bytes") : NULL;
	const double *ir = r->metrics ? metric_set_get(r->metrics, "valgrind.ir") : NULL;
	char where[32], figures[96] = "", *safe;
	int trouble = r->status != RUN_STATUS_OK || r->detail || r->premise == RUN_PREMISE_NOT_MET;

	progress_report(show->estimate, p);
	progress_where(p, where, sizeof where);
	/* Quiet: a run that went well is only the status line. */
	if (show->view == MEASURE_VIEW_QUIET && !trouble) {
		progress_display_update(&show->display, show->estimate, p);
		return;
	}
	if (show->stdout_tty)
		progress_display_clear(&show->display);
	if (r->status == RUN_STATUS_OK) {
		if (ir)
			snprintf(figures, sizeof figures, "Ir %.0f", *ir);
		else if (wall && rss)
			snprintf(figures, sizeof figures, "%8.3f s  %8.2f MiB", *wall / 1e9,
			         *rss / (1024.0 * 1024.0));
	} else {
		/* The detail may quote the probe's stderr: made safe for the terminal below. */
		snprintf(figures, sizeof figures, "%s", r->detail ? r->detail : "");
	}
	safe = escape_text(figures);
	printf("[%3d/%d] %-15s %-24s %-18s %-8s %s\n", p->run_index, p->run_total, where,
	       cli_safe(r->probe), cli_safe(p->arm->label), run_status_label(r->status), safe);
	free(safe);
	/*
	 * What the probe said as it failed is in its stderr, stored with the run: the lines that
	 * say why are shown, not only in export (a runtime's "Cannot find module" sits between
	 * its stack trace and a closing line naming its version). A line the detail already
	 * quotes is not said twice.
	 */
	if (r->status != RUN_STATUS_OK) {
		struct strlist lines = {0};
		run_stderr_lines(r->stderr_tail, MEASURE_STDERR_LINES, &lines);
		for (size_t i = 0; i < lines.n; i++) {
			if (r->detail && strstr(r->detail, lines.items[i]))
				continue;
			safe = escape_text(lines.items[i]);
			printf("          stderr: %s\n", safe);
			free(safe);
		}
		strlist_release(&lines);
	}
	if (r->status == RUN_STATUS_OK && r->detail)
		printf("          warning: %s\n", cli_safe(r->detail));
	/* A run that failed is reported as failed; inert means it ran and caused nothing. */
	if (r->status == RUN_STATUS_OK && r->premise == RUN_PREMISE_NOT_MET) {
		/* Loud: the probe ran but did not cause what it exists to cause. */
		printf("          INERT: premise not met%s%s\n", r->premise_text ? ": " : "",
		       cli_safe(r->premise_text));
		measure_inert++;
	}
	fflush(stdout);
	progress_display_update(&show->display, show->estimate, p);
}

int measure_session(const char *cmd, const struct session_opts *o, const char *command,
                    enum measure_view view, int64_t *session_id)
{
	struct session_setup s;
	struct session_outcome outcome;
	struct measure_show show = {view, NULL, {0}, isatty(STDOUT_FILENO)};
	struct err e;
	void *ballast = measure_ballast();
	int rc = EXIT_UNJUDGED;

	if (session_id)
		*session_id = 0;
	measure_inert = 0;
	session_setup_init(&s);
	if (session_setup_begin(cmd, o, command, &s) != 0)
		goto out;
	printf("gcratchet measure: %zu build%s x %zu probe%s, size %s, %d round%s + %d warm-up, "
	       "seed %llu\n",
	       s.narms, s.narms == 1 ? "" : "s", s.plan.probes.n, s.plan.probes.n == 1 ? "" : "s",
	       s.plan.size, s.plan.rounds, s.plan.rounds == 1 ? "" : "s", s.plan.warmup,
	       (unsigned long long)s.plan.seed);
	{
		struct sbuf m;
		sbuf_init(&m);
		cli_describe_meters(&s.plan, &m);
		printf("meters: %s\n", m.data);
		sbuf_release(&m);
	}
	if (s.plan.meters & SESSION_METER_VALGRIND) {
		int runs = s.plan.valgrind_runs > 1 ? s.plan.valgrind_runs : 1;
		char what[32] = "one valgrind run", more[96] = "";

		/* The runs the session may add (session.h): where Ir did not repeat (ab), where a
		 * figure is past its allowance (ratchet's confirmation). */
		if (s.plan.valgrind_runs_max > runs)
			snprintf(more, sizeof more, ", up to %d where Ir does not repeat",
			         s.plan.valgrind_runs_max);
		else if (s.plan.confirm)
			snprintf(more, sizeof more, ", %d more of a probe past its allowance",
			         s.plan.valgrind_confirm);
		if (runs > 1)
			snprintf(what, sizeof what, "%d valgrind runs", runs);
		printf("        (%s per probe and build%s, after the timed rounds; up to %d at "
		       "once: --jobs %d)\n",
		       what, more, s.plan.jobs, s.plan.jobs);
	}
	for (size_t b = 0; b < s.narms; b++) {
		char *knobs = strlist_join(&s.knobs[b], " ");
		/* A manifest is anyone's file: its names are shown, never obeyed. */
		printf("build %zu: %s (%s %s, %s) %s%s%s\n", b + 1, cli_safe(s.labels[b]),
		       cli_safe(s.builds[b].collector), cli_safe(s.builds[b].version),
		       cli_safe(s.builds[b].git_commit), cli_safe(s.builds[b].dir),
		       s.knobs[b].n ? " with " : "", cli_safe(knobs));
		free(knobs);
	}
	fflush(stdout);

	show.estimate = progress_new(&s.plan);
	progress_display_init(&show.display, cmd, stderr, STDERR_FILENO, s.plan.stop);
	if (session_run(&s.plan, s.st, measure_progress, &show, &outcome, &e) != 0) {
		progress_display_clear(&show.display);
		rc = cli_error(cmd, "%s%s", e.msg,
		               outcome.session_id ? " (runs stored so far are kept)" : "");
		if (session_id)
			*session_id = outcome.session_id;
		goto out;
	}
	progress_display_clear(&show.display);
	if (session_id)
		*session_id = outcome.session_id;
	measure_load_warning(cmd, s.st, outcome.session_id);
	/* The store's own name for itself: a URL without its password. */
	printf("session %lld: %d run%s, %d failed%s; stored in %s\n", (long long)outcome.session_id,
	       outcome.runs, outcome.runs == 1 ? "" : "s", outcome.runs_failed,
	       outcome.interrupted ? ", INTERRUPTED (finished runs are kept)" : "",
	       cli_safe(store_where(s.st)));
	if (measure_inert)
		printf("INERT: %d run%s did not meet their probe's premise; check reports them as "
		       "regressions\n",
		       measure_inert, measure_inert == 1 ? "" : "s");
	rc = outcome.runs_failed || outcome.interrupted ? EXIT_UNJUDGED : EXIT_OK;
out:
	progress_free(show.estimate);
	session_setup_end(&s);
	free(ballast);
	return rc;
}

static int measure_main(int argc, char **argv)
{
	struct session_opts o;
	char *command = NULL;
	int rc = EXIT_UNJUDGED, r;

	session_opts_init(&o, SESSION_VERB_MEASURE);
	r = cli_parse(&cmd_measure, argc, argv, &o, NULL);
	if (r != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	command = cli_command_line(argc, argv);
	rc = measure_session(cmd_measure.name, &o, command, MEASURE_VIEW_RUNS, NULL);
out:
	free(command);
	session_opts_release(&o);
	return rc;
}

/* Every option of measure is a shared session option. */
static const struct cli_option measure_options[] = {
    {.name = "session options",
     .kind = CLI_INCLUDE,
     .rows = session_options,
     .group = SESSION_OPT_RUN | SESSION_OPT_BUILDS | SESSION_OPT_TWO_N | SESSION_OPT_HERMETIC |
              SESSION_OPT_QUIET | SESSION_OPT_KNOB},
    {0},
};

const struct cli_verb cmd_measure = {
    .name = "measure",
    .summary = "run probes against collector builds and store every sample",
    .description =
        "Runs every chosen probe on every chosen build, round after round, and stores every\n"
        "sample in the database. Builds are interleaved within each round (order reversed on\n"
        "every other round), the probe order is shuffled per round from the printed seed, and\n"
        "warm-up rounds are stored but marked. Defaults: size default, 5 rounds after 1 warm-up\n"
        "round, one valgrind run per probe and build.\n",
    .exit_status = "0 every run succeeded; 2 a run failed, crashed or timed out (it is stored "
                   "and the session went on), the session was interrupted, or the arguments "
                   "were wrong.",
    .options = measure_options,
    .run = measure_main,
};
