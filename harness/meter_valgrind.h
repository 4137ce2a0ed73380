/*
 * meter_valgrind.h — instruction counts (Ir) under cachegrind, for hosts without a PMU, and
 * cachegrind's cache simulation (the cachesim meter), a deterministic view of locality.
 *
 * A valgrind run is separate from the timed runs (valgrind slows a probe down ~50x and owns
 * its address space, so its time and RSS mean nothing). It runs with ASLR off, so the same
 * build, probe, size and environment give the same counts every time. It runs with
 * --cache-sim=no unless the cachesim meter is on: simulating the caches makes a run 1.5 to 3
 * times slower and leaves Ir as it is, so a session with cachesim takes Ir from the same run.
 * The simulated caches are fixed (METER_VALGRIND_CACHES), never the host's: cachegrind would
 * otherwise read them from the CPU, and the same probe would count other misses elsewhere.
 */
#ifndef METER_VALGRIND_H
#define METER_VALGRIND_H

#include "fnprof.h"
#include "util.h"

struct metric_set;

/* The simulated caches: 32 KiB 8-way L1s and an 8 MiB 16-way last level, 64-byte lines. */
#define METER_VALGRIND_CACHES "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"

struct meter_valgrind {
	char *path;    /* the valgrind executable */
	char *version; /* "valgrind-3.19.0" */
};

/* Finds valgrind on PATH; -1 with the install command in the message when it is missing. */
int meter_valgrind_find(struct meter_valgrind *m, struct err *e);
void meter_valgrind_release(struct meter_valgrind *m);

/*
 * The argv that runs `probe_argv` under cachegrind writing its counts to `out_file`, with the
 * cache simulation when cache_sim is 1; NULL-terminated, newly allocated array of newly
 * allocated strings: free with meter_valgrind_argv_free.
 *
 * With trace_children (a probe its manifest declares a wrapper: a script that starts the
 * real program), valgrind follows every exec and child (--trace-children=yes) and each
 * process writes its own file, out_file.PID: the real program's instructions are counted,
 * not only the shell's.
 */
char **meter_valgrind_argv(const struct meter_valgrind *m, const char *out_file, int cache_sim,
                           int trace_children, char *const *probe_argv);
void meter_valgrind_argv_free(char **argv);

/* The totals of one cachegrind run; the miss counts only when cache_sim is 1. */
struct meter_valgrind_counts {
	double ir;
	int cache_sim;
	double i1mr, ilmr; /* instruction fetches missing L1, and the last level */
	double d1mr, dlmr; /* data reads missing L1, and the last level */
	double d1mw, dlmw; /* data writes missing L1, and the last level */
};

/*
 * Reads a cachegrind output file: its "events:" line names the columns of its "summary:"
 * line. Ir is required; with the miss events present, cache_sim is 1 and all six are.
 * With trace_children as given to meter_valgrind_argv: the sum over every out_file.PID, the
 * whole process tree.
 */
int meter_valgrind_read(const char *out_file, int trace_children, struct meter_valgrind_counts *c,
                        struct err *e);
/*
 * The same, and where the instructions went: *fns (initialised here, released by the caller
 * when this returns 0) gets the Ir of every function of the run (of the whole tree with
 * trace_children, summed by name), names left mangled demangled by c++filt where one is on
 * PATH, cut to what fnprof.h keeps; fns->total_ir is c->ir. A file whose functions do not add
 * up to its "summary:" line is refused, as cg_annotate refuses it.
 */
int meter_valgrind_read_profile(const char *out_file, int trace_children,
                                struct meter_valgrind_counts *c, struct fnprof *fns, struct err *e);
/* Removes what a run wrote: out_file and every out_file.PID, and valgrind's logs. */
void meter_valgrind_remove(const char *out_file);
/*
 * What valgrind itself said during the run: meter_valgrind_argv sends its messages to
 * out_file.log (out_file.log.PID for each process with trace_children), never to the probe's
 * stderr. Newly allocated, or NULL when it said nothing.
 */
char *meter_valgrind_log(const char *out_file, int trace_children);
/*
 * The last message valgrind spoke in `log` ("==PID== message", not its "--PID-- warning"
 * chatter), without the prefix; newly allocated, or NULL when there is none.
 */
char *meter_valgrind_log_error(const char *log);

/*
 * The sanity floor for a probe not declared a wrapper: 10 million Ir per CPU-second of the
 * probe's own timed run. A compiled program retires 1e9 instructions a second or more, an
 * interpreter or a JIT warming up some 1e8; a shell that only starts the real program, which
 * valgrind then does not follow, counts a few million Ir in all for a run of any length.
 * The floor sits two orders of magnitude below the slowest real program, so it flags only
 * a count that cannot be the program's.
 */
#define METER_VALGRIND_IR_FLOOR_PER_CPU_S 1e7
/*
 * NULL when `ir` is plausible for a run that took `user_ns` of user time (timed, not under
 * valgrind; <= 0: unknown); otherwise the warning to record on the run, newly allocated.
 */
char *meter_valgrind_wrapper_suspect(double ir, double user_ns);

/*
 * Adds the run's metrics to `s`: valgrind.ir, and for a cache-simulating run cachesim.
 * d1_misses (D1mr + D1mw), ll_misses (DLmr + DLmw + ILmr), i1_misses (I1mr) and est_cycles,
 * Ir + 10 * (I1mr + D1mr + D1mw) + 100 * (ILmr + DLmr + DLmw): an estimate, not a measure of
 * any CPU, with the weights KCachegrind's cycle estimate uses and cachegrind's manual argues
 * for (an L1 miss costs around 10 cycles, a last-level miss up to 200).
 */
void meter_valgrind_metrics(const struct meter_valgrind_counts *c, struct metric_set *s);

#endif /* METER_VALGRIND_H */
