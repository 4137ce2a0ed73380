/*
 * cli.h — what the subcommands share: option parsing, the command table's entry type,
 * database and baseline locations, probe-name resolution and value formatting.
 *
 * This is the cli layer: it may print (errors to stderr) and it decides exit codes; the core
 * modules below it never do either.
 */
#ifndef CLI_H
#define CLI_H

#include <stdint.h>

#include "buildinfo.h"
#include "meter_perf.h"
#include "meter_valgrind.h"
#include "session.h"
#include "store.h"
#include "util.h"
#include "version.h"

/* Exit codes of every subcommand. */
enum { EXIT_OK = 0, EXIT_REGRESSION = 1, EXIT_UNJUDGED = 2 };

/* The collector `make ratchet`, `measure` and `check` use when none is named. */
#define CLI_DEFAULT_COLLECTOR "gen"
#define CLI_DEFAULT_DB        "results/gcratchet.db"
#define CLI_DEFAULT_BASELINES "baselines"

/*
 * ---- A verb is one declaration ---------------------------------------------------------
 *
 * Each verb file declares `const struct cli_verb cmd_NAME`: its name, summary, synopsis
 * arguments, description, exit statuses and a typed option table, and `run`. One parser
 * (cli_parse) walks argv against the table: it lands each value where its row says, checks
 * bounds and choices, answers --help from the declaration, and says "did you mean". --help,
 * gcratchet completion, README.md's synopsis and the man pages are all made from the same
 * rows, so an option is one row and nothing else.
 */
enum cli_kind {
	CLI_FLAG,    /* int at .off set to 1 (a value of its own: .max when not 0) */
	CLI_STRING,  /* const char * at .off: the value, borrowed from argv; the last one wins */
	CLI_OWNED,   /* char * at .off: a copy of the value, the previous one freed */
	CLI_INT,     /* int at .off: an integer from .min to .max (.max 0: any above .min) */
	CLI_U64,     /* uint64_t at .off: the same, 64 bits wide */
	CLI_PCT,     /* double at .off: a number above 0, at most .max when .max is not 0 */
	CLI_ENUM,    /* const char * at .off: one of .values ("table|md|json|junit") */
	CLI_SESSION, /* int64_t at .off: a session id; .values: a word also taken, kept as
	                CLI_SESSION_WORD */
	CLI_LIST,    /* struct strlist at .off: every value appended (CLI_COMMAS: split on ,) */
	CLI_CALL,    /* .call(base + .off, opt, val, e) lands it */
	CLI_INCLUDE, /* the rows of .rows whose .group is in this row's .group, landing in the
	                struct at .off: another module's options (session_opts' run options) */
};
#define CLI_SESSION_WORD ((int64_t)-1)

/* Row flags. */
enum {
	CLI_HIDDEN = 1u << 0,      /* accepted for older command lines; not shown, not completed */
	CLI_REQUIRED = 1u << 1,    /* shown without brackets in the synopsis (the verb checks it) */
	CLI_REPEAT = 1u << 2,      /* may be given again to add: "[--knob NAME=VALUE]..." */
	CLI_COMMAS = 1u << 3,      /* CLI_LIST: a comma list adds each of its items */
	CLI_BUILDS = 1u << 4,      /* its value names builds to measure: queue reads it */
	CLI_NO_SYNOPSIS = 1u << 5, /* listed under the options, not in the usage line */
	CLI_OPTIONAL = 1u << 6,    /* CLI_INCLUDE: its rows are optional here, required or not */
};

struct err;
struct cli_option {
	const char *name;    /* "--rounds"; NULL ends a table */
	const char *metavar; /* "N"; NULL: a flag, which takes no value (an enum: its values) */
	enum cli_kind kind;
	size_t off;        /* where the value lands: offsetof the verb's options struct */
	uint64_t min, max; /* CLI_INT, CLI_U64, CLI_PCT bounds; CLI_FLAG's value */
	/* CLI_ENUM's choices "a|b|c"; CLI_SESSION's word; CLI_INT's unit after a range */
	const char *values;
	/* CLI_CALL: lands val (NULL for a flag) in field (base + .off); -1 with e saying what
	 * was wrong (cli_count checks a row's bounds) */
	int (*call)(void *field, const struct cli_option *row, const char *val, struct err *e);
	const struct cli_option *rows; /* CLI_INCLUDE */
	unsigned group; /* a shared row: its group bit; CLI_INCLUDE: the groups taken */
	unsigned flags;
	const char *help; /* one help line; wrapped when long */
};

struct cli_verb {
	const char *name;
	const char *summary; /* one line for `gcratchet --help` */
	/* What the synopsis shows after the name and before the options: "BASE FIX",
	 * "[probes|collectors|sessions|metrics]" (lowercase choices are completed) */
	const char *args;
	const char *description; /* paragraphs, wrapped at 92 columns as written */
	const char *exit_status; /* after "Exit status: " */
	const struct cli_option *options;
	/* Subcommands (baseline pin, queue submit), ending with a NULL name: each a verb of its
	 * own whose name is the word after this verb's, run by this verb's `run` */
	const struct cli_verb *subs;
	int (*run)(int argc, char **argv);
	const struct cli_verb *parent; /* a subcommand's verb: its exit statuses are the verb's */
};

/* What a row's value is called ("N"; an enum's choices); NULL: a flag, which takes none. */
const char *cli_option_metavar(const struct cli_option *r);

/* The verbs, ending with NULL (main.c). */
const struct cli_verb *const *cli_verbs(void);
const struct cli_verb *cli_find_verb(const char *name);
/* The subcommand of v named word; NULL when none. */
const struct cli_verb *cli_find_sub(const struct cli_verb *v, const char *word);

/*
 * Parses argv[1..] of verb v (argv[0] is its name) into base, the verb's options struct as
 * initialised with its defaults. Arguments that are not options go to positional (NULL:
 * an error). Returns 0 when parsed, 1 after printing --help on stdout (exit 0), -1 after
 * printing the error on stderr, as "gcratchet VERB: ..." (exit 2).
 */
int cli_parse(const struct cli_verb *v, int argc, char **argv, void *base,
              struct strlist *positional);
/*
 * The rows of v's table that argv gives, in order, without landing anything: each(ctx, row,
 * val) for every option (val NULL for a flag); positional arguments go to each with row NULL.
 * 0, or -1 after printing an error (as cli_parse). For the queue, which reads another verb's
 * command line for the builds it names (CLI_BUILDS).
 */
int cli_scan(const struct cli_verb *v, int argc, char **argv,
             void (*each)(void *ctx, const struct cli_option *row, const char *val), void *ctx);
/*
 * Lands one value as row says, in base (a pointer to the struct the row's table describes).
 * Pure: prints nothing; -1 with e (ERR_INVALID) naming the option and the value.
 */
int cli_apply(const struct cli_option *row, void *base, const char *val, struct err *e);
/* An integer value checked against row's bounds and unit, as CLI_U64 lands it. */
int cli_count(const struct cli_option *row, const char *val, uint64_t *out, struct err *e);
/* A session id, or `word` (NULL: none) as CLI_SESSION_WORD; -1 with e naming opt and val. */
int cli_session_id(const char *opt, const char *val, const char *word, int64_t *id, struct err *e);
/*
 * The row named opt of a table, includes searched (only the groups they take), with the
 * offset of the struct it lands in added to *off (start it at 0); NULL when none.
 */
const struct cli_option *cli_find_option(const struct cli_option *rows, const char *opt,
                                         size_t *off);
/*
 * Every row a table shows, in order, includes expanded (a name seen already is left out:
 * a verb's own row shadows an included one): each(ctx, row) for each, hidden ones too.
 */
void cli_each_option(const struct cli_option *rows,
                     void (*each)(void *ctx, const struct cli_option *row), void *ctx);
/* v's --help text (its subcommands' too): usage lines, description, options, exit statuses. */
void cli_help(const struct cli_verb *v, struct sbuf *out);
/* Only the usage lines ("usage: gcratchet ..." and the lines it wraps to). */
void cli_synopsis(const struct cli_verb *v, struct sbuf *out);
/*
 * The words of v's usage line after "gcratchet NAME", one call each: its arguments as .args
 * spells them, then one per option shown ("[--rounds N]", "--profile P", "[--knob K=V]...").
 * The usage lines above and the man page's synopsis are made of them.
 */
void cli_synopsis_words(const struct cli_verb *v, void (*each)(void *ctx, const char *word),
                        void *ctx);
/* Prints v's help and returns 0 (help asked) or 2 (usage error, on stderr). */
int cli_usage(const struct cli_verb *v, int to_stderr);

/*
 * Prints "gcratchet CMD: message" on stderr, made safe for a terminal (escape_text: control
 * characters and invalid UTF-8 replaced, newlines kept); returns EXIT_UNJUDGED.
 */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * s as one field of a printed line (escape_line): what came from a file or another user (a
 * build's name, collector or version from its manifest, an arm's label, a probe's words) can
 * neither move the cursor nor break the line. The string lives until 16 more calls; NULL
 * is "".
 */
const char *cli_safe(const char *s);
/* The nearest command's name to a mistyped one, for "did you mean"; NULL when none is close. */
const char *cli_near_command(const char *name);
/*
 * 0 when profile is shared_ci or pinned_host; else prints "unknown profile "X" (did you mean
 * shared_ci? valid: shared_ci, pinned_host)" (the guess only when one is close) and -1.
 */
int cli_check_profile(const char *cmd, const char *profile);
/*
 * 1 after printing "unknown collector "X": no shipped build or baseline has that name (did
 * you mean gen? valid: ...)" when neither build/collectors nor any profile's baselines know
 * the name and one they know is near it; 0 (silent) otherwise: a known name, or one that may
 * be an out-of-tree collector's.
 */
int cli_unknown_collector(const char *cmd, const char *collector);

/*
 * Parses --session's value, for every verb that takes one: a session id from 1 to INT64_MAX
 * (a store's ids are SQLite rowids and PostgreSQL BIGINTs), checked before conversion, or
 * `word` when the verb also takes one ("latest", "all"; NULL: none). Returns 1 for the word
 * (*id untouched), 0 with *id, or -1 after printing an error naming `opt` and the value.
 */
int cli_parse_session(const char *cmd, const char *opt, const char *val, const char *word,
                      int64_t *id);

/*
 * The database's connection string (a path, sqlite:PATH, postgresql://...): --db, else $GCR_DB,
 * else results/gcratchet.db.
 */
const char *cli_db_path(const char *opt);
/* The fleet's database for queue and worker: --fleet, else $GCR_FLEET_URL; NULL after
 * printing why when neither is set. */
const char *cli_fleet_url(const char *cmd, const char *opt);
/*
 * $GCR_BASELINE_DIR, else baselines/ under the working directory, else the nearest baselines/
 * of a folder above it, up to the repository's root (the first folder holding .git), as git
 * finds its root from any subfolder; else "baselines".
 */
const char *cli_baseline_dir(void);
/* Where cli_baseline_find looks, for a message ("looked in ..."); newly allocated. */
char *cli_baseline_looked(void);
/* baselines/<profile>/<collector>.json; newly allocated. Where pin and update write. */
char *cli_baseline_path(const char *profile, const char *collector);
/*
 * Where check, validate and report read a baseline: cli_baseline_path when $GCR_BASELINE_DIR
 * is set or the file is there; else the copy `make install` put beside the build root
 * (<root>/baselines/<profile>/<collector>.json), when there is one, so an installed gcratchet
 * finds the committed baselines from any directory; else cli_baseline_path, whose absence
 * the caller reports. Newly allocated.
 */
char *cli_baseline_find(const char *profile, const char *collector);

/*
 * Resolves a user's probe name ("01", "1", "01_nursery_churn") against the available names.
 * Returns the canonical name (owned by `available`) or NULL after printing an error that
 * lists the valid choices.
 */
const char *cli_resolve_probe(const char *cmd, const char *want, const struct strlist *available);

/*
 * Picks the session's one arm (builds as store_session_builds returns them) of `collector`
 * (any collector when NULL) labelled `want_name` (any label when NULL); an arm's label is its
 * build's name unless the session gave it another ("gen (2)": an A/A's second arm). Prints
 * why and returns -1 when there is none or more than one.
 */
int cli_pick_build(const char *cmd, struct store_build *builds, size_t n, const char *collector,
                   const char *want_name, int64_t session, const struct store_build **out);

/*
 * When *session is 0, sets it to the newest complete session (by start) that measured
 * `collector`, saying on stderr which newer ones it skipped (running, abandoned, interrupted,
 * incomplete); prints why and returns -1 when there is none.
 */
int cli_find_session(const char *cmd, struct store *st, const char *db_path, const char *collector,
                     const char *size, int64_t *session);

/* ---- Setting up a session (measure, ab, baseline pin) ----------------------------------- */

/*
 * Chooses the meters: --meters as given (rusage and census are always on), else every meter
 * the host has; encodes and probes the perf events, saying once on stderr which cannot count.
 * Fills plan->meters, plan->valgrind (= vg) and plan->perf (= perf); prints and returns -1
 * on a bad list, an unencodable event or valgrind missing when asked for.
 */
int cli_plan_meters(const char *cmd, const char *meters_arg, const char *events_arg,
                    struct session_plan *plan, struct meter_valgrind *vg, struct meter_perf *perf);
/* "rusage, census, perf (task-clock), valgrind Ir (valgrind-3.19.0)" */
void cli_describe_meters(const struct session_plan *plan, struct sbuf *out);
/* The probes every build has (first build's order), narrowed by --probes; prints on error. */
int cli_plan_probes(const char *cmd, const struct buildinfo *builds, size_t n,
                    const char *probes_arg, struct session_plan *plan);
/*
 * "gcratchet measure --size ci ...", for the session's record: the value of --db, --to,
 * --from and --fleet (also --db=VALUE), and any other connection string, without its
 * password (store_url_redact). Newly allocated.
 */
char *cli_command_line(int argc, char **argv);
/*
 * scripts/NAME of this gcratchet (build-rev.sh, bisect-build.sh): under $GCR_SCRIPTS_DIR when
 * set, else beside the build root (<root>/../scripts). Newly allocated; it may not exist.
 */
char *cli_script_path(const char *root, const char *name);
/* A seed for a session that was not given one. */
uint64_t cli_default_seed(void);
/*
 * A quiet_wait_fn for the bench lock and idleness gate; ctx is the command's name. On stderr:
 * the wait's first line ("gcratchet CMD: waiting for the bench lock PATH, held by pid 12
 * since ..."), a line whenever another process holds it ("...; waited 40s"), how long it has
 * waited (redrawn each second on a terminal, otherwise a line every CLI_WAIT_PLAIN_EVERY_S),
 * and, when the wait ends, "bench lock granted after 52 s".
 */
#define CLI_WAIT_PLAIN_EVERY_S 60
struct quiet_wait;
void cli_waiting(void *ctx, const struct quiet_wait *w);

/*
 * --json - of a verb whose running account goes to stdout from modules it does not own
 * (measuring.c, heapsearch.c): stdout is then the JSON's alone, so the account goes to stderr
 * until cli_json_stdout_end. Returns a descriptor of the real stdout to hand back, or -1 when
 * json_path is not "-" (or NULL) and nothing moved; what stdio held is flushed first. The
 * descriptor is close-on-exec: no probe inherits it.
 */
int cli_json_stdout_begin(const char *json_path);
/* Puts stdout back where cli_json_stdout_begin found it (saved -1: nothing to do). */
void cli_json_stdout_end(int saved);

/* history's query as rows (cli.h), for report --history too: QUERY what selects the series
 * (--collector --probe --metric --since --size --git), DB --db; landing in a struct
 * history_query (history.h). */
enum { HISTORY_OPT_QUERY = 1u << 0, HISTORY_OPT_DB = 1u << 1 };
extern const struct cli_option history_options[];

#endif /* CLI_H */
