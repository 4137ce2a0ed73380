/*
 * history.h — one metric of one probe across the sessions of a store, in commit order: what
 * gcratchet history prints and report --history draws.
 *
 * Commit order is git's (rev-list --topo-order --all) for the commits a repository has, then
 * the others in the order each commit was first measured; a commit's sessions stay together in
 * the order they started. Core: prints nothing; errors come back in a struct err worded for
 * the command line ("--metric: unknown metric ...").
 */
#ifndef HISTORY_H
#define HISTORY_H

#include <stddef.h>

#include "store.h"
#include "util.h"

/* What is asked for: all borrowed; NULL since, size or git is any or none. */
struct history_query {
	const char *collector, *probe, *metric, *since, *size;
	const char *db;  /* the store's connection string (required: the cli's --db resolved) */
	const char *git; /* --git DIR: the repository whose history orders the commits */
};

/*
 * A metric's history: the store's points, the same in commit order (borrowed), and the
 * store's name for itself (a URL without its password). Commit order is the git history of
 * `git` when one was read (NULL otherwise): `in_git` of the n points have a commit in it and
 * come first, in its order; the rest follow in the order their commit was first measured.
 */
struct history_series {
	char *probe; /* the probe's name, --probe's number resolved */
	char *where;
	struct store_history_point *points;
	const struct store_history_point **order;
	size_t n;
	char *git;
	size_t in_git;
};

/*
 * Checks q and loads its series: 0, or -1 with e: ERR_INVALID for a missing or bad argument
 * (an unknown metric or probe, a --since that is no date, a --git that is no repository),
 * ERR_NOT_FOUND when no session measured it, the store's error otherwise. Without q->git, the
 * current directory's repository orders the points when it is one. out is empty after -1.
 */
int history_load(const struct history_query *q, struct history_series *out, struct err *e);
/* The same from a store the caller opened (q->db unused): the site reads every series from
 * one connection. */
int history_load_store(struct store *st, const struct history_query *q, struct history_series *out,
                       struct err *e);
void history_release(struct history_series *s);
/* What ordered the points by git, for stderr ("commit order from the git history of ...");
 * NULL when git ordered none. Newly allocated. */
char *history_order_note(const struct history_series *s);

#endif /* HISTORY_H */
