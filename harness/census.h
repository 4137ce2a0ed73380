/*
 * census.h — reads the census object a probe writes on GCR_CENSUS_FD.
 *
 * The format is docs/census-protocol.md. Parsing is strict about what it uses (one JSON
 * object and nothing after it, no duplicate keys, the format tag and version, the types and
 * ranges of the fields). A key it does not know is not an error, so later protocol versions
 * can add fields, but it is a warning the run keeps (census_report.warnings): a typo'd
 * counter must not vanish without a word.
 */
#ifndef CENSUS_H
#define CENSUS_H

#include "caps.h"
#include "metrics.h"
#include "util.h"

struct census_report {
	char *probe;
	char *size;
	char *collector;
	char *collector_version;
	char *checksum;            /* "0x" + 16 hex digits */
	int premise_state;         /* 1 met, 0 not met, -1 not applicable or not declared */
	char *premise_text;        /* NULL when the probe declared none */
	struct metric_set metrics; /* census.* and memory.* */
	struct strlist warnings;   /* what the run keeps as a warning: unknown keys, by path */
	struct caps caps;          /* "capabilities"; caps.known 0 when the census has none */
};

/*
 * Parses `text` (NUL-terminated) as one census object, through the strict reader of json.h:
 * nothing after the object, no duplicate keys, counters exact integers below 2^53. On
 * failure returns -1 with a message naming the field and what was expected; *out is then
 * released and need not be.
 */
int census_parse(const char *text, struct census_report *out, struct err *e);
/*
 * Parses what arrived on a run's census pipe: `received` bytes in all, of which the runner
 * kept at most `cap` in `text`, NUL-terminated. A census the runner had to cut is refused as
 * larger than the cap, and a NUL byte in it as such, rather than as JSON that stops short.
 */
int census_read(const char *text, size_t received, size_t cap, struct census_report *out,
                struct err *e);
/*
 * Checks that a parsed census is the run's own: it names `probe`, and, when it names a size,
 * `size` ("ci", "default", "large", or "n=N" for an explicit iteration count, which a census
 * calls "custom"). -1 with a message saying what it named and what was run.
 */
int census_check_run(const struct census_report *c, const char *probe, const char *size,
                     struct err *e);
/*
 * Checks a parsed census against the rest of its run. A checksum on stdout
 * ("checksum 0x...", NULL when none) that differs from the census's is an error: the run
 * gave two results. A collector name or version that differs from the manifest's
 * (`collector`, `version`; NULL skips) is a warning appended to `warnings`: the manifest
 * names the build, the census only says what the program reports about itself.
 */
int census_check_build(const struct census_report *c, const char *stdout_checksum,
                       const char *collector, const char *version, struct strlist *warnings,
                       struct err *e);
void census_report_release(struct census_report *r);

/* 1 when s is "0x" followed by exactly 16 lowercase hex digits. */
int census_checksum_valid(const char *s);

#endif /* CENSUS_H */
