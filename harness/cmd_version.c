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

int cmd_version(int argc, char **argv)
{
	static const struct cli_opt opts[] = {{NULL, 0}};
	const char *cmd = "version", *opt, *val;
	struct cli_iter it;
	int r;

	cli_iter_init(&it, cmd, argc, argv, opts);
	/* --help is its only option. */
	if ((r = cli_next(&it, &opt, &val, NULL)) == 1)
		return cli_usage(cli_find_command(cmd), 0);
	if (r < 0)
		return EXIT_UNJUDGED;
	printf("gcratchet %s (commit %s%s)\n", GCRATCHET_VERSION, GCRATCHET_COMMIT,
	       GCRATCHET_COMMIT_MODIFIED ? ", with uncommitted changes" : "");
	printf("License: MIT (the LICENSE file of the source tree)\n");
	if (fflush(stdout) != 0)
		return cli_error(cmd, "writing to stdout failed");
	return EXIT_OK;
}
