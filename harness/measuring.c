/* measuring.c — a session run under a progress line, and its outcome printed (measuring.h). */
#include "measuring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "escape.h"
#include "progress.h"
#include "session_opts.h"
#include "store.h"

/* Lines of a failed run's stderr shown under it (run_stderr_lines). */
#define MEASURING_STDERR_LINES 12

static int measuring_inert;

/*
 * Test hook: GCR_TEST_BALLAST_MB=N makes the harness hold N MiB of touched memory for the
 * whole session, so tests can prove a probe's peak RSS does not include the harness's.
 */
static void *measuring_ballast(void)
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
static void measuring_load_warning(const char *cmd, struct store *st, int64_t session)
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
 * How a session's runs are shown: on stdout, the verb's lines for its runs as the record of
 * what was measured; on stderr, where the session is and the time left (progress.h), redrawn
 * on a terminal and a few plain lines elsewhere.
 */
struct measuring_display {
	const struct measuring_lines *lines;
	struct progress *estimate;
	struct progress_display display;
	int stdout_tty; /* stdout is a terminal too: the status line is erased before a run's */
};

static void measuring_progress(void *ctx, const struct session_progress *p)
{
	struct measuring_display *d = ctx;
	const struct measuring_lines *l = d->lines;

	progress_report(d->estimate, p);
	if (l && (!l->shown || l->shown(l->ctx, p))) {
		if (d->stdout_tty)
			progress_display_clear(&d->display);
		l->print(l->ctx, p);
		fflush(stdout);
	}
	progress_display_update(&d->display, d->estimate, p);
}

/* A late interrupt was seen (measuring_stop_asked): the handler's count is per session. */
static int measuring_late_interrupt;

int measuring_stop_asked(void)
{
	return measuring_late_interrupt;
}

int measuring_run(const char *cmd, struct session_setup *s, const struct measuring_lines *lines,
                  struct session_outcome *outcome)
{
	struct measuring_display d = {lines, NULL, {0}, isatty(STDOUT_FILENO)};
	struct err e;
	int r;

	d.estimate = progress_new(&s->plan);
	progress_display_init(&d.display, cmd, stderr, STDERR_FILENO, s->plan.stop);
	r = session_run(&s->plan, s->st, measuring_progress, &d, outcome, &e);
	progress_display_clear(&d.display);
	progress_free(d.estimate);
	if (r != 0) {
		cli_error(cmd, "%s%s", e.msg,
		          outcome->session_id ? " (runs stored so far are kept)" : "");
		return -1;
	}
	/* The notice at the interrupt promised less than this: say what it came to. */
	measuring_late_interrupt |= outcome->late_interrupt;
	if (outcome->late_interrupt)
		fprintf(stderr,
		        "gcratchet %s: the interrupt came after the last run: all %d runs are "
		        "stored, and session %lld is complete\n",
		        cmd, outcome->runs, (long long)outcome->session_id);
	return 0;
}

/* measure's view: the runs in trouble, or every run. */
static int measuring_trouble(void *ctx, const struct session_progress *p)
{
	const enum measuring_view *view = ctx;
	const struct run_record *r = p->run;

	/* Quiet: a run that went well is only the status line. */
	return *view == MEASURING_VIEW_RUNS || r->status != RUN_STATUS_OK || r->detail ||
	       r->premise == RUN_PREMISE_NOT_MET;
}

/* A run's line in measure's table, and what its probe said as it failed. */
static void measuring_line(void *ctx, const struct session_progress *p)
{
	const struct run_record *r = p->run;
	const double *wall = r->metrics ? metric_set_get(r->metrics, "time.wall_ns") : NULL;
	const double *rss = r->metrics ? metric_set_get(r->metrics, "rss.peak_bytes") : NULL;
	const double *ir = r->metrics ? metric_set_get(r->metrics, "valgrind.ir") : NULL;
	char counter[48], where[32], figures[96] = "", *safe;

	(void)ctx;
	progress_counter(p, counter, sizeof counter);
	progress_where(p, where, sizeof where);
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
	printf("%s %-15s %-24s %-18s %-8s %s\n", counter, where, cli_safe(r->probe),
	       cli_safe(p->arm->label), run_status_label(r->status), safe);
	free(safe);
	/*
	 * What the probe said as it failed is in its stderr, stored with the run: the lines that
	 * say why are shown, not only in export (a runtime's "Cannot find module" sits between
	 * its stack trace and a closing line naming its version). A line the detail already
	 * quotes is not said twice.
	 */
	if (r->status != RUN_STATUS_OK) {
		struct strlist lines = {0};
		run_stderr_lines(r->stderr_tail, MEASURING_STDERR_LINES, &lines);
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
		measuring_inert++;
	}
}

int measuring_session(const char *cmd, const struct session_opts *o, const char *command,
                      enum measuring_view view, int64_t *session_id)
{
	struct session_setup s;
	struct session_outcome outcome;
	struct measuring_lines lines = {measuring_trouble, measuring_line, &view};
	void *ballast = measuring_ballast();
	int rc = EXIT_UNJUDGED;

	if (session_id)
		*session_id = 0;
	measuring_inert = 0;
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

	if (measuring_run(cmd, &s, &lines, &outcome) != 0) {
		if (session_id)
			*session_id = outcome.session_id;
		goto out;
	}
	if (session_id)
		*session_id = outcome.session_id;
	measuring_load_warning(cmd, s.st, outcome.session_id);
	/* The store's own name for itself: a URL without its password. */
	printf("session %lld: %d run%s, %d failed%s; stored in %s\n", (long long)outcome.session_id,
	       outcome.runs, outcome.runs == 1 ? "" : "s", outcome.runs_failed,
	       outcome.interrupted ? ", INTERRUPTED (finished runs are kept)" : "",
	       cli_safe(store_where(s.st)));
	if (measuring_inert)
		printf("INERT: %d run%s did not meet their probe's premise; check reports them as "
		       "regressions\n",
		       measuring_inert, measuring_inert == 1 ? "" : "s");
	/* Before what a verb runs next shows its progress on stderr: a log keeps the order. */
	fflush(stdout);
	rc = outcome.interrupted   ? EXIT_UNJUDGED
	     : outcome.halted      ? EXIT_REGRESSION
	     : outcome.runs_failed ? EXIT_UNJUDGED
	                           : EXIT_OK;
out:
	session_setup_end(&s);
	free(ballast);
	return rc;
}
