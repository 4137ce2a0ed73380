/*
 * report_csv.h — a stored session's samples as CSV (gcratchet export --format csv): a header
 * row, then one row per sample, in the JSON export's run order (report_json_run_order) and
 * by metric name within a run. A run that stored no sample has no row (the JSON lists it).
 *
 * Columns (README.md, export): session, run, seq, round, warmup, kind, status, arm, label,
 * build, collector, probe, size, metric, unit, value. Fields are quoted as RFC 4180 says
 * (escape_csv); lines end in "\n". A value has the digits that read back as the same double.
 */
#ifndef REPORT_CSV_H
#define REPORT_CSV_H

#include "report.h"

/* The header row, without its newline: the columns above, comma-separated. */
#define REPORT_CSV_HEADER                                                                       \
	"session,run,seq,round,warmup,kind,status,arm,label,build,collector,probe,size,metric," \
	"unit,"                                                                                 \
	"value"

/* Newly allocated CSV text, the header row first. */
char *report_csv_samples(const struct report_data *d);

#endif /* REPORT_CSV_H */
