/* gcratchet measure — run probes against collector builds and store every sample. */
#include <stdlib.h>

#include "cli.h"
#include "cmds.h"
#include "measuring.h"
#include "session_opts.h"

static int measure_main(int argc, char **argv)
{
	struct session_opts o;
	char *command = NULL;
	int rc = EXIT_UNJUDGED, r;

	session_opts_init(&o, SESSION_VERB_MEASURE);
	r = cli_parse(&cmd_measure, argc, argv, &o, NULL);
	if (r != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	command = cli_command_line(argc, argv);
	rc = measuring_session(cmd_measure.name, &o, command, MEASURING_VIEW_RUNS, NULL);
out:
	free(command);
	session_opts_release(&o);
	return rc;
}

/* Every option of measure is a shared session option. */
static const struct cli_option measure_options[] = {
    {.name = "session options",
     .kind = CLI_INCLUDE,
     .rows = session_options,
     .group = SESSION_OPT_RUN | SESSION_OPT_BUILDS | SESSION_OPT_TWO_N | SESSION_OPT_HERMETIC |
              SESSION_OPT_QUIET | SESSION_OPT_KNOB},
    {0},
};

const struct cli_verb cmd_measure = {
    .name = "measure",
    .summary = "run probes against collector builds and store every sample",
    .description =
        "Runs every chosen probe on every chosen build, round after round, and stores every\n"
        "sample in the database. Builds are interleaved within each round (order reversed on\n"
        "every other round), the probe order is shuffled per round from the printed seed, and\n"
        "warm-up rounds are stored but marked. Defaults: size default, 5 rounds after 1 warm-up\n"
        "round, one valgrind run per probe and build.\n",
    .exit_status = "0 every run succeeded; 2 a run failed, crashed or timed out (it is stored "
                   "and the session went on), the session was interrupted, or the arguments "
                   "were wrong.",
    .options = measure_options,
    .run = measure_main,
};
