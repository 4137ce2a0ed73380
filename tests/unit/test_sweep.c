/*
 * The arithmetic of a heap-size sweep on synthetic tables with known answers: factor lists,
 * heap limits, normalisation to the best at the largest heap (with the fallback when nobody
 * fitted there), the lower bound without GC work (GC time subtracted, a point that counted no
 * collection as is, whatever its build is called, GC time above the cost ignored), the lower-bound overhead and the geometric means over probes
 * (missing wherever a probe is).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"
#include "unit.h"

static void set(struct sweep_table *t, size_t p, size_t b, size_t f, double wall, double user,
                double gc)
{
	struct sweep_point *pt = sweep_point_at(t, p, b, f);

	pt->runs = pt->ok = 1;
	pt->value[SWEEP_WALL] = wall;
	pt->value[SWEEP_USER] = user;
	pt->gc_ns = gc;
	pt->collections = 3;
}

static void test_factors(void)
{
	double f[SWEEP_FACTORS_MAX];
	size_t n;
	struct err e;

	CHECK(sweep_parse_factors("--factors", "3,1.5,2", f, &n, &e) == 0);
	CHECK(n == 3 && f[0] == 1.5 && f[1] == 2 && f[2] == 3);
	CHECK(sweep_parse_factors("--factors", "1.25,1.5,2,3,4,6", f, &n, &e) == 0 && n == 6);
	CHECK(sweep_parse_factors("--factors", "1.5,2,1.5", f, &n, &e) == -1 && n == 0);
	CHECK(e.code == ERR_INVALID && strstr(e.msg, "twice") && strstr(e.msg, "--factors"));
	CHECK(sweep_parse_factors("--factors", "0.5", f, &n, &e) == -1);
	CHECK(strstr(e.msg, "\"0.5\"") != NULL);
	CHECK(sweep_parse_factors("--factors", "inf", f, &n, &e) == -1);
	CHECK(sweep_parse_factors("--factors", "nan", f, &n, &e) == -1);
	CHECK(sweep_parse_factors("--factors", "1e3", f, &n, &e) == -1);
	CHECK(sweep_parse_factors("--factors", "2,x", f, &n, &e) == -1);
	CHECK(sweep_parse_factors("--factors", "1001", f, &n, &e) == -1);
	CHECK(sweep_parse_factors("--factors", "", f, &n, &e) == -1);
	CHECK(sweep_parse_factors("--factors", "1,1000", f, &n, &e) == 0 && n == 2);

	CHECK(sweep_heap_mb(1.1, 10) == 11); /* not 12: 1.1 * 10 is 11.000000000000002 */
	CHECK(sweep_heap_mb(1.25, 13) == 17);
	CHECK(sweep_heap_mb(1.5, 1) == 2);
	CHECK(sweep_heap_mb(2, 13) == 26);
	CHECK(sweep_heap_mb(1, 0) == 1);
}

/*
 * Two probes, builds A, B and an epsilon E (no collection counted), factors 1.5 and 3.
 * Probe 0: A 200 (GC 80) and 150 (GC 30); B exhausted at 1.5, 100 (GC 50) at 3; E 90, 95.
 * Probe 1: A 40 at 1.5 (no census), not run at 3; E 30 at 1.5; nobody at 3.
 */
static void test_derive(void)
{
	struct sweep_table t;
	const double tol = 1e-12;

	sweep_table_init(&t, 2, 3, 2);
	t.factors[0] = 1.5;
	t.factors[1] = 3;
	set(&t, 0, 0, 0, 200, 190, 80);
	set(&t, 0, 0, 1, 150, 140, 30);
	sweep_point_at(&t, 0, 1, 0)->runs = sweep_point_at(&t, 0, 1, 0)->exhausted = 1;
	set(&t, 0, 1, 1, 100, 40, 50);
	set(&t, 0, 2, 0, 90, 88, NAN);
	set(&t, 0, 2, 1, 95, 93, NAN);
	set(&t, 1, 0, 0, 40, 39, NAN);
	set(&t, 1, 2, 0, 30, 29, NAN);
	sweep_point_at(&t, 0, 2, 0)->collections = sweep_point_at(&t, 0, 2, 1)->collections = 0;
	sweep_point_at(&t, 1, 2, 0)->collections = 0;
	sweep_derive(&t);

	/* Best at the largest heap; for probe 1 nobody ran at 3, so at 1.5. */
	CHECK_NEAR(t.best[0 * SWEEP_NMETRICS + SWEEP_WALL], 95, tol);
	CHECK_NEAR(t.best[1 * SWEEP_NMETRICS + SWEEP_WALL], 30, tol);
	CHECK(isnan(t.best[0 * SWEEP_NMETRICS + SWEEP_IR]));
	CHECK_NEAR(sweep_point_at(&t, 0, 0, 0)->norm[SWEEP_WALL], 200.0 / 95, tol);
	CHECK_NEAR(sweep_point_at(&t, 0, 2, 1)->norm[SWEEP_WALL], 1, tol);
	CHECK(isnan(sweep_point_at(&t, 0, 1, 0)->norm[SWEEP_WALL]));
	CHECK(isnan(sweep_point_at(&t, 0, 0, 0)->norm[SWEEP_IR]));

	/* Lower bound: wall min(120, 120, 50, 90, 95). */
	CHECK_NEAR(t.lower[0 * SWEEP_NLBO + SWEEP_WALL], 50, tol);
	CHECK_NEAR(sweep_point_at(&t, 0, 1, 1)->norm[SWEEP_USER], 1, tol);
	/* Probe 1: A reported no GC time, so only epsilon bounds it. */
	CHECK_NEAR(t.lower[1 * SWEEP_NLBO + SWEEP_WALL], 30, tol);
	CHECK_NEAR(sweep_point_at(&t, 0, 0, 0)->lbo[SWEEP_WALL], 4, tol);
	CHECK_NEAR(sweep_point_at(&t, 0, 1, 1)->lbo[SWEEP_WALL], 2, tol);
	CHECK_NEAR(sweep_point_at(&t, 0, 2, 0)->lbo[SWEEP_WALL], 1.8, tol);
	CHECK_NEAR(sweep_point_at(&t, 1, 0, 0)->lbo[SWEEP_WALL], 40.0 / 30, tol);
	CHECK(isnan(sweep_point_at(&t, 0, 1, 0)->lbo[SWEEP_WALL]));

	/* Geometric means: only where every probe has the figure. */
	CHECK_NEAR(t.geo[(0 * 2 + 0) * SWEEP_NMETRICS + SWEEP_WALL], sqrt(200.0 / 95 * 40.0 / 30),
	           1e-9);
	CHECK_NEAR(t.geo_lbo[(0 * 2 + 0) * SWEEP_NLBO + SWEEP_WALL], sqrt(4 * 40.0 / 30), 1e-9);
	CHECK_NEAR(t.geo[(2 * 2 + 0) * SWEEP_NMETRICS + SWEEP_WALL], sqrt(90.0 / 95 * 1), 1e-9);
	CHECK(isnan(t.geo[(0 * 2 + 1) * SWEEP_NMETRICS + SWEEP_WALL])); /* probe 1 not run */
	CHECK(isnan(t.geo[(1 * 2 + 0) * SWEEP_NMETRICS + SWEEP_WALL])); /* B exhausted */
	CHECK(t.geo_n[0 * 2 + 0] == 2 && t.geo_n[0 * 2 + 1] == 1 && t.geo_n[1 * 2 + 0] == 0);
	sweep_table_release(&t);

	/* A user time of 0 ns (under rusage's microsecond) is taken as 1 us: its ratios and the
	 * geometric mean over probes stay defined. */
	sweep_table_init(&t, 2, 1, 1);
	t.factors[0] = 2;
	set(&t, 0, 0, 0, 4000, 0, NAN);
	set(&t, 1, 0, 0, 9000, 8000, NAN);
	sweep_derive(&t);
	CHECK_NEAR(t.best[0 * SWEEP_NMETRICS + SWEEP_USER], SWEEP_CLOCK_RESOLUTION_NS, tol);
	CHECK_NEAR(sweep_point_at(&t, 0, 0, 0)->norm[SWEEP_USER], 1, tol);
	CHECK_NEAR(t.geo[0 * SWEEP_NMETRICS + SWEEP_USER], 1, tol);
	CHECK(sweep_point_at(&t, 0, 0, 0)->value[SWEEP_USER] == 0); /* the stored figure stays */
	sweep_table_release(&t);

	/* GC time above the cost bounds nothing (a clock that counted time preempted). */
	sweep_table_init(&t, 1, 2, 1);
	t.factors[0] = 2;
	set(&t, 0, 0, 0, 100, 90, 150);
	set(&t, 0, 1, 0, 100, 90, 20);
	sweep_derive(&t);
	CHECK_NEAR(t.lower[SWEEP_WALL], 80, tol);
	sweep_table_release(&t);

	/* A build that collected and reported no GC time bounds nothing; one that counted no
	 * collection bounds as is, whatever its name (jvm-epsilon); unknown counts do not. */
	sweep_table_init(&t, 1, 3, 1);
	t.factors[0] = 2;
	set(&t, 0, 0, 0, 90, 85, NAN);
	set(&t, 0, 1, 0, 70, 65, NAN);
	sweep_point_at(&t, 0, 1, 0)->collections = 0;
	set(&t, 0, 2, 0, 40, 35, NAN);
	sweep_point_at(&t, 0, 2, 0)->collections = NAN;
	sweep_derive(&t);
	CHECK_NEAR(t.lower[SWEEP_WALL], 70, tol);
	CHECK_NEAR(sweep_point_at(&t, 0, 0, 0)->lbo[SWEEP_WALL], 90.0 / 70, tol);
	sweep_table_release(&t);

	/* Nobody reported GC time and nothing went without collecting: no lower bound, no LBO. */
	sweep_table_init(&t, 1, 1, 1);
	t.factors[0] = 2;
	set(&t, 0, 0, 0, 10, 9, NAN);
	sweep_derive(&t);
	CHECK(isnan(t.lower[SWEEP_WALL]));
	CHECK(isnan(sweep_point_at(&t, 0, 0, 0)->lbo[SWEEP_WALL]));
	CHECK_NEAR(sweep_point_at(&t, 0, 0, 0)->norm[SWEEP_WALL], 1, tol);
	sweep_table_release(&t);
}

int main(void)
{
	test_factors();
	test_derive();
	return unit_done("test_sweep");
}
