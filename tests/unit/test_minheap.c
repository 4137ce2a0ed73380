/*
 * The minimum-heap search on synthetic oracles with known answers: a threshold (a
 * deterministic collector), a threshold that sometimes fails just above it (a conservative
 * collector under ASLR), broken runs and a failing harness. A randomised sweep over
 * thresholds, guesses and bounds prints its seed; `test_minheap SEED` repeats it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "minheap.h"
#include "unit.h"

struct oracle {
	uint64_t need_mb;  /* fits iff limit >= need_mb */
	uint64_t flaky_mb; /* limits in [need_mb, flaky_mb) fail every flaky_every-th call */
	unsigned flaky_every, flaky_calls;
	uint64_t broken_mb; /* limits below this are broken (0: none) */
	int fail_after;     /* the harness fails on this call (0: never) */
	unsigned calls;
	uint64_t tried_min, tried_max;
};

static int oracle_run(void *ctx, uint64_t mb, enum minheap_verdict *v, char *detail,
                      size_t detail_size, struct err *e)
{
	struct oracle *o = ctx;

	o->calls++;
	if (o->calls == 1 || mb < o->tried_min)
		o->tried_min = mb;
	if (mb > o->tried_max)
		o->tried_max = mb;
	if (o->fail_after && (int)o->calls == o->fail_after)
		return err_set(e, "the launcher went away");
	if (mb < o->broken_mb) {
		*v = MINHEAP_BROKEN;
		snprintf(detail, detail_size, "crashed (SIGSEGV) at %llu MiB",
		         (unsigned long long)mb);
		return 0;
	}
	*v = mb >= o->need_mb ? MINHEAP_FITS : MINHEAP_EXHAUSTED;
	if (*v == MINHEAP_FITS && mb < o->flaky_mb && ++o->flaky_calls % o->flaky_every == 0)
		*v = MINHEAP_EXHAUSTED;
	return 0;
}

UTIL_WRAPS_ON_PURPOSE
static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A threshold oracle: the answer is within one granule above the threshold, never below. */
static void check_threshold(uint64_t need, uint64_t guess, uint64_t max, unsigned frac)
{
	struct oracle o = {.need_mb = need};
	struct minheap_params p = {guess, max, frac, 1};
	struct minheap_result r;
	struct err e = ERR_INIT;

	CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == 0);
	CHECK(o.tried_min >= 1 && o.tried_max <= max);
	CHECK(r.runs == o.calls);
	if (need > max) {
		CHECK(r.outcome == MINHEAP_NEVER_FITS);
		CHECK(r.lo_mb == max);
		return;
	}
	CHECK(r.outcome == MINHEAP_FOUND);
	CHECK(r.min_mb >= need);
	CHECK(r.min_mb - r.lo_mb <= r.step_mb);
	CHECK(r.lo_mb < need);
	CHECK(r.step_mb == (r.min_mb / frac ? r.min_mb / frac : 1));
	if (r.min_mb < need || r.min_mb - r.lo_mb > r.step_mb)
		fprintf(stderr,
		        "  need %llu guess %llu max %llu frac %u: min %llu lo %llu step %llu\n",
		        (unsigned long long)need, (unsigned long long)guess,
		        (unsigned long long)max, frac, (unsigned long long)r.min_mb,
		        (unsigned long long)r.lo_mb, (unsigned long long)r.step_mb);
}

int main(int argc, char **argv)
{
	const char *env = getenv("GCR_TEST_SEED");
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10)
	                : env    ? strtoull(env, NULL, 10)
	                         : (uint64_t)time(NULL);
	uint64_t state;
	struct minheap_params p;
	struct minheap_result r;
	struct err e = ERR_INIT;

	printf("test_minheap: seed %llu (repeat with: test_minheap %llu)\n",
	       (unsigned long long)seed, (unsigned long long)seed);

	/* Exact below 64 MiB with frac 64: the granule is 1 MiB, the answer is the threshold. */
	{
		struct oracle o = {.need_mb = 37};

		p = (struct minheap_params){40, 1 << 20, 64, 1};
		CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == 0);
		CHECK(r.outcome == MINHEAP_FOUND && r.min_mb == 37 && r.lo_mb == 36);
		CHECK(r.step_mb == 1);
		CHECK_STR(minheap_outcome_name(r.outcome), "found");
	}
	/* A guess below the answer doubles up; the bracket's failures bound it from below. */
	{
		struct oracle o = {.need_mb = 37};

		p = (struct minheap_params){3, 1 << 20, 64, 1};
		CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == 0);
		CHECK(r.outcome == MINHEAP_FOUND && r.min_mb == 37);
	}
	/* A large heap: the granule is 1/64 of the bound, so the answer may be a granule high. */
	{
		struct oracle o = {.need_mb = 1000};

		p = (struct minheap_params){1500, 1 << 20, 64, 1};
		CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == 0);
		CHECK(r.outcome == MINHEAP_FOUND && r.min_mb >= 1000 && r.min_mb <= 1000 + 15);
		CHECK(r.step_mb == r.min_mb / 64);
	}
	/* 1 MiB fits: the smallest limit there is. */
	{
		struct oracle o = {.need_mb = 1};

		p = (struct minheap_params){0, 1 << 20, 64, 3};
		CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == 0);
		CHECK(r.outcome == MINHEAP_FOUND && r.min_mb == 1 && r.lo_mb == 0);
		/* Confirmed three times at the answer. */
		CHECK(r.runs == 3);
	}
	/* Nothing up to max fits. */
	{
		struct oracle o = {.need_mb = 500};

		p = (struct minheap_params){10, 100, 64, 3};
		CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == 0);
		CHECK(r.outcome == MINHEAP_NEVER_FITS && r.lo_mb == 100);
		CHECK_STR(minheap_outcome_name(r.outcome), "never_fits");
	}
	/*
	 * Not deterministic: limits 37 to 39 fail on every second call. One run at 37 fits, its
	 * repeat does not, so the answer climbs until three runs in a row fit: 40, the largest.
	 */
	{
		struct oracle o = {.need_mb = 37, .flaky_mb = 40, .flaky_every = 2};

		p = (struct minheap_params){40, 1 << 20, 64, 3};
		CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == 0);
		CHECK(r.outcome == MINHEAP_FOUND && r.min_mb == 40);
		CHECK(r.unsteady >= 1);
	}
	/* With one repeat the same oracle's lucky first run is the answer: repeats matter. */
	{
		struct oracle o = {.need_mb = 37, .flaky_mb = 40, .flaky_every = 2};

		p = (struct minheap_params){40, 1 << 20, 64, 1};
		CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == 0);
		CHECK(r.outcome == MINHEAP_FOUND && r.min_mb < 40);
	}
	/* A broken run ends the search with its description and limit. */
	{
		struct oracle o = {.need_mb = 37, .broken_mb = 30};

		p = (struct minheap_params){40, 1 << 20, 64, 1};
		CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == 0);
		CHECK(r.outcome == MINHEAP_FAILED && r.limit_mb < 30);
		CHECK(strstr(r.detail, "SIGSEGV") != NULL);
		CHECK_STR(minheap_outcome_name(r.outcome), "failed");
	}
	/* The harness failing is an error, not an outcome. */
	{
		struct oracle o = {.need_mb = 37, .fail_after = 3};

		p = (struct minheap_params){40, 1 << 20, 64, 1};
		CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == -1);
		CHECK(strstr(e.msg, "launcher") != NULL);
	}
	/* Parameters out of range. */
	{
		struct oracle o = {.need_mb = 1};

		p = (struct minheap_params){1, 0, 64, 1};
		CHECK(minheap_search(&p, oracle_run, &o, &r, &e) == -1 && e.code == ERR_INVALID);
		CHECK(o.calls == 0);
	}
	/* Random thresholds, guesses, bounds and fractions. */
	state = seed;
	for (int i = 0; i < 2000; i++) {
		uint64_t max = 1 + splitmix(&state) % 5000;
		uint64_t need = 1 + splitmix(&state) % (max + max / 4 + 1);
		uint64_t guess = splitmix(&state) % (2 * max + 1);
		unsigned frac = 1 + (unsigned)(splitmix(&state) % 128);

		check_threshold(need, guess, max, frac);
	}
	return unit_done("test_minheap");
}
