/*
 * plant.h — deliberate regressions, compiled in only for the test variants of a collector.
 *
 * The ratchet is tested end to end on planted regressions: a variant of a real collector built
 * with one of these macros defined must be caught by `check` and `ab`. A normal build defines
 * none of them, and then every hook below compiles to nothing.
 *
 *   GCR_PLANT_ALLOC_SPIN=N   N extra iterations of dependent arithmetic per gcr_alloc
 *                            (an instruction and time cost per allocation)
 *   GCR_PLANT_RETAIN_KB=N    an N KiB object allocated at gcr_init and kept rooted for the
 *                            whole run (retained heap and resident memory)
 *   GCR_PLANT_IR=N           N spin steps per allocation on average, N a decimal >= 0 with up
 *                            to 6 decimals (0.25: one step per 4 allocations); the variable
 *                            GCR_PLANT_IR in the environment overrides N at gcr_init. A fine
 *                            instruction cost, linear in N, for testing the Ir band's edge.
 *                            With GCR_PLANT_IR_ONCE=PATH in the environment too, only the
 *                            valgrind run that removes the file PATH pays it, every other
 *                            run nothing: one rare run, for ratchet's confirmation (t183).
 *   GCR_PLANT_SCATTER=S      (gen only) a fresh old-generation block threads its free cells
 *                            in S interleaved passes (0, S, 2S, ..., then 1, S+1, ...), so
 *                            survivors promoted one after another land S cells apart: worse
 *                            locality for about the same instructions (gen_old_refill)
 *   GCR_PLANT_HEAP_STEP_MB=N (gen only) the old generation maps N MiB chunks instead of 1:
 *                            a growth policy that makes probes need more heap under
 *                            GCR_HEAP_MAX_MB (the min-heap ratchet's plant, t099)
 *   GCR_PLANT_HUGEPAGE       every anonymous writable mapping the collector makes (its heap,
 *                            libgc's too) is madvised MADV_HUGEPAGE: a runtime that asks for
 *                            transparent huge pages, whose RSS moves with them unless the
 *                            session turns THP off (plant.c; docs/meters.md, t126). It costs
 *                            no hook: plant.c defines mmap itself.
 *
 * GCR_PLANT_IR keeps no per-allocation counter: even one add and compare per allocation would
 * cost more than the ratchet's 1% edge on a probe that allocates every ~180 instructions. It
 * reads the collector's own allocation count instead and pays the steps owed since the last
 * payment at the start of every collection (every probe ends with a full one). A step is one
 * iteration of the loop in plant_spin (plant.c): 4 instructions on x86-64 with gcc 12 -O2.
 *
 * A collector calls gcr_plant_init() at the end of gcr_init, gcr_plant_on_alloc() once per
 * gcr_alloc, and gcr_plant_settle(alloc_objects) at the start of every collection with its
 * census alloc_objects.
 */
#ifndef GCR_PLANT_H
#define GCR_PLANT_H

#include "gcr.h"

#ifdef GCR_PLANT_ALLOC_SPIN
static inline void gcr_plant_on_alloc(void)
{
	/* volatile keeps the compiler from folding the loop away */
	static volatile uint64_t sink;
	uint64_t x = sink;
	/* Counting down: `i < 0` would not compile (-Werror=type-limits) for SPIN=0. */
	for (unsigned i = (unsigned)(GCR_PLANT_ALLOC_SPIN); i > 0; i--)
		x = x * 6364136223846793005u + 1442695040888963407u;
	sink = x;
}
#else
static inline void gcr_plant_on_alloc(void)
{
}
#endif

#if defined(GCR_PLANT_RETAIN_KB) || defined(GCR_PLANT_IR)
void gcr_plant_init(void);
#else
static inline void gcr_plant_init(void)
{
}
#endif

#ifdef GCR_PLANT_IR
void gcr_plant_settle(uint64_t alloc_objects);
#else
static inline void gcr_plant_settle(uint64_t alloc_objects)
{
	(void)alloc_objects;
}
#endif

#endif /* GCR_PLANT_H */
