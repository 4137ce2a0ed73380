/*
 * test_run.c — the stored names of run kinds, statuses and premises read back as written, and
 * the first line of a stored stderr tail.
 */
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "runner.h"
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

static void check_first_line(const char *tail, const char *want)
{
	char *got = run_stderr_first_line(tail);

	if (!want)
		CHECK(got == NULL);
	else
		CHECK_STR(got ? got : "(null)", want);
	free(got);
}

static void test_stderr_first_line(void)
{
	struct sbuf b;
	char *s;

	check_first_line(NULL, NULL);
	check_first_line("", NULL);
	check_first_line("\n \n\t\r\n", NULL);
	check_first_line("01_p: heap corrupt at 0x10\n", "01_p: heap corrupt at 0x10");
	/* The probe's own words come first; what a shell or a sanitizer adds follows. */
	check_first_line("\n  gcr: out of memory  \r\nAborted (core dumped)\n",
	                 "gcr: out of memory");
	check_first_line("no newline at the end", "no newline at the end");
	/* A tail cut from a longer stderr starts mid-line: its first whole line is taken. */
	sbuf_init(&b);
	while (b.len + 12 < RUNNER_STDERR_TAIL - 20)
		sbuf_addf(&b, "fragment....");
	sbuf_addf(&b, "\nwhole line\n");
	while (b.len < RUNNER_STDERR_TAIL)
		sbuf_addf(&b, "x");
	check_first_line(b.data, "whole line");
	/* A long line is cut, and says so. */
	s = xmalloc(2 * RUN_STDERR_LINE_MAX + 1);
	memset(s, 'y', 2 * RUN_STDERR_LINE_MAX);
	s[2 * RUN_STDERR_LINE_MAX] = '\0';
	{
		char *got = run_stderr_first_line(s);
		CHECK(got && strlen(got) == RUN_STDERR_LINE_MAX + 3);
		CHECK(got && strcmp(got + RUN_STDERR_LINE_MAX, "...") == 0);
		free(got);
	}
	free(s);
	sbuf_release(&b);
}

int main(void)
{
	test_names_round_trip();
	test_premise();
	test_stderr_first_line();
	return unit_done("test_run");
}
