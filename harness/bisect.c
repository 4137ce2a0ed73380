#include "bisect.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "metrics.h"
#include "stats.h"

static const char *const bisect_mark_names[] = {"untested", "good", "bad", "skip"};

/* The index of name in names[0..n-1] into *out; -1 when it is none of them. */
static int bisect_name_index(const char *const *names, size_t n, const char *name, int *out)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	return -1;
}

const char *bisect_mark_name(enum bisect_mark m)
{
	return (unsigned)m < sizeof bisect_mark_names / sizeof *bisect_mark_names
	           ? bisect_mark_names[m]
	           : "?";
}

int bisect_mark_parse(const char *name, enum bisect_mark *out)
{
	int i;

	if (bisect_name_index(bisect_mark_names,
	                      sizeof bisect_mark_names / sizeof *bisect_mark_names, name, &i) != 0)
		return -1;
	*out = (enum bisect_mark)i;
	return 0;
}

/* ---- The narrowing -------------------------------------------------------------------- */

void bisect_search_init(struct bisect_search *s, size_t n)
{
	s->n = n < 2 ? 2 : n;
	s->marks = xcalloc(s->n, sizeof *s->marks);
	s->marks[0] = BISECT_GOOD;
	s->marks[s->n - 1] = BISECT_BAD;
}

void bisect_search_release(struct bisect_search *s)
{
	free(s->marks);
	memset(s, 0, sizeof *s);
}

void bisect_search_mark(struct bisect_search *s, size_t i, enum bisect_mark m)
{
	if (i > 0 && i + 1 < s->n)
		s->marks[i] = m;
}

/* ceil(log2(k)) for k >= 1: the steps that isolate one of k places. */
static unsigned bisect_log2_ceil(size_t k)
{
	unsigned steps = 0;

	while (k > 1) {
		k = (k + 1) / 2;
		steps++;
	}
	return steps;
}

void bisect_search_state(const struct bisect_search *s, struct bisect_state *out)
{
	memset(out, 0, sizeof *out);
	out->hi = s->n - 1;
	for (size_t i = 1; i < s->n; i++)
		if (s->marks[i] == BISECT_BAD) {
			out->hi = i;
			break;
		}
	for (size_t i = out->hi; i-- > 0;)
		if (s->marks[i] == BISECT_GOOD) {
			out->lo = i;
			break;
		}
	for (size_t i = out->lo + 1; i < out->hi; i++) {
		if (s->marks[i] == BISECT_UNTESTED)
			out->untested++;
		else if (s->marks[i] == BISECT_SKIP)
			out->skipped++;
	}
	out->steps = bisect_log2_ceil(out->untested + 1);
	out->done = out->untested == 0;
	out->found = out->done && out->skipped == 0;
}

int bisect_search_next(const struct bisect_search *s, size_t *next)
{
	struct bisect_state st;
	size_t mid, best = 0, best_dist = 0;
	int have = 0;

	bisect_search_state(s, &st);
	if (st.done)
		return 0;
	mid = st.lo + (st.hi - st.lo) / 2;
	for (size_t i = st.lo + 1; i < st.hi; i++) {
		size_t dist = i > mid ? i - mid : mid - i;
		if (s->marks[i] != BISECT_UNTESTED)
			continue;
		/* Strictly nearer only: of two as near, the lower one found first stays. */
		if (!have || dist < best_dist) {
			best = i;
			best_dist = dist;
			have = 1;
		}
	}
	*next = best;
	return have;
}

/* ---- What counts as moved ------------------------------------------------------------- */

int bisect_threshold_parse(const char *s, double *pct, double *abs, struct err *e)
{
	size_t len = s ? strlen(s) : 0;
	int is_pct = len > 0 && s[len - 1] == '%';
	char *num = xasprintf("%.*s", (int)(is_pct ? len - 1 : len), s ? s : "");
	char *end = NULL;
	double v = NAN;
	int rc = 0;

	/* strtod takes blanks, "nan" and "inf"; none of them is a threshold. */
	if (*num && !isspace((unsigned char)num[0]))
		v = strtod(num, &end);
	if (!end || end == num || *end || !isfinite(v) || v < 0) {
		rc = err_setc(e, ERR_INVALID,
		              "--threshold must be a percentage of the good end's figure (2%%) or "
		              "an amount in the metric's unit (1000), at least 0, got \"%s\"",
		              s ? s : "");
		goto out;
	}
	*pct = is_pct ? v : 0;
	*abs = is_pct ? 0 : v;
out:
	free(num);
	return rc;
}

int bisect_rule_for(const char *metric, const char *threshold, int improved,
                    struct bisect_rule *out, struct err *e)
{
	const struct metric_info *m = metrics_lookup(metric);
	const struct metric_band *band;
	char hint[128];

	memset(out, 0, sizeof *out);
	if (!m)
		return err_setc(e, ERR_INVALID, "--metric: unknown metric \"%s\" (%s)", metric,
		                metrics_hint(metric, hint, sizeof hint));
	paired_policy_for(metric, &out->pol);
	if (m->better == METRIC_BETTER_NEITHER) {
		if (improved)
			return err_setc(
			    e, ERR_INVALID,
			    "--improved: %s has no better side (neither higher nor lower "
			    "is better), so nothing can improve it: bisect it without "
			    "--improved to find where it moved",
			    metric);
		out->want = 0;
	} else {
		int up_is_worse = m->better == METRIC_BETTER_LOWER;
		out->want = up_is_worse != !!improved ? 1 : -1;
	}
	if (threshold)
		return bisect_threshold_parse(threshold, &out->pct, &out->abs, e);
	/* The band of the profile that gates the metric: that is where "moved" is defined. */
	band = &m->band[METRIC_PROFILE_SHARED_CI];
	if (!band->gated && m->band[METRIC_PROFILE_PINNED_HOST].gated)
		band = &m->band[METRIC_PROFILE_PINNED_HOST];
	out->pct = band->pct;
	out->abs = band->abs;
	return 0;
}

double bisect_allowance(const struct bisect_rule *r, double good)
{
	double a = fabs(good) * r->pct / 100;

	if (r->abs > a)
		a = r->abs;
	if (fabs(good) * r->pol.resolution > a)
		a = fabs(good) * r->pol.resolution;
	return a;
}

/*
 * Each value within the metric's resolution of the first: what the metric table calls no
 * change (0 for a census counter: equal). A precise collector's Ir moves by a few instructions
 * from run to run where the probe formats its own timings (its pause times into the census):
 * 2 in 186 million, far below the 10 ppm that is Ir's resolution.
 */
static int bisect_repeats(const struct bisect_rule *r, const double *x, size_t n)
{
	double tol = fabs(x[0]) * r->pol.resolution;

	for (size_t i = 1; i < n; i++)
		if (fabs(x[i] - x[0]) > tol)
			return 0;
	return n >= 2;
}

void bisect_ends_exact(const struct bisect_rule *r, const double *good, size_t ngood,
                       const double *bad, size_t nbad, struct bisect_ends *out)
{
	double d;

	memset(out, 0, sizeof *out);
	out->good = ngood ? stats_median(good, ngood) : NAN;
	out->bad = nbad ? stats_median(bad, nbad) : NAN;
	out->allowance = bisect_allowance(r, out->good);
	out->repeats = ngood >= 2 && nbad >= 2 && bisect_repeats(r, good, ngood) &&
	               bisect_repeats(r, bad, nbad);
	if (!ngood || !nbad)
		return;
	d = out->bad - out->good;
	if (fabs(d) > out->allowance)
		out->sign = d > 0 ? 1 : -1;
	out->moved = out->sign != 0 && (r->want == 0 || r->want == out->sign);
	out->other_way = out->sign != 0 && !out->moved;
}

enum bisect_mark bisect_decide_exact(const struct bisect_ends *ends, double value)
{
	return (value - ends->good) * ends->sign > ends->allowance ? BISECT_BAD : BISECT_GOOD;
}

/* ---- Paired decisions ----------------------------------------------------------------- */

static const char *const bisect_answer_names[] = {"good", "bad", "more", "cannot tell"};

const char *bisect_answer_name(enum bisect_answer a)
{
	return (unsigned)a < sizeof bisect_answer_names / sizeof *bisect_answer_names
	           ? bisect_answer_names[a]
	           : "?";
}

void bisect_decide_paired(const struct bisect_rule *r, int sign, const double *good,
                          const double *value, size_t n, double alpha, int final,
                          struct bisect_paired *out)
{
	const struct paired_cell *c = &out->cell;
	double delta;
	int bad = 0, same = 0;

	memset(out, 0, sizeof *out);
	sign = sign < 0 ? -1 : 1;
	paired_analyze(good, value, n, &r->pol, &out->cell);
	out->allowance = n ? bisect_allowance(r, c->base_median) : NAN;
	out->p = NAN;
	out->bound = NAN;
	if (n == 0) {
		/* Nothing to judge by: no pairs at all. */
	} else if (c->deterministic) {
		/* Each arm repeated itself: the difference is certain, as in ab. */
		delta = (c->fix_median - c->base_median) * sign;
		out->bound = delta;
		bad = delta > out->allowance;
		same = !bad;
	} else if (r->pol.exact) {
		/*
		 * An exact metric that did not repeat: ab's spread rule, a difference counts only
		 * beyond PAIRED_SPREAD_K times the wider arm's range; the same margin on the other
		 * side says how far it could plausibly have moved.
		 */
		delta = (c->fix_median - c->base_median) * sign;
		out->bound = delta + PAIRED_SPREAD_K * c->spread;
		if (n >= PAIRED_SPREAD_MIN) {
			bad = delta > out->allowance && fabs(delta) > PAIRED_SPREAD_K * c->spread;
			same = out->bound <= out->allowance;
		}
	} else {
		/*
		 * Noisy: shown moved by the one-sided signed-rank test at this look's level, and
		 * by more than the threshold; shown unmoved when the median's interval stays
		 * within it on the side of the move.
		 */
		out->p = sign > 0 ? c->test.p_greater : c->test.p_less;
		out->bound = sign > 0 ? c->ci.hi : -c->ci.lo;
		bad = out->p < alpha && c->delta_median * sign > out->allowance;
		same = !bad && n >= PAIRED_MIN_PAIRS && c->ci.level >= 0.95 &&
		       out->bound <= out->allowance;
	}
	out->answer = bad     ? BISECT_ANSWER_BAD
	              : same  ? BISECT_ANSWER_GOOD
	              : final ? BISECT_ANSWER_CANNOT_TELL
	                      : BISECT_ANSWER_MORE;
}

enum bisect_answer bisect_combine(const enum bisect_answer *a, size_t n)
{
	int more = 0, unsure = 0;

	for (size_t i = 0; i < n; i++) {
		if (a[i] == BISECT_ANSWER_BAD)
			return BISECT_ANSWER_BAD;
		more |= a[i] == BISECT_ANSWER_MORE;
		unsure |= a[i] == BISECT_ANSWER_CANNOT_TELL;
	}
	return more               ? BISECT_ANSWER_MORE
	       : unsure || n == 0 ? BISECT_ANSWER_CANNOT_TELL
	                          : BISECT_ANSWER_GOOD;
}

double bisect_look_alpha(int rounds, int max_rounds, size_t probes)
{
	int looks;

	if (rounds < 1)
		rounds = 1;
	if (max_rounds < rounds)
		max_rounds = rounds;
	looks = (max_rounds + rounds - 1) / rounds;
	return BISECT_ALPHA / ((double)looks * (double)(probes ? probes : 1));
}

int bisect_default_rounds(size_t probes)
{
	double alpha = BISECT_ALPHA / (3.0 * (double)(probes ? probes : 1));
	int n = PAIRED_MIN_PAIRS;

	while (ldexp(1, -n) >= alpha && n < 60)
		n++;
	return n;
}

int bisect_exact_holds(const struct bisect_ends *ends, size_t n, int census_varies)
{
	int repeats = !census_varies;

	for (size_t i = 0; i < n; i++)
		repeats &= ends[i].repeats != 0;
	return repeats;
}

double bisect_look_side(const struct bisect_rule *r, double alpha, const double *good,
                        const double *bad, size_t n, int *sign)
{
	double d;

	*sign = r->want;
	if (*sign != 0)
		return alpha;
	d = n ? stats_median(bad, n) - stats_median(good, n) : 0;
	*sign = d < 0 ? -1 : 1;
	return alpha / 2;
}

void bisect_budget(int rounds_opt, int max_rounds_opt, int valgrind, size_t probes, int *rounds,
                   int *max_rounds)
{
	*rounds = rounds_opt ? rounds_opt
	          : valgrind ? PAIRED_SPREAD_MIN
	                     : bisect_default_rounds(probes);
	*max_rounds = max_rounds_opt ? max_rounds_opt : 3 * *rounds;
	if (*max_rounds < *rounds)
		*max_rounds = *rounds;
}

int bisect_batch(int rounds, int max_rounds, int total)
{
	return total + rounds <= max_rounds ? rounds : max_rounds - total;
}

int bisect_checksum_wrong(const char *sum, const char *good_sum, const char *bad_sum)
{
	return sum && (good_sum || bad_sum) && !(good_sum && strcmp(sum, good_sum) == 0) &&
	       !(bad_sum && strcmp(sum, bad_sum) == 0);
}

enum bisect_mark bisect_answer_mark(enum bisect_answer a)
{
	return a == BISECT_ANSWER_BAD    ? BISECT_BAD
	       : a == BISECT_ANSWER_GOOD ? BISECT_GOOD
	                                 : BISECT_SKIP;
}

unsigned bisect_search_left(const struct bisect_search *s, size_t next, size_t *left)
{
	struct bisect_state st;
	size_t below = 0, above = 0;

	bisect_search_state(s, &st);
	for (size_t i = st.lo + 1; i < next; i++)
		below += s->marks[i] == BISECT_UNTESTED;
	for (size_t i = next + 1; i < st.hi; i++)
		above += s->marks[i] == BISECT_UNTESTED;
	*left = below > above ? below : above;
	return bisect_log2_ceil(*left + 1);
}

/* The driver's summary of a failed link, which names no symbol: the lines before it do. */
static int bisect_link_summary(const char *line)
{
	return strstr(line, "ld returned") != NULL || strstr(line, "linker command failed") != NULL;
}

char *bisect_log_reason(char *text)
{
	char *line, *save = NULL, *err_line = NULL, *link = NULL, *summary = NULL, *last = NULL,
	            *said = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!*line || strncmp(line, "make", 4) == 0)
			continue;
		/* The scripts' own words come last; a compiler's error says more, when there is one. */
		if (strncmp(line, "bisect-build: ", 14) == 0 ||
		    strncmp(line, "build-rev: ", 11) == 0) {
			said = line;
			continue;
		}
		/* GNU ld's "undefined reference to `f'" has no "error:"; lld's "undefined symbol" does. */
		if (strstr(line, "undefined reference to") || strstr(line, "undefined symbol") ||
		    strstr(line, "multiple definition of"))
			link = line;
		else if (bisect_link_summary(line))
			summary = line;
		/* A parallel build echoes other commands after the failing one, each with -Werror. */
		else if (strstr(line, "error:"))
			err_line = line;
		last = line;
	}
	if (link)
		return link;
	return err_line ? err_line : summary ? summary : last ? last : said;
}

/* ---- A range scan --------------------------------------------------------------------- */

static const char *const bisect_link_names[] = {"unknown", "same", "moved", "cannot tell", "more"};

const char *bisect_link_name(enum bisect_link l)
{
	return (size_t)l < sizeof bisect_link_names / sizeof *bisect_link_names
	           ? bisect_link_names[l]
	           : "unknown";
}

int bisect_link_parse(const char *name, enum bisect_link *out)
{
	int i;

	if (bisect_name_index(bisect_link_names,
	                      sizeof bisect_link_names / sizeof *bisect_link_names, name, &i) != 0)
		return -1;
	*out = (enum bisect_link)i;
	return 0;
}

void bisect_scan_init(struct bisect_scan *s, size_t n, size_t segments)
{
	s->n = n;
	s->segments = segments ? segments : 1;
	s->state = xcalloc(n, sizeof *s->state);
	s->link = xcalloc(n, sizeof *s->link);
	s->state[0] = s->state[n - 1] = 1;
}

void bisect_scan_release(struct bisect_scan *s)
{
	free(s->state);
	free(s->link);
	memset(s, 0, sizeof *s);
}

size_t bisect_scan_before(const struct bisect_scan *s, size_t i)
{
	for (size_t k = i; k-- > 0;)
		if (s->state[k] == 1)
			return k;
	return i;
}

/* The untested commit of (a, b) nearest its middle, or b when every one is skipped. */
static size_t bisect_scan_middle(const struct bisect_scan *s, size_t a, size_t b)
{
	size_t mid = a + (b - a) / 2;

	for (size_t d = 0; d < b - a; d++) {
		if (mid >= d && mid - d > a && s->state[mid - d] == 0)
			return mid - d;
		if (mid + d < b && mid + d > a && s->state[mid + d] == 0)
			return mid + d;
	}
	return b;
}

/* Whether the stretch (a, b) is to be split: longer than the first pass leaves it, or not
 * shown unmoved. */
static int bisect_scan_wants(const struct bisect_scan *s, size_t a, size_t b)
{
	size_t longest = (s->n - 1 + s->segments - 1) / s->segments;
	enum bisect_link l = s->link[b];

	if (b - a < 2)
		return 0;
	return b - a > longest || l == BISECT_LINK_MOVED || l == BISECT_LINK_CANNOT_TELL ||
	       l == BISECT_LINK_UNKNOWN;
}

size_t bisect_scan_next(const struct bisect_scan *s, struct bisect_scan_plan *out, size_t max)
{
	size_t k = 0, a = 0;

	for (size_t b = 1; b < s->n; b++) {
		size_t mid;
		if (s->state[b] != 1)
			continue;
		if (bisect_scan_wants(s, a, b) && (mid = bisect_scan_middle(s, a, b)) < b) {
			if (out && k < max)
				out[k] = (struct bisect_scan_plan){a, mid, b};
			k++;
		}
		a = b;
	}
	return k < max ? k : max;
}

size_t bisect_scan_pending(const struct bisect_scan *s)
{
	return bisect_scan_next(s, NULL, SIZE_MAX);
}

void bisect_scan_measured(struct bisect_scan *s, size_t mid, enum bisect_link left,
                          enum bisect_link right)
{
	if (mid == 0 || mid >= s->n - 1)
		return;
	s->state[mid] = 1;
	s->link[mid] = left;
	for (size_t k = mid + 1; k < s->n; k++)
		if (s->state[k] == 1) {
			s->link[k] = right;
			break;
		}
}

void bisect_scan_skipped(struct bisect_scan *s, size_t mid)
{
	if (mid > 0 && mid < s->n - 1 && s->state[mid] == 0)
		s->state[mid] = 2;
}

size_t bisect_scan_found(const struct bisect_scan *s, struct bisect_scan_find *out, size_t max)
{
	size_t k = 0, a = 0;

	for (size_t b = 1; b < s->n; b++) {
		enum bisect_link l;
		if (s->state[b] != 1)
			continue;
		l = s->link[b];
		if ((l == BISECT_LINK_MOVED || l == BISECT_LINK_CANNOT_TELL) &&
		    bisect_scan_middle(s, a, b) == b) {
			if (k < max)
				out[k] = (struct bisect_scan_find){a, b, l};
			k++;
		}
		a = b;
	}
	return k;
}

size_t bisect_scan_count(const struct bisect_scan *s, int state)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		k += s->state[i] == state;
	return k;
}

enum bisect_link bisect_link_paired(const struct bisect_rule *r, const double *x, const double *y,
                                    size_t n, double alpha, int final, struct bisect_paired out[2])
{
	bisect_decide_paired(r, +1, x, y, n, alpha / 2, final, &out[0]);
	bisect_decide_paired(r, -1, x, y, n, alpha / 2, final, &out[1]);
	if (out[0].answer == BISECT_ANSWER_BAD || out[1].answer == BISECT_ANSWER_BAD)
		return BISECT_LINK_MOVED;
	if (out[0].answer == BISECT_ANSWER_GOOD && out[1].answer == BISECT_ANSWER_GOOD)
		return BISECT_LINK_SAME;
	return final ? BISECT_LINK_CANNOT_TELL : BISECT_LINK_MORE;
}

enum bisect_link bisect_link_exact(const struct bisect_rule *r, double before, double after)
{
	if (!isfinite(before) || !isfinite(after))
		return BISECT_LINK_CANNOT_TELL;
	return fabs(after - before) > bisect_allowance(r, before) ? BISECT_LINK_MOVED
	                                                          : BISECT_LINK_SAME;
}
