/*
 * bisect_fleet.h — `gcratchet bisect --fleet URL`: the engine's measurements (bisect_engine.h,
 * hooks.measure_many) run as jobs of the fleet's queue (queue.h, docs/queue.md), so that any
 * idle worker takes one and a batch of independent measurements (a range scan's) runs on as
 * many hosts at once. docs/bisect.md, "On the fleet".
 *
 * One measurement is one job is one session is one host: a job is `gcratchet measure` with one
 * `--build DIR` per arm, in the engine's order, so a commit's arms are always paired on one
 * host (the job's worker, out[i].host). A batch is one request, its jobs submitted in one
 * transaction and waited for together. A job's session is copied from the fleet's database
 * into the bisect's store (store_session_copy, as pull does: idempotent, by uuid), so that the
 * steps' session ids, `show SESSION` and `bisect --resume` work where the bisect runs.
 *
 * Invariants:
 * - The cli layer: it prints its progress ("fleet: 2 of 5 jobs done, 3 running on w1, w2,
 *   w3") and what it waits for on stderr, as measuring does for a local session.
 * - A job runs exactly what the local measure hook would: the engine's probes, meters, events,
 *   rounds, warm-up or valgrind runs, halt-on-failure and no-aslr, the bisect's size, and the
 *   run options the bisect was given (its session_options rows but --db, --probes and --seed,
 *   as given: the same rows parse them on the worker).
 * - The queue's guarantees hold per job: a worker killed mid-job loses its lease and another
 *   runs the job again (a session is stored once); a job whose attempts all fail is out[i].rc
 *   -1 with the job's reasons. Interrupted (*stop), it cancels the request's jobs still queued
 *   or running and returns -2.
 * - The bench lock the bisect holds (it builds on this host) is let go while the jobs are out,
 *   so that a worker on this host can measure, and taken again before returning.
 */
#ifndef BISECT_FLEET_H
#define BISECT_FLEET_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "bisect_engine.h"
#include "cli.h"
#include "store.h"
#include "util.h"

struct bisect_fleet;

/* What a fleet bisect is given; borrowed for the call to bisect_fleet_open but for size and st. */
struct bisect_fleet_config {
	const char *cmd; /* "bisect", for messages */
	const char *url; /* the fleet's PostgreSQL database (--fleet) */
	/* The bisect's declaration and command line, whose run options each job carries */
	const struct cli_verb *verb;
	int argc;
	char **argv;
	/* Borrowed for the fleet's life: the engine's size (set later on a resume), and the
	 * bisect's store, which every job's session is copied into. */
	const char *size;
	struct store *st;
	/* The bench lock the bisect holds, let go while jobs are out (NULL: none), and how long
	 * to wait for it again. */
	int *lock_fd;
	int lock_timeout_s;
	volatile sig_atomic_t *stop; /* set by the bisect's signal handler */
};

/*
 * Opens the fleet's queue (queue_open) and reads the run options the jobs carry: 0, or -1
 * after printing why. Release with bisect_fleet_close.
 */
int bisect_fleet_open(const struct bisect_fleet_config *cfg, struct bisect_fleet **out);
void bisect_fleet_close(struct bisect_fleet *f);

/*
 * hooks.measure_many (bisect_engine.h) on the fleet: the n measurements as one request of n
 * jobs, waited for; out[i] as the hook's contract says, out[i].host the worker that ran it.
 */
int bisect_fleet_measure_many(struct bisect_fleet *f, const struct bisect_measure *m, size_t n,
                              struct bisect_measured *out);
/* hooks.measure the same way, as a batch of one. */
int bisect_fleet_measure(struct bisect_fleet *f, const struct bisect_measure *m,
                         int64_t *session_id, struct store_run **runs, size_t *nruns,
                         struct err *e);

/*
 * The run options a job carries, as the bisect was given them (argv, parsed by verb, whose
 * table includes session_options): each of its session_options rows, name and value, but
 * --db (this host's store), --probes and --size (the engine's) and --seed (each session draws
 * its own, as a local step's does). Appended to out; 0, or -1 after printing why.
 */
int bisect_fleet_run_args(const struct cli_verb *verb, int argc, char **argv, struct strlist *out);
/*
 * The arguments of the job that runs m (after its verb, "measure"), appended to args: one
 * --build DIR per arm in m's order, the engine's plan (probes, meters, events, size, rounds
 * and warm-up or --valgrind-only --valgrind-runs N, --halt-on-failure, --no-aslr, the
 * session's command), then run_args (bisect_fleet_run_args). Pure.
 */
void bisect_fleet_job_args(const char *size, const struct strlist *run_args,
                           const struct bisect_measure *m, struct strlist *args);

#endif /* BISECT_FLEET_H */
