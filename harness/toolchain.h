/*
 * toolchain.h — what built a collector build's probes, and whether Ir can be compared across
 * two builds.
 *
 * valgrind's Ir counts the instructions the compiler emitted: the same source built by
 * another compiler, another major version of it, or with other code-generation flags executes
 * other instructions (clang 14 with -gdwarf-4 against gcc 12: +1.4% to +8.2% on 6 to 8 Ir cells
 * of every collector). And valgrind itself must be able to read the debug info it is given:
 * valgrind before 3.20 gives up on the DWARF 5 that clang 14 writes by default, so every Ir
 * run fails. A build manifest (scripts/manifest.sh) and a baseline each record a toolchain;
 * `check` compares them, `doctor` asks whether the installed valgrind can read a build.
 *
 * Invariants of a known toolchain: compiler, version and flags are set (compiler "gcc",
 * "clang", or the first word of `$(CC) --version` when neither); valgrind is NULL when no
 * valgrind was installed. cc and cc_version are the manifest's only (NULL in a baseline). An
 * unknown toolchain (an old manifest or baseline that records none) has every field NULL: it
 * is not an error, and nothing is compared against it.
 */
#ifndef TOOLCHAIN_H
#define TOOLCHAIN_H

#include <cjson/cJSON.h>

#include "util.h"

struct toolchain {
	int known;
	char *cc;         /* $(CC) as invoked: "cc", "clang", "/opt/gcc-13/bin/gcc" */
	char *cc_version; /* the first line of `$(CC) --version` */
	char *compiler;   /* "gcc", "clang" */
	char *version;    /* "12.2.0" */
	char *flags;      /* the code-generation flags: CFLAGS less -D, -I and -W */
	char *valgrind;   /* "valgrind-3.19.0", or NULL */
};

/*
 * Reads the "toolchain" member `v` of the JSON text called `name` (strictly, json.h): NULL
 * (absent) gives an unknown toolchain and 0; anything else must be an object with string
 * compiler, version and flags, and valgrind a string or null; cc and cc_version are read when
 * present. -1 with "NAME: toolchain.FIELD: must be ...".
 */
int toolchain_parse(const cJSON *v, const char *name, struct toolchain *out, struct err *e);
/* The toolchain member of a manifest.json text; an unknown toolchain when it has none. */
int toolchain_from_manifest(const char *text, const char *name, struct toolchain *out,
                            struct err *e);
void toolchain_copy(struct toolchain *dst, const struct toolchain *src);
void toolchain_release(struct toolchain *t);

/*
 * Sets t->valgrind to the valgrind a session measured with, from its meters text
 * ("rusage,census,valgrind:valgrind-3.19.0"): the one that counted the Ir. Unchanged when the
 * session ran no valgrind or t is unknown.
 */
void toolchain_set_valgrind_from_meters(struct toolchain *t, const char *meters);

/* The leading number of a version ("14.0.6": 14, "valgrind-3.19.0": 3); -1 when none. */
int toolchain_version_major(const char *version);

/*
 * Why Ir measured on a build made with `now` cannot be compared with Ir pinned on a build made
 * with `then`: another compiler, major version, flags or valgrind, said as "built with clang
 * 14.0.6, the baseline with gcc 12.2.0" (several joined by "; "); newly allocated. NULL when
 * they agree, or when either is unknown.
 */
char *toolchain_mismatch(const struct toolchain *now, const struct toolchain *then);

/*
 * Why `valgrind_version` ("valgrind-3.19.0") cannot read the debug info of a build made with
 * `t`, or NULL: clang 14 and later write DWARF 5 by default, which valgrind before 3.20
 * cannot read; gcc 11 and later do too, which valgrind before 3.17 cannot read (gcc 12's it
 * reads). -gdwarf-2, -3 or -4 in the flags avoids it. Newly allocated.
 */
char *toolchain_dwarf_unreadable(const struct toolchain *t, const char *valgrind_version);

#endif /* TOOLCHAIN_H */
