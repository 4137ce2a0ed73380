/*
 * The pause figures' arithmetic (collectors/common/pausestats.c) on synthetic logs with known
 * answers, then on random logs against a brute-force oracle that tries every window start.
 * Random cases print their seed; `test_pausestats SEED` (or GCR_TEST_SEED=SEED) repeats one.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "pausestats.h"
#include "unit.h"
#include "util.h"

#define MS UINT64_C(1000000)

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

/* The most pause time in any window, trying every integer start: the breakpoints are integers. */
static uint64_t oracle_max_paused(const struct gcr_pause *p, size_t n, uint64_t s, uint64_t e,
                                  uint64_t w)
{
	uint64_t best = 0;

	if (w > e - s)
		w = e - s;
	for (uint64_t t = s; t + w <= e; t++) {
		uint64_t paused = 0;

		for (size_t i = 0; i < n; i++) {
			uint64_t lo = p[i].start_ns > t ? p[i].start_ns : t;
			uint64_t hi = p[i].end_ns < t + w ? p[i].end_ns : t + w;

			paused += hi > lo ? hi - lo : 0;
		}
		best = paused > best ? paused : best;
	}
	return best;
}

static void test_known(void)
{
	/* One 5 ms pause in a 100 ms run. */
	const struct gcr_pause one[] = {{40 * MS, 45 * MS, 5 * MS}};
	/* Two 2 ms pauses 1 ms apart, at the very start of a 50 ms run. */
	const struct gcr_pause two[] = {{0, 2 * MS, 0}, {3 * MS, 5 * MS, 0}};

	CHECK_NEAR(gcr_mmu(one, 1, 0, 100 * MS, 10 * MS), 0.5, 1e-12);
	CHECK_NEAR(gcr_mmu(one, 1, 0, 100 * MS, 5 * MS), 0, 0);
	CHECK_NEAR(gcr_mmu(one, 1, 0, 100 * MS, 1 * MS), 0, 0);
	CHECK_NEAR(gcr_mmu(one, 1, 0, 100 * MS, 100 * MS), 0.95, 1e-12);
	/* A window longer than the run is the run. */
	CHECK_NEAR(gcr_mmu(one, 1, 0, 100 * MS, 200 * MS), 0.95, 1e-12);
	CHECK_NEAR(gcr_mmu(one, 1, 0, 100 * MS, 20 * MS), 0.75, 1e-12);

	/* 5 ms covers both (4 ms paused); 4 ms can hold 3 of them (2 + 1 of the next). */
	CHECK(gcr_mmu_max_paused_ns(two, 2, 0, 50 * MS, 5 * MS) == 4 * MS);
	CHECK(gcr_mmu_max_paused_ns(two, 2, 0, 50 * MS, 4 * MS) == 3 * MS);
	CHECK_NEAR(gcr_mmu(two, 2, 0, 50 * MS, 10 * MS), 0.6, 1e-12);
	/* No pause: the mutator kept every window. */
	CHECK_NEAR(gcr_mmu(NULL, 0, 0, 50 * MS, 10 * MS), 1, 0);
	/* An empty span has nothing to lose. */
	CHECK_NEAR(gcr_mmu(NULL, 0, 7, 7, 10 * MS), 1, 0);
	/* A pause at the very end of the run, where a window cannot start. */
	{
		const struct gcr_pause end[] = {{98 * MS, 100 * MS, 0}};

		CHECK_NEAR(gcr_mmu(end, 1, 0, 100 * MS, 10 * MS), 0.8, 1e-12);
	}
}

static void test_check(void)
{
	const struct gcr_pause ok[] = {{10, 20, 5}, {20, 30, 5}};
	const struct gcr_pause overlap[] = {{10, 20, 5}, {19, 30, 5}};
	const struct gcr_pause backwards[] = {{10, 20, 5}, {25, 24, 0}};
	size_t bad = 99;

	CHECK(gcr_pause_intervals_check(ok, 2, 0, 30, &bad) == 0);
	CHECK(gcr_pause_intervals_check(overlap, 2, 0, 30, &bad) == -1 && bad == 1);
	CHECK(gcr_pause_intervals_check(backwards, 2, 0, 30, &bad) == -1 && bad == 1);
	/* Outside the span, at either end. */
	CHECK(gcr_pause_intervals_check(ok, 2, 11, 30, &bad) == -1 && bad == 0);
	CHECK(gcr_pause_intervals_check(ok, 2, 0, 29, &bad) == -1 && bad == 1);
}

static void test_quantiles(void)
{
	uint64_t v[] = {50, 10, 40, 20, 30, 60, 70, 80, 90, 100};
	uint64_t one[] = {7};

	gcr_sort_u64(v, 10);
	CHECK(v[0] == 10 && v[9] == 100);
	/* Nearest rank: the median of ten is the fifth, p90 the ninth, p99 and max the tenth. */
	CHECK(gcr_quantile_sorted(v, 10, 5000) == 50);
	CHECK(gcr_quantile_sorted(v, 10, 9000) == 90);
	CHECK(gcr_quantile_sorted(v, 10, 9900) == 100);
	CHECK(gcr_quantile_sorted(v, 10, 10000) == 100);
	CHECK(gcr_quantile_sorted(v, 10, 1) == 10);
	CHECK(gcr_quantile_sorted(one, 1, 9990) == 7);
}

static void test_random(uint64_t seed)
{
	struct gcr_pause p[12];
	int mismatches = 0;

	rng_state = seed;
	for (int round = 0; round < 400; round++) {
		uint64_t s = rng_next() % 50, t = s, e;
		size_t n = (size_t)(rng_next() % 12);
		uint64_t w;

		for (size_t i = 0; i < n; i++) {
			t += rng_next() % 20; /* gaps of 0 are back-to-back pauses */
			p[i].start_ns = t;
			t += rng_next() % 15;
			p[i].end_ns = t;
			p[i].cpu_ns = 0;
		}
		e = t + rng_next() % 20;
		w = 1 + rng_next() % (e - s + 10);
		{
			size_t bad;
			uint64_t got = gcr_mmu_max_paused_ns(p, n, s, e, w);
			uint64_t want = oracle_max_paused(p, n, s, e, w);

			CHECK(gcr_pause_intervals_check(p, n, s, e, &bad) == 0);
			if (got != want && mismatches++ < 5)
				fprintf(stderr,
				        "seed %" PRIu64 " round %d: %zu pauses in [%" PRIu64
				        ", %" PRIu64 "], window %" PRIu64 ": got %" PRIu64
				        ", oracle %" PRIu64 "\n",
				        seed, round, n, s, e, w, got, want);
			CHECK(got == want);
		}
	}
}

int main(int argc, char **argv)
{
	const char *env = getenv("GCR_TEST_SEED");
	uint64_t seed = argc > 1      ? strtoull(argv[1], NULL, 10)
	                : env && *env ? strtoull(env, NULL, 10)
	                              : (uint64_t)time(NULL);

	printf("test_pausestats: seed %" PRIu64 " (repeat with: test_pausestats %" PRIu64 ")\n",
	       seed, seed);
	test_known();
	test_check();
	test_quantiles();
	test_random(seed);
	return unit_done("test_pausestats");
}
