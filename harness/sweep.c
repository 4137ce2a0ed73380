#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const sweep_metric_names[SWEEP_NMETRICS] = {
    [SWEEP_WALL] = "time.wall_ns",
    [SWEEP_USER] = "time.user_ns",
    [SWEEP_IR] = "valgrind.ir",
    [SWEEP_RSS] = "rss.peak_bytes",
};

static int sweep_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int sweep_parse_factors(const char *opt, const char *list, double *factors, size_t *n,
                        struct err *e)
{
	struct strlist items = {0};
	int rc = -1;

	*n = 0;
	strlist_split(&items, list);
	if (items.n == 0) {
		err_setc(e, ERR_INVALID, "%s needs a comma list of factors, got \"%s\"", opt, list);
		goto out;
	}
	if (items.n > SWEEP_FACTORS_MAX) {
		err_setc(e, ERR_INVALID, "%s: at most %d factors, got %zu", opt, SWEEP_FACTORS_MAX,
		         items.n);
		goto out;
	}
	for (size_t i = 0; i < items.n; i++) {
		const char *s = items.items[i];
		char *end;
		double f;

		errno = 0;
		f = strtod(s, &end);
		/* strtod takes "inf", "nan" and hex: a factor is a plain decimal. */
		if (errno || end == s || *end || strspn(s, "0123456789.") != strlen(s) ||
		    !(f >= SWEEP_FACTOR_MIN && f <= SWEEP_FACTOR_MAX)) {
			err_setc(e, ERR_INVALID,
			         "%s: factor \"%s\" must be a decimal from %g to %g", opt, s,
			         SWEEP_FACTOR_MIN, SWEEP_FACTOR_MAX);
			goto out;
		}
		for (size_t j = 0; j < *n; j++)
			if (factors[j] == f) {
				err_setc(e, ERR_INVALID, "%s: factor %s is given twice", opt, s);
				goto out;
			}
		factors[(*n)++] = f;
	}
	qsort(factors, *n, sizeof *factors, sweep_cmp_double);
	rc = 0;
out:
	if (rc != 0)
		*n = 0;
	strlist_release(&items);
	return rc;
}

uint64_t sweep_heap_mb(double factor, uint64_t reference_mb)
{
	/* Round the product first: 1.1 * 10 is 11.000000000000002 in binary, not 12 MiB. */
	double mb = ceil(round(factor * (double)reference_mb * 1e6) / 1e6);

	return mb < 1 ? 1 : (uint64_t)mb;
}

void sweep_table_init(struct sweep_table *t, size_t nprobes, size_t nbuilds, size_t nfactors)
{
	size_t npoints = nprobes * nbuilds * nfactors;

	memset(t, 0, sizeof *t);
	t->nprobes = nprobes;
	t->nbuilds = nbuilds;
	t->nfactors = nfactors < SWEEP_FACTORS_MAX ? nfactors : SWEEP_FACTORS_MAX;
	t->points = xcalloc(npoints ? npoints : 1, sizeof *t->points);
	for (size_t i = 0; i < npoints; i++) {
		struct sweep_point *p = &t->points[i];
		for (int m = 0; m < SWEEP_NMETRICS; m++)
			p->value[m] = p->norm[m] = NAN;
		for (int k = 0; k < SWEEP_NLBO; k++)
			p->lbo[k] = NAN;
		p->gc_ns = p->collections = NAN;
	}
	t->best = xcalloc(nprobes * SWEEP_NMETRICS + 1, sizeof *t->best);
	t->lower = xcalloc(nprobes * SWEEP_NLBO + 1, sizeof *t->lower);
	t->geo = xcalloc(nbuilds * nfactors * SWEEP_NMETRICS + 1, sizeof *t->geo);
	t->geo_lbo = xcalloc(nbuilds * nfactors * SWEEP_NLBO + 1, sizeof *t->geo_lbo);
	t->geo_n = xcalloc(nbuilds * nfactors + 1, sizeof *t->geo_n);
}

void sweep_table_release(struct sweep_table *t)
{
	free(t->points);
	free(t->best);
	free(t->lower);
	free(t->geo);
	free(t->geo_lbo);
	free(t->geo_n);
	memset(t, 0, sizeof *t);
}

struct sweep_point *sweep_point_at(const struct sweep_table *t, size_t probe, size_t build,
                                   size_t factor)
{
	return &t->points[(probe * t->nbuilds + build) * t->nfactors + factor];
}

/*
 * A point's value of metric m as the ratios take it: a time of 0, one that ran under the
 * clock's resolution (rusage counts whole microseconds), is that resolution, so a probe whose
 * user time rounds to 0 ns still has a ratio and the geometric means over every probe stay
 * defined.
 */
static double sweep_value(const struct sweep_point *pt, int m)
{
	double v = pt->value[m];

	return (m == SWEEP_WALL || m == SWEEP_USER) && v == 0 ? SWEEP_CLOCK_RESOLUTION_NS : v;
}

/* The best value of metric m for probe p: the smallest at the largest factor that has one. */
static double sweep_best(const struct sweep_table *t, size_t p, int m)
{
	for (size_t k = t->nfactors; k > 0; k--) {
		double best = NAN;
		for (size_t b = 0; b < t->nbuilds; b++) {
			double v = sweep_value(sweep_point_at(t, p, b, k - 1), m);
			if (isfinite(v) && v > 0 && !(v >= best))
				best = v;
		}
		if (isfinite(best))
			return best;
	}
	return NAN;
}

/*
 * The lower bound of probe p's cost k without GC work: the smallest over every build and
 * factor of the cost less the build's own GC time, and of the cost of a point that counted
 * no collection (epsilon's, jvm-epsilon's: a collecting build's runs count their final full collection).
 */
static double sweep_lower(const struct sweep_table *t, size_t p, int k)
{
	double lower = NAN;

	for (size_t b = 0; b < t->nbuilds; b++)
		for (size_t f = 0; f < t->nfactors; f++) {
			const struct sweep_point *pt = sweep_point_at(t, p, b, f);
			double v = sweep_value(pt, k);
			double c = pt->collections == 0 ? v : v - pt->gc_ns;
			/* GC time above the cost (a clock that counts other threads) bounds nothing. */
			if (isfinite(c) && c > 0 && !(c >= lower))
				lower = c;
		}
	return lower;
}

/* The geometric mean of n positive values; NAN when any is missing. */
static double sweep_geomean(const double *v, size_t n)
{
	double sum = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]) || v[i] <= 0)
			return NAN;
		sum += log(v[i]);
	}
	return exp(sum / (double)n);
}

void sweep_derive(struct sweep_table *t)
{
	double *col = xcalloc(t->nprobes + 1, sizeof *col);

	for (size_t p = 0; p < t->nprobes; p++) {
		for (int m = 0; m < SWEEP_NMETRICS; m++)
			t->best[p * SWEEP_NMETRICS + m] = sweep_best(t, p, m);
		for (int k = 0; k < SWEEP_NLBO; k++)
			t->lower[p * SWEEP_NLBO + k] = sweep_lower(t, p, k);
		for (size_t b = 0; b < t->nbuilds; b++)
			for (size_t f = 0; f < t->nfactors; f++) {
				struct sweep_point *pt = sweep_point_at(t, p, b, f);
				for (int m = 0; m < SWEEP_NMETRICS; m++)
					pt->norm[m] =
					    sweep_value(pt, m) / t->best[p * SWEEP_NMETRICS + m];
				for (int k = 0; k < SWEEP_NLBO; k++)
					pt->lbo[k] =
					    sweep_value(pt, k) / t->lower[p * SWEEP_NLBO + k];
			}
	}
	for (size_t b = 0; b < t->nbuilds; b++)
		for (size_t f = 0; f < t->nfactors; f++) {
			size_t cell = b * t->nfactors + f;
			t->geo_n[cell] = 0;
			for (size_t p = 0; p < t->nprobes; p++)
				t->geo_n[cell] +=
				    isfinite(sweep_point_at(t, p, b, f)->norm[SWEEP_WALL]);
			for (int m = 0; m < SWEEP_NMETRICS; m++) {
				for (size_t p = 0; p < t->nprobes; p++)
					col[p] = sweep_point_at(t, p, b, f)->norm[m];
				t->geo[cell * SWEEP_NMETRICS + m] = sweep_geomean(col, t->nprobes);
			}
			for (int k = 0; k < SWEEP_NLBO; k++) {
				for (size_t p = 0; p < t->nprobes; p++)
					col[p] = sweep_point_at(t, p, b, f)->lbo[k];
				t->geo_lbo[cell * SWEEP_NLBO + k] = sweep_geomean(col, t->nprobes);
			}
		}
	free(col);
}
