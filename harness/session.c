#include "session.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "census.h"
#include "hostinfo.h"
#include "metrics.h"
#include "runner.h"
#include "scratch.h"
#include "version.h"

extern char **environ;

/* The launcher's own pages that a child's wait4 peak may include beyond the probe's VmHWM. */
#define SESSION_RSS_SLACK_BYTES (4.0 * 1048576.0)

/* splitmix64: a small, well-mixed generator; the shuffle must be reproducible from the seed. */
UTIL_WRAPS_ON_PURPOSE
static uint64_t session_next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

int session_knob_check(const char *opt, const char *knob, struct err *e)
{
	const char *eq = strchr(knob, '=');
	size_t len = eq ? (size_t)(eq - knob) : strlen(knob);

	if (!eq)
		return err_setc(e, ERR_INVALID, "%s must be NAME=VALUE, got \"%s\"", opt, knob);
	if (len == 0 || knob[0] < 'A' || knob[0] > 'Z' ||
	    strspn(knob, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != len)
		return err_setc(e, ERR_INVALID, "%s: knob name \"%.*s\" must match [A-Z][A-Z0-9_]*",
		                opt, (int)len, knob);
	/* The census pipe and the layout padding are the harness's own, run by run. */
	if ((len == 13 && strncmp(knob, "GCR_CENSUS_FD", len) == 0) ||
	    (len == 11 && strncmp(knob, "GCR_ENV_PAD", len) == 0))
		return err_setc(e, ERR_INVALID, "%s: %.*s is set by the harness, not a knob", opt,
		                (int)len, knob);
	return 0;
}

void session_knob_set(struct strlist *knobs, const char *knob)
{
	size_t len = strcspn(knob, "=") + 1;

	for (size_t i = 0; i < knobs->n; i++)
		if (strncmp(knobs->items[i], knob, len) == 0) {
			free(knobs->items[i]);
			knobs->items[i] = xstrdup(knob);
			return;
		}
	strlist_push(knobs, knob);
}

char *session_knobs_json(const struct strlist *knobs)
{
	cJSON *o;
	char *text, *out;

	if (!knobs || knobs->n == 0)
		return NULL;
	o = cJSON_CreateObject();
	for (size_t i = 0; i < knobs->n; i++) {
		const char *knob = knobs->items[i], *eq = strchr(knob, '=');
		char *name = xasprintf("%.*s", (int)(eq - knob), knob);
		cJSON_AddStringToObject(o, name, eq + 1);
		free(name);
	}
	text = cJSON_PrintUnformatted(o);
	out = xstrdup(text);
	cJSON_free(text);
	cJSON_Delete(o);
	return out;
}

UTIL_WRAPS_ON_PURPOSE
void session_shuffle(uint64_t seed, int round, size_t n, size_t *order)
{
	uint64_t state = seed ^ (UINT64_C(0xd1b54a32d192ed03) * (uint64_t)(round + 1));

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(session_next(&state) % i);
		size_t t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

/*
 * Hermetic runs. A probe's instruction count and a conservative collector's heap move with
 * what the kernel puts on its stack: the environment strings, argv[0] and the executable's
 * path (AT_EXECFN). Measured on this kind of machine: every extra environment variable costs
 * a probe ~480 Ir (libc's getenv walks them all), so a CI runner with 200 more variables than
 * the pinning host turned an unchanged epsilon into +11% Ir on probe 10, and a bdwgc heap
 * figure moved by a page under `make`. So every run gets the same environment, the same
 * argv[0] and executable path length, and the same working directory on every host:
 * - the fixed variables below, then the variables named by --pass-env, then the arm's knobs:
 *   those of the caller's GCR_* variables its build declares as knobs (its manifest's
 *   "knobs"), under the session's and the arm's own --knob; never the harness's own settings
 *   (their values are paths that differ between hosts), nor a GCR_* variable no build reads:
 *   sixteen stray ones moved epsilon's Ir on probe 10 by +1.08%;
 * - the executable is run through a link in the session's scratch folder, whose path has the
 *   same length everywhere (/tmp/gcratchet.XXXXXX/<probe>; GCR_SCRATCH_ROOT, for tests that
 *   must keep their sessions apart, gives up that sameness: scratch.h), which is also the
 *   working directory of every run;
 * - valgrind runs have address-space randomisation off.
 */
static const char *const session_fixed_env[] = {
    "HOME=/tmp", "LANG=C", "LC_ALL=C", "PATH=/usr/local/bin:/usr/bin:/bin", "TZ=UTC", NULL,
};

/* Settings of gcratchet itself, never collector knobs: they stay out of a probe's environment. */
static const char *const session_harness_vars[] = {
    "GCR_DB",
    "GCR_LOCK_FILE",
    "GCR_BASELINE_DIR",
    "GCR_BUILD_ROOT",
    "GCR_SCRIPTS_DIR",
    "GCR_WHO",
    "GCR_CENSUS_FD",
    "GCR_ENV_PAD",
    "GCR_REV_DIR",
    "GCR_BISECT_CACHE",
    "GCR_FLEET_URL",
    "GCR_FUZZ_SECONDS",
    "GCR_SCRATCH_ROOT", /* scratch.h */
    NULL,
};

int session_env_knob_candidate(const char *var)
{
	size_t len = strcspn(var, "=");

	if (strncmp(var, "GCR_", 4) != 0 || strncmp(var, "GCR_TEST_", 9) == 0)
		return 0;
	for (size_t i = 0; session_harness_vars[i]; i++)
		if (strlen(session_harness_vars[i]) == len &&
		    strncmp(var, session_harness_vars[i], len) == 0)
			return 0;
	return 1;
}

/*
 * Sets `var` ("NAME=value", taken over) in env[0..*n), NULL-terminated: it replaces the entry
 * of the same name, or is appended. Returns env, grown when it was appended.
 */
static char **session_env_put(char **env, size_t *n, char *var)
{
	size_t len = strcspn(var, "=") + 1;

	for (size_t i = 0; i < *n; i++)
		if (strncmp(env[i], var, len) == 0) {
			free(env[i]);
			env[i] = var;
			return env;
		}
	env = xrealloc(env, (*n + 2) * sizeof *env);
	env[(*n)++] = var;
	env[*n] = NULL;
	return env;
}

/*
 * The environment every run of the session shares (see above), without the census pipe and
 * the padding, which session_env adds per run. NULL-terminated, newly allocated.
 */
static char **session_base_env(const struct session_plan *plan)
{
	size_t k = 0;
	char **env;

	env = xcalloc(sizeof session_fixed_env / sizeof *session_fixed_env + 1, sizeof *env);
	for (size_t i = 0; session_fixed_env[i]; i++)
		env[k++] = xstrdup(session_fixed_env[i]);
	env[k] = NULL;
	for (size_t i = 0; plan->pass_env && i < plan->pass_env->n; i++) {
		const char *value = getenv(plan->pass_env->items[i]);
		/* Asked for but not set: absent, as it would be for the probe. A passed PATH or
		 * LANG replaces the fixed one. */
		if (value)
			env = session_env_put(env, &k,
			                      xasprintf("%s=%s", plan->pass_env->items[i], value));
	}
	return env;
}

/*
 * One run's environment: the session's, with GCR_CENSUS_FD pointing at the census pipe, or
 * without it for valgrind runs: printing the census (pause times, /proc figures) takes a
 * number of instructions that depends on the clock, and Ir must not. A padding variable of
 * pad_bytes shifts the stack on purpose, to expose layout bias (Mytkowicz et al., "Producing
 * wrong data without doing anything obviously wrong").
 */
static char **session_env(char *const *base, int census, size_t pad_bytes)
{
	size_t n = 0, k = 0;
	char **env;

	while (base[n])
		n++;
	env = xcalloc(n + 3, sizeof *env);
	for (size_t i = 0; i < n; i++)
		env[k++] = xstrdup(base[i]);
	if (census)
		env[k++] = xstrdup("GCR_CENSUS_FD=3");
	if (pad_bytes) {
		char *pad = xmalloc(pad_bytes + 13);
		memcpy(pad, "GCR_ENV_PAD=", 12);
		memset(pad + 12, 'x', pad_bytes);
		pad[12 + pad_bytes] = '\0';
		env[k++] = pad;
	}
	env[k] = NULL;
	return env;
}

/*
 * An arm's knobs, added last to an environment made by session_env: a knob replaces the
 * variable of its name, whether ours or the caller's. Returns env, grown.
 */
static char **session_env_knobs(char **env, const struct strlist *knobs)
{
	size_t n = 0;

	while (env[n])
		n++;
	for (size_t i = 0; i < knobs->n; i++)
		env = session_env_put(env, &n, xstrdup(knobs->items[i]));
	return env;
}

static void session_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* The checksum a probe printed on stdout ("checksum 0x..."), for runs without a census. */
static char *session_stdout_checksum(const char *out)
{
	const char *p = out ? strstr(out, "checksum 0x") : NULL;
	char buf[19];

	if (!p)
		return NULL;
	p += strlen("checksum ");
	snprintf(buf, sizeof buf, "%.18s", p);
	return census_checksum_valid(buf) ? xstrdup(buf) : NULL;
}

static char *session_last_line(const char *text)
{
	size_t len = text ? strlen(text) : 0;
	const char *start;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	if (len == 0)
		return NULL;
	start = text + len;
	while (start > text && start[-1] != '\n')
		start--;
	return xasprintf("%.*s", (int)(len - (size_t)(start - text)), start);
}

/* perf.<event> and perf.<event>.scale for each event the probe counted. */
static void session_perf_metrics(const struct meter_perf *perf, const struct run_result *res,
                                 struct metric_set *m)
{
	size_t k = 0;

	for (size_t i = 0; perf && i < perf->n; i++) {
		const struct run_perf *p;
		char name[160];
		double scale, count;
		if (!perf->events[i].available)
			continue;
		if (k >= res->nperf)
			break;
		p = &res->perf[k++];
		/* An event that never ran has no count: absent, not zero. */
		if (p->err || p->enabled_ns == 0)
			continue;
		count = meter_perf_scale(p->value, p->enabled_ns, p->running_ns, &scale);
		if (scale == 0)
			continue;
		snprintf(name, sizeof name, "perf.%s", perf->events[i].name);
		metric_set_add(m, name, count);
		snprintf(name, sizeof name, "perf.%s.scale", perf->events[i].name);
		metric_set_add(m, name, scale);
	}
}

/*
 * Two sources of peak memory (the launcher's wait4 and the probe's own VmHWM) must agree; a
 * run where they do not keeps its figures and says so in its detail.
 */
/* The owned parts of a run while it is being classified; lent to a run_record to store it. */
struct session_fields {
	enum run_status status;
	char *detail, *checksum, *premise_text, *stderr_tail;
	enum run_premise premise;
	struct metric_set metrics;
	struct caps caps; /* what the census said the build does; caps.known 0: it said nothing */
	/* A valgrind run's Ir by function (fnprof.h); has_functions 0: none (a timed run) */
	struct fnprof functions;
	int has_functions;
};

static void session_fields_release(struct session_fields *f)
{
	free(f->detail);
	free(f->checksum);
	free(f->premise_text);
	free(f->stderr_tail);
	metric_set_release(&f->metrics);
	if (f->has_functions)
		fnprof_release(&f->functions);
	f->has_functions = 0;
}

static void session_cross_check_rss(struct session_fields *r)
{
	const double *rss = metric_set_get(&r->metrics, "rss.peak_bytes");
	const double *hwm = metric_set_get(&r->metrics, "memory.vm_hwm_bytes");
	double diff;

	if (!rss || !hwm || r->detail)
		return;
	diff = *rss > *hwm ? *rss - *hwm : *hwm - *rss;
	if (diff > *hwm / 10 + SESSION_RSS_SLACK_BYTES)
		r->detail = xasprintf(
		    "peak RSS sources disagree: wait4 %.1f MiB, the probe's VmHWM %.1f MiB",
		    *rss / 1048576.0, *hwm / 1048576.0);
}

/*
 * A run's memory figures are judged under the session's THP condition, so each run is checked
 * against it: the probe's THP_enabled, read by its own process just before exec (launch.c,
 * launch_thp). A timed run that did not get the condition is failed, saying what it got; a
 * valgrind run keeps its Ir, which THP does not move, and says so in its detail. Unknown (-1)
 * passes only when the prctl succeeded: the probe then never reached exec, and its run says why.
 */
static void session_thp_check(const struct session_plan *plan, const struct run_result *res,
                              int valgrind, struct session_fields *r)
{
	int want = plan->thp.condition == HOSTINFO_THP_HOST;
	char *why, *d, prctl_text[160] = "";

	if (res->thp_enabled == want || (res->thp_enabled < 0 && res->thp_errno == 0))
		return;
	if (res->thp_errno)
		snprintf(prctl_text, sizeof prctl_text, " (prctl(PR_SET_THP_DISABLE, %d): %s)",
		         !want, strerror(res->thp_errno));
	why = res->thp_enabled < 0
	          ? xasprintf("THP_enabled unknown for this probe, but the session's THP condition "
	                      "is %s%s",
	                      hostinfo_thp_name(plan->thp.condition), prctl_text)
	          : xasprintf("THP_enabled was %d for this probe, but the session's THP condition "
	                      "is %s%s",
	                      res->thp_enabled, hostinfo_thp_name(plan->thp.condition), prctl_text);
	if (r->status == RUN_STATUS_OK && !valgrind) {
		r->status = RUN_STATUS_FAILED;
		d = xasprintf("%s%s%s", why, r->detail ? "; " : "", r->detail ? r->detail : "");
	} else {
		d = xasprintf("%s%s%s", r->detail ? r->detail : "", r->detail ? "; " : "", why);
	}
	free(r->detail);
	r->detail = d;
	free(why);
}

/*
 * The probe file a run's link points at. A relative one (--build build/collectors/x) would
 * resolve from the scratch folder, where the link lives, so it is made absolute; one that
 * cannot be resolved is left as it is and fails at exec, with its name. Newly allocated.
 */
static char *session_probe_target(const struct buildinfo *build, const char *probe)
{
	char *target = buildinfo_probe_path(build, probe), *abs;

	if (target[0] != '/' && (abs = realpath(target, NULL)) != NULL) {
		free(target);
		target = abs;
	}
	return target;
}

/*
 * Links exe to target, unless it is that link already (a session of one build runs each probe
 * from the same link again and again: reading a link is a tenth of making one); 0 or -1 with
 * errno. A probe that replaced its link (a file, another target) gets it made again.
 */
static int session_link_probe(const char *exe, const char *target)
{
	size_t len = strlen(target);
	char *was = xmalloc(len + 2);
	ssize_t n = readlink(exe, was, len + 2);
	int same = n >= 0 && (size_t)n == len && memcmp(was, target, len) == 0;

	free(was);
	if (same)
		return 0;
	if (unlink(exe) != 0 && errno != ENOENT)
		return -1;
	return symlink(target, exe);
}

/* Turns a finished run's result into the stored record: status, detail, checksum, metrics. */
static void session_classify(const struct session_plan *plan, const struct buildinfo *build,
                             const struct run_result *res, int valgrind, const char *cg_out,
                             const char *probe, const char *size, struct session_fields *r)
{
	struct census_report census;
	struct strlist warnings = {0};
	char *stdout_sum = session_stdout_checksum(res->stdout_text);
	struct err e;
	char *last = session_last_line(res->stderr_tail);

	r->stderr_tail = xstrdup(res->stderr_tail ? res->stderr_tail : "");
	switch (res->outcome) {
	case RUN_EXITED:
		r->status = res->exit_code == 0 ? RUN_STATUS_OK : RUN_STATUS_FAILED;
		/* The ABI's heap limit (gcr.h): status 3 and its message, not a failure. */
		if (res->exit_code == 3 && res->stderr_tail &&
		    strstr(res->stderr_tail, "heap exhausted") != NULL)
			r->status = RUN_STATUS_HEAP_EXHAUSTED;
		if (res->exit_code != 0)
			r->detail = last ? xasprintf("exited %d: %s", res->exit_code, last)
			                 : xasprintf("exited %d", res->exit_code);
		break;
	case RUN_SIGNALED:
		r->status = RUN_STATUS_CRASHED;
		r->detail = xstrdup(run_result_describe(res));
		break;
	case RUN_TIMEOUT:
		r->status = RUN_STATUS_TIMEOUT;
		r->detail = xstrdup("killed at the time limit");
		break;
	case RUN_EXEC_FAILED:
		r->status = RUN_STATUS_EXEC_FAILED;
		r->detail = xstrdup(run_result_describe(res));
		break;
	case RUN_LOST:
		r->status = RUN_STATUS_LOST;
		r->detail = xstrdup(run_result_describe(res));
		break;
	case RUN_INTERRUPTED:
		r->status = RUN_STATUS_INTERRUPTED;
		r->detail = xstrdup("killed by a second interrupt");
		break;
	}

	if (!valgrind) {
		metrics_from_rusage(&r->metrics, res);
		if (plan->meters & SESSION_METER_PERF)
			session_perf_metrics(plan->perf, res, &r->metrics);
	}
	if (res->census_text) {
		int bad = census_read(res->census_text, res->census_bytes, RUNNER_CENSUS_MAX,
		                      &census, &e);
		/* A census of another probe or size is not this run's: bad_census too. */
		if (!bad && (bad = census_check_run(&census, probe, size, &e)) == 0)
			bad = census_check_build(&census, stdout_sum, build->collector,
			                         build->version, &warnings, &e);
		if (bad)
			census_report_release(&census);
		if (!bad) {
			for (size_t i = 0; i < census.warnings.n; i++)
				strlist_push(&warnings, census.warnings.items[i]);
			r->checksum = xstrdup(census.checksum);
			r->caps = census.caps;
			/* Where both say what the build does, they must agree: the rules read it. */
			if (census.caps.known && build->caps.known &&
			    census.caps.flags != build->caps.flags) {
				char *said = caps_describe(&census.caps);
				char *declared = caps_describe(&build->caps);
				char *w = xasprintf("the census says the build does \"%s\", its "
				                    "manifest \"%s\" (the census's are recorded)",
				                    said, declared);
				strlist_push(&warnings, w);
				free(w);
				free(said);
				free(declared);
			}
			if (census.premise_text) {
				r->premise = census.premise_state == 1   ? RUN_PREMISE_MET
				             : census.premise_state == 0 ? RUN_PREMISE_NOT_MET
				                                         : RUN_PREMISE_NA;
				r->premise_text = xstrdup(census.premise_text);
			}
			/* Under valgrind pause times are inflated; keep only the Ir from those runs. */
			if (!valgrind)
				for (size_t i = 0; i < census.metrics.n; i++)
					metric_set_add(&r->metrics, census.metrics.items[i].name,
					               census.metrics.items[i].value);
			census_report_release(&census);
		} else if (r->status == RUN_STATUS_OK) {
			r->status = RUN_STATUS_BAD_CENSUS;
			r->detail = xstrdup(e.msg);
		}
	}
	if (!r->checksum) {
		r->checksum = stdout_sum;
		stdout_sum = NULL;
	}
	session_cross_check_rss(r);
	session_thp_check(plan, res, valgrind, r);
	/* Warnings ride on the run's detail, after what the run itself said. */
	for (size_t i = 0; i < warnings.n; i++) {
		char *d = xasprintf("%s%s%s", r->detail ? r->detail : "", r->detail ? "; " : "",
		                    warnings.items[i]);
		free(r->detail);
		r->detail = d;
	}
	if (res->leftovers > 0) {
		/* Even an ok run says so: the user's probe leaks processes. */
		char *d = xasprintf("%s%skilled %d leftover process%s", r->detail ? r->detail : "",
		                    r->detail ? "; " : "", res->leftovers,
		                    res->leftovers == 1 ? "" : "es");
		free(r->detail);
		r->detail = d;
	}
	/* Valgrind's own log is apart from the probe's stderr; a run it ended says why. */
	if (valgrind && cg_out && r->status != RUN_STATUS_OK &&
	    r->status != RUN_STATUS_INTERRUPTED) {
		char *log = meter_valgrind_log(cg_out, buildinfo_probe_wrapper(build, probe));
		char *said = log ? meter_valgrind_log_error(log) : NULL;
		if (said) {
			char *d = xasprintf("%s%svalgrind: %s", r->detail ? r->detail : "",
			                    r->detail ? "; " : "", said);
			free(r->detail);
			r->detail = d;
		}
		free(said);
		free(log);
	}
	if (valgrind && r->status == RUN_STATUS_OK) {
		struct meter_valgrind_counts counts;
		if (meter_valgrind_read_profile(cg_out, buildinfo_probe_wrapper(build, probe),
		                                &counts, &r->functions, &e) == 0) {
			char *root = buildinfo_root(), *src = xasprintf("%s/..", root),
			     *abs = realpath(src, NULL);
			meter_valgrind_metrics(&counts, &r->metrics);
			/* The harness's own sources by their name in the tree, in any checkout. */
			fnprof_files_relative(&r->functions, abs);
			r->has_functions = 1;
			free(abs);
			free(src);
			free(root);
		} else {
			r->status = RUN_STATUS_FAILED;
			free(r->detail);
			r->detail = xstrdup(e.msg);
		}
	}
	strlist_release(&warnings);
	free(stdout_sum);
	free(last);
}

/*
 * Where runs happen: a private scratch folder (the runs' working directory, probe links,
 * valgrind's files) and the launcher whose probes run in it. Lane 0 runs every timed run;
 * valgrind runs that go at once each have a lane, so no two share a link or an output file.
 * Every scratch path has the same length (see "Hermetic runs"), so a run's Ir does not depend
 * on its lane.
 */
struct session_lane {
	char *scratch;
	struct runner *runner;
};

struct session_state {
	const struct session_plan *plan;
	struct store *st;
	session_progress_fn progress;
	void *ctx;
	struct session_outcome *out;
	int64_t *build_ids; /* the build row of each arm */
	char **env_base;    /* what every run shares (session_base_env) */
	struct session_lane *lanes;
	size_t nlanes; /* lanes opened so far, from lanes[0] */
	struct perf_event_attr events[METER_PERF_MAX_EVENTS]; /* the available ones, in order */
	size_t nevents;
	/*
	 * "ARM PROBE SIZE": the least user time of the cell's ok timed runs, against which a
	 * valgrind run's Ir is checked (meter_valgrind_wrapper_suspect). Timed runs come first.
	 */
	struct metric_set user_ns;
	/* Per arm: the capabilities its census said this session, once recorded; NULL: none yet */
	char **caps_seen;
	int64_t kept_since_ns; /* when the oldest run the store keeps unwritten ended; 0: none */
	int run_index, run_total, seq;
	int runs_cut;    /* runs stored as stopped by a second interrupt: not measurements */
	int run_planned; /* run_total and every run the hooks added since: what completes it */
	int halted;      /* a run was not ok and plan->halt_on_failure: no run starts after it */
	/* The batch of runs added to the plan now being run (session.h, session_progress). */
	enum session_added added;
	int added_index, added_total;
};

/* The runs that follow are a batch of `total` added to the plan, of that kind: the progress
 * line counts them apart, and the session is complete only once they are in too. */
static void session_added_batch(struct session_state *s, enum session_added kind, int total)
{
	s->added = kind;
	s->added_index = 0;
	s->added_total = total;
	s->run_planned += total;
}

/*
 * Every run planned so far is stored, and none was cut short: an interrupt now loses nothing.
 * run_planned is the plan, grown as the hooks ask for more (session_more_timed, the valgrind
 * confirmation), so a hook consulted after an interrupt still counts what it wanted.
 */
static int session_all_stored(const struct session_state *s)
{
	return s->runs_cut == 0 && s->out->runs >= s->run_planned;
}

/* No run starts now: the user interrupted, or a failed run halted the session. */
static int session_stopping(const struct session_state *s)
{
	return *s->plan->stop || s->halted;
}

/*
 * A timed run keeps its user time for the cell; a valgrind run of a probe not declared a
 * wrapper whose Ir is below the floor for that time says so in its detail (a warning: the
 * count is stored, the user decides).
 */
static void session_wrapper_floor(struct session_state *s, size_t b, const char *probe,
                                  const char *size, int valgrind, struct session_fields *f)
{
	char *key = xasprintf("%zu %s %s", b, probe, size), *why;
	const double *user = metric_set_get(&s->user_ns, key);
	const double *v;

	if (!valgrind) {
		v = metric_set_get(&f->metrics, "time.user_ns");
		if (v && !user) {
			metric_set_add(&s->user_ns, key, *v);
		} else if (v) {
			for (size_t i = 0; i < s->user_ns.n; i++)
				if (strcmp(s->user_ns.items[i].name, key) == 0 &&
				    *v < s->user_ns.items[i].value)
					s->user_ns.items[i].value = *v;
		}
	} else if (user && !buildinfo_probe_wrapper(s->plan->arms[b].build, probe) &&
	           (v = metric_set_get(&f->metrics, "valgrind.ir")) &&
	           (why = meter_valgrind_wrapper_suspect(*v, *user))) {
		char *d =
		    xasprintf("%s%s%s", f->detail ? f->detail : "", f->detail ? "; " : "", why);
		free(f->detail);
		f->detail = d;
		free(why);
	}
	free(key);
}

/*
 * One run of one probe on one arm, from when it is scheduled until it is stored. What to run
 * is set by the scheduler; session_launch, on whichever thread runs it, fills in what happened;
 * session_store, always on the session's thread, classifies and stores it.
 */
struct session_job {
	size_t b; /* the arm */
	const char *probe;
	int round, warmup, valgrind;
	uint64_t iterations; /* > 0: that many iterations instead of the size */
	int seq;             /* the seq the run is stored with: its padding and file names */
	/* Set by session_launch */
	int rc;       /* 0: res holds the run's result; -1: e says why no launcher took it */
	struct err e; /* when rc is -1 */
	struct run_result res;
	char *cg_out; /* valgrind's output file, removed with the job */
	char size[32], when[32];
	int64_t elapsed_ns;
};

static void session_job_release(struct session_job *j)
{
	if (j->cg_out)
		meter_valgrind_remove(j->cg_out);
	free(j->cg_out);
	j->cg_out = NULL;
	if (j->rc == 0)
		run_result_release(&j->res);
	j->rc = -1;
}

/*
 * Runs a job in a lane: links the probe, builds its command line and environment, and waits
 * for the launcher's result. Reads only what does not change during a session (the plan, the
 * base environment, the perf events) and writes only the job and the lane's folder, so jobs in
 * different lanes may run on different threads.
 */
static void session_launch(const struct session_state *s, const struct session_lane *lane,
                           struct session_job *j)
{
	const struct session_plan *plan = s->plan;
	const struct session_arm *arm = &plan->arms[j->b];
	const struct buildinfo *build = arm->build;
	char *target = session_probe_target(build, j->probe);
	char *exe = xasprintf("%s/%s", lane->scratch, j->probe);
	/* The manifest's template, or `EXE SIZE` / `EXE --iterations N` (buildinfo.h). */
	char **probe_argv = buildinfo_probe_argv(build, j->probe, exe, plan->size, j->iterations);
	char **argv = probe_argv, **vg_argv = NULL, **env = NULL;
	size_t pad = 0;
	struct runner_request req;
	int64_t start_ns;

	j->rc = -1;
	/* The same executable path length on every host: see "Hermetic runs" above. */
	if (session_link_probe(exe, target) != 0) {
		err_set(&j->e, "%s: cannot link the probe %s there: %s", lane->scratch, target,
		        strerror(errno));
		goto out;
	}
	snprintf(j->size, sizeof j->size, "%s", plan->size);
	if (j->iterations)
		snprintf(j->size, sizeof j->size, "n=%llu", (unsigned long long)j->iterations);
	if (j->valgrind) {
		j->cg_out = xasprintf("%s/cg.%d.out", lane->scratch, j->seq);
		vg_argv = meter_valgrind_argv(plan->valgrind, j->cg_out,
		                              (plan->meters & SESSION_METER_CACHESIM) != 0,
		                              buildinfo_probe_wrapper(build, j->probe), probe_argv);
		argv = vg_argv;
	}
	if (plan->env_offset) {
		uint64_t state = plan->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)j->seq);
		pad = (size_t)(session_next(&state) % (plan->env_offset + 1));
	}
	env = session_env_knobs(session_env(s->env_base, !j->valgrind, pad), arm->knobs);
	for (size_t k = 0; arm->probe_knobs && k < plan->probes.n; k++)
		if (strcmp(plan->probes.items[k], j->probe) == 0)
			env = session_env_knobs(env, &arm->probe_knobs[k]);
	memset(&req, 0, sizeof req);
	req.argv = argv;
	req.envp = env;
	req.cpu = plan->pin_cpu ? plan->cpu : -1;
	/* valgrind is ~50x slower: its limit scales with it. */
	req.timeout_ms = j->valgrind ? plan->timeout_ms * 100 : plan->timeout_ms;
	req.no_aslr = j->valgrind || plan->no_aslr;
	req.thp_host = plan->thp.condition == HOSTINFO_THP_HOST;
	req.events = s->events;
	req.nevents = j->valgrind ? 0 : s->nevents;
	req.stop = plan->stop;
	format_utc(now_real_ns(), j->when, sizeof j->when);
	start_ns = now_mono_ns();
	if (runner_run(lane->runner, &req, &j->res, &j->e) == 0)
		j->rc = 0;
	j->elapsed_ns = now_mono_ns() - start_ns;
out:
	meter_valgrind_argv_free(vg_argv);
	session_env_free(env);
	free(exe);
	free(target);
	buildinfo_argv_free(probe_argv);
}

/*
 * The first census of an arm's build in a session records what it says the build does (the
 * store keeps the first record of a build); a run whose census says otherwise than the record
 * keeps a warning: the rules derived from it (baseline pin, check) would not hold for it.
 */
static int session_record_caps(struct session_state *s, size_t b, struct session_fields *f,
                               struct err *e)
{
	char *json = caps_json(&f->caps), *recorded = NULL;
	int rc = 0;

	if (s->caps_seen[b] && strcmp(s->caps_seen[b], json) == 0)
		goto out;
	if (store_build_capabilities(s->st, s->build_ids[b], json, &recorded, e) != 0) {
		rc = -1;
		goto out;
	}
	if (recorded && strcmp(recorded, json) != 0) {
		char *d =
		    xasprintf("%s%sthe census says capabilities %s, the store recorded %s for "
		              "this build before",
		              f->detail ? f->detail : "", f->detail ? "; " : "", json, recorded);
		free(f->detail);
		f->detail = d;
	} else if (!s->caps_seen[b]) {
		s->caps_seen[b] = json;
		json = NULL;
	}
out:
	free(recorded);
	free(json);
	return rc;
}

/*
 * Short runs are written together (store_batch_begin): a transaction per run was most of what
 * the harness cost a 1 ms run, and one per round of three such runs still a fifth of it. A run
 * that took SESSION_WRITE_NOW_MS or more is written at once, with those kept before it (a
 * commit is nothing next to it, and the next run is likely as long); shorter ones are kept
 * until the oldest has waited SESSION_WRITE_EVERY_MS, at the end of a run or of a round. A
 * crash (SIGKILL, power) loses at most a second of short runs. An interrupted or failed
 * session writes all it kept before it closes.
 */
#define SESSION_WRITE_NOW_MS   100
#define SESSION_WRITE_EVERY_MS 1000

static int session_write_kept(struct session_state *s, int64_t run_ns, struct err *e)
{
	int64_t now = now_mono_ns();

	if (store_batch_pending(s->st) == 0) {
		s->kept_since_ns = 0;
		return 0;
	}
	if (!s->kept_since_ns)
		s->kept_since_ns = now;
	if (run_ns < SESSION_WRITE_NOW_MS * 1000000LL &&
	    now - s->kept_since_ns < SESSION_WRITE_EVERY_MS * 1000000LL)
		return 0;
	s->kept_since_ns = 0;
	return store_batch_flush(s->st, e);
}

/*
 * Classifies a launched job's result and stores it as the session's next run, then reports
 * it. When `keep` is given, an ok run's metrics are copied there. Releases the job either way.
 */
static int session_store(struct session_state *s, struct session_job *j, struct metric_set *keep,
                         struct err *e)
{
	const struct session_plan *plan = s->plan;
	const struct session_arm *arm = &plan->arms[j->b];
	struct session_fields f;
	struct run_record r;
	struct session_progress p;
	struct err changed;
	int64_t run_id;
	int rc = -1;

	memset(&f, 0, sizeof f);
	memset(&r, 0, sizeof r);
	if (j->rc != 0) {
		*e = j->e;
		goto out;
	}
	session_classify(plan, arm->build, &j->res, j->valgrind, j->cg_out, j->probe, j->size, &f);
	/* A probe rebuilt or edited mid-session: what ran is not the build the session records. */
	if (buildinfo_unchanged(arm->build, j->probe, &changed) != 0) {
		f.status = RUN_STATUS_FAILED;
		free(f.detail);
		f.detail = xstrdup(changed.msg);
		metric_set_release(&f.metrics);
		f.caps.known = 0;
		if (f.has_functions)
			fnprof_release(&f.functions);
		f.has_functions = 0;
	}
	if (f.status == RUN_STATUS_OK)
		session_wrapper_floor(s, j->b, j->probe, j->size, j->valgrind, &f);
	if (f.caps.known && session_record_caps(s, j->b, &f, e) != 0)
		goto out;
	r.session_id = s->out->session_id;
	r.build_id = s->build_ids[j->b];
	r.probe = j->probe;
	r.size = j->size;
	r.round = j->round;
	r.seq = ++s->seq;
	r.arm = (int)j->b;
	r.warmup = j->warmup;
	r.kind = j->valgrind ? RUN_KIND_VALGRIND : RUN_KIND_TIMED;
	r.status = f.status;
	r.detail = f.detail;
	r.checksum = f.checksum;
	r.premise = f.premise;
	r.premise_text = f.premise_text;
	r.stderr_tail = f.stderr_tail;
	r.started_at = j->when;
	r.metrics = &f.metrics;
	r.functions = f.has_functions ? &f.functions : NULL;
	if (store_run_insert(s->st, &r, &run_id, e) != 0 ||
	    session_write_kept(s, j->elapsed_ns, e) != 0)
		goto out;
	s->out->runs++;
	if (plan->stored && *plan->stored < SIG_ATOMIC_MAX)
		++*plan->stored;
	/* A run the user interrupted says nothing about the probe. */
	s->runs_cut += r.status == RUN_STATUS_INTERRUPTED;
	if (r.status != RUN_STATUS_OK) {
		s->out->runs_failed += r.status == RUN_STATUS_INTERRUPTED ? 0 : 1;
		s->halted |= plan->halt_on_failure && r.status != RUN_STATUS_INTERRUPTED;
	} else if (keep) {
		/* Only an ok run's figures are kept (what a valgrind run's Ir is checked against). */
		for (size_t i = 0; i < f.metrics.n; i++)
			metric_set_add(keep, f.metrics.items[i].name, f.metrics.items[i].value);
	}
	if (s->progress) {
		memset(&p, 0, sizeof p);
		p.run_index = s->added ? s->run_index : ++s->run_index;
		p.run_total = s->run_total;
		p.added = s->added;
		p.added_index = s->added ? ++s->added_index : 0;
		p.added_total = s->added ? s->added_total : 0;
		p.round = j->round;
		p.rounds = plan->warmup + plan->rounds;
		p.warmups = plan->warmup;
		p.warmup = j->warmup;
		p.arm = arm;
		p.run = &r;
		p.elapsed_ns = j->elapsed_ns;
		p.jobs = plan->jobs > 0 ? plan->jobs : 1;
		s->progress(s->ctx, &p);
	}
	rc = 0;
out:
	session_fields_release(&f);
	session_job_release(j);
	return rc;
}

/* One timed run, in lane 0, stored before it returns. */
static int session_one(struct session_state *s, size_t b, const char *probe, int round, int warmup,
                       uint64_t iterations, struct metric_set *keep, struct err *e)
{
	struct session_job j;

	memset(&j, 0, sizeof j);
	j.b = b;
	j.probe = probe;
	j.round = round;
	j.warmup = warmup;
	j.iterations = iterations;
	j.seq = s->seq + 1;
	session_launch(s, &s->lanes[0], &j);
	return session_store(s, &j, keep, e);
}

/*
 * "rusage,census,perf:task-clock,valgrind:valgrind-3.19.0,cachesim:valgrind-3.19.0": what
 * measured this session.
 */
static void session_meters_text(const struct session_plan *plan, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "rusage,census");

	for (size_t i = 0; (plan->meters & SESSION_METER_PERF) && i < plan->perf->n && len < size;
	     i++)
		if (plan->perf->events[i].available)
			len += (size_t)snprintf(buf + len, size - len, ",perf:%s",
			                        plan->perf->events[i].name);
	if ((plan->meters & SESSION_METER_VALGRIND) && len < size)
		len += (size_t)snprintf(buf + len, size - len, ",valgrind:%s",
		                        plan->valgrind->version);
	if ((plan->meters & SESSION_METER_CACHESIM) && len < size)
		snprintf(buf + len, size - len, ",cachesim:%s", plan->valgrind->version);
}

/*
 * With --two-n, the derived "per_iteration" run of a cell: (m(N2) - m(N1)) / (N2 - N1) for
 * every metric both runs have, so that start-up cost cancels out. Nothing is stored when either
 * run failed (m1 or m2 empty): the failed run is stored as such, and there is nothing to derive.
 */
static int session_derive(struct session_state *s, size_t b, const char *probe, int round,
                          int warmup, int valgrind, const struct metric_set *m1,
                          const struct metric_set *m2, struct err *e)
{
	const struct session_plan *plan = s->plan;
	struct metric_set derived = {0};
	struct run_record d;
	char size[64], when[32];
	double dn;
	int64_t id;
	int rc;

	if (m1->n == 0 || m2->n == 0)
		return 0;
	memset(&d, 0, sizeof d);
	dn = (double)plan->two_n[1] - (double)plan->two_n[0];
	for (size_t i = 0; i < m2->n; i++) {
		const double *v1 = metric_set_get(m1, m2->items[i].name);
		const struct metric_info *info = metrics_lookup(m2->items[i].name);
		/* A ratio (perf's multiplexing scale) has no per-iteration cost. */
		if (v1 && !(info && info->unit == METRIC_UNIT_RATIO))
			metric_set_add(&derived, m2->items[i].name,
			               (m2->items[i].value - *v1) / dn);
	}
	snprintf(size, sizeof size, "n=%llu,%llu", (unsigned long long)plan->two_n[0],
	         (unsigned long long)plan->two_n[1]);
	format_utc(now_real_ns(), when, sizeof when);
	d.session_id = s->out->session_id;
	d.build_id = s->build_ids[b];
	d.probe = probe;
	d.size = size;
	d.round = round;
	d.seq = ++s->seq;
	d.arm = (int)b;
	d.warmup = warmup;
	d.kind = valgrind ? RUN_KIND_VALGRIND_PER_ITERATION : RUN_KIND_PER_ITERATION;
	d.status = RUN_STATUS_OK;
	d.started_at = when;
	d.metrics = &derived;
	rc = store_run_insert(s->st, &d, &id, e);
	metric_set_release(&derived);
	return rc;
}

/*
 * One timed cell of the schedule: a run at the session's size, or with --two-n a run at each
 * of the two iteration counts and the derived run (session_derive).
 */
static int session_cell(struct session_state *s, size_t b, const char *probe, int round, int warmup,
                        struct err *e)
{
	const struct session_plan *plan = s->plan;
	struct metric_set m1 = {0}, m2 = {0};
	int rc = -1;

	if (!plan->two_n[0])
		return session_one(s, b, probe, round, warmup, 0, NULL, e);
	if (session_one(s, b, probe, round, warmup, plan->two_n[0], &m1, e) != 0)
		goto out;
	/* Interrupted between the two: the first run is kept, there is nothing to derive. */
	if (session_stopping(s)) {
		rc = 0;
		goto out;
	}
	if (session_one(s, b, probe, round, warmup, plan->two_n[1], &m2, e) == 0)
		rc = session_derive(s, b, probe, round, warmup, 0, &m1, &m2, e);
out:
	metric_set_release(&m1);
	metric_set_release(&m2);
	return rc;
}

/* ---- The valgrind batch: up to plan->jobs runs at once ----------------------------------- */

enum session_job_state { SESSION_JOB_WAITING, SESSION_JOB_TAKEN, SESSION_JOB_DONE };

/*
 * The batch's jobs, in the schedule's order, and who runs which. A worker takes the next cell
 * (one job, or with --two-n the cell's two, run one after the other) and runs it in its own
 * lane; the session's thread stores the jobs in the schedule's order as they are done. No
 * worker takes a cell once the user has interrupted or the session's thread has given up
 * (`abort`), and every cell a worker took, it finishes: a job taken is a job done.
 */
struct session_batch {
	struct session_state *s;
	struct session_job *jobs;
	enum session_job_state *state; /* one per job; guarded by mu, as are the fields below */
	size_t njobs, per_cell, ncells, next_cell;
	int running; /* workers that have not returned */
	int abort;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

struct session_worker {
	struct session_batch *batch;
	const struct session_lane *lane;
	pthread_t thread;
	int started;
};

static void *session_worker_main(void *arg)
{
	struct session_worker *w = arg;
	struct session_batch *bt = w->batch;

	pthread_mutex_lock(&bt->mu);
	while (!bt->abort && !*bt->s->plan->stop && bt->next_cell < bt->ncells) {
		size_t first = bt->next_cell++ * bt->per_cell;
		for (size_t k = first; k < first + bt->per_cell; k++)
			bt->state[k] = SESSION_JOB_TAKEN;
		for (size_t k = first; k < first + bt->per_cell; k++) {
			pthread_mutex_unlock(&bt->mu);
			session_launch(bt->s, w->lane, &bt->jobs[k]);
			pthread_mutex_lock(&bt->mu);
			bt->state[k] = SESSION_JOB_DONE;
			pthread_cond_broadcast(&bt->cv);
		}
	}
	bt->running--;
	pthread_cond_broadcast(&bt->cv);
	pthread_mutex_unlock(&bt->mu);
	return NULL;
}

/* A lane of its own: a scratch folder and a launcher working in it. */
static int session_lane_open(const struct session_plan *plan, struct session_lane *lane,
                             struct err *e)
{
	const char *root;

	memset(lane, 0, sizeof *lane);
	/* /tmp's fixed-length path, whatever TMPDIR says: see "Hermetic runs" above. */
	if (scratch_root(&root, e) != 0 ||
	    scratch_create(root, SCRATCH_PREFIX, &lane->scratch, e) != 0)
		return -1;
	return runner_open(plan->launcher, lane->scratch, &lane->runner, e);
}

/*
 * Waits until job i is done (1), or will never be taken (0): every worker has returned, as
 * they do after an interrupt, without taking it.
 */
static int session_batch_wait(struct session_batch *bt, size_t i)
{
	int done;

	pthread_mutex_lock(&bt->mu);
	while (bt->state[i] != SESSION_JOB_DONE &&
	       (bt->state[i] == SESSION_JOB_TAKEN || bt->running > 0))
		pthread_cond_wait(&bt->cv, &bt->mu);
	done = bt->state[i] == SESSION_JOB_DONE;
	pthread_mutex_unlock(&bt->mu);
	return done;
}

/*
 * The valgrind runs of the cells cells[0..ncells) (each a probe of the plan and an arm), in that
 * order, two for each with --two-n, run plan->jobs at once and stored in that order with the
 * seqs they would get one at a time. Each ok run's Ir is noted in seen[probe * narms + arm].
 * Timed runs are over before this starts, and none starts again before it ends.
 */
struct session_vg_cell {
	size_t probe; /* index into plan->probes */
	size_t b;     /* the arm */
};

/* Whether a probe's Ir repeated on an arm, over the runs so far. */
struct session_vg_seen {
	int n;
	double first;
	int differs;
};

static int session_valgrind_batch(struct session_state *s, const struct session_vg_cell *cells,
                                  size_t ncells, struct session_vg_seen *seen, struct err *e)
{
	const struct session_plan *plan = s->plan;
	struct session_batch bt;
	struct session_worker *workers = NULL;
	struct metric_set m[2] = {{0}, {0}};
	size_t nworkers, i = 0;
	int seq = s->seq, rc = -1;

	memset(&bt, 0, sizeof bt);
	bt.s = s;
	bt.per_cell = plan->two_n[0] ? 2 : 1;
	bt.ncells = ncells;
	bt.njobs = bt.ncells * bt.per_cell;
	bt.jobs = xcalloc(bt.njobs ? bt.njobs : 1, sizeof *bt.jobs);
	bt.state = xcalloc(bt.njobs ? bt.njobs : 1, sizeof *bt.state);
	for (size_t c = 0; c < ncells; c++)
		for (size_t t = 0; t < bt.per_cell; t++) {
			struct session_job *j = &bt.jobs[i++];
			j->b = cells[c].b;
			j->probe = plan->probes.items[cells[c].probe];
			j->valgrind = 1;
			j->iterations = plan->two_n[t];
			j->seq = ++seq;
			j->rc = -1;
			/* The derived run after the cell's second takes a seq too. */
			seq += t == 1;
		}
	pthread_mutex_init(&bt.mu, NULL);
	pthread_cond_init(&bt.cv, NULL);

	nworkers = (size_t)(plan->jobs > 1 ? plan->jobs : 1);
	if (nworkers > bt.ncells)
		nworkers = bt.ncells;
	workers = xcalloc(nworkers ? nworkers : 1, sizeof *workers);
	for (; s->nlanes < nworkers && !session_stopping(s); s->nlanes++)
		if (session_lane_open(plan, &s->lanes[s->nlanes], e) != 0) {
			s->nlanes++; /* half open: closed with the others */
			goto out;
		}
	for (size_t w = 0; w < s->nlanes && w < nworkers; w++) {
		int err;
		workers[w].batch = &bt;
		workers[w].lane = &s->lanes[w];
		pthread_mutex_lock(&bt.mu);
		bt.running++;
		pthread_mutex_unlock(&bt.mu);
		if ((err = pthread_create(&workers[w].thread, NULL, session_worker_main,
		                          &workers[w])) != 0) {
			pthread_mutex_lock(&bt.mu);
			bt.running--;
			pthread_mutex_unlock(&bt.mu);
			err_set(e, "cannot start a thread for valgrind runs: %s", strerror(err));
			goto out;
		}
		workers[w].started = 1;
	}
	for (i = 0; i < bt.njobs; i++) {
		size_t t = i % bt.per_cell;
		const struct session_vg_cell *cell = &cells[i / bt.per_cell];
		struct session_job *j = &bt.jobs[i];
		struct metric_set one = {0};
		const double *v;
		if (!session_batch_wait(&bt, i))
			break;
		if (session_store(s, j, bt.per_cell == 2 ? &m[t] : &one, e) != 0) {
			metric_set_release(&one);
			goto out;
		}
		/* Halted: the runs going finish (unstored), no other is taken. */
		if (s->halted) {
			metric_set_release(&one);
			break;
		}
		if (bt.per_cell == 1 && (v = metric_set_get(&one, "valgrind.ir"))) {
			struct session_vg_seen *x = &seen[cell->probe * plan->narms + cell->b];
			if (x->n++ == 0)
				x->first = *v;
			else if (*v != x->first)
				x->differs = 1;
		}
		metric_set_release(&one);
		if (t == 1) {
			if (session_derive(s, j->b, j->probe, 0, 0, 1, &m[0], &m[1], e) != 0)
				goto out;
			metric_set_release(&m[0]);
			metric_set_release(&m[1]);
		}
	}
	rc = 0;
out:
	/* The runs that are going finish; the rest are not taken. Nothing after a failure is stored. */
	pthread_mutex_lock(&bt.mu);
	bt.abort = 1;
	pthread_mutex_unlock(&bt.mu);
	for (size_t w = 0; w < nworkers; w++)
		if (workers[w].started)
			pthread_join(workers[w].thread, NULL);
	for (size_t k = 0; k < bt.njobs; k++)
		session_job_release(&bt.jobs[k]);
	metric_set_release(&m[0]);
	metric_set_release(&m[1]);
	pthread_cond_destroy(&bt.cv);
	pthread_mutex_destroy(&bt.mu);
	free(workers);
	free(bt.state);
	free(bt.jobs);
	return rc;
}

/*
 * The valgrind runs of the session: plan->valgrind_runs of each probe (in the order of round
 * 0's shuffle) and arm, the arms alternating. Then, when plan->valgrind_runs_max is more, the
 * probes whose Ir did not repeat on some arm get runs up to that many on every arm: Ir is
 * judged exactly only where each arm repeats itself, and by its spread elsewhere, which needs
 * a few runs to be seen (paired.h). And the probes plan->confirm names get
 * plan->valgrind_confirm more, where they have fewer.
 */
static int session_valgrind_runs(struct session_state *s, size_t *order, struct err *e)
{
	const struct session_plan *plan = s->plan;
	int runs = plan->valgrind_runs > 0 ? plan->valgrind_runs : 1;
	int more = plan->valgrind_runs_max > runs ? plan->valgrind_runs_max - runs : 0;
	int confirm = plan->confirm && !plan->two_n[0] ? plan->valgrind_confirm : 0;
	int extra = more > confirm ? more : confirm;
	size_t ncells = 0, n = plan->probes.n * plan->narms;
	struct session_vg_cell *cells = xcalloc(n * (size_t)(runs + extra) + 1, sizeof *cells);
	struct session_vg_seen *seen = xcalloc(n + 1, sizeof *seen);
	unsigned char *again = xcalloc(plan->probes.n + 1, 1);
	enum session_added kind = SESSION_ADDED_SPREAD;
	int rc = -1;

	session_shuffle(plan->seed, 0, plan->probes.n, order);
	for (size_t k = 0; k < plan->probes.n; k++)
		for (int r = 0; r < runs; r++)
			for (size_t b = 0; b < plan->narms; b++)
				cells[ncells++] = (struct session_vg_cell){order[k], b};
	if (session_valgrind_batch(s, cells, ncells, seen, e) != 0)
		goto out;
	/*
	 * What the confirmation judges must be in the store, not in the batch's memory. After an
	 * interrupt that came once every run was in, it is still asked (it only judges): what it
	 * wants more of decides whether the session lost anything.
	 */
	if (confirm && !s->halted && (!*plan->stop || session_all_stored(s))) {
		if (store_batch_flush(s->st, e) != 0)
			goto out;
		plan->confirm(plan->confirm_ctx, s->st, s->out->session_id, &plan->probes, again);
	}
	ncells = 0;
	for (size_t k = 0; !plan->two_n[0] && k < plan->probes.n; k++) {
		int differs = 0, add;
		for (size_t b = 0; b < plan->narms; b++)
			differs |= seen[order[k] * plan->narms + b].differs;
		add = differs ? more : 0;
		if (again[order[k]] && confirm > add) {
			add = confirm;
			kind = SESSION_ADDED_CONFIRM;
		}
		for (int r = 0; r < add; r++)
			for (size_t b = 0; b < plan->narms; b++)
				cells[ncells++] = (struct session_vg_cell){order[k], b};
	}
	session_added_batch(s, kind, (int)ncells);
	if (ncells && !session_stopping(s) &&
	    session_valgrind_batch(s, cells, ncells, seen, e) != 0)
		goto out;
	rc = 0;
out:
	session_added_batch(s, SESSION_ADDED_NONE, 0);
	free(again);
	free(seen);
	free(cells);
	return rc;
}

/*
 * The THP condition the probes ran under, "probe_thp" (hostinfo_thp_json; read back with
 * hostinfo_thp_from_facts): the host's own "thp" fact says how the host is configured, this
 * says what the probes got, which check compares with the baseline's.
 */
static void session_facts_thp(cJSON *root, const struct hostinfo_thp *thp)
{
	char *text = hostinfo_thp_json(thp);

	cJSON_AddItemToObject(root, "probe_thp", cJSON_Parse(text));
	free(text);
}

int session_store_build(struct store *st, const struct buildinfo *b, int64_t *id, struct err *e)
{
	struct store_build sb = {0};

	sb.name = b->name;
	sb.collector = b->collector;
	sb.collector_version = b->version;
	sb.git_commit = b->git_commit;
	sb.dir = b->dir;
	sb.manifest_hash = (char *)b->manifest_hash;
	return store_build_upsert(st, &sb, b->manifest_text, id, e);
}

int session_store_host_builds(struct store *st, const struct session_arm *arms, size_t n,
                              int64_t *host_id, int64_t *build_ids, struct err *e)
{
	struct hostinfo host;
	char *facts;
	int rc;

	hostinfo_read(&host);
	facts = hostinfo_json(&host);
	rc = store_host(st, host.fingerprint, host.hostname, facts, host_id, e);
	free(facts);
	for (size_t b = 0; rc == 0 && b < n; b++)
		rc = session_store_build(st, arms[b].build, &build_ids[b], e);
	return rc;
}

/*
 * The session's facts: the host's, plus the environment every probe ran with (without the
 * census pipe), so a session says which knobs and passed variables its figures depend on,
 * and the THP condition they ran under. A variable passed by --pass-env is recorded by its
 * name alone: its value is the caller's, and may be a secret (a worker's PGPASSWORD, an API
 * token) that a session's row, the fleet's copy of it and every export would otherwise hold
 * for any reader. A guess at which names hold secrets would miss some (a JAVA_TOOL_OPTIONS
 * with a keystore password in it), so no value of the caller's is kept.
 */
static char *session_facts(const char *host_facts, char *const *probe_env,
                           const struct strlist *passed, int jobs, const struct hostinfo_thp *thp)
{
	cJSON *root = cJSON_Parse(host_facts), *env;
	char *text;

	if (!root)
		root = cJSON_CreateObject();
	/* How many valgrind runs went at once: their counts do not depend on it, their time does. */
	cJSON_AddNumberToObject(root, "jobs", jobs);
	env = cJSON_AddArrayToObject(root, "probe_env");
	for (size_t i = 0; probe_env[i]; i++) {
		char *name = xasprintf("%.*s", (int)strcspn(probe_env[i], "="), probe_env[i]);
		int is_passed = passed && strlist_contains(passed, name);
		cJSON_AddItemToArray(env, cJSON_CreateString(is_passed ? name : probe_env[i]));
		free(name);
	}
	session_facts_thp(root, thp);
	text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return text;
}

static int session_register(struct session_state *s, struct err *e)
{
	const struct session_plan *plan = s->plan;
	struct hostinfo host;
	struct store_session si;
	int64_t host_id;
	char *facts = NULL, *session_facts_text = NULL, *probes = NULL, *knobs = NULL, when[32],
	     meters[1024];
	int rc = -1;

	hostinfo_read(&host);
	facts = hostinfo_json(&host);
	session_facts_text = session_facts(facts, s->env_base, plan->pass_env,
	                                   plan->jobs > 0 ? plan->jobs : 1, &plan->thp);
	if (store_host(s->st, host.fingerprint, host.hostname, facts, &host_id, e) != 0)
		goto out;
	session_meters_text(plan, meters, sizeof meters);
	probes = strlist_join(&plan->probes, ",");
	format_utc(now_real_ns(), when, sizeof when);
	memset(&si, 0, sizeof si);
	si.host_id = host_id;
	si.command = (char *)plan->command;
	si.started_at = when;
	si.seed = (int64_t)plan->seed;
	si.size = (char *)plan->size;
	si.rounds = plan->rounds;
	si.warmup = plan->warmup;
	si.probes = probes;
	si.meters = meters;
	si.load_before = hostinfo_load1();
	si.harness_version = (char *)"gcratchet " GCRATCHET_VERSION;
	si.facts = session_facts_text;
	if (store_session_begin(s->st, &si, &s->out->session_id, e) != 0)
		goto out;
	/* Two arms of one build find one build row: the store keys builds by their manifest. */
	for (size_t b = 0; b < plan->narms; b++) {
		const struct buildinfo *build = plan->arms[b].build;
		int r;
		knobs = session_knobs_json(plan->arms[b].knobs);
		r = session_store_build(s->st, build, &s->build_ids[b], e);
		if (r == 0)
			r = store_session_add_arm(s->st, s->out->session_id, (int)b,
			                          s->build_ids[b], plan->arms[b].label, knobs, e);
		free(knobs);
		knobs = NULL;
		if (r != 0)
			goto out;
	}
	rc = 0;
out:
	free(facts);
	free(session_facts_text);
	free(probes);
	return rc;
}

/*
 * One round: every probe (or, with `more`, each probe whose more[k] is above 0, one less after)
 * in the round's shuffle, the arms of each back to back, in order on odd rounds and reversed
 * on even ones.
 */
static int session_round(struct session_state *s, int round, int warmup, size_t *order, int *more,
                         struct err *e)
{
	const struct session_plan *plan = s->plan;

	session_shuffle(plan->seed, round, plan->probes.n, order);
	for (size_t k = 0; k < plan->probes.n && !session_stopping(s); k++) {
		if (more && more[order[k]] <= 0)
			continue;
		if (more)
			more[order[k]]--;
		for (size_t j = 0; j < plan->narms && !session_stopping(s); j++) {
			size_t b = round % 2 ? j : plan->narms - 1 - j;
			if (session_cell(s, b, plan->probes.items[order[k]], round, warmup, e) != 0)
				return -1;
		}
	}
	return session_write_kept(s, 0, e);
}

/* The extra timed rounds plan->more_timed asks for (session.h), after round `last`. */
static int session_more_timed(struct session_state *s, int last, size_t *order, struct err *e)
{
	const struct session_plan *plan = s->plan;
	int *more = xcalloc(plan->probes.n + 1, sizeof *more), rc = -1, round = last;

	for (int pass = 0; plan->more_timed && pass < SESSION_MORE_PASSES; pass++) {
		int left = 0, stopped = *plan->stop != 0;
		if (s->halted)
			break;
		/* Interrupted with every run in: asked once more (it only judges), as for the
		 * confirmation, so that what it wanted is in the plan the session is held to. */
		if (stopped && !session_all_stored(s))
			break;
		/* What the hook judges must be in the store, not in the batch's memory. */
		if (store_batch_flush(s->st, e) != 0)
			goto out;
		memset(more, 0, (plan->probes.n + 1) * sizeof *more);
		plan->more_timed(plan->more_ctx, s->st, s->out->session_id, &plan->probes, more);
		for (size_t k = 0; k < plan->probes.n; k++)
			left += more[k] > 0 ? more[k] : 0;
		if (left == 0)
			break;
		/* Each pass is a batch of its own: its total is known when it is asked for. */
		session_added_batch(s, SESSION_ADDED_TIMED,
		                    left * (int)plan->narms * (plan->two_n[0] ? 2 : 1));
		if (stopped)
			break;
		while (left > 0 && !session_stopping(s)) {
			if (session_round(s, ++round, 0, order, more, e) != 0)
				goto out;
			left = 0;
			for (size_t k = 0; k < plan->probes.n; k++)
				left += more[k] > 0 ? more[k] : 0;
		}
	}
	rc = 0;
out:
	session_added_batch(s, SESSION_ADDED_NONE, 0);
	free(more);
	return rc;
}

int session_run(const struct session_plan *plan, struct store *st, session_progress_fn progress,
                void *ctx, struct session_outcome *out, struct err *e)
{
	struct session_state s;
	size_t *order = xcalloc(plan->probes.n, sizeof *order);
	int total_rounds = plan->warmup + plan->rounds, rc = -1;
	const char *status, *root;

	memset(out, 0, sizeof *out);
	memset(&s, 0, sizeof s);
	if (plan->stored)
		*plan->stored = 0;
	s.plan = plan;
	s.st = st;
	s.progress = progress;
	s.ctx = ctx;
	s.out = out;
	s.build_ids = xcalloc(plan->narms, sizeof *s.build_ids);
	s.caps_seen = xcalloc(plan->narms, sizeof *s.caps_seen);
	s.env_base = session_base_env(plan);
	s.lanes = xcalloc((size_t)(plan->jobs > 1 ? plan->jobs : 1), sizeof *s.lanes);
	s.run_total = (int)(plan->probes.n * plan->narms) *
	              (total_rounds + (plan->meters & SESSION_METER_VALGRIND
	                                   ? (plan->valgrind_runs > 0 ? plan->valgrind_runs : 1)
	                                   : 0)) *
	              (plan->two_n[0] ? 2 : 1);
	s.run_planned = s.run_total;
	for (size_t i = 0; (plan->meters & SESSION_METER_PERF) && i < plan->perf->n; i++)
		if (plan->perf->events[i].available)
			s.events[s.nevents++] = plan->perf->events[i].attr;
	s.nlanes = 1;
	/* What killed sessions left in /tmp goes before this one adds its own (scratch.h). */
	if (scratch_root(&root, e) != 0)
		goto out;
	scratch_sweep(root, SCRATCH_PREFIX);
	if (session_lane_open(plan, &s.lanes[0], e) != 0)
		goto out;
	if (session_register(&s, e) != 0)
		goto out;
	store_batch_begin(st);

	for (int round = 1; round <= total_rounds && !session_stopping(&s); round++) {
		if (session_round(&s, round, round <= plan->warmup, order, NULL, e) != 0)
			goto out;
	}
	if (session_more_timed(&s, total_rounds, order, e) != 0)
		goto out;
	if ((plan->meters & SESSION_METER_VALGRIND) && !session_stopping(&s) &&
	    session_valgrind_runs(&s, order, e) != 0)
		goto out;
	/* An interrupt after the last run took nothing away: the session is complete. */
	out->interrupted = *plan->stop != 0 && !session_all_stored(&s);
	out->late_interrupt = *plan->stop != 0 && !out->interrupted;
	out->halted = s.halted;
	rc = 0;
out:
	if (out->session_id) {
		struct err e2;
		/* Every finished run is written before the session closes, whatever ended it. */
		if (store_batch_end(st, rc != 0 ? &e2 : e) != 0)
			rc = -1;
		status = rc != 0 || (s.halted && !session_all_stored(&s)) ? "incomplete"
		         : out->interrupted                               ? "interrupted"
		                                                          : "complete";
		/* A failure to close the session must not hide the error that ended it. */
		if (store_session_end(st, out->session_id, status, hostinfo_load1(),
		                      rc != 0 ? &e2 : e) != 0)
			rc = -1;
	}
	for (size_t i = 0; i < s.nlanes; i++) {
		runner_close(s.lanes[i].runner);
		if (s.lanes[i].scratch)
			scratch_remove(s.lanes[i].scratch, &plan->probes);
		free(s.lanes[i].scratch);
	}
	free(s.lanes);
	session_env_free(s.env_base);
	free(s.build_ids);
	for (size_t i = 0; i < plan->narms; i++)
		free(s.caps_seen[i]);
	free(s.caps_seen);
	metric_set_release(&s.user_ns);
	free(order);
	return rc;
}

/* ---- Single runs outside a session (session.h) ------------------------------------------- */

struct session_prober {
	const struct session_plan *plan;
	char *scratch;
	char **env_base;
	struct runner *runner;
	struct strlist links; /* probe links made in scratch, removed at close */
};

/* Removes the variable `name` from env (NULL-terminated) wherever it is. */
static void session_env_unset(char **env, const char *name)
{
	size_t len = strlen(name), w = 0;

	for (size_t i = 0; env[i]; i++) {
		if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
			free(env[i]);
		else
			env[w++] = env[i];
	}
	env[w] = NULL;
}

int session_prober_open(const struct session_plan *plan, struct session_prober **out, struct err *e)
{
	struct session_prober *p = xcalloc(1, sizeof *p);
	const char *root;

	*out = NULL;
	p->plan = plan;
	if (scratch_root(&root, e) != 0) {
		session_prober_close(p);
		return -1;
	}
	scratch_sweep(root, SCRATCH_PREFIX);
	/* /tmp's fixed-length path, whatever TMPDIR says: see "Hermetic runs" above. */
	if (scratch_create(root, SCRATCH_PREFIX, &p->scratch, e) != 0) {
		session_prober_close(p);
		return -1;
	}
	p->env_base = session_base_env(plan);
	/*
	 * A prober's runs are a minimum-heap search's: it limits each run it asks about with its
	 * own GCR_HEAP_MAX_MB, and its reference run has none. One from the caller's environment
	 * (or --pass-env) would limit that run too.
	 */
	session_env_unset(p->env_base, "GCR_HEAP_MAX_MB");
	if (runner_open(plan->launcher, p->scratch, &p->runner, e) != 0) {
		session_prober_close(p);
		return -1;
	}
	*out = p;
	return 0;
}

int session_prober_run(struct session_prober *p, const struct session_arm *arm, const char *probe,
                       struct session_single *out, struct err *e)
{
	const struct session_plan *plan = p->plan;
	char *target = session_probe_target(arm->build, probe);
	char *exe = xasprintf("%s/%s", p->scratch, probe);
	char **argv = buildinfo_probe_argv(arm->build, probe, exe, plan->size, 0), **env;
	struct runner_request req;
	struct run_result res;
	struct session_fields f;
	int rc = -1;

	memset(out, 0, sizeof *out);
	memset(&f, 0, sizeof f);
	env = session_env_knobs(session_env(p->env_base, 1, 0), arm->knobs);
	if (session_link_probe(exe, target) != 0) {
		err_set(e, "%s: cannot link the probe %s there: %s", p->scratch, target,
		        strerror(errno));
		goto out;
	}
	if (!strlist_contains(&p->links, probe))
		strlist_push(&p->links, probe);
	memset(&req, 0, sizeof req);
	req.argv = argv;
	req.envp = env;
	req.cpu = plan->pin_cpu ? plan->cpu : -1;
	req.timeout_ms = plan->timeout_ms;
	req.no_aslr = plan->no_aslr;
	req.thp_host = plan->thp.condition == HOSTINFO_THP_HOST;
	req.stop = plan->stop;
	if (runner_run(p->runner, &req, &res, e) != 0)
		goto out;
	session_classify(plan, arm->build, &res, 0, NULL, probe, plan->size, &f);
	run_result_release(&res);
	out->status = f.status;
	out->detail = f.detail;
	out->checksum = f.checksum;
	out->metrics = f.metrics;
	out->premise = f.premise;
	out->premise_text = f.premise_text;
	out->stderr_tail = f.stderr_tail;
	f.detail = f.checksum = f.premise_text = f.stderr_tail = NULL;
	memset(&f.metrics, 0, sizeof f.metrics);
	rc = 0;
out:
	session_fields_release(&f);
	session_env_free(env);
	buildinfo_argv_free(argv);
	free(exe);
	free(target);
	return rc;
}

void session_single_release(struct session_single *s)
{
	free(s->detail);
	free(s->checksum);
	free(s->premise_text);
	free(s->stderr_tail);
	metric_set_release(&s->metrics);
	memset(s, 0, sizeof *s);
}

void session_prober_close(struct session_prober *p)
{
	if (!p)
		return;
	runner_close(p->runner);
	if (p->scratch)
		scratch_remove(p->scratch, &p->links);
	free(p->scratch);
	session_env_free(p->env_base);
	strlist_release(&p->links);
	free(p);
}
