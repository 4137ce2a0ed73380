/*
 * fuzz_json.c — json_parse, the one strict reader every JSON input goes through, over any
 * bytes. The input is handed over exactly as libFuzzer holds it, without a NUL after it, so
 * a read past `len` is a heap overflow AddressSanitizer sees.
 *
 * Promises checked besides the sanitizers' (json.h's invariants): a refusal says why and
 * returns no tree; an accepted tree holds no object with two equal keys and no number that
 * is not finite; json_int gives back exactly the double it read, or refuses; and the tree,
 * printed by cJSON, parses again and prints the same, so what the harness writes it reads.
 */
#include <math.h>

#include "fuzz.h"
#include "json.h"

static void fuzz_json_walk(const cJSON *v, int depth)
{
	FUZZ_ASSERT(depth < 100000, "a tree deeper than its text could make it");
	if (cJSON_IsNumber(v)) {
		int64_t n;
		struct err e = ERR_INIT;

		FUZZ_ASSERT(isfinite(v->valuedouble), "an accepted number is not finite");
		if (json_int(v, -JSON_INT_MAX, JSON_INT_MAX, "fuzz", "x", &n, &e) == 0)
			FUZZ_ASSERT((double)n == v->valuedouble, "json_int changed the number");
		else
			FUZZ_ASSERT(e.msg[0] != '\0', "json_int refused without a message");
	}
	for (const cJSON *c = v->child; c; c = c->next) {
		if (cJSON_IsObject(v))
			for (const cJSON *d = c->next; d; d = d->next)
				FUZZ_ASSERT(strcmp(c->string, d->string) != 0,
				            "an accepted object holds two equal keys");
		fuzz_json_walk(c, depth + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *root = NULL, *again = NULL;
	struct err e = ERR_INIT;
	char *first, *second;

	if (json_parse((const char *)data, size, "fuzz", &root, &e) != 0) {
		FUZZ_ASSERT(root == NULL, "a refusal returned a tree");
		FUZZ_ASSERT(e.msg[0] != '\0', "a refusal without a message");
		return 0;
	}
	FUZZ_ASSERT(root != NULL, "an accepted text without a tree");
	fuzz_json_walk(root, 0);
	first = cJSON_PrintUnformatted(root);
	FUZZ_ASSERT(first != NULL, "cJSON could not print an accepted tree");
	if (json_parse(first, strlen(first), "fuzz (printed)", &again, &e) != 0)
		FUZZ_FAIL("the printed tree does not parse: %s", e.msg);
	second = cJSON_PrintUnformatted(again);
	FUZZ_ASSERT(second && strcmp(first, second) == 0, "print -> parse -> print differs");
	cJSON_free(second);
	cJSON_free(first);
	cJSON_Delete(again);
	cJSON_Delete(root);
	return 0;
}
