/*
 * fuzz.h — what the libFuzzer harnesses share. Each tests/fuzz/fuzz_<target>.c defines
 * LLVMFuzzerTestOneInput over one parser; the Makefile builds every such file with clang's
 * -fsanitize=fuzzer against the core objects (build-fuzz/fuzz/fuzz_<target>), and
 * tests/fuzz/run.sh runs them on tests/fuzz/corpus/<target>/.
 *
 * A harness reports a broken promise (a round trip that differs, a success without its
 * fields) by printing what was wrong and calling abort(): libFuzzer then saves the input.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a NUL-terminated string, as the parsers take their text; newly allocated. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);

	if (size)
		memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

/* Prints "fuzz: <why>" and aborts, so libFuzzer keeps the input that broke a promise. */
#define FUZZ_ASSERT(cond, why)                                                                     \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz: %s:%d: %s (%s)\n", __FILE__, __LINE__, why, #cond); \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif /* FUZZ_H */
