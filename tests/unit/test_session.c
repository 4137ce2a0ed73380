/*
 * test_session.c — the pure parts of a session: the per-round shuffle (a permutation,
 * reproducible from the seed, different across rounds), a knob's check (NAME=VALUE, a name of
 * [A-Z][A-Z0-9_]*, not the harness's own), which GCR_* variables may be a collector's knob, a
 * knob set over an earlier one of its name, and the knobs as the JSON the store records.
 */
#include <stdlib.h>

#include "session.h"
#include "unit.h"

static void test_shuffle(uint64_t seed)
{
	size_t a[14], b[14], c[14];
	int differs = 0, first_differs = 0;

	for (int round = 0; round < 50; round++) {
		int seen[14] = {0}, ok = 1;
		session_shuffle(seed, round, 14, a);
		session_shuffle(seed, round, 14, b);
		session_shuffle(seed, round + 1, 14, c);
		for (int i = 0; i < 14; i++) {
			ok &= a[i] < 14 && !seen[a[i]]++;
			ok &= a[i] == b[i];
			differs |= a[i] != c[i];
		}
		CHECK(ok);
		first_differs |= a[0] != 0;
	}
	CHECK(differs);
	CHECK(first_differs);
	session_shuffle(seed, 0, 1, a);
	CHECK(a[0] == 0);
	/* No probes: nothing written (a shuffle of none must not touch the array). */
	a[0] = 77;
	session_shuffle(seed, 0, 0, a);
	CHECK(a[0] == 77);
}

static void test_knob_check(void)
{
	struct err e = ERR_INIT;

	CHECK(session_knob_check("--knob", "GCR_NURSERY_KB=16384", &e) == 0);
	CHECK(session_knob_check("--knob", "MY_GC_2=", &e) == 0); /* an empty value is a value */
	CHECK(session_knob_check("--knob", "GCR_NURSERY_KB", &e) != 0);
	CHECK(e.code == ERR_INVALID);
	CHECK_STR(e.msg, "--knob must be NAME=VALUE, got \"GCR_NURSERY_KB\"");
	CHECK(session_knob_check("--knob", "gcr_x=1", &e) != 0);
	CHECK_STR(e.msg, "--knob: knob name \"gcr_x\" must match [A-Z][A-Z0-9_]*");
	CHECK(session_knob_check("--knob", "=1", &e) != 0);
	CHECK(session_knob_check("--knob", "1GCR=1", &e) != 0);
	CHECK(session_knob_check("--knob", "GCR-X=1", &e) != 0);
	CHECK(session_knob_check("--knob", "GCR_CENSUS_FD=3", &e) != 0);
	CHECK_STR(e.msg, "--knob: GCR_CENSUS_FD is set by the harness, not a knob");
	CHECK(session_knob_check("--knob", "GCR_ENV_PAD=x", &e) != 0);
	/* Only those names: a longer one that starts alike is a knob. */
	CHECK(session_knob_check("--knob", "GCR_CENSUS_FD2=3", &e) == 0);
}

static void test_env_knobs(void)
{
	CHECK(session_env_knob_candidate("GCR_NURSERY_KB=16384"));
	CHECK(session_env_knob_candidate("GCR_HEAP_MB=64"));
	CHECK(!session_env_knob_candidate("GCR_DB=/tmp/x.db"));
	CHECK(!session_env_knob_candidate("GCR_LOCK_FILE=/tmp/l"));
	CHECK(!session_env_knob_candidate("GCR_TEST_STORE_FAIL=3"));
	CHECK(!session_env_knob_candidate("HOME=/root"));
	CHECK(!session_env_knob_candidate("XGCR_NURSERY_KB=1"));
	/* The whole name is compared: GCR_DB's prefix does not hide GCR_DBX. */
	CHECK(session_env_knob_candidate("GCR_DBX=1"));
}

static void test_knob_set(void)
{
	struct strlist k = {0};
	char *json;

	CHECK(session_knobs_json(&k) == NULL);
	CHECK(session_knobs_json(NULL) == NULL);
	session_knob_set(&k, "GCR_NURSERY_KB=16384");
	session_knob_set(&k, "GCR_HEAP_MB=64");
	session_knob_set(&k, "GCR_NURSERY_KB=512");
	/* GCR_NURSERY is another name, though a prefix of the first. */
	session_knob_set(&k, "GCR_NURSERY=1");
	CHECK(k.n == 3);
	if (k.n == 3) {
		CHECK_STR(k.items[0], "GCR_NURSERY_KB=512");
		CHECK_STR(k.items[1], "GCR_HEAP_MB=64");
		CHECK_STR(k.items[2], "GCR_NURSERY=1");
	}
	json = session_knobs_json(&k);
	CHECK(json && strcmp(json, "{\"GCR_NURSERY_KB\":\"512\",\"GCR_HEAP_MB\":\"64\","
	                           "\"GCR_NURSERY\":\"1\"}") == 0);
	free(json);
	strlist_release(&k);
	/* A value with an = in it keeps it; one with a quote is escaped. */
	session_knob_set(&k, "GCR_FLAGS=a=b \"c\"");
	json = session_knobs_json(&k);
	CHECK(json && strcmp(json, "{\"GCR_FLAGS\":\"a=b \\\"c\\\"\"}") == 0);
	free(json);
	strlist_release(&k);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 12345;

	printf("test_session: seed %llu (pass a seed as the first argument to repeat)\n",
	       (unsigned long long)seed);
	test_shuffle(seed);
	test_knob_check();
	test_env_knobs();
	test_knob_set();
	return unit_done("test_session");
}
