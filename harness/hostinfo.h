/*
 * hostinfo.h — facts about the machine a session ran on.
 *
 * The fingerprint ties sessions of one host together: a hash of what makes two machines
 * comparable (hostname, CPU model, core count, memory size), not of what drifts from boot to
 * boot (kernel, load), which is recorded alongside instead.
 *
 * A fingerprint only says that two hosts differ, not how. The facts behind it that a figure
 * can move with (enum hostinfo_fact) are kept by a baseline at its pin, so that check can name
 * the ones that differ, and stay quiet when no gated figure depends on them (metrics.h, each
 * metric's host_facts; docs/baselines.md, "Host facts"). Two VMs of one kind differ in their
 * hostname, so in their fingerprint, and may differ in CPU model: Ir and the census do not.
 */
#ifndef HOSTINFO_H
#define HOSTINFO_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

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
	char arch[65];        /* uname's machine: "x86_64" */
	char libc[64];        /* confstr(_CS_GNU_LIBC_VERSION): "glibc 2.36"; "unknown" */
	long page_size;       /* bytes */
	char fingerprint[17]; /* 16 hex digits */
};

/* Fills *h from uname, /proc and /sys; never fails (unknown → "unknown" or -1). */
void hostinfo_read(struct hostinfo *h);
/* The facts as a JSON object; newly allocated. */
char *hostinfo_json(const struct hostinfo *h);
/* The 1-minute load average, or -1 when it cannot be read. */
double hostinfo_load1(void);

/*
 * The facts of a host a measured figure can depend on, each named in a baseline's
 * "host.facts" by its key. Counts are written as JSON integers, the others as strings.
 */
enum hostinfo_fact {
	HOSTINFO_FACT_CPU_MODEL, /* "cpu_model": /proc/cpuinfo's model name */
	HOSTINFO_FACT_NCPU,      /* "ncpu": logical CPUs online (a count) */
	HOSTINFO_FACT_MEM_GIB, /* "mem_gib": MemTotal in GiB, rounded as the fingerprint's (a count) */
	HOSTINFO_FACT_ARCH,    /* "arch": the machine, "x86_64" */
	HOSTINFO_FACT_PAGE_SIZE, /* "page_size": bytes (a count) */
	HOSTINFO_FACT_KERNEL,    /* "kernel": "Linux 6.1.0-28-cloud-amd64 x86_64" */
	HOSTINFO_FACT_LIBC,      /* "libc": "glibc 2.36" */
	HOSTINFO_NFACTS,
};
/* A set of facts, as metrics.h's host_facts holds them. */
#define HOSTINFO_FACT_BIT(f) (1u << (f))
#define HOSTINFO_FACTS_ALL   ((1u << HOSTINFO_NFACTS) - 1)

struct hostinfo_facts {
	char *value[HOSTINFO_NFACTS]; /* owned, counts in decimal; NULL: not recorded */
};

/* "cpu_model", ...: the key in JSON. */
const char *hostinfo_fact_key(enum hostinfo_fact f);
/* "CPU model", ...: for messages. */
const char *hostinfo_fact_label(enum hostinfo_fact f);
/* 1 for a count (ncpu, mem_gib, page_size), written as a JSON integer. */
int hostinfo_fact_is_count(enum hostinfo_fact f);
/*
 * The facts from a host's facts as hostinfo_json writes them (a session's facts hold them too).
 * Facts written by an older harness lack some: arch is then the last word of "kernel", and
 * libc and page_size are not recorded (NULL), as is any field of another type. -1 (e:
 * ERR_INVALID) only when `facts` is not JSON.
 */
int hostinfo_facts_from_json(const char *facts, struct hostinfo_facts *out, struct err *e);
void hostinfo_facts_copy(struct hostinfo_facts *dst, const struct hostinfo_facts *src);
void hostinfo_facts_release(struct hostinfo_facts *f);
/*
 * The facts a records that b does not (HOSTINFO_FACT_BIT set), and those both record that
 * differ: what check compares a baseline's pin with a session's host by.
 */
unsigned hostinfo_facts_missing(const struct hostinfo_facts *a, const struct hostinfo_facts *b);
unsigned hostinfo_facts_differ(const struct hostinfo_facts *a, const struct hostinfo_facts *b);

/*
 * Transparent huge pages, a condition of every session (docs/meters.md, "Transparent huge
 * pages"). Where THP backs a probe's memory its RSS moves in 2 MiB steps, so probes run with
 * THP off (the launcher's prctl PR_SET_THP_DISABLE before exec) unless a session asks for the
 * host's configuration (--thp host). The condition a session records is what its probes got,
 * found by doing what the launcher does, not what was asked: a seccomp filter or an old kernel
 * can refuse the prctl.
 */
enum hostinfo_thp_condition {
	HOSTINFO_THP_OFF,  /* THP off for the probe's process */
	HOSTINFO_THP_HOST, /* as the host is configured (enabled and defrag below) */
};

struct hostinfo_thp {
	enum hostinfo_thp_condition requested; /* what the session asked for (--thp) */
	enum hostinfo_thp_condition condition; /* what its probes get */
	char enabled[32]; /* transparent_hugepage/enabled, the [chosen] mode; "unknown" */
	char defrag[32];  /* transparent_hugepage/defrag, likewise */
	/* Why condition differs from requested ("prctl(PR_SET_THP_DISABLE, 1): ..."), or why the
	 * child could not tell ("cannot tell (...)"); else "" */
	char why[192];
	/* 1: read from facts recorded before gcratchet set THP (the probes ran as the host was) */
	int legacy;
};

/* "off" or "host" into *out; -1 for anything else. */
int hostinfo_thp_parse(const char *s, enum hostinfo_thp_condition *out);
/* "off" or "host". */
const char *hostinfo_thp_name(enum hostinfo_thp_condition c);
/*
 * What probes get when a session asks for `requested`: a child of ours does what the launcher
 * does before exec (launch.c, launch_thp: the prctl, then its own THP_enabled read back) and
 * reports; the host's modes are read from /sys. Never fails: a child that cannot be made or
 * cannot tell leaves condition = requested, with why saying so.
 */
void hostinfo_thp_try(enum hostinfo_thp_condition requested, struct hostinfo_thp *out);
/*
 * The condition as recorded in a session's facts ("probe_thp"), a JSON object, newly allocated:
 * {"condition":"off","requested":"off","enabled":"madvise","defrag":"madvise"}, and "why" when
 * there is one (see struct hostinfo_thp).
 */
char *hostinfo_thp_json(const struct hostinfo_thp *t);
/*
 * Reads the condition back from a session's facts (store_session.facts): its "probe_thp", or for
 * a session recorded before it existed, condition and requested "host" with the host's mode from
 * the facts' "thp" (legacy 1). 0 with *out filled; -1 (e: ERR_INVALID) when facts is NULL, not
 * JSON, or its probe_thp is malformed, the message naming the field.
 */
int hostinfo_thp_from_facts(const char *facts, struct hostinfo_thp *out, struct err *e);
/* "off", or "host (enabled madvise, defrag madvise)": for messages. */
void hostinfo_thp_describe(const struct hostinfo_thp *t, char *buf, size_t size);
/*
 * Whether memory figures measured under a and b are comparable: both off, or both the host's
 * with the same enabled and defrag modes (defrag only when both know it). A host whose THP is
 * "never" gives every process 4 KiB pages, the same as off.
 */
int hostinfo_thp_same(const struct hostinfo_thp *a, const struct hostinfo_thp *b);

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
