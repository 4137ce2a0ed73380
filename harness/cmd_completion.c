/*
 * gcratchet completion — what the verbs' option tables say, for a shell and for the docs: the
 * bash completion script, one verb's options, and the README's synopsis block. Each verb's
 * options are declared once, in its cli_opt table (with the session options it shares);
 * cli_list_options makes the verb list them instead of running, and its --help text's usage
 * lines are the synopsis. tests/cli/t174 holds every --help and the README to the tables.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"

static void completion_subwords(const struct cli_verb *c, struct sbuf *out);

/*
 * Every option verb c's tables advertise, in their order ("--rounds=" takes a value): the
 * verb's own, then those of each first word its usage lines name (queue submit, status ...).
 */
static void completion_row(void *ctx, const struct cli_option *r)
{
	struct strlist *out = ctx;
	char *name;

	if (r->flags & CLI_HIDDEN)
		return;
	name = xasprintf("%s%s", r->name, cli_option_metavar(r) ? "=" : "");
	if (!strlist_contains(out, name))
		strlist_push(out, name);
	free(name);
}

static void completion_options(const struct cli_verb *c, struct strlist *out)
{
	char *argv[] = {(char *)c->name, (char *)"--help", NULL, NULL};
	struct sbuf subs;

	if (!c->usage) {
		cli_each_option(c->options, completion_row, out);
		for (const struct cli_verb *s = c->subs; s && s->name; s++)
			cli_each_option(s->options, completion_row, out);
		return;
	}

	sbuf_init(&subs);
	completion_subwords(c, &subs);
	cli_list_options(out);
	c->run(2, argv);
	for (char *w = subs.data ? strtok(subs.data, " ") : NULL; w; w = strtok(NULL, " ")) {
		argv[1] = w;
		argv[2] = (char *)"--help";
		c->run(3, argv);
	}
	cli_list_options(NULL);
	sbuf_release(&subs);
}

/* The usage lines of c's --help: everything before its first blank line. */
static size_t completion_usage_len(const char *usage)
{
	const char *end = strstr(usage, "\n\n");

	return end ? (size_t)(end - usage) + 1 : strlen(usage);
}

/* c's usage lines: the declaration's, or (TRANSITION) its --help text's. Newly allocated. */
static char *completion_usage(const struct cli_verb *c)
{
	struct sbuf out;

	if (c->usage)
		return xasprintf("%.*s", (int)completion_usage_len(c->usage), c->usage);
	sbuf_init(&out);
	cli_synopsis(c, &out);
	return out.data;
}

/*
 * The usage lines as the README shows them: "usage: " and the matching indent of the lines
 * that follow taken off.
 */
static void completion_synopsis(const struct cli_verb *c, struct sbuf *out)
{
	char *usage = completion_usage(c);
	const char *p = usage, *end = usage + strlen(usage);
	size_t skip = strlen("usage: ");

	if (strncmp(p, "usage: ", skip) == 0)
		p += skip;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		sbuf_addf(out, "%.*s\n", (int)len, p);
		p += len + 1;
		if (p < end && strspn(p, " ") >= skip)
			p += skip;
	}
	free(usage);
}

static int completion_word_ok(const char *s, size_t len)
{
	if (len == 0)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-')
			return 0;
	return 1;
}

/* Shortens out to its first len characters. */
static void completion_cut(struct sbuf *out, size_t len)
{
	out->len = len;
	if (out->data)
		out->data[len] = '\0';
}

/*
 * Splits a token like "ci|default|large" (brackets dropped) into words, when every part is
 * a lowercase word: the values an option (or a verb's first argument) takes. 0 when the
 * token names a placeholder instead (N, FILE, NAME|latest).
 */
static int completion_choices(const char *tok, size_t len, int need_bar, struct sbuf *out)
{
	size_t start = out->len;
	int parts = 0;

	while (len && (*tok == '[' || *tok == '('))
		tok++, len--;
	while (len && (tok[len - 1] == ']' || tok[len - 1] == ')'))
		len--;
	for (size_t i = 0; i <= len; parts++) {
		size_t j = i;

		while (j < len && tok[j] != '|')
			j++;
		if (!completion_word_ok(tok + i, j - i) || tok[i] == '-') {
			completion_cut(out, start);
			return 0;
		}
		sbuf_addf(out, "%s%.*s", out->len > start ? " " : "", (int)(j - i), tok + i);
		i = j + 1;
	}
	if (need_bar && parts < 2) {
		completion_cut(out, start);
		return 0;
	}
	return 1;
}

static size_t completion_token_len(const char *s)
{
	return strcspn(s, " \n");
}

/* The words verb c takes first (baseline's pin, update, validate; list's probes ...). */
static void completion_subwords(const struct cli_verb *c, struct sbuf *out)
{
	char *usage = completion_usage(c);
	const char *p = usage, *end = usage + strlen(usage);
	size_t nlen = strlen(c->name);

	while ((p = strstr(p, "gcratchet ")) && p < end) {
		p += strlen("gcratchet ");
		if (strncmp(p, c->name, nlen) != 0 || p[nlen] != ' ')
			continue;
		p += nlen + strspn(p + nlen, " ");
		if (*p != '-')
			completion_choices(p, completion_token_len(p), 0, out);
		if (out->len && out->data[out->len - 1] != ' ')
			sbuf_addf(out, " ");
	}
	free(usage);
}

/* The case arms of one verb's option values: "--size) values=\"ci default large\" ;;". */
static void completion_values(const struct cli_verb *c, const struct strlist *opts,
                              struct sbuf *out)
{
	char *usage = completion_usage(c);
	struct sbuf takes;

	sbuf_init(&takes);
	for (size_t i = 0; i < opts->n; i++) {
		size_t len = strlen(opts->items[i]);
		struct sbuf words;
		const char *p;

		if (opts->items[i][len - 1] != '=')
			continue;
		len--;
		sbuf_addf(&takes, "%s%.*s", takes.len ? "|" : "", (int)len, opts->items[i]);
		sbuf_init(&words);
		for (p = usage; *p; p++) {
			if (strncmp(p, opts->items[i], len) != 0 || p[len] != ' ' ||
			    (p > usage && isalnum((unsigned char)p[-1])))
				continue;
			if (completion_choices(p + len + 1, strcspn(p + len + 1, " \n]"), 1,
			                       &words))
				break;
		}
		if (words.len)
			sbuf_addf(out, "\t\t\t%.*s) values=\"%s\" ;;\n", (int)len, opts->items[i],
			          words.data);
		sbuf_release(&words);
	}
	if (takes.len)
		sbuf_addf(out, "\t\t\t%s) return 0 ;;\n", takes.data);
	sbuf_release(&takes);
	free(usage);
}

static void completion_bash(struct sbuf *out)
{
	struct sbuf verbs;

	sbuf_init(&verbs);
	for (const struct cli_verb *const *v = cli_verbs(); *v; v++)
		sbuf_addf(&verbs, "%s ", (*v)->name);
	sbuf_addf(out,
	          "# bash completion for gcratchet %s, generated from every verb's option table\n"
	          "# by `gcratchet completion bash`. Install it with\n"
	          "#   gcratchet completion bash >/etc/bash_completion.d/gcratchet\n"
	          "# or add  eval \"$(gcratchet completion bash)\"  to ~/.bashrc.\n"
	          "_gcratchet()\n"
	          "{\n"
	          "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= words= subs= values=\n"
	          "\t[ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	          "\tCOMPREPLY=()\n"
	          "\tif [ \"$COMP_CWORD\" -le 1 ]; then\n"
	          "\t\twords=\"%s--help --version\"\n"
	          "\telse\n"
	          "\t\tcase ${COMP_WORDS[1]} in\n",
	          GCRATCHET_VERSION, verbs.data);
	for (const struct cli_verb *const *v = cli_verbs(); *v; v++) {
		const struct cli_verb *c = *v;
		struct strlist opts = {0};
		struct sbuf subs, values;

		sbuf_init(&subs);
		sbuf_init(&values);
		completion_options(c, &opts);
		completion_subwords(c, &subs);
		completion_values(c, &opts, &values);
		sbuf_addf(out, "\t\t%s)\n\t\t\twords=\"", c->name);
		for (size_t i = 0; i < opts.n; i++) {
			size_t len = strlen(opts.items[i]);

			if (opts.items[i][len - 1] == '=')
				len--;
			sbuf_addf(out, "%.*s ", (int)len, opts.items[i]);
		}
		sbuf_addf(out, "--help\"\n");
		if (subs.len)
			sbuf_addf(out, "\t\t\tsubs=\"%.*s\"\n", (int)(subs.len - 1), subs.data);
		if (values.len)
			sbuf_addf(out, "\t\t\tcase $prev in\n%s\t\t\tesac\n", values.data);
		sbuf_addf(out, "\t\t\t;;\n");
		sbuf_release(&subs);
		sbuf_release(&values);
		strlist_release(&opts);
	}
	sbuf_addf(out, "\t\t*) return 0 ;;\n"
	               "\t\tesac\n"
	               "\t\tif [ -n \"$values\" ]; then\n"
	               "\t\t\twords=$values\n"
	               "\t\telif [ \"$COMP_CWORD\" -eq 2 ] && [ -n \"$subs\" ]; then\n"
	               "\t\t\twords=\"$subs $words\"\n"
	               "\t\tfi\n"
	               "\tfi\n"
	               "\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
	               "}\n"
	               "complete -o default -F _gcratchet gcratchet\n");
	sbuf_release(&verbs);
}

static int completion_main(int argc, char **argv)
{
	static const struct cli_opt opts[] = {{NULL, 0}};
	const char *cmd = "completion", *opt, *val;
	struct strlist args = {0};
	struct cli_iter it;
	struct sbuf out;
	int r, rc = EXIT_UNJUDGED;

	sbuf_init(&out);
	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, &args)) == 1) {
		rc = cli_usage(cli_find_verb(cmd), 0);
		goto out;
	}
	if (r < 0)
		goto out;
	if (args.n == 1 && strcmp(args.items[0], "bash") == 0) {
		completion_bash(&out);
	} else if (args.n == 1 && strcmp(args.items[0], "synopsis") == 0) {
		for (const struct cli_verb *const *v = cli_verbs(); *v; v++)
			completion_synopsis(*v, &out);
	} else if (args.n == 2 && strcmp(args.items[0], "options") == 0) {
		const struct cli_verb *c = cli_find_verb(args.items[1]);
		struct strlist names = {0};

		if (!c) {
			const char *near = cli_near_command(args.items[1]);

			rc = cli_error(cmd, "unknown command \"%s\"%s%s%s", args.items[1],
			               near ? " (did you mean " : "", near ? near : "",
			               near ? "?)" : "");
			goto out;
		}
		completion_options(c, &names);
		for (size_t i = 0; i < names.n; i++)
			sbuf_addf(&out, "%s\n", names.items[i]);
		strlist_release(&names);
	} else {
		rc = cli_error(cmd,
		               "expected bash, synopsis or options VERB (see gcratchet completion "
		               "--help)");
		goto out;
	}
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		rc = cli_error(cmd, "writing to stdout failed");
		goto out;
	}
	rc = EXIT_OK;
out:
	strlist_release(&args);
	sbuf_release(&out);
	return rc;
}

const struct cli_verb cmd_completion = {
    .name = "completion",
    .summary = "bash completion, a verb's options and the usage synopsis, from the option tables",
    .run = completion_main,
    .usage =
        "usage: gcratchet completion bash\n"
        "       gcratchet completion options VERB\n"
        "       gcratchet completion synopsis\n"
        "\n"
        "What the verbs' option tables say. bash prints a bash completion script (verbs, each\n"
        "verb's options and first words, the values an option takes when its usage line lists\n"
        "them, file names for the rest): gcratchet completion bash >/etc/bash_completion.d/\n"
        "gcratchet, or eval \"$(gcratchet completion bash)\" in ~/.bashrc. options VERB prints\n"
        "VERB's options one a line, \"--rounds=\" for one that takes a value. synopsis prints\n"
        "every verb's usage lines, the block README.md's Commands section shows (make\n"
        "readme-synopsis writes it there).\n"
        "\n"
        "Exit status: 0 printed; 2 bad arguments or an unknown verb.\n",
};
