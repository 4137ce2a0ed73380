/*
 * bisect_engine.h — the engine of `gcratchet bisect`: it resolves what is searched (the
 * repository, the first-parent line of commits between the ends), builds each commit once per
 * build options (the build cache), measures the ends and decides the mode, measures and
 * decides each step, stores every step (store.h, bisects) and loads a stored bisect to resume
 * it. docs/bisect.md describes it for users.
 *
 * Why a module of its own and not more of bisect.c: bisect.c is pure (the narrowing and every
 * statistical choice, tested on synthetic figures in tests/unit/test_bisect.c); this runs
 * programs and sessions and writes the store, applying bisect.c's choices. cmd_bisect.c
 * parses the options, enters a resume, and renders.
 *
 * Invariants:
 * - It never prints and never exits. What the user is told is sent through the hooks as
 *   events (struct bisect_event); what went wrong is a return of -1 with eng->err saying why
 *   (code and message; an empty message when a hook has reported it itself).
 * - It never sets up a session: hooks->measure does, from the options the verb parsed (the
 *   verb's session_opts, copied whole), with the same set-up call every verb uses.
 * - Returns: 0 done, 1 a finding that is no failure of the harness (a commit that does not
 *   build, ends that make no search), -1 the harness failed (eng->err), -2 interrupted
 *   (*eng->stop was set, by a signal or by a measurement that was interrupted).
 * - The ends are recorded before any step, and the mode they decide (exact or paired) is
 *   stored with them, so that a resumed bisect judges its steps as the first run did.
 */
#ifndef BISECT_ENGINE_H
#define BISECT_ENGINE_H

#include <signal.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "bisect.h"
#include "run.h"
#include "store.h"
#include "util.h"

/* What is built at each commit: a shipped collector, a collector's folder, or a command. */
enum bisect_source { BISECT_SRC_COLLECTOR, BISECT_SRC_DIR, BISECT_SRC_CMD };
/* "collector", "collector-dir", "build-cmd": the option without its dashes, as stored. */
extern const char *const bisect_source_names[3];

/*
 * A build's time limit unless --build-timeout says otherwise: a build holds the bench lock
 * (and a worker's job), so one that hangs must not hold them for ever. A whole gcratchet
 * builds in a minute on a 2-core host; thirty leave room for a slow collector.
 */
#define BISECT_BUILD_TIMEOUT_S (30 * 60)

/* One probe of the search and what its ends measured. */
struct bisect_probe {
	char *name;
	int moved; /* it moved between the ends: the steps decide on it */
	int sign;  /* the way it moved: +1 up, -1 down */
	struct bisect_ends ends;
	double *good, *bad; /* the ends' values; paired mode: pairs by index */
	size_t ngood, nbad;
	char *good_sum, *bad_sum; /* the ends' checksums, NULL when they printed none */
};

/* One commit of the first-parent line. */
struct bisect_commit {
	char *hash, *subject;
	char *dir;        /* its build folder once built */
	char *reason;     /* why it was skipped, or NULL */
	int reused;       /* dir came from the build cache, not a build of this bisect */
	double build_s;   /* how long its build (or finding it in the cache) took */
	double *value;    /* per probe: its figure (a paired step's median); NAN unknown */
	int64_t build_id; /* the store's, once measured */
};

/* The most builds one measurement compares: a scan's commit between its two neighbours. */
#define BISECT_MAX_ARMS 3

/* What one measurement is: a session the verb sets up and runs (hooks->measure). */
struct bisect_measure {
	const char *const *dirs;   /* the arms' build folders, in this order */
	const char *const *hashes; /* their commits, to name one whose folder does not load */
	size_t narms;
	const char *probes;          /* comma-separated */
	const char *meters, *events; /* events NULL but for a perf metric */
	int rounds, warmup;          /* timed runs */
	int valgrind_runs;           /* > 0: a valgrind metric, so many runs per probe and arm */
	const char *command;         /* the session's command: "CMDLINE (bisect N: what)" */
	/*
	 * 1: the session stops after its first run that is not ok (session.h,
	 * halt_on_failure): such a run makes the step a skip (or the ends no search) whatever
	 * the runs after it would say, so they are not run.
	 */
	int halt_on_failure;
	int no_aslr; /* 1: with address randomisation off, whatever the options say */
};

enum bisect_event_kind {
	BISECT_EV_END_BUILT,  /* an end built or found in the cache: role, commit, cached, secs */
	BISECT_EV_END_BROKEN, /* an end does not build (commit's reason) or was interrupted */
	BISECT_EV_CENSUS_VARIES, /* a census metric whose build says it varies: text says so */
	BISECT_EV_NOT_REPEATED,  /* probe's figure did not repeat at an end (text: which end) */
	BISECT_EV_MODE,          /* the ends decided the mode; nmoved probes moved */
	BISECT_EV_STEP,          /* a step was recorded (the ends too): step */
	BISECT_EV_NEXT,          /* commit is measured next: left untested after it, steps */
	BISECT_EV_PASS,          /* a scan measures nplans commits next (plans), pass `steps` */
};

struct bisect_event {
	enum bisect_event_kind kind;
	const char *role;                     /* END_*: "good" or "bad" */
	size_t commit;                        /* END_*, NEXT: the commit's index */
	int cached, interrupted;              /* END_BUILT, END_BROKEN */
	double secs;                          /* END_BUILT */
	const char *probe, *text;             /* NOT_REPEATED, CENSUS_VARIES */
	size_t nmoved;                        /* MODE */
	const struct store_bisect_step *step; /* STEP */
	size_t left;                          /* NEXT */
	unsigned steps;                       /* NEXT; PASS: the pass's number */
	const struct bisect_scan_plan *plans; /* PASS */
	size_t nplans;                        /* PASS */
};

/* What one measurement of a batch came to (hooks->measure_many): as hooks->measure returns. */
struct bisect_measured {
	int rc;             /* 0 done, -1 failed (err), -2 interrupted */
	int64_t session_id; /* in the bisect's store; 0 when none was stored */
	struct store_run *runs;
	size_t nruns;
	char *host; /* where it ran (the worker's name on a fleet), NULL here; owned */
	struct err err;
};

struct bisect_engine;
struct bisect_hooks {
	/* What happens, for the verb to render; may be NULL. */
	void (*event)(void *ctx, const struct bisect_engine *eng, const struct bisect_event *ev);
	/*
	 * Sets up and runs the session m: 0 with *session_id and its runs (released by the
	 * engine with store_runs_release); -1 with e (its message empty when the hook reported
	 * the error itself); -2 when interrupted. *session_id is set whenever a session was
	 * stored, even on failure.
	 */
	int (*measure)(void *ctx, const struct bisect_measure *m, int64_t *session_id,
	               struct store_run **runs, size_t *nruns, struct err *e);
	void *ctx;
	/*
	 * Runs the n measurements m[0..n-1], which do not depend on one another, anywhere and in
	 * any order (a fleet runs them on its idle workers at once), each session stored where
	 * measure stores it; out[i] (zeroed by the engine) is what measure would have returned
	 * for m[i]. Returns 0 when each was run or failed on its own (out[i].rc), -2 when
	 * interrupted (out[i].rc -2 for those not finished). NULL: the engine runs them one at a
	 * time with measure.
	 */
	int (*measure_many)(void *ctx, const struct bisect_measure *m, size_t n,
	                    struct bisect_measured *out);
};

struct bisect_engine {
	enum bisect_source source;
	char *repo;   /* the repository whose history is searched */
	char *target; /* the collector's name, the collector's folder, or the build command */
	char *subdir; /* collector-dir: the folder within repo ("" for its top) */
	char *name;   /* collector-dir: the folder's name, which builds are named after */
	struct strlist make_vars;
	/* --build-input: files and folders a build reads that its commit does not hold (absolute) */
	struct strlist build_inputs;
	int retry_failed; /* --retry-failed: build again what the cache remembers as failed */
	char *inputs;     /* the digest of what builds read beyond the commit (lazily) */
	struct bisect_commit *commits;
	size_t ncommits;
	struct bisect_probe *probes;
	size_t nprobes;
	char *metric;
	char size[48];
	int improved;
	struct bisect_rule rule;
	enum run_kind kind;
	int rounds, max_rounds, warmup;
	int build_timeout_s; /* a build's limit, 0: none */
	/* The runs have address randomisation off already (--no-aslr): a crash is not run again
	 * with it off to see whether the layout caused it. */
	int no_aslr;
	int exact; /* the mode: 1 exact, 0 paired */
	/*
	 * > 0: a range scan (--all), every change point, its first pass in this many stretches
	 * (stored with the build options as "scan:N"); 0: a bisect for the first bad commit.
	 */
	int scan;
	struct bisect_scan scanner;
	/* A scan's changes: per commit i and probe p ([i * nprobes + p]), how far the figure moved
	 * from the measured commit before i (the paired median delta, in paired mode), and in %. */
	double *into, *into_pct;
	unsigned passes;
	char *root;     /* this gcratchet's build folder (buildinfo_root) */
	char *checkout; /* the gcratchet checkout whose make rules build an outside collector */
	char *cache;    /* the build cache */
	char *command;  /* the command line, for the store and the sessions */
	/* scripts/build-rev.sh and scripts/bisect-build.sh of this gcratchet (set by the caller) */
	char *build_rev_script, *bisect_build_script;
	struct store *st; /* open for writing; owned */
	int64_t id;
	int seq;
	struct bisect_search search;
	struct store_bisect_step *steps; /* every step so far, stored */
	size_t nsteps;
	double build_s, measure_s;
	volatile sig_atomic_t *stop; /* set by the caller's signal handler; never NULL */
	struct bisect_hooks hooks;
	struct err err; /* why the last call that returned -1 failed */
};

/*
 * An empty engine reporting through hooks (copied) and stopped by *stop: warm-up 1, size ci,
 * the default build time limit. The caller sets root, command, the scripts and st (an engine
 * owns them all: bisect_engine_release frees them and closes st).
 */
void bisect_engine_init(struct bisect_engine *eng, volatile sig_atomic_t *stop,
                        const struct bisect_hooks *hooks);
void bisect_engine_release(struct bisect_engine *eng);

/* ---- A new bisect ---------------------------------------------------------------------- */

/* The target of eng->source (set first): a collector's folder as its real path. */
void bisect_engine_set_target(struct bisect_engine *eng, const char *target);
/*
 * The rule, kind and run shape of eng->metric (threshold: --threshold, NULL for the metric's
 * band; a scan, eng->scan set first, looks both ways); -1 with why a metric cannot be
 * bisected.
 */
int bisect_engine_setup_metric(struct bisect_engine *eng, const char *threshold);
/*
 * What the source needs: the repository (the collector-dir's, the gcratchet checkout's for
 * --collector, repo_opt's for --build-cmd), the collector folder's place in it, and the
 * checkout whose make rules build an outside collector.
 */
int bisect_engine_setup_source(struct bisect_engine *eng, const char *repo_opt);
/* The build cache: opt, $GCR_BISECT_CACHE, or results/bisect-builds; made if missing. */
int bisect_engine_setup_cache(struct bisect_engine *eng, const char *opt);
/*
 * The commits from good to bad along bad's first parents, with their subjects: c[0] = good,
 * c[n-1] = bad. Refuses what is not a commit, a good end that is not on the bad end's
 * first-parent line, and two ends that are one commit.
 */
int bisect_engine_resolve_commits(struct bisect_engine *eng, const char *good_rev,
                                  const char *bad_rev);
/*
 * The probes that can be bisected, sorted: the checkout's probes/NN_name.c, or for a build
 * command what the good end's build says it has (building it: 1 when it does not build, the
 * commit's reason saying why).
 */
int bisect_engine_available_probes(struct bisect_engine *eng, struct strlist *out);
/* Adds probe `name` (resolved by the caller); -1 when it is there already. */
int bisect_engine_add_probe(struct bisect_engine *eng, const char *name);
/*
 * With the probes set: the batch sizes (bisect_budget of --rounds and --max-rounds, 0 when
 * not given), the search, and the bisect's row in the store (eng->id).
 */
int bisect_engine_begin(struct bisect_engine *eng, int rounds_opt, int max_rounds_opt);

/* ---- A stored bisect ------------------------------------------------------------------- */

/*
 * Loads bisect `id` to continue it: what it searches, from its row, and where it stands, from
 * its steps. Its commits' subjects are read from the repository again.
 */
int bisect_engine_load(struct bisect_engine *eng, int64_t id);

/* ---- The search ------------------------------------------------------------------------ */

/*
 * Runs what is left of the search: the ends when they are not recorded yet (1 with *detail,
 * newly allocated, when they make no search: an end does not build or cannot be measured, or
 * no probe moved), then a step at each commit bisect_search_next picks until nothing is left.
 * 0 when the search is done (bisect_search_state says what it found); -1, -2 as above.
 */
int bisect_engine_run(struct bisect_engine *eng, char **detail);

/* ---- A scan's answer ------------------------------------------------------------------ */

/* One change a scan found (bisect_scan_found's), with what it moved. */
struct bisect_change {
	struct bisect_scan_find find;
	int sign; /* the way its largest move (of the probes') went: +1 up, -1 down */
};
/* What a finished scan found, in commit order; newly allocated (free), *n of them. */
struct bisect_change *bisect_engine_changes(const struct bisect_engine *eng, size_t *n);
/* How far probe p moved into commit i from the measured commit before it (and in %): NAN
 * when unknown. */
double bisect_engine_into(const struct bisect_engine *eng, size_t i, size_t p, double *pct);
/*
 * How much of the ends' move of probe p the changes found explain: *ends the ends' move,
 * *found the sum of the changes' moves (change points only, not stretches left unnarrowed).
 */
void bisect_engine_explained(const struct bisect_engine *eng, size_t p, double *ends,
                             double *found);

/*
 * A bisect that named commit hi (after lo, its last good commit): how much of the ends' move
 * of probe p that one change is (*share: its move over the ends', NAN when the ends did not
 * move; *part: what it leaves of that move is beyond the threshold itself, so it is only part
 * of it), and where else its measured commits saw the figure move beyond the threshold: the
 * neighbouring measured commits (in commit order, on the same side of the change, skips left
 * out) whose figures differ so, up to max into from[] and to[]. Returns how many there were.
 */
size_t bisect_engine_elsewhere(const struct bisect_engine *eng, size_t lo, size_t hi, size_t p,
                               double *share, int *part, size_t *from, size_t *to, size_t max);

/* ---- What the renderers share ---------------------------------------------------------- */

/* The first seven characters of a hash, in one of four rotating static buffers. */
const char *bisect_engine_short(const char *hash);
/* The probes' names joined by sep; newly allocated. */
char *bisect_engine_probe_list(const struct bisect_engine *eng, const char *sep);
/* The figure of probe p at commit i, NAN when unknown. */
double bisect_engine_value(const struct bisect_engine *eng, size_t i, size_t p);
/* The same, with an end's figure the median of its runs (NAN when unknown). */
double bisect_engine_figure(const struct bisect_engine *eng, size_t i, size_t p);
/* "1% (at least 1000)", "10% (at least 2 ms)", "3", "any change". */
void bisect_engine_threshold_text(const struct bisect_engine *eng, char *buf, size_t size);
/* 100 * (v - base) / |base|; NAN when base is 0. */
double bisect_engine_pct(double v, double base);
/* "+2.20%", or "+1" from a figure of 0, where no percentage exists. */
void bisect_engine_change_text(const struct bisect_engine *eng, double before, double after,
                               char *buf, size_t size);
/* v as a number member of o, or null when it is not finite. */
void bisect_engine_json_number(cJSON *o, const char *key, double v);

#endif /* BISECT_ENGINE_H */
