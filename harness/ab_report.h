/*
 * ab_report.h — the A/B comparison of two arms of a stored session, as ab shows it after its
 * runs and report shows it after the fact: judged by compare.h, the table printed on stdout,
 * the Markdown, JSON and HTML written where asked. The cli layer (it prints, as verbs do);
 * what ab and report share, so that neither verb calls the other.
 */
#ifndef AB_REPORT_H
#define AB_REPORT_H

#include <stdint.h>

#include "cli.h"
#include "report_data.h"
#include "store.h"

/*
 * The rows ab_report_options land in (an include's .off points at one): --across and
 * --no-across in `across` (both given are refused), --wide in `wide`.
 */
struct ab_report_view {
	int across; /* enum compare_mode; start it at COMPARE_MODE_AUTO */
	int wide;   /* the full table, every digit and column, lines as long as they come */
};

/*
 * Compares arms BASE and FIX (by label; NULL: the session's first and second) of a stored
 * session, prints the table on stdout and writes the Markdown, JSON and HTML files named
 * (NULL: not written); with step_summary, appends the Markdown to $GITHUB_STEP_SUMMARY when
 * set. `view` says how the census is judged and how wide the table is. Errors are
 * printed as "gcratchet CMD: ...". Returns 0 no regression, 1 FIX worse or results differ,
 * 2 could not judge or an output failed.
 */
int ab_report_session(const char *cmd, struct store *st, int64_t session, const char *base_name,
                      const char *fix_name, const struct ab_report_view *view, const char *md_path,
                      const char *json_path, const char *html_path, int step_summary);

/*
 * Judges a loaded comparison (report_data.h: one session's, or two results merged) as
 * ab_report_session does, from its printing on: the table on stdout, the files written.
 */
int ab_report_data(const char *cmd, const struct report_data *d, size_t base, size_t fix,
                   const struct ab_report_view *view, const char *md_path, const char *json_path,
                   const char *html_path, int step_summary);

/* The row groups: a bit no table it is included beside uses. */
enum { AB_REPORT_OPT_ACROSS = 1u << 4, AB_REPORT_OPT_WIDE = 1u << 5 };
extern const struct cli_option ab_report_options[];

#endif /* AB_REPORT_H */
