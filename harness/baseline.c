#include "baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "census.h"
#include "heapgate.h"
#include "json.h"
#include "metrics.h"
#include "stats.h"

/* ---- Band arithmetic ---------------------------------------------------------------------- */

double baseline_allowance(const struct baseline_rule *r, double base)
{
	double pct = fabs(base) * r->band_pct / 100.0;

	return pct > r->band_abs ? pct : r->band_abs;
}

void baseline_judge(const struct baseline_rule *r, double base, double current,
                    struct baseline_judgement *j)
{
	double bad;

	memset(j, 0, sizeof *j);
	j->delta = current - base;
	if (base != 0)
		j->delta_pct = 100.0 * j->delta / fabs(base);
	else
		j->delta_pct = j->delta == 0 ? 0 : INFINITY;
	j->allowance = baseline_allowance(r, base);
	switch (r->direction) {
	case BASELINE_INCREASE:
		bad = j->delta;
		break;
	case BASELINE_DECREASE:
		bad = -j->delta;
		break;
	default:
		bad = fabs(j->delta);
		break;
	}
	if (j->allowance > 0)
		j->used = bad / j->allowance;
	else
		j->used = bad > 0 ? INFINITY : bad < 0 ? -INFINITY : 0;
	j->went_inert = metrics_is_census(r->metric) && base > 0 && current == 0;

	if (!r->gated)
		j->verdict = BASELINE_INFO;
	else if (j->went_inert || bad > j->allowance)
		j->verdict = BASELINE_REGRESSED;
	else if (r->direction != BASELINE_EITHER && -bad > j->allowance)
		j->verdict = BASELINE_IMPROVED;
	else
		j->verdict = BASELINE_OK;
}

const char *baseline_direction_name(enum baseline_direction d)
{
	return d == BASELINE_INCREASE ? "increase" : d == BASELINE_DECREASE ? "decrease" : "either";
}

const char *baseline_verdict_name(enum baseline_verdict v)
{
	switch (v) {
	case BASELINE_OK:
		return "ok";
	case BASELINE_IMPROVED:
		return "improved";
	case BASELINE_REGRESSED:
		return "REGRESSED";
	case BASELINE_INFO:
		return "info";
	}
	return "?";
}

/* ---- Profile defaults ---------------------------------------------------------------------- */

/* The direction a rule watches: the change away from the metric's better side. */
static enum baseline_direction baseline_direction_of(enum metric_direction better)
{
	switch (better) {
	case METRIC_BETTER_LOWER:
		return BASELINE_INCREASE;
	case METRIC_BETTER_HIGHER:
		return BASELINE_DECREASE;
	case METRIC_BETTER_NEITHER:
		break;
	}
	return BASELINE_EITHER;
}

const char *const *baseline_profiles(void)
{
	return metrics_profiles();
}

const char *baseline_class_name(enum baseline_class c)
{
	switch (c) {
	case BASELINE_CLASS_EXACT:
		return "exact";
	case BASELINE_CLASS_BANDED:
		return "banded";
	case BASELINE_CLASS_QUANTILE:
		return "quantile";
	case BASELINE_CLASS_DIST:
		return "distribution";
	case BASELINE_CLASS_INFO:
		return "info";
	}
	return "?";
}

int baseline_class_parse(const char *name, enum baseline_class *out)
{
	for (int c = BASELINE_CLASS_EXACT; c <= BASELINE_CLASS_INFO; c++)
		if (strcmp(name, baseline_class_name((enum baseline_class)c)) == 0) {
			*out = (enum baseline_class)c;
			return 0;
		}
	return -1;
}

enum baseline_class baseline_class_derive(const struct baseline_rule *r)
{
	if (!r->gated)
		return BASELINE_CLASS_INFO;
	if (r->band_pct == 0 && r->band_abs == 0 && r->band_live_pct == 0)
		return BASELINE_CLASS_EXACT;
	return BASELINE_CLASS_BANDED;
}

/* A page: the granularity of every heap and RSS figure. */
#define BASELINE_PAGE_BYTES    4096.0
/*
 * The RSS floor of a clock-paced build: it collects at other points when the host is busy, and
 * bdwgc-incremental's RssAnon on 04 came out +530 KiB in a 3-run check against a 3-session pin.
 */
#define BASELINE_RSS_PACED_ABS (2048.0 * 1024)

static const char *const baseline_rss_metrics[] = {"rss.peak_bytes", "memory.vm_hwm_bytes",
                                                   "memory.rss_anon_bytes", NULL};

static int baseline_name_in(const char *metric, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (strcmp(metric, names[i]) == 0)
			return 1;
	return 0;
}

static int baseline_metric_is_heap(const char *metric)
{
	return strcmp(metric, "census.heap_committed_peak_bytes") == 0 ||
	       strcmp(metric, "census.heap_used_after_full_bytes") == 0;
}

static int baseline_metric_is_alloc(const char *metric)
{
	return strcmp(metric, "census.alloc_bytes") == 0 ||
	       strcmp(metric, "census.alloc_objects") == 0;
}

/*
 * The rules from facts (docs/baselines.md, "Rules from facts"): what a build says it does
 * changes the class of the figures that fact makes move, never a collector's name. In order;
 * each row applies to the metrics it names when the build has its fact.
 */
enum baseline_fact {
	BASELINE_FACT_INEXACT_RETENTION, /* collects, not precise (or never said): stale words */
	BASELINE_FACT_CLOCK_PACED,       /* collects at points a clock sets */
};

static const struct baseline_fact_rule {
	enum baseline_fact fact;
	const char *what; /* the metrics it applies to (baseline_fact_applies), for a reader */
	enum baseline_class cls; /* BASELINE_CLASS_INFO: recorded, never gated */
	const char *why;
} baseline_fact_rules[] = {
    {BASELINE_FACT_INEXACT_RETENTION, "census.heap_used_after_full_bytes", BASELINE_CLASS_INFO,
     "what its last full collection kept is what it found on the stack: its modes change from "
     "session to session (bdwgc's on 02: 8 KiB in 8 of 15 runs, 8.4 MB in all 3 of the next)"},
    {BASELINE_FACT_INEXACT_RETENTION, "heap, RSS and collection counts", BASELINE_CLASS_DIST,
     "a stale word keeps a dropped chain alive in one run and not the next: a session's runs "
     "are compared with the pinning runs (a rank test), a shift beyond the band decides"},
    {BASELINE_FACT_CLOCK_PACED, "every census counter but alloc_*, and RSS", BASELINE_CLASS_DIST,
     "it collects when a clock says: its counts and what it holds move with the host's speed, "
     "so a session's runs are compared with the pinning runs, not one figure with another"},
};

static int baseline_fact_applies(size_t row, const char *metric)
{
	int census = metrics_is_census(metric),
	    rss = baseline_name_in(metric, baseline_rss_metrics);

	switch (row) {
	case 0:
		return strcmp(metric, "census.heap_used_after_full_bytes") == 0;
	case 1:
		return rss || baseline_metric_is_heap(metric) ||
		       strcmp(metric, "census.minor_collections") == 0 ||
		       strcmp(metric, "census.major_collections") == 0;
	case 2:
		return rss || (census && !baseline_metric_is_alloc(metric));
	}
	return 0;
}

static int baseline_has_fact(const struct caps *caps, enum baseline_fact f)
{
	switch (f) {
	case BASELINE_FACT_INEXACT_RETENTION:
		return !caps_exact_retention(caps);
	case BASELINE_FACT_CLOCK_PACED:
		return caps_clock_paced(caps);
	}
	return 0;
}

size_t baseline_fact_rules_count(void)
{
	return sizeof baseline_fact_rules / sizeof baseline_fact_rules[0];
}

void baseline_fact_rule_text(size_t i, const char **fact, const char **metrics, const char **cls,
                             const char **why)
{
	const struct baseline_fact_rule *r = &baseline_fact_rules[i];

	*fact = r->fact == BASELINE_FACT_CLOCK_PACED ? "clock_paced"
	                                             : "collects, not precise (or unknown)";
	*metrics = r->what;
	*cls = baseline_class_name(r->cls);
	*why = r->why;
}

/*
 * One default rule from the metric table's band for the profile, then the facts: a figure a
 * fact makes move is recorded (info) or compared by its smallest run (quantile: no live floor,
 * since a conservative collector's live set is what it found, not what the probe keeps; at
 * least a page for a heap figure; 2 MiB for the RSS of a clock-paced build). The first row
 * that applies decides.
 */
static void baseline_rule_classify(struct baseline_rule *r, const struct metric_band *band,
                                   const struct caps *caps)
{
	r->gated = band->gated;
	r->band_pct = band->pct;
	r->band_abs = band->abs;
	r->band_live_pct = band->live_pct;
	r->cls = baseline_class_derive(r);
	if (!r->gated)
		return;
	for (size_t i = 0; i < baseline_fact_rules_count(); i++) {
		const struct baseline_fact_rule *f = &baseline_fact_rules[i];
		if (!baseline_has_fact(caps, f->fact) || !baseline_fact_applies(i, r->metric))
			continue;
		if (f->cls == BASELINE_CLASS_INFO) {
			r->gated = 0;
			r->cls = BASELINE_CLASS_INFO;
			return;
		}
		r->cls = f->cls;
		r->band_live_pct = 0;
		/* The band of a distribution cell is the least shift worth reporting. */
		if (r->band_pct < BASELINE_DIST_MIN_PCT)
			r->band_pct = BASELINE_DIST_MIN_PCT;
		if (baseline_metric_is_heap(r->metric) && r->band_abs < BASELINE_PAGE_BYTES)
			r->band_abs = BASELINE_PAGE_BYTES;
		if (caps_clock_paced(caps) && baseline_name_in(r->metric, baseline_rss_metrics) &&
		    r->band_abs < BASELINE_RSS_PACED_ABS)
			r->band_abs = BASELINE_RSS_PACED_ABS;
		return;
	}
}

int baseline_metric_distributional(const char *metric)
{
	return metrics_is_census(metric) || baseline_name_in(metric, baseline_rss_metrics);
}

int baseline_metric_layout_sensitive(const char *metric)
{
	return strcmp(metric, HEAPGATE_METRIC) == 0 ||
	       baseline_name_in(metric, baseline_rss_metrics) ||
	       (metrics_is_census(metric) && !baseline_metric_is_alloc(metric));
}

int baseline_default_rules(const char *profile, const struct caps *caps, const char *const *metrics,
                           size_t n, struct baseline_rule **out, struct err *e)
{
	enum metric_profile p;

	if (metrics_profile_parse(profile, &p) != 0)
		return err_setc(e, ERR_INVALID,
		                "unknown profile \"%s\" (valid: shared_ci, pinned_host)", profile);
	*out = xcalloc(n, sizeof **out);
	for (size_t i = 0; i < n; i++) {
		const struct metric_info *m = metrics_lookup(metrics[i]);
		struct baseline_rule *r = &(*out)[i];
		r->metric = xstrdup(metrics[i]);
		/* A metric the harness cannot produce gets a rule that records and never gates. */
		r->direction = BASELINE_INCREASE;
		r->cls = BASELINE_CLASS_INFO;
		if (!m)
			continue;
		r->direction = baseline_direction_of(m->better);
		baseline_rule_classify(r, &m->band[p], caps);
	}
	return 0;
}

/* ---- Checking ------------------------------------------------------------------------------ */

/*
 * The meters a baseline may name: what `pin` keeps of a session's meters text
 * ("rusage,census,perf:cycles:u,valgrind:valgrind-3.19.0", session.c), the part before ':'.
 */
static const char *const baseline_meter_names[] = {"rusage",   "census",   "perf",
                                                   "valgrind", "cachesim", NULL};

/* ci, default, large, or n=N1,N2 with 0 < N1 < N2: the sizes `measure` stores for a session. */
static int baseline_size_valid(const char *s)
{
	const char *comma = strchr(s, ',');
	char first[24];
	uint64_t n1, n2;

	if (strcmp(s, "ci") == 0 || strcmp(s, "default") == 0 || strcmp(s, "large") == 0)
		return 1;
	if (strncmp(s, "n=", 2) != 0 || !comma || (size_t)(comma - s - 2) >= sizeof first)
		return 0;
	memcpy(first, s + 2, (size_t)(comma - s - 2));
	first[comma - s - 2] = '\0';
	return parse_u64(first, &n1) == 0 && parse_u64(comma + 1, &n2) == 0 && n1 > 0 && n2 > n1;
}

static int baseline_check_rule(const struct baseline_rule *r, const char *where, struct err *e)
{
	if (r->gated != 0 && r->gated != 1)
		return err_setc(e, ERR_INVALID, "%s.gated: must be true or false", where);
	if (r->direction != BASELINE_INCREASE && r->direction != BASELINE_DECREASE &&
	    r->direction != BASELINE_EITHER)
		return err_setc(e, ERR_INVALID,
		                "%s.direction: must be \"increase\", \"decrease\" or \"either\"",
		                where);
	if (!(isfinite(r->band_pct) && r->band_pct >= 0))
		return err_setc(e, ERR_INVALID, "%s.band_pct: must be >= 0", where);
	if (!(isfinite(r->band_abs) && r->band_abs >= 0))
		return err_setc(e, ERR_INVALID, "%s.band_abs: must be >= 0", where);
	if (!(isfinite(r->band_live_pct) && r->band_live_pct >= 0))
		return err_setc(e, ERR_INVALID, "%s.band_live_pct: must be >= 0", where);
	if (r->cls < BASELINE_CLASS_EXACT || r->cls > BASELINE_CLASS_INFO)
		return err_setc(e, ERR_INVALID,
		                "%s.class: must be \"exact\", \"banded\", \"quantile\", "
		                "\"distribution\" or \"info\"",
		                where);
	if ((r->cls == BASELINE_CLASS_INFO) != !r->gated)
		return err_setc(
		    e, ERR_INVALID,
		    "%s.class: \"%s\" with gated %s: info is exactly the class of a rule "
		    "that is not gated",
		    where, baseline_class_name(r->cls), r->gated ? "true" : "false");
	if (r->cls == BASELINE_CLASS_EXACT &&
	    (r->band_pct != 0 || r->band_abs != 0 || r->band_live_pct != 0))
		return err_setc(e, ERR_INVALID,
		                "%s.class: \"exact\" needs a band of 0 (band_pct, band_abs and "
		                "band_live_pct): say \"banded\" for a figure that may move",
		                where);
	return 0;
}

/* 1 when cells[0..n) already holds the cell (probe, metric); its index in *at. */
static int baseline_cell_seen(const struct baseline_cell *cells, size_t n, const char *probe,
                              const char *metric, size_t *at)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(cells[i].probe, probe) == 0 && strcmp(cells[i].metric, metric) == 0) {
			*at = i;
			return 1;
		}
	return 0;
}

static int baseline_check_head(const struct baseline *b, struct err *e)
{
	const struct {
		const char *value, *path;
	} strings[] = {
	    {b->profile, "profile"},
	    {b->collector, "collector.name"},
	    {b->collector_version, "collector.version"},
	    {b->git_commit, "collector.git_commit"},
	    {b->host_fingerprint, "host.fingerprint"},
	    {b->hostname, "host.hostname"},
	    {b->pinned_at, "pinned_at"},
	    {b->size, "size"},
	};

	for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
		if (!strings[i].value)
			return err_setc(e, ERR_INVALID, "%s: is missing (a string)",
			                strings[i].path);
	if (!b->profile[0] || !b->collector[0])
		return err_setc(e, ERR_INVALID, "%s: must not be empty",
		                b->profile[0] ? "collector.name" : "profile");
	if (b->toolchain.known) {
		const struct toolchain *t = &b->toolchain;
		if (!t->compiler || !t->compiler[0] || !t->version || !t->version[0] || !t->flags ||
		    !t->flags[0] || (t->valgrind && !t->valgrind[0]))
			return err_setc(
			    e, ERR_INVALID,
			    "toolchain: needs a compiler, version and flags, not empty, "
			    "and valgrind a version or null");
	}
	if (!baseline_size_valid(b->size))
		return err_setc(
		    e, ERR_INVALID,
		    "size: must be ci, default, large or n=N1,N2 with 0 < N1 < N2 (what "
		    "measure --two-n stores), not \"%s\"",
		    b->size);
	if (b->session < 1 || b->session > JSON_INT_MAX)
		return err_setc(e, ERR_INVALID,
		                "session: must be an integer from 1 to 2^53-1, got %lld",
		                (long long)b->session);
	if (b->repeats < 1 || b->repeats > JSON_INT_MAX)
		return err_setc(e, ERR_INVALID,
		                "repeats: must be an integer from 1 to 2^53-1, got %lld",
		                (long long)b->repeats);
	if (!(isfinite(b->sensitivity_pct) && b->sensitivity_pct >= 0 &&
	      b->sensitivity_pct <= 1000))
		return err_setc(e, ERR_INVALID,
		                "sensitivity_pct: must be a change in percent above 0 and at most "
		                "1000, got %g",
		                b->sensitivity_pct);
	for (size_t i = 0; i < b->meters.n; i++) {
		const char *m = b->meters.items[i];
		size_t k = 0;
		while (baseline_meter_names[k] && strcmp(baseline_meter_names[k], m) != 0)
			k++;
		if (!baseline_meter_names[k])
			return err_setc(e, ERR_INVALID,
			                "meters[%zu]: unknown meter \"%s\" (known: rusage, census, "
			                "perf, valgrind, cachesim)",
			                i, m);
		for (size_t j = 0; j < i; j++)
			if (strcmp(b->meters.items[j], m) == 0)
				return err_setc(e, ERR_INVALID,
				                "meters[%zu]: \"%s\" is listed twice", i, m);
	}
	return 0;
}

static int baseline_double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void baseline_runs_sort(double *v, size_t n)
{
	qsort(v, n, sizeof *v, baseline_double_cmp);
}

void baseline_cell_set_runs(struct baseline_cell *c, const double *v, size_t n)
{
	free(c->runs);
	c->runs = NULL;
	c->nruns = n;
	if (!n)
		return;
	c->runs = xcalloc(n, sizeof *c->runs);
	memcpy(c->runs, v, n * sizeof *v);
	baseline_runs_sort(c->runs, n);
}

/* A cell's "runs" are the runs its figures summarise: n of them, from min to max, their median. */
static int baseline_check_runs(const struct baseline_cell *x, const char *where, struct err *e)
{
	double med;

	for (size_t k = 0; k < x->nruns; k++)
		if (!isfinite(x->runs[k]) || (k && x->runs[k] < x->runs[k - 1]))
			return err_setc(e, ERR_INVALID, "%s.runs: must be finite and ascending",
			                where);
	med = stats_median(x->runs, x->nruns);
	if ((int64_t)x->nruns != x->n || x->runs[0] != x->min || x->runs[x->nruns - 1] != x->max ||
	    fabs(med - x->median) > 1e-9 * (fabs(med) + 1))
		return err_setc(e, ERR_INVALID,
		                "%s.runs: %zu runs from %.17g to %.17g with median %.17g do not "
		                "match the cell's n %lld, min, max and median",
		                where, x->nruns, x->runs[0], x->runs[x->nruns - 1], med,
		                (long long)x->n);
	return 0;
}

static int baseline_check_tables(const struct baseline *b, struct err *e)
{
	char where[320], hint[128];
	size_t at;

	for (size_t i = 0; i < b->nrules; i++) {
		const struct baseline_rule *r = &b->rules[i];
		if (!r->metric)
			return err_setc(e, ERR_INVALID, "rules: entry %zu has no metric", i);
		json_path_key(where, sizeof where, "rules", r->metric);
		if (!metrics_is_known(r->metric))
			return err_setc(e, ERR_INVALID, "%s: unknown metric (%s)", where,
			                metrics_hint(r->metric, hint, sizeof hint));
		for (size_t j = 0; j < i; j++)
			if (strcmp(b->rules[j].metric, r->metric) == 0)
				return err_setc(e, ERR_INVALID, "%s: a second rule for the metric",
				                where);
		if (baseline_check_rule(r, where, e) != 0)
			return -1;
	}
	for (size_t i = 0; i < b->nprobes; i++) {
		const struct baseline_probe *p = &b->probes[i];
		if (!p->name || !p->name[0])
			return err_setc(e, ERR_INVALID, "probes: entry %zu has no name", i);
		json_path_key(where, sizeof where, "probes", p->name);
		if (!p->checksum || !census_checksum_valid(p->checksum))
			return err_setc(
			    e, ERR_INVALID,
			    "%s.checksum: must be \"0x\" and 16 lowercase hex digits, not "
			    "\"%s\"",
			    where, p->checksum ? p->checksum : "(none)");
		for (size_t j = 0; j < i; j++)
			if (strcmp(b->probes[j].name, p->name) == 0)
				return err_setc(e, ERR_INVALID, "%s: a second entry for the probe",
				                where);
	}
	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *x = &b->cells[i];
		json_path_index(where, sizeof where, "cells", i);
		if (!x->probe || !x->metric)
			return err_setc(e, ERR_INVALID, "%s: needs a probe and a metric", where);
		if (x->n < 1 || x->n > JSON_INT_MAX)
			return err_setc(e, ERR_INVALID,
			                "%s.n: must be an integer from 1 to 2^53-1, got %lld",
			                where, (long long)x->n);
		if (!(isfinite(x->min) && isfinite(x->median) && isfinite(x->max) &&
		      x->min <= x->median && x->median <= x->max))
			return err_setc(e, ERR_INVALID,
			                "%s: needs min <= median <= max, all finite", where);
		if (x->sessions < 0 || x->sessions > x->n)
			return err_setc(e, ERR_INVALID,
			                "%s.sessions: must be from 1 to n (%lld), the runs it "
			                "counts come from that many sessions",
			                where, (long long)x->n);
		if (x->has_min_spread && !(isfinite(x->min_spread) && x->min_spread >= 0 &&
		                           x->min_spread <= x->max - x->min))
			return err_setc(e, ERR_INVALID,
			                "%s.min_spread: must be from 0 to max - min", where);
		if (!baseline_rule_for(b, x->metric))
			return err_setc(e, ERR_INVALID,
			                "%s: metric \"%s\" has no entry in \"rules\"", where,
			                x->metric);
		if (!baseline_probe_checksum(b, x->probe))
			return err_setc(e, ERR_INVALID,
			                "%s: probe \"%s\" has no entry in \"probes\"", where,
			                x->probe);
		if (baseline_cell_seen(b->cells, i, x->probe, x->metric, &at))
			return err_setc(e, ERR_INVALID,
			                "%s: pins %s %s again (first in cells[%zu])", where,
			                x->probe, x->metric, at);
		if (x->nruns && baseline_check_runs(x, where, e) != 0)
			return -1;
	}
	for (size_t i = 0; i < b->noverrides; i++) {
		const struct baseline_override *x = &b->overrides[i];
		json_path_index(where, sizeof where, "overrides", i);
		if (!x->probe || !x->metric)
			return err_setc(e, ERR_INVALID, "%s: needs a probe and a metric", where);
		if (!baseline_cell_find(b, x->probe, x->metric))
			return err_setc(e, ERR_INVALID,
			                "%s: overrides a cell that is not pinned in \"cells\"",
			                where);
		for (size_t j = 0; j < i; j++)
			if (strcmp(b->overrides[j].probe, x->probe) == 0 &&
			    strcmp(b->overrides[j].metric, x->metric) == 0)
				return err_setc(
				    e, ERR_INVALID,
				    "%s: overrides %s %s again (first in overrides[%zu])", where,
				    x->probe, x->metric, j);
		if (baseline_check_rule(&x->rule, where, e) != 0)
			return -1;
		if (!x->rationale || !x->rationale[0])
			return err_setc(e, ERR_INVALID,
			                "%s.rationale: must say why the cell has its own band",
			                where);
		if (x->evidence_runs < 2 || x->evidence_runs > JSON_INT_MAX ||
		    !(isfinite(x->evidence_spread_pct) && x->evidence_spread_pct >= 0))
			return err_setc(
			    e, ERR_INVALID,
			    "%s.evidence: needs runs >= 2 (a spread needs two runs) and "
			    "spread_pct >= 0",
			    where);
	}
	for (size_t i = 0; i < b->nledger; i++) {
		const struct baseline_ledger_entry *x = &b->ledger[i];
		json_path_index(where, sizeof where, "ledger", i);
		if (!x->probe || !x->metric)
			return err_setc(e, ERR_INVALID, "%s: needs a probe and a metric", where);
		if (!baseline_cell_find(b, x->probe, x->metric))
			return err_setc(e, ERR_INVALID,
			                "%s: %s %s is not a cell pinned in \"cells\"", where,
			                x->probe, x->metric);
		if (!isfinite(x->old_value) || !isfinite(x->new_value))
			return err_setc(e, ERR_INVALID, "%s: old and new must be numbers", where);
		if (!x->reason || !x->reason[0])
			return err_setc(e, ERR_INVALID, "%s.reason: must not be empty", where);
		if (!x->date || !x->date[0] || !x->who || !x->who[0])
			return err_setc(e, ERR_INVALID, "%s: needs a date and who accepted it",
			                where);
	}
	if (b->vary_env.nsessions) {
		const struct baseline_vary_env *v = &b->vary_env;
		int has_own = 0;
		if (v->nsessions < 2 || v->pad_step_bytes < 0 || v->pad_step_bytes > JSON_INT_MAX)
			return err_setc(
			    e, ERR_INVALID,
			    "vary_env: needs at least 2 sessions and pad_step_bytes >= 0");
		for (size_t i = 0; i < v->nsessions; i++) {
			if (v->sessions[i] < 1 || v->sessions[i] > JSON_INT_MAX)
				return err_setc(e, ERR_INVALID,
				                "vary_env.sessions[%zu]: must be a session id >= 1",
				                i);
			for (size_t j = 0; j < i; j++)
				if (v->sessions[j] == v->sessions[i])
					return err_setc(
					    e, ERR_INVALID,
					    "vary_env.sessions[%zu]: session %lld again", i,
					    (long long)v->sessions[i]);
			has_own |= v->sessions[i] == b->session;
		}
		if (!has_own)
			return err_setc(
			    e, ERR_INVALID,
			    "vary_env.sessions: must include the baseline's session %lld",
			    (long long)b->session);
	}
	/* After the overrides: which rule judges a cell decides whether it needs its runs. */
	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *x = &b->cells[i];
		const struct baseline_rule *r = baseline_rule_for_cell(b, x->probe, x->metric);
		json_path_index(where, sizeof where, "cells", i);
		if (r->cls == BASELINE_CLASS_DIST && x->nruns == 0)
			return err_setc(
			    e, ERR_INVALID,
			    "%s (%s %s): class distribution, but it keeps no \"runs\": a "
			    "distribution cell is judged against its pinning runs (pin it "
			    "again)",
			    where, x->probe, x->metric);
	}
	if (b->noise.reason && (!b->noise.reason[0] || !b->noise.date || !b->noise.date[0] ||
	                        !b->noise.who || !b->noise.who[0]))
		return err_setc(e, ERR_INVALID,
		                "noise_accepted: needs a reason, a date and who accepted it");
	for (size_t i = 0; i < b->nfunctions; i++) {
		const struct baseline_functions *f = &b->functions[i];
		char msg[ERR_MSG_MAX];
		json_path_key(where, sizeof where, "functions", f->probe ? f->probe : "");
		if (!f->probe || !baseline_probe_checksum(b, f->probe))
			return err_setc(e, ERR_INVALID, "%s: not a probe of \"probes\"", where);
		for (size_t j = 0; j < i; j++)
			if (strcmp(b->functions[j].probe, f->probe) == 0)
				return err_setc(e, ERR_INVALID, "%s: the probe's functions twice",
				                where);
		if (f->prof.n > BASELINE_FUNCTIONS_TOP)
			return err_setc(e, ERR_INVALID,
			                "%s.top: %zu functions, at most %d are kept", where,
			                f->prof.n, BASELINE_FUNCTIONS_TOP);
		if (fnprof_check(&f->prof, e) != 0) {
			snprintf(msg, sizeof msg, "%s", e->msg);
			return err_setc(e, ERR_INVALID, "%s: %s", where, msg);
		}
	}
	return 0;
}

int baseline_check(const struct baseline *b, struct err *e)
{
	if (baseline_check_head(b, e) != 0 || baseline_check_tables(b, e) != 0)
		return -1;
	return 0;
}

/* ---- Parsing ------------------------------------------------------------------------------- */

/*
 * The parser reads shapes and types; what the values must satisfy is baseline_check's, run on
 * the result, so a file and a struct made in memory meet the same invariants.
 */
struct baseline_ctx {
	const char *path;
	struct err *e;
};

static int baseline_bad(struct baseline_ctx *c, const char *jpath, const char *expected)
{
	return err_setc(c->e, ERR_INVALID, "%s: %s: %s", c->path, jpath, expected);
}

/*
 * Every key of object `obj` (at JSON path `jpath`, "" for the top) is one of `keys`: a key this
 * harness does not read would be a setting that silently does nothing (".strict",
 * ".rules[...].band_pct_max"), so it is refused, naming it.
 */
static int baseline_only_keys(struct baseline_ctx *c, const cJSON *obj, const char *jpath,
                              const char *const *keys)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, obj)
	{
		size_t i = 0;
		char where[320];
		while (keys[i] && strcmp(keys[i], k->string) != 0)
			i++;
		if (keys[i])
			continue;
		json_path_key(where, sizeof where, jpath, k->string);
		return baseline_bad(c, where,
		                    "unknown key (a baseline has only the keys docs/baselines.md "
		                    "lists: a misspelt setting would do nothing)");
	}
	return 0;
}

/*
 * A knob object {"GCR_NURSERY_KB": "2048"} at `jpath` into NAME=VALUE strings, in the file's
 * order (a name is a JSON key: once). Names are [A-Z][A-Z0-9_]*, values strings.
 */
static int baseline_parse_knobs(struct baseline_ctx *c, const cJSON *o, const char *jpath,
                                struct strlist *out)
{
	const cJSON *k;

	if (!cJSON_IsObject(o))
		return baseline_bad(c, jpath, "must be an object of knob name -> value (strings)");
	cJSON_ArrayForEach(k, o)
	{
		char where[320], *kv;
		size_t len = strlen(k->string);
		json_path_key(where, sizeof where, jpath, k->string);
		if (len == 0 || k->string[0] < 'A' || k->string[0] > 'Z' ||
		    strspn(k->string, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != len)
			return baseline_bad(c, where, "a knob name must match [A-Z][A-Z0-9_]*");
		if (!cJSON_IsString(k))
			return baseline_bad(c, where, "must be the knob's value, a string");
		kv = xasprintf("%s=%s", k->string, k->valuestring);
		strlist_push(out, kv);
		free(kv);
	}
	return 0;
}

static const cJSON *baseline_member(const cJSON *obj, const char *key, const char *parent,
                                    char *where, size_t size)
{
	json_path_key(where, size, parent, key);
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static int baseline_get_string(struct baseline_ctx *c, const cJSON *obj, const char *key,
                               const char *jpath, char **out)
{
	char where[320];
	const cJSON *v = baseline_member(obj, key, jpath, where, sizeof where);
	const char *s;

	if (json_string(v, c->path, where, &s, c->e) != 0)
		return -1;
	*out = xstrdup(s);
	return 0;
}

static int baseline_get_number(struct baseline_ctx *c, const cJSON *obj, const char *key,
                               const char *jpath, double *out)
{
	char where[320];
	const cJSON *v = baseline_member(obj, key, jpath, where, sizeof where);

	return json_number(v, c->path, where, out, c->e);
}

/* An integer of at least min: range-checked before it is converted (json_int). */
static int baseline_get_int(struct baseline_ctx *c, const cJSON *obj, const char *key,
                            const char *jpath, int64_t min, int64_t *out)
{
	char where[320];
	const cJSON *v = baseline_member(obj, key, jpath, where, sizeof where);

	return json_int(v, min, JSON_INT_MAX, c->path, where, out, c->e);
}

/*
 * A distribution cell's "runs": a non-empty array of finite numbers, kept ascending (a file
 * written by hand in another order means the same runs).
 */
static int baseline_parse_runs(struct baseline_ctx *c, const cJSON *arr, const char *jpath,
                               struct baseline_cell *x)
{
	char where[320];
	const cJSON *v;
	size_t k = 0;

	json_path_key(where, sizeof where, jpath, "runs");
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
		return baseline_bad(c, where, "must be a non-empty array of numbers");
	x->nruns = (size_t)cJSON_GetArraySize(arr);
	x->runs = xcalloc(x->nruns, sizeof *x->runs);
	cJSON_ArrayForEach(v, arr)
	{
		char at[340];
		json_path_index(at, sizeof at, where, k);
		if (json_number(v, c->path, at, &x->runs[k++], c->e) != 0)
			return -1;
	}
	baseline_runs_sort(x->runs, x->nruns);
	return 0;
}

static int baseline_get_direction(struct baseline_ctx *c, const cJSON *v, const char *jpath,
                                  enum baseline_direction *d)
{
	char where[320];
	const char *s;

	json_path_key(where, sizeof where, jpath, "direction");
	if (json_string(v, c->path, where, &s, c->e) != 0)
		return -1;
	if (strcmp(s, "increase") == 0)
		*d = BASELINE_INCREASE;
	else if (strcmp(s, "decrease") == 0)
		*d = BASELINE_DECREASE;
	else if (strcmp(s, "either") == 0)
		*d = BASELINE_EITHER;
	else
		return baseline_bad(c, where, "must be \"increase\", \"decrease\" or \"either\"");
	return 0;
}

static int baseline_get_bool(struct baseline_ctx *c, const cJSON *v, const char *jpath,
                             const char *key, int *out)
{
	char where[320];

	json_path_key(where, sizeof where, jpath, key);
	return json_bool(v, c->path, where, out, c->e);
}

/*
 * The optional "class" and "band_live_pct" of a rule or an override, read after its other
 * fields. A rule without a class (pinned before classes) gets the one its fields imply; an
 * override without one keeps its metric rule's quantile class, else the implied one.
 */
static int baseline_get_class(struct baseline_ctx *c, const cJSON *obj, const char *jpath,
                              const struct baseline_rule *base, struct baseline_rule *r)
{
	const cJSON *v;
	char where[320];
	const char *name;

	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "band_live_pct")) &&
	    baseline_get_number(c, obj, "band_live_pct", jpath, &r->band_live_pct) != 0)
		return -1;
	v = cJSON_GetObjectItemCaseSensitive(obj, "class");
	if (!v) {
		r->cls = base && r->gated &&
		                 (base->cls == BASELINE_CLASS_QUANTILE ||
		                  base->cls == BASELINE_CLASS_DIST)
		             ? base->cls
		             : baseline_class_derive(r);
		return 0;
	}
	json_path_key(where, sizeof where, jpath, "class");
	if (json_string(v, c->path, where, &name, c->e) != 0)
		return -1;
	if (baseline_class_parse(name, &r->cls) != 0)
		return baseline_bad(c, where,
		                    "must be \"exact\", \"banded\", \"quantile\", "
		                    "\"distribution\" or \"info\"");
	return 0;
}

static int baseline_parse_rules(struct baseline_ctx *c, const cJSON *rules, struct baseline *b)
{
	const cJSON *r;
	size_t i = 0;

	if (!cJSON_IsObject(rules))
		return baseline_bad(c, "rules", "must be an object of metric -> rule");
	b->nrules = (size_t)cJSON_GetArraySize(rules);
	b->rules = xcalloc(b->nrules, sizeof *b->rules);
	cJSON_ArrayForEach(r, rules)
	{
		struct baseline_rule *rule = &b->rules[i++];
		char jpath[320];

		static const char *const keys[] = {
		    "gated", "direction", "band_pct", "band_abs", "band_live_pct", "class", NULL};
		json_path_key(jpath, sizeof jpath, "rules", r->string);
		rule->metric = xstrdup(r->string);
		if (!cJSON_IsObject(r))
			return baseline_bad(c, jpath, "must be an object");
		if (baseline_only_keys(c, r, jpath, keys) != 0)
			return -1;
		if (baseline_get_bool(c, cJSON_GetObjectItemCaseSensitive(r, "gated"), jpath,
		                      "gated", &rule->gated) != 0 ||
		    baseline_get_direction(c, cJSON_GetObjectItemCaseSensitive(r, "direction"),
		                           jpath, &rule->direction) != 0 ||
		    baseline_get_number(c, r, "band_pct", jpath, &rule->band_pct) != 0 ||
		    baseline_get_number(c, r, "band_abs", jpath, &rule->band_abs) != 0 ||
		    baseline_get_class(c, r, jpath, NULL, rule) != 0)
			return -1;
	}
	return 0;
}

static int baseline_parse_probes(struct baseline_ctx *c, const cJSON *probes, struct baseline *b)
{
	const cJSON *p;
	size_t i = 0;

	if (!cJSON_IsObject(probes))
		return baseline_bad(c, "probes",
		                    "must be an object of probe -> {\"checksum\": ...}");
	b->nprobes = (size_t)cJSON_GetArraySize(probes);
	b->probes = xcalloc(b->nprobes, sizeof *b->probes);
	cJSON_ArrayForEach(p, probes)
	{
		char jpath[320];

		static const char *const keys[] = {"checksum", "knobs", NULL};
		const cJSON *knobs;
		json_path_key(jpath, sizeof jpath, "probes", p->string);
		b->probes[i].name = xstrdup(p->string);
		if (!cJSON_IsObject(p))
			return baseline_bad(c, jpath, "must be an object {\"checksum\": ...}");
		if (baseline_only_keys(c, p, jpath, keys) != 0 ||
		    baseline_get_string(c, p, "checksum", jpath, &b->probes[i].checksum) != 0)
			return -1;
		if ((knobs = cJSON_GetObjectItemCaseSensitive(p, "knobs"))) {
			char where[320];
			json_path_key(where, sizeof where, jpath, "knobs");
			if (baseline_parse_knobs(c, knobs, where, &b->probes[i].knobs) != 0)
				return -1;
		}
		i++;
	}
	return 0;
}

static int baseline_parse_cells(struct baseline_ctx *c, const cJSON *cells, struct baseline *b)
{
	const cJSON *cell;
	size_t i = 0;

	if (!cJSON_IsArray(cells))
		return baseline_bad(c, "cells", "must be an array");
	b->ncells = (size_t)cJSON_GetArraySize(cells);
	b->cells = xcalloc(b->ncells, sizeof *b->cells);
	cJSON_ArrayForEach(cell, cells)
	{
		struct baseline_cell *x = &b->cells[i];
		char jpath[64];

		static const char *const keys[] = {"probe",    "metric", "median", "min",
		                                   "max",      "n",      "runs",   "min_spread",
		                                   "sessions", NULL};
		json_path_index(jpath, sizeof jpath, "cells", i++);
		if (!cJSON_IsObject(cell))
			return baseline_bad(c, jpath, "must be an object");
		if (baseline_only_keys(c, cell, jpath, keys) != 0)
			return -1;
		if (baseline_get_string(c, cell, "probe", jpath, &x->probe) != 0 ||
		    baseline_get_string(c, cell, "metric", jpath, &x->metric) != 0 ||
		    baseline_get_number(c, cell, "median", jpath, &x->median) != 0 ||
		    baseline_get_number(c, cell, "min", jpath, &x->min) != 0 ||
		    baseline_get_number(c, cell, "max", jpath, &x->max) != 0 ||
		    baseline_get_int(c, cell, "n", jpath, 1, &x->n) != 0)
			return -1;
		if (cJSON_GetObjectItemCaseSensitive(cell, "sessions") &&
		    baseline_get_int(c, cell, "sessions", jpath, 1, &x->sessions) != 0)
			return -1;
		if (cJSON_GetObjectItemCaseSensitive(cell, "min_spread")) {
			if (baseline_get_number(c, cell, "min_spread", jpath, &x->min_spread) != 0)
				return -1;
			x->has_min_spread = 1;
		}
		if (cJSON_GetObjectItemCaseSensitive(cell, "runs") &&
		    baseline_parse_runs(c, cJSON_GetObjectItemCaseSensitive(cell, "runs"), jpath,
		                        x) != 0)
			return -1;
	}
	return 0;
}

static int baseline_parse_overrides(struct baseline_ctx *c, const cJSON *arr, struct baseline *b)
{
	const cJSON *o;
	size_t i = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return baseline_bad(c, "overrides", "must be an array");
	b->noverrides = (size_t)cJSON_GetArraySize(arr);
	b->overrides = xcalloc(b->noverrides, sizeof *b->overrides);
	cJSON_ArrayForEach(o, arr)
	{
		struct baseline_override *x = &b->overrides[i];
		const struct baseline_rule *base;
		const cJSON *ev, *v;
		char jpath[64], where[96];

		static const char *const keys[] = {
		    "probe",         "metric", "gated",     "direction", "band_pct",
		    "band_abs",      "class",  "rationale", "evidence",  "widened_for_noise",
		    "band_live_pct", NULL};
		static const char *const ev_keys[] = {"runs", "spread_pct", NULL};
		json_path_index(jpath, sizeof jpath, "overrides", i++);
		if (!cJSON_IsObject(o))
			return baseline_bad(c, jpath, "must be an object");
		if (baseline_only_keys(c, o, jpath, keys) != 0)
			return -1;
		if (baseline_get_string(c, o, "probe", jpath, &x->probe) != 0 ||
		    baseline_get_string(c, o, "metric", jpath, &x->metric) != 0)
			return -1;
		/* gated and direction default to the metric's rule; baseline_check wants one. */
		base = baseline_rule_for(b, x->metric);
		if (base)
			x->rule = *base;
		x->rule.metric = x->metric;
		if (baseline_get_number(c, o, "band_pct", jpath, &x->rule.band_pct) != 0 ||
		    baseline_get_number(c, o, "band_abs", jpath, &x->rule.band_abs) != 0)
			return -1;
		if ((v = cJSON_GetObjectItemCaseSensitive(o, "gated")) &&
		    baseline_get_bool(c, v, jpath, "gated", &x->rule.gated) != 0)
			return -1;
		if ((v = cJSON_GetObjectItemCaseSensitive(o, "direction")) &&
		    baseline_get_direction(c, v, jpath, &x->rule.direction) != 0)
			return -1;
		if ((v = cJSON_GetObjectItemCaseSensitive(o, "widened_for_noise")) &&
		    baseline_get_bool(c, v, jpath, "widened_for_noise", &x->widened_for_noise) != 0)
			return -1;
		if (baseline_get_class(c, o, jpath, base, &x->rule) != 0 ||
		    baseline_get_string(c, o, "rationale", jpath, &x->rationale) != 0)
			return -1;
		ev = cJSON_GetObjectItemCaseSensitive(o, "evidence");
		json_path_key(where, sizeof where, jpath, "evidence");
		if (!cJSON_IsObject(ev))
			return baseline_bad(
			    c, where,
			    "is missing: an override needs the runs and observed spread that "
			    "justify it, {\"runs\": N, \"spread_pct\": X}");
		if (baseline_only_keys(c, ev, where, ev_keys) != 0 ||
		    baseline_get_int(c, ev, "runs", where, 2, &x->evidence_runs) != 0 ||
		    baseline_get_number(c, ev, "spread_pct", where, &x->evidence_spread_pct) != 0)
			return -1;
	}
	return 0;
}

static int baseline_parse_ledger(struct baseline_ctx *c, const cJSON *arr, struct baseline *b)
{
	const cJSON *o;
	size_t i = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return baseline_bad(c, "ledger", "must be an array");
	b->nledger = (size_t)cJSON_GetArraySize(arr);
	b->ledger = xcalloc(b->nledger, sizeof *b->ledger);
	cJSON_ArrayForEach(o, arr)
	{
		struct baseline_ledger_entry *x = &b->ledger[i];
		char jpath[64];

		static const char *const keys[] = {"probe", "metric", "old", "new", "reason",
		                                   "ref",   "date",   "who", NULL};
		json_path_index(jpath, sizeof jpath, "ledger", i++);
		if (!cJSON_IsObject(o))
			return baseline_bad(c, jpath, "must be an object");
		if (baseline_only_keys(c, o, jpath, keys) != 0)
			return -1;
		if (baseline_get_string(c, o, "probe", jpath, &x->probe) != 0 ||
		    baseline_get_string(c, o, "metric", jpath, &x->metric) != 0 ||
		    baseline_get_number(c, o, "old", jpath, &x->old_value) != 0 ||
		    baseline_get_number(c, o, "new", jpath, &x->new_value) != 0 ||
		    baseline_get_string(c, o, "reason", jpath, &x->reason) != 0 ||
		    baseline_get_string(c, o, "date", jpath, &x->date) != 0 ||
		    baseline_get_string(c, o, "who", jpath, &x->who) != 0)
			return -1;
		if (cJSON_GetObjectItemCaseSensitive(o, "ref") &&
		    baseline_get_string(c, o, "ref", jpath, &x->ref) != 0)
			return -1;
	}
	return 0;
}

static int baseline_parse_noise(struct baseline_ctx *c, const cJSON *o, struct baseline *b)
{
	if (!o)
		return 0;
	static const char *const keys[] = {"reason", "date", "who", NULL};

	if (!cJSON_IsObject(o))
		return baseline_bad(c, "noise_accepted", "must be an object {reason, date, who}");
	if (baseline_only_keys(c, o, "noise_accepted", keys) != 0)
		return -1;
	if (baseline_get_string(c, o, "reason", "noise_accepted", &b->noise.reason) != 0 ||
	    baseline_get_string(c, o, "date", "noise_accepted", &b->noise.date) != 0 ||
	    baseline_get_string(c, o, "who", "noise_accepted", &b->noise.who) != 0)
		return -1;
	return 0;
}

static int baseline_parse_meters(struct baseline_ctx *c, const cJSON *v, struct baseline *b)
{
	const cJSON *m;
	size_t i = 0;

	if (!cJSON_IsArray(v))
		return baseline_bad(c, "meters", "must be an array of meter names");
	cJSON_ArrayForEach(m, v)
	{
		char where[32];
		const char *s;
		json_path_index(where, sizeof where, "meters", i++);
		if (json_string(m, c->path, where, &s, c->e) != 0)
			return -1;
		strlist_push(&b->meters, s);
	}
	return 0;
}

static int baseline_parse_vary_env(struct baseline_ctx *c, const cJSON *o, struct baseline *b)
{
	const cJSON *arr, *v;
	char where[64];
	size_t i = 0;

	if (!o)
		return 0;
	static const char *const keys[] = {"sessions", "pad_step_bytes", NULL};

	if (!cJSON_IsObject(o))
		return baseline_bad(c, "vary_env", "must be an object {sessions, pad_step_bytes}");
	if (baseline_only_keys(c, o, "vary_env", keys) != 0)
		return -1;
	arr = cJSON_GetObjectItemCaseSensitive(o, "sessions");
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 2)
		return baseline_bad(c, "vary_env.sessions", "must be an array of 2 or more ids");
	b->vary_env.nsessions = (size_t)cJSON_GetArraySize(arr);
	b->vary_env.sessions = xcalloc(b->vary_env.nsessions, sizeof *b->vary_env.sessions);
	cJSON_ArrayForEach(v, arr)
	{
		json_path_index(where, sizeof where, "vary_env.sessions", i);
		if (json_int(v, 1, JSON_INT_MAX, c->path, where, &b->vary_env.sessions[i++],
		             c->e) != 0)
			return -1;
	}
	return baseline_get_int(c, o, "pad_step_bytes", "vary_env", 0, &b->vary_env.pad_step_bytes);
}

/*
 * "functions": {PROBE: {"ir": N, "top": [{"name": S, "file": S or null, "ir": N}, ...]}}: the
 * shapes and types here, the values (order, sums, probes) in baseline_check.
 */
static int baseline_parse_functions(struct baseline_ctx *c, const cJSON *o, struct baseline *b)
{
	static const char *const keys[] = {"ir", "top", NULL};
	static const char *const fkeys[] = {"name", "file", "ir", NULL};
	const cJSON *p;
	size_t i = 0;

	if (!o)
		return 0;
	if (!cJSON_IsObject(o))
		return baseline_bad(c, "functions",
		                    "must be an object of probe -> {\"ir\": N, \"top\": [...]}");
	b->nfunctions = (size_t)cJSON_GetArraySize(o);
	b->functions = xcalloc(b->nfunctions ? b->nfunctions : 1, sizeof *b->functions);
	cJSON_ArrayForEach(p, o)
	{
		struct baseline_functions *f = &b->functions[i++];
		const cJSON *top, *fn;
		char jpath[320], tpath[340];
		size_t k = 0;

		json_path_key(jpath, sizeof jpath, "functions", p->string);
		f->probe = xstrdup(p->string);
		fnprof_init(&f->prof);
		if (!cJSON_IsObject(p))
			return baseline_bad(c, jpath,
			                    "must be an object {\"ir\": N, \"top\": [...]}");
		if (baseline_only_keys(c, p, jpath, keys) != 0 ||
		    baseline_get_number(c, p, "ir", jpath, &f->prof.total_ir) != 0)
			return -1;
		json_path_key(tpath, sizeof tpath, jpath, "top");
		top = cJSON_GetObjectItemCaseSensitive(p, "top");
		if (!cJSON_IsArray(top))
			return baseline_bad(c, tpath, "must be an array of {name, file, ir}");
		cJSON_ArrayForEach(fn, top)
		{
			char fpath[360], *name = NULL;
			const cJSON *file;
			double ir;
			json_path_index(fpath, sizeof fpath, tpath, k++);
			if (!cJSON_IsObject(fn))
				return baseline_bad(c, fpath, "must be an object {name, file, ir}");
			if (baseline_only_keys(c, fn, fpath, fkeys) != 0 ||
			    baseline_get_string(c, fn, "name", fpath, &name) != 0)
				return -1;
			if (baseline_get_number(c, fn, "ir", fpath, &ir) != 0) {
				free(name);
				return -1;
			}
			file = cJSON_GetObjectItemCaseSensitive(fn, "file");
			if (file && !cJSON_IsString(file) && !cJSON_IsNull(file)) {
				char where[380];
				free(name);
				json_path_key(where, sizeof where, fpath, "file");
				return baseline_bad(c, where, "must be a string or null");
			}
			fnprof_add(&f->prof, name, cJSON_IsString(file) ? file->valuestring : NULL,
			           ir);
			free(name);
		}
	}
	return 0;
}

/*
 * "host.facts" (optional: absent in a file pinned before they were kept): each key one of
 * hostinfo_fact_key's, a count an integer >= 1, any other a non-empty string. A fact the pinning
 * session did not record is absent.
 */
static int baseline_parse_host_facts(struct baseline_ctx *c, const cJSON *o, struct baseline *b)
{
	const cJSON *k;

	if (!o)
		return 0;
	if (!cJSON_IsObject(o))
		return baseline_bad(
		    c, "host.facts",
		    "must be an object of the pinning host's facts (cpu_model, ncpu, "
		    "mem_gib, arch, page_size, kernel, libc)");
	cJSON_ArrayForEach(k, o)
	{
		char where[320];
		int f = 0;
		json_path_key(where, sizeof where, "host.facts", k->string);
		while (f < HOSTINFO_NFACTS && strcmp(hostinfo_fact_key(f), k->string) != 0)
			f++;
		if (f == HOSTINFO_NFACTS)
			return baseline_bad(
			    c, where,
			    "unknown host fact (known: cpu_model, ncpu, mem_gib, arch, "
			    "page_size, kernel, libc)");
		if (hostinfo_fact_is_count(f)) {
			int64_t n;
			if (json_int(k, 1, JSON_INT_MAX, c->path, where, &n, c->e) != 0)
				return -1;
			b->host_facts.value[f] = xasprintf("%lld", (long long)n);
		} else {
			if (!cJSON_IsString(k) || !k->valuestring[0])
				return baseline_bad(c, where, "must be a non-empty string");
			b->host_facts.value[f] = xstrdup(k->valuestring);
		}
	}
	b->host_facts_known = 1;
	return 0;
}

/*
 * What the pinned cells depend on besides the code (each optional, unknown when absent): the
 * knobs the pinning runs had ("knobs"), the transparent huge page condition ("thp": "off" or
 * "host"), and what the pinned build said it does ("capabilities").
 */
static int baseline_parse_facts(struct baseline_ctx *c, const cJSON *root, struct baseline *b)
{
	const cJSON *v;

	if ((v = cJSON_GetObjectItemCaseSensitive(root, "knobs"))) {
		if (baseline_parse_knobs(c, v, "knobs", &b->knobs) != 0)
			return -1;
		b->knobs_known = 1;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "thp"))) {
		static const char *const keys[] = {"condition", "enabled", "defrag", NULL};
		const cJSON *cond = cJSON_GetObjectItemCaseSensitive(v, "condition");
		const cJSON *en = cJSON_GetObjectItemCaseSensitive(v, "enabled");
		const cJSON *de = cJSON_GetObjectItemCaseSensitive(v, "defrag");
		if (!cJSON_IsObject(v))
			return baseline_bad(c, "thp",
			                    "must be an object {condition, enabled, defrag}");
		if (baseline_only_keys(c, v, "thp", keys) != 0)
			return -1;
		if (!cJSON_IsString(cond) ||
		    hostinfo_thp_parse(cond->valuestring, &b->thp.condition) != 0)
			return baseline_bad(
			    c, "thp.condition",
			    "must be \"off\" (THP disabled for the probes) or \"host\" "
			    "(as the host was configured)");
		if (!cJSON_IsString(en) || !cJSON_IsString(de))
			return baseline_bad(
			    c, "thp", "enabled and defrag must be the host's modes (strings)");
		b->thp.requested = b->thp.condition;
		snprintf(b->thp.enabled, sizeof b->thp.enabled, "%s", en->valuestring);
		snprintf(b->thp.defrag, sizeof b->thp.defrag, "%s", de->valuestring);
		b->thp_known = 1;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "capabilities"))) {
		char first[64];
		if (caps_parse(v, c->path, &b->caps, first, sizeof first, c->e) != 0)
			return -1;
		if (b->caps.unknown)
			return baseline_bad(
			    c, "capabilities",
			    "names a capability the census protocol does not define");
	}
	return 0;
}

static int baseline_parse_len(const char *text, size_t len, const char *path, struct baseline *out,
                              struct err *e)
{
	struct baseline_ctx c = {path, e};
	cJSON *root = NULL;
	const cJSON *v;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (json_parse(text, len, path, &root, e) != 0)
		return -1;
	if (!cJSON_IsObject(root)) {
		baseline_bad(&c, "(top)", "must be a JSON object");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "format");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, BASELINE_FORMAT) != 0) {
		baseline_bad(&c, "format", "must be \"" BASELINE_FORMAT "\"");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (!cJSON_IsNumber(v) || v->valuedouble != BASELINE_VERSION) {
		baseline_bad(&c, "version", "must be 1 (the version this harness reads)");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "collector");
	if (!cJSON_IsObject(v)) {
		baseline_bad(&c, "collector", "must be an object {name, version, git_commit}");
		goto out;
	}
	if (baseline_get_string(&c, root, "profile", "", &out->profile) != 0 ||
	    baseline_get_string(&c, v, "name", "collector", &out->collector) != 0 ||
	    baseline_get_string(&c, v, "version", "collector", &out->collector_version) != 0 ||
	    baseline_get_string(&c, v, "git_commit", "collector", &out->git_commit) != 0)
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(root, "host");
	if (!cJSON_IsObject(v)) {
		baseline_bad(&c, "host", "must be an object {fingerprint, hostname, facts}");
		goto out;
	}
	if (baseline_get_string(&c, v, "fingerprint", "host", &out->host_fingerprint) != 0 ||
	    baseline_get_string(&c, v, "hostname", "host", &out->hostname) != 0 ||
	    baseline_parse_host_facts(&c, cJSON_GetObjectItemCaseSensitive(v, "facts"), out) != 0 ||
	    toolchain_parse(cJSON_GetObjectItemCaseSensitive(root, "toolchain"), path,
	                    &out->toolchain, e) != 0 ||
	    baseline_get_string(&c, root, "pinned_at", "", &out->pinned_at) != 0 ||
	    baseline_get_int(&c, root, "session", "", 1, &out->session) != 0 ||
	    baseline_get_string(&c, root, "size", "", &out->size) != 0 ||
	    baseline_parse_meters(&c, cJSON_GetObjectItemCaseSensitive(root, "meters"), out) != 0 ||
	    baseline_get_int(&c, root, "repeats", "", 1, &out->repeats) != 0 ||
	    (cJSON_GetObjectItemCaseSensitive(root, "sensitivity_pct") &&
	     baseline_get_number(&c, root, "sensitivity_pct", "", &out->sensitivity_pct) != 0) ||
	    baseline_parse_rules(&c, cJSON_GetObjectItemCaseSensitive(root, "rules"), out) != 0 ||
	    baseline_parse_probes(&c, cJSON_GetObjectItemCaseSensitive(root, "probes"), out) != 0 ||
	    baseline_parse_cells(&c, cJSON_GetObjectItemCaseSensitive(root, "cells"), out) != 0 ||
	    baseline_parse_overrides(&c, cJSON_GetObjectItemCaseSensitive(root, "overrides"),
	                             out) != 0 ||
	    baseline_parse_ledger(&c, cJSON_GetObjectItemCaseSensitive(root, "ledger"), out) != 0 ||
	    baseline_parse_noise(&c, cJSON_GetObjectItemCaseSensitive(root, "noise_accepted"),
	                         out) != 0 ||
	    baseline_parse_vary_env(&c, cJSON_GetObjectItemCaseSensitive(root, "vary_env"), out) !=
	        0 ||
	    baseline_parse_functions(&c, cJSON_GetObjectItemCaseSensitive(root, "functions"),
	                             out) != 0 ||
	    baseline_parse_facts(&c, root, out) != 0)
		goto out;
	{
		static const char *const top[] = {
		    "format",       "version",        "profile",         "collector", "host",
		    "toolchain",    "pinned_at",      "session",         "size",      "meters",
		    "repeats",      "rules",          "probes",          "cells",     "overrides",
		    "ledger",       "noise_accepted", "vary_env",        "knobs",     "thp",
		    "capabilities", "functions",      "sensitivity_pct", NULL};
		static const char *const collector[] = {"name", "version", "git_commit", NULL};
		static const char *const host[] = {"fingerprint", "hostname", "facts", NULL};
		static const char *const toolchain[] = {"compiler", "version", "flags", "valgrind",
		                                        NULL};
		if (baseline_only_keys(&c, root, "", top) != 0)
			goto out;
		if ((v = cJSON_GetObjectItemCaseSensitive(root, "collector")) &&
		    cJSON_IsObject(v) && baseline_only_keys(&c, v, "collector", collector) != 0)
			goto out;
		if ((v = cJSON_GetObjectItemCaseSensitive(root, "host")) && cJSON_IsObject(v) &&
		    baseline_only_keys(&c, v, "host", host) != 0)
			goto out;
		if ((v = cJSON_GetObjectItemCaseSensitive(root, "toolchain")) &&
		    cJSON_IsObject(v) && baseline_only_keys(&c, v, "toolchain", toolchain) != 0)
			goto out;
	}
	if (baseline_check(out, e) != 0) {
		char why[ERR_MSG_MAX];
		snprintf(why, sizeof why, "%s", e->msg);
		err_setc(e, ERR_INVALID, "%s: %s", path, why);
		goto out;
	}
	rc = 0;
out:
	cJSON_Delete(root);
	if (rc != 0)
		baseline_release(out);
	return rc;
}

int baseline_parse(const char *text, const char *path, struct baseline *out, struct err *e)
{
	return baseline_parse_len(text, strlen(text), path, out, e);
}

int baseline_load(const char *path, struct baseline *out, struct err *e)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (read_file(path, &text, &len, e) != 0)
		return -1;
	/* The whole file, a NUL byte in it included: it is refused, not read as the end. */
	rc = baseline_parse_len(text, len, path, out, e);
	free(text);
	return rc;
}

void baseline_release(struct baseline *b)
{
	free(b->profile);
	free(b->collector);
	free(b->collector_version);
	free(b->git_commit);
	free(b->host_fingerprint);
	free(b->hostname);
	hostinfo_facts_release(&b->host_facts);
	toolchain_release(&b->toolchain);
	free(b->pinned_at);
	free(b->size);
	strlist_release(&b->meters);
	for (size_t i = 0; i < b->nrules; i++)
		free(b->rules[i].metric);
	free(b->rules);
	for (size_t i = 0; i < b->nprobes; i++) {
		free(b->probes[i].name);
		free(b->probes[i].checksum);
		strlist_release(&b->probes[i].knobs);
	}
	strlist_release(&b->knobs);
	free(b->probes);
	for (size_t i = 0; i < b->ncells; i++) {
		free(b->cells[i].probe);
		free(b->cells[i].metric);
		free(b->cells[i].runs);
	}
	free(b->cells);
	for (size_t i = 0; i < b->noverrides; i++) {
		free(b->overrides[i].probe);
		free(b->overrides[i].metric);
		free(b->overrides[i].rationale);
	}
	free(b->overrides);
	for (size_t i = 0; i < b->nledger; i++) {
		free(b->ledger[i].probe);
		free(b->ledger[i].metric);
		free(b->ledger[i].reason);
		free(b->ledger[i].ref);
		free(b->ledger[i].date);
		free(b->ledger[i].who);
	}
	free(b->ledger);
	free(b->noise.reason);
	free(b->noise.date);
	free(b->noise.who);
	free(b->vary_env.sessions);
	for (size_t i = 0; i < b->nfunctions; i++) {
		free(b->functions[i].probe);
		fnprof_release(&b->functions[i].prof);
	}
	free(b->functions);
	memset(b, 0, sizeof *b);
}

struct baseline_cell *baseline_cell_find(const struct baseline *b, const char *probe,
                                         const char *metric)
{
	for (size_t i = 0; i < b->ncells; i++)
		if (b->cells[i].probe && strcmp(b->cells[i].probe, probe) == 0 &&
		    strcmp(b->cells[i].metric, metric) == 0)
			return &b->cells[i];
	return NULL;
}

const struct baseline_rule *baseline_rule_for_cell(const struct baseline *b, const char *probe,
                                                   const char *metric)
{
	for (size_t i = 0; i < b->noverrides; i++)
		if (b->overrides[i].probe && strcmp(b->overrides[i].probe, probe) == 0 &&
		    strcmp(b->overrides[i].metric, metric) == 0)
			return &b->overrides[i].rule;
	return baseline_rule_for(b, metric);
}

void baseline_ledger_add(struct baseline *b, const struct baseline_cell *cell, double new_value,
                         const char *reason, const char *ref, const char *date, const char *who)
{
	struct baseline_ledger_entry *x;

	b->ledger = xrealloc(b->ledger, (b->nledger + 1) * sizeof *b->ledger);
	x = &b->ledger[b->nledger++];
	x->probe = xstrdup(cell->probe);
	x->metric = xstrdup(cell->metric);
	x->old_value = cell->median;
	x->new_value = new_value;
	x->reason = xstrdup(reason);
	x->ref = ref ? xstrdup(ref) : NULL;
	x->date = xstrdup(date);
	x->who = xstrdup(who);
}

const struct fnprof *baseline_functions_of(const struct baseline *b, const char *probe)
{
	for (size_t i = 0; i < b->nfunctions; i++)
		if (strcmp(b->functions[i].probe, probe) == 0)
			return &b->functions[i].prof;
	return NULL;
}

void baseline_functions_set(struct baseline *b, const char *probe, const struct fnprof *prof)
{
	struct baseline_functions *f = NULL;

	for (size_t i = 0; i < b->nfunctions && !f; i++)
		if (strcmp(b->functions[i].probe, probe) == 0)
			f = &b->functions[i];
	if (f) {
		fnprof_release(&f->prof);
	} else {
		b->functions = xrealloc(b->functions, (b->nfunctions + 1) * sizeof *b->functions);
		f = &b->functions[b->nfunctions++];
		f->probe = xstrdup(probe);
	}
	fnprof_copy(prof, &f->prof);
	fnprof_truncate(&f->prof, BASELINE_FUNCTIONS_TOP);
}

const struct baseline_rule *baseline_rule_for(const struct baseline *b, const char *metric)
{
	for (size_t i = 0; i < b->nrules; i++)
		if (b->rules[i].metric && strcmp(b->rules[i].metric, metric) == 0)
			return &b->rules[i];
	return NULL;
}

const char *baseline_probe_checksum(const struct baseline *b, const char *probe)
{
	for (size_t i = 0; i < b->nprobes; i++)
		if (b->probes[i].name && strcmp(b->probes[i].name, probe) == 0)
			return b->probes[i].checksum;
	return NULL;
}

/* ---- Writing ------------------------------------------------------------------------------- */

/* Appends a JSON string literal. */
static void baseline_add_string(struct sbuf *out, const char *s)
{
	cJSON *item = cJSON_CreateString(s);
	char *text = cJSON_PrintUnformatted(item);

	sbuf_add(out, text, strlen(text));
	cJSON_free(text);
	cJSON_Delete(item);
}

/* NAME=VALUE strings as a JSON object, in their order. */
static void baseline_add_knobs(struct sbuf *out, const struct strlist *knobs)
{
	sbuf_addf(out, "{");
	for (size_t i = 0; i < knobs->n; i++) {
		const char *kv = knobs->items[i], *eq = strchr(kv, '=');
		char *name = xasprintf("%.*s", (int)(eq - kv), kv);
		sbuf_addf(out, "%s", i ? ", " : "");
		baseline_add_string(out, name);
		sbuf_addf(out, ": ");
		baseline_add_string(out, eq + 1);
		free(name);
	}
	sbuf_addf(out, "}");
}

/* Integers print exactly; anything else with enough digits to round-trip. */
static void baseline_add_number(struct sbuf *out, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		sbuf_addf(out, "%.0f", v);
	else
		sbuf_addf(out, "%.17g", v);
}

/* A rule's fields as the file writes them, in a rule and an override alike (no braces). */
static void baseline_add_rule(struct sbuf *out, const struct baseline_rule *r)
{
	sbuf_addf(out, "\"gated\": %s, \"direction\": \"%s\", \"band_pct\": ",
	          r->gated ? "true" : "false", baseline_direction_name(r->direction));
	baseline_add_number(out, r->band_pct);
	sbuf_addf(out, ", \"band_abs\": ");
	baseline_add_number(out, r->band_abs);
	if (r->band_live_pct > 0) {
		sbuf_addf(out, ", \"band_live_pct\": ");
		baseline_add_number(out, r->band_live_pct);
	}
	sbuf_addf(out, ", \"class\": \"%s\"", baseline_class_name(r->cls));
}

char *baseline_serialize(const struct baseline *b)
{
	struct sbuf out;

	sbuf_init(&out);
	sbuf_addf(&out,
	          "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"profile\": ", BASELINE_FORMAT,
	          BASELINE_VERSION);
	baseline_add_string(&out, b->profile);
	sbuf_addf(&out, ",\n  \"collector\": {\"name\": ");
	baseline_add_string(&out, b->collector);
	sbuf_addf(&out, ", \"version\": ");
	baseline_add_string(&out, b->collector_version);
	sbuf_addf(&out, ", \"git_commit\": ");
	baseline_add_string(&out, b->git_commit);
	sbuf_addf(&out, "},\n  \"host\": {\"fingerprint\": ");
	baseline_add_string(&out, b->host_fingerprint);
	sbuf_addf(&out, ", \"hostname\": ");
	baseline_add_string(&out, b->hostname);
	if (b->host_facts_known) {
		const char *sep = "";
		sbuf_addf(&out, ",\n           \"facts\": {");
		for (int f = 0; f < HOSTINFO_NFACTS; f++) {
			const char *v = b->host_facts.value[f];
			if (!v)
				continue;
			sbuf_addf(&out, "%s\"%s\": ", sep, hostinfo_fact_key(f));
			if (hostinfo_fact_is_count(f))
				sbuf_addf(&out, "%s", v);
			else
				baseline_add_string(&out, v);
			sep = ", ";
		}
		sbuf_addf(&out, "}");
	}
	if (b->toolchain.known) {
		sbuf_addf(&out, "},\n  \"toolchain\": {\"compiler\": ");
		baseline_add_string(&out, b->toolchain.compiler);
		sbuf_addf(&out, ", \"version\": ");
		baseline_add_string(&out, b->toolchain.version);
		sbuf_addf(&out, ", \"flags\": ");
		baseline_add_string(&out, b->toolchain.flags);
		sbuf_addf(&out, ", \"valgrind\": ");
		if (b->toolchain.valgrind)
			baseline_add_string(&out, b->toolchain.valgrind);
		else
			sbuf_addf(&out, "null");
	}
	sbuf_addf(&out, "},\n  \"pinned_at\": ");
	baseline_add_string(&out, b->pinned_at);
	sbuf_addf(&out, ",\n  \"session\": %lld,\n  \"size\": ", (long long)b->session);
	baseline_add_string(&out, b->size);
	sbuf_addf(&out, ",\n  \"meters\": [");
	for (size_t i = 0; i < b->meters.n; i++) {
		sbuf_addf(&out, "%s", i ? ", " : "");
		baseline_add_string(&out, b->meters.items[i]);
	}
	sbuf_addf(&out, "],\n  \"repeats\": %lld,\n", (long long)b->repeats);
	if (b->sensitivity_pct > 0) {
		sbuf_addf(&out, "  \"sensitivity_pct\": ");
		baseline_add_number(&out, b->sensitivity_pct);
		sbuf_addf(&out, ",\n");
	}
	if (b->knobs_known) {
		sbuf_addf(&out, "  \"knobs\": ");
		baseline_add_knobs(&out, &b->knobs);
		sbuf_addf(&out, ",\n");
	}
	if (b->thp_known) {
		sbuf_addf(&out, "  \"thp\": {\"condition\": \"%s\", \"enabled\": ",
		          hostinfo_thp_name(b->thp.condition));
		baseline_add_string(&out, b->thp.enabled);
		sbuf_addf(&out, ", \"defrag\": ");
		baseline_add_string(&out, b->thp.defrag);
		sbuf_addf(&out, "},\n");
	}
	if (b->caps.known) {
		char *caps = caps_json(&b->caps);
		sbuf_addf(&out, "  \"capabilities\": %s,\n", caps);
		free(caps);
	}
	sbuf_addf(&out, "  \"rules\": {");
	for (size_t i = 0; i < b->nrules; i++) {
		const struct baseline_rule *r = &b->rules[i];
		sbuf_addf(&out, "%s\n    ", i ? "," : "");
		baseline_add_string(&out, r->metric);
		sbuf_addf(&out, ": {");
		baseline_add_rule(&out, r);
		sbuf_addf(&out, "}");
	}
	sbuf_addf(&out, "\n  },\n  \"probes\": {");
	for (size_t i = 0; i < b->nprobes; i++) {
		sbuf_addf(&out, "%s\n    ", i ? "," : "");
		baseline_add_string(&out, b->probes[i].name);
		sbuf_addf(&out, ": {\"checksum\": ");
		baseline_add_string(&out, b->probes[i].checksum);
		if (b->probes[i].knobs.n) {
			sbuf_addf(&out, ", \"knobs\": ");
			baseline_add_knobs(&out, &b->probes[i].knobs);
		}
		sbuf_addf(&out, "}");
	}
	sbuf_addf(&out, "\n  },\n  \"cells\": [");
	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *x = &b->cells[i];
		sbuf_addf(&out, "%s\n    {\"probe\": ", i ? "," : "");
		baseline_add_string(&out, x->probe);
		sbuf_addf(&out, ", \"metric\": ");
		baseline_add_string(&out, x->metric);
		sbuf_addf(&out, ", \"median\": ");
		baseline_add_number(&out, x->median);
		sbuf_addf(&out, ", \"min\": ");
		baseline_add_number(&out, x->min);
		sbuf_addf(&out, ", \"max\": ");
		baseline_add_number(&out, x->max);
		sbuf_addf(&out, ", \"n\": %lld", (long long)x->n);
		if (x->sessions > 0)
			sbuf_addf(&out, ", \"sessions\": %lld", (long long)x->sessions);
		if (x->has_min_spread) {
			sbuf_addf(&out, ", \"min_spread\": ");
			baseline_add_number(&out, x->min_spread);
		}
		if (x->nruns) {
			sbuf_addf(&out, ", \"runs\": [");
			for (size_t k = 0; k < x->nruns; k++) {
				sbuf_addf(&out, "%s", k ? ", " : "");
				baseline_add_number(&out, x->runs[k]);
			}
			sbuf_addf(&out, "]");
		}
		sbuf_addf(&out, "}");
	}
	sbuf_addf(&out, "\n  ],\n  \"overrides\": [");
	for (size_t i = 0; i < b->noverrides; i++) {
		const struct baseline_override *x = &b->overrides[i];
		sbuf_addf(&out, "%s\n    {\"probe\": ", i ? "," : "");
		baseline_add_string(&out, x->probe);
		sbuf_addf(&out, ", \"metric\": ");
		baseline_add_string(&out, x->metric);
		sbuf_addf(&out, ", ");
		baseline_add_rule(&out, &x->rule);
		if (x->widened_for_noise)
			sbuf_addf(&out, ", \"widened_for_noise\": true");
		sbuf_addf(&out, ", \"rationale\": ");
		baseline_add_string(&out, x->rationale);
		sbuf_addf(&out, ", \"evidence\": {\"runs\": %lld, \"spread_pct\": ",
		          (long long)x->evidence_runs);
		baseline_add_number(&out, x->evidence_spread_pct);
		sbuf_addf(&out, "}}");
	}
	sbuf_addf(&out, "%s],\n  \"ledger\": [", b->noverrides ? "\n  " : "");
	for (size_t i = 0; i < b->nledger; i++) {
		const struct baseline_ledger_entry *x = &b->ledger[i];
		sbuf_addf(&out, "%s\n    {\"probe\": ", i ? "," : "");
		baseline_add_string(&out, x->probe);
		sbuf_addf(&out, ", \"metric\": ");
		baseline_add_string(&out, x->metric);
		sbuf_addf(&out, ", \"old\": ");
		baseline_add_number(&out, x->old_value);
		sbuf_addf(&out, ", \"new\": ");
		baseline_add_number(&out, x->new_value);
		sbuf_addf(&out, ", \"reason\": ");
		baseline_add_string(&out, x->reason);
		if (x->ref) {
			sbuf_addf(&out, ", \"ref\": ");
			baseline_add_string(&out, x->ref);
		}
		sbuf_addf(&out, ", \"date\": ");
		baseline_add_string(&out, x->date);
		sbuf_addf(&out, ", \"who\": ");
		baseline_add_string(&out, x->who);
		sbuf_addf(&out, "}");
	}
	sbuf_addf(&out, "%s]", b->nledger ? "\n  " : "");
	if (b->noise.reason) {
		sbuf_addf(&out, ",\n  \"noise_accepted\": {\"reason\": ");
		baseline_add_string(&out, b->noise.reason);
		sbuf_addf(&out, ", \"date\": ");
		baseline_add_string(&out, b->noise.date);
		sbuf_addf(&out, ", \"who\": ");
		baseline_add_string(&out, b->noise.who);
		sbuf_addf(&out, "}");
	}
	if (b->vary_env.nsessions) {
		sbuf_addf(&out, ",\n  \"vary_env\": {\"sessions\": [");
		for (size_t i = 0; i < b->vary_env.nsessions; i++)
			sbuf_addf(&out, "%s%lld", i ? ", " : "",
			          (long long)b->vary_env.sessions[i]);
		sbuf_addf(&out, "], \"pad_step_bytes\": %lld}",
		          (long long)b->vary_env.pad_step_bytes);
	}
	if (b->nfunctions) {
		/* One function a line: a re-pin's diff shows which moved. */
		sbuf_addf(&out, ",\n  \"functions\": {");
		for (size_t i = 0; i < b->nfunctions; i++) {
			const struct baseline_functions *f = &b->functions[i];
			sbuf_addf(&out, "%s\n    ", i ? "," : "");
			baseline_add_string(&out, f->probe);
			sbuf_addf(&out, ": {\"ir\": ");
			baseline_add_number(&out, f->prof.total_ir);
			sbuf_addf(&out, ", \"top\": [");
			for (size_t k = 0; k < f->prof.n; k++) {
				sbuf_addf(&out, "%s\n      {\"name\": ", k ? "," : "");
				baseline_add_string(&out, f->prof.fns[k].name);
				sbuf_addf(&out, ", \"file\": ");
				if (f->prof.fns[k].file)
					baseline_add_string(&out, f->prof.fns[k].file);
				else
					sbuf_addf(&out, "null");
				sbuf_addf(&out, ", \"ir\": ");
				baseline_add_number(&out, f->prof.fns[k].ir);
				sbuf_addf(&out, "}");
			}
			sbuf_addf(&out, "%s]}", f->prof.n ? "\n    " : "");
		}
		sbuf_addf(&out, "\n  }");
	}
	sbuf_addf(&out, "\n}\n");
	return out.data;
}

int baseline_cell_rule(const struct baseline *b, const char *probe, const char *metric,
                       struct baseline_rule *out)
{
	const struct baseline_rule *r = baseline_rule_for_cell(b, probe, metric);
	const struct baseline_cell *live;

	if (!r)
		return -1;
	*out = *r;
	if (r->band_live_pct > 0 &&
	    (live = baseline_cell_find(b, probe, "census.heap_used_after_full_bytes"))) {
		double floor = fabs(live->median) * r->band_live_pct / 100.0;
		if (floor > out->band_abs)
			out->band_abs = floor;
	}
	return 0;
}

double baseline_cell_value(const struct baseline_cell *c, enum baseline_class cls)
{
	return cls == BASELINE_CLASS_QUANTILE ? c->min : c->median;
}

/*
 * How far a cell's own pinned runs reach in its rule's bad direction from the figure check
 * compares. A quantile cell is judged on a session's smallest run, which lands beyond the
 * allowance only when every run of the session does: unlikely (at most 1 in 2^N for N runs)
 * when at least half the pinned runs lie within it, so its reach is the median's distance from
 * the min, or, pinned from several sessions, how far their own mins moved (min_spread) when
 * that is more. Not the mins' spread alone: bdwgc-incremental's committed peak on 10 had the
 * same min in three sessions of 5 runs, but only a third of its runs reach that mode, and a
 * check of 3 runs misses it 30% of the time.
 */
static double baseline_cell_reach(const struct baseline_cell *c, const struct baseline_rule *r)
{
	double up = c->max - c->median, down = c->median - c->min;

	/* A distribution cell is judged against its pinning runs themselves: none is beyond. */
	if (r->cls == BASELINE_CLASS_DIST)
		return 0;
	if (r->cls == BASELINE_CLASS_QUANTILE && r->direction != BASELINE_DECREASE)
		return c->has_min_spread && c->min_spread > down ? c->min_spread : down;
	if (r->cls == BASELINE_CLASS_QUANTILE)
		return up;
	return r->direction == BASELINE_INCREASE   ? up
	       : r->direction == BASELINE_DECREASE ? down
	                                           : (up > down ? up : down);
}

double baseline_cell_spread(const struct baseline *b, const struct baseline_cell *c,
                            double *allowance)
{
	struct baseline_rule r;

	if (baseline_cell_rule(b, c->probe, c->metric, &r) != 0 || !r.gated) {
		*allowance = INFINITY;
		return 0;
	}
	*allowance = baseline_allowance(&r, baseline_cell_value(c, r.cls));
	return baseline_cell_reach(c, &r);
}

int baseline_check_spread(const struct baseline *b, struct err *e)
{
	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *c = &b->cells[i];
		struct baseline_rule r;
		double allowance, spread;
		if (baseline_cell_rule(b, c->probe, c->metric, &r) != 0 || !r.gated)
			continue;
		/* Exact says the figure repeats: runs that differ say it does not. */
		if (r.cls == BASELINE_CLASS_EXACT && c->max != c->min) {
			char lo[32], hi[32];
			metrics_format_value(c->metric, c->min, lo, sizeof lo);
			metrics_format_value(c->metric, c->max, hi, sizeof hi);
			return err_setc(
			    e, ERR_INVALID,
			    "cells[%zu] (%s %s): class exact, but its %lld pinning runs "
			    "differ (%s to %s): the figure is not deterministic; re-pin "
			    "it (pin bands it by its spread), or give it a banded "
			    "override with its evidence",
			    i, c->probe, c->metric, (long long)c->n, lo, hi);
		}
		spread = baseline_cell_spread(b, c, &allowance);
		if (spread > allowance) {
			char reach[32], from[32], allow[32];
			int quantile = r.cls == BASELINE_CLASS_QUANTILE;
			metrics_format_value(c->metric,
			                     quantile                           ? c->min + spread
			                     : r.direction == BASELINE_DECREASE ? c->min
			                                                        : c->max,
			                     reach, sizeof reach);
			metrics_format_value(c->metric, baseline_cell_value(c, r.cls), from,
			                     sizeof from);
			metrics_format_value(c->metric, allowance, allow, sizeof allow);
			return err_setc(
			    e, ERR_INVALID,
			    "cells[%zu] (%s %s): its pinned runs reach %s from a %s of %s, beyond "
			    "its allowance of %s (class %s%s): the cell would fail on its own "
			    "runs; "
			    "re-pin it, or widen it with an override and its evidence",
			    i, c->probe, c->metric, reach, quantile ? "min" : "median", from, allow,
			    baseline_class_name(r.cls),
			    r.cls == BASELINE_CLASS_EXACT ? ", but the figure is not deterministic"
			                                  : "");
		}
	}
	return 0;
}

/* ---- Justification -------------------------------------------------------------------------- */

/*
 * Why `r` judges less than `ref` (the rule pin writes), in words for a message, or NULL when it
 * does not: a wider band (pct, abs or live floor), gated -> not gated, a direction that stops
 * watching a side ref watches, or a class that compares less (exact < banded < quantile < info:
 * a quantile cell compares a session's smallest run, an info one nothing). Tighter is fine.
 */
static const char *baseline_looser(const struct baseline_rule *r, const struct baseline_rule *ref,
                                   char *buf, size_t size)
{
	const struct {
		const char *name;
		double mine, pins;
	} bands[] = {{"band_pct", r->band_pct, ref->band_pct},
	             {"band_abs", r->band_abs, ref->band_abs},
	             {"band_live_pct", r->band_live_pct, ref->band_live_pct}};

	if (!ref->gated)
		return NULL;
	if (!r->gated)
		return "not gated, where pin gates it";
	if (r->direction != ref->direction && r->direction != BASELINE_EITHER) {
		snprintf(buf, size, "direction \"%s\" stops watching the %s side pin watches",
		         baseline_direction_name(r->direction),
		         r->direction == BASELINE_DECREASE ? "increase" : "decrease");
		return buf;
	}
	for (size_t i = 0; i < sizeof bands / sizeof bands[0]; i++)
		if (bands[i].mine > bands[i].pins) {
			snprintf(buf, size, "%s %g is wider than pin's %g", bands[i].name,
			         bands[i].mine, bands[i].pins);
			return buf;
		}
	if (r->cls > ref->cls) {
		snprintf(buf, size, "class %s compares less than pin's %s",
		         baseline_class_name(r->cls), baseline_class_name(ref->cls));
		return buf;
	}
	return NULL;
}

/*
 * A wider band and a class that compares less are what a measured spread justifies: the
 * override's evidence must have seen one. Not gating a cell, or watching another side, is a
 * decision its rationale carries.
 */
static int baseline_looser_by_spread(const struct baseline_rule *r, const struct baseline_rule *ref)
{
	return r->gated && ref->gated &&
	       (r->cls > ref->cls || r->band_pct > ref->band_pct || r->band_abs > ref->band_abs ||
	        r->band_live_pct > ref->band_live_pct);
}

/* The rule pin writes for `metric` in b's profile, for the build b's capabilities describe. */
static int baseline_pin_rule(const struct baseline *b, const char *metric,
                             struct baseline_rule *out, struct err *e)
{
	struct baseline_rule *rules = NULL;

	if (baseline_default_rules(b->profile, &b->caps, &metric, 1, &rules, e) != 0)
		return -1;
	*out = rules[0];
	out->metric = NULL;
	free(rules[0].metric);
	free(rules);
	return 0;
}

static char *baseline_rule_text(const struct baseline_rule *r)
{
	struct sbuf out;

	sbuf_init(&out);
	sbuf_addf(&out, "{");
	baseline_add_rule(&out, r);
	sbuf_addf(&out, "}");
	return sbuf_detach(&out);
}

static const struct baseline_override *baseline_override_of(const struct baseline *b,
                                                            const char *probe, const char *metric)
{
	for (size_t i = 0; i < b->noverrides; i++)
		if (strcmp(b->overrides[i].probe, probe) == 0 &&
		    strcmp(b->overrides[i].metric, metric) == 0)
			return &b->overrides[i];
	return NULL;
}

int baseline_check_justified(const struct baseline *b, struct err *e)
{
	struct baseline_rule ref;
	char why[160], where[320];
	const char *looser;
	char *text, *caps;

	if (b->nrules && baseline_pin_rule(b, b->rules[0].metric, &ref, e) != 0)
		return err_setc(e, ERR_INVALID,
		                "profile: \"%s\" has no default rules (valid: shared_ci, "
		                "pinned_host): its rules cannot be held to what pin writes",
		                b->profile);
	for (size_t i = 0; i < b->nrules; i++) {
		const struct baseline_rule *r = &b->rules[i];
		if (baseline_pin_rule(b, r->metric, &ref, e) != 0 ||
		    !(looser = baseline_looser(r, &ref, why, sizeof why)))
			continue;
		/* A looser rule judges no cell of its own: each has an override that says why. */
		for (size_t c = 0; c < b->ncells; c++) {
			const struct baseline_cell *x = &b->cells[c];
			if (strcmp(x->metric, r->metric) != 0 ||
			    baseline_override_of(b, x->probe, x->metric))
				continue;
			json_path_key(where, sizeof where, "rules", r->metric);
			text = baseline_rule_text(&ref);
			caps = caps_describe(&b->caps);
			err_setc(e, ERR_INVALID,
			         "%s: %s, and cells[%zu] (%s %s) has no override saying why: "
			         "for profile %s and capabilities %s pin writes %s; restore that, "
			         "or give the cell an override with a rationale and its evidence",
			         where, looser, c, x->probe, x->metric, b->profile, caps, text);
			free(caps);
			free(text);
			return -1;
		}
	}
	for (size_t i = 0; i < b->noverrides; i++) {
		const struct baseline_override *o = &b->overrides[i];
		if (baseline_pin_rule(b, o->metric, &ref, e) != 0 ||
		    !(looser = baseline_looser(&o->rule, &ref, why, sizeof why)) ||
		    !baseline_looser_by_spread(&o->rule, &ref) || o->evidence_spread_pct > 0)
			continue;
		text = baseline_rule_text(&ref);
		err_setc(e, ERR_INVALID,
		         "overrides[%zu] (%s %s): %s, but its evidence saw no spread (%lld runs, "
		         "spread_pct 0): pin writes %s; a wider band needs the runs that spread",
		         i, o->probe, o->metric, looser, (long long)o->evidence_runs, text);
		free(text);
		return -1;
	}
	return 0;
}

int baseline_validate(const struct baseline *b, struct err *e)
{
	if (baseline_check(b, e) != 0 || baseline_check_spread(b, e) != 0 ||
	    baseline_check_justified(b, e) != 0)
		return -1;
	return 0;
}
