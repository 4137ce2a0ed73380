#include "baseline.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

/* ---- Band arithmetic ---------------------------------------------------------------------- */

double baseline_allowance(const struct baseline_rule *r, double base)
{
	double pct = fabs(base) * r->band_pct / 100.0;

	return pct > r->band_abs ? pct : r->band_abs;
}

void baseline_judge(const struct baseline_rule *r, double base, double current,
                    struct baseline_judgement *j)
{
	double bad;

	memset(j, 0, sizeof *j);
	j->delta = current - base;
	if (base != 0)
		j->delta_pct = 100.0 * j->delta / fabs(base);
	else
		j->delta_pct = j->delta == 0 ? 0 : INFINITY;
	j->allowance = baseline_allowance(r, base);
	switch (r->direction) {
	case BASELINE_INCREASE:
		bad = j->delta;
		break;
	case BASELINE_DECREASE:
		bad = -j->delta;
		break;
	default:
		bad = fabs(j->delta);
		break;
	}
	if (j->allowance > 0)
		j->used = bad / j->allowance;
	else
		j->used = bad > 0 ? INFINITY : bad < 0 ? -INFINITY : 0;
	j->went_inert = strncmp(r->metric, "census.", 7) == 0 && base > 0 && current == 0;

	if (!r->gated)
		j->verdict = BASELINE_INFO;
	else if (j->went_inert || bad > j->allowance)
		j->verdict = BASELINE_REGRESSED;
	else if (r->direction != BASELINE_EITHER && -bad > j->allowance)
		j->verdict = BASELINE_IMPROVED;
	else
		j->verdict = BASELINE_OK;
}

const char *baseline_direction_name(enum baseline_direction d)
{
	return d == BASELINE_INCREASE ? "increase" : d == BASELINE_DECREASE ? "decrease" : "either";
}

const char *baseline_verdict_name(enum baseline_verdict v)
{
	switch (v) {
	case BASELINE_OK:
		return "ok";
	case BASELINE_IMPROVED:
		return "improved";
	case BASELINE_REGRESSED:
		return "REGRESSED";
	case BASELINE_INFO:
		return "info";
	}
	return "?";
}

/* ---- Profile defaults ---------------------------------------------------------------------- */

/* The direction a rule watches: the change away from the metric's better side. */
static enum baseline_direction baseline_direction_of(enum metric_direction better)
{
	switch (better) {
	case METRIC_BETTER_LOWER:
		return BASELINE_INCREASE;
	case METRIC_BETTER_HIGHER:
		return BASELINE_DECREASE;
	case METRIC_BETTER_NEITHER:
		break;
	}
	return BASELINE_EITHER;
}

const char *const *baseline_profiles(void)
{
	return metrics_profiles();
}

/* The bands themselves are in the metric table (metrics.c), with why each is what it is. */
int baseline_default_rules(const char *profile, const char *const *metrics, size_t n,
                           struct baseline_rule **out, struct err *e)
{
	enum metric_profile p;

	if (metrics_profile_parse(profile, &p) != 0)
		return err_setc(e, ERR_INVALID,
		                "unknown profile \"%s\" (valid: shared_ci, pinned_host)", profile);
	*out = xcalloc(n, sizeof **out);
	for (size_t i = 0; i < n; i++) {
		const struct metric_info *m = metrics_lookup(metrics[i]);
		struct baseline_rule *r = &(*out)[i];
		r->metric = xstrdup(metrics[i]);
		/* A metric the harness cannot produce gets a rule that records and never gates. */
		r->direction = BASELINE_INCREASE;
		if (!m)
			continue;
		r->gated = m->band[p].gated;
		r->direction = baseline_direction_of(m->better);
		r->band_pct = m->band[p].pct;
		r->band_abs = m->band[p].abs;
	}
	return 0;
}

/* ---- Parsing ------------------------------------------------------------------------------- */

struct baseline_ctx {
	const char *path;
	struct err *e;
};

static int baseline_bad(struct baseline_ctx *c, const char *jpath, const char *expected)
{
	return err_set(c->e, "%s: %s: %s", c->path, jpath, expected);
}

static int baseline_get_string(struct baseline_ctx *c, const cJSON *obj, const char *key,
                               const char *jpath, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char where[256];

	snprintf(where, sizeof where, "%s%s%s", jpath, *jpath ? "." : "", key);
	if (!cJSON_IsString(v))
		return baseline_bad(c, where, v ? "must be a string" : "is missing (a string)");
	*out = xstrdup(v->valuestring);
	return 0;
}

static int baseline_get_number(struct baseline_ctx *c, const cJSON *obj, const char *key,
                               const char *jpath, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char where[256];

	snprintf(where, sizeof where, "%s%s%s", jpath, *jpath ? "." : "", key);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return baseline_bad(c, where, v ? "must be a number" : "is missing (a number)");
	*out = v->valuedouble;
	return 0;
}

static int baseline_parse_direction(const char *s, enum baseline_direction *d)
{
	if (strcmp(s, "increase") == 0)
		*d = BASELINE_INCREASE;
	else if (strcmp(s, "decrease") == 0)
		*d = BASELINE_DECREASE;
	else if (strcmp(s, "either") == 0)
		*d = BASELINE_EITHER;
	else
		return -1;
	return 0;
}

static int baseline_parse_rules(struct baseline_ctx *c, const cJSON *rules, struct baseline *b)
{
	const cJSON *r;
	size_t i = 0;

	if (!cJSON_IsObject(rules))
		return baseline_bad(c, "rules", "must be an object of metric -> rule");
	b->nrules = (size_t)cJSON_GetArraySize(rules);
	b->rules = xcalloc(b->nrules, sizeof *b->rules);
	cJSON_ArrayForEach(r, rules)
	{
		struct baseline_rule *rule = &b->rules[i++];
		char jpath[256], *dir = NULL;
		const cJSON *gated;
		int rc;

		snprintf(jpath, sizeof jpath, "rules[\"%s\"]", r->string);
		rule->metric = xstrdup(r->string);
		if (!metrics_is_known(r->string))
			return baseline_bad(c, jpath,
			                    "unknown metric (see `gcratchet list metrics`)");
		if (!cJSON_IsObject(r))
			return baseline_bad(c, jpath, "must be an object");
		gated = cJSON_GetObjectItemCaseSensitive(r, "gated");
		if (!cJSON_IsBool(gated)) {
			char where[300];
			snprintf(where, sizeof where, "%s.gated", jpath);
			return baseline_bad(c, where, "must be true or false");
		}
		rule->gated = cJSON_IsTrue(gated);
		if (baseline_get_string(c, r, "direction", jpath, &dir) != 0)
			return -1;
		rc = baseline_parse_direction(dir, &rule->direction);
		free(dir);
		if (rc != 0) {
			char where[300];
			snprintf(where, sizeof where, "%s.direction", jpath);
			return baseline_bad(c, where,
			                    "must be \"increase\", \"decrease\" or \"either\"");
		}
		if (baseline_get_number(c, r, "band_pct", jpath, &rule->band_pct) != 0 ||
		    baseline_get_number(c, r, "band_abs", jpath, &rule->band_abs) != 0)
			return -1;
		if (rule->band_pct < 0 || rule->band_abs < 0) {
			char where[300];
			snprintf(where, sizeof where, "%s.%s", jpath,
			         rule->band_pct < 0 ? "band_pct" : "band_abs");
			return baseline_bad(c, where, "must be >= 0");
		}
	}
	return 0;
}

static int baseline_parse_probes(struct baseline_ctx *c, const cJSON *probes, struct baseline *b)
{
	const cJSON *p;
	size_t i = 0;

	if (!cJSON_IsObject(probes))
		return baseline_bad(c, "probes",
		                    "must be an object of probe -> {\"checksum\": ...}");
	b->nprobes = (size_t)cJSON_GetArraySize(probes);
	b->probes = xcalloc(b->nprobes, sizeof *b->probes);
	cJSON_ArrayForEach(p, probes)
	{
		char jpath[256];
		snprintf(jpath, sizeof jpath, "probes[\"%s\"]", p->string);
		b->probes[i].name = xstrdup(p->string);
		if (baseline_get_string(c, p, "checksum", jpath, &b->probes[i].checksum) != 0)
			return -1;
		i++;
	}
	return 0;
}

static int baseline_parse_cells(struct baseline_ctx *c, const cJSON *cells, struct baseline *b)
{
	const cJSON *cell;
	size_t i = 0;

	if (!cJSON_IsArray(cells))
		return baseline_bad(c, "cells", "must be an array");
	b->ncells = (size_t)cJSON_GetArraySize(cells);
	b->cells = xcalloc(b->ncells, sizeof *b->cells);
	cJSON_ArrayForEach(cell, cells)
	{
		struct baseline_cell *x = &b->cells[i];
		char jpath[64];
		double n;

		snprintf(jpath, sizeof jpath, "cells[%zu]", i);
		i++;
		if (!cJSON_IsObject(cell))
			return baseline_bad(c, jpath, "must be an object");
		if (baseline_get_string(c, cell, "probe", jpath, &x->probe) != 0 ||
		    baseline_get_string(c, cell, "metric", jpath, &x->metric) != 0 ||
		    baseline_get_number(c, cell, "median", jpath, &x->median) != 0 ||
		    baseline_get_number(c, cell, "min", jpath, &x->min) != 0 ||
		    baseline_get_number(c, cell, "max", jpath, &x->max) != 0 ||
		    baseline_get_number(c, cell, "n", jpath, &n) != 0)
			return -1;
		x->n = (int64_t)n;
		if (n < 1 || n != floor(n))
			return baseline_bad(c, jpath, "n must be a whole number >= 1");
		if (!(x->min <= x->median && x->median <= x->max))
			return baseline_bad(c, jpath, "needs min <= median <= max");
		if (!baseline_rule_for(b, x->metric)) {
			char msg[300];
			snprintf(msg, sizeof msg, "metric \"%s\" has no entry in \"rules\"",
			         x->metric);
			return baseline_bad(c, jpath, msg);
		}
		if (!baseline_probe_checksum(b, x->probe)) {
			char msg[300];
			snprintf(msg, sizeof msg, "probe \"%s\" has no entry in \"probes\"",
			         x->probe);
			return baseline_bad(c, jpath, msg);
		}
	}
	return 0;
}

static int baseline_parse_overrides(struct baseline_ctx *c, const cJSON *arr, struct baseline *b)
{
	const cJSON *o;
	size_t i = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return baseline_bad(c, "overrides", "must be an array");
	b->noverrides = (size_t)cJSON_GetArraySize(arr);
	b->overrides = xcalloc(b->noverrides, sizeof *b->overrides);
	cJSON_ArrayForEach(o, arr)
	{
		struct baseline_override *x = &b->overrides[i];
		const struct baseline_rule *base;
		const cJSON *ev, *gated, *dir;
		char jpath[64], where[96];
		double runs;

		snprintf(jpath, sizeof jpath, "overrides[%zu]", i);
		i++;
		if (!cJSON_IsObject(o))
			return baseline_bad(c, jpath, "must be an object");
		if (baseline_get_string(c, o, "probe", jpath, &x->probe) != 0 ||
		    baseline_get_string(c, o, "metric", jpath, &x->metric) != 0)
			return -1;
		if (!baseline_cell_find(b, x->probe, x->metric))
			return baseline_bad(c, jpath,
			                    "overrides a cell that is not pinned in \"cells\"");
		base = baseline_rule_for(b, x->metric);
		x->rule = *base;
		x->rule.metric = x->metric;
		if (baseline_get_number(c, o, "band_pct", jpath, &x->rule.band_pct) != 0 ||
		    baseline_get_number(c, o, "band_abs", jpath, &x->rule.band_abs) != 0)
			return -1;
		if (x->rule.band_pct < 0 || x->rule.band_abs < 0) {
			snprintf(where, sizeof where, "%s.%s", jpath,
			         x->rule.band_pct < 0 ? "band_pct" : "band_abs");
			return baseline_bad(c, where, "must be >= 0");
		}
		gated = cJSON_GetObjectItemCaseSensitive(o, "gated");
		if (gated && !cJSON_IsBool(gated)) {
			snprintf(where, sizeof where, "%s.gated", jpath);
			return baseline_bad(c, where, "must be true or false");
		}
		if (gated)
			x->rule.gated = cJSON_IsTrue(gated);
		dir = cJSON_GetObjectItemCaseSensitive(o, "direction");
		if (dir && (!cJSON_IsString(dir) ||
		            baseline_parse_direction(dir->valuestring, &x->rule.direction) != 0)) {
			snprintf(where, sizeof where, "%s.direction", jpath);
			return baseline_bad(c, where,
			                    "must be \"increase\", \"decrease\" or \"either\"");
		}
		if (baseline_get_string(c, o, "rationale", jpath, &x->rationale) != 0)
			return -1;
		ev = cJSON_GetObjectItemCaseSensitive(o, "evidence");
		snprintf(where, sizeof where, "%s.evidence", jpath);
		if (!cJSON_IsObject(ev))
			return baseline_bad(
			    c, where,
			    "is missing: an override needs the runs and observed spread that "
			    "justify it, {\"runs\": N, \"spread_pct\": X}");
		if (baseline_get_number(c, ev, "runs", where, &runs) != 0 ||
		    baseline_get_number(c, ev, "spread_pct", where, &x->evidence_spread_pct) != 0)
			return -1;
		x->evidence_runs = (int64_t)runs;
		if (runs < 2 || runs != floor(runs) || x->evidence_spread_pct < 0)
			return baseline_bad(
			    c, where,
			    "needs runs >= 2 (a spread needs two runs) and spread_pct >= 0");
	}
	return 0;
}

static int baseline_parse_ledger(struct baseline_ctx *c, const cJSON *arr, struct baseline *b)
{
	const cJSON *o;
	size_t i = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return baseline_bad(c, "ledger", "must be an array");
	b->nledger = (size_t)cJSON_GetArraySize(arr);
	b->ledger = xcalloc(b->nledger, sizeof *b->ledger);
	cJSON_ArrayForEach(o, arr)
	{
		struct baseline_ledger_entry *x = &b->ledger[i];
		const cJSON *ref;
		char jpath[64];

		snprintf(jpath, sizeof jpath, "ledger[%zu]", i);
		i++;
		if (!cJSON_IsObject(o))
			return baseline_bad(c, jpath, "must be an object");
		if (baseline_get_string(c, o, "probe", jpath, &x->probe) != 0 ||
		    baseline_get_string(c, o, "metric", jpath, &x->metric) != 0 ||
		    baseline_get_number(c, o, "old", jpath, &x->old_value) != 0 ||
		    baseline_get_number(c, o, "new", jpath, &x->new_value) != 0 ||
		    baseline_get_string(c, o, "reason", jpath, &x->reason) != 0 ||
		    baseline_get_string(c, o, "date", jpath, &x->date) != 0 ||
		    baseline_get_string(c, o, "who", jpath, &x->who) != 0)
			return -1;
		if (!x->reason[0])
			return baseline_bad(c, jpath, "reason must not be empty");
		ref = cJSON_GetObjectItemCaseSensitive(o, "ref");
		if (ref && !cJSON_IsString(ref))
			return baseline_bad(c, jpath, "ref must be a string");
		x->ref = ref ? xstrdup(ref->valuestring) : NULL;
	}
	return 0;
}

/* Line and column of a byte offset, for syntax errors. */
static void baseline_line_col(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

int baseline_parse(const char *text, const char *path, struct baseline *out, struct err *e)
{
	struct baseline_ctx c = {path, e};
	cJSON *root;
	const cJSON *v, *m;
	double num;
	int rc = -1;

	memset(out, 0, sizeof *out);
	root = cJSON_Parse(text);
	if (!root) {
		const char *at = cJSON_GetErrorPtr();
		int line = 0, col = 0;
		baseline_line_col(text, at ? (size_t)(at - text) : 0, &line, &col);
		return err_set(e, "%s:%d:%d: not valid JSON", path, line, col);
	}
	if (!cJSON_IsObject(root)) {
		baseline_bad(&c, "(top)", "must be a JSON object");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "format");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, BASELINE_FORMAT) != 0) {
		baseline_bad(&c, "format", "must be \"" BASELINE_FORMAT "\"");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (!cJSON_IsNumber(v) || v->valuedouble != BASELINE_VERSION) {
		baseline_bad(&c, "version", "must be 1 (the version this harness reads)");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "collector");
	if (!cJSON_IsObject(v)) {
		baseline_bad(&c, "collector", "must be an object {name, version, git_commit}");
		goto out;
	}
	if (baseline_get_string(&c, root, "profile", "", &out->profile) != 0 ||
	    baseline_get_string(&c, v, "name", "collector", &out->collector) != 0 ||
	    baseline_get_string(&c, v, "version", "collector", &out->collector_version) != 0 ||
	    baseline_get_string(&c, v, "git_commit", "collector", &out->git_commit) != 0)
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(root, "host");
	if (!cJSON_IsObject(v)) {
		baseline_bad(&c, "host", "must be an object {fingerprint, hostname}");
		goto out;
	}
	if (baseline_get_string(&c, v, "fingerprint", "host", &out->host_fingerprint) != 0 ||
	    baseline_get_string(&c, v, "hostname", "host", &out->hostname) != 0 ||
	    baseline_get_string(&c, root, "pinned_at", "", &out->pinned_at) != 0 ||
	    baseline_get_string(&c, root, "size", "", &out->size) != 0 ||
	    baseline_get_number(&c, root, "session", "", &num) != 0)
		goto out;
	out->session = (int64_t)num;
	if (baseline_get_number(&c, root, "repeats", "", &num) != 0)
		goto out;
	out->repeats = (int64_t)num;
	v = cJSON_GetObjectItemCaseSensitive(root, "meters");
	if (!cJSON_IsArray(v)) {
		baseline_bad(&c, "meters", "must be an array of meter names");
		goto out;
	}
	cJSON_ArrayForEach(m, v)
	{
		if (!cJSON_IsString(m)) {
			baseline_bad(&c, "meters", "must hold strings only");
			goto out;
		}
		strlist_push(&out->meters, m->valuestring);
	}
	if (baseline_parse_rules(&c, cJSON_GetObjectItemCaseSensitive(root, "rules"), out) != 0 ||
	    baseline_parse_probes(&c, cJSON_GetObjectItemCaseSensitive(root, "probes"), out) != 0 ||
	    baseline_parse_cells(&c, cJSON_GetObjectItemCaseSensitive(root, "cells"), out) != 0 ||
	    baseline_parse_overrides(&c, cJSON_GetObjectItemCaseSensitive(root, "overrides"),
	                             out) != 0 ||
	    baseline_parse_ledger(&c, cJSON_GetObjectItemCaseSensitive(root, "ledger"), out) != 0)
		goto out;
	rc = 0;
out:
	cJSON_Delete(root);
	if (rc != 0)
		baseline_release(out);
	return rc;
}

int baseline_load(const char *path, struct baseline *out, struct err *e)
{
	char *text = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	if (read_file(path, &text, NULL, e) != 0)
		return -1;
	rc = baseline_parse(text, path, out, e);
	free(text);
	return rc;
}

void baseline_release(struct baseline *b)
{
	free(b->profile);
	free(b->collector);
	free(b->collector_version);
	free(b->git_commit);
	free(b->host_fingerprint);
	free(b->hostname);
	free(b->pinned_at);
	free(b->size);
	strlist_release(&b->meters);
	for (size_t i = 0; i < b->nrules; i++)
		free(b->rules[i].metric);
	free(b->rules);
	for (size_t i = 0; i < b->nprobes; i++) {
		free(b->probes[i].name);
		free(b->probes[i].checksum);
	}
	free(b->probes);
	for (size_t i = 0; i < b->ncells; i++) {
		free(b->cells[i].probe);
		free(b->cells[i].metric);
	}
	free(b->cells);
	for (size_t i = 0; i < b->noverrides; i++) {
		free(b->overrides[i].probe);
		free(b->overrides[i].metric);
		free(b->overrides[i].rationale);
	}
	free(b->overrides);
	for (size_t i = 0; i < b->nledger; i++) {
		free(b->ledger[i].probe);
		free(b->ledger[i].metric);
		free(b->ledger[i].reason);
		free(b->ledger[i].ref);
		free(b->ledger[i].date);
		free(b->ledger[i].who);
	}
	free(b->ledger);
	memset(b, 0, sizeof *b);
}

struct baseline_cell *baseline_cell_find(const struct baseline *b, const char *probe,
                                         const char *metric)
{
	for (size_t i = 0; i < b->ncells; i++)
		if (b->cells[i].probe && strcmp(b->cells[i].probe, probe) == 0 &&
		    strcmp(b->cells[i].metric, metric) == 0)
			return &b->cells[i];
	return NULL;
}

const struct baseline_rule *baseline_rule_for_cell(const struct baseline *b, const char *probe,
                                                   const char *metric)
{
	for (size_t i = 0; i < b->noverrides; i++)
		if (b->overrides[i].probe && strcmp(b->overrides[i].probe, probe) == 0 &&
		    strcmp(b->overrides[i].metric, metric) == 0)
			return &b->overrides[i].rule;
	return baseline_rule_for(b, metric);
}

void baseline_ledger_add(struct baseline *b, const struct baseline_ledger_entry *entry)
{
	struct baseline_ledger_entry *x;

	b->ledger = xrealloc(b->ledger, (b->nledger + 1) * sizeof *b->ledger);
	x = &b->ledger[b->nledger++];
	x->probe = xstrdup(entry->probe);
	x->metric = xstrdup(entry->metric);
	x->old_value = entry->old_value;
	x->new_value = entry->new_value;
	x->reason = xstrdup(entry->reason);
	x->ref = entry->ref ? xstrdup(entry->ref) : NULL;
	x->date = xstrdup(entry->date);
	x->who = xstrdup(entry->who);
}

const struct baseline_rule *baseline_rule_for(const struct baseline *b, const char *metric)
{
	for (size_t i = 0; i < b->nrules; i++)
		if (b->rules[i].metric && strcmp(b->rules[i].metric, metric) == 0)
			return &b->rules[i];
	return NULL;
}

const char *baseline_probe_checksum(const struct baseline *b, const char *probe)
{
	for (size_t i = 0; i < b->nprobes; i++)
		if (b->probes[i].name && strcmp(b->probes[i].name, probe) == 0)
			return b->probes[i].checksum;
	return NULL;
}

/* ---- Writing ------------------------------------------------------------------------------- */

/* Appends a JSON string literal. */
static void baseline_add_string(struct sbuf *out, const char *s)
{
	cJSON *item = cJSON_CreateString(s);
	char *text = cJSON_PrintUnformatted(item);

	sbuf_add(out, text, strlen(text));
	cJSON_free(text);
	cJSON_Delete(item);
}

/* Integers print exactly; anything else with enough digits to round-trip. */
static void baseline_add_number(struct sbuf *out, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		sbuf_addf(out, "%.0f", v);
	else
		sbuf_addf(out, "%.17g", v);
}

char *baseline_serialize(const struct baseline *b)
{
	struct sbuf out;

	sbuf_init(&out);
	sbuf_addf(&out,
	          "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"profile\": ", BASELINE_FORMAT,
	          BASELINE_VERSION);
	baseline_add_string(&out, b->profile);
	sbuf_addf(&out, ",\n  \"collector\": {\"name\": ");
	baseline_add_string(&out, b->collector);
	sbuf_addf(&out, ", \"version\": ");
	baseline_add_string(&out, b->collector_version);
	sbuf_addf(&out, ", \"git_commit\": ");
	baseline_add_string(&out, b->git_commit);
	sbuf_addf(&out, "},\n  \"host\": {\"fingerprint\": ");
	baseline_add_string(&out, b->host_fingerprint);
	sbuf_addf(&out, ", \"hostname\": ");
	baseline_add_string(&out, b->hostname);
	sbuf_addf(&out, "},\n  \"pinned_at\": ");
	baseline_add_string(&out, b->pinned_at);
	sbuf_addf(&out, ",\n  \"session\": %lld,\n  \"size\": ", (long long)b->session);
	baseline_add_string(&out, b->size);
	sbuf_addf(&out, ",\n  \"meters\": [");
	for (size_t i = 0; i < b->meters.n; i++) {
		sbuf_addf(&out, "%s", i ? ", " : "");
		baseline_add_string(&out, b->meters.items[i]);
	}
	sbuf_addf(&out, "],\n  \"repeats\": %lld,\n  \"rules\": {", (long long)b->repeats);
	for (size_t i = 0; i < b->nrules; i++) {
		const struct baseline_rule *r = &b->rules[i];
		sbuf_addf(&out, "%s\n    ", i ? "," : "");
		baseline_add_string(&out, r->metric);
		sbuf_addf(&out, ": {\"gated\": %s, \"direction\": \"%s\", \"band_pct\": ",
		          r->gated ? "true" : "false", baseline_direction_name(r->direction));
		baseline_add_number(&out, r->band_pct);
		sbuf_addf(&out, ", \"band_abs\": ");
		baseline_add_number(&out, r->band_abs);
		sbuf_addf(&out, "}");
	}
	sbuf_addf(&out, "\n  },\n  \"probes\": {");
	for (size_t i = 0; i < b->nprobes; i++) {
		sbuf_addf(&out, "%s\n    ", i ? "," : "");
		baseline_add_string(&out, b->probes[i].name);
		sbuf_addf(&out, ": {\"checksum\": ");
		baseline_add_string(&out, b->probes[i].checksum);
		sbuf_addf(&out, "}");
	}
	sbuf_addf(&out, "\n  },\n  \"cells\": [");
	for (size_t i = 0; i < b->ncells; i++) {
		const struct baseline_cell *x = &b->cells[i];
		sbuf_addf(&out, "%s\n    {\"probe\": ", i ? "," : "");
		baseline_add_string(&out, x->probe);
		sbuf_addf(&out, ", \"metric\": ");
		baseline_add_string(&out, x->metric);
		sbuf_addf(&out, ", \"median\": ");
		baseline_add_number(&out, x->median);
		sbuf_addf(&out, ", \"min\": ");
		baseline_add_number(&out, x->min);
		sbuf_addf(&out, ", \"max\": ");
		baseline_add_number(&out, x->max);
		sbuf_addf(&out, ", \"n\": %lld}", (long long)x->n);
	}
	sbuf_addf(&out, "\n  ],\n  \"overrides\": [");
	for (size_t i = 0; i < b->noverrides; i++) {
		const struct baseline_override *x = &b->overrides[i];
		sbuf_addf(&out, "%s\n    {\"probe\": ", i ? "," : "");
		baseline_add_string(&out, x->probe);
		sbuf_addf(&out, ", \"metric\": ");
		baseline_add_string(&out, x->metric);
		sbuf_addf(&out, ", \"gated\": %s, \"direction\": \"%s\", \"band_pct\": ",
		          x->rule.gated ? "true" : "false",
		          baseline_direction_name(x->rule.direction));
		baseline_add_number(&out, x->rule.band_pct);
		sbuf_addf(&out, ", \"band_abs\": ");
		baseline_add_number(&out, x->rule.band_abs);
		sbuf_addf(&out, ", \"rationale\": ");
		baseline_add_string(&out, x->rationale);
		sbuf_addf(&out, ", \"evidence\": {\"runs\": %lld, \"spread_pct\": ",
		          (long long)x->evidence_runs);
		baseline_add_number(&out, x->evidence_spread_pct);
		sbuf_addf(&out, "}}");
	}
	sbuf_addf(&out, "%s],\n  \"ledger\": [", b->noverrides ? "\n  " : "");
	for (size_t i = 0; i < b->nledger; i++) {
		const struct baseline_ledger_entry *x = &b->ledger[i];
		sbuf_addf(&out, "%s\n    {\"probe\": ", i ? "," : "");
		baseline_add_string(&out, x->probe);
		sbuf_addf(&out, ", \"metric\": ");
		baseline_add_string(&out, x->metric);
		sbuf_addf(&out, ", \"old\": ");
		baseline_add_number(&out, x->old_value);
		sbuf_addf(&out, ", \"new\": ");
		baseline_add_number(&out, x->new_value);
		sbuf_addf(&out, ", \"reason\": ");
		baseline_add_string(&out, x->reason);
		if (x->ref) {
			sbuf_addf(&out, ", \"ref\": ");
			baseline_add_string(&out, x->ref);
		}
		sbuf_addf(&out, ", \"date\": ");
		baseline_add_string(&out, x->date);
		sbuf_addf(&out, ", \"who\": ");
		baseline_add_string(&out, x->who);
		sbuf_addf(&out, "}");
	}
	sbuf_addf(&out, "%s]\n}\n", b->nledger ? "\n  " : "");
	return out.data;
}
