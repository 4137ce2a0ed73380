/*
 * report_site.h — the whole store as a static site (report --site DIR): an index of every
 * collector x probe x gated metric with its latest verdict and a sparkline, regressions
 * first, each row linking to the cell's trend page (report_history.h) and its collector's
 * check page (report_check.h), both in the same directory.
 *
 * The verdict of a cell is the check of its collector's newest complete session of the
 * baseline's size against the baseline (the session check judges by default): the same
 * judgement, so the index never says ok where check says REGRESSED. A collector with no
 * baseline, or none that loads, is one row that says so; nothing is gated without one.
 *
 * Links are relative and every page is self-contained (report_html.h), so a CI job can
 * publish the directory as it is. File names are made from the names (which come from build
 * manifests) with every byte but [A-Za-z0-9._-] replaced, and made unique.
 *
 * Loading reads the store and the baselines and judges; it never prints. Rendering returns
 * the pages as text; the verb writes them.
 */
#ifndef REPORT_SITE_H
#define REPORT_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"
#include "check.h"
#include "history.h"
#include "report_history.h"
#include "store.h"
#include "util.h"

/* What an index row says, in the order the index sorts them. */
enum report_site_verdict {
	REPORT_SITE_REGRESSED,
	REPORT_SITE_UNJUDGED, /* the check could not judge it (why says) */
	REPORT_SITE_NO_BASELINE,
	REPORT_SITE_IMPROVED,
	REPORT_SITE_OK,
};

struct report_site_cell {
	size_t collector; /* index in report_site.collectors */
	char *probe, *metric;
	enum report_site_verdict verdict;
	char *why; /* unjudged, no baseline, a checksum or premise row: the reason; or NULL */
	int judged;
	double base, current, delta_pct;
	/* The cell's history (n 0: none stored) and the trend page drawn from it. */
	struct history_series series;
	struct report_history h;
	char *no_band;    /* owned: h.no_band */
	char *trend_file; /* relative, or NULL: no trend page (no points, or not a cell) */
};

struct report_site_collector {
	char *name;
	char *baseline_path;
	int has_baseline;
	int baseline_broken; /* a file that is there but does not load (why says) */
	struct baseline b;
	char *why;       /* no baseline, or no session judged: why; else NULL */
	int64_t session; /* the session judged, 0: none */
	enum check_verdict verdict;
	char *check_html; /* the check page, or NULL when nothing was judged */
	char *check_file; /* relative, NULL with check_html */
};

struct report_site {
	char *where; /* the store's name for itself (no password) */
	const char *profile;
	struct report_site_collector *collectors;
	size_t ncollectors;
	struct report_site_cell *cells; /* in index order: regressions first */
	size_t ncells;
};

/* What to load; all borrowed. */
struct report_site_query {
	const char *profile;
	const char *since, *git; /* history_query's: NULL any, or the current directory's git */
	int zero_axis;
	/* The baseline file of `collector` in `profile` (newly allocated): the verb's lookup. */
	char *(*baseline_path)(const char *profile, const char *collector);
};

/*
 * Loads every collector's baseline, judges its newest session and reads each gated cell's
 * history from st. 0, or -1 with e: ERR_NOT_FOUND naming the store when it holds no session,
 * the store's error otherwise. A baseline that is missing or does not load is not an error:
 * its collector's row says so. *out is released after -1.
 */
int report_site_load(struct store *st, const struct report_site_query *q, struct report_site *out,
                     struct err *e);
void report_site_release(struct report_site *s);

/* One page of the site: its file name, relative to the site's directory, and its text. */
struct report_site_page {
	char *file;
	char *text;
};
/* Every page: index.html first, then the check pages and the trend pages. */
void report_site_render(const struct report_site *s, struct report_site_page **pages, size_t *n);
void report_site_pages_release(struct report_site_page *pages, size_t n);

#endif /* REPORT_SITE_H */
