/*
 * pausestats.h — the arithmetic of the census's pause figures, pure and separate from the log
 * so that it is tested on synthetic logs with known answers (tests/unit/test_pausestats.c).
 *
 * Minimum mutator utilisation (Cheng & Blelloch): over a run's span [S, E], MMU(w) is the
 * smallest share of any window of length w inside the span that the mutator kept, that is
 * 1 - (most pause time overlapping any window [t, t + w], S <= t <= E - w) / w. A window
 * longer than the span is the span itself: MMU is then the run's overall utilisation. The
 * answer is exact: the paused time in a window is piecewise linear in t, so its maximum is
 * where a window starts at a pause's start or ends at a pause's end, or at S or E - w, and
 * those are all the windows looked at.
 *
 * Pause intervals are those of pauselog.h: sorted by start, not overlapping, inside the span
 * (gcr_pause_intervals_check says whether they are).
 */
#ifndef GCR_PAUSESTATS_H
#define GCR_PAUSESTATS_H

#include <stddef.h>
#include <stdint.h>

#include "pauselog.h"

/*
 * 0 when the n intervals are well formed for the span [span_start, span_end] (start <= end,
 * sorted, not overlapping, inside it); otherwise -1 with *bad the index of the first that is
 * not.
 */
int gcr_pause_intervals_check(const struct gcr_pause *p, size_t n, uint64_t span_start,
                              uint64_t span_end, size_t *bad);
/*
 * The most pause time, in ns, that overlaps any window of `window_ns` inside the span (the
 * whole span when the window is longer). O(n); the intervals must pass the check above.
 */
uint64_t gcr_mmu_max_paused_ns(const struct gcr_pause *p, size_t n, uint64_t span_start,
                               uint64_t span_end, uint64_t window_ns);
/* MMU at `window_ns`, 0..1, from the above; 1 for an empty span or a zero window. */
double gcr_mmu(const struct gcr_pause *p, size_t n, uint64_t span_start, uint64_t span_end,
               uint64_t window_ns);

/*
 * The nearest-rank quantile of n >= 1 sorted values: the smallest value with at least
 * q_per_10000 / 10000 of the values at or below it (q_per_10000 in 1..10000; 5000 is the
 * median, 9990 p99.9, 10000 the maximum).
 */
uint64_t gcr_quantile_sorted(const uint64_t *sorted, size_t n, unsigned q_per_10000);
/* Sorts n values ascending (for gcr_quantile_sorted). */
void gcr_sort_u64(uint64_t *v, size_t n);

#endif /* GCR_PAUSESTATS_H */
