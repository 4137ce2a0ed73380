/*
 * session.h — one measuring session: rounds x probes x arms, interleaved, stored run by run.
 *
 * An arm is a build run with knob overrides (environment variables the probe gets, such as
 * GCR_NURSERY_KB=16384) under a label: an A/A is two arms of one build, a nursery size
 * against another is two arms of one build with different knobs. The store keeps the build
 * once and tells runs apart by their arm.
 *
 * Schedule: warm-up rounds first (stored, marked warmup), then the measured rounds. In every
 * round the probe order is a fresh shuffle drawn from the session seed and the round number,
 * and for each probe the arms run back to back, in order on odd rounds and reversed on even
 * ones (ABBA for two arms), so drift on the host hits every arm alike. Valgrind runs, when
 * that meter is on, come after the timed rounds: plan->valgrind_runs per probe and arm (one
 * by default: Ir is deterministic for most builds; more where a verb must see whether it
 * repeats). Because it does not depend on load, up to plan->jobs valgrind runs go
 * at once (each in a scratch folder and launcher of its own, threads waiting on them); timed
 * runs go one at a time and alone, and the valgrind batch starts only after the last of them.
 *
 * Invariants:
 * - Every run is committed on its own (store_run_insert): a timed run before the next starts,
 *   a valgrind run as soon as it and those before it in the schedule have finished. So an
 *   interrupted session keeps all finished runs; the session row then says "interrupted".
 *   Valgrind runs that go at once are committed in the order of the schedule, with the ids and
 *   seqs they would get one at a time, so a session's rows do not depend on --jobs.
 * - A probe that fails never stops the session: its run is stored with its status.
 * - This module never prints: progress goes to the caller's callback.
 */
#ifndef SESSION_H
#define SESSION_H

#include <signal.h>
#include <stdint.h>

#include "buildinfo.h"
#include "hostinfo.h"
#include "meter_perf.h"
#include "meter_valgrind.h"
#include "store.h"
#include "util.h"

enum session_meter {
	SESSION_METER_RUSAGE = 1u << 0, /* always on: wall, CPU, RSS, faults */
	SESSION_METER_CENSUS = 1u << 1, /* always on: whatever the probe reports */
	SESSION_METER_VALGRIND = 1u << 2,
	SESSION_METER_PERF = 1u << 3, /* the available events of `perf`, on timed runs */
	/* valgrind runs with cachegrind's cache simulation; never without SESSION_METER_VALGRIND */
	SESSION_METER_CACHESIM = 1u << 4,
};

/*
 * One arm; the plan borrows it and all it points to. knobs are NAME=VALUE strings, each name
 * once, matching [A-Z][A-Z0-9_]* (session_knob_check); they are added last to the probe's
 * environment, so an arm's knob wins over a variable of the same name.
 */
struct session_arm {
	const struct buildinfo *build;
	const char *label; /* unique in the session: reports and check --build name the arm so */
	const struct strlist *knobs;
	/*
	 * NULL, or one list per probe of the plan (in plan->probes' order): knobs for that probe
	 * alone, added after `knobs`. A sweep runs each probe at its own heap limit, a multiple
	 * of that probe's minimum heap (docs/sweeps.md); the store has them in sweep_cells.
	 */
	const struct strlist *probe_knobs;
};

struct session_plan {
	const struct session_arm *arms;
	size_t narms;
	struct strlist probes;
	const char *size;
	int rounds, warmup;
	int jobs; /* valgrind runs at once, from 1; 0 is taken as 1 */
	/*
	 * Valgrind runs of each probe and arm (0 is taken as 1); with valgrind_runs_max above it,
	 * a probe whose Ir did not repeat on some arm gets that many on every arm.
	 */
	int valgrind_runs, valgrind_runs_max;
	/*
	 * Confirmation: NULL, or called once, when the first valgrind runs of every probe are
	 * stored (in st, session `session`, not yet closed), to set again[k] for each probe of
	 * plan->probes whose valgrind figures are to be measured valgrind_confirm more times on
	 * every arm. ratchet asks for it where a run's figure is past its baseline's allowance:
	 * a change of the code shows in every run, and a run that a conservative scan or a thread
	 * schedule made rare does not come back (docs/meters.md, "One run past its allowance").
	 */
	void (*confirm)(void *ctx, struct store *st, int64_t session, const struct strlist *probes,
	                unsigned char *again);
	void *confirm_ctx;
	int valgrind_confirm;
	/*
	 * More timed runs where the evidence needs them: NULL, or called once the timed rounds
	 * are stored (in st, session `session`, not yet closed) to set more[k] (zeroed before)
	 * for each probe of plan->probes: how many more timed runs of it on every arm. They go
	 * in extra rounds (numbered on from the last, each a fresh shuffle of the probes that
	 * still have some), before the valgrind runs; then it is called again, up to
	 * SESSION_MORE_PASSES times in all, while it asks for more. ratchet asks for them where a
	 * distribution cell is near its edge or cannot yet see what --sensitivity asks for.
	 */
	void (*more_timed)(void *ctx, struct store *st, int64_t session,
	                   const struct strlist *probes, int *more);
	void *more_ctx;
	/* When two_n[0] > 0: run each probe at two_n[0] and two_n[1] iterations (see session.c) */
	uint64_t two_n[2];
	unsigned meters;
	uint64_t seed;
	int64_t timeout_ms;
	int pin_cpu; /* 1: pin every probe to CPU `cpu`; 0 leaves them free */
	int cpu;
	int no_aslr;                    /* timed runs with address-space randomisation off too */
	const struct strlist *pass_env; /* variables of ours a probe also gets (--pass-env) */
	unsigned env_offset;            /* > 0: pad each run's environment by 0..env_offset bytes */
	/*
	 * Transparent huge pages for every probe: thp.condition is what the launcher asks for (off:
	 * prctl PR_SET_THP_DISABLE before exec), the session's facts record it all ("probe_thp"),
	 * and a timed run whose probe did not get it is failed (session.c, session_thp_check).
	 * Zeroed, it is off. session_setup_begin fills it with hostinfo_thp_try.
	 */
	struct hostinfo_thp thp;
	const char *launcher;
	const struct meter_valgrind *valgrind; /* when SESSION_METER_VALGRIND */
	const struct meter_perf *perf;         /* when SESSION_METER_PERF */
	const char *command;                   /* the command line, for the record */
	/*
	 * Interrupts, counted asynchronously: 1 stops after the running runs, 2 kills the running
	 * probes. Runs that finished are stored either way.
	 */
	volatile sig_atomic_t *stop;
	/*
	 * NULL, or where session_run counts the runs it has stored (0 when it starts, one more as
	 * each is committed), for a signal handler to say what an interrupt keeps.
	 */
	volatile sig_atomic_t *stored;
	/*
	 * 1: the session ends after the first run that is not ok (a warm-up's too; not one an
	 * interrupt stopped), its runs kept and the session stored as incomplete unless every
	 * planned run was in. For a verb whose judgement such a run has made already (a bisect
	 * step is skipped when its probe fails): the runs after it would cost minutes and say
	 * nothing. outcome.halted says it happened.
	 */
	int halt_on_failure;
};

/* How many times session_run asks plan->more_timed for more runs, at most. */
#define SESSION_MORE_PASSES 4

/* Runs a session adds to its plan as it learns what it measured (session_progress.added). */
enum session_added {
	SESSION_ADDED_NONE,    /* a run of the plan */
	SESSION_ADDED_TIMED,   /* more timed rounds (plan->more_timed) */
	SESSION_ADDED_SPREAD,  /* valgrind runs where Ir did not repeat (valgrind_runs_max) */
	SESSION_ADDED_CONFIRM, /* valgrind runs confirming a figure (plan->confirm) */
};

struct session_progress {
	/*
	 * The plan's runs: run_total is known when the session starts and never changes, so a
	 * counter shown from it never jumps; run_index is how many of them are done (1-based).
	 */
	int run_index, run_total;
	/*
	 * A run the session added (added != SESSION_ADDED_NONE) is counted apart, in its batch:
	 * added_index of added_total (1-based), the total known when the batch was added; its
	 * run_index stays at the plan's runs done before it.
	 */
	enum session_added added;
	int added_index, added_total;
	int round, rounds; /* round 1..rounds, warm-ups first; 0 for the valgrind pass */
	int warmups;       /* how many of the rounds are warm-up rounds */
	int warmup;
	const struct session_arm *arm;
	const struct run_record *run; /* the stored run, with its kind, status and metrics */
	/* How long the run took, start to result, as the harness saw it: what estimates use */
	int64_t elapsed_ns;
	int jobs; /* how many valgrind runs go at once (plan->jobs, at least 1) */
};

/*
 * A session is interrupted when an interrupt left a planned run unstored (or stopped one: a
 * second interrupt). One that came after every planned run was stored takes nothing away:
 * the session is complete, and late_interrupt says the interrupt came then.
 */
struct session_outcome {
	int64_t session_id;
	int runs, runs_failed;
	int interrupted;
	int late_interrupt; /* interrupted after every planned run was stored: still complete */
	int halted;         /* plan->halt_on_failure ended it after a run that was not ok */
};

/*
 * Called once per stored run, as it is stored (so valgrind runs that went at once report in the
 * schedule's order), always on the thread that called session_run.
 */
typedef void (*session_progress_fn)(void *ctx, const struct session_progress *p);

/*
 * Records the host, builds and session, then runs the schedule. Returns 0 once the session
 * row exists (probe failures are in the outcome, not errors); -1 when it could not start or
 * the database failed mid-way (runs stored so far stay stored).
 */
int session_run(const struct session_plan *plan, struct store *st, session_progress_fn progress,
                void *ctx, struct session_outcome *out, struct err *e);

/*
 * Records build b in the store as every session does: its row, keyed by its manifest (two arms
 * of one build find one row), with the manifest's text; *id is the row's id.
 */
int session_store_build(struct store *st, const struct buildinfo *b, int64_t *id, struct err *e);
/*
 * Records this host and the builds of arms[0..n) without opening a session, for what is stored
 * beside sessions (the minimum-heap search's answers): *host_id, and build_ids[i] of arm i.
 */
int session_store_host_builds(struct store *st, const struct session_arm *arms, size_t n,
                              int64_t *host_id, int64_t *build_ids, struct err *e);

/*
 * Single runs outside a stored session, for a verb that chooses each run from the last (the
 * minimum-heap search): the environment, scratch folder, executable path and launcher of a
 * session's runs, and its classification of what a run did; nothing is stored. The prober
 * borrows `plan` (launcher, size, timeout_ms, pass_env, no_aslr, pin_cpu and cpu, stop) until
 * it is closed; the meters are rusage and the census. Its runs never inherit GCR_HEAP_MAX_MB:
 * the only heap limit a run has is one of the arm's knobs (the search's).
 */
struct session_prober;
struct session_single {
	enum run_status status;
	char *detail;              /* why a run is not ok (its last stderr line), or NULL */
	char *checksum;            /* NULL when the run reported none */
	struct metric_set metrics; /* rusage and census figures */
	enum run_premise premise;  /* what the census said of the premise */
	char *premise_text;        /* its words, or NULL */
	char *stderr_tail;         /* the tail of its stderr, as a session stores it */
};
int session_prober_open(const struct session_plan *plan, struct session_prober **out,
                        struct err *e);
/* Runs `probe` of arm's build with arm's knobs; 0 with *out (released by the caller), or -1. */
int session_prober_run(struct session_prober *p, const struct session_arm *arm, const char *probe,
                       struct session_single *out, struct err *e);
void session_single_release(struct session_single *s);
/* Stops the launcher and removes the scratch folder; NULL is fine. */
void session_prober_close(struct session_prober *p);

/*
 * Checks one knob, NAME=VALUE: a name of [A-Z][A-Z0-9_]* that the harness does not set
 * itself (GCR_CENSUS_FD, GCR_ENV_PAD). -1 with e (ERR_INVALID) saying why, naming `opt`.
 */
int session_knob_check(const char *opt, const char *knob, struct err *e);
/*
 * 1 when an environment entry ("NAME=value") is a GCR_* variable that may be a collector's knob:
 * not one of gcratchet's own settings (GCR_DB, GCR_LOCK_FILE, ...) nor a test hook (GCR_TEST_*).
 * Such a variable reaches a probe only when its build declares it (buildinfo.h, "knobs").
 */
int session_env_knob_candidate(const char *var);
/* Adds a checked knob to a list; a knob of a name already there replaces it. */
void session_knob_set(struct strlist *knobs, const char *knob);
/* The knobs as a JSON object of strings, {"GCR_NURSERY_KB":"16384"}, newly allocated; NULL
 * when there are none. */
char *session_knobs_json(const struct strlist *knobs);

/* The probe order of one round: a permutation of 0..n-1 written into order. */
void session_shuffle(uint64_t seed, int round, size_t n, size_t *order);

#endif /* SESSION_H */
