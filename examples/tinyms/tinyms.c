/*
 * tinyms — the smallest honest collector for gcratchet: precise, non-moving mark-sweep on top
 * of malloc. It is the worked example of docs/out-of-tree.md, written against
 * collectors/include/gcr.h alone, and it lives outside collectors/ on purpose: copy this
 * folder anywhere and build it with
 *
 *   make collector COLLECTOR_DIR=/path/to/tinyms
 *
 * Layout: every object is one calloc'd block, a struct tms_obj header followed by the object
 * the probe sees (nptrs pointer slots, then nbytes raw bytes). calloc zeroes the slots, as the
 * ABI requires. Every object is on one list, newest first, which the sweep walks.
 *
 * Collection: mark from the shadow stack only (gcr_roots_top), with an explicit stack (a
 * recursive marker overflows on a million-node list), then sweep the list, freeing what is not
 * marked. Policy: collect when the bytes allocated since the last collection exceed
 * max(GCR_HEAP_MB, live bytes after the last collection). It reads only byte and object
 * counts, so every census counter but the pause times is the same on every run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcr.h"

#define TMS_DEFAULT_HEAP_MB 4u
#define TMS_MAX_HEAP_MB     UINT64_C(1048576)

struct tms_obj {
	struct tms_obj *next; /* the list of every object */
	uint32_t nptrs;
	uint32_t nbytes;
	uint64_t marked; /* a whole word keeps slot 0 aligned for any pointer or u64 */
};

static struct tms_obj *tms_all;
static void **tms_stack;
static size_t tms_stack_len, tms_stack_cap;

/* Knobs. tms_max_bytes 0: no hard limit. */
static uint64_t tms_budget_bytes, tms_max_bytes;
static uint64_t tms_zeal, tms_zeal_count;

/* What the policy reads, in heap bytes (headers included). */
static uint64_t tms_since_gc_bytes, tms_live_bytes, tms_heap_bytes;

/* The census. Byte counts are requested sizes, nptrs * 8 + nbytes, as gcr.h's users expect. */
static uint64_t tms_collections, tms_alloc_bytes, tms_alloc_objects;
static uint64_t tms_freed_bytes, tms_freed_objects, tms_peak_bytes, tms_used_after_full;
static uint64_t tms_pause_total_ns, tms_pause_max_ns;

static struct tms_obj *tms_header(void *obj)
{
	return (struct tms_obj *)obj - 1;
}

static uint64_t tms_requested(const struct tms_obj *o)
{
	return (uint64_t)o->nptrs * sizeof(void *) + o->nbytes;
}

static uint64_t tms_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The ABI's rule for knobs: unset or empty is the default; anything else not in range exits 2. */
static uint64_t tms_knob(const char *name, uint64_t dflt, uint64_t min, uint64_t max)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0')
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || errno != 0 || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "tinyms: %s=%s: expected an integer from %llu to %llu\n", name, s,
		        (unsigned long long)min, (unsigned long long)max);
		exit(2);
	}
	return v;
}

static void tms_push(void *obj)
{
	if (tms_stack_len == tms_stack_cap) {
		size_t cap = tms_stack_cap ? 2 * tms_stack_cap : 1024;
		void **s = realloc(tms_stack, cap * sizeof *s);

		if (s == NULL) {
			fprintf(stderr, "tinyms: out of memory growing the mark stack\n");
			abort();
		}
		tms_stack = s;
		tms_stack_cap = cap;
	}
	tms_stack[tms_stack_len++] = obj;
}

static void tms_mark(void)
{
	for (struct gcr_frame *f = gcr_roots_top; f != NULL; f = f->prev) {
		for (uint32_t i = 0; i < f->nslots; i++) {
			if (*f->slots[i] != NULL)
				tms_push(*f->slots[i]);
		}
	}
	while (tms_stack_len > 0) {
		void **obj = tms_stack[--tms_stack_len];
		struct tms_obj *o = tms_header(obj);

		if (o->marked)
			continue;
		o->marked = 1;
		for (uint32_t i = 0; i < o->nptrs; i++) {
			if (obj[i] != NULL)
				tms_push(obj[i]);
		}
	}
}

static void tms_sweep(void)
{
	struct tms_obj **link = &tms_all;
	struct tms_obj *o;

	tms_live_bytes = 0;
	tms_used_after_full = 0;
	while ((o = *link) != NULL) {
		uint64_t size = tms_requested(o);

		if (o->marked) {
			o->marked = 0;
			tms_live_bytes += sizeof *o + size;
			tms_used_after_full += size;
			link = &o->next;
			continue;
		}
		*link = o->next;
		tms_heap_bytes -= sizeof *o + size;
		tms_freed_bytes += size;
		tms_freed_objects++;
		free(o);
	}
}

static void tms_collect(void)
{
	uint64_t t0 = tms_now_ns(), pause;

	tms_mark();
	tms_sweep();
	tms_since_gc_bytes = 0;
	tms_collections++;
	pause = tms_now_ns() - t0;
	tms_pause_total_ns += pause;
	if (pause > tms_pause_max_ns)
		tms_pause_max_ns = pause;
}

/* ---- The ABI ------------------------------------------------------------------------------ */

void gcr_init(void)
{
	tms_budget_bytes = tms_knob("GCR_HEAP_MB", TMS_DEFAULT_HEAP_MB, 1, TMS_MAX_HEAP_MB) << 20;
	tms_zeal = tms_knob("GCR_ZEAL", 0, 0, UINT32_MAX);
	/* The hard limit is the stronger promise: a budget above it is capped to it. */
	tms_max_bytes = tms_knob("GCR_HEAP_MAX_MB", 0, 1, TMS_MAX_HEAP_MB) << 20;
	if (tms_max_bytes != 0 && tms_budget_bytes > tms_max_bytes)
		tms_budget_bytes = tms_max_bytes;
}

const char *gcr_name(void)
{
	return "tinyms";
}

const char *gcr_version(void)
{
	/* COLLECTOR_VERSION in collector.mk, passed by the build as a string macro. */
	return GCR_COLLECTOR_VERSION;
}

unsigned gcr_capabilities(void)
{
	return GCR_CAP_COLLECTS | GCR_CAP_PRECISE;
}

void *gcr_alloc(uint32_t nptrs, uint32_t nbytes)
{
	uint64_t size = (uint64_t)nptrs * sizeof(void *) + nbytes;
	uint64_t limit = tms_live_bytes > tms_budget_bytes ? tms_live_bytes : tms_budget_bytes;
	struct tms_obj *o;

	if (tms_zeal != 0 && ++tms_zeal_count >= tms_zeal) {
		tms_zeal_count = 0;
		tms_collect();
	} else if (tms_since_gc_bytes + sizeof *o + size > limit ||
	           (tms_max_bytes != 0 && tms_heap_bytes + sizeof *o + size > tms_max_bytes)) {
		tms_collect();
	}
	/* GCR_HEAP_MAX_MB: what still does not fit after a full collection ends the run, status 3. */
	if (tms_max_bytes != 0 && tms_heap_bytes + sizeof *o + size > tms_max_bytes) {
		fprintf(stderr,
		        "tinyms: heap exhausted: a request of %llu bytes does not fit: heap %llu "
		        "bytes after a full collection, limit %llu bytes\n",
		        (unsigned long long)(sizeof *o + size), (unsigned long long)tms_heap_bytes,
		        (unsigned long long)tms_max_bytes);
		exit(3);
	}
	o = calloc(1, sizeof *o + size);
	if (o == NULL) {
		fprintf(stderr, "tinyms: out of memory allocating %llu bytes\n",
		        (unsigned long long)size);
		abort();
	}
	o->nptrs = nptrs;
	o->nbytes = nbytes;
	o->next = tms_all;
	tms_all = o;

	tms_since_gc_bytes += sizeof *o + size;
	tms_heap_bytes += sizeof *o + size;
	if (tms_heap_bytes > tms_peak_bytes)
		tms_peak_bytes = tms_heap_bytes;
	tms_alloc_bytes += size;
	tms_alloc_objects++;
	return o + 1;
}

void gcr_write(void *obj, uint32_t i, void *val)
{
	/* Non-moving and non-generational: a write needs no barrier. */
	((void **)obj)[i] = val;
}

void *gcr_read(void *obj, uint32_t i)
{
	return ((void **)obj)[i];
}

void gcr_collect(int kind)
{
	/* No nursery: a minor collection is a full one. */
	(void)kind;
	tms_collect();
}

void gcr_census(struct gcr_census *c)
{
	memset(c, 0, sizeof *c);
	gcr_census_set(c, GCR_C_MINOR_COLLECTIONS, 0);
	gcr_census_set(c, GCR_C_MAJOR_COLLECTIONS, tms_collections);
	gcr_census_set(c, GCR_C_ALLOC_BYTES, tms_alloc_bytes);
	gcr_census_set(c, GCR_C_ALLOC_OBJECTS, tms_alloc_objects);
	gcr_census_set(c, GCR_C_FREED_BYTES, tms_freed_bytes);
	gcr_census_set(c, GCR_C_FREED_OBJECTS, tms_freed_objects);
	gcr_census_set(c, GCR_C_HEAP_COMMITTED_PEAK_BYTES, tms_peak_bytes);
	/* Unknown until a collection has measured it: absent, not zero. */
	if (tms_collections != 0)
		gcr_census_set(c, GCR_C_HEAP_USED_AFTER_FULL_BYTES, tms_used_after_full);
	gcr_census_set(c, GCR_C_PAUSE_TOTAL_NS, tms_pause_total_ns);
	gcr_census_set(c, GCR_C_PAUSE_MAX_NS, tms_pause_max_ns);
}
