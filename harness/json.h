/*
 * json.h — the one strict JSON reader: every JSON text the harness reads (baseline profiles,
 * census objects, build manifests, the stored JSON that reports embed) goes through json_parse.
 *
 * cJSON alone accepts input the harness cannot honour. It stops after the first value, so a
 * file with trailing garbage, or two objects concatenated, reads as its first object. It keeps
 * both of two equal keys and every lookup finds the first, so a second rule hides behind the
 * first. It hands numbers over as doubles, which a cast turns into undefined behaviour when
 * they are out of an integer's range. json_parse checks the text before cJSON builds a tree of
 * it, and json_int is the one way to read an integer out of a tree.
 *
 * Invariants of a tree json_parse returns: its text was exactly one RFC 8259 value with
 * optional whitespace around it, in valid UTF-8; no object in it holds two equal keys
 * (compared after unescaping); no string holds a NUL; every number is finite as a double.
 *
 * Messages: what json_parse refuses is "NAME:LINE:COL: what" (both from 1; COL counts bytes);
 * what a getter refuses is "NAME: PATH: what was expected", PATH in jq's form without the
 * leading dot: rules."valgrind.ir".band_pct, cells[3].n.
 */
#ifndef JSON_H
#define JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* 2^53 - 1: every integer up to it, and none beyond, has a double of its own. */
#define JSON_INT_MAX INT64_C(9007199254740991)

/*
 * Parses `len` bytes at `text` (NUL-terminated or not) as one JSON value; `name` says where
 * the text came from in messages ("baselines/shared_ci/gen.json", "census"). 0 with *out the
 * tree, which the caller frees with cJSON_Delete; -1 with *out NULL and a message.
 */
int json_parse(const char *text, size_t len, const char *name, cJSON **out, struct err *e);

/* Line and column (both from 1) of byte offset `off` of `text`. */
void json_line_col(const char *text, size_t off, int *line, int *col);

/*
 * The path of member `key` of the value at `parent` ("" for the top): parent.key when key is
 * an identifier, parent."key" otherwise. Written into buf, truncated to size.
 */
void json_path_key(char *buf, size_t size, const char *parent, const char *key);
/* The path of element i of the array at `parent`: parent[i]. */
void json_path_index(char *buf, size_t size, const char *parent, size_t i);

/*
 * Getters. `v` is the value at `path` of the text called `name`, NULL when it is absent (then
 * the message says it is missing). Each returns 0 with *out set, or -1 with "NAME: PATH: must
 * be ..." and *out untouched.
 */
/*
 * An integer in [min, max] (both within +-JSON_INT_MAX). The range is checked on the double
 * before any conversion: 1.5, 1e300 and anything outside the range are refused, never cast.
 */
int json_int(const cJSON *v, int64_t min, int64_t max, const char *name, const char *path,
             int64_t *out, struct err *e);
/* A number (finite, by json_parse's invariant). */
int json_number(const cJSON *v, const char *name, const char *path, double *out, struct err *e);
/* true or false, as 1 or 0. */
int json_bool(const cJSON *v, const char *name, const char *path, int *out, struct err *e);
/* A string; *out points into the tree. */
int json_string(const cJSON *v, const char *name, const char *path, const char **out,
                struct err *e);

#endif /* JSON_H */
