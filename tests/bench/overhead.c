/*
 * overhead — the cost of a bare fork/exec/wait4 of a program, per run, for comparing with
 * the harness's cost per run (tests/bench/overhead.sh puts the two side by side;
 * docs/overhead.md has the method and the figures).
 * Usage: overhead N PROGRAM [ARG...]  runs PROGRAM N times, one after the other, and prints the
 *                                     median and mean wall time per run (exit 1 when a run
 *                                     did not exit 0);
 *        overhead -t PROGRAM [ARG...] runs it once and prints "WALL_NS CPU_NS" on stderr, its
 *                                     last line: its wall time
 *                                     and the user + system time of it and of every descendant
 *                                     it waited for. Exit status: PROGRAM's, 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double overhead_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int overhead_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static long long overhead_tv_ns(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000000 + (long long)tv.tv_usec * 1000;
}

/* Runs argv once; its status, or 127 when it could not be started. */
static int overhead_time(char **argv)
{
	double start = overhead_now();
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
		return 127;
	fprintf(stderr, "%lld %lld\n", (long long)((overhead_now() - start) * 1e9),
	        overhead_tv_ns(ru.ru_utime) + overhead_tv_ns(ru.ru_stime));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0;
	double *t, total = 0;
	int failed = 0;

	if (argc > 2 && strcmp(argv[1], "-t") == 0)
		return overhead_time(argv + 2);
	if (n <= 0) {
		fprintf(stderr,
		        "usage: overhead N PROGRAM [ARG...] | overhead -t PROGRAM [ARG...]\n");
		return 2;
	}
	t = malloc(sizeof *t * (size_t)n);
	for (int i = 0; i < n; i++) {
		double start = overhead_now();
		struct rusage ru;
		int status;
		pid_t pid = fork();
		if (pid == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || status != 0)
			failed++;
		t[i] = overhead_now() - start;
		total += t[i];
	}
	qsort(t, (size_t)n, sizeof *t, overhead_cmp);
	printf("bare fork/exec/wait4: median %.3f ms, mean %.3f ms over %d runs\n", t[n / 2] * 1e3,
	       total / n * 1e3, n);
	free(t);
	if (failed)
		fprintf(stderr, "overhead: %d of %d runs of %s failed\n", failed, n, argv[2]);
	return failed ? 1 : 0;
}
