/* util's probe order (every output lists probes by number, whatever order a session ran them)
 * and a probe found by its name or number. */
#include "unit.h"
#include "util.h"

int main(void)
{
	struct strlist l = {0};

	CHECK(strlist_probe_cmp("01_nursery_churn", "02_survivor_promotion") < 0);
	CHECK(strlist_probe_cmp("9_small", "10_large_objects") < 0);
	CHECK(strlist_probe_cmp("10_large_objects", "9_small") > 0);
	/* Leading zeros do not count, and a number too long for any integer still orders. */
	CHECK(strlist_probe_cmp("007_x", "8_y") < 0);
	CHECK(strlist_probe_cmp("123456789012345678901234567890_a", "99_b") > 0);
	/* A name without a number comes after every numbered one, then byte order. */
	CHECK(strlist_probe_cmp("99_last", "alpha") < 0);
	CHECK(strlist_probe_cmp("alpha", "beta") < 0);
	CHECK(strlist_probe_cmp("01_a", "01_b") < 0);
	CHECK(strlist_probe_cmp("1_a", "01_a") != 0);
	CHECK(strlist_probe_cmp("01_a", "01_a") == 0);

	strlist_split(&l, "14_grow_then_churn,zeta,03_cross_gen,1_first,02_promote");
	strlist_sort_probes(&l);
	CHECK(l.n == 5);
	CHECK_STR(l.items[0], "1_first");
	CHECK_STR(l.items[1], "02_promote");
	CHECK_STR(l.items[2], "03_cross_gen");
	CHECK_STR(l.items[3], "14_grow_then_churn");
	CHECK_STR(l.items[4], "zeta");
	strlist_release(&l);
	/* An empty list sorts (no items array). */
	strlist_sort_probes(&l);
	CHECK(l.n == 0);
	/* run_capture: stdout appended, the exit status, 127 for a program that is not there. */
	{
		char *ok[] = {(char *)"sh", (char *)"-c", (char *)"echo one; echo two >&2; exit 3",
		              NULL};
		char *none[] = {(char *)"gcratchet-no-such-program", NULL};
		struct sbuf b;
		sbuf_init(&b);
		sbuf_add(&b, "x", 1);
		CHECK(run_capture(ok, 1, &b) == 3);
		CHECK_STR(b.data, "xone\n");
		CHECK(run_capture(none, 1, &b) == 127);
		CHECK_STR(b.data, "xone\n");
		sbuf_release(&b);
	}
	/* A probe asked for by name, or by number ("1" and "01" both); a number is all digits. */
	strlist_split(&l, "01_nursery_churn,02_survivor_promotion,foreign_probe");
	CHECK_STR(strlist_find_probe(&l, "02_survivor_promotion"), "02_survivor_promotion");
	CHECK_STR(strlist_find_probe(&l, "1"), "01_nursery_churn");
	CHECK_STR(strlist_find_probe(&l, "002"), "02_survivor_promotion");
	CHECK(strlist_find_probe(&l, "3") == NULL);
	CHECK(strlist_find_probe(&l, "1x") == NULL);
	CHECK(strlist_find_probe(&l, "") == NULL);
	CHECK_STR(strlist_find_probe(&l, "foreign_probe"), "foreign_probe");
	CHECK(is_all_digits("0123") && !is_all_digits("") && !is_all_digits("12a") &&
	      !is_all_digits("-1") && !is_all_digits(" 1"));
	/* Near names: a swap is one edit; a probe is near by its words after the number. */
	CHECK(edit_distance("gne", "gen") == 1 && edit_distance("gen", "gen") == 0);
	CHECK(edit_distance("marksweep", "msweep") == 3);
	CHECK_STR(strlist_near_probe(&l, "survivor_promtion"), "02_survivor_promotion");
	CHECK_STR(strlist_near_probe(&l, "01_nursery_chrun"), "01_nursery_churn");
	CHECK_STR(strlist_near_probe(&l, "foriegn_probe"), "foreign_probe");
	CHECK(strlist_near_probe(&l, "zzz") == NULL);
	CHECK(strlist_near_probe(&l, "01_nursery_churn") == NULL);
	{
		char buf[NEAR_PHRASE_MAX];
		CHECK_STR(near_phrase("gen", buf, sizeof buf), "did you mean gen? ");
		CHECK_STR(near_phrase(NULL, buf, sizeof buf), "");
	}
	strlist_release(&l);
	return unit_done("test_util");
}
