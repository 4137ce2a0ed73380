/*
 * report.h — what every renderer in reports/ starts from: one stored session, whole (its
 * host, its builds with their manifests, every run with every sample), plus the small
 * formatting helpers the renderers share. The escapers are escape.h.
 *
 * Renderers never print and never exit: they return newly allocated text, and the
 * subcommand decides where it goes.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "report_data.h"
#include "store.h"
#include "util.h"

/*
 * A one-build session summarised per probe, for report --md/--json: every metric's median,
 * min and max over the measured runs that succeeded (timed runs for their metrics, valgrind
 * runs for theirs), and the probe's checksum. Strings are borrowed from the report_data.
 */
struct report_summary_cell {
	const char *metric;
	double median, min, max;
	size_t n;
};
struct report_summary_probe {
	const char *probe;
	const char *checksum; /* the first ok run's; NULL when none */
	size_t runs, ok;      /* measured runs, and those that succeeded */
	struct report_summary_cell *cells;
	size_t ncells;
};
struct report_summary {
	struct report_summary_probe *probes;
	size_t nprobes;
};
/* The arm at d->builds[0]'s position; released by report_summary_release. */
struct report_summary *report_summary_load(const struct report_data *d);
/* The same of the arm at d->builds[arm] (arm < d->nbuilds): each arm of a measure's session. */
struct report_summary *report_summary_load_arm(const struct report_data *d, size_t arm);
void report_summary_release(struct report_summary *s);

/*
 * Markdown for a pull request must fit one comment: GitHub takes 65,536 characters, and the
 * reports stay below REPORT_MD_CAP bytes (a byte is at most a character). What does not fit
 * is cut at a row, and the report says how many rows are only in the artifact (the HTML and
 * JSON files, the database).
 */
#define REPORT_MD_CAP  60000
/* Room kept for what closes a report after the last row that fits (a fold's end, a note). */
#define REPORT_MD_TAIL 2000

struct report_budget {
	struct sbuf *b;
	size_t limit;   /* b->len stays below this: REPORT_MD_CAP - REPORT_MD_TAIL */
	size_t dropped; /* rows that did not fit */
};
void report_budget_init(struct report_budget *bg, struct sbuf *b);
/* Appends text when it fits, else counts one row dropped; 1 when it was appended. */
int report_budget_add(struct report_budget *bg, const char *text);
/* "\n_12 more rows in the artifact._\n" when rows were dropped since the last call. */
void report_budget_note(struct report_budget *bg);

/*
 * Appends Markdown to the file $GITHUB_STEP_SUMMARY names, when a GitHub Actions step runs
 * us (unset or empty: nothing to do, 0). -1 with the variable and the reason when the file
 * cannot be opened or written: the summary is an output like any other, and a lost one is
 * said.
 */
int report_step_summary(const char *md, struct err *e);

#endif /* REPORT_H */
