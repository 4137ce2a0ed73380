/*
 * abi_conformance — one program, written against gcr.h only, that every collector build must
 * pass. It links against a collector exactly as a probe does (see tests/abi/abi.mk).
 *
 * What it checks, phase by phase, with a seeded generator (GCR_TEST_SEED=N replays a run,
 * GCR_TEST_SEED=time picks a fresh seed; the seed is printed first):
 * - identity: name, version and capabilities are sane;
 * - zeroing: pointer slots are NULL at allocation, also in memory that held dirty objects;
 * - freeing (collectors with GCR_CAP_COLLECTS): allocating ten times GCR_HEAP_MB (default 4)
 *   of garbage collects, frees, and keeps heap_committed_peak_bytes bounded; a precise collector
 *   frees every byte of a dropped structure and counts a live one in heap_used_after_full_bytes;
 * - lists, trees, sizes: data in raw bytes and pointer graphs survive explicit (minor and full)
 *   and allocation-triggered collections, for objects from 0 bytes to 4 MiB;
 * - graph: random mutation of a graph with cycles and shared objects, checked against a model
 *   kept in malloc'd memory, through a root table larger than 64 KiB;
 * - deep: a list a million nodes long survives collections (a recursive marker overflows);
 * - heap limit (not under zeal): in child processes of this program, GCR_HEAP_MAX_MB that
 *   suffices lets a small live set and much garbage run to the end (also with a GCR_HEAP_MB
 *   above the limit), and keeps heap_committed_peak_bytes within it (gen, which may pass it
 *   during one collection, aside); a live set four times the limit ends with status 3 and
 *   "heap exhausted" on stderr; GCR_HEAP_MAX_MB=abc and =0 end with status 2, naming the knob;
 * - census, after every phase: counters only grow, a counter once known stays known,
 *   alloc_bytes and alloc_objects grow by exactly what was requested, and a collector without
 *   GCR_CAP_COLLECTS reports no collection and nothing freed;
 * - triggers, with every census: no bits beyond the triggers, a trigger once known stays
 *   known and never goes down, and a collector that reports any knows its collection counts
 *   and its triggers add up to minor_collections + major_collections (gcr.h, GCR_TRIGGERS);
 * - pause log, with every census: a collector claiming GCR_CAP_PAUSE_LOG knows its collection
 *   counts and pause_total_ns, the log's minor and major sums equal those counts, its wall
 *   total and max equal pause_total_ns and pause_max_ns, and its intervals are in order, do
 *   not overlap and lie between gcr_init and now; one that does not claim it marks no pause.
 * Under GCR_ZEAL=N the sizes shrink so that collecting every N allocations stays affordable.
 *
 * The program respects the ABI's rules for moving collectors: no object pointer is held in an
 * unrooted local across gcr_alloc or gcr_collect, except while checking, which allocates
 * nothing. Exit status: 0 and "abi_conformance: <collector>: ok", 1 on the first failure
 * (with the phase, what was wrong and the seed), 2 on a bad GCR_TEST_SEED. GCR_TEST_VERBOSE=1
 * prints each phase's time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcr.h"
#include "pauselog.h"
#include "pausestats.h"

#define ABI_MIB             ((uint64_t)1 << 20)
#define ABI_DEFAULT_SEED    UINT64_C(0x5eed)
#define ABI_DEFAULT_HEAP_MB 4u

static const char *const abi_field_names[GCR_C_COUNT] = {
#define ABI_FIELD_NAME_(id, name) name,
    GCR_CENSUS_FIELDS(ABI_FIELD_NAME_)
#undef ABI_FIELD_NAME_
};

static const char *const abi_trigger_names[GCR_T_COUNT] = {
#define ABI_TRIGGER_NAME_(id, name) name,
    GCR_TRIGGERS(ABI_TRIGGER_NAME_)
#undef ABI_TRIGGER_NAME_
};

/* The run's settings and the census bookkeeping shared by every phase. */
static struct {
	const char *collector;
	unsigned caps;
	uint64_t seed;
	uint64_t rng;
	uint64_t zeal;
	uint64_t heap_mb;
	uint64_t init_ns; /* CLOCK_MONOTONIC just before gcr_init: no pause starts earlier */
	const char *phase;
	/* Requested since the last census check, in the ABI's accounting (nptrs * 8 + nbytes). */
	uint64_t req_bytes;
	uint64_t req_objects;
	struct gcr_census last;
} abi;

/* ---- Failing, randomness, allocation --------------------------------------------------- */

static _Noreturn void abi_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static _Noreturn void abi_fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "abi_conformance: %s: FAIL in %s: ", abi.collector, abi.phase);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (seed %" PRIu64 "; replay with GCR_TEST_SEED=%" PRIu64 ")\n", abi.seed,
	        abi.seed);
	exit(1);
}

static uint64_t abi_mix(uint64_t x)
{
	/* splitmix64's finaliser: a bijection, so distinct inputs give distinct words. */
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static uint64_t abi_rand(void)
{
	abi.rng += UINT64_C(0x9e3779b97f4a7c15);
	return abi_mix(abi.rng);
}

/* A number in [0, n). */
static uint64_t abi_below(uint64_t n)
{
	return n == 0 ? 0 : abi_rand() % n;
}

/* Allocates through the ABI and checks what the ABI promises about a fresh object. */
static void *abi_alloc(uint32_t nptrs, uint32_t nbytes)
{
	void *obj = gcr_alloc(nptrs, nbytes);

	if (obj == NULL)
		abi_fail("gcr_alloc(%" PRIu32 ", %" PRIu32 ") returned NULL", nptrs, nbytes);
	if ((uintptr_t)obj % sizeof(void *) != 0)
		abi_fail("gcr_alloc(%" PRIu32 ", %" PRIu32 ") returned %p, not pointer-aligned",
		         nptrs, nbytes, obj);
	for (uint32_t i = 0; i < nptrs; i++) {
		if (gcr_read(obj, i) != NULL)
			abi_fail("slot %" PRIu32 " of a fresh %" PRIu32
			         "-slot object is %p, not NULL",
			         i, nptrs, gcr_read(obj, i));
	}
	abi.req_bytes += (uint64_t)nptrs * sizeof(void *) + nbytes;
	abi.req_objects++;
	return obj;
}

/* Word w of an object's raw bytes: word 0 is its id, the others derive from it. */
static uint64_t abi_word(uint64_t id, uint64_t w)
{
	return w == 0 ? id : abi_mix(id * UINT64_C(0x100000001b3) + w);
}

static void abi_fill(void *obj, uint32_t nptrs, uint32_t nbytes, uint64_t id)
{
	unsigned char *raw = gcr_raw(obj, nptrs);
	uint32_t off = 0;
	uint64_t v;

	for (; off + 8 <= nbytes; off += 8) {
		v = abi_word(id, off / 8);
		memcpy(raw + off, &v, 8);
	}
	v = abi_word(id, off / 8);
	memcpy(raw + off, &v, nbytes - off);
}

/* Returns the offset of the first raw word that differs from abi_fill's, or -1. */
static int64_t abi_check_fill(void *obj, uint32_t nptrs, uint32_t nbytes, uint64_t id)
{
	const unsigned char *raw = gcr_raw(obj, nptrs);
	uint32_t off = 0;
	uint64_t v, got = 0;

	for (; off + 8 <= nbytes; off += 8) {
		memcpy(&got, raw + off, 8);
		if (got != abi_word(id, off / 8))
			return off;
	}
	v = abi_word(id, off / 8);
	if (memcmp(raw + off, &v, nbytes - off) != 0)
		return off;
	return -1;
}

static uint64_t abi_get_u64(void *obj, uint32_t nptrs)
{
	uint64_t v;

	memcpy(&v, gcr_raw(obj, nptrs), sizeof v);
	return v;
}

/* Sizes shrink under zeal: every allocation may collect, so work grows with live size. */
static uint64_t abi_size(uint64_t normal, uint64_t under_zeal)
{
	uint64_t s = 1;

	if (abi.zeal == 0)
		return normal;
	while ((s + 1) * (s + 1) <= abi.zeal && s < 64)
		s++;
	return under_zeal * s < normal ? under_zeal * s : normal;
}

/* ---- Census ------------------------------------------------------------------------------ */

static int abi_known(const struct gcr_census *c, enum gcr_census_field f)
{
	return (c->known >> f) & 1;
}

static uint64_t abi_collections(const struct gcr_census *c)
{
	return c->value[GCR_C_MINOR_COLLECTIONS] + c->value[GCR_C_MAJOR_COLLECTIONS];
}

/* The triggers of census c against the previous one, p (gcr.h, GCR_TRIGGERS). */
static void abi_check_triggers(const struct gcr_census *c, const struct gcr_census *p)
{
	uint64_t sum = 0;

	if (c->triggers_known >> GCR_T_COUNT != 0)
		abi_fail("census.triggers_known has bits beyond the %d triggers: %#" PRIx64,
		         GCR_T_COUNT, c->triggers_known);
	for (int t = 0; t < GCR_T_COUNT; t++) {
		uint64_t bit = UINT64_C(1) << t;
		if (!(c->triggers_known & bit)) {
			if (p->triggers_known & bit)
				abi_fail("trigger %s was known and is now absent",
				         abi_trigger_names[t]);
			continue;
		}
		if ((p->triggers_known & bit) && c->triggers[t] < p->triggers[t])
			abi_fail("trigger %s went down: %" PRIu64 " -> %" PRIu64,
			         abi_trigger_names[t], p->triggers[t], c->triggers[t]);
		sum += c->triggers[t];
	}
	if (c->triggers_known == 0)
		return;
	if (!abi_known(c, GCR_C_MINOR_COLLECTIONS) || !abi_known(c, GCR_C_MAJOR_COLLECTIONS))
		abi_fail("triggers reported, but the census lacks minor/major collection counts");
	if (sum != abi_collections(c))
		abi_fail("the triggers count %" PRIu64 " collections, minor_collections + "
		         "major_collections %" PRIu64,
		         sum, abi_collections(c));
}

/* The pause log against the census just taken (gcr.h, "The pause log"). */
static void abi_check_pause_log(const struct gcr_census *c)
{
	const struct gcr_pause_log *l = gcr_pause_log();
	uint64_t now;
	struct timespec ts;
	size_t bad;

	if (!(abi.caps & GCR_CAP_PAUSE_LOG)) {
		if (l->count != 0)
			abi_fail("no PAUSE_LOG capability, yet %" PRIu64 " pauses in the log",
			         l->count);
		return;
	}
	if (!abi_known(c, GCR_C_MINOR_COLLECTIONS) || !abi_known(c, GCR_C_MAJOR_COLLECTIONS) ||
	    !abi_known(c, GCR_C_PAUSE_TOTAL_NS) || !abi_known(c, GCR_C_PAUSE_MAX_NS))
		abi_fail(
		    "PAUSE_LOG claimed, but the census lacks collection counts or pause times");
	if (l->minor != c->value[GCR_C_MINOR_COLLECTIONS] ||
	    l->major != c->value[GCR_C_MAJOR_COLLECTIONS])
		abi_fail("the pause log completed %" PRIu64 " minor and %" PRIu64
		         " major collections, the census counts %" PRIu64 " and %" PRIu64,
		         l->minor, l->major, c->value[GCR_C_MINOR_COLLECTIONS],
		         c->value[GCR_C_MAJOR_COLLECTIONS]);
	if (l->wall_total_ns != c->value[GCR_C_PAUSE_TOTAL_NS] ||
	    l->wall_max_ns != c->value[GCR_C_PAUSE_MAX_NS])
		abi_fail("the pause log's wall total and max are %" PRIu64 " and %" PRIu64
		         " ns, the census says pause_total_ns %" PRIu64 ", pause_max_ns %" PRIu64,
		         l->wall_total_ns, l->wall_max_ns, c->value[GCR_C_PAUSE_TOTAL_NS],
		         c->value[GCR_C_PAUSE_MAX_NS]);
	if (l->cpu_max_ns > l->cpu_total_ns)
		abi_fail("the pause log's CPU max %" PRIu64 " exceeds its total %" PRIu64,
		         l->cpu_max_ns, l->cpu_total_ns);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (gcr_pause_intervals_check(l->pauses, l->n, abi.init_ns, now, &bad) != 0)
		abi_fail("pause %zu of the log [%" PRIu64 ", %" PRIu64
		         "] is out of order, overlaps the one before, or lies outside the run",
		         bad, l->pauses[bad].start_ns, l->pauses[bad].end_ns);
}

/* Takes a census and checks it against the previous one; returns it through *out. */
static void abi_census(struct gcr_census *out)
{
	struct gcr_census c;
	const struct gcr_census *p = &abi.last;

	memset(&c, 0xa5, sizeof c);
	gcr_census(&c);
	if (c.known >> GCR_C_COUNT != 0)
		abi_fail("census.known has bits beyond the %d fields: %#" PRIx64, GCR_C_COUNT,
		         c.known);
	for (int f = 0; f < GCR_C_COUNT; f++) {
		if (!abi_known(p, (enum gcr_census_field)f))
			continue;
		if (!abi_known(&c, (enum gcr_census_field)f))
			abi_fail("census field %s was known and is now absent", abi_field_names[f]);
		if (f != GCR_C_HEAP_USED_AFTER_FULL_BYTES && c.value[f] < p->value[f])
			abi_fail("census field %s went down: %" PRIu64 " -> %" PRIu64,
			         abi_field_names[f], p->value[f], c.value[f]);
	}
	if (abi_known(&c, GCR_C_ALLOC_BYTES) && abi_known(p, GCR_C_ALLOC_BYTES) &&
	    c.value[GCR_C_ALLOC_BYTES] - p->value[GCR_C_ALLOC_BYTES] != abi.req_bytes)
		abi_fail("alloc_bytes grew by %" PRIu64 " but %" PRIu64 " bytes were requested",
		         c.value[GCR_C_ALLOC_BYTES] - p->value[GCR_C_ALLOC_BYTES], abi.req_bytes);
	if (abi_known(&c, GCR_C_ALLOC_OBJECTS) && abi_known(p, GCR_C_ALLOC_OBJECTS) &&
	    c.value[GCR_C_ALLOC_OBJECTS] - p->value[GCR_C_ALLOC_OBJECTS] != abi.req_objects)
		abi_fail("alloc_objects grew by %" PRIu64 " but %" PRIu64 " objects were requested",
		         c.value[GCR_C_ALLOC_OBJECTS] - p->value[GCR_C_ALLOC_OBJECTS],
		         abi.req_objects);
	if (abi_known(&c, GCR_C_PAUSE_MAX_NS) && abi_known(&c, GCR_C_PAUSE_TOTAL_NS) &&
	    c.value[GCR_C_PAUSE_MAX_NS] > c.value[GCR_C_PAUSE_TOTAL_NS])
		abi_fail("pause_max_ns %" PRIu64 " exceeds pause_total_ns %" PRIu64,
		         c.value[GCR_C_PAUSE_MAX_NS], c.value[GCR_C_PAUSE_TOTAL_NS]);
	abi_check_triggers(&c, p);
	abi_check_pause_log(&c);
	if (!(abi.caps & GCR_CAP_COLLECTS)) {
		if (abi_collections(&c) != 0)
			abi_fail("no COLLECTS capability, yet %" PRIu64 " collections",
			         abi_collections(&c));
		if (abi_known(&c, GCR_C_FREED_BYTES) && c.value[GCR_C_FREED_BYTES] != 0)
			abi_fail("no COLLECTS capability, yet freed_bytes is %" PRIu64,
			         c.value[GCR_C_FREED_BYTES]);
	}
	abi.last = c;
	abi.req_bytes = 0;
	abi.req_objects = 0;
	if (out != NULL)
		*out = c;
}

/* value[f] of b minus a, or UINT64_MAX when either census lacks the field. */
static uint64_t abi_delta(const struct gcr_census *a, const struct gcr_census *b,
                          enum gcr_census_field f)
{
	if (!abi_known(a, f) || !abi_known(b, f))
		return UINT64_MAX;
	return b->value[f] - a->value[f];
}

/* ---- Phases ------------------------------------------------------------------------------ */

static void abi_phase_identity(void)
{
	const char *version = gcr_version();

	abi.phase = "identity";
	if (abi.collector == NULL || abi.collector[0] == '\0')
		abi_fail("gcr_name() is empty");
	if (version == NULL || version[0] == '\0')
		abi_fail("gcr_version() is empty");
	if (abi.caps &
	    ~(unsigned)(GCR_CAP_COLLECTS | GCR_CAP_PRECISE | GCR_CAP_MOVING | GCR_CAP_GENERATIONAL |
	                GCR_CAP_BARRIER | GCR_CAP_PAUSE_LOG | GCR_CAP_CLOCK_PACED))
		abi_fail("gcr_capabilities() has unknown bits: %#x", abi.caps);
	if ((abi.caps & (GCR_CAP_MOVING | GCR_CAP_GENERATIONAL)) && !(abi.caps & GCR_CAP_COLLECTS))
		abi_fail("moving or generational without COLLECTS: %#x", abi.caps);
	if (gcr_alloc(0, 0) == NULL || gcr_alloc(1, 0) == NULL)
		abi_fail("a zero-byte object came back NULL");
	abi.req_bytes += sizeof(void *);
	abi.req_objects += 2;
	abi_census(NULL);
	if (!abi_known(&abi.last, GCR_C_ALLOC_BYTES) || !abi_known(&abi.last, GCR_C_ALLOC_OBJECTS))
		abi_fail(
		    "alloc_bytes and alloc_objects must be known: every collector counts them");
}

/*
 * Dirty memory first (pointer slots aimed at a live object, raw bytes all ones), let it die,
 * collect, and allocate again: the fresh objects take the dirty memory and abi_alloc checks
 * their slots.
 */
static void abi_phase_zeroing(void)
{
	void *dirt = NULL, *obj = NULL;
	GCR_ROOTS(&dirt, &obj);
	const uint64_t rounds = abi_size(20000, 1000);

	abi.phase = "zeroing";
	dirt = abi_alloc(1, 8);
	for (int pass = 0; pass < 3; pass++) {
		for (uint64_t i = 0; i < rounds; i++) {
			uint32_t nptrs = (uint32_t)abi_below(33);
			uint32_t nbytes = (uint32_t)abi_below(512);

			if (i % 1000 == 999)
				nptrs = 10000 + (uint32_t)abi_below(5000);
			obj = abi_alloc(nptrs, nbytes);
			for (uint32_t k = 0; k < nptrs; k++)
				gcr_write(obj, k, dirt);
			memset(gcr_raw(obj, nptrs), 0xff, nbytes);
		}
		obj = NULL;
		gcr_collect(pass == 1 ? GCR_MINOR : GCR_FULL);
	}
	for (uint64_t i = 0; i < rounds; i++)
		obj = abi_alloc((uint32_t)abi_below(40), (uint32_t)abi_below(64));
	GCR_POP();
	abi_census(NULL);
}

/*
 * Garbage ten times the heap budget, with a small live ring, must be collected and freed, and
 * must not grow the committed peak by more than half of it.
 */
static void abi_garbage_loop(void)
{
	void *ring = NULL, *obj = NULL;
	GCR_ROOTS(&ring, &obj);
	const uint64_t total = 10 * abi.heap_mb * ABI_MIB;
	const uint32_t ring_slots = 64;
	uint64_t done = 0;
	struct gcr_census a, b;
	uint64_t d;

	abi_census(&a);
	ring = abi_alloc(ring_slots, 8);
	while (done < total) {
		uint32_t nptrs = (uint32_t)abi_below(4);
		uint32_t nbytes = 8 + (uint32_t)abi_below(200);

		if (abi.zeal != 0)
			nbytes = 4096 + (uint32_t)abi_below(60000);
		else if (abi_below(200) == 0)
			nbytes = 100000;
		obj = abi_alloc(nptrs, nbytes);
		abi_fill(obj, nptrs, nbytes, done);
		if (nptrs > 0)
			gcr_write(obj, 0, ring);
		if (abi_below(16) == 0)
			gcr_write(ring, (uint32_t)abi_below(ring_slots), obj);
		done += (uint64_t)nptrs * sizeof(void *) + nbytes;
	}
	obj = NULL;
	ring = NULL;
	GCR_POP();
	abi_census(&b);
	if (abi_collections(&b) == abi_collections(&a))
		abi_fail("%" PRIu64 " MiB of garbage was allocated without one collection",
		         total / ABI_MIB);
	d = abi_delta(&a, &b, GCR_C_FREED_BYTES);
	if (d != UINT64_MAX && d < total / 2)
		abi_fail("%" PRIu64 " bytes of garbage allocated, only %" PRIu64 " freed", total,
		         d);
	d = abi_delta(&a, &b, GCR_C_HEAP_COMMITTED_PEAK_BYTES);
	if (d != UINT64_MAX && d > total / 2)
		abi_fail("%" PRIu64 " bytes of garbage grew heap_committed_peak_bytes by %" PRIu64
		         " (from %" PRIu64 ")",
		         total, d, a.value[GCR_C_HEAP_COMMITTED_PEAK_BYTES]);
}

/* Builds a list of n nodes (1 slot + 8..40 raw bytes, values from base); returns its bytes. */
static uint64_t abi_build_list(void **headp, uint64_t n, uint64_t base, int with_garbage)
{
	void *node = NULL, *junk = NULL;
	GCR_ROOTS(&node, &junk);
	uint64_t bytes = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint32_t nbytes = 8 + 8 * (uint32_t)(i % 5);

		node = abi_alloc(1, nbytes);
		abi_fill(node, 1, nbytes, base + i);
		gcr_write(node, 0, *headp);
		*headp = node;
		bytes += sizeof(void *) + nbytes;
		if (with_garbage && i % 2 == 0)
			junk = abi_alloc((uint32_t)(i % 3), 24);
	}
	node = NULL;
	junk = NULL;
	GCR_POP();
	return bytes;
}

/* Walks a list built by abi_build_list (newest first) and checks every node; allocates nothing. */
static void abi_check_list(void *head, uint64_t n, uint64_t base, const char *when)
{
	uint64_t i = n;

	for (void *node = head; node != NULL; node = gcr_read(node, 0)) {
		uint32_t nbytes;
		int64_t bad;

		if (i == 0)
			abi_fail("%s: the list is longer than %" PRIu64 " nodes", when, n);
		i--;
		nbytes = 8 + 8 * (uint32_t)(i % 5);
		bad = abi_check_fill(node, 1, nbytes, base + i);
		if (bad >= 0)
			abi_fail("%s: list node %" PRIu64 " of %" PRIu64 ": raw byte %" PRId64
			         " changed",
			         when, n - 1 - i, n, bad);
	}
	if (i != 0)
		abi_fail("%s: the list ends after %" PRIu64 " of %" PRIu64 " nodes", when, n - i,
		         n);
}

static void abi_phase_freeing(void)
{
	void *keep = NULL, *drop = NULL;
	GCR_ROOTS(&keep, &drop);
	const uint64_t n = abi_size(100000, 3000);
	uint64_t keep_bytes, drop_bytes, d;
	struct gcr_census a, b;

	abi.phase = "freeing";
	if (!(abi.caps & GCR_CAP_COLLECTS)) {
		GCR_POP();
		return;
	}
	abi_garbage_loop();
	if (!(abi.caps & GCR_CAP_PRECISE)) {
		/* A conservative collector may keep a list alive through one stale word. */
		GCR_POP();
		return;
	}
	keep_bytes = abi_build_list(&keep, n, 1u << 30, 0);
	drop_bytes = abi_build_list(&drop, n, 2u << 30, 0);
	gcr_collect(GCR_FULL);
	abi_census(&a);
	if (abi_known(&a, GCR_C_HEAP_USED_AFTER_FULL_BYTES) &&
	    a.value[GCR_C_HEAP_USED_AFTER_FULL_BYTES] < keep_bytes + drop_bytes)
		abi_fail("heap_used_after_full_bytes %" PRIu64 " < %" PRIu64 " bytes held live",
		         a.value[GCR_C_HEAP_USED_AFTER_FULL_BYTES], keep_bytes + drop_bytes);
	drop = NULL;
	gcr_collect(GCR_FULL);
	abi_census(&b);
	d = abi_delta(&a, &b, GCR_C_FREED_BYTES);
	if (d != UINT64_MAX && d < drop_bytes)
		abi_fail("a dropped list of %" PRIu64
		         " bytes, but a full collection freed %" PRIu64,
		         drop_bytes, d);
	if (abi_known(&b, GCR_C_HEAP_USED_AFTER_FULL_BYTES) &&
	    (b.value[GCR_C_HEAP_USED_AFTER_FULL_BYTES] < keep_bytes ||
	     b.value[GCR_C_HEAP_USED_AFTER_FULL_BYTES] + drop_bytes >
	         a.value[GCR_C_HEAP_USED_AFTER_FULL_BYTES]))
		abi_fail("heap_used_after_full_bytes went %" PRIu64 " -> %" PRIu64
		         " when a %" PRIu64 "-byte list was dropped and a %" PRIu64
		         "-byte one kept",
		         a.value[GCR_C_HEAP_USED_AFTER_FULL_BYTES],
		         b.value[GCR_C_HEAP_USED_AFTER_FULL_BYTES], drop_bytes, keep_bytes);
	abi_check_list(keep, n, 1u << 30, "after the drop");
	keep = NULL;
	GCR_POP();
	abi_census(NULL);
}

static void abi_phase_lists(void)
{
	void *a = NULL, *b = NULL, *junk = NULL;
	GCR_ROOTS(&a, &b, &junk);
	const uint64_t n = abi_size(200000, 5000);
	uint64_t before, limit;

	abi.phase = "lists";
	abi_build_list(&a, n, 0, 1);
	abi_build_list(&b, n / 2, 1u << 20, 1);
	abi_check_list(a, n, 0, "after building");
	gcr_collect(GCR_MINOR);
	abi_check_list(a, n, 0, "after a minor collection");
	abi_check_list(b, n / 2, 1u << 20, "after a minor collection");

	/*
	 * Garbage until allocation triggers a collection (none is requested): a collector may let
	 * the heap grow with its live size, so the bound is ten times the budget plus the live
	 * lists, checked a MiB at a time.
	 */
	abi_census(NULL);
	before = abi_collections(&abi.last);
	limit = 10 * (abi.heap_mb * ABI_MIB + 64 * n);
	for (uint64_t done = 0; done < limit; done += 64) {
		junk = abi_alloc(2, 48);
		if (done % ABI_MIB == 0 || done + 64 >= limit) {
			abi_census(NULL);
			if (abi_collections(&abi.last) != before)
				break;
		}
	}
	junk = NULL;
	if ((abi.caps & GCR_CAP_COLLECTS) && abi_collections(&abi.last) == before)
		abi_fail("allocating %" PRIu64 " MiB of garbage triggered no collection",
		         limit / ABI_MIB);
	abi_check_list(a, n, 0, "after allocation-triggered collections");
	gcr_collect(GCR_FULL);
	abi_check_list(a, n, 0, "after a full collection");
	abi_check_list(b, n / 2, 1u << 20, "after a full collection");
	a = NULL;
	b = NULL;
	GCR_POP();
	abi_census(NULL);
}

/* A complete binary tree of depth d (node: 2 slots + 8 raw bytes, the node's id). */
static void *abi_make_tree(uint32_t d, uint64_t id)
{
	void *l = NULL, *r = NULL, *n = NULL;
	GCR_ROOTS(&l, &r, &n);

	if (d > 0) {
		l = abi_make_tree(d - 1, 2 * id);
		r = abi_make_tree(d - 1, 2 * id + 1);
	}
	n = abi_alloc(2, 8);
	abi_fill(n, 2, 8, abi_mix(id));
	gcr_write(n, 0, l);
	gcr_write(n, 1, r);
	GCR_POP();
	return n;
}

static uint64_t abi_check_tree(void *n, uint32_t d, uint64_t id, const char *when)
{
	uint64_t count = 1;

	if (n == NULL)
		abi_fail("%s: tree node %" PRIu64 " is missing", when, id);
	if (abi_get_u64(n, 2) != abi_mix(id))
		abi_fail("%s: tree node %" PRIu64 " holds the wrong value", when, id);
	if (d == 0) {
		if (gcr_read(n, 0) != NULL || gcr_read(n, 1) != NULL)
			abi_fail("%s: leaf %" PRIu64 " has children", when, id);
		return 1;
	}
	count += abi_check_tree(gcr_read(n, 0), d - 1, 2 * id, when);
	count += abi_check_tree(gcr_read(n, 1), d - 1, 2 * id + 1, when);
	return count;
}

static void abi_phase_trees(void)
{
	void *tree = NULL, *junk = NULL;
	GCR_ROOTS(&tree, &junk);
	/* Size grows as 2^depth: under zeal, not scaled with it. */
	const uint32_t depth = abi.zeal != 0 ? 9 : 17;
	const uint64_t rounds = abi_size(40, 3);

	abi.phase = "trees";
	tree = abi_make_tree(depth, 1);
	gcr_collect(GCR_FULL);
	abi_check_tree(tree, depth, 1, "after a full collection");
	/* GCBench's shape: short-lived trees churned beside a long-lived one. */
	for (uint64_t i = 0; i < rounds; i++) {
		junk = abi_make_tree(10, i + 2);
		if (i % 8 == 0)
			abi_check_tree(tree, depth, 1, "while churning trees");
	}
	junk = NULL;
	gcr_collect(GCR_MINOR);
	if (abi_check_tree(tree, depth, 1, "after churning trees") != (UINT64_C(2) << depth) - 1)
		abi_fail("the tree lost nodes");
	tree = NULL;
	GCR_POP();
	abi_census(NULL);
}

/*
 * Objects of sizes around every boundary a collector is likely to have (granules, size classes,
 * pages, large objects), with raw bytes filled to the last byte and some pointer slots aimed
 * at each other, held in one rooted array.
 */
static void abi_phase_sizes(void)
{
	static const uint32_t sizes[] = {
	    0,        1,      7,      8,        9,
	    15,       16,     17,     24,       31,
	    32,       33,     48,     63,       64,
	    65,       127,    128,    129,      255,
	    256,      257,    500,    511,      512,
	    513,      1000,   1023,   1024,     1025,
	    2000,     2032,   2040,   2041,     2047,
	    2048,     2049,   4095,   4096,     4097,
	    8191,     8192,   8193,   16384,    32760,
	    32768,    32769,  65535,  65536,    65537,
	    99999,    131072, 262145, 1u << 20, (1u << 20) + 1,
	    4u << 20,
	};
	static const uint32_t ptr_counts[] = {0, 1, 3};
	enum {
		NSIZES = sizeof sizes / sizeof sizes[0],
		NPTRS = sizeof ptr_counts / sizeof ptr_counts[0],
	};
	void *arr = NULL, *obj = NULL;
	GCR_ROOTS(&arr, &obj);
	const uint32_t count = NSIZES * NPTRS;

	abi.phase = "sizes";
	arr = abi_alloc(count, 0);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t nbytes = sizes[i / NPTRS];
		uint32_t nptrs = ptr_counts[i % NPTRS];

		obj = abi_alloc(nptrs, nbytes);
		abi_fill(obj, nptrs, nbytes, UINT64_C(0xabc0000) + i);
		gcr_write(arr, i, obj);
		/* Slot 0 aims at the previous object, slot 2 at the object itself: a cycle. */
		if (nptrs > 0 && i > 0)
			gcr_write(obj, 0, gcr_read(arr, i - 1));
		if (nptrs > 2)
			gcr_write(obj, 2, obj);
		if (i % 16 == 15)
			gcr_collect(i % 32 == 15 ? GCR_MINOR : GCR_FULL);
	}
	obj = NULL;
	for (int round = 0; round < 2; round++) {
		gcr_collect(round == 0 ? GCR_FULL : GCR_MINOR);
		for (uint32_t i = 0; i < count; i++) {
			uint32_t nbytes = sizes[i / NPTRS];
			uint32_t nptrs = ptr_counts[i % NPTRS];
			void *o = gcr_read(arr, i);
			int64_t bad;

			if (o == NULL)
				abi_fail("object %" PRIu32 " (%" PRIu32 " slots, %" PRIu32
				         " bytes) vanished from the array",
				         i, nptrs, nbytes);
			bad = abi_check_fill(o, nptrs, nbytes, UINT64_C(0xabc0000) + i);
			if (bad >= 0)
				abi_fail("object %" PRIu32 " (%" PRIu32 " slots, %" PRIu32
				         " bytes): raw byte %" PRId64 " changed",
				         i, nptrs, nbytes, bad);
			if (nptrs > 0 && i > 0 && gcr_read(o, 0) != gcr_read(arr, i - 1))
				abi_fail("object %" PRIu32
				         ": slot 0 no longer aims at object %" PRIu32,
				         i, i - 1);
			if (nptrs > 2 && gcr_read(o, 2) != o)
				abi_fail("object %" PRIu32 ": slot 2 no longer aims at itself", i);
		}
	}
	arr = NULL;
	GCR_POP();
	abi_census(NULL);
}

/* ---- Graph: random mutation checked against a model ------------------------------------- */

/* The model: for each object id (from 1), its shape and the ids its slots hold (0 is NULL). */
struct abi_model {
	uint32_t *nptrs;
	uint32_t *nbytes;
	uint64_t *slot_at; /* index of the object's first slot in slots[] */
	uint32_t *slots;
	void **seen; /* during a check: the address each reached id was found at */
	uint32_t *queue;
	uint32_t nobjects, cap_objects;
	uint64_t nslots, cap_slots;
	uint32_t *roots; /* the root table's slots */
	uint32_t nroots;
};

static void *abi_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (q == NULL)
		abi_fail("out of memory for the model (%zu bytes)", n);
	return q;
}

static uint32_t abi_model_add(struct abi_model *m, uint32_t nptrs, uint32_t nbytes)
{
	uint32_t id = ++m->nobjects;

	if (id >= m->cap_objects) {
		m->cap_objects = m->cap_objects ? 2 * m->cap_objects : 4096;
		m->nptrs = abi_xrealloc(m->nptrs, m->cap_objects * sizeof *m->nptrs);
		m->nbytes = abi_xrealloc(m->nbytes, m->cap_objects * sizeof *m->nbytes);
		m->slot_at = abi_xrealloc(m->slot_at, m->cap_objects * sizeof *m->slot_at);
	}
	if (m->slots == NULL || m->nslots + nptrs > m->cap_slots) {
		while (m->cap_slots == 0 || m->nslots + nptrs > m->cap_slots)
			m->cap_slots = m->cap_slots ? 2 * m->cap_slots : 65536;
		m->slots = abi_xrealloc(m->slots, m->cap_slots * sizeof *m->slots);
	}
	m->nptrs[id] = nptrs;
	m->nbytes[id] = nbytes;
	m->slot_at[id] = m->nslots;
	memset(m->slots + m->nslots, 0, nptrs * sizeof *m->slots);
	m->nslots += nptrs;
	return id;
}

/* A new object of random shape, filled and recorded; nbytes >= 8 so it carries its id. */
static void *abi_graph_new(struct abi_model *m, uint32_t *id_out)
{
	uint32_t nptrs, nbytes, id;
	void *obj;

	switch (abi_below(60)) {
	case 0:
		nptrs = 8000 + (uint32_t)abi_below(2000);
		nbytes = 8;
		break;
	case 1:
		nptrs = (uint32_t)abi_below(3);
		nbytes = 65536 + (uint32_t)abi_below(70000);
		break;
	default:
		nptrs = (uint32_t)abi_below(7);
		nbytes = 8 + (uint32_t)abi_below(300);
		break;
	}
	id = abi_model_add(m, nptrs, nbytes);
	obj = abi_alloc(nptrs, nbytes);
	abi_fill(obj, nptrs, nbytes, id);
	*id_out = id;
	return obj;
}

/* Checks one reached object against the model; allocates nothing. */
static void abi_graph_check_object(struct abi_model *m, void *obj, uint32_t id)
{
	int64_t bad = abi_check_fill(obj, m->nptrs[id], m->nbytes[id], id);

	if (bad >= 0)
		abi_fail("object #%" PRIu32 " (%" PRIu32 " slots, %" PRIu32
		         " bytes): raw byte %" PRId64 " is wrong%s",
		         id, m->nptrs[id], m->nbytes[id], bad,
		         bad == 0 ? " (a different object is reached here)" : "");
}

/*
 * Visits everything reachable from the root table, breadth first, checking every object's
 * bytes, every slot's target, and that an id reached twice is one object.
 */
static uint64_t abi_graph_check(struct abi_model *m, void *table, const char *when)
{
	uint64_t head = 0, tail = 0, reached = 0;

	m->seen = abi_xrealloc(m->seen, (m->nobjects + 1) * sizeof *m->seen);
	m->queue = abi_xrealloc(m->queue, (m->nobjects + 1) * sizeof *m->queue);
	memset(m->seen, 0, (m->nobjects + 1) * sizeof *m->seen);
	if (abi_check_fill(table, m->nroots, 8, 0) >= 0)
		abi_fail("%s: the root table's raw bytes changed", when);
	for (uint32_t k = 0; k < m->nroots; k++) {
		uint32_t id = m->roots[k];
		void *obj = gcr_read(table, k);

		if ((id == 0) != (obj == NULL))
			abi_fail("%s: root %" PRIu32 " is %p, the model says #%" PRIu32, when, k,
			         obj, id);
		if (id == 0)
			continue;
		if (m->seen[id] != NULL) {
			if (m->seen[id] != obj)
				abi_fail("%s: object #%" PRIu32 " is at two addresses", when, id);
			continue;
		}
		m->seen[id] = obj;
		m->queue[tail++] = id;
	}
	while (head < tail) {
		uint32_t id = m->queue[head++];
		void *obj = m->seen[id];
		const uint32_t *want = m->slots + m->slot_at[id];

		abi_graph_check_object(m, obj, id);
		reached++;
		for (uint32_t j = 0; j < m->nptrs[id]; j++) {
			void *child = gcr_read(obj, j);

			if ((want[j] == 0) != (child == NULL))
				abi_fail("%s: slot %" PRIu32 " of #%" PRIu32
				         " is %p, the model says #%" PRIu32,
				         when, j, id, child, want[j]);
			if (want[j] == 0)
				continue;
			if (m->seen[want[j]] != NULL) {
				if (m->seen[want[j]] != child)
					abi_fail("%s: slot %" PRIu32 " of #%" PRIu32
					         " aims at a copy of #%" PRIu32 ", not at it",
					         when, j, id, want[j]);
				continue;
			}
			m->seen[want[j]] = child;
			m->queue[tail++] = want[j];
		}
	}
	return reached;
}

/* A random non-empty root, or UINT32_MAX when all are empty after a few tries. */
static uint32_t abi_graph_pick_root(const struct abi_model *m)
{
	for (int t = 0; t < 8; t++) {
		uint32_t k = (uint32_t)abi_below(m->nroots);

		if (m->roots[k] != 0)
			return k;
	}
	return UINT32_MAX;
}

static void abi_phase_graph(void)
{
	void *table = NULL, *obj = NULL;
	GCR_ROOTS(&table, &obj);
	struct abi_model m;
	const uint64_t steps = abi_size(100000, 10000);
	uint32_t id;

	abi.phase = "graph";
	memset(&m, 0, sizeof m);
	/* More than 64 KiB of pointer slots: the root table is itself a large object. */
	m.nroots = (uint32_t)abi_size(12000, 1000);
	m.roots = calloc(m.nroots, sizeof *m.roots);
	if (m.roots == NULL)
		abi_fail("out of memory for the model");
	table = abi_alloc(m.nroots, 8);
	abi_fill(table, m.nroots, 8, 0);

	for (uint64_t step = 0; step < steps; step++) {
		uint64_t op = abi_below(100);
		uint32_t k = (uint32_t)abi_below(m.nroots), src;

		if (op < 40) {
			/* A new object into a root slot. */
			obj = abi_graph_new(&m, &id);
			gcr_write(table, k, obj);
			m.roots[k] = id;
		} else if (op < 65) {
			/* An edge between two rooted objects: shares, cycles, self-loops. */
			uint32_t from = abi_graph_pick_root(&m);
			uint32_t fid = from == UINT32_MAX ? 0 : m.roots[from];

			if (fid != 0 && m.nptrs[fid] > 0) {
				uint32_t j = (uint32_t)abi_below(m.nptrs[fid]);

				gcr_write(gcr_read(table, from), j, gcr_read(table, k));
				m.slots[m.slot_at[fid] + j] = m.roots[k];
			}
		} else if (op < 80) {
			/* A new object reachable only through another object's slot. */
			obj = abi_graph_new(&m, &id);
			src = abi_graph_pick_root(&m);
			if (src != UINT32_MAX && m.nptrs[m.roots[src]] > 0) {
				uint32_t sid = m.roots[src];
				uint32_t j = (uint32_t)abi_below(m.nptrs[sid]);

				gcr_write(gcr_read(table, src), j, obj);
				m.slots[m.slot_at[sid] + j] = id;
			}
		} else if (op < 90) {
			/* Drop a root: whatever only it reached becomes garbage. */
			gcr_write(table, k, NULL);
			m.roots[k] = 0;
		} else {
			/* Walk a short random path, checking each object on it. */
			void *p = gcr_read(table, k);
			uint32_t pid = m.roots[k];

			for (int hop = 0; hop < 10 && pid != 0; hop++) {
				uint32_t j;

				abi_graph_check_object(&m, p, pid);
				if (m.nptrs[pid] == 0)
					break;
				j = (uint32_t)abi_below(m.nptrs[pid]);
				p = gcr_read(p, j);
				pid = m.slots[m.slot_at[pid] + j];
				if ((pid == 0) != (p == NULL))
					abi_fail("a walk found slot %" PRIu32
					         " disagreeing with the model",
					         j);
			}
		}
		obj = NULL;
		if (step % (steps / 10) == steps / 10 - 1) {
			gcr_collect(step % (steps / 5) == steps / 5 - 1 ? GCR_FULL : GCR_MINOR);
			abi_graph_check(&m, table, "after a collection");
			abi_census(NULL);
		}
	}
	abi_graph_check(&m, table, "at the end");
	table = NULL;
	GCR_POP();
	gcr_collect(GCR_FULL);
	abi_census(NULL);
	free(m.nptrs);
	free(m.nbytes);
	free(m.slot_at);
	free(m.slots);
	free(m.seen);
	free(m.queue);
	free(m.roots);
}

/* A list a million nodes long: a recursive marker or checker overflows the C stack on it. */
static void abi_phase_deep(void)
{
	void *head = NULL;
	GCR_ROOTS(&head);
	const uint64_t n = abi_size(1000000, 10000);
	struct gcr_census a, b;
	uint64_t bytes, d;

	abi.phase = "deep";
	bytes = abi_build_list(&head, n, 3u << 30, 0);
	gcr_collect(GCR_MINOR);
	gcr_collect(GCR_FULL);
	abi_check_list(head, n, 3u << 30, "after collections");
	abi_census(&a);
	head = NULL;
	gcr_collect(GCR_FULL);
	abi_census(&b);
	d = abi_delta(&a, &b, GCR_C_FREED_BYTES);
	if ((abi.caps & GCR_CAP_PRECISE) && (abi.caps & GCR_CAP_COLLECTS) && d != UINT64_MAX &&
	    d < bytes)
		abi_fail("the dropped %" PRIu64 "-node list held %" PRIu64 " bytes, %" PRIu64
		         " were freed",
		         n, bytes, d);
	GCR_POP();
}

/* ---- Main ------------------------------------------------------------------------------- */

/* Reads an unsigned integer knob for the test's own use; NULL or empty gives dflt. */
static int abi_parse_u64(const char *s, uint64_t dflt, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0') {
		*out = dflt;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* ---- Heap limit (GCR_HEAP_MAX_MB) ----------------------------------------------------- */

/*
 * Each case runs this program again, as a child with GCR_TEST_HEAP_CHILD=fits or exhausts:
 * a limit must be set before gcr_init, which runs once per process.
 */
#define ABI_LIMIT_MB       32u /* suffices for 2 MiB live and any amount of garbage */
#define ABI_SMALL_LIMIT_MB 4u  /* too small for a 16 MiB live list */

/* The child's work; exits 0 when it ran to the end and kept its limit, 1 otherwise. */
static _Noreturn void abi_heap_child(const char *mode)
{
	void *live = NULL, *junk = NULL;
	GCR_ROOTS(&live, &junk);
	uint64_t limit_mb = 0, garbage = 0, n;
	struct gcr_census c;

	abi.phase = mode;
	if (abi_parse_u64(getenv("GCR_HEAP_MAX_MB"), 0, &limit_mb) != 0 || limit_mb == 0)
		abi_fail("GCR_HEAP_MAX_MB=%s: the parent set no usable limit",
		         getenv("GCR_HEAP_MAX_MB"));
	if (strcmp(mode, "exhausts") == 0) {
		n = 4 * limit_mb * ABI_MIB / 32;
		abi_build_list(&live, n, 0, 0);
		abi_fail("a live list of %" PRIu64 " nodes (about %" PRIu64
		         " MiB) fitted in a limit of %" PRIu64 " MiB",
		         n, 4 * limit_mb, limit_mb);
	}
	/* fits: 2 MiB live, then garbage: 4 times the limit, or a quarter of it for epsilon. */
	abi_build_list(&live, 2 * ABI_MIB / 32, 0, 0);
	while (garbage < ((abi.caps & GCR_CAP_COLLECTS) ? 4 * limit_mb : limit_mb / 4) * ABI_MIB) {
		uint32_t nbytes = abi_below(100) == 0 ? 100000 : 8 + (uint32_t)abi_below(200);

		junk = abi_alloc(1, nbytes);
		gcr_write(junk, 0, live);
		garbage += sizeof(void *) + nbytes;
	}
	junk = NULL;
	gcr_collect(GCR_FULL);
	abi_check_list(live, 2 * ABI_MIB / 32, 0, "under a heap limit");
	gcr_census(&c);
	/* gen's promotion may pass the limit during one collection (docs/collectors.md). */
	if (abi_known(&c, GCR_C_HEAP_COMMITTED_PEAK_BYTES) && !(abi.caps & GCR_CAP_GENERATIONAL) &&
	    c.value[GCR_C_HEAP_COMMITTED_PEAK_BYTES] > limit_mb * ABI_MIB)
		abi_fail("heap_committed_peak_bytes is %" PRIu64 ", past the limit of %" PRIu64
		         " MiB",
		         c.value[GCR_C_HEAP_COMMITTED_PEAK_BYTES], limit_mb);
	GCR_POP();
	printf("abi_conformance: %s: %s: ok\n", abi.collector, mode);
	exit(0);
}

/*
 * Runs this program as a heap-limit child with the given variables set (NAME=VALUE, NULL
 * ends the list) and GCR_ZEAL unset; returns its exit status (-1: killed) and its stderr.
 */
static int abi_run_child(const char *const *vars, char *err, size_t err_size)
{
	extern char **environ;
	size_t n = 0, k = 0, got = 0;
	char **env;
	int fds[2], status;
	pid_t pid;
	ssize_t r;

	while (environ[n])
		n++;
	env = calloc(n + 8, sizeof *env);
	if (env == NULL || pipe(fds) != 0)
		abi_fail("cannot set up a child: %s", strerror(errno));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "GCR_ZEAL=", 9) != 0 &&
		    strncmp(environ[i], "GCR_HEAP_MAX_MB=", 16) != 0 &&
		    strncmp(environ[i], "GCR_HEAP_MB=", 12) != 0 &&
		    strncmp(environ[i], "GCR_TEST_HEAP_CHILD=", 20) != 0)
			env[k++] = environ[i];
	for (size_t i = 0; vars[i] != NULL && k < n + 7; i++)
		env[k++] = (char *)vars[i];
	env[k] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		abi_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		char *argv[] = {(char *)"abi_conformance", NULL};

		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execve("/proc/self/exe", argv, env);
		_exit(127);
	}
	close(fds[1]);
	while ((r = read(fds[0], err + got, err_size - 1 - got)) > 0 && got + 1 < err_size)
		got += (size_t)r;
	err[got] = '\0';
	close(fds[0]);
	free(env);
	if (waitpid(pid, &status, 0) != pid)
		abi_fail("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void abi_expect_child(const char *const *vars, int want, const char *want_err)
{
	char err[4096];
	int got = abi_run_child(vars, err, sizeof err);

	if (got != want || (want_err != NULL && strstr(err, want_err) == NULL))
		abi_fail("with %s%s%s%s%s: exit %d, expected %d%s%s; its stderr:\n%s", vars[0],
		         vars[1] ? " " : "", vars[1] ? vars[1] : "", vars[1] && vars[2] ? " " : "",
		         vars[1] && vars[2] ? vars[2] : "", got, want,
		         want_err ? " and stderr with " : "", want_err ? want_err : "", err);
}

static void abi_phase_heap_limit(void)
{
	static const char *const fits[] = {"GCR_TEST_HEAP_CHILD=fits", "GCR_HEAP_MAX_MB=32", NULL};
	/* A budget above the limit: the limit wins. */
	static const char *const fits_budget[] = {"GCR_TEST_HEAP_CHILD=fits", "GCR_HEAP_MAX_MB=32",
	                                          "GCR_HEAP_MB=64", NULL};
	static const char *const exhausts[] = {"GCR_TEST_HEAP_CHILD=exhausts", "GCR_HEAP_MAX_MB=4",
	                                       NULL};
	static const char *const not_a_number[] = {"GCR_TEST_HEAP_CHILD=fits",
	                                           "GCR_HEAP_MAX_MB=abc", NULL};
	static const char *const zero[] = {"GCR_TEST_HEAP_CHILD=fits", "GCR_HEAP_MAX_MB=0", NULL};

	_Static_assert(ABI_LIMIT_MB == 32 && ABI_SMALL_LIMIT_MB == 4, "the cases spell them out");
	abi.phase = "heap limit";
	/* One run per collector is enough, and collecting every N allocations would be slow. */
	if (abi.zeal != 0)
		return;
	abi_expect_child(fits, 0, NULL);
	abi_expect_child(fits_budget, 0, NULL);
	abi_expect_child(exhausts, 3, "heap exhausted");
	abi_expect_child(not_a_number, 2, "GCR_HEAP_MAX_MB=abc");
	abi_expect_child(zero, 2, "GCR_HEAP_MAX_MB=0");
	abi.phase = "heap limit";
}

static void (*const abi_phases[])(void) = {
    abi_phase_identity, abi_phase_zeroing, abi_phase_freeing, abi_phase_lists,      abi_phase_trees,
    abi_phase_sizes,    abi_phase_graph,   abi_phase_deep,    abi_phase_heap_limit,
};

int main(void)
{
	const char *seed_text = getenv("GCR_TEST_SEED");
	const int verbose = getenv("GCR_TEST_VERBOSE") != NULL;
	struct timespec t0, t1;

	if (seed_text != NULL && strcmp(seed_text, "time") == 0) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		abi.seed = abi_mix((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
	} else if (abi_parse_u64(seed_text, ABI_DEFAULT_SEED, &abi.seed) != 0) {
		fprintf(stderr,
		        "abi_conformance: GCR_TEST_SEED=%s: expected an integer or 'time'\n",
		        seed_text);
		return 2;
	}
	abi.rng = abi.seed;
	abi.phase = "gcr_init";
	abi.collector = "?";

	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		abi.init_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	gcr_init();
	abi.collector = gcr_name();
	abi.caps = gcr_capabilities();
	/* gcr_init has already refused values that do not parse; these only size the test. */
	if (abi_parse_u64(getenv("GCR_ZEAL"), 0, &abi.zeal) != 0)
		abi.zeal = 0;
	if (abi_parse_u64(getenv("GCR_HEAP_MB"), ABI_DEFAULT_HEAP_MB, &abi.heap_mb) != 0 ||
	    abi.heap_mb == 0)
		abi.heap_mb = ABI_DEFAULT_HEAP_MB;
	if (getenv("GCR_TEST_HEAP_CHILD") != NULL)
		abi_heap_child(getenv("GCR_TEST_HEAP_CHILD"));
	printf("abi_conformance: %s %s: seed %" PRIu64 ", capabilities %#x, zeal %" PRIu64
	       ", heap %" PRIu64 " MiB\n",
	       abi.collector, gcr_version(), abi.seed, abi.caps, abi.zeal, abi.heap_mb);
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* A census before the first allocation of ours: plant ballast and the like count there. */
	abi.phase = "census";
	abi_census(NULL);
	for (size_t i = 0; i < sizeof abi_phases / sizeof abi_phases[0]; i++) {
		struct timespec p0, p1;

		clock_gettime(CLOCK_MONOTONIC, &p0);
		abi_phases[i]();
		clock_gettime(CLOCK_MONOTONIC, &p1);
		if (verbose)
			printf("abi_conformance: %s: phase %s: %.3f s\n", abi.collector, abi.phase,
			       (double)(p1.tv_sec - p0.tv_sec) +
			           (double)(p1.tv_nsec - p0.tv_nsec) / 1e9);
	}
	abi.phase = "final census";
	abi_census(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("abi_conformance: %s: ok (%.2f s, %" PRIu64 " collections, %" PRIu64
	       " MiB allocated)\n",
	       abi.collector,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       abi_collections(&abi.last), abi.last.value[GCR_C_ALLOC_BYTES] / ABI_MIB);
	return 0;
}
