/*
 * judge.h — the judgement layer's inputs, loaded once for check, ratchet, baseline update and
 * baseline pin alike: a stored session, the arm judged (and a --base arm), its runs, and the
 * facts its figures depend on besides the collector's code: the toolchain it was built with,
 * what the build says it does (caps.h), the knobs its probes ran with, the transparent huge
 * page condition, and the minimum heaps stored for it. No printing and no exit: a verb picks the
 * session and arm (cli.h), calls these, judges (check.h, pin.h) and renders.
 *
 * Knobs: an arm's knobs are those the session recorded with it (the caller's variables its
 * build declares, then --knob: session_opts.h), and for a sweep's arm, per probe, the heap
 * limit it ran at (GCR_HEAP_MAX_MB). A baseline records the knobs its cells were pinned with;
 * a session that ran with others is not comparable with it (check: could not judge, naming
 * the knob).
 */
#ifndef JUDGE_H
#define JUDGE_H

#include <stddef.h>

#include "caps.h"
#include "check.h"
#include "heapgate.h"
#include "store.h"
#include "toolchain.h"
#include "util.h"

struct judge_inputs {
	struct store_session session;
	struct store_build *builds; /* the session's arms (store_session_builds) */
	size_t nbuilds;
	/* Set by judge_load_arm: */
	const struct store_build *build; /* the arm judged, in builds */
	const struct store_build *base;  /* another arm (check --base), or NULL */
	struct store_run *runs, *base_runs;
	size_t nruns, nbase_runs;
	struct toolchain toolchain; /* the build's manifest's, with the session's valgrind */
	struct caps caps;           /* the census's record, else the manifest's, else unknown */
	struct strlist knobs;       /* the arm's knobs, NAME=VALUE, sorted by name */
	struct check_probe_knobs *probe_knobs; /* a sweep's: per probe, beyond the arm's */
	size_t nprobe_knobs;
	struct hostinfo_thp thp;       /* the THP condition the session's probes ran under */
	struct hostinfo_facts host;    /* the session's host, from its facts (hostinfo.h) */
	struct heapgate_info heapgate; /* the minimum heaps added to the runs */
};

/*
 * Reads the baseline a verb judges with: the file at `path` parsed (baseline_load) and held to
 * everything `baseline validate` holds it to (baseline_validate: an exact cell whose runs
 * differ, a rule looser than its record justifies), and, unless `profile` is NULL, of that
 * profile. check, ratchet, update and validate all read through here, so no verb judges with
 * a file another refuses. -1 with e naming the file (ERR_NOT_FOUND when there is none: the
 * caller suggests a pin); *out is then released.
 */
int judge_baseline_load(const char *path, const char *profile, struct baseline *out, struct err *e);
/* Loads a session and its arms into *out (zeroed first). -1 with e naming the session. */
int judge_open(struct store *st, int64_t session, struct judge_inputs *out, struct err *e);
/*
 * Loads the arm `build` (one of out->builds) and, unless NULL, `base`: their runs, the build's
 * toolchain, capabilities, knobs and THP condition, and the minimum heaps as heapgate.h adds
 * them. -1 with e when the store fails or a stored record is damaged.
 */
int judge_load_arm(struct store *st, struct judge_inputs *in, const struct store_build *build,
                   const struct store_build *base, struct err *e);
void judge_release(struct judge_inputs *in);

/*
 * The check input for `in` against `b` (borrowing both); what check_judge compares beyond the
 * figures: toolchain, capabilities, knobs, THP, the host's facts.
 */
void judge_check_input(const struct judge_inputs *in, const struct baseline *b, int strict,
                       struct check_input *out);

#endif /* JUDGE_H */
