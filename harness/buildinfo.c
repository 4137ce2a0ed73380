#include "buildinfo.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caps.h"
#include "gcr.h"
#include "json.h"
#include "sha256.h"

#define BUILDINFO_FORMAT       "gcratchet-build"
#define BUILDINFO_PROTOCOL     "census"
#define BUILDINFO_VERSION_TEXT "1 or 2"

/*
 * A required member: "PATH: field KEY missing (WHAT)" when absent, so a manifest written by
 * hand learns which field it lacks, not what a default would have meant.
 */
static const cJSON *buildinfo_field(const cJSON *obj, const char *path, const char *key,
                                    const char *at, const char *what, struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!v)
		err_setc(e, ERR_INVALID, "%s: field %s missing (%s)", path, at ? at : key, what);
	return v;
}

static int buildinfo_string(const cJSON *root, const char *path, const char *key, char **out,
                            struct err *e)
{
	const cJSON *v = buildinfo_field(root, path, key, NULL, "a string", e);
	const char *s;

	if (!v || json_string(v, path, key, &s, e) != 0)
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

	if (!abi && !protocol)
		return err_setc(e, ERR_INVALID,
		                "%s: field abi missing (the C ABI the probes were built against, "
		                "%d; or \"protocol\": \"census\" for a program with no C ABI)",
		                path, GCR_ABI_VERSION);
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

/*
 * "version": the schema's version. 1 is what make wrote before probe digests were checked (a
 * hand-written one could leave sha256 out); 2 adds "wrapper". Both are read by the rules of
 * 2, so a version-1 manifest without real digests is refused with the way to mend it.
 */
static int buildinfo_version(const cJSON *root, const char *path, struct buildinfo *out,
                             struct err *e)
{
	const cJSON *v = buildinfo_field(root, path, "version", NULL,
	                                 "the schema's version, " BUILDINFO_VERSION_TEXT, e);
	int64_t n;

	if (!v || json_int(v, 1, JSON_INT_MAX, path, "version", &n, e) != 0)
		return -1;
	if (n > BUILDINFO_VERSION)
		return err_setc(e, ERR_INVALID,
		                "%s: version: %lld is newer than this harness reads (%d): update "
		                "gcratchet",
		                path, (long long)n, BUILDINFO_VERSION);
	out->manifest_version = (int)n;
	return 0;
}

/* probes[i].wrapper: optional, true for a probe that starts the real program as a child. */
static int buildinfo_wrapper(const cJSON *probe, const char *path, const char *item, int *out,
                             struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(probe, "wrapper");
	char where[96];

	*out = 0;
	if (!v)
		return 0;
	json_path_key(where, sizeof where, item, "wrapper");
	return json_bool(v, path, where, out, e);
}

/*
 * probes[i].sha256 against the file's bytes: a probe edited after its manifest was written
 * would otherwise be measured, and stored, as the build the manifest names.
 */
static int buildinfo_verify(const cJSON *probe, const char *path, const char *item, const char *exe,
                            struct sha256_memo *memo, struct strlist *digests, struct err *e)
{
	const cJSON *v;
	const char *want;
	char where[96], got[SHA256_HEX_LEN + 1];

	json_path_key(where, sizeof where, item, "sha256");
	v = buildinfo_field(probe, path, "sha256", where,
	                    "the probe file's sha256; write it with `gcratchet manifest DIR "
	                    "--force`, or rebuild",
	                    e);
	if (!v || json_string(v, path, where, &want, e) != 0)
		return -1;
	if (!sha256_hex_valid(want))
		return err_setc(e, ERR_INVALID,
		                "%s: %s: \"%s\" is not a sha256 (64 lowercase hex digits); write "
		                "them with `gcratchet manifest DIR --force`, or rebuild",
		                path, where, want);
	if (sha256_file_memo(memo, exe, got, NULL, e) != 0)
		return -1;
	if (strcmp(got, want) != 0)
		return err_setc(e, ERR_INVALID,
		                "%s: probe file %s changed after its manifest was written: the "
		                "manifest says sha256 %s, the file's is %s; rebuild the folder, or "
		                "if the change is meant, rewrite its manifest with `gcratchet "
		                "manifest DIR --force` (a new build)",
		                path, exe, want, got);
	strlist_push(digests, got);
	return 0;
}

static int buildinfo_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The digest of a folder's files as jvm/build.sh and js/build.sh write it: the sha256 of what
 * `sha256sum -- *.class` (suffix ".class") or `sha256sum -- *` (suffix NULL: every name not
 * starting with a dot) prints there, one "HEX  NAME" line per file, names in byte order.
 */
static int buildinfo_folder_digest(const char *dir, const char *suffix, struct sha256_memo *memo,
                                   char hex[SHA256_HEX_LEN + 1], struct err *e)
{
	struct strlist names = {0};
	struct sha256 all;
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = -1;

	if (!d)
		return err_setc(e, ERR_IO, "%s: cannot read the folder: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name), slen = suffix ? strlen(suffix) : 0;
		if (suffix ? len > slen && strcmp(de->d_name + len - slen, suffix) == 0
		           : de->d_name[0] != '.')
			strlist_push(&names, de->d_name);
	}
	closedir(d);
	qsort(names.items, names.n, sizeof *names.items, buildinfo_name_cmp);
	sha256_init(&all);
	for (size_t i = 0; i < names.n; i++) {
		char one[SHA256_HEX_LEN + 1], *path = xasprintf("%s/%s", dir, names.items[i]);
		int r = sha256_file_memo(memo, path, one, NULL, e);
		free(path);
		if (r != 0)
			goto out;
		sha256_update(&all, one, strlen(one));
		sha256_update(&all, "  ", 2);
		sha256_update(&all, names.items[i], strlen(names.items[i]));
		sha256_update(&all, "\n", 1);
	}
	sha256_final_hex(&all, hex);
	rc = 0;
out:
	strlist_release(&names);
	return rc;
}

/*
 * The folders a build's wrappers run, each named by a digest in the manifest: a JVM build's
 * classes (jvm/build.sh), a JS build's scripts (js/build.sh). The wrappers are the probes the
 * manifest digests; what they run must be what it says too.
 */
static const struct buildinfo_folder {
	const char *field;  /* the manifest's member */
	const char *folder; /* under the build folder */
	const char *suffix; /* the files digested; NULL: every one */
	const char *rebuild;
} buildinfo_folders[BUILDINFO_FOLDERS] = {
    {"classes_sha256", "classes", ".class", "make jvm"},
    {"lib_sha256", "lib", NULL, "make js"},
};

/* Each folder digest the manifest names, checked against the folder's files. */
static int buildinfo_classes(const cJSON *root, const char *path, struct buildinfo *out,
                             struct err *e)
{
	for (size_t k = 0; k < BUILDINFO_FOLDERS; k++) {
		const struct buildinfo_folder *f = &buildinfo_folders[k];
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, f->field);
		char *dir, got[SHA256_HEX_LEN + 1];
		int rc;

		if (v == NULL)
			continue;
		if (!cJSON_IsString(v) || !sha256_hex_valid(v->valuestring))
			return err_setc(e, ERR_INVALID,
			                "%s: %s: must be a sha256 (64 lowercase hex digits)", path,
			                f->field);
		dir = xasprintf("%s/%s", out->dir, f->folder);
		rc = buildinfo_folder_digest(dir, f->suffix, out->memo, got, e);
		if (rc == 0 && strcmp(got, v->valuestring) != 0)
			rc = err_setc(
			    e, ERR_INVALID,
			    "%s: the files in %s changed after the manifest was written: it "
			    "says %s %s, they are %s; rebuild the folder (%s)",
			    path, dir, f->field, v->valuestring, got, f->rebuild);
		free(dir);
		if (rc != 0)
			return rc;
		out->folder_sha256[k] = xstrdup(got);
	}
	return 0;
}

int buildinfo_unchanged(const struct buildinfo *b, const char *probe, struct err *e)
{
	char got[SHA256_HEX_LEN + 1], *exe;
	size_t i = 0;
	int rc = 0;

	while (i < b->probes.n && strcmp(b->probes.items[i], probe) != 0)
		i++;
	if (i == b->probes.n || i >= b->probe_sha256.n)
		return 0;
	exe = buildinfo_probe_path(b, probe);
	if (sha256_file_memo(b->memo, exe, got, NULL, e) != 0)
		rc = -1;
	else if (strcmp(got, b->probe_sha256.items[i]) != 0)
		rc = err_setc(e, ERR_INVALID,
		              "%s changed during the session (sha256 %s, %s when the session "
		              "began): its figures are not the build's",
		              exe, got, b->probe_sha256.items[i]);
	free(exe);
	for (size_t k = 0; rc == 0 && k < BUILDINFO_FOLDERS; k++) {
		const struct buildinfo_folder *f = &buildinfo_folders[k];
		char *dir;

		if (!b->folder_sha256[k])
			continue;
		dir = xasprintf("%s/%s", b->dir, f->folder);
		if (buildinfo_folder_digest(dir, f->suffix, b->memo, got, e) != 0)
			rc = -1;
		else if (strcmp(got, b->folder_sha256[k]) != 0)
			rc = err_setc(
			    e, ERR_INVALID,
			    "%s changed during the session (%s %s, %s when the session began): "
			    "its figures are not the build's",
			    dir, f->field, got, b->folder_sha256[k]);
		free(dir);
	}
	return rc;
}

/*
 * "meters_off": {"valgrind": "why", ...}, optional: the meters a session leaves off for this
 * build when --meters does not name them, each with the reason the build's maker gave (a JVM's
 * probe under valgrind takes a minute a run). Only the optional meters can be named.
 */
static const char *const buildinfo_optional_meters[] = {"valgrind", "cachesim", "perf"};
#define BUILDINFO_OPTIONAL_METERS \
	(sizeof buildinfo_optional_meters / sizeof *buildinfo_optional_meters)

/* A meter a build can leave off: one of buildinfo_optional_meters. */
static int buildinfo_meter_optional(const char *name)
{
	for (size_t k = 0; k < BUILDINFO_OPTIONAL_METERS; k++)
		if (strcmp(name, buildinfo_optional_meters[k]) == 0)
			return 1;
	return 0;
}

/* A knob's name: [A-Z][A-Z0-9_]*. */
static int buildinfo_knob_name_ok(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && name[0] >= 'A' && name[0] <= 'Z' &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == len;
}

static int buildinfo_meters_off(const cJSON *root, const char *path, struct buildinfo *out,
                                struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "meters_off"), *m;

	if (v == NULL)
		return 0;
	if (!cJSON_IsObject(v))
		return err_setc(e, ERR_INVALID,
		                "%s: meters_off: must be an object {\"valgrind\": \"why\", ...}",
		                path);
	cJSON_ArrayForEach(m, v)
	{
		char where[64];

		json_path_key(where, sizeof where, "meters_off", m->string);
		if (!buildinfo_meter_optional(m->string))
			return err_setc(
			    e, ERR_INVALID,
			    "%s: %s: not a meter a build can leave off (valgrind, cachesim, "
			    "perf)",
			    path, where);
		if (!cJSON_IsString(m) || m->valuestring[0] == '\0')
			return err_setc(e, ERR_INVALID,
			                "%s: %s: must be the reason, a non-empty string", path,
			                where);
		strlist_push(&out->meters_off, m->string);
		strlist_push(&out->meters_off_why, m->valuestring);
	}
	return 0;
}

/*
 * "knobs": ["GCR_HEAP_MB", ...], optional: the environment variables the build's probes read
 * as knobs. Only these reach its probes from the caller's environment (session.c, "Hermetic
 * runs"); a manifest without the field declares none. Each a name of [A-Z][A-Z0-9_]*, once.
 */
static int buildinfo_knobs(const cJSON *root, const char *path, struct buildinfo *out,
                           struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "knobs"), *k;
	size_t i = 0;

	if (v == NULL)
		return 0;
	if (!cJSON_IsArray(v))
		return err_setc(
		    e, ERR_INVALID,
		    "%s: knobs: must be an array of variable names [\"GCR_HEAP_MB\", ...]", path);
	cJSON_ArrayForEach(k, v)
	{
		const char *name;
		char where[48];

		json_path_index(where, sizeof where, "knobs", i++);
		if (json_string(k, path, where, &name, e) != 0)
			return -1;
		if (!buildinfo_knob_name_ok(name))
			return err_setc(e, ERR_INVALID,
			                "%s: %s: \"%s\" is not a variable name ([A-Z][A-Z0-9_]*)",
			                path, where, name);
		if (strlist_contains(&out->knobs, name))
			return err_setc(e, ERR_INVALID, "%s: %s: %s is listed twice", path, where,
			                name);
		strlist_push(&out->knobs, name);
	}
	out->knobs_declared = 1;
	return 0;
}

/*
 * "capabilities": [...], optional: what a build that sends no census does (the census's own
 * list wins where there is one). A name the protocol does not define is refused: a manifest
 * is written by hand, and a typo'd "precise" would quietly make a build conservative.
 */
static int buildinfo_caps(const cJSON *root, const char *path, struct buildinfo *out, struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "capabilities");
	char first[64];

	if (v == NULL)
		return 0;
	if (caps_parse(v, path, &out->caps, first, sizeof first, e) != 0)
		return -1;
	if (out->caps.unknown)
		return err_setc(e, ERR_INVALID,
		                "%s: capabilities: \"%s\" is not a capability (collects, precise, "
		                "moving, generational, barrier, pause_log, clock_paced)",
		                path, first);
	return 0;
}

/*
 * A probe's name in a manifest: two digits, an underscore and a name (NN_name). The number is
 * how --probes picks a probe and what its cells are keyed by in a baseline; a name without one
 * (a benchmark's own, "mt-gcbench") would be measured, and then matched to no probe anywhere.
 */
static int buildinfo_probe_name_ok(const char *s)
{
	return s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' && s[2] == '_' && s[3] &&
	       !strchr(s, '/');
}

/*
 * Whether a probe file looks like a program built against gcr.h: an ELF executable holding the
 * probe runtime's census tag (probes/runtime/probe.c writes "gcr-census"). NULL when it does;
 * otherwise what it is instead. Only a hint: it is read for a warning, never a refusal.
 */
static const char *buildinfo_abi_unlike(const char *exe)
{
	char *text = NULL;
	size_t len = 0;
	struct err e;
	const char *why = NULL;

	if (read_file(exe, &text, &len, &e) != 0)
		return NULL;
	if (len >= 2 && text[0] == '#' && text[1] == '!')
		why = "a script";
	else if (len < 4 || memcmp(text, "\177ELF", 4) != 0)
		why = "not an ELF executable";
	else if (!memmem(text, len, "gcr-census", 10))
		why = "a program without the probe runtime (no census of probes/runtime/probe.c in "
		      "it)";
	free(text);
	return why;
}

/*
 * "design", optional: the design the build belongs to, when it is one setting of a runtime
 * (GOGC 100 and 50 as two collector names, one design); the collector's name when absent.
 */
static int buildinfo_design(const cJSON *root, const char *path, struct buildinfo *out,
                            struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "design");
	const char *s;

	if (!v) {
		out->design = xstrdup(out->collector);
		return 0;
	}
	if (json_string(v, path, "design", &s, e) != 0)
		return -1;
	if (!*s)
		return err_setc(e, ERR_INVALID,
		                "%s: design: must be a non-empty string (leave it out for the "
		                "collector's name)",
		                path);
	out->design = xstrdup(s);
	return 0;
}

char *buildinfo_design_of(const char *manifest_text, const char *collector)
{
	cJSON *root = manifest_text ? cJSON_Parse(manifest_text) : NULL;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "design");
	char *out = xstrdup(cJSON_IsString(v) && *v->valuestring ? v->valuestring
	                    : collector                          ? collector
	                                                         : "");

	cJSON_Delete(root);
	return out;
}

/* A manifest's identity: the hash of its text (which holds every probe's sha256). */
static void buildinfo_hash_text(const char *text, char out[17])
{
	snprintf(out, 17, "%016llx",
	         (unsigned long long)hash_fnv1a(text, strlen(text), HASH_FNV1A_SEED));
}

int buildinfo_manifest_hash(const char *dir, char out[17], struct err *e)
{
	char *path = xasprintf("%s/manifest.json", dir), *text = NULL;
	size_t len = 0;
	int rc = read_file(path, &text, &len, e);

	if (rc == 0)
		buildinfo_hash_text(text, out);
	free(text);
	free(path);
	return rc;
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

	memset(out, 0, sizeof *out);
	out->dir = xstrdup(dir);
	out->memo = sha256_memo_new();
	if (access(dir, F_OK) != 0) {
		err_setc(e, ERR_NOT_FOUND, "%s: no such build folder", dir);
		goto out;
	}
	if (read_file(path, &text, &len, e) != 0) {
		err_setc(e, ERR_NOT_FOUND,
		         "%s: not a build folder (no manifest.json; build it with make)", dir);
		goto out;
	}
	if (json_parse(text, len, path, &root, e) != 0)
		goto out;
	if (!cJSON_IsObject(root)) {
		err_setc(e, ERR_INVALID, "%s: must be a JSON object", path);
		goto out;
	}
	v = buildinfo_field(root, path, "format", NULL, "\"" BUILDINFO_FORMAT "\"", e);
	if (!v)
		goto out;
	if (!cJSON_IsString(v) || strcmp(v->valuestring, BUILDINFO_FORMAT) != 0) {
		err_setc(e, ERR_INVALID, "%s: format: must be \"%s\"", path, BUILDINFO_FORMAT);
		goto out;
	}
	if (buildinfo_version(root, path, out, e) != 0)
		goto out;
	if (buildinfo_abi(root, path, out, e) != 0)
		goto out;
	if (buildinfo_string(root, path, "name", &out->name, e) != 0 ||
	    buildinfo_string(root, path, "collector", &out->collector, e) != 0 ||
	    buildinfo_string(root, path, "collector_version", &out->version, e) != 0 ||
	    buildinfo_string(root, path, "git_commit", &out->git_commit, e) != 0 ||
	    buildinfo_design(root, path, out, e) != 0 ||
	    toolchain_parse(cJSON_GetObjectItemCaseSensitive(root, "toolchain"), path,
	                    &out->toolchain, e) != 0 ||
	    buildinfo_meters_off(root, path, out, e) != 0 ||
	    buildinfo_knobs(root, path, out, e) != 0 || buildinfo_caps(root, path, out, e) != 0)
		goto out;
	v = buildinfo_field(root, path, "probes", NULL, "an array of probe objects", e);
	if (!v)
		goto out;
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0) {
		err_setc(e, ERR_INVALID, "%s: probes: must be a non-empty array (an empty build?)",
		         path);
		goto out;
	}
	out->argv = xcalloc((size_t)cJSON_GetArraySize(v), sizeof *out->argv);
	out->argv_iterations = xcalloc((size_t)cJSON_GetArraySize(v), sizeof *out->argv);
	out->wrapper = xcalloc((size_t)cJSON_GetArraySize(v), sizeof *out->wrapper);
	cJSON_ArrayForEach(probe, v)
	{
		const char *name;
		char item[48], where[64], *exe;
		json_path_index(item, sizeof item, "probes", i++);
		if (!cJSON_IsObject(probe)) {
			err_setc(e, ERR_INVALID, "%s: %s: must be an object {\"name\": ...}", path,
			         item);
			goto out;
		}
		json_path_key(where, sizeof where, item, "name");
		if (!buildinfo_field(probe, path, "name", where, "the probe's file name, NN_name",
		                     e) ||
		    json_string(cJSON_GetObjectItemCaseSensitive(probe, "name"), path, where, &name,
		                e) != 0)
			goto out;
		if (!buildinfo_probe_name_ok(name)) {
			err_setc(
			    e, ERR_INVALID,
			    "%s: %s: \"%s\" is not a probe's name: a probe is named NN_name (two "
			    "digits, an underscore and a name, as 01_nursery_churn), its number "
			    "what --probes and the baselines know it by; name the file so, or give "
			    "a benchmark of your own a number of its own (90_mt_gcbench)",
			    path, where, name);
			goto out;
		}
		/* A probe listed twice would be measured twice under one name. */
		if (strlist_contains(&out->probes, name)) {
			err_setc(e, ERR_INVALID, "%s: %s: probe %s is listed twice", path, where,
			         name);
			goto out;
		}
		if (buildinfo_template(probe, path, item, "argv", sized, &out->argv[i - 1], e) !=
		        0 ||
		    buildinfo_template(probe, path, item, "argv_iterations", counted,
		                       &out->argv_iterations[i - 1], e) != 0)
			goto out;
		if (buildinfo_wrapper(probe, path, item, &out->wrapper[i - 1], e) != 0)
			goto out;
		strlist_push(&out->probes, name);
		exe = buildinfo_probe_path(out, name);
		if (access(exe, X_OK) != 0) {
			err_setc(e, ERR_INVALID,
			         "%s: probe %s is listed but %s is not an executable file", path,
			         name, exe);
			free(exe);
			goto out;
		}
		rc = buildinfo_verify(probe, path, item, exe, out->memo, &out->probe_sha256, e);
		/*
		 * "abi" says the probes were built against gcr.h; a wrapper may start such a
		 * program, so only a probe that is not one is judged.
		 */
		if (rc == 0 && out->abi && !out->wrapper[i - 1]) {
			const char *unlike = buildinfo_abi_unlike(exe);
			if (unlike) {
				char *w = xasprintf(
				    "%s: %s (%s) is %s, yet the manifest declares \"abi\": %d (C "
				    "probes built against gcr.h); a program that only writes the "
				    "census "
				    "declares \"protocol\": \"census\" (docs/manifest.md)",
				    path, item, name, unlike, out->abi);
				strlist_push(&out->warnings, w);
				free(w);
			}
		}
		free(exe);
		if (rc != 0) {
			rc = -1;
			goto out;
		}
		rc = -1;
	}
	if (buildinfo_classes(root, path, out, e) != 0)
		goto out;
	out->manifest_text = text;
	text = NULL;
	buildinfo_hash_text(out->manifest_text, out->manifest_hash);
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
	free(b->design);
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
	free(b->wrapper);
	strlist_release(&b->meters_off);
	strlist_release(&b->meters_off_why);
	strlist_release(&b->knobs);
	strlist_release(&b->warnings);
	strlist_release(&b->probe_sha256);
	for (size_t k = 0; k < BUILDINFO_FOLDERS; k++)
		free(b->folder_sha256[k]);
	strlist_release(&b->probes);
	toolchain_release(&b->toolchain);
	sha256_memo_free(b->memo);
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

/* "NN_name": how probes are named, so the manifest skips scripts' helpers and data files. */
static int buildinfo_probe_name(const char *s)
{
	if (!(s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' && s[2] == '_' && s[3]))
		return 0;
	for (s += 3; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/*
 * The manifest --force replaces, as a tree, or NULL when there is none or it does not parse:
 * what it said that the folder's files cannot say (identity, templates, wrappers) is kept.
 */
static cJSON *buildinfo_old_manifest(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	cJSON *root = NULL;
	struct err e;

	if (access(path, F_OK) == 0 && read_file(path, &text, &len, &e) == 0 &&
	    json_parse(text, len, path, &root, &e) == 0 && !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		root = NULL;
	}
	free(text);
	return root;
}

/* old.key when it is a string, else `fallback`. */
static const char *buildinfo_old_string(const cJSON *old, const char *key, const char *fallback)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(old, key);

	return cJSON_IsString(v) ? v->valuestring : fallback;
}

/* The old manifest's object for probe `name`, or NULL. */
static const cJSON *buildinfo_old_probe(const cJSON *old, const char *name)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(old, "probes"))
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(p, "name");
		if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
			return p;
	}
	return NULL;
}

/* "none" alone in a list option: an empty field, not a name. */
static int buildinfo_opt_none(const struct strlist *l)
{
	return l && l->n == 1 && strcmp(l->items[0], "none") == 0;
}

/* meters_off from --meters-off METER=WHY options; NULL (e set) if one is not. */
static cJSON *buildinfo_opt_meters_off(const struct strlist *opts, struct err *e)
{
	cJSON *m = cJSON_CreateObject();

	for (size_t i = 0; !buildinfo_opt_none(opts) && i < opts->n; i++) {
		const char *item = opts->items[i], *eq = strchr(item, '=');
		char *meter = xasprintf("%.*s", eq ? (int)(eq - item) : (int)strlen(item), item);
		int bad = 0;

		if (!eq || eq[1] == '\0')
			bad = err_setc(
			    e, ERR_INVALID,
			    "--meters-off %s: give the meter and why, METER=WHY (\"valgrind=a "
			    "JIT under valgrind takes minutes a run\")",
			    item);
		else if (!buildinfo_meter_optional(meter))
			bad = err_setc(e, ERR_INVALID,
			               "--meters-off %s: %s is not a meter a build can leave off "
			               "(valgrind, cachesim, perf)",
			               item, meter);
		else if (cJSON_GetObjectItemCaseSensitive(m, meter))
			bad = err_setc(e, ERR_INVALID, "--meters-off %s: %s given twice", item,
			               meter);
		else
			cJSON_AddStringToObject(m, meter, eq + 1);
		free(meter);
		if (bad) {
			cJSON_Delete(m);
			return NULL;
		}
	}
	return m;
}

/* knobs from --knob NAME options; NULL (e set) if one is not a variable's name. */
static cJSON *buildinfo_opt_knobs(const struct strlist *opts, struct err *e)
{
	cJSON *k = cJSON_CreateArray();

	for (size_t i = 0; !buildinfo_opt_none(opts) && i < opts->n; i++) {
		const char *name = opts->items[i];
		int dup = 0;

		for (size_t j = 0; j < i; j++)
			dup |= strcmp(opts->items[j], name) == 0;
		if (!buildinfo_knob_name_ok(name) || dup) {
			err_setc(e, ERR_INVALID,
			         dup ? "--knob %s: given twice"
			             : "--knob %s: not a variable name ([A-Z][A-Z0-9_]*, as "
			               "GCR_HEAP_MAX_MB)",
			         name);
			cJSON_Delete(k);
			return NULL;
		}
		cJSON_AddItemToArray(k, cJSON_CreateString(name));
	}
	return k;
}

/* capabilities from --capabilities a,b,c or none; NULL (e set) for a name it does not define. */
static cJSON *buildinfo_opt_caps(const char *list, struct err *e)
{
	cJSON *c = cJSON_CreateArray();
	char *copy = xstrdup(list), *save = NULL;

	if (strcmp(list, "none") != 0) {
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			size_t k = 0;
			while (caps_all[k] && strcmp(caps_flag_name(caps_all[k]), t) != 0)
				k++;
			if (!caps_all[k]) {
				err_setc(e, ERR_INVALID,
				         "--capabilities %s: \"%s\" is not a capability (collects, "
				         "precise, moving, generational, barrier, pause_log, "
				         "clock_paced; "
				         "none for a build that does none of them)",
				         list, t);
				cJSON_Delete(c);
				c = NULL;
				break;
			}
			cJSON_AddItemToArray(c, cJSON_CreateString(t));
		}
	}
	free(copy);
	return c;
}

/* A template option (--argv, --argv-iterations): a JSON array the loader would accept. */
static cJSON *buildinfo_opt_template(const char *opt, const char *key, const char *text,
                                     const char *const *allowed, struct err *e)
{
	cJSON *v = NULL, *probe = cJSON_CreateObject();
	struct strlist check = {0};

	if (json_parse(text, strlen(text), opt, &v, e) == 0) {
		cJSON_AddItemToObject(probe, key, v);
		if (buildinfo_template(probe, opt, "", key, allowed, &check, e) == 0)
			v = cJSON_DetachItemFromObjectCaseSensitive(probe, key);
		else
			v = NULL;
	}
	strlist_release(&check);
	cJSON_Delete(probe);
	return v;
}

int buildinfo_manifest_write(const char *dir, const struct buildinfo_manifest_opts *o,
                             size_t *nprobes, struct strlist *warnings, struct err *e)
{
	static const char *const sized[] = {"{exe}", "{size}", NULL};
	static const char *const counted[] = {"{exe}", "{iterations}", NULL};
	char *path = xasprintf("%s/manifest.json", dir), *text = NULL, *clean = xstrdup(dir), *base;
	struct strlist found = {0};
	cJSON *root = cJSON_CreateObject(), *probes, *old = NULL, *meters = NULL, *knobs = NULL;
	cJSON *caps = NULL, *argv = NULL, *argv_it = NULL;
	DIR *d = NULL;
	struct dirent *ent;
	int rc = -1, abi;

	*nprobes = 0;
	if (o->abi && o->abi != GCR_ABI_VERSION) {
		err_setc(e, ERR_INVALID, "--abi %d: this harness speaks collector ABI %d", o->abi,
		         GCR_ABI_VERSION);
		goto out;
	}
	/* Every option is checked before the folder is read: a bad one writes nothing. */
	if ((o->meters_off && !(meters = buildinfo_opt_meters_off(o->meters_off, e))) ||
	    (o->knobs && !(knobs = buildinfo_opt_knobs(o->knobs, e))) ||
	    (o->capabilities && !(caps = buildinfo_opt_caps(o->capabilities, e))) ||
	    (o->argv && !(argv = buildinfo_opt_template("--argv", "argv", o->argv, sized, e))) ||
	    (o->argv_iterations &&
	     !(argv_it = buildinfo_opt_template("--argv-iterations", "argv_iterations",
	                                        o->argv_iterations, counted, e))))
		goto out;
	for (size_t i = 0; o->digests && i < o->digests->n; i++) {
		size_t k = 0;
		while (k < BUILDINFO_FOLDERS &&
		       strcmp(o->digests->items[i], buildinfo_folders[k].folder) != 0)
			k++;
		if (k == BUILDINFO_FOLDERS) {
			err_setc(
			    e, ERR_INVALID,
			    "--digest %s: not a folder a manifest names by digest (classes: a JVM "
			    "build's, lib: a JS build's)",
			    o->digests->items[i]);
			goto out;
		}
	}
	if (!(d = opendir(dir))) {
		err_setc(e, ERR_IO, "%s: cannot open the folder: %s", dir, strerror(errno));
		goto out;
	}
	if (!o->force && access(path, F_OK) == 0) {
		err_setc(e, ERR_INVALID, "%s already exists: --force replaces it (a new build)",
		         path);
		goto out;
	}
	while ((ent = readdir(d))) {
		char *exe;
		struct stat st;
		if (!buildinfo_probe_name(ent->d_name))
			continue;
		exe = xasprintf("%s/%s", dir, ent->d_name);
		if (stat(exe, &st) == 0 && S_ISREG(st.st_mode) && access(exe, X_OK) == 0)
			strlist_push(&found, ent->d_name);
		free(exe);
	}
	if (found.n == 0) {
		err_setc(e, ERR_NOT_FOUND,
		         "%s: no executable named like a probe (NN_name, e.g. 01_nursery_churn)",
		         dir);
		goto out;
	}
	qsort(found.items, found.n, sizeof *found.items, buildinfo_cmp);
	for (size_t i = 0; o->wrappers && i < o->wrappers->n; i++)
		if (!strlist_contains(&found, o->wrappers->items[i])) {
			err_setc(e, ERR_INVALID,
			         "--wrapper %s: %s has no executable probe of that name",
			         o->wrappers->items[i], dir);
			goto out;
		}
	/* "out/jvm-g1/" is named jvm-g1 too. */
	for (size_t n = strlen(clean); n > 1 && clean[n - 1] == '/'; n--)
		clean[n - 1] = '\0';
	base = strrchr(clean, '/') && strrchr(clean, '/')[1] ? strrchr(clean, '/') + 1 : clean;
	old = buildinfo_old_manifest(path);
	{
		const cJSON *old_abi = cJSON_GetObjectItemCaseSensitive(old, "abi");
		/* Probes built for another ABI are not made this one's by a new manifest. */
		if (!o->abi && !o->protocol && cJSON_IsNumber(old_abi) &&
		    old_abi->valuedouble != GCR_ABI_VERSION) {
			err_setc(
			    e, ERR_INVALID,
			    "%s says abi %.15g, this harness speaks %d: rebuild the probes, or "
			    "give --abi %d or --protocol census",
			    path, old_abi->valuedouble, GCR_ABI_VERSION, GCR_ABI_VERSION);
			goto out;
		}
		abi = o->abi || (!o->protocol && cJSON_IsNumber(old_abi));
	}
	cJSON_AddStringToObject(root, "format", BUILDINFO_FORMAT);
	cJSON_AddNumberToObject(root, "version", BUILDINFO_VERSION);
	if (abi)
		cJSON_AddNumberToObject(root, "abi", GCR_ABI_VERSION);
	else
		cJSON_AddStringToObject(root, "protocol", BUILDINFO_PROTOCOL);
	cJSON_AddStringToObject(root, "name",
	                        o->name ? o->name : buildinfo_old_string(old, "name", base));
	cJSON_AddStringToObject(root, "collector",
	                        o->collector ? o->collector
	                                     : buildinfo_old_string(old, "collector", base));
	cJSON_AddStringToObject(
	    root, "collector_version",
	    o->version ? o->version : buildinfo_old_string(old, "collector_version", "unknown"));
	cJSON_AddStringToObject(root, "git_commit",
	                        o->git_commit ? o->git_commit
	                                      : buildinfo_old_string(old, "git_commit", "none"));
	/* What the options did not set, a replaced manifest keeps: it is not in the files. */
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(old, "design")))
		cJSON_AddStringToObject(
		    root, "design", cJSON_GetObjectItemCaseSensitive(old, "design")->valuestring);
	if (!meters && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(old, "meters_off")))
		meters = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(old, "meters_off"), 1);
	if (meters && cJSON_GetArraySize(meters) > 0)
		cJSON_AddItemToObject(root, "meters_off", meters);
	else
		cJSON_Delete(meters);
	meters = NULL;
	if (!knobs && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(old, "knobs")))
		knobs = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(old, "knobs"), 1);
	if (knobs)
		cJSON_AddItemToObject(root, "knobs", knobs);
	knobs = NULL;
	if (!caps && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(old, "capabilities")))
		caps = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(old, "capabilities"), 1);
	if (caps)
		cJSON_AddItemToObject(root, "capabilities", caps);
	caps = NULL;
	for (size_t k = 0; k < BUILDINFO_FOLDERS; k++) {
		const struct buildinfo_folder *f = &buildinfo_folders[k];
		char hex[SHA256_HEX_LEN + 1], *sub;
		int r;

		if (!(o->digests && strlist_contains(o->digests, f->folder)) &&
		    !cJSON_GetObjectItemCaseSensitive(old, f->field))
			continue;
		sub = xasprintf("%s/%s", dir, f->folder);
		r = buildinfo_folder_digest(sub, f->suffix, NULL, hex, e);
		free(sub);
		if (r != 0)
			goto out;
		cJSON_AddStringToObject(root, f->field, hex);
	}
	probes = cJSON_AddArrayToObject(root, "probes");
	for (size_t i = 0; i < found.n; i++) {
		cJSON *p = cJSON_CreateObject();
		const cJSON *was = buildinfo_old_probe(old, found.items[i]), *v;
		char *exe = xasprintf("%s/%s", dir, found.items[i]), hex[SHA256_HEX_LEN + 1];
		int bad = sha256_file(exe, hex, e), wrapper;
		const char *unlike = NULL;

		wrapper = (o->wrappers && strlist_contains(o->wrappers, found.items[i])) ||
		          cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(was, "wrapper"));
		if (!bad && abi && !wrapper)
			unlike = buildinfo_abi_unlike(exe);
		if (unlike) {
			char *w = xasprintf(
			    "%s (%s) is %s, yet the manifest declares \"abi\": %d (C probes "
			    "built against gcr.h): a program that only writes the census is "
			    "--protocol census (docs/manifest.md)",
			    exe, found.items[i], unlike, GCR_ABI_VERSION);
			strlist_push(warnings, w);
			free(w);
		}
		free(exe);
		cJSON_AddItemToArray(probes, p);
		if (bad)
			goto out;
		cJSON_AddStringToObject(p, "name", found.items[i]);
		cJSON_AddStringToObject(p, "file", found.items[i]);
		cJSON_AddStringToObject(p, "sha256", hex);
		if (wrapper)
			cJSON_AddTrueToObject(p, "wrapper");
		/* How the probe is run is not in its bytes: a rewritten manifest keeps it. */
		if (argv)
			cJSON_AddItemToObject(p, "argv", cJSON_Duplicate(argv, 1));
		else if ((v = cJSON_GetObjectItemCaseSensitive(was, "argv")))
			cJSON_AddItemToObject(p, "argv", cJSON_Duplicate(v, 1));
		if (argv_it)
			cJSON_AddItemToObject(p, "argv_iterations", cJSON_Duplicate(argv_it, 1));
		else if ((v = cJSON_GetObjectItemCaseSensitive(was, "argv_iterations")))
			cJSON_AddItemToObject(p, "argv_iterations", cJSON_Duplicate(v, 1));
	}
	text = cJSON_Print(root);
	{
		char *nl = xasprintf("%s\n", text);
		free(text);
		text = nl;
	}
	if (write_file_atomic(path, text, strlen(text), e) != 0)
		goto out;
	*nprobes = found.n;
	rc = 0;
out:
	if (d)
		closedir(d);
	free(text);
	cJSON_Delete(root);
	cJSON_Delete(old);
	cJSON_Delete(meters);
	cJSON_Delete(knobs);
	cJSON_Delete(caps);
	cJSON_Delete(argv);
	cJSON_Delete(argv_it);
	strlist_release(&found);
	free(clean);
	free(path);
	return rc;
}

int buildinfo_probe_wrapper(const struct buildinfo *b, const char *probe)
{
	for (size_t i = 0; i < b->probes.n; i++)
		if (strcmp(b->probes.items[i], probe) == 0)
			return b->wrapper[i];
	return 0;
}
