/*
 * store.h — every sample of every run, in a database: a SQLite file on one host, or PostgreSQL
 * for a fleet, behind the same functions (store_engine.h).
 *
 * Tables (schema version STORE_SCHEMA_VERSION, kept in meta): hosts, builds, sessions,
 * session_builds (a session's arms), runs, samples, run_functions (a valgrind run's Ir by
 * function, schema 9), minheap (minimum-heap searches), sweep_cells (the heap each probe of a
 * sweep's arm ran at), bisects and bisect_steps (gcratchet bisect's searches and the commits
 * each measured). docs/storage.md describes each column.
 *
 * A build is an identity (its manifest); an arm is what a session ran: a build, the knob
 * overrides its probes ran with, and a label. One build can be several arms of a session (an
 * A/A, a nursery size against another), so runs are told apart by their arm, never by build.
 *
 * Invariants:
 * - A run and all its samples land together or not at all, in a transaction of their own or
 *   with the other runs of a batch (store_batch_begin): a session killed half way keeps every
 *   run written before, which a session does at the end of every round.
 * - A database written by an older schema is migrated, step by step, in one transaction when
 *   it is opened for writing; one written by a newer schema is refused, never rewritten.
 * - Every failure of the database is an error, never fewer rows: a damaged file is ERR_CORRUPT
 *   with the file named, a lock held too long ERR_BUSY.
 * - Opened STORE_READ, the store creates, migrates and writes nothing, and computes what it
 *   reports (an abandoned session) without recording it.
 * - Strings returned in rows are owned by the rows; the *_release functions free them.
 */
#ifndef STORE_H
#define STORE_H

#include <stddef.h>
#include <stdint.h>

#include "fnprof.h"
#include "metrics.h"
#include "run.h"
#include "util.h"

#define STORE_SCHEMA_VERSION 9

struct store;

enum store_mode {
	STORE_READ,  /* list, check, export, report: nothing is created or written */
	STORE_WRITE, /* measure, ab: creates the database (and its folder), migrates it */
};

/*
 * Opens the database a connection string names: a path or "sqlite:PATH" (SQLite), or a libpq
 * URL "postgresql://..." / "postgres://..." or key=value string "host=... dbname=..."
 * (PostgreSQL; a writer creates a missing database on the server, as it creates a missing
 * file). A connection string libpq cannot parse is ERR_INVALID.
 * STORE_READ fails with ERR_NOT_FOUND when the database does not exist, and with ERR_INVALID
 * when its schema is older than this harness's (a writing verb migrates it). Both modes refuse
 * a newer schema (ERR_INVALID). Messages name the database.
 */
int store_open(const char *target, enum store_mode mode, struct store **out, struct err *e);
void store_close(struct store *s);
/*
 * A connection string as a message may show it: every password (user:password@, password=,
 * sslpassword=, percent-encoded keys; URL or key=value form, by libpq's parsing) replaced by
 * "***"; a path unchanged. Allocated.
 */
char *store_url_redact(const char *url);
/* 1 when target is a libpq connection string (a postgresql:// URL or key=value), not a path. */
int store_is_conninfo(const char *target);
/*
 * 1 when arg is a connection string that names a server: a postgresql:// URL, or key=value
 * pairs libpq reads whole, every key one of its keywords (host=, dbname=, password=...). A
 * knob's NAME=VALUE or a command like "CC=clang sh build.sh" is not, though store_is_conninfo
 * takes it for one. Without libpq, only a URL.
 */
int store_names_server(const char *arg);
/*
 * 1 when the first len bytes of arg are an option whose value names a database (--db, --to,
 * --from, --fleet), and so may hold a password: the one list the command line's redaction
 * (cli_command_line, store_command_redact) goes by.
 */
int store_db_option(const char *arg, size_t len);
/*
 * A command line as stored and shown: the value of every --db, --to, --from and --fleet
 * (also as --db=VALUE) and any other connection string in it, redacted; NULL for NULL.
 * Allocated.
 */
char *store_command_redact(const char *command);

/* Returns the id of the host with this fingerprint, inserting it (with facts JSON) if new. */
int store_host(struct store *s, const char *fingerprint, const char *hostname,
               const char *facts_json, int64_t *id, struct err *e);

struct store_build {
	int64_t id;
	char *name;
	char *collector;
	char *collector_version;
	char *git_commit;
	char *dir;
	char *manifest_hash; /* identity: two builds with the same manifest are one build */
	/*
	 * Read back by store_session_builds only, which returns a session's arms: the arm's
	 * place in the session (what runs' arm says), its label (unique in the session; the build
	 * name unless the session chose another) and its knob overrides as a JSON object of
	 * strings, {"GCR_NURSERY_KB": "16384"}, or NULL when it has none.
	 */
	int position;
	char *label, *knobs;
	/* What the build says it does (schema 7): a JSON array of strings, or NULL: unknown. */
	char *capabilities;
};
/* Returns the id of the build whose manifest hash matches, inserting it if new. */
int store_build_upsert(struct store *s, const struct store_build *b, const char *manifest_text,
                       int64_t *id, struct err *e);

/*
 * Records what a build says it does (`capabilities`, a JSON array of strings) unless the store
 * already has it; *recorded (owned by the caller) is what the store holds afterwards, the
 * earlier record when there was one, so a caller can tell a build that changed its claims.
 */
int store_build_capabilities(struct store *s, int64_t build_id, const char *capabilities,
                             char **recorded, struct err *e);

struct store_session {
	int64_t id;
	int64_t host_id;
	char *host_fingerprint;
	char *hostname;
	char *command;
	char *started_at, *finished_at;
	/*
	 * As stored: running, complete, incomplete, interrupted. As read: "abandoned" for a
	 * session stored as running whose process is gone from this host (killed, or the host
	 * rebooted); computed at every read, never written back.
	 */
	char *status;
	int elsewhere; /* running on another host or boot (or before pids were kept): unprobed */
	int64_t pid;   /* the process that ran it; 0 when not recorded (schema 1) */
	char *boot_id; /* the kernel's boot id then (/proc/sys/kernel/random/boot_id), or NULL */
	int64_t seed;
	char *size;
	int64_t rounds, warmup;
	char *probes, *meters; /* comma-separated */
	double load_before, load_after;
	char *harness_version;
	char *facts; /* host facts at the session's start, JSON (hostinfo_json) */
	/*
	 * The session's identity across databases (schema 6): 36 characters in UUID form,
	 * random for a new session, derived from the natural key for one migrated from an older
	 * schema. push and pull match on it, so a session copied twice is stored once.
	 */
	char *uuid;
};
/*
 * Records a running session from si (its id, status, pid, boot_id and finished_at are ignored:
 * the session belongs to the calling process, whose pid and boot id are recorded). Its natural
 * key is (host, started_at, seed, pid): two sessions cannot share it.
 */
int store_session_begin(struct store *s, const struct store_session *si, int64_t *id,
                        struct err *e);
/*
 * Copies session `session_id` of `from` into `to` in one transaction of `to`: its host and
 * builds (matched by fingerprint and manifest hash, added when missing), the session itself
 * (stored status, times, pid, uuid), its arms, and every run with its samples: *copied 1.
 * Idempotent: when `to` already holds a session with its uuid, nothing is written and
 * *copied is 0, unless the copy there was taken while the session still ran on another host
 * (stored as running) and `from` has more of it now (its end, or more runs): the copy is then
 * replaced whole under its id, *copied 2. *to_id is the session's id in `to` either way. A
 * session whose process is still running on this host is ERR_BUSY (it would be copied half
 * done). The source's minimum-heap answers for the session's host and builds go with it, each
 * stored once: check judges min-heap cells by them.
 */
int store_session_copy(struct store *from, int64_t session_id, struct store *to, int64_t *to_id,
                       int *copied, struct err *e);
/*
 * store_session_copy inside a transaction the caller opened on `to` (store_sql_begin) and
 * commits: the queue (queue.c) completes a job in the transaction that stores its session, so
 * both land or neither. On failure nothing is rolled back here; the caller rolls back.
 */
int store_session_copy_in(struct store *from, int64_t session_id, struct store *to, int64_t *to_id,
                          int *copied, struct err *e);
/*
 * Every minimum-heap answer of `from` into `to` (with its host and build), inside a transaction
 * the caller opened on `to`, each stored once (an answer already there is not copied again):
 * a minheap job's results, which no session carries. *n how many `from` holds.
 */
int store_minheaps_copy_in(struct store *from, struct store *to, size_t *n, struct err *e);
/* The connection string as messages name it (a path, a URL without its password). */
const char *store_where(const struct store *s);
/* The engine's name: "sqlite" or "postgresql". */
const char *store_engine_name(const struct store *s);

/*
 * Statements of a module that keeps tables of its own in a store's database (queue.c), through
 * the store's connection, engine and error rules (messages name the database, never a
 * password). SQL as store_engine.h says: `?` placeholders bound in order. A module that uses
 * these owns its tables and their schema; store.c's ladder never touches them.
 */
struct store_sql;
int store_sql_exec(struct store *s, const char *sql, const char *what, struct err *e);
int store_sql_begin(struct store *s, const char *what, struct err *e);
int store_sql_commit(struct store *s, const char *what, struct err *e);
void store_sql_rollback(struct store *s);
int store_sql_open(struct store *s, const char *sql, const char *what, struct store_sql **out,
                   struct err *e);
void store_sql_int64(struct store_sql *q, int64_t v);
void store_sql_text(struct store_sql *q, const char *v); /* NULL binds SQL NULL */
/* 1 with a row, 0 when done, -1 with e. */
int store_sql_step(struct store_sql *q, struct err *e);
int store_sql_reset(struct store_sql *q, struct err *e);
int store_sql_null(struct store_sql *q, int i);
int64_t store_sql_col_int64(struct store_sql *q, int i);
/* Borrowed until the next step; NULL for SQL NULL. */
const char *store_sql_col_text(struct store_sql *q, int i);
void store_sql_close(struct store_sql *q); /* NULL is nothing */
/*
 * Adds arm number `position` (0-based, the interleaving order) to a session: build_id run
 * with `knobs` (a JSON object of NAME: VALUE strings, or NULL for none) under `label`. A
 * position given twice is an error.
 */
int store_session_add_arm(struct store *s, int64_t session_id, int position, int64_t build_id,
                          const char *label, const char *knobs, struct err *e);
int store_session_end(struct store *s, int64_t session_id, const char *status, double load_after,
                      struct err *e);
/* Fills *out; ERR_NOT_FOUND with a message when there is no such session. */
int store_session_get(struct store *s, int64_t session_id, struct store_session *out,
                      struct err *e);
void store_session_release(struct store_session *si);
/*
 * The newest session (by started_at, then id) that measured a build of `collector` (any, when
 * NULL), whatever its status; *id = 0 when none.
 */
int store_latest_session(struct store *s, const char *collector, int64_t *id, struct err *e);
/*
 * The sessions that measured a build of `collector` (every session, when NULL), oldest first
 * by started_at, then id; *out is an array of *n, each released by store_session_release.
 */
int store_list_sessions(struct store *s, const char *collector, struct store_session **out,
                        size_t *n, struct err *e);
void store_sessions_release(struct store_session *si, size_t n);
/*
 * The arms of a session in their session order: one row per arm, with its build's fields,
 * so a build that is two arms comes twice (with one id).
 */
int store_session_builds(struct store *s, int64_t session_id, struct store_build **out, size_t *n,
                         struct err *e);
void store_builds_release(struct store_build *b, size_t n);

/* A run as read back from the store: every string is owned, released by store_runs_release. */
struct store_run {
	int64_t id;
	int64_t session_id, build_id;
	char *probe;
	char *size;
	int round, seq;
	int arm; /* the position of its arm in the session; -1 when unknown */
	int warmup;
	enum run_kind kind;
	enum run_status status;
	char *detail;   /* why a run is not ok: "SIGSEGV", "exited 3", the census error */
	char *checksum; /* NULL when the run reported none */
	enum run_premise premise;
	char *premise_text; /* the probe's words about its premise, or NULL */
	char *stderr_tail;
	char *started_at;
	struct metric_set metrics;
	/* A valgrind run's Ir by function (fnprof.h), total_ir its valgrind.ir; n 0: none */
	struct fnprof functions;
};
/*
 * Stores one run, its samples and its functions in one transaction (see the invariants
 * above); functions that break fnprof.h's invariants are refused like a bad value. In a batch
 * the run is checked the same way now and kept (a copy: r may go), to be written by the next
 * store_batch_flush; *id is then 0.
 */
int store_run_insert(struct store *s, const struct run_record *r, int64_t *id, struct err *e);
/*
 * Batches: from store_batch_begin, store_run_insert keeps each run in memory, and
 * store_batch_flush writes all those kept, in the order they came, in one transaction. A
 * commit per run was most of what storing a 1 ms run cost (SQLite: the locks and WAL frames of
 * a transaction; PostgreSQL: its round trips), and a batch holds no lock while probes run. The
 * price: what is kept and not yet flushed is lost if the process dies, so the caller flushes
 * once the oldest kept run has waited a second, and at once after a long run (session.c). A
 * flush that fails writes
 * none of them and drops them (the error says how many). store_batch_end flushes and goes back
 * to a transaction per run; store_close drops a batch not flushed.
 */
void store_batch_begin(struct store *s);
int store_batch_flush(struct store *s, struct err *e);
int store_batch_end(struct store *s, struct err *e);
/* Runs kept by the batch and not yet written; 0 outside a batch. */
size_t store_batch_pending(const struct store *s);
/*
 * Every run of a session (and arm, when arm >= 0), in the order they ran, with samples and
 * functions.
 * A kind or status this harness does not know is an error naming the run.
 */
int store_runs_load(struct store *s, int64_t session_id, int arm, struct store_run **out, size_t *n,
                    struct err *e);
void store_runs_release(struct store_run *r, size_t n);

/* Read-only lookups for reports (additive; used by export, report and ab). */
/* The facts JSON recorded for a host; *facts is NULL when none. Newly allocated. */
int store_host_facts(struct store *s, int64_t host_id, char **facts, struct err *e);
/* The manifest.json text recorded for a build. Newly allocated. */
int store_build_manifest(struct store *s, int64_t build_id, char **manifest, struct err *e);

/* ---- History across sessions (gcratchet history) ------------------------------------- */

/*
 * One arm of one session in a metric's history: where and what it measured, and the values
 * of its measured (not warm-up) ok runs of the probe. Every string owned.
 */
struct store_history_point {
	int64_t session_id;
	char *started_at, *hostname, *size;
	char *build, *label, *git_commit, *collector_version;
	char *manifest_hash; /* the build's identity: two builds of one commit differ here */
	double *values;
	size_t n;
};
/*
 * Every arm that measured `probe` with a build of `collector` and has samples of `metric`
 * from ok, measured timed or valgrind runs (the per-iteration kinds of --two-n are another
 * quantity), in sessions started at or after `since` (an ISO date or time, or NULL) and of
 * `size` (NULL: any). Oldest first by session start, then arm; an array of *n released by
 * store_history_release.
 */
int store_history(struct store *s, const char *collector, const char *probe, const char *metric,
                  const char *since, const char *size, struct store_history_point **out, size_t *n,
                  struct err *e);
/* The probes of the measured runs of a build of `collector`, by name, into *out (appended). */
int store_history_probes(struct store *s, const char *collector, struct strlist *out,
                         struct err *e);
void store_history_release(struct store_history_point *p, size_t n);
/* The collectors of the builds any session measured, by name, into *out (appended). */
int store_history_collectors(struct store *s, struct strlist *out, struct err *e);

/* ---- Minimum heaps (gcratchet minheap) ------------------------------------------------ */

/*
 * One search's answer for a build, probe and size on a host (minheap.h). Insert-only and
 * borrowed, like a run record: the caller owns every string.
 */
struct store_minheap_record {
	int64_t host_id, build_id;
	const char *probe, *size;
	const char *started_at;       /* when the search began, UTC */
	const char *command;          /* the command line */
	const char *outcome;          /* minheap_outcome_name: found, never_fits, failed */
	int64_t min_heap_mb;          /* found: the answer; 0 otherwise */
	int64_t lo_mb;                /* the largest limit seen not to fit; 0 when none */
	int64_t step_mb;              /* the granularity the answer is good to */
	int64_t repeats;              /* runs at the answer in all */
	int64_t runs;                 /* probe runs the search took */
	int64_t unlimited_peak_bytes; /* heap_committed_peak_bytes without a limit; -1 unknown */
	const char *checksum;         /* the probe's checksum without a limit */
	const char *detail;           /* failed: what the broken run did; may be NULL */
};
int store_minheap_insert(struct store *s, const struct store_minheap_record *m, struct err *e);

/* A stored search read back, with its build's name; every string owned. */
struct store_minheap {
	int64_t host_id, build_id;
	char *build, *probe, *size, *started_at, *command, *outcome, *checksum, *detail;
	int64_t min_heap_mb, lo_mb, step_mb, repeats, runs, unlimited_peak_bytes;
};
/*
 * Every stored search, oldest first (by started_at, then build name, probe and size); an
 * array of *n released by store_minheaps_release.
 */
int store_minheap_list(struct store *s, struct store_minheap **out, size_t *n, struct err *e);
void store_minheaps_release(struct store_minheap *m, size_t n);

/* ---- Sweeps (gcratchet sweep) -------------------------------------------------------- */

/*
 * The heap one probe of one arm of a sweep ran at: GCR_HEAP_MAX_MB = heap_mb, which is
 * ceil(factor * reference_mb), reference_mb being the probe's reference minimum heap (the
 * smallest among the swept builds', or the named build's) found for reference_build. As
 * inserted the strings are borrowed; as read back they are owned (store_sweep_release).
 */
struct store_sweep_cell {
	int arm; /* the arm's position in the session */
	char *probe;
	double factor;
	int64_t heap_mb;
	char *reference_build;
	int64_t reference_mb;
};
/* Stores a sweep's cells for a session, all or none, in one transaction. */
int store_sweep_insert(struct store *s, int64_t session_id, const struct store_sweep_cell *c,
                       size_t n, struct err *e);
/* A session's sweep cells by arm and probe; *n = 0 when the session is not a sweep. */
int store_sweep_load(struct store *s, int64_t session_id, struct store_sweep_cell **out, size_t *n,
                     struct err *e);
void store_sweep_release(struct store_sweep_cell *c, size_t n);

/* ---- Bisects (gcratchet bisect) ------------------------------------------------------- */

/*
 * A bisect as started: what is searched (docs/bisect.md), insert-only and borrowed like a
 * run record. commits is the first-parent line from the good end to the bad end, hashes
 * separated by spaces; probes a comma list.
 */
struct store_bisect_record {
	const char *started_at, *command;
	const char *source;        /* collector, collector-dir, build-cmd */
	const char *repo, *target; /* the repository; the collector, folder or command */
	const char *build_options; /* VAR=VALUE ... given to make, or NULL */
	const char *good, *bad, *commits;
	const char *probes, *metric, *size;
	int improved;
	double threshold_pct, threshold_abs;
	int64_t rounds, max_rounds, warmup;
};
/* Records a running bisect of this process (its pid), under a new id: the largest plus one. */
int store_bisect_begin(struct store *s, const struct store_bisect_record *b, int64_t *id,
                       struct err *e);
/*
 * Sets a bisect's status (running, interrupted, found, ambiguous, failed), and when not NULL
 * its mode (exact, paired), first bad commit and detail (why it failed, the candidates of an
 * ambiguous answer). Any status but running stamps finished_at; running takes this process's
 * pid (a resumed bisect).
 */
int store_bisect_update(struct store *s, int64_t id, const char *status, const char *mode,
                        const char *first_bad, const char *detail, struct err *e);

/* A bisect read back; every string owned (store_bisect_release). */
struct store_bisect {
	int64_t id, pid;
	char *started_at, *finished_at, *status, *command;
	char *source, *repo, *target, *build_options;
	char *good, *bad, *commits, *probes, *metric, *size;
	int improved;
	double threshold_pct, threshold_abs;
	int64_t rounds, max_rounds, warmup;
	char *mode, *first_bad, *detail;
};
/* ERR_NOT_FOUND with a message when there is no such bisect. */
int store_bisect_get(struct store *s, int64_t id, struct store_bisect *out, struct err *e);
/* The newest bisect (by id) whose status is running or interrupted; *id = 0 when none. */
int store_bisect_latest_open(struct store *s, int64_t *id, struct err *e);
void store_bisect_release(struct store_bisect *b);

/*
 * One commit a bisect measured: the good and bad ends (role good, bad) and each step (role
 * step), with what decided it. As inserted the strings are borrowed; as read back, owned.
 */
struct store_bisect_step {
	int64_t bisect_id;
	int seq;          /* 1, 2, ... in the order measured */
	char *role;       /* good, bad, step */
	char *commit;     /* the full hash */
	char *subject;    /* the commit's subject line */
	char *decision;   /* good, bad, skip */
	char *reason;     /* why a skip (did not build, the probe failed, cannot tell), or NULL */
	int64_t build_id; /* the store's build; 0 when it did not build */
	char *build_dir;  /* the build folder (the cache's), or NULL */
	char *sessions;   /* the sessions it measured, ids separated by spaces, or NULL */
	char *figures;    /* per probe, a JSON object (docs/storage.md), or NULL */
	double build_s, measure_s;
	char *started_at;
};
int store_bisect_step_insert(struct store *s, const struct store_bisect_step *st, struct err *e);
/* A bisect's steps by seq; an array of *n released by store_bisect_steps_release. */
int store_bisect_steps(struct store *s, int64_t bisect_id, struct store_bisect_step **out,
                       size_t *n, struct err *e);
void store_bisect_steps_release(struct store_bisect_step *st, size_t n);
/*
 * Copies bisect `id` of `from` and its steps into `to`, inside the transaction the caller
 * opened on `to` (the queue's completion), under the next id of `to` (*to_id): the caller
 * serialises writers. Each step's build is recorded in `to` (store_build_upsert) and its
 * sessions named by their ids in `to`: from_sessions[k] was copied as to_sessions[k] (every
 * session a step names must be in the map: ERR_CORRUPT otherwise). The copy's pid is NULL.
 */
int store_bisect_copy_in(struct store *from, int64_t id, struct store *to,
                         const int64_t *from_sessions, const int64_t *to_sessions, size_t n,
                         int64_t *to_id, struct err *e);

#endif /* STORE_H */
