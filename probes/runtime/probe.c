/*
 * probe.c — the probe runtime (see probe.h): command line, the run, the checksum line on stdout
 * and the census object on GCR_CENSUS_FD (docs/census-protocol.md).
 *
 * The census object is written by hand with fprintf into a memory stream and then written to
 * the descriptor in one loop: the runtime is linked into every probe of every collector build
 * and must not pull in a JSON library, and stdio on a raw descriptor does not retry EINTR.
 */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pauselog.h"
#include "pausestats.h"

#define PROBE_EXIT_OK    0
#define PROBE_EXIT_USAGE 2

static const char *const probe_size_names[PROBE_SIZE_COUNT] = {"ci", "default", "large"};

/* What the command line asked for. */
struct probe_args {
	enum probe_size size;
	bool size_given;
	uint64_t iterations;
	bool iterations_given;
};

/* Where the census goes: fd < 0 means GCR_CENSUS_FD is unset. */
struct probe_sink {
	int fd;
	const char *text; /* the variable's value, for messages */
};

/* The premise verdict as it travels in the census object. */
struct probe_verdict {
	bool judged; /* false: the probe has no premise check, the field is left out */
	int met;     /* 1, 0 or -1 (not applicable), as premise_met returned it */
	char text[512];
};

/* The run's span, for the pause figures: from before gcr_init to after the final collection. */
struct probe_span {
	uint64_t start_ns, end_ns;
};

/* What a request-serving probe handed over (probe_latency_record); n == 0: none. */
static struct {
	uint64_t *service_ns;
	size_t n;
	uint64_t span_ns;
} probe_latency;

/* /proc/self/status figures in bytes; a figure the kernel did not give is absent. */
struct probe_memory {
	bool have_hwm, have_rss_anon;
	uint64_t vm_hwm_bytes, rss_anon_bytes;
};

void probe_put_u64(void *obj, uint32_t nptrs, uint32_t offset, uint64_t v)
{
	memcpy(gcr_raw(obj, nptrs) + offset, &v, sizeof v);
}

uint64_t probe_get_u64(void *obj, uint32_t nptrs, uint32_t offset)
{
	uint64_t v;

	memcpy(&v, gcr_raw(obj, nptrs) + offset, sizeof v);
	return v;
}

uint64_t probe_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void probe_latency_record(uint64_t *service_ns, size_t n, uint64_t span_ns)
{
	free(probe_latency.service_ns);
	probe_latency.service_ns = service_ns;
	probe_latency.n = n;
	probe_latency.span_ns = span_ns;
}

/* ---- Command line --------------------------------------------------------------------- */

static void probe_usage(FILE *f, const struct probe_spec *spec)
{
	fprintf(f,
	        "usage: %s [ci|default|large] [--size ci|default|large] [--iterations N]\n"
	        "  sizes: ci %" PRIu64 ", default %" PRIu64 ", large %" PRIu64 " iterations\n"
	        "  premise: %s\n"
	        "  prints \"checksum 0x...\" on stdout; writes the census object to GCR_CENSUS_FD "
	        "when it is set\n",
	        spec->name, spec->iterations[PROBE_SIZE_CI], spec->iterations[PROBE_SIZE_DEFAULT],
	        spec->iterations[PROBE_SIZE_LARGE], spec->premise ? spec->premise : "(none)");
}

/* Prints `what` and the usage on stderr; returns the exit status for a bad command line. */
static int probe_bad_usage(const struct probe_spec *spec, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s '%s'\n", spec->name, what, arg);
	probe_usage(stderr, spec);
	return PROBE_EXIT_USAGE;
}

static int probe_parse_size(const char *s, enum probe_size *out)
{
	for (int i = 0; i < PROBE_SIZE_COUNT; i++) {
		if (strcmp(s, probe_size_names[i]) == 0) {
			*out = (enum probe_size)i;
			return 0;
		}
	}
	return -1;
}

/* A positive decimal integer, nothing else: no sign, no blanks, no suffix, no overflow. */
static int probe_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v == 0)
		return -1;
	*out = v;
	return 0;
}

/*
 * Returns 0 to run, 1 when --help was answered (exit 0), or PROBE_EXIT_USAGE after printing
 * what was wrong.
 */
static int probe_parse_args(int argc, char **argv, const struct probe_spec *spec,
                            struct probe_args *a)
{
	memset(a, 0, sizeof *a);
	a->size = PROBE_SIZE_DEFAULT;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *val = NULL;
		enum probe_size size;

		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			probe_usage(stdout, spec);
			return 1;
		}
		if (strcmp(arg, "--size") == 0 || strcmp(arg, "--iterations") == 0) {
			if (i + 1 >= argc)
				return probe_bad_usage(spec, "missing value after", arg);
			val = argv[++i];
		} else if (strncmp(arg, "--size=", 7) == 0) {
			val = arg + 7;
		} else if (strncmp(arg, "--iterations=", 13) == 0) {
			val = arg + 13;
		}

		if (strncmp(arg, "--iterations", 12) == 0 && val) {
			if (a->iterations_given)
				return probe_bad_usage(spec, "--iterations given twice, at", val);
			if (probe_parse_u64(val, &a->iterations) != 0)
				return probe_bad_usage(
				    spec, "--iterations needs a positive integer, not", val);
			a->iterations_given = true;
			continue;
		}
		if (strncmp(arg, "--size", 6) == 0 && val) {
			arg = val;
		} else if (arg[0] == '-') {
			return probe_bad_usage(spec, "unknown option", arg);
		}
		if (probe_parse_size(arg, &size) != 0)
			return probe_bad_usage(spec, "unknown size (want ci, default or large)",
			                       arg);
		if (a->size_given)
			return probe_bad_usage(spec, "size given twice, at", arg);
		a->size = size;
		a->size_given = true;
	}
	if (!a->iterations_given)
		a->iterations = spec->iterations[a->size];
	return 0;
}

/* ---- Environment ---------------------------------------------------------------------- */

/*
 * Checked before the run, so that a harness with a broken pipe set-up fails in a millisecond
 * rather than after the whole probe.
 */
static int probe_open_sink(const char *probe_name, struct probe_sink *sink)
{
	const char *s = getenv("GCR_CENSUS_FD");
	char *end;
	long v;
	int flags;

	sink->fd = -1;
	sink->text = s;
	if (!s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v > INT32_MAX) {
		fprintf(stderr, "%s: GCR_CENSUS_FD='%s' is not a descriptor number\n", probe_name,
		        s);
		return -1;
	}
	flags = fcntl((int)v, F_GETFL);
	if (flags < 0) {
		fprintf(stderr, "%s: GCR_CENSUS_FD=%s: descriptor is not open (%s)\n", probe_name,
		        s, strerror(errno));
		return -1;
	}
	if ((flags & O_ACCMODE) != O_WRONLY && (flags & O_ACCMODE) != O_RDWR) {
		fprintf(stderr, "%s: GCR_CENSUS_FD=%s: descriptor is not open for writing\n",
		        probe_name, s);
		return -1;
	}
	sink->fd = (int)v;
	return 0;
}

static void probe_read_memory(struct probe_memory *m)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	uint64_t kb;

	memset(m, 0, sizeof *m);
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "VmHWM: %" SCNu64 " kB", &kb) == 1) {
			m->vm_hwm_bytes = kb * 1024;
			m->have_hwm = true;
		} else if (sscanf(line, "RssAnon: %" SCNu64 " kB", &kb) == 1) {
			m->rss_anon_bytes = kb * 1024;
			m->have_rss_anon = true;
		}
	}
	fclose(f);
}

/* ---- The census object ---------------------------------------------------------------- */

/* Length of the well-formed UTF-8 sequence at s, or 0 if the bytes there are not one. */
static size_t probe_utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07u;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3fu);
	}
	/* Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8. */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * A JSON string. A collector's name is whatever it says it is, so bytes that are not UTF-8
 * become U+FFFD rather than making the whole object unreadable.
 */
static void probe_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	fputc('"', f);
	while (*s) {
		size_t n = probe_utf8_len(s);

		if (n == 0) {
			fputs("\\ufffd", f);
			s++;
			continue;
		}
		switch (*s) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*s < 0x20)
				fprintf(f, "\\u%04x", (unsigned)*s);
			else
				fwrite(s, 1, n, f);
		}
		s += n;
	}
	fputc('"', f);
}

static void probe_json_capabilities(FILE *f, unsigned caps)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
	    {GCR_CAP_COLLECTS, "collects"},       {GCR_CAP_PRECISE, "precise"},
	    {GCR_CAP_MOVING, "moving"},           {GCR_CAP_GENERATIONAL, "generational"},
	    {GCR_CAP_BARRIER, "barrier"},         {GCR_CAP_PAUSE_LOG, "pause_log"},
	    {GCR_CAP_CLOCK_PACED, "clock_paced"},
	};
	const char *sep = "";

	fputc('[', f);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (caps & names[i].bit) {
			fprintf(f, "%s\"%s\"", sep, names[i].name);
			sep = ", ";
		}
	}
	fputc(']', f);
}

static void probe_json_census(FILE *f, const struct gcr_census *c)
{
	static const char *const names[GCR_C_COUNT] = {
#define PROBE_CENSUS_NAME_(id, name) [GCR_C_##id] = name,
	    GCR_CENSUS_FIELDS(PROBE_CENSUS_NAME_)
#undef PROBE_CENSUS_NAME_
	};
	const char *sep = "";

	fputc('{', f);
	for (int i = 0; i < GCR_C_COUNT; i++) {
		if (c->known & (UINT64_C(1) << i)) {
			fprintf(f, "%s\n    \"%s\": %" PRIu64, sep, names[i], c->value[i]);
			sep = ",";
		}
	}
	fputs(*sep ? "\n  }" : "}", f);
}

/*
 * The "triggers" section: collections by what started them, the names the collector knows
 * (its zeros too: it reports every trigger it can start a collection for). None: no section.
 */
static void probe_json_triggers(FILE *f, const struct gcr_census *c)
{
	/* Characters, not pointers: pointers would cost every run (valgrind's too) relocations. */
	static const char names[GCR_T_COUNT][16] = {
#define PROBE_TRIGGER_NAME_(id, name) [GCR_T_##id] = name,
	    GCR_TRIGGERS(PROBE_TRIGGER_NAME_)
#undef PROBE_TRIGGER_NAME_
	};
	const char *sep = "";

	if (c->triggers_known == 0)
		return;
	fputs(",\n  \"triggers\": {", f);
	for (int i = 0; i < GCR_T_COUNT; i++) {
		if (c->triggers_known & (UINT64_C(1) << i)) {
			fprintf(f, "%s\"%s\": %" PRIu64, sep, names[i], c->triggers[i]);
			sep = ", ";
		}
	}
	fputc('}', f);
}

static uint64_t *probe_xmalloc_u64(size_t n)
{
	uint64_t *v = malloc((n ? n : 1) * sizeof *v);

	if (!v) {
		fprintf(stderr, "probe: out of memory for %zu pause or latency figures\n", n);
		abort();
	}
	return v;
}

/* p50, p90, p99 of n >= 1 values (sorted in place), as "<prefix>_pNN_ns" members. */
static void probe_json_quantiles(FILE *f, const char *prefix, uint64_t *v, size_t n,
                                 const unsigned *q, const char *const *qname, size_t nq)
{
	gcr_sort_u64(v, n);
	for (size_t i = 0; i < nq; i++)
		fprintf(f, ",\n    \"%s_%s_ns\": %" PRIu64, prefix, qname[i],
		        gcr_quantile_sorted(v, n, q[i]));
}

/*
 * The "pauses" section, from the pause log of a collector that keeps one: exact counts and
 * totals always; quantiles and MMU only when every interval was kept and is well formed, since
 * figures from part of the run would pass for the whole.
 */
static void probe_json_pauses(FILE *f, const char *probe_name, const struct probe_span *span)
{
	static const unsigned q[] = {5000, 9000, 9900};
	static const char *const qname[] = {"p50", "p90", "p99"};
	static const struct {
		uint64_t ns;
		const char *name;
	} windows[] = {{1000000, "1ms"},    {2000000, "2ms"},   {5000000, "5ms"},
	               {10000000, "10ms"},  {20000000, "20ms"}, {50000000, "50ms"},
	               {100000000, "100ms"}};
	const struct gcr_pause_log *l = gcr_pause_log();
	const char *sep = "";
	size_t bad;
	int whole = l->dropped == 0;

	fprintf(f,
	        ",\n  \"pauses\": {\n    \"count\": %" PRIu64 ", \"dropped\": %" PRIu64
	        ", \"span_ns\": %" PRIu64 ",\n    \"wall_total_ns\": %" PRIu64
	        ", \"wall_max_ns\": %" PRIu64 ", \"cpu_total_ns\": %" PRIu64
	        ", \"cpu_max_ns\": %" PRIu64,
	        l->count, l->dropped, span->end_ns - span->start_ns, l->wall_total_ns,
	        l->wall_max_ns, l->cpu_total_ns, l->cpu_max_ns);
	if (whole &&
	    gcr_pause_intervals_check(l->pauses, l->n, span->start_ns, span->end_ns, &bad) != 0) {
		fprintf(stderr,
		        "%s: pause %zu of the log is out of order or outside the run: no quantiles "
		        "or MMU (a collector bug)\n",
		        probe_name, bad);
		whole = 0;
	}
	if (whole && l->n > 0) {
		uint64_t *v = probe_xmalloc_u64(l->n);

		for (size_t i = 0; i < l->n; i++)
			v[i] = l->pauses[i].end_ns - l->pauses[i].start_ns;
		probe_json_quantiles(f, "wall", v, l->n, q, qname, 3);
		for (size_t i = 0; i < l->n; i++)
			v[i] = l->pauses[i].cpu_ns;
		probe_json_quantiles(f, "cpu", v, l->n, q, qname, 3);
		free(v);
	}
	fputs(",\n    \"histogram_log2_ns\": {", f);
	for (unsigned k = 0; k < GCR_PAUSE_HIST_BUCKETS; k++) {
		if (l->hist_wall[k]) {
			fprintf(f, "%s\"%u\": %" PRIu64, sep, k, l->hist_wall[k]);
			sep = ", ";
		}
	}
	fputc('}', f);
	if (whole) {
		sep = "";
		fputs(",\n    \"mmu\": {", f);
		for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++) {
			fprintf(
			    f, "%s\"%s\": %.6f", sep, windows[i].name,
			    gcr_mmu(l->pauses, l->n, span->start_ns, span->end_ns, windows[i].ns));
			sep = ", ";
		}
		fputc('}', f);
	}
	fputs("\n  }", f);
}

/*
 * The "latency" section of a request-serving probe. Metered: request i arrives at
 * i * span / n, the requests' own span spread evenly, and is served in order by one server
 * for its measured service time: end_i = max(arrival_i, end_(i-1)) + service_i, latency
 * end_i - arrival_i. A pause inside one request delays the ones queued behind it until the
 * queue drains.
 */
static void probe_json_latency(FILE *f)
{
	static const unsigned q[] = {5000, 9900, 9990, 10000};
	static const char *const qname[] = {"p50", "p99", "p999", "max"};
	size_t n = probe_latency.n;
	uint64_t *simple = probe_latency.service_ns, *metered = probe_xmalloc_u64(n);
	uint64_t done = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t service = simple[i];
		/* i * span / n, in floating point: the product can pass 2^64. */
		uint64_t arrival =
		    (uint64_t)((double)probe_latency.span_ns * (double)i / (double)n);
		uint64_t start = done > arrival ? done : arrival;

		done = start + service;
		metered[i] = done - arrival;
	}
	fprintf(f, ",\n  \"latency\": {\n    \"requests\": %zu", n);
	probe_json_quantiles(f, "simple", simple, n, q, qname, 4);
	probe_json_quantiles(f, "metered", metered, n, q, qname, 4);
	fputs("\n  }", f);
	free(metered);
}

/* Formats the whole object; returns a malloc'd buffer and its length, or NULL if out of memory. */
static char *probe_census_json(const struct probe_spec *spec, const struct probe_args *a,
                               uint64_t checksum, const struct gcr_census *c, unsigned caps,
                               const struct probe_memory *m, const struct probe_verdict *v,
                               const struct probe_span *span, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	const char *sep = "";

	if (!f)
		return NULL;
	fputs("{\n  \"format\": \"gcr-census\",\n  \"version\": 1,\n  \"probe\": ", f);
	probe_json_string(f, spec->name);
	fprintf(f, ",\n  \"size\": \"%s\",\n  \"iterations\": %" PRIu64 ",\n  \"collector\": ",
	        a->iterations_given ? "custom" : probe_size_names[a->size], a->iterations);
	probe_json_string(f, gcr_name());
	fputs(",\n  \"collector_version\": ", f);
	probe_json_string(f, gcr_version());
	fputs(",\n  \"capabilities\": ", f);
	probe_json_capabilities(f, caps);
	fprintf(f, ",\n  \"checksum\": \"0x%016" PRIx64 "\",\n  \"census\": ", checksum);
	probe_json_census(f, c);
	probe_json_triggers(f, c);
	fputs(",\n  \"memory\": {", f);
	if (m->have_hwm) {
		fprintf(f, " \"vm_hwm_bytes\": %" PRIu64, m->vm_hwm_bytes);
		sep = ",";
	}
	if (m->have_rss_anon)
		fprintf(f, "%s \"rss_anon_bytes\": %" PRIu64, sep, m->rss_anon_bytes);
	fputs(m->have_hwm || m->have_rss_anon ? " }" : "}", f);
	if (caps & GCR_CAP_PAUSE_LOG)
		probe_json_pauses(f, spec->name, span);
	if (probe_latency.n > 0)
		probe_json_latency(f);
	if (v->judged) {
		fprintf(f, ",\n  \"premise\": { \"met\": %s, \"text\": ",
		        v->met == 1   ? "true"
		        : v->met == 0 ? "false"
		                      : "null");
		probe_json_string(f, v->text);
		fputs(" }", f);
	}
	fputs("\n}\n", f);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Writes all of buf, through short writes and signals. */
static int probe_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int probe_write_census(const struct probe_spec *spec, const struct probe_sink *sink,
                              const char *json, size_t len)
{
	struct sigaction ignore, old;
	int rc = 0;

	/*
	 * A harness that stopped reading must cost this probe an error message, not a silent
	 * death by SIGPIPE that looks like a crashed collector.
	 */
	memset(&ignore, 0, sizeof ignore);
	ignore.sa_handler = SIG_IGN;
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGPIPE, &ignore, &old);
	if (probe_write_all(sink->fd, json, len) != 0) {
		fprintf(stderr, "%s: GCR_CENSUS_FD=%s: write failed: %s\n", spec->name, sink->text,
		        strerror(errno));
		rc = -1;
	}
	sigaction(SIGPIPE, &old, NULL);
	/* On Linux the descriptor is released even when close reports EINTR: never retry. */
	if (close(sink->fd) != 0 && errno != EINTR && rc == 0) {
		fprintf(stderr, "%s: GCR_CENSUS_FD=%s: close failed: %s\n", spec->name, sink->text,
		        strerror(errno));
		rc = -1;
	}
	return rc;
}

static void probe_judge(const struct probe_spec *spec, const struct gcr_census *c, unsigned caps,
                        struct probe_verdict *v)
{
	memset(v, 0, sizeof *v);
	if (!spec->premise_met)
		return;
	v->judged = true;
	v->met = spec->premise_met(c, caps, v->text, sizeof v->text);
	if (v->met != 1 && v->met != 0 && v->met != -1) {
		snprintf(v->text, sizeof v->text, "premise check returned %d (a probe bug)",
		         v->met);
		v->met = 0;
	}
	/* A met premise with nothing more to say reports the premise itself. */
	if (v->text[0] == '\0')
		snprintf(v->text, sizeof v->text, "%s", spec->premise ? spec->premise : "");
}

int probe_main(int argc, char **argv, const struct probe_spec *spec)
{
	struct probe_args args;
	struct probe_sink sink;
	struct probe_verdict verdict;
	struct probe_memory mem;
	struct gcr_census census;
	struct probe_span span;
	unsigned caps;
	uint64_t checksum;
	char *json = NULL;
	size_t json_len = 0;
	int rc;

	rc = probe_parse_args(argc, argv, spec, &args);
	if (rc == 1)
		return PROBE_EXIT_OK;
	if (rc != 0)
		return rc;
	if (probe_open_sink(spec->name, &sink) != 0)
		return PROBE_EXIT_USAGE;

	span.start_ns = probe_now_ns();
	gcr_init();
	checksum = spec->run(args.iterations);
	gcr_collect(GCR_FULL);
	span.end_ns = probe_now_ns();
	memset(&census, 0, sizeof census);
	gcr_census(&census);
	caps = gcr_capabilities();
	/*
	 * /proc/self/status only for the census: its lines (context switches, VmHWM) change
	 * length from run to run, and parsing them moved a valgrind run's Ir by 13 instructions
	 * one run in three. A run without a census (the valgrind meter's) leaves it unread.
	 */
	memset(&mem, 0, sizeof mem);
	if (sink.fd >= 0)
		probe_read_memory(&mem);
	probe_judge(spec, &census, caps, &verdict);

	printf("checksum 0x%016" PRIx64 "\n", checksum);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: writing the checksum to stdout failed: %s\n", spec->name,
		        strerror(errno));
		rc = PROBE_EXIT_USAGE;
		goto out;
	}
	if (verdict.judged && verdict.met == 0)
		fprintf(stderr, "premise not met: %s\n", verdict.text);
	if (sink.fd < 0)
		goto out;
	json = probe_census_json(spec, &args, checksum, &census, caps, &mem, &verdict, &span,
	                         &json_len);
	if (!json) {
		fprintf(stderr, "%s: out of memory formatting the census object\n", spec->name);
		abort();
	}
	if (probe_write_census(spec, &sink, json, json_len) != 0)
		rc = PROBE_EXIT_USAGE;
out:
	free(json);
	probe_latency_record(NULL, 0, 0);
	return rc;
}

int probe_collected(const struct gcr_census *c, unsigned capabilities, uint64_t *collections,
                    char *why, size_t why_size)
{
	const uint64_t counts =
	    (UINT64_C(1) << GCR_C_MINOR_COLLECTIONS) | (UINT64_C(1) << GCR_C_MAJOR_COLLECTIONS);

	if (!(capabilities & GCR_CAP_COLLECTS)) {
		snprintf(why, why_size, "the collector does not collect");
		return -1;
	}
	if ((c->known & counts) != counts) {
		snprintf(why, why_size, "the census lacks minor/major collection counts");
		return -1;
	}
	*collections = c->value[GCR_C_MINOR_COLLECTIONS] + c->value[GCR_C_MAJOR_COLLECTIONS];
	if (*collections <= 1) {
		snprintf(why, why_size,
		         "no collection during the run (%" PRIu64
		         " in all, with the final full one)",
		         *collections);
		return 0;
	}
	return 1;
}
