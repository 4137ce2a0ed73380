#include "report_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "movers.h"

void report_text_mde(const struct compare_cell *cell, char *buf, size_t size)
{
	if (isnan(cell->mde_pct))
		snprintf(buf, size, "-");
	else if (isinf(cell->mde_pct))
		snprintf(buf, size, "none<%zu", cell->mde_rounds);
	else
		snprintf(buf, size, "%.2f%%", cell->mde_pct);
}

void report_text_interval(const struct compare_cell *cell, char *buf, size_t size)
{
	const struct paired_cell *s = &cell->stats;
	char lo[48], hi[48];

	if (s->n == 0) {
		snprintf(buf, size, "-");
		return;
	}
	if (s->deterministic) {
		snprintf(buf, size, "exact");
		return;
	}
	if (s->base_median != 0) {
		report_format_pct(100 * s->ci.lo / fabs(s->base_median), lo, sizeof lo);
		report_format_pct(100 * s->ci.hi / fabs(s->base_median), hi, sizeof hi);
	} else {
		report_format_delta(cell->metric, s->ci.lo, lo, sizeof lo);
		report_format_delta(cell->metric, s->ci.hi, hi, sizeof hi);
	}
	/* Below 95% the interval is the widest there is: say what it reaches. */
	if (s->ci.level < 0.95)
		snprintf(buf, size, "[%s, %s] %.0f%%", lo, hi, 100 * s->ci.level);
	else
		snprintf(buf, size, "[%s, %s]", lo, hi);
}

void report_text_counts(const struct compare *c, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%d worse, %d better, %d same, %d info", c->worse, c->better,
	                 c->same, c->info);

	if (c->across && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, ", %d context", c->context);
	if (n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", %d not judged",
		         c->few + c->unjudged + c->inert);
}

/* A value as the table shows it: every digit when wide, else short (metrics_format_short). */
static void report_text_value(const char *metric, double v, int wide, char *buf, size_t size)
{
	if (wide)
		metrics_format_value(metric, v, buf, size);
	else
		metrics_format_short(metric, v, buf, size);
}

/* 1 when a formatted value reads as zero ("0", "0 B", "0 ns"): a rounded-away change. */
static int report_text_shows_zero(const char *s)
{
	char *end;
	double x = strtod(s, &end);

	return end != s && x == 0;
}

static void report_text_delta(const char *metric, double v, int wide, char *buf, size_t size)
{
	char tmp[48];

	if (wide || !isfinite(v)) {
		report_format_delta(metric, v, buf, size);
		return;
	}
	metrics_format_short(metric, fabs(v), tmp, sizeof tmp);
	/* No sign on what shows as none: "0", "0 B", not "-0 B". */
	snprintf(buf, size, "%s%s", report_text_shows_zero(tmp) ? "" : v > 0 ? "+" : "-", tmp);
}

static void report_text_builds(const struct compare *c, struct sbuf *b)
{
	const struct report_data *d = c->data;

	for (int arm = 0; arm < 2; arm++) {
		const struct store_build *sb = &d->builds[arm ? c->fix : c->base];
		sbuf_addf(b, "%-5s %-20s %s %s, commit %.12s, %s\n", arm ? "FIX" : "BASE",
		          sb->label, sb->collector,
		          sb->collector_version ? sb->collector_version : "?",
		          sb->git_commit ? sb->git_commit : "?", sb->dir ? sb->dir : "?");
		if (sb->knobs)
			sbuf_addf(b, "      knobs %s\n", sb->knobs);
	}
}

static void report_text_identity(const struct compare *c, struct sbuf *b, int wide)
{
	char line[256];

	sbuf_addf(b, "\nidentity (checked first)\n");
	for (size_t i = 0; i < c->nprobes; i++) {
		const struct compare_probe *p = &c->probes[i];
		switch (p->sum) {
		case COMPARE_SUM_SAME:
			sbuf_addf(b, "  %-24s checksum %s in both\n", p->probe, p->base_sum);
			break;
		case COMPARE_SUM_DIFFERS:
			sbuf_addf(b, "  %-24s CHECKSUM DIFFERS: BASE %s, FIX %s\n", p->probe,
			          p->base_sum, p->fix_sum);
			break;
		case COMPARE_SUM_UNSTABLE:
			sbuf_addf(b,
			          "  %-24s CHECKSUM UNSTABLE: runs of one arm printed different "
			          "results\n",
			          p->probe);
			break;
		case COMPARE_SUM_MISSING:
			sbuf_addf(b, "  %-24s CHECKSUM MISSING: BASE %s, FIX %s\n", p->probe,
			          p->base_sum ? p->base_sum : "none",
			          p->fix_sum ? p->fix_sum : "none");
			break;
		case COMPARE_SUM_NONE:
			sbuf_addf(b, "  %-24s no checksum reported\n", p->probe);
			break;
		}
		if (p->failure)
			sbuf_addf(b, "  %-24s %s%s\n", "",
			          p->fix_only_failure ? "FIX FAILS: " : "failed: ", p->failure);
		for (int arm = 0; arm < 2; arm++) {
			int n = arm ? p->fix_inert : p->base_inert;
			const char *why = arm ? p->fix_premise : p->base_premise;
			if (n)
				sbuf_addf(b,
				          "  %-24s INERT in %s: %d of %d runs did not meet the "
				          "premise%s%s\n",
				          "", arm ? "FIX" : "BASE", n,
				          arm ? p->fix_runs : p->base_runs, why && *why ? ": " : "",
				          why ? why : "");
		}
	}
	if (compare_census_varies_text(c, line, sizeof line)) {
		sbuf_addf(b, "  %s\n", line);
		return;
	}
	sbuf_addf(b, "  census: %d deterministic counter%s compared exactly, ", c->census_exact,
	          c->census_exact == 1 ? "" : "s");
	if (c->census_differ == 0) {
		sbuf_addf(b, "all equal\n");
		return;
	}
	sbuf_addf(b, "%d differ%s:\n", c->census_differ,
	          c->across ? " between the designs (context, not judged)" : "");
	for (size_t i = 0; i < c->ncells; i++) {
		const struct compare_cell *cell = &c->cells[i];
		char x[48], y[48], dl[48];
		if (!compare_census_listed(cell))
			continue;
		report_text_value(cell->metric, cell->stats.base_median, wide, x, sizeof x);
		report_text_value(cell->metric, cell->stats.fix_median, wide, y, sizeof y);
		report_text_delta(cell->metric, cell->stats.delta_median, wide, dl, sizeof dl);
		sbuf_addf(b, "    %-24s %-34s %s -> %s (%s)\n", cell->probe, cell->metric, x, y,
		          dl);
	}
}

static void report_text_raw(struct sbuf *b, const char *s)
{
	sbuf_addf(b, "%s", s);
}

static int report_text_any_method(const struct compare *c, const char *method)
{
	for (size_t i = 0; i < c->ncells; i++) {
		const char *m = compare_cell_method(&c->cells[i]);
		if (m && c->cells[i].pol.decides && strcmp(m, method) == 0)
			return 1;
	}
	return 0;
}

static int report_text_any_unreachable(const struct compare *c)
{
	for (size_t i = 0; i < c->ncells; i++)
		if (c->cells[i].pol.decides && isinf(c->cells[i].mde_pct))
			return 1;
	return 0;
}

void report_text_warnings(const struct compare *c, struct sbuf *b, const char *prefix,
                          void (*escape)(struct sbuf *b, const char *s))
{
	char *rounds = compare_rounds_text(c), *across = compare_across_text(c);

	if (!escape)
		escape = report_text_raw;
	if (c->across) {
		sbuf_addf(b,
		          "%snote: across designs the census says how each collector works, not "
		          "what it costs: its %d cell%s %s context, shown and never judged "
		          "(--no-across judges them as within one design)\n",
		          prefix, c->context, c->context == 1 ? "" : "s",
		          c->context == 1 ? "is" : "are");
	} else if (across) {
		/* The collector names in it are stored text. */
		sbuf_addf(b, "%snote: judged as ", prefix);
		escape(b, across);
		sbuf_addf(b, "\n");
	}
	for (size_t i = 0; i < c->nprobes; i++) {
		const struct compare_probe *p = &c->probes[i];
		const char *why = p->fix_inert ? p->fix_premise : p->base_premise;
		size_t n = 0;
		if (!p->base_inert && !p->fix_inert)
			continue;
		for (size_t k = 0; k < c->ncells; k++)
			n += c->cells[k].probe == p->probe;
		sbuf_addf(b, "%snote: ", prefix);
		escape(b, p->probe);
		sbuf_addf(b, " went INERT in %s (premise not met",
		          p->base_inert && p->fix_inert ? "both arms"
		          : p->fix_inert                ? "FIX"
		                                        : "BASE");
		if (why && *why) {
			sbuf_addf(b, ": ");
			escape(b, why);
		}
		sbuf_addf(b,
		          "): its %zu cell%s %s not judged, since a probe that did not cause the "
		          "activity it exists for measures nothing about it (a counter fallen to 0 "
		          "is no improvement)\n",
		          n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
	}
	for (size_t i = 0; i < c->ncells; i++) {
		const struct compare_cell *cell = &c->cells[i];
		const struct paired_cell *s = &cell->stats;
		/* Info cells (sys time, faults) are often quantised: no warning for what never decides. */
		if (!cell->pol.decides || cell->inert || (!s->bimodal_base && !s->bimodal_fix))
			continue;
		sbuf_addf(b, "%swarning: ", prefix);
		escape(b, cell->probe);
		sbuf_addf(b, " ");
		escape(b, cell->metric);
		sbuf_addf(b,
		          " is bimodal in %s: a median then hides two modes; look at the samples\n",
		          s->bimodal_base && s->bimodal_fix ? "both arms"
		          : s->bimodal_base                 ? "BASE"
		                                            : "FIX");
	}
	for (size_t i = 0; i < c->ncells; i++) {
		const struct compare_cell *cell = &c->cells[i];
		const struct paired_spread *sp = &cell->spread;
		char x[48], y[48], ratio[24];
		if (!sp->change)
			continue;
		metrics_format_value(cell->metric, sp->base_sd, x, sizeof x);
		metrics_format_value(cell->metric, sp->fix_sd, y, sizeof y);
		if (isinf(sp->ratio))
			snprintf(ratio, sizeof ratio, "from none");
		else
			snprintf(ratio, sizeof ratio, "x%.3g", sp->ratio);
		sbuf_addf(b, "%snote: ", prefix);
		escape(b, cell->probe);
		sbuf_addf(b, " ");
		escape(b, cell->metric);
		sbuf_addf(b,
		          ": FIX's spread is %s, sd %s -> %s (%s, paired Brown-Forsythe q = %.4f); "
		          "info, never judged\n",
		          sp->change > 0 ? "wider" : "narrower", x, y, ratio, sp->q);
	}
	if (!c->session_complete)
		sbuf_addf(b, "%snote: the session is %s: only complete rounds (%s) are paired\n",
		          prefix, c->data->session.status, rounds);
	else if ((int)c->ncomplete < c->rounds_planned)
		sbuf_addf(b, "%snote: complete rounds %s: only those are paired\n", prefix, rounds);
	if (c->few)
		sbuf_addf(b,
		          "%snote: %d cell%s had fewer than %d pairs and cannot be judged by the "
		          "test (use --rounds 7 or more)\n",
		          prefix, c->few, c->few == 1 ? "" : "s", PAIRED_MIN_PAIRS);
	if (c->unjudged)
		sbuf_addf(b, "%snote: %d cell%s had no pair of successful runs\n", prefix,
		          c->unjudged, c->unjudged == 1 ? "" : "s");
	sbuf_addf(b,
	          "%snote: verdicts control the false-discovery rate (Benjamini-Hochberg, q = "
	          "%.2f) over %zu tested cell%s; deterministic cells are compared exactly\n",
	          prefix, c->fdr_q, c->family, c->family == 1 ? "" : "s");
	if (c->rank_family || report_text_any_method(c, "rank-sum"))
		sbuf_addf(
		    b,
		    "%snote: exact figures that vary are judged by their distributions (rank-sum "
		    "test, Benjamini-Hochberg at q = %.2f over %zu cell%s that could reach it; "
		    "a change within "
		    "the metric's resolution is same)\n",
		    prefix, PAIRED_RANK_Q, c->rank_family, c->rank_family == 1 ? "" : "s");
	if (report_text_any_unreachable(c))
		sbuf_addf(b,
		          "%snote: MDE none<N: at these rounds no change of that cell could be "
		          "called; N rounds could call one that does not overlap\n",
		          prefix);
	free(across);
	free(rounds);
}

void report_text_where_how(const struct compare_where *w, char *buf, size_t size)
{
	snprintf(buf, size, "each function's median over BASE's %d and FIX's %d valgrind run%s",
	         w->base_runs, w->fix_runs, w->base_runs == 1 && w->fix_runs == 1 ? "" : "s");
}

/* "where the instructions moved": per probe whose Ir changed, the functions that moved most. */
static void report_text_where(const struct compare *c, struct sbuf *b, int wide)
{
	if (!c->nwhere)
		return;
	sbuf_addf(b, "\nwhere the instructions moved (cachegrind's Ir by function, FIX - BASE)\n");
	for (size_t i = 0; i < c->nwhere; i++) {
		const struct compare_where *w = &c->where[i];
		char how[128];
		struct movers_view v = {w->probe, &w->diff, "BASE", "FIX", how};
		report_text_where_how(w, how, sizeof how);
		if (wide)
			movers_text(b, &v, MOVERS_TEXT_MAX, "  ");
		else
			movers_text_narrow(b, &v, MOVERS_TEXT_MAX, "  ", REPORT_TEXT_WIDTH);
	}
}

/* A narrow table's percentage: one decimal, none from 1000% on, finer only below 0.1%. */
static void report_text_pct(double pct, char *buf, size_t size)
{
	if (isfinite(pct) && fabs(pct) >= 999.95)
		snprintf(buf, size, "%+.0f%%", pct);
	else if (isfinite(pct) && fabs(pct) >= 0.1)
		snprintf(buf, size, "%+.1f%%", pct);
	else
		report_format_pct(pct, buf, size);
}

/* The narrow table's columns, in the order shown; the optional ones go first when it is too wide. */
enum { RT_METRIC, RT_BASE, RT_FIX, RT_DELTA, RT_PCT, RT_CI, RT_ROUNDS, RT_Q, RT_VERDICT, RT_NCOLS };
static const char *const report_text_heads[RT_NCOLS] = {
    "metric", "BASE", "FIX", "delta", "%", "95% CI", "rounds", "q", "verdict",
};

struct report_text_row {
	char col[RT_NCOLS][80];
};

static void report_text_narrow_row(const struct compare_cell *cell, struct report_text_row *r)
{
	const struct paired_cell *s = &cell->stats;
	double pv, qv;
	char lo[28], hi[28];

	snprintf(r->col[RT_METRIC], sizeof r->col[RT_METRIC], "%s", cell->metric);
	report_text_value(cell->metric, s->base_median, 0, r->col[RT_BASE], sizeof r->col[0]);
	report_text_value(cell->metric, s->fix_median, 0, r->col[RT_FIX], sizeof r->col[0]);
	report_text_delta(cell->metric, s->delta_median, 0, r->col[RT_DELTA], sizeof r->col[0]);
	report_text_pct(s->delta_pct, r->col[RT_PCT], sizeof r->col[0]);
	if (s->n == 0 || s->deterministic) {
		report_text_interval(cell, r->col[RT_CI], sizeof r->col[0]);
	} else {
		if (s->base_median != 0) {
			report_text_pct(100 * s->ci.lo / fabs(s->base_median), lo, sizeof lo);
			report_text_pct(100 * s->ci.hi / fabs(s->base_median), hi, sizeof hi);
		} else {
			report_text_delta(cell->metric, s->ci.lo, 0, lo, sizeof lo);
			report_text_delta(cell->metric, s->ci.hi, 0, hi, sizeof hi);
		}
		if (s->ci.level < 0.95)
			snprintf(r->col[RT_CI], sizeof r->col[0], "[%s, %s] %.0f%%", lo, hi,
			         100 * s->ci.level);
		else
			snprintf(r->col[RT_CI], sizeof r->col[0], "[%s, %s]", lo, hi);
	}
	compare_signs_text(cell, r->col[RT_ROUNDS], sizeof r->col[0]);
	compare_cell_pq(cell, &pv, &qv);
	if (isnan(qv))
		snprintf(r->col[RT_Q], sizeof r->col[0], "-");
	else
		snprintf(r->col[RT_Q], sizeof r->col[0], "%.4f", qv);
	snprintf(r->col[RT_VERDICT], sizeof r->col[0], "%s%s", compare_cell_verdict_text(cell),
	         s->bimodal_base || s->bimodal_fix ? " (bimodal)" : "");
}

/*
 * The table that fits REPORT_TEXT_WIDTH: one heading line per probe, its cells indented under
 * it; columns as wide as their widest value; the rounds, then q, then the interval left out
 * when it would not fit otherwise (--wide shows every column, p and MDE too).
 */
static void report_text_narrow(const struct compare *c, struct sbuf *b)
{
	struct report_text_row *rows = xcalloc(c->ncells ? c->ncells : 1, sizeof *rows);
	static const int drop[] = {RT_ROUNDS, RT_Q, RT_CI};
	size_t width[RT_NCOLS], total = 0;
	int shown[RT_NCOLS];
	const char *probe = NULL;

	for (int k = 0; k < RT_NCOLS; k++) {
		width[k] = strlen(report_text_heads[k]);
		shown[k] = 1;
	}
	for (size_t i = 0; i < c->ncells; i++) {
		report_text_narrow_row(&c->cells[i], &rows[i]);
		for (int k = 0; k < RT_NCOLS; k++)
			if (strlen(rows[i].col[k]) > width[k])
				width[k] = strlen(rows[i].col[k]);
	}
	/* The probe headings share the metric column: a probe's name may be the wider. */
	for (size_t i = 0; i < c->nprobes; i++)
		if (strlen(c->probes[i].probe) > width[RT_METRIC] + 2)
			width[RT_METRIC] = strlen(c->probes[i].probe) - 2;
	for (int k = 0; k < RT_NCOLS; k++)
		total += width[k] + 2;
	for (size_t d = 0; d < sizeof drop / sizeof drop[0] && total > REPORT_TEXT_WIDTH; d++) {
		shown[drop[d]] = 0;
		total -= width[drop[d]] + 2;
	}
	for (size_t i = 0; i <= c->ncells; i++) {
		const struct report_text_row *r = i ? &rows[i - 1] : NULL;
		const char *const *col = NULL;
		const char *heads[RT_NCOLS];
		if (!r) {
			for (int k = 0; k < RT_NCOLS; k++)
				heads[k] = report_text_heads[k];
			col = heads;
			sbuf_addf(b, "\n%-*s", (int)width[RT_METRIC] + 2, "probe / metric");
		} else {
			const char *p = c->cells[i - 1].probe;
			if (!probe || strcmp(probe, p) != 0)
				sbuf_addf(b, "%s\n", p);
			probe = p;
			for (int k = 0; k < RT_NCOLS; k++)
				heads[k] = r->col[k];
			col = heads;
			sbuf_addf(b, "  %-*s", (int)width[RT_METRIC], col[RT_METRIC]);
		}
		for (int k = RT_BASE; k < RT_VERDICT; k++)
			if (shown[k])
				sbuf_addf(b, "  %*s", (int)width[k], col[k]);
		sbuf_addf(b, "  %s\n", col[RT_VERDICT]);
	}
	free(rows);
}

static void report_text_wide(const struct compare *c, struct sbuf *b)
{
	sbuf_addf(b, "\n%-24s %-30s %14s %14s %14s %9s %22s %8s %12s %7s %7s  %s\n", "probe",
	          "metric", "BASE", "FIX", "delta", "%", "95% CI of delta", "MDE", "rounds", "p",
	          "q", "verdict");
	for (size_t i = 0; i < c->ncells; i++) {
		const struct compare_cell *cell = &c->cells[i];
		const struct paired_cell *s = &cell->stats;
		char x[48], y[48], dl[48], pct[24], ci[64], mde[24], signs[32], p[16], q[16];
		double pv, qv;
		metrics_format_value(cell->metric, s->base_median, x, sizeof x);
		metrics_format_value(cell->metric, s->fix_median, y, sizeof y);
		report_format_delta(cell->metric, s->delta_median, dl, sizeof dl);
		report_format_pct(s->delta_pct, pct, sizeof pct);
		report_text_interval(cell, ci, sizeof ci);
		report_text_mde(cell, mde, sizeof mde);
		compare_signs_text(cell, signs, sizeof signs);
		compare_cell_pq(cell, &pv, &qv);
		if (isnan(pv))
			snprintf(p, sizeof p, "-");
		else
			snprintf(p, sizeof p, "%.4f", pv);
		if (isnan(qv))
			snprintf(q, sizeof q, "-");
		else
			snprintf(q, sizeof q, "%.4f", qv);
		sbuf_addf(b, "%-24s %-30s %14s %14s %14s %9s %22s %8s %12s %7s %7s  %s%s\n",
		          cell->probe, cell->metric, x, y, dl, pct, ci, mde, signs, p, q,
		          compare_cell_verdict_text(cell),
		          s->bimodal_base || s->bimodal_fix ? " (bimodal)" : "");
	}
}

/*
 * Folds each line longer than `width` at its last space that fits, the rest indented two past
 * the line's own indent; a line without such a space (a long path) stays whole. Into out.
 */
static void report_text_fold(const char *text, size_t width, struct sbuf *out)
{
	while (*text) {
		const char *nl = strchr(text, '\n'), *line = text;
		size_t len = nl ? (size_t)(nl - text) : strlen(text), indent = 0, pad = 0;

		text += len + (nl ? 1 : 0);
		while (indent < len && line[indent] == ' ')
			indent++;
		for (int first = 1; len + pad > width; first = 0) {
			size_t at = 0;
			for (size_t k = first ? indent + 1 : 1; k + pad <= width && k < len; k++)
				if (line[k] == ' ')
					at = k;
			if (at == 0)
				break;
			sbuf_addf(out, "%*s%.*s\n", (int)pad, "", (int)at, line);
			line += at;
			len -= at;
			while (len > 0 && *line == ' ') {
				line++;
				len--;
			}
			pad = indent + 2;
		}
		sbuf_addf(out, "%*s%.*s\n", (int)pad, "", (int)len, line);
	}
}

char *report_text_ab(const struct compare *c, const char *cmd, int wide)
{
	const struct report_data *d = c->data;
	struct strlist lines = {0};
	struct sbuf b;
	char *rounds = compare_rounds_text(c), headline[256], counts[128], *text, *across;

	sbuf_init(&b);
	/* What moved comes first: a trade-off reads at a glance, before any table. */
	if (wide) {
		char *moved = compare_headline_moved(c);
		sbuf_addf(&b, "gcratchet %s: %s\n", cmd, moved);
		free(moved);
	} else {
		compare_headline_lines(c, &lines);
		sbuf_addf(&b, "gcratchet %s: %s\n", cmd, lines.items[0]);
		for (size_t i = 1; i < lines.n; i++)
			sbuf_addf(&b, "  %s\n", lines.items[i]);
	}
	if (d->origin) {
		/* Where two stored results came from, one fact a line. */
		for (const char *p = d->origin; *p;) {
			size_t n = strcspn(p, "\n");
			sbuf_addf(&b, "gcratchet %s: %.*s\n", cmd, (int)n, p);
			p += n + (p[n] == '\n');
		}
	} else
		sbuf_addf(
		    &b,
		    "gcratchet %s: session %lld, size %s, rounds complete %s, seed %lld, host "
		    "%s\n",
		    cmd, (long long)d->session.id, d->session.size, rounds,
		    (long long)d->session.seed, d->session.hostname ? d->session.hostname : "?");
	report_text_builds(c, &b);
	if ((across = compare_across_text(c))) {
		sbuf_addf(&b, "judged %s\n", across);
		free(across);
	}
	report_text_identity(c, &b, wide);
	if (wide)
		report_text_wide(c, &b);
	else
		report_text_narrow(c, &b);
	report_text_where(c, &b, wide);
	sbuf_addf(&b, "\n");
	report_text_warnings(c, &b, "", NULL);
	compare_headline(c, headline, sizeof headline);
	report_text_counts(c, counts, sizeof counts);
	sbuf_addf(&b, "verdict: %s (%s)\n", headline, counts);
	free(rounds);
	strlist_release(&lines);
	if (!wide) {
		struct sbuf folded;
		sbuf_init(&folded);
		report_text_fold(b.data, REPORT_TEXT_WIDTH, &folded);
		sbuf_release(&b);
		b = folded;
	}
	text = escape_text(b.data);
	sbuf_release(&b);
	return text;
}
