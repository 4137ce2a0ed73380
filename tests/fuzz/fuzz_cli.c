/*
 * fuzz_cli.c — the command-line iterator (cli_next) and the count parser (cli_parse_count)
 * over any argv. The input is split on NUL bytes into argv[1..]; argv[0] is the subcommand.
 * Options come from one table that holds every subcommand's options, with and without
 * values, so "--name value", "--name=value", a missing value and an unexpected one are all
 * reachable; values of count options go through cli_parse_count, probe lists and positional
 * arguments through cli_resolve_probe, as the subcommands do.
 *
 * Promises checked besides the sanitizers': an option returned is one of the table's (or
 * --help), with a value exactly when it takes one; a count that parses prints back as the
 * value without its leading zeros, so "exact integers" hold.
 */
#include "cli.h"
#include "fuzz.h"

#define FUZZ_CLI_MAX_ARGS 256

struct fuzz_cli_count {
	const char *name;
	int allow_zero;
};

static const struct cli_opt fuzz_cli_opts[] = {
    {"--accept", 1}, {"--base", 1},         {"--baseline", 1},
    {"--build", 1},  {"--clean-env", 0},    {"--collector", 1},
    {"--cpu", 1},    {"--db", 1},           {"--env-offset", 1},
    {"--events", 1}, {"--fix", 1},          {"--format", 1},
    {"--html", 1},   {"--idle-below", 1},   {"--idle-timeout", 1},
    {"--json", 1},   {"--lock-timeout", 1}, {"--md", 1},
    {"--meters", 1}, {"--no-aslr", 0},      {"--out", 1},
    {"--probes", 1}, {"--profile", 1},      {"--ref", 1},
    {"--rounds", 1}, {"--seed", 1},         {"--session", 1},
    {"--size", 1},   {"--strict", 0},       {"--timeout", 1},
    {"--two-n", 1},  {"--warmup", 1},       {NULL, 0},
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
		uint64_t n;
		char printed[32];
		const char *digits = val;

		if (strcmp(c->name, opt) != 0)
			continue;
		if (cli_parse_count("fuzz", opt, val, c->allow_zero, &n) != 0)
			return;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char verb[] = "fuzz";
	char *text = fuzz_text(data, size), *argv[FUZZ_CLI_MAX_ARGS + 1];
	struct strlist positional = {0}, available = {0}, pieces = {0};
	const char *opt, *val;
	struct cli_iter it;
	int argc = 1, rc;

	/* Every NUL-terminated piece is one argument; the text's own NUL ends the last. */
	argv[0] = verb;
	for (size_t at = 0; at < size && argc < FUZZ_CLI_MAX_ARGS; at += strlen(text + at) + 1)
		argv[argc++] = text + at;
	argv[argc] = NULL;
	for (size_t i = 0; fuzz_cli_probe_names[i]; i++)
		strlist_push(&available, fuzz_cli_probe_names[i]);

	/* Odd-sized inputs walk as a verb that takes no positional argument (measure does). */
	cli_iter_init(&it, "fuzz", argc, argv, fuzz_cli_opts);
	while ((rc = cli_next(&it, &opt, &val, size % 2 ? NULL : &positional)) == 1) {
		const struct cli_opt *o = fuzz_cli_opts;

		if (strcmp(opt, "--help") == 0) {
			FUZZ_ASSERT(val == NULL, "--help came with a value");
			continue;
		}
		while (o->name && strcmp(o->name, opt) != 0)
			o++;
		FUZZ_ASSERT(o->name != NULL, "cli_next returned an option not in the table");
		FUZZ_ASSERT(o->has_arg == (val != NULL), "a value where none is taken, or none");
		if (!val)
			continue;
		fuzz_cli_check_count(opt, val);
		if (strcmp(opt, "--probes") == 0) {
			strlist_split(&pieces, val);
			for (size_t i = 0; i < pieces.n; i++)
				fuzz_cli_resolve(pieces.items[i], &available);
			strlist_release(&pieces);
		}
	}
	FUZZ_ASSERT(rc == 0 || rc == -1, "cli_next returned neither 1, 0 nor -1");
	for (size_t i = 0; i < positional.n; i++)
		fuzz_cli_resolve(positional.items[i], &available);
	strlist_release(&available);
	strlist_release(&positional);
	free(text);
	return 0;
}
