/*
 * gcratchet version (and gcratchet --version) — which harness this is: its version and the
 * commit it was built from, so a CI log or a bug report names the exact code, and its licence.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"

/*
 * The Makefile compiles this file with -include build/obj/commit.h (scripts/version-stamp.sh);
 * a compile without it knows no commit.
 */
#ifndef GCRATCHET_COMMIT
#define GCRATCHET_COMMIT          "unknown"
#define GCRATCHET_COMMIT_MODIFIED 0
#endif

static int version_main(int argc, char **argv)
{
	const char *cmd = cmd_version.name;
	int none = 0; /* --help is its only option: nothing lands */
	int r = cli_parse(&cmd_version, argc, argv, &none, NULL);

	if (r != 0)
		return r > 0 ? EXIT_OK : EXIT_UNJUDGED;
	printf("gcratchet %s (commit %s%s)\n", GCRATCHET_VERSION, GCRATCHET_COMMIT,
	       GCRATCHET_COMMIT_MODIFIED ? ", with uncommitted changes" : "");
	printf("License: MIT (the LICENSE file of the source tree)\n");
	if (fflush(stdout) != 0)
		return cli_error(cmd, "writing to stdout failed");
	return EXIT_OK;
}

const struct cli_verb cmd_version = {
    .name = "version",
    .summary = "the version and the commit this gcratchet was built from",
    .description =
        "Prints the harness's version and the git commit it was built from, with \", with\n"
        "uncommitted changes\" when harness/, reports/, collectors/include/ or the Makefile then\n"
        "differed from it; a build from a tree without .git (a tarball) says \"commit unknown\".\n"
        "gcratchet --version prints the same.\n",
    .exit_status = "0 printed; 2 bad arguments.",
    .run = version_main,
};
