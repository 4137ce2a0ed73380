/*
 * 09_weak_finalize — a weak-keyed cache and a finalization queue, emulated with strong
 * references, because the collector ABI has no weak references and no finalizers.
 *
 * What a real version would stress: a collector's weak-reference and ephemeron processing
 * (clearing entries whose keys died, at every collection) and its finalization queue. The
 * gcr ABI (version 1, collectors/include/gcr.h) has neither, so no shipped collector can run
 * that workload and this probe's premise is not applicable everywhere, with that reason. It
 * still does, with strong references and explicit clearing, the mutator's share of the same
 * work, so that it measures something and the suite keeps a number for it until the ABI grows
 * weak references (then this probe gets the real thing and its premise becomes a real check):
 * - OWNERS owner slots (a directory of OWNER_CHUNKS chunks of CHUNK_SLOTS) each hold a key
 *   object (1 pointer + 24 bytes: payload; id, generation, flags) with a 32-byte payload.
 *   Every REPLACE_EVERY-th step replaces a random owner's key: the old key is now "dead" to the
 *   program. One key in FINALIZABLE_EVERY is finalizable: when it dies it is queued (a strong
 *   list node, 2 pointers) as a collector would queue it for finalization.
 * - A cache of CACHE_SLOTS entries (2 pointers + 16 bytes: key, value; id, generation) maps a
 *   key to a value computed from it (32 bytes), as an ephemeron table would. Every other step
 *   looks up a random owner's key, with a boxed request (16 bytes, dead at once): a hit is
 *   checked, a miss computes the value and installs a new entry. The entry refers to its key
 *   strongly, so dead keys stay reachable from the cache: exactly the leak a weak table
 *   exists to prevent.
 * - Every CLEAR_EVERY steps, the work a collector would do at a collection: every cache entry
 *   whose key is dead is cleared, then the finalization queue is drained ("finalizers" fold
 *   the key's id and generation into the checksum) and dropped.
 * About 23 bytes allocated per step (most lookups hit).
 *
 * Premise: not applicable on every collector, with the reason: the gcr ABI version 1 has no
 * weak references or finalizers (the work here is an emulation with strong references).
 *
 * Sizes (steps): ci 1 000 000 (23 MB), default 40 000 000 (920 MB),
 *   large 400 000 000 (9.2 GB).
 *
 * Checksum: every lookup's outcome and value, each clearing pass's count, every finalized
 * key's id and generation in queue order, then the owners and the cache. A cache hit whose
 * value does not match its key, or a key whose contents are wrong, aborts the probe.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define OWNER_CHUNKS      32u
#define CHUNK_SLOTS       128u
#define OWNERS            (OWNER_CHUNKS * CHUNK_SLOTS)
#define CACHE_SLOTS       8192u
#define REPLACE_EVERY     8u
#define FINALIZABLE_EVERY 4u
#define CLEAR_EVERY       4096u

/* Key: slot 0 = payload; raw = id (its owner slot), generation, flags. */
#define KEY_PTRS        1u
#define KEY_BYTES       24u
#define KEY_FINALIZABLE 1u
#define PAYLOAD_BYTES   32u
/* Cache entry: slot 0 = key, 1 = value; raw = id, generation. */
#define ENTRY_PTRS      2u
#define ENTRY_BYTES     16u
#define VALUE_BYTES     32u
/* Finalization queue node: slot 0 = next, 1 = the dead key. */
#define QNODE_PTRS      2u
/* Boxed request: raw = id, step. */
#define BOX_BYTES       16u

/* Roots of the run, kept together so the helpers can take one pointer. */
struct weak_roots {
	void *owners, *cache, *queue;
	void *key, *payload, *entry, *value, *node, *box;
};

/* The model: each owner's current key generation; a key of an older generation is dead. */
static uint64_t weak_generation[OWNERS];

static uint64_t weak_word(uint64_t id, uint64_t gen, uint32_t k)
{
	return ((gen << 20 | id) + k) * UINT64_C(0xf1357aea2e62a9c5);
}

static _Noreturn void weak_fail(uint64_t id, const char *what, uint64_t found, uint64_t expected)
{
	fprintf(stderr,
	        "09_weak_finalize: key %" PRIu64 ": %s is 0x%016" PRIx64 ", expected 0x%016" PRIx64
	        "\n",
	        id, what, found, expected);
	abort();
}

static void *weak_owner_chunk(void *owners, uint32_t id)
{
	return gcr_read(owners, id / CHUNK_SLOTS);
}

/* Checks a key object's contents and returns its generation. No allocation. */
static uint64_t weak_check_key(void *key, uint64_t id)
{
	uint64_t gen = probe_get_u64(key, KEY_PTRS, 8);
	void *payload = gcr_read(key, 0);

	if (probe_get_u64(key, KEY_PTRS, 0) != id)
		weak_fail(id, "a key's id", probe_get_u64(key, KEY_PTRS, 0), id);
	for (uint32_t k = 0; k < PAYLOAD_BYTES / 8u; k++)
		if (probe_get_u64(payload, 0, k * 8u) != weak_word(id, gen, k))
			weak_fail(id, "a key's payload word", probe_get_u64(payload, 0, k * 8u),
			          weak_word(id, gen, k));
	return gen;
}

/* A new key for owner slot id, generation gen, stored in its slot. */
static void weak_new_key(struct weak_roots *r, uint32_t id, uint64_t gen)
{
	r->key = gcr_alloc(KEY_PTRS, KEY_BYTES);
	probe_put_u64(r->key, KEY_PTRS, 0, id);
	probe_put_u64(r->key, KEY_PTRS, 8, gen);
	probe_put_u64(r->key, KEY_PTRS, 16,
	              (gen * 7 + id) % FINALIZABLE_EVERY == 0 ? KEY_FINALIZABLE : 0);
	r->payload = gcr_alloc(0, PAYLOAD_BYTES);
	for (uint32_t k = 0; k < PAYLOAD_BYTES / 8u; k++)
		probe_put_u64(r->payload, 0, k * 8u, weak_word(id, gen, k));
	gcr_write(r->key, 0, r->payload);
	gcr_write(weak_owner_chunk(r->owners, id), id % CHUNK_SLOTS, r->key);
	weak_generation[id] = gen;
	r->key = r->payload = NULL;
}

/* Replaces owner id's key; the old one dies, and is queued if it was finalizable. */
static void weak_replace(struct weak_roots *r, uint32_t id)
{
	r->key = gcr_read(weak_owner_chunk(r->owners, id), id % CHUNK_SLOTS);
	if (probe_get_u64(r->key, KEY_PTRS, 16) & KEY_FINALIZABLE) {
		r->node = gcr_alloc(QNODE_PTRS, 0);
		gcr_write(r->node, 0, r->queue);
		gcr_write(r->node, 1, r->key);
		r->queue = r->node;
		r->node = NULL;
	}
	r->key = NULL;
	weak_new_key(r, id, weak_generation[id] + 1);
}

/* Looks owner id's key up in the cache; a miss computes and installs the value. */
static uint64_t weak_lookup(struct weak_roots *r, uint32_t id, uint64_t step, uint64_t h)
{
	uint32_t slot = (uint32_t)((id * UINT64_C(0x9e3779b97f4a7c15)) >> 51) % CACHE_SLOTS;
	uint64_t gen = weak_generation[id];
	void *e;

	r->box = gcr_alloc(0, BOX_BYTES);
	probe_put_u64(r->box, 0, 0, id);
	probe_put_u64(r->box, 0, 8, step);
	e = gcr_read(r->cache, slot);
	if (e && probe_get_u64(e, ENTRY_PTRS, 0) == id && probe_get_u64(e, ENTRY_PTRS, 8) == gen) {
		void *v = gcr_read(e, 1);

		for (uint32_t k = 0; k < VALUE_BYTES / 8u; k++)
			if (probe_get_u64(v, 0, k * 8u) != weak_word(id, gen, k) >> 1)
				weak_fail(id, "a cached value word", probe_get_u64(v, 0, k * 8u),
				          weak_word(id, gen, k) >> 1);
		r->box = NULL;
		return probe_mix(probe_mix(h, 1), probe_get_u64(v, 0, 8));
	}
	r->value = gcr_alloc(0, VALUE_BYTES);
	r->key = gcr_read(weak_owner_chunk(r->owners, id), id % CHUNK_SLOTS);
	if (weak_check_key(r->key, id) != gen)
		weak_fail(id, "a key's generation", probe_get_u64(r->key, KEY_PTRS, 8), gen);
	for (uint32_t k = 0; k < VALUE_BYTES / 8u; k++)
		probe_put_u64(r->value, 0, k * 8u,
		              probe_get_u64(gcr_read(r->key, 0), 0, k * 8u) >> 1);
	r->entry = gcr_alloc(ENTRY_PTRS, ENTRY_BYTES);
	probe_put_u64(r->entry, ENTRY_PTRS, 0, id);
	probe_put_u64(r->entry, ENTRY_PTRS, 8, gen);
	gcr_write(r->entry, 0, r->key);
	gcr_write(r->entry, 1, r->value);
	gcr_write(r->cache, slot, r->entry);
	h = probe_mix(probe_mix(h, 2), probe_get_u64(r->value, 0, 8));
	r->box = r->key = r->value = r->entry = NULL;
	return h;
}

/* What a collector would do: clear entries with dead keys, run queued finalizers. */
static uint64_t weak_collect(struct weak_roots *r, uint64_t h)
{
	uint64_t cleared = 0, finalized = 0;

	for (uint32_t i = 0; i < CACHE_SLOTS; i++) {
		void *e = gcr_read(r->cache, i);

		if (e && weak_generation[probe_get_u64(e, ENTRY_PTRS, 0)] !=
		             probe_get_u64(e, ENTRY_PTRS, 8)) {
			gcr_write(r->cache, i, NULL);
			cleared++;
		}
	}
	for (void *n = r->queue; n; n = gcr_read(n, 0)) {
		void *key = gcr_read(n, 1);
		uint64_t id = probe_get_u64(key, KEY_PTRS, 0);
		uint64_t gen = weak_check_key(key, id);

		if (gen >= weak_generation[id])
			weak_fail(id, "a queued key's generation (not dead)", gen,
			          weak_generation[id]);
		h = probe_mix(h, id);
		h = probe_mix(h, gen);
		finalized++;
	}
	r->queue = NULL;
	h = probe_mix(h, cleared);
	return probe_mix(h, finalized);
}

static uint64_t weak_run(uint64_t iterations)
{
	struct weak_roots r = {0};
	uint64_t rng = UINT64_C(0xa54ff53a5f1d36f1);
	uint64_t h = 9;

	GCR_ROOTS(&r.owners, &r.cache, &r.queue, &r.key, &r.payload, &r.entry, &r.value, &r.node,
	          &r.box);
	r.owners = gcr_alloc(OWNER_CHUNKS, 0);
	for (uint32_t c = 0; c < OWNER_CHUNKS; c++) {
		r.key = gcr_alloc(CHUNK_SLOTS, 0);
		gcr_write(r.owners, c, r.key);
	}
	r.key = NULL;
	r.cache = gcr_alloc(CACHE_SLOTS, 0);
	for (uint32_t id = 0; id < OWNERS; id++)
		weak_new_key(&r, id, 0);

	for (uint64_t step = 0; step < iterations; step++) {
		uint64_t x = probe_rand(&rng);
		uint32_t id = (uint32_t)(x % OWNERS);

		if (step % REPLACE_EVERY == REPLACE_EVERY - 1)
			weak_replace(&r, id);
		else if (step % 2 == 0)
			h = weak_lookup(&r, id, step, h);
		if (step % CLEAR_EVERY == CLEAR_EVERY - 1)
			h = weak_collect(&r, h);
	}

	h = weak_collect(&r, h);
	for (uint32_t id = 0; id < OWNERS; id++) {
		void *key = gcr_read(weak_owner_chunk(r.owners, id), id % CHUNK_SLOTS);
		uint64_t gen = weak_check_key(key, id);

		if (gen != weak_generation[id])
			weak_fail(id, "an owner's key generation", gen, weak_generation[id]);
		h = probe_mix(h, gen);
	}
	for (uint32_t i = 0; i < CACHE_SLOTS; i++) {
		void *e = gcr_read(r.cache, i);

		h = probe_mix(h, e ? probe_get_u64(e, ENTRY_PTRS, 0) + 1 : 0);
	}
	GCR_POP();
	return h;
}

static int weak_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	(void)c;
	(void)caps;
	snprintf(why, why_size,
	         "the gcr ABI version %d has no weak references or finalizers: this probe "
	         "emulates a weak-keyed cache and a finalization queue with strong references and "
	         "explicit clearing, which no collector takes part in",
	         GCR_ABI_VERSION);
	return -1;
}

static const struct probe_spec spec = {
    .name = "09_weak_finalize",
    .premise = "(awaits weak references in the ABI) dead keys must be cleared from a weak "
               "cache and finalizable objects queued",
    .iterations = {1000000, 40000000, 400000000},
    .run = weak_run,
    .premise_met = weak_premise,
};

PROBE_MAIN(spec)
