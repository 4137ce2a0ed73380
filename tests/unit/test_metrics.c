/* The metric table: lookup, completeness, the default rules and ab policies it gives, values. */
#include <stdlib.h>

#include "baseline.h"
#include "gcr.h"
#include "metrics.h"
#include "paired.h"
#include "unit.h"

#define MIB (1024.0 * 1024.0)

struct expected_band {
	int gated;
	double pct, abs;
};

struct expected_rule {
	const char *metric;
	enum baseline_direction direction;
	struct expected_band shared_ci, pinned_host;
};

/*
 * The default rules as they were when the committed baselines were pinned: these exact values
 * are in the committed baselines/shared_ci files, and `baseline pin` must keep writing them.
 */
static const struct expected_rule expected_rules[] = {
    /* shared_ci: baseline.c narrows RSS to 2% / 512 KiB plus a live floor, floors Ir at 1000. */
    {"time.wall_ns", BASELINE_INCREASE, {0, 10, 0}, {1, 10, 2e6}},
    {"time.user_ns", BASELINE_INCREASE, {0, 10, 0}, {1, 10, 2e6}},
    {"time.sys_ns", BASELINE_INCREASE, {0, 10, 0}, {0, 10, 0}},
    {"rss.peak_bytes", BASELINE_INCREASE, {1, 2, 0.5 * MIB}, {1, 5, 1 * MIB}},
    {"os.minor_faults", BASELINE_INCREASE, {0, 50, 0}, {0, 50, 0}},
    {"os.major_faults", BASELINE_INCREASE, {0, 50, 0}, {0, 50, 0}},
    {"os.voluntary_switches", BASELINE_INCREASE, {0, 50, 0}, {0, 50, 0}},
    {"os.involuntary_switches", BASELINE_INCREASE, {0, 50, 0}, {0, 50, 0}},
    {"memory.vm_hwm_bytes", BASELINE_INCREASE, {1, 2, 0.5 * MIB}, {1, 5, 1 * MIB}},
    {"memory.rss_anon_bytes", BASELINE_INCREASE, {1, 2, 0.5 * MIB}, {1, 5, 1 * MIB}},
    {"valgrind.ir", BASELINE_INCREASE, {1, 1, 1000}, {1, 0.5, 0}},
    {"cachesim.d1_misses", BASELINE_INCREASE, {1, 1, 1000}, {1, 0.5, 1000}},
    {"cachesim.ll_misses", BASELINE_INCREASE, {1, 1, 1000}, {1, 0.5, 1000}},
    {"cachesim.i1_misses", BASELINE_INCREASE, {1, 5, 500}, {1, 5, 500}},
    {"cachesim.est_cycles", BASELINE_INCREASE, {1, 1, 0}, {1, 0.5, 0}},
    {"census.minor_collections", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.major_collections", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.alloc_bytes", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.alloc_objects", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.copied_bytes", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.copied_objects", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.promoted_bytes", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.promoted_objects", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.freed_bytes", BASELINE_EITHER, {0, 0, 0}, {0, 0, 0}},
    {"census.freed_objects", BASELINE_EITHER, {0, 0, 0}, {0, 0, 0}},
    {"census.heap_committed_peak_bytes", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.heap_used_after_full_bytes", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.barrier_recorded", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"census.pause_total_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"census.pause_max_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    /* The pause log's figures and a request-serving probe's latencies (issue 16). */
    {"census.pause_count", BASELINE_INCREASE, {0, 0, 0}, {0, 0, 0}},
    {"census.pause_span_ns", BASELINE_INCREASE, {0, 10, 0}, {0, 10, 0}},
    {"census.pause_p50_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"census.pause_p90_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"census.pause_p99_ns", BASELINE_INCREASE, {0, 25, 0}, {1, 25, 1e6}},
    {"census.pause_cpu_total_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"census.pause_cpu_max_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"census.pause_cpu_p50_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"census.pause_cpu_p90_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"census.pause_cpu_p99_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"census.mmu_1ms", BASELINE_DECREASE, {0, 10, 0.05}, {0, 10, 0.05}},
    {"census.mmu_2ms", BASELINE_DECREASE, {0, 10, 0.05}, {0, 10, 0.05}},
    {"census.mmu_5ms", BASELINE_DECREASE, {0, 10, 0.05}, {0, 10, 0.05}},
    {"census.mmu_10ms", BASELINE_DECREASE, {0, 10, 0.05}, {1, 10, 0.05}},
    {"census.mmu_20ms", BASELINE_DECREASE, {0, 10, 0.05}, {0, 10, 0.05}},
    {"census.mmu_50ms", BASELINE_DECREASE, {0, 10, 0.05}, {0, 10, 0.05}},
    {"census.mmu_100ms", BASELINE_DECREASE, {0, 10, 0.05}, {0, 10, 0.05}},
    {"latency.requests", BASELINE_EITHER, {0, 0, 0}, {0, 0, 0}},
    {"latency.simple_p50_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"latency.simple_p99_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"latency.simple_p999_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"latency.simple_max_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"latency.metered_p50_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"latency.metered_p99_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"latency.metered_p999_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    {"latency.metered_max_ns", BASELINE_INCREASE, {0, 25, 0}, {0, 25, 0}},
    /* The min-heap ratchet (heapgate.h): a probe needing one MiB more is a regression. */
    {"minheap.min_heap_mib", BASELINE_INCREASE, {1, 0, 0}, {1, 0, 0}},
    {"perf.instructions:u", BASELINE_INCREASE, {0, 0, 0}, {0, 0, 0}},
    /*
     * The share of time a counter ran: less is worse. The old prefix table knew no perf
     * metric and said "increase"; `baseline pin` writes fixed names only, so no file has it.
     */
    {"perf.instructions:u.scale", BASELINE_DECREASE, {0, 0, 0}, {0, 0, 0}},
    {"no.such_metric", BASELINE_INCREASE, {0, 0, 0}, {0, 0, 0}},
    {NULL, BASELINE_INCREASE, {0, 0, 0}, {0, 0, 0}},
};

static void check_rules(const char *profile, int pinned)
{
	/* A precise, deterministic build: the table's bands as they are (metrics.c). */
	static const struct caps precise = {1, CAPS_COLLECTS | CAPS_PRECISE, 0};
	const char *names[64];
	struct baseline_rule *r;
	struct err e = ERR_INIT;
	size_t n = 0;

	for (; expected_rules[n].metric; n++)
		names[n] = expected_rules[n].metric;
	CHECK(baseline_default_rules(profile, &precise, names, n, &r, &e) == 0);
	for (size_t i = 0; i < n; i++) {
		const struct expected_rule *w = &expected_rules[i];
		const struct expected_band *band = pinned ? &w->pinned_host : &w->shared_ci;
		int same = strcmp(r[i].metric, w->metric) == 0 && r[i].gated == band->gated &&
		           r[i].direction == w->direction && r[i].band_pct == band->pct &&
		           r[i].band_abs == band->abs;
		if (!same)
			fprintf(stderr, "%s: %s: got gated %d %s %g%% %g\n", profile, w->metric,
			        r[i].gated, baseline_direction_name(r[i].direction), r[i].band_pct,
			        r[i].band_abs);
		CHECK(same);
		free(r[i].metric);
	}
	free(r);
}

static void test_default_rules(void)
{
	const char *const *known = metrics_known();
	size_t n = 0;

	/* Every known metric is pinned above, so a new one must state its rules here too. */
	for (; known[n]; n++) {
		int listed = 0;
		for (size_t i = 0; expected_rules[i].metric; i++)
			listed |= strcmp(expected_rules[i].metric, known[n]) == 0;
		if (!listed)
			fprintf(stderr, "%s: no expected default rule\n", known[n]);
		CHECK(listed);
	}
	CHECK(n == 57);
	check_rules("shared_ci", 0);
	check_rules("pinned_host", 1);
}

/*
 * What ab makes of each metric (docs/ab.md, "Which cells decide"): every one is a cost;
 * only the valgrind runs' counts (Ir, the cache simulation's) are deterministic by design, and
 * they alone have a resolution.
 */
static double expected_resolution(const char *metric)
{
	static const struct {
		const char *metric;
		double resolution;
	} deterministic[] = {
	    {"valgrind.ir", 1e-5},         {"cachesim.d1_misses", 1e-3},
	    {"cachesim.ll_misses", 1e-3},  {"cachesim.i1_misses", 1e-3},
	    {"cachesim.est_cycles", 1e-4},
	};

	for (size_t i = 0; i < sizeof deterministic / sizeof deterministic[0]; i++)
		if (strcmp(deterministic[i].metric, metric) == 0)
			return deterministic[i].resolution;
	return 0;
}

static void test_paired_policies(void)
{
	static const char *const info[] = {
	    "time.sys_ns",
	    "os.minor_faults",
	    "os.major_faults",
	    "os.voluntary_switches",
	    "os.involuntary_switches",
	    "memory.rss_anon_bytes",
	    "census.pause_total_ns",
	    "census.pause_max_ns",
	    "census.pause_count",
	    "census.pause_span_ns",
	    "census.pause_p50_ns",
	    "census.pause_p90_ns",
	    "census.pause_cpu_total_ns",
	    "census.pause_cpu_max_ns",
	    "census.pause_cpu_p50_ns",
	    "census.pause_cpu_p90_ns",
	    "census.pause_cpu_p99_ns",
	    "census.mmu_1ms",
	    "census.mmu_2ms",
	    "census.mmu_5ms",
	    "census.mmu_20ms",
	    "census.mmu_50ms",
	    "census.mmu_100ms",
	    "latency.requests",
	    "latency.simple_p50_ns",
	    "latency.simple_p999_ns",
	    "latency.simple_max_ns",
	    "latency.metered_p50_ns",
	    "latency.metered_p999_ns",
	    "latency.metered_max_ns",
	    "minheap.min_heap_mib",
	    "perf.cycles:u.scale",
	    "no.such_metric",
	    NULL,
	};
	const char *const *known = metrics_known();
	struct paired_policy p;

	for (size_t i = 0; known[i]; i++) {
		/* I1 misses are counted exactly, but a few cold misses decide nothing. */
		int is_info = strcmp(known[i], "cachesim.i1_misses") == 0;
		for (size_t k = 0; info[k]; k++)
			is_info |= strcmp(info[k], known[i]) == 0;
		paired_policy_for(known[i], &p);
		if (p.decides == is_info)
			fprintf(stderr, "%s: decides %d\n", known[i], p.decides);
		CHECK(p.decides == !is_info);
		/* Utilisation is the one figure that is better higher. */
		CHECK(p.lower_better == (strncmp(known[i], "census.mmu_", 11) != 0));
		/* Exact: Ir and the cache counts, the census counters (not the pause clock), the
		 * minimum heap. */
		CHECK(p.exact == (expected_resolution(known[i]) != 0 ||
		                  (strncmp(known[i], "census.", 7) == 0 &&
		                   !strstr(known[i], "pause") && !strstr(known[i], "mmu")) ||
		                  strcmp(known[i], "minheap.min_heap_mib") == 0));
		CHECK(p.resolution == expected_resolution(known[i]));
	}
	for (size_t k = 0; info[k]; k++) {
		paired_policy_for(info[k], &p);
		CHECK(!p.decides);
		/* Only a counter's running share is better higher; it never decides anyway. */
		CHECK(p.lower_better == (strstr(info[k], ".scale") == NULL &&
		                         strncmp(info[k], "census.mmu_", 11) != 0));
	}
	paired_policy_for("perf.instructions:u", &p);
	CHECK(p.decides && p.lower_better && !p.exact && p.resolution == 0);
}

static void test_lookup(void)
{
	const struct metric_info *m;

	/* Exact names first. */
	CHECK((m = metrics_lookup("valgrind.ir")) && strcmp(m->name, "valgrind.ir") == 0);
	CHECK(m && m->unit == METRIC_UNIT_INSTRUCTIONS && m->kind == RUN_KIND_VALGRIND);
	CHECK(m && m->cls == METRIC_CLASS_EXACT && m->resolution == 1e-5);
	CHECK((m = metrics_lookup("census.alloc_bytes")) && m->unit == METRIC_UNIT_BYTES);
	CHECK((m = metrics_lookup("census.pause_max_ns")) && m->unit == METRIC_UNIT_NS);
	CHECK(m && m->cls == METRIC_CLASS_INFO);
	/* Then the pattern with the most fixed characters: ".scale" beats a bare event. */
	CHECK((m = metrics_lookup("perf.instructions:u")) && strcmp(m->name, "perf.<event>") == 0);
	CHECK((m = metrics_lookup("perf.cycles:u.scale")) && m->unit == METRIC_UNIT_RATIO);
	CHECK((m = metrics_lookup("perf.a.b")) && strcmp(m->name, "perf.<event>") == 0);
	/* An event is at least one character. */
	CHECK(metrics_lookup("perf.") == NULL);
	CHECK((m = metrics_lookup("perf..scale")) && strcmp(m->name, "perf.<event>") == 0);
	/* Unknown names, and prefixes that are no metric, are nothing. */
	CHECK(metrics_lookup("census.no_such_field") == NULL);
	CHECK(metrics_lookup("census.") == NULL);
	CHECK(metrics_lookup("valgrind.ir2") == NULL);
	CHECK(metrics_lookup("time.wall") == NULL);
	CHECK(metrics_lookup("") == NULL);
	CHECK(!metrics_is_known("perf") && metrics_is_known("perf.task-clock"));
	CHECK(metrics_run_kind("valgrind.ir") == RUN_KIND_VALGRIND);
	CHECK(metrics_run_kind("time.wall_ns") == RUN_KIND_TIMED);
	CHECK(metrics_run_kind("no.such_metric") == RUN_KIND_TIMED);
	CHECK(metrics_is_census("census.barrier_recorded"));
	CHECK(!metrics_is_census("census.nope") && !metrics_is_census("memory.vm_hwm_bytes"));
}

/* Whether a profile gates time is the metric table's answer (ratchet's rounds, pin's runs). */
static void test_gates_time(void)
{
	enum metric_profile p;

	for (const char *const *name = metrics_profiles(); *name; name++)
		CHECK(metrics_profile_parse(*name, &p) == 0 &&
		      metrics_profile_gates_time(*name) ==
		          metrics_lookup("time.wall_ns")->band[p].gated);
	CHECK(metrics_profile_gates_time("pinned_host") &&
	      !metrics_profile_gates_time("shared_ci"));
	CHECK(!metrics_profile_gates_time("no_such_profile") && !metrics_profile_gates_time(""));
}

/* Every entry says everything; the census entries are gcr.h's fields, in its order. */
static void test_table(void)
{
#define CENSUS_NAME_(id, name) "census." name,
	static const char *const census[] = {GCR_CENSUS_FIELDS(CENSUS_NAME_) NULL};
#undef CENSUS_NAME_
	const char *const *known = metrics_known();
	const char *const *profiles = metrics_profiles();
	enum metric_profile p;
	size_t n, c = 0;
	const struct metric_info *t = metrics_table(&n);

	for (size_t i = 0; i < n; i++) {
		const struct metric_info *m = &t[i];
		CHECK(metrics_lookup(m->name) == m);
		CHECK(strcmp(metrics_unit_name(m->unit), "?") != 0);
		CHECK(strcmp(metrics_direction_name(m->better), "?") != 0);
		CHECK(strcmp(metrics_class_name(m->cls), "?") != 0);
		CHECK(strcmp(metrics_nature_name(m->nature), "?") != 0);
		CHECK(m->kind == RUN_KIND_TIMED || m->kind == RUN_KIND_VALGRIND);
		CHECK(m->ab_decides == 0 || m->ab_decides == 1);
		CHECK(m->resolution >= 0 && m->resolution < 0.01);
		/* An info metric never decides anything. */
		if (m->cls == METRIC_CLASS_INFO)
			CHECK(!m->ab_decides && !m->band[0].gated && !m->band[1].gated);
		for (int k = 0; k < METRIC_PROFILE_COUNT; k++)
			CHECK(m->band[k].pct >= 0 && m->band[k].abs >= 0);
		/* gcr.h's fields in its order, then the pause log's figures. */
		if (strncmp(m->name, "census.", 7) == 0 && census[c]) {
			CHECK(strcmp(census[c], m->name) == 0);
			c++;
		} else if (strncmp(m->name, "census.", 7) == 0) {
			CHECK(strncmp(m->name, "census.pause_", 13) == 0 ||
			      strncmp(m->name, "census.mmu_", 11) == 0 ||
			      strcmp(m->name, "census.trigger_<name>") == 0);
		}
	}
	CHECK(census[c] == NULL);
	for (size_t i = 0; known[i]; i++)
		CHECK(metrics_lookup(known[i]) &&
		      strcmp(metrics_lookup(known[i])->name, known[i]) == 0);
	CHECK(strcmp(profiles[METRIC_PROFILE_SHARED_CI], "shared_ci") == 0);
	CHECK(strcmp(profiles[METRIC_PROFILE_PINNED_HOST], "pinned_host") == 0);
	CHECK(profiles[METRIC_PROFILE_COUNT] == NULL);
	CHECK(metrics_profile_parse("pinned_host", &p) == 0 && p == METRIC_PROFILE_PINNED_HOST);
	CHECK(metrics_profile_parse("nightly", &p) != 0);
	CHECK_STR(metrics_unit_name((enum metric_unit)99), "?");
	CHECK_STR(metrics_class_name((enum metric_class) - 1), "?");
}

/*
 * Cost or behaviour: what `ab --across` may still judge between two designs. Costs are the
 * yardsticks every design is measured by alike (time, instructions, the cache simulation,
 * memory as the kernel counts it, perf counts); the census is each collector's own account.
 */
static void test_nature(void)
{
	static const char *const costs[] = {
	    "time.wall_ns",        "time.user_ns",
	    "time.sys_ns",         "rss.peak_bytes",
	    "memory.vm_hwm_bytes", "memory.rss_anon_bytes",
	    "valgrind.ir",         "cachesim.d1_misses",
	    "cachesim.ll_misses",  "cachesim.est_cycles",
	    "os.minor_faults",     "perf.instructions:u",
	    "perf.task-clock",     NULL,
	};
	static const char *const behaviour[] = {
	    "census.minor_collections",
	    "census.major_collections",
	    "census.alloc_bytes",
	    "census.copied_bytes",
	    "census.promoted_objects",
	    "census.freed_bytes",
	    "census.heap_committed_peak_bytes",
	    "census.heap_used_after_full_bytes",
	    "census.barrier_recorded",
	    "census.pause_total_ns",
	    NULL,
	};
	size_t n;
	const struct metric_info *t = metrics_table(&n);

	for (size_t i = 0; costs[i]; i++) {
		CHECK(metrics_lookup(costs[i]) &&
		      metrics_lookup(costs[i])->nature == METRIC_NATURE_COST);
		CHECK(!metrics_is_behaviour(costs[i]));
	}
	for (size_t i = 0; behaviour[i]; i++)
		CHECK(metrics_is_behaviour(behaviour[i]));
	/*
	 * The whole census is behaviour, and so is a minimum heap (the heap as that collector
	 * counts it); nothing else is: a field added to gcr.h too.
	 */
	for (size_t i = 0; i < n; i++)
		CHECK((t[i].nature == METRIC_NATURE_BEHAVIOUR) ==
		      (strncmp(t[i].name, "census.", 7) == 0 ||
		       strcmp(t[i].name, "minheap.min_heap_mib") == 0));
	/* A name the harness cannot produce is no behaviour: ab shows it as info anyway. */
	CHECK(!metrics_is_behaviour("census.no_such_field"));
	CHECK(!metrics_is_behaviour("no.such_metric"));
	/* A histogram bucket is a sample, never an A/B cell of its own; nothing else is one. */
	CHECK(metrics_is_bucket("census.pause_hist_17"));
	CHECK(metrics_lookup("census.pause_hist_17") &&
	      metrics_lookup("census.pause_hist_17")->unit == METRIC_UNIT_COUNT);
	CHECK(!metrics_is_bucket("census.pause_p99_ns"));
	CHECK(!metrics_is_bucket("census.pause_hist_"));
	/*
	 * Collections by cause: the collector's account (behaviour), exact, a cell of ab that
	 * never decides (the counts it breaks down do), recorded and never gated by a profile.
	 */
	{
		const struct metric_info *m = metrics_lookup("census.trigger_allocation");
		CHECK(m && strcmp(m->name, "census.trigger_<name>") == 0);
		CHECK(m && m->cls == METRIC_CLASS_EXACT && m->nature == METRIC_NATURE_BEHAVIOUR &&
		      m->unit == METRIC_UNIT_COUNT && m->better == METRIC_BETTER_NEITHER &&
		      !m->ab_decides && !m->band[0].gated && !m->band[1].gated);
		CHECK(metrics_is_census("census.trigger_heap_limit"));
		CHECK(!metrics_is_bucket("census.trigger_heap_limit"));
		CHECK(!metrics_is_known("census.trigger_"));
	}
	CHECK_STR(metrics_nature_name(METRIC_NATURE_COST), "cost");
	CHECK_STR(metrics_nature_name(METRIC_NATURE_BEHAVIOUR), "behaviour");
	CHECK_STR(metrics_nature_name((enum metric_nature)7), "?");
}

static const char *fmt(const char *metric, double v)
{
	static char buf[24];

	metrics_format_value(metric, v, buf, sizeof buf);
	return buf;
}

static void test_format(void)
{
	char tiny[8];

	/* Bytes in binary units; GiB with three decimals, so that 1 MiB shows. */
	CHECK_STR(fmt("rss.peak_bytes", 0), "0 B");
	CHECK_STR(fmt("rss.peak_bytes", -0.0), "0 B");
	CHECK_STR(fmt("rss.peak_bytes", 1023), "1023 B");
	CHECK_STR(fmt("rss.peak_bytes", 1536), "1.5 KiB");
	CHECK_STR(fmt("rss.peak_bytes", 4 * MIB), "4.00 MiB");
	CHECK_STR(fmt("rss.peak_bytes", -4 * MIB), "-4.00 MiB");
	CHECK_STR(fmt("memory.vm_hwm_bytes", 1024 * MIB + MIB), "1.001 GiB");
	CHECK_STR(fmt("memory.vm_hwm_bytes", 1e17), "93132257.462 GiB");
	/* Time. */
	CHECK_STR(fmt("time.wall_ns", 0), "0 ns");
	CHECK_STR(fmt("time.wall_ns", 999), "999 ns");
	CHECK_STR(fmt("time.wall_ns", 1500), "1.5 us");
	CHECK_STR(fmt("time.user_ns", 2e6), "2.00 ms");
	CHECK_STR(fmt("time.user_ns", -2.5e6), "-2.50 ms");
	CHECK_STR(fmt("census.pause_max_ns", 1234567890), "1.235 s");
	/* Exact metrics show every digit, bytes included: they are compared to the last unit. */
	CHECK_STR(fmt("census.alloc_bytes", 76000512), "76000512");
	CHECK_STR(fmt("census.alloc_bytes", -200), "-200");
	CHECK_STR(fmt("valgrind.ir", 543167610), "543167610");
	CHECK_STR(fmt("valgrind.ir", 1e17), "100000000000000000");
	CHECK_STR(fmt("census.minor_collections", 2.5), "2.5");
	CHECK_STR(fmt("census.minor_collections", 12345.5), "12345.5");
	/* Counts and ratios; unknown metrics are plain numbers, whatever their name says. */
	CHECK_STR(fmt("os.minor_faults", 0), "0");
	CHECK_STR(fmt("perf.cycles:u.scale", 0.25), "0.25");
	CHECK_STR(fmt("perf.cycles:u.scale", 1.0 / 3), "0.3333");
	CHECK_STR(fmt("no.such_bytes", 4 * MIB), "4194304");
	/* Missing, infinite, huge. */
	CHECK_STR(fmt("rss.peak_bytes", NAN), "-");
	CHECK_STR(fmt("valgrind.ir", NAN), "-");
	CHECK_STR(fmt("rss.peak_bytes", INFINITY), "inf");
	CHECK_STR(fmt("time.wall_ns", -INFINITY), "-inf");
	CHECK_STR(fmt("census.alloc_bytes", INFINITY), "inf");
	CHECK_STR(fmt("rss.peak_bytes", 1e300), "1e+300");
	CHECK_STR(fmt("time.wall_ns", -1.5e20), "-1.5e+20");
	CHECK_STR(fmt("valgrind.ir", 1e18), "1e+18");
	CHECK_STR(fmt("os.minor_faults", -123456789012345678.5), "-123456789012345680");
	CHECK_STR(fmt("os.minor_faults", -987654321.5), "-987654321.5");
	CHECK(metrics_display_unit("rss.peak_bytes") == METRIC_UNIT_BYTES);
	CHECK(metrics_display_unit("census.alloc_bytes") == METRIC_UNIT_COUNT);
	CHECK(metrics_display_unit("census.pause_total_ns") == METRIC_UNIT_NS);
	CHECK(metrics_display_unit("no.such_ns") == METRIC_UNIT_COUNT);
	/* A small buffer is cut, never overrun. */
	metrics_format_value("valgrind.ir", 543167610, tiny, sizeof tiny);
	CHECK_STR(tiny, "5431676");
}

static const char *fmt_short(const char *metric, double v)
{
	static char buf[24];

	metrics_format_short(metric, v, buf, sizeof buf);
	return buf;
}

/* A terminal's figures: counts whole (no run counted half an instruction), large ones scaled. */
static void test_format_short(void)
{
	CHECK_STR(fmt_short("valgrind.ir", 363531359), "363.5M");
	CHECK_STR(fmt_short("valgrind.ir", 3635321.6), "3.6M");
	CHECK_STR(fmt_short("valgrind.ir", 17364019.4), "17.4M");
	CHECK_STR(fmt_short("valgrind.ir", 1234567890), "1.23G");
	CHECK_STR(fmt_short("valgrind.ir", 999999999), "1.00G");
	CHECK_STR(fmt_short("valgrind.ir", 999949), "999.9k");
	CHECK_STR(fmt_short("valgrind.ir", 999950), "1.0M");
	CHECK_STR(fmt_short("valgrind.ir", 120345), "120.3k");
	CHECK_STR(fmt_short("valgrind.ir", 99999), "99999");
	CHECK_STR(fmt_short("valgrind.ir", 2326.5), "2327");
	CHECK_STR(fmt_short("census.minor_collections", 2.5), "3");
	CHECK_STR(fmt_short("os.minor_faults", -14.4), "-14");
	CHECK_STR(fmt_short("os.minor_faults", -0.4), "0");
	CHECK_STR(fmt_short("perf.task-clock", -28408281), "-28.4M");
	/* Bytes and time scale by their unit, an exact one too; ratios keep their digits. */
	CHECK_STR(fmt_short("census.alloc_bytes", 76000512), "72.48 MiB");
	CHECK_STR(fmt_short("rss.peak_bytes", 4 * MIB), "4.00 MiB");
	CHECK_STR(fmt_short("census.pause_max_ns", 8.45e6), "8.45 ms");
	CHECK_STR(fmt_short("census.mmu_10ms", 0.1468), "0.1468");
	CHECK_STR(fmt_short("valgrind.ir", NAN), "-");
	CHECK_STR(fmt_short("valgrind.ir", 1e13), "1e+13");
}

static void test_format_pct(void)
{
	char buf[16];
	const struct {
		double pct;
		const char *text;
	} cases[] = {
	    {0, "0"},         {0.0004, "0.000"},  {0.00125, "0.00125"}, {9.876, "9.88"},
	    {10, "10"},       {51.5, "51.5"},     {999.4, "999"},       {999.5, "1000"},
	    {1231.2, "1231"}, {123456, "123456"}, {-12.34, "-12.3"},
	};

	/* A band widened for a very noisy cell shows its whole part, never an exponent. */
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		metrics_format_pct(cases[i].pct, buf, sizeof buf);
		CHECK_STR(buf, cases[i].text);
	}
}

/* The one rule of a valid value (issue 25, item 15), by unit; its message names the metric. */
static void test_value_check(void)
{
	struct err e;

	CHECK(metrics_value_check("census.alloc_bytes", 0, RUN_KIND_TIMED, &e) == 0);
	CHECK(metrics_value_check("census.alloc_bytes", 9007199254740992.0, RUN_KIND_TIMED, &e) ==
	      0);
	CHECK(metrics_value_check("census.alloc_bytes", -1, RUN_KIND_TIMED, &e) != 0);
	CHECK(e.code == ERR_INVALID);
	CHECK_STR(e.msg, "census.alloc_bytes is -1, but a size in bytes is never negative");
	CHECK(metrics_value_check("census.major_collections", -0.5, RUN_KIND_TIMED, &e) != 0);
	CHECK_STR(e.msg, "census.major_collections is -0.5, but a count is never negative");
	CHECK(metrics_value_check("time.wall_ns", -1e9, RUN_KIND_TIMED, &e) != 0);
	CHECK(strstr(e.msg, "a time in ns is never negative") != NULL);
	CHECK(metrics_value_check("valgrind.ir", -3, RUN_KIND_TIMED, &e) != 0);
	CHECK(strstr(e.msg, "an instruction count is never negative") != NULL);
	CHECK(metrics_value_check("perf.cycles:u", -3, RUN_KIND_TIMED, &e) != 0);
	CHECK(metrics_value_check("census.pause_hist_12", -3, RUN_KIND_TIMED, &e) != 0);
	/* -0 is 0. */
	CHECK(metrics_value_check("census.alloc_bytes", -0.0, RUN_KIND_TIMED, &e) == 0);
	/* Ratios are shares. */
	CHECK(metrics_value_check("census.mmu_10ms", 1, RUN_KIND_TIMED, &e) == 0);
	CHECK(metrics_value_check("census.mmu_10ms", 0, RUN_KIND_TIMED, &e) == 0);
	CHECK(metrics_value_check("census.mmu_10ms", 1.5, RUN_KIND_TIMED, &e) != 0);
	CHECK_STR(e.msg, "census.mmu_10ms is 1.5, but a ratio is from 0 to 1");
	CHECK(metrics_value_check("perf.cycles:u.scale", -0.1, RUN_KIND_TIMED, &e) != 0);
	/* Not finite: never a value, whatever the metric, known or not. */
	CHECK(metrics_value_check("census.alloc_bytes", NAN, RUN_KIND_TIMED, &e) != 0);
	CHECK_STR(e.msg, "census.alloc_bytes is NaN, not a finite number");
	CHECK(metrics_value_check("census.alloc_bytes", INFINITY, RUN_KIND_TIMED, &e) != 0);
	CHECK_STR(e.msg, "census.alloc_bytes is +infinity, not a finite number");
	CHECK(metrics_value_check("time.wall_ns", -INFINITY, RUN_KIND_TIMED, &e) != 0);
	CHECK_STR(e.msg, "time.wall_ns is -infinity, not a finite number");
	CHECK(metrics_value_check("no.such_metric", NAN, RUN_KIND_TIMED, &e) != 0);
	CHECK(metrics_value_check("no.such_metric", -5, RUN_KIND_TIMED, &e) == 0);
	/* A per-iteration figure is a difference of two runs': noise makes it negative. */
	CHECK(metrics_value_check("time.wall_ns", -11830.6, RUN_KIND_PER_ITERATION, &e) == 0);
	CHECK(metrics_value_check("valgrind.ir", -3, RUN_KIND_VALGRIND_PER_ITERATION, &e) == 0);
	CHECK(metrics_value_check("census.mmu_10ms", -0.5, RUN_KIND_PER_ITERATION, &e) == 0);
	CHECK(metrics_value_check("time.wall_ns", NAN, RUN_KIND_PER_ITERATION, &e) != 0);
	/* Every fixed metric of the table takes 0: no unit is left out of the rule. */
	for (const char *const *m = metrics_known(); *m; m++)
		CHECK(metrics_value_check(*m, 0, RUN_KIND_TIMED, &e) == 0);
}

/*
 * The host facts each metric moves with (issue 43): Ir and the census never with the CPU model
 * (another VM of the same kind is not stale for shared_ci), time with every fact, memory with
 * libc and the page size; every entry names at least the architecture.
 */
static void test_host_facts(void)
{
	size_t n;
	const struct metric_info *t = metrics_table(&n);
	const unsigned cpu = HOSTINFO_FACT_BIT(HOSTINFO_FACT_CPU_MODEL);

	for (size_t i = 0; i < n; i++)
		CHECK(t[i].host_facts & HOSTINFO_FACT_BIT(HOSTINFO_FACT_ARCH));
	CHECK(!(metrics_host_facts("valgrind.ir") & cpu));
	CHECK(!(metrics_host_facts("census.alloc_bytes") & cpu));
	CHECK(!(metrics_host_facts("rss.peak_bytes") & cpu));
	CHECK(!(metrics_host_facts("memory.vm_hwm_bytes") & cpu));
	CHECK(metrics_host_facts("valgrind.ir") & HOSTINFO_FACT_BIT(HOSTINFO_FACT_LIBC));
	CHECK(metrics_host_facts("rss.peak_bytes") & HOSTINFO_FACT_BIT(HOSTINFO_FACT_PAGE_SIZE));
	CHECK(metrics_host_facts("time.wall_ns") == HOSTINFO_FACTS_ALL);
	CHECK(metrics_host_facts("perf.cycles:u") & cpu);
	CHECK(metrics_host_facts("census.pause_p99_ns") & cpu);
	CHECK(metrics_host_facts("no.such_metric") == HOSTINFO_FACTS_ALL);
}

int main(void)
{
	test_host_facts();
	test_value_check();
	test_format();
	test_format_short();
	test_format_pct();
	test_lookup();
	test_table();
	test_nature();
	test_default_rules();
	test_paired_policies();
	test_gates_time();
	return unit_done("test_metrics");
}
