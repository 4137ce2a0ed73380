#include "judge.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

int judge_baseline_load(const char *path, const char *profile, struct baseline *out, struct err *e)
{
	char why[ERR_MSG_MAX];
	int rc = -1;

	if (baseline_load(path, out, e) != 0)
		return -1;
	if (profile && strcmp(out->profile, profile) != 0) {
		err_setc(e, ERR_INVALID, "%s: profile is \"%s\", not \"%s\"", path, out->profile,
		         profile);
		goto out;
	}
	if (baseline_validate(out, e) != 0) {
		snprintf(why, sizeof why, "%s", e->msg);
		err_setc(e, ERR_INVALID, "%s: %s", path, why);
		goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		baseline_release(out);
	return rc;
}

int judge_open(struct store *st, int64_t session, struct judge_inputs *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (store_session_get(st, session, &out->session, e) != 0 ||
	    store_session_builds(st, session, &out->builds, &out->nbuilds, e) != 0) {
		judge_release(out);
		return -1;
	}
	return 0;
}

static int judge_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An arm's knobs JSON ({"GCR_NURSERY_KB": "16384"}) as NAME=VALUE strings, sorted. */
static int judge_parse_knobs(const char *json, const char *where, struct strlist *out,
                             struct err *e)
{
	cJSON *root = NULL;
	const cJSON *k;
	int rc = -1;

	if (!json)
		return 0;
	if (json_parse(json, strlen(json), where, &root, e) != 0)
		return -1;
	if (!cJSON_IsObject(root)) {
		err_setc(e, ERR_CORRUPT, "%s: knobs: not a JSON object", where);
		goto out;
	}
	cJSON_ArrayForEach(k, root)
	{
		char *kv;
		if (!cJSON_IsString(k)) {
			err_setc(e, ERR_CORRUPT, "%s: knobs.%s: not a string", where, k->string);
			goto out;
		}
		kv = xasprintf("%s=%s", k->string, k->valuestring);
		strlist_push(out, kv);
		free(kv);
	}
	qsort(out->items, out->n, sizeof *out->items, judge_cmp);
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

/* A sweep arm's heap limit per probe: the knob its runs of that probe had. */
static int judge_sweep_knobs(struct store *st, struct judge_inputs *in, struct err *e)
{
	struct store_sweep_cell *cells = NULL;
	size_t n = 0;

	if (store_sweep_load(st, in->session.id, &cells, &n, e) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct check_probe_knobs *p;
		char *kv;
		if (cells[i].arm != in->build->position)
			continue;
		in->probe_knobs =
		    xrealloc(in->probe_knobs, (in->nprobe_knobs + 1) * sizeof *in->probe_knobs);
		p = &in->probe_knobs[in->nprobe_knobs++];
		memset(p, 0, sizeof *p);
		p->probe = xstrdup(cells[i].probe);
		kv = xasprintf("GCR_HEAP_MAX_MB=%lld", (long long)cells[i].heap_mb);
		strlist_push(&p->knobs, kv);
		free(kv);
	}
	store_sweep_release(cells, n);
	return 0;
}

int judge_load_arm(struct store *st, struct judge_inputs *in, const struct store_build *build,
                   const struct store_build *base, struct err *e)
{
	char *manifest = NULL, *where = NULL;
	int rc = -1;

	in->build = build;
	in->base = base;
	if (store_runs_load(st, in->session.id, build->position, &in->runs, &in->nruns, e) != 0)
		goto out;
	if (base && store_runs_load(st, in->session.id, base->position, &in->base_runs,
	                            &in->nbase_runs, e) != 0)
		goto out;
	/* The min-heap ratchet: the build's stored minimum heaps, for cells that pin them. */
	if (heapgate_annotate(st, &in->session, build, in->runs, in->nruns, &in->heapgate, e) != 0)
		goto out;
	where = xasprintf("the manifest of build %s in %s", build->name, store_where(st));
	if (store_build_manifest(st, build->id, &manifest, e) != 0 ||
	    toolchain_from_manifest(manifest, where, &in->toolchain, e) != 0)
		goto out;
	toolchain_set_valgrind_from_meters(&in->toolchain, in->session.meters);
	/* What the census said; for a build that sends none, what its manifest declares. */
	if (build->capabilities) {
		if (caps_parse_text(build->capabilities, where, &in->caps, e) != 0)
			goto out;
	} else {
		cJSON *root = NULL;
		const cJSON *v;
		if (json_parse(manifest, strlen(manifest), where, &root, e) != 0)
			goto out;
		v = cJSON_GetObjectItemCaseSensitive(root, "capabilities");
		rc = v ? caps_parse(v, where, &in->caps, NULL, 0, e) : 0;
		cJSON_Delete(root);
		if (rc != 0)
			goto out;
		rc = -1;
	}
	if (judge_parse_knobs(build->knobs, where, &in->knobs, e) != 0 ||
	    judge_sweep_knobs(st, in, e) != 0)
		goto out;
	/* A session recorded before THP was: its probes ran as the host was configured. */
	if (hostinfo_thp_from_facts(in->session.facts ? in->session.facts : "{}", &in->thp, e) != 0)
		goto out;
	/* Host facts are not JSON only in a damaged store (the THP read above would say so). */
	hostinfo_facts_release(&in->host);
	if (hostinfo_facts_from_json(in->session.facts ? in->session.facts : "{}", &in->host, e) !=
	    0)
		goto out;
	rc = 0;
out:
	free(manifest);
	free(where);
	return rc;
}

void judge_release(struct judge_inputs *in)
{
	store_runs_release(in->runs, in->nruns);
	store_runs_release(in->base_runs, in->nbase_runs);
	store_builds_release(in->builds, in->nbuilds);
	store_session_release(&in->session);
	toolchain_release(&in->toolchain);
	hostinfo_facts_release(&in->host);
	strlist_release(&in->knobs);
	for (size_t i = 0; i < in->nprobe_knobs; i++) {
		free(in->probe_knobs[i].probe);
		strlist_release(&in->probe_knobs[i].knobs);
	}
	free(in->probe_knobs);
	memset(in, 0, sizeof *in);
}

void judge_check_input(const struct judge_inputs *in, const struct baseline *b, int strict,
                       struct check_input *out)
{
	memset(out, 0, sizeof *out);
	out->baseline = b;
	out->session = &in->session;
	out->build = in->build;
	out->toolchain = &in->toolchain;
	out->runs = in->runs;
	out->nruns = in->nruns;
	out->base_runs = in->base ? in->base_runs : NULL;
	out->nbase_runs = in->base ? in->nbase_runs : 0;
	out->strict = strict;
	out->caps = &in->caps;
	out->knobs = &in->knobs;
	out->probe_knobs = in->probe_knobs;
	out->nprobe_knobs = in->nprobe_knobs;
	out->thp = &in->thp;
	out->host = &in->host;
}
