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
static struct history_row *history_order(const struct store_history_point *pts, size_t n)
{
	struct history_row *rows = xcalloc(n ? n : 1, sizeof *rows);

	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (!history_same_commit(pts[k].git_commit, pts[i].git_commit))
			k++;
		rows[i].p = &pts[i];
		rows[i].first_seen = k;
		rows[i].index = i;
	}
	qsort(rows, n, sizeof *rows, history_row_cmp);
	return rows;
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

static void history_table(const struct history_row *rows, size_t n)
{
	printf("%-12s  %-7s  %-20s  %-16s  %-20s  %-7s  %3s  %s\n", "commit", "session", "started",
	       "host", "build", "size", "n", "median");
	for (size_t i = 0; i < n; i++) {
		const struct store_history_point *p = rows[i].p;
		printf("%-12.12s  %-7lld  %-20s  %-16s  %-20s  %-7s  %3zu  %.10g\n",
		       history_commit(p->git_commit), (long long)p->session_id, p->started_at,
		       p->hostname ? p->hostname : "?", p->label ? p->label : p->build, p->size,
		       p->n, stats_median(p->values, p->n));
	}
}

static char *history_json(const char *collector, const char *probe, const char *metric,
                          const struct history_row *rows, size_t n)
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
		const struct store_history_point *p = rows[i].p;
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

int cmd_history(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
	    {"--collector", 1}, {"--probe", 1},  {"--metric", 1}, {"--since", 1},
	    {"--size", 1},      {"--format", 1}, {"--db", 1},     {NULL, 0},
	};
	const char *cmd = "history", *opt, *val, *db = NULL, *collector = NULL, *probe = NULL,
	           *metric = NULL, *since = NULL, *size = NULL, *format = "table";
	struct cli_iter it;
	struct store *st = NULL;
	struct store_history_point *pts = NULL;
	struct history_row *rows = NULL;
	struct err e = ERR_INIT;
	size_t n = 0;
	char *json = NULL;
	int rc = EXIT_UNJUDGED, r;

	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, NULL)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_command(cmd), 0);
			goto out;
		} else if (strcmp(opt, "--collector") == 0) {
			collector = val;
		} else if (strcmp(opt, "--probe") == 0) {
			probe = val;
		} else if (strcmp(opt, "--metric") == 0) {
			metric = val;
		} else if (strcmp(opt, "--since") == 0) {
			since = val;
		} else if (strcmp(opt, "--size") == 0) {
			size = val;
		} else if (strcmp(opt, "--format") == 0) {
			format = val;
		} else if (strcmp(opt, "--db") == 0) {
			db = val;
		}
	}
	if (r < 0)
		goto out;
	if (!collector || !probe || !metric) {
		rc = cli_error(cmd, "--collector, --probe and --metric are required");
		goto out;
	}
	if (!metrics_is_known(metric)) {
		rc = cli_error(cmd, "--metric: unknown metric \"%s\" (see gcratchet list metrics)",
		               metric);
		goto out;
	}
	if (since && !history_valid_since(since)) {
		rc = cli_error(cmd,
		               "--since must be a date (2026-11-01) or a UTC time "
		               "(2026-11-01T12:00:00Z), got \"%s\"",
		               since);
		goto out;
	}
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0) {
		rc = cli_error(cmd, "--format must be table or json, got \"%s\"", format);
		goto out;
	}
	if (store_open(cli_db_path(db), STORE_READ, &st, &e) != 0 ||
	    store_history(st, collector, probe, metric, since, size, &pts, &n, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (n == 0) {
		rc = cli_error(cmd,
		               "%s: no session measured %s of probe %s with a build of %s%s%s (ok, "
		               "measured runs)",
		               store_where(st), metric, probe, collector, since ? " since " : "",
		               since ? since : "");
		goto out;
	}
	rows = history_order(pts, n);
	if (strcmp(format, "json") == 0) {
		json = history_json(collector, probe, metric, rows, n);
		printf("%s\n", json);
	} else {
		history_table(rows, n);
	}
	rc = fflush(stdout) == 0 ? EXIT_OK : cli_error(cmd, "writing to stdout failed");
out:
	cJSON_free(json);
	free(rows);
	store_history_release(pts, n);
	store_close(st);
	return rc;
}
