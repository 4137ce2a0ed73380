/* verdict.c — check's judgement of a stored session, rendered (verdict.h). */
#include "verdict.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "check.h"
#include "cli.h"
#include "judge.h"
#include "metrics.h"
#include "report.h"
#include "report_check.h"
#include "session_opts.h"
#include "store.h"

int verdict_ratchet_rounds(const char *profile)
{
	return metrics_profile_gates_time(profile)
	           ? session_opts_default_rounds(SESSION_VERB_PIN_TIME)
	           : VERDICT_RATCHET_ROUNDS_SHARED_CI;
}

/* Colour on a terminal only, and never when NO_COLOR is set (no-color.org) or TERM is dumb. */
static int verdict_colour(FILE *out)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(fileno(out)) && !(no && *no) && !(term && strcmp(term, "dumb") == 0);
}

int verdict_session(const char *cmd, const struct verdict_opts *o)
{
	const char *profile = o->profile,
	           *collector = o->collector ? o->collector : CLI_DEFAULT_COLLECTOR;
	const char *format = o->format ? o->format : "table";
	/* --json -: stdout is the JSON's alone, and what --format says goes to stderr. */
	FILE *out = o->json && write_file_is_stdout(o->json) ? stderr : stdout;
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
	if (cli_check_profile(cmd, profile) != 0)
		goto out;
	path = o->baseline ? xstrdup(o->baseline) : cli_baseline_find(profile, collector);
	if (judge_baseline_load(path, profile, &b, &e) != 0) {
		if (!o->baseline && e.code == ERR_NOT_FOUND &&
		    cli_unknown_collector(cmd, collector)) {
			goto out;
		} else if (!o->baseline && e.code == ERR_NOT_FOUND) {
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
	rep.colour = strcmp(format, "table") == 0 && verdict_colour(out);
	rep.runs = in.runs;
	rep.nruns = in.nruns;
	rep.samples_href = o->samples_href;

	text = strcmp(format, "json") == 0    ? report_check_json(&rep)
	       : strcmp(format, "junit") == 0 ? report_check_junit(&rep)
	       : strcmp(format, "md") == 0
	           ? (o->md_full ? report_check_md_full : report_check_md)(&rep)
	           : report_check_text(&rep);
	rc = res.verdict == CHECK_VERDICT_OK           ? EXIT_OK
	     : res.verdict == CHECK_VERDICT_REGRESSION ? EXIT_REGRESSION
	                                               : EXIT_UNJUDGED;
	if (fputs(text, out) < 0 || fflush(out) != 0)
		rc = cli_error(cmd, "writing to %s failed", out == stdout ? "stdout" : "stderr");
	/* In GitHub Actions the Markdown also goes to the job's summary page. */
	md = o->md_full ? report_check_md_full(&rep) : report_check_md(&rep);
	if (report_step_summary(md, &e) != 0)
		rc = cli_error(cmd, "%s", e.msg);
	if (o->md && write_file_atomic(o->md, md, strlen(md), &e) != 0)
		rc = cli_error(cmd, "%s", e.msg);
	if (o->json) {
		char *json = report_check_json(&rep);
		if (write_file_atomic(o->json, json, strlen(json), &e) != 0)
			rc = cli_error(cmd, "%s", e.msg);
		free(json);
	}
	if (o->junit) {
		char *xml = report_check_junit(&rep);
		if (write_file_atomic(o->junit, xml, strlen(xml), &e) != 0)
			rc = cli_error(cmd, "%s", e.msg);
		free(xml);
	}
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

#define CO(field) offsetof(struct verdict_opts, field)
const struct cli_option verdict_options[] = {
    {"--profile", "shared_ci|pinned_host", CLI_STRING, CO(profile), .group = VERDICT_OPT_JUDGE,
     .flags = CLI_REQUIRED, .help = "the baseline profile (required)"},
    {"--collector", "NAME", CLI_STRING, CO(collector), .group = VERDICT_OPT_JUDGE,
     .help = "the collector whose baseline judges (default " CLI_DEFAULT_COLLECTOR ")"},
    {"--session", "N", CLI_SESSION, CO(session), .group = VERDICT_OPT_STORED,
     .help = "the session judged (default: the newest that measured the collector)"},
    {"--build", "LABEL", CLI_STRING, CO(build), .group = VERDICT_OPT_STORED,
     .help = "the session's arm judged, by its label (default: the collector's one arm)"},
    {"--base", "LABEL", CLI_STRING, CO(base), .group = VERDICT_OPT_STORED,
     .help = "another arm of the session, unchanged: each regressed cell says how much of its "
             "delta the base shows too"},
    {"--baseline", "FILE", CLI_STRING, CO(baseline), .group = VERDICT_OPT_JUDGE,
     .help = "the baseline file (default baselines/<profile>/<collector>.json)"},
    {"--strict", NULL, CLI_FLAG, CO(strict), .group = VERDICT_OPT_JUDGE,
     .help = "a STALE baseline (pinned on another host or collector version) exits 2"},
    {"--all", NULL, CLI_FLAG, CO(all), .group = VERDICT_OPT_JUDGE, .help = "show every cell"},
    {"--format", NULL, CLI_ENUM, CO(format), .values = "table|md|json|junit",
     .group = VERDICT_OPT_STORED, .help = "what stdout gets (default table)"},
    {"--md", "FILE", CLI_STRING, CO(md), .group = VERDICT_OPT_JUDGE,
     .help = "the Markdown written there too"},
    {"--json", "FILE", CLI_STRING, CO(json), .group = VERDICT_OPT_JUDGE,
     .help = "every cell as JSON (format gcratchet-check, as --format json) written there (- "
             "for stdout; the rest then goes to stderr)"},
    {"--junit", "FILE", CLI_STRING, CO(junit), .group = VERDICT_OPT_JUDGE,
     .help = "every gated cell as a JUnit test case (as --format junit) written there"},
    {"--md-full", NULL, CLI_FLAG, CO(md_full), .group = VERDICT_OPT_JUDGE,
     .help = "the Markdown holds every row (default: a pull-request comment's few lines)"},
    {"--html", "FILE", CLI_STRING, CO(html), .group = VERDICT_OPT_JUDGE,
     .help = "the check page written there"},
    {"--samples-href", "HREF", CLI_STRING, CO(samples_href), .group = VERDICT_OPT_JUDGE,
     .help = "the session's own page, linked from the check page"},
    {"--sensitivity", "PCT", CLI_PCT, CO(sensitivity_pct), 0, 1000, "a change in percent",
     .group = VERDICT_OPT_JUDGE, .help = "the change every gated cell should see (default 50)"},
    {"--db", "FILE", CLI_STRING, CO(db), .group = VERDICT_OPT_JUDGE,
     .help = "the database (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {0},
};
#undef CO
