/*
 * census.h — reads the census object a probe writes on GCR_CENSUS_FD.
 *
 * The format is docs/census-protocol.md. Parsing is strict about what it uses (format tag,
 * version, types of the fields) and ignores fields it does not know, so later protocol
 * versions can add fields.
 */
#ifndef CENSUS_H
#define CENSUS_H

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
};

/*
 * Parses `text`. On failure returns -1 with a message naming the field and what was expected;
 * *out is then released and need not be.
 */
int census_parse(const char *text, struct census_report *out, struct err *e);
void census_report_release(struct census_report *r);

/* 1 when s is "0x" followed by exactly 16 lowercase hex digits. */
int census_checksum_valid(const char *s);

#endif /* CENSUS_H */
