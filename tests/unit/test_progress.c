/*
 * test_progress.c — the estimate of a session's time left, on synthetic durations with known
 * answers: each fallback of progress.h in turn (same cell, same probe, same kind, the valgrind
 * guess), medians not means, the valgrind batch divided by --jobs (and by the runs left when
 * fewer), --two-n's doubled schedule, the formats, and the one-line status cut to a width.
 */
#include <stdlib.h>

#include "progress.h"
#include "unit.h"

#define S INT64_C(1000000000)

static struct session_arm arms[2] = {{NULL, "base", NULL, NULL}, {NULL, "fix", NULL, NULL}};

/* Two probes on two arms, 1 warm-up + 3 rounds: 16 timed runs, and 4 valgrind runs. */
static void plan_init(struct session_plan *plan, int jobs, unsigned meters)
{
	memset(plan, 0, sizeof *plan);
	strlist_push(&plan->probes, "01_a");
	strlist_push(&plan->probes, "02_b");
	plan->arms = arms;
	plan->narms = 2;
	plan->warmup = 1;
	plan->rounds = 3;
	plan->jobs = jobs;
	plan->meters = meters;
}

static void left_is(const struct progress *pr, double seconds)
{
	int64_t left = progress_left_ns(pr);

	CHECK_NEAR((double)left / 1e9, seconds, 1e-6);
	if (fabs((double)left / 1e9 - seconds) > 1e-6)
		fprintf(stderr, "  left %.6f s, expected %.6f s\n", (double)left / 1e9, seconds);
}

static void test_fallbacks(void)
{
	struct session_plan plan;
	struct progress *pr;
	char text[64];

	plan_init(&plan, 2, SESSION_METER_RUSAGE | SESSION_METER_VALGRIND);
	pr = progress_new(&plan);
	CHECK(progress_left_ns(pr) == -1);
	progress_left_text(pr, text, sizeof text);
	CHECK_STR(text, "");

	/*
	 * One timed run of 01 on base, 1 s. Timed left: 3 of that cell at its own 1 s, 4 of 01 on
	 * fix at the probe's 1 s, 8 of 02 at the kind's 1 s = 15 s. Valgrind: 4 runs guessed at
	 * 40 x 1 s, two at once: 80 s.
	 */
	progress_add(pr, "01_a", 0, 0, 1 * S);
	left_is(pr, 15 + 4 * 40.0 / 2);
	progress_left_text(pr, text, sizeof text);
	CHECK_STR(text, "~1m35s left");

	/* 01 on fix takes 3 s: its cell uses its own median, 02 the median of all timed runs (2 s). */
	progress_add(pr, "01_a", 1, 0, 3 * S);
	left_is(pr, 3 * 1 + 3 * 3 + 8 * 2 + 4 * 40.0 * 2 / 2);

	/* A median, not a mean: one slow run of 01 on base does not move its cell. */
	progress_add(pr, "01_a", 0, 0, 1 * S);
	progress_add(pr, "01_a", 0, 0, 100 * S);
	/* 01/base: 1 left at its 1 s; 01/fix: 3 at 3 s; 02: 8 at the kind's median (1,1,3,100: 2 s) */
	left_is(pr, 1 * 1 + 3 * 3 + 8 * 2 + 4 * 40.0 * 2 / 2);
	progress_free(pr);
	strlist_release(&plan.probes);
}

static void test_valgrind_batch(void)
{
	struct session_plan plan;
	struct progress *pr;
	const char *probes[] = {"01_a", "02_b"};

	plan_init(&plan, 2, SESSION_METER_RUSAGE | SESSION_METER_VALGRIND);
	pr = progress_new(&plan);
	for (int p = 0; p < 2; p++)
		for (size_t b = 0; b < 2; b++)
			for (int r = 0; r < 4; r++)
				progress_add(pr, probes[p], b, 0, S / 10);
	/* Timed runs all done; 4 valgrind runs at 40 x 0.1 s, two at once. */
	left_is(pr, 4 * 4.0 / 2);
	/* The first valgrind run took 10 s: the other three are guessed from it, two at once. */
	progress_add(pr, "01_a", 0, 1, 10 * S);
	left_is(pr, 3 * 10.0 / 2);
	progress_add(pr, "02_b", 1, 1, 20 * S);
	/* Two left, 01 on fix (10 s: the probe's) and 02 on base (20 s), two lanes. */
	left_is(pr, (10 + 20) / 2.0);
	progress_add(pr, "02_b", 0, 1, 20 * S);
	/* One left: it has a lane to itself, so nothing divides it. */
	left_is(pr, 10);
	progress_add(pr, "01_a", 1, 1, 10 * S);
	CHECK(progress_left_ns(pr) == 0);
	progress_free(pr);
	strlist_release(&plan.probes);

	/* --jobs 1: no division; no valgrind meter: no valgrind runs expected at all. */
	plan_init(&plan, 1, SESSION_METER_RUSAGE | SESSION_METER_VALGRIND);
	pr = progress_new(&plan);
	progress_add(pr, "01_a", 0, 0, S);
	left_is(pr, 15 + 4 * 40.0);
	progress_free(pr);
	strlist_release(&plan.probes);
	plan_init(&plan, 4, SESSION_METER_RUSAGE);
	pr = progress_new(&plan);
	progress_add(pr, "01_a", 0, 0, S);
	left_is(pr, 15);
	progress_free(pr);
	strlist_release(&plan.probes);
}

static void test_two_n(void)
{
	struct session_plan plan;
	struct progress *pr;

	/* Two runs per cell: 32 timed runs and 8 valgrind runs. */
	plan_init(&plan, 4, SESSION_METER_RUSAGE | SESSION_METER_VALGRIND);
	plan.two_n[0] = 10;
	plan.two_n[1] = 20;
	pr = progress_new(&plan);
	progress_add(pr, "01_a", 0, 0, S);
	/* A probe the plan does not have counts for the kind only. */
	progress_add(pr, "99_unknown", 0, 0, 3 * S);
	/* 01 on base 7 x 1 s, on fix 8 x 1 s; 02 16 x 2 s (the kind's); valgrind 8 x 80 s, 4 at once */
	left_is(pr, 7 * 1 + 8 * 1 + 16 * 2 + 8 * 80.0 / 4);
	progress_free(pr);
	strlist_release(&plan.probes);
}

static void test_formats(void)
{
	static const struct {
		int64_t ns;
		const char *text;
	} cases[] = {
	    {0, "0s"},         {7 * S + S / 3, "7s"}, {59 * S + S / 2, "1m00s"},
	    {65 * S, "1m05s"}, {3599 * S, "59m59s"},  {3600 * S + 180 * S + 59 * S, "1h03m"},
	    {-1, "?"},
	};
	char buf[32];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		progress_format_duration(cases[i].ns, buf, sizeof buf);
		CHECK_STR(buf, cases[i].text);
	}
}

static void test_status_line(void)
{
	struct session_plan plan;
	struct progress *pr;
	struct session_progress p;
	struct run_record r;
	char line[128];

	plan_init(&plan, 1, SESSION_METER_RUSAGE);
	pr = progress_new(&plan);
	memset(&p, 0, sizeof p);
	memset(&r, 0, sizeof r);
	r.probe = "02_b";
	p.run = &r;
	p.arm = &arms[1];
	p.run_index = 1;
	p.run_total = 16;
	p.round = 1;
	p.rounds = 4;
	p.warmups = 1;
	p.warmup = 1;
	p.elapsed_ns = 5 * S;
	progress_report(pr, &p);
	progress_status_line(pr, &p, 0, line, sizeof line);
	CHECK_STR(line, "[  1/16] warm-up 1/1  02_b on fix  ~1m15s left");
	/* Interrupted: no time left to speak of. */
	progress_status_text(pr, &p, 0, 0, line, sizeof line);
	CHECK_STR(line, "[  1/16] warm-up 1/1  02_b on fix");
	/* Cut one column short of a narrow terminal, so it never wraps. */
	progress_status_line(pr, &p, 12, line, sizeof line);
	CHECK_STR(line, "[  1/16] wa");
	/* A run not ok says so. */
	r.status = RUN_STATUS_CRASHED;
	p.round = 3;
	p.warmup = 0;
	progress_status_text(pr, &p, 0, 0, line, sizeof line);
	CHECK_STR(line, "[  1/16] round 2/3  02_b on fix  crashed");
	r.status = RUN_STATUS_OK;
	/* Nothing left: no estimate on the line. */
	for (int i = 0; i < 4; i++) {
		if (i < 3)
			progress_add(pr, "02_b", 1, 0, S);
		progress_add(pr, "02_b", 0, 0, S);
		progress_add(pr, "01_a", 0, 0, S);
		progress_add(pr, "01_a", 1, 0, S);
	}
	p.run_index = 16;
	progress_status_line(pr, &p, 80, line, sizeof line);
	CHECK_STR(line, "[ 16/16] round 2/3  02_b on fix");
	progress_free(pr);
	/* Under half a second left: "<1s", not "~0s". */
	pr = progress_new(&plan);
	progress_add(pr, "01_a", 0, 0, S / 1000);
	progress_left_text(pr, line, sizeof line);
	CHECK_STR(line, "<1s left");
	progress_free(pr);
	strlist_release(&plan.probes);
	CHECK(progress_term_width(-1) == 0);
}

/* Not a terminal: plain lines, the first and the last of a fast session only, no "\r". */
static void test_display(void)
{
	struct session_plan plan;
	struct progress *pr;
	struct progress_display d;
	struct session_progress p;
	struct run_record r;
	volatile sig_atomic_t stop = 0;
	FILE *f = tmpfile();
	char text[2048];
	size_t n;

	CHECK(f != NULL);
	if (!f)
		return;
	plan_init(&plan, 1, SESSION_METER_RUSAGE);
	pr = progress_new(&plan);
	memset(&p, 0, sizeof p);
	memset(&r, 0, sizeof r);
	r.probe = "01_a";
	p.run = &r;
	p.arm = &arms[0];
	p.run_total = 16;
	p.rounds = 4;
	p.warmups = 1;
	p.round = 2;
	p.elapsed_ns = S / 100;
	progress_display_init(&d, "measure", f, fileno(f), &stop);
	CHECK(d.redraw == 0);
	for (int i = 1; i <= 16; i++) {
		p.run_index = i;
		if (i == 16)
			stop = 1; /* interrupted: the last line has no time left */
		progress_report(pr, &p);
		progress_display_update(&d, pr, &p);
	}
	progress_display_clear(&d);
	rewind(f);
	n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	CHECK_STR(text, "gcratchet measure: [  1/16] round 1/3  01_a on base  <1s left\n"
	                "gcratchet measure: [ 16/16] round 1/3  01_a on base\n");
	fclose(f);
	progress_free(pr);
	strlist_release(&plan.probes);
}

/*
 * Runs a session adds to its plan (session.h): counted apart, "[ 20/20] + [  1/4]", so the
 * plan's total never changes; their time is in the estimate; the first and last of the batch
 * get a plain line however fast they go.
 */
static void test_added(void)
{
	struct session_plan plan;
	struct progress *pr;
	struct progress_display d;
	struct session_progress p;
	struct run_record r;
	FILE *f = tmpfile();
	char line[128], text[2048];
	size_t n;

	CHECK(f != NULL);
	if (!f)
		return;
	plan_init(&plan, 1, SESSION_METER_RUSAGE | SESSION_METER_VALGRIND);
	pr = progress_new(&plan);
	progress_display_init(&d, "ratchet", f, fileno(f), NULL);
	memset(&p, 0, sizeof p);
	memset(&r, 0, sizeof r);
	p.run = &r;
	p.run_total = 20;
	p.rounds = 4;
	p.warmups = 1;
	/* The plan: 16 timed runs of 1 s, then 4 valgrind runs of 10 s, one at a time. */
	for (int i = 1; i <= 20; i++) {
		r.probe = i % 2 ? "01_a" : "02_b";
		p.arm = &arms[i / 2 % 2];
		p.run_index = i;
		p.round = i <= 16 ? 1 + (i - 1) / 4 : 0;
		p.warmup = i <= 4;
		p.elapsed_ns = i <= 16 ? S : 10 * S;
		progress_report(pr, &p);
		progress_display_update(&d, pr, &p);
	}
	CHECK(progress_left_ns(pr) == 0);
	/* Four valgrind runs added to confirm a figure: the plan's count stays at 20 of 20. */
	p.added = SESSION_ADDED_CONFIRM;
	p.added_total = 4;
	for (int i = 1; i <= 4; i++) {
		p.added_index = i;
		progress_report(pr, &p);
		progress_display_update(&d, pr, &p);
		if (i == 1) {
			/* Three more of 10 s, one at a time. */
			CHECK(progress_left_ns(pr) == 30 * S);
			progress_status_line(pr, &p, 0, line, sizeof line);
			CHECK_STR(line, "[ 20/20] + [  1/4] confirming  02_b on base  ~30s left");
		}
	}
	CHECK(progress_left_ns(pr) == 0);
	/* Timed rounds added: "again N", after the planned rounds. */
	p.added = SESSION_ADDED_TIMED;
	p.round = 5;
	p.run_index = 16;
	p.added_index = 2;
	p.added_total = 6;
	progress_status_text(pr, &p, 0, 0, line, sizeof line);
	CHECK_STR(line, "[ 16/20] + [  2/6] again 1  02_b on base");
	p.added = SESSION_ADDED_SPREAD;
	p.round = 0;
	progress_where(&p, line, sizeof line);
	CHECK_STR(line, "valgrind again");
	rewind(f);
	n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	CHECK_STR(text,
	          "gcratchet ratchet: [  1/20] warm-up 1/1  01_a on base  ~2m55s left\n"
	          "gcratchet ratchet: [ 20/20] valgrind  02_b on base\n"
	          "gcratchet ratchet: [ 20/20] + [  1/4] confirming  02_b on base  ~30s left\n"
	          "gcratchet ratchet: [ 20/20] + [  4/4] confirming  02_b on base\n");
	fclose(f);
	progress_free(pr);
	strlist_release(&plan.probes);
}

int main(void)
{
	test_fallbacks();
	test_valgrind_batch();
	test_two_n();
	test_formats();
	test_status_line();
	test_display();
	test_added();
	progress_free(NULL);
	return unit_done("test_progress");
}
