#include "report_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	free(d->origin);
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
