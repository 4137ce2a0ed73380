#include "movers.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "metrics.h"
#include "report.h"

void movers_share_text(const struct fnprof_mover *m, char *buf, size_t size)
{
	if (!isfinite(m->share))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f%%", 100 * m->share);
}

/* The figures of one mover as every form shows them. */
struct movers_cells {
	char base[32], fix[32], delta[32], pct[24], share[24], note[160];
};

static void movers_cells(const struct movers_view *v, const struct fnprof_mover *m,
                         struct movers_cells *c)
{
	char under[24];

	/* Absent from a cut list: below its floor, perhaps none, and counted as none. */
	metrics_format_value("valgrind.ir", m->under_ir, under, sizeof under);
	if (m->side == FNPROF_FIX_ONLY)
		snprintf(c->base, sizeof c->base, m->under ? "< %s" : "-", under);
	else
		metrics_format_value("valgrind.ir", m->base_ir, c->base, sizeof c->base);
	if (m->side == FNPROF_BASE_ONLY)
		snprintf(c->fix, sizeof c->fix, m->under ? "< %s" : "-", under);
	else
		metrics_format_value("valgrind.ir", m->fix_ir, c->fix, sizeof c->fix);
	report_format_delta("valgrind.ir", m->delta, c->delta, sizeof c->delta);
	report_format_pct(v->diff->base_total > 0 ? 100 * m->delta / v->diff->base_total : NAN,
	                  c->pct, sizeof c->pct);
	movers_share_text(m, c->share, sizeof c->share);
	fnprof_mover_note(m, v->base_label, v->fix_label, c->note, sizeof c->note);
}

/* "valgrind.ir 290325635 -> 351234567 (+60909932, +20.98%)"; narrow: "290.3M -> ..." */
static void movers_totals(const struct movers_view *v, char *buf, size_t size, int narrow)
{
	char x[32], y[32], d[32], pct[24];
	void (*format)(const char *, double, char *, size_t) =
	    narrow ? metrics_format_short : metrics_format_value;

	format("valgrind.ir", v->diff->base_total, x, sizeof x);
	format("valgrind.ir", v->diff->fix_total, y, sizeof y);
	if (narrow) {
		format("valgrind.ir", fabs(v->diff->delta), pct, sizeof pct);
		snprintf(d, sizeof d, "%s%s",
		         v->diff->delta > 0   ? "+"
		         : v->diff->delta < 0 ? "-"
		                              : "",
		         pct);
	} else {
		report_format_delta("valgrind.ir", v->diff->delta, d, sizeof d);
	}
	report_format_pct(v->diff->base_total > 0 ? 100 * v->diff->delta / v->diff->base_total
	                                          : NAN,
	                  pct, sizeof pct);
	snprintf(buf, size, "Ir %s -> %s (%s, %s)", x, y, d, pct);
}

/* A narrow table's counts: whole and short; a file by its last component. */
static void movers_narrow_cells(const struct fnprof_mover *m, struct movers_cells *c)
{
	char under[24];
	double x[3] = {m->base_ir, m->fix_ir, fabs(m->delta)};
	char *out[3] = {c->base, c->fix, c->delta};

	metrics_format_short("valgrind.ir", m->under_ir, under, sizeof under);
	for (int k = 0; k < 3; k++)
		metrics_format_short("valgrind.ir", x[k], out[k], sizeof c->base);
	if (m->side == FNPROF_FIX_ONLY)
		snprintf(c->base, sizeof c->base, m->under ? "< %s" : "-", under);
	if (m->side == FNPROF_BASE_ONLY)
		snprintf(c->fix, sizeof c->fix, m->under ? "< %s" : "-", under);
	if (m->delta != 0) {
		memmove(c->delta + 1, c->delta, strlen(c->delta) + 1);
		c->delta[0] = m->delta > 0 ? '+' : '-';
	}
}

static const char *movers_basename(const char *file)
{
	const char *slash = file ? strrchr(file, '/') : NULL;

	return slash ? slash + 1 : file ? file : "?";
}

/* s in at most w columns: cut, its last one "~", when longer. */
static void movers_cut(struct sbuf *b, const char *s, size_t w)
{
	if (strlen(s) <= w)
		sbuf_addf(b, "%-*s", (int)w, s);
	else
		sbuf_addf(b, "%.*s~", (int)w - 1, s);
}

/* What a narrow row takes besides its name and file: the figures, and "  only in BASE". */
#define MOVERS_NARROW_FIGURES 67

static void movers_text_as(struct sbuf *b, const struct movers_view *v, size_t max,
                           const char *indent, int narrow, size_t width)
{
	char totals[160];
	size_t shown = v->diff->n < max ? v->diff->n : max, wname = 8, wfile = 4;

	movers_totals(v, totals, sizeof totals, narrow);
	sbuf_addf(b, "%s", indent);
	escape_line(b, v->probe);
	sbuf_addf(b, ": %s", totals);
	if (v->how) {
		sbuf_addf(b, "; ");
		escape_line(b, v->how);
	}
	sbuf_addf(b, "%s\n", v->diff->n ? "" : ": no function moved");
	if (!shown)
		return;
	for (size_t i = 0; narrow && i < shown; i++) {
		const struct fnprof_mover *m = &v->diff->movers[i];
		size_t n = strlen(m->name), f = strlen(movers_basename(m->file));
		wname = n > wname ? n : wname;
		wfile = f > wfile ? f : wfile;
	}
	if (narrow) {
		/* The file gives way first (down to 8 columns), then the function's name. */
		size_t used = strlen(indent) + MOVERS_NARROW_FIGURES,
		       room = width > used + 16 ? width - used : 16;
		if (wname + wfile > room)
			wfile = room > wname + 8 ? room - wname : 8;
		if (wname + wfile > room)
			wname = room - wfile;
		sbuf_addf(b, "%s  %-*s %-*s %9s %9s %9s %8s %7s\n", indent, (int)wname, "function",
		          (int)wfile, "file", v->base_label, v->fix_label, "delta", "of Ir",
		          "share");
	} else
		sbuf_addf(b, "%s  %-34s %-36s %14s %14s %14s %9s %7s\n", indent, "function", "file",
		          v->base_label, v->fix_label, "delta", "of Ir", "share");
	for (size_t i = 0; i < shown; i++) {
		const struct fnprof_mover *m = &v->diff->movers[i];
		struct movers_cells c;
		struct sbuf name, file;
		movers_cells(v, m, &c);
		sbuf_init(&name);
		sbuf_init(&file);
		escape_line(&name, m->name);
		if (narrow) {
			movers_narrow_cells(m, &c);
			escape_line(&file, movers_basename(m->file));
			sbuf_addf(b, "%s  ", indent);
			movers_cut(b, name.data, wname);
			sbuf_addf(b, " ");
			movers_cut(b, file.data, wfile);
			sbuf_addf(b, " %9s %9s %9s %8s %7s%s%s\n", c.base, c.fix, c.delta, c.pct,
			          c.share, *c.note ? "  " : "", c.note);
		} else {
			escape_line(&file, m->file ? m->file : "?");
			sbuf_addf(b, "%s  %-34s %-36s %14s %14s %14s %9s %7s%s%s\n", indent,
			          name.data, file.data, c.base, c.fix, c.delta, c.pct, c.share,
			          *c.note ? "  " : "", c.note);
		}
		sbuf_release(&name);
		sbuf_release(&file);
	}
	if (v->diff->n > shown)
		sbuf_addf(b, "%s  ... %zu more function%s moved\n", indent, v->diff->n - shown,
		          v->diff->n - shown == 1 ? "" : "s");
}

void movers_text(struct sbuf *b, const struct movers_view *v, size_t max, const char *indent)
{
	movers_text_as(b, v, max, indent, 0, 0);
}

void movers_text_narrow(struct sbuf *b, const struct movers_view *v, size_t max, const char *indent,
                        size_t width)
{
	movers_text_as(b, v, max, indent, 1, width);
}

void movers_md(struct sbuf *b, const struct movers_view *v, size_t max)
{
	char totals[160];
	size_t shown = v->diff->n < max ? v->diff->n : max;

	movers_totals(v, totals, sizeof totals, 0);
	sbuf_addf(b, "\n**");
	escape_md(b, v->probe);
	sbuf_addf(b, "**: %s", totals);
	if (v->how) {
		sbuf_addf(b, "; ");
		escape_md(b, v->how);
	}
	sbuf_addf(b, "%s\n", v->diff->n ? "" : ": no function moved");
	if (!shown)
		return;
	sbuf_addf(b, "\n| function | file | ");
	escape_md(b, v->base_label);
	sbuf_addf(b, " | ");
	escape_md(b, v->fix_label);
	sbuf_addf(b, " | delta | of Ir | share | note |\n|---|---|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < shown; i++) {
		const struct fnprof_mover *m = &v->diff->movers[i];
		struct movers_cells c;
		movers_cells(v, m, &c);
		sbuf_addf(b, "| ");
		escape_md(b, m->name);
		sbuf_addf(b, " | ");
		escape_md(b, m->file ? m->file : "?");
		sbuf_addf(b, " | %s | %s | %s | %s | %s | ", c.base, c.fix, c.delta, c.pct,
		          c.share);
		escape_md(b, c.note);
		sbuf_addf(b, " |\n");
	}
	if (v->diff->n > shown)
		sbuf_addf(b, "\n%zu more function%s moved (every one: gcratchet explain).\n",
		          v->diff->n - shown, v->diff->n - shown == 1 ? "" : "s");
}

/* One function's move summed over several probes' diffs (movers_md_sum). */
struct movers_sum {
	const char *name, *file; /* borrowed from the first diff that moved it */
	double delta;
	size_t probes;
	const char *probe; /* the one probe it moved on, while there is one */
};

static int movers_sum_cmp(const void *a, const void *b)
{
	const struct movers_sum *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A function whose share of the summed change is below this is not listed (but the first). */
#define MOVERS_SUM_MIN_SHARE 0.01

void movers_md_sum(struct sbuf *b, const struct fnprof_diff *const *diffs,
                   const char *const *probes, size_t n, size_t max)
{
	struct movers_sum *s = NULL;
	size_t ns = 0, cap = 0, shown = 0;
	double total = 0;

	for (size_t k = 0; k < n; k++) {
		total += diffs[k]->delta;
		for (size_t i = 0; i < diffs[k]->n; i++) {
			const struct fnprof_mover *m = &diffs[k]->movers[i];
			size_t j = 0;
			while (j < ns && strcmp(s[j].name, m->name) != 0)
				j++;
			if (j == ns) {
				if (ns == cap) {
					cap = cap ? 2 * cap : 16;
					s = xrealloc(s, cap * sizeof *s);
				}
				s[ns++] = (struct movers_sum){m->name, m->file, 0, 0, probes[k]};
			}
			s[j].delta += m->delta;
			s[j].probes++;
		}
	}
	if (ns)
		qsort(s, ns, sizeof *s, movers_sum_cmp);
	for (size_t j = 0; j < ns && shown < max; j++) {
		char d[32], share[24];
		double part = total != 0 ? s[j].delta / total : NAN;
		if (shown && isfinite(part) && fabs(part) < MOVERS_SUM_MIN_SHARE)
			break;
		report_format_delta("valgrind.ir", s[j].delta, d, sizeof d);
		if (isfinite(part))
			snprintf(share, sizeof share, "%.1f%%", 100 * part);
		else
			snprintf(share, sizeof share, "-");
		sbuf_addf(b, "- ");
		escape_md(b, s[j].name);
		sbuf_addf(b, " (");
		escape_md(b, s[j].file ? s[j].file : "?");
		sbuf_addf(b, "): %s Ir, %s of the change, on ", d, share);
		if (s[j].probes == 1)
			escape_md(b, s[j].probe);
		else
			sbuf_addf(b, "%zu probes", s[j].probes);
		sbuf_addf(b, "\n");
		shown++;
	}
	if (ns > shown)
		sbuf_addf(b, "- %zu more function%s moved less\n", ns - shown,
		          ns - shown == 1 ? "" : "s");
	free(s);
}

void movers_html(struct sbuf *b, const struct movers_view *v, size_t max)
{
	char totals[160];
	size_t shown = v->diff->n < max ? v->diff->n : max;

	movers_totals(v, totals, sizeof totals, 0);
	sbuf_addf(b, "<h3>");
	escape_xml(b, v->probe);
	sbuf_addf(b, "</h3>\n<p class=\"meta\">%s", totals);
	if (v->how) {
		sbuf_addf(b, "; ");
		escape_xml(b, v->how);
	}
	sbuf_addf(b, "%s</p>\n", v->diff->n ? "" : ": no function moved");
	if (!shown)
		return;
	sbuf_addf(b, "<div class=\"scroll\"><table class=\"movers\">\n<tr><th class=\"l\">function"
	             "</th><th class=\"l\">file</th><th>");
	escape_xml(b, v->base_label);
	sbuf_addf(b, "</th><th>");
	escape_xml(b, v->fix_label);
	sbuf_addf(b, "</th><th>delta</th><th>of Ir</th><th>share of the change</th><th "
	             "class=\"l\">note</th></tr>\n");
	for (size_t i = 0; i < shown; i++) {
		const struct fnprof_mover *m = &v->diff->movers[i];
		struct movers_cells c;
		movers_cells(v, m, &c);
		sbuf_addf(b, "<tr><td class=\"l\"><code>");
		escape_xml(b, m->name);
		sbuf_addf(b, "</code></td><td class=\"l\">");
		escape_xml(b, m->file ? m->file : "?");
		sbuf_addf(
		    b,
		    "</td><td>%s</td><td>%s</td><td class=\"%s\">%s</td><td>%s</td><td>%s</td>"
		    "<td class=\"l\">",
		    c.base, c.fix, m->delta > 0 ? "worse" : "better", c.delta, c.pct, c.share);
		escape_xml(b, c.note);
		sbuf_addf(b, "</td></tr>\n");
	}
	sbuf_addf(b, "</table></div>\n");
	if (v->diff->n > shown)
		sbuf_addf(b,
		          "<p class=\"meta\">%zu more function%s moved (every one: <code>gcratchet "
		          "explain</code>).</p>\n",
		          v->diff->n - shown, v->diff->n - shown == 1 ? "" : "s");
}

static void movers_json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *movers_json(const struct movers_view *v, size_t max)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t shown = v->diff->n < max ? v->diff->n : max;

	cJSON_AddItemToObject(o, "probe", escape_json_string(v->probe));
	movers_json_num(o, "base_ir", v->diff->base_total);
	movers_json_num(o, "fix_ir", v->diff->fix_total);
	movers_json_num(o, "delta", v->diff->delta);
	movers_json_num(o, "delta_pct",
	                v->diff->base_total > 0 ? 100 * v->diff->delta / v->diff->base_total : NAN);
	cJSON_AddItemToObject(o, "how", escape_json_string(v->how));
	a = cJSON_AddArrayToObject(o, "functions");
	for (size_t i = 0; i < shown; i++) {
		const struct fnprof_mover *m = &v->diff->movers[i];
		cJSON *f = cJSON_CreateObject();
		cJSON_AddItemToObject(f, "name", escape_json_string(m->name));
		cJSON_AddItemToObject(f, "file", escape_json_string(m->file));
		movers_json_num(f, "base_ir", m->base_ir);
		movers_json_num(f, "fix_ir", m->fix_ir);
		movers_json_num(f, "delta", m->delta);
		movers_json_num(f, "share", m->share);
		cJSON_AddStringToObject(f, "side",
		                        m->side == FNPROF_BOTH        ? "both"
		                        : m->side == FNPROF_BASE_ONLY ? "base_only"
		                                                      : "fix_only");
		if (m->under)
			movers_json_num(f, "under_ir", m->under_ir);
		cJSON_AddItemToArray(a, f);
	}
	cJSON_AddNumberToObject(o, "more", (double)(v->diff->n - shown));
	return o;
}
