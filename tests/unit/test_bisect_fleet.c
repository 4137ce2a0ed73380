/*
 * test_bisect_fleet.c — what a bisect's job carries (bisect_fleet.h), without a server: the
 * run options it passes on from the bisect's command line (its session rows but --db,
 * --probes, --size and --seed; none of its own rows), and the job's arguments for a plan of
 * one to three arms, timed or valgrind, in the engine's arm order. The queue's side (a job run
 * by a worker, killed, canceled, copied back) needs PostgreSQL: tests/cli/t212-bisect-fleet.sh.
 */
#include <stdlib.h>

#include "bisect_fleet.h"
#include "session_opts.h"
#include "unit.h"

/* What a verb like bisect lands; only the included session options matter here. */
struct fake_opts {
	const char *good;
	int resume;
	struct session_opts base;
};

#define FO(field) offsetof(struct fake_opts, field)
static const struct cli_option fake_rows[] = {
    {"--good", "REV", CLI_STRING, FO(good), .help = "an own row"},
    {"--resume", NULL, CLI_FLAG, FO(resume), .help = "an own flag"},
    {.name = "how the runs are made",
     .kind = CLI_INCLUDE,
     .rows = session_options,
     .off = FO(base),
     .group = SESSION_OPT_HOW | SESSION_OPT_PROBES},
    {0},
};
#undef FO
static const struct cli_verb fake_verb = {.name = "bisect", .options = fake_rows};

/* args joined by spaces; newly allocated */
static char *joined(const struct strlist *args)
{
	return strlist_join(args, " ");
}

static void test_run_args(void)
{
	static const char *const words[] = {
	    "bisect",     "--good", "abc",       "--timeout", "60",    "--db",    "x.db",
	    "--seed",     "7",      "--no-aslr", "--probes",  "01",    "--cpu=1", "--resume",
	    "--pass-env", "HOME",   "--size",    "ci",        "--thp", "host",    "--lock-timeout",
	    "5"};
	int argc = (int)(sizeof words / sizeof words[0]);
	char **argv = xcalloc((size_t)argc + 1, sizeof *argv);
	struct strlist out = {0};
	char *text;

	for (int i = 0; i < argc; i++)
		argv[i] = xstrdup(words[i]);
	CHECK(bisect_fleet_run_args(&fake_verb, argc, argv, &out) == 0);
	text = joined(&out);
	/* As given, in order: the same rows parse them on the worker. */
	CHECK_STR(text,
	          "--timeout 60 --no-aslr --cpu 1 --pass-env HOME --thp host --lock-timeout 5");
	free(text);
	strlist_release(&out);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

static void test_job_args(void)
{
	const char *dirs[3] = {"/c/good", "/c/mid", "/c/bad"}, *hashes[3] = {"a1", "b2", "c3"};
	struct bisect_measure m = {.dirs = dirs,
	                           .hashes = hashes,
	                           .narms = 3,
	                           .probes = "01_a,02_b",
	                           .meters = "rusage,census",
	                           .rounds = 6,
	                           .warmup = 1,
	                           .command = "gcratchet bisect (bisect 1: step 1, b2)",
	                           .halt_on_failure = 1};
	struct strlist run = {0}, args = {0};
	char *text;

	strlist_push(&run, "--timeout");
	strlist_push(&run, "60");
	bisect_fleet_job_args("ci", &run, &m, &args);
	text = joined(&args);
	CHECK_STR(text, "--build /c/good --build /c/mid --build /c/bad --probes 01_a,02_b --meters "
	                "rusage,census --size ci --rounds 6 --warmup 1 --halt-on-failure "
	                "--session-command gcratchet bisect (bisect 1: step 1, b2) --timeout 60");
	free(text);
	strlist_release(&args);

	/* A valgrind metric: no timed rounds, the runs per arm; a perf event; ASLR off. */
	m.narms = 1;
	m.meters = "rusage,census,valgrind";
	m.events = "cycles:u";
	m.valgrind_runs = 3;
	m.rounds = m.warmup = 0;
	m.halt_on_failure = 0;
	m.no_aslr = 1;
	m.command = NULL;
	bisect_fleet_job_args("default", &run, &m, &args);
	text = joined(&args);
	CHECK_STR(text, "--build /c/good --probes 01_a,02_b --meters rusage,census,valgrind "
	                "--events cycles:u --size default --valgrind-only --valgrind-runs 3 "
	                "--no-aslr --timeout 60");
	free(text);
	strlist_release(&args);
	strlist_release(&run);
}

int main(void)
{
	test_run_args();
	test_job_args();
	return unit_done("test_bisect_fleet");
}
