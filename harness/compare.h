/*
 * compare.h — the A/B comparison of two builds of one stored session: identity checks, then
 * paired statistics for every cell (probe x metric). Every renderer draws from this model.
 *
 * Pairing: a timed run of BASE and one of FIX pair when they ran in the same measured round;
 * only complete rounds pair (a round is complete when every planned probe ran on both builds
 * in it), so an interrupted session pairs the rounds it finished and says which. Warm-up runs
 * never pair. Valgrind runs (one per probe and build) pair with each other.
 *
 * Identity: each probe's checksum must be the same in every successful run of both arms; a
 * difference, or FIX failing where BASE succeeds, is a correctness failure. Deterministic
 * census counters are compared exactly (paired.h). A probe whose premise was not met in a
 * run of either arm went inert: it did not cause the activity it exists to measure, so none
 * of its cells is judged (the drop of a counter to zero is no improvement).
 *
 * Across designs: between two collector designs the census (metrics.h: behaviour) says how
 * each works, not what it costs; those cells are context, and only costs decide.
 *
 * Invariants: cells are ordered by probe (session order), then deciding metrics before info
 * ones; a cell's values arrays hold exactly stats.n pairs, in round order.
 */
#ifndef COMPARE_H
#define COMPARE_H

#include <stddef.h>

#include "fnprof.h"
#include "paired.h"
#include "report_data.h"

enum compare_sum {
	COMPARE_SUM_SAME,     /* one checksum, in every successful run of both arms */
	COMPARE_SUM_DIFFERS,  /* FIX printed another result than BASE */
	COMPARE_SUM_UNSTABLE, /* an arm printed several results across its own runs */
	COMPARE_SUM_MISSING,  /* one arm reported a checksum, the other none */
	COMPARE_SUM_NONE,     /* no successful run reported a checksum */
};

/* How the collectors' behaviour figures (the census) are judged. */
enum compare_mode {
	COMPARE_MODE_AUTO,   /* across designs when the two builds' collector names differ */
	COMPARE_MODE_SAME,   /* one design (--no-across): behaviour decides like a cost */
	COMPARE_MODE_ACROSS, /* two designs (--across): behaviour is context */
};

struct compare_probe {
	const char *probe; /* owned by the report data */
	enum compare_sum sum;
	const char *base_sum, *fix_sum; /* the first seen in each arm, or NULL */
	int base_runs, fix_runs;        /* non-warm-up runs, timed and valgrind */
	int base_failed, fix_failed;
	/* "FIX: 2 of 8 runs crashed (SIGABRT), stderr: <its first line>", or NULL */
	char *failure;
	/* The first line of the stderr of each arm's first failed run, or NULL; owned. */
	char *base_stderr, *fix_stderr;
	/* Non-warm-up successful runs whose premise was not met, and the first one's words. */
	int base_inert, fix_inert;
	const char *base_premise, *fix_premise; /* owned by the report data; NULL when none */
	int fix_only_failure;                   /* FIX fails where BASE does not */
	int correctness; /* checksums differ, FIX alone unstable, or FIX alone fails */
};

struct compare_cell {
	const char *probe; /* owned by the report data */
	char *metric;
	struct paired_policy pol;
	struct paired_cell stats;
	double *base, *fix; /* stats.n paired values, in round order */
	int *rounds;        /* the measured round (1-based; 0 for valgrind) of each pair */
	const char *only;   /* "BASE" or "FIX" when only that arm reports the metric, else NULL */
	/*
	 * The minimum detectable effect at these rounds, in percent of BASE's median: half the
	 * width of the delta's CI for a stochastic cell; for an exact cell that did not repeat,
	 * the smallest move its rule could call (the rank test in its family, or three
	 * times the wider arm's range), INFINITY when none at these rounds (mde_rounds says how
	 * many a side it would take); NAN for a deterministic cell, one without pairs or a zero
	 * median.
	 */
	double mde_pct;
	size_t mde_rounds;
	/* Across designs, a behaviour metric that would decide within one: shown, not judged. */
	int context;
	/* "BASE", "FIX" or "both" when its probe went inert there: not judged; else NULL. */
	const char *inert;
	/* Deterministic, and the arms differ beyond the metric's resolution. */
	int exact_differs;
	/*
	 * Each arm's spread and whether it changed (paired.h, paired_spread): info, whatever it
	 * says; never part of the verdict or the exit status. Tested only for a paired, judged
	 * cell (not `only`, not inert).
	 */
	struct paired_spread spread;
};

/*
 * Where the instructions of one probe moved (cachegrind's Ir by function): each arm's profile is
 * the median, function by function, over that arm's valgrind runs of the probe (ab makes two
 * or three of each: Ir repeats, so the median is the count; where a run differs it is the
 * middle one), and the diff is FIX's against BASE's.
 */
struct compare_where {
	const char *probe;               /* owned by the report data */
	const struct compare_cell *cell; /* the probe's valgrind.ir cell */
	struct fnprof base, fix;
	int base_runs, fix_runs; /* the valgrind runs that recorded functions */
	struct fnprof_diff diff;
};

enum compare_outcome {
	COMPARE_OK,       /* no cell worse, identity holds, everything judged */
	COMPARE_WORSE,    /* FIX is worse on some cell, or identity failed */
	COMPARE_UNJUDGED, /* nothing worse, but something could not be judged */
};

struct compare {
	const struct report_data *data;
	size_t base, fix; /* indexes into data->builds */
	int rounds_planned;
	int *complete; /* the complete measured rounds, ascending */
	size_t ncomplete;
	int session_complete; /* the session row says "complete" */
	struct compare_probe *probes;
	size_t nprobes;
	struct compare_cell *cells;
	size_t ncells;
	size_t family;      /* cells in the Benjamini–Hochberg family */
	size_t rank_family; /* varying exact cells in the rank test's BH family */
	/*
	 * The design of each arm: its manifest's "design", else its collector's name. Two
	 * builds of one design (two settings of one runtime) are judged as one. Owned.
	 */
	char *base_design, *fix_design;
	/*
	 * Not NULL when an arm's recorded capabilities say its census need not repeat (caps.h,
	 * caps_census_varies): "FIX says clock_paced", "BASE says not precise". Its counters are
	 * then never deterministic nor compared exactly, however alike the rounds. Owned.
	 */
	char *census_varies;
	/* The session's host load, when it makes time host noise: "load 10.3 on 2 CPUs"; owned */
	char *time_noise;
	double fdr_q;
	enum compare_mode mode; /* as asked */
	int across;             /* 1: behaviour figures are context (asked, or collectors differ) */
	int worse, better, same, info, few, unjudged;
	int context;         /* cells shown as context across designs */
	int inert;           /* cells not judged because their probe went inert */
	int inert_probes;    /* probes that went inert in either arm */
	int census_exact;    /* deterministic census cells of both arms, compared exactly */
	int census_differ;   /* ... of which differ (context across designs) */
	int identity_failed; /* a checksum differs, or FIX fails where BASE does not */
	int runs_failed;
	int bimodal;          /* cells with a bimodality warning */
	size_t spread_family; /* cells whose spread was tested (their own BH family) */
	int spread_changed;   /* ... of which the spread changed: info, never a verdict */
	enum compare_outcome outcome;
	/* The probes whose Ir changed (their valgrind.ir cell is WORSE, better or differs beyond
	 * its resolution) and whose runs of both arms recorded functions, in probe order. */
	struct compare_where *where;
	size_t nwhere;
};

/*
 * Builds the comparison of builds[base] (BASE) and builds[fix] (FIX) of a loaded session;
 * `mode` says how the census is judged.
 */
void compare_build(const struct report_data *d, size_t base, size_t fix, double fdr_q,
                   enum compare_mode mode, struct compare *out);
void compare_release(struct compare *c);

/* Sorts metric names as the comparison orders cells: deciding metrics first, the usual ones
 * (Ir, user, wall, RSS) leading. */
void compare_sort_metrics(struct strlist *metrics);
/*
 * The p-value and the multiplicity-adjusted one a table shows for a cell: the signed-rank
 * test's and its Benjamini–Hochberg q, or for a varying exact cell judged by rank the rank-sum
 * test's and its BH-adjusted q in the family of such cells; NAN where there is none (deterministic, no pairs, out of
 * the family).
 */
void compare_cell_pq(const struct compare_cell *cell, double *p, double *q);
/*
 * The identity section's census line when an arm says its census varies: "census: no counter
 * compared exactly (FIX says clock_paced): counters are judged by their distributions"; NULL
 * otherwise. Into buf.
 */
const char *compare_census_varies_text(const struct compare *c, char *buf, size_t size);
/* The rule that judged a cell: "exact", "rank-sum", "spread", "signed-rank" or NULL (none). */
const char *compare_cell_method(const struct compare_cell *cell);
/* "1-7 of 7", "1-3, 5 of 7": the complete rounds; newly allocated. */
char *compare_rounds_text(const struct compare *c);
/*
 * "7/7 higher", "6/7 lower", "7 equal", "exact (7)", "by rank (5)", "by spread (3)": how a
 * cell's rounds went, or the rule that judged it; into buf.
 */
void compare_signs_text(const struct compare_cell *cell, char *buf, size_t size);
/* "WORSE", "better", "same", "info", "n<6", "unjudged". */
const char *compare_verdict_text(enum paired_verdict v);
/*
 * 1 for a deterministic census cell of both arms that decides within one design (context
 * across two) and differs: one of the census_differ cells the identity section lists.
 */
int compare_census_listed(const struct compare_cell *cell);
/* A cell's verdict as shown: compare_verdict_text, or "context" or "inert" (see the cell). */
const char *compare_cell_verdict_text(const struct compare_cell *cell);
/*
 * The judgement of the census in one sentence, or NULL when it is the usual one (one design,
 * collectors alike): "across designs (the collectors differ: epsilon vs marksweep): census
 * counters are context, only costs decide"; newly allocated. Names are as stored: escape them.
 */
char *compare_across_text(const struct compare *c);
/*
 * One line for the outcome: "FIX is worse on 2 cells", "no difference", ...; across designs it
 * ends "; across designs, census counters are context". Into buf (256 bytes hold any).
 */
void compare_headline(const struct compare *c, char *buf, size_t size);
/*
 * The headline with what moved after the outcome, for a trade-off to read at a glance:
 * "FIX is WORSE on 3 cells: fix vs base: user time -32.7%, peak RSS -12.9% better; Ir +21.0%
 * worse (7 of 7 rounds)", the percentages the cells' median deltas (over several probes, the
 * median of theirs, "on 12 probes", and the one farthest from zero), and what could not be
 * judged ("time not judged: 5 rounds, 6 needed"); across designs it ends as compare_headline
 * does. Names are as stored: escape them. Newly allocated.
 */
char *compare_headline_moved(const struct compare *c);
/*
 * The headline as a terminal shows it, into `lines` (appended): a short first line ("FIX is
 * WORSE on 8 cells: fix vs base (7 of 7 rounds)"), then one clause a line, each one fact:
 * "worse: Ir +36.3% on 2 probes (to +49.4%)", "better: peak RSS -14.4%", time as host noise,
 * time not judged, across designs. The items are compare_headline_moved's. Names are as
 * stored: escape them.
 */
void compare_headline_lines(const struct compare *c, struct strlist *lines);
/* 1 for a probe whose identity is in doubt: another result, a failed run, gone inert. */
int compare_probe_doubtful(const struct compare_probe *p);
/*
 * 1 for a cell a report shows with the verdict, never folded: judged WORSE or better, or a
 * deciding cell that could not be judged (too few pairs, no pair, its probe inert).
 */
int compare_cell_flagged(const struct compare_cell *cell);
/*
 * The cell of `probe` a one-line summary shows: the WORSE one that moved most, else one that
 * could not be judged, else the better one that moved most, else the deciding cell that moved
 * most; NULL when the probe has no cell.
 */
const struct compare_cell *compare_probe_worst(const struct compare *c, const char *probe);
/* The short name a headline uses for a metric: "Ir", "user time", "peak RSS"; else its name. */
const char *compare_metric_label(const char *metric);

#endif /* COMPARE_H */
