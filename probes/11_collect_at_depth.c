/*
 * 11_collect_at_depth — collections while a deep stack of frames holds live roots.
 *
 * Stresses: root scanning of a deep shadow stack (or C stack, for a conservative collector),
 * and for a moving collector the update of every root in every frame. Each iteration is one
 * descent: a recursion DEPTH_MAX, 3/4, 1/2 or 1/4 of DEPTH_MAX frames deep (rotating), where
 * every frame roots its own node (2 pointers + 16 bytes: parent frame's node, payload; depth,
 * tag) and payload (40 bytes), plus FRAME_GARBAGE short-lived objects. At the deepest frame a
 * burst of BURST_LISTS lists of BURST_LIST_LEN cells (1 pointer + 40 bytes) is built and
 * dropped, so that collections happen while the whole stack is live; then the chain of frame
 * nodes is walked from the bottom up, and on the way back up each frame verifies its own
 * objects. A wrong value names the descent and frame and aborts: a collector that lost or
 * failed to update a root must fail loudly, not print a different checksum.
 *
 * Premise: a collector that collects must collect while the stack is deep: the probe reads
 * gcr_census at the frame half way down and again at the deepest point after the burst, and
 * counts the collections in between (with at least half the descent's frames live).
 *
 * Sizes (descents; ~24 000 objects and ~1.07 MB of payload per descent on average): ci 50
 *   (54 MB), default 1 000 (1.07 GB), large 10 000 (10.7 GB). DEPTH_MAX (2000) may be set at
 *   build time (a short run under GCR_ZEAL).
 *
 * Checksum: each burst list's sum, the bottom-up chain walk, and each frame's node and payload
 * values as it returns.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#ifndef DEPTH_MAX
#define DEPTH_MAX 2000u
#endif
#define FRAME_GARBAGE  2u
#define BURST_LISTS    300u
#define BURST_LIST_LEN 64u

/* Frame node: slot 0 = the parent frame's node, 1 = payload; raw = depth, tag. */
#define NODE_PTRS     2u
#define NODE_BYTES    16u
#define PAYLOAD_WORDS 5u
#define PAYLOAD_BYTES (PAYLOAD_WORDS * 8u)
/* Garbage: slot 0 = the frame's node, a pointer out of a dead object; raw = two words. */
#define GARBAGE_PTRS  1u
#define GARBAGE_BYTES 16u
/* Burst cell: slot 0 = next; raw = five words. */
#define CELL_PTRS     1u
#define CELL_BYTES    40u

/* What the premise check reads: observed inside run(), where the stack is deep. */
static uint64_t depth_collections_deep;
static uint64_t depth_descents_collected;
static uint64_t depth_deepest_collected;
static uint64_t depth_descents;
static int depth_counts_known = 1;

static uint64_t depth_tag(uint64_t descent, uint32_t d)
{
	return (descent << 32 | d) * UINT64_C(0xff51afd7ed558ccd) + 0x5bd1e995u;
}

static uint64_t depth_payload_word(uint64_t tag, uint32_t k)
{
	return tag ^ (UINT64_C(0xc4ceb9fe1a85ec53) * (k + 1));
}

static uint32_t depth_of_descent(uint64_t descent)
{
	return DEPTH_MAX - (uint32_t)(descent % 4) * (DEPTH_MAX / 4);
}

static int depth_collections(uint64_t *out)
{
	const uint64_t counts =
	    (UINT64_C(1) << GCR_C_MINOR_COLLECTIONS) | (UINT64_C(1) << GCR_C_MAJOR_COLLECTIONS);
	struct gcr_census c = {0};

	gcr_census(&c);
	*out = c.value[GCR_C_MINOR_COLLECTIONS] + c.value[GCR_C_MAJOR_COLLECTIONS];
	return (c.known & counts) == counts ? 0 : -1;
}

static void depth_fail(uint64_t descent, uint32_t d, const char *what, uint64_t found,
                       uint64_t expected)
{
	fprintf(stderr,
	        "11_collect_at_depth: descent %" PRIu64 ", frame %" PRIu32 ": %s is 0x%016" PRIx64
	        ", expected 0x%016" PRIx64 " (a root was lost or not updated)\n",
	        descent, d, what, found, expected);
	abort();
}

/* Checks one frame's node and payload; no allocation, so plain pointers are safe here. */
static uint64_t depth_check_node(uint64_t h, void *node, uint64_t descent, uint32_t d)
{
	uint64_t tag = depth_tag(descent, d);
	void *payload;

	if (!node)
		depth_fail(descent, d, "node pointer", 0, tag);
	if (probe_get_u64(node, NODE_PTRS, 0) != d)
		depth_fail(descent, d, "node depth", probe_get_u64(node, NODE_PTRS, 0), d);
	if (probe_get_u64(node, NODE_PTRS, 8) != tag)
		depth_fail(descent, d, "node tag", probe_get_u64(node, NODE_PTRS, 8), tag);
	payload = gcr_read(node, 1);
	if (!payload)
		depth_fail(descent, d, "payload pointer", 0, tag);
	for (uint32_t k = 0; k < PAYLOAD_WORDS; k++) {
		uint64_t w = probe_get_u64(payload, 0, k * 8u);

		if (w != depth_payload_word(tag, k))
			depth_fail(descent, d, "payload word", w, depth_payload_word(tag, k));
		h = probe_mix(h, w);
	}
	return probe_mix(h, d);
}

/* The deepest frame's work: garbage while every frame above is live, then a chain walk. */
static uint64_t depth_bottom(void **bottom, uint64_t descent, uint32_t depth, uint64_t h)
{
	void *list = NULL, *cell = NULL;
	uint64_t rng = descent * 2 + 1;
	uint32_t d;

	GCR_ROOTS(&list, &cell);
	for (uint32_t l = 0; l < BURST_LISTS; l++) {
		uint64_t sum = 0;

		list = NULL;
		for (uint32_t i = 0; i < BURST_LIST_LEN; i++) {
			cell = gcr_alloc(CELL_PTRS, CELL_BYTES);
			for (uint32_t k = 0; k < CELL_BYTES / 8u; k++)
				probe_put_u64(cell, CELL_PTRS, k * 8u, probe_rand(&rng) >> 16);
			gcr_write(cell, 0, list);
			list = cell;
		}
		for (void *p = list; p; p = gcr_read(p, 0))
			sum += probe_get_u64(p, CELL_PTRS, 0) ^ probe_get_u64(p, CELL_PTRS, 32);
		h = probe_mix(h, sum);
	}
	list = cell = NULL;
	GCR_POP();

	/* Every frame's node is reachable from the bottom one: walk them all before returning. */
	d = depth - 1;
	for (void *n = *bottom; n; n = gcr_read(n, 0), d--)
		h = depth_check_node(h, n, descent, d);
	if (d != UINT32_MAX)
		depth_fail(descent, d, "chain length (frames not walked)", d + 1, 0);
	return h;
}

static uint64_t depth_frame(void **parent, uint64_t descent, uint32_t d, uint32_t depth, uint64_t h)
{
	void *node = NULL, *payload = NULL, *garbage = NULL;
	uint64_t tag = depth_tag(descent, d);

	GCR_ROOTS(&node, &payload, &garbage);
	node = gcr_alloc(NODE_PTRS, NODE_BYTES);
	probe_put_u64(node, NODE_PTRS, 0, d);
	probe_put_u64(node, NODE_PTRS, 8, tag);
	gcr_write(node, 0, parent ? *parent : NULL);
	payload = gcr_alloc(0, PAYLOAD_BYTES);
	for (uint32_t k = 0; k < PAYLOAD_WORDS; k++)
		probe_put_u64(payload, 0, k * 8u, depth_payload_word(tag, k));
	gcr_write(node, 1, payload);
	for (uint32_t g = 0; g < FRAME_GARBAGE; g++) {
		garbage = gcr_alloc(GARBAGE_PTRS, GARBAGE_BYTES);
		gcr_write(garbage, 0, node);
		probe_put_u64(garbage, GARBAGE_PTRS, 0, tag + g);
		probe_put_u64(garbage, GARBAGE_PTRS, 8, d);
	}
	garbage = NULL;

	if (d == depth / 2 && d + 1 < depth) {
		uint64_t before = 0, after = 0;

		/*
		 * Nothing allocates on the way back up, so the count on return is the count at the
		 * deepest point, after the burst.
		 */
		if (depth_collections(&before) != 0)
			depth_counts_known = 0;
		h = depth_frame(&node, descent, d + 1, depth, h);
		if (depth_collections(&after) != 0)
			depth_counts_known = 0;
		if (after > before) {
			depth_collections_deep += after - before;
			depth_descents_collected++;
			if (depth > depth_deepest_collected)
				depth_deepest_collected = depth;
		}
	} else if (d + 1 < depth) {
		h = depth_frame(&node, descent, d + 1, depth, h);
	} else {
		h = depth_bottom(&node, descent, depth, h);
	}

	/* Back on the way up: this frame's roots must still hold this frame's objects. */
	if (payload != gcr_read(node, 1))
		depth_fail(descent, d, "payload root differs from node's payload slot", 1, 0);
	h = depth_check_node(h, node, descent, d);
	GCR_POP();
	return h;
}

static uint64_t depth_run(uint64_t iterations)
{
	uint64_t h = 11;

	for (uint64_t descent = 0; descent < iterations; descent++)
		h = depth_frame(NULL, descent, 0, depth_of_descent(descent), h);
	depth_descents = iterations;
	return h;
}

static int depth_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	(void)c;
	if (!(caps & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect");
		return -1;
	}
	if (!depth_counts_known) {
		snprintf(why, why_size, "the census lacks minor/major collection counts");
		return -1;
	}
	if (depth_collections_deep == 0) {
		snprintf(why, why_size,
		         "no collection happened with the stack deep (%" PRIu64 " descents of up "
		         "to %u frames)",
		         depth_descents, DEPTH_MAX);
		return 0;
	}
	snprintf(why, why_size,
	         "%" PRIu64 " collections with at least half of a descent's frames live, in "
	         "%" PRIu64 " of %" PRIu64 " descents; deepest %" PRIu64 " frames",
	         depth_collections_deep, depth_descents_collected, depth_descents,
	         depth_deepest_collected);
	return 1;
}

static const struct probe_spec spec = {
    .name = "11_collect_at_depth",
    .premise = "collections happen while a deep stack of frames holds live roots",
    .iterations = {50, 1000, 10000},
    .run = depth_run,
    .premise_met = depth_premise,
};

PROBE_MAIN(spec)
