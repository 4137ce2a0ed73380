/*
 * 10_large_objects — large objects allocated and dropped, a few kept.
 *
 * Stresses: the large-object path: mapping, reusing and returning big blocks, their page
 * faults, and (for pointer arrays) scanning big objects. Each iteration allocates one large
 * object. Three in four are raw buffers (no pointers) of 64 KiB to 4 MiB (log-uniform: a
 * power-of-two band from 64 KiB << k to 128 KiB << k, k = 0..5, then uniform within it); the
 * fourth is a pointer array of 8 Ki to 128 Ki slots (64 KiB to 1 MiB, bands likewise, k =
 * 0..3) with 16 raw bytes (id, size), whose every ARRAY_STRIDE-th slot gets a small element
 * (16 bytes: id, index). A buffer's bytes are touched: its id and size in the first two words,
 * then one word per TOUCH_STRIDE bytes (every page) and the last word, all derived from its id.
 * The new object is kept until the next iteration; then one in KEEP_EVERY replaces a random
 * entry of a table of KEEP_SLOTS kept objects (the entry it replaces dies) and the others die.
 * Every object is verified before it is dropped. On average ~0.85 MiB of large objects and ~46
 * small elements per iteration; the live large bytes reach ~13-22 MB. Most of the cost is
 * page faults on fresh mappings, so a collector that reuses large blocks runs much faster.
 *
 * Premise: a collector that collects must free large objects during the run (freed_bytes > 0 when
 * the run ends, before the runtime's final full collection), and where it reports
 * heap_committed_peak_bytes, that must stay under 4 x the most large-object bytes the probe ever
 * held live at once, plus 16 MiB of slack for small objects, free lists and caches: a collector
 * that never reuses or returns large blocks fails it.
 *
 * Sizes (iterations): ci 50 (37 MB), default 450 (376 MB), large 4 500 (~3.8 GB).
 *
 * Checksum: every dropped or kept object's id, size and touched words (buffers) or elements
 * (arrays), then the kept table. A wrong word, element or size aborts the probe.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define KEEP_SLOTS       8u
#define KEEP_EVERY       4u
#define TOUCH_STRIDE     4096u
#define ARRAY_STRIDE     256u
#define BUFFER_MIN_BYTES (64u << 10)
#define BUFFER_BANDS     6u
#define ARRAY_MIN_SLOTS  (8u << 10)
#define ARRAY_BANDS      4u
#define PEAK_FACTOR      4u
#define PEAK_SLACK_BYTES (UINT64_C(16) << 20)

/* Array: raw = id, slot count (after its slots). Element: raw = id, index. */
#define ARRAY_BYTES 16u
#define ELEM_BYTES  16u

/*
 * What the premise check reads: the most large-object bytes live at once (requested), and
 * freed_bytes when the run ends, before the final full collection (which frees everything).
 */
static uint64_t large_live_max_bytes;
static uint64_t large_freed_in_run;

static uint64_t large_word(uint64_t id, uint64_t offset)
{
	return (id << 32 ^ offset) * UINT64_C(0x2127599bf4325c37) + 1;
}

static _Noreturn void large_fail(uint64_t id, const char *what, uint64_t found, uint64_t expected)
{
	fprintf(stderr,
	        "10_large_objects: object %" PRIu64 ": %s is 0x%016" PRIx64
	        ", expected 0x%016" PRIx64 "\n",
	        id, what, found, expected);
	abort();
}

/* Requested bytes of a large object made by this probe. No allocation. */
static uint64_t large_bytes(void *obj, uint32_t nptrs)
{
	return (uint64_t)nptrs * 8u + (nptrs ? ARRAY_BYTES : probe_get_u64(obj, 0, 8));
}

/*
 * Checks an object and folds it into h. A buffer has no slots; an array's raw words follow
 * its slots, so its slot count is passed in (the probe's own record of it). No allocation.
 */
static uint64_t large_check(uint64_t h, void *obj, uint32_t nptrs, uint64_t id)
{
	if (nptrs == 0) {
		uint64_t size = probe_get_u64(obj, 0, 8);

		if (probe_get_u64(obj, 0, 0) != id)
			large_fail(id, "a buffer's id", probe_get_u64(obj, 0, 0), id);
		for (uint64_t off = TOUCH_STRIDE; off + 16 <= size; off += TOUCH_STRIDE) {
			uint64_t w = probe_get_u64(obj, 0, (uint32_t)off);

			if (w != large_word(id, off))
				large_fail(id, "a buffer's touched word", w, large_word(id, off));
			h = probe_mix(h, w);
		}
		if (probe_get_u64(obj, 0, (uint32_t)(size - 8)) != large_word(id, size))
			large_fail(id, "a buffer's last word",
			           probe_get_u64(obj, 0, (uint32_t)(size - 8)),
			           large_word(id, size));
		return probe_mix(h, size);
	}
	if (probe_get_u64(obj, nptrs, 0) != id || probe_get_u64(obj, nptrs, 8) != nptrs)
		large_fail(id, "an array's id and size", probe_get_u64(obj, nptrs, 0), id);
	for (uint32_t i = 0; i < nptrs; i += ARRAY_STRIDE) {
		void *e = gcr_read(obj, i);

		if (!e || probe_get_u64(e, 0, 0) != id || probe_get_u64(e, 0, 8) != i)
			large_fail(id, "an array element", e ? probe_get_u64(e, 0, 8) : UINT64_MAX,
			           i);
		if (i + 1 < nptrs && gcr_read(obj, i + 1))
			large_fail(id, "a slot that was never stored", 1, 0);
		h = probe_mix(h, i);
	}
	return probe_mix(h, nptrs);
}

/* The next object, rooted in *obj; returns its slot count (0: a raw buffer). */
static uint32_t large_make(void **obj, void **elem, uint64_t id, uint64_t *rng)
{
	uint64_t r = probe_rand(rng);

	if (r % 4u != 3u) {
		uint32_t k = (uint32_t)((r >> 2) % BUFFER_BANDS);
		uint64_t band = (uint64_t)BUFFER_MIN_BYTES << k;
		uint64_t size = (band + (r >> 16) % band) & ~UINT64_C(7);

		*obj = gcr_alloc(0, (uint32_t)size);
		probe_put_u64(*obj, 0, 0, id);
		probe_put_u64(*obj, 0, 8, size);
		for (uint64_t off = TOUCH_STRIDE; off + 16 <= size; off += TOUCH_STRIDE)
			probe_put_u64(*obj, 0, (uint32_t)off, large_word(id, off));
		probe_put_u64(*obj, 0, (uint32_t)(size - 8), large_word(id, size));
		return 0;
	} else {
		uint32_t k = (uint32_t)((r >> 2) % ARRAY_BANDS);
		uint32_t band = ARRAY_MIN_SLOTS << k;
		uint32_t nptrs = band + (uint32_t)((r >> 16) % band);

		*obj = gcr_alloc(nptrs, ARRAY_BYTES);
		probe_put_u64(*obj, nptrs, 0, id);
		probe_put_u64(*obj, nptrs, 8, nptrs);
		for (uint32_t i = 0; i < nptrs; i += ARRAY_STRIDE) {
			*elem = gcr_alloc(0, ELEM_BYTES);
			probe_put_u64(*elem, 0, 0, id);
			probe_put_u64(*elem, 0, 8, i);
			gcr_write(*obj, i, *elem);
		}
		*elem = NULL;
		return nptrs;
	}
}

static uint64_t large_run(uint64_t iterations)
{
	void *keep = NULL, *prev = NULL, *obj = NULL, *elem = NULL;
	uint64_t rng = UINT64_C(0x510e527fade682d1);
	/* Slot counts and ids of the kept objects and of prev: the probe's own records. */
	uint32_t keep_nptrs[KEEP_SLOTS] = {0}, prev_nptrs = 0;
	uint64_t keep_id[KEEP_SLOTS] = {0}, keep_bytes[KEEP_SLOTS] = {0};
	uint64_t prev_id = 0, prev_bytes = 0, kept_bytes = 0;
	uint64_t h = 10;

	GCR_ROOTS(&keep, &prev, &obj, &elem);
	keep = gcr_alloc(KEEP_SLOTS, 0);
	for (uint64_t id = 1; id <= iterations; id++) {
		uint32_t nptrs = large_make(&obj, &elem, id, &rng);
		uint64_t bytes = large_bytes(obj, nptrs);

		if (kept_bytes + prev_bytes + bytes > large_live_max_bytes)
			large_live_max_bytes = kept_bytes + prev_bytes + bytes;
		if (prev) {
			uint64_t r = probe_rand(&rng);

			h = large_check(h, prev, prev_nptrs, prev_id);
			if (r % KEEP_EVERY == 0) {
				uint32_t k = (uint32_t)((r >> 8) % KEEP_SLOTS);
				void *old = gcr_read(keep, k);

				if (old)
					h = large_check(h, old, keep_nptrs[k], keep_id[k]);
				gcr_write(keep, k, prev);
				kept_bytes += prev_bytes - keep_bytes[k];
				keep_nptrs[k] = prev_nptrs;
				keep_id[k] = prev_id;
				keep_bytes[k] = prev_bytes;
			}
		}
		prev = obj;
		prev_nptrs = nptrs;
		prev_id = id;
		prev_bytes = bytes;
		obj = NULL;
	}
	if (prev)
		h = large_check(h, prev, prev_nptrs, prev_id);
	for (uint32_t k = 0; k < KEEP_SLOTS; k++) {
		void *o = gcr_read(keep, k);

		h = o ? large_check(h, o, keep_nptrs[k], keep_id[k]) : probe_mix(h, 0);
	}
	GCR_POP();
	{
		struct gcr_census c = {0};

		gcr_census(&c);
		large_freed_in_run = c.value[GCR_C_FREED_BYTES];
	}
	return h;
}

static int large_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	const uint64_t freed_bit = UINT64_C(1) << GCR_C_FREED_BYTES;
	const uint64_t peak_bit = UINT64_C(1) << GCR_C_HEAP_COMMITTED_PEAK_BYTES;
	uint64_t bound = large_live_max_bytes * PEAK_FACTOR + PEAK_SLACK_BYTES;

	if (!(caps & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect");
		return -1;
	}
	if (!(c->known & freed_bit)) {
		snprintf(why, why_size, "the census lacks freed_bytes");
		return -1;
	}
	if (large_freed_in_run == 0) {
		snprintf(why, why_size,
		         "no large object was freed during the run (freed_bytes 0 before the final "
		         "full collection)");
		return 0;
	}
	if (!(c->known & peak_bit)) {
		snprintf(why, why_size,
		         "freed %" PRIu64 " bytes during the run; heap_committed_peak_bytes not "
		         "reported, the bound on it not judged",
		         large_freed_in_run);
		return 1;
	}
	if (c->value[GCR_C_HEAP_COMMITTED_PEAK_BYTES] > bound) {
		snprintf(why, why_size,
		         "committed peak %" PRIu64 " bytes is over %u x the %" PRIu64
		         " large-object bytes ever live at once + 16 MiB (%" PRIu64
		         "): large blocks are not reused or returned",
		         c->value[GCR_C_HEAP_COMMITTED_PEAK_BYTES], PEAK_FACTOR,
		         large_live_max_bytes, bound);
		return 0;
	}
	snprintf(why, why_size,
	         "freed %" PRIu64 " bytes during the run; committed peak %" PRIu64
	         " bytes, %.2f x the %" PRIu64
	         " large-object bytes ever live at once (bound %u x + 16 MiB)",
	         large_freed_in_run, c->value[GCR_C_HEAP_COMMITTED_PEAK_BYTES],
	         (double)c->value[GCR_C_HEAP_COMMITTED_PEAK_BYTES] / (double)large_live_max_bytes,
	         large_live_max_bytes, PEAK_FACTOR);
	return 1;
}

static const struct probe_spec spec = {
    .name = "10_large_objects",
    .premise = "large objects are allocated and dropped: a collector that collects must free "
               "them and keep its committed heap near the live large bytes",
    .iterations = {50, 450, 4500},
    .run = large_run,
    .premise_met = large_premise,
};

PROBE_MAIN(spec)
