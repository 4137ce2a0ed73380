/* Pause figures (pausestats.h): MMU from pause intervals, and quantiles. */
#include "pausestats.h"

#include <stdlib.h>

int gcr_pause_intervals_check(const struct gcr_pause *p, size_t n, uint64_t span_start,
                              uint64_t span_end, size_t *bad)
{
	uint64_t prev_end = span_start;

	for (size_t i = 0; i < n; i++) {
		if (p[i].start_ns < prev_end || p[i].end_ns < p[i].start_ns ||
		    p[i].end_ns > span_end) {
			*bad = i;
			return -1;
		}
		prev_end = p[i].end_ns;
	}
	return 0;
}

/*
 * Paused time in [t, t + w] for a family of window starts that only grows, by two cursors:
 * lo is the first pause ending after t, hi the first starting at or after t + w, and sum the
 * whole durations of the pauses in [lo, hi). The pauses at either edge are then clipped.
 */
struct gcr_mmu_cursor {
	size_t lo, hi;
	uint64_t sum;
};

static uint64_t gcr_mmu_paused_at(const struct gcr_pause *p, size_t n, struct gcr_mmu_cursor *c,
                                  uint64_t t, uint64_t w)
{
	uint64_t paused;

	while (c->hi < n && p[c->hi].start_ns < t + w) {
		c->sum += p[c->hi].end_ns - p[c->hi].start_ns;
		c->hi++;
	}
	while (c->lo < c->hi && p[c->lo].end_ns <= t) {
		c->sum -= p[c->lo].end_ns - p[c->lo].start_ns;
		c->lo++;
	}
	if (c->lo >= c->hi)
		return 0;
	paused = c->sum;
	if (p[c->lo].start_ns < t)
		paused -= t - p[c->lo].start_ns;
	if (p[c->hi - 1].end_ns > t + w)
		paused -= p[c->hi - 1].end_ns - (t + w);
	return paused;
}

static uint64_t gcr_mmu_clamp(uint64_t t, uint64_t lo, uint64_t hi)
{
	return t < lo ? lo : t > hi ? hi : t;
}

uint64_t gcr_mmu_max_paused_ns(const struct gcr_pause *p, size_t n, uint64_t span_start,
                               uint64_t span_end, uint64_t window_ns)
{
	struct gcr_mmu_cursor starts = {0, 0, 0}, ends = {0, 0, 0};
	uint64_t span = span_end - span_start, w = window_ns < span ? window_ns : span;
	uint64_t last = span_end - w, best;

	/* The two window edges of the span; then every window opening at a pause's start... */
	best = gcr_mmu_paused_at(p, n, &starts, span_start, w);
	for (size_t i = 0; i < n; i++) {
		uint64_t t = gcr_mmu_clamp(p[i].start_ns, span_start, last);
		uint64_t v = gcr_mmu_paused_at(p, n, &starts, t, w);

		best = v > best ? v : best;
	}
	/* ...and every window closing at a pause's end (its start grows with the end). */
	for (size_t i = 0; i < n; i++) {
		uint64_t t = p[i].end_ns >= span_start + w ? p[i].end_ns - w : span_start;
		uint64_t v = gcr_mmu_paused_at(p, n, &ends, gcr_mmu_clamp(t, span_start, last), w);

		best = v > best ? v : best;
	}
	{
		uint64_t v = gcr_mmu_paused_at(p, n, &ends, last, w);

		best = v > best ? v : best;
	}
	return best;
}

double gcr_mmu(const struct gcr_pause *p, size_t n, uint64_t span_start, uint64_t span_end,
               uint64_t window_ns)
{
	uint64_t span = span_end - span_start, w = window_ns < span ? window_ns : span;

	if (w == 0)
		return 1.0;
	return (double)(w - gcr_mmu_max_paused_ns(p, n, span_start, span_end, window_ns)) /
	       (double)w;
}

uint64_t gcr_quantile_sorted(const uint64_t *sorted, size_t n, unsigned q_per_10000)
{
	/* ceil(n * q) - 1 in integers; the rank is at least the first. */
	uint64_t rank = ((uint64_t)n * q_per_10000 + 9999) / 10000;

	return sorted[rank ? rank - 1 : 0];
}

static int gcr_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void gcr_sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, gcr_u64_cmp);
}
