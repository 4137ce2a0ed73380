/*
 * 08_hash_side_tables — chained hash tables in the heap, keyed by object contents.
 *
 * Stresses: what a runtime's side tables do to a collector: long chains of small entries
 * hanging off big bucket arrays, entries whose values are replaced in place (old-to-young
 * stores into long-lived entries), and whole bucket arrays replaced when a table grows or
 * shrinks. TABLES tables each map KEYSPACE possible keys to values. Keys are 64-bit values
 * stored in the entries' raw bytes and hashed from there, never addresses, so a moving
 * collector changes nothing. A table is a header (1 pointer + 16 bytes: its bucket array;
 * entry count, bucket count) and a bucket array of 2^k slots; an entry is 2 pointers + 16
 * bytes (next, value; key, table) and a value 24 bytes (key, version, check).
 * Each iteration is one operation on a random table and key: insert (or update: a new value
 * replaces the old one), lookup or delete, and first allocates the boxed key of the request
 * (16 bytes, dead at once). The mix alternates every WAVE_STEPS operations between a growing
 * phase (65% inserts, 30% lookups, 5% deletes) and a shrinking one (5%, 30%, 65%), so the
 * tables swing between ~7% and ~93% of their key space: a table doubles its bucket array when
 * it holds more entries than buckets and halves it when it holds fewer than a quarter
 * (relinking every entry, no allocation but the new array). A model outside the heap checks
 * every answer.
 * About 30 bytes allocated per iteration (a box; then an entry and a value per new key, a
 * value per update); the live tables hold ~0.2 to 2 MB.
 *
 * Premise: a collector that collects must collect during the run (minor + major > 1).
 *
 * Sizes (operations): ci 1 000 000 (31 MB), default 16 000 000 (490 MB),
 *   large 160 000 000 (4.9 GB).
 *
 * Checksum: every lookup's outcome and value version, every insert's and delete's outcome,
 * each resize, then every table walked bucket by bucket. An entry or value that disagrees with
 * the model (wrong key in a bucket, wrong version or check, a missing or extra key) aborts the
 * probe with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define TABLES      4u
#define KEYSPACE    8192u
#define MIN_BUCKETS 64u
#define WAVE_STEPS  131072u

/* Table header: slot 0 = bucket array; raw = entry count, bucket count. */
#define TAB_PTRS    1u
#define TAB_BYTES   16u
/* Entry: slot 0 = next in the chain, 1 = value; raw = key, table. */
#define ENTRY_PTRS  2u
#define ENTRY_BYTES 16u
/* Value: raw = key, version, check. */
#define VALUE_BYTES 24u
/* Boxed request key: raw = key, operation. */
#define BOX_BYTES   16u

#define HASH_CHECK_MUL UINT64_C(0x8cb92ba72f3d8dd7)

enum hash_op { HASH_INSERT, HASH_LOOKUP, HASH_DELETE };

/* The model: per table and key id, present or not, and the version of its value. */
static uint8_t hash_model_present[TABLES][KEYSPACE];
static uint64_t hash_model_version[TABLES][KEYSPACE];
static uint64_t hash_model_count[TABLES];

/* A bijection (splitmix64's finaliser): the key of id in table t, well mixed. */
static uint64_t hash_key(uint32_t t, uint32_t id)
{
	uint64_t z = ((uint64_t)t << 32 | id) + UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static _Noreturn void hash_fail(uint32_t t, uint64_t key, const char *what, uint64_t found,
                                uint64_t expected)
{
	fprintf(stderr,
	        "08_hash_side_tables: table %" PRIu32 ", key 0x%016" PRIx64 ": %s is %" PRIu64
	        ", expected %" PRIu64 "\n",
	        t, key, what, found, expected);
	abort();
}

static uint32_t hash_bucket(uint64_t key, uint64_t nbuckets)
{
	return (uint32_t)((key >> 17) & (nbuckets - 1));
}

/* The entry for key in table tab, or NULL; *prev gets its predecessor. No allocation. */
static void *hash_find(void *tab, uint64_t key, void **prev)
{
	uint64_t nbuckets = probe_get_u64(tab, TAB_PTRS, 8);
	void *e = gcr_read(gcr_read(tab, 0), hash_bucket(key, nbuckets));

	*prev = NULL;
	while (e && probe_get_u64(e, ENTRY_PTRS, 0) != key) {
		*prev = e;
		e = gcr_read(e, 0);
	}
	return e;
}

/* Checks a found entry's value against the model; returns its version. No allocation. */
static uint64_t hash_check_value(void *e, uint32_t t, uint32_t id, uint64_t key)
{
	void *v = gcr_read(e, 1);
	uint64_t version;

	if (probe_get_u64(e, ENTRY_PTRS, 8) != t)
		hash_fail(t, key, "an entry's table", probe_get_u64(e, ENTRY_PTRS, 8), t);
	if (!v)
		hash_fail(t, key, "a value pointer", 0, 1);
	version = probe_get_u64(v, 0, 8);
	if (probe_get_u64(v, 0, 0) != key)
		hash_fail(t, key, "a value's key", probe_get_u64(v, 0, 0), key);
	if (version != hash_model_version[t][id])
		hash_fail(t, key, "a value's version", version, hash_model_version[t][id]);
	if (probe_get_u64(v, 0, 16) != (key ^ (version * HASH_CHECK_MUL)))
		hash_fail(t, key, "a value's check word", probe_get_u64(v, 0, 16),
		          key ^ (version * HASH_CHECK_MUL));
	return version;
}

/* Replaces *tab's bucket array by one of nbuckets slots and relinks every entry into it. */
static void hash_resize(void **tab, void **old, void **fresh, uint64_t nbuckets)
{
	uint64_t old_n = probe_get_u64(*tab, TAB_PTRS, 8);

	*fresh = gcr_alloc((uint32_t)nbuckets, 0);
	*old = gcr_read(*tab, 0);
	/* No allocation below: plain pointers into the chains are safe. */
	for (uint32_t b = 0; b < old_n; b++) {
		void *e = gcr_read(*old, b);

		while (e) {
			void *next = gcr_read(e, 0);
			uint32_t nb = hash_bucket(probe_get_u64(e, ENTRY_PTRS, 0), nbuckets);

			gcr_write(e, 0, gcr_read(*fresh, nb));
			gcr_write(*fresh, nb, e);
			e = next;
		}
	}
	gcr_write(*tab, 0, *fresh);
	probe_put_u64(*tab, TAB_PTRS, 8, nbuckets);
	*old = *fresh = NULL;
}

static enum hash_op hash_pick(uint64_t r, uint64_t step)
{
	uint32_t p = (uint32_t)(r % 100u);
	int growing = (step / WAVE_STEPS) % 2 == 0;

	if (p < (growing ? 65u : 5u))
		return HASH_INSERT;
	if (p < (growing ? 95u : 35u))
		return HASH_LOOKUP;
	return HASH_DELETE;
}

/* Walks table t bucket by bucket, checking every entry; the count must match the model. */
static uint64_t hash_verify(uint64_t h, void *tab, uint32_t t)
{
	uint64_t nbuckets = probe_get_u64(tab, TAB_PTRS, 8);
	uint64_t count = 0;

	for (uint32_t b = 0; b < nbuckets; b++) {
		for (void *e = gcr_read(gcr_read(tab, 0), b); e; e = gcr_read(e, 0)) {
			uint64_t key = probe_get_u64(e, ENTRY_PTRS, 0);

			if (hash_bucket(key, nbuckets) != b)
				hash_fail(t, key, "an entry's bucket", b,
				          hash_bucket(key, nbuckets));
			h = probe_mix(h, key);
			h = probe_mix(h, probe_get_u64(gcr_read(e, 1), 0, 8));
			count++;
		}
	}
	if (count != hash_model_count[t] || count != probe_get_u64(tab, TAB_PTRS, 0))
		hash_fail(t, 0, "the entry count", count, hash_model_count[t]);
	return probe_mix(h, count);
}

static uint64_t hash_run(uint64_t iterations)
{
	void *tabs = NULL, *tab = NULL, *box = NULL, *entry = NULL, *value = NULL, *old = NULL,
	     *fresh = NULL;
	uint64_t rng = UINT64_C(0x3c6ef372fe94f82b);
	uint64_t h = 8;

	GCR_ROOTS(&tabs, &tab, &box, &entry, &value, &old, &fresh);
	tabs = gcr_alloc(TABLES, 0);
	for (uint32_t t = 0; t < TABLES; t++) {
		tab = gcr_alloc(TAB_PTRS, TAB_BYTES);
		probe_put_u64(tab, TAB_PTRS, 0, 0);
		probe_put_u64(tab, TAB_PTRS, 8, 0);
		gcr_write(tabs, t, tab);
		hash_resize(&tab, &old, &fresh, MIN_BUCKETS);
	}

	for (uint64_t step = 0; step < iterations; step++) {
		uint64_t r = probe_rand(&rng);
		uint32_t t = (uint32_t)(r % TABLES);
		uint32_t id = (uint32_t)((r >> 8) % KEYSPACE);
		uint64_t key = hash_key(t, id);
		enum hash_op op = hash_pick(r >> 24, step);
		uint64_t count, nbuckets;
		void *e, *prev;

		tab = gcr_read(tabs, t);
		box = gcr_alloc(0, BOX_BYTES);
		probe_put_u64(box, 0, 0, key);
		probe_put_u64(box, 0, 8, op);
		/* From here on the key is read from the box, as a runtime would. */
		key = probe_get_u64(box, 0, 0);
		e = hash_find(tab, key, &prev);
		if ((e != NULL) != hash_model_present[t][id])
			hash_fail(t, key, "presence", e != NULL, hash_model_present[t][id]);
		h = probe_mix(h, (uint64_t)op << 1 | (e != NULL));

		if (op == HASH_LOOKUP) {
			if (e)
				h = probe_mix(h, hash_check_value(e, t, id, key));
		} else if (op == HASH_DELETE) {
			if (e) {
				h = probe_mix(h, hash_check_value(e, t, id, key));
				if (prev)
					gcr_write(prev, 0, gcr_read(e, 0));
				else
					gcr_write(gcr_read(tab, 0),
					          hash_bucket(key, probe_get_u64(tab, TAB_PTRS, 8)),
					          gcr_read(e, 0));
				hash_model_present[t][id] = 0;
				hash_model_count[t]--;
				probe_put_u64(tab, TAB_PTRS, 0,
				              probe_get_u64(tab, TAB_PTRS, 0) - 1);
			}
		} else {
			uint64_t version = hash_model_version[t][id] + 1;

			entry = e;
			value = gcr_alloc(0, VALUE_BYTES);
			probe_put_u64(value, 0, 0, key);
			probe_put_u64(value, 0, 8, version);
			probe_put_u64(value, 0, 16, key ^ (version * HASH_CHECK_MUL));
			if (!entry) {
				uint32_t b;
				void *buckets;

				entry = gcr_alloc(ENTRY_PTRS, ENTRY_BYTES);
				probe_put_u64(entry, ENTRY_PTRS, 0, key);
				probe_put_u64(entry, ENTRY_PTRS, 8, t);
				b = hash_bucket(key, probe_get_u64(tab, TAB_PTRS, 8));
				buckets = gcr_read(tab, 0);
				gcr_write(entry, 0, gcr_read(buckets, b));
				gcr_write(buckets, b, entry);
				hash_model_present[t][id] = 1;
				hash_model_count[t]++;
				probe_put_u64(tab, TAB_PTRS, 0,
				              probe_get_u64(tab, TAB_PTRS, 0) + 1);
			}
			gcr_write(entry, 1, value);
			hash_model_version[t][id] = version;
			h = probe_mix(h, version);
		}

		count = probe_get_u64(tab, TAB_PTRS, 0);
		nbuckets = probe_get_u64(tab, TAB_PTRS, 8);
		if (count > nbuckets || (count < nbuckets / 4 && nbuckets > MIN_BUCKETS)) {
			nbuckets = count > nbuckets ? nbuckets * 2 : nbuckets / 2;
			hash_resize(&tab, &old, &fresh, nbuckets);
			h = probe_mix(h, nbuckets);
		}
		tab = box = entry = value = NULL;
	}

	for (uint32_t t = 0; t < TABLES; t++)
		h = hash_verify(h, gcr_read(tabs, t), t);
	GCR_POP();
	return h;
}

static int hash_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	uint64_t collections;
	int state = probe_collected(c, caps, &collections, why, why_size);

	if (state != 1)
		return state;
	snprintf(why, why_size,
	         "%" PRIu64 " collections (%" PRIu64 " minor, %" PRIu64
	         " major) traced the tables while they churned",
	         collections, c->value[GCR_C_MINOR_COLLECTIONS], c->value[GCR_C_MAJOR_COLLECTIONS]);
	return 1;
}

static const struct probe_spec spec = {
    .name = "08_hash_side_tables",
    .premise = "hash-table entries and values churn under long-lived tables: a collector "
               "that collects must collect during the run",
    .iterations = {1000000, 16000000, 160000000},
    .run = hash_run,
    .premise_met = hash_premise,
};

PROBE_MAIN(spec)
