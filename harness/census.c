#include "census.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcr.h"

#define CENSUS_FORMAT    "gcr-census"
#define CENSUS_VERSION   1
/* Counters travel as JSON numbers: integers above 2^53 would silently lose precision. */
#define CENSUS_MAX_EXACT 9007199254740992.0

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

	*out = NULL;
	if (!v) {
		if (required)
			return err_set(e, "census: field \"%s\" is missing (expected a string)",
			               key);
		return 0;
	}
	if (!cJSON_IsString(v))
		return err_set(e, "census: field \"%s\" must be a string", key);
	*out = xstrdup(v->valuestring);
	return 0;
}

static int census_counter(const cJSON *v, const char *path, double *out, struct err *e)
{
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble > CENSUS_MAX_EXACT)
		return err_set(e, "census: %s must be a non-negative integer below 2^53", path);
	*out = v->valuedouble;
	return 0;
}

#define CENSUS_FIELD_NAME_(id, name) name,
static const char *const census_fields[] = {GCR_CENSUS_FIELDS(CENSUS_FIELD_NAME_) NULL};
#undef CENSUS_FIELD_NAME_

static int census_counters(const cJSON *obj, const char *group, const char *const *allowed,
                           struct metric_set *m, struct err *e)
{
	const cJSON *item;

	if (!obj)
		return 0;
	if (!cJSON_IsObject(obj))
		return err_set(e, "census: field \"%s\" must be an object of counters", group);
	cJSON_ArrayForEach(item, obj)
	{
		char metric[256];
		double v = 0;
		int known = 0;

		for (size_t i = 0; allowed[i]; i++)
			known |= strcmp(allowed[i], item->string) == 0;
		/* Fields this harness does not know are ignored: a newer probe may send more. */
		if (!known)
			continue;
		snprintf(metric, sizeof metric, "%s.%s", group, item->string);
		if (census_counter(item, metric, &v, e) != 0)
			return -1;
		metric_set_add(m, metric, v);
	}
	return 0;
}

int census_parse(const char *text, struct census_report *out, struct err *e)
{
	static const char *const memory_fields[] = {"vm_hwm_bytes", "rss_anon_bytes", NULL};
	cJSON *root = cJSON_Parse(text);
	const cJSON *v, *premise;
	int rc = -1;

	memset(out, 0, sizeof *out);
	out->premise_state = -1;
	if (!root) {
		const char *at = cJSON_GetErrorPtr();
		err_set(e, "census: not valid JSON (at byte %ld of %zu)",
		        at ? (long)(at - text) : -1L, strlen(text));
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		err_set(e, "census: expected one JSON object");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "format");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, CENSUS_FORMAT) != 0) {
		err_set(e, "census: field \"format\" must be \"%s\"", CENSUS_FORMAT);
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (!cJSON_IsNumber(v) || v->valuedouble != CENSUS_VERSION) {
		err_set(e, "census: field \"version\" must be %d (this harness reads version %d)",
		        CENSUS_VERSION, CENSUS_VERSION);
		goto out;
	}
	if (census_string(root, "probe", 1, &out->probe, e) != 0 ||
	    census_string(root, "size", 0, &out->size, e) != 0 ||
	    census_string(root, "collector", 1, &out->collector, e) != 0 ||
	    census_string(root, "collector_version", 0, &out->collector_version, e) != 0 ||
	    census_string(root, "checksum", 1, &out->checksum, e) != 0)
		goto out;
	if (!census_checksum_valid(out->checksum)) {
		err_set(e,
		        "census: field \"checksum\" must be \"0x\" and 16 lowercase hex digits, "
		        "got \"%s\"",
		        out->checksum);
		goto out;
	}
	if (census_counters(cJSON_GetObjectItemCaseSensitive(root, "census"), "census",
	                    census_fields, &out->metrics, e) != 0 ||
	    census_counters(cJSON_GetObjectItemCaseSensitive(root, "memory"), "memory",
	                    memory_fields, &out->metrics, e) != 0)
		goto out;
	premise = cJSON_GetObjectItemCaseSensitive(root, "premise");
	if (premise) {
		const cJSON *met = cJSON_GetObjectItemCaseSensitive(premise, "met");
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(premise, "text");
		if (!cJSON_IsObject(premise) || !(cJSON_IsBool(met) || cJSON_IsNull(met))) {
			err_set(e, "census: field \"premise.met\" must be true, false or null");
			goto out;
		}
		out->premise_state = cJSON_IsNull(met) ? -1 : cJSON_IsTrue(met);
		out->premise_text = xstrdup(cJSON_IsString(why) ? why->valuestring : "");
	}
	rc = 0;
out:
	cJSON_Delete(root);
	if (rc != 0)
		census_report_release(out);
	return rc;
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
	memset(r, 0, sizeof *r);
	r->premise_state = -1;
}
