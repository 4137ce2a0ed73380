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
#include "ab_report.h"
#include "compare.h"
#include "measuring.h"
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

/* What ab takes: the session's options (shared with measure), and its own. */
struct ab_opts {
	struct session_opts o;
	const char *md, *json, *html;
	struct strlist knobs[2];    /* --knob-base, --knob-fix */
	struct ab_report_view view; /* --across, --no-across, --wide */
};

static int ab_main(int argc, char **argv)
{
	const char *cmd = cmd_ab.name;
	struct ab_opts a;
	struct session_opts *o = &a.o;
	struct session_setup s;
	struct strlist sides = {0}, *knobs = a.knobs;
	struct session_outcome outcome;
	struct sbuf meters_text;
	char *root = buildinfo_root(), *command = NULL;
	int rc = EXIT_UNJUDGED, r, across;

	memset(&a, 0, sizeof a);
	a.view.across = COMPARE_MODE_AUTO;
	session_setup_init(&s);
	session_opts_init(o, SESSION_VERB_AB);
	if ((r = cli_parse(&cmd_ab, argc, argv, &a, &sides)) != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	across = a.view.across;
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
	if (session_setup_begin(cmd, o, command, &s) != 0)
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
	if (measuring_run(cmd, &s, NULL, &outcome) != 0)
		goto out;
	fprintf(stderr, "gcratchet %s: session %lld: %d run%s, %d failed%s; stored in %s\n", cmd,
	        (long long)outcome.session_id, outcome.runs, outcome.runs == 1 ? "" : "s",
	        outcome.runs_failed,
	        outcome.interrupted ? ", INTERRUPTED (finished runs are kept)" : "",
	        cli_safe(store_where(s.st)));
	rc = ab_report_session(cmd, s.st, outcome.session_id, NULL, NULL, &a.view, a.md, a.json,
	                       a.html, 1);
out:
	session_setup_end(&s);
	session_opts_release(o);
	strlist_release(&sides);
	strlist_release(&knobs[0]);
	strlist_release(&knobs[1]);
	free(command);
	free(root);
	return rc;
}

/* --knob-base and --knob-fix: a knob of one arm, checked as --knob's are. */
static int ab_knob(void *field, const struct cli_option *row, const char *val, struct err *e)
{
	return session_opts_knob(field, row->name, val, e);
}

#define AO(field) offsetof(struct ab_opts, field)
static const struct cli_option ab_options[] = {
    {"session options", .kind = CLI_INCLUDE, .off = AO(o), .rows = session_options,
     .group = SESSION_OPT_RUN},
    {"--knob-base", "NAME=VALUE", CLI_CALL, AO(knobs[0]), .call = ab_knob, .flags = CLI_REPEAT,
     .help = "an environment variable for BASE's probes (repeatable)"},
    {"--knob-fix", "NAME=VALUE", CLI_CALL, AO(knobs[1]), .call = ab_knob, .flags = CLI_REPEAT,
     .help = "an environment variable for FIX's probes (repeatable): gen against gen with a "
             "16 MiB nursery is gcratchet ab gen gen --knob-fix GCR_NURSERY_KB=16384"},
    {"--across, --no-across and --wide", .kind = CLI_INCLUDE, .off = AO(view),
     .rows = ab_report_options, .group = AB_REPORT_OPT_ACROSS | AB_REPORT_OPT_WIDE},
    {"--md", "FILE", CLI_STRING, AO(md),
     .help = "Markdown for a pull request (also appended to $GITHUB_STEP_SUMMARY)"},
    {"--json", "FILE", CLI_STRING, AO(json),
     .help = "every sample and every statistic (format gcratchet-ab)"},
    {"--html", "FILE", CLI_STRING, AO(html),
     .help = "a self-contained page with one plot per cell"},
    {0},
};
#undef AO

const struct cli_verb cmd_ab = {
    .name = "ab",
    .summary = "A/B two collector builds, interleaved and paired",
    .args = "BASE FIX",
    .description =
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
        "A probe that went inert in either arm (its premise not met) is shown in the identity\n"
        "section and none of its cells is judged; a failed run shows its stderr's first line.\n"
        "A progress line (round, run, ETA) goes to stderr when it is a terminal. Ctrl-C stops\n"
        "after the current run: finished runs stay stored and only complete rounds are paired.\n",
    .exit_status = "0 no cell worse; 1 FIX is worse on some cell, or its results differ from "
                   "BASE's (checksum), or it fails where BASE does not; 2 could not run or judge "
                   "(a side missing, empty or built for another ABI, a failed run, an "
                   "interrupted session).",
    .options = ab_options,
    .run = ab_main,
};
