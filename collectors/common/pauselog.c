/* The pause log (pauselog.h): one static log per program, as there is one collector. */
#include "pauselog.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/*
 * Everything the log keeps, in one object, so that a conservative collector can leave all of
 * it out of its roots (gcr_pause_log_storage): the thread's CPU clock at a pause's start, the
 * totals and the intervals are numbers that may look like heap addresses (under valgrind
 * libgc's heap starts near 80 MB, and a CPU clock of 0.1 s is 100,000,000), and a clock value
 * taken for a root keeps whatever it points into alive one run and not the next.
 */
static struct {
	struct gcr_pause buf[GCR_PAUSE_LOG_CAP];
	struct gcr_pause_log log;
	struct gcr_pause open; /* start and the thread's CPU clock at the start */
	int is_open;
} gcr_pause_state;

static uint64_t gcr_pause_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void gcr_pause_begin(void)
{
	if (gcr_pause_state.is_open) {
		fprintf(stderr, "gcr_pause_begin: a pause is already open (a collector bug)\n");
		abort();
	}
	gcr_pause_state.is_open = 1;
	/*
	 * The wall interval is the collector's work alone: the thread-CPU clock is a system call
	 * (one to several us on a VM), read outside it, so it is the CPU interval that carries
	 * the clocks' cost. For pauses of a few us the CPU time can then exceed the wall time;
	 * for real pauses the difference is noise.
	 */
	gcr_pause_state.open.cpu_ns = gcr_pause_clock(CLOCK_THREAD_CPUTIME_ID);
	gcr_pause_state.open.start_ns = gcr_pause_clock(CLOCK_MONOTONIC);
}

uint64_t gcr_pause_end(uint64_t minor, uint64_t major)
{
	struct gcr_pause_log *l = &gcr_pause_state.log;
	uint64_t end = gcr_pause_clock(CLOCK_MONOTONIC);
	uint64_t cpu = gcr_pause_clock(CLOCK_THREAD_CPUTIME_ID) - gcr_pause_state.open.cpu_ns;
	uint64_t wall = end - gcr_pause_state.open.start_ns;

	if (!gcr_pause_state.is_open) {
		fprintf(stderr, "gcr_pause_end: no pause is open (a collector bug)\n");
		abort();
	}
	gcr_pause_state.is_open = 0;
	if (l->count < GCR_PAUSE_LOG_CAP) {
		struct gcr_pause *p = &gcr_pause_state.buf[l->count];

		p->start_ns = gcr_pause_state.open.start_ns;
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
	struct gcr_pause_log *l = &gcr_pause_state.log;

	l->pauses = gcr_pause_state.buf;
	l->n = l->count < GCR_PAUSE_LOG_CAP ? (size_t)l->count : GCR_PAUSE_LOG_CAP;
	return l;
}

void gcr_pause_log_storage(void **start, size_t *len)
{
	*start = &gcr_pause_state;
	*len = sizeof gcr_pause_state;
}
