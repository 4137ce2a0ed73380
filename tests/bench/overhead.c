/*
 * overhead — the cost of a bare fork/exec/wait4 of a program, per run, for comparing with
 * the harness's cost per run (docs/overhead.md says how the two are put side by side).
 * Usage: overhead N PROGRAM [ARG...]  → prints the median and mean wall time per run.
 */
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0;
	double *t, total = 0;

	if (n <= 0) {
		fprintf(stderr, "usage: overhead N PROGRAM [ARG...]\n");
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
		wait4(pid, &status, 0, &ru);
		t[i] = overhead_now() - start;
		total += t[i];
	}
	qsort(t, (size_t)n, sizeof *t, overhead_cmp);
	printf("bare fork/exec/wait4: median %.3f ms, mean %.3f ms over %d runs\n", t[n / 2] * 1e3,
	       total / n * 1e3, n);
	free(t);
	return 0;
}
