/*
 * sweep.h — the arithmetic of a heap-size sweep (docs/sweeps.md): the heap limits of a sweep,
 * and from the medians a sweep measured, the time–space curves (each cost normalised to the
 * best at the largest heap), their geometric mean over probes, and the lower-bound overhead
 * (LBO, Cai et al.).
 *
 * Pure: no store, no printing. cmd_sweep.c plans and runs a sweep; reports/report_sweep.c
 * fills a struct sweep_table from a stored session and renders it; tests/unit/test_sweep.c
 * checks the arithmetic on synthetic tables with known answers.
 *
 * Invariants:
 * - A table is probes x builds x factors points, factors ascending, each point the medians of
 *   the runs of one probe on one build at one factor; a figure nobody measured is NAN, never
 *   0, and every derived figure of a NAN is NAN.
 * - A point where the build ran out of heap (run status heap_exhausted) has exhausted > 0 and
 *   no figures when none of its runs completed.
 */
#ifndef SWEEP_H
#define SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/*
 * The costs a sweep draws, in this order in every array below. The first SWEEP_NLBO are the
 * ones the lower-bound overhead is computed for: the ones the collector's own GC time
 * (census.pause_total_ns) can be taken from. That is wall-clock time in pauses, so only wall
 * time: less it, CPU time would lose what the pauses spent preempted on a shared host, and
 * the bound would fall towards zero (docs/sweeps.md).
 */
enum sweep_metric {
	SWEEP_WALL, /* time.wall_ns */
	SWEEP_USER, /* time.user_ns */
	SWEEP_IR,   /* valgrind.ir: present only when the sweep ran the valgrind meter */
	SWEEP_RSS,  /* rss.peak_bytes */
	SWEEP_NMETRICS,
};
#define SWEEP_NLBO                1
/*
 * The clock's resolution: rusage counts time to the microsecond. A time below it is taken as
 * it in every ratio and geometric mean (a user time of 0 ns left the mean undefined).
 */
#define SWEEP_CLOCK_RESOLUTION_NS 1000.0
/* The metric names of enum sweep_metric, as in metrics.c. */
extern const char *const sweep_metric_names[SWEEP_NMETRICS];

#define SWEEP_FACTORS_MAX 32
/* A factor's bounds: below 1 is below the minimum heap, which cannot run. */
#define SWEEP_FACTOR_MIN  1.0
#define SWEEP_FACTOR_MAX  1000.0

/*
 * Parses "1.25,1.5,2" into ascending factors (at most SWEEP_FACTORS_MAX, each from
 * SWEEP_FACTOR_MIN to SWEEP_FACTOR_MAX, none twice). -1 with e (ERR_INVALID) naming `opt` and
 * the offending item.
 */
int sweep_parse_factors(const char *opt, const char *list, double *factors, size_t *n,
                        struct err *e);

/* The heap limit of a factor: ceil(factor * reference_mb) MiB, at least 1. */
uint64_t sweep_heap_mb(double factor, uint64_t reference_mb);

struct sweep_point {
	int runs;                     /* measured runs (warm-ups aside) */
	int ok;                       /* of which completed */
	int exhausted;                /* of which ran out of heap */
	int64_t heap_mb;              /* the limit it ran at */
	double value[SWEEP_NMETRICS]; /* medians over the completed runs; NAN when none */
	double gc_ns;                 /* median census.pause_total_ns; NAN when not reported */
	/* The most collections (minor + major) a completed run counted, the final full one
	 * included; NAN when a run did not report both counts. 0: no GC work at all. */
	double collections;
	/* Derived by sweep_derive: */
	double norm[SWEEP_NMETRICS]; /* value / the probe's best value at the largest heap */
	double lbo[SWEEP_NLBO];      /* value / the probe's lower bound; NAN without one */
};

struct sweep_table {
	size_t nprobes, nbuilds, nfactors;
	double factors[SWEEP_FACTORS_MAX];
	struct sweep_point *points; /* [probe][build][factor] */
	/* Derived by sweep_derive: */
	double *best;    /* [probe][metric]: the smallest value at the largest heap */
	double *lower;   /* [probe][SWEEP_NLBO]: the lower bound of the cost without GC work */
	double *geo;     /* [build][factor][metric]: geometric mean of norm over probes */
	double *geo_lbo; /* [build][factor][SWEEP_NLBO]: geometric mean of lbo over probes */
	size_t *geo_n;   /* [build][factor]: probes with a wall time there, of nprobes */
};

/* An empty table of that shape, every figure NAN; release with sweep_table_release. */
void sweep_table_init(struct sweep_table *t, size_t nprobes, size_t nbuilds, size_t nfactors);
void sweep_table_release(struct sweep_table *t);
struct sweep_point *sweep_point_at(const struct sweep_table *t, size_t probe, size_t build,
                                   size_t factor);

/*
 * Fills the derived figures:
 * - best[p][m]: the smallest value of metric m over the builds at the largest factor at
 *   which any build has one (a build that exhausted even there is left out);
 * - norm = value / best;
 * - lower[p][k] (wall time): the smallest over every build and factor of
 *   (value - gc_ns), counting only positive differences, and of the value of a point whose
 *   runs counted no collection at all (an epsilon build's, whose GC time is not reported);
 *   NAN when no build reported its GC time and no point went without collections;
 * - lbo = value / lower;
 * - geo and geo_lbo: per build and factor, the geometric mean over probes, NAN unless every
 *   probe has the figure (a mean over fewer probes would not compare with its neighbours).
 */
void sweep_derive(struct sweep_table *t);

#endif /* SWEEP_H */
