/*
 * test_judge.c — what check, ratchet and baseline update judge with is what the store holds:
 * judge_baseline_load refuses a missing file (ERR_NOT_FOUND, for the caller's "pin one first")
 * and a file of another profile, naming the file; judge_open and judge_load_arm read one arm's
 * runs (and a --base arm's), its knobs as sorted NAME=VALUE, its capabilities from the census
 * record or else from the manifest; judge_check_input hands exactly those to check_judge.
 */
#include <stdlib.h>
#include <unistd.h>

#include "judge.h"
#include "store.h"
#include "unit.h"
#include "util.h"

static char dir[] = "/tmp/gcratchet-test-judge.XXXXXX";

static void test_baseline_load(void)
{
	struct baseline b;
	struct err e = ERR_INIT;

	/* The suite runs unit tests from the top of the tree: a committed baseline. */
	CHECK(judge_baseline_load("baselines/shared_ci/gen.json", "shared_ci", &b, &e) == 0);
	if (e.code == ERR_NONE) {
		CHECK_STR(b.profile, "shared_ci");
		baseline_release(&b);
	}
	e = (struct err)ERR_INIT;
	CHECK(judge_baseline_load("baselines/shared_ci/gen.json", "pinned_host", &b, &e) != 0);
	CHECK(e.code == ERR_INVALID);
	CHECK(strstr(e.msg, "baselines/shared_ci/gen.json: profile is \"shared_ci\", not "
	                    "\"pinned_host\"") != NULL);
	/* No profile asked: any profile's file. */
	e = (struct err)ERR_INIT;
	CHECK(judge_baseline_load("baselines/shared_ci/gen.json", NULL, &b, &e) == 0);
	if (e.code == ERR_NONE)
		baseline_release(&b);
	e = (struct err)ERR_INIT;
	CHECK(judge_baseline_load("baselines/shared_ci/nosuch.json", "shared_ci", &b, &e) != 0);
	CHECK(e.code == ERR_NOT_FOUND);
	CHECK(strstr(e.msg, "nosuch.json") != NULL);
}

static void test_run(struct store *st, int64_t session, int64_t build, int arm, int seq,
                     double alloc)
{
	struct metric_set m = {0};
	struct run_record r;
	struct err e = ERR_INIT;
	int64_t id;

	memset(&r, 0, sizeof r);
	metric_set_add(&m, "census.alloc_bytes", alloc);
	r.session_id = session;
	r.build_id = build;
	r.probe = "01_a";
	r.size = "ci";
	r.round = seq;
	r.seq = seq;
	r.arm = arm;
	r.kind = RUN_KIND_TIMED;
	r.status = RUN_STATUS_OK;
	r.checksum = "0x00000000000000aa";
	r.stderr_tail = "";
	r.started_at = "2026-01-01T00:00:01Z";
	r.metrics = &m;
	CHECK(store_run_insert(st, &r, &id, &e) == 0);
	metric_set_release(&m);
}

/* A session of two arms: arm 0 (build "base", no census capabilities, knobs) and arm 1. */
static void test_inputs(void)
{
	char *path = xasprintf("%s/judge.db", dir);
	struct store *st = NULL;
	struct store_build a = {0}, b = {0};
	struct store_session si;
	struct judge_inputs in;
	struct check_input ci;
	struct baseline bl;
	struct err e = ERR_INIT;
	char *recorded = NULL;
	int64_t host, ida, idb, session = 0;

	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	if (!st) {
		fprintf(stderr, "%s\n", e.msg);
		free(path);
		return;
	}
	CHECK(store_host(st, "00000000000000aa", "testhost", "{}", &host, &e) == 0);
	a.name = (char *)"base";
	a.collector = (char *)"gen";
	a.manifest_hash = (char *)"h1";
	CHECK(store_build_upsert(st, &a,
	                         "{\"format\":\"gcratchet-build\",\"version\":2,\"name\":\"base\","
	                         "\"capabilities\":[\"collects\",\"precise\",\"moving\"]}",
	                         &ida, &e) == 0);
	b.name = (char *)"fix";
	b.collector = (char *)"gen";
	b.manifest_hash = (char *)"h2";
	CHECK(store_build_upsert(st, &b,
	                         "{\"format\":\"gcratchet-build\",\"version\":2,\"name\":\"fix\","
	                         "\"capabilities\":[\"collects\",\"precise\"]}",
	                         &idb, &e) == 0);
	/* What fix's census said: it wins over its manifest's. */
	CHECK(store_build_capabilities(st, idb, "[\"collects\",\"clock_paced\"]", &recorded, &e) ==
	      0);
	free(recorded);
	memset(&si, 0, sizeof si);
	si.host_id = host;
	si.command = (char *)"gcratchet ab";
	si.started_at = (char *)"2026-01-01T00:00:00Z";
	si.seed = 1;
	si.size = (char *)"ci";
	si.rounds = 2;
	si.probes = (char *)"01_a";
	si.meters = (char *)"rusage,census";
	CHECK(store_session_begin(st, &si, &session, &e) == 0);
	CHECK(store_session_add_arm(st, session, 0, ida, "base",
	                            "{\"GCR_NURSERY_KB\":\"16384\",\"GCR_HEAP_MB\":\"64\"}",
	                            &e) == 0);
	CHECK(store_session_add_arm(st, session, 1, idb, "fix", NULL, &e) == 0);
	test_run(st, session, ida, 0, 1, 1000);
	test_run(st, session, idb, 1, 2, 2000);
	test_run(st, session, ida, 0, 3, 1000);
	CHECK(store_session_end(st, session, "complete", 0.1, &e) == 0);

	CHECK(judge_open(st, session, &in, &e) == 0);
	CHECK(in.session.id == session && in.nbuilds == 2);
	if (in.nbuilds == 2) {
		/* Arm 0 judged alone: its runs only, its knobs sorted, caps from its manifest. */
		CHECK(judge_load_arm(st, &in, &in.builds[0], NULL, &e) == 0);
		CHECK(in.build == &in.builds[0] && in.base == NULL);
		CHECK(in.nruns == 2 && in.nbase_runs == 0);
		for (size_t i = 0; i < in.nruns; i++)
			CHECK(in.runs[i].arm == 0 && in.runs[i].build_id == ida);
		CHECK(in.knobs.n == 2);
		if (in.knobs.n == 2) {
			CHECK_STR(in.knobs.items[0], "GCR_HEAP_MB=64");
			CHECK_STR(in.knobs.items[1], "GCR_NURSERY_KB=16384");
		}
		CHECK(in.caps.known &&
		      in.caps.flags == (CAPS_COLLECTS | CAPS_PRECISE | CAPS_MOVING));
		judge_release(&in);
	}

	CHECK(judge_open(st, session, &in, &e) == 0);
	if (in.nbuilds == 2) {
		/* Arm 1 against arm 0 (check --base): both arms' runs; the census's caps win. */
		CHECK(judge_load_arm(st, &in, &in.builds[1], &in.builds[0], &e) == 0);
		CHECK(in.nruns == 1 && in.nbase_runs == 2);
		CHECK(in.nruns == 1 && in.runs[0].arm == 1);
		CHECK(in.knobs.n == 0);
		CHECK(in.caps.known && in.caps.flags == (CAPS_COLLECTS | CAPS_CLOCK_PACED));
		memset(&bl, 0, sizeof bl);
		judge_check_input(&in, &bl, 1, &ci);
		CHECK(ci.baseline == &bl && ci.session == &in.session && ci.build == &in.builds[1]);
		CHECK(ci.runs == in.runs && ci.nruns == 1);
		CHECK(ci.base_runs == in.base_runs && ci.nbase_runs == 2);
		CHECK(ci.strict == 1 && ci.caps == &in.caps && ci.knobs == &in.knobs);
		CHECK(ci.thp == &in.thp && ci.toolchain == &in.toolchain);
		/* Without a base arm, no base runs reach the check, whatever the inputs hold. */
		in.base = NULL;
		judge_check_input(&in, &bl, 0, &ci);
		CHECK(ci.base_runs == NULL && ci.nbase_runs == 0 && ci.strict == 0);
		judge_release(&in);
		CHECK(in.runs == NULL && in.builds == NULL && in.knobs.n == 0);
	}
	e = (struct err)ERR_INIT;
	CHECK(judge_open(st, session + 7, &in, &e) != 0);
	CHECK(e.code == ERR_NOT_FOUND);
	store_close(st);
	free(path);
}

int main(void)
{
	char *rm;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_baseline_load();
	test_inputs();
	rm = xasprintf("rm -rf '%s'", dir);
	CHECK(system(rm) == 0);
	free(rm);
	return unit_done("test_judge");
}
