/*
 * epsilon — allocates and never collects: the lower bound every other collector is measured
 * against (no barrier, no tracing, no pauses). Memory comes from large mmap'd chunks carved by
 * a bump pointer; it is returned only at exit.
 *
 * Under GCR_HEAP_MAX_MB=N (heaplimit.h) epsilon counts the bytes it hands out (each request
 * rounded up to EPSILON_ALIGN) and exhausts the first time that total would pass N MiB: with
 * nothing to collect, that is the only thing a limit can mean. The whole limit is then mapped
 * as the first and only chunk, so no chunk-end tail is lost and what is mapped never passes N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gcr.h"
#include "heaplimit.h"
#include "plant.h"

#define EPSILON_CHUNK_BYTES ((size_t)64 << 20)
#define EPSILON_ALIGN       16u

static unsigned char *epsilon_cursor;
static unsigned char *epsilon_limit;
static uint64_t epsilon_alloc_bytes;
static uint64_t epsilon_alloc_objects;
static uint64_t epsilon_committed_bytes;
/* GCR_HEAP_MAX_MB in bytes; 0: no limit. */
static uint64_t epsilon_max_bytes;

static void epsilon_refill(size_t need)
{
	size_t len = need > EPSILON_CHUNK_BYTES ? need : EPSILON_CHUNK_BYTES;
	void *p;

	/*
	 * Under a limit the one chunk is the limit itself, so needing another means the bytes
	 * handed out would pass it; the check costs the allocation fast path nothing.
	 */
	if (epsilon_max_bytes != 0) {
		if (epsilon_committed_bytes != 0 || need > epsilon_max_bytes)
			gcr_heap_exhausted("epsilon", need,
			                   epsilon_committed_bytes -
			                       (uint64_t)(epsilon_limit - epsilon_cursor),
			                   epsilon_max_bytes);
		len = (size_t)epsilon_max_bytes;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "epsilon: out of memory mapping %zu bytes\n", len);
		abort();
	}
	epsilon_cursor = p;
	epsilon_limit = epsilon_cursor + len;
	epsilon_committed_bytes += len;
}

void gcr_init(void)
{
	epsilon_max_bytes = gcr_heap_max_bytes("epsilon");
	gcr_plant_init();
}

const char *gcr_name(void)
{
	return "epsilon";
}

const char *gcr_version(void)
{
	return GCR_COLLECTOR_VERSION;
}

unsigned gcr_capabilities(void)
{
	return 0;
}

void *gcr_alloc(uint32_t nptrs, uint32_t nbytes)
{
	size_t size = (size_t)nptrs * sizeof(void *) + nbytes;
	size_t rounded = (size + EPSILON_ALIGN - 1) & ~(size_t)(EPSILON_ALIGN - 1);
	void *obj;

	gcr_plant_on_alloc();
	if (rounded == 0)
		rounded = EPSILON_ALIGN;
	if ((size_t)(epsilon_limit - epsilon_cursor) < rounded)
		epsilon_refill(rounded);
	obj = epsilon_cursor;
	epsilon_cursor += rounded;
	/* Fresh mmap pages are zero, so the pointer slots already are. */
	epsilon_alloc_bytes += size;
	epsilon_alloc_objects++;
	return obj;
}

void gcr_write(void *obj, uint32_t i, void *val)
{
	((void **)obj)[i] = val;
}

void *gcr_read(void *obj, uint32_t i)
{
	return ((void **)obj)[i];
}

void gcr_collect(int kind)
{
	(void)kind;
	gcr_plant_settle(epsilon_alloc_objects);
}

void gcr_census(struct gcr_census *c)
{
	memset(c, 0, sizeof *c);
	gcr_census_set(c, GCR_C_MINOR_COLLECTIONS, 0);
	gcr_census_set(c, GCR_C_MAJOR_COLLECTIONS, 0);
	gcr_census_set(c, GCR_C_ALLOC_BYTES, epsilon_alloc_bytes);
	gcr_census_set(c, GCR_C_ALLOC_OBJECTS, epsilon_alloc_objects);
	gcr_census_set(c, GCR_C_FREED_BYTES, 0);
	gcr_census_set(c, GCR_C_FREED_OBJECTS, 0);
	gcr_census_set(c, GCR_C_HEAP_COMMITTED_PEAK_BYTES, epsilon_committed_bytes);
	gcr_census_set(c, GCR_C_HEAP_USED_AFTER_FULL_BYTES, epsilon_alloc_bytes);
	gcr_census_set(c, GCR_C_PAUSE_TOTAL_NS, 0);
	gcr_census_set(c, GCR_C_PAUSE_MAX_NS, 0);
}
