/* The census object parser: what a probe may send, and what is refused with a named field. */
#include "census.h"
#include "unit.h"

#define HEAD "{\"format\":\"gcr-census\",\"version\":1,\"probe\":\"01_x\",\"collector\":\"c\","

#define OK_CENSUS                                                                               \
	HEAD "\"size\":\"ci\",\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":" \
	     "4096}}"

/* Issue 10, items 1, 2, 5, 7: what the census reader used to accept and store as ok. */
static void test_strict(void)
{
	struct census_report r;
	struct err e;

	CHECK(census_parse(OK_CENSUS "\n", &r, &e) == 0);
	census_report_release(&r);
	/* 1: garbage after the object, or a second object. */
	CHECK(census_parse(OK_CENSUS "garbage", &r, &e) != 0);
	CHECK(strstr(e.msg, "census:1:") && strstr(e.msg, "text after the end of the value"));
	CHECK(census_parse(OK_CENSUS OK_CENSUS, &r, &e) != 0);
	/* 2: a field twice (the first would win). */
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":1,"
	                        "\"alloc_bytes\":2}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "census.alloc_bytes: duplicate key"));
	CHECK(census_parse(HEAD "\"probe\":\"02_y\",\"checksum\":\"0x00000000000000ff\"}", &r,
	                   &e) != 0);
	CHECK(strstr(e.msg, "census:1:") && strstr(e.msg, ": probe: duplicate key"));
	/* 5: counters are exact integers below 2^53. */
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":"
	                        "9007199254740991}}",
	                   &r, &e) == 0);
	CHECK(*metric_set_get(&r.metrics, "census.alloc_bytes") == 9007199254740991.0);
	census_report_release(&r);
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":"
	                        "9007199254740992}}",
	                   &r, &e) != 0);
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"memory\":{\"vm_hwm_bytes\":"
	                        "1e300}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg,
	             "census: memory.vm_hwm_bytes: must be a non-negative integer below 2^53, got "
	             "1e+300"));
}

/* 7: a census the runner had to cut is too large, not bad JSON; a NUL byte is named. */
static void test_read(void)
{
	static const char text[] = OK_CENSUS;
	struct census_report r;
	struct err e;

	CHECK(census_read(text, strlen(text), 65536, &r, &e) == 0);
	CHECK_STR(r.probe, "01_x");
	census_report_release(&r);
	CHECK(census_read(text, 4194304 + 10, 4194304, &r, &e) != 0);
	CHECK_STR(e.msg, "census is larger than the 4 MiB cap (got 4194314 bytes)");
	CHECK(census_read(text, 65537, 65536, &r, &e) != 0);
	CHECK_STR(e.msg, "census is larger than the 64 KiB cap (got 65537 bytes)");
	/* What the runner keeps of "{...}\0junk": the text up to the NUL, and the count. */
	CHECK(census_read(text, strlen(text) + 5, 65536, &r, &e) != 0);
	CHECK(strstr(e.msg, "census: a NUL byte at byte"));
}

/* Issue 12 item 3: unknown keys are warnings the run keeps, never silently dropped. */
static void test_unknown_keys(void)
{
	struct census_report r;
	struct err e;

	CHECK(census_parse(OK_CENSUS, &r, &e) == 0);
	CHECK(r.warnings.n == 0);
	census_report_release(&r);
	CHECK(census_parse(HEAD "\"size\":\"ci\",\"checksum\":\"0x00000000000000ff\",\"census\":{"
	                        "\"alloc_byts\":4096,\"major_collections\":3},\"memory\":{"
	                        "\"vm_hwm\":1},\"colector\":\"c\",\"iterations\":10,"
	                        "\"capabilities\":[\"collects\"]}",
	                   &r, &e) == 0);
	CHECK(r.warnings.n == 3);
	CHECK(r.warnings.n == 3 &&
	      strstr(r.warnings.items[0], "unknown census key "
	                                  "\"census.alloc_byts\" (not stored"));
	CHECK(r.warnings.n == 3 && strstr(r.warnings.items[1], "\"memory.vm_hwm\""));
	CHECK(r.warnings.n == 3 && strstr(r.warnings.items[2], "\"colector\""));
	/* The known counter is kept, the typo'd one is not. */
	CHECK(metric_set_get(&r.metrics, "census.major_collections") != NULL);
	CHECK(metric_set_get(&r.metrics, "census.alloc_byts") == NULL);
	census_report_release(&r);
	CHECK(r.warnings.n == 0);
}

/* Issue 12 item 3: values that are not exact integers are refused, wherever they are. */
static void test_exact_integers(void)
{
	struct census_report r;
	struct err e;

	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":"
	                        "9007199254740992}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "census.alloc_bytes: must be a non-negative integer below 2^53"));
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":"
	                        "9007199254740991}}",
	                   &r, &e) == 0);
	census_report_release(&r);
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"memory\":{\"vm_hwm_bytes\":"
	                        "1e300}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "memory.vm_hwm_bytes"));
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"iterations\":2.5}", &r,
	                   &e) != 0);
	CHECK(strstr(e.msg, "census: iterations: must be"));
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"iterations\":-3}", &r, &e) !=
	      0);
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"iterations\":"
	                        "18014398509481984}",
	                   &r, &e) != 0);
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"capabilities\":\"moving\"}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "census: capabilities: must be an array of strings"));
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"capabilities\":[1]}", &r,
	                   &e) != 0);
	CHECK(strstr(e.msg, "census: capabilities[0]: must be a string"));
}

/* Issue 12 item 3: the census against the run's stdout and the build's manifest. */
static void test_check_build(void)
{
	struct census_report r;
	struct strlist w = {0};
	struct err e;

	CHECK(census_parse(HEAD "\"collector_version\":\"2.0\",\"checksum\":"
	                        "\"0x00000000000000ff\"}",
	                   &r, &e) == 0);
	CHECK(census_check_build(&r, "0x00000000000000ff", "c", "2.0", &w, &e) == 0);
	CHECK(census_check_build(&r, NULL, NULL, NULL, &w, &e) == 0);
	CHECK(w.n == 0);
	CHECK(census_check_build(&r, "0x00000000000000aa", "c", "2.0", &w, &e) != 0);
	CHECK_STR(e.msg, "checksums differ: stdout says checksum 0x00000000000000aa, the census "
	                 "says 0x00000000000000ff");
	CHECK(census_check_build(&r, "0x00000000000000ff", "jvm-g1", "17", &w, &e) == 0);
	CHECK(w.n == 2);
	CHECK(w.n == 2 && strcmp(w.items[0], "the census names collector \"c\", the manifest "
	                                     "\"jvm-g1\"") == 0);
	CHECK(w.n == 2 && strcmp(w.items[1], "the census names collector version \"2.0\", the "
	                                     "manifest \"17\"") == 0);
	strlist_release(&w);
	census_report_release(&r);
}

static void test_check_run(void)
{
	struct census_report r;
	struct err e;

	CHECK(census_parse(HEAD "\"size\":\"ci\",\"checksum\":\"0x00000000000000ff\"}", &r, &e) ==
	      0);
	CHECK(census_check_run(&r, "01_x", "ci", &e) == 0);
	CHECK(census_check_run(&r, "02_survivor_promotion", "ci", &e) != 0);
	CHECK_STR(e.msg, "census names probe \"01_x\" but 02_survivor_promotion was run");
	CHECK(census_check_run(&r, "01_x", "large", &e) != 0);
	CHECK_STR(e.msg, "census names size \"ci\" but large was run");
	CHECK(census_check_run(&r, "01_x", "n=1000", &e) != 0);
	CHECK(strstr(e.msg, "census names size \"ci\" but n=1000 was run (an explicit iteration"));
	census_report_release(&r);

	CHECK(census_parse(HEAD "\"size\":\"custom\",\"checksum\":\"0x00000000000000ff\"}", &r,
	                   &e) == 0);
	CHECK(census_check_run(&r, "01_x", "n=1000", &e) == 0);
	CHECK(census_check_run(&r, "01_x", "ci", &e) != 0);
	census_report_release(&r);
	/* A census that names no size (the protocol allows it) is judged by its probe alone. */
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\"}", &r, &e) == 0);
	CHECK(census_check_run(&r, "01_x", "default", &e) == 0);
	census_report_release(&r);
}

/* Issue 16: the "pauses" and "latency" sections become census.* and latency.* samples. */
static void test_pauses(void)
{
	struct census_report r;
	struct err e;

	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"census\":{"
	                        "\"pause_total_ns\":9000,\"pause_max_ns\":5000},\"pauses\":{"
	                        "\"count\":3,\"dropped\":0,\"span_ns\":100000,"
	                        "\"wall_total_ns\":9000,\"wall_max_ns\":5000,\"cpu_total_ns\":8000,"
	                        "\"cpu_max_ns\":4000,\"wall_p50_ns\":3000,\"wall_p90_ns\":5000,"
	                        "\"wall_p99_ns\":5000,\"cpu_p50_ns\":2000,\"cpu_p90_ns\":4000,"
	                        "\"cpu_p99_ns\":4000,\"histogram_log2_ns\":{\"10\":1,\"12\":2},"
	                        "\"mmu\":{\"1ms\":0,\"10ms\":0.5,\"100ms\":0.91}},\"latency\":{"
	                        "\"requests\":10,\"simple_p99_ns\":700,\"metered_max_ns\":9000}}",
	                   &r, &e) == 0);
	CHECK(*metric_set_get(&r.metrics, "census.pause_count") == 3);
	CHECK(*metric_set_get(&r.metrics, "census.pause_p99_ns") == 5000);
	CHECK(*metric_set_get(&r.metrics, "census.pause_cpu_p50_ns") == 2000);
	CHECK(*metric_set_get(&r.metrics, "census.pause_hist_12") == 2);
	CHECK(*metric_set_get(&r.metrics, "census.mmu_10ms") == 0.5);
	CHECK(*metric_set_get(&r.metrics, "census.mmu_100ms") == 0.91);
	CHECK(*metric_set_get(&r.metrics, "latency.simple_p99_ns") == 700);
	CHECK(*metric_set_get(&r.metrics, "latency.metered_max_ns") == 9000);
	/* Absent stays absent: no window that was not sent, no bucket without pauses. */
	CHECK(metric_set_get(&r.metrics, "census.mmu_2ms") == NULL);
	CHECK(metric_set_get(&r.metrics, "census.pause_hist_11") == NULL);
	CHECK(r.warnings.n == 0);
	/* Every stored name is one the metric table knows. */
	for (size_t i = 0; i < r.metrics.n; i++)
		CHECK(metrics_is_known(r.metrics.items[i].name));
	census_report_release(&r);

	/* A utilisation is a share; a bucket is a small integer; both are named when wrong. */
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"pauses\":{\"mmu\":"
	                        "{\"10ms\":1.5}}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "pauses.mmu.\"10ms\"") && strstr(e.msg, "from 0 to 1"));
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"pauses\":{"
	                        "\"histogram_log2_ns\":{\"64\":1}}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "pauses.histogram_log2_ns.\"64\""));
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"pauses\":{\"count\":-1}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "pauses.count"));
	/* A log past its cap, an unknown window or member: warnings, not errors. */
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"pauses\":{\"count\":70000,"
	                        "\"dropped\":4464,\"mmu\":{\"3ms\":0.5},\"p42_ns\":1}}",
	                   &r, &e) == 0);
	CHECK(r.warnings.n == 3);
	CHECK(r.warnings.n == 3 && strstr(r.warnings.items[0], "dropped 4464 pauses"));
	CHECK(metric_set_get(&r.metrics, "census.mmu_3ms") == NULL);
	census_report_release(&r);
}

/* A stored metric's value; NAN when absent, so that a check fails rather than crashes. */
static double value(const struct census_report *r, const char *metric)
{
	const double *v = metric_set_get(&r->metrics, metric);

	return v ? *v : NAN;
}

/* Collections by cause: census.trigger_<name>, the protocol's names only. */
static void test_triggers(void)
{
	struct census_report r;
	struct err e;

	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"census\":{"
	                        "\"minor_collections\":40,\"major_collections\":3},\"triggers\":{"
	                        "\"allocation\":41,\"explicit\":1,\"heap_limit\":1,\"zeal\":0}}",
	                   &r, &e) == 0);
	CHECK(value(&r, "census.trigger_allocation") == 41);
	CHECK(value(&r, "census.trigger_explicit") == 1);
	CHECK(value(&r, "census.trigger_heap_limit") == 1);
	/* A zero sent is a true zero, kept; a name not sent is absent. */
	CHECK(metric_set_get(&r.metrics, "census.trigger_zeal") &&
	      value(&r, "census.trigger_zeal") == 0);
	CHECK(metric_set_get(&r.metrics, "census.trigger_timer") == NULL);
	CHECK(r.warnings.n == 0);
	for (size_t i = 0; i < r.metrics.n; i++)
		CHECK(metrics_is_known(r.metrics.items[i].name));
	census_report_release(&r);

	/* Every name of the protocol is taken. */
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"triggers\":{"
	                        "\"allocation\":1,\"large_object\":2,\"heap_limit\":3,"
	                        "\"explicit\":4,\"timer\":5,\"heuristic\":6,\"metadata\":7,"
	                        "\"gc_locker\":8,\"zeal\":9,\"other\":10}}",
	                   &r, &e) == 0);
	CHECK(r.metrics.n == 10 && r.warnings.n == 0);
	CHECK(value(&r, "census.trigger_gc_locker") == 8);
	census_report_release(&r);

	/* An unknown name is a warning, as an unknown counter is: not stored. */
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"triggers\":{"
	                        "\"allocation\":2,\"alocation\":1}}",
	                   &r, &e) == 0);
	CHECK(r.warnings.n == 1 &&
	      strstr(r.warnings.items[0], "unknown census key \"triggers.alocation\""));
	CHECK(metric_set_get(&r.metrics, "census.trigger_alocation") == NULL);
	CHECK(value(&r, "census.trigger_allocation") == 2);
	census_report_release(&r);

	/* Counts that do not add up to the collections: kept, with a warning. */
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"census\":{"
	                        "\"minor_collections\":0,\"major_collections\":5},\"triggers\":{"
	                        "\"allocation\":3,\"explicit\":1}}",
	                   &r, &e) == 0);
	CHECK(r.warnings.n == 1 &&
	      strstr(r.warnings.items[0], "the triggers count 4 collections, minor_collections + "
	                                  "major_collections 5"));
	CHECK(value(&r, "census.trigger_allocation") == 3);
	census_report_release(&r);

	/* Not an object, not an exact integer: the run fails, the field named. */
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"triggers\":[1]}", &r, &e) !=
	      0);
	CHECK(strstr(e.msg, "census: triggers: must be an object"));
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"triggers\":{"
	                        "\"explicit\":1.5}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "triggers.explicit"));
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"triggers\":{"
	                        "\"explicit\":-1}}",
	                   &r, &e) != 0);
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"triggers\":{"
	                        "\"explicit\":1,\"explicit\":2}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "duplicate key"));
}

int main(void)
{
	struct census_report r;
	struct err e;

	CHECK(census_parse(HEAD
	                   "\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":4096,"
	                   "\"major_collections\":3,\"from_the_future\":1},"
	                   "\"memory\":{\"vm_hwm_bytes\":1048576},\"premise\":{\"met\":false,"
	                   "\"text\":\"no gc\"},"
	                   "\"unknown_field\":[1,2]}",
	                   &r, &e) == 0);
	CHECK_STR(r.checksum, "0x00000000000000ff");
	CHECK(*metric_set_get(&r.metrics, "census.alloc_bytes") == 4096);
	CHECK(*metric_set_get(&r.metrics, "census.major_collections") == 3);
	CHECK(*metric_set_get(&r.metrics, "memory.vm_hwm_bytes") == 1048576);
	/* Unknown counters are ignored, and absent ones stay absent (never a fake zero). */
	CHECK(metric_set_get(&r.metrics, "census.from_the_future") == NULL);
	CHECK(metric_set_get(&r.metrics, "census.promoted_bytes") == NULL);
	CHECK(r.premise_state == 0);
	CHECK_STR(r.premise_text, "no gc");
	census_report_release(&r);

	CHECK(census_parse("{\"format\":\"gcr-census\"", &r, &e) != 0);
	CHECK(strstr(e.msg, "census:1:23: not valid JSON: expected ',' or '}'"));
	CHECK(census_parse("{\"format\":\"other\",\"version\":1}", &r, &e) != 0);
	CHECK(strstr(e.msg, "census: format: must be \"gcr-census\", got \"other\""));
	CHECK(census_parse("{\"version\":1}", &r, &e) != 0);
	CHECK(strstr(e.msg, "census: format: is missing"));
	CHECK(census_parse("{\"format\":\"gcr-census\",\"version\":2}", &r, &e) != 0);
	CHECK(strstr(e.msg, "census: version: must be 1 (the version this harness reads), got 2"));
	CHECK(census_parse("{\"format\":\"gcr-census\",\"version\":\"1\"}", &r, &e) != 0);
	CHECK(strstr(e.msg, "census: version: not a number"));
	CHECK(census_parse("{\"format\":\"gcr-census\"}", &r, &e) != 0);
	CHECK(strstr(e.msg, "census: version: is missing"));
	CHECK(census_parse(HEAD "\"checksum\":\"0x12\"}", &r, &e) != 0);
	CHECK(strstr(e.msg, "census: checksum: must be \"0x\" and 16 lowercase hex digits"));
	CHECK(census_parse(HEAD "\"census\":{}}", &r, &e) != 0);
	CHECK(strstr(e.msg, "census: checksum: is missing"));
	CHECK(census_parse(HEAD
	                   "\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":-1}}",
	                   &r, &e) != 0);
	CHECK(strstr(
	    e.msg,
	    "census: census.alloc_bytes: must be a non-negative integer below 2^53, got -1"));
	CHECK(census_parse(HEAD
	                   "\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":1.5}}",
	                   &r, &e) != 0);
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"census\":[1]}", &r, &e) !=
	      0);
	CHECK(strstr(e.msg, "census: census: must be an object of counters"));
	CHECK(census_parse(HEAD
	                   "\"checksum\":\"0x00000000000000ff\",\"premise\":{\"met\":\"yes\"}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "premise.met"));
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"premise\":{\"met\":true,"
	                        "\"text\":7}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "census: premise.text: must be a string"));

	test_strict();
	test_read();
	test_check_run();
	test_pauses();
	test_triggers();
	test_unknown_keys();
	test_exact_integers();
	test_check_build();
	CHECK(census_checksum_valid("0x0123456789abcdef"));
	CHECK(!census_checksum_valid("0x0123456789ABCDEF"));
	CHECK(!census_checksum_valid("0x0123456789abcde"));
	CHECK(!census_checksum_valid("123456789abcdef01"));
	return unit_done("test_census");
}
