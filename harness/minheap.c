/* The minimum-heap search (minheap.h): bracket, bisect, confirm. */
#include "minheap.h"

#include <stdio.h>
#include <string.h>

const char *minheap_outcome_name(enum minheap_outcome o)
{
	switch (o) {
	case MINHEAP_FOUND:
		return "found";
	case MINHEAP_NEVER_FITS:
		return "never_fits";
	case MINHEAP_FAILED:
		return "failed";
	}
	return "?";
}

/* The granularity at bound hi: a fraction of it, never finer than the knob's 1 MiB. */
static uint64_t minheap_step(const struct minheap_params *p, uint64_t hi)
{
	uint64_t step = hi / p->frac;

	return step ? step : 1;
}

/*
 * One oracle call: 1 fits, 0 does not, -1 with e when the harness failed; a broken run sets
 * r's FAILED outcome and returns -2, which ends the search without an error.
 */
static int minheap_try(minheap_oracle_fn oracle, void *ctx, uint64_t mb, struct minheap_result *r,
                       struct err *e)
{
	enum minheap_verdict v;
	char detail[sizeof r->detail] = "";

	r->runs++;
	if (oracle(ctx, mb, &v, detail, sizeof detail, e) != 0)
		return -1;
	if (v == MINHEAP_BROKEN) {
		r->outcome = MINHEAP_FAILED;
		r->limit_mb = mb;
		snprintf(r->detail, sizeof r->detail, "%s", detail[0] ? detail : "broken run");
		return -2;
	}
	return v == MINHEAP_FITS;
}

int minheap_search(const struct minheap_params *p, minheap_oracle_fn oracle, void *ctx,
                   struct minheap_result *r, struct err *e)
{
	uint64_t lo = 0, hi = p->guess_mb ? p->guess_mb : 1;
	int fit;

	memset(r, 0, sizeof *r);
	if (p->max_mb == 0 || p->frac == 0 || p->repeats == 0) {
		err_setc(e, ERR_INVALID, "minheap: max_mb, frac and repeats must be at least 1");
		return -1;
	}
	if (hi > p->max_mb)
		hi = p->max_mb;
	/* Bracket: double until a limit fits. */
	for (;;) {
		if ((fit = minheap_try(oracle, ctx, hi, r, e)) < 0)
			goto stop;
		if (fit)
			break;
		lo = hi;
		if (hi == p->max_mb) {
			r->outcome = MINHEAP_NEVER_FITS;
			r->lo_mb = lo;
			return 0;
		}
		hi = hi > p->max_mb / 2 ? p->max_mb : hi * 2;
	}
	for (;;) {
		/* Bisect down to the granularity. */
		while (hi - lo > minheap_step(p, hi)) {
			uint64_t mid = lo + (hi - lo) / 2;

			if ((fit = minheap_try(oracle, ctx, mid, r, e)) < 0)
				goto stop;
			if (fit)
				hi = mid;
			else
				lo = mid;
		}
		/* Confirm: the remaining repeats at hi; a miss moves hi up by a granule. */
		fit = 1;
		for (unsigned i = 1; i < p->repeats && fit; i++)
			if ((fit = minheap_try(oracle, ctx, hi, r, e)) < 0)
				goto stop;
		if (fit)
			break;
		r->unsteady++;
		lo = hi;
		if (hi == p->max_mb) {
			r->outcome = MINHEAP_NEVER_FITS;
			r->lo_mb = lo;
			return 0;
		}
		hi = p->max_mb - hi < minheap_step(p, hi) ? p->max_mb : hi + minheap_step(p, hi);
		/* hi itself must fit once before its repeats count. */
		while ((fit = minheap_try(oracle, ctx, hi, r, e)) == 0) {
			lo = hi;
			if (hi == p->max_mb) {
				r->outcome = MINHEAP_NEVER_FITS;
				r->lo_mb = lo;
				return 0;
			}
			hi = p->max_mb - hi < minheap_step(p, hi) ? p->max_mb
			                                          : hi + minheap_step(p, hi);
		}
		if (fit < 0)
			goto stop;
	}
	r->outcome = MINHEAP_FOUND;
	r->min_mb = hi;
	r->lo_mb = lo;
	r->step_mb = minheap_step(p, hi);
	return 0;
stop:
	/* -2: a broken run, already in r; -1: the oracle's error. */
	return fit == -2 ? 0 : -1;
}
