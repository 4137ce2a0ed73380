/*
 * gcratchet minheap — the smallest heap limit (GCR_HEAP_MAX_MB) in which each probe completes
 * with its checksum, per build and probe at one size. The search is minheap.c's, run on the
 * builds by heapsearch.c, which prints the table, stores each answer (the minheap table) and
 * writes --out FILE as JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "escape.h"
#include "heapsearch.h"
#include "session_opts.h"

#define MINHEAP_REPEATS_MAX 100u

static int minheap_main(int argc, char **argv)
{
	static const struct cli_opt own[] = {
	    {"--out", 1},
	    {"--repeats", 1},
	    {"--help", 0},
	    {NULL, 0},
	};
	const char *cmd = "minheap", *opt, *val, *out_path = NULL;
	struct session_opts o;
	struct cli_opt *opts;
	struct cli_iter it;
	struct err e;
	char *command = NULL;
	unsigned repeats = HEAPSEARCH_REPEATS;
	int rc = EXIT_UNJUDGED, r;

	session_opts_init(&o, SESSION_VERB_MINHEAP);
	opts = session_opts_table(&o, own);
	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, NULL)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_verb(cmd), 0);
			goto out;
		} else if (strcmp(opt, "--out") == 0) {
			out_path = val;
		} else if (strcmp(opt, "--repeats") == 0) {
			uint64_t v;

			if (parse_u64(val, &v) != 0 || v < 1 || v > MINHEAP_REPEATS_MAX) {
				rc = cli_error(cmd, "--repeats must be 1 to %u, got %s",
				               MINHEAP_REPEATS_MAX, val);
				goto out;
			}
			repeats = (unsigned)v;
		} else if (session_opts_parse(&o, opt, val, &e) < 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
	}
	if (r < 0)
		goto out;
	/* The search owns the limit: a knob of it would be overridden on every run it limits. */
	for (size_t i = 0; i < o.knobs.n; i++)
		if (strncmp(o.knobs.items[i], "GCR_HEAP_MAX_MB=", 16) == 0) {
			rc = cli_error(
			    cmd,
			    "--knob %s: minheap searches GCR_HEAP_MAX_MB itself (each run "
			    "at the limit it tries, the first without one); leave it out",
			    o.knobs.items[i]);
			goto out;
		}
	if (getenv("GCR_HEAP_MAX_MB")) {
		char *v = escape_text(getenv("GCR_HEAP_MAX_MB"));
		fprintf(
		    stderr,
		    "gcratchet %s: note: GCR_HEAP_MAX_MB=%s in the environment is not passed on: "
		    "the search sets the limit of each run\n",
		    cmd, v);
		free(v);
	}
	/* A search measures nothing but whether the probe fits: the cheapest meters. */
	free(o.meters);
	o.meters = xstrdup("rusage,census");
	command = cli_command_line(argc, argv);
	rc = heapsearch_session(cmd, &o, command, out_path, repeats, MEASURING_VIEW_RUNS);
out:
	free(command);
	free(opts);
	session_opts_release(&o);
	return rc;
}

const struct cli_verb cmd_minheap = {
    .name = "minheap",
    .summary = "find each probe's minimum heap (GCR_HEAP_MAX_MB) per build",
    .run = minheap_main,
    .usage =
        "usage: gcratchet minheap [--collector NAME|--build DIR]... [--probes LIST]\n"
        "                         [--size ci|default|large] [--repeats N] [--out FILE]\n"
        "                         [--timeout S] [--db FILE] [--knob NAME=VALUE]...\n"
        "                         [--thp off|host] [--cpu N] [--no-aslr] [--pass-env NAME]\n"
        "                         [--env-offset MAX] [--lock-timeout SEC] [--idle-below LOAD]\n"
        "                         [--idle-timeout SEC]\n"
        "\n"
        "For each build and probe, searches for the smallest GCR_HEAP_MAX_MB (MiB) in which the\n"
        "probe completes with the checksum it prints without a limit: bracket from the heap it\n"
        "committed without one, bisect to 1/64 of the bound (at least 1 MiB), then run the\n"
        "answer --repeats times in all (default 3) and move up while any run fails, for\n"
        "collectors that are not deterministic. A run killed at --timeout counts as too small.\n"
        "Prints a table, stores each answer (the minheap table of --db) and writes --out FILE\n"
        "(JSON, format gcratchet-minheap). docs/sweeps.md has the method and its caveats.\n"
        "--cpu, --no-aslr, --pass-env, --env-offset, --lock-timeout and the --idle options are\n"
        "measure's: how the runs are made.\n"
        "\n"
        "Exit status: 0 every answer found; 2 a probe never fitted, broke (a crash, a wrong\n"
        "checksum) or could not run, or the search was interrupted.\n",
};
