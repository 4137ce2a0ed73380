/*
 * 05_binary_trees — the GCBench shape (Ellis, Kovac and Boehm): a stretch tree, a long-lived
 * tree and array, and many short-lived trees of varying depth built top-down and bottom-up.
 *
 * Stresses: allocation of many small two-pointer nodes whose lifetimes nest (a subtree lives
 * as long as its parent), tracing a medium long-lived structure at every collection, and heap
 * growth and shrinkage as short-lived trees of depth 4 to N come and go. The iteration count
 * is the maximum tree depth N, as in GCBench and the benchmarks game's binary-trees:
 *   1. a stretch tree of depth N + 1 is built bottom-up, walked and dropped (heap warm-up);
 *   2. a long-lived tree of depth N is built top-down (populated from the root) and a
 *      long-lived array of 2^(N-1) words (no pointers, one object) is filled; both stay live;
 *   3. for d = MIN_DEPTH, MIN_DEPTH + 2, ... <= N: 2^(N-d) pairs of trees of depth d, one
 *      top-down and one bottom-up, each walked and dropped at once (~2^(N+2) nodes per depth);
 *   4. the long-lived tree and array are verified.
 * A node is 2 pointers + 8 bytes (left, right; its height and its build order packed in one
 * word): 24 bytes requested, as GCBench's two pointers and two ints.
 *
 * Since iterations are a depth, work grows as (N/2) * 2^(N+2) nodes: --iterations sets N, and
 * two counts do not give a per-iteration cost for this probe. N must be 1 to MAX_N.
 *
 * Premise: a collector that collects must collect during the run (minor + major > 1).
 *
 * Sizes (N): ci 16 (2.2 M nodes, 53 MB; the long-lived tree 3 MB), default 19 (19.8 M nodes,
 *   478 MB; 25 MB), large 22 (192 M nodes, 4.6 GB; 201 MB).
 *
 * Checksum: for every tree walked (left before right), each node's build order; the node
 * counts; then the long-lived tree and array. A node whose height is not what its position
 * implies, a wrong node count or a wrong array word aborts the probe with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"

#define MIN_DEPTH 4u
#define MAX_N     26u

/* Node: slot 0 = left, 1 = right; raw = height << 32 | build order (within its tree). */
#define NODE_PTRS  2u
#define NODE_BYTES 8u

#define TREES_ARRAY_MUL UINT64_C(0x9fb21c651e98df25)

static _Noreturn void trees_fail(const char *tree, const char *what, uint64_t found,
                                 uint64_t expected)
{
	fprintf(stderr, "05_binary_trees: %s: %s is %" PRIu64 ", expected %" PRIu64 "\n", tree,
	        what, found, expected);
	abort();
}

static void *trees_node(uint32_t height, uint64_t *order)
{
	void *n = gcr_alloc(NODE_PTRS, NODE_BYTES);

	probe_put_u64(n, NODE_PTRS, 0, (uint64_t)height << 32 | (*order)++);
	return n;
}

/* Fills *node (a rooted location holding a leaf) with children down to height 0. */
static void trees_populate(void **node, uint32_t height, uint64_t *order)
{
	void *child = NULL;

	if (height == 0)
		return;
	GCR_ROOTS(&child);
	child = trees_node(height - 1, order);
	gcr_write(*node, 0, child);
	child = trees_node(height - 1, order);
	gcr_write(*node, 1, child);
	child = gcr_read(*node, 0);
	trees_populate(&child, height - 1, order);
	child = gcr_read(*node, 1);
	trees_populate(&child, height - 1, order);
	GCR_POP();
}

/* A tree of the given height, children first. The result is unrooted: store it at once. */
static void *trees_bottom_up(uint32_t height, uint64_t *order)
{
	void *left = NULL, *right = NULL, *n;

	if (height == 0)
		return trees_node(0, order);
	GCR_ROOTS(&left, &right);
	left = trees_bottom_up(height - 1, order);
	right = trees_bottom_up(height - 1, order);
	n = trees_node(height, order);
	gcr_write(n, 0, left);
	gcr_write(n, 1, right);
	GCR_POP();
	return n;
}

/* Walks a tree (no allocation), checking heights; returns its node count. */
static uint64_t trees_walk(const char *tree, void *n, uint32_t height, uint64_t *h)
{
	uint64_t word, count = 1;
	void *left, *right;

	if (!n)
		trees_fail(tree, "a missing node at height", height, height);
	word = probe_get_u64(n, NODE_PTRS, 0);
	if (word >> 32 != height)
		trees_fail(tree, "a node's height", word >> 32, height);
	*h = probe_mix(*h, word & UINT32_MAX);
	left = gcr_read(n, 0);
	right = gcr_read(n, 1);
	if (height == 0) {
		if (left || right)
			trees_fail(tree, "a leaf's child count", (left != NULL) + (right != NULL),
			           0);
		return 1;
	}
	count += trees_walk(tree, left, height - 1, h);
	count += trees_walk(tree, right, height - 1, h);
	return count;
}

static uint64_t trees_check(const char *tree, void *root, uint32_t height, uint64_t h)
{
	uint64_t count = trees_walk(tree, root, height, &h);
	uint64_t expected = (UINT64_C(2) << height) - 1;

	if (count != expected)
		trees_fail(tree, "the node count", count, expected);
	return probe_mix(h, count);
}

static uint64_t trees_array_word(uint64_t i)
{
	return (i + 1) * TREES_ARRAY_MUL >> 11;
}

static uint64_t trees_run(uint64_t iterations)
{
	void *tree = NULL, *long_tree = NULL, *array = NULL;
	uint32_t n = (uint32_t)iterations;
	uint64_t array_words, order;
	uint64_t h = 5;

	if (iterations > MAX_N) {
		fprintf(stderr, "05_binary_trees: depth %" PRIu64 " is too deep (at most %u)\n",
		        iterations, MAX_N);
		abort();
	}
	array_words = UINT64_C(1) << (n - 1);

	GCR_ROOTS(&tree, &long_tree, &array);
	order = 0;
	tree = trees_bottom_up(n + 1, &order);
	h = trees_check("stretch tree", tree, n + 1, h);
	tree = NULL;

	order = 0;
	long_tree = trees_node(n, &order);
	trees_populate(&long_tree, n, &order);
	array = gcr_alloc(0, (uint32_t)(array_words * 8u));
	for (uint64_t i = 0; i < array_words; i++)
		probe_put_u64(array, 0, (uint32_t)(i * 8u), trees_array_word(i));

	for (uint32_t d = MIN_DEPTH; d <= n; d += 2) {
		uint64_t pairs = UINT64_C(1) << (n - d);

		for (uint64_t p = 0; p < pairs; p++) {
			order = 0;
			tree = trees_node(d, &order);
			trees_populate(&tree, d, &order);
			h = trees_check("top-down tree", tree, d, h);
			order = 0;
			tree = trees_bottom_up(d, &order);
			h = trees_check("bottom-up tree", tree, d, h);
			tree = NULL;
		}
		h = probe_mix(h, d);
	}

	h = trees_check("long-lived tree", long_tree, n, h);
	for (uint64_t i = 0; i < array_words; i++) {
		uint64_t w = probe_get_u64(array, 0, (uint32_t)(i * 8u));

		if (w != trees_array_word(i))
			trees_fail("long-lived array", "a word", w, trees_array_word(i));
		h = probe_mix(h, w);
	}
	GCR_POP();
	return h;
}

static int trees_premise(const struct gcr_census *c, unsigned caps, char *why, size_t why_size)
{
	uint64_t collections;
	int state = probe_collected(c, caps, &collections, why, why_size);

	if (state != 1)
		return state;
	snprintf(why, why_size,
	         "%" PRIu64 " collections (%" PRIu64 " minor, %" PRIu64
	         " major) while short-lived trees came and went",
	         collections, c->value[GCR_C_MINOR_COLLECTIONS], c->value[GCR_C_MAJOR_COLLECTIONS]);
	return 1;
}

static const struct probe_spec spec = {
    .name = "05_binary_trees",
    .premise = "short-lived trees come and go around a long-lived tree: a collector that "
               "collects must collect during the run",
    .iterations = {16, 19, 22},
    .run = trees_run,
    .premise_met = trees_premise,
};

PROBE_MAIN(spec)
