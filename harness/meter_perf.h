/*
 * meter_perf.h — hardware and software event counts of a probe, through libpfm4 and
 * perf_event_open.
 *
 * The harness encodes each event string with libpfm4 (anything it encodes: "instructions:u",
 * "cycles:u", "task-clock", a raw PMU event) and tries to open it on itself, so that a host
 * without a PMU is found out once per session, with the reason, before any run. The launcher
 * then opens the available events on each probe between fork and exec, disabled and
 * enabled-on-exec, inherited by the probe's threads, so the count covers the probe from exec
 * to exit and nothing of the harness; it reads TOTAL_TIME_ENABLED and TOTAL_TIME_RUNNING and
 * the harness scales a multiplexed count by enabled/running.
 *
 * Metrics: "perf.<event>" (the scaled count) and "perf.<event>.scale" (running/enabled:
 * 1 when the counter ran all the time).
 */
#ifndef METER_PERF_H
#define METER_PERF_H

#include <linux/perf_event.h>
#include <stddef.h>

#include "util.h"

#define METER_PERF_DEFAULT_EVENTS "instructions:u,cycles:u,task-clock"
#define METER_PERF_MAX_EVENTS     8

struct meter_perf_event {
	char *name;                  /* as the user wrote it */
	char *encoding;              /* libpfm4's fully qualified name */
	struct perf_event_attr attr; /* ready for perf_event_open on a child */
	int available;
	char *why; /* when not available: the reason and what would fix it */
};

struct meter_perf {
	struct meter_perf_event *events;
	size_t n;
};

/*
 * Encodes a comma-separated event list and probes each event on this host. -1 with a message
 * naming the event libpfm4 cannot encode; unavailable events are not an error (see `why`).
 */
int meter_perf_setup(const char *events, struct meter_perf *m, struct err *e);
void meter_perf_release(struct meter_perf *m);
/* How many events can count here. */
size_t meter_perf_available(const struct meter_perf *m);

/* The scaled count of a raw (value, enabled, running) reading; the ratio into *scale. */
double meter_perf_scale(unsigned long long value, unsigned long long enabled,
                        unsigned long long running, double *scale);

#endif /* METER_PERF_H */
