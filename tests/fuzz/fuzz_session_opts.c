/*
 * fuzz_session_opts.c — the session options that measure, ab and baseline pin share, parsed
 * as those verbs parse them: cli_scan over a verb that includes session_options' rows (the
 * groups the verb accepts) hands each option to session_opts_parse, and cli_parse lands a
 * whole command line through the same rows. The input's first byte picks the verb; the rest, split on NUL
 * bytes, is argv[1..].
 *
 * Promises checked besides the sanitizers' (session_opts.h's invariants): session_opts_parse
 * returns 1, 0 or -1, and -1 with an ERR_INVALID message; whatever it accepted, every value
 * stays within its bound, so no later deadline or count can overflow.
 */
#include <math.h>
#include <stddef.h>

#include "cli.h"
#include "fuzz.h"
#include "session_opts.h"

#define FUZZ_OPTS_MAX_ARGS 256

static void fuzz_opts_check(const struct session_opts *o)
{
	FUZZ_ASSERT(o->rounds >= 1 && o->rounds <= SESSION_OPTS_ROUNDS_MAX, "rounds");
	FUZZ_ASSERT(o->warmup >= 0 && o->warmup <= SESSION_OPTS_WARMUP_MAX, "warmup");
	FUZZ_ASSERT(o->timeout_ms >= 0 && o->timeout_ms <= SESSION_OPTS_WAIT_MAX_S * INT64_C(1000),
	            "timeout");
	FUZZ_ASSERT(o->lock_timeout_s >= 0 && o->lock_timeout_s <= SESSION_OPTS_WAIT_MAX_S,
	            "lock timeout");
	FUZZ_ASSERT(o->idle_timeout_s >= 0 && o->idle_timeout_s <= SESSION_OPTS_WAIT_MAX_S,
	            "idle timeout");
	FUZZ_ASSERT(o->env_offset <= SESSION_OPTS_ENV_OFFSET_MAX, "env offset");
	FUZZ_ASSERT(o->idle_below == 0 || (o->idle_below > 0 && isfinite(o->idle_below)),
	            "idle below");
	FUZZ_ASSERT(memchr(o->size, '\0', sizeof o->size) && o->size[0] != '\0', "size");
}

struct fuzz_opts {
	struct session_opts o;
	const char *html;
	int strict;
};

static void fuzz_opts_each(void *ctx, const struct cli_option *row, const char *val)
{
	struct session_opts *o = ctx;
	struct err e = ERR_INIT;
	int r;

	if (!row)
		return;
	r = session_opts_parse(o, row->name, val, &e);
	FUZZ_ASSERT(r >= -1 && r <= 1, "session_opts_parse returned neither 1, 0 nor -1");
	FUZZ_ASSERT(r != -1 || (e.msg[0] != '\0' && e.code == ERR_INVALID),
	            "a refusal without an ERR_INVALID message");
	fuzz_opts_check(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char verb_name[] = "fuzz";
	char *text, *argv[FUZZ_OPTS_MAX_ARGS + 1];
	struct strlist positional = {0};
	struct fuzz_opts f;
	struct session_opts scan;
	int argc = 1, r;

	if (size == 0)
		return 0;
	session_opts_init(&f.o, (enum session_verb)(data[0] % 3));
	session_opts_init(&scan, (enum session_verb)(data[0] % 3));
	f.html = NULL;
	f.strict = 0;
	text = fuzz_text(data + 1, size - 1);
	argv[0] = verb_name;
	for (size_t at = 0; at < size - 1 && argc < FUZZ_OPTS_MAX_ARGS;
	     at += strlen(text + at) + 1) {
		argv[argc] = text + at;
		/* --help would print the help on every input; its path is cli_parse's own. */
		if (strcmp(argv[argc], "--help") != 0 && strcmp(argv[argc], "-h") != 0)
			argc++;
	}
	argv[argc] = NULL;
	fuzz_opts_check(&f.o);
	{
		const struct cli_option rows[] = {
		    {"--html", "FILE", CLI_STRING, offsetof(struct fuzz_opts, html), .help = NULL},
		    {"--strict", NULL, CLI_FLAG, offsetof(struct fuzz_opts, strict), .help = NULL},
		    {.name = "session",
		     .kind = CLI_INCLUDE,
		     .rows = session_options,
		     .off = offsetof(struct fuzz_opts, o),
		     .group = f.o.accept},
		    {0},
		};
		const struct cli_verb verb = {.name = "fuzz", .options = rows};

		cli_scan(&verb, argc, argv, fuzz_opts_each, &scan);
		r = cli_parse(&verb, argc, argv, &f, &positional);
		FUZZ_ASSERT(r == 0 || r == -1,
		            "cli_parse returned neither 0 nor -1 without --help");
		fuzz_opts_check(&f.o);
	}
	strlist_release(&positional);
	session_opts_release(&f.o);
	session_opts_release(&scan);
	free(text);
	return 0;
}
