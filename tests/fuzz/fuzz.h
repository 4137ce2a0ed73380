/*
 * fuzz.h — what the libFuzzer harnesses share. Each tests/fuzz/fuzz_<target>.c defines
 * LLVMFuzzerTestOneInput over one parser; the Makefile builds every such file with clang's
 * -fsanitize=fuzzer against the core objects (build-fuzz/fuzz/fuzz_<target>), and
 * tests/fuzz/run.sh runs them on tests/fuzz/corpus/<target>/.
 *
 * A harness reports a broken promise (a round trip that differs, a success without its
 * fields) with FUZZ_FAIL or FUZZ_ASSERT below.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <sanitizer/common_interface_defs.h>
#include <stdarg.h>
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

/*
 * Reports a broken promise and aborts, so that libFuzzer keeps the input. The message goes
 * out as the sanitizers' line "SUMMARY: fuzz: <file>:<line>: <what>", which reaches the log
 * even when libFuzzer has closed stderr (-close_fd_mask), and by whose place run.sh tells a
 * known finding from a new one.
 */
#define FUZZ_FAIL(...) fuzz_fail(__FILE__, __LINE__, __VA_ARGS__)
#define FUZZ_ASSERT(cond, why)                            \
	do {                                              \
		if (!(cond))                              \
			FUZZ_FAIL("%s (%s)", why, #cond); \
	} while (0)

__attribute__((format(printf, 3, 4), noreturn)) static inline void
fuzz_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[512];
	int n = snprintf(msg, sizeof msg, "SUMMARY: fuzz: %s:%d: ", file, line);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
	va_end(ap);
	__sanitizer_report_error_summary(msg);
	abort();
}

#endif /* FUZZ_H */
