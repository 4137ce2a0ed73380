/*
 * The distribution judgement on data with known answers: the exact rank-sum p-value against a
 * brute-force count of every assignment (ties included), the normal approximation near it, the
 * Hodges-Lehmann shift, Holm, and what m runs can see. Randomised parts print their seed and
 * take one back: test_dist SEED.
 */
#include <stdint.h>
#include <stdlib.h>

#include "dist.h"
#include "stats.h"
#include "util.h"
#include "unit.h"

/* The exact p by enumerating every m-subset of the pooled runs (N <= 20). */
static double brute_p(const double *x, size_t m, const double *y, size_t n)
{
	size_t N = m + n;
	double z[20], rank[20], tx = 0;
	long hit = 0, all = 0;

	for (size_t i = 0; i < m; i++)
		z[i] = x[i];
	for (size_t j = 0; j < n; j++)
		z[m + j] = y[j];
	for (size_t i = 0; i < N; i++) {
		double below = 0, same = 0;
		for (size_t k = 0; k < N; k++) {
			below += z[k] < z[i];
			same += z[k] == z[i];
		}
		rank[i] = below + (same + 1) / 2;
	}
	for (size_t i = 0; i < m; i++)
		tx += rank[i];
	for (uint32_t mask = 0; mask < (1u << N); mask++) {
		double t = 0;
		if ((size_t)__builtin_popcount(mask) != m)
			continue;
		for (size_t i = 0; i < N; i++)
			if (mask & (1u << i))
				t += rank[i];
		all++;
		hit += t >= tx - 1e-9;
	}
	return (double)hit / (double)all;
}

static uint64_t rng;
UTIL_WRAPS_ON_PURPOSE
static unsigned draw(unsigned k)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((rng >> 33) % k);
}

int main(int argc, char **argv)
{
	const double hi[] = {4, 5, 6}, lo[] = {1, 2, 3};
	const double tied[] = {1, 1},
	             base[] = {20, 21, 22, 23, 21, 22, 20, 23, 22, 21, 21, 22, 20, 23, 22};
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 20261205;

	printf("test_dist seed %llu\n", (unsigned long long)seed);
	rng = seed;

	/* 3 above 3: one assignment of C(6, 3) = 20 puts them all on top. */
	CHECK_NEAR(dist_p(hi, 3, lo, 3, 1), 1.0 / 20, 1e-12);
	CHECK_NEAR(dist_p(lo, 3, hi, 3, 1), 1.0, 1e-12);
	CHECK_NEAR(dist_p(lo, 3, hi, 3, -1), 1.0 / 20, 1e-12);
	/* All tied: nothing can be said. */
	CHECK_NEAR(dist_p(tied, 2, tied, 2, 1), 1.0, 1e-12);
	CHECK_NEAR(dist_min_p(3, 15), 1.0 / 816, 1e-15);
	CHECK_NEAR(dist_min_p(5, 15), 1.0 / 15504, 1e-15);
	CHECK(dist_runs_for_alpha(15, 1e-3, 50) == 4);
	CHECK(dist_runs_for_alpha(15, 1e-30, 10) == 0);

	/* Against brute force, with ties, both orders of sizes (the DP picks the smaller side). */
	for (int t = 0; t < 300; t++) {
		double x[10], y[10];
		size_t m = 1 + draw(7), n = 1 + draw(9);
		for (size_t i = 0; i < m; i++)
			x[i] = draw(6);
		for (size_t j = 0; j < n; j++)
			y[j] = draw(6);
		double p = dist_p(x, m, y, n, 1), b = brute_p(x, m, y, n);
		if (fabs(p - b) > 1e-9)
			fprintf(stderr, "seed %llu case %d: m %zu n %zu exact %g brute %g\n",
			        (unsigned long long)seed, t, m, n, p, b);
		CHECK_NEAR(p, b, 1e-9);
	}

	/* The normal approximation beyond RANKTEST_EXACT_MAX agrees with the exact one near it. */
	{
		double x[60], y[60], xs[45], ys[45];
		for (int i = 0; i < 60; i++) {
			x[i] = 100 + draw(40);
			y[i] = 95 + draw(40);
		}
		for (int i = 0; i < 45; i++) {
			xs[i] = x[i];
			ys[i] = y[i];
		}
		double approx = dist_p(x, 60, y, 60, 1), exact = dist_p(xs, 45, ys, 45, 1);
		CHECK(approx > 0 && approx < 1 && exact > 0 && exact < 1);
		/* Two samples of the same draws: the same side of a half. */
		CHECK((approx < 0.5) == (exact < 0.5));
	}

	/* Hodges-Lehmann: every x - y is 3. */
	CHECK_NEAR(dist_shift(hi, 3, lo, 3), 3, 0);

	/* Holm: 0.001 and 0.02 of 3 at 0.05: 0.001 <= 0.05/3, 0.02 <= 0.05/2, 0.5 > 0.05. */
	{
		const double p[] = {0.02, 0.5, 0.001};
		unsigned char sig[3];
		dist_holm(p, 3, 0.05, sig);
		CHECK(sig[0] == 1 && sig[1] == 0 && sig[2] == 1);
		const double q[] = {0.04, 0.04};
		dist_holm(q, 2, 0.05, sig);
		CHECK(sig[0] == 0 && sig[1] == 0);
	}

	/*
	 * What a session sees of a pacer whose count is 20-23 (15 pinned runs): 3 runs cannot
	 * reach 0.01 / 12 (1/816 > 8.3e-4), 5 can; what they see is a few counts, not a third.
	 */
	{
		double a = 0.01 / 12;
		CHECK(isinf(dist_mde(base, 15, 3, 1, a, 0)));
		double m5 = dist_mde(base, 15, 5, 1, a, 0);
		CHECK(m5 > 0 && m5 < 7);
		/* A minimum effect beyond what the test needs decides. */
		CHECK_NEAR(dist_mde(base, 15, 5, 1, a, 10), 10, 1e-9);
		/* More runs see less; a shift the runs can see is caught at that many. */
		double m10 = dist_mde(base, 15, 10, 1, a, 0);
		CHECK(m10 <= m5);
		size_t need = dist_runs_to_see(base, 15, m10, 1, a, 0, 3, 40);
		CHECK(need >= 5 && need <= 10);
		CHECK(dist_mde(base, 15, need, 1, a, 0) <= m10);
		CHECK(dist_runs_to_see(base, 15, 0.01, 1, a, 0, 3, 40) == 0);
		/* The typical session moved by its MDE is judged beyond; a bit less is not. */
		double x[5];
		for (int i = 0; i < 5; i++)
			x[i] = base[i] + m5 + 1e-6; /* not the quantiles: only a sanity bound */
		CHECK(dist_p(x, 5, base, 15, 1) < 1);
		/* Downwards is the mirror image. */
		double neg[15];
		for (int i = 0; i < 15; i++)
			neg[i] = -base[i];
		CHECK_NEAR(dist_mde(neg, 15, 5, -1, a, 0), m5, 1e-9);
	}
	/*
	 * Far beyond: pinned 20-23 (range 3), so a run must pass 23 + 2 x 3 = 29 upwards, 20 - 6 =
	 * 14 downwards; every run must. The typical 3 runs (20.5, 21.5, 22.5 roughly) need a
	 * shift that puts the lowest past 29.
	 */
	{
		const double far[] = {30, 31, 35}, near[] = {30, 29, 35}, low[] = {13, 10, 13.5};
		CHECK(dist_far_beyond(far, 3, base, 15, 1));
		CHECK(!dist_far_beyond(near, 3, base, 15, 1));
		CHECK(dist_far_beyond(low, 3, base, 15, -1) &&
		      !dist_far_beyond(low, 3, base, 15, 1));
		double f = dist_far_mde(base, 15, 3, 1, 0);
		double q[1];
		CHECK(f > 0);
		/* The typical session moved by that much is far beyond; a little less is not. */
		q[0] = stats_quantile(base, 15, 0.5 / 3) + f + 1e-9;
		CHECK(q[0] > 29);
		/* A band beyond that decides: the shift must pass it too. */
		CHECK(dist_far_mde(base, 15, 3, 1, 100) >= 99);
		/* A pin whose runs never moved: any shift past the band is far beyond. */
		const double same[] = {7, 7, 7, 7};
		CHECK_NEAR(dist_far_mde(same, 4, 3, 1, 0.35), 0.35, 1e-9);
	}
	return unit_done("test_dist");
}
