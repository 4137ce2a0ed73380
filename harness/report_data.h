/*
 * report_data.h — one stored session, whole: its host, its builds with their manifests, every
 * run with every sample. What the A/B judgement (compare.c) and every renderer in reports/
 * start from; loaded here, in the core, so the judgement need not reach up into reports/.
 */
#ifndef REPORT_DATA_H
#define REPORT_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"
#include "store.h"
#include "util.h"

struct report_data {
	struct store_session session;
	char *host_facts;           /* the host's facts JSON, or NULL */
	struct store_build *builds; /* the arms, in session order (position) */
	size_t nbuilds;
	char **manifests;       /* manifests[i] belongs to builds[i]; may be NULL */
	struct store_run *runs; /* every run, in the order they ran; samples by metric name */
	size_t nruns;
	/* The session's probes by number (strlist_probe_cmp); session.probes keeps the plan's order */
	struct strlist probes;
	/*
	 * Where the two arms came from when they are not one session's (compare of two stored
	 * results), one fact a line: "BASE gen from session 3 (complete, ..., host vm)", "FIX
	 * ...", then "MEASURED ON DIFFERENT HOSTS: ..." when so; NULL for one session. Owned.
	 */
	char *origin;
};

/* Loads session `id` whole. Errors name the database and what was missing. */
int report_data_load(struct store *st, int64_t id, struct report_data *out, struct err *e);
void report_data_release(struct report_data *d);
/*
 * Two stored results as one comparison (compare of two sessions): arm `ia` of a (BASE) and
 * arm `ib` of b (FIX) become out's arms 0 and 1, with every run of theirs (the other arms'
 * runs are dropped), B's rounds renumbered to A's warm-up so that round k pairs with round k.
 * out's session is A's, its rounds the fewer of the two, complete only when both are; its
 * probes those both measured (none: -1, e says so and names both sessions). A FIX arm labelled
 * as BASE's is labelled "LABEL (2)", as an A/A's is. out->origin says where each arm came from
 * and, plainly, when the hosts or the harness builds differ. a and b are consumed (released,
 * whatever the outcome); they may be two loads of one session.
 */
int report_data_merge(struct report_data *a, size_t ia, struct report_data *b, size_t ib,
                      struct report_data *out, struct err *e);
/*
 * A baseline file as one side of a comparison: one arm ("COLLECTOR (pinned)"), and for each
 * pinned probe, as many timed runs as `other` has rounds and as many valgrind runs as arm
 * `arm` of `other` made of that probe (at least one), each holding the cells' pinned medians,
 * the probe's pinned checksum and, on valgrind runs, its pinned functions. A baseline keeps
 * medians, not runs: every round of the other side pairs with the median, so a varying cell is
 * tested against it as a constant and the pin's own spread is in no test; out->origin says so.
 * The session is the pin's: its host, size and time; no harness version (not recorded).
 */
void report_data_from_baseline(const struct baseline *bl, const char *path,
                               const struct report_data *other, size_t arm,
                               struct report_data *out);
/* The index in d->builds of the arm at this position (a run's arm), or -1. */
long report_data_arm_index(const struct report_data *d, int arm);
/* The index in d->builds of the arm labelled `label`, or -1 (the first, when several are). */
long report_data_arm_named(const struct report_data *d, const char *label);

/*
 * A value's human form is metrics_format_value (metrics.h); this is the same with a sign
 * always shown ("+1.20 ms", "-3", "0"), and "-" when not finite.
 */
void report_format_delta(const char *metric, double v, char *buf, size_t size);
/* "+2.76%" with enough digits for small changes; "-" when not finite. */
void report_format_pct(double pct, char *buf, size_t size);

#endif /* REPORT_DATA_H */
