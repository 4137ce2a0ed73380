/*
 * The queue's policy as pure functions (queue.h): how a request is split into jobs
 * (queue_split: by probe for a sweep, by build for the other verbs but ab, whole with
 * --no-split), which verbs it runs, and which exit of a job's verb is a result
 * (queue_exit_outcome, queue_bisect_end over a scratch store holding a bisect).
 */
#include <stdlib.h>
#include <unistd.h>

#include "queue.h"
#include "unit.h"

/* args from a NULL-ended list. */
static struct strlist list_of(const char *const *items)
{
	struct strlist l = {0};

	for (; *items; items++)
		strlist_push(&l, *items);
	return l;
}

/* "a b c": a part's arguments joined, for one comparison. */
static char *joined(const struct strlist *l)
{
	struct sbuf b;

	sbuf_init(&b);
	for (size_t i = 0; i < l->n; i++)
		sbuf_addf(&b, "%s%s", i ? " " : "", l->items[i]);
	return b.data ? b.data : xstrdup("");
}

static void check_args(const struct queue_part *p, const char *want)
{
	char *got = joined(&p->args);

	CHECK_STR(got, want);
	if (strcmp(got, want) != 0)
		fprintf(stderr, "  got \"%s\"\n  want \"%s\"\n", got, want);
	free(got);
}

static void release_parts(struct queue_part *parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		queue_part_release(&parts[i]);
	free(parts);
}

static const struct queue_build two_builds[] = {
    {(char *)"--build", (char *)"./a", (char *)"1111111111111111"},
    {(char *)"--build", (char *)"./b", (char *)"2222222222222222"},
};

/* A measure of two builds (one "--build DIR", one "--build=DIR"): one job per build, each
 * without the option that names the other; --no-split keeps it whole. */
static void test_split_builds(void)
{
	static const char *const a[] = {"--build",     "./a",      "--probes", "01",
	                                "--build=./b", "--rounds", "1",        NULL};
	struct strlist args = list_of(a);
	const struct queue_place places[] = {{0, 2}, {4, 1}};
	struct queue_split_in in = {.verb = "measure",
	                            .args = &args,
	                            .builds = two_builds,
	                            .places = places,
	                            .nbuilds = 2,
	                            .probes = "01",
	                            .probes_at = {2, 2},
	                            .split = 1};
	struct queue_part *parts;
	size_t n;
	const char *how;

	queue_split(&in, &parts, &n, &how);
	CHECK_STR(how, "builds");
	CHECK(n == 2);
	if (n == 2) {
		CHECK_STR(parts[0].label, "build ./a");
		check_args(&parts[0], "--build ./a --probes 01 --rounds 1");
		CHECK(parts[0].nbuilds == 1 &&
		      strcmp(parts[0].builds[0].digest, "1111111111111111") == 0);
		CHECK_STR(parts[1].label, "build ./b");
		check_args(&parts[1], "--probes 01 --build=./b --rounds 1");
		CHECK(parts[1].nbuilds == 1 && strcmp(parts[1].builds[0].value, "./b") == 0);
	}
	release_parts(parts, n);

	in.split = 0;
	queue_split(&in, &parts, &n, &how);
	CHECK_STR(how, "none");
	CHECK(n == 1 && strcmp(parts[0].label, "whole") == 0 && parts[0].nbuilds == 2);
	check_args(&parts[0], "--build ./a --probes 01 --build=./b --rounds 1");
	release_parts(parts, n);

	/* A collector's part is labelled as one. */
	{
		const struct queue_build cb[] = {
		    {(char *)"--collector", (char *)"gen", (char *)"3333333333333333"},
		    {(char *)"--collector", (char *)"marksweep", (char *)"4444444444444444"},
		};
		static const char *const c[] = {"--collector", "gen", "--collector=marksweep",
		                                NULL};
		struct strlist cargs = list_of(c);
		const struct queue_place cp[] = {{0, 2}, {2, 1}};
		struct queue_split_in ci = {.verb = "minheap",
		                            .args = &cargs,
		                            .builds = cb,
		                            .places = cp,
		                            .nbuilds = 2,
		                            .split = 1};
		queue_split(&ci, &parts, &n, &how);
		CHECK(n == 2 && strcmp(parts[0].label, "collector gen") == 0 &&
		      strcmp(parts[1].label, "collector marksweep") == 0);
		if (n == 2) {
			check_args(&parts[0], "--collector gen");
			check_args(&parts[1], "--collector=marksweep");
		}
		release_parts(parts, n);
		strlist_release(&cargs);
	}
	strlist_release(&args);
}

/* A sweep of several --probes: one job per probe, each with both builds. */
static void test_split_probes(void)
{
	static const char *const a[] = {"--build",           "./a",       "--build", "./b",
	                                "--probes=01,05,12", "--factors", "2",       NULL};
	struct strlist args = list_of(a);
	const struct queue_place places[] = {{0, 2}, {2, 2}};
	struct queue_split_in in = {.verb = "sweep",
	                            .args = &args,
	                            .builds = two_builds,
	                            .places = places,
	                            .nbuilds = 2,
	                            .probes = "01,05,12",
	                            .probes_at = {4, 1},
	                            .split = 1};
	struct queue_part *parts;
	size_t n;
	const char *how;

	queue_split(&in, &parts, &n, &how);
	CHECK_STR(how, "probes");
	CHECK(n == 3);
	if (n == 3) {
		CHECK_STR(parts[1].label, "probe 05");
		check_args(&parts[0], "--build ./a --build ./b --probes 01 --factors 2");
		check_args(&parts[2], "--build ./a --build ./b --probes 12 --factors 2");
		CHECK(parts[2].nbuilds == 2);
	}
	release_parts(parts, n);

	/* "--probes LIST" as two arguments is replaced whole too. */
	{
		static const char *const b[] = {"--probes", "01,02", "--build", "./a", NULL};
		struct strlist bargs = list_of(b);
		const struct queue_place bp[] = {{2, 2}};
		struct queue_split_in bi = {.verb = "sweep",
		                            .args = &bargs,
		                            .builds = two_builds,
		                            .places = bp,
		                            .nbuilds = 1,
		                            .probes = "01,02",
		                            .probes_at = {0, 2},
		                            .split = 1};
		queue_split(&bi, &parts, &n, &how);
		CHECK(n == 2);
		if (n == 2)
			check_args(&parts[1], "--probes 02 --build ./a");
		release_parts(parts, n);
		strlist_release(&bargs);
	}

	/* One probe, or a sweep of several builds: one job (a sweep's builds share a host). */
	in.probes = "01";
	queue_split(&in, &parts, &n, &how);
	CHECK(n == 1 && strcmp(how, "none") == 0 && parts[0].nbuilds == 2);
	release_parts(parts, n);
	strlist_release(&args);
}

/* ab is one job whatever it names: its arms run interleaved on one host. */
static void test_split_ab(void)
{
	static const char *const a[] = {"./a", "./b", "--rounds", "7", NULL};
	struct strlist args = list_of(a);
	const struct queue_place places[] = {{0, 0}, {0, 0}};
	struct queue_split_in in = {.verb = "ab",
	                            .args = &args,
	                            .builds = two_builds,
	                            .places = places,
	                            .nbuilds = 2,
	                            .split = 1};
	struct queue_part *parts;
	size_t n;
	const char *how;

	queue_split(&in, &parts, &n, &how);
	CHECK(n == 1 && strcmp(how, "none") == 0 && parts[0].nbuilds == 2);
	check_args(&parts[0], "./a ./b --rounds 7");
	release_parts(parts, n);

	/* A bisect names no build here: one part, no build. */
	in.verb = "bisect";
	in.nbuilds = 0;
	queue_split(&in, &parts, &n, &how);
	CHECK(n == 1 && parts[0].nbuilds == 0 && parts[0].builds == NULL);
	release_parts(parts, n);
	strlist_release(&args);
}

static void test_verbs(void)
{
	CHECK(queue_runs_verb("measure") && queue_runs_verb("ab") && queue_runs_verb("ratchet"));
	CHECK(queue_runs_verb("sweep") && queue_runs_verb("minheap") && queue_runs_verb("bisect"));
	CHECK(!queue_runs_verb("check") && !queue_runs_verb("queue") && !queue_runs_verb(""));
}

/* Which exit is a result: 0 and 1 always; 2 only from a bisect that ended. */
static void test_exit_outcome(void)
{
	CHECK(queue_exit_outcome(0, QUEUE_BISECT_NONE) == QUEUE_OUTCOME_RESULT);
	CHECK(queue_exit_outcome(1, QUEUE_BISECT_NONE) == QUEUE_OUTCOME_RESULT);
	CHECK(queue_exit_outcome(2, QUEUE_BISECT_NONE) == QUEUE_OUTCOME_FAILED);
	CHECK(queue_exit_outcome(2, QUEUE_BISECT_UNFINISHED) == QUEUE_OUTCOME_FAILED);
	CHECK(queue_exit_outcome(2, QUEUE_BISECT_ENDED) == QUEUE_OUTCOME_RESULT);
	CHECK(queue_exit_outcome(3, QUEUE_BISECT_ENDED) == QUEUE_OUTCOME_FAILED);
	CHECK(queue_exit_outcome(127, QUEUE_BISECT_NONE) == QUEUE_OUTCOME_FAILED);
}

/* How a scratch store's bisect ended, from the status bisect stores. */
static void test_bisect_end(void)
{
	static const char *const statuses[] = {"running", "interrupted", "found", "ambiguous",
	                                       "failed"};
	static const enum queue_bisect_end want[] = {QUEUE_BISECT_UNFINISHED,
	                                             QUEUE_BISECT_UNFINISHED, QUEUE_BISECT_ENDED,
	                                             QUEUE_BISECT_ENDED, QUEUE_BISECT_ENDED};
	char dir[] = "/tmp/gcratchet-test-queue.XXXXXX";
	struct store_bisect_record r = {0};
	struct store *st = NULL;
	struct err e = ERR_INIT;
	int64_t id;
	char *path;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	path = xasprintf("%s/scratch.db", dir);
	CHECK(store_open(path, STORE_WRITE, &st, &e) == 0);
	CHECK(queue_bisect_end(st) == QUEUE_BISECT_NONE);
	CHECK(queue_bisect_end(NULL) == QUEUE_BISECT_NONE);
	r.started_at = "2026-12-01T10:00:00Z";
	r.command = "gcratchet bisect";
	r.source = "collector";
	r.repo = "/src/repo";
	r.target = "gen";
	r.good = "aaaa";
	r.bad = "bbbb";
	r.commits = "aaaa bbbb";
	r.probes = "01_nursery_churn";
	r.metric = "valgrind.ir";
	r.size = "ci";
	r.rounds = 1;
	r.max_rounds = 1;
	CHECK(store_bisect_begin(st, &r, &id, &e) == 0 && id == 1);
	for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
		CHECK(store_bisect_update(st, 1, statuses[i], NULL, NULL, NULL, &e) == 0);
		CHECK(queue_bisect_end(st) == want[i]);
	}
	store_close(st);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	test_split_builds();
	test_split_probes();
	test_split_ab();
	test_verbs();
	test_exit_outcome();
	test_bisect_end();
	return unit_done("test_queue_split");
}
