/* The census object parser: what a probe may send, and what is refused with a named field. */
#include "census.h"
#include "unit.h"

#define HEAD "{\"format\":\"gcr-census\",\"version\":1,\"probe\":\"01_x\",\"collector\":\"c\","

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
	CHECK(strstr(e.msg, "not valid JSON"));
	CHECK(census_parse("{\"format\":\"other\",\"version\":1}", &r, &e) != 0);
	CHECK(strstr(e.msg, "\"format\""));
	CHECK(census_parse("{\"format\":\"gcr-census\",\"version\":2}", &r, &e) != 0);
	CHECK(strstr(e.msg, "\"version\""));
	CHECK(census_parse(HEAD "\"checksum\":\"0x12\"}", &r, &e) != 0);
	CHECK(strstr(e.msg, "\"checksum\""));
	CHECK(census_parse(HEAD "\"census\":{}}", &r, &e) != 0);
	CHECK(strstr(e.msg, "\"checksum\" is missing"));
	CHECK(census_parse(HEAD
	                   "\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":-1}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "census.alloc_bytes"));
	CHECK(census_parse(HEAD
	                   "\"checksum\":\"0x00000000000000ff\",\"census\":{\"alloc_bytes\":1.5}}",
	                   &r, &e) != 0);
	CHECK(census_parse(HEAD "\"checksum\":\"0x00000000000000ff\",\"census\":[1]}", &r, &e) !=
	      0);
	CHECK(strstr(e.msg, "\"census\" must be an object"));
	CHECK(census_parse(HEAD
	                   "\"checksum\":\"0x00000000000000ff\",\"premise\":{\"met\":\"yes\"}}",
	                   &r, &e) != 0);
	CHECK(strstr(e.msg, "premise.met"));

	CHECK(census_checksum_valid("0x0123456789abcdef"));
	CHECK(!census_checksum_valid("0x0123456789ABCDEF"));
	CHECK(!census_checksum_valid("0x0123456789abcde"));
	CHECK(!census_checksum_valid("123456789abcdef01"));
	return unit_done("test_census");
}
