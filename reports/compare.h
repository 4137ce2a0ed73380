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
 * census counters are compared exactly (paired.h).
 *
 * Invariants: cells are ordered by probe (session order), then deciding metrics before info
 * ones; a cell's values arrays hold exactly stats.n pairs, in round order.
 */
#ifndef COMPARE_H
#define COMPARE_H

#include <stddef.h>

#include "paired.h"
#include "report.h"

enum compare_sum {
	COMPARE_SUM_SAME,     /* one checksum, in every successful run of both arms */
	COMPARE_SUM_DIFFERS,  /* FIX printed another result than BASE */
	COMPARE_SUM_UNSTABLE, /* an arm printed several results across its own runs */
	COMPARE_SUM_MISSING,  /* one arm reported a checksum, the other none */
	COMPARE_SUM_NONE,     /* no successful run reported a checksum */
};

struct compare_probe {
	const char *probe; /* owned by the report data */
	enum compare_sum sum;
	const char *base_sum, *fix_sum; /* the first seen in each arm, or NULL */
	int base_runs, fix_runs;        /* non-warm-up runs, timed and valgrind */
	int base_failed, fix_failed;
	char *failure;        /* "FIX: 2 of 8 runs crashed (SIGSEGV)", or NULL */
	int fix_only_failure; /* FIX fails where BASE does not */
	int correctness;      /* checksums differ, FIX alone unstable, or FIX alone fails */
};

struct compare_cell {
	const char *probe; /* owned by the report data */
	char *metric;
	struct paired_policy pol;
	struct paired_cell stats;
	double *base, *fix; /* stats.n paired values, in round order */
	int *rounds;        /* the measured round (1-based; 0 for valgrind) of each pair */
	const char *only;   /* "BASE" or "FIX" when only that arm reports the metric, else NULL */
	/* The minimum detectable effect at these rounds: half the width of the delta's CI, in
	 * percent of BASE's median; NAN for an exact cell, one without pairs or a zero median. */
	double mde_pct;
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
	size_t family; /* cells in the Benjamini–Hochberg family */
	double fdr_q;
	int worse, better, same, info, few, unjudged;
	int census_exact;    /* deterministic census cells, compared exactly */
	int census_differ;   /* ... of which differ */
	int identity_failed; /* a checksum differs, or FIX fails where BASE does not */
	int runs_failed;
	int bimodal; /* cells with a bimodality warning */
	enum compare_outcome outcome;
};

/* Builds the comparison of builds[base] (BASE) and builds[fix] (FIX) of a loaded session. */
void compare_build(const struct report_data *d, size_t base, size_t fix, double fdr_q,
                   struct compare *out);
void compare_release(struct compare *c);

/* Sorts metric names as the comparison orders cells: deciding metrics first, the usual ones
 * (Ir, user, wall, RSS) leading. */
void compare_sort_metrics(struct strlist *metrics);
/* "1-7 of 7", "1-3, 5 of 7": the complete rounds; newly allocated. */
char *compare_rounds_text(const struct compare *c);
/* "7/7 higher", "6/7 lower", "7 equal", "exact": the sign count of a cell; into buf. */
void compare_signs_text(const struct compare_cell *cell, char *buf, size_t size);
/* "WORSE", "better", "same", "info", "n<6", "unjudged". */
const char *compare_verdict_text(enum paired_verdict v);
/* One line for the outcome: "FIX is worse on 2 cells", "no difference", ...; into buf. */
void compare_headline(const struct compare *c, char *buf, size_t size);

#endif /* COMPARE_H */
