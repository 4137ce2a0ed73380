/* The pause figures of one probe and arm, for the reports (pauses.h). */
#include "pauses.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

const struct report_pause_window report_pause_windows[REPORT_PAUSE_WINDOWS] = {
    {"census.mmu_1ms", "1ms", 1},       {"census.mmu_2ms", "2ms", 2},
    {"census.mmu_5ms", "5ms", 5},       {"census.mmu_10ms", "10ms", 10},
    {"census.mmu_20ms", "20ms", 20},    {"census.mmu_50ms", "50ms", 50},
    {"census.mmu_100ms", "100ms", 100},
};

const struct report_pause_stat report_pause_stats[REPORT_PAUSE_STATS] = {
    {"census.pause_count", "pauses"},     {"census.pause_p50_ns", "p50 pause"},
    {"census.pause_p90_ns", "p90 pause"}, {"census.pause_p99_ns", "p99 pause"},
    {"census.pause_max_ns", "max pause"},
};

/* Median of `metric` over the runs that have it; NAN when none has. */
static double report_pauses_median(const struct store_run *const *runs, size_t n,
                                   const char *metric, double *scratch)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const double *v = metric_set_get(&runs[i]->metrics, metric);

		if (v)
			scratch[k++] = *v;
	}
	return k ? stats_median(scratch, k) : NAN;
}

int report_pauses_arm(const struct report_data *d, const char *probe, int arm,
                      struct report_pause_arm *out)
{
	const struct store_run **runs = xcalloc(d->nruns ? d->nruns : 1, sizeof *runs);
	double *scratch = xcalloc(d->nruns ? d->nruns : 1, sizeof *scratch);
	size_t n = 0;

	memset(out, 0, sizeof *out);
	out->hist_lo = REPORT_PAUSE_BUCKETS;
	out->hist_hi = -1;
	/* A run carries the section when it has a pause count (a collector with a log). */
	for (size_t i = 0; i < d->nruns; i++) {
		const struct store_run *r = &d->runs[i];

		if (r->arm == arm && !r->warmup && r->kind == RUN_KIND_TIMED &&
		    r->status == RUN_STATUS_OK && strcmp(r->probe, probe) == 0 &&
		    metric_set_get(&r->metrics, "census.pause_count"))
			runs[n++] = r;
	}
	out->runs = n;
	for (size_t w = 0; w < REPORT_PAUSE_WINDOWS; w++)
		out->mmu[w] =
		    report_pauses_median(runs, n, report_pause_windows[w].metric, scratch);
	for (size_t s = 0; s < REPORT_PAUSE_STATS; s++)
		out->stat[s] = report_pauses_median(runs, n, report_pause_stats[s].metric, scratch);
	for (int k = 0; k < REPORT_PAUSE_BUCKETS && n > 0; k++) {
		char metric[40];
		double sum = 0;

		snprintf(metric, sizeof metric, "census.pause_hist_%d", k);
		for (size_t i = 0; i < n; i++) {
			const double *v = metric_set_get(&runs[i]->metrics, metric);

			sum += v ? *v : 0;
		}
		out->hist[k] = sum / (double)n;
		if (sum > 0) {
			out->hist_lo = k < out->hist_lo ? k : out->hist_lo;
			out->hist_hi = k;
		}
	}
	free(runs);
	free(scratch);
	return n > 0;
}

void report_pauses_row_label(size_t r, char *buf, size_t size)
{
	if (r < REPORT_PAUSE_STATS)
		snprintf(buf, size, "%s", report_pause_stats[r].label);
	else
		snprintf(buf, size, "MMU %s", report_pause_windows[r - REPORT_PAUSE_STATS].label);
}

void report_pauses_cell(const struct report_pause_arm *arm, size_t r, char *buf, size_t size)
{
	double mmu;

	if (r < REPORT_PAUSE_STATS) {
		metrics_format_value(report_pause_stats[r].metric, arm->stat[r], buf, size);
		return;
	}
	mmu = arm->mmu[r - REPORT_PAUSE_STATS];
	if (isfinite(mmu))
		snprintf(buf, size, "%.3f", mmu);
	else
		snprintf(buf, size, "-");
}

void report_pauses_bucket_label(int k, char *buf, size_t size)
{
	double ns = ldexp(1.0, k);

	if (ns >= 1e9)
		snprintf(buf, size, "%.3g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, size, "%.3g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, size, "%.3g us", ns / 1e3);
	else
		snprintf(buf, size, "%.0f ns", ns);
}
