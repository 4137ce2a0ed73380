/*
 * gcratchet minheap — the smallest heap limit (GCR_HEAP_MAX_MB) in which each probe completes
 * with its checksum, per build and probe at one size. The search is minheap.c's, run on the
 * builds by heapsearch.c, which prints the table, stores each answer (the minheap table) and
 * writes --json FILE as JSON.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "escape.h"
#include "heapsearch.h"
#include "scratch.h"
#include "session_opts.h"

/* What minheap takes: session options (its runs and builds) and its own. */
struct minheap_opts {
	struct session_opts run;
	const char *out_path; /* --json FILE (--out FILE, its older name); "-": stdout */
	unsigned repeats;     /* --repeats */
};

/*
 * --json -: the search writes its JSON to a file of a private scratch folder, which goes to
 * stdout once the table (told on stderr meanwhile) is done; stdout holds the JSON alone.
 */
static int minheap_search(const char *cmd, const struct session_opts *o, const char *command,
                          const char *json, unsigned repeats)
{
	const char *root;
	char *dir = NULL, *path = NULL, *text = NULL;
	size_t len;
	struct err e;
	int rc, saved;

	if (!json || !write_file_is_stdout(json))
		return heapsearch_session(cmd, o, command, json, repeats, MEASURING_VIEW_RUNS);
	if (scratch_root(&root, &e) != 0 || scratch_create(root, SCRATCH_PREFIX, &dir, &e) != 0)
		return cli_error(cmd, "--json -: %s", e.msg);
	path = xasprintf("%s/minheap.json", dir);
	saved = cli_json_stdout_begin(json);
	rc = heapsearch_session(cmd, o, command, path, repeats, MEASURING_VIEW_RUNS);
	cli_json_stdout_end(saved);
	/* No file: the search failed before it began, and said why. */
	if (read_file(path, &text, &len, &e) == 0 && write_file_atomic("-", text, len, &e) != 0)
		rc = cli_error(cmd, "%s", e.msg);
	unlink(path);
	scratch_remove(dir, NULL);
	free(text);
	free(path);
	free(dir);
	return rc;
}

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
	rc = minheap_search(cmd, o, command, mo.out_path, mo.repeats);
out:
	free(command);
	session_opts_release(o);
	return rc;
}

#define MO(field) offsetof(struct minheap_opts, field)
static const struct cli_option minheap_options[] = {
    {"--repeats", "N", CLI_CALL, MO(repeats), .call = heapsearch_repeats_row,
     .help = "runs at the answer, which moves up while any fails (default 3)"},
    {"--json", "FILE", CLI_STRING, MO(out_path),
     .help = "the answers written there as JSON (format gcratchet-minheap; - for stdout, the "
             "table then on stderr)"},
    {"--out", "FILE", CLI_STRING, MO(out_path), .flags = CLI_HIDDEN, .help = "--json's older name"},
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
        "Prints a table, stores each answer (the minheap table of --db) and writes --json FILE\n"
        "(format gcratchet-minheap; - for stdout, the table then on stderr; --out FILE is its\n"
        "older name). docs/sweeps.md has the method and its caveats. --cpu, --no-aslr,\n"
        "--pass-env, --env-offset, --lock-timeout and the --idle options are measure's: how\n"
        "the runs are made.\n",
    .exit_status = "0 every answer found; 2 a probe never fitted, broke (a crash, a wrong "
                   "checksum) or could not run, or the search was interrupted.",
    .options = minheap_options,
    .run = minheap_main,
};
