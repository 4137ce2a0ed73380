/*
 * report_sweep.h — a stored sweep (gcratchet sweep) as time–space curves and lower-bound
 * overhead: Markdown and JSON tables, and an HTML page with one SVG figure per probe and one
 * for the geometric mean over probes. docs/sweeps.md describes the figures; sweep.h computes
 * them.
 *
 * A session is a sweep when the store has sweep cells for it: each arm is one build at one
 * factor, and each probe of the arm ran at its own heap limit. Builds are told apart by their
 * name, in the order their first arm has in the session.
 *
 * Renderers never print and never exit; they return newly allocated text. Every name that
 * reaches a page goes through escape.h.
 */
#ifndef REPORT_SWEEP_H
#define REPORT_SWEEP_H

#include <stdint.h>

#include "report.h"
#include "store.h"
#include "sweep.h"
#include "util.h"

struct report_sweep {
	struct report_data d;
	struct store_sweep_cell *cells;
	size_t ncells;
	struct strlist builds;  /* the build names, in arm order */
	char **collectors;      /* per build, borrowed from d */
	int64_t *reference_mb;  /* per probe of d.probes */
	char **reference_build; /* per probe, borrowed from cells */
	int has_ir;             /* some point has valgrind.ir */
	struct sweep_table t;   /* derived (sweep_derive) */
};

/*
 * Loads session `id` and its sweep cells and fills the table. ERR_NOT_FOUND when the session
 * has no sweep cells (not a sweep), ERR_CORRUPT when a cell names an arm the session does
 * not have or an arm's probes disagree on its factor; store errors as they come.
 */
int report_sweep_load(struct store *st, int64_t id, struct report_sweep *out, struct err *e);
/*
 * One sweep from the sessions of its parts (a queued sweep split by probe, docs/queue.md):
 * sessions that swept the same arms (builds by manifest hash, positions, labels: so the same
 * factors), each some of the probes. The header is the first session's; runs, probes and heap
 * sizes are every session's. ERR_INVALID when the arms differ.
 */
int report_sweep_load_parts(struct store *st, const int64_t *ids, size_t n,
                            struct report_sweep *out, struct err *e);
void report_sweep_release(struct report_sweep *r);

char *report_sweep_md(const struct report_sweep *r);
char *report_sweep_json(const struct report_sweep *r);
char *report_sweep_html(const struct report_sweep *r);

#endif /* REPORT_SWEEP_H */
