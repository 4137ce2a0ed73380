#include "report_history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void report_history_plot(struct sbuf *b, const struct report_history *h,
                                const struct strlist *hosts, const double *med)
{
	const double L0 = 64, L1 = REPORT_HISTORY_W - 16;
	double lo = INFINITY, hi = -INFINITY;
	size_t step = h->n / REPORT_HISTORY_LABELS + 1;
	char v[48];

	for (size_t i = 0; i < h->n; i++) {
		lo = fmin(lo, med[i]);
		hi = fmax(hi, med[i]);
	}
	if (h->has_value) {
		double a = h->has_band ? h->allowance : 0;
		lo = fmin(lo, h->value - a);
		hi = fmax(hi, h->value + a);
	}
	if (!report_html_from_zero(h->metric))
		report_html_pad(&lo, &hi);
	sbuf_addf(b,
	          "<svg class=\"plot history\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	          "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
	          REPORT_HISTORY_W, REPORT_HTML_HEIGHT + 20, REPORT_HISTORY_W,
	          REPORT_HTML_HEIGHT + 20);
	escape_xml(b, h->metric);
	sbuf_addf(b, " of ");
	escape_xml(b, h->probe);
	sbuf_addf(b, " by commit\">\n");
	/* The axis first: it widens lo and hi to its round ticks, which the band is drawn in. */
	report_html_axis(b, L0, L1, &lo, &hi, h->metric, 0);
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
			sbuf_addf(b, " session %lld on ", (long long)p->session_id);
			escape_xml(b, hosts->items[k]);
			sbuf_addf(b, ": %s (median of %zu)</title>", v, p->n);
			report_html_marker_end(b, (int)(k % 2));
		}
	}
	for (size_t i = 0; i < h->n; i += step) {
		sbuf_addf(b, "<text class=\"commit\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		          report_html_x(i, h->n, L0, L1), REPORT_HTML_BOTTOM + 13);
		report_history_commit(b, h->points[i], 7);
		sbuf_addf(b, "</text>");
	}
	sbuf_addf(b,
	          "\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">sessions in commit order"
	          "</text></svg>\n",
	          (L0 + L1) / 2, REPORT_HTML_HEIGHT + 12);
}

char *report_history_html(const struct report_history *h)
{
	char *title =
	    xasprintf("gcratchet history: %s of %s on %s", h->metric, h->probe, h->collector);
	struct strlist hosts = {0};
	double *med = xcalloc(h->n + 1, sizeof *med);
	struct sbuf b;
	char v[48];

	for (size_t i = 0; i < h->n; i++)
		med[i] = stats_median(h->points[i]->values, h->points[i]->n);
	report_history_hosts(h, &hosts);
	sbuf_init(&b);
	report_html_head(&b, title);
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
	sbuf_addf(&b, ". x: each session (and arm) in commit order, labelled by its commit; y: the "
	              "median of its measured ok runs. One line per host.</p>\n<p class=\"meta "
	              "baseline\">");
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
	sbuf_addf(&b, "<div class=\"scroll\"><table>\n<tr><th class=\"l\">commit</th><th>session"
	              "</th><th class=\"l\">started</th><th class=\"l\">host</th><th "
	              "class=\"l\">build</th><th class=\"l\">size</th><th>n</th><th>median</th>"
	              "</tr>\n");
	for (size_t i = 0; i < h->n; i++) {
		const struct store_history_point *p = h->points[i];
		sbuf_addf(&b, "<tr><td class=\"l\"><code>");
		report_history_commit(&b, p, 12);
		sbuf_addf(&b, "</code></td><td>%lld</td><td class=\"l\">",
		          (long long)p->session_id);
		escape_xml(&b, p->started_at);
		sbuf_addf(&b, "</td><td class=\"l\">");
		escape_xml(&b, report_history_host(p));
		sbuf_addf(&b, "</td><td class=\"l\">");
		escape_xml(&b, p->label ? p->label : p->build);
		sbuf_addf(&b, "</td><td class=\"l\">");
		escape_xml(&b, p->size);
		metrics_format_value(h->metric, med[i], v, sizeof v);
		sbuf_addf(&b, "</td><td>%zu</td><td>%s</td></tr>\n", p->n, v);
	}
	sbuf_addf(&b, "</table></div>\n");
	report_html_tail(&b);
	strlist_release(&hosts);
	free(med);
	free(title);
	return b.data;
}
