/*
 * fuzz_manifest.c — the build-folder manifest parser over any bytes. buildinfo.c reads a
 * manifest only through buildinfo_load(dir), which also checks that every listed probe is an
 * executable in the folder, so each input is written to manifest.json in one scratch folder
 * that holds an executable for each shipped probe name: the shipped manifests in the corpus
 * then load, and mutations of them reach every field.
 *
 * Promises checked besides the sanitizers': a failure says why; a success has every identity
 * string, at least one probe, the text it read, and a 16-digit hash of it.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildinfo.h"
#include "fuzz.h"

static const char *const fuzz_manifest_probes[] = {
    "01_nursery_churn",      "02_survivor_promotion", "03_cross_gen_writes",
    "04_deep_stack_garbage", "05_binary_trees",       "06_fragmentation",
    "07_array_growth",       "08_hash_side_tables",   "09_weak_finalize",
    "10_large_objects",      "11_collect_at_depth",   "12_large_live_set",
    "13_memory_return",      "14_grow_then_churn",    NULL,
};

/* In memory where there is a tmpfs: a file rewritten on disk costs milliseconds, not micros. */
static char fuzz_manifest_dir[] = "/dev/shm/gcratchet-fuzz-manifest.XXXXXX";
static char fuzz_manifest_dir_disk[] = "/tmp/gcratchet-fuzz-manifest.XXXXXX";
static char *fuzz_manifest_path;

static void fuzz_manifest_cleanup(void)
{
	for (size_t i = 0; fuzz_manifest_probes[i]; i++) {
		char *exe = xasprintf("%s/%s", fuzz_manifest_dir, fuzz_manifest_probes[i]);
		unlink(exe);
		free(exe);
	}
	unlink(fuzz_manifest_path);
	rmdir(fuzz_manifest_dir);
	free(fuzz_manifest_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!mkdtemp(fuzz_manifest_dir)) {
		if (!mkdtemp(fuzz_manifest_dir_disk))
			FUZZ_FAIL("mkdtemp %s: %s", fuzz_manifest_dir_disk, strerror(errno));
		strcpy(fuzz_manifest_dir, fuzz_manifest_dir_disk);
	}
	fuzz_manifest_path = xasprintf("%s/manifest.json", fuzz_manifest_dir);
	for (size_t i = 0; fuzz_manifest_probes[i]; i++) {
		char *exe = xasprintf("%s/%s", fuzz_manifest_dir, fuzz_manifest_probes[i]);
		FILE *f = fopen(exe, "w");
		if (!f || fputs("#!/bin/sh\nexit 0\n", f) < 0 || fclose(f) != 0 ||
		    chmod(exe, 0755) != 0)
			FUZZ_FAIL("writing %s: %s", exe, strerror(errno));
		free(exe);
	}
	atexit(fuzz_manifest_cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buildinfo b;
	struct err e;
	FILE *f;

	/* A new file, not a truncated one: ext4 flushes a file truncated and rewritten on close. */
	unlink(fuzz_manifest_path);
	f = fopen(fuzz_manifest_path, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		FUZZ_FAIL("writing %s: %s", fuzz_manifest_path, strerror(errno));
	e.msg[0] = '\0';
	if (buildinfo_load(fuzz_manifest_dir, &b, &e) != 0) {
		FUZZ_ASSERT(e.msg[0] != '\0', "buildinfo_load failed without a message");
		FUZZ_ASSERT(b.name == NULL && b.probes.n == 0, "a failed load left a build");
		return 0;
	}
	FUZZ_ASSERT(b.name && b.collector && b.version && b.git_commit, "an identity is NULL");
	FUZZ_ASSERT(b.probes.n >= 1, "a build loaded with no probe");
	FUZZ_ASSERT(b.manifest_text && strlen(b.manifest_hash) == 16, "no manifest hash");
	FUZZ_ASSERT(strlen(b.manifest_text) <= size &&
	                memcmp(b.manifest_text, data, strlen(b.manifest_text)) == 0,
	            "the manifest text is not what was read");
	buildinfo_release(&b);
	return 0;
}
