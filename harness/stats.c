#include "stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int stats_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double *stats_sorted(const double *x, size_t n)
{
	double *s = xmalloc(n * sizeof *s);

	memcpy(s, x, n * sizeof *s);
	qsort(s, n, sizeof *s, stats_cmp);
	return s;
}

static double stats_quantile_sorted(const double *s, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)floor(pos);
	double frac = pos - (double)lo;

	if (lo + 1 >= n)
		return s[n - 1];
	return s[lo] + frac * (s[lo + 1] - s[lo]);
}

double stats_quantile(const double *x, size_t n, double q)
{
	double *s, v;

	assert(n > 0 && q >= 0 && q <= 1);
	s = stats_sorted(x, n);
	v = stats_quantile_sorted(s, n, q);
	free(s);
	return v;
}

double stats_median(const double *x, size_t n)
{
	return stats_quantile(x, n, 0.5);
}

void stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
	double *s, *dev;

	assert(n > 0);
	s = stats_sorted(x, n);
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = stats_quantile_sorted(s, n, 0.5);
	out->q1 = stats_quantile_sorted(s, n, 0.25);
	out->q3 = stats_quantile_sorted(s, n, 0.75);
	dev = xmalloc(n * sizeof *dev);
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(s[i] - out->median);
	qsort(dev, n, sizeof *dev, stats_cmp);
	out->mad = stats_quantile_sorted(dev, n, 0.5);
	free(dev);
	free(s);
}

double stats_rel_spread(const struct stats_summary *s)
{
	double spread = s->max - s->min;

	if (spread == 0)
		return 0;
	if (s->median == 0)
		return INFINITY;
	return spread / fabs(s->median);
}
