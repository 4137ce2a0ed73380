/*
 * heapsearch.c — the minimum-heap search run on real builds (heapsearch.h): minheap.c's search
 * given an oracle that runs the probe hermetically (session_prober_*), its answers printed as
 * minheap's table, stored (the minheap table) and written as JSON.
 */
#include "heapsearch.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "escape.h"
#include "minheap.h"
#include "progress.h"
#include "session.h"
#include "session_opts.h"
#include "store.h"

/* Granularity of the search: 1/64 of the current bound (minheap.h), never finer than 1 MiB. */
#define HEAPSEARCH_FRAC   64u
/* The knob's own bound (collectors/common/heaplimit.h). */
#define HEAPSEARCH_MAX_MB (UINT64_C(1) << 20)

/*
 * Where a search of several cells is, on stderr (progress.h's status line): "[ 3/15] minimum
 * heap  05_binary_trees on gen  at 12 MiB  ~40s left", so that a phase of a minute is not
 * silent. The time left is the mean search so far times the searches left: a sum, which the
 * mean estimates (a probe's search costs what its runs do, and they differ widely).
 */
struct heapsearch_progress {
	struct progress_display display;
	int stdout_tty; /* a row printed on stdout erases the status line first */
	size_t done, total;
	int64_t t0_ns;
	const char *probe, *label;
};

static void heapsearch_progress_show(struct heapsearch_progress *hp, uint64_t limit_mb)
{
	char line[256], at[48] = "", left[48] = "", d[32];

	if (!hp)
		return;
	if (limit_mb)
		snprintf(at, sizeof at, "  at %" PRIu64 " MiB", limit_mb);
	if (hp->done > 0 && !(hp->display.stop && *hp->display.stop)) {
		int64_t spent = now_mono_ns() - hp->t0_ns;
		int64_t rest = spent / (int64_t)hp->done * (int64_t)(hp->total - hp->done);
		progress_format_duration(rest, d, sizeof d);
		/* As a session's line says it: "<1s", not "~0s". */
		if (rest < 500000000)
			snprintf(left, sizeof left, "  <1s left");
		else
			snprintf(left, sizeof left, "  ~%s left", d);
	}
	snprintf(line, sizeof line, "[%3zu/%zu] minimum heap  %s on %s%s%s", hp->done + 1,
	         hp->total, hp->probe, hp->label, at, left);
	/* A plain line at each search's start is enough; the tries are for a terminal. */
	if (limit_mb && !hp->display.redraw)
		return;
	progress_display_text(&hp->display, line, hp->done == 0 || hp->done + 1 == hp->total);
}

/* What the oracle needs to run one probe of one arm under a limit. */
struct heapsearch_oracle_ctx {
	struct session_prober *prober;
	const struct session_arm *arm;
	const char *probe;
	const char *checksum; /* the probe's checksum without a limit */
	uint64_t trace_mb[64];
	size_t ntrace;
	struct heapsearch_progress *progress; /* NULL: none shown */
};

/* The arm's knobs, without a GCR_HEAP_MAX_MB of its own, plus `limit` when it is not NULL. */
static void heapsearch_knobs(const struct strlist *arm_knobs, const char *limit,
                             struct strlist *out)
{
	for (size_t i = 0; arm_knobs && i < arm_knobs->n; i++)
		if (strncmp(arm_knobs->items[i], "GCR_HEAP_MAX_MB=", 16) != 0)
			strlist_push(out, arm_knobs->items[i]);
	if (limit)
		strlist_push(out, limit);
}

static int heapsearch_oracle(void *vctx, uint64_t limit_mb, enum minheap_verdict *v, char *detail,
                             size_t detail_size, struct err *e)
{
	struct heapsearch_oracle_ctx *ctx = vctx;
	struct strlist knobs = {0};
	struct session_arm arm = *ctx->arm;
	struct session_single r;
	char limit[48];
	int rc = -1;

	snprintf(limit, sizeof limit, "GCR_HEAP_MAX_MB=%" PRIu64, limit_mb);
	heapsearch_knobs(ctx->arm->knobs, limit, &knobs);
	arm.knobs = &knobs;
	if (ctx->ntrace < sizeof ctx->trace_mb / sizeof ctx->trace_mb[0])
		ctx->trace_mb[ctx->ntrace++] = limit_mb;
	heapsearch_progress_show(ctx->progress, limit_mb);
	if (session_prober_run(ctx->prober, &arm, ctx->probe, &r, e) != 0)
		goto out;
	switch (r.status) {
	case RUN_STATUS_OK:
		if (r.checksum && strcmp(r.checksum, ctx->checksum) == 0) {
			const double *peak =
			    metric_set_get(&r.metrics, "census.heap_committed_peak_bytes");
			*v = MINHEAP_FITS;
			/*
			 * A collector that honours the limit commits at most N MiB, or (gen) N plus
			 * one nursery's survivors during the pause that then ends the run: never
			 * twice N. More is a build that ignores GCR_HEAP_MAX_MB, whose "minimum"
			 * would be the search's floor, 1 MiB.
			 */
			if (peak && *peak > 2.0 * (double)(limit_mb << 20)) {
				*v = MINHEAP_BROKEN;
				snprintf(detail, detail_size,
				         "at %" PRIu64
				         " MiB the run committed %.1f MiB: the build ignores"
				         " GCR_HEAP_MAX_MB (gcr.h)",
				         limit_mb, *peak / 1048576.0);
			}
		} else {
			*v = MINHEAP_BROKEN;
			snprintf(detail, detail_size,
			         "at %" PRIu64 " MiB the checksum is %s, not %s as without a limit",
			         limit_mb, r.checksum ? r.checksum : "missing", ctx->checksum);
		}
		break;
	case RUN_STATUS_HEAP_EXHAUSTED:
	/* Close to its minimum a collector may collect all the time: too small all the same. */
	case RUN_STATUS_TIMEOUT:
		*v = MINHEAP_EXHAUSTED;
		break;
	case RUN_STATUS_INTERRUPTED:
		err_set(e, "interrupted");
		goto out;
	default:
		*v = MINHEAP_BROKEN;
		snprintf(detail, detail_size, "at %" PRIu64 " MiB the run %s%s%s", limit_mb,
		         run_status_label(r.status), r.detail ? ": " : "",
		         r.detail ? r.detail : "");
		break;
	}
	rc = 0;
out:
	session_single_release(&r);
	strlist_release(&knobs);
	return rc;
}

/* One cell's answer, as printed, stored and written. */
struct heapsearch_row {
	const char *label, *probe;
	struct minheap_result res;
	int64_t peak_bytes; /* without a limit; -1 unknown */
	char checksum[24];
	char detail[320];
	double wall_s; /* the search's own wall time */
};

void heapsearch_header(void)
{
	printf("%-20s %-24s %10s %10s %8s %5s %12s  %s\n", "build", "probe", "min MiB", "fails at",
	       "step", "runs", "peak MiB", "note");
}

/*
 * The row's note. A found minimum whose "fails at" limit was at or above the unlimited run's
 * committed peak says so: that limit held the whole peak and still did not fit, so the limit
 * bounds more than the census's peak counts, or the peak missed a moment, or the build needs
 * room to collect in (docs/sweeps.md, "A minimum above the unlimited peak").
 */
static void heapsearch_note(const struct heapsearch_row *w, char *note, size_t size)
{
	int above = w->res.outcome == MINHEAP_FOUND && w->peak_bytes >= 0 && w->res.lo_mb &&
	            (w->res.lo_mb << 20) >= (uint64_t)w->peak_bytes;

	if (w->res.outcome == MINHEAP_NEVER_FITS)
		snprintf(note, size, "never fits");
	else if (w->res.outcome != MINHEAP_FOUND)
		snprintf(note, size, "%s", w->detail);
	else
		snprintf(note, size, "%s%s%s", w->res.unsteady ? "unsteady at the boundary" : "",
		         w->res.unsteady && above ? "; " : "",
		         above ? "fails at or above the unlimited peak" : "");
}

static void heapsearch_print_row(const struct heapsearch_row *w)
{
	char min[24] = "-", lo[24] = "-", step[24] = "-", peak[24] = "?";
	char note[sizeof w->detail + 64];

	if (w->res.outcome == MINHEAP_FOUND) {
		snprintf(min, sizeof min, "%" PRIu64, w->res.min_mb);
		snprintf(step, sizeof step, "%" PRIu64, w->res.step_mb);
	}
	if (w->res.lo_mb)
		snprintf(lo, sizeof lo, "%" PRIu64, w->res.lo_mb);
	if (w->peak_bytes >= 0)
		snprintf(peak, sizeof peak, "%.1f", (double)w->peak_bytes / 1048576.0);
	heapsearch_note(w, note, sizeof note);
	/* The label and probe are a manifest's, the note may quote a probe's stderr. */
	printf("%-20s %-24s %10s %10s %8s %5u %12s%s%s\n", cli_safe(w->label), cli_safe(w->probe),
	       min, lo, step, w->res.runs, peak, *note ? "  " : "", cli_safe(note));
	fflush(stdout);
}

static cJSON *heapsearch_row_json(const struct heapsearch_row *w, const struct buildinfo *b)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "build", escape_json_string(w->label));
	cJSON_AddItemToObject(o, "collector", escape_json_string(b->collector));
	cJSON_AddItemToObject(o, "version", escape_json_string(b->version));
	cJSON_AddItemToObject(o, "probe", escape_json_string(w->probe));
	cJSON_AddItemToObject(o, "outcome",
	                      escape_json_string(minheap_outcome_name(w->res.outcome)));
	if (w->res.outcome == MINHEAP_FOUND) {
		cJSON_AddNumberToObject(o, "min_heap_mb", (double)w->res.min_mb);
		cJSON_AddNumberToObject(o, "step_mb", (double)w->res.step_mb);
	} else {
		cJSON_AddNullToObject(o, "min_heap_mb");
		cJSON_AddNullToObject(o, "step_mb");
	}
	cJSON_AddNumberToObject(o, "fails_at_mb", (double)w->res.lo_mb);
	cJSON_AddNumberToObject(o, "runs", w->res.runs);
	cJSON_AddNumberToObject(o, "unsteady", w->res.unsteady);
	if (w->peak_bytes >= 0)
		cJSON_AddNumberToObject(o, "unlimited_peak_bytes", (double)w->peak_bytes);
	else
		cJSON_AddNullToObject(o, "unlimited_peak_bytes");
	cJSON_AddItemToObject(o, "checksum",
	                      escape_json_string(w->checksum[0] ? w->checksum : NULL));
	cJSON_AddItemToObject(o, "detail", escape_json_string(w->detail[0] ? w->detail : NULL));
	cJSON_AddNumberToObject(o, "search_wall_s", w->wall_s);
	return o;
}

/*
 * One build and probe: a run without a limit for the checksum and the first guess, then the
 * search, shown on hp (NULL: not shown). Fills *w; -1 with e only when the harness failed.
 */
static int heapsearch_cell(struct session_prober *prober, const struct session_arm *arm,
                           const char *probe, unsigned repeats, struct heapsearch_progress *hp,
                           struct heapsearch_row *w, struct err *e)
{
	struct heapsearch_oracle_ctx ctx;
	struct minheap_params p;
	struct strlist knobs = {0};
	struct session_arm free_arm = *arm;
	struct session_single r;
	const double *peak;
	int64_t t0 = now_mono_ns();
	int rc = -1;

	memset(w, 0, sizeof *w);
	w->label = arm->label;
	w->probe = probe;
	w->peak_bytes = -1;
	heapsearch_knobs(arm->knobs, NULL, &knobs);
	free_arm.knobs = &knobs;
	if (hp) {
		hp->probe = probe;
		hp->label = arm->label;
	}
	heapsearch_progress_show(hp, 0);
	if (session_prober_run(prober, &free_arm, probe, &r, e) != 0)
		goto out;
	if (r.status == RUN_STATUS_INTERRUPTED) {
		err_set(e, "interrupted");
		goto out;
	}
	if (r.status != RUN_STATUS_OK || !r.checksum) {
		w->res.outcome = MINHEAP_FAILED;
		w->res.runs = 1;
		snprintf(w->detail, sizeof w->detail, "without a limit the run %s%s%s",
		         r.status == RUN_STATUS_OK ? "printed no checksum"
		                                   : run_status_label(r.status),
		         r.detail ? ": " : "", r.detail ? r.detail : "");
		rc = 0;
		goto out;
	}
	snprintf(w->checksum, sizeof w->checksum, "%s", r.checksum);
	peak = metric_set_get(&r.metrics, "census.heap_committed_peak_bytes");
	if (peak)
		w->peak_bytes = (int64_t)*peak;

	memset(&ctx, 0, sizeof ctx);
	ctx.prober = prober;
	ctx.arm = arm;
	ctx.probe = probe;
	ctx.checksum = w->checksum;
	ctx.progress = hp;
	p.guess_mb = peak ? (uint64_t)((*peak + 1048575.0) / 1048576.0) : 16;
	p.max_mb = HEAPSEARCH_MAX_MB;
	p.frac = HEAPSEARCH_FRAC;
	p.repeats = repeats;
	if (minheap_search(&p, heapsearch_oracle, &ctx, &w->res, e) != 0)
		goto out;
	w->res.runs++; /* the run without a limit */
	snprintf(w->detail, sizeof w->detail, "%s", w->res.detail);
	rc = 0;
out:
	w->wall_s = (double)(now_mono_ns() - t0) / 1e9;
	session_single_release(&r);
	strlist_release(&knobs);
	return rc;
}

static int heapsearch_store(struct store *st, int64_t host_id, int64_t build_id, const char *size,
                            const char *started_at, const char *command, unsigned repeats,
                            const struct heapsearch_row *w, struct err *e)
{
	struct store_minheap_record m;

	memset(&m, 0, sizeof m);
	m.host_id = host_id;
	m.build_id = build_id;
	m.probe = w->probe;
	m.size = size;
	m.started_at = started_at;
	m.command = command;
	m.outcome = minheap_outcome_name(w->res.outcome);
	m.min_heap_mb = w->res.outcome == MINHEAP_FOUND ? (int64_t)w->res.min_mb : 0;
	m.lo_mb = (int64_t)w->res.lo_mb;
	m.step_mb = (int64_t)w->res.step_mb;
	m.repeats = repeats;
	m.runs = w->res.runs;
	m.unlimited_peak_bytes = w->peak_bytes;
	m.checksum = w->checksum[0] ? w->checksum : NULL;
	m.detail = w->detail[0] ? w->detail : NULL;
	return store_minheap_insert(st, &m, e);
}

int heapsearch_find(struct session_setup *s, struct session_prober *prober, size_t arm,
                    const char *probe, unsigned repeats, const char *command, uint64_t *min_mb,
                    struct err *e)
{
	int64_t host_id = 0, *build_ids = xcalloc(s->narms, sizeof *build_ids);
	char started_at[32];
	struct heapsearch_row w;
	int rc = -1;

	*min_mb = 0;
	format_utc(now_real_ns(), started_at, sizeof started_at);
	if (session_store_host_builds(s->st, s->arms, s->narms, &host_id, build_ids, e) != 0 ||
	    heapsearch_cell(prober, &s->arms[arm], probe, repeats, NULL, &w, e) != 0)
		goto out;
	heapsearch_print_row(&w);
	if (heapsearch_store(s->st, host_id, build_ids[arm], s->plan.size, started_at, command,
	                     repeats, &w, e) != 0)
		goto out;
	if (w.res.outcome == MINHEAP_FOUND)
		*min_mb = w.res.min_mb;
	rc = 0;
out:
	free(build_ids);
	return rc;
}

int heapsearch_session(const char *cmd, const struct session_opts *o, const char *command,
                       const char *out_path, unsigned repeats, enum measuring_view view)
{
	struct session_setup s;
	struct session_prober *prober = NULL;
	struct err e = ERR_INIT;
	int64_t host_id = 0, *build_ids = NULL, t0 = now_mono_ns();
	char started_at[32];
	cJSON *root = NULL, *rows = NULL;
	struct strlist probes = {0};
	struct heapsearch_progress hp;
	int rc = EXIT_UNJUDGED, incomplete = 0;

	memset(&hp, 0, sizeof hp);
	session_setup_init(&s);
	if (session_setup_begin(cmd, o, command, &s) != 0)
		goto out;
	build_ids = xcalloc(s.narms, sizeof *build_ids);
	if (session_store_host_builds(s.st, s.arms, s.narms, &host_id, build_ids, &e) != 0 ||
	    session_prober_open(&s.plan, &prober, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	format_utc(now_real_ns(), started_at, sizeof started_at);
	root = cJSON_CreateObject();
	cJSON_AddItemToObject(root, "format", escape_json_string("gcratchet-minheap"));
	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddItemToObject(root, "size", escape_json_string(s.plan.size));
	cJSON_AddItemToObject(root, "started_at", escape_json_string(started_at));
	cJSON_AddNumberToObject(root, "frac", HEAPSEARCH_FRAC);
	cJSON_AddNumberToObject(root, "repeats", repeats);
	rows = cJSON_AddArrayToObject(root, "results");

	printf("gcratchet minheap: %zu build%s x %zu probe%s, size %s; granularity 1/%u of the "
	       "bound (at least 1 MiB), %u run%s at each answer\n",
	       s.narms, s.narms == 1 ? "" : "s", s.plan.probes.n, s.plan.probes.n == 1 ? "" : "s",
	       s.plan.size, HEAPSEARCH_FRAC, repeats, repeats == 1 ? "" : "s");
	if (view == MEASURING_VIEW_RUNS)
		heapsearch_header();
	/* Before the progress on stderr: a log that holds both keeps their order. */
	fflush(stdout);
	/* By probe number, whatever order --probes named them in: every output's order. */
	for (size_t k = 0; k < s.plan.probes.n; k++)
		strlist_push(&probes, s.plan.probes.items[k]);
	strlist_sort_probes(&probes);
	progress_display_init(&hp.display, cmd, stderr, STDERR_FILENO, s.plan.stop);
	hp.stdout_tty = isatty(STDOUT_FILENO);
	hp.total = probes.n * s.narms;
	hp.t0_ns = now_mono_ns();
	for (size_t k = 0; k < probes.n && !*s.plan.stop; k++) {
		for (size_t b = 0; b < s.narms && !*s.plan.stop; b++) {
			struct heapsearch_row w;

			if (heapsearch_cell(prober, &s.arms[b], probes.items[k], repeats, &hp, &w,
			                    &e) != 0) {
				if (*s.plan.stop)
					break;
				progress_display_clear(&hp.display);
				rc = cli_error(cmd, "%s", e.msg);
				goto out;
			}
			hp.done++;
			/* Quiet: only a search that found no minimum, which check cannot judge. */
			if (view == MEASURING_VIEW_RUNS || w.res.outcome != MINHEAP_FOUND) {
				if (hp.stdout_tty)
					progress_display_clear(&hp.display);
				heapsearch_print_row(&w);
			}
			incomplete += w.res.outcome != MINHEAP_FOUND;
			cJSON_AddItemToArray(rows, heapsearch_row_json(&w, s.arms[b].build));
			if (heapsearch_store(s.st, host_id, build_ids[b], s.plan.size, started_at,
			                     command, repeats, &w, &e) != 0) {
				progress_display_clear(&hp.display);
				rc = cli_error(cmd, "%s", e.msg);
				goto out;
			}
		}
	}
	progress_display_clear(&hp.display);
	printf("%s in %.1f s; stored in %s\n", *s.plan.stop ? "INTERRUPTED" : "done",
	       (double)(now_mono_ns() - t0) / 1e9, cli_safe(store_where(s.st)));
	rc = *s.plan.stop || incomplete ? EXIT_UNJUDGED : EXIT_OK;
out:
	/* What was searched is written even when a later cell failed: nothing measured is lost. */
	if (out_path && root) {
		char *text = cJSON_Print(root);
		size_t len = strlen(text);

		text = xrealloc(text, len + 2);
		text[len] = '\n';
		text[len + 1] = '\0';
		if (write_file_atomic(out_path, text, len + 1, &e) != 0)
			rc = cli_error(cmd, "%s", e.msg);
		free(text);
	}
	cJSON_Delete(root);
	strlist_release(&probes);
	session_prober_close(prober);
	free(build_ids);
	session_setup_end(&s);
	return rc;
}

int heapsearch_repeats_row(void *field, const struct cli_option *row, const char *val,
                           struct err *e)
{
	uint64_t v;

	if (parse_u64(val, &v) != 0 || v < 1 || v > HEAPSEARCH_REPEATS_MAX)
		return err_setc(e, ERR_INVALID, "%s must be 1 to %u, got %s", row->name,
		                HEAPSEARCH_REPEATS_MAX, val);
	*(unsigned *)field = (unsigned)v;
	return 0;
}
