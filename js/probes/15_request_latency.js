/*
 * 15_request_latency — probes/15_request_latency.c in JavaScript: a request loop over a
 * long-lived session cache, timing every request. Same sessions, requests, sizes and
 * checksum as the C probe.
 *
 * A server holds SESSIONS sessions (id, hits, sum, and a ring of HISTORY recent entries);
 * each request picks a session, builds a small object graph (a parsed request of FIELDS
 * fields of FIELD_WORDS words), reads the fields back, updates the session, keeps one request
 * in KEEP_EVERY as a history entry in the session's ring (the entry it replaces dies), and
 * answers with a reply. Every request, field, entry and reply goes through rt.sink: TurboFan's
 * escape analysis removed the request and its reply otherwise.
 *
 * Every request's service time is taken with performance.now() around it (whole ns of the
 * same monotonic clock) into a Float64Array allocated before the loop (its contents are
 * outside the JS heap, as the C probe's malloc'd array), handed to the runtime
 * (rt.latencyRecord), which writes the census "latency" section as probe_json_latency does.
 *
 * Premise: collections happened while requests were in flight: the probe marks the loop's
 * start and end, and a collector that collects must have a gc entry starting between them.
 *
 * Sizes (requests): ci 50 000, default 500 000, large 2 000 000.
 *
 * Checksum: every reply (a sum of the request's fields read back and the session's hit count),
 * then every session's id, hits, sum and history ring. A field or session that reads back
 * wrong exits 134.
 */
'use strict';

const { performance } = require('perf_hooks');
const rt = require('./probe.js');
const R = rt.R;

const SESSIONS = 16384;
const CHUNK_SLOTS = 256;
const HISTORY = 8;
const FIELDS = 4;
const FIELD_WORDS = 4;
const KEEP_EVERY = 4;
/* 0x9e3779b97f4a7c15 */
const GOLD_HI = 0x9e3779b9 | 0, GOLD_LO = 0x7f4a7c15;

class Session {
	constructor(id) {
		this.ring = new Array(HISTORY).fill(null);
		this.idh = 0;
		this.idl = id;
		this.hitsh = 0;
		this.hitsl = 0;
		this.sumh = 0;
		this.suml = 0;
	}
}

class Request {
	constructor(sid, seq) {
		this.f0 = null;
		this.f1 = null;
		this.f2 = null;
		this.f3 = null;
		this.sid = sid;
		this.seq = seq;
	}
}

class Field {
	constructor() {
		this.h0 = 0;
		this.l0 = 0;
		this.h1 = 0;
		this.l1 = 0;
		this.h2 = 0;
		this.l2 = 0;
		this.h3 = 0;
		this.l3 = 0;
	}
}

class Entry {
	constructor(seq, vh, vl, sid) {
		this.seq = seq;
		this.vh = vh;
		this.vl = vl;
		this.sid = sid;
	}
}

class Reply {
	constructor(vh, vl, hh, hl) {
		this.vh = vh;
		this.vl = vl;
		this.hh = hh;
		this.hl = hl;
	}
}

function fail(seq, what, found, expected) {
	rt.corrupt('15_request_latency: request ' + seq + ': ' + what + ' is ' + found + ', expected ' +
	           expected);
}

/* (seq * FIELDS + f) * 0x9e3779b97f4a7c15 + k, into R */
function fieldWord(seq, f, k) {
	rt.mul(0, seq * FIELDS + f, GOLD_HI, GOLD_LO);
	rt.add(R[0], R[1], 0, k);
}

function fieldOf(req, f) {
	return f === 0 ? req.f0 : f === 1 ? req.f1 : f === 2 ? req.f2 : req.f3;
}

function setField(req, f, field) {
	if (f === 0)
		req.f0 = field;
	else if (f === 1)
		req.f1 = field;
	else if (f === 2)
		req.f2 = field;
	else
		req.f3 = field;
}

function setWord(p, k, hi, lo) {
	if (k === 0) {
		p.h0 = hi;
		p.l0 = lo;
	} else if (k === 1) {
		p.h1 = hi;
		p.l1 = lo;
	} else if (k === 2) {
		p.h2 = hi;
		p.l2 = lo;
	} else {
		p.h3 = hi;
		p.l3 = lo;
	}
}

function getWord(p, k) {
	if (k === 0) {
		R[0] = p.h0;
		R[1] = p.l0;
	} else if (k === 1) {
		R[0] = p.h1;
		R[1] = p.l1;
	} else if (k === 2) {
		R[0] = p.h2;
		R[1] = p.l2;
	} else {
		R[0] = p.h3;
		R[1] = p.l3;
	}
}

function sessionOf(dir, sid) {
	return dir[Math.floor(sid / CHUNK_SLOTS)][sid % CHUNK_SLOTS];
}

/* One request; its reply's value into R. */
function serve(dir, seq, sid) {
	const req = new Request(sid, seq);
	rt.sink(req);
	for (let f = 0; f < FIELDS; f++) {
		const field = new Field();
		rt.sink(field);
		for (let k = 0; k < FIELD_WORDS; k++) {
			fieldWord(seq, f, k);
			setWord(field, k, R[0], R[1]);
		}
		setField(req, f, field);
	}
	let vh = 0, vl = 0;
	for (let f = 0; f < FIELDS; f++) {
		const field = fieldOf(req, f);
		for (let k = 0; k < FIELD_WORDS; k++) {
			getWord(field, k);
			const wh = R[0], wl = R[1];
			fieldWord(seq, f, k);
			if (wh !== R[0] || wl !== R[1])
				fail(seq, 'a field word', rt.hex(wh, wl), rt.hex(R[0], R[1]));
			rt.add(vh, vl, wh, wl);
			vh = R[0];
			vl = R[1];
		}
	}

	const session = sessionOf(dir, sid);
	if (session.idh !== 0 || session.idl !== sid)
		fail(seq, 'the session id', session.idl, sid);
	rt.add(session.hitsh, session.hitsl, 0, 1);
	const hh = R[0], hl = R[1];
	session.hitsh = hh;
	session.hitsl = hl;
	session.sumh ^= vh;
	session.suml ^= vl;
	if (seq % KEEP_EVERY === 0) {
		const e = new Entry(seq, vh, vl, sid);
		rt.sink(e);
		session.ring[rt.modSmall(hh, hl, HISTORY)] = e;
	}

	const reply = new Reply(vh, vl, hh, hl);
	rt.sink(reply);
	/* value ^ (hits << 32) */
	R[0] = reply.vh ^ reply.hl;
	R[1] = reply.vl;
	if (reply.vh !== vh || reply.vl !== vl)
		fail(seq, 'the reply', rt.hex(reply.vh, reply.vl), rt.hex(vh, vl));
}

let loopStart = 0, loopEnd = 0;

function run(iterations, h) {
	const rng = rt.u64(0x6a09e667, 0xf3bcc909 | 0);
	const service = new Float64Array(iterations);

	h[0] = 0;
	h[1] = 15;
	const dir = new Array(SESSIONS / CHUNK_SLOTS);
	for (let c = 0; c < SESSIONS / CHUNK_SLOTS; c++)
		dir[c] = new Array(CHUNK_SLOTS).fill(null);
	for (let sid = 0; sid < SESSIONS; sid++)
		dir[Math.floor(sid / CHUNK_SLOTS)][sid % CHUNK_SLOTS] = new Session(sid);

	loopStart = rt.mark();
	let first = performance.now(), last = first;
	for (let seq = 0; seq < iterations; seq++) {
		rt.rand(rng);
		const sid = R[1] & (SESSIONS - 1);
		const t0 = performance.now();
		serve(dir, seq, sid);
		rt.mix(h, R[0], R[1]);
		last = performance.now();
		service[seq] = Math.round((last - t0) * 1e6);
	}
	loopEnd = rt.mark();
	rt.latencyRecord(service, Math.round((last - first) * 1e6));

	for (let sid = 0; sid < SESSIONS; sid++) {
		const session = sessionOf(dir, sid);
		rt.mix(h, session.idh, session.idl);
		rt.mix(h, session.hitsh, session.hitsl);
		rt.mix(h, session.sumh, session.suml);
		for (let k = 0; k < HISTORY; k++) {
			const e = session.ring[k];
			if (e === null) {
				rt.mix(h, 0, 0);
				continue;
			}
			rt.mix(h, e.vh, e.seq ^ e.vl);
			if (e.sid !== sid)
				fail(e.seq, "a history entry's session", e.sid, sid);
		}
	}
}

function premiseMet(c, why) {
	const during = c.collectionsBetween(loopStart, loopEnd);
	if (during === 0) {
		why.text = 'no collection while requests were in flight';
		return 0;
	}
	why.text = during + ' collections while requests were in flight';
	return 1;
}

rt.main({
	name: '15_request_latency',
	premise: 'a request loop over a session cache: a collector that collects must collect ' +
	         'while requests are in flight',
	iterations: [50000, 500000, 2000000],
	run,
	premiseMet,
});
