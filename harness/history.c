/*
 * history.c — a metric's series across sessions, in commit order (history.h).
 */
#include "history.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

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

/*
 * --probe as every verb takes it: a name, or a number ("1", "01") of a probe this collector's
 * builds have measured in the store. *out is that name, allocated: the one asked for when the
 * store has none of this collector's (so the "no session measured" message names it).
 */
static int history_resolve_probe(struct store *st, const char *collector, const char *want,
                                 char **out, struct err *e)
{
	struct strlist names = {0};
	const char *found;
	int number = is_all_digits(want);
	char *valid;

	*out = NULL;
	if (number && store_history_probes(st, collector, &names, e) != 0) {
		strlist_release(&names);
		return -1;
	}
	if (names.n == 0) {
		*out = xstrdup(want);
		return 0;
	}
	found = strlist_find_probe(&names, want);
	if (found) {
		*out = xstrdup(found);
	} else {
		const char *near = strlist_near_probe(&names, want);
		valid = strlist_join(&names, ", ");
		char phrase[NEAR_PHRASE_MAX];
		err_setc(e, ERR_INVALID, "unknown probe \"%s\" (%svalid: %s)", want,
		         near_phrase(near, phrase, sizeof phrase), valid);
		free(valid);
	}
	strlist_release(&names);
	return *out ? 0 : -1;
}

/* The arguments, before any store is opened: a typo is named before a connection fails. */
static int history_query_check(const struct history_query *q, struct err *e)
{
	char hint[128];

	if (!q->collector || !q->probe || !q->metric)
		return err_setc(e, ERR_INVALID, "--collector, --probe and --metric are required");
	if (!metrics_is_known(q->metric))
		return err_setc(e, ERR_INVALID, "--metric: unknown metric \"%s\" (%s)", q->metric,
		                metrics_hint(q->metric, hint, sizeof hint));
	if (q->since && !history_valid_since(q->since))
		return err_setc(e, ERR_INVALID,
		                "--since must be a date (2026-11-01) or a UTC time "
		                "(2026-11-01T12:00:00Z), got \"%s\"",
		                q->since);
	return 0;
}

int history_load(const struct history_query *q, struct history_series *out, struct err *e)
{
	struct store *st = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	if (history_query_check(q, e) != 0)
		return -1;
	if (store_open(q->db, STORE_READ, &st, e) != 0)
		return -1;
	rc = history_load_store(st, q, out, e);
	store_close(st);
	return rc;
}

int history_load_store(struct store *st, const struct history_query *q, struct history_series *out,
                       struct err *e)
{
	char *probe = NULL;
	struct history_git g;
	int rc = -1;

	memset(out, 0, sizeof *out);
	memset(&g, 0, sizeof g);
	if (history_query_check(q, e) != 0)
		return -1;
	if (history_resolve_probe(st, q->collector, q->probe, &probe, e) != 0 ||
	    store_history(st, q->collector, probe, q->metric, q->since, q->size, &out->points,
	                  &out->n, e) != 0)
		goto out;
	if (out->n == 0) {
		err_setc(e, ERR_NOT_FOUND,
		         "%s: no session measured %s of probe %s with a build of %s%s%s (ok, "
		         "measured runs)",
		         store_where(st), q->metric, probe, q->collector, q->since ? " since " : "",
		         q->since ? q->since : "");
		goto out;
	}
	if (history_git_read(q->git ? q->git : ".", &g) != 0) {
		if (q->git) {
			err_setc(e, ERR_INVALID,
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
	if (g.n > 0 && (q->git || out->in_git > 0))
		out->git = xstrdup(q->git ? q->git : ".");
	rc = 0;
out:
	free(probe);
	history_git_release(&g);
	if (rc != 0)
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

char *history_order_note(const struct history_series *s)
{
	if (!s->git)
		return NULL;
	return xasprintf("commit order from the git history of %s (rev-list --topo-order --all): "
	                 "%zu of %zu point%s; the rest follow in the order their commit was first "
	                 "measured",
	                 s->git, s->in_git, s->n, s->n == 1 ? "" : "s");
}
