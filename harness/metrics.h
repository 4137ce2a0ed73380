/*
 * metrics.h — the names of everything a run can measure, and a small set of named values.
 *
 * Metric names are "<meter group>.<what>_<unit>" and are stable: they key rows in the
 * database and rules in baseline profiles. Census metrics are "census.<field>" for every field
 * of GCR_CENSUS_FIELDS in gcr.h; perf metrics are "perf.<event>" and "perf.<event>.scale" for
 * any event libpfm4 encodes; the rest are listed in metrics_known below.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"
#include "runner.h"

struct metric {
	char *name;
	double value;
};

struct metric_set {
	struct metric *items;
	size_t n, cap;
};

void metric_set_add(struct metric_set *s, const char *name, double value);
/* Pointer to the value, or NULL when absent. */
const double *metric_set_get(const struct metric_set *s, const char *name);
void metric_set_release(struct metric_set *s);

/* Adds the external meters' figures of a finished run: time.*, rss.peak_bytes, os.*. */
void metrics_from_rusage(struct metric_set *s, const struct run_result *res);

/* 1 when `name` is a metric the harness can produce (census fields included). */
int metrics_is_known(const char *name);
/* The kind of run a metric is measured by: valgrind.* by valgrind runs, the rest by timed ones. */
enum run_kind metrics_run_kind(const char *name);
/* All known metric names, NULL-terminated; static storage. */
const char *const *metrics_known(void);

#endif /* METRICS_H */
