/* The pause log (pauselog.h): one static log per program, as there is one collector. */
#include "pauselog.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static struct gcr_pause gcr_pause_buf[GCR_PAUSE_LOG_CAP];
static struct gcr_pause_log gcr_pause_log_;
static struct gcr_pause gcr_pause_open_; /* start and the thread's CPU clock at the start */
static int gcr_pause_is_open;

static uint64_t gcr_pause_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void gcr_pause_begin(void)
{
	if (gcr_pause_is_open) {
		fprintf(stderr, "gcr_pause_begin: a pause is already open (a collector bug)\n");
		abort();
	}
	gcr_pause_is_open = 1;
	/*
	 * The wall interval is the collector's work alone: the thread-CPU clock is a system call
	 * (one to several us on a VM), read outside it, so it is the CPU interval that carries
	 * the clocks' cost. For pauses of a few us the CPU time can then exceed the wall time;
	 * for real pauses the difference is noise.
	 */
	gcr_pause_open_.cpu_ns = gcr_pause_clock(CLOCK_THREAD_CPUTIME_ID);
	gcr_pause_open_.start_ns = gcr_pause_clock(CLOCK_MONOTONIC);
}

uint64_t gcr_pause_end(uint64_t minor, uint64_t major)
{
	struct gcr_pause_log *l = &gcr_pause_log_;
	uint64_t end = gcr_pause_clock(CLOCK_MONOTONIC);
	uint64_t cpu = gcr_pause_clock(CLOCK_THREAD_CPUTIME_ID) - gcr_pause_open_.cpu_ns;
	uint64_t wall = end - gcr_pause_open_.start_ns;

	if (!gcr_pause_is_open) {
		fprintf(stderr, "gcr_pause_end: no pause is open (a collector bug)\n");
		abort();
	}
	gcr_pause_is_open = 0;
	if (l->count < GCR_PAUSE_LOG_CAP) {
		struct gcr_pause *p = &gcr_pause_buf[l->count];

		p->start_ns = gcr_pause_open_.start_ns;
		p->end_ns = end;
		p->cpu_ns = cpu;
	} else {
		l->dropped++;
	}
	l->count++;
	l->minor += minor;
	l->major += major;
	l->wall_total_ns += wall;
	l->cpu_total_ns += cpu;
	/* Stores, not branches on the clock: Ir must not depend on how long a pause took. */
	l->wall_max_ns = wall > l->wall_max_ns ? wall : l->wall_max_ns;
	l->cpu_max_ns = cpu > l->cpu_max_ns ? cpu : l->cpu_max_ns;
	l->hist_wall[gcr_pause_bucket(wall)]++;
	l->hist_cpu[gcr_pause_bucket(cpu)]++;
	return wall;
}

const struct gcr_pause_log *gcr_pause_log(void)
{
	gcr_pause_log_.pauses = gcr_pause_buf;
	gcr_pause_log_.n = gcr_pause_log_.count < GCR_PAUSE_LOG_CAP ? (size_t)gcr_pause_log_.count
	                                                            : GCR_PAUSE_LOG_CAP;
	return &gcr_pause_log_;
}

void gcr_pause_log_storage(void **start, size_t *len)
{
	*start = gcr_pause_buf;
	*len = sizeof gcr_pause_buf;
}
