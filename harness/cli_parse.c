/*
 * cli_parse.c — one parser for every verb's declaration (cli.h, "A verb is one declaration"):
 * landing values where the rows say, bounds and choices, "did you mean", and the --help text,
 * the synopsis and the completion's words, all made from the same rows.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Width of generated text: usage lines and option help lines. */
#define CLI_WIDTH    96
/* Where an option's help starts: "  --name METAVAR" padded to this column. */
#define CLI_HELP_COL 22

const char *cli_option_metavar(const struct cli_option *r)
{
	return r->metavar ? r->metavar : r->kind == CLI_ENUM ? r->values : NULL;
}

const struct cli_verb *cli_find_sub(const struct cli_verb *v, const char *word)
{
	for (const struct cli_verb *s = v->subs; s && s->name; s++) {
		const char *sp = strrchr(s->name, ' ');
		if (strcmp(sp ? sp + 1 : s->name, word) == 0)
			return s;
	}
	return NULL;
}

const struct cli_option *cli_find_option(const struct cli_option *rows, const char *opt,
                                         size_t *off)
{
	for (const struct cli_option *r = rows; r && r->name; r++) {
		if (r->kind == CLI_INCLUDE) {
			size_t inner = 0;
			const struct cli_option *f = cli_find_option(r->rows, opt, &inner);
			if (f && (f->group & r->group)) {
				*off += r->off + inner;
				return f;
			}
		} else if (strcmp(r->name, opt) == 0) {
			return r;
		}
	}
	return NULL;
}

/* As cli_each_option, with the names shown so far in seen. */
static void cli_each_seen(const struct cli_option *rows, const struct cli_option *via,
                          struct strlist *seen,
                          void (*each)(void *ctx, const struct cli_option *row), void *ctx)
{
	for (const struct cli_option *r = rows; r && r->name; r++) {
		if (r->kind == CLI_INCLUDE) {
			cli_each_seen(r->rows, r, seen, each, ctx);
			continue;
		}
		if (via && !(r->group & via->group))
			continue;
		if (strlist_contains(seen, r->name))
			continue;
		strlist_push(seen, r->name);
		if (via && (via->flags & CLI_OPTIONAL) && (r->flags & CLI_REQUIRED)) {
			struct cli_option optional = *r;
			optional.flags &= ~(unsigned)CLI_REQUIRED;
			each(ctx, &optional);
		} else {
			each(ctx, r);
		}
	}
}

void cli_each_option(const struct cli_option *rows,
                     void (*each)(void *ctx, const struct cli_option *row), void *ctx)
{
	struct strlist seen = {0};

	cli_each_seen(rows, NULL, &seen, each, ctx);
	strlist_release(&seen);
}

/* "a|b|c" as "a, b or c". */
static void cli_choices_prose(const char *values, struct sbuf *out)
{
	const char *p = values;

	while (*p) {
		size_t len = strcspn(p, "|");
		const char *next = p[len] ? p + len + 1 : p + len;
		sbuf_addf(out, "%.*s%s", (int)len, p,
		          !*next              ? ""
		          : strchr(next, '|') ? ", "
		                              : " or ");
		p = next;
	}
}

static int cli_is_choice(const char *values, const char *val)
{
	size_t n = strlen(val);

	for (const char *p = values; *p;) {
		size_t len = strcspn(p, "|");
		if (len == n && strncmp(p, val, n) == 0)
			return 1;
		p += len + (p[len] != '\0');
	}
	return 0;
}

/* An integer option's value, whole, into [min, max] (max 0: no bound above). */
int cli_count(const struct cli_option *row, const char *val, uint64_t *out, struct err *e)
{
	const char *unit = row->values ? row->values : "";
	uint64_t v;

	if (row->max == 0) {
		if (parse_u64(val, &v) != 0 || v < row->min)
			return err_setc(e, ERR_INVALID, "%s must be a %s integer, got \"%s\"",
			                row->name, row->min ? "positive" : "non-negative", val);
	} else if (!is_all_digits(val)) {
		return err_setc(e, ERR_INVALID,
		                "%s must be an integer from %" PRIu64 " to %" PRIu64
		                "%s, got \"%s\"",
		                row->name, row->min, row->max, unit, val);
	} else if (parse_u64(val, &v) != 0 || v < row->min || v > row->max) {
		return err_setc(e, ERR_INVALID, "%s must be %" PRIu64 " to %" PRIu64 "%s, got %s",
		                row->name, row->min, row->max, unit, val);
	}
	*out = v;
	return 0;
}

int cli_session_id(const char *opt, const char *val, const char *word, int64_t *id, struct err *e)
{
	uint64_t v;

	if (word && strcmp(val, word) == 0) {
		*id = CLI_SESSION_WORD;
		return 0;
	}
	/* Above INT64_MAX the cast would wrap: 2^64 - 1 used to read as "no session -1". */
	if (parse_u64(val, &v) != 0 || v == 0 || v > (uint64_t)INT64_MAX)
		return err_setc(e, ERR_INVALID,
		                "%s must be a session id from 1 to %" PRId64 "%s%s%s, got \"%s\"",
		                opt, INT64_MAX, word ? " or \"" : "", word ? word : "",
		                word ? "\"" : "", val);
	*id = (int64_t)v;
	return 0;
}

int cli_apply(const struct cli_option *row, void *base, const char *val, struct err *e)
{
	char *field = (char *)base + row->off;
	uint64_t v = 0;

	if (cli_option_metavar(row) && !val)
		return err_setc(e, ERR_INVALID, "option %s needs a value", row->name);
	switch (row->kind) {
	case CLI_FLAG:
		*(int *)field = row->max ? (int)row->max : 1;
		return 0;
	case CLI_STRING:
		*(const char **)field = val;
		return 0;
	case CLI_OWNED:
		free(*(char **)field);
		*(char **)field = xstrdup(val);
		return 0;
	case CLI_INT:
	case CLI_U64:
		if (cli_count(row, val, &v, e) != 0)
			return -1;
		if (row->kind == CLI_INT && v > INT32_MAX)
			return err_setc(e, ERR_INVALID, "%s must be at most %d, got %s", row->name,
			                INT32_MAX, val);
		if (row->kind == CLI_INT)
			*(int *)field = (int)v;
		else
			*(uint64_t *)field = v;
		return 0;
	case CLI_PCT: {
		double d;
		if (parse_pos_double(val, &d) != 0 || (row->max && d > (double)row->max)) {
			if (row->max)
				return err_setc(e, ERR_INVALID,
				                "%s must be %s above 0 and at most %" PRIu64
				                ", got \"%s\"",
				                row->name, row->values ? row->values : "a number",
				                row->max, val);
			return err_setc(e, ERR_INVALID, "%s must be %s above 0, got \"%s\"",
			                row->name, row->values ? row->values : "a number", val);
		}
		*(double *)field = d;
		return 0;
	}
	case CLI_ENUM:
		if (!cli_is_choice(row->values, val)) {
			struct sbuf prose;
			sbuf_init(&prose);
			cli_choices_prose(row->values, &prose);
			err_setc(e, ERR_INVALID, "%s must be %s, got \"%s\"", row->name, prose.data,
			         val);
			sbuf_release(&prose);
			return -1;
		}
		*(const char **)field = val;
		return 0;
	case CLI_SESSION:
		return cli_session_id(row->name, val, row->values, (int64_t *)field, e);
	case CLI_LIST:
		if (row->flags & CLI_COMMAS)
			strlist_split((struct strlist *)field, val);
		else
			strlist_push((struct strlist *)field, val);
		return 0;
	case CLI_CALL:
		return row->call(field, row, val, e);
	case CLI_INCLUDE:
		break;
	}
	return err_setc(e, ERR_INVALID, "option %s cannot be set", row->name);
}

/* Collects every name a table shows (hidden ones too), for "did you mean". */
static void cli_name_row(void *ctx, const struct cli_option *row)
{
	strlist_push(ctx, row->name);
}

/* The first word of a verb's name: what its messages are prefixed with. */
static const char *cli_msg_name(const struct cli_verb *v, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s", (int)strcspn(v->name, " "), v->name);
	return buf;
}

/* The walk under cli_parse and cli_scan: base NULL lands nothing. */
static int cli_walk(const struct cli_verb *v, int argc, char **argv, void *base,
                    struct strlist *positional,
                    void (*each)(void *ctx, const struct cli_option *row, const char *val),
                    void *ctx)
{
	char cmdbuf[64];
	const char *cmd = cli_msg_name(v, cmdbuf, sizeof cmdbuf);

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq, *val = NULL;
		const struct cli_option *row;
		struct err e = ERR_INIT;
		size_t len, off = 0;
		char *typed;

		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			if (!base)
				continue;
			cli_usage(v, 0);
			return 1;
		}
		if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
			if (each) {
				each(ctx, NULL, arg);
				continue;
			}
			if (!positional) {
				cli_error(cmd,
				          "unexpected argument \"%s\" (see gcratchet %s --help)",
				          arg, v->name);
				return -1;
			}
			strlist_push(positional, arg);
			continue;
		}
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		typed = xasprintf("%.*s", (int)len, arg);
		row = cli_find_option(v->options, typed, &off);
		if (!row) {
			struct strlist names = {0};
			const char *close;
			cli_each_option(v->options, cli_name_row, &names);
			close = strlist_near(typed, &names);
			if (close)
				cli_error(
				    cmd,
				    "unknown option \"%s\" (did you mean %s? see gcratchet %s "
				    "--help)",
				    typed, close, v->name);
			else
				cli_error(cmd, "unknown option \"%s\" (see gcratchet %s --help)",
				          typed, v->name);
			strlist_release(&names);
			free(typed);
			return -1;
		}
		free(typed);
		if (!cli_option_metavar(row) && eq) {
			cli_error(cmd, "option %s takes no value", row->name);
			return -1;
		}
		if (cli_option_metavar(row)) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				cli_error(cmd, "option %s needs a value", row->name);
				return -1;
			}
		}
		if (each)
			each(ctx, row, val);
		if (base && cli_apply(row, (char *)base + off, val, &e) != 0) {
			cli_error(cmd, "%s", e.msg);
			return -1;
		}
	}
	return 0;
}

int cli_parse(const struct cli_verb *v, int argc, char **argv, void *base,
              struct strlist *positional)
{
	return cli_walk(v, argc, argv, base, positional, NULL, NULL);
}

int cli_scan(const struct cli_verb *v, int argc, char **argv,
             void (*each)(void *ctx, const struct cli_option *row, const char *val), void *ctx)
{
	return cli_walk(v, argc, argv, NULL, NULL, each, ctx) < 0 ? -1 : 0;
}

/* ---- Help, made from the declaration --------------------------------------------------- */

/* Appends text's words, wrapped at CLI_WIDTH: the first at column col, later lines indented. */
static void cli_wrap(struct sbuf *out, const char *text, size_t col, size_t indent)
{
	int first = 1;

	for (const char *p = text + strspn(text, " \n"); *p; p += strspn(p, " \n")) {
		size_t w = strcspn(p, " \n");
		if (!first && col + 1 + w > CLI_WIDTH) {
			sbuf_addf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!first) {
			sbuf_addf(out, " ");
			col++;
		}
		sbuf_addf(out, "%.*s", (int)w, p);
		col += w;
		p += w;
		first = 0;
	}
	sbuf_addf(out, "\n");
}

/* "--rounds N", "--format table|md|json|junit", "--strict". */
static void cli_option_words(const struct cli_option *r, struct sbuf *out)
{
	sbuf_addf(out, "%s", r->name);
	if (cli_option_metavar(r))
		sbuf_addf(out, " %s", cli_option_metavar(r));
}

struct cli_synopsis_ctx {
	struct sbuf *out;
	size_t col, indent;
};

static void cli_synopsis_word(struct cli_synopsis_ctx *s, const char *word)
{
	size_t w = strlen(word);

	if (s->col + 1 + w > CLI_WIDTH && s->col > s->indent) {
		sbuf_addf(s->out, "\n%*s", (int)s->indent, "");
		s->col = s->indent;
	} else {
		sbuf_addf(s->out, " ");
		s->col++;
	}
	sbuf_addf(s->out, "%s", word);
	s->col += w;
}

struct cli_words_ctx {
	void (*each)(void *ctx, const char *word);
	void *ctx;
};

static void cli_synopsis_row(void *ctx, const struct cli_option *r)
{
	struct cli_words_ctx *s = ctx;
	struct sbuf w;

	if (r->flags & (CLI_HIDDEN | CLI_NO_SYNOPSIS))
		return;
	sbuf_init(&w);
	if (!(r->flags & CLI_REQUIRED))
		sbuf_addf(&w, "[");
	cli_option_words(r, &w);
	if (!(r->flags & CLI_REQUIRED))
		sbuf_addf(&w, "]");
	if (r->flags & CLI_REPEAT)
		sbuf_addf(&w, "...");
	s->each(s->ctx, w.data);
	sbuf_release(&w);
}

void cli_synopsis_words(const struct cli_verb *v, void (*each)(void *ctx, const char *word),
                        void *ctx)
{
	struct cli_words_ctx s = {each, ctx};

	for (const char *p = v->args ? v->args : ""; *p;) {
		size_t len = strcspn(p, " ");
		char *word = xasprintf("%.*s", (int)len, p);
		each(ctx, word);
		free(word);
		p += len + strspn(p + len, " ");
	}
	cli_each_option(v->options, cli_synopsis_row, &s);
}

static void cli_synopsis_add(void *ctx, const char *word)
{
	cli_synopsis_word(ctx, word);
}

/* One verb's usage line(s), starting with `lead` ("usage: " or its width in spaces). */
static void cli_synopsis_one(const struct cli_verb *v, const char *lead, struct sbuf *out)
{
	struct cli_synopsis_ctx s = {out, 0, 0};

	sbuf_addf(out, "%sgcratchet %s", lead, v->name);
	s.col = strlen(lead) + strlen("gcratchet ") + strlen(v->name);
	s.indent = s.col + 1;
	cli_synopsis_words(v, cli_synopsis_add, &s);
	sbuf_addf(out, "\n");
}

void cli_synopsis(const struct cli_verb *v, struct sbuf *out)
{
	if (!v->subs) {
		cli_synopsis_one(v, "usage: ", out);
		return;
	}
	for (const struct cli_verb *s = v->subs; s->name; s++)
		cli_synopsis_one(s, s == v->subs ? "usage: " : "       ", out);
}

static void cli_help_row(void *ctx, const struct cli_option *r)
{
	struct sbuf *out = ctx, w;

	if (r->flags & CLI_HIDDEN)
		return;
	sbuf_init(&w);
	cli_option_words(r, &w);
	sbuf_addf(out, "  %s", w.data);
	/* Two spaces at least between the option and its help, else the help on a line below. */
	if (w.len + 2 + 2 > CLI_HELP_COL) {
		sbuf_addf(out, "\n%*s", CLI_HELP_COL, "");
	} else {
		sbuf_addf(out, "%*s", (int)(CLI_HELP_COL - 2 - w.len), "");
	}
	cli_wrap(out, r->help ? r->help : "", CLI_HELP_COL, CLI_HELP_COL);
	sbuf_release(&w);
}

/* 1 when a table shows any option. */
static void cli_count_row(void *ctx, const struct cli_option *r)
{
	if (!(r->flags & CLI_HIDDEN))
		++*(int *)ctx;
}

static void cli_help_options(const struct cli_verb *v, const char *title, struct sbuf *out)
{
	int n = 0;

	cli_each_option(v->options, cli_count_row, &n);
	if (!n)
		return;
	sbuf_addf(out, "\n%s\n", title);
	cli_each_option(v->options, cli_help_row, out);
}

void cli_help(const struct cli_verb *v, struct sbuf *out)
{
	const struct cli_verb *top = v->parent ? v->parent : v;

	cli_synopsis(v, out);
	if (v->description && *v->description)
		sbuf_addf(out, "\n%s%s", v->description,
		          v->description[strlen(v->description) - 1] == '\n' ? "" : "\n");
	cli_help_options(v, "Options:", out);
	for (const struct cli_verb *s = v->subs; s && s->name; s++) {
		char *title = xasprintf("Options of %s:", s->name);
		cli_help_options(s, title, out);
		free(title);
	}
	if (!top->exit_status)
		return;
	sbuf_addf(out, "\nExit status: ");
	cli_wrap(out, top->exit_status, strlen("Exit status: "), 0);
}

int cli_usage(const struct cli_verb *v, int to_stderr)
{
	struct sbuf out;

	sbuf_init(&out);
	cli_help(v, &out);
	fputs(out.data, to_stderr ? stderr : stdout);
	sbuf_release(&out);
	return to_stderr ? EXIT_UNJUDGED : EXIT_OK;
}
