/* gcratchet check — judge a measured session against a committed baseline profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "baseline.h"
#include "cli.h"
#include "cmds.h"
#include "stats.h"
#include "store.h"

enum check_state { CHECK_JUDGED, CHECK_UNJUDGED };

struct check_row {
	const char *probe;
	const char *metric;
	enum check_state state;
	double base, current;
	int n;
	struct baseline_judgement j;
	char *reason; /* why a cell could not be judged, or a note on a verdict */
	int inert;    /* the premise row of a probe that did not cause its activity */
};

struct check_report {
	const struct baseline *b;
	const char *baseline_path;
	int64_t session;
	const char *build_name;
	const struct store_run *base_runs; /* --base: the same session's base build, or NULL */
	size_t nbase_runs;
	const char *base_name;
	struct check_row *rows;
	size_t nrows;
	struct strlist stale; /* the baseline was pinned elsewhere: printed first */
	struct strlist notes; /* other remarks under the header */
	int regressed, unjudged, improved, ok, info;
};

static void check_add_row(struct check_report *rep, const struct check_row *row)
{
	rep->rows = xrealloc(rep->rows, (rep->nrows + 1) * sizeof *rep->rows);
	rep->rows[rep->nrows++] = *row;
	if (row->state == CHECK_UNJUDGED)
		rep->unjudged++;
	else if (row->j.verdict == BASELINE_REGRESSED)
		rep->regressed++;
	else if (row->j.verdict == BASELINE_IMPROVED)
		rep->improved++;
	else if (row->j.verdict == BASELINE_INFO)
		rep->info++;
	else
		rep->ok++;
}

/* "3 of 5 runs crashed (SIGSEGV)": why the runs of one probe and kind cannot be judged. */
static char *check_failed_runs(const struct store_run *runs, size_t n, const char *probe,
                               const char *size, enum run_kind kind)
{
	int total = 0, bad = 0;
	const struct store_run *first = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct store_run *r = &runs[i];
		if (r->warmup || strcmp(r->probe, probe) || strcmp(r->size, size) ||
		    r->kind != kind)
			continue;
		total++;
		if (r->status != RUN_STATUS_OK) {
			bad++;
			if (!first)
				first = r;
		}
	}
	if (total == 0)
		return xasprintf("no %s runs of this probe at size %s in the session",
		                 run_kind_name(kind), size);
	if (bad == 0)
		return NULL;
	return xasprintf("%d of %d %s runs %s%s%s%s", bad, total, run_kind_name(kind),
	                 run_status_name(first->status), first->detail ? " (" : "",
	                 first->detail ? first->detail : "", first->detail ? ")" : "");
}

/*
 * With a base build measured in the same session: how much of a regressed cell's delta the
 * base shows too (the host or toolchain drifted since the pin) and how much is the change.
 */
static char *check_attribute(const struct check_report *rep, const char *probe,
                             const struct check_row *row)
{
	double base_now;

	if (!rep->base_runs || cli_runs_median(rep->base_runs, rep->nbase_runs, probe, rep->b->size,
	                                       row->metric, &base_now) == 0)
		return NULL;
	{
		char drift[32], change[32], total[32];
		cli_format_value(row->metric, base_now - row->base, drift, sizeof drift);
		cli_format_value(row->metric, row->current - base_now, change, sizeof change);
		cli_format_value(row->metric, row->current - row->base, total, sizeof total);
		return xasprintf(
		    "of %s%s, %s%s is already in base %s (drift since the pin), %s%s is the change",
		    row->current >= row->base ? "+" : "", total, base_now >= row->base ? "+" : "",
		    drift, rep->base_name, row->current >= base_now ? "+" : "", change);
	}
}

static void check_probe(struct check_report *rep, const struct store_run *runs, size_t n,
                        const char *probe)
{
	const struct baseline *b = rep->b;
	const char *want = baseline_probe_checksum(b, probe);
	char *timed_bad = check_failed_runs(runs, n, probe, b->size, RUN_KIND_TIMED);
	char *vg_bad = check_failed_runs(runs, n, probe, b->size, RUN_KIND_VALGRIND);
	const char *wrong = NULL;
	struct check_row row;

	/* Correctness first: a probe that prints another result is a regression whatever it costs. */
	for (size_t i = 0; i < n; i++) {
		const struct store_run *r = &runs[i];
		if (strcmp(r->probe, probe) || strcmp(r->size, b->size) ||
		    r->status != RUN_STATUS_OK)
			continue;
		if (r->checksum && strcmp(r->checksum, want) != 0)
			wrong = r->checksum;
	}
	if (wrong) {
		memset(&row, 0, sizeof row);
		row.probe = probe;
		row.metric = "checksum";
		row.state = CHECK_JUDGED;
		row.j.verdict = BASELINE_REGRESSED;
		row.reason = xasprintf("wrong result: printed %s, baseline %s", wrong, want);
		check_add_row(rep, &row);
	}
	/* An inert run measured something, but not what the probe exists to cause. */
	for (size_t i = 0; i < n; i++) {
		const struct store_run *r = &runs[i];
		if (r->warmup || strcmp(r->probe, probe) || strcmp(r->size, b->size) ||
		    r->status != RUN_STATUS_OK || r->premise != RUN_PREMISE_NOT_MET)
			continue;
		memset(&row, 0, sizeof row);
		row.probe = probe;
		row.metric = "premise";
		row.state = CHECK_JUDGED;
		row.j.verdict = BASELINE_REGRESSED;
		row.inert = 1;
		row.reason = xasprintf("premise not met%s%s", r->premise_text ? ": " : "",
		                       r->premise_text ? r->premise_text : "");
		check_add_row(rep, &row);
		break;
	}

	for (size_t c = 0; c < b->ncells; c++) {
		const struct baseline_cell *cell = &b->cells[c];
		const struct baseline_rule *rule = baseline_rule_for_cell(b, probe, cell->metric);
		enum run_kind kind = metrics_run_kind(cell->metric);
		const char *bad = kind == RUN_KIND_VALGRIND ? vg_bad : timed_bad;
		double *vals;
		size_t nv = 0;

		if (strcmp(cell->probe, probe) != 0)
			continue;
		memset(&row, 0, sizeof row);
		row.probe = probe;
		row.metric = cell->metric;
		row.base = cell->median;
		if (bad) {
			row.state = CHECK_UNJUDGED;
			row.reason = xstrdup(bad);
			check_add_row(rep, &row);
			continue;
		}
		vals = xcalloc(n, sizeof *vals);
		for (size_t i = 0; i < n; i++) {
			const struct store_run *r = &runs[i];
			const double *v;
			if (r->warmup || strcmp(r->probe, probe) || strcmp(r->size, b->size) ||
			    r->kind != kind)
				continue;
			if ((v = metric_set_get(&r->metrics, cell->metric)))
				vals[nv++] = *v;
		}
		if (nv == 0) {
			row.state = CHECK_UNJUDGED;
			row.reason =
			    xasprintf("not measured in this session%s",
			              kind == RUN_KIND_VALGRIND
			                  ? " (measure with --meters rusage,census,valgrind)"
			                  : "");
		} else {
			row.state = CHECK_JUDGED;
			row.n = (int)nv;
			row.current = stats_median(vals, nv);
			baseline_judge(rule, cell->median, row.current, &row.j);
			if (row.j.went_inert)
				row.reason =
				    xasprintf("was %.0f, now 0: the probe no longer causes this",
				              cell->median);
			else if (row.j.verdict == BASELINE_REGRESSED)
				row.reason = check_attribute(rep, probe, &row);
		}
		free(vals);
		check_add_row(rep, &row);
	}
	free(timed_bad);
	free(vg_bad);
}

static void check_fmt_used(const struct check_row *r, char *buf, size_t size)
{
	if (r->state != CHECK_JUDGED || !r->metric || strcmp(r->metric, "checksum") == 0 ||
	    r->inert)
		snprintf(buf, size, "-");
	else if (isinf(r->j.used))
		snprintf(buf, size, r->j.used > 0 ? "inf" : "-inf");
	else
		snprintf(buf, size, "%.0f%%", 100.0 * r->j.used);
}

static void check_fmt_delta(const struct check_row *r, char *buf, size_t size)
{
	if (r->state != CHECK_JUDGED || strcmp(r->metric, "checksum") == 0 || r->inert)
		snprintf(buf, size, "-");
	else if (isinf(r->j.delta_pct))
		snprintf(buf, size, "%s", r->j.delta > 0 ? "+inf%" : "-inf%");
	else if (r->j.delta != 0 && fabs(r->j.delta_pct) < 0.005) {
		/* Too small to show as a percentage, yet it may break a zero band: show it whole. */
		char v[24];
		cli_format_value(r->metric, fabs(r->j.delta), v, sizeof v);
		snprintf(buf, size, "%c%s", r->j.delta > 0 ? '+' : '-', v);
	} else
		snprintf(buf, size, "%+.2f%%", r->j.delta_pct);
}

static const char *check_verdict(const struct check_row *r)
{
	if (r->inert)
		return "INERT";
	return r->state == CHECK_UNJUDGED ? "COULD NOT JUDGE" : baseline_verdict_name(r->j.verdict);
}

static const char *check_overall(const struct check_report *rep)
{
	return rep->regressed ? "REGRESSION" : rep->unjudged ? "COULD NOT JUDGE" : "ok";
}

struct check_cells {
	char base[32], cur[32], delta[32], allow[32], used[32];
};

static void check_format_cells(const struct check_row *r, struct check_cells *c)
{
	int is_sum = strcmp(r->metric, "checksum") == 0 || strcmp(r->metric, "premise") == 0;

	if (is_sum) {
		snprintf(c->base, sizeof c->base, "-");
		snprintf(c->cur, sizeof c->cur, "-");
		snprintf(c->allow, sizeof c->allow, "-");
	} else {
		cli_format_value(r->metric, r->base, c->base, sizeof c->base);
		if (r->state == CHECK_JUDGED)
			cli_format_value(r->metric, r->current, c->cur, sizeof c->cur);
		else
			snprintf(c->cur, sizeof c->cur, "-");
		if (r->state == CHECK_JUDGED) {
			char a[24];
			cli_format_value(r->metric, r->j.allowance, a, sizeof a);
			snprintf(c->allow, sizeof c->allow, "%s%s", r->j.allowance > 0 ? "+" : "",
			         a);
		} else {
			snprintf(c->allow, sizeof c->allow, "-");
		}
	}
	check_fmt_delta(r, c->delta, sizeof c->delta);
	check_fmt_used(r, c->used, sizeof c->used);
}

static void check_print_header(const struct check_report *rep, FILE *f, int md)
{
	const struct baseline *b = rep->b;

	/* Staleness comes first: every figure below is read in its light. */
	for (size_t i = 0; i < rep->stale.n; i++)
		fprintf(f, "%sSTALE: %s\n", md ? "> **" : "", rep->stale.items[i]);
	if (md && rep->stale.n)
		fprintf(f, "\n");
	fprintf(
	    f, "%sgcratchet check: profile %s, collector %s %s, session %lld (build %s), size %s\n",
	    md ? "### " : "", b->profile, b->collector, b->collector_version,
	    (long long)rep->session, rep->build_name, b->size);
	if (md)
		fprintf(f, "\n");
	for (size_t i = 0; i < rep->notes.n; i++)
		fprintf(f, "%snote: %s\n", md ? "> " : "", rep->notes.items[i]);
	fprintf(f, "%sbaseline: %s (pinned %s on %s, session %lld)\n\n", md ? "> " : "",
	        rep->baseline_path, b->pinned_at, b->hostname, (long long)b->session);
}

static void check_print_table(const struct check_report *rep, FILE *f)
{
	check_print_header(rep, f, 0);
	fprintf(f, "%-24s %-34s %14s %14s %10s %14s %7s  %s\n", "probe", "metric", "baseline",
	        "current", "delta", "allowance", "used", "verdict");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct check_row *r = &rep->rows[i];
		struct check_cells c;
		check_format_cells(r, &c);
		fprintf(f, "%-24s %-34s %14s %14s %10s %14s %7s  %s%s%s\n", r->probe, r->metric,
		        c.base, c.cur, c.delta, c.allow, c.used, check_verdict(r),
		        r->reason ? ": " : "", r->reason ? r->reason : "");
	}
}

static void check_print_md(const struct check_report *rep, FILE *f)
{
	check_print_header(rep, f, 1);
	fprintf(f,
	        "| probe | metric | baseline | current | delta | allowance | used | verdict |\n");
	fprintf(f, "|---|---|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct check_row *r = &rep->rows[i];
		struct check_cells c;
		check_format_cells(r, &c);
		fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n", r->probe, r->metric,
		        c.base, c.cur, c.delta, c.allow, c.used, check_verdict(r),
		        r->reason ? ": " : "", r->reason ? r->reason : "");
	}
	fprintf(f, "\n");
}

/* Writes s with XML's five special characters escaped. */
static void check_xml(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			/* XML 1.0 allows no control characters but tab, newline and return. */
			fputc((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r'
			          ? '?'
			          : *s,
			      f);
		}
	}
}

/* JUnit XML: one testcase per cell, a failure per regression, an error per unjudged cell. */
static void check_print_junit(const struct check_report *rep, FILE *f)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites>\n<testsuite name=\"gcratchet check ");
	check_xml(f, rep->b->profile);
	fprintf(f, " ");
	check_xml(f, rep->b->collector);
	fprintf(f, "\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n", rep->nrows,
	        rep->regressed, rep->unjudged, rep->info);
	for (size_t i = 0; i < rep->stale.n; i++) {
		fprintf(f, "  <!-- STALE: ");
		/* "--" may not appear inside a comment. */
		for (const char *p = rep->stale.items[i]; *p; p++)
			fputc(p[0] == '-' && p[1] == '-' ? '_' : p[0], f);
		fprintf(f, " -->\n");
	}
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct check_row *r = &rep->rows[i];
		struct check_cells c;
		check_format_cells(r, &c);
		fprintf(f, "  <testcase classname=\"");
		check_xml(f, r->probe);
		fprintf(f, "\" name=\"");
		check_xml(f, r->metric);
		fprintf(f, "\">");
		if (r->state == CHECK_UNJUDGED || r->j.verdict == BASELINE_REGRESSED) {
			fprintf(f, "<%s message=\"",
			        r->state == CHECK_UNJUDGED ? "error" : "failure");
			check_xml(f, check_verdict(r));
			fprintf(f, ": baseline %s, current %s, delta %s, allowance %s", c.base,
			        c.cur, c.delta, c.allow);
			fprintf(f, "\">");
			check_xml(f, r->reason ? r->reason : "");
			fprintf(f, "</%s>", r->state == CHECK_UNJUDGED ? "error" : "failure");
		} else if (r->j.verdict == BASELINE_INFO) {
			fprintf(f, "<skipped message=\"not gated\"/>");
		}
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "</testsuite>\n</testsuites>\n");
}

/* In GitHub Actions, the Markdown table also goes to the job's summary page. */
static void check_step_summary(const struct check_report *rep)
{
	const char *path = getenv("GITHUB_STEP_SUMMARY");
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "a")))
		return;
	check_print_md(rep, f);
	fprintf(f,
	        "**verdict: %s** (%d ok, %d improved, %d regressed, %d could not judge, %d not "
	        "gated)\n\n",
	        check_overall(rep), rep->ok, rep->improved, rep->regressed, rep->unjudged,
	        rep->info);
	fclose(f);
}

static void check_print_json(const struct check_report *rep, FILE *f)
{
	cJSON *root = cJSON_CreateObject(), *cells = cJSON_CreateArray(), *notes;
	char *text;

	cJSON_AddStringToObject(root, "format", "gcratchet-check");
	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddStringToObject(root, "profile", rep->b->profile);
	cJSON_AddStringToObject(root, "collector", rep->b->collector);
	cJSON_AddStringToObject(root, "baseline", rep->baseline_path);
	cJSON_AddNumberToObject(root, "session", (double)rep->session);
	cJSON_AddStringToObject(root, "build", rep->build_name);
	cJSON_AddStringToObject(root, "size", rep->b->size);
	cJSON_AddStringToObject(root, "verdict",
	                        rep->regressed  ? "regression"
	                        : rep->unjudged ? "could_not_judge"
	                                        : "ok");
	notes = cJSON_AddArrayToObject(root, "stale");
	for (size_t i = 0; i < rep->stale.n; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(rep->stale.items[i]));
	notes = cJSON_AddArrayToObject(root, "notes");
	for (size_t i = 0; i < rep->notes.n; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(rep->notes.items[i]));
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct check_row *r = &rep->rows[i];
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "probe", r->probe);
		cJSON_AddStringToObject(c, "metric", r->metric);
		cJSON_AddStringToObject(c, "verdict",
		                        r->inert                     ? "inert"
		                        : r->state == CHECK_UNJUDGED ? "could_not_judge"
		                        : r->j.verdict == BASELINE_REGRESSED
		                            ? "regressed"
		                            : baseline_verdict_name(r->j.verdict));
		if (strcmp(r->metric, "checksum") != 0 && !r->inert) {
			cJSON_AddNumberToObject(c, "baseline", r->base);
			if (r->state == CHECK_JUDGED) {
				cJSON_AddNumberToObject(c, "current", r->current);
				cJSON_AddNumberToObject(c, "n", r->n);
				cJSON_AddNumberToObject(c, "delta", r->j.delta);
				if (isfinite(r->j.delta_pct))
					cJSON_AddNumberToObject(c, "delta_pct", r->j.delta_pct);
				cJSON_AddNumberToObject(c, "allowance", r->j.allowance);
				if (isfinite(r->j.used))
					cJSON_AddNumberToObject(c, "used", r->j.used);
			}
		}
		if (r->reason)
			cJSON_AddStringToObject(c, "reason", r->reason);
		cJSON_AddItemToArray(cells, c);
	}
	cJSON_AddItemToObject(root, "cells", cells);
	text = cJSON_Print(root);
	fprintf(f, "%s\n", text);
	cJSON_free(text);
	cJSON_Delete(root);
}

int cmd_check(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
	    {"--profile", 1},  {"--collector", 1}, {"--session", 1}, {"--format", 1}, {"--db", 1},
	    {"--baseline", 1}, {"--build", 1},     {"--base", 1},    {"--strict", 0}, {NULL, 0},
	};
	const char *cmd = "check", *opt, *val, *profile = NULL, *collector = CLI_DEFAULT_COLLECTOR;
	const char *format = "table", *db = NULL, *baseline_arg = NULL, *build_name = NULL;
	const char *base_name = NULL;
	struct store_run *base_runs = NULL;
	size_t nbase_runs = 0;
	int strict = 0;
	struct cli_iter it;
	struct baseline b = {0};
	struct check_report rep;
	struct store *st = NULL;
	struct store_session si = {0};
	struct store_build *builds = NULL;
	const struct store_build *build = NULL;
	struct store_run *runs = NULL;
	size_t nbuilds = 0, nruns = 0;
	struct err e;
	char *path = NULL;
	int64_t session = 0;
	uint64_t v;
	int rc = EXIT_UNJUDGED, r;

	memset(&rep, 0, sizeof rep);
	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, NULL)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_command(cmd), 0);
			goto out;
		} else if (strcmp(opt, "--profile") == 0) {
			profile = val;
		} else if (strcmp(opt, "--collector") == 0) {
			collector = val;
		} else if (strcmp(opt, "--session") == 0) {
			if (cli_parse_count(cmd, opt, val, 0, &v) != 0)
				goto out;
			session = (int64_t)v;
		} else if (strcmp(opt, "--format") == 0) {
			if (strcmp(val, "table") && strcmp(val, "md") && strcmp(val, "json") &&
			    strcmp(val, "junit")) {
				rc = cli_error(
				    cmd, "--format must be table, md, json or junit, got \"%s\"",
				    val);
				goto out;
			}
			format = val;
		} else if (strcmp(opt, "--db") == 0) {
			db = val;
		} else if (strcmp(opt, "--baseline") == 0) {
			baseline_arg = val;
		} else if (strcmp(opt, "--build") == 0) {
			build_name = val;
		} else if (strcmp(opt, "--base") == 0) {
			base_name = val;
		} else if (strcmp(opt, "--strict") == 0) {
			strict = 1;
		}
	}
	if (r < 0)
		goto out;
	if (!profile) {
		rc = cli_error(cmd, "--profile is required (shared_ci or pinned_host)");
		goto out;
	}
	path = baseline_arg ? xstrdup(baseline_arg) : cli_baseline_path(profile, collector);
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
	if (cli_find_session(cmd, st, cli_db_path(db), b.collector, b.size, &session) != 0)
		goto out;
	if (store_session_get(st, session, &si, &e) != 0 ||
	    store_session_builds(st, session, &builds, &nbuilds, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (cli_pick_build(cmd, builds, nbuilds, b.collector, build_name, session, &build) != 0)
		goto out;
	if (store_runs_load(st, session, build->id, &runs, &nruns, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}

	rep.b = &b;
	rep.baseline_path = path;
	rep.session = session;
	rep.build_name = build->name;
	if (strcmp(si.host_fingerprint, b.host_fingerprint) != 0) {
		char *n = xasprintf("the baseline was pinned on host %s (%s); this session ran on "
		                    "%s (%s): host drift may show%s",
		                    b.hostname, b.host_fingerprint, si.hostname ? si.hostname : "?",
		                    si.host_fingerprint, strict ? " (--strict: exit 2)" : "");
		strlist_push(&rep.stale, n);
		free(n);
	}
	if (strcmp(build->collector_version ? build->collector_version : "", b.collector_version) !=
	    0) {
		char *n = xasprintf(
		    "the baseline was pinned on %s %s; this session measured version %s%s",
		    b.collector, b.collector_version, build->collector_version,
		    strict ? " (--strict: exit 2)" : "");
		strlist_push(&rep.stale, n);
		free(n);
	}
	if (base_name) {
		const struct store_build *base = NULL;
		if (cli_pick_build(cmd, builds, nbuilds, NULL, base_name, session, &base) != 0)
			goto out;
		if (base->id == build->id) {
			rc = cli_error(cmd, "--base %s is the build being checked", base_name);
			goto out;
		}
		if (store_runs_load(st, session, base->id, &base_runs, &nbase_runs, &e) != 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
		rep.base_runs = base_runs;
		rep.nbase_runs = nbase_runs;
		rep.base_name = base->name;
	}
	if (strcmp(si.status, "complete") != 0) {
		char *n = xasprintf("session %lld is %s", (long long)session, si.status);
		strlist_push(&rep.notes, n);
		free(n);
	}
	for (size_t i = 0; i < b.nprobes; i++)
		check_probe(&rep, runs, nruns, b.probes[i].name);

	if (strcmp(format, "json") == 0)
		check_print_json(&rep, stdout);
	else if (strcmp(format, "junit") == 0)
		check_print_junit(&rep, stdout);
	else if (strcmp(format, "md") == 0)
		check_print_md(&rep, stdout);
	else
		check_print_table(&rep, stdout);
	if (strcmp(format, "table") == 0 || strcmp(format, "md") == 0)
		printf("\nverdict: %s (%d ok, %d improved, %d regressed, %d could not judge, %d "
		       "not gated)\n",
		       check_overall(&rep), rep.ok, rep.improved, rep.regressed, rep.unjudged,
		       rep.info);
	check_step_summary(&rep);
	rc = rep.regressed ? EXIT_REGRESSION : rep.unjudged ? EXIT_UNJUDGED : EXIT_OK;
	if (strict && rep.stale.n && rc == EXIT_OK)
		rc = EXIT_UNJUDGED;
out:
	for (size_t i = 0; i < rep.nrows; i++)
		free(rep.rows[i].reason);
	free(rep.rows);
	strlist_release(&rep.notes);
	strlist_release(&rep.stale);
	store_runs_release(base_runs, nbase_runs);
	store_runs_release(runs, nruns);
	store_builds_release(builds, nbuilds);
	store_session_release(&si);
	store_close(st);
	baseline_release(&b);
	free(path);
	return rc;
}
