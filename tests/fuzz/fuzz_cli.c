/*
 * fuzz_cli.c — the command-line walker (cli_scan, cli_parse's) and the count parser (cli_count)
 * over any argv. The input is split on NUL bytes into argv[1..]; argv[0] is the subcommand.
 * Options come from one table that holds every subcommand's options, with and without
 * values, so "--name value", "--name=value", a missing value and an unexpected one are all
 * reachable; values of count options go through cli_count, probe lists and positional
 * arguments through cli_resolve_probe, as the subcommands do.
 *
 * Promises checked besides the sanitizers': an option handed back is one of the table's, with
 * a value exactly when it takes one; a count that parses prints back as the
 * value without its leading zeros, so "exact integers" hold.
 */
#include "cli.h"
#include "fuzz.h"

#define FUZZ_CLI_MAX_ARGS 256

struct fuzz_cli_count {
	const char *name;
	int allow_zero;
};

static const struct cli_option fuzz_cli_opts[] = {
    {"--accept", "V", CLI_STRING, .help = NULL},
    {"--base", "V", CLI_STRING, .help = NULL},
    {"--baseline", "V", CLI_STRING, .help = NULL},
    {"--build", "V", CLI_STRING, .help = NULL},
    {"--clean-env", NULL, CLI_STRING, .help = NULL},
    {"--collector", "V", CLI_STRING, .help = NULL},
    {"--cpu", "V", CLI_STRING, .help = NULL},
    {"--db", "V", CLI_STRING, .help = NULL},
    {"--env-offset", "V", CLI_STRING, .help = NULL},
    {"--events", "V", CLI_STRING, .help = NULL},
    {"--fix", "V", CLI_STRING, .help = NULL},
    {"--format", "V", CLI_STRING, .help = NULL},
    {"--html", "V", CLI_STRING, .help = NULL},
    {"--idle-below", "V", CLI_STRING, .help = NULL},
    {"--idle-timeout", "V", CLI_STRING, .help = NULL},
    {"--json", "V", CLI_STRING, .help = NULL},
    {"--lock-timeout", "V", CLI_STRING, .help = NULL},
    {"--md", "V", CLI_STRING, .help = NULL},
    {"--meters", "V", CLI_STRING, .help = NULL},
    {"--no-aslr", NULL, CLI_STRING, .help = NULL},
    {"--out", "V", CLI_STRING, .help = NULL},
    {"--probes", "V", CLI_STRING, .help = NULL},
    {"--profile", "V", CLI_STRING, .help = NULL},
    {"--ref", "V", CLI_STRING, .help = NULL},
    {"--rounds", "V", CLI_STRING, .help = NULL},
    {"--seed", "V", CLI_STRING, .help = NULL},
    {"--session", "V", CLI_STRING, .help = NULL},
    {"--size", "V", CLI_STRING, .help = NULL},
    {"--strict", NULL, CLI_STRING, .help = NULL},
    {"--timeout", "V", CLI_STRING, .help = NULL},
    {"--two-n", "V", CLI_STRING, .help = NULL},
    {"--warmup", "V", CLI_STRING, .help = NULL},
    {0},
};

static const struct fuzz_cli_count fuzz_cli_counts[] = {
    {"--rounds", 0},       {"--warmup", 1},       {"--seed", 1}, {"--timeout", 1},
    {"--session", 0},      {"--two-n", 0},        {"--cpu", 1},  {"--env-offset", 1},
    {"--lock-timeout", 1}, {"--idle-timeout", 1}, {NULL, 0},
};

static const char *const fuzz_cli_probe_names[] = {
    "01_nursery_churn",
    "02_survivor_promotion",
    "05_binary_trees",
    "11_collect_at_depth",
    "14_grow_then_churn",
    "foreign_probe",
    NULL,
};

static void fuzz_cli_check_count(const char *opt, const char *val)
{
	for (const struct fuzz_cli_count *c = fuzz_cli_counts; c->name; c++) {
		/* The row a verb declares for a count with no bound above (cli_count's rule). */
		const struct cli_option row = {opt, "N",         CLI_U64, 0, c->allow_zero ? 0 : 1,
		                               0,   .help = NULL};
		struct err e = ERR_INIT;
		uint64_t n;
		char printed[32];
		const char *digits = val;

		if (strcmp(c->name, opt) != 0)
			continue;
		if (cli_count(&row, val, &n, &e) != 0) {
			FUZZ_ASSERT(e.code == ERR_INVALID && strstr(e.msg, opt),
			            "a refused count without a message naming its option");
			return;
		}
		FUZZ_ASSERT(c->allow_zero || n > 0, "a zero count passed where none is allowed");
		while (digits[0] == '0' && digits[1] != '\0')
			digits++;
		snprintf(printed, sizeof printed, "%llu", (unsigned long long)n);
		FUZZ_ASSERT(strcmp(printed, digits) == 0, "a count does not print back as given");
		return;
	}
}

static void fuzz_cli_resolve(const char *want, const struct strlist *available)
{
	const char *name = cli_resolve_probe("fuzz", want, available);

	FUZZ_ASSERT(!name || strlist_contains(available, name), "resolved to an unknown probe");
}

struct fuzz_cli_walk {
	struct strlist *positional;
	struct strlist *available;
};

static void fuzz_cli_each(void *ctx, const struct cli_option *row, const char *val)
{
	struct fuzz_cli_walk *w = ctx;
	struct strlist pieces = {0};
	const struct cli_option *o = fuzz_cli_opts;

	if (!row) {
		strlist_push(w->positional, val);
		return;
	}
	while (o->name && o != row)
		o++;
	FUZZ_ASSERT(o->name != NULL, "cli_scan handed back a row not in the table");
	FUZZ_ASSERT((o->metavar != NULL) == (val != NULL), "a value where none is taken, or none");
	if (!val)
		return;
	fuzz_cli_check_count(row->name, val);
	if (strcmp(row->name, "--probes") == 0) {
		strlist_split(&pieces, val);
		for (size_t i = 0; i < pieces.n; i++)
			fuzz_cli_resolve(pieces.items[i], w->available);
		strlist_release(&pieces);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct cli_verb verb = {.name = "fuzz", .options = fuzz_cli_opts};
	static char name[] = "fuzz";
	char *text = fuzz_text(data, size), *argv[FUZZ_CLI_MAX_ARGS + 1];
	struct strlist positional = {0}, available = {0};
	struct fuzz_cli_walk w = {&positional, &available};
	int argc = 1, rc;

	/* Every NUL-terminated piece is one argument; the text's own NUL ends the last. */
	argv[0] = name;
	for (size_t at = 0; at < size && argc < FUZZ_CLI_MAX_ARGS; at += strlen(text + at) + 1)
		argv[argc++] = text + at;
	argv[argc] = NULL;
	for (size_t i = 0; fuzz_cli_probe_names[i]; i++)
		strlist_push(&available, fuzz_cli_probe_names[i]);

	rc = cli_scan(&verb, argc, argv, fuzz_cli_each, &w);
	FUZZ_ASSERT(rc == 0 || rc == -1, "cli_scan returned neither 0 nor -1");
	for (size_t i = 0; i < positional.n; i++)
		fuzz_cli_resolve(positional.items[i], &available);
	strlist_release(&available);
	strlist_release(&positional);
	free(text);
	return 0;
}
