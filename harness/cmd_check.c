/* gcratchet check — judge a measured session against a committed baseline profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "check.h"
#include "cli.h"
#include "cmds.h"
#include "heapgate.h"
#include "report.h"
#include "report_check.h"
#include "store.h"

/* Colour on a terminal only, and never when NO_COLOR is set (no-color.org) or TERM is dumb. */
static int check_colour(void)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && !(no && *no) && !(term && strcmp(term, "dumb") == 0);
}

int check_parse_opt(struct check_opts *o, const char *opt, const char *val)
{
	if (strcmp(opt, "--profile") == 0)
		o->profile = val;
	else if (strcmp(opt, "--collector") == 0)
		o->collector = val;
	else if (strcmp(opt, "--db") == 0)
		o->db = val;
	else if (strcmp(opt, "--baseline") == 0)
		o->baseline = val;
	else if (strcmp(opt, "--build") == 0)
		o->build = val;
	else if (strcmp(opt, "--base") == 0)
		o->base = val;
	else if (strcmp(opt, "--strict") == 0)
		o->strict = 1;
	else if (strcmp(opt, "--all") == 0)
		o->all = 1;
	else
		return 0;
	return 1;
}

int check_session(const char *cmd, const struct check_opts *o)
{
	const char *profile = o->profile,
	           *collector = o->collector ? o->collector : CLI_DEFAULT_COLLECTOR;
	const char *format = o->format ? o->format : "table", *db = o->db,
	           *baseline_arg = o->baseline;
	const char *build_name = o->build, *base_name = o->base;
	struct store_run *base_runs = NULL;
	size_t nbase_runs = 0;
	int strict = o->strict;
	struct baseline b = {0};
	struct check_input in = {0};
	struct check_result res = {0};
	struct toolchain tc = {0};
	struct report_check rep = {0};
	struct store *st = NULL;
	struct store_session si = {0};
	struct store_build *builds = NULL;
	const struct store_build *build = NULL;
	struct store_run *runs = NULL;
	size_t nbuilds = 0, nruns = 0;
	struct err e;
	char *path = NULL, *text = NULL, *md = NULL, *manifest = NULL, *where = NULL;
	int64_t session = o->session;
	int rc = EXIT_UNJUDGED;

	if (!profile) {
		rc = cli_error(cmd, "--profile is required (shared_ci or pinned_host)");
		goto out;
	}
	path = baseline_arg ? xstrdup(baseline_arg) : cli_baseline_find(profile, collector);
	if (baseline_load(path, &b, &e) != 0) {
		if (!baseline_arg && e.code == ERR_NOT_FOUND)
			rc = cli_error(cmd,
			               "%s\n  pin one with: gcratchet baseline pin --profile %s "
			               "--collector %s",
			               e.msg, profile, collector);
		else
			rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (strcmp(b.profile, profile) != 0) {
		rc = cli_error(cmd, "%s: profile is \"%s\", not \"%s\"", path, b.profile, profile);
		goto out;
	}
	if (store_open(cli_db_path(db), STORE_READ, &st, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (cli_find_session(cmd, st, store_where(st), b.collector, b.size, &session) != 0)
		goto out;
	if (store_session_get(st, session, &si, &e) != 0 ||
	    store_session_builds(st, session, &builds, &nbuilds, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (cli_pick_build(cmd, builds, nbuilds, b.collector, build_name, session, &build) != 0)
		goto out;
	if (store_runs_load(st, session, build->position, &runs, &nruns, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	/* The min-heap ratchet: the build's stored minimum heaps, for cells that pin them. */
	{
		struct heapgate_info hg;
		if (heapgate_annotate(st, &si, build, runs, nruns, &hg, &e) != 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
	}
	/* The toolchain the build was made with, as its manifest recorded it when measured. */
	where = xasprintf("the manifest of build %s in %s", build->name, store_where(st));
	if (store_build_manifest(st, build->id, &manifest, &e) != 0 ||
	    toolchain_from_manifest(manifest, where, &tc, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}

	in.baseline = &b;
	in.toolchain = &tc;
	in.session = &si;
	in.build = build;
	in.runs = runs;
	in.nruns = nruns;
	in.strict = strict;
	if (base_name) {
		const struct store_build *base = NULL;
		if (cli_pick_build(cmd, builds, nbuilds, NULL, base_name, session, &base) != 0)
			goto out;
		if (base->position == build->position) {
			rc = cli_error(cmd, "--base %s is the arm being checked", base_name);
			goto out;
		}
		if (store_runs_load(st, session, base->position, &base_runs, &nbase_runs, &e) !=
		    0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
		in.base_runs = base_runs;
		in.nbase_runs = nbase_runs;
		rep.base_name = base->label;
	}
	check_judge(&in, &res);
	rep.res = &res;
	rep.baseline = &b;
	rep.baseline_path = path;
	rep.session = session;
	rep.build_name = build->label;
	rep.all = o->all;
	rep.colour = strcmp(format, "table") == 0 && check_colour();

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
out:
	free(md);
	free(text);
	check_result_release(&res);
	toolchain_release(&tc);
	free(where);
	free(manifest);
	store_runs_release(base_runs, nbase_runs);
	store_runs_release(runs, nruns);
	store_builds_release(builds, nbuilds);
	store_session_release(&si);
	store_close(st);
	baseline_release(&b);
	free(path);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
	    {"--profile", 1}, {"--collector", 1}, {"--session", 1}, {"--format", 1},
	    {"--db", 1},      {"--baseline", 1},  {"--build", 1},   {"--base", 1},
	    {"--strict", 0},  {"--all", 0},       {NULL, 0},
	};
	const char *cmd = "check", *opt, *val;
	struct check_opts o = {0};
	struct cli_iter it;
	int r;

	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, NULL)) == 1) {
		if (strcmp(opt, "--help") == 0)
			return cli_usage(cli_find_command(cmd), 0);
		if (strcmp(opt, "--session") == 0) {
			if (cli_parse_session(cmd, opt, val, NULL, &o.session) != 0)
				return EXIT_UNJUDGED;
		} else if (strcmp(opt, "--format") == 0) {
			if (strcmp(val, "table") && strcmp(val, "md") && strcmp(val, "json") &&
			    strcmp(val, "junit"))
				return cli_error(
				    cmd, "--format must be table, md, json or junit, got \"%s\"",
				    val);
			o.format = val;
		} else {
			check_parse_opt(&o, opt, val);
		}
	}
	return r < 0 ? EXIT_UNJUDGED : check_session(cmd, &o);
}
