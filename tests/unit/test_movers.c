/*
 * test_movers.c — where the instructions went, summed over several probes for a pull
 * request's comment (movers_md_sum): by function across the probes' diffs, largest summed
 * move first, its share of the summed change, the probes it moved on, the rest counted; names
 * escaped for Markdown. Answers worked by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "fnprof.h"
#include "movers.h"
#include "unit.h"
#include "util.h"

/* 01_a: gcr_alloc +30, gone -20, plant_spin +10 (Ir +20); 02_b: gcr_alloc +90 (Ir +90). */
static void test_sum(void)
{
	struct fnprof b1, f1, b2, f2;
	struct fnprof_diff d1, d2;
	const struct fnprof_diff *diffs[2] = {&d1, &d2};
	const char *const probes[2] = {"01_a", "02_b"};
	struct sbuf b;

	fnprof_init(&b1);
	fnprof_init(&f1);
	fnprof_init(&b2);
	fnprof_init(&f2);
	fnprof_add(&b1, "gcr_alloc", "gen.c", 1000);
	fnprof_add(&b1, "main", "p.c", 500);
	fnprof_add(&b1, "gone", "old.c", 20);
	b1.total_ir = 1520;
	fnprof_add(&f1, "gcr_alloc", "gen.c", 1030);
	fnprof_add(&f1, "main", "p.c", 500);
	fnprof_add(&f1, "plant_spin", "plant.c", 10);
	f1.total_ir = 1540;
	fnprof_add(&b2, "gcr_alloc", "gen.c", 100);
	fnprof_add(&b2, "x|<b>", "x.c", 50);
	b2.total_ir = 150;
	fnprof_add(&f2, "gcr_alloc", "gen.c", 190);
	f2.total_ir = 190;
	fnprof_diff(&b1, &f1, &d1);
	fnprof_diff(&b2, &f2, &d2);

	/* The summed change is 20 + 40 = 60: gcr_alloc +120 is 200% of it, offset by the rest. */
	sbuf_init(&b);
	movers_md_sum(&b, diffs, probes, 2, 5);
	CHECK_STR(b.data, "- gcr_alloc (gen.c): +120 Ir, 200.0% of the change, on 2 probes\n"
	                  "- x\\|&lt;b&gt; (x.c): -50 Ir, -83.3% of the change, on 02_b\n"
	                  "- gone (old.c): -20 Ir, -33.3% of the change, on 01_a\n"
	                  "- plant_spin (plant.c): +10 Ir, 16.7% of the change, on 01_a\n");
	sbuf_release(&b);
	/* At most `max`, and the rest counted. */
	sbuf_init(&b);
	movers_md_sum(&b, diffs, probes, 2, 1);
	CHECK_STR(b.data, "- gcr_alloc (gen.c): +120 Ir, 200.0% of the change, on 2 probes\n"
	                  "- 3 more functions moved less\n");
	sbuf_release(&b);
	/* Nothing moved: nothing said. */
	sbuf_init(&b);
	movers_md_sum(&b, diffs, probes, 0, 5);
	CHECK(b.len == 0);
	sbuf_release(&b);
	fnprof_diff_release(&d1);
	fnprof_diff_release(&d2);
	fnprof_release(&b1);
	fnprof_release(&f1);
	fnprof_release(&b2);
	fnprof_release(&f2);
}

int main(void)
{
	test_sum();
	return unit_done("test_movers");
}
