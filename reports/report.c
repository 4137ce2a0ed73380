#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int report_metric_cmp(const void *a, const void *b)
{
	return strcmp(((const struct metric *)a)->name, ((const struct metric *)b)->name);
}

int report_data_load(struct store *st, int64_t id, struct report_data *out, struct err *e)
{
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (store_session_get(st, id, &out->session, e) != 0 ||
	    store_host_facts(st, out->session.host_id, &out->host_facts, e) != 0 ||
	    store_session_builds(st, id, &out->builds, &out->nbuilds, e) != 0)
		goto out;
	out->manifests = xcalloc(out->nbuilds, sizeof *out->manifests);
	for (size_t i = 0; i < out->nbuilds; i++)
		if (store_build_manifest(st, out->builds[i].id, &out->manifests[i], e) != 0)
			goto out;
	if (store_runs_load(st, id, -1, &out->runs, &out->nruns, e) != 0)
		goto out;
	strlist_split(&out->probes, out->session.probes ? out->session.probes : "");
	strlist_sort_probes(&out->probes);
	/* In byte order whichever engine stored them: a PostgreSQL collation may order otherwise. */
	for (size_t i = 0; i < out->nruns; i++)
		if (out->runs[i].metrics.n > 1)
			qsort(out->runs[i].metrics.items, out->runs[i].metrics.n,
			      sizeof *out->runs[i].metrics.items, report_metric_cmp);
	rc = 0;
out:
	if (rc != 0)
		report_data_release(out);
	return rc;
}

void report_data_release(struct report_data *d)
{
	store_session_release(&d->session);
	free(d->host_facts);
	for (size_t i = 0; d->manifests && i < d->nbuilds; i++)
		free(d->manifests[i]);
	free(d->manifests);
	store_builds_release(d->builds, d->nbuilds);
	store_runs_release(d->runs, d->nruns);
	strlist_release(&d->probes);
	memset(d, 0, sizeof *d);
}

long report_data_arm_index(const struct report_data *d, int arm)
{
	for (size_t i = 0; i < d->nbuilds; i++)
		if (d->builds[i].position == arm)
			return (long)i;
	return -1;
}

long report_data_arm_named(const struct report_data *d, const char *label)
{
	for (size_t i = 0; i < d->nbuilds; i++)
		if (d->builds[i].label && strcmp(d->builds[i].label, label) == 0)
			return (long)i;
	return -1;
}

void report_format_delta(const char *metric, double v, char *buf, size_t size)
{
	char tmp[48];

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	metrics_format_value(metric, fabs(v), tmp, sizeof tmp);
	snprintf(buf, size, "%s%s", v > 0 ? "+" : v < 0 ? "-" : "", tmp);
}

void report_format_pct(double pct, char *buf, size_t size)
{
	double a = fabs(pct);

	if (!isfinite(pct))
		snprintf(buf, size, "-");
	else if (pct == 0)
		snprintf(buf, size, "0%%");
	else if (a < 0.001)
		snprintf(buf, size, "%+.1e%%", pct);
	else if (a < 0.1)
		snprintf(buf, size, "%+.3f%%", pct);
	else
		snprintf(buf, size, "%+.2f%%", pct);
}

void report_budget_init(struct report_budget *bg, struct sbuf *b)
{
	bg->b = b;
	bg->limit = REPORT_MD_CAP - REPORT_MD_TAIL;
	bg->dropped = 0;
}

int report_budget_add(struct report_budget *bg, const char *text)
{
	size_t n = strlen(text);

	if (bg->dropped == 0 && bg->b->len + n < bg->limit) {
		sbuf_add(bg->b, text, n);
		return 1;
	}
	/* Once a row is cut every later one is too: what is shown is a prefix, in order. */
	bg->dropped++;
	return 0;
}

void report_budget_note(struct report_budget *bg)
{
	if (bg->dropped)
		sbuf_addf(bg->b,
		          "\n_%zu more row%s in the artifact (the HTML and JSON reports)._\n",
		          bg->dropped, bg->dropped == 1 ? "" : "s");
	bg->dropped = 0;
}

int report_step_summary(const char *md, struct err *e)
{
	const char *path = getenv("GITHUB_STEP_SUMMARY");
	FILE *f;
	int rc = 0;

	if (!path || !*path)
		return 0;
	f = fopen(path, "a");
	if (!f)
		return err_setc(e, ERR_IO, "GITHUB_STEP_SUMMARY=%s: %s", path, strerror(errno));
	if (fputs(md, f) < 0 || fputs("\n", f) < 0)
		rc = err_setc(e, ERR_IO, "GITHUB_STEP_SUMMARY=%s: write failed", path);
	if (fclose(f) != 0 && rc == 0)
		rc = err_setc(e, ERR_IO, "GITHUB_STEP_SUMMARY=%s: %s", path, strerror(errno));
	return rc;
}

/* The metric's values over the probe's measured, successful runs of the arm. */
static size_t report_summary_values(const struct report_data *d, const char *probe, int arm,
                                    const char *metric, double *out)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nruns; i++) {
		const struct store_run *r = &d->runs[i];
		const double *v;

		if (r->arm != arm || r->warmup || r->status != RUN_STATUS_OK ||
		    strcmp(r->probe, probe) != 0 || !(v = metric_set_get(&r->metrics, metric)))
			continue;
		out[n++] = *v;
	}
	return n;
}

struct report_summary *report_summary_load(const struct report_data *d)
{
	struct report_summary *s = xcalloc(1, sizeof *s);
	double *vals = xcalloc(d->nruns ? d->nruns : 1, sizeof *vals);
	int arm = d->nbuilds ? d->builds[0].position : 0;

	s->probes = xcalloc(d->probes.n ? d->probes.n : 1, sizeof *s->probes);
	for (size_t p = 0; p < d->probes.n; p++) {
		struct report_summary_probe *sp = &s->probes[s->nprobes++];
		struct strlist seen = {0};

		sp->probe = d->probes.items[p];
		for (size_t i = 0; i < d->nruns; i++) {
			const struct store_run *r = &d->runs[i];

			if (r->arm != arm || r->warmup || strcmp(r->probe, sp->probe) != 0)
				continue;
			sp->runs++;
			if (r->status != RUN_STATUS_OK)
				continue;
			sp->ok++;
			if (!sp->checksum)
				sp->checksum = r->checksum;
			/* Metrics in the order the runs carry them, each once. */
			for (size_t m = 0; m < r->metrics.n; m++) {
				const char *name = r->metrics.items[m].name;
				struct report_summary_cell *c;
				struct stats_summary st;

				if (strlist_contains(&seen, name))
					continue;
				strlist_push(&seen, name);
				stats_summarize(
				    vals, report_summary_values(d, sp->probe, arm, name, vals),
				    &st);
				sp->cells =
				    xrealloc(sp->cells, (sp->ncells + 1) * sizeof *sp->cells);
				c = &sp->cells[sp->ncells++];
				c->metric = name;
				c->n = st.n;
				c->median = st.median;
				c->min = st.min;
				c->max = st.max;
			}
		}
		strlist_release(&seen);
	}
	free(vals);
	return s;
}

void report_summary_release(struct report_summary *s)
{
	if (!s)
		return;
	for (size_t p = 0; p < s->nprobes; p++)
		free(s->probes[p].cells);
	free(s->probes);
	free(s);
}
