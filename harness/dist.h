/*
 * dist.h — judging a figure that varies from run to run by its distribution: a session's runs
 * against the pinning runs a baseline keeps (docs/baselines.md, "distribution").
 *
 * A clock-paced runtime's collection count (Go, V8, a concurrent JVM collector) or a
 * conservative collector's heap is not one number but a spread of them. Comparing the smallest
 * run with the pinned smallest within twice the pinning spread kept false alarms away, and let
 * a third more collections through. Here a session's m runs x are compared with the n pinning
 * runs y by two questions, both of which must say yes:
 *
 * - is x above (or below) y beyond chance? Mann-Whitney's rank-sum test, exact: the p-value is
 *   the share of the C(m+n, m) ways to choose which of the pooled runs are the session's whose
 *   rank sum is at least the observed one, ties at their mid-rank (ranktest.h: exact up to
 *   RANKTEST_EXACT_MAX runs in all, a normal approximation beyond).
 * - is the shift worth reporting? The Hodges-Lehmann estimate, the median of the m*n
 *   differences x_i - y_j, must be beyond a minimum effect (the rule's band).
 *
 * With few runs no p-value can be small: the smallest is 1 / C(m+n, m) (3 runs against 15:
 * 1/816). So what a cell can see depends on the runs the session has, and dist_mde says it:
 * the smallest shift a typical session of m runs would be judged beyond (dist_mde's comment).
 *
 * Nothing here allocates what it returns or keeps state; inputs are never modified; m and n
 * are at least 1 (asserted).
 */
#ifndef DIST_H
#define DIST_H

#include <stddef.h>

/*
 * The one-sided p-value that x lies above y (direction > 0) or below it (direction < 0): the
 * chance, were the m + n runs one sample, that the session's rank sum is at least (at most) the
 * one observed.
 */
double dist_p(const double *x, size_t m, const double *y, size_t n, int direction);

/* The Hodges-Lehmann shift: the median of every x_i - y_j. */
double dist_shift(const double *x, size_t m, const double *y, size_t n);

/*
 * Far beyond: every session run past the pinning runs' extreme on that side (max, or min
 * going down) by more than DIST_FAR_K times their range (max - min). A change that large is one
 * whatever the runs: a rank test of 3 runs cannot be sure of anything at the level a check of
 * a hundred cells needs (1 / C(18, 3) is 1/816), and an 8 MiB retention on a conservative
 * collector's heap must not pass for that. It is the old quantile rule's "twice the spread",
 * held to the whole range and to every run, so it alarms no more often than that rule did.
 */
#define DIST_FAR_K 2.0
int dist_far_beyond(const double *x, size_t m, const double *y, size_t n, int direction);
/* The least shift at which the typical session of m runs (dist_mde's) is far beyond and its
 * Hodges-Lehmann shift beyond min_effect. */
double dist_far_mde(const double *y, size_t n, size_t m, int direction, double min_effect);

/* The smallest one-sided p-value m runs against n can have: 1 / C(m + n, m). */
double dist_min_p(size_t m, size_t n);

/* The fewest session runs (from 1, at most cap) whose dist_min_p against n is at most alpha;
 * 0 when even cap runs cannot reach it. */
size_t dist_runs_for_alpha(size_t n, double alpha, size_t cap);

/*
 * The smallest change a session of m runs would be judged beyond: the least shift s >= 0 (in
 * the unit of y) such that the typical session, y's quantiles at (i - 1/2) / m (i = 1..m)
 * each moved by s in `direction`, has dist_p <= alpha and a Hodges-Lehmann shift beyond
 * min_effect (> min_effect, in absolute value). INFINITY when no shift is enough: m runs
 * cannot reach alpha at all (dist_min_p), or not within a shift of 1000 times y's scale.
 */
double dist_mde(const double *y, size_t n, size_t m, int direction, double alpha,
                double min_effect);

/*
 * The fewest runs, from `from` up to cap, at which dist_mde is at most `shift`; 0 when cap
 * runs do not reach it.
 */
size_t dist_runs_to_see(const double *y, size_t n, double shift, int direction, double alpha,
                        double min_effect, size_t from, size_t cap);

/*
 * Holm's step-down over k one-sided p-values at family-wise level alpha (ranktest_holm): sig[i]
 * = 1 for each p[i] the procedure rejects. The chance that any null cell of the k is flagged is
 * at most alpha, however the cells depend on each other.
 */
void dist_holm(const double *p, size_t k, double alpha, unsigned char *sig);

#endif /* DIST_H */
