/*
 * queue.h — a measurement queue in the fleet's PostgreSQL database: requests split into jobs,
 * workers that claim a job, keep it by heartbeats (a lease), and complete it in the
 * transaction that stores its sessions (docs/queue.md).
 *
 * Tables (schema QUEUE_SCHEMA_VERSION, kept in meta as queue_schema_version, beside the
 * store's own tables, which the sessions of jobs land in): queue_request (what was submitted),
 * queue_job (one part of a request: one host runs it), queue_attempt (each claim of a job and
 * how it ended), queue_worker (each worker, its host facts and last heartbeat), queue_refusal
 * (a worker whose copy of a build differs from the job's digest, never offered that job
 * again), queue_session (the fleet's sessions each job stored).
 *
 * A job's states: queued -> running -> done | failed | canceled; running -> queued when its
 * attempt failed, its lease expired (no heartbeat) or its worker refused it, while attempts
 * are left.
 *
 * Invariants:
 * - A job is running under one claim at a time: the claim takes the row with SELECT ... FOR
 *   UPDATE SKIP LOCKED and gives it a fresh token; every later write of the attempt
 *   (heartbeat, failure, completion) names the token and changes nothing when the job no
 *   longer carries it (fencing: a worker whose lease expired cannot complete the job).
 * - A job completes exactly once, with its sessions: the completion locks the job's row,
 *   checks the token, copies every session of the worker's scratch store, and marks the job
 *   done, in one transaction of the fleet's database. Either all of it commits or none.
 * - A session stored by a job is in queue_session once (session_id is unique there).
 * - No function here prints or exits; errors come back in e, naming the database (never its
 *   password: messages go through the store's).
 */
#ifndef QUEUE_H
#define QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "util.h"

#define QUEUE_SCHEMA_VERSION 2
#define QUEUE_MAX_ATTEMPTS   3 /* claims of one job before it fails, by default */

/*
 * Opens the fleet's database for the queue (a PostgreSQL connection string only: SKIP LOCKED
 * and server-side time are what make it a queue; ERR_INVALID otherwise), creating or migrating
 * the store's schema and the queue's tables. A database whose queue schema is newer is refused
 * (ERR_INVALID). A server that cannot be reached is ERR_IO. The connection's lock_timeout is
 * 5 s unless the connection string sets one: a lock held too long by another transaction is
 * ERR_BUSY (to retry), never a wait until statement_timeout.
 */
int queue_open(const char *url, struct store **out, struct err *e);

/* A build a job runs: the option naming it, its value, and the manifest hash it must have. */
struct queue_build {
	char *option; /* "--collector", "--build", "BASE" or "FIX" (ab's positions) */
	char *value;  /* the collector's name or the folder's path, as the worker resolves it */
	char *digest; /* the manifest hash (buildinfo's manifest_hash), 16 hex digits */
};

/* One part of a request as submitted: its label and the verb's arguments for it. */
struct queue_part {
	char *label; /* "whole", "collector gen", "probe 01" */
	struct strlist args;
	struct queue_build *builds;
	size_t nbuilds;
};
void queue_part_release(struct queue_part *p);

/* ---- What a request is split into (pure: no I/O) ---------------------------------------- */

/* 1 when a job may run verb: measure, ab, ratchet, sweep, minheap or bisect (each stores
 * sessions, or minheap's answers, that the worker copies). */
int queue_runs_verb(const char *verb);

/* Where a verb's arguments name something: args[at], and args[at + 1] too when width is 2
 * ("--build DIR"; "--build=DIR" is 1). Width 0: not named by an option (ab's BASE and FIX,
 * the default collector of a verb that names none). */
struct queue_place {
	size_t at, width;
};

/* A request as queue submit read it: what queue_split splits. All borrowed. */
struct queue_split_in {
	const char *verb;
	const struct strlist *args; /* the verb's arguments, as submitted */
	const struct queue_build *builds;
	const struct queue_place *places; /* where builds[i] is named */
	size_t nbuilds;
	const char *probes; /* --probes' value (the last given), NULL when none */
	struct queue_place probes_at;
	int split; /* 0: --no-split */
};
/*
 * The parts a request is split into (docs/queue.md, "Splitting"): a sweep whose --probes lists
 * several probes, one part per probe ("probe 01", its --probes that one); a verb other than ab
 * and sweep naming two builds or more, one part per build ("collector gen", "build ./x": the
 * options naming the others left out); anything else, and everything with split 0, one part
 * "whole". *how is "probes", "builds" or "none"; *parts (allocated, *nparts of them, each
 * released with queue_part_release) own copies of what they hold.
 */
void queue_split(const struct queue_split_in *in, struct queue_part **parts, size_t *nparts,
                 const char **how);

struct queue_request {
	const char *verb, *cwd, *submitter; /* submitter: user@host */
	struct strlist args;                /* as submitted, before splitting */
	const char *split;                  /* how it was split: "none", "builds", "probes" */
	int64_t priority, max_attempts;
	/* The host class: NULL (or 0) is any. cpu: the worker's CPU model contains it; kernel:
	 * its kernel release starts with it; quiet: only a worker started with --quiet. */
	const char *cpu, *kernel;
	int quiet;
	const struct queue_part *parts;
	size_t nparts;
};
/* Who submits, as a request records it: "user@host". Newly allocated. */
char *queue_submitter(void);
/* Writes the request and its jobs in one transaction: *request_id, and job_ids[nparts]. */
int queue_submit(struct store *s, const struct queue_request *r, int64_t *request_id,
                 int64_t *job_ids, struct err *e);

/* A worker as it registers: borrowed strings. */
struct queue_worker {
	const char *name, *hostname, *cpu_model, *kernel, *facts;
	int quiet;
	int64_t pid;
};
/* Records (or refreshes) the worker's row: its host facts, idle. */
int queue_worker_register(struct store *s, const struct queue_worker *w, struct err *e);
/* The worker's row says it is alive, with its state ("idle", "running", "paused": its host
 * cannot run jobs now, "stopped") and job (0: none). */
int queue_worker_seen(struct store *s, const char *name, const char *state, int64_t job_id,
                      struct err *e);

/*
 * Every running job whose lease has passed goes back to queued, or to failed when it has had
 * its attempts, its attempt recorded as lost; *n how many (NULL: not wanted). A job whose row
 * another transaction holds locked is skipped (SKIP LOCKED), never waited for.
 */
int queue_reap(struct store *s, size_t *n, struct err *e);

/* A claimed job: owned strings; queue_job_release frees them. */
struct queue_job {
	int64_t id, request_id, attempt, max_attempts;
	char *token;  /* this claim's fencing token */
	char *broken; /* why its stored arguments cannot be read: the claim failed it; NULL */
	char *verb, *cwd, *label;
	struct strlist args;
	struct queue_build *builds;
	size_t nbuilds;
};
void queue_job_release(struct queue_job *j);
/*
 * Claims the queued job of the highest priority (then the oldest) that w's host class matches
 * and w never refused, for lease_s seconds: *got 1 with *out, 0 when there is none. A job
 * whose stored arguments or builds cannot be read (not what submit writes) is failed by the
 * claim itself, in its transaction, with the reason recorded once, whatever attempts it had
 * left: *got 1 with out->broken saying why, and nothing to run (the next claim takes the next
 * job).
 */
int queue_claim(struct store *s, const struct queue_worker *w, int64_t lease_s,
                struct queue_job *out, int *got, struct err *e);
/* *n: how many jobs are running (any worker's): each may yet come back to the queue. */
int queue_running(struct store *s, int64_t *n, struct err *e);
/* Extends the lease: *ours 0 when the job is no longer this claim's (reaped, canceled). */
int queue_heartbeat(struct store *s, const char *worker, const struct queue_job *j, int64_t lease_s,
                    int *ours, struct err *e);
/*
 * The worker cannot run the job (its copy of a build differs, a folder is missing): the job
 * goes back to queued without counting the attempt, and is never offered to `worker` again.
 */
int queue_refuse(struct store *s, const char *worker, const struct queue_job *j, const char *reason,
                 struct err *e);
/*
 * The worker's host cannot run any job now (its scratch folder cannot be made, its gcratchet
 * cannot be executed): the job goes back to queued without counting the attempt, for a
 * healthy host, and the worker is recorded 'paused'. Unlike a refusal, the worker may be
 * offered the job again once its host is mended.
 */
int queue_release(struct store *s, const char *worker, const struct queue_job *j,
                  const char *reason, struct err *e);
/*
 * The attempt failed (the verb exited 2 or was killed, the worker was stopped): back to
 * queued, or failed when it had its attempts, the reason kept. *state the job's state after
 * ("queued", "failed"; "" when the claim was no longer the job's).
 */
int queue_fail(struct store *s, const char *worker, const struct queue_job *j, const char *reason,
               char state[16], struct err *e);

enum queue_completion {
	QUEUE_COMPLETED,      /* stored and marked done now */
	QUEUE_COMPLETED_LATE, /* found done by this claim already (a commit whose answer was lost) */
	QUEUE_FENCED,         /* the claim is no longer the job's: nothing stored */
};
/*
 * Completes the job in one transaction: checks the claim's token on the locked row, copies
 * every session of `scratch` into s (store_session_copy_in), records them in queue_session
 * (their fleet ids in sessions[], up to max), and marks the job done with exit_status and the
 * tail of the verb's output. *nsessions how many it stored; *nanswers how many minimum-heap
 * answers the scratch store held (a minheap job's results: copied too, each once). A bisect
 * job's bisect and its steps are copied too (store_bisect_copy_in, under the fleet's next
 * bisect id), and its answer (status, first bad commit, detail, as JSON) kept in the job's
 * answer column and in *answer (allocated; NULL for another verb, or when answer is NULL).
 */
int queue_complete(struct store *s, struct store *scratch, const char *worker,
                   const struct queue_job *j, int exit_status, const char *output,
                   enum queue_completion *how, int64_t *sessions, size_t max, size_t *nsessions,
                   size_t *nanswers, char **answer, struct err *e);

/*
 * What the exit of a job's verb makes of the attempt (the contract between a verb and the
 * queue): exit 0 (ok) and 1 (a regression found, FIX worse) are results, stored with the job.
 * Any other exit is a failed attempt, to be run again while attempts are left, except that a
 * bisect ends with exit 2 in three ways that are answers, not faults (several candidates,
 * ends that did not move, an end that does not build): its record's status says which
 * (bisect_end). A verb killed by a signal or stopped by its worker never gets here: that is a
 * failed attempt.
 */
enum queue_bisect_end {
	QUEUE_BISECT_NONE,       /* no bisect record (another verb, or none was started) */
	QUEUE_BISECT_UNFINISHED, /* running or interrupted: it may be resumed, not an answer */
	QUEUE_BISECT_ENDED,      /* found, ambiguous or failed: an answer */
};
enum queue_outcome {
	QUEUE_OUTCOME_RESULT, /* complete the job with what the verb stored */
	QUEUE_OUTCOME_FAILED, /* a failed attempt */
};
enum queue_outcome queue_exit_outcome(int exit_status, enum queue_bisect_end bisect);
/*
 * How the bisect of a job's scratch store (its first: a job runs one) ended, read from what
 * bisect stores (its record's status: store_bisect_update); QUEUE_BISECT_NONE when the store
 * has none or cannot be read.
 */
enum queue_bisect_end queue_bisect_end(struct store *scratch);

/* Cancels a queued or running job (by_request 0) or every such job of a request: *n how many. */
int queue_cancel(struct store *s, int64_t id, int by_request, size_t *n, struct err *e);

/* ---- What status and result read -------------------------------------------------------- */

struct queue_job_row {
	int64_t id, request_id, attempt, max_attempts, exit_status; /* exit_status -1: none */
	int64_t waited_s;   /* from queued to its (last) start, or to now while queued; -1 */
	int64_t lease_left; /* seconds of lease left while running, else 0 */
	char *verb, *label, *state, *worker, *host, *reasons, *sessions, *submitter;
	char *answer; /* a bisect's answer, JSON (queue_complete), or NULL */
};
struct queue_worker_row {
	char *name, *hostname, *state, *cpu_model;
	int64_t job_id; /* 0: none */
	int64_t seen_s; /* seconds since its last heartbeat */
	int quiet;
};
struct queue_status {
	int64_t by_state[5]; /* queued, running, done, failed, canceled */
	struct queue_job_row *jobs;
	size_t njobs;
	struct queue_worker_row *workers;
	size_t nworkers;
};
extern const char *const queue_states[5];
/*
 * Reads the counts, the workers, and the jobs: every job with all, else those queued or
 * running; request > 0: only that request's jobs (all of them).
 */
int queue_status_read(struct store *s, int all, int64_t request, struct queue_status *out,
                      struct err *e);
void queue_status_release(struct queue_status *st);

#endif /* QUEUE_H */
