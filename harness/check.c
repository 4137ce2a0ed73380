#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "dist.h"
#include "metrics.h"
#include "stats.h"

static int check_metric_is_rss(const char *metric)
{
	return strcmp(metric, "rss.peak_bytes") == 0 ||
	       strcmp(metric, "memory.vm_hwm_bytes") == 0 ||
	       strcmp(metric, "memory.rss_anon_bytes") == 0;
}

/* 1 when another toolchain moves this figure of the judged build (check.h, "Toolchain"). */
static int check_layout_moves(const struct check_input *in, const char *metric)
{
	static const struct caps unknown = {0};

	return !caps_exact_retention(in->caps ? in->caps : &unknown) &&
	       baseline_metric_layout_sensitive(metric);
}

/* What the judged build says it does, for a reason: "collects, pause_log", "unknown". */
static char *check_caps_text(const struct check_input *in)
{
	return in->caps ? caps_describe(in->caps) : xstrdup("unknown");
}

/* A run that counts towards a probe's figures at the baseline's size: not a warm-up. */
static int check_run_counts(const struct store_run *r, const char *probe, const char *size)
{
	return !r->warmup && strcmp(r->probe, probe) == 0 && strcmp(r->size, size) == 0;
}

/* Rows are counted once all are judged (check_count): distribution cells decide last. */
static void check_add_row(struct check_result *res, const struct check_row *row)
{
	res->rows = xrealloc(res->rows, (res->nrows + 1) * sizeof *res->rows);
	res->rows[res->nrows++] = *row;
}

/* "3 of 5 runs crashed (SIGSEGV)": why the runs of one probe and kind cannot be judged. */
static char *check_failed_runs(const struct store_run *runs, size_t n, const char *probe,
                               const char *size, enum run_kind kind)
{
	int total = 0, bad = 0;
	const struct store_run *first = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct store_run *r = &runs[i];
		if (!check_run_counts(r, probe, size) || r->kind != kind)
			continue;
		total++;
		if (r->status != RUN_STATUS_OK) {
			bad++;
			if (!first)
				first = r;
		}
	}
	if (total == 0)
		return xasprintf("no %s runs of this probe at size %s in the session",
		                 run_kind_name(kind), size);
	if (bad == 0)
		return NULL;
	return xasprintf("%d of %d %s runs %s%s%s%s", bad, total, run_kind_name(kind),
	                 run_status_label(first->status), first->detail ? " (" : "",
	                 first->detail ? first->detail : "", first->detail ? ")" : "");
}

/*
 * The figure of `metric` a class compares over the ok runs of one probe, size and kind: their
 * min for a quantile cell (a conservative collector's smallest run is the one least disturbed
 * by what it happened to find on the stack), else their median. 0 values: returns 0. A
 * value that is not one the metric can hold (metrics_value_check: NaN, an infinity, a
 * negative count) is no figure: returns 0 with *invalid (owned) naming the run. range, unless
 * NULL, gets the smallest and the largest run.
 */
static size_t check_values(const struct store_run *runs, size_t n, const char *probe,
                           const char *size, const char *metric, double **out, char **invalid)
{
	enum run_kind kind = metrics_run_kind(metric);
	double *vals = xcalloc(n ? n : 1, sizeof *vals);
	size_t nv = 0;
	struct err e;

	*invalid = NULL;
	*out = NULL;
	for (size_t i = 0; i < n; i++) {
		const double *v;
		if (!check_run_counts(&runs[i], probe, size) || runs[i].kind != kind ||
		    runs[i].status != RUN_STATUS_OK)
			continue;
		if (!(v = metric_set_get(&runs[i].metrics, metric)))
			continue;
		if (metrics_value_check(metric, *v, runs[i].kind, &e) != 0) {
			*invalid = xasprintf("run %lld: %s", (long long)runs[i].id, e.msg);
			free(vals);
			return 0;
		}
		vals[nv++] = *v;
	}
	*out = vals;
	return nv;
}

static size_t check_value(const struct store_run *runs, size_t n, const char *probe,
                          const char *size, const char *metric, enum baseline_class cls,
                          double *out, double range[2], char **invalid, double **keep)
{
	double *vals;
	size_t nv = check_values(runs, n, probe, size, metric, &vals, invalid);

	if (nv && range) {
		range[0] = range[1] = vals[0];
		for (size_t i = 1; i < nv; i++) {
			range[0] = vals[i] < range[0] ? vals[i] : range[0];
			range[1] = vals[i] > range[1] ? vals[i] : range[1];
		}
	}
	if (nv && cls == BASELINE_CLASS_QUANTILE) {
		*out = vals[0];
		for (size_t i = 1; i < nv; i++)
			*out = vals[i] < *out ? vals[i] : *out;
	} else if (nv) {
		*out = stats_median(vals, nv);
	}
	/* The runs themselves, for a caller that judges their distribution (keep: not NULL). */
	if (keep)
		*keep = vals;
	else
		free(vals);
	return nv;
}

/* A cell's band in percent of its pinned median, and how its override widened it. */
static void check_band(const struct baseline *b, const struct baseline_cell *cell, double *pct,
                       int *widened)
{
	const struct baseline_rule *rule = baseline_rule_for_cell(b, cell->probe, cell->metric);
	const struct baseline_rule *metric = baseline_rule_for(b, cell->metric);
	struct baseline_rule eff;
	double base, allowance;

	baseline_cell_rule(b, cell->probe, cell->metric, &eff);
	base = baseline_cell_value(cell, eff.cls);
	allowance = baseline_allowance(&eff, base);
	*pct = base != 0 ? 100.0 * allowance / fabs(base) : INFINITY;
	*widened = 0;
	/* A distribution cell's band is the least shift worth reporting, not a tolerance. */
	if (eff.cls == BASELINE_CLASS_DIST)
		return;
	if (rule != metric && metric && allowance > baseline_allowance(metric, base)) {
		*widened = 1;
		for (size_t i = 0; i < b->noverrides; i++)
			if (&b->overrides[i].rule == rule && b->overrides[i].widened_for_noise)
				*widened = 2;
	}
}

void check_sensitivity(const struct baseline *b, struct check_sensitivity *out)
{
	double *bands = xcalloc(b->ncells ? b->ncells : 1, sizeof *bands);
	size_t ungated = 0;

	memset(out, 0, sizeof *out);
	out->median_pct = out->worst_pct = NAN;
	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *cell = &b->cells[i];
		int widened;
		if (!metrics_is_time(cell->metric) ||
		    !baseline_rule_for_cell(b, cell->probe, cell->metric)->gated)
			continue;
		check_band(b, cell, &bands[out->cells], &widened);
		out->widened += widened != 0;
		ungated += bands[out->cells] > CHECK_TIME_UNGATED_PCT;
		if (out->cells == 0 || bands[out->cells] > out->worst_pct)
			out->worst_pct = bands[out->cells];
		out->cells++;
	}
	if (out->cells)
		out->median_pct = stats_median(bands, out->cells);
	out->time_ungated = out->cells > 0 && ungated == out->cells;
	free(bands);
}

static void check_row_init(struct check_row *row, enum check_row_kind kind, const char *probe,
                           const char *metric)
{
	memset(row, 0, sizeof *row);
	row->kind = kind;
	row->probe = probe;
	row->metric = metric;
}

/* Correctness before cost: a wrong result, then an inert premise, each a regression. */
static void check_probe_identity(const struct check_input *in, const char *probe,
                                 struct check_result *res)
{
	const struct baseline *b = in->baseline;
	const char *want = baseline_probe_checksum(b, probe), *wrong = NULL;
	const struct store_run *inert = NULL;
	struct check_row row;

	for (size_t i = 0; i < in->nruns; i++) {
		const struct store_run *r = &in->runs[i];
		if (strcmp(r->probe, probe) || strcmp(r->size, b->size) ||
		    r->status != RUN_STATUS_OK)
			continue;
		if (r->checksum && want && strcmp(r->checksum, want) != 0)
			wrong = r->checksum;
		if (!r->warmup && r->premise == RUN_PREMISE_NOT_MET && !inert)
			inert = r;
	}
	if (wrong) {
		check_row_init(&row, CHECK_ROW_CHECKSUM, probe, "checksum");
		row.j.verdict = BASELINE_REGRESSED;
		row.reason = xasprintf("wrong result: printed %s, baseline %s", wrong, want);
		check_add_row(res, &row);
	}
	if (inert) {
		check_row_init(&row, CHECK_ROW_PREMISE, probe, "premise");
		row.j.verdict = BASELINE_REGRESSED;
		row.reason = xasprintf("premise not met%s%s", inert->premise_text ? ": " : "",
		                       inert->premise_text ? inert->premise_text : "");
		check_add_row(res, &row);
	}
}

/*
 * Where a regressed or improved Ir cell's instructions moved against the pin: the session's
 * ok valgrind runs of the probe, each function's median over them, diffed with the baseline's
 * functions of the probe. Nothing when either side has none.
 */
static void check_where(const struct check_input *in, const char *probe, struct check_row *row)
{
	const struct fnprof *pin = baseline_functions_of(in->baseline, probe);
	const struct fnprof **runs;
	size_t n = 0;

	if (!pin)
		return;
	runs = xcalloc(in->nruns ? in->nruns : 1, sizeof *runs);
	for (size_t i = 0; i < in->nruns; i++) {
		const struct store_run *r = &in->runs[i];
		if (check_run_counts(r, probe, in->baseline->size) &&
		    r->kind == RUN_KIND_VALGRIND && r->status == RUN_STATUS_OK && r->functions.n)
			runs[n++] = &r->functions;
	}
	if (n) {
		fnprof_median(runs, n, &row->where_now);
		fnprof_diff(pin, &row->where_now, &row->where);
		row->has_where = 1;
		row->where_runs = (int)n;
	}
	free(runs);
}

/* The rank test's direction for a rule: the bad side (either: up, tested at half alpha). */
static int check_dist_direction(const struct baseline_rule *r)
{
	return r->direction == BASELINE_DECREASE ? -1 : 1;
}

/*
 * A distribution cell's evidence (check.h): the session's runs against the pinning runs,
 * p-values both ways and the shift. What it decides waits for every cell of the check
 * (check_dist_decide): the false-alarm budget is shared.
 */
static void check_dist_measure(const struct baseline_cell *cell, const struct baseline_rule *rule,
                               const double *x, size_t m, struct check_row *row)
{
	int up = check_dist_direction(rule);

	if (m == 0 || cell->nruns == 0)
		return;
	row->p_bad = dist_p(x, m, cell->runs, cell->nruns, up);
	row->p_good = dist_p(x, m, cell->runs, cell->nruns, -up);
	if (rule->direction == BASELINE_EITHER) {
		/* Either side is bad: two one-sided tests, each at half the level. */
		double two = 2 * (row->p_bad < row->p_good ? row->p_bad : row->p_good);
		row->p_bad = two > 1 ? 1 : two;
		row->p_good = 1;
	}
	row->far_bad = dist_far_beyond(x, m, cell->runs, cell->nruns, up);
	row->far_good = dist_far_beyond(x, m, cell->runs, cell->nruns, -up);
	if (rule->direction == BASELINE_EITHER) {
		row->far_bad |= row->far_good;
		row->far_good = 0;
	}
	row->j.delta = dist_shift(x, m, cell->runs, cell->nruns);
	row->j.delta_pct = row->base != 0      ? 100.0 * row->j.delta / fabs(row->base)
	                   : row->j.delta == 0 ? 0
	                                       : INFINITY;
}

/* The one-sided level a distribution cell of a family of `family` is tested at by Holm's first
 * step: CHECK_DIST_ALPHA / family, halved again for a rule whose either side is bad. */
static double check_dist_alpha(const struct baseline_rule *rule, size_t family)
{
	return CHECK_DIST_ALPHA / (double)(family ? family : 1) /
	       (rule->direction == BASELINE_EITHER ? 2 : 1);
}

static double check_dist_move(const struct baseline_rule *rule, double delta)
{
	return rule->direction == BASELINE_EITHER ? fabs(delta)
	                                          : check_dist_direction(rule) * delta;
}

double check_row_bad_shift(const struct baseline *b, const struct check_row *r)
{
	struct baseline_rule rule;

	if (baseline_cell_rule(b, r->probe, r->metric, &rule) != 0)
		return 0;
	return check_dist_move(&rule, r->j.delta);
}

size_t check_row_runs_to_see(const struct baseline *b, const struct check_row *r, double shift,
                             size_t cap)
{
	const struct baseline_cell *cell = baseline_cell_find(b, r->probe, r->metric);
	struct baseline_rule rule;

	if (!cell || !cell->nruns || baseline_cell_rule(b, r->probe, r->metric, &rule) != 0)
		return 0;
	return dist_runs_to_see(cell->runs, cell->nruns, shift, check_dist_direction(&rule),
	                        check_dist_alpha(&rule, r->family),
	                        baseline_allowance(&rule, r->base), (size_t)r->n + 1, cap);
}

/*
 * The verdict of every distribution cell, once all are measured: a change is what Holm's
 * procedure over the family's p-values (each direction, at CHECK_DIST_ALPHA) is sure of, or
 * runs every one far beyond the pinning runs (dist_far_beyond: what few runs can still say);
 * then the band: a change within it is ok (not worth reporting). A cell that went inert stays
 * regressed whatever the test says.
 */
static void check_dist_decide(const struct check_input *in, struct check_result *res)
{
	size_t k = 0, *at = xcalloc(res->nrows + 1, sizeof *at);
	double *bad = xcalloc(res->nrows + 1, sizeof *bad),
	       *good = xcalloc(res->nrows + 1, sizeof *good);
	unsigned char *sig_bad = xcalloc(res->nrows + 1, 1), *sig_good = xcalloc(res->nrows + 1, 1);

	for (size_t i = 0; i < res->nrows; i++) {
		const struct check_row *r = &res->rows[i];
		if (r->kind == CHECK_ROW_CELL && r->state == CHECK_JUDGED &&
		    r->cls == BASELINE_CLASS_DIST && r->j.verdict != BASELINE_INFO) {
			at[k] = i;
			bad[k] = r->p_bad;
			good[k++] = r->p_good;
		}
	}
	dist_holm(bad, k, CHECK_DIST_ALPHA, sig_bad);
	dist_holm(good, k, CHECK_DIST_ALPHA, sig_good);
	for (size_t c = 0; c < k; c++) {
		struct check_row *r = &res->rows[at[c]];
		const struct baseline_cell *cell;
		struct baseline_rule rule;
		double move;
		int up;
		baseline_cell_rule(in->baseline, r->probe, r->metric, &rule);
		up = check_dist_direction(&rule);
		move = check_dist_move(&rule, r->j.delta);
		r->family = k;
		r->j.allowance = baseline_allowance(&rule, r->base);
		r->j.used = r->j.allowance > 0 ? move / r->j.allowance : move > 0 ? INFINITY : 0;
		if (r->j.went_inert)
			r->j.verdict = BASELINE_REGRESSED;
		else if ((sig_bad[c] || r->far_bad) && move > r->j.allowance)
			r->j.verdict = BASELINE_REGRESSED;
		else if ((sig_good[c] || r->far_good) && -move > r->j.allowance)
			r->j.verdict = BASELINE_IMPROVED;
		else
			r->j.verdict = BASELINE_OK;
		/* Regressed in every run: each one beyond every pinning run. */
		cell = baseline_cell_find(in->baseline, r->probe, r->metric);
		r->every_run = r->j.verdict != BASELINE_REGRESSED ||
		               (up > 0 ? r->range[0] > cell->max : r->range[1] < cell->min);
	}
	free(sig_good);
	free(sig_bad);
	free(good);
	free(bad);
	free(at);
}

/*
 * What each judged gated cell can see (check.h, mde), and the per-class summary: an exact
 * cell any change; a banded or quantile one its allowance; a distribution one what its runs
 * can tell from its pinning runs at the family's level (dist_mde), and, when that is past
 * the target, how many runs would see the target.
 */
static void check_sees(const struct check_input *in, struct check_result *res)
{
	double *pcts[BASELINE_CLASS_INFO];

	res->target_pct = in->sensitivity_pct > 0 ? in->sensitivity_pct : CHECK_INSENSITIVE_PCT;
	res->runs_budget = in->runs_budget;
	for (int c = 0; c < BASELINE_CLASS_INFO; c++) {
		pcts[c] = xcalloc(res->nrows + 1, sizeof *pcts[c]);
		memset(&res->sees[c], 0, sizeof res->sees[c]);
		res->sees[c].median_pct = res->sees[c].worst_pct = NAN;
	}
	for (size_t i = 0; i < res->nrows; i++) {
		struct check_row *r = &res->rows[i];
		struct check_class_sees *s;
		struct baseline_rule rule;
		const struct baseline_cell *cell;
		r->mde = r->mde_pct = NAN;
		if (r->kind != CHECK_ROW_CELL || r->state != CHECK_JUDGED ||
		    r->j.verdict == BASELINE_INFO || r->cls >= BASELINE_CLASS_INFO ||
		    baseline_cell_rule(in->baseline, r->probe, r->metric, &rule) != 0 ||
		    !rule.gated)
			continue;
		cell = baseline_cell_find(in->baseline, r->probe, r->metric);
		r->mde_runs = r->n;
		if (r->cls == BASELINE_CLASS_EXACT) {
			r->mde = 0;
		} else if (r->cls == BASELINE_CLASS_DIST && cell && cell->nruns) {
			double alpha = check_dist_alpha(&rule, r->family);
			double allow = baseline_allowance(&rule, r->base);
			int up = check_dist_direction(&rule);
			double target = res->target_pct * fabs(r->base) / 100.0;
			size_t m = (size_t)(r->n > in->runs_budget ? r->n : in->runs_budget);
			r->mde =
			    fmin(dist_mde(cell->runs, cell->nruns, m, up, alpha, allow),
			         dist_far_mde(cell->runs, cell->nruns, (size_t)r->n, up, allow));
			r->mde_runs = (int)m;
			if (!(r->mde <= target) && target > allow)
				r->need_runs =
				    (int)dist_runs_to_see(cell->runs, cell->nruns, target, up,
				                          alpha, allow, m + 1, CHECK_RUNS_CAP);
		} else {
			r->mde = r->j.allowance;
		}
		r->mde_pct = r->base != 0  ? 100.0 * r->mde / fabs(r->base)
		             : r->mde == 0 ? 0
		                           : INFINITY;
		s = &res->sees[r->cls];
		if (s->cells == 0 || r->n < s->runs_min)
			s->runs_min = r->n;
		if (s->cells == 0 || r->n > s->runs_max)
			s->runs_max = r->n;
		pcts[r->cls][s->cells++] = r->mde_pct;
		if (!(r->mde_pct <= res->target_pct)) {
			s->blind++;
			res->insensitive++;
		}
	}
	for (int c = 0; c < BASELINE_CLASS_INFO; c++) {
		struct check_class_sees *s = &res->sees[c];
		if (s->cells) {
			s->median_pct = stats_median(pcts[c], s->cells);
			s->worst_pct = pcts[c][0];
			for (size_t i = 1; i < s->cells; i++)
				if (!(pcts[c][i] <= s->worst_pct))
					s->worst_pct = pcts[c][i];
		}
		free(pcts[c]);
	}
}

/* The outcome counts, from the rows as they finally are. */
static void check_count(struct check_result *res)
{
	res->ok = res->improved = res->regressed = res->unjudged = res->info = 0;
	for (size_t i = 0; i < res->nrows; i++) {
		const struct check_row *r = &res->rows[i];
		if (r->state == CHECK_UNJUDGED)
			res->unjudged++;
		else if (r->j.verdict == BASELINE_REGRESSED)
			res->regressed++;
		else if (r->j.verdict == BASELINE_IMPROVED)
			res->improved++;
		else if (r->j.verdict == BASELINE_INFO)
			res->info++;
		else
			res->ok++;
	}
}

static void check_probe(const struct check_input *in, const char *probe, struct check_result *res)
{
	const struct baseline *b = in->baseline;
	char *timed_bad = check_failed_runs(in->runs, in->nruns, probe, b->size, RUN_KIND_TIMED);
	char *vg_bad = check_failed_runs(in->runs, in->nruns, probe, b->size, RUN_KIND_VALGRIND);

	check_probe_identity(in, probe, res);
	for (size_t c = 0; c < b->ncells; c++) {
		const struct baseline_cell *cell = &b->cells[c];
		struct baseline_rule rule;
		const char *bad;
		struct check_row row;
		double *runs = NULL; /* the session's figures of the cell, once read */
		size_t nv;

		if (strcmp(cell->probe, probe) != 0)
			continue;
		bad = metrics_run_kind(cell->metric) == RUN_KIND_VALGRIND ? vg_bad : timed_bad;
		check_row_init(&row, CHECK_ROW_CELL, probe, cell->metric);
		baseline_cell_rule(b, probe, cell->metric, &rule);
		row.cls = rule.cls;
		row.base = baseline_cell_value(cell, rule.cls);
		check_band(b, cell, &row.band_pct, &row.widened);
		if (res->toolchain && metrics_run_kind(cell->metric) == RUN_KIND_VALGRIND) {
			row.state = CHECK_UNJUDGED;
			row.reason = xasprintf("not comparable: %s", res->toolchain);
		} else if (res->toolchain && check_layout_moves(in, cell->metric)) {
			/* A conservative scan sees the stack frames the compiler made. */
			char *caps = check_caps_text(in);
			row.state = CHECK_UNJUDGED;
			row.reason = xasprintf("not comparable: %s, and the build's retention is "
			                       "not exact (capabilities: %s): another compiler's "
			                       "stack frames move what its scan finds",
			                       res->toolchain, caps);
			free(caps);
		} else if (res->thp && check_metric_is_rss(cell->metric)) {
			row.state = CHECK_UNJUDGED;
			row.reason = xasprintf("not comparable: %s", res->thp);
		} else if (bad) {
			row.state = CHECK_UNJUDGED;
			row.reason = xstrdup(bad);
		} else if ((nv = check_value(in->runs, in->nruns, probe, b->size, cell->metric,
		                             rule.cls, &row.current, row.range, &row.reason,
		                             &runs)) == 0 &&
		           row.reason) {
			row.state = CHECK_UNJUDGED; /* a value no figure can be: the run is named */
		} else if (nv == 0) {
			row.state = CHECK_UNJUDGED;
			row.reason =
			    xasprintf("not measured in this session%s",
			              strncmp(cell->metric, "cachesim.", 9) == 0
			                  ? " (measure with --meters rusage,census,cachesim)"
			              : metrics_run_kind(cell->metric) == RUN_KIND_VALGRIND
			                  ? " (measure with --meters rusage,census,valgrind)"
			                  : "");
		} else {
			row.state = CHECK_JUDGED;
			row.n = (int)nv;
			res->widened += row.widened == 2;
			baseline_judge(&rule, row.base, row.current, &row.j);
			if (rule.cls == BASELINE_CLASS_DIST && rule.gated)
				check_dist_measure(cell, &rule, runs, nv, &row);
			{
				struct baseline_judgement lo, hi;
				baseline_judge(&rule, row.base, row.range[0], &lo);
				baseline_judge(&rule, row.base, row.range[1], &hi);
				row.every_run =
				    lo.verdict == row.j.verdict && hi.verdict == row.j.verdict;
			}
			if (strcmp(cell->metric, "valgrind.ir") == 0 &&
			    (row.j.verdict == BASELINE_REGRESSED ||
			     row.j.verdict == BASELINE_IMPROVED))
				check_where(in, probe, &row);
			if (row.j.went_inert)
				row.reason = xasprintf(
				    "was %.0f, now 0: the probe no longer causes this", row.base);
			else if (row.j.verdict == BASELINE_REGRESSED && in->base_runs) {
				/* The base arm's invalid value only leaves the drift unknown. */
				char *invalid;
				row.has_base_now =
				    check_value(in->base_runs, in->nbase_runs, probe, b->size,
				                cell->metric, rule.cls, &row.base_now, NULL,
				                &invalid, NULL) != 0;
				free(invalid);
			}
		}
		check_add_row(res, &row);
		free(runs);
	}
	free(timed_bad);
	free(vg_bad);
}

/* How many metric names check_host lists for one fact before "and N more". */
#define CHECK_HOST_METRICS_SHOWN 2

/*
 * The gated metrics of b's cells that depend on fact f (metrics_host_facts), once each, in the
 * order of the baseline's cells, as "a, b, c and 2 more" appended to out; how many there are.
 */
static size_t check_host_metrics(const struct baseline *b, int f, struct sbuf *out)
{
	struct strlist seen = {0};
	size_t n;

	for (size_t c = 0; c < b->ncells; c++) {
		const char *metric = b->cells[c].metric;
		struct baseline_rule rule;
		if (!(metrics_host_facts(metric) & HOSTINFO_FACT_BIT(f)) ||
		    baseline_cell_rule(b, b->cells[c].probe, metric, &rule) != 0 || !rule.gated ||
		    strlist_contains(&seen, metric))
			continue;
		if (seen.n < CHECK_HOST_METRICS_SHOWN)
			sbuf_addf(out, "%s%s", seen.n ? ", " : "", metric);
		strlist_push(&seen, metric);
	}
	if (seen.n > CHECK_HOST_METRICS_SHOWN)
		sbuf_addf(out, " and %zu more", seen.n - CHECK_HOST_METRICS_SHOWN);
	n = seen.n;
	strlist_release(&seen);
	return n;
}

/*
 * The session's host against the pin's (check.h, "Host"): stale where a fact differs that a
 * gated cell depends on, naming it and those metrics ("CPU model: A -> B (time.wall_ns)");
 * with --strict, wherever the fingerprint differs; for a file without facts, wherever the
 * fingerprint differs, saying that what differs is unknown.
 */
static void check_host(const struct check_input *in, struct check_result *res)
{
	const struct baseline *b = in->baseline;
	const struct store_session *si = in->session;
	const char *strict = in->strict ? " (--strict: exit 2)" : "";
	const struct hostinfo_facts none = {{0}};
	const struct hostinfo_facts *now = in->host ? in->host : &none;
	int other = strcmp(si->host_fingerprint ? si->host_fingerprint : "", b->host_fingerprint);
	unsigned differ, missing;
	struct sbuf matter, idle, where;
	char *n = NULL;

	sbuf_init(&matter);
	sbuf_init(&idle);
	sbuf_init(&where);
	sbuf_addf(&where, "%s %s at the pin, %s %s now", b->hostname, b->host_fingerprint,
	          si->hostname ? si->hostname : "?",
	          si->host_fingerprint ? si->host_fingerprint : "?");
	if (!b->host_facts_known) {
		if (other)
			n = xasprintf(
			    "another host than the pin's (%s), and the baseline was pinned "
			    "before host facts were kept: what differs is unknown (pin it "
			    "again to keep them)%s",
			    where.data, strict);
		goto out;
	}
	differ = hostinfo_facts_differ(&b->host_facts, now);
	/* A fact this session's facts lack (an older harness stored them) matters only on
	 * another host: on the pin's own, the fingerprint vouches for the rest. */
	missing = other ? hostinfo_facts_missing(&b->host_facts, now) : 0;
	for (int f = 0; f < HOSTINFO_NFACTS; f++) {
		struct sbuf metrics, *to;
		size_t k;
		if (!((differ | missing) & HOSTINFO_FACT_BIT(f)))
			continue;
		sbuf_init(&metrics);
		k = check_host_metrics(b, f, &metrics);
		to = k ? &matter : &idle;
		sbuf_addf(to, "%s%s: %s -> %s", to->len ? "; " : "", hostinfo_fact_label(f),
		          b->host_facts.value[f], now->value[f] ? now->value[f] : "not recorded");
		if (k)
			sbuf_addf(to, " (%s)", metrics.data);
		sbuf_release(&metrics);
	}
	if (matter.len)
		n = xasprintf(
		    "the host differs from the pin's in what gated figures depend on: %s; "
		    "%s%s",
		    matter.data, where.data, strict);
	else if (other && in->strict)
		n = xasprintf("another host than the pin's (%s), %s%s%s", where.data,
		              idle.len ? "differing only in what no gated figure depends on: "
		                       : "alike in every host fact",
		              idle.data, strict);
out:
	if (n)
		strlist_push(&res->stale, n);
	free(n);
	sbuf_release(&where);
	sbuf_release(&idle);
	sbuf_release(&matter);
}

/* The baseline was pinned on another host or collector version: every figure reads in that
 * light. */
static void check_staleness(const struct check_input *in, struct check_result *res)
{
	const struct baseline *b = in->baseline;
	const struct store_session *si = in->session;
	const char *version = in->build->collector_version ? in->build->collector_version : "";
	const char *strict = in->strict ? " (--strict: exit 2)" : "";
	struct toolchain now = {0};
	char *n;

	/* First: it decides what the Ir cells below mean. The valgrind that counted is the
	 * session's, not the one installed when the build was made. */
	if (in->toolchain) {
		toolchain_copy(&now, in->toolchain);
		toolchain_set_valgrind_from_meters(&now, si->meters);
		res->toolchain = toolchain_mismatch(&now, &b->toolchain);
		toolchain_release(&now);
	}
	if (res->toolchain) {
		n = xasprintf("%s: Ir is not comparable", res->toolchain);
		strlist_push(&res->stale, n);
		free(n);
	}

	if (b->thp_known && in->thp && !hostinfo_thp_same(&b->thp, in->thp)) {
		char then[128], ran[128];
		hostinfo_thp_describe(&b->thp, then, sizeof then);
		hostinfo_thp_describe(in->thp, ran, sizeof ran);
		res->thp = xasprintf("the baseline was pinned with transparent huge pages %s, this "
		                     "session ran with THP %s: RSS is counted in other pages",
		                     then, ran);
		strlist_push(&res->stale, res->thp);
	}
	if (b->caps.known && in->caps && in->caps->known && b->caps.flags != in->caps->flags) {
		char *then = caps_describe(&b->caps), *says = caps_describe(in->caps);
		n = xasprintf("the baseline was pinned from a build that said it does \"%s\"; "
		              "this one says \"%s\": its rules were derived from the first",
		              then, says);
		strlist_push(&res->stale, n);
		free(n);
		free(then);
		free(says);
	}
	check_host(in, res);
	if (strcmp(version, b->collector_version) != 0) {
		n = xasprintf(
		    "the baseline was pinned on %s %s; this session measured version %s%s",
		    b->collector, b->collector_version, *version ? version : "?", strict);
		strlist_push(&res->stale, n);
		free(n);
	}
}

/* NAME=VALUE's value in a sorted or unsorted list, or NULL. */
static const char *check_knob_value(const struct strlist *knobs, const char *name, size_t len)
{
	for (size_t i = 0; i < knobs->n; i++)
		if (strncmp(knobs->items[i], name, len) == 0 && knobs->items[i][len] == '=')
			return knobs->items[i] + len + 1;
	return NULL;
}

/* knobs, then extra's (replacing one of the same name): one probe's effective knobs. */
static void check_knobs_merge(const struct strlist *knobs, const struct strlist *extra,
                              struct strlist *out)
{
	for (size_t i = 0; i < knobs->n; i++) {
		size_t len = strcspn(knobs->items[i], "=");
		if (!extra || !check_knob_value(extra, knobs->items[i], len))
			strlist_push(out, knobs->items[i]);
	}
	for (size_t i = 0; extra && i < extra->n; i++)
		strlist_push(out, extra->items[i]);
}

/*
 * How each probe's knobs differ from the baseline's, once per difference: what the session
 * set that the pin did not, set otherwise, or left unset.
 */
static void check_knobs(const struct check_input *in, struct check_result *res)
{
	const struct baseline *b = in->baseline;

	if (!in->knobs || !b->knobs_known)
		return;
	for (size_t p = 0; p < b->nprobes; p++) {
		struct strlist now = {0}, then = {0};
		const struct strlist *extra = NULL;
		for (size_t k = 0; k < in->nprobe_knobs; k++)
			if (strcmp(in->probe_knobs[k].probe, b->probes[p].name) == 0)
				extra = &in->probe_knobs[k].knobs;
		check_knobs_merge(in->knobs, extra, &now);
		check_knobs_merge(&b->knobs, &b->probes[p].knobs, &then);
		for (int side = 0; side < 2; side++) {
			const struct strlist *a = side ? &then : &now, *o = side ? &now : &then;
			for (size_t i = 0; i < a->n; i++) {
				size_t len = strcspn(a->items[i], "=");
				const char *other = check_knob_value(o, a->items[i], len);
				char *d;
				if (strncmp(a->items[i], CHECK_PLANT_KNOBS,
				            strlen(CHECK_PLANT_KNOBS)) == 0)
					continue;
				if (other && (side || strcmp(other, a->items[i] + len + 1) == 0))
					continue;
				d = side    ? xasprintf("%.*s unset (pinned with %s)", (int)len,
				                        a->items[i], a->items[i])
				    : other ? xasprintf("%s (pinned with %.*s=%s)", a->items[i],
				                        (int)len, a->items[i], other)
				            : xasprintf("%s (pinned without it)", a->items[i]);
				if (!strlist_contains(&res->knobs, d))
					strlist_push(&res->knobs, d);
				free(d);
			}
		}
		strlist_release(&now);
		strlist_release(&then);
	}
}

/* Why the session or the baseline as a whole cannot pass, or NULL. */
static char *check_why(const struct check_input *in, const struct check_result *res)
{
	const struct baseline *b = in->baseline;
	const struct store_session *si = in->session;
	size_t gated = 0, measured = 0;

	if (!si->status || strcmp(si->status, "complete") != 0)
		return xasprintf("session %lld is %s: only a complete session can pass",
		                 (long long)si->id, si->status ? si->status : "of unknown status");
	for (size_t c = 0; c < b->ncells; c++)
		gated += baseline_rule_for_cell(b, b->cells[c].probe, b->cells[c].metric)->gated;
	if (gated == 0)
		return xasprintf("the baseline gates nothing: %s",
		                 b->ncells == 0 ? "it pins no cell" : "none of its cells is gated");
	for (size_t p = 0; p < b->nprobes; p++)
		for (size_t i = 0; i < in->nruns && !measured; i++)
			measured += check_run_counts(&in->runs[i], b->probes[p].name, b->size);
	if (measured == 0)
		return xasprintf(
		    "session %lld measured none of the baseline's %zu probe%s at size %s",
		    (long long)si->id, b->nprobes, b->nprobes == 1 ? "" : "s", b->size);
	if (res->knobs.n) {
		char *list = strlist_join(&res->knobs, "; ");
		char *why =
		    xasprintf("the probes ran with other knobs than the baseline was pinned "
		              "with: %s (measure without them, or pin a baseline with them)",
		              list);
		free(list);
		return why;
	}
	return NULL;
}

/* The session's probes at the baseline's size that the baseline does not name, in run order. */
static void check_unpinned(const struct check_input *in, struct check_result *res)
{
	const struct baseline *b = in->baseline;

	for (size_t i = 0; i < in->nruns; i++) {
		const struct store_run *r = &in->runs[i];
		size_t p = 0;

		if (r->warmup || strcmp(r->size, b->size) != 0 ||
		    strlist_contains(&res->unpinned, r->probe))
			continue;
		while (p < b->nprobes && strcmp(b->probes[p].name, r->probe) != 0)
			p++;
		if (p == b->nprobes)
			strlist_push(&res->unpinned, r->probe);
	}
}

static int check_probe_cmp(const void *a, const void *b)
{
	const struct baseline_probe *x = *(const struct baseline_probe *const *)a;
	const struct baseline_probe *y = *(const struct baseline_probe *const *)b;

	return strlist_probe_cmp(x->name, y->name);
}

void check_baseline_sees(const struct baseline *b, int runs, int budget, double target_pct,
                         struct check_result *out)
{
	struct check_input in = {0};
	size_t family = 0;

	memset(out, 0, sizeof *out);
	in.baseline = b;
	in.runs_budget = budget;
	in.sensitivity_pct = target_pct;
	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *cell = &b->cells[i];
		struct baseline_rule rule;
		struct check_row row;
		if (baseline_cell_rule(b, cell->probe, cell->metric, &rule) != 0 || !rule.gated)
			continue;
		check_row_init(&row, CHECK_ROW_CELL, cell->probe, cell->metric);
		row.state = CHECK_JUDGED;
		row.cls = rule.cls;
		row.n = runs;
		row.base = row.current = baseline_cell_value(cell, rule.cls);
		row.j.allowance = baseline_allowance(&rule, row.base);
		family += rule.cls == BASELINE_CLASS_DIST;
		check_add_row(out, &row);
	}
	for (size_t i = 0; i < out->nrows; i++)
		out->rows[i].family = out->rows[i].cls == BASELINE_CLASS_DIST ? family : 0;
	check_sees(&in, out);
}

void check_judge(const struct check_input *in, struct check_result *out)
{
	memset(out, 0, sizeof *out);
	/* Before the probes: a toolchain mismatch decides how the Ir cells are judged. */
	check_staleness(in, out);
	check_sensitivity(in->baseline, &out->sensitivity);
	/*
	 * Probes in name order (their numbers first), not the baseline's: pin writes them in its
	 * session's shuffled order, and two checks of the same code should list their cells alike
	 * in every format.
	 */
	{
		size_t n = in->baseline->nprobes;
		const struct baseline_probe **order = xcalloc(n ? n : 1, sizeof *order);
		for (size_t i = 0; i < n; i++)
			order[i] = &in->baseline->probes[i];
		qsort(order, n, sizeof *order, check_probe_cmp);
		for (size_t i = 0; i < n; i++)
			check_probe(in, order[i]->name, out);
		free(order);
	}
	check_dist_decide(in, out);
	check_sees(in, out);
	check_count(out);
	check_unpinned(in, out);
	check_knobs(in, out);
	out->why = check_why(in, out);
	if (out->why)
		out->verdict = CHECK_VERDICT_UNJUDGED;
	else if (out->regressed)
		out->verdict = CHECK_VERDICT_REGRESSION;
	else if (out->unjudged || (in->strict && out->stale.n))
		out->verdict = CHECK_VERDICT_UNJUDGED;
	else
		out->verdict = CHECK_VERDICT_OK;
}

void check_result_release(struct check_result *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		free(r->rows[i].reason);
		if (r->rows[i].has_where) {
			fnprof_diff_release(&r->rows[i].where);
			fnprof_release(&r->rows[i].where_now);
		}
	}
	free(r->rows);
	strlist_release(&r->stale);
	strlist_release(&r->unpinned);
	strlist_release(&r->knobs);
	free(r->thp);
	free(r->toolchain);
	free(r->why);
	memset(r, 0, sizeof *r);
}

const char *check_verdict_name(enum check_verdict v)
{
	switch (v) {
	case CHECK_VERDICT_OK:
		return "ok";
	case CHECK_VERDICT_REGRESSION:
		return "REGRESSION";
	case CHECK_VERDICT_UNJUDGED:
		return "COULD NOT JUDGE";
	}
	return "?";
}

const char *check_row_verdict_name(const struct check_row *r)
{
	if (r->kind == CHECK_ROW_PREMISE)
		return "INERT";
	if (r->state == CHECK_UNJUDGED)
		return "COULD NOT JUDGE";
	return baseline_verdict_name(r->j.verdict);
}
