#include "dist.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

struct dist_item {
	double v;
	int from_x;
};

static int dist_item_cmp(const void *a, const void *b)
{
	const struct dist_item *p = a, *q = b;

	return (p->v > q->v) - (p->v < q->v);
}

static int dist_double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The share of the k-subsets of N integer scores whose sum is at least (ge) or at most (!ge)
 * `threshold`: one knapsack count per subset size and sum, in doubles (C(40, 20) is 1.4e11,
 * far inside a double's exact integers).
 */
static double dist_subset_share(const long *score, size_t N, size_t k, long threshold, int ge)
{
	long total = 0;
	double *dp, hit = 0, all = 0;
	size_t width;

	for (size_t i = 0; i < N; i++)
		total += score[i];
	width = (size_t)total + 1;
	dp = xcalloc((k + 1) * width, sizeof *dp);
	dp[0] = 1;
	for (size_t i = 0; i < N; i++)
		for (size_t j = (i + 1 < k ? i + 1 : k); j >= 1; j--)
			for (long s = total; s >= score[i]; s--)
				dp[j * width + (size_t)s] +=
				    dp[(j - 1) * width + (size_t)(s - score[i])];
	for (long s = 0; s <= total; s++) {
		double c = dp[k * width + (size_t)s];
		all += c;
		if (ge ? s >= threshold : s <= threshold)
			hit += c;
	}
	free(dp);
	return all > 0 ? hit / all : 1.0;
}

double dist_p(const double *x, size_t m, const double *y, size_t n, int direction)
{
	size_t N = m + n;
	struct dist_item *it = xcalloc(N, sizeof *it);
	long *score = xcalloc(N, sizeof *score), tx = 0;
	double ties = 0, p;

	assert(m > 0 && n > 0 && direction != 0);
	for (size_t i = 0; i < m; i++)
		it[i] = (struct dist_item){direction > 0 ? x[i] : -x[i], 1};
	for (size_t j = 0; j < n; j++)
		it[m + j] = (struct dist_item){direction > 0 ? y[j] : -y[j], 0};
	qsort(it, N, sizeof *it, dist_item_cmp);
	/* Twice the mid-rank, an integer: a tie group at ranks a..b scores a + b each. */
	for (size_t a = 0; a < N;) {
		size_t b = a;
		while (b + 1 < N && it[b + 1].v == it[a].v)
			b++;
		for (size_t i = a; i <= b; i++) {
			score[i] = (long)(a + 1 + b + 1);
			if (it[i].from_x)
				tx += score[i];
		}
		ties += pow((double)(b - a + 1), 3) - (double)(b - a + 1);
		a = b + 1;
	}
	if (N <= DIST_EXACT_MAX) {
		/* Choose the smaller side: the y's sum is the total less the x's. */
		if (m <= n) {
			p = dist_subset_share(score, N, m, tx, 1);
		} else {
			long total = 0;
			for (size_t i = 0; i < N; i++)
				total += score[i];
			p = dist_subset_share(score, N, n, total - tx, 0);
		}
	} else {
		/* In rank units: E = m (N + 1) / 2, Var = m n / 12 ((N + 1) - ties / (N (N - 1))). */
		double t = (double)tx / 2.0, e = (double)m * (double)(N + 1) / 2.0;
		double var = (double)m * (double)n / 12.0 *
		             ((double)(N + 1) - ties / ((double)N * (double)(N - 1)));
		p = var > 0 ? 0.5 * erfc((t - e - 0.5) / sqrt(2.0 * var)) : (t > e ? 0.0 : 1.0);
	}
	free(score);
	free(it);
	return p > 1 ? 1 : p;
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

/* y's quantiles at (i - 1/2) / m, each moved by s in direction: the typical session. */
static void dist_typical(const double *y, size_t n, size_t m, int direction, double s, double *x)
{
	for (size_t i = 0; i < m; i++)
		x[i] =
		    stats_quantile(y, n, ((double)i + 0.5) / (double)m) + (direction > 0 ? s : -s);
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
	size_t *order = xcalloc(k ? k : 1, sizeof *order);

	memset(sig, 0, k);
	for (size_t i = 0; i < k; i++)
		order[i] = i;
	/* Insertion sort by p: k is the cells of one check, tens to hundreds. */
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && p[order[j]] < p[order[j - 1]]; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (size_t r = 0; r < k; r++) {
		if (!(p[order[r]] <= alpha / (double)(k - r)))
			break;
		sig[order[r]] = 1;
	}
	free(order);
}
