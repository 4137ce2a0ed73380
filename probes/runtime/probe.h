/*
 * probe.h — the small runtime every probe shares.
 *
 * A probe is one executable, NN_name, linked against one collector build. Its main is
 * PROBE_MAIN(spec): the runtime parses the command line, initialises the collector, runs the
 * probe body at the requested size, runs a final full collection, prints the checksum on stdout
 * and writes the census object (docs/census-protocol.md) to the descriptor named by
 * GCR_CENSUS_FD when that variable is set.
 *
 * Command line:  NN_name [ci|default|large] [--iterations N]
 *   --iterations overrides the size's iteration count (per-iteration cost from two counts).
 * Exit status: 0 done; 2 bad command line or environment (message on stderr).
 *
 * Invariants:
 * - run() is deterministic: the same iterations give the same checksum on every collector.
 * - The checksum is computed from the probe's data (values stored in objects and read back),
 *   never from addresses, so a moving collector gives the same answer.
 */
#ifndef PROBE_H
#define PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "gcr.h"

enum probe_size { PROBE_SIZE_CI, PROBE_SIZE_DEFAULT, PROBE_SIZE_LARGE, PROBE_SIZE_COUNT };

struct probe_spec {
	const char *name; /* "01_nursery_churn": number and name, as the file is named */
	/* The collector activity the probe exists to cause, in one sentence. */
	const char *premise;
	/* Iterations of run() for ci, default and large. */
	uint64_t iterations[PROBE_SIZE_COUNT];
	/* The body: does `iterations` units of work and returns a checksum of its result. */
	uint64_t (*run)(uint64_t iterations);
	/*
	 * Optional: judges the premise on the census taken after the final full collection.
	 * Returns 1 met, 0 not met (writes why into `why`), -1 not applicable on this collector
	 * (writes why). NULL means the probe has no premise check.
	 */
	int (*premise_met)(const struct gcr_census *c, unsigned capabilities, char *why,
	                   size_t why_size);
};

/* Runs the probe as described above; returns the process exit status. */
int probe_main(int argc, char **argv, const struct probe_spec *spec);

#define PROBE_MAIN(spec)                                \
	int main(int argc, char **argv)                 \
	{                                               \
		return probe_main(argc, argv, &(spec)); \
	}

/*
 * The start most premises share: a collector that collects must have collected during the
 * run, more than the runtime's final full collection. Returns -1 (not applicable: no COLLECTS
 * capability, or no collection counts in the census) or 0 (no collection during the run),
 * with `why` written, or 1 with *collections = minor + major and `why` untouched.
 */
int probe_collected(const struct gcr_census *c, unsigned capabilities, uint64_t *collections,
                    char *why, size_t why_size);

/* ---- Helpers for probe bodies ------------------------------------------------------------ */

/* Mixes v into a running checksum h (order-sensitive, 64-bit). */
static inline uint64_t probe_mix(uint64_t h, uint64_t v)
{
	h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	return h;
}

/* A small deterministic generator (xorshift64*); state must start non-zero. */
static inline uint64_t probe_rand(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(0x2545f4914f6cdd1d);
}

/* CLOCK_MONOTONIC in ns: for probes that time their own work (15_request_latency). */
uint64_t probe_now_ns(void);

/*
 * For a probe that serves requests one after another: hands the runtime each request's
 * service time (end - start, probe_now_ns), in the order served, and the span from the first
 * start to the last end; the runtime owns the malloc'd array from then on. When it writes a
 * census it adds the "latency" section (docs/census-protocol.md): p50, p99, p99.9 and max of
 * the service time ("simple") and of the metered latency: requests arrive on a uniform
 * schedule over the span (DaCapo Chopin's metering) and one server serves them in order for
 * their service times, so a pause delays every request queued behind it. Runs without a
 * census (valgrind) compute nothing: their instruction counts must not depend on clock values.
 */
void probe_latency_record(uint64_t *service_ns, size_t n, uint64_t span_ns);

/* Stores and loads a 64-bit value in an object's raw bytes (unaligned-safe). */
void probe_put_u64(void *obj, uint32_t nptrs, uint32_t offset, uint64_t v);
uint64_t probe_get_u64(void *obj, uint32_t nptrs, uint32_t offset);

#endif /* PROBE_H */
