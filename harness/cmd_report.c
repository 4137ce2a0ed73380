/* gcratchet report — the pages and tables of any stored session, after the fact. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline.h"
#include "cli.h"
#include "cmds.h"
#include "ab_report.h"
#include "compare.h"
#include "history.h"
#include "report.h"
#include "report_history.h"
#include "report_html.h"
#include "report_json.h"
#include "report_md.h"
#include "report_site.h"
#include "report_sweep.h"
#include "store.h"

/* Renders one format (REPORT_MD, REPORT_JSON, REPORT_HTML) of what ctx holds. */
enum report_format { REPORT_MD, REPORT_JSON, REPORT_HTML, REPORT_FORMATS };
typedef char *(*report_render_fn)(const void *ctx, enum report_format f);

/*
 * Writes each format whose path is given (md, json, html), saying each file with `what`; a
 * file that cannot be written is said and the others are still written.
 */
static int report_write_formats(const char *cmd, const char *const paths[REPORT_FORMATS],
                                report_render_fn render, const void *ctx, const char *what)
{
	int rc = EXIT_OK;

	if (!paths[REPORT_MD] && !paths[REPORT_JSON] && !paths[REPORT_HTML])
		return cli_error(cmd, "nothing to write: give --html, --md or --json FILE");
	for (int i = 0; i < REPORT_FORMATS; i++) {
		struct err e;
		char *text;

		if (!paths[i])
			continue;
		text = render(ctx, (enum report_format)i);
		if (write_file_atomic(paths[i], text, strlen(text), &e) != 0)
			rc = cli_error(cmd, "%s", e.msg);
		else if (write_file_is_stdout(paths[i]))
			fprintf(stderr, "gcratchet %s: %s: stdout\n", cmd, what);
		else
			printf("gcratchet %s: %s: %s\n", cmd, what, paths[i]);
		free(text);
	}
	return rc;
}

static char *report_render_session(const void *ctx, enum report_format f)
{
	const struct report_data *d = ctx;

	return f == REPORT_MD     ? report_md_session(d)
	       : f == REPORT_JSON ? report_json_session_summary(d)
	                          : report_html_session(d);
}

static char *report_render_sweep(const void *ctx, enum report_format f)
{
	const struct report_sweep *r = ctx;

	return f == REPORT_MD     ? report_sweep_md(r)
	       : f == REPORT_JSON ? report_sweep_json(r)
	                          : report_sweep_html(r);
}

/*
 * One build: no comparison. The HTML page draws every sample by round; Markdown and JSON
 * carry each probe's medians and the pause figures (JSON with every run, as export's).
 */
static int report_session_page(const char *cmd, struct store *st, int64_t session,
                               const char *const paths[REPORT_FORMATS])
{
	struct report_data d;
	struct err e;
	char what[128];
	int rc;

	if (report_data_load(st, session, &d, &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	snprintf(what, sizeof what, "session %lld (%zu build%s, %zu runs)", (long long)session,
	         d.nbuilds, d.nbuilds == 1 ? "" : "s", d.nruns);
	rc = report_write_formats(cmd, paths, report_render_session, &d, what);
	report_data_release(&d);
	return rc;
}

/* A sweep (gcratchet sweep): its curves and tables, not a comparison of two arms. */
static int report_sweep_pages(const char *cmd, struct store *st, int64_t session,
                              const char *const paths[REPORT_FORMATS])
{
	struct report_sweep r;
	struct err e;
	char what[160];
	int rc;

	if (report_sweep_load(st, session, &r, &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	snprintf(what, sizeof what, "sweep session %lld (%zu builds x %zu factors, %zu probes)",
	         (long long)session, r.t.nbuilds, r.t.nfactors, r.t.nprobes);
	rc = report_write_formats(cmd, paths, report_render_sweep, &r, what);
	report_sweep_release(&r);
	return rc;
}

/*
 * The pinned baseline's figure and band for the page. A missing file or cell is said on the
 * page, never an error: a history is worth seeing before anything is pinned. A file that is
 * there but does not load is said too, with the loader's message.
 */
static void report_history_baseline(const char *profile, struct report_history *h,
                                    struct baseline *b, char **why)
{
	struct err e = ERR_INIT;

	if (baseline_load(h->baseline_path, b, &e) != 0) {
		*why = e.code == ERR_NOT_FOUND
		           ? xasprintf("No %s baseline of %s is pinned (%s): no band drawn.",
		                       profile, h->collector, h->baseline_path)
		           : xasprintf("The baseline does not load, no band drawn: %s", e.msg);
		return;
	}
	report_history_band(h, b, why);
}

/* report --history: one metric's history across sessions as trend lines per host. */
static int report_history_page(const char *cmd, const struct history_query *q, const char *profile,
                               const char *out_path, int zero_axis)
{
	struct history_series s;
	struct history_query at = *q;
	struct report_history h = {0};
	struct baseline b = {0};
	struct err e = ERR_INIT;
	char *why = NULL, *html = NULL, *note, *path = cli_baseline_find(profile, q->collector);
	int rc = EXIT_OK;

	at.db = cli_db_path(q->db);
	if (history_load(&at, &s, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if ((note = history_order_note(&s)) != NULL) {
		fprintf(stderr, "gcratchet %s: %s\n", cmd, note);
		free(note);
	}
	h = (struct report_history){
	    .collector = q->collector,
	    .probe = s.probe,
	    .metric = q->metric,
	    .since = q->since,
	    .size = q->size,
	    .where = s.where,
	    .points = s.order,
	    .n = s.n,
	    .baseline_path = path,
	    .zero_axis = zero_axis,
	};
	report_history_baseline(profile, &h, &b, &why);
	h.no_band = why;
	html = report_history_html(&h);
	if (!out_path) {
		fputs(html, stdout);
		rc = fflush(stdout) == 0 ? EXIT_OK : cli_error(cmd, "writing to stdout failed");
	} else if (write_file_atomic(out_path, html, strlen(html), &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
	} else {
		fprintf(write_file_is_stdout(out_path) ? stderr : stdout,
		        "gcratchet %s: history of %s of %s on %s (%zu session%s, %s): %s\n", cmd,
		        q->metric, s.probe, q->collector, s.n, s.n == 1 ? "" : "s",
		        h.has_band ? "baseline band" : "no baseline band",
		        write_file_is_stdout(out_path) ? "stdout" : out_path);
	}
	history_release(&s);
out:
	baseline_release(&b);
	free(html);
	free(why);
	free(path);
	return rc;
}

/*
 * report --site DIR: the store as a static site (report_site.h), written into DIR (made when
 * missing). DIR is checked before the store is read: a CI job that cannot publish hears so
 * first.
 */
static int report_site_pages(const char *cmd, const struct history_query *q, const char *profile,
                             const char *dir, int zero_axis)
{
	struct report_site_query sq = {.profile = profile,
	                               .since = q->since,
	                               .git = q->git,
	                               .zero_axis = zero_axis,
	                               .baseline_path = cli_baseline_find};
	struct report_site site = {0};
	struct report_site_page *pages = NULL;
	struct store *st = NULL;
	struct stat sb;
	struct err e;
	size_t npages = 0, trends = 0, checks = 0;
	int rc = EXIT_UNJUDGED;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		rc = cli_error(cmd, "--site %s: cannot make the directory: %s", dir,
		               strerror(errno));
		goto out;
	}
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		rc = cli_error(cmd, "--site %s: not a directory", dir);
		goto out;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		rc = cli_error(cmd, "--site %s: not writable: %s", dir, strerror(errno));
		goto out;
	}
	if (store_open(cli_db_path(q->db), STORE_READ, &st, &e) != 0 ||
	    report_site_load(st, &sq, &site, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	report_site_render(&site, &pages, &npages);
	rc = EXIT_OK;
	for (size_t i = 0; i < npages; i++) {
		char *path = xasprintf("%s/%s", dir, pages[i].file);
		if (write_file_atomic(path, pages[i].text, strlen(pages[i].text), &e) != 0)
			rc = cli_error(cmd, "%s", e.msg);
		trends += strncmp(pages[i].file, "trend-", 6) == 0;
		checks += strncmp(pages[i].file, "check-", 6) == 0;
		free(path);
	}
	if (rc == EXIT_OK)
		printf(
		    "gcratchet %s: site of %zu collector%s, %zu row%s (%zu trend page%s, %zu check "
		    "page%s): %s/index.html\n",
		    cmd, site.ncollectors, site.ncollectors == 1 ? "" : "s", site.ncells,
		    site.ncells == 1 ? "" : "s", trends, trends == 1 ? "" : "s", checks,
		    checks == 1 ? "" : "s", dir);
out:
	report_site_pages_release(pages, npages);
	report_site_release(&site);
	store_close(st);
	return rc;
}

/* What report takes; a session's options, or --history's. */
struct report_opts {
	int64_t session; /* CLI_SESSION_WORD: latest */
	const char *html, *md, *json, *base, *fix, *profile, *out;
	struct ab_report_view view; /* --across, --no-across, --wide */
	int history, zero_axis;
	const char *site;       /* --site DIR */
	struct history_query q; /* --history's, and --db */
};

/* The first option given that --site does not take: it draws every collector, probe and
 * gated metric, at each baseline's size, into DIR. */
static void report_site_refused(void *ctx, const struct cli_option *row, const char *val)
{
	const char **first = ctx;
	static const char *const refused[] = {"--collector", "--probe",   "--metric", "--size",
	                                      "--out",       "--session", "--html",   "--md",
	                                      "--json",      "--base",    "--fix",    "--across",
	                                      "--no-across", "--history", NULL};

	(void)val;
	for (size_t i = 0; row && refused[i]; i++)
		if (strcmp(row->name, refused[i]) == 0 && !*first)
			*first = row->name;
}

/* The first option given that only --history takes (marked HISTORY_OPT_QUERY). */
static void report_history_only(void *ctx, const struct cli_option *row, const char *val)
{
	const char **first = ctx;

	(void)val;
	if (row && (row->group & HISTORY_OPT_QUERY) && !*first)
		*first = row->name;
}

static int report_main(int argc, char **argv)
{
	const char *cmd = cmd_report.name, *history_only = NULL, *not_site = NULL;
	struct report_opts o = {.profile = "shared_ci", .view.across = COMPARE_MODE_AUTO};
	const char *paths[REPORT_FORMATS] = {NULL};
	const char *db, *html, *md, *json, *base, *fix;
	struct store *st = NULL;
	struct store_build *builds = NULL;
	size_t nbuilds = 0;
	struct err e;
	int64_t session;
	int rc = EXIT_UNJUDGED, r, across, history, latest;

	if ((r = cli_parse(&cmd_report, argc, argv, &o, NULL)) != 0)
		return r > 0 ? EXIT_OK : EXIT_UNJUDGED;
	cli_scan(&cmd_report, argc, argv, report_history_only, &history_only);
	latest = o.session == CLI_SESSION_WORD;
	session = latest ? 0 : o.session;
	db = o.q.db;
	html = o.html;
	md = o.md;
	json = o.json;
	base = o.base;
	fix = o.fix;
	across = o.view.across;
	history = o.history;
	if (o.site) {
		cli_scan(&cmd_report, argc, argv, report_site_refused, &not_site);
		if (not_site) {
			rc = cli_error(
			    cmd,
			    "--site draws every collector, probe and gated metric: %s does "
			    "not apply (it takes --profile, --since, --git, --zero-axis "
			    "and --db)",
			    not_site);
			goto out;
		}
		if (cli_check_profile(cmd, o.profile) != 0)
			goto out;
		rc = report_site_pages(cmd, &o.q, o.profile, o.site, o.zero_axis);
		goto out;
	}
	if (history) {
		if (session || latest || html || md || json || base || fix || o.view.wide ||
		    across != COMPARE_MODE_AUTO) {
			rc = cli_error(
			    cmd,
			    "--history takes --collector, --probe, --metric, --since, "
			    "--size, --git, --profile, --db and --out, not a session's options");
			goto out;
		}
		rc = report_history_page(cmd, &o.q, o.profile, o.out, o.zero_axis);
		goto out;
	}
	if (history_only) {
		rc = cli_error(cmd, "%s applies to --history only", history_only);
		goto out;
	}
	if (session == 0 && !latest) {
		rc = cli_error(cmd, "--session N is required, or --session latest (see gcratchet "
		                    "list sessions)");
		goto out;
	}
	if (store_open(cli_db_path(db), STORE_READ, &st, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	/* latest: the newest session that got going, as export's default (a CI job's own). */
	if (latest && store_latest_session(st, NULL, &session, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (session == 0) {
		rc = cli_error(cmd, "no session in %s: run gcratchet measure or ab first",
		               store_where(st));
		goto out;
	}
	if (store_session_builds(st, session, &builds, &nbuilds, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (nbuilds == 0) {
		struct store_session si;
		/* Tell "no such session" from "a session that never got going". */
		if (store_session_get(st, session, &si, &e) != 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
		store_session_release(&si);
		rc = cli_error(cmd, "session %lld has no builds recorded", (long long)session);
		goto out;
	}
	paths[REPORT_MD] = md;
	paths[REPORT_JSON] = json;
	paths[REPORT_HTML] = html;
	{
		struct store_sweep_cell *cells = NULL;
		size_t ncells = 0;

		if (store_sweep_load(st, session, &cells, &ncells, &e) != 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
		store_sweep_release(cells, ncells);
		if (ncells) {
			if (base || fix || across != COMPARE_MODE_AUTO) {
				rc = cli_error(cmd,
				               "session %lld is a sweep: --base, --fix and "
				               "--across do not apply",
				               (long long)session);
				goto out;
			}
			rc = report_sweep_pages(cmd, st, session, paths);
			goto out;
		}
	}
	if (nbuilds == 1) {
		if (base || fix || across != COMPARE_MODE_AUTO) {
			rc =
			    cli_error(cmd,
			              "session %lld measured one build: --base, --fix and --across "
			              "compare two",
			              (long long)session);
			goto out;
		}
		rc = report_session_page(cmd, st, session, paths);
		goto out;
	}
	rc = ab_report_session(cmd, st, session, base, fix, &o.view, md, json, html, 0);
out:
	store_builds_release(builds, nbuilds);
	store_close(st);
	return rc;
}

#define RO(field) offsetof(struct report_opts, field)
static const struct cli_option report_options[] = {
    {"--session", "N|latest", CLI_SESSION, RO(session), .values = "latest",
     .help = "the session rendered (latest: the newest stored)"},
    {"--html", "FILE", CLI_STRING, RO(html), .help = "the page written there"},
    {"--md", "FILE", CLI_STRING, RO(md), .help = "the Markdown written there"},
    {"--json", "FILE", CLI_STRING, RO(json), .help = "the JSON written there"},
    {"--base", "LABEL", CLI_STRING, RO(base),
     .help = "BASE, by its label (default: the first arm)"},
    {"--fix", "LABEL", CLI_STRING, RO(fix), .help = "FIX, by its label (default: the second arm)"},
    {"--across, --no-across and --wide", .kind = CLI_INCLUDE, .off = RO(view),
     .rows = ab_report_options, .group = AB_REPORT_OPT_ACROSS | AB_REPORT_OPT_WIDE},
    {"--history", NULL, CLI_FLAG, RO(history),
     .help = "a metric's history as an HTML page, with the options below"},
    {"history's query", .kind = CLI_INCLUDE, .off = RO(q), .rows = history_options,
     .group = HISTORY_OPT_QUERY | HISTORY_OPT_DB, .flags = CLI_OPTIONAL},
    /* Marked HISTORY_OPT_QUERY: given without --history, it is refused. */
    {"--profile", "P", CLI_STRING, RO(profile), .group = HISTORY_OPT_QUERY,
     .help = "--history: the baseline whose band is drawn (default shared_ci)"},
    {"--out", "FILE", CLI_STRING, RO(out), .group = HISTORY_OPT_QUERY,
     .help = "--history: the page written there (default: stdout)"},
    {"--zero-axis", NULL, CLI_FLAG, RO(zero_axis), .group = HISTORY_OPT_QUERY,
     .help = "--history, --site: draw the value axis from zero (default: the range of the "
             "data and the band)"},
    {"--site", "DIR", CLI_STRING, RO(site),
     .help = "the whole store as a static site in DIR: an index of every collector x probe x "
             "gated metric, regressions first, with trend and check pages"},
    {0},
};
#undef RO

const struct cli_verb cmd_report = {
    .name = "report",
    .summary = "render a stored session, a metric's history, or the whole store as a site",
    .description =
        "Renders a stored session (latest: the newest one stored). With two or more arms it is\n"
        "the A/B comparison of ab (BASE and FIX: the session's first two arms unless named by\n"
        "label), printed as a table and written as HTML, Markdown or JSON, with ab's exit status;\n"
        "--across and --no-across judge the census as ab's do. With one build, --html writes a\n"
        "page with every sample by round.\n"
        "\n"
        "--history renders the series gcratchet history prints as an HTML page (to FILE, or\n"
        "stdout): one trend line per host over the session medians in commit order, and the\n"
        "value and band of the cell pinned in baselines/<profile>/<C>.json (profile default\n"
        "shared_ci) drawn across; a missing baseline or cell is said on the page, no band drawn.\n"
        "The value axis spans the data and the band (--zero-axis: from zero); each point is\n"
        "labelled by its commit and build, and a point beyond the band is ringed and listed.\n"
        "\n"
        "--site DIR writes the whole store (SQLite, or a fleet's PostgreSQL with --db URL) as a\n"
        "static site: DIR/index.html lists every collector x probe x gated metric with the\n"
        "verdict of its collector's newest session against its baseline and a sparkline,\n"
        "regressions first, each linking to its trend page and its collector's check page,\n"
        "written beside it. Links are relative and nothing is fetched: a CI job publishes DIR.\n",
    .exit_status =
        "a session of two or more arms, as ab's (0 no cell worse, 1 FIX is worse, 2 "
        "could not judge); otherwise 0 rendered (--site: whatever the verdicts); 2 no such "
        "session or series, an empty store, an unwritable file or directory, or bad "
        "arguments.",
    .options = report_options,
    .run = report_main,
};
