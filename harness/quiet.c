#include "quiet.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "hostinfo.h"
#include "sha256.h"
#include "stats.h"

#define QUIET_POLL_US    100000
/*
 * The holder's note is written as one line of this many bytes, padded with spaces: a note
 * over a longer one leaves no tail of it on its first line, so a file the session did not
 * create never needs truncating.
 */
#define QUIET_NOTE_BYTES 80
/* The holder, when its note says nothing. */
#define QUIET_NO_NOTE    "another process"

static const char *quiet_lock_path(void)
{
	const char *env = getenv("GCR_LOCK_FILE");

	return env && *env ? env : QUIET_DEFAULT_LOCK;
}

/*
 * What this process holds: the lock file, the companion socket, and how many quiet_lock calls
 * it answers. A verb that runs several sessions (ratchet: measure, then minimum heaps) takes
 * the lock once around them, and each session's own quiet_lock nests inside.
 */
static struct {
	int fd, sock, depth, owned;
} quiet_held = {-1, -1, 0, 0};

/* The holder's note: "pid 1234 since 2026-11-30T10:00:00Z", its padding trimmed. */
static void quiet_holder(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);
	size_t len;

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	len = strlen(buf);
	while (len > 0 && buf[len - 1] == ' ')
		buf[--len] = '\0';
	if (!buf[0])
		snprintf(buf, size, "%s", QUIET_NO_NOTE);
}

/*
 * The lock's path must name the file the lock is on, and nothing else may be written through
 * it: a symbolic link (refused by O_NOFOLLOW) or a hard link (a second name) planted at a
 * shared path such as /tmp/gcratchet-bench.lock would make the next session, root's perhaps,
 * write its note into the file linked to; a FIFO or a device is no lock file at all.
 */
static int quiet_check_file(const char *path, int fd, struct err *e)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return err_setc(e, ERR_IO, "%s: cannot read the bench lock: %s", path,
		                strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_setc(e, ERR_INVALID,
		                "%s: the bench lock is not a regular file: refusing to use it "
		                "(remove it, or give GCR_LOCK_FILE another path)",
		                path);
	if (st.st_nlink != 1)
		return err_setc(e, ERR_INVALID,
		                "%s: the bench lock has %ju links (a hard link to another file?): "
		                "refusing to write through it (remove it, or give GCR_LOCK_FILE "
		                "another path)",
		                path, (uintmax_t)st.st_nlink);
	return 0;
}

/*
 * The lock is one file for every user of the host, since they share its CPUs. Whoever creates
 * it makes it 0666 whatever their umask, so the next user can open it; a file left 0644 by an
 * older gcratchet is still lockable read-only (flock needs no write access), only the
 * holder's note is then not written. O_CREAT is kept off opens of an existing file because
 * protected_regular refuses it in sticky folders such as /tmp for a file someone else owns.
 * O_NONBLOCK keeps the open of a FIFO planted there from waiting for a writer; the check
 * after it refuses one.
 */
static int quiet_open(const char *path, int *out, struct err *e)
{
	const int flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
	int fd = -1;

	for (int tries = 0; tries < 3 && fd < 0; tries++) {
		fd = open(path, O_RDWR | flags);
		if (fd < 0 && errno == EACCES)
			fd = open(path, O_RDONLY | flags);
		if (fd >= 0 || errno != ENOENT)
			break;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | flags, 0666);
		if (fd >= 0) {
			if (fchmod(fd, 0666) != 0) {
				/* Still ours to use; the next user gets the error that says why. */
			}
			break;
		}
		if (errno != EEXIST)
			break;
		/* Another process created it between our two opens: open theirs. */
	}
	if (fd < 0) {
		if (errno == ELOOP)
			return err_setc(e, ERR_INVALID,
			                "%s: the bench lock is a symbolic link: refusing to follow "
			                "it (remove it, or give GCR_LOCK_FILE another path)",
			                path);
		if (errno == EISDIR)
			return err_setc(e, ERR_INVALID,
			                "%s: the bench lock is not a regular file: refusing to use "
			                "it (remove it, or give GCR_LOCK_FILE another path)",
			                path);
		return err_setc(e, errno == EACCES || errno == EPERM ? ERR_BUSY : ERR_IO,
		                "%s: cannot open the bench lock: %s (it is shared by every user "
		                "of this host: make it mode 0666, or give each a GCR_LOCK_FILE)",
		                path, strerror(errno));
	}
	if (quiet_check_file(path, fd, e) != 0) {
		close(fd);
		return -1;
	}
	*out = fd;
	return 0;
}

/*
 * 1 when the path still names the file fd is open on. A lock taken on a file that was
 * removed (a tmp cleaner, another user) or replaced since it was opened excludes no one who
 * opens the path now.
 */
static int quiet_same_file(const char *path, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * The companion of the lock file: an abstract Unix socket named after the lock's path, bound
 * while the lock is held. A file can be removed while it is locked, and the next session then
 * creates and locks a new one at once; a bound abstract name cannot be removed by anyone, and
 * the kernel frees it with its process, so a second session still finds the lock taken.
 * The name hashes the path with its folder resolved, so two spellings of one path agree.
 */
static void quiet_socket_name(const char *path, struct sockaddr_un *sa, socklen_t *len)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *real = NULL, *full;
	const char *base = slash ? slash + 1 : path;
	char hex[SHA256_HEX_LEN + 1];

	if (slash)
		*slash = '\0';
	real = realpath(slash ? (*dir ? dir : "/") : ".", NULL);
	full = xasprintf("%s/%s", real ? real : dir, base);
	sha256_hex(full, strlen(full), hex);
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	/* sun_path[0] == '\0': the abstract namespace, no file. */
	snprintf(sa->sun_path + 1, sizeof sa->sun_path - 1, "gcratchet-bench-lock:%s", hex);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa->sun_path + 1));
	free(full);
	free(real);
	free(dir);
}

/* 0 with *sock bound, 1 when another process has the name, -1 with e on any other failure. */
static int quiet_bind(const char *path, int *sock, struct err *e)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return err_setc(e, ERR_IO, "%s: cannot make the bench lock's socket: %s", path,
		                strerror(errno));
	quiet_socket_name(path, &sa, &len);
	if (bind(fd, (struct sockaddr *)&sa, len) == 0 && listen(fd, 4) == 0) {
		*sock = fd;
		return 0;
	}
	close(fd);
	if (errno == EADDRINUSE)
		return 1;
	return err_setc(e, ERR_IO, "%s: cannot bind the bench lock's socket: %s", path,
	                strerror(errno));
}

/* Who has the companion socket, for the message of a session that must wait. */
static void quiet_socket_holder(const char *path, char *buf, size_t size)
{
	struct sockaddr_un sa;
	struct ucred cred;
	socklen_t len, clen = sizeof cred;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	quiet_socket_name(path, &sa, &len);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, len) == 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0 && cred.pid > 0)
		snprintf(buf, size, "pid %ld (its lock file was removed while it held it)",
		         (long)cred.pid);
	else
		snprintf(buf, size, "another process (its lock file was removed while it held it)");
	if (fd >= 0)
		close(fd);
}

/* The note, one line padded to QUIET_NOTE_BYTES; only a file of our own is truncated. */
static void quiet_write_note(int fd, int owned)
{
	char when[32], note[QUIET_NOTE_BYTES + 1];
	int n;

	format_utc(now_real_ns(), when, sizeof when);
	n = snprintf(note, sizeof note, "pid %ld since %s", (long)getpid(), when);
	if (n < 0 || n >= QUIET_NOTE_BYTES)
		n = 0;
	memset(note + n, ' ', (size_t)(QUIET_NOTE_BYTES - 1 - n));
	note[QUIET_NOTE_BYTES - 1] = '\n';
	note[QUIET_NOTE_BYTES] = '\0';
	if ((owned && ftruncate(fd, 0) != 0) || pwrite(fd, note, QUIET_NOTE_BYTES, 0) < 0) {
		/* The note is a courtesy to waiters; the lock itself is held. */
	}
}

int quiet_lock(int timeout_s, quiet_wait_fn waiting, void *ctx, int *fd, struct err *e)
{
	const char *path = quiet_lock_path();
	int64_t deadline = now_mono_ns() + (int64_t)timeout_s * 1000000000;
	char holder[160] = "another process", last[160] = "", msg[320];
	int told = 0, retried = 0, by_socket = 0, sock = -1, r;
	int64_t began = now_mono_ns();
	struct stat st;

	*fd = -1;
	if (quiet_held.depth > 0) {
		quiet_held.depth++;
		*fd = quiet_held.fd;
		return 0;
	}
	for (;;) {
		if (*fd < 0 && quiet_open(path, fd, e) != 0)
			return -1;
		if (flock(*fd, LOCK_EX | LOCK_NB) == 0) {
			/* Locked a file the path no longer names: try again on the one it names. */
			if (!quiet_same_file(path, *fd)) {
				close(*fd);
				*fd = -1;
				if (retried++ < 3)
					continue;
				snprintf(holder, sizeof holder,
				         "another process (the lock file keeps being replaced)");
			} else if ((r = quiet_bind(path, &sock, e)) < 0) {
				goto fail;
			} else if (r == 0) {
				break;
			} else {
				flock(*fd, LOCK_UN);
				by_socket = 1;
			}
		} else if (errno != EWOULDBLOCK && errno != EINTR) {
			err_setc(e, ERR_IO, "%s: cannot take the bench lock: %s", path,
			         strerror(errno));
			goto fail;
		} else {
			char now[sizeof holder];
			quiet_holder(*fd, now, sizeof now);
			/* A holder writes its note just after it locks: none for that moment is no
			 * change of holder. */
			if (!told || strcmp(now, QUIET_NO_NOTE) != 0)
				snprintf(holder, sizeof holder, "%s", now);
		}
		/* Asked only for a message: each asking queues a connection on the holder's socket. */
		if (by_socket && (now_mono_ns() >= deadline || (!told && waiting)))
			quiet_socket_holder(path, holder, sizeof holder);
		by_socket = 0;
		if (now_mono_ns() >= deadline) {
			err_setc(
			    e, ERR_BUSY,
			    "the bench lock %s is held by %s; gave up after %d s (--lock-timeout)",
			    path, holder, timeout_s);
			goto fail;
		}
		if (waiting) {
			struct quiet_wait w = {told ? QUIET_WAIT_STILL : QUIET_WAIT_BEGIN, msg,
			                       now_mono_ns() - began,
			                       told && strcmp(last, holder) != 0};
			snprintf(msg, sizeof msg, "waiting for the bench lock %s, held by %s", path,
			         holder);
			waiting(ctx, &w);
			snprintf(last, sizeof last, "%s", holder);
			told = 1;
		}
		usleep(QUIET_POLL_US);
		retried = 0;
		/* The holder's file may have been removed or replaced meanwhile: open anew. */
		if (*fd >= 0 && !quiet_same_file(path, *fd)) {
			close(*fd);
			*fd = -1;
		}
	}
	quiet_held.owned = fstat(*fd, &st) == 0 && st.st_uid == geteuid();
	quiet_write_note(*fd, quiet_held.owned);
	if (told) {
		int64_t waited = now_mono_ns() - began;
		struct quiet_wait w = {QUIET_WAIT_DONE, msg, waited, 0};
		snprintf(msg, sizeof msg, "bench lock granted after %lld s",
		         (long long)((waited + 500000000) / 1000000000));
		waiting(ctx, &w);
	}
	quiet_held.fd = *fd;
	quiet_held.sock = sock;
	quiet_held.depth = 1;
	return 0;
fail:
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return -1;
}

void quiet_unlock(int fd)
{
	if (fd < 0 || fd != quiet_held.fd || quiet_held.depth == 0)
		return;
	if (--quiet_held.depth > 0)
		return;
	if (quiet_held.owned && ftruncate(fd, 0) != 0) {
		/* A stale note only misleads a waiter's message; the lock goes with close. */
	}
	close(quiet_held.sock);
	close(fd);
	quiet_held.fd = quiet_held.sock = -1;
	quiet_held.owned = 0;
}

int quiet_wait_idle(double max_load, int timeout_s, quiet_wait_fn waiting, void *ctx, double *load,
                    struct err *e)
{
	int64_t began = now_mono_ns(), deadline = began + (int64_t)timeout_s * 1000000000;
	int told = 0;
	char msg[128];

	for (;;) {
		*load = hostinfo_load1();
		if (*load >= 0 && *load < max_load) {
			if (told) {
				int64_t waited = now_mono_ns() - began;
				struct quiet_wait w = {QUIET_WAIT_DONE, msg, waited, 0};
				snprintf(msg, sizeof msg,
				         "the load (%.2f) fell below %.2f after %lld s", *load,
				         max_load, (long long)((waited + 500000000) / 1000000000));
				waiting(ctx, &w);
			}
			return 0;
		}
		if (now_mono_ns() >= deadline)
			return err_setc(
			    e, ERR_BUSY,
			    "the host is not idle: load %.2f is not below %.2f after %d "
			    "s (--idle-timeout)",
			    *load, max_load, timeout_s);
		if (waiting) {
			struct quiet_wait w = {told ? QUIET_WAIT_STILL : QUIET_WAIT_BEGIN, msg,
			                       now_mono_ns() - began, 0};
			snprintf(msg, sizeof msg, "waiting for the load (%.2f) to fall below %.2f",
			         *load, max_load);
			waiting(ctx, &w);
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
