/*
 * 13_memory_return — probes/13_memory_return.c in JavaScript: a peak of small objects, dropped:
 * does the memory come back? Same phases, objects, sizes and checksum as the C probe.
 *
 * The iteration count is the set's size in MiB of the C probe's payload:
 *   1. build a set of small objects: a directory (an array) of chunks (arrays of CHUNK_SLOTS
 *      slots), every slot the head of a list of LIST_LEN nodes (next; id and 14 fill words),
 *      NODES_PER_MIB nodes per MiB, with one short-lived temporary (the node; one word) per
 *      TEMP_EVERY nodes; then walk and check it;
 *   2. drop it and run gc() (a full collection), reading the heap's used bytes before and after;
 *   3. allocate as many bytes again as 1 MiB buffers (Int32Arrays: V8 keeps their contents
 *      outside the JS heap, as a C collector's large objects are pages of their own), all kept
 *      live in one array, every page touched; then check them.
 * RssAnon is read from /proc/self/status after each phase, VmHWM at the end, and reported in
 * the premise text, as the C probe does.
 *
 * Premise: "must drop a peak": the full collection of phase 2 must free at least the set's
 * requested bytes (the C probe's figure). V8 counts no freed bytes; what it freed is read as
 * the drop of v8.getHeapStatistics().used_heap_size across that gc() (a JS node is larger
 * than the C probe's payload, so a freed set is more than the figure).
 *
 * Sizes (MiB): ci 16, default 128, large 1 280.
 *
 * Checksum: the set walked list by list (each node's first fill word), each temporary's value,
 * then the buffers' touched words. A wrong node, list length or buffer word exits 134.
 */
'use strict';

const fs = require('fs');
const v8 = require('v8');
const rt = require('./probe.js');
const R = rt.R;

const CHUNK_SLOTS = 128;
const LIST_LEN = 16;
const NODES_PER_MIB = 8192;
const TEMP_EVERY = 8;
const BUFFER_BYTES = 1 << 20;
const TOUCH_STRIDE = 4096;
const MAX_MIB = 1 << 20;
/* NODE_BYTES / 8: the id and the fill words */
const NODE_WORDS = 15;
/* MEM_CHECK_MUL, 0x9e6c63d0676a9a99 */
const CHECK_HI = 0x9e6c63d0 | 0, CHECK_LO = 0x676a9a99 | 0;

/* (id * NODE_WORDS + k) * MEM_CHECK_MUL >> 3, into R (id < 2^32 / 15 here) */
function memWord(id, k) {
	rt.mul(0, id, 0, NODE_WORDS);
	rt.add(R[0], R[1], 0, k);
	rt.mul(R[0], R[1], CHECK_HI, CHECK_LO);
	rt.shr(R[0], R[1], 3);
}

class Node {
	constructor(next, id) {
		this.next = next;
		this.id = id;
		memWord(id, 1);
		this.f1h = R[0];
		this.f1l = R[1];
		memWord(id, 2);
		this.f2h = R[0];
		this.f2l = R[1];
		memWord(id, 3);
		this.f3h = R[0];
		this.f3l = R[1];
		memWord(id, 4);
		this.f4h = R[0];
		this.f4l = R[1];
		memWord(id, 5);
		this.f5h = R[0];
		this.f5l = R[1];
		memWord(id, 6);
		this.f6h = R[0];
		this.f6l = R[1];
		memWord(id, 7);
		this.f7h = R[0];
		this.f7l = R[1];
		memWord(id, 8);
		this.f8h = R[0];
		this.f8l = R[1];
		memWord(id, 9);
		this.f9h = R[0];
		this.f9l = R[1];
		memWord(id, 10);
		this.f10h = R[0];
		this.f10l = R[1];
		memWord(id, 11);
		this.f11h = R[0];
		this.f11l = R[1];
		memWord(id, 12);
		this.f12h = R[0];
		this.f12l = R[1];
		memWord(id, 13);
		this.f13h = R[0];
		this.f13l = R[1];
		memWord(id, 14);
		this.f14h = R[0];
		this.f14l = R[1];
	}
}

/* Fill word k (1 to 14) of node n, into R. */
function fillWord(n, k) {
	switch (k) {
	case 1:
		R[0] = n.f1h;
		R[1] = n.f1l;
		break;
	case 2:
		R[0] = n.f2h;
		R[1] = n.f2l;
		break;
	case 3:
		R[0] = n.f3h;
		R[1] = n.f3l;
		break;
	case 4:
		R[0] = n.f4h;
		R[1] = n.f4l;
		break;
	case 5:
		R[0] = n.f5h;
		R[1] = n.f5l;
		break;
	case 6:
		R[0] = n.f6h;
		R[1] = n.f6l;
		break;
	case 7:
		R[0] = n.f7h;
		R[1] = n.f7l;
		break;
	case 8:
		R[0] = n.f8h;
		R[1] = n.f8l;
		break;
	case 9:
		R[0] = n.f9h;
		R[1] = n.f9l;
		break;
	case 10:
		R[0] = n.f10h;
		R[1] = n.f10l;
		break;
	case 11:
		R[0] = n.f11h;
		R[1] = n.f11l;
		break;
	case 12:
		R[0] = n.f12h;
		R[1] = n.f12l;
		break;
	case 13:
		R[0] = n.f13h;
		R[1] = n.f13l;
		break;
	default:
		R[0] = n.f14h;
		R[1] = n.f14l;
	}
}

class Temp {
	constructor(node, vh, vl) {
		this.node = node;
		this.vh = vh;
		this.vl = vl;
	}
}

function fail(what, where, found, expected) {
	rt.corrupt('13_memory_return: ' + what + ' ' + where + ' is ' + found + ', expected ' +
	           expected);
}

/* RssAnon or VmHWM from /proc/self/status, in bytes; 0 if the kernel does not say. */
function statusBytes(field) {
	try {
		const m = new RegExp('^' + field + ':\\s+(\\d+) kB$', 'm')
		              .exec(fs.readFileSync('/proc/self/status', 'latin1'));
		return m ? Number(m[1]) * 1024 : 0;
	} catch (e) {
		return 0;
	}
}

let setBytes = 0, freedByFull = 0, rssSet = 0, rssDropped = 0, rssBuffers = 0;

/* Builds the set: nchunks chunks of lists, node ids in allocation order. */
function build(nchunks, h) {
	const dir = new Array(nchunks);
	let id = 0;
	for (let c = 0; c < nchunks; c++) {
		const chunk = new Array(CHUNK_SLOTS).fill(null);
		dir[c] = chunk;
		for (let s = 0; s < CHUNK_SLOTS; s++) {
			for (let i = 0; i < LIST_LEN; i++, id++) {
				const node = new Node(chunk[s], id);
				chunk[s] = node;
				if (id % TEMP_EVERY === 0) {
					const temp = new Temp(node, 0, id ^ c);
					rt.sink(temp);
					rt.mix(h, temp.vh, temp.vl);
				}
			}
		}
	}
	return dir;
}

/* Walks the set: each list holds LIST_LEN nodes, newest first. No allocation. */
function checkSet(dir, nchunks, h) {
	let first = 0;
	for (let c = 0; c < nchunks; c++) {
		const chunk = dir[c];
		for (let s = 0; s < CHUNK_SLOTS; s++, first += LIST_LEN) {
			let id = first + LIST_LEN;
			for (let n = chunk[s]; n !== null; n = n.next) {
				id--;
				if (n.id !== id)
					fail('node id at', id, n.id, id);
				for (let k = 1; k < NODE_WORDS; k++) {
					fillWord(n, k);
					const wh = R[0], wl = R[1];
					memWord(id, k);
					if (wh !== R[0] || wl !== R[1])
						fail('fill word of node', id, rt.hex(wh, wl), rt.hex(R[0], R[1]));
				}
				fillWord(n, 1);
				rt.mix(h, R[0], R[1]);
			}
			if (id !== first)
				fail('list length of the list starting at', first, first + LIST_LEN - id, LIST_LEN);
		}
	}
}

/* Phase 1: the set lives only in this function's frame, so that once it returns none holds it. */
function peak(nchunks, h) {
	let dir = build(nchunks, h);
	checkSet(dir, nchunks, h);
	rssSet = statusBytes('RssAnon');
	dir = null;
}

/* Phase 3: as many bytes again as 1 MiB buffers, all live at once, every page touched. */
function buffers(count, h) {
	const all = new Array(count);
	const words = BUFFER_BYTES / TOUCH_STRIDE, step = TOUCH_STRIDE / 4;
	for (let b = 0; b < count; b++) {
		const buf = new Int32Array(BUFFER_BYTES / 4);
		for (let w = 0; w < words; w++) {
			memWord(b, w);
			buf[w * step] = R[1];
			buf[w * step + 1] = R[0];
		}
		all[b] = buf;
	}
	rssBuffers = statusBytes('RssAnon');
	for (let b = 0; b < count; b++) {
		const buf = all[b];
		for (let w = 0; w < words; w++) {
			const wl = buf[w * step], wh = buf[w * step + 1];
			memWord(b, w);
			if (wh !== R[0] || wl !== R[1])
				fail('word of buffer', b, rt.hex(wh, wl), rt.hex(R[0], R[1]));
			rt.mix(h, wh, wl);
		}
	}
}

function run(iterations, h) {
	if (iterations > MAX_MIB)
		rt.corrupt('13_memory_return: ' + iterations + ' MiB is too many (at most ' + MAX_MIB + ')');
	const nchunks = Math.floor(iterations * NODES_PER_MIB / (CHUNK_SLOTS * LIST_LEN));
	/* The C probe's requested bytes: nodes of 1 pointer + 120 bytes, the chunks, the directory. */
	setBytes = nchunks * CHUNK_SLOTS * LIST_LEN * (8 + 120) + nchunks * CHUNK_SLOTS * 8 +
	           nchunks * 8;

	h[0] = 0;
	h[1] = 13;
	peak(nchunks, h);
	/* Phase 2: the set is garbage now. */
	const before = v8.getHeapStatistics().used_heap_size;
	global.gc();
	freedByFull = before - v8.getHeapStatistics().used_heap_size;
	rssDropped = statusBytes('RssAnon');
	buffers(iterations, h);
}

function premiseMet(c, why) {
	let rss = '';
	if (rssSet && rssBuffers)
		rss = '; RssAnon ' + (rssSet / 1048576).toFixed(1) + ' MiB with the set, ' +
		      (rssDropped / 1048576).toFixed(1) + ' MiB after the drop and full collection, ' +
		      (rssBuffers / 1048576).toFixed(1) + ' MiB with the buffers; VmHWM ' +
		      (statusBytes('VmHWM') / 1048576).toFixed(1) + ' MiB';
	if (freedByFull < setBytes) {
		why.text = 'the full collection after the drop freed ' + freedByFull +
		           ' bytes (used heap before less after), less than the set\'s ' + setBytes + rss;
		return 0;
	}
	why.text = 'the full collection after the drop freed ' + freedByFull +
	           ' bytes (used heap before less after; the set: ' + setBytes + ')' + rss;
	return 1;
}

rt.main({
	name: '13_memory_return',
	premise: 'a peak of small objects is dropped: a full collection must free it before large ' +
	         'buffers take its place',
	iterations: [16, 128, 1280],
	run,
	premiseMet,
});
