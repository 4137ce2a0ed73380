/* gcratchet check — judge a measured session against a committed baseline profile. */
#include "cli.h"
#include "cmds.h"
#include "verdict.h"

static int check_main(int argc, char **argv)
{
	struct verdict_opts o = {0};
	int r = cli_parse(&cmd_check, argc, argv, &o, NULL);

	if (r != 0)
		return r > 0 ? EXIT_OK : EXIT_UNJUDGED;
	return verdict_session(cmd_check.name, &o);
}

static const struct cli_option check_verb_options[] = {
    {.name = "check's options",
     .kind = CLI_INCLUDE,
     .rows = verdict_options,
     .group = VERDICT_OPT_JUDGE | VERDICT_OPT_STORED},
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
        "Markdown (md) is the pull-request comment, a few lines: the verdict, each row that is\n"
        "not ok once, the functions summed over the probes, and one fold with the baseline;\n"
        "--md-full writes every row instead; json and junit carry every cell. It is also appended "
        "to $GITHUB_STEP_SUMMARY when that\n"
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
