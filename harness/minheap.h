/*
 * minheap.h — the minimum-heap search: the smallest GCR_HEAP_MAX_MB (gcr.h) in which a probe
 * completes with its checksum.
 *
 * The search is pure: it asks an oracle whether the probe fits a limit, so it is tested on
 * synthetic oracles with known answers (tests/unit/test_minheap.c), and heapsearch.c gives
 * it one that runs the probe. docs/sweeps.md describes the method and its caveats.
 *
 * Method:
 * 1. Bracket: from the first guess (the heap the probe committed without a limit, rounded up
 *    to a MiB), double until a limit fits; the largest limit known not to fit is `lo` (0 when
 *    none was tried), the smallest that fits is `hi`.
 * 2. Bisect while hi - lo exceeds the granularity: max(1, hi / frac) MiB, a fraction of the
 *    current bound (frac 64: about 1.6%), never finer than 1 MiB since the knob is in MiB.
 * 3. Confirm: run at hi `repeats` times in all; a collector that is not deterministic (a
 *    conservative one reads its stack under ASLR) may fail there once in a while. A failure
 *    moves hi up by one granule and confirms again, so the answer is the largest limit found
 *    to be needed: the smallest at which every repeat fitted.
 *
 * Invariants:
 * - Every limit tried is from 1 to max_mb; the oracle is never asked about 0.
 * - A verdict other than fits or exhausted (a crash, a wrong checksum) ends the search with
 *   MINHEAP_FAILED and the oracle's words: a collector that breaks the ABI at a small heap
 *   has no minimum heap to report.
 */
#ifndef MINHEAP_H
#define MINHEAP_H

#include <stdint.h>

#include "util.h"

/* What one run at a limit showed. */
enum minheap_verdict {
	MINHEAP_FITS,      /* completed with the expected checksum */
	MINHEAP_EXHAUSTED, /* heap exhausted (exit 3), or killed at the time limit */
	MINHEAP_BROKEN,    /* anything else: crashed, failed, wrong or missing checksum */
};

/*
 * Runs the probe under a limit of limit_mb MiB. Returns 0 with *v (and, for MINHEAP_BROKEN,
 * a description in detail, up to detail_size bytes), or -1 with e when the harness could not
 * run it at all, which ends the search with that error.
 */
typedef int (*minheap_oracle_fn)(void *ctx, uint64_t limit_mb, enum minheap_verdict *v,
                                 char *detail, size_t detail_size, struct err *e);

struct minheap_params {
	uint64_t guess_mb; /* the first limit tried; 0: 1 */
	uint64_t max_mb;   /* the largest limit tried (GCR_HEAP_MAX_MB's own bound at most) */
	unsigned frac;     /* granularity: max(1, hi / frac) MiB; >= 1 */
	unsigned repeats;  /* runs at the answer in all, >= 1 */
};

enum minheap_outcome {
	MINHEAP_FOUND,      /* min_mb is the answer */
	MINHEAP_NEVER_FITS, /* not even max_mb fitted */
	MINHEAP_FAILED,     /* a run was MINHEAP_BROKEN: detail says how, at limit_mb */
};

struct minheap_result {
	enum minheap_outcome outcome;
	uint64_t min_mb;   /* FOUND: the smallest limit at which every repeat fitted */
	uint64_t lo_mb;    /* the largest limit seen not to fit; 0 when none */
	uint64_t step_mb;  /* the granularity at the end: min_mb - step_mb may fit too */
	uint64_t limit_mb; /* FAILED: the limit of the broken run */
	unsigned runs;     /* oracle calls */
	unsigned unsteady; /* repeats at a limit that had fitted once and then did not */
	char detail[256];  /* FAILED: the oracle's description */
};

/* The name stored and printed for an outcome: "found", "never_fits", "failed". */
const char *minheap_outcome_name(enum minheap_outcome o);

/*
 * Searches; 0 with *r filled (whatever the outcome), -1 with e when p is out of range
 * (ERR_INVALID) or the oracle failed.
 */
int minheap_search(const struct minheap_params *p, minheap_oracle_fn oracle, void *ctx,
                   struct minheap_result *r, struct err *e);

#endif /* MINHEAP_H */
