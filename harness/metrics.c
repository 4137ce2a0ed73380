#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MIB (1024.0 * 1024.0)
/* One row of the table; the enum constants are named by their last word. */
#define METRIC(name, unit, kind, better, cls, nature, ab_decides, resolution, shared_ci,       \
               pinned_host, host)                                                              \
	{                                                                                      \
		name, METRIC_UNIT_##unit, RUN_KIND_##kind, METRIC_BETTER_##better,             \
		    METRIC_CLASS_##cls, METRIC_NATURE_##nature, (ab_decides), (resolution),    \
		    METRIC_RESOLUTION_ABS_##unit, {shared_ci, pinned_host}, METRIC_HOST_##host \
	}
/*
 * The absolute resolution of a metric, by its unit: the smallest difference ab calls a change
 * in a figure that varies from run to run (docs/ab.md, "Exact metrics that do not repeat"). A
 * page of bytes: a runtime's heap and freed bytes move by a few hundred bytes with its
 * pacer's timing (+336 bytes of a 39 MB freed_bytes), and no collector change worth a
 * verdict is smaller than a page. Counts, times and instructions have none: their relative
 * resolution, and the test, decide.
 */
#define METRIC_RESOLUTION_ABS_BYTES        4096.0
#define METRIC_RESOLUTION_ABS_NS           0.0
#define METRIC_RESOLUTION_ABS_COUNT        0.0
#define METRIC_RESOLUTION_ABS_INSTRUCTIONS 0.0
#define METRIC_RESOLUTION_ABS_RATIO        0.0
/*
 * The host facts (hostinfo.h) a figure moves with, by what it measures: check names a baseline
 * STALE for another host only where a fact differs that a gated cell's metric depends on
 * (docs/baselines.md, "Host facts"). A fact left out is one that does not move the figure of
 * unchanged code on two hosts alike in the rest.
 *
 * TIME: a clock (time.*, perf counters, pauses, latencies, MMU) and the scheduler's switches:
 * everything about the host, the CPU model first. MEMORY: what the kernel counts as resident
 * (rss.*, memory.*, os.* faults): the page size and the architecture; the C library (its
 * allocator, its own mapped pages); and the cores and memory, by which a runtime sizes itself
 * (the JVM its GC workers, V8 its heap limits). Not the CPU model, and not the kernel's
 * release: where a kernel changes memory figures it is through the page size and transparent
 * huge pages, which are compared on their own (the baseline's thp). BEHAVIOUR: the collector's
 * account of its work (the census, the minimum heap): the architecture (word size), the page
 * size a heap is mapped in, and the cores and memory a runtime sizes itself by; not the C
 * library, which a collector's counts do not go through. INSTRUCTIONS: valgrind's counts of
 * the probe's process: its architecture and the C library it runs (the loader and libc are in
 * every count); not the CPU model, which valgrind's synthetic CPU hides, nor the kernel, whose
 * instructions are not counted. The compiler and valgrind are the toolchain's, compared on
 * their own (toolchain.h).
 */
#define METRIC_HOST_TIME                   HOSTINFO_FACTS_ALL
#define METRIC_HOST_MEMORY                                                                    \
	(HOSTINFO_FACT_BIT(HOSTINFO_FACT_ARCH) | HOSTINFO_FACT_BIT(HOSTINFO_FACT_PAGE_SIZE) | \
	 HOSTINFO_FACT_BIT(HOSTINFO_FACT_LIBC) | HOSTINFO_FACT_BIT(HOSTINFO_FACT_NCPU) |      \
	 HOSTINFO_FACT_BIT(HOSTINFO_FACT_MEM_GIB))
#define METRIC_HOST_BEHAVIOUR                                                                 \
	(HOSTINFO_FACT_BIT(HOSTINFO_FACT_ARCH) | HOSTINFO_FACT_BIT(HOSTINFO_FACT_PAGE_SIZE) | \
	 HOSTINFO_FACT_BIT(HOSTINFO_FACT_NCPU) | HOSTINFO_FACT_BIT(HOSTINFO_FACT_MEM_GIB))
#define METRIC_HOST_INSTRUCTIONS \
	(HOSTINFO_FACT_BIT(HOSTINFO_FACT_ARCH) | HOSTINFO_FACT_BIT(HOSTINFO_FACT_LIBC))
/* A default band that decides a check, and one that is recorded only. */
#define GATE(pct, abs)             \
	{                          \
		1, (pct), (abs), 0 \
	}
#define SHOW(pct, abs)             \
	{                          \
		0, (pct), (abs), 0 \
	}
/* A gated band whose floor is also `live` percent of the probe's pinned live set. */
#define GATE_LIVE(pct, abs, live)       \
	{                               \
		1, (pct), (abs), (live) \
	}

/*
 * The metric table: METRIC(name, unit, run kind, better, class, nature, decides ab, resolution,
 * shared_ci band, pinned_host band, host facts). The committed baselines were pinned with these
 * bands, so a change of a band is a change of every profile `baseline pin` writes.
 *
 * shared_ci gates what is stable on a shared machine: the census of a precise collector is
 * deterministic (zero band), valgrind's Ir nearly so (1%, at least 1,000 Ir: the same build's
 * Ir moves by 8 to 99 with the build folder's name), resident memory within 2%, at least
 * 512 KiB and 10% of the probe's live set (the within-session spread of gen's RSS at ci is 0
 * to 180 KiB, and a 1 MiB retention must show); time is recorded, not gated. pinned_host also
 * gates time and tighter RSS: it is only valid on the one quiet host. These are the rules of
 * a build that is precise and repeats itself: what a build says it does changes them
 * (baseline_default_rules: a conservative or clock-paced one), and baseline pin widens a cell
 * whose pinning runs spread (pin.h). `gcratchet list metrics` prints all three.
 *
 * Nature: whatever the harness or the kernel measures around the probe is a cost, the same
 * yardstick for every design; the whole census is the collector's own account of its work,
 * behaviour (metrics.h). The memory a design costs is rss.peak_bytes and memory.*, which the
 * kernel counts alike for all; census.heap_* is the heap as that collector counts it.
 */
static const struct metric_info metrics_table_[] = {
    /* The launcher's wait4: every program has these. */
    METRIC("time.wall_ns", NS, TIMED, LOWER, QUANTILE, COST, 1, 0, SHOW(10, 0), GATE(10, 2e6),
           TIME),
    METRIC("time.user_ns", NS, TIMED, LOWER, QUANTILE, COST, 1, 0, SHOW(10, 0), GATE(10, 2e6),
           TIME),
    METRIC("time.sys_ns", NS, TIMED, LOWER, INFO, COST, 0, 0, SHOW(10, 0), SHOW(10, 0), TIME),
    METRIC("rss.peak_bytes", BYTES, TIMED, LOWER, BANDED, COST, 1, 0, GATE_LIVE(2, 0.5 * MIB, 10),
           GATE(5, 1 * MIB), MEMORY),
    METRIC("os.minor_faults", COUNT, TIMED, LOWER, INFO, COST, 0, 0, SHOW(50, 0), SHOW(50, 0),
           MEMORY),
    METRIC("os.major_faults", COUNT, TIMED, LOWER, INFO, COST, 0, 0, SHOW(50, 0), SHOW(50, 0),
           MEMORY),
    METRIC("os.voluntary_switches", COUNT, TIMED, LOWER, INFO, COST, 0, 0, SHOW(50, 0), SHOW(50, 0),
           TIME),
    METRIC("os.involuntary_switches", COUNT, TIMED, LOWER, INFO, COST, 0, 0, SHOW(50, 0),
           SHOW(50, 0), TIME),
    /* The probe's own /proc figures, sent with its census. ab shows RssAnon, never judges it. */
    METRIC("memory.vm_hwm_bytes", BYTES, TIMED, LOWER, BANDED, COST, 1, 0,
           GATE_LIVE(2, 0.5 * MIB, 10), GATE(5, 1 * MIB), MEMORY),
    METRIC("memory.rss_anon_bytes", BYTES, TIMED, LOWER, BANDED, COST, 0, 0,
           GATE_LIVE(2, 0.5 * MIB, 10), GATE(5, 1 * MIB), MEMORY),
    /*
     * Ir moves by a few instructions with the length of the probe's path and environment (the
     * loader and libc walk them): 10 ppm is far above that and far below any change a
     * collector engineer would care about. Being exact, it is measured once per probe and
     * build; the bands cover what moves it from one checkout to another.
     */
    METRIC("valgrind.ir", INSTRUCTIONS, VALGRIND, LOWER, EXACT, COST, 1, 1e-5, GATE(1, 1000),
           GATE(0.5, 0), INSTRUCTIONS),
    /*
     * cachegrind's cache simulation (--meters cachesim), in the same valgrind runs, with the
     * caches fixed by the harness: two runs give the same counts. A probe's path and
     * environment move its stack over other lines, and D1 misses with it by up to ~0.1%
     * (docs/meters.md): the ab resolution and the bands leave room for that, and the floors
     * for probes that miss little. I1 misses are the code's cold misses, a few thousand per
     * run: any change of the code moves them by dozens, so they have a wide floor and decide
     * no ab. est_cycles is an estimate (meter_valgrind.h), banded like Ir.
     */
    METRIC("cachesim.d1_misses", COUNT, VALGRIND, LOWER, EXACT, COST, 1, 1e-3, GATE(1, 1000),
           GATE(0.5, 1000), INSTRUCTIONS),
    METRIC("cachesim.ll_misses", COUNT, VALGRIND, LOWER, EXACT, COST, 1, 1e-3, GATE(1, 1000),
           GATE(0.5, 1000), INSTRUCTIONS),
    METRIC("cachesim.i1_misses", COUNT, VALGRIND, LOWER, EXACT, COST, 0, 1e-3, GATE(5, 500),
           GATE(5, 500), INSTRUCTIONS),
    METRIC("cachesim.est_cycles", COUNT, VALGRIND, LOWER, EXACT, COST, 1, 1e-4, GATE(1, 0),
           GATE(0.5, 0), INSTRUCTIONS),
    /* The collector's census, in gcr.h's order. */
    METRIC("census.minor_collections", COUNT, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0, GATE(0, 0),
           GATE(0, 0), BEHAVIOUR),
    METRIC("census.major_collections", COUNT, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0, GATE(0, 0),
           GATE(0, 0), BEHAVIOUR),
    METRIC("census.alloc_bytes", BYTES, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0, GATE(0, 0),
           GATE(0, 0), BEHAVIOUR),
    METRIC("census.alloc_objects", COUNT, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0, GATE(0, 0),
           GATE(0, 0), BEHAVIOUR),
    METRIC("census.copied_bytes", BYTES, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0, GATE(0, 0),
           GATE(0, 0), BEHAVIOUR),
    METRIC("census.copied_objects", COUNT, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0, GATE(0, 0),
           GATE(0, 0), BEHAVIOUR),
    METRIC("census.promoted_bytes", BYTES, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0, GATE(0, 0),
           GATE(0, 0), BEHAVIOUR),
    METRIC("census.promoted_objects", COUNT, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0, GATE(0, 0),
           GATE(0, 0), BEHAVIOUR),
    /* Freeing more is neither better nor worse (more garbage made, or less kept). */
    METRIC("census.freed_bytes", BYTES, TIMED, NEITHER, EXACT, BEHAVIOUR, 1, 0, SHOW(0, 0),
           SHOW(0, 0), BEHAVIOUR),
    METRIC("census.freed_objects", COUNT, TIMED, NEITHER, EXACT, BEHAVIOUR, 1, 0, SHOW(0, 0),
           SHOW(0, 0), BEHAVIOUR),
    METRIC("census.heap_committed_peak_bytes", BYTES, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0,
           GATE(0, 0), GATE(0, 0), BEHAVIOUR),
    METRIC("census.heap_used_after_full_bytes", BYTES, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0,
           GATE(0, 0), GATE(0, 0), BEHAVIOUR),
    METRIC("census.barrier_recorded", COUNT, TIMED, LOWER, EXACT, BEHAVIOUR, 1, 0, GATE(0, 0),
           GATE(0, 0), BEHAVIOUR),
    /* The collector's own clock: as noisy as time, and in it already. */
    METRIC("census.pause_total_ns", NS, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(25, 0),
           SHOW(25, 0), TIME),
    METRIC("census.pause_max_ns", NS, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(25, 0), SHOW(25, 0),
           TIME),
    /*
     * The pause log's figures (the census "pauses" section, of a collector that keeps one):
     * the collector's own clock, so behaviour like the rest of the census; the same losses
     * measured from the mutator's side are latency.* below. All are wall clock: recorded
     * only on shared_ci. pinned_host gates the p99 pause (25%, with a 1 ms floor) and MMU at
     * 10 ms (higher is better: a drop of 10%, at least 0.05, is a regression), and those two
     * decide an A/B within one design.
     */
    METRIC("census.pause_count", COUNT, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(0, 0), SHOW(0, 0),
           BEHAVIOUR),
    METRIC("census.pause_span_ns", NS, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(10, 0),
           SHOW(10, 0), TIME),
    METRIC("census.pause_p50_ns", NS, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(25, 0), SHOW(25, 0),
           TIME),
    METRIC("census.pause_p90_ns", NS, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(25, 0), SHOW(25, 0),
           TIME),
    METRIC("census.pause_p99_ns", NS, TIMED, LOWER, QUANTILE, BEHAVIOUR, 1, 0, SHOW(25, 0),
           GATE(25, 1e6), TIME),
    METRIC("census.pause_cpu_total_ns", NS, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(25, 0),
           SHOW(25, 0), TIME),
    METRIC("census.pause_cpu_max_ns", NS, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(25, 0),
           SHOW(25, 0), TIME),
    METRIC("census.pause_cpu_p50_ns", NS, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(25, 0),
           SHOW(25, 0), TIME),
    METRIC("census.pause_cpu_p90_ns", NS, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(25, 0),
           SHOW(25, 0), TIME),
    METRIC("census.pause_cpu_p99_ns", NS, TIMED, LOWER, INFO, BEHAVIOUR, 0, 0, SHOW(25, 0),
           SHOW(25, 0), TIME),
    METRIC("census.mmu_1ms", RATIO, TIMED, HIGHER, INFO, BEHAVIOUR, 0, 0, SHOW(10, 0.05),
           SHOW(10, 0.05), TIME),
    METRIC("census.mmu_2ms", RATIO, TIMED, HIGHER, INFO, BEHAVIOUR, 0, 0, SHOW(10, 0.05),
           SHOW(10, 0.05), TIME),
    METRIC("census.mmu_5ms", RATIO, TIMED, HIGHER, INFO, BEHAVIOUR, 0, 0, SHOW(10, 0.05),
           SHOW(10, 0.05), TIME),
    METRIC("census.mmu_10ms", RATIO, TIMED, HIGHER, QUANTILE, BEHAVIOUR, 1, 0, SHOW(10, 0.05),
           GATE(10, 0.05), TIME),
    METRIC("census.mmu_20ms", RATIO, TIMED, HIGHER, INFO, BEHAVIOUR, 0, 0, SHOW(10, 0.05),
           SHOW(10, 0.05), TIME),
    METRIC("census.mmu_50ms", RATIO, TIMED, HIGHER, INFO, BEHAVIOUR, 0, 0, SHOW(10, 0.05),
           SHOW(10, 0.05), TIME),
    METRIC("census.mmu_100ms", RATIO, TIMED, HIGHER, INFO, BEHAVIOUR, 0, 0, SHOW(10, 0.05),
           SHOW(10, 0.05), TIME),
    /*
     * A request-serving probe's own latencies (the census "latency" section): measured by
     * the probe, the same yardstick for every design, so costs. Wall clock: the p99s decide
     * an A/B, nothing is gated by default.
     */
    METRIC("latency.requests", COUNT, TIMED, NEITHER, INFO, COST, 0, 0, SHOW(0, 0), SHOW(0, 0),
           BEHAVIOUR),
    METRIC("latency.simple_p50_ns", NS, TIMED, LOWER, INFO, COST, 0, 0, SHOW(25, 0), SHOW(25, 0),
           TIME),
    METRIC("latency.simple_p99_ns", NS, TIMED, LOWER, QUANTILE, COST, 1, 0, SHOW(25, 0),
           SHOW(25, 0), TIME),
    METRIC("latency.simple_p999_ns", NS, TIMED, LOWER, INFO, COST, 0, 0, SHOW(25, 0), SHOW(25, 0),
           TIME),
    METRIC("latency.simple_max_ns", NS, TIMED, LOWER, INFO, COST, 0, 0, SHOW(25, 0), SHOW(25, 0),
           TIME),
    METRIC("latency.metered_p50_ns", NS, TIMED, LOWER, INFO, COST, 0, 0, SHOW(25, 0), SHOW(25, 0),
           TIME),
    METRIC("latency.metered_p99_ns", NS, TIMED, LOWER, QUANTILE, COST, 1, 0, SHOW(25, 0),
           SHOW(25, 0), TIME),
    METRIC("latency.metered_p999_ns", NS, TIMED, LOWER, INFO, COST, 0, 0, SHOW(25, 0), SHOW(25, 0),
           TIME),
    METRIC("latency.metered_max_ns", NS, TIMED, LOWER, INFO, COST, 0, 0, SHOW(25, 0), SHOW(25, 0),
           TIME),
    /*
     * A probe's minimum heap for the build (gcratchet minheap's newest stored answer, added to
     * the runs by heapgate.c, never measured by a session): the min-heap ratchet. Exact for a
     * precise collector; baseline pin --minheap bands it for a build whose search was unsteady
     * at its boundary. Gated in both profiles, so a pinned cell catches a probe that now needs
     * more heap; only `baseline pin --minheap` pins it.
     */
    METRIC("minheap.min_heap_mib", COUNT, TIMED, LOWER, EXACT, BEHAVIOUR, 0, 0, GATE(0, 0),
           GATE(0, 0), BEHAVIOUR),
    /*
     * Any event libpfm4 encodes; `baseline pin` pins no perf cells. ".scale" is the share of
     * time the counter ran (1: never multiplexed): a property of the host, not a cost.
     */
    /* The pause histogram: pauses of [2^k, 2^(k+1)) ns of wall time, drawn by the reports. */
    METRIC("census.pause_hist_<k>", COUNT, TIMED, NEITHER, INFO, BEHAVIOUR, 0, 0, SHOW(0, 0),
           SHOW(0, 0), TIME),
    /*
     * Collections by what started them (the census "triggers", names in gcr.h's GCR_TRIGGERS):
     * the collector's account, so behaviour, and exact for a build that repeats itself. They
     * break down minor_collections + major_collections, which decide and are gated already:
     * a shift between causes is neither better nor worse in itself, so they are shown in ab
     * (info), and recorded, never gated, by a profile (a pattern: baseline pin pins none).
     */
    METRIC("census.trigger_<name>", COUNT, TIMED, NEITHER, EXACT, BEHAVIOUR, 0, 0, SHOW(0, 0),
           SHOW(0, 0), BEHAVIOUR),
    METRIC("perf.<event>", COUNT, TIMED, LOWER, QUANTILE, COST, 1, 0, SHOW(0, 0), SHOW(0, 0), TIME),
    METRIC("perf.<event>.scale", RATIO, TIMED, HIGHER, INFO, COST, 0, 0, SHOW(0, 0), SHOW(0, 0),
           TIME),
};

#define METRICS_N (sizeof metrics_table_ / sizeof metrics_table_[0])

static const char *const metrics_profile_names[] = {
    [METRIC_PROFILE_SHARED_CI] = "shared_ci",
    [METRIC_PROFILE_PINNED_HOST] = "pinned_host",
    [METRIC_PROFILE_COUNT] = NULL,
};

void metric_set_add(struct metric_set *s, const char *name, double value)
{
	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->items[i].name, name) == 0) {
			s->items[i].value = value;
			return;
		}
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		s->items = xrealloc(s->items, s->cap * sizeof *s->items);
	}
	s->items[s->n].name = xstrdup(name);
	s->items[s->n].value = value;
	s->n++;
}

const double *metric_set_get(const struct metric_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->items[i].name, name) == 0)
			return &s->items[i].value;
	return NULL;
}

void metric_set_remove(struct metric_set *s, const char *name)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->items[i].name, name) == 0)
			free(s->items[i].name);
		else
			s->items[k++] = s->items[i];
	}
	s->n = k;
}

void metric_set_release(struct metric_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i].name);
	free(s->items);
	s->items = NULL;
	s->n = s->cap = 0;
}

void metrics_from_rusage(struct metric_set *s, const struct run_result *res)
{
	metric_set_add(s, "time.wall_ns", (double)res->wall_ns);
	metric_set_add(s, "time.user_ns", (double)res->user_ns);
	metric_set_add(s, "time.sys_ns", (double)res->sys_ns);
	metric_set_add(s, "rss.peak_bytes", (double)res->maxrss_bytes);
	metric_set_add(s, "os.minor_faults", (double)res->minflt);
	metric_set_add(s, "os.major_faults", (double)res->majflt);
	metric_set_add(s, "os.voluntary_switches", (double)res->nvcsw);
	metric_set_add(s, "os.involuntary_switches", (double)res->nivcsw);
}

/*
 * How well `pattern` matches `name`: 0 when it does not, else the number of fixed characters
 * it matched, so the most specific pattern wins. A name without "<" matches only itself.
 */
static size_t metrics_match(const char *pattern, const char *name)
{
	const char *open = strchr(pattern, '<'), *close = open ? strchr(open, '>') : NULL;
	size_t pre, post, n = strlen(name);

	if (!close)
		return strcmp(pattern, name) == 0 ? strlen(name) : 0;
	pre = (size_t)(open - pattern);
	post = strlen(close + 1);
	/* The wildcard stands for at least one character: "perf." is no event. */
	if (n <= pre + post || strncmp(name, pattern, pre) != 0 ||
	    strcmp(name + n - post, close + 1) != 0)
		return 0;
	return pre + post;
}

const struct metric_info *metrics_lookup(const char *name)
{
	const struct metric_info *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < METRICS_N; i++)
		if (strcmp(metrics_table_[i].name, name) == 0)
			return &metrics_table_[i];
	for (size_t i = 0; i < METRICS_N; i++) {
		size_t len = metrics_match(metrics_table_[i].name, name);
		if (len > best_len) {
			best = &metrics_table_[i];
			best_len = len;
		}
	}
	return best;
}

int metrics_value_check(const char *metric, double v, enum run_kind kind, struct err *e)
{
	const struct metric_info *m = metrics_lookup(metric);

	if (!isfinite(v))
		return err_setc(e, ERR_INVALID, "%s is %s, not a finite number", metric,
		                isnan(v) ? "NaN"
		                : v > 0  ? "+infinity"
		                         : "-infinity");
	if (!m || kind == RUN_KIND_PER_ITERATION || kind == RUN_KIND_VALGRIND_PER_ITERATION)
		return 0;
	if (m->unit == METRIC_UNIT_RATIO && !(v >= 0 && v <= 1))
		return err_setc(e, ERR_INVALID, "%s is %.17g, but a ratio is from 0 to 1", metric,
		                v);
	if (v < 0)
		return err_setc(e, ERR_INVALID, "%s is %.17g, but %s is never negative", metric, v,
		                m->unit == METRIC_UNIT_BYTES          ? "a size in bytes"
		                : m->unit == METRIC_UNIT_NS           ? "a time in ns"
		                : m->unit == METRIC_UNIT_INSTRUCTIONS ? "an instruction count"
		                                                      : "a count");
	return 0;
}

const struct metric_info *metrics_table(size_t *n)
{
	*n = METRICS_N;
	return metrics_table_;
}

const char *metrics_hint(const char *typed, char *buf, size_t size)
{
	struct near_name near = {0};
	char phrase[NEAR_PHRASE_MAX];
	const char *guess;

	/* Only names without a wildcard: "perf.<event>" is no name to suggest. */
	for (size_t i = 0; i < METRICS_N; i++)
		if (!strchr(metrics_table_[i].name, '<'))
			near_offer(typed, metrics_table_[i].name, &near);
	guess = near_pick(typed, &near);
	snprintf(buf, size, "%ssee gcratchet list metrics",
	         near_phrase(guess, phrase, sizeof phrase));
	return buf;
}

int metrics_is_known(const char *name)
{
	return metrics_lookup(name) != NULL;
}

int metrics_is_census(const char *name)
{
	return strncmp(name, "census.", 7) == 0 && metrics_lookup(name) != NULL;
}

int metrics_is_bucket(const char *name)
{
	return strncmp(name, "census.pause_hist_", 18) == 0 && metrics_lookup(name) != NULL;
}

int metrics_is_behaviour(const char *name)
{
	const struct metric_info *m = metrics_lookup(name);

	return m && m->nature == METRIC_NATURE_BEHAVIOUR;
}

int metrics_is_time(const char *name)
{
	const struct metric_info *m = metrics_lookup(name);

	/* The collector's own pause clock is in ns too, but it is in its census, not around it. */
	return m && m->unit == METRIC_UNIT_NS && !metrics_is_census(name);
}

unsigned metrics_host_facts(const char *name)
{
	const struct metric_info *m = metrics_lookup(name);

	/* A name the table does not know is taken to move with anything. */
	return m ? m->host_facts : HOSTINFO_FACTS_ALL;
}

enum run_kind metrics_run_kind(const char *name)
{
	const struct metric_info *m = metrics_lookup(name);

	return m ? m->kind : RUN_KIND_TIMED;
}

const char *const *metrics_known(void)
{
	/*
	 * Filled once from the table, so the table stays the one list. The harness runs one
	 * thread; the fill is idempotent anyway.
	 */
	static const char *names[METRICS_N + 1];

	if (!names[0]) {
		size_t k = 0;
		for (size_t i = 0; i < METRICS_N; i++)
			if (!strchr(metrics_table_[i].name, '<'))
				names[k++] = metrics_table_[i].name;
		names[k] = NULL;
	}
	return names;
}

const char *const *metrics_profiles(void)
{
	return metrics_profile_names;
}

int metrics_profile_parse(const char *name, enum metric_profile *out)
{
	for (int p = 0; p < METRIC_PROFILE_COUNT; p++) {
		if (strcmp(metrics_profile_names[p], name) == 0) {
			*out = (enum metric_profile)p;
			return 0;
		}
	}
	return -1;
}

int metrics_profile_gates_time(const char *name)
{
	enum metric_profile p;

	return metrics_profile_parse(name, &p) == 0 &&
	       metrics_lookup("time.wall_ns")->band[p].gated;
}

static const char *const metrics_unit_names[] = {
    [METRIC_UNIT_BYTES] = "bytes", [METRIC_UNIT_NS] = "ns",
    [METRIC_UNIT_COUNT] = "count", [METRIC_UNIT_INSTRUCTIONS] = "instructions",
    [METRIC_UNIT_RATIO] = "ratio",
};

static const char *const metrics_direction_names[] = {
    [METRIC_BETTER_LOWER] = "lower",
    [METRIC_BETTER_HIGHER] = "higher",
    [METRIC_BETTER_NEITHER] = "neither",
};

static const char *const metrics_class_names[] = {
    [METRIC_CLASS_EXACT] = "exact",
    [METRIC_CLASS_BANDED] = "banded",
    [METRIC_CLASS_QUANTILE] = "quantile",
    [METRIC_CLASS_INFO] = "info",
};

static const char *const metrics_nature_names[] = {
    [METRIC_NATURE_COST] = "cost",
    [METRIC_NATURE_BEHAVIOUR] = "behaviour",
};

#define METRICS_NAME_OF(names, v) ((size_t)(v) < sizeof names / sizeof names[0] ? names[v] : "?")

const char *metrics_unit_name(enum metric_unit u)
{
	return METRICS_NAME_OF(metrics_unit_names, u);
}

const char *metrics_direction_name(enum metric_direction d)
{
	return METRICS_NAME_OF(metrics_direction_names, d);
}

const char *metrics_class_name(enum metric_class c)
{
	return METRICS_NAME_OF(metrics_class_names, c);
}

const char *metrics_nature_name(enum metric_nature n)
{
	return METRICS_NAME_OF(metrics_nature_names, n);
}

enum metric_unit metrics_display_unit(const char *metric)
{
	const struct metric_info *m = metrics_lookup(metric);

	/* An exact metric is compared to the last unit, so it is shown to the last unit. */
	if (!m || m->cls == METRIC_CLASS_EXACT)
		return METRIC_UNIT_COUNT;
	return m->unit;
}

void metrics_format_short(const char *metric, double v, char *buf, size_t size)
{
	const struct metric_info *m = metrics_lookup(metric);
	enum metric_unit unit = m ? m->unit : METRIC_UNIT_COUNT;
	double a = fabs(v);

	if (unit == METRIC_UNIT_BYTES || unit == METRIC_UNIT_NS) {
		/* Bytes and time scale already; an exact one by its own unit here, not every digit. */
		const char *as = unit == METRIC_UNIT_BYTES ? "rss.peak_bytes" : "time.wall_ns";
		metrics_format_value(m && m->cls == METRIC_CLASS_EXACT ? as : metric, v, buf, size);
		return;
	}
	if (unit == METRIC_UNIT_RATIO || !isfinite(v)) {
		metrics_format_value(metric, v, buf, size);
		return;
	}
	/* A count is whole: a median of two that ends in .5 rounds, as no run counted half. */
	v = round(v);
	if (v == 0)
		v = 0;
	a = fabs(v);
	/* Each step starts where the one below would round to 1000 of its unit. */
	if (a >= 1e12)
		snprintf(buf, size, "%.4g", v);
	else if (a >= 999.995e6)
		snprintf(buf, size, "%.2fG", v / 1e9);
	else if (a >= 999.95e3)
		snprintf(buf, size, "%.1fM", v / 1e6);
	else if (a >= 1e5)
		snprintf(buf, size, "%.1fk", v / 1e3);
	else
		snprintf(buf, size, "%.0f", v);
}

void metrics_format_value(const char *metric, double v, char *buf, size_t size)
{
	enum metric_unit unit = metrics_display_unit(metric);
	double a = fabs(v);

	if (v == 0)
		v = 0; /* "-0" would read as a change */
	if (isnan(v)) {
		snprintf(buf, size, "-");
	} else if (isinf(v)) {
		snprintf(buf, size, "%s", v > 0 ? "inf" : "-inf");
	} else if (a >= 1e18) {
		/* Beyond any real figure (and beyond a double's exact integers): keep it short. */
		snprintf(buf, size, "%.4g", v);
	} else if (unit == METRIC_UNIT_BYTES) {
		if (a >= 1024.0 * 1024 * 1024)
			snprintf(buf, size, "%.3f GiB", v / (1024.0 * 1024 * 1024));
		else if (a >= 1024.0 * 1024)
			snprintf(buf, size, "%.2f MiB", v / (1024.0 * 1024));
		else if (a >= 1024.0)
			snprintf(buf, size, "%.1f KiB", v / 1024.0);
		else
			snprintf(buf, size, "%.0f B", v);
	} else if (unit == METRIC_UNIT_NS) {
		if (a >= 1e9)
			snprintf(buf, size, "%.3f s", v / 1e9);
		else if (a >= 1e6)
			snprintf(buf, size, "%.2f ms", v / 1e6);
		else if (a >= 1e3)
			snprintf(buf, size, "%.1f us", v / 1e3);
		else
			snprintf(buf, size, "%.0f ns", v);
	} else if (v == floor(v)) {
		snprintf(buf, size, "%.0f", v);
	} else if (a >= 100) {
		/* A median of two counts ends in .5: keep every digit before it. */
		snprintf(buf, size, "%.1f", v);
	} else {
		snprintf(buf, size, "%.4g", v);
	}
}

void metrics_format_pct(double pct, char *buf, size_t size)
{
	if (pct == 0)
		snprintf(buf, size, "0");
	else if (fabs(pct) >= 999.5 || !isfinite(pct))
		snprintf(buf, size, "%.0f", pct);
	else if (fabs(pct) < 0.001)
		snprintf(buf, size, "%.3f", pct);
	else
		snprintf(buf, size, "%.3g", pct);
}
