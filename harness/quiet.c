#include "quiet.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostinfo.h"
#include "stats.h"

#define QUIET_POLL_US 100000

static const char *quiet_lock_path(void)
{
	const char *env = getenv("GCR_LOCK_FILE");

	return env && *env ? env : QUIET_DEFAULT_LOCK;
}

/* The holder's note: "pid 1234 since 2026-11-30T10:00:00Z". */
static void quiet_holder(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0])
		snprintf(buf, size, "another process");
}

/*
 * The lock is one file for every user of the host, since they share its CPUs. Whoever creates
 * it makes it 0666 whatever their umask, so the next user can open it; a file left 0644 by an
 * older gcratchet is still lockable read-only (flock needs no write access), only the
 * holder's note is then not written. O_CREAT is kept off opens of an existing file because
 * protected_regular refuses it in sticky folders such as /tmp for a file someone else owns.
 */
static int quiet_open(const char *path)
{
	for (int tries = 0; tries < 3; tries++) {
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno == EACCES)
			return open(path, O_RDONLY | O_CLOEXEC);
		if (errno != ENOENT)
			return -1;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			if (fchmod(fd, 0666) != 0) {
				/* Still ours to use; the next user gets the error that says why. */
			}
			return fd;
		}
		if (errno != EEXIST)
			return -1;
		/* Another process created it between our two opens: open theirs. */
	}
	return -1;
}

int quiet_lock(int timeout_s, quiet_wait_fn waiting, void *ctx, int *fd, struct err *e)
{
	const char *path = quiet_lock_path();
	int64_t deadline = now_mono_ns() + (int64_t)timeout_s * 1000000000;
	char holder[128], when[32], note[160];
	int told = 0;

	*fd = quiet_open(path);
	if (*fd < 0)
		return err_setc(e, errno == EACCES || errno == EPERM ? ERR_BUSY : ERR_IO,
		                "%s: cannot open the bench lock: %s (it is shared by every user "
		                "of this host: make it mode 0666, or give each a GCR_LOCK_FILE)",
		                path, strerror(errno));
	while (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			err_set(e, "%s: cannot take the bench lock: %s", path, strerror(errno));
			goto fail;
		}
		quiet_holder(*fd, holder, sizeof holder);
		if (now_mono_ns() >= deadline) {
			err_set(
			    e,
			    "the bench lock %s is held by %s; gave up after %d s (--lock-timeout)",
			    path, holder, timeout_s);
			goto fail;
		}
		if (!told && waiting) {
			char msg[256];
			snprintf(msg, sizeof msg, "waiting for the bench lock %s, held by %s", path,
			         holder);
			waiting(ctx, msg);
			told = 1;
		}
		usleep(QUIET_POLL_US);
	}
	format_utc(now_real_ns(), when, sizeof when);
	snprintf(note, sizeof note, "pid %ld since %s\n", (long)getpid(), when);
	if (ftruncate(*fd, 0) != 0 || pwrite(*fd, note, strlen(note), 0) < 0) {
		/* The note is a courtesy to waiters; the lock itself is held. */
	}
	return 0;
fail:
	close(*fd);
	*fd = -1;
	return -1;
}

void quiet_unlock(int fd)
{
	if (fd < 0)
		return;
	if (ftruncate(fd, 0) != 0) {
		/* A stale note only misleads a waiter's message; the lock goes with close. */
	}
	close(fd);
}

int quiet_wait_idle(double max_load, int timeout_s, quiet_wait_fn waiting, void *ctx, double *load,
                    struct err *e)
{
	int64_t deadline = now_mono_ns() + (int64_t)timeout_s * 1000000000;
	int told = 0;

	for (;;) {
		*load = hostinfo_load1();
		if (*load >= 0 && *load < max_load)
			return 0;
		if (now_mono_ns() >= deadline)
			return err_set(e,
			               "the host is not idle: load %.2f is not below %.2f after %d "
			               "s (--idle-timeout)",
			               *load, max_load, timeout_s);
		if (!told && waiting) {
			char msg[128];
			snprintf(msg, sizeof msg, "waiting for the load (%.2f) to fall below %.2f",
			         *load, max_load);
			waiting(ctx, msg);
			told = 1;
		}
		sleep(1);
	}
}

double quiet_spread_pct(const double *x, size_t n)
{
	double median = stats_median(x, n);

	if (median == 0)
		return 0;
	return 100.0 * (stats_quantile(x, n, 0.9) - stats_quantile(x, n, 0.1)) / fabs(median);
}

/* The loop: a multiply-add chain the compiler cannot fold, its result kept; it wraps. */
static volatile uint64_t quiet_sink;

UTIL_WRAPS_ON_PURPOSE
static void quiet_loop(uint64_t iters)
{
	uint64_t x = quiet_sink | 1;

	for (uint64_t i = 0; i < iters; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	quiet_sink = x;
}

void quiet_calibrate(int reps, int target_ms, struct quiet_calibration *out)
{
	uint64_t iters = 1u << 20;
	double *ns = xcalloc(reps > 0 ? (size_t)reps : 1, sizeof *ns);
	int64_t t0;

	memset(out, 0, sizeof *out);
	/* Size the loop once; it is then the same work on every repetition. */
	for (;;) {
		t0 = now_mono_ns();
		quiet_loop(iters);
		if (now_mono_ns() - t0 >= 5000000 || iters >= (1ull << 40))
			break;
		iters *= 2;
	}
	iters = (uint64_t)((double)iters * target_ms * 1e6 / (double)(now_mono_ns() - t0 + 1));
	quiet_loop(iters);
	for (int i = 0; i < reps; i++) {
		t0 = now_mono_ns();
		quiet_loop(iters);
		ns[i] = (double)(now_mono_ns() - t0);
	}
	out->reps = reps;
	if (reps > 0) {
		out->loop_ms = stats_median(ns, (size_t)reps) / 1e6;
		out->spread_pct = quiet_spread_pct(ns, (size_t)reps);
	}
	free(ns);
}
