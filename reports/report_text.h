/*
 * report_text.h — the A/B comparison as the plain-text table `gcratchet ab` prints: identity
 * first, then one row per cell, then warnings, notes and the verdict line.
 */
#ifndef REPORT_TEXT_H
#define REPORT_TEXT_H

#include "compare.h"

/* The columns a terminal table fits by default (ab's and compare's text; --wide: no limit). */
#define REPORT_TEXT_WIDTH 120

/*
 * Newly allocated text, ending in a newline; its lines start "gcratchet CMD:". Unless `wide`,
 * every line fits REPORT_TEXT_WIDTH (a longer unbroken word, a path, excepted): the headline
 * one clause a line, one heading per probe with its cells under it, counts whole and scaled
 * ("363.5M"), and columns left out that would not fit; `wide` is the full table, every digit.
 */
char *report_text_ab(const struct compare *c, const char *cmd, int wide);

/* The cell's interval as "[+1.90%, +3.50%]" (or absolute when BASE is 0), "exact", "-". */
void report_text_interval(const struct compare_cell *cell, char *buf, size_t size);
/* The cell's minimum detectable effect, "2.31%", or "-" when it has none; into buf. */
void report_text_mde(const struct compare_cell *cell, char *buf, size_t size);

/*
 * "3 worse, 0 better, 5 same, 4 info, 12 context, 0 not judged": the verdict's counts (context
 * only across designs; inert, too few pairs and no pairs are "not judged"); into buf.
 */
void report_text_counts(const struct compare *c, char *buf, size_t size);

/* How a probe's two profiles were made: "each function's median over BASE's 3 and FIX's 3
 * valgrind runs"; into buf. */
void report_text_where_how(const struct compare_where *w, char *buf, size_t size);

/*
 * Appends the warnings (bimodal cells) and notes (how the census is judged when it is not
 * the usual way, probes gone inert, incomplete rounds, cells not judged, the false-discovery
 * family), one line each, every line starting with `prefix`; names and a probe's words go
 * through `escape` (NULL: as they are).
 */
void report_text_warnings(const struct compare *c, struct sbuf *b, const char *prefix,
                          void (*escape)(struct sbuf *b, const char *s));

#endif /* REPORT_TEXT_H */
