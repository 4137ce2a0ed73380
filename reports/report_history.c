#include "report_history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "escape.h"
#include "metrics.h"
#include "report_html.h"
#include "stats.h"

#define REPORT_HISTORY_W      760
/* Commit labels are drawn every this many points at most, so they never overlap. */
#define REPORT_HISTORY_LABELS 24

/* Which side of the band check fails, from the rule's direction. */
static const char *report_history_beyond(const char *direction)
{
	if (direction && strcmp(direction, "increase") == 0)
		return "an increase";
	if (direction && strcmp(direction, "decrease") == 0)
		return "a decrease";
	return "a change either way";
}

static const char *report_history_host(const struct store_history_point *p)
{
	return p->hostname && *p->hostname ? p->hostname : "?";
}

/* The hosts, in the order they first appear in the series. */
static void report_history_hosts(const struct report_history *h, struct strlist *hosts)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strlist_contains(hosts, report_history_host(h->points[i])))
			strlist_push(hosts, report_history_host(h->points[i]));
}

/* The commit's first len characters (never a part of one: a cut sequence showed as U+FFFD). */
static void report_history_commit(struct sbuf *b, const struct store_history_point *p, size_t len)
{
	const char *c = p->git_commit && *p->git_commit ? p->git_commit : "unknown";
	size_t end = 0;
	char *cut;

	for (size_t chars = 0; c[end] && chars < len; chars++) {
		size_t n = utf8_len((const unsigned char *)c + end, SIZE_MAX);
		end += n ? n : 1;
	}
	cut = xasprintf("%.*s", (int)end, c);
	escape_xml(b, cut);
	free(cut);
}

int report_history_outside(const struct report_history *h, double median)
{
	double d, slack;
	int bad_up;

	if (!h->has_band || !isfinite(median))
		return 0;
	d = median - h->value;
	/* Within the allowance, with a hair for rounding: an exact cell's equal figure is in. */
	slack = h->allowance + 1e-9 * fmax(fabs(h->value), 1);
	if (fabs(d) <= slack)
		return 0;
	if (!h->direction ||
	    (strcmp(h->direction, "increase") != 0 && strcmp(h->direction, "decrease") != 0))
		return 1;
	bad_up = strcmp(h->direction, "increase") == 0;
	return (d > 0) == bad_up ? 1 : -1;
}

double *report_history_medians(const struct report_history *h)
{
	double *med = xcalloc(h->n + 1, sizeof *med);

	for (size_t i = 0; i < h->n; i++)
		med[i] = stats_median(h->points[i]->values, h->points[i]->n);
	return med;
}

void report_history_build(struct sbuf *b, const struct store_history_point *p)
{
	const char *name = p->label && *p->label ? p->label : p->build ? p->build : "?";

	escape_xml(b, name);
	if (p->manifest_hash && *p->manifest_hash) {
		char *cut = xasprintf("@%.6s", p->manifest_hash);
		escape_xml(b, cut);
		free(cut);
	}
}

/* The data's range with the band's and the baseline's value in it (and zero when asked). */
static void report_history_range(const struct report_history *h, const double *med, double *lo,
                                 double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < h->n; i++) {
		*lo = fmin(*lo, med[i]);
		*hi = fmax(*hi, med[i]);
	}
	if (h->has_value) {
		double a = h->has_band ? h->allowance : 0;
		*lo = fmin(*lo, h->value - a);
		*hi = fmax(*hi, h->value + a);
	}
	if (h->zero_axis) {
		int nonneg = *lo >= 0;
		*lo = fmin(*lo, 0);
		*hi = fmax(*hi, 0);
		report_html_pad(lo, hi);
		/* From zero means from zero: the padding does not take a positive series below it. */
		if (nonneg)
			*lo = 0;
		return;
	}
	report_html_pad(lo, hi);
}

/* A marked point's colour: red on the side check fails, green on the other. */
static const char *report_history_mark_color(int side)
{
	return side > 0 ? "#d62728" : "#2ca02c";
}

void report_history_spark(struct sbuf *b, const struct report_history *h, const double *med,
                          double width, double height)
{
	const double P = 3;
	double lo, hi;

	report_history_range(h, med, &lo, &hi);
#define SPARK_X(i) (h->n <= 1 ? width / 2 : P + (width - 2 * P) * (double)(i) / (double)(h->n - 1))
#define SPARK_Y(v) (height - P - ((v)-lo) / (hi - lo) * (height - 2 * P))
	sbuf_addf(b,
	          "<svg class=\"spark\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
	          "role=\"img\" aria-label=\"",
	          width, height, width, height);
	escape_xml(b, h->metric);
	sbuf_addf(b, " of ");
	escape_xml(b, h->probe);
	sbuf_addf(b, " by commit\">");
	if (h->has_band) {
		double top = SPARK_Y(h->value + h->allowance),
		       bottom = SPARK_Y(h->value - h->allowance);
		sbuf_addf(b,
		          "<rect class=\"band\" x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" "
		          "fill=\"#2ca02c\" fill-opacity=\"0.15\"/>",
		          top, width, fmax(bottom - top, 0.8));
	}
	sbuf_addf(b, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.3\" points=\"");
	for (size_t i = 0; i < h->n; i++)
		sbuf_addf(b, "%s%.1f,%.1f", i ? " " : "", SPARK_X(i), SPARK_Y(med[i]));
	if (h->n == 1)
		sbuf_addf(b, " %.1f,%.1f", SPARK_X(0) + 4, SPARK_Y(med[0]));
	sbuf_addf(b, "\"/>");
	for (size_t i = 0; i < h->n; i++) {
		int side = report_history_outside(h, med[i]);
		if (side)
			sbuf_addf(b,
			          "<circle class=\"oob%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\" "
			          "fill=\"%s\"/>",
			          side > 0 ? " bad" : " good", SPARK_X(i), SPARK_Y(med[i]),
			          report_history_mark_color(side));
	}
	sbuf_addf(b, "</svg>");
#undef SPARK_X
#undef SPARK_Y
}

/* Room under the plot for each point's label (commit and build), drawn slanted. */
#define REPORT_HISTORY_PLOT_H (REPORT_HTML_BOTTOM + 122)

static void report_history_plot(struct sbuf *b, const struct report_history *h,
                                const struct strlist *hosts, const double *med)
{
	const double L0 = 64, L1 = REPORT_HISTORY_W - 16;
	double lo, hi;
	size_t step = h->n / REPORT_HISTORY_LABELS + 1;
	char v[48];

	report_history_range(h, med, &lo, &hi);
	sbuf_addf(b,
	          "<svg class=\"plot history\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	          "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
	          REPORT_HISTORY_W, (int)REPORT_HISTORY_PLOT_H, REPORT_HISTORY_W,
	          (int)REPORT_HISTORY_PLOT_H);
	escape_xml(b, h->metric);
	sbuf_addf(b, " of ");
	escape_xml(b, h->probe);
	sbuf_addf(b, " by commit\">\n");
	/* The axis first: it widens lo and hi to its round ticks, which the band is drawn in. */
	report_html_axis_zero(b, L0, L1, &lo, &hi, h->metric, 0, h->zero_axis);
	if (h->has_band) {
		double top = report_html_y(h->value + h->allowance, lo, hi),
		       bottom = report_html_y(h->value - h->allowance, lo, hi);
		sbuf_addf(
		    b,
		    "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "fill=\"#2ca02c\" fill-opacity=\"0.12\"><title>baseline band: ",
		    L0, top, L1 - L0, fmax(bottom - top, 0.5));
		metrics_format_value(h->metric, h->value - h->allowance, v, sizeof v);
		sbuf_addf(b, "%s to ", v);
		metrics_format_value(h->metric, h->value + h->allowance, v, sizeof v);
		sbuf_addf(b, "%s</title></rect>\n", v);
	}
	if (h->has_value) {
		metrics_format_value(h->metric, h->value, v, sizeof v);
		sbuf_addf(
		    b,
		    "<line class=\"baseline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#2ca02c\" stroke-dasharray=\"6 3\"><title>baseline %s</title>"
		    "</line>\n",
		    L0, report_html_y(h->value, lo, hi), L1, report_html_y(h->value, lo, hi), v);
	}
	for (size_t k = 0; k < hosts->n; k++) {
		const char *color = report_html_color(k);

		sbuf_addf(b, "<polyline class=\"host\" data-host=\"");
		escape_xml(b, hosts->items[k]);
		sbuf_addf(b, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" points=\"",
		          color);
		for (size_t i = 0; i < h->n; i++)
			if (strcmp(report_history_host(h->points[i]), hosts->items[k]) == 0)
				sbuf_addf(b, "%.1f,%.1f ", report_html_x(i, h->n, L0, L1),
				          report_html_y(med[i], lo, hi));
		sbuf_addf(b, "\"/>\n");
		for (size_t i = 0; i < h->n; i++) {
			const struct store_history_point *p = h->points[i];
			if (strcmp(report_history_host(p), hosts->items[k]) != 0)
				continue;
			report_html_marker(b, (int)(k % 2), report_html_x(i, h->n, L0, L1),
			                   report_html_y(med[i], lo, hi), color);
			metrics_format_value(h->metric, med[i], v, sizeof v);
			sbuf_addf(b, "<title>");
			report_history_commit(b, p, 12);
			sbuf_addf(b, " ");
			report_history_build(b, p);
			sbuf_addf(b, " session %lld on ", (long long)p->session_id);
			escape_xml(b, hosts->items[k]);
			sbuf_addf(b, ": %s (median of %zu)</title>", v, p->n);
			report_html_marker_end(b, (int)(k % 2));
		}
	}
	/* A point beyond the band: ringed, over the lines, so it is seen before it is read. */
	for (size_t i = 0; i < h->n; i++) {
		int side = report_history_outside(h, med[i]);
		if (!side)
			continue;
		sbuf_addf(b,
		          "<circle class=\"oob%s\" data-session=\"%lld\" cx=\"%.1f\" cy=\"%.1f\" "
		          "r=\"7.5\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"><title>",
		          side > 0 ? " bad" : " good", (long long)h->points[i]->session_id,
		          report_html_x(i, h->n, L0, L1), report_html_y(med[i], lo, hi),
		          report_history_mark_color(side));
		report_history_commit(b, h->points[i], 12);
		sbuf_addf(b, " ");
		report_history_build(b, h->points[i]);
		sbuf_addf(b, ": beyond the band%s</title></circle>\n",
		          side > 0 ? ", on the side check fails" : "");
	}
	for (size_t i = 0; i < h->n; i += step) {
		double x = report_html_x(i, h->n, L0, L1), y = REPORT_HTML_BOTTOM + 12;
		sbuf_addf(b,
		          "<text class=\"commit\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
		          "transform=\"rotate(-55 %.1f %.1f)\">",
		          x + 3, y, x + 3, y);
		report_history_commit(b, h->points[i], 7);
		sbuf_addf(b, " <tspan class=\"build\" fill=\"#777\">");
		report_history_build(b, h->points[i]);
		sbuf_addf(b, "</tspan></text>");
	}
	sbuf_addf(b,
	          "\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">sessions in commit order, "
	          "each labelled by its commit and build</text></svg>\n",
	          (L0 + L1) / 2, (int)REPORT_HISTORY_PLOT_H - 4);
}

/* The points beyond the band, in words: a marked point is also read, not only seen. */
static void report_history_outside_list(struct sbuf *b, const struct report_history *h,
                                        const double *med)
{
	size_t count = 0;
	char v[48];

	if (!h->has_band)
		return;
	for (size_t i = 0; i < h->n; i++)
		count += report_history_outside(h, med[i]) != 0;
	if (count == 0) {
		sbuf_addf(b, "<p class=\"meta oob-none\">Every point is within the band.</p>\n");
		return;
	}
	sbuf_addf(b,
	          "<p class=\"oob-list\"><strong>%zu point%s beyond the band</strong> "
	          "(ringed):</p>\n<ul class=\"oob-list\">\n",
	          count, count == 1 ? "" : "s");
	for (size_t i = 0; i < h->n; i++) {
		const struct store_history_point *p = h->points[i];
		int side = report_history_outside(h, med[i]);
		double pct = h->value != 0 ? 100 * (med[i] - h->value) / fabs(h->value) : NAN;
		if (!side)
			continue;
		metrics_format_value(h->metric, med[i], v, sizeof v);
		sbuf_addf(b, "<li class=\"%s\" data-session=\"%lld\"><code>",
		          side > 0 ? "oob-bad" : "oob-good", (long long)p->session_id);
		report_history_commit(b, p, 12);
		sbuf_addf(b, "</code> ");
		report_history_build(b, p);
		sbuf_addf(b, ", session %lld on ", (long long)p->session_id);
		escape_xml(b, report_history_host(p));
		sbuf_addf(b, ": %s", v);
		if (isfinite(pct))
			sbuf_addf(b, " (%+.2f%% of the baseline)", pct);
		sbuf_addf(b, "%s</li>\n",
		          side > 0 ? ": beyond the allowance on the side check fails"
		                   : ": beyond the allowance on the good side");
	}
	sbuf_addf(b, "</ul>\n");
}

void report_history_band(struct report_history *h, const struct baseline *b, char **why)
{
	const struct baseline_cell *c = baseline_cell_find(b, h->probe, h->metric);
	struct baseline_rule rule;

	*why = NULL;
	if (!c || baseline_cell_rule(b, h->probe, h->metric, &rule) != 0) {
		*why = xasprintf("%s pins no cell for %s of %s: no band drawn.", h->baseline_path,
		                 h->metric, h->probe);
		return;
	}
	h->has_value = 1;
	h->value = baseline_cell_value(c, rule.cls);
	h->direction = baseline_direction_name(rule.direction);
	if (!rule.gated) {
		*why = xasprintf("%s is not gated (%s): no band drawn.", h->metric,
		                 baseline_class_name(rule.cls));
		return;
	}
	h->has_band = 1;
	h->allowance = baseline_allowance(&rule, h->value);
}

char *report_history_html(const struct report_history *h)
{
	char *title =
	    xasprintf("gcratchet history: %s of %s on %s", h->metric, h->probe, h->collector);
	struct strlist hosts = {0};
	double *med = report_history_medians(h);
	struct sbuf b;
	char v[48];

	report_history_hosts(h, &hosts);
	sbuf_init(&b);
	report_html_head(&b, title);
	if (h->index_href || h->check_href) {
		sbuf_addf(&b, "<p class=\"meta nav\">");
		if (h->index_href) {
			sbuf_addf(&b, "<a class=\"index\" href=\"");
			escape_xml(&b, h->index_href);
			sbuf_addf(&b, "\">&#8592; every cell</a>");
		}
		if (h->check_href) {
			sbuf_addf(&b, "%s<a class=\"check\" href=\"",
			          h->index_href ? " &#183; " : "");
			escape_xml(&b, h->check_href);
			sbuf_addf(&b, "\">the latest check of ");
			escape_xml(&b, h->collector);
			sbuf_addf(&b, "</a>");
		}
		sbuf_addf(&b, "</p>\n");
	}
	sbuf_addf(&b, "<h1>");
	escape_xml(&b, title);
	sbuf_addf(&b, "</h1>\n<p class=\"meta\">%zu session median%s from ", h->n,
	          h->n == 1 ? "" : "s");
	escape_xml(&b, h->where);
	if (h->size) {
		sbuf_addf(&b, ", size ");
		escape_xml(&b, h->size);
	}
	if (h->since) {
		sbuf_addf(&b, ", since ");
		escape_xml(&b, h->since);
	}
	sbuf_addf(&b,
	          ". x: each session (and arm) in commit order, labelled by its commit and build; "
	          "y: the median of its measured ok runs, %s. One line per host.</p>\n<p "
	          "class=\"meta baseline\">",
	          h->zero_axis ? "from zero" : "over the range of the data and the band");
	if (h->has_value) {
		metrics_format_value(h->metric, h->value, v, sizeof v);
		sbuf_addf(&b, "Baseline ");
		escape_xml(&b, h->baseline_path);
		sbuf_addf(&b, ": %s", v);
		if (h->has_band) {
			metrics_format_value(h->metric, h->allowance, v, sizeof v);
			sbuf_addf(&b,
			          " &#177; %s (shaded: within the allowance; %s beyond it fails "
			          "check)",
			          v, report_history_beyond(h->direction));
		}
		sbuf_addf(&b, ".");
	}
	if (h->no_band) {
		sbuf_addf(&b, " <span class=\"noband\">");
		escape_xml(&b, h->no_band);
		sbuf_addf(&b, "</span>");
	}
	sbuf_addf(&b, "</p>\n<p class=\"legend\">");
	for (size_t k = 0; k < hosts.n; k++) {
		sbuf_addf(&b, "<span><span class=\"sw\" style=\"background:%s\"></span>",
		          report_html_color(k));
		escape_xml(&b, hosts.items[k]);
		sbuf_addf(&b, "</span>");
	}
	sbuf_addf(&b, "</p>\n");
	report_history_plot(&b, h, &hosts, med);
	report_history_outside_list(&b, h, med);
	sbuf_addf(&b, "<div class=\"scroll\"><table>\n<tr><th class=\"l\">commit</th><th>session"
	              "</th><th class=\"l\">started</th><th class=\"l\">host</th><th "
	              "class=\"l\">build</th><th class=\"l\">size</th><th>n</th><th>median</th>"
	              "</tr>\n");
	for (size_t i = 0; i < h->n; i++) {
		const struct store_history_point *p = h->points[i];
		int side = report_history_outside(h, med[i]);
		sbuf_addf(&b, "<tr%s><td class=\"l\"><code>",
		          side > 0   ? " class=\"oob bad\""
		          : side < 0 ? " class=\"oob good\""
		                     : "");
		report_history_commit(&b, p, 12);
		sbuf_addf(&b, "</code></td><td>%lld</td><td class=\"l\">",
		          (long long)p->session_id);
		escape_xml(&b, p->started_at);
		sbuf_addf(&b, "</td><td class=\"l\">");
		escape_xml(&b, report_history_host(p));
		sbuf_addf(&b, "</td><td class=\"l\">");
		report_history_build(&b, p);
		sbuf_addf(&b, "</td><td class=\"l\">");
		escape_xml(&b, p->size);
		metrics_format_value(h->metric, med[i], v, sizeof v);
		sbuf_addf(&b, "</td><td>%zu</td><td%s>%s%s</td></tr>\n", p->n,
		          side > 0   ? " class=\"bad\""
		          : side < 0 ? " class=\"better\""
		                     : "",
		          v, side ? " (out of band)" : "");
	}
	sbuf_addf(&b, "</table></div>\n");
	report_html_tail(&b);
	strlist_release(&hosts);
	free(med);
	free(title);
	return b.data;
}
