/* The retained-memory plant (see plant.h); empty unless GCR_PLANT_RETAIN_KB is defined. */
#include "plant.h"

#ifdef GCR_PLANT_RETAIN_KB
#include <string.h>

static void *plant_ballast;
static void **plant_slots[1] = {&plant_ballast};
static struct gcr_frame plant_frame;

void gcr_plant_init(void)
{
	const uint32_t nbytes = (uint32_t)(GCR_PLANT_RETAIN_KB)*1024u;

	/* A frame at the bottom of the shadow stack keeps the ballast alive for the whole run. */
	plant_frame.prev = gcr_roots_top;
	plant_frame.nslots = 1;
	plant_frame.slots = plant_slots;
	gcr_roots_top = &plant_frame;
	plant_ballast = gcr_alloc(0, nbytes);
	/* Touch every page so the retention shows in resident memory, not just in the census. */
	memset(gcr_raw(plant_ballast, 0), 0x5a, nbytes);
}
#else
/* ISO C forbids an empty translation unit. */
typedef int gcr_plant_unused;
#endif
