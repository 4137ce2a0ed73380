/*
 * fuzz_session_opts.c — the session options that measure, ab and baseline pin share, parsed
 * as those verbs parse them: cli_next over the verb's table (session_opts_table) hands each
 * option to session_opts_parse. The input's first byte picks the verb; the rest, split on NUL
 * bytes, is argv[1..].
 *
 * Promises checked besides the sanitizers' (session_opts.h's invariants): session_opts_parse
 * returns 1, 0 or -1, and -1 with an ERR_INVALID message; whatever it accepted, every value
 * stays within its bound, so no later deadline or count can overflow.
 */
#include <math.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char verb_name[] = "fuzz";
	static const struct cli_opt own[] = {{"--html", 1}, {"--strict", 0}, {NULL, 0}};
	char *text, *argv[FUZZ_OPTS_MAX_ARGS + 1];
	struct strlist positional = {0};
	struct session_opts o;
	struct cli_opt *table;
	const char *opt, *val;
	struct cli_iter it;
	int argc = 1;

	if (size == 0)
		return 0;
	session_opts_init(&o, (enum session_verb)(data[0] % 3));
	text = fuzz_text(data + 1, size - 1);
	argv[0] = verb_name;
	for (size_t at = 0; at < size - 1 && argc < FUZZ_OPTS_MAX_ARGS; at += strlen(text + at) + 1)
		argv[argc++] = text + at;
	argv[argc] = NULL;
	table = session_opts_table(&o, own);
	fuzz_opts_check(&o);

	cli_iter_init(&it, "fuzz", argc, argv, table);
	while (cli_next(&it, &opt, &val, &positional) == 1) {
		struct err e = ERR_INIT;
		int r;

		if (strcmp(opt, "--help") == 0)
			continue;
		r = session_opts_parse(&o, opt, val, &e);
		FUZZ_ASSERT(r >= -1 && r <= 1, "session_opts_parse returned neither 1, 0 nor -1");
		FUZZ_ASSERT(r != -1 || (e.msg[0] != '\0' && e.code == ERR_INVALID),
		            "a refusal without an ERR_INVALID message");
		fuzz_opts_check(&o);
	}
	strlist_release(&positional);
	free(table);
	session_opts_release(&o);
	free(text);
	return 0;
}
