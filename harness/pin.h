/*
 * pin.h — the policy of `baseline pin` and `baseline update`, as data: what a baseline pins
 * from measured runs, and what an update does to it. No I/O and no printing: the verb loads
 * the runs (judge.h), calls these, prints what they return and writes the file.
 *
 * Pin (docs/baselines.md, "Determinism measured at pin"): every probe's checksum and one cell
 * per probe and metric from the runs of one arm, pooled over the sessions they come from (pin
 * measures several, in varied environments); each metric's rule from the profile's band and
 * what the build says it does (baseline_default_rules); then the measured widening: a gated
 * cell whose pinning runs spread gets an override whose band holds PIN_WIDEN_K times that
 * spread (max - min), with the evidence (runs, sessions, spread) and why. An exact cell whose
 * runs differ is exact no more: its override is banded. A cell the runs did not spread keeps
 * its rule. Where the valgrind runs recorded functions (fnprof.h), each probe's
 * BASELINE_FUNCTIONS_TOP largest, medians over the runs, go in "functions": what check diffs
 * a regressed Ir cell against. Nothing here knows a collector by its name.
 *
 * Update: check's judgement of a new session against the baseline, cell by cell, as a plan:
 * an improved cell is tightened (re-pinned from the session), a regressed one loosened only
 * with a reason (a ledger entry), else refused; a cell check could not judge (not measured,
 * not comparable under another toolchain) is left as it is.
 */
#ifndef PIN_H
#define PIN_H

#include <stddef.h>

#include "baseline.h"
#include "caps.h"
#include "check.h"
#include "store.h"
#include "util.h"

/* How many times its pinning runs' spread a noisy cell's band holds. */
#define PIN_WIDEN_K 2.0

struct pin_input {
	const char *profile;
	const struct caps *caps;      /* what the build says it does */
	const struct store_run *runs; /* the arm's runs, pooled over its sessions */
	size_t nruns;
	/* --minheap: the stored searches' steadiness (heapgate.h), or NULL */
	const struct heapgate_info *minheap;
};

/*
 * Fills b's probes, cells, rules and overrides from in (b's identity is the caller's). One line
 * per widened cell is appended to `notes` ("override 02_survivor_promotion ..."). -1 with e
 * (naming the run or probe) when a run failed, a probe printed two checksums or none, or the
 * runs hold no measured run: a baseline is pinned from a clean sample only.
 */
int pin_derive(const struct pin_input *in, struct baseline *b, struct strlist *notes,
               struct err *e);

/*
 * The measured widening alone, on a baseline whose cells and rules are set: for testing and
 * for pin_derive. Appends a line per widened cell to notes (may be NULL); returns how many.
 */
size_t pin_widen(struct baseline *b, struct strlist *notes);

enum pin_update_action {
	PIN_UPDATE_KEEP,     /* within its band: nothing to do */
	PIN_UPDATE_TIGHTEN,  /* improved beyond its band: re-pinned from the session */
	PIN_UPDATE_LOOSEN,   /* regressed, accepted with a reason: re-pinned, ledger entry */
	PIN_UPDATE_REFUSE,   /* regressed without a reason: the update is refused */
	PIN_UPDATE_UNJUDGED, /* check could not judge it: left as it is */
};

struct pin_update_cell {
	const char *probe, *metric; /* borrowed from the baseline */
	enum pin_update_action action;
	double was, now;  /* the pinned figure its class compares, and the session's */
	double delta_pct; /* as check computes it */
	double used;      /* share of the allowance used */
	const char *why;  /* UNJUDGED: check's reason (borrowed from the result) */
};

struct pin_update_plan {
	struct pin_update_cell *cells;
	size_t n;
	size_t tightened, loosened, refused, unjudged;
};

/*
 * The plan for `res` (check_judge of the session against b); accept != 0 when a reason was
 * given. Pure.
 */
void pin_update_plan(const struct check_result *res, const struct baseline *b, int accept,
                     struct pin_update_plan *out);
void pin_update_plan_release(struct pin_update_plan *p);
/*
 * Applies a plan without refusals to b: tightened and loosened cells re-pinned from the
 * session's runs (those of `size`), a ledger entry for each loosened one (reason, ref, when,
 * who copied); a re-pinned valgrind.ir cell's probe gets the session's functions too. Returns
 * how many cells changed.
 */
size_t pin_update_apply(const struct pin_update_plan *p, struct baseline *b,
                        const struct store_run *runs, size_t nruns, const char *reason,
                        const char *ref, const char *when, const char *who);

#endif /* PIN_H */
