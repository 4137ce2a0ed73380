#include "session_opts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostinfo.h"
#include "progress.h"
#include "quiet.h"

/* ---- The options ---------------------------------------------------------------------- */

/* Each verb's defaults, in one place. */
static const struct session_opts_defaults {
	const char *size;
	int rounds, warmup;
	/*
	 * Valgrind runs per probe and arm at least, and at most where Ir did not repeat. ab needs
	 * to see whether each arm repeats itself before it compares Ir exactly: two runs, and three
	 * where they differ, from which a spread can be judged (paired.h); everyone else one.
	 */
	int valgrind_runs, valgrind_runs_max;
	int timeout_s, lock_timeout_s, idle_timeout_s;
	unsigned accept;
} session_opts_defaults[] = {
    [SESSION_VERB_MEASURE] = {"default", 5, 1, 1, 1, 300, 3600, 300,
                              SESSION_OPT_RUN | SESSION_OPT_BUILDS | SESSION_OPT_TWO_N |
                                  SESSION_OPT_HERMETIC | SESSION_OPT_QUIET | SESSION_OPT_KNOB},
    /* Seven rounds: an exact signed-rank test needs six pairs to reach p < 0.05 at all. */
    [SESSION_VERB_AB] = {"ci", 7, 1, 2, 3, 300, 3600, 300, SESSION_OPT_RUN},
    /* pin fills the struct itself and parses nothing: ci size, 5 rounds after a warm-up. */
    [SESSION_VERB_PIN] = {"ci", 5, 1, 1, 1, 300, 3600, 300, 0},
    /*
     * A profile that gates time pins each time cell from 11 runs: the median of 11 moves little
     * when two of them are disturbed, and max - min over 11 shows the host's noise, which 5
     * runs often hide. baseline pin refuses to pin gated time from fewer.
     */
    [SESSION_VERB_PIN_TIME] = {"ci", 11, 1, 1, 1, 300, 3600, 300, 0},
    /* One run per limit tried: rounds, meters and seeds mean nothing to a search. */
    [SESSION_VERB_MINHEAP] = {"ci", 1, 0, 1, 1, 300, 3600, 300,
                              SESSION_OPT_PROBES | SESSION_OPT_BUILDS | SESSION_OPT_HERMETIC |
                                  SESSION_OPT_QUIET | SESSION_OPT_KNOB},
    /*
     * One round and no warm-up: a sweep is builds x factors arms (18 for three collectors at
     * six factors), and the bar is a ci sweep of three collectors in ten minutes.
     */
    [SESSION_VERB_SWEEP] = {"ci", 1, 0, 1, 1, 300, 3600, 300,
                            SESSION_OPT_RUN | SESSION_OPT_BUILDS | SESSION_OPT_HERMETIC |
                                SESSION_OPT_QUIET | SESSION_OPT_KNOB},
};

/*
 * Deterministic meters do not depend on load, so by default the valgrind runs of a session use
 * every online CPU (docs/meters.md, "Parallel valgrind runs"); timed runs never run beside them.
 */
static int session_opts_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > SESSION_OPTS_JOBS_MAX ? SESSION_OPTS_JOBS_MAX : (int)n;
}

int session_opts_default_rounds(enum session_verb verb)
{
	struct session_opts o;
	int rounds;

	session_opts_init(&o, verb);
	rounds = o.rounds;
	session_opts_release(&o);
	return rounds;
}

void session_opts_init(struct session_opts *o, enum session_verb verb)
{
	const struct session_opts_defaults *d = &session_opts_defaults[verb];

	memset(o, 0, sizeof *o);
	o->accept = d->accept;
	snprintf(o->size, sizeof o->size, "%s", d->size);
	o->rounds = d->rounds;
	o->warmup = d->warmup;
	o->jobs = session_opts_default_jobs();
	o->valgrind_runs = d->valgrind_runs;
	o->valgrind_runs_max = d->valgrind_runs_max;
	o->timeout_ms = (int64_t)d->timeout_s * 1000;
	o->lock_timeout_s = d->lock_timeout_s;
	o->idle_timeout_s = d->idle_timeout_s;
}

void session_opts_release(struct session_opts *o)
{
	strlist_release(&o->collectors);
	strlist_release(&o->build_dirs);
	strlist_release(&o->pass_env);
	strlist_release(&o->knobs);
	free(o->probes);
	free(o->meters);
	free(o->events);
	free(o->db);
	memset(o, 0, sizeof *o);
}

static void session_opts_copy_list(struct strlist *dst, const struct strlist *src)
{
	memset(dst, 0, sizeof *dst);
	for (size_t i = 0; i < src->n; i++)
		strlist_push(dst, src->items[i]);
}

static char *session_opts_copy_str(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void session_opts_copy(struct session_opts *dst, const struct session_opts *src)
{
	*dst = *src;
	session_opts_copy_list(&dst->collectors, &src->collectors);
	session_opts_copy_list(&dst->build_dirs, &src->build_dirs);
	session_opts_copy_list(&dst->pass_env, &src->pass_env);
	session_opts_copy_list(&dst->knobs, &src->knobs);
	dst->probes = session_opts_copy_str(src->probes);
	dst->meters = session_opts_copy_str(src->meters);
	dst->events = session_opts_copy_str(src->events);
	dst->db = session_opts_copy_str(src->db);
}

int session_opts_set_size(struct session_opts *o, const char *size, struct err *e)
{
	if (strcmp(size, "ci") && strcmp(size, "default") && strcmp(size, "large"))
		return err_setc(e, ERR_INVALID, "--size must be ci, default or large, got \"%s\"",
		                size);
	/* The last of --size and --two-n wins. */
	o->two_n[0] = o->two_n[1] = 0;
	snprintf(o->size, sizeof o->size, "%s", size);
	return 0;
}

static int session_opts_two_n(struct session_opts *o, const char *val, struct err *e)
{
	struct strlist ns = {0};
	uint64_t n[2];
	int rc = 0;

	strlist_split(&ns, val);
	if (ns.n != 2 || parse_u64(ns.items[0], &n[0]) != 0 || parse_u64(ns.items[1], &n[1]) != 0 ||
	    n[0] == 0 || n[1] <= n[0]) {
		rc = err_setc(
		    e, ERR_INVALID,
		    "--two-n needs two iteration counts N1,N2 with 0 < N1 < N2, got \"%s\"", val);
		goto out;
	}
	o->two_n[0] = n[0];
	o->two_n[1] = n[1];
	snprintf(o->size, sizeof o->size, "n=%llu,%llu", (unsigned long long)n[0],
	         (unsigned long long)n[1]);
out:
	strlist_release(&ns);
	return rc;
}

static int session_opts_load(const char *val, double *out, struct err *e)
{
	if (parse_pos_double(val, out) != 0)
		return err_setc(e, ERR_INVALID,
		                "--idle-below must be a finite load average above 0, got \"%s\"",
		                val);
	return 0;
}

/* --pass-env NAME[,NAME...]: names of the caller's variables a probe also gets. */
static int session_opts_env_names(struct session_opts *o, const char *val, struct err *e)
{
	struct strlist names = {0};
	int rc = 0;

	strlist_split(&names, val);
	if (names.n == 0)
		rc = err_setc(e, ERR_INVALID, "--pass-env needs a variable name, got \"%s\"", val);
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		const char *n = names.items[i];
		size_t len = strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		                       "0123456789_");
		if (len != strlen(n) || isdigit((unsigned char)n[0]) || strchr(n, '='))
			rc = err_setc(
			    e, ERR_INVALID,
			    "--pass-env takes variable names (letters, digits, _), got \"%s\"", n);
		else if (!strlist_contains(&o->pass_env, n))
			strlist_push(&o->pass_env, n);
	}
	strlist_release(&names);
	return rc;
}

/* ---- The rows: each option once, with where it lands (cli.h) -------------------------- */

static int session_opts_size_row(void *field, const struct cli_option *row, const char *val,
                                 struct err *e)
{
	(void)row;
	return session_opts_set_size(field, val, e);
}

static int session_opts_two_n_row(void *field, const struct cli_option *row, const char *val,
                                  struct err *e)
{
	(void)row;
	return session_opts_two_n(field, val, e);
}

static int session_opts_seed_row(void *field, const struct cli_option *row, const char *val,
                                 struct err *e)
{
	struct session_opts *o = field;

	if (cli_count(row, val, &o->seed, e) != 0)
		return -1;
	o->have_seed = 1;
	return 0;
}

static int session_opts_vg_runs_row(void *field, const struct cli_option *row, const char *val,
                                    struct err *e)
{
	struct session_opts *o = field;
	uint64_t v;

	if (cli_count(row, val, &v, e) != 0)
		return -1;
	/* At least that many; a verb that adds runs where Ir did not repeat still does. */
	o->valgrind_runs_max += (int)v - o->valgrind_runs;
	o->valgrind_runs = (int)v;
	return 0;
}

static int session_opts_timeout_row(void *field, const struct cli_option *row, const char *val,
                                    struct err *e)
{
	uint64_t v;

	if (cli_count(row, val, &v, e) != 0)
		return -1;
	*(int64_t *)field = (int64_t)v * 1000;
	return 0;
}

static int session_opts_cpu_row(void *field, const struct cli_option *row, const char *val,
                                struct err *e)
{
	struct session_opts *o = field;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t v;

	(void)row;
	if (!is_all_digits(val) || parse_u64(val, &v) != 0 || ncpu < 1 || v >= (uint64_t)ncpu)
		return err_setc(e, ERR_INVALID, "--cpu %s: this host has CPUs 0 to %ld", val,
		                ncpu - 1);
	o->pin_cpu = 1;
	o->cpu = (int)v;
	return 0;
}

/* --clean-env: every run is hermetic now; the flag stays so that older command lines work. */
static int session_opts_clean_env_row(void *field, const struct cli_option *row, const char *val,
                                      struct err *e)
{
	(void)field, (void)row, (void)val, (void)e;
	return 0;
}

static int session_opts_pass_env_row(void *field, const struct cli_option *row, const char *val,
                                     struct err *e)
{
	(void)row;
	return session_opts_env_names(field, val, e);
}

static int session_opts_thp_row(void *field, const struct cli_option *row, const char *val,
                                struct err *e)
{
	(void)row;
	if (hostinfo_thp_parse(val, field) != 0)
		return err_setc(e, ERR_INVALID, "--thp must be off or host, got \"%s\"", val);
	return 0;
}

static int session_opts_load_row(void *field, const struct cli_option *row, const char *val,
                                 struct err *e)
{
	(void)row;
	return session_opts_load(val, field, e);
}

static int session_opts_knob_row(void *field, const struct cli_option *row, const char *val,
                                 struct err *e)
{
	return session_opts_knob(field, row->name, val, e);
}

#define SO(field) offsetof(struct session_opts, field)
const struct cli_option session_options[] = {
    {"--collector", "NAME", CLI_LIST, SO(collectors), .group = SESSION_OPT_BUILDS,
     .flags = CLI_REPEAT | CLI_COMMAS | CLI_BUILDS,
     .help = "a shipped build under build/collectors (repeatable, or a comma list; "
             "default: " CLI_DEFAULT_COLLECTOR ")"},
    {"--build", "DIR", CLI_LIST, SO(build_dirs), .group = SESSION_OPT_BUILDS,
     .flags = CLI_REPEAT | CLI_BUILDS,
     .help = "any build folder with a manifest.json (repeatable)"},
    {"--probes", "LIST", CLI_OWNED, SO(probes), .group = SESSION_OPT_PROBES,
     .help = "comma list of probe names or numbers (default: all the builds share)"},
    {"--size", "ci|default|large", CLI_CALL, 0, .call = session_opts_size_row,
     .group = SESSION_OPT_PROBES, .help = "the probes' size"},
    {"--two-n", "N1,N2", CLI_CALL, 0, .call = session_opts_two_n_row, .group = SESSION_OPT_TWO_N,
     .help = "instead of a size: run each probe at N1 and at N2 iterations and store the "
             "per-iteration cost (m(N2) - m(N1)) / (N2 - N1) as a run of kind per_iteration, "
             "so start-up cost cancels out"},
    {"--rounds", "N", CLI_INT, SO(rounds), 1, SESSION_OPTS_ROUNDS_MAX, "",
     .group = SESSION_OPT_ROUNDS, .help = "measured rounds"},
    {"--warmup", "N", CLI_INT, SO(warmup), 0, SESSION_OPTS_WARMUP_MAX, "",
     .group = SESSION_OPT_ROUNDS, .help = "warm-up rounds, stored but marked"},
    {"--meters", "LIST", CLI_OWNED, SO(meters), .group = SESSION_OPT_ROUNDS,
     .help = "rusage,census,perf,valgrind (default: all the host has; rusage and census are "
             "always on; valgrind adds one Ir run per probe and build)"},
    {"--events", "LIST", CLI_OWNED, SO(events), .group = SESSION_OPT_ROUNDS,
     .help = "perf events, any libpfm4 encodes (default " METER_PERF_DEFAULT_EVENTS
             "); an event the host cannot count is reported once and left out"},
    /* The store keeps the seed as a signed 64-bit integer. */
    {"--seed", "N", CLI_CALL, 0, 0, INT64_MAX, "", .call = session_opts_seed_row,
     .group = SESSION_OPT_ROUNDS | SESSION_OPT_HOW,
     .help = "the shuffle seed, to repeat a session's order"},
    {"--jobs", "N", CLI_INT, SO(jobs), 1, SESSION_OPTS_JOBS_MAX, " valgrind runs at once",
     .group = SESSION_OPT_ROUNDS | SESSION_OPT_HOW,
     .help = "valgrind runs at once, 1 to 64 (default: the online CPUs); they start after the "
             "last timed run, which always runs alone"},
    {"--valgrind-runs", "N", CLI_CALL, 0, 1, SESSION_OPTS_VALGRIND_RUNS_MAX,
     " valgrind runs per probe and arm", .call = session_opts_vg_runs_row,
     .group = SESSION_OPT_ROUNDS,
     .help = "valgrind runs per probe and build (2 or more show whether the build's Ir "
             "repeats)"},
    {"--timeout", "SEC", CLI_CALL, SO(timeout_ms), 0, SESSION_OPTS_WAIT_MAX_S,
     " seconds (0: no limit)", .call = session_opts_timeout_row,
     .group = SESSION_OPT_PROBES | SESSION_OPT_HOW,
     .help = "kill a run after SEC seconds (default 300, 0: no limit; valgrind 100x)"},
    {"--cpu", "N", CLI_CALL, 0, .call = session_opts_cpu_row,
     .group = SESSION_OPT_HERMETIC | SESSION_OPT_HOW, .help = "pin every probe to CPU N"},
    {"--no-aslr", NULL, CLI_FLAG, SO(no_aslr), .group = SESSION_OPT_HERMETIC | SESSION_OPT_HOW,
     .help = "timed runs with address-space randomisation off (valgrind runs always)"},
    {"--clean-env", NULL, CLI_CALL, 0, .call = session_opts_clean_env_row,
     .group = SESSION_OPT_HERMETIC, .flags = CLI_HIDDEN,
     .help = "accepted for older command lines: every run is hermetic now"},
    {"--pass-env", "NAME", CLI_CALL, 0, .call = session_opts_pass_env_row,
     .group = SESSION_OPT_PROBES, .flags = CLI_REPEAT,
     .help = "give probes this variable of ours too (repeatable, or NAME,NAME; recorded by its "
             "name, never its value); otherwise a probe gets only a fixed environment and the "
             "GCR_* knobs"},
    {"--env-offset", "MAX", CLI_INT, SO(env_offset), 0, SESSION_OPTS_ENV_OFFSET_MAX, " bytes",
     .group = SESSION_OPT_HERMETIC,
     .help = "pad each run's environment by 0..MAX bytes (from the seed), to expose layout "
             "bias"},
    {"--lock-timeout", "SEC", CLI_INT, SO(lock_timeout_s), 0, SESSION_OPTS_WAIT_MAX_S, " seconds",
     .group = SESSION_OPT_QUIET | SESSION_OPT_HOW,
     .help = "one measuring session per host: wait up to SEC seconds (default 3600) for the "
             "bench lock ($GCR_LOCK_FILE or /tmp/gcratchet-bench.lock)"},
    {"--idle-below", "LOAD", CLI_CALL, SO(idle_below), .call = session_opts_load_row,
     .group = SESSION_OPT_QUIET | SESSION_OPT_HOW,
     .help = "first wait until the 1-minute load is below LOAD (--idle-timeout SEC, default "
             "300, then give up with exit 2)"},
    {"--idle-timeout", "SEC", CLI_INT, SO(idle_timeout_s), 0, SESSION_OPTS_WAIT_MAX_S, " seconds",
     .group = SESSION_OPT_QUIET | SESSION_OPT_HOW, .help = "how long --idle-below waits"},
    {"--knob", "NAME=VALUE", CLI_CALL, SO(knobs), .call = session_opts_knob_row,
     .group = SESSION_OPT_KNOB, .flags = CLI_REPEAT,
     .help = "give every probe this environment variable, over the caller's (a collector "
             "knob: GCR_NURSERY_KB=16384, GCR_HEAP_MB=64; repeatable; NAME matches "
             "[A-Z][A-Z0-9_]*)"},
    {"--thp", "off|host", CLI_CALL, SO(thp), .call = session_opts_thp_row,
     .group = SESSION_OPT_PROBES,
     .help = "transparent huge pages for the probes: off (default: the launcher turns them "
             "off before exec, so RSS is 4 KiB accounting on any host), or as the host is "
             "configured; the session records which"},
    {"--db", "FILE", CLI_OWNED, SO(db), .group = SESSION_OPT_PROBES,
     .help = "the database (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {0},
};
#undef SO

int session_opts_parse(struct session_opts *o, const char *opt, const char *val, struct err *e)
{
	const struct cli_option *row = NULL;

	for (const struct cli_option *r = session_options; r->name && !row; r++)
		if (strcmp(r->name, opt) == 0 && (r->group & o->accept))
			row = r;
	if (!row)
		return 0;
	return cli_apply(row, o, val, e) == 0 ? 1 : -1;
}

int session_opts_knob(struct strlist *knobs, const char *opt, const char *val, struct err *e)
{
	if (session_knob_check(opt, val, e) != 0)
		return -1;
	session_knob_set(knobs, val);
	return 0;
}

/* ---- Setting up a session ------------------------------------------------------------- */

/*
 * Counts SIGINT and SIGTERM, saturating: the session stops after the current run at the
 * first, and the runner may treat more than one as "stop the running probe too".
 */
static volatile sig_atomic_t session_setup_stop;
/* The runs session_run has stored (plan.stored); -1 while no session_run counts them. */
static volatile sig_atomic_t session_setup_stored = -1;
/* Set before the handler is installed, read by it: the verb, and a line to erase first. */
static const char *session_setup_cmd = "";
static int session_setup_redraw;

/* Appends s to buf[*len] within size: the handler's snprintf, which it may not call. */
static void session_notice_add(char *buf, size_t size, size_t *len, const char *s)
{
	while (*s && *len + 1 < size)
		buf[(*len)++] = *s++;
}

static void session_notice_num(char *buf, size_t size, size_t *len, long n)
{
	char digits[24];
	int k = (int)sizeof digits - 1;

	digits[k] = '\0';
	do
		digits[--k] = (char)('0' + n % 10);
	while ((n /= 10) > 0 && k > 0);
	session_notice_add(buf, size, len, digits + k);
}

/*
 * What the first and the second interrupt do, said at once (with write(2): async-signal-safe)
 * on stderr, so that the user knows the first was heard while the running probe finishes.
 */
static void session_setup_notice(int sig, sig_atomic_t count, sig_atomic_t stored)
{
	const char *how = sig == SIGINT ? "interrupted" : "terminated";
	char buf[320];
	size_t len = 0;
	ssize_t w;

	if (session_setup_redraw)
		session_notice_add(buf, sizeof buf, &len, "\r" PROGRESS_CLEAR_EOL);
	session_notice_add(buf, sizeof buf, &len, "gcratchet ");
	session_notice_add(buf, sizeof buf, &len, session_setup_cmd);
	session_notice_add(buf, sizeof buf, &len, ": ");
	session_notice_add(buf, sizeof buf, &len, how);
	if (count == 1) {
		session_notice_add(buf, sizeof buf, &len,
		                   ": finishing the running probe, which is stored too; ");
		if (stored >= 0) {
			session_notice_add(buf, sizeof buf, &len, "the ");
			session_notice_num(buf, sizeof buf, &len, (long)stored);
			session_notice_add(buf, sizeof buf, &len,
			                   stored == 1 ? " run stored so far is kept"
			                               : " runs stored so far are kept");
		} else {
			session_notice_add(buf, sizeof buf, &len, "what is stored so far is kept");
		}
		session_notice_add(buf, sizeof buf, &len,
		                   sig == SIGINT ? "; press Ctrl-C again to stop it now\n"
		                                 : "; a second SIGTERM stops it now\n");
	} else {
		session_notice_add(buf, sizeof buf, &len,
		                   " again: stopping the running probe now (stored as "
		                   "interrupted); the finished runs are kept\n");
	}
	w = write(STDERR_FILENO, buf, len);
	(void)w;
}

static void session_setup_on_signal(int sig)
{
	int saved = errno;

	if (session_setup_stop < SIG_ATOMIC_MAX)
		session_setup_stop++;
	if (session_setup_stop <= 2)
		session_setup_notice(sig, session_setup_stop, session_setup_stored);
	errno = saved;
}

void session_setup_init(struct session_setup *s)
{
	memset(s, 0, sizeof *s);
	s->lock_fd = -1;
	s->load_before = -1;
}

void session_setup_add_arm(struct session_setup *s, struct buildinfo *b,
                           const struct strlist *knobs)
{
	struct strlist *k;

	s->builds = xrealloc(s->builds, (s->narms + 1) * sizeof *s->builds);
	s->knobs = xrealloc(s->knobs, (s->narms + 1) * sizeof *s->knobs);
	s->labels = xrealloc(s->labels, (s->narms + 1) * sizeof *s->labels);
	s->builds[s->narms] = *b;
	memset(b, 0, sizeof *b);
	k = &s->knobs[s->narms];
	memset(k, 0, sizeof *k);
	for (size_t i = 0; knobs && i < knobs->n; i++)
		strlist_push(k, knobs->items[i]);
	s->labels[s->narms++] = NULL;
}

/*
 * The caller's GCR_* variables that may be knobs (session_env_knob_candidate), each given to
 * the arms whose build declares it and, in `dropped`, named once when no arm's build does: a
 * stray variable must not reach a probe (sixteen moved epsilon's Ir by +1.08%), and a knob the
 * session ran with is part of what check compares, so it is recorded with the arm.
 */
static void session_setup_env_knobs(const struct session_setup *s, size_t arm,
                                    struct strlist *knobs, struct strlist *dropped)
{
	for (size_t v = 0; environ[v]; v++) {
		const char *var = environ[v];
		char *name;
		int taken = 0;

		if (!session_env_knob_candidate(var) || !strchr(var, '='))
			continue;
		name = xasprintf("%.*s", (int)strcspn(var, "="), var);
		if (strlist_contains(&s->builds[arm].knobs, name))
			session_knob_set(knobs, var);
		for (size_t a = 0; a < s->narms; a++)
			taken |= strlist_contains(&s->builds[a].knobs, name);
		if (!taken && !strlist_contains(dropped, name))
			strlist_push(dropped, name);
		free(name);
	}
}

/*
 * Every arm gets, from the bottom up, the caller's variables its build declares as knobs, the
 * session's --knob, then its own; and a label: its build's name, or for the second arm of one
 * name "NAME (2)", so that every label names one arm. The variables no build declares are
 * named once on stderr. A --knob a build that lists its knobs does not read is refused (-1,
 * printed): a typo'd GCR_NURSRY_KB would measure the default and say nothing.
 */
static int session_setup_arms(const char *cmd, const struct session_opts *o,
                              struct session_setup *s)
{
	struct strlist dropped = {0};
	int rc = 0;

	s->arms = xcalloc(s->narms, sizeof *s->arms);
	for (size_t i = 0; i < s->narms; i++) {
		struct strlist own = s->knobs[i];
		int same = 0;
		memset(&s->knobs[i], 0, sizeof s->knobs[i]);
		session_setup_env_knobs(s, i, &s->knobs[i], &dropped);
		for (size_t k = 0; k < o->knobs.n; k++)
			session_knob_set(&s->knobs[i], o->knobs.items[k]);
		for (size_t k = 0; k < own.n; k++)
			session_knob_set(&s->knobs[i], own.items[k]);
		strlist_release(&own);
		for (size_t k = 0; rc == 0 && s->builds[i].knobs_declared && k < s->knobs[i].n;
		     k++) {
			const char *knob = s->knobs[i].items[k];
			char *name = xasprintf("%.*s", (int)strcspn(knob, "="), knob);
			if (!strlist_contains(&s->builds[i].knobs, name)) {
				char *known = strlist_join(&s->builds[i].knobs, ", ");
				rc =
				    cli_error(cmd,
				              "--knob %s: build %s does not read %s (the knobs its "
				              "manifest declares: %s)",
				              knob, s->builds[i].name, name,
				              s->builds[i].knobs.n ? known : "none");
				rc = -1;
				free(known);
			}
			free(name);
		}
		for (size_t j = 0; j < i; j++)
			same += strcmp(s->builds[j].name, s->builds[i].name) == 0;
		s->labels[i] = same ? xasprintf("%s (%d)", s->builds[i].name, same + 1)
		                    : xstrdup(s->builds[i].name);
		s->arms[i].build = &s->builds[i];
		s->arms[i].label = s->labels[i];
		s->arms[i].knobs = &s->knobs[i];
	}
	if (dropped.n) {
		char *names = strlist_join(&dropped, ", ");
		fprintf(stderr,
		        "gcratchet %s: not passed to the probes: %s (no build of this session "
		        "declares %s as a knob in its manifest)\n",
		        cmd, names, dropped.n == 1 ? "it" : "them");
		free(names);
	}
	strlist_release(&dropped);
	return rc;
}

static int session_setup_dir(const char *cmd, struct session_setup *s, const char *dir,
                             const char *label)
{
	struct buildinfo b;
	struct err e;

	if (buildinfo_load(dir, &b, &e) != 0) {
		cli_error(cmd, "%s: %s", label, e.msg);
		return -1;
	}
	for (size_t i = 0; i < b.warnings.n; i++)
		fprintf(stderr, "gcratchet %s: warning: %s\n", cmd, cli_safe(b.warnings.items[i]));
	for (size_t i = 0; i < s->narms; i++) {
		if (strcmp(s->builds[i].manifest_hash, b.manifest_hash) == 0 &&
		    strcmp(s->builds[i].dir, b.dir) == 0) {
			buildinfo_release(&b);
			cli_error(cmd, "build %s is named twice", dir);
			return -1;
		}
	}
	session_setup_add_arm(s, &b, NULL);
	return 0;
}

/* Resolves --collector NAME against the shipped builds; prints the valid names if unknown. */
static int session_setup_collector(const char *cmd, struct session_setup *s, const char *name)
{
	struct strlist names = {0};
	char *dir = NULL, *valid = NULL;
	int rc = -1;

	buildinfo_list(s->root, &names);
	if (!strlist_contains(&names, name)) {
		char phrase[NEAR_PHRASE_MAX];
		valid = strlist_join(&names, ", ");
		cli_error(cmd,
		          "unknown collector \"%s\" (%svalid: %s); a build folder elsewhere is "
		          "--build DIR",
		          name, near_phrase(strlist_near(name, &names), phrase, sizeof phrase),
		          names.n ? valid : "none built: run make");
		goto out;
	}
	dir = xasprintf("%s/collectors/%s", s->root, name);
	rc = session_setup_dir(cmd, s, dir, name);
out:
	free(dir);
	free(valid);
	strlist_release(&names);
	return rc;
}

static int session_setup_builds(const char *cmd, const struct session_opts *o,
                                struct session_setup *s)
{
	for (size_t i = 0; i < o->collectors.n; i++)
		if (session_setup_collector(cmd, s, o->collectors.items[i]) != 0)
			return -1;
	for (size_t i = 0; i < o->build_dirs.n; i++)
		if (session_setup_dir(cmd, s, o->build_dirs.items[i], o->build_dirs.items[i]) != 0)
			return -1;
	if (s->narms == 0 && session_setup_collector(cmd, s, CLI_DEFAULT_COLLECTOR) != 0)
		return -1;
	return 0;
}

/*
 * A build's manifest may leave optional meters off (its "meters_off"): with the default meters
 * (no --meters) the session measures every build without them, and says whose manifest asked
 * and why; --meters that names one measures it anyway.
 */
static void session_setup_meters_off(const char *cmd, const struct session_opts *o,
                                     struct session_setup *s)
{
	static const struct {
		const char *name;
		unsigned bits;
	} meters[] = {
	    {"valgrind", SESSION_METER_VALGRIND | SESSION_METER_CACHESIM},
	    {"cachesim", SESSION_METER_CACHESIM},
	    {"perf", SESSION_METER_PERF},
	};

	if (o->meters != NULL)
		return;
	for (size_t a = 0; a < s->narms; a++)
		for (size_t i = 0; i < s->builds[a].meters_off.n; i++)
			for (size_t k = 0; k < sizeof meters / sizeof *meters; k++)
				if (strcmp(s->builds[a].meters_off.items[i], meters[k].name) == 0 &&
				    (s->plan.meters & meters[k].bits)) {
					s->plan.meters &= ~meters[k].bits;
					fprintf(stderr,
					        "gcratchet %s: %s meter off: the manifest of %s "
					        "says: %s "
					        "(--meters ...,%s measures it anyway)\n",
					        cmd, meters[k].name, cli_safe(s->builds[a].name),
					        cli_safe(s->builds[a].meters_off_why.items[i]),
					        meters[k].name);
				}
}

/*
 * The THP condition the probes will get, which is what the session records: asked for and not
 * to be had (a seccomp filter or an old kernel refusing the prctl), it is said plainly here and
 * the session goes on under the condition it really has.
 */
static void session_setup_thp(const char *cmd, const struct session_opts *o,
                              struct session_plan *plan)
{
	char got[128];

	hostinfo_thp_try(o->thp, &plan->thp);
	if (plan->thp.condition == o->thp)
		return;
	hostinfo_thp_describe(&plan->thp, got, sizeof got);
	fprintf(stderr,
	        "gcratchet %s: cannot give the probes --thp %s here (%s): they run with THP %s, "
	        "and the session records that\n",
	        cmd, hostinfo_thp_name(o->thp), plan->thp.why, got);
}

int session_setup_begin(const char *cmd, const struct session_opts *o, const char *command,
                        struct session_setup *s)
{
	struct session_plan *plan = &s->plan;
	struct sigaction sa;
	struct err e;

	s->root = buildinfo_root();
	/* What was asked for first: a mistyped collector or probe is said before anything about
	 * the meters, errors before warnings. */
	if (session_setup_builds(cmd, o, s) != 0 || session_setup_arms(cmd, o, s) != 0 ||
	    cli_plan_probes(cmd, s->builds, s->narms, o->probes, plan) != 0)
		return -1;
	if (cli_plan_meters(cmd, o->meters, o->events, plan, &s->vg, &s->perf) != 0)
		return -1;
	session_setup_meters_off(cmd, o, s);
	s->launcher = xasprintf("%s/gcratchet-launch", s->root);
	if (access(s->launcher, X_OK) != 0) {
		cli_error(cmd, "%s is missing: run make", s->launcher);
		return -1;
	}
	plan->arms = s->arms;
	plan->narms = s->narms;
	plan->size = o->size;
	plan->rounds = o->rounds;
	plan->warmup = o->warmup;
	plan->jobs = o->jobs;
	plan->valgrind_runs = o->valgrind_runs;
	plan->valgrind_runs_max = o->valgrind_runs_max;
	plan->confirm = o->confirm;
	plan->confirm_ctx = o->confirm_ctx;
	plan->valgrind_confirm = o->valgrind_confirm;
	plan->more_timed = o->more_timed;
	plan->more_ctx = o->more_ctx;
	plan->two_n[0] = o->two_n[0];
	plan->two_n[1] = o->two_n[1];
	plan->seed = o->have_seed ? o->seed : cli_default_seed();
	plan->timeout_ms = o->timeout_ms;
	plan->pin_cpu = o->pin_cpu;
	plan->cpu = o->cpu;
	plan->no_aslr = o->no_aslr;
	plan->halt_on_failure = o->halt_on_failure;
	plan->pass_env = &o->pass_env;
	plan->env_offset = o->env_offset;
	plan->launcher = s->launcher;
	plan->command = command;
	plan->stop = &session_setup_stop;
	plan->stored = &session_setup_stored;
	session_setup_thp(cmd, o, plan);

	if (store_open(cli_db_path(o->db), STORE_WRITE, &s->st, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		return -1;
	}
	/* Quiet first: one measuring session per host, on a host that has calmed down. */
	if (quiet_lock(o->lock_timeout_s, cli_waiting, (void *)cmd, &s->lock_fd, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		return -1;
	}
	if (o->idle_below > 0 && quiet_wait_idle(o->idle_below, o->idle_timeout_s, cli_waiting,
	                                         (void *)cmd, &s->load_before, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		return -1;
	}
	session_setup_stop = 0;
	session_setup_stored = -1;
	session_setup_cmd = cmd;
	session_setup_redraw = progress_redraw_ok(STDERR_FILENO);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = session_setup_on_signal;
	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
	s->handlers = 1;
	return 0;
}

void session_setup_end(struct session_setup *s)
{
	if (s->handlers) {
		sigaction(SIGTERM, &s->old_term, NULL);
		sigaction(SIGINT, &s->old_int, NULL);
	}
	quiet_unlock(s->lock_fd);
	store_close(s->st);
	strlist_release(&s->plan.probes);
	meter_valgrind_release(&s->vg);
	meter_perf_release(&s->perf);
	for (size_t i = 0; i < s->narms; i++) {
		buildinfo_release(&s->builds[i]);
		strlist_release(&s->knobs[i]);
		free(s->labels[i]);
	}
	free(s->builds);
	free(s->knobs);
	free(s->labels);
	free(s->arms);
	free(s->launcher);
	free(s->root);
	session_setup_init(s);
}
