/*
 * 01_nursery_churn — probes/01_nursery_churn.c in JavaScript: many small objects that die
 * young, around a tiny long-lived set. Same shape, sizes and checksum as the C probe.
 *
 * Each iteration builds a list of LIST_LEN cells (next; value, index) and a tuple over it
 * (list, first, a long-lived cell; iteration), reads them back into the checksum and drops
 * them. A table of KEEP long-lived cells lives for the whole run; every KEEP_EVERY iterations
 * one entry is replaced by the current list's head (an old-to-young store, then a survivor).
 * A u64 field is two int32 fields (hi, lo: probe.js says why); every cell and tuple goes
 * through rt.sink, or escape analysis would remove the tuple (it never leaves the loop).
 *
 * Premise: a collector that collects must collect during the run (minor + major > 1; the
 * final gc() is one). V8 counts no freed bytes, so, as on a C collector without freed_bytes,
 * that half is not judged.
 *
 * Sizes (iterations): ci 500 000, default 8 000 000, large 80 000 000.
 *
 * Checksum: per iteration, the sum of value * (index + 1) over the list, the first cell's
 * index, the long-lived cell's value and the iteration; then the long-lived table.
 */
'use strict';

const rt = require('./probe.js');
const R = rt.R;

const LIST_LEN = 5;
const KEEP = 16;
const KEEP_EVERY = 1024;

class Cell {
	constructor(next, vh, vl, index) {
		this.next = next;
		this.vh = vh;
		this.vl = vl;
		this.index = index;
	}
}

class Tuple {
	constructor(list, first, keep, iteration) {
		this.list = list;
		this.first = first;
		this.keep = keep;
		this.iteration = iteration;
	}
}

function run(iterations, h) {
	const keep = new Array(KEEP);
	const rng = rt.u64(0x01234567, 0x89abcdef | 0);

	h[0] = 0;
	h[1] = 1;
	for (let i = 0; i < KEEP; i++) {
		rt.mul(0, i, 0, 1000003);
		keep[i] = new Cell(null, R[0], R[1], i);
	}
	for (let it = 0; it < iterations; it++) {
		let list = null, sh = 0, sl = 0;

		for (let j = 0; j < LIST_LEN; j++) {
			rt.rand(rng);
			rt.shr(R[0], R[1], 8);
			list = new Cell(list, R[0], R[1], j);
			rt.sink(list);
		}
		const tuple = new Tuple(list, list, keep[it % KEEP], it);
		rt.sink(tuple);

		for (let p = tuple.list; p !== null; p = p.next) {
			rt.mul(p.vh, p.vl, 0, p.index + 1);
			rt.add(sh, sl, R[0], R[1]);
			sh = R[0];
			sl = R[1];
		}
		rt.mix(h, sh, sl);
		rt.mix(h, 0, tuple.first.index);
		rt.mix(h, tuple.keep.vh, tuple.keep.vl);
		rt.mix(h, 0, tuple.iteration);
		if (it % KEEP_EVERY === KEEP_EVERY - 1)
			keep[Math.floor(it / KEEP_EVERY) % KEEP] = list;
	}
	for (let i = 0; i < KEEP; i++) {
		rt.mix(h, keep[i].vh, keep[i].vl);
		rt.mix(h, 0, keep[i].index);
	}
}

function premiseMet(c, why) {
	if (c.collected(why) !== 1)
		return 0;
	why.text = why.n + ' collections (' + c.minor + ' minor, ' + c.major +
	           ' major); freed_bytes not reported';
	return 1;
}

rt.main({
	name: '01_nursery_churn',
	premise: 'most objects die young: a collector that collects must collect during the run ' +
	         'and free memory',
	iterations: [500000, 8000000, 80000000],
	run,
	premiseMet,
});
