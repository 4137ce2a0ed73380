/*
 * test_meter_valgrind.c — cachegrind's output read back: Ir alone (--cache-sim=no), the miss
 * counts and the metrics derived from them (--cache-sim=yes), columns found by the "events:"
 * line whatever their order, and files that say less than they must refused with a message.
 */
#include <stdlib.h>
#include <unistd.h>

#include "meter_valgrind.h"
#include "metrics.h"
#include "unit.h"
#include "util.h"

static char path[] = "/tmp/gcratchet-test-cg.XXXXXX";

/* Writes `text` as the cachegrind output file and reads it back. */
static int read_text(const char *text, struct meter_valgrind_counts *c, struct err *e)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		CHECK(!"cannot write the scratch file");
		return -1;
	}
	fputs(text, f);
	fclose(f);
	return meter_valgrind_read(path, 0, c, e);
}

/* Writes `text` as the cachegrind output file and reads its counts and functions back. */
static int read_profile(const char *text, struct meter_valgrind_counts *c, struct fnprof *fns,
                        struct err *e)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		CHECK(!"cannot write the scratch file");
		return -1;
	}
	fputs(text, f);
	fclose(f);
	return meter_valgrind_read_profile(path, 0, c, fns, e);
}

static double metric(const struct metric_set *s, const char *name)
{
	const double *v = metric_set_get(s, name);

	return v ? *v : -1;
}

static void test_ir_only(void)
{
	struct meter_valgrind_counts c;
	struct metric_set s = {0};
	struct err e = ERR_INIT;

	CHECK(read_text("desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: ./p ci\n"
	                "events: Ir\nfl=p.c\nfn=main\n3 7\nsummary: 543167636\n",
	                &c, &e) == 0);
	CHECK(c.ir == 543167636 && !c.cache_sim);
	meter_valgrind_metrics(&c, &s);
	CHECK(s.n == 1 && metric(&s, "valgrind.ir") == 543167636);
	metric_set_release(&s);
	/* An old file without "events:": the first column is Ir. */
	CHECK(read_text("summary: 1234\n", &c, &e) == 0 && c.ir == 1234 && !c.cache_sim);
}

static void test_cache_sim(void)
{
	struct meter_valgrind_counts c;
	struct metric_set s = {0};
	struct err e = ERR_INIT;

	CHECK(read_text("events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
	                "summary: 1000000 10 5 300000 2000 300 200000 1000 100\n",
	                &c, &e) == 0);
	CHECK(c.cache_sim && c.ir == 1000000 && c.i1mr == 10 && c.ilmr == 5);
	CHECK(c.d1mr == 2000 && c.dlmr == 300 && c.d1mw == 1000 && c.dlmw == 100);
	meter_valgrind_metrics(&c, &s);
	CHECK(s.n == 5 && metric(&s, "valgrind.ir") == 1000000);
	CHECK(metric(&s, "cachesim.d1_misses") == 3000);
	CHECK(metric(&s, "cachesim.ll_misses") == 405);
	CHECK(metric(&s, "cachesim.i1_misses") == 10);
	/* Ir + 10 * (10 + 2000 + 1000) + 100 * (5 + 300 + 100) */
	CHECK(metric(&s, "cachesim.est_cycles") == 1000000 + 30100 + 40500);
	metric_set_release(&s);

	/* Columns are found by name, in any order, among events we do not read. */
	CHECK(read_text("events: Dw Bc D1mw Ir DLmw I1mr D1mr ILmr DLmr\n"
	                "summary: 7 8 1000 1000000 100 10 2000 5 300\n",
	                &c, &e) == 0);
	CHECK(c.cache_sim && c.ir == 1000000 && c.d1mw == 1000 && c.dlmr == 300 && c.ilmr == 5);
}

static void test_refused(void)
{
	struct meter_valgrind_counts c;
	struct err e = ERR_INIT;

	CHECK(read_text("events: Ir\n", &c, &e) != 0);
	CHECK(strstr(e.msg, "no \"summary:\" line with an instruction count") != NULL);
	CHECK(read_text("events: Dr Dw\nsummary: 1 2\n", &c, &e) != 0);
	CHECK(strstr(e.msg, "no \"summary:\" line with an instruction count") != NULL);
	CHECK(read_text("events: Ir I1mr ILmr\nsummary: 1000 3\n", &c, &e) != 0);
	CHECK(strstr(e.msg, "the \"summary:\" line has no count for event ILmr") != NULL);
	/* Half a cache simulation is no measurement. */
	CHECK(read_text("events: Ir D1mr\nsummary: 1000 3\n", &c, &e) != 0);
	CHECK(strstr(e.msg, "the cache simulation counted only some of") != NULL);
	CHECK(meter_valgrind_read("/nonexistent/cg.out", 0, &c, &e) != 0);
	CHECK(strstr(e.msg, "must be declared a wrapper") != NULL);
}

/* Writes `text` as the file of one process of a traced tree, OUT.PID. */
static void write_pid_file(const char *out, int pid, const char *text)
{
	char *p = xasprintf("%s.%d", out, pid);
	FILE *f = fopen(p, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

/* Issue 12 item 4: a wrapper's tree is counted whole, the shell and the real program. */
static void test_tree(void)
{
	static const struct meter_valgrind vg = {(char *)"/usr/bin/valgrind", (char *)"v"};
	char dir[] = "/tmp/gcratchet-test-cgtree.XXXXXX", *out, *other, *name;
	char *const probe[] = {(char *)"probe", (char *)"ci", NULL};
	char **argv;
	struct meter_valgrind_counts c;
	struct err e;
	int traced = 0, named = 0;

	CHECK(mkdtemp(dir) != NULL);
	out = xasprintf("%s/cg.3.out", dir);
	argv = meter_valgrind_argv(&vg, out, 0, 1, probe);
	name = xasprintf("--cachegrind-out-file=%s.%%p", out);
	for (size_t i = 0; argv[i]; i++) {
		traced |= strcmp(argv[i], "--trace-children=yes") == 0;
		named |= strcmp(argv[i], name) == 0;
	}
	CHECK(traced && named);
	meter_valgrind_argv_free(argv);
	argv = meter_valgrind_argv(&vg, out, 0, 0, probe);
	for (size_t i = 0; argv[i]; i++)
		CHECK(strcmp(argv[i], "--trace-children=yes") != 0);
	meter_valgrind_argv_free(argv);
	free(name);

	CHECK(meter_valgrind_read(out, 1, &c, &e) != 0);
	CHECK(strstr(e.msg, "valgrind wrote no count for any process") != NULL);
	write_pid_file(out, 101, "events: Ir\nsummary: 235824\n");
	write_pid_file(out, 102, "events: Ir\nsummary: 543168220\n");
	/* Another run's files, and names that only start alike, are not this tree's. */
	other = xasprintf("%s/cg.31.out", dir);
	write_pid_file(other, 103, "events: Ir\nsummary: 7\n");
	write_pid_file(out, 0, "events: Ir\nsummary: 7\n");
	{
		char *junk = xasprintf("%s.tmp", out);
		FILE *f = fopen(junk, "w");
		if (f)
			fclose(f);
		free(junk);
	}
	CHECK(meter_valgrind_read(out, 1, &c, &e) == 0);
	CHECK_NEAR(c.ir, 235824.0 + 543168220.0 + 7, 0);
	CHECK(c.cache_sim == 0);
	/* The tree's functions: each process's, summed by name (a shell and the program it ran). */
	write_pid_file(out, 101,
	               "events: Ir\nfl=sh.c\nfn=main\n1 235000\nfn=exec\n2 824\n"
	               "summary: 235824\n");
	write_pid_file(out, 102,
	               "events: Ir\nfl=p.c\nfn=main\n1 168220\nfn=work\n2 543000000\n"
	               "summary: 543168220\n");
	write_pid_file(out, 0, "events: Ir\nfl=x.c\nfn=main\n1 7\nsummary: 7\n");
	{
		struct fnprof p;
		CHECK(meter_valgrind_read_profile(out, 1, &c, &p, &e) == 0);
		CHECK(p.total_ir == c.ir && p.n == 3);
		CHECK(p.n == 3 && strcmp(p.fns[0].name, "work") == 0);
		CHECK(fnprof_find(&p, "main") &&
		      fnprof_find(&p, "main")->ir == 235000 + 168220 + 7);
		fnprof_release(&p);
	}
	write_pid_file(out, 104,
	               "events: Ir I1mr ILmr D1mr DLmr D1mw DLmw\nsummary: 1 1 1 1 1 1 1\n");
	CHECK(meter_valgrind_read(out, 1, &c, &e) != 0);
	CHECK(strstr(e.msg, "another cache simulation") != NULL);
	meter_valgrind_remove(out);
	CHECK(meter_valgrind_read(out, 1, &c, &e) != 0);
	meter_valgrind_remove(other);
	{
		char *junk = xasprintf("%s.tmp", out);
		unlink(junk);
		free(junk);
	}
	CHECK(rmdir(dir) == 0);
	free(other);
	free(out);
}

/* The sanity floor: a shell's few million Ir for seconds of user time is flagged. */
static void test_wrapper_suspect(void)
{
	char *w = meter_valgrind_wrapper_suspect(2.2e6, 1.5e9);

	CHECK(w != NULL);
	CHECK(w && strstr(w, "Ir looks like a wrapper's (2200000 Ir for 1.500 s of user time): "
	                     "declare the probe a wrapper in the manifest"));
	free(w);
	/* A real program: 5e8 Ir in 0.5 s; at the floor exactly; unknown user time. */
	CHECK(meter_valgrind_wrapper_suspect(5e8, 5e8) == NULL);
	CHECK(meter_valgrind_wrapper_suspect(1e7, 1e9) == NULL);
	w = meter_valgrind_wrapper_suspect(9.9e6, 1e9);
	CHECK(w != NULL);
	free(w);
	CHECK(meter_valgrind_wrapper_suspect(2.2e6, 0) == NULL);
}

/*
 * Functions: the Ir of every fn= block, one function across the files its code came from
 * (a header inlined into it), the Ir column found by "events:", trailing counts left out,
 * names left mangled demangled by c++filt where it is installed, and a file whose functions
 * do not add up to its summary refused.
 */
static void test_profile(void)
{
	struct meter_valgrind_counts c;
	struct fnprof p;
	struct err e = ERR_INIT;
	const struct fnprof_fn *f;

	CHECK(read_profile("events: Ir\nfl=p.c\nfn=main\n3 7\n4 3\nfl=gen.c\nfn=gcr_alloc\n10 50\n"
	                   "fl=gen.h\n20 30\nfl=p.c\nfn=main\n9 5\nsummary: 95\n",
	                   &c, &p, &e) == 0);
	CHECK(c.ir == 95 && p.total_ir == 95);
	CHECK(p.n == 2);
	CHECK_STR(p.fns[0].name, "gcr_alloc");
	CHECK(p.fns[0].ir == 80);
	CHECK_STR(p.fns[0].file, "gen.c");
	CHECK_STR(p.fns[1].name, "main");
	CHECK(p.fns[1].ir == 15);
	fnprof_release(&p);

	/* Ir is the second column here; a line that stops early counts 0 for the rest. */
	CHECK(read_profile("events: Dr Ir\nfl=a.c\nfn=f\n1 5 100\n2 7\nfn=g\n3 0 11\n"
	                   "summary: 12 111\n",
	                   &c, &p, &e) == 0);
	CHECK(c.ir == 111 && p.n == 2 && p.fns[0].ir == 100 && p.fns[1].ir == 11);
	fnprof_release(&p);

	/* Lines that do not add up to the summary: damaged, or not cachegrind's. */
	CHECK(read_profile("events: Ir\nfl=a.c\nfn=f\n1 5\nsummary: 6\n", &c, &p, &e) != 0);
	CHECK(strstr(e.msg, "its functions count 5 Ir in all, its \"summary:\" line 6") != NULL);
	CHECK(read_profile("events: Ir\n1 5\nsummary: 5\n", &c, &p, &e) != 0);
	CHECK(strstr(e.msg, ":2: a count before any \"fn=\" line") != NULL);

	CHECK(read_profile("events: Ir\nfl=a.cc\nfn=_ZN3gcr5allocEv\n1 40\nfn=plain\n2 2\n"
	                   "summary: 42\n",
	                   &c, &p, &e) == 0);
	f = fnprof_find(&p,
	                access("/usr/bin/c++filt", X_OK) == 0 ? "gcr::alloc()" : "_ZN3gcr5allocEv");
	CHECK(f && f->ir == 40);
	fnprof_release(&p);
}

/*
 * Issue 29 item 3: valgrind's own messages go to a log beside the counts, never to the probe's
 * stderr; what it said is read back (a tree's logs too), its chatter told from its errors.
 */
static void test_log(void)
{
	static const struct meter_valgrind vg = {(char *)"/usr/bin/valgrind", (char *)"v"};
	char dir[] = "/tmp/gcratchet-test-cglog.XXXXXX", *out, *log, *name, *said;
	char *const probe[] = {(char *)"probe", (char *)"ci", NULL};
	char **argv;
	int named = 0;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	out = xasprintf("%s/cg.4.out", dir);
	log = xasprintf("%s.log", out);
	for (int tree = 0; tree < 2; tree++) {
		argv = meter_valgrind_argv(&vg, out, 1, tree, probe);
		name = tree ? xasprintf("--log-file=%s.%%p", log) : xasprintf("--log-file=%s", log);
		named = 0;
		for (size_t i = 0; argv[i]; i++)
			named |= strcmp(argv[i], name) == 0;
		CHECK(named);
		meter_valgrind_argv_free(argv);
		free(name);
	}
	CHECK(meter_valgrind_log(out, 0) == NULL);
	f = fopen(log, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("--77-- warning: L3 cache found, using its data for the LL simulation.\n"
		      "==77== Valgrind's memory management: out of memory:\n"
		      "==77==    newSuperblock's request for 4096 bytes failed.\n"
		      "--77-- warning: simulated LL cache: line_size 64  assoc 30\n",
		      f);
		fclose(f);
	}
	said = meter_valgrind_log(out, 0);
	CHECK(said && strstr(said, "L3 cache found"));
	free(said);
	said = meter_valgrind_log_error(
	    "--77-- warning: L3 cache found\n==77== Valgrind's memory management: out of memory:\n"
	    "==77==    newSuperblock's request for 4096 bytes failed.\n--77-- warning: x\n");
	CHECK_STR(said ? said : "(none)", "newSuperblock's request for 4096 bytes failed.");
	free(said);
	CHECK(meter_valgrind_log_error("--77-- warning: L3 cache found\n==77==\n") == NULL);
	write_pid_file(log, 301, "==301== from the child\n");
	said = meter_valgrind_log(out, 1);
	CHECK(said && strcmp(said, "==301== from the child\n") == 0);
	free(said);
	meter_valgrind_remove(out);
	CHECK(access(log, F_OK) != 0);
	name = xasprintf("%s.301", log);
	CHECK(access(name, F_OK) != 0);
	free(name);
	rmdir(dir);
	free(log);
	free(out);
}

int main(void)
{
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("mkstemp");
		return 2;
	}
	close(fd);
	test_ir_only();
	test_log();
	test_cache_sim();
	test_refused();
	test_tree();
	test_wrapper_suspect();
	test_profile();
	unlink(path);
	return unit_done("test_meter_valgrind");
}
