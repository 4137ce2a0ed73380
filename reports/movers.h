/*
 * movers.h — where a probe's instructions moved, in every format: the functions of one profile
 * diff (fnprof.h) that moved most, as cg_diff lists them, with their move (delta Ir), their
 * share of the probe's whole change, both sides' counts and the functions one side alone kept.
 * Shared by ab (BASE against FIX), check and ratchet (the pin against the session) and
 * explain. Every name goes through the format's escaper (escape.h): function and file names
 * come from the probe's debug information.
 */
#ifndef MOVERS_H
#define MOVERS_H

#include <stddef.h>

#include "fnprof.h"
#include "util.h"

struct cJSON;

/* How many functions each form lists at most per probe. */
#define MOVERS_TEXT_MAX 8
#define MOVERS_MD_MAX   5
#define MOVERS_HTML_MAX 10
#define MOVERS_JSON_MAX 20

/* One probe's diff and how to name its sides; everything borrowed. */
struct movers_view {
	const char *probe;
	const struct fnprof_diff *diff;
	const char *base_label, *fix_label; /* "BASE" and "FIX", "pin" and "now" */
	/* How each side's counts were made: "medians of 3 and 3 valgrind runs", or NULL */
	const char *how;
};

/* A heading line and an aligned table, each line starting with `indent`. */
void movers_text(struct sbuf *b, const struct movers_view *v, size_t max, const char *indent);
/*
 * movers_text for a terminal: counts whole and short (metrics_format_short), a file by its
 * last component, columns as wide as their widest value, names cut (ending "~") where the
 * rows would pass `width` columns.
 */
void movers_text_narrow(struct sbuf *b, const struct movers_view *v, size_t max, const char *indent,
                        size_t width);
/* A bold heading line, then a table of exactly 8 columns (GitHub-flavoured Markdown). */
void movers_md(struct sbuf *b, const struct movers_view *v, size_t max);
/*
 * Several probes' diffs (each borrowed; n of them) summed function by function, as a pull
 * request's comment shows where the instructions went: one list item per function, the `max`
 * that moved most over all of them (by |summed delta|; those under 1% of the summed change are
 * left out), each with its file, its summed move, its share of the summed change and the
 * probes it moved on; then how many more moved. Nothing when no function moved.
 */
void movers_md_sum(struct sbuf *b, const struct fnprof_diff *const *diffs,
                   const char *const *probes, size_t n, size_t max);
/* A <h3> and a <table class="movers">. */
void movers_html(struct sbuf *b, const struct movers_view *v, size_t max);
/*
 * {"probe", "base_ir", "fix_ir", "delta", "delta_pct", "how", "functions": [{"name", "file",
 * "base_ir", "fix_ir", "delta", "share", "side", "under_ir"}], "more"}: "side" is "both",
 * "base_only" or "fix_only"; "under_ir" (only when that side was cut) the floor below which
 * the absent side's count lies; "more" how many movers are not listed.
 */
struct cJSON *movers_json(const struct movers_view *v, size_t max);
/* "+98.7%" of the change, or "-" when the totals did not move; into buf. */
void movers_share_text(const struct fnprof_mover *m, char *buf, size_t size);

#endif /* MOVERS_H */
