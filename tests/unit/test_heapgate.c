/*
 * The min-heap ratchet's rule (heapgate_widen): exact for a build whose searches were steady
 * (a precise collector), an absolute band of the widest move for one whose search moved up at
 * a boundary (a conservative collector), at least 1 MiB; other rules untouched.
 */
#include <stdlib.h>
#include <string.h>

#include "heapgate.h"
#include "unit.h"

int main(void)
{
	struct baseline_rule rules[2];
	struct heapgate_info info;

	memset(rules, 0, sizeof rules);
	rules[0].metric = (char *)"rss.peak_bytes";
	rules[0].band_abs = 7;
	rules[1].metric = (char *)HEAPGATE_METRIC;

	memset(&info, 0, sizeof info);
	info.probes = 3;
	CHECK(heapgate_widen(rules, 2, &info) == 0);
	CHECK(rules[1].band_abs == 0 && rules[1].band_pct == 0);

	info.unsteady = 1;
	info.widest_mib = 3;
	CHECK(heapgate_widen(rules, 2, &info) == 1);
	CHECK(rules[1].band_abs == 3 && rules[1].band_pct == 0);
	CHECK(rules[0].band_abs == 7);

	/* A move of less than a MiB still gets one: the knob's resolution. */
	rules[1].band_abs = 0;
	info.widest_mib = 0.5;
	CHECK(heapgate_widen(rules, 2, &info) == 1 && rules[1].band_abs == 1);
	/* A wider band already there stays. */
	rules[1].band_abs = 5;
	CHECK(heapgate_widen(rules, 2, &info) == 1 && rules[1].band_abs == 5);
	/* No rule for the metric: nothing to widen. */
	CHECK(heapgate_widen(rules, 1, &info) == 0);
	return unit_done("test_heapgate");
}
