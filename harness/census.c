#include "census.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcr.h"
#include "caps.h"
#include "json.h"

#define CENSUS_FORMAT  "gcr-census"
#define CENSUS_VERSION 1

int census_checksum_valid(const char *s)
{
	if (strncmp(s, "0x", 2) != 0 || strlen(s) != 18)
		return 0;
	for (const char *p = s + 2; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

static int census_string(const cJSON *root, const char *key, int required, char **out,
                         struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
	const char *s;

	*out = NULL;
	if (!v && !required)
		return 0;
	if (json_string(v, "census", key, &s, e) != 0)
		return -1;
	*out = xstrdup(s);
	return 0;
}

#define CENSUS_FIELD_NAME_(id, name) name,
static const char *const census_fields[] = {GCR_CENSUS_FIELDS(CENSUS_FIELD_NAME_) NULL};
#undef CENSUS_FIELD_NAME_

#define CENSUS_TRIGGER_NAME_(id, name) name,
static const char *const census_triggers_known[] = {GCR_TRIGGERS(CENSUS_TRIGGER_NAME_) NULL};
#undef CENSUS_TRIGGER_NAME_

/* Records an unknown key as a warning on the run; `key` is its JSON path. */
static void census_unknown(struct census_report *out, const char *key)
{
	char *w = xasprintf("unknown census key \"%s\" (not stored: a typo? the fields are in "
	                    "docs/census-protocol.md)",
	                    key);
	strlist_push(&out->warnings, w);
	free(w);
}

/*
 * Counters travel as JSON numbers: json_int takes exact integers below 2^53 only, so one
 * above cannot silently lose precision.
 */
static int census_counters(const cJSON *obj, const char *group, const char *const *allowed,
                           struct census_report *out, struct err *e)
{
	const cJSON *item;

	if (!obj)
		return 0;
	if (!cJSON_IsObject(obj))
		return err_setc(e, ERR_INVALID, "census: %s: must be an object of counters", group);
	cJSON_ArrayForEach(item, obj)
	{
		char metric[256];
		int64_t v = 0;
		int known = 0;

		for (size_t i = 0; allowed[i]; i++)
			known |= strcmp(allowed[i], item->string) == 0;
		json_path_key(metric, sizeof metric, group, item->string);
		/*
		 * A counter this harness does not know is not stored, but said: a typo'd name
		 * would otherwise lose its figure without a word. A newer probe's extra counter
		 * costs only a warning.
		 */
		if (!known) {
			census_unknown(out, metric);
			continue;
		}
		if (json_int(item, 0, JSON_INT_MAX, "census", metric, &v, e) != 0)
			return -1;
		metric_set_add(&out->metrics, metric, (double)v);
	}
	return 0;
}

/*
 * The "pauses" section (docs/census-protocol.md): the pause log's figures, stored as census.*
 * metrics. `to` maps each integer member to its metric; the histogram and MMU have keys of
 * their own shape. A log that dropped intervals is a warning: its quantiles and MMU are absent.
 */
static int census_pauses(const cJSON *obj, struct census_report *out, struct err *e)
{
	static const char *const map[][2] = {
	    {"count", "census.pause_count"},
	    {"dropped", NULL},
	    {"span_ns", "census.pause_span_ns"},
	    {"wall_total_ns", "census.pause_total_ns"},
	    {"wall_max_ns", "census.pause_max_ns"},
	    {"cpu_total_ns", "census.pause_cpu_total_ns"},
	    {"cpu_max_ns", "census.pause_cpu_max_ns"},
	    {"wall_p50_ns", "census.pause_p50_ns"},
	    {"wall_p90_ns", "census.pause_p90_ns"},
	    {"wall_p99_ns", "census.pause_p99_ns"},
	    {"cpu_p50_ns", "census.pause_cpu_p50_ns"},
	    {"cpu_p90_ns", "census.pause_cpu_p90_ns"},
	    {"cpu_p99_ns", "census.pause_cpu_p99_ns"},
	};
	static const char *const windows[] = {"1ms",  "2ms",  "5ms",   "10ms",
	                                      "20ms", "50ms", "100ms", NULL};
	const cJSON *item;

	if (!obj)
		return 0;
	if (!cJSON_IsObject(obj))
		return err_setc(e, ERR_INVALID, "census: pauses: must be an object");
	cJSON_ArrayForEach(item, obj)
	{
		char path[256], metric[256];
		const cJSON *sub;
		size_t i = 0;
		int64_t v;

		json_path_key(path, sizeof path, "pauses", item->string);
		if (strcmp(item->string, "histogram_log2_ns") == 0) {
			if (!cJSON_IsObject(item))
				return err_setc(e, ERR_INVALID, "census: %s: must be an object",
				                path);
			cJSON_ArrayForEach(sub, item)
			{
				char at[300], *end;
				long k;

				json_path_key(at, sizeof at, path, sub->string);
				errno = 0;
				k = strtol(sub->string, &end, 10);
				if (sub->string[0] < '0' || sub->string[0] > '9' || *end || errno ||
				    k > 63)
					return err_setc(e, ERR_INVALID,
					                "census: %s: a bucket is an integer 0..63",
					                at);
				if (json_int(sub, 0, JSON_INT_MAX, "census", at, &v, e) != 0)
					return -1;
				snprintf(metric, sizeof metric, "census.pause_hist_%ld", k);
				metric_set_add(&out->metrics, metric, (double)v);
			}
			continue;
		}
		if (strcmp(item->string, "mmu") == 0) {
			if (!cJSON_IsObject(item))
				return err_setc(e, ERR_INVALID, "census: %s: must be an object",
				                path);
			cJSON_ArrayForEach(sub, item)
			{
				char at[300];
				double u;
				size_t w = 0;

				json_path_key(at, sizeof at, path, sub->string);
				while (windows[w] && strcmp(windows[w], sub->string) != 0)
					w++;
				if (!windows[w]) {
					census_unknown(out, at);
					continue;
				}
				if (json_number(sub, "census", at, &u, e) != 0)
					return -1;
				if (u < 0 || u > 1)
					return err_setc(e, ERR_INVALID,
					                "census: %s: must be from 0 to 1, got %g",
					                at, u);
				snprintf(metric, sizeof metric, "census.mmu_%s", windows[w]);
				metric_set_add(&out->metrics, metric, u);
			}
			continue;
		}
		while (i < sizeof map / sizeof map[0] && strcmp(map[i][0], item->string) != 0)
			i++;
		if (i == sizeof map / sizeof map[0]) {
			census_unknown(out, path);
			continue;
		}
		if (json_int(item, 0, JSON_INT_MAX, "census", path, &v, e) != 0)
			return -1;
		if (!map[i][1]) {
			if (v > 0) {
				char *w = xasprintf("the pause log dropped %lld pauses past its "
				                    "cap: no pause quantiles or MMU for this run",
				                    (long long)v);
				strlist_push(&out->warnings, w);
				free(w);
			}
			continue;
		}
		/* The collector's own total and max come first; the log's must agree (tests/abi). */
		if (!metric_set_get(&out->metrics, map[i][1]))
			metric_set_add(&out->metrics, map[i][1], (double)v);
	}
	return 0;
}

/*
 * The "triggers" section: collections by what started them, census.trigger_<name>, the names
 * gcr.h's GCR_TRIGGERS lists (an unknown one is a warning, as an unknown counter is). Each
 * collection is counted once under its cause, so the triggers add up to minor_collections +
 * major_collections; a census whose do not is kept, with a warning: each count may still be
 * sound, but one of them missed a collection.
 */
static int census_triggers(const cJSON *obj, struct census_report *out, struct err *e)
{
	const cJSON *item;
	/* Copied now: adding the trigger metrics below may move the set's storage. */
	const double *minor_p = metric_set_get(&out->metrics, "census.minor_collections");
	const double *major_p = metric_set_get(&out->metrics, "census.major_collections");
	double minor = minor_p ? *minor_p : 0, major = major_p ? *major_p : 0;
	int have_counts = minor_p && major_p;
	uint64_t sum = 0;
	int any = 0;

	if (!obj)
		return 0;
	if (!cJSON_IsObject(obj))
		return err_setc(e, ERR_INVALID,
		                "census: triggers: must be an object of collection counts");
	cJSON_ArrayForEach(item, obj)
	{
		char path[256], metric[256];
		size_t i = 0;
		int64_t v;

		json_path_key(path, sizeof path, "triggers", item->string);
		while (census_triggers_known[i] &&
		       strcmp(census_triggers_known[i], item->string) != 0)
			i++;
		if (!census_triggers_known[i]) {
			census_unknown(out, path);
			continue;
		}
		if (json_int(item, 0, JSON_INT_MAX, "census", path, &v, e) != 0)
			return -1;
		snprintf(metric, sizeof metric, "census.trigger_%s", census_triggers_known[i]);
		metric_set_add(&out->metrics, metric, (double)v);
		sum += (uint64_t)v;
		any = 1;
	}
	if (any && have_counts && (double)sum != minor + major) {
		char *w =
		    xasprintf("the triggers count %llu collections, minor_collections + "
		              "major_collections %.0f: a collection was missed by one of them",
		              (unsigned long long)sum, minor + major);
		strlist_push(&out->warnings, w);
		free(w);
	}
	return 0;
}

/* The "latency" section of a request-serving probe: latency.<member>, all integers. */
static int census_latency(const cJSON *obj, struct census_report *out, struct err *e)
{
	static const char *const fields[] = {"requests",       "simple_p50_ns",
	                                     "simple_p99_ns",  "simple_p999_ns",
	                                     "simple_max_ns",  "metered_p50_ns",
	                                     "metered_p99_ns", "metered_p999_ns",
	                                     "metered_max_ns", NULL};

	return census_counters(obj, "latency", fields, out, e);
}

/* The format tag and version come first: a census of another format says nothing else. */
static int census_format(const cJSON *root, struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "format");

	if (!cJSON_IsString(v))
		return err_setc(e, ERR_INVALID, "census: format: %s (must be the string \"%s\")",
		                v ? "not a string" : "is missing", CENSUS_FORMAT);
	if (strcmp(v->valuestring, CENSUS_FORMAT) != 0)
		return err_setc(e, ERR_INVALID, "census: format: must be \"%s\", got \"%s\"",
		                CENSUS_FORMAT, v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (!cJSON_IsNumber(v))
		return err_setc(e, ERR_INVALID, "census: version: %s (must be the number %d)",
		                v ? "not a number" : "is missing", CENSUS_VERSION);
	if (v->valuedouble != CENSUS_VERSION)
		return err_setc(
		    e, ERR_INVALID,
		    "census: version: must be %d (the version this harness reads), got %.15g",
		    CENSUS_VERSION, v->valuedouble);
	return 0;
}

/*
 * The fields the harness records nothing from are still checked: "iterations" an exact
 * integer, "capabilities" strings; and any top-level key the protocol does not define is a
 * warning, as an unknown counter is.
 */
static int census_extras(const cJSON *root, struct census_report *out, struct err *e)
{
	static const char *const top[] = {
	    "format",    "version",           "probe",        "size",     "iterations",
	    "collector", "collector_version", "capabilities", "checksum", "census",
	    "memory",    "premise",           "pauses",       "latency",  "triggers",
	    NULL};
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "iterations"), *item;
	int64_t n;

	if (v && json_int(v, 0, JSON_INT_MAX, "census", "iterations", &n, e) != 0)
		return -1;
	v = cJSON_GetObjectItemCaseSensitive(root, "capabilities");
	if (v) {
		char first[64];
		if (caps_parse(v, "census", &out->caps, first, sizeof first, e) != 0)
			return -1;
		/* A capability of a later protocol version: the rules cannot use it, and say so. */
		if (out->caps.unknown) {
			char *w =
			    xasprintf("unknown capability \"%s\"%s (not one of this protocol's: "
			              "docs/census-protocol.md)",
			              first, out->caps.unknown > 1 ? " and others" : "");
			strlist_push(&out->warnings, w);
			free(w);
		}
	}
	cJSON_ArrayForEach(item, root)
	{
		size_t k = 0;
		char key[256];
		while (top[k] && strcmp(top[k], item->string) != 0)
			k++;
		if (!top[k]) {
			json_path_key(key, sizeof key, "", item->string);
			census_unknown(out, key);
		}
	}
	return 0;
}

static int census_parse_len(const char *text, size_t len, struct census_report *out, struct err *e)
{
	static const char *const memory_fields[] = {"vm_hwm_bytes", "rss_anon_bytes", NULL};
	cJSON *root = NULL;
	const cJSON *premise;
	int rc = -1;

	memset(out, 0, sizeof *out);
	out->premise_state = -1;
	if (json_parse(text, len, "census", &root, e) != 0)
		goto out;
	if (!cJSON_IsObject(root)) {
		err_setc(e, ERR_INVALID, "census: expected one JSON object");
		goto out;
	}
	if (census_format(root, e) != 0)
		goto out;
	if (census_string(root, "probe", 1, &out->probe, e) != 0 ||
	    census_string(root, "size", 0, &out->size, e) != 0 ||
	    census_string(root, "collector", 1, &out->collector, e) != 0 ||
	    census_string(root, "collector_version", 0, &out->collector_version, e) != 0 ||
	    census_string(root, "checksum", 1, &out->checksum, e) != 0)
		goto out;
	if (!census_checksum_valid(out->checksum)) {
		err_setc(e, ERR_INVALID,
		         "census: checksum: must be \"0x\" and 16 lowercase hex digits, got \"%s\"",
		         out->checksum);
		goto out;
	}
	if (census_counters(cJSON_GetObjectItemCaseSensitive(root, "census"), "census",
	                    census_fields, out, e) != 0 ||
	    census_counters(cJSON_GetObjectItemCaseSensitive(root, "memory"), "memory",
	                    memory_fields, out, e) != 0 ||
	    census_pauses(cJSON_GetObjectItemCaseSensitive(root, "pauses"), out, e) != 0 ||
	    census_latency(cJSON_GetObjectItemCaseSensitive(root, "latency"), out, e) != 0 ||
	    census_triggers(cJSON_GetObjectItemCaseSensitive(root, "triggers"), out, e) != 0 ||
	    census_extras(root, out, e) != 0)
		goto out;
	premise = cJSON_GetObjectItemCaseSensitive(root, "premise");
	if (premise) {
		const cJSON *met = cJSON_GetObjectItemCaseSensitive(premise, "met");
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(premise, "text");
		if (!cJSON_IsObject(premise) || !(cJSON_IsBool(met) || cJSON_IsNull(met))) {
			err_setc(e, ERR_INVALID,
			         "census: premise.met: must be true, false or null");
			goto out;
		}
		if (why && !cJSON_IsString(why)) {
			err_setc(e, ERR_INVALID, "census: premise.text: must be a string");
			goto out;
		}
		out->premise_state = cJSON_IsNull(met) ? -1 : cJSON_IsTrue(met);
		out->premise_text = xstrdup(why ? why->valuestring : "");
	}
	rc = 0;
out:
	cJSON_Delete(root);
	if (rc != 0)
		census_report_release(out);
	return rc;
}

int census_parse(const char *text, struct census_report *out, struct err *e)
{
	return census_parse_len(text, strlen(text), out, e);
}

/* "4 MiB", "64 KiB", "1000 bytes". */
static void census_format_size(size_t n, char *buf, size_t size)
{
	if (n >= 1048576 && n % 1048576 == 0)
		snprintf(buf, size, "%zu MiB", n / 1048576);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, size, "%zu KiB", n / 1024);
	else
		snprintf(buf, size, "%zu bytes", n);
}

int census_read(const char *text, size_t received, size_t cap, struct census_report *out,
                struct err *e)
{
	size_t kept = received < cap ? received : cap;
	char limit[32];

	memset(out, 0, sizeof *out);
	out->premise_state = -1;
	if (received > cap) {
		census_format_size(cap, limit, sizeof limit);
		return err_setc(e, ERR_INVALID, "census is larger than the %s cap (got %zu bytes)",
		                limit, received);
	}
	/* The runner keeps text up to its first NUL: a shorter text had one. */
	if (strlen(text) < kept)
		return err_setc(e, ERR_INVALID,
		                "census: a NUL byte at byte %zu of %zu (one JSON object is text)",
		                strlen(text), received);
	return census_parse_len(text, kept, out, e);
}

int census_check_run(const struct census_report *c, const char *probe, const char *size,
                     struct err *e)
{
	int custom = strncmp(size, "n=", 2) == 0;

	if (strcmp(c->probe, probe) != 0)
		return err_setc(e, ERR_INVALID, "census names probe \"%s\" but %s was run",
		                c->probe, probe);
	if (c->size && strcmp(c->size, custom ? "custom" : size) != 0)
		return err_setc(
		    e, ERR_INVALID, "census names size \"%s\" but %s was run%s", c->size, size,
		    custom ? " (an explicit iteration count: its census says \"custom\")" : "");
	return 0;
}

int census_check_build(const struct census_report *c, const char *stdout_checksum,
                       const char *collector, const char *version, struct strlist *warnings,
                       struct err *e)
{
	char *w;

	/* Two answers from one run: neither can be taken for the result. */
	if (stdout_checksum && strcmp(stdout_checksum, c->checksum) != 0)
		return err_setc(e, ERR_INVALID,
		                "checksums differ: stdout says checksum %s, the census says %s",
		                stdout_checksum, c->checksum);
	if (collector && strcmp(c->collector, collector) != 0) {
		w = xasprintf("the census names collector \"%s\", the manifest \"%s\"",
		              c->collector, collector);
		strlist_push(warnings, w);
		free(w);
	}
	if (version && c->collector_version && strcmp(c->collector_version, version) != 0) {
		w = xasprintf("the census names collector version \"%s\", the manifest \"%s\"",
		              c->collector_version, version);
		strlist_push(warnings, w);
		free(w);
	}
	return 0;
}

void census_report_release(struct census_report *r)
{
	free(r->probe);
	free(r->size);
	free(r->collector);
	free(r->collector_version);
	free(r->checksum);
	free(r->premise_text);
	metric_set_release(&r->metrics);
	strlist_release(&r->warnings);
	memset(r, 0, sizeof *r);
	r->premise_state = -1;
}
