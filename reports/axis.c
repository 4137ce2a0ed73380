#include "axis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double report_axis_step(double raw)
{
	double p, m;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	p = pow(10, floor(log10(raw)));
	/* A hair over: 0.30000000000000004 / 0.1 is 2.9999999999999996, and a 5 step. */
	m = raw / p * (1 + 1e-9);
	/* The nearest of 1, 2, 5 and 10 on a log scale, roughly (Heckbert's thresholds). */
	if (m < 1.5)
		return p;
	if (m < 3)
		return 2 * p;
	if (m < 7)
		return 5 * p;
	return 10 * p;
}

/* The label unit and its suffix for a range reaching out to `a` (its largest magnitude). */
static void report_axis_unit(struct report_axis *ax, double a)
{
	ax->unit = 1;
	ax->suffix = "";
	switch (ax->kind) {
	case REPORT_AXIS_BYTES:
		ax->unit = a >= 1024.0 * 1024 * 1024 ? 1024.0 * 1024 * 1024
		           : a >= 1024.0 * 1024      ? 1024.0 * 1024
		           : a >= 1024               ? 1024
		                                     : 1;
		ax->suffix = ax->unit >= 1024.0 * 1024 * 1024 ? " GiB"
		             : ax->unit >= 1024.0 * 1024      ? " MiB"
		             : ax->unit >= 1024               ? " KiB"
		                                              : " B";
		break;
	case REPORT_AXIS_NS:
		ax->unit = a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
		ax->suffix = ax->unit >= 1e9   ? " s"
		             : ax->unit >= 1e6 ? " ms"
		             : ax->unit >= 1e3 ? " us"
		                               : " ns";
		break;
	case REPORT_AXIS_COUNT:
		if (a >= 1e4) {
			ax->unit = a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : 1e3;
			ax->suffix = ax->unit >= 1e9 ? "G" : ax->unit >= 1e6 ? "M" : "k";
		}
		break;
	case REPORT_AXIS_PCT:
		ax->suffix = "%";
		break;
	case REPORT_AXIS_PLAIN:
		break;
	}
}

void report_axis_nice(double lo, double hi, int want, int from_zero, enum report_axis_kind kind,
                      struct report_axis *ax)
{
	double a, first, last;

	memset(ax, 0, sizeof *ax);
	ax->kind = kind;
	if (want < 2)
		want = 2;
	if (want > REPORT_AXIS_MAX_TICKS - 1)
		want = REPORT_AXIS_MAX_TICKS - 1;
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (lo > hi) {
		double t = lo;
		lo = hi;
		hi = t;
	}
	if (from_zero) {
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	if (lo == hi) {
		double d = lo != 0 ? fabs(lo) * 0.1 : 1;
		/* From zero, both are 0 (a count that stayed 0): 0 to 1, not around 0. */
		if (from_zero) {
			hi = 1;
		} else {
			lo -= d;
			hi += d;
		}
	}
	a = fmax(fabs(lo), fabs(hi));
	report_axis_unit(ax, a);
	/* The step is round in the label's unit: 1, 2 or 5 x 10^k of it. */
	ax->step = report_axis_step((hi - lo) / ax->unit / want) * ax->unit;
	for (;;) {
		first = floor(lo / ax->step + 1e-9) * ax->step;
		last = ceil(hi / ax->step - 1e-9) * ax->step;
		if ((last - first) / ax->step < REPORT_AXIS_MAX_TICKS - 0.5)
			break;
		ax->step = report_axis_step(ax->step / ax->unit * 1.5) * ax->unit;
	}
	ax->lo = first;
	ax->hi = last;
	ax->nticks = (int)floor((last - first) / ax->step + 0.5) + 1;
	for (int i = 0; i < ax->nticks; i++) {
		double v = first + ax->step * i;
		/* 0.1 * 3 is 0.30000000000000004: snap to the step's grid, and -0 to 0. */
		v = round(v / ax->step) * ax->step;
		ax->ticks[i] = v == 0 ? 0 : v;
	}
	ax->decimals = 0;
	{
		double s = ax->step / ax->unit;
		while (ax->decimals < 6 &&
		       fabs(s * pow(10, ax->decimals) - round(s * pow(10, ax->decimals))) > 1e-6)
			ax->decimals++;
	}
}

void report_axis_label(const struct report_axis *ax, double v, char *buf, size_t size)
{
	double x = v / ax->unit;

	if (fabs(x) < ax->step / ax->unit * 1e-6)
		x = 0;
	if (x == 0) {
		/* Zero needs no unit but a percentage's or a byte's ("0 B" reads oddly). */
		snprintf(buf, size, "0%s", ax->kind == REPORT_AXIS_PCT ? "%" : "");
		return;
	}
	snprintf(buf, size, ax->kind == REPORT_AXIS_PCT ? "%+.*f%s" : "%.*f%s", ax->decimals, x,
	         ax->suffix);
}
