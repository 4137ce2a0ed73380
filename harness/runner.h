/*
 * runner.h — runs one probe once and says what happened.
 *
 * A run goes harness -> gcratchet-launch -> probe (see launch.c for why the launcher exists).
 * The runner hands the probe a census pipe as descriptor 3 (GCR_CENSUS_FD=3), captures its
 * stdout (up to RUNNER_STDOUT_MAX bytes) and the tail of its stderr, and enforces a timeout
 * twice: the launcher kills the probe at the limit, and the runner kills the launcher's whole
 * process group if the launcher itself has not answered a few seconds later.
 *
 * Invariants:
 * - runner_run returns 0 whenever it could start the launcher; the outcome of the probe (exit
 *   code, signal, timeout) is data in the result, not an error.
 * - The result owns its strings; run_result_release frees them.
 */
#ifndef RUNNER_H
#define RUNNER_H

#include <stdint.h>

#include "util.h"

#define RUNNER_STDOUT_MAX (1 << 20)
#define RUNNER_CENSUS_MAX (4 << 20)
#define RUNNER_STDERR_TAIL 4096

enum run_outcome {
	RUN_EXITED,      /* exited on its own; see exit_code */
	RUN_SIGNALED,    /* killed by a signal it did not ask for; see term_signal */
	RUN_TIMEOUT,     /* killed at the time limit */
	RUN_EXEC_FAILED, /* the program could not be started; see exec_errno */
	RUN_LOST,        /* the launcher gave no result (it was killed or crashed) */
};

struct runner_request {
	const char *program;   /* path of the executable */
	char *const *argv;     /* argv[0] first, NULL-terminated */
	char *const *envp;     /* the probe's whole environment, NULL-terminated */
	const char *launcher;  /* path of gcratchet-launch */
	int64_t timeout_ms;    /* 0: no limit */
	int no_aslr;           /* run with address-space randomisation off */
};

struct run_result {
	enum run_outcome outcome;
	int exit_code;
	int term_signal;
	int exec_errno;
	int64_t wall_ns, user_ns, sys_ns;
	int64_t maxrss_bytes; /* the probe's own peak RSS (from the launcher's wait4) */
	int64_t minflt, majflt, nvcsw, nivcsw;
	char *stdout_text;  /* captured stdout, truncated at RUNNER_STDOUT_MAX */
	char *census_text;  /* what arrived on the census pipe, NULL when nothing did */
	char *stderr_tail;  /* the last RUNNER_STDERR_TAIL bytes of stderr */
};

/* Runs the request; 0 with *res filled, or -1 when the launcher could not be started. */
int runner_run(const struct runner_request *req, struct run_result *res, struct err *e);
void run_result_release(struct run_result *res);
/* "exited 0", "SIGSEGV", "timeout", ...: a short human description; static storage. */
const char *run_result_describe(const struct run_result *res);

#endif /* RUNNER_H */
