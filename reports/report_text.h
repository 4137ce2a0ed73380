/*
 * report_text.h — the A/B comparison as the plain-text table `gcratchet ab` prints: identity
 * first, then one row per cell, then warnings, notes and the verdict line.
 */
#ifndef REPORT_TEXT_H
#define REPORT_TEXT_H

#include "compare.h"

/* Newly allocated text, ending in a newline. */
char *report_text_ab(const struct compare *c);

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
