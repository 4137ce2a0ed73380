/*
 * The history page renderer on data made here: one polyline per host with its points at their
 * place in commit order, the band only when there is one, every outside name escaped.
 */
#include <stdlib.h>

#include "report_history.h"
#include "unit.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static double v1000[] = {1000, 1000, 1002}, v1100[] = {1100}, v1200[] = {1200, 1190};

/* The struct's strings are not const (the store owns them): arrays, not literals. */
static char t1[] = "2026-11-01T00:00:00Z", t2[] = "2026-11-02T00:00:00Z",
            t3[] = "2026-11-03T00:00:00Z", bench[] = "bench-1", evil[] = "<ci&7>", ci[] = "ci",
            gen[] = "gen", ca[] = "aaaaaaaaaaaaaaaa", cb[] = "bbbbbbbbbbbbbbbb";

static struct store_history_point pts[] = {
    {.session_id = 1,
     .started_at = t1,
     .hostname = bench,
     .size = ci,
     .build = gen,
     .git_commit = ca,
     .values = v1000,
     .n = 3},
    {.session_id = 2,
     .started_at = t2,
     .hostname = evil,
     .size = ci,
     .build = gen,
     .git_commit = cb,
     .values = v1100,
     .n = 1},
    {.session_id = 3,
     .started_at = t3,
     .hostname = bench,
     .size = ci,
     .build = gen,
     .git_commit = NULL,
     .values = v1200,
     .n = 2},
};
static const struct store_history_point *order[] = {&pts[0], &pts[1], &pts[2]};

static struct report_history base(void)
{
	return (struct report_history){
	    .collector = "gen",
	    .probe = "01_nursery_churn",
	    .metric = "census.alloc_bytes",
	    .where = "results.db",
	    .points = order,
	    .n = 3,
	    .baseline_path = "baselines/shared_ci/gen.json",
	};
}

static void test_lines_per_host(void)
{
	struct report_history h = base();
	char *html = report_history_html(&h);

	CHECK(count(html, "<polyline class=\"host\"") == 2);
	/* bench-1's line joins its two points, the first and the last in commit order. */
	CHECK(strstr(html, "data-host=\"bench-1\"") != NULL);
	CHECK(count(html, "<circle") == 2); /* host 0: circles, host 1: diamonds */
	CHECK(strstr(html, "data-host=\"&lt;ci&amp;7&gt;\"") != NULL);
	CHECK(strstr(html, "<ci&7>") == NULL);
	/* Medians, formatted; an unknown commit says so. */
	CHECK(strstr(html, "session 1 on bench-1: 1000 (median of 3)") != NULL);
	CHECK(strstr(html, "session 3 on bench-1: 1195 (median of 2)") != NULL);
	CHECK(strstr(html, ">unknown</code>") != NULL);
	CHECK(strstr(html, ">aaaaaaa <tspan class=\"build\" fill=\"#777\">gen</tspan></text>") !=
	      NULL);
	/* No baseline given: no band, no baseline line. */
	CHECK(strstr(html, "class=\"band\"") == NULL);
	CHECK(strstr(html, "class=\"baseline\"") == NULL);
	free(html);
}

static void test_band(void)
{
	struct report_history h = base();
	char *html;

	h.has_value = h.has_band = 1;
	h.value = 1000;
	h.allowance = 50;
	h.direction = "increase";
	html = report_history_html(&h);
	CHECK(count(html, "<rect class=\"band\"") == 1);
	CHECK(strstr(html, "baseline band: 950 to 1050") != NULL);
	CHECK(strstr(html, ": 1000 &#177; 50 (shaded: within the allowance; an increase beyond") !=
	      NULL);
	CHECK(count(html, "<line class=\"baseline\"") == 1);
	free(html);

	/* An ungated cell: its value drawn, no band, and why, escaped. */
	h.has_band = 0;
	h.no_band = "census.alloc_bytes is <not> gated";
	html = report_history_html(&h);
	CHECK(strstr(html, "class=\"band\"") == NULL);
	CHECK(count(html, "<line class=\"baseline\"") == 1);
	CHECK(strstr(html, "is &lt;not&gt; gated") != NULL);
	free(html);
}

/* The first tick label of the page's plot: where its value axis starts. */
static char *first_tick(const char *html)
{
	const char *p = strstr(html, "<text class=\"tick\"");
	const char *gt = p ? strchr(p, '>') : NULL, *end = gt ? strchr(gt, '<') : NULL;

	return end ? strndup(gt + 1, (size_t)(end - gt - 1)) : strdup("");
}

/* Issue 43: a step of a few percent fills the plot, its points ringed, each build labelled. */
static void test_step(void)
{
	static double a[] = {400e6}, b[] = {423.12e6};
	static char g2[] = "gen", h1[] = "3fa2c1ffee", h2[] = "77b0e1aa00", c1[] = "cccccccc";
	struct store_history_point step[] = {
	    {.session_id = 1,
	     .started_at = t1,
	     .hostname = bench,
	     .size = ci,
	     .build = gen,
	     .git_commit = c1,
	     .manifest_hash = h1,
	     .values = a,
	     .n = 1},
	    {.session_id = 2,
	     .started_at = t2,
	     .hostname = bench,
	     .size = ci,
	     .build = g2,
	     .git_commit = c1,
	     .manifest_hash = h2,
	     .values = b,
	     .n = 1},
	};
	const struct store_history_point *o[] = {&step[0], &step[1]};
	struct report_history h = base();
	char *html, *tick;

	h.metric = "valgrind.ir";
	h.points = o;
	h.n = 2;
	h.has_value = h.has_band = 1;
	h.value = 400e6;
	h.allowance = 4e6; /* 1% */
	h.direction = "increase";
	CHECK(report_history_outside(&h, 400e6) == 0);
	CHECK(report_history_outside(&h, 404e6) == 0);
	CHECK(report_history_outside(&h, 404.1e6) == 1);
	CHECK(report_history_outside(&h, 395.9e6) == -1);
	html = report_history_html(&h);
	tick = first_tick(html);
	CHECK(strcmp(tick, "0") != 0);
	free(tick);
	CHECK(count(html, "<circle class=\"oob bad\" data-session=\"2\"") == 1);
	CHECK(count(html, "class=\"oob bad\"") == 2);     /* the ring and the table's row */
	CHECK(count(html, "<li class=\"oob-bad\"") == 1); /* and the list under the plot */
	CHECK(strstr(html, "(+5.78% of the baseline)") != NULL);
	/* One commit, two builds: two labels. */
	CHECK(strstr(html, ">gen@3fa2c1</tspan>") != NULL);
	CHECK(strstr(html, ">gen@77b0e1</tspan>") != NULL);
	free(html);
	h.zero_axis = 1;
	html = report_history_html(&h);
	tick = first_tick(html);
	CHECK(strcmp(tick, "0") == 0);
	free(tick);
	free(html);
	/* An exact cell: any change is out; either direction: both sides fail. */
	h.allowance = 0;
	h.direction = "either";
	CHECK(report_history_outside(&h, 400e6) == 0);
	CHECK(report_history_outside(&h, 400e6 + 1) == 1);
	CHECK(report_history_outside(&h, 400e6 - 1) == 1);
	h.has_band = 0;
	CHECK(report_history_outside(&h, 500e6) == 0);
}

int main(void)
{
	test_lines_per_host();
	test_band();
	test_step();
	return unit_done("test_report_history");
}
