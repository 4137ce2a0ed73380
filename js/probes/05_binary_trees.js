/*
 * 05_binary_trees — probes/05_binary_trees.c in JavaScript: the GCBench shape (Ellis, Kovac,
 * Boehm). Same trees, order of construction, sizes and checksum as the C probe.
 *
 * The iteration count is the maximum tree depth N: a stretch tree of depth N + 1 (bottom-up),
 * a long-lived tree of depth N (top-down) and a long-lived array of 2^(N-1) words, then for
 * d = 4, 6, ... N, 2^(N-d) pairs of trees of depth d, one top-down and one bottom-up, each
 * walked and dropped; then the long-lived tree and array are verified. A node is (left,
 * right; height, build order); the array, a pointer-free payload in C, is an Int32Array of
 * 2^N halves (its bytes live outside the JS heap, as V8 keeps typed arrays' contents).
 *
 * Premise: a collector that collects collects during the run (minor + major > 1).
 *
 * Sizes (depth N): ci 16, default 19, large 22; N is 1 to 26.
 *
 * Checksum: every node's build order in walk order (left before right), each tree's node
 * count, then the long-lived tree and array. A node at the wrong height, a wrong node count or
 * a wrong array word exits 134 with a message.
 */
'use strict';

const rt = require('./probe.js');
const R = rt.R;

const MIN_DEPTH = 4;
const MAX_N = 26;
/* TREES_ARRAY_MUL, 0x9fb21c651e98df25 */
const ARRAY_HI = 0x9fb21c65 | 0, ARRAY_LO = 0x1e98df25;

class Node {
	constructor(height, order) {
		this.left = null;
		this.right = null;
		this.height = height;
		this.order = order;
	}
}

/* The build order within the tree being built: a u32, as the C node's low word. */
let order = 0;

function node(height) {
	const n = new Node(height, order);
	order = (order + 1) | 0;
	return n;
}

function fail(tree, what, found, expected) {
	rt.corrupt('05_binary_trees: ' + tree + ': ' + what + ' is ' + found + ', expected ' + expected);
}

/* Fills a leaf with children down to height 0, top-down (each node's two children first). */
function populate(n, height) {
	if (height === 0)
		return;
	n.left = node(height - 1);
	n.right = node(height - 1);
	populate(n.left, height - 1);
	populate(n.right, height - 1);
}

/* A tree of the given height, children first. */
function bottomUp(height) {
	if (height === 0)
		return node(0);
	const left = bottomUp(height - 1);
	const right = bottomUp(height - 1);
	const n = node(height);
	n.left = left;
	n.right = right;
	return n;
}

/* Walks a tree, checking heights; returns its node count. */
function walk(tree, n, height, h) {
	if (n === null)
		fail(tree, 'a missing node at height', height, height);
	if (n.height !== height)
		fail(tree, "a node's height", n.height, height);
	rt.mix(h, 0, n.order);
	if (height === 0) {
		if (n.left !== null || n.right !== null)
			fail(tree, "a leaf's child count", (n.left !== null) + (n.right !== null), 0);
		return 1;
	}
	return 1 + walk(tree, n.left, height - 1, h) + walk(tree, n.right, height - 1, h);
}

function check(tree, root, height, h) {
	const count = walk(tree, root, height, h);
	const expected = 2 ** (height + 1) - 1;
	if (count !== expected)
		fail(tree, 'the node count', count, expected);
	rt.mix(h, 0, count);
}

/* (i + 1) * TREES_ARRAY_MUL >> 11, into R */
function arrayWord(i) {
	rt.mul(0, i + 1, ARRAY_HI, ARRAY_LO);
	rt.shr(R[0], R[1], 11);
}

function run(iterations, h) {
	const n = iterations;
	if (n > MAX_N)
		rt.corrupt('05_binary_trees: depth ' + n + ' is too deep (at most ' + MAX_N + ')');
	const words = 2 ** (n - 1);

	h[0] = 0;
	h[1] = 5;
	order = 0;
	let tree = bottomUp(n + 1);
	check('stretch tree', tree, n + 1, h);
	tree = null;

	order = 0;
	const longTree = node(n);
	populate(longTree, n);
	const array = new Int32Array(2 * words);
	rt.sink(array);
	for (let i = 0; i < words; i++) {
		arrayWord(i);
		array[2 * i] = R[0];
		array[2 * i + 1] = R[1];
	}

	for (let d = MIN_DEPTH; d <= n; d += 2) {
		const pairs = 2 ** (n - d);
		for (let p = 0; p < pairs; p++) {
			order = 0;
			tree = node(d);
			populate(tree, d);
			check('top-down tree', tree, d, h);
			order = 0;
			tree = bottomUp(d);
			check('bottom-up tree', tree, d, h);
			tree = null;
		}
		rt.mix(h, 0, d);
	}

	check('long-lived tree', longTree, n, h);
	for (let i = 0; i < words; i++) {
		arrayWord(i);
		if (array[2 * i] !== R[0] || array[2 * i + 1] !== R[1])
			fail('long-lived array', 'a word', rt.dec(array[2 * i], array[2 * i + 1]),
			     rt.dec(R[0], R[1]));
		rt.mix(h, array[2 * i], array[2 * i + 1]);
	}
}

function premiseMet(c, why) {
	if (c.collected(why) !== 1)
		return 0;
	why.text = why.n + ' collections (' + c.minor + ' minor, ' + c.major +
	           ' major) while short-lived trees came and went';
	return 1;
}

rt.main({
	name: '05_binary_trees',
	premise: 'short-lived trees come and go around a long-lived tree: a collector that ' +
	         'collects must collect during the run',
	iterations: [16, 19, 22],
	run,
	premiseMet,
});
