#include "buildinfo.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcr.h"
#include "json.h"

#define BUILDINFO_FORMAT "gcratchet-build"

static int buildinfo_string(const cJSON *root, const char *path, const char *key, char **out,
                            struct err *e)
{
	const char *s;

	if (json_string(cJSON_GetObjectItemCaseSensitive(root, key), path, key, &s, e) != 0)
		return -1;
	*out = xstrdup(s);
	return 0;
}

int buildinfo_load(const char *dir, struct buildinfo *out, struct err *e)
{
	char *path = xasprintf("%s/manifest.json", dir), *text = NULL;
	cJSON *root = NULL;
	const cJSON *v, *probe;
	int rc = -1;
	int64_t abi;
	size_t len = 0, i = 0;
	uint64_t hash;

	memset(out, 0, sizeof *out);
	out->dir = xstrdup(dir);
	if (access(dir, F_OK) != 0) {
		err_set(e, "%s: no such build folder", dir);
		goto out;
	}
	if (read_file(path, &text, &len, e) != 0) {
		err_set(e, "%s: not a build folder (no manifest.json; build it with make)", dir);
		goto out;
	}
	if (json_parse(text, len, path, &root, e) != 0)
		goto out;
	if (!cJSON_IsObject(root)) {
		err_set(e, "%s: must be a JSON object", path);
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "format");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, BUILDINFO_FORMAT) != 0) {
		err_set(e, "%s: format: must be \"%s\"", path, BUILDINFO_FORMAT);
		goto out;
	}
	/* valueint would clamp or truncate: 1.5 or 1e300 must not pass for ABI 1. */
	if (json_int(cJSON_GetObjectItemCaseSensitive(root, "abi"), 0, JSON_INT_MAX, path, "abi",
	             &abi, e) != 0)
		goto out;
	if (abi != GCR_ABI_VERSION) {
		err_set(e,
		        "%s: built for collector ABI %lld, this harness speaks ABI %d: rebuild it",
		        path, (long long)abi, GCR_ABI_VERSION);
		goto out;
	}
	if (buildinfo_string(root, path, "name", &out->name, e) != 0 ||
	    buildinfo_string(root, path, "collector", &out->collector, e) != 0 ||
	    buildinfo_string(root, path, "collector_version", &out->version, e) != 0 ||
	    buildinfo_string(root, path, "git_commit", &out->git_commit, e) != 0 ||
	    toolchain_parse(cJSON_GetObjectItemCaseSensitive(root, "toolchain"), path,
	                    &out->toolchain, e) != 0)
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(root, "probes");
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0) {
		err_set(e, "%s: probes: must be a non-empty array (an empty build?)", path);
		goto out;
	}
	cJSON_ArrayForEach(probe, v)
	{
		const char *name;
		char item[48], where[64], *exe;
		json_path_index(item, sizeof item, "probes", i++);
		if (!cJSON_IsObject(probe)) {
			err_set(e, "%s: %s: must be an object {\"name\": ...}", path, item);
			goto out;
		}
		json_path_key(where, sizeof where, item, "name");
		if (json_string(cJSON_GetObjectItemCaseSensitive(probe, "name"), path, where, &name,
		                e) != 0)
			goto out;
		/* A probe listed twice would be measured twice under one name. */
		if (strlist_contains(&out->probes, name)) {
			err_set(e, "%s: %s: probe %s is listed twice", path, where, name);
			goto out;
		}
		strlist_push(&out->probes, name);
		exe = buildinfo_probe_path(out, name);
		if (access(exe, X_OK) != 0) {
			err_set(e, "%s: probe %s is listed but %s is not an executable file", path,
			        name, exe);
			free(exe);
			goto out;
		}
		free(exe);
	}
	out->manifest_text = text;
	text = NULL;
	hash = hash_fnv1a(out->manifest_text, strlen(out->manifest_text), HASH_FNV1A_SEED);
	snprintf(out->manifest_hash, sizeof out->manifest_hash, "%016llx",
	         (unsigned long long)hash);
	rc = 0;
out:
	cJSON_Delete(root);
	free(text);
	free(path);
	if (rc != 0)
		buildinfo_release(out);
	return rc;
}

void buildinfo_release(struct buildinfo *b)
{
	free(b->dir);
	free(b->name);
	free(b->collector);
	free(b->version);
	free(b->git_commit);
	free(b->manifest_text);
	strlist_release(&b->probes);
	toolchain_release(&b->toolchain);
	memset(b, 0, sizeof *b);
}

char *buildinfo_probe_path(const struct buildinfo *b, const char *probe)
{
	return xasprintf("%s/%s", b->dir, probe);
}

char *buildinfo_root(void)
{
	const char *env = getenv("GCR_BUILD_ROOT");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return xstrdup("build");
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	return xstrdup(exe);
}

static int buildinfo_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void buildinfo_list(const char *root, struct strlist *names)
{
	char *dir = xasprintf("%s/collectors", root);
	DIR *d = opendir(dir);
	struct dirent *ent;

	if (d) {
		while ((ent = readdir(d))) {
			char *manifest;
			if (ent->d_name[0] == '.')
				continue;
			manifest = xasprintf("%s/%s/manifest.json", dir, ent->d_name);
			if (access(manifest, R_OK) == 0)
				strlist_push(names, ent->d_name);
			free(manifest);
		}
		closedir(d);
	}
	if (names->n > 1)
		qsort(names->items, names->n, sizeof *names->items, buildinfo_cmp);
	free(dir);
}
