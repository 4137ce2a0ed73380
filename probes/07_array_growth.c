/*
 * 07_array_growth — growable pointer arrays: the vector / ArrayList pattern.
 *
 * Stresses: allocation of pointer arrays of doubling sizes (from small objects up to 1 MiB large
 * objects), bulk pointer copying through the barrier, and the death of each outgrown array. VECTORS
 * vectors grow side by side, one push each in turn. A vector is a header (1 pointer + 32 bytes: its
 * array; length, capacity, target, run) whose array starts with INITIAL_CAPACITY slots; a push
 * allocates a fresh element (16 bytes: run, value) and, when the array is full, allocates one twice
 * as big, copies every slot across with gcr_read / gcr_write and drops the old one. Each push also
 * reads back the element pushed READ_LAG pushes before in the same vector, and every
 * RANDOM_READ_EVERY pushes one at a random index. When a vector reaches its target length
 * (2^MIN_TARGET_LOG to 2^MAX_TARGET_LOG elements, drawn per vector run) it is verified element by
 * element and dropped, and a new run starts. For a generational collector the young elements copied
 * into a large, possibly old array are barrier stores. Per push: one 16-byte element and on average
 * ~16 bytes of arrays (the arrays of a vector add up to at most twice its final capacity), ~32
 * bytes in all.
 *
 * Premise: a collector that collects must free memory during the run (outgrown arrays and
 * finished vectors are garbage): freed_bytes > 0 when the run ends, before the runtime's final
 * full collection.
 *
 * Sizes (pushes): ci 600 000 (20 MB), default 10 000 000 (322 MB),
 *   large 100 000 000 (3.2 GB).
 *
 * Checksum: every element read back at a push, and every finished vector's elements in
 * order, then the unfinished vectors'. An element with the wrong run or index, or an array
 * slot left empty, aborts the probe with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define VECTORS           4u
#define INITIAL_CAPACITY  4u
#define MIN_TARGET_LOG    8u
#define MAX_TARGET_LOG    17u
#define READ_LAG          7u
#define RANDOM_READ_EVERY 64u

/* Header: slot 0 = the array; raw = length, capacity, target length, run. */
#define HDR_PTRS     1u
#define HDR_BYTES    32u
#define HDR_LENGTH   0u
#define HDR_CAPACITY 8u
#define HDR_TARGET   16u
#define HDR_RUN      24u
/* Element: raw = run, value. */
#define ELEM_BYTES   16u

/*
 * What the premise check reads: freed_bytes at the end of the run, before the final full
 * collection, which would free everything anyway.
 */
static uint64_t grow_freed_in_run;

static _Noreturn void grow_fail(uint64_t run, uint64_t i, const char *what, uint64_t found,
                                uint64_t expected)
{
	fprintf(stderr,
	        "07_array_growth: vector run %" PRIu64 ", element %" PRIu64 ": %s is %" PRIu64
	        ", expected %" PRIu64 "\n",
	        run, i, what, found, expected);
	abort();
}

static uint64_t grow_value(uint64_t run, uint64_t i)
{
	return (run << 32 | i) * UINT64_C(0xd1342543de82ef95) >> 7;
}

/* Checks element i of hdr's array and folds it into h. No allocation. */
static uint64_t grow_check(uint64_t h, void *hdr, uint64_t i)
{
	uint64_t run = probe_get_u64(hdr, HDR_PTRS, HDR_RUN);
	void *e = gcr_read(gcr_read(hdr, 0), (uint32_t)i);

	if (!e)
		grow_fail(run, i, "an empty slot, at index", i, i);
	if (probe_get_u64(e, 0, 0) != run)
		grow_fail(run, i, "the element's run", probe_get_u64(e, 0, 0), run);
	if (probe_get_u64(e, 0, 8) != grow_value(run, i))
		grow_fail(run, i, "the element's value", probe_get_u64(e, 0, 8),
		          grow_value(run, i));
	return probe_mix(h, probe_get_u64(e, 0, 8));
}

/* A fresh, empty vector for run `run` in slot v of *vecs. */
static void grow_start(void **vecs, void **hdr, void **arr, uint32_t v, uint64_t run, uint64_t *rng)
{
	uint32_t log =
	    MIN_TARGET_LOG + (uint32_t)(probe_rand(rng) % (MAX_TARGET_LOG - MIN_TARGET_LOG + 1));

	*hdr = gcr_alloc(HDR_PTRS, HDR_BYTES);
	probe_put_u64(*hdr, HDR_PTRS, HDR_LENGTH, 0);
	probe_put_u64(*hdr, HDR_PTRS, HDR_CAPACITY, INITIAL_CAPACITY);
	probe_put_u64(*hdr, HDR_PTRS, HDR_TARGET, UINT64_C(1) << log);
	probe_put_u64(*hdr, HDR_PTRS, HDR_RUN, run);
	gcr_write(*vecs, v, *hdr);
	*arr = gcr_alloc(INITIAL_CAPACITY, 0);
	gcr_write(*hdr, 0, *arr);
	*hdr = *arr = NULL;
}

/* Doubles *hdr's array: a new array, every slot copied across, the old one dropped. */
static void grow_double(void **hdr, void **arr, void **fresh)
{
	uint64_t len = probe_get_u64(*hdr, HDR_PTRS, HDR_LENGTH);
	uint64_t cap = probe_get_u64(*hdr, HDR_PTRS, HDR_CAPACITY) * 2;

	if (cap > UINT32_MAX)
		grow_fail(probe_get_u64(*hdr, HDR_PTRS, HDR_RUN), len,
		          "a capacity past 2^32 - 1, at length", len, UINT32_MAX);
	*fresh = gcr_alloc((uint32_t)cap, 0);
	*arr = gcr_read(*hdr, 0);
	for (uint32_t i = 0; i < len; i++)
		gcr_write(*fresh, i, gcr_read(*arr, i));
	gcr_write(*hdr, 0, *fresh);
	probe_put_u64(*hdr, HDR_PTRS, HDR_CAPACITY, cap);
	*arr = *fresh = NULL;
}

static uint64_t grow_run(uint64_t iterations)
{
	void *vecs = NULL, *hdr = NULL, *arr = NULL, *fresh = NULL, *elem = NULL;
	uint64_t rng = UINT64_C(0xbb67ae8584caa73b);
	uint64_t runs = 0;
	uint64_t h = 7;

	GCR_ROOTS(&vecs, &hdr, &arr, &fresh, &elem);
	vecs = gcr_alloc(VECTORS, 0);
	for (uint32_t v = 0; v < VECTORS; v++)
		grow_start(&vecs, &hdr, &arr, v, runs++, &rng);

	for (uint64_t push = 0; push < iterations; push++) {
		uint32_t v = (uint32_t)(push % VECTORS);
		uint64_t len, run;

		/* As list.add(new Element(...)): the element first, then room for it. */
		hdr = gcr_read(vecs, v);
		len = probe_get_u64(hdr, HDR_PTRS, HDR_LENGTH);
		run = probe_get_u64(hdr, HDR_PTRS, HDR_RUN);
		elem = gcr_alloc(0, ELEM_BYTES);
		probe_put_u64(elem, 0, 0, run);
		probe_put_u64(elem, 0, 8, grow_value(run, len));
		if (len == probe_get_u64(hdr, HDR_PTRS, HDR_CAPACITY))
			grow_double(&hdr, &arr, &fresh);
		gcr_write(gcr_read(hdr, 0), (uint32_t)len, elem);
		probe_put_u64(hdr, HDR_PTRS, HDR_LENGTH, len + 1);
		h = grow_check(h, hdr, len >= READ_LAG ? len - READ_LAG : 0);
		if (push % RANDOM_READ_EVERY == 0)
			h = grow_check(h, hdr, probe_rand(&rng) % (len + 1));
		if (len + 1 == probe_get_u64(hdr, HDR_PTRS, HDR_TARGET)) {
			for (uint64_t i = 0; i <= len; i++)
				h = grow_check(h, hdr, i);
			h = probe_mix(h, len + 1);
			grow_start(&vecs, &hdr, &arr, v, runs++, &rng);
		}
		hdr = elem = NULL;
	}

	for (uint32_t v = 0; v < VECTORS; v++) {
		void *hv = gcr_read(vecs, v);
		uint64_t len = probe_get_u64(hv, HDR_PTRS, HDR_LENGTH);

		for (uint64_t i = 0; i < len; i++)
			h = grow_check(h, hv, i);
		h = probe_mix(h, len);
	}
	GCR_POP();
	{
		struct gcr_census c = {0};

		gcr_census(&c);
		grow_freed_in_run = c.value[GCR_C_FREED_BYTES];
	}
	return h;
}

static int grow_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	const uint64_t freed_bit = UINT64_C(1) << GCR_C_FREED_BYTES;

	if (!(caps & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect");
		return -1;
	}
	if (!(c->known & freed_bit)) {
		snprintf(why, why_size, "the census lacks freed_bytes");
		return -1;
	}
	if (grow_freed_in_run == 0) {
		snprintf(
		    why, why_size,
		    "no outgrown array or finished vector was freed during the run (freed_bytes "
		    "0 before the final full collection)");
		return 0;
	}
	snprintf(why, why_size,
	         "freed %" PRIu64 " bytes of outgrown arrays and finished vectors during the run",
	         grow_freed_in_run);
	return 1;
}

static const struct probe_spec spec = {
    .name = "07_array_growth",
    .premise = "pointer arrays are outgrown and dropped: a collector that collects must free "
               "them",
    .iterations = {600000, 10000000, 100000000},
    .run = grow_run,
    .premise_met = grow_premise,
};

PROBE_MAIN(spec)
