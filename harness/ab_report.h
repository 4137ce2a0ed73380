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
#include "store.h"

/*
 * Compares arms BASE and FIX (by label; NULL: the session's first and second) of a stored
 * session, prints the table on stdout and writes the Markdown, JSON and HTML files named
 * (NULL: not written); with step_summary, appends the Markdown to $GITHUB_STEP_SUMMARY when
 * set. `across` is an enum compare_mode (compare.h): how the census is judged. Errors are
 * printed as "gcratchet CMD: ...". Returns 0 no regression, 1 FIX worse or results differ,
 * 2 could not judge or an output failed.
 */
int ab_report_session(const char *cmd, struct store *st, int64_t session, const char *base_name,
                      const char *fix_name, int across, const char *md_path, const char *json_path,
                      const char *html_path, int step_summary);

/* --across and --no-across as rows (cli.h), landing in an int holding an enum compare_mode
 * (start it at COMPARE_MODE_AUTO); both given are refused. */
enum { AB_REPORT_OPT_ACROSS = 1u << 4 }; /* a bit no table it is included beside uses */
extern const struct cli_option ab_report_options[];

#endif /* AB_REPORT_H */
