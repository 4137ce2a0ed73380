/* Statistics on synthetic data with known answers. */
#include "stats.h"
#include "unit.h"

int main(void)
{
	const double odd[] = {5, 1, 3};
	const double even[] = {4, 1, 3, 2};
	const double one[] = {7};
	const double outlier[] = {10, 10, 10, 10, 1000};
	const double ties[] = {2, 2, 2, 2};
	struct stats_summary s;

	CHECK_NEAR(stats_median(odd, 3), 3, 0);
	CHECK_NEAR(stats_median(even, 4), 2.5, 1e-12);
	CHECK_NEAR(stats_median(one, 1), 7, 0);
	/* The median ignores one wild run; that is why check uses it. */
	CHECK_NEAR(stats_median(outlier, 5), 10, 0);

	/* Type-7 quantiles, as numpy.quantile([1,2,3,4], q) gives. */
	CHECK_NEAR(stats_quantile(even, 4, 0.25), 1.75, 1e-12);
	CHECK_NEAR(stats_quantile(even, 4, 0.75), 3.25, 1e-12);
	CHECK_NEAR(stats_quantile(even, 4, 0), 1, 0);
	CHECK_NEAR(stats_quantile(even, 4, 1), 4, 0);

	/* The input is not reordered. */
	CHECK(even[0] == 4 && even[1] == 1 && even[2] == 3 && even[3] == 2);

	stats_summarize(outlier, 5, &s);
	CHECK(s.n == 5);
	CHECK_NEAR(s.min, 10, 0);
	CHECK_NEAR(s.max, 1000, 0);
	CHECK_NEAR(s.median, 10, 0);
	CHECK_NEAR(s.mad, 0, 0);
	CHECK_NEAR(stats_rel_spread(&s), 99, 1e-12);

	stats_summarize(odd, 3, &s);
	/* |1-3|, |3-3|, |5-3| = 2, 0, 2: median 2. */
	CHECK_NEAR(s.mad, 2, 0);
	CHECK_NEAR(s.q1, 2, 1e-12);
	CHECK_NEAR(s.q3, 4, 1e-12);

	stats_summarize(ties, 4, &s);
	CHECK_NEAR(stats_rel_spread(&s), 0, 0);

	return unit_done("test_stats");
}
