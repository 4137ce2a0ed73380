/*
 * session_opts.h — what measure, ab and baseline pin share: their session options, parsed
 * once, and the set-up and tear-down around session_run.
 *
 * The options are a struct session_opts. session_opts_init fills one with a verb's defaults
 * (declared once, in session_opts.c) and the groups of options that verb accepts; each verb
 * keeps a table of its own options and hands every other option to session_opts_parse, as
 * git's commands hand theirs to the shared diff options. session_opts_parse is pure: it
 * neither prints nor exits, so a fuzzer can drive it.
 *
 * Invariants:
 * - Every number is parsed whole into a uint64_t with overflow detected, compared with its
 *   bound, and only then converted; a refusal names the option, the value and the range.
 * - A single-valued option given twice: the last one wins. --collector and --build add up, and
 *   so do --knob NAME=VALUE of different names (one of a name given twice: the last wins).
 * - A session_opts owns every string it holds; session_opts_release frees them.
 *
 * session_setup_begin and session_setup_end are the cli layer: they print their errors on
 * stderr (as cli_plan_meters does) and return -1, and the caller decides the exit code.
 */
#ifndef SESSION_OPTS_H
#define SESSION_OPTS_H

#include <signal.h>
#include <stdint.h>

#include "buildinfo.h"
#include "cli.h"
#include "meter_perf.h"
#include "meter_valgrind.h"
#include "session.h"
#include "store.h"
#include "util.h"

/* The verbs that set up a session; each has its own defaults and its own accepted options. */
enum session_verb {
	SESSION_VERB_MEASURE,
	SESSION_VERB_AB,
	SESSION_VERB_PIN,      /* baseline pin and update measuring before they pin */
	SESSION_VERB_PIN_TIME, /* the same for a profile that gates time (pinned_host) */
	SESSION_VERB_MINHEAP,  /* minheap: single runs searching a heap limit, no rounds */
	SESSION_VERB_SWEEP,    /* sweep: a session whose arms are builds at heap sizes */
};

/* Groups of shared options; a verb accepts some of them. */
enum session_opt_group {
	SESSION_OPT_PROBES = 1u << 6, /* --probes --size --timeout --db --pass-env --thp */
	SESSION_OPT_ROUNDS = 1u << 0, /* --rounds --warmup --meters --events --seed --jobs
	                                 --valgrind-runs */
	SESSION_OPT_RUN = SESSION_OPT_PROBES | SESSION_OPT_ROUNDS,
	SESSION_OPT_BUILDS = 1u << 1,   /* --collector --build */
	SESSION_OPT_TWO_N = 1u << 2,    /* --two-n */
	SESSION_OPT_HERMETIC = 1u << 3, /* --cpu --no-aslr --clean-env --env-offset */
	SESSION_OPT_QUIET = 1u << 4,    /* --lock-timeout --idle-below --idle-timeout */
	SESSION_OPT_KNOB = 1u << 5,     /* --knob, for every arm */
	/* How the runs are made, never what is measured: what ratchet takes (--jobs --timeout
	 * --seed --cpu --no-aslr --lock-timeout --idle-below --idle-timeout); a row's second bit */
	SESSION_OPT_HOW = 1u << 7,
};

/* Bounds, in the units the options take. */
#define SESSION_OPTS_ROUNDS_MAX        10000
#define SESSION_OPTS_WARMUP_MAX        1000
#define SESSION_OPTS_ENV_OFFSET_MAX    65536
/* --jobs: valgrind runs at once; far above any host we measure on, low enough for threads */
#define SESSION_OPTS_JOBS_MAX          64
/* --valgrind-runs: a spread needs a few; beyond this, measure more sessions instead */
#define SESSION_OPTS_VALGRIND_RUNS_MAX 20
/*
 * 30 days, for --timeout, --lock-timeout and --idle-timeout. The runner, the launcher and the
 * bench lock compute deadlines as int64 nanoseconds from now, and a valgrind run gets 100
 * times --timeout: 30 days keeps all of them far from overflow, and no probe should run longer.
 */
#define SESSION_OPTS_WAIT_MAX_S        (30 * 24 * 3600)

struct session_opts {
	unsigned accept;           /* the enum session_opt_group bits this verb takes */
	struct strlist collectors; /* --collector, shipped builds by name */
	struct strlist build_dirs; /* --build */
	char *probes;              /* --probes LIST; NULL: every probe the builds share */
	char size[48];             /* ci, default, large, or "n=N1,N2" with --two-n */
	uint64_t two_n[2];         /* --two-n; two_n[0] == 0: a size instead */
	int rounds, warmup;        /* measured and warm-up rounds */
	int jobs;                  /* --jobs: valgrind runs at once; default the online CPUs */
	/* --valgrind-runs N: runs per probe and arm; up to _max where Ir did not repeat */
	int valgrind_runs, valgrind_runs_max;
	/* Not an option: the verb's confirmation of valgrind figures (session.h); NULL: none */
	void (*confirm)(void *ctx, struct store *st, int64_t session, const struct strlist *probes,
	                unsigned char *again);
	void *confirm_ctx;
	int valgrind_confirm;
	/* Not an option: the verb's call for more timed runs (session.h, more_timed); NULL: none */
	void (*more_timed)(void *ctx, struct store *st, int64_t session,
	                   const struct strlist *probes, int *more);
	void *more_ctx;
	char *meters, *events;   /* --meters, --events; NULL: the defaults */
	uint64_t seed;           /* --seed, when have_seed */
	int have_seed;           /* 0: a fresh seed at session_setup_begin */
	int64_t timeout_ms;      /* 0: no limit */
	char *db;                /* --db; NULL: $GCR_DB or the default */
	int pin_cpu, cpu;        /* --cpu N */
	int no_aslr;             /* --no-aslr (--clean-env is accepted: every run is hermetic) */
	struct strlist pass_env; /* --pass-env: the caller's variables a probe also gets */
	unsigned env_offset;     /* --env-offset, bytes */
	int lock_timeout_s;      /* --lock-timeout; 0: do not wait for the bench lock */
	double idle_below;       /* --idle-below; 0: no idleness gate */
	int idle_timeout_s;      /* --idle-timeout */
	struct strlist knobs;    /* --knob NAME=VALUE, each name once, for every arm */

	/* --thp off|host: transparent huge pages for the probes; off by default (hostinfo.h) */
	enum hostinfo_thp_condition thp;
	/*
	 * Not a shared option: 1 stops the session after its first run that is not ok
	 * (session.h, halt_on_failure). measure's hidden --halt-on-failure sets it for a bisect's
	 * step run as a queue job (bisect_fleet.h).
	 */
	int halt_on_failure;
};

/* The verb's defaults and accepted groups; release with session_opts_release. */
void session_opts_init(struct session_opts *o, enum session_verb verb);
/*
 * dst (uninitialised) becomes a deep copy of src: every option and hook, the strings and lists
 * its own. A verb that runs several sessions from the options it parsed once (bisect's ends
 * and steps) copies them whole and then sets what it decides itself, so that no run option is
 * dropped on the way to a session. Release dst with session_opts_release. A field that owns
 * memory is copied here by name: one added to the struct must be added here too
 * (tests/unit/test_options.c checks every field reaches the copy).
 */
void session_opts_copy(struct session_opts *dst, const struct session_opts *src);
/* The rounds a verb measures by default (session_opts_init's). */
int session_opts_default_rounds(enum session_verb verb);
void session_opts_release(struct session_opts *o);

/*
 * Every shared option as a row (cli.h), each with the group that brings it: a verb includes
 * them with {.kind = CLI_INCLUDE, .rows = session_options, .group = the groups it takes,
 * .off = where its struct session_opts is}.
 */
extern const struct cli_option session_options[];

/*
 * Applies one option (its name as in the table, "--rounds", and its value, NULL for a flag).
 * Returns 1 when it was a shared option o accepts, 0 when it is not one (the caller's own,
 * or unknown), -1 with e (ERR_INVALID) saying what was wrong with the value:
 * "--rounds must be 1 to 10000, got 20000". Prints nothing.
 */
int session_opts_parse(struct session_opts *o, const char *opt, const char *val, struct err *e);

/* Sets the size: ci, default or large (and no --two-n); -1 with e (ERR_INVALID) otherwise. */
int session_opts_set_size(struct session_opts *o, const char *size, struct err *e);

/* ---- Setting up and tearing down a session -------------------------------------------- */

/*
 * What session_setup_begin set up; all of it owned here, released by session_setup_end.
 * Arm i runs builds[i] with knobs[i] under labels[i]; an A/A loads its build twice, and the
 * store keeps it once.
 */
struct session_setup {
	struct session_plan plan; /* ready for session_run after session_setup_begin */
	struct buildinfo *builds;
	struct strlist *knobs;
	char **labels;
	struct session_arm *arms; /* plan.arms, pointing into the three above */
	size_t narms;
	struct meter_valgrind vg;
	struct meter_perf perf;
	struct store *st;   /* the open store */
	double load_before; /* the load the idleness gate saw last; -1 when there was none */
	int lock_fd;        /* the bench lock */
	char *root, *launcher;
	int handlers; /* 1 while our SIGINT and SIGTERM handlers are installed */
	struct sigaction old_int, old_term;
};

void session_setup_init(struct session_setup *s);
/*
 * Adds an arm the caller loaded itself (ab's BASE and FIX), before session_setup_begin: the
 * build *b (ownership taken) with the checked knobs (copied; NULL: none).
 */
void session_setup_add_arm(struct session_setup *s, struct buildinfo *b,
                           const struct strlist *knobs);
/* Checks a knob (session_knob_check) and adds it to knobs; -1 with e naming opt. */
int session_opts_knob(struct strlist *knobs, const char *opt, const char *val, struct err *e);

/*
 * In this order: adds an arm for each of o's --collector and --build builds after those the
 * caller added (the default collector when there are none at all; a build named twice is
 * refused; a collector that is not shipped named with the nearest that is), plans the meters, gives every arm o's --knob overrides (an arm's own win) and a
 * label (its build's name; "NAME (2)", "NAME (3)" for the second and third arm of a name),
 * plans the probes, draws a seed unless o has one, finds the launcher, finds the THP condition
 * the probes will get (hostinfo_thp_try; one other than o's --thp is a warning on stderr, and
 * the plan records what they get), opens the store, takes the bench lock, waits for an idle host when o asks, and installs the SIGINT
 * and SIGTERM handler, which counts signals into *plan.stop. `command` is borrowed for
 * plan.command. Returns 0, or -1 after printing why as "gcratchet CMD: ..."; either way
 * session_setup_end releases what was set up.
 */
int session_setup_begin(const char *cmd, const struct session_opts *o, const char *command,
                        struct session_setup *s);
/* The reverse: the old signal handlers back, the lock released, the store closed, all freed. */
void session_setup_end(struct session_setup *s);

#endif /* SESSION_OPTS_H */
