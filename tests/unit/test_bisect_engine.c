/*
 * test_bisect_engine.c — bisect's engine on synthetic histories, with no build and no probe:
 * every commit's build folder is set beforehand (so the engine builds nothing), and the
 * measure hook answers each session with runs whose figure is known (a planted change at one
 * commit, noise by round where a test wants it). A real store (SQLite, in a temporary folder)
 * keeps the steps. Checked: the exact search finds the planted commit in about log2 steps and
 * stores the mode; ends that do not repeat fall back to paired runs and still find it; a
 * stopped bisect loads back to where it stood and measures nothing again; ends that did not
 * move make no search; an interruption and a failed measurement come back as -2 and -1; the
 * engine reports by events and through no other way.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect_engine.h"
#include "unit.h"
#include "util.h"

#define PROBE  "15_request_latency"
#define METRIC "census.minor_collections"

static char dir[] = "/tmp/gcratchet-test-bisect-engine.XXXXXX";

/* What the fake measurements do, and what the engine told. */
struct fake {
	size_t plant; /* the first commit whose figure moved */
	double before, after;
	double noise; /* added on odd rounds: ends that do not repeat */
	int fail_at;  /* the call that fails (-1) or is interrupted (-2); 0: none */
	int fail_rc;
	int calls; /* sessions measured */
	int64_t next_sid;
	size_t events[BISECT_EV_PASS + 1];
	size_t nmoved;      /* from the MODE event */
	const char *varies; /* from a CENSUS_VARIES event */
};

static void on_event(void *ctx, const struct bisect_engine *eng, const struct bisect_event *ev)
{
	struct fake *f = ctx;

	(void)eng;
	f->events[ev->kind]++;
	if (ev->kind == BISECT_EV_MODE)
		f->nmoved = ev->nmoved;
	if (ev->kind == BISECT_EV_CENSUS_VARIES)
		f->varies = ev->text;
}

/* The commit of a build folder "DIR/build-N". */
static size_t commit_of(const char *build_dir)
{
	const char *dash = strrchr(build_dir, '-');

	return dash ? (size_t)strtoul(dash + 1, NULL, 10) : 0;
}

static int measure(void *ctx, const struct bisect_measure *m, int64_t *sid, struct store_run **runs,
                   size_t *nruns, struct err *e)
{
	struct fake *f = ctx;
	int rounds = m->valgrind_runs > 0 ? m->valgrind_runs : m->rounds;

	*runs = NULL;
	*nruns = 0;
	*sid = ++f->next_sid;
	if (++f->calls == f->fail_at) {
		if (f->fail_rc == -1)
			err_setc(e, ERR_FAILED, "the fake session failed");
		return f->fail_rc;
	}
	CHECK(strcmp(m->probes, PROBE) == 0);
	CHECK(strcmp(m->meters, "rusage,census") == 0 && m->events == NULL);
	CHECK(m->narms >= 1 && m->narms <= BISECT_MAX_ARMS && rounds >= 1);
	CHECK(strstr(m->command, "(bisect ") != NULL);
	*runs = xcalloc((size_t)rounds * m->narms, sizeof **runs);
	for (int r = 1; r <= rounds; r++)
		for (size_t a = 0; a < m->narms; a++) {
			struct store_run *run = &(*runs)[(*nruns)++];
			size_t i = commit_of(m->dirs[a]);
			double v = i >= f->plant ? f->after : f->before;
			run->session_id = *sid;
			run->probe = xstrdup(PROBE);
			run->size = xstrdup("ci");
			run->round = r;
			run->arm = (int)a;
			run->kind = RUN_KIND_TIMED;
			run->status = RUN_STATUS_OK;
			run->checksum = xstrdup("c0ffee");
			metric_set_add(&run->metrics, METRIC, v + (r % 2 ? f->noise : 0));
		}
	return 0;
}

static volatile sig_atomic_t stop;
static int next_scan;        /* engine_new's engines scan with so many stretches; 0: bisect */
static size_t largest_batch; /* the most measurements measure_many was given at once */

/* A fleet's hook, here: each measurement by measure, noting how many came at once. */
static int measure_many(void *ctx, const struct bisect_measure *m, size_t n,
                        struct bisect_measured *out)
{
	if (n > largest_batch)
		largest_batch = n;
	for (size_t i = 0; i < n; i++) {
		/* the ends are two arms; a scan's commit is between its neighbours */
		CHECK(m[i].narms == (strstr(m[i].command, "scan pass") ? 3u : 2u));
		out[i].rc = measure(ctx, &m[i], &out[i].session_id, &out[i].runs, &out[i].nruns,
		                    &out[i].err);
	}
	return 0;
}

/*
 * An engine over n commits with their build folders set, probe and metric chosen (threshold:
 * --threshold, NULL for the metric's band), begun.
 */
static void engine_new(struct bisect_engine *eng, struct fake *f, const char *db, size_t n,
                       const char *threshold)
{
	struct bisect_hooks hooks = {on_event, measure, f, NULL};
	struct err e = ERR_INIT;

	stop = 0;
	bisect_engine_init(eng, &stop, &hooks);
	eng->source = BISECT_SRC_CMD;
	bisect_engine_set_target(eng, "sh build.sh");
	eng->repo = xasprintf("%s/repo", dir);
	eng->root = xstrdup(dir);
	eng->metric = xstrdup(METRIC);
	eng->command = xstrdup("gcratchet bisect (test)");
	eng->scan = next_scan;
	CHECK(store_open(db, STORE_WRITE, &eng->st, &e) == 0);
	CHECK(bisect_engine_setup_metric(eng, threshold) == 0);
	eng->commits = xcalloc(n, sizeof *eng->commits);
	eng->ncommits = n;
	for (size_t i = 0; i < n; i++) {
		eng->commits[i].hash = xasprintf("%040zu", i + 1);
		eng->commits[i].subject = xasprintf("commit %zu", i);
		eng->commits[i].dir = xasprintf("%s/build-%zu", dir, i);
	}
	CHECK(bisect_engine_add_probe(eng, PROBE) == 0);
	CHECK(bisect_engine_add_probe(eng, PROBE) == -1);
	CHECK(strstr(eng->err.msg, "--probe " PROBE " is named twice") != NULL);
	CHECK(bisect_engine_begin(eng, 0, 0) == 0 && eng->id > 0);
}

/* An exact metric whose ends repeat: one run of each commit decides, about log2 n steps. */
static void test_exact(const char *db)
{
	struct bisect_engine eng, again;
	struct fake f = {.plant = 7, .before = 36, .after = 37};
	struct bisect_hooks hooks = {on_event, measure, &f, NULL};
	struct bisect_state st;
	struct store_bisect b;
	struct err e = ERR_INIT;
	char *detail = NULL;
	int calls;

	engine_new(&eng, &f, db, 12, NULL);
	CHECK(bisect_engine_run(&eng, &detail) == 0 && detail == NULL);
	bisect_search_state(&eng.search, &st);
	CHECK(st.found && st.hi == 7 && st.lo == 6);
	CHECK(eng.exact == 1 && eng.probes[0].moved && eng.probes[0].sign == 1);
	CHECK(f.events[BISECT_EV_END_BUILT] == 2 && f.events[BISECT_EV_MODE] == 1 && f.nmoved == 1);
	CHECK(f.events[BISECT_EV_NOT_REPEATED] == 0 && f.events[BISECT_EV_END_BROKEN] == 0);
	/* The ends and each step are events; a step is announced before it is measured. */
	CHECK(f.events[BISECT_EV_STEP] == eng.nsteps && eng.nsteps >= 4 && eng.nsteps <= 2 + 4);
	CHECK(f.events[BISECT_EV_NEXT] == eng.nsteps - 2);
	/* The ends' session, then one session a step. */
	CHECK(f.calls == 1 + (int)(eng.nsteps - 2));
	CHECK(bisect_engine_value(&eng, 6, 0) == 36 && bisect_engine_value(&eng, 7, 0) == 37);
	CHECK(store_bisect_get(eng.st, eng.id, &b, &e) == 0);
	CHECK(b.mode && strcmp(b.mode, "exact") == 0);
	store_bisect_release(&b);

	/* Loaded back, it stands where it stood and measures nothing more. */
	calls = f.calls;
	stop = 0;
	bisect_engine_init(&again, &stop, &hooks);
	again.root = xstrdup(dir);
	CHECK(store_open(db, STORE_WRITE, &again.st, &e) == 0);
	CHECK(bisect_engine_load(&again, eng.id) == 0);
	CHECK(again.nsteps == eng.nsteps && again.exact == 1 && again.nprobes == 1);
	CHECK(again.probes[0].moved && again.probes[0].sign == 1);
	CHECK(again.rounds == eng.rounds && again.max_rounds == eng.max_rounds);
	bisect_search_state(&again.search, &st);
	CHECK(st.found && st.hi == 7);
	CHECK(bisect_engine_run(&again, &detail) == 0 && f.calls == calls);
	bisect_engine_release(&again);
	bisect_engine_release(&eng);
}

/*
 * A scan: the one change found with its size, in fewer measurements than commits, on an exact
 * figure (one arm a measurement) and, with a fleet's hook, each commit between its neighbours
 * and a pass's measurements given at once; loaded back, it stands where it stood.
 */
static void test_scan(const char *db)
{
	struct bisect_engine eng, again;
	struct fake f = {.plant = 7, .before = 36, .after = 40};
	struct bisect_hooks hooks = {on_event, measure, &f, NULL};
	struct bisect_change *ch;
	char *detail = NULL;
	double pct, ends, found;
	size_t n;
	struct err e = ERR_INIT;

	next_scan = 4;
	engine_new(&eng, &f, db, 16, NULL);
	CHECK(bisect_engine_run(&eng, &detail) == 0 && detail == NULL);
	ch = bisect_engine_changes(&eng, &n);
	CHECK(n == 1 && ch[0].find.hi == 7 && ch[0].find.from == 6 && ch[0].sign == 1);
	CHECK(ch[0].find.link == BISECT_LINK_MOVED);
	free(ch);
	CHECK(bisect_engine_into(&eng, 7, 0, &pct) == 4 && pct == 100.0 * 4 / 36);
	bisect_engine_explained(&eng, 0, &ends, &found);
	CHECK(ends == 4 && found == 4);
	CHECK(bisect_scan_count(&eng.scanner, 1) < 16 && f.events[BISECT_EV_PASS] == eng.passes);
	CHECK(f.calls == 1 + (int)(eng.nsteps - 2));

	stop = 0;
	bisect_engine_init(&again, &stop, &hooks);
	again.root = xstrdup(dir);
	CHECK(store_open(db, STORE_WRITE, &again.st, &e) == 0);
	CHECK(bisect_engine_load(&again, eng.id) == 0 && again.scan == 4);
	ch = bisect_engine_changes(&again, &n);
	CHECK(n == 1 && ch[0].find.hi == 7);
	free(ch);
	CHECK(bisect_engine_into(&again, 7, 0, &pct) == 4);
	bisect_engine_release(&again);
	bisect_engine_release(&eng);

	/* Through a fleet's hook: three arms each, the second pass's two at once. */
	memset(&f, 0, sizeof f);
	f.plant = 11;
	f.before = 36;
	f.after = 30;
	largest_batch = 0;
	engine_new(&eng, &f, db, 16, NULL);
	eng.hooks.measure_many = measure_many;
	CHECK(bisect_engine_run(&eng, &detail) == 0 && detail == NULL);
	ch = bisect_engine_changes(&eng, &n);
	CHECK(n == 1 && ch[0].find.hi == 11 && ch[0].sign == -1);
	free(ch);
	CHECK(largest_batch >= 2);
	bisect_engine_release(&eng);
	next_scan = 0;
}

/*
 * Ends that do not repeat themselves: no exact judging, but paired runs find the commit. A 5%
 * threshold: a counter's own band is 0, within which no paired run can show a commit unmoved.
 */
static void test_fallback(const char *db)
{
	struct bisect_engine eng;
	struct fake f = {.plant = 3, .before = 1000, .after = 1200, .noise = 1};
	struct bisect_state st;
	char *detail = NULL;

	engine_new(&eng, &f, db, 6, "5%");
	CHECK(bisect_engine_run(&eng, &detail) == 0 && detail == NULL);
	CHECK(f.events[BISECT_EV_NOT_REPEATED] == 1 && eng.exact == 0);
	bisect_search_state(&eng.search, &st);
	CHECK(st.found && st.hi == 3);
	/* The ends twice each, the ends paired, then each step paired beside the good end. */
	CHECK(f.calls >= 2 + (int)(eng.nsteps - 2));
	bisect_engine_release(&eng);
}

/* Ends that did not move make no search, and say so. */
static void test_unmoved(const char *db)
{
	struct bisect_engine eng;
	struct fake f = {.plant = 100, .before = 36, .after = 36};
	char *detail = NULL;

	engine_new(&eng, &f, db, 5, NULL);
	CHECK(bisect_engine_run(&eng, &detail) == 1 && detail != NULL);
	CHECK(detail &&
	      strstr(detail, METRIC " did not move between the ends: " PROBE " 36 -> 36") != NULL);
	CHECK(f.events[BISECT_EV_MODE] == 0 && f.events[BISECT_EV_STEP] == 2);
	free(detail);
	bisect_engine_release(&eng);
}

/* A measurement interrupted, or failed, ends the run: -2 with stop set, -1 with eng.err. */
static void test_stops(const char *db)
{
	struct bisect_engine eng;
	struct fake f = {.plant = 7, .before = 36, .after = 37, .fail_at = 3, .fail_rc = -2};
	char *detail = NULL;

	engine_new(&eng, &f, db, 12, NULL);
	CHECK(bisect_engine_run(&eng, &detail) == -2 && stop != 0);
	CHECK(eng.nsteps == 3); /* the ends and the one step before */
	bisect_engine_release(&eng);

	memset(&f, 0, sizeof f);
	f.plant = 7, f.before = 36, f.after = 37, f.fail_at = 2, f.fail_rc = -1;
	engine_new(&eng, &f, db, 12, NULL);
	CHECK(bisect_engine_run(&eng, &detail) == -1 && stop == 0);
	CHECK_STR(eng.err.msg, "the fake session failed");
	CHECK(eng.nsteps == 2);
	bisect_engine_release(&eng);
}

int main(void)
{
	char *db, *cmd;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	db = xasprintf("%s/bisect.db", dir);
	/* A resumed bisect finds its repository again (git rev-parse --show-toplevel). */
	cmd = xasprintf("git init -q %s/repo", dir);
	if (system(cmd) != 0)
		fprintf(stderr,
		        "test_bisect_engine: git init failed: the resume check will fail\n");
	free(cmd);
	test_exact(db);
	test_fallback(db);
	test_scan(db);
	test_unmoved(db);
	test_stops(db);
	free(db);
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_bisect_engine: could not remove %s\n", dir);
	free(cmd);
	return unit_done("test_bisect_engine");
}
