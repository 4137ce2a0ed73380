/*
 * The planted regressions that need state (see plant.h): retained memory (GCR_PLANT_RETAIN_KB),
 * the fine instruction cost (GCR_PLANT_IR), and huge pages asked for (GCR_PLANT_HUGEPAGE).
 * Empty unless one of them is defined.
 */
#include "plant.h"

#ifdef GCR_PLANT_HUGEPAGE
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * The collector asks for huge pages on its heap, as a runtime tuned for THP does: every
 * anonymous writable mapping it makes is madvised MADV_HUGEPAGE. This mmap takes the place of
 * libc's for the collector's own code (the executable's definition wins at link time) and for
 * libgc (the executable exports it to the shared library that calls it), so no collector
 * changes; libc's internal mappings (malloc's arenas) do not come through here. The system call
 * is made directly: this is the only mmap in the process.
 */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	int saved = errno;

	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && (prot & PROT_WRITE))
		(void)madvise(p, len, MADV_HUGEPAGE);
	errno = saved;
	return p;
}
#endif

#if defined(GCR_PLANT_RETAIN_KB) || defined(GCR_PLANT_IR)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "knob.h"

#ifdef GCR_PLANT_RETAIN_KB
static void *plant_ballast;
static void **plant_slots[1] = {&plant_ballast};
static struct gcr_frame plant_frame;

static void plant_retain(void)
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
#endif

#ifdef GCR_PLANT_IR
/*
 * The rate in millionths of a step per allocation, and what is owed: whole steps are paid,
 * the fraction carries over, so after A allocations exactly floor(A * rate / 10^6) steps
 * have run, however the payments fell.
 */
#define PLANT_MICRO        UINT64_C(1000000)
#define PLANT_IR_MAX       UINT64_C(1000000)
#define PLANT_STRINGIFY(x) #x
#define PLANT_STRING(x)    PLANT_STRINGIFY(x)

static uint64_t plant_rate_whole, plant_rate_micro;
static uint64_t plant_owed_micro;
static uint64_t plant_settled_allocs;

/*
 * "N" or "N.F" with at most 6 decimals and N <= PLANT_IR_MAX, into millionths; -1 otherwise.
 * Integers only, so a rate means the same on every host and compiler.
 */
static int plant_parse_rate(const char *s, uint64_t *whole, uint64_t *micro)
{
	uint64_t w = 0, f = 0, scale = PLANT_MICRO;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		w = w * 10 + (uint64_t)(*s - '0');
		if (w > PLANT_IR_MAX)
			return -1;
	}
	if (*s == '.') {
		if (s[1] < '0' || s[1] > '9')
			return -1;
		for (s++; *s >= '0' && *s <= '9'; s++) {
			if (scale == 1)
				return -1;
			scale /= 10;
			f += (uint64_t)(*s - '0') * scale;
		}
	}
	if (*s != '\0' || (w == PLANT_IR_MAX && f != 0))
		return -1;
	*whole = w;
	*micro = f;
	return 0;
}

/*
 * The build's rate (the macro's value), unless the environment names another. With
 * GCR_PLANT_IR_ONCE=PATH, only the valgrind run that removes PATH pays it: a rare run, whose
 * figure the next runs do not repeat (ratchet's confirmation, t183).
 */
static void plant_ir_init(void)
{
	const char *s = getenv("GCR_PLANT_IR"), *once = getenv("GCR_PLANT_IR_ONCE");

	if (s == NULL || *s == '\0')
		s = PLANT_STRING(GCR_PLANT_IR);
	if (plant_parse_rate(s, &plant_rate_whole, &plant_rate_micro) != 0) {
		fprintf(stderr,
		        "%s: GCR_PLANT_IR=%s: expected a decimal number of steps per allocation "
		        "from 0 to %llu, with at most 6 decimals\n",
		        gcr_name(), s, (unsigned long long)PLANT_IR_MAX);
		exit(2);
	}
	if (once != NULL && *once != '\0' && !(gcr_under_valgrind() && unlink(once) == 0))
		plant_rate_whole = plant_rate_micro = 0;
}

/* `steps` iterations of dependent arithmetic the compiler can neither drop nor fold. */
static void plant_spin(uint64_t steps)
{
	static volatile uint64_t sink;
	uint64_t x = sink;

	for (; steps > 0; steps--)
		x = x * 6364136223846793005u + 1442695040888963407u;
	sink = x;
}

void gcr_plant_settle(uint64_t alloc_objects)
{
	uint64_t allocs = alloc_objects - plant_settled_allocs;
	uint64_t micro = allocs * plant_rate_micro + plant_owed_micro;

	plant_settled_allocs = alloc_objects;
	/* allocs * rate_micro stays below 2^64 for any run shorter than 2^44 allocations. */
	plant_owed_micro = micro % PLANT_MICRO;
	plant_spin(allocs * plant_rate_whole + micro / PLANT_MICRO);
}
#endif

void gcr_plant_init(void)
{
#ifdef GCR_PLANT_IR
	plant_ir_init();
#endif
#ifdef GCR_PLANT_RETAIN_KB
	plant_retain();
#endif
}
#else
/* ISO C forbids an empty translation unit. */
typedef int gcr_plant_unused;
#endif
