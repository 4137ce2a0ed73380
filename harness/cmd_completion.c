/*
 * gcratchet completion — what the verbs' declarations say, for a shell and for the docs: the
 * bash completion script, one verb's options, the README's synopsis block and the man pages.
 * Each verb's options are rows of its declaration (cli.h, with the rows it includes);
 * everything here is read from them as data, as --help is. tests/cli/t174 holds the README
 * and the completion to them, t207 the man pages.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cmds.h"

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
	cli_each_option(c->options, completion_row, out);
	for (const struct cli_verb *s = c->subs; s && s->name; s++)
		cli_each_option(s->options, completion_row, out);
}

/* c's usage lines, as --help starts. Newly allocated. */
static char *completion_usage(const struct cli_verb *c)
{
	struct sbuf out;

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

/* The words verb c takes first: its subcommands' (baseline's pin, update, validate) and the
 * lowercase choices of its arguments (list's probes, collectors ...). */
static void completion_subwords(const struct cli_verb *c, struct sbuf *out)
{
	for (const struct cli_verb *s = c->subs; s && s->name; s++) {
		const char *sp = strrchr(s->name, ' ');
		sbuf_addf(out, "%s ", sp ? sp + 1 : s->name);
	}
	for (const char *p = c->args ? c->args : ""; *p; p += strspn(p, " ")) {
		size_t len = strcspn(p, " ");
		if (*p != '-' && completion_choices(p, len, 0, out))
			sbuf_addf(out, " ");
		p += len;
	}
}

struct completion_values {
	struct sbuf *arms, takes;
};

/* One row's case arm when its value is one of a few words (an enum's, or "off|host"). */
static void completion_value_row(void *ctx, const struct cli_option *r)
{
	struct completion_values *cv = ctx;
	const char *meta = cli_option_metavar(r);
	struct sbuf words;

	if (!meta || (r->flags & CLI_HIDDEN))
		return;
	sbuf_addf(&cv->takes, "%s%s", cv->takes.len ? "|" : "", r->name);
	sbuf_init(&words);
	if (completion_choices(meta, strlen(meta), 1, &words))
		sbuf_addf(cv->arms, "\t\t\t%s) values=\"%s\" ;;\n", r->name, words.data);
	sbuf_release(&words);
}

/* The case arms of one verb's option values: "--size) values=\"ci default large\" ;;". */
static void completion_values(const struct cli_verb *c, struct sbuf *out)
{
	struct completion_values cv = {out, {0}};

	sbuf_init(&cv.takes);
	cli_each_option(c->options, completion_value_row, &cv);
	for (const struct cli_verb *s = c->subs; s && s->name; s++)
		cli_each_option(s->options, completion_value_row, &cv);
	if (cv.takes.len)
		sbuf_addf(out, "\t\t\t%s) return 0 ;;\n", cv.takes.data);
	sbuf_release(&cv.takes);
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
		completion_values(c, &values);
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

/* ---- Man pages: gcratchet.1 and gcratchet-VERB.1, in man(7)'s roff ----------------------- */

/*
 * Appends len bytes of text for roff: a backslash as \e, a hyphen as \- (an option's dash
 * that man renders as one, so a copied option works), every character beyond ASCII as
 * \[uXXXX] (no input encoding to guess) and a control character as a space; a line that
 * would start with a dot or a quote (a request) starts with \& instead.
 */
static void man_escape(struct sbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c < 0x80 ? 1 : utf8_len((const unsigned char *)s + i, len - i);

		if ((c == '.' || c == '\'') && (out->len == 0 || out->data[out->len - 1] == '\n'))
			sbuf_add(out, "\\&", 2);
		if (c == '\\') {
			sbuf_add(out, "\\e", 2);
		} else if (c == '-') {
			sbuf_add(out, "\\-", 2);
		} else if (c >= 0x80 && n > 0) {
			uint32_t cp = c >= 0xf0 ? c & 0x07u : c >= 0xe0 ? c & 0x0fu : c & 0x1fu;
			for (size_t k = 1; k < n; k++)
				cp = cp << 6 | ((unsigned char)s[i + k] & 0x3fu);
			sbuf_addf(out, "\\[u%04X]", (unsigned)cp);
			i += n;
			continue;
		} else if (c < 0x20 || c == 0x7f || c >= 0x80) {
			sbuf_add(out, c >= 0x80 ? "\\[uFFFD]" : " ", c >= 0x80 ? 8 : 1);
		} else {
			sbuf_add(out, s + i, 1);
		}
		i++;
	}
}

static void man_text(struct sbuf *out, const char *s)
{
	man_escape(out, s, strlen(s));
}

/* One synopsis word, kept whole on the line: its spaces are roff's unbreakable ones. */
static void man_synopsis_word(void *ctx, const char *word)
{
	struct sbuf *out = ctx;

	sbuf_addf(out, "\n");
	for (const char *p = word; *p;) {
		size_t len = strcspn(p, " ");
		man_escape(out, p, len);
		p += len;
		if (*p) {
			sbuf_addf(out, "\\~");
			p++;
		}
	}
}

/*
 * A description as --help prints it: its lines are filled again at the reader's width, a
 * blank line is a new paragraph, and lines that start with spaces (a table of choices, a
 * CSV header) are kept as they are.
 */
static void man_description(struct sbuf *out, const char *text)
{
	int kept = 0;

	sbuf_addf(out, ".PP\n");
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");

		if (len == 0) {
			sbuf_addf(out, "%s.PP\n", kept ? ".fi\n" : "");
			kept = 0;
		} else if (p[0] == ' ') {
			sbuf_addf(out, "%s", kept ? "" : ".nf\n");
			kept = 1;
			man_escape(out, p, len);
			sbuf_addf(out, "\n");
		} else {
			sbuf_addf(out, "%s", kept ? ".fi\n" : "");
			kept = 0;
			man_escape(out, p, len);
			sbuf_addf(out, "\n");
		}
		p += len + (p[len] == '\n');
	}
	if (kept)
		sbuf_addf(out, ".fi\n");
}

static void man_option_row(void *ctx, const struct cli_option *r)
{
	struct sbuf *out = ctx;
	const char *meta = cli_option_metavar(r);

	if (r->flags & CLI_HIDDEN)
		return;
	sbuf_addf(out, ".TP\n\\fB");
	man_text(out, r->name);
	sbuf_addf(out, "\\fR");
	if (meta) {
		sbuf_addf(out, " \\fI");
		man_text(out, meta);
		sbuf_addf(out, "\\fR");
	}
	sbuf_addf(out, "\n");
	man_text(out, r->help ? r->help : "");
	sbuf_addf(out, "\n");
}

static void man_count_row(void *ctx, const struct cli_option *r)
{
	if (!(r->flags & CLI_HIDDEN))
		++*(int *)ctx;
}

static void man_options(const struct cli_verb *v, const char *title, const char *macro,
                        struct sbuf *out)
{
	int n = 0;

	cli_each_option(v->options, man_count_row, &n);
	if (!n)
		return;
	sbuf_addf(out, "%s \"", macro);
	man_text(out, title);
	sbuf_addf(out, "\"\n");
	cli_each_option(v->options, man_option_row, out);
}

static void man_header(struct sbuf *out, const char *page, const char *summary)
{
	char *upper = xstrdup(page);

	for (char *p = upper; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	sbuf_addf(
	    out, ".\\\" Generated by `gcratchet completion man DIR` from the verbs' declarations;\n"
	         ".\\\" edit harness/cmd_*.c, not this file.\n"
	         ".TH \"");
	man_text(out, upper);
	sbuf_addf(out, "\" 1 \"\" \"gcratchet %s\" \"gcratchet manual\"\n.SH NAME\n",
	          GCRATCHET_VERSION);
	man_text(out, page);
	sbuf_addf(out, " \\- ");
	man_text(out, summary);
	/* Left-aligned and never hyphenated: an option split at a line's end cannot be copied. */
	sbuf_addf(out, "\n.ad l\n.nh\n");
	free(upper);
}

/* Verb v's page: what `gcratchet v --help` says (cli_help), in the same order. */
static void man_verb(const struct cli_verb *v, struct sbuf *out)
{
	char *page = xasprintf("gcratchet-%s", v->name);

	man_header(out, page, v->summary);
	/* Each usage starts a line; the lines it wraps to are indented under it. */
	sbuf_addf(out, ".SH SYNOPSIS\n.in +4n\n");
	for (const struct cli_verb *s = v->subs ? v->subs : v; s->name; s++) {
		sbuf_addf(out, ".ti -4n\n\\fBgcratchet ");
		man_text(out, s->name);
		sbuf_addf(out, "\\fR");
		cli_synopsis_words(s, man_synopsis_word, out);
		sbuf_addf(out, "\n");
		if (!v->subs)
			break;
	}
	sbuf_addf(out, ".in -4n\n");
	if (v->description && *v->description) {
		sbuf_addf(out, ".SH DESCRIPTION\n");
		man_description(out, v->description);
	}
	man_options(v, "OPTIONS", ".SH", out);
	for (const struct cli_verb *s = v->subs; s && s->name; s++) {
		char *title = xasprintf("Options of %s", s->name);
		man_options(s, title, ".SS", out);
		free(title);
	}
	if (v->exit_status) {
		sbuf_addf(out, ".SH \"EXIT STATUS\"\n");
		man_text(out, v->exit_status);
		sbuf_addf(out, "\n");
	}
	sbuf_addf(out, ".SH \"SEE ALSO\"\n.BR gcratchet (1)\n");
	free(page);
}

/* gcratchet.1: every verb with its summary, as `gcratchet --help` lists them. */
static void man_index(struct sbuf *out)
{
	man_header(out, "gcratchet", "garbage-collector benchmarks and a regression ratchet");
	sbuf_addf(out, ".SH SYNOPSIS\n\\fBgcratchet\\fR \\fICOMMAND\\fR [\\fIoptions\\fR]\n"
	               ".br\n\\fBgcratchet\\fR \\fICOMMAND\\fR \\-\\-help\n"
	               ".br\n\\fBgcratchet\\fR \\-\\-version\n"
	               ".SH COMMANDS\n");
	for (const struct cli_verb *const *v = cli_verbs(); *v; v++) {
		sbuf_addf(out, ".TP\n.BR gcratchet\\-");
		man_text(out, (*v)->name);
		sbuf_addf(out, " (1)\n");
		man_text(out, (*v)->summary);
		sbuf_addf(out, "\n");
	}
	sbuf_addf(out, ".SH \"EXIT STATUS\"\n0 ok, 1 regression found, 2 could not run or could "
	               "not judge; each command's page says which it uses.\n");
}

/* Writes page to dir/name.1; -1 after printing why. */
static int man_write_page(const char *cmd, const char *dir, const char *name,
                          const struct sbuf *page)
{
	char *path = xasprintf("%s/%s.1", dir, name);
	struct err e = ERR_INIT;
	int rc = write_file_atomic(path, page->data, page->len, &e);

	if (rc != 0)
		cli_error(cmd, "%s", e.msg);
	free(path);
	return rc;
}

/* Writes gcratchet.1 and gcratchet-VERB.1 of every verb into dir (made if missing). */
static int man_write(const char *cmd, const char *dir)
{
	struct sbuf page;
	struct stat st;
	int rc = EXIT_UNJUDGED;

	sbuf_init(&page);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		cli_error(cmd, "%s: cannot make the folder: %s", dir, strerror(errno));
		goto out;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		cli_error(cmd, "%s: not a folder to write the man pages in", dir);
		goto out;
	}
	man_index(&page);
	if (man_write_page(cmd, dir, "gcratchet", &page) != 0)
		goto out;
	for (const struct cli_verb *const *v = cli_verbs(); *v; v++) {
		char *name = xasprintf("gcratchet-%s", (*v)->name);
		int failed;

		completion_cut(&page, 0);
		man_verb(*v, &page);
		failed = man_write_page(cmd, dir, name, &page) != 0;
		free(name);
		if (failed)
			goto out;
	}
	rc = EXIT_OK;
out:
	sbuf_release(&page);
	return rc;
}

static int completion_main(int argc, char **argv)
{
	const char *cmd = cmd_completion.name;
	struct strlist args = {0};
	struct sbuf out;
	int r, rc = EXIT_UNJUDGED, none = 0; /* completion has no option but --help */

	sbuf_init(&out);
	r = cli_parse(&cmd_completion, argc, argv, &none, &args);
	if (r != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	if (args.n == 1 && strcmp(args.items[0], "bash") == 0) {
		completion_bash(&out);
	} else if (args.n == 1 && strcmp(args.items[0], "synopsis") == 0) {
		for (const struct cli_verb *const *v = cli_verbs(); *v; v++)
			completion_synopsis(*v, &out);
	} else if (args.n == 2 && strcmp(args.items[0], "man") == 0) {
		rc = man_write(cmd, args.items[1]);
		goto out;
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
		               "expected bash, synopsis, options VERB or man DIR (see gcratchet "
		               "completion --help)");
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
    .summary = "bash completion, a verb's options, the usage synopsis and the man pages, from the "
               "option tables",
    .args = "bash|options|synopsis|man [VERB|DIR]",
    .description =
        "What the verbs' declarations say. bash prints a bash completion script (verbs, each\n"
        "verb's options and first words, the values an option takes when it is one of a few\n"
        "words, file names for the rest): gcratchet completion bash >/etc/bash_completion.d/\n"
        "gcratchet, or eval \"$(gcratchet completion bash)\" in ~/.bashrc. options VERB prints\n"
        "VERB's options one a line, \"--rounds=\" for one that takes a value. synopsis prints\n"
        "every verb's usage lines, the block README.md's Commands section shows (make\n"
        "readme-synopsis writes it there). man DIR writes the man pages into DIR (made if\n"
        "missing): gcratchet.1, the commands, and gcratchet-VERB.1 for each, what VERB --help\n"
        "says (make install puts them in PREFIX/share/man/man1).\n",
    .exit_status = "0 printed or written; 2 bad arguments, an unknown verb or a page that could "
                   "not be written.",
    .run = completion_main,
};
