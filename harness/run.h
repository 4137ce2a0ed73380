/*
 * run.h — what a stored run is: its kind, its status, its premise, and the record that goes
 * into the store.
 *
 * A run is one execution of one probe on one build (or a figure derived from two of them, as
 * --two-n does). Its status says what the probe did, never what went wrong in the harness:
 * a harness failure is an error of the session, not a run. The names below are the ones the
 * store, `export` and every report use; they are stable.
 *
 * Invariants:
 * - Only RUN_STATUS_OK runs carry figures a verdict may use; every other status says why not.
 * - A run record is insert-only and borrows everything: the caller owns every string and the
 *   metric set, and they must outlive store_run_insert. Rows read back from the store are
 *   struct store_run (store.h), which own theirs.
 */
#ifndef RUN_H
#define RUN_H

#include <stdint.h>

#include "util.h"

struct metric_set;
struct fnprof;

enum run_kind {
	RUN_KIND_TIMED,                  /* external meters, perf, census */
	RUN_KIND_VALGRIND,               /* Ir under cachegrind, no census pipe */
	RUN_KIND_PER_ITERATION,          /* derived from two timed runs (--two-n) */
	RUN_KIND_VALGRIND_PER_ITERATION, /* derived from two valgrind runs */
	RUN_KIND_COUNT
};

enum run_status {
	RUN_STATUS_OK,
	RUN_STATUS_FAILED,      /* exited non-zero, or its meter could not be read */
	RUN_STATUS_CRASHED,     /* killed by a signal of its own */
	RUN_STATUS_TIMEOUT,     /* killed at the time limit */
	RUN_STATUS_BAD_CENSUS,  /* exited 0 but its census was unusable */
	RUN_STATUS_EXEC_FAILED, /* the executable could not be started */
	RUN_STATUS_LOST,        /* the launcher gave no result */
	RUN_STATUS_INTERRUPTED, /* killed because the session was stopped (a second Ctrl-C) */
	/* exited 3 saying "heap exhausted": its GCR_HEAP_MAX_MB was too small (gcr.h) */
	RUN_STATUS_HEAP_EXHAUSTED,
	RUN_STATUS_COUNT
};

enum run_premise {
	RUN_PREMISE_NONE,    /* the probe declared none */
	RUN_PREMISE_MET,     /* it caused the activity it exists to cause */
	RUN_PREMISE_NOT_MET, /* it ran but is inert */
	RUN_PREMISE_NA,      /* not applicable to this collector */
};

/* The stable name of each value ("timed", "bad_census", "not met"). */
const char *run_kind_name(enum run_kind k);
const char *run_status_name(enum run_status s);
const char *run_premise_name(enum run_premise p);
/* The status in words for people: "heap exhausted" where the stored name is heap_exhausted. */
const char *run_status_label(enum run_status s);
/* Parse a stored name back; -1 when it is none of them. */
int run_kind_parse(const char *name, enum run_kind *out);
int run_status_parse(const char *name, enum run_status *out);

/* 1 for the kinds measured under valgrind (their metrics are valgrind.*). */
int run_kind_is_valgrind(enum run_kind k);

/*
 * The premise as stored: "met", "not met: why", "n/a: why", or NULL for none; newly
 * allocated. run_premise_split reads it back: *text points into `stored` (or is "").
 */
char *run_premise_join(enum run_premise p, const char *text);
enum run_premise run_premise_split(const char *stored, const char **text);

/*
 * The first line of a run's stored stderr that has something on it, newly allocated, or NULL
 * when there is none: what a probe said before it crashed or failed (its own message comes
 * first; a sanitizer's or the shell's report follows). The store keeps only the tail of
 * stderr (RUNNER_STDERR_TAIL bytes), so a full tail may begin mid-line: its first whole line
 * is taken then. A line longer than RUN_STDERR_LINE_MAX bytes is cut there and ends in "...".
 * Shown as it is; every renderer escapes it for its format.
 */
#define RUN_STDERR_LINE_MAX 240
char *run_stderr_first_line(const char *stderr_tail);
/*
 * The lines of a run's stored stderr that say why it failed, for the screen: every line that
 * has something on it, in order, when there are at most `max` (at least 3); otherwise the
 * first, a line saying how many are left out, and the last max - 2 (a runtime's own report,
 * "Error: Cannot find module ...", sits in the middle of its stack trace, and the line that
 * names the runtime's version last). Lines are cut as run_stderr_first_line cuts them; a
 * full tail's leading fragment is skipped. Appended to *out.
 */
void run_stderr_lines(const char *stderr_tail, size_t max, struct strlist *out);

/* What session.c hands the store for one run; see the invariants above. */
struct run_record {
	int64_t session_id, build_id;
	const char *probe;
	const char *size;
	int round, seq;
	int arm; /* the 0-based position of its build (arm) in the session */
	int warmup;
	enum run_kind kind;
	enum run_status status;
	const char *detail; /* why a run is not ok, or a warning on an ok one; may be NULL */
	const char *checksum;
	enum run_premise premise;
	const char *premise_text; /* the probe's words about its premise; may be NULL */
	const char *stderr_tail;
	const char *started_at;
	const struct metric_set *metrics; /* may be NULL: no figures */
	/* A valgrind run's Ir by function, as fnprof.h keeps it; NULL: none recorded */
	const struct fnprof *functions;
};

#endif /* RUN_H */
