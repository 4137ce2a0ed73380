/*
 * launch.h — the request the harness sends gcratchet-launch for each run (see launch.c for
 * the whole protocol). Both sides are built from this tree, so the struct travels raw.
 */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <linux/perf_event.h>
#include <stdint.h>

/* A request (header, argv and envp strings) must fit in one datagram of this size. */
#define LAUNCH_MAX_REQUEST (128 * 1024)

struct launch_request {
	int64_t timeout_ms; /* kill the probe's process group after this long; 0: no limit */
	uint32_t argc;      /* argv strings that follow; argv[0] is the program's path */
	uint32_t envc;      /* envp strings after them */
	uint32_t no_aslr;   /* run with address-space randomisation off */
	uint32_t nevents;   /* perf_event_attr structs that follow, before the strings */
	int32_t cpu;        /* pin the probe to this CPU; -1: leave it free */
	/*
	 * 0: transparent huge pages off for the probe (prctl PR_SET_THP_DISABLE 1 before exec);
	 * 1: as the host is configured (PR_SET_THP_DISABLE 0, whatever the harness inherited)
	 */
	uint32_t thp_host;
};

/* The perf_event_attr structs that follow the header must stay 8-byte aligned. */
_Static_assert(sizeof(struct launch_request) % 8 == 0, "launch_request must keep 8-byte alignment");

/* At most this many perf events per run. */
#define LAUNCH_MAX_EVENTS 8

/*
 * Sent alone (no descriptors) while a run is going: kill the probe now. Its result comes
 * back as usual, with status=killed, unless the probe had already ended on its own.
 */
#define LAUNCH_KILL "kill"

#endif /* LAUNCH_H */
