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
#include "metrics.h"
#include "stats.h"
#include "store.h"

/*
 * A point, its commit's place in the git history (-1: not in it), where its commit first
 * appears in the series, and its own place there, to sort by.
 */
struct history_row {
	const struct store_history_point *p;
	long git_pos;
	size_t first_seen, index;
};

static int history_cmp_size(size_t a, size_t b)
{
	return a < b ? -1 : a > b;
}

/* Commits in the git history first, in its order; then the others by first measurement. */
static int history_row_cmp(const void *a, const void *b)
{
	const struct history_row *x = a, *y = b;

	if ((x->git_pos < 0) != (y->git_pos < 0))
		return x->git_pos < 0 ? 1 : -1;
	if (x->git_pos != y->git_pos)
		return x->git_pos < y->git_pos ? -1 : 1;
	if (x->first_seen != y->first_seen)
		return history_cmp_size(x->first_seen, y->first_seen);
	return history_cmp_size(x->index, y->index);
}

/* A commit of the git history and its place there (0: the oldest). */
struct history_commit {
	const char *hash;
	long pos;
};

static int history_commit_cmp(const void *a, const void *b)
{
	return strcmp(((const struct history_commit *)a)->hash,
	              ((const struct history_commit *)b)->hash);
}

/* What `git -C DIR rev-list` printed, and its commits sorted by hash. */
struct history_git {
	struct sbuf text;
	struct history_commit *commits;
	size_t n;
};

/*
 * Reads DIR's git history, every ref's, oldest first and parents before children (git
 * rev-list --topo-order --reverse --all). 0, or -1 when DIR is not a repository, has no
 * commit, or git is missing.
 */
static int history_git_read(const char *dir, struct history_git *g)
{
	char *argv[] = {
	    (char *)"git",          (char *)"-C",        (char *)dir,     (char *)"rev-list",
	    (char *)"--topo-order", (char *)"--reverse", (char *)"--all", NULL};
	size_t cap = 0;

	memset(g, 0, sizeof *g);
	sbuf_init(&g->text);
	if (run_capture(argv, 1, &g->text) != 0)
		return -1;
	for (char *line = g->text.data, *end; *line; line = end) {
		end = strchr(line, '\n');
		end = end ? (*end = '\0', end + 1) : line + strlen(line);
		if (!*line)
			continue;
		if (g->n == cap) {
			cap = cap ? 2 * cap : 1024;
			g->commits = xrealloc(g->commits, cap * sizeof *g->commits);
		}
		g->commits[g->n].hash = line;
		g->commits[g->n].pos = (long)g->n;
		g->n++;
	}
	if (g->n == 0)
		return -1;
	qsort(g->commits, g->n, sizeof *g->commits, history_commit_cmp);
	return 0;
}

static void history_git_release(struct history_git *g)
{
	sbuf_release(&g->text);
	free(g->commits);
	memset(g, 0, sizeof *g);
}

/*
 * Where commit c is in the history: a full hash, or an abbreviation of at least 7 characters
 * that names one commit only; -1 when it is not there (always, for an empty history).
 */
static long history_git_pos(const struct history_git *g, const char *c)
{
	size_t len = c ? strlen(c) : 0, lo = 0, hi = g->n;

	if (len < 7)
		return -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(g->commits[mid].hash, c) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == g->n || strncmp(g->commits[lo].hash, c, len) != 0 ||
	    (lo + 1 < g->n && strncmp(g->commits[lo + 1].hash, c, len) == 0))
		return -1;
	return g->commits[lo].pos;
}

static int history_same_commit(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/*
 * Commit order: the git history's where it has the commit (g may be empty); otherwise as the
 * store can know it, each commit where it was first measured (the store holds no commit
 * graph, so two branches measured in turn interleave by their first session). A commit's
 * sessions stay together in the order they started. *in_git: the points whose commit g has.
 */
static const struct store_history_point **history_order(const struct store_history_point *pts,
                                                        size_t n, const struct history_git *g,
                                                        size_t *in_git)
{
	struct history_row *rows = xcalloc(n ? n : 1, sizeof *rows);
	const struct store_history_point **order = xcalloc(n ? n : 1, sizeof *order);

	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (!history_same_commit(pts[k].git_commit, pts[i].git_commit))
			k++;
		rows[i].p = &pts[i];
		rows[i].git_pos = history_git_pos(g, pts[i].git_commit);
		rows[i].first_seen = k;
		rows[i].index = i;
		*in_git += rows[i].git_pos >= 0;
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

int history_parse_opt(const char *opt, const char *val, struct history_query *q)
{
	const char **slot = strcmp(opt, "--collector") == 0 ? &q->collector
	                    : strcmp(opt, "--probe") == 0   ? &q->probe
	                    : strcmp(opt, "--metric") == 0  ? &q->metric
	                    : strcmp(opt, "--since") == 0   ? &q->since
	                    : strcmp(opt, "--size") == 0    ? &q->size
	                    : strcmp(opt, "--db") == 0      ? &q->db
	                    : strcmp(opt, "--git") == 0     ? &q->git
	                                                    : NULL;

	if (!slot)
		return 0;
	*slot = val;
	return 1;
}

/*
 * --probe as every verb takes it: a name, or a number ("1", "01") of a probe this collector's
 * builds have measured in the store. *out is that name, allocated (the one asked for when the
 * store has none of this collector's, so the "no session measured" message names it), or NULL
 * when a number matches none of them (cli_resolve_probe has said so).
 */
static int history_resolve_probe(const char *cmd, struct store *st, const char *collector,
                                 const char *want, char **out, struct err *e)
{
	struct strlist names = {0};
	const char *found = want;

	if (cli_is_probe_number(want) && store_history_probes(st, collector, &names, e) != 0) {
		strlist_release(&names);
		return -1;
	}
	if (names.n)
		found = cli_resolve_probe(cmd, want, &names);
	*out = found ? xstrdup(found) : NULL;
	strlist_release(&names);
	return 0;
}

int history_load(const char *cmd, const struct history_query *q, struct history_series *out)
{
	char *probe = NULL;
	struct store *st = NULL;
	struct err e = ERR_INIT;
	struct history_git g;
	int rc = EXIT_UNJUDGED;

	memset(out, 0, sizeof *out);
	memset(&g, 0, sizeof g);
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
	    history_resolve_probe(cmd, st, q->collector, q->probe, &probe, &e) != 0 ||
	    (probe && store_history(st, q->collector, probe, q->metric, q->since, q->size,
	                            &out->points, &out->n, &e) != 0)) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (!probe)
		goto out; /* named and refused by cli_resolve_probe */
	if (out->n == 0) {
		rc = cli_error(cmd,
		               "%s: no session measured %s of probe %s with a build of %s%s%s (ok, "
		               "measured runs)",
		               store_where(st), q->metric, probe, q->collector,
		               q->since ? " since " : "", q->since ? q->since : "");
		goto out;
	}
	/* Without --git, the current directory's repository orders them when it is one. */
	if (history_git_read(q->git ? q->git : ".", &g) != 0) {
		if (q->git) {
			rc =
			    cli_error(cmd,
			              "--git %s: not a git repository with a commit, or git is not "
			              "installed",
			              q->git);
			goto out;
		}
		history_git_release(&g);
	}
	out->order = history_order(out->points, out->n, &g, &out->in_git);
	out->where = xstrdup(store_where(st));
	out->probe = probe;
	probe = NULL;
	if (g.n > 0 && (q->git || out->in_git > 0)) {
		out->git = xstrdup(q->git ? q->git : ".");
		fprintf(stderr,
		        "gcratchet %s: commit order from the git history of %s (rev-list "
		        "--topo-order --all): %zu of %zu point%s; the rest follow in the order "
		        "their commit was first measured\n",
		        cmd, out->git, out->in_git, out->n, out->n == 1 ? "" : "s");
	}
	rc = EXIT_OK;
out:
	free(probe);
	history_git_release(&g);
	store_close(st);
	if (rc != EXIT_OK)
		history_release(out);
	return rc;
}

void history_release(struct history_series *s)
{
	free(s->order);
	free(s->probe);
	free(s->where);
	free(s->git);
	store_history_release(s->points, s->n);
	memset(s, 0, sizeof *s);
}

static int history_main(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
	    {"--collector", 1}, {"--probe", 1}, {"--metric", 1}, {"--since", 1}, {"--size", 1},
	    {"--format", 1},    {"--db", 1},    {"--git", 1},    {NULL, 0},
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
			rc = cli_usage(cli_find_verb(cmd), 0);
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
		json = history_json(q.collector, s.probe, q.metric, &s);
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

const struct cli_verb cmd_history = {
    .name = "history",
    .summary = "one metric's session medians across commits and hosts",
    .run = history_main,
    .usage =
        "usage: gcratchet history --collector C --probe P --metric M [--since DATE] [--size S]\n"
        "                         [--git DIR] [--format table|json] [--db FILE]\n"
        "\n"
        "One metric of one probe across sessions: for every session (and arm) that measured it\n"
        "with a build of collector C, the median of its measured ok runs, with the commit, the\n"
        "host, the build and the size. In commit order, a commit's sessions together in the\n"
        "order they started: the order of the git history of DIR (default: the current\n"
        "directory's repository, if it is one; git rev-list --topo-order --all), and after the\n"
        "commits it has, the others where each was first measured; stderr says which points git\n"
        "ordered, and json's \"order\" too. --since keeps sessions started on or\n"
        "after DATE (2026-11-01 or 2026-11-01T12:00:00Z, UTC); --size keeps one size. json\n"
        "(format gcratchet-history) adds every run's value.\n"
        "\n"
        "Exit status: 0 printed; 2 nothing measured it, or bad arguments.\n",
};
