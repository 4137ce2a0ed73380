/* report_site.c — the store as a static site: an index, trend pages, check pages. */
#include "report_site.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "judge.h"
#include "metrics.h"
#include "report_check.h"
#include "report_html.h"

/* The sparkline of an index row, in CSS pixels. */
#define REPORT_SITE_SPARK_W 150
#define REPORT_SITE_SPARK_H 28

static const char *const report_site_words[] = {"REGRESSED", "could not judge", "no baseline",
                                                "improved", "ok"};

/*
 * The newest complete session of `collector` at `size` that is not a sweep: the session check
 * judges by default (cli_find_session), found without printing. 0 with *id = 0 when none.
 */
static int report_site_session(struct store *st, const char *collector, const char *size,
                               int64_t *id, struct err *e)
{
	struct store_session *s = NULL;
	size_t n = 0;
	int rc = -1;

	*id = 0;
	if (store_list_sessions(st, collector, &s, &n, e) != 0)
		return -1;
	for (size_t i = n; i-- > 0 && *id == 0;) {
		struct store_sweep_cell *cells = NULL;
		size_t ncells = 0;
		if (strcmp(s[i].status, "complete") != 0 || (size && strcmp(s[i].size, size) != 0))
			continue;
		if (store_sweep_load(st, s[i].id, &cells, &ncells, e) != 0)
			goto out;
		store_sweep_release(cells, ncells);
		if (ncells == 0)
			*id = s[i].id;
	}
	rc = 0;
out:
	store_sessions_release(s, n);
	return rc;
}

/* A file name from names that come from manifests: [A-Za-z0-9._-] kept, unique in `used`. */
static char *report_site_file(struct strlist *used, const char *prefix, const char *a,
                              const char *b, const char *c)
{
	struct sbuf name;
	const char *parts[] = {a, b, c};
	char *base, *file;

	sbuf_init(&name);
	sbuf_addf(&name, "%s", prefix);
	for (size_t k = 0; k < 3; k++) {
		if (!parts[k])
			continue;
		sbuf_addf(&name, "%s", k ? "--" : "");
		for (const char *p = parts[k]; *p; p++)
			sbuf_addf(&name, "%c",
			          isalnum((unsigned char)*p) || *p == '.' || *p == '_' || *p == '-'
			              ? *p
			              : '_');
	}
	base = name.data;
	file = xasprintf("%s.html", base);
	for (int k = 2; strlist_contains(used, file); k++) {
		free(file);
		file = xasprintf("%s-%d.html", base, k);
	}
	strlist_push(used, file);
	free(base);
	return file;
}

static struct report_site_cell *report_site_add(struct report_site *s, size_t *cap,
                                                size_t collector, const char *probe,
                                                const char *metric)
{
	struct report_site_cell *c;

	if (s->ncells == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		s->cells = xrealloc(s->cells, *cap * sizeof *s->cells);
	}
	c = &s->cells[s->ncells++];
	memset(c, 0, sizeof *c);
	c->collector = collector;
	c->probe = xstrdup(probe ? probe : "-");
	c->metric = xstrdup(metric ? metric : "-");
	return c;
}

/* The cell's row of the check, or NULL. */
static const struct check_row *report_site_row(const struct check_result *res, const char *probe,
                                               const char *metric)
{
	for (size_t i = 0; i < res->nrows; i++)
		if (res->rows[i].kind == CHECK_ROW_CELL && strcmp(res->rows[i].probe, probe) == 0 &&
		    strcmp(res->rows[i].metric, metric) == 0)
			return &res->rows[i];
	return NULL;
}

static void report_site_verdict(struct report_site_cell *c, const struct check_row *r)
{
	if (!r) {
		c->verdict = REPORT_SITE_UNJUDGED;
		c->why = xstrdup("the check has no row for it");
		return;
	}
	if (r->state == CHECK_UNJUDGED) {
		c->verdict = REPORT_SITE_UNJUDGED;
		c->why = xstrdup(r->reason ? r->reason : "not judged");
		return;
	}
	c->judged = 1;
	c->base = r->base;
	c->current = r->current;
	c->delta_pct = r->j.delta_pct;
	c->verdict = r->j.verdict == BASELINE_REGRESSED  ? REPORT_SITE_REGRESSED
	             : r->j.verdict == BASELINE_IMPROVED ? REPORT_SITE_IMPROVED
	                                                 : REPORT_SITE_OK;
}

/*
 * Judges collector k's newest session against its baseline: its check page, and the verdict
 * of each gated cell (unjudged, with why, when there is no session to judge).
 */
static int report_site_judge(struct store *st, struct report_site *s, size_t k,
                             struct check_result *res, struct err *e)
{
	struct report_site_collector *col = &s->collectors[k];
	struct judge_inputs in = {0};
	struct check_input ci;
	struct report_check rep = {0};
	const struct store_build *build = NULL;
	int rc = -1;

	if (report_site_session(st, col->name, col->b.size, &col->session, e) != 0)
		return -1;
	if (col->session == 0) {
		col->why = xasprintf("no complete session of %s at size %s to judge", col->name,
		                     col->b.size);
		return 0;
	}
	if (judge_open(st, col->session, &in, e) != 0)
		goto out;
	for (size_t i = 0; i < in.nbuilds && !build; i++)
		if (strcmp(in.builds[i].collector, col->name) == 0)
			build = &in.builds[i];
	if (!build || judge_load_arm(st, &in, build, NULL, e) != 0)
		goto out;
	judge_check_input(&in, &col->b, 0, &ci);
	ci.sensitivity_pct = col->b.sensitivity_pct;
	check_judge(&ci, res);
	col->verdict = res->verdict;
	if (res->verdict == CHECK_VERDICT_UNJUDGED && res->why)
		col->why = xstrdup(res->why);
	rep.res = res;
	rep.baseline = &col->b;
	rep.baseline_path = col->baseline_path;
	rep.session = col->session;
	rep.build_name = build->label;
	rep.runs = in.runs;
	rep.nruns = in.nruns;
	col->check_html = report_check_html(&rep);
	rc = 0;
out:
	judge_release(&in);
	return rc;
}

/* The history of cell c for its trend page and sparkline; none stored is no page, not an error. */
static int report_site_history(struct store *st, const struct report_site_query *q,
                               struct report_site *s, struct report_site_cell *c,
                               struct strlist *used, struct err *e)
{
	struct report_site_collector *col = &s->collectors[c->collector];
	struct history_query hq = {.collector = col->name,
	                           .probe = c->probe,
	                           .metric = c->metric,
	                           .since = q->since,
	                           .size = col->b.size,
	                           .git = q->git};
	struct err he = ERR_INIT;

	if (history_load_store(st, &hq, &c->series, &he) != 0) {
		if (he.code == ERR_NOT_FOUND)
			return 0;
		*e = he;
		return -1;
	}
	c->h = (struct report_history){
	    .collector = col->name,
	    .probe = c->series.probe,
	    .metric = c->metric,
	    .since = q->since,
	    .size = col->b.size,
	    .where = c->series.where,
	    .points = c->series.order,
	    .n = c->series.n,
	    .baseline_path = col->baseline_path,
	    .zero_axis = q->zero_axis,
	    .index_href = "index.html",
	    .check_href = col->check_file,
	};
	report_history_band(&c->h, &col->b, &c->no_band);
	c->h.no_band = c->no_band;
	c->trend_file = report_site_file(used, "trend-", col->name, c->probe, c->metric);
	return 0;
}

/* One collector's rows: every gated cell of its baseline, and its failed checksums and premises. */
static int report_site_collector(struct store *st, const struct report_site_query *q,
                                 struct report_site *s, size_t k, size_t *cap, struct strlist *used,
                                 struct err *e)
{
	struct report_site_collector *col = &s->collectors[k];
	struct check_result res = {0};
	struct err be = ERR_INIT;
	int rc = -1;

	col->baseline_path = q->baseline_path(q->profile, col->name);
	if (judge_baseline_load(col->baseline_path, q->profile, &col->b, &be) != 0) {
		struct report_site_cell *c = report_site_add(s, cap, k, NULL, NULL);
		/* A file that is there but does not load judges nothing: worse than none. */
		c->verdict =
		    be.code == ERR_NOT_FOUND ? REPORT_SITE_NO_BASELINE : REPORT_SITE_UNJUDGED;
		c->why =
		    be.code == ERR_NOT_FOUND
		        ? xasprintf("no %s baseline pinned (%s): nothing is gated; pin one with "
		                    "gcratchet baseline pin --profile %s --collector %s",
		                    q->profile, col->baseline_path, q->profile, col->name)
		        : xasprintf("the baseline does not load: %s", be.msg);
		col->why = xstrdup(c->why);
		col->baseline_broken = be.code != ERR_NOT_FOUND;
		return 0;
	}
	col->has_baseline = 1;
	if (report_site_judge(st, s, k, &res, e) != 0)
		goto out;
	if (col->check_html)
		col->check_file = report_site_file(used, "check-", col->name, NULL, NULL);
	for (size_t i = 0; i < col->b.ncells; i++) {
		const struct baseline_cell *bc = &col->b.cells[i];
		struct baseline_rule rule;
		struct report_site_cell *c;
		if (baseline_cell_rule(&col->b, bc->probe, bc->metric, &rule) != 0 || !rule.gated)
			continue;
		c = report_site_add(s, cap, k, bc->probe, bc->metric);
		if (col->session == 0 || !col->check_html) {
			c->verdict = REPORT_SITE_UNJUDGED;
			c->why = xstrdup(col->why ? col->why : "not judged");
		} else {
			report_site_verdict(c, report_site_row(&res, bc->probe, bc->metric));
		}
		if (report_site_history(st, q, s, c, used, e) != 0)
			goto out;
	}
	/* A wrong result or an inert probe fails the check whatever the figures: a row too. */
	for (size_t i = 0; i < res.nrows; i++) {
		const struct check_row *r = &res.rows[i];
		struct report_site_cell *c;
		if (r->kind == CHECK_ROW_CELL || r->j.verdict != BASELINE_REGRESSED)
			continue;
		c = report_site_add(s, cap, k, r->probe, r->metric);
		c->verdict = REPORT_SITE_REGRESSED;
		c->why = xstrdup(r->reason ? r->reason : r->metric);
	}
	rc = 0;
out:
	check_result_release(&res);
	return rc;
}

/* Regressions first, then what could not be judged, then the rest; the worst first within. */
static int report_site_cmp(const void *a, const void *b)
{
	const struct report_site_cell *x = a, *y = b;
	double dx = x->judged && isfinite(x->delta_pct) ? fabs(x->delta_pct) : 0,
	       dy = y->judged && isfinite(y->delta_pct) ? fabs(y->delta_pct) : 0;
	int r;

	if (x->verdict != y->verdict)
		return x->verdict < y->verdict ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (x->collector != y->collector)
		return x->collector < y->collector ? -1 : 1;
	if ((r = strcmp(x->probe, y->probe)) != 0)
		return r;
	return strcmp(x->metric, y->metric);
}

int report_site_load(struct store *st, const struct report_site_query *q, struct report_site *out,
                     struct err *e)
{
	struct strlist names = {0}, used = {0};
	size_t cap = 0;
	int rc = -1;

	memset(out, 0, sizeof *out);
	out->profile = q->profile;
	out->where = xstrdup(store_where(st));
	strlist_push(&used, "index.html");
	if (store_history_collectors(st, &names, e) != 0)
		goto out;
	if (names.n == 0) {
		err_setc(
		    e, ERR_NOT_FOUND,
		    "%s: no session stored, nothing to publish (run gcratchet measure, or push "
		    "a runner's sessions there, first)",
		    out->where);
		goto out;
	}
	out->collectors = xcalloc(names.n, sizeof *out->collectors);
	out->ncollectors = names.n;
	for (size_t k = 0; k < names.n; k++)
		out->collectors[k].name = xstrdup(names.items[k]);
	for (size_t k = 0; k < names.n; k++)
		if (report_site_collector(st, q, out, k, &cap, &used, e) != 0)
			goto out;
	/* The cells point at their collector by index, and their h at their own series: sort
	 * moves the cells whole, which keeps both. */
	qsort(out->cells, out->ncells, sizeof *out->cells, report_site_cmp);
	rc = 0;
out:
	strlist_release(&names);
	strlist_release(&used);
	if (rc != 0)
		report_site_release(out);
	return rc;
}

void report_site_release(struct report_site *s)
{
	for (size_t i = 0; i < s->ncells; i++) {
		struct report_site_cell *c = &s->cells[i];
		free(c->probe);
		free(c->metric);
		free(c->why);
		free(c->no_band);
		free(c->trend_file);
		history_release(&c->series);
	}
	for (size_t k = 0; k < s->ncollectors; k++) {
		struct report_site_collector *col = &s->collectors[k];
		free(col->name);
		free(col->baseline_path);
		baseline_release(&col->b);
		free(col->why);
		free(col->check_html);
		free(col->check_file);
	}
	free(s->cells);
	free(s->collectors);
	free(s->where);
	memset(s, 0, sizeof *s);
}

static const char *report_site_class(enum report_site_verdict v)
{
	return v == REPORT_SITE_REGRESSED     ? "bad"
	       : v == REPORT_SITE_UNJUDGED    ? "warn"
	       : v == REPORT_SITE_IMPROVED    ? "better"
	       : v == REPORT_SITE_NO_BASELINE ? "none"
	                                      : "ok";
}

static void report_site_link(struct sbuf *b, const char *href, const char *cls, const char *text)
{
	sbuf_addf(b, "<a class=\"%s\" href=\"", cls);
	escape_xml(b, href);
	sbuf_addf(b, "\">%s</a>", text);
}

static void report_site_row_html(struct sbuf *b, const struct report_site *s,
                                 const struct report_site_cell *c)
{
	const struct report_site_collector *col = &s->collectors[c->collector];
	char x[48], y[48];

	sbuf_addf(b, "<tr class=\"cell %s\"><td class=\"l %s\">%s</td><td class=\"l\">",
	          report_site_class(c->verdict), report_site_class(c->verdict),
	          report_site_words[c->verdict]);
	escape_xml(b, col->name);
	sbuf_addf(b, "</td><td class=\"l\">");
	escape_xml(b, c->probe);
	sbuf_addf(b, "</td><td class=\"l\">");
	escape_xml(b, c->metric);
	if (c->judged) {
		metrics_format_value(c->metric, c->base, x, sizeof x);
		metrics_format_value(c->metric, c->current, y, sizeof y);
		sbuf_addf(b, "</td><td>%s</td><td>%s</td><td>", x, y);
		if (isfinite(c->delta_pct))
			sbuf_addf(b, "%+.2f%%", c->delta_pct);
		sbuf_addf(b, "</td><td class=\"spark\">");
	} else {
		sbuf_addf(b, "</td><td class=\"l wrap\" colspan=\"3\">");
		escape_xml(b, c->why ? c->why : "");
		sbuf_addf(b, "</td><td class=\"spark\">");
	}
	if (c->series.n) {
		double *med = report_history_medians(&c->h);
		report_history_spark(b, &c->h, med, REPORT_SITE_SPARK_W, REPORT_SITE_SPARK_H);
		free(med);
	}
	sbuf_addf(b, "</td><td class=\"l links\">");
	if (c->trend_file)
		report_site_link(b, c->trend_file, "trend", "trend");
	if (col->check_file) {
		sbuf_addf(b, "%s", c->trend_file ? " &#183; " : "");
		report_site_link(b, col->check_file, "check", "check");
	}
	sbuf_addf(b, "</td></tr>\n");
}

static char *report_site_index(const struct report_site *s)
{
	size_t count[REPORT_SITE_OK + 1] = {0};
	struct sbuf b;
	char *title = xasprintf("gcratchet: every gated cell (%s)", s->profile);

	for (size_t i = 0; i < s->ncells; i++)
		count[s->cells[i].verdict]++;
	sbuf_init(&b);
	report_html_head(&b, title);
	sbuf_addf(&b, "<h1>");
	escape_xml(&b, title);
	sbuf_addf(&b, "</h1>\n<p class=\"meta\">%zu collector%s, %zu row%s from ", s->ncollectors,
	          s->ncollectors == 1 ? "" : "s", s->ncells, s->ncells == 1 ? "" : "s");
	escape_xml(&b, s->where);
	sbuf_addf(&b,
	          ". Each collector's newest complete session judged against its %s "
	          "baseline, as <code>gcratchet check</code> judges it.</p>\n",
	          s->profile);
	sbuf_addf(&b, "<div class=\"banner %s\" id=\"verdict\">",
	          count[REPORT_SITE_REGRESSED]  ? "bad"
	          : count[REPORT_SITE_UNJUDGED] ? "warn"
	                                        : "good");
	sbuf_addf(&b, "%zu regressed, %zu could not be judged, %zu improved, %zu ok", count[0],
	          count[1], count[3], count[4]);
	if (count[REPORT_SITE_NO_BASELINE])
		sbuf_addf(&b, "; %zu collector%s without a baseline", count[2],
		          count[2] == 1 ? "" : "s");
	sbuf_addf(&b, "</div>\n<h2>Collectors</h2>\n<div class=\"scroll\"><table>\n<tr><th "
	              "class=\"l\">collector</th><th class=\"l\">check</th><th>session</th><th "
	              "class=\"l\">baseline</th></tr>\n");
	for (size_t k = 0; k < s->ncollectors; k++) {
		const struct report_site_collector *col = &s->collectors[k];
		const char *v = col->baseline_broken                       ? "could not judge"
		                : !col->has_baseline                       ? "no baseline"
		                : !col->check_html                         ? "could not judge"
		                : col->verdict == CHECK_VERDICT_OK         ? "ok"
		                : col->verdict == CHECK_VERDICT_REGRESSION ? "REGRESSED"
		                                                           : "could not judge";
		sbuf_addf(&b, "<tr><td class=\"l\">");
		escape_xml(&b, col->name);
		sbuf_addf(&b, "</td><td class=\"l %s\">",
		          strcmp(v, "REGRESSED") == 0 ? "bad"
		          : strcmp(v, "ok") == 0      ? "better"
		                                      : "warn");
		if (col->check_file)
			report_site_link(&b, col->check_file, "check", v);
		else
			sbuf_addf(&b, "%s", v);
		if (col->why) {
			sbuf_addf(&b, ": ");
			escape_xml(&b, col->why);
		}
		sbuf_addf(&b, "</td><td>");
		if (col->session)
			sbuf_addf(&b, "%lld", (long long)col->session);
		sbuf_addf(&b, "</td><td class=\"l\">");
		escape_xml(&b, col->baseline_path ? col->baseline_path : "");
		sbuf_addf(&b, "</td></tr>\n");
	}
	sbuf_addf(&b, "</table></div>\n<h2>Cells, regressions first</h2>\n<div "
	              "class=\"scroll\"><table class=\"cells\">\n<tr><th class=\"l\">verdict</th>"
	              "<th class=\"l\">collector</th><th class=\"l\">probe</th><th "
	              "class=\"l\">metric</th><th>baseline</th><th>latest</th><th>delta</th>"
	              "<th>by commit (band shaded)</th><th class=\"l\">pages</th></tr>\n");
	for (size_t i = 0; i < s->ncells; i++)
		report_site_row_html(&b, s, &s->cells[i]);
	sbuf_addf(&b, "</table></div>\n");
	report_html_tail(&b);
	free(title);
	return b.data;
}

void report_site_render(const struct report_site *s, struct report_site_page **pages, size_t *n)
{
	size_t cap = 1 + s->ncollectors + s->ncells, k = 0;
	struct report_site_page *p = xcalloc(cap, sizeof *p);

	p[k].file = xstrdup("index.html");
	p[k++].text = report_site_index(s);
	for (size_t i = 0; i < s->ncollectors; i++) {
		if (!s->collectors[i].check_file)
			continue;
		p[k].file = xstrdup(s->collectors[i].check_file);
		p[k++].text = xstrdup(s->collectors[i].check_html);
	}
	for (size_t i = 0; i < s->ncells; i++) {
		if (!s->cells[i].trend_file)
			continue;
		p[k].file = xstrdup(s->cells[i].trend_file);
		p[k++].text = report_history_html(&s->cells[i].h);
	}
	*pages = p;
	*n = k;
}

void report_site_pages_release(struct report_site_page *pages, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(pages[i].file);
		free(pages[i].text);
	}
	free(pages);
}
