/*
 * heapgate.h — the min-heap ratchet's figure: a probe's minimum heap for a build, as the
 * metric HEAPGATE_METRIC on that build's runs, so a baseline can pin it and check can judge
 * it like any other cell (docs/sweeps.md, "The min-heap ratchet").
 *
 * The figure is not measured by a session: it is the newest answer `gcratchet minheap` stored
 * for the same build (its manifest), probe and size on the session's host. Loaded runs get it
 * in memory, never in the store; a run already holding it keeps its own.
 *
 * Invariants:
 * - Only ok timed runs that are not warm-ups get the figure, so its median over a probe's runs
 *   is the stored answer itself, and a probe whose runs failed stays unjudged.
 * - A search that did not find a minimum (never_fits, failed) gives no figure: the cell is
 *   then unjudged, never passed.
 */
#ifndef HEAPGATE_H
#define HEAPGATE_H

#include <stddef.h>

#include "baseline.h"
#include "store.h"
#include "util.h"

/* MiB, deterministic for a precise collector; a regression is a probe needing more heap. */
#define HEAPGATE_METRIC "minheap.min_heap_mib"

struct heapgate_info {
	size_t probes;       /* probes of the runs that got a figure */
	size_t missing;      /* probes of the runs without a stored answer */
	size_t unsteady;     /* of the figures, answers whose search moved up at its boundary */
	double widest_mib;   /* the largest min - fails_at among the unsteady answers */
	int64_t widest_runs; /* the runs of the search that gave widest_mib (its evidence) */
};

/*
 * Adds the figure to the runs of `build` (an arm of session si) at the session's size.
 * 0 with *info, -1 with e when the store failed.
 */
int heapgate_annotate(struct store *st, const struct store_session *si,
                      const struct store_build *build, struct store_run *runs, size_t n,
                      struct heapgate_info *info, struct err *e);

/*
 * For baseline pin --minheap: a build whose search moved up at some boundary (info->unsteady:
 * a conservative collector, whose reachability moves with ASLR) is not deterministic there,
 * so its rule for HEAPGATE_METRIC gets an absolute band of the widest such move, at least
 * 1 MiB; a precise collector keeps the exact rule. Returns 1 when it widened the rule. Pin
 * applies it to a copy and writes the result as an override of each minimum-heap cell, with
 * the search as its evidence: a rule looser than pin's own is refused (baseline_validate).
 */
int heapgate_widen(struct baseline_rule *rules, size_t n, const struct heapgate_info *info);

#endif /* HEAPGATE_H */
