/*
 * caps.h — what a build says it does: the capabilities of the census protocol
 * (docs/census-protocol.md), as one set of flags the rules are derived from.
 *
 * A build's capabilities come from its census ("capabilities": ["collects", "precise"]), or,
 * for a build that sends no census, from its manifest. The store records them with the build
 * (schema 7); baseline pin derives each cell's class from them and from what it measured, and
 * check compares what a build's toolchain changes by them (docs/baselines.md, "Rules from
 * facts"). No rule anywhere is keyed on a collector's name: a new conservative collector, a
 * JIT or a clock-paced runtime says so itself.
 *
 * Invariants: `known` is 0 exactly when nothing was heard, and then `flags` is 0; a name that
 * is not a capability of this protocol version is not a flag (caps_parse counts it in
 * `unknown`, the caller warns).
 */
#ifndef CAPS_H
#define CAPS_H

#include <cjson/cJSON.h>

#include "util.h"

enum caps_flag {
	CAPS_COLLECTS = 1u << 0,     /* reclaims memory at all (epsilon does not) */
	CAPS_PRECISE = 1u << 1,      /* finds every root exactly: nothing is kept by a stale word */
	CAPS_MOVING = 1u << 2,       /* may relocate objects */
	CAPS_GENERATIONAL = 1u << 3, /* has minor collections and promotion */
	CAPS_BARRIER = 1u << 4,      /* records old-to-young stores */
	CAPS_PAUSE_LOG = 1u << 5,    /* marks every pause in the pause log */
	/*
	 * Starts or paces its collections by a clock (a pause-time goal, a timer, concurrent
	 * threads), not by allocation alone: its collection counts and what it holds at a moment
	 * move with the host's speed and load.
	 */
	CAPS_CLOCK_PACED = 1u << 6,
};

struct caps {
	int known;      /* 1: the build said what it does (possibly nothing) */
	unsigned flags; /* enum caps_flag */
	size_t unknown; /* names caps_parse did not know */
};

/* The protocol's name of one flag ("clock_paced"); NULL for a value that is not one flag. */
const char *caps_flag_name(unsigned flag);
/* Every flag, in the protocol's order; ends with 0. */
extern const unsigned caps_all[];

/*
 * Reads a JSON array of strings (a census's or a manifest's "capabilities") into *out, known.
 * `where` names it in messages. Names it does not know are counted, and the first copied into
 * `first_unknown` (may be NULL). -1 with e when v is not an array of strings.
 */
int caps_parse(const cJSON *v, const char *where, struct caps *out, char *first_unknown,
               size_t size, struct err *e);
/* The same from JSON text (a store's record); NULL text: unknown, and 0. */
int caps_parse_text(const char *text, const char *where, struct caps *out, struct err *e);
/* The set as the JSON array the store records, in the protocol's order; newly allocated. */
char *caps_json(const struct caps *c);
/* "collects, precise", "none" or "unknown": for a reader. Newly allocated. */
char *caps_describe(const struct caps *c);

/*
 * What the rules read (docs/baselines.md, "Rules from facts"). A build that never said what it
 * does is taken for the least it could be: collecting, not precise, not known to repeat. An
 * unknown build is not precise; one that does not collect keeps everything, so what it keeps is
 * what the probe kept, stale words or not.
 */
int caps_exact_retention(const struct caps *c); /* precise, or does not collect */
int caps_clock_paced(const struct caps *c);
int caps_collects(const struct caps *c);
/*
 * 1 when the build says its census need not repeat from run to run: it is clock-paced, or it
 * collects without being precise (a stale word keeps a different set alive from run to run).
 * Its counters are then never exact or deterministic, however alike a few runs happened to be
 * (ab, explain, bisect). A build that said nothing is judged by what its runs measured.
 */
int caps_census_varies(const struct caps *c);

#endif /* CAPS_H */
