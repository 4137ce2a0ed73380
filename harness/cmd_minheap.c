/*
 * gcratchet minheap — the smallest heap limit (GCR_HEAP_MAX_MB) in which each probe completes
 * with its checksum, per build and probe at one size. The search is minheap.c's, run on the
 * builds by heapsearch.c, which prints the table, stores each answer (the minheap table) and
 * writes --out FILE as JSON.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "escape.h"
#include "heapsearch.h"
#include "session_opts.h"

/* What minheap takes: session options (its runs and builds) and its own. */
struct minheap_opts {
	struct session_opts run;
	const char *out_path; /* --out FILE */
	unsigned repeats;     /* --repeats */
};

static int minheap_main(int argc, char **argv)
{
	const char *cmd = cmd_minheap.name;
	struct minheap_opts mo = {0};
	struct session_opts *o = &mo.run;
	char *command = NULL;
	int rc = EXIT_UNJUDGED, r;

	mo.repeats = HEAPSEARCH_REPEATS;
	session_opts_init(o, SESSION_VERB_MINHEAP);
	r = cli_parse(&cmd_minheap, argc, argv, &mo, NULL);
	if (r != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	/* The search owns the limit: a knob of it would be overridden on every run it limits. */
	for (size_t i = 0; i < o->knobs.n; i++)
		if (strncmp(o->knobs.items[i], "GCR_HEAP_MAX_MB=", 16) == 0) {
			rc = cli_error(
			    cmd,
			    "--knob %s: minheap searches GCR_HEAP_MAX_MB itself (each run "
			    "at the limit it tries, the first without one); leave it out",
			    o->knobs.items[i]);
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
	free(o->meters);
	o->meters = xstrdup("rusage,census");
	command = cli_command_line(argc, argv);
	rc = heapsearch_session(cmd, o, command, mo.out_path, mo.repeats, MEASURING_VIEW_RUNS);
out:
	free(command);
	session_opts_release(o);
	return rc;
}

#define MO(field) offsetof(struct minheap_opts, field)
static const struct cli_option minheap_options[] = {
    {"--repeats", "N", CLI_CALL, MO(repeats), .call = heapsearch_repeats_row,
     .help = "runs at the answer, which moves up while any fails (default 3)"},
    {"--out", "FILE", CLI_STRING, MO(out_path),
     .help = "the answers written there as JSON (format gcratchet-minheap)"},
    {.name = "session options",
     .kind = CLI_INCLUDE,
     .off = MO(run),
     .rows = session_options,
     .group = SESSION_OPT_PROBES | SESSION_OPT_BUILDS | SESSION_OPT_HERMETIC | SESSION_OPT_QUIET |
              SESSION_OPT_KNOB},
    {0},
};
#undef MO

const struct cli_verb cmd_minheap = {
    .name = "minheap",
    .summary = "find each probe's minimum heap (GCR_HEAP_MAX_MB) per build",
    .description =
        "For each build and probe, searches for the smallest GCR_HEAP_MAX_MB (MiB) in which the\n"
        "probe completes with the checksum it prints without a limit: bracket from the heap it\n"
        "committed without one, bisect to 1/64 of the bound (at least 1 MiB), then run the\n"
        "answer --repeats times in all (default 3) and move up while any run fails, for\n"
        "collectors that are not deterministic. A run killed at --timeout counts as too small.\n"
        "Prints a table, stores each answer (the minheap table of --db) and writes --out FILE\n"
        "(JSON, format gcratchet-minheap). docs/sweeps.md has the method and its caveats.\n"
        "--cpu, --no-aslr, --pass-env, --env-offset, --lock-timeout and the --idle options are\n"
        "measure's: how the runs are made.\n",
    .exit_status = "0 every answer found; 2 a probe never fitted, broke (a crash, a wrong "
                   "checksum) or could not run, or the search was interrupted.",
    .options = minheap_options,
    .run = minheap_main,
};
