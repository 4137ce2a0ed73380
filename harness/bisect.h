/*
 * bisect.h — the search of `gcratchet bisect`: which commit to measure next, what a step's
 * figures say about it, and what the search found. Pure: cmd_bisect.c builds and measures,
 * this decides, so every decision is tested on synthetic figures (tests/unit/test_bisect.c).
 * docs/bisect.md describes the method for users.
 *
 * The commits are one first-parent line c[0..n-1]: c[0] is the good end (the figure as it
 * was), c[n-1] the bad end (the figure as it became), and "bad" means the change is there.
 * With --improved the change sought is an improvement; the search is the same, only the
 * direction the figure must move is the other one (struct bisect_rule).
 *
 * Deciding a commit, per probe:
 * - Exact (the metric's class is exact, and each end measured twice repeated itself: its
 *   values agree within the metric's resolution, which is 0 for census counters): one
 *   measurement, compared with the good end's: bad when it moved beyond the threshold in the
 *   direction the ends moved, good otherwise (bisect_decide_exact).
 * - Paired (anything else): runs of the commit interleaved with runs of the good end, judged
 *   with ab's statistics (paired.h) in batches up to a budget of rounds (bisect_decide_paired):
 *   bad when the move is shown (the one-sided signed-rank test in the direction of the move at
 *   the level of one look, and the median delta beyond the threshold); good when the commit is
 *   shown not to have moved that far (the bound of the median's confidence interval on the
 *   side of the move within the threshold); otherwise another batch, and at the budget "cannot
 *   tell", which the search treats as a skip. An exact metric whose arms did not repeat (a
 *   conservative collector's Ir) is judged as ab judges it, by its spread (PAIRED_SPREAD_K).
 * - Several probes: bad as soon as one of them is bad (the first commit where any moves),
 *   good when all are good, otherwise more rounds or cannot tell (bisect_combine).
 *
 * Invariants:
 * - Each look of a paired decision is made at BISECT_ALPHA / (looks * probes) (Bonferroni), so
 *   the chance of calling an unchanged commit bad stays below BISECT_ALPHA over every look
 *   and probe of a step.
 * - The ends are never re-marked: c[0] is good and c[n-1] bad by definition.
 * - The next commit is the untested one nearest the middle of what is left (the lower of two
 *   as near), so a search over k candidates takes about log2(k) steps, and skipping a commit
 *   moves the next pick to its neighbour.
 */
#ifndef BISECT_H
#define BISECT_H

#include <stddef.h>

#include "paired.h"
#include "util.h"

/* The chance a step may call an unchanged commit bad, over all its looks and probes. */
#define BISECT_ALPHA 0.05

/* What is known of a commit; the names are the store's (bisect_steps.decision). */
enum bisect_mark {
	BISECT_UNTESTED,
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIP, /* did not build, its probe failed, or its figures could not tell */
};
/* "untested", "good", "bad", "skip"; bisect_mark_parse reads one back (-1: none of them). */
const char *bisect_mark_name(enum bisect_mark m);
int bisect_mark_parse(const char *name, enum bisect_mark *out);

/* ---- The narrowing -------------------------------------------------------------------- */

struct bisect_search {
	size_t n;                /* commits, ends included; n >= 2 */
	enum bisect_mark *marks; /* owned; marks[0] GOOD and marks[n-1] BAD always */
};
/* A search over n >= 2 commits with every commit between the ends untested. */
void bisect_search_init(struct bisect_search *s, size_t n);
void bisect_search_release(struct bisect_search *s);
/* Marks commit i (0 < i < n-1; the ends stay as they are). */
void bisect_search_mark(struct bisect_search *s, size_t i, enum bisect_mark m);

struct bisect_state {
	size_t hi;       /* the first bad commit found so far */
	size_t lo;       /* the last good commit before hi */
	size_t untested; /* commits strictly between lo and hi not measured yet */
	size_t skipped;  /* ... and those skipped */
	unsigned steps;  /* steps left, about log2(untested + 1): git's "roughly N steps" */
	int done;        /* nothing left to measure between lo and hi */
	int found;       /* done and nothing between: hi is the first bad commit */
};
/*
 * Where the search stands. A commit marked good after hi, or bad before lo, does not move
 * the bounds: hi is the first bad commit, lo the last good one before it.
 */
void bisect_search_state(const struct bisect_search *s, struct bisect_state *out);
/* 1 with *next the commit to measure next; 0 when nothing is left to measure. */
int bisect_search_next(const struct bisect_search *s, size_t *next);

/* ---- Deciding a commit ---------------------------------------------------------------- */

/* What counts as moved, for one metric. */
struct bisect_rule {
	struct paired_policy pol; /* the metric's (paired_policy_for) */
	double pct, abs;          /* moved: beyond max(|good| * pct / 100, abs, resolution) */
	/* The way the figure must move from the good end: +1 up, -1 down, 0 either way (a
	 * metric with no better side, census.freed_bytes). */
	int want;
};
/*
 * The rule for `metric` (one metrics_lookup knows; ERR_INVALID naming it otherwise):
 * `threshold` is what --threshold said ("2%" or an amount in the metric's unit, NULL for the
 * metric's band: shared_ci's where it gates, else pinned_host's where that gates, else
 * shared_ci's); `improved` looks for an improvement, which a metric with no better side
 * cannot have (ERR_INVALID).
 */
int bisect_rule_for(const char *metric, const char *threshold, int improved,
                    struct bisect_rule *out, struct err *e);
/* "2%" (a percentage of the good end's figure) or "1000" (an amount): finite and >= 0. */
int bisect_threshold_parse(const char *s, double *pct, double *abs, struct err *e);
/* How far a figure may move from `good` and still count as unmoved. */
double bisect_allowance(const struct bisect_rule *r, double good);

/* What the two ends measured, for one probe, in exact mode. */
struct bisect_ends {
	double good, bad; /* the medians */
	double allowance; /* bisect_allowance of good */
	int repeats;      /* each end measured twice or more, its values within the resolution */
	int sign;         /* the way bad moved from good: +1, -1, 0 (no further than allowance) */
	int moved;        /* beyond the allowance, the way the rule wants */
	int other_way;    /* beyond the allowance, but the other way */
};
void bisect_ends_exact(const struct bisect_rule *r, const double *good, size_t ngood,
                       const double *bad, size_t nbad, struct bisect_ends *out);
/* Exact mode: a commit's one figure against the ends: BISECT_GOOD or BISECT_BAD. */
enum bisect_mark bisect_decide_exact(const struct bisect_ends *ends, double value);

enum bisect_answer {
	BISECT_ANSWER_GOOD,
	BISECT_ANSWER_BAD,
	BISECT_ANSWER_MORE,        /* not decided yet: measure another batch */
	BISECT_ANSWER_CANNOT_TELL, /* not decided at the budget: skip it */
};
/* "good", "bad", "more", "cannot tell". */
const char *bisect_answer_name(enum bisect_answer a);

struct bisect_paired {
	struct paired_cell cell; /* paired_analyze(good end, commit) */
	double allowance;        /* bisect_allowance of the good end's median */
	double p;                /* one-sided p in the direction `sign`; NAN where not tested */
	double bound;            /* the delta's plausible extreme on that side, for "good" */
	enum bisect_answer answer;
};
/*
 * Paired mode: the n pairs (good[i], value[i]) of one probe; sign (+1 or -1) is the way the
 * figure moved between the ends, alpha the level of this look (bisect_look_alpha), `final`
 * whether this is the last look (MORE becomes CANNOT_TELL).
 */
void bisect_decide_paired(const struct bisect_rule *r, int sign, const double *good,
                          const double *value, size_t n, double alpha, int final,
                          struct bisect_paired *out);
/* The step's answer from its probes' (n >= 1): bad if any, good if all, else more or cannot tell. */
enum bisect_answer bisect_combine(const enum bisect_answer *a, size_t n);
/* The level of one look: BISECT_ALPHA / (looks * probes), looks = ceil(max_rounds / rounds). */
double bisect_look_alpha(int rounds, int max_rounds, size_t probes);
/*
 * Rounds per batch by default: at least PAIRED_MIN_PAIRS, and enough that n pairs that all
 * move one way pass a look of three at this many probes (2^-n below its level).
 */
int bisect_default_rounds(size_t probes);
/* ---- The step's rules, as the engine applies them ------------------------------------- */

/*
 * Whether the steps may be judged exactly after each end was measured twice (ends[0..n-1],
 * one per probe, from bisect_ends_exact): only when every probe's ends repeated themselves
 * and no build of the ends says its census varies (census_varies: caps_census_varies; two
 * alike runs of such a build prove nothing). Otherwise the search falls back to paired runs,
 * which judge a figure by its spread.
 */
int bisect_exact_holds(const struct bisect_ends *ends, size_t n, int census_varies);
/*
 * The side and level of one paired look at a probe whose ends gave good[0..n-1] and
 * bad[0..n-1]: the rule's side (rule->want) at alpha; for a rule that counts either way
 * (want 0), the side the median delta moved to (up when it did not move) at alpha / 2, since
 * the test then looks both ways. Returns the level, *sign the side.
 */
double bisect_look_side(const struct bisect_rule *r, double alpha, const double *good,
                        const double *bad, size_t n, int *sign);
/*
 * The batch sizes of a search: --rounds (0: not given; valgrind metrics start at
 * PAIRED_SPREAD_MIN runs, others at bisect_default_rounds) and --max-rounds (0: three times
 * the rounds; never fewer than the rounds).
 */
void bisect_budget(int rounds_opt, int max_rounds_opt, int valgrind, size_t probes, int *rounds,
                   int *max_rounds);
/* The next batch after `total` rounds: `rounds`, or what is left of max_rounds when less. */
int bisect_batch(int rounds, int max_rounds, int total);
/*
 * A commit's run printed checksum `sum` (NULL: none) and the ends printed good_sum and bad_sum
 * (NULL: none): 1 when it is neither end's, a wrong result whose figures say nothing of the
 * change (it is another program's); 0 when it matches either, or nothing can be compared.
 */
int bisect_checksum_wrong(const char *sum, const char *good_sum, const char *bad_sum);
/* A paired step's mark from its answer: bad, good, or a skip ("more" at the budget too). */
enum bisect_mark bisect_answer_mark(enum bisect_answer a);
/*
 * git's line before measuring commit `next`: the untested commits left at worst after it
 * (the larger side of next between the bounds) in *left; returns the steps that take, about
 * log2(left + 1).
 */
unsigned bisect_search_left(const struct bisect_search *s, size_t next, size_t *left);
/*
 * The line of a failed build's log (text, NUL-terminated, changed in place) that says why: the
 * last linker line naming a symbol (undefined or defined twice), else the last compiler or
 * linker diagnostic ("error:" in it; "-Werror" in a command line is not one; the driver's "ld
 * returned 1" only when nothing else is), else the last line that is not make's or the build scripts' own, else the last of the
 * scripts'; a pointer into text, NULL when there is none.
 */
char *bisect_log_reason(char *text);

/* ---- A range scan: every change point (bisect --all) ---------------------------------- */

/*
 * What a scan knows of the stretch between two neighbouring measured commits: unknown (not
 * judged yet), same (no probe moved beyond the threshold), moved (one did), or cannot tell
 * (the runs it may spend could not say).
 */
enum bisect_link {
	BISECT_LINK_UNKNOWN,
	BISECT_LINK_SAME,
	BISECT_LINK_MOVED,
	BISECT_LINK_CANNOT_TELL,
	BISECT_LINK_MORE, /* not decided yet: measure another batch */
};
/* "unknown", "same", "moved", "cannot tell", "more". */
const char *bisect_link_name(enum bisect_link l);
int bisect_link_parse(const char *name, enum bisect_link *out);

/*
 * A scan over n >= 2 commits. The first pass splits the range into `segments` stretches
 * whatever their ends show (a move and its reversal inside one unsplit stretch whose ends agree
 * would be unseen); after it, only a stretch whose ends differ (moved) or could not be told
 * apart is split again, at the untested commit nearest its middle, until every moved stretch
 * is two neighbouring commits: a change point.
 */
struct bisect_scan {
	size_t n;
	size_t segments;
	unsigned char *state; /* per commit: 0 untested, 1 measured, 2 skipped */
	enum bisect_link
	    *link; /* per measured commit i > 0: its stretch from the measured one before */
};
void bisect_scan_init(struct bisect_scan *s, size_t n, size_t segments);
void bisect_scan_release(struct bisect_scan *s);
/* A measurement the scan wants: commit mid between its measured neighbours left and right. */
struct bisect_scan_plan {
	size_t left, mid, right;
};
/*
 * The measurements of the next pass, one per stretch to split (they do not depend on one
 * another): at most max into out (NULL: none); returns how many went there. 0: the scan is
 * done.
 */
size_t bisect_scan_next(const struct bisect_scan *s, struct bisect_scan_plan *out, size_t max);
/* How many stretches bisect_scan_next would split now (to size its array). */
size_t bisect_scan_pending(const struct bisect_scan *s);
/* mid was measured: its stretches from the measured commit before and to the one after. */
void bisect_scan_measured(struct bisect_scan *s, size_t mid, enum bisect_link left,
                          enum bisect_link right);
/* mid could not be measured (it does not build, its run failed): another commit is tried. */
void bisect_scan_skipped(struct bisect_scan *s, size_t mid);
/* The measured commit before i (i > 0 measured), or i itself when there is none. */
size_t bisect_scan_before(const struct bisect_scan *s, size_t i);
/*
 * What the scan found, in commit order: a change point (from = hi - 1: the figure moved at
 * hi), a stretch it cannot narrow (from < hi - 1: every commit between skipped), or one it
 * cannot tell (link CANNOT_TELL). Returns how many, at most max into out.
 */
struct bisect_scan_find {
	size_t from, hi;
	enum bisect_link link;
};
size_t bisect_scan_found(const struct bisect_scan *s, struct bisect_scan_find *out, size_t max);
/* Commits measured (the ends included) and skipped so far. */
size_t bisect_scan_count(const struct bisect_scan *s, int state);

/*
 * One stretch judged from paired runs of its ends x (before) and y (after), both ways at
 * alpha / 2 each: moved when either way shows a move beyond the threshold, same when both
 * show none, else more (cannot tell when final). out[0] is the look up, out[1] down.
 */
enum bisect_link bisect_link_paired(const struct bisect_rule *r, const double *x, const double *y,
                                    size_t n, double alpha, int final, struct bisect_paired out[2]);
/* One stretch judged from the exact figures before and after it. */
enum bisect_link bisect_link_exact(const struct bisect_rule *r, double before, double after);

#endif /* BISECT_H */
