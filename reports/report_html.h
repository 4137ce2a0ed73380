/*
 * report_html.h — self-contained HTML pages with inline SVG plots: no script, no external
 * stylesheet, font or image, so the file can be attached to a CI run or mailed and still open.
 *
 * Every name that reaches the page (probe, metric, build, collector, host, command, status,
 * failure details) goes through escape_xml: names come from build manifests and
 * probe output, which the harness does not control.
 *
 * The A/B page holds, for each cell, one <svg class="plot"> with two panels: the samples of
 * both arms by round (a line joins each pair), and the paired deltas with their median and
 * confidence interval. The session page (any number of builds, no comparison) holds one
 * <svg class="plot"> per cell with every build's samples by round.
 */
#ifndef REPORT_HTML_H
#define REPORT_HTML_H

#include "compare.h"
#include "report.h"

#define REPORT_HTML_WIDTH  560
#define REPORT_HTML_HEIGHT 200
/* Plot area of each panel, in SVG units. */
#define REPORT_HTML_TOP    26.0
#define REPORT_HTML_BOTTOM 166.0

/* Newly allocated HTML text. */
char *report_html_ab(const struct compare *c);
char *report_html_session(const struct report_data *d);

/*
 * The pieces of these pages, for the other pages of reports/ (report_sweep.c): the page's
 * head (title escaped) and tail, the palette, and a panel's axes and markers.
 */
void report_html_head(struct sbuf *b, const char *title);
void report_html_tail(struct sbuf *b);
/* Colour i of the palette (it repeats). */
const char *report_html_color(size_t i);
/* Maps v in [lo, hi] to the panel's vertical range (higher values up). */
double report_html_y(double v, double lo, double hi);
/* Widens a value range a little (never below zero for positive values). */
void report_html_pad(double *lo, double *hi);
/* About this many intervals between a panel's ticks (axis.h makes it 2 to 6). */
#define REPORT_HTML_TICKS 4
/* 1 when `metric` counts or sizes something (bytes, events, instructions): drawn from zero. */
int report_html_from_zero(const char *metric);
/*
 * The value axis of a panel across [x0, x1] (axis.h): round-number grid lines and labels for
 * data from *lo to *hi, as `metric` values (from zero when report_html_from_zero) or, with
 * pct, percentages. It widens *lo and *hi to the axis' range, the first and last tick: map
 * the panel's values with report_html_y(v, *lo, *hi) after it.
 */
void report_html_axis(struct sbuf *b, double x0, double x1, double *lo, double *hi,
                      const char *metric, int pct);
/*
 * The same with the choice of zero made by the caller: a trend drawn to show a step of a few
 * percent keeps the range of its data and band (from_zero 0) whatever the metric counts.
 */
void report_html_axis_zero(struct sbuf *b, double x0, double x1, double *lo, double *hi,
                           const char *metric, int pct, int from_zero);
/* The x position of point i of n across [x0, x1]. */
double report_html_x(size_t i, size_t n, double x0, double x1);
/* A marker (0 circle, 1 diamond) left open for a <title>; close it with _marker_end. */
void report_html_marker(struct sbuf *b, int shape, double x, double y, const char *color);
void report_html_marker_end(struct sbuf *b, int shape);

#endif /* REPORT_HTML_H */
