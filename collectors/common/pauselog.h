/*
 * pauselog.h — the pause log: one record per stop-the-world pause, kept by the collector and
 * read by the probe runtime, which turns it into the census's pause figures (quantiles, a
 * log2 histogram, minimum mutator utilisation; docs/census-protocol.md).
 *
 * A collector that keeps the log says so with GCR_CAP_PAUSE_LOG (gcr.h) and brackets every
 * pause with gcr_pause_begin() and gcr_pause_end(): from the moment the mutator stops to the
 * moment it may run again. Each pause records its wall interval (CLOCK_MONOTONIC) and the CPU
 * time the thread spent in it (CLOCK_THREAD_CPUTIME_ID): on a busy host a pause whose wall
 * time far exceeds its CPU time was descheduled, not working.
 *
 * Invariants:
 * - Pauses do not nest and do not overlap; the log holds them in the order they began.
 * - The aggregates (count, collections, totals, maxima, histograms) are exact for every pause.
 *   The intervals are kept in a fixed buffer of GCR_PAUSE_LOG_CAP: memory is bounded whatever
 *   the run does. Beyond the cap an interval is counted in `dropped` and not kept, and the
 *   figures that need every interval (quantiles, MMU) are then absent from the census rather
 *   than computed from a part of the run.
 * - Recording costs the same instructions whatever a pause lasted (no branch on a clock
 *   value), so valgrind's Ir does not move with pause lengths.
 */
#ifndef GCR_PAUSELOG_H
#define GCR_PAUSELOG_H

#include <stddef.h>
#include <stdint.h>

/* Intervals kept: 24 bytes each, 1.5 MiB of address space, touched only as pauses happen. */
#define GCR_PAUSE_LOG_CAP      (1u << 16)
/* Histogram buckets: bucket k counts pauses of [2^k, 2^(k+1)) ns (0 ns falls in bucket 0). */
#define GCR_PAUSE_HIST_BUCKETS 64

struct gcr_pause {
	uint64_t start_ns; /* CLOCK_MONOTONIC */
	uint64_t end_ns;   /* >= start_ns */
	uint64_t cpu_ns;   /* the thread's CPU time between the two */
};

struct gcr_pause_log {
	uint64_t count;        /* pauses ended */
	uint64_t minor, major; /* collections the pauses completed, as gcr_pause_end was told */
	uint64_t wall_total_ns, wall_max_ns;
	uint64_t cpu_total_ns, cpu_max_ns;
	uint64_t dropped; /* pauses beyond GCR_PAUSE_LOG_CAP: counted, interval not kept */
	uint64_t hist_wall[GCR_PAUSE_HIST_BUCKETS];
	uint64_t hist_cpu[GCR_PAUSE_HIST_BUCKETS];
	const struct gcr_pause *pauses; /* the first min(count, GCR_PAUSE_LOG_CAP) pauses */
	size_t n;
};

/* Marks the start of a pause. Calling it while a pause is open is a collector bug: aborts. */
void gcr_pause_begin(void);
/*
 * Marks the end of the open pause, which completed `minor` minor and `major` major
 * collections (as the census counts them; 0 and 0 for a pause that completed none, such as
 * an incremental collector's abandoned increment). Returns the pause's wall time in ns, which
 * the collector adds to its census pause_total_ns and pause_max_ns. Aborts when no pause is
 * open.
 */
uint64_t gcr_pause_end(uint64_t minor, uint64_t major);
/* The log so far; valid until the next gcr_pause_begin. */
const struct gcr_pause_log *gcr_pause_log(void);
/*
 * Where the log keeps everything it records: [*start, *start + *len), the intervals, the
 * totals and the open pause. It holds no pointers, only clock values and counts; a
 * conservative collector that scans static data as roots excludes it (bdwgc does). Scanned,
 * it would cost 1.5 MiB of timestamps at every collection, and its clock values would retain
 * whatever heap block they happened to look like a pointer into: under valgrind bdwgc's Ir on
 * 02_survivor_promotion moved by up to 4% between identical runs (docs/meters.md).
 */
void gcr_pause_log_storage(void **start, size_t *len);

/* The bucket of a duration: floor(log2(ns)), 0 for 0 and 1. */
static inline unsigned gcr_pause_bucket(uint64_t ns)
{
	return 63u - (unsigned)__builtin_clzll(ns | 1u);
}

#endif /* GCR_PAUSELOG_H */
