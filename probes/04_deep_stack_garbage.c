/*
 * 04_deep_stack_garbage — garbage left behind under a deep stack's high-water mark.
 *
 * Stresses: whether objects that were rooted by frames that have since returned are really
 * collectable. Each iteration is a round: a dive DEPTH_MAX, 3/4, 1/2 or 1/4 of DEPTH_MAX frames
 * deep (rotating, so that the last round dives DEPTH_MAX deep), where every frame roots its own
 * node (2 pointers + 16 bytes: the parent frame's node, payload; depth, tag) and payload (48
 * bytes), plus one short-lived scratch object (1 pointer + 8 bytes). The nodes form a chain from
 * the deepest frame to the top, so one stale reference to a deep node keeps every node above it
 * alive. At the bottom the chain is walked; then the dive returns, each frame checking its own
 * objects on the way up, and the round continues at shallow depth: SHALLOW_LISTS lists of
 * SHALLOW_LIST_LEN cells (1 pointer + 24 bytes) built, summed and dropped, so that collections run
 * with the dive's objects dead and the C stack below the current frame still full of their
 * addresses. A precise collector must find none of them through the shadow stack; a conservative
 * one scans only the live part of the C stack, but a shallow frame's uninitialised words may still
 * hold a stale address, and what that retains is what this probe measures
 * (heap_used_after_full_bytes, after the runtime's final full collection, made at shallow depth
 * when every object of the run is dead).
 * Per round: 3 objects per frame of the dive (96 bytes a frame, 240 KB on average) and 16 384
 * cells (524 KB) at shallow depth.
 *
 * Premise: a collector that collects must collect during the run (minor + major > 1) and free
 * memory; a precise one must also have freed every dive: heap_used_after_full_bytes, where
 * reported, below the last dive's bytes. A conservative collector's retention is reported in
 * the text, not judged.
 *
 * Sizes (rounds; ~764 KB per round on average): ci 60 (46 MB), default 1 000 (764 MB),
 *   large 10 000 (7.6 GB). DEPTH_MAX (4000) may be set at build time.
 *
 * Checksum: the chain walk at the bottom of each dive, each frame's node and payload on the
 * way up, and each shallow list's sum. A wrong value aborts with the round and frame.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#ifndef DEPTH_MAX
#define DEPTH_MAX 4000u
#endif
#define SHALLOW_LISTS    64u
#define SHALLOW_LIST_LEN 256u

/* Frame node: slot 0 = the parent frame's node, 1 = payload; raw = depth, tag. */
#define NODE_PTRS     2u
#define NODE_BYTES    16u
#define PAYLOAD_WORDS 6u
#define PAYLOAD_BYTES (PAYLOAD_WORDS * 8u)
/* Scratch: slot 0 = the frame's node; raw = one word. */
#define SCRATCH_PTRS  1u
#define SCRATCH_BYTES 8u
/* Shallow cell: slot 0 = next; raw = three words. */
#define CELL_PTRS     1u
#define CELL_BYTES    24u

#define FRAME_REQUESTED_BYTES \
	(NODE_PTRS * 8u + NODE_BYTES + PAYLOAD_BYTES + SCRATCH_PTRS * 8u + SCRATCH_BYTES)

/* What the premise check reads. */
static uint64_t stack_last_dive_bytes;
static uint64_t stack_rounds;

static uint64_t stack_tag(uint64_t round, uint32_t d)
{
	return (round << 32 | d) * UINT64_C(0xc2b2ae3d27d4eb4f) + 0x27d4eb2fu;
}

static uint64_t stack_payload_word(uint64_t tag, uint32_t k)
{
	return tag ^ (UINT64_C(0x165667b19e3779f9) * (k + 1));
}

/* The last round dives deepest, so the runtime's final collection has the most to find. */
static uint32_t stack_depth_of_round(uint64_t round, uint64_t rounds)
{
	return DEPTH_MAX - (uint32_t)((rounds - 1 - round) % 4) * (DEPTH_MAX / 4);
}

static _Noreturn void stack_fail(uint64_t round, uint32_t d, const char *what, uint64_t found,
                                 uint64_t expected)
{
	fprintf(stderr,
	        "04_deep_stack_garbage: round %" PRIu64 ", frame %" PRIu32 ": %s is 0x%016" PRIx64
	        ", expected 0x%016" PRIx64 "\n",
	        round, d, what, found, expected);
	abort();
}

/* Checks one frame's node and payload and folds them into h. No allocation. */
static uint64_t stack_check_node(uint64_t h, void *node, uint64_t round, uint32_t d)
{
	uint64_t tag = stack_tag(round, d);
	void *payload;

	if (!node)
		stack_fail(round, d, "node pointer", 0, tag);
	if (probe_get_u64(node, NODE_PTRS, 0) != d)
		stack_fail(round, d, "node depth", probe_get_u64(node, NODE_PTRS, 0), d);
	if (probe_get_u64(node, NODE_PTRS, 8) != tag)
		stack_fail(round, d, "node tag", probe_get_u64(node, NODE_PTRS, 8), tag);
	payload = gcr_read(node, 1);
	if (!payload)
		stack_fail(round, d, "payload pointer", 0, tag);
	for (uint32_t k = 0; k < PAYLOAD_WORDS; k++) {
		uint64_t w = probe_get_u64(payload, 0, k * 8u);

		if (w != stack_payload_word(tag, k))
			stack_fail(round, d, "payload word", w, stack_payload_word(tag, k));
		h = probe_mix(h, w);
	}
	return probe_mix(h, d);
}

static uint64_t stack_frame(void **parent, uint64_t round, uint32_t d, uint32_t depth, uint64_t h)
{
	void *node = NULL, *payload = NULL, *scratch = NULL;
	uint64_t tag = stack_tag(round, d);

	GCR_ROOTS(&node, &payload, &scratch);
	node = gcr_alloc(NODE_PTRS, NODE_BYTES);
	probe_put_u64(node, NODE_PTRS, 0, d);
	probe_put_u64(node, NODE_PTRS, 8, tag);
	gcr_write(node, 0, parent ? *parent : NULL);
	payload = gcr_alloc(0, PAYLOAD_BYTES);
	for (uint32_t k = 0; k < PAYLOAD_WORDS; k++)
		probe_put_u64(payload, 0, k * 8u, stack_payload_word(tag, k));
	gcr_write(node, 1, payload);
	scratch = gcr_alloc(SCRATCH_PTRS, SCRATCH_BYTES);
	gcr_write(scratch, 0, node);
	probe_put_u64(scratch, SCRATCH_PTRS, 0, tag >> 1);
	h = probe_mix(h, probe_get_u64(gcr_read(scratch, 0), NODE_PTRS, 0));
	scratch = NULL;

	if (d + 1 < depth) {
		h = stack_frame(&node, round, d + 1, depth, h);
	} else {
		/* The bottom: every frame's node is reachable from this one. No allocation. */
		uint32_t e = d;

		for (void *n = node; n; n = gcr_read(n, 0), e--)
			h = stack_check_node(h, n, round, e);
		if (e != UINT32_MAX)
			stack_fail(round, e, "chain length (frames not walked)", e + 1, 0);
	}

	if (payload != gcr_read(node, 1))
		stack_fail(round, d, "payload root differs from the node's payload slot", 1, 0);
	h = stack_check_node(h, node, round, d);
	GCR_POP();
	return h;
}

/* The round's shallow half: garbage made with the dive's objects dead. */
static uint64_t stack_shallow(uint64_t round, uint64_t h)
{
	void *list = NULL, *cell = NULL;
	uint64_t rng = round * 2 + 1;

	GCR_ROOTS(&list, &cell);
	for (uint32_t l = 0; l < SHALLOW_LISTS; l++) {
		uint64_t sum = 0;

		list = NULL;
		for (uint32_t i = 0; i < SHALLOW_LIST_LEN; i++) {
			cell = gcr_alloc(CELL_PTRS, CELL_BYTES);
			for (uint32_t k = 0; k < CELL_BYTES / 8u; k++)
				probe_put_u64(cell, CELL_PTRS, k * 8u, probe_rand(&rng) >> 20);
			gcr_write(cell, 0, list);
			list = cell;
		}
		for (void *p = list; p; p = gcr_read(p, 0))
			sum += probe_get_u64(p, CELL_PTRS, 0) + 3 * probe_get_u64(p, CELL_PTRS, 16);
		h = probe_mix(h, sum);
	}
	list = cell = NULL;
	GCR_POP();
	return h;
}

static uint64_t stack_run(uint64_t iterations)
{
	uint64_t h = 4;

	for (uint64_t round = 0; round < iterations; round++) {
		uint32_t depth = stack_depth_of_round(round, iterations);

		h = stack_frame(NULL, round, 0, depth, h);
		stack_last_dive_bytes = (uint64_t)depth * FRAME_REQUESTED_BYTES;
		h = stack_shallow(round, h);
	}
	stack_rounds = iterations;
	return h;
}

static int stack_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	const uint64_t counts =
	    (UINT64_C(1) << GCR_C_MINOR_COLLECTIONS) | (UINT64_C(1) << GCR_C_MAJOR_COLLECTIONS);
	const uint64_t freed_bit = UINT64_C(1) << GCR_C_FREED_BYTES;
	const uint64_t used_bit = UINT64_C(1) << GCR_C_HEAP_USED_AFTER_FULL_BYTES;
	uint64_t collections, used;

	if (!(caps & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect");
		return -1;
	}
	if ((c->known & counts) != counts || !(c->known & freed_bit)) {
		snprintf(why, why_size,
		         "the census lacks minor/major collection counts or freed_bytes");
		return -1;
	}
	collections = c->value[GCR_C_MINOR_COLLECTIONS] + c->value[GCR_C_MAJOR_COLLECTIONS];
	if (collections <= 1 || c->value[GCR_C_FREED_BYTES] == 0) {
		snprintf(why, why_size,
		         "%" PRIu64 " collection(s) in all, with the final full one, freed %" PRIu64
		         " bytes: the dives' garbage was never collected during the run",
		         collections, c->value[GCR_C_FREED_BYTES]);
		return 0;
	}
	if (!(c->known & used_bit)) {
		snprintf(why, why_size,
		         "%" PRIu64 " collections freed %" PRIu64
		         " bytes; heap_used_after_full_bytes not reported, retention not measured",
		         collections, c->value[GCR_C_FREED_BYTES]);
		return 1;
	}
	used = c->value[GCR_C_HEAP_USED_AFTER_FULL_BYTES];
	if ((caps & GCR_CAP_PRECISE) && used >= stack_last_dive_bytes) {
		snprintf(why, why_size,
		         "precise collector, but %" PRIu64 " bytes stayed live after the final "
		         "full collection, with every object dead (the last dive was %" PRIu64
		         " bytes): dead frames' objects were retained",
		         used, stack_last_dive_bytes);
		return 0;
	}
	snprintf(why, why_size,
	         "%" PRIu64 " collections freed %" PRIu64 " bytes; %" PRIu64
	         " bytes still in use after the final full collection, all of it dead (the "
	         "last dive was %" PRIu64 " bytes)",
	         collections, c->value[GCR_C_FREED_BYTES], used, stack_last_dive_bytes);
	return 1;
}

static const struct probe_spec spec = {
    .name = "04_deep_stack_garbage",
    .premise = "objects rooted by frames that have returned are garbage: a collector must "
               "collect them",
    .iterations = {60, 1000, 10000},
    .run = stack_run,
    .premise_met = stack_premise,
};

PROBE_MAIN(spec)
