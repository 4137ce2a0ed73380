/*
 * ranktest.h — the two-sample rank test (Wilcoxon rank-sum, Mann–Whitney) and Holm's
 * step-down, for judging figures that vary by their distributions rather than by one value
 * (docs/ab.md, "Exact metrics that do not repeat").
 *
 * Conventions:
 * - x is the first sample (BASE), y the second (FIX); "greater" means y tends to be larger.
 * - Tied values get mid-ranks. The null distribution of y's rank sum is enumerated exactly,
 *   conditional on the pooled values (their ties included), for up to RANKTEST_EXACT_MAX values
 *   in all; above that a normal approximation with tie and continuity corrections is used.
 * - Functions are pure: they never modify their input, never print, never fail. An empty
 *   sample yields p = 1.
 *
 * The smallest two-sided p a test can reach depends only on the pooled values (their sizes
 * and ties), which under the null of no difference do not depend on which value went to which
 * arm: `min_p` says it, so that a caller can leave out of a multiple-testing family a test
 * that could never reject (Tarone's refinement), without spending any of the family's level.
 * With 5 values a side and no ties across the arms the smallest p is 2/252 = 0.0079, at 4 a
 * side 2/70 = 0.029, at 3 a side 0.1: below 4 a side no rank test can call a difference.
 */
#ifndef RANKTEST_H
#define RANKTEST_H

#include <stddef.h>

/* Above this many values in all the p-value comes from the normal approximation. */
#define RANKTEST_EXACT_MAX 100

struct ranktest {
	size_t nx, ny;
	double w;           /* the sum of y's (mid-)ranks in the pooled sample */
	double p_greater;   /* P(W >= w): small when y is higher */
	double p_less;      /* P(W <= w): small when y is lower */
	double p_two_sided; /* min(1, 2 * min(p_greater, p_less)) */
	double min_p;       /* the smallest p_two_sided any split of the pooled values could give */
	int exact;          /* 1 when enumerated exactly */
};

/* The rank-sum test of y[0..ny-1] against x[0..nx-1]. */
void ranktest_sum(const double *x, size_t nx, const double *y, size_t ny, struct ranktest *out);

/*
 * Holm's step-down over p[0..m-1] at family-wise level alpha: adj[i] is the Holm-adjusted p
 * (the smallest level at which hypothesis i is rejected), reject[i] is adj[i] <= alpha. Either
 * output may be NULL.
 */
void ranktest_holm(const double *p, size_t m, double alpha, double *adj, int *reject);

/*
 * Tarone's number of tests for a family of discrete tests: the smallest K >= 1 such that at
 * most K of min_p[0..m-1] are <= alpha / K. Only those tests can ever be rejected at alpha / K;
 * the others are left out of the family. 0 when m is 0.
 */
size_t ranktest_tarone(const double *min_p, size_t m, double alpha);

/*
 * The smallest shift a rank test of n values against the same values moved by more than it
 * would call at two-sided level p_needed: *shift is that threshold (a move beyond it, with the
 * same spread, is called), 0 for a constant sample. -1 when no move can reach p_needed with
 * n a side (complete separation's 2/C(2n, n) is above it).
 */
int ranktest_min_shift(const double *x, size_t n, double p_needed, double *shift);

/* The smallest n >= 2 such that complete separation of n values a side reaches p_needed. */
size_t ranktest_rounds_needed(double p_needed);

#endif /* RANKTEST_H */
