/* gcratchet measure — run probes against collector builds and store every sample. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "measuring.h"
#include "report_data.h"
#include "report_json.h"
#include "session_opts.h"

/* What measure takes: the shared session options, and where its JSON goes. */
struct measure_opts {
	struct session_opts run;
	const char *json; /* --json FILE, "-" for stdout; NULL: none */
	/* Hidden, for a bisect's step run as a queue job (bisect_fleet.h): */
	int valgrind_only;   /* --valgrind-only: no timed rounds, the valgrind runs alone */
	const char *command; /* --session-command: what the session records as its command */
};

/* The stored session as JSON (format gcratchet-measure) written to path; 0, or -1 said. */
static int measure_json(const char *cmd, const char *db, int64_t session, const char *path)
{
	struct store *st = NULL;
	struct report_data d;
	struct err e;
	char *text = NULL;
	int rc = -1;

	memset(&d, 0, sizeof d);
	if (store_open(cli_db_path(db), STORE_READ, &st, &e) != 0 ||
	    report_data_load(st, session, &d, &e) != 0) {
		cli_error(cmd, "--json %s: %s", path, e.msg);
		goto out;
	}
	text = report_json_measure(&d);
	if (write_file_atomic(path, text, strlen(text), &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	rc = 0;
out:
	free(text);
	report_data_release(&d);
	store_close(st);
	return rc;
}

static int measure_main(int argc, char **argv)
{
	struct measure_opts mo = {0};
	struct session_opts *o = &mo.run;
	char *command = NULL;
	int64_t session = 0;
	int rc = EXIT_UNJUDGED, r, json_stdout = -1;

	session_opts_init(o, SESSION_VERB_MEASURE);
	r = cli_parse(&cmd_measure, argc, argv, &mo, NULL);
	if (r != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	if (mo.valgrind_only) {
		if (!o->meters || !strstr(o->meters, "valgrind")) {
			rc = cli_error(
			    cmd_measure.name,
			    "--valgrind-only needs the valgrind meter (--meters ...,valgrind)");
			goto out;
		}
		o->rounds = 0;
		o->warmup = 0;
	}
	command = mo.command ? xstrdup(mo.command) : cli_command_line(argc, argv);
	/* --json -: the runs are told on stderr, and stdout holds the JSON alone. */
	json_stdout = cli_json_stdout_begin(mo.json);
	rc = measuring_session(cmd_measure.name, o, command, MEASURING_VIEW_RUNS, &session);
	cli_json_stdout_end(json_stdout);
	/* A session that was stored is written whatever its runs did: failed runs are in it. */
	if (mo.json && session != 0 && measure_json(cmd_measure.name, o->db, session, mo.json) != 0)
		rc = EXIT_UNJUDGED;
out:
	free(command);
	session_opts_release(o);
	return rc;
}

#define MO(field) offsetof(struct measure_opts, field)
static const struct cli_option measure_options[] = {
    {.name = "session options",
     .kind = CLI_INCLUDE,
     .off = MO(run),
     .rows = session_options,
     .group = SESSION_OPT_RUN | SESSION_OPT_BUILDS | SESSION_OPT_TWO_N | SESSION_OPT_HERMETIC |
              SESSION_OPT_QUIET | SESSION_OPT_KNOB},
    {"--json", "FILE", CLI_STRING, MO(json),
     .help = "the session stored, its runs counted and summarised per arm and probe, as JSON "
             "(format gcratchet-measure) written there (- for stdout; the runs then go to "
             "stderr)"},
    /* A bisect's step on a fleet (bisect_fleet.c): what bisect's own sessions are. */
    {"--halt-on-failure", NULL, CLI_FLAG, MO(run) + offsetof(struct session_opts, halt_on_failure),
     .flags = CLI_HIDDEN,
     .help = "stop after the first run that is not ok, and exit 1: the session is the answer"},
    {"--valgrind-only", NULL, CLI_FLAG, MO(valgrind_only), .flags = CLI_HIDDEN,
     .help = "no timed rounds: only the valgrind runs"},
    {"--session-command", "TEXT", CLI_STRING, MO(command), .flags = CLI_HIDDEN,
     .help = "the command the session records (default: this command line)"},
    {0},
};
#undef MO

const struct cli_verb cmd_measure = {
    .name = "measure",
    .summary = "run probes against collector builds and store every sample",
    .description =
        "Runs every chosen probe on every chosen build, round after round, and stores every\n"
        "sample in the database. Builds are interleaved within each round (order reversed on\n"
        "every other round), the probe order is shuffled per round from the printed seed, and\n"
        "warm-up rounds are stored but marked. Defaults: size default, 5 rounds after 1 warm-up\n"
        "round, one valgrind run per probe and build. --json FILE writes the session once it\n"
        "is stored, failed runs and all: its id, status, builds, counts of runs and, per arm\n"
        "and probe, each metric's median, min, max and n (format gcratchet-measure; every\n"
        "sample is gcratchet export's).\n",
    .exit_status = "0 every run succeeded; 1 (with the internal --halt-on-failure, a bisect's "
                   "step on a fleet) a run that was not ok stopped the session; 2 a run failed, "
                   "crashed or timed out (it is stored "
                   "and the session went on), the session was interrupted, or the arguments "
                   "were wrong.",
    .options = measure_options,
    .run = measure_main,
};
