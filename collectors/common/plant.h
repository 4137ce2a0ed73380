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
 *
 * A collector calls gcr_plant_init() at the end of gcr_init and gcr_plant_on_alloc() once per
 * gcr_alloc.
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
	for (unsigned i = 0; i < (unsigned)(GCR_PLANT_ALLOC_SPIN); i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	sink = x;
}
#else
static inline void gcr_plant_on_alloc(void)
{
}
#endif

#ifdef GCR_PLANT_RETAIN_KB
void gcr_plant_init(void);
#else
static inline void gcr_plant_init(void)
{
}
#endif

#endif /* GCR_PLANT_H */
