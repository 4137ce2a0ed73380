/*
 * report_json.h — the census report of a session as JSON, and the A/B report that extends it.
 *
 * "gcratchet-session" version 1 (gcratchet export): {format, version, session, host, builds,
 * runs}; every run carries every sample it stored as "samples": {metric: value}. Nothing is
 * summarised away: a reader can recompute every statistic from it. Runs are listed by probe
 * number, arm, kind and round (report_json_run_order), never in the session's shuffled order.
 * docs/schema/ holds a JSON Schema for each format.
 * "gcratchet-ab" version 1 (gcratchet ab --json, report --json): the same fields plus
 * "comparison": the two arms, complete rounds, identity, and per cell the paired values,
 * deltas, medians, interval, test, verdict. docs/ab.md lists every field.
 *
 * Numbers that are not finite are written as null.
 */
#ifndef REPORT_JSON_H
#define REPORT_JSON_H

#include "compare.h"
#include "report.h"

#define REPORT_JSON_SESSION_FORMAT "gcratchet-session"
#define REPORT_JSON_AB_FORMAT      "gcratchet-ab"
/* 2: builds are distinct builds, and arms (with their knobs) say what ran; runs name their arm. */
#define REPORT_JSON_VERSION        2

/* Newly allocated JSON text, ending in a newline. */
char *report_json_session(const struct report_data *d);
/*
 * The session JSON of a one-build session plus "summary": per probe its checksum, runs, and
 * each metric's median, min, max and n over the measured runs that succeeded, and "pauses" as
 * the A/B's, with the one arm called "session" (report --session N --json).
 */
char *report_json_session_summary(const struct report_data *d);
char *report_json_ab(const struct compare *c);

/*
 * "gcratchet-measure" version 1 (measure --json): what a measure stored, without every sample
 * (export has them): the session, host, builds and arms as "gcratchet-session" has them,
 * "counts" of its runs (measured, warm-up, failed), and "summary": per arm, in session order,
 * the summary report_json_session_summary writes of its one arm (probes and pauses).
 */
#define REPORT_JSON_MEASURE_FORMAT  "gcratchet-measure"
#define REPORT_JSON_MEASURE_VERSION 1
char *report_json_measure(const struct report_data *d);
/*
 * d's runs in the order the JSON and CSV exports list them: by probe number
 * (strlist_probe_cmp), arm position, kind, round, then seq. Newly allocated (free it); the
 * runs are borrowed from d.
 */
const struct store_run **report_json_run_order(const struct report_data *d);

#endif /* REPORT_JSON_H */
