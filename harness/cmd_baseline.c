/* gcratchet baseline — pin a profile from a measured session, or validate profile files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "baseline.h"
#include "check.h"
#include "cli.h"
#include "cmds.h"
#include "heapgate.h"
#include "hostinfo.h"
#include "metrics.h"
#include "session_opts.h"
#include "stats.h"
#include "store.h"

static int baseline_cmd_validate(const char *cmd, const char *profile, const char *collector,
                                 const struct strlist *files)
{
	struct strlist paths = {0};
	int rc = EXIT_OK;

	if (files->n) {
		for (size_t i = 0; i < files->n; i++)
			strlist_push(&paths, files->items[i]);
	} else {
		char *p;
		if (!profile) {
			strlist_release(&paths);
			return cli_error(cmd, "validate needs --profile P or file names");
		}
		p = cli_baseline_find(profile, collector);
		strlist_push(&paths, p);
		free(p);
	}
	for (size_t i = 0; i < paths.n; i++) {
		struct baseline b;
		struct err e;
		if (baseline_load(paths.items[i], &b, &e) != 0) {
			fprintf(stderr, "gcratchet %s: %s\n", cmd, e.msg);
			rc = EXIT_UNJUDGED;
			continue;
		}
		if (profile && strcmp(b.profile, profile) != 0) {
			fprintf(stderr, "gcratchet %s: %s: profile is \"%s\", not \"%s\"\n", cmd,
			        paths.items[i], b.profile, profile);
			rc = EXIT_UNJUDGED;
		} else if (baseline_check_spread(&b, &e) != 0) {
			fprintf(stderr, "gcratchet %s: %s: %s\n", cmd, paths.items[i], e.msg);
			rc = EXIT_UNJUDGED;
		} else {
			printf("ok: %s (profile %s, collector %s, %zu probes, %zu cells)\n",
			       paths.items[i], b.profile, b.collector, b.nprobes, b.ncells);
		}
		baseline_release(&b);
	}
	strlist_release(&paths);
	return rc;
}

/* The metric names seen in the runs, in the harness's canonical order. */
static void baseline_cmd_metrics(const struct store_run *runs, size_t n, struct strlist *out)
{
	const char *const *known = metrics_known();

	for (size_t k = 0; known[k]; k++)
		for (size_t i = 0; i < n; i++)
			if (!runs[i].warmup && runs[i].status == RUN_STATUS_OK &&
			    metric_set_get(&runs[i].metrics, known[k])) {
				strlist_push(out, known[k]);
				break;
			}
}

/*
 * When the runs come from more than one session (--vary-env): how far the sessions' own mins of
 * one cell lie above the smallest (min), which a quantile cell is held to. One session: none.
 */
static void baseline_cmd_min_spread(const struct store_run *runs, size_t n, const char *probe,
                                    const char *metric, enum run_kind kind, double min,
                                    struct baseline_cell *cell)
{
	int64_t sessions = 0, first = 0;
	double highest = min;

	for (size_t i = 0; i < n; i++) {
		int64_t sid = runs[i].session_id;
		double smin = INFINITY;
		const double *v;
		if (runs[i].warmup || runs[i].kind != kind || strcmp(runs[i].probe, probe) != 0 ||
		    !metric_set_get(&runs[i].metrics, metric))
			continue;
		/* Each session once: at its first run in the array. */
		{
			size_t j = 0;
			while (j < i &&
			       (runs[j].session_id != sid || runs[j].warmup ||
			        runs[j].kind != kind || strcmp(runs[j].probe, probe) != 0 ||
			        !metric_set_get(&runs[j].metrics, metric)))
				j++;
			if (j < i)
				continue;
		}
		if (sessions++ == 0)
			first = sid;
		for (size_t j = i; j < n; j++)
			if (runs[j].session_id == sid && !runs[j].warmup && runs[j].kind == kind &&
			    strcmp(runs[j].probe, probe) == 0 &&
			    (v = metric_set_get(&runs[j].metrics, metric)) && *v < smin)
				smin = *v;
		highest = smin > highest ? smin : highest;
	}
	(void)first;
	if (sessions > 1) {
		cell->has_min_spread = 1;
		cell->min_spread = highest - min;
	}
}

/* Fills b's probes and cells from the runs; -1 (printed) when the runs disagree or failed. */
static int baseline_cmd_cells(const char *cmd, const struct store_run *runs, size_t n,
                              const struct strlist *metrics, struct baseline *b)
{
	struct strlist probes = {0};
	double *vals = xcalloc(n ? n : 1, sizeof *vals);
	int rc = -1;

	for (size_t i = 0; i < n; i++) {
		if (runs[i].warmup)
			continue;
		if (runs[i].status != RUN_STATUS_OK) {
			cli_error(cmd,
			          "run %lld (%s, %s round %d) %s%s%s: a baseline is pinned only "
			          "from a session whose runs all succeeded",
			          (long long)runs[i].id, runs[i].probe, run_kind_name(runs[i].kind),
			          runs[i].round, run_status_name(runs[i].status),
			          runs[i].detail ? ": " : "", runs[i].detail ? runs[i].detail : "");
			goto out;
		}
		if (!strlist_contains(&probes, runs[i].probe))
			strlist_push(&probes, runs[i].probe);
	}
	if (probes.n == 0) {
		cli_error(cmd, "the session has no measured runs for this build");
		goto out;
	}
	b->probes = xcalloc(probes.n, sizeof *b->probes);
	for (size_t p = 0; p < probes.n; p++) {
		const char *probe = probes.items[p], *sum = NULL;
		for (size_t i = 0; i < n; i++) {
			if (runs[i].warmup || strcmp(runs[i].probe, probe) != 0 ||
			    !runs[i].checksum)
				continue;
			if (sum && strcmp(sum, runs[i].checksum) != 0) {
				cli_error(cmd,
				          "probe %s printed two checksums in one session (%s and "
				          "%s): it is not deterministic, refusing to pin",
				          probe, sum, runs[i].checksum);
				goto out;
			}
			sum = runs[i].checksum;
		}
		if (!sum) {
			cli_error(cmd, "probe %s reported no checksum: cannot pin its result",
			          probe);
			goto out;
		}
		b->probes[b->nprobes].name = xstrdup(probe);
		b->probes[b->nprobes++].checksum = xstrdup(sum);
		for (size_t m = 0; m < metrics->n; m++) {
			const char *metric = metrics->items[m];
			enum run_kind kind = metrics_run_kind(metric);
			struct stats_summary sum_stats;
			size_t nv = 0;
			for (size_t i = 0; i < n; i++) {
				const double *v;
				if (runs[i].warmup || strcmp(runs[i].probe, probe) != 0 ||
				    runs[i].kind != kind)
					continue;
				if ((v = metric_set_get(&runs[i].metrics, metric)))
					vals[nv++] = *v;
			}
			if (nv == 0)
				continue;
			stats_summarize(vals, nv, &sum_stats);
			b->cells = xrealloc(b->cells, (b->ncells + 1) * sizeof *b->cells);
			memset(&b->cells[b->ncells], 0, sizeof b->cells[b->ncells]);
			baseline_cmd_min_spread(runs, n, probe, metric, kind, sum_stats.min,
			                        &b->cells[b->ncells]);
			b->cells[b->ncells].probe = xstrdup(probe);
			b->cells[b->ncells].metric = xstrdup(metric);
			b->cells[b->ncells].median = sum_stats.median;
			b->cells[b->ncells].min = sum_stats.min;
			b->cells[b->ncells].max = sum_stats.max;
			b->cells[b->ncells].n = (int64_t)nv;
			b->ncells++;
		}
	}
	rc = 0;
out:
	free(vals);
	strlist_release(&probes);
	return rc;
}

/*
 * A gated cell that already moved more than its rule allows across the pinning session's own
 * runs would fail the next check by chance. Such a cell gets an override whose band is twice
 * the spread observed, with that evidence recorded, and pin says so: a collector whose census
 * is not deterministic (bdwgc-incremental's collection counts) is pinned honestly, not with a
 * band it cannot meet. The spread is the one its class is judged on (baseline_cell_spread: a
 * quantile cell's median above its min); an exact cell that spread is no longer exact, and its
 * override is banded.
 */
static void baseline_cmd_noisy_overrides(struct baseline *b)
{
	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *c = &b->cells[i];
		const struct baseline_rule *rule = baseline_rule_for(b, c->metric);
		struct baseline_override *o;
		double allowance, spread = baseline_cell_spread(b, c, &allowance), pct, from;
		char pct_text[16];

		if (!rule->gated || c->n < 2 || spread <= allowance)
			continue;
		from = baseline_cell_value(c, rule->cls);
		pct = from != 0 ? 100.0 * spread / fabs(from) : 0;
		b->overrides = xrealloc(b->overrides, (b->noverrides + 1) * sizeof *b->overrides);
		o = &b->overrides[b->noverrides++];
		memset(o, 0, sizeof *o);
		o->probe = xstrdup(c->probe);
		o->metric = xstrdup(c->metric);
		o->rule = *rule;
		o->rule.metric = o->metric;
		o->rule.band_pct = ceil(2 * pct);
		o->rule.band_abs = ceil(2 * spread);
		if (o->rule.cls == BASELINE_CLASS_EXACT)
			o->rule.cls = BASELINE_CLASS_BANDED;
		metrics_format_pct(pct, pct_text, sizeof pct_text);
		o->rationale =
		    xasprintf("pin: widened for noise: the pinning session's %lld runs "
		              "already spread %s%% (class %s), beyond the %s rule's "
		              "band of %g%%",
		              (long long)c->n, pct_text, baseline_class_name(o->rule.cls),
		              c->metric, rule->band_pct);
		o->evidence_runs = c->n;
		o->evidence_spread_pct = pct;
		o->widened_for_noise = 1;
		printf("override %s %s: %s band %g%% / %g (spread %s%% over %lld runs)\n", c->probe,
		       c->metric, baseline_class_name(o->rule.cls), o->rule.band_pct,
		       o->rule.band_abs, pct_text, (long long)c->n);
	}
}

/* A profile that gates time pins it from at least this many runs per cell. */
static int baseline_cmd_min_time_runs(void)
{
	struct session_opts o;
	int rounds;

	session_opts_init(&o, SESSION_VERB_PIN_TIME);
	rounds = o.rounds;
	session_opts_release(&o);
	return rounds;
}

/* -1 (printed) when a gated time cell has fewer runs than a time pin needs. */
static int baseline_cmd_time_runs(const char *cmd, const struct baseline *b)
{
	int min = baseline_cmd_min_time_runs();

	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *c = &b->cells[i];
		if (!metrics_is_time(c->metric) || !baseline_rule_for(b, c->metric)->gated ||
		    c->n >= min)
			continue;
		cli_error(cmd,
		          "%s %s has %lld timed runs in session %lld; profile %s gates time and "
		          "pins it from at least %d (gcratchet measure --rounds %d, then baseline "
		          "pin --session latest; pin without --session measures %d)",
		          c->probe, c->metric, (long long)c->n, (long long)b->session, b->profile,
		          min, min, min);
		return -1;
	}
	return 0;
}

static int baseline_cmd_spread_cmp(const void *a, const void *b)
{
	const struct baseline_override *x = *(const struct baseline_override *const *)a;
	const struct baseline_override *y = *(const struct baseline_override *const *)b;

	return x->evidence_spread_pct < y->evidence_spread_pct   ? 1
	       : x->evidence_spread_pct > y->evidence_spread_pct ? -1
	                                                         : 0;
}

#define BASELINE_NOISY_SHOWN 5
#define BASELINE_BUSY_SHOWN  3

/*
 * A gated time cell whose pinning runs already spread beyond the profile's band gets a band
 * wide enough to hold that spread (baseline_cmd_noisy_overrides), and then gates nothing a
 * reader would call a regression: on a busy host, a 2x slowdown passes. So a profile that
 * gates time is not pinned from such runs unless someone accepts that on the record
 * (--accept-noise), and the refusal says what the host was doing and how to quiet it.
 * -1 (printed) when refused.
 */
static int baseline_cmd_time_noise(const char *cmd, struct baseline *b,
                                   const struct store_session *si, const char *accept_noise,
                                   const char *who, const char *when)
{
	const struct baseline_override **noisy = xcalloc(b->noverrides + 1, sizeof *noisy);
	struct hostinfo_proc busy[BASELINE_BUSY_SHOWN];
	struct hostinfo h;
	size_t n = 0, nbusy;

	for (size_t i = 0; i < b->noverrides; i++)
		if (b->overrides[i].widened_for_noise && b->overrides[i].rule.gated &&
		    metrics_is_time(b->overrides[i].metric))
			noisy[n++] = &b->overrides[i];
	if (n == 0 || accept_noise) {
		if (n) {
			b->noise.reason = xstrdup(accept_noise);
			b->noise.date = xstrdup(when);
			b->noise.who = xstrdup(who);
			printf("accepted noise: %zu gated time cell%s widened beyond the %s band: "
			       "%s\n",
			       n, n == 1 ? "" : "s", b->profile, accept_noise);
		}
		free(noisy);
		return 0;
	}
	qsort(noisy, n, sizeof *noisy, baseline_cmd_spread_cmp);
	cli_error(cmd,
	          "refusing to pin %s: %zu gated time cell%s spread beyond the profile's band "
	          "over the pinning runs, so their bands would have to be as wide; the "
	          "noisiest:",
	          b->profile, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < BASELINE_NOISY_SHOWN; i++) {
		char spread[16];
		metrics_format_pct(noisy[i]->evidence_spread_pct, spread, sizeof spread);
		fprintf(stderr, "  %-24s %-14s spread %s%% over %lld runs, band %g%%\n",
		        noisy[i]->probe, noisy[i]->metric, spread,
		        (long long)noisy[i]->evidence_runs,
		        baseline_rule_for(b, noisy[i]->metric)->band_pct);
	}
	if (n > BASELINE_NOISY_SHOWN)
		fprintf(stderr, "  ... and %zu more\n", n - BASELINE_NOISY_SHOWN);
	hostinfo_read(&h);
	fprintf(stderr,
	        "host %s: load %.2f before session %lld, %.2f after, %.2f now, on %ld CPUs; "
	        "governor %s, smt %s, transparent hugepages %s\n",
	        h.hostname, si->load_before, (long long)si->id, si->load_after, hostinfo_load1(),
	        h.ncpu, h.governor,
	        h.smt < 0 ? "unknown"
	        : h.smt   ? "on"
	                  : "off",
	        h.thp);
	nbusy = hostinfo_busy(200, busy, BASELINE_BUSY_SHOWN);
	fprintf(stderr, "busy now:");
	for (size_t i = 0; i < nbusy; i++)
		fprintf(stderr, "%s %s (pid %ld, %.0f%% CPU)", i ? "," : "", busy[i].comm,
		        busy[i].pid, busy[i].cpu_pct);
	fprintf(stderr, "%s\n", nbusy ? "" : " nothing else above 1% of a CPU");
	fprintf(stderr,
	        "to pin time, quiet the host and measure again: stop other work, then\n"
	        "  gcratchet measure --collector %s --size %s --rounds 21 --cpu %ld "
	        "--idle-below 0.5\n"
	        "  gcratchet baseline pin --profile %s --collector %s --session latest\n"
	        "(gcratchet doctor --profile %s measures the host's spread: it should be below "
	        "the band); or pin anyway with --accept-noise \"reason\": the widened cells "
	        "are marked in the file and check prints their bands\n",
	        b->collector, b->size, h.ncpu > 1 ? h.ncpu - 1 : 0, b->profile, b->collector,
	        b->profile);
	free(noisy);
	return -1;
}

/*
 * Writes a baseline file: only one that meets baseline_check, so that a file this harness
 * writes is one it will read back (a bad number once came back as INT64_MIN and every later
 * check exited 2).
 */
static int baseline_cmd_write(const char *cmd, const char *path, const struct baseline *b)
{
	struct err e;
	char *text;
	int rc;

	if (baseline_check(b, &e) != 0)
		return cli_error(cmd, "refusing to write %s: %s", path, e.msg);
	text = baseline_serialize(b);
	rc = write_file_atomic(path, text, strlen(text), &e);
	free(text);
	if (rc != 0)
		return cli_error(cmd, "%s", e.msg);
	return 0;
}

/* Creates baselines/<profile>/ when it is missing. */
static int baseline_cmd_mkdir(const char *cmd, const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int rc = 0;

	if (slash) {
		*slash = '\0';
		for (char *p = dir + 1; *p; p++) {
			if (*p != '/')
				continue;
			*p = '\0';
			mkdir(dir, 0755);
			*p = '/';
		}
		if (mkdir(dir, 0755) != 0) {
			struct stat sb;
			if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
				rc = cli_error(cmd, "%s: cannot create the folder", dir);
		}
	}
	free(dir);
	return rc;
}

/* 1 when the profile gates wall time: its pins need more runs and a quiet host. */
static int baseline_cmd_gates_time(const char *profile)
{
	enum metric_profile p;

	return metrics_profile_parse(profile, &p) == 0 &&
	       metrics_lookup("time.wall_ns")->band[p].gated;
}

/*
 * pin and update without --session measure first, as `gcratchet measure` would with the
 * profile's needs: the ci size (update: the baseline's), 5 rounds after a warm-up (11 for a
 * profile that gates time), every meter the host has.
 */
static int baseline_cmd_measure(const char *profile, const char *collector, const char *size,
                                const char *db, const char *meters, unsigned env_pad)
{
	struct session_opts o;
	struct err e;
	char *command = NULL, pad[32];
	int rc = EXIT_UNJUDGED;

	session_opts_init(&o, baseline_cmd_gates_time(profile) ? SESSION_VERB_PIN_TIME
	                                                       : SESSION_VERB_PIN);
	if (session_opts_set_size(&o, size, &e) != 0) {
		rc = cli_error("measure", "%s", e.msg);
		goto out;
	}
	strlist_push(&o.collectors, collector);
	o.db = db ? xstrdup(db) : NULL;
	o.env_offset = env_pad;
	if (meters) {
		free(o.meters);
		o.meters = xstrdup(meters);
	}
	/* The session records the measure command that would repeat it. */
	snprintf(pad, sizeof pad, " --env-offset %u", env_pad);
	command = xasprintf(
	    "gcratchet measure --collector %s --size %s --rounds %d --warmup %d%s%s%s", collector,
	    o.size, o.rounds, o.warmup, db ? " --db " : "", db ? db : "", env_pad ? pad : "");
	rc = measure_session("measure", &o, command, MEASURE_VIEW_RUNS, NULL);
out:
	free(command);
	session_opts_release(&o);
	return rc;
}

/*
 * The toolchain a baseline records: the build's compiler and flags from its stored manifest,
 * and the valgrind the session measured with. Unknown for a build whose manifest records none.
 */
static int baseline_cmd_toolchain(const char *cmd, struct store *st,
                                  const struct store_build *build, const struct store_session *si,
                                  struct toolchain *out)
{
	struct toolchain tc;
	struct err e;
	char *manifest = NULL, *where = xasprintf("the manifest of build %s", build->name);
	int rc = -1;

	if (store_build_manifest(st, build->id, &manifest, &e) != 0 ||
	    toolchain_from_manifest(manifest, where, &tc, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	toolchain_set_valgrind_from_meters(&tc, si->meters);
	/* A baseline keeps what identifies the code, not how the compiler was invoked. */
	free(tc.cc);
	free(tc.cc_version);
	tc.cc = tc.cc_version = NULL;
	*out = tc;
	rc = 0;
out:
	free(manifest);
	free(where);
	return rc;
}
static char *baseline_cmd_who(void);

/*
 * --vary-env: each sub-session pads every run's environment by up to this many bytes more than
 * the one before (session i: a seeded 0..i * step per run), so the stack starts somewhere else
 * in each; timed runs keep address-space randomisation on. What the hermetic runner fixes (the
 * environment's variables, cwd, the probe's path) it fixes for check too, so varying it would
 * measure nothing check can meet: the spread left is the stack's placement, ASLR and time.
 */
#define BASELINE_VARY_PAD_STEP 4096u
#define BASELINE_VARY_MAX      16

/* Measures `n` sub-sessions (see above); their ids in ids[0..n). -1 (printed) on a failure. */
static int baseline_cmd_vary_measure(const char *cmd, const char *profile, const char *collector,
                                     const char *db, const char *meters, int n, int64_t *ids)
{
	for (int i = 0; i < n; i++) {
		struct store *st = NULL;
		struct err e;
		int rc;

		printf("vary-env %d/%d: environment padded by up to %u bytes\n", i + 1, n,
		       (unsigned)i * BASELINE_VARY_PAD_STEP);
		fflush(stdout);
		if (baseline_cmd_measure(profile, collector, "ci", db, meters,
		                         (unsigned)i * BASELINE_VARY_PAD_STEP) != EXIT_OK)
			return cli_error(cmd,
			                 "sub-session %d of --vary-env did not succeed: nothing "
			                 "pinned",
			                 i + 1);
		if (store_open(cli_db_path(db), STORE_READ, &st, &e) != 0)
			return cli_error(cmd, "%s", e.msg);
		ids[i] = 0;
		rc = cli_find_session(cmd, st, store_where(st), collector, "ci", &ids[i]);
		store_close(st);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/*
 * Appends the runs of `collector`'s build in each of the other sessions (ids, but `own`) to
 * *runs: one pool per cell across the varied environments. -1 (printed) when a session is not
 * complete or lacks the build.
 */
static int baseline_cmd_pool_runs(const char *cmd, struct store *st, const int64_t *ids, size_t n,
                                  int64_t own, const char *collector, const char *build_name,
                                  struct store_run **runs, size_t *nruns)
{
	for (size_t i = 0; i < n; i++) {
		struct store_session si = {0};
		struct store_build *builds = NULL;
		const struct store_build *build;
		struct store_run *more = NULL;
		size_t nbuilds = 0, nmore = 0;
		struct err e;
		int rc = -1;

		if (ids[i] == own)
			continue;
		if (store_session_get(st, ids[i], &si, &e) != 0 ||
		    store_session_builds(st, ids[i], &builds, &nbuilds, &e) != 0) {
			cli_error(cmd, "%s", e.msg);
		} else if (strcmp(si.status, "complete") != 0) {
			cli_error(cmd, "session %lld is %s: pin only from complete sessions",
			          (long long)ids[i], si.status);
		} else if (cli_pick_build(cmd, builds, nbuilds, collector, build_name, ids[i],
		                          &build) == 0) {
			if (store_runs_load(st, ids[i], build->position, &more, &nmore, &e) != 0) {
				cli_error(cmd, "%s", e.msg);
			} else {
				*runs = xrealloc(*runs, (*nruns + nmore + 1) * sizeof **runs);
				memcpy(*runs + *nruns, more, nmore * sizeof *more);
				*nruns += nmore;
				free(more); /* the runs' strings now belong to *runs */
				rc = 0;
			}
		}
		store_builds_release(builds, nbuilds);
		store_session_release(&si);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/*
 * pin --minheap: also pin each probe's minimum heap for the build (heapgate.h), from the
 * newest `gcratchet minheap` answers in the store. A flag rather than a parameter keeps the
 * pin's signature as update shares it.
 */
static int baseline_pin_minheap;

static int baseline_cmd_pin(const char *cmd, const char *profile, const char *collector,
                            const char *db, int64_t session, const char *build_name,
                            const char *out_path, const char *accept_noise, int vary_env,
                            const char *meters)
{
	struct store *st = NULL;
	struct store_session si = {0};
	struct store_build *builds = NULL;
	const struct store_build *build;
	struct store_run *runs = NULL;
	struct baseline b;
	struct strlist metrics = {0};
	struct heapgate_info hg = {0};
	size_t nbuilds = 0, nruns = 0;
	struct err e;
	char *path = out_path ? xstrdup(out_path) : cli_baseline_path(profile, collector);
	char when[32], *who = NULL;
	int64_t vary_ids[BASELINE_VARY_MAX];
	int rc = EXIT_UNJUDGED;

	memset(&b, 0, sizeof b);
	if (vary_env) {
		if (baseline_cmd_vary_measure(cmd, profile, collector, db, meters, vary_env,
		                              vary_ids) != 0)
			goto out;
		session = vary_ids[vary_env - 1];
	} else if (session == 0 &&
	           baseline_cmd_measure(profile, collector, "ci", db, meters, 0) != EXIT_OK) {
		cli_error(cmd, "the measuring session did not succeed: nothing pinned");
		goto out;
	}
	if (session < 0)
		session = 0;
	if (store_open(cli_db_path(db), STORE_READ, &st, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (cli_find_session(cmd, st, store_where(st), collector, "ci", &session) != 0)
		goto out;
	if (store_session_get(st, session, &si, &e) != 0 ||
	    store_session_builds(st, session, &builds, &nbuilds, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (strcmp(si.status, "complete") != 0) {
		cli_error(cmd, "session %lld is %s: pin only from a complete session",
		          (long long)session, si.status);
		goto out;
	}
	if (cli_pick_build(cmd, builds, nbuilds, collector, build_name, session, &build) != 0)
		goto out;
	if (store_runs_load(st, session, build->position, &runs, &nruns, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (vary_env && baseline_cmd_pool_runs(cmd, st, vary_ids, (size_t)vary_env, session,
	                                       collector, build_name, &runs, &nruns) != 0)
		goto out;
	if (baseline_pin_minheap) {
		if (heapgate_annotate(st, &si, build, runs, nruns, &hg, &e) != 0) {
			cli_error(cmd, "%s", e.msg);
			goto out;
		}
		if (hg.missing) {
			cli_error(cmd,
			          "--minheap: %zu probe%s of session %lld ha%s no minimum heap "
			          "stored for build %s at size %s on this host: run gcratchet "
			          "minheap --build %s --size %s first",
			          hg.missing, hg.missing == 1 ? "" : "s", (long long)session,
			          hg.missing == 1 ? "s" : "ve", build->name, si.size, build->dir,
			          si.size);
			goto out;
		}
	}
	baseline_cmd_metrics(runs, nruns, &metrics);
	if (baseline_cmd_cells(cmd, runs, nruns, &metrics, &b) != 0)
		goto out;
	if (baseline_default_rules(profile, build->collector, (const char *const *)metrics.items,
	                           metrics.n, &b.rules, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	b.nrules = metrics.n;
	if (baseline_pin_minheap && heapgate_widen(b.rules, b.nrules, &hg))
		printf("rule %s: band %g MiB: the minimum-heap search of %s was unsteady at %zu "
		       "boundar%s\n",
		       HEAPGATE_METRIC, hg.widest_mib > 1 ? hg.widest_mib : 1, build->name,
		       hg.unsteady, hg.unsteady == 1 ? "y" : "ies");
	baseline_cmd_noisy_overrides(&b);
	format_utc(now_real_ns(), when, sizeof when);
	b.profile = xstrdup(profile);
	b.collector = xstrdup(build->collector);
	b.collector_version = xstrdup(build->collector_version ? build->collector_version : "");
	b.git_commit = xstrdup(build->git_commit ? build->git_commit : "unknown");
	b.host_fingerprint = xstrdup(si.host_fingerprint);
	b.hostname = xstrdup(si.hostname ? si.hostname : "unknown");
	if (baseline_cmd_toolchain(cmd, st, build, &si, &b.toolchain) != 0)
		goto out;
	b.pinned_at = xstrdup(when);
	b.session = session;
	b.size = xstrdup(si.size);
	b.repeats = si.rounds;
	if (vary_env) {
		b.vary_env.nsessions = (size_t)vary_env;
		b.vary_env.sessions = xcalloc((size_t)vary_env, sizeof *b.vary_env.sessions);
		memcpy(b.vary_env.sessions, vary_ids, (size_t)vary_env * sizeof *vary_ids);
		b.vary_env.pad_step_bytes = BASELINE_VARY_PAD_STEP;
	}
	{
		struct strlist parts = {0};
		strlist_split(&parts, si.meters);
		for (size_t i = 0; i < parts.n; i++) {
			parts.items[i][strcspn(parts.items[i], ":")] = '\0';
			if (!strlist_contains(&b.meters, parts.items[i]))
				strlist_push(&b.meters, parts.items[i]);
		}
		strlist_release(&parts);
	}
	who = baseline_cmd_who();
	if (baseline_cmd_time_runs(cmd, &b) != 0 ||
	    baseline_cmd_time_noise(cmd, &b, &si, accept_noise, who, when) != 0)
		goto out;
	if (baseline_cmd_mkdir(cmd, path) != 0 || baseline_cmd_write(cmd, path, &b) != 0)
		goto out;
	printf("pinned %s: profile %s, collector %s %s, session %lld, size %s, %zu probes, %zu "
	       "cells\n",
	       path, profile, b.collector, b.collector_version, (long long)session, b.size,
	       b.nprobes, b.ncells);
	if (vary_env) {
		printf("pooled from %d sessions in varied environments:", vary_env);
		for (int i = 0; i < vary_env; i++)
			printf(" %lld", (long long)vary_ids[i]);
		printf(" (%zu cells widened beyond the profile's band)\n", b.noverrides);
	}
	rc = EXIT_OK;
out:
	free(who);
	strlist_release(&metrics);
	baseline_release(&b);
	store_runs_release(runs, nruns);
	store_builds_release(builds, nbuilds);
	store_session_release(&si);
	store_close(st);
	free(path);
	return rc;
}

/* Who accepted a regression or a noise: $GCR_WHO, else git's user.name, else $USER. */
static char *baseline_cmd_who(void)
{
	const char *env = getenv("GCR_WHO");
	char line[256] = "";
	FILE *p;

	if (env && *env)
		return xstrdup(env);
	p = popen("git config user.name 2>/dev/null", "r");
	if (p) {
		if (!fgets(line, sizeof line, p))
			line[0] = '\0';
		pclose(p);
	}
	line[strcspn(line, "\n")] = '\0';
	if (line[0])
		return xstrdup(line);
	env = getenv("USER");
	return xstrdup(env && *env ? env : "unknown");
}

/* Sets a cell's pinned figures to the session's for that cell. */
static void baseline_cmd_repin_cell(struct baseline_cell *cell, const struct store_run *runs,
                                    size_t n, const char *size)
{
	enum run_kind kind = metrics_run_kind(cell->metric);
	double *vals = xcalloc(n ? n : 1, sizeof *vals);
	struct stats_summary sum;
	size_t nv = 0;

	for (size_t i = 0; i < n; i++) {
		const double *v;
		if (runs[i].warmup || strcmp(runs[i].probe, cell->probe) ||
		    strcmp(runs[i].size, size) || runs[i].kind != kind ||
		    runs[i].status != RUN_STATUS_OK)
			continue;
		if ((v = metric_set_get(&runs[i].metrics, cell->metric)))
			vals[nv++] = *v;
	}
	if (nv) {
		stats_summarize(vals, nv, &sum);
		cell->median = sum.median;
		cell->min = sum.min;
		cell->max = sum.max;
		cell->n = (int64_t)nv;
	}
	free(vals);
}

/*
 * update: judges every pinned cell on a new session as check does; improved cells are
 * tightened on their own, regressed ones are loosened only with --accept (each then gets a
 * ledger entry), and nothing is written while a regression is refused. What check could not
 * judge as a whole (a session that is not complete, a baseline that gates nothing, a session
 * that measured none of its probes) updates nothing.
 */
static int baseline_cmd_update(const char *cmd, const char *profile, const char *collector,
                               const char *db, int64_t session, const char *build_name,
                               const char *path_arg, const char *accept, const char *ref)
{
	struct store *st = NULL;
	struct store_session si = {0};
	struct store_build *builds = NULL;
	const struct store_build *build;
	struct store_run *runs = NULL;
	struct baseline b;
	struct check_input in = {0};
	struct check_result res = {0};
	struct sbuf diff;
	size_t nbuilds = 0, nruns = 0, unmeasured = 0;
	struct err e;
	char *path = path_arg ? xstrdup(path_arg) : cli_baseline_path(profile, collector);
	char *who = NULL, when[32];
	int rc = EXIT_UNJUDGED, refused = 0, changed = 0;

	sbuf_init(&diff);
	if (baseline_load(path, &b, &e) != 0) {
		cli_error(cmd, "%s%s", e.msg,
		          e.code == ERR_NOT_FOUND ? " (pin one first: gcratchet baseline pin)"
		                                  : "");
		goto out;
	}
	if (strcmp(b.profile, profile) != 0) {
		cli_error(cmd, "%s: profile is \"%s\", not \"%s\"", path, b.profile, profile);
		goto out;
	}
	if (session == 0 &&
	    baseline_cmd_measure(profile, b.collector, b.size, db, NULL, 0) != EXIT_OK) {
		cli_error(cmd, "the measuring session did not succeed: nothing updated");
		goto out;
	}
	if (store_open(cli_db_path(db), STORE_READ, &st, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (session < 0)
		session = 0;
	if (cli_find_session(cmd, st, store_where(st), b.collector, b.size, &session) != 0)
		goto out;
	if (store_session_get(st, session, &si, &e) != 0 ||
	    store_session_builds(st, session, &builds, &nbuilds, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (cli_pick_build(cmd, builds, nbuilds, b.collector, build_name, session, &build) != 0)
		goto out;
	if (store_runs_load(st, session, build->position, &runs, &nruns, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	in.baseline = &b;
	in.session = &si;
	in.build = build;
	in.runs = runs;
	in.nruns = nruns;
	check_judge(&in, &res);
	if (res.why) {
		cli_error(cmd, "%s; %s is unchanged", res.why, path);
		goto out;
	}
	for (size_t i = 0; i < nruns; i++) {
		if (!runs[i].warmup && strcmp(runs[i].size, b.size) == 0 &&
		    runs[i].status != RUN_STATUS_OK) {
			cli_error(cmd,
			          "run %lld (%s) %s: a baseline is updated only from a session "
			          "whose runs all succeeded",
			          (long long)runs[i].id, runs[i].probe,
			          run_status_name(runs[i].status));
			goto out;
		}
		if (!runs[i].warmup && runs[i].checksum &&
		    baseline_probe_checksum(&b, runs[i].probe) &&
		    strcmp(baseline_probe_checksum(&b, runs[i].probe), runs[i].checksum) != 0) {
			cli_error(cmd,
			          "probe %s now prints %s, the baseline says %s: a changed result "
			          "is re-pinned deliberately (gcratchet baseline pin)",
			          runs[i].probe, runs[i].checksum,
			          baseline_probe_checksum(&b, runs[i].probe));
			goto out;
		}
	}

	who = baseline_cmd_who();
	format_utc(now_real_ns(), when, sizeof when);
	for (size_t i = 0; i < res.nrows; i++) {
		const struct check_row *row = &res.rows[i];
		struct baseline_cell *cell;
		char was[32], now[32];

		if (row->kind != CHECK_ROW_CELL)
			continue;
		if (row->state != CHECK_JUDGED) {
			unmeasured++;
			continue;
		}
		cell = baseline_cell_find(&b, row->probe, row->metric);
		metrics_format_value(cell->metric, cell->median, was, sizeof was);
		metrics_format_value(cell->metric, row->current, now, sizeof now);
		if (row->j.verdict == BASELINE_IMPROVED) {
			sbuf_addf(&diff, "  tightened %s %s: %s -> %s (%+.2f%%)\n", cell->probe,
			          cell->metric, was, now, row->j.delta_pct);
			baseline_cmd_repin_cell(cell, runs, nruns, b.size);
			changed++;
		} else if (row->j.verdict == BASELINE_REGRESSED && accept) {
			struct baseline_ledger_entry le = {
			    cell->probe,    cell->metric, cell->median, row->current,
			    (char *)accept, (char *)ref,  when,         who};
			sbuf_addf(&diff, "  loosened  %s %s: %s -> %s (%+.2f%%), ledger: %s\n",
			          cell->probe, cell->metric, was, now, row->j.delta_pct, accept);
			baseline_ledger_add(&b, &le);
			baseline_cmd_repin_cell(cell, runs, nruns, b.size);
			changed++;
		} else if (row->j.verdict == BASELINE_REGRESSED) {
			fprintf(stderr,
			        "gcratchet %s: %s %s regressed: %s -> %s (%+.2f%%, allowance used "
			        "%.0f%%)\n",
			        cmd, cell->probe, cell->metric, was, now, row->j.delta_pct,
			        100.0 * row->j.used);
			refused++;
		}
	}
	if (refused) {
		cli_error(cmd,
		          "refusing to loosen %d regressed cell%s without --accept \"reason\"; %s "
		          "is unchanged",
		          refused, refused == 1 ? "" : "s", path);
		rc = EXIT_REGRESSION;
		goto out;
	}
	/* "Every cell within its band" only when every cell was measured to say so. */
	if (!changed && unmeasured) {
		printf("%s: %zu of %zu cells within their band, %zu not measured in session %lld; "
		       "nothing to tighten, nothing written\n",
		       path, b.ncells - unmeasured, b.ncells, unmeasured, (long long)session);
		rc = EXIT_OK;
		goto out;
	}
	if (!changed) {
		printf("%s: every cell within its band; nothing to tighten, nothing written\n",
		       path);
		rc = EXIT_OK;
		goto out;
	}
	free(b.pinned_at);
	b.pinned_at = xstrdup(when);
	b.session = session;
	if (baseline_cmd_write(cmd, path, &b) != 0)
		goto out;
	printf("updated %s from session %lld (%d cell%s):\n%s", path, (long long)session, changed,
	       changed == 1 ? "" : "s", diff.data);
	rc = EXIT_OK;
out:
	free(who);
	check_result_release(&res);
	sbuf_release(&diff);
	baseline_release(&b);
	store_runs_release(runs, nruns);
	store_builds_release(builds, nbuilds);
	store_session_release(&si);
	store_close(st);
	free(path);
	return rc;
}

int cmd_baseline(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
	    {"--profile", 1},  {"--collector", 1}, {"--session", 1},
	    {"--db", 1},       {"--build", 1},     {"--out", 1},
	    {"--accept", 1},   {"--ref", 1},       {"--accept-noise", 1},
	    {"--vary-env", 1}, {"--meters", 1},    {"--minheap", 0},
	    {NULL, 0},
	};
	const char *cmd = "baseline", *opt, *val, *profile = NULL,
	           *collector = CLI_DEFAULT_COLLECTOR;
	const char *db = NULL, *build_name = NULL, *out_path = NULL, *action;
	const char *accept = NULL, *ref = NULL, *accept_noise = NULL, *meters = NULL;
	struct strlist pos = {0};
	struct cli_iter it;
	int64_t session = 0;
	uint64_t v;
	int rc = EXIT_UNJUDGED, r, vary_env = 0;

	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, &pos)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_command(cmd), 0);
			goto out;
		} else if (strcmp(opt, "--profile") == 0) {
			profile = val;
		} else if (strcmp(opt, "--collector") == 0) {
			collector = val;
		} else if (strcmp(opt, "--session") == 0) {
			/* "latest": the newest session of the collector, without measuring again. */
			if (strcmp(val, "latest") == 0) {
				session = -1;
				continue;
			}
			if (cli_parse_count(cmd, opt, val, 0, &v) != 0)
				goto out;
			session = (int64_t)v;
		} else if (strcmp(opt, "--accept") == 0) {
			if (!*val) {
				rc = cli_error(cmd, "--accept needs a reason");
				goto out;
			}
			accept = val;
		} else if (strcmp(opt, "--accept-noise") == 0) {
			if (!*val) {
				rc = cli_error(cmd, "--accept-noise needs a reason");
				goto out;
			}
			accept_noise = val;
		} else if (strcmp(opt, "--meters") == 0) {
			/* What pin measures with: bdwgc-incremental cannot run under valgrind. */
			meters = val;
		} else if (strcmp(opt, "--vary-env") == 0) {
			if (cli_parse_count(cmd, opt, val, 0, &v) != 0)
				goto out;
			if (v < 2 || v > BASELINE_VARY_MAX) {
				rc = cli_error(cmd, "--vary-env must be 2 to %d sessions, got %llu",
				               BASELINE_VARY_MAX, (unsigned long long)v);
				goto out;
			}
			vary_env = (int)v;
		} else if (strcmp(opt, "--ref") == 0) {
			ref = val;
		} else if (strcmp(opt, "--db") == 0) {
			db = val;
		} else if (strcmp(opt, "--build") == 0) {
			build_name = val;
		} else if (strcmp(opt, "--out") == 0) {
			out_path = val;
		} else if (strcmp(opt, "--minheap") == 0) {
			baseline_pin_minheap = 1;
		}
	}
	if (r < 0)
		goto out;
	if (pos.n == 0) {
		rc = cli_error(cmd, "missing action (valid: pin, update, validate)");
		goto out;
	}
	action = pos.items[0];
	if (strcmp(action, "validate") == 0) {
		struct strlist files = {0};
		for (size_t i = 1; i < pos.n; i++)
			strlist_push(&files, pos.items[i]);
		rc = baseline_cmd_validate(cmd, profile, collector, &files);
		strlist_release(&files);
	} else if (strcmp(action, "pin") == 0) {
		if (pos.n > 1) {
			rc = cli_error(cmd, "unexpected argument \"%s\"", pos.items[1]);
			goto out;
		}
		if (!profile) {
			rc = cli_error(cmd, "pin needs --profile (shared_ci or pinned_host)");
			goto out;
		}
		if (meters && session != 0) {
			rc = cli_error(cmd, "--meters says what pin measures with: it does not go "
			                    "with --session");
			goto out;
		}
		if (vary_env && session != 0) {
			rc = cli_error(cmd, "--vary-env measures its own sessions: it does not go "
			                    "with --session");
			goto out;
		}
		rc = baseline_cmd_pin(cmd, profile, collector, db, session, build_name, out_path,
		                      accept_noise, vary_env, meters);
	} else if (strcmp(action, "update") == 0) {
		if (!profile) {
			rc = cli_error(cmd, "update needs --profile (shared_ci or pinned_host)");
			goto out;
		}
		if (ref && !accept) {
			rc = cli_error(cmd, "--ref goes with --accept \"reason\"");
			goto out;
		}
		if (accept_noise || vary_env || meters) {
			rc = cli_error(cmd, "%s goes with pin: update keeps the pinned bands",
			               accept_noise ? "--accept-noise"
			               : vary_env   ? "--vary-env"
			                            : "--meters");
			goto out;
		}
		if (baseline_pin_minheap) {
			rc = cli_error(cmd,
			               "--minheap goes with pin: update keeps the pinned cells");
			goto out;
		}
		rc = baseline_cmd_update(cmd, profile, collector, db, session, build_name, out_path,
		                         accept, ref);
	} else {
		rc = cli_error(cmd, "unknown action \"%s\" (valid: pin, update, validate)", action);
	}
out:
	strlist_release(&pos);
	return rc;
}
