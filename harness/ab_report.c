/*
 * ab_report.c — the A/B of a stored session as ab and report show it (ab_report.h): judged by
 * compare.c, rendered by reports/, printed and written here.
 */
#include "ab_report.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "paired.h"
#include "report.h"
#include "report_html.h"
#include "report_json.h"
#include "report_md.h"
#include "report_text.h"

static int ab_report_write(const char *cmd, const char *path, const char *text)
{
	struct err e;

	if (write_file_atomic(path, text, strlen(text), &e) != 0)
		return cli_error(cmd, "%s", e.msg);
	return 0;
}

/* --across and --no-across land in one enum compare_mode; both given contradict. */
static int ab_report_across(void *field, const struct cli_option *row, const char *val,
                            struct err *e)
{
	int *mode = field, want = (int)row->max;

	(void)val;
	if (*mode != COMPARE_MODE_AUTO && *mode != want)
		return err_setc(e, ERR_INVALID,
		                "--across and --no-across contradict each other: give one");
	*mode = want;
	return 0;
}

const struct cli_option ab_report_options[] = {
    {"--across", NULL, CLI_CALL, 0, .max = COMPARE_MODE_ACROSS, .call = ab_report_across,
     .group = AB_REPORT_OPT_ACROSS,
     .help = "two collector designs: the census (collections, bytes copied or promoted, "
             "barrier hits, heap as the collector counts it) is context, only costs decide "
             "(time, Ir, RSS, memory, cachesim, perf); the default when the builds' "
             "collector names differ"},
    {"--no-across", NULL, CLI_CALL, 0, .max = COMPARE_MODE_SAME, .call = ab_report_across,
     .group = AB_REPORT_OPT_ACROSS, .help = "judge the census as within one design"},
    {"--wide", NULL, CLI_FLAG, offsetof(struct ab_report_view, wide), .group = AB_REPORT_OPT_WIDE,
     .help = "the full table on stdout: every column (p, MDE), every digit, lines as long as "
             "they come (by default it fits 120 columns)"},
    {0},
};

int ab_report_session(const char *cmd, struct store *st, int64_t session, const char *base_name,
                      const char *fix_name, const struct ab_report_view *view, const char *md_path,
                      const char *json_path, const char *html_path, int step_summary)
{
	struct report_data d;
	struct err e;
	long base = 0, fix = 1;
	int rc = EXIT_UNJUDGED;

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
	rc = ab_report_data(cmd, &d, (size_t)base, (size_t)fix, view, md_path, json_path, html_path,
	                    step_summary);
out:
	report_data_release(&d);
	return rc;
}

int ab_report_data(const char *cmd, const struct report_data *d, size_t base, size_t fix,
                   const struct ab_report_view *view, const char *md_path, const char *json_path,
                   const char *html_path, int step_summary)
{
	struct compare c;
	struct err e;
	char *text = NULL, *md = NULL;
	int rc;

	compare_build(d, base, fix, PAIRED_FDR_Q, (enum compare_mode)view->across, &c);
	text = report_text_ab(&c, cmd, view->wide);
	fputs(text, stdout);
	fflush(stdout);
	md = report_md_ab(&c);
	rc = c.outcome == COMPARE_WORSE      ? EXIT_REGRESSION
	     : c.outcome == COMPARE_UNJUDGED ? EXIT_UNJUDGED
	                                     : EXIT_OK;
	if (md_path && ab_report_write(cmd, md_path, md) != 0)
		rc = EXIT_UNJUDGED;
	if (json_path) {
		char *json = report_json_ab(&c);
		if (ab_report_write(cmd, json_path, json) != 0)
			rc = EXIT_UNJUDGED;
		free(json);
	}
	if (html_path) {
		char *html = report_html_ab(&c);
		if (ab_report_write(cmd, html_path, html) != 0)
			rc = EXIT_UNJUDGED;
		free(html);
	}
	if (step_summary && report_step_summary(md, &e) != 0)
		rc = cli_error(cmd, "%s", e.msg);
	free(md);
	free(text);
	compare_release(&c);
	return rc;
}
