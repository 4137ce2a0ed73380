/*
 * runner.h — runs probes and says what happened.
 *
 * A runner owns one long-lived gcratchet-launch process (see launch.c for why it exists):
 * each run is a request to it, and the probe is forked from its small address space. The
 * runner hands the probe a census pipe as descriptor 3 (GCR_CENSUS_FD=3), captures its stdout
 * (up to RUNNER_STDOUT_MAX bytes) and the tail of its stderr, and enforces a timeout twice:
 * the launcher kills the probe's process group at the limit, and the runner kills the probe
 * and the launcher if no answer came a few seconds later (the next run starts a new launcher).
 * No probe outlives its run: the launcher kills whatever a probe leaves behind, even in a
 * session of its own, and counts it in the result; when the harness dies, its launcher kills
 * the running probe and exits.
 *
 * Invariants:
 * - runner_run returns 0 whenever it could hand the run to a launcher; the outcome of the
 *   probe (exit code, signal, timeout) is data in the result, not an error.
 * - The result owns its strings; run_result_release frees them.
 */
#ifndef RUNNER_H
#define RUNNER_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>

#include "util.h"

#define RUNNER_STDOUT_MAX  (1 << 20)
#define RUNNER_CENSUS_MAX  (4 << 20)
#define RUNNER_STDERR_TAIL 4096

enum run_outcome {
	RUN_EXITED,      /* exited on its own; see exit_code */
	RUN_SIGNALED,    /* killed by a signal it did not ask for; see term_signal */
	RUN_TIMEOUT,     /* killed at the time limit */
	RUN_EXEC_FAILED, /* the program could not be started; see exec_errno */
	RUN_LOST,        /* the launcher gave no result (it was killed or crashed) */
	RUN_INTERRUPTED, /* killed because the user asked (see runner_request.stop) */
};

struct runner_request {
	char *const *argv;  /* argv[0] is the path of the executable; NULL-terminated */
	char *const *envp;  /* the probe's whole environment, NULL-terminated */
	int64_t timeout_ms; /* 0: no limit */
	int no_aslr;        /* run with address-space randomisation off */
	int cpu;            /* pin the probe to this CPU; -1: leave it free */
	/*
	 * 0 (the default): transparent huge pages off for the probe, set by the launcher before
	 * exec (prctl PR_SET_THP_DISABLE); 1: as the host is configured. The result says what the
	 * probe got (run_result.thp_enabled), which is not always what was asked.
	 */
	int thp_host;
	/* perf events to count on the probe from exec to exit (see meter_perf.h) */
	const struct perf_event_attr *events;
	size_t nevents;
	/*
	 * Interrupts counted by the caller's signal handler, or NULL. The runner reads it while
	 * the probe runs: from 2 on it kills the probe (the first interrupt lets the run finish),
	 * and the result says RUN_INTERRUPTED unless the probe had ended on its own already.
	 */
	const volatile sig_atomic_t *stop;
};

#define RUNNER_MAX_EVENTS 8

/* One perf event's raw reading; err is a negative errno when it could not be opened. */
struct run_perf {
	unsigned long long value, enabled_ns, running_ns;
	int err;
};

struct runner;

/*
 * Starts a launcher (the path of gcratchet-launch) whose probes run in the folder `cwd` (NULL:
 * ours); -1 with a message when it cannot.
 */
int runner_open(const char *launcher, const char *cwd, struct runner **out, struct err *e);
/* Stops the launcher and frees the runner; NULL is fine. */
void runner_close(struct runner *r);

struct run_result {
	enum run_outcome outcome;
	int exit_code;
	int term_signal;
	int exec_errno;
	int64_t wall_ns, user_ns, sys_ns;
	int64_t maxrss_bytes; /* the probe's own peak RSS (from the launcher's wait4) */
	int64_t minflt, majflt, nvcsw, nivcsw;
	struct run_perf perf[RUNNER_MAX_EVENTS]; /* in the order of the request's events */
	size_t nperf;
	/* processes the probe left running after it ended, killed by the launcher */
	int leftovers;
	/*
	 * The probe's THP_enabled (/proc/PID/status, read by its process just before exec, after
	 * the launcher set the request's thp_host): 1 THP allowed, 0 off, -1 unknown (the run
	 * was lost, or died before exec). thp_errno: the prctl's errno, 0 when it succeeded.
	 */
	int thp_enabled, thp_errno;
	char *stdout_text;   /* captured stdout, truncated at RUNNER_STDOUT_MAX */
	char *census_text;   /* what arrived on the census pipe, NULL when nothing did */
	size_t census_bytes; /* how much arrived: above RUNNER_CENSUS_MAX, the text was cut */
	char *stderr_tail;   /* the last RUNNER_STDERR_TAIL bytes of stderr */
};

/* Runs the request; 0 with *res filled, or -1 when no launcher could take it. */
int runner_run(struct runner *r, const struct runner_request *req, struct run_result *res,
               struct err *e);
void run_result_release(struct run_result *res);
/* "exited 0", "SIGSEGV", "timeout", ...: a short human description; static storage. */
const char *run_result_describe(const struct run_result *res);

#endif /* RUNNER_H */
