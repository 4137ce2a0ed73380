/* gcratchet measure — run probes against collector builds and store every sample. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "meter_perf.h"
#include "meter_valgrind.h"
#include "quiet.h"
#include "session.h"
#include "store.h"

#define MEASURE_DEFAULT_ROUNDS         5
#define MEASURE_DEFAULT_WARMUP         1
#define MEASURE_DEFAULT_TIMEOUT_S      300
#define MEASURE_DEFAULT_LOCK_TIMEOUT_S 3600

static volatile sig_atomic_t measure_stop;
static int measure_inert;

/*
 * Test hook: GCR_TEST_BALLAST_MB=N makes the harness hold N MiB of touched memory for the
 * whole session, so tests can prove a probe's peak RSS does not include the harness's.
 */
static void *measure_ballast(void)
{
	const char *env = getenv("GCR_TEST_BALLAST_MB");
	uint64_t mb;
	void *p;

	if (!env || parse_u64(env, &mb) != 0 || mb == 0)
		return NULL;
	p = xmalloc((size_t)mb << 20);
	memset(p, 0x5a, (size_t)mb << 20);
	return p;
}

static void measure_on_signal(int sig)
{
	(void)sig;
	measure_stop = 1;
}

/* The load is recorded before and after; a session the host got busier during says so. */
static void measure_load_warning(struct store *st, int64_t session)
{
	struct store_session si;
	struct err e;

	if (store_session_get(st, session, &si, &e) != 0)
		return;
	if (si.load_before >= 0 && si.load_after > si.load_before + 0.5)
		printf("warning: the load rose from %.2f to %.2f during the session; time figures "
		       "may be noisy\n",
		       si.load_before, si.load_after);
	store_session_release(&si);
}

static void measure_progress(void *ctx, const struct session_progress *p)
{
	const struct run_record *r = p->run;
	const double *wall = r->metrics ? metric_set_get(r->metrics, "time.wall_ns") : NULL;
	const double *rss = r->metrics ? metric_set_get(r->metrics, "rss.peak_bytes") : NULL;
	const double *ir = r->metrics ? metric_set_get(r->metrics, "valgrind.ir") : NULL;
	char where[32], figures[96] = "";

	(void)ctx;
	if (p->round == 0)
		snprintf(where, sizeof where, "valgrind");
	else if (p->warmup)
		snprintf(where, sizeof where, "warmup %d/%d", p->round, p->warmups);
	else
		snprintf(where, sizeof where, "round %d/%d", p->round - p->warmups,
		         p->rounds - p->warmups);
	if (r->status == RUN_STATUS_OK) {
		if (ir)
			snprintf(figures, sizeof figures, "Ir %.0f", *ir);
		else if (wall && rss)
			snprintf(figures, sizeof figures, "%8.3f s  %8.2f MiB", *wall / 1e9,
			         *rss / (1024.0 * 1024.0));
	} else {
		snprintf(figures, sizeof figures, "%s", r->detail ? r->detail : "");
	}
	printf("[%3d/%d] %-15s %-24s %-18s %-8s %s\n", p->run_index, p->run_total, where, r->probe,
	       p->build->name, run_status_name(r->status), figures);
	if (r->status == RUN_STATUS_OK && r->detail)
		printf("          warning: %s\n", r->detail);
	/* A run that failed is reported as failed; inert means it ran and caused nothing. */
	if (r->status == RUN_STATUS_OK && r->premise == RUN_PREMISE_NOT_MET) {
		/* Loud: the probe ran but did not cause what it exists to cause. */
		printf("          INERT: premise not met%s%s\n", r->premise_text ? ": " : "",
		       r->premise_text ? r->premise_text : "");
		measure_inert++;
	}
	fflush(stdout);
}

static int measure_add_build(const char *cmd, const char *dir, const char *label,
                             struct buildinfo **builds, size_t *n)
{
	struct err e;
	struct buildinfo b;

	if (buildinfo_load(dir, &b, &e) != 0)
		return cli_error(cmd, "%s: %s", label, e.msg);
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*builds)[i].manifest_hash, b.manifest_hash) == 0 &&
		    strcmp((*builds)[i].dir, b.dir) == 0) {
			buildinfo_release(&b);
			return cli_error(cmd, "build %s is named twice", dir);
		}
	}
	*builds = xrealloc(*builds, (*n + 1) * sizeof **builds);
	(*builds)[(*n)++] = b;
	return 0;
}

/* Resolves --collector NAME against the shipped builds; prints the valid names if unknown. */
static int measure_add_collector(const char *cmd, const char *root, const char *name,
                                 struct buildinfo **builds, size_t *n)
{
	struct strlist names = {0};
	char *dir, *valid;
	int rc;

	buildinfo_list(root, &names);
	if (!strlist_contains(&names, name)) {
		valid = strlist_join(&names, ", ");
		rc = cli_error(cmd, "unknown collector \"%s\" (valid: %s%s)", name,
		               names.n ? valid : "none built: run make", "");
		free(valid);
		strlist_release(&names);
		return rc;
	}
	strlist_release(&names);
	dir = xasprintf("%s/collectors/%s", root, name);
	rc = measure_add_build(cmd, dir, name, builds, n);
	free(dir);
	return rc;
}

int cmd_measure(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
	    {"--collector", 1},    {"--build", 1},      {"--probes", 1},       {"--size", 1},
	    {"--rounds", 1},       {"--warmup", 1},     {"--meters", 1},       {"--seed", 1},
	    {"--db", 1},           {"--timeout", 1},    {"--events", 1},       {"--two-n", 1},
	    {"--cpu", 1},          {"--no-aslr", 0},    {"--clean-env", 0},    {"--env-offset", 1},
	    {"--lock-timeout", 1}, {"--idle-below", 1}, {"--idle-timeout", 1}, {NULL, 0},
	};
	const char *cmd = "measure", *opt, *val, *db = NULL, *probes_arg = NULL, *meters_arg = NULL;
	const char *events_arg = NULL;
	char two_n_size[64];
	int lock_timeout_s = MEASURE_DEFAULT_LOCK_TIMEOUT_S, idle_timeout_s = 300, lock_fd = -1;
	double idle_below = 0, load_before = -1;
	struct cli_iter it;
	struct strlist collectors = {0}, build_dirs = {0};
	struct buildinfo *builds = NULL;
	size_t nbuilds = 0;
	struct session_plan plan;
	struct session_outcome outcome;
	struct meter_valgrind vg = {0};
	struct meter_perf perf = {0};
	struct store *st = NULL;
	struct err e;
	struct sigaction sa;
	char *root = buildinfo_root(), *command = NULL;
	void *ballast = measure_ballast();
	uint64_t v;
	int rc = EXIT_UNJUDGED, r, have_seed = 0;

	memset(&plan, 0, sizeof plan);
	plan.size = "default";
	plan.rounds = MEASURE_DEFAULT_ROUNDS;
	plan.warmup = MEASURE_DEFAULT_WARMUP;
	plan.timeout_ms = MEASURE_DEFAULT_TIMEOUT_S * 1000;
	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, NULL)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_command(cmd), 0);
			goto out;
		} else if (strcmp(opt, "--collector") == 0) {
			strlist_split(&collectors, val);
		} else if (strcmp(opt, "--build") == 0) {
			strlist_push(&build_dirs, val);
		} else if (strcmp(opt, "--probes") == 0) {
			probes_arg = val;
		} else if (strcmp(opt, "--size") == 0) {
			if (strcmp(val, "ci") && strcmp(val, "default") && strcmp(val, "large")) {
				rc = cli_error(
				    cmd, "--size must be ci, default or large, got \"%s\"", val);
				goto out;
			}
			plan.size = val;
		} else if (strcmp(opt, "--rounds") == 0) {
			if (cli_parse_count(cmd, opt, val, 0, &v) != 0 || v > 10000)
				goto out;
			plan.rounds = (int)v;
		} else if (strcmp(opt, "--warmup") == 0) {
			if (cli_parse_count(cmd, opt, val, 1, &v) != 0 || v > 1000)
				goto out;
			plan.warmup = (int)v;
		} else if (strcmp(opt, "--meters") == 0) {
			meters_arg = val;
		} else if (strcmp(opt, "--seed") == 0) {
			if (cli_parse_count(cmd, opt, val, 1, &plan.seed) != 0 ||
			    plan.seed > INT64_MAX) {
				cli_error(cmd, "--seed must be below 2^63");
				goto out;
			}
			have_seed = 1;
		} else if (strcmp(opt, "--db") == 0) {
			db = val;
		} else if (strcmp(opt, "--two-n") == 0) {
			struct strlist ns = {0};
			strlist_split(&ns, val);
			if (ns.n != 2 || parse_u64(ns.items[0], &plan.two_n[0]) != 0 ||
			    parse_u64(ns.items[1], &plan.two_n[1]) != 0 || plan.two_n[0] == 0 ||
			    plan.two_n[1] <= plan.two_n[0]) {
				strlist_release(&ns);
				rc = cli_error(cmd,
				               "--two-n needs two iteration counts N1,N2 with 0 < "
				               "N1 < N2, got \"%s\"",
				               val);
				goto out;
			}
			strlist_release(&ns);
			snprintf(two_n_size, sizeof two_n_size, "n=%llu,%llu",
			         (unsigned long long)plan.two_n[0],
			         (unsigned long long)plan.two_n[1]);
			plan.size = two_n_size;
		} else if (strcmp(opt, "--cpu") == 0) {
			if (cli_parse_count(cmd, opt, val, 1, &v) != 0)
				goto out;
			if (v >= (uint64_t)sysconf(_SC_NPROCESSORS_ONLN)) {
				rc = cli_error(cmd, "--cpu %s: this host has CPUs 0 to %ld", val,
				               sysconf(_SC_NPROCESSORS_ONLN) - 1);
				goto out;
			}
			plan.pin_cpu = 1;
			plan.cpu = (int)v;
		} else if (strcmp(opt, "--no-aslr") == 0) {
			plan.no_aslr = 1;
		} else if (strcmp(opt, "--clean-env") == 0) {
			plan.clean_env = 1;
		} else if (strcmp(opt, "--env-offset") == 0) {
			if (cli_parse_count(cmd, opt, val, 0, &v) != 0 || v > 65536) {
				cli_error(cmd, "--env-offset is at most 65536 bytes");
				goto out;
			}
			plan.env_offset = (unsigned)v;
		} else if (strcmp(opt, "--lock-timeout") == 0) {
			if (cli_parse_count(cmd, opt, val, 1, &v) != 0)
				goto out;
			lock_timeout_s = (int)v;
		} else if (strcmp(opt, "--idle-below") == 0) {
			char *end;
			idle_below = strtod(val, &end);
			if (*end || idle_below <= 0) {
				rc = cli_error(
				    cmd, "--idle-below needs a positive load average, got \"%s\"",
				    val);
				goto out;
			}
		} else if (strcmp(opt, "--idle-timeout") == 0) {
			if (cli_parse_count(cmd, opt, val, 1, &v) != 0)
				goto out;
			idle_timeout_s = (int)v;
		} else if (strcmp(opt, "--events") == 0) {
			events_arg = val;
		} else if (strcmp(opt, "--timeout") == 0) {
			if (cli_parse_count(cmd, opt, val, 1, &v) != 0)
				goto out;
			plan.timeout_ms = (int64_t)v * 1000;
		}
	}
	if (r < 0)
		goto out;

	if (cli_plan_meters(cmd, meters_arg, events_arg, &plan, &vg, &perf) != 0)
		goto out;

	if (collectors.n == 0 && build_dirs.n == 0)
		strlist_push(&collectors, CLI_DEFAULT_COLLECTOR);
	for (size_t i = 0; i < collectors.n; i++)
		if (measure_add_collector(cmd, root, collectors.items[i], &builds, &nbuilds) != 0)
			goto out;
	for (size_t i = 0; i < build_dirs.n; i++)
		if (measure_add_build(cmd, build_dirs.items[i], build_dirs.items[i], &builds,
		                      &nbuilds) != 0)
			goto out;

	if (cli_plan_probes(cmd, builds, nbuilds, probes_arg, &plan) != 0)
		goto out;
	if (!have_seed)
		plan.seed = cli_default_seed();
	plan.builds = builds;
	plan.nbuilds = nbuilds;
	plan.launcher = NULL;
	{
		char *launcher = xasprintf("%s/gcratchet-launch", root);
		if (access(launcher, X_OK) != 0) {
			rc = cli_error(cmd, "%s is missing: run make", launcher);
			free(launcher);
			goto out;
		}
		plan.launcher = launcher;
	}
	command = cli_command_line(argc, argv);
	plan.command = command;
	plan.stop = &measure_stop;

	if (store_open(cli_db_path(db), STORE_WRITE, &st, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	/* Quiet first: one measuring session per host, on a host that has calmed down. */
	if (quiet_lock(lock_timeout_s, cli_waiting, (void *)cmd, &lock_fd, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (idle_below > 0 && quiet_wait_idle(idle_below, idle_timeout_s, cli_waiting, (void *)cmd,
	                                      &load_before, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = measure_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	printf("gcratchet measure: %zu build%s x %zu probe%s, size %s, %d round%s + %d warm-up, "
	       "seed %llu\n",
	       nbuilds, nbuilds == 1 ? "" : "s", plan.probes.n, plan.probes.n == 1 ? "" : "s",
	       plan.size, plan.rounds, plan.rounds == 1 ? "" : "s", plan.warmup,
	       (unsigned long long)plan.seed);
	{
		struct sbuf m;
		sbuf_init(&m);
		cli_describe_meters(&plan, &m);
		printf("meters: %s\n", m.data);
		sbuf_release(&m);
	}
	if (plan.meters & SESSION_METER_VALGRIND)
		printf("        (one valgrind run per probe and build, after the timed rounds)\n");
	for (size_t b = 0; b < nbuilds; b++)
		printf("build %zu: %s (%s %s, %s) %s\n", b + 1, builds[b].name, builds[b].collector,
		       builds[b].version, builds[b].git_commit, builds[b].dir);
	fflush(stdout);

	if (session_run(&plan, st, measure_progress, NULL, &outcome, &e) != 0) {
		rc = cli_error(cmd, "%s%s", e.msg,
		               outcome.session_id ? " (runs stored so far are kept)" : "");
		goto out;
	}
	measure_load_warning(st, outcome.session_id);
	printf("session %lld: %d run%s, %d failed%s; stored in %s\n", (long long)outcome.session_id,
	       outcome.runs, outcome.runs == 1 ? "" : "s", outcome.runs_failed,
	       outcome.interrupted ? ", INTERRUPTED (finished runs are kept)" : "",
	       cli_db_path(db));
	if (measure_inert)
		printf("INERT: %d run%s did not meet their probe's premise; check reports them as "
		       "regressions\n",
		       measure_inert, measure_inert == 1 ? "" : "s");
	rc = outcome.runs_failed || outcome.interrupted ? EXIT_UNJUDGED : EXIT_OK;
out:
	quiet_unlock(lock_fd);
	store_close(st);
	for (size_t i = 0; i < nbuilds; i++)
		buildinfo_release(&builds[i]);
	free(builds);
	free((char *)plan.launcher);
	strlist_release(&plan.probes);
	strlist_release(&collectors);
	strlist_release(&build_dirs);
	meter_valgrind_release(&vg);
	meter_perf_release(&perf);
	free(command);
	free(root);
	free(ballast);
	return rc;
}
