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

/* Newly allocated HTML text. */
char *report_html_ab(const struct compare *c);
char *report_html_session(const struct report_data *d);

#endif /* REPORT_HTML_H */
