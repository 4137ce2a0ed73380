/*
 * probe.js — the runtime every JS probe shares: the JavaScript twin of probes/runtime/probe.c
 * (and of jvm/probes/Probe.java), run by node (V8).
 *
 * A probe is a file NN_name.js that calls require('./probe.js').main(spec), spec being
 *   { name, premise, iterations: [ci, default, large], run(iterations, h), premiseMet(c) }.
 * run() does the work and leaves its checksum in h (a u64 cell, below). The runtime parses the
 * command line as the C runtime does (NN_name [ci|default|large] [--size S] [--iterations N]),
 * checks GCR_CENSUS_FD before the run (a broken harness fails in milliseconds), runs the body,
 * runs the final full collection (gc(): the wrappers give node --expose-gc), prints
 * "checksum 0x..." on stdout and writes the census object (docs/census-protocol.md) to the
 * descriptor, which node writes to by number.
 *
 * Exit status: 0 done; 2 bad command line or environment (message on stderr); 134 a probe
 * that found its data corrupted (the message names what and where; the C probes abort(), the
 * JVM's halt(134)). V8's fatal out-of-memory is not an exception: the wrapper maps it to 3,
 * "heap exhausted" (js/build.sh).
 *
 * 64-bit arithmetic. The checksums are the C probes' bit for bit, so every value is a uint64_t
 * there. Here a u64 is two int32 halves (hi, lo), kept as signed int32 everywhere (| 0), so
 * that in every tier of V8 they are small integers (Smis) and nothing is allocated on the JS
 * heap for a number: a BigInt, or a double above 2^31 in an object field or in unoptimised
 * code, would be an object of its own and move the collection counts. Results come back in R
 * (R[0] hi, R[1] lo); a running checksum is a u64 cell (an Int32Array of 2). Unsigned order
 * is signed order with the top bit flipped (ult).
 *
 * The census (V8 has no C ABI): collections and pauses from a PerformanceObserver on 'gc'
 * entries (perf_hooks), which node delivers only once the event loop runs, so after the
 * run: an entry's kind says minor (a scavenge) or major (mark-compact); its startTime and
 * duration, in ms from node's monotonic clock (performance.now()), are the pause. A probe
 * that needs the collections between two moments of its run (11, 12, 15) reads
 * performance.now() there (mark()) and counts the entries between the marks afterwards
 * (collectionsBetween). Heap figures from v8.getHeapStatistics(). docs/js.md says what each
 * figure is, how it compares with V8's own --trace-gc, and why.
 */
'use strict';

const fs = require('fs');
const v8 = require('v8');
const { PerformanceObserver, performance, constants } = require('perf_hooks');

const EXIT_OK = 0;
const EXIT_USAGE = 2;
const EXIT_CORRUPT = 134;
const SIZE_NAMES = ['ci', 'default', 'large'];
const GC_MINOR = constants.NODE_PERFORMANCE_GC_MINOR;
const GC_MAJOR = constants.NODE_PERFORMANCE_GC_MAJOR;
/* How long the census waits for the run's gc entries once the final collection is done. */
const ENTRY_WAIT_MS = 1000;

/* ---- u64 on int32 halves (see the top) ------------------------------------------------- */

const R = new Int32Array(2);
const MIN32 = -2147483648;

function u64(hi, lo) {
	const c = new Int32Array(2);
	c[0] = hi | 0;
	c[1] = lo | 0;
	return c;
}

/* a < b, both int32 read as unsigned. */
function ult(a, b) {
	return (a ^ MIN32) < (b ^ MIN32);
}

/* The high 32 bits of the unsigned product a * b (16-bit limbs: every product is exact). */
function mulhi32(a, b) {
	const a0 = a & 0xffff, a1 = a >>> 16, b0 = b & 0xffff, b1 = b >>> 16;
	const p00 = Math.imul(a0, b0), p01 = Math.imul(a0, b1);
	const p10 = Math.imul(a1, b0), p11 = Math.imul(a1, b1);
	const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
	return (p11 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16)) | 0;
}

/* R = a + b */
function add(ah, al, bh, bl) {
	const lo = (al + bl) | 0;
	R[0] = (ah + bh + (ult(lo, al) ? 1 : 0)) | 0;
	R[1] = lo;
}

/* R = a * b (the low 64 bits, as uint64_t multiplication) */
function mul(ah, al, bh, bl) {
	R[0] = (mulhi32(al, bl) + Math.imul(al, bh) + Math.imul(ah, bl)) | 0;
	R[1] = Math.imul(al, bl);
}

/* R = a << s, 0 <= s < 64 */
function shl(ah, al, s) {
	if (s === 0) {
		R[0] = ah;
		R[1] = al;
	} else if (s < 32) {
		R[0] = (ah << s) | (al >>> (32 - s));
		R[1] = al << s;
	} else {
		R[0] = al << (s - 32);
		R[1] = 0;
	}
}

/* R = a >> s (logical, as on uint64_t), 0 <= s < 64 */
function shr(ah, al, s) {
	if (s === 0) {
		R[0] = ah;
		R[1] = al;
	} else if (s < 32) {
		R[0] = ah >>> s;
		R[1] = (al >>> s) | (ah << (32 - s));
	} else {
		R[0] = 0;
		R[1] = (ah >>> (s - 32)) | 0;
	}
}

/* a % n for 1 <= n < 2^31, as a number: 2^32 mod n is folded in 16-bit steps, each exact. */
function modSmall(ah, al, n) {
	let t = (ah >>> 0) % n;
	t = ((t * 65536) % n) * 65536 % n;
	return (t + (al >>> 0) % n) % n;
}

/*
 * probe_mix: h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2), on the cell h. The sum is
 * taken with the old h, as C evaluates it.
 */
function mix(h, vh, vl) {
	const hh = h[0], hl = h[1];
	add(vh, vl, 0x9e3779b9 | 0, 0x7f4a7c15);
	add(R[0], R[1], (hh << 6) | (hl >>> 26), hl << 6);
	add(R[0], R[1], hh >>> 2, (hl >>> 2) | (hh << 30));
	h[0] = hh ^ R[0];
	h[1] = hl ^ R[1];
}

/* probe_rand: xorshift64* on the cell state (it must start non-zero); the result in R. */
function rand(state) {
	let xh = state[0], xl = state[1];
	/* x ^= x >> 12 */
	xl ^= (xl >>> 12) | (xh << 20);
	xh ^= xh >>> 12;
	/* x ^= x << 25 */
	xh ^= (xh << 25) | (xl >>> 7);
	xl ^= xl << 25;
	/* x ^= x >> 27 */
	xl ^= (xl >>> 27) | (xh << 5);
	xh ^= xh >>> 27;
	state[0] = xh;
	state[1] = xl;
	mul(xh, xl, 0x2545f491, 0x4f6cdd1d);
}

function hex32(v) {
	return (v >>> 0).toString(16).padStart(8, '0');
}

function hex(hi, lo) {
	return '0x' + hex32(hi) + hex32(lo);
}

/* A u64 as a decimal string (for messages only: it allocates). */
function dec(hi, lo) {
	return ((BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0)).toString();
}

/* ---- Corruption ----------------------------------------------------------------------- */

/* A probe's data came back wrong: the message names what and where; status 134. */
function corrupt(message) {
	try {
		fs.writeSync(2, message + '\n');
	} finally {
		process.reallyExit(EXIT_CORRUPT);
	}
}

/*
 * Objects a probe stores here escape: V8's optimising compiler (TurboFan) removes an
 * allocation whose object never leaves the function (escape analysis), and a probe whose
 * premise is the allocation would silently stop allocating (12's requests did: the live set
 * was traced by one collection). A store into this module-level slot makes every object a
 * probe passes through it reachable from outside, so each one is allocated, as each
 * gcr_alloc is in C; the slot holds only the last.
 */
let sinkSlot = null;
function sink(o) {
	sinkSlot = o;
}

/* ---- Marks: moments of the run, for premises judged on collections between them ---------- */

/* performance.now() as ms; call it where a C probe reads the census inside run(). */
function mark() {
	return performance.now();
}

/* ---- The latency section (15) ---------------------------------------------------------- */

let latencyServiceNs = null;
let latencySpanNs = 0;

/*
 * For a probe that serves requests one after another: every request's service time in ns (a
 * Float64Array of whole ns), in the order served, and the loop's span; the runtime owns the
 * array from then on. The figures are computed only when the census is written.
 */
function latencyRecord(serviceNs, spanNs) {
	latencyServiceNs = serviceNs;
	latencySpanNs = spanNs;
}

/* gcr_quantile_sorted: nearest rank, ceil(n * q) - 1, at least the first. */
function quantile(sorted, qPer10000) {
	const rank = Math.floor((sorted.length * qPer10000 + 9999) / 10000);
	return sorted[rank > 0 ? rank - 1 : 0];
}

function latencyJson(out) {
	const simple = Float64Array.from(latencyServiceNs);
	const n = simple.length;
	const metered = new Float64Array(n);
	let done = 0;

	/* Request i arrives at i * span / n and is served in order: probe_json_latency's queue. */
	for (let i = 0; i < n; i++) {
		const arrival = Math.floor((latencySpanNs * i) / n);
		const start = Math.max(done, arrival);
		done = start + simple[i];
		metered[i] = done - arrival;
	}
	simple.sort();
	metered.sort();
	const q = [5000, 9900, 9990, 10000], qname = ['p50', 'p99', 'p999', 'max'];
	const parts = ['"requests": ' + n];
	for (const [prefix, v] of [['simple', simple], ['metered', metered]])
		for (let i = 0; i < q.length; i++)
			parts.push('"' + prefix + '_' + qname[i] + '_ns": ' + quantile(v, q[i]));
	out.push('  "latency": {\n    ' + parts.join(',\n    ') + '\n  }');
}

/* ---- Pause figures: collectors/common/pausestats.c over the gc entries ------------------- */

/* pausestats.c's cursor: pauses [lo, hi) overlap the window; sum their whole lengths. */
function pausedAt(p, c, t, w) {
	while (c.hi < p.length && p[c.hi][0] < t + w) {
		c.sum += p[c.hi][1] - p[c.hi][0];
		c.hi++;
	}
	while (c.lo < c.hi && p[c.lo][1] <= t) {
		c.sum -= p[c.lo][1] - p[c.lo][0];
		c.lo++;
	}
	if (c.lo >= c.hi)
		return 0;
	let paused = c.sum;
	if (p[c.lo][0] < t)
		paused -= t - p[c.lo][0];
	if (p[c.hi - 1][1] > t + w)
		paused -= p[c.hi - 1][1] - (t + w);
	return paused;
}

function clamp(t, lo, hi) {
	return t < lo ? lo : t > hi ? hi : t;
}

/* gcr_mmu_max_paused_ns: the most pause time overlapping any window inside the span. */
function maxPaused(p, spanStart, spanEnd, window) {
	const starts = { lo: 0, hi: 0, sum: 0 }, ends = { lo: 0, hi: 0, sum: 0 };
	const w = Math.min(window, spanEnd - spanStart), last = spanEnd - w;
	let best = pausedAt(p, starts, spanStart, w);
	for (const x of p)
		best = Math.max(best, pausedAt(p, starts, clamp(x[0], spanStart, last), w));
	for (const x of p) {
		const t = x[1] >= spanStart + w ? x[1] - w : spanStart;
		best = Math.max(best, pausedAt(p, ends, clamp(t, spanStart, last), w));
	}
	return Math.max(best, pausedAt(p, ends, last, w));
}

/* gcr_mmu: 1 for an empty span or a zero window. */
function mmu(p, spanStart, spanEnd, window) {
	const w = Math.min(window, spanEnd - spanStart);
	if (w === 0)
		return 1;
	return (w - maxPaused(p, spanStart, spanEnd, window)) / w;
}

/* gcr_pause_intervals_check: sorted, not overlapping, inside the span. */
function intervalsOk(p, spanStart, spanEnd) {
	let prevEnd = spanStart;
	for (const x of p) {
		if (x[0] < prevEnd || x[1] < x[0] || x[1] > spanEnd)
			return false;
		prevEnd = x[1];
	}
	return true;
}

/* gcr_pause_bucket: floor(log2(ns)), 0 for 0 and 1. */
function bucket(ns) {
	return ns <= 1 ? 0 : Math.floor(Math.log2(ns));
}

const MS_NS = 1e6;
const WINDOWS = [[1, '1ms'], [2, '2ms'], [5, '5ms'], [10, '10ms'], [20, '20ms'], [50, '50ms'],
                 [100, '100ms']];

/* The "pauses" member from pauses [[start_ns, end_ns], ...] (sorted) over the span, in ns. */
function pausesJson(p, spanStart, spanEnd, name) {
	const wall = p.map((x) => x[1] - x[0]);
	const total = wall.reduce((a, b) => a + b, 0), max = wall.reduce((a, b) => Math.max(a, b), 0);
	const parts = ['"count": ' + p.length + ', "dropped": 0, "span_ns": ' + (spanEnd - spanStart),
	               '"wall_total_ns": ' + total + ', "wall_max_ns": ' + max];
	if (!intervalsOk(p, spanStart, spanEnd)) {
		fs.writeSync(2, name + ': a gc entry is out of order or outside the run: no pause ' +
		                'quantiles, histogram or MMU\n');
		return '  "pauses": {\n    ' + parts.join(',\n    ') + '\n  }';
	}
	if (p.length > 0) {
		const sorted = Float64Array.from(wall).sort();
		parts.push('"wall_p50_ns": ' + quantile(sorted, 5000) + ', "wall_p90_ns": ' +
		           quantile(sorted, 9000) + ', "wall_p99_ns": ' + quantile(sorted, 9900));
	}
	const hist = new Map();
	for (const v of wall)
		hist.set(bucket(v), (hist.get(bucket(v)) || 0) + 1);
	parts.push('"histogram_log2_ns": {' +
	           [...hist.keys()].sort((a, b) => a - b).map((k) => '"' + k + '": ' + hist.get(k))
	               .join(', ') + '}');
	parts.push('"mmu": {' +
	           WINDOWS.map(([ms, key]) => '"' + key + '": ' +
	                                      mmu(p, spanStart, spanEnd, ms * MS_NS).toFixed(6))
	               .join(', ') + '}');
	return '  "pauses": {\n    ' + parts.join(',\n    ') + '\n  }';
}

/* ---- The census ------------------------------------------------------------------------ */

/* performance.now() ms to whole ns on the same clock. */
function ns(ms) {
	return Math.round(ms * MS_NS);
}

/* VmHWM and RssAnon from /proc/self/status, in bytes; absent where the kernel gave none. */
function readMemory() {
	const m = {};
	let text = '';
	try {
		text = fs.readFileSync('/proc/self/status', 'latin1');
	} catch (e) {
		return m;
	}
	for (const line of text.split('\n')) {
		const f = /^(VmHWM|RssAnon):\s+(\d+) kB$/.exec(line);
		if (f)
			m[f[1] === 'VmHWM' ? 'vm_hwm_bytes' : 'rss_anon_bytes'] = Number(f[2]) * 1024;
	}
	return m;
}

function jsonString(s) {
	return JSON.stringify(String(s));
}

/*
 * What the census knows, for a probe's premiseMet(c): c.minor, c.major (the run's collections,
 * the final one included), c.collects (true: V8 always collects), c.usedAfterFull, and
 * c.collectionsBetween(t0, t1), the collections that started between two marks.
 */
class Census {
	constructor(entries, heapUsedAfterFull) {
		this.entries = entries;
		this.minor = entries.filter((e) => e.detail.kind === GC_MINOR).length;
		this.major = entries.filter((e) => e.detail.kind === GC_MAJOR).length;
		this.collects = true;
		this.usedAfterFull = heapUsedAfterFull;
	}

	collectionsBetween(t0, t1) {
		let n = 0;
		for (const e of this.entries)
			if ((e.detail.kind === GC_MINOR || e.detail.kind === GC_MAJOR) && e.startTime >= t0 &&
			    e.startTime <= t1)
				n++;
		return n;
	}

	/* probe_collected: -1 n/a, 0 no collection during the run, 1 with why.n set. */
	collected(why) {
		const n = this.minor + this.major;
		why.n = n;
		if (n <= 1) {
			why.text = 'no collection during the run (' + n + ' in all, with the final full one)';
			return 0;
		}
		return 1;
	}
}

/* ---- Command line ---------------------------------------------------------------------- */

function usage(spec) {
	const it = spec.iterations;
	return 'usage: ' + spec.name + ' [ci|default|large] [--size ci|default|large] [--iterations N]\n' +
	       '  sizes: ci ' + it[0] + ', default ' + it[1] + ', large ' + it[2] + ' iterations\n' +
	       '  premise: ' + spec.premise + '\n' +
	       '  prints "checksum 0x..." on stdout; writes the census object to GCR_CENSUS_FD when ' +
	       'it is set\n';
}

function badUsage(spec, what, arg) {
	fs.writeSync(2, spec.name + ': ' + what + " '" + arg + "'\n" + usage(spec));
	return EXIT_USAGE;
}

/* A positive decimal integer below 2^53, nothing else; -1 if not. */
function parsePositive(s) {
	if (!/^[0-9]{1,15}$/.test(s))
		return -1;
	const v = Number(s);
	return v > 0 ? v : -1;
}

/* { size, iterations, custom } or an exit status. */
function parseArgs(spec, argv) {
	let size = 1, sizeGiven = false, iterations = 0, iterationsGiven = false;
	for (let i = 0; i < argv.length; i++) {
		let arg = argv[i], val = null;
		if (arg === '-h' || arg === '--help') {
			fs.writeSync(1, usage(spec));
			return EXIT_OK;
		}
		if (arg === '--size' || arg === '--iterations') {
			if (i + 1 >= argv.length)
				return badUsage(spec, 'missing value after', arg);
			val = argv[++i];
		} else if (arg.startsWith('--size=')) {
			val = arg.slice(7);
		} else if (arg.startsWith('--iterations=')) {
			val = arg.slice(13);
		}
		if (arg.startsWith('--iterations') && val !== null) {
			if (iterationsGiven)
				return badUsage(spec, '--iterations given twice, at', val);
			iterations = parsePositive(val);
			if (iterations < 0)
				return badUsage(spec, '--iterations needs a positive integer, not', val);
			iterationsGiven = true;
			continue;
		}
		if (arg.startsWith('--size') && val !== null)
			arg = val;
		else if (arg.startsWith('-'))
			return badUsage(spec, 'unknown option', arg);
		const s = SIZE_NAMES.indexOf(arg);
		if (s < 0)
			return badUsage(spec, 'unknown size (want ci, default or large)', arg);
		if (sizeGiven)
			return badUsage(spec, 'size given twice, at', arg);
		size = s;
		sizeGiven = true;
	}
	return {
		size: iterationsGiven ? 'custom' : SIZE_NAMES[size],
		iterations: iterationsGiven ? iterations : spec.iterations[size],
	};
}

/* The census descriptor, or -1 when GCR_CENSUS_FD is unset; a message and null if bad. */
function openSink(spec) {
	const s = process.env.GCR_CENSUS_FD;
	if (s === undefined)
		return -1;
	if (!/^[0-9]{1,10}$/.test(s) || Number(s) > 2147483647) {
		fs.writeSync(2, spec.name + ": GCR_CENSUS_FD='" + s + "' is not a descriptor number\n");
		return null;
	}
	const fd = Number(s);
	try {
		fs.fstatSync(fd);
		fs.writeSync(fd, '');
	} catch (e) {
		fs.writeSync(2, spec.name + ': GCR_CENSUS_FD=' + s +
		                ': descriptor is not open for writing (' + e.code + ')\n');
		return null;
	}
	return fd;
}

/* ---- The run --------------------------------------------------------------------------- */

/*
 * Waits until the gc entries of the run, the final collection's included, have come through
 * the observer: node queues each one at the end of its collection and hands them over on the
 * event loop. Resolves with the entries, or null if the final one did not come in time.
 */
function collectEntries(observer, got, finalStart, finalEnd) {
	const deadline = performance.now() + ENTRY_WAIT_MS;
	const hasFinal = () => got.some((e) => e.detail.kind === GC_MAJOR && e.startTime >= finalStart &&
	                                       e.startTime <= finalEnd);
	return new Promise((resolve) => {
		const step = () => {
			for (const e of observer.takeRecords())
				got.push(e);
			if (hasFinal()) {
				observer.disconnect();
				resolve(got);
			} else if (performance.now() > deadline) {
				observer.disconnect();
				resolve(null);
			} else {
				setImmediate(step);
			}
		};
		setImmediate(step);
	});
}

/*
 * The build this probe runs in: {"collector": "js-default", "capabilities": [...]}, which
 * js/build.sh writes into each probe's script as GCR_BUILD (docs/js.md, "What a build folder
 * holds"). Run from js/probes itself there is none: collector "js", the capabilities below.
 */
function buildInfo() {
	/* global GCR_BUILD */
	if (typeof GCR_BUILD !== 'undefined')
		return GCR_BUILD;
	return { collector: 'js', capabilities: ['collects', 'precise', 'moving', 'generational',
	                                         'barrier'] };
}

/* The build's capabilities (js/build.sh says why each), and pause_log when there are figures. */
function capabilities(build, pauseLog) {
	const caps = build.capabilities.slice();
	if (pauseLog)
		caps.push('pause_log');
	return caps;
}

async function finishRun(spec, a, sink, h, observer, got, t) {
	const entries = await collectEntries(observer, got, t.finalStart, t.finalEnd);
	const name = spec.name;
	const census = new Census(entries || [], t.usedAfterFull);
	const why = {};
	let met = null;
	if (spec.premiseMet) {
		if (!entries) {
			met = -1;
			why.text = 'the gc entries of the run did not all arrive: no collection counts';
		} else {
			met = spec.premiseMet(census, why);
		}
		if (!why.text)
			why.text = spec.premise;
	}
	const checksum = hex(h[0], h[1]);
	try {
		fs.writeSync(1, 'checksum ' + checksum + '\n');
	} catch (e) {
		fs.writeSync(2, name + ': writing the checksum to stdout failed: ' + e.message + '\n');
		return EXIT_USAGE;
	}
	if (met === 0)
		fs.writeSync(2, 'premise not met: ' + why.text + '\n');
	if (!entries)
		fs.writeSync(2, name + ': the final collection\'s gc entry did not arrive within ' +
		                ENTRY_WAIT_MS + ' ms: no collection counts or pause figures\n');
	if (sink < 0)
		return EXIT_OK;

	/*
	 * The pauses: the run's collections, from the observer's start to the end of the final
	 * one. An 'incremental' entry (the start of incremental marking, on the main thread) or a
	 * 'weakcb' one is left out, as V8's own --trace-gc leaves them out of its pauses (it
	 * lists the marking steps as "+ N ms in M steps"): the figures are V8's pauses.
	 */
	const runEntries = (entries || []).filter((e) => (e.detail.kind === GC_MINOR ||
	                                                  e.detail.kind === GC_MAJOR) &&
	                                                 e.startTime <= t.finalEnd);
	const pauses = runEntries.map((e) => [ns(e.startTime), ns(e.startTime + e.duration)])
	                   .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
	const counters = [];
	if (entries) {
		counters.push('"minor_collections": ' + census.minor);
		counters.push('"major_collections": ' + census.major);
	}
	if (t.usedAfterFull >= 0)
		counters.push('"heap_used_after_full_bytes": ' + t.usedAfterFull);
	const mem = readMemory();
	const memParts = Object.keys(mem).map((k) => '"' + k + '": ' + mem[k]);
	const out = [];
	out.push('  "format": "gcr-census",\n  "version": 1');
	out.push('  "probe": ' + jsonString(name));
	out.push('  "size": "' + a.size + '",\n  "iterations": ' + a.iterations);
	const build = buildInfo();
	out.push('  "collector": ' + jsonString(build.collector));
	out.push('  "collector_version": ' + jsonString('node ' + process.version.slice(1) + ' V8 ' +
	                                                 process.versions.v8));
	out.push('  "capabilities": [' + capabilities(build, entries !== null).map((c) => '"' + c + '"')
	                                     .join(', ') + ']');
	out.push('  "checksum": "' + checksum + '"');
	out.push('  "census": {' + (counters.length ? '\n    ' + counters.join(',\n    ') + '\n  }' : '}'));
	out.push('  "memory": {' + (memParts.length ? ' ' + memParts.join(', ') + ' }' : '}'));
	if (entries)
		out.push(pausesJson(pauses, ns(t.spanStart), ns(t.finalEnd), name));
	if (latencyServiceNs && latencyServiceNs.length > 0)
		latencyJson(out);
	if (met !== null)
		out.push('  "premise": { "met": ' + (met === 1 ? 'true' : met === 0 ? 'false' : 'null') +
		         ', "text": ' + jsonString(why.text) + ' }');
	const json = '{\n' + out.join(',\n') + '\n}\n';
	try {
		const buf = Buffer.from(json, 'utf8');
		for (let off = 0; off < buf.length;)
			off += fs.writeSync(sink, buf, off, buf.length - off);
		fs.closeSync(sink);
	} catch (e) {
		fs.writeSync(2, name + ': GCR_CENSUS_FD=' + process.env.GCR_CENSUS_FD +
		                ': write failed: ' + e.message + '\n');
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

function main(spec) {
	const a = parseArgs(spec, process.argv.slice(2));
	if (typeof a === 'number')
		process.exit(a);
	const sink = openSink(spec);
	if (sink === null)
		process.exit(EXIT_USAGE);
	if (typeof global.gc !== 'function') {
		fs.writeSync(2, spec.name + ': node runs without --expose-gc: the final full ' +
		                'collection cannot be run (start the probe through its wrapper)\n');
		process.exit(EXIT_USAGE);
	}
	const got = [];
	const observer = new PerformanceObserver((list) => {
		for (const e of list.getEntries())
			got.push(e);
	});
	observer.observe({ entryTypes: ['gc'] });

	const t = { spanStart: performance.now() };
	const h = u64(0, 0);
	spec.run(a.iterations, h);
	t.finalStart = performance.now();
	global.gc();
	t.finalEnd = performance.now();
	t.usedAfterFull = v8.getHeapStatistics().used_heap_size;
	finishRun(spec, a, sink, h, observer, got, t).then((rc) => process.exit(rc));
}

module.exports = {
	R, u64, ult, add, mul, shl, shr, modSmall, mix, rand, hex, dec,
	corrupt, sink, mark, latencyRecord, main,
};
