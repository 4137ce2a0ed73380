/*
 * 06_fragmentation — mixed sizes, interleaved lifetimes, and a size mix that keeps changing.
 *
 * Stresses: the allocator's free-space management. A table of SLOTS live objects (a directory
 * of DIR_CHUNKS chunks of CHUNK_SLOTS slots) is built and then churned: each iteration replaces
 * the object in one slot by a new one. Sizes come from five classes (raw bytes: tiny 24-48,
 * small 48-160, medium 160-640, big 640-2032, huge 2032-4088), drawn with weights that change
 * every PHASE_STEPS iterations between three mixes (mostly tiny; mostly medium; mostly big), so
 * the holes one mix leaves must be filled by objects of another: a size-segregated heap has
 * to give pages back to other classes, a free-list heap has to split and coalesce. Lifetimes
 * are interleaved: three replacements in four go to the HOT_SLOTS first slots (short lives),
 * the rest anywhere (long lives); and every new object (1 pointer + its size: its tag; key,
 * check, ..., a last word) is allocated with its tag (16 bytes) before it and a short-lived
 * temporary of another drawn size in between, so neighbours in memory die at different times.
 * The old object is verified against a model before it is dropped. The table stays rooted
 * (a static root frame) through the runtime's final full collection, so
 * heap_used_after_full_bytes is the live set, and heap_committed_peak_bytes over it says how
 * much the heap had to grow beyond what was live.
 * Three objects and ~1 KB per iteration on average over the three mixes; the live table is
 * ~7.5 MB.
 *
 * Premise: a collector that collects must collect during the run (minor + major > 1) and free
 * objects (freed_objects > 0, or freed_bytes where objects are not counted).
 *
 * Sizes (iterations): ci 100 000 (100 MB), default 5 000 000 (4.8 GB),
 *   large 50 000 000 (48 GB). Bytes are cheap here: big objects cost little more than small
 *   ones to allocate, so the volume is large for the time it takes.
 *
 * Checksum: each replaced object's key, size and last word, each temporary's first word, then
 * the whole table slot by slot. An object with the wrong key, size, check, last word or tag
 * aborts the probe with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define DIR_CHUNKS  128u
#define CHUNK_SLOTS 128u
#define SLOTS       (DIR_CHUNKS * CHUNK_SLOTS)
#define HOT_SLOTS   2048u
#define PHASE_STEPS 16384u
#define PHASES      3u
#define CLASSES     5u

/* Object: slot 0 = its tag; raw = key, check, ..., last word (at nbytes - 8). */
#define OBJ_PTRS  1u
#define TAG_BYTES 16u

#define FRAG_CHECK_MUL UINT64_C(0xe7037ed1a0b428db)

/* Raw-byte range of each class, and its weight (out of 64) in each phase's mix. */
static const uint32_t frag_class_lo[CLASSES] = {24, 48, 160, 640, 2032};
static const uint32_t frag_class_hi[CLASSES] = {48, 160, 640, 2032, 4088};
static const uint32_t frag_weight[PHASES][CLASSES] = {
    {40, 16, 6, 2, 0},
    {8, 16, 28, 10, 2},
    {20, 8, 8, 24, 4},
};

/* Keeps the table live after run() returns, through the runtime's final full collection. */
static void *frag_dir;
static void **frag_slots[] = {&frag_dir};
static struct gcr_frame frag_frame;

/* The model: each slot's key and raw size. */
static uint64_t frag_model_key[SLOTS];
static uint32_t frag_model_bytes[SLOTS];

/* A raw size in bytes (a multiple of 8) drawn from the mix of the phase `step` is in. */
static uint32_t frag_size(uint64_t r, uint64_t step)
{
	uint32_t p = (uint32_t)(step / PHASE_STEPS % PHASES);
	uint32_t w = (uint32_t)(r % 64u);
	uint32_t c = 0;
	uint32_t span;

	while (w >= frag_weight[p][c]) {
		w -= frag_weight[p][c];
		c++;
	}
	span = (frag_class_hi[c] - frag_class_lo[c]) / 8u;
	return frag_class_lo[c] + (uint32_t)((r >> 8) % (span + 1)) * 8u;
}

static uint64_t frag_check(uint64_t key, uint32_t nbytes)
{
	return key * FRAG_CHECK_MUL ^ nbytes;
}

static _Noreturn void frag_fail(uint32_t s, const char *what, uint64_t found, uint64_t expected)
{
	fprintf(stderr,
	        "06_fragmentation: slot %" PRIu32 ": %s is 0x%016" PRIx64 ", expected 0x%016" PRIx64
	        "\n",
	        s, what, found, expected);
	abort();
}

/* Verifies slot s against the model and folds it into h. No allocation. */
static uint64_t frag_check_slot(uint64_t h, uint32_t s)
{
	void *obj = gcr_read(gcr_read(frag_dir, s / CHUNK_SLOTS), s % CHUNK_SLOTS);
	uint64_t key = frag_model_key[s];
	uint32_t nbytes = frag_model_bytes[s];
	void *tag;

	if (!obj)
		frag_fail(s, "object pointer", 0, key);
	if (probe_get_u64(obj, OBJ_PTRS, 0) != key)
		frag_fail(s, "key", probe_get_u64(obj, OBJ_PTRS, 0), key);
	if (probe_get_u64(obj, OBJ_PTRS, 8) != frag_check(key, nbytes))
		frag_fail(s, "check word (size)", probe_get_u64(obj, OBJ_PTRS, 8),
		          frag_check(key, nbytes));
	if (probe_get_u64(obj, OBJ_PTRS, nbytes - 8u) != ~key)
		frag_fail(s, "last word", probe_get_u64(obj, OBJ_PTRS, nbytes - 8u), ~key);
	tag = gcr_read(obj, 0);
	if (!tag || probe_get_u64(tag, 0, 0) != key >> 3)
		frag_fail(s, "tag", tag ? probe_get_u64(tag, 0, 0) : 0, key >> 3);
	h = probe_mix(h, key);
	h = probe_mix(h, nbytes);
	return h;
}

/* Allocates slot s's new object: its tag, a temporary, then the object. */
static uint64_t frag_fill(void **tag, void **temp, void **obj, uint32_t s, uint64_t key,
                          uint64_t step, uint64_t *rng, uint64_t h)
{
	uint32_t nbytes = frag_size(probe_rand(rng), step);
	uint32_t temp_bytes = frag_size(probe_rand(rng), step);
	void *chunk;

	*tag = gcr_alloc(0, TAG_BYTES);
	probe_put_u64(*tag, 0, 0, key >> 3);
	probe_put_u64(*tag, 0, 8, s);
	*temp = gcr_alloc(OBJ_PTRS, temp_bytes);
	probe_put_u64(*temp, OBJ_PTRS, 0, key + temp_bytes);
	probe_put_u64(*temp, OBJ_PTRS, temp_bytes - 8u, key);
	gcr_write(*temp, 0, *tag);
	h = probe_mix(h, probe_get_u64(*temp, OBJ_PTRS, 0));
	*obj = gcr_alloc(OBJ_PTRS, nbytes);
	probe_put_u64(*obj, OBJ_PTRS, 0, key);
	probe_put_u64(*obj, OBJ_PTRS, 8, frag_check(key, nbytes));
	probe_put_u64(*obj, OBJ_PTRS, nbytes - 8u, ~key);
	gcr_write(*obj, 0, *tag);
	chunk = gcr_read(frag_dir, s / CHUNK_SLOTS);
	gcr_write(chunk, s % CHUNK_SLOTS, *obj);
	frag_model_key[s] = key;
	frag_model_bytes[s] = nbytes;
	*tag = *temp = *obj = NULL;
	return h;
}

static uint64_t frag_run(uint64_t iterations)
{
	void *tag = NULL, *temp = NULL, *obj = NULL;
	uint64_t rng = UINT64_C(0x6a09e667f3bcc909);
	uint64_t h = 6;

	frag_frame.prev = gcr_roots_top;
	frag_frame.nslots = 1;
	frag_frame.slots = frag_slots;
	gcr_roots_top = &frag_frame;

	GCR_ROOTS(&tag, &temp, &obj);
	frag_dir = gcr_alloc(DIR_CHUNKS, 0);
	for (uint32_t c = 0; c < DIR_CHUNKS; c++) {
		obj = gcr_alloc(CHUNK_SLOTS, 0);
		gcr_write(frag_dir, c, obj);
	}
	for (uint32_t s = 0; s < SLOTS; s++)
		h = frag_fill(&tag, &temp, &obj, s, probe_rand(&rng), 0, &rng, h);

	for (uint64_t step = 0; step < iterations; step++) {
		uint64_t r = probe_rand(&rng);
		uint32_t s =
		    (r & 3u) != 0 ? (uint32_t)((r >> 2) % HOT_SLOTS) : (uint32_t)((r >> 2) % SLOTS);

		h = frag_check_slot(h, s);
		h = frag_fill(&tag, &temp, &obj, s, r >> 11 | (step << 53), step, &rng, h);
	}

	for (uint32_t s = 0; s < SLOTS; s++)
		h = frag_check_slot(h, s);
	GCR_POP();
	return h;
}

static int frag_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	const uint64_t counts =
	    (UINT64_C(1) << GCR_C_MINOR_COLLECTIONS) | (UINT64_C(1) << GCR_C_MAJOR_COLLECTIONS);
	const uint64_t objects_bit = UINT64_C(1) << GCR_C_FREED_OBJECTS;
	const uint64_t bytes_bit = UINT64_C(1) << GCR_C_FREED_BYTES;
	const uint64_t used_bit = UINT64_C(1) << GCR_C_HEAP_USED_AFTER_FULL_BYTES;
	const uint64_t peak_bit = UINT64_C(1) << GCR_C_HEAP_COMMITTED_PEAK_BYTES;
	uint64_t collections, freed;
	const char *freed_what;
	char ratio[96] = "";

	if (!(caps & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect");
		return -1;
	}
	if ((c->known & counts) != counts) {
		snprintf(why, why_size, "the census lacks minor/major collection counts");
		return -1;
	}
	if (c->known & objects_bit) {
		freed = c->value[GCR_C_FREED_OBJECTS];
		freed_what = "objects";
	} else if (c->known & bytes_bit) {
		freed = c->value[GCR_C_FREED_BYTES];
		freed_what = "bytes (freed_objects not reported)";
	} else {
		snprintf(why, why_size, "the census lacks freed_objects and freed_bytes");
		return -1;
	}
	collections = c->value[GCR_C_MINOR_COLLECTIONS] + c->value[GCR_C_MAJOR_COLLECTIONS];
	if (collections <= 1 || freed == 0) {
		snprintf(why, why_size,
		         "%" PRIu64 " collection(s) in all, with the final full one, freed %" PRIu64
		         " %s: the holes were never made",
		         collections, freed, freed_what);
		return 0;
	}
	if ((c->known & used_bit) && (c->known & peak_bit) &&
	    c->value[GCR_C_HEAP_USED_AFTER_FULL_BYTES] > 0)
		snprintf(ratio, sizeof ratio, "; committed peak %.2f x the live bytes at the end",
		         (double)c->value[GCR_C_HEAP_COMMITTED_PEAK_BYTES] /
		             (double)c->value[GCR_C_HEAP_USED_AFTER_FULL_BYTES]);
	snprintf(why, why_size, "%" PRIu64 " collections freed %" PRIu64 " %s%s", collections,
	         freed, freed_what, ratio);
	return 1;
}

static const struct probe_spec spec = {
    .name = "06_fragmentation",
    .premise = "objects of mixed sizes die in interleaved order: a collector that collects "
               "must free them and reuse the holes",
    .iterations = {100000, 5000000, 50000000},
    .run = frag_run,
    .premise_met = frag_premise,
};

PROBE_MAIN(spec)
