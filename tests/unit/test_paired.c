/*
 * Paired statistics on synthetic data with known answers. The randomized parts print their
 * seed; `test_paired SEED` (or GCR_TEST_SEED=SEED) repeats a run.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "paired.h"
#include "unit.h"
#include "util.h"

static uint64_t rng_state;

/* splitmix64: reproducible from the printed seed. */
UTIL_WRAPS_ON_PURPOSE
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static double rng_uniform(void)
{
	return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_gauss(void)
{
	return sqrt(-2 * log(rng_uniform())) * cos(2 * M_PI * rng_uniform());
}

/* The signed-rank p-values by enumerating all 2^n sign patterns of the mid-ranks. */
static void brute_signed_rank(const double *d, size_t n, double *p_greater, double *p_less)
{
	double a[24], r[24], w = 0, total = 0;
	size_t m = 0;
	long ge = 0, le = 0;

	for (size_t i = 0; i < n; i++)
		if (d[i] != 0)
			a[m++] = fabs(d[i]);
	for (size_t i = 0; i < m; i++) {
		double below = 0, same = 0;
		for (size_t j = 0; j < m; j++) {
			below += a[j] < a[i];
			same += a[j] == a[i];
		}
		r[i] = below + (same + 1) / 2;
	}
	for (size_t i = 0, k = 0; i < n; i++) {
		if (d[i] == 0)
			continue;
		if (d[i] > 0)
			w += r[k];
		k++;
	}
	for (unsigned long mask = 0; mask < (1ul << m); mask++) {
		double s = 0;
		for (size_t i = 0; i < m; i++)
			if (mask & (1ul << i))
				s += r[i];
		ge += s >= w - 1e-9;
		le += s <= w + 1e-9;
	}
	total = (double)(1ul << m);
	*p_greater = (double)ge / total;
	*p_less = (double)le / total;
}

static void test_signed_rank_known(void)
{
	const double seven_up[] = {3, 1, 4, 1.5, 9, 2.6, 5};
	const double five_up[] = {1, 2, 3, 4, 5};
	/* n = 10, W+ = 8: the tables (and R's wilcox.test) give p = 0.04883 two-sided. */
	const double ten[] = {-1, -2, -3, -4, -5, -6, -7, 8, -9, -10};
	const double six[] = {1, 2, -3, -4, -5, -6}; /* W+ = 3: P(W+ <= 3) = 5/64 */
	/* |d| 1,1,2,2,3 -> mid-ranks 1.5,1.5,3.5,3.5,5; W+ = 1.5+3.5+3.5+5 = 13.5 of 15. */
	const double ties[] = {1, -1, 2, 2, 3};
	const double zeros[] = {0, 1, 2, 0, 3, 4, 5, 6, 7};
	const double none[] = {0, 0, 0};
	struct paired_wilcoxon w;

	paired_signed_rank(seven_up, 7, &w);
	CHECK(w.n_used == 7 && w.exact);
	CHECK_NEAR(w.w_plus, 28, 0);
	CHECK_NEAR(w.p_greater, 1.0 / 128, 1e-15);
	CHECK_NEAR(w.p_less, 1, 1e-15);
	CHECK_NEAR(w.p_two_sided, 2.0 / 128, 1e-15);

	paired_signed_rank(five_up, 5, &w);
	CHECK_NEAR(w.p_two_sided, 2.0 / 32, 1e-15);

	paired_signed_rank(ten, 10, &w);
	CHECK_NEAR(w.w_plus, 8, 0);
	CHECK_NEAR(w.p_less, 25.0 / 1024, 1e-15);
	CHECK_NEAR(w.p_two_sided, 50.0 / 1024, 1e-15);

	paired_signed_rank(six, 6, &w);
	CHECK_NEAR(w.w_plus, 3, 0);
	CHECK_NEAR(w.p_less, 5.0 / 64, 1e-15);
	CHECK_NEAR(w.p_two_sided, 10.0 / 64, 1e-15);

	/* Doubled ranks 3,3,7,7,10 (sum 30), W2 = 27: P(W2 >= 27) = P(rest <= 3) = 3/32. */
	paired_signed_rank(ties, 5, &w);
	CHECK_NEAR(w.w_plus, 13.5, 0);
	CHECK_NEAR(w.p_greater, 3.0 / 32, 1e-15);
	CHECK_NEAR(w.p_less, 31.0 / 32, 1e-15);
	CHECK_NEAR(w.p_two_sided, 6.0 / 32, 1e-15);

	/* Zeros are dropped: seven non-zero positive deltas remain. */
	paired_signed_rank(zeros, 9, &w);
	CHECK(w.n_used == 7 && w.n_zero == 2);
	CHECK_NEAR(w.p_two_sided, 2.0 / 128, 1e-15);

	paired_signed_rank(none, 3, &w);
	CHECK(w.n_used == 0 && w.n_zero == 3);
	CHECK_NEAR(w.p_two_sided, 1, 0);
	paired_signed_rank(NULL, 0, &w);
	CHECK_NEAR(w.p_two_sided, 1, 0);
}

/* The dynamic programme against brute force on random samples with ties and zeros. */
static void test_signed_rank_random(void)
{
	for (int t = 0; t < 300; t++) {
		double d[14], pg, pl;
		size_t n = 1 + (size_t)(rng_next() % 14);
		struct paired_wilcoxon w;
		for (size_t i = 0; i < n; i++)
			d[i] = (double)((long)(rng_next() % 9) - 3); /* -3..5: ties and zeros */
		paired_signed_rank(d, n, &w);
		brute_signed_rank(d, n, &pg, &pl);
		CHECK_NEAR(w.p_greater, pg, 1e-12);
		CHECK_NEAR(w.p_less, pl, 1e-12);
	}
}

/* Beyond the exact limit the normal approximation takes over, and agrees in the middle. */
static void test_signed_rank_large(void)
{
	double d[PAIRED_EXACT_MAX + 100];
	size_t n = PAIRED_EXACT_MAX + 100;
	struct paired_wilcoxon w;

	for (size_t i = 0; i < n; i++)
		d[i] = (i % 2 ? 1.0 : -1.0) * (double)(i + 1);
	paired_signed_rank(d, n, &w);
	CHECK(!w.exact);
	CHECK(w.p_two_sided > 0.5);
	for (size_t i = 0; i < n; i++)
		d[i] = (double)(i + 1);
	paired_signed_rank(d, n, &w);
	CHECK(w.p_two_sided < 1e-50);
}

static void test_binomial_and_interval(void)
{
	const double d7[] = {5, -1, 3, 2, 8, 0, 4};
	double d11[11], d20[20];
	struct paired_interval ci;

	CHECK_NEAR(paired_binom_half_cdf(7, 0), 1.0 / 128, 1e-15);
	CHECK_NEAR(paired_binom_half_cdf(10, 2), 56.0 / 1024, 1e-14);
	CHECK_NEAR(paired_binom_half_cdf(10, 10), 1, 0);
	CHECK_NEAR(paired_binom_half_cdf(10, -1), 0, 0);

	/* n = 7: only k = 1 reaches 95% (2/128 <= 0.05, 16/128 is not): [min, max], 98.4%. */
	paired_median_interval(d7, 7, 0.95, &ci);
	CHECK(ci.k == 1);
	CHECK_NEAR(ci.lo, -1, 0);
	CHECK_NEAR(ci.hi, 8, 0);
	CHECK_NEAR(ci.level, 1 - 2.0 / 128, 1e-14);

	/* n = 11: k = 2 (2 * 12/2048 = 0.0117), k = 3 would be 2 * 67/2048 = 0.065. */
	for (int i = 0; i < 11; i++)
		d11[i] = 10 - i;
	paired_median_interval(d11, 11, 0.95, &ci);
	CHECK(ci.k == 2);
	CHECK_NEAR(ci.lo, 1, 0);
	CHECK_NEAR(ci.hi, 9, 0);
	CHECK_NEAR(ci.level, 1 - 24.0 / 2048, 1e-14);

	/* n = 20: k = 6, P(B <= 5) = 21700 / 2^20. */
	for (int i = 0; i < 20; i++)
		d20[i] = i + 1;
	paired_median_interval(d20, 20, 0.95, &ci);
	CHECK(ci.k == 6);
	CHECK_NEAR(ci.lo, 6, 0);
	CHECK_NEAR(ci.hi, 15, 0);
	CHECK_NEAR(ci.level, 1 - 2 * 21700.0 / 1048576, 1e-13);

	/* n = 5 cannot reach 95%: the widest interval, with the 93.75% it does reach. */
	paired_median_interval(d7, 5, 0.95, &ci);
	CHECK(ci.k == 1);
	CHECK_NEAR(ci.level, 1 - 2.0 / 32, 1e-14);

	paired_median_interval(NULL, 0, 0.95, &ci);
	CHECK(isnan(ci.lo) && isnan(ci.hi));
}

static void test_bh(void)
{
	/* Benjamini & Hochberg (1995), section 4: 15 p-values, q = 0.05 rejects the first 4. */
	const double bh95[] = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
	                       0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0000};
	/* Unsorted, with p(4) exactly on its boundary 4 * 0.05 / 5. */
	const double small[] = {0.01, 0.04, 0.03, 0.005, 0.5};
	const double want_adj[] = {0.025, 0.05, 0.05, 0.025, 0.5};
	double adj[15];
	int rej[15], count = 0;

	paired_bh(bh95, 15, 0.05, adj, rej);
	for (int i = 0; i < 15; i++)
		count += rej[i];
	CHECK(count == 4);
	CHECK(rej[0] && rej[1] && rej[2] && rej[3] && !rej[4]);

	paired_bh(small, 5, 0.05, adj, rej);
	for (int i = 0; i < 5; i++)
		CHECK_NEAR(adj[i], want_adj[i], 1e-15);
	CHECK(rej[0] && rej[1] && rej[2] && rej[3] && !rej[4]);

	/* One 7-of-7 cell (p = 2/128) passes alone, with one other null cell, not among eight. */
	{
		double p2[] = {2.0 / 128, 0.6},
		       p8[] = {2.0 / 128, 0.6, 0.3, 1, 0.8, 0.47, 0.22, 0.9};
		paired_bh(p2, 2, 0.05, NULL, rej);
		CHECK(rej[0] && !rej[1]);
		paired_bh(p8, 8, 0.05, NULL, rej);
		CHECK(!rej[0]);
	}
}

static void test_bimodal(void)
{
	const double two_modes[] = {100, 101, 100.5, 99.8, 130, 131, 130.4};
	const double one_mode[] = {100, 101, 102, 103, 104, 105, 106};
	const double constant[] = {5, 5, 5, 5, 5, 5, 5};
	/* Two tight clusters, but 0.5% apart: not worth a warning. */
	const double close[] = {1000, 1000, 1000, 1005, 1005, 1005, 1005};
	const double lone_outlier[] = {100, 100.2, 100.1, 99.9, 100.3, 99.8, 140};
	int false_alarms = 0, hits = 0;

	CHECK(paired_bimodal(two_modes, 7, NULL));
	CHECK(!paired_bimodal(one_mode, 7, NULL));
	CHECK(!paired_bimodal(constant, 7, NULL));
	CHECK(!paired_bimodal(close, 7, NULL));
	/* A single outlier is not a second mode: each group needs at least two values. */
	CHECK(!paired_bimodal(lone_outlier, 7, NULL));
	CHECK(!paired_bimodal(two_modes, 5, NULL));

	/* Gaussian samples (sd 2%) of 11: about 1% false alarms; two modes 8 sd apart: most. */
	for (int t = 0; t < 2000; t++) {
		double x[11], y[11];
		for (int i = 0; i < 11; i++) {
			x[i] = 100 + 2 * rng_gauss();
			y[i] = 100 + 2 * rng_gauss() + (i % 2 ? 16 : 0);
		}
		false_alarms += paired_bimodal(x, 11, NULL);
		hits += paired_bimodal(y, 11, NULL);
	}
	CHECK(false_alarms < 60);
	CHECK(hits > 1400);
}

static void test_cells(void)
{
	const double base7[] = {100, 102, 101, 99, 103, 100, 101};
	const double fix7[] = {103, 104, 104, 102, 106, 102, 104};
	const double same_census[] = {42, 42, 42, 42, 42, 42, 42};
	const double more_census[] = {43, 43, 43, 43, 43, 43, 43};
	/* ab runs Ir twice per arm: each arm repeating itself is what makes it exact. */
	const double ir_base[] = {326057476, 326057476}, ir_near[] = {326057477, 326057477},
	             ir_slow[] = {335055889, 335055889};
	struct paired_policy time_pol, census_pol, ir_pol, info_pol;
	struct paired_cell cells[6];
	struct paired_policy pols[6];

	paired_policy_for("time.user_ns", &time_pol);
	paired_policy_for("census.major_collections", &census_pol);
	paired_policy_for("valgrind.ir", &ir_pol);
	paired_policy_for("os.minor_faults", &info_pol);
	CHECK(time_pol.decides && time_pol.lower_better);
	CHECK(census_pol.decides && ir_pol.decides && ir_pol.exact && census_pol.exact &&
	      !time_pol.exact && !info_pol.decides);

	paired_analyze(base7, fix7, 7, &time_pol, &cells[0]);
	CHECK(cells[0].n_higher == 7 && cells[0].n_lower == 0);
	CHECK_NEAR(cells[0].base_median, 101, 0);
	CHECK_NEAR(cells[0].fix_median, 104, 0);
	CHECK_NEAR(cells[0].delta_median, 3, 0); /* deltas 3,2,3,3,3,2,3 */
	CHECK_NEAR(cells[0].delta_pct, 300.0 / 101, 1e-12);
	CHECK_NEAR(cells[0].ci.lo, 2, 0);
	CHECK_NEAR(cells[0].ci.hi, 3, 0);
	CHECK(!cells[0].deterministic);
	CHECK_NEAR(cells[0].p, 2.0 / 128, 1e-15);
	pols[0] = time_pol;

	/* A/A on a deterministic counter: certain sameness; +1 on one: certainly worse. */
	paired_analyze(same_census, same_census, 7, &census_pol, &cells[1]);
	pols[1] = census_pol;
	paired_analyze(same_census, more_census, 7, &census_pol, &cells[2]);
	pols[2] = census_pol;
	CHECK(cells[1].deterministic && cells[2].deterministic);
	CHECK_NEAR(cells[2].p, 0, 0);
	/* Ir: 1 instruction in 326 million is within the 10 ppm resolution; 2.8% is not. */
	paired_analyze(ir_base, ir_near, 2, &ir_pol, &cells[3]);
	pols[3] = ir_pol;
	paired_analyze(ir_base, ir_slow, 2, &ir_pol, &cells[4]);
	pols[4] = ir_pol;
	/* FIX lower on an info metric: shown, never judged. */
	paired_analyze(fix7, base7, 7, &info_pol, &cells[5]);
	pols[5] = info_pol;
	CHECK(paired_judge(cells, pols, 6, PAIRED_FDR_Q, NULL, NULL, NULL) == 1);
	CHECK(cells[0].verdict == PAIRED_WORSE && cells[0].in_family);
	CHECK_NEAR(cells[0].q, 2.0 / 128, 1e-15);
	CHECK(cells[1].verdict == PAIRED_SAME && !cells[1].in_family);
	CHECK(cells[2].verdict == PAIRED_WORSE);
	CHECK(cells[3].verdict == PAIRED_SAME);
	CHECK(cells[4].verdict == PAIRED_WORSE);
	CHECK(cells[5].verdict == PAIRED_INFO);

	/* FIX lower on a time cell: better. Fewer than 6 pairs: never judged by the test. */
	paired_analyze(fix7, base7, 7, &time_pol, &cells[0]);
	paired_analyze(fix7, base7, 5, &time_pol, &cells[1]);
	pols[0] = pols[1] = time_pol;
	paired_judge(cells, pols, 2, PAIRED_FDR_Q, NULL, NULL, NULL);
	CHECK(cells[0].verdict == PAIRED_BETTER);
	CHECK(cells[1].verdict == PAIRED_FEW);

	/* One round of a time metric proves nothing, even if the two values differ. */
	paired_analyze(base7, fix7, 1, &time_pol, &cells[0]);
	CHECK(!cells[0].deterministic);
	paired_analyze(NULL, NULL, 0, &time_pol, &cells[1]);
	paired_judge(cells, pols, 2, PAIRED_FDR_Q, NULL, NULL, NULL);
	CHECK(cells[0].verdict == PAIRED_FEW);
	CHECK(cells[1].verdict == PAIRED_UNJUDGED);
}

/*
 * Issue 24: an exact metric is exact only where each arm repeats itself. One run proves
 * nothing; runs that differ are judged by their spread (PAIRED_SPREAD_K times the wider arm's
 * range), never by a rank test that calls +24 bytes on 3 MB worse.
 */
static void test_exact_measured(void)
{
	/* bdwgc's Ir on 11 between identical runs: 0.003 to 0.024%. */
	const double base[] = {419151614, 419530201, 420217090};
	const double same[] = {419402000, 420001555, 419288001};
	const double slow[] = {427600000, 428000000, 427900000}; /* +2% */
	/* A JIT's allocated bytes, 7 rounds, jitter of about 1.5 KB; FIX +24 bytes. */
	const double jit_a[] = {3000000, 3001400, 2999900, 3000700, 3001500, 3000100, 3000900};
	const double jit_b[] = {3000024, 3001424, 2999924, 3000724, 3001524, 3000124, 3000924};
	struct paired_policy ir, alloc;
	struct paired_cell cells[5];
	struct paired_policy pols[5];

	paired_policy_for("valgrind.ir", &ir);
	paired_policy_for("census.alloc_bytes", &alloc);
	paired_analyze(base, base, 1, &ir, &cells[0]); /* one run a side */
	paired_analyze(base, same, 2, &ir, &cells[1]); /* two a side, differing */
	paired_analyze(base, same, 3, &ir, &cells[2]);
	paired_analyze(base, slow, 3, &ir, &cells[3]);
	paired_analyze(jit_a, jit_b, 7, &alloc, &cells[4]);
	pols[0] = pols[1] = pols[2] = pols[3] = ir;
	pols[4] = alloc;
	CHECK(!cells[0].deterministic && !cells[2].deterministic);
	CHECK_NEAR(cells[2].spread, 1065476, 0);
	paired_judge(cells, pols, 5, PAIRED_FDR_Q, NULL, NULL, NULL);
	CHECK(cells[0].verdict == PAIRED_FEW && cells[1].verdict == PAIRED_FEW);
	CHECK(cells[2].verdict == PAIRED_SAME && !cells[2].in_family);
	CHECK(cells[3].verdict == PAIRED_WORSE);
	/* The signed-rank test alone would call this worse: all 7 deltas are +24. */
	CHECK(cells[4].test.p_two_sided < 0.05);
	CHECK(cells[4].verdict == PAIRED_SAME && !cells[4].in_family);
}

/* A/A on noise: with 7 rounds a cell's two-sided p is below 0.05 about 1 time in 13. */
static void test_aa_noise(void)
{
	int flagged_sessions = 0;

	for (int s = 0; s < 400; s++) {
		struct paired_cell cells[8];
		struct paired_policy pols[8];
		int any = 0;
		for (int c = 0; c < 8; c++) {
			double a[7], b[7];
			for (int i = 0; i < 7; i++) {
				a[i] = 1e8 * (1 + 0.02 * rng_gauss());
				b[i] = 1e8 * (1 + 0.02 * rng_gauss());
			}
			paired_policy_for("time.wall_ns", &pols[c]);
			paired_analyze(a, b, 7, &pols[c], &cells[c]);
		}
		paired_judge(cells, pols, 8, PAIRED_FDR_Q, NULL, NULL, NULL);
		for (int c = 0; c < 8; c++)
			any |= cells[c].verdict != PAIRED_SAME;
		flagged_sessions += any;
	}
	/* BH keeps the chance of any false call at most q = 5% when all nulls are true. */
	CHECK(flagged_sessions <= 400 * 0.05 + 12);
}

/* The spread of each arm and the paired Brown–Forsythe test, on answers worked by hand. */
static void test_spread_known(void)
{
	/*
	 * Medians 10 and 10; |x - median| is 0,1,1,0,2,2,0 and 0,10,10,0,20,20,0, so the
	 * differences are 0,9,9,0,18,18,0: four non-zero, all positive, mid-ranks 1.5,1.5,3.5,3.5,
	 * W+ = 10, the largest of 2^4 equally likely patterns: p = 1/16 one-sided, 1/8 two-sided.
	 * Means 10 and 10, squares 10 and 1000: sd sqrt(10/6) and sqrt(1000/6), ratio 10.
	 */
	const double base[] = {10, 11, 9, 10, 12, 8, 10};
	const double fix[] = {10, 20, 0, 10, 30, -10, 10};
	/* Eight rounds, each |deviation| of FIX larger by a different amount. */
	const double b8[] = {100, 101, 99, 102, 98, 103, 97, 100.5};
	const double f8[] = {100, 111, 79, 132, 58, 153, 37, 120.5};
	double shifted[8], shared_b[8], shared_f[8];
	struct paired_spread s;

	paired_spread_analyze(base, fix, 7, &s);
	CHECK_NEAR(s.base_sd, sqrt(10.0 / 6), 1e-12);
	CHECK_NEAR(s.fix_sd, sqrt(1000.0 / 6), 1e-12);
	CHECK_NEAR(s.ratio, 10, 1e-12);
	CHECK(s.test.n_used == 4 && s.test.n_zero == 3);
	CHECK_NEAR(s.test.w_plus, 10, 1e-12);
	CHECK_NEAR(s.test.p_greater, 1.0 / 16, 1e-12);
	CHECK_NEAR(s.p, 1.0 / 8, 1e-12);
	CHECK(isnan(s.q) && !s.in_family && s.change == 0);

	/* Narrower is the mirror image: FIX as BASE. */
	paired_spread_analyze(fix, base, 7, &s);
	CHECK_NEAR(s.ratio, 0.1, 1e-12);
	CHECK_NEAR(s.test.p_less, 1.0 / 16, 1e-12);
	CHECK_NEAR(s.p, 1.0 / 8, 1e-12);

	/*
	 * Medians 100.25 and 105.5: the differences 5.25, 4.75, 25.25, 24.75, 45.25, 44.75,
	 * 65.25, 14.75 are all positive and distinct.
	 */
	paired_spread_analyze(b8, f8, 8, &s);
	CHECK(s.test.n_used == 8 && s.test.exact);
	CHECK_NEAR(s.p, 2.0 / 256, 1e-12);

	/* A shift of location alone is no change of spread: every difference is 0. */
	for (int i = 0; i < 8; i++)
		shifted[i] = b8[i] + 1000;
	paired_spread_analyze(b8, shifted, 8, &s);
	CHECK(s.test.n_used == 0 && s.p == 1);
	CHECK_NEAR(s.ratio, 1, 1e-12);
	/*
	 * Noise the host puts on both runs of a round cancels: a round that is 40 slower for
	 * both arms moves both away from their medians alike.
	 */
	for (int i = 0; i < 8; i++) {
		shared_b[i] = b8[i] + (i % 3 == 0 ? 40 : 0);
		shared_f[i] = b8[i] + 5 + (i % 3 == 0 ? 40 : 0);
	}
	paired_spread_analyze(shared_b, shared_f, 8, &s);
	CHECK(s.p == 1);

	/* Degenerate inputs: no pairs, one pair, constant arms. */
	paired_spread_analyze(base, fix, 0, &s);
	CHECK(isnan(s.base_sd) && isnan(s.ratio) && s.p == 1);
	paired_spread_analyze(base, fix, 1, &s);
	CHECK(isnan(s.fix_sd) && s.p == 1);
	{
		const double c5[] = {5, 5, 5, 5, 5, 5}, w5[] = {4, 6, 4, 6, 4, 6};
		paired_spread_analyze(c5, c5, 6, &s);
		CHECK(s.base_sd == 0 && isnan(s.ratio) && s.p == 1);
		paired_spread_analyze(c5, w5, 6, &s);
		CHECK(isinf(s.ratio) && s.ratio > 0);
	}
}

/* The spread family: who enters it, BH within it, and the direction of a change. */
static void test_spread_judge(void)
{
	/* A cell whose FIX deviates more in each of 10 rounds: p = 2/1024. */
	double wb[10], wf[10], nb[10], nf[10];
	struct paired_cell cells[6];
	struct paired_policy pols[6];
	struct paired_spread sp[6];
	size_t fam;

	for (int i = 0; i < 10; i++) {
		double e = (i % 2 ? 1 : -1) * (1 + 0.1 * i);
		wb[i] = 1e8 + e * 1e5;
		wf[i] = 1e8 + e * 2e6;
		nb[i] = 1e8 + (i % 3) * 1e5;
		nf[i] = 1e8 + ((i + 1) % 3) * 1e5;
	}
	paired_policy_for("time.wall_ns", &pols[0]);
	paired_policy_for("time.user_ns", &pols[1]);
	paired_policy_for("rss.peak_bytes", &pols[2]);
	paired_policy_for("time.sys_ns", &pols[3]);  /* info: quantised, not in the family */
	paired_policy_for("valgrind.ir", &pols[4]);  /* exact: judged by its spread already */
	paired_policy_for("time.wall_ns", &pols[5]); /* but only 5 pairs */
	CHECK(pols[0].spread && pols[1].spread && pols[2].spread);
	CHECK(!pols[3].spread && !pols[4].spread);
	paired_analyze(wb, wf, 10, &pols[0], &cells[0]);
	paired_spread_analyze(wb, wf, 10, &sp[0]);
	paired_analyze(nb, nf, 10, &pols[1], &cells[1]);
	paired_spread_analyze(nb, nf, 10, &sp[1]);
	/* Narrower: the first cell's arms swapped. */
	paired_analyze(wf, wb, 10, &pols[2], &cells[2]);
	paired_spread_analyze(wf, wb, 10, &sp[2]);
	paired_analyze(wb, wf, 10, &pols[3], &cells[3]);
	paired_spread_analyze(wb, wf, 10, &sp[3]);
	paired_analyze(wb, wf, 10, &pols[4], &cells[4]);
	paired_spread_analyze(wb, wf, 10, &sp[4]);
	paired_analyze(wb, wf, 5, &pols[5], &cells[5]);
	paired_spread_analyze(wb, wf, 5, &sp[5]);
	CHECK_NEAR(sp[0].p, 2.0 / 1024, 1e-12);
	CHECK_NEAR(sp[0].ratio, 20, 1e-9);

	fam = paired_spread_judge(sp, cells, pols, 6, PAIRED_FDR_Q);
	CHECK(fam == 3);
	CHECK(sp[0].in_family && sp[1].in_family && sp[2].in_family);
	CHECK(!sp[3].in_family && !sp[4].in_family && !sp[5].in_family);
	CHECK(isnan(sp[3].q) && sp[3].change == 0 && sp[5].change == 0);
	/* BH over 3: 2/1024 * 3 / 2 (two at that p) = 0.0029. */
	CHECK_NEAR(sp[0].q, 2.0 / 1024 * 3 / 2, 1e-12);
	CHECK(sp[0].change == 1 && sp[2].change == -1 && sp[1].change == 0);
	/* The verdicts are not touched: spread is info. */
	paired_judge(cells, pols, 6, PAIRED_FDR_Q, NULL, NULL, NULL);
	CHECK(cells[0].verdict == PAIRED_SAME || cells[0].verdict == PAIRED_WORSE ||
	      cells[0].verdict == PAIRED_BETTER);
	paired_spread_judge(sp, cells, pols, 6, PAIRED_FDR_Q);
	CHECK(sp[0].change == 1);

	/* A deterministic cell has no spread to compare. */
	{
		const double k[6] = {7, 7, 7, 7, 7, 7}, k2[6] = {8, 8, 8, 8, 8, 8};
		struct paired_cell dc;
		struct paired_spread ds;
		paired_analyze(k, k2, 6, &pols[0], &dc);
		paired_spread_analyze(k, k2, 6, &ds);
		CHECK(paired_spread_judge(&ds, &dc, &pols[0], 1, PAIRED_FDR_Q) == 0);
	}
}

/* A/A on noise: the spread family, like the verdicts', calls a change in few sessions. */
static void test_spread_aa(void)
{
	int flagged = 0, found = 0;

	for (int s = 0; s < 400; s++) {
		struct paired_cell cells[8];
		struct paired_policy pols[8];
		struct paired_spread sp[8];
		int any = 0;
		for (int c = 0; c < 8; c++) {
			double a[11], b[11];
			for (int i = 0; i < 11; i++) {
				double round = 0.05 * rng_gauss(); /* the host, on both runs */
				a[i] = 1e8 * (1 + round + 0.02 * rng_gauss());
				b[i] = 1e8 * (1 + round + 0.02 * rng_gauss());
			}
			paired_policy_for("time.wall_ns", &pols[c]);
			paired_analyze(a, b, 11, &pols[c], &cells[c]);
			paired_spread_analyze(a, b, 11, &sp[c]);
		}
		paired_spread_judge(sp, cells, pols, 8, PAIRED_FDR_Q);
		for (int c = 0; c < 8; c++)
			any |= sp[c].change != 0;
		flagged += any;
	}
	CHECK(flagged <= 400 * 0.05 + 12);

	/* FIX's spread 8 times BASE's (the seed's 143.8 -> 17.3 ms, the other way): found. */
	for (int s = 0; s < 100; s++) {
		struct paired_cell cell;
		struct paired_policy pol;
		struct paired_spread sp;
		double a[15], b[15];
		for (int i = 0; i < 15; i++) {
			a[i] = 1e8 * (1 + 0.01 * rng_gauss());
			b[i] = 1e8 * (1 + 0.08 * rng_gauss());
		}
		paired_policy_for("time.wall_ns", &pol);
		paired_analyze(a, b, 15, &pol, &cell);
		paired_spread_analyze(a, b, 15, &sp);
		paired_spread_judge(&sp, &cell, &pol, 1, PAIRED_FDR_Q);
		found += sp.change == 1;
	}
	CHECK(found >= 90);
}

/*
 * Issue 40: a varying cell (an exact metric the builds say need not repeat) is judged by its
 * distribution. The issue's own figures: 05's collections doubled at 5 rounds, 12's 7 -> 13,
 * and +336 bytes on 39 MB of freed_bytes, which is within a page: same.
 */
static void test_varying(void)
{
	const double c05[] = {11, 11, 11, 11, 12}, c05x2[] = {20, 22, 24, 21, 23};
	const double c12[] = {7, 7, 7, 7, 7}, c12x2[] = {13, 13, 13, 13, 13};
	const double f[] = {39000000, 39000000, 39000000, 39000000, 39000000};
	const double f336[] = {39000336, 39000336, 39000336, 39000336, 39000336};
	const double *base[4] = {c05, c12, f, c05}, *fix[4] = {c05x2, c12x2, f336, c05};
	struct paired_policy pols[4];
	struct paired_cell cells[4];
	size_t fam = 0;

	paired_policy_for("census.major_collections", &pols[0]);
	paired_policy_for("census.freed_bytes", &pols[2]);
	pols[0].varies = pols[2].varies = 1;
	pols[1] = pols[3] = pols[0];
	CHECK_NEAR(pols[2].resolution_abs, 4096, 0);
	for (int i = 0; i < 4; i++)
		paired_analyze(base[i], fix[i], 5, &pols[i], &cells[i]);
	/* Seven rounds that happen not to jitter are no proof: never deterministic. */
	CHECK(!cells[1].deterministic && !cells[2].deterministic);
	paired_judge(cells, pols, 4, PAIRED_FDR_Q, base, fix, &fam);
	CHECK_NEAR(cells[0].rank.p_two_sided, 2.0 / 252, 1e-12);
	CHECK(cells[0].verdict == PAIRED_WORSE && cells[1].verdict == PAIRED_WORSE);
	/* Within the metric's resolution: out of the family, and same. */
	CHECK(cells[2].verdict == PAIRED_SAME && !cells[2].in_rank_family);
	CHECK(cells[3].verdict == PAIRED_SAME);
	/*
	 * 05 and 12 only: freed_bytes cannot differ beyond a page, and 05 against itself can
	 * reach no p below 56/252 (its two 12s in one arm).
	 */
	CHECK(fam == 2);
	/*
	 * What 05 could see: FIX's values (the wider arm, 20-24) moved beyond 3 overlap by one
	 * pair (U = 24 of 25, p = 4/252), within BH's 2 x 0.05 / 2 with 12 called too; beyond 2
	 * they overlap by three (p = 14/252 = 0.056), which no level of 0.05 calls.
	 */
	CHECK_NEAR(cells[0].rank_mde, 3, 1e-9);
	CHECK_NEAR(cells[2].rank_mde, 4096, 1e-9);

	/* With 3 values a side no rank test reaches 0.05: the spread rule stays. */
	paired_analyze(c05, c05x2, 3, &pols[0], &cells[0]);
	paired_judge(cells, pols, 1, PAIRED_FDR_Q, base, fix, NULL);
	CHECK(cells[0].verdict == PAIRED_SAME && !cells[0].in_rank_family);
}

/*
 * The simulated sessions docs/ab.md quotes ("Exact metrics that do not repeat"): a Go-like
 * runtime, 4 probes with 3 varying census cells each: collections drawn from 20-23, 6-8,
 * 11 or 12 (one in five) and 7-8; heap peak 39 MB with a 2% sd; freed bytes 39 MB with 0.1%.
 * A plant multiplies the collection counts (rounded). GCR_SIM_SESSIONS=N prints the table
 * (docs/ab.md was made with 20000); the suite runs 300 and checks the A/A bound.
 */
static double sim_draw(int probe)
{
	double u = rng_uniform();

	switch (probe) {
	case 0:
		return 20 + floor(u * 4);
	case 1:
		return 6 + floor(u * 3);
	case 2:
		return u < 0.8 ? 11 : 12;
	default:
		return 7 + floor(u * 2);
	}
}

/* One session at `rounds`: *alarms the cells called in an A/A (factor 1), or *found the
 * planted collection cells called worse. `probes` 2 is the CLI test's stand-in (t191): only
 * the collection counts of 20-23 and 6-8 vary. */
static void sim_session(int rounds, double factor, int probes, int *called, int *found)
{
	static double v[12][2][16];
	const double *base[12] = {0}, *fix[12] = {0};
	struct paired_policy pols[12] = {0};
	struct paired_cell cells[12];
	int coll[12] = {0};
	size_t m = 0;

	for (int p = 0; p < probes; p++)
		for (int k = 0; k < (probes == 4 ? 3 : 1); k++, m++) {
			paired_policy_for(k == 0   ? "census.major_collections"
			                  : k == 1 ? "census.heap_committed_peak_bytes"
			                           : "census.freed_bytes",
			                  &pols[m]);
			pols[m].varies = 1;
			coll[m] = k == 0;
			for (int r = 0; r < rounds; r++)
				for (int arm = 0; arm < 2; arm++) {
					double x = k == 0   ? sim_draw(p)
					           : k == 1 ? 39e6 * (1 + 0.02 * rng_gauss())
					                    : 39e6 * (1 + 0.001 * rng_gauss());
					if (arm && k == 0)
						x = floor(x * factor + 0.5);
					v[m][arm][r] = x;
				}
			base[m] = v[m][0];
			fix[m] = v[m][1];
			paired_analyze(base[m], fix[m], (size_t)rounds, &pols[m], &cells[m]);
		}
	paired_judge(cells, pols, m, PAIRED_FDR_Q, base, fix, NULL);
	*called = *found = 0;
	for (size_t i = 0; i < m; i++) {
		*called += cells[i].verdict == PAIRED_WORSE || cells[i].verdict == PAIRED_BETTER;
		*found += cells[i].verdict == PAIRED_WORSE && coll[i];
	}
}

static void test_varying_sim(void)
{
	const char *env = getenv("GCR_SIM_SESSIONS");
	int n = env && *env ? atoi(env) : 300, print = env && *env;
	const double factors[] = {1, 1.10, 1.33, 2};
	const int rounds[] = {5, 7, 11};

	for (int probes = 4; probes >= 2; probes -= 2)
		for (size_t ri = 0; ri < sizeof rounds / sizeof *rounds; ri++)
			for (size_t fi = 0; fi < sizeof factors / sizeof *factors; fi++) {
				int sessions_called = 0, all_found = 0;
				long cells_found = 0;
				/* The suite checks the A/A bound and the doubling at 5 rounds; the
				 * whole table is for GCR_SIM_SESSIONS (the sanitizer build at -O0 took
				 * over 600 s for all of it on a loaded 2-core VM). */
				if (!print &&
				    (rounds[ri] != 5 || (factors[fi] != 1 && factors[fi] != 2)))
					continue;
				for (int s = 0; s < n; s++) {
					int called, found;
					sim_session(rounds[ri], factors[fi], probes, &called,
					            &found);
					sessions_called += called > 0;
					all_found += found == probes;
					cells_found += found;
				}
				if (print)
					printf("sim: %d probes, %2d rounds, x%.2f: sessions with a "
					       "cell "
					       "called %5.2f%%, planted cells called %6.2f%%, "
					       "sessions "
					       "with all %d %6.2f%%\n",
					       probes, rounds[ri], factors[fi],
					       100.0 * sessions_called / n,
					       100.0 * (double)cells_found / ((double)n * probes),
					       probes, 100.0 * all_found / n);
				/* An A/A: at most q = 5% of sessions flag anything (bound with slack). */
				if (factors[fi] == 1)
					CHECK(sessions_called <= n / 10 + 3);
				/* A doubling: every planted probe, every time, from 5 rounds. */
				if (factors[fi] == 2)
					CHECK(all_found >= n - n / 50 - 1);
			}
}

int main(int argc, char **argv)
{
	const char *env = getenv("GCR_TEST_SEED");
	uint64_t seed = argc > 1      ? strtoull(argv[1], NULL, 10)
	                : env && *env ? strtoull(env, NULL, 10)
	                              : (uint64_t)time(NULL);

	printf("test_paired: seed %llu (repeat with: test_paired %llu)\n", (unsigned long long)seed,
	       (unsigned long long)seed);
	rng_state = seed;
	test_signed_rank_known();
	test_signed_rank_random();
	test_signed_rank_large();
	test_binomial_and_interval();
	test_bh();
	test_bimodal();
	test_cells();
	test_exact_measured();
	test_aa_noise();
	test_spread_known();
	test_spread_judge();
	test_spread_aa();
	test_varying();
	test_varying_sim();
	return unit_done("test_paired");
}
