/*
 * 14_grow_then_churn — a cache that grows to its size, then churns at that size: the pacing
 * transition.
 *
 * Stresses: the collector's pacing (heap-growth) policy across a change of regime. In phase 1
 * the live set grows steadily, so every collection finds more live data than the last and the
 * policy must keep growing the heap without collecting too often; in phase 2 the live set is
 * constant and all allocation is garbage or replacement, so the policy should settle. The
 * iteration count is the cache's final entry count N: a directory of chunks of CHUNK_SLOTS
 * entry slots, an entry 1 pointer + 24 bytes (value; key, stamp, check) with a 40-byte value.
 * Every step, in both phases, handles one request: a request object (1 pointer + 16 bytes)
 * and a reply (24 bytes), both short-lived, and a lookup of a present entry, checked (seven
 * requests in eight go to the HOT_ENTRIES lowest keys, the rest anywhere: hot keys keep the
 * mutator's cache misses from swamping the collector's work). In phase 1 (N steps) each step
 * also inserts the next entry; in phase 2 (CHURN_PER_ENTRY * N steps) each step replaces a
 * random entry with a new entry and value (the old ones die).
 * 120 bytes and 4 objects allocated per step; the full cache is ~74 bytes per entry.
 *
 * Premise: a collector that collects must collect in both phases: the probe reads the census
 * at the start of phase 1, at the boundary and at the end of phase 2, and each phase must see
 * at least one collection.
 *
 * Sizes (entries N; 4 N steps): ci 80 000 (5.9 MB live, 39 MB allocated), default 500 000
 *   (37 MB live, 244 MB), large 5 000 000 (370 MB live, 2.4 GB). Lookups of cold keys and
 *   replacements miss the CPU caches, so the larger sizes cost more per step.
 *
 * Checksum: every lookup's stamp and value word, then the whole cache in key order. An entry
 * with the wrong key, check or value aborts the probe.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define CHUNK_SLOTS     256u
#define CHURN_PER_ENTRY 3u
#define HOT_ENTRIES     4096u
#define HOT_SHARE       7u

/* Entry: slot 0 = value; raw = key, stamp, check. Value: raw = five words. */
#define ENTRY_PTRS  1u
#define ENTRY_BYTES 24u
#define VALUE_WORDS 5u
#define VALUE_BYTES (VALUE_WORDS * 8u)
/* Request: slot 0 = the entry looked up; raw = key, step. Reply: raw = three words. */
#define REQ_PTRS    1u
#define REQ_BYTES   16u
#define REPLY_BYTES 24u

#define PACE_CHECK_MUL UINT64_C(0xff51afd7ed558ccd)

/* What the premise check reads: collection counts at the phase boundaries. */
static uint64_t pace_at_start, pace_at_boundary, pace_at_end;
static uint64_t pace_alloc_start, pace_alloc_boundary, pace_alloc_end;
static int pace_counts_known = 1;

static uint64_t pace_value_word(uint64_t key, uint64_t stamp, uint32_t k)
{
	return (key << 24 ^ stamp) * (UINT64_C(0xc4ceb9fe1a85ec53) + k);
}

static void pace_census(uint64_t *collections, uint64_t *alloc_bytes)
{
	const uint64_t counts =
	    (UINT64_C(1) << GCR_C_MINOR_COLLECTIONS) | (UINT64_C(1) << GCR_C_MAJOR_COLLECTIONS);
	struct gcr_census c = {0};

	gcr_census(&c);
	if ((c.known & counts) != counts)
		pace_counts_known = 0;
	*collections = c.value[GCR_C_MINOR_COLLECTIONS] + c.value[GCR_C_MAJOR_COLLECTIONS];
	*alloc_bytes = c.value[GCR_C_ALLOC_BYTES];
}

static _Noreturn void pace_fail(uint64_t key, const char *what, uint64_t found, uint64_t expected)
{
	fprintf(stderr,
	        "14_grow_then_churn: entry %" PRIu64 ": %s is 0x%016" PRIx64
	        ", expected 0x%016" PRIx64 "\n",
	        key, what, found, expected);
	abort();
}

static void *pace_entry(void *dir, uint64_t key)
{
	void *chunk = gcr_read(dir, (uint32_t)(key / CHUNK_SLOTS));

	return gcr_read(chunk, (uint32_t)(key % CHUNK_SLOTS));
}

/* Checks entry `key` and returns its stamp. No allocation. */
static uint64_t pace_check(void *dir, uint64_t key)
{
	void *e = pace_entry(dir, key);
	uint64_t stamp;
	void *v;

	if (!e)
		pace_fail(key, "entry pointer", 0, key);
	stamp = probe_get_u64(e, ENTRY_PTRS, 8);
	if (probe_get_u64(e, ENTRY_PTRS, 0) != key)
		pace_fail(key, "key", probe_get_u64(e, ENTRY_PTRS, 0), key);
	if (probe_get_u64(e, ENTRY_PTRS, 16) != (key ^ (stamp * PACE_CHECK_MUL)))
		pace_fail(key, "check word", probe_get_u64(e, ENTRY_PTRS, 16),
		          key ^ (stamp * PACE_CHECK_MUL));
	v = gcr_read(e, 0);
	for (uint32_t k = 0; k < VALUE_WORDS; k++)
		if (!v || probe_get_u64(v, 0, k * 8u) != pace_value_word(key, stamp, k))
			pace_fail(key, "value word", v ? probe_get_u64(v, 0, k * 8u) : 0,
			          pace_value_word(key, stamp, k));
	return stamp;
}

/* A new entry for key with a new value, stored in its slot (the old one, if any, dies). */
static void pace_put(void **dir, void **entry, void **value, uint64_t key, uint64_t stamp)
{
	void *chunk;

	*value = gcr_alloc(0, VALUE_BYTES);
	for (uint32_t k = 0; k < VALUE_WORDS; k++)
		probe_put_u64(*value, 0, k * 8u, pace_value_word(key, stamp, k));
	*entry = gcr_alloc(ENTRY_PTRS, ENTRY_BYTES);
	probe_put_u64(*entry, ENTRY_PTRS, 0, key);
	probe_put_u64(*entry, ENTRY_PTRS, 8, stamp);
	probe_put_u64(*entry, ENTRY_PTRS, 16, key ^ (stamp * PACE_CHECK_MUL));
	gcr_write(*entry, 0, *value);
	chunk = gcr_read(*dir, (uint32_t)(key / CHUNK_SLOTS));
	gcr_write(chunk, (uint32_t)(key % CHUNK_SLOTS), *entry);
	*entry = *value = NULL;
}

/*
 * The key a request asks for, among the first `present` keys: HOT_SHARE in 8 requests go to
 * the HOT_ENTRIES lowest keys, as real caches have hot keys; the rest anywhere.
 */
static uint64_t pace_pick(uint64_t r, uint64_t present)
{
	uint64_t range = (r & 7u) < HOT_SHARE && present > HOT_ENTRIES ? HOT_ENTRIES : present;

	return (r >> 3) % range;
}

/* One request: a request and a reply, both short-lived, about a present entry. */
static uint64_t pace_request(void **dir, void **req, void **reply, uint64_t key, uint64_t step,
                             uint64_t h)
{
	uint64_t stamp;

	*req = gcr_alloc(REQ_PTRS, REQ_BYTES);
	probe_put_u64(*req, REQ_PTRS, 0, key);
	probe_put_u64(*req, REQ_PTRS, 8, step);
	gcr_write(*req, 0, pace_entry(*dir, key));
	*reply = gcr_alloc(0, REPLY_BYTES);
	stamp = pace_check(*dir, key);
	probe_put_u64(*reply, 0, 0, stamp);
	probe_put_u64(*reply, 0, 8, probe_get_u64(gcr_read(gcr_read(*req, 0), 0), 0, 8));
	probe_put_u64(*reply, 0, 16, step);
	h = probe_mix(h, probe_get_u64(*reply, 0, 0));
	h = probe_mix(h, probe_get_u64(*reply, 0, 8));
	*req = *reply = NULL;
	return h;
}

static uint64_t pace_run(uint64_t iterations)
{
	void *dir = NULL, *obj = NULL, *entry = NULL, *value = NULL, *req = NULL, *reply = NULL;
	uint64_t rng = UINT64_C(0x1f83d9abfb41bd6b);
	uint64_t n = iterations, nchunks, stamp = 0;
	uint64_t h = 14;

	nchunks = (n + CHUNK_SLOTS - 1) / CHUNK_SLOTS;
	if (nchunks > UINT32_MAX) {
		fprintf(stderr, "14_grow_then_churn: %" PRIu64 " entries is too many\n", n);
		abort();
	}
	GCR_ROOTS(&dir, &obj, &entry, &value, &req, &reply);
	dir = gcr_alloc((uint32_t)nchunks, 0);
	for (uint64_t c = 0; c < nchunks; c++) {
		obj = gcr_alloc(CHUNK_SLOTS, 0);
		gcr_write(dir, (uint32_t)c, obj);
	}
	obj = NULL;

	pace_census(&pace_at_start, &pace_alloc_start);
	for (uint64_t key = 0; key < n; key++) {
		pace_put(&dir, &entry, &value, key, ++stamp);
		h = pace_request(&dir, &req, &reply, pace_pick(probe_rand(&rng), key + 1), stamp,
		                 h);
	}
	pace_census(&pace_at_boundary, &pace_alloc_boundary);
	for (uint64_t step = 0; step < n * CHURN_PER_ENTRY; step++) {
		uint64_t r = probe_rand(&rng);

		pace_put(&dir, &entry, &value, r % n, ++stamp);
		h = pace_request(&dir, &req, &reply, pace_pick(probe_rand(&rng), n), stamp, h);
	}
	pace_census(&pace_at_end, &pace_alloc_end);

	for (uint64_t key = 0; key < n; key++)
		h = probe_mix(h, pace_check(dir, key));
	GCR_POP();
	return h;
}

static int pace_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	uint64_t grow = pace_at_boundary - pace_at_start;
	uint64_t churn = pace_at_end - pace_at_boundary;
	double grow_mb = (double)(pace_alloc_boundary - pace_alloc_start) / 1e6;
	double churn_mb = (double)(pace_alloc_end - pace_alloc_boundary) / 1e6;

	(void)c;
	if (!(caps & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect");
		return -1;
	}
	if (!pace_counts_known) {
		snprintf(why, why_size, "the census lacks minor/major collection counts");
		return -1;
	}
	if (grow == 0 || churn == 0) {
		snprintf(why, why_size,
		         "no collection while the cache %s (%" PRIu64
		         " while it grew over %.1f MB, %" PRIu64 " while it churned over %.1f MB)",
		         grow == 0 ? "grew" : "churned", grow, grow_mb, churn, churn_mb);
		return 0;
	}
	snprintf(why, why_size,
	         "%" PRIu64 " collections while the cache grew (%.1f MB allocated), %" PRIu64
	         " while it churned (%.1f MB)",
	         grow, grow_mb, churn, churn_mb);
	return 1;
}

static const struct probe_spec spec = {
    .name = "14_grow_then_churn",
    .premise = "a cache grows, then churns at constant size: a collector that collects must "
               "collect in both phases",
    .iterations = {80000, 500000, 5000000},
    .run = pace_run,
    .premise_met = pace_premise,
};

PROBE_MAIN(spec)
