/*
 * 01_nursery_churn — many small objects that die young, around a tiny long-lived set.
 *
 * Stresses: the allocation fast path and the cost of collecting a heap that is almost all
 * garbage (for a generational collector: minor collections with next to nothing to copy).
 * Each iteration builds a short list of CHURN_LIST_LEN cells (1 pointer + 16 bytes each) and a
 * tuple (3 pointers + 8 bytes) over it, reads them back into the checksum and drops them. A
 * table of CHURN_KEEP long-lived cells is kept for the whole run; every CHURN_KEEP_EVERY
 * iterations one of its entries is replaced by a fresh cell (an old-to-young store, then a
 * survivor), so the long-lived set stays tiny but not frozen.
 *
 * Premise: a collector that collects must have collected during the run (minor + major > 1:
 * the runtime's final full collection is one) and freed something.
 *
 * Sizes (iterations; CHURN_LIST_LEN + 1 = 6 objects and 152 bytes of payload each):
 *   ci 500 000 (76 MB), default 8 000 000 (1.2 GB), large 80 000 000 (12 GB).
 *
 * Checksum: per iteration, the sum of the cells' values read back through the tuple, the
 * tuple's own value and the long-lived cell it points to; then the long-lived table's values.
 */
#include <inttypes.h>
#include <stdio.h>

#include "probe.h"

#define CHURN_LIST_LEN   5u
#define CHURN_KEEP       16u
#define CHURN_KEEP_EVERY 1024u

/* Cell: slot 0 = next; raw = value (u64), index in its list (u64). */
#define CELL_PTRS   1u
#define CELL_BYTES  16u
/* Tuple: slot 0 = list, 1 = first cell, 2 = a long-lived cell; raw = iteration. */
#define TUPLE_PTRS  3u
#define TUPLE_BYTES 8u

static uint64_t churn_run(uint64_t iterations)
{
	void *keep = NULL, *list = NULL, *cell = NULL, *tuple = NULL;
	uint64_t rng = UINT64_C(0x0123456789abcdef);
	uint64_t h = 1;

	GCR_ROOTS(&keep, &list, &cell, &tuple);
	keep = gcr_alloc(CHURN_KEEP, 0);
	for (uint32_t i = 0; i < CHURN_KEEP; i++) {
		cell = gcr_alloc(CELL_PTRS, CELL_BYTES);
		probe_put_u64(cell, CELL_PTRS, 0, i * UINT64_C(1000003));
		probe_put_u64(cell, CELL_PTRS, 8, i);
		gcr_write(keep, i, cell);
	}

	for (uint64_t it = 0; it < iterations; it++) {
		uint64_t sum = 0;
		void *p;

		list = NULL;
		for (uint32_t j = 0; j < CHURN_LIST_LEN; j++) {
			cell = gcr_alloc(CELL_PTRS, CELL_BYTES);
			probe_put_u64(cell, CELL_PTRS, 0, probe_rand(&rng) >> 8);
			probe_put_u64(cell, CELL_PTRS, 8, j);
			gcr_write(cell, 0, list);
			list = cell;
		}
		tuple = gcr_alloc(TUPLE_PTRS, TUPLE_BYTES);
		gcr_write(tuple, 0, list);
		gcr_write(tuple, 1, list);
		gcr_write(tuple, 2, gcr_read(keep, (uint32_t)(it % CHURN_KEEP)));
		probe_put_u64(tuple, TUPLE_PTRS, 0, it);

		/* No allocation from here to the end of the iteration: plain pointers are safe. */
		for (p = gcr_read(tuple, 0); p; p = gcr_read(p, 0))
			sum +=
			    probe_get_u64(p, CELL_PTRS, 0) * (probe_get_u64(p, CELL_PTRS, 8) + 1);
		h = probe_mix(h, sum);
		h = probe_mix(h, probe_get_u64(gcr_read(tuple, 1), CELL_PTRS, 8));
		h = probe_mix(h, probe_get_u64(gcr_read(tuple, 2), CELL_PTRS, 0));
		h = probe_mix(h, probe_get_u64(tuple, TUPLE_PTRS, 0));

		if (it % CHURN_KEEP_EVERY == CHURN_KEEP_EVERY - 1) {
			/* The list's head becomes long-lived, and the rest of the list with it. */
			gcr_write(keep, (uint32_t)((it / CHURN_KEEP_EVERY) % CHURN_KEEP), list);
		}
		list = cell = tuple = NULL;
	}

	for (uint32_t i = 0; i < CHURN_KEEP; i++) {
		void *k = gcr_read(keep, i);

		h = probe_mix(h, probe_get_u64(k, CELL_PTRS, 0));
		h = probe_mix(h, probe_get_u64(k, CELL_PTRS, 8));
	}
	GCR_POP();
	return h;
}

static int churn_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	uint64_t collections;
	int state = probe_collected(c, caps, &collections, why, why_size);

	if (state != 1)
		return state;
	if (c->known & (UINT64_C(1) << GCR_C_FREED_BYTES)) {
		if (c->value[GCR_C_FREED_BYTES] == 0) {
			snprintf(why, why_size,
			         "%" PRIu64 " collections freed nothing (freed_bytes 0)",
			         collections);
			return 0;
		}
		snprintf(why, why_size,
		         "%" PRIu64 " collections (%" PRIu64 " minor, %" PRIu64
		         " major) freed %" PRIu64 " bytes",
		         collections, c->value[GCR_C_MINOR_COLLECTIONS],
		         c->value[GCR_C_MAJOR_COLLECTIONS], c->value[GCR_C_FREED_BYTES]);
		return 1;
	}
	snprintf(why, why_size,
	         "%" PRIu64 " collections (%" PRIu64 " minor, %" PRIu64
	         " major); freed_bytes not reported",
	         collections, c->value[GCR_C_MINOR_COLLECTIONS], c->value[GCR_C_MAJOR_COLLECTIONS]);
	return 1;
}

static const struct probe_spec spec = {
    .name = "01_nursery_churn",
    .premise = "most objects die young: a collector that collects must collect during the "
               "run and free memory",
    .iterations = {500000, 8000000, 80000000},
    .run = churn_run,
    .premise_met = churn_premise,
};

PROBE_MAIN(spec)
