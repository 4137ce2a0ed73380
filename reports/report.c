#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (store_runs_load(st, id, 0, &out->runs, &out->nruns, e) != 0)
		goto out;
	strlist_split(&out->probes, out->session.probes ? out->session.probes : "");
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

long report_data_build_index(const struct report_data *d, int64_t build_id)
{
	for (size_t i = 0; i < d->nbuilds; i++)
		if (d->builds[i].id == build_id)
			return (long)i;
	return -1;
}

long report_data_build_named(const struct report_data *d, const char *name)
{
	for (size_t i = 0; i < d->nbuilds; i++)
		if (strcmp(d->builds[i].name, name) == 0)
			return (long)i;
	return -1;
}

static int report_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

void report_format_value(const char *metric, double v, char *buf, size_t size)
{
	double a = fabs(v);

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
	} else if (report_ends_with(metric, "_bytes") && strncmp(metric, "census.", 7) != 0) {
		if (a >= 1024.0 * 1024 * 1024)
			snprintf(buf, size, "%.3f GiB", v / (1024.0 * 1024 * 1024));
		else if (a >= 1024.0 * 1024)
			snprintf(buf, size, "%.2f MiB", v / (1024.0 * 1024));
		else if (a >= 1024.0)
			snprintf(buf, size, "%.1f KiB", v / 1024.0);
		else
			snprintf(buf, size, "%.0f B", v);
	} else if (report_ends_with(metric, "_ns")) {
		if (a >= 1e9)
			snprintf(buf, size, "%.3f s", v / 1e9);
		else if (a >= 1e6)
			snprintf(buf, size, "%.2f ms", v / 1e6);
		else if (a >= 1e3)
			snprintf(buf, size, "%.1f us", v / 1e3);
		else
			snprintf(buf, size, "%.0f ns", v);
	} else if (v == floor(v) && a < 1e18) {
		/* Counters (census, Ir) are exact, and compared exactly: every digit. */
		snprintf(buf, size, "%.0f", v);
	} else {
		snprintf(buf, size, "%.4g", v);
	}
}

void report_format_delta(const char *metric, double v, char *buf, size_t size)
{
	char tmp[48];

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	report_format_value(metric, fabs(v), tmp, sizeof tmp);
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
