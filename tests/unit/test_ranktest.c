/*
 * test_ranktest: the rank-sum test against answers worked by hand and against brute-force
 * enumeration of every split, Holm's step-down, Tarone's count and the smallest shift.
 * Randomised parts print their seed; GCR_TEST_SEED gives it back.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ranktest.h"
#include "unit.h"
#include "util.h"

static uint64_t rng_state;

UTIL_WRAPS_ON_PURPOSE
static double rng_unit(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Every split of the pooled values into nx and ny: the two-sided p and the smallest, by hand. */
static void brute(const double *x, size_t nx, const double *y, size_t ny, double *p, double *minp)
{
	size_t n = nx + ny;
	double pooled[16], rank[16], w = 0, ge = 0, le = 0, all = 0;
	double *ws = malloc(sizeof *ws << n);
	size_t nw = 0;

	for (size_t i = 0; i < nx; i++)
		pooled[i] = x[i];
	for (size_t i = 0; i < ny; i++)
		pooled[nx + i] = y[i];
	for (size_t i = 0; i < n; i++) {
		double below = 0, same = 0;
		for (size_t j = 0; j < n; j++) {
			below += pooled[j] < pooled[i];
			same += pooled[j] == pooled[i];
		}
		rank[i] = below + (same + 1) / 2;
	}
	for (size_t i = nx; i < n; i++)
		w += rank[i];
	for (unsigned mask = 0; mask < 1u << n; mask++) {
		double s = 0;
		if ((size_t)__builtin_popcount(mask) != ny)
			continue;
		for (size_t i = 0; i < n; i++)
			if (mask & 1u << i)
				s += rank[i];
		ws[nw++] = s;
		all++;
		ge += s >= w - 1e-9;
		le += s <= w + 1e-9;
	}
	*p = fmin(1, 2 * fmin(ge, le) / all);
	*minp = 1;
	for (size_t k = 0; k < nw; k++) {
		double g = 0, l = 0;
		for (size_t j = 0; j < nw; j++) {
			g += ws[j] >= ws[k] - 1e-9;
			l += ws[j] <= ws[k] + 1e-9;
		}
		*minp = fmin(*minp, fmin(1, 2 * fmin(g, l) / all));
	}
	free(ws);
}

static void test_by_hand(void)
{
	const double base[] = {11, 11, 11, 11, 12}, twice[] = {20, 22, 24, 21, 23};
	const double same[] = {7, 7, 7, 7, 7};
	struct ranktest t;

	/* Complete separation of 5 and 5: 2 of C(10, 5) = 252 splits are as extreme. */
	ranktest_sum(base, 5, twice, 5, &t);
	CHECK(t.exact);
	CHECK_NEAR(t.w, 40, 1e-12);
	CHECK_NEAR(t.p_greater, 1.0 / 252, 1e-12);
	CHECK_NEAR(t.p_two_sided, 2.0 / 252, 1e-12);
	CHECK_NEAR(t.min_p, 2.0 / 252, 1e-12);
	ranktest_sum(twice, 5, base, 5, &t);
	CHECK_NEAR(t.p_less, 1.0 / 252, 1e-12);
	/* All tied: nothing can be told, whichever way the values are split. */
	ranktest_sum(same, 5, same, 5, &t);
	CHECK_NEAR(t.p_two_sided, 1, 1e-12);
	CHECK_NEAR(t.min_p, 1, 1e-12);
	/* Constant arms that differ: still complete separation, ties within each arm. */
	ranktest_sum(same, 5, base, 5, &t);
	CHECK_NEAR(t.p_two_sided, 2.0 / 252, 1e-12);
	/* 4 a side: 2/70; 3 a side: 2/20, never below 0.05. */
	ranktest_sum(base, 4, twice, 4, &t);
	CHECK_NEAR(t.p_two_sided, 2.0 / 70, 1e-12);
	ranktest_sum(base, 3, twice, 3, &t);
	CHECK_NEAR(t.min_p, 0.1, 1e-12);
	ranktest_sum(base, 0, twice, 3, &t);
	CHECK(t.p_two_sided == 1);
}

static void test_brute_force(uint64_t seed)
{
	rng_state = seed;
	for (int k = 0; k < 300; k++) {
		double x[8], y[8], p, minp;
		size_t nx = 1 + (size_t)(rng_unit() * 6), ny = 1 + (size_t)(rng_unit() * 6);
		struct ranktest t;
		/* Few distinct values: ties within and across the arms. */
		for (size_t i = 0; i < nx; i++)
			x[i] = floor(rng_unit() * 5);
		for (size_t i = 0; i < ny; i++)
			y[i] = floor(rng_unit() * 5 + rng_unit() * 2);
		ranktest_sum(x, nx, y, ny, &t);
		brute(x, nx, y, ny, &p, &minp);
		CHECK_NEAR(t.p_two_sided, p, 1e-9);
		CHECK_NEAR(t.min_p, minp, 1e-9);
	}
}

static void test_normal(void)
{
	double x[60], y[60];
	struct ranktest t;

	/* Above RANKTEST_EXACT_MAX values: the approximation, and complete separation is tiny. */
	for (int i = 0; i < 60; i++) {
		x[i] = i;
		y[i] = 100 + i;
	}
	ranktest_sum(x, 60, y, 60, &t);
	CHECK(!t.exact);
	CHECK(t.p_two_sided < 1e-15);
	ranktest_sum(x, 60, x, 60, &t);
	CHECK(t.p_two_sided > 0.9);
}

static void test_holm(void)
{
	const double p[] = {0.01, 0.04, 0.03, 0.005};
	double adj[4];
	int rej[4];

	/* Sorted 0.005 0.01 0.03 0.04: x4 0.02, x3 0.03, x2 0.06, x1 0.04 -> running max 0.06. */
	ranktest_holm(p, 4, 0.05, adj, rej);
	CHECK_NEAR(adj[3], 0.02, 1e-12);
	CHECK_NEAR(adj[0], 0.03, 1e-12);
	CHECK_NEAR(adj[2], 0.06, 1e-12);
	CHECK_NEAR(adj[1], 0.06, 1e-12);
	CHECK(rej[3] && rej[0] && !rej[2] && !rej[1]);
}

static void test_tarone(void)
{
	/* Two cells can reach 0.0079; eight cannot go below 1: only the two are counted. */
	const double minp[] = {1, 2.0 / 252, 1, 1, 2.0 / 252, 1, 1, 1, 1, 1};

	CHECK(ranktest_tarone(minp, 10, 0.05) == 2);
	CHECK(ranktest_tarone(minp, 0, 0.05) == 0);
}

static void test_min_shift(void)
{
	const double base[] = {11, 11, 11, 11, 12}, flat[] = {5, 5, 5, 5, 5};
	double s;

	/* At 5 a side only complete separation reaches 0.01: a move beyond the range. */
	CHECK(ranktest_min_shift(base, 5, 0.01, &s) == 0);
	CHECK_NEAR(s, 1, 1e-12);
	CHECK(ranktest_min_shift(flat, 5, 0.01, &s) == 0);
	CHECK_NEAR(s, 0, 1e-12);
	/* No move at all reaches 0.005 with 5 a side. */
	CHECK(ranktest_min_shift(base, 5, 0.005, &s) == -1);
	CHECK(ranktest_rounds_needed(0.01) == 5);
	CHECK(ranktest_rounds_needed(0.005) == 6);
	CHECK(ranktest_rounds_needed(0.05) == 4);
}

int main(void)
{
	const char *env = getenv("GCR_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 10) : 20260401;

	printf("test_ranktest: seed %llu (GCR_TEST_SEED)\n", (unsigned long long)seed);
	test_by_hand();
	test_brute_force(seed);
	test_normal();
	test_holm();
	test_tarone();
	test_min_shift();
	return unit_done("test_ranktest");
}
