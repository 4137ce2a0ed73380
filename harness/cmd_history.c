/*
 * gcratchet history — one metric of one probe across sessions: the median of every session
 * (and arm) that measured it, in commit order, with the host it ran on. On a fleet's database
 * this is the drift across commits and hosts; on one host's file, that host's own.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "metrics.h"
#include "stats.h"
#include "store.h"

/* A point and where its commit first appears in the series, to sort by. */
struct history_row {
	const struct store_history_point *p;
	size_t first_seen, index;
};

static int history_row_cmp(const void *a, const void *b)
{
	const struct history_row *x = a, *y = b;

	if (x->first_seen != y->first_seen)
		return x->first_seen < y->first_seen ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int history_same_commit(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/*
 * Commit order as the store can know it: each commit where it was first measured, and its
 * sessions together in the order they started. The store holds no commit graph, so two
 * branches measured in turn interleave by their first session.
 */
static const struct store_history_point **history_order(const struct store_history_point *pts,
                                                        size_t n)
{
	struct history_row *rows = xcalloc(n ? n : 1, sizeof *rows);
	const struct store_history_point **order = xcalloc(n ? n : 1, sizeof *order);

	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (!history_same_commit(pts[k].git_commit, pts[i].git_commit))
			k++;
		rows[i].p = &pts[i];
		rows[i].first_seen = k;
		rows[i].index = i;
	}
	qsort(rows, n, sizeof *rows, history_row_cmp);
	for (size_t i = 0; i < n; i++)
		order[i] = rows[i].p;
	free(rows);
	return order;
}

/* "2026-11-01" or "2026-11-01T12:00:00Z": what started_at is compared with. */
static int history_valid_since(const char *s)
{
	static const char date[] = "dddd-dd-dd", full[] = "dddd-dd-ddTdd:dd:ddZ";
	size_t len = strlen(s);
	const char *shape = len == sizeof date - 1 ? date : len == sizeof full - 1 ? full : NULL;

	for (size_t i = 0; shape && i < len; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			return 0;
	return shape != NULL;
}

static const char *history_commit(const char *c)
{
	return c && *c ? c : "unknown";
}

static void history_table(const struct store_history_point *const *rows, size_t n)
{
	printf("%-12s  %-7s  %-20s  %-16s  %-20s  %-7s  %3s  %s\n", "commit", "session", "started",
	       "host", "build", "size", "n", "median");
	for (size_t i = 0; i < n; i++) {
		const struct store_history_point *p = rows[i];
		printf("%-12.12s  %-7lld  %-20s  %-16s  %-20s  %-7s  %3zu  %.10g\n",
		       history_commit(p->git_commit), (long long)p->session_id, p->started_at,
		       p->hostname ? p->hostname : "?", p->label ? p->label : p->build, p->size,
		       p->n, stats_median(p->values, p->n));
	}
}

static char *history_json(const char *collector, const char *probe, const char *metric,
                          const struct store_history_point *const *rows, size_t n)
{
	cJSON *root = cJSON_CreateObject(), *points = cJSON_CreateArray();
	char *text;

	cJSON_AddStringToObject(root, "format", "gcratchet-history");
	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddStringToObject(root, "collector", collector);
	cJSON_AddStringToObject(root, "probe", probe);
	cJSON_AddStringToObject(root, "metric", metric);
	cJSON_AddItemToObject(root, "points", points);
	for (size_t i = 0; i < n; i++) {
		const struct store_history_point *p = rows[i];
		cJSON *o = cJSON_CreateObject(),
		      *values = cJSON_CreateDoubleArray(p->values, (int)p->n);
		if (p->git_commit)
			cJSON_AddStringToObject(o, "commit", p->git_commit);
		else
			cJSON_AddNullToObject(o, "commit");
		cJSON_AddNumberToObject(o, "session", (double)p->session_id);
		cJSON_AddStringToObject(o, "started_at", p->started_at);
		cJSON_AddStringToObject(o, "host", p->hostname ? p->hostname : "");
		cJSON_AddStringToObject(o, "build", p->build);
		cJSON_AddStringToObject(o, "label", p->label ? p->label : p->build);
		if (p->collector_version)
			cJSON_AddStringToObject(o, "collector_version", p->collector_version);
		cJSON_AddStringToObject(o, "size", p->size);
		cJSON_AddNumberToObject(o, "n", (double)p->n);
		cJSON_AddNumberToObject(o, "median", stats_median(p->values, p->n));
		cJSON_AddItemToObject(o, "values", values);
		cJSON_AddItemToArray(points, o);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

int history_parse_opt(const char *opt, const char *val, struct history_query *q)
{
	const char **slot = strcmp(opt, "--collector") == 0 ? &q->collector
	                    : strcmp(opt, "--probe") == 0   ? &q->probe
	                    : strcmp(opt, "--metric") == 0  ? &q->metric
	                    : strcmp(opt, "--since") == 0   ? &q->since
	                    : strcmp(opt, "--size") == 0    ? &q->size
	                    : strcmp(opt, "--db") == 0      ? &q->db
	                                                    : NULL;

	if (!slot)
		return 0;
	*slot = val;
	return 1;
}

int history_load(const char *cmd, const struct history_query *q, struct history_series *out)
{
	struct store *st = NULL;
	struct err e = ERR_INIT;
	int rc = EXIT_UNJUDGED;

	memset(out, 0, sizeof *out);
	if (!q->collector || !q->probe || !q->metric)
		return cli_error(cmd, "--collector, --probe and --metric are required");
	if (!metrics_is_known(q->metric))
		return cli_error(
		    cmd, "--metric: unknown metric \"%s\" (see gcratchet list metrics)", q->metric);
	if (q->since && !history_valid_since(q->since))
		return cli_error(cmd,
		                 "--since must be a date (2026-11-01) or a UTC time "
		                 "(2026-11-01T12:00:00Z), got \"%s\"",
		                 q->since);
	if (store_open(cli_db_path(q->db), STORE_READ, &st, &e) != 0 ||
	    store_history(st, q->collector, q->probe, q->metric, q->since, q->size, &out->points,
	                  &out->n, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (out->n == 0) {
		rc = cli_error(cmd,
		               "%s: no session measured %s of probe %s with a build of %s%s%s (ok, "
		               "measured runs)",
		               store_where(st), q->metric, q->probe, q->collector,
		               q->since ? " since " : "", q->since ? q->since : "");
		goto out;
	}
	out->order = history_order(out->points, out->n);
	out->where = xstrdup(store_where(st));
	rc = EXIT_OK;
out:
	store_close(st);
	if (rc != EXIT_OK)
		history_release(out);
	return rc;
}

void history_release(struct history_series *s)
{
	free(s->order);
	free(s->where);
	store_history_release(s->points, s->n);
	memset(s, 0, sizeof *s);
}

int cmd_history(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
	    {"--collector", 1}, {"--probe", 1},  {"--metric", 1}, {"--since", 1},
	    {"--size", 1},      {"--format", 1}, {"--db", 1},     {NULL, 0},
	};
	const char *cmd = "history", *opt, *val, *format = "table";
	struct history_query q = {0};
	struct history_series s = {0};
	struct cli_iter it;
	char *json = NULL;
	int rc = EXIT_UNJUDGED, r;

	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, NULL)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_command(cmd), 0);
			goto out;
		} else if (strcmp(opt, "--format") == 0) {
			format = val;
		} else {
			history_parse_opt(opt, val, &q);
		}
	}
	if (r < 0)
		goto out;
	/* Checked before the store is opened, as the other arguments are. */
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0) {
		rc = cli_error(cmd, "--format must be table or json, got \"%s\"", format);
		goto out;
	}
	if ((rc = history_load(cmd, &q, &s)) != EXIT_OK)
		goto out;
	if (strcmp(format, "json") == 0) {
		json = history_json(q.collector, q.probe, q.metric, s.order, s.n);
		printf("%s\n", json);
	} else {
		history_table(s.order, s.n);
	}
	rc = fflush(stdout) == 0 ? EXIT_OK : cli_error(cmd, "writing to stdout failed");
out:
	cJSON_free(json);
	history_release(&s);
	return rc;
}
