#include "session_opts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
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
 * Every shared option, the group that brings it, and for the integers their bounds (max > 0),
 * checked by one function before anything is converted. --cpu's bound is the host's.
 */
static const struct session_opts_entry {
	const char *name;
	int has_arg;
	unsigned group;
	uint64_t min, max;
	const char *unit; /* after the range in a refusal */
} session_opts_entries[] = {
    {"--probes", 1, SESSION_OPT_PROBES, 0, 0, NULL},
    {"--size", 1, SESSION_OPT_PROBES, 0, 0, NULL},
    {"--rounds", 1, SESSION_OPT_ROUNDS, 1, SESSION_OPTS_ROUNDS_MAX, ""},
    {"--warmup", 1, SESSION_OPT_ROUNDS, 0, SESSION_OPTS_WARMUP_MAX, ""},
    {"--meters", 1, SESSION_OPT_ROUNDS, 0, 0, NULL},
    {"--events", 1, SESSION_OPT_ROUNDS, 0, 0, NULL},
    /* The store keeps the seed as a signed 64-bit integer. */
    {"--seed", 1, SESSION_OPT_ROUNDS, 0, INT64_MAX, ""},
    {"--jobs", 1, SESSION_OPT_ROUNDS, 1, SESSION_OPTS_JOBS_MAX, " valgrind runs at once"},
    {"--valgrind-runs", 1, SESSION_OPT_ROUNDS, 1, SESSION_OPTS_VALGRIND_RUNS_MAX,
     " valgrind runs per probe and arm"},
    {"--timeout", 1, SESSION_OPT_PROBES, 0, SESSION_OPTS_WAIT_MAX_S, " seconds (0: no limit)"},
    {"--db", 1, SESSION_OPT_PROBES, 0, 0, NULL},
    {"--pass-env", 1, SESSION_OPT_PROBES, 0, 0, NULL},
    {"--thp", 1, SESSION_OPT_PROBES, 0, 0, NULL},
    {"--collector", 1, SESSION_OPT_BUILDS, 0, 0, NULL},
    {"--build", 1, SESSION_OPT_BUILDS, 0, 0, NULL},
    {"--two-n", 1, SESSION_OPT_TWO_N, 0, 0, NULL},
    {"--cpu", 1, SESSION_OPT_HERMETIC, 0, 0, NULL},
    {"--no-aslr", 0, SESSION_OPT_HERMETIC, 0, 0, NULL},
    {"--clean-env", CLI_OPT_HIDDEN, SESSION_OPT_HERMETIC, 0, 0, NULL},
    {"--env-offset", 1, SESSION_OPT_HERMETIC, 0, SESSION_OPTS_ENV_OFFSET_MAX, " bytes"},
    {"--lock-timeout", 1, SESSION_OPT_QUIET, 0, SESSION_OPTS_WAIT_MAX_S, " seconds"},
    {"--idle-below", 1, SESSION_OPT_QUIET, 0, 0, NULL},
    {"--idle-timeout", 1, SESSION_OPT_QUIET, 0, SESSION_OPTS_WAIT_MAX_S, " seconds"},
    {"--knob", 1, SESSION_OPT_KNOB, 0, 0, NULL},
};
#define SESSION_OPTS_NENTRIES (sizeof session_opts_entries / sizeof session_opts_entries[0])

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

struct cli_opt *session_opts_table(const struct session_opts *o, const struct cli_opt *own)
{
	size_t n = 0, k = 0;
	struct cli_opt *t;

	while (own && own[n].name)
		n++;
	t = xcalloc(n + SESSION_OPTS_NENTRIES + 1, sizeof *t);
	for (k = 0; k < n; k++)
		t[k] = own[k];
	for (size_t i = 0; i < SESSION_OPTS_NENTRIES; i++)
		if (session_opts_entries[i].group & o->accept)
			t[k++] = (struct cli_opt){session_opts_entries[i].name,
			                          session_opts_entries[i].has_arg};
	return t;
}

static int session_opts_all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/*
 * Parses val whole into [min, max]. The comparison is made on the uint64_t, before any
 * conversion to the field's type, so no value can wrap into range; a string of digits too
 * long for 64 bits is out of range like any other.
 */
static int session_opts_uint(const char *opt, const char *val, uint64_t min, uint64_t max,
                             const char *unit, uint64_t *out, struct err *e)
{
	uint64_t v;

	if (!session_opts_all_digits(val))
		return err_setc(e, ERR_INVALID,
		                "%s must be an integer from %llu to %llu%s, got \"%s\"", opt,
		                (unsigned long long)min, (unsigned long long)max, unit, val);
	if (parse_u64(val, &v) != 0 || v < min || v > max)
		return err_setc(e, ERR_INVALID, "%s must be %llu to %llu%s, got %s", opt,
		                (unsigned long long)min, (unsigned long long)max, unit, val);
	*out = v;
	return 0;
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

static void session_opts_string(char **field, const char *val)
{
	free(*field);
	*field = xstrdup(val);
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

int session_opts_parse(struct session_opts *o, const char *opt, const char *val, struct err *e)
{
	const struct session_opts_entry *entry = NULL;
	uint64_t v = 0;
	long ncpu;

	for (size_t i = 0; i < SESSION_OPTS_NENTRIES && !entry; i++)
		if (strcmp(session_opts_entries[i].name, opt) == 0 &&
		    (session_opts_entries[i].group & o->accept))
			entry = &session_opts_entries[i];
	if (!entry)
		return 0;
	if ((entry->has_arg & 1) && !val)
		return err_setc(e, ERR_INVALID, "option %s needs a value", opt);
	if (entry->max > 0 &&
	    session_opts_uint(opt, val, entry->min, entry->max, entry->unit, &v, e) != 0)
		return -1;

	if (strcmp(opt, "--probes") == 0) {
		session_opts_string(&o->probes, val);
	} else if (strcmp(opt, "--size") == 0) {
		if (session_opts_set_size(o, val, e) != 0)
			return -1;
	} else if (strcmp(opt, "--two-n") == 0) {
		if (session_opts_two_n(o, val, e) != 0)
			return -1;
	} else if (strcmp(opt, "--rounds") == 0) {
		o->rounds = (int)v;
	} else if (strcmp(opt, "--warmup") == 0) {
		o->warmup = (int)v;
	} else if (strcmp(opt, "--meters") == 0) {
		session_opts_string(&o->meters, val);
	} else if (strcmp(opt, "--events") == 0) {
		session_opts_string(&o->events, val);
	} else if (strcmp(opt, "--jobs") == 0) {
		o->jobs = (int)v;
	} else if (strcmp(opt, "--valgrind-runs") == 0) {
		/* At least that many; a verb that adds runs where Ir did not repeat still does. */
		o->valgrind_runs_max += (int)v - o->valgrind_runs;
		o->valgrind_runs = (int)v;
	} else if (strcmp(opt, "--seed") == 0) {
		o->seed = v;
		o->have_seed = 1;
	} else if (strcmp(opt, "--timeout") == 0) {
		o->timeout_ms = (int64_t)v * 1000;
	} else if (strcmp(opt, "--db") == 0) {
		session_opts_string(&o->db, val);
	} else if (strcmp(opt, "--collector") == 0) {
		strlist_split(&o->collectors, val);
	} else if (strcmp(opt, "--build") == 0) {
		strlist_push(&o->build_dirs, val);
	} else if (strcmp(opt, "--cpu") == 0) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		if (!session_opts_all_digits(val) || parse_u64(val, &v) != 0 || ncpu < 1 ||
		    v >= (uint64_t)ncpu)
			return err_setc(e, ERR_INVALID, "--cpu %s: this host has CPUs 0 to %ld",
			                val, ncpu - 1);
		o->pin_cpu = 1;
		o->cpu = (int)v;
	} else if (strcmp(opt, "--no-aslr") == 0) {
		o->no_aslr = 1;
	} else if (strcmp(opt, "--clean-env") == 0) {
		/* Every run is hermetic now; the flag stays so that older command lines work. */
	} else if (strcmp(opt, "--pass-env") == 0) {
		if (session_opts_env_names(o, val, e) != 0)
			return -1;
	} else if (strcmp(opt, "--thp") == 0) {
		if (hostinfo_thp_parse(val, &o->thp) != 0)
			return err_setc(e, ERR_INVALID, "--thp must be off or host, got \"%s\"",
			                val);
	} else if (strcmp(opt, "--env-offset") == 0) {
		o->env_offset = (unsigned)v;
	} else if (strcmp(opt, "--lock-timeout") == 0) {
		o->lock_timeout_s = (int)v;
	} else if (strcmp(opt, "--idle-below") == 0) {
		if (session_opts_load(val, &o->idle_below, e) != 0)
			return -1;
	} else if (strcmp(opt, "--idle-timeout") == 0) {
		o->idle_timeout_s = (int)v;
	} else if (strcmp(opt, "--knob") == 0) {
		if (session_opts_knob(&o->knobs, opt, val, e) != 0)
			return -1;
	}
	return 1;
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
		valid = strlist_join(&names, ", ");
		cli_error(cmd,
		          "unknown collector \"%s\" (valid: %s); a build folder elsewhere is "
		          "--build DIR",
		          name, names.n ? valid : "none built: run make");
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
	if (cli_plan_meters(cmd, o->meters, o->events, plan, &s->vg, &s->perf) != 0)
		return -1;
	if (session_setup_builds(cmd, o, s) != 0)
		return -1;
	session_setup_meters_off(cmd, o, s);
	if (session_setup_arms(cmd, o, s) != 0)
		return -1;
	if (cli_plan_probes(cmd, s->builds, s->narms, o->probes, plan) != 0)
		return -1;
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
