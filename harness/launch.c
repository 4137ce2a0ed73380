/*
 * gcratchet-launch — the small, long-lived process that starts every probe of a session.
 *
 * Why it exists: the kernel folds a parent's resident size into a child's ru_maxrss across
 * fork and exec (posix_spawn and vfork too), so a harness holding hundreds of MB would inflate
 * the peak RSS of a small probe. The harness starts this launcher once per session; the
 * launcher starts each probe from its own small address space, so the probe's ru_maxrss, read
 * here with wait4, is the probe's own. Being long-lived, it costs one process and exec per run,
 * the same as a bare harness would, instead of two (launch_one says how the process is made).
 *
 * Usage: gcratchet-launch        (descriptor 3 is a SOCK_SEQPACKET socket to the harness)
 *
 * Protocol, one exchange per run (harness/runner.c is the other side):
 *   request  -> struct launch_request, nevents struct perf_event_attr, then argc
 *               NUL-terminated argv strings and envc envp strings; SCM_RIGHTS carries three
 *               descriptors: the probe's stdout, stderr and census pipe (which becomes the
 *               probe's descriptor 3).
 *   reply    <- "started pid=N\n" once the probe is forked (so the harness can kill it), then
 *               "status=exited|signaled|timeout|killed|exec_failed code=N signal=N wall_ns=N
 *                user_ns=N sys_ns=N maxrss_bytes=N minflt=N majflt=N nvcsw=N nivcsw=N errno=N
 *                leftovers=N thp_enabled=N thp_errno=N perf=V,E,R;V,E,R;...\n"  (per event:
 *                value, time enabled, time running in ns; "-ERRNO" for an event that could not
 *                be opened on the probe; thp_*: see launch_thp)
 *   kill     -> LAUNCH_KILL (launch.h) at any time during the run: the probe's process group is
 *               killed now and the reply says status=killed. One that crosses the reply of a
 *               probe that had ended already is ignored.
 * Perf events are opened on the child between fork and exec, disabled and enabled on exec,
 * so they count the probe from exec to exit and nothing of the launcher. Transparent huge pages
 * are set there too, off unless the request says thp_host (launch_thp).
 *
 * No probe outlives its session. The launcher is a child subreaper, so whatever a probe
 * starts, even in a session of its own (setsid), becomes the launcher's child once its parent
 * ends. After each run the launcher kills and reaps every such leftover before it replies;
 * "leftovers" counts those that were still running (the harness tells the user: their probe
 * leaks processes). While a probe runs the launcher listens to its socket: when the harness
 * goes away (it exited, crashed or was SIGKILLed, and the socket closed), the launcher kills
 * the probe's group and every leftover, then exits. The probe dies with the launcher too
 * (PR_SET_PDEATHSIG), should the launcher itself be killed.
 * The launcher exits when the harness closes the socket. Exit status: 0, or 2 on a protocol
 * error (message on stderr).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"

#define LAUNCH_SOCKET_FD   3
/* Killed leftovers get this long to die; one stuck in the kernel is left, not waited for. */
#define LAUNCH_SWEEP_MS    2000
/* Children killed per pass of the sweep. */
#define LAUNCH_SWEEP_BATCH 256

/* How a run ended; all but the first kill the probe's process group. */
enum launch_end {
	LAUNCH_END_EXITED,   /* the probe ended on its own */
	LAUNCH_END_TIMEOUT,  /* at the time limit */
	LAUNCH_END_KILLED,   /* the harness asked (LAUNCH_KILL) */
	LAUNCH_END_ORPHANED, /* the harness went away: nobody will read the result */
};

static int64_t launch_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t launch_tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

/* Splits `count` NUL-terminated strings off the front of [*p, end) into a NULL-ended array. */
static char **launch_strings(char **p, const char *end, uint32_t count)
{
	char **v = calloc((size_t)count + 1, sizeof *v);

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < count; i++) {
		size_t len = strnlen(*p, (size_t)(end - *p));
		if (*p + len >= end) {
			free(v);
			return NULL;
		}
		v[i] = *p;
		*p += len + 1;
	}
	return v;
}

/*
 * Waits for the probe up to timeout_ms (0: no limit) while listening to the harness, whose
 * LAUNCH_KILL, or whose socket closing, ends the wait too; then kills the probe's group unless
 * it ended on its own, and reaps the probe. Returns a launch_end, or -1 when wait4 fails.
 */
static int launch_wait(pid_t pid, int64_t timeout_ms, int sigfd, int *status, struct rusage *ru)
{
	int64_t deadline = launch_now_ns() + timeout_ms * 1000000;
	int end = LAUNCH_END_EXITED;

	for (;;) {
		struct pollfd pfd[2] = {{sigfd, POLLIN, 0}, {LAUNCH_SOCKET_FD, POLLIN, 0}};
		siginfo_t info = {0};
		int wait_ms = -1;

		/* A SIGCHLD may be left over, or come from a leftover: ask whether this one ended. */
		if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    info.si_pid == pid)
			break;
		if (timeout_ms > 0) {
			int64_t left = deadline - launch_now_ns();
			if (left <= 0) {
				end = LAUNCH_END_TIMEOUT;
				break;
			}
			left = (left + 999999) / 1000000;
			wait_ms = left > INT_MAX ? INT_MAX : (int)left;
		}
		if (poll(pfd, 2, wait_ms) < 0 && errno != EINTR) {
			/* Blind to the harness, the probe must not run on unwatched. */
			end = LAUNCH_END_ORPHANED;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si)
				;
		}
		if (pfd[1].revents) {
			char msg[16];
			ssize_t n = recv(LAUNCH_SOCKET_FD, msg, sizeof msg, MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n == (ssize_t)strlen(LAUNCH_KILL) &&
			    memcmp(msg, LAUNCH_KILL, (size_t)n) == 0)
				end = LAUNCH_END_KILLED;
			else
				end = LAUNCH_END_ORPHANED; /* closed, or it speaks nonsense: gone */
			break;
		}
	}
	if (end != LAUNCH_END_EXITED)
		kill(-pid, SIGKILL);
	while (wait4(pid, status, 0, ru) < 0)
		if (errno != EINTR)
			return -1;
	return end;
}

static void launch_pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/*
 * Lists up to max running children of `self` with their process groups, from /proc: no
 * system call names a process's children. Zombies are left out, they have ended. Returns how
 * many, or -1 when /proc cannot be read.
 */
static int launch_children(pid_t self, pid_t *pids, pid_t *pgrps, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while (n < max && (de = readdir(d))) {
		char path[64], text[512], *p, state;
		long pid = strtol(de->d_name, &p, 10);
		int fd, ppid, pgrp;
		ssize_t got;

		if (*p || pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		got = read(fd, text, sizeof text - 1);
		close(fd);
		if (got <= 0)
			continue;
		text[got] = '\0';
		/* The command name in parentheses may hold anything: parse after the last ')'. */
		p = strrchr(text, ')');
		if (!p || sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
			continue;
		if (ppid == self && state != 'Z' && state != 'X') {
			pids[n] = (pid_t)pid;
			pgrps[n++] = pgrp;
		}
	}
	closedir(d);
	return n;
}

/*
 * Kills and reaps everything the probe left behind, once the probe is reaped. Being a
 * subreaper, we are the parent of every leftover or of its ancestor, so each pass kills our
 * running children and reaps exactly those before looking again: their children are ours by
 * then, and nobody is counted twice. Members of skip_pgrp (a group the caller has killed
 * already) are not counted. Those stuck in the kernel past LAUNCH_SWEEP_MS are left for the
 * next sweep rather than waited for. Returns how many leftovers were still running.
 */
static int launch_sweep(pid_t skip_pgrp)
{
	static pid_t pids[LAUNCH_SWEEP_BATCH], pgrps[LAUNCH_SWEEP_BATCH];
	int64_t deadline = launch_now_ns() + (int64_t)LAUNCH_SWEEP_MS * 1000000;
	pid_t self = getpid();
	int killed = 0;

	for (;;) {
		siginfo_t info = {0};
		int n, left;

		/* Those that ended on their own were no longer running: reap, do not count. */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0)
			break; /* ECHILD: no child is left, the common case */
		if (launch_now_ns() > deadline)
			break;
		n = launch_children(self, pids, pgrps, LAUNCH_SWEEP_BATCH);
		if (n < 0)
			break;
		if (n == 0)
			launch_pause_ms(1); /* one is between running and zombie */
		for (int i = 0; i < n; i++)
			if (kill(pids[i], SIGKILL) == 0 && pgrps[i] != skip_pgrp)
				killed++;
		for (left = n; left > 0 && launch_now_ns() <= deadline;) {
			for (int i = 0; i < n; i++) {
				if (pids[i] && waitpid(pids[i], NULL, WNOHANG) != 0) {
					pids[i] = 0;
					left--;
				}
			}
			if (left > 0)
				launch_pause_ms(1);
		}
	}
	return killed;
}

/* What the probe's process got, sent ahead of anything else on the exec pipe. */
struct launch_thp_report {
	int32_t enabled; /* THP_enabled: 1, 0, or -1 when the kernel says neither */
	int32_t err;     /* prctl's errno, 0 when it succeeded */
};

/*
 * Transparent huge pages for the probe, in its process just before exec: a probe's RSS moves in
 * 2 MiB steps where THP backs its memory, so it is off (PR_SET_THP_DISABLE 1) unless the harness
 * asks for the host's setting (0: also undoes a disable the harness itself inherited). The flag
 * is kept across exec and fork (kernel >= 3.15) and needs no privilege. Then the process reads
 * its own THP_enabled line of /proc/self/status back (PR_GET_THP_DISABLE on kernels without the
 * line), so the run reports what it got, not what was asked: a seccomp filter may fail the prctl
 * or fake its success. Only async-signal-safe calls: this runs between fork and exec.
 */
static void launch_thp(uint32_t host, struct launch_thp_report *r)
{
	static const char key[] = "\nTHP_enabled:";
	char buf[4096], *p;
	size_t len = 0;
	ssize_t n;
	int fd, got;

	r->err = prctl(PR_SET_THP_DISABLE, host ? 0 : 1, 0, 0, 0) == 0 ? 0 : errno;
	r->enabled = -1;
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && len < sizeof buf - 1 &&
	       (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)n;
	if (fd >= 0)
		close(fd);
	buf[len] = '\0';
	if ((p = strstr(buf, key)) != NULL) {
		p += sizeof key - 1;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '0' || *p == '1')
			r->enabled = *p - '0';
	} else if ((got = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0)) >= 0) {
		r->enabled = got == 0;
	}
}

/* Opens the events on the child (which waits on go_fd) then lets it exec. */
static void launch_perf_open(pid_t pid, const struct perf_event_attr *attrs, uint32_t n,
                             int *perf_fds)
{
	for (uint32_t i = 0; i < n; i++) {
		struct perf_event_attr a = attrs[i];
		perf_fds[i] =
		    (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (perf_fds[i] < 0)
			perf_fds[i] = -errno;
	}
}

static void launch_perf_read(const int *perf_fds, uint32_t n, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (uint32_t i = 0; i < n && len < size; i++) {
		unsigned long long v[3] = {0, 0, 0};
		const char *sep = i ? ";" : " perf=";
		if (perf_fds[i] < 0) {
			len += (size_t)snprintf(out + len, size - len, "%s%d", sep, perf_fds[i]);
			continue;
		}
		if (read(perf_fds[i], v, sizeof v) != (ssize_t)sizeof v)
			v[0] = v[1] = v[2] = 0;
		close(perf_fds[i]);
		len += (size_t)snprintf(out + len, size - len, "%s%llu,%llu,%llu", sep, v[0], v[1],
		                        v[2]);
	}
}

/* What the probe's process needs between its creation and its exec (launch_child). */
struct launch_child {
	const struct launch_request *rq;
	char **argv, **envp;
	const int *fds; /* the probe's stdout, stderr and census pipe */
	int devnull;    /* its stdin */
	int exec_fd;    /* the exec pipe's write end: the THP report, then an errno if exec fails */
	int go_fd;      /* read end of the pipe the counters' attachment is awaited on; -1: none */
	pid_t launcher;
	const sigset_t *old;
};

/*
 * The probe's process, from its creation to exec. It runs either in a copy of the launcher
 * (fork) or on the launcher's memory, with the launcher suspended until it execs or exits
 * (clone with CLONE_VM | CLONE_VFORK): so it writes only its own stack and descriptors, and
 * calls only async-signal-safe functions. Never returns.
 */
static int launch_child_main(void *arg)
{
	const struct launch_child *c = arg;
	const struct launch_request *rq = c->rq;
	struct launch_thp_report thp;
	int e;
	char go;

	/* Its own process group: a timeout kills the probe and anything it started. */
	setpgid(0, 0);
	/* Should the launcher be killed, the probe goes with it rather than run on. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != c->launcher)
		_exit(127);
	/* Wait until the counters are attached: they must see the exec, not miss it. */
	if (c->go_fd >= 0 && read(c->go_fd, &go, 1) < 0)
		_exit(127);
	sigprocmask(SIG_SETMASK, c->old, NULL);
	if (c->devnull >= 0)
		dup2(c->devnull, 0);
	dup2(c->fds[0], 1);
	dup2(c->fds[1], 2);
	dup2(c->fds[2], 3);
	if (rq->no_aslr)
		personality(ADDR_NO_RANDOMIZE);
	/* First on the exec pipe, ahead of an errno: the launcher reads them in this order. */
	launch_thp(rq->thp_host, &thp);
	if (write(c->exec_fd, &thp, sizeof thp) < 0)
		_exit(127);
	if (rq->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(rq->cpu, &set);
		if (sched_setaffinity(0, sizeof set, &set) != 0) {
			e = errno;
			if (write(c->exec_fd, &e, sizeof e) < 0)
				_exit(127);
			_exit(127);
		}
	}
	execve(c->argv[0], c->argv, c->envp);
	e = errno;
	if (write(c->exec_fd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/*
 * The stack of a probe's process until its exec, when it is made on the launcher's memory.
 * One is enough: the launcher is suspended while that process uses it.
 */
static _Alignas(16) char launch_child_stack[64 * 1024];

/*
 * Runs one request and replies; 0, 1 when the harness has gone away, or -1 (see errno).
 *
 * Without counters, the probe's process is made on the launcher's memory (clone with
 * CLONE_VM | CLONE_VFORK, as posix_spawn does), not copied from it: a fork copied the
 * launcher's page tables and then faulted in every page of libc the child touched before its
 * exec, a fifth of a millisecond a run (docs/overhead.md). Its ru_maxrss is the same either
 * way: the launcher's small resident size at the exec. With counters it is forked, so the
 * launcher can attach them while the child waits on the go pipe (a suspended launcher could
 * not).
 */
static int launch_one(const struct launch_request *rq, const struct perf_event_attr *attrs,
                      char **argv, char **envp, int fds[3], int devnull, int sigfd,
                      const sigset_t *old)
{
	int exec_pipe[2], go_pipe[2] = {-1, -1}, exec_errno = 0, status = 0, end, leftovers;
	struct launch_thp_report thp;
	struct launch_child child;
	int perf_fds[LAUNCH_MAX_EVENTS];
	char perf_text[LAUNCH_MAX_EVENTS * 64];
	struct rusage ru;
	int64_t start_ns, wall_ns;
	pid_t pid;
	const char *kind;
	char line[512 + sizeof perf_text];

	if (pipe2(exec_pipe, O_CLOEXEC) != 0 || (rq->nevents && pipe2(go_pipe, O_CLOEXEC) != 0))
		return -1;
	child.rq = rq;
	child.argv = argv;
	child.envp = envp;
	child.fds = fds;
	child.devnull = devnull;
	child.exec_fd = exec_pipe[1];
	child.go_fd = go_pipe[0];
	child.launcher = getpid();
	child.old = old;
	start_ns = launch_now_ns();
	if (rq->nevents == 0) {
		pid = clone(launch_child_main, launch_child_stack + sizeof launch_child_stack,
		            CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
	} else {
		pid = fork();
		if (pid == 0) {
			close(go_pipe[1]);
			launch_child_main(&child);
		}
	}
	if (pid < 0)
		return -1;
	close(exec_pipe[1]);
	if (rq->nevents) {
		close(go_pipe[0]);
		launch_perf_open(pid, attrs, rq->nevents, perf_fds);
		close(go_pipe[1]);
	}
	/* Our copies must close so the harness sees EOF when the probe ends. */
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	snprintf(line, sizeof line, "started pid=%ld\n", (long)pid);
	if (send(LAUNCH_SOCKET_FD, line, strlen(line), MSG_NOSIGNAL) < 0)
		kill(-pid, SIGKILL);

	end = launch_wait(pid, rq->timeout_ms, sigfd, &status, &ru);
	wall_ns = launch_now_ns() - start_ns;
	if (end < 0)
		return -1;
	/* The probe's group was killed with it unless it ended on its own: those are no news. */
	leftovers = launch_sweep(end == LAUNCH_END_EXITED ? 0 : pid);
	if (end == LAUNCH_END_ORPHANED)
		return 1;
	/* A child that died before its THP report (it could not even wait for its counters). */
	if (read(exec_pipe[0], &thp, sizeof thp) != (ssize_t)sizeof thp) {
		thp.enabled = -1;
		thp.err = 0;
	}
	if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) != (ssize_t)sizeof exec_errno)
		exec_errno = 0;
	close(exec_pipe[0]);
	launch_perf_read(perf_fds, rq->nevents, perf_text, sizeof perf_text);

	if (exec_errno)
		kind = "exec_failed";
	else if (end == LAUNCH_END_TIMEOUT)
		kind = "timeout";
	else if (end == LAUNCH_END_KILLED)
		kind = "killed";
	else if (WIFSIGNALED(status))
		kind = "signaled";
	else
		kind = "exited";
	snprintf(
	    line, sizeof line,
	    "status=%s code=%d signal=%d wall_ns=%lld user_ns=%lld sys_ns=%lld maxrss_bytes=%lld "
	    "minflt=%ld majflt=%ld nvcsw=%ld nivcsw=%ld errno=%d leftovers=%d thp_enabled=%d "
	    "thp_errno=%d%s\n",
	    kind, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	    WIFSIGNALED(status) ? WTERMSIG(status) : 0, (long long)wall_ns,
	    (long long)launch_tv_ns(ru.ru_utime), (long long)launch_tv_ns(ru.ru_stime),
	    (long long)ru.ru_maxrss * 1024, ru.ru_minflt, ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw,
	    exec_errno, leftovers, (int)thp.enabled, (int)thp.err, perf_text);
	if (send(LAUNCH_SOCKET_FD, line, strlen(line), MSG_NOSIGNAL) < 0)
		return errno == EPIPE || errno == ECONNRESET ? 1 : -1;
	return 0;
}

int main(void)
{
	static _Alignas(8) char buf[LAUNCH_MAX_REQUEST];
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	sigset_t chld, old;
	int sigfd, devnull;

	if (fcntl(LAUNCH_SOCKET_FD, F_SETFD, FD_CLOEXEC) != 0) {
		fprintf(stderr, "gcratchet-launch: descriptor 3 (the harness socket) is not open; "
		                "this program is started by gcratchet\n");
		return 2;
	}
	/* The probes' stdin; -1 leaves theirs the launcher's (a /dev/null-less chroot). */
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		perror("gcratchet-launch: signalfd");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		fprintf(stderr,
		        "gcratchet-launch: cannot become a child subreaper (%s): a process a probe "
		        "starts in a session of its own will outlive it\n",
		        strerror(errno));

	for (;;) {
		struct iovec iov = {buf, sizeof buf};
		struct msghdr msg = {0};
		struct cmsghdr *c;
		struct launch_request rq;
		int fds[3] = {-1, -1, -1}, nfds = 0;
		char **argv = NULL, **envp = NULL, *p;
		const struct perf_event_attr *attrs;
		ssize_t n;
		int rc;

		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof cbuf;
		n = recvmsg(LAUNCH_SOCKET_FD, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			/* The harness is done; a leftover stuck at the last sweep may be gone now. */
			launch_sweep(0);
			return 0;
		}
		/* A kill that crossed the reply of a probe that had ended already. */
		if (n == (ssize_t)strlen(LAUNCH_KILL) && memcmp(buf, LAUNCH_KILL, (size_t)n) == 0)
			continue;
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
				memcpy(fds, CMSG_DATA(c),
				       sizeof(int) * (size_t)(nfds > 3 ? 3 : nfds));
			}
		}
		if (n < (ssize_t)sizeof rq || nfds != 3 ||
		    (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
			fprintf(stderr,
			        "gcratchet-launch: malformed request (%zd bytes, %d descriptors)\n",
			        n, nfds);
			return 2;
		}
		memcpy(&rq, buf, sizeof rq);
		p = buf + sizeof rq;
		if (rq.nevents > LAUNCH_MAX_EVENTS ||
		    (size_t)n < sizeof rq + rq.nevents * sizeof(struct perf_event_attr)) {
			fprintf(stderr, "gcratchet-launch: malformed request (events)\n");
			return 2;
		}
		attrs = (const struct perf_event_attr *)(const void *)p;
		p += rq.nevents * sizeof(struct perf_event_attr);
		argv = launch_strings(&p, buf + n, rq.argc);
		envp = argv ? launch_strings(&p, buf + n, rq.envc) : NULL;
		if (!argv || !envp || rq.argc == 0) {
			fprintf(stderr, "gcratchet-launch: malformed request strings\n");
			return 2;
		}
		rc = launch_one(&rq, attrs, argv, envp, fds, devnull, sigfd, &old);
		free(argv);
		free(envp);
		if (rc > 0)
			return 0; /* the harness went away; its probe and leftovers are dead */
		if (rc < 0) {
			perror("gcratchet-launch");
			return 2;
		}
	}
}
