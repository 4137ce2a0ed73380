/* gcratchet ab — A/B two collector builds: interleaved, paired, and reported. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buildinfo.h"
#include "cli.h"
#include "meter_perf.h"
#include "cmds.h"
#include "compare.h"
#include "progress.h"
#include "report.h"
#include "report_html.h"
#include "report_json.h"
#include "report_md.h"
#include "report_text.h"
#include "session.h"
#include "session_opts.h"
#include "store.h"

/* ---- Naming a side: a build folder, a shipped collector, or a git revision ------------- */

/*
 * Runs scripts/build-rev.sh REV COLLECTOR with stdout captured and stderr passed through (the
 * user sees the build). Returns the script's exit status, or -1 when it could not run; *out is
 * the last line it printed.
 */
static int ab_run_build_rev(const char *script, const char *rev, const char *collector, char **out)
{
	char *argv[] = {(char *)"sh", (char *)script, (char *)rev, (char *)collector, NULL};
	struct sbuf b;
	char *last;
	int st;

	sbuf_init(&b);
	st = run_capture(argv, 0, &b);
	/* The folder is the last line the script printed. */
	while (b.len > 0 && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == ' '))
		b.data[--b.len] = '\0';
	last = strrchr(b.data, '\n');
	*out = xstrdup(last ? last + 1 : b.data);
	sbuf_release(&b);
	return st;
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
	script = cli_script_path(root, "build-rev.sh");
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

/* ---- Progress, on stderr (progress.h) ------------------------------------------------ */

struct ab_progress {
	struct progress *estimate;
	struct progress_display display;
};

static void ab_on_progress(void *ctx, const struct session_progress *p)
{
	struct ab_progress *pr = ctx;

	progress_report(pr->estimate, p);
	progress_display_update(&pr->display, pr->estimate, p);
}

/* ---- Output files --------------------------------------------------------------------- */

static int ab_write(const char *cmd, const char *path, const char *text)
{
	struct err e;

	if (write_file_atomic(path, text, strlen(text), &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	return 0;
}

int ab_parse_across(const char *cmd, const char *opt, int *mode)
{
	int want;

	if (strcmp(opt, "--across") == 0)
		want = COMPARE_MODE_ACROSS;
	else if (strcmp(opt, "--no-across") == 0)
		want = COMPARE_MODE_SAME;
	else
		return 0;
	if (*mode != COMPARE_MODE_AUTO && *mode != want) {
		cli_error(cmd, "--across and --no-across contradict each other: give one");
		return -1;
	}
	*mode = want;
	return 1;
}

int ab_report_session(const char *cmd, struct store *st, int64_t session, const char *base_name,
                      const char *fix_name, int across, const char *md_path, const char *json_path,
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
	if (base_name && (base = report_data_arm_named(&d, base_name)) < 0) {
		cli_error(cmd, "session %lld has no arm labelled \"%s\"", (long long)session,
		          base_name);
		goto out;
	}
	if (fix_name && (fix = report_data_arm_named(&d, fix_name)) < 0) {
		cli_error(cmd, "session %lld has no arm labelled \"%s\"", (long long)session,
		          fix_name);
		goto out;
	}
	if (base == fix) {
		cli_error(cmd, "BASE and FIX are the same arm: name two arms of the session");
		goto out;
	}
	compare_build(&d, (size_t)base, (size_t)fix, PAIRED_FDR_Q, (enum compare_mode)across, &c);
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
	if (step_summary && report_step_summary(md, &e) != 0)
		rc = cli_error(cmd, "%s", e.msg);
out:
	free(md);
	free(text);
	compare_release(&c);
	report_data_release(&d);
	return rc;
}

/* ---- The command ---------------------------------------------------------------------- */

/*
 * Resolves and loads BASE and FIX into the session as its two arms, each with its knobs;
 * both must be usable before anything runs. An A/A (one build against itself, with or
 * without knobs) is two arms of one build: the store keeps the build once, and the runs are
 * told apart by their arm.
 */
static int ab_add_sides(const char *cmd, const char *root, const struct strlist *sides,
                        const struct strlist knobs[2], struct session_setup *s)
{
	struct buildinfo b[2];
	struct err e;
	char *dir = NULL;
	int rc = -1, loaded = 0;

	memset(b, 0, sizeof b);
	for (; loaded < 2; loaded++) {
		const char *label = loaded ? "FIX" : "BASE";
		free(dir);
		if (ab_resolve(cmd, label, root, sides->items[loaded], &dir) != 0)
			goto out;
		if (buildinfo_load(dir, &b[loaded], &e) != 0) {
			cli_error(cmd, "%s: %s", label, e.msg);
			goto out;
		}
	}
	session_setup_add_arm(s, &b[0], &knobs[0]);
	session_setup_add_arm(s, &b[1], &knobs[1]);
	loaded = 0;
	rc = 0;
out:
	/* Loaded but not handed over: BASE when FIX could not be loaded. */
	for (int i = 0; i < loaded; i++)
		buildinfo_release(&b[i]);
	free(dir);
	return rc;
}

static int ab_main(int argc, char **argv)
{
	/* ab's own options; the session's are shared with measure (session_opts.h). */
	static const struct cli_opt own[] = {
	    {"--md", 1},       {"--json", 1},   {"--html", 1},      {"--knob-base", 1},
	    {"--knob-fix", 1}, {"--across", 0}, {"--no-across", 0}, {NULL, 0},
	};
	const char *cmd = "ab", *opt, *val;
	const char *md_path = NULL, *json_path = NULL, *html_path = NULL;
	struct session_opts o;
	struct session_setup s;
	struct cli_opt *opts;
	struct cli_iter it;
	struct strlist sides = {0}, knobs[2] = {{0}, {0}};
	struct session_outcome outcome;
	struct ab_progress progress;
	struct err e;
	struct sbuf meters_text;
	char *root = buildinfo_root(), *command = NULL;
	int rc = EXIT_UNJUDGED, r, across = COMPARE_MODE_AUTO;

	memset(&progress, 0, sizeof progress);
	session_setup_init(&s);
	session_opts_init(&o, SESSION_VERB_AB);
	opts = session_opts_table(&o, own);
	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, &sides)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_verb(cmd), 0);
			goto out;
		} else if ((r = ab_parse_across(cmd, opt, &across)) != 0) {
			if (r < 0)
				goto out;
		} else if (strcmp(opt, "--md") == 0) {
			md_path = val;
		} else if (strcmp(opt, "--json") == 0) {
			json_path = val;
		} else if (strcmp(opt, "--html") == 0) {
			html_path = val;
		} else if (strcmp(opt, "--knob-base") == 0 || strcmp(opt, "--knob-fix") == 0) {
			if (session_opts_knob(&knobs[strcmp(opt, "--knob-fix") == 0], opt, val,
			                      &e) != 0) {
				rc = cli_error(cmd, "%s", e.msg);
				goto out;
			}
		} else if (session_opts_parse(&o, opt, val, &e) < 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
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
	if (ab_add_sides(cmd, root, &sides, knobs, &s) != 0)
		goto out;
	command = cli_command_line(argc, argv);
	if (session_setup_begin(cmd, &o, command, &s) != 0)
		goto out;

	sbuf_init(&meters_text);
	cli_describe_meters(&s.plan, &meters_text);
	fprintf(stderr,
	        "gcratchet %s: BASE %s vs FIX %s: %zu probe%s, size %s, %d round%s + %d warm-up, "
	        "seed %llu\n"
	        "gcratchet %s: meters: %s\n",
	        cmd, cli_safe(s.labels[0]), cli_safe(s.labels[1]), s.plan.probes.n,
	        s.plan.probes.n == 1 ? "" : "s", s.plan.size, s.plan.rounds,
	        s.plan.rounds == 1 ? "" : "s", s.plan.warmup, (unsigned long long)s.plan.seed, cmd,
	        meters_text.data);
	sbuf_release(&meters_text);
	for (int i = 0; i < 2; i++)
		if (s.knobs[i].n) {
			char *k = strlist_join(&s.knobs[i], " ");
			fprintf(stderr, "gcratchet %s: %s runs with %s\n", cmd, i ? "FIX" : "BASE",
			        cli_safe(k));
			free(k);
		}
	/* Said before the runs: a user who meant one design sees it while there is time. */
	if (across == COMPARE_MODE_ACROSS ||
	    (across == COMPARE_MODE_AUTO && strcmp(s.builds[0].design, s.builds[1].design)))
		fprintf(stderr,
		        "gcratchet %s: across designs (%s vs %s%s): census counters are context, "
		        "only costs decide%s\n",
		        cmd, cli_safe(s.builds[0].design), cli_safe(s.builds[1].design),
		        across == COMPARE_MODE_ACROSS ? ", --across" : "",
		        across == COMPARE_MODE_ACROSS ? "" : " (--no-across judges them)");
	else if (across == COMPARE_MODE_AUTO &&
	         strcmp(s.builds[0].collector, s.builds[1].collector) != 0)
		/* Two settings of one runtime: the census is what the settings change. */
		fprintf(
		    stderr,
		    "gcratchet %s: one design (%s, as both manifests say; collectors %s vs %s): "
		    "census counters decide\n",
		    cmd, cli_safe(s.builds[0].design), cli_safe(s.builds[0].collector),
		    cli_safe(s.builds[1].collector));
	if (strcmp(s.builds[0].manifest_hash, s.builds[1].manifest_hash) == 0)
		fprintf(stderr,
		        "gcratchet %s: A/A: BASE and FIX are one build, stored once and run as two "
		        "arms, %s and %s\n",
		        cmd, cli_safe(s.labels[0]), cli_safe(s.labels[1]));
	progress.estimate = progress_new(&s.plan);
	progress_display_init(&progress.display, cmd, stderr, STDERR_FILENO, s.plan.stop);
	r = session_run(&s.plan, s.st, ab_on_progress, &progress, &outcome, &e);
	progress_display_clear(&progress.display);
	if (r != 0) {
		rc = cli_error(cmd, "%s%s", e.msg,
		               outcome.session_id ? " (runs stored so far are kept)" : "");
		goto out;
	}
	fprintf(stderr, "gcratchet %s: session %lld: %d run%s, %d failed%s; stored in %s\n", cmd,
	        (long long)outcome.session_id, outcome.runs, outcome.runs == 1 ? "" : "s",
	        outcome.runs_failed,
	        outcome.interrupted ? ", INTERRUPTED (finished runs are kept)" : "",
	        cli_safe(store_where(s.st)));
	rc = ab_report_session(cmd, s.st, outcome.session_id, NULL, NULL, across, md_path,
	                       json_path, html_path, 1);
out:
	progress_free(progress.estimate);
	session_setup_end(&s);
	session_opts_release(&o);
	strlist_release(&sides);
	strlist_release(&knobs[0]);
	strlist_release(&knobs[1]);
	free(opts);
	free(command);
	free(root);
	return rc;
}

const struct cli_verb cmd_ab = {
    .name = "ab",
    .summary = "A/B two collector builds, interleaved and paired",
    .run = ab_main,
    .usage =
        "usage: gcratchet ab BASE FIX [--rounds N] [--probes LIST] [--size ci|default|large]\n"
        "                    [--meters LIST] [--events LIST] [--seed N] [--warmup N] [--jobs N]\n"
        "                    [--timeout SEC] [--knob-base NAME=VALUE]... [--knob-fix "
        "NAME=VALUE]...\n"
        "                    [--across | --no-across] [--md FILE] [--json FILE] [--html FILE]\n"
        "                    [--valgrind-runs N] [--pass-env NAME] [--thp off|host] [--db FILE]\n"
        "\n"
        "A/B two collector builds on this host: every round runs each probe on both builds back\n"
        "to back (order alternating AB, BA, ...), probe order shuffled from the seed; all samples\n"
        "are stored as one session. Then, identity first (checksums equal, deterministic census\n"
        "counters compared exactly), one row per cell (probe x metric): medians of each arm, the\n"
        "median of the per-round deltas FIX - BASE with a 95% interval, the sign count, an exact\n"
        "Wilcoxon signed-rank p and a verdict with the false-discovery rate controlled across the\n"
        "session (Benjamini-Hochberg, q = 0.05). docs/ab.md explains every choice.\n"
        "\n"
        "BASE and FIX are each a build folder (any path holding a manifest.json), a shipped\n"
        "collector (build/collectors/NAME), or a git revision REV[:COLLECTOR] (default collector\n"
        "" CLI_DEFAULT_COLLECTOR
        "), built by scripts/build-rev.sh into build/rev/<tree hash>/ and reused while\n"
        "the revision's tree is unchanged. A folder or collector name wins over a revision.\n"
        "BASE and FIX are the session's two arms: a build and the knobs its probes run with. One\n"
        "build on both sides (an A/A) is stored once; its arms are labelled NAME and NAME (2).\n"
        "\n"
        "  --rounds N     measured rounds (default 7; 6 or more to judge noisy cells)\n"
        "  --probes LIST  comma list of probe names or numbers (default: all both builds have)\n"
        "  --size S       ci, default or large (default: ci)\n"
        "  --meters LIST  rusage,census,perf,valgrind (default: all the host has);\n"
        "                 --events LIST: perf events (default " METER_PERF_DEFAULT_EVENTS ")\n"
        "  --seed N       the shuffle seed; --warmup N warm-up rounds (default 1)\n"
        "  --jobs N       valgrind runs at once, after the timed rounds (default: the online "
        "CPUs)\n"
        "  --valgrind-runs N\n"
        "                 valgrind runs per probe and arm (default 2, 3 where Ir differs: an Ir\n"
        "                 that does not repeat is judged by its spread)\n"
        "  --pass-env NAME give probes this variable of ours too (as measure's)\n"
        "  --knob-base NAME=VALUE, --knob-fix NAME=VALUE\n"
        "                 an environment variable for BASE's or FIX's probes (repeatable): gen\n"
        "                 against gen with a 16 MiB nursery is\n"
        "                 gcratchet ab gen gen --knob-fix GCR_NURSERY_KB=16384\n"
        "  --across       two collector designs: the census (collections, bytes copied or\n"
        "                 promoted, barrier hits, heap as the collector counts it) is context,\n"
        "                 only costs decide (time, Ir, RSS, memory, cachesim, perf); the default\n"
        "                 when the builds' collector names differ. --no-across judges the census\n"
        "                 as within one design.\n"
        "  --md FILE      Markdown for a pull request (also appended to $GITHUB_STEP_SUMMARY)\n"
        "  --json FILE    every sample and every statistic (format gcratchet-ab)\n"
        "  --html FILE    a self-contained page with one plot per cell\n"
        "\n"
        "A probe that went inert in either arm (its premise not met) is shown in the identity\n"
        "section and none of its cells is judged; a failed run shows its stderr's first line.\n"
        "A progress line (round, run, ETA) goes to stderr when it is a terminal. Ctrl-C stops\n"
        "after the current run: finished runs stay stored and only complete rounds are paired.\n"
        "\n"
        "Exit status: 0 no cell worse; 1 FIX is worse on some cell, or its results differ from\n"
        "BASE's (checksum), or it fails where BASE does not; 2 could not run or judge (a side\n"
        "missing, empty or built for another ABI, a failed run, an interrupted session).\n",
};
