/*
 * test_buildinfo.c — a build folder's manifest read back (issue 12, item 3): each required
 * field named when missing, every probe's sha256 checked against its file, the wrapper flag,
 * the schema version; and buildinfo_manifest_write's manifest loading as written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildinfo.h"
#include "sha256.h"
#include "unit.h"
#include "util.h"

static char dir[] = "/tmp/gcratchet-test-build.XXXXXX";
static char probe_sha[SHA256_HEX_LEN + 1];

static void write_text(const char *name, const char *text, int exec)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, exec ? 0755 : 0644);
	free(path);
}

/*
 * Writes a manifest: `head` is what comes after "format" (the version, abi or protocol and
 * identity), `probe` the one probe's members after its name. Then loads it.
 */
static int load(const char *head, const char *probe, struct buildinfo *b, struct err *e)
{
	char *m = xasprintf("{\"format\":\"gcratchet-build\"%s,\"probes\":[{\"name\":\"01_a\"%s}]}",
	                    head, probe);
	int rc;

	write_text("manifest.json", m, 0);
	free(m);
	rc = buildinfo_load(dir, b, e);
	if (rc == 0)
		buildinfo_release(b);
	return rc;
}

#define IDENT \
	",\"name\":\"x\",\"collector\":\"c\",\"collector_version\":\"1\",\"git_commit\":\"none\""
#define V2 ",\"version\":2,\"protocol\":\"census\"" IDENT

static void test_required(void)
{
	struct buildinfo b;
	struct err e;
	char *sha = xasprintf(",\"sha256\":\"%s\"", probe_sha);

	CHECK(load(V2, sha, &b, &e) == 0);
	/* Each field, missing, says so by name. */
	CHECK(load(",\"protocol\":\"census\"" IDENT, sha, &b, &e) != 0);
	CHECK(strstr(e.msg, "manifest.json: field version missing (the schema's version, 1 or 2)"));
	CHECK(load(",\"version\":2" IDENT, sha, &b, &e) != 0);
	CHECK(strstr(e.msg, "manifest.json: field abi missing (the C ABI the probes were built "
	                    "against, 1;"));
	CHECK(
	    load(",\"version\":2,\"abi\":1,\"name\":\"x\",\"collector\":\"c\",\"git_commit\":\"n\"",
	         sha, &b, &e) != 0);
	CHECK(strstr(e.msg, "manifest.json: field collector_version missing (a string)"));
	CHECK(load(V2, "", &b, &e) != 0);
	CHECK(strstr(e.msg, "manifest.json: field probes[0].sha256 missing (the probe file's "
	                    "sha256; write it with `gcratchet manifest DIR --force`, or rebuild)"));
	CHECK(load(V2, ",\"sha256\":\"-\"", &b, &e) != 0);
	CHECK(strstr(e.msg, "probes[0].sha256: \"-\" is not a sha256"));
	CHECK(load(",\"version\":3,\"abi\":1" IDENT, sha, &b, &e) != 0);
	CHECK(strstr(e.msg, "version: 3 is newer than this harness reads (2): update gcratchet"));
	CHECK(load(",\"version\":1.5,\"abi\":1" IDENT, sha, &b, &e) != 0);
	/* Version 1 (make before digests were checked) loads when its digests are real. */
	CHECK(load(",\"version\":1,\"abi\":1" IDENT, sha, &b, &e) == 0);
	free(sha);
}

static void test_digest(void)
{
	struct buildinfo b;
	struct err e;
	char *sha = xasprintf(",\"sha256\":\"%s\"", probe_sha), want[512];

	CHECK(load(V2, sha, &b, &e) == 0);
	/* The probe edited after its manifest: refused, naming the file and both digests. */
	write_text("01_a", "#!/bin/sh\necho edited\n", 1);
	CHECK(load(V2, sha, &b, &e) != 0);
	snprintf(want, sizeof want,
	         "probe file %s/01_a changed after its manifest was written: "
	         "the manifest says sha256 %s, the file's is ",
	         dir, probe_sha);
	CHECK(strstr(e.msg, want) != NULL);
	CHECK(strstr(e.msg, "gcratchet manifest DIR --force"));
	write_text("01_a", "#!/bin/sh\necho a\n", 1);
	CHECK(load(V2, sha, &b, &e) == 0);
	free(sha);
}

static void test_wrapper(void)
{
	struct buildinfo b;
	struct err e;
	char *w = xasprintf(",\"sha256\":\"%s\",\"wrapper\":true", probe_sha);
	char *bad = xasprintf(",\"sha256\":\"%s\",\"wrapper\":1", probe_sha);
	char *m = xasprintf(
	    "{\"format\":\"gcratchet-build\"" V2 ",\"probes\":[{\"name\":\"01_a\"%s}]}", w);

	write_text("manifest.json", m, 0);
	CHECK(buildinfo_load(dir, &b, &e) == 0);
	CHECK(buildinfo_probe_wrapper(&b, "01_a") == 1);
	CHECK(buildinfo_probe_wrapper(&b, "02_b") == 0);
	buildinfo_release(&b);
	CHECK(load(V2, bad, &b, &e) != 0);
	CHECK(strstr(e.msg, "probes[0].wrapper: must be"));
	free(m);
	free(bad);
	free(w);
}

/* "meters_off": only optional meters, each with a reason. */
static void test_meters_off(void)
{
	struct buildinfo b;
	struct err e;
	char *sha = xasprintf(",\"sha256\":\"%s\"", probe_sha);

	CHECK(load(V2 ",\"meters_off\":{\"valgrind\":\"a minute a run\",\"perf\":\"x\"}", sha, &b,
	           &e) == 0);
	CHECK(load(V2 ",\"meters_off\":{\"census\":\"x\"}", sha, &b, &e) != 0);
	CHECK(strstr(e.msg, "meters_off.census: not a meter a build can leave off"));
	CHECK(load(V2 ",\"meters_off\":{\"valgrind\":\"\"}", sha, &b, &e) != 0);
	CHECK(strstr(e.msg, "meters_off.valgrind: must be the reason"));
	CHECK(load(V2 ",\"meters_off\":[\"valgrind\"]", sha, &b, &e) != 0);
	CHECK(strstr(e.msg, "meters_off: must be an object"));
	free(sha);
}

/* --force keeps what the replaced manifest said that the files cannot. */
static void test_rewrite(void)
{
	struct strlist warn = {0};
	struct buildinfo_manifest_opts o = {0};
	struct buildinfo b;
	struct err e;
	size_t n;
	char **argv;
	char *m = xasprintf("{\"format\":\"gcratchet-build\",\"version\":2,\"abi\":1,\"name\":"
	                    "\"ms\",\"collector\":\"marksweep\",\"collector_version\":\"1.0\","
	                    "\"git_commit\":\"abc\",\"meters_off\":{\"valgrind\":\"slow\"},"
	                    "\"probes\":[{\"name\":\"01_a\",\"sha256\":"
	                    "\"%s\",\"wrapper\":true,\"argv\":[\"{exe}\",\"--size={size}\"]}]}",
	                    probe_sha);

	write_text("manifest.json", m, 0);
	free(m);
	write_text("01_a", "#!/bin/sh\necho edited\n", 1);
	o.force = 1;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) == 0);
	CHECK(buildinfo_load(dir, &b, &e) == 0);
	CHECK(b.abi == 1 && strcmp(b.name, "ms") == 0 && strcmp(b.collector, "marksweep") == 0 &&
	      strcmp(b.version, "1.0") == 0 && strcmp(b.git_commit, "abc") == 0);
	CHECK(buildinfo_probe_wrapper(&b, "01_a") == 1);
	CHECK(b.meters_off.n == 1 && strcmp(b.meters_off.items[0], "valgrind") == 0 &&
	      strcmp(b.meters_off_why.items[0], "slow") == 0);
	argv = buildinfo_probe_argv(&b, "01_a", "EXE", "ci", 0);
	CHECK(argv[0] && strcmp(argv[0], "EXE") == 0 && argv[1] &&
	      strcmp(argv[1], "--size=ci") == 0 && !argv[2]);
	buildinfo_argv_free(argv);
	buildinfo_release(&b);
	/* An option still wins, and --protocol drops the old abi. */
	o.collector = "other";
	o.protocol = 1;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) == 0);
	CHECK(buildinfo_load(dir, &b, &e) == 0);
	CHECK(b.abi == 0 && strcmp(b.collector, "other") == 0 && strcmp(b.name, "ms") == 0);
	buildinfo_release(&b);
	/* Probes of another ABI are not relabelled. */
	write_text("manifest.json", "{\"format\":\"gcratchet-build\",\"abi\":0,\"probes\":[]}", 0);
	o.protocol = 0;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "says abi 0, this harness speaks 1: rebuild the probes"));
	write_text("01_a", "#!/bin/sh\necho a\n", 1);
	strlist_release(&warn);
}

static void test_write(void)
{
	struct strlist warn = {0};
	struct buildinfo_manifest_opts o = {0};
	struct strlist wrappers = {0};
	struct buildinfo b;
	struct err e;
	size_t n;

	write_text("02_b", "#!/bin/sh\necho b\n", 1);
	write_text("03_data", "not executable\n", 0);
	write_text("helper", "#!/bin/sh\n", 1);
	strlist_push(&wrappers, "02_b");
	o.collector = "jvm-g1";
	o.version = "17";
	o.wrappers = &wrappers;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "manifest.json already exists: --force replaces it"));
	o.force = 1;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) == 0);
	CHECK(n == 2);
	CHECK(buildinfo_load(dir, &b, &e) == 0);
	CHECK(b.probes.n == 2 && strcmp(b.probes.items[0], "01_a") == 0 &&
	      strcmp(b.probes.items[1], "02_b") == 0);
	CHECK(b.manifest_version == BUILDINFO_VERSION && b.abi == 0);
	CHECK(b.collector && strcmp(b.collector, "jvm-g1") == 0);
	CHECK(b.version && strcmp(b.version, "17") == 0);
	CHECK(buildinfo_probe_wrapper(&b, "01_a") == 0 && buildinfo_probe_wrapper(&b, "02_b") == 1);
	buildinfo_release(&b);
	o.abi = 1;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) == 0);
	CHECK(buildinfo_load(dir, &b, &e) == 0);
	CHECK(b.abi == 1);
	buildinfo_release(&b);
	o.abi = 2;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "--abi 2: this harness speaks collector ABI 1"));
	o.abi = 0;
	strlist_push(&wrappers, "09_x");
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "--wrapper 09_x: ") && strstr(e.msg, "has no executable probe"));
	strlist_release(&wrappers);
	strlist_release(&warn);
	test_rewrite();
	{
		char *p = xasprintf("%s/02_b", dir), *q = xasprintf("%s/03_data", dir),
		     *r = xasprintf("%s/helper", dir);
		unlink(p);
		unlink(q);
		unlink(r);
		free(p);
		free(q);
		free(r);
	}
}

/*
 * A probe's name is NN_name (issue 27): a benchmark named "mt-gcbench" is refused with the
 * rule. "abi" over a probe that is a script loads, with a warning naming it; declared a
 * wrapper, it is not judged.
 */
static void test_names_and_abi(void)
{
	struct buildinfo b;
	struct err e;
	char *m;

	m = xasprintf("{\"format\":\"gcratchet-build\"" V2 ",\"probes\":[{\"name\":\"mt-gcbench\","
	              "\"sha256\":\"%s\"}]}",
	              probe_sha);
	write_text("manifest.json", m, 0);
	free(m);
	CHECK(buildinfo_load(dir, &b, &e) != 0);
	CHECK(strstr(e.msg, "probes[0].name: \"mt-gcbench\" is not a probe's name: a probe is "
	                    "named NN_name (two digits, an underscore and a name"));
	m = xasprintf("{\"format\":\"gcratchet-build\",\"version\":2,\"abi\":1" IDENT
	              ",\"probes\":[{\"name\":\"01_a\",\"sha256\":\"%s\"}]}",
	              probe_sha);
	write_text("manifest.json", m, 0);
	free(m);
	CHECK(buildinfo_load(dir, &b, &e) == 0);
	CHECK(b.warnings.n == 1 &&
	      strstr(b.warnings.items[0], "probes[0] (01_a) is a script, yet the manifest "
	                                  "declares \"abi\": 1") &&
	      strstr(b.warnings.items[0], "declares \"protocol\": \"census\""));
	buildinfo_release(&b);
	m = xasprintf("{\"format\":\"gcratchet-build\",\"version\":2,\"abi\":1" IDENT
	              ",\"probes\":[{\"name\":\"01_a\",\"sha256\":\"%s\",\"wrapper\":true}]}",
	              probe_sha);
	write_text("manifest.json", m, 0);
	free(m);
	CHECK(buildinfo_load(dir, &b, &e) == 0);
	CHECK(b.warnings.n == 0);
	buildinfo_release(&b);
}

/* Every field from an option (issue 27), each checked as the loader checks it. */
static void test_write_fields(void)
{
	struct buildinfo_manifest_opts o = {0};
	struct strlist meters = {0}, knobs = {0}, digests = {0}, warn = {0};
	struct buildinfo b;
	struct err e;
	size_t n;
	char **argv;
	char *lib = xasprintf("%s/lib", dir), *libfile = xasprintf("%s/lib/a.js", dir);

	o.force = 1;
	o.name = "js-x";
	o.git_commit = "f00d";
	strlist_push(&meters, "valgrind=a JIT under valgrind");
	o.meters_off = &meters;
	strlist_push(&knobs, "GCR_HEAP_MAX_MB");
	o.knobs = &knobs;
	o.capabilities = "collects,precise,clock_paced";
	o.argv = "[\"{exe}\", \"--size\", \"{size}\"]";
	CHECK(mkdir(lib, 0755) == 0);
	write_text("lib/a.js", "1;\n", 0);
	strlist_push(&digests, "lib");
	o.digests = &digests;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) == 0);
	CHECK(warn.n == 0);
	CHECK(buildinfo_load(dir, &b, &e) == 0);
	CHECK(strcmp(b.name, "js-x") == 0 && strcmp(b.git_commit, "f00d") == 0);
	CHECK(b.meters_off.n == 1 &&
	      strcmp(b.meters_off_why.items[0], "a JIT under valgrind") == 0);
	CHECK(b.knobs_declared && b.knobs.n == 1 &&
	      strcmp(b.knobs.items[0], "GCR_HEAP_MAX_MB") == 0);
	CHECK(b.caps.known && b.caps.flags == (CAPS_COLLECTS | CAPS_PRECISE | CAPS_CLOCK_PACED));
	CHECK(b.folder_sha256[1] != NULL);
	argv = buildinfo_probe_argv(&b, "01_a", "EXE", "ci", 0);
	CHECK(argv[1] && strcmp(argv[1], "--size") == 0 && argv[2] && strcmp(argv[2], "ci") == 0);
	buildinfo_argv_free(argv);
	buildinfo_release(&b);
	/* --force keeps them all, and digests lib/ again: an edited script is a new build. */
	write_text("lib/a.js", "2;\n", 0);
	memset(&o, 0, sizeof o);
	o.force = 1;
	CHECK(buildinfo_load(dir, &b, &e) != 0);
	CHECK(strstr(e.msg, "the files in ") && strstr(e.msg, "lib_sha256") &&
	      strstr(e.msg, "(make js)"));
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) == 0);
	CHECK(buildinfo_load(dir, &b, &e) == 0);
	CHECK(b.meters_off.n == 1 && b.knobs.n == 1 && b.caps.flags & CAPS_CLOCK_PACED &&
	      strcmp(b.name, "js-x") == 0 && b.folder_sha256[1] != NULL);
	buildinfo_release(&b);
	/* "none" empties a list. */
	strlist_release(&knobs);
	strlist_push(&knobs, "none");
	o.knobs = &knobs;
	o.capabilities = "none";
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) == 0);
	CHECK(buildinfo_load(dir, &b, &e) == 0);
	CHECK(b.knobs_declared && b.knobs.n == 0 && b.caps.known && b.caps.flags == 0);
	buildinfo_release(&b);
	/* Refused, naming the option, before anything is written. */
	o.knobs = NULL;
	o.capabilities = "precise,exact";
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "--capabilities precise,exact: \"exact\" is not a capability"));
	o.capabilities = NULL;
	strlist_release(&meters);
	strlist_push(&meters, "ir=slow");
	o.meters_off = &meters;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "--meters-off ir=slow: ir is not a meter a build can leave off"));
	strlist_release(&meters);
	strlist_push(&meters, "valgrind");
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "--meters-off valgrind: give the meter and why, METER=WHY"));
	o.meters_off = NULL;
	strlist_release(&knobs);
	strlist_push(&knobs, "heap_mb");
	o.knobs = &knobs;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "--knob heap_mb: not a variable name"));
	o.knobs = NULL;
	o.argv = "[\"/bin/sh\", \"{exe}\"]";
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "--argv: argv[0]: must be \"{exe}\""));
	o.argv = "[\"{exe}\", \"{size\"";
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "--argv:1:"));
	o.argv = NULL;
	strlist_release(&digests);
	strlist_push(&digests, "bin");
	o.digests = &digests;
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) != 0);
	CHECK(strstr(e.msg, "--digest bin: not a folder a manifest names by digest"));
	/* --abi over a script not declared a wrapper: written, with the loader's warning. */
	o.digests = NULL;
	o.abi = 1;
	write_text("manifest.json", "{}", 0);
	CHECK(buildinfo_manifest_write(dir, &o, &n, &warn, &e) == 0);
	CHECK(warn.n == 1 && strstr(warn.items[0], "(01_a) is a script, yet the manifest declares "
	                                           "\"abi\": 1"));
	unlink(libfile);
	rmdir(lib);
	free(libfile);
	free(lib);
	strlist_release(&meters);
	strlist_release(&knobs);
	strlist_release(&digests);
	strlist_release(&warn);
}

int main(void)
{
	char *p;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	write_text("01_a", "#!/bin/sh\necho a\n", 1);
	sha256_hex("#!/bin/sh\necho a\n", strlen("#!/bin/sh\necho a\n"), probe_sha);
	test_required();
	test_digest();
	test_wrapper();
	test_meters_off();
	test_write();
	test_names_and_abi();
	test_write_fields();
	p = xasprintf("%s/01_a", dir);
	unlink(p);
	free(p);
	p = xasprintf("%s/manifest.json", dir);
	unlink(p);
	free(p);
	CHECK(rmdir(dir) == 0);
	return unit_done("test_buildinfo");
}
