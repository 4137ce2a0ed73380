/*
 * test_report_check.c — the check report model rendered from a hand-made check_result: what
 * cannot pass comes first in every form (a regressed cell's row in the table, the Markdown's
 * verdict line, the JSON's "verdict" then "reason", JUnit's failure), the default table shows
 * only the rows that are not ok while --all shows every one, and a name from outside is escaped
 * in the Markdown, the JSON and the XML.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "report_check.h"
#include "unit.h"

static struct baseline bl;
static struct check_row rows[3];
static struct check_result res;

/* A session of two cells of one probe: one regressed by 10% against a 2% band, one ok. */
static void model(const char *probe)
{
	memset(&bl, 0, sizeof bl);
	bl.profile = (char *)"shared_ci";
	bl.collector = (char *)"gen";
	bl.collector_version = (char *)"1.0";
	bl.hostname = (char *)"pinhost";
	bl.pinned_at = (char *)"2026-11-01T00:00:00Z";
	bl.session = 7;
	bl.size = (char *)"ci";
	memset(rows, 0, sizeof rows);
	memset(&res, 0, sizeof res);
	rows[0].kind = CHECK_ROW_CELL;
	rows[0].probe = probe;
	rows[0].metric = "census.alloc_bytes";
	rows[0].state = CHECK_JUDGED;
	rows[0].cls = BASELINE_CLASS_BANDED;
	rows[0].base = 1000;
	rows[0].current = 1100;
	rows[0].n = 3;
	rows[0].range[0] = 1100;
	rows[0].range[1] = 1100;
	rows[0].every_run = 1;
	rows[0].j.delta = 100;
	rows[0].j.delta_pct = 10;
	rows[0].j.allowance = 20;
	rows[0].j.used = 5;
	rows[0].j.verdict = BASELINE_REGRESSED;
	rows[0].band_pct = 2;
	rows[0].mde = 20;
	rows[0].mde_pct = 2;
	rows[0].mde_runs = 3;
	rows[1] = rows[0];
	rows[1].metric = "census.major_collections";
	rows[1].base = rows[1].current = 40;
	rows[1].range[0] = rows[1].range[1] = 40;
	rows[1].j.delta = rows[1].j.delta_pct = rows[1].j.used = 0;
	rows[1].j.allowance = 1;
	rows[1].j.verdict = BASELINE_OK;
	rows[1].mde = 1;
	rows[1].mde_pct = 2.5;
	res.rows = rows;
	res.nrows = 2;
	res.ok = 1;
	res.regressed = 1;
	res.verdict = CHECK_VERDICT_REGRESSION;
	res.target_pct = 5;
}

static struct report_check report(int all)
{
	struct report_check c = {
	    .res = &res,
	    .baseline = &bl,
	    .baseline_path = "baselines/shared_ci/gen.json",
	    .session = 12,
	    .build_name = "gen",
	    .all = all,
	};
	return c;
}

static int count_lines(const char *text, const char *prefix)
{
	int n = 0;
	size_t len = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += strncmp(p, prefix, len) == 0;
	return n;
}

static void test_text(void)
{
	struct report_check c;
	char *t;

	model("01_nursery_churn");
	c = report(0);
	t = report_check_text(&c);
	CHECK(t && t[strlen(t) - 1] == '\n');
	CHECK(strstr(t, "gcratchet check: profile shared_ci, collector gen 1.0, session 12 (build "
	                "gen), size ci\n") != NULL);
	CHECK(strstr(t, "baseline: baselines/shared_ci/gen.json (pinned 2026-11-01T00:00:00Z on "
	                "pinhost, session 7)") != NULL);
	/* By default only the row that is not ok (and the probe's line of counts); the probe
	 * column is as wide as the widest probe shown. */
	CHECK(count_lines(t, "01_nursery_churn census.") == 1);
	CHECK(strstr(t, "census.alloc_bytes") != NULL);
	CHECK(strstr(t, "census.major_collections") == NULL);
	CHECK(strstr(t, "REGRESSED") != NULL || strstr(t, "regressed") != NULL);
	free(t);
	/* --all: every row. */
	c = report(1);
	t = report_check_text(&c);
	CHECK(count_lines(t, "01_nursery_churn census.") == 2);
	CHECK(strstr(t, "verdict: REGRESSION (1 ok, 0 improved, 1 regressed, 0 could not judge") !=
	      NULL);
	CHECK(strstr(t, "census.major_collections") != NULL);
	free(t);

	/* Could not judge: the reason is the first line. */
	res.why = (char *)"session 12 is incomplete";
	res.verdict = CHECK_VERDICT_UNJUDGED;
	c = report(0);
	t = report_check_text(&c);
	CHECK(strncmp(t, "COULD NOT JUDGE: session 12 is incomplete\n", 42) == 0);
	free(t);
	res.why = NULL;
}

static void test_md(void)
{
	struct report_check c;
	char *t;

	model("01_nursery_churn");
	c = report(0);
	t = report_check_md(&c);
	CHECK(t && strncmp(t, "### gcratchet check: ", 21) == 0);
	CHECK(strstr(t, "census.alloc_bytes") != NULL);
	free(t);
	res.why = (char *)"no gated cell";
	res.verdict = CHECK_VERDICT_UNJUDGED;
	t = report_check_md(&c);
	CHECK(t && strncmp(t, "### gcratchet check: COULD NOT JUDGE: no gated cell", 51) == 0);
	free(t);
	res.why = NULL;
	/* A probe name with markup is escaped: no raw pipe to break the table, no raw tag. */
	model("01_a|<b>x");
	c = report(1);
	t = report_check_md(&c);
	CHECK(t && strstr(t, "01_a|<b>x") == NULL);
	free(t);
}

static void test_json(void)
{
	struct report_check c;
	cJSON *root, *first, *rowsj;
	char *t;

	model("01_\"quoted\"");
	c = report(0);
	t = report_check_json(&c);
	root = t ? cJSON_Parse(t) : NULL;
	CHECK(root != NULL);
	if (root) {
		const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "verdict");
		CHECK(cJSON_IsString(fmt) && strcmp(fmt->valuestring, REPORT_CHECK_FORMAT) == 0);
		CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "regression") == 0);
		/* The verdict comes first, after the format and its version. */
		first = root->child;
		CHECK(first && first->next && first->next->next &&
		      strcmp(first->next->next->string, "verdict") == 0);
		/* Every cell is in the JSON, whatever the table shows; the name round-trips. */
		rowsj = cJSON_GetObjectItemCaseSensitive(root, "cells");
		CHECK(cJSON_GetArraySize(rowsj) == 2);
		if (cJSON_GetArraySize(rowsj) == 2) {
			const cJSON *p = cJSON_GetObjectItemCaseSensitive(rowsj->child, "probe");
			CHECK(cJSON_IsString(p) && strcmp(p->valuestring, "01_\"quoted\"") == 0);
		}
		cJSON_Delete(root);
	}
	free(t);
	res.why = (char *)"session 12 is incomplete";
	res.verdict = CHECK_VERDICT_UNJUDGED;
	t = report_check_json(&c);
	root = t ? cJSON_Parse(t) : NULL;
	CHECK(root != NULL);
	if (root) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "verdict");
		first = root->child;
		CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "could_not_judge") == 0);
		CHECK(first && first->next && first->next->next && first->next->next->next &&
		      strcmp(first->next->next->next->string, "reason") == 0 &&
		      strcmp(first->next->next->next->valuestring, "session 12 is incomplete") ==
		          0);
		cJSON_Delete(root);
	}
	free(t);
	res.why = NULL;
}

static void test_junit(void)
{
	struct report_check c;
	char *t;

	model("01_<b>&");
	c = report(0);
	t = report_check_junit(&c);
	CHECK(t && strncmp(t, "<?xml", 5) == 0);
	CHECK(t && strstr(t, "<failure") != NULL);
	CHECK(t && strstr(t, "01_<b>&") == NULL && strstr(t, "01_&lt;b&gt;&amp;") != NULL);
	free(t);
	/* Nothing regressed: no failure. */
	model("01_nursery_churn");
	rows[0] = rows[1];
	res.regressed = 0;
	res.ok = 2;
	res.verdict = CHECK_VERDICT_OK;
	t = report_check_junit(&c);
	CHECK(t && strstr(t, "<failure") == NULL);
	free(t);
	/* A cell that is not gated is no test case, and nothing is skipped: it is counted. */
	model("01_nursery_churn");
	rows[1].j.verdict = BASELINE_INFO;
	res.info = 1;
	t = report_check_junit(&c);
	CHECK(t && strstr(t, "<skipped") == NULL && strstr(t, "skipped=\"0\"") != NULL);
	CHECK(t && strstr(t, "tests=\"1\"") != NULL);
	CHECK(t && strstr(t, "census.major_collections") == NULL);
	CHECK(t && strstr(t, "<property name=\"not_gated\" value=\"1\"/>") != NULL);
	free(t);
}

int main(void)
{
	test_text();
	test_md();
	test_json();
	test_junit();
	return unit_done("test_report_check");
}
