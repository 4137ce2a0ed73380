#include "dist.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ranktest.h"
#include "stats.h"
#include "util.h"

static int dist_double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double dist_p(const double *x, size_t m, const double *y, size_t n, int direction)
{
	struct ranktest t;

	assert(m > 0 && n > 0 && direction != 0);
	/* ranktest's second sample is the one tested for being higher: the session's runs. */
	ranktest_sum(y, n, x, m, &t);
	return direction > 0 ? t.p_greater : t.p_less;
}

double dist_shift(const double *x, size_t m, const double *y, size_t n)
{
	double *d = xcalloc(m * n, sizeof *d), v;

	assert(m > 0 && n > 0);
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			d[i * n + j] = x[i] - y[j];
	v = stats_median(d, m * n);
	free(d);
	return v;
}

/* y's quantiles at (i - 1/2) / m, each moved by s in direction: the typical session. */
static void dist_typical(const double *y, size_t n, size_t m, int direction, double s, double *x)
{
	for (size_t i = 0; i < m; i++)
		x[i] =
		    stats_quantile(y, n, ((double)i + 0.5) / (double)m) + (direction > 0 ? s : -s);
}

/* The pinning runs' edge a far-beyond run must pass, in direction. */
static double dist_far_edge(const double *y, size_t n, int direction)
{
	double lo = y[0], hi = y[0];

	for (size_t j = 1; j < n; j++) {
		lo = y[j] < lo ? y[j] : lo;
		hi = y[j] > hi ? y[j] : hi;
	}
	return direction > 0 ? hi + DIST_FAR_K * (hi - lo) : lo - DIST_FAR_K * (hi - lo);
}

int dist_far_beyond(const double *x, size_t m, const double *y, size_t n, int direction)
{
	double edge = dist_far_edge(y, n, direction);

	assert(m > 0 && n > 0 && direction != 0);
	for (size_t i = 0; i < m; i++)
		if (direction > 0 ? !(x[i] > edge) : !(x[i] < edge))
			return 0;
	return 1;
}

double dist_far_mde(const double *y, size_t n, size_t m, int direction, double min_effect)
{
	double *x = xcalloc(m, sizeof *x), edge = dist_far_edge(y, n, direction), need, hl;

	assert(m > 0 && n > 0 && direction != 0);
	dist_typical(y, n, m, direction, 0, x);
	/* The typical session's nearest run must pass the edge; its shift must pass min_effect. */
	need = direction > 0 ? edge - x[0] : x[0] - edge;
	for (size_t i = 1; i < m; i++) {
		double d = direction > 0 ? edge - x[i] : x[i] - edge;
		need = d > need ? d : need;
	}
	hl = min_effect - direction * dist_shift(x, m, y, n);
	free(x);
	need = need > 0 ? need : 0;
	return hl > need ? hl : need;
}

double dist_min_p(size_t m, size_t n)
{
	double c = 1;

	/* C(m + n, m), built up so that no step overflows before the last. */
	for (size_t i = 1; i <= m; i++)
		c = c * (double)(n + i) / (double)i;
	return 1.0 / c;
}

size_t dist_runs_for_alpha(size_t n, double alpha, size_t cap)
{
	for (size_t m = 1; m <= cap; m++)
		if (dist_min_p(m, n) <= alpha)
			return m;
	return 0;
}

double dist_mde(const double *y, size_t n, size_t m, int direction, double alpha, double min_effect)
{
	double *x = xcalloc(m, sizeof *x), *cand = xcalloc(m * n + 1, sizeof *cand);
	double scale, hl0, s0, best = INFINITY;
	size_t nc = 0, lo, hi;

	assert(m > 0 && n > 0 && direction != 0);
	if (dist_min_p(m, n) > alpha)
		goto out;
	dist_typical(y, n, m, direction, 0, x);
	/* The shift moves the typical session's Hodges-Lehmann estimate one for one. */
	hl0 = direction * dist_shift(x, m, y, n);
	s0 = min_effect - hl0 > 0 ? min_effect - hl0 : 0;
	/*
	 * p only changes where a moved x_i passes a y_j: at s = direction (y_j - x_i). Between two
	 * such points it is constant, so the least shift is the start of the first interval whose
	 * p is at most alpha; p falls as s grows, so that interval is found by bisection.
	 */
	cand[nc++] = 0;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			double c = direction * (y[j] - x[i]);
			if (c > 0)
				cand[nc++] = c;
		}
	qsort(cand, nc, sizeof *cand, dist_double_cmp);
	scale = fabs(stats_median(y, n)) + (cand[nc - 1] > 0 ? cand[nc - 1] : 0) + min_effect;
	if (scale <= 0)
		scale = 1;
	/* Interval k is (cand[k], cand[k + 1]), the last one open-ended; test a point inside. */
	lo = 0;
	hi = nc;
	while (lo < hi) {
		size_t k = lo + (hi - lo) / 2;
		double at = k + 1 < nc ? (cand[k] + cand[k + 1]) / 2 : cand[k] + scale, p;
		dist_typical(y, n, m, direction, at, x);
		p = dist_p(x, m, y, n, direction);
		if (p <= alpha)
			hi = k;
		else
			lo = k + 1;
	}
	if (lo < nc)
		best = cand[lo] > s0 ? cand[lo] : s0;
out:
	free(cand);
	free(x);
	return best;
}

size_t dist_runs_to_see(const double *y, size_t n, double shift, int direction, double alpha,
                        double min_effect, size_t from, size_t cap)
{
	size_t lo, hi;

	if (from < 1)
		from = 1;
	if (from > cap || !(dist_mde(y, n, cap, direction, alpha, min_effect) <= shift))
		return 0;
	/* What m runs can see grows with m, but for the steps of a discrete test: bisect, then
	 * step back while one fewer run still sees it. */
	lo = from;
	hi = cap;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (dist_mde(y, n, mid, direction, alpha, min_effect) <= shift)
			hi = mid;
		else
			lo = mid + 1;
	}
	while (lo > from && dist_mde(y, n, lo - 1, direction, alpha, min_effect) <= shift)
		lo--;
	return lo;
}

void dist_holm(const double *p, size_t k, double alpha, unsigned char *sig)
{
	int *reject = xcalloc(k ? k : 1, sizeof *reject);

	ranktest_holm(p, k, alpha, NULL, reject);
	for (size_t i = 0; i < k; i++)
		sig[i] = reject[i] != 0;
	free(reject);
}
