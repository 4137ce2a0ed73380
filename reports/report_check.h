/*
 * report_check.h — the ratchet check (check.h) as the terminal table `check` prints, GitHub
 * Markdown (--format md, and $GITHUB_STEP_SUMMARY), JSON ("gcratchet-check" version 1) and
 * JUnit XML.
 *
 * What cannot pass comes first in every form: the reason the whole check could not be judged
 * (check_result.why) on the first line of the table and the Markdown, as the first member after
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
};

/* Each newly allocated, ending in a newline. */
char *report_check_text(const struct report_check *c);
char *report_check_md(const struct report_check *c);
char *report_check_json(const struct report_check *c);
char *report_check_junit(const struct report_check *c);

#endif /* REPORT_CHECK_H */
