#include "ranktest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct ranktest_value {
	double v;
	int in_y;
};

static int ranktest_value_cmp(const void *a, const void *b)
{
	double x = ((const struct ranktest_value *)a)->v, y = ((const struct ranktest_value *)b)->v;

	return (x > y) - (x < y);
}

static int ranktest_double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The exact null distribution of y's doubled rank sum: dist[s] = P(2W = s) when ny of the
 * pooled values, with doubled mid-ranks rank2[0..n-1], are drawn at random. Newly allocated,
 * *top the largest s.
 */
static double *ranktest_dist(const long *rank2, size_t n, size_t ny, long *top)
{
	long total = 0;
	double *f, *dist, ways;
	size_t width;

	for (size_t i = 0; i < n; i++)
		total += rank2[i];
	width = (size_t)total + 1;
	/* f[k * width + s]: the ways to pick k of the values seen so far with doubled sum s. */
	f = xcalloc((ny + 1) * width, sizeof *f);
	f[0] = 1;
	for (size_t i = 0; i < n; i++) {
		size_t kmax = i + 1 < ny ? i + 1 : ny;
		/* Downwards in k, so f[k - 1] is still the previous step's when it is read. */
		for (size_t k = kmax; k >= 1; k--)
			for (long s = total; s >= rank2[i]; s--)
				f[k * width + (size_t)s] +=
				    f[(k - 1) * width + (size_t)(s - rank2[i])];
	}
	dist = xcalloc(width, sizeof *dist);
	ways = 0;
	for (size_t s = 0; s < width; s++)
		ways += f[ny * width + s];
	for (size_t s = 0; s < width; s++)
		dist[s] = f[ny * width + s] / ways;
	free(f);
	*top = total;
	return dist;
}

void ranktest_sum(const double *x, size_t nx, const double *y, size_t ny, struct ranktest *out)
{
	size_t n = nx + ny;
	struct ranktest_value *v;
	long *rank2, w2 = 0;

	memset(out, 0, sizeof *out);
	out->nx = nx;
	out->ny = ny;
	out->p_greater = out->p_less = out->p_two_sided = out->min_p = 1;
	out->exact = 1;
	if (nx == 0 || ny == 0)
		return;
	v = xmalloc(n * sizeof *v);
	rank2 = xmalloc(n * sizeof *rank2);
	for (size_t i = 0; i < nx; i++)
		v[i] = (struct ranktest_value){x[i], 0};
	for (size_t i = 0; i < ny; i++)
		v[nx + i] = (struct ranktest_value){y[i], 1};
	qsort(v, n, sizeof *v, ranktest_value_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1].v == v[i].v)
			j++;
		/* Ranks i+1 .. j+1 share their mean; doubled, that is i + j + 2. */
		for (size_t k = i; k <= j; k++)
			rank2[k] = (long)(i + j + 2);
		i = j + 1;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].in_y)
			w2 += rank2[i];
	out->w = (double)w2 / 2;

	if (n <= RANKTEST_EXACT_MAX) {
		long top;
		/*
		 * The smaller side's sums are the cheaper count (its subsets, not the larger's): x's
		 * doubled sum is the total less y's, so P(2W = s) is P(2W_x = top - s).
		 */
		double *dist = ranktest_dist(rank2, n, nx < ny ? nx : ny, &top), below = 0,
		       above = 1;
		if (nx < ny)
			for (long s = 0, t = top; s < t; s++, t--) {
				double keep = dist[s];
				dist[s] = dist[t];
				dist[t] = keep;
			}
		for (long s = 0; s <= top; s++) {
			double two;
			below += dist[s];
			if (s == w2) {
				out->p_less = below > 1 ? 1 : below;
				out->p_greater = above > 1 ? 1 : above;
			}
			/* P(2W <= s) is `below`, P(2W >= s) is `above` (before this s is taken off). */
			two = 2 * (below < above ? below : above);
			if (dist[s] > 0 && two < out->min_p)
				out->min_p = two;
			above -= dist[s];
		}
		free(dist);
	} else {
		/* Normal approximation with the tie correction and a continuity correction of 1/2. */
		double mean = (double)ny * (double)(n + 1) / 2, ties = 0, var, z, ext = 0;
		for (size_t i = 0; i < n;) {
			size_t j = i;
			while (j + 1 < n && rank2[j + 1] == rank2[i])
				j++;
			ties += pow((double)(j - i + 1), 3) - (double)(j - i + 1);
			i = j + 1;
		}
		var = (double)nx * (double)ny / 12 *
		      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
		out->exact = 0;
		if (var <= 0) {
			out->p_greater = out->p_less = 1;
		} else {
			z = (out->w - mean) / sqrt(var);
			out->p_greater = 0.5 * erfc((z - 0.5 / sqrt(var)) / M_SQRT2);
			out->p_less = 0.5 * erfc(-(z + 0.5 / sqrt(var)) / M_SQRT2);
			/* The most extreme split: y takes the ny largest ranks. */
			for (size_t i = n - ny; i < n; i++)
				ext += (double)rank2[i] / 2;
			z = (ext - mean) / sqrt(var);
			out->min_p = fmin(1, erfc((z - 0.5 / sqrt(var)) / M_SQRT2));
		}
	}
	out->p_two_sided = 2 * (out->p_greater < out->p_less ? out->p_greater : out->p_less);
	if (out->p_two_sided > 1)
		out->p_two_sided = 1;
	/* Rounding in the sums must not put an attained p below the floor it was measured by. */
	if (out->min_p > out->p_two_sided)
		out->min_p = out->p_two_sided;
	free(rank2);
	free(v);
}

struct ranktest_idx {
	double p;
	size_t i;
};

static int ranktest_idx_cmp(const void *a, const void *b)
{
	const struct ranktest_idx *x = a, *y = b;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

void ranktest_holm(const double *p, size_t m, double alpha, double *adj, int *reject)
{
	struct ranktest_idx *o;
	double running = 0;

	if (m == 0)
		return;
	o = xmalloc(m * sizeof *o);
	for (size_t i = 0; i < m; i++)
		o[i] = (struct ranktest_idx){p[i], i};
	qsort(o, m, sizeof *o, ranktest_idx_cmp);
	/* Step-down: the adjusted value of rank r is the largest p_(j) (m - j + 1) over j <= r. */
	for (size_t r = 0; r < m; r++) {
		double a = o[r].p * (double)(m - r);
		if (a > running)
			running = a;
		if (running > 1)
			running = 1;
		if (adj)
			adj[o[r].i] = running;
		/* A relative slack of 1e-12 keeps p = alpha / k exactly on the boundary rejected. */
		if (reject)
			reject[o[r].i] = running <= alpha * (1 + 1e-12);
	}
	free(o);
}

size_t ranktest_tarone(const double *min_p, size_t m, double alpha)
{
	for (size_t k = 1; k <= m; k++) {
		size_t in = 0;
		for (size_t i = 0; i < m; i++)
			in += min_p[i] <= alpha / (double)k * (1 + 1e-12);
		if (in <= k)
			return k;
	}
	return m;
}

/*
 * 1 when x against x moved just beyond cand[c] (and short of the next candidate, so no new tie
 * across the arms) is called at p_needed; y is scratch of n values.
 */
static int ranktest_shift_reaches(const double *x, size_t n, const double *cand, size_t nc,
                                  size_t c, double p_needed, double *y)
{
	struct ranktest t;
	double next = c + 1 < nc ? cand[c + 1] : cand[c] + 2 * fmax(1, fabs(cand[c]));

	for (size_t i = 0; i < n; i++)
		y[i] = x[i] + cand[c] + (next - cand[c]) / 2;
	ranktest_sum(x, n, y, n, &t);
	return t.p_two_sided <= p_needed * (1 + 1e-12);
}

int ranktest_min_shift(const double *x, size_t n, double p_needed, double *shift)
{
	double *cand, *y;
	size_t nc = 0;
	int rc = -1;

	*shift = NAN;
	if (n == 0)
		return -1;
	/* p moves only where a shifted value passes an unshifted one: at a difference x_i - x_j. */
	cand = xmalloc((n * n + 1) * sizeof *cand);
	y = xmalloc(n * sizeof *y);
	cand[nc++] = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (x[i] - x[j] > 0)
				cand[nc++] = x[i] - x[j];
	qsort(cand, nc, sizeof *cand, ranktest_double_cmp);
	{
		size_t u = 0;
		for (size_t c = 0; c < nc; c++)
			if (u == 0 || cand[c] != cand[u - 1])
				cand[u++] = cand[c];
		nc = u;
	}
	/* p falls as the shift grows: the first candidate that reaches p_needed, by bisection. */
	if (ranktest_shift_reaches(x, n, cand, nc, nc - 1, p_needed, y)) {
		size_t lo = 0, hi = nc - 1;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (ranktest_shift_reaches(x, n, cand, nc, mid, p_needed, y))
				hi = mid;
			else
				lo = mid + 1;
		}
		*shift = cand[lo];
		rc = 0;
	}
	free(y);
	free(cand);
	return rc;
}

size_t ranktest_rounds_needed(double p_needed)
{
	size_t n = 2;

	/* 2 / C(2n, n), through lgamma: no overflow for any n a session can have. */
	while (n < 1000 && log(2) - (lgamma(2.0 * (double)n + 1) - 2 * lgamma((double)n + 1)) >
	                       log(p_needed) + 1e-12)
		n++;
	return n;
}
