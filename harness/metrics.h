/*
 * metrics.h — everything a run can measure, and what each figure is: one table says, per
 * metric, its unit, the kind of run that measures it, which way is better, its determinism
 * class, whether it decides an A/B verdict, and its default band in each baseline profile.
 * Baselines, ab and every value formatter read it; nothing else says what a metric is
 * (docs/metrics.md).
 *
 * Metric names are "<meter group>.<what>_<unit>" and are stable: they key rows in the
 * database and rules in baseline profiles. Census metrics are "census.<field>" for every field
 * of GCR_CENSUS_FIELDS in gcr.h, then the pause log's figures ("census.pause_p99_ns",
 * "census.mmu_10ms", "census.pause_hist_<k>": docs/census-protocol.md) and the collections
 * by cause ("census.trigger_<name>", GCR_TRIGGERS in gcr.h); perf metrics are "perf.<event>" and "perf.<event>.scale" for
 * any event libpfm4 encodes.
 *
 * Invariants of the table:
 * - an entry's name is a metric name, or a pattern with one "<...>" standing for any
 *   non-empty text ("perf.<event>.scale");
 * - a name is looked up exactly first, then by the pattern with the most fixed characters;
 * - every census field of gcr.h has an entry of its own, in gcr.h's order (test_metrics).
 */
#ifndef METRICS_H
#define METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "hostinfo.h"
#include "run.h"
#include "runner.h"
#include "util.h"

struct metric {
	char *name;
	double value;
};

struct metric_set {
	struct metric *items;
	size_t n, cap;
};

void metric_set_add(struct metric_set *s, const char *name, double value);
/* Pointer to the value, or NULL when absent. */
const double *metric_set_get(const struct metric_set *s, const char *name);
/* Removes every value of `name` (none: nothing happens). */
void metric_set_remove(struct metric_set *s, const char *name);
void metric_set_release(struct metric_set *s);

/* Adds the external meters' figures of a finished run: time.*, rss.peak_bytes, os.*. */
void metrics_from_rusage(struct metric_set *s, const struct run_result *res);

enum metric_unit {
	METRIC_UNIT_BYTES,
	METRIC_UNIT_NS,
	METRIC_UNIT_COUNT,        /* events, faults, collections, objects */
	METRIC_UNIT_INSTRUCTIONS, /* valgrind's Ir */
	METRIC_UNIT_RATIO,        /* a share, 0..1 */
};

/* Which way is better; a change the other way is what a rule calls a regression. */
enum metric_direction {
	METRIC_BETTER_LOWER,   /* a cost */
	METRIC_BETTER_HIGHER,  /* a benefit */
	METRIC_BETTER_NEITHER, /* no side is better: a change either way is worth a look */
};

/* How a metric's values can be compared (docs/metrics.md, "Determinism classes"). */
enum metric_class {
	METRIC_CLASS_EXACT,    /* deterministic on one host and toolchain: equal or changed */
	METRIC_CLASS_BANDED,   /* moves run to run within a band: judged within pct, with a floor */
	METRIC_CLASS_QUANTILE, /* noisy with a tail: judged on medians and ranks of many runs */
	METRIC_CLASS_INFO,     /* shown, never judged: not a cost, or already in another figure */
};

/*
 * What a figure says. A cost is what running the probe took, measured the same way whichever
 * collector ran it (time, instructions, memory): lower is cheaper for any design. A behaviour
 * figure is the collector's account of its own work (collections, bytes copied or promoted,
 * barrier hits, its heap as it counts it): it tells how a design works, and two designs do
 * their work differently by intent, so between them it is context, not a verdict (`ab
 * --across`, docs/ab.md). Within one design a changed behaviour figure is still a finding.
 */
enum metric_nature {
	METRIC_NATURE_COST,
	METRIC_NATURE_BEHAVIOUR,
};

/* The baseline profiles that have default rules; the names are in metrics_profiles(). */
enum metric_profile { METRIC_PROFILE_SHARED_CI, METRIC_PROFILE_PINNED_HOST, METRIC_PROFILE_COUNT };

/* A default rule's band: allowance = max(|baseline| * pct / 100, abs), in the metric's unit. */
struct metric_band {
	int gated; /* 0: recorded, never decides a check */
	double pct;
	double abs;
	double live_pct; /* > 0: the floor is also this percent of the probe's pinned live set */
};

struct metric_info {
	const char *name; /* a metric name, or a pattern: see the invariants above */
	enum metric_unit unit;
	enum run_kind kind; /* RUN_KIND_TIMED or RUN_KIND_VALGRIND */
	enum metric_direction better;
	enum metric_class cls;
	enum metric_nature nature;
	/* 1: a difference can decide `ab`'s verdict; across designs, only a cost's (docs/ab.md) */
	int ab_decides;
	double resolution; /* relative: exact deltas within it count as no change */
	/*
	 * Absolute, in the metric's unit (from its unit: a page of bytes, else 0): a figure that
	 * varies from run to run is not called changed by ab within it (docs/ab.md).
	 */
	double resolution_abs;
	struct metric_band band[METRIC_PROFILE_COUNT];
	/*
	 * The host facts its figures move with (HOSTINFO_FACT_BIT of enum hostinfo_fact): a
	 * baseline pinned on a host that differs in one of them is STALE for a gated cell of it.
	 */
	unsigned host_facts;
};

/*
 * The one rule of what value a metric can hold in a run of `kind`, from its unit: a finite
 * number; never negative in bytes, ns, counts or instructions; from 0 to 1 as a ratio. A
 * name the table does not know, and any metric of a per-iteration run (a difference of two
 * runs' figures, which noise can make negative: --two-n), need only be finite. The store
 * refuses to insert any other value and to read one back, and check judges none
 * (docs/storage.md). 0 when `v` is one; -1 with e (ERR_INVALID) saying what is wrong with
 * it, starting with the metric's name.
 */
int metrics_value_check(const char *metric, double v, enum run_kind kind, struct err *e);

/* The entry that describes `name`, or NULL for a name the harness cannot produce. */
const struct metric_info *metrics_lookup(const char *name);
/* The whole table, in its canonical order: fixed names first, then patterns. */
const struct metric_info *metrics_table(size_t *n);
/* 1 when `name` is a metric the harness can produce (census fields and perf events included). */
/* What to say after an unknown metric's name: "did you mean census.alloc_bytes? see gcratchet
 * list metrics" when a metric is near it, else just where to look. Returns buf. */
const char *metrics_hint(const char *typed, char *buf, size_t size);
int metrics_is_known(const char *name);
/* 1 for "census.<field>": the collector's own counters. */
int metrics_is_census(const char *name);
/* 1 for a behaviour figure (see enum metric_nature); 0 for a cost or an unknown name. */
int metrics_is_behaviour(const char *name);
/*
 * 1 for one bucket of a distribution ("census.pause_hist_<k>"): stored and exported like any
 * sample, drawn as a whole by the reports, never an A/B cell of its own (a bucket that one
 * run happens to use and its pair does not would leave the cell unpaired).
 */
int metrics_is_bucket(const char *name);
/* 1 for a time the harness measures around the probe (time.*): what pinned_host gates. */
int metrics_is_time(const char *name);
/* The host facts a metric moves with (metric_info.host_facts); all of them for an unknown name. */
unsigned metrics_host_facts(const char *name);
/* The kind of run a metric is measured by; RUN_KIND_TIMED for an unknown name. */
enum run_kind metrics_run_kind(const char *name);
/* All known fixed metric names in canonical order, NULL-terminated; static storage. */
const char *const *metrics_known(void);

/* "shared_ci", "pinned_host": indexed by enum metric_profile, NULL-terminated; static. */
const char *const *metrics_profiles(void);
/* -1 when `name` is no profile with default rules. */
int metrics_profile_parse(const char *name, enum metric_profile *out);
/*
 * 1 when profile `name` gates wall time (its default rule for time.wall_ns is gated): its pins
 * need more runs and a quiet host, and a ratchet measures as many. 0 for any other name.
 */
int metrics_profile_gates_time(const char *name);

/*
 * "bytes", "ns", ...; "lower", "higher", "neither"; "exact", "banded", "quantile", "info";
 * "cost", "behaviour".
 */
const char *metrics_unit_name(enum metric_unit u);
const char *metrics_direction_name(enum metric_direction d);
const char *metrics_class_name(enum metric_class c);
const char *metrics_nature_name(enum metric_nature n);

/*
 * The one human form of a metric's value, by its unit: bytes as B/KiB/MiB/GiB (GiB with
 * three decimals, so that a 1 MiB band stays visible), ns as ns/us/ms/s. An exact metric shows
 * every digit whatever its unit, because it is compared to the last unit. Otherwise a whole
 * number shows every digit, a fraction >= 100 one decimal, a smaller one four significant
 * digits; beyond 1e18, four significant digits. NaN (no value) is "-", infinities are "inf"
 * and "-inf". An unknown metric is a plain number. 24 bytes hold any output.
 */
void metrics_format_value(const char *metric, double v, char *buf, size_t size);
/*
 * The short form a terminal table shows (ab's and compare's text, check's text): bytes and
 * time as metrics_format_value scales them (an exact one too); a count or Ir as a whole number,
 * scaled from 100k on ("363.5M", "17.4M", "120.3k", "1.23G"); a ratio as metrics_format_value.
 * 24 bytes hold any output.
 */
void metrics_format_short(const char *metric, double v, char *buf, size_t size);
/*
 * The unit metrics_format_value shows a metric in: its own, but METRIC_UNIT_COUNT for an
 * exact or unknown metric. Axis labels use it to agree with the values.
 */
enum metric_unit metrics_display_unit(const char *metric);
/*
 * A band or spread in percent, without its sign or "%": three significant digits, but every
 * digit of the whole part from 1000 on (a band widened for a very noisy cell reads "1231", not
 * "1.23e+03"). 16 bytes hold any output.
 */
void metrics_format_pct(double pct, char *buf, size_t size);

#endif /* METRICS_H */
