/*
 * hostinfo.h — facts about the machine a session ran on.
 *
 * The fingerprint ties sessions of one host together: a hash of what makes two machines
 * comparable (hostname, CPU model, core count, memory size), not of what drifts from boot to
 * boot (kernel, load), which is recorded alongside instead.
 */
#ifndef HOSTINFO_H
#define HOSTINFO_H

#include <stddef.h>
#include <stdint.h>

struct hostinfo {
	char hostname[256];
	char kernel[256];
	char cpu_model[256];
	long ncpu; /* logical CPUs online */
	int smt;   /* 1 on, 0 off, -1 unknown (/sys/devices/system/cpu/smt/active) */
	uint64_t mem_total_bytes;
	uint64_t mem_available_bytes;
	char governor[64];    /* cpu0's cpufreq governor, or "none" without cpufreq */
	char thp[64];         /* transparent_hugepage/enabled, the [chosen] value */
	int aslr;             /* /proc/sys/kernel/randomize_va_space, -1 unknown */
	int perf_paranoid;    /* /proc/sys/kernel/perf_event_paranoid, -99 unknown */
	int pmu;              /* 1 when a hardware instruction counter opens here */
	char compiler[128];   /* first line of `cc --version` */
	char fingerprint[17]; /* 16 hex digits */
};

/* Fills *h from uname, /proc and /sys; never fails (unknown → "unknown" or -1). */
void hostinfo_read(struct hostinfo *h);
/* The facts as a JSON object; newly allocated. */
char *hostinfo_json(const struct hostinfo *h);
/* The 1-minute load average, or -1 when it cannot be read. */
double hostinfo_load1(void);

/* A process that used the CPU while hostinfo_busy watched. */
struct hostinfo_proc {
	long pid;
	char comm[32];  /* its command name, as /proc/PID/stat has it */
	double cpu_pct; /* CPU time used over the interval, in percent of one CPU */
};

/*
 * The processes other than this one that used the most CPU over interval_ms (it sleeps that
 * long), busiest first, up to max of them, each above 1% of a CPU: what else was running while
 * a time was measured. Returns how many; 0 when /proc cannot be read.
 */
size_t hostinfo_busy(int interval_ms, struct hostinfo_proc *out, size_t max);

#endif /* HOSTINFO_H */
