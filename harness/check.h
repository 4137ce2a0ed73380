/*
 * check.h — the ratchet's judgement: one arm's runs in one stored session against a
 * baseline profile, as rows and one verdict. An arm, not a build: a session may run one build
 * as two arms (an A/A, or with a knob), and only the checked arm's runs are its sample. No I/O and no printing: `check` renders the
 * result (reports/report_check.h) and `baseline update` acts on it.
 *
 * Rows, in the baseline's probe order: for each probe, a CHECK_ROW_CHECKSUM row when a run
 * printed another result than the baseline's, a CHECK_ROW_PREMISE row when a run did not cause
 * the activity the probe exists to cause (both regressions whatever the cost figures say),
 * then one CHECK_ROW_CELL row per pinned cell of the probe. A cell is unjudged when any run of
 * its kind failed (the figures of the others are not a sample of the probe) or when no run
 * measured its metric.
 *
 * Trust: only a complete session against a baseline that gates something can be ok. A session
 * that is not complete, a baseline with no gated cell, or a session that measured none of the
 * baseline's probes at its size makes the whole check CHECK_VERDICT_UNJUDGED with the reason
 * in `why`; the rows are still judged, for what they show. With `strict`, a stale baseline
 * (pinned on another host or collector version) cannot pass either.
 *
 * Host: a baseline keeps the facts behind its host's fingerprint (hostinfo.h). It is stale for
 * a session whose host differs in a fact that some gated cell's metric depends on
 * (metrics_host_facts), naming each such fact, old and new; a fingerprint that differs only
 * in facts no gated cell depends on (another VM of the same kind: its hostname, its CPU model
 * for Ir and memory) is said nothing of, but with `strict`, which keeps its meaning: another
 * host is stale. A file pinned before facts were kept cannot say what differs: another host
 * is stale, saying so.
 *
 * Toolchain: Ir counts what the compiler emitted, so a build made by another compiler, major
 * version, flags or valgrind than the baseline's (toolchain.h) is stale first of all, and
 * every valgrind.* cell is unjudged as not comparable, never regressed, whatever --strict
 * says. The census counters of a build whose retention is exact stay judged: what a precise
 * collector does does not depend on the compiler. A conservative one's (caps.h) does: the scan
 * sees other stack frames, so its layout-sensitive cells (baseline_metric_layout_sensitive)
 * are not comparable either. Nothing is compared when either toolchain is unknown.
 *
 * Conditions: a session whose probes ran with other knobs than the baseline was pinned with
 * (a GCR_NURSERY_KB in the CI environment, a sweep arm's heap limit) cannot be judged against
 * it at all: the whole check is CHECK_VERDICT_UNJUDGED, naming the knobs. A plant's knob
 * (CHECK_PLANT_KNOBS: GCR_PLANT_IR, collectors/common/plant.h) is not a condition but the
 * change under test, a planted cost the check exists to catch: it is never compared. One measured under
 * another transparent huge page condition is stale, and its RSS cells are not comparable
 * (THP backs memory in 2 MiB pages).
 */
#ifndef CHECK_H
#define CHECK_H

#include <stddef.h>

#include "baseline.h"
#include "hostinfo.h"
#include "store.h"
#include "util.h"

/*
 * Distribution cells (baseline.h, BASELINE_CLASS_DIST; dist.h): the chance that a check of
 * unchanged code flags any of them is held to CHECK_DIST_ALPHA, however many it judges
 * (Holm's procedure over their one-sided rank-test p-values). A cell is REGRESSED when its
 * p-value survives that and its shift is beyond its band, the least effect worth reporting.
 */
#define CHECK_DIST_ALPHA      0.001
/*
 * Every gated cell states the smallest change it would catch at the runs it has. One that
 * cannot see a change of this many percent (or none at all at its runs) is named
 * insensitive: gated in name only. check --sensitivity PCT sets another target.
 */
#define CHECK_INSENSITIVE_PCT 50.0
/* How many runs a statement of "runs needed" looks up to. */
#define CHECK_RUNS_CAP        200

/* The prefix of knobs that plant a cost (plant.h): compared never, judged always. */
#define CHECK_PLANT_KNOBS "GCR_PLANT_"

enum check_row_kind {
	CHECK_ROW_CELL,     /* a pinned cell: probe x metric */
	CHECK_ROW_CHECKSUM, /* the probe printed another result */
	CHECK_ROW_PREMISE,  /* the probe ran but went inert */
};

enum check_state { CHECK_JUDGED, CHECK_UNJUDGED };

/*
 * A gated time cell with a band wider than this (in percent of its baseline) lets through a
 * slowdown a user notices without any harness; when every one is, time is not gated in effect.
 */
#define CHECK_TIME_UNGATED_PCT 25.0

struct check_row {
	enum check_row_kind kind;
	const char *probe;  /* borrowed from the baseline */
	const char *metric; /* borrowed: the cell's metric, or "checksum" / "premise" */
	enum check_state state;
	/* What the cell's class compares: a quantile cell its min, every other its median. */
	enum baseline_class cls;
	double base;    /* the pinned median, or min for a quantile cell (cells) */
	double current; /* the session's median (quantile: min) over n runs (judged cells) */
	int n;
	double range[2]; /* judged cells: the smallest and the largest of the n runs */
	int every_run;   /* judged cells: each of the n runs alone would get the same verdict */
	struct baseline_judgement j; /* cells: the band's verdict; other rows: REGRESSED */
	/*
	 * A judged distribution cell: the one-sided rank-test p-values of the session's runs
	 * against the pinning runs, in the rule's bad and good directions, and the
	 * Hodges-Lehmann shift (also j.delta). family: how many distribution cells the check
	 * judged, which Holm's procedure divides CHECK_DIST_ALPHA among.
	 */
	double p_bad, p_good;
	size_t family;
	/* A judged distribution cell: every run far beyond the pinning runs (dist.h), each side. */
	int far_bad, far_good;
	/*
	 * Every judged gated cell: the smallest change it would catch at its n runs, in its
	 * unit and in percent of base (an exact cell: 0, any change; INFINITY: none at these
	 * runs), and for a distribution cell that cannot see the check's target, how many runs
	 * would (0: more than CHECK_RUNS_CAP). mde is NAN for a cell that is not judged or gated.
	 */
	double mde, mde_pct;
	int mde_runs; /* the runs mde is stated at: n, or check_input's runs_budget when more */
	int need_runs;
	/* A regressed cell the base build also measured: its median now, for drift attribution. */
	int has_base_now;
	double base_now;
	char *reason; /* owned, or NULL: why unjudged, the wrong checksum, the premise, liveness */
	/* Cells: the allowance in percent of the pinned median (inf when that is 0), and whether
	 * the cell's override makes it wider than its metric's rule (1), widened by pin for the
	 * host's noise (2). */
	double band_pct;
	int widened;
	/*
	 * A valgrind.ir cell judged regressed or improved, when the baseline keeps the probe's
	 * functions and the session's runs recorded theirs: where the instructions moved against
	 * the pin (fnprof.h). where_now is the session's profile (each function's median over its
	 * where_runs valgrind runs), owned; the diff borrows it and the baseline. has_where 0: no
	 * profile on one side, nothing to say.
	 */
	int has_where;
	int where_runs;
	struct fnprof where_now;
	struct fnprof_diff where;
};

enum check_verdict {
	CHECK_VERDICT_OK,         /* exit 0 */
	CHECK_VERDICT_REGRESSION, /* exit 1 */
	CHECK_VERDICT_UNJUDGED,   /* exit 2 */
};

/* One probe's knobs beyond its arm's (a sweep arm's heap limit): NAME=VALUE strings. */
struct check_probe_knobs {
	char *probe;
	struct strlist knobs;
};

struct check_input {
	const struct baseline *baseline;
	const struct store_session *session; /* its id, status and host */
	const struct store_build *build;     /* the arm judged: its build's collector version */
	const struct toolchain *toolchain;   /* the build's (its manifest's), or NULL: unknown */
	const struct store_run *runs;        /* that arm's runs in the session */
	size_t nruns;
	/* Another arm measured in the same session (check --base), or NULL: the share of a
	 * regression it shows too is drift since the pin, not the change. */
	const struct store_run *base_runs;
	size_t nbase_runs;
	int strict; /* a stale baseline cannot pass */
	/* What the build says it does, or NULL: unknown (taken for not precise, caps.h). */
	const struct caps *caps;
	/*
	 * The knobs the arm's probes ran with (NAME=VALUE, sorted), and per probe beyond them;
	 * NULL: not known, nothing compared.
	 */
	const struct strlist *knobs;
	const struct check_probe_knobs *probe_knobs;
	size_t nprobe_knobs;
	const struct hostinfo_thp *thp; /* the session's THP condition, or NULL: unknown */
	/* The session's host facts (hostinfo.h), or NULL: none recorded. */
	const struct hostinfo_facts *host;
	/* The change every gated cell should see, in percent; 0: CHECK_INSENSITIVE_PCT. */
	double sensitivity_pct;
	/*
	 * The runs a distribution cell gets where its first runs are past its band (ratchet's
	 * --max-runs), or 0: the session has the runs it has. What such a cell can see is stated
	 * at this many runs.
	 */
	int runs_budget;
};

/* What the judged gated cells of one class can see: their smallest detectable changes. */
struct check_class_sees {
	size_t cells;
	double median_pct, worst_pct; /* NAN when cells is 0; INFINITY when some see nothing */
	size_t blind;                 /* cells whose smallest detectable change is past target */
	int runs_min, runs_max;       /* the runs the cells were judged on */
};

/*
 * How small a change of time the check can see: the bands of its gated time cells (time.*, as
 * metrics_is_time). Only a verdict that states this can be read: a 186% band passes a 2x
 * slowdown as ok.
 */
struct check_sensitivity {
	size_t cells;      /* gated time cells */
	size_t widened;    /* of those, wider than their metric's rule */
	double median_pct; /* the median of their bands; NAN when cells is 0 */
	double worst_pct;  /* the widest; NAN when cells is 0 */
	int time_ungated;  /* cells > 0 and every band beyond CHECK_TIME_UNGATED_PCT */
};

/* The sensitivity of a baseline's gated time cells; pure, from the baseline alone. */
void check_sensitivity(const struct baseline *b, struct check_sensitivity *out);

struct check_result {
	struct check_row *rows;
	size_t nrows;
	int ok, improved, regressed, unjudged, info; /* rows by outcome */
	struct strlist stale; /* the baseline was pinned on another host or version */
	/* How the build's toolchain differs from the baseline's (owned), or NULL: then it is
	 * also stale.items[0], and every valgrind.* cell is unjudged. */
	char *toolchain;
	struct check_sensitivity sensitivity;
	/*
	 * Probes the session measured at the baseline's size of which the baseline pins nothing
	 * (a probe added since the pin): not judged, and said, since silence would read as a
	 * pass. They change no verdict; `baseline pin` adds them.
	 */
	struct strlist unpinned;
	/* How the arm's knobs differ from the baseline's ("GCR_NURSERY_KB=2048 (pinned
	 * without it)"), one entry per difference; a difference makes the check unjudged. */
	struct strlist knobs;
	/* The THP condition differs from the baseline's (owned), or NULL: then RSS cells are
	 * unjudged as not comparable. */
	char *thp;
	/* Cells pin widened for the spread of their pinning runs, among those judged. */
	size_t widened;
	/* What the verdict can see, per class (indexed by enum baseline_class; info unused), and
	 * the target it was held to (percent). */
	struct check_class_sees sees[BASELINE_CLASS_INFO];
	double target_pct;
	int runs_budget;    /* check_input's: distribution cells are stated at this many runs */
	size_t insensitive; /* judged gated cells past the target, all classes */
	char *why;          /* why the whole check cannot pass (owned), or NULL */
	enum check_verdict verdict;
};

/*
 * What a baseline makes detectable, from the file alone (baseline pin and validate print it):
 * each gated cell judged as if a session had `runs` runs of it (and up to `budget` where a
 * distribution cell is near its edge, 0: none) that did not move, its smallest detectable
 * change and the per-class summary in out (rows, sees, insensitive, target_pct); no verdict.
 * Release with check_result_release.
 */
void check_baseline_sees(const struct baseline *b, int runs, int budget, double target_pct,
                         struct check_result *out);

/*
 * For a judged distribution row r of a check against b: its shift on the rule's bad side
 * (either: its size), and the fewest runs, from r->n + 1 to cap, at which a shift of `shift`
 * would be judged a change at r's family's level (dist_runs_to_see); 0: not within cap.
 */
double check_row_bad_shift(const struct baseline *b, const struct check_row *r);
size_t check_row_runs_to_see(const struct baseline *b, const struct check_row *r, double shift,
                             size_t cap);

/* Judges in->runs against in->baseline into *out (zeroed first); cannot fail. */
void check_judge(const struct check_input *in, struct check_result *out);
void check_result_release(struct check_result *r);

/* "ok", "REGRESSION", "COULD NOT JUDGE". */
const char *check_verdict_name(enum check_verdict v);
/* A row's verdict: "ok", "improved", "REGRESSED", "info", "INERT", "COULD NOT JUDGE". */
const char *check_row_verdict_name(const struct check_row *r);

#endif /* CHECK_H */
