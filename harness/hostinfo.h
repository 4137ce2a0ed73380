/*
 * hostinfo.h — facts about the machine a session ran on.
 *
 * The fingerprint ties sessions of one host together: a hash of what makes two machines
 * comparable (hostname, CPU model, core count, memory size), not of what drifts from boot to
 * boot (kernel, load), which is recorded alongside instead.
 */
#ifndef HOSTINFO_H
#define HOSTINFO_H

#include <stdint.h>

struct hostinfo {
	char hostname[256];
	char kernel[256];
	char cpu_model[256];
	long ncpu;
	uint64_t mem_total_bytes;
	char fingerprint[17]; /* 16 hex digits */
};

/* Fills *h from uname, /proc/cpuinfo and /proc/meminfo; never fails (unknown → "unknown"). */
void hostinfo_read(struct hostinfo *h);
/* The facts as a JSON object; newly allocated. */
char *hostinfo_json(const struct hostinfo *h);
/* The 1-minute load average, or -1 when it cannot be read. */
double hostinfo_load1(void);

#endif /* HOSTINFO_H */
