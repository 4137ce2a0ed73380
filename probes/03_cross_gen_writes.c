/*
 * 03_cross_gen_writes — old objects that keep being given pointers to young ones.
 *
 * Stresses: the write barrier and whatever it feeds (a remembered set, a card table). A
 * long-lived table of TABLE_SLOTS value slots is built first: TABLE_CHUNKS chunks of
 * CHUNK_SLOTS slots (1 KiB pointer arrays: small objects) and one BIG_SLOTS-slot pointer array
 * (32 KiB: a large object, so a card-marking collector marks cards in it), every slot holding
 * an initial value. The table is then aged: AGE_FILL_COUNT dead filler objects of
 * AGE_FILL_BYTES raw bytes (16 MB in all, four nurseries of gen's default 4 MiB) go by, so a
 * generational collector has promoted it by the time the stores start. Then each iteration
 * allocates a fresh value (1 pointer + 24 bytes: payload; stamp, key, check) and its payload
 * (16 bytes), stores the value into a random table slot with gcr_write (an old-to-young store:
 * the previous value in that slot dies), allocates two short-lived temporaries (1 pointer + 16
 * bytes), and reads back the slot written READ_LAG - 1 iterations earlier, after all that
 * allocation, checking it against a model kept outside the heap. Most stored values are
 * overwritten while still young, so the remembered set is full of slots whose young target
 * is already garbage; the ones that survive are promoted from under an old object.
 * 96 bytes and 4 objects per iteration.
 *
 * Premise: a collector that claims a write barrier must record old-to-young stores during the
 * store phase (barrier_recorded grows after the table has aged), and a generational one must
 * run minor collections in that phase. Without the barrier capability there is nothing to
 * judge: not applicable.
 *
 * Sizes (iterations; plus 16 MB of ageing filler and the 0.4 MB table):
 *   ci 600 000 (74 MB), default 16 000 000 (1.55 GB), large 160 000 000 (15.4 GB).
 *
 * Checksum: every read-back value's stamp, key and payload words, then the whole table slot
 * by slot. A slot whose value is not the one the model says was stored last, a bad check word
 * or a bad payload aborts the probe with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define TABLE_CHUNKS        32u
#define CHUNK_SLOTS         128u
#define BIG_SLOTS           4096u
#define SMALL_SLOTS         (TABLE_CHUNKS * CHUNK_SLOTS)
#define TABLE_SLOTS         (SMALL_SLOTS + BIG_SLOTS)
#define AGE_FILL_COUNT      8192u
#define AGE_FILL_BYTES      2000u
#define READ_LAG            64u
#define TEMPS_PER_ITERATION 2u

/* Directory: slots 0 .. TABLE_CHUNKS - 1 = chunks, slot TABLE_CHUNKS = the big array. */
#define DIR_PTRS      (TABLE_CHUNKS + 1u)
/* Value: slot 0 = payload; raw = stamp (iteration that stored it + 1; 0 = initial), key, check. */
#define VAL_PTRS      1u
#define VAL_BYTES     24u
#define PAYLOAD_BYTES 16u
/* Temporary: slot 0 = the value just read back; raw = two words. */
#define TEMP_PTRS     1u
#define TEMP_BYTES    16u

#define CROSS_CHECK_MUL UINT64_C(0xa0761d6478bd642f)

/* The model: what each slot must hold. Outside the heap, so no collector can disturb it. */
static uint64_t cross_model_stamp[TABLE_SLOTS];
static uint64_t cross_model_key[TABLE_SLOTS];

/* What the premise check reads: census counts when the store phase began. */
static uint64_t cross_barrier_at_start, cross_minor_at_start;
static uint64_t cross_known_at_start;

static uint64_t cross_payload_word(uint64_t key, uint32_t k)
{
	return key * (UINT64_C(0x100000001b3) + k) ^ (k + 1);
}

static _Noreturn void cross_fail(uint32_t s, const char *what, uint64_t found, uint64_t expected)
{
	fprintf(stderr,
	        "03_cross_gen_writes: slot %" PRIu32 ": %s is 0x%016" PRIx64
	        ", expected 0x%016" PRIx64 " (an old-to-young store was lost)\n",
	        s, what, found, expected);
	abort();
}

/* The object holding slot s and the index within it. No allocation. */
static void *cross_container(void *dir, uint32_t s, uint32_t *idx)
{
	if (s < SMALL_SLOTS) {
		*idx = s % CHUNK_SLOTS;
		return gcr_read(dir, s / CHUNK_SLOTS);
	}
	*idx = s - SMALL_SLOTS;
	return gcr_read(dir, TABLE_CHUNKS);
}

/* A fresh value with its payload, stored into slot s; the model follows. */
static void cross_store(void **dir, void **val, void **payload, uint32_t s, uint64_t stamp,
                        uint64_t key)
{
	uint32_t idx;
	void *container;

	*val = gcr_alloc(VAL_PTRS, VAL_BYTES);
	probe_put_u64(*val, VAL_PTRS, 0, stamp);
	probe_put_u64(*val, VAL_PTRS, 8, key);
	probe_put_u64(*val, VAL_PTRS, 16, key ^ (stamp * CROSS_CHECK_MUL));
	*payload = gcr_alloc(0, PAYLOAD_BYTES);
	for (uint32_t k = 0; k < PAYLOAD_BYTES / 8u; k++)
		probe_put_u64(*payload, 0, k * 8u, cross_payload_word(key, k));
	gcr_write(*val, 0, *payload);
	container = cross_container(*dir, s, &idx);
	gcr_write(container, idx, *val);
	cross_model_stamp[s] = stamp;
	cross_model_key[s] = key;
}

/* Checks slot s against the model and folds it into h. No allocation. */
static uint64_t cross_check_slot(uint64_t h, void *dir, uint32_t s)
{
	uint32_t idx;
	void *container = cross_container(dir, s, &idx);
	void *v = gcr_read(container, idx);
	uint64_t stamp, key;
	void *payload;

	if (!v)
		cross_fail(s, "value pointer", 0, cross_model_stamp[s]);
	stamp = probe_get_u64(v, VAL_PTRS, 0);
	key = probe_get_u64(v, VAL_PTRS, 8);
	if (stamp != cross_model_stamp[s])
		cross_fail(s, "value stamp", stamp, cross_model_stamp[s]);
	if (key != cross_model_key[s])
		cross_fail(s, "value key", key, cross_model_key[s]);
	if (probe_get_u64(v, VAL_PTRS, 16) != (key ^ (stamp * CROSS_CHECK_MUL)))
		cross_fail(s, "check word", probe_get_u64(v, VAL_PTRS, 16),
		           key ^ (stamp * CROSS_CHECK_MUL));
	payload = gcr_read(v, 0);
	if (!payload)
		cross_fail(s, "payload pointer", 0, key);
	h = probe_mix(h, stamp);
	h = probe_mix(h, key);
	for (uint32_t k = 0; k < PAYLOAD_BYTES / 8u; k++) {
		uint64_t w = probe_get_u64(payload, 0, k * 8u);

		if (w != cross_payload_word(key, k))
			cross_fail(s, "payload word", w, cross_payload_word(key, k));
		h = probe_mix(h, w);
	}
	return h;
}

static uint64_t cross_run(uint64_t iterations)
{
	void *dir = NULL, *obj = NULL, *val = NULL, *payload = NULL, *temp = NULL;
	uint64_t rng = UINT64_C(0x3c6ef372fe94f82b);
	uint32_t lag[READ_LAG];
	struct gcr_census c = {0};
	uint64_t h = 3;

	GCR_ROOTS(&dir, &obj, &val, &payload, &temp);
	dir = gcr_alloc(DIR_PTRS, 0);
	for (uint32_t i = 0; i < TABLE_CHUNKS; i++) {
		obj = gcr_alloc(CHUNK_SLOTS, 0);
		gcr_write(dir, i, obj);
	}
	obj = gcr_alloc(BIG_SLOTS, 0);
	gcr_write(dir, TABLE_CHUNKS, obj);
	obj = NULL;
	for (uint32_t s = 0; s < TABLE_SLOTS; s++)
		cross_store(&dir, &val, &payload, s, 0, probe_rand(&rng));

	/*
	 * Ageing: raw filler that dies at once, enough to fill several nurseries, so the table is
	 * old when the stores start. Big fillers keep the count of allocations (and of zeal
	 * collections) low.
	 */
	for (uint32_t i = 0; i < AGE_FILL_COUNT; i++) {
		obj = gcr_alloc(0, AGE_FILL_BYTES);
		probe_put_u64(obj, 0, 0, i);
		probe_put_u64(obj, 0, AGE_FILL_BYTES - 8u, i);
	}
	obj = NULL;
	gcr_census(&c);
	cross_known_at_start = c.known;
	cross_barrier_at_start = c.value[GCR_C_BARRIER_RECORDED];
	cross_minor_at_start = c.value[GCR_C_MINOR_COLLECTIONS];

	for (uint64_t it = 0; it < iterations; it++) {
		uint64_t r = probe_rand(&rng);
		uint32_t s = (uint32_t)(r % TABLE_SLOTS);

		cross_store(&dir, &val, &payload, s, it + 1, r >> 13);
		lag[it % READ_LAG] = s;
		for (uint32_t t = 0; t < TEMPS_PER_ITERATION; t++) {
			uint32_t idx;
			void *container;

			temp = gcr_alloc(TEMP_PTRS, TEMP_BYTES);
			container = cross_container(dir, s, &idx);
			gcr_write(temp, 0, gcr_read(container, idx));
			probe_put_u64(temp, TEMP_PTRS, 0, r + t);
			probe_put_u64(temp, TEMP_PTRS, 8, it);
			h = probe_mix(h, probe_get_u64(gcr_read(temp, 0), VAL_PTRS, 0));
		}
		/*
		 * The slot stored READ_LAG - 1 iterations ago (the oldest in the ring), after all the
		 * allocation since.
		 */
		if (it >= READ_LAG)
			h = cross_check_slot(h, dir, lag[(it + 1) % READ_LAG]);
		val = payload = temp = NULL;
	}

	for (uint32_t s = 0; s < TABLE_SLOTS; s++)
		h = cross_check_slot(h, dir, s);
	GCR_POP();
	return h;
}

static int cross_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	const uint64_t barrier_bit = UINT64_C(1) << GCR_C_BARRIER_RECORDED;
	const uint64_t minor_bit = UINT64_C(1) << GCR_C_MINOR_COLLECTIONS;
	uint64_t recorded, minors;

	if (!(caps & GCR_CAP_BARRIER)) {
		snprintf(why, why_size,
		         "the collector claims no write barrier (no barrier capability): "
		         "old-to-young stores are plain stores to it");
		return -1;
	}
	if (!(c->known & cross_known_at_start & barrier_bit)) {
		snprintf(why, why_size, "the census lacks barrier_recorded");
		return -1;
	}
	recorded = c->value[GCR_C_BARRIER_RECORDED] - cross_barrier_at_start;
	if (recorded == 0) {
		snprintf(why, why_size,
		         "the barrier recorded no old-to-young store once the table had aged "
		         "(was it ever promoted?)");
		return 0;
	}
	if (!(caps & GCR_CAP_GENERATIONAL)) {
		snprintf(why, why_size,
		         "the barrier recorded %" PRIu64 " stores into the aged table", recorded);
		return 1;
	}
	if (!(c->known & cross_known_at_start & minor_bit)) {
		snprintf(why, why_size,
		         "generational collector, but the census lacks "
		         "minor_collections");
		return -1;
	}
	minors = c->value[GCR_C_MINOR_COLLECTIONS] - cross_minor_at_start;
	if (minors == 0) {
		snprintf(why, why_size,
		         "the barrier recorded %" PRIu64 " stores, but no minor collection ran "
		         "during the store phase to use them",
		         recorded);
		return 0;
	}
	snprintf(why, why_size,
	         "the barrier recorded %" PRIu64 " old-to-young stores; %" PRIu64
	         " minor collections during the store phase",
	         recorded, minors);
	return 1;
}

static const struct probe_spec spec = {
    .name = "03_cross_gen_writes",
    .premise = "old table slots keep receiving young values: a collector with a write barrier "
               "must record the stores",
    .iterations = {600000, 16000000, 160000000},
    .run = cross_run,
    .premise_met = cross_premise,
};

PROBE_MAIN(spec)
