/*
 * heapsearch.h — the minimum-heap search on real builds, for minheap, sweep and ratchet: for
 * each build and probe, the smallest GCR_HEAP_MAX_MB in which the probe completes with the
 * checksum it prints without a limit (minheap.h's search, each try a hermetic run). Every
 * answer is printed as a row of minheap's table and stored (the store's minheap table).
 *
 * This is the cli layer: rows go to stdout, errors to stderr as "gcratchet CMD: ...".
 */
#ifndef HEAPSEARCH_H
#define HEAPSEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "measuring.h"
#include "util.h"

struct session_opts;
struct session_setup;
struct session_prober;

#define HEAPSEARCH_REPEATS     3u   /* runs at each answer, by default */
#define HEAPSEARCH_REPEATS_MAX 100u /* --repeats at most */

/*
 * --repeats N, for minheap and sweep (cli.h's CLI_CALL): an unsigned at field from 1 to
 * HEAPSEARCH_REPEATS_MAX; -1 with e saying "--repeats must be 1 to 100, got N".
 */
struct cli_option;
int heapsearch_repeats_row(void *field, const struct cli_option *row, const char *val,
                           struct err *e);

/*
 * Searches the minimum heap of every probe of every build o names, prints the table (view
 * MEASURING_VIEW_QUIET: only the rows that found none), stores the answers and writes
 * out_path (NULL: none) as JSON. minheap's exit status.
 */
int heapsearch_session(const char *cmd, const struct session_opts *o, const char *command,
                       const char *out_path, unsigned repeats, enum measuring_view view);
/*
 * One search in a session s already set up (sweep's): the minimum heap of arm `arm` of s for
 * `probe`, its row printed (heapsearch_header prints the header) and the answer stored. 0 with
 * *min_mb (0 when the search found none: the row says why), -1 with e when the harness failed
 * or was interrupted.
 */
int heapsearch_find(struct session_setup *s, struct session_prober *prober, size_t arm,
                    const char *probe, unsigned repeats, const char *command, uint64_t *min_mb,
                    struct err *e);
/* The header of minheap's table. */
void heapsearch_header(void);

#endif /* HEAPSEARCH_H */
