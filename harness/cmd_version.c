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
	static const struct cli_opt opts[] = {{NULL, 0}};
	const char *cmd = "version", *opt, *val;
	struct cli_iter it;
	int r;

	cli_iter_init(&it, cmd, argc, argv, opts);
	/* --help is its only option. */
	if ((r = cli_next(&it, &opt, &val, NULL)) == 1)
		return cli_usage(cli_find_verb(cmd), 0);
	if (r < 0)
		return EXIT_UNJUDGED;
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
    .run = version_main,
    .usage =
        "usage: gcratchet version\n"
        "       gcratchet --version\n"
        "\n"
        "Prints the harness's version and the git commit it was built from, with \", with\n"
        "uncommitted changes\" when harness/, reports/, collectors/include/ or the Makefile then\n"
        "differed from it; a build from a tree without .git (a tarball) says \"commit unknown\".\n"
        "\n"
        "Exit status: 0 printed; 2 bad arguments.\n",
};
