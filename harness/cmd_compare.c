/*
 * gcratchet compare — two stored results judged as ab judges its two arms, without measuring
 * again: two sessions (or two arms of one), paired round by round.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ab_report.h"
#include "baseline.h"
#include "cli.h"
#include "cmds.h"
#include "compare.h"
#include "report_data.h"
#include "store.h"

struct compare_opts {
	const char *db, *base, *fix, *md, *json, *html;
	struct ab_report_view view; /* --across, --no-across, --wide */
};

/* A or B as a session id: N, or "latest" (the newest stored session). */
static int compare_session_arg(const char *cmd, struct store *st, const char *which,
                               const char *val, int64_t *id)
{
	struct err e;
	int r = cli_parse_session(cmd, which, val, "latest", id);

	if (r < 0)
		return -1;
	if (r == 0)
		return 0;
	if (store_latest_session(st, NULL, id, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		return -1;
	}
	if (*id == 0) {
		cli_error(
		    cmd, "%s is latest, but %s holds no session: run gcratchet measure or ab first",
		    which, store_where(st));
		return -1;
	}
	return 0;
}

/*
 * The arm of d a side takes: the one labelled `label`; else `fallback` (the first arm, or for
 * FIX in BASE's own session, the second). Says on stderr which it took when there was a choice.
 */
static long compare_pick_arm(const char *cmd, const char *side, const char *opt,
                             const struct report_data *d, const char *label, size_t fallback)
{
	long i;

	if (label) {
		if ((i = report_data_arm_named(d, label)) < 0) {
			struct sbuf b;
			sbuf_init(&b);
			for (size_t k = 0; k < d->nbuilds; k++)
				sbuf_addf(&b, "%s\"%s\"", k ? ", " : "", d->builds[k].label);
			cli_error(cmd,
			          "%s %s: session %lld has no arm labelled \"%s\" (its arms: %s)",
			          opt, label, (long long)d->session.id, label, b.data);
			sbuf_release(&b);
		}
		return i;
	}
	if (fallback >= d->nbuilds) {
		cli_error(cmd,
		          "session %lld measured one build (%s): name another session as %s, or "
		          "compare two arms of an ab session",
		          (long long)d->session.id, d->builds[0].label, side);
		return -1;
	}
	if (d->nbuilds > 1)
		fprintf(stderr,
		        "gcratchet %s: %s is arm \"%s\" of session %lld's %zu (%s LABEL takes "
		        "another)\n",
		        cmd, side, cli_safe(d->builds[fallback].label), (long long)d->session.id,
		        d->nbuilds, opt);
	return (long)fallback;
}

/* A side named by a path (a slash, a .json name, or a file that is there) is a baseline file. */
static int compare_is_file(const char *arg)
{
	size_t n = strlen(arg);

	return strchr(arg, '/') || (n > 5 && strcmp(arg + n - 5, ".json") == 0) ||
	       (strspn(arg, "0123456789") != n && strcmp(arg, "latest") != 0 &&
	        access(arg, F_OK) == 0);
}

static int compare_main(int argc, char **argv)
{
	const char *cmd = cmd_compare.name, *which[2] = {"A", "B"}, *opt[2] = {"--base", "--fix"};
	const char *side[2] = {"BASE", "FIX"}, *label[2];
	struct compare_opts o = {.view.across = COMPARE_MODE_AUTO};
	struct strlist args = {0};
	struct store *st = NULL;
	struct report_data d[2], merged;
	struct baseline bl;
	struct err e;
	int64_t id[2] = {0, 0};
	long arm[2] = {0, 0};
	int file[2], rc = EXIT_UNJUDGED, r, loaded[2] = {0, 0}, have_merged = 0;

	memset(d, 0, sizeof d);
	if ((r = cli_parse(&cmd_compare, argc, argv, &o, &args)) != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	if (args.n != 2) {
		rc = cli_error(cmd,
		               "expected two stored results, A and B, got %zu argument%s (see "
		               "gcratchet compare --help)",
		               args.n, args.n == 1 ? "" : "s");
		goto out;
	}
	label[0] = o.base;
	label[1] = o.fix;
	for (int k = 0; k < 2; k++)
		file[k] = compare_is_file(args.items[k]);
	/* gcratchet-ab's JSON names every session, build and run by its stored id; a pin has none. */
	if ((file[0] || file[1]) && o.json) {
		rc = cli_error(
		    cmd,
		    "--json: %s is a baseline file, whose pinned cells are no stored session, "
		    "build or run, and format gcratchet-ab names each by its id: compare "
		    "two sessions for JSON, or use check --baseline FILE --format json",
		    file[0] ? "A" : "B");
		goto out;
	}
	if (file[0] && file[1]) {
		rc = cli_error(
		    cmd, "A and B are both baseline files: a baseline keeps medians, not runs, "
		         "so compare needs a stored session on one side at least");
		goto out;
	}
	if (store_open(cli_db_path(o.db), STORE_READ, &st, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	/* The stored sessions first: a baseline's side is made to pair with the other's runs. */
	for (int k = 0; k < 2; k++) {
		if (file[k])
			continue;
		if (compare_session_arg(cmd, st, which[k], args.items[k], &id[k]) != 0)
			goto out;
		if (report_data_load(st, id[k], &d[k], &e) != 0) {
			cli_error(cmd, "%s %s: %s", which[k], args.items[k], e.msg);
			goto out;
		}
		loaded[k] = 1;
	}
	for (int k = 0; k < 2; k++) {
		/* FIX in BASE's own session is its second arm, unless --fix says. */
		size_t fallback = k == 1 && !file[0] && id[0] == id[1];
		if (file[k])
			continue;
		if ((arm[k] = compare_pick_arm(cmd, side[k], opt[k], &d[k], label[k], fallback)) <
		    0)
			goto out;
	}
	for (int k = 0; k < 2; k++) {
		if (!file[k])
			continue;
		if (label[k]) {
			rc = cli_error(cmd, "%s %s: %s is a baseline file, which has one arm",
			               opt[k], label[k], which[k]);
			goto out;
		}
		if (baseline_load(args.items[k], &bl, &e) != 0) {
			cli_error(cmd, "%s: %s", which[k], e.msg);
			goto out;
		}
		report_data_from_baseline(&bl, args.items[k], &d[!k], (size_t)arm[!k], &d[k]);
		baseline_release(&bl);
		loaded[k] = 1;
	}
	if (!file[0] && !file[1] && id[0] == id[1] && arm[0] == arm[1]) {
		rc = cli_error(cmd, "BASE and FIX are one arm (\"%s\" of session %lld): name two",
		               d[0].builds[arm[0]].label, (long long)id[0]);
		goto out;
	}
	loaded[0] = loaded[1] = 0; /* consumed by the merge, whatever it returns */
	if (report_data_merge(&d[0], (size_t)arm[0], &d[1], (size_t)arm[1], &merged, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	have_merged = 1;
	rc = ab_report_data(cmd, &merged, 0, 1, &o.view, o.md, o.json, o.html, 0);
out:
	if (have_merged)
		report_data_release(&merged);
	for (int k = 0; k < 2; k++)
		if (loaded[k])
			report_data_release(&d[k]);
	strlist_release(&args);
	store_close(st);
	return rc;
}

#define CO(field) offsetof(struct compare_opts, field)
static const struct cli_option compare_options[] = {
    {"--base", "LABEL", CLI_STRING, CO(base),
     .help = "BASE, A's arm by its label (default: A's first arm)"},
    {"--fix", "LABEL", CLI_STRING, CO(fix),
     .help = "FIX, B's arm by its label (default: B's first arm; its second when B is A)"},
    {"--across, --no-across and --wide", .kind = CLI_INCLUDE, .off = CO(view),
     .rows = ab_report_options, .group = AB_REPORT_OPT_ACROSS | AB_REPORT_OPT_WIDE},
    {"--md", "FILE", CLI_STRING, CO(md), .help = "Markdown for a pull request, as ab's"},
    {"--json", "FILE", CLI_STRING, CO(json),
     .help = "every sample and every statistic (format gcratchet-ab)"},
    {"--html", "FILE", CLI_STRING, CO(html),
     .help = "a self-contained page with one plot per cell"},
    {"--db", "FILE", CLI_STRING, CO(db),
     .help = "the database (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {0},
};
#undef CO

const struct cli_verb cmd_compare = {
    .name = "compare",
    .summary = "compare two stored results as ab does, without measuring again",
    .args = "A B",
    .description =
        "Compares two stored sessions, BASE from A and FIX from B, with ab's statistics and\n"
        "reports (the table on stdout; --md, --json, --html as ab writes them): identity first,\n"
        "then one row per cell of the probes both measured, paired round by round (round k of A\n"
        "with round k of B, the fewer rounds of the two; valgrind runs in the order they ran).\n"
        "Nothing is measured. A and B are session ids or latest; one session twice compares two\n"
        "of its arms (an ab session: BASE its first arm, FIX its second), so compare N N judges\n"
        "the runs ab N judged, the same way. --base and --fix pick arms by label.\n"
        "\n"
        "A or B may be a baseline file instead (a path: a slash, or a name ending .json), its\n"
        "pinned cells one arm, COLLECTOR (pinned). A baseline keeps medians, not runs: each\n"
        "round of the session pairs with the pinned median, its checksums and functions are\n"
        "the pinned ones, and the pin's own spread is in no test; exact figures (Ir, the\n"
        "census) compare as they would in two sessions. --json needs two sessions (its format\n"
        "names every session, build and run by its stored id).\n"
        "\n"
        "Two sessions were not interleaved: what changed on the host between them is in the\n"
        "deltas, so time reads with care; Ir and the census do not depend on it. The text says\n"
        "plainly when the two were measured on different hosts (their fingerprints differ) or by\n"
        "different builds of the harness, and compares them all the same.\n",
    .exit_status = "0 no cell worse; 1 FIX is worse on some cell, or its results differ from "
                   "BASE's; 2 could not judge (no such session, a baseline file that does "
                   "not parse, an arm not found, no probe in common, an incomplete session).",
    .options = compare_options,
    .run = compare_main,
};
