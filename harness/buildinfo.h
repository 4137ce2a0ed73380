/*
 * buildinfo.h — collector build folders: one executable per probe plus manifest.json.
 *
 * A build folder is made by collectors/build.mk (or by hand, for an out-of-tree program that
 * speaks the census protocol). The harness finds shipped builds under
 * <build root>/collectors/<name>/, where the build root is the folder holding the gcratchet
 * executable, or $GCR_BUILD_ROOT.
 *
 * Invariants: a loaded build has a manifest of the format and ABI version this harness
 * speaks, and every probe it lists is an executable file in the folder.
 */
#ifndef BUILDINFO_H
#define BUILDINFO_H

#include "toolchain.h"
#include "util.h"

struct buildinfo {
	char *dir;       /* the folder, as given */
	char *name;      /* build name: "marksweep", "marksweep-slow" */
	char *collector; /* collector identity: baselines are keyed by it */
	char *version;   /* collector version */
	char *git_commit;
	char *manifest_text;
	char manifest_hash[17];
	struct strlist probes;      /* probe names, sorted as in the manifest */
	struct toolchain toolchain; /* unknown for a manifest that records none */
};

/* Loads dir/manifest.json; errors name the file and field. */
int buildinfo_load(const char *dir, struct buildinfo *out, struct err *e);
void buildinfo_release(struct buildinfo *b);
/* Path of a probe's executable in the build; newly allocated. */
char *buildinfo_probe_path(const struct buildinfo *b, const char *probe);

/* The build root (see above); newly allocated. */
char *buildinfo_root(void);
/* Names of the shipped builds under root/collectors, sorted. */
void buildinfo_list(const char *root, struct strlist *names);

#endif /* BUILDINFO_H */
