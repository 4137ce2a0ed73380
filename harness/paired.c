#include "paired.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "run.h"
#include "stats.h"
#include "util.h"

void paired_policy_for(const char *metric, struct paired_policy *out)
{
	const struct metric_info *m = metrics_lookup(metric);

	memset(out, 0, sizeof *out);
	out->lower_better = 1;
	if (!m)
		return;
	out->decides = m->ab_decides;
	/*
	 * ab has no verdict "changed": a metric with no better side (census.freed_*) is shown as
	 * a cost, so that an exact change of it still reads as a difference.
	 */
	out->lower_better = m->better != METRIC_BETTER_HIGHER;
	out->exact = m->cls == METRIC_CLASS_EXACT;
	/* Info metrics (faults, sys time) are often quantised: their spread says little. */
	out->spread = m->cls == METRIC_CLASS_QUANTILE || m->cls == METRIC_CLASS_BANDED;
	out->resolution = m->resolution;
	out->resolution_abs = m->resolution_abs;
}

static int paired_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double *paired_sorted(const double *x, size_t n)
{
	double *s = xmalloc((n ? n : 1) * sizeof *s);

	if (n)
		memcpy(s, x, n * sizeof *s);
	qsort(s, n, sizeof *s, paired_cmp);
	return s;
}

struct paired_abs {
	double a;
	int positive;
};

static int paired_abs_cmp(const void *a, const void *b)
{
	double x = ((const struct paired_abs *)a)->a, y = ((const struct paired_abs *)b)->a;

	return (x > y) - (x < y);
}

void paired_signed_rank(const double *d, size_t n, struct paired_wilcoxon *out)
{
	struct paired_abs *v = xmalloc((n ? n : 1) * sizeof *v);
	long *rank2 = xmalloc((n ? n : 1) * sizeof *rank2); /* doubled mid-ranks: integers */
	size_t m = 0;
	long w2 = 0, total2 = 0;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		if (d[i] == 0) {
			out->n_zero++;
			continue;
		}
		v[m].a = fabs(d[i]);
		v[m].positive = d[i] > 0;
		m++;
	}
	out->n_used = m;
	out->p_greater = out->p_less = out->p_two_sided = 1;
	out->exact = 1;
	if (m == 0)
		goto out;
	qsort(v, m, sizeof *v, paired_abs_cmp);
	for (size_t i = 0; i < m;) {
		size_t j = i;
		while (j + 1 < m && v[j + 1].a == v[i].a)
			j++;
		/* Ranks i+1 .. j+1 share their mean; doubled, that is i + j + 2. */
		for (size_t k = i; k <= j; k++)
			rank2[k] = (long)(i + j + 2);
		i = j + 1;
	}
	for (size_t i = 0; i < m; i++) {
		total2 += rank2[i];
		if (v[i].positive)
			w2 += rank2[i];
	}
	out->w_plus = (double)w2 / 2;

	if (m <= PAIRED_EXACT_MAX) {
		/*
		 * Under the null each rank carries a + sign with probability 1/2, independently:
		 * the distribution of the doubled W+ is a convolution, built one rank at a time.
		 */
		double *dist = xcalloc((size_t)total2 + 1, sizeof *dist);
		double below = 0, above = 0;
		long reach = 0;

		dist[0] = 1;
		for (size_t i = 0; i < m; i++) {
			long r = rank2[i];
			/* Downwards, so dist[s - r] is still the previous step's when it is read. */
			for (long s = reach + r; s >= r; s--)
				dist[s] = 0.5 * dist[s] + 0.5 * dist[s - r];
			for (long s = r - 1; s >= 0; s--)
				dist[s] *= 0.5;
			reach += r;
		}
		for (long s = 0; s <= total2; s++) {
			if (s <= w2)
				below += dist[s];
			if (s >= w2)
				above += dist[s];
		}
		out->p_less = below > 1 ? 1 : below;
		out->p_greater = above > 1 ? 1 : above;
		free(dist);
	} else {
		/* Normal approximation with the tie correction and a continuity correction of 1/2. */
		double mean = (double)total2 / 4, var = 0, z;
		for (size_t i = 0; i < m; i++)
			var += (double)rank2[i] * (double)rank2[i] / 16;
		z = (out->w_plus - mean) / sqrt(var);
		out->exact = 0;
		out->p_greater = 0.5 * erfc((z - 0.5 / sqrt(var)) / M_SQRT2);
		out->p_less = 0.5 * erfc(-(z + 0.5 / sqrt(var)) / M_SQRT2);
	}
	out->p_two_sided = 2 * (out->p_greater < out->p_less ? out->p_greater : out->p_less);
	if (out->p_two_sided > 1)
		out->p_two_sided = 1;
out:
	free(rank2);
	free(v);
}

double paired_binom_half_cdf(size_t n, long k)
{
	double sum = 0;

	if (k < 0)
		return 0;
	if ((size_t)k >= n)
		return 1;
	/* Terms through lgamma: exact enough for any n a session can have, and no overflow. */
	for (long i = 0; i <= k; i++)
		sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
		           lgamma((double)(n - (size_t)i) + 1) - (double)n * M_LN2);
	return sum > 1 ? 1 : sum;
}

void paired_median_interval(const double *d, size_t n, double level_wanted,
                            struct paired_interval *out)
{
	double *s;
	size_t k = 1;

	memset(out, 0, sizeof *out);
	if (n == 0) {
		out->lo = out->hi = NAN;
		return;
	}
	while (k + 1 <= (n + 1) / 2 && 2 * paired_binom_half_cdf(n, (long)k) <= 1 - level_wanted)
		k++;
	s = paired_sorted(d, n);
	out->k = k;
	out->lo = s[k - 1];
	out->hi = s[n - k];
	out->level = 1 - 2 * paired_binom_half_cdf(n, (long)k - 1);
	free(s);
}

struct paired_idx {
	double p;
	size_t i;
};

static int paired_idx_cmp(const void *a, const void *b)
{
	const struct paired_idx *x = a, *y = b;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

void paired_bh(const double *p, size_t m, double q, double *q_adj, int *reject)
{
	struct paired_idx *o;
	double running = 1;

	if (m == 0)
		return;
	o = xmalloc(m * sizeof *o);
	for (size_t i = 0; i < m; i++) {
		o[i].p = p[i];
		o[i].i = i;
	}
	qsort(o, m, sizeof *o, paired_idx_cmp);
	/* Step-up: the adjusted value of rank r is the smallest p_(j) m / j over j >= r. */
	for (size_t r = m; r >= 1; r--) {
		double a = o[r - 1].p * (double)m / (double)r;
		if (a < running)
			running = a;
		if (q_adj)
			q_adj[o[r - 1].i] = running;
		/* A relative slack of 1e-12 keeps p = k q / m exactly on the boundary rejected. */
		if (reject)
			reject[o[r - 1].i] = running <= q * (1 + 1e-12);
	}
	free(o);
}

/* 99th percentiles of the gap statistic on Gaussian samples (2e4-6e4 simulations each). */
static const struct {
	size_t n;
	double crit;
} paired_gap_crit[] = {
    {6, 3.272},  {7, 2.393},  {8, 1.932},  {9, 1.606},  {10, 1.366},  {11, 1.104}, {12, 0.996},
    {13, 0.899}, {14, 0.806}, {15, 0.751}, {17, 0.627}, {20, 0.524},  {25, 0.403}, {30, 0.327},
    {40, 0.236}, {50, 0.188}, {60, 0.152}, {80, 0.111}, {100, 0.089},
};

static double paired_gap_critical(size_t n)
{
	size_t last = sizeof paired_gap_crit / sizeof paired_gap_crit[0] - 1;

	for (size_t i = 0; i < last; i++) {
		size_t a = paired_gap_crit[i].n, b = paired_gap_crit[i + 1].n;
		if (n >= a && n <= b)
			return paired_gap_crit[i].crit +
			       (paired_gap_crit[i + 1].crit - paired_gap_crit[i].crit) *
			           (double)(n - a) / (double)(b - a);
	}
	/* Beyond the table the statistic shrinks like 1/n. */
	return paired_gap_crit[last].crit * (double)paired_gap_crit[last].n / (double)n;
}

int paired_bimodal(const double *x, size_t n, double *gap_out)
{
	double *s, best = 0, median;
	size_t min_group;
	int found = 0;

	if (gap_out)
		*gap_out = 0;
	if (n < 6)
		return 0;
	s = paired_sorted(x, n);
	median = stats_median(s, n);
	min_group = (n + 4) / 5 > 2 ? (n + 4) / 5 : 2;
	for (size_t i = min_group - 1; i + min_group < n; i++) {
		double gap = s[i + 1] - s[i];
		double left = s[i] - s[0], right = s[n - 1] - s[i + 1];
		double wider = left > right ? left : right;
		double stat;
		if (gap <= 0)
			continue;
		stat = wider > 0 ? gap / wider : INFINITY;
		if (stat > best)
			best = stat;
		if (stat > paired_gap_critical(n) && gap >= 0.01 * fabs(median))
			found = 1;
	}
	if (gap_out)
		*gap_out = best;
	free(s);
	return found;
}

static double paired_max(const double *x, size_t n)
{
	double hi = x[0];

	for (size_t i = 1; i < n; i++)
		hi = fmax(hi, x[i]);
	return hi;
}

static double paired_min(const double *x, size_t n)
{
	double lo = x[0];

	for (size_t i = 1; i < n; i++)
		lo = fmin(lo, x[i]);
	return lo;
}

static double paired_range(const double *x, size_t n)
{
	return paired_max(x, n) - paired_min(x, n);
}

static int paired_constant(const double *x, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (x[i] != x[0])
			return 0;
	return 1;
}

void paired_analyze(const double *base, const double *fix, size_t n,
                    const struct paired_policy *pol, struct paired_cell *out)
{
	double *d = xmalloc((n ? n : 1) * sizeof *d);

	memset(out, 0, sizeof *out);
	out->n = n;
	out->q = NAN;
	out->rank_q = NAN;
	out->rank_mde = NAN;
	out->rank.p_greater = out->rank.p_less = out->rank.p_two_sided = out->rank.min_p = 1;
	out->verdict = PAIRED_UNJUDGED;
	if (n == 0) {
		out->base_median = out->fix_median = out->delta_median = out->delta_pct = NAN;
		out->ci.lo = out->ci.hi = NAN;
		out->p = 1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		d[i] = fix[i] - base[i];
		if (d[i] < 0)
			out->n_lower++;
		else if (d[i] > 0)
			out->n_higher++;
		else
			out->n_equal++;
	}
	out->base_median = stats_median(base, n);
	out->fix_median = stats_median(fix, n);
	out->delta_median = stats_median(d, n);
	out->delta_pct =
	    out->base_median != 0 ? 100 * out->delta_median / fabs(out->base_median) : NAN;
	paired_median_interval(d, n, 0.95, &out->ci);
	paired_signed_rank(d, n, &out->test);
	/*
	 * Deterministic is measured, never declared: each arm repeated itself over two runs at
	 * least. One run proves nothing (bdwgc's Ir moves by 0.003 to 0.024% between runs), and
	 * neither do seven: a figure the builds say need not repeat is never deterministic.
	 */
	out->deterministic =
	    !pol->varies && n >= 2 && paired_constant(base, n) && paired_constant(fix, n);
	out->spread = NAN;
	if (out->deterministic) {
		out->p = d[0] == 0 ? 1 : 0;
	} else {
		out->p = out->test.p_two_sided;
		if (n >= 2)
			out->spread = fmax(paired_range(base, n), paired_range(fix, n));
		if (pol->exact) {
			out->min_effect =
			    fmax(pol->resolution * fabs(out->base_median), pol->resolution_abs);
			if (n >= PAIRED_RANK_MIN)
				ranktest_sum(base, n, fix, n, &out->rank);
			/* No difference of the medians can exceed it: both lie within it. */
			out->pooled_range = fmax(paired_max(base, n), paired_max(fix, n)) -
			                    fmin(paired_min(base, n), paired_min(fix, n));
		}
	}
	out->bimodal_base = paired_bimodal(base, n, NULL);
	out->bimodal_fix = paired_bimodal(fix, n, NULL);
out:
	free(d);
}

static enum paired_verdict paired_direction(int fix_higher, const struct paired_policy *pol)
{
	return fix_higher == pol->lower_better ? PAIRED_WORSE : PAIRED_BETTER;
}

/*
 * The smallest shift a varying cell could have been called at, at level p_needed: the wider
 * arm's values moved (ranktest_min_shift), and never below the cell's minimum effect.
 */
static void paired_rank_mde(struct paired_cell *c, const double *base, const double *fix,
                            double p_needed)
{
	const double *wider = paired_range(fix, c->n) > paired_range(base, c->n) ? fix : base;
	double shift;

	if (ranktest_min_shift(wider, c->n, p_needed, &shift) == 0) {
		c->rank_mde = fmax(shift, c->min_effect);
		c->rank_rounds = 0;
	} else {
		c->rank_mde = INFINITY;
		c->rank_rounds = ranktest_rounds_needed(p_needed);
	}
}

/*
 * The varying cells idx[0..k-1]: the rank test, Benjamini–Hochberg over the cells that could
 * be called at all (one whose pooled values can reach no p <= q, or cannot differ beyond the
 * metric's resolution, is left out; that spends none of the family's level, since the pooled
 * values say nothing of which arm is which: Tarone's argument), and the minimum effect.
 * Returns the family size.
 */
static size_t paired_judge_ranked(struct paired_cell *cells, const struct paired_policy *pols,
                                  const size_t *idx, size_t k, const double *const *base,
                                  const double *const *fix)
{
	double *minp = xmalloc((k ? k : 1) * sizeof *minp), *p = xmalloc((k ? k : 1) * sizeof *p);
	double *adj = xmalloc((k ? k : 1) * sizeof *adj);
	size_t *fam = xmalloc((k ? k : 1) * sizeof *fam), nfam = 0, called = 0;
	int *reject = xmalloc((k ? k : 1) * sizeof *reject);

	for (size_t j = 0; j < k; j++) {
		struct paired_cell *c = &cells[idx[j]];
		/* No split of values within the resolution of each other can differ beyond it. */
		minp[j] = c->pooled_range > c->min_effect ? c->rank.min_p : 1;
	}
	for (size_t j = 0; j < k; j++)
		if (minp[j] <= PAIRED_RANK_Q * (1 + 1e-12)) {
			p[nfam] = cells[idx[j]].rank.p_two_sided;
			fam[nfam++] = j;
		}
	paired_bh(p, nfam, PAIRED_RANK_Q, adj, reject);
	for (size_t j = 0; j < k; j++)
		cells[idx[j]].verdict = PAIRED_SAME;
	for (size_t f = 0; f < nfam; f++) {
		struct paired_cell *c = &cells[idx[fam[f]]];
		int higher = c->rank.p_greater < c->rank.p_less;
		double delta = c->fix_median - c->base_median;
		c->in_rank_family = 1;
		c->rank_q = adj[f];
		called += (size_t)reject[f];
		/* Shown, and beyond the resolution, on the side the ranks say. */
		if (reject[f] && (higher ? delta : -delta) > c->min_effect)
			c->verdict = paired_direction(higher, &pols[idx[fam[f]]]);
	}
	/*
	 * What each could have seen in this family: the level Benjamini–Hochberg asks of it with
	 * the cells the session called (one more, itself, when it was not one of them), in a
	 * family it joins when it was left out.
	 */
	if (base)
		for (size_t j = 0; j < k; j++) {
			struct paired_cell *c = &cells[idx[j]];
			int was_called = c->in_rank_family && c->verdict != PAIRED_SAME;
			size_t m = nfam + !c->in_rank_family;
			paired_rank_mde(c, base[idx[j]], fix[idx[j]],
			                PAIRED_RANK_Q * (double)(called + !was_called) / (double)m);
		}
	free(reject);
	free(fam);
	free(adj);
	free(p);
	free(minp);
	return nfam;
}

size_t paired_judge(struct paired_cell *cells, const struct paired_policy *pols, size_t m, double q,
                    const double *const *base, const double *const *fix, size_t *rank_family)
{
	double *p = xmalloc((m ? m : 1) * sizeof *p), *adj = xmalloc((m ? m : 1) * sizeof *adj);
	size_t *idx = xmalloc((m ? m : 1) * sizeof *idx), fam = 0;
	size_t *ranked = xmalloc((m ? m : 1) * sizeof *ranked), nranked = 0, rfam;
	int *reject = xmalloc((m ? m : 1) * sizeof *reject);

	for (size_t i = 0; i < m; i++) {
		struct paired_cell *c = &cells[i];
		c->in_family = 0;
		c->q = NAN;
		c->in_rank_family = 0;
		c->rank_q = NAN;
		if (c->n == 0) {
			c->verdict = PAIRED_UNJUDGED;
		} else if (!pols[i].decides) {
			c->verdict = PAIRED_INFO;
		} else if (c->deterministic) {
			double delta = c->fix_median - c->base_median;
			if (fabs(delta) <= pols[i].resolution * fabs(c->base_median))
				c->verdict = PAIRED_SAME;
			else
				c->verdict = paired_direction(delta > 0, &pols[i]);
		} else if (pols[i].exact && c->n < PAIRED_SPREAD_MIN) {
			c->verdict = PAIRED_FEW;
		} else if (pols[i].exact && c->n < PAIRED_RANK_MIN) {
			double delta = c->fix_median - c->base_median;
			if (fabs(delta) <= PAIRED_SPREAD_K * c->spread ||
			    fabs(delta) <= c->min_effect)
				c->verdict = PAIRED_SAME;
			else
				c->verdict = paired_direction(delta > 0, &pols[i]);
		} else if (pols[i].exact) {
			ranked[nranked++] = i;
		} else if (c->n < PAIRED_MIN_PAIRS) {
			c->verdict = PAIRED_FEW;
		} else {
			c->in_family = 1;
			p[fam] = c->p;
			idx[fam++] = i;
		}
	}
	rfam = paired_judge_ranked(cells, pols, ranked, nranked, base, fix);
	if (rank_family)
		*rank_family = rfam;
	paired_bh(p, fam, q, adj, reject);
	for (size_t k = 0; k < fam; k++) {
		struct paired_cell *c = &cells[idx[k]];
		c->q = adj[k];
		if (reject[k])
			c->verdict =
			    paired_direction(c->test.p_greater < c->test.p_less, &pols[idx[k]]);
		else
			c->verdict = PAIRED_SAME;
	}
	free(reject);
	free(ranked);
	free(idx);
	free(adj);
	free(p);
	return fam;
}

static double paired_sd(const double *x, size_t n)
{
	double mean = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

void paired_spread_analyze(const double *base, const double *fix, size_t n,
                           struct paired_spread *out)
{
	double *d, mb, mf;

	memset(out, 0, sizeof *out);
	out->q = NAN;
	out->p = 1;
	out->base_sd = out->fix_sd = out->ratio = NAN;
	out->test.p_greater = out->test.p_less = out->test.p_two_sided = 1;
	out->test.exact = 1;
	if (n < 2)
		return;
	out->base_sd = paired_sd(base, n);
	out->fix_sd = paired_sd(fix, n);
	if (out->base_sd > 0)
		out->ratio = out->fix_sd / out->base_sd;
	else if (out->fix_sd > 0)
		out->ratio = INFINITY;
	mb = stats_median(base, n);
	mf = stats_median(fix, n);
	d = xmalloc(n * sizeof *d);
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(fix[i] - mf) - fabs(base[i] - mb);
	paired_signed_rank(d, n, &out->test);
	out->p = out->test.p_two_sided;
	free(d);
}

size_t paired_spread_judge(struct paired_spread *spreads, const struct paired_cell *cells,
                           const struct paired_policy *pols, size_t m, double q)
{
	double *p = xmalloc((m ? m : 1) * sizeof *p), *adj = xmalloc((m ? m : 1) * sizeof *adj);
	size_t *idx = xmalloc((m ? m : 1) * sizeof *idx), fam = 0;
	int *reject = xmalloc((m ? m : 1) * sizeof *reject);

	for (size_t i = 0; i < m; i++) {
		spreads[i].in_family = 0;
		spreads[i].q = NAN;
		spreads[i].change = 0;
		/* A deterministic cell has no spread; below 6 pairs no p reaches 0.05. */
		if (!pols[i].spread || cells[i].n < PAIRED_MIN_PAIRS || cells[i].deterministic)
			continue;
		spreads[i].in_family = 1;
		p[fam] = spreads[i].p;
		idx[fam++] = i;
	}
	paired_bh(p, fam, q, adj, reject);
	for (size_t k = 0; k < fam; k++) {
		struct paired_spread *s = &spreads[idx[k]];
		s->q = adj[k];
		if (reject[k])
			s->change = s->test.p_greater < s->test.p_less ? 1 : -1;
	}
	free(reject);
	free(idx);
	free(adj);
	free(p);
	return fam;
}

const char *paired_verdict_name(enum paired_verdict v)
{
	switch (v) {
	case PAIRED_SAME:
		return "same";
	case PAIRED_BETTER:
		return "better";
	case PAIRED_WORSE:
		return "worse";
	case PAIRED_INFO:
		return "info";
	case PAIRED_FEW:
		return "few";
	case PAIRED_UNJUDGED:
		break;
	}
	return "unjudged";
}
