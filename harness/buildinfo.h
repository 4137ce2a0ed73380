/*
 * buildinfo.h — collector build folders: one executable per probe plus manifest.json.
 *
 * A build folder is made by collectors/build.mk (or by hand, for an out-of-tree program that
 * speaks the census protocol). The harness finds shipped builds under
 * <build root>/collectors/<name>/, where the build root is the folder holding the gcratchet
 * executable, or $GCR_BUILD_ROOT.
 *
 * The manifest's schema is docs/manifest.md. A build declares either the C ABI its probes
 * were built against ("abi": 1) or, for a foreign program with no C ABI number, only the
 * protocol it speaks ("protocol": "census"). A probe may give the command line it is run with
 * as a template (see BUILDINFO_PLACEHOLDERS below); without one it is run as `EXE SIZE`, or
 * `EXE --iterations N` for --two-n.
 *
 * Invariants: a loaded build has a manifest of the format, schema version and ABI version (or
 * protocol) this harness speaks, every probe it lists is an executable file in the folder
 * whose sha256 is the one the manifest gives (so the manifest's hash, the build's id, stands
 * for these bytes), and every argv template starts with {exe} and uses only the
 * placeholders its kind of run has. The digests are checked when the build is loaded, and a
 * session checks them again after every run (buildinfo_unchanged).
 */
#ifndef BUILDINFO_H
#define BUILDINFO_H

#include <stdint.h>

#include "caps.h"
#include "sha256.h"
#include "toolchain.h"
#include "util.h"

/* The manifest schema version this harness writes; it reads 1 and 2 (docs/manifest.md). */
#define BUILDINFO_VERSION 2
/* Folders a manifest may name by digest: classes/ and lib/ (buildinfo.c). */
#define BUILDINFO_FOLDERS 2

struct buildinfo {
	char *dir;       /* the folder, as given */
	char *name;      /* build name: "marksweep", "marksweep-slow" */
	char *collector; /* collector identity: baselines are keyed by it */
	/*
	 * "design": the design it belongs to, the collector's name when the manifest gives none;
	 * two builds of one design (two settings of one runtime) are judged as one by ab.
	 */
	char *design;
	char *version; /* collector version */
	char *git_commit;
	char *manifest_text;
	char manifest_hash[17];
	struct strlist probes;      /* probe names, sorted as in the manifest */
	struct toolchain toolchain; /* unknown for a manifest that records none */
	int abi;                    /* the C ABI version; 0 for a "protocol": "census" build */
	int manifest_version;       /* the schema's "version", 1 or 2 */
	int *wrapper;               /* wrapper[i]: 1 when probe i starts the real program */
	/*
	 * "meters_off": meters a session leaves off for this build unless --meters names them:
	 * meters_off.items[i] ("valgrind", "cachesim" or "perf") and why, meters_off_why.items[i].
	 */
	struct strlist meters_off, meters_off_why;
	/*
	 * "knobs": the environment variables its probes read as knobs (knobs_declared 0: the
	 * manifest lists none); only these reach them from the caller's environment.
	 */
	struct strlist knobs;
	int knobs_declared;
	/* "capabilities": what the build does, for one that sends no census; unknown if absent */
	struct caps caps;
	/*
	 * What loading found doubtful but not wrong, one message each, naming the file: a probe
	 * that is a script or a program without the probe runtime in a build that declares "abi".
	 * The cli prints them; the build loads.
	 */
	struct strlist warnings;
	/*
	 * What was verified at load: each probe's sha256 (probes' order), and the digests of the
	 * folders the wrappers run (BUILDINFO_FOLDERS: "classes_sha256" of classes/, a JVM build's;
	 * "lib_sha256" of lib/, a JS build's), NULL where the manifest names none.
	 */
	struct strlist probe_sha256;
	char *folder_sha256[BUILDINFO_FOLDERS];
	/* argv[i], argv_iterations[i]: probe i's templates; empty for the default */
	struct strlist *argv, *argv_iterations;
	/*
	 * The files hashed at load, so buildinfo_unchanged reads again only those whose stamp
	 * moved (sha256.h): a cache, written through a const build too.
	 */
	struct sha256_memo *memo;
};

/*
 * The placeholders of a template, each replaced wherever it appears in an element: {exe}
 * (the probe's executable) in both; {size} (ci, default, large) in "argv", run at a size;
 * {iterations} (a count) in "argv_iterations", run by --two-n.
 */
#define BUILDINFO_PLACEHOLDERS "{exe}, {size} (argv) and {iterations} (argv_iterations)"

/*
 * The manifest_hash buildinfo_load would give dir's build, from its manifest's text alone:
 * nothing is parsed or verified, no probe is read. -1 with e when the file cannot be read.
 */
int buildinfo_manifest_hash(const char *dir, char out[17], struct err *e);
/* Loads dir/manifest.json; errors name the file and field. */
int buildinfo_load(const char *dir, struct buildinfo *out, struct err *e);
void buildinfo_release(struct buildinfo *b);
/*
 * 0 when a probe's file (and the classes a JVM wrapper runs) still has the digest verified when
 * the build was loaded; -1 with e naming the file and both digests when it changed since (a
 * probe rebuilt during a session: its runs would be stored under the old build's id). A file
 * whose stamp has not moved since it was hashed is not read again (sha256_file_memo).
 */
int buildinfo_unchanged(const struct buildinfo *b, const char *probe, struct err *e);
/* Path of a probe's executable in the build; newly allocated. */
char *buildinfo_probe_path(const struct buildinfo *b, const char *probe);
/*
 * The command line of one run of a probe, from its template or the default: at `size`, or
 * with iterations > 0 at that many iterations. {exe} becomes `exe`, the path the caller runs
 * the probe's executable by (the session runs it through a link of fixed length). A
 * NULL-terminated array, newly allocated; free it with buildinfo_argv_free.
 */
char **buildinfo_probe_argv(const struct buildinfo *b, const char *probe, const char *exe,
                            const char *size, uint64_t iterations);
void buildinfo_argv_free(char **argv);

/* The build root (see above); newly allocated. */
char *buildinfo_root(void);
/* Names of the shipped builds under root/collectors, sorted. */
void buildinfo_list(const char *root, struct strlist *names);

/*
 * What `gcratchet manifest` writes beyond what it finds in the folder: every field of the
 * schema (docs/manifest.md). A NULL or absent option keeps what a replaced manifest said, or
 * the default.
 */
struct buildinfo_manifest_opts {
	const char *name;       /* NULL: the folder's name */
	const char *collector;  /* NULL: the folder's name */
	const char *version;    /* NULL: "unknown" */
	const char *git_commit; /* NULL: "none" */
	int abi;                /* the C ABI (GCR_ABI_VERSION only); 0: "protocol": "census" */
	int protocol; /* 1: --protocol census given (a replaced manifest's abi is dropped) */
	const struct strlist *wrappers; /* probes declared wrappers; may be NULL */
	/* "METER=why" each (meters_off); NULL: keep; one item "none": no meters_off */
	const struct strlist *meters_off;
	/* knob names; NULL: keep; one item "none": an empty list (declares none) */
	const struct strlist *knobs;
	/* "collects,precise,..." or "none" (capabilities: []); NULL: keep */
	const char *capabilities;
	/* JSON arrays, the argv templates of every probe; NULL: keep each probe's */
	const char *argv, *argv_iterations;
	/* folders to name by digest, "classes" or "lib" (their *_sha256); a replaced manifest's
	 * are always digested again */
	const struct strlist *digests;
	int force; /* replace an existing manifest.json */
};

/*
 * Writes dir/manifest.json (schema BUILDINFO_VERSION) for every executable regular file in
 * dir named like a probe (NN_name), with its sha256; the build's name is the folder's.
 * *nprobes is how many it lists. Refuses an existing manifest without o->force, a folder
 * with no probe, a wrapper that names no probe, and an option the schema would refuse (a
 * meter that cannot be left off, a knob that is not a variable name, a capability the
 * protocol does not define, a bad template); errors name the file or option. What it writes
 * but doubts (an "abi" over probes that are scripts) is added to `warnings`, as loading does.
 * Replacing a manifest keeps what it said that the files cannot, unless an option says
 * otherwise: name, collector, collector_version, git_commit, abi, and each probe still
 * there's argv templates and wrapper flag. Only the digests (and so the build id) change.
 */
int buildinfo_manifest_write(const char *dir, const struct buildinfo_manifest_opts *o,
                             size_t *nprobes, struct strlist *warnings, struct err *e);
/* 1 when the manifest declares `probe` a wrapper (it starts the real program as a child). */
int buildinfo_probe_wrapper(const struct buildinfo *b, const char *probe);

/*
 * The design a recorded manifest's text names ("design"), else `collector` (NULL: ""); text
 * that does not parse names none. Newly allocated.
 */
char *buildinfo_design_of(const char *manifest_text, const char *collector);

#endif /* BUILDINFO_H */
