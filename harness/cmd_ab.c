/* gcratchet ab — A/B two collector builds: interleaved, paired, and reported. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "compare.h"
#include "meter_perf.h"
#include "meter_valgrind.h"
#include "report.h"
#include "report_html.h"
#include "report_json.h"
#include "report_md.h"
#include "report_text.h"
#include "quiet.h"
#include "session.h"
#include "store.h"

#define AB_DEFAULT_ROUNDS    7
#define AB_DEFAULT_WARMUP    1
#define AB_DEFAULT_TIMEOUT_S 300
/* Until a valgrind run has been timed, guess it costs this many timed runs. */
#define AB_VALGRIND_GUESS    40

static volatile sig_atomic_t ab_stop;

static void ab_on_signal(int sig)
{
	(void)sig;
	ab_stop = 1;
}

/* ---- Naming a side: a build folder, a shipped collector, or a git revision ------------- */

static char *ab_script_path(const char *root)
{
	const char *env = getenv("GCR_SCRIPTS_DIR");

	if (env && *env)
		return xasprintf("%s/build-rev.sh", env);
	return xasprintf("%s/../scripts/build-rev.sh", root);
}

/*
 * Runs scripts/build-rev.sh REV COLLECTOR with stdout captured and stderr passed through (the
 * user sees the build). Returns the script's exit status, or -1 when it could not run; *out is
 * the last line it printed.
 */
static int ab_run_build_rev(const char *script, const char *rev, const char *collector, char **out)
{
	int fd[2], status = 0;
	pid_t pid;
	struct sbuf b;
	char buf[4096];
	ssize_t n;

	*out = NULL;
	if (pipe(fd) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		char *argv[] = {(char *)"sh", (char *)script, (char *)rev, (char *)collector, NULL};
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp("sh", argv);
		_exit(127);
	}
	close(fd[1]);
	sbuf_init(&b);
	while ((n = read(fd[0], buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sbuf_add(&b, buf, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* The folder is the last line the script printed. */
	while (b.len > 0 && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == ' '))
		b.data[--b.len] = '\0';
	{
		char *last = strrchr(b.data, '\n');
		*out = xstrdup(last ? last + 1 : b.data);
	}
	sbuf_release(&b);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int ab_looks_like_path(const char *s)
{
	size_t n = strlen(s);

	return s[0] == '/' || strncmp(s, "./", 2) == 0 || strncmp(s, "../", 3) == 0 ||
	       (n > 0 && s[n - 1] == '/');
}

/*
 * Resolves one side: an existing folder is a build folder; else a shipped collector's name;
 * else something path-like is a (missing) folder; else REV[:COLLECTOR] is a git revision
 * built by scripts/build-rev.sh (COLLECTOR defaults to the default collector).
 */
static int ab_resolve(const char *cmd, const char *label, const char *root, const char *arg,
                      char **dir)
{
	struct strlist names = {0};
	char *script = NULL, *rev = NULL, *out = NULL, *valid = NULL;
	const char *collector = CLI_DEFAULT_COLLECTOR, *colon;
	int rc = -1, st;

	*dir = NULL;
	buildinfo_list(root, &names);
	if (access(arg, F_OK) == 0 || ab_looks_like_path(arg)) {
		*dir = xstrdup(arg);
		rc = 0;
		goto out;
	}
	if (strlist_contains(&names, arg)) {
		*dir = xasprintf("%s/collectors/%s", root, arg);
		rc = 0;
		goto out;
	}
	colon = strrchr(arg, ':');
	rev = colon ? xasprintf("%.*s", (int)(colon - arg), arg) : xstrdup(arg);
	if (colon)
		collector = colon + 1;
	valid = strlist_join(&names, ", ");
	if (!*rev || !*collector) {
		cli_error(cmd,
		          "%s \"%s\": expected a build folder, a shipped collector (%s) or "
		          "REV[:COLLECTOR]",
		          label, arg, valid);
		goto out;
	}
	script = ab_script_path(root);
	if (access(script, R_OK) != 0) {
		cli_error(cmd,
		          "%s \"%s\" is not a build folder or a shipped collector (%s), and %s is "
		          "missing, so it cannot be built as a git revision",
		          label, arg, valid, script);
		goto out;
	}
	fprintf(stderr, "gcratchet %s: %s: building revision %s, collector %s\n", cmd, label, rev,
	        collector);
	st = ab_run_build_rev(script, rev, collector, &out);
	if (st == 3) {
		cli_error(
		    cmd,
		    "%s \"%s\" is not a build folder, a shipped collector (%s) or a git revision",
		    label, arg, valid);
		goto out;
	}
	if (st != 0 || !out || !*out) {
		cli_error(cmd, "%s: building revision %s (collector %s) failed%s%s", label, rev,
		          collector, out && *out ? ": " : "", out ? out : "");
		goto out;
	}
	*dir = out;
	out = NULL;
	rc = 0;
out:
	strlist_release(&names);
	free(valid);
	free(script);
	free(rev);
	free(out);
	return rc;
}

/* ---- Progress on a terminal ----------------------------------------------------------- */

struct ab_progress {
	int tty;
	int64_t last_ns;
	int64_t timed_ns, valgrind_ns; /* time spent so far in each kind */
	int timed_runs, valgrind_runs;
	int timed_total, valgrind_total;
};

static void ab_format_eta(double s, char *buf, size_t size)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

static void ab_on_progress(void *ctx, const struct session_progress *p)
{
	struct ab_progress *pr = ctx;
	int64_t now = now_mono_ns(), dt = now - pr->last_ns;
	double timed_mean, vg_mean, eta;
	char where[48], eta_text[24];

	pr->last_ns = now;
	if (p->round == 0) {
		pr->valgrind_ns += dt;
		pr->valgrind_runs++;
	} else {
		pr->timed_ns += dt;
		pr->timed_runs++;
	}
	if (!pr->tty)
		return;
	timed_mean = pr->timed_runs ? (double)pr->timed_ns / pr->timed_runs / 1e9 : 0;
	vg_mean = pr->valgrind_runs ? (double)pr->valgrind_ns / pr->valgrind_runs / 1e9
	                            : timed_mean * AB_VALGRIND_GUESS;
	eta = (pr->timed_total - pr->timed_runs) * timed_mean +
	      (pr->valgrind_total - pr->valgrind_runs) * vg_mean;
	ab_format_eta(eta, eta_text, sizeof eta_text);
	if (p->round == 0)
		snprintf(where, sizeof where, "valgrind pass");
	else if (p->warmup)
		snprintf(where, sizeof where, "warm-up %d/%d", p->round, p->warmups);
	else
		snprintf(where, sizeof where, "round %d/%d", p->round - p->warmups,
		         p->rounds - p->warmups);
	/* \r and clear-to-end keep it to one line that rewrites itself. */
	fprintf(stderr, "\r\033[K%s  run %d/%d  %.30s on %.24s  %s  ETA %s", where, p->run_index,
	        p->run_total, p->run->probe, p->build->name, run_status_name(p->run->status),
	        eta_text);
	fflush(stderr);
}

/* ---- Output files --------------------------------------------------------------------- */

static int ab_write(const char *cmd, const char *path, const char *text)
{
	struct err e;

	if (write_file_atomic(path, text, strlen(text), &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	return 0;
}

/* Appends the Markdown to $GITHUB_STEP_SUMMARY when a GitHub Actions step runs us. */
static int ab_step_summary(const char *cmd, const char *md)
{
	const char *path = getenv("GITHUB_STEP_SUMMARY");
	FILE *f;
	int rc = 0;

	if (!path || !*path)
		return 0;
	f = fopen(path, "a");
	if (!f)
		return cli_error(cmd, "GITHUB_STEP_SUMMARY=%s: %s", path, strerror(errno));
	if (fputs(md, f) < 0 || fputs("\n", f) < 0)
		rc = cli_error(cmd, "GITHUB_STEP_SUMMARY=%s: write failed", path);
	if (fclose(f) != 0 && rc == 0)
		rc = cli_error(cmd, "GITHUB_STEP_SUMMARY=%s: %s", path, strerror(errno));
	return rc;
}

int ab_report_session(const char *cmd, struct store *st, int64_t session, const char *base_name,
                      const char *fix_name, const char *md_path, const char *json_path,
                      const char *html_path, int step_summary)
{
	struct report_data d;
	struct compare c;
	struct err e;
	char *text = NULL, *md = NULL;
	long base = 0, fix = 1;
	int rc = EXIT_UNJUDGED;

	memset(&c, 0, sizeof c);
	if (report_data_load(st, session, &d, &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	if (d.nbuilds < 2) {
		cli_error(cmd, "session %lld measured %zu build%s: a comparison needs two",
		          (long long)session, d.nbuilds, d.nbuilds == 1 ? "" : "s");
		goto out;
	}
	if (base_name && (base = report_data_build_named(&d, base_name)) < 0) {
		cli_error(cmd, "session %lld has no build named \"%s\"", (long long)session,
		          base_name);
		goto out;
	}
	if (fix_name && (fix = report_data_build_named(&d, fix_name)) < 0) {
		cli_error(cmd, "session %lld has no build named \"%s\"", (long long)session,
		          fix_name);
		goto out;
	}
	if (base == fix) {
		cli_error(cmd, "BASE and FIX are the same build: name two builds of the session");
		goto out;
	}
	compare_build(&d, (size_t)base, (size_t)fix, PAIRED_FDR_Q, &c);
	text = report_text_ab(&c);
	fputs(text, stdout);
	fflush(stdout);
	md = report_md_ab(&c);
	rc = c.outcome == COMPARE_WORSE      ? EXIT_REGRESSION
	     : c.outcome == COMPARE_UNJUDGED ? EXIT_UNJUDGED
	                                     : EXIT_OK;
	if (md_path && ab_write(cmd, md_path, md) != 0)
		rc = EXIT_UNJUDGED;
	if (json_path) {
		char *json = report_json_ab(&c);
		if (ab_write(cmd, json_path, json) != 0)
			rc = EXIT_UNJUDGED;
		free(json);
	}
	if (html_path) {
		char *html = report_html_ab(&c);
		if (ab_write(cmd, html_path, html) != 0)
			rc = EXIT_UNJUDGED;
		free(html);
	}
	if (step_summary && ab_step_summary(cmd, md) != 0)
		rc = EXIT_UNJUDGED;
out:
	free(md);
	free(text);
	compare_release(&c);
	report_data_release(&d);
	return rc;
}

/* ---- The command ---------------------------------------------------------------------- */

#define AB_LOCK_TIMEOUT_S 3600

int cmd_ab(int argc, char **argv)
{
	int lock_fd = -1;
	static const struct cli_opt opts[] = {
	    {"--rounds", 1},  {"--probes", 1}, {"--size", 1}, {"--meters", 1}, {"--seed", 1},
	    {"--md", 1},      {"--json", 1},   {"--html", 1}, {"--db", 1},     {"--warmup", 1},
	    {"--timeout", 1}, {"--events", 1}, {NULL, 0},
	};
	const char *cmd = "ab", *opt, *val, *db = NULL, *probes_arg = NULL, *meters_arg = NULL;
	const char *md_path = NULL, *json_path = NULL, *html_path = NULL, *events_arg = NULL;
	struct cli_iter it;
	struct strlist sides = {0};
	struct buildinfo builds[2];
	size_t nbuilds = 0;
	struct session_plan plan;
	struct session_outcome outcome;
	struct ab_progress progress;
	struct meter_valgrind vg = {0};
	struct meter_perf perf = {0};
	struct store *st = NULL;
	struct err e;
	struct sigaction sa;
	struct sbuf meters_text;
	char *root = buildinfo_root(), *command = NULL, *launcher = NULL, *dir = NULL;
	uint64_t v = 0;
	int rc = EXIT_UNJUDGED, r, have_seed = 0;

	memset(builds, 0, sizeof builds);
	memset(&plan, 0, sizeof plan);
	memset(&progress, 0, sizeof progress);
	plan.size = "ci";
	plan.rounds = AB_DEFAULT_ROUNDS;
	plan.warmup = AB_DEFAULT_WARMUP;
	plan.timeout_ms = AB_DEFAULT_TIMEOUT_S * 1000;
	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, &sides)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_command(cmd), 0);
			goto out;
		} else if (strcmp(opt, "--rounds") == 0) {
			if (cli_parse_count(cmd, opt, val, 0, &v) != 0)
				goto out;
			if (v > 10000) {
				rc = cli_error(cmd, "--rounds must be at most 10000");
				goto out;
			}
			plan.rounds = (int)v;
		} else if (strcmp(opt, "--warmup") == 0) {
			if (cli_parse_count(cmd, opt, val, 1, &v) != 0 || v > 1000)
				goto out;
			plan.warmup = (int)v;
		} else if (strcmp(opt, "--probes") == 0) {
			probes_arg = val;
		} else if (strcmp(opt, "--size") == 0) {
			if (strcmp(val, "ci") && strcmp(val, "default") && strcmp(val, "large")) {
				rc = cli_error(
				    cmd, "--size must be ci, default or large, got \"%s\"", val);
				goto out;
			}
			plan.size = val;
		} else if (strcmp(opt, "--meters") == 0) {
			meters_arg = val;
		} else if (strcmp(opt, "--seed") == 0) {
			if (cli_parse_count(cmd, opt, val, 1, &plan.seed) != 0 ||
			    plan.seed > INT64_MAX) {
				cli_error(cmd, "--seed must be below 2^63");
				goto out;
			}
			have_seed = 1;
		} else if (strcmp(opt, "--md") == 0) {
			md_path = val;
		} else if (strcmp(opt, "--json") == 0) {
			json_path = val;
		} else if (strcmp(opt, "--html") == 0) {
			html_path = val;
		} else if (strcmp(opt, "--db") == 0) {
			db = val;
		} else if (strcmp(opt, "--timeout") == 0) {
			if (cli_parse_count(cmd, opt, val, 0, &v) != 0)
				goto out;
			plan.timeout_ms = (int64_t)v * 1000;
		} else if (strcmp(opt, "--events") == 0) {
			events_arg = val;
		}
	}
	if (r < 0)
		goto out;
	if (sides.n != 2) {
		rc = cli_error(cmd,
		               "expected two builds, BASE and FIX, got %zu argument%s (see "
		               "gcratchet ab --help)",
		               sides.n, sides.n == 1 ? "" : "s");
		goto out;
	}

	/* Both sides must be usable before anything runs. */
	for (int side = 0; side < 2; side++) {
		const char *label = side ? "FIX" : "BASE";
		if (ab_resolve(cmd, label, root, sides.items[side], &dir) != 0)
			goto out;
		if (buildinfo_load(dir, &builds[side], &e) != 0) {
			rc = cli_error(cmd, "%s: %s", label, e.msg);
			goto out;
		}
		nbuilds++;
		free(dir);
		dir = NULL;
	}
	if (strcmp(builds[0].manifest_hash, builds[1].manifest_hash) == 0) {
		/*
		 * A/A: one build against itself. The store keys builds by manifest, so the second
		 * arm is recorded as a twin with its own name and identity, or the two arms' runs
		 * could not be told apart.
		 */
		uint64_t h = hash_fnv1a(builds[1].manifest_text, strlen(builds[1].manifest_text),
		                        HASH_FNV1A_SEED);
		char *name = xasprintf("%s-twin", builds[1].name);
		h = hash_fnv1a("ab-twin", 7, h);
		snprintf(builds[1].manifest_hash, sizeof builds[1].manifest_hash, "%016llx",
		         (unsigned long long)h);
		free(builds[1].name);
		builds[1].name = name;
		fprintf(
		    stderr,
		    "gcratchet %s: A/A: BASE and FIX are the same build; FIX is recorded as %s\n",
		    cmd, name);
	}

	if (cli_plan_meters(cmd, meters_arg, events_arg, &plan, &vg, &perf) != 0)
		goto out;

	if (cli_plan_probes(cmd, builds, 2, probes_arg, &plan) != 0)
		goto out;

	launcher = xasprintf("%s/gcratchet-launch", root);
	if (access(launcher, X_OK) != 0) {
		rc = cli_error(cmd, "%s is missing: run make", launcher);
		goto out;
	}
	if (!have_seed)
		plan.seed = cli_default_seed();
	plan.builds = builds;
	plan.nbuilds = 2;
	plan.launcher = launcher;
	command = cli_command_line(argc, argv);
	plan.command = command;
	plan.stop = &ab_stop;

	if (store_open(cli_db_path(db), STORE_WRITE, &st, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	/* The same bench lock as measure: an A/B must not share the host with another session. */
	if (quiet_lock(AB_LOCK_TIMEOUT_S, cli_waiting, (void *)cmd, &lock_fd, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ab_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	sbuf_init(&meters_text);
	cli_describe_meters(&plan, &meters_text);
	fprintf(stderr,
	        "gcratchet %s: BASE %s vs FIX %s: %zu probe%s, size %s, %d round%s + %d warm-up, "
	        "seed %llu\n"
	        "gcratchet %s: meters: %s\n",
	        cmd, builds[0].name, builds[1].name, plan.probes.n, plan.probes.n == 1 ? "" : "s",
	        plan.size, plan.rounds, plan.rounds == 1 ? "" : "s", plan.warmup,
	        (unsigned long long)plan.seed, cmd, meters_text.data);
	sbuf_release(&meters_text);
	progress.tty = isatty(2);
	progress.last_ns = now_mono_ns();
	progress.timed_total = (int)plan.probes.n * 2 * (plan.rounds + plan.warmup);
	progress.valgrind_total = plan.meters & SESSION_METER_VALGRIND ? (int)plan.probes.n * 2 : 0;
	r = session_run(&plan, st, ab_on_progress, &progress, &outcome, &e);
	if (progress.tty)
		fprintf(stderr, "\r\033[K");
	if (r != 0) {
		rc = cli_error(cmd, "%s%s", e.msg,
		               outcome.session_id ? " (runs stored so far are kept)" : "");
		goto out;
	}
	fprintf(stderr, "gcratchet %s: session %lld: %d run%s, %d failed%s; stored in %s\n", cmd,
	        (long long)outcome.session_id, outcome.runs, outcome.runs == 1 ? "" : "s",
	        outcome.runs_failed,
	        outcome.interrupted ? ", INTERRUPTED (finished runs are kept)" : "",
	        cli_db_path(db));
	rc = ab_report_session(cmd, st, outcome.session_id, NULL, NULL, md_path, json_path,
	                       html_path, 1);
out:
	quiet_unlock(lock_fd);
	store_close(st);
	for (size_t i = 0; i < nbuilds; i++)
		buildinfo_release(&builds[i]);
	strlist_release(&plan.probes);
	strlist_release(&sides);
	meter_valgrind_release(&vg);
	meter_perf_release(&perf);
	free(launcher);
	free(command);
	free(dir);
	free(root);
	return rc;
}
