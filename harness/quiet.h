/*
 * quiet.h — keeping measuring sessions from disturbing each other.
 *
 * The bench lock: one measuring session per host at a time, whatever database each uses, so
 * two CI jobs on one machine never time each other. It is an flock on a file (default
 * /tmp/gcratchet-bench.lock, or $GCR_LOCK_FILE) that also records the holder's pid and start
 * time for the message of whoever waits, and an abstract Unix socket named after that path,
 * bound while the lock is held, which no one can remove the way a file in /tmp can be
 * removed. The kernel drops both when the holder exits, crashed or not, so a stale lock
 * cannot exist.
 *
 * Invariants:
 * - The lock file is a regular file with one link, opened without following a symbolic
 *   link; anything else at the path is refused, and nothing is written through it.
 * - Only a lock file owned by this user is ever truncated; the note goes into another user's
 *   as one padded line at its start.
 * - A lock is held only on the file the path names when it is taken (a file removed or
 *   replaced meanwhile is given up and the path opened again).
 * - Nested: a process that holds the lock takes it again at once; it is let go at the
 *   quiet_unlock that matches the first quiet_lock.
 *
 * The idleness gate: wait until the 1-minute load average is below a threshold.
 *
 * The calibration: how much the host itself spreads one fixed piece of work from run to run,
 * the figure a time band must stand above to mean anything.
 */
#ifndef QUIET_H
#define QUIET_H

#include "util.h"

#define QUIET_DEFAULT_LOCK "/tmp/gcratchet-bench.lock"

/*
 * A wait for the lock (or for the host to be idle), as it goes, for whoever shows it: the
 * core prints nothing. The callback is called once when the wait begins, again at every poll
 * while it goes on (a tenth of a second for the lock, a second for the load: the caller
 * decides what to show and how often), and once when what was waited for is granted, never
 * when the wait gives up (the error then says why).
 */
enum quiet_wait_state {
	QUIET_WAIT_BEGIN, /* why: "waiting for the bench lock PATH, held by HOLDER" */
	QUIET_WAIT_STILL, /* why: the same sentence, with the holder as it is now */
	QUIET_WAIT_DONE,  /* why: "bench lock granted after 12 s" */
};
struct quiet_wait {
	enum quiet_wait_state state;
	const char *why;   /* borrowed for the call; may quote a holder's note: make it safe */
	int64_t waited_ns; /* since the wait began */
	int changed;       /* STILL: another process holds the lock than at the last call */
};
typedef void (*quiet_wait_fn)(void *ctx, const struct quiet_wait *w);

/*
 * Takes the bench lock, waiting up to timeout_s seconds (0: do not wait). *fd holds it until
 * quiet_unlock. -1 with a message naming the holder (ERR_BUSY) when it could not be had in
 * time, or naming the path when it is not a lock file that can be used (ERR_INVALID: a
 * symbolic link, a hard link, not a regular file). The holder's note in a message is as the
 * file holds it: the caller makes it safe to print.
 */
int quiet_lock(int timeout_s, quiet_wait_fn waiting, void *ctx, int *fd, struct err *e);
void quiet_unlock(int fd);

/* Waits until the load is below max_load, up to timeout_s; -1 with the last load if not. */
int quiet_wait_idle(double max_load, int timeout_s, quiet_wait_fn waiting, void *ctx, double *load,
                    struct err *e);

/* The run-to-run spread of a fixed CPU loop on this host, now. */
struct quiet_calibration {
	int reps;
	double loop_ms;    /* the median time of one loop */
	double spread_pct; /* quiet_spread_pct of the reps' wall times */
};

/*
 * Times a fixed CPU loop of about target_ms, reps times after one untimed warm-up, in this
 * process, by the monotonic clock: on a quiet host each takes the same time, on a busy one
 * the scheduler and the other processes spread them. Takes about reps * target_ms.
 */
void quiet_calibrate(int reps, int target_ms, struct quiet_calibration *out);
/* (p90 - p10) / median of n > 0 times, in percent: a spread that one outlier cannot set. */
double quiet_spread_pct(const double *x, size_t n);

#endif /* QUIET_H */
