#include "buildinfo.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcr.h"
#include "json.h"

#define BUILDINFO_FORMAT   "gcratchet-build"
#define BUILDINFO_PROTOCOL "census"

static int buildinfo_string(const cJSON *root, const char *path, const char *key, char **out,
                            struct err *e)
{
	const char *s;

	if (json_string(cJSON_GetObjectItemCaseSensitive(root, key), path, key, &s, e) != 0)
		return -1;
	*out = xstrdup(s);
	return 0;
}

/*
 * Reads probes[i].<key>, an optional argv template: strings, the first "{exe}", every
 * placeholder one of `allowed` (NULL-terminated). Absent: *out stays empty.
 */
static int buildinfo_template(const cJSON *probe, const char *path, const char *item,
                              const char *key, const char *const *allowed, struct strlist *out,
                              struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(probe, key), *arg;
	char where[96], at[112];
	size_t i = 0;

	if (!v)
		return 0;
	json_path_key(where, sizeof where, item, key);
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
		return err_setc(e, ERR_INVALID, "%s: %s: must be a non-empty array of strings",
		                path, where);
	cJSON_ArrayForEach(arg, v)
	{
		const char *s, *p;
		json_path_index(at, sizeof at, where, i);
		if (json_string(arg, path, at, &s, e) != 0)
			return -1;
		/* The executable is the one the manifest lists and the harness checks. */
		if (i++ == 0 && strcmp(s, "{exe}") != 0)
			return err_setc(e, ERR_INVALID,
			                "%s: %s: must be \"{exe}\", the probe's file", path, at);
		for (p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
			size_t len = strcspn(p, "}"), k = 0;
			while (allowed[k] && (strlen(allowed[k]) != len + 1 ||
			                      strncmp(allowed[k], p, len + 1) != 0))
				k++;
			if (!allowed[k] || p[len] != '}')
				return err_setc(e, ERR_INVALID,
				                "%s: %s: unknown placeholder in \"%s\"; there are "
				                "%s",
				                path, at, s, BUILDINFO_PLACEHOLDERS);
		}
		strlist_push(out, s);
	}
	return 0;
}

/* "abi": N, the C ABI this harness speaks, or "protocol": "census" for a foreign program. */
static int buildinfo_abi(const cJSON *root, const char *path, struct buildinfo *out, struct err *e)
{
	const cJSON *abi = cJSON_GetObjectItemCaseSensitive(root, "abi");
	const cJSON *protocol = cJSON_GetObjectItemCaseSensitive(root, "protocol");
	const char *name;
	int64_t v;

	if (abi && protocol)
		return err_setc(
		    e, ERR_INVALID,
		    "%s: abi, protocol: give one (abi for C probes built against gcr.h, "
		    "protocol for any other program)",
		    path);
	if (protocol) {
		if (json_string(protocol, path, "protocol", &name, e) != 0)
			return -1;
		if (strcmp(name, BUILDINFO_PROTOCOL) != 0)
			return err_setc(e, ERR_INVALID, "%s: protocol: must be \"%s\", got \"%s\"",
			                path, BUILDINFO_PROTOCOL, name);
		out->abi = 0;
		return 0;
	}
	/* valueint would clamp or truncate: 1.5 or 1e300 must not pass for ABI 1. */
	if (json_int(abi, 0, JSON_INT_MAX, path, "abi", &v, e) != 0)
		return -1;
	if (v != GCR_ABI_VERSION)
		return err_setc(e, ERR_INVALID,
		                "%s: built for collector ABI %lld, this harness speaks ABI %d: "
		                "rebuild it",
		                path, (long long)v, GCR_ABI_VERSION);
	out->abi = (int)v;
	return 0;
}

int buildinfo_load(const char *dir, struct buildinfo *out, struct err *e)
{
	char *path = xasprintf("%s/manifest.json", dir), *text = NULL;
	cJSON *root = NULL;
	static const char *const sized[] = {"{exe}", "{size}", NULL};
	static const char *const counted[] = {"{exe}", "{iterations}", NULL};
	const cJSON *v, *probe;
	int rc = -1;
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
	if (buildinfo_abi(root, path, out, e) != 0)
		goto out;
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
	out->argv = xcalloc((size_t)cJSON_GetArraySize(v), sizeof *out->argv);
	out->argv_iterations = xcalloc((size_t)cJSON_GetArraySize(v), sizeof *out->argv);
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
		if (buildinfo_template(probe, path, item, "argv", sized, &out->argv[i - 1], e) !=
		        0 ||
		    buildinfo_template(probe, path, item, "argv_iterations", counted,
		                       &out->argv_iterations[i - 1], e) != 0)
			goto out;
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
	if (rc != 0 && i > out->probes.n) {
		strlist_release(&out->argv[i - 1]);
		strlist_release(&out->argv_iterations[i - 1]);
	}
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
	/* One per probe: buildinfo_load releases those of a probe it could not load. */
	for (size_t i = 0; b->argv && i < b->probes.n; i++) {
		strlist_release(&b->argv[i]);
		strlist_release(&b->argv_iterations[i]);
	}
	free(b->argv);
	free(b->argv_iterations);
	strlist_release(&b->probes);
	toolchain_release(&b->toolchain);
	memset(b, 0, sizeof *b);
}

char *buildinfo_probe_path(const struct buildinfo *b, const char *probe)
{
	return xasprintf("%s/%s", b->dir, probe);
}

/* One element of a template with its placeholders replaced; newly allocated. */
static char *buildinfo_expand(const char *arg, const char *exe, const char *size, const char *count)
{
	static const char *const names[] = {"{exe}", "{size}", "{iterations}"};
	const char *values[] = {exe, size, count};
	struct sbuf b;

	sbuf_init(&b);
	while (*arg) {
		size_t k = 0;
		while (k < 3 && strncmp(arg, names[k], strlen(names[k])) != 0)
			k++;
		if (k < 3) {
			sbuf_addf(&b, "%s", values[k]);
			arg += strlen(names[k]);
		} else {
			sbuf_add(&b, arg++, 1);
		}
	}
	return b.data;
}

char **buildinfo_probe_argv(const struct buildinfo *b, const char *probe, const char *exe,
                            const char *size, uint64_t iterations)
{
	static const char *const sized[] = {"{exe}", "{size}"};
	static const char *const counted[] = {"{exe}", "--iterations", "{iterations}"};
	const struct strlist *t = NULL;
	const char *const *items = iterations ? counted : sized;
	size_t n = iterations ? 3 : 2, i;
	char count[24], **argv;

	snprintf(count, sizeof count, "%llu", (unsigned long long)iterations);
	for (i = 0; i < b->probes.n && strcmp(b->probes.items[i], probe) != 0; i++)
		;
	if (i < b->probes.n)
		t = iterations ? &b->argv_iterations[i] : &b->argv[i];
	if (t && t->n) {
		items = (const char *const *)t->items;
		n = t->n;
	}
	argv = xcalloc(n + 1, sizeof *argv);
	for (i = 0; i < n; i++)
		argv[i] = buildinfo_expand(items[i], exe, size, count);
	return argv;
}

void buildinfo_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
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
