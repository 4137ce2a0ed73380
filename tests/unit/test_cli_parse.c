/*
 * test_cli_parse.c — the one parser every verb's declaration goes through (cli.h, cli_parse.c):
 * each kind lands its value where its row says, bounds and choices are refused in the words
 * the verbs always used, an included table lands in its own struct and a verb's row shadows
 * an included one of the same name, cli_scan walks without landing, and --help, the synopsis
 * and the listing of options are made from the rows (a hidden row shown nowhere).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "unit.h"
#include "util.h"

struct inner {
	int depth;
	char *owned;
	int shadowed;
};

struct outer {
	int flag, count;
	uint64_t big;
	double pct;
	const char *name, *format;
	int64_t session;
	struct strlist list, commas;
	int called;
	struct inner in;
};

static int call_row(void *field, const struct cli_option *row, const char *val, struct err *e)
{
	struct outer *o = field;

	if (strcmp(val, "bad") == 0)
		return err_setc(e, ERR_INVALID, "%s refuses \"%s\" in its own words", row->name,
		                val);
	o->called++;
	return 0;
}

enum { G_A = 1u << 0, G_B = 1u << 1 };

#define IN(f) offsetof(struct inner, f)
static const struct cli_option inner_rows[] = {
    {"--depth", "N", CLI_INT, IN(depth), 1, 9, " levels", .group = G_A, .help = "how deep"},
    {"--owned", "TEXT", CLI_OWNED, IN(owned), .group = G_A, .help = "a copy"},
    {"--only-b", NULL, CLI_FLAG, IN(shadowed), .group = G_B, .help = "not taken"},
    {"--name", "X", CLI_FLAG, IN(shadowed), .group = G_A, .help = "shadowed by the verb's"},
    {0},
};
#undef IN

#define OU(f) offsetof(struct outer, f)
static const struct cli_option outer_rows[] = {
    {"--flag", NULL, CLI_FLAG, OU(flag), .help = "a flag"},
    {"--count", "N", CLI_INT, OU(count), 1, 0, .help = "a positive count"},
    {"--big", "N", CLI_U64, OU(big), 0, 0, .help = "any non-negative count"},
    {"--pct", "PCT", CLI_PCT, OU(pct), 0, 100, "a change in percent",
     .help = "a percentage, and this help line is long enough that it has to be wrapped onto "
             "a second line by the help writer"},
    {"--name", "NAME", CLI_STRING, OU(name), .flags = CLI_REQUIRED, .help = "a name"},
    {"--format", NULL, CLI_ENUM, OU(format), .values = "table|md|json", .help = "a format"},
    {"--session", "N", CLI_SESSION, OU(session), .values = "latest", .help = "a session"},
    {"--item", "X", CLI_LIST, OU(list), .flags = CLI_REPEAT, .help = "items"},
    {"--items", "LIST", CLI_LIST, OU(commas), .flags = CLI_COMMAS, .help = "a comma list"},
    {"--call", "V", CLI_CALL, 0, .call = call_row, .help = "a call"},
    {"--old", NULL, CLI_FLAG, OU(flag), .flags = CLI_HIDDEN, .help = "an old spelling"},
    {.name = "inner", .kind = CLI_INCLUDE, .rows = inner_rows, .off = OU(in), .group = G_A},
    {0},
};
#undef OU

static int run_stub(int argc, char **argv)
{
	(void)argc, (void)argv;
	return 0;
}

static const struct cli_verb verb = {
    .name = "demo",
    .summary = "a verb for the test",
    .args = "FILE",
    .description = "Does nothing.\n",
    .exit_status = "0 always.",
    .options = outer_rows,
    .run = run_stub,
};

/* cli_parse over a NULL-terminated list of words after the verb's name. */
static int parse(struct outer *o, struct strlist *pos, const char *const *words)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"demo";
	while (*words && argc < 31)
		argv[argc++] = (char *)*words++;
	argv[argc] = NULL;
	return cli_parse(&verb, argc, argv, o, pos);
}

static void release(struct outer *o)
{
	strlist_release(&o->list);
	strlist_release(&o->commas);
	free(o->in.owned);
	memset(o, 0, sizeof *o);
}

static void test_kinds_land(void)
{
	struct outer o = {0};
	struct strlist pos = {0};
	const char *w[] = {"--flag",   "--count", "3",           "--big=18446744073709551615",
	                   "--pct",    "2.5",     "--name",      "n1",
	                   "--format", "md",      "--session=7", "--item",
	                   "a",        "--item",  "b",           "--items",
	                   "x,y",      "--call",  "v",           "file.txt",
	                   "--depth",  "4",       "--owned",     "one",
	                   "--owned",  "two",     NULL};

	CHECK(parse(&o, &pos, w) == 0);
	CHECK(o.flag == 1 && o.count == 3 && o.big == UINT64_MAX);
	CHECK_NEAR(o.pct, 2.5, 1e-12);
	CHECK_STR(o.name, "n1");
	CHECK_STR(o.format, "md");
	CHECK(o.session == 7);
	CHECK(o.list.n == 2 && strcmp(o.list.items[1], "b") == 0);
	CHECK(o.commas.n == 2 && strcmp(o.commas.items[0], "x") == 0);
	CHECK(o.called == 1);
	CHECK(pos.n == 1 && strcmp(pos.items[0], "file.txt") == 0);
	/* The included rows land in the inner struct; an owned string's last value wins. */
	CHECK(o.in.depth == 4);
	CHECK_STR(o.in.owned, "two");
	/* The verb's --name shadows the included one: it landed a string, not the flag. */
	CHECK(o.in.shadowed == 0);
	strlist_release(&pos);
	release(&o);

	{
		const char *w2[] = {"--session", "latest", "--old", NULL};
		CHECK(parse(&o, NULL, w2) == 0);
		CHECK(o.session == CLI_SESSION_WORD && o.flag == 1);
		release(&o);
	}
}

/* The error a parse printed is its return; the words themselves are the verbs' (t012, t174). */
static void test_refusals(void)
{
	struct outer o = {0};
	struct err e = ERR_INIT;
	const struct cli_option *row;
	size_t off = 0;
	const char *const bad[][4] = {
	    {"--count", "0", NULL},  {"--count", "x", NULL},    {"--pct", "0", NULL},
	    {"--pct", "101", NULL},  {"--format", "xml", NULL}, {"--session", "0", NULL},
	    {"--depth", "10", NULL}, {"--depth", "-1", NULL},   {"--only-b", NULL},
	    {"--flag=1", NULL},      {"--count", NULL},         {"--cont", "1", NULL},
	    {"--call", "bad", NULL}, {"stray", NULL},
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK(parse(&o, NULL, bad[i]) == -1);
		release(&o);
	}

	row = cli_find_option(outer_rows, "--depth", &off);
	CHECK(row && off == offsetof(struct outer, in) + offsetof(struct inner, depth) - row->off);
	CHECK(cli_apply(row, &o.in, "10", &e) == -1);
	CHECK_STR(e.msg, "--depth must be 1 to 9 levels, got 10");
	CHECK(cli_apply(row, &o.in, "x", &e) == -1);
	CHECK_STR(e.msg, "--depth must be an integer from 1 to 9 levels, got \"x\"");
	off = 0;
	row = cli_find_option(outer_rows, "--count", &off);
	CHECK(cli_apply(row, &o, "0", &e) == -1);
	CHECK_STR(e.msg, "--count must be a positive integer, got \"0\"");
	row = cli_find_option(outer_rows, "--format", &off);
	CHECK(cli_apply(row, &o, "xml", &e) == -1);
	CHECK_STR(e.msg, "--format must be table, md or json, got \"xml\"");
	row = cli_find_option(outer_rows, "--pct", &off);
	CHECK(cli_apply(row, &o, "200", &e) == -1);
	CHECK_STR(e.msg, "--pct must be a change in percent above 0 and at most 100, got \"200\"");
	row = cli_find_option(outer_rows, "--session", &off);
	CHECK(cli_apply(row, &o, "x", &e) == -1);
	CHECK_STR(e.msg,
	          "--session must be a session id from 1 to 9223372036854775807 or \"latest\", got "
	          "\"x\"");
	CHECK(cli_find_option(outer_rows, "--only-b", &off) == NULL);
	CHECK(cli_find_option(outer_rows, "--nosuch", &off) == NULL);
	release(&o);
}

static void scan_each(void *ctx, const struct cli_option *row, const char *val)
{
	struct sbuf *out = ctx;

	sbuf_addf(out, "%s=%s;", row ? row->name : "(arg)", val ? val : "");
}

static void test_scan(void)
{
	char *argv[] = {(char *)"demo",   (char *)"--item",    (char *)"a", (char *)"B",
	                (char *)"--flag", (char *)"--depth=2", NULL};
	char *bad[] = {(char *)"demo", (char *)"--nosuch", NULL};
	struct sbuf out;

	sbuf_init(&out);
	CHECK(cli_scan(&verb, 6, argv, scan_each, &out) == 0);
	CHECK_STR(out.data, "--item=a;(arg)=B;--flag=;--depth=2;");
	CHECK(cli_scan(&verb, 2, bad, scan_each, &out) == -1);
	sbuf_release(&out);
}

static void count_row(void *ctx, const struct cli_option *row)
{
	struct sbuf *out = ctx;

	sbuf_addf(out, "%s ", row->name);
}

static void test_help_from_rows(void)
{
	struct sbuf help, syn, names;

	sbuf_init(&help);
	sbuf_init(&syn);
	sbuf_init(&names);
	cli_help(&verb, &help);
	cli_synopsis(&verb, &syn);
	cli_each_option(verb.options, count_row, &names);
	/* Every row once, the included ones after the verb's, the shadowed --name once. */
	CHECK_STR(names.data, "--flag --count --big --pct --name --format --session --item --items "
	                      "--call --old --depth --owned ");
	CHECK(strncmp(syn.data, "usage: gcratchet demo FILE [--flag] [--count N]", 47) == 0);
	CHECK(strstr(syn.data, " --name NAME\n") != NULL); /* required: no brackets */
	CHECK(strstr(syn.data, "[--item X]...") != NULL);  /* repeatable */
	CHECK(strstr(syn.data, "[--format table|md|json]") != NULL);
	CHECK(strstr(syn.data, "--old") == NULL);    /* hidden */
	CHECK(strstr(syn.data, "--only-b") == NULL); /* a group not taken */
	for (const char *p = syn.data; *p; p += strcspn(p, "\n") + 1)
		CHECK(strcspn(p, "\n") <= 96);
	CHECK(strncmp(help.data, syn.data, syn.len) == 0);
	CHECK(strstr(help.data, "\nDoes nothing.\n") != NULL);
	CHECK(strstr(help.data, "\n  --depth N           how deep\n") != NULL);
	CHECK(strstr(help.data, "--old") == NULL);
	/* A long help line is wrapped under its column. */
	CHECK(strstr(help.data, "wrapped\n                      onto a second line") != NULL);
	CHECK(strstr(help.data, "\nExit status: 0 always.\n") != NULL);
	sbuf_release(&help);
	sbuf_release(&syn);
	sbuf_release(&names);
}

int main(void)
{
	test_kinds_land();
	test_refusals();
	test_scan();
	test_help_from_rows();
	return unit_done("test_cli_parse");
}
