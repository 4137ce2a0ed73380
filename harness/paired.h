/*
 * paired.h — paired statistics for A/B comparisons: one value per round for each of two
 * builds, paired by round (docs/ab.md says why each choice was made).
 *
 * Conventions:
 * - A delta is FIX - BASE, in the metric's unit; a percentage is relative to BASE.
 * - A metric's direction, role and determinism come from the metric table (metrics.h):
 *   paired_policy_for.
 * - Functions are pure: they never modify their input (they sort private copies), never
 *   print, never fail. n == 0 is allowed and yields empty results (p = 1, no interval).
 *
 * What is computed, per cell (probe x metric):
 * - medians of each arm, the median of the paired deltas and its percentage;
 * - a distribution-free confidence interval for that median from order statistics of the
 *   deltas (the sign-test interval: the binomial(n, 1/2) distribution picks the ranks), with
 *   the confidence it actually reaches, which is >= 95% whenever n >= 6;
 * - the exact Wilcoxon signed-rank test: zero deltas are dropped (Wilcoxon's method), tied
 *   |deltas| get mid-ranks, and the null distribution is enumerated exactly by dynamic
 *   programming over the (doubled, hence integer) ranks, conditional on the ties, for
 *   n <= PAIRED_EXACT_MAX; above that a normal approximation with tie correction is used;
 * - the sign count;
 * - deterministic cells (two values or more in each arm, each arm's identical) are decided
 *   by exact comparison, not by a test: the delta is then certain; an exact metric whose arms
 *   did not repeat (or need not: paired_policy.varies) is decided by its distribution, the
 *   two-sample rank test with BH over the session's cells judged so (PAIRED_RANK_*);
 * - a bimodality warning from a gap test calibrated on Gaussian samples (paired_bimodal).
 * The verdict over all cells of a session (paired_judge) controls the false-discovery rate
 * with Benjamini–Hochberg among the stochastic cells of metrics that decide.
 *
 * A change of spread is a result too, never a verdict (paired_spread_*): each arm's standard
 * deviation, and a paired Brown–Forsythe test, the exact signed-rank test of the round-by-round
 * differences of each arm's absolute deviations from its own median, with its own
 * Benjamini–Hochberg family. It is info: nothing here lets it change a cell's verdict.
 */
#ifndef PAIRED_H
#define PAIRED_H

#include <stddef.h>

#include "ranktest.h"

/* Above this many non-zero deltas the signed-rank p-value comes from the normal approximation. */
#define PAIRED_EXACT_MAX  400
/* The false-discovery rate ab controls across the cells of a session. */
#define PAIRED_FDR_Q      0.05
/* Below this many pairs no stochastic cell can reach p < 0.05 two-sided (2/2^5 = 0.0625). */
#define PAIRED_MIN_PAIRS  6
/*
 * An exact metric whose arms did not repeat themselves (a conservative collector's Ir, a
 * clock-paced runtime's collection counts) is judged by its distribution: from
 * PAIRED_RANK_MIN values per arm by the two-sample rank test (ranktest.h), the session's
 * cells judged this way forming one family for Benjamini–Hochberg at PAIRED_RANK_Q, which
 * holds the family-wise rate of an A/A (nothing changed) at PAIRED_RANK_Q (a cell whose pooled
 * values could never reach p <= q, as Tarone left such tests out, or never differ by more than the
 * metric's resolution, is left out), and a
 * difference of the medians within the metric's resolution (relative, and absolute:
 * metrics.h resolution_abs) is "same" whatever the test says. Five rounds that do not overlap
 * give p = 2/252 = 0.0079. With 3 values per arm (ab's valgrind runs) no rank test can reach
 * 0.05, and a difference counts beyond PAIRED_SPREAD_K times the wider arm's range; below
 * PAIRED_SPREAD_MIN values the cell is "few". docs/ab.md gives the false alarms and power of
 * both, measured by simulation (tests/unit/test_paired.c, GCR_SIM_SESSIONS).
 */
#define PAIRED_RANK_MIN   4
#define PAIRED_RANK_Q     0.05
#define PAIRED_SPREAD_K   3.0
#define PAIRED_SPREAD_MIN 3

struct paired_policy {
	int decides;       /* 1: the cell gets better/worse/same and can fail ab; 0: info only */
	int lower_better;  /* direction of "better" */
	double resolution; /* relative: deterministic deltas within it count as "same" */
	double resolution_abs; /* absolute: a varying cell's deltas within it are "same" */
	/*
	 * 1: the metric repeats exactly for a build that is deterministic (valgrind Ir, the census
	 * counters): compared exactly where each arm repeated itself, by its spread where not,
	 * never by a test of its ranks.
	 */
	int exact;
	/* 1: a change of its spread is reported (info): a stochastic metric (quantile, banded) */
	int spread;
	/*
	 * 1: what the builds say they do means this figure need not repeat (the census of a
	 * clock-paced or not precise collector, caps.h): never deterministic, however alike its
	 * runs happened to be; set by the caller, who knows the builds.
	 */
	int varies;
};
/* The policy of a metric by name, from its metrics_lookup entry; unknown ones are info-only costs. */
void paired_policy_for(const char *metric, struct paired_policy *out);

struct paired_wilcoxon {
	size_t n_used;      /* non-zero deltas */
	size_t n_zero;      /* zero deltas, dropped */
	double w_plus;      /* sum of the ranks of positive deltas (mid-ranks: may be x.5) */
	double p_greater;   /* P(W+ >= w_plus): small when FIX is higher */
	double p_less;      /* P(W+ <= w_plus): small when FIX is lower */
	double p_two_sided; /* min(1, 2 * min(p_greater, p_less)); 1 when n_used == 0 */
	int exact;          /* 1 when enumerated exactly */
};
/* The signed-rank test of deltas d[0..n-1] against a median of zero. */
void paired_signed_rank(const double *d, size_t n, struct paired_wilcoxon *out);

/* P(B <= k) for B ~ Binomial(n, 1/2); 0 for k < 0. */
double paired_binom_half_cdf(size_t n, long k);

struct paired_interval {
	double lo, hi; /* NAN when n == 0 */
	double level;  /* the confidence actually reached: 1 - 2 P(B <= k-1) */
	size_t k;      /* lo is the k-th smallest delta, hi the k-th largest (1-based) */
};
/*
 * The order-statistics interval for the median of d: the largest k with
 * 2 P(B <= k-1) <= 1 - level_wanted, or k = 1 (then level < level_wanted) when n is too small.
 */
void paired_median_interval(const double *d, size_t n, double level_wanted,
                            struct paired_interval *out);

/*
 * Benjamini–Hochberg over p[0..m-1]: q_adj[i] is the BH-adjusted p-value (the smallest FDR at
 * which hypothesis i is rejected) and reject[i] is q_adj[i] <= q. Either output may be NULL.
 */
void paired_bh(const double *p, size_t m, double q, double *q_adj, int *reject);

/*
 * 1 when x looks bimodal: after sorting, some split into two groups (each at least
 * max(2, ceil(n/5)) values) has a gap between them larger than a critical multiple of the
 * wider group's range, and that gap is at least 1% of |median|. The critical multiple is the
 * 99th percentile of the same statistic on Gaussian samples of the same n, so a unimodal,
 * normal-looking arm is flagged about once in a hundred. Needs n >= 6; 0 below.
 * *gap_out (may be NULL) gets the statistic (gap / range) of the strongest split.
 */
int paired_bimodal(const double *x, size_t n, double *gap_out);

enum paired_verdict {
	PAIRED_SAME, /* no difference shown */
	PAIRED_BETTER,
	PAIRED_WORSE,
	PAIRED_INFO,     /* a metric that does not decide: shown, never judged */
	PAIRED_FEW,      /* a stochastic cell with fewer than PAIRED_MIN_PAIRS pairs */
	PAIRED_UNJUDGED, /* no pairs at all */
};

struct paired_cell {
	size_t n; /* pairs */
	double base_median, fix_median;
	double delta_median;            /* median of FIX - BASE */
	double delta_pct;               /* 100 * delta_median / |base_median|; NAN if base is 0 */
	struct paired_interval ci;      /* for delta_median */
	int n_lower, n_higher, n_equal; /* rounds where FIX was lower, higher, equal */
	int deterministic; /* n >= 2 and every value of each arm identical: measured, not declared */
	double spread;     /* not deterministic: the wider arm's max - min (NAN when n < 2) */
	struct paired_wilcoxon test;
	double p;      /* the test's two-sided p; 0 or 1 when deterministic */
	double q;      /* BH-adjusted p within the family; NAN outside it */
	int in_family; /* entered the BH family */
	int bimodal_base, bimodal_fix;
	/*
	 * An exact metric that did not repeat, with PAIRED_RANK_MIN values a side or more: the
	 * rank-sum test of FIX's values against BASE's (rank.nx 0 otherwise); whether it entered
	 * the session's family of such cells and its BH-adjusted p there (NAN outside).
	 */
	struct ranktest rank;
	int in_rank_family;
	double rank_q;
	/* A varying cell's minimum effect: max(resolution * |BASE|, resolution_abs); else 0 */
	double min_effect;
	double pooled_range; /* a varying cell's: max - min of both arms together; else 0 */
	/*
	 * A varying cell judged by rank: the smallest shift, in the metric's unit, it could have
	 * called at these rounds in this family (a move of the wider arm's values beyond it, and
	 * beyond min_effect); INFINITY when no move could (rank_rounds then says how many values
	 * a side complete separation needs); NAN for any other cell.
	 */
	double rank_mde;
	size_t rank_rounds;
	enum paired_verdict verdict;
};

/*
 * Everything but the verdict for one cell: base[i] and fix[i] are round i of each arm.
 * The verdict is set by paired_judge once all cells of the session are known.
 */
void paired_analyze(const double *base, const double *fix, size_t n,
                    const struct paired_policy *pol, struct paired_cell *out);

/*
 * Verdicts for all m cells of a session (pols[i] is cell i's metric policy): deterministic
 * cells by exact comparison within their resolution; exact metrics that did not repeat by
 * their distribution, the rank test with BH over them (PAIRED_RANK_MIN values or more) or
 * their spread (few: fewer than PAIRED_SPREAD_MIN values); stochastic cells of deciding
 * metrics with at least PAIRED_MIN_PAIRS pairs form one family for Benjamini–Hochberg at level
 * q; the rest are info, few or unjudged. base[i] and fix[i] (both may be NULL) are cell i's
 * values, for what a varying cell could have seen (rank_mde; NAN without them). Returns the
 * BH family size; *rank_family (may be NULL) gets the rank-tested family's.
 */
size_t paired_judge(struct paired_cell *cells, const struct paired_policy *pols, size_t m, double q,
                    const double *const *base, const double *const *fix, size_t *rank_family);

/*
 * A change in an arm's spread (σ 143.8 -> 17.3 ms is what some fixes are for): shown as info,
 * never a verdict. The test is Brown–Forsythe's made paired: z = |x - median of its arm| in
 * each arm, and the exact signed-rank test of z(FIX) - z(BASE) round by round, so that noise
 * the host puts on both runs of a round (which moves both away from their medians) cancels
 * as it does in the deltas, and a shift of location does not count (each arm's own median).
 */
struct paired_spread {
	double base_sd, fix_sd; /* sample standard deviations (n - 1); NAN when n < 2 */
	/* fix_sd / base_sd: NAN when n < 2 or both are 0, INFINITY when only BASE's is 0 */
	double ratio;
	struct paired_wilcoxon test; /* of z(FIX) - z(BASE); n_used 0 when n < 2 */
	double p;                    /* the test's two-sided p; 1 when n < 2 */
	double q;                    /* BH-adjusted p within the spread family; NAN outside it */
	int in_family;               /* entered the spread family (paired_spread_judge) */
	int change; /* +1: FIX's spread is wider, -1: narrower (the family rejected); else 0 */
};

/* Each arm's spread and the paired Brown–Forsythe test of base[i], fix[i] (round i). */
void paired_spread_analyze(const double *base, const double *fix, size_t n,
                           struct paired_spread *out);

/*
 * The spread changes of a session's m cells: cells[i] with pols[i].spread, at least
 * PAIRED_MIN_PAIRS pairs and not deterministic form one family, Benjamini–Hochberg at level q
 * (a family of its own: it never dilutes, and is never diluted by, the verdicts'). Sets
 * spreads[i].q, in_family and change; returns the family size.
 */
size_t paired_spread_judge(struct paired_spread *spreads, const struct paired_cell *cells,
                           const struct paired_policy *pols, size_t m, double q);

/* "same", "better", "worse", "info", "few", "unjudged". */
const char *paired_verdict_name(enum paired_verdict v);

#endif /* PAIRED_H */
