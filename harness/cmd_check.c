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
        "not measured cannot be judged. A baseline pinned on another collector version, or on a\n"
        "host that differs in a fact a gated figure depends on (CPU model, cores, memory,\n"
        "architecture, page size, kernel, libc: each named, old -> new), is named STALE on the\n"
        "first line; --strict makes that exit 2, and any other host STALE. With --base BUILD\n"
        "(another build measured in the same session, e.g. the unchanged collector), each\n"
        "regressed cell says how much of its delta the base shows too (drift since the pin) and\n"
        "how much is the change. A regressed or improved Ir cell shows the functions that moved\n"
        "most against the pin (the baseline keeps each probe's largest; gcratchet explain lists\n"
        "them all). The Markdown (md) is the pull-request comment, a few lines: the verdict,\n"
        "each row that is not ok once, the functions summed over the probes, and one fold with\n"
        "the baseline; --md-full writes every row instead; json and junit carry every cell. It is\n"
        "also appended to $GITHUB_STEP_SUMMARY when that is set, and written to FILE with --md.\n"
        "--html FILE writes the check page: the verdict, the baseline, every row that is not ok\n"
        "with its band and samples, the functions, and a link to the session's page when\n"
        "--samples-href names it (report --session N --html). Every gated cell states the\n"
        "smallest change it would catch at the session's runs (the \"sees\" column, a \"can see\"\n"
        "line per class under the header); a cell that cannot see a change of 50% (--sensitivity\n"
        "PCT: of PCT percent) is named INSENSITIVE, with the runs that would let it. A cell of\n"
        "class distribution (a figure that varies from run to run) is judged by a rank test of\n"
        "the session's runs against its pinning runs, at a false-alarm rate of 0.001 over all\n"
        "such cells of the check, and a shift beyond its band.\n",
    .exit_status = "0 every gated cell within its band; 1 a regression; 2 could not judge (a "
                   "failed run, a missing metric, a bad baseline file or bad arguments).",
    .options = check_verb_options,
    .run = check_main,
};
