/*
 * The bisect search on synthetic histories with known answers: the narrowing (steps about
 * log2 of the candidates, skips, an answer that skips leave ambiguous), the exact decisions
 * against the ends, and the paired ones on seeded noisy figures (a large move found, none
 * found where there is none, "cannot tell" where the noise hides a move). The randomised
 * parts print their seed; `test_bisect SEED` repeats them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bisect.h"
#include "unit.h"

UTIL_WRAPS_ON_PURPOSE
static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
	return (double)(splitmix(s) >> 11) / 9007199254740992.0;
}

/* A standard normal deviate (Box-Muller). */
static double gauss(uint64_t *s)
{
	double u = uniform(s), v = uniform(s);

	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/*
 * Runs a search over n commits whose first bad one is `plant`, with the commits in `broken`
 * (a 0/1 array, or NULL) skipped when picked; returns the measurements made.
 */
static unsigned run_search(size_t n, size_t plant, const int *broken, struct bisect_state *st)
{
	struct bisect_search s;
	unsigned steps = 0;
	size_t next;

	bisect_search_init(&s, n);
	while (bisect_search_next(&s, &next)) {
		enum bisect_mark m = broken && broken[next] ? BISECT_SKIP
		                     : next >= plant        ? BISECT_BAD
		                                            : BISECT_GOOD;
		CHECK(next > 0 && next < n - 1);
		CHECK(s.marks[next] == BISECT_UNTESTED);
		bisect_search_mark(&s, next, m);
		steps++;
		if (steps > n)
			break;
	}
	bisect_search_state(&s, st);
	bisect_search_release(&s);
	return steps;
}

static unsigned log2_ceil(size_t k)
{
	unsigned r = 0;

	while (((size_t)1 << r) < k)
		r++;
	return r;
}

static void test_narrowing(void)
{
	struct bisect_search s;
	struct bisect_state st;
	size_t next;

	/* Sixteen commits, the change at commit 11 (index 10): four steps, as the issue asks. */
	CHECK(run_search(16, 10, NULL, &st) == 4);
	CHECK(st.found && st.hi == 10 && st.lo == 9);

	/* The plan before anything is measured: 14 commits between the ends, roughly 4 steps. */
	bisect_search_init(&s, 16);
	bisect_search_state(&s, &st);
	CHECK(st.lo == 0 && st.hi == 15 && st.untested == 14 && st.steps == 4 && !st.done);
	/* The first pick halves the range; after a good one, the upper half's middle. */
	CHECK(bisect_search_next(&s, &next) && next == 7);
	bisect_search_mark(&s, 7, BISECT_GOOD);
	CHECK(bisect_search_next(&s, &next) && next == 11);
	/* The ends never change. */
	bisect_search_mark(&s, 0, BISECT_BAD);
	bisect_search_mark(&s, 15, BISECT_GOOD);
	CHECK(s.marks[0] == BISECT_GOOD && s.marks[15] == BISECT_BAD);
	bisect_search_release(&s);

	/* Two commits: nothing between, the bad end is the answer with no step. */
	CHECK(run_search(2, 1, NULL, &st) == 0);
	CHECK(st.found && st.hi == 1 && st.lo == 0 && st.steps == 0);
	/* Three: one step. */
	CHECK(run_search(3, 1, NULL, &st) == 1 && st.found && st.hi == 1);
	CHECK(run_search(3, 2, NULL, &st) == 1 && st.found && st.hi == 2);

	/* Every plant in every length up to 70: found, in at most ceil(log2(n - 1)) steps. */
	for (size_t n = 2; n <= 70; n++)
		for (size_t plant = 1; plant < n; plant++) {
			unsigned steps = run_search(n, plant, NULL, &st);
			CHECK(st.found && st.hi == plant);
			CHECK(steps <= log2_ceil(n - 1));
		}
}

static void test_skips(void)
{
	struct bisect_state st;
	struct bisect_search s;
	int broken[16] = {0};
	size_t next;

	/* Commit 8 (index 7) does not build: the first pick; its neighbour is taken instead. */
	broken[7] = 1;
	bisect_search_init(&s, 16);
	CHECK(bisect_search_next(&s, &next) && next == 7);
	bisect_search_mark(&s, 7, BISECT_SKIP);
	CHECK(bisect_search_next(&s, &next) && next == 6);
	bisect_search_release(&s);
	CHECK(run_search(16, 10, broken, &st) <= 5);
	CHECK(st.found && st.hi == 10);

	/* The commit just before the change is skipped: the answer is one of two. */
	memset(broken, 0, sizeof broken);
	broken[9] = 1;
	run_search(16, 10, broken, &st);
	CHECK(st.done && !st.found && st.hi == 10 && st.skipped == 1 && st.lo == 8);

	/* Everything between the ends skipped: done, not found, all of it the candidates. */
	for (size_t i = 0; i < 16; i++)
		broken[i] = 1;
	run_search(16, 10, broken, &st);
	CHECK(st.done && !st.found && st.lo == 0 && st.hi == 15 && st.skipped == 14);

	/* A good commit after the first bad one (a figure that moved back) does not move hi. */
	bisect_search_init(&s, 10);
	bisect_search_mark(&s, 3, BISECT_BAD);
	bisect_search_mark(&s, 6, BISECT_GOOD);
	bisect_search_mark(&s, 1, BISECT_GOOD);
	bisect_search_state(&s, &st);
	CHECK(st.hi == 3 && st.lo == 1 && st.untested == 1);
	CHECK(bisect_search_next(&s, &next) && next == 2);
	bisect_search_release(&s);
}

/*
 * Random histories with random broken commits: the answer is right whenever it is found, and
 * each skip costs its own measurement and at most one more (the pick beside it splits the
 * range a little off its middle).
 */
static void test_random_searches(uint64_t seed)
{
	uint64_t rng = seed;

	for (int trial = 0; trial < 2000; trial++) {
		size_t n = 2 + (size_t)(splitmix(&rng) % 200);
		size_t plant = 1 + (size_t)(splitmix(&rng) % (n - 1));
		int *broken = xcalloc(n, sizeof *broken);
		struct bisect_state st;
		size_t nbroken = 0;
		unsigned steps;

		for (size_t i = 1; i + 1 < n; i++)
			if (splitmix(&rng) % 10 == 0) {
				broken[i] = 1;
				nbroken++;
			}
		steps = run_search(n, plant, broken, &st);
		CHECK(st.done);
		CHECK(steps <= log2_ceil(n - 1) + 2 * nbroken);
		if (st.found) {
			CHECK(st.hi == plant);
		} else {
			/* The change is among the skipped commits before hi, or hi itself. */
			CHECK(plant > st.lo && plant <= st.hi && st.skipped > 0);
			for (size_t i = st.lo + 1; i < st.hi; i++)
				CHECK(broken[i]);
		}
		/* With the change and the commit before it both measured, the answer is found. */
		if (!broken[plant] && !broken[plant - 1])
			CHECK(st.found);
		free(broken);
	}
}

static void test_names(void)
{
	enum bisect_mark m;

	for (int i = BISECT_UNTESTED; i <= BISECT_SKIP; i++) {
		CHECK(bisect_mark_parse(bisect_mark_name((enum bisect_mark)i), &m) == 0);
		CHECK(m == (enum bisect_mark)i);
	}
	CHECK(bisect_mark_parse("maybe", &m) == -1);
	CHECK_STR(bisect_answer_name(BISECT_ANSWER_CANNOT_TELL), "cannot tell");
}

static void test_threshold(void)
{
	struct err e = ERR_INIT;
	double pct = -1, abs = -1;

	CHECK(bisect_threshold_parse("2%", &pct, &abs, &e) == 0 && pct == 2 && abs == 0);
	CHECK(bisect_threshold_parse("1000", &pct, &abs, &e) == 0 && pct == 0 && abs == 1000);
	CHECK(bisect_threshold_parse("0", &pct, &abs, &e) == 0 && pct == 0 && abs == 0);
	CHECK(bisect_threshold_parse("0.5%", &pct, &abs, &e) == 0 && pct == 0.5);
	static const char *const bad[] = {"",    "%",   "-1", "-2%",   "abc", "2%%",
	                                  "nan", "inf", " 1", "1e999", "2 %", "1x"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		CHECK(bisect_threshold_parse(bad[i], &pct, &abs, &e) == -1);
		CHECK(e.code == ERR_INVALID && strstr(e.msg, "--threshold"));
	}
	CHECK(bisect_threshold_parse(NULL, &pct, &abs, &e) == -1);
}

static void test_rules(void)
{
	struct bisect_rule r;
	struct err e = ERR_INIT;

	/* Ir: a cost, exact; shared_ci's band, 1% with a floor of 1000. */
	CHECK(bisect_rule_for("valgrind.ir", NULL, 0, &r, &e) == 0);
	CHECK(r.want == 1 && r.pct == 1 && r.abs == 1000 && r.pol.exact);
	CHECK(bisect_rule_for("valgrind.ir", NULL, 1, &r, &e) == 0 && r.want == -1);
	/* Wall time gates only on pinned_host: its band, 10% with a 2 ms floor. */
	CHECK(bisect_rule_for("time.wall_ns", NULL, 0, &r, &e) == 0);
	CHECK(r.pct == 10 && r.abs == 2e6 && !r.pol.exact);
	/* Higher is better: a regression is a fall. */
	CHECK(bisect_rule_for("census.mmu_10ms", NULL, 0, &r, &e) == 0 && r.want == -1);
	CHECK(bisect_rule_for("census.mmu_10ms", NULL, 1, &r, &e) == 0 && r.want == 1);
	/* No better side: either way, and never --improved. */
	CHECK(bisect_rule_for("census.freed_bytes", NULL, 0, &r, &e) == 0 && r.want == 0);
	CHECK(bisect_rule_for("census.freed_bytes", NULL, 1, &r, &e) == -1);
	CHECK(strstr(e.msg, "--improved") && strstr(e.msg, "census.freed_bytes"));
	/* A threshold given replaces the band. */
	CHECK(bisect_rule_for("census.minor_collections", "3", 0, &r, &e) == 0);
	CHECK(r.pct == 0 && r.abs == 3);
	CHECK(bisect_rule_for("census.minor_collections", "x", 0, &r, &e) == -1);
	CHECK(bisect_rule_for("valgrind.irr", NULL, 0, &r, &e) == -1);
	CHECK(e.code == ERR_INVALID && strstr(e.msg, "valgrind.irr"));
	/* Perf events are known by pattern. */
	CHECK(bisect_rule_for("perf.instructions:u", NULL, 0, &r, &e) == 0);

	/* The allowance: the largest of the percentage, the amount and the resolution. */
	CHECK(bisect_rule_for("valgrind.ir", NULL, 0, &r, &e) == 0);
	CHECK_NEAR(bisect_allowance(&r, 1e9), 1e7, 1e-3);
	CHECK_NEAR(bisect_allowance(&r, 5000), 1000, 1e-9);
	CHECK(bisect_rule_for("valgrind.ir", "0", 0, &r, &e) == 0);
	CHECK_NEAR(bisect_allowance(&r, 1e9), 1e4, 1e-6); /* resolution 1e-5 */
}

static void test_exact(void)
{
	struct bisect_rule r;
	struct bisect_ends ends;
	struct err e = ERR_INIT;
	double g[2] = {186327365, 186327365}, b[2] = {190426000, 190426000};
	double g1[1] = {186327365}, wobbly[2] = {186327365, 186329999};

	/* Ir +2.2% against a 1% band: repeats, moved up, the way a regression goes. */
	CHECK(bisect_rule_for("valgrind.ir", NULL, 0, &r, &e) == 0);
	bisect_ends_exact(&r, g, 2, b, 2, &ends);
	CHECK(ends.repeats && ends.moved && ends.sign == 1 && !ends.other_way);
	CHECK(bisect_decide_exact(&ends, 186327365) == BISECT_GOOD);
	CHECK(bisect_decide_exact(&ends, 190426000) == BISECT_BAD);
	/* Within the band above the good end: unmoved; beyond it, moved, if short of the bad end. */
	CHECK(bisect_decide_exact(&ends, 186327365 * 1.009) == BISECT_GOOD);
	CHECK(bisect_decide_exact(&ends, 186327365 * 1.011) == BISECT_BAD);
	/* Better than the good end is not the regression. */
	CHECK(bisect_decide_exact(&ends, 150000000) == BISECT_GOOD);
	/* One value per end, or an end that does not repeat (14 ppm apart): not exact. */
	bisect_ends_exact(&r, g1, 1, b, 2, &ends);
	CHECK(!ends.repeats && ends.moved);
	bisect_ends_exact(&r, wobbly, 2, b, 2, &ends);
	CHECK(!ends.repeats);
	/* Two instructions apart, as a probe formatting its own pause times makes them: that is
	 * within Ir's resolution (10 ppm), so it repeats. */
	wobbly[1] = 186327367;
	bisect_ends_exact(&r, wobbly, 2, b, 2, &ends);
	CHECK(ends.repeats && ends.moved);
	/* An improvement, looked for as a regression: it moved the other way. */
	bisect_ends_exact(&r, b, 2, g, 2, &ends);
	CHECK(!ends.moved && ends.other_way && ends.sign == -1);
	CHECK(bisect_rule_for("valgrind.ir", NULL, 1, &r, &e) == 0);
	bisect_ends_exact(&r, b, 2, g, 2, &ends);
	CHECK(ends.moved && ends.sign == -1);
	CHECK(bisect_decide_exact(&ends, 190426000) == BISECT_GOOD);
	CHECK(bisect_decide_exact(&ends, 186327365) == BISECT_BAD);
	/* Not moved at all. */
	bisect_ends_exact(&r, g, 2, g, 2, &ends);
	CHECK(!ends.moved && !ends.other_way && ends.sign == 0);

	/* A census counter, band 0: one more minor collection is a move. */
	double m0[2] = {0, 0}, m1[2] = {1, 1};
	CHECK(bisect_rule_for("census.minor_collections", NULL, 0, &r, &e) == 0);
	bisect_ends_exact(&r, m0, 2, m1, 2, &ends);
	CHECK(ends.repeats && ends.moved && ends.allowance == 0);
	CHECK(bisect_decide_exact(&ends, 0) == BISECT_GOOD);
	CHECK(bisect_decide_exact(&ends, 1) == BISECT_BAD);
	CHECK(bisect_decide_exact(&ends, 2) == BISECT_BAD);
	/* A counter has no resolution: 36 and 37 collections do not repeat. */
	double c36[2] = {36, 37};
	bisect_ends_exact(&r, c36, 2, m1, 2, &ends);
	CHECK(!ends.repeats);
	/* No better side: either way counts, and the step follows the ends' way. */
	double f0[2] = {1000, 1000}, f1[2] = {900, 900};
	CHECK(bisect_rule_for("census.freed_bytes", NULL, 0, &r, &e) == 0);
	bisect_ends_exact(&r, f0, 2, f1, 2, &ends);
	CHECK(ends.moved && ends.sign == -1);
	CHECK(bisect_decide_exact(&ends, 900) == BISECT_BAD);
	CHECK(bisect_decide_exact(&ends, 1100) == BISECT_GOOD);
}

/* n pairs: the good end around `base` and the commit around base * (1 + move), noise sd. */
static void noisy_pairs(uint64_t *rng, size_t n, double base, double move, double sd, double *g,
                        double *c)
{
	for (size_t i = 0; i < n; i++) {
		g[i] = base * (1 + sd * gauss(rng));
		c[i] = base * (1 + move) * (1 + sd * gauss(rng));
	}
}

static void test_paired(uint64_t seed)
{
	struct bisect_rule r;
	struct bisect_paired p;
	struct err e = ERR_INIT;
	uint64_t rng = seed;
	double g[60], c[60], alpha = bisect_look_alpha(6, 18, 1);
	int bad = 0, good = 0, unsure = 0, false_bad = 0;

	CHECK(bisect_rule_for("time.wall_ns", NULL, 0, &r, &e) == 0);
	/* A +40% wall-time plant with 2% noise: bad at the first look of six pairs. */
	for (int t = 0; t < 200; t++) {
		noisy_pairs(&rng, 6, 1e8, 0.40, 0.02, g, c);
		bisect_decide_paired(&r, 1, g, c, 6, alpha, 0, &p);
		bad += p.answer == BISECT_ANSWER_BAD;
	}
	CHECK(bad == 200);
	/* No change, 2% noise against a 10% band: good at the first look. */
	for (int t = 0; t < 200; t++) {
		noisy_pairs(&rng, 6, 1e8, 0, 0.02, g, c);
		bisect_decide_paired(&r, 1, g, c, 6, alpha, 0, &p);
		good += p.answer == BISECT_ANSWER_GOOD;
		false_bad += p.answer == BISECT_ANSWER_BAD;
	}
	CHECK(good >= 190 && false_bad == 0);
	/*
	 * A +15% plant under 40% noise: beyond the band, but far below what 18 rounds can show.
	 * At the budget it is "cannot tell" almost always, and never a confident "good".
	 */
	for (int t = 0; t < 200; t++) {
		noisy_pairs(&rng, 18, 1e8, 0.15, 0.40, g, c);
		bisect_decide_paired(&r, 1, g, c, 18, alpha, 1, &p);
		unsure += p.answer == BISECT_ANSWER_CANNOT_TELL;
		CHECK(p.answer != BISECT_ANSWER_MORE);
	}
	CHECK(unsure >= 150);
	/* Not the last look: more, never cannot tell. */
	noisy_pairs(&rng, 6, 1e8, 0.15, 0.40, g, c);
	bisect_decide_paired(&r, 1, g, c, 6, alpha, 0, &p);
	CHECK(p.answer == BISECT_ANSWER_MORE || p.answer == BISECT_ANSWER_BAD ||
	      p.answer == BISECT_ANSWER_GOOD);
	CHECK(p.answer != BISECT_ANSWER_CANNOT_TELL);
	/* Fewer than six pairs cannot be shown unmoved by the interval. */
	noisy_pairs(&rng, 3, 1e8, 0, 0.001, g, c);
	bisect_decide_paired(&r, 1, g, c, 3, alpha, 1, &p);
	CHECK(p.answer == BISECT_ANSWER_CANNOT_TELL);
	/* No pairs at all. */
	bisect_decide_paired(&r, 1, g, c, 0, alpha, 1, &p);
	CHECK(p.answer == BISECT_ANSWER_CANNOT_TELL);
	/* A move down, the way an improvement goes, found with sign -1. */
	noisy_pairs(&rng, 6, 1e8, -0.40, 0.02, g, c);
	bisect_decide_paired(&r, -1, g, c, 6, alpha, 0, &p);
	CHECK(p.answer == BISECT_ANSWER_BAD);
	bisect_decide_paired(&r, 1, g, c, 6, alpha, 0, &p);
	CHECK(p.answer == BISECT_ANSWER_GOOD);

	/* Each arm repeats itself: compared exactly, whatever the count of pairs. */
	for (int i = 0; i < 2; i++) {
		g[i] = 100;
		c[i] = 101;
	}
	CHECK(bisect_rule_for("census.major_collections", NULL, 0, &r, &e) == 0);
	bisect_decide_paired(&r, 1, g, c, 2, alpha, 0, &p);
	CHECK(p.cell.deterministic && p.answer == BISECT_ANSWER_BAD);
	c[0] = c[1] = 100;
	bisect_decide_paired(&r, 1, g, c, 2, alpha, 0, &p);
	CHECK(p.answer == BISECT_ANSWER_GOOD);

	/* An exact metric that does not repeat (bdwgc's Ir): by its spread, as ab judges it. */
	CHECK(bisect_rule_for("valgrind.ir", NULL, 0, &r, &e) == 0);
	noisy_pairs(&rng, 3, 1e9, 0.02, 0.0005, g, c);
	bisect_decide_paired(&r, 1, g, c, 3, alpha, 0, &p);
	CHECK(!p.cell.deterministic && p.answer == BISECT_ANSWER_BAD && isnan(p.p));
	noisy_pairs(&rng, 3, 1e9, 0, 0.0005, g, c);
	bisect_decide_paired(&r, 1, g, c, 3, alpha, 0, &p);
	CHECK(p.answer == BISECT_ANSWER_GOOD);
	/* Moved past the band, but within three spreads: neither. */
	g[0] = 1e9, g[1] = 1.01e9, g[2] = 0.995e9;
	c[0] = 1.012e9, c[1] = 1.0e9, c[2] = 1.02e9;
	bisect_decide_paired(&r, 1, g, c, 3, alpha, 1, &p);
	CHECK(p.answer == BISECT_ANSWER_CANNOT_TELL);
	/* Two runs a side are too few for the spread rule. */
	noisy_pairs(&rng, 2, 1e9, 0.02, 0.0005, g, c);
	bisect_decide_paired(&r, 1, g, c, 2, alpha, 1, &p);
	CHECK(p.answer == BISECT_ANSWER_CANNOT_TELL);
}

static void test_combine(void)
{
	enum bisect_answer a[3];

	a[0] = BISECT_ANSWER_GOOD, a[1] = BISECT_ANSWER_GOOD, a[2] = BISECT_ANSWER_GOOD;
	CHECK(bisect_combine(a, 3) == BISECT_ANSWER_GOOD);
	a[1] = BISECT_ANSWER_MORE;
	CHECK(bisect_combine(a, 3) == BISECT_ANSWER_MORE);
	a[2] = BISECT_ANSWER_BAD;
	CHECK(bisect_combine(a, 3) == BISECT_ANSWER_BAD);
	a[1] = BISECT_ANSWER_CANNOT_TELL, a[2] = BISECT_ANSWER_GOOD;
	CHECK(bisect_combine(a, 3) == BISECT_ANSWER_CANNOT_TELL);
	a[0] = BISECT_ANSWER_MORE;
	CHECK(bisect_combine(a, 3) == BISECT_ANSWER_MORE);
	CHECK(bisect_combine(a, 0) == BISECT_ANSWER_CANNOT_TELL);
}

static void test_levels(void)
{
	/* Three looks of six at one probe: each at 0.05 / 3, which six pairs one way pass. */
	CHECK_NEAR(bisect_look_alpha(6, 18, 1), 0.05 / 3, 1e-12);
	CHECK(ldexp(1, -6) < bisect_look_alpha(6, 18, 1));
	CHECK_NEAR(bisect_look_alpha(6, 19, 2), 0.05 / 8, 1e-12);
	CHECK_NEAR(bisect_look_alpha(6, 3, 1), 0.05, 1e-12);
	CHECK(bisect_default_rounds(1) == 6);
	CHECK(bisect_default_rounds(2) == 7);
	for (size_t k = 1; k <= 16; k++) {
		int n = bisect_default_rounds(k);
		CHECK(n >= PAIRED_MIN_PAIRS);
		CHECK(ldexp(1, -n) < bisect_look_alpha(n, 3 * n, k));
		CHECK(n == PAIRED_MIN_PAIRS ||
		      ldexp(1, -(n - 1)) >= bisect_look_alpha(n, 3 * n, k));
	}
}

/* Why a build failed: the compiler's diagnostic, even when a parallel build echoed more
 * commands (each with -Werror) after it; a link's undefined symbol; else the last line;
 * make's own lines never. */
static void test_log_reason(void)
{
	char parallel[] = "cc -Werror -c tinyms.c -o tinyms.o\n"
	                  "tinyms.c:12:5: error: expected ';' before 'return'\n"
	                  "cc -Wall -Werror -c heaplimit.c -o heaplimit.o\n"
	                  "make: *** [build.mk:40: tinyms.o] Error 1\n"
	                  "bisect-build: make failed\n";
	char linked[] = "cc -o probe probe.o -lgc\n"
	                "/usr/bin/ld: probe.o: undefined reference to `gc_alloc'\n"
	                "collect2: error: ld returned 1 exit status\n";
	char lld[] = "ld.lld: error: undefined symbol: gc_alloc\n"
	             ">>> referenced by probe.c:10\n"
	             "clang: error: linker command failed with exit code 1\n";
	char summary[] =
	    "clang: error: linker command failed with exit code 1\nbisect-build: failed\n";
	char plain[] = "configure: no libgc found\nmake: *** [all] Error 2\n";
	char scripts[] = "make: Entering directory '/x'\nbuild-rev: no such commit\n";
	char empty[] = "\n\n";
	char *r;

	r = bisect_log_reason(parallel);
	CHECK(r && strcmp(r, "tinyms.c:12:5: error: expected ';' before 'return'") == 0);
	/* A link failure names its symbol, not collect2's summary (GNU ld and lld). */
	r = bisect_log_reason(linked);
	CHECK(r && strcmp(r, "/usr/bin/ld: probe.o: undefined reference to `gc_alloc'") == 0);
	r = bisect_log_reason(lld);
	CHECK(r && strcmp(r, "ld.lld: error: undefined symbol: gc_alloc") == 0);
	r = bisect_log_reason(summary);
	CHECK(r && strcmp(r, "clang: error: linker command failed with exit code 1") == 0);
	r = bisect_log_reason(plain);
	CHECK(r && strcmp(r, "configure: no libgc found") == 0);
	r = bisect_log_reason(scripts);
	CHECK(r && strcmp(r, "build-rev: no such commit") == 0);
	CHECK(bisect_log_reason(empty) == NULL);
}

/*
 * The rules the verb applies between the decisions: when exact judging holds after the ends,
 * the side and level of a look that counts either way, the batches, a wrong result, a
 * step's mark from its answer, and git's "left after this" line.
 */
static void test_step_rules(void)
{
	struct bisect_ends ends[3];
	struct bisect_rule r;
	struct bisect_search s;
	struct err e = ERR_INIT;
	double g[6] = {1000, 1001, 999, 1000, 1002, 998}, down[6] = {900, 901, 899, 900, 902, 898};
	int sign = 0, rounds = 0, max_rounds = 0;
	size_t left = 0;

	/* Exact only when every probe repeated at both ends and no build says its census varies. */
	memset(ends, 0, sizeof ends);
	ends[0].repeats = ends[1].repeats = ends[2].repeats = 1;
	CHECK(bisect_exact_holds(ends, 3, 0) == 1);
	CHECK(bisect_exact_holds(ends, 3, 1) == 0);
	ends[2].repeats = 0;
	CHECK(bisect_exact_holds(ends, 3, 0) == 0);
	CHECK(bisect_exact_holds(ends, 2, 0) == 1);

	/* A rule with a side looks that way at the full level of the look... */
	CHECK(bisect_rule_for("valgrind.ir", NULL, 0, &r, &e) == 0);
	CHECK_NEAR(bisect_look_side(&r, 0.01, g, down, 6, &sign), 0.01, 1e-15);
	CHECK(sign == 1);
	CHECK(bisect_rule_for("valgrind.ir", NULL, 1, &r, &e) == 0);
	CHECK_NEAR(bisect_look_side(&r, 0.01, g, down, 6, &sign), 0.01, 1e-15);
	CHECK(sign == -1);
	/* ... and one that counts either way looks where the ends went, at half the level. */
	CHECK(bisect_rule_for("census.freed_bytes", NULL, 0, &r, &e) == 0);
	CHECK(r.want == 0);
	CHECK_NEAR(bisect_look_side(&r, 0.01, g, down, 6, &sign), 0.005, 1e-15);
	CHECK(sign == -1);
	CHECK_NEAR(bisect_look_side(&r, 0.01, down, g, 6, &sign), 0.005, 1e-15);
	CHECK(sign == 1);
	CHECK_NEAR(bisect_look_side(&r, 0.01, g, g, 6, &sign), 0.005, 1e-15);
	CHECK(sign == 1);

	/* The budget: the defaults, three batches, and never fewer rounds in all than a batch. */
	bisect_budget(0, 0, 0, 1, &rounds, &max_rounds);
	CHECK(rounds == bisect_default_rounds(1) && max_rounds == 3 * rounds);
	bisect_budget(0, 0, 1, 4, &rounds, &max_rounds);
	CHECK(rounds == PAIRED_SPREAD_MIN && max_rounds == 3 * PAIRED_SPREAD_MIN);
	bisect_budget(5, 0, 0, 1, &rounds, &max_rounds);
	CHECK(rounds == 5 && max_rounds == 15);
	bisect_budget(5, 2, 0, 1, &rounds, &max_rounds);
	CHECK(rounds == 5 && max_rounds == 5);
	bisect_budget(4, 10, 1, 1, &rounds, &max_rounds);
	CHECK(rounds == 4 && max_rounds == 10);
	CHECK(bisect_batch(6, 18, 0) == 6);
	CHECK(bisect_batch(6, 18, 12) == 6);
	CHECK(bisect_batch(6, 20, 18) == 2);

	/* A checksum neither end printed is a wrong result; with none to compare, nothing is. */
	CHECK(bisect_checksum_wrong("c", "a", "b") == 1);
	CHECK(bisect_checksum_wrong("a", "a", "b") == 0);
	CHECK(bisect_checksum_wrong("b", "a", "b") == 0);
	CHECK(bisect_checksum_wrong("b", NULL, "b") == 0);
	CHECK(bisect_checksum_wrong("c", NULL, "b") == 1);
	CHECK(bisect_checksum_wrong("c", NULL, NULL) == 0);
	CHECK(bisect_checksum_wrong(NULL, "a", "b") == 0);

	CHECK(bisect_answer_mark(BISECT_ANSWER_BAD) == BISECT_BAD);
	CHECK(bisect_answer_mark(BISECT_ANSWER_GOOD) == BISECT_GOOD);
	CHECK(bisect_answer_mark(BISECT_ANSWER_CANNOT_TELL) == BISECT_SKIP);
	CHECK(bisect_answer_mark(BISECT_ANSWER_MORE) == BISECT_SKIP);

	/* 11 commits, 9 between the ends: measuring the 5th leaves 4 on either side, which take
	 * ceil(log2(4 + 1)) = 3 steps (git's "Bisecting: 4 commits left to test after this
	 * (roughly 3 steps)"); the larger side counts, and a skipped commit is not untested. */
	bisect_search_init(&s, 11);
	CHECK(bisect_search_left(&s, 5, &left) == 3 && left == 4);
	bisect_search_mark(&s, 5, BISECT_GOOD);
	CHECK(bisect_search_left(&s, 7, &left) == 2 && left == 2);
	bisect_search_mark(&s, 6, BISECT_SKIP);
	CHECK(bisect_search_left(&s, 8, &left) == 1 && left == 1);
	bisect_search_mark(&s, 8, BISECT_BAD);
	CHECK(bisect_search_left(&s, 7, &left) == 0 && left == 0);
	bisect_search_release(&s);
}

/* A scan of figure fig[0..n-1] (exact: a stretch moved when its ends differ by more than 1),
 * commits broken[i] not measurable; returns the commits measured, the ends included. */
static size_t run_scan(size_t n, size_t segments, const double *fig, const int *broken,
                       struct bisect_scan *s)
{
	struct bisect_scan_plan plans[64];
	size_t k, measured = 2;

	bisect_scan_init(s, n, segments);
	s->link[n - 1] = fabs(fig[n - 1] - fig[0]) > 1 ? BISECT_LINK_MOVED : BISECT_LINK_SAME;
	while ((k = bisect_scan_next(s, plans, 64)) > 0) {
		CHECK(k == bisect_scan_pending(s));
		for (size_t j = 0; j < k; j++) {
			const struct bisect_scan_plan *p = &plans[j];
			CHECK(p->left < p->mid && p->mid < p->right && s->state[p->mid] == 0);
			CHECK(s->state[p->left] == 1 && s->state[p->right] == 1);
			if (broken && broken[p->mid]) {
				bisect_scan_skipped(s, p->mid);
				continue;
			}
			measured++;
			bisect_scan_measured(
			    s, p->mid,
			    fabs(fig[p->mid] - fig[p->left]) > 1 ? BISECT_LINK_MOVED
			                                         : BISECT_LINK_SAME,
			    fabs(fig[p->right] - fig[p->mid]) > 1 ? BISECT_LINK_MOVED
			                                          : BISECT_LINK_SAME);
		}
	}
	return measured;
}

static void test_scan(uint64_t seed)
{
	struct bisect_scan s;
	struct bisect_scan_find f[16];
	double fig[40];
	int broken[40] = {0};
	size_t measured, nf;

	/* Up at 5, down at 11, a small step up at 16, over 20 commits: all three, no other. */
	for (size_t i = 0; i < 20; i++)
		fig[i] = 100 + (i >= 5 ? 20 : 0) - (i >= 11 ? 15 : 0) + (i >= 16 ? 2 : 0);
	measured = run_scan(20, 4, fig, NULL, &s);
	nf = bisect_scan_found(&s, f, 16);
	CHECK(nf == 3);
	CHECK(f[0].hi == 5 && f[0].from == 4 && f[0].link == BISECT_LINK_MOVED);
	CHECK(f[1].hi == 11 && f[1].from == 10);
	CHECK(f[2].hi == 16 && f[2].from == 15);
	CHECK(measured < 20);
	CHECK(bisect_scan_count(&s, 1) == measured);
	bisect_scan_release(&s);

	/* A move and its reversal the ends do not show: the first pass still sees them. */
	for (size_t i = 0; i < 20; i++)
		fig[i] = 100 + (i >= 6 && i < 13 ? 10 : 0);
	run_scan(20, 4, fig, NULL, &s);
	nf = bisect_scan_found(&s, f, 16);
	CHECK(nf == 2 && f[0].hi == 6 && f[1].hi == 13);
	bisect_scan_release(&s);

	/* No move at all: the first pass only, then done. */
	for (size_t i = 0; i < 20; i++)
		fig[i] = 100;
	measured = run_scan(20, 4, fig, NULL, &s);
	CHECK(bisect_scan_found(&s, f, 16) == 0 && measured == 5);
	bisect_scan_release(&s);

	/* Every commit measured when asked (as many segments as stretches). */
	measured = run_scan(20, 19, fig, NULL, &s);
	CHECK(measured == 20);
	bisect_scan_release(&s);

	/* A change at a skipped commit: the stretch it cannot narrow, named. */
	for (size_t i = 0; i < 20; i++)
		fig[i] = 100 + (i >= 8 ? 5 : 0);
	broken[8] = broken[7] = 1;
	run_scan(20, 4, fig, broken, &s);
	nf = bisect_scan_found(&s, f, 16);
	CHECK(nf == 1 && f[0].from == 6 && f[0].hi == 9);
	CHECK(bisect_scan_count(&s, 2) == 2);
	bisect_scan_release(&s);

	/* Random figures with moves at least three commits apart: each found, in fewer
	 * measurements than commits when there are few of them. */
	for (int trial = 0; trial < 200; trial++) {
		size_t n = 12 + (size_t)(splitmix(&seed) % 28), moves = 0;
		size_t at[8];
		double v = 100;
		for (size_t i = 0; i < n; i++) {
			if (i > 0 && splitmix(&seed) % 9 == 0 &&
			    (!moves || i - at[moves - 1] >= 3) && moves < 8) {
				v += (splitmix(&seed) % 2 ? 1 : -1) *
				     (2 + (double)(splitmix(&seed) % 20));
				at[moves++] = i;
			}
			fig[i] = v;
		}
		measured = run_scan(n, 4, fig, NULL, &s);
		nf = bisect_scan_found(&s, f, 16);
		/* A move and its reversal within one first-pass stretch may hide: every find is a
		 * true move, and each move in a stretch whose ends differ is found. */
		for (size_t j = 0; j < nf && j < 16; j++) {
			int real = 0;
			for (size_t m = 0; m < moves; m++)
				real |= at[m] == f[j].hi;
			CHECK(real && f[j].from == f[j].hi - 1);
		}
		if (moves <= 1)
			CHECK(nf == moves);
		if (moves == 1 && n >= 16)
			CHECK(measured < n);
		bisect_scan_release(&s);
	}

	CHECK(strcmp(bisect_link_name(BISECT_LINK_CANNOT_TELL), "cannot tell") == 0);
	{
		enum bisect_link l;
		CHECK(bisect_link_parse("moved", &l) == 0 && l == BISECT_LINK_MOVED);
		CHECK(bisect_link_parse("nope", &l) == -1);
	}
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : (uint64_t)time(NULL);

	printf("test_bisect: seed %llu\n", (unsigned long long)seed);
	test_narrowing();
	test_skips();
	test_random_searches(seed);
	test_names();
	test_threshold();
	test_rules();
	test_exact();
	test_paired(seed);
	test_combine();
	test_levels();
	test_log_reason();
	test_step_rules();
	test_scan(seed);
	return unit_done("test_bisect");
}
