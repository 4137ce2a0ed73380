/*
 * cpu_spin — a planted cost for the tests that judge time: spins until this process has used
 * MS milliseconds of CPU (CLOCK_PROCESS_CPUTIME_ID), then exits 0. A sleep plants wall time,
 * which a loaded host stretches by tens of milliseconds a run; CPU time is what the process
 * itself ran, which the load barely moves, so a test that judges time.user_ns on a probe
 * calling this sees the plant and little else. Built by the tests that use it (lib.sh's
 * build_cpu_spin). Usage: cpu_spin MS (a decimal number, 0 to 60000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_spin_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return -1;
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	char *end = NULL;
	double ms = argc == 2 ? strtod(argv[1], &end) : -1;
	volatile unsigned long sink = 0;

	if (argc != 2 || !end || end == argv[1] || *end || !(ms >= 0 && ms <= 60000)) {
		fprintf(stderr, "usage: cpu_spin MS (0 to 60000)\n");
		return 2;
	}
	for (;;) {
		double now = cpu_spin_ms();

		if (now < 0) {
			perror("cpu_spin: clock_gettime");
			return 2;
		}
		if (now >= ms)
			return 0;
		for (int i = 0; i < 10000; i++)
			sink = sink * 6364136223846793005u + 1442695040888963407u;
	}
}
