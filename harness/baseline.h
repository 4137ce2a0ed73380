/*
 * baseline.h — baseline profiles: the committed JSON files `check` judges a session against,
 * and the band arithmetic that decides each cell.
 *
 * A profile file (format "gcratchet-baseline", version 1; README "Baseline files") holds the
 * identity of the build and host it was pinned on, the size and meters, one rule per metric,
 * the checksum each probe must print, and the pinned cells (probe x metric: median, min, max,
 * n). baselines/<profile>/<collector>.json is where `check` looks.
 *
 * Band arithmetic: allowance = max(|baseline| * band_pct / 100, band_abs). The "bad" delta is
 * the change in the rule's bad direction (increase: current - baseline; decrease: baseline -
 * current; either: |current - baseline|). A gated cell regresses when bad delta > allowance;
 * share used = bad delta / allowance. Liveness: a census counter that was above zero and is
 * zero now regresses whatever its direction (the probe stopped causing that activity).
 *
 * Invariants of a baseline (baseline_check; every loaded baseline and every one written meets
 * them): the size is ci, default, large or n=N1,N2; the meters are known (rusage, census,
 * perf, valgrind), each once; session and repeats are >= 1; every rule names a known metric,
 * once, with band_pct >= 0 and band_abs >= 0; every probe has a checksum of "0x" and 16
 * lowercase hex digits; every cell is pinned once, has a rule and a probe entry, n >= 1 and
 * min <= median <= max, and a min_spread, when there is one, from 0 to max - min, sessions, when
 * recorded, from 1 to n; every override
 * names a pinned cell, once, has a rationale and
 * evidence (runs >= 2, spread >= 0); every ledger entry names a pinned cell and has values,
 * a reason, a date and who; an accepted noise has a reason, a date and who. "overrides",
 * "ledger" and "noise_accepted" may be absent (empty). Integers are below 2^53 (they travel
 * as JSON numbers). "toolchain" (toolchain.h: compiler, version, flags, valgrind) may be
 * absent in a baseline pinned before it was recorded: unknown; when present its compiler,
 * version and flags are not empty. A rule's class agrees with its fields: info exactly when it
 * is not gated, exact only with a band of 0 (and no live floor); band_live_pct >= 0. "vary_env"
 * may be absent; when present it names at least 2 distinct sessions >= 1, the baseline's
 * "session" among them, and a pad step >= 0. "functions" may be absent; when present each entry
 * names a probe of "probes", once, with at most BASELINE_FUNCTIONS_TOP functions that meet
 * fnprof.h's invariants (names once, ordered, Ir >= 0, their sum at most the probe's "ir").
 */
#ifndef BASELINE_H
#define BASELINE_H

#include <stddef.h>
#include <stdint.h>

#include "caps.h"
#include "fnprof.h"
#include "hostinfo.h"
#include "toolchain.h"
#include "util.h"

#define BASELINE_FORMAT  "gcratchet-baseline"
#define BASELINE_VERSION 1

enum baseline_direction { BASELINE_INCREASE, BASELINE_DECREASE, BASELINE_EITHER };

/*
 * How a rule's figures can be compared (docs/baselines.md, a section per class):
 * - EXACT: deterministic for one build and toolchain: a band of 0, any change decides;
 * - BANDED: moves by a known amount from run to run or host to host: a percentage with an
 *   absolute floor;
 * - QUANTILE: the class of files pinned before DIST: check compares the session's smallest run
 *   with the pinned cell's smallest (min of N), within the band. pin no longer writes it: it
 *   passed a third more collections of a runtime whose counts vary (docs/baselines.md);
 * - DIST: a figure that varies from run to run (a clock-paced runtime's counts, a conservative
 *   collector's heap, a census counter whose pinning runs spread): the cell keeps its pinning
 *   runs, and check compares the session's runs with them (dist.h): a rank test whose false
 *   alarms are held to CHECK_DIST_ALPHA over every such cell of a check, and a shift beyond
 *   the band, which is then the smallest effect worth reporting, not a tolerance;
 * - INFO: recorded, never decides (time on a shared host).
 * A rule read without a "class" (a file pinned before classes) gets the one its fields imply
 * (baseline_class_derive), so it is judged as it always was.
 */
enum baseline_class {
	BASELINE_CLASS_EXACT,
	BASELINE_CLASS_BANDED,
	BASELINE_CLASS_QUANTILE,
	BASELINE_CLASS_DIST,
	BASELINE_CLASS_INFO,
};

struct baseline_rule {
	char *metric;
	int gated;
	enum baseline_direction direction; /* which change is a regression */
	double band_pct;
	double band_abs;
	enum baseline_class cls;
	/*
	 * > 0: the cell's floor is at least this percent of the same probe's pinned live set
	 * (census.heap_used_after_full_bytes, its median): an RSS band that grows with what the
	 * probe keeps, not a flat one that hides a retention on a small heap. 0: none.
	 */
	double band_live_pct;
};

struct baseline_probe {
	char *name;
	char *checksum;
	/* Knobs this probe's pinning runs had beyond the baseline's (a sweep arm's heap limit) */
	struct strlist knobs;
};

struct baseline_cell {
	char *probe;
	char *metric;
	double median, min, max;
	int64_t n;
	/*
	 * A quantile cell pinned from several sessions (--vary-env): the largest session's min
	 * less the smallest, how far the figure check compares moved between environments.
	 * has_min_spread 0: pinned from one session, unknown ("min_spread" absent).
	 */
	int has_min_spread;
	double min_spread;
	/* How many sessions the cell's n runs come from (its evidence); 0: not recorded. */
	int64_t sessions;
	/*
	 * A distribution cell's pinning runs ("runs"), ascending, nruns == n: what check compares
	 * a session's runs with. NULL and 0 for every other class.
	 */
	double *runs;
	size_t nruns;
};

/*
 * A per-cell override of its metric's rule, with why and the measurements that justify it:
 * a wider band for one noisy cell is a decision, and the file says who decided it on what.
 */
struct baseline_override {
	char *probe, *metric;
	struct baseline_rule rule; /* gated, direction and bands; rule.metric is the metric */
	char *rationale;
	int64_t evidence_runs;      /* how many runs the observed spread comes from (>= 2) */
	double evidence_spread_pct; /* (max - min) / median of those runs, in percent */
	int widened_for_noise;      /* 1: pin widened it because the host spread the runs */
};

/*
 * Why a baseline was pinned although its host spread gated time cells beyond the profile's
 * band (baseline pin --accept-noise): the widened cells then gate little, and the file says
 * who decided that and why. reason NULL: no noise was accepted.
 */
struct baseline_noise {
	char *reason;
	char *date; /* UTC, ISO 8601 */
	char *who;
};

/* An accepted regression: a cell loosened on purpose, on the record. */
struct baseline_ledger_entry {
	char *probe, *metric;
	double old_value, new_value;
	char *reason;
	char *ref;  /* a link to the discussion, or NULL */
	char *date; /* UTC, ISO 8601 */
	char *who;
};

/*
 * Where a probe's instructions went in the pinning runs ("functions": optional, absent in a
 * baseline pinned before it was recorded): its BASELINE_FUNCTIONS_TOP largest functions
 * (fnprof.h), each the median over the pinning valgrind runs, and prof.total_ir the probe's Ir
 * (their median). check and ratchet diff a regressed Ir cell's session against it; explain too.
 */
#define BASELINE_FUNCTIONS_TOP 20
struct baseline_functions {
	char *probe;
	struct fnprof prof;
};

/*
 * How `baseline pin --vary-env N` measured (docs/baselines.md, "--vary-env"): N sessions, each
 * in an environment padded by `pad_step_bytes` more than the one before (session i: i * step)
 * with address-space randomisation on for timed runs, their runs pooled per cell. nsessions 0:
 * pinned from one session.
 */
struct baseline_vary_env {
	int64_t *sessions;
	size_t nsessions;
	int64_t pad_step_bytes;
};

struct baseline {
	char *profile;
	char *collector, *collector_version, *git_commit;
	char *host_fingerprint, *hostname;
	/*
	 * "host.facts": what the pinning host was, beyond its fingerprint (hostinfo.h), so that
	 * check can name what differs on another; host_facts_known 0: a file pinned before they
	 * were kept. A fact the pinning session did not record is NULL in it.
	 */
	struct hostinfo_facts host_facts;
	int host_facts_known;
	struct toolchain toolchain; /* what built and measured the pinned build; cc unset */
	char *pinned_at;
	int64_t session;
	char *size;
	struct strlist meters;
	int64_t repeats;
	/*
	 * "sensitivity_pct" (optional): the change in percent every gated cell should see: check's
	 * target for naming a cell INSENSITIVE, and the change ratchet measures enough runs to
	 * see (ratchet --sensitivity overrides it). 0: absent (check: CHECK_INSENSITIVE_PCT;
	 * ratchet: only the runs a cell near its edge needs). A re-pin keeps it.
	 */
	double sensitivity_pct;
	struct baseline_rule *rules;
	size_t nrules;
	struct baseline_probe *probes;
	size_t nprobes;
	struct baseline_cell *cells;
	size_t ncells;
	struct baseline_override *overrides;
	size_t noverrides;
	struct baseline_ledger_entry *ledger;
	size_t nledger;
	/*
	 * What the cells depend on besides the code, each unknown when the file does not say:
	 * the knobs the pinning runs had (NAME=VALUE; knobs_known 0: not recorded), the THP
	 * condition (thp_known 0: not recorded), what the build said it does.
	 */
	struct strlist knobs;
	int knobs_known;
	struct hostinfo_thp thp; /* "thp": its condition and the host's modes (hostinfo.h) */
	int thp_known;
	struct caps caps;
	struct baseline_noise noise;          /* "noise_accepted" */
	struct baseline_vary_env vary_env;    /* "vary_env", absent when pinned from one session */
	struct baseline_functions *functions; /* "functions", by probe; nfunctions 0: absent */
	size_t nfunctions;
};

/*
 * Parses and validates a profile (the strict reader of json.h, then baseline_check). `path`
 * names the file in messages: a syntax error or a duplicate key gives path:line:column, a
 * semantic one path and the JSON path of the field, and what was expected.
 */
int baseline_parse(const char *text, const char *path, struct baseline *out, struct err *e);
int baseline_load(const char *path, struct baseline *out, struct err *e);
void baseline_release(struct baseline *b);
/*
 * The invariants above, on a baseline however it was made. -1 with "JSON.PATH: what" (no file
 * name: the caller knows where the baseline came from or is going). Whoever writes a baseline
 * file checks it first: a baseline that fails its check is never written.
 */
int baseline_check(const struct baseline *b, struct err *e);
/*
 * A gated cell whose own pinned runs already spread beyond its allowance (in its rule's bad
 * direction, from the median) would fail check on the very runs it was pinned from: its band
 * says more than the measurements can hold. -1 (ERR_INVALID) naming the first such cell, its
 * spread and its allowance. `baseline validate` runs it; pin never writes such a cell (it
 * widens it with an evidenced override).
 */
int baseline_check_spread(const struct baseline *b, struct err *e);
/*
 * A rule is no looser than what the file's own record justifies (docs/baselines.md, "What a
 * hand edit must justify"). The reference is the rule pin writes, baseline_default_rules for
 * the file's profile and its "capabilities" (absent: unknown, the least a build could be).
 * A rule looser than that (a wider band_pct, band_abs or band_live_pct, gated -> not gated, a
 * direction that stops watching the side pin watches, a class that compares less: exact <
 * banded < quantile < info) judges no cell of its own: every cell of its metric has an
 * override, which has a rationale (baseline_check). An override looser than pin's rule by its
 * band or class is what a measured spread justifies: its evidence saw one (spread_pct > 0).
 * Tighter is always fine. -1 (ERR_INVALID) naming the rule and the cell, or the override, and
 * the rule pin writes; also for a profile without default rules.
 */
int baseline_check_justified(const struct baseline *b, struct err *e);
/*
 * Everything a baseline is held to before anything is judged with it or written: baseline_check,
 * baseline_check_spread and baseline_check_justified, in that order. `baseline validate`,
 * check, ratchet and update run it on the file they read (judge_baseline_load); pin and update
 * on the file they write. -1 with the first failure's message (no file name).
 */
int baseline_validate(const struct baseline *b, struct err *e);
/*
 * How far one cell's pinned runs reach in its rule's bad direction from the figure its class
 * compares (a quantile cell: the median's distance from the min), and in *allowance the
 * cell's allowance; 0 and INFINITY for a cell that is not gated.
 */
double baseline_cell_spread(const struct baseline *b, const struct baseline_cell *c,
                            double *allowance);
/* The file text of a baseline: stable key order, one cell per line; newly allocated. */
char *baseline_serialize(const struct baseline *b);

const struct baseline_rule *baseline_rule_for(const struct baseline *b, const char *metric);
/* The rule that judges one cell: its override when there is one, else its metric's rule. */
const struct baseline_rule *baseline_rule_for_cell(const struct baseline *b, const char *probe,
                                                   const char *metric);
struct baseline_cell *baseline_cell_find(const struct baseline *b, const char *probe,
                                         const char *metric);
/*
 * Appends an entry to the ledger: `cell` loosened from its median to new_value, accepted for
 * `reason` (ref may be NULL) on `date` by `who`; the strings are copied.
 */
void baseline_ledger_add(struct baseline *b, const struct baseline_cell *cell, double new_value,
                         const char *reason, const char *ref, const char *date, const char *who);
const char *baseline_probe_checksum(const struct baseline *b, const char *probe);
/* The pinned profile of a probe's functions, or NULL when the baseline keeps none for it. */
const struct fnprof *baseline_functions_of(const struct baseline *b, const char *probe);
/* Sets (or replaces) the pinned profile of `probe`: a copy of prof, cut to the top. */
void baseline_functions_set(struct baseline *b, const char *probe, const struct fnprof *prof);

/*
 * The default rules of a named profile ("shared_ci", "pinned_host") for the given metric
 * names, in that order, for a build that does what `caps` says: the metric table's band for
 * the profile (metrics.c), then the rules from facts (below). -1 with a message naming the
 * valid profiles when the profile is unknown.
 */
int baseline_default_rules(const char *profile, const struct caps *caps, const char *const *metrics,
                           size_t n, struct baseline_rule **out, struct err *e);
/*
 * The rules from facts, for a reader (`gcratchet list metrics`): row i's fact ("clock_paced"),
 * the metrics it applies to, the class they then get and why. Static strings.
 */
size_t baseline_fact_rules_count(void);
void baseline_fact_rule_text(size_t i, const char **fact, const char **metrics, const char **cls,
                             const char **why);
/*
 * 1 for a figure that depends on where things lie in memory as much as on what the collector
 * does: RSS, the heap, collection counts and every census counter but alloc_*, and the minimum
 * heap. For a build whose retention is not exact (caps_exact_retention), another compiler or
 * flags move it as they move Ir (bdwgc built by clang: probe 11's committed heap +33.5%), so
 * under another toolchain it is not comparable.
 */
int baseline_metric_layout_sensitive(const char *metric);

/* The class a rule's fields imply: info when not gated, exact with a zero band, else banded. */
enum baseline_class baseline_class_derive(const struct baseline_rule *r);
const char *baseline_class_name(enum baseline_class c);
/* -1 when `name` is no class. */
int baseline_class_parse(const char *name, enum baseline_class *out);
/*
 * The rule that judges one cell with its live floor applied (band_abs raised to band_live_pct
 * of the probe's pinned live set): a copy in *out, whose metric points into b. -1 when the
 * metric has no rule.
 */
int baseline_cell_rule(const struct baseline *b, const char *probe, const char *metric,
                       struct baseline_rule *out);
/*
 * The least band of a distribution rule, in percent: a shift smaller than this is not worth
 * reporting, however many runs show it (a collection more in twenty is the host's load as
 * often as the code).
 */
#define BASELINE_DIST_MIN_PCT 5.0
/*
 * 1 for a figure that a build's run-to-run variation moves as a whole distribution: the
 * census counters and the resident-memory figures. When their pinning runs spread, pin makes
 * them class distribution; Ir and time keep a band widened for their spread.
 */
int baseline_metric_distributional(const char *metric);
/* Sets a cell's "runs" to a sorted copy of v[0..n) (n 0: none). */
void baseline_cell_set_runs(struct baseline_cell *c, const double *v, size_t n);
/* The figure of a pinned cell its class compares: the min for quantile, else the median. */
double baseline_cell_value(const struct baseline_cell *c, enum baseline_class cls);
/* The names of the profiles that have defaults; NULL-terminated, static. */
const char *const *baseline_profiles(void);

enum baseline_verdict {
	BASELINE_OK,        /* within the allowance */
	BASELINE_IMPROVED,  /* beyond the allowance in the good direction */
	BASELINE_REGRESSED, /* beyond the allowance in the bad direction, or went inert */
	BASELINE_INFO,      /* not gated: shown, never decides */
};

struct baseline_judgement {
	double delta;     /* current - baseline */
	double delta_pct; /* 100 * delta / |baseline|; 0 when both are 0, inf when only base is */
	double allowance;
	double used;    /* bad delta / allowance: 1.0 is the edge; may be negative or inf */
	int went_inert; /* liveness failure */
	enum baseline_verdict verdict;
};

double baseline_allowance(const struct baseline_rule *r, double base);
void baseline_judge(const struct baseline_rule *r, double base, double current,
                    struct baseline_judgement *j);

const char *baseline_direction_name(enum baseline_direction d);
const char *baseline_verdict_name(enum baseline_verdict v);

#endif /* BASELINE_H */
