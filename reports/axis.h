/*
 * axis.h — the value axis every plot of reports/ draws: round-number ticks.
 *
 * Ticks are a step apart that is 1, 2 or 5 times a power of ten of the unit the labels are
 * shown in (a byte axis steps in 0.5, 1, 2, 5 ... KiB, MiB or GiB, never in 524288 B), and the
 * axis runs from the last tick at or below the data to the first at or above it, so that every
 * point lies within it and both ends are labelled. A quantity that counts or sizes something
 * (bytes, events, collections, instructions) is drawn from zero: a bar that looks twice as tall
 * is then twice as much. Times, ratios and deltas keep the range of their data.
 *
 * Pure arithmetic and formatting: nothing here draws.
 */
#ifndef REPORT_AXIS_H
#define REPORT_AXIS_H

#include <stddef.h>

/* At most this many ticks, however the range and the count asked for fall. */
#define REPORT_AXIS_MAX_TICKS 16

/* How the tick labels read. */
enum report_axis_kind {
	REPORT_AXIS_PLAIN, /* a number: "0.25", "1.5", "40" (ratios) */
	REPORT_AXIS_COUNT, /* SI suffixes from 10^4: "200k", "1.5M", "3G" */
	REPORT_AXIS_BYTES, /* binary units: "512 KiB", "1.5 MiB" */
	REPORT_AXIS_NS,    /* nanoseconds shown in ns, us, ms or s */
	REPORT_AXIS_PCT,   /* percentages with a sign: "-2%", "0%", "+2%" */
};

struct report_axis {
	enum report_axis_kind kind;
	double lo, hi; /* the axis' range: its first and last tick */
	double step;   /* between two ticks, in the data's unit */
	double unit; /* what the labels count in (1, 1024^k for bytes, 1000^k for ns and counts) */
	const char *suffix;
	int decimals; /* of each label, in `unit`: enough for the step, no more */
	int nticks;
	double ticks[REPORT_AXIS_MAX_TICKS]; /* from lo up to hi, ticks[0] == lo */
};

/*
 * The axis for data from lo to hi (either order): about `want` intervals (2 to
 * REPORT_AXIS_MAX_TICKS - 1; the round step and ends make it 2/3 of that to 1.5 times it and
 * two more), from zero when
 * from_zero is 1 (the range is widened to take in 0 first). An empty range (lo == hi) gets
 * a visible one around it, a non-finite one is 0 to 1.
 */
void report_axis_nice(double lo, double hi, int want, int from_zero, enum report_axis_kind kind,
                      struct report_axis *ax);

/* The label of tick value v on ax: "0", "1.5 MiB", "200k", "+2%", in ax's unit and decimals. */
void report_axis_label(const struct report_axis *ax, double v, char *buf, size_t size);

/* The step chosen for a raw interval: the 1, 2 or 5 x 10^k nearest it (x 2/3 to x 1.5). */
double report_axis_step(double raw);

#endif /* REPORT_AXIS_H */
