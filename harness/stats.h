/*
 * stats.h — summary statistics of small samples (one value per round).
 *
 * Invariants: functions never modify their input (they sort a private copy); n == 0 is an
 * error the caller must avoid (asserted), since a median of nothing is not zero.
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

struct stats_summary {
	size_t n;
	double median;
	double min, max;
	double mad;    /* median absolute deviation from the median */
	double q1, q3; /* quartiles, linear interpolation between order statistics */
};

/* The q-quantile (0 <= q <= 1) with linear interpolation (type 7, as R and numpy default). */
double stats_quantile(const double *x, size_t n, double q);
double stats_median(const double *x, size_t n);
void stats_summarize(const double *x, size_t n, struct stats_summary *out);
/* Relative spread (max - min) / |median|; 0 when median and spread are both 0. */
double stats_rel_spread(const struct stats_summary *s);

#endif /* STATS_H */
