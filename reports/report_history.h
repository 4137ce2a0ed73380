/*
 * report_history.h — one metric's history (gcratchet history) as an HTML page: one SVG trend
 * line per host over the session medians in commit order, and the pinned baseline's value
 * with its band drawn across, so drift towards the edge of the band shows before check fails.
 *
 * Pure: the caller loads the series (history_load) and the baseline; the renderer never
 * prints and never exits. Every name that reaches the page goes through escape.h.
 */
#ifndef REPORT_HISTORY_H
#define REPORT_HISTORY_H

#include <stddef.h>

#include "store.h"

struct report_history {
	const char *collector, *probe, *metric;
	const char *since, *size;                        /* the selection, NULL: any */
	const char *where;                               /* the store it came from */
	const struct store_history_point *const *points; /* commit order */
	size_t n;
	/*
	 * The pinned baseline: has_band 1 with its value and allowance (band value +- allowance,
	 * the range check passes); has_band 0 with no_band saying why (no file, no cell, the
	 * cell not gated: value still drawn when has_value). direction: the rule's bad direction
	 * (baseline_direction_name), which side of the band fails check.
	 */
	const char *baseline_path;
	int has_value, has_band;
	double value, allowance;
	const char *direction;
	const char *no_band;
};

/* Newly allocated HTML text. */
char *report_history_html(const struct report_history *h);

#endif /* REPORT_HISTORY_H */
