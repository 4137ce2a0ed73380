#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "caps.h"
#include "json.h"
#include "metrics.h"

/* The metrics a reader looks at first; the rest follow in metrics_known() order. */
static const char *const compare_first[] = {
    "valgrind.ir", "time.user_ns", "time.wall_ns", "rss.peak_bytes", "memory.vm_hwm_bytes", NULL,
};

static size_t compare_metric_rank(const char *metric)
{
	const char *const *known = metrics_known();

	for (size_t i = 0; compare_first[i]; i++)
		if (strcmp(compare_first[i], metric) == 0)
			return i;
	for (size_t i = 0; known[i]; i++)
		if (strcmp(known[i], metric) == 0)
			return 100 + i;
	return 1000;
}

static int compare_cell_cmp(const void *a, const void *b)
{
	const struct compare_cell *x = a, *y = b;
	size_t rx = compare_metric_rank(x->metric), ry = compare_metric_rank(y->metric);

	if (x->pol.decides != y->pol.decides)
		return y->pol.decides - x->pol.decides;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(x->metric, y->metric);
}

static int compare_name_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	struct paired_policy px, py;
	size_t rx = compare_metric_rank(x), ry = compare_metric_rank(y);

	paired_policy_for(x, &px);
	paired_policy_for(y, &py);
	if (px.decides != py.decides)
		return py.decides - px.decides;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(x, y);
}

void compare_sort_metrics(struct strlist *metrics)
{
	/* An empty list has no items array, and qsort's may not be NULL, even for no elements. */
	if (metrics->n > 1)
		qsort(metrics->items, metrics->n, sizeof *metrics->items, compare_name_cmp);
}

static int compare_is_ok(const struct store_run *r)
{
	return r->status == RUN_STATUS_OK;
}

static int compare_is_valgrind(const char *metric)
{
	return run_kind_is_valgrind(metrics_run_kind(metric));
}

/*
 * The runs of one probe on one arm, by measured round (timed) plus its ok valgrind runs, in
 * the order they ran (ab makes two or three of each; a measure session one).
 */
#define COMPARE_VALGRIND_MAX 64
struct compare_arm {
	const struct store_run **by_round; /* [1..rounds], NULL where none */
	const struct store_run *valgrind[COMPARE_VALGRIND_MAX];
	size_t nvalgrind;
};

static void compare_arm_fill(const struct report_data *d, const char *probe, int position,
                             int rounds, struct compare_arm *arm)
{
	int warmup = (int)d->session.warmup;

	arm->by_round = xcalloc((size_t)rounds + 1, sizeof *arm->by_round);
	arm->nvalgrind = 0;
	for (size_t i = 0; i < d->nruns; i++) {
		const struct store_run *r = &d->runs[i];
		if (r->arm != position || strcmp(r->probe, probe) != 0 || r->warmup)
			continue;
		if (r->kind == RUN_KIND_VALGRIND) {
			if (compare_is_ok(r) && arm->nvalgrind < COMPARE_VALGRIND_MAX)
				arm->valgrind[arm->nvalgrind++] = r;
		} else if (r->round - warmup >= 1 && r->round - warmup <= rounds) {
			arm->by_round[r->round - warmup] = r;
		}
	}
}

static void compare_rounds(const struct report_data *d, size_t base, size_t fix, struct compare *c)
{
	int warmup = (int)d->session.warmup;
	size_t need = d->probes.n * 2;
	char *seen;

	c->complete = xcalloc((size_t)c->rounds_planned + 1, sizeof *c->complete);
	if (need == 0)
		return;
	/* seen[(k * nprobes + p) * 2 + arm]: round k of probe p ran on that arm. */
	seen = xcalloc(((size_t)c->rounds_planned + 1) * need, 1);
	for (size_t i = 0; i < d->nruns; i++) {
		const struct store_run *r = &d->runs[i];
		int k = r->round - warmup, arm;
		if (r->warmup || r->kind != RUN_KIND_TIMED || k < 1 || k > c->rounds_planned)
			continue;
		/* By arm, not build: an A/A is one build run as two arms. */
		if (r->arm == d->builds[base].position)
			arm = 0;
		else if (r->arm == d->builds[fix].position)
			arm = 1;
		else
			continue;
		for (size_t p = 0; p < d->probes.n; p++)
			if (strcmp(d->probes.items[p], r->probe) == 0)
				seen[((size_t)k * d->probes.n + p) * 2 + (size_t)arm] = 1;
	}
	for (int k = 1; k <= c->rounds_planned; k++) {
		int all = 1;
		for (size_t j = 0; j < need; j++)
			all &= seen[(size_t)k * need + j];
		if (all)
			c->complete[c->ncomplete++] = k;
	}
	free(seen);
}

/* Checksums and failures of one probe: the identity half of the comparison. */
static void compare_identity(const struct report_data *d, size_t base, size_t fix,
                             struct compare_probe *p)
{
	const struct store_run *first_bad[2] = {NULL, NULL};
	int unstable[2] = {0, 0};

	for (size_t i = 0; i < d->nruns; i++) {
		const struct store_run *r = &d->runs[i];
		int arm;
		const char **sum;
		/* A run the user killed (a second Ctrl-C) says nothing about either build. */
		if (strcmp(r->probe, p->probe) != 0 || r->status == RUN_STATUS_INTERRUPTED)
			continue;
		/* By arm, not build: an A/A is one build run as two arms. */
		if (r->arm == d->builds[base].position)
			arm = 0;
		else if (r->arm == d->builds[fix].position)
			arm = 1;
		else
			continue;
		if (!r->warmup) {
			*(arm ? &p->fix_runs : &p->base_runs) += 1;
			if (!compare_is_ok(r)) {
				*(arm ? &p->fix_failed : &p->base_failed) += 1;
				if (!first_bad[arm])
					first_bad[arm] = r;
			} else if (r->premise == RUN_PREMISE_NOT_MET) {
				const char **why = arm ? &p->fix_premise : &p->base_premise;
				*(arm ? &p->fix_inert : &p->base_inert) += 1;
				if (!*why)
					*why = r->premise_text ? r->premise_text : "";
			}
		}
		if (!compare_is_ok(r) || !r->checksum)
			continue;
		sum = arm ? &p->fix_sum : &p->base_sum;
		if (!*sum)
			*sum = r->checksum;
		else if (strcmp(*sum, r->checksum) != 0)
			unstable[arm] = 1;
	}
	if (!p->base_sum && !p->fix_sum)
		p->sum = COMPARE_SUM_NONE;
	else if (unstable[0] || unstable[1])
		p->sum = COMPARE_SUM_UNSTABLE;
	else if (!p->base_sum || !p->fix_sum)
		p->sum = COMPARE_SUM_MISSING;
	else if (strcmp(p->base_sum, p->fix_sum) != 0)
		p->sum = COMPARE_SUM_DIFFERS;
	else
		p->sum = COMPARE_SUM_SAME;
	p->fix_only_failure = p->fix_failed > 0 && p->base_failed == 0;
	/* BASE sets the standard: FIX may not print another result, or several, or fail alone. */
	p->correctness = p->sum == COMPARE_SUM_DIFFERS || (unstable[1] && !unstable[0]) ||
	                 (p->sum == COMPARE_SUM_MISSING && p->base_sum) || p->fix_only_failure;
	if (p->base_failed || p->fix_failed) {
		struct sbuf b;
		sbuf_init(&b);
		for (int arm = 0; arm < 2; arm++) {
			const struct store_run *r = first_bad[arm];
			char *said;
			if (!r)
				continue;
			/* The probe's own words, unless the detail quotes them already. */
			said = run_stderr_first_line(r->stderr_tail);
			if (said && r->detail && strstr(r->detail, said)) {
				free(said);
				said = NULL;
			}
			*(arm ? &p->fix_stderr : &p->base_stderr) = said;
			sbuf_addf(&b, "%s%s: %d of %d runs %s%s%s%s%s%s", b.len ? "; " : "",
			          arm ? "FIX" : "BASE", arm ? p->fix_failed : p->base_failed,
			          arm ? p->fix_runs : p->base_runs, run_status_label(r->status),
			          r->detail ? " (" : "", r->detail ? r->detail : "",
			          r->detail ? ")" : "", said ? ", stderr: " : "", said ? said : "");
		}
		p->failure = b.data;
	}
}

static void compare_add_metrics(const struct store_run *r, struct strlist *metrics)
{
	if (!r || !compare_is_ok(r))
		return;
	for (size_t i = 0; i < r->metrics.n; i++)
		if (!metrics_is_bucket(r->metrics.items[i].name) &&
		    !strlist_contains(metrics, r->metrics.items[i].name))
			strlist_push(metrics, r->metrics.items[i].name);
}

/*
 * How small a change the cell could have shown: an effect inside the CI's half-width is not
 * told apart from none, whatever the verdict. In percent of BASE, as bands are. An exact cell
 * that did not repeat is judged by its own rule, and says what that rule could call: the
 * rank test's smallest shift in its family, or three times the wider arm's range.
 */
static double compare_mde_pct(const struct compare_cell *cell, size_t *rounds)
{
	const struct paired_cell *s = &cell->stats;
	double abs_mde;

	*rounds = 0;
	if (s->n == 0 || s->deterministic || s->base_median == 0)
		return NAN;
	if (cell->pol.exact) {
		if (s->n < PAIRED_SPREAD_MIN)
			return NAN;
		if (s->n < PAIRED_RANK_MIN)
			abs_mde = fmax(PAIRED_SPREAD_K * s->spread, s->min_effect);
		else if (isnan(s->rank_mde))
			return NAN;
		else
			abs_mde = s->rank_mde;
		*rounds = s->rank_rounds;
		return isinf(abs_mde) ? INFINITY : 100.0 * abs_mde / fabs(s->base_median);
	}
	if (!isfinite(s->ci.lo) || !isfinite(s->ci.hi))
		return NAN;
	return 100.0 * (s->ci.hi - s->ci.lo) / 2 / fabs(s->base_median);
}

/* "BASE", "FIX" or "both" when the probe went inert in that arm, else NULL. */
static const char *compare_inert_arm(const struct compare_probe *p)
{
	if (p->base_inert && p->fix_inert)
		return "both";
	if (p->base_inert || p->fix_inert)
		return p->base_inert ? "BASE" : "FIX";
	return NULL;
}

static void compare_probe_cells(struct compare *c, const struct compare_probe *p,
                                const struct compare_arm *a, const struct compare_arm *b)
{
	const char *probe = p->probe, *inert = compare_inert_arm(p);
	struct strlist metrics = {0}, in_a = {0}, in_b = {0};

	for (int k = 1; k <= c->rounds_planned; k++) {
		compare_add_metrics(a->by_round[k], &in_a);
		compare_add_metrics(b->by_round[k], &in_b);
	}
	for (size_t i = 0; i < a->nvalgrind; i++)
		compare_add_metrics(a->valgrind[i], &in_a);
	for (size_t i = 0; i < b->nvalgrind; i++)
		compare_add_metrics(b->valgrind[i], &in_b);
	for (size_t i = 0; i < in_a.n; i++)
		strlist_push(&metrics, in_a.items[i]);
	for (size_t i = 0; i < in_b.n; i++)
		if (!strlist_contains(&metrics, in_b.items[i]))
			strlist_push(&metrics, in_b.items[i]);
	c->cells = xrealloc(c->cells, (c->ncells + metrics.n) * sizeof *c->cells);
	for (size_t m = 0; m < metrics.n; m++) {
		struct compare_cell *cell = &c->cells[c->ncells++];
		const char *name = metrics.items[m];
		size_t cap = c->ncomplete + COMPARE_VALGRIND_MAX + 1, n = 0;

		memset(cell, 0, sizeof *cell);
		cell->probe = probe;
		cell->metric = xstrdup(name);
		paired_policy_for(name, &cell->pol);
		/* What the builds say they do, not what a few rounds happened to show. */
		cell->pol.varies = c->census_varies && metrics_is_census(name);
		/*
		 * A collector reports only the counters it knows: a metric one arm never reports
		 * (comparing two different collectors) cannot pair, and is shown for information.
		 */
		if (!strlist_contains(&in_a, name) || !strlist_contains(&in_b, name)) {
			cell->only = strlist_contains(&in_a, name) ? "BASE" : "FIX";
			cell->pol.decides = 0;
		}
		/*
		 * Between two designs a collector's account of its work (minor collections 0 in
		 * one, 56 in the other) is what makes them two designs, not a cost of either.
		 */
		if (c->across && metrics_is_behaviour(name)) {
			cell->context =
			    cell->pol.decides || (cell->only && metrics_lookup(name)->ab_decides);
			cell->pol.decides = 0;
		}
		/*
		 * A probe that did not cause its activity measures nothing about it: a counter that
		 * fell to zero there is no improvement, and its costs are of another program.
		 */
		cell->inert = inert;
		cell->base = xcalloc(cap, sizeof *cell->base);
		cell->fix = xcalloc(cap, sizeof *cell->fix);
		cell->rounds = xcalloc(cap, sizeof *cell->rounds);
		if (compare_is_valgrind(name)) {
			/* The i-th valgrind run of each arm pair: they ran back to back. */
			for (size_t i = 0; i < a->nvalgrind && i < b->nvalgrind; i++) {
				const double *x = metric_set_get(&a->valgrind[i]->metrics, name);
				const double *y = metric_set_get(&b->valgrind[i]->metrics, name);
				if (!x || !y)
					continue;
				cell->base[n] = *x;
				cell->fix[n] = *y;
				cell->rounds[n] = 0;
				n++;
			}
		} else {
			for (size_t i = 0; i < c->ncomplete; i++) {
				int k = c->complete[i];
				const struct store_run *ra = a->by_round[k], *rb = b->by_round[k];
				const double *x, *y;
				if (!ra || !rb || !compare_is_ok(ra) || !compare_is_ok(rb))
					continue;
				x = metric_set_get(&ra->metrics, name);
				y = metric_set_get(&rb->metrics, name);
				if (!x || !y)
					continue;
				cell->base[n] = *x;
				cell->fix[n] = *y;
				cell->rounds[n] = k;
				n++;
			}
		}
		paired_analyze(cell->base, cell->fix, n, &cell->pol, &cell->stats);
		paired_spread_analyze(cell->base, cell->fix, n, &cell->spread);
	}
	strlist_release(&metrics);
	strlist_release(&in_a);
	strlist_release(&in_b);
}

/* The census compared exactly: what decides within one design, and is context across two. */
static int compare_census_exact(const struct compare_cell *cell)
{
	const struct metric_info *m = metrics_lookup(cell->metric);

	return metrics_is_census(cell->metric) && m && m->ab_decides && !cell->only &&
	       !cell->inert && cell->stats.deterministic;
}

int compare_census_listed(const struct compare_cell *cell)
{
	return compare_census_exact(cell) && cell->exact_differs;
}

static int compare_collectors_differ(const struct report_data *d, size_t base, size_t fix)
{
	const char *x = d->builds[base].collector, *y = d->builds[fix].collector;

	return strcmp(x ? x : "", y ? y : "") != 0;
}

/*
 * Two builds are two designs when their designs differ: each manifest's "design", else its
 * collector's name (two settings of one runtime say one design).
 */
static int compare_designs_differ(const struct compare *c)
{
	return strcmp(c->base_design, c->fix_design) != 0;
}

/* "FIX says clock_paced" when an arm's recorded capabilities say its census varies. */
static char *compare_census_varies(const struct report_data *d, size_t base, size_t fix)
{
	for (int arm = 0; arm < 2; arm++) {
		const struct store_build *b = &d->builds[arm ? fix : base];
		struct caps caps;
		struct err e = {0};
		if (caps_parse_text(b->capabilities, "capabilities", &caps, &e) != 0 ||
		    !caps_census_varies(&caps))
			continue;
		return xasprintf("%s says %s", arm ? "FIX" : "BASE",
		                 caps_clock_paced(&caps) ? "clock_paced" : "it is not precise");
	}
	return NULL;
}

/*
 * "load 10.3 on 2 CPUs" when the host was busier than it has CPUs at the start or the end of
 * the session: its time figures then measure the other tenants as much as the probe.
 */
static char *compare_time_noise(const struct report_data *d)
{
	const char *facts = d->session.facts ? d->session.facts : d->host_facts;
	cJSON *root = facts ? cJSON_Parse(facts) : NULL;
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(root, "ncpu");
	double ncpu = cJSON_IsNumber(n) ? n->valuedouble : 0;
	double load = fmax(d->session.load_before, d->session.load_after);
	char *out = NULL;

	if (ncpu >= 1 && isfinite(load) && load > ncpu)
		out = xasprintf("load %.1f on %.0f CPU%s", load, ncpu, ncpu == 1 ? "" : "s");
	cJSON_Delete(root);
	return out;
}

/*
 * Spread changes: a family of their own over the cells paired in both arms of a probe that
 * did not go inert, after the verdicts, which they never touch.
 */
static void compare_spreads(struct compare *c, const struct paired_cell *stats,
                            const struct paired_policy *pols, double fdr_q)
{
	struct paired_spread *sp = xcalloc(c->ncells ? c->ncells : 1, sizeof *sp);
	struct paired_policy *sp_pols = xcalloc(c->ncells ? c->ncells : 1, sizeof *sp_pols);

	for (size_t i = 0; i < c->ncells; i++) {
		sp[i] = c->cells[i].spread;
		sp_pols[i] = pols[i];
		if (c->cells[i].only || c->cells[i].inert)
			sp_pols[i].spread = 0;
	}
	c->spread_family = paired_spread_judge(sp, stats, sp_pols, c->ncells, fdr_q);
	for (size_t i = 0; i < c->ncells; i++) {
		c->cells[i].spread = sp[i];
		c->spread_changed += sp[i].change != 0;
	}
	free(sp_pols);
	free(sp);
}

/* The functions of one arm's ok valgrind runs of a probe, as one profile (fnprof_median). */
static int compare_where_arm(const struct report_data *d, const char *probe, int position,
                             struct fnprof *out)
{
	const struct fnprof **runs = xcalloc(d->nruns ? d->nruns : 1, sizeof *runs);
	size_t n = 0;

	for (size_t i = 0; i < d->nruns; i++) {
		const struct store_run *r = &d->runs[i];
		if (r->arm == position && !r->warmup && r->kind == RUN_KIND_VALGRIND &&
		    r->status == RUN_STATUS_OK && r->functions.n && strcmp(r->probe, probe) == 0)
			runs[n++] = &r->functions;
	}
	fnprof_median(runs, n, out);
	free(runs);
	return (int)n;
}

/* Where the Ir of each probe whose Ir changed went, when both arms recorded functions. */
static void compare_where_build(const struct report_data *d, size_t base, size_t fix,
                                struct compare *c)
{
	c->where = xcalloc(c->nprobes ? c->nprobes : 1, sizeof *c->where);
	for (size_t i = 0; i < c->ncells; i++) {
		const struct compare_cell *cell = &c->cells[i];
		struct compare_where *w = &c->where[c->nwhere];
		int moved = cell->exact_differs || cell->stats.verdict == PAIRED_WORSE ||
		            cell->stats.verdict == PAIRED_BETTER;

		if (strcmp(cell->metric, "valgrind.ir") != 0 || cell->stats.n == 0 || cell->inert ||
		    !moved || c->nwhere == c->nprobes)
			continue;
		w->probe = cell->probe;
		w->cell = cell;
		w->base_runs =
		    compare_where_arm(d, cell->probe, d->builds[base].position, &w->base);
		w->fix_runs = compare_where_arm(d, cell->probe, d->builds[fix].position, &w->fix);
		if (w->base_runs == 0 || w->fix_runs == 0) {
			fnprof_release(&w->base);
			fnprof_release(&w->fix);
			memset(w, 0, sizeof *w);
			continue;
		}
		fnprof_diff(&w->base, &w->fix, &w->diff);
		c->nwhere++;
	}
}

void compare_build(const struct report_data *d, size_t base, size_t fix, double fdr_q,
                   enum compare_mode mode, struct compare *out)
{
	struct paired_policy *pols;
	struct paired_cell *stats;
	const double **values[2];
	size_t start;

	memset(out, 0, sizeof *out);
	out->data = d;
	out->base = base;
	out->fix = fix;
	out->fdr_q = fdr_q;
	out->mode = mode;
	out->base_design = buildinfo_design_of(d->manifests ? d->manifests[base] : NULL,
	                                       d->builds[base].collector);
	out->fix_design =
	    buildinfo_design_of(d->manifests ? d->manifests[fix] : NULL, d->builds[fix].collector);
	out->census_varies = compare_census_varies(d, base, fix);
	out->time_noise = compare_time_noise(d);
	out->across = mode == COMPARE_MODE_ACROSS ||
	              (mode == COMPARE_MODE_AUTO && compare_designs_differ(out));
	out->rounds_planned = (int)d->session.rounds;
	out->session_complete = d->session.status && strcmp(d->session.status, "complete") == 0;
	compare_rounds(d, base, fix, out);

	out->probes = xcalloc(d->probes.n, sizeof *out->probes);
	for (size_t p = 0; p < d->probes.n; p++) {
		struct compare_probe *cp = &out->probes[out->nprobes++];
		struct compare_arm a, b;
		cp->probe = d->probes.items[p];
		compare_identity(d, base, fix, cp);
		compare_arm_fill(d, cp->probe, d->builds[base].position, out->rounds_planned, &a);
		compare_arm_fill(d, cp->probe, d->builds[fix].position, out->rounds_planned, &b);
		start = out->ncells;
		compare_probe_cells(out, cp, &a, &b);
		if (out->ncells - start > 1)
			qsort(out->cells + start, out->ncells - start, sizeof *out->cells,
			      compare_cell_cmp);
		free(a.by_round);
		free(b.by_round);
		if (cp->correctness)
			out->identity_failed = 1;
		if (compare_inert_arm(cp))
			out->inert_probes++;
		out->runs_failed += cp->base_failed + cp->fix_failed;
	}

	/* The verdicts: one Benjamini–Hochberg family over the whole session. */
	pols = xcalloc(out->ncells ? out->ncells : 1, sizeof *pols);
	stats = xcalloc(out->ncells ? out->ncells : 1, sizeof *stats);
	values[0] = xcalloc(out->ncells ? out->ncells : 1, sizeof *values[0]);
	values[1] = xcalloc(out->ncells ? out->ncells : 1, sizeof *values[1]);
	for (size_t i = 0; i < out->ncells; i++) {
		pols[i] = out->cells[i].pol;
		stats[i] = out->cells[i].stats;
		values[0][i] = out->cells[i].base;
		values[1][i] = out->cells[i].fix;
		/* Kept in its place in the table, but out of the judgement and of the family. */
		if (out->cells[i].inert)
			pols[i].decides = 0;
	}
	out->family =
	    paired_judge(stats, pols, out->ncells, fdr_q, values[0], values[1], &out->rank_family);
	compare_spreads(out, stats, pols, fdr_q);
	for (size_t i = 0; i < out->ncells; i++) {
		struct compare_cell *cell = &out->cells[i];
		double delta;
		cell->stats = stats[i];
		cell->mde_pct = compare_mde_pct(cell, &cell->mde_rounds);
		delta = cell->stats.fix_median - cell->stats.base_median;
		if (cell->only)
			cell->stats.verdict = PAIRED_INFO;
		if (cell->inert)
			cell->stats.verdict = PAIRED_UNJUDGED;
		cell->exact_differs =
		    cell->stats.n > 0 && cell->stats.deterministic &&
		    fabs(delta) > cell->pol.resolution * fabs(cell->stats.base_median);
		if (compare_census_exact(cell)) {
			out->census_exact++;
			out->census_differ += cell->exact_differs;
		}
		if (cell->inert) {
			out->inert++;
			continue;
		}
		if (cell->context) {
			out->context++;
			continue;
		}
		switch (cell->stats.verdict) {
		case PAIRED_WORSE:
			out->worse++;
			break;
		case PAIRED_BETTER:
			out->better++;
			break;
		case PAIRED_SAME:
			out->same++;
			break;
		case PAIRED_INFO:
			out->info++;
			break;
		case PAIRED_FEW:
			out->few++;
			break;
		case PAIRED_UNJUDGED:
			out->unjudged++;
			break;
		}
		if (cell->pol.decides && (cell->stats.bimodal_base || cell->stats.bimodal_fix))
			out->bimodal++;
	}
	free(values[1]);
	free(values[0]);
	free(stats);
	free(pols);

	compare_where_build(d, base, fix, out);
	if (out->worse || out->identity_failed)
		out->outcome = COMPARE_WORSE;
	else if (out->unjudged || out->inert || out->runs_failed || !out->session_complete ||
	         out->ncomplete == 0 || out->ncells == 0)
		out->outcome = COMPARE_UNJUDGED;
	else
		out->outcome = COMPARE_OK;
}

void compare_release(struct compare *c)
{
	for (size_t i = 0; i < c->nprobes; i++) {
		free(c->probes[i].failure);
		free(c->probes[i].base_stderr);
		free(c->probes[i].fix_stderr);
	}
	free(c->probes);
	for (size_t i = 0; i < c->ncells; i++) {
		free(c->cells[i].metric);
		free(c->cells[i].base);
		free(c->cells[i].fix);
		free(c->cells[i].rounds);
	}
	free(c->cells);
	free(c->complete);
	for (size_t i = 0; i < c->nwhere; i++) {
		fnprof_diff_release(&c->where[i].diff);
		fnprof_release(&c->where[i].base);
		fnprof_release(&c->where[i].fix);
	}
	free(c->where);
	free(c->base_design);
	free(c->fix_design);
	free(c->census_varies);
	free(c->time_noise);
	memset(c, 0, sizeof *c);
}

char *compare_rounds_text(const struct compare *c)
{
	struct sbuf b;

	sbuf_init(&b);
	if (c->ncomplete == 0)
		sbuf_addf(&b, "none");
	for (size_t i = 0; i < c->ncomplete;) {
		size_t j = i;
		while (j + 1 < c->ncomplete && c->complete[j + 1] == c->complete[j] + 1)
			j++;
		if (j == i)
			sbuf_addf(&b, "%s%d", i ? ", " : "", c->complete[i]);
		else
			sbuf_addf(&b, "%s%d-%d", i ? ", " : "", c->complete[i], c->complete[j]);
		i = j + 1;
	}
	sbuf_addf(&b, " of %d", c->rounds_planned);
	return b.data;
}

void compare_signs_text(const struct compare_cell *cell, char *buf, size_t size)
{
	const struct paired_cell *s = &cell->stats;

	if (cell->only)
		snprintf(buf, size, "only in %s", cell->only);
	else if (s->n == 0)
		snprintf(buf, size, "-");
	else if (s->deterministic)
		snprintf(buf, size, "exact (%zu)", s->n);
	else if (cell->pol.exact && s->n < PAIRED_SPREAD_MIN)
		snprintf(buf, size, s->n == 1 ? "1 run: repeats?" : "%zu runs: differ", s->n);
	else if (cell->pol.exact && s->n < PAIRED_RANK_MIN)
		snprintf(buf, size, "by spread (%zu)", s->n);
	else if (cell->pol.exact)
		snprintf(buf, size, "by rank (%zu)", s->n);
	else if (s->n_equal == (int)s->n)
		snprintf(buf, size, "%zu equal", s->n);
	else if (s->n_higher >= s->n_lower)
		snprintf(buf, size, "%d/%zu higher", s->n_higher, s->n);
	else
		snprintf(buf, size, "%d/%zu lower", s->n_lower, s->n);
}

void compare_cell_pq(const struct compare_cell *cell, double *p, double *q)
{
	const struct paired_cell *s = &cell->stats;
	const char *m = compare_cell_method(cell);

	*p = *q = NAN;
	if (s->n == 0 || s->deterministic)
		return;
	if (m && strcmp(m, "rank-sum") == 0) {
		*p = s->rank.p_two_sided;
		*q = s->in_rank_family ? s->rank_q : NAN;
		return;
	}
	*p = s->p;
	*q = s->in_family ? s->q : NAN;
}

const char *compare_census_varies_text(const struct compare *c, char *buf, size_t size)
{
	if (!c->census_varies)
		return NULL;
	snprintf(buf, size,
	         "census: no counter compared exactly (%s): its counters are judged by their "
	         "distributions",
	         c->census_varies);
	return buf;
}

const char *compare_cell_method(const struct compare_cell *cell)
{
	const struct paired_cell *s = &cell->stats;

	if (s->n == 0 || cell->only)
		return NULL;
	if (s->deterministic)
		return "exact";
	if (!cell->pol.exact)
		return "signed-rank";
	if (s->n < PAIRED_SPREAD_MIN)
		return NULL;
	return s->n < PAIRED_RANK_MIN ? "spread" : "rank-sum";
}

const char *compare_verdict_text(enum paired_verdict v)
{
	switch (v) {
	case PAIRED_WORSE:
		return "WORSE";
	case PAIRED_FEW:
		return "n<6";
	default:
		return paired_verdict_name(v);
	}
}

const char *compare_cell_verdict_text(const struct compare_cell *cell)
{
	if (cell->inert)
		return "inert";
	if (cell->context)
		return "context";
	return compare_verdict_text(cell->stats.verdict);
}

char *compare_across_text(const struct compare *c)
{
	const struct store_build *b = &c->data->builds[c->base], *f = &c->data->builds[c->fix];
	const char *x = b->collector ? b->collector : "?", *y = f->collector ? f->collector : "?";
	int named = strcmp(c->base_design, x) != 0 || strcmp(c->fix_design, y) != 0;

	if (c->across && c->mode == COMPARE_MODE_ACROSS)
		return xasprintf("across designs (--across): census counters are context, only "
		                 "costs decide");
	if (c->across && named)
		return xasprintf(
		    "across designs (the designs differ: %s vs %s): census counters are "
		    "context, only costs decide",
		    c->base_design, c->fix_design);
	if (c->across)
		return xasprintf(
		    "across designs (the collectors differ: %s vs %s): census counters "
		    "are context, only costs decide",
		    x, y);
	if (compare_designs_differ(c))
		return xasprintf("one design (--no-across, though the %s differ: %s vs %s): "
		                 "census counters decide like costs",
		                 named ? "designs" : "collectors", named ? c->base_design : x,
		                 named ? c->fix_design : y);
	if (compare_collectors_differ(c->data, c->base, c->fix))
		return xasprintf("one design (%s, as both manifests say; collectors %s vs %s): "
		                 "census counters decide like costs",
		                 c->base_design, x, y);
	return NULL;
}

static void compare_headline_core(const struct compare *c, char *buf, size_t size)
{
	if (c->identity_failed)
		snprintf(buf, size, "CORRECTNESS: FIX differs from BASE in its results%s",
		         c->worse ? ", and is worse on some cells" : "");
	else if (c->worse)
		snprintf(buf, size, "FIX is WORSE on %d cell%s", c->worse,
		         c->worse == 1 ? "" : "s");
	else if (c->outcome == COMPARE_UNJUDGED)
		snprintf(buf, size, "could not judge everything (%d better, no cell worse)",
		         c->better);
	else if (c->better)
		snprintf(buf, size, "FIX is better on %d cell%s, worse on none", c->better,
		         c->better == 1 ? "" : "s");
	else
		snprintf(buf, size, "no difference%s", c->across ? " in costs" : "");
}

void compare_headline(const struct compare *c, char *buf, size_t size)
{
	size_t n;

	compare_headline_core(c, buf, size);
	n = strlen(buf);
	/* Every format's verdict says that the census did not decide. */
	if (c->across && n < size)
		snprintf(buf + n, size - n, "; across designs, census counters are context");
}

int compare_probe_doubtful(const struct compare_probe *p)
{
	return p->sum == COMPARE_SUM_DIFFERS || p->sum == COMPARE_SUM_UNSTABLE ||
	       p->sum == COMPARE_SUM_MISSING || p->failure || p->base_inert || p->fix_inert;
}

int compare_cell_flagged(const struct compare_cell *cell)
{
	enum paired_verdict v = cell->stats.verdict;

	if (cell->context)
		return 0;
	if (cell->inert)
		return cell->pol.decides;
	return v == PAIRED_WORSE || v == PAIRED_BETTER ||
	       (cell->pol.decides && (v == PAIRED_FEW || v == PAIRED_UNJUDGED));
}

/* How a one-line summary ranks a probe's cells: lower first. */
static int compare_cell_rank(const struct compare_cell *cell)
{
	enum paired_verdict v = cell->stats.verdict;

	if (cell->context || !cell->pol.decides)
		return 5;
	if (cell->inert)
		return 1;
	return v == PAIRED_WORSE                         ? 0
	       : v == PAIRED_FEW || v == PAIRED_UNJUDGED ? 2
	       : v == PAIRED_BETTER                      ? 3
	                                                 : 4;
}

static double compare_cell_size(const struct compare_cell *cell)
{
	double p = cell->stats.delta_pct;

	return isfinite(p) ? fabs(p) : isinf(p) ? INFINITY : 0;
}

const struct compare_cell *compare_probe_worst(const struct compare *c, const char *probe)
{
	const struct compare_cell *best = NULL;

	for (size_t i = 0; i < c->ncells; i++) {
		const struct compare_cell *cell = &c->cells[i];
		int r;
		if (strcmp(cell->probe, probe) != 0)
			continue;
		r = compare_cell_rank(cell);
		if (!best || r < compare_cell_rank(best) ||
		    (r == compare_cell_rank(best) &&
		     compare_cell_size(cell) > compare_cell_size(best)))
			best = cell;
	}
	return best;
}

const char *compare_metric_label(const char *metric)
{
	static const char *const labels[][2] = {
	    {"valgrind.ir", "Ir"},
	    {"time.user_ns", "user time"},
	    {"time.wall_ns", "wall time"},
	    {"time.sys_ns", "system time"},
	    {"rss.peak_bytes", "peak RSS"},
	    {"memory.vm_hwm_bytes", "VmHWM"},
	    {"memory.rss_anon_bytes", "RssAnon"},
	    {"cachesim.est_cycles", "estimated cycles"},
	    {"cachesim.d1_misses", "D1 misses"},
	    {"cachesim.ll_misses", "LL misses"},
	};

	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (strcmp(labels[i][0], metric) == 0)
			return labels[i][1];
	if (strncmp(metric, "census.", 7) == 0)
		return metric + 7;
	return metric;
}

/* A headline's percentage: one decimal ("-32.7%"), finer only for a change below 0.1%. */
static void compare_headline_pct(double pct, char *buf, size_t size)
{
	if (isfinite(pct) && fabs(pct) >= 0.1)
		snprintf(buf, size, "%+.1f%%", pct);
	else
		report_format_pct(pct, buf, size);
}

static int compare_double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * "Ir +21.0%" for one probe, "Ir +16.2% on 12 probes (to +210%)" for several: the judged
 * cells of `metric` with verdict v. Nothing when there are none.
 */
static int compare_moved_item(const struct compare *c, const char *metric, enum paired_verdict v,
                              struct sbuf *b, const char *sep)
{
	double *pcts = xcalloc(c->ncells ? c->ncells : 1, sizeof *pcts), far = 0;
	size_t n = 0;
	char pct[24], to[24];

	for (size_t i = 0; i < c->ncells; i++) {
		const struct compare_cell *cell = &c->cells[i];
		if (cell->context || cell->inert || cell->stats.verdict != v ||
		    strcmp(cell->metric, metric) != 0)
			continue;
		pcts[n++] = cell->stats.delta_pct;
		if (!isfinite(far) || fabs(cell->stats.delta_pct) > fabs(far))
			far = cell->stats.delta_pct;
	}
	if (n) {
		qsort(pcts, n, sizeof *pcts, compare_double_cmp);
		compare_headline_pct(n % 2 ? pcts[n / 2] : (pcts[n / 2 - 1] + pcts[n / 2]) / 2, pct,
		                     sizeof pct);
		sbuf_addf(b, "%s%s %s", sep, compare_metric_label(metric), pct);
		if (n > 1) {
			compare_headline_pct(far, to, sizeof to);
			sbuf_addf(b, " on %zu probes (to %s)", n, to);
		}
	}
	free(pcts);
	return n > 0;
}

/*
 * Where a metric comes in the headline: what the collector did first (its collections, its
 * heap), then the memory it cost, the rest of its census, the other costs, and time last.
 */
static int compare_headline_rank(const char *metric)
{
	if (metrics_is_census(metric) && strstr(metric, "_collections"))
		return 0;
	if (strncmp(metric, "census.heap_", 12) == 0)
		return 1;
	if (strcmp(metric, "rss.peak_bytes") == 0 || strcmp(metric, "memory.vm_hwm_bytes") == 0)
		return 2;
	if (metrics_is_census(metric))
		return 3;
	return metrics_is_time(metric) ? 5 : 4;
}

/* 1 when some cell of `metric` was judged v (not context, not inert). */
static int compare_any_judged(const struct compare *c, const char *metric, enum paired_verdict v)
{
	for (size_t i = 0; i < c->ncells; i++)
		if (!c->cells[i].context && !c->cells[i].inert && c->cells[i].stats.verdict == v &&
		    strcmp(c->cells[i].metric, metric) == 0)
			return 1;
	return 0;
}

/*
 * The moved items of verdict v, into b: in headline order; peak RSS and VmHWM are one figure
 * (the peak resident set, counted by the kernel and by the probe), so VmHWM is named only
 * where peak RSS is not; time is left for the host-noise clause when the load made it noise.
 */
static int compare_moved_list(const struct compare *c, const struct strlist *metrics,
                              enum paired_verdict v, int time, struct sbuf *b, const char *first)
{
	size_t before = b->len;
	int any = 0;

	for (int rank = 0; rank <= 5; rank++)
		for (size_t m = 0; m < metrics->n; m++) {
			const char *name = metrics->items[m];
			if (compare_headline_rank(name) != rank ||
			    (time >= 0 && (metrics_is_time(name) != 0) != time))
				continue;
			if (strcmp(name, "memory.vm_hwm_bytes") == 0 &&
			    compare_any_judged(c, "rss.peak_bytes", v))
				continue;
			any |= compare_moved_item(c, name, v, b, b->len > before ? ", " : first);
		}
	return any;
}

/*
 * The timed cells that moved while time was host noise, appended to b: "worse" and "better"
 * lists (worse first when worse_first), each after ": " or, once something was said (`said`),
 * "; ". Returns whether anything has been said now.
 */
static int compare_noise_moved(const struct compare *c, const struct strlist *metrics,
                               int worse_first, int said, struct sbuf *b)
{
	for (int i = 0; i < 2; i++) {
		int w = worse_first ? 1 - i : i;
		size_t before = b->len;
		if (compare_moved_list(c, metrics, w ? PAIRED_WORSE : PAIRED_BETTER, 1, b,
		                       said ? "; " : ": ")) {
			sbuf_addf(b, " %s", w ? "worse" : "better");
			said = 1;
		} else {
			b->len = before;
			b->data[b->len] = '\0';
		}
	}
	return said;
}

/*
 * The metrics of the cells, in headline order, into metrics; 1 when a deciding time cell had
 * too few pairs to be judged.
 */
static int compare_headline_metrics(const struct compare *c, struct strlist *metrics)
{
	int time_few = 0;

	for (size_t i = 0; i < c->ncells; i++) {
		const struct compare_cell *cell = &c->cells[i];
		if (!strlist_contains(metrics, cell->metric))
			strlist_push(metrics, cell->metric);
		time_few |= cell->pol.decides && !cell->context && !cell->inert &&
		            cell->stats.verdict == PAIRED_FEW && metrics_is_time(cell->metric);
	}
	compare_sort_metrics(metrics);
	return time_few;
}

char *compare_headline_moved(const struct compare *c)
{
	const struct report_data *d = c->data;
	struct strlist metrics = {0};
	struct sbuf b;
	char core[256];
	int any[2] = {0, 0}, time_few, time_moved = 0;
	int split = c->time_noise != NULL;

	compare_headline_core(c, core, sizeof core);
	time_few = compare_headline_metrics(c, &metrics);
	sbuf_init(&b);
	sbuf_addf(&b, "%s: %s vs %s: ", core, d->builds[c->fix].label, d->builds[c->base].label);
	/* Better first, then worse: the trade-off reads as the example in docs/ab.md. */
	for (int w = 0; w < 2; w++) {
		any[w] = compare_moved_list(c, &metrics, w ? PAIRED_WORSE : PAIRED_BETTER,
		                            split ? 0 : -1, &b, w && any[0] ? "; " : "");
		if (any[w])
			sbuf_addf(&b, " %s", w ? "worse" : "better");
	}
	if (!any[0] && !any[1])
		sbuf_addf(&b, "no cell judged better or worse");
	sbuf_addf(&b, " (%zu of %d round%s)", c->ncomplete, c->rounds_planned,
	          c->rounds_planned == 1 ? "" : "s");
	if (split) {
		/* Said, not hidden: the verdicts stand, the reader weighs them. */
		sbuf_addf(&b, "; time is host noise here (%s)", c->time_noise);
		time_moved = compare_noise_moved(c, &metrics, 0, time_moved, &b);
	}
	if (time_few)
		sbuf_addf(&b, "; time not judged: %zu round%s, %d needed", c->ncomplete,
		          c->ncomplete == 1 ? "" : "s", PAIRED_MIN_PAIRS);
	if (c->across)
		sbuf_addf(&b, "; across designs, census counters are context");
	strlist_release(&metrics);
	return b.data;
}

static void compare_sbuf_clear(struct sbuf *b)
{
	b->len = 0;
	b->data[0] = '\0';
}

void compare_headline_lines(const struct compare *c, struct strlist *lines)
{
	const struct report_data *d = c->data;
	struct strlist metrics = {0};
	struct sbuf b;
	char core[256];
	size_t first = lines->n;
	int time_few, split = c->time_noise != NULL;

	compare_headline_core(c, core, sizeof core);
	time_few = compare_headline_metrics(c, &metrics);
	sbuf_init(&b);
	sbuf_addf(&b, "%s: %s vs %s (%zu of %d round%s)", core, d->builds[c->fix].label,
	          d->builds[c->base].label, c->ncomplete, c->rounds_planned,
	          c->rounds_planned == 1 ? "" : "s");
	strlist_push(lines, b.data);
	/* Worse first, then better, each its own clause: a trade-off is two facts. */
	for (int w = 1; w >= 0; w--) {
		compare_sbuf_clear(&b);
		if (compare_moved_list(c, &metrics, w ? PAIRED_WORSE : PAIRED_BETTER,
		                       split ? 0 : -1, &b, w ? "worse: " : "better: "))
			strlist_push(lines, b.data);
	}
	if (lines->n == first + 1 && !split)
		strlist_push(lines, "no cell judged better or worse");
	if (split) {
		compare_sbuf_clear(&b);
		sbuf_addf(&b, "time is host noise here (%s)", c->time_noise);
		compare_noise_moved(c, &metrics, 1, 0, &b);
		strlist_push(lines, b.data);
	}
	if (time_few) {
		compare_sbuf_clear(&b);
		sbuf_addf(&b, "time not judged: %zu round%s, %d needed", c->ncomplete,
		          c->ncomplete == 1 ? "" : "s", PAIRED_MIN_PAIRS);
		strlist_push(lines, b.data);
	}
	if (c->across)
		strlist_push(lines, "across designs, census counters are context");
	sbuf_release(&b);
	strlist_release(&metrics);
}
