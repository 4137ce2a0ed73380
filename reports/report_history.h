/*
 * report_history.h — one metric's history (gcratchet history) as an HTML page: one SVG trend
 * line per host over the session medians in commit order, and the pinned baseline's value
 * with its band drawn across, so drift towards the edge of the band shows before check fails.
 * The value axis spans the data and the band (not zero, unless asked), every point is labelled
 * by its commit and build, and a point beyond the band is marked and listed in the text.
 *
 * Pure: the caller loads the series (history_load) and the baseline; the renderer never
 * prints and never exits. Every name that reaches the page goes through escape.h.
 */
#ifndef REPORT_HISTORY_H
#define REPORT_HISTORY_H

#include <stddef.h>

#include "baseline.h"
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
	/*
	 * The value axis keeps the range of the data and the band (a step of a few percent fills
	 * the plot, not a hairline under a zero-based axis); zero_axis 1 draws it from zero.
	 */
	int zero_axis;
	/* The site's pages linked from this one (report --site), relative; NULL: none. */
	const char *index_href, *check_href;
};

/*
 * The value and band of h's cell (h->probe, h->metric) pinned in b, whose file is
 * h->baseline_path: has_value, has_band, value, allowance and direction set; *why (newly
 * allocated, else NULL) says why no band is drawn (no such cell, or it is not gated).
 */
void report_history_band(struct report_history *h, const struct baseline *b, char **why);

/* Newly allocated HTML text. */
char *report_history_html(const struct report_history *h);

/*
 * Where a session median lies against the band: 1 beyond it on the side check fails, -1
 * beyond it on the other side, 0 within it or when there is no band. An exact cell (a band
 * of 0) has every changed point outside.
 */
int report_history_outside(const struct report_history *h, double median);
/* Each point's median over its values, newly allocated (h->n entries, at least one). */
double *report_history_medians(const struct report_history *h);
/*
 * A sparkline of the medians in commit order, width x height, no axes: the band shaded, the
 * points beyond it marked (red on the side that fails check). One <svg class="spark">.
 */
void report_history_spark(struct sbuf *b, const struct report_history *h, const double *med,
                          double width, double height);
/* A point's build as the page names it: its arm label or build name, @ its manifest hash's
 * first 6 characters (two builds of one commit, a planted one, differ there); escaped. */
void report_history_build(struct sbuf *b, const struct store_history_point *p);

#endif /* REPORT_HISTORY_H */
