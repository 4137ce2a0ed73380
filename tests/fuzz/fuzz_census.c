/*
 * fuzz_census.c — census_parse over any bytes. The census is the one input that comes from
 * outside the project: any runtime may write it on GCR_CENSUS_FD, so a malformed object must
 * give a message, never a crash, a leak or undefined behaviour.
 *
 * Promises checked besides the sanitizers': a failure says why; a success has the required
 * strings, a well-formed checksum, and counters that are whole numbers in [0, 2^53].
 */
#include <math.h>

#include "census.h"
#include "metrics.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct census_report r;
	struct err e;

	e.msg[0] = '\0';
	if (census_parse(text, &r, &e) != 0) {
		FUZZ_ASSERT(e.msg[0] != '\0', "census_parse failed without a message");
		FUZZ_ASSERT(r.probe == NULL && r.metrics.n == 0, "a failed parse left a report");
	} else {
		FUZZ_ASSERT(r.probe && r.collector && r.checksum, "a required field is NULL");
		FUZZ_ASSERT(census_checksum_valid(r.checksum), "a malformed checksum passed");
		FUZZ_ASSERT(r.premise_state >= -1 && r.premise_state <= 1, "premise state");
		for (size_t i = 0; i < r.metrics.n; i++) {
			double v = r.metrics.items[i].value;
			const struct metric_info *m = metrics_lookup(r.metrics.items[i].name);

			/* A share (MMU) is a ratio from 0 to 1; everything else the census counts. */
			if (m && m->unit == METRIC_UNIT_RATIO)
				FUZZ_ASSERT(v >= 0 && v <= 1, "a ratio is not from 0 to 1");
			else
				FUZZ_ASSERT(v >= 0 && v == floor(v) && v <= 9007199254740992.0,
				            "a counter is not a whole number in [0, 2^53]");
		}
		census_report_release(&r);
	}
	free(text);
	return 0;
}
