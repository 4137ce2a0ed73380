#include "report_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "escape.h"
#include "movers.h"
#include "pauses.h"
#include "report_text.h"

static const char *const report_html_colors[] = {"#1f77b4", "#e8710a", "#2ca02c",
                                                 "#d62728", "#9467bd", "#8c564b"};
#define REPORT_HTML_NCOLORS (sizeof report_html_colors / sizeof report_html_colors[0])

const char *report_html_color(size_t i)
{
	return report_html_colors[i % REPORT_HTML_NCOLORS];
}

static const char report_html_style[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;"
    "max-width:1240px;padding:0 16px;color:#1d1d1f;background:#fff}"
    "h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:26px 0 8px;"
    "border-bottom:1px solid #ddd;padding-bottom:3px}"
    ".meta{color:#555;margin:2px 0}"
    ".banner{padding:10px 14px;border-radius:6px;margin:12px 0;font-weight:600;background:#eef}"
    ".banner.bad{background:#fde7e9;color:#8a0010}.banner.good{background:#e6f4ea;color:#14532d}"
    ".banner.warn{background:#fff4e0;color:#7a4b00}"
    "table{border-collapse:collapse;font-size:12px;width:100%}"
    ".scroll{overflow-x:auto}"
    "th,td{padding:3px 7px;border-bottom:1px solid #e3e3e3;text-align:right;white-space:nowrap}"
    "th{background:#f6f6f6}td.l,th.l{text-align:left}"
    "tr.info td{color:#777}"
    ".worse{color:#b00020;font-weight:700}.better{color:#16803c;font-weight:700}"
    ".bad{color:#b00020;font-weight:700}.warn{color:#7a4b00;font-weight:700}"
    "td.wrap{white-space:normal;min-width:260px}"
    ".grid{display:flex;flex-wrap:wrap;gap:14px}"
    "figure{margin:0;border:1px solid #ddd;border-radius:6px;padding:8px;background:#fcfcfc}"
    "figcaption{font-size:12.5px;margin-bottom:4px;max-width:560px}"
    "svg.plot{display:block}"
    "svg text{font:10.5px system-ui,sans-serif;fill:#333}"
    "h3{font-size:14.5px;margin:16px 0 2px}"
    "details>summary{cursor:pointer;font-weight:600;margin:22px 0 8px;font-size:15px}"
    ".legend span{display:inline-block;margin-right:14px}"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;"
    "vertical-align:-1px}"
    "code{font-size:12px;background:#f2f2f2;padding:0 3px;border-radius:3px}"
    "svg text.commit{font-size:9px}svg.spark{display:block}td.spark{padding:1px 7px}"
    "ul.oob-list{margin:2px 0 10px;padding-left:22px}ul.oob-list li.oob-bad{color:#b00020}"
    "ul.oob-list li.oob-good{color:#16803c}tr.oob td{background:#fff5f5}"
    ".nav a{margin-right:4px}";

void report_html_head(struct sbuf *b, const char *title)
{
	sbuf_addf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	             "<title>");
	escape_xml(b, title);
	sbuf_addf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n", report_html_style);
}

void report_html_tail(struct sbuf *b)
{
	sbuf_addf(b, "<p class=\"meta\">Written by gcratchet. Every sample is in the JSON report "
	             "(<code>gcratchet export</code>).</p>\n</body>\n</html>\n");
}

/* Maps v in [lo, hi] to the panel's vertical range (higher values up). */
double report_html_y(double v, double lo, double hi)
{
	return REPORT_HTML_BOTTOM - (v - lo) / (hi - lo) * (REPORT_HTML_BOTTOM - REPORT_HTML_TOP);
}

/* Widens a value range a little (never below zero for positive values), and makes an empty
 * one visible. */
void report_html_pad(double *lo, double *hi)
{
	double span = *hi - *lo;
	int nonneg = *lo > 0;

	if (!isfinite(span))
		*lo = 0, *hi = 1;
	else if (span == 0) {
		double d = fabs(*lo) > 0 ? fabs(*lo) * 0.01 : 1;
		*lo -= d;
		*hi += d;
	} else {
		*lo -= span * 0.08;
		*hi += span * 0.08;
	}
	if (nonneg && *lo < 0)
		*lo = 0;
}

int report_html_from_zero(const char *metric)
{
	const struct metric_info *m = metrics_lookup(metric);

	return m && (m->unit == METRIC_UNIT_BYTES || m->unit == METRIC_UNIT_COUNT ||
	             m->unit == METRIC_UNIT_INSTRUCTIONS);
}

void report_html_axis(struct sbuf *b, double x0, double x1, double *lo, double *hi,
                      const char *metric, int pct)
{
	report_html_axis_zero(b, x0, x1, lo, hi, metric, pct,
	                      !pct && report_html_from_zero(metric));
}

void report_html_axis_zero(struct sbuf *b, double x0, double x1, double *lo, double *hi,
                           const char *metric, int pct, int from_zero)
{
	enum metric_unit unit = metrics_display_unit(metric);
	struct report_axis ax;

	report_axis_nice(*lo, *hi, REPORT_HTML_TICKS, from_zero,
	                 pct                             ? REPORT_AXIS_PCT
	                 : unit == METRIC_UNIT_BYTES     ? REPORT_AXIS_BYTES
	                 : unit == METRIC_UNIT_NS        ? REPORT_AXIS_NS
	                 : unit == METRIC_UNIT_RATIO     ? REPORT_AXIS_PLAIN
	                 : strcmp(metric, "sweep.ratio") ? REPORT_AXIS_COUNT
	                                                 : REPORT_AXIS_PLAIN,
	                 &ax);
	*lo = ax.lo;
	*hi = ax.hi;
	for (int t = 0; t < ax.nticks; t++) {
		double y = report_html_y(ax.ticks[t], ax.lo, ax.hi);
		char label[48];
		report_axis_label(&ax, ax.ticks[t], label, sizeof label);
		sbuf_addf(b,
		          "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		          "stroke=\"%s\"/>",
		          x0, y, x1, y, ax.ticks[t] == 0 && ax.lo < 0 ? "#bbb" : "#e5e5e5");
		sbuf_addf(
		    b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
		    x0 - 4, y + 3.5, label);
	}
	sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>\n",
	          x0, REPORT_HTML_TOP, x0, REPORT_HTML_BOTTOM);
}

/* The x position of pair/point i of n across [x0, x1]. */
double report_html_x(size_t i, size_t n, double x0, double x1)
{
	return n <= 1 ? (x0 + x1) / 2 : x0 + 12 + (x1 - x0 - 24) * (double)i / (double)(n - 1);
}

void report_html_marker(struct sbuf *b, int shape, double x, double y, const char *color)
{
	if (shape == 0)
		sbuf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.6\" fill=\"%s\">", x, y, color);
	else
		sbuf_addf(b,
		          "<rect x=\"%.1f\" y=\"%.1f\" width=\"6.4\" height=\"6.4\" fill=\"%s\" "
		          "transform=\"rotate(45 %.1f %.1f)\">",
		          x - 3.2, y - 3.2, color, x, y);
}

void report_html_marker_end(struct sbuf *b, int shape)
{
	sbuf_addf(b, shape == 0 ? "</circle>" : "</rect>");
}

static void report_html_round_label(struct sbuf *b, int round, double x)
{
	if (round == 0)
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">Ir run</text>", x,
		          REPORT_HTML_BOTTOM + 13);
	else
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>", x,
		          REPORT_HTML_BOTTOM + 13, round);
}

/* The two panels of one A/B cell: samples by round, and the paired deltas. */
static void report_html_ab_svg(struct sbuf *b, const struct compare_cell *cell, size_t index)
{
	const struct paired_cell *s = &cell->stats;
	const double L0 = 66, L1 = 290, R0 = 364, R1 = 548;
	int pct = isfinite(s->base_median) && s->base_median != 0;
	double lo = INFINITY, hi = -INFINITY, dlo = 0, dhi = 0, scale;
	char v[48];

	sbuf_addf(b,
	          "<svg class=\"plot\" id=\"plot-%zu\" xmlns=\"http://www.w3.org/2000/svg\" "
	          "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
	          index, REPORT_HTML_WIDTH, REPORT_HTML_HEIGHT, REPORT_HTML_WIDTH,
	          REPORT_HTML_HEIGHT);
	escape_xml(b, cell->probe);
	sbuf_addf(b, " ");
	escape_xml(b, cell->metric);
	sbuf_addf(b, "\">\n<title>");
	escape_xml(b, cell->probe);
	sbuf_addf(b, " ");
	escape_xml(b, cell->metric);
	sbuf_addf(b, "</title>\n");
	sbuf_addf(b, "<text x=\"%.1f\" y=\"14\" font-weight=\"600\">samples by round</text>", L0);
	sbuf_addf(b, "<text x=\"%.1f\" y=\"14\" font-weight=\"600\">FIX - BASE%s by round</text>\n",
	          R0, pct ? " (%)" : "");
	if (s->n == 0) {
		if (cell->only)
			sbuf_addf(
			    b,
			    "<text x=\"%.1f\" y=\"90\">only %s reports this metric</text></svg>\n",
			    L0, cell->only);
		else
			sbuf_addf(
			    b,
			    "<text x=\"%.1f\" y=\"90\">no pair of successful runs</text></svg>\n",
			    L0);
		return;
	}
	scale = pct ? 100 / fabs(s->base_median) : 1;
	for (size_t i = 0; i < s->n; i++) {
		double d = (cell->fix[i] - cell->base[i]) * scale;
		lo = fmin(lo, fmin(cell->base[i], cell->fix[i]));
		hi = fmax(hi, fmax(cell->base[i], cell->fix[i]));
		dlo = fmin(dlo, d);
		dhi = fmax(dhi, d);
	}
	if (isfinite(s->ci.lo) && !s->deterministic) {
		dlo = fmin(dlo, s->ci.lo * scale);
		dhi = fmax(dhi, s->ci.hi * scale);
	}
	/* A count or size is drawn from zero, its axis up to a round tick: no padding. */
	if (!report_html_from_zero(cell->metric))
		report_html_pad(&lo, &hi);
	report_html_pad(&dlo, &dhi);

	/* Left: both arms, a grey line joining the two runs of each round. */
	report_html_axis(b, L0, L1, &lo, &hi, cell->metric, 0);
	for (size_t i = 0; i < s->n; i++) {
		double x = report_html_x(i, s->n, L0, L1);
		sbuf_addf(
		    b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#bbb\"/>", x,
		    report_html_y(cell->base[i], lo, hi), x, report_html_y(cell->fix[i], lo, hi));
		for (int arm = 0; arm < 2; arm++) {
			double val = arm ? cell->fix[i] : cell->base[i];
			report_html_marker(b, arm, x + (arm ? 3 : -3), report_html_y(val, lo, hi),
			                   report_html_colors[arm]);
			metrics_format_value(cell->metric, val, v, sizeof v);
			sbuf_addf(b, "<title>round %d %s: %s</title>", cell->rounds[i],
			          arm ? "FIX" : "BASE", v);
			report_html_marker_end(b, arm);
		}
		if (s->n <= 25 || i % ((s->n + 11) / 12) == 0)
			report_html_round_label(b, cell->rounds[i], x);
	}
	sbuf_addf(b, "\n");

	/* Right: the deltas as bars from zero, their median and the interval around it. */
	report_html_axis(b, R0, R1, &dlo, &dhi, cell->metric, pct);
	if (isfinite(s->ci.lo) && !s->deterministic)
		sbuf_addf(b,
		          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		          "fill=\"#f4b400\" fill-opacity=\"0.22\"><title>%.1f%% interval of the "
		          "median delta</title></rect>",
		          R0, report_html_y(s->ci.hi * scale, dlo, dhi), R1 - R0,
		          fmax(1, report_html_y(s->ci.lo * scale, dlo, dhi) -
		                      report_html_y(s->ci.hi * scale, dlo, dhi)),
		          100 * s->ci.level);
	sbuf_addf(b,
	          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#666\" "
	          "stroke-dasharray=\"3 3\"/>",
	          R0, report_html_y(0, dlo, dhi), R1, report_html_y(0, dlo, dhi));
	for (size_t i = 0; i < s->n; i++) {
		double x = report_html_x(i, s->n, R0, R1),
		       d = (cell->fix[i] - cell->base[i]) * scale;
		double y0 = report_html_y(0, dlo, dhi), y1 = report_html_y(d, dlo, dhi);
		int bad = (d > 0) == cell->pol.lower_better && d != 0;
		double bw = fmin(10, (R1 - R0 - 24) / (double)(s->n + 1));
		sbuf_addf(b,
		          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">",
		          x - bw / 2, fmin(y0, y1), bw, fmax(0.8, fabs(y1 - y0)),
		          d == 0 ? "#888"
		          : bad  ? "#d9534f"
		                 : "#3a9d5d");
		if (pct)
			report_format_pct(d, v, sizeof v);
		else
			report_format_delta(cell->metric, d, v, sizeof v);
		sbuf_addf(b, "<title>round %d: %s</title></rect>", cell->rounds[i], v);
		if (s->n <= 25 || i % ((s->n + 11) / 12) == 0)
			report_html_round_label(b, cell->rounds[i], x);
	}
	sbuf_addf(b,
	          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#111\" "
	          "stroke-width=\"2\"><title>median delta</title></line>\n",
	          R0, report_html_y(s->delta_median * scale, dlo, dhi), R1,
	          report_html_y(s->delta_median * scale, dlo, dhi));
	sbuf_addf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">round</text>", (L0 + L1) / 2,
	          REPORT_HTML_HEIGHT - 4);
	sbuf_addf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">round</text>", (R0 + R1) / 2,
	          REPORT_HTML_HEIGHT - 4);
	sbuf_addf(b, "</svg>\n");
}

static void report_html_build_line(struct sbuf *b, const char *arm, const struct store_build *sb,
                                   const char *color)
{
	sbuf_addf(b,
	          "<p class=\"meta\"><span class=\"sw\" style=\"background:%s\"></span><b>%s</b> ",
	          color, arm);
	escape_xml(b, sb->label);
	if (sb->knobs) {
		sbuf_addf(b, " with knobs <code>");
		escape_xml(b, sb->knobs);
		sbuf_addf(b, "</code>");
	}
	sbuf_addf(b, " &mdash; ");
	escape_xml(b, sb->collector);
	sbuf_addf(b, " ");
	escape_xml(b, sb->collector_version ? sb->collector_version : "?");
	sbuf_addf(b, ", commit <code>");
	escape_xml(b, sb->git_commit ? sb->git_commit : "?");
	sbuf_addf(b, "</code>, <code>");
	escape_xml(b, sb->dir ? sb->dir : "?");
	sbuf_addf(b, "</code></p>\n");
}

static void report_html_session_meta(struct sbuf *b, const struct report_data *d)
{
	sbuf_addf(b, "<p class=\"meta\">session %lld on ", (long long)d->session.id);
	escape_xml(b, d->session.hostname ? d->session.hostname : "?");
	sbuf_addf(b, ", size ");
	escape_xml(b, d->session.size);
	sbuf_addf(b, ", %lld round%s + %lld warm-up, seed %lld, status ",
	          (long long)d->session.rounds, d->session.rounds == 1 ? "" : "s",
	          (long long)d->session.warmup, (long long)d->session.seed);
	escape_xml(b, d->session.status);
	sbuf_addf(b, ", started ");
	escape_xml(b, d->session.started_at);
	sbuf_addf(b, "<br><code>");
	escape_xml(b, d->session.command ? d->session.command : "");
	sbuf_addf(b, "</code></p>\n");
}

static const char *report_html_verdict_class(enum paired_verdict v)
{
	return v == PAIRED_WORSE ? "worse" : v == PAIRED_BETTER ? "better" : "";
}

/* Context and inert cells are judged neither way, whatever their numbers. */
static const char *report_html_cell_class(const struct compare_cell *cell)
{
	return cell->context || cell->inert ? "" : report_html_verdict_class(cell->stats.verdict);
}

static void report_html_identity_items(struct sbuf *b, const struct compare *c, int all)
{
	size_t doubt = 0;
	char line[256];

	for (size_t i = 0; i < c->nprobes; i++)
		doubt += (size_t)compare_probe_doubtful(&c->probes[i]);
	if (!all && !doubt && (c->across || !c->census_differ)) {
		sbuf_addf(b,
		          "<p class=\"meta\">Identity: every probe printed one result in both arms "
		          "(the list is below, with the other cells).</p>\n");
		return;
	}
	if (!all)
		sbuf_addf(b, "<h2>Identity</h2>\n");
	sbuf_addf(b, "<ul>\n");
	for (size_t i = 0; i < c->nprobes; i++) {
		const struct compare_probe *p = &c->probes[i];
		if (!all && !compare_probe_doubtful(p))
			continue;
		sbuf_addf(b, "<li>");
		escape_xml(b, p->probe);
		switch (p->sum) {
		case COMPARE_SUM_SAME:
			sbuf_addf(b, ": checksum <code>");
			escape_xml(b, p->base_sum);
			sbuf_addf(b, "</code> in both");
			break;
		case COMPARE_SUM_DIFFERS:
			sbuf_addf(b, ": <span class=\"bad\">checksum differs</span>: BASE <code>");
			escape_xml(b, p->base_sum);
			sbuf_addf(b, "</code>, FIX <code>");
			escape_xml(b, p->fix_sum);
			sbuf_addf(b, "</code>");
			break;
		case COMPARE_SUM_UNSTABLE:
			sbuf_addf(b, ": <span class=\"bad\">checksum unstable</span> across the "
			             "runs of one arm");
			break;
		case COMPARE_SUM_MISSING:
			sbuf_addf(b, ": <span class=\"bad\">checksum missing</span>: BASE <code>");
			escape_xml(b, p->base_sum ? p->base_sum : "none");
			sbuf_addf(b, "</code>, FIX <code>");
			escape_xml(b, p->fix_sum ? p->fix_sum : "none");
			sbuf_addf(b, "</code>");
			break;
		case COMPARE_SUM_NONE:
			sbuf_addf(b, ": no checksum reported");
			break;
		}
		if (p->failure) {
			sbuf_addf(b, "; <span class=\"bad\">%s</span>",
			          p->fix_only_failure ? "FIX fails:" : "failed:");
			sbuf_addf(b, " ");
			escape_xml(b, p->failure);
		}
		for (int arm = 0; arm < 2; arm++) {
			int n = arm ? p->fix_inert : p->base_inert;
			const char *why = arm ? p->fix_premise : p->base_premise;
			if (!n)
				continue;
			sbuf_addf(b,
			          "; <span class=\"bad\">INERT in %s</span>: %d of %d runs did not "
			          "meet the premise",
			          arm ? "FIX" : "BASE", n, arm ? p->fix_runs : p->base_runs);
			if (why && *why) {
				sbuf_addf(b, ": ");
				escape_xml(b, why);
			}
		}
		sbuf_addf(b, "</li>\n");
	}
	if (compare_census_varies_text(c, line, sizeof line)) {
		sbuf_addf(b, "<li>%s</li>\n", line);
	} else {
		sbuf_addf(b, "<li>census: %d deterministic counter%s compared exactly, ",
		          c->census_exact, c->census_exact == 1 ? "" : "s");
		if (c->census_differ == 0)
			sbuf_addf(b, "all equal</li>\n");
		else if (c->across)
			sbuf_addf(b, "%d differ between the designs (context, not judged)</li>\n",
			          c->census_differ);
		else
			sbuf_addf(b, "<span class=\"bad\">%d differ</span> (see the table)</li>\n",
			          c->census_differ);
	}
	sbuf_addf(b, "</ul>\n");
}

/* ---- Pauses and MMU: one figure per probe, every arm overlaid ---------------------------- */

/* The x of a window of `ms` on the MMU panel's log axis, 1 to 100 ms across [x0, x1]. */
static double report_html_mmu_x(double ms, double x0, double x1)
{
	return x0 + (x1 - x0) * log10(ms) / 2;
}

/* The MMU curve (left) and the pause histogram (right) of one probe, the arms overlaid. */
static void report_html_pause_svg(struct sbuf *b, const char *probe,
                                  const struct report_pause_arm *arms, const char *const *labels,
                                  size_t narms, size_t index)
{
	const double L0 = 46, L1 = 262, R0 = 318, R1 = 548;
	int lo = REPORT_PAUSE_BUCKETS, hi = -1;
	double top = 0;

	sbuf_addf(b,
	          "<svg class=\"pauseplot\" id=\"pauses-%zu\" xmlns=\"http://www.w3.org/2000/svg\" "
	          "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
	          index, REPORT_HTML_WIDTH, REPORT_HTML_HEIGHT, REPORT_HTML_WIDTH,
	          REPORT_HTML_HEIGHT);
	escape_xml(b, probe);
	sbuf_addf(b,
	          " MMU and pauses\">\n<text x=\"%.1f\" y=\"14\" font-weight=\"600\">minimum "
	          "mutator utilisation</text>\n<text x=\"%.1f\" y=\"14\" font-weight=\"600\">"
	          "pauses per run by length</text>\n",
	          L0, R0);
	/* Left: utilisation 0..1 against the window, 1 to 100 ms on a log axis. */
	for (int t = 0; t <= 2; t++) {
		double y = report_html_y(t / 2.0, 0, 1);

		sbuf_addf(
		    b,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
		    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>",
		    L0, y, L1, y, L0 - 4, y + 3.5, t / 2.0);
	}
	sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>\n",
	          L0, REPORT_HTML_TOP, L0, REPORT_HTML_BOTTOM);
	for (size_t w = 0; w < REPORT_PAUSE_WINDOWS; w++)
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>",
		          report_html_mmu_x(report_pause_windows[w].ms, L0, L1),
		          REPORT_HTML_BOTTOM + 13, report_pause_windows[w].ms);
	sbuf_addf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">window (ms, log)</text>\n",
	          (L0 + L1) / 2, REPORT_HTML_HEIGHT - 4);
	for (size_t a = 0; a < narms; a++) {
		const char *color = report_html_colors[a % REPORT_HTML_NCOLORS];
		const char *sep = "";

		/* An arm without a log has no curve, not a line along zero. */
		if (arms[a].runs == 0)
			continue;
		sbuf_addf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" points=\"",
		          color);
		for (size_t w = 0; w < REPORT_PAUSE_WINDOWS; w++) {
			if (!isfinite(arms[a].mmu[w]))
				continue;
			sbuf_addf(b, "%s%.1f,%.1f", sep,
			          report_html_mmu_x(report_pause_windows[w].ms, L0, L1),
			          report_html_y(arms[a].mmu[w], 0, 1));
			sep = " ";
		}
		sbuf_addf(b, "\"/>\n");
		for (size_t w = 0; w < REPORT_PAUSE_WINDOWS; w++) {
			double x = report_html_mmu_x(report_pause_windows[w].ms, L0, L1);

			if (!isfinite(arms[a].mmu[w]))
				continue;
			report_html_marker(b, (int)(a % 2), x, report_html_y(arms[a].mmu[w], 0, 1),
			                   color);
			sbuf_addf(b, "<title>");
			escape_xml(b, labels[a]);
			sbuf_addf(b, ": MMU(%s) = %.3f</title>", report_pause_windows[w].label,
			          arms[a].mmu[w]);
			report_html_marker_end(b, (int)(a % 2));
		}
	}
	/* Right: the buckets any arm used, one bar per arm in each. */
	for (size_t a = 0; a < narms; a++) {
		lo = arms[a].hist_lo < lo ? arms[a].hist_lo : lo;
		hi = arms[a].hist_hi > hi ? arms[a].hist_hi : hi;
		for (int k = arms[a].hist_lo; k <= arms[a].hist_hi; k++)
			top = fmax(top, arms[a].hist[k]);
	}
	if (hi < lo) {
		sbuf_addf(b, "<text x=\"%.1f\" y=\"90\">no pause</text></svg>\n", R0);
		return;
	}
	{
		double zero = 0;
		report_html_axis(b, R0, R1, &zero, &top, "census.pause_count", 0);
	}
	for (int k = lo; k <= hi; k++) {
		double band = (R1 - R0 - 8) / (double)(hi - lo + 1);
		double x = R0 + 8 + band * (k - lo), bar = band / (double)(narms + 1);
		char edge[24];

		report_pauses_bucket_label(k, edge, sizeof edge);
		for (size_t a = 0; a < narms; a++) {
			double y = report_html_y(arms[a].hist[k], 0, top);

			sbuf_addf(b,
			          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			          "fill=\"%s\"><title>",
			          x + bar * ((double)a + 0.5), y, bar, REPORT_HTML_BOTTOM - y,
			          report_html_colors[a % REPORT_HTML_NCOLORS]);
			escape_xml(b, labels[a]);
			sbuf_addf(b, ": %.2f pauses per run from %s</title></rect>",
			          arms[a].hist[k], edge);
		}
		if (k == lo || k == hi || (hi - lo > 2 && k == (lo + hi) / 2))
			sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
			          x + band / 2, REPORT_HTML_BOTTOM + 13, edge);
	}
	sbuf_addf(b,
	          "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">pause length (log2 "
	          "buckets)</text></svg>\n",
	          (R0 + R1) / 2, REPORT_HTML_HEIGHT - 4);
}

/* The figures behind one probe's plot, one column per arm. */
static void report_html_pause_table(struct sbuf *b, const struct report_pause_arm *arms,
                                    const char *const *labels, size_t narms)
{
	sbuf_addf(b, "<table class=\"pauses\"><tr><th class=\"l\">figure</th>");
	for (size_t a = 0; a < narms; a++) {
		sbuf_addf(b, "<th>");
		escape_xml(b, labels[a]);
		sbuf_addf(b, "</th>");
	}
	sbuf_addf(b, "</tr>\n");
	for (size_t r = 0; r < REPORT_PAUSE_ROWS; r++) {
		char v[48];

		report_pauses_row_label(r, v, sizeof v);
		sbuf_addf(b, "<tr><td class=\"l\">%s</td>", v);
		for (size_t a = 0; a < narms; a++) {
			report_pauses_cell(&arms[a], r, v, sizeof v);
			sbuf_addf(b, "<td>%s</td>", v);
		}
		sbuf_addf(b, "</tr>\n");
	}
	sbuf_addf(b, "</table>\n");
}

/*
 * The section "Pauses and minimum mutator utilisation": for every probe where an arm kept a
 * pause log, its MMU curve and pause histogram with the arms overlaid (medians over runs), and
 * the figures. Nothing when no arm kept one.
 */
static void report_html_pauses(struct sbuf *b, const struct report_data *d, const int *arms,
                               const char *const *labels, size_t narms)
{
	struct report_pause_arm *sum = xcalloc(narms, sizeof *sum);
	int started = 0;

	for (size_t p = 0; p < d->probes.n; p++) {
		int any = 0;

		for (size_t a = 0; a < narms; a++)
			any |= report_pauses_arm(d, d->probes.items[p], arms[a], &sum[a]);
		if (!any)
			continue;
		if (!started) {
			sbuf_addf(
			    b, "<h2>Pauses and minimum mutator utilisation</h2>\n<p "
			       "class=\"meta\">From each collector's pause log (the census "
			       "<code>pauses</code> section): MMU(w) is the smallest share of any "
			       "window of w the program kept for itself; medians over runs, "
			       "histogram bars are mean pauses per run. An arm without a pause "
			       "log has no curve.</p>\n<p class=\"legend\">");
			for (size_t a = 0; a < narms; a++) {
				sbuf_addf(
				    b, "<span><span class=\"sw\" style=\"background:%s\"></span>",
				    report_html_colors[a % REPORT_HTML_NCOLORS]);
				escape_xml(b, labels[a]);
				sbuf_addf(b, "</span>");
			}
			sbuf_addf(b, "</p>\n<div class=\"grid\">\n");
			started = 1;
		}
		sbuf_addf(b, "<figure id=\"pauses-fig-%zu\"><figcaption><b>", p);
		escape_xml(b, d->probes.items[p]);
		sbuf_addf(b, "</b> &middot; MMU and pause lengths (");
		for (size_t a = 0; a < narms; a++) {
			sbuf_addf(b, "%s", a ? ", " : "");
			escape_xml(b, labels[a]);
			sbuf_addf(b, " %zu run%s", sum[a].runs, sum[a].runs == 1 ? "" : "s");
		}
		sbuf_addf(b, ")</figcaption>\n");
		report_html_pause_svg(b, d->probes.items[p], sum, labels, narms, p);
		report_html_pause_table(b, sum, labels, narms);
		sbuf_addf(b, "</figure>\n");
	}
	if (started)
		sbuf_addf(b, "</div>\n");
	free(sum);
}

/*
 * A cell's samples as a sparkline, for the cells the page does not lead with: each arm's
 * values by round as a line, no axes. One <svg class="plot"> like a full plot, an eighth of
 * its size: the page of a whole session's cells stays small.
 */
static void report_html_spark(struct sbuf *b, const struct compare_cell *cell, size_t index)
{
	const double W = 150, H = 26, P = 3;
	const struct paired_cell *s = &cell->stats;
	double lo = INFINITY, hi = -INFINITY;

	sbuf_addf(b,
	          "<svg class=\"plot\" id=\"plot-%zu\" width=\"%.0f\" height=\"%.0f\" "
	          "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"",
	          index, W, H, W, H);
	escape_xml(b, cell->probe);
	sbuf_addf(b, " ");
	escape_xml(b, cell->metric);
	sbuf_addf(b, "\">");
	for (size_t i = 0; i < s->n; i++) {
		lo = fmin(lo, fmin(cell->base[i], cell->fix[i]));
		hi = fmax(hi, fmax(cell->base[i], cell->fix[i]));
	}
	if (s->n) {
		report_html_pad(&lo, &hi);
		for (int arm = 0; arm < 2; arm++) {
			sbuf_addf(b, "<polyline fill=\"none\" stroke=\"%s\" points=\"",
			          report_html_colors[arm]);
			for (size_t i = 0; i < s->n; i++) {
				double v = arm ? cell->fix[i] : cell->base[i];
				double x = s->n == 1
				               ? W / 2
				               : P + (W - 2 * P) * (double)i / (double)(s->n - 1);
				double y = H - P - (v - lo) / (hi - lo) * (H - 2 * P);
				/* One point draws nothing as a line: a short stroke across it. */
				if (s->n == 1)
					sbuf_addf(b, "%.1f,%.1f ", x - 6, y);
				sbuf_addf(b, "%s%.1f,%.1f", i ? " " : "", s->n == 1 ? x + 6 : x, y);
			}
			sbuf_addf(b, "\"/>");
		}
	}
	sbuf_addf(b, "</svg>");
}

/* One row of a cells table: the figures, the verdict, and its plot (a sparkline) or a link. */
static void report_html_cell_row(struct sbuf *b, const struct compare_cell *cell, size_t i,
                                 int spark)
{
	const struct paired_cell *s = &cell->stats;
	char x[48], y[48], dl[48], pct[24], ci[64], signs[32], p[16] = "-", q[16] = "-";
	double pv, qv;

	metrics_format_value(cell->metric, s->base_median, x, sizeof x);
	metrics_format_value(cell->metric, s->fix_median, y, sizeof y);
	report_format_delta(cell->metric, s->delta_median, dl, sizeof dl);
	report_format_pct(s->delta_pct, pct, sizeof pct);
	report_text_interval(cell, ci, sizeof ci);
	compare_signs_text(cell, signs, sizeof signs);
	compare_cell_pq(cell, &pv, &qv);
	if (!isnan(pv))
		snprintf(p, sizeof p, "%.4f", pv);
	if (!isnan(qv))
		snprintf(q, sizeof q, "%.4f", qv);
	sbuf_addf(b, "<tr%s><td class=\"l\">", cell->pol.decides ? "" : " class=\"info\"");
	if (spark) {
		sbuf_addf(b, "<span id=\"cell-%zu\"></span>", i);
		escape_xml(b, cell->probe);
	} else {
		sbuf_addf(b, "<a href=\"#cell-%zu\">", i);
		escape_xml(b, cell->probe);
		sbuf_addf(b, "</a>");
	}
	sbuf_addf(b, "</td><td class=\"l\">");
	escape_xml(b, cell->metric);
	sbuf_addf(b,
	          "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
	          "<td class=\"l\">%s</td><td>%s</td><td>%s</td><td class=\"l "
	          "%s\">%s%s</td><td>",
	          x, y, dl, pct, ci, signs, p, q, report_html_cell_class(cell),
	          compare_cell_verdict_text(cell),
	          s->bimodal_base || s->bimodal_fix ? " (bimodal)" : "");
	if (spark)
		report_html_spark(b, cell, i);
	sbuf_addf(b, "</td></tr>\n");
}

static void report_html_cells_head(struct sbuf *b)
{
	sbuf_addf(b, "<div class=\"scroll\"><table>\n<tr><th class=\"l\">probe</th><th "
	             "class=\"l\">metric</th><th>BASE median</th><th>FIX median</th><th>median "
	             "delta</th><th>%%</th><th>95%% CI of delta</th><th class=\"l\">rounds</th>"
	             "<th>p</th><th>q</th><th class=\"l\">verdict</th><th>samples</th></tr>\n");
}

/* A judged cell (WORSE or better): its full plot, the page leads with these. */
static int report_html_judged(const struct compare_cell *cell)
{
	return compare_cell_flagged(cell) && !cell->inert &&
	       (cell->stats.verdict == PAIRED_WORSE || cell->stats.verdict == PAIRED_BETTER);
}

/*
 * The A/B page leads with what a reader acts on: the verdict and what moved, each probe's
 * largest change, the judged changes with their plots, the cells that could not be judged,
 * and where the instructions moved; every other cell (same, info, context, with a sparkline
 * each), every probe's identity and the pauses wait in one closed <details>.
 */
char *report_html_ab(const struct compare *c)
{
	const struct report_data *d = c->data;
	struct sbuf b, notes;
	char counts[128], *title, *across, *rounds = compare_rounds_text(c), *moved;
	const char *banner = c->outcome == COMPARE_WORSE      ? "bad"
	                     : c->outcome == COMPARE_UNJUDGED ? "warn"
	                                                      : "good";
	size_t judged = 0, unjudged = 0, others = 0;

	sbuf_init(&b);
	moved = compare_headline_moved(c);
	title = xasprintf("gcratchet %s: %s vs %s", d->origin ? "compare" : "ab",
	                  d->builds[c->base].label, d->builds[c->fix].label);
	report_html_head(&b, title);
	sbuf_addf(&b, "<h1>");
	escape_xml(&b, title);
	sbuf_addf(&b, "</h1>\n<div class=\"banner %s\">", banner);
	escape_xml(&b, moved);
	report_text_counts(c, counts, sizeof counts);
	sbuf_addf(&b, " &mdash; %s</div>\n", counts);
	report_html_build_line(&b, "BASE", &d->builds[c->base], report_html_colors[0]);
	report_html_build_line(&b, "FIX", &d->builds[c->fix], report_html_colors[1]);
	if (d->origin) {
		/* Two stored results: where each side came from, not one session's story. */
		sbuf_addf(&b, "<p class=\"meta\">");
		escape_xml(&b, d->origin);
		sbuf_addf(&b,
		          "</p>\n<p class=\"meta\">rounds paired: %s (round k of one with round "
		          "k of the other); only complete rounds are paired.</p>\n",
		          rounds);
	} else {
		report_html_session_meta(&b, d);
		sbuf_addf(&b,
		          "<p class=\"meta\">rounds complete: %s; builds interleaved ABBA; only "
		          "complete rounds are paired.</p>\n",
		          rounds);
	}
	if ((across = compare_across_text(c))) {
		sbuf_addf(&b, "<p class=\"meta\">Judged ");
		escape_xml(&b, across);
		sbuf_addf(&b, ".</p>\n");
		free(across);
	}
	report_html_identity_items(&b, c, 0);

	for (size_t i = 0; i < c->ncells; i++) {
		judged += report_html_judged(&c->cells[i]);
		unjudged += compare_cell_flagged(&c->cells[i]) && !report_html_judged(&c->cells[i]);
	}
	others = c->ncells - judged - unjudged;

	sbuf_addf(&b, "<h2>Each probe's largest change</h2>\n");
	report_html_cells_head(&b);
	for (size_t p = 0; p < c->nprobes; p++) {
		const struct compare_cell *w = compare_probe_worst(c, c->probes[p].probe);
		if (w)
			report_html_cell_row(&b, w, (size_t)(w - c->cells), 0);
	}
	sbuf_addf(&b, "</table></div>\n");

	if (judged) {
		sbuf_addf(&b,
		          "<h2>Judged changes: %zu cell%s</h2>\n<p class=\"legend\"><span><span "
		          "class=\"sw\" style=\"background:%s\"></span>BASE</span><span><span "
		          "class=\"sw\" style=\"background:%s;border-radius:0\"></span>FIX</span>"
		          "<span>bars: FIX - BASE per round (red: worse, green: better)</span>"
		          "<span>black line: median delta; shaded: its confidence "
		          "interval</span></p>\n<div "
		          "class=\"grid\">\n",
		          judged, judged == 1 ? "" : "s", report_html_colors[0],
		          report_html_colors[1]);
		for (size_t i = 0; i < c->ncells; i++) {
			const struct compare_cell *cell = &c->cells[i];
			const struct paired_cell *s = &cell->stats;
			char dl[48], pct[24], ci[64];
			if (!report_html_judged(cell))
				continue;
			report_format_delta(cell->metric, s->delta_median, dl, sizeof dl);
			report_format_pct(s->delta_pct, pct, sizeof pct);
			report_text_interval(cell, ci, sizeof ci);
			sbuf_addf(&b, "<figure id=\"cell-%zu\"><figcaption><b>", i);
			escape_xml(&b, cell->probe);
			sbuf_addf(&b, "</b> &middot; ");
			escape_xml(&b, cell->metric);
			sbuf_addf(&b,
			          " &mdash; <span class=\"%s\">%s</span>, median delta %s (%s), CI "
			          "%s%s</figcaption>\n",
			          report_html_cell_class(cell), compare_cell_verdict_text(cell), dl,
			          pct, ci, s->bimodal_base || s->bimodal_fix ? ", bimodal" : "");
			report_html_ab_svg(&b, cell, i);
			sbuf_addf(&b, "</figure>\n");
		}
		sbuf_addf(&b, "</div>\n");
	}
	if (unjudged) {
		sbuf_addf(&b, "<h2>Could not judge: %zu cell%s</h2>\n", unjudged,
		          unjudged == 1 ? "" : "s");
		report_html_cells_head(&b);
		for (size_t i = 0; i < c->ncells; i++)
			if (compare_cell_flagged(&c->cells[i]) && !report_html_judged(&c->cells[i]))
				report_html_cell_row(&b, &c->cells[i], i, 1);
		sbuf_addf(&b, "</table></div>\n");
	}
	if (c->nwhere) {
		sbuf_addf(
		    &b, "<h2>Where the instructions moved</h2>\n<p class=\"meta\">cachegrind's Ir "
		        "by function, FIX - BASE; share: of the probe's whole change.</p>\n");
		for (size_t i = 0; i < c->nwhere; i++) {
			const struct compare_where *w = &c->where[i];
			char how[128];
			struct movers_view v = {w->probe, &w->diff, "BASE", "FIX", how};
			report_text_where_how(w, how, sizeof how);
			movers_html(&b, &v, MOVERS_HTML_MAX);
		}
	}

	sbuf_init(&notes);
	report_text_warnings(c, &notes, "", escape_xml);
	sbuf_addf(&b, "<h2>Warnings and notes</h2>\n<ul>\n");
	for (char *line = notes.data, *nl; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		/* report_text_warnings escaped the names already; the rest is our own text. */
		sbuf_addf(&b, "<li>%.*s</li>\n", (int)(nl - line), line);
	}
	sbuf_addf(&b, "</ul>\n");
	sbuf_release(&notes);

	sbuf_addf(&b,
	          "<details id=\"all\"><summary>All the other cells: %zu (same, info, context), "
	          "every probe's identity, the pauses</summary>\n<h2>Identity</h2>\n",
	          others);
	report_html_identity_items(&b, c, 1);
	if (others) {
		sbuf_addf(&b, "<h2>Cells</h2>\n");
		report_html_cells_head(&b);
		for (size_t i = 0; i < c->ncells; i++)
			if (!compare_cell_flagged(&c->cells[i]))
				report_html_cell_row(&b, &c->cells[i], i, 1);
		sbuf_addf(&b, "</table></div>\n");
	}
	{
		const int arms[2] = {d->builds[c->base].position, d->builds[c->fix].position};
		const char *const labels[2] = {"BASE", "FIX"};

		report_html_pauses(&b, d, arms, labels, 2);
	}
	sbuf_addf(&b, "</details>\n");
	report_html_tail(&b);
	free(moved);
	free(title);
	free(rounds);
	return b.data;
}

/* ---- The session page: any number of builds, samples by round, no comparison ---------- */

struct report_html_point {
	int round; /* measured round; 0 for a valgrind run */
	double v;
};

static void report_html_session_svg(struct sbuf *b, const struct report_data *d, const char *probe,
                                    const char *metric, size_t index)
{
	const double L0 = 66, L1 = REPORT_HTML_WIDTH - 16;
	int warmup = (int)d->session.warmup, maxround = 0, has_vg = 0;
	double lo = INFINITY, hi = -INFINITY;
	size_t npts = 0;

	for (size_t i = 0; i < d->nruns; i++) {
		const struct store_run *r = &d->runs[i];
		const double *v;
		if (r->warmup || strcmp(r->probe, probe) || r->status != RUN_STATUS_OK ||
		    !(v = metric_set_get(&r->metrics, metric)))
			continue;
		lo = fmin(lo, *v);
		hi = fmax(hi, *v);
		if (r->kind == RUN_KIND_VALGRIND)
			has_vg = 1;
		else if (r->round - warmup > maxround)
			maxround = r->round - warmup;
		npts++;
	}
	sbuf_addf(b,
	          "<svg class=\"plot\" id=\"plot-%zu\" xmlns=\"http://www.w3.org/2000/svg\" "
	          "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
	          index, REPORT_HTML_WIDTH, REPORT_HTML_HEIGHT, REPORT_HTML_WIDTH,
	          REPORT_HTML_HEIGHT);
	escape_xml(b, probe);
	sbuf_addf(b, " ");
	escape_xml(b, metric);
	sbuf_addf(b, "\">\n<text x=\"%.1f\" y=\"14\" font-weight=\"600\">samples by round</text>\n",
	          L0);
	if (npts == 0) {
		sbuf_addf(b, "<text x=\"%.1f\" y=\"90\">no successful run</text></svg>\n", L0);
		return;
	}
	if (!report_html_from_zero(metric))
		report_html_pad(&lo, &hi);
	report_html_axis(b, L0, L1, &lo, &hi, metric, 0);
	{
		size_t slots = (size_t)maxround + (size_t)has_vg;
		for (size_t bi = 0; bi < d->nbuilds; bi++) {
			const char *color = report_html_colors[bi % REPORT_HTML_NCOLORS];
			for (size_t i = 0; i < d->nruns; i++) {
				const struct store_run *r = &d->runs[i];
				const double *v;
				size_t slot;
				double x, off;
				char label[48];
				if (r->arm != d->builds[bi].position || r->warmup ||
				    strcmp(r->probe, probe) || r->status != RUN_STATUS_OK ||
				    !(v = metric_set_get(&r->metrics, metric)))
					continue;
				slot = r->kind == RUN_KIND_VALGRIND
				           ? (size_t)maxround
				           : (size_t)(r->round - warmup - 1);
				off = d->nbuilds > 1
				          ? ((double)bi - (double)(d->nbuilds - 1) / 2) * 5
				          : 0;
				x = report_html_x(slot, slots, L0, L1) + off;
				report_html_marker(b, (int)(bi % 2), x, report_html_y(*v, lo, hi),
				                   color);
				metrics_format_value(metric, *v, label, sizeof label);
				sbuf_addf(b, "<title>");
				escape_xml(b, d->builds[bi].label);
				sbuf_addf(b, " round %d: %s</title>", r->round - warmup, label);
				report_html_marker_end(b, (int)(bi % 2));
			}
		}
		for (size_t s = 0; s < slots; s++)
			if (slots <= 25 || s % ((slots + 11) / 12) == 0)
				report_html_round_label(b, s < (size_t)maxround ? (int)s + 1 : 0,
				                        report_html_x(s, slots, L0, L1));
	}
	sbuf_addf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">round</text></svg>\n",
	          (L0 + L1) / 2, REPORT_HTML_HEIGHT - 4);
}

char *report_html_session(const struct report_data *d)
{
	struct sbuf b;
	char *title = xasprintf("gcratchet session %lld", (long long)d->session.id);
	size_t index = 0;

	sbuf_init(&b);
	report_html_head(&b, title);
	sbuf_addf(&b, "<h1>");
	escape_xml(&b, title);
	sbuf_addf(&b, "</h1>\n");
	for (size_t i = 0; i < d->nbuilds; i++) {
		char *arm = xasprintf("build %zu", i + 1);
		report_html_build_line(&b, arm, &d->builds[i],
		                       report_html_colors[i % REPORT_HTML_NCOLORS]);
		free(arm);
	}
	report_html_session_meta(&b, d);

	sbuf_addf(&b,
	          "<h2>Runs</h2>\n<table>\n<tr><th class=\"l\">probe</th><th class=\"l\">build</th>"
	          "<th>runs</th><th>failed</th><th class=\"l\">checksum</th></tr>\n");
	for (size_t p = 0; p < d->probes.n; p++) {
		for (size_t bi = 0; bi < d->nbuilds; bi++) {
			int runs = 0, failed = 0;
			const char *sum = NULL;
			for (size_t i = 0; i < d->nruns; i++) {
				const struct store_run *r = &d->runs[i];
				if (r->arm != d->builds[bi].position ||
				    strcmp(r->probe, d->probes.items[p]))
					continue;
				runs++;
				failed += r->status != RUN_STATUS_OK;
				if (!sum && r->checksum)
					sum = r->checksum;
			}
			sbuf_addf(&b, "<tr><td class=\"l\">");
			escape_xml(&b, d->probes.items[p]);
			sbuf_addf(&b, "</td><td class=\"l\">");
			escape_xml(&b, d->builds[bi].label);
			sbuf_addf(&b, "</td><td>%d</td><td%s>%d</td><td class=\"l\"><code>", runs,
			          failed ? " class=\"bad\"" : "", failed);
			escape_xml(&b, sum ? sum : "-");
			sbuf_addf(&b, "</code></td></tr>\n");
		}
	}
	sbuf_addf(&b, "</table>\n<h2>Plots</h2>\n<p class=\"legend\">");
	for (size_t i = 0; i < d->nbuilds; i++) {
		sbuf_addf(&b, "<span><span class=\"sw\" style=\"background:%s\"></span>",
		          report_html_colors[i % REPORT_HTML_NCOLORS]);
		escape_xml(&b, d->builds[i].label);
		sbuf_addf(&b, "</span>");
	}
	sbuf_addf(&b, "</p>\n<div class=\"grid\">\n");
	for (size_t p = 0; p < d->probes.n; p++) {
		struct strlist metrics = {0};
		for (size_t i = 0; i < d->nruns; i++) {
			const struct store_run *r = &d->runs[i];
			if (strcmp(r->probe, d->probes.items[p]) || r->status != RUN_STATUS_OK ||
			    r->warmup)
				continue;
			for (size_t m = 0; m < r->metrics.n; m++)
				if (!strlist_contains(&metrics, r->metrics.items[m].name))
					strlist_push(&metrics, r->metrics.items[m].name);
		}
		compare_sort_metrics(&metrics);
		for (size_t m = 0; m < metrics.n; m++) {
			sbuf_addf(&b, "<figure id=\"cell-%zu\"><figcaption><b>", index);
			escape_xml(&b, d->probes.items[p]);
			sbuf_addf(&b, "</b> &middot; ");
			escape_xml(&b, metrics.items[m]);
			sbuf_addf(&b, "</figcaption>\n");
			report_html_session_svg(&b, d, d->probes.items[p], metrics.items[m], index);
			sbuf_addf(&b, "</figure>\n");
			index++;
		}
		strlist_release(&metrics);
	}
	sbuf_addf(&b, "</div>\n");
	{
		int *arms = xcalloc(d->nbuilds ? d->nbuilds : 1, sizeof *arms);
		const char **labels = xcalloc(d->nbuilds ? d->nbuilds : 1, sizeof *labels);

		for (size_t i = 0; i < d->nbuilds; i++) {
			arms[i] = d->builds[i].position;
			labels[i] = d->builds[i].label;
		}
		report_html_pauses(&b, d, arms, labels, d->nbuilds);
		free(arms);
		free(labels);
	}
	report_html_tail(&b);
	free(title);
	return b.data;
}
