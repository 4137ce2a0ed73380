/*
 * gcr.h — the collector ABI every probe is written against.
 *
 * One header, many collector builds. A collector is a folder of C sources (and an optional
 * collector.mk) that implements every function declared here and includes this header: the
 * shipped ones under collectors/, any other anywhere (docs/out-of-tree.md).
 * collectors/build.mk links every probe against one collector, together with the probe
 * runtime (probes/runtime/) and collectors/common/, which defines gcr_roots_top; `make` does
 * that for each shipped collector, `make collector COLLECTOR_DIR=DIR` for any other. The build
 * passes the collector's version (COLLECTOR_VERSION in its collector.mk, default "0") as the
 * string macro GCR_COLLECTOR_VERSION, which gcr_version() may return.
 *
 * Invariants a probe may rely on, and must respect:
 * - An object is `nptrs` pointer slots (zeroed at allocation) followed by `nbytes` raw bytes
 *   (contents unspecified). The pointer returned by gcr_alloc addresses slot 0; any header a
 *   collector needs lives before it.
 * - Every pointer store into an object goes through gcr_write (the write barrier); loads go
 *   through gcr_read. Raw bytes are reached with gcr_raw() and are never scanned.
 * - Any call to gcr_alloc or gcr_collect may move objects. After it, a probe may only use
 *   object pointers it reads back from a rooted local (see GCR_ROOTS) or from another object;
 *   a pointer to raw bytes or to a slot is stale once the collector runs.
 * - Roots are the addresses of local `void *` variables, published on a shadow stack with
 *   GCR_ROOTS and withdrawn with GCR_POP in LIFO order. A precise or moving collector sees only
 *   these roots; a conservative one may ignore them.
 * - gcr_init is called once, before any other call. Knobs come from the environment:
 *   GCR_HEAP_MB (initial heap budget), GCR_NURSERY_KB (nursery size, where there is one),
 *   GCR_ZEAL=N (a precise collector collects every N allocations: a correctness oracle).
 *   A collector reads only the knobs that mean something to it (epsilon reads only GCR_HEAP_MAX_MB); unset or
 *   empty is its default, and a knob it reads that does not parse makes gcr_init print the
 *   variable and value on stderr and exit with status 2.
 * - GCR_HEAP_MAX_MB=N is a hard limit: the heap never exceeds N MiB of collector-managed
 *   memory (what each collector counts, and when it may briefly pass it, is in
 *   docs/collectors.md). An allocation that cannot be satisfied within the limit after a full
 *   collection prints "<collector>: heap exhausted: ..." with the request, the heap and the
 *   limit on stderr and exits with status 3, which the harness stores as heap_exhausted. A
 *   value that is not an integer from 1 to 1048576 is a knob error (status 2). GCR_HEAP_MB
 *   above the limit is capped to it: the limit is the stronger promise. Unset: no limit.
 *   heap_committed_peak_bytes counts what the limit counts; a run that completes while it
 *   reports more than twice N MiB committed has ignored the limit, and gcratchet minheap
 *   fails its search rather than report a minimum (docs/sweeps.md). A runtime whose own
 *   limit is only soft makes it hard itself (docs/porting.md, "A runtime with only a soft
 *   limit").
 */
#ifndef GCR_H
#define GCR_H

#include <stddef.h>
#include <stdint.h>

/* Bumped whenever a declaration here changes meaning; recorded in each build's manifest. */
#define GCR_ABI_VERSION 1

/* ---- Lifecycle and identity ---------------------------------------------------------- */

void gcr_init(void);
/* Static strings: the collector's name ("marksweep") and version ("1.0"). */
const char *gcr_name(void);
const char *gcr_version(void);

/* What the collector claims to do; probe premises are judged against these claims. */
enum gcr_capability {
	GCR_CAP_COLLECTS = 1u << 0,     /* reclaims memory at all (epsilon does not) */
	GCR_CAP_PRECISE = 1u << 1,      /* finds roots only through the shadow stack */
	GCR_CAP_MOVING = 1u << 2,       /* may relocate objects */
	GCR_CAP_GENERATIONAL = 1u << 3, /* has minor collections and promotion */
	GCR_CAP_BARRIER = 1u << 4,      /* gcr_write records old-to-young stores */
	GCR_CAP_PAUSE_LOG = 1u << 5,    /* marks every pause in the pause log (below) */
	/*
	 * Starts or paces collections by a clock (a time limit per increment, a pause-time goal,
	 * concurrent threads), not by allocation alone: its collection counts and what it holds at
	 * a moment move with the host's speed. The harness then judges those figures by their
	 * spread, never exactly (docs/baselines.md, "Rules from facts").
	 */
	GCR_CAP_CLOCK_PACED = 1u << 6,
};
unsigned gcr_capabilities(void);

/* ---- Allocation and access ----------------------------------------------------------- */

/*
 * Never returns NULL: a collector that cannot satisfy a request within GCR_HEAP_MAX_MB exits
 * with status 3 (above); one that cannot for another reason prints why and aborts.
 */
void *gcr_alloc(uint32_t nptrs, uint32_t nbytes);
void gcr_write(void *obj, uint32_t i, void *val);
void *gcr_read(void *obj, uint32_t i);

/* Raw bytes of an object with `nptrs` pointer slots; stale after the next alloc or collect. */
static inline unsigned char *gcr_raw(void *obj, uint32_t nptrs)
{
	return (unsigned char *)obj + (size_t)nptrs * sizeof(void *);
}

/* ---- Roots: the shadow stack ---------------------------------------------------------- */

struct gcr_frame {
	struct gcr_frame *prev;
	uint32_t nslots;
	void ***slots; /* addresses of local `void *` variables */
};

/*
 * Top of the shadow stack. collectors/common/roots.c defines it, and every build links that
 * in: a collector reads it (its roots) and must not define it again.
 */
extern struct gcr_frame *gcr_roots_top;

/*
 * GCR_ROOTS(&a, &b, ...) publishes the given locals as roots until the matching GCR_POP() in
 * the same block. The locals must be initialised (NULL is fine) before the next allocation.
 */
#define GCR_ROOTS(...)                                                                       \
	void **gcr_frame_slots_[] = {__VA_ARGS__};                                           \
	struct gcr_frame gcr_frame_ = {                                                      \
	    gcr_roots_top, (uint32_t)(sizeof gcr_frame_slots_ / sizeof gcr_frame_slots_[0]), \
	    gcr_frame_slots_};                                                               \
	gcr_roots_top = &gcr_frame_
#define GCR_POP() (gcr_roots_top = gcr_frame_.prev)

/* ---- Collection and census ------------------------------------------------------------ */

enum gcr_collect_kind {
	GCR_MINOR = 1, /* a nursery collection; a full one where there is no nursery */
	GCR_FULL = 2,
};
void gcr_collect(int kind);

/*
 * The census fields, in one list so that collectors, the probe runtime and the harness agree
 * on names. Units are in the names. Counts are since gcr_init.
 */
#define GCR_CENSUS_FIELDS(X)                                        \
	X(MINOR_COLLECTIONS, "minor_collections")                   \
	X(MAJOR_COLLECTIONS, "major_collections")                   \
	X(ALLOC_BYTES, "alloc_bytes")                               \
	X(ALLOC_OBJECTS, "alloc_objects")                           \
	X(COPIED_BYTES, "copied_bytes")                             \
	X(COPIED_OBJECTS, "copied_objects")                         \
	X(PROMOTED_BYTES, "promoted_bytes")                         \
	X(PROMOTED_OBJECTS, "promoted_objects")                     \
	X(FREED_BYTES, "freed_bytes")                               \
	X(FREED_OBJECTS, "freed_objects")                           \
	X(HEAP_COMMITTED_PEAK_BYTES, "heap_committed_peak_bytes")   \
	X(HEAP_USED_AFTER_FULL_BYTES, "heap_used_after_full_bytes") \
	X(BARRIER_RECORDED, "barrier_recorded")                     \
	X(PAUSE_TOTAL_NS, "pause_total_ns")                         \
	X(PAUSE_MAX_NS, "pause_max_ns")

#define GCR_CENSUS_ENUM_(id, name) GCR_C_##id,
enum gcr_census_field { GCR_CENSUS_FIELDS(GCR_CENSUS_ENUM_) GCR_C_COUNT };
#undef GCR_CENSUS_ENUM_

/*
 * Collections by what started them (the census "triggers", docs/census-protocol.md, which
 * says what each name covers). Every collection a collector counts in minor_collections or
 * major_collections is counted once more here, under the trigger that started it: a pause
 * that does a minor and a major collection counts two, each under its own cause (gen's major
 * after a minor that its old generation's growth asked for is "allocation", after a
 * gcr_collect(GCR_FULL) "explicit"). So where a collector reports triggers, at any census
 * the known triggers add up to minor_collections + major_collections (tests/abi checks it).
 * The JVM builds use names no C collector here does (metadata, gc_locker, ...): the list is
 * the protocol's, one for every runtime.
 */
#define GCR_TRIGGERS(X)                 \
	X(ALLOCATION, "allocation")     \
	X(LARGE_OBJECT, "large_object") \
	X(HEAP_LIMIT, "heap_limit")     \
	X(EXPLICIT, "explicit")         \
	X(TIMER, "timer")               \
	X(HEURISTIC, "heuristic")       \
	X(METADATA, "metadata")         \
	X(GC_LOCKER, "gc_locker")       \
	X(ZEAL, "zeal")                 \
	X(OTHER, "other")

#define GCR_TRIGGER_ENUM_(id, name) GCR_T_##id,
enum gcr_trigger { GCR_TRIGGERS(GCR_TRIGGER_ENUM_) GCR_T_COUNT };
#undef GCR_TRIGGER_ENUM_

/*
 * A collector fills only what it knows: bit (1 << field) of `known` says value[field] is real.
 * Unknown is absent, never a fake zero. Triggers likewise: bit (1 << t) of `triggers_known`
 * says triggers[t] is real. A collector that reports triggers sets every one it can start a
 * collection for, those at 0 too (a true zero: none started that way), so that each run of
 * the build reports the same names; one that reports none leaves triggers_known 0.
 */
struct gcr_census {
	uint64_t known;
	uint64_t value[GCR_C_COUNT];
	uint64_t triggers_known;
	uint64_t triggers[GCR_T_COUNT];
};

static inline void gcr_census_set(struct gcr_census *c, enum gcr_census_field f, uint64_t v)
{
	c->value[f] = v;
	c->known |= UINT64_C(1) << f;
}

static inline void gcr_census_set_trigger(struct gcr_census *c, enum gcr_trigger t, uint64_t n)
{
	c->triggers[t] = n;
	c->triggers_known |= UINT64_C(1) << t;
}

/* Fills *c; may be called at any time. */
void gcr_census(struct gcr_census *c);

/*
 * The pause log. A collector that claims GCR_CAP_PAUSE_LOG brackets every stop-the-world
 * pause with gcr_pause_begin() and gcr_pause_end(minor, major) from collectors/common/
 * pauselog.h, which every build links: the end says how many minor and major collections the
 * pause completed (0 and 0 for one that completed none), and returns the pause's wall time,
 * which the collector adds to pause_total_ns and pause_max_ns. So, for such a collector, at
 * any census: the log's minor and major sums equal minor_collections and major_collections,
 * and its wall total equals pause_total_ns (tests/abi checks both). The probe runtime turns
 * the log into the census's "pauses" section: quantiles, a histogram and minimum mutator
 * utilisation (docs/census-protocol.md). A collector that does not claim the capability has
 * those figures absent, never zero.
 */

#endif /* GCR_H */
