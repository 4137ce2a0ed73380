/*
 * The hard heap limit's shared half (heaplimit.h): the knob and the exhaustion exit.
 */
#include "heaplimit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "knob.h"

uint64_t gcr_heap_max_bytes(const char *collector)
{
	return gcr_knob(collector, "GCR_HEAP_MAX_MB", 0, 1, GCR_HEAP_MAX_MB_MAX) << 20;
}

_Noreturn void gcr_heap_exhausted(const char *collector, uint64_t request_bytes,
                                  uint64_t heap_bytes, uint64_t max_bytes)
{
	fprintf(stderr,
	        "%s: heap exhausted: a request of %" PRIu64 " bytes does not fit: heap %" PRIu64
	        " bytes, limit %" PRIu64 " bytes (GCR_HEAP_MAX_MB=%" PRIu64 ")\n",
	        collector, request_bytes, heap_bytes, max_bytes, max_bytes >> 20);
	exit(GCR_EXIT_HEAP_EXHAUSTED);
}
