/*
 * util.h — allocation, errors and small string helpers shared by every harness module.
 *
 * Invariants:
 * - Allocation failure is not an error path: the x* functions print and abort, so callers
 *   never check for NULL. Nothing else in the harness exits the process.
 * - A fallible function returns 0 on success or a negative value on failure, and on failure
 *   has written a message into the caller's `struct err` that names what was wrong and where.
 */
#ifndef UTIL_H
#define UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define ERR_MSG_MAX 1024

/*
 * What kind of failure an error is, so a caller can act on it (suggest pinning a baseline
 * that does not exist, name integrity_check for a corrupt store) without reading the text.
 */
enum err_code {
	ERR_NONE = 0,
	ERR_FAILED,    /* anything not listed below */
	ERR_NOT_FOUND, /* a file, session, build or row that does not exist */
	ERR_INVALID,   /* input that breaks its format or its rules: a file, an argument */
	ERR_IO,        /* reading or writing failed */
	ERR_CORRUPT,   /* stored data that cannot be trusted (a damaged database) */
	ERR_BUSY,      /* held by someone else: a lock, a locked database */
};

/* A zero-initialised struct err (`struct err e = ERR_INIT;`) says "no error". */
struct err {
	enum err_code code;
	char msg[ERR_MSG_MAX];
};
#define ERR_INIT             \
	{                    \
		ERR_NONE, "" \
	}

/* Formats into e->msg with code ERR_FAILED (when e is not NULL) and returns -1. */
int err_set(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with an explicit code: `return err_setc(e, ERR_NOT_FOUND, "%s: no such file", p)`. */
int err_setc(struct err *e, enum err_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* A newly allocated formatted string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer, always NUL-terminated. */
struct sbuf {
	char *data;
	size_t len;
	size_t cap;
};
void sbuf_init(struct sbuf *b);
void sbuf_release(struct sbuf *b);
void sbuf_add(struct sbuf *b, const void *data, size_t len);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The text of b, which the caller now owns; b holds nothing afterwards: adding to it starts a
 * new buffer, and sbuf_release of it frees nothing.
 */
char *sbuf_detach(struct sbuf *b);

/* A list of owned strings. */
struct strlist {
	char **items;
	size_t n;
	size_t cap;
};
void strlist_push(struct strlist *l, const char *s);
int strlist_contains(const struct strlist *l, const char *s);
void strlist_release(struct strlist *l);
/* Splits `s` on commas, skipping empty pieces, appending each to l. */
void strlist_split(struct strlist *l, const char *s);
/* "a, b, c" — newly allocated. */
char *strlist_join(const struct strlist *l, const char *sep);
/*
 * The order every output lists probes in: by the number a name starts with ("9_x" before
 * "10_y"), a name with no number after every numbered one, then byte order. A session's
 * shuffled run order never shows in an output's order.
 */
int strlist_probe_cmp(const char *a, const char *b);
/* Sorts l's items by strlist_probe_cmp. */
void strlist_sort_probes(struct strlist *l);
/*
 * The probe of names a user's word means: the name itself, else one it numbers ("1" and "01"
 * both name 01_nursery_churn); NULL when none. Borrowed from names.
 */
const char *strlist_find_probe(const struct strlist *names, const char *want);

/* Edit distance of two strings of up to 64 characters, a swap of two neighbours one edit
 * (optimal string alignment); (size_t)-1 for longer ones. */
size_t edit_distance(const char *a, const char *b);
/* 1 when a distance makes a "did you mean": 1 edit in up to 4 characters, 2 in 8, else 3. */
int near_close_enough(const char *typed, size_t distance);
/* The nearest of the candidates offered to near_offer so far; zero-initialised to start. */
struct near_name {
	const char *name;
	size_t distance;
};
void near_offer(const char *typed, const char *candidate, struct near_name *near);
/* The nearest name, if it is close enough to suggest (near_close_enough), else NULL. */
const char *near_pick(const char *typed, const struct near_name *near);
/* "did you mean X? " for a guess, "" for NULL, to open an error's parenthesis. Returns buf;
 * NEAR_PHRASE_MAX holds any (a guess is at most 64 characters). */
#define NEAR_PHRASE_MAX 96
const char *near_phrase(const char *guess, char *buf, size_t size);
/* The nearest of names to a mistyped one, close enough for "did you mean"; NULL: none is. */
const char *strlist_near(const char *typed, const struct strlist *names);
/* The probe of names a mistyped word is near, by its whole name or its words after the
 * number ("nursery_chrun": 01_nursery_churn); NULL: none is close. */
const char *strlist_near_probe(const struct strlist *names, const char *typed);

/* Reads a whole file; NUL-terminated. Errors name the path. */
int read_file(const char *path, char **out, size_t *len, struct err *e);
/*
 * The one writer of every output file (--out, --md, --json, --html, baselines, manifests).
 * What path is decides how it is written, and path stays what it was:
 * - "-" is stdout (after what stdio holds for it);
 * - a regular file, or a name that does not exist yet, is replaced atomically: a temporary
 *   file PATH.tmp.PID.XXXXXX in the same folder, created exclusively and never through a link
 *   (O_EXCL|O_NOFOLLOW: a name planted there is skipped, not opened), written, fsynced and
 *   renamed over path. The new file keeps the old one's permission bits (as root, its owner
 *   too); a new one is 0644 less the umask. On failure path is as it was and the temporary
 *   file is gone;
 * - a link is followed to the file it names, which is written as above, and stays a link
 *   (not one another user planted in a sticky folder anyone may write, such as /tmp: the
 *   kernel's protected_symlinks rule);
 * - anything else but a folder (a character device such as /dev/null, a FIFO, a terminal) is
 *   written through, never created, replaced or truncated; a failure there cannot be undone.
 * Temporary files of earlier writers to path that were killed before their rename (their pid
 * no longer runs; regular files of ours only) are removed first, so an interrupted write
 * leaves nothing behind after the next one. The message of an error names path.
 * GCR_TEST_WRITE_FAIL=N (a test hook, util.c) fails the Nth I/O step.
 */
int write_file_atomic(const char *path, const char *data, size_t len, struct err *e);
/*
 * Whether path is "-", which write_file_atomic writes to stdout: a caller then says where its
 * file went on stderr, not in the middle of it.
 */
int write_file_is_stdout(const char *path);

/* 1 when s is one or more ASCII digits and nothing else. */
int is_all_digits(const char *s);
/* Parses a non-negative decimal integer that fills the whole string. */
int parse_u64(const char *s, uint64_t *out);
/* Parses a finite number above 0 that fills the whole string (no blanks, "nan" or "inf"). */
int parse_pos_double(const char *s, double *out);

/*
 * The length of the well-formed UTF-8 sequence at p (Unicode table 3-7: no overlong forms, no
 * surrogates, nothing beyond U+10FFFF), or 0 when p does not start one. At most `avail` bytes
 * are read; for a NUL-terminated string SIZE_MAX is safe, since NUL is never a continuation.
 */
size_t utf8_len(const unsigned char *p, size_t avail);

/*
 * Marks a function whose unsigned arithmetic wraps on purpose (a hash, a generator), so the
 * sanitizer build (clang's -fsanitize=integer, `make asan`) checks every other function for
 * unsigned overflow and bits shifted out. GCC has no such check, and rejects the attribute's
 * argument.
 */
#ifdef __clang__
#define UTIL_WRAPS_ON_PURPOSE \
	__attribute__((no_sanitize("unsigned-integer-overflow", "unsigned-shift-base")))
#else
#define UTIL_WRAPS_ON_PURPOSE
#endif

/* FNV-1a over bytes, chained through h: a stable, non-cryptographic identity hash. */
uint64_t hash_fnv1a(const void *data, size_t len, uint64_t h);
#define HASH_FNV1A_SEED UINT64_C(0xcbf29ce484222325)

/*
 * Runs argv[0] (looked up on PATH) with stdin from /dev/null, appends its stdout to *out, and
 * passes its stderr through (to /dev/null when quiet). Returns its exit status, 127 when the
 * program was not found, or -1 when it could not be started or did not exit normally.
 */
int run_capture(char *const argv[], int quiet, struct sbuf *out);

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
int64_t now_mono_ns(void);
int64_t now_real_ns(void);
/* "2026-11-30T10:00:00Z" for a CLOCK_REALTIME value; writes into buf. */
void format_utc(int64_t real_ns, char *buf, size_t size);

#endif /* UTIL_H */
