/*
 * quiet.h — keeping measuring sessions from disturbing each other.
 *
 * The bench lock: one measuring session per host at a time, whatever database each uses, so
 * two CI jobs on one machine never time each other. It is an flock on a file (default
 * /tmp/gcratchet-bench.lock, or $GCR_LOCK_FILE) that also records the holder's pid and start
 * time for the message of whoever waits. The kernel drops it when the holder exits, crashed
 * or not, so a stale lock cannot exist.
 *
 * The idleness gate: wait until the 1-minute load average is below a threshold.
 */
#ifndef QUIET_H
#define QUIET_H

#include "util.h"

#define QUIET_DEFAULT_LOCK "/tmp/gcratchet-bench.lock"

/* Called once when the lock (or the host) is busy, with who holds it or what the load is. */
typedef void (*quiet_wait_fn)(void *ctx, const char *why);

/*
 * Takes the bench lock, waiting up to timeout_s seconds (0: do not wait). *fd holds it until
 * quiet_unlock. -1 with a message naming the holder when it could not be had in time.
 */
int quiet_lock(int timeout_s, quiet_wait_fn waiting, void *ctx, int *fd, struct err *e);
void quiet_unlock(int fd);

/* Waits until the load is below max_load, up to timeout_s; -1 with the last load if not. */
int quiet_wait_idle(double max_load, int timeout_s, quiet_wait_fn waiting, void *ctx, double *load,
                    struct err *e);

#endif /* QUIET_H */
