/*
 * sha256.h — SHA-256 digests as hex, so a build folder's manifest can pin each probe's bytes:
 * a build id is one set of executables (docs/manifest.md).
 *
 * The arithmetic is nettle's (Debian's nettle-dev): its fat build picks the processor's SHA
 * instructions (x86 SHA-NI, ARMv8's) at load time where they exist, the portable code
 * elsewhere, with the same digests. This module adds what the harness needs on top: hex
 * digests, a file's digest with an error naming it, and a memo of files already hashed.
 *
 * Digests are written as 64 lowercase hex digits, the form sha256sum prints and manifests hold.
 */
#ifndef SHA256_H
#define SHA256_H

#include <stddef.h>
#include <stdint.h>

#include <nettle/sha2.h>

#include "util.h"

/*
 * nettle's sha2.h maps the short names sha256_init and sha256_update to its own functions
 * (nettle_sha256_init, whose update takes the length first); here they are this module's, as
 * every name with its prefix is, and nettle's are called by their own names in sha256.c.
 */
#undef sha256_init
#undef sha256_update

#define SHA256_HEX_LEN 64

/* A digest being computed: sha256_init, any number of sha256_update, sha256_final_hex. */
struct sha256 {
	struct sha256_ctx ctx;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Finishes the digest into hex (SHA256_HEX_LEN digits and a NUL); s must be init'd again to reuse. */
void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX_LEN + 1]);
/* The digest of `len` bytes at `data`, as hex. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);
/* The digest of a file's bytes, as hex; -1 with a message naming the file when it cannot be read. */
int sha256_file(const char *path, char hex[SHA256_HEX_LEN + 1], struct err *e);
/*
 * A memo of files already hashed, so that a file hashed again and again (a probe after each
 * of its runs, a JVM build's lib/ folder) is read only when it may have changed.
 *
 * A file is not read again while its stamp (device, inode, size, modification and change
 * times, to the nanosecond) is the one taken just before it was last read, and both its
 * times were then more than SHA256_MEMO_RACY_NS old. Whatever writes, truncates, renames over
 * or re-creates the file changes its stamp: the change time is the kernel's to set, and no
 * call sets it back. The margin is for times that are coarse (the kernel's tick; FAT's two
 * seconds): a write within the same tick as the last one could keep both times, so a file
 * changed less than that before it was read is read again at each lookup until it is older
 * (make, git's index and ccache trust the same stamp, git with the same care for "racy" ones).
 * Owns copies of the paths; a memo is used by one thread at a time.
 */
#define SHA256_MEMO_RACY_NS (3 * 1000000000LL)
struct sha256_memo;
struct sha256_memo *sha256_memo_new(void);
void sha256_memo_free(struct sha256_memo *m);
/*
 * sha256_file, through the memo (NULL: no memo, every call reads the file). *read_again, when
 * given, is 1 when the file's bytes were read this time, 0 when its stamp vouched for them.
 */
int sha256_file_memo(struct sha256_memo *m, const char *path, char hex[SHA256_HEX_LEN + 1],
                     int *read_again, struct err *e);
/* 1 when s is exactly SHA256_HEX_LEN lowercase hex digits. */
int sha256_hex_valid(const char *s);

#endif /* SHA256_H */
