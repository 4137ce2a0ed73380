/* Band arithmetic and the baseline parser, on known answers and hand-broken files. */
#include <math.h>
#include <stdio.h>
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
	struct baseline_rule inc = {(char *)"rss.peak_bytes", 1, BASELINE_INCREASE, 20, 4194304,
	                            BASELINE_CLASS_BANDED,    0};
	struct baseline_rule exact = {(char *)"census.alloc_bytes", 1, BASELINE_INCREASE, 0, 0,
	                              BASELINE_CLASS_EXACT,         0};
	struct baseline_rule dec = {(char *)"time.wall_ns", 1, BASELINE_DECREASE, 10, 0,
	                            BASELINE_CLASS_BANDED,  0};
	struct baseline_rule either = {(char *)"valgrind.ir", 1, BASELINE_EITHER, 1, 0,
	                               BASELINE_CLASS_BANDED, 0};
	struct baseline_rule info = {(char *)"time.wall_ns", 0, BASELINE_INCREASE, 10, 0,
	                             BASELINE_CLASS_INFO,    0};
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
		struct baseline_rule promoted = {(char *)"census.promoted_objects",
		                                 1,
		                                 BASELINE_INCREASE,
		                                 0,
		                                 0,
		                                 BASELINE_CLASS_EXACT,
		                                 0};
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
	CHECK(strstr(e.msg, "t.json: rules.\"rss.peak_bytes\".band_pct: must be >= 0"));

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
	CHECK(strstr(e.msg, "t.json: cells[0].n: must be an integer from 1 to 2^53-1, got 0"));

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

/* Parses good with `tail` appended. */
static int parse_appended(const char *tail, struct err *e)
{
	char *text = malloc(sizeof good + strlen(tail));
	struct baseline b;
	int rc;

	strcpy(text, good);
	strcat(text, tail);
	rc = baseline_parse(text, "t.json", &b, e);
	if (rc == 0)
		baseline_release(&b);
	free(text);
	return rc;
}

/* Issue 10, items 1, 2, 5, 6: what the parser used to accept and cannot honour. */
static void test_strict(void)
{
	struct err e;

	/* 1: the end of input. Trailing whitespace is fine; anything else is not. */
	CHECK(parse_appended("\n \t\n", &e) == 0);
	CHECK(parse_appended(good, &e) != 0);
	CHECK(strstr(e.msg, "t.json:17:1: not valid JSON: text after the end of the value"));
	CHECK(parse_appended("garbage", &e) != 0);
	CHECK(strstr(e.msg, "t.json:17:1: not valid JSON"));

	/* 2: a second rule for a metric, put first so that a lookup would find it. */
	CHECK(parse_edited(
	          "  \"rules\": {\n",
	          "  \"rules\": {\n    \"rss.peak_bytes\": {\"gated\": false, \"direction\": "
	          "\"increase\", \"band_pct\": 0, \"band_abs\": 0},\n",
	          &e) != 0);
	CHECK(strstr(
	    e.msg,
	    "t.json:10:5: rules.\"rss.peak_bytes\": duplicate key (first at line 8, column 5)"));
	CHECK(parse_edited("\"median\": 1000,", "\"median\": 1000, \"median\": 9,", &e) != 0);
	CHECK(strstr(e.msg, "cells[0].median: duplicate key"));
	/* ... and a cell pinned twice, which no key check can see. */
	CHECK(parse_edited("\"metric\": \"rss.peak_bytes\"", "\"metric\": \"census.alloc_bytes\"",
	                   &e) != 0);
	CHECK(strstr(e.msg, "t.json: cells[1]: pins 01_nursery_churn census.alloc_bytes again"));

	/* 5: integers are range-checked before conversion, and must be integers. */
	CHECK(parse_edited("\"n\": 3}", "\"n\": 1e300}", &e) != 0);
	CHECK(strstr(e.msg, "t.json: cells[0].n: must be an integer from 1 to 2^53-1, got 1e+300"));
	CHECK(parse_edited("\"n\": 3}", "\"n\": 1.5}", &e) != 0);
	CHECK(strstr(e.msg, "cells[0].n: must be an integer"));
	CHECK(parse_edited("\"n\": 3}", "\"n\": 1e400}", &e) != 0);
	CHECK(strstr(e.msg, "t.json:13:114: not valid JSON: 1e400 is beyond the range of a double "
	                    "(in cells[0].n)"));
	CHECK(parse_edited("\"session\": 3", "\"session\": 1e300", &e) != 0);
	CHECK(strstr(e.msg, "t.json: session: must be an integer from 1 to 2^53-1"));
	CHECK(parse_edited("\"repeats\": 3", "\"repeats\": -1e300", &e) != 0);
	CHECK(strstr(e.msg, "t.json: repeats: must be an integer from 1"));

	/* 6: values the harness cannot honour. */
	CHECK(parse_edited("\"repeats\": 3", "\"repeats\": 0", &e) != 0);
	CHECK(strstr(e.msg, "t.json: repeats: must be an integer from 1"));
	CHECK(parse_edited("\"0x0123456789abcdef\"", "\"garbage\"", &e) != 0);
	CHECK(strstr(e.msg, "t.json: probes.\"01_nursery_churn\".checksum: must be \"0x\" and 16 "
	                    "lowercase hex digits, not \"garbage\""));
	CHECK(parse_edited("\"size\": \"ci\"", "\"size\": \"huge\"", &e) != 0);
	CHECK(strstr(e.msg, "t.json: size: must be ci, default, large or n=N1,N2"));
	CHECK(parse_edited("\"size\": \"ci\"", "\"size\": \"n=1000,2000\"", &e) == 0);
	CHECK(parse_edited("\"size\": \"ci\"", "\"size\": \"n=2000,1000\"", &e) != 0);
	CHECK(parse_edited("\"census\"]", "\"telepathy\"]", &e) != 0);
	CHECK(strstr(e.msg,
	             "t.json: meters[1]: unknown meter \"telepathy\" (known: rusage, census, "
	             "perf, valgrind, cachesim)"));
	CHECK(parse_edited("\"census\"]", "\"rusage\"]", &e) != 0);
	CHECK(strstr(e.msg, "meters[1]: \"rusage\" is listed twice"));
	CHECK(parse_edited("\n  ]\n}",
	                   "\n  ],\n  \"ledger\": [{\"probe\": \"02_gone\", \"metric\": "
	                   "\"census.alloc_bytes\", \"old\": 1, \"new\": 2, \"reason\": \"r\", "
	                   "\"date\": \"2026-11-30T00:00:00Z\", \"who\": \"w\"}]\n}",
	                   &e) != 0);
	CHECK(strstr(e.msg, "t.json: ledger[0]: 02_gone census.alloc_bytes is not a cell pinned"));
	CHECK(parse_edited("\n  ]\n}",
	                   "\n  ],\n  \"overrides\": [{\"probe\": \"01_nursery_churn\", "
	                   "\"metric\": \"rss.peak_bytes\", \"band_pct\": 1, \"band_abs\": 0, "
	                   "\"rationale\": \"r\", \"evidence\": {\"runs\": 1e300, \"spread_pct\": "
	                   "1}}]\n}",
	                   &e) != 0);
	CHECK(strstr(e.msg,
	             "t.json: overrides[0].evidence.runs: must be an integer from 2 to 2^53-1"));
}

/* baseline_check on baselines made in memory, as pin and update make them before writing. */
static void test_check(void)
{
	struct baseline_rule rules[] = {
	    {(char *)"census.alloc_bytes", 1, BASELINE_INCREASE, 0, 0, BASELINE_CLASS_EXACT, 0},
	    {(char *)"rss.peak_bytes", 1, BASELINE_INCREASE, 20, 4194304, BASELINE_CLASS_BANDED, 0},
	};
	struct baseline_probe probes[] = {{(char *)"01_a", (char *)"0x0123456789abcdef", {0}}};
	struct baseline_cell cells[] = {
	    {(char *)"01_a", (char *)"census.alloc_bytes", 1000, 1000, 1000, 3, 0, 0, 0, NULL, 0},
	    {(char *)"01_a", (char *)"rss.peak_bytes", 10, 9, 11, 3, 0, 0, 0, NULL, 0},
	};
	struct baseline_override over = {
	    (char *)"01_a",
	    (char *)"rss.peak_bytes",
	    {(char *)"rss.peak_bytes", 1, BASELINE_INCREASE, 40, 0, BASELINE_CLASS_BANDED, 0},
	    (char *)"noisy",
	    5,
	    12.5,
	    0};
	struct baseline_ledger_entry led = {
	    (char *)"01_a", (char *)"census.alloc_bytes",   900,        1000, (char *)"intended",
	    NULL,           (char *)"2026-11-30T00:00:00Z", (char *)"w"};
	char *meters[] = {(char *)"rusage", (char *)"census"};
	struct baseline b = {
	    .profile = (char *)"shared_ci",
	    .collector = (char *)"gen",
	    .collector_version = (char *)"1.0",
	    .git_commit = (char *)"abc",
	    .host_fingerprint = (char *)"00ff",
	    .hostname = (char *)"h",
	    .pinned_at = (char *)"2026-11-30T00:00:00Z",
	    .session = 1,
	    .size = (char *)"ci",
	    .meters = {meters, 2, 2},
	    .repeats = 5,
	    .rules = rules,
	    .nrules = 2,
	    .probes = probes,
	    .nprobes = 1,
	    .cells = cells,
	    .ncells = 2,
	    .overrides = &over,
	    .noverrides = 1,
	    .ledger = &led,
	    .nledger = 1,
	};
	struct err e;

	CHECK(baseline_check(&b, &e) == 0);

	b.repeats = 0;
	CHECK(baseline_check(&b, &e) != 0);
	CHECK_STR(e.msg, "repeats: must be an integer from 1 to 2^53-1, got 0");
	b.repeats = INT64_MIN; /* what `update` wrote from "repeats": 1e300 */
	CHECK(baseline_check(&b, &e) != 0);
	b.repeats = 5;

	b.session = -1;
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "session:"));
	b.session = 1;

	b.size = (char *)"huge";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "size: must be ci, default, large or n=N1,N2"));
	b.size = (char *)"n=0,10";
	CHECK(baseline_check(&b, &e) != 0);
	b.size = (char *)"n=5,10";
	CHECK(baseline_check(&b, &e) == 0);
	b.size = (char *)"ci";

	meters[1] = (char *)"perf:cycles:u"; /* the session's meters text, not a baseline's */
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "meters[1]: unknown meter \"perf:cycles:u\""));
	meters[1] = (char *)"census";

	probes[0].checksum = (char *)"0x0123456789ABCDEF";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "probes.\"01_a\".checksum: must be"));
	probes[0].checksum = (char *)"0x0123456789abcdef";

	rules[1].band_abs = -1;
	CHECK(baseline_check(&b, &e) != 0);
	CHECK_STR(e.msg, "rules.\"rss.peak_bytes\".band_abs: must be >= 0");
	rules[1].band_abs = NAN;
	CHECK(baseline_check(&b, &e) != 0);
	rules[1].band_abs = 4194304;
	rules[1].metric = (char *)"census.alloc_bytes";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "rules.\"census.alloc_bytes\": a second rule"));
	rules[1].metric = (char *)"rss.peak_bytes";
	rules[0].metric = (char *)"census.alloc_furlongs";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "unknown metric"));
	rules[0].metric = (char *)"census.alloc_bytes";

	cells[1].n = 0;
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "cells[1].n: must be an integer from 1"));
	cells[1].n = 3;
	cells[1].min = 12;
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "cells[1]: needs min <= median <= max"));
	cells[1].min = 9;
	cells[1].metric = (char *)"census.alloc_bytes";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "cells[1]: pins 01_a census.alloc_bytes again (first in cells[0])"));
	cells[1].metric = (char *)"time.wall_ns";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "cells[1]: metric \"time.wall_ns\" has no entry in \"rules\""));
	cells[1].metric = (char *)"rss.peak_bytes";
	cells[1].probe = (char *)"02_b";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "no entry in \"probes\""));
	cells[1].probe = (char *)"01_a";

	over.evidence_runs = 1;
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "overrides[0].evidence: needs runs >= 2"));
	over.evidence_runs = 5;
	over.rationale = (char *)"";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "overrides[0].rationale"));
	over.rationale = (char *)"noisy";
	over.metric = (char *)"census.alloc_bytes";
	over.probe = (char *)"02_b";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "overrides[0]: overrides a cell that is not pinned"));
	over.probe = (char *)"01_a";
	over.metric = (char *)"rss.peak_bytes";

	led.metric = (char *)"time.wall_ns";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK_STR(e.msg, "ledger[0]: 01_a time.wall_ns is not a cell pinned in \"cells\"");
	led.metric = (char *)"census.alloc_bytes";
	led.reason = (char *)"";
	CHECK(baseline_check(&b, &e) != 0);
	CHECK(strstr(e.msg, "ledger[0].reason: must not be empty"));
	led.reason = (char *)"intended";

	CHECK(baseline_check(&b, &e) == 0);
}

/* What the shipped collectors say they do (their gcr_capabilities). */
static const struct caps precise_caps = {1, CAPS_COLLECTS | CAPS_PRECISE | CAPS_MOVING, 0};
static const struct caps conservative_caps = {1, CAPS_COLLECTS | CAPS_PAUSE_LOG, 0};
static const struct caps paced_caps = {1, CAPS_COLLECTS | CAPS_PAUSE_LOG | CAPS_CLOCK_PACED, 0};
static const struct caps keeps_all_caps = {1, 0, 0}; /* epsilon: never collects */
static const struct caps unknown_caps = {0, 0, 0};

static void test_defaults(void)
{
	const char *metrics[] = {"census.alloc_bytes", "census.pause_max_ns", "time.wall_ns",
	                         "valgrind.ir", "rss.peak_bytes"};
	struct baseline_rule *r;
	struct err e;

	CHECK(baseline_default_rules("shared_ci", &precise_caps, metrics, 5, &r, &e) == 0);
	CHECK(r[0].gated && r[0].band_pct == 0 && r[0].band_abs == 0);
	CHECK(!r[1].gated); /* pauses are time */
	CHECK(!r[2].gated); /* shared machines: time is not gated */
	CHECK(r[3].gated && r[3].band_pct > 0);
	CHECK(r[4].gated && r[4].band_pct > 0 && r[4].band_abs > 0);
	for (int i = 0; i < 5; i++)
		free(r[i].metric);
	free(r);

	CHECK(baseline_default_rules("pinned_host", &precise_caps, metrics, 5, &r, &e) == 0);
	CHECK(r[2].gated); /* one quiet host: time is gated */
	for (int i = 0; i < 5; i++)
		free(r[i].metric);
	free(r);

	CHECK(baseline_default_rules("nightly", &precise_caps, metrics, 5, &r, &e) != 0);
	CHECK(strstr(e.msg, "shared_ci") && strstr(e.msg, "pinned_host"));
}

/* Issue 17: a noise accepted at pin and the overrides it widened survive a round trip. */
static void test_noise(void)
{
	static const char overrides[] =
	    "  ],\n  \"overrides\": [{\"probe\": \"01_nursery_churn\", \"metric\": "
	    "\"rss.peak_bytes\", \"band_pct\": 40, \"band_abs\": 0, \"widened_for_noise\": "
	    "true, \"rationale\": \"noisy\", \"evidence\": {\"runs\": 11, \"spread_pct\": 20}}],\n"
	    "  \"noise_accepted\": {\"reason\": \"shared box\", \"date\": "
	    "\"2026-11-30T00:00:00Z\", \"who\": \"ci\"}\n}\n";
	struct baseline b, again;
	struct err e;
	char *text = malloc(sizeof good + sizeof overrides), *end, *out;

	strcpy(text, good);
	end = strrchr(text, ']');
	strcpy(end, overrides);
	CHECK(baseline_parse(text, "t.json", &b, &e) == 0);
	CHECK(b.noverrides == 1 && b.overrides[0].widened_for_noise);
	CHECK_STR(b.noise.reason, "shared box");
	out = baseline_serialize(&b);
	CHECK(baseline_parse(out, "again.json", &again, &e) == 0);
	CHECK(again.noverrides == 1 && again.overrides[0].widened_for_noise);
	CHECK_STR(again.noise.who, "ci");
	free(again.noise.who);
	again.noise.who = strdup("");
	CHECK(baseline_check(&again, &e) != 0 && strstr(e.msg, "noise_accepted"));
	baseline_release(&again);
	baseline_release(&b);
	free(out);

	/* Without the flag, an override is not one pin widened for noise. */
	CHECK(baseline_parse(good, "t.json", &b, &e) == 0 && !b.noise.reason);
	baseline_release(&b);
	free(text);
}

/* Parses `text`, which must be good; the caller releases *b. */
static void parse_ok(const char *text, struct baseline *b)
{
	struct err e;

	if (baseline_parse(text, "t.json", b, &e) != 0) {
		fprintf(stderr, "parse failed: %s\n", e.msg);
		CHECK(0);
	}
}

/* Issue 11 item 3: rules by determinism class. */
static void test_classes(void)
{
	struct baseline b, again;
	struct baseline_rule r;
	struct err e;
	double allowance, spread;
	char *out;

	/* A file pinned before classes loads, each rule in the class its fields imply. */
	parse_ok(good, &b);
	CHECK(baseline_rule_for(&b, "census.alloc_bytes")->cls == BASELINE_CLASS_EXACT);
	CHECK(baseline_rule_for(&b, "rss.peak_bytes")->cls == BASELINE_CLASS_BANDED);
	out = baseline_serialize(&b);
	CHECK(strstr(out, "\"band_abs\": 0, \"class\": \"exact\"}") != NULL);
	CHECK(strstr(out, "\"band_abs\": 4194304, \"class\": \"banded\"}") != NULL);
	parse_ok(out, &again);
	CHECK(baseline_rule_for(&again, "rss.peak_bytes")->cls == BASELINE_CLASS_BANDED);
	baseline_release(&again);
	free(out);
	baseline_release(&b);

	/* The class must agree with the rule's fields, and be one of the four. */
	CHECK(parse_edited("\"band_abs\": 0}", "\"band_abs\": 0, \"class\": \"info\"}", &e) != 0);
	CHECK(strstr(e.msg, "rules.\"census.alloc_bytes\".class") && strstr(e.msg, "not gated"));
	CHECK(parse_edited("\"band_abs\": 4194304}", "\"band_abs\": 4194304, \"class\": \"exact\"}",
	                   &e) != 0);
	CHECK(strstr(e.msg, "exact") && strstr(e.msg, "band of 0"));
	CHECK(parse_edited("\"band_abs\": 0}", "\"band_abs\": 0, \"class\": \"fuzzy\"}", &e) != 0);
	CHECK(strstr(e.msg, "t.json: rules.\"census.alloc_bytes\".class: must be"));
	CHECK(parse_edited("\"band_abs\": 4194304}",
	                   "\"band_abs\": 4194304, \"band_live_pct\": -1}", &e) != 0);
	CHECK(strstr(e.msg, "band_live_pct"));

	/*
	 * Quantile: the cell's min is its figure, and its pinned spread is the median above the
	 * min, so a long tail upwards (a conservative collector's bad runs) is no reason to widen.
	 * Live floor: an RSS allowance of 10% of the probe's pinned live set when that is more.
	 */
	parse_ok(
	    "{\"format\": \"gcratchet-baseline\", \"version\": 1, \"profile\": \"shared_ci\",\n"
	    "\"collector\": {\"name\": \"bdwgc\", \"version\": \"1\", \"git_commit\": \"abc\"},\n"
	    "\"host\": {\"fingerprint\": \"00ff\", \"hostname\": \"h\"}, \"pinned_at\": \"x\",\n"
	    "\"session\": 3, \"size\": \"ci\", \"meters\": [\"census\"], \"repeats\": 5,\n"
	    "\"rules\": {\"census.heap_used_after_full_bytes\": {\"gated\": true, \"direction\": "
	    "\"increase\", \"band_pct\": 0, \"band_abs\": 4096, \"class\": \"quantile\"},\n"
	    "\"rss.peak_bytes\": {\"gated\": true, \"direction\": \"increase\", \"band_pct\": 2, "
	    "\"band_abs\": 524288, \"band_live_pct\": 10}},\n"
	    "\"probes\": {\"p\": {\"checksum\": \"0x0123456789abcdef\"}},\n"
	    "\"cells\": [{\"probe\": \"p\", \"metric\": \"census.heap_used_after_full_bytes\", "
	    "\"median\": 20971520, \"min\": 20967424, \"max\": 31457280, \"n\": 5},\n"
	    "{\"probe\": \"p\", \"metric\": \"rss.peak_bytes\", \"median\": 10000000, \"min\": "
	    "9900000, \"max\": 10100000, \"n\": 5}],\n"
	    "\"vary_env\": {\"sessions\": [3, 4, 5], \"pad_step_bytes\": 4096}}\n",
	    &b);
	CHECK(b.vary_env.nsessions == 3 && b.vary_env.sessions[2] == 5);
	CHECK(baseline_cell_rule(&b, "p", "census.heap_used_after_full_bytes", &r) == 0);
	CHECK(r.cls == BASELINE_CLASS_QUANTILE);
	CHECK(baseline_cell_value(&b.cells[0], r.cls) == 20967424);
	spread = baseline_cell_spread(&b, &b.cells[0], &allowance);
	CHECK(spread == 4096 && allowance == 4096);
	CHECK(baseline_check_spread(&b, &e) == 0);
	/* The rule has no live floor; RSS's is 10% of 20 MiB, above 2% of 10 MB and 512 KiB. */
	CHECK(baseline_cell_rule(&b, "p", "rss.peak_bytes", &r) == 0);
	CHECK(r.cls == BASELINE_CLASS_BANDED && r.band_abs == 2097152);
	spread = baseline_cell_spread(&b, &b.cells[1], &allowance);
	CHECK(spread == 100000 && allowance == 2097152);
	/* One run more than a page below the median: the median is beyond the min's band. */
	b.cells[0].min = 20963328;
	CHECK(baseline_check_spread(&b, &e) != 0);
	CHECK(strstr(e.msg, "(class quantile)") && strstr(e.msg, "from a min of"));
	/* Pinned from several sessions, also to how far their mins moved, when that is more. */
	b.cells[0].has_min_spread = 1;
	b.cells[0].min_spread = 0;
	CHECK(baseline_check_spread(&b, &e) != 0);
	b.cells[0].min = 20967424;
	CHECK(baseline_check_spread(&b, &e) == 0);
	b.cells[0].min_spread = 8192;
	CHECK(baseline_check_spread(&b, &e) != 0 && strstr(e.msg, "(class quantile)"));
	b.cells[0].min_spread = 0;
	out = baseline_serialize(&b);
	CHECK(strstr(out, "\"n\": 5, \"min_spread\": 0}") != NULL);
	parse_ok(out, &again);
	CHECK(again.cells[0].has_min_spread && again.cells[0].min_spread == 0);
	CHECK(!again.cells[1].has_min_spread);
	again.cells[0].min_spread = again.cells[0].max - again.cells[0].min + 1;
	CHECK(baseline_check(&again, &e) != 0 && strstr(e.msg, "cells[0].min_spread"));
	baseline_release(&again);
	free(out);
	b.cells[0].has_min_spread = 0;
	b.cells[0].min = 20963328;
	/* vary_env round-trips, and must name the baseline's own session. */
	b.cells[0].min = 20967424;
	out = baseline_serialize(&b);
	CHECK(strstr(out, "\"vary_env\": {\"sessions\": [3, 4, 5], \"pad_step_bytes\": 4096}"));
	CHECK(strstr(out, "\"band_live_pct\": 10, \"class\": \"banded\""));
	parse_ok(out, &again);
	CHECK(again.vary_env.nsessions == 3);
	again.vary_env.sessions[0] = 6;
	CHECK(baseline_check(&again, &e) != 0 && strstr(e.msg, "session 3"));
	again.vary_env.sessions[0] = 4;
	CHECK(baseline_check(&again, &e) != 0 && strstr(e.msg, "again"));
	baseline_release(&again);
	free(out);
	/* An exact cell whose runs differ is not exact, whatever its band. */
	b.rules[0].cls = BASELINE_CLASS_EXACT;
	b.rules[0].band_abs = 0;
	CHECK(baseline_check_spread(&b, &e) != 0 && strstr(e.msg, "not deterministic"));
	baseline_release(&b);
}

/* The class and bands baseline_default_rules gives, per collector kind. */
static void test_default_classes(void)
{
	const char *metrics[] = {"census.alloc_bytes",
	                         "census.heap_used_after_full_bytes",
	                         "census.major_collections",
	                         "rss.peak_bytes",
	                         "valgrind.ir",
	                         "time.wall_ns",
	                         "census.minor_collections",
	                         "census.heap_committed_peak_bytes"};
	const size_t n = sizeof metrics / sizeof metrics[0];
	struct baseline_rule *r;
	struct err e;

	CHECK(baseline_default_rules("shared_ci", &precise_caps, metrics, n, &r, &e) == 0);
	CHECK(r[0].cls == BASELINE_CLASS_EXACT && r[1].cls == BASELINE_CLASS_EXACT);
	CHECK(r[2].cls == BASELINE_CLASS_EXACT && r[6].cls == BASELINE_CLASS_EXACT);
	CHECK(r[3].cls == BASELINE_CLASS_BANDED && r[3].band_pct == 2 && r[3].band_abs == 524288 &&
	      r[3].band_live_pct == 10);
	CHECK(r[4].cls == BASELINE_CLASS_BANDED && r[4].band_pct == 1 && r[4].band_abs == 1000);
	CHECK(r[5].cls == BASELINE_CLASS_INFO);
	for (size_t i = 0; i < n; i++)
		free(r[i].metric);
	free(r);

	/*
	 * Conservative (collects, not precise): heap, RSS and collection counts are judged by
	 * their distribution (a band of at least BASELINE_DIST_MIN_PCT, the least shift worth
	 * reporting),
	 * what was asked stays exact; Ir keeps the profile's band (its spread widens it at pin).
	 * A build that never said what it does is taken for one, whatever it is called.
	 */
	for (int k = 0; k < 2; k++) {
		CHECK(baseline_default_rules("shared_ci", k ? &unknown_caps : &conservative_caps,
		                             metrics, n, &r, &e) == 0);
		CHECK(r[0].cls == BASELINE_CLASS_EXACT);
		/* What its last collection happened to keep is recorded; retention is gated by
		 * the committed peak (a page at least) and RSS. */
		CHECK(r[1].cls == BASELINE_CLASS_INFO && !r[1].gated);
		CHECK(r[7].cls == BASELINE_CLASS_DIST && r[7].band_abs == 4096 &&
		      r[7].band_pct == BASELINE_DIST_MIN_PCT);
		CHECK(r[2].cls == BASELINE_CLASS_DIST && r[3].cls == BASELINE_CLASS_DIST);
		CHECK(r[6].cls == BASELINE_CLASS_DIST);
		CHECK(r[3].band_live_pct == 0);
		CHECK(r[4].cls == BASELINE_CLASS_BANDED && r[4].band_pct == 1 &&
		      r[4].band_abs == 1000);
		for (size_t i = 0; i < n; i++)
			free(r[i].metric);
		free(r);
	}

	/* One that never collects keeps everything it was given: its census is exact. */
	CHECK(baseline_default_rules("shared_ci", &keeps_all_caps, metrics, n, &r, &e) == 0);
	CHECK(r[1].cls == BASELINE_CLASS_EXACT && r[2].cls == BASELINE_CLASS_EXACT &&
	      r[7].cls == BASELINE_CLASS_EXACT && r[3].cls == BASELINE_CLASS_BANDED);
	for (size_t i = 0; i < n; i++)
		free(r[i].metric);
	free(r);

	/* Time-paced: every census counter but what was asked is a distribution. */
	CHECK(baseline_default_rules("shared_ci", &paced_caps, metrics, n, &r, &e) == 0);
	CHECK(r[0].cls == BASELINE_CLASS_EXACT && r[6].cls == BASELINE_CLASS_DIST);
	CHECK(r[3].cls == BASELINE_CLASS_DIST && r[3].band_abs == 2097152);
	for (size_t i = 0; i < n; i++) {
		struct baseline_rule copy = r[i];
		CHECK(baseline_class_derive(&copy) != BASELINE_CLASS_INFO || !copy.gated);
		free(r[i].metric);
	}
	free(r);
}

/*
 * "functions" (issue 26, item 3): optional, read strictly (unknown keys, wrong types), checked
 * (a probe of "probes", once; functions in order, each once, their sum within the probe's Ir,
 * at most BASELINE_FUNCTIONS_TOP), written back one function a line and read again the same.
 */
static void test_functions(void)
{
	static const char fns[] =
	    "  ],\n  \"functions\": {\"01_nursery_churn\": {\"ir\": 1000, \"top\": ["
	    "{\"name\": \"gcr_alloc\", \"file\": \"collectors/gen/gen.c\", \"ir\": 600}, "
	    "{\"name\": \"main\", \"file\": null, \"ir\": 300}]}}\n}";
	struct err e;
	struct baseline b, again;
	char *text, *out;
	const struct fnprof *p;

	/* good's end "  ]\n}\n" becomes the cells' end plus the member. */
	text = xasprintf("%.*s%s\n", (int)(strlen(good) - strlen("  ]\n}\n")), good, fns);
	CHECK(baseline_parse(text, "t.json", &b, &e) == 0);
	p = baseline_functions_of(&b, "01_nursery_churn");
	CHECK(p && p->n == 2 && p->total_ir == 1000 && p->fns[1].file == NULL);
	CHECK(baseline_functions_of(&b, "02_other") == NULL);
	out = baseline_serialize(&b);
	CHECK(strstr(out, "\n      {\"name\": \"gcr_alloc\", \"file\": \"collectors/gen/gen.c\", "
	                  "\"ir\": 600},\n") != NULL);
	CHECK(baseline_parse(out, "again.json", &again, &e) == 0);
	p = baseline_functions_of(&again, "01_nursery_churn");
	CHECK(p && p->n == 2 && p->fns[0].ir == 600 && strcmp(p->fns[1].name, "main") == 0);
	baseline_release(&again);
	free(out);
	baseline_release(&b);
	free(text);

	/* Each broken the way a hand edit would. */
	{
		static const char *const bad[][2] = {
		    {"\"ir\": 1000, \"top\"", "\"ir\": 1000, \"tops\": [], \"top\""},
		    {"\"file\": null, \"ir\": 300", "\"file\": null, \"Ir\": 300"},
		    {"\"file\": null", "\"file\": 3"},
		    {"\"ir\": 1000", "\"ir\": 800"},
		    {"\"ir\": 300", "\"ir\": 700"},
		    {"\"01_nursery_churn\": {\"ir\"", "\"02_gone\": {\"ir\""},
		    {"\"ir\": 300", "\"ir\": -1"},
		};
		static const char *const why[] = {
		    "functions.\"01_nursery_churn\".tops: unknown key",
		    "functions.\"01_nursery_churn\".top[1].Ir: unknown key",
		    "functions.\"01_nursery_churn\".top[1].file: must be a string or null",
		    "more than the run",
		    "not in order",
		    "functions.\"02_gone\": not a probe of \"probes\"",
		    "not a count",
		};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			const char *at = strstr(fns, bad[i][0]);
			char *edited, *whole;
			CHECK(at != NULL);
			if (!at)
				continue;
			edited = xasprintf("%.*s%s%s", (int)(at - fns), fns, bad[i][1],
			                   at + strlen(bad[i][0]));
			whole = xasprintf("%.*s%s\n", (int)(strlen(good) - strlen("  ]\n}\n")),
			                  good, edited);
			CHECK(baseline_parse(whole, "t.json", &b, &e) != 0);
			CHECK(strstr(e.msg, why[i]) != NULL);
			free(whole);
			free(edited);
		}
	}
}

/*
 * Issue 41 defect 10: a rule or override looser than what pin writes for the file's profile
 * and capabilities must say why. A precise build's census.alloc_bytes is exact in shared_ci;
 * rss.peak_bytes 2% with a 512 KiB floor and a 10% live floor (metrics.c).
 */
static const char justified[] =
    "{\"format\": \"gcratchet-baseline\", \"version\": 1, \"profile\": \"shared_ci\",\n"
    "\"collector\": {\"name\": \"gen\", \"version\": \"1\", \"git_commit\": \"abc\"},\n"
    "\"host\": {\"fingerprint\": \"00ff\", \"hostname\": \"h\"}, \"pinned_at\": \"x\",\n"
    "\"session\": 3, \"size\": \"ci\", \"meters\": [\"census\"], \"repeats\": 5,\n"
    "\"capabilities\": [\"collects\", \"precise\"],\n"
    "\"rules\": {\"census.alloc_bytes\": {\"gated\": true, \"direction\": \"increase\", "
    "\"band_pct\": 0, \"band_abs\": 0, \"class\": \"exact\"}},\n"
    "\"probes\": {\"p\": {\"checksum\": \"0x0123456789abcdef\"}, "
    "\"q\": {\"checksum\": \"0x0123456789abcdef\"}},\n"
    "\"cells\": [{\"probe\": \"p\", \"metric\": \"census.alloc_bytes\", \"median\": 1000, "
    "\"min\": 1000, \"max\": 1000, \"n\": 5},\n"
    "{\"probe\": \"q\", \"metric\": \"census.alloc_bytes\", \"median\": 2000, "
    "\"min\": 2000, \"max\": 2000, \"n\": 5}]}\n";

/* `justified` with `from` replaced by `to` (once), parsed: must parse. */
static void parse_justified(const char *from, const char *to, struct baseline *b)
{
	const char *at = strstr(justified, from);
	char *text;

	CHECK(at != NULL);
	if (!at)
		return;
	text = xasprintf("%.*s%s%s", (int)(at - justified), justified, to, at + strlen(from));
	parse_ok(text, b);
	free(text);
}

static void test_justified(void)
{
	static const char exact[] =
	    "\"census.alloc_bytes\": {\"gated\": true, \"direction\": \"increase\", "
	    "\"band_pct\": 0, \"band_abs\": 0, \"class\": \"exact\"}";
	static const struct {
		const char *rule, *says;
	} looser[] = {
	    {"\"census.alloc_bytes\": {\"gated\": true, \"direction\": \"increase\", "
	     "\"band_pct\": 1000, \"band_abs\": 0, \"class\": \"banded\"}",
	     "band_pct 1000 is wider than pin's 0"},
	    {"\"census.alloc_bytes\": {\"gated\": false, \"direction\": \"increase\", "
	     "\"band_pct\": 0, \"band_abs\": 0, \"class\": \"info\"}",
	     "not gated, where pin gates it"},
	    {"\"census.alloc_bytes\": {\"gated\": true, \"direction\": \"decrease\", "
	     "\"band_pct\": 0, \"band_abs\": 0, \"class\": \"exact\"}",
	     "direction \"decrease\" stops watching the increase side"},
	    {"\"census.alloc_bytes\": {\"gated\": true, \"direction\": \"increase\", "
	     "\"band_pct\": 0, \"band_abs\": 0, \"class\": \"quantile\"}",
	     "class quantile compares less than pin's exact"},
	};
	static const char override[] =
	    "],\n\"overrides\": [{\"probe\": \"p\", \"metric\": \"census.alloc_bytes\", "
	    "\"band_pct\": 1000, \"band_abs\": 0, \"class\": \"banded\", \"rationale\": \"r\", "
	    "\"evidence\": {\"runs\": 5, \"spread_pct\": %s}}]}\n";
	struct baseline b;
	struct err e;
	char *ov;

	parse_ok(justified, &b);
	CHECK(baseline_check_justified(&b, &e) == 0 && baseline_validate(&b, &e) == 0);
	baseline_release(&b);
	for (size_t i = 0; i < sizeof looser / sizeof looser[0]; i++) {
		parse_justified(exact, looser[i].rule, &b);
		CHECK(baseline_check_justified(&b, &e) != 0);
		CHECK(strstr(e.msg, "rules.\"census.alloc_bytes\": ") &&
		      strstr(e.msg, looser[i].says));
		/* It names the first cell it would judge, and what pin writes. */
		CHECK(strstr(e.msg, "cells[0] (p census.alloc_bytes) has no override"));
		CHECK(strstr(e.msg,
		             "capabilities collects, precise pin writes {\"gated\": true, "
		             "\"direction\": \"increase\", \"band_pct\": 0, \"band_abs\": 0, "
		             "\"class\": \"exact\"}"));
		CHECK(baseline_validate(&b, &e) != 0);
		baseline_release(&b);
	}
	/* Either watches both sides: tighter, fine. So is a smaller band than pin's. */
	parse_justified("\"direction\": \"increase\"", "\"direction\": \"either\"", &b);
	CHECK(baseline_check_justified(&b, &e) == 0);
	baseline_release(&b);
	/* Without capabilities, the least a build could be: still exact for alloc_bytes. */
	parse_justified("\"capabilities\": [\"collects\", \"precise\"],\n", "", &b);
	CHECK(baseline_check_justified(&b, &e) == 0);
	b.rules[0].gated = 0;
	b.rules[0].cls = BASELINE_CLASS_INFO;
	CHECK(baseline_check_justified(&b, &e) != 0 && strstr(e.msg, "capabilities unknown"));
	/* A looser rule with no cell of its metric judges nothing: nothing to justify. */
	b.ncells = 0;
	CHECK(baseline_check_justified(&b, &e) == 0);
	b.ncells = 2;
	baseline_release(&b);

	/* Overrides: a wider one with the spread that justifies it passes; with none, refused. */
	ov = xasprintf(override, "12.5");
	parse_justified("]}\n", ov, &b);
	free(ov);
	CHECK(baseline_check_justified(&b, &e) == 0);
	/* A looser rule whose every cell has an override judges no cell itself. */
	b.rules[0].band_pct = 1000;
	b.rules[0].cls = BASELINE_CLASS_BANDED;
	CHECK(baseline_check_justified(&b, &e) != 0 && strstr(e.msg, "cells[1] (q census"));
	baseline_release(&b);
	ov = xasprintf(override, "0");
	parse_justified("]}\n", ov, &b);
	free(ov);
	CHECK(baseline_check_justified(&b, &e) != 0);
	CHECK(strstr(e.msg, "overrides[0] (p census.alloc_bytes): band_pct 1000 is wider") &&
	      strstr(e.msg, "saw no spread"));
	/* Not gating one cell is a decision its rationale carries, not a spread. */
	b.overrides[0].rule.gated = 0;
	b.overrides[0].rule.cls = BASELINE_CLASS_INFO;
	CHECK(baseline_check_justified(&b, &e) == 0);
	baseline_release(&b);
	/* A profile without default rules has nothing to hold its rules to. */
	parse_justified("\"profile\": \"shared_ci\"", "\"profile\": \"nightly\"", &b);
	CHECK(baseline_check_justified(&b, &e) != 0 && strstr(e.msg, "\"nightly\" has no default"));
	baseline_release(&b);
}

int main(void)
{
	test_functions();
	test_bands();
	test_parser();
	test_strict();
	test_check();
	test_defaults();
	test_noise();
	test_classes();
	test_default_classes();
	test_justified();
	return unit_done("test_baseline");
}
