/*
 * 12_large_live_set — probes/12_large_live_set.c in JavaScript: a large live structure that
 * every collection must trace again. Same table, churn, sizes and checksum as the C probe.
 *
 * The structure is a directory (an array) of chunks (arrays of LIVE_CHUNK_SLOTS bucket
 * heads), bucket b a list of the nodes numbered b * LIVE_NODES_PER_BUCKET onwards (next; key,
 * value, check), a node's key a bijective hash of its number. Once it is built,
 * CHURN_PER_NODE churn steps per node each allocate a short-lived request (the directory;
 * five words), and every UPDATE_EVERY-th step replaces a random node with a new one (the old
 * one dies; the new one is stored into an old list or chunk). The table is verified at the
 * end and stays reachable from this module through the final gc(), so
 * heap_used_after_full_bytes counts it.
 *
 * Every request goes through rt.sink: TurboFan's escape analysis removed them otherwise (the
 * request never leaves the step), and the live set was then traced by one collection: the
 * premise failed.
 *
 * Premise: a collector that collects must collect more than once once the set is built (the
 * final full collection is one): the probe marks the time it was built and counts the
 * collections whose gc entries start after the mark; and heap_used_after_full_bytes must be at
 * least the C probe's live payload (a JS node is larger, so the figure holds a fortiori).
 *
 * Sizes (nodes): ci 200 000, default 3 200 000, large 30 000 000.
 *
 * Checksum: every request's value read back, then the whole table walked bucket by bucket
 * (key, value of each node in list order). A node out of place, with a bad check word, or a
 * wrong node count exits 134 with a message.
 */
'use strict';

const rt = require('./probe.js');
const R = rt.R;

const LIVE_CHUNK_SLOTS = 512;
const LIVE_NODES_PER_BUCKET = 4;
const CHURN_PER_NODE = 4;
const UPDATE_EVERY = 32;
/* LIVE_CHECK_MUL, 0xd6e8feb86659fd93 */
const CHECK_HI = 0xd6e8feb8 | 0, CHECK_LO = 0x6659fd93;

class Node {
	constructor(kh, kl, vh, vl) {
		this.next = null;
		this.kh = kh;
		this.kl = kl;
		this.vh = vh;
		this.vl = vl;
		rt.mul(kh, kl, CHECK_HI, CHECK_LO);
		this.ch = vh ^ R[0];
		this.cl = vl ^ R[1];
	}
}

class Request {
	constructor(dir) {
		this.dir = dir;
		this.h0 = 0;
		this.l0 = 0;
		this.h1 = 0;
		this.l1 = 0;
		this.h2 = 0;
		this.l2 = 0;
		this.h3 = 0;
		this.l3 = 0;
		this.h4 = 0;
		this.l4 = 0;
	}
}

/* Keeps the table reachable after run() returns, through the final full collection. */
let liveDir = null;
let livePayloadBytes = 0;
let builtAt = 0;

/* splitmix64's finaliser of i (a bijection), into R. */
function key(i) {
	rt.add(0, i, 0x9e3779b9 | 0, 0x7f4a7c15);
	let zh = R[0], zl = R[1];
	rt.shr(zh, zl, 30);
	rt.mul(zh ^ R[0], zl ^ R[1], 0xbf58476d | 0, 0x1ce4e5b9);
	zh = R[0];
	zl = R[1];
	rt.shr(zh, zl, 27);
	rt.mul(zh ^ R[0], zl ^ R[1], 0x94d049bb | 0, 0x133111eb);
	zh = R[0];
	zl = R[1];
	rt.shr(zh, zl, 31);
	R[0] ^= zh;
	R[1] ^= zl;
}

function fail(bucket, what, found, expected) {
	rt.corrupt('12_large_live_set: bucket ' + bucket + ': ' + what + ' is ' + found +
	           ', expected ' + expected);
}

const tmp = rt.u64(0, 0);

/* Replaces node j by a fresh one, with a new value, in place in its list; the value into R. */
function replace(j, step) {
	key(j);
	const kh = R[0], kl = R[1];
	const b = Math.floor(j / LIVE_NODES_PER_BUCKET);
	const chunk = liveDir[Math.floor(b / LIVE_CHUNK_SLOTS)], slot = b % LIVE_CHUNK_SLOTS;
	let prev = null, n = chunk[slot];
	while (n !== null && !(n.kh === kh && n.kl === kl)) {
		prev = n;
		n = n.next;
	}
	if (n === null)
		fail(b, 'missing key', 0, rt.hex(kh, kl));
	tmp[0] = n.vh;
	tmp[1] = n.vl;
	rt.mix(tmp, 0, step);
	const fresh = new Node(kh, kl, tmp[0], tmp[1]);
	fresh.next = n.next;
	if (prev !== null)
		prev.next = fresh;
	else
		chunk[slot] = fresh;
	R[0] = tmp[0];
	R[1] = tmp[1];
}

/* Walks every bucket in order: bucket b must hold nodes b * PER_BUCKET, ... in list order. */
function verify(h, nodes, nbuckets) {
	let j = 0;
	for (let b = 0; b < nbuckets; b++) {
		const chunk = liveDir[Math.floor(b / LIVE_CHUNK_SLOTS)];
		for (let n = chunk[b % LIVE_CHUNK_SLOTS]; n !== null; n = n.next, j++) {
			if (j >= nodes || Math.floor(j / LIVE_NODES_PER_BUCKET) !== b)
				fail(b, "a node's index (a list too long)", j, b * LIVE_NODES_PER_BUCKET);
			key(j);
			if (n.kh !== R[0] || n.kl !== R[1])
				fail(b, "a node's key", rt.hex(n.kh, n.kl), rt.hex(R[0], R[1]));
			rt.mul(n.kh, n.kl, CHECK_HI, CHECK_LO);
			if (n.ch !== (n.vh ^ R[0]) || n.cl !== (n.vl ^ R[1]))
				fail(b, "a node's check word", rt.hex(n.ch, n.cl),
				     rt.hex(n.vh ^ R[0], n.vl ^ R[1]));
			rt.mix(h, n.kh, n.kl);
			rt.mix(h, n.vh, n.vl);
		}
	}
	if (j !== nodes)
		fail(nbuckets, 'the node count', j, nodes);
}

function run(nodes, h) {
	const rng = rt.u64(0x5851f42d, 0x4c957f2d);
	const nbuckets = Math.ceil(nodes / LIVE_NODES_PER_BUCKET);
	const nchunks = Math.ceil(nbuckets / LIVE_CHUNK_SLOTS);

	h[0] = 0;
	h[1] = 12;
	/* The C probe's payload: nodes of 1 pointer + 24 bytes, the chunks' and directory's slots. */
	livePayloadBytes = nodes * (8 + 24) + nchunks * LIVE_CHUNK_SLOTS * 8 + nchunks * 8;
	liveDir = new Array(nchunks);
	for (let c = 0; c < nchunks; c++)
		liveDir[c] = new Array(LIVE_CHUNK_SLOTS).fill(null);
	/* Bucket by bucket, each list built back to front, as in C. */
	for (let b = 0; b < nbuckets; b++) {
		const first = b * LIVE_NODES_PER_BUCKET;
		const end = Math.min(first + LIVE_NODES_PER_BUCKET, nodes);
		const chunk = liveDir[Math.floor(b / LIVE_CHUNK_SLOTS)], slot = b % LIVE_CHUNK_SLOTS;
		for (let j = end; j-- > first;) {
			key(j);
			const kh = R[0], kl = R[1];
			rt.shr(kh, kl, 7);
			const node = new Node(kh, kl, R[0], R[1]);
			node.next = chunk[slot];
			chunk[slot] = node;
		}
	}
	builtAt = rt.mark();

	const steps = nodes * CHURN_PER_NODE;
	for (let step = 0; step < steps; step++) {
		rt.rand(rng);
		const rh = R[0], rl = R[1];
		const req = new Request(liveDir);
		rt.sink(req);
		rt.add(rh, rl, 0, 0);
		req.h0 = R[0];
		req.l0 = R[1];
		rt.add(rh, rl, 0, 1);
		req.h1 = R[0];
		req.l1 = R[1];
		rt.add(rh, rl, 0, 2);
		req.h2 = R[0];
		req.l2 = R[1];
		rt.add(rh, rl, 0, 3);
		req.h3 = R[0];
		req.l3 = R[1];
		rt.add(rh, rl, 0, 4);
		req.h4 = R[0];
		req.l4 = R[1];
		switch (step % 5) {
		case 0:
			rt.mix(h, req.h0, req.l0);
			break;
		case 1:
			rt.mix(h, req.h1, req.l1);
			break;
		case 2:
			rt.mix(h, req.h2, req.l2);
			break;
		case 3:
			rt.mix(h, req.h3, req.l3);
			break;
		default:
			rt.mix(h, req.h4, req.l4);
		}
		if (step % UPDATE_EVERY === UPDATE_EVERY - 1) {
			replace(rt.modSmall(rh, rl, nodes), step);
			rt.mix(h, R[0], R[1]);
		}
	}
	verify(h, nodes, nbuckets);
}

function premiseMet(c, why) {
	const n = c.collectionsBetween(builtAt, Infinity);
	if (n <= 1) {
		why.text = 'the ' + livePayloadBytes + '-byte live set was traced by ' + n +
		           ' collection(s) once built, with the final full one: churn never collected';
		return 0;
	}
	if (c.usedAfterFull >= 0 && c.usedAfterFull < livePayloadBytes) {
		why.text = 'heap_used_after_full_bytes ' + c.usedAfterFull + ' is below the live set\'s ' +
		           livePayloadBytes + ' bytes of payload';
		return 0;
	}
	why.text = n + ' collections traced the ' + livePayloadBytes + '-byte live set once built; ' +
	           'heap used after the full collection covers it';
	return 1;
}

rt.main({
	name: '12_large_live_set',
	premise: 'a large live set stays reachable while garbage churns: every collection traces ' +
	         'it again',
	iterations: [200000, 3200000, 30000000],
	run,
	premiseMet,
});
