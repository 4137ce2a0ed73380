/*
 * gcratchet-launch — the tiny process between the harness and a probe.
 *
 * Why it exists: the kernel folds a parent's resident size into a child's ru_maxrss across
 * fork and exec (posix_spawn and vfork too), so a harness holding hundreds of MB would inflate
 * the peak RSS of a small probe. This launcher is exec'd by the harness (its own ru_maxrss is
 * polluted, and nobody reads it), then forks the probe from its own small address space; the
 * probe's ru_maxrss, read here with wait4, is then the probe's own.
 *
 * Usage: gcratchet-launch [-R] TIMEOUT_MS PROGRAM [ARG...]
 *   -R          run PROGRAM with address-space randomisation off (deterministic layouts)
 *   TIMEOUT_MS  SIGKILL the probe after this long (0 = no limit)
 *
 * Descriptor 4 must be open for writing: one result line goes there when the probe has ended,
 *   status=exited|signaled|timeout|exec_failed code=N signal=N wall_ns=N user_ns=N sys_ns=N
 *   maxrss_bytes=N minflt=N majflt=N nvcsw=N nivcsw=N errno=N
 * Every other descriptor (the census pipe on 3 among them) passes through to the probe.
 * Exit status: 0 when a result line was written, 2 otherwise (message on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LAUNCH_RESULT_FD 4

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

static int launch_usage(const char *why)
{
	fprintf(stderr, "gcratchet-launch: %s\nusage: gcratchet-launch [-R] TIMEOUT_MS PROGRAM [ARG...]\n",
		why);
	return 2;
}

int main(int argc, char **argv)
{
	int argi = 1, no_aslr = 0, exec_pipe[2], exec_errno = 0, status = 0, timed_out = 0;
	long timeout_ms;
	char *end;
	sigset_t chld, old;
	struct rusage ru;
	int64_t start_ns, wall_ns;
	pid_t pid;
	const char *kind;

	if (argi < argc && strcmp(argv[argi], "-R") == 0) {
		no_aslr = 1;
		argi++;
	}
	if (argc - argi < 2)
		return launch_usage("missing TIMEOUT_MS or PROGRAM");
	errno = 0;
	timeout_ms = strtol(argv[argi], &end, 10);
	if (errno || *end || timeout_ms < 0)
		return launch_usage("TIMEOUT_MS must be a non-negative integer");
	argi++;
	if (fcntl(LAUNCH_RESULT_FD, F_SETFD, FD_CLOEXEC) != 0)
		return launch_usage("descriptor 4 (the result pipe) is not open");

	/* The exec pipe reports an exec failure from the child; it closes on a successful exec. */
	if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
		perror("gcratchet-launch: pipe");
		return 2;
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);

	start_ns = launch_now_ns();
	pid = fork();
	if (pid < 0) {
		perror("gcratchet-launch: fork");
		return 2;
	}
	if (pid == 0) {
		int e;

		sigprocmask(SIG_SETMASK, &old, NULL);
		close(exec_pipe[0]);
		if (no_aslr)
			personality(ADDR_NO_RANDOMIZE);
		execv(argv[argi], argv + argi);
		e = errno;
		if (write(exec_pipe[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(exec_pipe[1]);
	/* Our copy of the census pipe must close so the harness sees EOF when the probe ends. */
	close(3);

	if (timeout_ms > 0) {
		struct timespec left = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000};
		for (;;) {
			int64_t before = launch_now_ns(), spent;
			int sig = sigtimedwait(&chld, NULL, &left);
			if (sig == SIGCHLD)
				break;
			if (sig < 0 && errno == EAGAIN) {
				kill(pid, SIGKILL);
				timed_out = 1;
				break;
			}
			/* EINTR: recompute what is left of the limit. */
			spent = launch_now_ns() - before;
			int64_t left_ns = (int64_t)left.tv_sec * 1000000000 + left.tv_nsec - spent;
			if (left_ns <= 0)
				left_ns = 1;
			left.tv_sec = left_ns / 1000000000;
			left.tv_nsec = left_ns % 1000000000;
		}
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("gcratchet-launch: wait4");
			return 2;
		}
	}
	wall_ns = launch_now_ns() - start_ns;
	if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) != (ssize_t)sizeof exec_errno)
		exec_errno = 0;

	if (exec_errno)
		kind = "exec_failed";
	else if (timed_out)
		kind = "timeout";
	else if (WIFSIGNALED(status))
		kind = "signaled";
	else
		kind = "exited";
	dprintf(LAUNCH_RESULT_FD,
		"status=%s code=%d signal=%d wall_ns=%lld user_ns=%lld sys_ns=%lld maxrss_bytes=%lld "
		"minflt=%ld majflt=%ld nvcsw=%ld nivcsw=%ld errno=%d\n",
		kind, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		WIFSIGNALED(status) ? WTERMSIG(status) : 0, (long long)wall_ns,
		(long long)launch_tv_ns(ru.ru_utime), (long long)launch_tv_ns(ru.ru_stime),
		(long long)ru.ru_maxrss * 1024, ru.ru_minflt, ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw,
		exec_errno);
	return 0;
}
