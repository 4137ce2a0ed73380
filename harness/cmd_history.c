/*
 * gcratchet history — one metric of one probe across sessions: the median of every session
 * (and arm) that measured it, in commit order, with the host it ran on. On a fleet's database
 * this is the drift across commits and hosts; on one host's file, that host's own. Commit
 * order is git's (rev-list --topo-order) where a repository is at hand, else the order in
 * which each commit was first measured.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "escape.h"
#include "history.h"
#include "metrics.h"
#include "stats.h"
#include "store.h"

static const char *history_commit(const char *c)
{
	return c && *c ? c : "unknown";
}

/*
 * Appends s as one cell of the text table: on one line (a newline or tab, which a commit
 * string from another host's manifest may hold, as a space), made safe as every field of a
 * terminal line is (escape_line), cut after `cut` characters when cut is not 0 (never inside
 * one), and padded with spaces to `width` characters.
 */
static void history_cell(struct sbuf *b, const char *s, size_t width, size_t cut)
{
	char *flat = xstrdup(s ? s : "");
	const unsigned char *p;
	struct sbuf safe;
	size_t chars = 0;

	for (char *q = flat; *q; q++)
		if (*q == '\n' || *q == '\t')
			*q = ' ';
	sbuf_init(&safe);
	escape_line(&safe, flat);
	for (p = (const unsigned char *)(safe.data ? safe.data : "");
	     *p && (cut == 0 || chars < cut); chars++) {
		size_t n = utf8_len(p, SIZE_MAX);
		if (n == 0) /* escape_line left none; a byte is a character, to be sure */
			n = 1;
		sbuf_add(b, p, n);
		p += n;
	}
	for (; chars < width; chars++)
		sbuf_add(b, " ", 1);
	sbuf_release(&safe);
	free(flat);
}

static void history_table(const struct store_history_point *const *rows, size_t n)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "%-12s  %-7s  %-20s  %-16s  %-20s  %-7s  %3s  %s\n", "commit", "session",
	          "started", "host", "build", "size", "n", "median");
	for (size_t i = 0; i < n; i++) {
		const struct store_history_point *p = rows[i];
		history_cell(&b, history_commit(p->git_commit), 12, 12);
		sbuf_addf(&b, "  %-7lld  ", (long long)p->session_id);
		history_cell(&b, p->started_at, 20, 0);
		sbuf_addf(&b, "  ");
		history_cell(&b, p->hostname ? p->hostname : "?", 16, 0);
		sbuf_addf(&b, "  ");
		history_cell(&b, p->label ? p->label : p->build, 20, 0);
		sbuf_addf(&b, "  ");
		history_cell(&b, p->size, 7, 0);
		sbuf_addf(&b, "  %3zu  %.10g\n", p->n, stats_median(p->values, p->n));
	}
	fputs(b.data, stdout);
	sbuf_release(&b);
}

static char *history_json(const char *collector, const char *probe, const char *metric,
                          const struct history_series *s)
{
	cJSON *root = cJSON_CreateObject(), *points = cJSON_CreateArray(),
	      *order = cJSON_CreateObject();
	const struct store_history_point *const *rows = s->order;
	size_t n = s->n;
	char *text;

	cJSON_AddStringToObject(root, "format", "gcratchet-history");
	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddStringToObject(root, "collector", collector);
	cJSON_AddStringToObject(root, "probe", probe);
	cJSON_AddStringToObject(root, "metric", metric);
	/* How the points were ordered: by a git history (its repository, and how many points'
	 * commits it has), or by when each commit was first measured. */
	cJSON_AddStringToObject(order, "by", s->git ? "git" : "first measured");
	if (s->git) {
		cJSON_AddStringToObject(order, "repository", s->git);
		cJSON_AddNumberToObject(order, "in_history", (double)s->in_git);
	}
	cJSON_AddItemToObject(root, "order", order);
	cJSON_AddItemToObject(root, "points", points);
	for (size_t i = 0; i < n; i++) {
		const struct store_history_point *p = rows[i];
		cJSON *o = cJSON_CreateObject(),
		      *values = cJSON_CreateDoubleArray(p->values, (int)p->n);
		/* Text another host stored is made valid UTF-8, or the whole document is not JSON. */
		cJSON_AddItemToObject(o, "commit", escape_json_string(p->git_commit));
		cJSON_AddNumberToObject(o, "session", (double)p->session_id);
		cJSON_AddItemToObject(o, "started_at", escape_json_string(p->started_at));
		cJSON_AddItemToObject(o, "host",
		                      escape_json_string(p->hostname ? p->hostname : ""));
		cJSON_AddItemToObject(o, "build", escape_json_string(p->build));
		cJSON_AddItemToObject(o, "label",
		                      escape_json_string(p->label ? p->label : p->build));
		if (p->collector_version)
			cJSON_AddItemToObject(o, "collector_version",
			                      escape_json_string(p->collector_version));
		cJSON_AddItemToObject(o, "size", escape_json_string(p->size));
		cJSON_AddNumberToObject(o, "n", (double)p->n);
		cJSON_AddNumberToObject(o, "median", stats_median(p->values, p->n));
		cJSON_AddItemToObject(o, "values", values);
		cJSON_AddItemToArray(points, o);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

struct history_opts {
	struct history_query q;
	const char *format;
};

static int history_main(int argc, char **argv)
{
	const char *cmd = cmd_history.name;
	struct history_opts o = {.format = "table"};
	struct history_series s = {0};
	struct err e = ERR_INIT;
	char *json = NULL, *note;
	int rc = EXIT_UNJUDGED, r;

	if ((r = cli_parse(&cmd_history, argc, argv, &o, NULL)) != 0)
		return r > 0 ? EXIT_OK : EXIT_UNJUDGED;
	o.q.db = cli_db_path(o.q.db);
	if (history_load(&o.q, &s, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if ((note = history_order_note(&s)) != NULL) {
		fprintf(stderr, "gcratchet %s: %s\n", cmd, note);
		free(note);
	}
	if (strcmp(o.format, "json") == 0) {
		json = history_json(o.q.collector, s.probe, o.q.metric, &s);
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

static const struct cli_option history_verb_options[] = {
    {"the query", .kind = CLI_INCLUDE, .off = offsetof(struct history_opts, q),
     .rows = history_options, .group = HISTORY_OPT_QUERY},
    {"--format", NULL, CLI_ENUM, offsetof(struct history_opts, format), .values = "table|json",
     .help = "a table (default), or json (format gcratchet-history) with every run's value"},
    {"the database", .kind = CLI_INCLUDE, .off = offsetof(struct history_opts, q),
     .rows = history_options, .group = HISTORY_OPT_DB},
    {0},
};

const struct cli_verb cmd_history = {
    .name = "history",
    .summary = "one metric's session medians across commits and hosts",
    .options = history_verb_options,
    .run = history_main,
    .description =
        "One metric of one probe across sessions: for every session (and arm) that measured it\n"
        "with a build of collector C, the median of its measured ok runs, with the commit, the\n"
        "host, the build and the size. In commit order, a commit's sessions together in the\n"
        "order they started: the order of the git history of DIR (default: the current\n"
        "directory's repository, if it is one; git rev-list --topo-order --all), and after the\n"
        "commits it has, the others where each was first measured; stderr says which points git\n"
        "ordered, and json's \"order\" too. --since keeps sessions started on or\n"
        "after DATE (2026-11-01 or 2026-11-01T12:00:00Z, UTC); --size keeps one size. json\n"
        "(format gcratchet-history) adds every run's value.\n",
    .exit_status = "0 printed; 2 nothing measured it, or bad arguments.",
};
