/*
 * unit.h — the smallest test framework that does the job: CHECK records a failure with its
 * file and line and carries on; unit_done prints "<file>: N passed, N failed" and returns the
 * exit status. tests/run.sh adds up the counts of every unit test and CLI test.
 */
#ifndef UNIT_H
#define UNIT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int unit_passed, unit_failed;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (cond) {                                                                      \
			unit_passed++;                                                           \
		} else {                                                                         \
			unit_failed++;                                                           \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                                \
	} while (0)

#define CHECK_NEAR(a, b, tol) CHECK(fabs((double)(a) - (double)(b)) <= (tol))
#define CHECK_STR(a, b)       CHECK(strcmp((a), (b)) == 0)

static inline int unit_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif /* UNIT_H */
