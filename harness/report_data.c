#include "report_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

static int report_metric_cmp(const void *a, const void *b)
{
	return strcmp(((const struct metric *)a)->name, ((const struct metric *)b)->name);
}

int report_data_load(struct store *st, int64_t id, struct report_data *out, struct err *e)
{
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (store_session_get(st, id, &out->session, e) != 0 ||
	    store_host_facts(st, out->session.host_id, &out->host_facts, e) != 0 ||
	    store_session_builds(st, id, &out->builds, &out->nbuilds, e) != 0)
		goto out;
	out->manifests = xcalloc(out->nbuilds, sizeof *out->manifests);
	for (size_t i = 0; i < out->nbuilds; i++)
		if (store_build_manifest(st, out->builds[i].id, &out->manifests[i], e) != 0)
			goto out;
	if (store_runs_load(st, id, -1, &out->runs, &out->nruns, e) != 0)
		goto out;
	strlist_split(&out->probes, out->session.probes ? out->session.probes : "");
	strlist_sort_probes(&out->probes);
	/* In byte order whichever engine stored them: a PostgreSQL collation may order otherwise. */
	for (size_t i = 0; i < out->nruns; i++)
		if (out->runs[i].metrics.n > 1)
			qsort(out->runs[i].metrics.items, out->runs[i].metrics.n,
			      sizeof *out->runs[i].metrics.items, report_metric_cmp);
	rc = 0;
out:
	if (rc != 0)
		report_data_release(out);
	return rc;
}

void report_data_release(struct report_data *d)
{
	store_session_release(&d->session);
	free(d->host_facts);
	for (size_t i = 0; d->manifests && i < d->nbuilds; i++)
		free(d->manifests[i]);
	free(d->manifests);
	store_builds_release(d->builds, d->nbuilds);
	store_runs_release(d->runs, d->nruns);
	strlist_release(&d->probes);
	free(d->origin);
	memset(d, 0, sizeof *d);
}

/* Moves arm i of d (its build and manifest) into out's arm `position`; d keeps an empty one. */
static void report_data_take_arm(struct report_data *d, size_t i, struct report_data *out,
                                 int position)
{
	out->builds[position] = d->builds[i];
	out->builds[position].position = position;
	memset(&d->builds[i], 0, sizeof d->builds[i]);
	out->manifests[position] = d->manifests ? d->manifests[i] : NULL;
	if (d->manifests)
		d->manifests[i] = NULL;
}

/* A side as a message names it: "session 3", or "baseline baselines/shared_ci/gen.json". */
static char *report_data_what(const struct report_data *d)
{
	if (d->session.id == 0 && d->nbuilds == 1 && d->builds[0].dir)
		return xasprintf("baseline %s", d->builds[0].dir);
	return xasprintf("session %lld", (long long)d->session.id);
}

/* Where one side came from, for origin: its session, or the baseline file it was pinned as. */
static void report_data_side(struct sbuf *b, const char *arm, const struct report_data *d,
                             const char *label)
{
	const struct store_session *s = &d->session;
	char *what = report_data_what(d);

	if (s->id == 0)
		sbuf_addf(
		    b,
		    "%s %s from %s (pinned %s, size %s, host %s): medians, not runs: each round "
		    "pairs with the pinned median",
		    arm, label, what, s->started_at ? s->started_at : "?", s->size ? s->size : "?",
		    s->hostname ? s->hostname : "?");
	else
		sbuf_addf(b, "%s %s from %s (%s, %s, size %s, %lld round%s, host %s)", arm, label,
		          what, s->status ? s->status : "?", s->started_at ? s->started_at : "?",
		          s->size ? s->size : "?", (long long)s->rounds, s->rounds == 1 ? "" : "s",
		          s->hostname ? s->hostname : "?");
	free(what);
}

static int report_data_same(const char *x, const char *y)
{
	return strcmp(x ? x : "", y ? y : "") == 0;
}

/* Both known and different: an unknown side (a file that does not say) claims nothing. */
static int report_data_differ(const char *x, const char *y)
{
	return x && y && *x && *y && strcmp(x, y) != 0;
}

int report_data_merge(struct report_data *a, size_t ia, struct report_data *b, size_t ib,
                      struct report_data *out, struct err *e)
{
	struct sbuf o;
	const char *pa, *pb;
	int pos[2] = {a->builds[ia].position, b->builds[ib].position};
	int64_t rounds;
	int rc = -1;

	memset(out, 0, sizeof *out);
	sbuf_init(&o);
	for (size_t i = 0; i < a->probes.n; i++)
		if (strlist_contains(&b->probes, a->probes.items[i]))
			strlist_push(&out->probes, a->probes.items[i]);
	if (out->probes.n == 0) {
		char *wa = report_data_what(a), *wb = report_data_what(b);
		pa = a->session.probes ? a->session.probes : "";
		pb = b->session.probes ? b->session.probes : "";
		err_setc(e, ERR_INVALID,
		         "%s and %s have no probe in common (%s; %s): nothing to compare", wa, wb,
		         *pa ? pa : "none", *pb ? pb : "none");
		free(wa);
		free(wb);
		goto out;
	}
	/* What a reader must know before trusting a comparison of two results: said, not refused. */
	report_data_side(&o, "BASE", a, a->builds[ia].label);
	sbuf_addf(&o, "\n");
	report_data_side(&o, "FIX", b, b->builds[ib].label);
	if (report_data_differ(a->session.host_fingerprint, b->session.host_fingerprint))
		sbuf_addf(
		    &o,
		    "\nMEASURED ON DIFFERENT HOSTS: %s (%.16s), %s (%.16s): time and memory may "
		    "differ for that alone",
		    a->session.hostname ? a->session.hostname : "?",
		    a->session.host_fingerprint ? a->session.host_fingerprint : "?",
		    b->session.hostname ? b->session.hostname : "?",
		    b->session.host_fingerprint ? b->session.host_fingerprint : "?");
	if (report_data_differ(a->session.harness_version, b->session.harness_version))
		sbuf_addf(&o,
		          "\nMEASURED BY DIFFERENT BUILDS OF THE HARNESS: %s, %s: their meters may "
		          "count differently",
		          a->session.harness_version ? a->session.harness_version : "?",
		          b->session.harness_version ? b->session.harness_version : "?");
	if (a->session.rounds != b->session.rounds)
		sbuf_addf(&o, "\nrounds 1-%lld of each are paired",
		          (long long)(a->session.rounds < b->session.rounds ? a->session.rounds
		                                                            : b->session.rounds));

	out->builds = xcalloc(2, sizeof *out->builds);
	out->manifests = xcalloc(2, sizeof *out->manifests);
	out->nbuilds = 2;
	report_data_take_arm(a, ia, out, 0);
	report_data_take_arm(b, ib, out, 1);
	if (report_data_same(out->builds[0].label, out->builds[1].label)) {
		char *label =
		    xasprintf("%s (2)", out->builds[1].label ? out->builds[1].label : "?");
		free(out->builds[1].label);
		out->builds[1].label = label;
	}
	/* The chosen arms' runs as arms 0 and 1; the others stay behind, released with their data. */
	out->runs = xcalloc(a->nruns + b->nruns + 1, sizeof *out->runs);
	for (int side = 0; side < 2; side++) {
		struct report_data *d = side ? b : a;
		int shift = (int)(a->session.warmup - d->session.warmup);
		size_t kept = 0;
		for (size_t i = 0; i < d->nruns; i++) {
			struct store_run *r;
			if (d->runs[i].arm != pos[side]) {
				d->runs[kept++] = d->runs[i];
				continue;
			}
			r = &out->runs[out->nruns++];
			*r = d->runs[i];
			r->arm = side;
			/* B's round k (after its warm-up) is A's round k. */
			if (r->kind == RUN_KIND_TIMED)
				r->round += shift;
		}
		d->nruns = kept;
	}
	out->session = a->session;
	memset(&a->session, 0, sizeof a->session);
	rounds = out->session.rounds < b->session.rounds ? out->session.rounds : b->session.rounds;
	out->session.rounds = rounds;
	if (!report_data_same(b->session.status, "complete")) {
		free(out->session.status);
		out->session.status = xstrdup(b->session.status ? b->session.status : "incomplete");
	}
	free(out->session.probes);
	out->session.probes = strlist_join(&out->probes, ",");
	out->host_facts = a->host_facts;
	a->host_facts = NULL;
	out->origin = sbuf_detach(&o);
	rc = 0;
out:
	sbuf_release(&o);
	report_data_release(a);
	report_data_release(b);
	return rc;
}

/* The ok valgrind runs arm `position` of d made of `probe`. */
static size_t report_data_valgrind_runs(const struct report_data *d, int position,
                                        const char *probe)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nruns; i++) {
		const struct store_run *r = &d->runs[i];
		n += r->arm == position && !r->warmup && r->kind == RUN_KIND_VALGRIND &&
		     r->status == RUN_STATUS_OK && strcmp(r->probe, probe) == 0;
	}
	return n;
}

/* One run of a pinned probe holding its cells of one kind (valgrind or timed). */
static void report_data_pinned_run(const struct baseline *bl, const struct baseline_probe *p,
                                   int valgrind, int round, struct store_run *r)
{
	memset(r, 0, sizeof *r);
	r->probe = xstrdup(p->name);
	r->size = xstrdup(bl->size);
	r->round = round;
	r->arm = 0;
	r->kind = valgrind ? RUN_KIND_VALGRIND : RUN_KIND_TIMED;
	r->status = RUN_STATUS_OK;
	r->checksum = p->checksum ? xstrdup(p->checksum) : NULL;
	r->started_at = bl->pinned_at ? xstrdup(bl->pinned_at) : NULL;
	for (size_t i = 0; i < bl->ncells; i++) {
		const struct baseline_cell *c = &bl->cells[i];
		enum run_kind kind = metrics_run_kind(c->metric);
		if (strcmp(c->probe, p->name) != 0 ||
		    (kind != RUN_KIND_TIMED && kind != RUN_KIND_VALGRIND) ||
		    (kind == RUN_KIND_VALGRIND) != (valgrind != 0))
			continue;
		metric_set_add(&r->metrics, c->metric, c->median);
	}
	for (size_t i = 0; valgrind && i < bl->nfunctions; i++)
		if (strcmp(bl->functions[i].probe, p->name) == 0)
			fnprof_copy(&bl->functions[i].prof, &r->functions);
}

void report_data_from_baseline(const struct baseline *bl, const char *path,
                               const struct report_data *other, size_t arm, struct report_data *out)
{
	struct store_session *s = &out->session;
	struct store_build *b;
	int rounds = (int)other->session.rounds, position = other->builds[arm].position;
	size_t cap = 0;

	memset(out, 0, sizeof *out);
	s->hostname = bl->hostname ? xstrdup(bl->hostname) : NULL;
	s->host_fingerprint = bl->host_fingerprint ? xstrdup(bl->host_fingerprint) : NULL;
	s->command = xasprintf("baseline %s", path);
	s->started_at = bl->pinned_at ? xstrdup(bl->pinned_at) : NULL;
	s->status = xstrdup("complete");
	s->size = xstrdup(bl->size);
	s->rounds = rounds;
	s->meters = strlist_join(&bl->meters, ",");
	for (size_t i = 0; i < bl->nprobes; i++)
		strlist_push(&out->probes, bl->probes[i].name);
	strlist_sort_probes(&out->probes);
	s->probes = strlist_join(&out->probes, ",");
	out->builds = xcalloc(1, sizeof *out->builds);
	out->manifests = xcalloc(1, sizeof *out->manifests);
	out->nbuilds = 1;
	b = &out->builds[0];
	b->name = xstrdup(bl->collector);
	b->collector = xstrdup(bl->collector);
	b->collector_version = bl->collector_version ? xstrdup(bl->collector_version) : NULL;
	b->git_commit = bl->git_commit ? xstrdup(bl->git_commit) : NULL;
	b->dir = xstrdup(path);
	b->label = xasprintf("%s (pinned)", bl->collector);
	for (size_t i = 0; i < bl->nprobes; i++) {
		size_t v = report_data_valgrind_runs(other, position, bl->probes[i].name);
		cap += (size_t)(rounds > 0 ? rounds : 0) + (v ? v : 1);
	}
	out->runs = xcalloc(cap + 1, sizeof *out->runs);
	for (size_t i = 0; i < bl->nprobes; i++) {
		const struct baseline_probe *p = &bl->probes[i];
		size_t v = report_data_valgrind_runs(other, position, p->name);
		for (int k = 1; k <= rounds; k++)
			report_data_pinned_run(bl, p, 0, k, &out->runs[out->nruns++]);
		for (size_t k = 0; k < (v ? v : 1); k++)
			report_data_pinned_run(bl, p, 1, 0, &out->runs[out->nruns++]);
	}
	/* In byte order, as report_data_load leaves a stored run's. */
	for (size_t i = 0; i < out->nruns; i++)
		if (out->runs[i].metrics.n > 1)
			qsort(out->runs[i].metrics.items, out->runs[i].metrics.n,
			      sizeof *out->runs[i].metrics.items, report_metric_cmp);
}

long report_data_arm_index(const struct report_data *d, int arm)
{
	for (size_t i = 0; i < d->nbuilds; i++)
		if (d->builds[i].position == arm)
			return (long)i;
	return -1;
}

long report_data_arm_named(const struct report_data *d, const char *label)
{
	for (size_t i = 0; i < d->nbuilds; i++)
		if (d->builds[i].label && strcmp(d->builds[i].label, label) == 0)
			return (long)i;
	return -1;
}

void report_format_delta(const char *metric, double v, char *buf, size_t size)
{
	char tmp[48];

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	metrics_format_value(metric, fabs(v), tmp, sizeof tmp);
	snprintf(buf, size, "%s%s", v > 0 ? "+" : v < 0 ? "-" : "", tmp);
}

void report_format_pct(double pct, char *buf, size_t size)
{
	double a = fabs(pct);

	if (!isfinite(pct))
		snprintf(buf, size, "-");
	else if (pct == 0)
		snprintf(buf, size, "0%%");
	else if (a < 0.001)
		snprintf(buf, size, "%+.1e%%", pct);
	else if (a < 0.1)
		snprintf(buf, size, "%+.3f%%", pct);
	else
		snprintf(buf, size, "%+.2f%%", pct);
}
