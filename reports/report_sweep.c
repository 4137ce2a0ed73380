#include "report_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "escape.h"
#include "report_html.h"
#include "stats.h"

/*
 * What a time under the clock's resolution counts as (sweep.c, SWEEP_CLOCK_RESOLUTION_NS), said
 * wherever a ratio or a mean of times is shown: a geometric mean is defined for it.
 */
#define REPORT_SWEEP_FLOOR                                                                        \
	"A wall or user time of 0 ns (under rusage's 1 us resolution) is taken as 1 us in every " \
	"ratio and geometric mean; the stored figure stays 0."
_Static_assert((int)SWEEP_CLOCK_RESOLUTION_NS == 1000, "REPORT_SWEEP_FLOOR says 1 us");

/* The short names of enum sweep_metric in tables and JSON keys. */
static const char *const report_sweep_title[SWEEP_NMETRICS] = {
    [SWEEP_WALL] = "wall time",
    [SWEEP_USER] = "user time",
    [SWEEP_IR] = "Ir",
    [SWEEP_RSS] = "peak RSS",
};

/* Metric m of a run (m < 0: the collector's GC time), or NULL. */
static const double *report_sweep_value(const struct store_run *run, int m)
{
	return metric_set_get(&run->metrics,
	                      m < 0 ? "census.pause_total_ns" : sweep_metric_names[m]);
}

/* Where in the table an arm is; -1 when the arm is not in the sweep's cells. */
struct report_sweep_arm {
	long build, factor;
};

static long report_sweep_factor_index(const struct sweep_table *t, double f)
{
	for (size_t i = 0; i < t->nfactors; i++)
		if (t->factors[i] == f)
			return (long)i;
	return -1;
}

/* The factors of the cells, ascending, at most SWEEP_FACTORS_MAX. */
static int report_sweep_factors(const struct store_sweep_cell *c, size_t n, double *factors,
                                size_t *nf, struct err *e)
{
	*nf = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < *nf && factors[j] != c[i].factor)
			j++;
		if (j < *nf)
			continue;
		if (*nf == SWEEP_FACTORS_MAX)
			return err_setc(e, ERR_CORRUPT, "the sweep has more than %d factors",
			                SWEEP_FACTORS_MAX);
		j = (*nf)++;
		/* Insertion keeps them ascending. */
		while (j > 0 && factors[j - 1] > c[i].factor) {
			factors[j] = factors[j - 1];
			j--;
		}
		factors[j] = c[i].factor;
	}
	return 0;
}

/* The collections (minor + major) a run counted; NAN when it did not report both. */
static double report_sweep_collections(const struct store_run *run)
{
	const double *minor = metric_set_get(&run->metrics, "census.minor_collections");
	const double *major = metric_set_get(&run->metrics, "census.major_collections");

	return minor && major ? *minor + *major : NAN;
}

/* The medians of one point's runs, and the most collections one counted. */
static void report_sweep_point(const struct report_sweep *r, const struct report_sweep_arm *arms,
                               const char *probe, size_t b, size_t f, struct sweep_point *pt,
                               double *buf)
{
	const struct report_data *d = &r->d;

	for (int m = -1; m < SWEEP_NMETRICS; m++) {
		size_t n = 0;

		for (size_t i = 0; i < d->nruns; i++) {
			const struct store_run *run = &d->runs[i];
			long a = report_data_arm_index(d, run->arm);
			const double *v;

			if (a < 0 || arms[a].build != (long)b || arms[a].factor != (long)f ||
			    run->warmup || strcmp(run->probe, probe) != 0)
				continue;
			if (m < 0 && run->kind == RUN_KIND_TIMED) {
				pt->runs++;
				pt->ok += run->status == RUN_STATUS_OK;
				pt->exhausted += run->status == RUN_STATUS_HEAP_EXHAUSTED;
				if (run->status == RUN_STATUS_OK) {
					/* The most over the runs; once one did not report them, NAN. */
					double c = report_sweep_collections(run);
					if (pt->ok == 1 || isnan(c) || c > pt->collections)
						pt->collections = c;
				}
			}
			if (run->status == RUN_STATUS_OK && (v = report_sweep_value(run, m)))
				buf[n++] = *v;
		}
		if (n == 0)
			continue;
		if (m < 0)
			pt->gc_ns = stats_median(buf, n);
		else
			pt->value[m] = stats_median(buf, n);
	}
}

/* The table of out->d and out->cells, loaded; `id` names the session in messages. */
static int report_sweep_fill(int64_t id, struct report_sweep *out, struct err *e)
{
	struct report_sweep_arm *arms = NULL;
	struct sweep_table *t = &out->t;
	double factors[SWEEP_FACTORS_MAX], *buf = NULL;
	size_t nf = 0;
	int rc = -1;

	if (out->ncells == 0) {
		err_setc(e, ERR_NOT_FOUND, "session %lld is not a sweep (it has no heap sizes)",
		         (long long)id);
		goto out;
	}
	if (report_sweep_factors(out->cells, out->ncells, factors, &nf, e) != 0)
		goto out;
	for (size_t i = 0; i < out->d.nbuilds; i++)
		if (!strlist_contains(&out->builds, out->d.builds[i].name))
			strlist_push(&out->builds, out->d.builds[i].name);
	out->collectors = xcalloc(out->builds.n + 1, sizeof *out->collectors);
	for (size_t i = 0; i < out->d.nbuilds; i++)
		for (size_t b = 0; b < out->builds.n; b++)
			if (strcmp(out->builds.items[b], out->d.builds[i].name) == 0 &&
			    !out->collectors[b])
				out->collectors[b] = out->d.builds[i].collector;
	sweep_table_init(t, out->d.probes.n, out->builds.n, nf);
	memcpy(t->factors, factors, nf * sizeof *factors);

	arms = xcalloc(out->d.nbuilds + 1, sizeof *arms);
	for (size_t i = 0; i < out->d.nbuilds; i++)
		arms[i].build = arms[i].factor = -1;
	out->reference_mb = xcalloc(out->d.probes.n + 1, sizeof *out->reference_mb);
	out->reference_build = xcalloc(out->d.probes.n + 1, sizeof *out->reference_build);
	for (size_t i = 0; i < out->ncells; i++) {
		const struct store_sweep_cell *c = &out->cells[i];
		long a = report_data_arm_index(&out->d, c->arm);
		long f = report_sweep_factor_index(t, c->factor);

		if (a < 0) {
			err_setc(e, ERR_CORRUPT,
			         "session %lld: a sweep cell names arm %d, which the "
			         "session does not have",
			         (long long)id, c->arm);
			goto out;
		}
		if (arms[a].factor >= 0 && arms[a].factor != f) {
			err_setc(e, ERR_CORRUPT, "session %lld: arm %d has two factors",
			         (long long)id, c->arm);
			goto out;
		}
		arms[a].factor = f;
		for (size_t b = 0; b < out->builds.n; b++)
			if (strcmp(out->builds.items[b], out->d.builds[a].name) == 0)
				arms[a].build = (long)b;
		for (size_t p = 0; p < out->d.probes.n; p++)
			if (strcmp(out->d.probes.items[p], c->probe) == 0) {
				sweep_point_at(t, p, (size_t)arms[a].build, (size_t)f)->heap_mb =
				    c->heap_mb;
				out->reference_mb[p] = c->reference_mb;
				out->reference_build[p] = c->reference_build;
			}
	}
	buf = xcalloc(out->d.nruns + 1, sizeof *buf);
	for (size_t p = 0; p < t->nprobes; p++)
		for (size_t b = 0; b < t->nbuilds; b++)
			for (size_t f = 0; f < t->nfactors; f++) {
				struct sweep_point *pt = sweep_point_at(t, p, b, f);
				report_sweep_point(out, arms, out->d.probes.items[p], b, f, pt,
				                   buf);
				out->has_ir |= isfinite(pt->value[SWEEP_IR]);
			}
	sweep_derive(t);
	rc = 0;
out:
	free(buf);
	free(arms);
	if (rc != 0)
		report_sweep_release(out);
	return rc;
}

int report_sweep_load(struct store *st, int64_t id, struct report_sweep *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (report_data_load(st, id, &out->d, e) != 0 ||
	    store_sweep_load(st, id, &out->cells, &out->ncells, e) != 0) {
		report_sweep_release(out);
		return -1;
	}
	return report_sweep_fill(id, out, e);
}

/* 1 when two sessions ran the same arms: builds (by manifest hash) at the same positions. */
static int report_sweep_same_arms(const struct report_data *a, const struct report_data *b)
{
	if (a->nbuilds != b->nbuilds)
		return 0;
	for (size_t i = 0; i < a->nbuilds; i++)
		if (a->builds[i].position != b->builds[i].position ||
		    strcmp(a->builds[i].manifest_hash, b->builds[i].manifest_hash) != 0 ||
		    strcmp(a->builds[i].label, b->builds[i].label) != 0)
			return 0;
	return 1;
}

int report_sweep_load_parts(struct store *st, const int64_t *ids, size_t n,
                            struct report_sweep *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (n == 0)
		return err_setc(e, ERR_INVALID, "no sessions to merge");
	if (report_data_load(st, ids[0], &out->d, e) != 0 ||
	    store_sweep_load(st, ids[0], &out->cells, &out->ncells, e) != 0)
		goto fail;
	for (size_t k = 1; k < n; k++) {
		struct report_data d = {0};
		struct store_sweep_cell *cells = NULL;
		size_t ncells = 0;
		if (report_data_load(st, ids[k], &d, e) != 0 ||
		    store_sweep_load(st, ids[k], &cells, &ncells, e) != 0) {
			report_data_release(&d);
			goto fail;
		}
		if (!report_sweep_same_arms(&out->d, &d)) {
			report_data_release(&d);
			store_sweep_release(cells, ncells);
			err_setc(e, ERR_INVALID,
			         "sessions %lld and %lld did not sweep the same builds at the same "
			         "factors: they are not parts of one sweep",
			         (long long)ids[0], (long long)ids[k]);
			goto fail;
		}
		/* The part's runs, probes and cells move into the first: their arms are the same. */
		out->d.runs = xrealloc(out->d.runs, (out->d.nruns + d.nruns + 1) * sizeof *d.runs);
		memcpy(out->d.runs + out->d.nruns, d.runs, d.nruns * sizeof *d.runs);
		out->d.nruns += d.nruns;
		d.nruns = 0;
		for (size_t p = 0; p < d.probes.n; p++)
			if (!strlist_contains(&out->d.probes, d.probes.items[p]))
				strlist_push(&out->d.probes, d.probes.items[p]);
		out->cells = xrealloc(out->cells, (out->ncells + ncells + 1) * sizeof *cells);
		memcpy(out->cells + out->ncells, cells, ncells * sizeof *cells);
		out->ncells += ncells;
		store_sweep_release(cells, 0);
		report_data_release(&d);
	}
	return report_sweep_fill(ids[0], out, e);
fail:
	report_sweep_release(out);
	return -1;
}

void report_sweep_release(struct report_sweep *r)
{
	report_data_release(&r->d);
	store_sweep_release(r->cells, r->ncells);
	strlist_release(&r->builds);
	free(r->collectors);
	free(r->reference_mb);
	free(r->reference_build);
	sweep_table_release(&r->t);
	memset(r, 0, sizeof *r);
}

/* ---- Shared wording ------------------------------------------------------------------------ */

/* "ok", "heap exhausted", "1 of 3 exhausted", "failed", "not run". */
static void report_sweep_status(const struct sweep_point *pt, char *buf, size_t size)
{
	if (pt->runs == 0)
		snprintf(buf, size, "not run");
	else if (pt->ok == pt->runs)
		snprintf(buf, size, "ok");
	else if (pt->exhausted == pt->runs)
		snprintf(buf, size, "heap exhausted");
	else if (pt->exhausted)
		snprintf(buf, size, "%d of %d heap exhausted", pt->exhausted, pt->runs);
	else
		snprintf(buf, size, "%d of %d failed", pt->runs - pt->ok, pt->runs);
}

static void report_sweep_ratio(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%.3f", v);
	else
		snprintf(buf, size, "-");
}

/* Which costs a sweep shows: Ir only when it ran valgrind. */
static int report_sweep_shown(const struct report_sweep *r, int m)
{
	return m != SWEEP_IR || r->has_ir;
}

/* ---- Markdown ------------------------------------------------------------------------------- */

/* What a sweep that did not complete shows, in every format that says so. */
#define REPORT_SWEEP_PARTIAL                                                                       \
	"its figures are of the runs it stored, and a point it did not reach is missing (\"-\"), " \
	"as are the means over it."

static int report_sweep_complete(const struct report_sweep *r)
{
	return r->d.session.status && strcmp(r->d.session.status, "complete") == 0;
}

char *report_sweep_md(const struct report_sweep *r)
{
	const struct sweep_table *t = &r->t;
	struct sbuf b;
	char v[48];

	sbuf_init(&b);
	sbuf_addf(&b, "## Heap-size sweep: session %lld, size ", (long long)r->d.session.id);
	escape_md(&b, r->d.session.size);
	sbuf_addf(&b, ", %lld round%s, status ", (long long)r->d.session.rounds,
	          r->d.session.rounds == 1 ? "" : "s");
	escape_md(&b, r->d.session.status);
	sbuf_addf(&b, "\n\n");
	if (!report_sweep_complete(r)) {
		sbuf_addf(&b, "**The sweep is ");
		escape_md(&b, r->d.session.status);
		sbuf_addf(&b, ":** %s\n\n", REPORT_SWEEP_PARTIAL);
	}
	sbuf_addf(&b,
	          "Heap: a multiple of each probe's reference minimum heap (the smallest of the "
	          "builds' minimum heaps unless one was named). Costs are medians, normalised "
	          "to the best at the largest heap (1.000 is the best); LBO is the cost over "
	          "the lower bound of the probe's cost without GC work (docs/sweeps.md).\n\n");

	sbuf_addf(&b, "### Geometric mean over %zu probe%s\n\n| build | factor |", t->nprobes,
	          t->nprobes == 1 ? "" : "s");
	for (int m = 0; m < SWEEP_NMETRICS; m++)
		if (report_sweep_shown(r, m))
			sbuf_addf(&b, " %s |", report_sweep_title[m]);
	sbuf_addf(&b, " LBO wall | probes |\n| --- | ---: |");
	for (int m = 0; m < SWEEP_NMETRICS; m++)
		if (report_sweep_shown(r, m))
			sbuf_addf(&b, " ---: |");
	sbuf_addf(&b, " ---: | ---: |\n");
	for (size_t bi = 0; bi < t->nbuilds; bi++)
		for (size_t f = 0; f < t->nfactors; f++) {
			size_t cell = bi * t->nfactors + f;
			sbuf_addf(&b, "| ");
			escape_md(&b, r->builds.items[bi]);
			sbuf_addf(&b, " | %g |", t->factors[f]);
			for (int m = 0; m < SWEEP_NMETRICS; m++)
				if (report_sweep_shown(r, m)) {
					report_sweep_ratio(t->geo[cell * SWEEP_NMETRICS + m], v,
					                   sizeof v);
					sbuf_addf(&b, " %s |", v);
				}
			for (int k = 0; k < SWEEP_NLBO; k++) {
				report_sweep_ratio(t->geo_lbo[cell * SWEEP_NLBO + k], v, sizeof v);
				sbuf_addf(&b, " %s |", v);
			}
			sbuf_addf(&b, " %zu/%zu |\n", t->geo_n[cell], t->nprobes);
		}
	sbuf_addf(&b,
	          "\n\"-\": not every probe has the figure at that heap (`probes` says how many "
	          "do): a mean over fewer probes would not compare with its neighbours. %s\n\n",
	          REPORT_SWEEP_FLOOR);

	sbuf_addf(&b, "### Lower-bound overhead of wall time\n\n| probe | lower bound |");
	for (size_t bi = 0; bi < t->nbuilds; bi++)
		for (size_t f = 0; f < t->nfactors; f++) {
			sbuf_addf(&b, " ");
			escape_md(&b, r->builds.items[bi]);
			sbuf_addf(&b, " x%g |", t->factors[f]);
		}
	sbuf_addf(&b, "\n| --- | ---: |");
	for (size_t i = 0; i < t->nbuilds * t->nfactors; i++)
		sbuf_addf(&b, " ---: |");
	sbuf_addf(&b, "\n");
	for (size_t p = 0; p < t->nprobes; p++) {
		sbuf_addf(&b, "| ");
		escape_md(&b, r->d.probes.items[p]);
		metrics_format_value("time.wall_ns", t->lower[p * SWEEP_NLBO + SWEEP_WALL], v,
		                     sizeof v);
		sbuf_addf(&b, " | %s |", v);
		for (size_t bi = 0; bi < t->nbuilds; bi++)
			for (size_t f = 0; f < t->nfactors; f++) {
				const struct sweep_point *pt = sweep_point_at(t, p, bi, f);
				if (pt->ok == 0 && pt->exhausted)
					snprintf(v, sizeof v, "exhausted");
				else
					report_sweep_ratio(pt->lbo[SWEEP_WALL], v, sizeof v);
				sbuf_addf(&b, " %s |", v);
			}
		sbuf_addf(&b, "\n");
	}

	sbuf_addf(&b, "\n### Points\n\n| probe | reference | build | factor | heap MiB | status |");
	for (int m = 0; m < SWEEP_NMETRICS; m++)
		if (report_sweep_shown(r, m))
			sbuf_addf(&b, " %s | /best |", report_sweep_title[m]);
	sbuf_addf(&b, " GC time | LBO wall |\n| --- | --- | --- | ---: | ---: | --- |");
	for (int m = 0; m < SWEEP_NMETRICS; m++)
		if (report_sweep_shown(r, m))
			sbuf_addf(&b, " ---: | ---: |");
	sbuf_addf(&b, " ---: | ---: |\n");
	for (size_t p = 0; p < t->nprobes; p++)
		for (size_t bi = 0; bi < t->nbuilds; bi++)
			for (size_t f = 0; f < t->nfactors; f++) {
				const struct sweep_point *pt = sweep_point_at(t, p, bi, f);
				char status[48];

				report_sweep_status(pt, status, sizeof status);
				sbuf_addf(&b, "| ");
				escape_md(&b, r->d.probes.items[p]);
				sbuf_addf(&b, " | %lld MiB (", (long long)r->reference_mb[p]);
				escape_md(&b, r->reference_build[p] ? r->reference_build[p] : "?");
				sbuf_addf(&b, ") | ");
				escape_md(&b, r->builds.items[bi]);
				sbuf_addf(&b, " | %g | %lld | %s |", t->factors[f],
				          (long long)pt->heap_mb, status);
				for (int m = 0; m < SWEEP_NMETRICS; m++) {
					if (!report_sweep_shown(r, m))
						continue;
					metrics_format_value(sweep_metric_names[m], pt->value[m], v,
					                     sizeof v);
					sbuf_addf(&b, " %s |", v);
					report_sweep_ratio(pt->norm[m], v, sizeof v);
					sbuf_addf(&b, " %s |", v);
				}
				metrics_format_value("census.pause_total_ns", pt->gc_ns, v,
				                     sizeof v);
				sbuf_addf(&b, " %s |", v);
				for (int k = 0; k < SWEEP_NLBO; k++) {
					report_sweep_ratio(pt->lbo[k], v, sizeof v);
					sbuf_addf(&b, " %s |", v);
				}
				sbuf_addf(&b, "\n");
			}
	return b.data;
}

/* Whether build b counted no collection in any completed run at any point (epsilon). */
static int report_sweep_never_collects(const struct sweep_table *t, size_t b)
{
	int seen = 0;

	for (size_t p = 0; p < t->nprobes; p++)
		for (size_t f = 0; f < t->nfactors; f++) {
			const struct sweep_point *pt = sweep_point_at(t, p, b, f);
			if (pt->ok == 0)
				continue;
			if (pt->collections != 0)
				return 0;
			seen = 1;
		}
	return seen;
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static void report_sweep_json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *report_sweep_json_metrics(const double *v, int n, const char *const *names)
{
	cJSON *o = cJSON_CreateObject();

	for (int m = 0; m < n; m++)
		report_sweep_json_num(o, names[m], v[m]);
	return o;
}

char *report_sweep_json(const struct report_sweep *r)
{
	const struct sweep_table *t = &r->t;
	cJSON *root = cJSON_CreateObject(), *a;
	char *text, *out;

	cJSON_AddItemToObject(root, "format", escape_json_string("gcratchet-sweep"));
	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddNumberToObject(root, "session", (double)r->d.session.id);
	cJSON_AddItemToObject(root, "size", escape_json_string(r->d.session.size));
	cJSON_AddNumberToObject(root, "rounds", (double)r->d.session.rounds);
	cJSON_AddItemToObject(root, "status", escape_json_string(r->d.session.status));
	a = cJSON_AddArrayToObject(root, "factors");
	for (size_t f = 0; f < t->nfactors; f++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(t->factors[f]));
	a = cJSON_AddArrayToObject(root, "builds");
	for (size_t b = 0; b < t->nbuilds; b++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "name", escape_json_string(r->builds.items[b]));
		cJSON_AddItemToObject(o, "collector", escape_json_string(r->collectors[b]));
		cJSON_AddBoolToObject(o, "never_collects", report_sweep_never_collects(t, b));
		cJSON_AddItemToArray(a, o);
	}
	a = cJSON_AddArrayToObject(root, "probes");
	for (size_t p = 0; p < t->nprobes; p++) {
		cJSON *o = cJSON_CreateObject(), *pts;
		cJSON_AddItemToObject(o, "probe", escape_json_string(r->d.probes.items[p]));
		cJSON_AddItemToObject(o, "reference_build",
		                      escape_json_string(r->reference_build[p]));
		cJSON_AddNumberToObject(o, "reference_mb", (double)r->reference_mb[p]);
		cJSON_AddItemToObject(o, "best",
		                      report_sweep_json_metrics(&t->best[p * SWEEP_NMETRICS],
		                                                SWEEP_NMETRICS,
		                                                sweep_metric_names));
		cJSON_AddItemToObject(o, "lower_bound",
		                      report_sweep_json_metrics(&t->lower[p * SWEEP_NLBO],
		                                                SWEEP_NLBO, sweep_metric_names));
		pts = cJSON_AddArrayToObject(o, "points");
		for (size_t b = 0; b < t->nbuilds; b++)
			for (size_t f = 0; f < t->nfactors; f++) {
				const struct sweep_point *pt = sweep_point_at(t, p, b, f);
				cJSON *q = cJSON_CreateObject();
				char status[48];

				report_sweep_status(pt, status, sizeof status);
				cJSON_AddItemToObject(q, "build",
				                      escape_json_string(r->builds.items[b]));
				cJSON_AddNumberToObject(q, "factor", t->factors[f]);
				cJSON_AddNumberToObject(q, "heap_mb", (double)pt->heap_mb);
				cJSON_AddItemToObject(q, "status", escape_json_string(status));
				cJSON_AddNumberToObject(q, "runs", pt->runs);
				cJSON_AddNumberToObject(q, "ok", pt->ok);
				cJSON_AddNumberToObject(q, "heap_exhausted", pt->exhausted);
				cJSON_AddItemToObject(
				    q, "median",
				    report_sweep_json_metrics(pt->value, SWEEP_NMETRICS,
				                              sweep_metric_names));
				report_sweep_json_num(q, "gc_ns", pt->gc_ns);
				cJSON_AddItemToObject(
				    q, "normalised",
				    report_sweep_json_metrics(pt->norm, SWEEP_NMETRICS,
				                              sweep_metric_names));
				cJSON_AddItemToObject(q, "lbo",
				                      report_sweep_json_metrics(
				                          pt->lbo, SWEEP_NLBO, sweep_metric_names));
				cJSON_AddItemToArray(pts, q);
			}
		cJSON_AddItemToArray(a, o);
	}
	a = cJSON_AddArrayToObject(root, "geomean");
	for (size_t b = 0; b < t->nbuilds; b++)
		for (size_t f = 0; f < t->nfactors; f++) {
			size_t cell = b * t->nfactors + f;
			cJSON *q = cJSON_CreateObject();
			cJSON_AddItemToObject(q, "build", escape_json_string(r->builds.items[b]));
			cJSON_AddNumberToObject(q, "factor", t->factors[f]);
			cJSON_AddItemToObject(
			    q, "normalised",
			    report_sweep_json_metrics(&t->geo[cell * SWEEP_NMETRICS],
			                              SWEEP_NMETRICS, sweep_metric_names));
			cJSON_AddItemToObject(
			    q, "lbo",
			    report_sweep_json_metrics(&t->geo_lbo[cell * SWEEP_NLBO], SWEEP_NLBO,
			                              sweep_metric_names));
			cJSON_AddItemToArray(a, q);
		}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	out = xasprintf("%s\n", text);
	free(text);
	return out;
}

/* ---- HTML ----------------------------------------------------------------------------------- */

#define REPORT_SWEEP_PANEL_W 300

/*
 * One panel: a curve per build of y(p, b, f) over the factors; a point where the build ran
 * out of heap is an "x" on the floor. get returns NAN for no point.
 */
typedef double (*report_sweep_get_fn)(const struct report_sweep *r, size_t p, size_t b, size_t f,
                                      int m);

static double report_sweep_get_norm(const struct report_sweep *r, size_t p, size_t b, size_t f,
                                    int m)
{
	return sweep_point_at(&r->t, p, b, f)->norm[m];
}

static double report_sweep_get_lbo(const struct report_sweep *r, size_t p, size_t b, size_t f,
                                   int m)
{
	return sweep_point_at(&r->t, p, b, f)->lbo[m];
}

static double report_sweep_get_geo(const struct report_sweep *r, size_t p, size_t b, size_t f,
                                   int m)
{
	(void)p;
	return r->t.geo[(b * r->t.nfactors + f) * SWEEP_NMETRICS + (size_t)m];
}

static double report_sweep_get_geo_lbo(const struct report_sweep *r, size_t p, size_t b, size_t f,
                                       int m)
{
	(void)p;
	return r->t.geo_lbo[(b * r->t.nfactors + f) * SWEEP_NLBO + (size_t)m];
}

static void report_sweep_panel(struct sbuf *b, const struct report_sweep *r, size_t p, int m,
                               report_sweep_get_fn get, int geo, const char *title, size_t *index)
{
	const struct sweep_table *t = &r->t;
	const double L0 = 48, L1 = REPORT_SWEEP_PANEL_W - 10;
	double lo = 1, hi = 1;
	int any = 0;

	for (size_t bi = 0; bi < t->nbuilds; bi++)
		for (size_t f = 0; f < t->nfactors; f++) {
			double v = get(r, p, bi, f, m);
			if (isfinite(v)) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
				any = 1;
			}
		}
	sbuf_addf(b,
	          "<svg class=\"plot curve\" id=\"curve-%zu\" xmlns=\"http://www.w3.org/2000/svg\" "
	          "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
	          (*index)++, REPORT_SWEEP_PANEL_W, REPORT_HTML_HEIGHT, REPORT_SWEEP_PANEL_W,
	          REPORT_HTML_HEIGHT);
	escape_xml(b, geo ? "geometric mean" : r->d.probes.items[p]);
	sbuf_addf(b, " %s\">\n<text x=\"%.1f\" y=\"14\" font-weight=\"600\">%s</text>\n", title, L0,
	          title);
	if (!any) {
		sbuf_addf(b, "<text x=\"%.1f\" y=\"90\">no point</text></svg>\n", L0);
		return;
	}
	report_html_pad(&lo, &hi);
	report_html_axis(b, L0, L1, &lo, &hi, "sweep.ratio", 0);
	/* 1.0 is the best build at the largest heap (or, for an LBO, no overhead at all). */
	sbuf_addf(b,
	          "<line class=\"unity\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
	          "stroke=\"#666\" stroke-dasharray=\"4 3\"><title>1.0</title></line>\n",
	          L0, report_html_y(1, lo, hi), L1, report_html_y(1, lo, hi));
	for (size_t bi = 0; bi < t->nbuilds; bi++) {
		const char *color = report_html_color(bi);
		int open = 0;

		/* The curve: consecutive points joined, broken where one is missing. */
		for (size_t f = 0; f < t->nfactors; f++) {
			double v = get(r, p, bi, f, m);
			if (!isfinite(v)) {
				if (open)
					sbuf_addf(b, "\"/>\n");
				open = 0;
				continue;
			}
			if (!open)
				sbuf_addf(
				    b,
				    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
				    "points=\"",
				    color);
			sbuf_addf(b, "%.1f,%.1f ", report_html_x(f, t->nfactors, L0, L1),
			          report_html_y(v, lo, hi));
			open = 1;
		}
		if (open)
			sbuf_addf(b, "\"/>\n");
		for (size_t f = 0; f < t->nfactors; f++) {
			double v = get(r, p, bi, f, m), x = report_html_x(f, t->nfactors, L0, L1);
			char label[48];
			if (isfinite(v)) {
				report_html_marker(b, (int)(bi % 2), x, report_html_y(v, lo, hi),
				                   color);
				report_sweep_ratio(v, label, sizeof label);
				sbuf_addf(b, "<title>");
				escape_xml(b, r->builds.items[bi]);
				sbuf_addf(b, " at %gx: %s</title>", t->factors[f], label);
				report_html_marker_end(b, (int)(bi % 2));
			} else if (!geo && sweep_point_at(t, p, bi, f)->exhausted) {
				sbuf_addf(b,
				          "<text class=\"exhausted\" x=\"%.1f\" y=\"%.1f\" "
				          "text-anchor=\"middle\" style=\"fill:%s\">&#215;<title>",
				          x, REPORT_HTML_BOTTOM - 2 - 8.0 * (double)bi, color);
				escape_xml(b, r->builds.items[bi]);
				sbuf_addf(b, " at %gx: heap exhausted</title></text>",
				          t->factors[f]);
			}
		}
	}
	for (size_t f = 0; f < t->nfactors; f++)
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>",
		          report_html_x(f, t->nfactors, L0, L1), REPORT_HTML_BOTTOM + 13,
		          t->factors[f]);
	sbuf_addf(b,
	          "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">heap / reference minimum</text>"
	          "</svg>\n",
	          (L0 + L1) / 2, REPORT_HTML_HEIGHT - 4);
}

/* One figure: the normalised costs and the LBO of a probe, or of the geometric mean. */
static void report_sweep_figure(struct sbuf *b, const struct report_sweep *r, size_t p, int geo,
                                size_t *index)
{
	char title[64];

	sbuf_addf(b, "<figure class=\"sweep\"><figcaption><b>");
	if (geo) {
		sbuf_addf(b, "geometric mean over %zu probes</b>", r->t.nprobes);
	} else {
		escape_xml(b, r->d.probes.items[p]);
		sbuf_addf(b, "</b> &middot; reference minimum %lld MiB (",
		          (long long)r->reference_mb[p]);
		escape_xml(b, r->reference_build[p] ? r->reference_build[p] : "?");
		sbuf_addf(b, ")");
	}
	sbuf_addf(b, "</figcaption>\n<div class=\"grid\">\n");
	for (int m = 0; m < SWEEP_NMETRICS; m++) {
		if (!report_sweep_shown(r, m))
			continue;
		snprintf(title, sizeof title, "%s / best at largest heap", report_sweep_title[m]);
		report_sweep_panel(b, r, p, m, geo ? report_sweep_get_geo : report_sweep_get_norm,
		                   geo, title, index);
	}
	for (int k = 0; k < SWEEP_NLBO; k++) {
		snprintf(title, sizeof title, "LBO of %s", report_sweep_title[k]);
		report_sweep_panel(b, r, p, k,
		                   geo ? report_sweep_get_geo_lbo : report_sweep_get_lbo, geo,
		                   title, index);
	}
	sbuf_addf(b, "</div></figure>\n");
}

char *report_sweep_html(const struct report_sweep *r)
{
	const struct sweep_table *t = &r->t;
	char *title = xasprintf("gcratchet sweep, session %lld", (long long)r->d.session.id);
	struct sbuf b;
	size_t index = 0;
	char v[48];

	sbuf_init(&b);
	report_html_head(&b, title);
	sbuf_addf(&b, "<h1>");
	escape_xml(&b, title);
	sbuf_addf(&b, "</h1>\n<p class=\"meta\">size ");
	escape_xml(&b, r->d.session.size);
	sbuf_addf(&b, ", %lld round%s, status ", (long long)r->d.session.rounds,
	          r->d.session.rounds == 1 ? "" : "s");
	escape_xml(&b, r->d.session.status);
	sbuf_addf(&b, ", on ");
	escape_xml(&b, r->d.session.hostname ? r->d.session.hostname : "?");
	sbuf_addf(&b, ", started ");
	escape_xml(&b, r->d.session.started_at);
	sbuf_addf(&b, "<br><code>");
	escape_xml(&b, r->d.session.command ? r->d.session.command : "");
	sbuf_addf(&b, "</code></p>\n");
	if (!report_sweep_complete(r)) {
		sbuf_addf(&b, "<p><strong>The sweep is ");
		escape_xml(&b, r->d.session.status);
		sbuf_addf(&b, ":</strong> %s</p>\n", REPORT_SWEEP_PARTIAL);
	}
	sbuf_addf(&b,
	          "<p class=\"meta\">x: heap as a multiple of each probe's "
	          "reference minimum heap, the same absolute size for every build. y: the "
	          "median cost over the best build's at the largest heap (1 is the best), and "
	          "the lower-bound overhead: the cost over the smallest cost without GC work "
	          "any build showed (docs/sweeps.md); the dashed line is 1.0. &#215;: the "
	          "build ran out of heap there. %s</p>\n<p class=\"legend\">",
	          REPORT_SWEEP_FLOOR);
	for (size_t i = 0; i < t->nbuilds; i++) {
		sbuf_addf(&b, "<span><span class=\"sw\" style=\"background:%s\"></span>",
		          report_html_color(i));
		escape_xml(&b, r->builds.items[i]);
		sbuf_addf(&b, "</span>");
	}
	sbuf_addf(&b, "</p>\n<h2>Geometric mean</h2>\n");
	report_sweep_figure(&b, r, 0, 1, &index);
	sbuf_addf(&b, "<h2>Per probe</h2>\n");
	for (size_t p = 0; p < t->nprobes; p++)
		report_sweep_figure(&b, r, p, 0, &index);

	sbuf_addf(&b, "<h2>Lower-bound overhead of wall time</h2>\n<div class=\"scroll\"><table>\n"
	              "<tr><th class=\"l\">probe</th><th>lower bound</th>");
	for (size_t bi = 0; bi < t->nbuilds; bi++)
		for (size_t f = 0; f < t->nfactors; f++) {
			sbuf_addf(&b, "<th>");
			escape_xml(&b, r->builds.items[bi]);
			sbuf_addf(&b, " %gx</th>", t->factors[f]);
		}
	sbuf_addf(&b, "</tr>\n");
	for (size_t p = 0; p < t->nprobes; p++) {
		sbuf_addf(&b, "<tr><td class=\"l\">");
		escape_xml(&b, r->d.probes.items[p]);
		metrics_format_value("time.wall_ns", t->lower[p * SWEEP_NLBO + SWEEP_WALL], v,
		                     sizeof v);
		sbuf_addf(&b, "</td><td>%s</td>", v);
		for (size_t bi = 0; bi < t->nbuilds; bi++)
			for (size_t f = 0; f < t->nfactors; f++) {
				const struct sweep_point *pt = sweep_point_at(t, p, bi, f);
				if (pt->ok == 0 && pt->exhausted) {
					sbuf_addf(&b, "<td class=\"bad\">exhausted</td>");
					continue;
				}
				report_sweep_ratio(pt->lbo[SWEEP_WALL], v, sizeof v);
				sbuf_addf(&b, "<td>%s</td>", v);
			}
		sbuf_addf(&b, "</tr>\n");
	}
	sbuf_addf(&b, "</table></div>\n");
	report_html_tail(&b);
	free(title);
	return b.data;
}
