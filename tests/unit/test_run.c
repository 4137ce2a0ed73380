/* test_run.c — the stored names of run kinds, statuses and premises read back as written. */
#include <stdlib.h>

#include "run.h"
#include "unit.h"
#include "util.h"

static void test_names_round_trip(void)
{
	for (int k = 0; k < RUN_KIND_COUNT; k++) {
		enum run_kind back;
		CHECK(run_kind_parse(run_kind_name((enum run_kind)k), &back) == 0);
		CHECK(back == (enum run_kind)k);
	}
	for (int s = 0; s < RUN_STATUS_COUNT; s++) {
		enum run_status back;
		CHECK(run_status_parse(run_status_name((enum run_status)s), &back) == 0);
		CHECK(back == (enum run_status)s);
	}
	{
		enum run_status st;
		enum run_kind k;
		/* Names are exact: no prefixes, no case folding, nothing unknown. */
		CHECK(run_status_parse("OK", &st) != 0);
		CHECK(run_status_parse("o", &st) != 0);
		CHECK(run_status_parse(NULL, &st) != 0);
		CHECK(run_kind_parse("valgrind_per", &k) != 0);
	}
	/* The heap limit's status: stored as one word, shown as two, never as a crash. */
	CHECK_STR(run_status_name(RUN_STATUS_HEAP_EXHAUSTED), "heap_exhausted");
	CHECK_STR(run_status_label(RUN_STATUS_HEAP_EXHAUSTED), "heap exhausted");
	CHECK_STR(run_status_label(RUN_STATUS_CRASHED), "crashed");
	CHECK(run_kind_is_valgrind(RUN_KIND_VALGRIND));
	CHECK(run_kind_is_valgrind(RUN_KIND_VALGRIND_PER_ITERATION));
	CHECK(!run_kind_is_valgrind(RUN_KIND_TIMED));
	CHECK(!run_kind_is_valgrind(RUN_KIND_PER_ITERATION));
}

static void test_premise(void)
{
	const char *text;
	char *s;

	CHECK(run_premise_join(RUN_PREMISE_NONE, "anything") == NULL);
	s = run_premise_join(RUN_PREMISE_NOT_MET, "0 minor collections");
	CHECK_STR(s, "not met: 0 minor collections");
	CHECK(run_premise_split(s, &text) == RUN_PREMISE_NOT_MET);
	CHECK_STR(text, "0 minor collections");
	free(s);
	s = run_premise_join(RUN_PREMISE_MET, "");
	CHECK_STR(s, "met");
	CHECK(run_premise_split(s, &text) == RUN_PREMISE_MET);
	CHECK_STR(text, "");
	free(s);
	CHECK(run_premise_split("n/a: no weak references", &text) == RUN_PREMISE_NA);
	CHECK_STR(text, "no weak references");
	CHECK(run_premise_split(NULL, &text) == RUN_PREMISE_NONE);
	/* "met" must not be read out of "metastable", nor "not met" out of garbage. */
	CHECK(run_premise_split("metastable", &text) == RUN_PREMISE_NA);
	CHECK_STR(text, "metastable");
}

int main(void)
{
	test_names_round_trip();
	test_premise();
	return unit_done("test_run");
}
