/*
 * 12_large_live_set — a large live structure that every collection must trace again.
 *
 * Stresses: marking (or copying) throughput over a big live heap, and the heap-growth policy
 * that decides how often a big heap is traced. The structure is a table of small nodes: a
 * directory of chunks of LIVE_CHUNK_SLOTS bucket heads, bucket b a list of the nodes numbered
 * b * LIVE_NODES_PER_BUCKET onwards (1 pointer + 24 bytes: next; key, value, check), a node's
 * key a bijective hash of its number. Lists are built bucket by bucket, so the mutator's own
 * walks stay cheap and tracing dominates.
 * Once it is built, CHURN_PER_NODE churn steps per node each allocate a short-lived request
 * (1 pointer + 40 bytes), and every UPDATE_EVERY-th step replaces a random node with a new one
 * (the old node dies; the new one is stored into an old list or chunk: a barrier store).
 * The table is verified at the end, and stays rooted (a static root frame) through the
 * runtime's final full collection, so heap_used_after_full_bytes must count it.
 *
 * Iterations are nodes: the live set is ~34 bytes of payload per node (node plus its share of
 * bucket heads). Churn allocates 48 bytes per step (plus a 32-byte node every UPDATE_EVERY
 * steps), ~196 bytes per node in all.
 *
 * Premise: a collector that collects must collect more than once while the set is fully built
 * (the final full collection is one), and if it reports heap_used_after_full_bytes, that must
 * be at least the live set's payload.
 *
 * Sizes (nodes): ci 200 000 (6.8 MB live, 46 MB allocated), default 3 200 000 (109 MB live,
 *   736 MB allocated), large 30 000 000 (1.02 GB live, 6.9 GB allocated). ci is kept small
 *   so that it stays well under 0.3 s on marksweep (~0.1 s of CPU).
 *
 * Checksum: every request's value read back, then the whole table walked bucket by bucket
 * (key, value of each node in list order). A node out of place (not the key its position
 * implies), with a bad check word, or a wrong node count aborts the probe with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define LIVE_CHUNK_SLOTS      512u
#define LIVE_NODES_PER_BUCKET 4u
#define CHURN_PER_NODE        4u
#define UPDATE_EVERY          32u

/* Node: slot 0 = next in the bucket; raw = key, value, check. */
#define NODE_PTRS  1u
#define NODE_BYTES 24u
/* Request: slot 0 = the directory (a short-lived object pointing into the old set). */
#define REQ_PTRS   1u
#define REQ_BYTES  40u

#define LIVE_CHECK_MUL UINT64_C(0xd6e8feb86659fd93)

/* Keeps the table live after run() returns, through the runtime's final full collection. */
static void *live_dir;
static void **live_slots[] = {&live_dir};
static struct gcr_frame live_frame;

/* What the premise check reads. */
static uint64_t live_payload_bytes;
static uint64_t live_collections_at_built;
static int live_counts_known = 1;

/* A bijection on 64-bit integers (splitmix64's finaliser): distinct nodes, distinct keys. */
static uint64_t live_key(uint64_t i)
{
	uint64_t z = i + UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void live_set_node(void *node, uint64_t key, uint64_t value)
{
	probe_put_u64(node, NODE_PTRS, 0, key);
	probe_put_u64(node, NODE_PTRS, 8, value);
	probe_put_u64(node, NODE_PTRS, 16, value ^ (key * LIVE_CHECK_MUL));
}

static int live_collections(uint64_t *out)
{
	const uint64_t counts =
	    (UINT64_C(1) << GCR_C_MINOR_COLLECTIONS) | (UINT64_C(1) << GCR_C_MAJOR_COLLECTIONS);
	struct gcr_census c = {0};

	gcr_census(&c);
	*out = c.value[GCR_C_MINOR_COLLECTIONS] + c.value[GCR_C_MAJOR_COLLECTIONS];
	return (c.known & counts) == counts ? 0 : -1;
}

static void live_fail(uint64_t bucket, const char *what, uint64_t found, uint64_t expected)
{
	fprintf(stderr,
	        "12_large_live_set: bucket %" PRIu64 ": %s is 0x%016" PRIx64
	        ", expected 0x%016" PRIx64 "\n",
	        bucket, what, found, expected);
	abort();
}

/* The bucket holding node j, and the slot of its head in its chunk. No allocation. */
static void *live_chunk(uint64_t j, uint32_t *slot)
{
	uint64_t b = j / LIVE_NODES_PER_BUCKET;

	*slot = (uint32_t)(b % LIVE_CHUNK_SLOTS);
	return gcr_read(live_dir, (uint32_t)(b / LIVE_CHUNK_SLOTS));
}

/* Replaces node j by `fresh`, with a new value, in place in its list; returns that value. */
static uint64_t live_replace(void *fresh, uint64_t j, uint64_t step)
{
	uint64_t key = live_key(j);
	uint32_t slot;
	void *chunk = live_chunk(j, &slot);
	void *prev = NULL;
	void *n = gcr_read(chunk, slot);
	uint64_t value;

	while (n && probe_get_u64(n, NODE_PTRS, 0) != key) {
		prev = n;
		n = gcr_read(n, 0);
	}
	if (!n)
		live_fail(j / LIVE_NODES_PER_BUCKET, "missing key", 0, key);
	value = probe_mix(probe_get_u64(n, NODE_PTRS, 8), step);
	live_set_node(fresh, key, value);
	gcr_write(fresh, 0, gcr_read(n, 0));
	if (prev)
		gcr_write(prev, 0, fresh);
	else
		gcr_write(chunk, slot, fresh);
	return value;
}

/* Walks every bucket in order: bucket b must hold nodes b * PER_BUCKET, ... in list order. */
static uint64_t live_verify(uint64_t h, uint64_t nodes, uint64_t nbuckets)
{
	uint64_t j = 0;

	for (uint64_t b = 0; b < nbuckets; b++) {
		void *chunk = gcr_read(live_dir, (uint32_t)(b / LIVE_CHUNK_SLOTS));

		for (void *n = gcr_read(chunk, (uint32_t)(b % LIVE_CHUNK_SLOTS)); n;
		     n = gcr_read(n, 0), j++) {
			uint64_t key = probe_get_u64(n, NODE_PTRS, 0);
			uint64_t value = probe_get_u64(n, NODE_PTRS, 8);
			uint64_t check = probe_get_u64(n, NODE_PTRS, 16);

			if (j >= nodes || j / LIVE_NODES_PER_BUCKET != b)
				live_fail(b, "a node's index (a list too long)", j,
				          b * LIVE_NODES_PER_BUCKET);
			if (key != live_key(j))
				live_fail(b, "a node's key", key, live_key(j));
			if (check != (value ^ (key * LIVE_CHECK_MUL)))
				live_fail(b, "a node's check word", check,
				          value ^ (key * LIVE_CHECK_MUL));
			h = probe_mix(h, key);
			h = probe_mix(h, value);
		}
	}
	if (j != nodes)
		live_fail(nbuckets, "the node count", j, nodes);
	return h;
}

static uint64_t live_run(uint64_t nodes)
{
	void *chunk = NULL, *node = NULL, *req = NULL;
	uint64_t rng = UINT64_C(0x5851f42d4c957f2d);
	uint64_t h = 12, nbuckets, nchunks;

	/* Past this the directory's slot count would not fit gcr_alloc's uint32_t. */
	if (nodes > UINT32_MAX) {
		fprintf(stderr,
		        "12_large_live_set: %" PRIu64 " nodes is too many (at most %" PRIu32 ")\n",
		        nodes, UINT32_MAX);
		abort();
	}
	nbuckets = (nodes + LIVE_NODES_PER_BUCKET - 1) / LIVE_NODES_PER_BUCKET;
	nchunks = (nbuckets + LIVE_CHUNK_SLOTS - 1) / LIVE_CHUNK_SLOTS;
	live_payload_bytes =
	    nodes * (NODE_PTRS * 8 + NODE_BYTES) + nchunks * LIVE_CHUNK_SLOTS * 8 + nchunks * 8;

	live_frame.prev = gcr_roots_top;
	live_frame.nslots = 1;
	live_frame.slots = live_slots;
	gcr_roots_top = &live_frame;

	GCR_ROOTS(&chunk, &node, &req);
	live_dir = gcr_alloc((uint32_t)nchunks, 0);
	for (uint64_t c = 0; c < nchunks; c++) {
		chunk = gcr_alloc(LIVE_CHUNK_SLOTS, 0);
		gcr_write(live_dir, (uint32_t)c, chunk);
	}
	chunk = NULL;
	/*
	 * Bucket by bucket, each list built back to front, so that a list's nodes are allocated
	 * together: walking the table costs the mutator little, and the collector's tracing is
	 * what the probe measures.
	 */
	for (uint64_t b = 0; b < nbuckets; b++) {
		uint64_t first = b * LIVE_NODES_PER_BUCKET;
		uint64_t end =
		    first + LIVE_NODES_PER_BUCKET < nodes ? first + LIVE_NODES_PER_BUCKET : nodes;

		for (uint64_t j = end; j-- > first;) {
			uint64_t key = live_key(j);
			uint32_t slot;
			void *ch;

			node = gcr_alloc(NODE_PTRS, NODE_BYTES);
			live_set_node(node, key, key >> 7);
			ch = live_chunk(j, &slot);
			gcr_write(node, 0, gcr_read(ch, slot));
			gcr_write(ch, slot, node);
		}
	}
	node = NULL;
	if (live_collections(&live_collections_at_built) != 0)
		live_counts_known = 0;

	for (uint64_t step = 0; step < nodes * CHURN_PER_NODE; step++) {
		uint64_t r = probe_rand(&rng);

		req = gcr_alloc(REQ_PTRS, REQ_BYTES);
		gcr_write(req, 0, live_dir);
		for (uint32_t k = 0; k < REQ_BYTES / 8u; k++)
			probe_put_u64(req, REQ_PTRS, k * 8u, r + k);
		h = probe_mix(h, probe_get_u64(req, REQ_PTRS, (uint32_t)(step % 5) * 8u));
		if (step % UPDATE_EVERY == UPDATE_EVERY - 1) {
			node = gcr_alloc(NODE_PTRS, NODE_BYTES);
			h = probe_mix(h, live_replace(node, r % nodes, step));
		}
		req = node = NULL;
	}

	h = live_verify(h, nodes, nbuckets);
	GCR_POP();
	return h;
}

static int live_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	const uint64_t used_bit = UINT64_C(1) << GCR_C_HEAP_USED_AFTER_FULL_BYTES;
	uint64_t live_collections_n;

	if (!(caps & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect");
		return -1;
	}
	if (!live_counts_known) {
		snprintf(why, why_size, "the census lacks minor/major collection counts");
		return -1;
	}
	/* The final census counts the runtime's full collection, with the set still rooted. */
	live_collections_n = c->value[GCR_C_MINOR_COLLECTIONS] + c->value[GCR_C_MAJOR_COLLECTIONS] -
	                     live_collections_at_built;
	if (live_collections_n <= 1) {
		snprintf(why, why_size,
		         "the %" PRIu64 "-byte live set was traced by %" PRIu64
		         " collection(s) once built, with the final full one: churn never "
		         "collected",
		         live_payload_bytes, live_collections_n);
		return 0;
	}
	if ((c->known & used_bit) &&
	    c->value[GCR_C_HEAP_USED_AFTER_FULL_BYTES] < live_payload_bytes) {
		snprintf(why, why_size,
		         "heap_used_after_full_bytes %" PRIu64 " is below the live set's %" PRIu64
		         " bytes of payload",
		         c->value[GCR_C_HEAP_USED_AFTER_FULL_BYTES], live_payload_bytes);
		return 0;
	}
	snprintf(why, why_size,
	         "%" PRIu64 " collections traced the %" PRIu64 "-byte live set once built%s",
	         live_collections_n, live_payload_bytes,
	         (c->known & used_bit) ? "; heap used after the full collection covers it" : "");
	return 1;
}

static const struct probe_spec spec = {
    .name = "12_large_live_set",
    .premise = "a large live set stays reachable while garbage churns: every collection "
               "traces it again",
    .iterations = {200000, 3200000, 30000000},
    .run = live_run,
    .premise_met = live_premise,
};

PROBE_MAIN(spec)
