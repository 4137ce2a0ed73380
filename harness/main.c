/* gcratchet — the list of verbs (each declared in its own harness/cmd_NAME.c) and dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"

static const struct cli_verb *const verbs[] = {
    &cmd_measure, &cmd_ratchet, &cmd_check,      &cmd_baseline, &cmd_list,     &cmd_ab,
    &cmd_compare, &cmd_export,  &cmd_report,     &cmd_doctor,   &cmd_manifest, &cmd_minheap,
    &cmd_sweep,   &cmd_push,    &cmd_pull,       &cmd_queue,    &cmd_worker,   &cmd_history,
    &cmd_bisect,  &cmd_explain, &cmd_completion, &cmd_version,  NULL,
};

const struct cli_verb *const *cli_verbs(void)
{
	return verbs;
}

const struct cli_verb *cli_find_verb(const char *name)
{
	for (const struct cli_verb *const *v = verbs; *v; v++)
		if (strcmp((*v)->name, name) == 0)
			return *v;
	return NULL;
}

const char *cli_near_command(const char *name)
{
	struct near_name nearest = {0};

	for (const struct cli_verb *const *v = verbs; *v; v++)
		near_offer(name, (*v)->name, &nearest);
	return near_pick(name, &nearest);
}

static int main_usage(FILE *f)
{
	fprintf(f,
	        "usage: gcratchet <command> [options]   (gcratchet <command> --help for more)\n\n");
	for (const struct cli_verb *const *v = verbs; *v; v++)
		fprintf(f, "  %-10s %s\n", (*v)->name, (*v)->summary);
	fprintf(f,
	        "\nExit status: 0 ok, 1 regression found, 2 could not run or could not judge.\n");
	return f == stdout ? EXIT_OK : EXIT_UNJUDGED;
}

int main(int argc, char **argv)
{
	const struct cli_verb *c;

	if (argc < 2)
		return main_usage(stderr);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return main_usage(stdout);
	if (strcmp(argv[1], "--version") == 0)
		return cmd_version.run(argc - 1, argv + 1);
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3)
			return main_usage(stdout);
		c = cli_find_verb(argv[2]);
		if (!c) {
			const char *near = cli_near_command(argv[2]);
			if (near)
				return cli_error("help",
				                 "unknown command \"%s\" (did you mean %s?)",
				                 argv[2], near);
			return cli_error("help", "unknown command \"%s\"", argv[2]);
		}
		return cli_usage(c, 0);
	}
	c = cli_find_verb(argv[1]);
	if (!c) {
		const char *near = cli_near_command(argv[1]);
		if (near) {
			fprintf(stderr, "gcratchet: unknown command \"%s\" (did you mean %s?)\n",
			        argv[1], near);
			return EXIT_UNJUDGED;
		}
		fprintf(stderr, "gcratchet: unknown command \"%s\"\n\n", argv[1]);
		return main_usage(stderr);
	}
	return c->run(argc - 1, argv + 1);
}
