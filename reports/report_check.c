#include "report_check.h"
#include "report_text.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "movers.h"
#include "report.h"
#include "report_html.h"

/* The figures of one row as every form shows them; "-" where a row has none. */
struct report_check_cells {
	char base[32], cur[32], delta[32], allow[32], used[32], sees[24];
};

static void report_check_fmt_used(const struct check_row *r, char *buf, size_t size)
{
	if (r->state != CHECK_JUDGED || r->kind != CHECK_ROW_CELL)
		snprintf(buf, size, "-");
	else if (isinf(r->j.used))
		snprintf(buf, size, r->j.used > 0 ? "inf" : "-inf");
	else
		snprintf(buf, size, "%.0f%%", 100.0 * r->j.used);
}

static void report_check_fmt_delta(const struct check_row *r, char *buf, size_t size)
{
	if (r->state != CHECK_JUDGED || r->kind != CHECK_ROW_CELL)
		snprintf(buf, size, "-");
	else if (isinf(r->j.delta_pct))
		snprintf(buf, size, "%s", r->j.delta > 0 ? "+inf%" : "-inf%");
	else if (r->j.delta != 0 && fabs(r->j.delta_pct) < 0.005) {
		/* Too small to show as a percentage, yet it may break a zero band: show it whole. */
		char v[24];
		metrics_format_value(r->metric, fabs(r->j.delta), v, sizeof v);
		snprintf(buf, size, "%c%s", r->j.delta > 0 ? '+' : '-', v);
	} else
		snprintf(buf, size, "%+.2f%%", r->j.delta_pct);
}

/* A smallest detectable change, as a reader takes it: "+9.30%", "any change", "nothing". */
static void report_check_fmt_sees(double pct, char *buf, size_t size)
{
	char v[16];

	if (isnan(pct))
		snprintf(buf, size, "-");
	else if (pct == 0)
		snprintf(buf, size, "any change");
	else if (isinf(pct))
		snprintf(buf, size, "nothing");
	else {
		metrics_format_pct(pct, v, sizeof v);
		snprintf(buf, size, "%s%%", v);
	}
}

static void report_check_format_cells(const struct check_row *r, struct report_check_cells *c)
{
	snprintf(c->base, sizeof c->base, "-");
	snprintf(c->cur, sizeof c->cur, "-");
	snprintf(c->allow, sizeof c->allow, "-");
	if (r->kind == CHECK_ROW_CELL) {
		metrics_format_value(r->metric, r->base, c->base, sizeof c->base);
		if (r->state == CHECK_JUDGED) {
			char a[24];
			metrics_format_value(r->metric, r->current, c->cur, sizeof c->cur);
			metrics_format_value(r->metric, r->j.allowance, a, sizeof a);
			snprintf(c->allow, sizeof c->allow, "%s%s", r->j.allowance > 0 ? "+" : "",
			         a);
		}
	}
	report_check_fmt_delta(r, c->delta, sizeof c->delta);
	report_check_fmt_used(r, c->used, sizeof c->used);
	report_check_fmt_sees(r->kind == CHECK_ROW_CELL && r->state == CHECK_JUDGED ? r->mde_pct
	                                                                            : NAN,
	                      c->sees, sizeof c->sees);
}

/*
 * The words after a row's verdict, or NULL: its reason, or for a regressed cell the base
 * build measured too, how much of the delta is drift since the pin and how much the change.
 * Newly allocated.
 */
static char *report_check_reason_only(const struct report_check *c, const struct check_row *r)
{
	char drift[32], change[32], total[32];

	if (r->reason)
		return xstrdup(r->reason);
	if (!r->has_base_now)
		return NULL;
	metrics_format_value(r->metric, r->base_now - r->base, drift, sizeof drift);
	metrics_format_value(r->metric, r->current - r->base_now, change, sizeof change);
	metrics_format_value(r->metric, r->current - r->base, total, sizeof total);
	return xasprintf("of %s%s, %s%s is already in base %s (drift since the pin), %s%s is the "
	                 "change",
	                 r->current >= r->base ? "+" : "", total, r->base_now >= r->base ? "+" : "",
	                 drift, c->base_name ? c->base_name : "?",
	                 r->current >= r->base_now ? "+" : "", change);
}

/*
 * The reason, what a quantile cell compares (its figures are mins, not medians: a reader
 * comparing them with another table must know), and for a cell wider than its metric's rule,
 * the band it is judged with.
 */
static char *report_check_reason(const struct report_check *c, const struct check_row *r)
{
	char *why = report_check_reason_only(c, r), *both, band[16], past[32];

	/* How far past its allowance a regressed cell went: what a fix must win back. */
	if (r->kind == CHECK_ROW_CELL && r->state == CHECK_JUDGED &&
	    r->j.verdict == BASELINE_REGRESSED && !r->j.went_inert) {
		/* Short and whole: "17.4M past", not "17364019.4 past". */
		metrics_format_short(r->metric, fabs(r->j.delta) - r->j.allowance, past,
		                     sizeof past);
		both =
		    xasprintf("%s past the allowance%s%s", past, why ? "; " : "", why ? why : "");
		free(why);
		why = both;
	}
	if (r->kind == CHECK_ROW_CELL && r->cls == BASELINE_CLASS_QUANTILE) {
		both = xasprintf("%s%squantile: min of %d run%s against the pinned min",
		                 why ? why : "", why ? "; " : "", r->n, r->n == 1 ? "" : "s");
		free(why);
		why = both;
	}
	if (r->kind != CHECK_ROW_CELL || !r->widened)
		return why;
	metrics_format_pct(r->band_pct, band, sizeof band);
	both = xasprintf("%s%sband %s%% widened %s", why ? why : "", why ? "; " : "", band,
	                 r->widened == 2 ? "for noise at pin" : "by an override");
	free(why);
	return both;
}

/*
 * How small a slowdown the verdict could see: "time gated on 28 cells, bands median 10%,
 * worst 186% (3 widened beyond their rule)", or that time is not gated. Newly allocated.
 */
static char *report_check_sensitivity(const struct report_check *c)
{
	const struct check_sensitivity *s = &c->res->sensitivity;
	char widened[64] = "", median[16], worst[16];

	if (s->cells == 0)
		return xstrdup("time is not gated by this baseline");
	if (s->widened)
		snprintf(widened, sizeof widened, " (%zu widened beyond their rule)", s->widened);
	metrics_format_pct(s->median_pct, median, sizeof median);
	metrics_format_pct(s->worst_pct, worst, sizeof worst);
	return xasprintf("time gated on %zu cell%s, bands median %s%%, worst %s%%%s%s%s%s",
	                 s->cells, s->cells == 1 ? "" : "s", median, worst, widened,
	                 c->baseline->noise.reason ? "; noise accepted at pin: \"" : "",
	                 c->baseline->noise.reason ? c->baseline->noise.reason : "",
	                 c->baseline->noise.reason ? "\"" : "");
}

/* When every gated time cell is wider than CHECK_TIME_UNGATED_PCT, a warning; else NULL. */
static char *report_check_ungated(const struct report_check *c)
{
	const struct check_sensitivity *s = &c->res->sensitivity;
	char median[16], worst[16];

	if (!s->time_ungated)
		return NULL;
	metrics_format_pct(s->median_pct, median, sizeof median);
	metrics_format_pct(s->worst_pct, worst, sizeof worst);
	return xasprintf("every gated time cell's band is wider than %.0f%% (median %s%%, "
	                 "worst %s%%): time is effectively not gated, a slowdown that large "
	                 "passes as ok",
	                 CHECK_TIME_UNGATED_PCT, median, worst);
}

/*
 * What the verdict can see, a class at a time (check.h, check_class_sees): "exact 120 cells:
 * any change; banded 15: 1.00% median, worst 2.30%; distribution 6 at 3 runs: 9.30% median,
 * worst 28.6%". Newly allocated; NULL when no gated cell was judged.
 */
char *report_check_sees(const struct check_result *res)
{
	struct sbuf b;

	sbuf_init(&b);
	for (int k = 0; k < BASELINE_CLASS_INFO; k++) {
		const struct check_class_sees *s = &res->sees[k];
		char med[24], worst[24], runs[64] = "";
		if (!s->cells)
			continue;
		report_check_fmt_sees(s->median_pct, med, sizeof med);
		report_check_fmt_sees(s->worst_pct, worst, sizeof worst);
		if (k == BASELINE_CLASS_DIST && s->runs_min == s->runs_max)
			snprintf(runs, sizeof runs, " at %d run%s", s->runs_min,
			         s->runs_min == 1 ? "" : "s");
		else if (k == BASELINE_CLASS_DIST)
			snprintf(runs, sizeof runs, " at %d to %d runs", s->runs_min, s->runs_max);
		if (k == BASELINE_CLASS_DIST && res->runs_budget > s->runs_min) {
			size_t at = strlen(runs);
			snprintf(runs + at, sizeof runs - at, ", %d where past the band",
			         res->runs_budget);
		}
		sbuf_addf(&b, "%s%s %zu cell%s%s: ", b.len ? "; " : "",
		          baseline_class_name((enum baseline_class)k), s->cells,
		          s->cells == 1 ? "" : "s", runs);
		if (s->median_pct == 0 && s->worst_pct == 0)
			sbuf_addf(&b, "any change");
		else
			sbuf_addf(&b, "%s median, worst %s", med, worst);
	}
	if (!b.len) {
		sbuf_release(&b);
		return NULL;
	}
	return b.data;
}

/*
 * The gated cells that cannot see a change of the check's target at their runs: gated in name
 * only, and said, with what each sees and how many runs would see the target. NULL when none.
 */
#define REPORT_CHECK_INSENSITIVE_LIST 6

/* A gated row that cannot see the check's target at its runs. */
static int report_check_blind(const struct check_result *res, const struct check_row *r)
{
	return !isnan(r->mde_pct) && r->mde_pct > res->target_pct;
}

char *report_check_insensitive(const struct check_result *res)
{
	struct sbuf b;
	char target[16];
	size_t listed = 0;

	if (!res->insensitive)
		return NULL;
	sbuf_init(&b);
	metrics_format_pct(res->target_pct, target, sizeof target);
	sbuf_addf(&b, "%zu gated cell%s cannot see a change of %s%% at %s runs: ", res->insensitive,
	          res->insensitive == 1 ? "" : "s", target,
	          res->insensitive == 1 ? "its" : "their");
	for (size_t i = 0; i < res->nrows && listed < REPORT_CHECK_INSENSITIVE_LIST; i++) {
		const struct check_row *r = &res->rows[i];
		char sees[24];
		if (!report_check_blind(res, r))
			continue;
		report_check_fmt_sees(r->mde_pct, sees, sizeof sees);
		sbuf_addf(&b, "%s%s %s (sees %s at %d run%s", listed ? ", " : "", r->probe,
		          r->metric, sees, r->mde_runs, r->mde_runs == 1 ? "" : "s");
		if (r->j.allowance >= res->target_pct * fabs(r->base) / 100.0) {
			char band[24];
			metrics_format_value(r->metric, r->j.allowance, band, sizeof band);
			sbuf_addf(&b, "; its band, %s, is wider than that", band);
		} else if (r->cls == BASELINE_CLASS_DIST && r->need_runs) {
			sbuf_addf(&b, "; %d runs would see %s%%", r->need_runs, target);
		} else if (r->cls == BASELINE_CLASS_DIST) {
			/* More runs of a session cannot beat the pin's own resolution. */
			sbuf_addf(&b,
			          "; not within %d runs: the pin's runs cannot resolve %s%% (pin "
			          "more: --vary-env)",
			          CHECK_RUNS_CAP, target);
		}
		sbuf_addf(&b, ")");
		listed++;
	}
	if (res->insensitive > listed)
		sbuf_addf(&b, ", and %zu more (--all: the \"sees\" column)",
		          res->insensitive - listed);
	return b.data;
}

/*
 * A quantile cell compares the session's smallest run with the pinned smallest, and a band
 * that holds half the pinned runs lets one new run past it up to half the time: from fewer
 * runs than a ratchet measures, its verdict is weak. js-default's 13_memory_return RSS
 * regressed in 3 of 10 one-round sessions of unchanged code and in none of 8 of three rounds.
 */
#define REPORT_CHECK_FEW_RUNS 3

/* When judged quantile cells rest on fewer than REPORT_CHECK_FEW_RUNS runs, a warning; else
 * NULL. Newly allocated. */
static char *report_check_few_runs(const struct check_result *res)
{
	size_t cells = 0;
	int least = REPORT_CHECK_FEW_RUNS;

	for (size_t i = 0; i < res->nrows; i++) {
		const struct check_row *r = &res->rows[i];
		if (r->kind != CHECK_ROW_CELL || r->state != CHECK_JUDGED ||
		    r->cls != BASELINE_CLASS_QUANTILE || r->n >= REPORT_CHECK_FEW_RUNS)
			continue;
		cells++;
		if (r->n < least)
			least = r->n;
	}
	if (cells == 0)
		return NULL;
	return xasprintf(
	    "%zu judged cell%s compared by their smallest run come%s from as few as %d "
	    "run%s: one lands past its band whenever all its runs do, up to 1 time in %d "
	    "by chance (measure %d rounds or more, as ratchet does)",
	    cells, cells == 1 ? "" : "s", cells == 1 ? "s" : "", least, least == 1 ? "" : "s",
	    1 << least, REPORT_CHECK_FEW_RUNS);
}

/*
 * Which rows a line about some of them names (report_check_runs, the comment's short lines):
 * each takes the result for what a row is measured against.
 */
typedef int (*report_check_pick)(const struct check_result *res, const struct check_row *r);

/* A judged valgrind row measured more than once (ratchet's confirmation runs). */
static int report_check_run_multi(const struct check_row *r)
{
	return r->kind == CHECK_ROW_CELL && r->state == CHECK_JUDGED && r->n >= 2 &&
	       metrics_run_kind(r->metric) == RUN_KIND_VALGRIND;
}

/* Such a row past its allowance in every run: a change, not one rare run. */
static int report_check_run_confirmed(const struct check_result *res, const struct check_row *r)
{
	(void)res;
	return report_check_run_multi(r) && r->every_run && r->j.verdict != BASELINE_OK &&
	       r->j.verdict != BASELINE_INFO;
}

/* Such a row whose runs lie further apart than its allowance: its median decides. */
static int report_check_run_disagrees(const struct check_result *res, const struct check_row *r)
{
	(void)res;
	return report_check_run_multi(r) && r->range[1] - r->range[0] > r->j.allowance;
}

/*
 * What the runs of the judged valgrind figures measured more than once say (ratchet measures a
 * figure past its allowance twice more: cmd_ratchet.c). agree 0: the figures whose runs lie
 * further apart than their allowance, so that one of them alone would have been judged
 * otherwise and the median decides; agree 1: those past their allowance in every run, a
 * change rather than a rare run. NULL when there are none.
 */
static char *report_check_runs(const struct check_result *res, int agree)
{
	struct sbuf b;
	size_t cells = 0;

	sbuf_init(&b);
	for (size_t i = 0; i < res->nrows; i++) {
		const struct check_row *r = &res->rows[i];
		double apart = r->range[1] - r->range[0];
		if (!(agree ? report_check_run_confirmed(res, r)
		            : report_check_run_disagrees(res, r)))
			continue;
		sbuf_addf(&b, "%s%s %s ", cells++ ? "; " : "", r->probe, r->metric);
		if (agree && apart == 0)
			sbuf_addf(&b, "%s in each of its %d runs (%.0f in each)",
			          check_row_verdict_name(r), r->n, r->range[0]);
		else if (agree)
			sbuf_addf(&b, "%s in each of its %d runs (%.0f to %.0f)",
			          check_row_verdict_name(r), r->n, r->range[0], r->range[1]);
		else
			sbuf_addf(
			    &b, "over %d runs from %.0f to %.0f (%.2f%% apart, allowed %.2f%%)",
			    r->n, r->range[0], r->range[1],
			    r->base != 0 ? 100.0 * apart / fabs(r->base) : INFINITY, r->band_pct);
	}
	if (cells == 0) {
		sbuf_release(&b);
		return NULL;
	}
	if (agree)
		sbuf_addf(&b, ": a change, not one rare run");
	else
		sbuf_addf(&b, ": judged by %s median, which one rare run cannot move",
		          cells == 1 ? "its" : "each one's");
	return sbuf_detach(&b);
}

/* "(3 ok, 0 improved, 1 regressed, 0 could not judge, 2 not gated)" */
static void report_check_counts(const struct check_result *res, struct sbuf *b)
{
	sbuf_addf(b, "(%d ok, %d improved, %d regressed, %d could not judge, %d not gated)",
	          res->ok, res->improved, res->regressed, res->unjudged, res->info);
}

/* ---- Where the instructions moved against the pin ------------------------------------------ */

/* How the two sides of a row's function diff were made; newly allocated. */
static char *report_check_where_how(const struct report_check *c, const struct check_row *r)
{
	return xasprintf("the pin's %zu largest functions (session %lld, pinned %s) against each "
	                 "function's median over this session's %d valgrind run%s",
	                 baseline_functions_of(c->baseline, r->probe)
	                     ? baseline_functions_of(c->baseline, r->probe)->n
	                     : (size_t)0,
	                 (long long)c->baseline->session, c->baseline->pinned_at, r->where_runs,
	                 r->where_runs == 1 ? "" : "s");
}

static size_t report_check_nwhere(const struct check_result *res)
{
	size_t n = 0;

	for (size_t i = 0; i < res->nrows; i++)
		n += res->rows[i].has_where;
	return n;
}

/*
 * A row's rank for the one line per probe: a regression first, then a probe that went inert
 * or printed another result, one that could not be judged, an improvement, then ok by how
 * much of its allowance it used, info last.
 */
static int report_check_rank(const struct check_row *r)
{
	if (r->kind != CHECK_ROW_CELL)
		return 1;
	if (r->state == CHECK_UNJUDGED)
		return 2;
	return r->j.verdict == BASELINE_REGRESSED  ? 0
	       : r->j.verdict == BASELINE_IMPROVED ? 3
	       : r->j.verdict == BASELINE_INFO     ? 5
	                                           : 4;
}

static double report_check_size(const struct check_row *r)
{
	if (r->kind != CHECK_ROW_CELL || r->state != CHECK_JUDGED)
		return 0;
	return isfinite(r->j.used) ? fabs(r->j.used) : INFINITY;
}

/* The row each probe's one line shows: its worst (report_check_rank), or NULL. */
static const struct check_row *report_check_probe_worst(const struct check_result *res,
                                                        const char *probe)
{
	const struct check_row *best = NULL;

	for (size_t i = 0; i < res->nrows; i++) {
		const struct check_row *r = &res->rows[i];
		int k;
		if (strcmp(r->probe, probe) != 0)
			continue;
		k = report_check_rank(r);
		if (!best || k < report_check_rank(best) ||
		    (k == report_check_rank(best) &&
		     report_check_size(r) > report_check_size(best)))
			best = r;
	}
	return best;
}

/* ---- The terminal table ---------------------------------------------------------------- */

/* SGR colours of the terminal table: what fails red, what moved for the better green. */
#define REPORT_CHECK_RED    "31"
#define REPORT_CHECK_GREEN  "32"
#define REPORT_CHECK_YELLOW "33"

/*
 * Appends PLAIN made safe for the terminal, in colour SGR when the table is coloured (SGR
 * NULL: none). Pieces are escaped one by one so that the colour codes themselves survive.
 */
static void report_check_paint(struct sbuf *out, const struct report_check *c, const char *sgr,
                               const char *plain)
{
	char *safe = escape_text(plain);

	if (c->colour && sgr)
		sbuf_addf(out, "\033[%sm%s\033[0m", sgr, safe);
	else
		sbuf_addf(out, "%s", safe);
	free(safe);
}

/*
 * Appends the line in LINE (plain, reset after: empty again, still allocated, so the caller
 * releases it once it is done), in colour SGR or none.
 */
static void report_check_line(struct sbuf *out, const struct report_check *c, const char *sgr,
                              struct sbuf *line)
{
	report_check_paint(out, c, sgr, line->data ? line->data : "");
	sbuf_release(line);
	sbuf_init(line);
}

static const char *report_check_row_sgr(const struct check_row *r)
{
	if (r->kind == CHECK_ROW_PREMISE || r->state == CHECK_UNJUDGED)
		return REPORT_CHECK_YELLOW;
	return r->j.verdict == BASELINE_REGRESSED  ? REPORT_CHECK_RED
	       : r->j.verdict == BASELINE_IMPROVED ? REPORT_CHECK_GREEN
	                                           : NULL;
}

/* A row the short table shows: whatever is not ok or info. */
static int report_check_row_shown(const struct check_row *r)
{
	return r->state == CHECK_UNJUDGED || r->kind != CHECK_ROW_CELL ||
	       r->j.verdict == BASELINE_REGRESSED || r->j.verdict == BASELINE_IMPROVED;
}

/* The table's columns, each as wide as the widest of its heading and the rows shown. */
struct report_check_widths {
	int probe, metric, base, cur, delta, allow, used, sees;
};

static int report_check_wider(int w, const char *s)
{
	int n = (int)strlen(s);
	return n > w ? n : w;
}

static void report_check_widths(const struct report_check *c, struct report_check_widths *w)
{
	const struct check_result *res = c->res;

	*w = (struct report_check_widths){5, 6, 8, 7, 5, 9, 4, 4};
	for (size_t i = 0; i < res->nrows; i++) {
		const struct check_row *r = &res->rows[i];
		struct report_check_cells x;
		if (!c->all && !report_check_row_shown(r))
			continue;
		report_check_format_cells(r, &x);
		w->probe = report_check_wider(w->probe, r->probe);
		w->metric = report_check_wider(w->metric, r->metric);
		w->base = report_check_wider(w->base, x.base);
		w->cur = report_check_wider(w->cur, x.cur);
		w->delta = report_check_wider(w->delta, x.delta);
		w->allow = report_check_wider(w->allow, x.allow);
		w->used = report_check_wider(w->used, x.used);
		w->sees = report_check_wider(w->sees, x.sees);
	}
}

static void report_check_row(struct sbuf *out, const struct report_check *c,
                             const struct report_check_widths *w, const struct check_row *r)
{
	struct report_check_cells cells;
	struct sbuf line;
	char *why = report_check_reason(c, r), *verdict;

	report_check_format_cells(r, &cells);
	sbuf_init(&line);
	sbuf_addf(&line, "%-*s %-*s %*s %*s %*s %*s %*s %*s  ", w->probe, r->probe, w->metric,
	          r->metric, w->base, cells.base, w->cur, cells.cur, w->delta, cells.delta,
	          w->allow, cells.allow, w->used, cells.used, w->sees, cells.sees);
	report_check_line(out, c, NULL, &line);
	sbuf_release(&line);
	verdict = xasprintf("%s%s%s", check_row_verdict_name(r), why ? ": " : "", why ? why : "");
	report_check_paint(out, c, report_check_row_sgr(r), verdict);
	sbuf_addf(out, "\n");
	free(verdict);
	free(why);
}

/* One line per probe, by number: how its rows came out (the rows that are not ok are above). */
static void report_check_probe_lines(struct sbuf *out, const struct report_check *c)
{
	const struct check_result *res = c->res;
	struct strlist probes = {0};
	struct sbuf line;

	for (size_t i = 0; i < res->nrows; i++)
		if (!strlist_contains(&probes, res->rows[i].probe))
			strlist_push(&probes, res->rows[i].probe);
	strlist_sort_probes(&probes);
	sbuf_init(&line);
	sbuf_addf(&line, "%-24s %6s %10s %9s %16s %11s\n", "probe", "ok", "regressed", "improved",
	          "could not judge", "not gated");
	report_check_line(out, c, NULL, &line);
	for (size_t k = 0; k < probes.n; k++) {
		int ok = 0, regressed = 0, improved = 0, unjudged = 0, info = 0;
		for (size_t i = 0; i < res->nrows; i++) {
			const struct check_row *r = &res->rows[i];
			if (strcmp(r->probe, probes.items[k]) != 0)
				continue;
			if (r->state == CHECK_UNJUDGED)
				unjudged++;
			else if (r->j.verdict == BASELINE_REGRESSED)
				regressed++;
			else if (r->j.verdict == BASELINE_IMPROVED)
				improved++;
			else if (r->j.verdict == BASELINE_INFO)
				info++;
			else
				ok++;
		}
		sbuf_addf(&line, "%-24s %6d %10d %9d %16d %11d\n", probes.items[k], ok, regressed,
		          improved, unjudged, info);
		report_check_line(out, c,
		                  regressed  ? REPORT_CHECK_RED
		                  : unjudged ? REPORT_CHECK_YELLOW
		                  : improved ? REPORT_CHECK_GREEN
		                             : NULL,
		                  &line);
	}
	sbuf_release(&line);
	strlist_release(&probes);
}

char *report_check_text(const struct report_check *c)
{
	const struct check_result *res = c->res;
	const struct baseline *bl = c->baseline;
	struct sbuf b, line;
	char *sens = report_check_sensitivity(c), *ungated = report_check_ungated(c),
	     *few = report_check_few_runs(res), *disagree = report_check_runs(res, 0),
	     *agree = report_check_runs(res, 1), *sees = report_check_sees(res),
	     *blind = report_check_insensitive(res);
	size_t shown = 0;

	sbuf_init(&b);
	sbuf_init(&line);
	if (res->why) {
		sbuf_addf(&line, "COULD NOT JUDGE: %s\n", res->why);
		report_check_line(&b, c, REPORT_CHECK_YELLOW, &line);
	}
	/* A verdict on time that cannot see a slowdown says so before anything else. */
	if (ungated) {
		sbuf_addf(&line, "TIME NOT GATED: %s\n", ungated);
		report_check_line(&b, c, REPORT_CHECK_YELLOW, &line);
	}
	/* Staleness comes next: every figure below is read in its light. */
	for (size_t i = 0; i < res->stale.n; i++) {
		sbuf_addf(&line, "STALE: %s\n", res->stale.items[i]);
		report_check_line(&b, c, REPORT_CHECK_YELLOW, &line);
	}
	sbuf_addf(
	    &line,
	    "gcratchet check: profile %s, collector %s %s, session %lld (build %s), size %s\n",
	    bl->profile, bl->collector, bl->collector_version, (long long)c->session, c->build_name,
	    bl->size);
	sbuf_addf(&line, "baseline: %s (pinned %s on %s, session %lld)\n", c->baseline_path,
	          bl->pinned_at, bl->hostname, (long long)bl->session);
	sbuf_addf(&line, "sensitivity: %s\n", sens);
	if (sees)
		sbuf_addf(&line, "can see: %s\n", sees);
	report_check_line(&b, c, NULL, &line);
	if (blind) {
		sbuf_addf(&line, "INSENSITIVE: %s\n", blind);
		report_check_line(&b, c, REPORT_CHECK_YELLOW, &line);
	}
	if (res->widened)
		sbuf_addf(&line,
		          "widened: %zu judged cell%s pinned with a band for the spread of their "
		          "pinning runs (the rows say \"widened for noise at pin\"; --all lists "
		          "each, the baseline's overrides give the evidence)\n",
		          res->widened, res->widened == 1 ? "" : "s");
	if (few)
		sbuf_addf(&line, "few runs: %s\n", few);
	if (disagree)
		sbuf_addf(&line, "runs disagree: %s\n", disagree);
	if (agree)
		sbuf_addf(&line, "confirmed: %s\n", agree);
	report_check_line(&b, c, NULL, &line);
	for (size_t i = 0; i < res->nrows; i++)
		shown += c->all || report_check_row_shown(&res->rows[i]);
	if (shown) {
		struct report_check_widths w;
		report_check_widths(c, &w);
		sbuf_addf(&line, "\n%-*s %-*s %*s %*s %*s %*s %*s %*s  %s\n", w.probe, "probe",
		          w.metric, "metric", w.base, "baseline", w.cur, "current", w.delta,
		          "delta", w.allow, "allowance", w.used, "used", w.sees, "sees", "verdict");
		report_check_line(&b, c, NULL, &line);
		for (size_t i = 0; i < res->nrows; i++)
			if (c->all || report_check_row_shown(&res->rows[i]))
				report_check_row(&b, c, &w, &res->rows[i]);
	}
	if (report_check_nwhere(res)) {
		sbuf_addf(&line,
		          "\nwhere the instructions moved against the pin (cachegrind's Ir by "
		          "function, now - pin)\n");
		for (size_t i = 0; i < res->nrows; i++) {
			const struct check_row *r = &res->rows[i];
			char *how;
			struct movers_view v;
			if (!r->has_where)
				continue;
			how = report_check_where_how(c, r);
			v = (struct movers_view){r->probe, &r->where, "pin", "now", how};
			movers_text_narrow(&line, &v, MOVERS_TEXT_MAX, "  ", REPORT_TEXT_WIDTH);
			free(how);
		}
		report_check_line(&b, c, NULL, &line);
	}
	/* The short table: what each probe came to, since the rows above are only the few. */
	if (!c->all && res->nrows) {
		sbuf_addf(&b, "\n");
		report_check_probe_lines(&b, c);
	}
	for (size_t i = 0; i < res->unpinned.n; i++) {
		sbuf_addf(&line,
		          "\nnote: %s was measured, but the baseline pins no cell of it: not "
		          "judged (`gcratchet baseline pin` adds it)",
		          res->unpinned.items[i]);
		report_check_line(&b, c, NULL, &line);
	}
	if (!c->all && res->nrows) {
		sbuf_addf(&line,
		          "\n%zu of %zu cells shown; every cell: the same command with --all; the "
		          "session's samples: gcratchet report --session %lld --html FILE",
		          shown, res->nrows, (long long)c->session);
		report_check_line(&b, c, NULL, &line);
	}
	sbuf_addf(&line, "\nverdict: ");
	report_check_line(&b, c, NULL, &line);
	sbuf_addf(&line, "%s", check_verdict_name(res->verdict));
	report_check_line(&b, c,
	                  res->verdict == CHECK_VERDICT_OK           ? REPORT_CHECK_GREEN
	                  : res->verdict == CHECK_VERDICT_REGRESSION ? REPORT_CHECK_RED
	                                                             : REPORT_CHECK_YELLOW,
	                  &line);
	sbuf_addf(&line, " ");
	report_check_counts(res, &line);
	sbuf_addf(&line, "\n");
	report_check_line(&b, c, NULL, &line);
	sbuf_release(&line);
	free(blind);
	free(sees);
	free(few);
	free(disagree);
	free(agree);
	free(ungated);
	free(sens);
	return b.data;
}

/* ---- Markdown ---------------------------------------------------------------------------- */

/* One row of the Markdown table (8 cells), into b. */
static void report_check_md_row(const struct report_check *c, const struct check_row *r,
                                struct sbuf *b)
{
	struct report_check_cells cells;
	char *why = report_check_reason(c, r);

	report_check_format_cells(r, &cells);
	sbuf_addf(b, "| ");
	escape_md(b, r->probe);
	sbuf_addf(b, " | ");
	escape_md(b, r->metric);
	sbuf_addf(b, " | %s | %s | %s | %s | %s | %s", cells.base, cells.cur, cells.delta,
	          cells.allow, cells.used, check_row_verdict_name(r));
	if (why) {
		sbuf_addf(b, ": ");
		escape_md(b, why);
	}
	sbuf_addf(b, " |\n");
	free(why);
}

static void report_check_md_head(struct sbuf *b)
{
	sbuf_addf(b,
	          "| probe | metric | baseline | current | delta | allowance | used | verdict |\n");
	sbuf_addf(b, "|---|---|---:|---:|---:|---:|---:|---|\n");
}

static void report_check_md_budget_row(const struct report_check *c, const struct check_row *r,
                                       struct report_budget *bg)
{
	struct sbuf row;

	sbuf_init(&row);
	report_check_md_row(c, r, &row);
	report_budget_add(bg, row.data);
	sbuf_release(&row);
}

/*
 * "valgrind.ir on 01_a, 02_b; census.x on 03_c": the rows `pick` takes, grouped by metric in
 * the order they first come. Newly allocated; NULL when none.
 */
static char *report_check_md_list(const struct check_result *res, report_check_pick pick)
{
	struct strlist metrics = {0};
	struct sbuf b;

	for (size_t i = 0; i < res->nrows; i++)
		if (pick(res, &res->rows[i]) && !strlist_contains(&metrics, res->rows[i].metric))
			strlist_push(&metrics, res->rows[i].metric);
	if (!metrics.n) {
		strlist_release(&metrics);
		return NULL;
	}
	sbuf_init(&b);
	for (size_t m = 0; m < metrics.n; m++) {
		int first = 1;
		sbuf_addf(&b, "%s%s on ", m ? "; " : "", metrics.items[m]);
		for (size_t i = 0; i < res->nrows; i++) {
			const struct check_row *r = &res->rows[i];
			if (!pick(res, r) || strcmp(r->metric, metrics.items[m]) != 0)
				continue;
			/* By number where it has one: "01", as every verb takes it. */
			sbuf_addf(&b, "%s%.*s", first ? "" : ", ",
			          isdigit((unsigned char)r->probe[0]) &&
			                  isdigit((unsigned char)r->probe[1]) && r->probe[2] == '_'
			              ? 2
			              : (int)strlen(r->probe),
			          r->probe);
			first = 0;
		}
	}
	strlist_release(&metrics);
	return sbuf_detach(&b);
}

static size_t report_check_md_count(const struct check_result *res, report_check_pick pick)
{
	size_t n = 0;

	for (size_t i = 0; i < res->nrows; i++)
		n += (size_t)pick(res, &res->rows[i]);
	return n;
}

/* "LABEL: N cells WHAT (valgrind.ir on 01, 02)" and a blank line, for the rows pick takes. */
static void report_check_md_runs(struct sbuf *b, const struct check_result *res,
                                 report_check_pick pick, const char *label, const char *what)
{
	size_t n = report_check_md_count(res, pick);
	char *list;

	if (!n)
		return;
	list = report_check_md_list(res, pick);
	sbuf_addf(b, "%s: %zu cell%s %s (", label, n, n == 1 ? "" : "s", what);
	escape_md(b, list);
	sbuf_addf(b, ")\n\n");
	free(list);
}

/* The comment's first lines, short or full: the verdict (with the check's own reason when
 * it cannot pass), what was judged against what, and the verdict's counts. */
static void report_check_md_top(const struct report_check *c, struct sbuf *b)
{
	const struct check_result *res = c->res;
	const struct baseline *bl = c->baseline;

	sbuf_addf(b, "### gcratchet check: %s", check_verdict_name(res->verdict));
	if (res->why) {
		sbuf_addf(b, ": ");
		escape_md(b, res->why);
		sbuf_addf(b, "\n\nprofile ");
	} else {
		sbuf_addf(b, ", profile ");
	}
	escape_md(b, bl->profile);
	sbuf_addf(b, ", collector ");
	escape_md(b, bl->collector);
	sbuf_addf(b, " ");
	escape_md(b, bl->collector_version);
	sbuf_addf(b, ", session %lld (build ", (long long)c->session);
	escape_md(b, c->build_name);
	sbuf_addf(b, "), size ");
	escape_md(b, bl->size);
	sbuf_addf(b, "\n\n**verdict: %s** ", check_verdict_name(res->verdict));
	report_check_counts(res, b);
	sbuf_addf(b, "\n\n");
}

/* What is true of the whole check above its rows: time not gated, and each STALE line. */
static void report_check_md_banners(const struct check_result *res, const char *ungated,
                                    struct sbuf *b)
{
	if (ungated) {
		sbuf_addf(b, "> **TIME NOT GATED**: ");
		escape_md(b, ungated);
		sbuf_addf(b, "\n\n");
	}
	for (size_t i = 0; i < res->stale.n; i++) {
		sbuf_addf(b, "> **STALE**: ");
		escape_md(b, res->stale.items[i]);
		sbuf_addf(b, "\n\n");
	}
}

/*
 * The check as a pull request shows it, short: the verdict first, then what cannot pass (the
 * check's own reason, STALE, time not gated), every row that is not ok once (never folded,
 * never repeated), whether the valgrind figures past their allowance were so in every run,
 * where their instructions went (the functions, summed over the probes: movers_md_sum), and
 * behind one fold the baseline and what it can see, with how to see every cell. An ok check
 * is its verdict and the fold. Below REPORT_MD_CAP bytes: rows that do not fit are counted.
 */
char *report_check_md(const struct report_check *c)
{
	const struct check_result *res = c->res;
	const struct baseline *bl = c->baseline;
	struct sbuf b;
	struct report_budget bg;
	char *sens = report_check_sensitivity(c), *ungated = report_check_ungated(c),
	     *few = report_check_few_runs(res), *sees = report_check_sees(res);
	size_t shown = 0, nwhere = report_check_nwhere(res);

	sbuf_init(&b);
	report_budget_init(&bg, &b);
	report_check_md_top(c, &b);
	report_check_md_banners(res, ungated, &b);
	for (size_t i = 0; i < res->nrows; i++)
		shown += report_check_row_shown(&res->rows[i]);
	if (shown) {
		report_check_md_head(&b);
		for (size_t i = 0; i < res->nrows; i++)
			if (report_check_row_shown(&res->rows[i]))
				report_check_md_budget_row(c, &res->rows[i], &bg);
		report_budget_note(&bg);
		sbuf_addf(&b, "\n");
	}
	report_check_md_runs(&b, res, report_check_run_confirmed, "confirmed",
	                     "past the allowance in every run: a change, not one rare run");
	if (nwhere) {
		const struct fnprof_diff **diffs = xcalloc(nwhere, sizeof *diffs);
		const char **probes = xcalloc(nwhere, sizeof *probes);
		size_t k = 0;
		for (size_t i = 0; i < res->nrows; i++)
			if (res->rows[i].has_where) {
				diffs[k] = &res->rows[i].where;
				probes[k++] = res->rows[i].probe;
			}
		sbuf_addf(
		    &b,
		    "**Where the instructions moved** (cachegrind's Ir by function, now - "
		    "pin, summed over %zu probe%s; each probe's: `gcratchet explain --session "
		    "%lld --profile ",
		    nwhere, nwhere == 1 ? "" : "s", (long long)c->session);
		escape_md(&b, bl->profile);
		sbuf_addf(&b, " --collector ");
		escape_md(&b, bl->collector);
		sbuf_addf(&b, "`)\n\n");
		movers_md_sum(&b, diffs, probes, nwhere, MOVERS_MD_MAX);
		sbuf_addf(&b, "\n");
		free(probes);
		free(diffs);
	}
	sbuf_addf(&b,
	          "<details><summary>%zu %scell%s ok or not gated; the baseline and what it "
	          "can see</summary>\n\nbaseline: ",
	          res->nrows - shown, shown ? "more " : "", res->nrows - shown == 1 ? "" : "s");
	escape_md(&b, c->baseline_path);
	sbuf_addf(&b, " (pinned ");
	escape_md(&b, bl->pinned_at);
	sbuf_addf(&b, " on ");
	escape_md(&b, bl->hostname);
	sbuf_addf(&b, ", session %lld)\n\nsensitivity: ", (long long)bl->session);
	escape_md(&b, sens);
	sbuf_addf(&b, "\n\n");
	if (sees) {
		sbuf_addf(&b, "can see: ");
		escape_md(&b, sees);
		sbuf_addf(&b, "\n\n");
	}
	if (res->insensitive) {
		char target[16], *what;
		metrics_format_pct(res->target_pct, target, sizeof target);
		what = xasprintf("gated that cannot see a change of %s%% at their runs", target);
		report_check_md_runs(&b, res, report_check_blind, "**INSENSITIVE**", what);
		free(what);
	}
	if (res->widened)
		sbuf_addf(&b,
		          "widened: %zu judged cell%s pinned with a band for the spread of "
		          "their pinning runs\n\n",
		          res->widened, res->widened == 1 ? "" : "s");
	if (few) {
		sbuf_addf(&b, "few runs: ");
		escape_md(&b, few);
		sbuf_addf(&b, "\n\n");
	}
	report_check_md_runs(
	    &b, res, report_check_run_disagrees, "runs disagree",
	    "whose runs lie further apart than the allowance, judged by the median");
	for (size_t i = 0; i < res->unpinned.n; i++) {
		sbuf_addf(&b, "Note: ");
		escape_md(&b, res->unpinned.items[i]);
		sbuf_addf(&b, " was measured, but the baseline pins no cell of it: not judged "
		              "(`gcratchet baseline pin` adds it).\n\n");
	}
	sbuf_addf(&b,
	          "Every cell: the check page (`--html FILE`), or this comment in full "
	          "(`gcratchet check --session %lld --profile ",
	          (long long)c->session);
	escape_md(&b, bl->profile);
	sbuf_addf(&b, " --collector ");
	escape_md(&b, bl->collector);
	sbuf_addf(&b, " --format md --md-full`).\n\n</details>\n");
	free(sees);
	free(few);
	free(ungated);
	free(sens);
	return b.data;
}

/*
 * The whole check in Markdown (check --md-full): what cannot pass and the verdict first, the
 * baseline, one line per probe (its worst row), every row that is not ok (never folded), where
 * the instructions moved against the pin, probe by probe; the ok and info rows behind one
 * fold. Below REPORT_MD_CAP bytes: rows that do not fit are counted, and are in the artifact.
 */
char *report_check_md_full(const struct report_check *c)
{
	const struct check_result *res = c->res;
	const struct baseline *bl = c->baseline;
	struct sbuf b, part;
	struct report_budget bg;
	struct strlist probes = {0};
	char *sens = report_check_sensitivity(c), *ungated = report_check_ungated(c),
	     *few = report_check_few_runs(res), *disagree = report_check_runs(res, 0),
	     *agree = report_check_runs(res, 1), *sees = report_check_sees(res),
	     *blind = report_check_insensitive(res);
	size_t shown = 0;

	sbuf_init(&b);
	sbuf_init(&part);
	report_budget_init(&bg, &b);
	/* The verdict is the first line; when the check cannot pass at all, with the reason. */
	report_check_md_top(c, &b);
	if (res->why) {
		sbuf_addf(&b, "> **COULD NOT JUDGE**: ");
		escape_md(&b, res->why);
		sbuf_addf(&b, "\n\n");
	}
	report_check_md_banners(res, ungated, &b);
	sbuf_addf(&b, "> baseline: ");
	escape_md(&b, c->baseline_path);
	sbuf_addf(&b, " (pinned ");
	escape_md(&b, bl->pinned_at);
	sbuf_addf(&b, " on ");
	escape_md(&b, bl->hostname);
	sbuf_addf(&b, ", session %lld)\n>\n> sensitivity: ", (long long)bl->session);
	escape_md(&b, sens);
	if (sees) {
		sbuf_addf(&b, "\n>\n> can see: ");
		escape_md(&b, sees);
	}
	if (blind) {
		sbuf_addf(&b, "\n>\n> **INSENSITIVE**: ");
		escape_md(&b, blind);
	}
	if (res->widened)
		sbuf_addf(&b,
		          "\n>\n> widened: %zu judged cell%s pinned with a band for the spread "
		          "of their pinning runs",
		          res->widened, res->widened == 1 ? "" : "s");
	if (few) {
		sbuf_addf(&b, "\n>\n> few runs: ");
		escape_md(&b, few);
	}
	if (disagree) {
		sbuf_addf(&b, "\n>\n> runs disagree: ");
		escape_md(&b, disagree);
	}
	if (agree) {
		sbuf_addf(&b, "\n>\n> confirmed: ");
		escape_md(&b, agree);
	}
	sbuf_addf(&b, "\n\n");
	for (size_t i = 0; i < res->unpinned.n; i++) {
		sbuf_addf(&b, "Note: ");
		escape_md(&b, res->unpinned.items[i]);
		sbuf_addf(&b, " was measured, but the baseline pins no cell of it: not judged "
		              "(`gcratchet baseline pin` adds it).\n\n");
	}

	for (size_t i = 0; i < res->nrows; i++) {
		shown += report_check_row_shown(&res->rows[i]);
		if (!strlist_contains(&probes, res->rows[i].probe))
			strlist_push(&probes, res->rows[i].probe);
	}
	if (probes.n) {
		sbuf_addf(&b, "**Each probe's worst row**\n\n");
		report_check_md_head(&b);
		for (size_t k = 0; k < probes.n; k++)
			report_check_md_budget_row(
			    c, report_check_probe_worst(res, probes.items[k]), &bg);
	}
	if (shown) {
		sbuf_addf(&b, "\n**Not ok: %zu row%s** (regressed, improved, could not judge)\n\n",
		          shown, shown == 1 ? "" : "s");
		report_check_md_head(&b);
		for (size_t i = 0; i < res->nrows; i++)
			if (report_check_row_shown(&res->rows[i]))
				report_check_md_budget_row(c, &res->rows[i], &bg);
		report_budget_note(&bg);
	}
	if (report_check_nwhere(res)) {
		sbuf_addf(&b,
		          "\n**Where the instructions moved against the pin** (cachegrind's Ir by "
		          "function, now - pin)\n");
		for (size_t i = 0; i < res->nrows; i++) {
			const struct check_row *r = &res->rows[i];
			char *how;
			struct movers_view v;
			if (!r->has_where)
				continue;
			how = report_check_where_how(c, r);
			v = (struct movers_view){r->probe, &r->where, "pin", "now", how};
			sbuf_release(&part);
			sbuf_init(&part);
			movers_md(&part, &v, MOVERS_MD_MAX);
			report_budget_add(&bg, part.data);
			free(how);
		}
		report_budget_note(&bg);
	}
	if (res->nrows > shown) {
		sbuf_addf(&b, "\n<details><summary>%zu row%s ok or not gated</summary>\n\n",
		          res->nrows - shown, res->nrows - shown == 1 ? "" : "s");
		report_check_md_head(&b);
		for (size_t i = 0; i < res->nrows; i++)
			if (!report_check_row_shown(&res->rows[i]))
				report_check_md_budget_row(c, &res->rows[i], &bg);
		report_budget_note(&bg);
		sbuf_addf(&b, "\n</details>\n");
	}
	sbuf_release(&part);
	strlist_release(&probes);
	free(blind);
	free(sees);
	free(few);
	free(disagree);
	free(agree);
	free(ungated);
	free(sens);
	return b.data;
}

/* ---- JSON -------------------------------------------------------------------------------- */

static const char *report_check_json_verdict(const struct check_row *r)
{
	if (r->kind == CHECK_ROW_PREMISE)
		return "inert";
	if (r->state == CHECK_UNJUDGED)
		return "could_not_judge";
	return r->j.verdict == BASELINE_REGRESSED ? "regressed"
	                                          : baseline_verdict_name(r->j.verdict);
}

static void report_check_json_str(cJSON *o, const char *key, const char *s)
{
	cJSON_AddItemToObject(o, key, escape_json_string(s));
}

char *report_check_json(const struct report_check *c)
{
	const struct check_result *res = c->res;
	const struct baseline *bl = c->baseline;
	const struct check_sensitivity *sens = &res->sensitivity;
	cJSON *root = cJSON_CreateObject(), *cells = cJSON_CreateArray(), *stale, *so;
	char *json, *text;

	cJSON_AddStringToObject(root, "format", REPORT_CHECK_FORMAT);
	cJSON_AddNumberToObject(root, "version", REPORT_CHECK_VERSION);
	cJSON_AddStringToObject(root, "verdict",
	                        res->verdict == CHECK_VERDICT_REGRESSION ? "regression"
	                        : res->verdict == CHECK_VERDICT_UNJUDGED ? "could_not_judge"
	                                                                 : "ok");
	if (res->why)
		report_check_json_str(root, "reason", res->why);
	report_check_json_str(root, "profile", bl->profile);
	report_check_json_str(root, "collector", bl->collector);
	report_check_json_str(root, "baseline", c->baseline_path);
	cJSON_AddNumberToObject(root, "session", (double)c->session);
	report_check_json_str(root, "build", c->build_name);
	report_check_json_str(root, "size", bl->size);
	stale = cJSON_AddArrayToObject(root, "stale");
	for (size_t i = 0; i < res->stale.n; i++)
		cJSON_AddItemToArray(stale, escape_json_string(res->stale.items[i]));
	stale = cJSON_AddArrayToObject(root, "unpinned_probes");
	for (size_t i = 0; i < res->unpinned.n; i++)
		cJSON_AddItemToArray(stale, escape_json_string(res->unpinned.items[i]));
	so = cJSON_AddObjectToObject(root, "sensitivity");
	cJSON_AddNumberToObject(so, "time_cells", (double)sens->cells);
	cJSON_AddNumberToObject(so, "widened", (double)sens->widened);
	cJSON_AddNumberToObject(root, "widened_cells", (double)res->widened);
	if (sens->cells && isfinite(sens->median_pct) && isfinite(sens->worst_pct)) {
		cJSON_AddNumberToObject(so, "median_band_pct", sens->median_pct);
		cJSON_AddNumberToObject(so, "worst_band_pct", sens->worst_pct);
	}
	cJSON_AddBoolToObject(so, "time_gated", sens->cells > 0 && !sens->time_ungated);
	if (bl->noise.reason)
		report_check_json_str(so, "noise_accepted", bl->noise.reason);
	{
		cJSON *classes = cJSON_AddObjectToObject(so, "classes");
		cJSON_AddNumberToObject(so, "target_pct", res->target_pct);
		cJSON_AddNumberToObject(so, "insensitive", (double)res->insensitive);
		for (int k = 0; k < BASELINE_CLASS_INFO; k++) {
			const struct check_class_sees *s = &res->sees[k];
			cJSON *o;
			if (!s->cells)
				continue;
			o = cJSON_AddObjectToObject(classes,
			                            baseline_class_name((enum baseline_class)k));
			cJSON_AddNumberToObject(o, "cells", (double)s->cells);
			cJSON_AddNumberToObject(o, "runs_min", s->runs_min);
			cJSON_AddNumberToObject(o, "runs_max", s->runs_max);
			/* null: some cell sees nothing at its runs */
			if (isfinite(s->median_pct))
				cJSON_AddNumberToObject(o, "median_pct", s->median_pct);
			else
				cJSON_AddNullToObject(o, "median_pct");
			if (isfinite(s->worst_pct))
				cJSON_AddNumberToObject(o, "worst_pct", s->worst_pct);
			else
				cJSON_AddNullToObject(o, "worst_pct");
			cJSON_AddNumberToObject(o, "insensitive", (double)s->blind);
		}
	}
	for (size_t i = 0; i < res->nrows; i++) {
		const struct check_row *r = &res->rows[i];
		cJSON *o = cJSON_CreateObject();
		char *why = report_check_reason(c, r);
		report_check_json_str(o, "probe", r->probe);
		report_check_json_str(o, "metric", r->metric);
		cJSON_AddStringToObject(o, "verdict", report_check_json_verdict(r));
		if (r->kind == CHECK_ROW_CELL) {
			cJSON_AddNumberToObject(o, "baseline", r->base);
			cJSON_AddStringToObject(o, "class", baseline_class_name(r->cls));
			if (isfinite(r->band_pct))
				cJSON_AddNumberToObject(o, "band_pct", r->band_pct);
			if (r->widened)
				cJSON_AddStringToObject(o, "widened",
				                        r->widened == 2 ? "noise" : "override");
			if (r->state == CHECK_JUDGED) {
				cJSON_AddNumberToObject(o, "current", r->current);
				cJSON_AddNumberToObject(o, "n", r->n);
				cJSON_AddNumberToObject(o, "runs_min", r->range[0]);
				cJSON_AddNumberToObject(o, "runs_max", r->range[1]);
				cJSON_AddNumberToObject(o, "delta", r->j.delta);
				if (isfinite(r->j.delta_pct))
					cJSON_AddNumberToObject(o, "delta_pct", r->j.delta_pct);
				cJSON_AddNumberToObject(o, "allowance", r->j.allowance);
				if (isfinite(r->j.used))
					cJSON_AddNumberToObject(o, "used", r->j.used);
				if (!isnan(r->mde_pct)) {
					/* null: no change is seen at these runs */
					if (isfinite(r->mde_pct))
						cJSON_AddNumberToObject(o, "sees_pct", r->mde_pct);
					else
						cJSON_AddNullToObject(o, "sees_pct");
					if (r->need_runs)
						cJSON_AddNumberToObject(o, "runs_to_see_target",
						                        r->need_runs);
				}
				if (r->cls == BASELINE_CLASS_DIST && r->family) {
					cJSON_AddNumberToObject(o, "p", r->p_bad);
					cJSON_AddNumberToObject(o, "family", (double)r->family);
				}
			}
		}
		if (why)
			report_check_json_str(o, "reason", why);
		free(why);
		if (r->has_where) {
			char *how = report_check_where_how(c, r);
			struct movers_view v = {r->probe, &r->where, "pin", "now", how};
			cJSON_AddItemToObject(o, "where", movers_json(&v, MOVERS_JSON_MAX));
			free(how);
		}
		cJSON_AddItemToArray(cells, o);
	}
	cJSON_AddItemToObject(root, "cells", cells);
	json = cJSON_Print(root);
	text = xasprintf("%s\n", json);
	cJSON_free(json);
	cJSON_Delete(root);
	return text;
}

/* ---- JUnit XML --------------------------------------------------------------------------- */

/* A comment holding s: escaped as text would be, and no "--", which may not appear in one. */
static void report_check_xml_comment(struct sbuf *b, const char *prefix, const char *s)
{
	struct sbuf t;

	sbuf_init(&t);
	escape_xml(&t, s);
	sbuf_addf(b, "<!-- %s", prefix);
	for (const char *p = t.data; *p; p++)
		sbuf_addf(b, "%c", p[0] == '-' && p[1] == '-' ? '_' : p[0]);
	sbuf_addf(b, " -->\n");
	sbuf_release(&t);
}

/* JUnit XML: one testcase per row, a failure per regression, an error per unjudged row. */
char *report_check_junit(const struct report_check *c)
{
	const struct check_result *res = c->res;
	struct sbuf b;
	char *sens = report_check_sensitivity(c), *ungated = report_check_ungated(c);

	sbuf_init(&b);
	sbuf_addf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	if (res->why)
		report_check_xml_comment(&b, "COULD NOT JUDGE: ", res->why);
	if (ungated)
		report_check_xml_comment(&b, "TIME NOT GATED: ", ungated);
	sbuf_addf(&b, "<testsuites>\n<testsuite name=\"gcratchet check ");
	escape_xml(&b, c->baseline->profile);
	sbuf_addf(&b, " ");
	escape_xml(&b, c->baseline->collector);
	/*
	 * A cell that is not gated is recorded, never judged: no test case, or a CI page would
	 * list hundreds of skipped tests on every run. Its count is a property of the suite; a
	 * cell that could not be judged (a gated one not measured too) is an error, and nothing
	 * here is skipped.
	 */
	sbuf_addf(&b, "\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" skipped=\"0\">\n",
	          res->nrows - (size_t)res->info + (res->why != NULL), res->regressed,
	          res->unjudged + (res->why != NULL));
	sbuf_addf(&b, "  <properties><property name=\"sensitivity\" value=\"");
	escape_xml(&b, sens);
	sbuf_addf(&b, "\"/><property name=\"not_gated\" value=\"%d\"/></properties>\n", res->info);
	for (size_t i = 0; i < res->stale.n; i++) {
		sbuf_addf(&b, "  ");
		report_check_xml_comment(&b, "STALE: ", res->stale.items[i]);
	}
	for (size_t i = 0; i < res->unpinned.n; i++) {
		sbuf_addf(&b, "  ");
		report_check_xml_comment(&b, "NOT PINNED (not judged): ", res->unpinned.items[i]);
	}
	/* A CI page lists testcases, not comments: the session's own error is one. */
	if (res->why) {
		sbuf_addf(&b, "  <testcase classname=\"gcratchet\" name=\"session\"><error "
		              "message=\"COULD NOT JUDGE: ");
		escape_xml(&b, res->why);
		sbuf_addf(&b, "\"/></testcase>\n");
	}
	for (size_t i = 0; i < res->nrows; i++) {
		const struct check_row *r = &res->rows[i];
		const char *tag = r->state == CHECK_UNJUDGED ? "error" : "failure";
		struct report_check_cells cells;
		char *why;

		if (r->state == CHECK_JUDGED && r->j.verdict == BASELINE_INFO)
			continue;
		sbuf_addf(&b, "  <testcase classname=\"");
		escape_xml(&b, r->probe);
		sbuf_addf(&b, "\" name=\"");
		escape_xml(&b, r->metric);
		sbuf_addf(&b, "\">");
		if (r->state == CHECK_UNJUDGED || r->j.verdict == BASELINE_REGRESSED) {
			report_check_format_cells(r, &cells);
			why = report_check_reason(c, r);
			sbuf_addf(&b, "<%s message=\"", tag);
			escape_xml(&b, check_row_verdict_name(r));
			sbuf_addf(&b, ": baseline %s, current %s, delta %s, allowance %s\">",
			          cells.base, cells.cur, cells.delta, cells.allow);
			escape_xml(&b, why);
			sbuf_addf(&b, "</%s>", tag);
			free(why);
		}
		sbuf_addf(&b, "</testcase>\n");
	}
	sbuf_addf(&b, "</testsuite>\n</testsuites>\n");
	free(ungated);
	free(sens);
	return b.data;
}

/* ---- HTML ------------------------------------------------------------------------------- */

static const char *report_check_html_class(const struct check_row *r)
{
	if (r->kind == CHECK_ROW_PREMISE || r->state == CHECK_UNJUDGED)
		return "warn";
	return r->j.verdict == BASELINE_REGRESSED  ? "worse"
	       : r->j.verdict == BASELINE_IMPROVED ? "better"
	                                           : "";
}

/* A row of a table: its figures, verdict and reason; with `samples`, the session's values. */
static void report_check_html_row(struct sbuf *b, const struct report_check *c,
                                  const struct check_row *r, int samples)
{
	struct report_check_cells cells;
	char *why = report_check_reason(c, r), band[24] = "-";

	report_check_format_cells(r, &cells);
	if (r->kind == CHECK_ROW_CELL && isfinite(r->band_pct)) {
		metrics_format_pct(r->band_pct, band, sizeof band - 2);
		strcat(band, "%");
	}
	sbuf_addf(b, "<tr><td class=\"l\">");
	escape_xml(b, r->probe);
	sbuf_addf(b, "</td><td class=\"l\">");
	escape_xml(b, r->metric);
	sbuf_addf(b, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
	          cells.base, cells.cur, cells.delta, band, cells.allow, cells.used);
	sbuf_addf(b, "<td class=\"l %s\">", report_check_html_class(r));
	escape_xml(b, check_row_verdict_name(r));
	sbuf_addf(b, "</td><td class=\"l wrap\">");
	if (why)
		escape_xml(b, why);
	if (samples && c->runs && r->kind == CHECK_ROW_CELL) {
		enum run_kind kind = metrics_run_kind(r->metric);
		int first = 1;
		for (size_t i = 0; i < c->nruns; i++) {
			const struct store_run *run = &c->runs[i];
			const double *v;
			char x[32];
			if (run->warmup || run->kind != kind || strcmp(run->probe, r->probe) != 0 ||
			    strcmp(run->size, c->baseline->size) != 0)
				continue;
			sbuf_addf(b, "%s", first ? (why ? "<br>samples: " : "samples: ") : ", ");
			first = 0;
			if (run->status != RUN_STATUS_OK ||
			    !(v = metric_set_get(&run->metrics, r->metric))) {
				sbuf_addf(b, "run %lld ", (long long)run->id);
				escape_xml(b, run_status_label(run->status));
				continue;
			}
			metrics_format_value(r->metric, *v, x, sizeof x);
			sbuf_addf(b, "%s (run %lld)", x, (long long)run->id);
		}
	}
	sbuf_addf(b, "</td></tr>\n");
	free(why);
}

static void report_check_html_head(struct sbuf *b)
{
	sbuf_addf(b, "<div class=\"scroll\"><table>\n<tr><th class=\"l\">probe</th><th "
	             "class=\"l\">metric</th><th>pinned</th><th>current</th><th>delta</th>"
	             "<th>band</th><th>allowance</th><th>used</th><th class=\"l\">verdict</th><th "
	             "class=\"l\">why</th></tr>\n");
}

char *report_check_html(const struct report_check *c)
{
	const struct check_result *res = c->res;
	const struct baseline *bl = c->baseline;
	struct sbuf b;
	struct strlist probes = {0};
	char *sens = report_check_sensitivity(c), *ungated = report_check_ungated(c), *title;
	const char *banner = res->verdict == CHECK_VERDICT_OK           ? "good"
	                     : res->verdict == CHECK_VERDICT_REGRESSION ? "bad"
	                                                                : "warn";
	size_t shown = 0;

	sbuf_init(&b);
	title = xasprintf("gcratchet check: %s (%s), profile %s, session %lld", c->build_name,
	                  bl->collector, bl->profile, (long long)c->session);
	report_html_head(&b, title);
	sbuf_addf(&b, "<h1>");
	escape_xml(&b, title);
	sbuf_addf(&b, "</h1>\n<div class=\"banner %s\" id=\"verdict\">verdict: %s ", banner,
	          check_verdict_name(res->verdict));
	{
		struct sbuf counts;
		sbuf_init(&counts);
		report_check_counts(res, &counts);
		escape_xml(&b, counts.data);
		sbuf_release(&counts);
	}
	if (res->why) {
		sbuf_addf(&b, "<br>COULD NOT JUDGE: ");
		escape_xml(&b, res->why);
	}
	sbuf_addf(&b, "</div>\n");
	if (ungated) {
		sbuf_addf(&b, "<div class=\"banner warn\">TIME NOT GATED: ");
		escape_xml(&b, ungated);
		sbuf_addf(&b, "</div>\n");
	}
	for (size_t i = 0; i < res->stale.n; i++) {
		sbuf_addf(&b, "<div class=\"banner warn\">STALE: ");
		escape_xml(&b, res->stale.items[i]);
		sbuf_addf(&b, "</div>\n");
	}
	sbuf_addf(&b, "<p class=\"meta\"><b>baseline</b> <code>");
	escape_xml(&b, c->baseline_path);
	sbuf_addf(&b, "</code>: profile ");
	escape_xml(&b, bl->profile);
	sbuf_addf(&b, ", collector ");
	escape_xml(&b, bl->collector);
	sbuf_addf(&b, " ");
	escape_xml(&b, bl->collector_version);
	sbuf_addf(&b, ", pinned ");
	escape_xml(&b, bl->pinned_at);
	sbuf_addf(&b, " on host ");
	escape_xml(&b, bl->hostname);
	sbuf_addf(&b, " (");
	escape_xml(&b, bl->host_fingerprint);
	sbuf_addf(&b, ") from session %lld, size ", (long long)bl->session);
	escape_xml(&b, bl->size);
	sbuf_addf(&b, "</p>\n<p class=\"meta\"><b>checked</b> session %lld, build ",
	          (long long)c->session);
	escape_xml(&b, c->build_name);
	if (c->base_name) {
		sbuf_addf(&b, " (drift against ");
		escape_xml(&b, c->base_name);
		sbuf_addf(&b, ")");
	}
	sbuf_addf(&b, "; sensitivity: ");
	escape_xml(&b, sens);
	sbuf_addf(&b, "</p>\n<p class=\"meta\"><b>samples</b>: ");
	if (c->samples_href) {
		sbuf_addf(&b, "<a href=\"");
		escape_xml(&b, c->samples_href);
		sbuf_addf(&b, "\">the session's page</a> (every sample by round), ");
	}
	sbuf_addf(&b,
	          "<code>gcratchet report --session %lld --html FILE</code>, <code>gcratchet "
	          "export --session %lld</code></p>\n",
	          (long long)c->session, (long long)c->session);
	for (size_t i = 0; i < res->unpinned.n; i++) {
		sbuf_addf(&b, "<p class=\"meta\">Note: ");
		escape_xml(&b, res->unpinned.items[i]);
		sbuf_addf(&b,
		          " was measured, but the baseline pins no cell of it: not judged.</p>\n");
	}

	for (size_t i = 0; i < res->nrows; i++) {
		shown += report_check_row_shown(&res->rows[i]);
		if (!strlist_contains(&probes, res->rows[i].probe))
			strlist_push(&probes, res->rows[i].probe);
	}
	if (shown) {
		sbuf_addf(&b, "<h2>Not ok: %zu row%s</h2>\n", shown, shown == 1 ? "" : "s");
		report_check_html_head(&b);
		for (size_t i = 0; i < res->nrows; i++)
			if (report_check_row_shown(&res->rows[i]))
				report_check_html_row(&b, c, &res->rows[i], 1);
		sbuf_addf(&b, "</table></div>\n");
	}
	if (report_check_nwhere(res)) {
		sbuf_addf(&b,
		          "<h2>Where the instructions moved against the pin</h2>\n<p "
		          "class=\"meta\">cachegrind's Ir by function, now - pin; share: of the "
		          "probe's whole change.</p>\n");
		for (size_t i = 0; i < res->nrows; i++) {
			const struct check_row *r = &res->rows[i];
			char *how;
			struct movers_view v;
			if (!r->has_where)
				continue;
			how = report_check_where_how(c, r);
			v = (struct movers_view){r->probe, &r->where, "pin", "now", how};
			movers_html(&b, &v, MOVERS_HTML_MAX);
			free(how);
		}
	}
	if (probes.n) {
		sbuf_addf(&b, "<h2>Each probe's worst row</h2>\n");
		report_check_html_head(&b);
		for (size_t k = 0; k < probes.n; k++)
			report_check_html_row(&b, c, report_check_probe_worst(res, probes.items[k]),
			                      0);
		sbuf_addf(&b, "</table></div>\n");
	}
	if (res->nrows > shown) {
		sbuf_addf(&b, "<details id=\"all\"><summary>%zu row%s ok or not gated</summary>\n",
		          res->nrows - shown, res->nrows - shown == 1 ? "" : "s");
		report_check_html_head(&b);
		for (size_t i = 0; i < res->nrows; i++)
			if (!report_check_row_shown(&res->rows[i]))
				report_check_html_row(&b, c, &res->rows[i], 0);
		sbuf_addf(&b, "</table></div>\n</details>\n");
	}
	report_html_tail(&b);
	strlist_release(&probes);
	free(title);
	free(ungated);
	free(sens);
	return b.data;
}
