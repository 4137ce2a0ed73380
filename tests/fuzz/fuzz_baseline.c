/*
 * fuzz_baseline.c — baseline_parse over any bytes, and the round trip that `baseline pin` and
 * `baseline update` rely on: a profile that parses, written by baseline_serialize, must parse
 * again and be written byte for byte the same. Otherwise an update that changes nothing
 * would still rewrite the committed file, or drift it a little on every pass.
 *
 * The cells of a parsed profile are also judged against their own rules, as `check` does with
 * every cell it loads, so the band arithmetic sees hostile numbers too.
 */
#include "baseline.h"
#include "fuzz.h"

/* Where the first serialization differs from the second, for the report before abort(). */
static void fuzz_baseline_show_diff(const char *a, const char *b)
{
	size_t i = 0, line = 1;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '\n')
			line++;
		i++;
	}
	fprintf(stderr,
	        "fuzz: round trip differs at byte %zu (line %zu):\n  first:  %.80s\n"
	        "  second: %.80s\n",
	        i, line, a + i, b + i);
}

static void fuzz_baseline_judge_cells(const struct baseline *b)
{
	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *c = &b->cells[i];
		const struct baseline_rule *r = baseline_rule_for_cell(b, c->probe, c->metric);
		struct baseline_judgement j;

		FUZZ_ASSERT(r != NULL, "a pinned cell has no rule");
		baseline_judge(r, c->median, c->max, &j);
		baseline_judge(r, c->median, c->min, &j);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *first, *second;
	struct baseline b, again;
	struct err e;

	e.msg[0] = '\0';
	if (baseline_parse(text, "fuzz.json", &b, &e) != 0) {
		FUZZ_ASSERT(e.msg[0] != '\0', "baseline_parse failed without a message");
		free(text);
		return 0;
	}
	fuzz_baseline_judge_cells(&b);
	first = baseline_serialize(&b);
	if (baseline_parse(first, "fuzz.json (serialized)", &again, &e) != 0)
		FUZZ_FAIL("the serialized profile does not parse: %s", e.msg);
	second = baseline_serialize(&again);
	if (strcmp(first, second) != 0) {
		fuzz_baseline_show_diff(first, second);
		FUZZ_FAIL("serialize -> parse -> serialize is not byte-identical (stderr: where)");
	}
	free(second);
	free(first);
	baseline_release(&again);
	baseline_release(&b);
	free(text);
	return 0;
}
