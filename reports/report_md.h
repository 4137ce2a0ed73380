/*
 * report_md.h — the A/B comparison as GitHub-flavoured Markdown, sized for a pull-request
 * comment or $GITHUB_STEP_SUMMARY: headline, builds, identity, the deciding cells as a table,
 * the info cells folded away in <details>. Every name is escaped (escape_md).
 */
#ifndef REPORT_MD_H
#define REPORT_MD_H

#include "compare.h"

/* Newly allocated Markdown text. */
char *report_md_ab(const struct compare *c);
/*
 * A one-build session as Markdown (report --session N --md): per probe its checksum and a
 * table of each metric's median, min and max over the measured runs that succeeded, then
 * the pause figures and MMU where the collector kept a pause log.
 */
char *report_md_session(const struct report_data *d);

#endif /* REPORT_MD_H */
