/*
 * baseline pin and update as policy (pin.h), on synthetic runs with known answers: which class
 * each cell gets from what the build says it does and from what its pinning runs did, the
 * widening and its evidence, validate's refusal of an exact cell whose runs differ, and the
 * update plan. Randomised: a census that jitters by +-1, pinned from 15 runs and checked ten
 * times, never fails; prints its seed and takes it back (test_pin SEED).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "heapgate.h"
#include "pin.h"
#include "unit.h"

struct runs {
	struct store_run *r;
	size_t n;
};

static struct store_run *add_run(struct runs *rs, int64_t session, const char *probe,
                                 enum run_kind kind)
{
	struct store_run *r;

	rs->r = xrealloc(rs->r, (rs->n + 1) * sizeof *rs->r);
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof *r);
	r->session_id = session;
	r->probe = xstrdup(probe);
	r->size = xstrdup("ci");
	r->kind = kind;
	r->status = RUN_STATUS_OK;
	r->checksum = xstrdup("0x00000000000000aa");
	r->premise = RUN_PREMISE_MET;
	return r;
}

static uint64_t rng_state;

UTIL_WRAPS_ON_PURPOSE
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/*
 * Five timed runs in each of `sessions` sessions and one valgrind run per session: alloc_bytes
 * always 1000, major collections 4 plus `jitter` (a value from -jitter to +jitter), RSS from
 * 10 MB up to 100 KiB more, Ir 5,000,000 plus the session's padding (100 per session).
 */
static void add_sample(struct runs *rs, int sessions, int jitter)
{
	for (int s = 1; s <= sessions; s++) {
		struct store_run *v;
		for (int i = 0; i < 5; i++) {
			struct store_run *r = add_run(rs, s, "01_a", RUN_KIND_TIMED);
			int j = jitter ? (int)(rng() % (uint64_t)(2 * jitter + 1)) - jitter : 0;
			metric_set_add(&r->metrics, "census.alloc_bytes", 1000);
			metric_set_add(&r->metrics, "census.major_collections", 4 + j);
			metric_set_add(&r->metrics, "rss.peak_bytes",
			               10e6 + (double)(rng() % (100 * 1024)));
			metric_set_add(&r->metrics, "time.wall_ns", 1e6 + (double)(rng() % 100000));
		}
		v = add_run(rs, s, "01_a", RUN_KIND_VALGRIND);
		metric_set_add(&v->metrics, "valgrind.ir", 5e6 + 100 * s);
	}
}

static void runs_release(struct runs *rs)
{
	store_runs_release(rs->r, rs->n);
	rs->r = NULL;
	rs->n = 0;
}

/* Fills what pin.h leaves to the verb, so that baseline_check can pass. */
static void identity(struct baseline *b)
{
	b->profile = xstrdup("shared_ci");
	b->collector = xstrdup("jitter");
	b->collector_version = xstrdup("1.0");
	b->git_commit = xstrdup("none");
	b->host_fingerprint = xstrdup("00ff");
	b->hostname = xstrdup("h");
	b->pinned_at = xstrdup("2026-12-02T00:00:00Z");
	b->session = 3;
	b->size = xstrdup("ci");
	b->repeats = 5;
}

static const struct baseline_override *override_of(const struct baseline *b, const char *metric)
{
	for (size_t i = 0; i < b->noverrides; i++)
		if (strcmp(b->overrides[i].metric, metric) == 0)
			return &b->overrides[i];
	return NULL;
}

/* A precise build that repeats itself: exact census cells, nothing widened. */
static void test_exact(void)
{
	static const struct caps precise = {1, CAPS_COLLECTS | CAPS_PRECISE, 0};
	struct runs rs = {0};
	struct baseline b = {0};
	struct pin_input in = {"shared_ci", &precise, NULL, 0, NULL};
	struct strlist notes = {0};
	struct baseline_cell *c;
	struct err e;

	add_sample(&rs, 3, 0);
	in.runs = rs.r;
	in.nruns = rs.n;
	CHECK(pin_derive(&in, &b, &notes, &e) == 0);
	identity(&b);
	CHECK(baseline_check(&b, &e) == 0);
	CHECK(baseline_check_spread(&b, &e) == 0);
	CHECK(b.nprobes == 1 && b.ncells == 5);
	c = baseline_cell_find(&b, "01_a", "census.major_collections");
	CHECK(c && c->n == 15 && c->sessions == 3 && c->min == 4 && c->max == 4);
	CHECK(baseline_rule_for(&b, "census.major_collections")->cls == BASELINE_CLASS_EXACT);
	/* Ir moved 200 with the padding: well inside 1%, not widened. */
	c = baseline_cell_find(&b, "01_a", "valgrind.ir");
	CHECK(c && c->n == 3 && c->max - c->min == 200);
	CHECK(!override_of(&b, "valgrind.ir") && !override_of(&b, "census.major_collections"));
	CHECK(notes.n == 0);
	/* The valgrind runs kept no functions: the baseline keeps none. */
	CHECK(b.nfunctions == 0 && baseline_functions_of(&b, "01_a") == NULL);
	strlist_release(&notes);
	baseline_release(&b);
	runs_release(&rs);
}

/*
 * Where the pinning runs' instructions went (issue 26, item 3): each function's median over
 * the valgrind runs, the BASELINE_FUNCTIONS_TOP largest, the probe's Ir their runs' median.
 */
static void test_functions(void)
{
	static const struct caps precise = {1, CAPS_COLLECTS | CAPS_PRECISE, 0};
	struct runs rs = {0};
	struct baseline b = {0};
	struct pin_input in = {"shared_ci", &precise, NULL, 0, NULL};
	const struct fnprof *p;
	struct err e;
	char name[32];

	add_sample(&rs, 3, 0);
	for (size_t i = 0, s = 0; i < rs.n; i++) {
		if (rs.r[i].kind != RUN_KIND_VALGRIND)
			continue;
		s++;
		/* 30 functions; the largest moves with the session (+10 each). */
		for (int k = 0; k < 30; k++) {
			snprintf(name, sizeof name, "f%02d", k);
			fnprof_add(&rs.r[i].functions, name, "a.c",
			           1e5 - 1000 * k + (k ? 0 : 10.0 * (double)s));
		}
		rs.r[i].functions.total_ir = *metric_set_get(&rs.r[i].metrics, "valgrind.ir");
	}
	in.runs = rs.r;
	in.nruns = rs.n;
	CHECK(pin_derive(&in, &b, NULL, &e) == 0);
	identity(&b);
	CHECK(baseline_check(&b, &e) == 0);
	p = baseline_functions_of(&b, "01_a");
	CHECK(p && p->n == BASELINE_FUNCTIONS_TOP && p->total_ir == 5e6 + 200);
	CHECK(p && strcmp(p->fns[0].name, "f00") == 0 && p->fns[0].ir == 1e5 + 20);
	CHECK(p && strcmp(p->fns[19].name, "f19") == 0);
	baseline_release(&b);
	runs_release(&rs);
}

/*
 * A JIT stand-in: a precise build whose collection count jitters by +-1. Pin sees it and judges
 * it by its distribution: the override keeps the pinning runs' evidence, the cell its runs;
 * ten checks of fresh runs never regress; and an exact class written back over it by hand is
 * what validate refuses.
 */
static void test_jitter(void)
{
	static const struct caps precise = {1, CAPS_COLLECTS | CAPS_PRECISE, 0};
	struct runs rs = {0};
	struct baseline b = {0};
	struct pin_input in = {"shared_ci", &precise, NULL, 0, NULL};
	struct strlist notes = {0};
	const struct baseline_override *o;
	struct baseline_rule *r;
	struct err e;

	add_sample(&rs, 3, 1);
	/* The pin saw both ends of the jitter (15 runs miss one 0.7% of the time). */
	*(double *)metric_set_get(&rs.r[0].metrics, "census.major_collections") = 3;
	*(double *)metric_set_get(&rs.r[1].metrics, "census.major_collections") = 5;
	in.runs = rs.r;
	in.nruns = rs.n;
	CHECK(pin_derive(&in, &b, &notes, &e) == 0);
	identity(&b);
	CHECK(baseline_check(&b, &e) == 0 && baseline_check_spread(&b, &e) == 0);
	o = override_of(&b, "census.major_collections");
	CHECK(o && o->rule.cls == BASELINE_CLASS_DIST && !o->widened_for_noise);
	/* The band is the least shift worth reporting, not twice the spread. */
	CHECK(o && o->evidence_runs == 15 && o->rule.band_pct == BASELINE_DIST_MIN_PCT &&
	      o->rule.band_abs == 0);
	CHECK(baseline_cell_find(&b, "01_a", "census.major_collections")->nruns == 15);
	CHECK(baseline_cell_find(&b, "01_a", "census.alloc_bytes")->nruns == 0);
	CHECK(o && strstr(o->rationale, "over 15 runs in 3 sessions"));
	CHECK(notes.n >= 1 && strstr(notes.items[0], "census.major_collections"));
	/* The exact alloc_bytes stays exact beside it. */
	CHECK(!override_of(&b, "census.alloc_bytes"));

	for (int k = 0; k < 10; k++) {
		struct runs check = {0};
		struct check_input ci = {0};
		struct check_result res;
		struct store_session si = {0};
		struct store_build build = {0};
		add_sample(&check, 1, 1);
		si.status = (char *)"complete";
		si.host_fingerprint = (char *)"00ff";
		build.collector_version = (char *)"1.0";
		ci.baseline = &b;
		ci.session = &si;
		ci.build = &build;
		ci.runs = check.r;
		ci.nruns = check.n;
		check_judge(&ci, &res);
		CHECK(res.regressed == 0 && res.verdict == CHECK_VERDICT_OK);
		check_result_release(&res);
		runs_release(&check);
	}

	/* Edited by hand to exact, with its override gone: runs 3 to 5 are not exact. */
	for (size_t i = 0; i < b.noverrides; i++)
		if (strcmp(b.overrides[i].metric, "census.major_collections") == 0) {
			free(b.overrides[i].probe);
			free(b.overrides[i].metric);
			free(b.overrides[i].rationale);
			b.overrides[i] = b.overrides[--b.noverrides];
		}
	r = (struct baseline_rule *)baseline_rule_for(&b, "census.major_collections");
	r->cls = BASELINE_CLASS_EXACT;
	r->band_pct = r->band_abs = 0;
	CHECK(baseline_check(&b, &e) == 0);
	CHECK(baseline_check_spread(&b, &e) != 0);
	CHECK(strstr(e.msg, "class exact, but its 15 pinning runs differ (3 to 5)") != NULL);
	strlist_release(&notes);
	baseline_release(&b);
	runs_release(&rs);
}

/*
 * A share that varies (MMU from 0.60 to 0.90) is judged by its distribution, with its rule's
 * band as the least shift worth reporting: never a band rounded up to 1, which would pass any
 * MMU at all.
 */
static void test_ratio(void)
{
	static const struct caps precise = {1, CAPS_COLLECTS | CAPS_PRECISE, 0};
	struct runs rs = {0};
	struct baseline b = {0};
	struct pin_input in = {"pinned_host", &precise, NULL, 0, NULL};
	const struct baseline_override *o;
	struct err e;

	for (int i = 0; i < 7; i++) {
		struct store_run *r = add_run(&rs, 1, "01_a", RUN_KIND_TIMED);
		metric_set_add(&r->metrics, "census.mmu_10ms", 0.60 + 0.05 * i);
	}
	in.runs = rs.r;
	in.nruns = rs.n;
	CHECK(pin_derive(&in, &b, NULL, &e) == 0);
	o = override_of(&b, "census.mmu_10ms");
	CHECK(o && o->rule.cls == BASELINE_CLASS_DIST);
	CHECK(o && o->rule.band_abs < 0.1);
	baseline_release(&b);
	runs_release(&rs);
}

/* Facts, not names: a conservative build's counts and RSS are distributions, its live set info. */
static void test_facts(void)
{
	static const struct caps conservative = {1, CAPS_COLLECTS, 0};
	struct runs rs = {0};
	struct baseline b = {0};
	struct pin_input in = {"shared_ci", &conservative, NULL, 0, NULL};
	struct err e;

	add_sample(&rs, 2, 0);
	metric_set_add(&rs.r[0].metrics, "census.heap_used_after_full_bytes", 8192);
	in.runs = rs.r;
	in.nruns = rs.n;
	CHECK(pin_derive(&in, &b, NULL, &e) == 0);
	CHECK(baseline_rule_for(&b, "census.major_collections")->cls == BASELINE_CLASS_DIST);
	CHECK(baseline_rule_for(&b, "rss.peak_bytes")->cls == BASELINE_CLASS_DIST);
	/* A distribution cell keeps the runs check compares a session with. */
	CHECK(baseline_cell_find(&b, "01_a", "census.major_collections")->nruns >= 2);
	identity(&b);
	CHECK(baseline_check(&b, &e) == 0);
	CHECK(baseline_rule_for(&b, "census.alloc_bytes")->cls == BASELINE_CLASS_EXACT);
	CHECK(!baseline_rule_for(&b, "census.heap_used_after_full_bytes")->gated);
	baseline_release(&b);

	/* A failed run, or two results, and nothing is pinned. */
	rs.r[1].status = RUN_STATUS_CRASHED;
	CHECK(pin_derive(&in, &b, NULL, &e) != 0 && strstr(e.msg, "crashed"));
	baseline_release(&b);
	rs.r[1].status = RUN_STATUS_OK;
	free(rs.r[2].checksum);
	rs.r[2].checksum = xstrdup("0x00000000000000bb");
	CHECK(pin_derive(&in, &b, NULL, &e) != 0 && strstr(e.msg, "two checksums"));
	baseline_release(&b);
	runs_release(&rs);
}

/* The update plan: tighten what improved, loosen only with a reason, leave the unjudged. */
static void test_update(void)
{
	static const struct caps precise = {1, CAPS_COLLECTS | CAPS_PRECISE, 0};
	struct runs rs = {0}, now = {0};
	struct baseline b = {0};
	struct pin_input in = {"shared_ci", &precise, NULL, 0, NULL};
	struct check_input ci = {0};
	struct check_result res;
	struct store_session si = {0};
	struct store_build build = {0};
	struct pin_update_plan plan;
	struct err e;
	size_t changed;

	add_sample(&rs, 1, 0);
	in.runs = rs.r;
	in.nruns = rs.n;
	CHECK(pin_derive(&in, &b, NULL, &e) == 0);
	identity(&b);
	/* The new session: fewer collections (improved), more allocation (regressed). */
	add_sample(&now, 1, 0);
	for (size_t i = 0; i < now.n; i++) {
		double *v = (double *)metric_set_get(&now.r[i].metrics, "census.major_collections");
		double *a = (double *)metric_set_get(&now.r[i].metrics, "census.alloc_bytes");
		if (v)
			*v = 3;
		if (a)
			*a = 1100;
	}
	si.status = (char *)"complete";
	si.host_fingerprint = (char *)"00ff";
	build.collector_version = (char *)"1.0";
	ci.baseline = &b;
	ci.session = &si;
	ci.build = &build;
	ci.runs = now.r;
	ci.nruns = now.n;
	check_judge(&ci, &res);
	pin_update_plan(&res, &b, 0, &plan);
	CHECK(plan.tightened == 1 && plan.refused == 1 && plan.loosened == 0);
	pin_update_plan_release(&plan);
	pin_update_plan(&res, &b, 1, &plan);
	CHECK(plan.tightened == 1 && plan.refused == 0 && plan.loosened == 1);
	changed = pin_update_apply(&plan, &b, now.r, now.n, "bigger objects", NULL,
	                           "2026-12-02T00:00:00Z", "t");
	CHECK(changed == 2 && b.nledger == 1);
	CHECK(baseline_cell_find(&b, "01_a", "census.major_collections")->median == 3);
	CHECK(b.ledger[0].old_value == 1000 && b.ledger[0].new_value == 1100);
	CHECK(baseline_check(&b, &e) == 0);
	pin_update_plan_release(&plan);
	check_result_release(&res);
	baseline_release(&b);
	runs_release(&rs);
	runs_release(&now);
}

/*
 * pin --minheap of a build whose search was unsteady: the widened band goes on each
 * minimum-heap cell as an override with the search as evidence, never on the rule (a rule
 * looser than pin's own is refused), and what pin writes validates. The rule was widened
 * in place before, with class exact, and baseline_check refused to write it.
 */
static void test_minheap_unsteady(void)
{
	static const struct caps caps = {1, CAPS_COLLECTS, 0};
	struct heapgate_info info = {1, 0, 1, 3, 9};
	struct runs rs = {0};
	struct baseline b = {0};
	struct pin_input in = {"shared_ci", &caps, NULL, 0, &info};
	const struct baseline_override *o;
	struct strlist notes = {0};
	struct err e;

	for (int i = 0; i < 3; i++) {
		struct store_run *r = add_run(&rs, 1, "01_a", RUN_KIND_TIMED);
		metric_set_add(&r->metrics, "census.alloc_bytes", 1000);
		metric_set_add(&r->metrics, HEAPGATE_METRIC, 14);
	}
	in.runs = rs.r;
	in.nruns = rs.n;
	CHECK(pin_derive(&in, &b, &notes, &e) == 0);
	identity(&b);
	CHECK(baseline_rule_for(&b, HEAPGATE_METRIC)->cls == BASELINE_CLASS_EXACT);
	CHECK(baseline_rule_for(&b, HEAPGATE_METRIC)->band_abs == 0);
	o = override_of(&b, HEAPGATE_METRIC);
	CHECK(o && o->rule.band_abs == 3 && o->rule.cls == BASELINE_CLASS_BANDED);
	CHECK(o && o->evidence_runs == 9 && o->evidence_spread_pct > 0);
	CHECK(baseline_validate(&b, &e) == 0);
	if (baseline_validate(&b, &e) != 0)
		fprintf(stderr, "  %s\n", e.msg);
	CHECK(notes.n == 1 && strstr(notes.items[0], "unsteady at 1 boundary"));
	strlist_release(&notes);
	baseline_release(&b);
	runs_release(&rs);
}

int main(int argc, char **argv)
{
	const char *env = getenv("GCR_TEST_SEED");
	uint64_t seed = argc > 1      ? strtoull(argv[1], NULL, 10)
	                : env && *env ? strtoull(env, NULL, 10)
	                              : (uint64_t)time(NULL);

	if (seed == 0)
		seed = 1;
	printf("test_pin: seed %" PRIu64 " (repeat with: test_pin %" PRIu64 ")\n", seed, seed);
	rng_state = seed;
	test_exact();
	test_functions();
	test_jitter();
	test_ratio();
	test_facts();
	test_update();
	test_minheap_unsteady();
	return unit_done("test_pin");
}
