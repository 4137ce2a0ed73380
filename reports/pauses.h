/*
 * pauses.h — the pause figures of one probe and one arm of a stored session, summarised for
 * the reports: the MMU curve, the pause quantiles and the log2 histogram (the census "pauses"
 * section, docs/census-protocol.md), over the arm's successful measured timed runs.
 *
 * Each MMU point and quantile is the median over runs of that figure; each histogram bucket is
 * the mean number of pauses per run in it, so arms with different run counts compare. A
 * figure no run reported is NAN (MMU, quantiles) or 0 (a bucket): absent, never made up.
 */
#ifndef REPORT_PAUSES_H
#define REPORT_PAUSES_H

#include <stddef.h>

#include "report.h"

#define REPORT_PAUSE_WINDOWS 7
#define REPORT_PAUSE_BUCKETS 64

/* The MMU windows the census carries: metric "census.mmu_<label>", `ms` milliseconds. */
struct report_pause_window {
	const char *metric, *label;
	double ms;
};
extern const struct report_pause_window report_pause_windows[REPORT_PAUSE_WINDOWS];

/* The quantile rows: metric, and the label the reports show. */
struct report_pause_stat {
	const char *metric, *label;
};
#define REPORT_PAUSE_STATS 5
extern const struct report_pause_stat report_pause_stats[REPORT_PAUSE_STATS];

struct report_pause_arm {
	size_t runs; /* successful measured timed runs that carried pause figures */
	double mmu[REPORT_PAUSE_WINDOWS];
	double stat[REPORT_PAUSE_STATS];   /* medians of report_pause_stats' metrics */
	double hist[REPORT_PAUSE_BUCKETS]; /* mean pauses per run of [2^k, 2^(k+1)) ns */
	int hist_lo, hist_hi;              /* the buckets with any pause; hi < lo when none */
};

/*
 * Summarises the runs of `probe` by the arm at session position `arm`. Returns 1 when any run
 * carried pause figures (out->runs > 0), else 0.
 */
int report_pauses_arm(const struct report_data *d, const char *probe, int arm,
                      struct report_pause_arm *out);
/*
 * The rows of a pause-figures table, the same in every format: the quantile rows, then MMU at
 * each window. Row r's label ("p99 pause", "MMU 10ms") and one arm's cell in it (the figure
 * in its unit, an MMU to 3 decimals; "-" where the arm has none).
 */
#define REPORT_PAUSE_ROWS (REPORT_PAUSE_STATS + REPORT_PAUSE_WINDOWS)
void report_pauses_row_label(size_t r, char *buf, size_t size);
void report_pauses_cell(const struct report_pause_arm *arm, size_t r, char *buf, size_t size);
/* "1 us", "16 ms": the lower edge of bucket k, 2^k ns, short. */
void report_pauses_bucket_label(int k, char *buf, size_t size);

#endif /* REPORT_PAUSES_H */
