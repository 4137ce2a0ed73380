/*
 * report_check.h — the ratchet check (check.h) as the terminal table `check` prints, GitHub
 * Markdown (--format md, --md FILE, and $GITHUB_STEP_SUMMARY: sized for a pull-request
 * comment), JSON ("gcratchet-check" version 1), JUnit XML and an HTML page (--html FILE).
 *
 * What cannot pass comes first in every form: the reason the whole check could not be judged
 * (check_result.why) on the first line of the table and the Markdown (whose first line is the
 * verdict: "### gcratchet check: COULD NOT JUDGE: why"), on the page's verdict banner, as the
 * first member after
 * the format of the JSON ("verdict", then "reason"), and as a comment under the XML
 * declaration plus an errored testcase in JUnit; then staleness. Every field from outside
 * (names, reasons from a probe's stderr) goes through the format's escaper (escape.h).
 */
#ifndef REPORT_CHECK_H
#define REPORT_CHECK_H

#include <stdint.h>

#include "baseline.h"
#include "check.h"

#define REPORT_CHECK_FORMAT  "gcratchet-check"
#define REPORT_CHECK_VERSION 1

/* A judged check and what a reader needs to place it; everything borrowed. */
struct report_check {
	const struct check_result *res;
	const struct baseline *baseline;
	const char *baseline_path;
	int64_t session;
	const char *build_name;
	const char *base_name; /* check --base, or NULL */
	/*
	 * The terminal table: every cell (--all), or by default only the rows that are not ok
	 * or info, one line per probe and a footer saying how to see the rest; in colour (the
	 * caller decides: a terminal, NO_COLOR unset).
	 */
	int all;
	int colour;
	/*
	 * For the HTML page: the arm's runs (the session's samples of each cell that is not ok),
	 * or NULL; and the session's own page to link to (report --session N --html), or NULL.
	 */
	const struct store_run *runs;
	size_t nruns;
	const char *samples_href;
};

/*
 * What a check's gated cells can see, a class at a time ("exact 120 cells: any change; ..."),
 * and the cells that cannot see its target, named; each newly allocated, no newline, or NULL
 * when there is nothing to say.
 */
char *report_check_sees(const struct check_result *res);
char *report_check_insensitive(const struct check_result *res);

/* Each newly allocated, ending in a newline. */
char *report_check_text(const struct report_check *c);
/*
 * The Markdown a pull request shows (--format md, --md, $GITHUB_STEP_SUMMARY): the verdict,
 * what cannot pass, each row that is not ok once, where their instructions went, and the
 * baseline behind one fold; an ok check is a few lines. _full: every row (--md-full), as the
 * comment was before it was made short.
 */
char *report_check_md(const struct report_check *c);
char *report_check_md_full(const struct report_check *c);
char *report_check_json(const struct report_check *c);
char *report_check_junit(const struct report_check *c);
/*
 * A self-contained page (report_html.h: no script, nothing from outside): the verdict first,
 * the baseline (file, pin date, host, session), what cannot pass, one line per probe, every
 * row that is not ok with its band, pinned value and the session's samples of it, where the
 * instructions moved against the pin, and the other rows in one closed <details>.
 */
char *report_check_html(const struct report_check *c);

#endif /* REPORT_CHECK_H */
