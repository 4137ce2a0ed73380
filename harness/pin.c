#include "pin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapgate.h"
#include "metrics.h"
#include "stats.h"

/* A run that is part of a pin's sample of one probe and kind. */
static int pin_run_of(const struct store_run *r, const char *probe, enum run_kind kind)
{
	return !r->warmup && r->kind == kind && strcmp(r->probe, probe) == 0;
}

/* The metric names seen in the runs' ok measured runs, in the harness's canonical order. */
static void pin_metrics(const struct store_run *runs, size_t n, struct strlist *out)
{
	const char *const *known = metrics_known();

	for (size_t k = 0; known[k]; k++)
		for (size_t i = 0; i < n; i++)
			if (!runs[i].warmup && runs[i].status == RUN_STATUS_OK &&
			    metric_set_get(&runs[i].metrics, known[k])) {
				strlist_push(out, known[k]);
				break;
			}
}

/*
 * The evidence of one cell beyond min, median and max: how many sessions its runs come from,
 * and, from several, how far the sessions' own mins lie above the smallest (what a quantile
 * cell is held to across environments).
 */
static void pin_cell_sessions(const struct store_run *runs, size_t n, struct baseline_cell *cell,
                              enum run_kind kind)
{
	int64_t *ids = xcalloc(n + 1, sizeof *ids);
	double *mins = xcalloc(n + 1, sizeof *mins), highest = cell->min;
	size_t ns = 0;

	for (size_t i = 0; i < n; i++) {
		const double *v;
		size_t k = 0;
		if (!pin_run_of(&runs[i], cell->probe, kind) ||
		    !(v = metric_set_get(&runs[i].metrics, cell->metric)))
			continue;
		while (k < ns && ids[k] != runs[i].session_id)
			k++;
		if (k == ns) {
			ids[ns] = runs[i].session_id;
			mins[ns++] = *v;
		} else if (*v < mins[k]) {
			mins[k] = *v;
		}
	}
	for (size_t k = 0; k < ns; k++)
		highest = mins[k] > highest ? mins[k] : highest;
	cell->sessions = (int64_t)ns;
	if (ns > 1) {
		cell->has_min_spread = 1;
		cell->min_spread = highest - cell->min;
	}
	free(mins);
	free(ids);
}

/* One probe's checksum: the same in every measured run that printed one. */
static int pin_checksum(const struct store_run *runs, size_t n, const char *probe, const char **out,
                        struct err *e)
{
	const char *sum = NULL;

	for (size_t i = 0; i < n; i++) {
		if (runs[i].warmup || strcmp(runs[i].probe, probe) != 0 || !runs[i].checksum)
			continue;
		if (sum && strcmp(sum, runs[i].checksum) != 0)
			return err_setc(e, ERR_INVALID,
			                "probe %s printed two checksums (%s and %s): it is not "
			                "deterministic, refusing to pin",
			                probe, sum, runs[i].checksum);
		sum = runs[i].checksum;
	}
	if (!sum)
		return err_setc(e, ERR_INVALID,
		                "probe %s reported no checksum: cannot pin its result", probe);
	*out = sum;
	return 0;
}

/* Fills b's probes and cells from the runs. */
static int pin_cells(const struct store_run *runs, size_t n, const struct strlist *metrics,
                     struct baseline *b, struct err *e)
{
	struct strlist probes = {0};
	double *vals = xcalloc(n ? n : 1, sizeof *vals);
	int rc = -1;

	for (size_t i = 0; i < n; i++) {
		if (runs[i].warmup)
			continue;
		if (runs[i].status != RUN_STATUS_OK) {
			err_setc(
			    e, ERR_INVALID,
			    "run %lld (%s, %s round %d) %s%s%s: a baseline is pinned only from "
			    "runs that all succeeded",
			    (long long)runs[i].id, runs[i].probe, run_kind_name(runs[i].kind),
			    runs[i].round, run_status_name(runs[i].status),
			    runs[i].detail ? ": " : "", runs[i].detail ? runs[i].detail : "");
			goto out;
		}
		if (!strlist_contains(&probes, runs[i].probe))
			strlist_push(&probes, runs[i].probe);
	}
	if (probes.n == 0) {
		err_setc(e, ERR_INVALID, "no measured runs of this build to pin from");
		goto out;
	}
	b->probes = xcalloc(probes.n, sizeof *b->probes);
	for (size_t p = 0; p < probes.n; p++) {
		const char *probe = probes.items[p], *sum = NULL;
		if (pin_checksum(runs, n, probe, &sum, e) != 0)
			goto out;
		b->probes[b->nprobes].name = xstrdup(probe);
		b->probes[b->nprobes++].checksum = xstrdup(sum);
		for (size_t m = 0; m < metrics->n; m++) {
			const char *metric = metrics->items[m];
			enum run_kind kind = metrics_run_kind(metric);
			struct baseline_cell *cell;
			struct stats_summary st;
			size_t nv = 0;
			for (size_t i = 0; i < n; i++) {
				const double *v;
				if (pin_run_of(&runs[i], probe, kind) &&
				    (v = metric_set_get(&runs[i].metrics, metric)))
					vals[nv++] = *v;
			}
			if (nv == 0)
				continue;
			stats_summarize(vals, nv, &st);
			b->cells = xrealloc(b->cells, (b->ncells + 1) * sizeof *b->cells);
			cell = &b->cells[b->ncells++];
			memset(cell, 0, sizeof *cell);
			cell->probe = xstrdup(probe);
			cell->metric = xstrdup(metric);
			cell->median = st.median;
			cell->min = st.min;
			cell->max = st.max;
			cell->n = (int64_t)nv;
			/* Kept for now; pin_derive drops them where the cell is not a distribution. */
			baseline_cell_set_runs(cell, vals, nv);
			pin_cell_sessions(runs, n, cell, kind);
		}
	}
	rc = 0;
out:
	free(vals);
	strlist_release(&probes);
	return rc;
}

size_t pin_widen(struct baseline *b, struct strlist *notes)
{
	size_t widened = 0;

	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *c = &b->cells[i];
		const struct baseline_rule *rule = baseline_rule_for(b, c->metric);
		struct baseline_rule eff;
		struct baseline_override *o;
		double spread = c->max - c->min, from, allowance, band, pct;
		char lo[32], hi[32], band_text[32], pct_text[16];
		int dist;

		if (!rule || !rule->gated || c->n < 2 || spread <= 0 ||
		    baseline_cell_rule(b, c->probe, c->metric, &eff) != 0 ||
		    eff.cls == BASELINE_CLASS_DIST)
			continue;
		from = baseline_cell_value(c, eff.cls);
		allowance = baseline_allowance(&eff, from);
		/* Counts, bytes and ns round up to a whole unit; a share (MMU) keeps its fraction,
		 * since rounding 2 x 0.03 up to 1 would allow the whole range. */
		band = PIN_WIDEN_K * spread;
		if (metrics_display_unit(c->metric) != METRIC_UNIT_RATIO)
			band = ceil(band);
		if (allowance >= band)
			continue;
		/* Of the median; of the largest run's size where the median is 0 (an MMU of 0 in
		 * most runs, 0.65 in one): a spread is never 0%. */
		pct = 100.0 * spread / (from != 0 ? fabs(from) : fmax(fabs(c->max), fabs(c->min)));
		b->overrides = xrealloc(b->overrides, (b->noverrides + 1) * sizeof *b->overrides);
		o = &b->overrides[b->noverrides++];
		memset(o, 0, sizeof *o);
		o->probe = xstrdup(c->probe);
		o->metric = xstrdup(c->metric);
		o->rule = *rule;
		o->rule.metric = o->metric;
		dist = baseline_metric_distributional(c->metric) && c->nruns == (size_t)c->n;
		if (dist) {
			/*
			 * A census or memory figure that varies is judged against its runs: twice
			 * its spread would let a third more collections through (docs/baselines.md,
			 * "distribution"). Its band is the least shift worth reporting.
			 */
			o->rule.cls = BASELINE_CLASS_DIST;
			o->rule.band_live_pct = 0;
			if (o->rule.band_pct < BASELINE_DIST_MIN_PCT)
				o->rule.band_pct = BASELINE_DIST_MIN_PCT;
			band = baseline_allowance(&o->rule, from);
		} else {
			o->rule.band_abs = band;
			if (o->rule.cls == BASELINE_CLASS_EXACT) {
				o->rule.cls = BASELINE_CLASS_BANDED;
				o->rule.band_pct = 0;
			}
		}
		metrics_format_value(c->metric, c->min, lo, sizeof lo);
		metrics_format_value(c->metric, c->max, hi, sizeof hi);
		metrics_format_value(c->metric, band, band_text, sizeof band_text);
		metrics_format_pct(pct, pct_text, sizeof pct_text);
		if (dist)
			o->rationale = xasprintf(
			    "pin: its pinning runs spread, %s to %s (%s%%) over %lld runs in %lld "
			    "session%s: judged against those runs (class distribution), a shift "
			    "of more than %s worth reporting",
			    lo, hi, pct_text, (long long)c->n, (long long)c->sessions,
			    c->sessions == 1 ? "" : "s", band_text);
		else
			o->rationale = xasprintf(
			    "pin: widened for the spread of its pinning runs: %s to %s (%s%%) over "
			    "%lld runs in %lld session%s; band %s, %g times that spread (class %s)",
			    lo, hi, pct_text, (long long)c->n, (long long)c->sessions,
			    c->sessions == 1 ? "" : "s", band_text, PIN_WIDEN_K,
			    baseline_class_name(o->rule.cls));
		o->evidence_runs = c->n;
		o->evidence_spread_pct = pct;
		/* A distribution's band is no allowance for noise: its runs are the noise. */
		o->widened_for_noise = !dist;
		widened++;
		if (notes) {
			char *line =
			    xasprintf("override %s %s: %s, band %s (runs %s to %s over %lld "
			              "runs in %lld session%s)",
			              c->probe, c->metric, baseline_class_name(o->rule.cls),
			              band_text, lo, hi, (long long)c->n, (long long)c->sessions,
			              c->sessions == 1 ? "" : "s");
			strlist_push(notes, line);
			free(line);
		}
	}
	return widened;
}

/*
 * An unsteady minimum-heap search widens each minimum-heap cell (heapgate_widen's band) by an
 * override with the search as its evidence; the metric's rule stays pin's exact one.
 */
static void pin_minheap_widen(struct baseline *b, const struct heapgate_info *info,
                              struct strlist *notes)
{
	const struct baseline_rule *rule = baseline_rule_for(b, HEAPGATE_METRIC);
	struct baseline_rule wide;

	if (!rule)
		return;
	wide = *rule;
	if (!heapgate_widen(&wide, 1, info))
		return;
	if (wide.cls == BASELINE_CLASS_EXACT)
		wide.cls = BASELINE_CLASS_BANDED;
	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *c = &b->cells[i];
		struct baseline_override *o;
		if (strcmp(c->metric, HEAPGATE_METRIC) != 0)
			continue;
		b->overrides = xrealloc(b->overrides, (b->noverrides + 1) * sizeof *b->overrides);
		o = &b->overrides[b->noverrides++];
		memset(o, 0, sizeof *o);
		o->probe = xstrdup(c->probe);
		o->metric = xstrdup(c->metric);
		o->rule = wide;
		o->rule.metric = o->metric;
		o->rationale = xasprintf(
		    "pin --minheap: the minimum-heap search was unsteady at %zu boundar%s (its "
		    "confirmation moved up by up to %g MiB): band %g MiB",
		    info->unsteady, info->unsteady == 1 ? "y" : "ies", info->widest_mib,
		    wide.band_abs);
		/* An unsteady answer comes from repeats at its boundary: two runs at least. */
		o->evidence_runs = info->widest_runs >= 2 ? info->widest_runs : 2;
		o->evidence_spread_pct = c->median > 0 ? 100.0 * info->widest_mib / c->median : 100;
	}
	if (notes) {
		char *line = xasprintf("overrides %s: band %g MiB: the minimum-heap search was "
		                       "unsteady at %zu boundar%s",
		                       HEAPGATE_METRIC, wide.band_abs, info->unsteady,
		                       info->unsteady == 1 ? "y" : "ies");
		strlist_push(notes, line);
		free(line);
	}
}

/*
 * A probe's functions from the ok valgrind runs of `size` among runs (every size: NULL): each
 * function's median over them, cut to the baseline's top. 0 when no run recorded functions.
 */
static int pin_probe_functions(const struct store_run *runs, size_t n, const char *probe,
                               const char *size, struct fnprof *out)
{
	const struct fnprof **profs = xcalloc(n ? n : 1, sizeof *profs);
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (pin_run_of(&runs[i], probe, RUN_KIND_VALGRIND) &&
		    runs[i].status == RUN_STATUS_OK && runs[i].functions.n &&
		    (!size || strcmp(runs[i].size, size) == 0))
			profs[k++] = &runs[i].functions;
	if (k)
		fnprof_median(profs, k, out);
	free(profs);
	return k > 0;
}

/* The functions of every probe whose valgrind runs recorded them (baseline.h, "functions"). */
static void pin_functions(const struct store_run *runs, size_t n, struct baseline *b)
{
	for (size_t p = 0; p < b->nprobes; p++) {
		struct fnprof prof;
		if (!pin_probe_functions(runs, n, b->probes[p].name, NULL, &prof))
			continue;
		baseline_functions_set(b, b->probes[p].name, &prof);
		fnprof_release(&prof);
	}
}

int pin_derive(const struct pin_input *in, struct baseline *b, struct strlist *notes, struct err *e)
{
	struct strlist metrics = {0};
	int rc = -1;

	pin_metrics(in->runs, in->nruns, &metrics);
	if (pin_cells(in->runs, in->nruns, &metrics, b, e) != 0)
		goto out;
	if (baseline_default_rules(in->profile, in->caps, (const char *const *)metrics.items,
	                           metrics.n, &b->rules, e) != 0)
		goto out;
	b->nrules = metrics.n;
	if (in->minheap)
		pin_minheap_widen(b, in->minheap, notes);
	pin_widen(b, notes);
	/* Only a distribution cell keeps its runs: every other class is judged by its figures. */
	for (size_t i = 0; i < b->ncells; i++)
		if (baseline_rule_for_cell(b, b->cells[i].probe, b->cells[i].metric)->cls !=
		    BASELINE_CLASS_DIST)
			baseline_cell_set_runs(&b->cells[i], NULL, 0);
	pin_functions(in->runs, in->nruns, b);
	rc = 0;
out:
	strlist_release(&metrics);
	return rc;
}

/* ---- Update ------------------------------------------------------------------------------ */

void pin_update_plan(const struct check_result *res, const struct baseline *b, int accept,
                     struct pin_update_plan *out)
{
	memset(out, 0, sizeof *out);
	out->cells = xcalloc(res->nrows + 1, sizeof *out->cells);
	for (size_t i = 0; i < res->nrows; i++) {
		const struct check_row *row = &res->rows[i];
		struct pin_update_cell *c;
		if (row->kind != CHECK_ROW_CELL || !baseline_cell_find(b, row->probe, row->metric))
			continue;
		c = &out->cells[out->n++];
		c->probe = row->probe;
		c->metric = row->metric;
		c->was = row->base;
		c->now = row->current;
		c->delta_pct = row->j.delta_pct;
		c->used = row->j.used;
		if (row->state != CHECK_JUDGED) {
			c->action = PIN_UPDATE_UNJUDGED;
			c->why = row->reason;
			out->unjudged++;
		} else if (row->j.verdict == BASELINE_IMPROVED) {
			c->action = PIN_UPDATE_TIGHTEN;
			out->tightened++;
		} else if (row->j.verdict == BASELINE_REGRESSED) {
			c->action = accept ? PIN_UPDATE_LOOSEN : PIN_UPDATE_REFUSE;
			if (accept)
				out->loosened++;
			else
				out->refused++;
		} else {
			c->action = PIN_UPDATE_KEEP;
		}
	}
}

void pin_update_plan_release(struct pin_update_plan *p)
{
	free(p->cells);
	memset(p, 0, sizeof *p);
}

/* Sets a cell's pinned figures to the session's for that cell. */
static void pin_repin_cell(struct baseline_cell *cell, const struct store_run *runs, size_t n,
                           const char *size)
{
	enum run_kind kind = metrics_run_kind(cell->metric);
	double *vals = xcalloc(n ? n : 1, sizeof *vals);
	struct stats_summary sum;
	size_t nv = 0;

	for (size_t i = 0; i < n; i++) {
		const double *v;
		if (!pin_run_of(&runs[i], cell->probe, kind) || strcmp(runs[i].size, size) ||
		    runs[i].status != RUN_STATUS_OK)
			continue;
		if ((v = metric_set_get(&runs[i].metrics, cell->metric)))
			vals[nv++] = *v;
	}
	if (nv) {
		stats_summarize(vals, nv, &sum);
		cell->median = sum.median;
		cell->min = sum.min;
		cell->max = sum.max;
		cell->n = (int64_t)nv;
		if (cell->nruns)
			baseline_cell_set_runs(cell, vals, nv);
		/* One session now: the spread across environments is no longer known. */
		cell->sessions = 1;
		cell->has_min_spread = 0;
		cell->min_spread = 0;
	}
	free(vals);
}

size_t pin_update_apply(const struct pin_update_plan *p, struct baseline *b,
                        const struct store_run *runs, size_t nruns, const char *reason,
                        const char *ref, const char *when, const char *who)
{
	size_t changed = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct pin_update_cell *c = &p->cells[i];
		struct baseline_cell *cell;
		if (c->action != PIN_UPDATE_TIGHTEN && c->action != PIN_UPDATE_LOOSEN)
			continue;
		cell = baseline_cell_find(b, c->probe, c->metric);
		if (c->action == PIN_UPDATE_LOOSEN)
			baseline_ledger_add(b, cell, c->now, reason, ref, when, who);
		pin_repin_cell(cell, runs, nruns, b->size);
		/* A re-pinned Ir takes its functions with it: a later diff is against what it is. */
		if (strcmp(cell->metric, "valgrind.ir") == 0) {
			struct fnprof prof;
			if (pin_probe_functions(runs, nruns, cell->probe, b->size, &prof)) {
				baseline_functions_set(b, cell->probe, &prof);
				fnprof_release(&prof);
			}
		}
		changed++;
	}
	return changed;
}
