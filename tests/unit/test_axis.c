/*
 * test_axis.c — the plots' value axis (reports/axis.h) on ranges with known answers: steps of
 * 1, 2 or 5 x 10^k, the axis covering the data with a tick at each end, zero taken in for
 * counts and sizes, byte axes round in KiB/MiB/GiB, labels as short as the step allows, and a
 * randomised sweep of ranges (seed printed, GCR_TEST_SEED takes it back) for the invariants.
 */
#include <stdlib.h>
#include <time.h>

#include "axis.h"
#include "unit.h"

/* 1, 2 or 5 times a power of ten, within a rounding error. */
static int is_125(double step)
{
	double p = pow(10, floor(log10(step) + 1e-9)), m = step / p;

	return fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9;
}

static void check_axis(const struct report_axis *ax, double lo, double hi, int from_zero)
{
	CHECK(ax->nticks >= 2 && ax->nticks <= REPORT_AXIS_MAX_TICKS);
	CHECK(is_125(ax->step / ax->unit));
	CHECK(ax->lo <= fmin(lo, hi) + 1e-9 * fabs(ax->step));
	CHECK(ax->hi >= fmax(lo, hi) - 1e-9 * fabs(ax->step));
	CHECK(ax->ticks[0] == ax->lo);
	CHECK_NEAR(ax->ticks[ax->nticks - 1], ax->hi, 1e-9 * ax->step);
	/* No more than a step of room at either end (an empty range is widened first). */
	CHECK(lo == hi || ax->lo > fmin(lo, hi) - ax->step || (from_zero && ax->lo == 0));
	CHECK(lo == hi || ax->hi < fmax(lo, hi) + ax->step || (from_zero && ax->hi == 0));
	for (int i = 0; i < ax->nticks; i++) {
		/* Every tick is a whole multiple of the step, to the precision of a double. */
		double k = ax->ticks[i] / ax->step, tol = 1e-9 * fmax(1, fabs(k));
		CHECK_NEAR(k, round(k), tol);
		if (i)
			CHECK_NEAR((ax->ticks[i] - ax->ticks[i - 1]) / ax->step, 1, tol);
	}
	if (from_zero)
		CHECK(ax->lo <= 0 && ax->hi >= 0);
}

static void test_steps(void)
{
	static const struct {
		double raw, step;
	} cases[] = {
	    {1, 1},    {1.2, 1},     {1.5, 2},   {2, 2},         {2.9, 2},   {3, 5},       {4.9, 5},
	    {7.1, 10}, {0.03, 0.05}, {0.3, 0.5}, {0.1 * 3, 0.5}, {7e6, 1e7}, {1.5e8, 2e8}, {0, 1},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double got = report_axis_step(cases[i].raw);
		CHECK_NEAR(got, cases[i].step, cases[i].step * 1e-12);
		if (fabs(got - cases[i].step) > cases[i].step * 1e-12)
			fprintf(stderr, "  step(%g) = %g, expected %g\n", cases[i].raw, got,
			        cases[i].step);
	}
}

/* The labels of every tick, joined by spaces. */
static void labels(const struct report_axis *ax, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < ax->nticks && len < size; i++) {
		char l[48];
		report_axis_label(ax, ax->ticks[i], l, sizeof l);
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", l);
	}
}

static void test_known(void)
{
	struct report_axis ax;
	char text[512];

	/* The plot: three ticks at 349M/453M/557M; now from zero, in steps of 100M. */
	report_axis_nice(349e6, 557e6, 4, 1, REPORT_AXIS_COUNT, &ax);
	check_axis(&ax, 349e6, 557e6, 1);
	labels(&ax, text, sizeof text);
	CHECK_STR(text, "0 100M 200M 300M 400M 500M 600M");
	/* Not from zero, the same data: round ticks around it. */
	report_axis_nice(349e6, 557e6, 4, 0, REPORT_AXIS_COUNT, &ax);
	check_axis(&ax, 349e6, 557e6, 0);
	labels(&ax, text, sizeof text);
	CHECK_STR(text, "300M 350M 400M 450M 500M 550M 600M");
	/* Bytes: round in MiB, not in powers of ten of bytes. */
	report_axis_nice(40.2 * 1048576, 93.1 * 1048576, 4, 1, REPORT_AXIS_BYTES, &ax);
	check_axis(&ax, 40.2 * 1048576, 93.1 * 1048576, 1);
	labels(&ax, text, sizeof text);
	CHECK_STR(text, "0 20 MiB 40 MiB 60 MiB 80 MiB 100 MiB");
	report_axis_nice(0, 1.2 * 1048576, 4, 1, REPORT_AXIS_BYTES, &ax);
	labels(&ax, text, sizeof text);
	CHECK_STR(text, "0 0.5 MiB 1.0 MiB 1.5 MiB");
	/* Time: a wall-time axis keeps its range (no zero), in ms. */
	report_axis_nice(71.3e6, 78.9e6, 4, 0, REPORT_AXIS_NS, &ax);
	check_axis(&ax, 71.3e6, 78.9e6, 0);
	labels(&ax, text, sizeof text);
	CHECK_STR(text, "70 ms 72 ms 74 ms 76 ms 78 ms 80 ms");
	/* A normalised sweep: 1.0 is on the axis, with one decimal. */
	report_axis_nice(0.92, 1.63, 4, 0, REPORT_AXIS_PLAIN, &ax);
	check_axis(&ax, 0.92, 1.63, 0);
	labels(&ax, text, sizeof text);
	CHECK_STR(text, "0.8 1.0 1.2 1.4 1.6 1.8");
	/* Percentages with a sign, around zero. */
	report_axis_nice(-3.1, 7.4, 4, 0, REPORT_AXIS_PCT, &ax);
	check_axis(&ax, -3.1, 7.4, 0);
	labels(&ax, text, sizeof text);
	CHECK_STR(text, "-4% -2% 0% +2% +4% +6% +8%");
	/* One value: a count from zero up to it, anything else around it. */
	report_axis_nice(1000, 1000, 4, 1, REPORT_AXIS_COUNT, &ax);
	check_axis(&ax, 1000, 1000, 1);
	labels(&ax, text, sizeof text);
	CHECK_STR(text, "0 200 400 600 800 1000");
	report_axis_nice(3, 3, 4, 0, REPORT_AXIS_PLAIN, &ax);
	check_axis(&ax, 3, 3, 0);
	CHECK(ax.lo < 3 && ax.hi > 3);
	report_axis_nice(0, 0, 4, 1, REPORT_AXIS_COUNT, &ax);
	check_axis(&ax, 0, 1, 1);
	/* Reversed and non-finite input. */
	report_axis_nice(10, 0, 4, 0, REPORT_AXIS_PLAIN, &ax);
	labels(&ax, text, sizeof text);
	CHECK_STR(text, "0 2 4 6 8 10");
	report_axis_nice(NAN, 1, 4, 0, REPORT_AXIS_PLAIN, &ax);
	CHECK(ax.lo == 0 && ax.hi == 1);
	/* A tiny span far from zero still gets few ticks, none repeated. */
	report_axis_nice(1e9, 1e9 + 3, 4, 0, REPORT_AXIS_PLAIN, &ax);
	check_axis(&ax, 1e9, 1e9 + 3, 0);
	CHECK(ax.nticks <= 6);
}

static void test_random(void)
{
	const char *env = getenv("GCR_TEST_SEED");
	unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);

	fprintf(stderr, "test_axis: seed %u (GCR_TEST_SEED=%u repeats it)\n", seed, seed);
	srand(seed);
	for (int i = 0; i < 20000; i++) {
		double mag = pow(10, rand() % 24 - 6);
		double a = (rand() / (double)RAND_MAX - 0.3) * mag;
		double b = a + rand() / (double)RAND_MAX * mag * pow(10, -(rand() % 5));
		int zero = rand() % 2, want = 2 + rand() % 8;
		enum report_axis_kind kind = (enum report_axis_kind)(rand() % 5);
		struct report_axis ax;

		int failed = unit_failed;

		report_axis_nice(a, b, want, zero, kind, &ax);
		check_axis(&ax, a, b, zero);
		if (unit_failed != failed)
			fprintf(stderr,
			        "  data %.17g to %.17g, want %d, from_zero %d, kind %d: axis %.17g "
			        "to %.17g step %.17g, %d ticks\n",
			        a, b, want, zero, (int)kind, ax.lo, ax.hi, ax.step, ax.nticks);
	}
}

int main(void)
{
	test_steps();
	test_known();
	test_random();
	return unit_done("test_axis");
}
