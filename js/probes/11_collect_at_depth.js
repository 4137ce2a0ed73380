/*
 * 11_collect_at_depth — probes/11_collect_at_depth.c in JavaScript: collections while a deep
 * stack of frames holds live roots. Same descents, objects, sizes and checksum as the C probe.
 *
 * Each iteration is one descent: a recursion DEPTH_MAX, 3/4, 1/2 or 1/4 of DEPTH_MAX frames
 * deep (rotating), where every frame holds its own node (the parent frame's node, payload;
 * depth, tag) and payload (five words) in its locals, plus FRAME_GARBAGE short-lived objects.
 * At the deepest frame BURST_LISTS lists of BURST_LIST_LEN cells (next; five words) are built
 * and dropped, so that collections happen while the whole stack is live; then the chain of
 * frame nodes is walked from the bottom up, and on the way back up each frame verifies its
 * own objects. V8 finds and updates the frames' locals (a moving collector that lost one would
 * show here as a wrong value, exit 134, or a crash).
 *
 * Premise: a collector that collects must collect while the stack is deep: the frame half way
 * down marks the time before it descends and after it returns, and the collections whose gc
 * entries start between the two marks are counted once the run is over (the C probe reads the
 * census at those two points; node hands the entries over only after the run).
 *
 * Sizes (descents): ci 50, default 1 000, large 10 000.
 *
 * Checksum: each burst list's sum, the bottom-up chain walk, and each frame's node and payload
 * values as it returns.
 */
'use strict';

const rt = require('./probe.js');
const R = rt.R;

const DEPTH_MAX = 2000;
const FRAME_GARBAGE = 2;
const BURST_LISTS = 300;
const BURST_LIST_LEN = 64;
const PAYLOAD_WORDS = 5;

class FrameNode {
	constructor(parent, depth, th, tl) {
		this.parent = parent;
		this.payload = null;
		this.depth = depth;
		this.th = th;
		this.tl = tl;
	}
}

class Payload {
	constructor() {
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

class Garbage {
	constructor(node, ah, al, bh, bl) {
		this.node = node;
		this.ah = ah;
		this.al = al;
		this.bh = bh;
		this.bl = bl;
	}
}

/* A burst cell: next, then five words, of which the sum reads the first and the last. */
class Cell {
	constructor(next) {
		this.next = next;
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

function setWord(p, k, hi, lo) {
	switch (k) {
	case 0:
		p.h0 = hi;
		p.l0 = lo;
		break;
	case 1:
		p.h1 = hi;
		p.l1 = lo;
		break;
	case 2:
		p.h2 = hi;
		p.l2 = lo;
		break;
	case 3:
		p.h3 = hi;
		p.l3 = lo;
		break;
	default:
		p.h4 = hi;
		p.l4 = lo;
	}
}

function getWord(p, k) {
	switch (k) {
	case 0:
		R[0] = p.h0;
		R[1] = p.l0;
		break;
	case 1:
		R[0] = p.h1;
		R[1] = p.l1;
		break;
	case 2:
		R[0] = p.h2;
		R[1] = p.l2;
		break;
	case 3:
		R[0] = p.h3;
		R[1] = p.l3;
		break;
	default:
		R[0] = p.h4;
		R[1] = p.l4;
	}
}

/* (descent << 32 | d) * 0xff51afd7ed558ccd + 0x5bd1e995, into R */
function tag(descent, d) {
	rt.mul(descent, d, 0xff51afd7 | 0, 0xed558ccd | 0);
	rt.add(R[0], R[1], 0, 0x5bd1e995);
}

/* tag ^ (0xc4ceb9fe1a85ec53 * (k + 1)), into R */
function payloadWord(th, tl, k) {
	rt.mul(0xc4ceb9fe | 0, 0x1a85ec53, 0, k + 1);
	R[0] ^= th;
	R[1] ^= tl;
}

function depthOf(descent) {
	return DEPTH_MAX - (descent % 4) * (DEPTH_MAX / 4);
}

/* The marks around each descent's deep half: [before, after] per descent. */
let marks = null;

function fail(descent, d, what, found, expected) {
	rt.corrupt('11_collect_at_depth: descent ' + descent + ', frame ' + d + ': ' + what + ' is ' +
	           found + ', expected ' + expected + ' (a root was lost or not updated)');
}

function checkNode(h, node, descent, d) {
	tag(descent, d);
	const th = R[0], tl = R[1];
	if (node === null)
		fail(descent, d, 'node pointer', 'null', rt.hex(th, tl));
	if (node.depth !== d)
		fail(descent, d, 'node depth', node.depth, d);
	if (node.th !== th || node.tl !== tl)
		fail(descent, d, 'node tag', rt.hex(node.th, node.tl), rt.hex(th, tl));
	const payload = node.payload;
	if (payload === null)
		fail(descent, d, 'payload pointer', 'null', rt.hex(th, tl));
	for (let k = 0; k < PAYLOAD_WORDS; k++) {
		getWord(payload, k);
		const wh = R[0], wl = R[1];
		payloadWord(th, tl, k);
		if (wh !== R[0] || wl !== R[1])
			fail(descent, d, 'payload word', rt.hex(wh, wl), rt.hex(R[0], R[1]));
		rt.mix(h, wh, wl);
	}
	rt.mix(h, 0, d);
}

/* The deepest frame's work: garbage while every frame above is live, then a chain walk. */
function bottom(node, descent, depth, h) {
	const rng = rt.u64(0, 0);
	rt.mul(0, descent, 0, 2);
	rt.add(R[0], R[1], 0, 1);
	rng[0] = R[0];
	rng[1] = R[1];
	for (let l = 0; l < BURST_LISTS; l++) {
		let list = null, sh = 0, sl = 0;
		for (let i = 0; i < BURST_LIST_LEN; i++) {
			const cell = new Cell(list);
			rt.sink(cell);
			for (let k = 0; k < PAYLOAD_WORDS; k++) {
				rt.rand(rng);
				rt.shr(R[0], R[1], 16);
				setWord(cell, k, R[0], R[1]);
			}
			list = cell;
		}
		for (let p = list; p !== null; p = p.next) {
			rt.add(sh, sl, p.h0 ^ p.h4, p.l0 ^ p.l4);
			sh = R[0];
			sl = R[1];
		}
		rt.mix(h, sh, sl);
	}
	/* Every frame's node is reachable from the bottom one: walk them all before returning. */
	let d = depth - 1;
	for (let n = node; n !== null; n = n.parent, d--)
		checkNode(h, n, descent, d);
	if (d !== -1)
		fail(descent, d, 'chain length (frames not walked)', d + 1, 0);
}

function frame(parent, descent, d, depth, h) {
	tag(descent, d);
	const node = new FrameNode(parent, d, R[0], R[1]);
	const payload = new Payload();
	rt.sink(payload);
	for (let k = 0; k < PAYLOAD_WORDS; k++) {
		payloadWord(node.th, node.tl, k);
		setWord(payload, k, R[0], R[1]);
	}
	node.payload = payload;
	for (let g = 0; g < FRAME_GARBAGE; g++) {
		rt.add(node.th, node.tl, 0, g);
		rt.sink(new Garbage(node, R[0], R[1], 0, d));
	}

	if (d === depth / 2 && d + 1 < depth) {
		/* Nothing allocates on the way back up: the second mark is the deepest point's. */
		marks[2 * descent] = rt.mark();
		frame(node, descent, d + 1, depth, h);
		marks[2 * descent + 1] = rt.mark();
	} else if (d + 1 < depth) {
		frame(node, descent, d + 1, depth, h);
	} else {
		bottom(node, descent, depth, h);
	}

	/* Back on the way up: this frame's locals must still hold this frame's objects. */
	if (payload !== node.payload)
		fail(descent, d, "payload local differs from node's payload slot", 1, 0);
	checkNode(h, node, descent, d);
}

let descents = 0;

function run(iterations, h) {
	h[0] = 0;
	h[1] = 11;
	marks = new Float64Array(2 * iterations);
	for (let descent = 0; descent < iterations; descent++)
		frame(null, descent, 0, depthOf(descent), h);
	descents = iterations;
}

function premiseMet(c, why) {
	let deep = 0, collectedIn = 0, deepest = 0;
	for (let descent = 0; descent < descents; descent++) {
		const n = c.collectionsBetween(marks[2 * descent], marks[2 * descent + 1]);
		if (n > 0) {
			deep += n;
			collectedIn++;
			deepest = Math.max(deepest, depthOf(descent));
		}
	}
	if (deep === 0) {
		why.text = 'no collection happened with the stack deep (' + descents +
		           ' descents of up to ' + DEPTH_MAX + ' frames)';
		return 0;
	}
	why.text = deep + ' collections with at least half of a descent\'s frames live, in ' +
	           collectedIn + ' of ' + descents + ' descents; deepest ' + deepest + ' frames';
	return 1;
}

rt.main({
	name: '11_collect_at_depth',
	premise: 'collections happen while a deep stack of frames holds live roots',
	iterations: [50, 1000, 10000],
	run,
	premiseMet,
});
