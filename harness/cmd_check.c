/* gcratchet check — judge a measured session against a committed baseline profile. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "check.h"
#include "cli.h"
#include "cmds.h"
#include "judge.h"
#include "report.h"
#include "report_check.h"
#include "store.h"

/* Colour on a terminal only, and never when NO_COLOR is set (no-color.org) or TERM is dumb. */
static int check_colour(void)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && !(no && *no) && !(term && strcmp(term, "dumb") == 0);
}

int check_session(const char *cmd, const struct check_opts *o)
{
	const char *profile = o->profile,
	           *collector = o->collector ? o->collector : CLI_DEFAULT_COLLECTOR;
	const char *format = o->format ? o->format : "table";
	struct baseline b = {0};
	struct judge_inputs in = {0};
	struct check_input ci;
	struct check_result res = {0};
	struct report_check rep = {0};
	struct store *st = NULL;
	const struct store_build *build = NULL, *base = NULL;
	struct err e;
	char *path = NULL, *text = NULL, *md = NULL;
	int64_t session = o->session;
	int rc = EXIT_UNJUDGED;

	if (!profile) {
		rc = cli_error(cmd, "--profile is required (shared_ci or pinned_host)");
		goto out;
	}
	path = o->baseline ? xstrdup(o->baseline) : cli_baseline_find(profile, collector);
	if (judge_baseline_load(path, profile, &b, &e) != 0) {
		if (!o->baseline && e.code == ERR_NOT_FOUND) {
			char *looked = cli_baseline_looked();
			rc = cli_error(
			    cmd,
			    "%s\n  %s\n  pin one with: gcratchet baseline pin --profile %s "
			    "--collector %s",
			    e.msg, looked, profile, collector);
			free(looked);
		} else
			rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (store_open(cli_db_path(o->db), STORE_READ, &st, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (cli_find_session(cmd, st, store_where(st), b.collector, b.size, &session) != 0)
		goto out;
	if (judge_open(st, session, &in, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (cli_pick_build(cmd, in.builds, in.nbuilds, b.collector, o->build, session, &build) != 0)
		goto out;
	if (o->base) {
		if (cli_pick_build(cmd, in.builds, in.nbuilds, NULL, o->base, session, &base) != 0)
			goto out;
		if (base->position == build->position) {
			rc = cli_error(cmd, "--base %s is the arm being checked", o->base);
			goto out;
		}
		rep.base_name = base->label;
	}
	if (judge_load_arm(st, &in, build, base, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	judge_check_input(&in, &b, o->strict, &ci);
	ci.sensitivity_pct = o->sensitivity_pct > 0 ? o->sensitivity_pct : b.sensitivity_pct;
	ci.runs_budget = o->runs_budget;
	check_judge(&ci, &res);
	rep.res = &res;
	rep.baseline = &b;
	rep.baseline_path = path;
	rep.session = session;
	rep.build_name = build->label;
	rep.all = o->all;
	rep.colour = strcmp(format, "table") == 0 && check_colour();
	rep.runs = in.runs;
	rep.nruns = in.nruns;
	rep.samples_href = o->samples_href;

	text = strcmp(format, "json") == 0    ? report_check_json(&rep)
	       : strcmp(format, "junit") == 0 ? report_check_junit(&rep)
	       : strcmp(format, "md") == 0    ? report_check_md(&rep)
	                                      : report_check_text(&rep);
	rc = res.verdict == CHECK_VERDICT_OK           ? EXIT_OK
	     : res.verdict == CHECK_VERDICT_REGRESSION ? EXIT_REGRESSION
	                                               : EXIT_UNJUDGED;
	if (fputs(text, stdout) < 0 || fflush(stdout) != 0)
		rc = cli_error(cmd, "writing to stdout failed");
	/* In GitHub Actions the Markdown also goes to the job's summary page. */
	md = report_check_md(&rep);
	if (report_step_summary(md, &e) != 0)
		rc = cli_error(cmd, "%s", e.msg);
	if (o->md && write_file_atomic(o->md, md, strlen(md), &e) != 0)
		rc = cli_error(cmd, "%s", e.msg);
	if (o->html) {
		char *html = report_check_html(&rep);
		if (write_file_atomic(o->html, html, strlen(html), &e) != 0)
			rc = cli_error(cmd, "%s", e.msg);
		free(html);
	}
out:
	free(md);
	free(text);
	check_result_release(&res);
	judge_release(&in);
	store_close(st);
	baseline_release(&b);
	free(path);
	return rc;
}

static int check_main(int argc, char **argv)
{
	struct check_opts o = {0};
	int r = cli_parse(&cmd_check, argc, argv, &o, NULL);

	if (r != 0)
		return r > 0 ? EXIT_OK : EXIT_UNJUDGED;
	return check_session(cmd_check.name, &o);
}

#define CO(field) offsetof(struct check_opts, field)
const struct cli_option check_options[] = {
    {"--profile", "shared_ci|pinned_host", CLI_STRING, CO(profile), .group = CHECK_OPT_JUDGE,
     .flags = CLI_REQUIRED, .help = "the baseline profile (required)"},
    {"--collector", "NAME", CLI_STRING, CO(collector), .group = CHECK_OPT_JUDGE,
     .help = "the collector whose baseline judges (default " CLI_DEFAULT_COLLECTOR ")"},
    {"--session", "N", CLI_SESSION, CO(session), .group = CHECK_OPT_STORED,
     .help = "the session judged (default: the newest that measured the collector)"},
    {"--build", "LABEL", CLI_STRING, CO(build), .group = CHECK_OPT_STORED,
     .help = "the session's arm judged, by its label (default: the collector's one arm)"},
    {"--base", "LABEL", CLI_STRING, CO(base), .group = CHECK_OPT_STORED,
     .help = "another arm of the session, unchanged: each regressed cell says how much of its "
             "delta the base shows too"},
    {"--baseline", "FILE", CLI_STRING, CO(baseline), .group = CHECK_OPT_JUDGE,
     .help = "the baseline file (default baselines/<profile>/<collector>.json)"},
    {"--strict", NULL, CLI_FLAG, CO(strict), .group = CHECK_OPT_JUDGE,
     .help = "a STALE baseline (pinned on another host or collector version) exits 2"},
    {"--all", NULL, CLI_FLAG, CO(all), .group = CHECK_OPT_JUDGE, .help = "show every cell"},
    {"--format", NULL, CLI_ENUM, CO(format), .values = "table|md|json|junit",
     .group = CHECK_OPT_STORED, .help = "what stdout gets (default table)"},
    {"--md", "FILE", CLI_STRING, CO(md), .group = CHECK_OPT_JUDGE,
     .help = "the Markdown written there too"},
    {"--html", "FILE", CLI_STRING, CO(html), .group = CHECK_OPT_JUDGE,
     .help = "the check page written there"},
    {"--samples-href", "HREF", CLI_STRING, CO(samples_href), .group = CHECK_OPT_JUDGE,
     .help = "the session's own page, linked from the check page"},
    {"--sensitivity", "PCT", CLI_PCT, CO(sensitivity_pct), 0, 1000, "a change in percent",
     .group = CHECK_OPT_JUDGE, .help = "the change every gated cell should see (default 50)"},
    {"--db", "FILE", CLI_STRING, CO(db), .group = CHECK_OPT_JUDGE,
     .help = "the database (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {0},
};
#undef CO

static const struct cli_option check_verb_options[] = {
    {.name = "check's options",
     .kind = CLI_INCLUDE,
     .rows = check_options,
     .group = CHECK_OPT_JUDGE | CHECK_OPT_STORED},
    {0},
};

const struct cli_verb cmd_check = {
    .name = "check",
    .summary = "judge a session against a committed baseline profile",
    .description =
        "Judges a session (default: the newest that measured the collector) against the baseline\n"
        "baselines/<profile>/<collector>.json. Each cell (probe x metric) has a baseline, the\n"
        "current median, delta, allowance, share of the allowance used and a verdict. The table\n"
        "shows the cells that are not ok (REGRESSED with how far past the allowance, improved,\n"
        "COULD NOT JUDGE, INERT), one line per probe with its counts, and the verdict; --all\n"
        "shows every cell. Colour on a terminal only, never under NO_COLOR. A probe that printed\n"
        "another checksum than the baseline's is a regression; cells whose runs failed or were\n"
        "not measured cannot be judged. A baseline pinned on another host or collector version\n"
        "is named STALE on the first line; --strict makes that exit 2. With --base BUILD (another\n"
        "build measured in the same session, e.g. the unchanged collector), each regressed cell\n"
        "says how much of its delta the base shows too (drift since the pin) and how much is the\n"
        "change. A regressed or improved Ir cell shows the functions that moved most against the\n"
        "pin (the baseline keeps each probe's largest; gcratchet explain lists them all). The\n"
        "Markdown (md) fits a pull-request comment: the verdict, one line per probe, every row\n"
        "that is not ok, the functions, then the ok rows in one fold, below 60,000 characters;\n"
        "json and junit carry every cell. It is also appended to $GITHUB_STEP_SUMMARY when that\n"
        "is set, and written to FILE with --md. --html FILE writes the check page: the verdict,\n"
        "the baseline, every row that is not ok with its band and samples, the functions, and a\n"
        "link to the session's page when --samples-href names it (report --session N --html).\n"
        "Every gated cell states the smallest change it would catch at the session's runs (the\n"
        "\"sees\" column, a \"can see\" line per class under the header); a cell that cannot see\n"
        "a change of 50% (--sensitivity PCT: of PCT percent) is named INSENSITIVE, with the runs\n"
        "that would let it. A cell of class distribution (a figure that varies from run to run)\n"
        "is judged by a rank test of the session's runs against its pinning runs, at a "
        "false-alarm\n"
        "rate of 0.001 over all such cells of the check, and a shift beyond its band.\n",
    .exit_status = "0 every gated cell within its band; 1 a regression; 2 could not judge (a "
                   "failed run, a missing metric, a bad baseline file or bad arguments).",
    .options = check_verb_options,
    .run = check_main,
};
