/*
 * 02_survivor_promotion — probes/02_survivor_promotion.c in JavaScript: a FIFO queue of
 * records that each survive SURVIVOR_WINDOW iterations (several young generations' worth of
 * allocation) before dying. Same shape, sizes and checksum as the C probe.
 *
 * Each iteration allocates a record (next, payload; sequence, value, check), its payload (four
 * words) and two short-lived temporaries (the record or the payload; three words), enqueues
 * the record at the tail (a store into the previous record, which may be old by now), and
 * once the queue holds SURVIVOR_WINDOW records dequeues the oldest and verifies it.
 *
 * Premise: V8 is generational, but counts no promoted objects; what a scavenge promotes lands
 * in the old space, so the probe reads the old space's used bytes (v8.getHeapSpaceStatistics)
 * before the run and after it, before the final collection: the queue's records must have
 * been promoted, the old space grown by at least the C probe's queue payload (65 536 records
 * of 72 bytes, 4.7 MB; a JS record and its payload are larger, so a promoted queue is more).
 *
 * Sizes (iterations): ci 300 000, default 6 000 000, large 60 000 000.
 *
 * Checksum: every dequeued record's sequence, value and payload words, in queue order, then
 * the records still queued at the end, head to tail; plus one payload word per iteration read
 * through a temporary. A record that comes back wrong exits 134 with a message.
 */
'use strict';

const v8 = require('v8');
const rt = require('./probe.js');
const R = rt.R;

const SURVIVOR_WINDOW = 65536;
const PAYLOAD_WORDS = 4;
/* SURVIVOR_CHECK_MUL, 0x9e3779b97f4a7c15 */
const CHECK_HI = 0x9e3779b9 | 0, CHECK_LO = 0x7f4a7c15;
/* The C probe's live queue: records of 2 pointers + 24 bytes and 32-byte payloads. */
const QUEUE_PAYLOAD_BYTES = SURVIVOR_WINDOW * (2 * 8 + 24 + 32);

class Record {
	constructor(sh, sl, vh, vl, ch, cl) {
		this.next = null;
		this.payload = null;
		this.sh = sh;
		this.sl = sl;
		this.vh = vh;
		this.vl = vl;
		this.ch = ch;
		this.cl = cl;
	}
}

class Payload {
	constructor() {
		this.w0h = 0;
		this.w0l = 0;
		this.w1h = 0;
		this.w1l = 0;
		this.w2h = 0;
		this.w2l = 0;
		this.w3h = 0;
		this.w3l = 0;
	}
}

class Temp {
	constructor(ref, ah, al, bh, bl, ch, cl) {
		this.ref = ref;
		this.ah = ah;
		this.al = al;
		this.bh = bh;
		this.bl = bl;
		this.ch = ch;
		this.cl = cl;
	}
}

/* value * (k + 3) + seq * (0x100000001b3 + k), into R */
function payloadWord(vh, vl, sh, sl, k) {
	rt.mul(vh, vl, 0, k + 3);
	const ah = R[0], al = R[1];
	rt.mul(sh, sl, 0x100, (0x1b3 + k) | 0);
	rt.add(ah, al, R[0], R[1]);
}

function setWord(p, k, hi, lo) {
	switch (k) {
	case 0:
		p.w0h = hi;
		p.w0l = lo;
		break;
	case 1:
		p.w1h = hi;
		p.w1l = lo;
		break;
	case 2:
		p.w2h = hi;
		p.w2l = lo;
		break;
	default:
		p.w3h = hi;
		p.w3l = lo;
	}
}

/* Word k of a payload, into R. */
function getWord(p, k) {
	switch (k) {
	case 0:
		R[0] = p.w0h;
		R[1] = p.w0l;
		break;
	case 1:
		R[0] = p.w1h;
		R[1] = p.w1l;
		break;
	case 2:
		R[0] = p.w2h;
		R[1] = p.w2l;
		break;
	default:
		R[0] = p.w3h;
		R[1] = p.w3l;
	}
}

/* Checks a dequeued or drained record and folds it into h; exits 134 if it was corrupted. */
function take(h, rec, esh, esl) {
	const sh = rec.sh, sl = rec.sl, vh = rec.vh, vl = rec.vl;
	rt.mul(sh, sl, CHECK_HI, CHECK_LO);
	const checkOk = rec.ch === (vh ^ R[0]) && rec.cl === (vl ^ R[1]);
	if (sh !== esh || sl !== esl || !checkOk || rec.payload === null)
		rt.corrupt('02_survivor_promotion: record ' + rt.dec(esh, esl) + ' corrupted: sequence ' +
		           rt.dec(sh, sl) + ', check ' + (checkOk ? 'ok' : 'wrong') + ', payload ' +
		           (rec.payload !== null ? 'present' : 'missing'));
	rt.mix(h, sh, sl);
	rt.mix(h, vh, vl);
	for (let k = 0; k < PAYLOAD_WORDS; k++) {
		getWord(rec.payload, k);
		const wh = R[0], wl = R[1];
		payloadWord(vh, vl, sh, sl, k);
		if (wh !== R[0] || wl !== R[1])
			rt.corrupt('02_survivor_promotion: record ' + rt.dec(sh, sl) + ' payload word ' + k +
			           ' is ' + rt.hex(wh, wl) + ', expected ' + rt.hex(R[0], R[1]));
		rt.mix(h, wh, wl);
	}
}

function oldSpaceUsed() {
	for (const s of v8.getHeapSpaceStatistics())
		if (s.space_name === 'old_space')
			return s.space_used_size;
	return -1;
}

let oldAtStart = -1, oldAtEnd = -1;

function run(iterations, h) {
	const rng = rt.u64(0x2545f491, 0x4f6cdd1d);
	let head = null, tail = null, queued = 0, outH = 0, outL = 0;

	oldAtStart = oldSpaceUsed();
	h[0] = 0;
	h[1] = 2;
	for (let seq = 0; seq < iterations; seq++) {
		rt.rand(rng);
		const vh = R[0], vl = R[1];

		rt.mul(0, seq, CHECK_HI, CHECK_LO);
		const rec = new Record(0, seq, vh, vl, vh ^ R[0], vl ^ R[1]);
		rt.sink(rec);
		const payload = new Payload();
		rt.sink(payload);
		for (let k = 0; k < PAYLOAD_WORDS; k++) {
			payloadWord(vh, vl, 0, seq, k);
			setWord(payload, k, R[0], R[1]);
		}
		rec.payload = payload;

		/* Short-lived work on the side: a message about the record, and its reply. */
		rt.shr(vh, vl, 3);
		let temp = new Temp(rec, R[0], R[1], 0, seq, 0, queued);
		rt.sink(temp);
		rt.shl(vh, vl, 3);
		temp = new Temp(rec.payload, R[0], R[1], -1, ~seq, 0, queued);
		rt.sink(temp);
		rt.mix(h, temp.ref.w0h, temp.ref.w0l);

		if (tail !== null)
			tail.next = rec;
		else
			head = rec;
		tail = rec;
		queued++;
		if (queued > SURVIVOR_WINDOW) {
			take(h, head, outH, outL);
			rt.add(outH, outL, 0, 1);
			outH = R[0];
			outL = R[1];
			head = head.next;
			queued--;
		}
	}
	oldAtEnd = oldSpaceUsed();
	/* Drain: nothing allocates from here on. */
	for (let p = head; p !== null; p = p.next) {
		take(h, p, outH, outL);
		rt.add(outH, outL, 0, 1);
		outH = R[0];
		outL = R[1];
	}
	if (outH !== 0 || outL !== iterations)
		rt.corrupt('02_survivor_promotion: the queue held ' + rt.dec(outH, outL) +
		           ' records, expected ' + iterations);
}

function premiseMet(c, why) {
	if (oldAtStart < 0 || oldAtEnd < 0) {
		why.text = 'generational collector, but V8 reports no old space to read promotion from';
		return -1;
	}
	const grown = oldAtEnd - oldAtStart;
	if (grown < QUEUE_PAYLOAD_BYTES) {
		why.text = 'the old space grew by ' + grown + ' bytes during the run, less than the ' +
		           'queue\'s ' + QUEUE_PAYLOAD_BYTES + ' bytes of payload: the records were not promoted';
		return 0;
	}
	why.text = 'promoted: the old space grew by ' + grown + ' bytes during the run (the ' +
	           'queue: ' + QUEUE_PAYLOAD_BYTES + ' bytes of payload); ' + (c.minor + c.major) +
	           ' collections';
	return 1;
}

rt.main({
	name: '02_survivor_promotion',
	premise: 'queued records survive several nursery-fulls: a generational collector must ' +
	         'promote them',
	iterations: [300000, 6000000, 60000000],
	run,
	premiseMet,
});
