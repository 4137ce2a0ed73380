/*
 * knob.h — what the shipped collectors share besides the ABI: reading a knob from the
 * environment, whether the run is under valgrind, and the clock their pauses are timed with.
 */
#ifndef GCR_KNOB_H
#define GCR_KNOB_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Reads a knob: unset or empty means the default; anything but a decimal integer in [min, max]
 * is an error the ABI makes fatal: a message naming the collector, variable and value on
 * stderr, then exit status 2.
 */
static inline uint64_t gcr_knob(const char *collector, const char *name, uint64_t dflt,
                                uint64_t min, uint64_t max)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0')
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || errno != 0 || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "%s: %s=%s: expected an integer from %llu to %llu\n", collector,
		        name, s, (unsigned long long)min, (unsigned long long)max);
		exit(2);
	}
	return v;
}

/* Whether this process runs under valgrind, whose preload library is in LD_PRELOAD. */
static inline int gcr_under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload != NULL && strstr(preload, "vgpreload") != NULL;
}

/* CLOCK_MONOTONIC in nanoseconds, for pause times. */
static inline uint64_t gcr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* GCR_KNOB_H */
