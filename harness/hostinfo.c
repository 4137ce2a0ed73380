#include "hostinfo.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "util.h"

/* Copies the value of the first "key<spaces>: value" line of a /proc file. */
static void hostinfo_proc_field(const char *path, const char *key, char *out, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t klen = strlen(key);

	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *colon;
		if (strncmp(line, key, klen) != 0 || !(colon = strchr(line, ':')))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, size, "%s", colon);
		break;
	}
	fclose(f);
}

/* The first line of a small file, without its newline; "" when unreadable. */
static void hostinfo_first_line(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "r");

	out[0] = '\0';
	if (!f)
		return;
	if (!fgets(out, (int)size, f))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

/*
 * The [chosen] value of a sysfs mode file ("always [madvise] never" -> "madvise"); the line as it
 * is when it has no brackets, "unknown" when it cannot be read.
 */
static void hostinfo_sysfs_choice(const char *path, char *out, size_t size)
{
	char line[256], *open_b, *close_b;

	hostinfo_first_line(path, line, sizeof line);
	open_b = strchr(line, '[');
	close_b = open_b ? strchr(open_b, ']') : NULL;
	if (open_b && close_b)
		snprintf(out, size, "%.*s", (int)(close_b - open_b - 1), open_b + 1);
	else
		snprintf(out, size, "%.*s", (int)size - 1, line[0] ? line : "unknown");
}

static int hostinfo_int_file(const char *path, int unknown)
{
	char buf[64];

	hostinfo_first_line(path, buf, sizeof buf);
	return buf[0] ? atoi(buf) : unknown;
}

/* Whether a hardware instruction counter can be opened on this process. */
static int hostinfo_pmu(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

#define HOSTINFO_THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"
#define HOSTINFO_THP_DEFRAG  "/sys/kernel/mm/transparent_hugepage/defrag"

/*
 * The first line `cc --version` prints, or "unknown". Started without a shell (one exec
 * fewer: every session asks, and a session of short runs pays for its start-up per run).
 */
static void hostinfo_compiler(char *out, size_t size)
{
	char *argv[] = {(char *)"cc", (char *)"--version", NULL};
	struct sbuf b;

	sbuf_init(&b);
	run_capture(argv, 1, &b);
	b.data[strcspn(b.data, "\n")] = '\0';
	snprintf(out, size, "%s", b.data[0] ? b.data : "unknown");
	sbuf_release(&b);
}

/* MemTotal in GiB, rounded: the kernel's own reservations move it a little between boots. */
static uint64_t hostinfo_mem_gib(uint64_t bytes)
{
	return (bytes + (UINT64_C(1) << 29)) >> 30;
}

void hostinfo_read(struct hostinfo *h)
{
	struct utsname u;
	char mem[64] = "";
	uint64_t hash = HASH_FNV1A_SEED;

	memset(h, 0, sizeof *h);
	snprintf(h->hostname, sizeof h->hostname, "unknown");
	snprintf(h->kernel, sizeof h->kernel, "unknown");
	snprintf(h->cpu_model, sizeof h->cpu_model, "unknown");
	snprintf(h->arch, sizeof h->arch, "unknown");
	snprintf(h->libc, sizeof h->libc, "unknown");
	if (uname(&u) == 0) {
		snprintf(h->hostname, sizeof h->hostname, "%s", u.nodename);
		snprintf(h->kernel, sizeof h->kernel, "%s %s %s", u.sysname, u.release, u.machine);
		snprintf(h->arch, sizeof h->arch, "%.*s", (int)sizeof h->arch - 1, u.machine);
	}
	/* glibc says "glibc 2.36"; a C library without the name leaves it unknown. */
	if (confstr(_CS_GNU_LIBC_VERSION, h->libc, sizeof h->libc) == 0)
		snprintf(h->libc, sizeof h->libc, "unknown");
	h->page_size = sysconf(_SC_PAGESIZE);
	hostinfo_proc_field("/proc/cpuinfo", "model name", h->cpu_model, sizeof h->cpu_model);
	h->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	hostinfo_proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
	h->mem_total_bytes = strtoull(mem, NULL, 10) * 1024;
	mem[0] = '\0';
	hostinfo_proc_field("/proc/meminfo", "MemAvailable", mem, sizeof mem);
	h->mem_available_bytes = strtoull(mem, NULL, 10) * 1024;
	h->smt = hostinfo_int_file("/sys/devices/system/cpu/smt/active", -1);
	hostinfo_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", h->governor,
	                    sizeof h->governor);
	if (!h->governor[0])
		snprintf(h->governor, sizeof h->governor, "none");
	hostinfo_sysfs_choice(HOSTINFO_THP_ENABLED, h->thp, sizeof h->thp);
	h->aslr = hostinfo_int_file("/proc/sys/kernel/randomize_va_space", -1);
	h->perf_paranoid = hostinfo_int_file("/proc/sys/kernel/perf_event_paranoid", -99);
	h->pmu = hostinfo_pmu();
	hostinfo_compiler(h->compiler, sizeof h->compiler);

	hash = hash_fnv1a(h->hostname, strlen(h->hostname) + 1, hash);
	hash = hash_fnv1a(h->cpu_model, strlen(h->cpu_model) + 1, hash);
	hash = hash_fnv1a(&h->ncpu, sizeof h->ncpu, hash);
	uint64_t mem_gib = hostinfo_mem_gib(h->mem_total_bytes);
	hash = hash_fnv1a(&mem_gib, sizeof mem_gib, hash);
	snprintf(h->fingerprint, sizeof h->fingerprint, "%016llx", (unsigned long long)hash);
}

char *hostinfo_json(const struct hostinfo *h)
{
	cJSON *o = cJSON_CreateObject();
	char *text, *copy;

	cJSON_AddStringToObject(o, "hostname", h->hostname);
	cJSON_AddStringToObject(o, "kernel", h->kernel);
	cJSON_AddStringToObject(o, "cpu_model", h->cpu_model);
	cJSON_AddNumberToObject(o, "ncpu", (double)h->ncpu);
	cJSON_AddNumberToObject(o, "smt", h->smt);
	cJSON_AddNumberToObject(o, "mem_total_bytes", (double)h->mem_total_bytes);
	cJSON_AddNumberToObject(o, "mem_available_bytes", (double)h->mem_available_bytes);
	cJSON_AddStringToObject(o, "governor", h->governor);
	cJSON_AddStringToObject(o, "thp", h->thp);
	cJSON_AddNumberToObject(o, "aslr", h->aslr);
	cJSON_AddNumberToObject(o, "perf_event_paranoid", h->perf_paranoid);
	cJSON_AddBoolToObject(o, "pmu", h->pmu);
	cJSON_AddStringToObject(o, "compiler", h->compiler);
	cJSON_AddStringToObject(o, "arch", h->arch);
	cJSON_AddStringToObject(o, "libc", h->libc);
	cJSON_AddNumberToObject(o, "page_size", (double)h->page_size);
	cJSON_AddStringToObject(o, "fingerprint", h->fingerprint);
	text = cJSON_PrintUnformatted(o);
	copy = xstrdup(text);
	cJSON_free(text);
	cJSON_Delete(o);
	return copy;
}

double hostinfo_load1(void)
{
	double l[1];

	return getloadavg(l, 1) == 1 ? l[0] : -1;
}

/* ---- Host facts ------------------------------------------------------------------------ */

static const struct {
	const char *key, *label;
	int count;
} hostinfo_facts_[HOSTINFO_NFACTS] = {
    [HOSTINFO_FACT_CPU_MODEL] = {"cpu_model", "CPU model", 0},
    [HOSTINFO_FACT_NCPU] = {"ncpu", "CPUs", 1},
    [HOSTINFO_FACT_MEM_GIB] = {"mem_gib", "memory (GiB)", 1},
    [HOSTINFO_FACT_ARCH] = {"arch", "architecture", 0},
    [HOSTINFO_FACT_PAGE_SIZE] = {"page_size", "page size", 1},
    [HOSTINFO_FACT_KERNEL] = {"kernel", "kernel", 0},
    [HOSTINFO_FACT_LIBC] = {"libc", "libc", 0},
};

const char *hostinfo_fact_key(enum hostinfo_fact f)
{
	return (unsigned)f < HOSTINFO_NFACTS ? hostinfo_facts_[f].key : "?";
}

const char *hostinfo_fact_label(enum hostinfo_fact f)
{
	return (unsigned)f < HOSTINFO_NFACTS ? hostinfo_facts_[f].label : "?";
}

int hostinfo_fact_is_count(enum hostinfo_fact f)
{
	return (unsigned)f < HOSTINFO_NFACTS && hostinfo_facts_[f].count;
}

/* A count of the facts: a whole number from 1 to 2^53, as "%.0f"; else NULL (not recorded). */
static char *hostinfo_fact_count(const cJSON *v, int gib)
{
	double d;

	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 9007199254740992.0) ||
	    v->valuedouble != (double)(uint64_t)v->valuedouble)
		return NULL;
	d = gib ? (double)hostinfo_mem_gib((uint64_t)v->valuedouble) : v->valuedouble;
	/* None of them is 0 on a host that could be read: 0 is what an unreadable one left. */
	return d >= 1 ? xasprintf("%.0f", d) : NULL;
}

static char *hostinfo_fact_string(const cJSON *v)
{
	return cJSON_IsString(v) && v->valuestring[0] ? xstrdup(v->valuestring) : NULL;
}

int hostinfo_facts_from_json(const char *facts, struct hostinfo_facts *out, struct err *e)
{
	cJSON *root = NULL;
	const cJSON *kernel;

	memset(out, 0, sizeof *out);
	if (json_parse(facts, strlen(facts), "host facts", &root, e) != 0)
		return -1;
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return err_setc(e, ERR_INVALID, "host facts: must be a JSON object");
	}
#define FIELD(name) cJSON_GetObjectItemCaseSensitive(root, name)
	out->value[HOSTINFO_FACT_CPU_MODEL] = hostinfo_fact_string(FIELD("cpu_model"));
	out->value[HOSTINFO_FACT_NCPU] = hostinfo_fact_count(FIELD("ncpu"), 0);
	out->value[HOSTINFO_FACT_MEM_GIB] = hostinfo_fact_count(FIELD("mem_total_bytes"), 1);
	out->value[HOSTINFO_FACT_ARCH] = hostinfo_fact_string(FIELD("arch"));
	out->value[HOSTINFO_FACT_PAGE_SIZE] = hostinfo_fact_count(FIELD("page_size"), 0);
	out->value[HOSTINFO_FACT_KERNEL] = hostinfo_fact_string(FIELD("kernel"));
	out->value[HOSTINFO_FACT_LIBC] = hostinfo_fact_string(FIELD("libc"));
	kernel = FIELD("kernel");
#undef FIELD
	/* Before "arch" was its own fact, the kernel's line ended with it ("Linux 6.1.0 x86_64"). */
	if (!out->value[HOSTINFO_FACT_ARCH] && cJSON_IsString(kernel) &&
	    strrchr(kernel->valuestring, ' ') && strrchr(kernel->valuestring, ' ')[1])
		out->value[HOSTINFO_FACT_ARCH] = xstrdup(strrchr(kernel->valuestring, ' ') + 1);
	cJSON_Delete(root);
	return 0;
}

void hostinfo_facts_copy(struct hostinfo_facts *dst, const struct hostinfo_facts *src)
{
	for (int f = 0; f < HOSTINFO_NFACTS; f++)
		dst->value[f] = src->value[f] ? xstrdup(src->value[f]) : NULL;
}

void hostinfo_facts_release(struct hostinfo_facts *facts)
{
	for (int f = 0; f < HOSTINFO_NFACTS; f++)
		free(facts->value[f]);
	memset(facts, 0, sizeof *facts);
}

unsigned hostinfo_facts_missing(const struct hostinfo_facts *a, const struct hostinfo_facts *b)
{
	unsigned bits = 0;

	for (int f = 0; f < HOSTINFO_NFACTS; f++)
		if (a->value[f] && !b->value[f])
			bits |= HOSTINFO_FACT_BIT(f);
	return bits;
}

unsigned hostinfo_facts_differ(const struct hostinfo_facts *a, const struct hostinfo_facts *b)
{
	unsigned bits = 0;

	for (int f = 0; f < HOSTINFO_NFACTS; f++)
		if (a->value[f] && b->value[f] && strcmp(a->value[f], b->value[f]) != 0)
			bits |= HOSTINFO_FACT_BIT(f);
	return bits;
}

/* One process's CPU ticks (user + system) at one moment. */
struct hostinfo_ticks {
	long pid;
	char comm[32];
	unsigned long long ticks;
};

/* Every process's ticks but our own, from /proc/PID/stat; *n of them, newly allocated. */
static struct hostinfo_ticks *hostinfo_snapshot(size_t *n)
{
	DIR *d = opendir("/proc");
	struct hostinfo_ticks *t = NULL;
	struct dirent *de;
	size_t cap = 0;
	long self = (long)getpid();

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char path[64], text[1024], *end, *open_paren, *close_paren;
		unsigned long long utime, stime;
		long pid = strtol(de->d_name, &end, 10);
		FILE *f;
		size_t got;

		if (*end || pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if (!(f = fopen(path, "r")))
			continue;
		got = fread(text, 1, sizeof text - 1, f);
		fclose(f);
		text[got] = '\0';
		/* The command name in parentheses may hold anything: fields resume after the last ')'. */
		open_paren = strchr(text, '(');
		close_paren = strrchr(text, ')');
		if (!open_paren || !close_paren || close_paren < open_paren ||
		    sscanf(close_paren + 1,
		           " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
		           &stime) != 2)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			t = xrealloc(t, cap * sizeof *t);
		}
		t[*n].pid = pid;
		snprintf(t[*n].comm, sizeof t[*n].comm, "%.*s", (int)(close_paren - open_paren - 1),
		         open_paren + 1);
		t[*n].ticks = utime + stime;
		(*n)++;
	}
	closedir(d);
	return t;
}

static int hostinfo_proc_cmp(const void *a, const void *b)
{
	const struct hostinfo_proc *x = a, *y = b;

	return x->cpu_pct < y->cpu_pct ? 1 : x->cpu_pct > y->cpu_pct ? -1 : 0;
}

size_t hostinfo_busy(int interval_ms, struct hostinfo_proc *out, size_t max)
{
	struct timespec ts = {interval_ms / 1000, (long)(interval_ms % 1000) * 1000000};
	struct hostinfo_ticks *before, *after;
	struct hostinfo_proc *all;
	size_t nbefore, nafter, nall = 0, k = 0;
	long hz = sysconf(_SC_CLK_TCK);

	before = hostinfo_snapshot(&nbefore);
	nanosleep(&ts, NULL);
	after = hostinfo_snapshot(&nafter);
	all = xcalloc(nafter ? nafter : 1, sizeof *all);
	for (size_t i = 0; i < nafter && hz > 0 && interval_ms > 0; i++) {
		for (; k < nbefore && before[k].pid < after[i].pid; k++)
			;
		/* readdir lists /proc in pid order, so one pass pairs the two snapshots. */
		if (k == nbefore || before[k].pid != after[i].pid ||
		    after[i].ticks <= before[k].ticks)
			continue;
		all[nall].pid = after[i].pid;
		snprintf(all[nall].comm, sizeof all[nall].comm, "%s", after[i].comm);
		all[nall].cpu_pct = 100.0 * (double)(after[i].ticks - before[k].ticks) /
		                    (double)hz / (interval_ms / 1000.0);
		if (all[nall].cpu_pct > 1)
			nall++;
	}
	qsort(all, nall, sizeof *all, hostinfo_proc_cmp);
	if (nall > max)
		nall = max;
	memcpy(out, all, nall * sizeof *out);
	free(all);
	free(before);
	free(after);
	return nall;
}

/* ---- Transparent huge pages ----------------------------------------------------------- */

int hostinfo_thp_parse(const char *s, enum hostinfo_thp_condition *out)
{
	if (strcmp(s, "off") == 0)
		*out = HOSTINFO_THP_OFF;
	else if (strcmp(s, "host") == 0)
		*out = HOSTINFO_THP_HOST;
	else
		return -1;
	return 0;
}

const char *hostinfo_thp_name(enum hostinfo_thp_condition c)
{
	return c == HOSTINFO_THP_HOST ? "host" : "off";
}

/* This process's THP_enabled (/proc/self/status), as the launcher reads a probe's; -1 unknown. */
static int hostinfo_thp_enabled_self(void)
{
	char v[16] = "";
	int got;

	hostinfo_proc_field("/proc/self/status", "THP_enabled", v, sizeof v);
	if (v[0] == '0' || v[0] == '1')
		return v[0] - '0';
	/* Kernels before 5.0 have no such line; the flag itself answers since 3.15. */
	got = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	return got < 0 ? -1 : got == 0;
}

void hostinfo_thp_try(enum hostinfo_thp_condition requested, struct hostinfo_thp *out)
{
	int host = requested == HOSTINFO_THP_HOST, p[2], status, fork_errno;
	int r[2] = {-1, 0}; /* THP_enabled, the prctl's errno */
	pid_t pid = -1;

	memset(out, 0, sizeof *out);
	out->requested = out->condition = requested;
	hostinfo_sysfs_choice(HOSTINFO_THP_ENABLED, out->enabled, sizeof out->enabled);
	hostinfo_sysfs_choice(HOSTINFO_THP_DEFRAG, out->defrag, sizeof out->defrag);
	/* In a child: the flag is per process, and the harness's own memory is none of this. */
	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(out->why, sizeof out->why, "cannot tell (pipe: %s)", strerror(errno));
		return;
	}
	pid = fork();
	fork_errno = errno;
	if (pid == 0) {
		r[1] = prctl(PR_SET_THP_DISABLE, host ? 0 : 1, 0, 0, 0) == 0 ? 0 : errno;
		r[0] = hostinfo_thp_enabled_self();
		_exit(write(p[1], r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], r, sizeof r) != (ssize_t)sizeof r) {
		r[0] = -1;
		r[1] = pid < 0 ? fork_errno : 0;
	}
	close(p[0]);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r[0] >= 0)
		out->condition = r[0] ? HOSTINFO_THP_HOST : HOSTINFO_THP_OFF;
	if (out->condition != requested && r[1])
		snprintf(out->why, sizeof out->why, "prctl(PR_SET_THP_DISABLE, %d): %s", !host,
		         strerror(r[1]));
	else if (out->condition != requested)
		snprintf(out->why, sizeof out->why,
		         "THP_enabled is %d after prctl(PR_SET_THP_DISABLE, %d) succeeded", r[0],
		         !host);
	else if (r[0] < 0)
		snprintf(out->why, sizeof out->why, "cannot tell (%s)",
		         r[1] ? strerror(r[1]) : "no THP_enabled and no PR_GET_THP_DISABLE");
}

char *hostinfo_thp_json(const struct hostinfo_thp *t)
{
	cJSON *o = cJSON_CreateObject();
	char *text, *copy;

	cJSON_AddStringToObject(o, "condition", hostinfo_thp_name(t->condition));
	cJSON_AddStringToObject(o, "requested", hostinfo_thp_name(t->requested));
	cJSON_AddStringToObject(o, "enabled", t->enabled);
	cJSON_AddStringToObject(o, "defrag", t->defrag);
	if (t->why[0])
		cJSON_AddStringToObject(o, "why", t->why);
	text = cJSON_PrintUnformatted(o);
	copy = xstrdup(text);
	cJSON_free(text);
	cJSON_Delete(o);
	return copy;
}

/* One condition field of probe_thp: "off" or "host". */
static int hostinfo_thp_field(const cJSON *t, const char *key, enum hostinfo_thp_condition *out,
                              struct err *e)
{
	char path[64];
	const char *s;

	snprintf(path, sizeof path, "probe_thp.%s", key);
	if (json_string(cJSON_GetObjectItemCaseSensitive(t, key), "session facts", path, &s, e) !=
	    0)
		return -1;
	if (hostinfo_thp_parse(s, out) != 0)
		return err_setc(e, ERR_INVALID,
		                "session facts: %s: must be off or host, got \"%s\"", path, s);
	return 0;
}

/* An optional string field of probe_thp into buf; absent leaves `absent`. */
static int hostinfo_thp_text(const cJSON *t, const char *key, const char *absent, char *buf,
                             size_t size, struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
	char path[64];
	const char *s = absent;

	snprintf(path, sizeof path, "probe_thp.%s", key);
	if (v && json_string(v, "session facts", path, &s, e) != 0)
		return -1;
	snprintf(buf, size, "%s", s);
	return 0;
}

int hostinfo_thp_from_facts(const char *facts, struct hostinfo_thp *out, struct err *e)
{
	cJSON *root = NULL;
	const cJSON *t, *host_thp;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (!facts)
		return err_setc(e, ERR_INVALID, "the session has no facts");
	if (json_parse(facts, strlen(facts), "session facts", &root, e) != 0)
		return -1;
	t = cJSON_GetObjectItemCaseSensitive(root, "probe_thp");
	if (!t) {
		/* Before gcratchet set THP for its probes they ran as the host was configured. */
		host_thp = cJSON_GetObjectItemCaseSensitive(root, "thp");
		out->requested = out->condition = HOSTINFO_THP_HOST;
		snprintf(out->enabled, sizeof out->enabled, "%s",
		         cJSON_IsString(host_thp) ? host_thp->valuestring : "unknown");
		snprintf(out->defrag, sizeof out->defrag, "unknown");
		out->legacy = 1;
		rc = 0;
		goto out;
	}
	if (!cJSON_IsObject(t)) {
		err_setc(e, ERR_INVALID, "session facts: probe_thp: must be an object");
		goto out;
	}
	if (hostinfo_thp_field(t, "condition", &out->condition, e) != 0 ||
	    hostinfo_thp_field(t, "requested", &out->requested, e) != 0 ||
	    hostinfo_thp_text(t, "enabled", "unknown", out->enabled, sizeof out->enabled, e) != 0 ||
	    hostinfo_thp_text(t, "defrag", "unknown", out->defrag, sizeof out->defrag, e) != 0 ||
	    hostinfo_thp_text(t, "why", "", out->why, sizeof out->why, e) != 0)
		goto out;
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

void hostinfo_thp_describe(const struct hostinfo_thp *t, char *buf, size_t size)
{
	if (t->condition == HOSTINFO_THP_OFF)
		snprintf(buf, size, "off");
	else
		snprintf(buf, size, "host (enabled %s, defrag %s)", t->enabled, t->defrag);
}

/* Whether a process under t gets 4 KiB pages only. */
static int hostinfo_thp_is_off(const struct hostinfo_thp *t)
{
	return t->condition == HOSTINFO_THP_OFF || strcmp(t->enabled, "never") == 0;
}

int hostinfo_thp_same(const struct hostinfo_thp *a, const struct hostinfo_thp *b)
{
	if (hostinfo_thp_is_off(a) || hostinfo_thp_is_off(b))
		return hostinfo_thp_is_off(a) && hostinfo_thp_is_off(b);
	/* Facts from before defrag was recorded do not know it: the enabled mode decides then. */
	return strcmp(a->enabled, b->enabled) == 0 &&
	       (strcmp(a->defrag, "unknown") == 0 || strcmp(b->defrag, "unknown") == 0 ||
	        strcmp(a->defrag, b->defrag) == 0);
}
