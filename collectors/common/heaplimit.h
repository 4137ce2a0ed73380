/*
 * heaplimit.h — the hard heap limit every shipped collector honours (GCR_HEAP_MAX_MB, gcr.h):
 * reading the knob, and the one way a run ends when the heap is exhausted.
 *
 * Each collector decides what it counts against the limit (docs/collectors.md says what, per
 * collector) and when a request cannot be met: only after a full collection has failed to
 * make room. This module owns what they share, so that every collector exhausts with the same
 * message and the same status, which the harness stores as `heap_exhausted`.
 */
#ifndef GCR_HEAPLIMIT_H
#define GCR_HEAPLIMIT_H

#include <stdint.h>

/* The exit status of a run whose heap was exhausted: distinct from a knob error (2). */
#define GCR_EXIT_HEAP_EXHAUSTED 3

/* The largest limit accepted, in MiB (the same bound as GCR_HEAP_MB's). */
#define GCR_HEAP_MAX_MB_MAX (UINT64_C(1) << 20)

/*
 * Reads GCR_HEAP_MAX_MB: the limit in bytes, or 0 when unset or empty (no limit). A value that
 * is not an integer from 1 to GCR_HEAP_MAX_MB_MAX exits with status 2 in the knob-error style
 * (gcr_knob in knob.h), naming `collector`.
 */
uint64_t gcr_heap_max_bytes(const char *collector);

/*
 * Ends the run: "<collector>: heap exhausted: ..." on stderr with the request, what the
 * collector counts as its heap when it gave up (after a full collection), and the limit (all in bytes, the limit also
 * in MiB), then exit status GCR_EXIT_HEAP_EXHAUSTED. Buffered stdout is flushed by exit, as
 * for any exit; a probe has printed no checksum by then.
 */
_Noreturn void gcr_heap_exhausted(const char *collector, uint64_t request_bytes,
                                  uint64_t heap_bytes, uint64_t max_bytes);

#endif /* GCR_HEAPLIMIT_H */
