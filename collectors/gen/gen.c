/*
 * gen — a precise generational collector: a bump-allocated nursery collected by copying
 * (Cheney) minor collections, survivors promoted into a mark-sweep old generation of
 * size-class segregated blocks, a large-object space, and a write barrier feeding a
 * remembered set. docs/gen.md has the design; gen.h the invariants.
 *
 * This file: the ABI entry points, the knobs, when to collect (the policy) and the census.
 *
 * Hard limit (GCR_HEAP_MAX_MB, heaplimit.h): what counts is the mapped heap (young generation,
 * old-generation chunks, large mappings), the figure heap_committed_peak_bytes reports. A
 * minor collection cannot stop halfway, so promotion may map past the limit; the pause then
 * goes on to a full collection, and if the heap is still past the limit after it, the heap is
 * exhausted. A large object that would map past the limit gets a full collection first.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gcr.h"
#include "gen.h"
#include "heaplimit.h"
#include "pauselog.h"
#include "plant.h"

/* A build can change the default (an A/B of nursery sizes builds two variants). */
#ifndef GEN_NURSERY_KB_DEFAULT
#define GEN_NURSERY_KB_DEFAULT 4096u
#endif
#define GEN_NURSERY_KB_MIN  64u
#define GEN_NURSERY_KB_MAX  (4u << 20)
#define GEN_HEAP_MB_DEFAULT 1u /* not 4: docs/baselines.md, "No blind spots at ci" */
#define GEN_HEAP_MB_MAX     (1u << 20)
#define GEN_TENURE_DEFAULT  1u
#define GEN_TENURE_MAX      7u
/*
 * A major runs once the old generation took max(budget, live bytes * this / 100) more. A build
 * can change it: t081 plants a halved factor (-DGEN_GROWTH_PCT=25) and check must see it. With
 * a 4 MiB budget no probe's live set at ci (7.2 MiB at most) reached the point where the
 * factor decides, so the ratchet could not see a change of it; with 1 MiB five probes do.
 */
#ifndef GEN_GROWTH_PCT
#define GEN_GROWTH_PCT 50u
#endif

struct gen_fast gen_fast;
struct gen_knobs gen_knobs;
struct gen_stats gen_stats;
struct gen_remset gen_remset;

/* Zeal bookkeeping: allocations since the last zeal collection, zeal collections so far. */
static uint64_t gen_zeal_allocs;
static uint64_t gen_zeal_collections;

/* ---- Failure, memory ------------------------------------------------------------------ */

_Noreturn void gen_fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("gen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *gen_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		gen_fatal("out of memory allocating %zu bytes of collector metadata", n);
	return p;
}

void *gen_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		gen_fatal("out of memory growing collector metadata to %zu bytes", n);
	return q;
}

void *gen_map(size_t len, const char *what)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		gen_fatal("cannot map %zu bytes for %s: %s", len, what, strerror(errno));
	gen_stats.committed_bytes += len;
	if (gen_stats.committed_bytes > gen_stats.committed_peak_bytes)
		gen_stats.committed_peak_bytes = gen_stats.committed_bytes;
	return p;
}

void gen_unmap(void *p, size_t len)
{
	if (munmap(p, len) != 0)
		gen_fatal("munmap of %zu bytes at %p failed: %s", len, p, strerror(errno));
	gen_stats.committed_bytes -= len;
}

void gen_remset_push(void *obj)
{
	if (gen_remset.count == gen_remset.cap) {
		gen_remset.cap = gen_remset.cap ? gen_remset.cap * 2 : 1024;
		gen_remset.objs = gen_xrealloc(gen_remset.objs, gen_remset.cap * sizeof(void *));
	}
	gen_remset.objs[gen_remset.count++] = obj;
}

/* ---- Knobs ---------------------------------------------------------------------------- */

/*
 * An unsigned decimal knob in [min, max]; unset or empty means dflt. Anything else ends the
 * process with status 2, as gcr.h promises: a benchmark run on a misread knob measures the
 * wrong thing, and that is worse than no run.
 */
static uint64_t gen_knob(const char *name, uint64_t dflt, uint64_t min, uint64_t max,
                         const char *unit)
{
	const char *s = getenv(name);
	uint64_t v = 0;

	if (!s || !*s)
		return dflt;
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9' || v > (UINT64_MAX - 9) / 10)
			goto bad;
		v = v * 10 + (uint64_t)(*c - '0');
	}
	if (v < min || v > max)
		goto bad;
	return v;
bad:
	fprintf(stderr, "gen: %s='%s' is not valid: want %s from %llu to %llu\n", name, s, unit,
	        (unsigned long long)min, (unsigned long long)max);
	exit(2);
}

static void gen_read_knobs(void)
{
	gen_knobs.nursery_bytes =
	    (size_t)gen_knob("GCR_NURSERY_KB", GEN_NURSERY_KB_DEFAULT, GEN_NURSERY_KB_MIN,
	                     GEN_NURSERY_KB_MAX, "a nursery size in KiB")
	    << 10;
	gen_knobs.heap_budget_bytes = (size_t)gen_knob("GCR_HEAP_MB", GEN_HEAP_MB_DEFAULT, 1,
	                                               GEN_HEAP_MB_MAX, "a heap budget in MiB")
	                              << 20;
	gen_knobs.zeal = gen_knob("GCR_ZEAL", 0, 0, UINT32_MAX, "an allocation count (0 = off)");
	gen_knobs.verify = gen_knob("GCR_VERIFY", 0, 0, UINT32_MAX,
	                            "0 (off), 1 (every collection) or N (every Nth)");
	gen_knobs.tenure = (unsigned)gen_knob("GCR_GEN_TENURE", GEN_TENURE_DEFAULT, 1,
	                                      GEN_TENURE_MAX, "a count of minor collections");
	gen_knobs.max_bytes = gcr_heap_max_bytes("gen");
	/* A budget above the hard limit is capped to it: the limit is the stronger promise. */
	if (gen_knobs.max_bytes != 0 && gen_knobs.heap_budget_bytes > gen_knobs.max_bytes)
		gen_knobs.heap_budget_bytes = (size_t)gen_knobs.max_bytes;
}

/* ---- Collections ---------------------------------------------------------------------- */

uint64_t gen_growth_trigger(void)
{
	uint64_t trigger = gen_stats.used_after_full_bytes / 100 * GEN_GROWTH_PCT;

	return trigger > gen_knobs.heap_budget_bytes ? trigger : gen_knobs.heap_budget_bytes;
}

/* The old generation has grown enough (with `extra` more bytes) to warrant a major. */
static bool gen_major_due(uint64_t extra)
{
	uint64_t grown =
	    gen_stats.promoted_bytes + gen_stats.los_alloc_bytes - gen_stats.old_bytes_at_major;

	return grown + extra > gen_growth_trigger();
}

/*
 * One pause: a minor collection, and a major after it when asked for or when the old
 * generation has outgrown its trigger. The policy is judged at the start of the pause, on
 * byte counts only, so a major may come one minor collection late; in exchange the minor that
 * precedes it can promote everything and the major never sees a young object.
 *
 * Triggers: the pause's minor and a major it was asked for count under `trigger`; a major the
 * old generation's growth added counts as allocation (its budget ran out), and the full
 * collection promotion past the hard limit forces counts as heap_limit, both of its parts.
 */
static void gen_collect_now(bool full, const char *why, enum gcr_trigger trigger,
                            uint64_t request_bytes)
{
	uint64_t minor0 = gen_stats.minor_collections, major0 = gen_stats.major_collections;
	uint64_t pause;
	enum gcr_trigger major_trigger = trigger;
	char when[64];

	gcr_plant_settle(gen_fast.alloc_objects);
	gcr_pause_begin();
	if (!full && gen_major_due(0)) {
		full = true;
		major_trigger = GCR_T_ALLOCATION;
	}
	gen_young_collect(full);
	gen_stats.triggers[trigger]++;
	if (full) {
		gen_old_collect();
		gen_stats.triggers[major_trigger]++;
	}
	if (gen_knobs.max_bytes != 0 && gen_stats.committed_bytes > gen_knobs.max_bytes) {
		/* Promotion mapped past the limit: a full collection must bring the heap back. */
		if (!full) {
			full = true;
			gen_young_collect(true);
			gen_old_collect();
			gen_stats.triggers[GCR_T_HEAP_LIMIT] += 2;
		}
		if (gen_stats.committed_bytes > gen_knobs.max_bytes)
			gcr_heap_exhausted("gen", request_bytes, gen_stats.committed_bytes,
			                   gen_knobs.max_bytes);
	}
	/* A pause near the heap limit may complete two minors and two majors. */
	pause = gcr_pause_end(gen_stats.minor_collections - minor0,
	                      gen_stats.major_collections - major0);
	gen_stats.pause_total_ns += pause;
	/* A store, not a branch on the clock: valgrind's Ir must not depend on pause lengths. */
	gen_stats.pause_max_ns = pause > gen_stats.pause_max_ns ? pause : gen_stats.pause_max_ns;
	if (gen_knobs.verify && gen_stats.minor_collections % gen_knobs.verify == 0) {
		snprintf(when, sizeof when, "%s %s collection #%llu", why, full ? "full" : "minor",
		         (unsigned long long)gen_stats.minor_collections);
		gen_verify(when);
	}
}

void gen_limit_room(uint64_t request_bytes, uint64_t map_bytes)
{
	if (gen_stats.committed_bytes + map_bytes <= gen_knobs.max_bytes)
		return;
	gen_collect_now(true, "heap-limit", GCR_T_HEAP_LIMIT, request_bytes);
	if (gen_stats.committed_bytes + map_bytes > gen_knobs.max_bytes)
		gcr_heap_exhausted("gen", request_bytes, gen_stats.committed_bytes,
		                   gen_knobs.max_bytes);
}

/*
 * Zeal collection k is full when k is a power of two: majors get tested early and often on a
 * small heap, and O(log n) times on a big one, so zeal stays usable on the large probes.
 */
static void gen_zeal_collect(void)
{
	gen_zeal_collections++;
	gen_collect_now((gen_zeal_collections & (gen_zeal_collections - 1)) == 0, "zeal",
	                GCR_T_ZEAL, 0);
}

/* ---- ABI: lifecycle ------------------------------------------------------------------- */

void gcr_init(void)
{
	gen_read_knobs();
	gen_young_init();
	if (gen_knobs.max_bytes != 0 && gen_stats.committed_bytes > gen_knobs.max_bytes)
		gcr_heap_exhausted("gen", gen_stats.committed_bytes, 0, gen_knobs.max_bytes);
	gen_old_init();
	gcr_plant_init();
}

const char *gcr_name(void)
{
	return "gen";
}

const char *gcr_version(void)
{
	return GCR_COLLECTOR_VERSION;
}

unsigned gcr_capabilities(void)
{
	return GCR_CAP_COLLECTS | GCR_CAP_PRECISE | GCR_CAP_MOVING | GCR_CAP_GENERATIONAL |
	       GCR_CAP_BARRIER | GCR_CAP_PAUSE_LOG;
}

/* ---- ABI: allocation and the barrier -------------------------------------------------- */

/* Bump-allocates `total` bytes of eden, which the caller has checked are there. */
static inline void *gen_bump(uintptr_t cur, uintptr_t total, uint32_t nptrs, uint32_t nbytes,
                             uint64_t requested)
{
	void **obj = (void **)(cur + GEN_HDR_BYTES);
	/*
	 * Only the pointer slots are zeroed: the raw bytes are the caller's to fill. Slot 0 is
	 * zeroed unconditionally (eden ends GEN_EDEN_SLACK bytes early, so even a zero-size
	 * object has a word there), which spares most objects, with one slot, the loop. The
	 * loop's stores go through a volatile pointer because gcc otherwise turns it into a
	 * memset call, which costs more than the loop for the few slots most objects have.
	 */
	void *volatile *slot = (void *volatile *)obj;

	gen_fast.cursor = cur + total;
	*(uint64_t *)cur = gen_h_make(nptrs, nbytes);
	obj[0] = NULL;
	for (uint32_t i = 1; i < nptrs; i++)
		slot[i] = NULL;
	gen_fast.alloc_bytes += requested;
	gen_fast.alloc_objects++;
	return obj;
}

static __attribute__((noinline)) void *gen_alloc_slow(uint32_t nptrs, uint32_t nbytes)
{
	uint64_t requested = gen_requested(nptrs, nbytes);
	uint64_t total = GEN_HDR_BYTES + ((requested + 7) & ~UINT64_C(7));

	if (gen_knobs.zeal && ++gen_zeal_allocs >= gen_knobs.zeal) {
		gen_zeal_allocs = 0;
		gen_zeal_collect();
	}
	if (total > GEN_SMALL_MAX_BYTES) {
		if (gen_major_due(requested))
			gen_collect_now(true, "large-object", GCR_T_LARGE_OBJECT, requested);
		return gen_los_alloc(nptrs, nbytes);
	}
	if (total > gen_fast.eden_end - gen_fast.cursor)
		gen_collect_now(false, "nursery-full", GCR_T_ALLOCATION, requested);
	return gen_bump(gen_fast.cursor, (uintptr_t)total, nptrs, nbytes, requested);
}

void *gcr_alloc(uint32_t nptrs, uint32_t nbytes)
{
	uint64_t requested = gen_requested(nptrs, nbytes);
	/* Header plus payload rounded up to 8: (requested + 7 & ~7) + 8. */
	uintptr_t total = (uintptr_t)((requested + GEN_HDR_BYTES + 7) & ~UINT64_C(7));
	uintptr_t cur = gen_fast.cursor;

	gcr_plant_on_alloc();
	/* The fast path: a small object that fits in eden (limit is 0 under zeal). */
	if (__builtin_expect(total <= GEN_SMALL_MAX_BYTES && cur + total <= gen_fast.limit, 1))
		return gen_bump(cur, total, nptrs, nbytes, requested);
	return gen_alloc_slow(nptrs, nbytes);
}

/* An old or large object got a pointer to a young one, not yet recorded: record it. */
static __attribute__((noinline)) void gen_barrier_slow(void *obj, uint32_t i)
{
	uint64_t *h = gen_hdr(obj);

	if (*h & GEN_H_LARGE) {
		uint8_t *card = &gen_los_of(obj)->cards[i >> GEN_CARD_SHIFT];

		if (!*card) {
			*card = 1;
			gen_stats.barrier_recorded++;
		}
	} else if (!(*h & GEN_H_REMEMBERED)) {
		gen_stats.barrier_recorded++;
	}
	if (!(*h & GEN_H_REMEMBERED)) {
		*h |= GEN_H_REMEMBERED;
		gen_remset_push(obj);
	}
}

void gcr_write(void *obj, uint32_t i, void *val)
{
	((void **)obj)[i] = val;
	uint64_t h;

	/*
	 * Two compares: a young value stored into an object that is not young. The object is
	 * tested first: most stores initialise objects just allocated, and those are young.
	 */
	if (__builtin_expect(gen_is_young(obj) || !gen_is_young(val), 1))
		return;
	/* Already recorded: a remembered small object, or a large one whose card is dirty. */
	h = *gen_hdr(obj);
	if (!(h & GEN_H_LARGE) ? !(h & GEN_H_REMEMBERED)
	                       : !gen_los_of(obj)->cards[i >> GEN_CARD_SHIFT])
		gen_barrier_slow(obj, i);
}

void *gcr_read(void *obj, uint32_t i)
{
	return ((void **)obj)[i];
}

/* ---- ABI: collection and census ------------------------------------------------------- */

void gcr_collect(int kind)
{
	gen_collect_now(kind != GCR_MINOR, "requested", GCR_T_EXPLICIT, 0);
}

void gcr_census(struct gcr_census *c)
{
	memset(c, 0, sizeof *c);
	gcr_census_set(c, GCR_C_MINOR_COLLECTIONS, gen_stats.minor_collections);
	gcr_census_set(c, GCR_C_MAJOR_COLLECTIONS, gen_stats.major_collections);
	gcr_census_set(c, GCR_C_ALLOC_BYTES, gen_fast.alloc_bytes);
	gcr_census_set(c, GCR_C_ALLOC_OBJECTS, gen_fast.alloc_objects);
	gcr_census_set(c, GCR_C_COPIED_BYTES, gen_stats.copied_bytes);
	gcr_census_set(c, GCR_C_COPIED_OBJECTS, gen_stats.copied_objects);
	gcr_census_set(c, GCR_C_PROMOTED_BYTES, gen_stats.promoted_bytes);
	gcr_census_set(c, GCR_C_PROMOTED_OBJECTS, gen_stats.promoted_objects);
	gcr_census_set(c, GCR_C_FREED_BYTES, gen_stats.freed_bytes);
	gcr_census_set(c, GCR_C_FREED_OBJECTS, gen_stats.freed_objects);
	gcr_census_set(c, GCR_C_HEAP_COMMITTED_PEAK_BYTES, gen_stats.committed_peak_bytes);
	/* Only a full collection measures the live heap; before one the figure is unknown. */
	if (gen_stats.have_full)
		gcr_census_set(c, GCR_C_HEAP_USED_AFTER_FULL_BYTES,
		               gen_stats.used_after_full_bytes);
	gcr_census_set(c, GCR_C_BARRIER_RECORDED, gen_stats.barrier_recorded);
	gcr_census_set(c, GCR_C_PAUSE_TOTAL_NS, gen_stats.pause_total_ns);
	gcr_census_set(c, GCR_C_PAUSE_MAX_NS, gen_stats.pause_max_ns);
	/* Every trigger this collector can start a collection by, its zeros too. */
	gcr_census_set_trigger(c, GCR_T_ALLOCATION, gen_stats.triggers[GCR_T_ALLOCATION]);
	gcr_census_set_trigger(c, GCR_T_LARGE_OBJECT, gen_stats.triggers[GCR_T_LARGE_OBJECT]);
	gcr_census_set_trigger(c, GCR_T_HEAP_LIMIT, gen_stats.triggers[GCR_T_HEAP_LIMIT]);
	gcr_census_set_trigger(c, GCR_T_EXPLICIT, gen_stats.triggers[GCR_T_EXPLICIT]);
	gcr_census_set_trigger(c, GCR_T_ZEAL, gen_stats.triggers[GCR_T_ZEAL]);
}
