#include "report_bisect.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "json.h"

static cJSON *report_bisect_json_ids(const char *list)
{
	cJSON *a = cJSON_CreateArray();
	char *copy = xstrdup(list ? list : ""), *save = NULL;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		cJSON_AddItemToArray(a, cJSON_CreateNumber(strtod(t, NULL)));
	free(copy);
	return a;
}

static cJSON *report_bisect_json_commit(const struct bisect_commit *cm)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "commit", escape_json_string(cm->hash));
	cJSON_AddItemToObject(o, "subject", escape_json_string(cm->subject));
	return o;
}

/* Every step stored, the ends first, as the JSON's "steps". */
static cJSON *report_bisect_json_steps(const struct bisect_engine *c)
{
	cJSON *a = cJSON_CreateArray(), *o;
	struct err e;

	for (size_t i = 0; i < c->nsteps; i++) {
		const struct store_bisect_step *s = &c->steps[i];
		cJSON *figs = NULL;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "seq", s->seq);
		cJSON_AddStringToObject(o, "role", s->role);
		cJSON_AddItemToObject(o, "commit", escape_json_string(s->commit));
		cJSON_AddItemToObject(o, "subject", escape_json_string(s->subject));
		cJSON_AddStringToObject(o, "decision", s->decision);
		cJSON_AddItemToObject(o, "reason", escape_json_string(s->reason));
		if (s->build_id)
			cJSON_AddNumberToObject(o, "build_id", (double)s->build_id);
		else
			cJSON_AddNullToObject(o, "build_id");
		cJSON_AddItemToObject(o, "build_dir", escape_json_string(s->build_dir));
		cJSON_AddItemToObject(o, "sessions", report_bisect_json_ids(s->sessions));
		if (s->figures &&
		    json_parse(s->figures, strlen(s->figures), "figures", &figs, &e) == 0)
			cJSON_AddItemToObject(o, "figures", figs);
		else
			cJSON_AddNullToObject(o, "figures");
		cJSON_AddNumberToObject(o, "build_s", s->build_s);
		cJSON_AddNumberToObject(o, "measure_s", s->measure_s);
		cJSON_AddItemToObject(o, "started_at", escape_json_string(s->started_at));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* A scan's changes and what they explain (docs/bisect.md, "A range scan"). */
static cJSON *report_bisect_json_scan(const struct bisect_engine *c)
{
	static const char *const kinds[] = {"change", "not narrowed", "cannot tell"};
	cJSON *o = cJSON_CreateObject(), *a, *x, *f;
	size_t n;
	struct bisect_change *ch = bisect_engine_changes(c, &n);

	cJSON_AddNumberToObject(o, "segments", c->scan);
	cJSON_AddNumberToObject(o, "measured", (double)bisect_scan_count(&c->scanner, 1));
	cJSON_AddNumberToObject(o, "skipped", (double)bisect_scan_count(&c->scanner, 2));
	cJSON_AddNumberToObject(o, "passes", c->passes);
	a = cJSON_AddArrayToObject(o, "changes");
	for (size_t i = 0; i < n; i++) {
		const struct bisect_scan_find *fd = &ch[i].find;
		int kind = fd->link == BISECT_LINK_CANNOT_TELL ? 2 : fd->from + 1 < fd->hi ? 1 : 0;
		x = report_bisect_json_commit(&c->commits[fd->hi]);
		cJSON_AddStringToObject(x, "kind", kinds[kind]);
		cJSON_AddItemToObject(x, "before", escape_json_string(c->commits[fd->from].hash));
		cJSON_AddStringToObject(x, "direction", ch[i].sign < 0 ? "down" : "up");
		f = cJSON_AddObjectToObject(x, "figures");
		for (size_t p = 0; p < c->nprobes; p++) {
			double pct, d = bisect_engine_into(c, fd->hi, p, &pct);
			cJSON *y = cJSON_AddObjectToObject(f, c->probes[p].name);
			bisect_engine_json_number(y, "before", bisect_engine_value(c, fd->from, p));
			bisect_engine_json_number(y, "after", bisect_engine_value(c, fd->hi, p));
			bisect_engine_json_number(y, "delta", d);
			bisect_engine_json_number(y, "delta_pct", pct);
		}
		cJSON_AddItemToArray(a, x);
	}
	f = cJSON_AddObjectToObject(o, "explained");
	for (size_t p = 0; p < c->nprobes; p++) {
		double ends, found;
		cJSON *y = cJSON_AddObjectToObject(f, c->probes[p].name);
		bisect_engine_explained(c, p, &ends, &found);
		bisect_engine_json_number(y, "ends", ends);
		bisect_engine_json_number(y, "found", found);
		bisect_engine_json_number(y, "pct", ends != 0 ? 100 * found / ends : NAN);
	}
	free(ch);
	return o;
}

/* The whole bisect as JSON (docs/bisect.md, "JSON"); newly allocated. */
char *report_bisect_json(const struct bisect_engine *c, const char *status, const char *detail)
{
	cJSON *root = cJSON_CreateObject(), *a, *o;
	struct bisect_state st;
	char *text;

	bisect_search_state(&c->search, &st);
	cJSON_AddStringToObject(root, "format", "gcratchet-bisect");
	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddNumberToObject(root, "id", (double)c->id);
	cJSON_AddStringToObject(root, "status", status);
	cJSON_AddItemToObject(root, "detail", escape_json_string(detail));
	cJSON_AddStringToObject(root, "source", bisect_source_names[c->source]);
	cJSON_AddItemToObject(root, "repo", escape_json_string(c->repo));
	cJSON_AddItemToObject(root, "target", escape_json_string(c->target));
	a = cJSON_AddArrayToObject(root, "build_options");
	for (size_t i = 0; i < c->make_vars.n; i++)
		cJSON_AddItemToArray(a, escape_json_string(c->make_vars.items[i]));
	cJSON_AddItemToObject(root, "metric", escape_json_string(c->metric));
	a = cJSON_AddArrayToObject(root, "probes");
	for (size_t i = 0; i < c->nprobes; i++)
		cJSON_AddItemToArray(a, escape_json_string(c->probes[i].name));
	a = cJSON_AddArrayToObject(root, "moved");
	for (size_t i = 0; i < c->nprobes; i++)
		if (c->probes[i].moved)
			cJSON_AddItemToArray(a, escape_json_string(c->probes[i].name));
	cJSON_AddItemToObject(root, "size", escape_json_string(c->size));
	cJSON_AddBoolToObject(root, "improved", c->improved);
	o = cJSON_AddObjectToObject(root, "threshold");
	cJSON_AddNumberToObject(o, "pct", c->rule.pct);
	cJSON_AddNumberToObject(o, "abs", c->rule.abs);
	cJSON_AddStringToObject(root, "mode",
	                        c->nsteps >= 2 ? (c->exact ? "exact" : "paired") : "unknown");
	cJSON_AddNumberToObject(root, "rounds", c->rounds);
	cJSON_AddNumberToObject(root, "max_rounds", c->max_rounds);
	cJSON_AddItemToObject(root, "good", report_bisect_json_commit(&c->commits[0]));
	cJSON_AddItemToObject(root, "bad", report_bisect_json_commit(&c->commits[c->ncommits - 1]));
	cJSON_AddNumberToObject(root, "commits", (double)c->ncommits);
	if (strcmp(status, "found") == 0 && !c->scan) {
		cJSON *fb = report_bisect_json_commit(&c->commits[st.hi]), *figs;
		cJSON_AddItemToObject(fb, "last_good", escape_json_string(c->commits[st.lo].hash));
		figs = cJSON_AddObjectToObject(fb, "figures");
		for (size_t p = 0; p < c->nprobes; p++) {
			double before = bisect_engine_value(c, st.lo, p),
			       after = bisect_engine_value(c, st.hi, p);
			if (!c->probes[p].moved)
				continue;
			size_t from[16], to[16], k;
			double share;
			int part;
			cJSON *else_;
			o = cJSON_AddObjectToObject(figs, c->probes[p].name);
			bisect_engine_json_number(o, "before", before);
			bisect_engine_json_number(o, "after", after);
			bisect_engine_json_number(o, "delta_pct", bisect_engine_pct(after, before));
			/* How much of the ends' move it is, and where else the steps saw a move. */
			k = bisect_engine_elsewhere(c, st.lo, st.hi, p, &share, &part, from, to,
			                            16);
			bisect_engine_json_number(o, "share", share);
			cJSON_AddBoolToObject(o, "part", part);
			else_ = cJSON_AddArrayToObject(o, "elsewhere");
			for (size_t i = 0; i < k && i < 16; i++) {
				double x = bisect_engine_figure(c, from[i], p),
				       y = bisect_engine_figure(c, to[i], p);
				cJSON *e = cJSON_CreateObject();
				cJSON_AddItemToObject(e, "from",
				                      escape_json_string(c->commits[from[i]].hash));
				cJSON_AddItemToObject(e, "to",
				                      escape_json_string(c->commits[to[i]].hash));
				bisect_engine_json_number(e, "before", x);
				bisect_engine_json_number(e, "after", y);
				bisect_engine_json_number(e, "delta_pct", bisect_engine_pct(y, x));
				cJSON_AddItemToArray(else_, e);
			}
		}
		cJSON_AddItemToObject(root, "first_bad", fb);
	} else {
		cJSON_AddNullToObject(root, "first_bad");
	}
	a = cJSON_AddArrayToObject(root, "candidates");
	if (strcmp(status, "ambiguous") == 0 && !c->scan)
		for (size_t i = st.lo + 1; i <= st.hi; i++)
			cJSON_AddItemToArray(a, report_bisect_json_commit(&c->commits[i]));
	a = cJSON_AddArrayToObject(root, "skipped");
	for (size_t i = 0; i < c->nsteps; i++)
		if (strcmp(c->steps[i].decision, "skip") == 0) {
			o = cJSON_CreateObject();
			cJSON_AddItemToObject(o, "commit", escape_json_string(c->steps[i].commit));
			cJSON_AddItemToObject(o, "subject",
			                      escape_json_string(c->steps[i].subject));
			cJSON_AddItemToObject(o, "reason", escape_json_string(c->steps[i].reason));
			cJSON_AddItemToArray(a, o);
		}
	if (c->scan)
		cJSON_AddItemToObject(root, "scan", report_bisect_json_scan(c));
	else
		cJSON_AddNullToObject(root, "scan");
	cJSON_AddItemToObject(root, "steps", report_bisect_json_steps(c));
	o = cJSON_AddObjectToObject(root, "cost");
	cJSON_AddNumberToObject(o, "steps", c->nsteps >= 2 ? (double)(c->nsteps - 2) : 0);
	cJSON_AddNumberToObject(o, "build_s", c->build_s);
	cJSON_AddNumberToObject(o, "measure_s", c->measure_s);
	text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}
