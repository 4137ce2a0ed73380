#include "report_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "movers.h"
#include "report_text.h"
#include "json.h"
#include "pauses.h"

static void report_json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void report_json_str(cJSON *o, const char *key, const char *v)
{
	cJSON_AddItemToObject(o, key, escape_json_string(v));
}

/*
 * Embeds stored JSON text as JSON; stored text that does not parse strictly (json.h: trailing
 * text, a duplicate key) is kept as a string, so an export never shows half of it as whole.
 * cJSON prints bytes that are not UTF-8 back as they were: they are made valid first.
 */
static void report_json_raw(cJSON *o, const char *key, const char *text)
{
	struct sbuf valid;
	cJSON *v = NULL;

	sbuf_init(&valid);
	escape_utf8(&valid, text);
	if (text && json_parse(valid.data, valid.len, key, &v, NULL) != 0)
		v = NULL;
	if (v)
		cJSON_AddItemToObject(o, key, v);
	else
		report_json_str(o, key, text);
	sbuf_release(&valid);
}

static cJSON *report_json_list(const char *comma_list)
{
	cJSON *a = cJSON_CreateArray();
	struct strlist l = {0};

	strlist_split(&l, comma_list ? comma_list : "");
	for (size_t i = 0; i < l.n; i++)
		cJSON_AddItemToArray(a, escape_json_string(l.items[i]));
	strlist_release(&l);
	return a;
}

static int report_json_run_cmp(const void *a, const void *b)
{
	const struct store_run *x = *(const struct store_run *const *)a;
	const struct store_run *y = *(const struct store_run *const *)b;
	int c = strlist_probe_cmp(x->probe, y->probe);

	if (c)
		return c;
	if (x->arm != y->arm)
		return x->arm < y->arm ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->round != y->round)
		return x->round < y->round ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* seq breaks the ties, so that the shuffle of a session's seed never shows in the order. */
const struct store_run **report_json_run_order(const struct report_data *d)
{
	const struct store_run **order = xcalloc(d->nruns ? d->nruns : 1, sizeof *order);

	for (size_t i = 0; i < d->nruns; i++)
		order[i] = &d->runs[i];
	if (d->nruns > 1)
		qsort(order, d->nruns, sizeof *order, report_json_run_cmp);
	return order;
}

/* The session, its host, builds and arms; with `runs`, every run with every sample too. */
static cJSON *report_json_root(const struct report_data *d, const char *format, int version,
                               int runs)
{
	const struct store_run **order = report_json_run_order(d);
	const struct store_session *s = &d->session;
	cJSON *root = cJSON_CreateObject(), *o, *a;

	cJSON_AddStringToObject(root, "format", format);
	cJSON_AddNumberToObject(root, "version", version);

	o = cJSON_AddObjectToObject(root, "session");
	cJSON_AddNumberToObject(o, "id", (double)s->id);
	report_json_str(o, "command", s->command);
	report_json_str(o, "started_at", s->started_at);
	report_json_str(o, "finished_at", s->finished_at);
	report_json_str(o, "status", s->status);
	/* Seeds use all 63 bits: a string keeps them exact in every JSON reader. */
	{
		char seed[24];
		snprintf(seed, sizeof seed, "%lld", (long long)s->seed);
		cJSON_AddStringToObject(o, "seed", seed);
	}
	report_json_str(o, "size", s->size);
	cJSON_AddNumberToObject(o, "rounds", (double)s->rounds);
	cJSON_AddNumberToObject(o, "warmup", (double)s->warmup);
	cJSON_AddItemToObject(o, "probes", report_json_list(s->probes));
	cJSON_AddItemToObject(o, "meters", report_json_list(s->meters));
	report_json_num(o, "load_before", s->load_before);
	report_json_num(o, "load_after", s->load_after);
	report_json_str(o, "harness_version", s->harness_version);
	/* The host's facts when the session began, and the environment its probes ran with. */
	report_json_raw(o, "facts", s->facts);

	o = cJSON_AddObjectToObject(root, "host");
	report_json_str(o, "fingerprint", s->host_fingerprint);
	report_json_str(o, "hostname", s->hostname);
	report_json_raw(o, "facts", d->host_facts);

	/* d->builds has a row per arm: a build that is two arms is listed once here. */
	a = cJSON_AddArrayToObject(root, "builds");
	for (size_t i = 0; i < d->nbuilds; i++) {
		const struct store_build *b = &d->builds[i];
		cJSON *bo;
		size_t first = 0;
		while (d->builds[first].id != b->id)
			first++;
		if (first < i)
			continue;
		bo = cJSON_CreateObject();
		cJSON_AddNumberToObject(bo, "id", (double)b->id);
		report_json_str(bo, "name", b->name);
		report_json_str(bo, "collector", b->collector);
		report_json_str(bo, "collector_version", b->collector_version);
		report_json_str(bo, "git_commit", b->git_commit);
		report_json_str(bo, "dir", b->dir);
		report_json_str(bo, "manifest_hash", b->manifest_hash);
		report_json_raw(bo, "manifest", d->manifests ? d->manifests[i] : NULL);
		cJSON_AddItemToArray(a, bo);
	}

	a = cJSON_AddArrayToObject(root, "arms");
	for (size_t i = 0; i < d->nbuilds; i++) {
		const struct store_build *b = &d->builds[i];
		cJSON *ao = cJSON_CreateObject();
		cJSON_AddNumberToObject(ao, "position", b->position);
		report_json_str(ao, "label", b->label);
		if (b->knobs)
			report_json_raw(ao, "knobs", b->knobs);
		else
			cJSON_AddObjectToObject(ao, "knobs");
		cJSON_AddNumberToObject(ao, "build_id", (double)b->id);
		report_json_str(ao, "build", b->name);
		cJSON_AddItemToArray(a, ao);
	}

	a = runs ? cJSON_AddArrayToObject(root, "runs") : NULL;
	for (size_t i = 0; a && i < d->nruns; i++) {
		const struct store_run *r = order[i];
		long ai = report_data_arm_index(d, r->arm);
		cJSON *ro = cJSON_CreateObject(), *samples;
		cJSON_AddNumberToObject(ro, "id", (double)r->id);
		cJSON_AddNumberToObject(ro, "build_id", (double)r->build_id);
		report_json_str(ro, "build", ai >= 0 ? d->builds[ai].name : NULL);
		if (r->arm >= 0)
			cJSON_AddNumberToObject(ro, "arm", r->arm);
		else
			cJSON_AddNullToObject(ro, "arm");
		report_json_str(ro, "label", ai >= 0 ? d->builds[ai].label : NULL);
		report_json_str(ro, "probe", r->probe);
		report_json_str(ro, "size", r->size);
		cJSON_AddNumberToObject(ro, "round", r->round);
		cJSON_AddNumberToObject(ro, "seq", r->seq);
		cJSON_AddBoolToObject(ro, "warmup", r->warmup);
		char *premise = run_premise_join(r->premise, r->premise_text);
		report_json_str(ro, "kind", run_kind_name(r->kind));
		report_json_str(ro, "status", run_status_name(r->status));
		report_json_str(ro, "detail", r->detail);
		report_json_str(ro, "checksum", r->checksum);
		report_json_str(ro, "premise", premise);
		free(premise);
		report_json_str(ro, "started_at", r->started_at);
		report_json_str(ro, "stderr_tail", r->stderr_tail);
		samples = cJSON_AddObjectToObject(ro, "samples");
		for (size_t m = 0; m < r->metrics.n; m++)
			report_json_num(samples, r->metrics.items[m].name,
			                r->metrics.items[m].value);
		/* A valgrind run's Ir by function, largest first, as the store keeps it. */
		if (r->functions.n) {
			cJSON *fa = cJSON_AddArrayToObject(ro, "functions");
			for (size_t f = 0; f < r->functions.n; f++) {
				cJSON *fo = cJSON_CreateObject();
				report_json_str(fo, "name", r->functions.fns[f].name);
				report_json_str(fo, "file", r->functions.fns[f].file);
				report_json_num(fo, "ir", r->functions.fns[f].ir);
				cJSON_AddItemToArray(fa, fo);
			}
		}
		cJSON_AddItemToArray(a, ro);
	}
	free(order);
	return root;
}

static char *report_json_print(cJSON *root)
{
	char *text = cJSON_Print(root), *out;

	out = xasprintf("%s\n", text);
	cJSON_free(text);
	cJSON_Delete(root);
	return out;
}

char *report_json_session(const struct report_data *d)
{
	return report_json_print(
	    report_json_root(d, REPORT_JSON_SESSION_FORMAT, REPORT_JSON_VERSION, 1));
}

static const char *report_json_sum_name(enum compare_sum s)
{
	switch (s) {
	case COMPARE_SUM_SAME:
		return "same";
	case COMPARE_SUM_DIFFERS:
		return "differs";
	case COMPARE_SUM_UNSTABLE:
		return "unstable";
	case COMPARE_SUM_MISSING:
		return "missing";
	case COMPARE_SUM_NONE:
		break;
	}
	return "none";
}

static cJSON *report_json_cell(const struct compare_cell *cell)
{
	const struct paired_cell *s = &cell->stats;
	cJSON *o = cJSON_CreateObject(), *a, *t;

	report_json_str(o, "probe", cell->probe);
	report_json_str(o, "metric", cell->metric);
	cJSON_AddStringToObject(o, "role",
	                        cell->context       ? "context"
	                        : cell->pol.decides ? "decides"
	                                            : "info");
	cJSON_AddStringToObject(o, "better", cell->pol.lower_better ? "lower" : "higher");
	cJSON_AddStringToObject(o, "verdict", paired_verdict_name(s->verdict));
	report_json_str(o, "only_in", cell->only);
	/* The arm whose probe went inert: the cell is not judged (verdict "unjudged"). */
	report_json_str(o, "inert_in", cell->inert);
	cJSON_AddNumberToObject(o, "n", (double)s->n);
	cJSON_AddBoolToObject(o, "deterministic", s->deterministic);
	report_json_num(o, "base_median", s->base_median);
	report_json_num(o, "fix_median", s->fix_median);
	report_json_num(o, "delta_median", s->delta_median);
	report_json_num(o, "delta_median_pct", s->delta_pct);
	t = cJSON_AddObjectToObject(o, "ci");
	report_json_num(t, "lo", s->ci.lo);
	report_json_num(t, "hi", s->ci.hi);
	report_json_num(t, "level", s->n ? s->ci.level : NAN);
	cJSON_AddStringToObject(t, "method", "order statistics of the deltas (sign-test interval)");
	/* The smallest effect these rounds could show: half the CI's width, % of BASE. */
	report_json_num(o, "mde_pct", cell->mde_pct);
	/* No change could be called at these rounds: how many a side would call one. */
	if (isinf(cell->mde_pct))
		cJSON_AddNumberToObject(o, "mde_rounds_needed", (double)cell->mde_rounds);
	else
		cJSON_AddNullToObject(o, "mde_rounds_needed");
	t = cJSON_AddObjectToObject(o, "signs");
	cJSON_AddNumberToObject(t, "lower", s->n_lower);
	cJSON_AddNumberToObject(t, "higher", s->n_higher);
	cJSON_AddNumberToObject(t, "equal", s->n_equal);
	t = cJSON_AddObjectToObject(o, "test");
	{
		const char *m = compare_cell_method(cell);
		int ranked = m && strcmp(m, "rank-sum") == 0;
		double pv, qv;
		cJSON_AddStringToObject(t, "method",
		                        !m                         ? "none"
		                        : strcmp(m, "exact") == 0  ? "exact comparison"
		                        : ranked                   ? "Wilcoxon rank-sum"
		                        : strcmp(m, "spread") == 0 ? "spread"
		                                                   : "Wilcoxon signed-rank");
		cJSON_AddBoolToObject(t, "exact", ranked ? s->rank.exact : s->test.exact);
		cJSON_AddNumberToObject(t, "n_used", (double)s->test.n_used);
		cJSON_AddNumberToObject(t, "n_zero", (double)s->test.n_zero);
		report_json_num(t, "w_plus", s->test.w_plus);
		compare_cell_pq(cell, &pv, &qv);
		/* The p the verdict was judged by; a deterministic cell's is 0 or 1, as before. */
		report_json_num(t, "p", s->deterministic ? s->p : pv);
		cJSON_AddBoolToObject(t, "in_fdr_family", s->in_family);
		cJSON_AddBoolToObject(t, "in_rank_family", s->in_rank_family);
		report_json_num(t, "q", qv);
		report_json_num(t, "min_p", ranked ? s->rank.min_p : NAN);
		report_json_num(t, "min_effect",
		                cell->pol.exact && !s->deterministic ? s->min_effect : NAN);
	}
	t = cJSON_AddObjectToObject(o, "bimodal");
	cJSON_AddBoolToObject(t, "base", s->bimodal_base);
	cJSON_AddBoolToObject(t, "fix", s->bimodal_fix);
	/* Info, never a verdict: each arm's standard deviation and whether it changed. */
	t = cJSON_AddObjectToObject(o, "spread");
	report_json_num(t, "base_sd", cell->spread.base_sd);
	report_json_num(t, "fix_sd", cell->spread.fix_sd);
	report_json_num(t, "ratio", cell->spread.ratio);
	cJSON_AddStringToObject(t, "method",
	                        "paired Brown-Forsythe: signed-rank of |FIX - its median| - "
	                        "|BASE - its median|, round by round");
	report_json_num(t, "p", cell->spread.p);
	cJSON_AddBoolToObject(t, "in_fdr_family", cell->spread.in_family);
	report_json_num(t, "q", cell->spread.q);
	if (cell->spread.change)
		cJSON_AddStringToObject(t, "change",
		                        cell->spread.change > 0 ? "wider" : "narrower");
	else
		cJSON_AddNullToObject(t, "change");
	a = cJSON_AddArrayToObject(o, "pairs");
	for (size_t i = 0; i < s->n; i++) {
		cJSON *p = cJSON_CreateObject();
		double delta = cell->fix[i] - cell->base[i];
		cJSON_AddNumberToObject(p, "round", cell->rounds[i]);
		report_json_num(p, "base", cell->base[i]);
		report_json_num(p, "fix", cell->fix[i]);
		report_json_num(p, "delta", delta);
		report_json_num(p, "delta_pct",
		                cell->base[i] != 0 ? 100 * delta / fabs(cell->base[i]) : NAN);
		cJSON_AddItemToArray(a, p);
	}
	return o;
}

/*
 * "pauses": per probe where an arm kept a pause log, each arm's medians over runs of the pause
 * figures and MMU points, and its mean pauses per run in each log2 bucket ("k": [2^k, 2^(k+1))
 * ns). A figure no run reported is null. idx are the arms' indexes in d->builds, names what
 * each arm is called ("BASE", "FIX"; a session's one arm, its label).
 */
static cJSON *report_json_pause_arms(const struct report_data *d, const size_t *idx,
                                     const char *const *names, int narms)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t p = 0; p < d->probes.n; p++) {
		struct report_pause_arm arm[2];
		cJSON *po, *arms;
		int any = 0;

		for (int k = 0; k < narms; k++)
			any |= report_pauses_arm(d, d->probes.items[p], d->builds[idx[k]].position,
			                         &arm[k]);
		if (!any)
			continue;
		po = cJSON_CreateObject();
		report_json_str(po, "probe", d->probes.items[p]);
		arms = cJSON_AddArrayToObject(po, "arms");
		for (int k = 0; k < narms; k++) {
			cJSON *ao = cJSON_CreateObject(), *o;

			report_json_str(ao, "arm", names[k]);
			report_json_str(ao, "label", d->builds[idx[k]].label);
			cJSON_AddNumberToObject(ao, "runs", (double)arm[k].runs);
			for (size_t s = 0; s < REPORT_PAUSE_STATS; s++)
				report_json_num(ao, report_pause_stats[s].metric + 7,
				                arm[k].stat[s]);
			o = cJSON_AddObjectToObject(ao, "mmu");
			for (size_t w = 0; w < REPORT_PAUSE_WINDOWS; w++)
				report_json_num(o, report_pause_windows[w].label, arm[k].mmu[w]);
			o = cJSON_AddObjectToObject(ao, "histogram_log2_ns");
			for (int b = arm[k].hist_lo; b <= arm[k].hist_hi; b++) {
				char key[8];

				snprintf(key, sizeof key, "%d", b);
				report_json_num(o, key, arm[k].hist[b]);
			}
			cJSON_AddItemToArray(arms, ao);
		}
		cJSON_AddItemToArray(a, po);
	}
	return a;
}

static cJSON *report_json_pauses(const struct compare *c)
{
	const size_t idx[2] = {c->base, c->fix};
	const char *const names[2] = {"BASE", "FIX"};

	return report_json_pause_arms(c->data, idx, names, 2);
}

char *report_json_ab(const struct compare *c)
{
	const struct report_data *d = c->data;
	cJSON *root = report_json_root(d, REPORT_JSON_AB_FORMAT, REPORT_JSON_VERSION, 1), *cmp, *a,
	      *o;
	char headline[256];

	cmp = cJSON_AddObjectToObject(root, "comparison");
	cJSON_AddNumberToObject(cmp, "base_build_id", (double)d->builds[c->base].id);
	cJSON_AddNumberToObject(cmp, "fix_build_id", (double)d->builds[c->fix].id);
	cJSON_AddNumberToObject(cmp, "base_arm", d->builds[c->base].position);
	cJSON_AddNumberToObject(cmp, "fix_arm", d->builds[c->fix].position);
	report_json_str(cmp, "base", d->builds[c->base].label);
	report_json_str(cmp, "fix", d->builds[c->fix].label);
	cJSON_AddStringToObject(cmp, "outcome",
	                        c->outcome == COMPARE_WORSE      ? "worse"
	                        : c->outcome == COMPARE_UNJUDGED ? "could_not_judge"
	                                                         : "ok");
	compare_headline(c, headline, sizeof headline);
	report_json_str(cmp, "headline", headline);
	{
		char *moved = compare_headline_moved(c);
		report_json_str(cmp, "moved", moved);
		free(moved);
	}
	o = cJSON_AddObjectToObject(cmp, "across");
	cJSON_AddBoolToObject(o, "designs", c->across);
	cJSON_AddStringToObject(o, "base_design", c->base_design);
	cJSON_AddStringToObject(o, "fix_design", c->fix_design);
	cJSON_AddStringToObject(o, "mode",
	                        c->mode == COMPARE_MODE_ACROSS ? "across"
	                        : c->mode == COMPARE_MODE_SAME ? "same"
	                                                       : "auto");
	{
		char *why = compare_across_text(c);
		report_json_str(o, "text", why);
		free(why);
	}
	cJSON_AddNumberToObject(cmp, "rounds_planned", c->rounds_planned);
	a = cJSON_AddArrayToObject(cmp, "rounds_complete");
	for (size_t i = 0; i < c->ncomplete; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(c->complete[i]));
	o = cJSON_AddObjectToObject(cmp, "fdr");
	cJSON_AddStringToObject(o, "method", "Benjamini-Hochberg");
	cJSON_AddNumberToObject(o, "q", c->fdr_q);
	cJSON_AddNumberToObject(o, "family_size", (double)c->family);
	cJSON_AddNumberToObject(o, "spread_family_size", (double)c->spread_family);
	cJSON_AddStringToObject(o, "rank_method", "Benjamini-Hochberg");
	cJSON_AddNumberToObject(o, "rank_q", PAIRED_RANK_Q);
	cJSON_AddNumberToObject(o, "rank_family_size", (double)c->rank_family);
	o = cJSON_AddObjectToObject(cmp, "counts");
	cJSON_AddNumberToObject(o, "worse", c->worse);
	cJSON_AddNumberToObject(o, "better", c->better);
	cJSON_AddNumberToObject(o, "same", c->same);
	cJSON_AddNumberToObject(o, "info", c->info);
	cJSON_AddNumberToObject(o, "few", c->few);
	cJSON_AddNumberToObject(o, "unjudged", c->unjudged);
	cJSON_AddNumberToObject(o, "context", c->context);
	cJSON_AddNumberToObject(o, "inert", c->inert);
	cJSON_AddNumberToObject(o, "bimodal", c->bimodal);
	cJSON_AddNumberToObject(o, "spread_changed", c->spread_changed);

	o = cJSON_AddObjectToObject(cmp, "identity");
	cJSON_AddBoolToObject(o, "failed", c->identity_failed);
	cJSON_AddNumberToObject(o, "census_exact", c->census_exact);
	report_json_str(o, "census_varies", c->census_varies);
	cJSON_AddNumberToObject(o, "census_differ", c->census_differ);
	cJSON_AddNumberToObject(o, "inert_probes", c->inert_probes);
	a = cJSON_AddArrayToObject(o, "probes");
	for (size_t i = 0; i < c->nprobes; i++) {
		const struct compare_probe *p = &c->probes[i];
		cJSON *po = cJSON_CreateObject();
		report_json_str(po, "probe", p->probe);
		cJSON_AddStringToObject(po, "checksum", report_json_sum_name(p->sum));
		report_json_str(po, "base_checksum", p->base_sum);
		report_json_str(po, "fix_checksum", p->fix_sum);
		cJSON_AddNumberToObject(po, "base_runs", p->base_runs);
		cJSON_AddNumberToObject(po, "fix_runs", p->fix_runs);
		cJSON_AddNumberToObject(po, "base_failed", p->base_failed);
		cJSON_AddNumberToObject(po, "fix_failed", p->fix_failed);
		report_json_str(po, "failure", p->failure);
		report_json_str(po, "base_stderr_first_line", p->base_stderr);
		report_json_str(po, "fix_stderr_first_line", p->fix_stderr);
		cJSON_AddNumberToObject(po, "base_inert", p->base_inert);
		cJSON_AddNumberToObject(po, "fix_inert", p->fix_inert);
		report_json_str(po, "base_premise", p->base_premise);
		report_json_str(po, "fix_premise", p->fix_premise);
		cJSON_AddBoolToObject(po, "correctness_failure", p->correctness);
		cJSON_AddItemToArray(a, po);
	}
	a = cJSON_AddArrayToObject(o, "census_differences");
	for (size_t i = 0; i < c->ncells; i++) {
		const struct compare_cell *cell = &c->cells[i];
		if (!compare_census_listed(cell))
			continue;
		cJSON *co = cJSON_CreateObject();
		report_json_str(co, "probe", cell->probe);
		report_json_str(co, "metric", cell->metric);
		report_json_num(co, "base", cell->stats.base_median);
		report_json_num(co, "fix", cell->stats.fix_median);
		/* Across designs a difference is context: it decided nothing. */
		cJSON_AddBoolToObject(co, "judged", !cell->context);
		cJSON_AddItemToArray(a, co);
	}

	a = cJSON_AddArrayToObject(cmp, "cells");
	for (size_t i = 0; i < c->ncells; i++)
		cJSON_AddItemToArray(a, report_json_cell(&c->cells[i]));
	cJSON_AddItemToObject(cmp, "pauses", report_json_pauses(c));
	/* Where each probe's Ir moved, function by function (docs/ab.md, "Where"). */
	a = cJSON_AddArrayToObject(cmp, "where");
	for (size_t i = 0; i < c->nwhere; i++) {
		const struct compare_where *w = &c->where[i];
		char how[128];
		struct movers_view v = {w->probe, &w->diff, "BASE", "FIX", how};
		report_text_where_how(w, how, sizeof how);
		o = movers_json(&v, MOVERS_JSON_MAX);
		cJSON_AddNumberToObject(o, "base_runs", w->base_runs);
		cJSON_AddNumberToObject(o, "fix_runs", w->fix_runs);
		cJSON_AddItemToArray(a, o);
	}
	return report_json_print(root);
}

/* A summary's "probes": per probe its checksum, runs, and each metric's median, min, max, n. */
static cJSON *report_json_summary_probes(const struct report_summary *rs)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t p = 0; p < rs->nprobes; p++) {
		const struct report_summary_probe *sp = &rs->probes[p];
		cJSON *po = cJSON_CreateObject(), *mo;

		report_json_str(po, "probe", sp->probe);
		report_json_str(po, "checksum", sp->checksum);
		cJSON_AddNumberToObject(po, "runs", (double)sp->runs);
		cJSON_AddNumberToObject(po, "ok", (double)sp->ok);
		mo = cJSON_AddObjectToObject(po, "metrics");
		for (size_t k = 0; k < sp->ncells; k++) {
			const struct report_summary_cell *c = &sp->cells[k];
			cJSON *co = cJSON_AddObjectToObject(mo, c->metric);

			report_json_num(co, "median", c->median);
			report_json_num(co, "min", c->min);
			report_json_num(co, "max", c->max);
			cJSON_AddNumberToObject(co, "n", (double)c->n);
		}
		cJSON_AddItemToArray(a, po);
	}
	return a;
}

char *report_json_session_summary(const struct report_data *d)
{
	const size_t idx[1] = {0};
	const char *const names[1] = {"session"};
	cJSON *root = report_json_root(d, REPORT_JSON_SESSION_FORMAT, REPORT_JSON_VERSION, 1), *sum;
	struct report_summary *rs = report_summary_load(d);

	sum = cJSON_AddObjectToObject(root, "summary");
	cJSON_AddItemToObject(sum, "probes", report_json_summary_probes(rs));
	cJSON_AddItemToObject(sum, "pauses", report_json_pause_arms(d, idx, names, 1));
	report_summary_release(rs);
	return report_json_print(root);
}

char *report_json_measure(const struct report_data *d)
{
	cJSON *root =
	    report_json_root(d, REPORT_JSON_MEASURE_FORMAT, REPORT_JSON_MEASURE_VERSION, 0);
	cJSON *o = cJSON_AddObjectToObject(root, "counts"), *a;
	size_t measured = 0, warmup = 0, failed = 0;

	for (size_t i = 0; i < d->nruns; i++) {
		warmup += d->runs[i].warmup != 0;
		measured += !d->runs[i].warmup;
		failed += d->runs[i].status != RUN_STATUS_OK;
	}
	cJSON_AddNumberToObject(o, "runs", (double)measured);
	cJSON_AddNumberToObject(o, "warmup", (double)warmup);
	cJSON_AddNumberToObject(o, "failed", (double)failed);
	a = cJSON_AddArrayToObject(root, "summary");
	for (size_t i = 0; i < d->nbuilds; i++) {
		struct report_summary *rs = report_summary_load_arm(d, i);
		const char *name = d->builds[i].label ? d->builds[i].label : d->builds[i].name;
		cJSON *ao = cJSON_CreateObject();

		cJSON_AddNumberToObject(ao, "position", d->builds[i].position);
		report_json_str(ao, "label", d->builds[i].label);
		cJSON_AddItemToObject(ao, "probes", report_json_summary_probes(rs));
		cJSON_AddItemToObject(ao, "pauses", report_json_pause_arms(d, &i, &name, 1));
		cJSON_AddItemToArray(a, ao);
		report_summary_release(rs);
	}
	return report_json_print(root);
}
