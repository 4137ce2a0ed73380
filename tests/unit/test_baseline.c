/* Band arithmetic and the baseline parser, on known answers and hand-broken files. */
#include <math.h>
#include <stdlib.h>

#include "baseline.h"
#include "unit.h"

static const char good[] =
    "{\n"
    "  \"format\": \"gcratchet-baseline\", \"version\": 1, \"profile\": \"shared_ci\",\n"
    "  \"collector\": {\"name\": \"marksweep\", \"version\": \"1.0\", \"git_commit\": \"abc\"},\n"
    "  \"host\": {\"fingerprint\": \"00ff\", \"hostname\": \"h\"},\n"
    "  \"pinned_at\": \"2026-11-30T00:00:00Z\", \"session\": 3, \"size\": \"ci\",\n"
    "  \"meters\": [\"rusage\", \"census\"], \"repeats\": 3,\n"
    "  \"rules\": {\n"
    "    \"census.alloc_bytes\": {\"gated\": true, \"direction\": \"increase\", \"band_pct\": 0, "
    "\"band_abs\": 0},\n"
    "    \"rss.peak_bytes\": {\"gated\": true, \"direction\": \"increase\", \"band_pct\": 20, "
    "\"band_abs\": 4194304}\n"
    "  },\n"
    "  \"probes\": {\"01_nursery_churn\": {\"checksum\": \"0x0123456789abcdef\"}},\n"
    "  \"cells\": [\n"
    "    {\"probe\": \"01_nursery_churn\", \"metric\": \"census.alloc_bytes\", \"median\": 1000, "
    "\"min\": 1000, \"max\": 1000, \"n\": 3},\n"
    "    {\"probe\": \"01_nursery_churn\", \"metric\": \"rss.peak_bytes\", \"median\": 10485760, "
    "\"min\": 10000000, \"max\": 11000000, \"n\": 3}\n"
    "  ]\n"
    "}\n";

/* Replaces the first occurrence of `from` in the good file by `to`, and parses the result. */
static int parse_edited(const char *from, const char *to, struct err *e)
{
	const char *at = strstr(good, from);
	char *text;
	struct baseline b;
	int rc;

	if (!at)
		return 99;
	text = malloc(sizeof good + strlen(to));
	memcpy(text, good, (size_t)(at - good));
	strcpy(text + (at - good), to);
	strcat(text, at + strlen(from));
	rc = baseline_parse(text, "t.json", &b, e);
	if (rc == 0)
		baseline_release(&b);
	free(text);
	return rc;
}

static void test_bands(void)
{
	struct baseline_rule inc = {(char *)"rss.peak_bytes", 1, BASELINE_INCREASE, 20, 4194304};
	struct baseline_rule exact = {(char *)"census.alloc_bytes", 1, BASELINE_INCREASE, 0, 0};
	struct baseline_rule dec = {(char *)"time.wall_ns", 1, BASELINE_DECREASE, 10, 0};
	struct baseline_rule either = {(char *)"valgrind.ir", 1, BASELINE_EITHER, 1, 0};
	struct baseline_rule info = {(char *)"time.wall_ns", 0, BASELINE_INCREASE, 10, 0};
	struct baseline_judgement j;

	/* allowance = max(pct of base, abs) */
	CHECK_NEAR(baseline_allowance(&inc, 100e6), 20e6, 1e-6);
	CHECK_NEAR(baseline_allowance(&inc, 1e6), 4194304, 0);
	CHECK_NEAR(baseline_allowance(&inc, -100e6), 20e6, 1e-6);

	baseline_judge(&inc, 100e6, 119e6, &j);
	CHECK(j.verdict == BASELINE_OK);
	CHECK_NEAR(j.used, 0.95, 1e-12);
	CHECK_NEAR(j.delta_pct, 19, 1e-9);
	baseline_judge(&inc, 100e6, 120e6, &j);
	CHECK(j.verdict == BASELINE_OK); /* the edge itself is allowed */
	baseline_judge(&inc, 100e6, 121e6, &j);
	CHECK(j.verdict == BASELINE_REGRESSED);
	baseline_judge(&inc, 100e6, 70e6, &j);
	CHECK(j.verdict == BASELINE_IMPROVED);
	CHECK(j.used < 0);

	/* A zero band: one byte more regresses, and the share used is infinite. */
	baseline_judge(&exact, 1000, 1001, &j);
	CHECK(j.verdict == BASELINE_REGRESSED);
	CHECK(isinf(j.used) && j.used > 0);
	baseline_judge(&exact, 1000, 1000, &j);
	CHECK(j.verdict == BASELINE_OK && j.used == 0);
	baseline_judge(&exact, 1000, 999, &j);
	CHECK(j.verdict == BASELINE_IMPROVED);

	/* Direction decrease: a drop is the regression. */
	baseline_judge(&dec, 100, 85, &j);
	CHECK(j.verdict == BASELINE_REGRESSED);
	baseline_judge(&dec, 100, 150, &j);
	CHECK(j.verdict == BASELINE_IMPROVED);

	/* Either: both ways regress, nothing is an improvement. */
	baseline_judge(&either, 1000, 1011, &j);
	CHECK(j.verdict == BASELINE_REGRESSED);
	baseline_judge(&either, 1000, 989, &j);
	CHECK(j.verdict == BASELINE_REGRESSED);
	baseline_judge(&either, 1000, 1009, &j);
	CHECK(j.verdict == BASELINE_OK);

	/* Not gated: shown, never decides. */
	baseline_judge(&info, 100, 1000, &j);
	CHECK(j.verdict == BASELINE_INFO);

	/* Liveness: a counter that drops to zero went inert, even though "lower is better". */
	{
		struct baseline_rule promoted = {(char *)"census.promoted_objects", 1,
		                                 BASELINE_INCREASE, 0, 0};
		baseline_judge(&promoted, 5000, 0, &j);
		CHECK(j.verdict == BASELINE_REGRESSED && j.went_inert);
		baseline_judge(&promoted, 0, 0, &j);
		CHECK(j.verdict == BASELINE_OK && !j.went_inert);
	}

	/* delta_pct when the baseline is zero */
	baseline_judge(&exact, 0, 5, &j);
	CHECK(isinf(j.delta_pct));
}

static void test_parser(void)
{
	struct baseline b, again;
	struct err e;
	char *text;

	CHECK(baseline_parse(good, "t.json", &b, &e) == 0);
	CHECK(b.ncells == 2 && b.nrules == 2 && b.nprobes == 1);
	CHECK_STR(b.collector, "marksweep");
	CHECK(b.session == 3 && b.repeats == 3);
	CHECK(baseline_rule_for(&b, "rss.peak_bytes")->band_abs == 4194304);
	CHECK_STR(baseline_probe_checksum(&b, "01_nursery_churn"), "0x0123456789abcdef");

	/* Serialise and parse again: the same baseline. */
	text = baseline_serialize(&b);
	CHECK(baseline_parse(text, "again.json", &again, &e) == 0);
	CHECK(again.ncells == 2 && again.cells[1].median == 10485760 && again.cells[1].n == 3);
	CHECK_STR(again.rules[0].metric, "census.alloc_bytes");
	free(text);
	baseline_release(&again);
	baseline_release(&b);

	/* Syntax error: file:line:column. */
	CHECK(parse_edited("\"size\": \"ci\",", "\"size\": \"ci\" \"x\",", &e) != 0);
	CHECK(strstr(e.msg, "t.json:5:") != NULL);

	CHECK(parse_edited("\"band_pct\": 20", "\"band_pct\": -5", &e) != 0);
	CHECK(strstr(e.msg, "rules[\"rss.peak_bytes\"].band_pct") && strstr(e.msg, ">= 0"));

	CHECK(parse_edited("\"census.alloc_bytes\": {", "\"census.bogus\": {", &e) != 0);
	CHECK(strstr(e.msg, "census.bogus") && strstr(e.msg, "unknown metric"));

	CHECK(parse_edited("\"direction\": \"increase\"", "\"direction\": \"up\"", &e) != 0);
	CHECK(strstr(e.msg, "direction") != NULL);

	CHECK(parse_edited("\"version\": 1", "\"version\": 2", &e) != 0);
	CHECK(strstr(e.msg, "version") != NULL);

	CHECK(parse_edited("\"median\": 1000", "\"median\": \"1000\"", &e) != 0);
	CHECK(strstr(e.msg, "cells[0].median") && strstr(e.msg, "number"));

	CHECK(parse_edited("\"min\": 1000,", "\"min\": 2000,", &e) != 0);
	CHECK(strstr(e.msg, "cells[0]") && strstr(e.msg, "min <= median"));

	CHECK(parse_edited("\"n\": 3}", "\"n\": 0}", &e) != 0);
	CHECK(strstr(e.msg, "n must be"));

	/* A cell whose metric has no rule, or whose probe has no checksum. */
	CHECK(parse_edited("\"metric\": \"rss.peak_bytes\"", "\"metric\": \"time.wall_ns\"", &e) !=
	      0);
	CHECK(strstr(e.msg, "cells[1]") && strstr(e.msg, "no entry in \"rules\""));
	CHECK(parse_edited("{\"probe\": \"01_nursery_churn\", \"metric\": \"census",
	                   "{\"probe\": \"02_other\", \"metric\": \"census", &e) != 0);
	CHECK(strstr(e.msg, "02_other") && strstr(e.msg, "no entry in \"probes\""));

	CHECK(parse_edited("\"gated\": true", "\"gated\": 1", &e) != 0);
	CHECK(strstr(e.msg, ".gated"));
	CHECK(parse_edited("\"collector\": {", "\"collector\": 7, \"x\": {", &e) != 0);
	CHECK(strstr(e.msg, "t.json: collector"));
}

static void test_defaults(void)
{
	const char *metrics[] = {"census.alloc_bytes", "census.pause_max_ns", "time.wall_ns",
	                         "valgrind.ir", "rss.peak_bytes"};
	struct baseline_rule *r;
	struct err e;

	CHECK(baseline_default_rules("shared_ci", metrics, 5, &r, &e) == 0);
	CHECK(r[0].gated && r[0].band_pct == 0 && r[0].band_abs == 0);
	CHECK(!r[1].gated); /* pauses are time */
	CHECK(!r[2].gated); /* shared machines: time is not gated */
	CHECK(r[3].gated && r[3].band_pct > 0);
	CHECK(r[4].gated && r[4].band_pct > 0 && r[4].band_abs > 0);
	for (int i = 0; i < 5; i++)
		free(r[i].metric);
	free(r);

	CHECK(baseline_default_rules("pinned_host", metrics, 5, &r, &e) == 0);
	CHECK(r[2].gated); /* one quiet host: time is gated */
	for (int i = 0; i < 5; i++)
		free(r[i].metric);
	free(r);

	CHECK(baseline_default_rules("nightly", metrics, 5, &r, &e) != 0);
	CHECK(strstr(e.msg, "shared_ci") && strstr(e.msg, "pinned_host"));
}

int main(void)
{
	test_bands();
	test_parser();
	test_defaults();
	return unit_done("test_baseline");
}
