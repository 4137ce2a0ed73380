/*
 * report_bisect.h — a bisect as JSON (format gcratchet-bisect, docs/schema): its ends, every
 * step with its commit, mark and figures, the answer, and what it cost. A renderer: the text
 * it returns is the verb's to write (bisect --json FILE).
 */
#ifndef REPORT_BISECT_H
#define REPORT_BISECT_H

#include "bisect_engine.h"

/* The whole bisect c, with its status ("found", ...) and a failed bisect's detail (NULL:
 * none); newly allocated. */
char *report_bisect_json(const struct bisect_engine *c, const char *status, const char *detail);

#endif /* REPORT_BISECT_H */
