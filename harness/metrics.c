#include "metrics.h"

#include <stdlib.h>
#include <string.h>

#include "gcr.h"
#include "util.h"

#define METRICS_CENSUS_NAME_(id, name) "census." name,
static const char *const metrics_names[] = {
    "time.wall_ns",          "time.user_ns",
    "time.sys_ns",           "rss.peak_bytes",
    "os.minor_faults",       "os.major_faults",
    "os.voluntary_switches", "os.involuntary_switches",
    "memory.vm_hwm_bytes",   "memory.rss_anon_bytes",
    "valgrind.ir",           GCR_CENSUS_FIELDS(METRICS_CENSUS_NAME_) NULL,
};
#undef METRICS_CENSUS_NAME_

void metric_set_add(struct metric_set *s, const char *name, double value)
{
	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->items[i].name, name) == 0) {
			s->items[i].value = value;
			return;
		}
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		s->items = xrealloc(s->items, s->cap * sizeof *s->items);
	}
	s->items[s->n].name = xstrdup(name);
	s->items[s->n].value = value;
	s->n++;
}

const double *metric_set_get(const struct metric_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->items[i].name, name) == 0)
			return &s->items[i].value;
	return NULL;
}

void metric_set_release(struct metric_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i].name);
	free(s->items);
	s->items = NULL;
	s->n = s->cap = 0;
}

void metrics_from_rusage(struct metric_set *s, const struct run_result *res)
{
	metric_set_add(s, "time.wall_ns", (double)res->wall_ns);
	metric_set_add(s, "time.user_ns", (double)res->user_ns);
	metric_set_add(s, "time.sys_ns", (double)res->sys_ns);
	metric_set_add(s, "rss.peak_bytes", (double)res->maxrss_bytes);
	metric_set_add(s, "os.minor_faults", (double)res->minflt);
	metric_set_add(s, "os.major_faults", (double)res->majflt);
	metric_set_add(s, "os.voluntary_switches", (double)res->nvcsw);
	metric_set_add(s, "os.involuntary_switches", (double)res->nivcsw);
}

enum run_kind metrics_run_kind(const char *name)
{
	return strncmp(name, "valgrind.", 9) == 0 ? RUN_KIND_VALGRIND : RUN_KIND_TIMED;
}

int metrics_is_known(const char *name)
{
	/* perf.<event> and perf.<event>.scale: any event libpfm4 encodes. */
	if (strncmp(name, "perf.", 5) == 0 && name[5] != '\0')
		return 1;
	for (size_t i = 0; metrics_names[i]; i++)
		if (strcmp(metrics_names[i], name) == 0)
			return 1;
	return 0;
}

const char *const *metrics_known(void)
{
	return metrics_names;
}
