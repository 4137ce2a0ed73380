/*
 * test_fnprof.c — profiles of Ir by function: what is kept (0.1% of the run, and the 50
 * largest), merging by name, the median over an arm's runs, the diff of two profiles (shares
 * of the change, functions kept on one side only, and under a cut list's floor), the
 * invariants, and file names made relative to the source tree.
 */
#include <math.h>
#include <stdlib.h>

#include "fnprof.h"
#include "unit.h"
#include "util.h"

static void test_keep(void)
{
	struct fnprof p;
	char name[32];

	fnprof_init(&p);
	/* 60 small functions of 1 Ir and one of 10^6: the large one, then 49 of the small. */
	fnprof_add(&p, "big", "a.c", 1e6);
	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof name, "f%02d", i);
		fnprof_add(&p, name, "b.c", 1);
	}
	p.total_ir = 1e6 + 60;
	fnprof_keep(&p);
	CHECK(p.n == FNPROF_KEEP_MIN);
	CHECK_STR(p.fns[0].name, "big");
	CHECK_STR(p.fns[1].name, "f00");
	CHECK(fnprof_cut(&p) && fnprof_floor(&p) == 1);
	fnprof_release(&p);

	/* Above 50, every function with 0.1% of the run is kept. */
	fnprof_init(&p);
	for (int i = 0; i < 70; i++) {
		snprintf(name, sizeof name, "g%02d", i);
		fnprof_add(&p, name, NULL, i < 65 ? 100 : 1);
	}
	p.total_ir = 65 * 100 + 5;
	fnprof_keep(&p);
	CHECK(p.n == 65);
	CHECK(fnprof_cut(&p));
	fnprof_release(&p);
}

static void test_merge(void)
{
	struct fnprof p;
	struct err e = ERR_INIT;

	fnprof_init(&p);
	/* One function in two files (a header inlined into it): one entry, the larger file's. */
	fnprof_add(&p, "gcr_alloc", "gen.h", 30);
	fnprof_add(&p, "main", "p.c", 50);
	fnprof_add(&p, "gcr_alloc", "gen.c", 40);
	p.total_ir = 120;
	fnprof_merge(&p);
	CHECK(p.n == 2);
	CHECK_STR(p.fns[0].name, "gcr_alloc");
	CHECK(p.fns[0].ir == 70);
	CHECK_STR(p.fns[0].file, "gen.c");
	CHECK(!fnprof_cut(&p) && fnprof_floor(&p) == 0);
	CHECK(fnprof_check(&p, &e) == 0);
	/* Out of order, a name twice, more than the run: each refused. */
	p.fns[1].ir = 80;
	CHECK(fnprof_check(&p, &e) != 0 && strstr(e.msg, "not in order"));
	p.fns[1].ir = 50;
	p.total_ir = 100;
	CHECK(fnprof_check(&p, &e) != 0 && strstr(e.msg, "more than the run"));
	p.total_ir = 120;
	p.fns[1].ir = -1;
	CHECK(fnprof_check(&p, &e) != 0 && strstr(e.msg, "not a count"));
	p.fns[1].ir = 50;
	/* A name twice but not side by side (issue 41, defect 8): in order by Ir, each a count. */
	fnprof_add(&p, "z_last", NULL, 1);
	p.total_ir = 200;
	CHECK(fnprof_check(&p, &e) == 0);
	free(p.fns[2].name);
	p.fns[2].name = xstrdup(p.fns[0].name);
	CHECK(fnprof_check(&p, &e) != 0 && strstr(e.msg, "is listed twice"));
	fnprof_release(&p);
}

static void test_median(void)
{
	struct fnprof r[3], m;
	const struct fnprof *runs[3] = {&r[0], &r[1], &r[2]};

	for (int i = 0; i < 3; i++)
		fnprof_init(&r[i]);
	fnprof_add(&r[0], "a", "x.c", 100);
	fnprof_add(&r[0], "b", "x.c", 10);
	r[0].total_ir = 110;
	fnprof_add(&r[1], "a", "x.c", 104);
	fnprof_add(&r[1], "b", "x.c", 12);
	r[1].total_ir = 116;
	/* The third run kept only a: b counts 0 there, and its median is of 10, 12, 0. */
	fnprof_add(&r[2], "a", "x.c", 102);
	fnprof_add(&r[2], "c", "y.c", 1);
	r[2].total_ir = 120;
	fnprof_median(runs, 3, &m);
	CHECK(m.total_ir == 116);
	CHECK(m.n == 2);
	CHECK(fnprof_find(&m, "a") && fnprof_find(&m, "a")->ir == 102);
	CHECK(fnprof_find(&m, "b") && fnprof_find(&m, "b")->ir == 10);
	/* Kept by one run of three: its median is 0, and it is no function of the cell. */
	CHECK(fnprof_find(&m, "c") == NULL);
	fnprof_release(&m);
	for (int i = 0; i < 3; i++)
		fnprof_release(&r[i]);
}

static void test_diff(void)
{
	struct fnprof base, fix;
	struct fnprof_diff d;
	char note[128];

	fnprof_init(&base);
	fnprof_init(&fix);
	fnprof_add(&base, "gcr_alloc", "gen.c", 1000);
	fnprof_add(&base, "main", "p.c", 500);
	fnprof_add(&base, "gone", "old.c", 20);
	base.total_ir = 1520;
	fnprof_add(&fix, "gcr_alloc", "gen.c", 1030);
	fnprof_add(&fix, "main", "p.c", 500);
	fnprof_add(&fix, "plant_spin", "plant.c", 10);
	fix.total_ir = 1540;
	fnprof_diff(&base, &fix, &d);
	CHECK(d.delta == 20);
	/* main did not move: it is not a mover. */
	CHECK(d.n == 3);
	CHECK_STR(d.movers[0].name, "gcr_alloc");
	CHECK(d.movers[0].delta == 30 && d.movers[0].side == FNPROF_BOTH);
	CHECK_NEAR(d.movers[0].share, 1.5, 1e-12);
	CHECK_STR(d.movers[1].name, "gone");
	CHECK(d.movers[1].side == FNPROF_BASE_ONLY && d.movers[1].fix_ir == 0 &&
	      !d.movers[1].under);
	CHECK_STR(d.movers[2].name, "plant_spin");
	CHECK(d.movers[2].side == FNPROF_FIX_ONLY && d.movers[2].base_ir == 0);
	fnprof_mover_note(&d.movers[2], "base", "fix", note, sizeof note);
	CHECK_STR(note, "only in fix");
	fnprof_diff_release(&d);

	/*
	 * BASE was cut (floor 20): plant_spin's 10 in FIX may be in BASE too, under its floor,
	 * so no move of it is told; one of 30 is above the floor, listed as under it.
	 */
	base.total_ir = 2000;
	fnprof_diff(&base, &fix, &d);
	CHECK(d.n == 2 && isfinite(d.movers[0].share));
	for (size_t i = 0; i < d.n; i++)
		CHECK(strcmp(d.movers[i].name, "plant_spin") != 0);
	fnprof_diff_release(&d);
	fix.fns[2].ir = 30;
	fix.total_ir = 1560;
	fnprof_diff(&base, &fix, &d);
	CHECK(d.n == 3);
	for (size_t i = 0; i < d.n; i++)
		if (strcmp(d.movers[i].name, "plant_spin") == 0) {
			CHECK(d.movers[i].under && d.movers[i].under_ir == 20 &&
			      d.movers[i].delta == 30);
			fnprof_mover_note(&d.movers[i], "base", "fix", note, sizeof note);
			CHECK_STR(note, "only in fix");
		}
	fnprof_diff_release(&d);
	/* The same totals: no share to speak of. */
	fix.total_ir = base.total_ir;
	fnprof_diff(&base, &fix, &d);
	CHECK(d.n >= 2 && isnan(d.movers[0].share));
	fnprof_diff_release(&d);
	fnprof_release(&base);
	fnprof_release(&fix);
}

static void test_relative(void)
{
	struct fnprof p;

	fnprof_init(&p);
	fnprof_add(&p, "a", "/src/tree/collectors/../probes/02_x.c", 3);
	fnprof_add(&p, "b", "./string/../sysdeps/x86_64/memmove.S", 2);
	fnprof_add(&p, "c", "???", 1);
	fnprof_add(&p, "d", "/elsewhere/./gen.c", 1);
	fnprof_files_relative(&p, "/src/tree");
	CHECK_STR(p.fns[0].file, "probes/02_x.c");
	CHECK_STR(p.fns[1].file, "sysdeps/x86_64/memmove.S");
	CHECK_STR(p.fns[2].file, "???");
	CHECK_STR(p.fns[3].file, "/elsewhere/gen.c");
	fnprof_release(&p);
}

int main(void)
{
	test_keep();
	test_merge();
	test_median();
	test_diff();
	test_relative();
	return unit_done("test_fnprof");
}
