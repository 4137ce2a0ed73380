/*
 * test_compare.c — the A/B comparison on made-up sessions with known answers: the census is
 * judged within one design and is context across two (by the collector names, or as asked),
 * a planted cost decides either way, a probe gone inert in one arm has no cell judged, and a
 * failed run says the first line of its stderr.
 */
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "unit.h"
#include "util.h"

#define ROUNDS 3

/* What one arm's runs of probe 01_p report, the same in every round but for time. */
struct arm_plan {
	const char *collector;
	double major_collections, vm_hwm_bytes;
	enum run_status status;
	const char *detail, *stderr_tail;
	enum run_premise premise;
	const char *premise_text;
};

static void session_init(struct report_data *d, const struct arm_plan plan[2])
{
	memset(d, 0, sizeof *d);
	d->session.id = 1;
	d->session.status = xstrdup("complete");
	d->session.size = xstrdup("ci");
	d->session.rounds = ROUNDS;
	strlist_push(&d->probes, "01_p");
	d->nbuilds = 2;
	d->builds = xcalloc(2, sizeof *d->builds);
	d->nruns = 2 * ROUNDS;
	d->runs = xcalloc(d->nruns, sizeof *d->runs);
	for (int arm = 0; arm < 2; arm++) {
		struct store_build *b = &d->builds[arm];
		b->id = arm + 1;
		b->position = arm;
		b->name = xstrdup(arm ? "fix" : "base");
		b->label = xstrdup(b->name);
		b->collector = xstrdup(plan[arm].collector);
	}
	for (int k = 1; k <= ROUNDS; k++) {
		for (int arm = 0; arm < 2; arm++) {
			const struct arm_plan *p = &plan[arm];
			struct store_run *r = &d->runs[(k - 1) * 2 + arm];
			r->id = (k - 1) * 2 + arm + 1;
			r->build_id = arm + 1;
			r->probe = xstrdup("01_p");
			r->round = k;
			r->arm = arm;
			r->kind = RUN_KIND_TIMED;
			r->status = p->status;
			r->detail = p->detail ? xstrdup(p->detail) : NULL;
			r->stderr_tail = p->stderr_tail ? xstrdup(p->stderr_tail) : NULL;
			r->premise = p->premise;
			r->premise_text = p->premise_text ? xstrdup(p->premise_text) : NULL;
			if (p->status != RUN_STATUS_OK)
				continue;
			r->checksum = xstrdup("0x00000000000000aa");
			/* Time moves from round to round; the rest is deterministic. */
			metric_set_add(&r->metrics, "time.user_ns", 1e6 * (10 + k + arm));
			metric_set_add(&r->metrics, "census.major_collections",
			               p->major_collections);
			metric_set_add(&r->metrics, "memory.vm_hwm_bytes", p->vm_hwm_bytes);
		}
	}
}

static const struct compare_cell *cell_of(const struct compare *c, const char *metric)
{
	for (size_t i = 0; i < c->ncells; i++)
		if (strcmp(c->cells[i].metric, metric) == 0)
			return &c->cells[i];
	return NULL;
}

static struct arm_plan arm_ok(const char *collector, double gcs, double hwm)
{
	struct arm_plan p = {collector, gcs, hwm, RUN_STATUS_OK, NULL, NULL, RUN_PREMISE_MET, NULL};
	return p;
}

static void test_same_design(void)
{
	struct arm_plan plan[2] = {arm_ok("gen", 2, 8e6), arm_ok("gen", 5, 8e6)};
	struct report_data d;
	struct compare c;
	const struct compare_cell *gcs;
	char headline[256];

	session_init(&d, plan);
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_AUTO, &c);
	CHECK(!c.across && c.context == 0);
	CHECK(compare_across_text(&c) == NULL);
	gcs = cell_of(&c, "census.major_collections");
	CHECK(gcs && gcs->stats.verdict == PAIRED_WORSE && !gcs->context);
	CHECK(gcs && strcmp(compare_cell_verdict_text(gcs), "WORSE") == 0);
	CHECK(c.census_exact == 1 && c.census_differ == 1);
	CHECK(c.outcome == COMPARE_WORSE);
	compare_headline(&c, headline, sizeof headline);
	CHECK_STR(headline, "FIX is WORSE on 1 cell");
	compare_release(&c);

	/* --across between builds of one collector: the counter is context. */
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_ACROSS, &c);
	CHECK(c.across && c.mode == COMPARE_MODE_ACROSS && c.context == 1);
	gcs = cell_of(&c, "census.major_collections");
	CHECK(gcs && gcs->context && gcs->stats.verdict == PAIRED_INFO && !gcs->pol.decides);
	CHECK(c.outcome == COMPARE_OK);
	compare_release(&c);
	report_data_release(&d);
}

static void test_across_designs(void)
{
	struct arm_plan plan[2] = {arm_ok("bdw", 0, 8e6), arm_ok("mmc", 56, 8e6)};
	struct report_data d;
	struct compare c;
	const struct compare_cell *gcs, *hwm;
	char headline[256], *why;

	/* Collectors named differently: across designs by themselves. */
	session_init(&d, plan);
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_AUTO, &c);
	CHECK(c.across && c.context == 1 && c.worse == 0);
	gcs = cell_of(&c, "census.major_collections");
	CHECK(gcs && gcs->context && gcs->stats.verdict == PAIRED_INFO && gcs->exact_differs);
	CHECK(gcs && strcmp(compare_cell_verdict_text(gcs), "context") == 0);
	/* Still compared exactly and listed, as context. */
	CHECK(c.census_exact == 1 && c.census_differ == 1 && gcs && compare_census_listed(gcs));
	hwm = cell_of(&c, "memory.vm_hwm_bytes");
	CHECK(hwm && !hwm->context && hwm->stats.verdict == PAIRED_SAME);
	CHECK(c.outcome == COMPARE_OK);
	compare_headline(&c, headline, sizeof headline);
	CHECK_STR(headline, "no difference in costs; across designs, census counters are context");
	why = compare_across_text(&c);
	CHECK(why && strcmp(why, "across designs (the collectors differ: bdw vs mmc): census "
	                         "counters are context, only costs decide") == 0);
	free(why);
	compare_release(&c);

	/* --no-across: one design after all, and 0 -> 56 collections is worse. */
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_SAME, &c);
	CHECK(!c.across && c.context == 0 && c.worse == 1 && c.outcome == COMPARE_WORSE);
	why = compare_across_text(&c);
	CHECK(why && strstr(why, "one design (--no-across, though the collectors differ: bdw vs "
	                         "mmc)") == why);
	free(why);
	compare_release(&c);
	report_data_release(&d);

	/* A cost planted in FIX decides across designs too. */
	plan[1].vm_hwm_bytes = 64e6;
	session_init(&d, plan);
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_AUTO, &c);
	hwm = cell_of(&c, "memory.vm_hwm_bytes");
	CHECK(hwm && hwm->stats.verdict == PAIRED_WORSE);
	CHECK(c.worse == 1 && c.context == 1 && c.outcome == COMPARE_WORSE);
	compare_headline(&c, headline, sizeof headline);
	CHECK_STR(headline, "FIX is WORSE on 1 cell; across designs, census counters are context");
	compare_release(&c);
	report_data_release(&d);
}

static void test_inert(void)
{
	struct arm_plan plan[2] = {arm_ok("gen", 2, 8e6), arm_ok("gen", 0, 8e6)};
	struct report_data d;
	struct compare c;
	const struct compare_cell *gcs;

	plan[1].premise = RUN_PREMISE_NOT_MET;
	plan[1].premise_text = "0 major collections";
	session_init(&d, plan);
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_AUTO, &c);
	CHECK(c.probes[0].fix_inert == ROUNDS && c.probes[0].base_inert == 0);
	CHECK(c.probes[0].fix_premise &&
	      strcmp(c.probes[0].fix_premise, "0 major collections") == 0);
	CHECK(c.inert_probes == 1 && c.inert == (int)c.ncells && c.ncells == 3);
	/* 2 -> 0 collections is no improvement: nothing of the probe is judged. */
	gcs = cell_of(&c, "census.major_collections");
	CHECK(gcs && gcs->inert && strcmp(gcs->inert, "FIX") == 0);
	CHECK(gcs && gcs->stats.verdict == PAIRED_UNJUDGED);
	CHECK(gcs && strcmp(compare_cell_verdict_text(gcs), "inert") == 0);
	CHECK(c.better == 0 && c.worse == 0 && c.census_exact == 0 && c.family == 0);
	CHECK(c.outcome == COMPARE_UNJUDGED && !c.identity_failed);
	compare_release(&c);
	report_data_release(&d);

	/* Inert in BASE, or in both: not judged either. */
	plan[0].premise = RUN_PREMISE_NOT_MET;
	session_init(&d, plan);
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_AUTO, &c);
	gcs = cell_of(&c, "census.major_collections");
	CHECK(gcs && gcs->inert && strcmp(gcs->inert, "both") == 0);
	CHECK(c.outcome == COMPARE_UNJUDGED);
	compare_release(&c);
	report_data_release(&d);
}

static void test_failure_stderr(void)
{
	struct arm_plan plan[2] = {arm_ok("gen", 2, 8e6), arm_ok("gen", 2, 8e6)};
	struct report_data d;
	struct compare c;

	plan[1].status = RUN_STATUS_CRASHED;
	plan[1].detail = "SIGABRT";
	plan[1].stderr_tail = "\nfix: heap corrupt at 0x10\nAborted (core dumped)\n";
	session_init(&d, plan);
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_AUTO, &c);
	CHECK(c.probes[0].fix_stderr &&
	      strcmp(c.probes[0].fix_stderr, "fix: heap corrupt at 0x10") == 0);
	CHECK(c.probes[0].base_stderr == NULL);
	CHECK(c.probes[0].failure &&
	      strcmp(c.probes[0].failure, "FIX: 3 of 3 runs crashed (SIGABRT), stderr: fix: heap "
	                                  "corrupt at 0x10") == 0);
	CHECK(c.identity_failed && c.outcome == COMPARE_WORSE);
	compare_release(&c);
	report_data_release(&d);

	/* A detail that quotes the line already is not followed by it again. */
	plan[1].status = RUN_STATUS_FAILED;
	plan[1].detail = "exited 3: out of cheese";
	plan[1].stderr_tail = "out of cheese\n";
	session_init(&d, plan);
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_AUTO, &c);
	CHECK(c.probes[0].fix_stderr == NULL);
	CHECK(c.probes[0].failure &&
	      strcmp(c.probes[0].failure, "FIX: 3 of 3 runs failed (exited 3: out of cheese)") ==
	          0);
	compare_release(&c);
	report_data_release(&d);
}

/*
 * Issue 26, items 2 and 6: two valgrind runs per arm with functions; FIX's Ir +3%, all of it
 * in gcr_alloc, and a function only FIX has. The comparison says where (each function's median
 * over its arm's runs, gcr_alloc first with its share) and the headline says what moved.
 */
static void test_where(void)
{
	struct arm_plan plan[2] = {arm_ok("gen", 4, 2e6), arm_ok("gen", 4, 2e6)};
	struct report_data d;
	struct compare c;
	const struct compare_cell *ir;
	char *moved;

	session_init(&d, plan);
	d.runs = xrealloc(d.runs, (d.nruns + 4) * sizeof *d.runs);
	for (int k = 0; k < 4; k++) {
		struct store_run *r = &d.runs[d.nruns++];
		int arm = k % 2;
		double alloc = arm ? 1300 : 1000;
		memset(r, 0, sizeof *r);
		r->id = 100 + k;
		r->build_id = arm + 1;
		r->probe = xstrdup("01_p");
		r->arm = arm;
		r->kind = RUN_KIND_VALGRIND;
		r->status = RUN_STATUS_OK;
		r->checksum = xstrdup("0x00000000000000aa");
		metric_set_add(&r->metrics, "valgrind.ir", 10000 + (arm ? 300 + 10 : 0));
		fnprof_add(&r->functions, "main", "p.c", 8000);
		fnprof_add(&r->functions, "gcr_alloc", "gen.c", alloc);
		/* Every function kept, so one absent from a list ran none. */
		fnprof_add(&r->functions, "rest", "p.c", 1000);
		if (arm)
			fnprof_add(&r->functions, "plant_spin", "plant.c", 10);
		r->functions.total_ir = 10000 + (arm ? 310 : 0);
	}
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_AUTO, &c);
	ir = cell_of(&c, "valgrind.ir");
	CHECK(ir && ir->stats.verdict == PAIRED_WORSE);
	CHECK(c.nwhere == 1);
	if (c.nwhere == 1) {
		const struct fnprof_diff *w = &c.where[0].diff;
		CHECK(c.where[0].base_runs == 2 && c.where[0].fix_runs == 2);
		CHECK(w->n == 2 && w->delta == 310);
		CHECK(w->n && strcmp(w->movers[0].name, "gcr_alloc") == 0);
		CHECK(w->n && w->movers[0].delta == 300 && w->movers[0].side == FNPROF_BOTH);
		CHECK_NEAR(w->movers[0].share, 300.0 / 310, 1e-12);
		CHECK(w->n == 2 && strcmp(w->movers[1].name, "plant_spin") == 0 &&
		      w->movers[1].side == FNPROF_FIX_ONLY);
	}
	moved = compare_headline_moved(&c);
	CHECK(
	    strstr(moved, "FIX is WORSE on 1 cell: fix vs base: Ir +3.1% worse (3 of 3 rounds)") ==
	    moved);
	CHECK(strstr(moved, "time not judged: 3 rounds, 6 needed") != NULL);
	free(moved);
	compare_release(&c);
	report_data_release(&d);
}

/*
 * Issue 40: two settings of one runtime that say one design are judged as one; a clock-paced
 * build's counters are never deterministic; the headline leads with the collector's
 * collections, and says time is host noise when the load says so.
 */
static void test_design_caps_headline(void)
{
	struct arm_plan plan[2] = {arm_ok("go-gogc100", 11, 8e6), arm_ok("go-gogc50", 22, 9e6)};
	struct report_data d;
	struct compare c;
	const struct compare_cell *gcs;
	char *why, *moved;

	session_init(&d, plan);
	d.manifests = xcalloc(2, sizeof *d.manifests);
	d.manifests[0] = xstrdup("{\"collector\": \"go-gogc100\", \"design\": \"go-gc\"}");
	d.manifests[1] = xstrdup("{\"collector\": \"go-gogc50\", \"design\": \"go-gc\"}");
	d.session.facts = xstrdup("{\"ncpu\": 2}");
	d.session.load_before = 10.3;
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_AUTO, &c);
	CHECK(!c.across && c.context == 0);
	CHECK_STR(c.base_design, "go-gc");
	why = compare_across_text(&c);
	CHECK(why && strstr(why, "one design (go-gc, as both manifests say; collectors "
	                         "go-gogc100 vs go-gogc50)") == why);
	free(why);
	gcs = cell_of(&c, "census.major_collections");
	CHECK(gcs && gcs->stats.verdict == PAIRED_WORSE && gcs->stats.deterministic);
	moved = compare_headline_moved(&c);
	/* Collections before memory; time set apart as host noise. */
	CHECK(strstr(moved, "major_collections +100.0%") &&
	      strstr(moved, "major_collections") < strstr(moved, "VmHWM"));
	CHECK(strstr(moved, "; time is host noise here (load 10.3 on 2 CPUs)") != NULL);
	free(moved);
	compare_release(&c);

	/* The same runs, the builds saying they are clock-paced: nothing is deterministic. */
	for (int arm = 0; arm < 2; arm++)
		d.builds[arm].capabilities =
		    xstrdup("[\"collects\", \"precise\", \"clock_paced\"]");
	compare_build(&d, 0, 1, PAIRED_FDR_Q, COMPARE_MODE_AUTO, &c);
	gcs = cell_of(&c, "census.major_collections");
	CHECK(gcs && !gcs->stats.deterministic && c.census_exact == 0);
	CHECK(c.census_varies && strcmp(c.census_varies, "BASE says clock_paced") == 0);
	{
		char signs[32];
		compare_signs_text(gcs, signs, sizeof signs);
		/* Three rounds: the spread rule, never "exact (3)". */
		CHECK_STR(signs, "by spread (3)");
	}
	compare_release(&c);
	report_data_release(&d);
}

int main(void)
{
	test_where();
	test_same_design();
	test_across_designs();
	test_inert();
	test_failure_stderr();
	test_design_caps_headline();
	return unit_done("test_compare");
}
