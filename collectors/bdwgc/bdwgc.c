/*
 * bdwgc — the ABI over the Boehm–Demers–Weiser collector from the system's libgc.
 *
 * Built twice: as `bdwgc` (stop-the-world, every collection full) and, with
 * GCR_BDWGC_INCREMENTAL defined, as `bdwgc-incremental` (GC_enable_incremental: generational
 * partial collections over dirty pages, and marking in increments that run inside allocation).
 *
 * The collector is conservative: it finds roots by scanning the C stack, registers and static
 * data, so the shadow stack is ignored (its frames live on the C stack and point at locals
 * that are on the C stack too). Objects with no pointer slots come from GC_MALLOC_ATOMIC (never
 * scanned, not cleared); the others from GC_MALLOC (cleared, scanned whole: raw bytes are
 * scanned too and a raw value that happens to look like a heap address keeps an object alive,
 * which costs memory, never correctness).
 *
 * Census: the adapter counts what was requested (alloc_bytes, alloc_objects, with epsilon's
 * accounting); libgc's own statistics and its collection events give the rest. What libgc
 * does not know (objects freed, bytes copied or promoted) is left absent. GCR_ZEAL has no
 * meaning for a conservative collector: it is validated like every knob, then ignored.
 *
 * Hard limit (GCR_HEAP_MAX_MB, heaplimit.h): libgc's own GC_set_max_heap_size bounds its heap
 * (GC_get_heap_size, the figure heap_committed_peak_bytes samples). When libgc cannot grow
 * the heap for a request after collecting, it calls the out-of-memory handler, which ends
 * the run as exhausted. libgc 8.2 also adds the mark stacks it retires (when marking needs a
 * bigger one) to its heap without checking that max: with the heap already at the max, the
 * incremental build went 64 KiB past a 32 MiB limit (its first mark stack). So libgc's max is
 * the limit less a reserve for them, bdw_libgc_max_bytes, and a heap that fits the limit by
 * less than that reserve (1/32 of it, at least 128 KiB) is reported exhausted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gc/gc.h>
#include <gc/gc_mark.h>

#include "gcr.h"
#include "heaplimit.h"
#include "knob.h"
#include "pauselog.h"
#include "plant.h"

#ifdef GCR_BDWGC_INCREMENTAL
#define BDW_NAME "bdwgc-incremental"
#else
#define BDW_NAME "bdwgc"
#endif
#define BDW_MAX_HEAP_MB (UINT64_C(1) << 20)

/* GCR_HEAP_MAX_MB in bytes; 0: no limit. */
static uint64_t bdw_max_bytes;
/* What libgc is told: the limit less the reserve for its retired mark stacks (see above). */
static uint64_t bdw_libgc_max_bytes;
static uint64_t bdw_alloc_bytes;
static uint64_t bdw_alloc_objects;

/*
 * Written by the collection callbacks, which libgc calls with its lock held; the probes are
 * single-threaded, so the census reads them without taking the lock.
 */
static uint64_t bdw_full_collections;
static uint64_t bdw_partial_collections;
static int bdw_full_pending;
static uint64_t bdw_committed_peak_bytes;
static uint64_t bdw_used_after_full_bytes;
static int bdw_used_after_full_known;
static int bdw_pause_open;
/* The collection counters when the open pause began: what it completed goes to the log. */
static uint64_t bdw_pause_full0, bdw_pause_partial0;
static int bdw_in_full_call; /* inside GC_try_to_collect_inner: between START and END */
static int bdw_mark_done;    /* the current stopped mark reached MARK_END */

/*
 * Heap mapped now (GC_get_heap_size excludes what libgc has unmapped). The heap grows only
 * while allocating and shrinks only inside a collection, so sampling at the start and end of
 * every collection and at each census sees every peak.
 */
static void bdw_sample_heap(void)
{
	uint64_t committed = GC_get_heap_size();

	if (committed > bdw_committed_peak_bytes)
		bdw_committed_peak_bytes = committed;
}

static void bdw_pause_begin(void)
{
	if (!bdw_pause_open) {
		bdw_pause_open = 1;
		bdw_pause_full0 = bdw_full_collections;
		bdw_pause_partial0 = bdw_partial_collections;
		gcr_pause_begin();
	}
}

static void bdw_pause_end(void)
{
	if (!bdw_pause_open)
		return;
	bdw_pause_open = 0;
	/* The totals stay in the log, out of the roots: its wall total and max are the census's. */
	gcr_pause_end(bdw_partial_collections - bdw_pause_partial0,
	              bdw_full_collections - bdw_pause_full0);
}

/* libgc calls this at the start of every full collection (never for a partial one). */
static void GC_CALLBACK bdw_on_full_start(void)
{
	bdw_full_pending = 1;
}

/*
 * A pause is one stretch the mutator spends inside the collector:
 * - GC_try_to_collect_inner (GC_gcollect, and every collection when not incremental) is one
 *   pause from START to END;
 * - an incremental collection run from an allocation has no START/END: its pause runs from
 *   stopping the world (or MARK_START) to RECLAIM_END, the end of GC_finish_collection; a
 *   stopped mark abandoned on libgc's time limit ends at POST_START_WORLD without MARK_END.
 * Marking increments between those pauses send no event and are not counted.
 */
static void GC_CALLBACK bdw_on_event(GC_EventType e)
{
	switch (e) {
	case GC_EVENT_START:
		bdw_sample_heap();
		bdw_in_full_call = 1;
		bdw_pause_begin();
		break;
	case GC_EVENT_PRE_STOP_WORLD:
	case GC_EVENT_MARK_START:
		bdw_sample_heap();
		bdw_mark_done = 0;
		bdw_pause_begin();
		break;
	case GC_EVENT_MARK_END:
		bdw_mark_done = 1;
		break;
	case GC_EVENT_POST_START_WORLD:
		if (!bdw_mark_done && !bdw_in_full_call)
			bdw_pause_end();
		break;
	case GC_EVENT_RECLAIM_START:
		bdw_pause_begin();
		break;
	case GC_EVENT_RECLAIM_END:
		/* Every completed collection ends here, full or partial. */
		bdw_sample_heap();
		if (bdw_full_pending) {
			bdw_full_pending = 0;
			bdw_full_collections++;
			/* Heap blocks in use: what is neither free nor unmapped. */
			bdw_used_after_full_bytes = GC_get_heap_size() - GC_get_free_bytes();
			bdw_used_after_full_known = 1;
		} else {
			bdw_partial_collections++;
		}
		bdw_mark_done = 0;
		if (!bdw_in_full_call)
			bdw_pause_end();
		break;
	case GC_EVENT_END:
		bdw_in_full_call = 0;
		bdw_pause_end();
		break;
	default:
		break;
	}
}

#ifdef GCR_BDWGC_INCREMENTAL
/*
 * libgc finds dirty pages by write-protecting the heap and catching SIGSEGV; under valgrind the
 * faults do not reach it as it expects and the run crashes. Refuse plainly instead: the harness
 * then records a run that could not be made, not a crash.
 */
static void bdw_refuse_valgrind(void)
{
	if (gcr_under_valgrind()) {
		fprintf(stderr,
		        "%s: cannot run under valgrind: libgc's incremental mode tracks dirty "
		        "pages with mprotect and SIGSEGV\n",
		        BDW_NAME);
		exit(2);
	}
}
#endif

/* libgc calls this, holding its lock, when the heap cannot grow for a request (GC_oom_fn). */
static void *bdw_on_oom(size_t bytes_requested)
{
	gcr_heap_exhausted(BDW_NAME, bytes_requested, GC_get_heap_size(), bdw_max_bytes);
}

void gcr_init(void)
{
	uint64_t heap_mb = gcr_knob(BDW_NAME, "GCR_HEAP_MB", 0, 1, BDW_MAX_HEAP_MB);
	uint64_t expand_bytes = heap_mb << 20;

	bdw_max_bytes = gcr_heap_max_bytes(BDW_NAME);

	/* Validated for the ABI's sake; a conservative collector has nothing to check with it. */
	(void)gcr_knob(BDW_NAME, "GCR_ZEAL", 0, 0, UINT32_MAX);

#ifdef GCR_BDWGC_INCREMENTAL
	bdw_refuse_valgrind();
#endif
	/* Before GC_INIT, so that not even libgc's initial heap passes the limit. */
	if (bdw_max_bytes != 0) {
		uint64_t reserve = bdw_max_bytes / 32 > (UINT64_C(128) << 10) ? bdw_max_bytes / 32
		                                                              : UINT64_C(128) << 10;

		bdw_libgc_max_bytes =
		    bdw_max_bytes > 2 * reserve ? bdw_max_bytes - reserve : bdw_max_bytes / 2;
		GC_set_max_heap_size((GC_word)bdw_libgc_max_bytes);
		GC_set_oom_fn(bdw_on_oom);
	}
	GC_INIT();
#ifdef GCR_BDWGC_INCREMENTAL
	GC_enable_incremental();
	if (!GC_is_incremental_mode()) {
		fprintf(stderr, "%s: libgc could not enable incremental mode on this system\n",
		        BDW_NAME);
		exit(2);
	}
#endif
	/*
	 * The pause log's clock values are not roots: a conservative scan skips them, or they
	 * would retain what they happen to look like a pointer into (pauselog.h).
	 */
	{
		void *log;
		size_t len;

		gcr_pause_log_storage(&log, &len);
		GC_exclude_static_roots(log, (char *)log + len);
	}
	GC_set_start_callback(bdw_on_full_start);
	GC_set_on_collection_event(bdw_on_event);
	/* A budget above the hard limit is capped to it: the limit is the stronger promise. */
	if (bdw_max_bytes != 0 && expand_bytes + GC_get_heap_size() > bdw_libgc_max_bytes)
		expand_bytes = bdw_libgc_max_bytes > GC_get_heap_size()
		                   ? bdw_libgc_max_bytes - GC_get_heap_size()
		                   : 0;
	if (expand_bytes != 0 && !GC_expand_hp((size_t)expand_bytes)) {
		fprintf(stderr, "%s: GCR_HEAP_MB=%llu: libgc could not grow its heap that far\n",
		        BDW_NAME, (unsigned long long)heap_mb);
		exit(2);
	}
	bdw_sample_heap();
	gcr_plant_init();
}

const char *gcr_name(void)
{
	return BDW_NAME;
}

const char *gcr_version(void)
{
	return GCR_COLLECTOR_VERSION;
}

/*
 * Conservative: not precise, so a stale word on the stack can keep a chain alive. The
 * incremental build does a slice of marking per allocation within GC_time_limit, a clock.
 */
unsigned gcr_capabilities(void)
{
#ifdef GCR_BDWGC_INCREMENTAL
	return GCR_CAP_COLLECTS | GCR_CAP_PAUSE_LOG | GCR_CAP_CLOCK_PACED;
#else
	return GCR_CAP_COLLECTS | GCR_CAP_PAUSE_LOG;
#endif
}

void *gcr_alloc(uint32_t nptrs, uint32_t nbytes)
{
	size_t size = (size_t)nptrs * sizeof(void *) + nbytes;
	void *obj;

	gcr_plant_on_alloc();
	/* libgc returns a unique object for a zero-byte request too. */
	obj = nptrs == 0 ? GC_MALLOC_ATOMIC(size) : GC_MALLOC(size);
	if (obj == NULL) {
		fprintf(stderr, "%s: out of memory allocating %zu bytes\n", BDW_NAME, size);
		abort();
	}
	bdw_alloc_bytes += size;
	bdw_alloc_objects++;
	return obj;
}

void gcr_write(void *obj, uint32_t i, void *val)
{
	/* Incremental mode finds the stores itself, through dirty pages: no barrier here. */
	((void **)obj)[i] = val;
}

void *gcr_read(void *obj, uint32_t i)
{
	return ((void **)obj)[i];
}

void gcr_collect(int kind)
{
	/* libgc offers no minor collection on request: both kinds collect fully. */
	(void)kind;
	/* libgc's own collections do not pass here: a GCR_PLANT_IR build pays on request only. */
	gcr_plant_settle(bdw_alloc_objects);
	GC_gcollect();
}

void gcr_census(struct gcr_census *c)
{
	struct GC_prof_stats_s s;

	memset(&s, 0, sizeof s);
	GC_get_prof_stats(&s, sizeof s);
	bdw_sample_heap();
	memset(c, 0, sizeof *c);
	gcr_census_set(c, GCR_C_MINOR_COLLECTIONS, bdw_partial_collections);
	gcr_census_set(c, GCR_C_MAJOR_COLLECTIONS, bdw_full_collections);
	gcr_census_set(c, GCR_C_ALLOC_BYTES, bdw_alloc_bytes);
	gcr_census_set(c, GCR_C_ALLOC_OBJECTS, bdw_alloc_objects);
	/* libgc's bytes, in its own object sizes (granule-rounded), found free by its sweeps. */
	gcr_census_set(c, GCR_C_FREED_BYTES,
	               (uint64_t)s.reclaimed_bytes_before_gc + s.bytes_reclaimed_since_gc);
	gcr_census_set(c, GCR_C_HEAP_COMMITTED_PEAK_BYTES, bdw_committed_peak_bytes);
	if (bdw_used_after_full_known)
		gcr_census_set(c, GCR_C_HEAP_USED_AFTER_FULL_BYTES, bdw_used_after_full_bytes);
	gcr_census_set(c, GCR_C_PAUSE_TOTAL_NS, gcr_pause_log()->wall_total_ns);
	gcr_census_set(c, GCR_C_PAUSE_MAX_NS, gcr_pause_log()->wall_max_ns);
}
