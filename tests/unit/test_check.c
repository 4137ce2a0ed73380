/*
 * The ratchet's judgement on synthetic runs with known verdicts, no database: every row kind
 * and state, and every reason the whole check cannot pass.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "unit.h"

/* Two probes; a gated exact counter, a gated liveness counter, a banded RSS, an info time,
 * and Ir from valgrind runs. */
static const char profile[] =
    "{\n"
    "  \"format\": \"gcratchet-baseline\", \"version\": 1, \"profile\": \"shared_ci\",\n"
    "  \"collector\": {\"name\": \"scripted\", \"version\": \"1.0\", \"git_commit\": \"abc\"},\n"
    "  \"host\": {\"fingerprint\": \"00ff\", \"hostname\": \"h\"},\n"
    "  \"pinned_at\": \"2026-11-30T00:00:00Z\", \"session\": 3, \"size\": \"ci\",\n"
    "  \"meters\": [\"rusage\", \"census\", \"valgrind\"], \"repeats\": 3,\n"
    "  \"rules\": {\n"
    "    \"census.alloc_bytes\": {\"gated\": true, \"direction\": \"increase\", \"band_pct\": 0, "
    "\"band_abs\": 0},\n"
    "    \"census.major_collections\": {\"gated\": true, \"direction\": \"decrease\", "
    "\"band_pct\": 50, \"band_abs\": 0},\n"
    "    \"rss.peak_bytes\": {\"gated\": true, \"direction\": \"increase\", \"band_pct\": 20, "
    "\"band_abs\": 0},\n"
    "    \"time.wall_ns\": {\"gated\": false, \"direction\": \"increase\", \"band_pct\": 10, "
    "\"band_abs\": 0},\n"
    "    \"valgrind.ir\": {\"gated\": true, \"direction\": \"increase\", \"band_pct\": 1, "
    "\"band_abs\": 0}\n"
    "  },\n"
    "  \"probes\": {\"01_a\": {\"checksum\": \"0x00000000000000aa\"},\n"
    "             \"02_b\": {\"checksum\": \"0x00000000000000bb\"}},\n"
    "  \"cells\": [\n"
    "    {\"probe\": \"01_a\", \"metric\": \"census.alloc_bytes\", \"median\": 1000, "
    "\"min\": 1000, \"max\": 1000, \"n\": 3},\n"
    "    {\"probe\": \"01_a\", \"metric\": \"census.major_collections\", \"median\": 4, "
    "\"min\": 4, \"max\": 4, \"n\": 3},\n"
    "    {\"probe\": \"01_a\", \"metric\": \"rss.peak_bytes\", \"median\": 1000000, "
    "\"min\": 1000000, \"max\": 1000000, \"n\": 3},\n"
    "    {\"probe\": \"01_a\", \"metric\": \"time.wall_ns\", \"median\": 1000, "
    "\"min\": 1000, \"max\": 1000, \"n\": 3},\n"
    "    {\"probe\": \"01_a\", \"metric\": \"valgrind.ir\", \"median\": 5000, "
    "\"min\": 5000, \"max\": 5000, \"n\": 1},\n"
    "    {\"probe\": \"02_b\", \"metric\": \"census.alloc_bytes\", \"median\": 2000, "
    "\"min\": 2000, \"max\": 2000, \"n\": 3}\n"
    "  ]\n"
    "}\n";

/* A session's runs, built up one at a time; every string owned, as the store's are. */
struct runs {
	struct store_run *r;
	size_t n;
};

static struct store_run *add_run(struct runs *rs, const char *probe, enum run_kind kind,
                                 enum run_status status, const char *checksum)
{
	struct store_run *r;

	rs->r = xrealloc(rs->r, (rs->n + 1) * sizeof *rs->r);
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof *r);
	r->probe = xstrdup(probe);
	r->size = xstrdup("ci");
	r->kind = kind;
	r->status = status;
	r->checksum = checksum ? xstrdup(checksum) : NULL;
	r->premise = RUN_PREMISE_MET;
	return r;
}

/* Three timed runs of each probe and one valgrind run of 01_a, all at the pinned figures. */
static void add_healthy(struct runs *rs)
{
	for (int i = 0; i < 3; i++) {
		struct store_run *r =
		    add_run(rs, "01_a", RUN_KIND_TIMED, RUN_STATUS_OK, "0x00000000000000aa");
		metric_set_add(&r->metrics, "census.alloc_bytes", 1000);
		metric_set_add(&r->metrics, "census.major_collections", 4);
		metric_set_add(&r->metrics, "rss.peak_bytes", 1000000);
		metric_set_add(&r->metrics, "time.wall_ns", 1000);
		r = add_run(rs, "02_b", RUN_KIND_TIMED, RUN_STATUS_OK, "0x00000000000000bb");
		metric_set_add(&r->metrics, "census.alloc_bytes", 2000);
	}
	metric_set_add(&add_run(rs, "01_a", RUN_KIND_VALGRIND, RUN_STATUS_OK, NULL)->metrics,
	               "valgrind.ir", 5000);
}

/* Sets one metric of every ok run of a probe and kind to v. */
static void set_metric(struct runs *rs, const char *probe, const char *metric, double v)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct metric_set *m = &rs->r[i].metrics;
		if (strcmp(rs->r[i].probe, probe) != 0)
			continue;
		for (size_t k = 0; k < m->n; k++)
			if (strcmp(m->items[k].name, metric) == 0)
				m->items[k].value = v;
	}
}

struct fixture {
	struct baseline b;
	struct store_session si;
	struct store_build build;
	struct runs runs;
	char status[16];
	const struct toolchain *toolchain; /* the build's, or NULL */
	const struct hostinfo_facts *host; /* the session's host facts, or NULL */
	struct check_result res;
};

static void fixture_init(struct fixture *f)
{
	struct err e;

	memset(f, 0, sizeof *f);
	if (baseline_parse(profile, "t.json", &f->b, &e) != 0) {
		fprintf(stderr, "%s\n", e.msg);
		abort();
	}
	snprintf(f->status, sizeof f->status, "complete");
	f->si.id = 7;
	f->si.status = f->status;
	f->si.host_fingerprint = f->b.host_fingerprint;
	f->si.hostname = f->b.hostname;
	f->build.collector_version = f->b.collector_version;
	add_healthy(&f->runs);
}

static void fixture_judge(struct fixture *f, int strict)
{
	struct check_input in = {0};

	check_result_release(&f->res);
	in.baseline = &f->b;
	in.session = &f->si;
	in.build = &f->build;
	in.runs = f->runs.r;
	in.nruns = f->runs.n;
	in.toolchain = f->toolchain;
	in.host = f->host;
	in.strict = strict;
	check_judge(&in, &f->res);
}

static void fixture_release(struct fixture *f)
{
	check_result_release(&f->res);
	store_runs_release(f->runs.r, f->runs.n);
	baseline_release(&f->b);
}

static const struct check_row *row_of(const struct check_result *res, const char *probe,
                                      const char *metric)
{
	for (size_t i = 0; i < res->nrows; i++)
		if (strcmp(res->rows[i].probe, probe) == 0 &&
		    strcmp(res->rows[i].metric, metric) == 0)
			return &res->rows[i];
	return NULL;
}

static int reason_has(const struct check_row *r, const char *words)
{
	return r && r->reason && strstr(r->reason, words);
}

static void test_ok_improved_info(void)
{
	struct fixture f;
	const struct check_row *r;

	fixture_init(&f);
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_OK);
	CHECK(f.res.why == NULL && f.res.stale.n == 0);
	CHECK(f.res.nrows == 6);
	CHECK(f.res.ok == 5 && f.res.info == 1 && f.res.regressed == 0 && f.res.unjudged == 0);
	r = row_of(&f.res, "01_a", "census.alloc_bytes");
	CHECK(r && r->kind == CHECK_ROW_CELL && r->state == CHECK_JUDGED && r->n == 3);
	CHECK(r && r->current == 1000 && r->j.verdict == BASELINE_OK);
	CHECK_STR(check_verdict_name(f.res.verdict), "ok");

	/* Better beyond the band is improved; an ungated metric however far is info. */
	set_metric(&f.runs, "02_b", "census.alloc_bytes", 1500);
	set_metric(&f.runs, "01_a", "time.wall_ns", 9000);
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_OK);
	CHECK(f.res.improved == 1 && f.res.info == 1);
	CHECK_STR(check_row_verdict_name(row_of(&f.res, "02_b", "census.alloc_bytes")), "improved");
	CHECK_STR(check_row_verdict_name(row_of(&f.res, "01_a", "time.wall_ns")), "info");
	fixture_release(&f);
}

static void test_regressed_and_liveness(void)
{
	struct fixture f;
	const struct check_row *r;

	fixture_init(&f);
	set_metric(&f.runs, "01_a", "rss.peak_bytes", 1300000); /* +30% on a 20% band */
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_REGRESSION);
	r = row_of(&f.res, "01_a", "rss.peak_bytes");
	CHECK(r && r->j.verdict == BASELINE_REGRESSED && r->j.used > 1.0);
	CHECK(r && r->reason == NULL && !r->has_base_now);

	/* Fewer collections is "better", but none at all means the probe stopped collecting. */
	set_metric(&f.runs, "01_a", "rss.peak_bytes", 1000000);
	set_metric(&f.runs, "01_a", "census.major_collections", 0);
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_REGRESSION && f.res.regressed == 1);
	r = row_of(&f.res, "01_a", "census.major_collections");
	CHECK(r && r->j.went_inert && reason_has(r, "was 4, now 0"));
	fixture_release(&f);
}

static void test_drift_attribution(void)
{
	struct fixture f;
	struct runs base = {0};
	struct check_input in = {0};
	const struct check_row *r;

	fixture_init(&f);
	add_healthy(&base);
	set_metric(&base, "02_b", "census.alloc_bytes", 2100);
	set_metric(&f.runs, "02_b", "census.alloc_bytes", 2300);
	in.baseline = &f.b;
	in.session = &f.si;
	in.build = &f.build;
	in.runs = f.runs.r;
	in.nruns = f.runs.n;
	in.base_runs = base.r;
	in.nbase_runs = base.n;
	check_judge(&in, &f.res);
	r = row_of(&f.res, "02_b", "census.alloc_bytes");
	CHECK(r && r->j.verdict == BASELINE_REGRESSED && r->has_base_now && r->base_now == 2100);
	CHECK(r && r->current == 2300 && r->base == 2000);
	store_runs_release(base.r, base.n);
	fixture_release(&f);
}

static void test_unjudged_cells(void)
{
	struct fixture f;
	const struct check_row *r;

	/* A failed run makes its probe's cells of that kind unjudged: the rest is no sample. */
	fixture_init(&f);
	add_run(&f.runs, "02_b", RUN_KIND_TIMED, RUN_STATUS_CRASHED, NULL)->detail =
	    xstrdup("SIGSEGV");
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED && f.res.why == NULL);
	r = row_of(&f.res, "02_b", "census.alloc_bytes");
	CHECK(r && r->state == CHECK_UNJUDGED);
	CHECK(reason_has(r, "1 of 4 timed runs crashed (SIGSEGV)"));
	CHECK_STR(check_row_verdict_name(r), "COULD NOT JUDGE");
	/* The other probe is still judged. */
	r = row_of(&f.res, "01_a", "census.alloc_bytes");
	CHECK(r && r->state == CHECK_JUDGED);
	fixture_release(&f);

	/* A meter that did not run: no valgrind runs, and a census field nobody reported. */
	fixture_init(&f);
	for (size_t i = 0; i < f.runs.n; i++) {
		if (f.runs.r[i].kind == RUN_KIND_VALGRIND)
			f.runs.r[i].kind = RUN_KIND_TIMED; /* as if valgrind never ran */
		if (strcmp(f.runs.r[i].probe, "01_a") == 0)
			metric_set_release(&f.runs.r[i].metrics);
	}
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED);
	CHECK(reason_has(row_of(&f.res, "01_a", "valgrind.ir"), "no valgrind runs of this probe"));
	CHECK(reason_has(row_of(&f.res, "01_a", "census.alloc_bytes"),
	                 "not measured in this session"));
	fixture_release(&f);
}

/*
 * A value no figure can be (NaN, an infinity, a negative count) on a gated exact cell used to
 * pass as ok or improved: the median of {NaN, 1000, 1000} is whatever the sort left there,
 * and -1 allocations is "better". Now the cell cannot be judged, naming the run.
 */
static void test_invalid_values(void)
{
	static const double bad[] = {NAN, INFINITY, -INFINITY, -1};
	struct fixture f;
	const struct check_row *r;

	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		fixture_init(&f);
		for (size_t i = 0; i < f.runs.n; i++)
			f.runs.r[i].id = 100 + (int64_t)i;
		/* The second timed run of 01_a only (runs alternate 01_a, 02_b). */
		f.runs.r[2].metrics.items[0].value = bad[k];
		CHECK_STR(f.runs.r[2].metrics.items[0].name, "census.alloc_bytes");
		fixture_judge(&f, 0);
		r = row_of(&f.res, "01_a", "census.alloc_bytes");
		CHECK(r && r->state == CHECK_UNJUDGED);
		CHECK(reason_has(r, "run 102: census.alloc_bytes is "));
		CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED);
		/* The other cells of the probe are still judged. */
		r = row_of(&f.res, "01_a", "census.major_collections");
		CHECK(r && r->state == CHECK_JUDGED && r->j.verdict == BASELINE_OK);
		fixture_release(&f);
	}
}

static void test_identity(void)
{
	struct fixture f;
	const struct check_row *r;

	/* A wrong result is a regression of its own row, before the probe's cells. */
	fixture_init(&f);
	free(f.runs.r[1].checksum);
	f.runs.r[1].checksum = xstrdup("0x00000000000000cc");
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_REGRESSION);
	r = row_of(&f.res, "02_b", "checksum");
	CHECK(r && r->kind == CHECK_ROW_CHECKSUM && r->j.verdict == BASELINE_REGRESSED);
	CHECK(reason_has(r, "printed 0x00000000000000cc, baseline 0x00000000000000bb"));
	CHECK(r && r + 1 < f.res.rows + f.res.nrows &&
	      strcmp(r[1].metric, "census.alloc_bytes") == 0);
	fixture_release(&f);

	/* An inert run: measured, but not what the probe exists to cause. */
	fixture_init(&f);
	f.runs.r[0].premise = RUN_PREMISE_NOT_MET;
	f.runs.r[0].premise_text = xstrdup("no major collection");
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_REGRESSION);
	r = row_of(&f.res, "01_a", "premise");
	CHECK(r && r->kind == CHECK_ROW_PREMISE && reason_has(r, "no major collection"));
	CHECK_STR(check_row_verdict_name(r), "INERT");
	fixture_release(&f);
}

static void test_cannot_pass(void)
{
	static const char *const statuses[] = {"interrupted", "incomplete", "running", "abandoned"};
	struct fixture f;
	char newer[] = "2.0";

	/* Every figure at its pin, yet only a complete session can pass. */
	for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++) {
		fixture_init(&f);
		snprintf(f.status, sizeof f.status, "%s", statuses[i]);
		fixture_judge(&f, 0);
		CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED);
		CHECK(f.res.why && strstr(f.res.why, statuses[i]) &&
		      strstr(f.res.why, "only a complete session can pass"));
		CHECK(f.res.ok == 5); /* the rows are still judged */
		fixture_release(&f);
	}

	/* A baseline that gates nothing: no cells, or none gated. */
	fixture_init(&f);
	f.b.ncells = 0;
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED);
	CHECK(f.res.why && strstr(f.res.why, "gates nothing: it pins no cell"));
	f.b.ncells = 6;
	for (size_t i = 0; i < f.b.nrules; i++)
		f.b.rules[i].gated = 0;
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED && f.res.info == 6);
	CHECK(f.res.why && strstr(f.res.why, "none of its cells is gated"));
	fixture_release(&f);

	/* A session that measured none of the baseline's probes (here: at another size). */
	fixture_init(&f);
	for (size_t i = 0; i < f.runs.n; i++)
		strcpy(f.runs.r[i].size, "xl");
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED);
	CHECK(f.res.why &&
	      strstr(f.res.why, "measured none of the baseline's 2 probes at size ci"));
	fixture_release(&f);

	/* Stale: said, and with strict, it cannot pass. */
	fixture_init(&f);
	f.build.collector_version = newer;
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_OK && f.res.stale.n == 1);
	fixture_judge(&f, 1);
	CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED && f.res.why == NULL);
	CHECK(strstr(f.res.stale.items[0], "--strict: exit 2") != NULL);
	fixture_release(&f);
}

static void set_toolchain(struct toolchain *t, const char *compiler, const char *version,
                          const char *flags)
{
	memset(t, 0, sizeof *t);
	t->known = 1;
	t->compiler = xstrdup(compiler);
	t->version = xstrdup(version);
	t->flags = xstrdup(flags);
	t->valgrind = xstrdup("valgrind-3.19.0");
}

/* Another compiler: STALE first, Ir not comparable (never regressed), census still judged. */
static void test_toolchain(void)
{
	struct fixture f;
	struct toolchain clang, gcc;
	const struct check_row *r;

	fixture_init(&f);
	set_toolchain(&f.b.toolchain, "gcc", "12.2.0", "-std=c17 -O2 -g");
	set_toolchain(&gcc, "gcc", "12.3.0", "-std=c17 -O2 -g");
	set_toolchain(&clang, "clang", "14.0.6", "-std=c17 -O2 -g");
	f.si.meters = xstrdup("rusage,census,valgrind:valgrind-3.19.0");

	/* The same compiler's next minor release and the same valgrind: nothing to say. */
	f.toolchain = &gcc;
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_OK && f.res.stale.n == 0 && !f.res.toolchain);

	/* An Ir 8% up under clang is not a regression: it is not comparable. */
	f.toolchain = &clang;
	set_metric(&f.runs, "01_a", "valgrind.ir", 5400);
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED && f.res.regressed == 0);
	CHECK(f.res.stale.n == 1);
	CHECK(
	    strstr(f.res.stale.items[0], "built with clang 14.0.6, the baseline with gcc 12.2.0"));
	r = row_of(&f.res, "01_a", "valgrind.ir");
	CHECK(r && r->state == CHECK_UNJUDGED && reason_has(r, "not comparable: built with clang"));
	CHECK_STR(check_row_verdict_name(r), "COULD NOT JUDGE");
	r = row_of(&f.res, "01_a", "census.alloc_bytes");
	CHECK(r && r->state == CHECK_JUDGED && r->j.verdict == BASELINE_OK);
	fixture_judge(&f, 1);
	CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED && f.res.regressed == 0);

	/* A census regression under another compiler is still one. */
	set_metric(&f.runs, "02_b", "census.alloc_bytes", 2001);
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_REGRESSION && f.res.regressed == 1);
	set_metric(&f.runs, "02_b", "census.alloc_bytes", 2000);

	/* Other flags, or the session's valgrind, are a toolchain of their own. */
	free(gcc.flags);
	gcc.flags = xstrdup("-std=c17 -O2 -g -gdwarf-4");
	f.toolchain = &gcc;
	fixture_judge(&f, 0);
	CHECK(f.res.toolchain && strstr(f.res.toolchain, "built with flags"));
	free(gcc.flags);
	gcc.flags = xstrdup("-std=c17 -O2 -g");
	free(f.si.meters);
	f.si.meters = xstrdup("rusage,census,valgrind:valgrind-3.22.0");
	fixture_judge(&f, 0);
	CHECK(f.res.toolchain &&
	      strstr(f.res.toolchain, "measured with valgrind-3.22.0, the baseline with "
	                              "valgrind-3.19.0"));

	/* An old baseline records no toolchain: unknown, nothing compared. */
	toolchain_release(&f.b.toolchain);
	f.toolchain = &clang;
	fixture_judge(&f, 0);
	CHECK(!f.res.toolchain && f.res.stale.n == 0);
	free(f.si.meters);
	toolchain_release(&clang);
	toolchain_release(&gcc);
	fixture_release(&f);
}

/* Gates time in f's baseline and pins 02_b's wall time at 2000 with an override of band_pct. */
static void gate_time(struct fixture *f, double band_pct, int noise)
{
	struct baseline *b = &f->b;
	struct baseline_cell *c;
	struct baseline_override *o;

	for (size_t i = 0; i < b->nrules; i++)
		if (strcmp(b->rules[i].metric, "time.wall_ns") == 0)
			b->rules[i].gated = 1;
	b->cells = xrealloc(b->cells, (b->ncells + 1) * sizeof *b->cells);
	c = &b->cells[b->ncells++];
	*c = (struct baseline_cell){
	    xstrdup("02_b"), xstrdup("time.wall_ns"), 2000, 1000, 3000, 11, 0, 0, 0, NULL, 0};
	b->overrides = xrealloc(b->overrides, (b->noverrides + 1) * sizeof *b->overrides);
	o = &b->overrides[b->noverrides++];
	memset(o, 0, sizeof *o);
	o->probe = xstrdup("02_b");
	o->metric = xstrdup("time.wall_ns");
	o->rule = *baseline_rule_for(b, "time.wall_ns");
	o->rule.metric = o->metric;
	o->rule.band_pct = band_pct;
	o->rationale = xstrdup("noisy");
	o->evidence_runs = 11;
	o->evidence_spread_pct = band_pct / 2;
	o->widened_for_noise = noise;
}

/* Issue 17: every verdict states how small a change of time it could see. */
static void test_sensitivity(void)
{
	struct fixture f;
	const struct check_row *r;

	/* shared_ci gates no time: nothing to state but that. */
	fixture_init(&f);
	fixture_judge(&f, 0);
	CHECK(f.res.sensitivity.cells == 0 && isnan(f.res.sensitivity.median_pct));
	CHECK(!f.res.sensitivity.time_ungated);
	fixture_release(&f);

	/* One cell at its rule's 10%, one widened for noise to 150%: median 80, worst 150. */
	fixture_init(&f);
	gate_time(&f, 150, 1);
	fixture_judge(&f, 0);
	CHECK(f.res.sensitivity.cells == 2 && f.res.sensitivity.widened == 1);
	CHECK(f.res.sensitivity.median_pct == 80 && f.res.sensitivity.worst_pct == 150);
	CHECK(!f.res.sensitivity.time_ungated);
	r = row_of(&f.res, "02_b", "time.wall_ns");
	CHECK(r && r->widened == 2 && r->band_pct == 150);
	r = row_of(&f.res, "01_a", "time.wall_ns");
	CHECK(r && r->widened == 0 && r->band_pct == 10);
	/* Other cells carry their band too: RSS at 20%. */
	r = row_of(&f.res, "01_a", "rss.peak_bytes");
	CHECK(r && r->band_pct == 20 && !r->widened);
	fixture_release(&f);

	/* Every gated time cell beyond 25%: time is not gated in effect. A hand-made override
	 * wider than its rule is widened too, though not for noise. */
	fixture_init(&f);
	gate_time(&f, 30, 0);
	for (size_t i = 0; i < f.b.nrules; i++)
		if (strcmp(f.b.rules[i].metric, "time.wall_ns") == 0)
			f.b.rules[i].band_pct = 26;
	fixture_judge(&f, 0);
	CHECK(f.res.sensitivity.cells == 2 && f.res.sensitivity.time_ungated);
	CHECK(f.res.sensitivity.widened == 1 && f.res.sensitivity.worst_pct == 30);
	r = row_of(&f.res, "02_b", "time.wall_ns");
	CHECK(r && r->widened == 1);
	/* The floor counts: a band_abs above the percentage is the band. */
	check_sensitivity(&f.b, &f.res.sensitivity);
	f.b.overrides[0].rule.band_pct = 0;
	f.b.overrides[0].rule.band_abs = 200;
	check_sensitivity(&f.b, &f.res.sensitivity);
	CHECK(f.res.sensitivity.median_pct == 18 && !f.res.sensitivity.time_ungated);
	fixture_release(&f);
}

/*
 * Issue 17: what check says it can see, it sees. On a cell whose time band was not widened, a
 * slowdown of twice the stated sensitivity is REGRESSED and half of it is not.
 */
static void test_sensitivity_holds(void)
{
	struct fixture f;
	const struct baseline_cell *cell;
	const struct check_row *r;
	double band;

	fixture_init(&f);
	gate_time(&f, 150, 1); /* 02_b widened; 01_a keeps the profile's band */
	cell = baseline_cell_find(&f.b, "01_a", "time.wall_ns");
	CHECK(cell != NULL);
	if (!cell) {
		fixture_release(&f);
		return;
	}
	fixture_judge(&f, 0);
	r = row_of(&f.res, "01_a", "time.wall_ns");
	CHECK(r && !r->widened);
	band = r ? r->band_pct : 0;
	CHECK(band == 10); /* the fixture profile's wall-time band */
	set_metric(&f.runs, "01_a", "time.wall_ns", cell->median * (1 + 2 * band / 100));
	fixture_judge(&f, 0);
	r = row_of(&f.res, "01_a", "time.wall_ns");
	CHECK(r && r->state == CHECK_JUDGED && r->j.verdict == BASELINE_REGRESSED);
	CHECK(f.res.verdict == CHECK_VERDICT_REGRESSION);
	set_metric(&f.runs, "01_a", "time.wall_ns", cell->median * (1 + 0.5 * band / 100));
	fixture_judge(&f, 0);
	r = row_of(&f.res, "01_a", "time.wall_ns");
	CHECK(r && r->state == CHECK_JUDGED && r->j.verdict == BASELINE_OK);
	fixture_release(&f);
}

/* Sets rss.peak_bytes of 01_a's timed runs, in order, to vals[0..n). */
static void set_rss_runs(struct runs *rs, const double *vals, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < rs->n && k < n; i++) {
		struct metric_set *m = &rs->r[i].metrics;
		if (strcmp(rs->r[i].probe, "01_a") != 0 || rs->r[i].kind != RUN_KIND_TIMED)
			continue;
		for (size_t j = 0; j < m->n; j++)
			if (strcmp(m->items[j].name, "rss.peak_bytes") == 0)
				m->items[j].value = vals[k++];
	}
}

/*
 * A quantile cell is judged on the session's min against the pinned min: a run in the tail
 * (a conservative collector that found a stale pointer) moves the median, not the verdict,
 * and a change that raises every run does.
 */
static void test_quantile(void)
{
	static const double tail[] = {902000, 2000000, 2000000};
	static const double raised[] = {950000, 960000, 1300000};
	struct baseline_rule *rule;
	struct baseline_cell *cell;
	struct fixture f;
	const struct check_row *r;

	fixture_init(&f);
	rule = (struct baseline_rule *)baseline_rule_for(&f.b, "rss.peak_bytes");
	rule->cls = BASELINE_CLASS_QUANTILE;
	rule->band_pct = 0;
	rule->band_abs = 4096;
	cell = baseline_cell_find(&f.b, "01_a", "rss.peak_bytes");
	cell->min = 900000;
	set_rss_runs(&f.runs, tail, 3);
	fixture_judge(&f, 0);
	r = row_of(&f.res, "01_a", "rss.peak_bytes");
	CHECK(r && r->cls == BASELINE_CLASS_QUANTILE && r->base == 900000 && r->current == 902000);
	CHECK(r && r->j.verdict == BASELINE_OK && r->j.allowance == 4096);
	CHECK(f.res.verdict == CHECK_VERDICT_OK);

	set_rss_runs(&f.runs, raised, 3);
	fixture_judge(&f, 0);
	r = row_of(&f.res, "01_a", "rss.peak_bytes");
	CHECK(r && r->current == 950000 && r->j.delta == 50000);
	CHECK(r && r->j.verdict == BASELINE_REGRESSED);
	CHECK(f.res.verdict == CHECK_VERDICT_REGRESSION);

	/* The same runs under a banded rule: judged on the median, as before classes. */
	rule->cls = BASELINE_CLASS_BANDED;
	rule->band_pct = 20;
	rule->band_abs = 0;
	set_rss_runs(&f.runs, tail, 3);
	fixture_judge(&f, 0);
	r = row_of(&f.res, "01_a", "rss.peak_bytes");
	CHECK(r && r->cls == BASELINE_CLASS_BANDED && r->base == 1000000 && r->current == 2000000);
	CHECK(r && r->j.verdict == BASELINE_REGRESSED);
	fixture_release(&f);
}

/* Issue 16: a probe the session measured and the baseline lacks is named, not judged. */
static void test_unpinned(void)
{
	struct fixture f;
	struct store_run *r;

	fixture_init(&f);
	fixture_judge(&f, 0);
	CHECK(f.res.unpinned.n == 0);
	r = add_run(&f.runs, "15_new", RUN_KIND_TIMED, RUN_STATUS_OK, "0x00000000000000cc");
	metric_set_add(&r->metrics, "census.alloc_bytes", 1);
	add_run(&f.runs, "15_new", RUN_KIND_VALGRIND, RUN_STATUS_OK, NULL);
	/* A warm-up or another size of a probe the baseline lacks is nothing to say. */
	add_run(&f.runs, "16_warm", RUN_KIND_TIMED, RUN_STATUS_OK, NULL)->warmup = 1;
	free(add_run(&f.runs, "17_big", RUN_KIND_TIMED, RUN_STATUS_OK, NULL)->size);
	f.runs.r[f.runs.n - 1].size = xstrdup("large");
	fixture_judge(&f, 0);
	CHECK(f.res.unpinned.n == 1 && strcmp(f.res.unpinned.items[0], "15_new") == 0);
	/* It changes no verdict and adds no row. */
	CHECK(f.res.verdict == CHECK_VERDICT_OK && f.res.nrows == 6);
	fixture_release(&f);
}

/*
 * A regressed Ir cell says where (issue 26, item 3): against the baseline's functions of the
 * probe, the session's valgrind run's; the planted function first, with its share. No
 * functions on one side: nothing said; an ok Ir cell: nothing computed.
 */
static void test_where(void)
{
	struct fixture f;
	const struct check_row *r;
	struct fnprof pin;
	struct store_run *vg = NULL;

	fixture_init(&f);
	for (size_t i = 0; i < f.runs.n; i++)
		if (f.runs.r[i].kind == RUN_KIND_VALGRIND)
			vg = &f.runs.r[i];
	fnprof_init(&pin);
	fnprof_add(&pin, "main", "p.c", 3000);
	fnprof_add(&pin, "gcr_alloc", "gen.c", 1500);
	pin.total_ir = 5000;
	baseline_functions_set(&f.b, "01_a", &pin);
	fnprof_release(&pin);
	/* Ir as pinned: ok, and no diff. */
	fnprof_add(&vg->functions, "main", "p.c", 3000);
	fnprof_add(&vg->functions, "gcr_alloc", "gen.c", 1500);
	vg->functions.total_ir = 5000;
	fixture_judge(&f, 0);
	r = row_of(&f.res, "01_a", "valgrind.ir");
	CHECK(r && r->j.verdict == BASELINE_OK && !r->has_where);
	/* +3% Ir, all of it in gcr_alloc. */
	set_metric(&f.runs, "01_a", "valgrind.ir", 5150);
	vg->functions.fns[1].ir = 1650;
	vg->functions.total_ir = 5150;
	fixture_judge(&f, 0);
	r = row_of(&f.res, "01_a", "valgrind.ir");
	CHECK(r && r->j.verdict == BASELINE_REGRESSED && r->has_where && r->where_runs == 1);
	CHECK(r && r->has_where && r->where.n == 1);
	if (r && r->has_where && r->where.n) {
		CHECK_STR(r->where.movers[0].name, "gcr_alloc");
		CHECK_NEAR(r->where.movers[0].share, 1.0, 1e-12);
		CHECK(r->where.movers[0].base_ir == 1500 && r->where.movers[0].fix_ir == 1650);
	}
	/* A session whose runs kept no functions: regressed, and nothing to say where. */
	fnprof_release(&vg->functions);
	fixture_judge(&f, 0);
	r = row_of(&f.res, "01_a", "valgrind.ir");
	CHECK(r && r->j.verdict == BASELINE_REGRESSED && !r->has_where);
	fixture_release(&f);
}

/* Facts as a pin records them: one host, whose libc and CPU model a test changes. */
static void set_facts(struct hostinfo_facts *h, const char *cpu, const char *libc)
{
	static const char *const v[HOSTINFO_NFACTS] = {
	    [HOSTINFO_FACT_CPU_MODEL] = "cpu",  [HOSTINFO_FACT_NCPU] = "2",
	    [HOSTINFO_FACT_MEM_GIB] = "8",      [HOSTINFO_FACT_ARCH] = "x86_64",
	    [HOSTINFO_FACT_PAGE_SIZE] = "4096", [HOSTINFO_FACT_KERNEL] = "Linux 6.1 x86_64",
	    [HOSTINFO_FACT_LIBC] = "glibc 2.36"};

	hostinfo_facts_release(h);
	for (int k = 0; k < HOSTINFO_NFACTS; k++)
		h->value[k] = xstrdup(v[k]);
	free(h->value[HOSTINFO_FACT_CPU_MODEL]);
	h->value[HOSTINFO_FACT_CPU_MODEL] = xstrdup(cpu);
	free(h->value[HOSTINFO_FACT_LIBC]);
	h->value[HOSTINFO_FACT_LIBC] = libc ? xstrdup(libc) : NULL;
}

/*
 * The host (check.h, "Host"): a fingerprint that differs in what no gated cell depends on is
 * said nothing of but under strict; a differing fact a gated cell depends on is named with
 * those cells' metrics; a file without facts says what differs is unknown.
 */
static void test_host_facts(void)
{
	struct fixture f;
	struct hostinfo_facts now = {{0}};
	char other[] = "e400";

	/* The fixture gates the census, RSS and Ir; time is recorded only. */
	fixture_init(&f);
	f.host = &now;
	f.b.host_facts_known = 1;
	set_facts(&f.b.host_facts, "Intel Xeon", "glibc 2.36");
	set_facts(&now, "AMD EPYC", "glibc 2.36");
	f.si.host_fingerprint = other;
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_OK && f.res.stale.n == 0);
	fixture_judge(&f, 1);
	CHECK(f.res.verdict == CHECK_VERDICT_UNJUDGED && f.res.stale.n == 1);
	CHECK(strstr(f.res.stale.items[0], "differing only in what no gated figure depends on: "
	                                   "CPU model: Intel Xeon -> AMD EPYC (--strict: exit 2)"));

	/* Another libc: RSS and Ir depend on it, the census does not. */
	set_facts(&now, "Intel Xeon", "glibc 2.37");
	fixture_judge(&f, 0);
	CHECK(f.res.verdict == CHECK_VERDICT_OK && f.res.stale.n == 1);
	CHECK(strstr(f.res.stale.items[0],
	             "gated figures depend on: libc: glibc 2.36 -> glibc 2.37 (rss.peak_bytes, "
	             "valgrind.ir); h 00ff at the pin, h e400 now") != NULL);
	/* On the pin's own host too: the fingerprint does not cover libc. */
	f.si.host_fingerprint = f.b.host_fingerprint;
	fixture_judge(&f, 0);
	CHECK(f.res.stale.n == 1 && strstr(f.res.stale.items[0], "libc: glibc 2.36 -> glibc 2.37"));

	/* A fact the session did not record: unknown on another host, nothing on the same. */
	set_facts(&now, "Intel Xeon", NULL);
	fixture_judge(&f, 0);
	CHECK(f.res.stale.n == 0);
	f.si.host_fingerprint = other;
	fixture_judge(&f, 0);
	CHECK(f.res.stale.n == 1 &&
	      strstr(f.res.stale.items[0], "libc: glibc 2.36 -> not recorded"));

	/* Time gated: the CPU model matters, named with the cell's metric. */
	for (size_t i = 0; i < f.b.nrules; i++)
		if (strcmp(f.b.rules[i].metric, "time.wall_ns") == 0)
			f.b.rules[i].gated = 1;
	set_facts(&now, "AMD EPYC", "glibc 2.36");
	fixture_judge(&f, 0);
	CHECK(f.res.stale.n == 1 &&
	      strstr(f.res.stale.items[0], "CPU model: Intel Xeon -> AMD EPYC (time.wall_ns)"));

	/* A file pinned before facts were kept: nothing on its host, "unknown" on another. */
	f.b.host_facts_known = 0;
	fixture_judge(&f, 0);
	CHECK(f.res.stale.n == 1 && strstr(f.res.stale.items[0], "what differs is unknown"));
	f.si.host_fingerprint = f.b.host_fingerprint;
	fixture_judge(&f, 0);
	CHECK(f.res.stale.n == 0);
	hostinfo_facts_release(&now);
	fixture_release(&f);
}

int main(void)
{
	test_host_facts();
	test_where();
	test_quantile();
	test_ok_improved_info();
	test_regressed_and_liveness();
	test_drift_attribution();
	test_unjudged_cells();
	test_invalid_values();
	test_identity();
	test_cannot_pass();
	test_toolchain();
	test_sensitivity();
	test_sensitivity_holds();
	test_unpinned();
	return unit_done("test_check");
}
