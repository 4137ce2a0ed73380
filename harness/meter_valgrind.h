/*
 * meter_valgrind.h — instruction counts (Ir) under cachegrind, for hosts without a PMU.
 *
 * A valgrind run is separate from the timed runs (valgrind slows a probe down ~50x and owns
 * its address space, so its time and RSS mean nothing). It runs with --cache-sim=no and ASLR
 * off, so the same build, probe, size and environment give the same count every time.
 */
#ifndef METER_VALGRIND_H
#define METER_VALGRIND_H

#include "util.h"

struct meter_valgrind {
	char *path;    /* the valgrind executable */
	char *version; /* "valgrind-3.19.0" */
};

/* Finds valgrind on PATH; -1 with the install command in the message when it is missing. */
int meter_valgrind_find(struct meter_valgrind *m, struct err *e);
void meter_valgrind_release(struct meter_valgrind *m);

/*
 * The argv that runs `probe_argv` under cachegrind writing its counts to `out_file`;
 * NULL-terminated, newly allocated array of borrowed and owned strings: free with
 * meter_valgrind_argv_free.
 */
char **meter_valgrind_argv(const struct meter_valgrind *m, const char *out_file,
                           char *const *probe_argv);
void meter_valgrind_argv_free(char **argv);

/* Reads the total Ir from a cachegrind output file (its "summary:" line). */
int meter_valgrind_read(const char *out_file, double *ir, struct err *e);

#endif /* METER_VALGRIND_H */
