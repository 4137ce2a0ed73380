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
#include "measuring.h"
#include "heapgate.h"
#include "hostinfo.h"
#include "judge.h"
#include "metrics.h"
#include "pin.h"
#include "report_check.h"
#include "session_opts.h"
#include "store.h"
#include "verdict.h"

/* A profile that gates time pins it from at least this many runs per cell. */
static int baseline_cmd_min_time_runs(void)
{
	return session_opts_default_rounds(SESSION_VERB_PIN_TIME);
}

/*
 * What the file makes detectable, as a ratchet would measure against it (its rounds, and up to
 * VERDICT_RATCHET_MAX_RUNS where a distribution cell is near its edge): a "can see" line and, when
 * some gated cell cannot see a change of 50%, an "INSENSITIVE" line naming them.
 */
static void baseline_cmd_print_sees(const struct baseline *b)
{
	struct check_result res;
	int runs = verdict_ratchet_rounds(b->profile);
	char *sees, *blind;

	check_baseline_sees(b, runs, VERDICT_RATCHET_MAX_RUNS, b->sensitivity_pct, &res);
	sees = report_check_sees(&res);
	blind = report_check_insensitive(&res);
	printf("  can see (a ratchet's %d runs): %s\n", runs, sees ? sees : "no gated cell");
	if (blind)
		printf("  INSENSITIVE: %s\n", blind);
	free(blind);
	free(sees);
	check_result_release(&res);
}

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
		/* What check, ratchet and update read through: one judgement of a file. */
		if (judge_baseline_load(paths.items[i], profile, &b, &e) != 0) {
			fprintf(stderr, "gcratchet %s: %s\n", cmd, e.msg);
			rc = EXIT_UNJUDGED;
			continue;
		}
		printf("ok: %s (profile %s, collector %s, %zu probes, %zu cells)\n",
		       cli_safe(paths.items[i]), cli_safe(b.profile), cli_safe(b.collector),
		       b.nprobes, b.ncells);
		baseline_cmd_print_sees(&b);
		baseline_release(&b);
	}
	strlist_release(&paths);
	return rc;
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
 * Writes a baseline file: only one that meets baseline_validate, so that a file this harness
 * writes is one it will read back and judge with (a bad number once came back as INT64_MIN and
 * every later check exited 2).
 */
static int baseline_cmd_write(const char *cmd, const char *path, const struct baseline *b)
{
	struct err e;
	char *text;
	int rc;

	if (baseline_validate(b, &e) != 0)
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

/*
 * pin and update without --session measure first, as `gcratchet measure` would with the
 * profile's needs: the ci size (update: the baseline's), 5 rounds after a warm-up (11 for a
 * profile that gates time), every meter the host has.
 */
static int baseline_cmd_measure(const char *profile, const char *collector, const char *build_dir,
                                const char *size, const char *db, const char *meters,
                                unsigned env_pad)
{
	struct session_opts o;
	struct err e;
	char *command = NULL, pad[32];
	int rc = EXIT_UNJUDGED;

	session_opts_init(&o, metrics_profile_gates_time(profile) ? SESSION_VERB_PIN_TIME
	                                                          : SESSION_VERB_PIN);
	if (session_opts_set_size(&o, size, &e) != 0) {
		rc = cli_error("measure", "%s", e.msg);
		goto out;
	}
	if (build_dir)
		strlist_push(&o.build_dirs, build_dir);
	else
		strlist_push(&o.collectors, collector);
	o.db = db ? xstrdup(db) : NULL;
	o.env_offset = env_pad;
	if (meters) {
		free(o.meters);
		o.meters = xstrdup(meters);
	}
	/* The session records the measure command that would repeat it. */
	snprintf(pad, sizeof pad, " --env-offset %u", env_pad);
	command = xasprintf("gcratchet measure %s %s --size %s --rounds %d --warmup %d%s%s%s",
	                    build_dir ? "--build" : "--collector",
	                    build_dir ? build_dir : collector, o.size, o.rounds, o.warmup,
	                    db ? " --db " : "", db ? db : "", env_pad ? pad : "");
	rc = measuring_session("measure", &o, command, MEASURING_VIEW_RUNS, NULL);
out:
	free(command);
	session_opts_release(&o);
	return rc;
}

/*
 * --vary-env: each sub-session pads every run's environment by up to this many bytes more than
 * the one before (session i: a seeded 0..i * step per run), so the stack starts somewhere else
 * in each; timed runs keep address-space randomisation on. What the hermetic runner fixes (the
 * environment's variables, cwd, the probe's path) it fixes for check too, so varying it would
 * measure nothing check can meet: the spread left is the stack's placement, ASLR and time.
 */
#define BASELINE_VARY_PAD_STEP 4096u
#define BASELINE_VARY_MAX      16
/* What pin measures when no session is given: enough sessions to see each cell's spread. */
#define BASELINE_VARY_DEFAULT  3

/* Measures `n` sub-sessions (see above); their ids in ids[0..n). -1 (printed) on a failure. */
static int baseline_cmd_vary_measure(const char *cmd, const char *profile, const char *collector,
                                     const char *build_dir, const char *db, const char *meters,
                                     int n, int64_t *ids)
{
	for (int i = 0; i < n; i++) {
		struct store *st = NULL;
		struct err e;
		int rc;

		printf("vary-env %d/%d: environment padded by up to %u bytes\n", i + 1, n,
		       (unsigned)i * BASELINE_VARY_PAD_STEP);
		fflush(stdout);
		if (baseline_cmd_measure(profile, collector, build_dir, "ci", db, meters,
		                         (unsigned)i * BASELINE_VARY_PAD_STEP) != EXIT_OK)
			return cli_error(cmd,
			                 "sub-session %d of --vary-env did not succeed: nothing "
			                 "pinned",
			                 i + 1);
		/* Complete, but the user asked to stop: no more sub-sessions. */
		if (measuring_stop_asked() && i + 1 < n)
			return cli_error(cmd,
			                 "interrupted after sub-session %d of %d of --vary-env: "
			                 "nothing pinned (its runs are stored)",
			                 i + 1, n);
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

/* 1 when `arg` is a folder holding a manifest.json: a build folder, not an arm's label. */
static int baseline_cmd_is_build_dir(const char *arg)
{
	char *path = xasprintf("%s/manifest.json", arg);
	struct stat sb;
	int yes = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);

	free(path);
	return yes;
}

/* What pin and update take from the command line. */
struct baseline_cmd_opts {
	const char *profile, *collector, *db, *build_name, *out_path;
	/* --build DIR naming a build folder (not an arm's label): what pin and update measure */
	const char *build_dir;
	const char *accept, *ref, *accept_noise, *meters;
	int64_t session;  /* 0: measure first; -1: the latest */
	int vary_env;     /* sessions pin measures, in varied environments */
	int minheap;      /* pin the stored minimum heaps too */
	int heap_limited; /* pin a sweep arm that ran at heap limits, on purpose */
};

/*
 * The session and arm to judge or pin: `session` (0: the newest complete one of the collector
 * at `size`), the arm of `collector` labelled `build_name` (any when NULL). Printed, -1.
 */
static int baseline_cmd_load(const char *cmd, struct store *st, const char *collector,
                             const char *size, const char *build_name, int64_t session,
                             struct judge_inputs *in)
{
	const struct store_build *build;
	struct err e;

	if (session < 0)
		session = 0;
	if (cli_find_session(cmd, st, store_where(st), collector, size, &session) != 0)
		return -1;
	if (judge_open(st, session, in, &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	if (cli_pick_build(cmd, in->builds, in->nbuilds, collector, build_name, session, &build) !=
	    0)
		return -1;
	if (judge_load_arm(st, in, build, NULL, &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	return 0;
}

/* 1 when the arm ran at a heap limit: a sweep's arm, or GCR_HEAP_MAX_MB among its knobs. */
static int baseline_cmd_heap_limited(const struct judge_inputs *in)
{
	if (in->nprobe_knobs)
		return 1;
	for (size_t i = 0; i < in->knobs.n; i++)
		if (strncmp(in->knobs.items[i], "GCR_HEAP_MAX_MB=", 16) == 0)
			return 1;
	return 0;
}

/*
 * A re-pin replaces the figures, not the history: the ledger entries of the file it replaces
 * (same profile and collector) whose cells it pins again are kept, and it says how many. An
 * unreadable old file keeps nothing and is replaced whole. Only a regular file is read: --out
 * naming a FIFO or a device is written through, and opening it to read would wait for a
 * writer that never comes (tests/cli/t110).
 */
static void baseline_cmd_keep_ledger(const char *path, struct baseline *b)
{
	struct baseline old;
	struct stat sb;
	struct err e;
	size_t kept = 0;

	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || baseline_load(path, &old, &e) != 0)
		return;
	/* What the team asked the file to see is a decision, not a measurement: it stays. */
	if (strcmp(old.profile, b->profile) == 0 && strcmp(old.collector, b->collector) == 0)
		b->sensitivity_pct = old.sensitivity_pct;
	if (strcmp(old.profile, b->profile) == 0 && strcmp(old.collector, b->collector) == 0)
		for (size_t i = 0; i < old.nledger; i++) {
			const struct baseline_ledger_entry *l = &old.ledger[i];
			struct baseline_cell cell = {0};
			if (!baseline_cell_find(b, l->probe, l->metric))
				continue;
			cell.probe = l->probe;
			cell.metric = l->metric;
			cell.median = l->old_value;
			baseline_ledger_add(b, &cell, l->new_value, l->reason, l->ref, l->date,
			                    l->who);
			kept++;
		}
	if (kept)
		printf("kept %zu ledger entr%s of the file it replaces\n", kept,
		       kept == 1 ? "y" : "ies");
	baseline_release(&old);
}

/*
 * pin: measures (o->vary_env sessions in varied environments) unless a session is given, loads
 * the arm, and pins what pin.h derives from its runs; the file records the knobs, THP condition,
 * toolchain and capabilities its cells depend on.
 */
static int baseline_cmd_pin(const char *cmd, const struct baseline_cmd_opts *o)
{
	struct store *st = NULL;
	struct judge_inputs in = {0};
	struct baseline b;
	struct pin_input pi = {0};
	struct strlist notes = {0};
	struct err e;
	char *path =
	    o->out_path ? xstrdup(o->out_path) : cli_baseline_path(o->profile, o->collector);
	char when[32], *who = NULL;
	int64_t vary_ids[BASELINE_VARY_MAX], session = o->session;
	int rc = EXIT_UNJUDGED, vary = 0;

	memset(&b, 0, sizeof b);
	if (session == 0) {
		vary = o->vary_env;
		if (baseline_cmd_vary_measure(cmd, o->profile, o->collector, o->build_dir, o->db,
		                              o->meters, vary, vary_ids) != 0)
			goto out;
		session = vary_ids[vary - 1];
	}
	if (store_open(cli_db_path(o->db), STORE_READ, &st, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (baseline_cmd_load(cmd, st, o->collector, "ci", o->build_name, session, &in) != 0)
		goto out;
	session = in.session.id;
	if (strcmp(in.session.status, "complete") != 0) {
		cli_error(cmd, "session %lld is %s: pin only from a complete session",
		          (long long)session, in.session.status);
		goto out;
	}
	if (baseline_cmd_heap_limited(&in) && !o->heap_limited) {
		cli_error(cmd,
		          "session %lld ran %s at heap limits (a sweep's arm, or GCR_HEAP_MAX_MB): "
		          "its cells are not a plain measurement; pin it on purpose with "
		          "--heap-limited, or pin from a session without limits",
		          (long long)session, in.build->label);
		goto out;
	}
	if (vary > 1 &&
	    baseline_cmd_pool_runs(cmd, st, vary_ids, (size_t)vary, session, o->collector,
	                           o->build_name, &in.runs, &in.nruns) != 0)
		goto out;
	if (o->minheap && in.heapgate.missing) {
		cli_error(
		    cmd,
		    "--minheap: %zu probe%s of session %lld ha%s no minimum heap stored for "
		    "build %s at size %s on this host: run gcratchet minheap --build %s --size "
		    "%s first",
		    in.heapgate.missing, in.heapgate.missing == 1 ? "" : "s", (long long)session,
		    in.heapgate.missing == 1 ? "s" : "ve", in.build->name, in.session.size,
		    in.build->dir, in.session.size);
		goto out;
	}
	/* Without --minheap the figure heapgate added is not pinned: drop it from the runs. */
	if (!o->minheap)
		for (size_t i = 0; i < in.nruns; i++)
			metric_set_remove(&in.runs[i].metrics, HEAPGATE_METRIC);
	pi.profile = o->profile;
	pi.caps = &in.caps;
	pi.runs = in.runs;
	pi.nruns = in.nruns;
	pi.minheap = o->minheap ? &in.heapgate : NULL;
	if (pin_derive(&pi, &b, &notes, &e) != 0) {
		cli_error(cmd, "session %lld: %s", (long long)session, e.msg);
		goto out;
	}
	for (size_t i = 0; i < notes.n; i++)
		printf("%s\n", notes.items[i]);
	format_utc(now_real_ns(), when, sizeof when);
	b.profile = xstrdup(o->profile);
	b.collector = xstrdup(in.build->collector);
	b.collector_version =
	    xstrdup(in.build->collector_version ? in.build->collector_version : "");
	b.git_commit = xstrdup(in.build->git_commit ? in.build->git_commit : "unknown");
	b.host_fingerprint = xstrdup(in.session.host_fingerprint);
	b.hostname = xstrdup(in.session.hostname ? in.session.hostname : "unknown");
	/* What check names when another host differs (hostinfo.h, "host facts"). */
	hostinfo_facts_copy(&b.host_facts, &in.host);
	b.host_facts_known = 1;
	/* A baseline keeps what identifies the code, not how the compiler was invoked. */
	toolchain_copy(&b.toolchain, &in.toolchain);
	free(b.toolchain.cc);
	free(b.toolchain.cc_version);
	b.toolchain.cc = b.toolchain.cc_version = NULL;
	b.pinned_at = xstrdup(when);
	b.session = session;
	b.size = xstrdup(in.session.size);
	b.repeats = in.session.rounds;
	b.knobs_known = 1;
	for (size_t i = 0; i < in.knobs.n; i++)
		strlist_push(&b.knobs, in.knobs.items[i]);
	for (size_t i = 0; i < in.nprobe_knobs; i++)
		for (size_t p = 0; p < b.nprobes; p++)
			if (strcmp(b.probes[p].name, in.probe_knobs[i].probe) == 0)
				for (size_t k = 0; k < in.probe_knobs[i].knobs.n; k++)
					strlist_push(&b.probes[p].knobs,
					             in.probe_knobs[i].knobs.items[k]);
	b.thp = in.thp;
	b.thp_known = 1;
	b.caps = in.caps;
	b.caps.unknown = 0;
	if (vary > 1) {
		b.vary_env.nsessions = (size_t)vary;
		b.vary_env.sessions = xcalloc((size_t)vary, sizeof *b.vary_env.sessions);
		memcpy(b.vary_env.sessions, vary_ids, (size_t)vary * sizeof *vary_ids);
		b.vary_env.pad_step_bytes = BASELINE_VARY_PAD_STEP;
	}
	{
		struct strlist parts = {0};
		strlist_split(&parts, in.session.meters);
		for (size_t i = 0; i < parts.n; i++) {
			parts.items[i][strcspn(parts.items[i], ":")] = '\0';
			if (!strlist_contains(&b.meters, parts.items[i]))
				strlist_push(&b.meters, parts.items[i]);
		}
		strlist_release(&parts);
	}
	baseline_cmd_keep_ledger(path, &b);
	who = baseline_cmd_who();
	if (baseline_cmd_time_runs(cmd, &b) != 0 ||
	    baseline_cmd_time_noise(cmd, &b, &in.session, o->accept_noise, who, when) != 0)
		goto out;
	if (baseline_cmd_mkdir(cmd, path) != 0 || baseline_cmd_write(cmd, path, &b) != 0)
		goto out;
	{
		char *caps = caps_describe(&in.caps);
		printf("pinned %s: profile %s, collector %s %s, session %lld, size %s, %zu probes, "
		       "%zu cells (capabilities: %s)\n",
		       cli_safe(path), o->profile, cli_safe(b.collector),
		       cli_safe(b.collector_version), (long long)session, b.size, b.nprobes,
		       b.ncells, caps);
		free(caps);
		baseline_cmd_print_sees(&b);
	}
	if (vary > 1) {
		printf("pooled from %d sessions in varied environments:", vary);
		for (int i = 0; i < vary; i++)
			printf(" %lld", (long long)vary_ids[i]);
		printf(" (%zu cells widened for the spread of their runs)\n", b.noverrides);
	} else {
		printf("pinned from one session: the spread across environments was not measured "
		       "(pin without --session measures %d)\n",
		       BASELINE_VARY_DEFAULT);
	}
	rc = EXIT_OK;
out:
	free(who);
	strlist_release(&notes);
	/* b.caps was copied by value: nothing of it to free. */
	baseline_release(&b);
	judge_release(&in);
	store_close(st);
	free(path);
	return rc;
}

/*
 * update: judges every pinned cell on a new session as check does (judge.h: the same toolchain,
 * capabilities, knobs and THP comparison), then carries out pin.h's plan: improved cells are
 * tightened on their own, regressed ones loosened only with --accept (each then gets a ledger
 * entry), nothing is written while a regression is refused, and a cell check could not judge
 * is left as it is. What check could not judge as a whole updates nothing.
 */
static int baseline_cmd_update(const char *cmd, const struct baseline_cmd_opts *o)
{
	struct store *st = NULL;
	struct judge_inputs in = {0};
	struct baseline b;
	struct check_input ci;
	struct check_result res = {0};
	struct pin_update_plan plan = {0};
	struct err e;
	char *path =
	    o->out_path ? xstrdup(o->out_path) : cli_baseline_path(o->profile, o->collector);
	char *who = NULL, when[32];
	int rc = EXIT_UNJUDGED;
	size_t changed;

	if (judge_baseline_load(path, o->profile, &b, &e) != 0) {
		cli_error(cmd, "%s%s", e.msg,
		          e.code == ERR_NOT_FOUND ? " (pin one first: gcratchet baseline pin)"
		                                  : "");
		goto out;
	}
	if (o->session == 0 && baseline_cmd_measure(o->profile, b.collector, o->build_dir, b.size,
	                                            o->db, NULL, 0) != EXIT_OK) {
		cli_error(cmd, "the measuring session did not succeed: nothing updated");
		goto out;
	}
	if (store_open(cli_db_path(o->db), STORE_READ, &st, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (baseline_cmd_load(cmd, st, b.collector, b.size, o->build_name,
	                      o->session > 0 ? o->session : 0, &in) != 0)
		goto out;
	judge_check_input(&in, &b, 0, &ci);
	check_judge(&ci, &res);
	if (res.why) {
		cli_error(cmd, "%s; %s is unchanged", res.why, path);
		goto out;
	}
	for (size_t i = 0; i < in.nruns; i++) {
		const struct store_run *r = &in.runs[i];
		const char *want = baseline_probe_checksum(&b, r->probe);
		if (!r->warmup && strcmp(r->size, b.size) == 0 && r->status != RUN_STATUS_OK) {
			cli_error(
			    cmd,
			    "run %lld (%s) %s: a baseline is updated only from a session whose "
			    "runs all succeeded",
			    (long long)r->id, r->probe, run_status_name(r->status));
			goto out;
		}
		if (!r->warmup && r->checksum && want && strcmp(want, r->checksum) != 0) {
			cli_error(
			    cmd,
			    "probe %s now prints %s, the baseline says %s: a changed result is "
			    "re-pinned deliberately (gcratchet baseline pin)",
			    r->probe, r->checksum, want);
			goto out;
		}
	}
	for (size_t i = 0; i < res.stale.n; i++)
		printf("STALE: %s\n", res.stale.items[i]);
	pin_update_plan(&res, &b, o->accept != NULL, &plan);
	for (size_t i = 0; i < plan.n; i++) {
		const struct pin_update_cell *c = &plan.cells[i];
		char was[32], now[32];
		metrics_format_value(c->metric, c->was, was, sizeof was);
		metrics_format_value(c->metric, c->now, now, sizeof now);
		if (c->action == PIN_UPDATE_TIGHTEN)
			printf("  tightened %s %s: %s -> %s (%+.2f%%)\n", c->probe, c->metric, was,
			       now, c->delta_pct);
		else if (c->action == PIN_UPDATE_LOOSEN)
			printf("  loosened  %s %s: %s -> %s (%+.2f%%), ledger: %s\n", c->probe,
			       c->metric, was, now, c->delta_pct, o->accept);
		else if (c->action == PIN_UPDATE_REFUSE)
			fprintf(stderr,
			        "gcratchet %s: %s %s regressed: %s -> %s (%+.2f%%, allowance used "
			        "%.0f%%)\n",
			        cmd, c->probe, c->metric, was, now, c->delta_pct, 100.0 * c->used);
	}
	if (plan.refused) {
		cli_error(cmd,
		          "refusing to loosen %zu regressed cell%s without --accept \"reason\"; %s "
		          "is unchanged",
		          plan.refused, plan.refused == 1 ? "" : "s", path);
		rc = EXIT_REGRESSION;
		goto out;
	}
	who = baseline_cmd_who();
	format_utc(now_real_ns(), when, sizeof when);
	changed = pin_update_apply(&plan, &b, in.runs, in.nruns, o->accept, o->ref, when, who);
	if (!changed) {
		/* "Every cell within its band" only when every cell was judged to say so. */
		if (plan.unjudged)
			printf(
			    "%s: %zu of %zu cells within their band, %zu not judged in session "
			    "%lld (not measured, or not comparable); nothing to tighten, nothing "
			    "written\n",
			    path, plan.n - plan.unjudged, plan.n, plan.unjudged,
			    (long long)in.session.id);
		else
			printf(
			    "%s: every cell within its band; nothing to tighten, nothing written\n",
			    path);
		rc = EXIT_OK;
		goto out;
	}
	free(b.pinned_at);
	b.pinned_at = xstrdup(when);
	b.session = in.session.id;
	if (baseline_cmd_write(cmd, path, &b) != 0)
		goto out;
	printf("updated %s from session %lld (%zu cell%s)\n", path, (long long)in.session.id,
	       changed, changed == 1 ? "" : "s");
	rc = EXIT_OK;
out:
	free(who);
	pin_update_plan_release(&plan);
	check_result_release(&res);
	baseline_release(&b);
	judge_release(&in);
	store_close(st);
	free(path);
	return rc;
}

/*
 * pin measures --collector NAME from the shipped build of that name: -1 (printed) when there is
 * none, saying what pins a build elsewhere or one already measured.
 */
static int baseline_cmd_unknown_collector(const char *cmd, const char *collector, const char *label)
{
	struct strlist names = {0};
	char *root = buildinfo_root(), *valid;
	int rc = 0;

	buildinfo_list(root, &names);
	if (!strlist_contains(&names, collector)) {
		valid = strlist_join(&names, ", ");
		cli_error(cmd,
		          "pin --collector %s: no shipped build of that name (valid: %s); pin a "
		          "build folder with --build DIR (its manifest names the collector), or a "
		          "session already measured with --session N%s",
		          collector, names.n ? valid : "none built: run make",
		          label ? " (--build here is an arm's label, not a folder)" : "");
		free(valid);
		rc = -1;
	}
	free(root);
	strlist_release(&names);
	return rc;
}

/*
 * --build takes a build folder, as on every other verb, or an arm's label in a stored session:
 * a folder is measured, and its manifest names the collector keyed by (loaded into *bi, which
 * o then borrows from). -1 (printed) when it cannot be loaded or names another collector.
 */
static int baseline_cmd_build_dir(const char *cmd, struct baseline_cmd_opts *o, int collector_given,
                                  struct buildinfo *bi, int *have_bi)
{
	struct err e;

	if (!o->build_name || !baseline_cmd_is_build_dir(o->build_name))
		return 0;
	if (buildinfo_load(o->build_name, bi, &e) != 0) {
		cli_error(cmd, "--build %s: %s", o->build_name, e.msg);
		return -1;
	}
	*have_bi = 1;
	if (collector_given && strcmp(o->collector, bi->collector) != 0) {
		cli_error(cmd,
		          "--build %s is a build of collector %s, --collector says %s: give one",
		          o->build_name, bi->collector, o->collector);
		return -1;
	}
	o->build_dir = o->build_name;
	o->collector = bi->collector;
	o->build_name = bi->name;
	return 0;
}

/* What pin refuses before it measures: -1, printed. */
static int baseline_cmd_pin_args(const char *cmd, const struct baseline_cmd_opts *o, int vary_given)
{
	if (!o->profile) {
		cli_error(cmd, "pin needs --profile (shared_ci or pinned_host)");
		return -1;
	}
	if (o->meters && o->session != 0) {
		cli_error(cmd, "--meters says what pin measures with: it does not go with "
		               "--session");
		return -1;
	}
	if (vary_given && o->session != 0) {
		cli_error(cmd, "--vary-env measures its own sessions: it does not go with "
		               "--session");
		return -1;
	}
	/* A name that is no shipped build is refused before a minute of measuring. */
	if (o->session == 0 && !o->build_dir &&
	    baseline_cmd_unknown_collector(cmd, o->collector, o->build_name) != 0)
		return -1;
	return 0;
}

/* What update refuses: -1, printed. pin's options are taken only to say they are pin's. */
static int baseline_cmd_update_args(const char *cmd, const struct baseline_cmd_opts *o,
                                    int vary_given)
{
	if (!o->profile) {
		cli_error(cmd, "update needs --profile (shared_ci or pinned_host)");
		return -1;
	}
	if (o->ref && !o->accept) {
		cli_error(cmd, "--ref goes with --accept \"reason\"");
		return -1;
	}
	if (o->accept_noise || vary_given || o->meters || o->minheap || o->heap_limited) {
		cli_error(cmd, "%s goes with pin: update keeps the pinned bands and cells",
		          o->accept_noise ? "--accept-noise"
		          : vary_given    ? "--vary-env"
		          : o->meters     ? "--meters"
		          : o->minheap    ? "--minheap"
		                          : "--heap-limited");
		return -1;
	}
	return 0;
}

/* baseline's subcommands, in cmd_baseline.subs */
enum { BASELINE_PIN, BASELINE_UPDATE, BASELINE_VALIDATE };

static int baseline_main(int argc, char **argv)
{
	const char *cmd = cmd_baseline.name;
	const struct cli_verb *sub;
	struct baseline_cmd_opts o = {0};
	struct strlist pos = {0};
	struct buildinfo bi = {0};
	int rc = EXIT_UNJUDGED, r, vary_given, collector_given, have_bi = 0;

	if (argc < 2 || strncmp(argv[1], "-", 1) == 0) {
		if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
			return cli_usage(&cmd_baseline, 0);
		return cli_error(cmd, "missing action (valid: pin, update, validate)");
	}
	sub = cli_find_sub(&cmd_baseline, argv[1]);
	if (!sub)
		return cli_error(cmd, "unknown action \"%s\" (valid: pin, update, validate)",
		                 argv[1]);
	r = cli_parse(sub, argc - 1, argv + 1, &o, &pos);
	if (r != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	vary_given = o.vary_env != 0;
	if (!vary_given)
		o.vary_env = BASELINE_VARY_DEFAULT;
	collector_given = o.collector != NULL;
	if (!collector_given)
		o.collector = CLI_DEFAULT_COLLECTOR;
	if (baseline_cmd_build_dir(cmd, &o, collector_given, &bi, &have_bi) != 0)
		goto out;
	if (sub == &cmd_baseline.subs[BASELINE_VALIDATE]) {
		rc = baseline_cmd_validate(cmd, o.profile, o.collector, &pos);
	} else if (sub == &cmd_baseline.subs[BASELINE_PIN]) {
		if (pos.n > 0) {
			rc = cli_error(cmd, "unexpected argument \"%s\"", pos.items[0]);
			goto out;
		}
		if (baseline_cmd_pin_args(cmd, &o, vary_given) != 0)
			goto out;
		rc = baseline_cmd_pin(cmd, &o);
	} else {
		if (baseline_cmd_update_args(cmd, &o, vary_given) != 0)
			goto out;
		rc = baseline_cmd_update(cmd, &o);
	}
out:
	if (have_bi)
		buildinfo_release(&bi);
	strlist_release(&pos);
	return rc;
}

/* --accept and --accept-noise: a reason, which a ledger entry or the file records. */
static int baseline_reason_row(void *field, const struct cli_option *row, const char *val,
                               struct err *e)
{
	if (!*val)
		return err_setc(e, ERR_INVALID, "%s needs a reason", row->name);
	*(const char **)field = val;
	return 0;
}

static int baseline_vary_row(void *field, const struct cli_option *row, const char *val,
                             struct err *e)
{
	struct cli_option positive = *row;
	uint64_t v;

	positive.min = 1;
	positive.max = 0;
	if (cli_count(&positive, val, &v, e) != 0)
		return -1;
	if (v < row->min || v > row->max)
		return err_setc(e, ERR_INVALID, "%s must be %d to %d sessions, got %llu", row->name,
		                (int)row->min, (int)row->max, (unsigned long long)v);
	*(int *)field = (int)v;
	return 0;
}

#define BO(field) offsetof(struct baseline_cmd_opts, field)
/* What pin alone takes; update takes them hidden, to say they go with pin. */
#define BASELINE_PIN_ROWS(flags_)                                                               \
	{"--accept-noise",                                                                      \
	 "REASON",                                                                              \
	 CLI_CALL,                                                                              \
	 BO(accept_noise),                                                                      \
	 .call = baseline_reason_row,                                                           \
	 .flags = (flags_),                                                                     \
	 .help = "pin a gated time cell that spread beyond its band anyway, recording why"},    \
	    {"--vary-env",                                                                      \
	     "N",                                                                               \
	     CLI_CALL,                                                                          \
	     BO(vary_env),                                                                      \
	     2,                                                                                 \
	     BASELINE_VARY_MAX,                                                                 \
	     .call = baseline_vary_row,                                                         \
	     .flags = (flags_),                                                                 \
	     .help = "measure N sessions (2 to 16) in varied environments and pool their runs " \
	             "(default 3)"},                                                            \
	    {"--meters",                                                                        \
	     "LIST",                                                                            \
	     CLI_STRING,                                                                        \
	     BO(meters),                                                                        \
	     .flags = (flags_),                                                                 \
	     .help = "the meters pin measures with (default: every meter the host has)"},       \
	    {"--minheap",                                                                       \
	     NULL,                                                                              \
	     CLI_FLAG,                                                                          \
	     BO(minheap),                                                                       \
	     .flags = (flags_),                                                                 \
	     .help = "also pin each probe's minimum heap from gcratchet minheap's answers"},    \
	{                                                                                       \
		"--heap-limited", NULL, CLI_FLAG, BO(heap_limited),                             \
		    .flags = (flags_),                                                          \
		    .help = "pin a session that ran at heap limits (a sweep's arm) on purpose"  \
	}

enum { BASELINE_OPT_PIN = 1u << 0, BASELINE_OPT_UPDATE = 1u << 1, BASELINE_OPT_VALIDATE = 1u << 2 };
static const struct cli_option baseline_options[] = {
    {"--profile", "shared_ci|pinned_host", CLI_STRING, BO(profile),
     .group = BASELINE_OPT_PIN | BASELINE_OPT_UPDATE, .flags = CLI_REQUIRED,
     .help = "the baseline profile (required)"},
    {"--collector", "NAME", CLI_STRING, BO(collector),
     .group = BASELINE_OPT_PIN | BASELINE_OPT_UPDATE | BASELINE_OPT_VALIDATE,
     .help = "the collector whose baseline it is (default " CLI_DEFAULT_COLLECTOR ")"},
    {"--session", "N|latest", CLI_SESSION, BO(session), .values = "latest",
     .group = BASELINE_OPT_PIN | BASELINE_OPT_UPDATE,
     .help = "a session already measured (latest: the newest of the collector) instead of "
             "measuring"},
    {"--build", "NAME", CLI_STRING, BO(build_name), .group = BASELINE_OPT_PIN | BASELINE_OPT_UPDATE,
     .help = "a build folder to measure (its manifest names the collector), or the arm of the "
             "session by its label"},
    {"--accept", "REASON", CLI_CALL, BO(accept), .call = baseline_reason_row,
     .group = BASELINE_OPT_UPDATE,
     .help = "loosen the regressed cells, with a ledger entry giving this reason"},
    {"--ref", "URL", CLI_STRING, BO(ref), .group = BASELINE_OPT_UPDATE,
     .help = "the ledger entry's reference (with --accept)"},
    {"--out", "FILE", CLI_STRING, BO(out_path), .group = BASELINE_OPT_PIN | BASELINE_OPT_UPDATE,
     .help = "the baseline file (default baselines/<profile>/<collector>.json)"},
    {"--db", "FILE", CLI_STRING, BO(db), .group = BASELINE_OPT_PIN | BASELINE_OPT_UPDATE,
     .help = "the database (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {0},
};

static const struct cli_option baseline_pin_options[] = {
    {.name = "baseline's options",
     .kind = CLI_INCLUDE,
     .rows = baseline_options,
     .group = BASELINE_OPT_PIN},
    BASELINE_PIN_ROWS(0),
    {0},
};

static const struct cli_option baseline_update_options[] = {
    {.name = "baseline's options",
     .kind = CLI_INCLUDE,
     .rows = baseline_options,
     .group = BASELINE_OPT_UPDATE},
    BASELINE_PIN_ROWS(CLI_HIDDEN),
    {0},
};

static const struct cli_option baseline_validate_options[] = {
    /* Files named need no profile. */
    {"--profile", "shared_ci|pinned_host", CLI_STRING, BO(profile),
     .help = "the profile whose committed file is validated (when no FILE is named)"},
    {.name = "baseline's options",
     .kind = CLI_INCLUDE,
     .rows = baseline_options,
     .group = BASELINE_OPT_VALIDATE},
    {0},
};
#undef BASELINE_PIN_ROWS
#undef BO

#define BASELINE_PIN_PROSE                                                                        \
	"pin measures the collector (ci size, 5 rounds after a warm-up, every meter the host "    \
	"has),\n"                                                                                 \
	"or takes --session N (latest: the newest that measured the collector), and writes\n"     \
	"baselines/<P>/<collector>.json: every probe's checksum, every cell (median, min, max, "  \
	"n)\n"                                                                                    \
	"and the profile's default rule for each metric. Only sessions whose runs all "           \
	"succeeded.\n"                                                                            \
	"A profile that gates time (pinned_host) is measured over 11 rounds and pinned from no\n" \
	"fewer; when a gated time cell spread beyond the band over them, pin refuses (exit 2),\n" \
	"naming the noisiest cells, the host's state and the fixes, unless --accept-noise\n"      \
	"\"reason\" records the decision in the file beside the widened cells. --vary-env N\n"    \
	"(2 to 16) measures N sessions, the i-th with every run's environment padded by up to\n"  \
	"(i-1) * 4096 bytes and ASLR on for timed runs, pools their runs per cell, widens a "     \
	"cell\n"                                                                                  \
	"whose pooled spread exceeds its band, and records the sessions in \"vary_env\".\n"       \
	"Each rule has a class: exact, banded, quantile (judged on the min of the runs) or "      \
	"info.\n"                                                                                 \
	"--heap-limited pins a session that ran at heap limits (a sweep's arm), refused "         \
	"otherwise.\n"                                                                            \
	"--minheap also pins each probe's minimum heap (minheap.min_heap_mib) from the newest\n"  \
	"answers gcratchet minheap stored for the build; check then judges a probe that needs "   \
	"more\n"                                                                                  \
	"heap as REGRESSED (docs/sweeps.md, \"The min-heap ratchet\").\n"
#define BASELINE_UPDATE_PROSE                                                                      \
	"update measures again (or takes --session) and judges every pinned cell: an improved\n"   \
	"cell is tightened to the new figures on its own; a regressed one is loosened only with\n" \
	"--accept \"reason\", which adds a ledger entry (cell, old and new value, reason, "        \
	"--ref,\n"                                                                                 \
	"date, who: $GCR_WHO, git's user.name or $USER). It prints what it changed; the file is\n" \
	"written whole or not at all (a temporary file, then rename).\n"
#define BASELINE_VALIDATE_PROSE                                                                  \
	"validate checks profile files without measuring, as check, ratchet and update check\n"  \
	"the file they read: a cell whose pinning runs spread beyond its band, and a rule "      \
	"looser\n"                                                                               \
	"than what pin writes for the file's profile and capabilities with no override saying\n" \
	"why, are refused (docs/baselines.md, \"What a hand edit must justify\").\n"

static const struct cli_verb baseline_subs[] = {
    [BASELINE_PIN] = {.name = "baseline pin",
                      .summary = "pin a baseline profile from a session",
                      .description = BASELINE_PIN_PROSE,
                      .options = baseline_pin_options,
                      .parent = &cmd_baseline},
    [BASELINE_UPDATE] = {.name = "baseline update",
                         .summary = "tighten (or, accepted, loosen) a baseline from a session",
                         .description = BASELINE_UPDATE_PROSE,
                         .options = baseline_update_options,
                         .parent = &cmd_baseline},
    [BASELINE_VALIDATE] = {.name = "baseline validate",
                           .summary = "check baseline files without measuring",
                           .args = "[FILE...]",
                           .description = BASELINE_VALIDATE_PROSE,
                           .options = baseline_validate_options,
                           .parent = &cmd_baseline},
    {0},
};

const struct cli_verb cmd_baseline = {
    .name = "baseline",
    .summary = "pin a baseline profile from a session, or validate one",
    .description = BASELINE_PIN_PROSE BASELINE_UPDATE_PROSE BASELINE_VALIDATE_PROSE,
    .exit_status = "0 done; 1 update refused to loosen a regressed cell without --accept; 2 a "
                   "bad file, a failed run in the session, or bad arguments.",
    .subs = baseline_subs,
    .run = baseline_main,
};
