/*
 * fnprof.h — where a run's instructions went: its Ir by function (cachegrind's fn= totals), and
 * the difference of two such profiles, function by function, as cg_diff shows it.
 *
 * A profile is read from a valgrind run (meter_valgrind_read_profile), kept in the store with
 * the run (store.h, table run_functions), exported with it, summarised per probe into a
 * baseline (baseline.h, "functions") and compared by `ab`, `check`, `ratchet` and `explain`.
 *
 * Names: cachegrind's, which valgrind demangles already; a name it left mangled (_Z...) is
 * demangled by c++filt where one is installed, and kept as it came otherwise. Code valgrind
 * found no symbol for (a JIT's) is "???". A function is one name: the code of a header
 * inlined into it, which cachegrind files under the header, counts as the function's, and
 * its file is the one that holds most of its instructions.
 *
 * What is kept: a run's functions with at least FNPROF_KEEP_SHARE of its Ir, and at least its
 * FNPROF_KEEP_MIN largest whatever their share; the rest are dropped, and their sum is the run's
 * Ir less the sum of those kept (a profile is "cut"). A function absent from a cut profile ran
 * fewer instructions than the smallest one kept there (its floor), perhaps none: the diff
 * counts it as 0 and says so (fnprof_mover.under), and leaves out one whose count on the other
 * side is not above that floor, since it may not have moved at all.
 *
 * Invariants (fnprof_check): names are not empty; every ir is finite and >= 0; functions are
 * ordered by ir, largest first, then by name, each name once; their sum is at most total_ir
 * (with a relative slack of 1e-9 for the sum of doubles).
 */
#ifndef FNPROF_H
#define FNPROF_H

#include <stddef.h>

#include "util.h"

/* A function with at least this share of its run's Ir is kept... */
#define FNPROF_KEEP_SHARE 0.001
/* ... and at least this many of the largest, whatever their share. */
#define FNPROF_KEEP_MIN   50

struct fnprof_fn {
	char *name; /* owned */
	char *file; /* owned; the source file with most of its instructions, or NULL: unknown */
	double ir;
};

struct fnprof {
	struct fnprof_fn *fns;
	size_t n, cap;
	double total_ir; /* the run's Ir, all functions (kept or not) */
};

void fnprof_init(struct fnprof *p);
void fnprof_release(struct fnprof *p);
/* Appends a function as given (no merging): the caller keeps the order, or calls fnprof_merge. */
void fnprof_add(struct fnprof *p, const char *name, const char *file, double ir);
/*
 * Merges the functions of one name (their ir summed, the file of the largest part kept), then
 * orders them as the invariants say. total_ir is left as it is.
 */
void fnprof_merge(struct fnprof *p);
/* Drops what FNPROF_KEEP_SHARE and FNPROF_KEEP_MIN do not keep; p is merged first. */
void fnprof_keep(struct fnprof *p);
/* Keeps only the `top` largest functions (a baseline's summary). */
void fnprof_truncate(struct fnprof *p, size_t top);
/* The sum of the kept functions' ir. */
double fnprof_kept(const struct fnprof *p);
/*
 * 1 when functions were dropped (the kept sum is below total_ir by more than the slack);
 * then fnprof_floor is the smallest kept ir, which every dropped function is below.
 */
int fnprof_cut(const struct fnprof *p);
double fnprof_floor(const struct fnprof *p);
/*
 * Every file written without "." and "dir/.." segments (as text: links are not followed), and
 * relative to `root` (an absolute folder without a trailing slash) when it lies under it: the
 * same source names the same file in every checkout. root NULL: normalised only.
 */
void fnprof_files_relative(struct fnprof *p, const char *root);
/* The kept function of this name, or NULL. */
const struct fnprof_fn *fnprof_find(const struct fnprof *p, const char *name);
/* The invariants above; -1 with "what: why" in e (no file name: the caller adds where). */
int fnprof_check(const struct fnprof *p, struct err *e);

/*
 * Per function, the median over n profiles of the same cell (an arm's valgrind runs of a
 * probe: ab makes two or three) into *out: a function a cut run did not keep counts 0 there,
 * an upper bound of none; total_ir is the median of the runs' totals. With n == 0, *out is
 * empty. The result is ordered and may be cut like any profile.
 */
void fnprof_median(const struct fnprof *const *runs, size_t n, struct fnprof *out);
/* A deep copy. */
void fnprof_copy(const struct fnprof *from, struct fnprof *to);

enum fnprof_side {
	FNPROF_BOTH,      /* kept in both profiles */
	FNPROF_BASE_ONLY, /* kept in BASE only */
	FNPROF_FIX_ONLY,  /* kept in FIX only */
};

/* One function's move between two profiles; the strings are borrowed from them. */
struct fnprof_mover {
	const char *name, *file;
	double base_ir, fix_ir; /* 0 on the side it is absent from */
	double delta;           /* fix_ir - base_ir */
	/* delta as a share of the whole change (fix total - base total); NAN when that is 0 */
	double share;
	enum fnprof_side side;
	/*
	 * Absent from a cut profile on its other side: it ran fewer instructions there than
	 * that profile's floor (under_ir), perhaps none, and delta counts it as none.
	 */
	int under;
	double under_ir;
};

struct fnprof_diff {
	struct fnprof_mover *movers; /* by |delta|, largest first, then name; unmoved omitted */
	size_t n;
	double base_total, fix_total, delta; /* the profiles' total_ir and their difference */
};

/*
 * The functions of base and fix that moved (delta != 0), both borrowed and outliving *out. A
 * function only one side kept is FNPROF_BASE_ONLY or FNPROF_FIX_ONLY.
 */
void fnprof_diff(const struct fnprof *base, const struct fnprof *fix, struct fnprof_diff *out);
void fnprof_diff_release(struct fnprof_diff *d);
/*
 * "only in FIX", "only in BASE" (with the labels given), or "" for a function both kept (a
 * count under the other side's floor is the reports' to show: "< 1234"). Into buf.
 */
void fnprof_mover_note(const struct fnprof_mover *m, const char *base_label, const char *fix_label,
                       char *buf, size_t size);

#endif /* FNPROF_H */
