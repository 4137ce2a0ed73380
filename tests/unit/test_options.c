/*
 * test_options.c — the session options measure, ab and baseline pin share: every numeric bound
 * (its edges accepted, one past refused, overflow, negative, empty and non-numbers refused, the
 * message naming option, value and range), the per-verb defaults and option sets, last-wins,
 * and a seeded random drive of the parser (argument: the seed to repeat a run).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "session_opts.h"
#include "unit.h"
#include "util.h"

struct bound {
	const char *opt;
	enum session_verb verb;
	uint64_t min, max;
	int64_t (*get)(const struct session_opts *o);
};

static int64_t get_rounds(const struct session_opts *o)
{
	return o->rounds;
}
static int64_t get_warmup(const struct session_opts *o)
{
	return o->warmup;
}
static int64_t get_seed(const struct session_opts *o)
{
	return (int64_t)o->seed;
}
static int64_t get_timeout_s(const struct session_opts *o)
{
	return o->timeout_ms / 1000;
}
static int64_t get_env_offset(const struct session_opts *o)
{
	return o->env_offset;
}
static int64_t get_lock_timeout(const struct session_opts *o)
{
	return o->lock_timeout_s;
}
static int64_t get_idle_timeout(const struct session_opts *o)
{
	return o->idle_timeout_s;
}
static int64_t get_jobs(const struct session_opts *o)
{
	return o->jobs;
}

static const struct bound bounds[] = {
    {"--rounds", SESSION_VERB_MEASURE, 1, SESSION_OPTS_ROUNDS_MAX, get_rounds},
    {"--rounds", SESSION_VERB_AB, 1, SESSION_OPTS_ROUNDS_MAX, get_rounds},
    {"--warmup", SESSION_VERB_MEASURE, 0, SESSION_OPTS_WARMUP_MAX, get_warmup},
    {"--warmup", SESSION_VERB_AB, 0, SESSION_OPTS_WARMUP_MAX, get_warmup},
    {"--seed", SESSION_VERB_MEASURE, 0, INT64_MAX, get_seed},
    {"--seed", SESSION_VERB_AB, 0, INT64_MAX, get_seed},
    {"--timeout", SESSION_VERB_MEASURE, 0, SESSION_OPTS_WAIT_MAX_S, get_timeout_s},
    {"--timeout", SESSION_VERB_AB, 0, SESSION_OPTS_WAIT_MAX_S, get_timeout_s},
    {"--env-offset", SESSION_VERB_MEASURE, 0, SESSION_OPTS_ENV_OFFSET_MAX, get_env_offset},
    {"--lock-timeout", SESSION_VERB_MEASURE, 0, SESSION_OPTS_WAIT_MAX_S, get_lock_timeout},
    {"--idle-timeout", SESSION_VERB_MEASURE, 0, SESSION_OPTS_WAIT_MAX_S, get_idle_timeout},
    {"--jobs", SESSION_VERB_MEASURE, 1, SESSION_OPTS_JOBS_MAX, get_jobs},
    {"--jobs", SESSION_VERB_AB, 1, SESSION_OPTS_JOBS_MAX, get_jobs},
    {"--jobs", SESSION_VERB_SWEEP, 1, SESSION_OPTS_JOBS_MAX, get_jobs},
};

/* Parses one option into fresh options of the verb; returns parse's result, e filled. */
static int parse_one(enum session_verb verb, const char *opt, const char *val,
                     struct session_opts *o, struct err *e)
{
	session_opts_init(o, verb);
	memset(e, 0, sizeof *e);
	return session_opts_parse(o, opt, val, e);
}

static void expect_accepted(const struct bound *b, uint64_t v)
{
	struct session_opts o;
	struct err e;
	char val[32];

	snprintf(val, sizeof val, "%" PRIu64, v);
	CHECK(parse_one(b->verb, b->opt, val, &o, &e) == 1);
	CHECK((uint64_t)b->get(&o) == v);
	if ((uint64_t)b->get(&o) != v)
		fprintf(stderr, "  %s %s read back as %" PRId64 "\n", b->opt, val, b->get(&o));
	session_opts_release(&o);
}

/* Refused with a message naming the option, the value as given and the range. */
static void expect_refused(const struct bound *b, const char *val)
{
	struct session_opts o, fresh;
	struct err e;
	char range[64];

	snprintf(range, sizeof range, "%" PRIu64 " to %" PRIu64, b->min, b->max);
	CHECK(parse_one(b->verb, b->opt, val, &o, &e) == -1);
	CHECK(e.code == ERR_INVALID);
	CHECK(strncmp(e.msg, b->opt, strlen(b->opt)) == 0);
	CHECK(strstr(e.msg, range) != NULL);
	CHECK(strstr(e.msg, *val ? val : "\"\"") != NULL);
	if (strncmp(e.msg, b->opt, strlen(b->opt)) != 0 || !strstr(e.msg, range))
		fprintf(stderr, "  %s \"%s\": %s\n", b->opt, val, e.msg);
	/* A refused value changes nothing: the range is checked before any conversion. */
	session_opts_init(&fresh, b->verb);
	CHECK(b->get(&o) == b->get(&fresh));
	session_opts_release(&fresh);
	session_opts_release(&o);
}

static void test_numeric_bounds(void)
{
	static const char *const junk[] = {
	    "",
	    "-1",
	    "-0",
	    "+1",
	    " 1",
	    "1 ",
	    "1.5",
	    "1e3",
	    "0x10",
	    "nan",
	    "inf",
	    "abc",
	    "١",
	    "1,2",
	    "99999999999999999999999",
	    "18446744073709551616",
	};
	char val[32];

	for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
		const struct bound *b = &bounds[i];
		expect_accepted(b, b->min);
		expect_accepted(b, b->min + 1);
		expect_accepted(b, b->max);
		snprintf(val, sizeof val, "%" PRIu64, b->max + 1);
		expect_refused(b, val);
		if (b->min > 0) {
			snprintf(val, sizeof val, "%" PRIu64, b->min - 1);
			expect_refused(b, val);
		}
		/* 2^64 - 1 parses; it is still out of range, and must not wrap into it. */
		expect_refused(b, "18446744073709551615");
		for (size_t j = 0; j < sizeof junk / sizeof junk[0]; j++)
			expect_refused(b, junk[j]);
	}
}

static void test_timeout_zero_is_no_limit(void)
{
	struct session_opts o;
	struct err e;

	/* Both verbs: 0 means no limit, as the runner and the launcher understand it. */
	CHECK(parse_one(SESSION_VERB_MEASURE, "--timeout", "0", &o, &e) == 1);
	CHECK(o.timeout_ms == 0);
	session_opts_release(&o);
	CHECK(parse_one(SESSION_VERB_AB, "--timeout", "0", &o, &e) == 1);
	CHECK(o.timeout_ms == 0);
	session_opts_release(&o);
	/* The largest timeout, with valgrind's 100x, stays far inside int64 nanoseconds. */
	CHECK(parse_one(SESSION_VERB_AB, "--timeout", "2592000", &o, &e) == 1);
	CHECK(o.timeout_ms * 100 < INT64_MAX / 1000000 / 2);
	session_opts_release(&o);
	CHECK(parse_one(SESSION_VERB_MEASURE, "--timeout", "10000000000", &o, &e) == -1);
	CHECK_STR(e.msg, "--timeout must be 0 to 2592000 seconds (0: no limit), got 10000000000");
	session_opts_release(&o);
}

static void test_idle_below(void)
{
	static const char *const good[] = {"0.5", "1", "1e-4", "64", "0.0001"};
	static const char *const bad[] = {"nan", "NAN", "inf", "-inf", "-1",    "0",  "-0",
	                                  "",    " 1",  "1 ",  "1x",   "1e999", "abc"};
	struct session_opts o;
	struct err e;

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		CHECK(parse_one(SESSION_VERB_MEASURE, "--idle-below", good[i], &o, &e) == 1);
		CHECK(o.idle_below > 0);
		session_opts_release(&o);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char want[96];
		snprintf(want, sizeof want,
		         "--idle-below must be a finite load average above 0, got \"%s\"", bad[i]);
		CHECK(parse_one(SESSION_VERB_MEASURE, "--idle-below", bad[i], &o, &e) == -1);
		CHECK_STR(e.msg, want);
		CHECK(o.idle_below == 0);
		session_opts_release(&o);
	}
}

static void test_cpu(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct session_opts o;
	struct err e;
	char val[32], want[96];

	snprintf(val, sizeof val, "%ld", ncpu - 1);
	CHECK(parse_one(SESSION_VERB_MEASURE, "--cpu", val, &o, &e) == 1);
	CHECK(o.pin_cpu == 1 && o.cpu == ncpu - 1);
	session_opts_release(&o);
	snprintf(val, sizeof val, "%ld", ncpu);
	snprintf(want, sizeof want, "--cpu %ld: this host has CPUs 0 to %ld", ncpu, ncpu - 1);
	CHECK(parse_one(SESSION_VERB_MEASURE, "--cpu", val, &o, &e) == -1);
	CHECK_STR(e.msg, want);
	CHECK(o.pin_cpu == 0);
	session_opts_release(&o);
	CHECK(parse_one(SESSION_VERB_MEASURE, "--cpu", "18446744073709551617", &o, &e) == -1);
	CHECK(parse_one(SESSION_VERB_MEASURE, "--cpu", "-1", &o, &e) == -1);
	session_opts_release(&o);
}

static void test_sizes(void)
{
	struct session_opts o;
	struct err e;

	session_opts_init(&o, SESSION_VERB_MEASURE);
	CHECK(session_opts_parse(&o, "--size", "huge", &e) == -1);
	CHECK_STR(e.msg, "--size must be ci, default or large, got \"huge\"");
	CHECK_STR(o.size, "default");
	CHECK(session_opts_parse(&o, "--two-n", "5,3", &e) == -1);
	CHECK(session_opts_parse(&o, "--two-n", "0,3", &e) == -1);
	CHECK(session_opts_parse(&o, "--two-n", "1,99999999999999999999999", &e) == -1);
	CHECK(session_opts_parse(&o, "--two-n", "1,2,3", &e) == -1);
	CHECK(o.two_n[0] == 0);
	/* The last of --size and --two-n wins. */
	CHECK(session_opts_parse(&o, "--two-n", "18446744073709551614,18446744073709551615", &e) ==
	      1);
	CHECK_STR(o.size, "n=18446744073709551614,18446744073709551615");
	CHECK(session_opts_parse(&o, "--size", "large", &e) == 1);
	CHECK_STR(o.size, "large");
	CHECK(o.two_n[0] == 0 && o.two_n[1] == 0);
	session_opts_release(&o);
}

static void test_last_wins(void)
{
	struct session_opts o;
	struct err e;

	session_opts_init(&o, SESSION_VERB_MEASURE);
	CHECK(session_opts_parse(&o, "--rounds", "3", &e) == 1);
	CHECK(session_opts_parse(&o, "--rounds", "4", &e) == 1);
	CHECK(o.rounds == 4);
	CHECK(session_opts_parse(&o, "--db", "a.db", &e) == 1);
	CHECK(session_opts_parse(&o, "--db", "b.db", &e) == 1);
	CHECK_STR(o.db, "b.db");
	CHECK(session_opts_parse(&o, "--probes", "01", &e) == 1);
	CHECK(session_opts_parse(&o, "--probes", "02", &e) == 1);
	CHECK_STR(o.probes, "02");
	/* A refused repeat keeps the value before it. */
	CHECK(session_opts_parse(&o, "--rounds", "0", &e) == -1);
	CHECK(o.rounds == 4);
	/* --collector and --build add up. */
	CHECK(session_opts_parse(&o, "--collector", "gen,epsilon", &e) == 1);
	CHECK(session_opts_parse(&o, "--collector", "marksweep", &e) == 1);
	CHECK(session_opts_parse(&o, "--build", "x", &e) == 1);
	CHECK(session_opts_parse(&o, "--build", "y", &e) == 1);
	CHECK(o.collectors.n == 3 && o.build_dirs.n == 2);
	session_opts_release(&o);
}

static void count_shown(void *ctx, const struct cli_option *row)
{
	if (!(row->flags & CLI_HIDDEN))
		++*(size_t *)ctx;
}

/* The session rows a verb that accepts these groups shows, as its table includes them. */
static size_t rows_shown(unsigned accept)
{
	const struct cli_option table[] = {
	    {.name = "session", .kind = CLI_INCLUDE, .rows = session_options, .group = accept},
	    {0},
	};
	size_t n = 0;

	cli_each_option(table, count_shown, &n);
	return n;
}

static void test_verbs(void)
{
	struct session_opts m, a, p;
	struct err e;

	session_opts_init(&m, SESSION_VERB_MEASURE);
	session_opts_init(&a, SESSION_VERB_AB);
	session_opts_init(&p, SESSION_VERB_PIN);
	CHECK_STR(m.size, "default");
	CHECK(m.rounds == 5 && m.warmup == 1 && m.timeout_ms == 300000);
	CHECK_STR(a.size, "ci");
	CHECK(a.rounds == 7 && a.warmup == 1 && a.timeout_ms == 300000);
	CHECK_STR(p.size, "ci");
	CHECK(p.rounds == 5 && p.warmup == 1);
	CHECK(m.lock_timeout_s == 3600 && a.lock_timeout_s == 3600);
	CHECK(!m.have_seed && m.idle_below == 0);
	/* --jobs: every online CPU by default (within the bound), for every verb, pin's too. */
	{
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		int want = ncpu < 1                       ? 1
		           : ncpu > SESSION_OPTS_JOBS_MAX ? SESSION_OPTS_JOBS_MAX
		                                          : (int)ncpu;
		CHECK(m.jobs == want && a.jobs == want && p.jobs == want);
	}

	/* ab takes the run options, not measure's build, hermetic or quiet ones. */
	CHECK(session_opts_parse(&a, "--collector", "gen", &e) == 0);
	CHECK(session_opts_parse(&a, "--two-n", "1,2", &e) == 0);
	CHECK(session_opts_parse(&a, "--lock-timeout", "1", &e) == 0);
	CHECK(session_opts_parse(&a, "--md", "x.md", &e) == 0);
	CHECK(session_opts_parse(&m, "--md", "x.md", &e) == 0);
	CHECK(session_opts_parse(&m, "--nosuch", NULL, &e) == 0);
	/* A value missing is refused, not read (the fuzzer may hand the parser anything). */
	CHECK(session_opts_parse(&m, "--rounds", NULL, &e) == -1);
	CHECK(session_opts_parse(&m, "--no-aslr", NULL, &e) == 1 && m.no_aslr);

	/* --thp (issue 31) is one of the probe options every verb that measures takes. */
	CHECK(rows_shown(a.accept) == 13);
	CHECK(rows_shown(m.accept) == 23); /* and the hidden --clean-env */

	/* --knob: measure's, for every arm; names [A-Z][A-Z0-9_]*, one of a name: the last. */
	CHECK(session_opts_parse(&a, "--knob", "GCR_HEAP_MB=64", &e) == 0);
	CHECK(session_opts_parse(&m, "--knob", "GCR_HEAP_MB=64", &e) == 1);
	CHECK(session_opts_parse(&m, "--knob", "GCR_NURSERY_KB=16384", &e) == 1);
	CHECK(session_opts_parse(&m, "--knob", "GCR_HEAP_MB=128", &e) == 1);
	CHECK(m.knobs.n == 2);
	CHECK_STR(m.knobs.items[0], "GCR_HEAP_MB=128");
	CHECK(session_opts_parse(&m, "--knob", "A=", &e) == 1 && m.knobs.n == 3);
	CHECK(session_opts_parse(&m, "--knob", "gcr_heap_mb=1", &e) == -1);
	CHECK(strstr(e.msg, "--knob") &&
	      strstr(e.msg, "\"gcr_heap_mb\" must match [A-Z][A-Z0-9_]*"));
	CHECK(session_opts_parse(&m, "--knob", "1GCR=1", &e) == -1);
	CHECK(session_opts_parse(&m, "--knob", "GCR-X=1", &e) == -1);
	CHECK(session_opts_parse(&m, "--knob", "=1", &e) == -1);
	CHECK(session_opts_parse(&m, "--knob", "GCR_HEAP_MB", &e) == -1);
	CHECK(strstr(e.msg, "must be NAME=VALUE") != NULL);
	CHECK(session_opts_parse(&m, "--knob", "GCR_CENSUS_FD=5", &e) == -1);
	CHECK(strstr(e.msg, "set by the harness") != NULL);
	CHECK(m.knobs.n == 3);
	{
		char *json = session_knobs_json(&m.knobs);
		CHECK_STR(json,
		          "{\"GCR_HEAP_MB\":\"128\",\"GCR_NURSERY_KB\":\"16384\",\"A\":\"\"}");
		free(json);
		CHECK(session_knobs_json(&a.knobs) == NULL);
	}
	session_opts_release(&m);
	session_opts_release(&a);
	session_opts_release(&p);

	/*
	 * minheap: probes, builds, hermetic, quiet and knobs, parsed here and nowhere else; the
	 * options of rounds and meters mean nothing to a search and are not its options.
	 */
	session_opts_init(&m, SESSION_VERB_MINHEAP);
	CHECK_STR(m.size, "ci");
	CHECK(session_opts_parse(&m, "--collector", "gen", &e) == 1);
	CHECK(session_opts_parse(&m, "--probes", "01,12", &e) == 1);
	CHECK(session_opts_parse(&m, "--timeout", "60", &e) == 1 && m.timeout_ms == 60000);
	CHECK(session_opts_parse(&m, "--timeout", "abc", &e) == -1);
	CHECK(session_opts_parse(&m, "--knob", "GCR_NURSERY_KB=16384", &e) == 1);
	CHECK(session_opts_parse(&m, "--no-aslr", NULL, &e) == 1);
	CHECK(session_opts_parse(&m, "--rounds", "3", &e) == 0);
	CHECK(session_opts_parse(&m, "--meters", "rusage", &e) == 0);
	CHECK(session_opts_parse(&m, "--seed", "1", &e) == 0);
	CHECK(session_opts_parse(&m, "--two-n", "1,2", &e) == 0);
	CHECK(rows_shown(m.accept) == 22 - 6 - 1);
	session_opts_release(&m);
}

/*
 * Random options and values, as a fuzzer would send them: the parser answers 0, 1 or -1 with
 * a message, and whatever it accepted stays within the bounds. One check for the lot, so the
 * tally counts tests rather than iterations.
 */
UTIL_WRAPS_ON_PURPOSE
static void test_random(uint64_t seed)
{
	static const char *const names[] = {
	    "--probes",     "--size",         "--rounds",     "--warmup",       "--meters",
	    "--events",     "--seed",         "--timeout",    "--db",           "--collector",
	    "--build",      "--two-n",        "--cpu",        "--no-aslr",      "--clean-env",
	    "--env-offset", "--lock-timeout", "--idle-below", "--idle-timeout", "--md",
	    "--knob",       "--thp"};
	static const char alphabet[] = "0123456789,.-+eEinfaNx \t";
	uint64_t x = seed | 1;
	struct session_opts o;
	int bad = 0;

	session_opts_init(&o, SESSION_VERB_MEASURE);
	for (int i = 0; i < 20000 && !bad; i++) {
		const char *name;
		char val[40];
		size_t len;
		struct err e = ERR_INIT;
		int r;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		name = names[x % (sizeof names / sizeof names[0])];
		len = (x >> 8) % sizeof val;
		for (size_t k = 0; k < len; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			val[k] = alphabet[x % (sizeof alphabet - 1)];
		}
		val[len] = '\0';
		r = session_opts_parse(&o, name, val, &e);
		bad = r < -1 || r > 1 || (r == -1 && (!e.msg[0] || e.code != ERR_INVALID)) ||
		      o.rounds < 1 || o.rounds > SESSION_OPTS_ROUNDS_MAX || o.warmup < 0 ||
		      o.warmup > SESSION_OPTS_WARMUP_MAX || o.timeout_ms < 0 ||
		      o.timeout_ms > SESSION_OPTS_WAIT_MAX_S * 1000LL || o.lock_timeout_s < 0 ||
		      o.idle_timeout_s < 0 || o.seed > INT64_MAX ||
		      (o.idle_below != 0 && !(o.idle_below > 0 && isfinite(o.idle_below)));
		if (bad)
			fprintf(stderr, "  iteration %d: %s \"%s\" gave %d: %s\n", i, name, val, r,
			        e.msg);
	}
	CHECK(!bad);
	session_opts_release(&o);
}

/* --pass-env: names only, repeatable, each once; anything that is not a name is refused. */
static void test_pass_env(void)
{
	struct session_opts o;
	struct err e = ERR_INIT;

	session_opts_init(&o, SESSION_VERB_MEASURE);
	CHECK(session_opts_parse(&o, "--pass-env", "JAVA_HOME,LD_LIBRARY_PATH", &e) == 1);
	CHECK(session_opts_parse(&o, "--pass-env", "JAVA_HOME", &e) == 1);
	CHECK(o.pass_env.n == 2);
	CHECK(session_opts_parse(&o, "--pass-env", "A=B", &e) == -1);
	CHECK(strstr(e.msg, "--pass-env takes variable names") != NULL);
	CHECK(session_opts_parse(&o, "--pass-env", "1X", &e) == -1);
	CHECK(session_opts_parse(&o, "--pass-env", ",", &e) == -1);
	CHECK(session_opts_parse(&o, "--pass-env", "X Y", &e) == -1);
	CHECK(o.pass_env.n == 2);
	/* The old flag is still accepted: every run is hermetic now. */
	CHECK(session_opts_parse(&o, "--clean-env", NULL, &e) == 1);
	session_opts_release(&o);
}

/*
 * --thp off|host: off by default for every verb, host or off by name (the last wins), anything
 * else refused naming the option; taken by the verbs that measure, not by pin's own struct.
 */
static void test_thp(void)
{
	static const enum session_verb takes[] = {SESSION_VERB_MEASURE, SESSION_VERB_AB,
	                                          SESSION_VERB_MINHEAP, SESSION_VERB_SWEEP};
	struct session_opts o;
	struct err e = ERR_INIT;

	for (size_t i = 0; i < sizeof takes / sizeof takes[0]; i++) {
		session_opts_init(&o, takes[i]);
		CHECK(o.thp == HOSTINFO_THP_OFF);
		CHECK(session_opts_parse(&o, "--thp", "host", &e) == 1 &&
		      o.thp == HOSTINFO_THP_HOST);
		CHECK(session_opts_parse(&o, "--thp", "off", &e) == 1 && o.thp == HOSTINFO_THP_OFF);
		session_opts_release(&o);
	}
	session_opts_init(&o, SESSION_VERB_MEASURE);
	CHECK(session_opts_parse(&o, "--thp", "on", &e) == -1 && e.code == ERR_INVALID);
	CHECK_STR(e.msg, "--thp must be off or host, got \"on\"");
	CHECK(session_opts_parse(&o, "--thp", "", &e) == -1);
	CHECK(session_opts_parse(&o, "--thp", "HOST", &e) == -1);
	CHECK(session_opts_parse(&o, "--thp", NULL, &e) == -1);
	CHECK(o.thp == HOSTINFO_THP_OFF);
	session_opts_release(&o);
	session_opts_init(&o, SESSION_VERB_PIN);
	CHECK(session_opts_parse(&o, "--thp", "host", &e) == 0 && o.thp == HOSTINFO_THP_OFF);
	session_opts_release(&o);
}

static int same_list(const struct strlist *a, const struct strlist *b)
{
	if (a->n != b->n || (a->n && a->items == b->items))
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->items[i] == b->items[i] || strcmp(a->items[i], b->items[i]) != 0)
			return 0;
	return 1;
}

static int same_str(const char *a, const char *b)
{
	return a && b && a != b && strcmp(a, b) == 0;
}

/*
 * session_opts_copy: every option a verb parsed reaches the copy (bisect makes each step's
 * session from one, so a run option it takes cannot be dropped on the way), the strings and
 * lists owned by the copy. Compared field by field for what is owned and as bytes for the
 * rest, so a field added to the struct is covered without naming it here.
 */
static void test_copy(void)
{
	static const char *const set[][2] = {
	    {"--probes", "01,02"},
	    {"--size", "large"},
	    {"--rounds", "7"},
	    {"--warmup", "3"},
	    {"--meters", "rusage,perf"},
	    {"--events", "cycles:u"},
	    {"--seed", "42"},
	    {"--jobs", "3"},
	    {"--valgrind-runs", "4"},
	    {"--timeout", "9"},
	    {"--db", "/tmp/x.db"},
	    {"--pass-env", "JAVA_HOME"},
	    {"--thp", "host"},
	    {"--collector", "gen"},
	    {"--build", "/tmp/b"},
	    {"--cpu", "1"},
	    {"--no-aslr", NULL},
	    {"--env-offset", "64"},
	    {"--lock-timeout", "11"},
	    {"--idle-below", "0.5"},
	    {"--idle-timeout", "12"},
	    {"--knob", "GCR_HEAP_MB=64"},
	};
	struct session_opts o, c, flat;
	struct err e = ERR_INIT;

	session_opts_init(&o, SESSION_VERB_MEASURE);
	o.accept = ~0u;
	for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
		CHECK(session_opts_parse(&o, set[i][0], set[i][1], &e) == 1);
	session_opts_copy(&c, &o);
	CHECK(same_list(&c.collectors, &o.collectors) && c.collectors.n == 1);
	CHECK(same_list(&c.build_dirs, &o.build_dirs) && c.build_dirs.n == 1);
	CHECK(same_list(&c.pass_env, &o.pass_env) && c.pass_env.n == 1);
	CHECK(same_list(&c.knobs, &o.knobs) && c.knobs.n == 1);
	CHECK(same_str(c.probes, o.probes) && same_str(c.meters, o.meters));
	CHECK(same_str(c.events, o.events) && same_str(c.db, o.db));
	CHECK(c.env_offset == 64 && c.idle_timeout_s == 12 && c.no_aslr && c.pin_cpu);
	CHECK(c.thp == HOSTINFO_THP_HOST && c.timeout_ms == 9000 && c.have_seed);
	/* Everything else, byte for byte: the owned fields set to the original's to compare. */
	flat = c;
	flat.collectors = o.collectors;
	flat.build_dirs = o.build_dirs;
	flat.pass_env = o.pass_env;
	flat.knobs = o.knobs;
	flat.probes = o.probes;
	flat.meters = o.meters;
	flat.events = o.events;
	flat.db = o.db;
	CHECK(memcmp(&flat, &o, sizeof o) == 0);
	/* Each owns its memory: releasing one leaves the other whole. */
	session_opts_release(&o);
	CHECK(strcmp(c.db, "/tmp/x.db") == 0 && strcmp(c.knobs.items[0], "GCR_HEAP_MB=64") == 0);
	session_opts_release(&c);
}

/*
 * What ratchet takes of the session options (group SESSION_OPT_HOW) is how the runs are made,
 * never what is measured: the baseline says the probes, size, meters and rounds.
 */
static void test_how_group(void)
{
	static const char *const how[] = {"--seed",       "--jobs",         "--timeout",
	                                  "--cpu",        "--no-aslr",      "--lock-timeout",
	                                  "--idle-below", "--idle-timeout", NULL};
	size_t n = 0;

	for (const struct cli_option *r = session_options; r->name; r++) {
		int want = 0;
		for (size_t i = 0; how[i]; i++)
			want |= strcmp(how[i], r->name) == 0;
		CHECK(!!(r->group & SESSION_OPT_HOW) == want);
		n += want;
	}
	CHECK(n == 8);
}

int main(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL);

	if (argc > 1)
		parse_u64(argv[1], &seed);
	printf("test_options: seed %" PRIu64 " (pass it as the argument to repeat)\n", seed);
	test_numeric_bounds();
	test_timeout_zero_is_no_limit();
	test_idle_below();
	test_cpu();
	test_sizes();
	test_last_wins();
	test_verbs();
	test_pass_env();
	test_thp();
	test_copy();
	test_how_group();
	test_random(seed);
	return unit_done("test_options");
}
